"""New development or redevelopment: existing impervious cover inside the limit of disturbance.

Chapter 320's definitions: *new development* disturbs an area "that has not previously been
developed to include impervious cover"; *redevelopment* is any other disturbance. So any existing
impervious cover inside the disturbance measures as redevelopment (where it is a small share,
the findings leave the call to the Commission: the text is silent on mixed sites). The cover is
measured from an existing-impervious layer: a raster (non-zero cells are impervious; each cell
counts by the exact fraction of it inside the site, computed by exactextract) or polygons (exact
intersection).
The applicant may state the type (``override``): a statement never decides against a
measurement; where they disagree the result says so (``conflict``) and the Commission decides.

Examples
--------
>>> import geopandas as gpd
>>> from shapely.geometry import box
>>> site = gpd.GeoDataFrame(geometry=[box(0, 0, 100, 100)], crs="EPSG:26986")
>>> roofs = gpd.GeoDataFrame(geometry=[box(10, 10, 30, 30)], crs="EPSG:26986")
>>> r = development_type(site, impervious=roofs)
>>> r["value"], r["existing_impervious_sqft"], r["method"]
('redevelopment', 4305.56, 'measured: impervious polygons')
"""

from __future__ import annotations

from typing import Any

import geopandas as gpd
import numpy as np
import shapely

from swm_gis import formatting as fmt
from swm_gis.errors import CrsError, SwmGisError
from swm_gis.raster import Raster
from swm_gis.rules.citations import RuleCitations, default_citations
from swm_gis.rules.disturbance import sqft_per_crs_unit2, union_polygons

VALUES = ("new", "redevelopment")


def development_type(
    site: gpd.GeoDataFrame,
    *,
    impervious: Raster | gpd.GeoDataFrame | None,
    override: str | None = None,
    citations: RuleCitations | None = None,
) -> dict[str, Any]:
    """Classify the project as new development or redevelopment.

    Parameters
    ----------
    site
        Limit-of-disturbance polygon(s) in a projected CRS; their union is measured.
    impervious
        Existing impervious cover: a :class:`~swm_gis.raster.Raster` in the site's CRS (non-zero
        = impervious; masked cells are not impervious), polygons, or None when no layer exists.
    override
        ``"new"`` or ``"redevelopment"``: the applicant's statement. ``value`` follows it;
        where the measurement disagrees, ``conflict`` is True.
    citations
        What the section and reasons cite (:func:`swm_gis.rules.citations.rule_citations` of
        the regulation applied: its definitions). Default: the default profile's.

    Returns
    -------
    dict
        ``value`` ("new" | "redevelopment"), ``existing_impervious_sqft`` (None when not
        measured), ``deciding_impervious_sqft`` (the cover that decides: for a raster, the part
        farther than half a cell inside the boundary), ``edge_tolerance_ft`` (that half cell),
        ``method`` (where ``value`` comes from), ``measured_value`` (what the measurement
        alone says, or None), ``stated_value`` (the ``override``, or None), ``conflict``
        (True when the statement and the measurement disagree: the Commission decides, and
        the findings give both types' standards), ``reasons`` and ``section``.
    """
    if override is not None and override not in VALUES:
        raise SwmGisError(f'Unknown development type "{override}"; use one of: new, '
                          "redevelopment (or auto to measure it).")
    cite = citations or default_citations()
    site_union = union_polygons(site, what="site")
    factor = sqft_per_crs_unit2(site.crs)
    measured_sqft: float | None = None
    deciding_sqft: float | None = None
    edge_ft: float | None = None
    source = None
    if isinstance(impervious, Raster):
        whole, inner, edge = _raster_cover(site_union, impervious, site.crs)
        measured_sqft, deciding_sqft = whole * factor, inner * factor
        edge_ft = edge * factor ** 0.5
        source = "impervious raster"
    elif impervious is not None:
        measured_sqft = _polygon_cover(site_union, impervious, site.crs) * factor
        deciding_sqft = measured_sqft
        source = "impervious polygons"
    measured = None
    if measured_sqft is not None:
        measured_sqft = round(measured_sqft, 2)
        deciding_sqft = round(deciding_sqft, 2)
        measured = "redevelopment" if deciding_sqft > 0 else "new"
    reasons = []
    if measured is not None and measured_sqft > 0 and deciding_sqft <= 0:
        reasons.append(
            f"{fmt.sqft(measured_sqft, 1)} of existing impervious cover is measured inside the "
            f"limit of disturbance (from the {source}), all of it within half a raster cell "
            f"({edge_ft:.1f} ft) of the site's boundary, in cells the boundary cuts: at the "
            "raster's resolution it cannot be placed inside the site (typically the pavement of "
            "the street in front), so the project is new development.")
    elif measured is not None:
        reasons.append(_measured_reason(measured_sqft, source))
    if override is not None:
        value, method = override, f"override: stated as {_label(override)}"
        reasons.append(_statement_reason(override, measured, cite))
    elif measured is not None:
        value, method = measured, f"measured: {source}"
    else:
        value, method = "new", "assumed: no impervious layer"
        reasons.append("No existing-impervious layer is configured, so the cover could not be "
                       "measured; the project is treated as new development, whose standards "
                       "are the stricter ones. Configure an existing impervious layer for the "
                       "town, or state the development type if the project is redevelopment.")
    return {
        "value": value,
        "existing_impervious_sqft": measured_sqft,
        "deciding_impervious_sqft": deciding_sqft,
        "edge_tolerance_ft": None if edge_ft is None else round(edge_ft, 2),
        "method": method,
        "measured_value": measured,
        "stated_value": override,
        "conflict": bool(override is not None and measured is not None and measured != override),
        "reasons": reasons,
        "section": cite.definitions,
    }


def _raster_cover(site_union: shapely.Geometry, raster: Raster, crs: Any
                  ) -> tuple[float, float, float]:
    """Impervious area (CRS units squared) inside the site, by exact fractional cell coverage.

    Returns (area inside the site, area farther than half a cell inside it, half a cell). The
    second decides new vs redevelopment: a raster places an impervious edge only to within a
    cell, so cover in the half-cell band along the boundary may be the neighbour's.
    """
    from exactextract import exact_extract
    from exactextract.raster import NumPyRasterSource

    if raster.crs is not None and crs is not None and not raster.crs.equals(crs):
        raise CrsError("The impervious raster and the site are in different CRSs; read the "
                       "raster into the site's working CRS first.")
    t = raster.transform
    if t.b != 0 or t.d != 0:
        raise CrsError("The impervious raster is rotated; warp it to a north-up grid first.")
    is_imp = (np.ma.filled(raster.array, 0) != 0).astype("float64")
    xmin, ymin, xmax, ymax = raster.bounds
    if t.e > 0:  # south-up grid: flip rows so row 0 is the northern edge
        is_imp = is_imp[::-1]
    src = NumPyRasterSource(is_imp, xmin, ymin, xmax, ymax)
    half_cell = max(abs(t.a), abs(t.e)) / 2
    # the inner part is a tolerance for the raster's resolution, not a rule distance
    inner = shapely.buffer(site_union, -half_cell, join_style="mitre")
    geoms = [site_union] if inner.is_empty else [site_union, inner]
    frame = gpd.GeoDataFrame(geometry=geoms, crs=crs)
    stats = exact_extract(src, frame, ["sum"], output="pandas")
    cell_area = abs(t.a * t.e)
    sums = [float(v) * cell_area for v in stats["sum"]]
    # a site narrower than a cell has no inside band: all of its cover decides
    return sums[0], sums[-1], half_cell


def _polygon_cover(site_union: shapely.Geometry, polygons: gpd.GeoDataFrame, crs: Any) -> float:
    """Impervious area (CRS units squared) inside the site: the union of the polygons, clipped."""
    if polygons.empty:
        return 0.0
    if polygons.crs is None or (crs is not None and not polygons.crs.equals(crs)):
        polygons = polygons.set_crs(crs) if polygons.crs is None else polygons.to_crs(crs)
    geoms = polygons.geometry.values
    geoms = geoms[shapely.get_dimensions(geoms) == 2]
    if len(geoms) == 0:
        return 0.0
    tree = shapely.STRtree(geoms)
    near = geoms[tree.query(site_union, predicate="intersects")]
    if len(near) == 0:
        return 0.0
    cover = shapely.union_all(near)
    return float(shapely.intersection(cover, site_union).area)


def _measured_reason(sqft: float, source: str) -> str:
    if sqft > 0:
        return (f"{fmt.sqft(sqft, 1)} of existing impervious cover lies inside the limit of "
                f"disturbance (from the {source}), so it is measured as redevelopment: new "
                "development is disturbance \"on an area that has not previously been developed "
                "to include impervious cover\". Where that cover is a small share of the "
                "disturbance the text is silent, and the Commission decides.")
    return (f"No existing impervious cover lies inside the limit of disturbance (from the "
            f"{source}); the project is new development.")


def _statement_reason(stated: str, measured: str | None, cite: RuleCitations) -> str:
    """What the applicant's statement is beside the measurement: a statement never decides."""
    if measured is None:
        return (f"The applicant states the project is {_label(stated)}; the existing cover was "
                "not measured by this tool (no existing-impervious layer).")
    if measured != stated:
        return (f"The applicant states the project is {_label(stated)}, but the measured cover "
                f"makes it {_label(measured)}: the statement and the measurement disagree, so "
                f"the Commission decides ({cite.definitions_words}); the standards of both "
                "are given.")
    return f"The applicant states the project is {_label(stated)}, as measured."


def _label(value: str) -> str:
    return "new development" if value == "new" else "redevelopment"


__all__ = ["development_type"]

"""Every square foot once: a constraint split at the limit of disturbance and the site's lot.

Chapter 320 defines Site as "any lot or parcel of land ... where land-disturbing activities
are ... performed", and where the limit of disturbance runs off its parcel(s) a figure "on the
site" and a figure "in the disturbance" are different areas. Each constraint (the SFHA, the
0.2%-annual-chance zone, existing impervious cover, NHESP habitats) is split into three parts
that never overlap:

* ``inside_sqft``: on the site's parcel(s) inside the limit of disturbance;
* ``outside_sqft``: on the site's parcel(s) outside it;
* ``off_parcel_sqft``: inside the limit of disturbance, off the site's parcel(s) (land of
  others, a street or way, water).

``parcel_sqft`` is the constraint's area on the parcel(s); ``inside_sqft`` never exceeds it
and ``inside_sqft + outside_sqft == parcel_sqft`` (to the 0.1 sq ft the figures are rounded
to). Polygons are measured by exact intersection (shapely 2); a raster by exactextract's exact
fraction of each cell, on geometries snapped to a 1 mm grid first (exactextract can crash on
the slivers a difference leaves along a shared boundary).

Examples
--------
>>> from shapely.geometry import box
>>> regions = site_regions(box(50, 0, 150, 100), box(0, 0, 100, 100))
>>> split_polygons(box(0, 0, 200, 10), regions, factor=1.0)
{'parcel_sqft': 1000.0, 'inside_sqft': 500.0, 'outside_sqft': 500.0, 'off_parcel_sqft': 500.0}
"""

from __future__ import annotations

from dataclasses import dataclass

import geopandas as gpd
import numpy as np
import shapely

from swm_gis.raster import Raster

__all__ = ["SPLIT_KEYS", "SiteRegions", "polygonal", "raster_cover", "site_regions",
           "split_cover", "split_polygons"]

#: The keys of one split, in the order a report shows them.
SPLIT_KEYS = ("parcel_sqft", "inside_sqft", "outside_sqft", "off_parcel_sqft")
#: The grid (CRS units: 1 mm in a metre CRS) region geometries are snapped to for exactextract.
GRID = 1e-3


@dataclass(frozen=True)
class SiteRegions:
    """The three disjoint parts of the site and the limit of disturbance (CRS geometries)."""

    parcels: shapely.Geometry   # the site's lot or parcel(s), whole
    inside: shapely.Geometry    # parcels ∩ limit of disturbance
    outside: shapely.Geometry   # parcels − limit of disturbance
    off: shapely.Geometry       # limit of disturbance − parcels


def polygonal(geom: shapely.Geometry | None) -> shapely.Geometry:
    """The polygons of a geometry (an overlay may leave lines and points where two shapes
    touch; they have no area, and GEOS refuses some overlays of such mixed collections).

    >>> from shapely.geometry import GeometryCollection, LineString, box
    >>> polygonal(GeometryCollection([box(0, 0, 1, 1), LineString([(1, 0), (2, 0)])])).area
    1.0
    """
    if geom is None or shapely.is_empty(geom):
        return shapely.Polygon()
    parts = shapely.get_parts(geom)
    parts = parts[shapely.get_dimensions(parts) == 2]
    return shapely.union_all(parts) if len(parts) else shapely.Polygon()


def site_regions(lod: shapely.Geometry, parcels: shapely.Geometry | None) -> SiteRegions:
    """The parts of the site: on the parcel(s) inside and outside the limit of disturbance,
    and the limit's part off them (all of it when no parcel is known)."""
    parcels = polygonal(parcels)
    return SiteRegions(parcels=parcels, inside=polygonal(shapely.intersection(parcels, lod)),
                       outside=polygonal(shapely.difference(parcels, lod)),
                       off=polygonal(shapely.difference(lod, parcels)))


def _split(parcel: float, inside: float, off: float) -> dict[str, float]:
    """The split rounded to 0.1 sq ft so that inside <= parcel and inside + outside = parcel."""
    parcel_r = round(max(parcel, 0.0), 1)
    inside_r = min(round(max(inside, 0.0), 1), parcel_r)
    return {"parcel_sqft": parcel_r, "inside_sqft": inside_r,
            "outside_sqft": round(parcel_r - inside_r, 1),
            "off_parcel_sqft": round(max(off, 0.0), 1)}


def split_polygons(constraint: shapely.Geometry | gpd.GeoDataFrame | gpd.GeoSeries,
                   regions: SiteRegions, *, factor: float) -> dict[str, float]:
    """A polygon constraint's area (sq ft) on the parcel(s) inside / outside the limit of
    disturbance and off the parcel(s); ``factor`` is sq ft per square CRS unit. Overlapping
    polygons count once (their union)."""
    if isinstance(constraint, gpd.GeoDataFrame | gpd.GeoSeries):
        geoms = np.asarray(constraint.geometry.values if isinstance(constraint, gpd.GeoDataFrame)
                           else constraint.values)
        geoms = geoms[shapely.get_dimensions(geoms) == 2] if len(geoms) else geoms
        constraint = shapely.union_all(geoms) if len(geoms) else shapely.Polygon()
    constraint = polygonal(constraint)
    if shapely.is_empty(constraint):
        return _split(0.0, 0.0, 0.0)
    areas = [float(shapely.intersection(constraint, g).area) * factor
             for g in (regions.parcels, regions.inside, regions.off)]
    return _split(*areas)


def split_cover(impervious: Raster | gpd.GeoDataFrame, regions: SiteRegions, *,
                factor: float) -> dict[str, float]:
    """Existing impervious cover (sq ft) split as :func:`split_polygons`: a raster (non-zero
    cells impervious, each counted by the exact fraction inside each part) or polygons."""
    if not isinstance(impervious, Raster):
        return split_polygons(impervious, regions, factor=factor)
    parts = [regions.parcels, regions.inside, regions.off]
    return _split(*(a * factor for a in raster_cover(impervious, parts)))


def raster_cover(raster: Raster, geoms: list[shapely.Geometry]) -> list[float]:
    """Impervious area (square CRS units) of a class raster inside each geometry."""
    from exactextract import exact_extract
    from exactextract.raster import NumPyRasterSource

    t = raster.transform
    is_imp = (np.ma.filled(raster.array, 0) != 0).astype("float64")
    if t.e > 0:  # south-up grid: flip rows so row 0 is the northern edge
        is_imp = is_imp[::-1]
    xmin, ymin, xmax, ymax = raster.bounds
    snapped = [shapely.set_precision(g, GRID) for g in geoms]  # valid output
    keep = [i for i, g in enumerate(snapped)
            if not shapely.is_empty(g) and shapely.area(g) > 0]
    out = [0.0] * len(geoms)
    if not keep:
        return out
    frame = gpd.GeoDataFrame(geometry=[snapped[i] for i in keep], crs=raster.crs)
    src = NumPyRasterSource(is_imp, xmin, ymin, xmax, ymax)
    stats = exact_extract(src, frame, ["sum"], output="pandas")
    cell_area = abs(t.a * t.e)
    for i, value in zip(keep, stats["sum"], strict=True):
        out[i] = float(value) * cell_area
    return out


"""What area each reference layer covers, and whether it covers the area a check searched.

A finding may say "no" only when every layer that could have made it "yes" covers the whole area
searched (SPEC section 5). A layer's coverage is, by ``[layers.KEY] coverage``:

* ``"town"`` (the default): the ``[layers.town_boundary]`` polygon(s) together with the layer's
  own extent. A town's config is taken to describe the town: a habitat layer with no polygon in
  the town's east half still covers it (the absence of a feature is the finding). A search that
  reaches past the town line, and past the layer's own extent, is not covered. Without a town
  boundary, the layer's own extent alone.
* ``"extent"``: the layer's own extent only (the bounding box of its data, from the source's
  metadata or its grid, in the working CRS): for a layer known to be mapped over part of the
  town only.
* ``"statewide"``: a statewide download (MassGIS NHESP, USGS WBD, the MassDEP Integrated List)
  that covers any search area in the Commonwealth.

The coverage record of a (finding, layer) pair says ``configured``, ``covers`` (True, False, or
None when the coverage could not be known) and ``basis`` (what the coverage was taken to be).
:mod:`swm_gis.screening.findings` turns these records into statuses; this module only measures.

This is the one coverage rule of both jobs: the screening asks :func:`coverage_record` for its
site, the applicability map asks :func:`covers` for every parcel at once (vectorised), with the
same areas (:func:`layer_coverage`, :func:`town_area`), the same slack (:data:`_SLACK`) and the
same test of a search grown by a distance (:func:`covers`). Where the coverage cannot be known
(no extent recorded and no town boundary, an unreadable source) nothing is covered: the
screening says "unknown" (``covers`` None, a conditional finding) and the map leaves the flag
null, never "no".
"""

from __future__ import annotations

from typing import Any

import numpy as np
import rasterio
import shapely
from pyproj import CRS, Transformer
from pyproj.exceptions import ProjError

from swm_gis.config.town import TownConfig
from swm_gis.errors import SwmGisError
from swm_gis.io import layers as io
from swm_gis.io.sources import gdal_source

__all__ = ["UNKNOWN", "Areas", "covered_by_all", "covers", "coverage_areas", "coverage_record",
           "grown_area", "layer_coverage", "town_area"]

#: Search areas may exceed a coverage by this much (CRS units) and still count as covered:
#: rounding of a bounding box written to metadata.
_SLACK = 0.01
#: The area of a layer whose coverage cannot be known: it covers nothing.
UNKNOWN = shapely.Polygon()


def town_area(config: TownConfig) -> shapely.Geometry | None:
    """The town: the union of the polygons of ``[layers.town_boundary]`` (None without one).

    Both jobs take the town from here: the screening (coverage, and where a trace stops) and
    the applicability map, so a site and the parcel it is on are judged against one town.
    """
    if not config.has("town_boundary"):
        return None
    frame = io.read_layer(config, "town_boundary")
    geoms = frame.geometry.values.to_numpy() if len(frame) else np.array([], dtype=object)
    geoms = geoms[shapely.get_dimensions(geoms) == 2] if len(geoms) else geoms
    return shapely.union_all(geoms) if len(geoms) else None


def grown_area(area: shapely.Geometry | None) -> shapely.Geometry | None:
    """A coverage area grown by the slack, ready for :func:`covers` (None: everywhere)."""
    if area is None or area.is_empty:
        return area
    return shapely.buffer(area, _SLACK)


class Areas(list):
    """The coverage areas of several layers (a list), with their intersection computed once:
    what covers the intersection is covered by every area, so :func:`covered_by_all` asks each
    area only about the few geometries the intersection leaves."""

    @property
    def common(self) -> shapely.Geometry | None:
        if "_common" not in self.__dict__:
            self.__dict__["_common"] = (shapely.intersection_all(list(self)) if len(self) > 1
                                        else None)
        return self.__dict__["_common"]


def coverage_areas(config: TownConfig, keys: list[str], *, town: shapely.Geometry | None
                   ) -> tuple[Areas, str]:
    """The grown coverage area (:func:`grown_area`) of each configured layer of ``keys``, and a
    text saying what each was taken to be.

    A statewide layer covers everything and adds no area; one whose coverage cannot be known
    adds :data:`UNKNOWN` (it covers nothing). A search is covered when every area covers it.
    """
    areas, bases = Areas(), []
    for key in keys:
        if not config.has(key):
            continue
        area, basis = layer_coverage(config, key, town=town)
        bases.append(f"{key}: {basis}")
        if area is None and basis == "statewide":
            continue
        areas.append(UNKNOWN if area is None else grown_area(area))
    return areas, "; ".join(bases)


def layer_coverage(config: TownConfig, key: str, *, town: shapely.Geometry | None
                   ) -> tuple[shapely.Geometry | None, str]:
    """The area ``key``'s data covers (working CRS) and what it was taken from.

    Returns ``(None, "statewide")`` for a statewide layer (it covers every search) and
    ``(None, why)`` when the coverage cannot be known (e.g. a source that records no extent).
    """
    spec = config.layer(key)
    if spec.coverage == "statewide":
        return None, "statewide"
    extent, basis = _extent_box(config, spec)
    if spec.coverage == "town" and town is not None and not town.is_empty:
        if extent is None:
            return town, "the town boundary ([layers.town_boundary])"
        return (shapely.union(town, extent),
                "the town boundary ([layers.town_boundary]) and the layer's own extent")
    return extent, basis


def _extent_box(config: TownConfig, spec: Any) -> tuple[shapely.Geometry | None, str]:
    try:
        bounds, crs = _extent(spec)
    except (SwmGisError, OSError, rasterio.errors.RasterioError, ValueError) as exc:
        return None, f"its extent could not be read ({exc})"
    if bounds is None or crs is None:
        return None, "the source records no extent"
    try:
        work = config.crs_obj
        x0, y0, x1, y1 = bounds
        if not crs.equals(work):
            x0, y0, x1, y1 = Transformer.from_crs(crs, work, always_xy=True).transform_bounds(
                x0, y0, x1, y1, densify_pts=21)
    except ProjError as exc:
        return None, f"its extent could not be reprojected ({exc})"
    return shapely.box(x0, y0, x1, y1), "the layer's own extent (bounding box of its data)"


def coverage_record(config: TownConfig, key: str, search: shapely.Geometry | None, *,
                    town: shapely.Geometry | None, radius: float = 0.0) -> dict[str, Any]:
    """``{configured, covers, basis}`` of layer ``key`` for one search area: ``search`` and
    everything within ``radius`` (CRS units) of it, by the rule of :func:`covers`.

    ``covers`` is None when the layer is not configured, the search area is unknown or the
    coverage cannot be known.
    """
    if not config.has(key):
        return {"configured": False, "covers": None, "basis": f"no [layers.{key}] configured"}
    if search is None or search.is_empty:
        return {"configured": True, "covers": None, "basis": "no search area recorded"}
    area, basis = layer_coverage(config, key, town=town)
    if area is None and basis == "statewide":
        return {"configured": True, "covers": True,
                "basis": "statewide (coverage = \"statewide\" in the config)"}
    if area is None:
        return {"configured": True, "covers": None, "basis": basis}
    inside = bool(covers(np.array([search], dtype=object), grown_area(area), radius=radius)[0])
    return {"configured": True, "covers": inside, "basis": basis}


# --------------------------------------------------------------------------- the rule
def covered_by_all(geoms: np.ndarray, areas: Any, *, radius: float = 0.0) -> np.ndarray:
    """:func:`covers` for each layer's area (a list, as :func:`coverage_areas` gives; one area;
    or None: everywhere): a geometry is covered when every layer covers it, as a screening
    finding needs every layer that could make it "yes" to cover its search."""
    geoms = np.asarray(geoms, dtype=object)
    common = getattr(areas, "common", None)
    areas = [] if areas is None else areas if isinstance(areas, list) else [areas]
    # covered by the intersection (computed once): by every area, since the rule's envelope or
    # buffer then lies in each; only the rest is asked of each area in turn
    done = (covers(geoms, common, radius=radius)
            if common is not None and not common.is_empty and len(geoms)
            else np.zeros(len(geoms), dtype=bool))
    ok = np.ones(len(geoms), dtype=bool)
    for area in areas:
        rest = np.flatnonzero(ok & ~done)
        if not len(rest):
            break
        ok[rest] = covers(geoms[rest], area, radius=radius)
    return ok


def covers(geoms: np.ndarray, area: Any, *, radius: float = 0.0) -> np.ndarray:
    """Whether ``area`` (grown by the slack: :func:`grown_area`) covers each geometry and
    everything within ``radius`` of it (None covers everything; an empty area nothing).

    The rule: a geometry is covered when its envelope grown by ``radius`` is, or else when its
    buffer (16 segments a quarter, grown by the chord gap so that it holds the true buffer) is.
    Vectorised, and decided exactly by that rule: the distance from each geometry to the part of
    its neighbourhood the area leaves out settles all but a band as wide as the chord gap either
    side of ``radius`` (:func:`_uncovered_band`); only that band is buffered.
    """
    geoms = np.asarray(geoms, dtype=object)
    n = len(geoms)
    if area is None or n == 0:
        return np.ones(n, dtype=bool)
    if area.is_empty:
        return np.zeros(n, dtype=bool)
    shapely.prepare(area)
    x0, y0, x1, y1 = shapely.total_bounds(geoms)
    if shapely.covers(area, shapely.box(x0 - radius, y0 - radius, x1 + radius, y1 + radius)):
        return np.ones(n, dtype=bool)  # the envelope of them all, grown, is covered (most tiles)
    slack = radius * (1 - np.cos(np.pi / 64)) if radius > 0 else 0.0
    ok, band = _uncovered_band(geoms, area, (x0, y0, x1, y1), radius=radius, slack=slack)
    if len(band):
        ok[band] = _covered_by_rule(geoms[band], area, radius=radius, slack=slack)
    return ok


#: How far (in CRS units) a distance must clear a threshold to decide without buffering:
#: far above the rounding of coordinates (about 1e-10 of a Massachusetts coordinate).
_DECIDE_MARGIN = 1e-3


def _uncovered_band(geoms: np.ndarray, area: Any, bounds: tuple[float, float, float, float], *,
                    radius: float, slack: float) -> tuple[np.ndarray, np.ndarray]:
    """What the distance to the uncovered neighbourhood decides, and which rows it leaves.

    ``outside`` is the part of the geometries' envelope, grown past every buffer, that ``area``
    does not cover. A geometry farther than ``radius + slack`` from it has its grown buffer
    (which lies within ``radius + slack`` of it) inside the area: covered. One nearer than
    ``radius - slack`` has a point of ``outside`` inside its 16-segment buffer (which holds
    every point within ``radius - slack``), and so inside its grown envelope too: not covered.
    Returns the decided flags and the indices of the band between, to be decided by the rule.
    """
    x0, y0, x1, y1 = bounds
    grow = radius + slack + 1.0
    if not shapely.is_valid(area):  # no overlay on an invalid area: the rule decides them all
        return np.zeros(len(geoms), dtype=bool), np.arange(len(geoms))
    outside = shapely.difference(shapely.box(x0 - grow, y0 - grow, x1 + grow, y1 + grow), area)
    shapely.prepare(outside)
    ok = ~shapely.dwithin(outside, geoms, radius + slack + _DECIDE_MARGIN)
    ok &= ~(shapely.is_missing(geoms) | shapely.is_empty(geoms))  # no distance: by the rule
    band = np.flatnonzero(~ok)
    inner = radius - slack - _DECIDE_MARGIN
    if inner > 0 and len(band):
        band = band[~shapely.dwithin(outside, geoms[band], inner)]
    return ok, band


def _covered_by_rule(geoms: np.ndarray, area: Any, *, radius: float, slack: float
                     ) -> np.ndarray:
    """:func:`covers`'s rule itself: the grown envelope, else the grown 16-segment buffer."""
    b = shapely.bounds(geoms)
    envelopes = shapely.box(b[:, 0] - radius, b[:, 1] - radius, b[:, 2] + radius,
                            b[:, 3] + radius)
    ok = shapely.covers(area, envelopes)
    rest = np.flatnonzero(~ok)
    if len(rest):
        grown = shapely.buffer(geoms[rest], radius, quad_segs=16) if radius > 0 else geoms[rest]
        # a polygon buffered with chords lies inside the true buffer: grow it by the chord gap
        ok[rest] = shapely.covers(area, shapely.buffer(grown, slack) if slack else grown)
    return ok


def _extent(spec: Any) -> tuple[tuple[float, float, float, float] | None, CRS | None]:
    if io.is_raster(spec):
        with rasterio.open(gdal_source(spec)[0]) as src:  # a zip as published, in place
            crs = CRS.from_user_input(src.crs.to_wkt()) if src.crs else (
                CRS.from_user_input(spec.crs) if spec.crs else None)
            return tuple(src.bounds), crs
    info = io.layer_info(spec)
    bounds = info.get("total_bounds")
    if bounds is None:
        return None, None
    return tuple(float(b) for b in bounds), io.layer_crs(spec, info)

"""What area each reference layer covers, and whether it covers the area a check searched.

A finding may say "no" only when every layer that could have made it "yes" covers the whole area
searched (``docs/findings.md``, "Coverage"). A layer's coverage is, by ``[layers.KEY] coverage``:

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

from collections.abc import Callable
from typing import Any

import numpy as np
import rasterio
import shapely
from pyproj import CRS, Transformer
from pyproj.exceptions import ProjError

from swm_gis.config.town import TownConfig
from swm_gis.coverage_rule import UNKNOWN, Areas, covers, grown_area
from swm_gis.errors import SwmGisError
from swm_gis.io import layers as io
from swm_gis.io.sources import gdal_source

__all__ = ["coverage_areas", "coverage_record", "layer_coverage", "town_area"]

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


def coverage_areas(config: TownConfig, keys: list[str], *, town: shapely.Geometry | None,
                   name: Callable[[str], str] = str) -> tuple[Areas, str]:
    """The grown coverage area (:func:`grown_area`) of each configured layer of ``keys``, and a
    text saying what each was taken to be, each layer called ``name(key)`` (a document's words
    for it: a document never names a config key).

    A statewide layer covers everything and adds no area; one whose coverage cannot be known
    adds :data:`UNKNOWN` (it covers nothing). A search is covered when every area covers it.
    """
    areas, bases = Areas(), []
    for key in keys:
        if not config.has(key):
            continue
        area, basis = layer_coverage(config, key, town=town)
        bases.append(f"{name(key)}: {basis}")
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
            return town, "the town boundary layer"
        return (shapely.union(town, extent),
                "the town boundary layer and the layer's own extent")
    return extent, basis


def _extent_box(config: TownConfig, spec: Any) -> tuple[shapely.Geometry | None, str]:
    try:
        bounds, crs = _extent(spec)
    except (SwmGisError, OSError, rasterio.errors.RasterioError, ValueError) as exc:
        return None, f"its extent could not be read ({exc!s})"  # a document: no references
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
        return {"configured": False, "covers": None, "basis": f"no {key} layer configured"}
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

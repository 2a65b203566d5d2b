"""Reading the town for the applicability map: spatial tiles, reference layers and catchments.

Each parcel belongs to exactly one :class:`Tile` (by its representative point); parcel ids on
several polygons are classified together in a last tile. :func:`load_overlays` reads every
configured reference layer once around the parcels and :func:`drainage_grid` builds the
catchment flags once per town. This is where the applicability job reads files.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import geopandas as gpd
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import shapely
from pyproj import Transformer

from swm_gis import terrain as hydrology
from swm_gis.applicability.classify import classify_parcels
from swm_gis.applicability.overlays import (
    DEFAULT_CHUNK_SIZE,
    NHESP_SEARCH_FT,
    SECTIONS,
    BBox,
    Overlays,
)
from swm_gis.config.town import FT_PER_M, TownConfig
from swm_gis.io import layers as io
from swm_gis.io import sanity
from swm_gis.progress import Progress
from swm_gis.terrain import cache as flowgrid_cache
from swm_gis.terrain import catchments
from swm_gis.terrain.catchments import DrainageGrid


# =========================================================================== tiles
@dataclass(frozen=True)
class Tile:
    """One chunk of the job: parcels whose representative point falls in [x0, x1) x [y0, y1).

    Parcel ids on more than one polygon (``skip_ids``) are left out of the spatial tiles and
    classified together in a last tile (``ids``) as one parcel each (the union of its polygons),
    since their polygons may lie in different tiles.
    """

    index: int
    bounds: BBox
    skip_ids: frozenset[str] = frozenset()
    ids: tuple[str, ...] | None = None


def parcel_extent(config: TownConfig) -> tuple[BBox | None, int]:
    """Extent of the parcels layer in the working CRS and its feature count (-1 if unknown).

    The parcels are checked first (geometry type, coordinates against their CRS), as every read
    checks a layer: every other layer is placed against them, so a wrong parcels CRS must be
    named as the parcels', not as the first other layer's distance from them.
    """
    spec = config.layer("parcels")
    for part in spec.sources:
        part_info = io.layer_info(part)
        sanity.check_layer(part, part_info, io.layer_crs(part, part_info))
    info = io.layer_info(spec)
    bounds = info.get("total_bounds")
    count = int(info.get("features") if info.get("features") is not None else -1)
    if bounds is None or any(b is None or not math.isfinite(b) for b in bounds):
        return None, count
    src = io.layer_crs(spec, info)
    working = config.crs_obj
    if not src.equals(working):
        t = Transformer.from_crs(src, working, always_xy=True)
        bounds = t.transform_bounds(*bounds, densify_pts=21)
    return tuple(float(b) for b in bounds), count  # type: ignore[return-value]


def make_tiles(extent: BBox | None, count: int, *, chunk_size: int = DEFAULT_CHUNK_SIZE
               ) -> list[Tile]:
    """A grid of tiles over the parcel extent with about ``chunk_size`` parcels each.

    Without an extent (a source that cannot tell it cheaply) the whole town is one tile.
    """
    if extent is None or count < 0 or count <= chunk_size:
        return [Tile(0, _grow(extent) if extent else (-math.inf, -math.inf, math.inf, math.inf))]
    x0, y0, x1, y1 = _grow(extent)
    n = math.ceil(count / chunk_size)
    w, h = x1 - x0, y1 - y0
    nx = max(1, round(math.sqrt(n * w / h))) if h > 0 else n
    ny = max(1, math.ceil(n / nx))
    xs = np.linspace(x0, x1, nx + 1)
    ys = np.linspace(y0, y1, ny + 1)
    tiles = []
    for j in range(ny):  # rows, then columns: neighbouring tiles are written together
        for i in range(nx):
            tiles.append(Tile(len(tiles), (float(xs[i]), float(ys[j]), float(xs[i + 1]),
                                           float(ys[j + 1]))))
    return tiles


def _grow(extent: BBox, margin: float = 1.0) -> BBox:
    x0, y0, x1, y1 = extent
    return (x0 - margin, y0 - margin, x1 + margin, y1 + margin)


def read_tile_parcels(config: TownConfig, tile: Tile) -> gpd.GeoDataFrame:
    """Parcels of one tile: read with a bbox, kept where the representative point is in the tile.

    The tile of duplicate ids reads those ids by attribute and merges each into one parcel.
    """
    return _read_tile(config, tile)[0]


def _read_tile(config: TownConfig, tile: Tile) -> tuple[gpd.GeoDataFrame, np.ndarray | None]:
    """:func:`read_tile_parcels` and the representative points it computed (or None)."""
    if tile.ids is not None:
        return _read_ids(config, tile.ids), None
    finite = all(math.isfinite(b) for b in tile.bounds)
    parcels = io.read_layer(config, "parcels", bbox=tile.bounds if finite else None,
                            use_arrow=True)
    if tile.skip_ids and len(parcels):
        parcels = parcels.loc[~parcels["id"].astype(str).isin(tile.skip_ids).to_numpy()]
    if parcels.empty or not finite:
        return parcels, None
    rp = shapely.point_on_surface(parcels.geometry.values.to_numpy())
    x, y = shapely.get_x(rp), shapely.get_y(rp)
    x0, y0, x1, y1 = tile.bounds
    mine = (x >= x0) & (x < x1) & (y >= y0) & (y < y1)
    return parcels.loc[mine], rp[mine]


def duplicate_ids(config: TownConfig) -> list[str]:
    """Parcel ids that label more than one polygon (the id column alone, without geometry)."""
    ids = io.read_column(config, "parcels", "id")
    ids = ids[ids.notna()].astype(str)
    # Arrow's hash count: a third of the time of pandas' duplicated() on a statewide column
    counts = pc.value_counts(pa.array(ids, type=pa.string()))
    repeated = sorted(counts.field("values").filter(pc.greater(counts.field("counts"), 1))
                      .to_pylist())
    del ids, counts
    # Arrow's allocator keeps what the scan freed (340 MB for 2.4 million ids) unless asked to
    # give it back; the overlays, built next by GEOS through malloc, could not reuse it
    pa.default_memory_pool().release_unused()
    return repeated


def _read_ids(config: TownConfig, ids: tuple[str, ...]) -> gpd.GeoDataFrame:
    return io.merge_duplicate_ids(io.read_by_ids(config, "parcels", "id", list(ids),
                                                     as_text=False))


def classify_tile(config: TownConfig, tile: Tile, overlays: Overlays) -> gpd.GeoDataFrame:
    """Read and classify one tile (what the local loop and each Dask task run)."""
    parcels, rep_points = _read_tile(config, tile)
    result = classify_parcels(parcels, overlays, rep_points=rep_points)
    return result.reset_index(drop=True)


# =========================================================================== reading overlays
def load_overlays(config: TownConfig, extent: BBox | None, *,
                  progress: Progress | None = None) -> Overlays:
    """Read every configured reference layer once (around the parcels) and prepare it.

    Reference layers are read with the parcel extent as a spatial filter (grown by the NHESP
    search radius for habitat layers), so a statewide layer costs only the town's neighbourhood.
    """
    def bbox(margin_m: float = 0.0) -> BBox | None:
        return _grow(extent, margin_m) if extent else None

    def read(key: str, margin_m: float = 0.0) -> gpd.GeoDataFrame | None:
        if not config.has(key):
            return None
        return io.read_layer(config, key, bbox=bbox(margin_m))

    search_m = NHESP_SEARCH_FT / FT_PER_M + 1.0
    frames: dict[str, gpd.GeoDataFrame | None] = {}
    keys = [("nhesp_priority", search_m), ("nhesp_estimated", search_m),
            ("vernal_pools", search_m), ("flood_zones", 0.0), ("huc12", 0.0), ("huc10", 0.0)]
    for i, (key, margin) in enumerate(keys):
        if progress:
            progress(0.02 + 0.06 * i / len(keys), f"reading {key}")
        frames[key] = read(key, margin)
    drainage, drainage_checks = drainage_grid(config, extent, progress=progress)
    town = _town_area(config, bbox())
    coverage, bases = {}, {}
    for name, keys in (("nhesp", _NHESP), ("sfha", ("flood_zones",))):
        coverage[name], bases[name] = checks_coverage(config, [k for k in keys if config.has(k)],
                                                      town=town)
    overlays = Overlays.build(rules=config.rules, drainage=drainage, coverage=coverage, **frames)
    overlays.checks = _checks(config, frames, drainage_checks, bases)
    return overlays


_NHESP = ("nhesp_priority", "nhesp_estimated", "vernal_pools")


def checks_coverage(config: TownConfig, keys: list[str], *, town: Any
                    ) -> tuple[Any, str]:
    """The area every layer of ``keys`` covers (their intersection; None = everywhere) and how.

    A layer covers, by ``[layers.KEY] coverage`` (the rule of :mod:`swm_gis.io.coverage`):
    ``"town"`` (the default) the town boundary together with its own extent, ``"extent"`` its
    own extent (the bounding box of its data), ``"statewide"`` everywhere. Without a town
    boundary, a layer covers its own extent; a source that records no extent, everywhere.
    """
    area, bases = None, []
    for key in keys:
        spec = config.layer(key)
        kind = getattr(spec, "coverage", None) or "town"
        if kind == "statewide":
            bases.append(f"{key}: statewide")
            continue
        box = _extent_box(config, key)
        if kind == "town" and town is not None:
            mine = town if box is None else shapely.union(town, box)
            bases.append(f"{key}: the town boundary and the layer's own extent")
        elif box is not None:
            mine = box
            bases.append(f"{key}: the layer's own extent")
        else:
            bases.append(f"{key}: everywhere (the source records no extent)")
            continue
        area = mine if area is None else shapely.intersection(area, mine)
    return area, "; ".join(bases)


def _extent_box(config: TownConfig, key: str) -> Any:
    spec = config.layer(key)
    info = io.layer_info(spec)
    bounds = info.get("total_bounds")
    if bounds is None or any(b is None or not math.isfinite(b) for b in bounds):
        return None
    src = io.layer_crs(spec, info)
    if not src.equals(config.crs_obj):
        bounds = Transformer.from_crs(src, config.crs_obj, always_xy=True).transform_bounds(
            *bounds, densify_pts=21)
    return shapely.box(*bounds)


def _town_area(config: TownConfig, bbox: BBox | None) -> Any:
    if not config.has("town_boundary"):
        return None
    town = io.read_layer(config, "town_boundary")
    geoms = town.geometry.values.to_numpy()
    geoms = geoms[shapely.get_dimensions(geoms) == 2] if len(geoms) else geoms
    return shapely.union_all(geoms) if len(geoms) else None


def _checks(config: TownConfig, frames: dict[str, Any], drainage: dict[str, str | None],
            coverage: dict[str, str] | None = None) -> list[dict[str, Any]]:
    def src(keys: list[str]) -> list[dict[str, Any]]:
        return [io.source_info(config.layer(k)) for k in keys if config.has(k)]

    hab = [k for k in _NHESP if config.has(k)]
    missing_hab = [k for k in _NHESP if not config.has(k)]
    cov = coverage or {}
    has12, has10 = config.has("huc12"), config.has("huc10")
    if hab and missing_hab:
        hab_note = (f"no layers.{', layers.'.join(missing_hab)} in the town config: a feature "
                    "found within 500 ft is reported; 'none within 500 ft' cannot be said "
                    "(null). Coverage: " + cov.get("nhesp", ""))
    elif hab:
        hab_note = ("coverage: " + cov.get("nhesp", "") + "; null beyond it unless a feature "
                    "was found within 500 ft")
    else:
        hab_note = ("no NHESP layers (nhesp_priority, nhesp_estimated, vernal_pools) in the "
                    "town config")
    rows = [
        ("can_reach_trigger", True, src(["parcels"]), None),
        ("huc12", has12, src(["huc12"]), None if has12 else "no layers.huc12 in the town config"),
        ("huc10", has10 or has12, src(["huc10"] if has10 else ["huc12"]),
         None if has10 else ("first 10 digits of the HUC12 (WBD codes nest)" if has12 else
                             "no layers.huc10 or layers.huc12 in the town config")),
        ("nhesp_within_500ft", bool(hab), src(hab), hab_note),
        ("in_sfha", config.has("flood_zones"), src(["flood_zones"]),
         ("coverage: " + cov.get("sfha", "") + "; null beyond it unless SFHA land was found")
         if config.has("flood_zones") else "no layers.flood_zones in the town config"),
        ("drains_to_orw", drainage.get("orw") is None, src(["dem", "streams", "orw"]),
         drainage.get("orw") or _DRAIN_NOTE),
        ("drains_to_impaired", drainage.get("impaired") is None,
         src(["dem", "streams", "impaired_waters"]), drainage.get("impaired") or _DRAIN_NOTE),
    ]
    return [{"name": name, "ran": ran, "section": SECTIONS[name], "sources": sources,
             "note": note} for name, ran, sources, note in rows]


_DRAIN_NOTE = ("null for a parcel beyond the DEM, or with land whose runoff leaves the DEM "
               "before meeting the stream network, unless it already reaches one")


# =========================================================================== the job


def drainage_grid(config: TownConfig, extent: Any, *, progress: Any = None
                  ) -> tuple[DrainageGrid | None, dict[str, str | None]]:
    """Read the DEM, streams, water bodies, ORWs and impaired waters once and build the grid.

    Returns the grid (or None) and, for ``"orw"`` and ``"impaired"``, why that flag did not run
    (None when it ran).
    """
    reasons: dict[str, str | None] = {"orw": None, "impaired": None}
    missing_base = [k for k in ("dem",) if not config.has(k)]
    if not (config.has("streams") or config.has("waterbodies")):
        missing_base.append("streams or waterbodies")
    if missing_base:
        why = "no " + " and no ".join(f"layers.{k}" for k in missing_base) + \
            " in the town config (needed to trace drainage)"
        return None, {"orw": why, "impaired": why}
    if not config.has("orw"):
        reasons["orw"] = "no layers.orw in the town config"
    if not config.has("impaired_waters"):
        reasons["impaired"] = "no layers.impaired_waters in the town config"
    if reasons["orw"] and reasons["impaired"]:
        return None, reasons
    if progress:
        progress(0.09, "flow directions on the DEM")
    # the whole DEM, routed once and kept by flowgrid_cache (the parcels' extent if it is huge)
    flow = flowgrid_cache.town_flow(config, fallback_bounds=extent) or \
        hydrology.flow_directions(io.read_raster(config, "dem"))
    area = flow.bounds

    def read(key: str) -> gpd.GeoDataFrame | None:
        return io.read_layer(config, key, bbox=area) if config.has(key) else None

    if progress:
        progress(0.12, "catchments of the stream network")
    network = hydrology.stream_network(read("streams"), read("waterbodies"))
    grid = catchments.build_grid(flow, network, orw=read("orw") if not reasons["orw"] else None,
                      impaired=read("impaired_waters") if not reasons["impaired"] else None)
    return grid, reasons


__all__ = ["Tile", "checks_coverage", "classify_tile", "drainage_grid", "duplicate_ids",
           "load_overlays", "make_tiles", "parcel_extent", "read_tile_parcels"]

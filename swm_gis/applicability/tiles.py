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
from pyproj import Transformer

from swm_gis import terrain as hydrology
from swm_gis.applicability import id_scan_cache, overlay_cache
from swm_gis.applicability.classify import classify_parcels
from swm_gis.applicability.overlays import (
    DEFAULT_CHUNK_SIZE,
    NHESP_FLAG,
    BBox,
    Overlays,
    first_vertices,
    nhesp_search_ft,
    outside_class,
)
from swm_gis.applicability.pool_start import several_tiles
from swm_gis.applicability.sections import flag_sections
from swm_gis.config.town import TownConfig
from swm_gis.ids import id_array, id_series
from swm_gis.io import layers as io
from swm_gis.io import sanity
from swm_gis.io.coverage import coverage_areas, town_area
from swm_gis.progress import Progress
from swm_gis.screening.finding_parts import layer_names, layer_words
from swm_gis.terrain import cache as flowgrid_cache
from swm_gis.terrain import catchments
from swm_gis.terrain.catchments import DrainageGrid
from swm_gis.units import FT_PER_M, M_PER_FT, metres_per_unit


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
    #: The parcels' geometries were all found valid by an earlier complete run (the same
    #: bytes, CRS and GEOS: :func:`~swm_gis.applicability.id_scan_cache.known_valid`): the
    #: tile's read skips the validity test
    valid: bool = False


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
    if extent is None or not several_tiles(count, chunk_size):
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


#: How far beyond its tile (CRS units) a tile's read reaches (:func:`_read_tile`).
READ_SLACK = 0.01


def _grow(extent: BBox, margin: float = 1.0) -> BBox:
    x0, y0, x1, y1 = extent
    return (x0 - margin, y0 - margin, x1 + margin, y1 + margin)


def read_tile_parcels(config: TownConfig, tile: Tile) -> gpd.GeoDataFrame:
    """Parcels of one tile: read with a bbox, kept where their first vertex is in the tile (a
    point of the parcel, so the bbox read, which returns every parcel meeting the tile, has it).

    The tile of duplicate ids reads those ids by attribute and merges each into one parcel.
    """
    return _read_tile(config, tile).parcels


@dataclass
class TileRead:
    """A tile's parcels as read (:func:`read_tile_parcels`), with what the read knows of them."""

    parcels: gpd.GeoDataFrame
    #: the parcels' first vertices (rows of x, y), or None
    points: np.ndarray | None = None
    #: geometries the read repaired (every parcel read, the tile's or a neighbour's)
    repaired: int = 0
    #: the source's WKB of each parcel, in order, where every geometry is as read
    #: (:attr:`swm_gis.io.sources.Layer.wkb`); else None
    wkb: Any = None


def _read_tile(config: TownConfig, tile: Tile) -> TileRead:
    if tile.ids is not None:  # each is read by a spatial tile too
        return TileRead(_read_ids(config, tile.ids))
    finite = all(math.isfinite(b) for b in tile.bounds)
    # read a little beyond the tile: a parcel whose first vertex lies on the tile's edge and
    # which only touches the tile there is read even if the box, moved into the source's CRS,
    # rounds inward; the vertex test below still decides which tile keeps it
    layer = io.read_layer_with_source(config, "parcels",
                                      bbox=_grow(tile.bounds, READ_SLACK) if finite else None,
                                      use_arrow=True, known_valid=tile.valid, keep_wkb=True)
    parcels, repaired, wkb = layer.frame, layer.repaired, layer.wkb
    if tile.skip_ids and len(parcels):
        kept = np.flatnonzero(~id_series(parcels["id"]).isin(tile.skip_ids).to_numpy())
        parcels, wkb = parcels.iloc[kept], None if wkb is None else wkb.take(kept)
    if parcels.empty or not finite:
        return TileRead(parcels, None, repaired, wkb)
    xy = first_vertices(parcels.geometry.values.to_numpy())
    x, y = xy[:, 0], xy[:, 1]
    x0, y0, x1, y1 = tile.bounds
    mine = np.flatnonzero((x >= x0) & (x < x1) & (y >= y0) & (y < y1))
    return TileRead(parcels.iloc[mine], xy[mine], repaired,
                    None if wkb is None else wkb.take(mine))


def duplicate_ids(config: TownConfig) -> list[str]:
    """Parcel ids that label more than one polygon (the id column alone, without geometry),
    sorted; kept between runs with the same parcels (:mod:`~swm_gis.applicability.
    id_scan_cache`)."""
    return id_scan_cache.scanned(config, lambda: _scan_duplicate_ids(config))


def _scan_duplicate_ids(config: TownConfig) -> list[str]:
    ids = id_array(io.read_column(config, "parcels", "id"))
    # Arrow's hash count: a third of the time of pandas' duplicated() on a statewide column
    counts = pc.value_counts(ids.drop_null())
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
    return classify_tile_read(config, tile, overlays)[0]


def classify_tile_read(config: TownConfig, tile: Tile, overlays: Overlays
                       ) -> tuple[gpd.GeoDataFrame, TileRead]:
    """:func:`classify_tile` and what its read knew (:class:`TileRead`; its rows are the
    result's, in order)."""
    read = _read_tile(config, tile)
    result = classify_parcels(read.parcels, overlays, rep_points=read.points)
    return result.reset_index(drop=True), read


# =========================================================================== reading overlays
def load_overlays(config: TownConfig, extent: BBox | None, *,
                  progress: Progress | None = None) -> Overlays:
    """Read every configured reference layer once (around the parcels) and prepare it.

    Reference layers are read with the parcel extent as a spatial filter (grown by the NHESP
    search radius for habitat layers: the ``[rules] habitat_distance_ft``, at least 1,000 ft),
    so a statewide layer costs only the town's neighbourhood. The town and every layer's
    coverage come from :mod:`swm_gis.io.coverage`, the screening's own rule.
    """
    done = overlay_cache.prepared(config, extent,
                                  lambda: _prepare(config, extent, progress=progress))
    drainage, drainage_checks = drainage_grid(config, extent, progress=progress,
                                              town=done.overlays.town)
    profile = config.applied_regulation().profile  # the outside class names its regulation
    return done.for_run(drainage=drainage, checks=_checks(config, drainage_checks, done.bases),
                        outside=outside_class(str(profile.chapter or profile.title)))


def _prepare(config: TownConfig, extent: BBox | None, *,
             progress: Progress | None = None) -> overlay_cache.Prepared:
    """The reference layers read and prepared (:func:`load_overlays`), without what each run
    makes again (:data:`overlay_cache.PER_RUN`): what the overlay cache keeps."""
    def bbox(margin_m: float = 0.0) -> BBox | None:
        return _grow(extent, margin_m) if extent else None

    def read(key: str, margin_m: float = 0.0) -> gpd.GeoDataFrame | None:
        if not config.has(key):
            return None
        return io.read_layer(config, key, bbox=bbox(margin_m))

    unit_m = metres_per_unit(config.crs_obj)
    search_m = (nhesp_search_ft(config.rules) / FT_PER_M + 1.0) / unit_m
    frames: dict[str, gpd.GeoDataFrame | None] = {}
    keys = [("nhesp_priority", search_m), ("nhesp_estimated", search_m),
            ("vernal_pools", search_m), ("flood_zones", 0.0), ("huc12", 0.0), ("huc10", 0.0)]
    for i, (key, margin) in enumerate(keys):
        if progress:
            progress(0.02 + 0.06 * i / len(keys), f"reading {key}")
        frames[key] = read(key, margin)
    town = town_area(config)
    coverage, bases = {}, {}
    for name, keys in (("nhesp", _NHESP), ("sfha", ("flood_zones",))):
        coverage[name], bases[name] = coverage_areas(config, list(keys), town=town,
                                                     name=layer_words)
    overlays = Overlays.build(rules=config.rules, coverage=coverage, town=town, **frames)
    return overlay_cache.Prepared(overlays, bases)


_NHESP = ("nhesp_priority", "nhesp_estimated", "vernal_pools")


def _checks(config: TownConfig, drainage: dict[str, str | None],
            coverage: dict[str, str] | None = None) -> list[dict[str, Any]]:
    def src(keys: list[str]) -> list[dict[str, Any]]:
        return [io.source_info(config.layer(k)) for k in keys if config.has(k)]

    hab = [k for k in _NHESP if config.has(k)]
    missing_hab = [k for k in _NHESP if not config.has(k)]
    cov = coverage or {}
    has12, has10 = config.has("huc12"), config.has("huc10")
    dist = f"{config.rules.habitat_distance_ft:,g} ft (the town's habitat distance rule)"
    if hab and missing_hab:
        hab_note = (f"no {layer_names(missing_hab, joiner=' or ')} in the town config: a feature "
                    f"found within {dist} is reported; 'none within that distance' cannot be "
                    "said (null). Coverage: " + cov.get("nhesp", ""))
    elif hab:
        hab_note = ("coverage: " + cov.get("nhesp", "") + "; null beyond it unless a feature "
                    f"was found within {dist}")
    else:
        hab_note = _none_of(list(_NHESP))
    rows = [
        ("can_reach_trigger", True, src(["parcels"]), None),
        ("huc12", has12, src(["huc12"]), None if has12 else _none_of(["huc12"])),
        ("huc10", has10 or has12, src(["huc10"] if has10 else ["huc12"]),
         None if has10 else ("the HUC12 shares summed by their first 10 digits (WBD codes "
                             "nest); the largest" if has12 else
                             _none_of(["huc10", "huc12"]))),
        (NHESP_FLAG, bool(hab), src(hab), hab_note),
        ("in_sfha", config.has("flood_zones"), src(["flood_zones"]),
         ("coverage: " + cov.get("sfha", "") + "; null beyond it unless SFHA land was found")
         if config.has("flood_zones") else _none_of(["flood_zones"])),
        ("drains_to_orw", drainage.get("orw") is None,
         src(["dem", "streams", "waterbodies", "orw", "vernal_pools"]),
         drainage.get("orw") or _DRAIN_NOTE),
        ("drains_to_impaired", drainage.get("impaired") is None,
         src(["dem", "streams", "impaired_waters"]), drainage.get("impaired") or _DRAIN_NOTE),
    ]
    sections = flag_sections(config.applied_regulation())
    return [{"name": name, "ran": ran, "section": sections[name], "sources": sources,
             "note": note} for name, ran, sources, note in rows]


_DRAIN_NOTE = ("1 where the flow reaches one; 0 only where it was traced to its end inside the "
               "data having passed none; null (and drainage_leaves_data) where it leaves the "
               "data (the town line, the DEM's edge, the end of the mapped streams, beyond a "
               "layer's coverage), or for a parcel beyond the DEM")


# =========================================================================== the job


def drainage_grid(config: TownConfig, extent: Any, *, progress: Any = None,
                  town: Any = None) -> tuple[DrainageGrid | None, dict[str, str | None]]:
    """Read the DEM, streams, water bodies, ORWs (with the certified vernal pools, which are
    ORWs) and impaired waters once and build the grid.

    ``town`` (:func:`swm_gis.io.coverage.town_area`) is where the trace stops, as in the
    screening. Returns the grid (or None) and, for ``"orw"`` and ``"impaired"``, why that flag
    did not run (None when it ran).
    """
    reasons = _drainage_reasons(config)
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
    # the screening's network and tolerances (terrain.receiving_waters.trace_receiving_waters)
    # cut where they cross the town line: a catchment in the town or beyond it, as the trace
    network = hydrology.stream_network(catchments.split_at_boundary(read("streams"), town),
                                       read("waterbodies"),
                                       tolerance_ft=min(TRACE_TOLERANCE_FT, 3.0), flow=flow)
    orw_keys = [] if reasons["orw"] else ["orw", "vernal_pools"]
    imp_keys = [] if reasons["impaired"] else ["impaired_waters"]
    coverage = {"orw": coverage_areas(config, orw_keys, town=town)[0],
                "impaired": coverage_areas(config, imp_keys, town=town)[0]}
    grid = catchments.build_grid(
        flow, network, orw=read("orw") if "orw" in orw_keys else None,
        vernal_pools=read("vernal_pools") if "orw" in orw_keys else None,
        impaired=read("impaired_waters") if imp_keys else None, boundary=town,
        coverage=coverage, tolerance=TRACE_TOLERANCE_FT * M_PER_FT / metres_per_unit(config.crs),
        orw_complete=config.has("orw") and config.has("vernal_pools"))
    return grid, reasons



def _none_of(keys: list[str]) -> str:
    """Why a check cannot run: none of these layers configured, in words (not config keys)."""
    return f"no {layer_names(keys, joiner=' or ')} in the town config"


def _drainage_reasons(config: TownConfig) -> dict[str, str | None]:
    """For ``"orw"`` and ``"impaired"``, why that flag cannot run (None: it can): the trace needs
    a DEM and streams or water bodies, each flag its waters."""
    reasons: dict[str, str | None] = {"orw": None, "impaired": None}
    missing_base = [layer_names([k]) for k in ("dem",) if not config.has(k)]
    if not (config.has("streams") or config.has("waterbodies")):
        missing_base.append(layer_names(["streams", "waterbodies"], joiner=" or "))
    if missing_base:
        why = "no " + " and no ".join(missing_base) + " in the town config (needed to trace " \
            "drainage)"
        return {"orw": why, "impaired": why}
    if not (config.has("orw") or config.has("vernal_pools")):
        reasons["orw"] = _none_of(["orw", "vernal_pools"])
    if not config.has("impaired_waters"):
        reasons["impaired"] = _none_of(["impaired_waters"])
    return reasons

#: How close (ft) the flow must pass a water to meet it: the screening's trace tolerance.
TRACE_TOLERANCE_FT = 10.0


__all__ = ["Tile", "TileRead", "classify_tile", "classify_tile_read", "drainage_grid",
           "duplicate_ids", "load_overlays", "make_tiles", "parcel_extent", "read_tile_parcels"]

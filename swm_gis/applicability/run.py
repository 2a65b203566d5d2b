"""Town-wide applicability map: every parcel classified at once (README "Commands", docs/dask.md).

Per parcel: area and whether it can reach the one-acre trigger, largest-overlap HUC12/HUC10, exact
distance to the nearest NHESP feature (priority or estimated habitat, certified vernal pool),
Special Flood Hazard Area overlap, whether its land drains to an Outstanding Resource Water or an
impaired water (from catchments computed once for the town), and a ``screening_class`` a person
reads at a glance. A flag whose layers are not configured, or do not cover the parcel, is null
(never false); ``not_checked`` and the class name those checks; right-of-way and water polygons
have their own classes.

This module is the job, :func:`run_applicability`; it re-exports the names of its parts:

* :mod:`swm_gis.applicability.overlays`: :class:`Overlays`, reference layers prepared once (as
  STRtrees over subdivided geometry), and the constants;
* :mod:`swm_gis.applicability.classify`: :func:`classify_parcels` (one GeoDataFrame of parcels
  in, one of flags out, same index and CRS; vectorised) and the screening classes and summaries;
* :mod:`swm_gis.applicability.tiles`: the town read in spatial tiles through
  :mod:`swm_gis.io.layers` (each parcel in exactly one tile by its representative point), the
  reference layers and the catchments read once;
* :mod:`swm_gis.applicability.write`: the GeoPackage appends, tables and QGIS style.

Each tile is classified and appended to the output as soon as it is done, so memory stays flat as
the parcel count grows. :mod:`swm_gis.applicability.cluster` runs the same per-tile function on a
Dask cluster.

Examples
--------
>>> import geopandas as gpd, shapely
>>> parcels = gpd.GeoDataFrame({"id": ["A", "B"]},
...     geometry=[shapely.box(0, 0, 100, 100), shapely.box(300, 0, 310, 10)], crs="EPSG:26986")
>>> flood = gpd.GeoDataFrame({"zone": ["AE"], "sfha": [None]},
...     geometry=[shapely.box(-50, -50, 25, 200)], crs="EPSG:26986")
>>> out = classify_parcels(parcels, Overlays.build(flood_zones=flood))
>>> out[["parcel_id", "in_sfha", "sfha_fraction", "can_reach_trigger"]].to_dict("list")
{'parcel_id': ['A', 'B'], 'in_sfha': [True, False], 'sfha_fraction': [0.25, 0.0], \
'can_reach_trigger': [True, False]}
>>> out["screening_class"].tolist()  # only flood zones configured: the rest was not checked
['large parcel; floodplain constraint; NHESP, ORW, impaired waters, HUC not checked', \
'small parcel; no constraint found; NHESP, ORW, impaired waters, HUC not checked']
"""

from __future__ import annotations

import collections
import contextlib
import contextvars
import itertools
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import geopandas as gpd
import pandas as pd

from swm_gis.applicability import id_scan_cache
from swm_gis.applicability.classify import (
    all_classes,
    class_name,
    class_order,
    classify_parcels,
    combine_summaries,
    covered,
    drainage_flags,
    no_owner_class,
    not_checked,
    screening_class,
    summarise,
)
from swm_gis.applicability.overlays import (
    CHECKS_TABLE,
    CONSTRAINTS,
    DEFAULT_CHUNK_SIZE,
    INCLUSIVE_TOL_FT,
    LAYER,
    MAX_PIECE_EXTENT_M,
    MAX_PIECE_VERTICES,
    NHESP_FLAG,
    NHESP_SEARCH_FT,
    OLD_COLUMNS,
    OUTPUT_COLUMNS,
    SQFT_PER_SQM,
    STYLE_NAME,
    SUMMARY_TABLE,
    BBox,
    Overlays,
    boundary_chunks,
    nhesp_search_ft,
    subdivide,
)
from swm_gis.applicability.parallel import (
    TileBatch,
    check_workers,
    in_process,
    local_batches,
    tile_batch,
)
from swm_gis.applicability.pool_start import start_workers
from swm_gis.applicability.tiles import (
    Tile,
    classify_tile,
    drainage_grid,
    duplicate_ids,
    load_overlays,
    make_tiles,
    parcel_extent,
    read_tile_parcels,
)
from swm_gis.applicability.write import (
    null_counts,
    read_result,
    regulation_name,
    to_batch,
    write_batches,
    write_map,
    write_style,
    write_tables,
)
from swm_gis.config.town import TownConfig
from swm_gis.errors import EmptyLayerError
from swm_gis.io.layers import run_cache
from swm_gis.io.writers import atomic_path, check_outputs_free, gdal_option, sqlite_sync_off
from swm_gis.messages import config_key
from swm_gis.progress import Progress, quiet
from swm_gis.terrain.catchments import DrainageGrid
from swm_gis.units import metres_per_unit


@dataclass
class RunResult:
    """What :func:`run_applicability` wrote (``path``), or :func:`classify_town` holds in memory
    (``frame``), with the town-wide summary; :func:`swm_gis.jobs.applicability_map` wraps it in
    an :class:`~swm_gis.results.ApplicabilityMap`."""

    path: Path | None
    parcels: int
    tiles: int
    summary: pd.DataFrame
    checks: list[dict[str, Any]]
    engine: str = "local"
    parameters: dict[str, Any] = field(default_factory=dict)
    frame: gpd.GeoDataFrame | None = None


#: GDAL reads a GeoPackage through Arrow with helper threads (OGR_GPKG_NUM_THREADS) and builds
#: its spatial index in a helper thread while features are written
#: (OGR_GPKG_ALLOW_THREADED_RTREE). A process forked while one of them was inside SQLite hung in
#: PROJ's at-fork handler (gdb, 2026-12-06: ``sqlite3_free`` on SQLite's static mutex). The local
#: engine's workers no longer fork from this process (they come from a fork server,
#: :mod:`swm_gis.applicability.parallel`), so it keeps GDAL's threads; the Dask local cluster
#: still forks its workers from this process (:mod:`swm_gis.applicability.cluster`), so a run
#: whose tiles come from elsewhere (``tile_results``) reads and writes on one thread.
ONE_READER_THREAD = ("OGR_GPKG_NUM_THREADS", "1")
NO_RTREE_THREAD = ("OGR_GPKG_ALLOW_THREADED_RTREE", "NO")


@run_cache()
def run_applicability(
    config: TownConfig,
    out: str | Path,
    *,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    workers: int | None = None,
    overwrite: bool = False,
    progress: Progress | None = None,
    tile_results: Callable[[list[Tile], Overlays], Iterator[TileBatch]] | None = None,
    engine: str = "local",
    parameters: dict[str, Any] | None = None,
) -> RunResult:
    """Classify every parcel of the town and write the styled GeoPackage ``out``.

    The town is read and classified tile by tile (about ``chunk_size`` parcels each) by
    ``workers`` processes (default: every core; 1, or a town of one tile, runs in this process),
    and the tiles stream, in tile order, into the output through one writer, so memory holds a
    few tiles at a time and the file is the same whatever the number of workers.
    ``tile_results`` lets another engine (Dask) produce the tiles' batches
    (:class:`TileBatch`), in tile order.
    """
    with contextlib.ExitStack() as stack:
        if tile_results is not None:  # workers forked from this process: GDAL on one thread
            stack.enter_context(gdal_option(*ONE_READER_THREAD))
            stack.enter_context(gdal_option(*NO_RTREE_THREAD))
        return _run(config, Path(out), chunk_size=chunk_size, workers=check_workers(workers),
                    overwrite=overwrite, progress=progress or quiet, tile_results=tile_results,
                    engine=engine, parameters=parameters)


def _run(config: TownConfig, out: Path, *, chunk_size: int, workers: int, overwrite: bool,
         progress: Progress, tile_results: Callable[[list[Tile], Overlays],
                                                    Iterator[TileBatch]] | None,
         engine: str, parameters: dict[str, Any] | None) -> RunResult:
    check_outputs_free([out], overwrite=overwrite)
    report = progress
    measured = parcel_extent(config)
    if tile_results is None and not in_process(make_tiles(*measured, chunk_size=chunk_size),
                                               workers):
        start_workers()  # the fork server starts while the tiles are planned
    tiles, overlays, dups = plan_tiles(config, chunk_size=chunk_size, progress=report,
                                       measured=measured)
    source = tile_results(tiles, overlays) if tile_results \
        else local_batches(config, tiles, overlays, workers=workers)
    with _ending(source) as results:
        # the first tile before the output is opened: worker processes (a Dask local cluster's are
        # forked from this one) start before GDAL holds the output file open, so no child ever
        # inherits its handle
        first = next(results, None)
        results = itertools.chain([first] if first is not None else [], results)
        parts: list[pd.DataFrame] = []
        counted = [0, 0]  # parcels written, geometries repaired
        nulls: collections.Counter[str] = collections.Counter()

        def tables() -> Iterator[Any]:
            for i, batch in enumerate(results):
                # a batch that does not say (another engine's) counts as repaired: nothing recorded
                counted[1] += getattr(batch, "repaired", 1)
                if len(batch):
                    parts.append(batch.summary)
                    counted[0] += len(batch)
                    nulls.update(null_counts(batch.table))
                    yield batch.table
                report(0.15 + 0.8 * (i + 1) / len(tiles),
                       f"tile {i + 1} of {len(tiles)}: {counted[0]:,} parcels classified")

        with atomic_path(out, suffix=".gpkg") as tmp, sqlite_sync_off():
            write_batches(tmp, tables(), crs=config.crs)
            _check_any(config, counted[0])
            summary = combine_summaries(parts, huc12_names=overlays.huc12_names)
            extra = {"workers": workers} if tile_results is None else {}
            params = run_parameters(config, engine=engine, chunk_size=chunk_size, tiles=tiles,
                                    dups=dups, extra={**extra, **(parameters or {})})
            write_tables(tmp, summary, overlays.checks, config, params, nulls=dict(nulls))
            write_style(tmp, layer=LAYER, classes=summary["screening_class"].unique().tolist(),
                        trigger_sqft=config.rules.trigger_sqft, regulation=regulation_name(config))
    if counted[1] == 0 and not any(t.valid for t in tiles):
        # every parcel was read by a tile and none needed a repair: later runs on the same
        # parcels skip the validity test
        id_scan_cache.record_valid(config)
    report(1.0, "done")
    return RunResult(path=out, parcels=counted[0], tiles=len(tiles), summary=summary,
                     checks=overlays.checks, engine=engine)



@contextlib.contextmanager
def _ending(batches: Iterator[TileBatch]) -> Iterator[Iterator[TileBatch]]:
    """The tiles' batches, their producer stopped when the job ends, however it ends: a
    generator is closed (its workers' tiles still queued are cancelled, the running ones
    waited for; kept workers are stopped), not left to the garbage collector, which does not
    come while anything (a caller, a traceback) holds the job's frames: a kept pool went on
    with an interrupted job's tiles beside the next job's."""
    try:
        yield iter(batches)
    finally:
        close = getattr(batches, "close", None)
        if close is not None:
            close()


#: Up to this many parcels the duplicate-id scan runs beside the overlays' preparation (at a
#: million parcels its table is about 110 MB; at 2.4 million the two peaks together made 967 MB
#: of the 1 GB the statewide run may use, against 688 MB one after the other).
DUPLICATE_SCAN_BESIDE_MAX = 1_000_000


def plan_tiles(config: TownConfig, *, chunk_size: int = DEFAULT_CHUNK_SIZE,
               progress: Progress = quiet,
               measured: tuple[BBox | None, int] | None = None
               ) -> tuple[list[Tile], Overlays, list[str]]:
    """The job's tiles (a last one for ids on several polygons), overlays and duplicate ids.
    ``measured``: the parcels' :func:`parcel_extent`, if the caller has it already."""
    progress(0.0, "planning tiles")
    extent, count = measured if measured is not None else parcel_extent(config)
    tiles = make_tiles(extent, count, chunk_size=chunk_size)
    if 0 <= count <= DUPLICATE_SCAN_BESIDE_MAX:
        # a town's id scan (Arrow reads and hashes, without the GIL) runs beside the overlays
        with ThreadPoolExecutor(max_workers=1) as pool:
            # in this thread's context: the job's source cache (a ContextVar) holds there too
            scan = pool.submit(contextvars.copy_context().run, duplicate_ids, config)
            try:
                overlays = load_overlays(config, extent, progress=progress)
            finally:
                dups = scan.result()  # its error, if any, first: as when it ran first
    else:
        # a larger layer's scan runs first: its hash table (about 300 MB for a statewide layer)
        # is gone before the overlays are built, so the two peaks do not add up
        dups = duplicate_ids(config)
        overlays = load_overlays(config, extent, progress=progress)
    valid = id_scan_cache.known_valid(config)
    skip = frozenset(dups)
    tiles = [Tile(t.index, t.bounds, skip_ids=skip, valid=valid) for t in tiles]
    if dups:
        tiles.append(Tile(len(tiles), tiles[0].bounds, ids=tuple(dups), valid=valid))
    return tiles, overlays, dups


def run_parameters(config: TownConfig, *, engine: str, chunk_size: int, tiles: list[Tile],
                   dups: list[str], extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The parameters recorded in the checks table's ``run`` row."""
    return {"engine": engine, "chunk_size": chunk_size, "tiles": len(tiles),
            "merged_duplicate_ids": dups,
            "habitat_distance_ft": config.rules.habitat_distance_ft,
            "trigger_sqft": config.rules.trigger_sqft,
            "nhesp_search_ft": nhesp_search_ft(config.rules),
            "nhesp_column": NHESP_FLAG, **(extra or {})}


def _check_any(config: TownConfig, n_parcels: int) -> None:
    if n_parcels == 0:
        raise EmptyLayerError(
            f"{config.layer('parcels').describe()} ({config_key('layers.parcels')}) has no "
            "parcels; "
            "nothing to classify."
        )


@run_cache()
def classify_town(config: TownConfig, *, chunk_size: int = DEFAULT_CHUNK_SIZE,
                  progress: Progress | None = None) -> RunResult:
    """Classify every parcel of the town in memory (tile by tile, concatenated); write nothing.

    The result's ``frame`` has the rows, in the order, that :func:`run_applicability` writes.
    """
    progress = progress or quiet
    tiles, overlays, dups = plan_tiles(config, chunk_size=chunk_size, progress=progress)
    frames = []
    for i, tile in enumerate(tiles):
        res = classify_tile(config, tile, overlays)
        if len(res):
            frames.append(res)
        progress(0.15 + 0.8 * (i + 1) / len(tiles), f"tile {i + 1} of {len(tiles)}")
    n_parcels = sum(len(f) for f in frames)
    _check_any(config, n_parcels)
    frame = gpd.GeoDataFrame(pd.concat(frames, ignore_index=True), geometry=frames[0].geometry.name,
                             crs=frames[0].crs)
    summary = combine_summaries([summarise(f) for f in frames],
                                huc12_names=overlays.huc12_names)
    params = run_parameters(config, engine="local", chunk_size=chunk_size, tiles=tiles, dups=dups)
    progress(1.0, "done")
    return RunResult(path=None, parcels=n_parcels, tiles=len(tiles), summary=summary,
                     checks=overlays.checks, parameters=params, frame=frame)


__all__ = [
    "CHECKS_TABLE", "CONSTRAINTS", "DEFAULT_CHUNK_SIZE", "INCLUSIVE_TOL_FT", "LAYER",
    "MAX_PIECE_EXTENT_M", "MAX_PIECE_VERTICES", "NHESP_FLAG", "NHESP_SEARCH_FT", "OLD_COLUMNS",
    "OUTPUT_COLUMNS", "nhesp_search_ft",
    "SQFT_PER_SQM", "STYLE_NAME", "SUMMARY_TABLE", "DrainageGrid", "Overlays", "RunResult",
    "Tile", "TileBatch", "check_workers", "local_batches", "tile_batch", "to_batch",
    "write_batches", "class_order", "covered", "no_owner_class", "not_checked",
    "all_classes", "boundary_chunks", "class_name", "classify_parcels", "classify_tile",
    "combine_summaries", "drainage_flags", "drainage_grid", "duplicate_ids", "load_overlays",
    "make_tiles", "metres_per_unit", "parcel_extent", "read_result", "read_tile_parcels",
    "classify_town", "plan_tiles", "run_applicability", "run_parameters", "screening_class",
    "write_map", "subdivide", "summarise", "write_style",
]

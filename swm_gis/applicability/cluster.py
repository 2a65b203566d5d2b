"""The applicability map on Dask (``engine="dask"``): county or state scale.

The same per-tile function as the local engine (:func:`swm_gis.applicability.run.classify_tile`)
runs on a ``distributed`` cluster: the parcels become a dask-geopandas GeoDataFrame spatially
partitioned by the job's tile grid (one partition per tile, each parcel in exactly one partition
by its first vertex; ``spatial_partitions`` holds the tile boxes), every worker holds the
prepared reference layers, and each worker reads its own tiles through :mod:`swm_gis.io.layers` with
a bbox. Results come back in tile order and are appended to the output by the client's one
streaming writer (as Arrow tables, :func:`swm_gis.applicability.run.tile_batch`), so the output is
identical to the local engine's.

``scheduler`` connects to a running cluster (every worker needs swm-gis installed and the town's
data at the same paths; see docs/dask.md): the prepared layers are scattered to every worker once
and the tables come back over the network. Without it a ``LocalCluster`` runs on this machine,
and on Linux uses what one machine allows: workers forked once the layers are prepared (they
share them, as the local engine's workers do) and tables handed back through a spool folder.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import sys
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack
from multiprocessing import get_all_start_methods
from pathlib import Path
from typing import Any

import geopandas as gpd
import pandas as pd
import shapely

from swm_gis.applicability.parallel import frozen_heap, hand_over, in_tile_order
from swm_gis.applicability.run import (
    DEFAULT_CHUNK_SIZE,
    Overlays,
    Progress,
    RunResult,
    Tile,
    TileBatch,
    classify_parcels,
    classify_tile,
    run_applicability,
    tile_batch,
)
from swm_gis.config.town import TownConfig
from swm_gis.errors import ConfigError
from swm_gis.messages import option


def tiles_frame(config: TownConfig, tiles: list[Tile], overlays: Any) -> Any:
    """The parcels, classified, as a lazy dask-geopandas frame with one partition per tile."""
    import dask
    import dask.dataframe as dd
    import dask_geopandas

    meta = _meta(config)
    parts = [dask.delayed(classify_tile, pure=True)(config, t, overlays) for t in tiles]
    ddf = dd.from_delayed(parts, meta=meta, verify_meta=False)
    if not isinstance(ddf, dask_geopandas.GeoDataFrame):
        ddf = dask_geopandas.from_dask_dataframe(ddf, geometry="geometry")
    ddf.spatial_partitions = gpd.GeoSeries(
        [shapely.box(*t.bounds) for t in tiles], crs=config.crs)
    return ddf


def _meta(config: TownConfig) -> gpd.GeoDataFrame:
    empty = gpd.GeoDataFrame({"id": pd.Series([], dtype=object),
                              "map_par_id": pd.Series([], dtype=object)},
                             geometry=gpd.GeoSeries([], crs=config.crs), crs=config.crs)
    return classify_parcels(empty, Overlays(rules=config.rules))


def run_applicability_dask(
    config: TownConfig,
    out: str | Path,
    *,
    scheduler: str | None = None,
    workers: int = 2,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    overwrite: bool = False,
    progress: Progress | None = None,
    connect_timeout_s: float = 20.0,
) -> RunResult:
    """:func:`swm_gis.applicability.run.run_applicability` with the tiles computed on Dask.

    With ``scheduler``, on that cluster: the prepared layers are scattered to every worker and
    each tile's table comes back over the network. Without, on a ``LocalCluster`` of ``workers``
    processes started once the layers are prepared (:func:`_local_cluster_results`).
    """
    if importlib.util.find_spec("distributed") is None:  # pragma: no cover - the dask extra
        raise ConfigError(
            "The Dask engine needs dask-geopandas and distributed: "
            f'pip install "swm-gis[dask]", or use {option("engine", "local")}.'
        )
    common = {"chunk_size": chunk_size, "overwrite": overwrite, "progress": progress,
              "engine": "dask"}
    if not scheduler:
        # distributed (0.7 s of imports) loads while the layers are prepared, not before
        loading = ThreadPoolExecutor(max_workers=1)
        imported = loading.submit(importlib.import_module, "distributed")
        loading.shutdown(wait=False)
        return run_applicability(
            config, out, **common,
            tile_results=lambda tiles, overlays: _local_cluster_results(
                config, tiles, overlays, workers=workers, imported=imported),
            parameters={"scheduler": f"LocalCluster({workers} processes)"})
    from distributed import Client

    try:  # reach the cluster before any work: a wrong address fails at once
        client = Client(scheduler, timeout=f"{connect_timeout_s}s")
    except OSError as exc:
        raise ConfigError(
            f"Cannot reach the Dask scheduler at {scheduler}: {exc}. Start one (dask scheduler) "
            f"and its workers, or leave out {option('scheduler')} to use a local cluster."
        ) from exc
    try:
        return run_applicability(
            config, out, **common,
            tile_results=lambda tiles, overlays: _in_tile_order(
                client, _scattered_submit(client, config, overlays), tiles),
            parameters={"scheduler": scheduler})
    finally:
        client.close()


def _scattered_submit(client: Any, config: TownConfig, overlays: Overlays
                      ) -> Callable[[Tile], Any]:
    """A tile's task on workers that hold the prepared layers (scattered to each once)."""
    shared = client.scatter(overlays, broadcast=True)
    # each worker encodes its tiles as Arrow tables (what the local workers return), so the
    # client only streams buffers into the GeoPackage
    return lambda tile: client.submit(tile_batch, config, tile, shared, pure=False)


def _local_cluster_results(config: TownConfig, tiles: list[Tile], overlays: Overlays, *,
                           workers: int, imported: Future | None = None
                           ) -> Iterator[TileBatch]:
    """The tiles' batches from a ``LocalCluster`` of ``workers`` processes on this machine.

    The cluster starts once the layers are prepared. On Linux its worker processes are forked
    from this one (``distributed.worker.multiprocessing-method = fork``), as the local engine's
    are: they start without importing the stack again, hold the prepared layers from the start
    (shared, copy on write, instead of pickled to each over TCP), and hand each finished table
    back through a spool folder on this machine instead of over TCP. Elsewhere the workers are
    spawned and get the layers scattered, as on a remote cluster.
    """
    if imported is not None:
        imported.result()
    import dask
    from distributed import Client, LocalCluster

    global _SHARED
    forked = sys.platform.startswith("linux") and "fork" in get_all_start_methods()
    with ExitStack() as stack:
        # the workers' scratch space and the spool in one private folder, gone after the run
        scratch = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="swm-dask-")))
        stack.enter_context(dask.config.set({"temporary-directory": str(scratch)}))
        spool = str(scratch / "tiles")
        if forked:
            Path(spool).mkdir()
            stack.enter_context(dask.config.set(_FORKED_LOCAL_CLUSTER))
            stack.enter_context(frozen_heap())
            _SHARED = overlays
            stack.callback(_forget_shared)
        cluster = stack.enter_context(LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
            silence_logs=logging.ERROR))
        client = stack.enter_context(Client(cluster))
        submit = ((lambda tile: client.submit(_forked_tile_batch, config, tile, spool,
                                              pure=False))
                  if forked else _scattered_submit(client, config, overlays))
        yield from _in_tile_order(client, submit, tiles)


def _in_tile_order(client: Any, submit: Callable[[Tile], Any], tiles: list[Tile]
                   ) -> Iterator[TileBatch]:
    """The tiles' batches in tile order, two tiles in flight per worker thread; each tile is one
    submitted task (no graph to build or hash: ``pure=False``, every tile is its own task)."""
    return in_tile_order(submit, tiles, window=max(2, 2 * sum(client.nthreads().values())))


_SHARED: Overlays | None = None  # the prepared layers a forked LocalCluster worker starts with

#: The local cluster's settings: workers forked from this process; and, since its scheduler,
#: nannies and workers share this machine's cores with the tiles, no statistical profiler
#: sampling every task's stack 100 times a second, and housekeeping less often (the event
#: loops' blocked-loop check every 1 s, not 20 ms; memory and system monitors every 1 s and
#: 5 s, not 0.1 s and 0.5 s).
_FORKED_LOCAL_CLUSTER = {
    "distributed.worker.multiprocessing-method": "fork",
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.memory.monitor-interval": "1s",
}


def _forget_shared() -> None:
    global _SHARED
    _SHARED = None


def _forked_tile_batch(config: TownConfig, tile: Tile, spool: str) -> Any:
    """A forked LocalCluster worker's task: one tile, left in the spool."""
    if _SHARED is None:  # a worker not forked from the client (restarted by its nanny)
        raise RuntimeError("this Dask worker holds no prepared layers; run the job again")
    return hand_over(tile_batch(config, tile, _SHARED), spool)


__all__ = ["run_applicability_dask", "tiles_frame"]

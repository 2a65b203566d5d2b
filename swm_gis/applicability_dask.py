"""The applicability map on Dask (``swm-gis applicability --engine dask``): county or state scale.

The same per-tile function as the local engine (:func:`swm_gis.applicability.classify_tile`)
runs on a ``distributed`` cluster: the parcels become a dask-geopandas GeoDataFrame spatially
partitioned by the job's tile grid (one partition per tile, each parcel in exactly one partition
by its representative point; ``spatial_partitions`` holds the tile boxes), the prepared reference
layers are broadcast once to every worker, and each worker reads its own tiles through
:mod:`swm_gis.layers` with a bbox. Results come back in tile order and are appended to the output
by the client's one streaming writer (as Arrow tables, :func:`swm_gis.applicability.tile_batch`),
so the output is identical to the local engine's.

By default a ``LocalCluster`` of worker processes runs on this machine; ``scheduler`` connects to
a running cluster instead (every worker needs swm-gis installed and the town's data at the same
paths; see docs/dask.md).
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import geopandas as gpd
import pandas as pd
import shapely

from swm_gis.applicability import (
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
from swm_gis.config import TownConfig
from swm_gis.errors import ConfigError


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
    """:func:`swm_gis.applicability.run_applicability` with the tiles computed on Dask."""
    try:
        from distributed import Client, LocalCluster
    except ImportError as exc:  # pragma: no cover - installed with the dask extra
        raise ConfigError(
            "The Dask engine needs dask-geopandas and distributed: "
            'pip install "swm-gis[dask]", or use --engine local.'
        ) from exc
    cluster = None
    try:
        if scheduler:
            client = Client(scheduler, timeout=f"{connect_timeout_s}s")
        else:
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                   dashboard_address=None, silence_logs=logging.ERROR)
            client = Client(cluster)
    except OSError as exc:
        raise ConfigError(
            f"Cannot reach the Dask scheduler at {scheduler}: {exc}. Start one (dask scheduler) "
            "and its workers, or leave out --scheduler to use a local cluster."
        ) from exc

    def tile_results(tiles: list[Tile], overlays: Overlays) -> Iterator[TileBatch]:
        import dask

        shared = client.scatter(overlays, broadcast=True)
        # each worker encodes its tiles as Arrow tables (what the local workers return), so the
        # client only streams buffers into the GeoPackage
        parts = [dask.delayed(tile_batch, pure=True)(config, t, shared) for t in tiles]
        # a window of tiles in flight (two per worker thread): finished tiles wait for the
        # client's writer in the workers' memory, so the window keeps that memory bounded
        window = max(2, 2 * sum(client.nthreads().values()))
        pending = deque(client.compute(parts[:window]))
        following = iter(parts[window:])
        while pending:  # tile order: the output rows come out as the local engine's
            fut = pending.popleft()
            result = fut.result()
            fut.release()
            nxt = next(following, None)
            if nxt is not None:
                pending.append(client.compute(nxt))
            yield result

    try:
        return run_applicability(
            config, out, chunk_size=chunk_size, overwrite=overwrite, progress=progress,
            tile_results=tile_results, engine="dask",
            parameters={"scheduler": scheduler or f"LocalCluster({workers} processes)"},
        )
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


__all__ = ["run_applicability_dask", "tiles_frame"]

"""The local engine on every core: tiles classified in worker processes, one streaming writer.

Each worker process reads, classifies and encodes its tiles (:func:`tile_batch`: an Arrow table
of the output columns with WKB geometry, and the tile's summary); the parent process receives the
tables **in tile order** and streams them into the GeoPackage through one
:func:`pyogrio.write_arrow` call (:func:`swm_gis.applicability.write.write_batches`), so GDAL
keeps the layer open for the whole run and builds the spatial index once, in bulk, at the end.
The writer does little more than copy buffers: the work of building the rows, encoding
geometries and summing the summary is done by the workers.

A bounded window of tiles is in flight (two per worker), so finished tiles waiting for the writer
hold a bounded amount of memory. One worker runs the same functions in the calling process:
the output of ``workers=1`` and ``workers=N`` is the same file, row for row (rows in tile order,
within a tile in the parcels source's order).
"""

from __future__ import annotations

import gc
import os
import pickle
import sys
import tempfile
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing import get_all_start_methods, get_context
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from swm_gis.applicability.classify import summarise
from swm_gis.applicability.overlays import Overlays, available_cores
from swm_gis.applicability.tiles import Tile, classify_tile
from swm_gis.applicability.write import to_batch
from swm_gis.config.town import TownConfig
from swm_gis.errors import ConfigError


@dataclass
class TileBatch:
    """One classified tile: its rows as an Arrow table and its summary part."""

    index: int
    table: Any  # pyarrow.Table
    summary: pd.DataFrame

    def __len__(self) -> int:
        return self.table.num_rows


def tile_batch(config: TownConfig, tile: Tile, overlays: Overlays) -> TileBatch:
    """Read, classify and encode one tile (what every worker runs, and ``workers=1`` too)."""
    result = classify_tile(config, tile, overlays)
    return TileBatch(tile.index, to_batch(result), summarise(result))


def default_workers() -> int:
    """All the cores this process may use."""
    return max(1, available_cores())


def check_workers(workers: int | None) -> int:
    """``workers`` as a count (None = every core); refuses anything below 1."""
    if workers is None:
        return default_workers()
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ConfigError(f"workers must be a whole number of at least 1, not {workers!r}.")
    return workers


def local_batches(config: TownConfig, tiles: list[Tile], overlays: Overlays, *,
                  workers: int) -> Iterator[TileBatch]:
    """The tiles' batches in tile order, from ``workers`` processes (1: this process)."""
    workers = min(workers, len(tiles))
    if workers <= 1:
        with frozen_heap():
            for tile in tiles:
                yield tile_batch(config, tile, overlays)
        return
    with _pool(workers, overlays) as pool:
        yield from in_tile_order(lambda tile: pool.submit(_worker_batch, config, tile), tiles,
                                 window=2 * workers)


@contextmanager
def _pool(workers: int, overlays: Overlays) -> Iterator[ProcessPoolExecutor]:
    """Worker processes holding ``overlays``.

    Forked on Linux: a forked worker starts at once and shares the prepared
    reference layers with the parent (copy on write), and the caller's ``__main__`` is not
    imported again (a script without an ``if __name__ == "__main__"`` guard still works). The
    workers only compute and return tables: they print nothing and take no lock of the parent's.
    A forked worker hands each table over as an Arrow file in a private temporary folder (the
    spool), which the parent maps and deletes: the worker goes on to its next tile at once
    instead of waiting, tile after tile, for the parent to drain megabytes through the pool's
    one result pipe while its writer is busy (measured: 15-100 ms of idle worker per tile).
    Elsewhere (macOS, where forking a process that has loaded system frameworks is unsafe, and
    Windows) the workers are spawned and receive the overlays pickled once, through a file; the
    calling script then needs the usual ``if __name__ == "__main__":`` guard.
    """
    global _OVERLAYS, _SPOOL
    if sys.platform.startswith("linux") and "fork" in get_all_start_methods():
        _OVERLAYS = overlays
        try:
            with _spool() as spool, frozen_heap(), ProcessPoolExecutor(
                    max_workers=workers, mp_context=get_context("fork")) as pool:
                _SPOOL = spool
                yield pool
        finally:
            _OVERLAYS = _SPOOL = None
        return
    with tempfile.TemporaryDirectory(prefix="swm-applicability-") as tmp:
        shared = Path(tmp) / "overlays.pickle"
        shared.write_bytes(pickle.dumps(overlays, protocol=pickle.HIGHEST_PROTOCOL))
        with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn"),
                                 initializer=_init_worker, initargs=(str(shared),)) as pool:
            yield pool


@contextmanager
def _spool() -> Iterator[str | None]:
    """A private temporary folder for the workers' tables, removed at the end; None (tables
    through the pipe) where the temporary folder cannot be written."""
    try:
        folder = tempfile.TemporaryDirectory(prefix="swm-tiles-")
    except OSError:
        yield None
        return
    with folder as path:
        yield path


@contextmanager
def frozen_heap() -> Iterator[None]:
    """The objects alive now (the prepared overlays, the libraries) move to the garbage
    collector's permanent generation while the tiles run: the collector stops walking them at
    each full collection, and forked workers stop touching, and so copying, every page they
    share with the parent. Released at the end."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def in_tile_order(submit: Callable[[Tile], Any], tiles: list[Tile], *, window: int
                  ) -> Iterator[TileBatch]:
    """The tiles' batches in tile order, ``window`` tiles in flight: ``submit(tile)`` starts one
    and returns its future (a process pool's or a Dask client's). Finished tiles wait for the
    caller in the workers' memory, so the window bounds that memory; each future is dropped as
    soon as its result is taken (a Dask worker then forgets the result), and the ones still in
    flight are cancelled if the caller stops early."""
    pending: deque[Any] = deque(submit(t) for t in tiles[:window])
    following = iter(tiles[window:])
    try:
        while pending:
            fut = pending.popleft()
            batch = received(fut.result())
            del fut
            nxt = next(following, None)
            if nxt is not None:
                pending.append(submit(nxt))
            yield batch
    finally:
        for fut in pending:
            fut.cancel()


_OVERLAYS: Overlays | None = None
_SPOOL: str | None = None  # the forked workers' folder for finished tables


def _init_worker(path: str) -> None:
    global _OVERLAYS
    _OVERLAYS = pickle.loads(Path(path).read_bytes())


def _worker_batch(config: TownConfig, tile: Tile) -> TileBatch | _Spooled:
    assert _OVERLAYS is not None, "worker not initialised"
    return hand_over(tile_batch(config, tile, _OVERLAYS), _SPOOL)


def hand_over(batch: TileBatch, folder: str | None) -> TileBatch | _Spooled:
    """What a worker returns for ``batch``: left in the spool ``folder`` (:func:`received` maps
    it back), or the batch itself without a spool, or where the spool cannot be written (a full
    or read-only temporary folder: through the pipe)."""
    if folder is None:
        return batch
    try:
        return spool_batch(batch, folder)
    except OSError:
        return batch


def spool_batch(batch: TileBatch, folder: str) -> _Spooled:
    """Leave ``batch`` in the spool ``folder`` as an Arrow file (for the parent to map)."""
    path = Path(folder) / f"tile-{batch.index}.arrow"
    with pa.ipc.new_file(path, batch.table.schema) as sink:
        sink.write_table(batch.table)
    return _Spooled(batch.index, str(path), batch.summary)


@dataclass
class _Spooled:
    """A tile's batch left in the spool by a worker: its Arrow file and summary."""

    index: int
    path: str
    summary: pd.DataFrame

    def batch(self) -> TileBatch:
        """The batch, mapped from its file (no copy); the file is deleted at once (the mapping
        lives on with the table)."""
        with pa.memory_map(self.path) as source:
            table = pa.ipc.open_file(source).read_all()
        os.unlink(self.path)
        return TileBatch(self.index, table, self.summary)


def received(result: TileBatch | _Spooled) -> TileBatch:
    """A worker's result as a batch: as it came, or mapped from the spool."""
    return result.batch() if isinstance(result, _Spooled) else result


__all__ = ["TileBatch", "check_workers", "default_workers", "frozen_heap", "hand_over",
           "in_tile_order", "local_batches", "received", "spool_batch", "tile_batch"]

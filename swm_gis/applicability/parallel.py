"""The local engine on every core: tiles classified in worker processes, one streaming writer.

Each worker process reads, classifies and encodes its tiles (:func:`tile_batch`: an Arrow table
of the output columns with WKB geometry, and the tile's summary); the parent process receives the
tables **in tile order** and streams them into the GeoPackage through one
:func:`pyogrio.write_arrow` call (:func:`swm_gis.applicability.write.write_batches`), so GDAL
keeps the layer open for the whole run and builds the spatial index once, in bulk, at the end.
The writer does little more than copy buffers: the work of building the rows, encoding
geometries and summing the summary is done by the workers.

The workers never start from the parent. On Linux they are forked from a **fork server**
(:mod:`multiprocessing`'s ``forkserver``: a fresh interpreter, started by fork and exec, that
imported the workers' modules once and does no GDAL, PROJ or SQLite work; its only other
thread is numpy's idle BLAS pool, which handles forks itself), so no worker inherits a lock
another thread of the parent held at the moment of a fork (a worker forked from the parent once
hung in PROJ's at-fork handler, on SQLite's mutex held by a GDAL thread). The server is
started once per process (early: :mod:`~swm_gis.applicability.pool_start`) and serves every
later job. The prepared reference layers reach the workers through a file written once in a
private temporary folder (:func:`share_overlays`: pickle protocol 5, its large arrays, such as a
:class:`~swm_gis.terrain.catchments.DrainageGrid`'s, written beside it and mapped read-only by
every worker, so the workers share their pages instead of each holding a copy); the folder goes
at the end of the run, after an error or an interruption too. Elsewhere (macOS, Windows), or
where the server cannot start, the workers are spawned, from the same file.

A town of one tile (besides the tile of its duplicate ids) is classified in the calling process:
starting workers would cost more than they save (:func:`in_process`). A bounded window of tiles is
in flight (two per worker), so finished tiles waiting for the writer hold a bounded amount of
memory. One worker runs the same functions in the calling process: the output of ``workers=1``
and ``workers=N`` is the same file, row for row (rows in tile order, within a tile in the parcels
source's order).

Python code given to the workers (the task, this module's functions) is imported by them, not
inherited: a script that calls the engine with several workers needs the usual
``if __name__ == "__main__":`` guard (multiprocessing imports the script in each worker).
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import os
import signal
import threading
import uuid
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from swm_gis.applicability import overlay_cache
from swm_gis.applicability.classify import summarise
from swm_gis.applicability.overlays import Overlays
from swm_gis.applicability.pool_start import (
    KeptWorkers,
    available_cores,
    drop_workers,
    end_with_parent,
    hold_workers,
    keeping_workers,
    kept_workers,
    private_folder,
    start_workers,
)
from swm_gis.applicability.shared_file import load_overlays, off_the_main_arena, write_shared
from swm_gis.applicability.tiles import Tile, classify_tile_read
from swm_gis.applicability.write import to_batch
from swm_gis.config.town import TownConfig
from swm_gis.errors import ConfigError
from swm_gis.io import source_cache
from swm_gis.io.layers import run_cache, run_descriptions


@dataclass
class TileBatch:
    """One classified tile: its rows as an Arrow table and its summary part."""

    index: int
    table: Any  # pyarrow.Table
    summary: pd.DataFrame
    #: geometries the tile's read repaired (none in every tile: the parcels are all valid)
    repaired: int = 0

    def __len__(self) -> int:
        return self.table.num_rows


def tile_batch(config: TownConfig, tile: Tile, overlays: Overlays) -> TileBatch:
    """Read, classify and encode one tile (what every worker runs, and ``workers=1`` too)."""
    result, read = classify_tile_read(config, tile, overlays)
    return TileBatch(tile.index, to_batch(result, source_wkb=read.wkb), summarise(result),
                     read.repaired)


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


def in_process(tiles: list[Tile], workers: int) -> bool:
    """True when the tiles run in this process: one worker asked for, or a town of one tile
    (besides the last tile, of parcel ids on several polygons), where starting workers would
    cost more than they save. The output is the same file either way."""
    return workers <= 1 or sum(1 for t in tiles if t.ids is None) <= 1


def local_batches(config: TownConfig, tiles: list[Tile], overlays: Overlays, *,
                  workers: int) -> Iterator[TileBatch]:
    """The tiles' batches in tile order, from ``workers`` processes (or this one:
    :func:`in_process`)."""
    workers = min(workers, len(tiles))
    if in_process(tiles, workers):
        with frozen_heap():
            for tile in tiles:
                yield tile_batch(config, tile, overlays)
        return
    kept = _kept_pool(workers, overlays) if keeping_workers() else None
    if kept is not None:
        yield from _kept_batches(kept, config, tiles, overlays, workers=workers)
        return
    with _pool(workers, overlays) as pool:

        def submit(tile: Tile) -> Any:
            # a submit may start a worker: an interrupt in the middle would leave a process the
            # pool does not know, waiting for ever on its queue (or, its parent gone, printing
            # a traceback); held until the worker is the pool's
            with signals_held():
                return pool.submit(_worker_batch, config, tile)

        yield from in_tile_order(submit, tiles, window=2 * workers)


# --------------------------------------------------------------------------- kept workers
@dataclass
class _Job:
    """What a kept worker takes from each job (:func:`_take_job`): what a worker of its own
    would have been started with, but the overlays the pool holds (an entry's)."""

    token: str
    environ: dict[str, str]
    sources: Path | None
    described: dict[tuple[str, str | None], dict[str, Any]] | None
    per_run: dict[str, Any]  # the overlays' own fields of the job (overlay_cache.PER_RUN)


def _kept_pool(workers: int, overlays: Overlays) -> KeptWorkers | None:
    """The workers to keep for this job (:func:`~swm_gis.applicability.pool_start.
    keep_workers`): the kept ones when they hold the same overlay cache entry (the same
    number of them), else new ones holding it. None (workers of the job's own) when the
    overlays are not an entry's, the workers would be spawned, or no private folder can be
    made."""
    entry = overlay_cache.entry_of(overlays)
    if entry is None or not start_workers():
        return None
    key = (workers, entry)
    kept = kept_workers(key)
    if kept is not None:
        return kept
    try:
        folder = private_folder()
    except OSError:
        return None
    shared = overlay_cache.shareable(overlays, folder.name)
    if not isinstance(shared, overlay_cache.FromEntry):  # the entry changed meanwhile
        folder.cleanup()
        return None
    pool = _executor(workers, "forkserver", overlay_cache.FromEntry(shared.base, {}),
                     folder.name)
    return KeptWorkers(key, pool, folder)


def _kept_batches(kept: KeptWorkers, config: TownConfig, tiles: list[Tile],
                  overlays: Overlays, *, workers: int) -> Iterator[TileBatch]:
    """:func:`local_batches` on kept workers: the job's own state in a file of their folder
    (each worker takes it with its first tile of the job), the workers kept when the job ends
    well and stopped otherwise (an error, an interrupt, a caller that stops early)."""
    job = _Job(uuid.uuid4().hex, dict(os.environ), source_cache.current_folder(),
               run_descriptions(), overlay_cache.per_run(overlays))
    base = Path(kept.folder.name) / f"job-{job.token}"
    done = False
    try:
        given: _Job | str = str(base) if write_shared(job, base) else job
        with frozen_heap():

            def submit(tile: Tile) -> Any:
                with signals_held():  # see local_batches
                    return kept.pool.submit(_kept_batch, given, config, tile)

            yield from in_tile_order(submit, tiles, window=2 * workers)
        done = True
    finally:
        for ext in ("pickle", "arrays"):  # the workers map what they loaded: still theirs
            with contextlib.suppress(OSError):
                os.unlink(f"{base}.{ext}")
        if done:
            hold_workers(kept)
        else:
            drop_workers(kept)


@contextmanager
def signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM noted, not acted on, within the block, and delivered again (to the
    handlers of before: an interrupt, as usual) at its end. Only the main thread, where Python
    runs its signal handlers, has any to hold."""
    sigs = (signal.SIGINT, signal.SIGTERM)
    if threading.current_thread() is not threading.main_thread() or any(
            signal.getsignal(s) is None for s in sigs):  # a handler not set from Python
        yield
        return
    noted: list[int] = []
    previous = {s: signal.signal(s, lambda signum, frame: noted.append(signum)) for s in sigs}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        for s in dict.fromkeys(noted):
            signal.raise_signal(s)


@contextmanager
def _pool(workers: int, overlays: Overlays) -> Iterator[ProcessPoolExecutor]:
    """``workers`` worker processes holding ``overlays`` (:func:`share_overlays`).

    A worker hands each table over as an Arrow file in the run's private temporary folder (the
    spool), which the parent maps and deletes: the worker goes on to its next tile at once
    instead of waiting, tile after tile, for the parent to drain megabytes through the pool's
    one result pipe while its writer is busy (measured: 15-100 ms of idle worker per tile).
    Spawned workers (macOS, Windows, where a mapped file cannot always be deleted) return their
    tables through the pipe. The workers ignore SIGINT (a Ctrl-C reaches the whole process
    group): the parent stops the job, and the pool with it (the tiles already running finish;
    the others are cancelled).
    """
    method = "forkserver" if start_workers() else "spawn"
    with _spool() as folder, frozen_heap():
        shared = share_overlays(overlays, folder)
        pool = _executor(workers, method, shared, folder if method == "forkserver" else None)
        try:
            yield pool
        finally:
            # cancel_futures: the pool drops the tiles cancelled before they reached a worker
            # itself. Without it, Python 3.11.2's shutdown (Debian 12's) can wait for ever when
            # only such tiles are left (CPython gh-94440, fixed in later releases): it hung a
            # test run after a tile's error
            pool.shutdown(wait=True, cancel_futures=True)


def _executor(workers: int, method: str, shared: Any, spool: str | None
              ) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes started by ``method``, each set up by
    :func:`_init_worker` with ``shared`` overlays, the ``spool`` folder and this process's
    environment, source cache folder and run's descriptions of its sources."""
    # held while the pool makes its queues: a signal between a semaphore's registration with
    # multiprocessing's resource tracker and its finalizer left the tracker printing "leaked
    # semaphore objects" beneath the one line of an interrupted run
    with signals_held():
        return ProcessPoolExecutor(max_workers=workers, mp_context=get_context(method),
                                   initializer=_init_worker,
                                   initargs=(shared, spool, dict(os.environ),
                                             source_cache.current_folder(),
                                             run_descriptions()))


@contextmanager
def _spool() -> Iterator[str | None]:
    """A private temporary folder for the run (the overlays' file, the workers' tables),
    removed at the end; None (everything through the pipe) where the temporary folder cannot
    be written."""
    try:
        folder = private_folder()
    except OSError:
        yield None
        return
    with folder as path:
        yield path


def share_overlays(overlays: Overlays | Any, folder: str | None) -> Overlays | str:
    """What the workers load the overlays from (:func:`load_overlays`): a file in ``folder``
    (pickle protocol 5; arrays of
    :data:`~swm_gis.applicability.shared_file.SHARED_ARRAY_MIN_BYTES` or more written beside it, to
    be mapped read-only), or the overlays themselves (pickled into each worker's start-up)
    where ``folder`` is None or cannot be written. Overlays loaded from the overlay cache are
    not pickled again: the file names the cache's entry (:func:`overlay_cache.shareable`)."""
    if folder is None:
        return overlays
    base = Path(folder) / "overlays"
    return str(base) if write_shared(overlay_cache.shareable(overlays, folder), base) \
        else overlays


@contextmanager
def frozen_heap() -> Iterator[None]:
    """The objects alive now (the prepared overlays, the libraries) move to the garbage
    collector's permanent generation while the tiles run: the collector stops walking them at
    each full collection, and workers forked from this process (the Dask local cluster's) stop
    touching, and so copying, every page they share with it. Released at the end."""
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


_OVERLAYS: Overlays | None = None  # a worker's overlays (:func:`_init_worker`)
_SPOOL: str | None = None  # a worker's folder for finished tables
_RUN: Any = None  # a worker's descriptions of its sources, kept for its job (io.run_cache)
_BASE: Overlays | None = None  # a worker's overlays as loaded at its start (kept workers)
_JOB_AT: str | None = None  # the job a kept worker is set up for (_take_job)


def _init_worker(shared: Overlays | str, spool: str | None, environ: dict[str, str],
                 sources: Path | None = None,
                 described: dict[tuple[str, str | None], dict[str, Any]] | None = None) -> None:
    """A worker's start: the parent's environment as it is now (the fork server's is the one
    it started with), SIGINT left to the parent, ended with the fork server (so with the
    engine: :func:`~swm_gis.applicability.pool_start.end_with_parent`), the job's source cache
    (``sources``: its folder, or None when off), each source described once (``described``:
    what the parent's run had described, not asked of GDAL again), the overlays loaded and
    moved out of the garbage collector's sight (:func:`frozen_heap`)."""
    global _OVERLAYS, _SPOOL, _BASE
    gc.freeze()  # the libraries the fork server imported: never walked, so never copied, here
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    end_with_parent()
    _run_state(environ, sources, described)
    _OVERLAYS, _SPOOL = off_the_main_arena(_loaded, shared), spool
    _BASE = _OVERLAYS
    gc.freeze()  # and the overlays


def _kept_batch(job: _Job | str, config: TownConfig, tile: Tile) -> TileBatch | _Spooled:
    """A kept worker's task: the tile, once the worker holds its job's state."""
    _take_job(job)
    return _worker_batch(config, tile)


def _take_job(job: _Job | str) -> None:
    """Set a kept worker up for ``job`` (or its file), unless it is the one it runs: the job's
    environment, source cache and descriptions (a new run: nothing described for an earlier
    job is trusted), and the pool's overlays with the job's own fields."""
    global _OVERLAYS, _JOB_AT
    at = job if isinstance(job, str) else job.token
    if at == _JOB_AT:
        return
    state: _Job = load_overlays(job)
    _run_state(state.environ, state.sources, state.described)
    _OVERLAYS = dataclasses.replace(_BASE, **state.per_run)
    _JOB_AT = at


def _run_state(environ: dict[str, str], sources: Path | None,
               described: dict[tuple[str, str | None], dict[str, Any]] | None) -> None:
    """A worker's state of the run it works for: the parent's environment as it is now (the
    fork server's is the one it started with), the run's source cache folder (None: off;
    tiles of a shapefile or GeoJSON are parsed once, then read by box) and its descriptions of
    the sources (a new run cache: nothing described for another run is kept)."""
    global _RUN
    if os.environ != environ:
        os.environ.clear()
        os.environ.update(environ)
    source_cache.use_folder(sources)
    if _RUN is not None:
        _RUN.__exit__(None, None, None)
    _RUN = run_cache(described)
    _RUN.__enter__()


def _loaded(shared: Overlays | str) -> Overlays:
    """A worker's overlays: as shared, or the cache's entry with the run's own fields."""
    return overlay_cache.resolve(load_overlays(shared))


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
    return _Spooled(batch.index, str(path), batch.summary, batch.repaired)


@dataclass
class _Spooled:
    """A tile's batch left in the spool by a worker: its Arrow file and summary."""

    index: int
    path: str
    summary: pd.DataFrame
    repaired: int = 0

    def batch(self) -> TileBatch:
        """The batch, mapped from its file (no copy); the file is deleted at once (the mapping
        lives on with the table)."""
        with pa.memory_map(self.path) as source:
            table = pa.ipc.open_file(source).read_all()
        os.unlink(self.path)
        return TileBatch(self.index, table, self.summary, self.repaired)


def received(result: TileBatch | _Spooled) -> TileBatch:
    """A worker's result as a batch: as it came, or mapped from the spool."""
    return result.batch() if isinstance(result, _Spooled) else result


__all__ = ["TileBatch", "check_workers", "default_workers", "frozen_heap",
           "hand_over", "in_process", "in_tile_order", "load_overlays", "local_batches",
           "received", "share_overlays", "spool_batch", "signals_held", "tile_batch"]

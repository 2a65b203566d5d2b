"""Starting the town-wide map's worker processes, early: the fork server and when it is needed.

Light on purpose (the standard library; a GeoPackage's own count read with SQLite, else GDAL's
or the source cache's description of the parcels): a front end calls :func:`start_early` before
it imports the engine, so the fork server's start-up (a fresh interpreter importing
:data:`WORKER_MODULES`, about 0.7 s) runs on another core while this process imports its own
libraries, instead of after them, while the job's first tiles wait. Measured on the
200,000-parcel benchmark town with two workers, ``main()`` in a fresh process: 3.38-3.42 s
started by the job, 3.21-3.30 s started by the command (benchmarks/README); the command whole,
3.70-4.25 s with the count asked of GDAL (the server started 0.5-0.8 s in, after pyogrio's
import), 3.37-3.76 s with the GeoPackage's own count (started 0.2 s in).

A warm engine (``swm-gis serve``) keeps the workers between jobs (:func:`keep_workers`): a
later map of the same prepared overlays starts no process, loads nothing and runs on workers
whose memory is already theirs (:class:`KeptWorkers`, used by
:mod:`~swm_gis.applicability.parallel`). Workers end with their engine however it ends
(:func:`end_with_parent`), and the private folder a killed engine leaves is removed by a later
run (:func:`private_folder`, :func:`sweep_stale_folders`).

Whether a job needs workers is :func:`several_tiles` (the rule :func:`~swm_gis.applicability.
tiles.make_tiles` applies) on a parcel count known without reading the parcels; a guess that
starts a server the job then does not use costs an idle process, never an answer.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import signal
import site
import sys
import tempfile
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from multiprocessing import forkserver, get_all_start_methods, get_context, resource_tracker
from pathlib import Path
from typing import Any

#: Modules a worker needs, imported once by the fork server before it forks any worker (the
#: tiles' own lazy imports included: the abutters rule names right-of-way parcels).
WORKER_MODULES = ("swm_gis.applicability.parallel", "swm_gis.rules.abutters")


def available_cores() -> int:
    """The cores this process may use (its CPU affinity)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def several_tiles(count: int, chunk_size: int) -> bool:
    """True when a town of ``count`` parcels (-1: not known) is cut into more than one tile of
    about ``chunk_size`` parcels (given its extent).

    >>> several_tiles(20_001, 20_000), several_tiles(20_000, 20_000), several_tiles(-1, 100)
    (True, False, False)
    """
    return count >= 0 and count > chunk_size


def start_method() -> str:
    """How worker processes start: ``forkserver`` on Linux, ``spawn`` elsewhere (macOS, where
    forking a process that has loaded system frameworks is unsafe, and Windows)."""
    if sys.platform.startswith("linux") and "forkserver" in get_all_start_methods():
        return "forkserver"
    return "spawn"


def start_workers() -> bool:
    """Start the fork server now, if it is not running, so that its start-up (an interpreter
    importing :data:`WORKER_MODULES`, about half a second of CPU) overlaps other work; the
    first worker otherwise waits for it. Once per process: later jobs find it running.
    False where there is none (macOS, Windows) or it cannot start (no temporary folder to hold
    its socket): the workers are then spawned."""
    if start_method() != "forkserver":
        return False
    get_context("forkserver").set_forkserver_preload(list(WORKER_MODULES))
    try:
        # multiprocessing's resource tracker first, as the server's start would start it:
        # starting, it *unblocks* SIGINT (it does not restore the mask), which undid the block
        # below, and a Ctrl-C while the server imported the engine printed its traceback
        resource_tracker.ensure_running()
        # the server is started with SIGINT blocked, which it keeps while it imports the
        # engine (then it ignores SIGINT, and so do the workers it forks): a Ctrl-C (sent to
        # the whole process group) is the parent's to act on, never the server's traceback;
        # here it waits, not lost, until the server is started
        before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            with _this_engine_first():
                forkserver.ensure_running()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, before)
    except OSError:
        return False
    return True


def end_with_parent() -> bool:
    """Have Linux end this process (a worker: SIGTERM) when its parent, the fork server, ends,
    and let go of the engine's end of the pipe by which the fork server knows the engine is
    alive (multiprocessing hands each worker a copy): the fork server then ends with the
    engine, however the engine ends, and its workers with it. Without both, the workers of an
    engine killed outright (``kill -9``, the out-of-memory killer, a front end stopping a hung
    engine) waited for ever for tiles that never came, holding their memory, and kept the fork
    server waiting for them. False where this cannot be asked (not Linux)."""
    if not sys.platform.startswith("linux"):
        return False
    server = getattr(forkserver, "_forkserver", None)
    fd = getattr(server, "_forkserver_alive_fd", None)
    if isinstance(fd, int) and server is not None:
        with suppress(OSError):
            os.close(fd)
        server._forkserver_alive_fd = None
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


_PR_SET_PDEATHSIG = 1  # linux/prctl.h


# --------------------------------------------------------------------------- private folders
#: How the private temporary folders of a map's workers are named (the overlays' file, the
#: tiles' tables, a kept pool's job files).
FOLDER_PREFIX = "swm-tiles-"
_OWNER = "owner"  # in each folder: the process that made it (:func:`_started`)


def private_folder() -> tempfile.TemporaryDirectory[str]:
    """A private temporary folder for a map's workers, removed by its owner at the end of the
    run (or of its kept workers), and naming its owner (pid, start time) so that a later
    run removes it where the owner was killed before it could (:func:`sweep_stale_folders`).
    OSError where the temporary folder cannot be written."""
    sweep_stale_folders()
    folder = tempfile.TemporaryDirectory(prefix=FOLDER_PREFIX)
    me = _started(os.getpid())
    if me is not None:
        with suppress(OSError):
            Path(folder.name, _OWNER).write_text(me, encoding="ascii")
    return folder


def sweep_stale_folders(root: str | None = None) -> int:
    """Remove the private folders (:func:`private_folder`) of this user whose owner is no
    longer running (killed outright: ``kill -9``, the out-of-memory killer), which nothing
    else would remove: each can hold links to a prepared-overlays entry of tens of megabytes.
    A folder whose owner cannot be told (none written, another user's) is left. Returns how
    many were removed."""
    if _started(os.getpid()) is None:  # no /proc: owners cannot be told apart
        return 0
    removed, here = 0, f" {_pid_space()}"
    for path in Path(root or tempfile.gettempdir()).glob(FOLDER_PREFIX + "*"):
        try:
            if path.stat().st_uid != os.getuid():
                continue
            owner = (path / _OWNER).read_text(encoding="ascii")
        except OSError:
            continue
        pid, _, rest = owner.partition(" ")
        if not pid.isdigit() or not rest.endswith(here):
            continue  # a process this one cannot see (another container's pids) or no owner
        if _started(int(pid)) != owner:  # ended, or its pid given to a later process
            shutil.rmtree(path, ignore_errors=True)
            removed += not path.exists()
    return removed


def _started(pid: int) -> str | None:
    """``"<pid> <start time> <pid namespace>"`` of a running process seen from this one (its
    start in clock ticks since boot tells it from a later process given the same pid); None
    when it does not run or this cannot be read (not Linux)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    if fields[0] == "Z":  # ended, not yet waited for
        return None
    return f"{pid} {fields[19]} {_pid_space()}"  # field 22 of proc(5): starttime


@functools.cache
def _pid_space() -> str:
    """This process's pid namespace (pids name processes only within one; it never changes)."""
    try:
        return os.readlink("/proc/self/ns/pid").replace(" ", "_")
    except OSError:
        return "?"


# --------------------------------------------------------------------------- kept workers
#: Seconds a warm engine keeps idle workers (:func:`keep_workers`) when not told otherwise.
KEEP_IDLE_S = 120.0


@dataclass
class KeptWorkers:
    """A process pool kept between jobs (:func:`keep_workers`), with its private folder and
    what it was started for (``key``: a later job with the same key uses it)."""

    key: Any
    pool: Any  # concurrent.futures.ProcessPoolExecutor
    folder: Any  # tempfile.TemporaryDirectory: the workers' overlays and the jobs' files
    used: float = field(default_factory=time.monotonic)  # when its last job ended

    def healthy(self) -> bool:
        """False when a worker has died (killed between jobs: the pool is broken, and a job
        given to it would fail)."""
        if getattr(self.pool, "_broken", False):
            return False
        return all(p.is_alive() for p in dict(getattr(self.pool, "_processes", None) or {}
                                              ).values())

    def close(self) -> None:
        """Stop the workers (a tile running finishes; queued ones are dropped) and remove the
        folder."""
        try:
            self.pool.shutdown(wait=True, cancel_futures=True)
        finally:
            self.folder.cleanup()


_KEEP_IDLE: float | None = None  # None: workers end with their job (the default)
_KEPT: KeptWorkers | None = None


def keep_workers(idle_s: float | None = KEEP_IDLE_S) -> None:
    """From now on, the town-wide map's workers outlive a job that ends well, for the next job
    of this process on the same prepared overlays (:mod:`~swm_gis.applicability.parallel`):
    a warm engine's (``swm-gis serve``'s) next map starts no process and loads nothing, and
    its workers reuse the memory they already have. Kept at most ``idle_s`` seconds without a
    job (:func:`release_idle_workers`); None turns keeping off and stops any kept workers."""
    global _KEEP_IDLE
    if idle_s is None:
        release_workers()
    elif _KEEP_IDLE is None:
        atexit.register(release_workers)
    _KEEP_IDLE = idle_s


def keeping_workers() -> bool:
    """True when workers outlive their job (:func:`keep_workers`)."""
    return _KEEP_IDLE is not None


def kept_workers(key: Any) -> KeptWorkers | None:
    """The kept workers when they were started for ``key`` and are all alive; any others are
    stopped."""
    if _KEPT is not None and (_KEPT.key != key or not _KEPT.healthy()):
        release_workers()
    return _KEPT


def hold_workers(kept: KeptWorkers) -> None:
    """Keep ``kept`` (their job ended well) for the next job, stopping any others; stop them
    too when keeping was turned off meanwhile."""
    global _KEPT
    if _KEPT is not None and _KEPT is not kept:
        release_workers()
    if _KEEP_IDLE is None:
        drop_workers(kept)
        return
    kept.used = time.monotonic()
    _KEPT = kept


def drop_workers(kept: KeptWorkers) -> None:
    """Stop ``kept`` (their job failed or was interrupted), kept or not."""
    global _KEPT
    if _KEPT is kept:
        _KEPT = None
    kept.close()


def release_workers() -> None:
    """Stop the kept workers, if any, and remove their folder."""
    if _KEPT is not None:
        drop_workers(_KEPT)


def release_idle_workers(now: float | None = None) -> bool:
    """Stop the kept workers when idle for longer than :func:`keep_workers` allows; True when
    they were stopped. A warm engine calls it while it waits for a job."""
    if _KEPT is None or _KEEP_IDLE is None:
        return False
    if (time.monotonic() if now is None else now) - _KEPT.used <= _KEEP_IDLE:
        return False
    release_workers()
    return True


def package_folder() -> str:
    """The folder this process's ``swm_gis`` was imported from (the workers report theirs)."""
    return os.path.dirname(os.path.dirname(os.path.realpath(__file__)))  # swm_gis/applicability


@contextmanager
def _this_engine_first() -> Iterator[None]:
    """The environment the fork server starts in: this process's ``swm_gis``, from any folder.

    Python 3.11's server is ``python -c``, which puts the current folder first on its
    ``sys.path``, and it does not take this process's path (it is handed over, then ignored):
    started from a folder holding another ``swm_gis`` (a checkout of another version), its
    workers ran that one's tiles, while this process ran its own. So the server starts with
    ``PYTHONSAFEPATH`` (no current folder) and, unless this process's engine comes from a
    site-packages folder the server finds anyway, that engine's folder first on
    ``PYTHONPATH``. The variables are this process's again once the server has started."""
    root = os.path.dirname(package_folder())
    sites = {os.path.realpath(p) for p in [*site.getsitepackages(), site.getusersitepackages()]}
    saved = {name: os.environ.get(name) for name in ("PYTHONSAFEPATH", "PYTHONPATH")}
    os.environ["PYTHONSAFEPATH"] = "1"
    if os.path.realpath(root) not in sites:
        os.environ["PYTHONPATH"] = os.pathsep.join(
            p for p in (root, saved["PYTHONPATH"]) if p)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def start_early(config: Any, *, workers: int | None, chunk_size: int) -> bool:
    """Start the fork server now when the local engine's job on ``config`` will use workers:
    more than one asked for (None: every core) and a parcel count of :func:`several_tiles`,
    known without parsing the layer (:func:`_cheap_parcel_count`: a GeoPackage's own count, a
    fresh source cache entry's). Anything else (a GeoJSON not cached yet, a PostGIS table, a
    layer of several sources) leaves the start to the job, as before.
    Never raises: the job reports any problem with the parcels. True when the server runs."""
    if (available_cores() if workers is None else workers) <= 1 \
            or start_method() != "forkserver":
        return False
    try:
        count = _cheap_parcel_count(config)
    except Exception:  # noqa: BLE001 - a guess; the job reads the layer and says what is wrong
        return False
    return count is not None and several_tiles(count, chunk_size) and start_workers()


#: File formats whose layer GDAL describes from a header or a table, without reading the
#: features: their parcel count is asked of GDAL; any other file's comes from the source cache.
DESCRIBED_CHEAPLY = (".gpkg", ".fgb", ".gdb")


def _cheap_parcel_count(config: Any) -> int | None:
    """The parcels' feature count when it costs no parse of the layer: a GeoPackage's own
    (:func:`gpkg_feature_count`, without importing GDAL), a fresh source cache entry's, or
    GDAL's for :data:`DESCRIBED_CHEAPLY`; None otherwise."""
    spec = config.layer("parcels")
    if spec.parts or not spec.is_file:
        return None
    if spec.path.lower().endswith(".gpkg"):
        count = gpkg_feature_count(spec.path, spec.layer)
        if count is not None:
            return count
    from swm_gis.io import source_cache
    from swm_gis.io.sources import gdal_source

    path, layer = gdal_source(spec)
    with source_cache.using(config):
        info = source_cache.info(spec, path, layer)
    if info is None and path.lower().rstrip("/").endswith(DESCRIBED_CHEAPLY):
        import pyogrio

        with warnings.catch_warnings():  # silent: the job reads the layer and says its piece
            warnings.simplefilter("ignore")
            info = pyogrio.read_info(path, layer=layer)
    features = None if info is None else info.get("features")
    return None if features is None else int(features)


def gpkg_feature_count(path: str, layer: str | None) -> int | None:
    """A GeoPackage layer's feature count as GDAL keeps it (table ``gpkg_ogr_contents``, kept
    by triggers as rows come and go), read with the standard library's SQLite, read-only: GDAL's
    own count without importing GDAL (pyogrio imports geopandas: about 0.4 s, before which the
    server could not start). ``layer`` None: the file's one features table. None where the
    count is not kept (another writer, the table or triggers dropped), the layer is not found
    or is not the only one, or the file is not a readable SQLite database.

    A count gone stale (triggers dropped, rows written by another program) only misguides the
    early start (an idle server, or a start left to the job), never an answer.
    """
    import sqlite3
    from contextlib import closing
    from pathlib import Path

    try:
        uri = Path(path).resolve(strict=True).as_uri() + "?mode=ro"
        with closing(sqlite3.connect(uri, uri=True)) as db:
            rows = db.execute(
                "SELECT c.table_name, o.feature_count FROM gpkg_contents AS c "
                "JOIN gpkg_ogr_contents AS o ON lower(o.table_name) = lower(c.table_name) "
                "WHERE c.data_type = 'features'").fetchall()
    except (OSError, sqlite3.Error):
        return None
    if layer is not None:
        rows = [r for r in rows if r[0].lower() == layer.lower()]
    if len(rows) != 1 or not isinstance(rows[0][1], int) or rows[0][1] < 0:
        return None
    return rows[0][1]


__all__ = ["FOLDER_PREFIX", "KEEP_IDLE_S", "WORKER_MODULES", "KeptWorkers", "available_cores",
           "drop_workers", "end_with_parent", "gpkg_feature_count",
           "hold_workers", "keep_workers", "keeping_workers", "kept_workers", "package_folder",
           "private_folder", "release_idle_workers", "release_workers", "several_tiles",
           "start_early", "start_method", "start_workers", "sweep_stale_folders"]

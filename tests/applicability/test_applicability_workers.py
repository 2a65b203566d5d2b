"""The town-wide map's worker processes (swm_gis.applicability.parallel): started from a clean
process, never forked from the job's; the prepared layers shared through one file that goes at
the end; a town of one tile classified in process; interrupted cleanly while the workers run.

Correctness only: timings live in benchmarks/bench_applicability.py."""

from __future__ import annotations

import faulthandler
import hashlib
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
import shapely
from support import workerkit
from support.hostile import leftovers, run, sample_copy
from support.townkit import SAMPLE_CONFIG

import swm_gis.applicability.parallel as par
from swm_gis.applicability import pool_start
from swm_gis.applicability import run as ap
from swm_gis.applicability.overlays import Overlays
from swm_gis.applicability.tiles import Tile, make_tiles
from swm_gis.config.town import load_config
from swm_gis.terrain.catchments import DrainageGrid

REPO = Path(__file__).resolve().parents[2]


@contextmanager
def _fails_rather_than_hangs(seconds: float):
    """A hung worker would hang the test run: after ``seconds`` the process prints every
    thread's stack and exits (a failure), instead."""
    faulthandler.dump_traceback_later(seconds, exit=True)
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()


@contextmanager
def _busy_parent():
    """The parent as it was when a forked worker hung: a thread holding a lock, and a thread
    inside SQLite (the library PROJ and GDAL use), allocating and freeing, for the whole block.
    """
    stop = threading.Event()
    held = threading.Event()

    def hold():
        with workerkit.PARENT_LOCK:
            held.set()
            stop.wait()

    def query():
        con = sqlite3.connect(":memory:", check_same_thread=False)
        while not stop.is_set():  # each query is short, so the thread sees stop soon
            con.execute("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c "
                        "WHERE x < 20000) SELECT max(length(printf('%08d', x))) FROM c"
                        ).fetchone()
        con.close()

    threads = [threading.Thread(target=hold), threading.Thread(target=query)]
    for t in threads:
        t.start()
    held.wait()
    try:
        yield
    finally:
        stop.set()
        for t in threads:
            t.join()


def _sample_overlays() -> Overlays:
    cfg = load_config(SAMPLE_CONFIG)
    return ap.plan_tiles(cfg, chunk_size=1_000)[1]


def test_workers_inherit_no_thread_lock_or_state_of_the_parent():
    """Each worker comes from the fork server: its parent is not this process, a lock a thread
    of this process holds is free in it (a worker forked from here would find it held: the
    probe waits 5 s for it, then says so), and it holds the overlays it loaded from the file."""
    overlays = _sample_overlays()
    with _busy_parent(), _fails_rather_than_hangs(120), par._pool(2, overlays) as pool:
        assert not workerkit.PARENT_LOCK.acquire(blocking=False)  # held here, in the parent
        probes = [f.result() for f in [pool.submit(workerkit.probe) for _ in range(4)]]
    assert pool_start.start_method() == "forkserver"
    assert all(p["lock_free"] and p["overlays"] for p in probes), probes
    assert all(p["ppid"] != os.getpid() and p["pid"] != os.getpid() for p in probes), probes
    # forked from one process (the fork server), which is not this one
    assert len({p["ppid"] for p in probes}) == 1


def test_workers_start_with_the_run_s_descriptions():
    """A worker starts with the sources its parent's run had described (the parcels here),
    not asking GDAL again; outside a run it starts with none."""
    from swm_gis.io.layers import layer_info, run_cache

    cfg = load_config(SAMPLE_CONFIG)
    overlays = _sample_overlays()
    with run_cache():
        layer_info(cfg.layer("parcels"))
        with _fails_rather_than_hangs(120), par._pool(2, overlays) as pool:
            probes = [f.result() for f in [pool.submit(workerkit.probe) for _ in range(4)]]
    parcels = (str(SAMPLE_CONFIG.parent / "sample.gpkg"), "parcels")
    assert all(p["described"] == [parcels] for p in probes), probes
    with _fails_rather_than_hangs(120), par._pool(2, overlays) as pool:
        assert pool.submit(workerkit.probe).result()["described"] == []


def test_a_two_worker_map_beside_a_thread_in_sqlite_finishes_with_the_same_file(tmp_path):
    """The hang's circumstances (a parent thread inside SQLite, another holding a lock, while
    the workers start): the map finishes, and is the file one worker writes."""
    cfg = load_config(SAMPLE_CONFIG)
    one = ap.run_applicability(cfg, tmp_path / "one.gpkg", workers=1, chunk_size=1_000)
    with _busy_parent(), _fails_rather_than_hangs(300):
        two = ap.run_applicability(cfg, tmp_path / "two.gpkg", workers=2, chunk_size=1_000)
    assert two.tiles == one.tiles >= 3 and two.parcels == one.parcels == 3_167
    a, b = ap.read_result(one.path), ap.read_result(two.path)
    assert a.drop(columns="geometry").equals(b.drop(columns="geometry"))
    assert a.geometry.geom_equals_exact(b.geometry, 0).all()


def test_overlays_travel_in_one_file_with_large_arrays_mapped_read_only(tmp_path):
    """A 300 x 300 int32 label grid is 300 * 300 * 4 = 360,000 bytes, past the 65,536-byte
    threshold: it goes to the arrays file (offset 0, so 360,000 bytes exactly) and comes back as
    a read-only view of the mapped file; the 3 x 2 bool flags (6 bytes) stay in the pickle."""
    labels = np.arange(300 * 300, dtype=np.int32).reshape(300, 300) % 7 - 1
    flags = np.array([[True, False], [False, True], [True, True]])
    grid = DrainageGrid(labels=labels, node_flags=flags, cause_names=("Mercury",),
                        transform=(1.0, 0.0, 0.0, 0.0, -1.0, 0.0))
    flood = shapely.box(0, 0, 100, 100)
    import geopandas as gpd

    overlays = Overlays.build(drainage=grid, flood_zones=gpd.GeoDataFrame(
        {"zone": ["AE"], "sfha": [None]}, geometry=[flood], crs="EPSG:26986"))
    shared = par.share_overlays(overlays, str(tmp_path))
    assert shared == str(tmp_path / "overlays")
    assert (tmp_path / "overlays.arrays").stat().st_size == 360_000
    back = par.load_overlays(shared)
    assert np.array_equal(back.drainage.labels, labels)
    assert not back.drainage.labels.flags.writeable and not back.drainage.labels.flags.owndata
    assert np.array_equal(back.drainage.node_flags, flags)
    assert back.drainage.node_flags.flags.writeable  # small: a copy from inside the pickle
    assert shapely.equals(shapely.union_all(back.sfha.geoms), flood)
    # no folder (the temporary folder cannot be written): the overlays themselves
    assert par.share_overlays(overlays, None) is overlays
    assert par.load_overlays(overlays) is overlays


def test_the_overlays_file_is_gone_after_the_run_and_after_an_error(tmp_path, monkeypatch):
    """The run's private folder (the overlays' file, the spool) is gone after a run and after a
    tile's error. The fork server is started first: multiprocessing makes its own folder for
    the server's socket (pymp-*) in the temporary folder once per process, when the server
    starts, and keeps it for the process's life; whether an earlier test on this pytest worker
    had started it decided whether that folder showed up here (a clean clone's run, 02:40)."""
    import tempfile

    from swm_gis.applicability.pool_start import start_workers

    start_workers()
    root = tmp_path / "tmp"
    root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    written: list[Path] = []
    real = par.share_overlays

    def share(overlays, folder):
        shared = real(overlays, folder)
        written.append(Path(f"{shared}.pickle"))
        assert written[-1].is_file() and written[-1].parent.parent == root
        return shared

    monkeypatch.setattr(par, "share_overlays", share)
    cfg = load_config(SAMPLE_CONFIG)
    ap.run_applicability(cfg, tmp_path / "a.gpkg", workers=2, chunk_size=1_000)
    monkeypatch.setattr(par, "_worker_batch", workerkit.exploding_batch)
    with pytest.raises(ValueError, match="exploded"):
        ap.run_applicability(cfg, tmp_path / "b.gpkg", workers=2, chunk_size=1_000)
    assert len(written) == 2 and not any(p.exists() for p in written)
    assert list(root.iterdir()) == [] and not (tmp_path / "b.gpkg").exists()


def test_a_town_of_one_tile_is_classified_in_process():
    """make_tiles: 3,167 parcels in chunks of 20,000 make 1 tile, in chunks of 1,000
    ceil(3,167 / 1,000) = 4 or more; the duplicate ids' last tile does not count."""
    extent = (0.0, 0.0, 1_000.0, 1_000.0)
    one = make_tiles(extent, 3_167, chunk_size=20_000)
    many = make_tiles(extent, 3_167, chunk_size=1_000)
    dup = Tile(len(one), one[0].bounds, ids=("A",))
    assert len(one) == 1 and len(many) >= 4
    assert par.in_process(one, 2) and par.in_process([*one, dup], 2)
    assert not par.in_process(many, 2) and par.in_process(many, 1)


def test_the_sample_town_in_one_tile_starts_no_worker(tmp_path, monkeypatch):
    """The sample town (3,167 parcels, one duplicated id: 2 tiles at the default chunk size)
    with 2 workers asked for starts no pool and no fork server, and writes the file one worker
    writes; the run records the workers asked for."""
    def no_pool(*args, **kwargs):
        raise AssertionError("a pool was started for a town of one tile")

    monkeypatch.setattr(par, "_pool", no_pool)
    monkeypatch.setattr(par, "start_workers", no_pool)
    monkeypatch.setattr(ap, "start_workers", no_pool)
    monkeypatch.setattr(pool_start, "start_workers", no_pool)
    cfg = load_config(SAMPLE_CONFIG)
    two = ap.run_applicability(cfg, tmp_path / "two.gpkg", workers=2)
    one = ap.run_applicability(cfg, tmp_path / "one.gpkg", workers=1)
    assert two.tiles == one.tiles == 2 and two.parcels == 3_167
    a, b = ap.read_result(one.path), ap.read_result(two.path)
    assert a.drop(columns="geometry").equals(b.drop(columns="geometry"))


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_while_two_workers_run_ends_cleanly(tmp_path, capsys, sig):
    """Ctrl-C (SIGINT to the whole process group, as a terminal sends it) or SIGTERM (to the
    job's process) once the workers' overlays file exists, over a previous map: one line, exit
    130 / 143, no traceback (the workers' included), the previous map byte for byte, no
    temporary file, no process left."""
    town = sample_copy(tmp_path)
    out = tmp_path / "map.gpkg"
    args = ["applicability", "-c", str(town), "-o", str(out), "--workers", "2",
            "--chunk-size", "100"]
    assert run(args, capsys)[0] == 0
    before = hashlib.sha256(out.read_bytes()).hexdigest()
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {**os.environ, "PYTHONPATH": str(REPO), "TMPDIR": str(tmp)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "swm_gis", "--progress", "none", *args, "--overwrite"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path,
        start_new_session=True)
    deadline = time.monotonic() + 120
    while not list(tmp.glob("swm-tiles-*/overlays.pickle")):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the workers never started"
        time.sleep(0.005)
    if sig == signal.SIGINT:
        os.killpg(proc.pid, sig)
    else:
        proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == {signal.SIGINT: 130, signal.SIGTERM: 143}[sig], err
    assert err.strip().splitlines()[-1] == \
        f"Interrupted ({sig.name}): nothing was written to {out}.", err
    assert "Traceback" not in err, err
    assert hashlib.sha256(out.read_bytes()).hexdigest() == before
    assert leftovers(tmp_path) == [] and list(tmp.iterdir()) == []
    # the fork server and its workers end with the job
    deadline = time.monotonic() + 30
    while True:
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        assert time.monotonic() < deadline, "processes of the job outlived it"
        time.sleep(0.05)


def test_a_fork_server_that_cannot_start_leaves_spawned_workers_same_file(tmp_path, monkeypatch):
    """No fork server (its socket needs a temporary folder): the workers are spawned from the
    same overlays file and the map is the file one worker writes."""
    from multiprocessing import forkserver

    def cannot(*args, **kwargs):
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(forkserver, "ensure_running", cannot)
    assert pool_start.start_workers() is False
    shared: list[str] = []
    real = par.share_overlays
    monkeypatch.setattr(par, "share_overlays",
                        lambda overlays, folder: shared.append(real(overlays, folder)) or
                        shared[-1])
    cfg = load_config(SAMPLE_CONFIG)
    one = ap.run_applicability(cfg, tmp_path / "one.gpkg", workers=1, chunk_size=1_000)
    two = ap.run_applicability(cfg, tmp_path / "two.gpkg", workers=2, chunk_size=1_000)
    assert len(shared) == 1 and isinstance(shared[0], str)  # the pool ran, from the file
    a, b = ap.read_result(one.path), ap.read_result(two.path)
    assert a.drop(columns="geometry").equals(b.drop(columns="geometry"))


def test_the_overlays_are_loaded_on_a_thread_of_their_own():
    """A worker loads the overlays off its main thread (their objects then live in another
    malloc arena than the tiles'): the loader runs on another thread, its value comes back,
    its error is raised on the caller's thread."""
    seen = []

    def load(x):
        seen.append(threading.current_thread() is threading.main_thread())
        return x * 2

    assert par.off_the_main_arena(load, 21) == 42 and seen == [False]

    def fail():
        raise ValueError("unreadable overlays file")

    with pytest.raises(ValueError, match="unreadable overlays file"):
        par.off_the_main_arena(fail)

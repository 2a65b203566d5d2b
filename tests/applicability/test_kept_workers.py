"""The town-wide map's workers kept between the jobs of a warm engine (pool_start.keep_workers).

Kept workers write the file workers of the job's own write, byte for byte, and are the same
processes from one job to the next; each job's state (its environment, its sources' fresh
descriptions, the overlays' fields of the run) reaches them, so parcels changed on disk
between two jobs are read again; a failed job, a dead worker, another number of workers or
idleness stops them, and the next job runs. The sample town's 3,167 parcels in tiles of 500
make 9 tiles, so two workers run. Correctness only: timings live in benchmarks/README.md.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest
from support import workerkit
from support.clockkit import frozen
from support.hostile import edit, sample_copy

from swm_gis.applicability import overlay_cache, pool_start
from swm_gis.applicability import parallel as par
from swm_gis.cli import main

TWO = ["--workers", "2", "--chunk-size", "500"]


@pytest.fixture
def town(tmp_path, monkeypatch) -> Path:
    """A copy of the sample town with a cache folder of its own (the overlays' entry is what
    workers are kept for); keeping on for the test, off and every worker stopped after it."""
    monkeypatch.setenv("SWM_GIS_CACHE_DIR", str(tmp_path / "cache"))
    pool_start.keep_workers()
    try:
        yield sample_copy(tmp_path)
    finally:
        pool_start.keep_workers(None)


def map_of(town: Path, out: Path, *args: str) -> bytes:
    with frozen():
        code = main(["--progress", "none", "applicability", "-c", str(town), "-o", str(out),
                     "--overwrite", *args])
    assert code == 0
    return out.read_bytes()


def kept() -> pool_start.KeptWorkers:
    assert pool_start._KEPT is not None, "no workers were kept"
    return pool_start._KEPT


def pids(workers: pool_start.KeptWorkers) -> set[int]:
    return set(workers.pool._processes)


def gone(pid_set: set[int], timeout_s: float = 30) -> bool:
    """True once none of ``pid_set`` runs (a zombie counts as ended)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not any(pool_start._started(p) for p in pid_set):  # none running
            return True
        time.sleep(0.05)
    return False


def test_kept_workers_write_the_same_file_and_serve_the_next_job(town, tmp_path):
    """Workers of the job's own (keeping off), then two jobs on kept workers: three files
    byte for byte; the second job ran on the first one's processes; stopping them ends the
    processes and removes their folder."""
    pool_start.keep_workers(None)
    own = map_of(town, tmp_path / "own.gpkg", *TWO)
    assert pool_start._KEPT is None  # off: nothing outlives the job
    pool_start.keep_workers()
    first = map_of(town, tmp_path / "first.gpkg", *TWO)
    workers = kept()
    before, folder = pids(workers), Path(workers.folder.name)
    second = map_of(town, tmp_path / "second.gpkg", *TWO)
    assert first == own and second == own
    assert kept() is workers and pids(workers) == before and len(before) == 2
    # each job's file is gone with its job; the overlays' entry stays linked for the next
    assert sorted(p.name for p in folder.iterdir()) == ["entry.arrays", "entry.pickle", "owner"]
    pool_start.release_workers()
    assert pool_start._KEPT is None and not folder.exists() and gone(before)


def test_parcels_changed_between_kept_jobs_are_read_again(town, tmp_path):
    """The parcels in a file of their own (the overlays' entry does not depend on it): one
    parcel's MAP_PAR_ID changed on disk between two jobs. The kept workers (the same
    processes) map the new value, and the map is the one new workers make of the changed
    file."""
    import pyogrio

    sample = town.parent / "sample.gpkg"
    pyogrio.write_dataframe(pyogrio.read_dataframe(sample, layer="parcels"),
                            town.parent / "parcels.gpkg", layer="parcels")
    edit(town, 'path = "sample.gpkg"\nlayer = "parcels"',
         'path = "parcels.gpkg"\nlayer = "parcels"')
    map_of(town, tmp_path / "before.gpkg", *TWO)
    workers = kept()
    before = pids(workers)
    parcels = pyogrio.read_dataframe(town.parent / "parcels.gpkg", layer="parcels")
    parcels.loc[parcels.index[0], "MAP_PAR_ID"] = "CHANGED-1"
    pyogrio.write_dataframe(parcels, town.parent / "new.gpkg", layer="parcels")
    os.replace(town.parent / "new.gpkg", town.parent / "parcels.gpkg")
    after = map_of(town, tmp_path / "after.gpkg", *TWO)
    assert kept() is workers and pids(workers) == before
    pool_start.keep_workers(None)
    fresh = map_of(town, tmp_path / "fresh.gpkg", *TWO)
    assert after == fresh
    rows = pyogrio.read_dataframe(tmp_path / "after.gpkg", layer="applicability",
                                  columns=["map_par_id"], read_geometry=False)
    assert (rows["map_par_id"] == "CHANGED-1").sum() == 1


def test_a_job_s_state_reaches_kept_workers(town, tmp_path):
    """Each job given to kept workers brings its environment, its sources' descriptions and
    the overlays' fields of its run; a worker takes them once per job (by its token)."""
    map_of(town, tmp_path / "a.gpkg", *TWO)
    workers = kept()
    described = {("one.gpkg", "parcels"): {"features": 1}}
    for token, value in (("t1", "one"), ("t2", "two")):
        job = par._Job(token, {**os.environ, "SWM_GIS_PROBE": value}, None,
                       {**described, (f"{token}.gpkg", None): {"features": 2}},
                       {"outside": f"outside {value}"})
        seen = [workers.pool.submit(workerkit.kept_probe, job).result() for _ in range(4)]
        assert {s["env"] for s in seen} == {value}
        assert {s["outside"] for s in seen} == {f"outside {value}"}
        assert all(s["described"] == sorted(job.described) for s in seen), seen
        assert {s["pid"] for s in seen} <= pids(workers)


def test_a_failed_job_stops_the_kept_workers_and_the_next_job_runs(town, tmp_path,
                                                                     monkeypatch):
    good = map_of(town, tmp_path / "good.gpkg", *TWO)
    before = pids(kept())
    monkeypatch.setattr(par, "_kept_batch", workerkit.exploding_kept_batch)
    with pytest.raises(ValueError, match="exploded"):
        map_of(town, tmp_path / "bad.gpkg", *TWO)
    assert pool_start._KEPT is None and gone(before)
    assert not (tmp_path / "bad.gpkg").exists()
    monkeypatch.undo()
    monkeypatch.setenv("SWM_GIS_CACHE_DIR", str(tmp_path / "cache"))
    assert map_of(town, tmp_path / "again.gpkg", *TWO) == good
    assert pids(kept()).isdisjoint(before)


def test_a_worker_killed_between_jobs_is_replaced(town, tmp_path):
    good = map_of(town, tmp_path / "good.gpkg", *TWO)
    before = pids(kept())
    os.kill(min(before), signal.SIGKILL)
    assert gone({min(before)})
    assert map_of(town, tmp_path / "again.gpkg", *TWO) == good
    assert pids(kept()).isdisjoint(before) and gone(before)


def test_another_number_of_workers_or_another_entry_starts_new_ones(town, tmp_path):
    map_of(town, tmp_path / "a.gpkg", *TWO)
    two = pids(kept())
    map_of(town, tmp_path / "b.gpkg", "--workers", "3", "--chunk-size", "500")
    three = pids(kept())
    assert len(three) == 3 and three.isdisjoint(two) and gone(two)
    # a reference layer touched on disk: its entry is prepared again, and the workers with it
    gpkg = town.parent / "sample.gpkg"
    st = gpkg.stat()
    os.utime(gpkg, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    entry = kept().key[1]
    map_of(town, tmp_path / "c.gpkg", "--workers", "3", "--chunk-size", "500")
    assert kept().key[1] != entry and pids(kept()).isdisjoint(three) and gone(three)


def test_idle_kept_workers_are_stopped(town, tmp_path):
    """Kept up to KEEP_IDLE_S (120 s) after their last job; stopped past it."""
    map_of(town, tmp_path / "a.gpkg", *TWO)
    workers = kept()
    before, folder = pids(workers), Path(workers.folder.name)
    assert pool_start.release_idle_workers(now=workers.used + 1.0) is False
    assert pool_start.release_idle_workers(now=workers.used + pool_start.KEEP_IDLE_S) is False
    assert pool_start.release_idle_workers(
        now=workers.used + pool_start.KEEP_IDLE_S + 0.5) is True
    assert pool_start._KEPT is None and not folder.exists() and gone(before)


def test_overlays_prepared_by_the_run_keep_no_worker(town, tmp_path):
    """--no-cache: no entry, so the workers are the job's own, as without keeping."""
    map_of(town, tmp_path / "a.gpkg", *TWO, "--no-cache")
    assert pool_start._KEPT is None
    assert overlay_cache.entry_of(object()) is None


def test_workers_held_once_keeping_is_off_are_stopped(tmp_path):
    """A job that ends after keeping was turned off (the server ending meanwhile) stops its
    workers instead of keeping them."""
    import tempfile

    closed = []

    class Pool:
        def shutdown(self, wait, cancel_futures):
            closed.append((wait, cancel_futures))

    folder = tempfile.TemporaryDirectory(dir=tmp_path)
    workers = pool_start.KeptWorkers(("key",), Pool(), folder)
    pool_start.keep_workers(None)
    pool_start.hold_workers(workers)
    assert closed == [(True, True)] and pool_start._KEPT is None
    assert not Path(folder.name).exists()


def test_a_job_interrupted_while_it_writes_stops_the_kept_workers(town, tmp_path):
    """An interrupt raised in the parent while the writer runs (a cancel, Ctrl-C), with the
    job's tiles still on the kept workers: the workers are stopped when the job ends, not
    whenever its abandoned tiles are collected (they would go on beside the next job's); the
    next job runs on new workers and writes the map."""
    from swm_gis.applicability import run as ap
    from swm_gis.config.town import load_config
    from swm_gis.io import source_cache

    good = map_of(town, tmp_path / "good.gpkg", *TWO)
    before = pids(kept())
    cfg = load_config(town)

    def interrupt(fraction, message):
        if message.startswith("tile 2 of"):
            raise KeyboardInterrupt

    with source_cache.using(cfg), pytest.raises(KeyboardInterrupt) as caught:
        ap.run_applicability(cfg, tmp_path / "cut.gpkg", workers=2, chunk_size=500,
                             progress=interrupt)
    assert caught.value is not None  # held, with its frames, as a caller may hold it
    assert pool_start._KEPT is None and gone(before)
    assert not (tmp_path / "cut.gpkg").exists()
    assert map_of(town, tmp_path / "again.gpkg", *TWO) == good
    assert pids(kept()).isdisjoint(before)

"""Starting the map's fork server early (swm_gis.applicability.pool_start): when a job will use
workers, known without reading the parcels, and before the command line imports the engine.

Correctness only: the time it saves is in benchmarks/README ("Issue 37 ... 2026-12-06 evening")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import geopandas as gpd
import pyogrio
import pytest
import shapely
from hypothesis import given
from hypothesis import strategies as st
from support.json_town import json_town
from support.townkit import SAMPLE_CONFIG, with_layer

from swm_gis.applicability import pool_start
from swm_gis.applicability.tiles import make_tiles
from swm_gis.config.town import load_config
from swm_gis.io import source_cache
from swm_gis.io.layers import read_layer

REPO = Path(__file__).resolve().parents[2]
#: The sample town's parcel polygons (3,167 parcels: one id labels two), as GDAL counts them
SAMPLE_POLYGONS = 3_168


@given(count=st.integers(-1, 100_000), chunk=st.integers(100, 50_000))
def test_several_tiles_is_the_tiling_rule(count, chunk):
    """Exactly when the town is cut into more than one tile (its extent known)."""
    tiles = make_tiles((0.0, 0.0, 5_000.0, 3_000.0), count, chunk_size=chunk)
    assert pool_start.several_tiles(count, chunk) == (len(tiles) > 1)


@pytest.fixture
def started(monkeypatch) -> list[bool]:
    """Each call of start_workers, recorded instead of starting a server."""
    calls: list[bool] = []
    monkeypatch.setattr(pool_start, "start_workers", lambda: calls.append(True) or True)
    return calls


def test_a_town_of_several_tiles_starts_the_server_early(started, monkeypatch):
    """The sample town's 3,168 polygons (a GeoPackage: GDAL's own count) in tiles of 1,000, two
    workers, or every core of a machine of two: started; in tiles of 3,168 (one tile), with one
    worker, or every core of a machine of one: not."""
    cfg = load_config(SAMPLE_CONFIG)
    assert pool_start._cheap_parcel_count(cfg) == SAMPLE_POLYGONS
    assert pool_start.start_early(cfg, workers=2, chunk_size=1_000) is True
    assert started == [True]
    assert pool_start.start_early(cfg, workers=2, chunk_size=SAMPLE_POLYGONS) is False
    assert pool_start.start_early(cfg, workers=1, chunk_size=100) is False
    assert started == [True]
    monkeypatch.setattr(pool_start, "available_cores", lambda: 1)
    assert pool_start.start_early(cfg, workers=None, chunk_size=1_000) is False
    monkeypatch.setattr(pool_start, "available_cores", lambda: 2)
    assert pool_start.start_early(cfg, workers=None, chunk_size=1_000) is True
    assert started == [True, True]


def test_a_geojson_town_is_counted_from_the_cache_only(tmp_path, started, monkeypatch):
    """Parcels in GeoJSON (GDAL parses the whole file to count it): no count, and no parse, until
    the source cache holds the layer; then its count, and the server starts."""
    cfg = load_config(json_town(tmp_path / "town"))

    def no_parse(*args, **kwargs):
        raise AssertionError("the probe parsed a GeoJSON")

    with monkeypatch.context() as m:
        m.setattr(pyogrio, "read_info", no_parse)
        assert pool_start._cheap_parcel_count(cfg) is None
        assert pool_start.start_early(cfg, workers=2, chunk_size=1_000) is False
    assert started == []
    with source_cache.using(cfg):
        assert len(read_layer(cfg, "parcels")) == SAMPLE_POLYGONS  # builds the cache entry
    with monkeypatch.context() as m:
        m.setattr(pyogrio, "read_info", no_parse)
        assert pool_start._cheap_parcel_count(cfg) == SAMPLE_POLYGONS
        assert pool_start.start_early(cfg, workers=2, chunk_size=1_000) is True
    assert started == [True]


def test_a_layer_it_cannot_count_leaves_the_start_to_the_job(tmp_path, started):
    """A missing parcels file, a damaged one, a layer of several files: False, no error (the job
    reports what is wrong with the parcels), no server."""
    cfg = load_config(SAMPLE_CONFIG)
    missing = with_layer(cfg, "parcels", path=str(tmp_path / "nowhere.gpkg"))
    bad = tmp_path / "bad.gpkg"
    bad.write_text("not a database", encoding="utf-8")
    damaged = with_layer(cfg, "parcels", path=str(bad))
    for town in (missing, damaged):
        assert pool_start.start_early(town, workers=2, chunk_size=100) is False
    parts = with_layer(cfg, "parcels", parts=(cfg.layer("parcels"), cfg.layer("parcels")))
    assert pool_start._cheap_parcel_count(parts) is None
    assert started == []


def test_a_geopackage_s_own_count_without_gdal(tmp_path):
    """gpkg_feature_count reads GDAL's count kept in the file (gpkg_ogr_contents), by hand: the
    sample's parcels 3,168 (layer named in any case), its 12 features tables with no layer
    named: None (not the only one); a file of one layer with no layer named: its 3 rows; the
    count's table dropped, or its count NULL: None (and the town's count then comes from GDAL,
    as before); a missing file, a text file, a folder: None; the file is not changed."""
    import shutil
    import sqlite3

    sample = Path(load_config(SAMPLE_CONFIG).layer("parcels").path)
    before = sample.read_bytes()
    assert pool_start.gpkg_feature_count(str(sample), "parcels") == SAMPLE_POLYGONS
    assert pool_start.gpkg_feature_count(str(sample), "PARCELS") == SAMPLE_POLYGONS
    assert pool_start.gpkg_feature_count(str(sample), "no_such_layer") is None
    assert pool_start.gpkg_feature_count(str(sample), None) is None
    assert sample.read_bytes() == before
    one = tmp_path / "one layer.gpkg"  # a space: the path goes into a file: URI
    gpd.GeoDataFrame({"id": ["a", "b", "c"]}, geometry=[shapely.box(0, 0, 1, 1)] * 3,
                     crs="EPSG:26986").to_file(one, layer="lots", driver="GPKG")
    assert pool_start.gpkg_feature_count(str(one), None) == 3
    for damage, count in (("UPDATE gpkg_ogr_contents SET feature_count = NULL", None),
                          ("DROP TABLE gpkg_ogr_contents", None)):
        copy = tmp_path / "copy.gpkg"
        shutil.copyfile(sample, copy)
        with sqlite3.connect(copy) as db:
            db.execute(damage)
        db.close()
        assert pool_start.gpkg_feature_count(str(copy), "parcels") is count
        cfg = with_layer(load_config(SAMPLE_CONFIG), "parcels", path=str(copy))
        assert pool_start._cheap_parcel_count(cfg) == SAMPLE_POLYGONS  # GDAL's, as before
    text = tmp_path / "text.gpkg"
    text.write_text("not a database", encoding="utf-8")
    for path in (tmp_path / "nowhere.gpkg", text, tmp_path):
        assert pool_start.gpkg_feature_count(str(path), "parcels") is None


def test_counting_a_geopackage_imports_no_gdal():
    """The early start's count of a GeoPackage town imports neither pyogrio nor geopandas (about
    0.4 s, before which the server could not start): a fresh interpreter, checked by
    ``sys.modules``."""
    script = f"""
import sys
from swm_gis.config.town import load_config
from swm_gis.applicability import pool_start
count = pool_start._cheap_parcel_count(load_config({str(SAMPLE_CONFIG)!r}))
print("RESULT", count, sorted(m for m in ("pyogrio", "geopandas", "osgeo") if m in sys.modules))
"""
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert f"RESULT {SAMPLE_POLYGONS} []" in proc.stdout, proc.stdout + proc.stderr


def test_the_command_line_starts_it_before_importing_the_engine(tmp_path):
    """``swm-gis applicability --workers 2`` on a town of several tiles calls start_workers before
    the engine is imported (so the server's start-up overlaps the command's own imports of the
    jobs and the map's modules), and the map is written."""
    script = f"""
import json, sys
from swm_gis.applicability import pool_start
seen = []
ENGINE = ("swm_gis.jobs", "swm_gis.applicability.run", "swm_gis.applicability.parallel")
real = pool_start.start_workers
def spy():
    seen.append(sorted(m for m in ENGINE if m in sys.modules))
    return real()
pool_start.start_workers = spy
from swm_gis.cli import main
if __name__ == "__main__":
    code = main(["--progress", "none", "applicability", "-c", {str(SAMPLE_CONFIG)!r},
                 "-o", {str(tmp_path / "map.gpkg")!r}, "--workers", "2",
                 "--chunk-size", "1000"])
    print("RESULT " + json.dumps({{"code": code, "seen": seen}}))
"""
    path = tmp_path / "spy.py"
    path.write_text(script, encoding="utf-8")
    proc = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT "))
    result = json.loads(line[len("RESULT "):])
    assert result["code"] == 0, proc.stderr[-2000:]
    # first call: the early start, before the engine; the job's own call finds it running
    assert result["seen"][0] == [], result
    assert len(result["seen"]) >= 2 and result["seen"][1] != [], result
    assert (tmp_path / "map.gpkg").exists()


def test_a_ctrl_c_while_the_server_imports_the_engine_is_the_parent_s(tmp_path):
    """A Ctrl-C (SIGINT to the whole process group) while the fork server imports the workers'
    modules: the parent is interrupted, the server prints no traceback and goes on serving.

    The server's import is made slow on purpose (a module that sleeps) so the signal lands in
    it every time; before, multiprocessing's resource tracker, started inside the server's
    start, unblocked SIGINT and the server died with a KeyboardInterrupt traceback."""
    (tmp_path / "slow_import.py").write_text(
        "import pathlib, time\n"
        f"pathlib.Path({str(tmp_path / 'importing')!r}).touch()\n"
        "time.sleep(2)\n", encoding="utf-8")
    script = f"""
import os, pathlib, signal, sys, time
from swm_gis.applicability import pool_start
pool_start.WORKER_MODULES = ("slow_import",)
if __name__ == "__main__":
    interrupted = False
    try:
        assert pool_start.start_workers()
        marker = pathlib.Path({str(tmp_path / 'importing')!r})
        while not marker.exists():
            time.sleep(0.01)
        os.killpg(0, signal.SIGINT)  # as a terminal sends a Ctrl-C
        time.sleep(10)
    except KeyboardInterrupt:
        interrupted = True
    from multiprocessing import get_context
    with get_context("forkserver").Pool(1) as pool:
        worker = pool.apply(os.getpid)
    print("RESULT", interrupted, worker != os.getpid())
"""
    path = tmp_path / "ctrl_c.py"
    path.write_text(script, encoding="utf-8")
    # the server imports from PYTHONPATH and this process's engine, never the current folder
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(tmp_path), os.environ.get("PYTHONPATH")) if p)}
    proc = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120, start_new_session=True, env=env)
    assert "RESULT True True" in proc.stdout, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and "KeyboardInterrupt" not in proc.stderr, proc.stderr


def test_the_workers_run_this_process_s_engine_from_any_folder(tmp_path):
    """Started from a folder holding another ``swm_gis`` (a checkout of another version), the
    fork server and its workers import this process's engine, not that one: Python 3.11's
    server is ``python -c``, with the current folder first on its path (before, the workers ran
    the other folder's tiles). The decoy reports itself; the worker must report this engine."""
    decoy = tmp_path / "checkout"
    for package in ("swm_gis", "swm_gis/applicability", "swm_gis/rules"):
        (decoy / package).mkdir(parents=True)
        (decoy / package / "__init__.py").write_text("", encoding="utf-8")
    for module in ("applicability/parallel.py", "rules/abutters.py"):
        (decoy / "swm_gis" / module).write_text("", encoding="utf-8")
    (decoy / "swm_gis/applicability/pool_start.py").write_text(
        "def package_folder():\n    return 'the decoy'\n", encoding="utf-8")
    script = """
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from swm_gis.applicability import pool_start
if __name__ == "__main__":
    assert pool_start.start_workers()
    with ProcessPoolExecutor(1, mp_context=get_context("forkserver")) as pool:
        worker = pool.submit(pool_start.package_folder).result()
    print("RESULT", pool_start.package_folder(), worker)
"""
    (tmp_path / "run.py").write_text(script, encoding="utf-8")
    # a script's folder, not the current one, is first on this process's own path
    proc = subprocess.run([sys.executable, str(tmp_path / "run.py")], capture_output=True,
                          text=True, cwd=decoy, timeout=120)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")), "")
    parent, _, worker = line[len("RESULT "):].partition(" ")
    assert parent == str((REPO / "swm_gis").resolve()), proc.stdout + proc.stderr
    assert worker == parent, proc.stdout + proc.stderr


# --------------------------------------------------------------------------- private folders
def test_a_private_folder_names_its_owner(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    folder = pool_start.private_folder()
    path = Path(folder.name)
    assert path.parent == tmp_path and path.name.startswith(pool_start.FOLDER_PREFIX)
    owner = (path / "owner").read_text(encoding="ascii")
    assert owner.split(" ")[0] == str(os.getpid()) and owner == pool_start._started(os.getpid())
    folder.cleanup()
    assert not path.exists()


def test_folders_of_owners_gone_are_swept_and_no_other(tmp_path):
    """Removed: a folder whose owner has ended, one whose owner's pid now names a later
    process (another start time). Kept: this process's, one naming no owner, one whose owner
    lives in another pid namespace (a process this one cannot see), one of another name."""
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    me = pool_start._started(os.getpid())
    space = pool_start._pid_space()
    folders = {"ended": f"{ended.pid} 12345 {space}", "reused": f"{os.getpid()} 1 {space}",
               "mine": me, "no-owner": None, "elsewhere": f"{ended.pid} 12345 pid:[1]"}
    for name, owner in folders.items():
        path = tmp_path / f"{pool_start.FOLDER_PREFIX}{name}"
        (path / "sub").mkdir(parents=True)
        (path / "sub" / "tile-0.arrow").write_bytes(b"x" * 10)
        if owner is not None:
            (path / "owner").write_text(owner, encoding="ascii")
    (tmp_path / "swm-dask-other").mkdir()
    (tmp_path / "swm-dask-other" / "owner").write_text(f"{ended.pid} 1", encoding="ascii")
    assert pool_start.sweep_stale_folders(str(tmp_path)) == 2
    prefix = pool_start.FOLDER_PREFIX
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "swm-dask-other", f"{prefix}elsewhere", f"{prefix}mine", f"{prefix}no-owner"]

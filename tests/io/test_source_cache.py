"""Read once (issue 37): file sources parsed once and kept in the cache, never changing an answer.

The cached read must return exactly what GDAL returns (rows, order, dtypes, geometry bytes), so
every test here compares with the uncached read or with pyogrio itself; the jobs' output files
are compared byte for byte, with the clocks they print held still (:func:`frozen`: the one-line
generation time, reportlab's document date and id, GDAL's GeoPackage time stamps) and, in the
mailing list's workbook, its ``docProps/core.xml`` (the workbook's creation time) left out.
"""

from __future__ import annotations

import json
import os
import shutil
import types
import zipfile
from dataclasses import replace
from pathlib import Path

import geopandas as gpd
import numpy as np
import pandas as pd
import pyogrio
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from support.clockkit import frozen
from support.json_town import json_town
from support.sample_demo import DEMO_ABUTTERS_SUBJECT
from support.townkit import CAMBRIDGE_CONFIG, REPO

from swm_gis.cli import main
from swm_gis.config.town import LayerSpec, load_config
from swm_gis.io import layers as io
from swm_gis.io import source_cache

SAMPLE = REPO / "data" / "sample"
#: The modules whose ``dt.datetime.now()`` an output prints (the generation time)
# --------------------------------------------------------------------------- helpers
def entries(root: Path) -> list[Path]:
    folder = source_cache.sources_folder(root)
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


def cache_of(root: Path) -> types.SimpleNamespace:
    """What :func:`source_cache.using` reads of a town config: a cache in ``root``."""
    return types.SimpleNamespace(cache_enabled=True, cache_dir=str(root))


class Reads:
    """Counts GDAL's reads (descriptions, frames, raw reads) of the given files."""

    def __init__(self, mp: pytest.MonkeyPatch, files: set[str]):
        self.files, self.count = files, 0
        for owner, name in ((pyogrio, "read_info"), (pyogrio, "read_dataframe"),
                            (pyogrio.raw, "read")):
            mp.setattr(owner, name, self._counting(getattr(owner, name)))

    def _counting(self, real):
        def call(path, *args, **kwargs):
            self.count += str(path) in self.files
            return real(path, *args, **kwargs)
        return call


def same_files(a: Path, b: Path) -> None:
    """Every output of ``a`` equals ``b``'s byte for byte (a workbook member by member, its
    creation time ``docProps/core.xml`` aside)."""
    names = sorted(p.name for p in a.iterdir())
    assert names == sorted(p.name for p in b.iterdir())
    for name in names:
        if name.endswith(".xlsx"):
            with zipfile.ZipFile(a / name) as za, zipfile.ZipFile(b / name) as zb:
                assert za.namelist() == zb.namelist()
                for member in za.namelist():
                    if member != "docProps/core.xml":
                        assert za.read(member) == zb.read(member), (name, member)
        else:
            assert (a / name).read_bytes() == (b / name).read_bytes(), name


def same_frame(cached: pd.DataFrame, direct: pd.DataFrame) -> None:
    """Same rows in the same order, same dtypes and values, same geometry bytes and CRS."""
    assert list(cached.columns) == list(direct.columns)
    pd.testing.assert_index_equal(cached.index, direct.index)
    if isinstance(direct, gpd.GeoDataFrame):
        assert isinstance(cached, gpd.GeoDataFrame)
        assert cached.crs == direct.crs
        assert list(shapely.to_wkb(cached.geometry.values)) == \
            list(shapely.to_wkb(direct.geometry.values))
        cached, direct = cached.drop(columns="geometry"), direct.drop(columns="geometry")
    pd.testing.assert_frame_equal(pd.DataFrame(cached), pd.DataFrame(direct), check_exact=True)


@pytest.fixture(scope="module")
def town(tmp_path_factory) -> Path:
    return json_town(tmp_path_factory.mktemp("json-town") / "town")


# --------------------------------------------------------------------------- pyogrio's own frame
@pytest.fixture
def small(tmp_path) -> Path:
    """Five points (x = 0, 10, 20, 30, 40) with an integer, a boolean, a text and a date field,
    each null in the second feature only, and a null geometry in the last."""
    frame = gpd.GeoDataFrame(
        {"n": pd.array([1, None, 3, 4, 5], dtype="Int64"),
         "ok": pd.array([True, None, False, True, False], dtype="boolean"),
         "name": ["Alpha", None, "gamma", "Delta", "alpha"],
         "day": pd.to_datetime(["2020-01-01", None, "2021-06-30", "2022-02-02", "2023-03-03"])},
        geometry=[shapely.Point(10 * i, 0) for i in range(4)] + [None], crs="EPSG:26986")
    path = tmp_path / "small.geojson"
    pyogrio.write_dataframe(frame, path)
    return path


@pytest.mark.parametrize("read", [
    {},                                                   # every feature: nulls, so n is float
    {"bbox": (15, -1, 35, 1)},                            # x = 20, 30: no null, n is int32
    {"bbox": (5, -1, 25, 1)},                             # x = 10, 20: the nulls, n is float
    {"bbox": (100, 100, 200, 200)},                       # nothing
    {"mask": shapely.Point(30, 0).buffer(12)},            # x = 20, 30, 40? (40 has no geometry)
    {"where": "\"name\" IN ('ALPHA')"},                   # OGR SQL: ASCII case ignored: 2 rows
    {"where": "\"n\" IN (1,4)"},
    {"where": "\"n\" IN (NULL)"},
    {"where": "1 = 0"},
    {"where": "\"name\" IN ('gamma','Delta')", "bbox": (15, -1, 35, 1)},
    {"columns": ["name"]},
    {"columns": [], "bbox": (15, -1, 35, 1)},
    {"read_geometry": False, "columns": ["n", "day"]},
], ids=repr)
def test_a_cached_read_is_the_frame_pyogrio_returns(small, tmp_path, read):
    info = pyogrio.read_info(small)
    spec = LayerSpec(key="x", path=str(small))
    columns = read.pop("columns", list(info["fields"]))
    direct = pyogrio.read_dataframe(small, columns=columns, **read)
    with source_cache.using(cache_of(tmp_path / "cache")):
        cold = source_cache.read(spec, str(small), None, info, columns=columns, **read)
        warm = source_cache.read(spec, str(small), None, info, columns=columns, **read)
    assert cold is not None and warm is not None
    same_frame(cold, direct)
    same_frame(warm, direct)


def test_integers_without_nulls_come_back_as_integers(small, tmp_path):
    """By hand: features 3 and 4 (x = 20, 30) hold n = 3, 4, no null, so GDAL gives GeoJSON's
    int32; features 2 and 3 (x = 10, 20) include the null: float64 with NaN first."""
    info = pyogrio.read_info(small)
    spec = LayerSpec(key="x", path=str(small))
    with source_cache.using(cache_of(tmp_path / "cache")):
        both = source_cache.read(spec, str(small), None, info, columns=["n"], bbox=(15, -1, 35, 1))
        null = source_cache.read(spec, str(small), None, info, columns=["n"], bbox=(5, -1, 25, 1))
    assert both["n"].tolist() == [3, 4] and str(both["n"].dtype) == "int32"
    assert str(null["n"].dtype) == "float64" and np.isnan(null["n"].iloc[0])


# --------------------------------------------------------------------------- hits and misses
def test_first_read_builds_the_entry_and_later_reads_parse_nothing(town, tmp_path, monkeypatch):
    cfg = load_config(town)
    root = Path(cfg.cache_dir)
    shutil.rmtree(root, ignore_errors=True)
    parcels = str(town.parent / "parcels.geojson")
    direct = io.read_layer(cfg, "parcels")
    assert entries(root) == []  # outside a job: no cache
    with source_cache.using(cfg):
        first = io.read_layer(cfg, "parcels")
    assert len(entries(root)) == 1
    with monkeypatch.context() as mp, source_cache.using(cfg):
        reads = Reads(mp, {parcels})
        again = io.read_layer(cfg, "parcels")
    assert reads.count == 0  # described and read from the entry: the GeoJSON is not parsed
    same_frame(first, direct)
    same_frame(again, direct)
    assert len(direct) == 3168  # every feature of the layer


def test_a_config_with_the_cache_off_reads_and_writes_nothing(town, tmp_path):
    cfg = replace(load_config(town), cache_dir=str(tmp_path / "off"), cache_enabled=False)
    with source_cache.using(cfg) as folder:
        io.read_layer(cfg, "parcels")
    assert folder is None and not (tmp_path / "off").exists()


@pytest.mark.parametrize("path", ["/vsicurl/https://example.org/parcels.geojson",
                                  "PG:dbname=town", "postgresql://u@host/town"])
def test_remote_and_database_sources_are_never_cached(path, tmp_path):
    spec = LayerSpec(key="parcels", path=path)
    info = {"driver": "GeoJSON", "fields": np.array([], dtype=object)}
    with source_cache.using(cache_of(tmp_path)):
        assert source_cache.read(spec, path, None, info, columns=[]) is None
        assert source_cache.info(spec, path, None) is None
    assert entries(tmp_path) == []


def test_an_indexed_geopackage_is_read_directly(tmp_path):
    """A GeoPackage answers a box read through its R-tree, in the R-tree's order: no entry."""
    cfg = load_config(SAMPLE / "town.toml")
    spec = cfg.layer("parcels")
    info = pyogrio.read_info(spec.path, layer="parcels")
    with source_cache.using(cache_of(tmp_path)):
        assert source_cache.read(spec, spec.path, "parcels", info, columns=[],
                                 bbox=(237000, 917000, 238000, 918000)) is None
    assert entries(tmp_path) == []


# --------------------------------------------------------------------------- box, mask, ids
@settings(max_examples=12, deadline=None, derandomize=True)
@given(key=st.sampled_from(["parcels", "flood_zones", "streams", "vernal_pools", "huc12"]),
       x=st.floats(0, 1), y=st.floats(0, 1), size=st.floats(0.001, 0.4),
       round_mask=st.booleans())
def test_box_and_mask_reads_equal_the_uncached_reads(town, key, x, y, size, round_mask):
    cfg = load_config(town)
    x0, y0, x1, y1 = (236000.0, 916000.0, 241000.0, 921000.0)  # about the sample town
    cx, cy, r = x0 + x * (x1 - x0), y0 + y * (y1 - y0), size * (x1 - x0)
    area = ({"mask": shapely.Point(cx, cy).buffer(r)} if round_mask
            else {"bbox": (cx - r, cy - r, cx + r, cy + r)})
    direct = io.read_layer(cfg, key, **area)
    with source_cache.using(cfg):
        cached = io.read_layer(cfg, key, **area)
    same_frame(cached, direct)


def test_ids_read_from_the_cache_are_the_where_query_s(cambridge_config, tmp_path):
    """Cambridge's TopoJSON by id: OGR SQL's IN ignores ASCII case, so "road" finds the six
    ROAD polygons (1 + 6 + 1 rows: 9-29, the roads, 8-61's one polygon)."""
    cfg = replace(load_config(cambridge_config), cache_dir=str(tmp_path))
    ids = ["9-29", "road", "8-61"]
    direct = io.read_by_ids(cfg, "parcels", "id", ids)
    with source_cache.using(cfg):
        cold = io.read_by_ids(cfg, "parcels", "id", ids)
        warm = io.read_by_ids(cfg, "parcels", "id", ids)
        assessing = io.read_by_ids(cfg, "assess", "parcel_id", ["9-29", "8-61"])
    same_frame(cold, direct)
    same_frame(warm, direct)
    same_frame(assessing, io.read_by_ids(cfg, "assess", "parcel_id", ["9-29", "8-61"]))
    assert (direct["id"] == "ROAD").sum() == 6
    assert len(entries(tmp_path)) == 2  # the parcels' TopoJSON and the assessing CSV


def test_a_clause_the_cache_does_not_answer_reads_the_source(town, tmp_path):
    cfg = load_config(town)
    direct = io.read_layer(cfg, "parcels", where="LOC_ID LIKE 'M_2366%'")
    with source_cache.using(cfg):
        cached = io.read_layer(cfg, "parcels", where="LOC_ID LIKE 'M_2366%'")
    same_frame(cached, direct)
    assert len(direct) > 0


# --------------------------------------------------------------------------- changes, corruption
def test_a_source_changed_on_disk_is_read_again(small, tmp_path):
    spec = LayerSpec(key="x", path=str(small))
    with source_cache.using(cache_of(tmp_path / "cache")):
        before = source_cache.read(spec, str(small), None, pyogrio.read_info(small),
                                   columns=["name"])
        frame = pyogrio.read_dataframe(small)
        frame.loc[0, "name"] = "Changed"
        stamp = small.stat().st_mtime_ns
        pyogrio.write_dataframe(frame, small)
        os.utime(small, ns=(stamp + 10**9, stamp + 10**9))  # a later time, whatever the clock
        after = source_cache.read(spec, str(small), None, pyogrio.read_info(small),
                                  columns=["name"])
    assert before["name"].iloc[0] == "Alpha" and after["name"].iloc[0] == "Changed"
    assert len(entries(tmp_path / "cache")) == 1  # the entry rebuilt in place


def test_a_shapefile_whose_dbf_alone_changed_is_read_again(tmp_path):
    frame = gpd.GeoDataFrame({"v": ["a", "b"]}, geometry=[shapely.Point(0, 0),
                             shapely.Point(1, 1)], crs="EPSG:26986")
    shp = tmp_path / "p.shp"
    pyogrio.write_dataframe(frame, shp)
    spec = LayerSpec(key="x", path=str(shp))
    with source_cache.using(cache_of(tmp_path / "cache")):
        first = source_cache.read(spec, str(shp), None, pyogrio.read_info(shp), columns=["v"])
        shp_bytes = shp.read_bytes()
        pyogrio.write_dataframe(frame.assign(v=["c", "d"]), tmp_path / "q.shp")
        shutil.copy(tmp_path / "q.dbf", tmp_path / "p.dbf")
        assert shp.read_bytes() == shp_bytes  # the .shp itself is untouched
        dbf = tmp_path / "p.dbf"
        stamp = dbf.stat().st_mtime_ns
        os.utime(dbf, ns=(stamp + 10**9, stamp + 10**9))
        second = source_cache.read(spec, str(shp), None, pyogrio.read_info(shp), columns=["v"])
    assert first["v"].tolist() == ["a", "b"] and second["v"].tolist() == ["c", "d"]


@pytest.mark.parametrize("damage", ["truncate", "flip", "sidecar", "foreign"])
def test_a_corrupt_entry_is_rebuilt_never_trusted(small, tmp_path, damage, caplog):
    spec = LayerSpec(key="x", path=str(small))
    info = pyogrio.read_info(small)
    cols = list(info["fields"])
    root = tmp_path / "cache"
    with source_cache.using(cache_of(root)):
        source_cache.read(spec, str(small), None, info, columns=cols)
        side = entries(root)[0]
        data = side.with_suffix(".arrow")
        good = data.read_bytes()
        if damage == "truncate":
            data.write_bytes(good[: len(good) // 2])
        elif damage == "flip":  # same size: only the checksum tells
            i = good.index(b"Delta")
            data.write_bytes(good[:i] + b"Delto" + good[i + 5:])
        elif damage == "sidecar":
            side.write_text("{ not json", encoding="utf-8")
        else:  # a sidecar for other rows: its table does not match
            meta = json.loads(side.read_text(encoding="utf-8"))
            side.write_text(json.dumps({**meta, "rows": 99}), encoding="utf-8")
        source_cache._OPEN.clear()  # a new run: nothing held in memory
        with caplog.at_level("DEBUG", logger="swm_gis.io.source_cache"):
            again = source_cache.read(spec, str(small), None, info, columns=cols)
    same_frame(again, pyogrio.read_dataframe(small))
    assert "Delto" not in again["name"].tolist()
    assert data.read_bytes() == good or damage == "foreign"  # rebuilt: the same bytes again
    if damage in ("truncate", "flip", "sidecar"):
        assert any("rebuild" in r.message for r in caplog.records)


# ------------------------------------------------------------------------- the jobs, byte for byte
def _run(*args: str) -> None:
    assert main(["--progress", "none", *args]) == 0


@pytest.fixture(scope="module")
def three_runs(town, tmp_path_factory):
    """Each job three times with the clocks held still: --no-cache, then cold (builds the
    entries), then warm (parses nothing: counted)."""
    out = tmp_path_factory.mktemp("runs")
    root = town.parent.parent / "cache"
    shutil.rmtree(root, ignore_errors=True)
    jobs = {
        "screen": ["screen", "-c", str(town), "-s", f"{town.parent / 'sites.gpkg'}:site"],
        "abutters": ["abutters", "-c", str(town), "-p", DEMO_ABUTTERS_SUBJECT],
        "cambridge": ["abutters", "-c", str(CAMBRIDGE_CONFIG), "-p", "9-29"],
    }
    env = {"cambridge": str(out / "cambridge-cache")}
    parsed_whole = (".geojson", ".topojson", ".shp", ".csv")  # not the site's GeoPackage, the DEM
    sources = {str(p) for folder in (town.parent, REPO.parent / "shared" / "data" / "cambridge")
               for p in folder.iterdir() if p.suffix in parsed_whole}
    counts: dict[str, int] = {}
    entries_after: dict[str, int] = {}
    with frozen(), pytest.MonkeyPatch.context() as mp:
        for name, args in jobs.items():
            if name in env:
                mp.setenv("SWM_GIS_CACHE_DIR", env[name])
            for run in ("off", "cold", "warm"):
                with pytest.MonkeyPatch.context() as counting:
                    reads = Reads(counting, sources)
                    _run(*args, "-o", str(out / name / run),
                         *(["--no-cache"] if run == "off" else []))
                counts[f"{name}/{run}"] = reads.count
                cache = Path(env.get(name, root))
                entries_after[f"{name}/{run}"] = len(entries(cache))
    return out, counts, entries_after


@pytest.mark.parametrize("job", ["screen", "abutters", "cambridge"])
def test_cached_and_uncached_outputs_are_identical_byte_for_byte(three_runs, job):
    out, counts, entries_after = three_runs
    same_files(out / job / "off", out / job / "cold")
    same_files(out / job / "off", out / job / "warm")
    assert counts[f"{job}/off"] > 0 and counts[f"{job}/warm"] == 0  # warm: nothing parsed


def test_no_cache_writes_nothing_to_the_cache(three_runs):
    _, _, entries_after = three_runs
    assert entries_after["screen/off"] == 0  # the first job's --no-cache run: an empty folder
    assert entries_after["cambridge/off"] == 0
    # cold: one entry per source read (the sample's 12 vector layers as files; Cambridge's 4)
    assert entries_after["cambridge/cold"] == entries_after["cambridge/warm"] == 4


# --------------------------------------------------------------------------- the commands
@pytest.fixture(scope="module")
def map_runs(town, tmp_path_factory):
    """The town-wide map of the file-format town in tiles of 500 parcels on two workers (its
    tiles read through GDAL's Arrow stream when uncached): --no-cache, cold, warm; then warm
    on one worker, counting GDAL's parses in this process."""
    out = tmp_path_factory.mktemp("maps")
    root = town.parent.parent / "cache"
    shutil.rmtree(root, ignore_errors=True)
    sources = {str(p) for p in town.parent.iterdir() if p.suffix in (".geojson", ".shp")}
    args = ["applicability", "-c", str(town), "--chunk-size", "500"]
    counts = {}
    with frozen():
        for run in ("off", "cold", "warm", "warm1"):
            with pytest.MonkeyPatch.context() as counting:
                reads = Reads(counting, sources)
                _run(*args, "--workers", "1" if run == "warm1" else "2",
                     "-o", str(out / f"{run}.gpkg"), *(["--no-cache"] if run == "off" else []))
            counts[run] = reads.count
    return out, counts, len(entries(root))


def test_the_town_wide_map_reads_through_the_cache_with_the_same_file(map_runs):
    """The map's tile reads (GDAL's Arrow stream when uncached) come from the cache: the
    GeoPackage is the same byte for byte off, cold and warm, and a warm run parses nothing."""
    out, counts, kept = map_runs
    off = (out / "off.gpkg").read_bytes()
    assert (out / "cold.gpkg").read_bytes() == off
    assert (out / "warm.gpkg").read_bytes() == off
    assert counts["off"] > 0 and counts["warm1"] == 0
    # the 12 vector layers the map reads, as files: parcels, the three NHESP layers, flood
    # zones, HUC12, HUC10, the town boundary, streams, water bodies, ORW, impaired waters
    assert kept == 12


def test_the_map_s_workers_read_their_tiles_through_the_cache(tmp_path):
    """The workers (started from a fork server: they do not inherit the job's context) read
    through the job's cache: with the parcels' GeoJSON overwritten behind the cache's back
    (same size and modification time, so the entry still matches; a parse now fails), a warm
    map on two workers is still the --no-cache run's file."""
    town = json_town(tmp_path / "town")
    args = ["applicability", "-c", str(town), "--chunk-size", "500", "--workers", "2"]
    with frozen():
        _run(*args, "-o", str(tmp_path / "off.gpkg"), "--no-cache")
        _run(*args, "-o", str(tmp_path / "cold.gpkg"))
        parcels = town.parent / "parcels.geojson"
        stat = parcels.stat()
        parcels.write_bytes(b"\0" * stat.st_size)
        os.utime(parcels, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        _run(*args, "-o", str(tmp_path / "warm.gpkg"))
    assert (tmp_path / "warm.gpkg").read_bytes() == (tmp_path / "off.gpkg").read_bytes()


def test_cache_info_and_clear(town, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SWM_GIS_CACHE_DIR", str(tmp_path))
    cfg = load_config(town)
    with source_cache.using(cache_of(tmp_path)):
        io.read_layer(cfg, "parcels")
        io.read_table(cfg, "assess")
    capsys.readouterr()
    _run("cache", "info")
    shown = capsys.readouterr().out
    assert f"folder\t{tmp_path}" in shown and "sources\t2" in shown
    _run("cache", "clear")
    assert "2 parsed source(s)" in capsys.readouterr().out
    assert entries(tmp_path) == []
    _run("cache", "info")
    assert "sources\t0" in capsys.readouterr().out


def test_cache_commands_take_the_config_s_folder(town, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SWM_GIS_CACHE_DIR", str(tmp_path / "elsewhere"))
    _run("cache", "info", "--config", str(town))
    assert f"folder\t{town.parent.parent / 'cache'}" in capsys.readouterr().out


def test_data_validate_reads_through_the_cache_with_the_same_report(tmp_path, capsys):
    """The sample town's 13 vector sources as files (12 layers and the assessing CSV): the
    --no-cache report, then a cold and a warm one, identical; only the cached runs keep them."""
    town = json_town(tmp_path / "town")
    root = tmp_path / "cache"
    reports = []
    for flags in (["--no-cache"], [], []):
        capsys.readouterr()
        _run_json("data", "validate", "-c", str(town), *flags)
        reports.append(capsys.readouterr().out)
        assert len(entries(root)) == (0 if flags else 13)
    assert reports[0] == reports[1] == reports[2]
    result = next(json.loads(line) for line in reports[0].splitlines() if '"result"' in line)
    assert result["summary"] == ["15 of 15 layers passed"]  # 13 vector sources + DEM, impervious
    assert result["layers"][0]["rows"] == 3168


def _run_json(*args: str) -> None:
    assert main(["--progress", "json", *args]) == 0


def test_the_description_served_from_the_cache_is_gdal_s(small, tmp_path):
    direct = pyogrio.read_info(small)
    spec = LayerSpec(key="x", path=str(small))
    with source_cache.using(cache_of(tmp_path)):
        assert source_cache.info(spec, str(small), None) is None  # nothing built by asking
        source_cache.read(spec, str(small), None, direct, columns=[])
        cached = source_cache.info(spec, str(small), None)
    assert cached.keys() == direct.keys()
    for key, value in direct.items():
        if isinstance(value, np.ndarray):
            assert isinstance(cached[key], np.ndarray) and cached[key].dtype == value.dtype
            assert cached[key].tolist() == value.tolist()
        else:
            assert cached[key] == value and type(cached[key]) is type(value), key


def test_an_unwritable_cache_folder_reads_the_source(small, tmp_path):
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the cache folder should be", encoding="utf-8")
    spec = LayerSpec(key="x", path=str(small))
    with source_cache.using(cache_of(blocker)):
        got = source_cache.read(spec, str(small), None, pyogrio.read_info(small), columns=["n"])
    assert got is None  # the reader then reads the source itself
    town = json_town(tmp_path / "town")
    cfg = load_config(town)
    cfg = replace(cfg, cache_dir=str(blocker))
    with source_cache.using(cfg):
        frame = io.read_layer(cfg, "vernal_pools")
    same_frame(frame, io.read_layer(cfg, "vernal_pools"))

"""The map's duplicate-id scan kept between runs (swm_gis.applicability.id_scan_cache).

The sample town's parcels label one id, M_237761_916557, on two polygons. Kept: a second run
reads the answer instead of scanning; a changed parcels file or field mapping, a damaged or
doctored entry, the cache off or a front end's temporary copy scan again; the map is the same
file with the cache warm, cold and off. Correctness only: timings live in benchmarks/README.md.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
from support.clockkit import frozen
from support.hostile import edit, run, sample_copy
from support.townkit import with_layer

from swm_gis.applicability import id_scan_cache, tiles
from swm_gis.cli import main
from swm_gis.config.town import load_config
from swm_gis.io import source_cache

DUPLICATE = ["M_237761_916557"]


class Scans:
    """Counts the scans the cache saves (tiles._scan_duplicate_ids) in this process."""

    def __init__(self, mp: pytest.MonkeyPatch):
        self.count = 0
        real = tiles._scan_duplicate_ids

        def scan(config):
            self.count += 1
            return real(config)

        mp.setattr(tiles, "_scan_duplicate_ids", scan)


@pytest.fixture
def town(tmp_path, monkeypatch) -> Path:
    """A copy of the sample town with a cache folder of its own."""
    monkeypatch.setenv("SWM_GIS_CACHE_DIR", str(tmp_path / "cache"))
    return sample_copy(tmp_path)


def entries(tmp_path: Path) -> list[Path]:
    folder = source_cache.sources_folder(tmp_path / "cache") / id_scan_cache.FOLDER
    return sorted(folder.glob("*.json"))


def dups(config) -> list[str]:
    with source_cache.using(config):
        return tiles.duplicate_ids(config)


def test_a_second_run_reads_the_scan_and_a_changed_file_scans_again(town, tmp_path,
                                                                     monkeypatch):
    scans = Scans(monkeypatch)
    cfg = load_config(town)
    assert dups(cfg) == DUPLICATE and scans.count == 1
    [entry] = entries(tmp_path)
    stored = json.loads(entry.read_text(encoding="utf-8"))
    assert stored["ids"] == DUPLICATE and stored["key"] == id_scan_cache.cache_key(cfg)
    assert dups(cfg) == DUPLICATE and scans.count == 1  # read, not scanned
    # the parcels' file touched (a new modification time): scanned again, the entry rewritten
    gpkg = town.parent / "sample.gpkg"
    st = gpkg.stat()
    os.utime(gpkg, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    assert dups(load_config(town)) == DUPLICATE and scans.count == 2
    assert len(entries(tmp_path)) == 1
    assert dups(load_config(town)) == DUPLICATE and scans.count == 2


def test_a_changed_field_mapping_is_another_answer(town, monkeypatch):
    """Ids read from MAP_PAR_ID instead of LOC_ID: a new key, scanned, and the answer is that
    column's (what a scan without the cache gives), not the kept one."""
    scans = Scans(monkeypatch)
    before = load_config(town)
    assert dups(before) == DUPLICATE
    edit(town, 'path = "sample.gpkg"\nlayer = "parcels"\n',
         'path = "sample.gpkg"\nlayer = "parcels"\n[layers.parcels.fields]\nid = "MAP_PAR_ID"\n')
    other = load_config(town)
    assert id_scan_cache.cache_key(other) != id_scan_cache.cache_key(before)
    assert dups(other) != DUPLICATE and scans.count == 2
    uncached = replace(other, cache_enabled=False)
    assert dups(uncached) == dups(other) and scans.count == 3


@pytest.mark.parametrize("damage", ["garbage", "unsorted", "not text", "another key"])
def test_a_damaged_or_doctored_entry_is_scanned_again(town, tmp_path, monkeypatch, damage):
    scans = Scans(monkeypatch)
    cfg = load_config(town)
    dups(cfg)
    [entry] = entries(tmp_path)
    stored = json.loads(entry.read_text(encoding="utf-8"))
    if damage == "garbage":
        entry.write_bytes(b'{"key": [')
    elif damage == "unsorted":
        entry.write_text(json.dumps({**stored, "ids": ["Z", "A"]}), encoding="utf-8")
    elif damage == "not text":
        entry.write_text(json.dumps({**stored, "ids": [17]}), encoding="utf-8")
    else:  # the answer for other parcels, left under this name
        entry.write_text(json.dumps({"key": {**stored["key"], "files": []}, "ids": ["X"]}),
                         encoding="utf-8")
    assert dups(cfg) == DUPLICATE and scans.count == 2
    assert json.loads(entry.read_text(encoding="utf-8"))["ids"] == DUPLICATE  # rewritten


def test_nothing_is_kept_with_the_cache_off_or_for_a_temporary_copy(town, tmp_path,
                                                                    monkeypatch):
    scans = Scans(monkeypatch)
    cfg = load_config(town)
    off = replace(cfg, cache_enabled=False)
    assert dups(off) == DUPLICATE and dups(off) == DUPLICATE and scans.count == 2
    assert entries(tmp_path) == []
    copy = with_layer(cfg, "parcels", temporary=True)
    assert id_scan_cache.cache_key(copy) is None
    assert dups(copy) == DUPLICATE and dups(copy) == DUPLICATE and scans.count == 4
    assert entries(tmp_path) == []


def test_the_map_is_the_same_file_cold_warm_and_off(town, tmp_path, monkeypatch, capsys):
    """Byte for byte (a frozen clock: the run row's time), the duplicate id classified once in
    its own tile each time; cache info counts the entry and cache clear removes it."""
    scans = Scans(monkeypatch)
    files = []
    for name, extra in (("cold", []), ("warm", []), ("off", ["--no-cache"])):
        out = tmp_path / f"{name}.gpkg"
        with frozen():
            assert main(["--progress", "none", "applicability", "-c", str(town), "-o",
                         str(out), "--chunk-size", "1000", "--workers", "1", *extra]) == 0
        files.append(out.read_bytes())
    assert files[0] == files[1] == files[2]
    assert scans.count == 2  # cold and off; warm read the entry
    capsys.readouterr()
    code, shown = run(["cache", "info"], capsys)
    assert code == 0 and "duplicate-id scans\t1" in shown, shown
    code, shown = run(["cache", "clear"], capsys)
    assert code == 0 and "1 duplicate-id scan(s)" in shown, shown
    assert entries(tmp_path) == []


# --------------------------------------------------------------------------- valid parcels
class ValidityTests:
    """The geometries the map's reads ask the validity test about (io.layers), by whether the
    read was told the layer is known valid: ``[asked, skipped]`` counts of geometries."""

    def __init__(self, mp: pytest.MonkeyPatch):
        from swm_gis.io import layers

        self.asked = self.skipped = 0
        real = layers.repair_geometries

        def repair(gdf, *, known_valid=False):
            if known_valid:
                self.skipped += len(gdf)
            else:
                self.asked += len(gdf)
            return real(gdf, known_valid=known_valid)

        mp.setattr(layers, "repair_geometries", repair)


def read_map(path: Path) -> pd.DataFrame:
    import pyogrio

    return pyogrio.read_dataframe(path, layer="applicability", use_arrow=True)


def a_map(town: Path, out: Path) -> bytes:
    with frozen():
        assert main(["--progress", "none", "applicability", "-c", str(town), "-o", str(out),
                     "--chunk-size", "1000", "--workers", "1", "--overwrite"]) == 0
    return out.read_bytes()


def test_parcels_found_valid_skip_the_validity_test_next_time(town, tmp_path, monkeypatch):
    """A complete map that repaired nothing records in the parcels' entry that every parcel
    was valid, in this CRS with this GEOS; the next map's tiles skip the test (the sample's
    3,168 polygons, read by tiles of 1,000 with their neighbours: at least 3,168 tested the
    first time, none the second) and write the same file. The parcels' file touched: tested
    again (its entry's key changed), the same map, and recorded again."""
    import shapely

    tested = ValidityTests(monkeypatch)
    first = a_map(town, tmp_path / "a.gpkg")
    assert tested.asked >= 3_168 and tested.skipped == 0
    [entry] = entries(tmp_path)
    mark = f"EPSG:26986|GEOS {shapely.geos_version_string}"
    assert json.loads(entry.read_text(encoding="utf-8"))["valid"] == [mark]
    assert id_scan_cache.valid_mark(load_config(town)) == mark
    tested.asked = 0
    assert a_map(town, tmp_path / "b.gpkg") == first
    assert tested.skipped >= 3_168 and tested.asked < 100  # the other layers' reads only
    gpkg = town.parent / "sample.gpkg"
    st = gpkg.stat()
    os.utime(gpkg, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    cfg = load_config(town)
    with source_cache.using(cfg):
        assert not id_scan_cache.known_valid(cfg)
    tested.asked = tested.skipped = 0
    a_map(town, tmp_path / "c.gpkg")  # the same map (its provenance names the new time)
    pd.testing.assert_frame_equal(read_map(tmp_path / "c.gpkg"), read_map(tmp_path / "a.gpkg"))
    assert tested.asked >= 3_168 and tested.skipped == 0
    with source_cache.using(cfg):
        assert id_scan_cache.known_valid(cfg)


def test_a_repaired_parcel_is_never_recorded_valid(town, tmp_path, monkeypatch):
    """A bow-tie parcel (self-crossing: make_valid repairs it) among the sample's: the map
    repairs it every time and nothing is recorded, so no later map skips the test; the cache
    off records nothing either."""
    import geopandas as gpd
    from shapely.geometry import Polygon

    gpkg = town.parent / "sample.gpkg"
    parcels = gpd.read_file(gpkg, layer="parcels")
    x0, y0, x1, y1 = parcels.geometry.iloc[0].bounds
    parcels.loc[0, "geometry"] = Polygon([(x0, y0), (x1, y1), (x1, y0), (x0, y1)])
    parcels.to_file(gpkg, layer="parcels", driver="GPKG")
    tested = ValidityTests(monkeypatch)
    for name in ("a", "b"):
        a_map(town, tmp_path / f"{name}.gpkg")
        [entry] = entries(tmp_path)
        assert "valid" not in json.loads(entry.read_text(encoding="utf-8"))
    assert tested.skipped == 0
    cfg = replace(load_config(town), cache_enabled=False)
    with source_cache.using(cfg):
        id_scan_cache.record_valid(cfg)  # no entry with the cache off: nothing to write
        assert not id_scan_cache.known_valid(cfg)


def test_known_valid_skips_only_the_validity_test():
    """repair_geometries by hand: told the layer is known valid, it still drops the missing and
    the empty geometry (2 dropped) and tests nothing (a bow-tie passes as it is: the record
    stands for the test); not told, it repairs the bow-tie (1 repaired)."""
    import geopandas as gpd
    import shapely
    from shapely.geometry import Polygon, box

    from swm_gis.io.hygiene import repair_geometries

    bow = Polygon([(0, 0), (2, 2), (2, 0), (0, 2)])
    frame = gpd.GeoDataFrame({"id": ["ok", "bow", "none", "empty"]},
                             geometry=[box(0, 0, 1, 1), bow, None, Polygon()], crs="EPSG:26986")
    out, repaired, dropped = repair_geometries(frame, known_valid=True)
    assert out["id"].tolist() == ["ok", "bow"] and (repaired, dropped) == (0, 2)
    assert not shapely.is_valid(out.geometry.iloc[1])
    out, repaired, dropped = repair_geometries(frame)
    assert out["id"].tolist() == ["ok", "bow"] and (repaired, dropped) == (1, 2)
    assert shapely.is_valid(out.geometry.iloc[1])

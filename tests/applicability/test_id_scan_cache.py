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

"""scripts/compare_outputs.py: the refactoring check finds a changed file and blanks only what
differs between any two runs (issue 25)."""

from __future__ import annotations

import importlib.util
import sqlite3

from support.townkit import REPO

spec = importlib.util.spec_from_file_location("compare_outputs",
                                              REPO / "scripts" / "compare_outputs.py")
compare = importlib.util.module_from_spec(spec)
spec.loader.exec_module(compare)


def _gpkg(path, rows):
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE gpkg_contents (table_name TEXT)")
    con.execute("INSERT INTO gpkg_contents VALUES ('t')")
    con.execute("CREATE TABLE t (id TEXT, n INTEGER)")
    con.executemany("INSERT INTO t VALUES (?, ?)", rows)
    con.commit()
    con.close()


def _two(tmp_path, a, b, name="out.json"):
    before, after = tmp_path / "before", tmp_path / "after"
    for folder, text in ((before, a), (after, b)):
        folder.mkdir(exist_ok=True)
        (folder / name).write_text(text.replace("<ROOT>", str(folder)), encoding="utf-8")
    return before, after


def test_the_same_outputs_of_two_runs_compare_equal(tmp_path):
    before, after = _two(tmp_path, '{"generated": "2026-12-02T15:59:43+00:00", "out": "<ROOT>/x"}',
                         '{"generated": "2026-12-02T16:01:06+00:00", "out": "<ROOT>/x"}')
    assert compare.compare_dirs(before, after) == []


def test_a_changed_figure_is_found(tmp_path):
    before, after = _two(tmp_path, '{"area_sqft": 43560}', '{"area_sqft": 43561}')
    assert compare.compare_dirs(before, after) == ["out.json: bytes differ"]


def test_a_file_only_one_side_wrote_is_found(tmp_path):
    before, after = _two(tmp_path, "a", "a")
    (after / "extra.csv").write_text("x", encoding="utf-8")
    assert compare.compare_dirs(before, after) == ["only in after: extra.csv"]


def test_geopackage_rows_are_compared(tmp_path):
    before, after = tmp_path / "b", tmp_path / "a"
    before.mkdir()
    after.mkdir()
    _gpkg(before / "m.gpkg", [("P1", 1), ("P2", 2)])
    _gpkg(after / "m.gpkg", [("P1", 1), ("P2", 3)])
    assert compare.compare_dirs(before, after) == ["m.gpkg: table t differs (3 vs 3 rows)"]


def test_show_prints_the_changed_lines_of_each_difference(tmp_path):
    """``--show N``: a reader sees what changed (a figure, a wording), not only that it did."""
    before, after = _two(tmp_path, "a\nthe flood zone layer\nc\n", "a\nthe FEMA layer\nc\n",
                         name="f.txt")
    assert compare.compare_dirs(before, after, show=5) == [
        "f.txt: bytes differ", "    -the flood zone layer", "    +the FEMA layer"]
    _gpkg(before / "m.gpkg", [("P1", 1), ("P2", 2)])
    _gpkg(after / "m.gpkg", [("P1", 1), ("P2", 3)])
    assert compare.compare_dirs(before, after, show=1)[3:] == [
        "m.gpkg: table t differs (3 vs 3 rows)", "    -('P2', 2)",
        "    ... and 1 more changed line(s)"]

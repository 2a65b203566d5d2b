"""The overwrite's one line (issue 35): ``staged_dir`` says which files of the folder it replaces,
exactly those the new package shares a name with; every other file of the folder stays."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from swm_gis.io.outputs import replaces_line, staged_dir

NAMES = st.sets(st.sampled_from(["a.csv", "b.json", "c.pdf", "d.gpkg", "notes.txt", "e.xlsx"]),
                max_size=6)


def test_the_line_names_the_replaced_files_sorted_and_counts_them():
    # 2 files of the package were there: "Replaces 2 files ...", names sorted
    assert replaces_line("out", ["out/b.csv", "out/a.json"]) == \
        "Replaces 2 files of an earlier run in out: a.json, b.csv."
    assert replaces_line("out", ["out/sub/x.csv"]) == \
        "Replaces 1 file of an earlier run in out: sub/x.csv."


def test_a_first_run_says_nothing(tmp_path):
    said: list[str] = []
    with staged_dir(tmp_path / "new", overwrite=True, say=said.append) as stage:
        (stage / "a.csv").write_text("new", encoding="utf-8")
    assert said == [] and (tmp_path / "new" / "a.csv").read_text(encoding="utf-8") == "new"


@settings(max_examples=60, deadline=None)
@given(before=NAMES, written=NAMES)
def test_exactly_the_shared_names_are_replaced_and_said_the_rest_kept(before, written):
    with tempfile.TemporaryDirectory() as tmp:
        dest = Path(tmp) / "out"
        dest.mkdir()
        for name in sorted(before):
            (dest / name).write_text("old", encoding="utf-8")
        said: list[str] = []
        with staged_dir(dest, overwrite=True, say=said.append) as stage:
            for name in sorted(written):
                (stage / name).write_text("new", encoding="utf-8")
        shared = sorted(before & written)
        assert said == ([f"Replaces {len(shared)} file{'' if len(shared) == 1 else 's'} of an "
                         f"earlier run in {dest}: {', '.join(shared)}."] if shared else [])
        assert {p.name: p.read_text(encoding="utf-8") for p in dest.iterdir()} == {
            **dict.fromkeys(sorted(before), "old"), **dict.fromkeys(sorted(written), "new")}

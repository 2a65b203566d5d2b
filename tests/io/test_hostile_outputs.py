"""Adversarial outputs through the command line: an output that is or holds an input is refused
before anything is written (--overwrite or not), an interrupted command leaves the previous
package and no temporaries, and two runs on one folder never mix."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.hostile import SUBJECT, assert_refused, hashes, leftovers, run, sample_copy

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def clone(tmp_path):
    """A private copy of the sample town's folder (its town.toml)."""
    return sample_copy(tmp_path)


def test_applicability_onto_the_input_geopackage_is_refused(clone, capsys):
    before = hashes(clone.parent)
    code, text = run(["applicability", "-c", str(clone), "--out", str(clone.parent / "sample.gpkg"),
                      "--overwrite"], capsys)
    assert_refused(code, " ".join(text.split()), "sample.gpkg (--out) is the input",
                   "--overwrite does not change this")
    assert hashes(clone.parent) == before and leftovers(clone.parent) == []


def test_screen_cannot_overwrite_the_site_it_reads(clone, tmp_path, capsys):
    out = tmp_path / "out"
    site = f"{clone.parent / 'sites.gpkg'}:site"
    assert run(["screen", "-c", str(clone), "--site", site, "--out", str(out)], capsys)[0] == 0
    before = hashes(out)
    code, text = run(["screen", "-c", str(clone), "--site", f"{out / 'screening.gpkg'}:site",
                      "--out", str(out), "--overwrite"], capsys)
    assert_refused(code, " ".join(text.split()), "contains the input",
                   str(out / "screening.gpkg"))
    assert hashes(out) == before and leftovers(tmp_path) == []


def test_demo_into_the_input_folder_is_refused_and_deletes_nothing(clone, capsys):
    before = hashes(clone.parent)
    code, text = run(["demo", "--out", str(clone.parent), "--config", str(clone)], capsys)
    assert_refused(code, " ".join(text.split()), "contains the input")
    assert hashes(clone.parent) == before


def _start(args, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen([sys.executable, "-m", "swm_gis", "--progress", "none", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            cwd=tmp_path)


def _wait_for(path: Path, proc, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.01)


def test_sigterm_during_abutters_keeps_the_previous_package(clone, tmp_path, capsys):
    out = tmp_path / "out"
    args = ["abutters", "-c", str(clone), "-p", SUBJECT, "-o", str(out)]
    assert run(args, capsys)[0] == 0
    before = hashes(out)
    proc = _start([*args, "--overwrite"], tmp_path)
    _wait_for(tmp_path / ".out.swm-gis.lock", proc)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert err.strip().splitlines()[-1] == f"Interrupted (SIGTERM): nothing was written to {out}."
    assert hashes(out) == before
    assert leftovers(tmp_path) == []


def test_a_second_run_on_a_folder_in_use_is_refused_naming_the_first(clone, tmp_path, capsys):
    """The lock held by another run (here this test process) refuses the command before it
    writes; two real processes racing are in test_outputs.py."""
    from swm_gis.io.outputs import output_lock

    out = tmp_path / "out"
    with output_lock(out, command="swm-gis abutters --out elsewhere (the first run)"):
        code, text = run(["abutters", "-c", str(clone), "-p", SUBJECT, "-o", str(out)], capsys)
        assert_refused(code, " ".join(text.split()), f"Another run is writing {out}",
                       "the first run", f"process {os.getpid()}")
        code, text = run(["applicability", "-c", str(clone), "-o", str(out)], capsys)
        assert code == 2  # "out" as a file: its own lock is free, but it is not a .gpkg
    assert not out.exists() and leftovers(tmp_path) == []
    assert run(["abutters", "-c", str(clone), "-p", SUBJECT, "-o", str(out)], capsys)[0] == 0
    from swm_gis.results import OUTPUT_FILES

    assert len([p for p in out.iterdir() if p.is_file()]) == len(OUTPUT_FILES) == 11
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize(("args", "fragment"), [
    (["screen", "--proposed-impervious-sqft", "inf"],
     "--proposed-impervious-sqft inf must be a finite number of 0 sq ft or more"),
    (["screen", "--proposed-impervious-sqft", "nan"],
     "Invalid value for '--proposed-impervious-sqft'"),  # click's min=0 refuses NaN itself
    (["abutters", "--label-offset", "nan,0"], 'Cannot read --label-offset "nan,0"'),
    (["abutters", "--label-offset", "0,inf"], 'Cannot read --label-offset "0,inf"'),
    (["abutters", "--distance", "inf"], 'Cannot read the distance "inf"'),
    (["abutters", "--distance", "nan m"], "Cannot read the distance"),
], ids=["impervious-inf", "impervious-nan", "offset-nan", "offset-inf", "distance-inf",
        "distance-nan"])
def test_non_finite_numbers_are_refused_before_writing(clone, tmp_path, capsys, args, fragment):
    command, *options = args
    out = tmp_path / "out"
    subject = (["--site", f"{clone.parent / 'sites.gpkg'}:site"] if command == "screen"
               else ["-p", SUBJECT])
    code, text = run([command, "-c", str(clone), *subject, *options, "-o", str(out)], capsys)
    assert_refused(code, " ".join(text.split()), fragment)
    assert not out.exists() and leftovers(tmp_path) == []

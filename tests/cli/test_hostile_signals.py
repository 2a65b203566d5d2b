"""Signals and concurrency for real: each command run as a subprocess, interrupted with SIGINT
or SIGTERM while it writes, and many runs started on one output folder at staggered moments.

Promises checked: the previous outputs are byte for byte intact, no temporary (staging folder,
lock, journal) is left, the interrupted run prints one line saying nothing was written and exits
130 (SIGINT) or 143 (SIGTERM); of runs racing on one output each either writes a whole package
or is refused with exit 2 naming the run that holds it, and the package is never a mix."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.hostile import SUBJECT, hashes, leftovers, run, sample_copy

from swm_gis.results import OUTPUT_FILES

REPO = Path(__file__).resolve().parents[2]
EXIT = {signal.SIGINT: 130, signal.SIGTERM: 143}


def _start(args: list[str], cwd: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "4000"}
    return subprocess.Popen([sys.executable, "-m", "swm_gis", "--progress", "none", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            cwd=cwd)


def _wait_for(path: Path, proc: subprocess.Popen, timeout_s: float = 90.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.005)


def _command(name: str, town: Path, out: Path) -> list[str]:
    if name == "screen":
        return ["screen", "-c", str(town), "--site", f"{town.parent / 'sites.gpkg'}:site",
                "-o", str(out)]
    if name == "abutters":
        return ["abutters", "-c", str(town), "-p", SUBJECT, "-o", str(out)]
    return ["applicability", "-c", str(town), "-o", str(out)]


def _state(out: Path) -> dict[str, str]:
    if out.is_dir():
        return hashes(out)
    return {out.name: hashlib.sha256(out.read_bytes()).hexdigest()}


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("command", ["screen", "abutters", "applicability"])
def test_a_signal_while_writing_keeps_the_previous_outputs(tmp_path, capsys, command, sig):
    town = sample_copy(tmp_path)
    out = tmp_path / ("map.gpkg" if command == "applicability" else "out")
    args = _command(command, town, out)
    assert run(args, capsys)[0] == 0
    before, inputs = _state(out), hashes(town.parent)
    proc = _start([*args, "--overwrite"], tmp_path)
    _wait_for(tmp_path / f".{out.name}.swm-gis.lock", proc)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=90)
    assert proc.returncode == EXIT[sig], err
    lines = err.strip().splitlines()
    assert lines[-1] == f"Interrupted ({sig.name}): nothing was written to {out}.", err
    assert "Traceback" not in err
    assert _state(out) == before and hashes(town.parent) == inputs
    assert leftovers(tmp_path) == []


def test_two_applicability_runs_on_one_file_the_second_is_refused_naming_the_first(
        tmp_path, capsys):
    town = sample_copy(tmp_path)
    out = tmp_path / "map.gpkg"
    first = _start(_command("applicability", town, out), tmp_path)
    _wait_for(tmp_path / ".map.gpkg.swm-gis.lock", first)
    code, text = run(_command("applicability", town, out), capsys)
    flat = " ".join(text.split())
    assert code == 2, flat
    assert f"Another run is writing {out}" in flat
    assert f"swm-gis applicability --out {out} (process {first.pid}" in flat
    _, err = first.communicate(timeout=90)
    assert first.returncode == 0, err
    assert out.is_file() and leftovers(tmp_path) == []


def _csvs(out: Path) -> tuple[str, ...]:
    return tuple(hashlib.sha256((out / n).read_bytes()).hexdigest()
                 for n in ("abutting_parcels.csv", "left_out.csv", "mailing_list.csv"))


def test_twenty_staggered_abutters_runs_on_one_folder_never_mix(tmp_path, capsys):
    """Runs alternate between 100 ft and 150 ft so a mixed package would show: its lists must
    be exactly one distance's lists (made beforehand, one run each, in-process)."""
    town = sample_copy(tmp_path)
    distances = ("100ft", "150ft")
    reference = {}
    for d in distances:
        ref = tmp_path / f"ref{d}"
        assert run(["abutters", "-c", str(town), "-p", SUBJECT, "-d", d, "-o", str(ref)],
                   capsys)[0] == 0
        reference[_csvs(ref)] = d
    assert len(reference) == 2  # the two distances make different lists
    out = tmp_path / "out"
    procs = []
    for k in range(20):
        procs.append(_start(["abutters", "-c", str(town), "-p", SUBJECT, "-d",
                             distances[k % 2], "-o", str(out), "--overwrite"], tmp_path))
        time.sleep(0.03 * (k % 4))
    results = [(p, *p.communicate(timeout=180)) for p in procs]
    codes = [p.returncode for p, _, _ in results]
    assert set(codes) <= {0, 2}, [err for _, _, err in results]
    for p, _, err in results:
        if p.returncode == 2:
            assert f"Another run is writing {out}" in " ".join(err.split()), err
            assert "swm-gis abutters --out" in err
    assert codes.count(0) >= 1 and codes.count(2) >= 1, codes
    assert _csvs(out) in reference  # one run's whole package, never a mix
    assert sorted(p.name for p in out.iterdir()) == sorted(OUTPUT_FILES.values())
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_during_start_up_says_one_line(tmp_path, sig):
    """Sent once the start-up handlers are in (the process says so under the test-only
    SWM_GIS_TEST_START_PAUSE_S, then holds start-up open): one line, 130/143, nothing written."""
    town = sample_copy(tmp_path)
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(REPO), "SWM_GIS_TEST_START_PAUSE_S": "30"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "swm_gis", "--progress", "none", *_command("abutters", town, out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    assert proc.stderr.readline() == "swm-gis: starting\n"
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == EXIT[sig], err
    assert err.splitlines() == [f"Interrupted ({sig.name})."]
    assert not out.exists() and leftovers(tmp_path) == []

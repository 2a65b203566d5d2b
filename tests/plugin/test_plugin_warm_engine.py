"""The plugin's warm engine in real QGIS: one ``swm-gis serve`` process runs the algorithms of a
session; its outputs are the one-shot engine's; killed in the middle of a run it gives a clear
error in QGIS and the next run starts a new one; ``SWM_GIS_WARM_ENGINE=0`` turns it off."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from pathlib import Path

import pytest
from support.plugin_kit import ENGINE
from support.servekit import STILL_CLOCK, differences

pytestmark = pytest.mark.qgis


def _abutters(block, folder: Path) -> dict:
    import processing

    return processing.run("swm_gis:abutters", {
        "TOWN_NAME": "Sampleton", "PARCELS": block["parcels"], "ASSESS": block["assess"],
        "SUBJECT": block["parcels"], "SUBJECT_IDS": "P2", "OUTPUT": "memory:",
        "OUTPUT_FOLDER": str(folder)})


def _rows(layer) -> list[tuple]:
    names = layer.fields().names()
    return sorted((tuple(str(f[n]) for n in names), f.geometry().asWkt(3))
                  for f in layer.getFeatures())


@pytest.fixture
def still_clock(monkeypatch):
    for key, value in STILL_CLOCK.items():
        monkeypatch.setenv(key, value)


def test_warm_and_one_shot_engines_give_the_same_outputs(plugin, block, tmp_path, monkeypatch,
                                                         still_clock):
    from swm_gis_qgis import engine, warm

    monkeypatch.delenv(warm.ENV_WARM, raising=False)
    first = _abutters(block, tmp_path / "warm1")
    pid = warm.current_pid()
    assert pid is not None and engine.run_engine.last_pid == pid  # the warm engine ran it
    second = _abutters(block, tmp_path / "warm2")
    assert warm.current_pid() == pid  # and it ran the next one too, no new process

    monkeypatch.setenv(warm.ENV_WARM, "0")
    cold = _abutters(block, tmp_path / "cold")
    assert engine.run_engine.last_pid != pid  # a process of its own
    assert warm.current_pid() == pid  # the warm one waits for the next run

    # by hand (the block): P1, P3 touch P2; P4, P5, P6 are across the 15 m street
    assert [row[0][0] for row in _rows(cold["OUTPUT"])] == ["P1", "P3", "P4", "P5", "P6"]
    for result in (first, second):
        assert _rows(result["OUTPUT"]) == _rows(cold["OUTPUT"])
        assert result["ABUTTER_COUNT"] == cold["ABUTTER_COUNT"] == 5
    assert differences(tmp_path / "warm1", tmp_path / "cold") == []
    assert differences(tmp_path / "warm2", tmp_path / "cold") == []


def test_a_warm_engine_killed_mid_run_is_a_clear_error_and_the_next_run_works(
        plugin, block, tmp_path, monkeypatch):
    from qgis.core import QgsProcessingException
    from swm_gis_qgis import warm

    monkeypatch.delenv(warm.ENV_WARM, raising=False)
    pause = tmp_path / "pause"
    monkeypatch.setenv("SWM_GIS_TEST_JOB_PAUSE_FILE", str(pause))
    _abutters(block, tmp_path / "before")  # the warm engine of this environment is running
    old_pid = warm.current_pid()
    assert old_pid is not None
    # the folder of the killed run already holds an earlier package: it must stay as it was
    earlier = tmp_path / "killed"
    earlier.mkdir()
    (earlier / "mailing_list.csv").write_text("an earlier hearing's list\n", encoding="utf-8")
    (earlier / "notes.txt").write_text("the clerk's own file\n", encoding="utf-8")
    before = {p.name: p.read_bytes() for p in earlier.iterdir()}

    pause.write_text("", encoding="utf-8")
    paused = Path(f"{pause}.paused")
    killed: list[int] = []

    def kill_when_paused():
        deadline = time.monotonic() + 60
        while not paused.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        pid = int(paused.read_text(encoding="utf-8"))
        os.kill(pid, signal.SIGKILL)
        killed.append(pid)

    killer = threading.Thread(target=kill_when_paused, daemon=True)
    killer.start()
    with pytest.raises(QgsProcessingException) as err:
        _abutters(block, tmp_path / "killed")
    killer.join(5)
    assert killed == [old_pid]
    assert "The swm-gis engine stopped unexpectedly during this run (it was killed by " \
           "SIGKILL), so it has no results. Run the algorithm again: the next run starts a " \
           "new engine." in str(err.value)
    assert "Traceback" not in str(err.value)
    # nothing half-written: the folder holds exactly what it held, byte for byte (the engine
    # writes into a staging folder beside it and moves the package in only at the end)
    assert {p.name: p.read_bytes() for p in earlier.iterdir()} == before

    pause.unlink()
    again = _abutters(block, tmp_path / "after")
    assert again["ABUTTER_COUNT"] == 5
    new_pid = warm.current_pid()
    assert new_pid is not None and new_pid != old_pid
    assert (tmp_path / "after" / "abutting_parcels.csv").is_file()

    os.kill(new_pid, signal.SIGKILL)  # killed between runs: the next run starts another
    deadline = time.monotonic() + 10
    while warm.current_pid() == new_pid and time.monotonic() < deadline:
        time.sleep(0.02)
    assert _abutters(block, tmp_path / "later")["ABUTTER_COUNT"] == 5
    assert warm.current_pid() not in (None, old_pid, new_pid)


def test_an_engine_without_serve_runs_one_shot(plugin, block, tmp_path, monkeypatch):
    """A stand-in engine that answers 'serve' with a usage error (an engine older than the
    warm engine): the run goes to a process of its own, and the refusal is remembered."""
    from swm_gis_qgis import engine, warm

    fake = tmp_path / "swm-gis"
    log = tmp_path / "calls.txt"
    fake.write_text(
        f"#!{sys.executable}\nimport os, sys\n"
        f"open({str(log)!r}, 'a').write(' '.join(sys.argv[1:3]) + '\\n')\n"
        "if sys.argv[1:] == ['serve']:\n"
        "    print(\"Error: No such command 'serve'.\", file=sys.stderr); sys.exit(2)\n"
        f"os.execv({ENGINE!r}, [{ENGINE!r}, *sys.argv[1:]])\n", encoding="utf-8")
    fake.chmod(0o755)
    monkeypatch.setenv("SWM_GIS_EXECUTABLE", str(fake))
    monkeypatch.delenv(warm.ENV_WARM, raising=False)
    for n in (1, 2):
        assert _abutters(block, tmp_path / f"out{n}")["ABUTTER_COUNT"] == 5
    # serve once (refused), then each run one-shot: --progress json
    assert log.read_text(encoding="utf-8").splitlines() == [
        "serve", "--progress json", "--progress json"]
    assert engine.run_engine.last_pid != warm.current_pid()


def test_cancel_stops_the_warm_run_and_the_engine_stays_for_the_next(plugin, block, tmp_path,
                                                                      monkeypatch):
    import processing
    from qgis.core import QgsProcessingException, QgsProcessingFeedback
    from swm_gis_qgis import warm

    monkeypatch.delenv(warm.ENV_WARM, raising=False)
    pause = tmp_path / "pause"
    monkeypatch.setenv("SWM_GIS_TEST_JOB_PAUSE_FILE", str(pause))
    _abutters(block, tmp_path / "before")
    pid = warm.current_pid()
    assert pid is not None

    pause.write_text("", encoding="utf-8")
    feedback = QgsProcessingFeedback()

    def cancel_when_paused():
        deadline = time.monotonic() + 60
        while not Path(f"{pause}.paused").exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        feedback.cancel()

    canceller = threading.Thread(target=cancel_when_paused, daemon=True)
    canceller.start()
    started = time.monotonic()
    with pytest.raises(QgsProcessingException, match="Cancelled"):
        processing.run("swm_gis:abutters", {
            "TOWN_NAME": "Sampleton", "PARCELS": block["parcels"], "ASSESS": block["assess"],
            "SUBJECT": block["parcels"], "SUBJECT_IDS": "P2", "OUTPUT": "memory:",
            "OUTPUT_FOLDER": str(tmp_path / "cancelled")}, feedback=feedback)
    canceller.join(5)
    # the engine stopped the job itself (no 3 s wait, no kill) and is still the session's
    assert time.monotonic() - started < 30
    assert warm.current_pid() == pid
    assert not (tmp_path / "cancelled" / "abutting_parcels.csv").exists()
    pause.unlink()
    assert _abutters(block, tmp_path / "after")["ABUTTER_COUNT"] == 5
    assert warm.current_pid() == pid


def test_the_setting_and_the_environment_variable_turn_it_off(plugin, monkeypatch):
    from processing.core.ProcessingConfig import ProcessingConfig
    from swm_gis_qgis import warm

    monkeypatch.delenv(warm.ENV_WARM, raising=False)
    assert ProcessingConfig.getSetting(warm.SETTING_WARM) is True  # on by default
    assert warm.enabled()
    for off in ("0", "false", "No", " off "):
        monkeypatch.setenv(warm.ENV_WARM, off)
        assert not warm.enabled(), off
    monkeypatch.setenv(warm.ENV_WARM, "1")
    assert warm.enabled()
    ProcessingConfig.setSettingValue(warm.SETTING_WARM, False)
    try:
        assert not warm.enabled()
    finally:
        ProcessingConfig.setSettingValue(warm.SETTING_WARM, True)
    assert warm.enabled()

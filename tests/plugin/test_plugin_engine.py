"""The engine runner: JSON progress into the feedback, results, errors, and cancellation."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

import pytest
from support.plugin_kit import ENGINE

pytestmark = pytest.mark.qgis

FAKE_ENGINE = """#!{python}
# A stand-in engine that reports progress, starts a child process and then works forever.
import json, os, subprocess, sys, time
folder = {folder!r}
child = subprocess.Popen(["sleep", "300"])
with open(os.path.join(folder, "pids.tmp"), "w") as fh:
    fh.write(f"{{os.getpid()}} {{child.pid}}")
os.replace(os.path.join(folder, "pids.tmp"), os.path.join(folder, "pids"))
print(json.dumps({{"type": "progress", "fraction": 0.5, "message": "half way"}}),
      file=sys.stderr, flush=True)
print(json.dumps({{"type": "info", "message": "still working"}}), file=sys.stderr, flush=True)
time.sleep(300)
"""


class Feedback:
    """Records what the engine runner reports (duck-typed QgsProcessingFeedback)."""

    def __init__(self):
        from qgis.core import QgsProcessingFeedback

        self.fb = QgsProcessingFeedback()
        self.infos: list[str] = []
        self.texts: list[str] = []
        self.fb.pushInfo = self.infos.append  # type: ignore[method-assign]
        self.fb.setProgressText = self.texts.append  # type: ignore[method-assign]


def _gone(pid: int) -> bool:
    """Not running: no such process, or a zombie waiting for its parent (init) to reap it."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


def _small_config(block, tmp_path) -> Path:
    cfg = tmp_path / "town.toml"
    cfg.write_text('[town]\nname = "Test"\ncrs = "EPSG:26986"\n'
                   f'[layers.parcels]\npath = "{block["gpkg"]}"\nlayer = "parcels"\n',
                   encoding="utf-8")
    return cfg


def test_data_validate_streams_progress_and_returns_the_result(plugin, block, tmp_path):
    from swm_gis_qgis import engine

    rec = Feedback()
    config = _small_config(block, tmp_path)
    result = engine.run_engine(["data", "validate", "--config", str(config)], rec.fb,
                               executable=ENGINE)
    assert result["type"] == "result" and result["command"] == "data validate"
    assert [layer["key"] for layer in result["layers"]] == ["parcels"]
    assert result["layers"][0]["rows"] == 9
    assert "checking parcels" in rec.texts
    assert rec.fb.progress() == pytest.approx(100.0)


def test_an_engine_error_raises_its_message(plugin, tmp_path):
    from swm_gis_qgis import engine

    with pytest.raises(engine.EngineError) as err:
        engine.run_engine(["data", "validate", "--config", str(tmp_path / "missing.toml")],
                          executable=ENGINE)
    assert "Town config file not found" in str(err.value)
    assert "missing.toml" in str(err.value)


def test_cancel_stops_the_engine_and_its_children(plugin, block, tmp_path, monkeypatch):
    import processing
    from qgis.core import QgsProcessingException

    fake = tmp_path / "swm-gis"
    fake.write_text(FAKE_ENGINE.format(python=sys.executable, folder=str(tmp_path)),
                    encoding="utf-8")
    fake.chmod(0o755)
    monkeypatch.setenv("SWM_GIS_EXECUTABLE", str(fake))
    rec = Feedback()
    pids_file = tmp_path / "pids"
    seen: dict[str, float] = {}

    def cancel_when_running():
        deadline = time.monotonic() + 60
        while not pids_file.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        while rec.fb.progress() < 50 and time.monotonic() < deadline:
            time.sleep(0.05)  # the engine's progress line has reached the feedback
        seen["progress"] = rec.fb.progress()
        rec.fb.cancel()

    canceller = threading.Thread(target=cancel_when_running, daemon=True)
    canceller.start()
    with pytest.raises(QgsProcessingException, match="Cancelled"):
        processing.run("swm_gis:abutters", {"TOWN_NAME": "Sampleton", "PARCELS": block["parcels"],
                                            "SUBJECT": block["parcels"], "SUBJECT_IDS": "P2",
                                            "OUTPUT": "memory:"}, feedback=rec.fb)
    canceller.join(5)
    engine_pid, child_pid = (int(p) for p in pids_file.read_text().split())
    assert seen["progress"] == pytest.approx(5 + 90 * 0.5)  # fraction 0.5 of the 5-95 % span
    # the engine's info lines go to engine_log.txt of the run, not to the dialog's log
    assert "still working" not in rec.infos
    from qgis.core import QgsProcessingUtils

    logs = sorted(Path(QgsProcessingUtils.tempFolder()).glob("swm_gis_abutters_*/engine_log.txt"),
                  key=lambda p: p.stat().st_mtime)
    assert "still working" in logs[-1].read_text(encoding="utf-8")
    assert _gone(engine_pid)
    deadline = time.monotonic() + 10
    while not _gone(child_pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(child_pid), "the engine's child process survived the cancel"
    assert os.path.exists(fake)

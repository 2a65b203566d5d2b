"""pytest plugin: ``swm-gis demo`` on the bundled sample town, run once per test run.

Every job of the demo (screen, abutters, applicability, publish) on the sample town was the
expensive set-up of a dozen test modules, each recomputing its part. They all read this one run
(the ``sample_demo`` fixture) instead. It runs as a user runs it, ``python -m swm_gis demo`` in a
subprocess with this checkout's engine, so what a test reads is exactly what the demo writes (and
no test's monkeypatching can reach it).

Under pytest-xdist the workers of one run share it: the first worker that needs it runs the demo
under a file lock in the run's temporary folder (``tmp_path_factory.getbasetemp().parent``, one
per run), the others wait for it and read the same folder. Without xdist the folder is the
session's own ``getbasetemp()``.

Tests read it and never write into it: at the end of the session the fixture checks that every
file is as the demo wrote it (a test that changed one errors in teardown, naming the files). A
test that needs to write beside an output copies it first.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from filelock import FileLock
from support.townkit import REPO, SAMPLE_CONFIG

#: The parcel whose abutters the demo lists (the sample town's README names it).
DEMO_ABUTTERS_SUBJECT = "M_236682_917765"


@dataclass(frozen=True)
class SampleDemo:
    """Where the session's ``swm-gis demo --out OUT`` wrote, and what it printed."""

    out: Path
    #: what the demo printed: its summary, one block of lines per step
    summary: str

    @property
    def screen(self) -> Path:
        """``screen/site`` and ``screen/site_small``: each screening's JSON, GeoPackage, report."""
        return self.out / "screen"

    @property
    def abutters(self) -> Path:
        """The abutter package of :data:`DEMO_ABUTTERS_SUBJECT` (100 ft)."""
        return self.out / "abutters"

    @property
    def applicability(self) -> Path:
        """The town-wide applicability map (local engine, default options)."""
        return self.out / "applicability" / "applicability.gpkg"

    @property
    def publish(self) -> Path:
        """The public web map, published from :attr:`applicability`."""
        return self.out / "publish"

    def screening(self, site: str = "site") -> dict:
        """``screening.json`` of ``site`` (``site`` or ``site_small``), read afresh."""
        return json.loads((self.screen / site / "screening.json").read_text(encoding="utf-8"))


def file_hashes(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _shared_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder per test run: the xdist workers' common parent, or the session's own."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def _run_demo(out: Path) -> str:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen",
           "PYTHONPATH": os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH"))
                                         if p)}
    proc = subprocess.run([sys.executable, "-m", "swm_gis", "--progress", "none", "demo",
                           "--config", str(SAMPLE_CONFIG), "--out", str(out)],
                          capture_output=True, text=True, env=env, cwd=out.parent, timeout=1200)
    if proc.returncode != 0:
        raise RuntimeError(f"swm-gis demo failed (exit {proc.returncode}):\n"
                           f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return proc.stdout


@pytest.fixture(scope="session")
def sample_demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SampleDemo]:
    """``swm-gis demo`` on the sample town, once per test run (shared by xdist workers)."""
    root = _shared_root(tmp_path_factory) / "sample-demo"
    root.mkdir(exist_ok=True)
    out, summary, failed = root / "out", root / "summary.txt", root / "failed.txt"
    with FileLock(str(root / ".lock")):
        if failed.exists():  # another worker tried: the same failure, without a second run
            pytest.fail(failed.read_text(encoding="utf-8"), pytrace=False)
        if not summary.exists():
            try:
                text = _run_demo(out)
            except (RuntimeError, subprocess.TimeoutExpired) as exc:
                failed.write_text(str(exc), encoding="utf-8")
                pytest.fail(str(exc), pytrace=False)
            (root / "hashes.json").write_text(json.dumps(file_hashes(out)), encoding="utf-8")
            summary.write_text(text, encoding="utf-8")
    demo = SampleDemo(out, summary.read_text(encoding="utf-8"))
    yield demo
    before = json.loads((root / "hashes.json").read_text(encoding="utf-8"))
    after = file_hashes(out)
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    assert not changed, (
        f"a test changed the session's sample demo outputs (tests read them, never write): "
        f"{changed}")

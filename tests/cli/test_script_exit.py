"""The console script ends the process at once after :func:`swm_gis.cli.main` (issue 37):
nothing the interpreter's own exit would have done is lost.

Each case runs :func:`swm_gis.cli.script` in a child process with ``main`` replaced, its
standard output sent to a file (block-buffered, so an unflushed buffer would show as a short
file), and checks the exit code, the whole output, the ``atexit`` handlers and a temporary
folder's finalizer, and that a thread still working is waited for.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

CHILD = """
import atexit, sys, tempfile, threading, time
from pathlib import Path
import swm_gis.cli as cli

out = Path(sys.argv[1])
tmp = tempfile.TemporaryDirectory()  # its finalizer removes it at exit
(out / "tmpdir.txt").write_text(tmp.name)
atexit.register(lambda: (out / "atexit.txt").write_text("ran"))

def late_writer():
    time.sleep(0.5)
    (out / "thread.txt").write_text("done")

def fake_main():
    if sys.argv[2] == "thread":
        threading.Thread(target=late_writer).start()  # not a daemon: must finish first
    sys.stdout.write("x" * 100_000 + "\\n")  # more than one buffer; no flush of its own
    return 3

cli.main = fake_main
cli.script()
raise SystemExit("script() returned")
"""


@pytest.mark.parametrize("case", ["plain", "thread"])
def test_script_ends_with_mains_code_and_loses_nothing(tmp_path: Path, case: str):
    child = tmp_path / "child.py"
    child.write_text(textwrap.dedent(CHILD), encoding="utf-8")
    with open(tmp_path / "stdout.txt", "wb") as stdout:
        proc = subprocess.run([sys.executable, str(child), str(tmp_path), case], stdout=stdout,
                              stderr=subprocess.PIPE, timeout=120)
    assert proc.returncode == 3, proc.stderr.decode()
    assert (tmp_path / "stdout.txt").read_text() == "x" * 100_000 + "\n"
    assert (tmp_path / "atexit.txt").read_text() == "ran"
    assert not Path((tmp_path / "tmpdir.txt").read_text()).exists()  # finalizer ran
    assert ((tmp_path / "thread.txt").read_text() == "done") if case == "thread" else \
        not (tmp_path / "thread.txt").exists()


def test_python_dash_m_uses_the_script(tmp_path: Path):
    """``python -m swm_gis`` ends through :func:`script` too: an error's exit code and text."""
    proc = subprocess.run([sys.executable, "-m", "swm_gis", "applicability", "--config",
                           str(tmp_path / "missing.toml"), "--out", str(tmp_path / "x.gpkg")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "missing.toml" in proc.stderr

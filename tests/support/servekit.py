"""The warm engine (``swm-gis serve``) driven as a program drives it, and output comparison.

:class:`Server` starts ``python -m swm_gis serve`` and talks its JSON-lines protocol;
:func:`differences` compares two output folders file by file. Two runs of the same job differ
only where they print the time: the ``generated`` stamp (JSON, HTML, GeoPackage metadata, PDF
text) and a PDF's own dates and id. :data:`STILL_CLOCK` pins what can be pinned (reportlab's
invariant mode: fixed PDF dates and ids, uncompressed pages; GDAL's ``OGR_CURRENT_DATE``: the
GeoPackage's ``last_change``); ISO timestamps are masked (same length, so nothing else moves); a
PDF whose streams the engine compresses itself is compared by page count and masked page text.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import queue
import re
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]

#: Environment that makes two runs' bytes comparable (both engines get it).
STILL_CLOCK = {"RL_invariant": "1", "RL_pageCompression": "0",
               "OGR_CURRENT_DATE": "2026-01-02T03:04:05.000Z"}

_STAMP = re.compile(rb"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?")


def engine_env(**extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "4000", **STILL_CLOCK, **extra}


def mask(data: bytes) -> bytes:
    """Every ISO timestamp replaced by as many ``X``."""
    return _STAMP.sub(lambda m: b"X" * len(m.group()), data)


def _content(path: Path) -> Any:
    data = path.read_bytes()
    if path.suffix == ".xlsx":  # a zip: its members' stored dates are the time of writing
        with zipfile.ZipFile(io.BytesIO(data)) as book:
            return {name: mask(book.read(name)) for name in sorted(book.namelist())}
    return mask(data)


def _pdf_text(path: Path) -> list[bytes]:
    from pypdf import PdfReader

    return [mask(page.extract_text().encode()) for page in PdfReader(path).pages]


def differences(a: Path, b: Path) -> list[str]:
    """Files of folder ``a`` and ``b`` that differ (names missing on either side included);
    ``[]`` when every file is the same but for its timestamps."""
    names_a = sorted(p.name for p in a.iterdir())
    names_b = sorted(p.name for p in b.iterdir())
    found = [f"only in one: {n}" for n in sorted(set(names_a) ^ set(names_b))]
    for name in sorted(set(names_a) & set(names_b)):
        if _content(a / name) == _content(b / name):
            continue
        if name.endswith(".pdf") and _pdf_text(a / name) == _pdf_text(b / name):
            continue  # compressed by the engine: the same pages, words and numbers
        found.append(name)
    return found


def one_shot(argv: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "swm_gis", *argv], capture_output=True,
                          text=True, env=engine_env(), cwd=cwd, timeout=600)


class Server:
    """One ``swm-gis serve`` process: send jobs and cancels, read its lines."""

    def __init__(self, **env: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "swm_gis", "serve"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8",
            bufsize=1, env=engine_env(**env))
        self.lines: queue.Queue = queue.Queue()
        self.stderr: list[str] = []
        threading.Thread(target=self._pump, daemon=True).start()
        self._err = threading.Thread(target=lambda: self.stderr.extend(self.proc.stderr),
                                     daemon=True)
        self._err.start()
        self.ready = self.next_line(120)

    def _pump(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def next_line(self, timeout_s: float = 300) -> dict[str, Any] | None:
        """The next protocol object (None at the end of the server's output)."""
        line = self.lines.get(timeout=timeout_s)
        return None if line is None else json.loads(line)

    def send(self, obj: Any) -> None:
        raw = obj if isinstance(obj, str) else json.dumps(obj)
        self.proc.stdin.write(raw + "\n")
        self.proc.stdin.flush()

    def job(self, job_id: Any, argv: list[str], cwd: Path | None = None) -> None:
        self.send({"id": job_id, "argv": argv, **({"cwd": str(cwd)} if cwd else {})})

    def until_done(self, job_id: Any, *, on_line=None) -> tuple[dict[str, Any], list[dict]]:
        """Read to the job's ``done`` line; returns it and the job's tagged lines."""
        tagged = []
        while True:
            obj = self.next_line()
            assert obj is not None, f"the server ended during job {job_id}: {self.stderr[-5:]}"
            assert obj.get("id") == job_id, obj
            if obj.get("done"):
                return obj, tagged
            tagged.append(obj)
            if on_line is not None:
                on_line(obj)

    def run(self, job_id: Any, argv: list[str], cwd: Path | None = None):
        self.job(job_id, argv, cwd)
        return self.until_done(job_id)

    def close(self, timeout_s: float = 60) -> int:
        if self.proc.stdin and not self.proc.stdin.closed:
            with contextlib.suppress(BrokenPipeError):
                self.proc.stdin.close()
        try:
            return self.proc.wait(timeout_s)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self._err.join(5)  # every stderr line read

    def wait_gone(self, timeout_s: float = 60) -> int:
        deadline = time.monotonic() + timeout_s
        while self.proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        return self.proc.wait(1)

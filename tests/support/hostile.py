"""Helpers for the adversarial (hostile input) tests: a broken copy of the sample town, the CLI
run in-process, and the promises every case checks (exit 2, inputs unchanged, nothing left)."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from support.townkit import SAMPLE_CONFIG

from swm_gis.cli import main

SUBJECT = "M_236682_917765"


def sample_copy(tmp_path: Path) -> Path:
    """The sample town's folder copied into ``tmp_path/T``; returns its town.toml."""
    dst = tmp_path / "T"
    shutil.copytree(SAMPLE_CONFIG.parent, dst)
    return dst / "town.toml"


def hashes(folder: Path) -> dict[str, str]:
    """SHA-256 of every file under ``folder`` (the inputs must never change)."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def edit(toml: Path, old: str, new: str) -> None:
    text = toml.read_text(encoding="utf-8")
    assert old in text, old
    toml.write_text(text.replace(old, new, 1), encoding="utf-8")


def run(args: list[str], capsys) -> tuple[int, str]:
    code = main(["--progress", "none", *args])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def assert_refused(code: int, text: str, *fragments: str) -> None:
    """Exit 2, one message naming the problem, no traceback."""
    assert code == 2, text
    assert "Traceback" not in text, text
    for fragment in fragments:
        assert fragment in text, (fragment, text)


def leftovers(*folders: Path) -> list[str]:
    """Hidden temporaries (staging folders, locks, GDAL journals) left in ``folders``."""
    found = []
    for folder in folders:
        if folder.is_dir():
            found += [str(p) for p in folder.rglob(".*")]
            found += [str(p) for p in folder.rglob("*-journal")]
    return found

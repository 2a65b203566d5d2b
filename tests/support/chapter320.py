"""The regulation's own numbering, for tests: which section numbers the copy of Chapter 320 gives,
and which an output folder cites that it does not (an output cites no number the text lacks).

:func:`numbers_absent` reads every text output in a folder (JSON strings, HTML, PDF text, CSV,
XLSX cells, plain text), so it serves the screening outputs and an abutter package alike.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path

from support.townkit import REPO

REGULATION = REPO.parent / "shared" / "regulations" / "lynnfield-chapter-320.txt"

#: A chapter-section number ("320-19", "213-16"): what a "§ 320-18" would be caught by.
_CHAPTER_SECTION = re.compile(r"(?<![\d.-])[1-9]\d{2}-\d{1,3}(?!\d)")
#: A number after a section sign ("§ 40", "§§ 23", "§ 320-19").
_AFTER_SIGN = re.compile(r"§§?\s*(\d+(?:-\d+)?)")


def section_numbers(text: str) -> set[str]:
    """Every section number cited in ``text``: chapter-section numbers anywhere, and the first
    number after each section sign.

    >>> sorted(section_numbers("see § 320-18 A(7) and Bylaw 213-16B(6); MGL c. 131, § 40"))
    ['213-16', '320-18', '40']
    """
    text = re.sub(r"-\s*\n\s*", "-", text)  # a PDF line broken at a hyphen
    return set(_CHAPTER_SECTION.findall(text)) | set(_AFTER_SIGN.findall(text))


def regulation_numbers(path: Path = REGULATION) -> set[str]:
    """The section numbers the copy of the regulation itself gives."""
    return section_numbers(path.read_text(encoding="utf-8"))


def _strings(value: object) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield str(k)
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def output_text(path: Path) -> str:
    """The words of one output file (empty for a file kind that holds no text, e.g. .gpkg)."""
    suffix = path.suffix.lower()
    if suffix == ".json":
        return "\n".join(_strings(json.loads(path.read_text(encoding="utf-8"))))
    if suffix in (".html", ".csv", ".txt", ".md"):
        return path.read_text(encoding="utf-8-sig")
    if suffix == ".pdf":
        from pypdf import PdfReader

        return "\n".join(page.extract_text() or "" for page in PdfReader(path).pages)
    if suffix == ".xlsx":
        from openpyxl import load_workbook

        book = load_workbook(path, read_only=True)
        return "\n".join(str(c) for ws in book.worksheets for row in ws.iter_rows(values_only=True)
                         for c in row if c is not None)
    return ""


def numbers_absent(folder: Path, *, regulation: Path = REGULATION) -> dict[str, set[str]]:
    """For each output file in ``folder`` (recursively), the section numbers it cites that the
    regulation text does not give; files that cite none such are left out."""
    allowed = regulation_numbers(regulation)
    out = {}
    for path in sorted(Path(folder).rglob("*")):
        if path.is_file():
            extra = section_numbers(output_text(path)) - allowed
            if extra:
                out[str(path.relative_to(folder))] = extra
    return out

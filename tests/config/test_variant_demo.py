"""The whole demo under a renumbered copy of Lynnfield's profile (issue 33): every output of
``swm-gis demo`` on the sample town (screenings, abutter package, applicability map, web map)
names the profile's sections ("§ 9-19 ...") and offices, and none of "Lynnfield", "Chapter 320",
"§ 320-", "320-", "Essex County" or "Department of Public Works": each citation an output prints
is read from the profile applied, none from code.

The profile (tests/support/regulation_variant.py ``foreign_profile``) renames every Lynnfield
section, chapter and office and supplies no town text, so the town's quoted texts are replaced
by swm-gis's own words.
"""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from openpyxl import load_workbook
from pypdf import PdfReader
from support.hostile import edit, sample_copy
from support.regulation_variant import foreign_profile
from support.townkit import REPO

#: What only Lynnfield's regulation says (the issue's list), and any "320-" section.
LYNNFIELD = re.compile(r"Lynnfield|Chapter 320|320-|Essex County|Department of Public Works")


def _gpkg_text(path: Path) -> str:
    """Every text cell of every table of a GeoPackage (or SQLite file)."""
    con = sqlite3.connect(path)
    try:
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        cells = []
        for table in tables:
            for row in con.execute(f'SELECT * FROM "{table}"'):
                cells += [v for v in row if isinstance(v, str)]
        return "\n".join(cells)
    finally:
        con.close()


def _text(path: Path) -> str:
    """What a reader of an output sees: text, PDF text, GeoPackage cells, workbook cells."""
    if path.suffix == ".pdf":
        return "\n".join(page.extract_text() or "" for page in PdfReader(path).pages)
    if path.suffix == ".gpkg":
        return _gpkg_text(path)
    if path.suffix == ".xlsx":
        book = load_workbook(path, read_only=True)
        return "\n".join(str(v) for sheet in book.worksheets
                         for row in sheet.iter_rows(values_only=True) for v in row if v)
    return path.read_text(encoding="utf-8", errors="replace")


@pytest.fixture(scope="module")
def variant_demo(tmp_path_factory) -> Path:
    """``swm-gis demo --config`` a copy of the sample town whose config names the variant."""
    folder = tmp_path_factory.mktemp("variant")
    town = sample_copy(folder)
    profile = foreign_profile(town.parent)
    edit(town, 'regulation = "lynnfield-ch320"', f'regulation = "{profile.name}"')
    out = folder / "out"
    env = {**os.environ, "PYTHONPATH": str(REPO), "QT_QPA_PLATFORM": "offscreen"}
    subprocess.run([sys.executable, "-m", "swm_gis", "demo", "--config", str(town),
                    "--out", str(out)], cwd=folder, env=env, check=True,
                   stdout=subprocess.DEVNULL)
    return out


def test_no_output_of_the_variant_demo_names_lynnfield_s_regulation(variant_demo):
    files = [p for p in sorted(variant_demo.rglob("*")) if p.is_file()
             and "leaflet" not in p.parts and p.name != ".swm-gis-demo.json"]
    # the four jobs wrote: screenings, the abutter package, the map, the web map
    assert {p.relative_to(variant_demo).parts[0] for p in files} == {
        "screen", "abutters", "applicability", "publish"}
    found = {str(p.relative_to(variant_demo)): sorted(set(LYNNFIELD.findall(_text(p))))
             for p in files}
    assert {name: words for name, words in found.items() if words} == {}


def test_the_variant_s_sections_are_what_the_outputs_cite(variant_demo):
    screening = next(variant_demo.glob("screen/**/screening.json")).read_text(encoding="utf-8")
    assert "§ 9-19 B(7)" in screening or "§ 9-19 B(8)" in screening
    abutters = (variant_demo / "abutters" / "abutters.json").read_text(encoding="utf-8")
    assert '"section": "Chapter 9, permit procedure, A(7)"' in abutters
    certification = _text(variant_demo / "abutters" / "certification.pdf")
    assert "CERTIFICATION BY THE BOARD OF ASSESSORS (Chapter 9, permit procedure, A(2))" in \
        " ".join(certification.split())
    flags = _gpkg_text(variant_demo / "applicability" / "applicability.gpkg")
    assert "§ 9-19 B(7)(d): off-site mitigation within the same HUC12" in flags
    # a parcel outside the town is "not subject to its Chapter 9" (the sample town has some)
    assert "outside the town; not subject to its Chapter 9" in flags

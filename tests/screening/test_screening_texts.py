"""The screening's citations and texts come from the regulation profile applied (issue 33):
Lynnfield's profile prints Chapter 320's words, byte for byte as before; another town's profile
prints its own citations and, where it supplies no text, swm-gis's neutral wording, never
Lynnfield's (docs/regulations.md, "Where the screening's words come from").

The site is the sample town's large site (``sites.gpkg`` layer ``site``): it reaches every
resource finding (NHESP features within 500 ft, the SFHA, impaired waters downstream).
"""

from __future__ import annotations

import json
from io import BytesIO
from pathlib import Path

import geopandas as gpd
import pytest
from pypdf import PdfReader
from support.regulation_variant import foreign_profile
from support.townkit import SAMPLE_CONFIG, sample_town_naming

import swm_gis
from swm_gis.reports.screening_findings import build_report
from swm_gis.reports.screening_html import render_html
from swm_gis.reports.screening_pdf import render_pdf

#: What only Lynnfield's regulation says (the issue's list).
LYNNFIELD_WORDS = ("Lynnfield", "Chapter 320", "§ 320-", "Essex County",
                   "Department of Public Works")


def _town(folder: Path, regulation: str) -> swm_gis.TownConfig:
    return swm_gis.load_config(sample_town_naming(folder, regulation))


def _screen(folder: Path, regulation: str) -> dict:
    site = gpd.read_file(SAMPLE_CONFIG.parent / "sites.gpkg", layer="site")
    return swm_gis.screen(_town(folder, regulation), site, received="2026-05-01").document


@pytest.fixture(scope="module")
def lynnfield(tmp_path_factory) -> dict:
    return _screen(tmp_path_factory.mktemp("lynnfield"), "lynnfield-ch320")


@pytest.fixture(scope="module")
def othertown(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("othertown")
    return _screen(folder, foreign_profile(folder).as_posix())


def test_lynnfield_findings_cite_chapter_320_as_before(lynnfield):
    cited = {f["key"]: f["section"] for f in lynnfield["findings"]}
    # the rules' own citations stand: they are Lynnfield's profile's
    assert lynnfield["disturbance"]["section"] == (
        "General Bylaws Chapter 213, Article II (quoted in Chapter 320, applicability, "
        "Subsection A)")
    assert lynnfield["findings"][2]["answer"].endswith("(2016) (§ 320-19 B(9)).")
    assert cited == {
        "disturbance": "Bylaw ch. 213, Art. II (Ch. 320 applicability A); exemptions Bylaw "
                       "213-16B",
        "development_type": "Ch. 320 definitions: new development, redevelopment",
        "standards": "§ 320-19 B(8)",   # the standards block's own: redevelopment
        "watersheds": "§ 320-19 B(7)(d) / B(8)(d)",
        "mitigation": "§ 320-19 B(7)(d) / B(8)(d)",
        "habitats": "§ 320-20 A(3)(c), B(12)",
        "floodplain": "§ 320-19 A(8); § 320-20 A(3)(a)",
        "receiving_waters": "§ 320-19 B(10); Ch. 320 definitions: ORW; § 320-19 B(2)"}
    titles = [f["title"] for f in lynnfield["findings"]]
    assert titles[5] == "NHESP habitats and certified vernal pools within 500 ft"
    permit = lynnfield["findings"][0]
    assert permit["caveats"][-1].startswith("Ch. 320, authority, B: Town Boards")
    habitats = next(c for c in lynnfield["checks"] if c["name"] == "habitats")
    assert habitats["section"] == "320-20 A(3)(c)"
    assert habitats["notes"][1] == ("Significant alteration of these habitats must be "
                                    "prevented (§ 320-20 B(12)).")
    # the general requirements of the table Lynnfield's profile names: its 49 [[items]]
    assert len(lynnfield["general_requirements"]) == 49
    report = build_report(lynnfield)
    assert len(report.checklist) > 0 and report.checklist_lead.startswith(
        "Items of the application package (Ch. 320, permit procedure, A)")
    assert (report.regulation, report.chapter) == (
        "Stormwater Management Rules and Regulations, Chapter 320", "Chapter 320")


def test_another_towns_profile_prints_its_own_citations_and_no_lynnfield_words(othertown):
    cited = {f["key"]: f["section"] for f in othertown["findings"]}
    assert cited["development_type"] == "Ch. 9 definitions: new development, redevelopment"
    assert cited["habitats"] == "§ 9-20 A(3)(c), B(12)"
    assert cited["receiving_waters"] == "§ 9-19 B(10); Ch. 9 definitions: ORW; § 9-19 B(2)"
    habitats = next(c for c in othertown["checks"] if c["name"] == "habitats")
    # no texts file: swm-gis's neutral notes with the profile's citations
    assert habitats["section"] == "9-20 A(3)(c)"
    assert habitats["notes"][:2] == [
        "NHESP Priority Habitats, Estimated Habitats and Certified Vernal Pools within 500 ft "
        "of any construction activity must be shown on the plans (§ 9-20 A(3)(c)).",
        "Significant alteration of these habitats must be prevented (§ 9-20 B(12))."]
    # no Town Boards note of its own: none printed
    assert not [c for c in othertown["findings"][0]["caveats"] if "Town Boards" in c]
    assert othertown["general_requirements"] == []   # the profile names no such file
    whole = json.dumps(othertown, ensure_ascii=False, default=str)
    assert [w for w in LYNNFIELD_WORDS if w in whole] == [] and "320-" not in whole
    # the receiving waters' requirement rows: swm-gis's words with the profile's duties and
    # citations (no pollutant requirements file of its own)
    rows = {r["group"]: r for r in othertown["receiving_waters"]["requirements"]}
    assert rows["listed"]["section"] == "§ 9-19 B(10)" and rows["listed"]["text"].endswith(
        "the impaired-waters standards of the regulation applied (§ 9-19 B(10)) apply to the "
        "stormwater management plan.")
    # the rules cite the profile where they write (swm_gis.rules.citations)
    assert othertown["standards"]["section"] == "§ 9-19 B(8)"
    assert othertown["disturbance"]["section"] == (
        "General Bylaws Chapter 77, Article II (quoted in Chapter 9, applicability, "
        "Subsection A)")
    assert othertown["findings"][2]["answer"].endswith("(2016) (§ 9-19 B(9)).")
    report = build_report(othertown)
    assert (report.regulation, report.chapter) == (
        "Stormwater Management Rules and Regulations, Chapter 9", "Chapter 9")
    # the timeline: the profile's day counts and step citations, swm-gis's words (no texts)
    steps = {d.key: d for d in report.timeline}
    assert (steps["hearing"].section, steps["hearing"].rule) == (
        "Ch. 9, permit procedure, B(2)", "The Conservation Commission opens the public hearing "
        "within 21 days of receipt of a completed application.")
    assert steps["abutter_notice"].rule == (
        "The applicant notifies abutters (owners within 100 feet) by certified mail, return "
        "receipt requested, or by certificates of mailing, at least 7 days before the public "
        "hearing.")
    timeline = "\n".join(f"{d.label} {d.section} {d.rule} {d.basis}" for d in report.timeline)
    assert [w for w in LYNNFIELD_WORDS if w in timeline] == []
    # the profile names no checklist file: none listed, and the legend cites the profile
    assert report.checklist == [] and report.checklist_groups == []
    assert report.checklist_lead == ("Items of the application package and of the plans the "
                                     "regulation applied requires (§§ 9-19, 9-20, 9-21).")
    html = render_html(report)
    assert "Stormwater Management Rules and Regulations, Chapter 9 &middot;" in html
    # the whole report, HTML and PDF: the parameters' labels and the requirement rows too
    assert [w for w in LYNNFIELD_WORDS if w in html] == [] and "320-" not in html
    pdf = "\n".join(page.extract_text() for page in PdfReader(BytesIO(render_pdf(report))).pages)
    assert [w for w in LYNNFIELD_WORDS if w in pdf] == [] and "320-" not in pdf
    assert "<th scope=\"col\">Chapter 9</th>" in html

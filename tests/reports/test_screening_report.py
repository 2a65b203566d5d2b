"""The screening report (HTML + PDF): findings, map, checklist, timeline, read back.

The example site is built by hand in EPSG:26986 (metres) so every figure can be checked:

* site: 200 ft x 260 ft (60.96 m x 79.248 m) = 52,000 sq ft = 1.19 acres -> permit required;
* no existing impervious cover -> new development; 20,000 sq ft post-construction impervious
  x 1.0 in = 20,000 / 12 = 1,666.7 cu ft of retention (printed 1,667 cu ft);
* a Priority Habitat 150 m east of the site = 492.1 ft; a certified vernal pool 30 m north =
  98.4 ft;
* an AE zone over the southern quarter: 200 ft x 65 ft = 13,000 sq ft = 25.0 % of the site,
  BFE 52 ft; a 0.2 %-annual-chance strip of 200 ft x 13 ft = 2,600 sq ft north of it;
* runoff reaches a category-5 pond (phosphorus) and a category-4A river with a bacteria TMDL.
"""

from __future__ import annotations

import base64
import copy
import dataclasses
import datetime as dt
import fnmatch
import io
import shutil
import subprocess
import tomllib
from html.parser import HTMLParser
from pathlib import Path

import geopandas as gpd
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image
from pypdf import PdfReader
from shapely.geometry import LineString, Point, box
from support.screenkit import FULL_COVERAGE

import swm_gis
from swm_gis.errors import CrsError
from swm_gis.reports.screening_findings import build_report
from swm_gis.reports.screening_html import render_html
from swm_gis.reports.screening_map import _units_per_ft, render_screening_map
from swm_gis.reports.screening_report import HTML_NAME, PDF_NAME, write_screening_report
from swm_gis.screening.checklist import submittal_checklist

CRS = "EPSG:26986"
FT = 0.3048
X0, Y0 = 237_000.0, 917_000.0
W, H = 200 * FT, 260 * FT  # 60.96 m x 79.248 m

SOURCE_TIME = "2026-10-01T12:00:00+00:00"


def _src(key: str, file: str, layer: str | None = None) -> dict:
    return {"key": key, "file": f"/data/lynnfield/{file}", "layer": layer,
            "modified": SOURCE_TIME}


def example_document() -> dict:
    """A realistic screening.json with several findings."""
    return {
        "disturbance": {
            "area_sqft": 52000.0, "area_acres": 52000.0 / 43560.0,
            "common_plan_area_sqft": 52000.0, "permit_required": True, "exemption": None,
            "reasons": ["Land disturbance of 52,000 sq ft is at or above 43,560 sq ft (1 acre): "
                        "Bylaw ch. 213, Art. II."],
            # the town states that all its land drains to its MS4 (issue 32 item 5)
            "ms4": {"checked": False, "reached": None, "features": [], "searched": None,
                    "assumed_by_town": True},
        },
        "development_type": {"value": "new", "existing_impervious_sqft": 0.0,
                             "method": "impervious raster (exact cell coverage)"},
        "standards": {"retention_depth_in": 1.0, "post_impervious_sqft": 20000.0,
                      "required_retention_cuft": 1666.6666666666667, "tss_removal": 0.9,
                      "tp_removal": 0.6, "mitigation_huc_level": "HUC12"},
        "watersheds": {
            "huc12": [{"huc": "010900010501", "name": "Hawkes Brook", "share": 1.0}],
            "huc10": [{"huc": "0109000105", "name": "Saugus River", "share": 1.0}],
        },
        "mitigation": [
            {"id": "M-1", "huc": "010900010501", "eligible": True,
             "reason": "in HUC12 010900010501, which contains the site"},
            {"id": "M-2", "huc": "010900010502", "eligible": False,
             "reason": "HUC12 010900010502 does not contain the site (new development needs "
                       "the same HUC12)"},
        ],
        "habitats": [
            {"layer": "vernal_pool", "id": "CVP 5678", "distance_ft": 98.42519685039369,
             "overlaps": False},
            {"layer": "priority", "id": "PH 1234", "distance_ft": 492.1259842519685,
             "overlaps": False},
        ],
        "floodplain": {
            "in_sfha": True, "sfha_area_sqft": 13000.0, "site_fraction": 0.25,
            "zones": [{"zone": "AE", "subtype": None, "bfe": 52.0, "area_sqft": 13000.0}],
            "shaded_x_area_sqft": 2600.0,
        },
        "receiving_waters": {
            "orw": [],
            "impaired": [
                {"au_id": "MA93056", "name": "Pillings Pond", "category": "5",
                 "causes": ["Phosphorus, Total", "Chlorophyll-a"], "tmdl": None,
                 "flow_distance_ft": 1250.0},
                {"au_id": "MA93-44", "name": "Saugus River", "category": "4A",
                 "causes": ["Escherichia coli (E. coli)"],
                 "tmdl": "Saugus River bacteria TMDL (CN 0205.0)", "flow_distance_ft": 8400.0},
            ],
            "requirements": [
                {"section": "§ 320-19 B(10)(a)",
                 "text": "BMPs consistent with the approved TMDL of Saugus River (MA93-44)."},
                {"section": "§ 320-19 B(10)(c)",
                 "text": "BMPs optimized for phosphorus removal (Pillings Pond, MA93056)."},
            ],
            "trace_end": [],
        },
        "coverage": copy.deepcopy(FULL_COVERAGE),
        "checks": [
            {"name": "disturbance", "ran": True,
             "source": {"key": "input", "file": "/work/site.gpkg", "layer": "site",
                        "modified": "2026-11-20T09:30:00+00:00"}},
            {"name": "development_type", "ran": True,
             "source": _src("impervious", "impervious_2021.tif")},
            {"name": "standards", "ran": True, "source": "--proposed-impervious-sqft 20000"},
            {"name": "watersheds", "ran": True,
             "source": [_src("huc12", "WBD_01_HU2.gpkg", "WBDHU12"),
                        _src("huc10", "WBD_01_HU2.gpkg", "WBDHU10")]},
            {"name": "habitats", "ran": True,
             "source": [_src("nhesp_priority", "PRIHAB_POLY.shp"),
                        _src("nhesp_estimated", "ESTHAB_POLY.shp"),
                        _src("vernal_pools", "CVP_PT.shp")]},
            {"name": "floodplain", "ran": True,
             "source": _src("flood_zones", "NFHL_25009.gdb", "S_FLD_HAZ_AR")},
            {"name": "receiving_waters", "ran": True,
             "source": [_src("dem", "lidar_dem_2021.tif"), _src("streams", "streams.shp"),
                        _src("impaired_waters", "2022_integrated_list.shp")]},
        ],
        "meta": {
            "town": "Lynnfield", "generated": "2026-11-29T12:00:00+00:00",
            "site": "/work/site.gpkg:site",
            "parameters": {"development": "auto", "proposed_impervious_sqft": 20000,
                           "habitat_distance_ft": 500, "trigger_sqft": 43560},
            "data_sources": {
                "flood_zones": _src("flood_zones", "NFHL_25009.gdb", "S_FLD_HAZ_AR"),
                "nhesp_priority": _src("nhesp_priority", "PRIHAB_POLY.shp"),
            },
        },
    }


def no_findings_document() -> dict:
    """A 20,000 sq ft site with nothing around it: no permit, no findings."""
    doc = example_document()
    doc["disturbance"] = {
        "area_sqft": 20000.0, "area_acres": 20000.0 / 43560.0, "common_plan_area_sqft": 20000.0,
        "permit_required": False, "exemption": None,
        "reasons": ["Land disturbance of 20,000 sq ft is below 43,560 sq ft (1 acre)."],
    }
    doc["standards"] = {"retention_depth_in": 1.0, "post_impervious_sqft": 5000.0,
                        "required_retention_cuft": 416.6666666666667, "tss_removal": 0.9,
                        "tp_removal": 0.6, "mitigation_huc_level": "HUC12"}
    doc["mitigation"] = []
    doc["habitats"] = []
    doc["floodplain"] = {"in_sfha": False, "sfha_area_sqft": 0.0, "site_fraction": 0.0,
                         "zones": [], "shaded_x_area_sqft": 0.0,
                         "subject_parcels": {"in_sfha": False, "sfha_area_sqft": 0.0,
                                             "site_fraction": 0.0, "zones": [],
                                             "shaded_x_area_sqft": 0.0, "parcels": []}}
    doc["receiving_waters"] = {"orw": [], "impaired": [], "requirements": [], "trace_end": []}
    return doc


def document_with_failed_checks() -> dict:
    """Habitats did not run (layer missing); receiving waters block absent altogether."""
    doc = copy.deepcopy(example_document())
    doc["habitats"] = []
    for check in doc["checks"]:
        if check["name"] == "habitats":
            check.update(ran=False, source=None,
                         reason="no nhesp_priority, nhesp_estimated or vernal_pools layer in "
                                "the town config")
    del doc["receiving_waters"]
    doc["checks"] = [c for c in doc["checks"] if c["name"] != "receiving_waters"]
    for layer in doc["coverage"]["habitats"]:
        doc["coverage"]["habitats"][layer] = {"configured": False, "covers": None,
                                              "basis": f"no [layers.{layer}] configured"}
    return doc


def example_layers() -> dict[str, gpd.GeoDataFrame]:
    """screening.gpkg-like layers matching :func:`example_document`."""
    site = box(X0, Y0, X0 + W, Y0 + H)
    east = X0 + W
    layers = {
        "site": gpd.GeoDataFrame({"id": ["LOD-1"]}, geometry=[site], crs=CRS),
        "habitats": gpd.GeoDataFrame(
            {"layer": ["priority", "vernal_pool"], "id": ["PH 1234", "CVP 5678"],
             "distance_ft": [492.1, 98.4]},
            geometry=[box(east + 150, Y0 - 60, east + 320, Y0 + 140),
                      Point(X0 + W / 2, Y0 + H + 30)], crs=CRS),
        "flood_zones": gpd.GeoDataFrame(
            {"zone": ["AE", "X"], "subtype": [None, "0.2 PCT ANNUAL CHANCE FLOOD HAZARD"],
             "sfha": ["T", "F"], "bfe": [52.0, -9999.0]},
            geometry=[box(X0 - 120, Y0 - 150, X0 + W + 100, Y0 + H / 4),
                      box(X0 - 120, Y0 + H / 4, X0 + W + 100, Y0 + H / 4 + 13 * FT)], crs=CRS),
        "streams": gpd.GeoDataFrame(
            {"id": ["S1", "S2"]},
            geometry=[LineString([(east + 60, Y0 + 250), (east + 55, Y0 + 40),
                                  (east + 70, Y0 - 200)]),
                      LineString([(east + 70, Y0 - 200), (east + 400, Y0 - 260)])], crs=CRS),
        "flow_path": gpd.GeoDataFrame(
            {"id": [1]}, geometry=[LineString([(X0 + W / 2, Y0 + H / 2), (east + 56, Y0 + H / 2),
                                               (east + 55, Y0 + 40), (east + 70, Y0 - 200),
                                               (east + 400, Y0 - 260)])], crs=CRS),
        "impaired_waters": gpd.GeoDataFrame(
            {"id": ["MA93-44"], "category": ["4A"]},
            geometry=[LineString([(east + 70, Y0 - 200), (east + 400, Y0 - 260)])], crs=CRS),
        "huc12": gpd.GeoDataFrame(
            {"huc": ["010900010501", "010900010502"]},
            geometry=[box(X0 - 2000, Y0 - 2000, east + 250, Y0 + 2000),
                      box(east + 250, Y0 - 2000, X0 + 4000, Y0 + 2000)], crs=CRS),
        "huc10": gpd.GeoDataFrame(
            {"huc": ["0109000105"]}, geometry=[box(X0 - 2000, Y0 - 2000, X0 + 4000,
                                                   Y0 + 2000)], crs=CRS),
    }
    return layers


# --------------------------------------------------------------------------- reading back
class _Page(HTMLParser):
    """What the tests need from the HTML: lang, headings, tables, images, text, finding rows."""

    HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")

    def __init__(self) -> None:
        super().__init__()
        self.lang: str | None = None
        self.headings: list[list] = []
        self.tables: list[dict] = []
        self.images: list[dict] = []
        self.rows: dict[str, str] = {}
        self.parts: list[str] = []
        self._row: str | None = None
        self._in_heading = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "html":
            self.lang = a.get("lang")
        elif tag in self.HEADINGS:
            self.headings.append([int(tag[1]), ""])
            self._in_heading = True
        elif tag == "table":
            self.tables.append({"id": a.get("id"), "caption": False, "th": 0, "scoped": 0})
        elif tag == "caption":
            self.tables[-1]["caption"] = True
        elif tag == "th":
            self.tables[-1]["th"] += 1
            self.tables[-1]["scoped"] += a.get("scope") in ("col", "row")
        elif tag == "img":
            self.images.append(a)
        elif tag == "tr" and a.get("id"):
            self._row = a["id"]
            self.rows[self._row] = ""

    def handle_endtag(self, tag):
        if tag == "tr":
            self._row = None
        elif tag in self.HEADINGS:
            self._in_heading = False

    def handle_data(self, data):
        self.parts.append(data)
        if self._row:
            self.rows[self._row] += " " + data
        if self._in_heading:
            self.headings[-1][1] += data

    @property
    def text(self) -> str:
        return _norm(" ".join(self.parts))


def _norm(text: str) -> str:
    return " ".join(text.split())


def _parse_html(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def _pdf_pages(path: Path) -> list[str]:
    return [_norm(p.extract_text() or "") for p in PdfReader(path).pages]


@pytest.fixture(scope="module")
def full_report(tmp_path_factory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("full")
    return write_screening_report(example_document(), example_layers(), out,
                                  received=dt.date(2027, 4, 1))


@pytest.fixture(scope="module")
def empty_report(tmp_path_factory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("none")
    return write_screening_report(no_findings_document(), example_layers(), out)


# The figures of example_document() as the report must print them (see the module docstring).
EXPECTED_FINDINGS = {
    "disturbance": ["Required", "52,000 sq ft", "1.19 acres", "43,560 sq ft"],
    "development_type": ["New development", "0 sq ft"],
    "standards": ["1,667 cu ft", "1.0 in", "20,000 sq ft", "90% TSS", "60% TP", "HUC12"],
    "watersheds": ["010900010501", "Hawkes Brook", "0109000105", "Saugus River"],
    "mitigation": ["1 of 2 site(s) eligible", "M-1: eligible", "M-2: not eligible"],
    "habitats": ["Certified Vernal Pool CVP 5678 at 98 ft", "Priority Habitat PH 1234 at 492 ft"],
    "floodplain": ["13,000 sq ft", "25.0%", "zone AE", "BFE 52 ft", "2,600 sq ft"],
    "receiving_waters": ["Pillings Pond", "MA93056", "category 5", "Phosphorus, Total",
                         "Saugus River", "category 4A", "Escherichia coli (E. coli)",
                         "1,250 ft", "8,400 ft", "TMDL"],
    "requirements": ["§ 320-19 B(10)(a)", "§ 320-19 B(10)(c)", "§ 320-20 A(3)(c)",
                     "§ 320-20 B(12)", "§ 320-19 A(8)", "§ 320-20 A(3)(a)", "§ 320-21 B(3)"],
}
SECTIONS = {
    "disturbance": "Bylaw ch. 213, Art. II", "development_type": "new development",
    "standards": "§ 320-19 B(7)", "watersheds": "§ 320-19 B(7)(d)",
    "habitats": "§ 320-20 A(3)(c)", "floodplain": "§ 320-19 A(8)",
    "receiving_waters": "§ 320-19 B(10)",
}
VINTAGES = {
    "disturbance": "site.gpkg:site (2026-11-20)",
    "development_type": "impervious_2021.tif (2026-10-01)",
    "watersheds": "WBD_01_HU2.gpkg:WBDHU12 (2026-10-01)",
    "habitats": "PRIHAB_POLY.shp (2026-10-01)",
    "floodplain": "NFHL_25009.gdb:S_FLD_HAZ_AR (2026-10-01)",
    "receiving_waters": "2022_integrated_list.shp (2026-10-01)",
}


# --------------------------------------------------------------------------- files
def test_writes_html_and_pdf_atomically_us_letter(full_report):
    assert set(full_report) == {"html", "pdf"}
    assert full_report["html"].name == HTML_NAME and full_report["pdf"].name == PDF_NAME
    folder = full_report["html"].parent
    assert sorted(p.name for p in folder.iterdir()) == sorted([HTML_NAME, PDF_NAME])  # no temps
    reader = PdfReader(full_report["pdf"])
    for page in reader.pages:
        assert (float(page.mediabox.width), float(page.mediabox.height)) == (612.0, 792.0)
    assert reader.metadata.title.startswith("Stormwater Management Permit Screening")


def test_pdf_embeds_the_unicode_font(full_report):
    page = PdfReader(full_report["pdf"]).pages[0]
    fonts = [str(f.get_object()["/BaseFont"]) for f in page["/Resources"]["/Font"].values()]
    assert any("DejaVuSans" in f for f in fonts), fonts  # embedded subset via pdf_fonts
    assert "§ 320-19" in page.extract_text()  # the section sign survives as real text


# --------------------------------------------------------------------------- findings
def test_pdf_first_page_is_the_findings_with_the_documents_figures(full_report):
    first = _pdf_pages(full_report["pdf"])[0]
    assert first.startswith("Stormwater Management Permit Screening")
    assert "A stormwater management permit is required." in first
    for key, expected in EXPECTED_FINDINGS.items():
        for text in expected:
            assert text in first, f"{key}: {text!r} missing from page 1"
    for key, section in SECTIONS.items():
        assert section in first, f"{key}: section {section!r} missing"
    squeezed = first.replace(" ", "")  # a file name may wrap inside its narrow column
    for key, vintage in VINTAGES.items():
        assert vintage.replace(" ", "") in squeezed, f"{key}: data vintage {vintage!r} missing"
    assert "Submittal checklist" not in first  # the findings page holds the findings only


def test_html_findings_rows_carry_figures_sections_and_vintage(full_report):
    page = _parse_html(full_report["html"])
    for key, expected in EXPECTED_FINDINGS.items():
        row = _norm(page.rows[f"finding-{key}"])
        for text in expected:
            assert text in row, f"{key}: {text!r} missing from {row!r}"
        if key in SECTIONS:
            assert SECTIONS[key] in row
        if key in VINTAGES:
            assert VINTAGES[key] in row
    assert page.rows["finding-disturbance"].split()[3] == "Yes"  # title words, then status
    assert page.rows["finding-development_type"].split()[4] == "Info"


def test_detail_tables_repeat_exact_values(full_report):
    page = _parse_html(full_report["html"])
    text = page.text
    assert "CVP 5678 Certified Vernal Pool 98.4 no" in text
    assert "PH 1234 Priority Habitat 492.1 no" in text
    assert "AE 13,000 52 ft" in text
    assert "X (0.2% annual chance) shaded X 2,600 n/a" in text
    assert "M-2 010900010502 no HUC12 010900010502 does not contain the site" in text
    # the screening's own reasons are kept, in the details rather than on the findings page
    assert ("Stormwater management permit Land disturbance of 52,000 sq ft is at or above "
            "43,560 sq ft (1 acre): Bylaw ch. 213, Art. II.") in text


def test_html_is_accessible(full_report):
    page = _parse_html(full_report["html"])
    assert page.lang == "en"
    levels = [h[0] for h in page.headings]
    assert levels[0] == 1 and levels.count(1) == 1
    assert all(b - a <= 1 for a, b in zip(levels, levels[1:], strict=False)), levels
    assert [h[1] for h in page.headings if h[0] == 2] == [
        "Findings", "Map", "Details", "Submittal checklist",
        "General requirements of every permit", "Permit timeline",
        "Data sources, checks and parameters"]
    assert page.tables and all(t["caption"] for t in page.tables)
    assert all(t["th"] == t["scoped"] for t in page.tables)
    (img,) = page.images
    assert img["alt"].startswith("Map of the screened site (52,000 sq ft), outlined in red.")
    assert "NHESP Priority Habitat" in img["alt"] and "500 ft from the site" in img["alt"]
    html_text = full_report["html"].read_text(encoding="utf-8")
    assert "@media print" in html_text and "@page { size: letter" in html_text


def test_map_is_embedded_png_in_html_and_image_in_pdf(full_report):
    (img,) = _parse_html(full_report["html"]).images
    prefix = "data:image/png;base64,"
    assert img["src"].startswith(prefix)
    assert base64.b64decode(img["src"][len(prefix):])[:8] == b"\x89PNG\r\n\x1a\n"
    reader = PdfReader(full_report["pdf"])
    pages = _pdf_pages(full_report["pdf"])
    map_page = next(i for i, t in enumerate(pages) if t.startswith("Map Shown: "))
    assert map_page == 1  # right after the findings page
    assert len(reader.pages[map_page].images) == 1


def test_map_caption_lists_exactly_what_the_legend_draws():
    from swm_gis.reports.screening_map import MapImage
    from swm_gis.reports.screening_model import map_caption

    image = MapImage(png=b"", legend=["Limit of disturbance", "100 ft ring", "Parcels"])
    assert map_caption(image) == "Shown: Limit of disturbance; 100 ft ring; Parcels."
    assert map_caption(MapImage(png=b"")) == "The site."


def test_checklist_items_of_320_19_20_21_are_in_both(full_report):
    html_text = _parse_html(full_report["html"]).text
    pdf_text = " ".join(_pdf_pages(full_report["pdf"]))
    items = submittal_checklist(example_document())
    # the copy of the regulation numbers §§ 320-19 to 320-21 only: the procedure by its heading
    assert {i.section for i in items} == {"Ch. 320, permit procedure", "§ 320-19", "§ 320-20",
                                          "§ 320-21"}
    for item in items:
        for text in (html_text, pdf_text):
            assert item.citation in text, item.citation
            assert _norm(item.text) in text, item.text
    for phrase in ("within 500 feet of any construction activity",
                   "including the 100-year flood elevation based upon the most recent Flood "
                   "Insurance Rate Map", "A delineation of 100-year floodplains, if applicable",
                   "Maintenance agreement: estimated operation budget"):
        assert phrase in html_text and phrase in pdf_text
    # the notes tie the checklist to the findings: habitats with distances, the BFE
    assert "Show: Certified Vernal Pool CVP 5678 at 98 ft; Priority Habitat PH 1234 at 492 ft." \
        in html_text
    assert "zone AE, BFE 52 ft" in html_text


def test_timeline_dates_around_patriots_day(full_report):
    # Received Thu Apr 1, 2027 -> hearing by Thu Apr 22 (+21 days). Newspaper: 5 business days
    # before Apr 22 not counting Mon Apr 19 (Patriots' Day): Apr 21, 20, 16, 15, 14 -> Wed Apr 14.
    # Abutters: Apr 22 - 7 = Thu Apr 15. Decision: Apr 22 + 21 = Thu May 13, 2027; expiry three
    # years later, Mon May 13, 2030; renewal request 30 days before: Sat Apr 13, 2030, moved to
    # the business day before, Fri Apr 12.
    for text in (_parse_html(full_report["html"]).text,
                 " ".join(_pdf_pages(full_report["pdf"]))):
        for date in ("Thu Apr 1, 2027", "Thu Apr 22, 2027", "Wed Apr 14, 2027",
                     "Thu Apr 15, 2027", "Thu May 13, 2027", "Mon May 13, 2030",
                     "Sat Apr 13, 2030", "Fri Apr 12, 2030"):
            assert date in text, date
        assert "falls on a Saturday: moved to the business day before, Fri Apr 12, 2030" in text
        for section in ("Ch. 320, permit procedure, B(1)", "Ch. 320, permit procedure, B(2)",
                        "Ch. 320, permit procedure, A(7)", "Ch. 320, permit procedure, J"):
            assert section in text
        assert "§ 320-18" not in text


def test_no_findings_report_says_so_plainly(empty_report):
    first = _pdf_pages(empty_report["pdf"])[0]
    expected = ("A stormwater management permit is not required: neither the site nor its "
                "common plan of development or sale disturbs one acre. Every resource check ran "
                "on data covering the area searched and found nothing that brings an extra "
                "requirement.")
    assert expected in first
    assert ("Not required. The site disturbs 20,000 sq ft (0.46 acres); with its common plan "
            "of development or sale 20,000 sq ft (0.46 acres): neither reaches the one-acre "
            "(43,560 sq ft) trigger.") in first
    page = _parse_html(empty_report["html"])
    assert expected in page.text
    assert "None beyond the standard submittals and the general requirements." in \
        page.rows["finding-requirements"]
    assert "the checklist applies only if a permit application is filed" in page.text
    assert "No receipt date was given, so no dates are computed" in page.text


def test_checks_that_did_not_run_say_not_checked_never_none(tmp_path):
    out = write_screening_report(document_with_failed_checks(), {}, tmp_path)
    page = _parse_html(out["html"])
    habitats = _norm(page.rows["finding-habitats"])
    assert "Not checked" in habitats
    assert ("Not checked: no NHESP priority or estimated habitat and no certified vernal pool "
            "layer configured.") in habitats
    # issue 35: the layers in words, never their config keys ("lacking: nhesp_priority")
    assert ("not configured: NHESP priority habitat layer, NHESP estimated habitat layer, "
            "certified vernal pools layer") in habitats
    assert "nhesp_priority" not in habitats
    receiving = _norm(page.rows["finding-receiving_waters"])
    assert "Not checked: screening.json has no 'receiving_waters' result." in receiving
    assert ("Not checked: NHESP habitats and certified vernal pools within 500 ft; Receiving "
            "waters (ORW, impaired waters).") in page.text
    assert "No map: the screening layers (screening.gpkg) were not given." in page.text
    assert "No feature within 500 ft" not in page.text
    assert "No ORW or impaired water downstream" not in page.text
    first = _pdf_pages(out["pdf"])[0]
    assert "Not checked: no NHESP priority" in first
    # the checklist cannot decide what depends on receiving waters: "Check", not "Not applicable"
    items = {i.citation: i for i in submittal_checklist(document_with_failed_checks())}
    assert items["§ 320-19 B(10)(c)"].applies is None
    assert items["§ 320-19 B(2)"].applies is None


def test_an_empty_document_still_gives_a_report(tmp_path):
    out = write_screening_report({}, None, tmp_path)
    page = _parse_html(out["html"])
    assert "Not checked: screening.json has no 'disturbance' result." in page.text
    assert "The permit trigger was not evaluated." in page.text
    assert _pdf_pages(out["pdf"])[0].startswith("Stormwater Management Permit Screening")


def test_document_is_not_modified(tmp_path):
    doc = example_document()
    before = copy.deepcopy(doc)
    build_report(doc, example_layers())
    assert doc == before


def test_synthetic_town_is_labelled(tmp_path):
    doc = example_document()
    doc["meta"].update(town="Lynnfield (synthetic sample)", synthetic=True)
    out = write_screening_report(doc, None, tmp_path)
    assert "SYNTHETIC SAMPLE DATA" in _pdf_pages(out["pdf"])[0]
    assert "SYNTHETIC SAMPLE DATA" in _parse_html(out["html"]).text


def test_roadway_maintenance_exemption_and_exemption_claim(tmp_path):
    doc = example_document()
    doc["development_type"]["value"] = "redevelopment"
    doc["standards"].update(roadway_maintenance=True, roadway_claimed=True,
                            section="§ 320-19 B(8); B(8)(e) claimed")
    doc["disturbance"].update(permit_required=None, disturbs_trigger_area=True, exemption=[
        {"name": "utilities", "section": "Bylaw 213-16B(5)", "claimed_by": "applicant"}])
    report = build_report(doc)
    f = {x.key: x for x in report.findings}
    assert f["standards"].section == "§ 320-19 B(8); B(8)(e) claimed"
    assert f["standards"].status == "conditional"  # a claim, decided by the Commission
    assert "roadway-maintenance claim (§ 320-19 B(8)(e): exempt from B(8)(a)-(d)" in \
        f["standards"].result
    assert f["disturbance"].status == "conditional"
    assert f["disturbance"].result.startswith(
        "Conditional. The applicant claims an exemption: Bylaw 213-16B(5) (utilities). This is "
        "the applicant's claim; the Conservation Commission decides whether the activity "
        "qualifies. If it does not, a permit is required (the disturbance reaches one acre).")
    assert report.headline.startswith(
        "Whether a stormwater management permit is required is conditional: the applicant "
        "claims an exemption (Bylaw 213-16B(5) (utilities)); this is the applicant's claim, and "
        "the Conservation Commission decides whether it applies.")
    assert "not required" not in report.headline


DOCUMENT_KEYS = ("disturbance", "development_type", "standards", "watersheds", "mitigation",
                 "habitats", "floodplain", "receiving_waters", "checks", "meta")


@settings(max_examples=30, deadline=None)
@given(st.sets(st.sampled_from(DOCUMENT_KEYS)))
def test_any_missing_keys_give_a_report_that_says_what_was_not_evaluated(missing):
    doc = {k: v for k, v in example_document().items() if k not in missing}
    report = build_report(doc)
    html_text = render_html(report)
    by_key = {f.key: f for f in report.findings}
    for key in set(missing) & set(by_key):
        assert by_key[key].status == "not_checked"
        assert f"screening.json has no &#x27;{key}&#x27; result" in html_text
    assert all(f.status in ("yes", "no", "conditional", "not_checked", "info")
               for f in report.findings)


HOSTILE = "<script>alert('x')</script> & \"quoted\""
HOSTILE_HTML = "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; &quot;quoted&quot;"


def test_every_text_the_page_writes_is_escaped():
    """The template is rendered with autoescape: text from the document, the town, the site, a
    note, a table cell or a checklist note never becomes markup, in html.escape's entities."""
    report = build_report(example_document(), received=dt.date(2027, 4, 1))
    report.title = report.town = report.site_label = report.headline = HOSTILE
    report.notes = [HOSTILE]
    report.findings[0] = dataclasses.replace(report.findings[0], key=HOSTILE, result=HOSTILE,
                                             details=(HOSTILE,), source=HOSTILE)
    report.tables[0] = dataclasses.replace(report.tables[0], caption=HOSTILE,
                                           rows=((HOSTILE, HOSTILE),))
    report.checklist[0] = dataclasses.replace(report.checklist[0], note=HOSTILE)
    report.parameters = [(HOSTILE, HOSTILE)]
    page = render_html(report)
    assert "<script>" not in page and "quoted\"" not in page
    # title (twice: <title> and <h1>), town (twice), site, note, headline, finding (id, result,
    # detail, source), detail table (caption, two cells), checklist note, parameter (two cells)
    assert page.count(HOSTILE_HTML) == 2 + 2 + 1 + 1 + 1 + 4 + 3 + 1 + 2


def test_the_template_ships_in_the_wheel():
    """Every template file matches a package-data pattern of pyproject.toml."""
    package = Path(swm_gis.__file__).parent
    patterns = tomllib.loads((package.parent / "pyproject.toml").read_text())["tool"][
        "setuptools"]["package-data"]["swm_gis"]
    templates = [p.relative_to(package).as_posix()
                 for p in (package / "reports" / "templates").iterdir()]
    assert "reports/templates/screening_report.html.j2" in templates
    for name in templates:
        assert any(fnmatch.fnmatch(name, pattern) for pattern in patterns), name


def test_approximate_receiving_waters_are_marked():
    doc = example_document()
    doc["receiving_waters"]["approximate"] = True
    finding = next(f for f in build_report(doc).findings if f.key == "receiving_waters")
    assert finding.status == "yes"  # the waters found are found; what else lies there is open
    assert ("No DEM: the runoff was taken to the nearest mapped stream in a straight line; "
            "configure an elevation (DEM) layer for a flow trace.") in finding.details
    doc["receiving_waters"].update(impaired=[], requirements=[])
    finding = next(f for f in build_report(doc).findings if f.key == "receiving_waters")
    assert finding.status == "conditional"


# --------------------------------------------------------------------------- map
def test_map_legend_lists_only_what_is_in_view():
    layers = example_layers()
    image = render_screening_map(layers)
    assert image.legend == [
        "Limit of disturbance (site)", "100 ft from the site", "500 ft from the site",
        "NHESP Priority Habitat", "Certified Vernal Pool", "100-year floodplain (SFHA)",
        "0.2% annual chance flood", "Stream", "Traced flow path", "Impaired water (4A/4B/5)",
        "HUC12 boundary"]  # the HUC10 boundary lies outside the main map and the overview
    assert image.scale_bar_ft == 250  # main map framed on the 500 ft ring; overview beside
    site_only = render_screening_map({"site": layers["site"]})
    assert site_only.legend == ["Limit of disturbance (site)", "100 ft from the site",
                                "500 ft from the site"]
    # the view spans the 500 ft ring (200 ft + 2 x 500 ft = 1,200 ft wide at least)
    assert site_only.scale_bar_ft in (250, 500)
    assert render_screening_map({}) is None


def test_map_reads_a_watersheds_layer_with_levels_and_feet_crs():
    layers = example_layers()
    hucs = gpd.GeoDataFrame(
        {"level": ["HUC12", "HUC10"], "huc": ["010900010501", "0109000105"]},
        geometry=[box(X0 + 30, Y0 - 2000, X0 + 4000, Y0 + 2000),  # west edge crosses the site
                  box(X0 - 50, Y0 - 50, X0 + 400, Y0 + 300)],
        crs=CRS)
    image = render_screening_map({"site": layers["site"].to_crs("EPSG:2249"),
                                  "watersheds": hucs})
    assert "HUC12 boundary" in image.legend and "HUC10 boundary" in image.legend
    assert _units_per_ft(gpd.GeoSeries(crs="EPSG:2249").crs) == pytest.approx(1.0, abs=1e-5)
    assert _units_per_ft(gpd.GeoSeries(crs=CRS).crs) == pytest.approx(0.3048)
    with pytest.raises(CrsError, match="projected"):
        _units_per_ft(gpd.GeoSeries(crs="EPSG:4326").crs)


def test_map_reads_screening_gpkg_layer_shapes():
    """Layers as swm-gis screen writes them: one receiving_waters layer of lines and polygons
    with a type, a buffer_500ft ring, flood zones including minimal-hazard X (not drawn)."""
    layers = example_layers()
    far = X0 + 3000  # the receiving water lies far downstream: shown in the overview only
    site_ring = layers["site"].geometry.iloc[0].buffer(500 * FT)
    image = render_screening_map({
        "site": layers["site"],
        "buffer_500ft": gpd.GeoDataFrame({"what": ["500 ft (display only)"]},
                                         geometry=[site_ring], crs=CRS),
        "flood_zones": gpd.GeoDataFrame(
            {"zone": ["X"], "subtype": ["AREA OF MINIMAL FLOOD HAZARD"], "sfha": [False],
             "shaded_x": [False]}, geometry=[box(X0 - 500, Y0 - 500, X0 + 500, Y0 + 500)],
            crs=CRS),
        "flow_path": gpd.GeoDataFrame(geometry=[LineString([(X0 + 30, Y0 + 40), (far, Y0)])],
                                      crs=CRS),
        "receiving_waters": gpd.GeoDataFrame(
            {"type": ["impaired", "orw"], "id": ["MA1", "ORW-1"]},
            geometry=[box(far - 100, Y0 - 100, far, Y0 + 100),
                      LineString([(far, Y0), (far + 500, Y0)])], crs=CRS),
    })
    assert image.legend == ["Limit of disturbance (site)", "100 ft from the site",
                            "500 ft from the site", "Traced flow path",
                            "Impaired water (4A/4B/5)", "Outstanding Resource Water"]
    assert image.scale_bar_ft == 250  # the main map stays on the site and its rings


# --------------------------------------------------------------------------- chromium
def test_html_renders_in_headless_chromium(full_report, tmp_path):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    assert chromium, ("Debian's chromium package is needed to render the report "
                      "(apt-get install -y chromium; make test installs it)")
    png = tmp_path / "report.png"
    cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={png}",
           "--window-size=1200,1600", full_report["html"].resolve().as_uri()]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0 and png.is_file(), done.stderr[-2000:]
    pixels = np.asarray(Image.open(png).convert("L"))
    assert pixels.shape == (1600, 1200)
    dark = (pixels < 128).mean()  # text and rules
    assert 0.01 < dark < 0.5, dark
    assert len(np.unique(pixels)) > 50  # anti-aliased text, not a flat page
    # the top of the page holds the title: some dark pixels in the first 120 rows
    assert (pixels[:120] < 128).any()



def test_parameters_are_in_words_and_units(full_report):
    text = _parse_html(full_report["html"]).text
    assert "Development type measured from the existing impervious layer" \
        in text
    # the number given is the proposed cover inside the limit of disturbance (issue 32): the
    # total adds the existing cover outside it that stays
    assert "Proposed impervious area inside the limit of disturbance 20,000 sq ft" in text
    doc = example_document()
    doc["meta"]["parameters"].update(exemptions=[], roadway_maintenance=False, common_plan=None)
    doc["meta"]["rules"] = {"trigger_sqft": 43560.0, "tss_removal_new": 0.9,
                            "retention_new_in": 1.0, "habitat_distance_ft": 500.0}
    rows = dict(build_report(doc).parameters)
    assert rows["Exemptions (Bylaw 213-16B)"] == "no exemption claimed"
    assert rows["Roadway maintenance only (§ 320-19 B(8)(e))"] == "no"
    assert rows["Common plan of development or sale"] == (
        "not given (the permit trigger is conditional below one acre)")
    assert rows["Permit trigger"] == "43,560 sq ft (1 acre)"
    assert rows["TSS removal, new development"] == "90%"
    assert rows["Retention depth, new development"] == "1 in"
    assert rows["NHESP search distance"] == "500 ft"
    assert not any(v in ("False", "True", "43560.0", "None") for v in rows.values())


def test_the_sample_sites_figures_are_the_same_in_json_html_and_pdf(sample_demo):
    """Issue 32: the demo site's total post-construction impervious area (28,309 sq ft proposed
    + 52,382 sq ft existing on its lot outside the limit that stays = 80,691 sq ft; 0.8 in / 12
    x 80,691 = 5,379 cu ft), its SFHA split (9,442 sq ft on the lot: 3,030 inside the limit,
    6,412 outside, 7,248 inside the limit off the lot) and the land of others the limit lies on
    are printed alike by the document, the HTML and the PDF report."""
    doc = sample_demo.screening("site")
    folder = sample_demo.screen / "site"
    html = _norm(_parse_html(folder / HTML_NAME).text)
    pdf = _norm(" ".join(_pdf_pages(folder / PDF_NAME)))
    by_key = {f["key"]: f for f in doc["findings"]}
    standards = by_key["standards"]["answer"]
    assert ("Retain 5,379 cu ft (0.8 in x 80,691 sq ft, the total post-construction impervious "
            "area on the site: 28,309 sq ft proposed + 52,382 sq ft existing on the site's "
            "parcel(s) outside the limit of disturbance that stays)") in standards
    flood = by_key["floodplain"]["answer"]
    split = ("SFHA on the site's parcel(s): 9,442 sq ft, 3,030 sq ft inside the limit of "
             "disturbance and 6,412 sq ft outside it; inside the limit off the parcel(s): "
             "7,248 sq ft (10,278 sq ft in the limit of disturbance in all).")
    # issue 35: the limit's own total (3,030 + 7,248, unrounded 10,277.7) is the figure the
    # document's floodplain block (and the plugin's SFHA_AREA_SQFT) holds
    assert round(doc["floodplain"]["sfha_area_sqft"]) == 10_278
    assert split in flood
    land = next(w for w in doc["warnings"] if w["code"] == "disturbance_on_land_of_others")
    assert [(e["id"], e["kind"], round(e["sqft"])) for e in land["land"]] == [
        ("M_238113_918446", "ROW", 11_733), ("M_237877_918550", "parcel", 3_647)]
    for text in (standards, split, land["text"]):
        assert _norm(text) in html, text[:60]
        # the PDF may break a line inside a word pair: compare without spaces
        assert _norm(text).replace(" ", "") in pdf.replace(" ", ""), text[:60]


@pytest.mark.slow
def test_a_site_covering_the_whole_sample_town_gets_its_report(tmp_path):
    """Issue 32 item 6: the sample town's boundary as the site (2,228 acres). Its floodplain
    finding names every parcel in the SFHA, a findings cell taller than any page (reportlab's
    LayoutError before): the row continues on further rows, across pages, and every parcel
    id the finding names is printed in the PDF."""
    from support.townkit import SAMPLE_CONFIG

    town = gpd.read_file(SAMPLE_CONFIG.parent / "sample.gpkg", layer="town_boundary")
    result = swm_gis.screen(SAMPLE_CONFIG, town[["geometry"]])
    flood = next(f for f in result.findings if f["key"] == "floodplain")
    assert len(flood["answer"]) > 20_000  # one cell of the findings table
    paths = write_screening_report(result.document, result.layers, tmp_path)
    pages = _pdf_pages(paths["pdf"])
    assert len(pages) > 20
    assert sum("(continued)" in p for p in pages) > 5
    text = " ".join(pages).replace(" ", "")
    named = [p["id"] for p in result.document["floodplain"]["subject_parcels"]["parcels"]
             if p["in_sfha"]]
    assert named and all(pid in text for pid in named)


def test_a_cell_taller_than_a_page_is_cut_into_continued_rows(tmp_path):
    """3,000 parcel ids in one cell (about 6,000 pt tall at 3 in): each piece is at most
    MAX_CELL_PT (480 pt), the rows after the first say "(continued)", and the PDF laid out on
    US Letter pages prints every id once."""
    from reportlab.lib.pagesizes import letter
    from reportlab.platypus import Paragraph, SimpleDocTemplate

    from swm_gis.reports import screening_pdf as sp

    kit = sp._Kit()
    words = [f"M_{n:06d}" for n in range(3000)]
    cell = Paragraph(", ".join(words), kit.small)
    data = [[kit.p("Finding"), kit.p("Result")], [kit.p("Floodplain"), cell]]
    rows, origin = sp._continued(data, [100.0, 216.0 - 6], kit.p("(continued)"))
    assert origin[0] == 0 and set(origin[1:]) == {1} and len(rows) > 3
    assert all(r[1].wrap(210.0, 1e9)[1] <= sp.MAX_CELL_PT for r in rows[1:])
    assert [r[0].text for r in rows[2:]] == ["(continued)"] * (len(rows) - 2)
    pdf = tmp_path / "t.pdf"
    SimpleDocTemplate(str(pdf), pagesize=letter).build(
        kit.table(["Finding", "Result"], [["Floodplain", ", ".join(words)]], [1.4, 3.0]))
    text = " ".join(_pdf_pages(pdf)).replace(" ", "")
    assert len(PdfReader(pdf).pages) > 5
    assert all(text.count(w) == 1 for w in words)


def test_a_conditional_permits_timeline_says_if_a_permit_is_required():
    """Issue 32 item 9: without the town's MS4 statement the permit is conditional (no MS4
    layer), and the timeline, in the HTML and the PDF alike, opens "If a permit is required"."""
    from swm_gis.reports.screening_pdf import render_pdf

    doc = example_document()
    doc["disturbance"]["ms4"]["assumed_by_town"] = False
    report = build_report(doc, None, received=dt.date(2027, 4, 1))
    assert next(f for f in report.findings if f.key == "disturbance").status == "conditional"
    assert report.timeline_intro.startswith(
        "If a permit is required (the permit finding is conditional), this is its timeline. "
        "Computed from the application received on Thursday, April 1, 2027.")
    assert report.timeline_intro in render_html(report)
    pdf_text = " ".join(p.extract_text() or "" for p in PdfReader(
        io.BytesIO(render_pdf(report))).pages)
    assert "If a permit is required (the permit finding is conditional)" in " ".join(
        pdf_text.split())
    decided = build_report(example_document(), None, received=dt.date(2027, 4, 1))
    assert decided.timeline_intro.startswith("Computed from the application received")


@pytest.mark.parametrize(("typed", "printed"), [
    ("Lynnfield", "Town of Lynnfield"),
    ("Town of Lynnfield", "Town of Lynnfield"),  # issue 35: never "Town of Town of Lynnfield"
    ("City of Salem", "City of Salem"),
])
def test_the_town_is_named_once_whatever_the_name_typed_says(tmp_path, typed, printed):
    doc = example_document()
    doc["meta"]["town"] = typed
    out = write_screening_report(doc, None, tmp_path)
    first, html = _pdf_pages(out["pdf"])[0], _parse_html(out["html"]).text
    for text in (first, html):
        assert printed in text
        assert "Town of Town" not in text and "Town of City" not in text


def _stored_styles(gpkg: Path) -> dict[str, list[tuple[str, int]]]:
    import sqlite3

    con = sqlite3.connect(f"file:{gpkg}?mode=ro", uri=True)
    try:
        rows = con.execute("SELECT f_table_name, styleName, useAsDefault, styleQML "
                           "FROM layer_styles ORDER BY id").fetchall()
    finally:
        con.close()
    assert all(qml.startswith("<!DOCTYPE qgis") or "<qgis" in qml[:300] for *_, qml in rows)
    out: dict[str, list[tuple[str, int]]] = {}
    for layer, name, default, _qml in rows:
        out.setdefault(layer, []).append((name, default))
    return out


def test_screening_and_abutters_geopackages_carry_their_qgis_styles(sample_demo):
    """Issue 35: screening.gpkg (and abutters.gpkg) store the QGIS style of each mapped layer
    in layer_styles, so QGIS shows them on opening the file; a layer of two geometry types
    carries one style per type, the polygon or line one its default."""
    screening = _stored_styles(sample_demo.screen / "site" / "screening.gpkg")
    assert screening == {
        "site": [("site", 1)],
        "mitigation": [("mitigation", 1)], "watersheds": [("watersheds", 1)],
        "habitats": [("habitats", 1), ("vernal_pools", 0)],
        "buffer_500ft": [("search_area", 1)], "flood_zones": [("flood_zones", 1)],
        "flood_overlap": [("flood_zones", 1)], "flow_path": [("flow_path", 1)],
        "receiving_waters": [("receiving_waters", 1), ("receiving_water_areas", 0)]}
    abutters = _stored_styles(sample_demo.abutters / "abutters.gpkg")
    assert abutters == {"search_area": [("search_area", 1)],
                        "abutting_parcels": [("abutting_parcels", 1)]}


def test_qgis_opens_screening_gpkg_with_its_stored_style(sample_demo, qgis_app):
    """QGIS applies the stored default on opening: the watersheds come categorized by level
    and the mitigation sites by eligibility (the styles' renderers), not in QGIS's single
    random colour."""
    from qgis.core import QgsVectorLayer

    gpkg = sample_demo.screen / "site" / "screening.gpkg"
    for name, attr in (("watersheds", "level"), ("mitigation", "eligible")):
        layer = QgsVectorLayer(f"{gpkg}|layername={name}", name, "ogr")
        assert layer.isValid(), name
        assert layer.renderer().type() == "categorizedSymbol", name
        assert layer.renderer().classAttribute() == attr, name


def _parted_words(pdf: Path, html: Path) -> list[tuple[str, str]]:
    """Words the PDF parts across two lines: a line ending in a piece of a word of the report
    (its HTML text) and the next line starting with the rest. A line may end after a "/",
    "_", ".", ":" or "-" of a long name (where the PDF breaks file paths on purpose)."""
    def clean(token: str) -> str:
        return token.strip(",;()")

    words = {clean(t) for t in _parse_html(html).text.split()}
    lines = [line.split() for page in PdfReader(pdf).pages
             for line in (page.extract_text() or "").splitlines() if line.split()]
    return [(a[-1], b[0]) for a, b in zip(lines, lines[1:], strict=False)
            if not a[-1].endswith(("/", "_", ".", ":", "-")) and clean(a[-1]) not in words
            and clean(a[-1] + b[0]) in words]


def test_pdf_table_cells_never_part_a_word(sample_demo):
    """Issue 35: the demo's PDF printed "redevelop ment" (the findings' first column) and
    "sites.g pkg:common_plan" (its data column): columns now fit their widest word."""
    folder = sample_demo.screen / "site"
    assert _parted_words(folder / PDF_NAME, folder / HTML_NAME) == []


def test_a_long_file_name_breaks_after_its_separators_only(tmp_path):
    """A data source named by a long path (Cambridge's INFRA_Drainage.geojson) in the
    findings' 1.25 in data column: broken after "/", "_" or "." only, every piece whole."""
    doc = example_document()
    name = "INFRA_Drainage_Structures_Catch_Basins_And_Outfalls_2024.geojson"
    doc["checks"][6]["source"] = _src("flood_zones", name, "S_FLD_HAZ_AR")
    out = write_screening_report(doc, None, tmp_path)
    assert _parted_words(out["pdf"], out["html"]) == []
    text = "".join("".join(p.extract_text().split()) for p in PdfReader(out["pdf"]).pages)
    assert name in text  # every letter printed, in order
    first = PdfReader(out["pdf"]).pages[0].extract_text()
    assert any(line.strip().endswith(("_", ".", "/")) for line in first.splitlines())

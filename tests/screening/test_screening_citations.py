"""No screening output cites a section number the copy of Chapter 320 does not give (issue 24).

The copy numbers §§ 320-19, 320-20 and 320-21 (and quotes Bylaw § 213-16B, MGL c. 131, § 40 and
c. 21, §§ 23 through 56); the permit procedure, inspections, waivers and final reports carry no
number and are cited by their heading. The check (``tests/support/chapter320.py``) reads every
output of
a folder, so it can be pointed at an abutter package as well.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.chapter320 import numbers_absent, regulation_numbers, section_numbers
from support.townkit import REPO

import swm_gis


@pytest.fixture(scope="module")
def sample_outputs(tmp_path_factory) -> Path:
    """The sample town's site screened with its proposed surfaces, a receipt date and a claim,
    written with the report (JSON, GeoPackage, HTML, PDF)."""
    sample = REPO / "data" / "sample"
    sites = sample / "sites.gpkg"
    town = swm_gis.load_config(sample / "town.toml")
    out = tmp_path_factory.mktemp("screen")
    result = swm_gis.screen(town, f"{sites}:site",
                            proposed_impervious=f"{sites}:proposed_impervious",
                            mitigation=f"{sites}:mitigation", roadway_maintenance=True,
                            received="2026-11-05")
    result.write(out)
    return out


def test_the_regulation_gives_these_numbers_only():
    assert regulation_numbers() == {"320-19", "320-20", "320-21", "213-16", "40", "23"}


def test_a_number_the_text_does_not_give_is_caught(tmp_path):
    (tmp_path / "report.html").write_text("<p>Chapter 320 § 320-18 A(7)</p>", encoding="utf-8")
    (tmp_path / "ok.txt").write_text("§ 320-19 B(9); Bylaw 213-16B(6)", encoding="utf-8")
    assert numbers_absent(tmp_path) == {"report.html": {"320-18"}}
    assert section_numbers("M.G.L. c. 4, § 9") == {"9"}


@pytest.mark.slow
def test_no_screening_output_cites_a_number_absent_from_the_regulation(sample_outputs):
    written = {p.name for p in sample_outputs.iterdir()}
    assert {"screening.json", "screening_report.html", "screening_report.pdf"} <= written
    assert numbers_absent(sample_outputs) == {}


@pytest.mark.slow
def test_the_timeline_moves_thanksgiving_and_cites_the_procedure_by_heading(sample_outputs):
    html = (sample_outputs / "screening_report.html").read_text(encoding="utf-8")
    # received Thu Nov 5, 2026 + 21 days = Thu Nov 26, Thanksgiving -> Wed Nov 25
    assert ("The computed latest day, Thu Nov 26, 2026, falls on Thanksgiving Day: moved to the "
            "business day before, Wed Nov 25, 2026.") in html
    assert "Ch. 320, permit procedure, A(7)" in html
    assert "by certified mail, return receipt requested, or by certificates of mailing" in html


@pytest.mark.slow
def test_no_abutter_package_output_cites_a_number_absent_from_the_regulation(tmp_path):
    """The same check over an abutter package (certification, mailing book, labels, lists)."""
    town = swm_gis.load_config(REPO / "data" / "sample" / "town.toml")
    pkg = swm_gis.abutter_package(town, parcels="M_236682_917765")
    pkg.write(tmp_path)
    written = {p.name for p in tmp_path.iterdir()}
    assert {"certification.pdf", "certified_mail.pdf", "mailing_list.csv"} <= written
    assert numbers_absent(tmp_path) == {}
    book = (tmp_path / "abutters.json").read_text(encoding="utf-8")
    assert "320-18" not in book

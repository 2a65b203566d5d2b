"""The mailing package read back: CSV/XLSX cells, Avery label geometry, the PS Form 3877 book and
the map (PDFs through pypdf)."""

from __future__ import annotations

import csv
import re

import geopandas as gpd
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pypdf import PdfReader
from reportlab.pdfbase.pdfmetrics import stringWidth
from shapely.geometry import box

from swm_gis.notification.info import PackageInfo
from swm_gis.reports.abutters_map import write_abutters_map
from swm_gis.reports.certified_mail import unfit_addressees, write_certified_mail
from swm_gis.reports.labels import (
    SHEETS,
    fit_address,
    fit_lines,
    label_lines,
    unfit_addresses,
    write_labels,
)
from swm_gis.reports.mailing import (
    write_abutting_csv,
    write_left_out_csv,
    write_mailing_csv,
    write_mailing_xlsx,
)
from swm_gis.reports.pdf_fonts import find_font_file, register_fonts

ACCENTED = "Désirée Côté-Łukasiewicz"
FORMULA = '=HYPERLINK("http://evil","click")'
LONG = ("THE EXTRAORDINARILY LONG NAMED NOMINEE REALTY TRUST OF NINETEEN HUNDRED AND "
        "NINETY-NINE, JONATHAN Q. WORTHINGTON-SMYTHE III AND PENELOPE A. WORTHINGTON-SMYTHE, "
        "TRUSTEES")
INFO = PackageInfo(town="Testtown", subject_ids=("M_1",), distance_ft=100.0,
                   fiscal_years=("2025",),
                   sources=({"key": "parcels", "file": "/data/p.gpkg", "layer": "parcels",
                             "modified": "2025-01-01T00:00:00+00:00"},),
                   sender=("Ann Applicant", "1 Main St", "Lynnfield MA 01940"))


def recips(n: int) -> pd.DataFrame:
    rows = []
    for i in range(1, n + 1):
        name = {1: ACCENTED, 2: FORMULA, 3: LONG}.get(i, f"OWNER {i:03d}")
        rows.append({"owner_name": name, "co_owner": "", "address1": f"{i} ELM ST",
                     "address2": "", "mail_address": f"{i} ELM ST", "mail_city": "LYNNFIELD",
                     "mail_state": "MA", "mail_zip": "01940" if i % 2 else "01940-0001",
                     "mail_country": "", "parcel_ids": f"P{i}", "note": ""})
    return pd.DataFrame(rows)


def _rows(path):
    with open(path, encoding="utf-8-sig", newline="") as fh:
        return list(csv.reader(fh))


# --------------------------------------------------------------------------- CSV / XLSX
def test_mailing_csv_is_header_and_one_row_per_recipient(tmp_path):
    path = write_mailing_csv(recips(3), INFO, tmp_path / "mailing_list.csv")
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    rows = _rows(path)
    assert rows[0][:8] == ["owner_name", "co_owner", "mail_address", "mail_city", "mail_state",
                           "mail_zip", "mail_country", "parcel_ids"]
    assert rows[0][8:] == ["is_subject", "note"]
    assert rows[1][0] == ACCENTED
    assert rows[2][0] == "'" + FORMULA
    assert rows[1][5] == "01940" and rows[2][5] == "01940-0001"
    assert len(rows) == 4  # header + 3 recipients, nothing after (a mail merge reads it as is)
    with open(path, encoding="utf-8-sig", newline="") as fh:
        assert len(list(csv.DictReader(fh))) == 3
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    assert len(df) == 3 and list(df["mail_zip"]) == ["01940", "01940-0001", "01940"]


def test_mailing_xlsx_table_sheet_then_certification_sheet(tmp_path):
    from openpyxl import load_workbook

    info = PackageInfo(**{**INFO.__dict__, "counts": {"mailable": 3, "duplicates_removed": 2,
                                                       "no_mailing_address": 1}})
    review = pd.DataFrame({"issue": ["no_mailing_address"], "group": [0],
                           "owner_name": ["NO ADDRESS, ANN"], "parcel_ids": ["P9"],
                           "reason": ["no mailing address"]})
    path = write_mailing_xlsx(recips(3), info, tmp_path / "mailing_list.xlsx", review=review)
    wb = load_workbook(path)
    assert wb.sheetnames == ["Mailing list", "Certification", "Review"]
    ws = wb["Mailing list"]
    assert ws["A1"].value == "owner_name"
    assert ws["A2"].value == ACCENTED
    assert ws["A3"].value == "'" + FORMULA and ws["A3"].data_type == "s"
    assert ws["F2"].value == "01940" and ws["F2"].data_type == "s"
    assert ws.max_row == 4  # header + 3 recipients
    cert = [c.value for c in wb["Certification"]["A"] if c.value]
    assert any(str(v).startswith("CERTIFICATION BY THE BOARD OF ASSESSORS") for v in cert)
    assert "1 owner(s) with no mailing address: not mailed (see the review list)" in cert
    assert any("FY2025" in str(v) for v in cert) and str(cert[-1]).startswith("Date:")
    assert any("file modified 2025-01-01 (not the data date)" in str(v) for v in cert)
    assert wb["Review"]["C2"].value == "NO ADDRESS, ANN"
    assert not any(str(c.value).startswith("=") for s in wb.worksheets for row in s.iter_rows()
                   for c in row if c.value is not None)


def test_abutting_and_left_out_csv_columns(tmp_path):
    listed = pd.DataFrame({"parcel_id": ["A", "=B"], "map_par_id": ["1-1", "1-2"],
                           "town_id": [164, 999], "site_address": ["1 Elm St", "+2 Elm"],
                           "distance_ft": [99.967192, 32.8084], "map_no": [1, 2],
                           "poly_type": ["FEE", "FEE"], "owner_of_record": [True, False],
                           "other_town": [False, True], "note": ["", "other town: 999"]})
    rows = _rows(write_abutting_csv(listed, INFO, tmp_path / "abutting_parcels.csv"))
    assert rows[0][:5] == ["parcel_id", "map_par_id", "town_id", "site_address", "distance_ft"]
    assert rows[1][:5] == ["A", "1-1", "164", "1 Elm St", "99.97"]
    assert rows[2][0] == "'=B" and rows[2][3] == "'+2 Elm"
    assert rows[2][rows[0].index("other_town")] == "yes"
    left = pd.DataFrame({"parcel_id": ["R"], "poly_type": ["ROW"], "distance_ft": [0.0],
                         "reason": ["ROW polygon ... no owner"]})
    rows = _rows(write_left_out_csv(left, INFO, tmp_path / "left_out.csv"))
    assert rows[0] == ["parcel_id", "map_par_id", "town_id", "poly_type", "distance_ft",
                       "reason"]
    assert rows[1][-1] == "ROW polygon ... no owner"


# --------------------------------------------------------------------------- labels
def _page_text(reader, i):
    return reader.pages[i].extract_text()


def test_labels_5160_page_size_30_per_page_and_text(tmp_path):
    path = write_labels(recips(35), INFO, tmp_path / "labels.pdf")
    reader = PdfReader(path)
    assert len(reader.pages) == 2
    for page in reader.pages:
        assert (float(page.mediabox.width), float(page.mediabox.height)) == (612, 792)
    first, second = _page_text(reader, 0), _page_text(reader, 1)
    on_first = {int(m) for m in re.findall(r"(\d+) ELM ST", first)}
    on_second = {int(m) for m in re.findall(r"(\d+) ELM ST", second)}
    assert on_first == set(range(1, 31)) and len(on_first) == 30
    assert on_second == set(range(31, 36))
    assert ACCENTED in first  # the accent survives (embedded Unicode font)
    assert "WORTHINGTON" in first.replace("\n", " ")


def _label_origins(path):
    """x, y of every '... ELM ST' line drawn on page 1."""
    found = []

    def visit(text, cm, tm, font_dict, font_size):
        if text.strip().endswith("ELM ST"):
            found.append((round(tm[4], 2), round(tm[5], 2)))

    PdfReader(path).pages[0].extract_text(visitor_text=visit)
    return found


def test_label_grid_geometry_and_printer_offset(tmp_path):
    plain = _label_origins(write_labels(recips(30), INFO, tmp_path / "a.pdf"))
    xs = sorted({x for x, _ in plain})
    assert len(xs) == 3
    # columns 2.625 in + 0.125 in gutter = 198 pt apart; first text 0.1875 + 0.12 in from edge
    assert xs[1] - xs[0] == pytest.approx(198, abs=0.01)
    assert xs[0] == pytest.approx((0.1875 + 0.12) * 72, abs=0.01)
    shifted = _label_origins(write_labels(recips(30), INFO, tmp_path / "b.pdf",
                                          offset_in=(0.1, 0.05)))
    moved_back = [v for x, y in shifted for v in (x - 7.2, y + 3.6)]  # 0.1 in right, 0.05 down
    assert moved_back == pytest.approx([v for xy in plain for v in xy], abs=0.01)


@pytest.mark.parametrize(("template", "per_page"), [("5160", 30), ("5161", 20), ("5162", 14),
                                                    ("5163", 10)])
def test_label_templates_fill_the_letter_sheet(tmp_path, template, per_page):
    sheet = SHEETS[template]
    assert sheet.per_page == per_page
    width = 2 * sheet.side_margin + sheet.cols * sheet.label_w + (sheet.cols - 1) * sheet.gutter
    assert width == pytest.approx(8.5)
    assert 2 * sheet.top_margin + sheet.rows * sheet.label_h == pytest.approx(11.0)
    reader = PdfReader(write_labels(recips(per_page + 1), INFO, tmp_path / "l.pdf",
                                    template=template))
    assert len(reader.pages) == 2
    assert len(re.findall(r"\d+ ELM ST", _page_text(reader, 0))) == per_page


def test_long_text_wraps_or_shrinks_and_never_overflows():
    font, _ = register_fonts()
    width, height = (2.625 - 0.24) * 72, (1 - 0.12) * 72
    lines = label_lines({"owner_name": LONG, "co_owner": LONG, "address1": "1 ELM ST",
                         "mail_city": "LYNNFIELD", "mail_state": "MA", "mail_zip": "01940"})
    size, fitted = fit_lines(lines, width_pt=width, height_pt=height, font=font)
    assert 5 <= size < 10
    assert all(stringWidth(line, font, size) <= width for line in fitted)
    assert len(fitted) * size * 1.18 <= height
    short_size, short = fit_lines(["ANN LEE", "1 ELM ST"], width_pt=width, height_pt=height,
                                  font=font)
    assert (short_size, short) == (10, ["ANN LEE", "1 ELM ST"])
    one_word = fit_lines(["X" * 1000], width_pt=width, height_pt=height, font=font)
    assert all(stringWidth(line, font, one_word[0]) <= width for line in one_word[1])
    assert one_word[1][-1].endswith("…")


def test_unicode_font_is_found():
    assert find_font_file("DejaVuSans.ttf") is not None
    assert register_fonts()[0] == "SwmSans"


# --------------------------------------------------------------------------- PS Form 3877
def test_certified_mail_book_pages_lines_and_totals(tmp_path):
    path = write_certified_mail(recips(17), INFO, tmp_path / "certified_mail.pdf")
    reader = PdfReader(path)
    assert len(reader.pages) == 3  # 8 + 8 + 1 articles
    page = reader.pages[0]
    assert (float(page.mediabox.width), float(page.mediabox.height)) == (792, 612)  # landscape
    first, last = _page_text(reader, 0), _page_text(reader, 2)
    assert "Name and Address of Sender" in first and "Ann Applicant" in first
    assert "Total Number of Pieces Listed by Sender: 8" in first
    assert "Total Number of Pieces Listed by Sender: 1" in last
    assert "All pages together: 17 piece(s)." in last
    assert "PS Form 3877" in first and "Postage" in first
    assert ACCENTED in first and "17 ELM ST" in last
    assert "FY2025" in first and "M_1" in first


# --------------------------------------------------------------------------- map
def test_map_has_legend_north_arrow_scale_vintage_and_key(tmp_path):
    crs = "EPSG:26986"
    subject = gpd.GeoDataFrame({"id": ["S"]}, geometry=[box(0, 0, 50, 50)], crs=crs)
    listed = gpd.GeoDataFrame(
        {"id": ["A", "D"], "map_no": [1, 2], "distance_ft": [99.97, 32.81],
         "site_address": ["1 Elm St", "2 Elm St"], "owners": [ACCENTED, "BOB"],
         "note": ["", "other town: town id 999"], "owner_of_record": [True, True],
         "other_town": [False, True]},
        geometry=[box(80.47, 0, 130.47, 50), box(0, -60, 50, -10)], crs=crs)
    left = gpd.GeoDataFrame({"id": ["ROW"]}, geometry=[box(-15, -100, 0, 150)], crs=crs)
    from swm_gis.rules.abutters import search_area

    area = search_area(subject, distance_ft=100)
    path = write_abutters_map(subject, area, listed, left, INFO, tmp_path / "map.pdf",
                              context=listed)
    reader = PdfReader(path)
    assert len(reader.pages) == 2
    text = _page_text(reader, 0)
    for needle in ("Legend", "N", "ft", "Subject property", "100 ft from the property line",
                   "FY2025", "Left out"):
        assert needle in text
    key = _page_text(reader, 1)
    assert "1 Elm St" in key and ACCENTED in key and "other town: town id 999" in key


# --------------------------------------------------------------------------- over-long names
NAME_260 = "THE " + "VERY " * 42 + "LONG NAMED NOMINEE REALTY TRUST OF NEWBURYPORT"


def _long_rec(**over):
    rec = {"owner_name": NAME_260, "co_owner": NAME_260, "address1": "7 DEBSTON LN",
           "address2": "", "mail_address": "7 DEBSTON LN", "mail_city": "LYNNFIELD",
           "mail_state": "MA", "mail_zip": "01940-1234", "mail_country": "",
           "parcel_ids": "P1", "note": ""}
    return {**rec, **over}


def test_260_character_names_never_cost_the_street_and_zip_lines(tmp_path):
    """Owner and co-owner of 260 characters each do not fit on a 5160 label or in a PS 3877 cell
    even at 5 pt: the names end with an ellipsis and the address is printed whole."""
    assert len(NAME_260) == 260
    frame = pd.DataFrame([_long_rec(), _long_rec(co_owner="")])
    for path in (write_labels(frame, INFO, tmp_path / "labels.pdf"),
                 write_certified_mail(frame, INFO, tmp_path / "certified_mail.pdf")):
        text = _page_text(PdfReader(path), 0)
        assert text.count("7 DEBSTON LN") == 2, path.name
        assert text.count("LYNNFIELD, MA 01940-1234") == 2, path.name
        assert "…" in text and "THE VERY VERY" in text
    font, _ = register_fonts()
    width, height = (2.625 - 0.24) * 72, (1 - 0.12) * 72
    both = fit_address([NAME_260, NAME_260], ["7 DEBSTON LN", "LYNNFIELD, MA 01940-1234"],
                       width_pt=width, height_pt=height, font=font)
    assert both.size == 5 and both.cut == "name"
    assert both.lines[-2:] == ["7 DEBSTON LN", "LYNNFIELD, MA 01940-1234"]
    assert both.lines[-3].endswith("…")
    assert all(stringWidth(line, font, 5) <= width for line in both.lines)
    assert len(both.lines) * 5 * 1.18 <= height
    # one 260-character name alone wraps (and shrinks) but is printed whole
    one = fit_address([NAME_260], ["7 DEBSTON LN", "LYNNFIELD, MA 01940-1234"], width_pt=width,
                      height_pt=height, font=font)
    assert one.cut == "" and " ".join(one.lines[:-2]) == NAME_260.strip()
    assert not any(line.endswith("…") for line in one.lines)


def test_an_address_that_cannot_fit_is_reported_not_silently_cut():
    frame = pd.DataFrame([_long_rec(owner_name="ANN LEE", co_owner=""),
                          _long_rec(owner_name="BOB ROE", co_owner="",
                                    address1="UNIT " + "9" * 40 + " " + "ELM STREET " * 60)])
    assert unfit_addresses(frame) == ["BOB ROE"]
    assert unfit_addressees(frame) == ["BOB ROE"]
    assert unfit_addresses(frame.iloc[:1]) == [] and unfit_addressees(frame.iloc[:0]) == []
    from swm_gis.reports.certified_mail import address_fit_warning

    found = address_fit_warning(frame)
    assert found["code"] == "address_does_not_fit"
    assert "of 1 recipient(s)" in found["text"] and "BOB ROE" in found["text"]
    assert address_fit_warning(frame.iloc[:1]) is None


_TEXT = st.text(alphabet=st.sampled_from("ABCÉŁ 0123456789-,./#&'"), max_size=300)


@settings(max_examples=80, deadline=None)
@given(names=st.lists(_TEXT, max_size=3), address=st.lists(_TEXT, max_size=4),
       box=st.sampled_from([((2.625 - 0.24) * 72, (1 - 0.12) * 72), (244.0, 40.0), (60.0, 12.0)]))
def test_fit_address_stays_in_its_box_and_keeps_the_address_unless_it_says_so(names, address,
                                                                              box):
    """Any names and address lines (hostile: empty, blank, one 300-character word): every line
    fits the box, and unless ``cut == "address"`` the address is printed whole, last."""
    font, _ = register_fonts()
    width, height = box
    names = [n for n in names if n.strip()]
    address = [a for a in address if a.strip()]
    fitted = fit_address(names, address, width_pt=width, height_pt=height, font=font)
    assert 5 <= fitted.size <= 10
    assert all(stringWidth(line, font, fitted.size) <= width + 1e-6 for line in fitted.lines)
    assert len(fitted.lines) <= max(1, int(height // (fitted.size * 1.18)))
    squeezed = "".join(fitted.lines).replace(" ", "")
    if fitted.cut != "address":
        assert squeezed.endswith("".join(address).replace(" ", ""))
    if fitted.cut == "":
        assert squeezed == "".join([*names, *address]).replace(" ", "")


def test_the_abutter_job_warns_when_an_address_cannot_be_printed_whole(tmp_path):
    """The job (not only the report helper) puts address_does_not_fit into abutters.json."""
    import shutil
    from pathlib import Path

    import pyogrio

    import swm_gis

    sample = Path(swm_gis.__file__).parents[1] / "data" / "sample"
    town = tmp_path / "town"
    shutil.copytree(sample, town)
    assess = pyogrio.read_dataframe(town / "sample.gpkg", layer="assess")
    assess["OWN_ADDR"] = "UNIT " + "9" * 40 + " " + "ELM STREET " * 60
    pyogrio.write_dataframe(assess, town / "sample.gpkg", layer="assess", driver="GPKG")
    pkg = swm_gis.abutter_package(swm_gis.load_config(town / "town.toml"),
                                  parcels=["M_236682_917765"])
    codes = [w["code"] for w in pkg.warnings]
    assert "address_does_not_fit" in codes
    found = next(w for w in pkg.warnings if w["code"] == "address_does_not_fit")
    assert f"of {len(pkg.recipients)} recipient(s)" in found["text"]

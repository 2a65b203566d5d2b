"""The mailing package built from classified recipients, read back: certification.pdf, labels
(one per mailable recipient, country lines), the mailing book and the review CSV."""

from __future__ import annotations

import csv

import pandas as pd
from pypdf import PdfReader

from swm_gis.notification.info import PackageInfo
from swm_gis.reports.certification import write_certification_pdf
from swm_gis.reports.certified_mail import write_certified_mail
from swm_gis.reports.labels import write_labels
from swm_gis.reports.mailing import write_mailing_csv, write_review_csv
from swm_gis.rules.owners import build_recipients, owner_notices

COLS = ["parcel_id", "owner", "co_owner", "address", "address2", "city", "state", "zip"]
ASSESS = pd.DataFrame([dict(zip(COLS, r, strict=True)) for r in [
    ("P1", "NO ADDRESS, ANN", None, None, None, None, None, None),
    ("P1", "ALKHALIFA, MAYSA", None, "81 OLD PLACE AVE", "PO BOX 613", "MANAMA", "_", "_"),
    ("P1", "SASTRA, DJUNAEDI", None, "16 MOUNT BANK RISE", "BELLA VISTA NSW 2153", "-", "-",
     "-"),
    ("P2", "TEJERO, EDEN N. &", "JOSE A. TEJERO", "P.O. BOX 29", "ASTOR DRIVE", "RHINEBECK",
     "NY", "12572"),
    ("P2", "PARK, JENNIFER", None, "4 CANAL PARK", "UNIT 108", "CAMBRIDGE", "MA", "02141"),
    ("P3", "KARAGEZIAN, JOSEPH TRUSTEE", None, "7 DEBSTON LANE", None, "LYNNFIELD", "MA",
     "01940"),
    ("P3", "KARAGEZIAN, JOSEPH TRUSTEE OF", None, "7 DEBSTON LN", None, "LYNNFIELD", "MA",
     "01940"),
]], dtype=object)
MAILABLE, REVIEW, COUNTS = build_recipients(owner_notices(
    pd.DataFrame({"id": ["P1", "P2", "P3"]}), ASSESS))
INFO = PackageInfo(town="Testtown", subject_ids=("P0",), distance_ft=100.0,
                   fiscal_years=("2025",), counts=COUNTS,
                   sources=({"key": "parcels", "file": "/data/a/very/long/folder/p.gpkg",
                             "modified": "2026-12-01T00:00:00+00:00"},
                            {"key": "assess", "file": "/data/assess.csv", "vintage": "FY2025",
                             "vintage_basis": "assessing fiscal year"}))


def _text(path) -> list[str]:
    return [p.extract_text() for p in PdfReader(path).pages]


def test_labels_one_per_mailable_recipient_with_country_lines(tmp_path):
    pages = _text(write_labels(MAILABLE, INFO, tmp_path / "labels.pdf"))
    text = "\n".join(pages)
    assert COUNTS["mailable"] == 6 and len(MAILABLE) == 6
    # each label starts with its owner's name: count them
    assert sum(text.count(name) for name in MAILABLE["owner_name"]) == 6
    assert "NO ADDRESS, ANN" not in text
    assert "BAHRAIN" in text and "AUSTRALIA" in text
    assert "4 CANAL PARK UNIT 108" in text


def test_mailing_book_skips_unmailable_and_prints_countries(tmp_path):
    text = "\n".join(_text(write_certified_mail(MAILABLE, INFO, tmp_path / "book.pdf")))
    assert "NO ADDRESS, ANN" not in text and "AUSTRALIA" in text
    assert "Total Number of Pieces Listed by Sender: 6" in text


def test_mailing_csv_and_pandas_read_exactly_the_mailable_recipients(tmp_path):
    path = write_mailing_csv(MAILABLE, INFO, tmp_path / "mailing_list.csv")
    with open(path, encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["owner_name"] for r in rows] == list(MAILABLE["owner_name"])
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    assert len(df) == 6 and "NO ADDRESS, ANN" not in set(df["owner_name"])
    assert set(df.loc[df["mail_country"] != "", "mail_country"]) == {"BAHRAIN", "AUSTRALIA"}


def test_review_csv_lists_the_unmailable_and_the_likely_duplicates(tmp_path):
    path = write_review_csv(REVIEW, tmp_path / "mailing_review.csv")
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    assert list(df["issue"]) == ["no_mailing_address", "likely_duplicate", "likely_duplicate"]
    assert df.loc[0, "owner_name"] == "NO ADDRESS, ANN"


def test_certification_pdf_states_vintage_counts_unmailed_and_signature(tmp_path):
    path = write_certification_pdf(tmp_path / "certification.pdf", INFO, review=REVIEW)
    text = " ".join(_text(path))
    flat = " ".join(text.split())
    assert "Certified list of abutters" in flat
    assert "parcel(s) P0" in flat and "100 ft" in flat and "FY2025" in flat
    assert "data of FY2025 (assessing fiscal year)" in flat
    assert "file modified 2026-12-01 (not the data date)" in flat
    assert "2 duplicate notice(s) merged" not in flat  # none merged here
    assert "0 duplicate notice(s) merged" in flat
    assert "1 owner(s) with no mailing address" in flat
    assert "NO ADDRESS, ANN (parcel P1): no mailing address" in flat
    assert "CERTIFICATION BY THE BOARD OF ASSESSORS" in flat
    assert "Signature:" in flat and "Date:" in flat


def test_certification_pdf_without_counts_or_review(tmp_path):
    info = PackageInfo(town="T", subject_ids=(), distance_ft=300.0, synthetic=True)
    flat = " ".join(" ".join(_text(write_certification_pdf(tmp_path / "c.pdf", info))).split())
    assert "SYNTHETIC SAMPLE DATA" in flat and "no sources recorded" in flat
    assert "fiscal year not recorded" in flat and "Counts" not in flat


def test_vintage_comes_from_config_then_data_then_the_labelled_file_date():
    from swm_gis.notification.info import (
        source_with_vintage,
        vintage_from_data,
        vintage_text,
    )

    file_only = {"key": "flood_zones", "modified": "2026-12-01T00:00:00+00:00"}
    assert vintage_text(file_only) == ("data date not stated; file modified 2026-12-01 "
                                       "(not the data date)")
    fema = pd.DataFrame({"EFF_DATE": ["2010-07-08", "2012-07-16", "not a date"]})
    assert vintage_text(source_with_vintage(file_only, frame=fema)) == \
        "data of 2012-07-16 (latest EFF_DATE in the data)"
    assert vintage_text(source_with_vintage(file_only, config_vintage="2014", frame=fema)) == \
        "data of 2014 (stated in the town config)"
    # a typing error (year 0407) is not a date; a numeric fiscal year is
    assert vintage_from_data(pd.DataFrame({"EditDate": ["0407-04-01"]})) is None
    assert vintage_from_data(pd.DataFrame({"FY": [2024.0, 2025.0]}))["vintage"] == "2025"
    assert vintage_from_data(pd.DataFrame({"FY": [None]})) is None
    # the assessing table's vintage is its fiscal year when the package knows it
    info = PackageInfo(town="T", subject_ids=("A",), distance_ft=100.0, fiscal_years=("2025",),
                       sources=({"key": "assess", "file": "/x/assess.csv",
                                 "modified": "2026-12-01"},))
    assert info.source_rows() == [("assess", "assess.csv",
                                   "data of FY2025 (assessing fiscal year in the data)")]


def test_six_line_foreign_label_fits_a_5160_label_without_an_ellipsis():
    from swm_gis.reports.labels import (
        PAD_X_IN,
        PAD_Y_IN,
        PT_PER_IN,
        SHEETS,
        fit_lines,
        label_lines,
    )
    from swm_gis.reports.pdf_fonts import register_fonts

    rec = MAILABLE.set_index("owner_name").loc["ALKHALIFA, MAYSA"].to_dict()
    rec["owner_name"] = "ALKHALIFA, MAYSA"
    rec["co_owner"] = "C/O AL BATI FURNISHING TRADING COMPANY W.L.L."
    lines = label_lines(rec)
    assert len(lines) == 6 and lines[-1] == "BAHRAIN"
    sheet = SHEETS["5160"]
    size, wrapped = fit_lines(lines, width_pt=(sheet.label_w - 2 * PAD_X_IN) * PT_PER_IN,
                              height_pt=(sheet.label_h - 2 * PAD_Y_IN) * PT_PER_IN,
                              font=register_fonts()[0])
    assert not any("…" in w for w in wrapped) and wrapped[-1] == "BAHRAIN" and size >= 6

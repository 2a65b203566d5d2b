"""A neighbouring town's parcels and assessing table as sources of their own (issue 34):
``[[layers.parcels.sources]]`` / ``[[layers.assess.sources]]`` with their own path, fields, CRS,
right-of-way rule and town; one formatted address in every output; typo-tolerant duplicates.

Layout (EPSG:26986, metres; 100 ft = 30.48 m). Lynnfield's own data is in the MassGIS L3 layout
(LOC_ID, MAP_PAR_ID, TOWN_ID, POLY_TYPE; OWNER1, OWN_ADDR, OWN_CITY, OWN_STATE, OWN_ZIP, OWN_CO,
FY). Peabody's is not: its parcels are a shapefile in EPSG:2249 (US survey feet) with no .prj
(the source table states its CRS), keyed by PID, with no POLY_TYPE: its street polygon is marked
by ROADTYPE = STREET; its assessing table is a CSV keyed by PARCEL with its own owner fields.

    y 40-70   P1 (x 0-30)  P2 (x 30-60)  P3 (x 60-90)          Peabody
    y 30-40   P_ST street polygon, x -60..120 (ROADTYPE STREET)  Peabody
    y 0-30    L2 (x -30-0)  S (x 0-30)  L1 (x 30-60)  L3 (x 60-90)  L4 (x 90-120)   Lynnfield
    y -12-0   L_ROW (POLY_TYPE ROW), x -60..120                  Lynnfield
    y -42..-12  L5 (x 0-30)                                      Lynnfield

Distances from the subject S (by hand): L1, L2, P_ST, L_ROW touch it (0); P1 and P2 10 m
(32.81 ft; P2's corner (30, 40) is 10 m above S's corner (30, 30)); L5 12 m (39.37 ft); L3 30 m
(98.43 ft); P3 sqrt(30^2 + 10^2) = 31.62 m (103.75 ft) and L4 60 m: out.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from openpyxl import load_workbook
from pypdf import PdfReader
from support.neighbourkit import TOML, write_neighbour_town

import swm_gis


@pytest.fixture(scope="module")
def town(tmp_path_factory) -> Path:
    return write_neighbour_town(tmp_path_factory.mktemp("neighbours"))


@pytest.fixture(scope="module")
def package(town, tmp_path_factory):
    pkg = swm_gis.abutter_package(swm_gis.load_config(town), parcels=["S"])
    out = tmp_path_factory.mktemp("out") / "pkg"
    pkg.write(out)
    return pkg, out


def _csv(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8-sig", newline="") as fh:
        return list(csv.DictReader(fh))


def test_each_source_has_its_own_fields_crs_rule_and_town(town):
    cfg = swm_gis.load_config(town)
    own, peabody = cfg.layer("parcels").parts
    assert (own.town, peabody.town) == ("Lynnfield", "Peabody")
    assert (own.fields["id"], peabody.fields["id"]) == ("LOC_ID", "PID")
    assert (own.crs, peabody.crs) == (None, "EPSG:2249")
    assert own.right_of_way is None and peabody.right_of_way.values == ("STREET",)
    assert [t for t, _rule in cfg.rules.right_of_way_sources] == [own.describe(),
                                                                  peabody.describe()]
    assert [p.town for p in cfg.layer("assess").parts] == ["Lynnfield", "Peabody"]


def test_listed_left_out_and_other_town_as_worked_out_by_hand(package):
    pkg, out = package
    listed = {r["parcel_id"]: r for r in _csv(out / "abutting_parcels.csv")}
    # nearest first: L1, L2 (0), P1, P2 (32.81 ft), L5 (39.37 ft), L3 (98.43 ft)
    assert list(listed) == ["L1", "L2", "P1", "P2", "L5", "L3"]
    assert [round(float(r["distance_ft"]), 2) for r in listed.values()] == [
        0.0, 0.0, 32.81, 32.81, 39.37, 98.43]
    assert {k for k, r in listed.items() if r["other_town"] == "yes"} == {"P1", "P2"}
    assert "other town: Peabody" in listed["P1"]["note"]
    left = {r["parcel_id"]: r["reason"] for r in _csv(out / "left_out.csv")}
    assert set(left) == {"S", "L_ROW", "P_ST"}
    # Peabody's street polygon: right-of-way by Peabody's own rule, not "no owner of record"
    assert "marked right-of-way by the town config (ROADTYPE = STREET)" in left["P_ST"]
    assert "ROW polygon" in left["L_ROW"]
    assert pkg.counts["other_town"] == 2 and pkg.counts["abutting"] == 6
    assert pkg.counts["no_owner_of_record"] == 0


def test_one_notice_per_owner_per_address_typos_and_po_boxes_included(package):
    pkg, out = package
    mailing = {r["owner_name"]: r for r in _csv(out / "mailing_list.csv")}
    assert list(mailing) == ["SMITH, JOHN", "JONES, PAT", "DOE, RAY", "WONG, MEI"]
    assert mailing["SMITH, JOHN"]["parcel_ids"] == "L1; L2"
    assert mailing["DOE, RAY"]["parcel_ids"] == "P2; L5"
    # 6 listed parcels, 6 assessing rows; 2 merged (L2 into L1, L5 into P2): 4 recipients
    assert pkg.counts["duplicates_removed"] == 2 and pkg.counts["mailable"] == 4
    assert pkg.counts["near_match_merged"] == 1
    review = _csv(out / "mailing_review.csv")
    [near] = [r for r in review if r["issue"] == "merged_near_match"]
    assert near["owner_name"] == "SMITH, JOHN"
    assert "965 MASSACHUSETTS AVE, CAMBRIDGE" in near["reason"]
    assert "965 MASSAUCHETTS AVE, CAMBRIDGE" in near["reason"]


def test_the_review_names_what_was_not_printed(package):
    _pkg, out = package
    review = [(r["issue"], r["owner_name"]) for r in _csv(out / "mailing_review.csv")]
    assert sorted(review) == [("merged_near_match", "SMITH, JOHN"),
                              ("not_a_country", "SMITH, JOHN"),
                              ("placeholder_dropped", "WONG, MEI"),
                              ("placeholder_dropped", "WONG, MEI")]
    reasons = {r["reason"] for r in _csv(out / "mailing_review.csv")}
    assert any('"MIDDLESEX", which names no country' in r for r in reasons)
    assert any("ZIP 99999 is a placeholder" in r for r in reasons)
    assert any("US state MA on an address in HONG KONG" in r for r in reasons)


#: Each recipient's address as every output must print it (by hand).
EXPECTED = {
    "SMITH, JOHN": ["965 MASSACHUSETTS AVE", "CAMBRIDGE, MA 02139"],
    "JONES, PAT": ["10 PINE ST", "PEABODY, MA 01960"],
    "DOE, RAY": ["P.O. Box 12", "PEABODY, MA 01960"],
    "WONG, MEI": ["1 QUEENS RD", "HONG KONG"],
}


def _table_lines(r: dict[str, str]) -> list[str]:
    """The address lines a mail merge composes from the table's columns."""
    last = " ".join(p for p in (f"{r['mail_city']}," if r["mail_city"] else "", r["mail_state"],
                                r["mail_zip"]) if p).rstrip(",")
    return [line for line in (r["mail_address"], last, r["mail_country"]) if line]


def _pdf_text(path: Path) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(path).pages)


def test_csv_workbook_labels_and_book_print_the_same_address(package):
    _pkg, out = package
    rows = _csv(out / "mailing_list.csv")
    assert {r["owner_name"]: _table_lines(r) for r in rows} == EXPECTED
    sheet = load_workbook(out / "mailing_list.xlsx")["Mailing list"]
    header = [c.value for c in sheet[1]]
    book_rows = [dict(zip(header, ["" if v is None else str(v) for v in (c.value for c in row)],
                          strict=True)) for row in sheet.iter_rows(min_row=2)]
    assert {r["owner_name"]: _table_lines(r) for r in book_rows} == EXPECTED
    for pdf in ("labels.pdf", "certified_mail.pdf"):
        text = _pdf_text(out / pdf)
        for name, lines in EXPECTED.items():
            block = "\n".join([name, *lines])
            assert block in text, (pdf, block)
        # what the records held that is no address is printed nowhere
        assert "MIDDLESEX" not in text and "99999" not in text and "MASSAUCHETTS" not in text


def test_the_certification_names_each_towns_assessors_and_their_parcels(package):
    pkg, out = package
    assert pkg.info.towns == (("Lynnfield", ("L1", "L2", "L5", "L3")), ("Peabody", ("P1", "P2")))
    text = _pdf_text(out / "certification.pdf")
    assert "Board of Assessors of Lynnfield: the owners of record of the 4 listed" in text
    assert "Board of Assessors of Peabody: the owners of record of the 2 listed" in text
    document = json.loads((out / "abutters.json").read_text(encoding="utf-8"))
    assert document["towns"] == [{"town": "Lynnfield", "parcel_ids": ["L1", "L2", "L5", "L3"]},
                                 {"town": "Peabody", "parcel_ids": ["P1", "P2"]}]
    sheet = load_workbook(out / "mailing_list.xlsx")["Certification"]
    cells = [c.value for c in sheet["A"] if c.value]
    assert sum(str(v).startswith("Signature:") for v in cells) == 2


def test_counts_add_up(package):
    pkg, _out = package
    c = pkg.counts
    assert c["recipients"] == c["mailable"] + c["no_mailing_address"] + c["incomplete_address"]
    # 6 assessing rows of listed parcels - 2 merged = 4 recipients
    assert c["assessing_rows"] - c["duplicates_removed"] - c["blank_rows"] == c["recipients"]
    # the sum includes the subject (issue 34): subjects + mailed + not mailed
    assert c["parcels_total"] == (c["parcels_subject"] + c["parcels_mailed"]
                                  + c["parcels_not_mailed"])
    # 1 subject + 6 listed + 2 right-of-way polygons within 100 ft = 9
    assert (c["parcels_subject"], c["parcels_mailed"], c["parcels_not_mailed"]) == (1, 6, 2)
    assert c["parcels_total"] == 9


@pytest.mark.parametrize(("old", "new", "key"), [
    ('id = "PID"', 'id = "NOPE"', "[layers.parcels.sources.fields] id (source 1)"),
    ('field = "ROADTYPE"', 'field = "ROADTYP"',
     "[layers.parcels.sources] (source 1) right_of_way field"),
])
def test_a_field_the_neighbours_source_lacks_is_named_with_its_table(town, tmp_path, old, new,
                                                                     key):
    from swm_gis.errors import SwmGisError
    from swm_gis.messages import api_text

    bad = town.parent / f"bad_{tmp_path.name}.toml"
    bad.write_text(TOML.replace(old, new), encoding="utf-8")
    with pytest.raises(SwmGisError) as err:
        swm_gis.abutter_package(swm_gis.load_config(bad), parcels=["S"])
    text = api_text(str(err.value))
    assert "M229TaxPar.shp" in text and key in text and "Fields in the source: PID, ROADTYPE" \
        in text

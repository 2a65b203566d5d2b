"""Abutters on real data: Cambridge, MA through data/cambridge.toml (parcels keyed by ML, owners
from the FY2025 property CSV keyed by GISID).

The list from ``swm-gis abutters`` must equal an exact distance query written here independently
(shapely on the full parcel layer), and every owner of condominium 8-61 must get a notice.
"""

from __future__ import annotations

import csv

import numpy as np
import pyogrio
import pytest
import shapely
from support.townkit import CAMBRIDGE_CONFIG, REPO

from swm_gis.cli import main
from swm_gis.rules.owners import delivery_lines, recipient_key

PARCELS = REPO.parent / "shared" / "data" / "cambridge" / "ASSESSING_ParcelsFY2014.topojson"
ASSESS = REPO.parent / "shared" / "data" / "cambridge" / "ASSESSING_PropertyDatabase_FY2025.csv"
SUBJECT = "9-29"
LIMIT_M = 100 * 0.3048


def _table(path):
    with open(path, encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.reader(fh))
    body = []
    for r in rows[1:]:
        if not r:
            break
        body.append(dict(zip(rows[0], r, strict=True)))
    return body


@pytest.fixture(scope="module")
def package(tmp_path_factory):
    out = tmp_path_factory.mktemp("cambridge") / "abutters"
    code = main(["--progress", "none", "abutters", "--config", str(CAMBRIDGE_CONFIG),
                 "--parcel", SUBJECT, "--out", str(out)])
    assert code == 0
    return out


@pytest.fixture(scope="module")
def independent():
    """Exact distance query on the whole layer, without swm_gis: ML -> distance in feet."""
    gdf = pyogrio.read_dataframe(PARCELS).set_crs("EPSG:4326").to_crs("EPSG:26986")
    geoms = shapely.make_valid(gdf.geometry.values)
    subject = shapely.union_all(geoms[(gdf["ML"] == SUBJECT).to_numpy()])
    dist = shapely.distance(geoms, subject)
    near = (dist <= LIMIT_M) & (gdf["ML"] != SUBJECT).to_numpy() & gdf["ML"].notna().to_numpy()
    found: dict[str, float] = {}
    for ml, d in zip(gdf["ML"][near], dist[near], strict=True):
        found[ml] = min(found.get(ml, np.inf), d / 0.3048)
    return found


def test_abutters_of_9_29_equal_an_exact_distance_query(package, independent):
    listed = {r["parcel_id"]: float(r["distance_ft"]) for r in _table(
        package / "abutting_parcels.csv")}
    left = {r["parcel_id"] for r in _table(package / "left_out.csv")} - {SUBJECT}
    assert len(independent) >= 5
    assert set(listed) | left == set(independent)
    for ml, feet in listed.items():
        assert feet == pytest.approx(independent[ml], abs=0.01), ml
        assert feet <= 100


def test_every_owner_of_condominium_8_61_gets_a_notice(package):
    with open(ASSESS, encoding="utf-8-sig", newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if r["GISID"] == "8-61"]
    assert len(rows) == 168  # the FY2025 sample holds 168 unit records on GISID 8-61
    abut = {r["parcel_id"]: r for r in _table(package / "abutting_parcels.csv")}
    assert "8-61" in abut and abut["8-61"]["owner_of_record"] == "yes"

    mailing = [r for r in _table(package / "mailing_list.csv")
               if "8-61" in r["parcel_ids"].split("; ")]
    # the key without its country: the mailing list prints a country read from a foreign
    # address ("BAHRAIN" from "MANAMA") that the assessing row left blank
    keys_in_list = {recipient_key({**r, "address1": r["mail_address"]})[:-1] for r in mailing}
    wanted = {}
    for r in rows:
        # the delivery lines in the order every output prints them (a PO box above the city
        # line, after the street: "ASTOR DRIVE, P.O. BOX 29")
        rec = {"owner_name": r["Owner_Name"], "address1": ", ".join(
            delivery_lines(r["Owner_Address"], r["Owner_Address2"])),
            "mail_city": r["Owner_City"], "mail_state": r["Owner_State"],
            "mail_zip": r["Owner_Zip"], "mail_country": ""}
        wanted[recipient_key(rec)[:-1]] = r["Owner_Name"]
    missing = [name for key, name in wanted.items() if key not in keys_in_list]
    # one record says "CAMBRIDGE, MS 02141": state and ZIP disagree (021.. is MA), so it is
    # kept off the mailing list for review (issue 22), with the reason
    assert missing == ["BRITTINGHAM, BARBARA E TRS"]
    review = {r["owner_name"]: r["reason"] for r in _table(package / "mailing_review.csv")}
    assert "state MS and ZIP 02141 disagree" in review["BRITTINGHAM, BARBARA E TRS"]
    # one notice per distinct owner and address: 168 unit records, some owners own two units
    assert len(mailing) + 1 == len(wanted)
    assert 160 <= len(mailing) <= 168


def test_parcels_without_assessing_record_are_flagged_not_dropped(package, independent):
    rows = _table(package / "abutting_parcels.csv")
    flagged = [r for r in rows if r["owner_of_record"] == "no"]
    assert flagged and all("no owner of record: ask the Assessors" in r["note"] for r in flagged)


def test_every_output_records_subject_distance_and_fiscal_year(package):
    from openpyxl import load_workbook

    # the CSVs are plain tables (a mail merge reads them as is: docs/abutters.md); the provenance
    # is in the workbook's Certification sheet (and certification.pdf)
    for name in ("abutting_parcels.csv", "mailing_list.csv", "left_out.csv"):
        lines = (package / name).read_text(encoding="utf-8-sig").splitlines()
        assert all(line and not line.startswith("#") for line in lines), name
    sheet = load_workbook(package / "mailing_list.xlsx")["Certification"]
    text = "\n".join(str(c.value) for c in sheet["A"] if c.value)
    assert "parcel(s) 9-29" in text and "100 ft" in text and "FY2025" in text
    assert "ASSESSING_ParcelsFY2014.topojson" in text


def test_the_certification_of_9_29_names_every_parcel_not_mailed(package):
    """Issue 22: 4 of the 5 abutting parcels of 9-29 have no record in the 1,000-record FY2025
    sample, and the street polygon ROAD has no owner: 7 parcels within 100 ft = the subject 9-29
    (issue 34: the sum includes the subject) + 1 mailed (the condominium 8-61) + 5 named, with
    the reason, on certification.pdf, on the workbook's Certification sheet and in
    abutters.json, with one set of figures."""
    import json

    from openpyxl import load_workbook
    from pypdf import PdfReader

    doc = json.loads((package / "abutters.json").read_text(encoding="utf-8"))
    c = doc["counts"]
    assert (c["parcels_total"], c["parcels_subject"], c["parcels_mailed"],
            c["parcels_not_mailed"]) == (7, 1, 1, 5)
    named = {r["parcel_id"]: r["reason_code"] for r in doc["not_mailed"]}
    assert named == {"8-50": "no_owner_of_record", "9-89": "no_owner_of_record",
                     "1A-86": "no_owner_of_record", "9-37": "no_owner_of_record",
                     "ROAD": "right_of_way_or_water"}
    listed = {r["parcel_id"] for r in _table(package / "abutting_parcels.csv")}
    left = {r["parcel_id"] for r in _table(package / "left_out.csv")} - {SUBJECT}
    assert set(named) | {"8-61"} == listed | left  # every parcel within 100 ft accounted for
    codes = [w["code"] for w in doc["warnings"]]
    assert "owners_not_found" in codes
    sums = ("7 parcel(s) within 100 ft of the subject (rights-of-way and water included) = 1 "
            "subject parcel(s) (the applicant's own, not mailed) + 1 whose owners are mailed + "
            "5 not mailed")
    pdf = " ".join(" ".join(p.extract_text() for p in PdfReader(
        package / "certification.pdf").pages).split())
    sheet = " ".join(" ".join(str(c.value) for c in load_workbook(
        package / "mailing_list.xlsx")["Certification"]["A"] if c.value).split())
    for text in (pdf, sheet):
        assert sums in text
        for pid in ("8-50", "9-89", "1A-86", "9-37", "ROAD"):
            assert f"{pid}, " in text, pid
        assert "Warning (owners_not_found)" in text
        assert "with the owners named here as lacking an address, are those" not in text


@pytest.mark.qgis
def test_abutters_of_9_29_agree_with_qgis_extract_within_distance(package, qgis_app):
    """QGIS's own native:extractwithindistance (100 ft = 30.48 m, EPSG:26986) finds the same
    parcels: those listed plus those left out."""
    import os
    import sys

    plugins = "/usr/share/qgis/python/plugins"
    if plugins not in sys.path and os.path.isdir(plugins):
        sys.path.append(plugins)
    import processing
    from processing.core.Processing import Processing
    from qgis.analysis import QgsNativeAlgorithms
    from qgis.core import QgsApplication, QgsCoordinateReferenceSystem, QgsVectorLayer

    Processing.initialize()
    if QgsApplication.processingRegistry().providerById("native") is None:
        QgsApplication.processingRegistry().addProvider(QgsNativeAlgorithms())
    layer = QgsVectorLayer(str(PARCELS), "parcels", "ogr")
    layer.setCrs(QgsCoordinateReferenceSystem("EPSG:4326"))
    fixed = processing.run("native:fixgeometries", {"INPUT": layer, "OUTPUT": "memory:"})
    reproj = processing.run("native:reprojectlayer", {
        "INPUT": fixed["OUTPUT"], "TARGET_CRS": "EPSG:26986", "OUTPUT": "memory:"})["OUTPUT"]
    subject = processing.run("native:extractbyattribute", {
        "INPUT": reproj, "FIELD": "ML", "OPERATOR": 0, "VALUE": SUBJECT,
        "OUTPUT": "memory:"})["OUTPUT"]
    near = processing.run("native:extractwithindistance", {
        "INPUT": reproj, "REFERENCE": subject, "DISTANCE": LIMIT_M,
        "OUTPUT": "memory:"})["OUTPUT"]
    qgis_ids = {f["ML"] for f in near.getFeatures() if f["ML"]} - {SUBJECT}
    listed = {r["parcel_id"] for r in _table(package / "abutting_parcels.csv")}
    left = {r["parcel_id"] for r in _table(package / "left_out.csv")} - {SUBJECT}
    assert len(qgis_ids) >= 5
    assert listed | left == qgis_ids

"""Notice lists a Board of Assessors can certify (issue 34, part A; docs/abutters.md): nobody made
"the applicant" by accident, the tax list's fiscal year, condominiums without their unit owners,
the zoning list (M.G.L. c.40A, § 11) through the whole package, and the clerk's order.

Real-layout fixtures: MassGIS L3 field names (LOC_ID, MAP_PAR_ID, POLY_TYPE; OWNER1, OWN_ADDR,
USE_CODE, UNITS, FY), metres in EPSG:26986.

The narrow-lot street (a 10 m-buffered site)::

    y 40..60     ST: street polygon (ROW)
    y  0..40     L0 [0,15]  L1 [15,30]  L2 [30,45]  L3 [45,60]  L4 [60,75]   (15 m x 40 m)
    y -50..0     B0         B1          B2          B3          B4           (15 m x 50 m)

The site is L2 grown by 10 m: box(20, -10, 55, 50), 35 m x 60 m = 2,100 m2. It covers L2 whole
(600 m2), 10 m x 40 m = 400 m2 of L1 and of L3 (66.7 % of each: past the 25 % share), 10 m x 10 m
= 100 m2 of B1 and B3 (13.3 % of 750 m2) and 15 m x 10 m = 150 m2 of B2 (20 %), and the street.
L1 is owned by "Smith, Ann." and L2 by "SMITH ANN" (the same owner as the mailing list compares
names): L1 is a subject. L3 belongs to JONES BO: an abutter, mailed, named in the warning.
"""

from __future__ import annotations

import csv
import datetime as dt
import json
from pathlib import Path

import geopandas as gpd
import pandas as pd
import pytest
from pypdf import PdfReader
from shapely.geometry import box
from support.townkit import CRS
from support.townkit import write_town as _write_town

import swm_gis
from swm_gis.cli import main

X0, Y0 = 240_000.0, 900_000.0
TODAY = dt.date.today()
#: the current Massachusetts fiscal year, worked out here: FY N runs 1 July N-1 to 30 June N
CURRENT_FY = TODAY.year + (1 if TODAY.month >= 7 else 0)


def write_town(tmp: Path, layers: dict) -> Path:
    tmp.mkdir(parents=True, exist_ok=True)
    return _write_town(tmp, layers)


def _b(x0, y0, x1, y1):
    return box(X0 + x0, Y0 + y0, X0 + x1, Y0 + y1)


def _street_lots() -> gpd.GeoDataFrame:
    rows = [{"LOC_ID": "ST", "MAP_PAR_ID": "", "POLY_TYPE": "ROW", "geometry": _b(-20, 40, 95, 60)}]
    for i in range(5):
        rows.append({"LOC_ID": f"L{i}", "MAP_PAR_ID": f"5-{i + 1}", "POLY_TYPE": "FEE",
                     "geometry": _b(15 * i, 0, 15 * i + 15, 40)})
        rows.append({"LOC_ID": f"B{i}", "MAP_PAR_ID": f"6-{i + 1}", "POLY_TYPE": "FEE",
                     "geometry": _b(15 * i, -50, 15 * i + 15, 0)})
    return gpd.GeoDataFrame(rows, crs=CRS)


def _assess(ids, *, fy=CURRENT_FY, **owners) -> gpd.GeoDataFrame:
    rows = [{"LOC_ID": pid, "SITE_ADDR": f"{k + 1} ELM ST",
             "OWNER1": owners.get(pid, f"OWNER {pid}"),
             "OWN_ADDR": f"{k + 1} ELM ST", "OWN_CITY": "LYNNFIELD", "OWN_STATE": "MA",
             "OWN_ZIP": "01940", "USE_CODE": "101", "FY": fy} for k, pid in enumerate(ids)]
    return gpd.GeoDataFrame(pd.DataFrame(rows))


def _rows(path: Path) -> list[dict]:
    with open(path, encoding="utf-8-sig", newline="") as fh:
        return list(csv.DictReader(fh))


def _pdf(path: Path) -> str:
    return " ".join(" ".join(p.extract_text() for p in PdfReader(path).pages).split())


def _run(args, capsys) -> tuple[int, str]:
    code = main(["--progress", "none", *args])
    out = capsys.readouterr()
    return code, " ".join((out.out + out.err).split())


# --------------------------------------------------------------------------- subjects
@pytest.fixture
def buffered_site(tmp_path, capsys):
    lots = _street_lots()
    ids = [i for i in lots["LOC_ID"] if i != "ST"]
    assess = _assess(ids, L2="SMITH ANN", L1="Smith, Ann.", L3="JONES BO")
    toml = write_town(tmp_path / "t", {"parcels": lots, "assess": assess})
    site = gpd.GeoDataFrame(geometry=[_b(20, -10, 55, 50)], crs=CRS)
    site.to_file(tmp_path / "site.gpkg", driver="GPKG")
    out = tmp_path / "out"
    code, said = _run(["abutters", "-c", str(toml), "--site", str(tmp_path / "site.gpkg"),
                       "-o", str(out)], capsys)
    assert code == 0, said
    return out, said, lots


def test_a_buffered_site_makes_only_the_same_owners_lot_a_subject(buffered_site):
    out, said, lots = buffered_site
    doc = json.loads((out / "abutters.json").read_text(encoding="utf-8"))
    assert doc["subject"]["parcel_ids"] == ["L1", "L2"]
    assert {s["parcel_id"]: s["owners"] for s in doc["subject"]["parcels"]} == {
        "L1": ["Smith, Ann."], "L2": ["SMITH ANN"]}
    [w] = [w for w in doc["warnings"] if w["code"] == "site_overlaps_neighbour"]
    # 400 m2 = 4,306 sq ft; 100 m2 = 1,076 sq ft; 150 m2 = 1,615 sq ft
    assert ("L3 (4,306 sq ft, 66.7 % of the parcel; owner JONES BO, not the owner of the main "
            "subject L2 (SMITH ANN))") in w["text"]
    for part in ("B1 (1,076 sq ft, 13.3 % of the parcel)", "B2 (1,615 sq ft, 20.0 % of the "
                 "parcel)", "B3 (1,076 sq ft, 13.3 % of the parcel)"):
        assert part in w["text"]
    mailed = {r["parcel_ids"] for r in _rows(out / "mailing_list.csv")}
    assert {"L3", "B1", "B2", "B3"} <= mailed and not {"L1", "L2"} & mailed


def test_the_sum_includes_the_subjects_in_every_output(buffered_site):
    """An independent geopandas computation of the parcels within 100 ft (30.48 m) of L1 and L2
    (x 15-45 m): L0, L3, L4 (15 m away), B0-B4 (B0 and B4 at a corner and 15 m) and the street:
    9, plus the 2 subjects = 11 = 2 subjects + 8 mailed + 1 not mailed (the street)."""
    out, said, lots = buffered_site
    subject = lots.loc[lots["LOC_ID"].isin(["L1", "L2"])].union_all()
    near = lots.loc[lots.geometry.distance(subject) <= 30.48 + 1e-6, "LOC_ID"]
    assert set(near) == {"L0", "L1", "L2", "L3", "L4", "B0", "B1", "B2", "B3", "B4", "ST"}
    doc = json.loads((out / "abutters.json").read_text(encoding="utf-8"))
    c = doc["counts"]
    assert (c["parcels_total"], c["parcels_subject"], c["parcels_mailed"],
            c["parcels_not_mailed"]) == (11, 2, 8, 1)
    assert c["parcels_total"] == len(near)
    # abutting_parcels.csv lists the 8 lots; left_out.csv the street and the 2 subjects
    assert len(_rows(out / "abutting_parcels.csv")) == 8
    assert {r["parcel_id"] for r in _rows(out / "left_out.csv")} == {"ST", "L1", "L2"}
    sums = ("11 parcel(s) within 100 ft of the subject (rights-of-way and water included) = 2 "
            "subject parcel(s) (the applicant's own, not mailed) + 8 whose owners are mailed + "
            "1 not mailed")
    assert sums in said
    pdf = _pdf(out / "certification.pdf")
    assert sums in pdf
    assert "L1 (map-lot 5-2): Smith, Ann." in pdf and "L2 (map-lot 5-3): SMITH ANN" in pdf
    assert ("Subject parcel(s) and owner(s) of record: L1 (map-lot 5-2): Smith, Ann.; L2 "
            "(map-lot 5-3): SMITH ANN.") in said


# --------------------------------------------------------------------------- tax list
@pytest.mark.parametrize(("fy", "expected"), [
    (2019, "The assessing data is of FY2019"),
    (f"FY{(CURRENT_FY - 1) % 100:02d}", f"The assessing data is of FY{CURRENT_FY - 1}"),
    (None, "The assessing data does not record its fiscal year"),
])
def test_an_old_or_unrecorded_tax_list_is_warned_about(tmp_path, capsys, fy, expected):
    lots = _street_lots()
    assess = _assess([i for i in lots["LOC_ID"] if i != "ST"], fy=fy)
    if fy is None:
        assess = gpd.GeoDataFrame(assess.drop(columns="FY"))
    out = tmp_path / "out"
    code, said = _run(["abutters", "-c", str(write_town(tmp_path / "t", {
        "parcels": lots, "assess": assess})), "-p", "L2", "-o", str(out)], capsys)
    assert code == 0, said
    doc = json.loads((out / "abutters.json").read_text(encoding="utf-8"))
    [w] = [w for w in doc["warnings"] if w["code"] == "tax_list_not_current"]
    assert w["text"].startswith(expected)
    assert f"the current Massachusetts fiscal year is FY{CURRENT_FY}" in w["text"]
    assert doc["tax_list"]["current"] is False
    pdf = _pdf(out / "certification.pdf")
    assert "Warning (tax_list_not_current)" in pdf and "Warning (tax_list_not_current)" in said
    assert "as they appear on the most recent tax list" not in pdf
    assert "as they appear on the tax list of the assessing data" in pdf
    if fy == 2019:
        assert ("The list rests on the assessing data of fiscal year FY2019 (1 July 2018 to 30 "
                "June 2019), not the current one") in pdf


def test_the_current_tax_list_is_stated_without_a_warning(tmp_path, capsys):
    lots = _street_lots()
    assess = _assess([i for i in lots["LOC_ID"] if i != "ST"], fy=CURRENT_FY)
    out = tmp_path / "out"
    code, said = _run(["abutters", "-c", str(write_town(tmp_path / "t", {
        "parcels": lots, "assess": assess})), "-p", "L2", "-o", str(out)], capsys)
    assert code == 0, said
    doc = json.loads((out / "abutters.json").read_text(encoding="utf-8"))
    assert "tax_list_not_current" not in {w["code"] for w in doc["warnings"]}
    assert doc["tax_list"] == {"fiscal_year": CURRENT_FY, "current_fiscal_year": CURRENT_FY,
                               "current": True}
    pdf = _pdf(out / "certification.pdf")
    assert f"The list rests on the assessing data of fiscal year FY{CURRENT_FY}" in pdf
    assert f"the most recent tax list (FY{CURRENT_FY})" in pdf


# --------------------------------------------------------------------------- condominiums
def _condo_town(tmp_path: Path, *, units: bool = True, unit_owners: bool = False) -> Path:
    """B2 is a 12-unit condominium (USE_CODE 1020) with one master record, as L3 extracts
    often hold it."""
    lots = _street_lots()
    assess = _assess([i for i in lots["LOC_ID"] if i != "ST"], B2="ELM COURT CONDOMINIUM TRUST")
    assess.loc[assess["LOC_ID"] == "B2", "USE_CODE"] = "1020"
    assess["UNITS"] = [12 if pid == "B2" else 1 for pid in assess["LOC_ID"]]
    if not units:
        assess = gpd.GeoDataFrame(assess.drop(columns="UNITS"))
    layers = {"parcels": lots, "assess": assess}
    if unit_owners:
        layers["condo_units"] = gpd.GeoDataFrame(pd.DataFrame([
            {"LOC_ID": "B2", "OWNER1": f"UNIT OWNER {u}", "OWN_ADDR": f"7 ELM CT UNIT {u}",
             "OWN_CITY": "LYNNFIELD", "OWN_STATE": "MA", "OWN_ZIP": "01940", "USE_CODE": "1020"}
            for u in range(1, 13)]))
    return write_town(tmp_path, layers)


def test_a_condominium_master_record_is_named(tmp_path):
    pkg = swm_gis.abutter_package(swm_gis.load_config(_condo_town(tmp_path / "a")), parcels="L2")
    [w] = [w for w in pkg.warnings if w["code"] == "condo_units_missing"]
    assert w["text"].startswith("1 condominium parcel(s) have fewer owner records than units: "
                                "B2 (use code 1020: 1 owner record(s) for 12 units)")
    # without a UNITS field a single record is the master record
    pkg = swm_gis.abutter_package(swm_gis.load_config(_condo_town(tmp_path / "b", units=False)),
                                  parcels="L2")
    [w] = [w for w in pkg.warnings if w["code"] == "condo_units_missing"]
    assert "B2 (use code 1020: 1 owner record(s), no unit count in the data)" in w["text"]


def test_a_unit_owner_table_fills_the_condominium(tmp_path):
    """The town's unit-owner table adds B2's 12 unit owners: 12 records for 12 units (13 with
    the master record), no warning; each unit owner is mailed."""
    before = swm_gis.abutter_package(swm_gis.load_config(_condo_town(tmp_path / "a")),
                                     parcels="L2")
    pkg = swm_gis.abutter_package(swm_gis.load_config(_condo_town(tmp_path / "b",
                                                                  unit_owners=True)),
                                  parcels="L2")
    assert "condo_units_missing" not in {w["code"] for w in pkg.warnings}
    units = {n for n in pkg.recipients["owner_name"] if n.startswith("UNIT OWNER")}
    assert len(units) == 12
    assert len(pkg.recipients) == len(before.recipients) + 12


# --------------------------------------------------------------------------- zoning list
def _zoning_town(tmp_path: Path) -> Path:
    """The narrow-lot street with a wide street (40 m = 131 ft) north of it and a row of lots
    beyond: N2 faces L2 across it (directly opposite, 131 ft), N0 is diagonally across."""
    lots = _street_lots()
    lots.loc[lots["LOC_ID"] == "ST", "geometry"] = _b(-20, 40, 95, 80)
    north = gpd.GeoDataFrame([{"LOC_ID": f"N{i}", "MAP_PAR_ID": f"4-{i + 1}", "POLY_TYPE": "FEE",
                               "geometry": _b(15 * i, 80, 15 * i + 15, 120)} for i in range(5)],
                             crs=CRS)
    lots = gpd.GeoDataFrame(pd.concat([lots, north], ignore_index=True), crs=CRS)
    ids = [i for i in lots["LOC_ID"] if i != "ST"]
    return write_town(tmp_path, {"parcels": lots, "assess": _assess(ids)})


def test_the_zoning_list_through_the_package(tmp_path, capsys):
    """Parties in interest of L2 (x 30-45): abutters L1, L3, B1, B2, B3 (B1 and B3 at corners);
    the street within 100 ft; L0, L4, B0, B4 within 100 ft (15 m) and abutters' abutters;
    directly opposite across the 40 m street: N2 (the band x 30-45) only. N1 and N3 touch the
    band along a line only. 1 subject + 10 mailed + 1 not mailed (the street) = 12."""
    out = tmp_path / "out"
    code, said = _run(["abutters", "-c", str(_zoning_town(tmp_path / "t")), "-p", "L2",
                       "--notice", "zoning", "-o", str(out)], capsys)
    assert code == 0, said
    doc = json.loads((out / "abutters.json").read_text(encoding="utf-8"))
    assert doc["notice"]["list"] == "zoning" and doc["section"] == "M.G.L. c.40A, § 11"
    assert doc["distance_ft"] == 300.0
    listed = {r["parcel_id"]: r["relation"] for r in _rows(out / "abutting_parcels.csv")}
    assert listed == {
        "L1": "within 100 ft; abutter", "L3": "within 100 ft; abutter",
        "B1": "within 100 ft; abutter", "B2": "within 100 ft; abutter",
        "B3": "within 100 ft; abutter",
        "L0": "within 100 ft; abutter to an abutter", "L4": "within 100 ft; abutter to an abutter",
        "B0": "within 100 ft; abutter to an abutter", "B4": "within 100 ft; abutter to an abutter",
        "N2": "directly opposite"}
    c = doc["counts"]
    assert (c["parcels_total"], c["parcels_subject"], c["parcels_mailed"],
            c["parcels_not_mailed"]) == (12, 1, 10, 1)
    pdf = _pdf(out / "certification.pdf")
    assert "Parties in interest" in pdf and "M.G.L. c.40A, § 11" in pdf
    assert "Definition used for the Zoning Board of Appeals / Planning Board" in pdf
    assert ("12 parcel(s) among the parties in interest (M.G.L. c.40A, § 11) (rights-of-way "
            "and water included) = 1 subject parcel(s)") in pdf
    # the conservation list of the same lot: 100 ft, no N2 (131 ft away)
    out2 = tmp_path / "out2"
    assert _run(["abutters", "-c", str(tmp_path / "t" / "town.toml"), "-p", "L2", "-o",
                 str(out2)], capsys)[0] == 0
    conservation = {r["parcel_id"] for r in _rows(out2 / "abutting_parcels.csv")}
    assert conservation == set(listed) - {"N2"}
    assert "Definition used for the Conservation Commission: the owners of any property " \
        "within 100 ft" in _pdf(out2 / "certification.pdf")


def test_zoning_takes_no_distance_and_an_unknown_notice_is_refused(tmp_path, capsys):
    toml = str(_zoning_town(tmp_path / "t"))
    code, said = _run(["abutters", "-c", toml, "-p", "L2", "--notice", "zoning", "--distance",
                       "200ft", "-o", str(tmp_path / "o")], capsys)
    assert code == 2 and "leave out one of the two" in said and "--distance" in said
    code, said = _run(["abutters", "-c", toml, "-p", "L2", "--notice", "planning", "-o",
                       str(tmp_path / "o2")], capsys)
    assert code == 2 and 'Unknown notice list "planning" (--notice)' in said


def test_a_distance_of_its_own_is_a_plain_radius(tmp_path, capsys):
    out = tmp_path / "out"
    code, said = _run(["abutters", "-c", str(_zoning_town(tmp_path / "t")), "-p", "L2",
                       "--distance", "300ft", "-o", str(out)], capsys)
    assert code == 0, said
    doc = json.loads((out / "abutters.json").read_text(encoding="utf-8"))
    assert doc["notice"]["list"] == "radius"
    assert "a plain radius" in doc["notice"]["definition"]
    # every lot of the block lies within 91.44 m of L2: N0-N4 included
    assert {f"N{i}" for i in range(5)} <= {r["parcel_id"] for r in _rows(
        out / "abutting_parcels.csv")}


# --------------------------------------------------------------------------- the clerk's order
LOTS_OF_L2 = {  # parcel: (map-lot, owner, site address); the 9 lots within 100 ft of L2
    "L0": ("5-12", "ADAMS AL", "10 ELM ST"), "L1": ("5-2", "ZED ZOE", "2 ELM STREET"),
    "L3": ("5-4", "BROWN BEA", "2A ELM ST"), "L4": ("5-10", "CLARK CY", "1 OAK RD"),
    "B0": ("6-1", "YATES YO", "9 ASH AVE"), "B1": ("6-2", "EVANS ED", "11 ASH AVENUE"),
    "B2": ("6-3", "DAVIS DI", "ASH AVE"), "B3": ("6-4", "FOX FAY", "100 ASH AVE"),
    "B4": ("6-5", "GRAY GUS", ""),
}
EXPECTED_ORDER = {
    # numbers as numbers: 5-2 < 5-4 < 5-10 < 5-12 < 6-1 ...
    "map-lot": ["L1", "L3", "L4", "L0", "B0", "B1", "B2", "B3", "B4"],
    "owner": ["L0", "L3", "L4", "B2", "B1", "B3", "B4", "B0", "L1"],
    # ASH AVE (no number first, then 9, 11, 100), ELM ST (2, 2A, 10), OAK RD, blank last
    "street": ["B2", "B0", "B1", "B3", "L1", "L3", "L0", "L4", "B4"],
}


def _sort_town(tmp_path: Path) -> Path:
    lots = _street_lots()
    for pid, (lot, _owner, _addr) in LOTS_OF_L2.items():
        lots.loc[lots["LOC_ID"] == pid, "MAP_PAR_ID"] = lot
    ids = [i for i in lots["LOC_ID"] if i != "ST"]
    assess = _assess(ids, **{pid: v[1] for pid, v in LOTS_OF_L2.items()})
    for pid, (_lot, _owner, addr) in LOTS_OF_L2.items():
        assess.loc[assess["LOC_ID"] == pid, "SITE_ADDR"] = addr
    return write_town(tmp_path, {"parcels": lots, "assess": assess})


@pytest.mark.parametrize("by", ["map-lot", "owner", "street"])
def test_the_list_labels_and_book_are_sorted_as_asked(tmp_path, capsys, by):
    out = tmp_path / "out"
    code, said = _run(["abutters", "-c", str(_sort_town(tmp_path / "t")), "-p", "L2", "--sort",
                       by, "-o", str(out)], capsys)
    assert code == 0, said
    expected = EXPECTED_ORDER[by]
    listed = _rows(out / "abutting_parcels.csv")
    assert [r["parcel_id"] for r in listed] == expected
    assert [r["map_no"] for r in listed] == [str(n) for n in range(1, 10)]  # map and list agree
    assert [r["parcel_ids"] for r in _rows(out / "mailing_list.csv")] == expected
    names = [LOTS_OF_L2[pid][1] for pid in expected]
    for pdf in ("labels.pdf", "certified_mail.pdf"):
        text = _pdf(out / pdf)
        at = [text.index(n) for n in names]
        assert at == sorted(at), pdf
    # the map's key prints the map-lot, numbered as the list
    key = _pdf(out / "abutters_map.pdf")
    assert "Map-lot" in key
    rows = [f"{n} {LOTS_OF_L2[pid][0]} " for n, pid in enumerate(expected, start=1)]
    at = [key.index(r) for r in rows]
    assert at == sorted(at)


def test_without_a_sort_the_list_stays_nearest_first(tmp_path, capsys):
    out = tmp_path / "out"
    assert _run(["abutters", "-c", str(_sort_town(tmp_path / "t")), "-p", "L2", "-o",
                 str(out)], capsys)[0] == 0
    dist = [float(r["distance_ft"]) for r in _rows(out / "abutting_parcels.csv")]
    # 15 m = 49.21 ft (the CSV rounds to 0.01 ft)
    assert dist == sorted(dist) and dist[0] == 0.0 and dist[-1] == pytest.approx(49.21)


def test_an_unknown_sort_is_refused(tmp_path, capsys):
    code, said = _run(["abutters", "-c", str(_sort_town(tmp_path / "t")), "-p", "L2", "--sort",
                       "name", "-o", str(tmp_path / "o")], capsys)
    assert code == 2 and 'Unknown order "name" (--sort): give owner, street, map-lot.' in said

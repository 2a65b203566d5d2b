"""An abutter package the Board of Assessors can certify as it stands (issue 22): subjects only
where the site really lies, the owner join checked, every abutting parcel that gets no notice
named with its reason (the counts add up), coverage gaps measured from the parcels, the ids
clerks type, the Python API taking one id as a string.

A hand-built town of 40 m x 40 m lots in a 5 x 5 grid (x and y 0-200 m from X0, Y0), each with
its own owner, MassGIS L3 field names (the config names only paths). The subject is the middle
lot L_2_2 (x and y 80-120 m); 100 ft = 30.48 m reaches its 8 neighbours only (at 0 ft).
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import geopandas as gpd
import pandas as pd
import pytest
from pypdf import PdfReader
from shapely.geometry import box
from support.townkit import CRS, SAMPLE_CONFIG, write_town

import swm_gis
from swm_gis.cli import main
from swm_gis.errors import ConfigError, UnknownParcelError
from swm_gis.notification.package import OwnerJoinError

X0, Y0 = 230_000.0, 910_000.0
SQFT_PER_M2 = 1 / 0.3048**2


def _lots() -> gpd.GeoDataFrame:
    rows = []
    for i in range(5):
        for j in range(5):
            x, y = X0 + 40 * i, Y0 + 40 * j
            rows.append({"LOC_ID": f"L_{i}_{j}", "MAP_PAR_ID": f"{i}-K-{j}", "TOWN_ID": 7,
                         "POLY_TYPE": "FEE", "geometry": box(x, y, x + 40, y + 40)})
    return gpd.GeoDataFrame(rows, crs=CRS)


def _assess(parcels: pd.DataFrame, **changes) -> gpd.GeoDataFrame:
    """One L3 assessing row per lot: OWN_CO is the owner's country ("USA" for most)."""
    rows = []
    for k, pid in enumerate(parcels["LOC_ID"]):
        rows.append({"LOC_ID": pid, "SITE_ADDR": f"{k + 1} ELM ST", "OWNER1": f"OWNER {pid}",
                     "OWN_ADDR": f"{k + 1} ELM ST", "OWN_CITY": "LYNNFIELD",
                     "OWN_STATE": "MA", "OWN_ZIP": "01940", "OWN_CO": "USA", "FY": 2026})
    frame = pd.DataFrame(rows)
    for pid, values in changes.items():
        for col, value in values.items():
            frame.loc[frame["LOC_ID"] == pid, col] = value
    return gpd.GeoDataFrame(frame)


def _town(tmp: Path, parcels=None, assess=None, *, extra: str = "", **layers) -> Path:
    tmp.mkdir(parents=True, exist_ok=True)
    parcels = _lots() if parcels is None else parcels
    assess = _assess(parcels) if assess is None else gpd.GeoDataFrame(pd.DataFrame(assess))
    return write_town(tmp, {"parcels": parcels, "assess": assess, **layers}, extra=extra)


def _rows(path: Path) -> list[dict]:
    with open(path, encoding="utf-8-sig", newline="") as fh:
        return list(csv.DictReader(fh))


def _run(args, capsys) -> tuple[int, str]:
    code = main(["--progress", "none", *args])
    out = capsys.readouterr()
    return code, " ".join((out.out + out.err).split())


# --------------------------------------------------------------------------- subjects of a site
def test_a_site_drawn_off_its_lot_grazes_its_neighbours_and_they_are_mailed(tmp_path, capsys):
    """The site is lot L_2_2 drawn 1.3 m east and 0.5 m north: it overlaps L_3_2 by
    1.3 m x 39.5 m = 51.35 m2 (552.7 sq ft, 3.2 % of it), L_2_3 by 38.7 m x 0.5 m = 19.35 m2
    (208.3 sq ft) and L_3_3 by 1.3 m x 0.5 m = 0.65 m2 (7.0 sq ft): none is the applicant's."""
    toml = _town(tmp_path / "t")
    site = gpd.GeoDataFrame(geometry=[box(X0 + 81.3, Y0 + 80.5, X0 + 121.3, Y0 + 120.5)],
                            crs=CRS)
    site.to_file(tmp_path / "site.gpkg", driver="GPKG")
    out = tmp_path / "out"
    code, said = _run(["abutters", "-c", str(toml), "--site", str(tmp_path / "site.gpkg"),
                       "-o", str(out)], capsys)
    assert code == 0, said
    doc = json.loads((out / "abutters.json").read_text(encoding="utf-8"))
    assert doc["subject"]["parcel_ids"] == ["L_2_2"]
    [w] = [w for w in doc["warnings"] if w["code"] == "site_overlaps_neighbour"]
    assert "L_3_2 (553 sq ft, 3.2 % of the parcel)" in w["text"]
    assert "L_2_3 (208 sq ft, 1.2 % of the parcel)" in w["text"]
    assert "L_3_3 (7 sq ft, 0.0 % of the parcel)" in w["text"]
    assert "Warning (site_overlaps_neighbour)" in said
    mailed = {r["parcel_ids"] for r in _rows(out / "mailing_list.csv")}
    assert {"L_3_2", "L_2_3", "L_3_3"} <= mailed
    left = {r["parcel_id"]: r["reason"] for r in _rows(out / "left_out.csv")}
    assert list(left) == ["L_2_2"]  # only the real subject is "the applicant's own land"
    assert "subjects_have_different_owners" not in {w["code"] for w in doc["warnings"]}


def test_subjects_with_different_owners_are_warned(tmp_path):
    town = swm_gis.load_config(_town(tmp_path / "t"))
    pkg = swm_gis.abutter_package(town, parcels=["L_2_2", "L_3_2"])
    [w] = [w for w in pkg.warnings if w["code"] == "subjects_have_different_owners"]
    assert "L_2_2: OWNER L_2_2; L_3_2: OWNER L_3_2" in w["text"]
    same = _assess(_lots(), L_3_2={"OWNER1": "Owner  L_2_2."})  # the same owner, spelt apart
    town = swm_gis.load_config(_town(tmp_path / "same", assess=same))
    pkg = swm_gis.abutter_package(town, parcels=["L_2_2", "L_3_2"])
    assert "subjects_have_different_owners" not in {w["code"] for w in pkg.warnings}


def test_the_share_rule_is_a_strict_rules_key(tmp_path):
    site = gpd.GeoDataFrame(geometry=[box(X0 + 80, Y0 + 80, X0 + 132, Y0 + 120)], crs=CRS)
    # 12 m x 40 m of L_3_2 (30 % of it, 23 % of the site): a subject at the default 0.25 ...
    # (issue 34: only when L_3_2 has the main subject L_2_2's owner, spelt as the mailing list
    # compares names) ...
    same = _assess(_lots(), L_3_2={"OWNER1": "Owner  L_2_2."})
    town = swm_gis.load_config(_town(tmp_path / "a", assess=same))
    assert swm_gis.abutter_package(town, site=site).info.subject_ids == ("L_2_2", "L_3_2")
    # ... another owner's lot stays an abutter, is mailed and is named with its owner
    pkg = swm_gis.abutter_package(swm_gis.load_config(_town(tmp_path / "o")), site=site)
    assert pkg.info.subject_ids == ("L_2_2",)
    [w] = [w for w in pkg.warnings if w["code"] == "site_overlaps_neighbour"]
    assert ("L_3_2 (5,167 sq ft, 30.0 % of the parcel; owner OWNER L_3_2, not the owner of the "
            "main subject L_2_2 (OWNER L_2_2))") in w["text"]
    assert "OWNER L_3_2" in set(pkg.recipients["owner_name"])
    # ... not at 0.4, where it is grazed (480 m2 = 5,167 sq ft) and mailed
    town = swm_gis.load_config(_town(tmp_path / "b", extra="[rules]\nsite_subject_share = 0.4\n"))
    pkg = swm_gis.abutter_package(town, site=site)
    assert pkg.info.subject_ids == ("L_2_2",)
    assert "L_3_2 (5,167 sq ft, 30.0 % of the parcel)" in pkg.warnings[0]["text"]
    assert "OWNER L_3_2" in set(pkg.recipients["owner_name"])
    (tmp_path / "c").mkdir()
    bad = tmp_path / "c" / "t.toml"
    bad.write_text('[town]\nname = "T"\n[rules]\nsite_subject_shares = 0.4\n'
                   '[layers.parcels]\npath = "p.gpkg"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match='Did you mean "site_subject_share"'):
        swm_gis.load_config(bad)


# --------------------------------------------------------------------------- owner join
def test_a_broken_join_fails_validate_and_is_refused_by_abutters(tmp_path, capsys):
    """The parcels keyed by MAP_PAR_ID while the assessing table holds LOC_IDs: 0 of 25 join."""
    toml = _town(tmp_path / "t", extra='[layers.parcels.fields]\nid = "MAP_PAR_ID"\n')
    code, said = _run(["data", "validate", "-c", str(toml)], capsys)
    assert code == 2
    assert "owner join: 0 of 25 parcels that can have an owner (0.0 %)" in said
    assert "[layers.parcels.fields] id and [layers.assess.fields] parcel_id" in said
    assert "MAP_PAR_ID, e.g. 0-K-0" in said
    out = tmp_path / "out"
    code, said = _run(["abutters", "-c", str(toml), "-p", "2-K-2", "-o", str(out)], capsys)
    assert code == 2 and "Traceback" not in said
    assert "None of the 8 abutting parcel(s) that can have an owner joins a record" in said
    assert "[layers.assess.fields] parcel_id" in said
    assert not out.exists()
    with pytest.raises(OwnerJoinError) as refused:
        swm_gis.abutter_package(swm_gis.load_config(toml), parcels="2-K-2")
    # the figures travel as data too (``--progress json`` "details"), for the QGIS plugin
    details = refused.value.details
    assert {k: details[k] for k in ("joined", "ownable", "examples", "parcels_field",
                                    "assess_field")} == {
        "joined": 0, "ownable": 8, "examples": ["1-K-1", "1-K-2", "1-K-3"],
        "parcels_field": "MAP_PAR_ID", "assess_field": "LOC_ID"}
    # the assessing LOC_ID holds the 25 parcels' LOC_IDs: the field the parcels should name
    assert details["fields_that_join"][0] == {"table": "parcels", "field": "LOC_ID",
                                              "holds": 25, "key": "layers.parcels.fields",
                                              "name": "id"}
    assert "(e.g. 1-K-1, 1-K-2, 1-K-3, field" in str(refused.value)
    code = main(["--progress", "json", "abutters", "-c", str(toml), "-p", "2-K-2", "-o",
                 str(out)])
    said = capsys.readouterr()
    [event] = [json.loads(line) for line in (said.out + said.err).splitlines()
               if '"type": "error"' in line]
    assert (code, event["error"], event["details"]) == (2, "OwnerJoinError", refused.value.details)


def test_a_healthy_join_passes_validate_with_its_rate(tmp_path, capsys):
    code, said = _run(["data", "validate", "-c", str(_town(tmp_path / "t"))], capsys)
    assert code == 0, said
    assert "owner join: 25 of 25 parcels that can have an owner (100.0 %)" in said
    assert "by POLY_TYPE: FEE 25 of 25" in said


def test_parcels_without_a_record_are_warned_and_named_as_not_mailed(tmp_path):
    assess = _assess(_lots())
    assess = assess.loc[~assess["LOC_ID"].isin(["L_1_1", "L_3_3"])]
    pkg = swm_gis.abutter_package(swm_gis.load_config(_town(tmp_path / "t", assess=assess)),
                                  parcels="L_2_2")
    [w] = [w for w in pkg.warnings if w["code"] == "owners_not_found"]
    assert "2 of 8 abutting parcel(s) have no assessing record" in w["text"]
    assert "L_1_1, L_3_3" in w["text"]
    named = pkg.not_mailed.set_index("parcel_id")["reason_code"].to_dict()
    assert named == {"L_1_1": "no_owner_of_record", "L_3_3": "no_owner_of_record"}
    c = pkg.counts
    # 9 parcels within 100 ft = the subject L_2_2 + 6 mailed + 2 not mailed (issue 34)
    assert (c["parcels_total"], c["parcels_subject"], c["parcels_mailed"],
            c["parcels_not_mailed"]) == (9, 1, 6, 2)


# --------------------------------------------------------------------------- certification
def test_the_certification_adds_up_in_every_output(tmp_path, capsys):
    """Of the 8 lots round L_2_2 (all at 0 ft): L_1_1 has no record, L_3_3's owner has no
    address, L_2_1 is a street polygon (ROW): with the subject, 9 = 1 subject + 5 mailed + 3
    named as not mailed (issue 34: the sum includes the subject, named with its owner)."""
    from openpyxl import load_workbook

    parcels = _lots()
    parcels.loc[parcels["LOC_ID"] == "L_2_1", "POLY_TYPE"] = "ROW"
    assess = _assess(parcels, L_3_3={"OWN_ADDR": "", "OWN_CITY": "", "OWN_STATE": "",
                                     "OWN_ZIP": ""})
    assess = assess.loc[~assess["LOC_ID"].isin(["L_1_1", "L_2_1"])]
    toml = _town(tmp_path / "t", parcels, assess)
    out = tmp_path / "out"
    code, said = _run(["abutters", "-c", str(toml), "-p", "L_2_2", "-o", str(out)], capsys)
    assert code == 0, said
    doc = json.loads((out / "abutters.json").read_text(encoding="utf-8"))
    c = doc["counts"]
    assert (c["parcels_total"], c["parcels_subject"], c["parcels_mailed"],
            c["parcels_not_mailed"]) == (9, 1, 5, 3)
    assert doc["subject"]["parcels"] == [{"parcel_id": "L_2_2", "map_par_id": "2-K-2",
                                          "owners": ["OWNER L_2_2"]}]
    assert {(r["parcel_id"], r["reason_code"]) for r in doc["not_mailed"]} == {
        ("L_1_1", "no_owner_of_record"), ("L_3_3", "no_usable_address"),
        ("L_2_1", "right_of_way_or_water")}
    sums = ("9 parcel(s) within 100 ft of the subject (rights-of-way and water included) = 1 "
            "subject parcel(s) (the applicant's own, not mailed) + 5 whose owners are mailed + "
            "3 not mailed")
    assert sums in said
    pdf = " ".join(" ".join(p.extract_text() for p in PdfReader(
        out / "certification.pdf").pages).split())
    sheet = " ".join(str(c.value) for c in load_workbook(out / "mailing_list.xlsx")[
        "Certification"]["A"] if c.value)
    for text in (pdf, " ".join(sheet.split())):
        assert sums in text
        for pid in ("L_1_1 (map-lot 1-K-1)", "L_3_3 (map-lot 3-K-3)", "L_2_1 (map-lot 2-K-1)"):
            assert pid in text
        assert "no owner of record in the assessing data" in text
        assert "no usable mailing address" in text
        assert "Warning (owners_not_found)" in text
        assert "L_2_2 (map-lot 2-K-2): OWNER L_2_2" in text
        assert "every other parcel within that distance is named above as not mailed" in text
    # the mailed parcels are exactly the others
    mailed = {p for r in _rows(out / "mailing_list.csv") for p in r["parcel_ids"].split("; ")}
    assert mailed == {"L_1_2", "L_1_3", "L_2_3", "L_3_1", "L_3_2"}


# --------------------------------------------------------------------------- addresses (L3)
def test_massgis_defaults_on_an_l3_table_never_print_usa(tmp_path):
    """OWN_CO is the owner's country in the L3 standard: "USA" is never printed (not as a
    co-owner, not as a country line); a Canadian owner gets CANADA as the country line."""
    from swm_gis.reports.labels import label_parts

    assess = _assess(_lots(), L_1_1={"OWN_ADDR": "55 KING ST W", "OWN_CITY": "TORONTO ON",
                                     "OWN_STATE": "", "OWN_ZIP": "M5K 1E7",
                                     "OWN_CO": "CANADA"})
    pkg = swm_gis.abutter_package(swm_gis.load_config(_town(tmp_path / "t", assess=assess)),
                                  parcels="L_2_2")
    assert len(pkg.recipients) == 8
    for rec in pkg.recipients.to_dict("records"):
        names, address = label_parts(rec)
        lines = [*names, *address]
        assert "USA" not in " ".join(lines) and rec["co_owner"] in ("", None)
        if rec["owner_name"] == "OWNER L_1_1":
            assert lines == ["OWNER L_1_1", "55 KING ST W", "TORONTO ON M5K 1E7", "CANADA"]
        else:
            assert len(names) == 1 and rec["mail_country"] == ""


# --------------------------------------------------------------------------- the ids clerks use
def test_parcel_by_map_lot_says_what_it_matched(tmp_path):
    town = swm_gis.load_config(_town(tmp_path / "t"))
    pkg = swm_gis.abutter_package(town, parcels=["2-K-2"])
    assert pkg.info.subject_ids == ("L_2_2",)
    assert ("The parcel given as 2-K-2 matched the map-lot (MAP_PAR_ID) of parcel(s) L_2_2."
            in pkg.summary)
    loose = swm_gis.abutter_package(town, parcels=["2 k 2"])
    assert loose.info.subject_ids == ("L_2_2",)
    assert 'written there as map-lot "2-K-2"' in " ".join(loose.summary)


def test_an_unknown_parcel_lists_near_matches_not_the_config(tmp_path):
    town = swm_gis.load_config(_town(tmp_path / "t"))
    with pytest.raises(UnknownParcelError) as info:
        swm_gis.abutter_package(town, parcels=["2-K-22"])
    text = str(info.value)
    assert 'not found in field "LOC_ID" nor among the map-lots (field "MAP_PAR_ID")' in text
    assert "near matches 2-K-2 (map-lot of parcel L_2_2)" in text
    assert "[layers.parcels.fields]" not in text


def test_the_api_takes_one_id_as_a_string():
    town = swm_gis.load_config(SAMPLE_CONFIG)
    one = swm_gis.abutter_package(town, parcels="M_236682_917765")
    assert one.info.subject_ids == ("M_236682_917765",)
    assert list(one.listed["parcel_id"]) == list(
        swm_gis.abutter_package(town, parcels=["M_236682_917765"]).listed["parcel_id"])


def test_null_ids_near_the_subject_do_not_stop_the_run(tmp_path, capsys):
    """A lot within the distance and one farther out drawn without an id: listed as having no
    owner of record (named as not mailed), the map drawn, exit 0."""
    parcels = _lots()
    parcels.loc[parcels["LOC_ID"].isin(["L_1_2", "L_4_4"]), "LOC_ID"] = None
    out = tmp_path / "out"
    code, said = _run(["abutters", "-c", str(_town(tmp_path / "t", parcels)), "-p", "L_2_2",
                       "-o", str(out)], capsys)
    assert code == 0, said
    doc = json.loads((out / "abutters.json").read_text(encoding="utf-8"))
    [row] = [r for r in doc["not_mailed"] if r["parcel_id"] == ""]
    assert row["reason"].endswith("(the polygon has no parcel id)")
    assert len(PdfReader(out / "abutters_map.pdf").pages) >= 2


# --------------------------------------------------------------------------- coverage gaps
def _sqft(text: str) -> float:
    return float(re.search(r"reaches ([\d,]+) sq ft", text).group(1).replace(",", ""))


@pytest.mark.parametrize("boundary", [True, False], ids=["town-boundary", "no-boundary"])
def test_a_lot_on_the_town_line_gives_the_missing_area_and_its_direction(tmp_path, boundary):
    """Lots cover x 0-200 m; subject L_4_2 (x 160-200 m) lies on the line x = 200 m. Its
    100 ft (30.48 m) search area reaches across it by a 30.48 m x 40 m strip and two quarter
    discs of 30.48 m: 1,219.2 + 1,459.4 = 2,678.6 m2 = 28,832 sq ft, to the east."""
    layers = {"town_boundary": gpd.GeoDataFrame(geometry=[box(X0, Y0, X0 + 200, Y0 + 200)],
                                                crs=CRS)} if boundary else {}
    pkg = swm_gis.abutter_package(swm_gis.load_config(_town(tmp_path / "t", **layers)),
                                  parcels="L_4_2")
    [w] = [w for w in pkg.warnings if w["code"] == "parcels_missing_beyond_edge"]
    exact = (30.48 * 40 + 3.141592653589793 * 30.48**2 / 2) * SQFT_PER_M2
    assert _sqft(w["text"]) == pytest.approx(exact, rel=0.002)
    assert "to the east of the subject" in w["text"]
    assert ("beyond the town boundary" if boundary else "beyond the outline of the parcels") \
        in w["text"]


def test_a_gap_round_a_corner_is_named_by_where_its_area_is(tmp_path):
    """Subject L_0_1 + L_0_2 + L_0_3 (x 0-40 m, y 40-160 m) on the west line, and lots L_0_0,
    L_1_0 (x 0-80 m, y 0-40 m) missing from the data. With the boundary, only the part beyond
    the line counts: a 30.48 m x 120 m strip and two quarter discs, 3,657.6 + 1,459.4 =
    5,117.0 m2 = 55,079 sq ft, to the west. Without it, the missing lots' part (south and
    south-east of the subject: 40 m x 30.48 m and a quarter disc, 1,949 m2) counts too; most of
    the area is still west, then south."""
    parcels = _lots()
    parcels = parcels.loc[~parcels["LOC_ID"].isin(["L_0_0", "L_1_0"])]
    subject = ["L_0_1", "L_0_2", "L_0_3"]
    boundary = gpd.GeoDataFrame(geometry=[box(X0, Y0, X0 + 200, Y0 + 200)], crs=CRS)
    pkg = swm_gis.abutter_package(swm_gis.load_config(
        _town(tmp_path / "b", parcels, town_boundary=boundary)), parcels=subject)
    [w] = [w for w in pkg.warnings if w["code"] == "parcels_missing_beyond_edge"]
    assert "to the west of the subject" in w["text"]
    strip = 30.48 * 120 + 3.141592653589793 * 30.48**2 / 2
    assert _sqft(w["text"]) == pytest.approx(strip * SQFT_PER_M2, rel=0.002)
    pkg = swm_gis.abutter_package(swm_gis.load_config(_town(tmp_path / "n", parcels)),
                                  parcels=subject)
    [w] = [w for w in pkg.warnings if w["code"] == "parcels_missing_beyond_edge"]
    assert "to the west and south of the subject" in w["text"]
    assert 1_850 < (_sqft(w["text"]) - strip * SQFT_PER_M2) / SQFT_PER_M2 < 1_960


def test_a_gap_inside_the_town_line_is_not_beyond_it(tmp_path):
    """With a boundary, the missing lots L_0_0 / L_1_0 inside the town are not "beyond the
    town line" (they are the town's own unparcelled land, e.g. a pond without a polygon)."""
    parcels = _lots()
    parcels = parcels.loc[~parcels["LOC_ID"].isin(["L_1_0", "L_2_0", "L_3_0"])]
    boundary = gpd.GeoDataFrame(geometry=[box(X0 - 500, Y0 - 500, X0 + 700, Y0 + 700)], crs=CRS)
    pkg = swm_gis.abutter_package(swm_gis.load_config(
        _town(tmp_path / "t", parcels, town_boundary=boundary)), parcels="L_2_1")
    assert "parcels_missing_beyond_edge" not in {w["code"] for w in pkg.warnings}
    without = swm_gis.abutter_package(swm_gis.load_config(_town(tmp_path / "n", parcels)),
                                      parcels="L_2_1")
    [w] = [w for w in without.warnings if w["code"] == "parcels_missing_beyond_edge"]
    assert "to the south of the subject" in w["text"]


# --------------------------------------------------------------------------- texts of the package
def test_the_package_cites_the_procedure_by_heading_and_asks_for_return_receipt(tmp_path,
                                                                                capsys):
    """No output cites "§ 320-18" (the regulation copy numbers only 320-19/20/21); the mailing
    book ticks Certified and Return Receipt and quotes A(7)'s wording."""
    out = tmp_path / "out"
    code, said = _run(["abutters", "-c", str(_town(tmp_path / "t")), "-p", "L_2_2", "-o",
                       str(out)], capsys)
    assert code == 0, said
    texts = {name: " ".join(" ".join(p.extract_text() for p in PdfReader(out / name).pages)
                            .split())
             for name in ("certification.pdf", "certified_mail.pdf", "abutters_map.pdf",
                          "labels.pdf")}
    texts["abutters.json"] = (out / "abutters.json").read_text(encoding="utf-8")
    texts["left_out.csv"] = (out / "left_out.csv").read_text(encoding="utf-8-sig")
    texts["summary"] = said
    for name, text in texts.items():
        assert "320-18" not in text, name
    assert "Chapter 320, permit procedure, A(7)" in texts["abutters.json"]
    assert "CERTIFICATION BY THE BOARD OF ASSESSORS (Chapter 320, permit procedure, A(2))" in \
        texts["certification.pdf"]
    book = texts["certified_mail.pdf"]
    assert ("by certified mail, return receipt requested, or by certificates of mailing"
            in book)
    assert "Return receipt requested with certified mail (RR Fee column)" in book
    from swm_gis.reports.certified_mail import MAIL_TYPES, TICKED

    assert TICKED == ("Certified", "Return Receipt (hardcopy)") and set(TICKED) <= set(MAIL_TYPES)
    # the ticks as drawn: an "X" in the box just left of each ticked label, none elsewhere
    runs = []
    PdfReader(out / "certified_mail.pdf").pages[0].extract_text(
        visitor_text=lambda t, cm, tm, *_: runs.append((t.strip(), cm[4] + tm[4], cm[5] + tm[5]))
        if t.strip() else None)
    ticks = [(x, y) for t, x, y in runs if t == "X"]
    labels = {t: (x, y) for t, x, y in runs if t in MAIL_TYPES}
    ticked = {t for t, (lx, ly) in labels.items()
              if any(abs(ly - y) < 1 and 0 < lx - x < 14 for x, y in ticks)}
    assert ticked == set(TICKED) and len(ticks) == 2

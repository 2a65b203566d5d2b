"""``swm-gis abutters`` end to end on a hand-built town in tmp_path."""

from __future__ import annotations

import csv
import json

import geopandas as gpd
import pyogrio
import pytest
from pypdf import PdfReader
from shapely.geometry import box
from support.townkit import CRS, write_town

from swm_gis.cli import main
from swm_gis.cli.abutters import parse_offset
from swm_gis.errors import SwmGisError
from swm_gis.results import OUTPUT_FILES

X0, Y0 = 230_000.0, 900_000.0


def _b(x0, y0, x1, y1):
    return box(X0 + x0, Y0 + y0, X0 + x1, Y0 + y1)


ASSESS_CSV = """\
LOC_ID,PROP_ID,SITE_ADDR,OWNER1,OWN_CO,OWN_ADDR,OWN_CITY,OWN_STATE,OWN_ZIP,OWN_COUNTRY,USE_CODE,FY
M_S,S,1 Elm St,ANN APPLICANT,,1 ELM ST,LYNNFIELD,MA,01940,,101,2025
M_A,A,3 Elm St,JOHN SMITH,,12 ELM ST,LYNNFIELD,MA,01940,,101,2025
M_C,C,5 Elm St,John Smith,,12 Elm St.,Lynnfield,MA,01940,,101,2025
M_D,D,9 Main St,=cmd|' /C calc'!A0,,1 MAIN ST,SAUGUS,MA,01906,,101,2025
M_E,E-1,7 Elm St #1,Désirée Côté,,7 ELM ST UNIT 1,LYNNFIELD,MA,01940-1234,,102,2025
M_E,E-2,7 Elm St #2,BOB JONES,ALICE JONES,7 ELM ST UNIT 2,LYNNFIELD,MA,01940,,102,2025
M_E,E-3,7 Elm St #3,CAROL LEE,,PO BOX 7,LYNNFIELD,MA,01940,,102,2025
M_G,G,99 Far Rd,FAR AWAY,,99 FAR RD,LYNNFIELD,MA,01940,,101,2025
"""


@pytest.fixture
def town_toml(tmp_path):
    rows = [
        ("M_S", "S", 164, "FEE", _b(0, 0, 50, 50)),
        ("M_A", "A", 164, "FEE", _b(80.47, 0, 130.47, 50)),  # 99.97 ft
        ("M_B", "B", 164, "FEE", _b(0, 80.49, 50, 130.49)),  # 100.03 ft
        ("M_R", "R", 164, "ROW", _b(-15, -100, 0, 150)),
        ("M_C", "C", 164, "FEE", _b(-65, 0, -15, 50)),
        ("M_D", "D", 999, "FEE", _b(0, -60, 50, -10)),
        ("M_E", "E", 164, "FEE", _b(60, -60, 100, -20)),
        ("M_F", "F", 164, "FEE", _b(-65, 60, -15, 100)),
        ("M_G", "G", 164, "FEE", _b(400, 400, 450, 450)),
    ]
    parcels = gpd.GeoDataFrame(
        {"LOC_ID": [r[0] for r in rows], "MAP_PAR_ID": [r[1] for r in rows],
         "TOWN_ID": [r[2] for r in rows], "POLY_TYPE": [r[3] for r in rows]},
        geometry=[r[4] for r in rows], crs=CRS)
    site = gpd.GeoDataFrame(geometry=[_b(10, 10, 40, 40)], crs=CRS)
    site.to_file(tmp_path / "site.gpkg", layer="site", driver="GPKG")
    (tmp_path / "assess.csv").write_text(ASSESS_CSV, encoding="utf-8")
    return write_town(tmp_path, {"parcels": parcels},
                      extra='\n[layers.assess]\npath = "assess.csv"\n')


def _csv(path):
    with open(path, encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.reader(fh))
    header, body = rows[0], []
    for r in rows[1:]:
        if not r:
            break
        body.append(dict(zip(header, r, strict=True)))
    return body


def _flat(text):
    return " ".join(text.replace("│", " ").split())


def test_abutters_writes_the_whole_package(town_toml, tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["--progress", "none", "abutters", "--config", str(town_toml), "--parcel", "M_S",
                 "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    for name in OUTPUT_FILES.values():
        assert (out / name).is_file(), name
    abut = _csv(out / "abutting_parcels.csv")
    assert [r["parcel_id"] for r in abut] == ["M_D", "M_C", "M_F", "M_E", "M_A"]
    by_id = {r["parcel_id"]: r for r in abut}
    assert by_id["M_A"]["distance_ft"] == "99.97" and "M_B" not in by_id
    assert by_id["M_D"]["note"] == "other town: town id 999"
    assert by_id["M_F"]["note"] == "no owner of record: ask the Assessors"
    left = {r["parcel_id"]: r["reason"] for r in _csv(out / "left_out.csv")}
    assert "ROW polygon" in left["M_R"] and "subject parcel" in left["M_S"]
    mail = _csv(out / "mailing_list.csv")
    names = [r["owner_name"] for r in mail]
    assert len(mail) == 5 and "ANN APPLICANT" not in names and "FAR AWAY" not in names
    smith = [r for r in mail if r["owner_name"].upper() == "JOHN SMITH"]
    assert len(smith) == 1 and smith[0]["parcel_ids"] == "M_C; M_A"
    assert "'=cmd|' /C calc'!A0" in names
    assert {"Désirée Côté", "BOB JONES", "CAROL LEE"} <= set(names)
    stdout = capsys.readouterr().out
    assert "5 recipient(s) after removing 1 duplicate notice(s)" in _flat(stdout)
    labels = PdfReader(out / "labels.pdf")
    assert len(labels.pages) == 1 and float(labels.pages[0].mediabox.height) == 792
    assert "Désirée Côté" in labels.pages[0].extract_text()
    assert "Désirée Côté" in PdfReader(out / "certified_mail.pdf").pages[0].extract_text()
    key = "".join(p.extract_text() for p in PdfReader(out / "abutters_map.pdf").pages)
    # the key prints M_A by its map-lot "A" (issue 34: not the internal id)
    assert "5 A 3 Elm St 99.97" in key and "other town: town id 999" in key
    layers = {row[0] for row in pyogrio.list_layers(out / "abutters.gpkg")}
    assert {"subject", "search_area", "abutting_parcels"} <= layers
    gpkg = pyogrio.read_dataframe(out / "abutters.gpkg", layer="abutting_parcels")
    assert len(gpkg) == 5 and "distance_ft" in gpkg


def test_without_assessing_table_every_abutter_is_flagged(tmp_path, capsys):
    toml = tmp_path / "town" / "town.toml"
    toml.parent.mkdir()
    parcels = gpd.GeoDataFrame({"LOC_ID": ["S", "A"]},
                               geometry=[_b(0, 0, 50, 50), _b(60, 0, 100, 50)], crs=CRS)
    write_town(toml.parent, {"parcels": parcels})
    out = tmp_path / "out"
    assert main(["--progress", "none", "abutters", "-c", str(toml), "-p", "S", "-o",
                 str(out)]) == 0
    rows = _csv(out / "abutting_parcels.csv")
    assert [(r["parcel_id"], r["note"]) for r in rows] == [
        ("A", "no owner of record: ask the Assessors")]
    assert _csv(out / "mailing_list.csv") == []
    assert "No assessing table is configured" in _flat(capsys.readouterr().out)


def test_row_polygon_is_left_out_not_listed(town_toml, tmp_path):
    out = tmp_path / "out"
    assert main(["--progress", "none", "abutters", "-c", str(town_toml), "-p", "M_S", "-o",
                 str(out)]) == 0
    assert "M_R" not in {r["parcel_id"] for r in _csv(out / "abutting_parcels.csv")}


def test_unknown_parcel_id_exits_2_naming_it(town_toml, tmp_path, capsys):
    code = main(["--progress", "none", "abutters", "--config", str(town_toml), "--parcel", "M_S",
                 "--parcel", "NO_SUCH_9", "--out", str(tmp_path / "out")])
    assert code == 2
    err = _flat(capsys.readouterr().err)
    assert "NO_SUCH_9" in err and '"LOC_ID"' in err
    assert "[layers.parcels.fields] id" in err
    assert "Traceback" not in err
    assert not (tmp_path / "out" / "mailing_list.csv").exists()


def test_existing_outputs_need_overwrite(town_toml, tmp_path, capsys):
    args = ["--progress", "none", "abutters", "-c", str(town_toml), "-p", "M_S", "-o",
            str(tmp_path / "out")]
    assert main(args) == 0
    assert main(args) == 2
    assert "--overwrite" in _flat(capsys.readouterr().err)
    assert main([*args, "--overwrite"]) == 0


def test_site_distance_in_metres_include_subject_and_other_labels(town_toml, tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["--progress", "json", "abutters", "-c", str(town_toml), "--site",
                 f"{tmp_path / 'site.gpkg'}:site", "--distance", "30.48m", "--include-subject",
                 "--label-template", "5163", "--label-offset", "0.02,-0.03",
                 "--sender", "Ann Applicant", "--sender", "1 Elm St", "-o", str(out)])
    assert code == 0, capsys.readouterr().err
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["type"] == "result" and result["command"] == "abutters"
    assert set(result["outputs"]) == set(OUTPUT_FILES)
    abut = {r["parcel_id"]: r for r in _csv(out / "abutting_parcels.csv")}
    assert abut["M_S"]["distance_ft"] == "0.0" and "M_A" in abut
    assert "ANN APPLICANT" in {r["owner_name"] for r in _csv(out / "mailing_list.csv")}


@pytest.mark.parametrize(("args", "needle"), [
    (["--distance", "100yd"], "100yd"),
    (["--label-template", "9999"], "9999"),
    (["--label-offset", "abc"], "abc"),
])
def test_bad_options_exit_2(town_toml, tmp_path, capsys, args, needle):
    code = main(["--progress", "none", "abutters", "-c", str(town_toml), "-p", "M_S", "-o",
                 str(tmp_path / "out"), *args])
    assert code == 2
    assert needle in _flat(capsys.readouterr().err)


def test_neither_or_both_subjects_exit_2(town_toml, tmp_path, capsys):
    assert main(["--progress", "none", "abutters", "-c", str(town_toml), "-o",
                 str(tmp_path / "o")]) == 2
    assert "--parcel" in _flat(capsys.readouterr().err)


def test_help_ends_with_an_example(capsys):
    assert main(["abutters", "--help"]) == 0
    assert "Example: swm-gis abutters" in capsys.readouterr().out


def test_parse_offset():
    assert parse_offset("0.05,-0.03") == (0.05, -0.03)
    with pytest.raises(SwmGisError, match="more than an inch"):
        parse_offset("2,0")


def test_wpa_pond_extension_and_demo_on_the_sample_town(tmp_path, capsys, sample_demo):
    from support.townkit import SAMPLE_CONFIG

    out = tmp_path / "pond"
    # M_237912_919474 borders Beaver Pond (2.35 acres) in the synthetic sample town
    args = ["--progress", "none", "abutters", "-c", str(SAMPLE_CONFIG), "-p", "M_237912_919474",
            "--distance", "20ft", "-o", str(out)]
    assert main(args) == 0
    plain = {r["parcel_id"] for r in _csv(out / "abutting_parcels.csv")}
    assert main([*args, "--overwrite", "--wpa-pond-extension"]) == 0
    rows = _csv(out / "abutting_parcels.csv")
    extra = {r["parcel_id"] for r in rows} - plain
    assert extra and all("WPA pond extension: abuts Beaver Pond" in r["note"]
                         for r in rows if r["parcel_id"] in extra)
    assert "WPA pond extension" in _flat(capsys.readouterr().out)

    # the demo's abutters step: the session's demo (tests/support/sample_demo.py)
    assert "M_236682_917765" in sample_demo.summary
    assert all((sample_demo.abutters / name).is_file() for name in OUTPUT_FILES.values())

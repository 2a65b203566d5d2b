"""The abutter package as a whole (docs/abutters.md): abutters.json against its schema, one set of
counts across the summary, the JSON, the map footer and the CSV rows, --include-subject, the
right-of-way rule (Cambridge's ROAD), and the warnings (town line, many abutters).
"""

from __future__ import annotations

import csv
import datetime as dt
import json
import re
from importlib import resources
from pathlib import Path

import geopandas as gpd
import jsonschema
import pandas as pd
import pytest
import shapely
from pypdf import PdfReader
from support.townkit import CAMBRIDGE_CONFIG, CRS, REPO, SAMPLE_CONFIG

import swm_gis
from swm_gis.cli import main
from swm_gis.config.town import RightOfWayRule, Rules, load_config
from swm_gis.errors import ConfigError
from swm_gis.rules import abutters as core

SCHEMA = json.loads(resources.files("swm_gis").joinpath("schemas/abutters.schema.json")
                    .read_text(encoding="utf-8"))
SAMPLE_SUBJECT = "M_236682_917765"


def _rows(path: Path) -> list[dict]:
    with open(path, encoding="utf-8-sig", newline="") as fh:
        return list(csv.DictReader(fh))


def _flat(text: str) -> str:
    return " ".join(text.split())


def _run(args: list[str], capsys) -> tuple[int, str]:
    code = main(["--progress", "none", *args])
    out = capsys.readouterr()
    return code, _flat(out.out + out.err)


# --------------------------------------------------------------------------- schema
def test_schema_is_valid_draft_2020_12():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    with pytest.raises(jsonschema.ValidationError, match="'warnings' is a required property"):
        jsonschema.validate({"town": "x", "subject": {"parcel_ids": ["a"]}, "distance_ft": 1,
                             "counts": {}, "sources": [], "generated": "t"}, SCHEMA)


@pytest.fixture
def sample_out(sample_demo):
    """``swm-gis abutters`` of SAMPLE_SUBJECT as the session's demo wrote it (its abutters step;
    tests/support/sample_demo.py)."""
    return sample_demo.abutters


def test_sample_town_counts_are_exact(sample_out):
    doc = json.loads((sample_out / "abutters.json").read_text(encoding="utf-8"))
    jsonschema.validate(doc, SCHEMA)
    # 9 lots within 100 ft; two street ROW polygons and the subject's own row are left out;
    # the 9 lots have 20 assessing rows (a condominium among them), 20 distinct owners
    counts = doc["counts"]
    assert {k: counts[k] for k in ("abutting", "left_out", "recipients", "mailable",
                                   "duplicates_removed", "no_owner_of_record", "other_town",
                                   "incomplete_address", "no_mailing_address")} == {
        "abutting": 9, "left_out": 3, "recipients": 20, "mailable": 20, "duplicates_removed": 0,
        "no_owner_of_record": 0, "other_town": 0, "incomplete_address": 0,
        "no_mailing_address": 0}
    assert doc["subject"]["parcel_ids"] == [SAMPLE_SUBJECT] and doc["distance_ft"] == 100.0
    # the sample's assessing data is FY2026: after 30 June 2026 it is not the current tax list
    # (issue 34), and that is the only warning
    assert [w["code"] for w in doc["warnings"]] == ["tax_list_not_current"]
    made = dt.date.fromisoformat(doc["generated"][:10])  # FY N runs 1 July N-1 to 30 June N
    current = made.year + (1 if made.month >= 7 else 0)  # 2027 in December 2026
    assert doc["tax_list"] == {"fiscal_year": 2026, "current_fiscal_year": current,
                               "current": False}
    assert doc["synthetic"] is True
    # issue 34: the sum includes the subject: 12 = 1 subject + 9 mailed + 2 street polygons
    assert (counts["parcels_total"], counts["parcels_subject"], counts["parcels_mailed"],
            counts["parcels_not_mailed"]) == (12, 1, 9, 2)
    assert len(_rows(sample_out / "abutting_parcels.csv")) == 9
    assert len(_rows(sample_out / "left_out.csv")) == 3
    assert len(_rows(sample_out / "mailing_list.csv")) == 20
    assert _rows(sample_out / "mailing_review.csv") == []
    cert = _flat(" ".join(p.extract_text() for p in PdfReader(
        sample_out / "certification.pdf").pages))
    assert "20 recipient(s) on the mailing list" in cert


def test_left_out_reasons_cite_chapter_320_never_the_spec(sample_out):
    reasons = [r["reason"] for r in _rows(sample_out / "left_out.csv")]
    assert reasons and all("Chapter 320" in r or "subject parcel" in r for r in reasons)
    assert not any("SPEC" in r for r in reasons)


def test_no_user_facing_text_cites_the_spec():
    """Strings the package prints (not docstrings or comments) never cite the developers' spec."""
    import ast

    hits = []
    for path in (REPO / "swm_gis").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = {id(n.body[0].value) for n in ast.walk(tree)
                if isinstance(n, ast.Module | ast.FunctionDef | ast.ClassDef) and n.body
                and isinstance(n.body[0], ast.Expr)}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                    and id(node) not in docs and "SPEC section" in node.value):
                hits.append(f"{path.name}:{node.lineno}")
    assert hits == []


def test_include_subject_marks_the_subject_row(tmp_path):
    out = tmp_path / "with"
    assert main(["--progress", "none", "abutters", "--config", str(SAMPLE_CONFIG), "--parcel",
                 SAMPLE_SUBJECT, "--include-subject", "--out", str(out)]) == 0
    rows = {r["parcel_id"]: r for r in _rows(out / "abutting_parcels.csv")}
    assert rows[SAMPLE_SUBJECT]["is_subject"] == "yes"
    assert rows[SAMPLE_SUBJECT]["distance_ft"] == "0.0"
    assert {r["is_subject"] for pid, r in rows.items() if pid != SAMPLE_SUBJECT} == {"no"}
    mail = _rows(out / "mailing_list.csv")
    subject_owners = [r for r in mail if SAMPLE_SUBJECT in r["parcel_ids"].split("; ")]
    assert subject_owners and {r["is_subject"] for r in subject_owners} == {"yes"}
    doc = json.loads((out / "abutters.json").read_text(encoding="utf-8"))
    # the subject is listed, not left out: 10 listed, the two ROW polygons left out
    assert doc["include_subject"] is True
    assert (doc["counts"]["abutting"], doc["counts"]["left_out"]) == (10, 2)


# --------------------------------------------------------------------------- Cambridge
def _map_footer_counts(pdf: Path) -> tuple[int, int]:
    text = _flat(PdfReader(pdf).pages[0].extract_text())
    m = re.search(r"(\d+) abutting parcel\(s\), (\d+) polygon\(s\) left out", text)
    assert m, text
    return int(m.group(1)), int(m.group(2))


def test_cambridge_9_29_counts_agree_across_every_output(tmp_path, capsys):
    out = tmp_path / "c"
    code, said = _run(["abutters", "--config", str(CAMBRIDGE_CONFIG), "--parcel", "9-29",
                       "--out", str(out)], capsys)
    assert code == 0
    doc = json.loads((out / "abutters.json").read_text(encoding="utf-8"))
    jsonschema.validate(doc, SCHEMA)
    c = doc["counts"]
    abutting, left = len(_rows(out / "abutting_parcels.csv")), len(_rows(out / "left_out.csv"))
    assert (c["abutting"], c["left_out"]) == (abutting, left)
    assert _map_footer_counts(out / "abutters_map.pdf") == (abutting, left)
    assert c["mailable"] == len(_rows(out / "mailing_list.csv"))
    assert c["recipients"] == c["mailable"] + c["no_mailing_address"] + c["incomplete_address"]
    assert (f"{abutting} abutting parcel(s): {c['no_owner_of_record']} with no owner of record"
            in said)
    assert f"{left} left out" in said
    assert (f"{c['mailable']} recipient(s) after removing {c['duplicates_removed']} duplicate"
            in said)
    assert (f"{c['no_mailing_address']} with no mailing address and {c['incomplete_address']} "
            "with an incomplete address") in said
    flagged = [r for r in _rows(out / "abutting_parcels.csv") if r["owner_of_record"] == "no"]
    assert c["no_owner_of_record"] == len(flagged)


def test_cambridge_config_marks_road_polygons_right_of_way():
    cfg = load_config(CAMBRIDGE_CONFIG)
    assert cfg.rules.right_of_way == RightOfWayRule(field="ML", values=("ROAD",))
    parcels = swm_gis.io.layers.read_layer(cfg, "parcels", bbox=(234900, 901900, 235400, 902400))
    kinds = core.no_owner_kind(parcels, cfg.rules)
    assert set(parcels.loc[kinds != "", "id"]) == {"ROAD"}
    assert set(kinds[kinds != ""]) == {"ML = ROAD"}


def test_cambridge_site_touching_the_street_does_not_pull_in_the_city(tmp_path, capsys):
    cfg = load_config(CAMBRIDGE_CONFIG)
    near = swm_gis.io.layers.read_layer(cfg, "parcels", bbox=(234900, 901900, 235400, 902400))
    lot = near.loc[near["id"] == "9-29"].geometry.iloc[0]
    road = shapely.union_all(near.loc[near["id"] == "ROAD"].geometry.values)
    # the lot plus a strip of the street in front of it (the driveway apron)
    apron = shapely.intersection(road, lot.buffer(4.0))
    assert apron.area > 5
    site = gpd.GeoDataFrame(geometry=[shapely.union_all([lot.buffer(-0.5), apron])], crs=CRS)
    site_file = tmp_path / "site.gpkg"
    site.to_file(site_file, driver="GPKG")
    out = tmp_path / "out"
    code, said = _run(["abutters", "--config", str(CAMBRIDGE_CONFIG), "--site", str(site_file),
                       "--out", str(out)], capsys)
    assert code == 0, said
    doc = json.loads((out / "abutters.json").read_text(encoding="utf-8"))
    assert doc["subject"]["parcel_ids"] == ["9-29"]
    codes = [w["code"] for w in doc["warnings"]]
    assert "right_of_way_not_subject" in codes and "many_abutters" not in codes
    assert "ROAD" in next(w["text"] for w in doc["warnings"]
                          if w["code"] == "right_of_way_not_subject")
    assert "Warning (right_of_way_not_subject)" in said
    left = {r["parcel_id"]: r["reason"] for r in _rows(out / "left_out.csv")}
    assert "marked right-of-way by the town config (ML = ROAD)" in left["ROAD"]
    assert "Chapter 320, permit procedure, A(7)" in left["ROAD"]
    assert doc["counts"]["abutting"] < 20


# --------------------------------------------------------------------------- ROW rule
def test_no_owner_kind_combines_poly_type_and_the_config_rule():
    rules = Rules(right_of_way=RightOfWayRule(field="ML", values=("ROAD", "RR")))
    frame = pd.DataFrame({"poly_type": ["ROW", None, None, "FEE", "water", None],
                          "right_of_way": ["x", " road ", "RR", "ROAD", None, "1-2"]})
    assert core.no_owner_kind(frame, rules).tolist() == [
        "ROW", "ML = road", "ML = RR", "", "WATER", ""]
    assert core.no_owner_type(frame, Rules()).tolist() == [True, False, False, False, True,
                                                           False]


@pytest.mark.parametrize("rule", ['"ROAD"', '{field = "ML"}', '{field = "", values = ["R"]}',
                                  '{field = "ML", values = []}', '{field = "ML", values = [1]}',
                                  '{field = "ML", values = ["R"], where = "x"}'])
def test_a_malformed_right_of_way_rule_is_refused(tmp_path, rule):
    toml = tmp_path / "t.toml"
    toml.write_text(f'[town]\nname = "T"\n[layers.parcels]\npath = "p.gpkg"\n'
                    f"right_of_way = {rule}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="right_of_way"):
        load_config(toml)


def test_a_right_of_way_field_the_source_lacks_is_a_clear_error(tmp_path, capsys):
    toml = tmp_path / "sample.toml"
    text = SAMPLE_CONFIG.read_text(encoding="utf-8").replace(
        'layer = "parcels"', 'layer = "parcels"\nright_of_way = {field = "NOPE", values = '
        '["ROAD"]}', 1).replace('path = "sample.gpkg"', f'path = "{SAMPLE_CONFIG.parent}/'
                                                        'sample.gpkg"')
    toml.write_text(text, encoding="utf-8")
    code, said = _run(["abutters", "--config", str(toml), "--parcel", SAMPLE_SUBJECT, "--out",
                       str(tmp_path / "o")], capsys)
    assert code == 2 and "'NOPE'" in said and "Traceback" not in said
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").iterdir())


# --------------------------------------------------------------------------- many abutters
def _sample_with(tmp_path: Path, rules: str) -> Path:
    toml = tmp_path / "sample.toml"
    text = SAMPLE_CONFIG.read_text(encoding="utf-8").replace(
        'path = "sample.gpkg"', f'path = "{SAMPLE_CONFIG.parent}/sample.gpkg"')
    toml.write_text(text + f"\n[rules]\n{rules}\n", encoding="utf-8")
    return toml


def test_many_abutters_is_said_before_writing_and_the_package_is_written(tmp_path, capsys):
    toml = _sample_with(tmp_path, "abutter_warning_count = 5")
    code, said = _run(["abutters", "--config", str(toml), "--parcel", SAMPLE_SUBJECT, "--out",
                       str(tmp_path / "o")], capsys)
    assert code == 0
    assert said.index("Warning (many_abutters)") < said.index("Wrote:")
    doc = json.loads((tmp_path / "o" / "abutters.json").read_text(encoding="utf-8"))
    # the sample's FY2026 assessing data is not the current fiscal year after 30 June 2026
    assert [w["code"] for w in doc["warnings"]] == ["many_abutters", "tax_list_not_current"]
    # 9 abutting lots + 2 ROW polygons were found within 100 ft
    assert doc["warnings"][0]["text"].startswith(
        "11 parcels lie within 100 ft of the subject, more than the usual 5")


def test_max_abutters_stops_before_writing_anything(tmp_path, capsys):
    out = tmp_path / "o"
    code, said = _run(["abutters", "--config", str(SAMPLE_CONFIG), "--parcel", SAMPLE_SUBJECT,
                       "--max-abutters", "10", "--out", str(out)], capsys)
    assert code == 2 and "more than --max-abutters 10" in said and "Traceback" not in said
    assert not out.exists() or not any(out.iterdir())
    assert main(["--progress", "none", "abutters", "--config", str(SAMPLE_CONFIG), "--parcel",
                 SAMPLE_SUBJECT, "--max-abutters", "11", "--out", str(out)]) == 0


@pytest.mark.parametrize("bad", ["abutter_warning_count = 0", 'abutter_warning_count = "5"',
                                 "abutter_warning_count = 2.5",
                                 'right_of_way = {field = "ML", values = ["ROAD"]}'])
def test_bad_warning_count_or_rule_under_rules_is_refused(tmp_path, bad):
    with pytest.raises(ConfigError):
        load_config(_sample_with(tmp_path, bad))


def test_a_right_of_way_given_as_the_subject_is_warned_about():
    # a street polygon of the sample town (POLY_TYPE ROW) next to the usual subject
    pkg = swm_gis.abutter_package(load_config(SAMPLE_CONFIG), parcels=["M_236584_917849"])
    [w] = [w for w in pkg.warnings if w["code"] == "subject_is_right_of_way"]
    assert "M_236584_917849 is a right-of-way or water polygon" in w["text"]
    assert not [w for w in swm_gis.abutter_package(
        load_config(SAMPLE_CONFIG), parcels=[SAMPLE_SUBJECT]).warnings
        if w["code"] != "tax_list_not_current"]  # FY2026 data, checked on its own

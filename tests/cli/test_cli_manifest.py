"""The result manifest (``swm_gis/manifest.py``) of every writing command on the sample town.

Each command runs once with ``--progress json`` (as the QGIS plugin runs it); its last line's
``"manifest"`` must validate against ``swm_gis/schemas/manifest.schema.json``, list exactly the
files the command wrote (with the GeoPackages' layers as written), and state the counts the
files hold, read back here from the files themselves. The sample town's figures are the README's
(data/sample/README.md): the demo parcel M_236682_917765 has 9 abutting parcels and 20 notice
recipients; the demo site disturbs 58,125.1 sq ft; the town has 3,167 parcels.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pandas as pd
import pyogrio
import pytest
from support.townkit import REPO, SAMPLE_CONFIG

from swm_gis import manifest as mf

SCHEMA = json.loads((REPO / "swm_gis" / "schemas" / "manifest.schema.json")
                    .read_text(encoding="utf-8"))
SITES = REPO / "data" / "sample" / "sites.gpkg"
SUBJECT = "M_236682_917765"


def _engine(*args: str) -> dict:
    """Run ``swm-gis --progress json ARGS``; its result line (the last line of stdout)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p)}
    proc = subprocess.run([sys.executable, "-m", "swm_gis", "--progress", "json", *args],
                          capture_output=True, text=True, env=env, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["type"] == "result"
    return result


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, dict]:
    """screen, abutters, applicability and publish (from that map) on the sample town."""
    out = tmp_path_factory.mktemp("manifest")
    config = str(SAMPLE_CONFIG)
    return {
        "screen": _engine("screen", "-c", config, "-s", f"{SITES}:site", "--no-report",
                          "-o", str(out / "screen")),
        "abutters": _engine("abutters", "-c", config, "-p", SUBJECT, "-o", str(out / "abut")),
        "applicability": _engine("applicability", "-c", config, "-o",
                                 str(out / "map" / "applicability.gpkg")),
        "publish": _engine("publish", "-c", config, "--from",
                           str(out / "map" / "applicability.gpkg"), "-o", str(out / "site")),
    }


def _table_rows(path: str) -> list[dict[str, str]]:
    """The rows of a CSV the engine wrote: the table ends at the first blank row (the notes
    after it start with '#')."""
    with open(path, encoding="utf-8-sig", newline="") as fh:
        rows = []
        for row in csv.DictReader(fh):
            first = next(iter(row.values()), "") or ""
            if not any((v or "").strip() for v in row.values() if isinstance(v, str)) or \
                    first.startswith("#"):
                break
            rows.append(row)
    return rows


def _files(manifest: dict) -> dict[str, dict]:
    return {f["key"]: f for f in manifest["files"]}


@pytest.mark.parametrize("command", ["screen", "abutters", "applicability", "publish"])
def test_the_manifest_validates_and_lists_every_file_written(runs, command):
    result = runs[command]
    manifest = result["manifest"]
    jsonschema.validate(manifest, SCHEMA)
    assert manifest["command"] == command and manifest["version"] == 1
    files = _files(manifest)
    assert all(Path(f["path"]).is_file() for f in files.values()), command
    # "outputs" stays as it was (the contract of earlier front ends): each of its paths is in
    # the manifest under the same key, with a role
    for key, path in result["outputs"].items():
        manifest_key = "index.html" if key == "index_html" else key
        assert files[manifest_key]["path"] == path, key
    assert manifest["summary"] == result["summary"]
    assert manifest["headline"] and "\n" not in manifest["headline"]
    folder = Path(manifest["out_dir"])
    if command in ("screen", "abutters", "publish"):  # the folder holds only these files
        on_disk = {str(p) for p in folder.rglob("*") if p.is_file()}
        assert on_disk == {f["path"] for f in files.values()}


def test_geopackage_layers_are_as_written(runs):
    """Every GeoPackage entry names its layers with their feature counts; read back here."""
    checked = 0
    for command, result in runs.items():
        for entry in result["manifest"]["files"]:
            if entry["format"] != "gpkg":
                continue
            written = {name: pyogrio.read_info(entry["path"], layer=name)["features"]
                       for name, _geom in pyogrio.list_layers(entry["path"])
                       if name != "layer_styles"}
            assert {la["name"]: la["features"] for la in entry["layers"]} == written, command
            checked += 1
    assert checked == 3  # screening.gpkg, abutters.gpkg, applicability.gpkg


def test_abutters_counts_equal_the_files(runs):
    m = runs["abutters"]["manifest"]
    files, counts = _files(m), m["counts"]
    # README: 9 abutting parcels, 20 notice recipients for the demo parcel
    assert counts["abutting"] == len(_table_rows(files["abutting_parcels_csv"]["path"])) == 9
    mailing = _table_rows(files["mailing_list_csv"]["path"])
    assert counts["mailable"] == len(mailing) == 20
    assert counts["left_out"] == len(_table_rows(files["left_out_csv"]["path"]))
    assert counts["blank_addresses"] == sum(1 for r in mailing if not r["mail_address"].strip())
    review = _table_rows(files["mailing_review_csv"]["path"])
    assert counts["unmailable"] == sum(1 for r in review if r["issue"] in mf.UNMAILABLE_KEYS)
    record = json.loads(Path(files["abutters_json"]["path"]).read_text(encoding="utf-8"))
    assert {k: counts[k] for k in record["counts"]} == record["counts"]
    assert [w["code"] for w in m["warnings"]] == [w["code"] for w in record["warnings"]]
    assert files["mailing_list_csv"]["role"] == "mailing_list"
    assert files["certification_pdf"]["role"] == "certification"
    # 9 parcels within 100 ft, 20 recipients, 0 + 0 without a (complete) address
    assert m["headline"] == ("9 abutting parcel(s) within 100 ft; 20 notice recipient(s); "
                             "every recipient has a mailing address.")


def test_screen_findings_and_figures_equal_screening_json(runs):
    m = runs["screen"]["manifest"]
    document = json.loads(Path(_files(m)["screening_json"]["path"]).read_text(encoding="utf-8"))
    assert m["findings"] == document["findings"]
    assert m["counts"]["area_sqft"] == document["disturbance"]["area_sqft"]
    assert round(m["counts"]["area_sqft"], 1) == 58125.1  # README: 58,125.1 sq ft
    assert m["counts"]["habitats_found"] == len(document["habitats"])
    assert m["counts"]["sfha_area_sqft"] == document["floodplain"]["sfha_area_sqft"]
    assert m["details"]["floodplain"] == document["floodplain"]
    assert [w["code"] for w in m["warnings"]] == [w["code"] for w in document["warnings"]]
    assert m["headline"] == " ".join(document["findings"][0]["answer"].split())


def test_town_wide_counts_equal_the_files(runs):
    amap = runs["applicability"]["manifest"]
    gpkg = _files(amap)["geopackage"]["path"]
    assert amap["counts"]["parcels"] == pyogrio.read_info(gpkg, layer="applicability")[
        "features"] == 3167
    site = runs["publish"]["manifest"]
    record = json.loads(Path(_files(site)["publish.json"]["path"]).read_text(encoding="utf-8"))
    assert site["counts"]["parcels"] == record["parcels"] == 3167
    assert site["counts"]["size_bytes"] == sum(Path(f["path"]).stat().st_size
                                               for f in site["files"])
    assert _files(site)["index.html"]["role"] == "web_page"


def test_the_api_gives_the_same_manifest(runs, tmp_path):
    """``Screening.manifest()`` after ``write``: the files the command lists, same counts."""
    import swm_gis

    town = swm_gis.load_config(SAMPLE_CONFIG)
    screening = swm_gis.screen(town, f"{SITES}:site")
    screening.write(tmp_path / "api", report=False)
    api = screening.manifest()
    cli = runs["screen"]["manifest"]
    jsonschema.validate(api, SCHEMA)
    assert [f["key"] for f in api["files"]] == [f["key"] for f in cli["files"]]
    assert api["out_dir"] == str(tmp_path / "api")
    assert api["counts"] == cli["counts"] and api["findings"] == cli["findings"]


# --------------------------------------------------------------------------- by hand
def test_abutter_counts_by_hand():
    """Three recipients, one with a blank street line; 1 with no address + 2 incomplete kept
    off the list: unmailable 1 + 2 = 3, blank 1."""
    recipients = pd.DataFrame({"mail_address": ["1 ELM ST", "  ", None]})
    counts = mf.abutter_counts({"abutting": 4, "mailable": 3, "no_mailing_address": 1,
                                "incomplete_address": 2}, recipients)
    assert counts["unmailable"] == 3
    assert counts["blank_addresses"] == 2  # "  " and None both print no street line
    # no assessing data read: no address counts at all, so unmailable is not known (absent)
    assert "unmailable" not in mf.abutter_counts({"abutting": 4}, recipients.iloc[:0])


@pytest.mark.parametrize(("counts", "notice", "expected"), [
    ({"abutting": 5, "mailable": 5, "unmailable": 0, "blank_addresses": 0}, "conservation",
     "5 abutting parcel(s) within 100 ft; 5 notice recipient(s); every recipient has a "
     "mailing address."),
    ({"abutting": 7, "mailable": 6, "unmailable": 1, "blank_addresses": 0}, "zoning",
     "7 abutting parcel(s) among the parties in interest (M.G.L. c.40A s.11); 6 notice "
     "recipient(s); 1 cannot be mailed (no or incomplete address)."),
    ({"abutting": 2, "mailable": 2, "unmailable": 0, "blank_addresses": 1}, "conservation",
     "2 abutting parcel(s) within 100 ft; 2 notice recipient(s); 1 with no street address "
     "line (check before mailing)."),
    ({"abutting": 2, "mailable": 0}, "radius",  # no assessing table: nothing said of mail
     "2 abutting parcel(s) within 100 ft; 0 notice recipient(s)."),
])
def test_abutters_headline_by_hand(counts, notice, expected):
    assert mf.abutters_headline(counts, notice=notice, distance_ft=100.0) == expected


def test_regulation_export_gives_its_manifest(tmp_path):
    result = _engine("regulation", "export", "westwood-ch350", "--out",
                     str(tmp_path / "mytown.toml"))
    manifest = result["manifest"]
    jsonschema.validate(manifest, SCHEMA)
    assert [(f["key"], f["role"], f["format"], f["path"]) for f in manifest["files"]] == [
        ("profile", "regulation_profile", "toml", result["outputs"]["profile"])]
    assert Path(manifest["files"][0]["path"]).is_file()
    assert manifest["out_dir"] == str(tmp_path)


def test_builders_validate_against_the_schema():
    """The demo's manifest and a warning given as plain text, built by hand."""
    demo = mf.demo_manifest({"screen": "/o/screen", "abutters": "/o/abutters"}, "/o",
                            ["swm-gis demo on town.toml", "[screen] (5.0 s)"])
    jsonschema.validate(demo, SCHEMA)
    assert [(f["role"], f["format"]) for f in demo["files"]] == [("folder", "folder")] * 2
    assert demo["counts"] == {"steps": 2} and demo["headline"] == "swm-gis demo on town.toml"
    built = mf.build("publish", "/o", [mf.file_entry("assets/leaflet/LICENSE", "/o/LICENSE")],
                     warnings=["a context layer could not be read"])
    jsonschema.validate(built, SCHEMA)
    assert built["files"][0]["role"] == "asset" and built["files"][0]["format"] == "other"
    assert built["warnings"] == [{"code": "warning", "text": "a context layer could not be "
                                  "read", "parts": ["a context layer could not be read"]}]

"""swm-gis publish without a browser: quotes, legend, cards, privacy, config, output safety.

The browser checks (offline, search, cards on the page, accessibility) are in
tests/webmap/test_publish_browser.py.
"""

from __future__ import annotations

import json
import re
import shutil

import geopandas as gpd
import numpy as np
import pandas as pd
import pyogrio
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from support.townkit import REPO, SAMPLE_CONFIG

import swm_gis
from swm_gis.applicability.classify import class_order
from swm_gis.applicability.palette import fill_colours
from swm_gis.cli import main
from swm_gis.config.town import parse_config
from swm_gis.errors import ConfigError, InputFileError, OutputError, OutputExistsError
from swm_gis.webmap import encode, site

REGULATION = REPO.parent / "shared" / "regulations" / "lynnfield-chapter-320.txt"
CRS = "EPSG:26986"


def _regulation_text() -> str:
    """The regulation with its list markers on their own lines dropped and whitespace made one
    space (as tests/screening/test_general_requirements.py reads it), so quotes are found
    verbatim."""
    lines = REGULATION.read_text(encoding="utf-8").splitlines()
    keep = [ln for ln in lines if not re.fullmatch(r"\s*(\(\w+\)|[A-Z]\.|\[\d+\])\s*", ln)]
    return " ".join(" ".join(keep).split())


def test_every_quote_is_the_regulations_words():
    text = _regulation_text()
    quotes = site.quotes()
    assert {"trigger", "habitat", "floodplain", "huc12", "huc10", "orw", "impaired",
            "authority"} <= set(quotes)
    for key, q in quotes.items():
        assert " ".join(q["text"].split()) in text, key
        assert q["section"]


# --------------------------------------------------------------------------- legend
CLASSES = ["small parcel; no mapped constraints", "water",
           "large parcel; habitat and floodplain constraints",
           "small parcel; no constraint found; NHESP not checked", "right-of-way"]


def test_legend_entries_are_the_classes_with_their_looks_from_the_key():
    legend = site.legend_entries(CLASSES, counts={"water": 2})
    ordered = class_order(CLASSES)
    colours = fill_colours()
    assert [e["value"] for e in legend] == ordered
    assert [e["n"] for e in legend] == [1, 2, 3, 4, 5]
    by = {e["value"]: e for e in legend}
    big = by["large parcel; habitat and floodplain constraints"]
    assert (big["fill"], big["colour"], big["marks"], big["large"]) == (
        "habitat", colours["habitat"], ["floodplain"], True)
    unchecked = by["small parcel; no constraint found; NHESP not checked"]
    assert (unchecked["fill"], unchecked["marks"]) == ("not-checked", ["not-checked"])
    assert by["small parcel; no mapped constraints"]["marks"] == []
    assert by["water"]["parcels"] == 2 and by["right-of-way"]["parcels"] == 0
    # each class points at its colour's number in the map key
    key = {(e["kind"], e["key"]): e["n"] for e in site.map_key(CLASSES)}
    assert all(e["key"] == key[("fill", e["fill"])] for e in legend)


def test_map_key_lists_the_fills_patterns_and_outline_in_use():
    key = site.map_key(CLASSES, counts={"water": 2, "right-of-way": 4})
    # fills: habitat, none, not-checked, right-of-way, water; patterns: floodplain,
    # not-checked; outline: the large parcel
    assert [(e["n"], e["kind"], e["key"]) for e in key] == [
        (1, "fill", "habitat"), (2, "fill", "none"), (3, "fill", "not-checked"),
        (4, "fill", "right-of-way"), (5, "fill", "water"), (6, "mark", "floodplain"),
        (7, "mark", "not-checked"), (8, "outline", "large")]
    assert key[3]["parcels"] == 4 and key[4]["parcels"] == 2
    assert key[5]["pattern"] == {"kind": "lines", "angle": 0, "spacing_mm": 1.6,
                                 "width_mm": 0.25}


# --------------------------------------------------------------------------- cards
def _frame(**cols) -> gpd.GeoDataFrame:
    n = len(next(iter(cols.values())))
    return gpd.GeoDataFrame(cols, geometry=[shapely.box(0, 0, 1, 1)] * n, crs=CRS)


def test_card_records_keep_nulls_and_round_for_people():
    # a 200 ft x 218 ft lot is 43,600 sq ft: over the 43,560 sq ft trigger
    frame = _frame(
        parcel_id=["A", "B"], map_par_id=["1-1", None],
        area_sqft=[43_600.4, 1_000.6], area_acres=[43_600.4 / 43_560, 1_000.6 / 43_560],
        can_reach_trigger=pd.array([True, False], dtype="boolean"),
        nhesp_within_500ft=pd.array([True, None], dtype="boolean"),
        nhesp_distance_ft=[123.456, np.nan],
        in_sfha=pd.array([False, None], dtype="boolean"), sfha_fraction=[0.0, np.nan],
        sfha_area_sqft=[0.0, np.nan], huc12=["010700020204", None], huc10=["0107000202", None],
        huc12_name=["Ipswich", None],
        drains_to_orw=pd.array([None, False], dtype="boolean"),
        drains_to_impaired=pd.array([True, None], dtype="boolean"),
        impairment_causes=["Phosphorus (Total)", None],
        screening_class=["large parcel; habitat and impaired-water constraints; ORW not checked",
                         "small parcel; no constraint found; NHESP not checked"])
    legend = site.legend_entries(frame["screening_class"].tolist())
    a, b = site.card_records(frame, legend, addresses={"A": ["1 MAIN ST"]})
    assert a == {"id": "A", "ml": "1-1", "c": a["c"], "a": 43_600, "ac": 1.0, "t": 1, "h": 1,
                 "hd": 123, "f": 0, "fs": 0.0, "fa": 0, "h12": "010700020204",
                 "h12n": "Ipswich", "h10": "0107000202", "o": None, "im": 1,
                 "ca": "Phosphorus (Total)", "ad": ["1 MAIN ST"]}
    # nulls are kept as nulls (the card says "not checked"), never written as 0
    assert b["h"] is None and b["f"] is None and b["im"] is None and b["o"] == 0
    assert b["h12"] is None and "hd" not in b and "fs" not in b and "ad" not in b
    assert {e["n"] for e in legend} == {a["c"], b["c"]}


def test_card_records_read_the_renamed_nhesp_column():
    """Issue 23 renames nhesp_within_500ft to nhesp_within_distance: both are read."""
    common = dict(parcel_id=["A"], area_sqft=[10.0], area_acres=[0.0],
                  can_reach_trigger=[False], screening_class=["water"])
    old = _frame(**common, nhesp_within_500ft=pd.array([True], dtype="boolean"))
    new = _frame(**common, nhesp_within_distance=pd.array([True], dtype="boolean"))
    legend = site.legend_entries(["water"])
    assert site.card_records(old, legend)[0]["h"] == site.card_records(new, legend)[0]["h"] == 1
    assert site.nhesp_column(new) == "nhesp_within_distance"


def test_addresses_and_owners_by_parcel():
    assess = pd.DataFrame({"parcel_id": ["A", "A", "B", "C"],
                           "site_address": ["2  MAIN ST", "1 MAIN ST", "1 MAIN ST", None],
                           "owner": ["SMITH JO", "SMITH JO", "DOE AL", "ROE"],
                           "address": ["9 ELM", "9 ELM", "3 OAK", None]})
    assert site.addresses_by_parcel(assess) == {"A": ["1 MAIN ST", "2 MAIN ST"],
                                                "B": ["1 MAIN ST"]}
    assert site.owners_by_parcel(assess) == {"A": [{"owner": "SMITH JO", "address": "9 ELM"}],
                                             "B": [{"owner": "DOE AL", "address": "3 OAK"}],
                                             "C": [{"owner": "ROE"}]}


# --------------------------------------------------------------------------- geometry, data.js
@settings(max_examples=40, deadline=None)
@given(st.floats(1.0, 400.0), st.integers(8, 64), st.floats(0.05, 2.0))
def test_display_simplification_stays_within_its_tolerance(radius_m, segments, tol_m):
    """A shape as the page decodes it is never farther than the tolerance from the exact one
    (plus the quantisation: half a unit, 0.075 m on the projection, a coordinate)."""
    exact = shapely.Point(236_000, 900_000).buffer(radius_m, quad_segs=segments)
    text = encode.encode_shapes(np.array([exact]), crs=CRS, tolerance=tol_m)
    label, rings = encode.decode_shapes(text, 1)[0]
    # zoom-0 Web Mercator units back to degrees (the inverse of encode.mercator_units)
    lng = rings[0][:, 0] / 256 * 360 - 180
    lat = np.degrees(np.arctan(np.sinh(np.pi * (1 - 2 * rings[0][:, 1] / 256))))
    back = gpd.GeoSeries([shapely.Polygon(np.column_stack([lng, lat]))],
                         crs=4326).to_crs(CRS).iloc[0]
    # + 0.15 m: a quantised vertex moves by up to 0.053 m on the ground at 42 degrees north
    assert shapely.hausdorff_distance(back, exact) <= tol_m + 0.15
    assert back.is_valid and back.area > 0
    # the label point (where the class number is drawn) is inside the parcel
    lab = gpd.GeoSeries(gpd.points_from_xy(
        [label[0] / 256 * 360 - 180],
        [np.degrees(np.arctan(np.sinh(np.pi * (1 - 2 * label[1] / 256))))]),
        crs=4326).to_crs(CRS).iloc[0]
    assert exact.buffer(0.15).contains(lab)


def test_encoded_shapes_keep_holes_parts_lines_and_empties():
    """A 100 m x 50 m box is one ring of 4 vertices (the closing one dropped); a square with a
    hole and a second square are 3 rings; an empty geometry is none; a line keeps its ends."""
    shapes = np.array([shapely.box(236_000, 900_000, 236_100, 900_050), None,
                       shapely.MultiPolygon([
                           shapely.box(236_200, 900_000, 236_300, 900_100).difference(
                               shapely.box(236_220, 900_020, 236_240, 900_040)),
                           shapely.box(236_400, 900_000, 236_410, 900_010)]),
                       shapely.LineString([(236_000, 900_000), (236_500, 900_500)])],
                      dtype=object)
    decoded = encode.decode_shapes(encode.encode_shapes(shapes, crs=CRS, tolerance=0.1), 4)
    assert [[len(r) for r in rings] for _, rings in decoded] == [[4], [], [4, 4, 4], [2]]
    assert decoded[1][0] is None and all(lab is not None for lab, _ in decoded[::2])
    unlabelled = encode.decode_shapes(encode.encode_shapes(shapes, crs=CRS, tolerance=0.1,
                                                           labels=False), 4, labels=False)
    assert [[len(r) for r in rings] for _, rings in unlabelled] == [[4], [], [4, 4, 4], [2]]
    # the box's width in zoom-0 units: 100 m east at 42.35 degrees north (where 236,000 E,
    # 900,000 N of EPSG:26986 is) is 100 / cos(lat) m on the Mercator world's 40,075,016.7 m
    # circumference, which is 256 units
    ring = decoded[0][1][0]
    lat = np.radians(42.35)
    width = ring[:, 0].max() - ring[:, 0].min()
    assert width == pytest.approx(100 / np.cos(lat) / 40_075_016.7 * 256, rel=0.02)


@given(st.text())
def test_data_script_is_one_javascript_assignment_that_cannot_end_its_script(text):
    script = site.data_script({"t": text})
    assert script.startswith("window.SWM_DATA = ") and script.endswith(";\n")
    assert "</" not in script
    body = script[len("window.SWM_DATA = "):-2]
    assert json.loads(body) == {"t": text}


# --------------------------------------------------------------------------- config
def _config(publish: dict):
    return parse_config({"town": {"name": "T"}, "layers": {"parcels": {"path": "p.gpkg"}},
                         "publish": publish}, base_dir=REPO)


def test_publish_config_keys():
    assert _config({}).publish.include_owners is False
    cfg = _config({"include_owners": True, "simplify_ft": 3, "title": "Permit map"})
    assert (cfg.publish.include_owners, cfg.publish.simplify_ft, cfg.publish.title) == (
        True, 3.0, "Permit map")
    with pytest.raises(ConfigError, match='include_owner.*Did you mean "include_owners"'):
        _config({"include_owner": True})
    with pytest.raises(ConfigError, match="include_owners = 'yes' must be true or false"):
        _config({"include_owners": "yes"})
    with pytest.raises(ConfigError, match="simplify_ft = 500 must be a finite number from 0"):
        _config({"simplify_ft": 500})


# --------------------------------------------------------------------------- the job
@pytest.fixture
def sample_gpkg(sample_demo):
    """The sample town's applicability map, as the session's demo wrote it."""
    return sample_demo.applicability


def _owner_names():
    cfg = swm_gis.load_config(SAMPLE_CONFIG)
    assess = pyogrio.read_dataframe(cfg.layer("assess").path, layer="assess",
                                    read_geometry=False)
    return assess


def _site_data(web) -> dict:
    """The page's data (``data/data.js``: one ``window.SWM_DATA = {...};`` assignment)."""
    return json.loads((web.path / "data" / "data.js").read_text(encoding="utf-8")
                      [len("window.SWM_DATA = "):-2])


def _edited_sample(tmp_path, old: str, new: str):
    """A copy of the sample town whose town.toml has ``old`` replaced by ``new``."""
    town = tmp_path / "town"
    shutil.copytree(SAMPLE_CONFIG.parent, town)
    toml = town / "town.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    return toml


def test_no_owner_published_without_the_opt_in(sample_gpkg, tmp_path):
    web = swm_gis.publish(SAMPLE_CONFIG, tmp_path / "site", source=sample_gpkg)
    text = "\n".join(p.read_text(encoding="utf-8") for p in web.files.values()
                     if p.suffix in (".js", ".json", ".html"))
    assess = _owner_names()
    owners = set(assess["OWNER1"].dropna()) - {""}
    assert not [o for o in owners if f'"{o}"' in text]
    # mailing addresses that are not a site address of any parcel
    mail = set(assess["OWN_ADDR"].dropna()) - set(assess["SITE_ADDR"].dropna())
    assert mail and not [m for m in mail if f'"{m}"' in text]
    assert "Owner names and mailing addresses are not published" in (
        web.path / "assets" / "app.js").read_text(encoding="utf-8")
    data = _site_data(web)
    assert data["meta"]["owners_published"] is False
    assert "ow" not in data["cards"]


def test_owners_published_on_the_opt_in(sample_gpkg, tmp_path):
    toml = _edited_sample(tmp_path, "[layers.parcels]",
                          "[publish]\ninclude_owners = true\n\n[layers.parcels]")
    web = swm_gis.publish(toml, tmp_path / "site", source=sample_gpkg)
    data = _site_data(web)
    assess = _owner_names()
    row = assess.iloc[0]
    rec = {k: v[data["cards"]["id"].index(row["LOC_ID"])] for k, v in data["cards"].items()}
    assert {"owner": row["OWNER1"], "address": row["OWN_ADDR"]}.items() <= rec["ow"][0].items()
    assert data["meta"]["owners_published"] is True


def test_site_files_and_record(sample_gpkg, tmp_path):
    web = swm_gis.publish(SAMPLE_CONFIG, tmp_path / "site", source=sample_gpkg)
    assert set(web.files) == {"index.html", "publish.json", "data/data.js",
                              "applicability_map.pdf", *site.STATIC_FILES}
    assert web.parcels == 3167 and web.size_bytes == sum(
        p.stat().st_size for p in (tmp_path / "site").rglob("*") if p.is_file())
    record = json.loads((tmp_path / "site" / "publish.json").read_text(encoding="utf-8"))
    assert record["written_by"] == "swm-gis publish" and record["parcels"] == 3167
    assert record["applicability_source"] == "applicability.gpkg"
    assert record["simplify_ft"] == 1.5 and record["habitat_distance_ft"] == 500.0
    # the parcels with a site address to search: the assessing table's, on the map
    data = _site_data(web)
    assess = _owner_names()
    addressed = set(assess.loc[assess["SITE_ADDR"].str.strip() != "", "LOC_ID"])
    assert web.addressed == record["addressed"] == data["search"]["addressed"] == len(
        addressed & set(data["cards"]["id"])) > 0
    assert f"{web.addressed:,} of 3,167 parcels have a site address to search" in "\n".join(
        web.summary_lines)
    # the data a visitor reads about: file names, never the folders they sit in
    assert {s["key"] for s in record["sources"]} >= {"parcels", "assess", "flood_zones", "dem"}
    assert all("/" not in (s["name"] or "") for s in record["sources"])
    assert str(SAMPLE_CONFIG.parent) not in (tmp_path / "site" / "data" / "data.js").read_text(
        encoding="utf-8")
    html = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "Synthetic sample town" in html and "connect-src 'none'" in html
    assert 'href="applicability_map.pdf"' in html
    # the key: a dozen entries for the sample's 27 classes, said in the summary
    assert len(web.legend) == 27 and len(web.key) == 12 == len(record["key"])
    assert "3,167 parcels published in 27 classes (a map key of 12 entries)" in \
        web.summary_lines[0]
    # the printable map: one page, the same key, numbered and counted as the page's
    from pypdf import PdfReader

    pdf = PdfReader(tmp_path / "site" / "applicability_map.pdf")
    text = " ".join(pdf.pages[0].extract_text().split())
    assert len(pdf.pages) == 1 and "Map key" in text and "Sampleton" in text
    for e in web.key:
        assert " ".join(e["label"].split()[:3]) in text, e["label"]
    assert f"({web.key[-1]['parcels']:,})" in text  # large parcels, as the page counts them
    assert "http://" not in html and "https://" not in html  # no CDN, nothing remote
    licence = tmp_path / "site" / "assets" / "leaflet" / "LICENSE"
    assert "Volodymyr Agafonkin" in licence.read_text(encoding="utf-8")


# --------------------------------------------------------------------------- output safety
def test_cli_refuses_an_output_holding_an_input(tmp_path, capsys):
    town = tmp_path / "town"
    shutil.copytree(SAMPLE_CONFIG.parent, town)
    before = {p.name: p.read_bytes() for p in town.iterdir() if p.is_file()}
    assert main(["publish", "--config", str(town / "town.toml"), "--out", str(town),
                 "--overwrite"]) == 2
    assert "inputs are never written to" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in town.iterdir() if p.is_file()} == before


def test_cli_refuses_a_folder_of_other_files_without_overwrite(sample_gpkg, tmp_path, capsys):
    out = tmp_path / "www"
    out.mkdir()
    (out / "index.html").write_text("the town's own page", encoding="utf-8")
    args = ["publish", "--config", str(SAMPLE_CONFIG), "--from", str(sample_gpkg),
            "--out", str(out)]
    assert main(args) == 2
    assert "not a site written by swm-gis publish" in capsys.readouterr().err
    assert [p.name for p in out.iterdir()] == ["index.html"]
    assert main([*args, "--overwrite"]) == 0
    assert (out / "data" / "data.js").is_file() and (out / "publish.json").is_file()
    # a site of ours: written again only with --overwrite, files of the same name
    (out / "notes.txt").write_text("keep me", encoding="utf-8")
    assert main(args) == 2
    assert "Output already exists" in capsys.readouterr().err
    assert main([*args, "--overwrite"]) == 0
    assert (out / "notes.txt").read_text(encoding="utf-8") == "keep me"
    assert not [p for p in tmp_path.iterdir() if ".swm-gis" in p.name]


def test_from_must_be_an_applicability_map(tmp_path, capsys):
    other = tmp_path / "other.gpkg"
    gpd.GeoDataFrame({"a": [1]}, geometry=[shapely.box(0, 0, 1, 1)], crs=CRS).to_file(
        other, layer="parcels")
    with pytest.raises(InputFileError, match="has no 'applicability' layer .*parcels"):
        swm_gis.publish(SAMPLE_CONFIG, tmp_path / "site", source=other)
    assert main(["publish", "--config", str(SAMPLE_CONFIG), "--from", str(tmp_path / "no.gpkg"),
                 "--out", str(tmp_path / "site")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert not (tmp_path / "site").exists()


def test_api_refuses_to_write_over_its_inputs(sample_gpkg):
    with pytest.raises(OutputError, match="is inside the input|contains the input"):
        swm_gis.publish(SAMPLE_CONFIG, sample_gpkg.parent, source=sample_gpkg, overwrite=True)


def test_api_refuses_a_second_run_without_overwrite(sample_gpkg, tmp_path):
    swm_gis.publish(SAMPLE_CONFIG, tmp_path / "site", source=sample_gpkg)
    with pytest.raises(OutputExistsError, match="Output already exists"):
        swm_gis.publish(SAMPLE_CONFIG, tmp_path / "site", source=sample_gpkg)


@pytest.mark.parametrize("value", ["-3", "nan", "inf", "101", "ten"])
def test_cli_refuses_a_bad_tolerance_before_anything_is_written(value, tmp_path, capsys):
    assert main(["publish", "--config", str(SAMPLE_CONFIG), "--out", str(tmp_path / "site"),
                 "--simplify-ft", value]) == 2
    assert "--simplify-ft" in capsys.readouterr().err
    assert not (tmp_path / "site").exists()


def test_api_refuses_a_bad_tolerance(sample_gpkg, tmp_path):
    from swm_gis.errors import ArgumentError

    with pytest.raises(ArgumentError, match="simplify_ft -1 must be a finite number from 0 to "
                                            "100 ft"):
        swm_gis.publish(SAMPLE_CONFIG, tmp_path / "site", source=sample_gpkg, simplify_ft=-1)
    assert not (tmp_path / "site").exists()


def test_a_map_of_another_town_is_warned_about(sample_gpkg, tmp_path):
    toml = _edited_sample(tmp_path, 'name = "Sampleton (SYNTHETIC)"', 'name = "Othertown"')
    web = swm_gis.publish(toml, tmp_path / "site", source=sample_gpkg)
    assert web.warnings == ['the applicability map was computed for "Sampleton (SYNTHETIC)", '
                            'the config is for "Othertown": the page is titled for the '
                            "config's town and searches its assessing table"]
    assert f"Warning: {web.warnings[0]}" in web.summary_lines
    record = json.loads((web.path / "publish.json").read_text(encoding="utf-8"))
    assert record["warnings"] == web.warnings


def test_the_page_names_the_towns_own_regulation(sample_gpkg, tmp_path):
    """Issue 38: the page, its cards and the printed map name the regulation the town config
    applies. Lynnfield's profile (the sample town's): "Stormwater Management Rules and Regulations
    (Chapter 320)", its quotes captioned "Chapter 320". Westwood's (title "Stormwater Management
    Bylaw and Regulations", chapter "Chapter 350", no town-supplied text): named so, and no
    Chapter 320 quote is shown on its cards."""
    from pypdf import PdfReader

    lynnfield = swm_gis.publish(SAMPLE_CONFIG, tmp_path / "lynnfield", source=sample_gpkg)
    data = _site_data(lynnfield)
    assert data["meta"]["regulation"] == {
        "name": "Stormwater Management Rules and Regulations (Chapter 320)",
        "short": "Chapter 320"}
    assert data["meta"]["quotes"] == site.quotes()  # the bundled quotes file
    assert ('<span data-field="regulation">Stormwater Management Rules and Regulations '
            '(Chapter 320)</span>') in (lynnfield.path / "index.html").read_text(encoding="utf-8")

    toml = _edited_sample(tmp_path, 'regulation = "lynnfield-ch320"',
                          'regulation = "westwood-ch350"')
    westwood = swm_gis.publish(toml, tmp_path / "westwood", source=sample_gpkg)
    data = _site_data(westwood)
    assert data["meta"]["regulation"] == {
        "name": "Stormwater Management Bylaw and Regulations (Chapter 350)",
        "short": "Chapter 350"}
    assert data["meta"]["quotes"] == {}
    html = (westwood.path / "index.html").read_text(encoding="utf-8")
    assert "(Chapter 350)</span>" in html and "Chapter 320" not in html
    pdf = " ".join((page.extract_text() or "") for page in PdfReader(
        westwood.path / "applicability_map.pdf").pages)
    assert "Chapter 350" in " ".join(pdf.split()) and "Chapter 320" not in pdf

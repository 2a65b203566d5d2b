"""The public Python API (``swm_gis.__all__``): names, documented signatures, results.

The job level must give the files the CLI gives, byte for byte up to the generation time (the
one line that records when a file was made); PDFs are compared by their text.
"""

from __future__ import annotations

import csv
import inspect
import re
from pathlib import Path

import geopandas as gpd
import pandas as pd
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from support.sample_demo import DEMO_ABUTTERS_SUBJECT
from support.townkit import CRS, SAMPLE_CONFIG

import swm_gis
from swm_gis.cli import main
from swm_gis.cli.abutters import demo_parcel_id
from swm_gis.errors import ConfigError, CrsError, SwmGisError

#: The documented signatures: positional parameters, then keyword-only ones (README "Python API").
SIGNATURES = {
    "load_config": (["path"], []),
    "screen": (["config", "site"], [
        "common_plan", "development", "proposed_impervious", "proposed_impervious_sqft",
        "removed_impervious",  # issue 32: cover the applicant removes
        "mitigation", "exemptions", "roadway_maintenance", "parcels", "received", "proposed_use",
        "progress"]),
    "abutter_package": (["config"], [
        "parcels", "site", "distance", "include_subject", "wpa_pond_extension", "sender",
        "max_abutters", "notice", "sort", "progress"]),  # notice, sort: issue 34
    "applicability_map": (["config", "out"], [
        "engine", "chunk_size", "scheduler", "workers", "overwrite", "progress"]),
    "find_abutters": (["parcels", "subject"], ["distance_ft", "include_subject", "rules",
                                               "id_col"]),
    "floodplain_overlap": (["area", "zones"], ["rules"]),
    "habitats_within": (["site"], ["priority", "estimated", "vernal_pools", "distance_ft"]),
    "classify_parcels": (["parcels", "overlays"], ["rep_points"]),
}


def _pdf_text(path: Path) -> str:
    from pypdf import PdfReader

    return "\n".join(page.extract_text() or "" for page in PdfReader(path).pages)


def _masked(text: str) -> str:
    """The text with times of day blanked out (the generation time; the sources' modification
    times are the same files' on both sides)."""
    return re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\+00:00|Z)?", "<time>", text)


# --------------------------------------------------------------------------- names
def test_every_public_name_imports_and_is_documented():
    assert len(swm_gis.__all__) == len(set(swm_gis.__all__))
    for name in swm_gis.__all__:
        obj = getattr(swm_gis, name)
        if name == "__version__":
            assert re.fullmatch(r"\d+\.\d+\.\d+", obj)
            continue
        doc = inspect.getdoc(obj) or ""
        assert len(doc.split()) >= 5, f"{name} has no docstring"


def test_no_submodule_shadows_a_job_name():
    pkg = Path(swm_gis.__file__).parent
    modules = {p.stem for p in pkg.glob("*.py")} | {p.name for p in pkg.iterdir() if p.is_dir()}
    assert not modules & {"load_config", "screen", "abutter_package", "applicability_map"}


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_documented_signature(name):
    positional, keyword = SIGNATURES[name]
    params = inspect.signature(getattr(swm_gis, name)).parameters.values()
    got_pos = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    got_kw = [p.name for p in params if p.kind is p.KEYWORD_ONLY]
    assert (got_pos, got_kw) == (positional, keyword)
    doc = inspect.getdoc(getattr(swm_gis, name))
    assert "Parameters\n----------" in doc and "Returns\n-------" in doc or name in (
        "find_abutters", "floodplain_overlap", "habitats_within", "classify_parcels",
        "load_config")


def test_every_public_function_takes_options_by_keyword_only():
    """No public function has more than two positional parameters (the data it works on)."""
    for name in swm_gis.__all__:
        obj = getattr(swm_gis, name)
        if inspect.isfunction(obj):
            pos = [p for p in inspect.signature(obj).parameters.values()
                   if p.kind is p.POSITIONAL_OR_KEYWORD]
            assert len(pos) <= 2, (name, [p.name for p in pos])


def test_the_core_never_imports_the_cli():
    pkg = Path(swm_gis.__file__).parent
    for path in set(pkg.glob("*.py")) - {pkg / "__main__.py"}:
        text = path.read_text(encoding="utf-8")
        assert "swm_gis.cli" not in re.sub(r'""".*?"""', "", text, flags=re.S), path.name


def test_no_job_logic_in_the_cli():
    """The CLI modules read no layer and call no rule module: they parse, call a job, print."""
    cli = Path(swm_gis.__file__).parent / "cli"
    for path in cli.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        for banned in ("import layers", "swm_gis.io.layers", "swm_gis.rules.abutters",
                       "swm_gis.rules.owners",
                       "build_screening", "run_applicability("):
            assert banned not in text, (path.name, banned)


# --------------------------------------------------------------------------- frame level
def _frame(ids, boxes, crs=CRS, **cols):
    return gpd.GeoDataFrame({"id": ids, **cols}, geometry=[shapely.box(*b) for b in boxes],
                            crs=crs)


def test_find_abutters_on_hand_built_parcels():
    """30 m squares in a row: N touches the subject (0 ft), M is 30 m = 98.43 ft away (in),
    F is 70 m = 229.66 ft away (out); the subject itself is not listed."""
    subject = _frame(["S"], [(0, 0, 30, 30)])
    parcels = _frame(["S", "N", "M", "F"], [(0, 0, 30, 30), (30, 0, 60, 30), (60, 0, 90, 30),
                                            (100, 0, 130, 30)])
    out = swm_gis.find_abutters(parcels, subject, distance_ft=100)
    assert out["id"].tolist() == ["N", "M"]
    assert out["distance_ft"].tolist() == pytest.approx([0.0, 30 / 0.3048])
    assert out.crs == parcels.crs
    with pytest.raises(CrsError, match="geographic"):
        swm_gis.find_abutters(parcels.to_crs(4326), subject, distance_ft=100)
    with pytest.raises(CrsError):
        swm_gis.find_abutters(parcels.set_crs(None, allow_override=True), subject)


def test_floodplain_overlap_on_hand_built_zones():
    """A 100 m square with its western quarter in zone AE: 2,500 m2 = 26,909.8 sq ft, 25 %."""
    site = _frame(["site"], [(0, 0, 100, 100)])
    zones = _frame(["z1", "z2"], [(-50, -50, 25, 200), (25, -50, 200, 200)],
                   zone=["AE", "X"], sfha=[None, None], bfe=[12.0, None])
    got = swm_gis.floodplain_overlap(site, zones)
    assert got["in_sfha"] is True
    assert got["sfha_area_sqft"] == pytest.approx(26_909.8)
    assert got["site_fraction"] == 0.25
    assert [(z["zone"], z["bfe"]) for z in got["zones"]] == [("AE", 12.0)]
    with pytest.raises(CrsError, match="different CRS"):
        swm_gis.floodplain_overlap(site, zones.to_crs(4326))


def test_habitats_within_on_hand_built_features():
    """Priority habitat 100 m (328.1 ft) away is within 500 ft; one 200 m away is not."""
    site = _frame(["site"], [(0, 0, 100, 100)])
    pri = _frame(["PH1", "PH2"], [(200, 0, 210, 10), (300, 0, 310, 10)])
    got = swm_gis.habitats_within(site, priority=pri, distance_ft=500)
    assert got[["layer", "id", "distance_ft", "overlaps"]].to_dict("records") == [
        {"layer": "priority", "id": "PH1", "distance_ft": 328.1, "overlaps": False}]
    assert swm_gis.habitats_within(site, priority=pri, distance_ft=300).empty
    with pytest.raises(CrsError):
        swm_gis.habitats_within(site, priority=pri.to_crs(4326))


# --------------------------------------------------------------------------- job level
@pytest.fixture(scope="module")
def sample():
    return swm_gis.load_config(SAMPLE_CONFIG)


def test_load_config_returns_the_town(sample):
    assert isinstance(sample, swm_gis.TownConfig) and sample.synthetic is True


def test_abutter_package_writes_what_the_cli_writes(sample, tmp_path, sample_demo):
    pid = demo_parcel_id(SAMPLE_CONFIG)
    # the command's package: the session demo's abutters step (tests/support/sample_demo.py)
    cli = sample_demo.abutters
    assert pid == DEMO_ABUTTERS_SUBJECT
    package = swm_gis.abutter_package(sample, parcels=[pid], distance="100ft")
    assert isinstance(package, swm_gis.AbutterPackage)
    written = package.write(tmp_path / "api")
    assert sorted(p.name for p in written.values()) == sorted(p.name for p in cli.iterdir())
    for name in ("abutting_parcels.csv", "mailing_list.csv", "left_out.csv"):
        assert _masked((tmp_path / "api" / name).read_text("utf-8")) == _masked(
            (cli / name).read_text("utf-8")), name
    for name in ("labels.pdf", "certified_mail.pdf", "abutters_map.pdf"):
        assert _masked(_pdf_text(tmp_path / "api" / name)) == _masked(
            _pdf_text(cli / name)), name
    with open(cli / "abutting_parcels.csv", encoding="utf-8-sig", newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:rows.index([]) if [] in rows else len(rows)]
    ids = [r[header.index("parcel_id")] for r in body]
    assert package.listed["parcel_id"].astype(str).tolist() == ids
    html = package._repr_html_()
    assert html.startswith("<div>") and pid in html and "<table" in html


def test_abutter_package_by_site_frame_equals_by_site_file(sample, tmp_path):
    """A GeoDataFrame site (any projected or geographic CRS) gives the same subject as its file."""
    sites = SAMPLE_CONFIG.parent / "sites.gpkg"
    by_file = swm_gis.abutter_package(sample, site=f"{sites}:site_small")
    frame = gpd.read_file(sites, layer="site_small").to_crs(4326)
    by_frame = swm_gis.abutter_package(sample, site=frame)
    assert by_frame.info.subject_ids == by_file.info.subject_ids
    assert by_frame.listed["parcel_id"].tolist() == by_file.listed["parcel_id"].tolist()
    with pytest.raises(SwmGisError, match="not both"):
        swm_gis.abutter_package(sample, parcels=["X"], site=frame)
    with pytest.raises(SwmGisError, match="not both and not neither"):
        swm_gis.abutter_package(sample)
    with pytest.raises(CrsError):
        swm_gis.abutter_package(sample, site=frame.set_crs(None, allow_override=True))


def test_screen_writes_what_the_cli_writes(sample, tmp_path):
    site = f"{SAMPLE_CONFIG.parent / 'sites.gpkg'}:site"
    assert main(["--progress", "none", "screen", "-c", str(SAMPLE_CONFIG), "-s", site,
                 "-o", str(tmp_path / "cli"), "--received", "2026-03-02"]) == 0
    result = swm_gis.screen(sample, site, received="2026-03-02")
    assert isinstance(result, swm_gis.Screening)
    written = result.write(tmp_path / "api")
    assert sorted(p.name for p in written.values()) == sorted(
        p.name for p in (tmp_path / "cli").iterdir())
    assert _masked((tmp_path / "api" / "screening.json").read_text("utf-8")) == _masked(
        (tmp_path / "cli" / "screening.json").read_text("utf-8"))
    assert _masked(_pdf_text(tmp_path / "api" / "screening_report.pdf")) == _masked(
        _pdf_text(tmp_path / "cli" / "screening_report.pdf"))
    assert result.permit_required is True
    assert result.summary[1].startswith("Stormwater management permit: YES - Required.")
    assert result.findings[0]["key"] == "disturbance" and result.findings[0]["status"] == "yes"
    assert "Stormwater management permit: YES" in result._repr_html_()


def test_screen_takes_a_geodataframe_site(sample):
    sites = SAMPLE_CONFIG.parent / "sites.gpkg"
    by_file = swm_gis.screen(sample, f"{sites}:site")
    by_frame = swm_gis.screen(sample, gpd.read_file(sites, layer="site").to_crs(4326))
    assert by_frame.document["disturbance"]["area_sqft"] == pytest.approx(
        by_file.document["disturbance"]["area_sqft"], abs=0.1)
    assert by_frame.document["meta"]["parameters"]["site"] == "(GeoDataFrame)"
    with pytest.raises(SwmGisError, match="not both"):
        swm_gis.screen(sample, f"{sites}:site", proposed_impervious=f"{sites}:site",
                       proposed_impervious_sqft=10.0)
    with pytest.raises(SwmGisError, match="YYYY-MM-DD"):
        swm_gis.screen(sample, f"{sites}:site", received="14 March")


def test_applicability_map_in_memory_equals_the_cli_geopackage(sample, tmp_path, sample_demo):
    from swm_gis.applicability.run import read_result

    # the command's map: the session demo's applicability step (tests/support/sample_demo.py)
    cli = read_result(sample_demo.applicability)
    mem = swm_gis.applicability_map(sample)
    assert isinstance(mem, swm_gis.ApplicabilityMap) and mem.path is None
    for col in ("parcel_id", "screening_class", "area_sqft", "huc12", "in_sfha"):
        assert mem.frame[col].tolist() == cli[col].tolist(), col
    written = mem.write(tmp_path / "api.gpkg")
    again = read_result(written)
    pd.testing.assert_frame_equal(again.drop(columns="geometry"), cli.drop(columns="geometry"))
    assert "<table" in mem._repr_html_()
    streamed = swm_gis.applicability_map(sample, tmp_path / "streamed.gpkg")
    assert streamed.path == tmp_path / "streamed.gpkg" and streamed.parcels == len(cli)
    assert len(streamed.frame) == len(cli)


def test_applicability_map_refuses_bad_options(sample, tmp_path):
    with pytest.raises(ConfigError, match=".gpkg"):
        swm_gis.applicability_map(sample, tmp_path / "out.shp")
    with pytest.raises(ConfigError, match="engine"):
        swm_gis.applicability_map(sample, engine="spark")
    with pytest.raises(ConfigError, match="out=PATH.gpkg"):
        swm_gis.applicability_map(sample, engine="dask")


def test_job_inputs_refuse_hostile_frames_and_leave_them_unchanged(sample):
    from swm_gis.errors import EmptyLayerError, GeometryError, InputFileError
    from swm_gis.io.inputs import as_frame

    site = _frame(["a"], [(236_000, 917_000, 236_050, 917_050)])
    before = site.copy()
    got = as_frame(site, working_crs=sample.crs, what="--site")
    pd.testing.assert_frame_equal(site, before)
    assert got is not site and got.crs == sample.crs
    points = gpd.GeoDataFrame(geometry=[shapely.Point(0, 0)], crs=CRS)
    with pytest.raises(GeometryError, match="Point geometry; polygon"):
        as_frame(points, working_crs=sample.crs, what="--site")
    with pytest.raises(EmptyLayerError):
        as_frame(site.iloc[:0], working_crs=sample.crs, what="--site")
    with pytest.raises(InputFileError, match="file path or a GeoDataFrame"):
        as_frame(42, working_crs=sample.crs, what="--site")
    with pytest.raises(SwmGisError):
        swm_gis.screen(sample, points)


@settings(max_examples=30, deadline=None)
@given(gaps=st.lists(st.floats(0, 80), min_size=1, max_size=6),
       d1=st.floats(1, 300), d2=st.floats(1, 300))
def test_find_abutters_grows_with_the_distance(gaps, d1, d2):
    """Parcels in a row at the given gaps (m): a longer distance never drops an abutter, and
    each listed distance is the gap in feet."""
    x, boxes = 30.0, []
    for gap in gaps:
        boxes.append((x + gap, 0, x + gap + 10, 30))
        x += gap + 10
    parcels = _frame([f"P{i}" for i in range(len(boxes))], boxes)
    subject = _frame(["S"], [(0, 0, 30, 30)])
    near, far = sorted((d1, d2))
    a = swm_gis.find_abutters(parcels, subject, distance_ft=near)
    b = swm_gis.find_abutters(parcels, subject, distance_ft=far)
    assert set(a["id"]) <= set(b["id"])
    expected = {f"P{i}" for i, (x0, *_) in enumerate(boxes) if (x0 - 30) / 0.3048 <= far + 1e-6}
    assert set(b["id"]) == expected

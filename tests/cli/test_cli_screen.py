"""``swm-gis screen``: outputs, exit codes and messages for bad inputs."""

from __future__ import annotations

import json
import sys
import types

import geopandas as gpd
import jsonschema
import pyogrio
import pytest
from shapely.geometry import LineString, Point, box
from support.screenkit import BARE_SITE, SCHEMA, SITE, X0, Y0, build_town, gdf

from swm_gis.cli import main


def write(frame: gpd.GeoDataFrame, path, layer: str | None = None, driver: str = "GPKG"):
    pyogrio.write_dataframe(frame, path, layer=layer, driver=driver)
    return f"{path}:{layer}" if layer else str(path)


@pytest.fixture
def hucs_town(tmp_path):
    """screenkit's small town (its town.toml): one parcel, two HUC12s of one HUC10, impervious."""
    return build_town(tmp_path)


@pytest.fixture(autouse=True)
def fake_report(monkeypatch, request):
    """Stand-in report writer (its own tests are tests/reports/test_screening_report.py); records
    calls.

    Tests whose name ends in ``with_the_real_report`` run the real one.
    """
    calls = []
    if request.function.__name__.endswith("with_the_real_report"):
        return calls

    def write_screening_report(document, layers, out_dir, *, received=None):
        calls.append({"document": document, "layers": layers, "out_dir": out_dir,
                      "received": received})
        paths = {"html": out_dir / "screening_report.html", "pdf": out_dir / "screening_report.pdf"}
        for path in paths.values():
            path.write_text("report", encoding="utf-8")
        return paths

    module = types.ModuleType("swm_gis.reports.screening_report")
    module.write_screening_report = write_screening_report
    monkeypatch.setitem(sys.modules, "swm_gis.reports.screening_report", module)
    return calls


def run(*args: str) -> int:
    return main(["--progress", "none", "screen", *map(str, args)])


def test_screen_writes_json_gpkg_and_report_with_the_findings(tmp_path, hucs_town, capsys,
                                                             fake_report):
    sites = tmp_path / "sites.gpkg"
    site = write(SITE, sites, "site")
    mitigation = write(gdf({"id": ["M-east"]}, [box(X0 + 1400, Y0 + 400, X0 + 1500, Y0 + 500)]),
                       sites, "mitigation")
    out = tmp_path / "out"
    code = run("--config", hucs_town, "--site", site, "--mitigation", mitigation,
               "--proposed-impervious-sqft", "20000", "--out", out, "--received", "2026-03-02")
    captured = capsys.readouterr()
    assert code == 0, captured.err
    doc = json.loads((out / "screening.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(SCHEMA).validate(doc)
    assert doc["disturbance"]["area_sqft"] == pytest.approx(43_600.0, abs=0.01)
    assert doc["disturbance"]["permit_required"] is True
    assert doc["development_type"]["value"] == "redevelopment"
    assert doc["standards"]["required_retention_cuft"] == 1_333.3
    assert doc["mitigation"][0]["eligible"] is True
    assert doc["meta"]["parameters"]["received"] == "2026-03-02"
    assert doc["meta"]["parameters"]["site"] == site
    layers = {row[0] for row in pyogrio.list_layers(out / "screening.gpkg")}
    assert {"site", "mitigation", "watersheds"} <= layers
    flat = "".join(captured.out.split())  # rich wraps long lines
    assert "Stormwater management permit: YES - Required. The site disturbs 43,600 sq ft" \
        .replace(" ", "") in flat
    assert doc["findings"][0]["status"] == "yes"
    # the report writer gets the same document, the layers, the folder and the received date
    (call,) = fake_report
    assert call["document"] == doc
    # written into the staging folder beside --out, then moved into place with the rest
    assert call["out_dir"].parent == out.parent
    assert call["out_dir"].name.startswith(".out.swm-gis-stage-")
    assert "site" in call["layers"] and call["received"].isoformat() == "2026-03-02"
    assert (out / "screening_report.pdf").exists() and (out / "screening_report.html").exists()
    assert str(out / "screening_report.pdf") in "".join(captured.out.split())  # rich wraps
    assert ("New development or redevelopment: INFO - Redevelopment (measured: impervious "
            "raster").replace(" ", "") in flat


def test_existing_outputs_need_overwrite(tmp_path, hucs_town, capsys):
    site = write(BARE_SITE, tmp_path / "site.gpkg", "site")
    out = tmp_path / "out"
    assert run("--config", hucs_town, "--site", site, "--out", out) == 0
    assert run("--config", hucs_town, "--site", site, "--out", out) == 2
    assert "Output already exists" in capsys.readouterr().err
    assert run("--config", hucs_town, "--site", site, "--out", out, "--overwrite") == 0


def test_site_in_geographic_geojson_is_reprojected_correctly(tmp_path, hucs_town, capsys):
    path = tmp_path / "site.geojson"
    SITE.to_crs("EPSG:4326").to_file(path, driver="GeoJSON")
    out = tmp_path / "out"
    assert run("--config", hucs_town, "--site", path, "--out", out) == 0, capsys.readouterr().err
    doc = json.loads((out / "screening.json").read_text(encoding="utf-8"))
    assert doc["disturbance"]["area_sqft"] == pytest.approx(43_600.0, abs=0.05)
    assert doc["watersheds"]["huc12"][0]["share"] == 1.0


def test_flags_reach_the_document(tmp_path, hucs_town):
    site = write(SITE, tmp_path / "site.gpkg", "site")
    out = tmp_path / "out"
    assert run("--config", hucs_town, "--site", site, "--out", out, "--development", "new",
               "--exemption", "utilities", "--exemption", "fencing,utilities",
               "--roadway-maintenance") == 0
    doc = json.loads((out / "screening.json").read_text(encoding="utf-8"))
    assert [e["name"] for e in doc["disturbance"]["exemption"]] == ["utilities", "fencing"]
    # a claimed exemption is the applicant's claim: conditional, never "not required"
    assert doc["disturbance"]["permit_required"] is None
    permit = doc["findings"][0]
    assert permit["status"] == "conditional"
    assert "This is the applicant's claim; the Conservation Commission decides" in permit["answer"]
    assert doc["development_type"]["method"] == "override: stated as new development"
    assert doc["standards"]["roadway_maintenance"] is True


def test_json_progress_ends_with_a_result_line(tmp_path, hucs_town, capsys):
    site = write(BARE_SITE, tmp_path / "site.gpkg", "site")
    code = main(["--progress", "json", "screen", "--config", str(hucs_town), "--site", site,
                 "--out", str(tmp_path / "out")])
    assert code == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["type"] == "result" and result["command"] == "screen"
    assert result["permit_required"] is True and result["development_type"] == "new"
    assert result["findings"]["disturbance"] == "yes"
    assert result["outputs"]["screening_json"].endswith("screening.json")


@pytest.mark.parametrize(
    ("make_site", "message"),
    [
        (lambda p: write(gdf(geoms=[]).set_geometry(gpd.GeoSeries([], crs="EPSG:26986")),
                         p, "site"), "has no features with geometry"),
        (lambda p: write(gdf(geoms=[Point(X0 + 10, Y0 + 10)]), p, "site"),
         "holds Point geometry; polygon features are needed"),
        (lambda p: write(gdf(geoms=[LineString([(X0, Y0), (X0 + 9, Y0)])]), p, "site"),
         "holds LineString geometry"),
        (lambda p: write(gdf(geoms=[box(X0 - 9000, Y0, X0 - 8000, Y0 + 100)]), p, "site"),
         "The site does not touch Testtown"),
    ],
    ids=["no-polygons", "point", "line", "outside-town"],
)
def test_bad_sites_exit_2_with_a_specific_message(tmp_path, hucs_town, capsys, make_site, message):
    site = make_site(tmp_path / "bad.gpkg")
    code = run("--config", hucs_town, "--site", site, "--out", tmp_path / "out")
    err = capsys.readouterr().err
    assert code == 2
    assert message in " ".join(err.split()), err
    assert "Traceback" not in err
    assert not (tmp_path / "out" / "screening.json").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--exemption", "golf-course"], 'Unknown exemption "golf-course". Valid --exemption '
         "names (Bylaw 213-16B) are: npdes-waived, agriculture, landscaping, fencing, "
         "utilities, wetlands-order."),
        (["--received", "March 2"], "write it as YYYY-MM-DD"),
        (["--proposed-impervious-sqft", "10", "--proposed-impervious", "x.gpkg"], "not both"),
    ],
    ids=["unknown-exemption", "bad-date", "impervious-twice"],
)
def test_bad_options_exit_2(tmp_path, hucs_town, capsys, args, message):
    site = write(SITE, tmp_path / "site.gpkg", "site")
    code = run("--config", hucs_town, "--site", site, "--out", tmp_path / "out", *args)
    err = " ".join(capsys.readouterr().err.split())
    assert code == 2
    assert " ".join(message.split()) in err


def test_missing_site_file_exits_2_naming_it(tmp_path, hucs_town, capsys):
    code = run("--config", hucs_town, "--site", tmp_path / "nope.gpkg", "--out", tmp_path / "out")
    assert code == 2
    assert "nope.gpkg" in capsys.readouterr().err


def test_help_ends_with_an_example(capsys):
    assert main(["screen", "--help"]) == 0
    out = capsys.readouterr().out
    assert "Example: swm-gis screen" in out and "--exemption" in out



def test_screen_writes_html_and_pdf_with_the_real_report(tmp_path, hucs_town, capsys):
    site = write(SITE, tmp_path / "site.gpkg", "site")
    out = tmp_path / "out"
    code = run("--config", hucs_town, "--site", site, "--proposed-impervious-sqft", "20000",
               "--out", out, "--received", "2026-03-02")
    assert code == 0, capsys.readouterr().err
    html = (out / "screening_report.html").read_text(encoding="utf-8")
    assert "43,600" in html
    assert (out / "screening_report.pdf").read_bytes().startswith(b"%PDF")


def test_demo_screens_the_sample_town_sites(sample_demo):
    """The sample town's README figures: site redevelopment with 28,309 sq ft proposed
    impervious and 52,382 sq ft of existing cover on its lot that stays; site_small new
    development needing a permit through its 2-acre common plan.
    (The demo is the session's: tests/support/sample_demo.py.)"""
    site, small = sample_demo.screening("site"), sample_demo.screening("site_small")
    for doc in (site, small):
        jsonschema.Draft202012Validator(SCHEMA).validate(doc)
        assert doc["meta"]["synthetic"] is True
    assert site["disturbance"]["area_acres"] == pytest.approx(1.33, abs=0.005)
    assert site["development_type"]["value"] == "redevelopment"
    # the total post-construction impervious area on the site (issue 32): 28,309 sq ft proposed
    # + 52,382 sq ft existing on its lot outside the limit of disturbance that stays = 80,691
    assert site["standards"]["proposed_impervious_sqft"] == pytest.approx(28_309, abs=1)
    assert site["standards"]["existing_impervious_staying_sqft"] == pytest.approx(52_382, abs=1)
    assert site["standards"]["post_impervious_sqft"] == pytest.approx(80_691, abs=1)
    assert site["standards"]["required_retention_cuft"] == pytest.approx(0.8 / 12 * 80_691,
                                                                         abs=0.1)
    assert [r["huc"] for r in site["watersheds"]["huc12"]] == ["010900010601"]
    assert [(m["id"], m["eligible"]) for m in site["mitigation"]] == [
        ("MIT-1", True), ("MIT-2", True), ("MIT-3", False)]
    assert small["disturbance"]["area_acres"] == pytest.approx(0.40, abs=0.005)
    assert small["disturbance"]["common_plan_area_acres"] == pytest.approx(2.00, abs=0.005)
    assert small["disturbance"]["permit_required"] is True
    assert small["development_type"]["value"] == "new"
    assert small["standards"]["post_impervious_sqft"] == pytest.approx(1_507, abs=1)
    assert [r["huc"] for r in small["watersheds"]["huc12"]] == ["010900010602"]
    assert any(line.strip() == "site:" for line in sample_demo.summary.splitlines())
    assert all((sample_demo.screen / name / "screening_report.pdf").is_file()
               for name in ("site", "site_small"))


def _summary_doc(coverage):
    return {
        "meta": {"town": "T"},
        "disturbance": {"area_sqft": 43_600.0, "area_acres": 1.001, "permit_required": True,
                        "disturbs_trigger_area": True, "common_plan_area_sqft": None,
                        "exemption": None},
        "development_type": {"value": "new", "method": "override: stated as new development",
                             "existing_impervious_sqft": None},
        "standards": {"retention_depth_in": 1.0, "required_retention_cuft": 1_666.7,
                      "post_impervious_sqft": 20_000.0, "tss_removal": 0.9, "tp_removal": 0.6,
                      "mitigation_huc_level": "HUC12"},
        "habitats": [{"layer": "priority", "id": "PH 1", "distance_ft": 492.1,
                      "overlaps": False}],
        "floodplain": {"in_sfha": True, "sfha_area_sqft": 10_900.0, "site_fraction": 0.25,
                       "zones": [{"zone": "AE", "bfe": 12.0}], "shaded_x_area_sqft": 0.0},
        "receiving_waters": {"orw": [], "impaired": [
            {"au_id": "MA93-51", "name": "Mill Pond", "category": "5", "flow_distance_ft": 57.7}],
            "requirements": [{"section": "320-19 B(10)(c)", "text": "optimise for phosphorus"}],
            "trace_end": []},
        "checks": [], "coverage": coverage,
    }


def test_summary_lines_state_each_finding_with_its_status():
    """The printed summary names what the resource checks found, with distances and areas."""
    from support.screenkit import FULL_COVERAGE

    from swm_gis.summaries import screening_lines as summary_lines

    doc = _summary_doc(FULL_COVERAGE)
    text = "\n".join(summary_lines(doc))
    assert ("NHESP habitats and certified vernal pools within 500 ft: YES - 1 feature(s): "
            "Priority Habitat PH 1 at 492 ft.") in text
    # issue 35: without the site's parcels the figures are the limit of disturbance's, and the
    # summary says so
    assert ("100-year floodplain (FEMA SFHA): YES - 10,900 sq ft of the limit of disturbance "
            "(25.0%) in the SFHA: zone AE, BFE 12 ft.") in text
    assert "Mill Pond (MA93-51, category 5: causes not listed) at 58 ft" in text
    assert "requires (§ 320-19 B(10)(c)): optimise for phosphorus" in text
    doc["habitats"] = []
    assert ("NHESP habitats and certified vernal pools within 500 ft: NO - None: no Priority "
            "or Estimated Habitat") in "\n".join(summary_lines(doc))


def test_summary_never_says_none_for_a_check_without_its_layers():
    from swm_gis.summaries import screening_lines as summary_lines

    doc = _summary_doc({})  # no coverage record: no layer was read
    doc["habitats"], doc["receiving_waters"]["impaired"] = [], []
    doc["receiving_waters"]["requirements"] = []
    text = "\n".join(summary_lines(doc))
    assert "NHESP habitats and certified vernal pools within 500 ft: NOT CHECKED" in text
    assert "Receiving waters (ORW, impaired waters): NOT CHECKED" in text
    assert "none" not in text.lower().replace("none found", "")


def test_subject_parcels_get_their_own_floodplain_figures(tmp_path, fake_report, capsys):
    """--parcel adds each subject parcel's SFHA overlap; the two parcels under the sample site
    are both partly in the AE zone (BFE 61 ft), and an unknown id is exit 2 naming it."""
    from support.townkit import SAMPLE_CONFIG

    sites = SAMPLE_CONFIG.parent / "sites.gpkg"
    args = ["--progress", "none", "screen", "-c", str(SAMPLE_CONFIG), "-s", f"{sites}:site",
            "--parcel", "M_237990_918549", "--parcel", "M_237877_918550"]
    assert main([*args, "-o", str(tmp_path / "a")]) == 0
    doc = json.loads((tmp_path / "a" / "screening.json").read_text("utf-8"))
    subject = doc["floodplain"]["subject_parcels"]
    parcels = {p["id"]: p for p in subject["parcels"]}
    assert set(parcels) == {"M_237990_918549", "M_237877_918550"}
    for p in parcels.values():
        assert p["in_sfha"] and 0 < p["sfha_fraction"] < 1 and p["bfe_ft"] == 61.0
        assert p["sfha_area_sqft"] == pytest.approx(p["sfha_fraction"] * p["area_sqft"],
                                                    rel=1e-3)
    assert subject["sfha_area_sqft"] == pytest.approx(
        sum(p["sfha_area_sqft"] for p in parcels.values()), abs=0.2)
    assert doc["meta"]["parameters"]["parcels"] == ["M_237990_918549", "M_237877_918550"]
    jsonschema.Draft202012Validator(SCHEMA).validate(doc)
    capsys.readouterr()
    assert main([*args[:7], "--parcel", "NOPE", "-o", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err
    assert 'Parcel id(s) NOPE not found in field "LOC_ID"' in err and "Traceback" not in err


def test_a_parcel_the_site_does_not_touch_is_refused_naming_it_and_the_site_parcels(
        tmp_path, capsys):
    """Issue 32 item 7: the sample site (58,125 sq ft) lies on three parcels; M_236540_919509
    lies some 1,400 m to the north-west: refused, exit 2, naming it and the parcels the site
    lies on with the sq ft of the site on each (42,745 + 11,733 + 3,647 = 58,125 sq ft)."""
    from support.townkit import SAMPLE_CONFIG

    sites = SAMPLE_CONFIG.parent / "sites.gpkg"
    out = tmp_path / "out"
    code = main(["--progress", "none", "screen", "-c", str(SAMPLE_CONFIG), "-s",
                 f"{sites}:site", "--parcel", "M_237990_918549", "--parcel", "M_236540_919509",
                 "-o", str(out)])
    err = " ".join(capsys.readouterr().err.split())
    assert code == 2 and "Traceback" not in err
    assert ("does not touch parcel(s) M_236540_919509 given as --parcel ID; the site lies on "
            "parcel(s) M_237990_918549 (42,745 sq ft), M_238113_918446 (11,733 sq ft), "
            "M_237877_918550 (3,647 sq ft).") in err
    assert not out.exists()


def test_proposed_use_reaches_the_document_and_a_bad_one_exits_2(tmp_path, hucs_town, capsys):
    site = write(SITE, tmp_path / "site.gpkg", "site")
    out = tmp_path / "out"
    assert run("--config", hucs_town, "--site", site, "--out", out, "--proposed-use", "325") == 0
    doc = json.loads((out / "screening.json").read_text(encoding="utf-8"))
    assert doc["meta"]["parameters"]["proposed_use"] == "325"
    bad = tmp_path / "bad"
    assert run("--config", hucs_town, "--site", site, "--out", bad, "--proposed-use", "bakery") == 2
    assert 'Unknown --proposed-use "bakery"' in capsys.readouterr().err
    assert not bad.exists()


def test_no_report_writes_only_the_json_and_the_geopackage(tmp_path, hucs_town, capsys,
                                                            fake_report):
    """--no-report (the QGIS single checks): no report writer call, no report files."""
    site = write(SITE, tmp_path / "sites.gpkg", "site")
    out = tmp_path / "out"
    code = run("--config", hucs_town, "--site", site, "--out", out, "--no-report")
    assert code == 0, capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == ["screening.gpkg", "screening.json"]
    assert fake_report == []


def test_removed_impervious_is_read_and_left_out_of_the_total(tmp_path, hucs_town):
    """--removed-impervious FILE: a 60 m x 60 m limit whose west edge (x 510) halves the town's
    20 m x 20 m impervious patch; the patch's west half (200 m2 = 2,152.78 sq ft), on the lot
    outside the limit, is removed: the total is the 10,000 sq ft proposed alone, and
    redevelopment retains 0.8 in / 12 x 10,000 = 666.7 cu ft (810.2 with the half staying)."""
    site = write(gdf(geoms=[box(X0 + 510, Y0 + 480, X0 + 570, Y0 + 540)]),
                 tmp_path / "site.gpkg", "site")
    removed = write(gdf(geoms=[box(X0 + 500, Y0 + 500, X0 + 510, Y0 + 520)]),
                    tmp_path / "removed.gpkg", "removed")
    out = tmp_path / "out"
    assert run("--config", hucs_town, "--site", site, "--proposed-impervious-sqft", "10000",
               "--removed-impervious", removed, "--out", out) == 0
    doc = json.loads((out / "screening.json").read_text(encoding="utf-8"))
    st = doc["standards"]
    assert st["existing_impervious_removed_sqft"] == pytest.approx(2_152.78, abs=0.01)
    assert st["existing_impervious_staying_sqft"] == 0.0
    assert st["required_retention_cuft"] == 666.7
    assert doc["meta"]["parameters"]["removed_impervious"].endswith("removed.gpkg:removed")
    assert [i["key"] for i in doc["meta"]["inputs"]] == ["site", "removed_impervious"]

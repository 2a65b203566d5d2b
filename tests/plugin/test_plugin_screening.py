"""The screening algorithms on the sample town give the same findings as ``swm-gis screen``.

One command-line run on the whole sample town (``data/sample/town.toml``) is the reference; each
single-check algorithm runs ``swm-gis screen`` through the plugin with only the QGIS layers its
check needs, and must report exactly that part of the reference screening.json.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from support.plugin_kit import ENGINE, SAMPLE, engine_env

pytestmark = [pytest.mark.qgis, pytest.mark.slow]

GPKG = SAMPLE / "sample.gpkg"
SITES = SAMPLE / "sites.gpkg"


def layer(name: str) -> str:
    return f"{GPKG}|layername={name}"


def site(name: str) -> str:
    return f"{SITES}|layername={name}"


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """``swm-gis screen`` on the sample town's demo site, with the mitigation sites."""
    out = tmp_path_factory.mktemp("cli_screen")
    proc = subprocess.run(
        [ENGINE, "--progress", "none", "screen", "--config", str(SAMPLE / "town.toml"),
         "--site", f"{SITES}:site", "--mitigation", f"{SITES}:mitigation",
         "--proposed-impervious-sqft", "28309", "--out", str(out)],
        capture_output=True, text=True, env=engine_env())
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads((out / "screening.json").read_text(encoding="utf-8"))


def _run(alg: str, params: dict, tmp_path) -> dict:
    import processing

    result = processing.run(f"swm_gis:{alg}", {"SITE": site("site"), "PARCELS": layer("parcels"),
                                                "OUTPUT_FOLDER": str(tmp_path / alg),
                                                "OUTPUT": "memory:", **params})
    result["json"] = json.loads(Path(result["JSON"]).read_text(encoding="utf-8"))
    return result


def test_disturbance_trigger(plugin, reference, tmp_path):
    # the sample town's config states that all its land drains to its MS4: the box says it
    r = _run("disturbancetrigger", {"ALL_LAND_DRAINS_TO_MS4": True}, tmp_path)
    assert r["json"]["disturbance"] == reference["disturbance"]
    assert r["AREA_SQFT"] == reference["disturbance"]["area_sqft"]
    assert r["AREA_ACRES"] == pytest.approx(1.334, abs=0.001)  # README: 1.33 acres
    assert r["PERMIT_REQUIRED"] is True and r["PERMIT_STATUS"] == "yes"
    assert [f["permit_required"] for f in r["OUTPUT"].getFeatures()] == [True]


def test_disturbance_trigger_common_plan_and_exemption(plugin, tmp_path):
    from swm_gis_qgis import catalog

    # the dialog offers the default regulation profile's exemptions, in its order
    landscaping = catalog.values("exemptions").index("landscaping")
    r = _run("disturbancetrigger", {"SITE": site("site_small"),
                                    "COMMON_PLAN": site("common_plan"),
                                    "EXEMPTIONS": [landscaping]}, tmp_path)
    d = r["json"]["disturbance"]
    assert d["area_sqft"] < 43560 <= d["common_plan_area_sqft"]
    assert r["COMMON_PLAN_AREA_SQFT"] == d["common_plan_area_sqft"]
    assert "landscaping" in json.dumps(d["exemption"])
    # the exemption is the applicant's claim: the permit is conditional, neither true nor false
    assert d["permit_required"] is None
    assert r["PERMIT_STATUS"] == r["DISTURBANCE_STATUS"] == "conditional"
    assert r["PERMIT_REQUIRED"] is None


def test_habitat_screening(plugin, reference, tmp_path):
    r = _run("habitatscreening", {"PRIORITY_HABITATS": layer("nhesp_priority"),
                                  "ESTIMATED_HABITATS": layer("nhesp_estimated"),
                                  "VERNAL_POOLS": layer("vernal_pools"),
                                  "VERNAL_POOLS_OUTPUT": "memory:"}, tmp_path)
    assert r["json"]["habitats"] == reference["habitats"]
    by_id = {h["id"]: h["distance_ft"] for h in r["json"]["habitats"]}
    assert by_id["PH 1234"] == pytest.approx(118, abs=1)  # README: 118 ft
    polygons = {f["id"]: f["distance_ft"] for f in r["OUTPUT"].getFeatures()}
    points = {f["id"]: f["distance_ft"] for f in r["VERNAL_POOLS_OUTPUT"].getFeatures()}
    assert polygons == {h["id"]: h["distance_ft"] for h in reference["habitats"]
                        if h["layer"] != "vernal_pool"}
    assert points == {str(h["id"]): h["distance_ft"] for h in reference["habitats"]
                      if h["layer"] == "vernal_pool"}
    assert r["FEATURE_COUNT"] == len(reference["habitats"])
    assert r["HABITATS_STATUS"] == "yes" and r["HABITATS_FOUND"] is True


def test_floodplain_overlap(plugin, reference, tmp_path):
    r = _run("floodplainoverlap", {"FLOOD_ZONES": layer("flood_zones")}, tmp_path)
    assert r["json"]["floodplain"] == reference["floodplain"]
    assert r["IN_SFHA"] is True and r["FLOODPLAIN_STATUS"] == "yes"
    assert r["SFHA_AREA_SQFT"] == pytest.approx(10278, abs=1)  # README: 10,278 sq ft in AE
    pieces = sum(f["area_sqft"] for f in r["OUTPUT"].getFeatures() if f["sfha"] in (1, True))
    assert pieces == pytest.approx(r["SFHA_AREA_SQFT"], abs=0.5)


def test_mitigation_eligibility(plugin, reference, tmp_path):
    r = _run("mitigationeligibility", {"MITIGATION": site("mitigation"),
                                       "HUC12": layer("huc12"), "HUC10": layer("huc10"),
                                       "IMPERVIOUS": str(SAMPLE / "impervious.tif")}, tmp_path)
    for key in ("development_type", "watersheds", "mitigation"):
        assert r["json"][key] == reference[key], key
    assert r["DEVELOPMENT_TYPE"] == "redevelopment"
    assert r["MITIGATION_HUC_LEVEL"] == "HUC10"
    eligible = {f["id"]: f["eligible"] for f in r["OUTPUT"].getFeatures()}
    assert eligible == {"MIT-1": True, "MIT-2": True, "MIT-3": False}
    assert r["ELIGIBLE_COUNT"] == 2
    # the headline answers the tool's own question, not the development type's
    assert r["HEADLINE"] == ("2 of 3 mitigation site(s) eligible (same HUC10 as the site, "
                             "redevelopment rule).")


def test_a_single_check_with_the_town_config_needs_only_the_site(plugin, reference, tmp_path):
    import processing

    r = processing.run("swm_gis:mitigationeligibility", {
        "TOWN_CONFIG": str(SAMPLE / "town.toml"), "SITE": site("site"),
        "MITIGATION": site("mitigation"), "OUTPUT": "memory:"})
    assert r["HEADLINE"].startswith("2 of 3 mitigation site(s) eligible")
    assert r["MITIGATION_STATUS"] == next(f["status"] for f in reference["findings"]
                                          if f["key"] == "mitigation")


def _ends_cut(text: str) -> bool:
    return text.rstrip().endswith(("...", "\u2026"))


def test_no_text_output_or_log_line_ends_in_an_ellipsis(plugin, reference, tmp_path):
    """Findings, the headline, statuses and requirements are whole: "Phosphorus, Tot..." and
    "Show them on th..." were cut at a fixed length."""
    import processing
    from qgis.core import QgsProcessingContext
    from support.plugin_kit import recording_feedback

    feedback = recording_feedback()
    r = processing.run("swm_gis:sitescreening", {
        "TOWN_CONFIG": str(SAMPLE / "town.toml"), "SITE": site("site"),
        "MITIGATION": site("mitigation"), "PROPOSED_IMPERVIOUS_SQFT": 28309,
        "OUTPUT": "memory:", "OUTPUT_FOLDER": str(tmp_path / "screening")},
        context=QgsProcessingContext(), feedback=feedback)
    texts = {k: v for k, v in r.items() if isinstance(v, str)}
    assert {"HEADLINE", "FINDINGS", "RECEIVING_WATERS_STATUS"} <= set(texts)
    cut = [(k, line) for k, v in texts.items() for line in v.splitlines() if _ends_cut(line)]
    assert cut == []
    assert [line for line in feedback.lines if _ends_cut(line)] == []
    # each engine answer is in FINDINGS whole
    for f in reference["findings"]:
        assert " ".join(f["answer"].split()) in texts["FINDINGS"], f["key"]


def test_receiving_waters(plugin, reference, tmp_path):
    r = _run("receivingwaters", {"DEM": str(SAMPLE / "dem.tif"), "STREAMS": layer("streams"),
                                 "ORW": layer("orw"), "IMPAIRED_WATERS": layer("impaired_waters"),
                                 "WATERBODIES": layer("waterbodies"),
                                 "TOWN_BOUNDARY": layer("town_boundary"),
                                 "ASSESS": layer("assess"),
                                 "RECEIVING_WATER_AREAS": "memory:"}, tmp_path)
    assert r["json"]["receiving_waters"] == reference["receiving_waters"]
    ids = [w["au_id"] for w in r["json"]["receiving_waters"]["impaired"]]
    assert ids[:2] == ["MA93-51", "MA93-12"]  # README: Mill Pond, then the Sample River
    assert r["IMPAIRED_COUNT"] == len(ids) and r["IMPAIRED_DOWNSTREAM"] is True
    # no vernal pool layer given (certified vernal pools are ORWs): the ORW search is
    # incomplete, so neither a count of 0 nor "no ORW downstream"
    parts = next(f for f in r["json"]["findings"] if f["key"] == "receiving_waters")["parts"]
    assert parts["orw"] == "conditional"
    assert r["ORW_COUNT"] is None and r["ORW_DOWNSTREAM"] is None
    found = [f["id"] for f in r["OUTPUT"].getFeatures()] + \
        [f["id"] for f in r["RECEIVING_WATER_AREAS"].getFeatures()]
    assert sorted(found) == sorted(ids)


def test_site_screening_with_a_town_config(plugin, reference, tmp_path):
    r = _run("sitescreening", {"TOWN_CONFIG": str(SAMPLE / "town.toml"), "PARCELS": None,
                               "MITIGATION": site("mitigation"),
                               "PROPOSED_IMPERVIOUS_SQFT": 28309}, tmp_path)
    for key in ("disturbance", "development_type", "standards", "watersheds", "mitigation",
                "habitats", "floodplain", "receiving_waters"):
        assert r["json"][key] == reference[key], key
    assert [c["name"] for c in r["json"]["checks"]] == [c["name"] for c in reference["checks"]]
    assert r["REQUIRED_RETENTION_CUFT"] == reference["standards"]["required_retention_cuft"]
    folder = tmp_path / "sitescreening"
    for name in ("screening.json", "screening.gpkg", "screening_report.html",
                 "screening_report.pdf"):
        assert (folder / name).is_file(), name
    assert r["REPORT_HTML"] == str(folder / "screening_report.html")


def _ms4_at_the_site(tmp_path) -> str:
    """A catch basin (FACILITYID CB-1) on the site's boundary, in a GeoPackage of its own."""
    from qgis.core import (
        QgsCoordinateTransformContext,
        QgsFeature,
        QgsGeometry,
        QgsVectorFileWriter,
        QgsVectorLayer,
    )

    sites = QgsVectorLayer(site("site"), "site", "ogr")
    vertex = next(sites.getFeatures()).geometry().vertexAt(0)
    ms4 = QgsVectorLayer(f"Point?crs={sites.crs().authid()}&field=FACILITYID:string",
                         "ms4", "memory")
    feature = QgsFeature(ms4.fields())
    feature.setGeometry(QgsGeometry(vertex.clone()))
    feature.setAttribute("FACILITYID", "CB-1")
    ms4.dataProvider().addFeature(feature)
    path = str(tmp_path / "ms4.gpkg")
    options = QgsVectorFileWriter.SaveVectorOptions()
    options.driverName = "GPKG"
    QgsVectorFileWriter.writeAsVectorFormatV3(ms4, path, QgsCoordinateTransformContext(), options)
    return path


def test_the_towns_ms4_layer_reaches_the_permit_finding(plugin, tmp_path):
    """The optional 'Town MS4' layer goes into the config the plugin writes ([layers.ms4], id =
    FACILITYID). A catch basin on the site's boundary is near the site (within 100 ft), but
    this check traces no runoff path down a DEM, so it shows no drainage: the permit is
    conditional on the MS4 (issue 32 item 5)."""
    r = _run("disturbancetrigger", {"MS4": _ms4_at_the_site(tmp_path)}, tmp_path)
    ms4 = r["json"]["disturbance"]["ms4"]
    assert ms4["checked"] is True and ms4["reached"] is False
    assert ms4["near"] == ["CB-1"] and ms4["features"] == []
    assert r["PERMIT_STATUS"] == "conditional" and r["PERMIT_REQUIRED"] is None
    assert "MS4 feature(s) CB-1 lie within 100 ft of the site, near it" in r["HEADLINE"]


def test_without_the_ms4_layer_the_permit_is_conditional_unless_the_box_states_it(plugin,
                                                                                   tmp_path):
    r = _run("disturbancetrigger", {}, tmp_path / "a")
    assert r["json"]["disturbance"]["ms4"]["checked"] is False
    assert r["PERMIT_STATUS"] == "conditional" and r["PERMIT_REQUIRED"] is None
    stated = _run("disturbancetrigger", {"ALL_LAND_DRAINS_TO_MS4": True}, tmp_path / "b")
    assert stated["json"]["disturbance"]["ms4"]["assumed_by_town"] is True
    assert stated["PERMIT_STATUS"] == "yes" and stated["PERMIT_REQUIRED"] is True
    assert "the Town's configuration states that all of its land drains to its MS4" in \
        stated["HEADLINE"]


def test_the_ms4_box_with_a_town_config_is_said_unused(plugin, tmp_path):
    """The town config file states it ([town] all_land_drains_to_ms4): the box is not used, and
    the log says so; the sample town's statement still decides (yes)."""
    import processing
    from support.plugin_kit import recording_feedback

    fb = recording_feedback()
    r = processing.run("swm_gis:sitescreening", {
        "SITE": site("site"), "TOWN_CONFIG": str(SAMPLE / "town.toml"),
        "ALL_LAND_DRAINS_TO_MS4": True, "OUTPUT": "memory:",
        "OUTPUT_FOLDER": str(tmp_path / "o")}, feedback=fb)
    assert r["PERMIT_STATUS"] == "yes"
    assert ("A town config file is set, so 'All the town's land drains to its MS4' is not used: "
            "the file's [town] all_land_drains_to_ms4 says it.") in fb.warnings


def test_removed_impervious_reaches_the_engine_and_the_figures_match(plugin, reference,
                                                                      tmp_path):
    """REMOVED_IMPERVIOUS (--removed-impervious): the site's lot outside the limit of
    disturbance, all of its existing cover removed. The total is then the proposed cover alone
    (28,309 sq ft) and redevelopment retains 0.8 in / 12 x 28,309 = 1,887.3 cu ft, where the
    reference (the cover there stays: 52,382 sq ft) retains 0.8 / 12 x 80,691 = 5,379.4."""
    import geopandas as gpd
    import shapely

    ref = reference["standards"]
    assert ref["existing_impervious_staying_sqft"] == pytest.approx(52_382, abs=1)
    assert ref["required_retention_cuft"] == pytest.approx(5_379.4, abs=0.1)
    lot = gpd.read_file(GPKG, layer="parcels").query("LOC_ID == 'M_237990_918549'")
    lod = shapely.union_all(gpd.read_file(SITES, layer="site").to_crs(lot.crs).geometry.values)
    removed = gpd.GeoDataFrame(geometry=[shapely.difference(lot.geometry.iloc[0], lod)],
                               crs=lot.crs)
    removed.to_file(tmp_path / "removed.gpkg", layer="removed", driver="GPKG")
    r = _run("sitescreening", {"TOWN_CONFIG": str(SAMPLE / "town.toml"), "PARCELS": None,
                               "PROPOSED_IMPERVIOUS_SQFT": 28309,
                               "REMOVED_IMPERVIOUS": f"{tmp_path / 'removed.gpkg'}"
                                                     "|layername=removed"}, tmp_path)
    st = r["json"]["standards"]
    engine = json.loads((tmp_path / "sitescreening" / "screening.json").read_text(
        encoding="utf-8"))
    # the user's own file, handed to the engine as it is (issue 35)
    assert engine["meta"]["parameters"]["removed_impervious"] == \
        f"{tmp_path / 'removed.gpkg'}:removed"
    assert engine["standards"] == st
    assert st["existing_impervious_staying_sqft"] == pytest.approx(0.0, abs=0.5)
    assert st["existing_impervious_removed_sqft"] == pytest.approx(52_382, abs=1)
    assert st["required_retention_cuft"] == pytest.approx(1_887.3, abs=0.1)
    assert r["REQUIRED_RETENTION_CUFT"] == st["required_retention_cuft"]
    answer = next(f for f in r["json"]["findings"] if f["key"] == "standards")["answer"]
    assert " ".join(answer.split()) in r["FINDINGS"]


def test_each_sink_takes_the_style_the_engine_stored_by_its_name(plugin, sample_demo, tmp_path):
    """Issue 35: the styles live in the engine (stored in screening.gpkg), not in the plugin.
    The habitats layer holds polygons and vernal pool points: the habitat sink takes its
    default (a polygon style, QML geometry type 2), the vernal pool sink the one named
    vernal_pools (a point style, 0); a name the layer lacks falls back to its default."""
    from qgis.core import QgsVectorLayer
    from swm_gis_qgis.algorithms.base import qml_geometry_type, stored_style_qml

    gpkg = sample_demo.screen / "site" / "screening.gpkg"
    habitats = QgsVectorLayer(f"{gpkg}|layername=habitats", "habitats", "ogr")
    assert habitats.isValid()
    kinds = {}
    for name in (None, "habitats", "vernal_pools", "no_such_style"):
        path = stored_style_qml(habitats, tmp_path / f"{name}.qml", name)
        assert path is not None, name
        kinds[name] = qml_geometry_type(str(path))
    assert kinds == {None: 2, "habitats": 2, "vernal_pools": 0, "no_such_style": 2}


def _lot_6000_sqft(tmp_path) -> str:
    """A 60 ft x 100 ft limit of disturbance: 18.288 m x 30.48 m = 6,000 sq ft exactly."""
    from support.plugin_kit import square, write_layer

    return write_layer(tmp_path / "lot.gpkg", "lot", "Polygon", [("id", "str")],
                       [(square(0, 0, 60 * 0.3048, 100 * 0.3048), ["L1"])])


def test_a_single_run_applies_the_regulation_it_names(plugin, tmp_path):
    """REGULATION = westwood-ch350 (Westwood: administrative review from 5,000 sq ft, a permit
    from 21,780 sq ft): 6,000 sq ft reaches administrative review and not the permit, and the
    run's config names the regulation, so no regulation_not_named warning. Without it the
    default regulation (a permit from 43,560 sq ft, no review tier) finds no tier, and warns
    that the config names none."""
    lot = _lot_6000_sqft(tmp_path)
    named = _run("disturbancetrigger", {"SITE": lot, "PARCELS": None,
                                        "REGULATION": "westwood-ch350"}, tmp_path / "named")
    d = named["json"]["disturbance"]
    assert named["AREA_SQFT"] == pytest.approx(6000, abs=0.01)
    tier = d["tier"]
    assert tier["profile"] == "westwood-ch350"
    assert tier["tier"] == "administrative_review"  # 6,000 >= 5,000 and < 21,780
    met = {t["tier"]: t["met"] for t in tier["tests"] if t["test"] == "disturbed_area"}
    assert met == {"administrative_review": True, "permit": False}
    assert named["json"]["meta"]["regulation"]["id"] == "westwood-ch350"
    assert named["json"]["meta"]["regulation"]["named_in_config"] is True
    assert "regulation_not_named" not in json.dumps(named["json"]["warnings"])

    default = _run("disturbancetrigger", {"SITE": lot, "PARCELS": None},
                   tmp_path / "default")
    assert default["json"]["disturbance"]["tier"]["tier"] == "none"  # 6,000 < 43,560
    assert default["json"]["meta"]["regulation"]["named_in_config"] is False
    assert "regulation_not_named" in json.dumps(default["json"]["warnings"])


def test_an_unknown_regulation_is_the_engine_s_refusal_in_the_dialog_s_words(plugin, tmp_path):
    from qgis.core import QgsProcessingException

    with pytest.raises(QgsProcessingException) as err:
        _run("disturbancetrigger", {"SITE": _lot_6000_sqft(tmp_path), "PARCELS": None,
                                    "REGULATION": "westwod-ch350"}, tmp_path)
    # the parameter and the value typed, the engine's did-you-mean; not the run's own config
    assert str(err.value).startswith(
        "'Regulation profile (a bundled id or a profile file)' = \"westwod-ch350\" is not a "
        "bundled regulation profile. Did you mean \"westwood-ch350\"?")


def test_a_town_config_names_the_regulation_and_the_parameter_is_not_used(plugin, tmp_path):
    """With a town config file its [town] regulation applies (the sample town's config names
    lynnfield-ch320): REGULATION is not used, and the log says so."""
    import processing
    from support.plugin_kit import recording_feedback

    fb = recording_feedback()
    result = processing.run("swm_gis:habitatscreening", {
        "TOWN_CONFIG": str(SAMPLE / "town.toml"), "SITE": site("site"),
        "REGULATION": "westwood-ch350", "OUTPUT_FOLDER": str(tmp_path / "out"),
        "OUTPUT": "memory:"}, feedback=fb)
    doc = json.loads(Path(result["JSON"]).read_text(encoding="utf-8"))
    assert doc["meta"]["regulation"]["id"] == "lynnfield-ch320"
    assert any("A town config file is set, so 'Regulation profile (a bundled id or a profile "
               "file)' is not used: the file's [town] regulation says it." in w
               for w in fb.warnings), fb.warnings

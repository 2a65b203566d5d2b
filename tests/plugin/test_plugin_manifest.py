"""The manifest read for every algorithm's outputs (issue 35).

Each algorithm runs once on the sample town (``data/sample``) with the engine's result line
recorded as the plugin received it; every file output must be the file of the manifest's role
(same name, in the output folder), every count output the manifest's count, every status the
manifest's finding, and every layer output hold the features of the GeoPackage layer the
manifest lists. The plugin reads nothing else (``test_the_algorithms_read_no_engine_file``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from support.plugin_kit import SAMPLE

pytestmark = [pytest.mark.qgis, pytest.mark.slow]

GPKG = SAMPLE / "sample.gpkg"
SITES = SAMPLE / "sites.gpkg"
ALGORITHMS = Path(__file__).resolve().parents[2] / "qgis_plugin" / "swm_gis_qgis" / "algorithms"


def layer(name: str) -> str:
    return f"{GPKG}|layername={name}"


def site(name: str) -> str:
    return f"{SITES}|layername={name}"


#: Each algorithm with the sample town's layers it needs.
RUNS = {
    "disturbancetrigger": {"SITE": site("site"), "OUTPUT": "memory:"},
    "floodplainoverlap": {"SITE": site("site"), "FLOOD_ZONES": layer("flood_zones"),
                          "OUTPUT": "memory:"},
    "habitatscreening": {"SITE": site("site"), "PRIORITY_HABITATS": layer("nhesp_priority"),
                         "ESTIMATED_HABITATS": layer("nhesp_estimated"),
                         "VERNAL_POOLS": layer("vernal_pools"), "OUTPUT": "memory:"},
    "mitigationeligibility": {"SITE": site("site"), "HUC12": layer("huc12"),
                              "HUC10": layer("huc10"), "MITIGATION": site("mitigation"),
                              "OUTPUT": "memory:"},
    "receivingwaters": {"SITE": site("site"), "ORW": layer("orw"),
                        "IMPAIRED_WATERS": layer("impaired_waters"),
                        "STREAMS": layer("streams"), "DEM": str(SAMPLE / "dem.tif"),
                        "OUTPUT": "memory:"},
    "sitescreening": {"SITE": site("site"), "TOWN_CONFIG": str(SAMPLE / "town.toml"),
                      "OUTPUT": "memory:"},
    "abutters": {"TOWN_CONFIG": str(SAMPLE / "town.toml"), "PARCELS": layer("parcels"),
                 "SUBJECT": layer("parcels"), "SUBJECT_IDS": "M_236682_917765",
                 "OUTPUT": "memory:"},
    "applicabilitymap": {"TOWN_CONFIG": str(SAMPLE / "town.toml"), "OUTPUT": "memory:"},
}

#: The single checks' numeric outputs and the manifest counts they are.
SCREEN_COUNTS = {
    "disturbancetrigger": {"AREA_SQFT": "area_sqft", "AREA_ACRES": "area_acres"},
    "floodplainoverlap": {"SFHA_AREA_SQFT": "sfha_area_sqft", "SITE_FRACTION": "site_fraction"},
    "habitatscreening": {"FEATURE_COUNT": "habitats_found"},
    "mitigationeligibility": {"ELIGIBLE_COUNT": "mitigation_eligible"},
    "receivingwaters": {"IMPAIRED_COUNT": "impaired_found"},
    "sitescreening": {"AREA_SQFT": "area_sqft"},
}


@pytest.fixture(scope="module")
def runs(plugin, tmp_path_factory):
    """Each algorithm run once: (its outputs, the engine result line the plugin read); the
    web map is published from the applicability map's engine GeoPackage."""
    import processing
    from swm_gis_qgis import engine

    real, seen = engine.run_engine, []

    def recording(*args, **kwargs):
        seen.append(real(*args, **kwargs))
        return seen[-1]

    engine.run_engine = recording
    done = {}
    try:
        for alg, params in RUNS.items():
            out = tmp_path_factory.mktemp(alg)
            extra = {"OUTPUT_GPKG": str(out / "map.gpkg")} if alg == "applicabilitymap" \
                else {"OUTPUT_FOLDER": str(out / "out")}
            done[alg] = (processing.run(f"swm_gis:{alg}", {**params, **extra}), seen[-1])
        folder = tmp_path_factory.mktemp("publish") / "site"
        done["publishwebmap"] = (processing.run("swm_gis:publishwebmap", {
            "TOWN_CONFIG": str(SAMPLE / "town.toml"),
            "APPLICABILITY": done["applicabilitymap"][0]["GPKG"],
            "SITE_FOLDER": str(folder)}), seen[-1])
    finally:
        engine.run_engine = real
    return done


def _same_file(output: str | None, manifest: dict, role: str, folder: str) -> bool:
    """The output is the manifest's file of ``role``, at the same place in the folder the
    plugin delivered it to (the engine may have written it in a staging folder)."""
    from swm_gis_qgis.manifest import path_of

    engine_path = path_of(manifest, role)
    if engine_path is None or output is None:
        return engine_path is None and output is None
    return Path(output).relative_to(folder) == Path(engine_path).relative_to(
        manifest["out_dir"])


def _features(result: dict, name: str) -> int:
    return result[name].featureCount()


def _layer_features(manifest: dict, name: str) -> int:
    entry = next(f for f in manifest["files"] if f["role"] == "layers")
    return next(la["features"] for la in entry["layers"] if la["name"] == name)


@pytest.mark.parametrize("alg", list(SCREEN_COUNTS))
def test_screening_outputs_are_the_manifests(runs, alg):
    result, line = runs[alg]
    m = line["manifest"]
    folder = result["OUTPUT_FOLDER"] if "OUTPUT_FOLDER" in result else \
        str(Path(result["JSON"]).parent)
    assert _same_file(result["JSON"], m, "record", folder)
    assert _same_file(result["SCREENING_GPKG"], m, "layers", folder)
    for name, key in SCREEN_COUNTS[alg].items():
        assert result[name] == m["counts"][key], name
    statuses = {f["key"]: f["status"] for f in m["findings"]}
    for name, value in result.items():
        if name.endswith("_STATUS") and name != "PERMIT_STATUS":
            assert value == statuses.get(name[:-len("_STATUS")].lower(), ""), name
    if alg in ("disturbancetrigger", "sitescreening"):  # the site: one polygon, as listed
        assert _features(result, "OUTPUT") == _layer_features(m, "site") == 1
    if alg == "floodplainoverlap":  # the zone pieces on the site, all polygons
        assert _features(result, "OUTPUT") == _layer_features(m, "flood_overlap")
    if alg == "sitescreening":
        assert _same_file(result["REPORT_HTML"], m, "report_html", folder)
        assert _same_file(result["REPORT_PDF"], m, "report_pdf", folder)


def test_abutters_outputs_are_the_manifests(runs):
    from swm_gis_qgis.algorithms.abutters import FILE_OUTPUTS

    result, line = runs["abutters"]
    m = line["manifest"]
    for name, role, _desc in FILE_OUTPUTS:
        assert _same_file(result[name], m, role, result["OUTPUT_FOLDER"]), name
    # README: 9 abutting parcels and 20 recipients for M_236682_917765
    assert result["ABUTTER_COUNT"] == m["counts"]["abutting"] == 9
    assert result["RECIPIENT_COUNT"] == m["counts"]["mailable"] == 20
    assert result["UNMAILABLE_COUNT"] == m["counts"]["unmailable"]
    assert result["HEADLINE"] == m["headline"]
    assert _features(result, "OUTPUT") == _layer_features(m, "abutting_parcels") == 9


def test_town_wide_outputs_are_the_manifests(runs):
    result, line = runs["applicabilitymap"]
    m = line["manifest"]
    assert _features(result, "OUTPUT") == _layer_features(m, "applicability") == 3167
    from qgis.core import QgsVectorLayer

    # the engine's GeoPackage, delivered to the file chosen: the layer the manifest lists
    kept = QgsVectorLayer(f"{result['GPKG']}|layername=applicability", "kept", "ogr")
    assert Path(result["GPKG"]).name == "map.gpkg" and kept.featureCount() == 3167
    result, line = runs["publishwebmap"]
    m = line["manifest"]
    assert _same_file(result["INDEX_HTML"], m, "web_page", result["SITE_FOLDER"])
    assert _same_file(result["PUBLISH_JSON"], m, "record", result["SITE_FOLDER"])
    assert result["PARCEL_COUNT"] == m["counts"]["parcels"] == 3167
    assert result["SITE_BYTES"] == m["counts"]["size_bytes"]


def test_the_algorithms_read_no_engine_file():
    """No algorithm opens a file to recover a figure: no json/csv reading, no ``open``, no
    ``read_text`` outside the QML style helper of base.py (which reads the plugin's own
    style files)."""
    found = []
    for path in sorted(ALGORITHMS.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
                found += [f"{path.name}: import {n}" for n in names if n in ("json", "csv")]
            if isinstance(node, ast.Call):
                func = node.func
                name = getattr(func, "attr", None) or getattr(func, "id", None)
                if name in ("open", "read_text", "loads", "DictReader", "reader"):
                    found.append(f"{path.name}: {name}")
    assert found == ["base.py: read_text"]  # qml_geometry_type: the plugin's QML files


def test_an_unknown_manifest_version_is_refused():
    from swm_gis_qgis import manifest

    with pytest.raises(manifest.EngineTooOld, match="too old for this plugin"):
        manifest.manifest_of({"manifest": {"version": 2}})
    with pytest.raises(manifest.EngineTooOld):
        manifest.manifest_of({"outputs": {}})
    m = manifest.manifest_of({"manifest": {"version": 1, "counts": {"abutting": 0}}})
    assert manifest.count(m, "abutting") == 0 and manifest.count(m, "unmailable") is None

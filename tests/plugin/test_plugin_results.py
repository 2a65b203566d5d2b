"""Results a person reads (issue 17): typed outputs, a short log, no empty layers loaded, the
disturbance trigger from a site alone. Runs on the sample town (``data/sample``).

The status outputs come from the engine's ``findings`` list (``docs/findings.md``); a boolean output
is True for "yes", False only for "no" and NULL (None) for conditional / not checked; an engine
without ``findings`` is refused as too old.
"""

from __future__ import annotations

import glob
import json
import os
import sys
from pathlib import Path

import pytest
from support.plugin_kit import SAMPLE, cli_language, recording_feedback

pytestmark = [pytest.mark.qgis, pytest.mark.slow]

GPKG = SAMPLE / "sample.gpkg"
SITES = SAMPLE / "sites.gpkg"
MAX_LOG_LINES = 60
MAX_TEXT_CHARS = 2000


def layer(name: str) -> str:
    return f"{GPKG}|layername={name}"


def site(name: str) -> str:
    return f"{SITES}|layername={name}"


#: The sample town's layers each algorithm is run with (what a first-time user would choose):
#: only the layers its rule needs, no parcels layer for the single checks.
RUNS = {
    "disturbancetrigger": {},
    "habitatscreening": {"PRIORITY_HABITATS": layer("nhesp_priority"),
                         "ESTIMATED_HABITATS": layer("nhesp_estimated"),
                         "VERNAL_POOLS": layer("vernal_pools")},
    "floodplainoverlap": {"FLOOD_ZONES": layer("flood_zones")},
    "mitigationeligibility": {"HUC12": layer("huc12"),
                              "HUC10": layer("huc10"), "MITIGATION": site("mitigation")},
    "receivingwaters": {"ORW": layer("orw"),
                        "IMPAIRED_WATERS": layer("impaired_waters"),
                        "STREAMS": layer("streams"), "DEM": str(SAMPLE / "dem.tif")},
    "sitescreening": {"TOWN_CONFIG": str(SAMPLE / "town.toml"),
                      "MITIGATION": site("mitigation"), "PROPOSED_IMPERVIOUS_SQFT": 28309},
}


@pytest.fixture(scope="module")
def runs(plugin, tmp_path_factory):
    """Each screening algorithm run once on the demo site, with its log recorded."""
    import processing

    done = {}
    for alg, params in RUNS.items():
        fb = recording_feedback()
        out = tmp_path_factory.mktemp(alg)
        result = processing.run(f"swm_gis:{alg}", {"SITE": site("site"), "OUTPUT": "memory:",
                                                   "OUTPUT_FOLDER": str(out), **params},
                                feedback=fb)
        done[alg] = (result, fb)
    return done


def _check_typed(alg_id: str, result: dict) -> None:
    from qgis.core import QgsApplication

    alg = QgsApplication.processingRegistry().algorithmById(f"swm_gis:{alg_id}")
    for out in alg.outputDefinitions():
        value = result.get(out.name())
        if out.type() == "outputString":
            assert isinstance(value, str), (alg_id, out.name(), value)
            # short lines, never cut (issue 26): FINDINGS is one whole line per finding
            assert all(len(line) <= MAX_TEXT_CHARS for line in value.splitlines()), \
                (alg_id, out.name(), len(value))
            assert not any(line.rstrip().endswith(("...", "\u2026"))
                           for line in value.splitlines()), (alg_id, out.name(), value)
            assert not value.lstrip().startswith(("{", "[")), (alg_id, out.name())
            assert cli_language(value) == [], (alg_id, out.name(), value)
        elif out.type() == "outputBoolean":  # NULL only where the status is not yes / no
            assert value is None or isinstance(value, bool), (alg_id, out.name(), value)
        elif out.type() == "outputNumber":
            assert value is None or isinstance(value, (int, float)), (alg_id, out.name())
    assert "RESULT_JSON" not in result


@pytest.mark.parametrize("alg_id", list(RUNS))
def test_outputs_are_typed_and_short(runs, alg_id):
    result, _fb = runs[alg_id]
    _check_typed(alg_id, result)
    assert Path(result["JSON"]).is_file()  # the whole result, as a file output
    for path in Path(result["JSON"]).parent.iterdir():  # provenance: the QGIS layers
        if path.suffix in (".json", ".html", ".csv"):
            assert "processing_" not in path.read_text(encoding="utf-8"), path.name


@pytest.mark.parametrize("alg_id", list(RUNS))
def test_the_log_is_short_and_in_the_dialogs_words(runs, alg_id):
    _result, fb = runs[alg_id]
    assert len(fb.lines) < MAX_LOG_LINES, "\n".join(fb.lines)
    assert cli_language("\n".join(fb.lines)) == []


def test_a_single_check_logs_only_its_own_steps(plugin, tmp_path):
    """The engine runs the whole screening for a single check; its step texts (tracing the
    flow, reading every layer) are not this tool's: they go to engine_log.txt, the progress
    texts the dialog logs are the plugin's own."""
    import processing
    from qgis.core import QgsProcessingContext, QgsProcessingFeedback

    class Steps(QgsProcessingFeedback):
        texts: list[str] = []

        def setProgressText(self, text):  # noqa: N802
            self.texts.append(str(text))

    fb = Steps()
    processing.run("swm_gis:floodplainoverlap", {
        "SITE": site("site"), "FLOOD_ZONES": layer("flood_zones"), "OUTPUT": "memory:",
        "OUTPUT_FOLDER": str(tmp_path / "o")}, context=QgsProcessingContext(), feedback=fb)
    own = ("Exporting ", "Running the swm-gis engine", "Loading the results")
    assert fb.texts and [t for t in fb.texts if not t.startswith(own)] == []
    from qgis.core import QgsProcessingUtils

    logs = glob.glob(os.path.join(QgsProcessingUtils.tempFolder(),
                                  "swm_gis_floodplainoverlap_*", "engine_log.txt"))
    newest = max(logs, key=os.path.getmtime)
    assert "step: " in Path(newest).read_text(encoding="utf-8")  # kept for whoever debugs


def test_site_screening_says_the_permit_answer_first(runs):
    result, fb = runs["sitescreening"]
    document = json.loads((Path(result["OUTPUT_FOLDER"]) / "screening.json").read_text())
    assert result["PERMIT_REQUIRED"] is True
    assert result["PERMIT_STATUS"] == result["DISTURBANCE_STATUS"] == "yes"
    # issue 24 / 32 item 5: the trigger is a disturbance "draining to the Town's MS4"; the
    # sample town configures no MS4 layer and states that all its land drains to its MS4, so
    # the answer prints that as the Town's assumption
    assert result["HEADLINE"] == (
        "Required. The site disturbs 58,125 sq ft (1.33 acres), which reaches the one-acre "
        "(43,560 sq ft) trigger. The disturbance is taken as draining to the Town's MS4: the "
        "Town's configuration states that all of its land drains to its MS4 (the Town's "
        "assumption, not a finding of this tool).")
    assert fb.lines.index(result["HEADLINE"]) < 25  # near the top, not line 36 of 202
    for f in document["findings"]:  # every finding's status is an output and a log line
        assert result[f"{f['key'].upper()}_STATUS"] == f["status"]
        assert any(line.startswith(f"{f['title']}: ") for line in fb.lines)
    rw = next(f for f in document["findings"] if f["key"] == "receiving_waters")
    expected = {"yes": True, "no": False}
    assert result["IN_SFHA"] is expected.get(result["FLOODPLAIN_STATUS"])
    assert result["HABITATS_FOUND"] is expected.get(result["HABITATS_STATUS"])
    assert result["ORW_DOWNSTREAM"] is expected.get(rw["parts"]["orw"])
    assert result["IMPAIRED_DOWNSTREAM"] is expected.get(rw["parts"]["impaired"])


@pytest.mark.parametrize("alg_id", list(RUNS))
def test_the_plugins_texts_have_no_doubled_punctuation(runs, alg_id):
    """Issue 32 item 9: every text output and log line, scanned as the engine's outputs are."""
    from support.punctuation import doubled

    result, fb = runs[alg_id]
    # QGIS logs the parameters and results as Python dicts ("Results: {'HEADLINE': ...}"):
    # those lines are QGIS's, and their own texts are among the result values
    texts = [v for v in result.values() if isinstance(v, str) and " " in v] + \
        [line for line in fb.lines if "{'" not in line]
    assert [run for text in texts for run in doubled(text)] == []


def test_the_plugins_findings_are_the_documents_words(runs):
    """Issue 32: the plugin's FINDINGS output gives each finding's answer as screening.json
    does (the same figures), whitespace aside."""
    result, _ = runs["sitescreening"]
    document = json.loads((Path(result["OUTPUT_FOLDER"]) / "screening.json").read_text())
    findings = " ".join(result["FINDINGS"].split())
    for f in document["findings"]:
        assert " ".join(f["answer"].split()) in findings, f["key"]


def test_disturbance_trigger_from_a_site_alone(plugin, tmp_path):
    """No parcels, no reference layers: the 1.334-acre demo site needs a permit where the town
    states that all its land drains to its MS4; without that (and no MS4 layer) the permit is
    conditional on the MS4 (issue 32 item 5), PERMIT_REQUIRED NULL."""
    import processing

    unstated = processing.run("swm_gis:disturbancetrigger", {
        "SITE": site("site"), "OUTPUT": "memory:", "OUTPUT_FOLDER": str(tmp_path / "u")})
    assert unstated["PERMIT_REQUIRED"] is None
    assert unstated["DISTURBANCE_STATUS"] == "conditional"
    assert "a permit is required if the disturbance drains to the Town's MS4" in \
        unstated["HEADLINE"]
    out = tmp_path / "out"
    r = processing.run("swm_gis:disturbancetrigger", {"SITE": site("site"), "OUTPUT": "memory:",
                                                      "OUTPUT_FOLDER": str(out),
                                                      "ALL_LAND_DRAINS_TO_MS4": True})
    assert r["AREA_ACRES"] == pytest.approx(1.334, abs=0.001)
    assert r["AREA_SQFT"] == pytest.approx(1.334 * 43560, rel=1e-3)
    assert r["PERMIT_REQUIRED"] is True and r["DISTURBANCE_STATUS"] == "yes"
    doc = json.loads((out / "screening.json").read_text(encoding="utf-8"))
    # the site's own file, as given; no town layer to check it lies in the town (issue 35)
    assert doc["meta"]["parameters"]["site"] == f"{SAMPLE / 'sites.gpkg'}:site"
    assert "town_not_checked" in [w["code"] for w in doc["warnings"]]
    checks = doc["checks"]
    ran = {c["name"] for c in checks if c.get("ran")}
    assert not ran & {"receiving_waters", "habitats", "floodplain"}  # no trace, no screening
    assert not (out / "screening_report.pdf").exists()  # no report unless asked


def test_the_report_of_a_single_check_when_asked(plugin, tmp_path):
    """A report prints the town's name, so a run that writes one asks for it before it starts
    (never "Town of Town (name not set)"); without the report, no name is needed."""
    import processing
    from pypdf import PdfReader
    from qgis.core import QgsProcessingException

    out = tmp_path / "out"
    params = {"SITE": site("site"), "OUTPUT": "memory:", "WRITE_REPORT": True,
              "OUTPUT_FOLDER": str(out)}
    with pytest.raises(QgsProcessingException) as exc:
        processing.run("swm_gis:disturbancetrigger", params)
    assert str(exc.value).endswith(
        "Name the town the reports are for: fill in 'Town name on the reports' (under Advanced "
        "Parameters). The reports' first lines print it.")
    assert not out.exists()
    processing.run("swm_gis:disturbancetrigger", {**params, "TOWN_NAME": "Sampleton"})
    assert (out / "screening_report.pdf").is_file()
    first = PdfReader(str(out / "screening_report.pdf")).pages[0].extract_text()
    assert "Town of Sampleton" in first
    assert "not set" not in first and "not named" not in first
    assert (out / "screening_report.html").is_file()


def test_a_small_site_without_common_plan_is_conditional_not_no(plugin, tmp_path):
    """Under an acre and no common plan given, the permit is conditional."""
    import processing

    r = processing.run("swm_gis:disturbancetrigger", {"SITE": site("site_small"),
                                                      "OUTPUT": "memory:",
                                                      "OUTPUT_FOLDER": str(tmp_path / "o")})
    assert r["PERMIT_STATUS"] == r["DISTURBANCE_STATUS"] == "conditional"
    assert r["PERMIT_REQUIRED"] is None  # NULL: neither "required" nor "not required"
    assert "common plan" in r["HEADLINE"]
    assert r["HEADLINE"].startswith("Conditional.")
    said = [v for v in r.values() if v is False or (isinstance(v, str) and v.lower() in (
        "no", "false", "not required"))]
    assert said == []


def _town_config_without(tmp_path: Path, drop: set[str]) -> Path:
    """The sample town's config without the ``drop`` layers (paths made absolute)."""
    import tomllib

    cfg = tomllib.loads((SAMPLE / "town.toml").read_text(encoding="utf-8"))
    lines = ["[town]", 'name = "Sampleton (SYNTHETIC)"', 'crs = "EPSG:26986"',
             "synthetic = true", "all_land_drains_to_ms4 = true"]
    for key, layer_cfg in cfg["layers"].items():
        if key in drop:
            continue
        lines += [f"[layers.{key}]", f"path = {json.dumps(str(SAMPLE / layer_cfg['path']))}"]
        if "layer" in layer_cfg:
            lines.append(f"layer = {json.dumps(layer_cfg['layer'])}")
    path = tmp_path / "town.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_town_without_nhesp_layers_says_habitats_not_checked(plugin, tmp_path):
    """No NHESP or vernal pool layer in the town config: the habitat finding is not checked,
    HABITATS_FOUND is NULL (never False), and no habitat output reads as "none"."""
    import processing

    config = _town_config_without(tmp_path, {"nhesp_priority", "nhesp_estimated",
                                             "vernal_pools"})
    fb = recording_feedback()
    r = processing.run("swm_gis:sitescreening", {
        "SITE": site("site"), "TOWN_CONFIG": str(config), "OUTPUT": "memory:",
        "OUTPUT_FOLDER": str(tmp_path / "o")}, feedback=fb)
    assert r["HABITATS_STATUS"] == "not_checked"
    assert r["HABITATS_FOUND"] is None
    assert r["PERMIT_REQUIRED"] is True  # the rest still runs
    title = "NHESP habitats and certified vernal pools within 500 ft"
    assert f"{title}: not checked - Not checked: no NHESP priority or estimated habitat and no " \
        "certified vernal pool layer configured." in fb.lines
    assert ("NHESP habitats and certified vernal pools within 500 ft: not checked - Not "
            "checked: no NHESP") in r["FINDINGS"]


@pytest.mark.parametrize(("engine", "said"), [
    ("FINDINGS_ENGINE", "'findings'"),  # a manifest without findings
    ("NO_MANIFEST_ENGINE", "without a result manifest"),  # an engine before the manifest
])
def test_an_engine_without_findings_is_refused_as_too_old(plugin, tmp_path, monkeypatch,
                                                          engine, said):
    """A result manifest without ``findings``, or no manifest at all (an engine older than
    either): the run stops saying the engine is too old and how to reinstall it; no status is
    guessed, and screening.json is never read instead."""
    import processing
    from qgis.core import QgsProcessingException

    doc = {"disturbance": {"area_sqft": 20000.0, "area_acres": 0.459,
                           "common_plan_area_sqft": None, "permit_required": False,
                           "exemption": None, "reasons": []}, "checks": []}
    (tmp_path / "doc.json").write_text(json.dumps(doc), encoding="utf-8")
    fake = tmp_path / "swm-gis"
    fake.write_text(globals()[engine].format(python=sys.executable,
                                             doc=str(tmp_path / "doc.json")), encoding="utf-8")
    fake.chmod(0o755)
    monkeypatch.setenv("SWM_GIS_EXECUTABLE", str(fake))
    with pytest.raises(QgsProcessingException) as err:
        processing.run("swm_gis:disturbancetrigger", {
            "SITE": site("site_small"), "OUTPUT": "memory:",
            "OUTPUT_FOLDER": str(tmp_path / "out")})
    message = str(err.value)
    assert "too old" in message and said in message
    assert "Reinstall the engine" in message and "Set up the swm-gis engine" in message


def test_empty_outputs_are_not_loaded(plugin, tmp_path):
    """No common plan given: its (empty) layer is not added to the project; the site is."""
    import processing
    from qgis.core import QgsProcessingContext, QgsProcessingOutputLayerDefinition, QgsProject

    context = QgsProcessingContext()
    context.setProject(QgsProject.instance())
    params = {"SITE": site("site"), "OUTPUT_FOLDER": str(tmp_path / "o"),
              "OUTPUT": QgsProcessingOutputLayerDefinition("TEMPORARY_OUTPUT",
                                                           QgsProject.instance()),
              "COMMON_PLAN_OUTPUT": QgsProcessingOutputLayerDefinition(
                  "TEMPORARY_OUTPUT", QgsProject.instance())}
    processing.run("swm_gis:disturbancetrigger", params, context=context)
    to_load = context.layersToLoadOnCompletion()
    assert [d.outputName for d in to_load.values()] == ["OUTPUT"]


def test_abutters_and_applicability_logs_are_short_and_typed(plugin, tmp_path):
    """The two other algorithms on the sample town: the README's abutters subject with the
    assessing table and town line; the applicability map from the town config."""
    import processing
    from qgis.core import QgsProcessingFeatureSourceDefinition, QgsProject, QgsVectorLayer

    parcels = QgsVectorLayer(layer("parcels"), "Parcels", "ogr")
    QgsProject.instance().addMapLayer(parcels)
    try:
        parcels.selectByExpression("\"LOC_ID\" = 'M_236682_917765'")
        fb = recording_feedback()
        r = processing.run("swm_gis:abutters", {"TOWN_NAME": "Sampleton",
            "PARCELS": parcels, "ASSESS": layer("assess"),
            "TOWN_BOUNDARY": layer("town_boundary"),
            "SUBJECT": QgsProcessingFeatureSourceDefinition(parcels.id(), True),
            "OUTPUT": "memory:", "OUTPUT_FOLDER": str(tmp_path / "abutters")}, feedback=fb)
    finally:
        QgsProject.instance().removeMapLayer(parcels.id())
    _check_typed("abutters", r)
    assert r["HEADLINE"].startswith(f"{r['ABUTTER_COUNT']} abutting parcel(s) within 100 ft")
    assert len(fb.lines) < MAX_LOG_LINES and cli_language("\n".join(fb.lines)) == []
    assert not [w for w in fb.warnings if "no mailing address" in w]

    fb = recording_feedback()
    r = processing.run("swm_gis:applicabilitymap", {
        "TOWN_CONFIG": str(SAMPLE / "town.toml"), "OUTPUT": "memory:"}, feedback=fb)
    _check_typed("applicabilitymap", r)
    assert len(fb.lines) < MAX_LOG_LINES and cli_language("\n".join(fb.lines)) == []


#: A stand-in engine that writes ``findings``: it copies a prepared screening.json into --out
#: and reports its result line with the manifest the engine builds (swm_gis/manifest.py).
FINDINGS_ENGINE = """#!{python}
import json, os, shutil, sys
args = sys.argv[1:]
out = args[args.index("--out") + 1]
os.makedirs(out, exist_ok=True)  # the engine makes its --out folder (the plugin no longer does)
shutil.copy({doc!r}, out + "/screening.json")
doc = json.load(open({doc!r}))
files = [{{"key": "screening_json", "path": out + "/screening.json", "role": "record",
          "format": "json", "title": "The screening"}}]
manifest = {{"version": 1, "command": "screen", "out_dir": out, "files": files,
             "counts": {{"area_sqft": doc["disturbance"]["area_sqft"]}}, "warnings": [],
             "findings": doc.get("findings", []), "details": doc, "summary": [],
             "headline": ""}}
print(json.dumps({{"type": "result", "command": "screen", "outputs": {{}},
                  "manifest": manifest}}), flush=True)
"""

#: A stand-in engine from before the manifest: the result line has only "outputs".
NO_MANIFEST_ENGINE = """#!{python}
import json, os, shutil, sys
args = sys.argv[1:]
out = args[args.index("--out") + 1]
os.makedirs(out, exist_ok=True)  # the engine makes its --out folder
shutil.copy({doc!r}, out + "/screening.json")
print(json.dumps({{"type": "result", "command": "screen", "outputs": {{}}}}), flush=True)
"""


def test_statuses_come_from_the_engines_findings_list(plugin, tmp_path, monkeypatch):
    """With ``findings`` in screening.json every status output and log line is the engine's,
    whole and in its own words (documents name no command-line flag)."""
    import processing

    findings = [
        {"key": "disturbance", "title": "Stormwater Management Permit", "status": "conditional",
         "answer": ("Under 1 acre; no larger common plan of development was given, so "
                    "required if part of a larger plan."),
         "section": "320-3", "layers_used": [], "layers_missing": [], "caveats": []},
        {"key": "habitats", "title": "NHESP habitats within 500 ft", "status": "not_checked",
         "answer": "No habitat layer given.", "section": "320-20", "layers_used": [],
         "layers_missing": ["nhesp_priority"], "caveats": []},
        {"key": "floodplain", "title": "Floodplain (SFHA)", "status": "no",
         "answer": "The site is outside the SFHA.", "section": "320-19",
         "layers_used": ["flood_zones"], "layers_missing": [], "caveats": []},
    ]
    doc = {"disturbance": {"area_sqft": 20000.0, "area_acres": 0.459,
                           "common_plan_area_sqft": None, "permit_required": False,
                           "exemption": None, "reasons": []},
           "checks": [], "findings": findings}
    (tmp_path / "doc.json").write_text(json.dumps(doc), encoding="utf-8")
    fake = tmp_path / "swm-gis"
    fake.write_text(FINDINGS_ENGINE.format(python=sys.executable,
                                           doc=str(tmp_path / "doc.json")), encoding="utf-8")
    fake.chmod(0o755)
    monkeypatch.setenv("SWM_GIS_EXECUTABLE", str(fake))
    fb = recording_feedback()
    r = processing.run("swm_gis:sitescreening", {
        "SITE": site("site_small"), "PARCELS": layer("parcels"), "OUTPUT": "memory:",
        "TOWN_NAME": "Sampleton", "OUTPUT_FOLDER": str(tmp_path / "out")}, feedback=fb)
    assert r["DISTURBANCE_STATUS"] == "conditional"
    assert r["HABITATS_STATUS"] == "not_checked"
    assert r["FLOODPLAIN_STATUS"] == "no"
    assert r["RECEIVING_WATERS_STATUS"] == ""  # the engine reported no such finding
    assert r["HEADLINE"] == ("Under 1 acre; no larger common plan of development was given, so "
                             "required if part of a larger plan.")
    assert "NHESP habitats within 500 ft: not checked - No habitat layer given." in fb.lines
    # issue 35: the layer by its dialog label, never its config key
    assert "Not given, so not checked: 'NHESP Priority Habitats of Rare Species'" in fb.lines
    assert cli_language("\n".join(fb.lines) + "\n".join(
        v for v in r.values() if isinstance(v, str))) == []

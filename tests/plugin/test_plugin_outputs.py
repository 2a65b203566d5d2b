"""Issue 35, the outputs: the plugin hands the engine the user's own files (a copy only of a
selection), the engine writes the chosen folder itself, and the outputs in QGIS equal the
command line's byte for byte (the same town config, the same subject) on the sample town and on
Cambridge; only the run-time fields of abutters.json (dates, paths, durations) differ."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from support.plugin_kit import ENGINE, SAMPLE, engine_env

pytestmark = [pytest.mark.qgis, pytest.mark.slow]

SITE = f"{SAMPLE / 'sites.gpkg'}|layername=site"
PARCELS = f"{SAMPLE / 'sample.gpkg'}|layername=parcels"
#: The files compared byte for byte (labels.pdf by its text: a PDF carries its creation time).
SAME_BYTES = ("mailing_list.csv", "abutting_parcels.csv", "left_out.csv", "mailing_review.csv")
#: abutters.json's run-time fields: when it ran, how long, where it wrote and read the config.
RUN_TIME = {"generated", "generated_at", "created", "duration_s", "elapsed_s", "out", "outputs",
            "config", "command", "timings"}


def _cli(config: Path, out: Path, *args: str) -> None:
    proc = subprocess.run([ENGINE, "--progress", "none", "abutters", "--config", str(config),
                           *args, "--out", str(out)], capture_output=True, text=True,
                          env=engine_env())
    assert proc.returncode == 0, proc.stderr[-2000:]


def _labels_text(folder: Path) -> str:
    from pypdf import PdfReader

    return "\n".join(p.extract_text() or "" for p in PdfReader(folder / "labels.pdf").pages)


def _without_run_time(value):
    """abutters.json less its run-time fields, at any depth."""
    if isinstance(value, dict):
        return {k: _without_run_time(v) for k, v in value.items() if k not in RUN_TIME}
    if isinstance(value, list):
        return [_without_run_time(v) for v in value]
    return value


def _source(doc: dict, key: str) -> dict:
    return next(s for s in doc["sources"] if s.get("key") == key)


def _assert_same_package(plugin_out: Path, cli_out: Path) -> None:
    for name in SAME_BYTES:
        assert (plugin_out / name).read_bytes() == (cli_out / name).read_bytes(), name
    assert _labels_text(plugin_out) == _labels_text(cli_out)
    ours = json.loads((plugin_out / "abutters.json").read_text(encoding="utf-8"))
    theirs = json.loads((cli_out / "abutters.json").read_text(encoding="utf-8"))
    assert _without_run_time(ours) == _without_run_time(theirs)
    assert not (plugin_out / "qgis_inputs.json").exists()  # the plugin writes no file of its own


def test_sample_town_package_in_qgis_equals_the_command_line_byte_for_byte(plugin, tmp_path):
    import processing

    config = SAMPLE / "town.toml"
    result = processing.run("swm_gis:abutters", {
        "TOWN_CONFIG": str(config), "SUBJECT": PARCELS, "SUBJECT_IDS": "M_236682_917765",
        "OUTPUT": "memory:",
        "OUTPUT_FOLDER": str(tmp_path / "plugin")})
    _cli(config, tmp_path / "cli", "--parcel", "M_236682_917765")
    _assert_same_package(tmp_path / "plugin", tmp_path / "cli")
    assert result["OUTPUT_FOLDER"] == str(tmp_path / "plugin")


def test_cambridge_package_in_qgis_equals_the_command_line_byte_for_byte(plugin, tmp_path,
                                                                          cambridge_config):
    import processing

    processing.run("swm_gis:abutters", {
        "TOWN_CONFIG": str(cambridge_config), "SUBJECT": PARCELS, "SUBJECT_IDS": "9-29",
        "OUTPUT": "memory:",
        "OUTPUT_FOLDER": str(tmp_path / "plugin")})
    _cli(cambridge_config, tmp_path / "cli", "--parcel", "9-29")
    _assert_same_package(tmp_path / "plugin", tmp_path / "cli")


def test_a_selection_is_exported_and_a_whole_layer_passed_as_it_is(plugin, tmp_path):
    """The site layer (one feature) as the subject: as it is, the engine reads the user's
    sites.gpkg; with its feature selected, a copy named by the QGIS layer. The lists are
    equal, and the parcels (no selection) are the user's sample.gpkg in both runs."""
    import processing
    from qgis.core import QgsProcessingFeatureSourceDefinition, QgsProject, QgsVectorLayer

    site = QgsVectorLayer(SITE, "Proposed site", "ogr")
    parcels = QgsVectorLayer(PARCELS, "Parcels", "ogr")
    QgsProject.instance().addMapLayers([site, parcels])
    try:
        site.selectAll()
        runs = {}
        for name, subject in (("whole", site), ("selected", QgsProcessingFeatureSourceDefinition(
                site.id(), True))):
            processing.run("swm_gis:abutters", {
                "TOWN_NAME": "Sampleton (SYNTHETIC)", "PARCELS": parcels, "SUBJECT": subject,
                "OUTPUT": "memory:", "OUTPUT_FOLDER": str(tmp_path / name)})
            runs[name] = json.loads((tmp_path / name / "abutters.json").read_text("utf-8"))
    finally:
        QgsProject.instance().removeMapLayers([site.id(), parcels.id()])
    whole, selected = runs["whole"], runs["selected"]
    assert _source(whole, "site")["file"] == str(SAMPLE / "sites.gpkg")  # the user's own file
    assert _source(whole, "site")["layer"] == "site"
    # the copy (in the run's folder) is named by its QGIS layer alone
    assert _source(selected, "site") == {
        "key": "site", "file": None, "layer": None, "modified": None, "temporary": True,
        "label": "QGIS layer 'Proposed site' (sites.gpkg, layer site; 1 selected feature)"}
    assert "subject.gpkg" not in (tmp_path / "selected" / "abutters.json").read_text("utf-8")
    for doc in (whole, selected):
        src = _source(doc, "parcels")
        assert src["file"] == str(SAMPLE / "sample.gpkg") and "temporary" not in src
        assert src["label"] == "QGIS layer 'Parcels' (sample.gpkg, layer parcels)"
    for name in ("abutting_parcels.csv", "left_out.csv"):
        assert (tmp_path / "whole" / name).read_bytes() == \
            (tmp_path / "selected" / name).read_bytes(), name


def test_a_selected_layer_is_a_temporary_copy_named_by_its_label(plugin, tmp_path):
    """The flood zones with all of them selected: a copy, marked temporary in the config, so
    the outputs name the QGIS layer alone, never the copy's path or date; the parcels (no
    selection) are the user's own file."""
    import processing
    from qgis.core import QgsProcessingFeatureSourceDefinition, QgsProject, QgsVectorLayer

    flood = QgsVectorLayer(f"{SAMPLE / 'sample.gpkg'}|layername=flood_zones", "FEMA NFHL", "ogr")
    QgsProject.instance().addMapLayer(flood)
    try:
        flood.selectAll()
        n = flood.selectedFeatureCount()
        processing.run("swm_gis:sitescreening", {
            "SITE": SITE, "PARCELS": PARCELS, "TOWN_NAME": "Sampleton",
            "FLOOD_ZONES": QgsProcessingFeatureSourceDefinition(flood.id(), True),
            "OUTPUT": "memory:", "OUTPUT_FOLDER": str(tmp_path)})
    finally:
        QgsProject.instance().removeMapLayer(flood.id())
    doc = json.loads((tmp_path / "screening.json").read_text(encoding="utf-8"))
    src = _source(doc["meta"], "flood_zones")
    assert src == {"key": "flood_zones", "file": None, "layer": None, "modified": None,
                   "label": f"QGIS layer 'FEMA NFHL' (sample.gpkg, layer flood_zones; {n} "
                            "selected features)", "temporary": True}
    assert doc["meta"]["config"] == "town.json"  # the run's own folder is never named
    assert "flood_zones.gpkg" not in (tmp_path / "screening.json").read_text(encoding="utf-8")


def test_a_screening_without_parcels_says_the_town_was_not_checked(plugin, tmp_path):
    """No parcels layer: the site no longer stands in for the town, so nothing of the common
    plan is 'outside the town'; the engine says it could not check."""
    import processing

    processing.run("swm_gis:disturbancetrigger", {
        "SITE": SITE, "COMMON_PLAN": f"{SAMPLE / 'sites.gpkg'}|layername=common_plan",
        "OUTPUT": "memory:", "OUTPUT_FOLDER": str(tmp_path)})
    doc = json.loads((tmp_path / "screening.json").read_text(encoding="utf-8"))
    codes = [w["code"] for w in doc["warnings"]]
    assert "town_not_checked" in codes
    assert not [c for c in codes if c.endswith("partly_outside_town")]
    assert not any("lies outside" in w["text"] for w in doc["warnings"])

"""swm_gis:abutters in QGIS: the same abutters and distances as ``swm-gis abutters``."""

from __future__ import annotations

import csv
import json
import subprocess
from pathlib import Path

import pytest
from support.plugin_kit import ENGINE, SAMPLE, M, engine_env

pytestmark = pytest.mark.qgis


def _cli_abutters(block, out: Path, *args: str) -> dict[str, float]:
    cfg = block["folder"] / "cli_town.toml"
    cfg.write_text(
        '[town]\nname = "Test"\ncrs = "EPSG:26986"\n'
        f'[layers.parcels]\npath = "{block["gpkg"]}"\nlayer = "parcels"\n'
        f'[layers.assess]\npath = "{block["gpkg"]}"\nlayer = "assess"\n', encoding="utf-8")
    proc = subprocess.run([ENGINE, "--progress", "none", "abutters", "--config", str(cfg),
                           *args, "--out", str(out), "--overwrite"],
                          capture_output=True, text=True, env=engine_env())
    assert proc.returncode == 0, proc.stderr
    return _csv_distances(out / "abutting_parcels.csv")


def _csv_distances(path: Path) -> dict[str, float]:
    with path.open(encoding="utf-8-sig", newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if r.get("parcel_id") and
                not r["parcel_id"].startswith("#")]
    return {r["parcel_id"]: float(r["distance_ft"]) for r in rows}


def _layer_distances(layer) -> dict[str, float]:
    return {f["parcel_id"]: float(f["distance_ft"]) for f in layer.getFeatures()}


def test_selected_subject_parcel_gives_the_cli_abutters(plugin, block, tmp_path):
    import processing
    from qgis.core import QgsProcessingFeatureSourceDefinition, QgsProject, QgsVectorLayer

    parcels = QgsVectorLayer(block["parcels"], "parcels", "ogr")
    QgsProject.instance().addMapLayer(parcels)
    try:
        parcels.selectByExpression("\"LOC_ID\" = 'P2'")
        result = processing.run("swm_gis:abutters", {"TOWN_NAME": "Sampleton",
            "PARCELS": parcels,
            "ASSESS": block["assess"],
            "SUBJECT": QgsProcessingFeatureSourceDefinition(parcels.id(), True),
            "OUTPUT": "memory:",
            "OUTPUT_FOLDER": str(tmp_path / "package"),
        })
    finally:
        QgsProject.instance().removeMapLayer(parcels.id())
    got = _layer_distances(result["OUTPUT"])
    # by hand: P1, P3 touch the subject; P4-P6 are across the 15 m street (49.2126 ft)
    assert sorted(got) == ["P1", "P3", "P4", "P5", "P6"]
    assert got["P1"] == pytest.approx(0.0, abs=1e-6)
    assert got["P5"] == pytest.approx(15 * M, abs=0.01)
    cli = _cli_abutters(block, tmp_path / "cli", "--parcel", "P2")
    assert got == pytest.approx(cli, abs=0.005)  # the CSV rounds to 0.01 ft
    package = tmp_path / "package"
    for name in ("abutting_parcels.csv", "mailing_list.csv", "mailing_list.xlsx", "labels.pdf",
                 "abutters_map.pdf", "certified_mail.pdf", "left_out.csv", "abutters.gpkg"):
        assert (package / name).is_file(), name
    # the plugin's package holds every file the CLI's does (certification.pdf,
    # mailing_review.csv, abutters.json as the engine writes them), each as a file output
    # (mapped from the manifest's roles: tests/plugin/test_plugin_manifest.py)
    from swm_gis_qgis.algorithms.abutters import FILE_OUTPUTS

    cli_files = {p.name for p in (tmp_path / "cli").iterdir() if not p.name.startswith(".")}
    assert cli_files <= {p.name for p in package.iterdir()}
    outputs = {Path(result[name]).name for name, _role, _desc in FILE_OUTPUTS}
    assert all(Path(result[name]).parent == package for name, _r, _d in FILE_OUTPUTS)
    assert outputs == cli_files - {"qgis_inputs.json"}
    assert result["MAILING_LIST_CSV"] == str(package / "mailing_list.csv")
    assert result["ABUTTER_COUNT"] == 5
    # every owner of the block has an address: none cannot be mailed, when the engine says so
    assert result["UNMAILABLE_COUNT"] in (0, None)
    if result["UNMAILABLE_COUNT"] == 0:
        assert result["HEADLINE"].endswith("; every recipient has a mailing address.")


def _sample_cli(out: Path, *args: str) -> dict[str, float]:
    proc = subprocess.run([ENGINE, "--progress", "none", "abutters", "--config",
                           str(SAMPLE / "town.toml"), *args, "--out", str(out)],
                          capture_output=True, text=True, env=engine_env())
    assert proc.returncode == 0, proc.stderr[-2000:]
    return _csv_distances(out / "abutting_parcels.csv")


def test_owners_without_an_address_are_counted_in_the_headline(plugin, tmp_path):
    """One abutter's owner has no mailing address: the headline and UNMAILABLE_COUNT say it
    (the engine's manifest counts) and a warning names the review list; the CLI's package and
    the plugin's have the same files."""
    import processing
    from support.plugin_kit import ASSESS_FIELDS, recording_feedback, square, write_layer

    gpkg = tmp_path / "block.gpkg"
    parcels = write_layer(gpkg, "parcels", "Polygon",
                          [("LOC_ID", "str"), ("MAP_PAR_ID", "str"), ("TOWN_ID", "str"),
                           ("POLY_TYPE", "str")],
                          [(square(60 * i, 0, 60, 60), [f"Q{i}", f"M-Q{i}", "164", "FEE"])
                           for i in range(3)])
    owners = {"Q0": ("ANN ASH", "1 ELM ST"), "Q1": ("BEN BIRCH", "2 ELM ST"),
              "Q2": ("CAL CEDAR", "")}
    assess = write_layer(gpkg, "assess", "None", ASSESS_FIELDS,
                         [(None, [pid, o, a, "LYNNFIELD" if a else "", "MA" if a else "",
                                  "01940" if a else "", a, 2026])
                          for pid, (o, a) in owners.items()], crs=None)
    fb = recording_feedback()
    r = processing.run("swm_gis:abutters", {"TOWN_NAME": "Sampleton",
        "PARCELS": parcels, "ASSESS": assess, "SUBJECT": parcels, "SUBJECT_IDS": "Q1",
        "OUTPUT": "memory:", "OUTPUT_FOLDER": str(tmp_path / "package")}, feedback=fb)
    assert r["ABUTTER_COUNT"] == 2
    package = tmp_path / "package"
    if (package / "abutters.json").exists() or (package / "mailing_review.csv").exists():
        assert r["UNMAILABLE_COUNT"] == 1
        assert "; 1 cannot be mailed (no or incomplete address)." in r["HEADLINE"]
        assert any("mailing_review.csv" in w for w in fb.warnings)
    else:  # an engine without the review list: not known, and not said to be none
        assert r["UNMAILABLE_COUNT"] is None
        assert "cannot be mailed" not in r["HEADLINE"]
        assert "every recipient" not in r["HEADLINE"]


def _csv_rows(path: Path) -> list[dict]:
    """The table's rows and the notes after it, less the notes naming the source files (the
    plugin's are temporary exports) and the time of the run."""
    with path.open(encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.reader(fh))
    return [r for r in rows
            if not (r and (r[0].startswith(("# Source ", "# SYNTHETIC"))
                           or " Generated " in r[0]))]


@pytest.mark.slow
@pytest.mark.parametrize("subject", ["M_236682_917765", "M_239438_916517"])
def test_sample_town_selection_equals_the_cli(plugin, subject, tmp_path):
    """README subjects: a house lot next to a ROW and a condominium; one by the town line."""
    import processing
    from qgis.core import QgsProcessingFeatureSourceDefinition, QgsProject, QgsVectorLayer

    parcels = QgsVectorLayer(f"{SAMPLE / 'sample.gpkg'}|layername=parcels", "parcels", "ogr")
    QgsProject.instance().addMapLayer(parcels)
    try:
        parcels.selectByExpression(f"\"LOC_ID\" = '{subject}'")
        assert parcels.selectedFeatureCount() == 1
        result = processing.run("swm_gis:abutters", {
            "PARCELS": parcels,
            "ASSESS": f"{SAMPLE / 'sample.gpkg'}|layername=assess",
            # the sample keeps its co-owners in OWNER2, as its town.toml maps them; OWN_CO is
            # the owner's country, the dialog's L3 default
            "CO_OWNER_FIELD": "OWNER2",
            "TOWN_BOUNDARY": f"{SAMPLE / 'sample.gpkg'}|layername=town_boundary",
            "SUBJECT": QgsProcessingFeatureSourceDefinition(parcels.id(), True),
            "TOWN_NAME": "Sampleton (SYNTHETIC)",
            "OUTPUT": "memory:", "OUTPUT_FOLDER": str(tmp_path / "plugin")})
    finally:
        QgsProject.instance().removeMapLayer(parcels.id())
    got = _layer_distances(result["OUTPUT"])
    cli = _sample_cli(tmp_path / "cli", "--parcel", subject)
    assert got == pytest.approx(cli, abs=0.005)
    assert max(got.values()) <= 100.0
    plugin_mail = _csv_rows(tmp_path / "plugin" / "mailing_list.csv")
    cli_mail = _csv_rows(tmp_path / "cli" / "mailing_list.csv")
    assert plugin_mail == cli_mail
    doc = json.loads((tmp_path / "plugin" / "abutters.json").read_text(encoding="utf-8"))
    parcels = next(s for s in doc["sources"] if s["key"] == "parcels")
    # the whole parcels layer (the selection only chose the subject): the user's own file
    assert parcels["file"] == str(SAMPLE / "sample.gpkg") and parcels["layer"] == "parcels"
    assert parcels["label"] == "QGIS layer 'parcels' (sample.gpkg, layer parcels)"
    blank = cli_mail.index([]) if [] in cli_mail else len(cli_mail)
    assert result["RECIPIENT_COUNT"] == blank - 1 > 0  # rows before the notes, less the header


@pytest.mark.slow
def test_sample_town_site_layer_as_subject_equals_cli_site(plugin, tmp_path):
    import processing

    site = f"{SAMPLE / 'sites.gpkg'}|layername=site"
    result = processing.run("swm_gis:abutters", {"TOWN_NAME": "Sampleton",
        "PARCELS": f"{SAMPLE / 'sample.gpkg'}|layername=parcels", "SUBJECT": site,
        "DISTANCE": 250, "OUTPUT": "memory:"})
    got = _layer_distances(result["OUTPUT"])
    cli = _sample_cli(tmp_path / "cli", "--site", f"{SAMPLE / 'sites.gpkg'}:site",
                      "--distance", "250ft")
    assert got == pytest.approx(cli, abs=0.005)
    assert any(d > 100 for d in got.values()) and max(got.values()) <= 250.0


def test_the_zoning_list_sorted_by_map_lot_equals_the_cli(plugin, tmp_path):
    """NOTICE zoning and SORT map-lot: the same parties in interest, in the same order, and
    the same mailing list as ``swm-gis abutters --notice zoning --sort map-lot``; the headline
    names the statute, not the distance field (which the zoning list does not use)."""
    import processing
    from qgis.core import QgsProcessingFeatureSourceDefinition, QgsProject, QgsVectorLayer

    parcels = QgsVectorLayer(f"{SAMPLE / 'sample.gpkg'}|layername=parcels", "parcels", "ogr")
    QgsProject.instance().addMapLayer(parcels)
    try:
        parcels.selectByExpression("\"LOC_ID\" = 'M_236682_917765'")
        result = processing.run("swm_gis:abutters", {
            "PARCELS": parcels, "ASSESS": f"{SAMPLE / 'sample.gpkg'}|layername=assess",
            "CO_OWNER_FIELD": "OWNER2",
            "TOWN_BOUNDARY": f"{SAMPLE / 'sample.gpkg'}|layername=town_boundary",
            "SUBJECT": QgsProcessingFeatureSourceDefinition(parcels.id(), True),
            "TOWN_NAME": "Sampleton (SYNTHETIC)", "NOTICE": 1, "SORT": 3, "DISTANCE": 100,
            "OUTPUT": "memory:", "OUTPUT_FOLDER": str(tmp_path / "plugin")})
    finally:
        QgsProject.instance().removeMapLayer(parcels.id())
    cli = _sample_cli(tmp_path / "cli", "--parcel", "M_236682_917765", "--notice", "zoning",
                      "--sort", "map-lot")
    assert _layer_distances(result["OUTPUT"]) == pytest.approx(cli, abs=0.005)
    assert max(cli.values()) > 100  # the abutter's abutter at 115.76 ft
    ours = [r[0] for r in _csv_rows(tmp_path / "plugin" / "abutting_parcels.csv")]
    assert ours == [r[0] for r in _csv_rows(tmp_path / "cli" / "abutting_parcels.csv")]
    assert _csv_rows(tmp_path / "plugin" / "mailing_list.csv") == _csv_rows(
        tmp_path / "cli" / "mailing_list.csv")
    assert "among the parties in interest (M.G.L. c.40A s.11)" in result["HEADLINE"]


def test_the_output_is_styled_when_loaded(plugin, block):
    import processing
    from qgis.core import QgsProject

    processing.runAndLoadResults("swm_gis:abutters", {"TOWN_NAME": "Sampleton",
        "PARCELS": block["parcels"], "SUBJECT": block["parcels"], "SUBJECT_IDS": "P2",
        "OUTPUT": "TEMPORARY_OUTPUT"})
    loaded = QgsProject.instance().mapLayersByName("Abutting parcels")
    try:
        assert len(loaded) == 1
        renderer = loaded[0].renderer()
        assert renderer.type() == "graduatedSymbol"
        assert renderer.classAttribute() == "distance_ft"
        assert loaded[0].labelsEnabled()
    finally:
        QgsProject.instance().removeMapLayers([layer.id() for layer in loaded])


def test_distance_include_subject_and_a_rerun_into_the_same_folder(plugin, block, tmp_path):
    """Batch mode runs an algorithm again and again: the same folder is simply replaced."""
    import processing

    params = {"PARCELS": block["parcels"], "ASSESS": block["assess"], "SUBJECT": block["parcels"],
              "SUBJECT_IDS": "P2", "TOWN_NAME": "Sampleton",
              "OUTPUT": "memory:", "OUTPUT_FOLDER": str(tmp_path / "same")}
    first = _layer_distances(processing.run("swm_gis:abutters", params)["OUTPUT"])
    wider = processing.run("swm_gis:abutters", {**params, "DISTANCE": 250,
                                                "INCLUDE_SUBJECT": True, "LABEL_TEMPLATE": 1,
                                                "LABEL_OFFSET": "0.03,-0.05",
                                                "SENDER": "Conservation Commission\n"
                                                          "55 Summer St\nLynnfield MA 01940"})
    got = _layer_distances(wider["OUTPUT"])
    assert sorted(first) == ["P1", "P3", "P4", "P5", "P6"]
    # P8 is sqrt(60^2 + 15^2) m = 202.93 ft from P2; P7 is 240 m away; P2 is the subject
    assert sorted(got) == ["P1", "P2", "P3", "P4", "P5", "P6", "P8"]
    assert got["P8"] == pytest.approx((60**2 + 15**2) ** 0.5 * M, abs=0.01)
    assert got["P2"] == 0.0
    assert wider["ABUTTER_COUNT"] == 7


@pytest.mark.parametrize(("details", "said"), [
    ({"ownable": 5, "examples": ["P1", "P3", "P4"]},
     "None of the 5 abutting parcel(s) (e.g. P1, P3, P4) has an owner record"),
    ({"ownable": 2, "examples": []}, "None of the 2 abutting parcel(s) (e.g. none) has an owner "
                                     "record"),
    ({"ownable": 3, "examples": ["F_1"], "fields_that_join": [
        {"table": "parcels", "field": "ML", "holds": 535, "key": "layers.parcels.fields",
         "name": "id"}]},
     "None of the 3 abutting parcel(s) (e.g. F_1) has an owner record in the assessing table, "
     "so the notice would go to no one. The parcels' field ML holds 535 of the assessing ids: "
     'set [layers.parcels.fields] id = "ML" in the town config.'),
])
def test_the_engines_owner_join_refusal_is_read_by_its_class(plugin, details, said):
    """The refusal is recognised by the engine's error class (OwnerJoinError), not its words;
    its count and first ids come from the error's ``details``, never parsed from its text."""
    from swm_gis_qgis.algorithms import abutters
    from swm_gis_qgis.engine import EngineError

    class UserConfig:  # the user gave a town config: the fields are named as in it
        def town_config(self):
            return "town.toml"

    message = "None of the abutting parcels joins (words the plugin does not read)"
    alg = abutters.AbuttersAlgorithm()
    text = alg.engine_refusal(EngineError(message, kind="OwnerJoinError", details=details),
                              UserConfig())
    assert text.startswith(said)
    assert "the parcel id field and the assessing table's parcel id field" in text
    assert alg.engine_refusal(EngineError(message, kind="ValueError", details=details),
                              None) is None


def test_a_certified_list_is_never_made_for_an_unnamed_town(plugin, block, tmp_path):
    """The certification and the mailing book print the town's name: with no name and no town
    config the run is refused before it starts (nothing written), and the name given is the
    one the certification prints. The project's title is never taken for it."""
    import processing
    from pypdf import PdfReader
    from qgis.core import QgsProcessingException, QgsProject

    params = {"PARCELS": block["parcels"], "ASSESS": block["assess"], "SUBJECT": block["parcels"],
              "SUBJECT_IDS": "P2", "OUTPUT": "memory:", "OUTPUT_FOLDER": str(tmp_path / "pkg")}
    QgsProject.instance().setTitle("Conservation screening 2026")
    try:
        with pytest.raises(QgsProcessingException) as exc:
            processing.run("swm_gis:abutters", params)
    finally:
        QgsProject.instance().setTitle("")
    assert str(exc.value).endswith(
        "Name the town the reports are for: fill in 'Town name on the reports', or choose a "
        "town config file (it names the town). The reports' first lines print it.")
    assert not (tmp_path / "pkg").exists()
    processing.run("swm_gis:abutters", {**params, "TOWN_NAME": "Blockton"})
    text = "".join(p.extract_text() for p in
                   PdfReader(str(tmp_path / "pkg" / "certification.pdf")).pages)
    assert "Blockton" in text
    assert "not set" not in text and "not named" not in text

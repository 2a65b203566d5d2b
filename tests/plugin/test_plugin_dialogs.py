"""Parameters that cannot mislead (issue 17): the selection trap, unmapped address fields, a
missing assessing table, messages in the dialog's words, the dialogs themselves.

The hand-made block of ``conftest.block``: subject P2; P1 and P3 touch it, P4-P6 are across the
15 m street (49.2126 ft), P7 and P8 are beyond 100 ft; R1 is the street (left out).
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest
from support.plugin_kit import ROOT, cli_language, recording_feedback, write_layer

pytestmark = pytest.mark.qgis

ABUTTERS = ["P1", "P3", "P4", "P5", "P6"]
ARTEFACTS = ROOT / "test-artefacts" / "dialogs"


@pytest.fixture
def parcels_layer(block):
    """The parcels as a project layer with P2 selected."""
    from qgis.core import QgsProject, QgsVectorLayer

    layer = QgsVectorLayer(block["parcels"], "Town parcels", "ogr")
    QgsProject.instance().addMapLayer(layer)
    layer.selectByExpression("\"LOC_ID\" = 'P2'")
    assert layer.selectedFeatureCount() == 1
    yield layer
    QgsProject.instance().removeMapLayer(layer.id())


def _abutters(params: dict, feedback=None) -> dict:
    import processing

    return processing.run("swm_gis:abutters", {"TOWN_NAME": "Sampleton", "OUTPUT": "memory:",
                                                **params},
                          feedback=feedback)


def _ids(result) -> list[str]:
    return sorted(f["parcel_id"] for f in result["OUTPUT"].getFeatures())


# ----------------------------------------------------------------------- the selection trap
def test_selection_under_subject_only_gives_the_abutters(plugin, parcels_layer, tmp_path):
    from qgis.core import QgsProcessingFeatureSourceDefinition as Sel

    fb = recording_feedback()
    r = _abutters({"PARCELS": parcels_layer, "SUBJECT": Sel(parcels_layer.id(), True),
                   "OUTPUT_FOLDER": str(tmp_path / "out")}, fb)
    assert _ids(r) == ABUTTERS
    assert r["ABUTTER_COUNT"] == 5
    assert not [w for w in fb.warnings if "selection" in w.lower()]


def test_selection_under_both_never_narrows_the_search(plugin, parcels_layer, tmp_path):
    """Ticked under Parcels too: before, 0 abutters and 0 recipients with no warning."""
    from qgis.core import QgsProcessingFeatureSourceDefinition as Sel

    fb = recording_feedback()
    r = _abutters({"PARCELS": Sel(parcels_layer.id(), True),
                   "SUBJECT": Sel(parcels_layer.id(), True),
                   "OUTPUT_FOLDER": str(tmp_path / "out")}, fb)
    assert _ids(r) == ABUTTERS
    said = [w for w in fb.warnings if "selection" in w.lower()]
    assert len(said) == 1 and "not used" in said[0] and "Parcels (tax parcel polygons)" in said[0]
    assert parcels_layer.selectedFeatureCount() == 1  # the user's selection is left alone


def test_selection_under_parcels_only_is_refused_in_one_sentence(plugin, parcels_layer):
    """Before: a 54,115-character error listing every parcel id."""
    from qgis.core import QgsProcessingException
    from qgis.core import QgsProcessingFeatureSourceDefinition as Sel

    with pytest.raises(QgsProcessingException) as err:
        _abutters({"PARCELS": Sel(parcels_layer.id(), True), "SUBJECT": parcels_layer})
    message = str(err.value)
    assert len(message) < 300, message
    assert message.count(". ") == 0 and message.endswith(".")  # one sentence
    assert "Selected features only" in message and "Subject property" in message
    assert not re.search(r"\bP[1-8]\b", message)  # no list of parcel ids
    assert cli_language(message) == []


# ----------------------------------------------------------------------- field mappings
@pytest.fixture
def cambridge_style_assess(block, tmp_path):
    """An assessing table with Cambridge-style column names (no OWN_ADDR, OWN_CITY, ...)."""
    fields = [("LOC_ID", "str"), ("OWNER1", "str"), ("Owner_Address", "str"),
              ("Owner_City", "str"), ("Owner_State", "str"), ("Owner_Zip", "str")]
    rows = [(None, [pid, f"OWNER {pid}", f"{n} MAIN ST", "CAMBRIDGE", "MA", "02139"])
            for n, pid in enumerate(["P1", "P2", "P3", "P4", "P5", "P6", "P7", "P8"], 1)]
    return write_layer(tmp_path / "assess.gpkg", "assess", "None", fields, rows, crs=None)


def test_unmapped_address_fields_stop_the_run_naming_the_parameter(plugin, block,
                                                                   cambridge_style_assess):
    """Before: "20 recipient(s)", every address blank."""
    from qgis.core import QgsProcessingException

    with pytest.raises(QgsProcessingException) as err:
        _abutters({"PARCELS": block["parcels"], "SUBJECT": block["parcels"],
                   "SUBJECT_IDS": "P2", "ASSESS": cambridge_style_assess})
    message = str(err.value)
    assert "'Assessing: owner mailing address field'" in message
    assert "has no field 'OWN_ADDR'" in message and "Owner_Address" in message
    assert "Advanced Parameters" in message
    assert "OWNER_ADDRESS_FIELD" not in message and cli_language(message) == []


def test_mapped_address_fields_fill_the_mailing_list(plugin, block, cambridge_style_assess,
                                                     tmp_path):
    r = _abutters({"PARCELS": block["parcels"], "SUBJECT": block["parcels"], "SUBJECT_IDS": "P2",
                   "ASSESS": cambridge_style_assess, "OWNER_ADDRESS_FIELD": "Owner_Address",
                   "OWNER_CITY_FIELD": "Owner_City", "OWNER_STATE_FIELD": "Owner_State",
                   "OWNER_ZIP_FIELD": "Owner_Zip", "OUTPUT_FOLDER": str(tmp_path / "out")})
    with open(r["MAILING_LIST_CSV"], encoding="utf-8-sig", newline="") as fh:
        rows = [row for row in csv.DictReader(fh) if (row["owner_name"] or "").startswith("OWNER")]
    assert r["RECIPIENT_COUNT"] == 5 == len(rows)
    assert sorted(row["mail_address"] for row in rows) == [
        "1 MAIN ST", "3 MAIN ST", "4 MAIN ST", "5 MAIN ST", "6 MAIN ST"]
    assert {row["mail_city"] for row in rows} == {"CAMBRIDGE"}


def test_a_parcel_id_that_looks_like_an_option_stays_an_id(plugin, block):
    """Hostile input: an id starting with '--' is handed to the engine as a value."""
    from qgis.core import QgsProcessingException

    with pytest.raises(QgsProcessingException) as err:
        _abutters({"PARCELS": block["parcels"], "SUBJECT": block["parcels"],
                   "SUBJECT_IDS": "--include-subject"})
    assert "not found" in str(err.value)  # looked up as an id, not obeyed as an option
    assert "Traceback" not in str(err.value)


def test_no_assessing_table_is_a_warning_that_no_mailing_list_is_made(plugin, block, tmp_path):
    fb = recording_feedback()
    r = _abutters({"PARCELS": block["parcels"], "SUBJECT": block["parcels"], "SUBJECT_IDS": "P2",
                   "OUTPUT_FOLDER": str(tmp_path / "out")}, fb)
    assert _ids(r) == ABUTTERS
    said = [w for w in fb.warnings if "mailing list" in w]
    assert len(said) == 1 and "no mailing list" in said[0] and "Assessing table" in said[0]
    assert r["RECIPIENT_COUNT"] == 0


# ----------------------------------------------------------------------- provenance
def test_outputs_name_the_qgis_layers_not_the_temporary_exports(plugin, parcels_layer, block,
                                                                tmp_path):
    from qgis.core import QgsProcessingFeatureSourceDefinition as Sel

    out = tmp_path / "out"
    _abutters({"PARCELS": parcels_layer, "SUBJECT": Sel(parcels_layer.id(), True),
               "ASSESS": block["assess"], "OUTPUT_FOLDER": str(out)})
    texts = {p.name: p.read_text(encoding="utf-8") for p in out.iterdir()
             if p.suffix in (".csv", ".json", ".html")}
    assert texts
    for name, text in texts.items():
        assert "processing_" not in text and "swm_gis_abutters_" not in text, name
    # the CSVs are plain tables (a mail merge reads them as they are): the provenance is in the
    # workbook's Certification sheet (and certification.pdf)
    assert texts["abutting_parcels.csv"].lstrip("\ufeff").startswith("parcel_id,")
    import openpyxl

    book = openpyxl.load_workbook(out / "mailing_list.xlsx")
    cells = [str(c.value) for ws in book.worksheets for row in ws.iter_rows() for c in row
             if c.value is not None]
    assert not [c for c in cells if "processing_" in c]
    assert any("QGIS layer 'Town parcels'" in c for c in cells)


# ----------------------------------------------------------------------- messages, help
def test_engine_messages_come_in_the_dialogs_words(plugin, block):
    """An engine error (unknown parcel id) keeps its content, loses flags and temp paths."""
    from qgis.core import QgsProcessingException

    with pytest.raises(QgsProcessingException) as err:
        _abutters({"PARCELS": block["parcels"], "SUBJECT": block["parcels"],
                   "SUBJECT_IDS": "NO-SUCH-LOT"})
    message = str(err.value)
    assert "NO-SUCH-LOT" in message
    assert cli_language(message) == [] and "\n" not in message and len(message) <= 600


def test_every_algorithm_has_a_help_page_section(plugin):
    from qgis.core import QgsApplication
    from qgis.PyQt.QtCore import QUrl

    provider = QgsApplication.processingRegistry().providerById("swm_gis")
    for alg in provider.algorithms():
        url = QUrl(alg.helpUrl())
        page = Path(url.toLocalFile())
        assert page.is_file(), alg.name()
        assert f'id="{url.fragment()}"' in page.read_text(encoding="utf-8"), alg.name()
        assert url.fragment() == alg.name()


def test_labels_are_true_and_units_fit(plugin):
    from qgis.core import QgsApplication
    from qgis.core import QgsProcessingParameterDefinition as Def

    provider = QgsApplication.processingRegistry().providerById("swm_gis")
    for alg in provider.algorithms():
        for p in alg.parameterDefinitions():
            assert "(optional)" not in p.description(), (alg.name(), p.name())
            if p.name() == "DISTANCE":
                assert p.description() == "Distance (ft)"
                assert p.metadata()["widget_wrapper"]["decimals"] == 1
            if p.name() == "TOWN_NAME":
                assert p.defaultValue() in ("", None)  # not "Lynnfield" for any data
            if p.name() == "OUTPUT_FOLDER":
                assert p.createByDefault()  # a temporary folder, not "[Skip output]"
        help_html = alg.shortHelpString()
        for pid in ("SUBJECT_IDS", "OUTPUT_FOLDER", "TOWN_CONFIG", "DISTANCE"):
            assert pid not in help_html, (alg.name(), pid)
    abutters = QgsApplication.processingRegistry().algorithmById("swm_gis:abutters")
    assert not abutters.parameterDefinition("SUBJECT").flags() & Def.FlagOptional
    trigger = QgsApplication.processingRegistry().algorithmById("swm_gis:disturbancetrigger")
    assert trigger.parameterDefinition("PARCELS") is None
    for alg_id in ("habitatscreening", "floodplainoverlap", "mitigationeligibility",
                   "receivingwaters"):  # each single check needs only the layers of its rule
        alg = QgsApplication.processingRegistry().algorithmById(f"swm_gis:{alg_id}")
        parcels = alg.parameterDefinition("PARCELS")
        assert parcels is None or parcels.flags() & Def.FlagOptional, alg_id


def test_site_screening_keeps_the_common_case_out_of_advanced(plugin):
    """Site + town config + the project's own inputs in the main panel; the individual
    reference layers (named by a town config) and every field mapping under Advanced."""
    from qgis.core import QgsApplication
    from qgis.core import QgsProcessingParameterDefinition as Def

    alg = QgsApplication.processingRegistry().algorithmById("swm_gis:sitescreening")
    main = [p.name() for p in alg.parameterDefinitions()
            if not p.flags() & Def.FlagAdvanced and not p.isDestination()]
    assert main[:4] == ["TOWN_CONFIG", "SITE", "PARCELS", "PARCEL_ID_FIELD"]
    assert "PRIORITY_HABITATS" not in main and "OWNER_FIELD" not in main
    assert len(main) <= 10


# ----------------------------------------------------------------------- the dialogs, seen
@pytest.mark.parametrize("alg_id", ["disturbancetrigger", "abutters", "habitatscreening",
                                    "floodplainoverlap", "mitigationeligibility",
                                    "receivingwaters", "sitescreening", "applicabilitymap",
                                    "townsetup", "enginesetup"])
def test_dialog_screenshot(plugin, alg_id, monkeypatch):
    """Each dialog opens offscreen with a Help button; its picture is kept in
    test-artefacts/dialogs/ (gitignored) for a person to look at."""
    import processing.gui.ParametersPanel as panel
    from processing.gui.AlgorithmDialog import AlgorithmDialog

    monkeypatch.setattr(panel, "iface", None)  # pytest-qgis's mock iface has no browser model
    from qgis.core import QgsApplication
    from qgis.PyQt.QtWidgets import QApplication, QDialogButtonBox

    alg = QgsApplication.processingRegistry().algorithmById(f"swm_gis:{alg_id}")
    dialog = AlgorithmDialog(alg.create(), False, None)
    try:
        dialog.resize(900, 1000)
        dialog.show()
        QApplication.processEvents()
        help_button = dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.Help)
        assert help_button is not None and help_button.isEnabled()
        ARTEFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTEFACTS / f"{alg_id}.png"
        assert dialog.grab().save(str(path))
        assert path.stat().st_size > 10_000
    finally:
        dialog.close()
        dialog.deleteLater()


def test_receiving_waters_asks_for_parcels_only_with_the_assessing_table(plugin):
    import processing
    from qgis.core import QgsProcessingException
    from support.plugin_kit import SAMPLE

    gpkg = SAMPLE / "sample.gpkg"
    with pytest.raises(QgsProcessingException) as err:
        processing.run("swm_gis:receivingwaters", {
            "SITE": f"{SAMPLE / 'sites.gpkg'}|layername=site",
            "ORW": f"{gpkg}|layername=orw", "ASSESS": f"{gpkg}|layername=assess",
            "OUTPUT": "memory:"})
    assert str(err.value) == ("Choose 'Parcels (tax parcel polygons)' too: 'Assessing table "
                              "(owners and mailing addresses)' gives the use codes of the "
                              "parcels under the site.")

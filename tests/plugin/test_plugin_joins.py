"""Joins that match nothing stop the run in the dialog's words; no empty list is certified
(issue 26, item 2)."""

from __future__ import annotations

import shutil

import pytest
from support.plugin_kit import ASSESS_FIELDS, ROOT, write_layer

pytestmark = pytest.mark.qgis

CAMBRIDGE = (ROOT / "data" / ".." / ".." / "shared" / "data" / "cambridge").resolve()


def test_the_join_rate_by_hand():
    from swm_gis_qgis import joins

    r = joins.rate(["A", "B", "C", None, ""], ["A", "A", "B", "Z", None])
    assert (r.assess_rows, r.matched_rows, r.parcels, r.matched_parcels) == (4, 3, 3, 2)
    assert r.text() == ("3 of 4 assessing rows (75.0 %) join one of the 3 parcels, and 2 "
                        "parcels have an owner record")
    assert r.parcel_examples == ("A", "B", "C") and r.assess_examples == ("A", "B", "Z")
    assert joins.rate([], ["A"]).share == 0.0


def test_the_fields_that_would_join_best_first():
    from swm_gis_qgis import joins

    columns = {"LOC_ID": ["F_1", "F_2"], "ML": ["1-1", "1-2", "1-3"], "MAP": ["1", "1-3"]}
    assert joins.fields_that_join(columns, ["1-1", "1-2", "1-3", "1-3"]) == [("ML", 3),
                                                                            ("MAP", 1)]
    assert joins.fields_that_join(columns, ["1-1"], skip=["ML"]) == []


@pytest.fixture
def lots(block, tmp_path):
    """The hand-made block, with an assessing table for P2 (the subject), P4 and the far P7."""
    gpkg = tmp_path / "lots.gpkg"
    shutil.copy(block["gpkg"], gpkg)
    rows = [(None, [pid, f"OWNER {pid}", f"{n} ELM ST", "LYNNFIELD", "MA", "01940", "", 2026])
            for n, pid in enumerate(("P2", "P4", "P7"), 1)]
    return {"parcels": f"{gpkg}|layername=parcels",
            "assess": write_layer(gpkg, "some_owners", "None", ASSESS_FIELDS, rows, crs=None)}


def test_abutters_none_of_which_has_an_owner_are_refused_before_the_package(plugin, block,
                                                                             tmp_path):
    """The whole table joins (P2, P7) but none of the abutters does: nothing is delivered."""
    import processing
    from qgis.core import QgsProcessingException

    gpkg = tmp_path / "far.gpkg"
    shutil.copy(block["gpkg"], gpkg)
    rows = [(None, [pid, f"OWNER {pid}", "1 ELM ST", "LYNNFIELD", "MA", "01940", "", 2026])
            for pid in ("P2", "P7")]
    assess = write_layer(gpkg, "far_owners", "None", ASSESS_FIELDS, rows, crs=None)
    folder = tmp_path / "notice"
    with pytest.raises(QgsProcessingException) as exc:
        processing.run("swm_gis:abutters", {"TOWN_NAME": "Sampleton",
            "PARCELS": f"{gpkg}|layername=parcels", "ASSESS": assess,
            "SUBJECT": f"{gpkg}|layername=parcels", "SUBJECT_IDS": "P2", "OUTPUT": "memory:",
            "OUTPUT_FOLDER": str(folder)})
    message = str(exc.value)
    assert message.startswith("None of the 5 abutting parcel(s) (e.g. P1, P3, P4) has an owner "
                              "record in the assessing table")
    assert "'Parcel id field' and 'Assessing: parcel id field (joins the parcels)'" in message
    assert "an empty list is never certified" in message
    assert not folder.exists()


def test_some_abutters_without_an_owner_are_counted_in_a_warning(plugin, lots, tmp_path):
    import processing
    from qgis.core import QgsProcessingContext
    from support.plugin_kit import recording_feedback

    feedback = recording_feedback()
    r = processing.run("swm_gis:abutters", {"TOWN_NAME": "Sampleton",
        "PARCELS": lots["parcels"], "ASSESS": lots["assess"], "SUBJECT": lots["parcels"],
        "SUBJECT_IDS": "P2", "OUTPUT": "memory:", "OUTPUT_FOLDER": str(tmp_path / "notice")},
        context=QgsProcessingContext(), feedback=feedback)
    assert r["RECIPIENT_COUNT"] == 1  # P4's owner
    assert "Join of the parcels and the assessing table: 3 of 3 assessing rows (100.0 %) join " \
        "one of the 9 parcels, and 3 parcels have an owner record." in feedback.lines
    assert any(w.startswith("4 of the 5 abutting parcel(s) have no owner record")
               for w in feedback.warnings)


def test_cambridge_loc_id_against_gisid_is_refused_naming_ml(plugin, tmp_path):
    """The issue's case: Cambridge parcels have a LOC_ID, so the default parcel id field is
    accepted, while the assessing table's GISID joins the parcels' ML."""
    import processing
    from qgis.core import (
        QgsCoordinateReferenceSystem,
        QgsProcessingException,
        QgsProcessingFeatureSourceDefinition,
        QgsProject,
        QgsVectorLayer,
    )

    parcels = QgsVectorLayer(str(CAMBRIDGE / "ASSESSING_ParcelsFY2014.topojson"), "parcels",
                             "ogr")
    parcels.setCrs(QgsCoordinateReferenceSystem("EPSG:4326"))
    assess = QgsVectorLayer(str(CAMBRIDGE / "ASSESSING_PropertyDatabase_FY2025.csv"),
                            "Cambridge assess", "ogr")
    QgsProject.instance().addMapLayers([parcels, assess])
    folder = tmp_path / "notice"
    try:
        parcels.selectByExpression("\"ML\" = '9-29'")
        with pytest.raises(QgsProcessingException) as exc:
            processing.run("swm_gis:abutters", {"TOWN_NAME": "Sampleton",
                "PARCELS": parcels, "ASSESS": assess,
                "SUBJECT": QgsProcessingFeatureSourceDefinition(parcels.id(), True),
                "ASSESS_PARCEL_ID_FIELD": "GISID", "OWNER_FIELD": "Owner_Name",
                "OWNER_ADDRESS_FIELD": "Owner_Address", "OWNER_CITY_FIELD": "Owner_City",
                "OWNER_STATE_FIELD": "Owner_State", "OWNER_ZIP_FIELD": "Owner_Zip",
                "OUTPUT": "memory:", "OUTPUT_FOLDER": str(folder)})
    finally:
        QgsProject.instance().removeMapLayers([parcels.id(), assess.id()])
    message = str(exc.value)
    # 1,000 rows of GISID values; 535 distinct of them are ML values of the FY2014 parcels
    assert message.startswith(
        "No row of 'Assessing table (owners and mailing addresses)' ('Cambridge assess') joins "
        "a parcel: its 'Assessing: parcel id field (joins the parcels)' (GISID) holds values "
        "like 145-29, 103-26")
    assert "'Parcel id field' (LOC_ID) of 'parcels' holds values like F_761210_2957494" in message
    assert "The parcels' field ML holds 535 of the assessing ids: choose it in 'Parcel id " \
        "field'." in message
    assert message.endswith("Without the join no owner could be notified, so nothing was run.")
    assert not folder.exists()


@pytest.mark.parametrize("value", [12.0, 12, 13.5, "12", " 12 ", "012", "12.0", "M_1_2", "",
                                   "  ", None, float("nan"), 1e15, -3.0, True])
def test_the_pre_check_writes_an_id_as_the_engine_does(value):
    """The plugin's join key is the engine's id rule, value for value (a Real LOC_ID 12.0 and a
    text "12" are one parcel in the dialog's pre-check as in the package)."""
    from swm_gis_qgis import joins

    from swm_gis.ids import id_text

    assert joins.key(value) == id_text(value)


def test_the_pre_check_joins_float_int_and_text_ids_as_the_engine_does():
    from swm_gis_qgis import joins

    assert joins.rate([12.0, 13.0], ["12", "13"]).matched_rows == 2
    assert joins.rate(["12", "13"], [12.0, 13.0]).matched_rows == 2
    assert joins.rate([12, 13], ["12", "13"]).matched_rows == 2
    assert joins.rate(["12 ", "13"], ["12", "13"]).matched_rows == 2
    assert joins.rate(["012"], [12]).matched_rows == 0  # "012" and "12": two ids, as typed

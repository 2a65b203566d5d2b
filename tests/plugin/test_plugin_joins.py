"""Joins that match nothing stop the run in the dialog's words; no empty list is certified
(issue 26, item 2). The join is the engine's (issue 35): the plugin keeps no copy of it, and the
refusal names the field that would join, found by the engine."""

from __future__ import annotations

import shutil

import pytest
from support.plugin_kit import ASSESS_FIELDS, ROOT, write_layer

pytestmark = pytest.mark.qgis

CAMBRIDGE = (ROOT / "data" / ".." / ".." / "shared" / "data" / "cambridge").resolve()


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
    # the engine's warning (abutters P1, P3, P4, P5, P6; only P4 has a record): said once
    said = [line for line in feedback.lines + feedback.warnings
            if "have no assessing record" in line]
    assert said and all(line.startswith("Warning (owners_not_found): 4 of 5 abutting parcel(s) "
                                        "have no assessing record") for line in said)
    assert not any("Join of the parcels" in line for line in feedback.lines)  # no pre-check


def test_a_wrong_assessing_id_field_is_refused_naming_the_field_that_joins(plugin, block,
                                                                           tmp_path):
    """The assessing table keyed by its SITE_ADDR ("1 ELM ST"): no abutter joins. The engine
    refuses and finds that the table's LOC_ID holds the 8 lots' ids (P1-P8; the street R1 has
    no record); the dialog names the parameter to choose it in."""
    import processing
    from qgis.core import QgsProcessingException

    folder = tmp_path / "notice"
    with pytest.raises(QgsProcessingException) as exc:
        processing.run("swm_gis:abutters", {"TOWN_NAME": "Sampleton",
            "PARCELS": block["parcels"], "ASSESS": block["assess"],
            "ASSESS_PARCEL_ID_FIELD": "SITE_ADDR", "SUBJECT": block["parcels"],
            "SUBJECT_IDS": "P2", "OUTPUT": "memory:", "OUTPUT_FOLDER": str(folder)})
    message = str(exc.value)
    # P1, P3 touch P2; P4, P5, P6 lie 15 m across the street R1 (left out: POLY_TYPE ROW)
    assert message.startswith("None of the 5 abutting parcel(s) (e.g. P1, P3, P4) has an owner "
                              "record in the assessing table, so the notice would go to no one. "
                              "The assessing table's field LOC_ID holds 8 of the parcel ids: "
                              "choose it in 'Assessing: parcel id field (joins the parcels)'.")
    assert "[layers." not in message  # no config key reaches the dialog
    assert not folder.exists()


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
    # the engine read the whole layers: 535 distinct GISIDs of the 1,000-row sample are MLs
    # 9-29's abutters that can have an owner, nearest first: data/cambridge.toml's 5 and, as no
    # right-of-way rule is chosen here, the street polygon (ML = ROAD, LOC_ID F_760578_2961645)
    assert message.startswith("None of the 6 abutting parcel(s) (e.g. F_760578_2961645, "
                              "F_770845_2959867, F_771134_2959927) has an owner record in the "
                              "assessing table, so the notice would go to no one. ")
    assert "has an owner record in the assessing table, so the notice would go to no one. " \
        "The parcels' field ML holds 535 of the assessing ids: choose it in 'Parcel id " \
        "field'." in message
    assert message.endswith("an empty list is never certified.")
    assert not folder.exists()

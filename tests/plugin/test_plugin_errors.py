"""Bad input gives a clear QgsProcessingException, never a traceback."""

from __future__ import annotations

import pytest
from support.plugin_kit import square, write_layer, write_shapefile

pytestmark = pytest.mark.qgis


def _run(params):
    import processing

    return processing.run("swm_gis:abutters", {"TOWN_NAME": "Sampleton", "OUTPUT": "memory:",
                                                **params})


def test_a_missing_field_names_the_parameter_the_layer_and_its_fields(plugin, tmp_path):
    from qgis.core import QgsProcessingException

    uri = write_layer(tmp_path / "p.gpkg", "parcels", "Polygon", [("PARCEL_NO", "str")],
                      [(square(0, 0, 60, 60), ["A"]), (square(60, 0, 60, 60), ["B"])])
    with pytest.raises(QgsProcessingException) as exc:
        _run({"PARCELS": uri, "SUBJECT": uri, "SUBJECT_IDS": "A"})
    message = str(exc.value)
    assert "has no field 'LOC_ID'" in message
    assert "'Parcel id field'" in message and "PARCEL_NO" in message
    assert "PARCEL_ID_FIELD" not in message  # the dialog shows labels, not ids
    # choosing the field fixes it
    result = _run({"PARCELS": uri, "SUBJECT": uri, "SUBJECT_IDS": "A",
                   "PARCEL_ID_FIELD": "PARCEL_NO"})
    assert [f["parcel_id"] for f in result["OUTPUT"].getFeatures()] == ["B"]


@pytest.mark.parametrize("fmt", ["gpkg", "shp"])
def test_a_layer_without_crs_is_refused_with_how_to_fix_it(plugin, tmp_path, fmt):
    from qgis.core import QgsProcessingException

    rows = [(square(0, 0, 60, 60), ["A"]), (square(60, 0, 60, 60), ["B"])]
    if fmt == "gpkg":  # GDAL reports srs_id 0 as "Undefined geographic SRS"
        uri = write_layer(tmp_path / "nocrs.gpkg", "parcels", "Polygon", [("LOC_ID", "str")],
                          rows, crs=None)
    else:  # a shapefile without .prj
        uri = write_shapefile(tmp_path / "nocrs.shp", [("LOC_ID", "str")], rows)
        assert not (tmp_path / "nocrs.prj").exists()
    with pytest.raises(QgsProcessingException) as exc:
        _run({"PARCELS": uri, "SUBJECT": uri, "SUBJECT_IDS": "A"})
    message = str(exc.value)
    assert "'Parcels (tax parcel polygons)'" in message
    assert "has no coordinate reference system" in message
    assert "Assigned Coordinate Reference System" in message and "EPSG:26986" in message


def test_the_engine_user_error_comes_through_as_its_own_message(plugin, block):
    from qgis.core import QgsProcessingException

    with pytest.raises(QgsProcessingException) as exc:
        _run({"PARCELS": block["parcels"], "SUBJECT": block["parcels"],
              "SUBJECT_IDS": "NO-SUCH-LOT"})
    message = str(exc.value)
    assert "NO-SUCH-LOT" in message
    assert "Traceback" not in message


def test_no_subject_is_refused(plugin, block):
    """SUBJECT is required: QGIS itself refuses the run before the algorithm starts."""
    from qgis.core import QgsProcessingException

    with pytest.raises(QgsProcessingException, match="SUBJECT"):
        _run({"PARCELS": block["parcels"]})


def test_a_numeric_owner_field_is_refused_by_the_engine_in_the_dialogs_words(plugin, block,
                                                                            tmp_path):
    """The engine's schema says the owner's name is text: the block's FY (an integer field,
    exported as it is) chosen as the owner is refused by the engine's own check, worded with
    the dialog's labels and the QGIS layer's name (issue 35)."""
    from qgis.core import QgsProcessingException, QgsProject, QgsVectorLayer

    assess = QgsVectorLayer(block["assess"], "Town assessing", "ogr")
    QgsProject.instance().addMapLayer(assess)
    try:
        with pytest.raises(QgsProcessingException) as exc:
            _run({"PARCELS": block["parcels"], "SUBJECT": block["parcels"],
                  "SUBJECT_IDS": "P2", "ASSESS": assess, "OWNER_FIELD": "FY",
                  "OUTPUT_FOLDER": str(tmp_path / "out")})
    finally:
        QgsProject.instance().removeMapLayer(assess.id())
    assert str(exc.value) == (
        "The owner's name must be text, but the parameter 'Assessing: owner name field' names "
        "a numeric field (int32) of the layer 'Town assessing'. Name a text field there, or "
        "store FY as text in the source.")
    assert not (tmp_path / "out").exists()

"""swm_gis:abutters in QGIS with a town config whose neighbouring town is a source of its own
(``[[layers.parcels.sources]]``, issue 34): the dialog offers one parcels layer, so such a town
runs through TOWN_CONFIG, with the same result as the command line.

The town is ``tests/support/neighbourkit.py``'s (the layout and the distances worked out by hand:
``tests/notification/test_abutters_neighbour_sources.py``).
"""

from __future__ import annotations

import csv
import json

import pytest
from support.neighbourkit import write_neighbour_town

pytestmark = pytest.mark.qgis


@pytest.fixture
def neighbour_town(tmp_path):
    return write_neighbour_town(tmp_path)


def test_a_town_config_with_a_neighbours_source_runs_in_qgis(plugin, neighbour_town, tmp_path):
    import processing

    out = tmp_path / "package"
    result = processing.run("swm_gis:abutters", {
        "TOWN_CONFIG": str(neighbour_town),
        "SUBJECT": f"{neighbour_town.parent / 'lynnfield.gpkg'}|layername=parcels",
        "SUBJECT_IDS": "S", "OUTPUT": "memory:", "OUTPUT_FOLDER": str(out)})
    got = {f["parcel_id"]: round(float(f["distance_ft"]), 2)
           for f in result["OUTPUT"].getFeatures()}
    # by hand (the town kit's docstring): Peabody's P1, P2 at 10 m; its street left out
    assert got == {"L1": 0.0, "L2": 0.0, "P1": 32.81, "P2": 32.81, "L5": 39.37, "L3": 98.43}
    document = json.loads((out / "abutters.json").read_text(encoding="utf-8"))
    assert document["counts"]["other_town"] == 2
    assert [t["town"] for t in document["towns"]] == ["Lynnfield", "Peabody"]
    with open(out / "mailing_list.csv", encoding="utf-8-sig", newline="") as fh:
        assert [r["owner_name"] for r in csv.DictReader(fh)] == [
            "SMITH, JOHN", "JONES, PAT", "DOE, RAY", "WONG, MEI"]


def test_the_subject_selected_on_a_layer_the_config_names_is_read_by_its_ids(plugin,
                                                                            neighbour_town,
                                                                            tmp_path):
    """The config's parcels are asked of the engine (``swm-gis config show``, issue 35), every
    source of them: Lynnfield's parcels with S selected give S's abutters (as SUBJECT_IDS does);
    Peabody's shapefile, the config's second source, given whole is refused as a whole parcels
    layer (it is one of the config's, not a site)."""
    import processing
    from qgis.core import (
        QgsProcessingException,
        QgsProcessingFeatureSourceDefinition,
        QgsProject,
        QgsVectorLayer,
    )

    lynnfield = QgsVectorLayer(f"{neighbour_town.parent / 'lynnfield.gpkg'}|layername=parcels",
                               "Lynnfield parcels", "ogr")
    peabody = QgsVectorLayer(str(neighbour_town.parent / "peabody" / "M229TaxPar.shp"),
                             "Peabody parcels", "ogr")
    QgsProject.instance().addMapLayers([lynnfield, peabody])
    try:
        lynnfield.selectByExpression("\"LOC_ID\" = 'S'")
        result = processing.run("swm_gis:abutters", {
            "TOWN_CONFIG": str(neighbour_town),
            "SUBJECT": QgsProcessingFeatureSourceDefinition(lynnfield.id(), True),
            "OUTPUT": "memory:", "OUTPUT_FOLDER": str(tmp_path / "selected")})
        with pytest.raises(QgsProcessingException) as exc:
            processing.run("swm_gis:abutters", {
                "TOWN_CONFIG": str(neighbour_town), "SUBJECT": peabody, "OUTPUT": "memory:",
                "OUTPUT_FOLDER": str(tmp_path / "whole")})
    finally:
        QgsProject.instance().removeMapLayers([lynnfield.id(), peabody.id()])
    got = {f["parcel_id"]: round(float(f["distance_ft"]), 2)
           for f in result["OUTPUT"].getFeatures()}
    assert got == {"L1": 0.0, "L2": 0.0, "P1": 32.81, "P2": 32.81, "L5": 39.37, "L3": 98.43}
    assert "is the whole parcels layer: select the subject parcel(s)" in str(exc.value)

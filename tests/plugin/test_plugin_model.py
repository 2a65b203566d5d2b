"""An swm-gis algorithm inside a graphical model (.model3): it composes with QGIS's own tools."""

from __future__ import annotations

import pytest
from support.plugin_kit import DATA

pytestmark = pytest.mark.qgis


def test_abutters_feeds_native_centroids_in_a_model(plugin, block):
    import processing
    from qgis.core import QgsProcessingModelAlgorithm, QgsVectorLayer

    model = QgsProcessingModelAlgorithm()
    assert model.fromFile(str(DATA / "abutter_centroids.model3"))
    assert [c.algorithmId() for c in model.childAlgorithms().values()] != []
    assert {c.algorithmId() for c in model.childAlgorithms().values()} == {
        "swm_gis:abutters", "native:centroids"}
    ok, message = model.canExecute()
    assert ok, message
    parcels = QgsVectorLayer(block["parcels"], "parcels", "ogr")
    result = processing.run(model, {"parcels": parcels, "subject_ids": "P2",
                                    "centroids:abutter_centroids": "memory:"})
    layer = result["centroids:abutter_centroids"]
    if isinstance(layer, str):
        layer = QgsVectorLayer(layer, "c", "ogr")
    rows = {f["parcel_id"]: f for f in layer.getFeatures()}
    assert sorted(rows) == ["P1", "P3", "P4", "P5", "P6"]
    assert all(f.geometry().type() == 0 for f in rows.values())  # points
    assert rows["P4"]["distance_ft"] == pytest.approx(15 / 0.3048)

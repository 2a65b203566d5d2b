"""The applicability GeoPackage in real QGIS: opens styled, agrees with QGIS's own overlay."""

from __future__ import annotations

import os
import sys

import pytest
from support.applicabilitykit import town_layers
from support.qgisstylekit import rule_classes
from support.townkit import write_town

from swm_gis.applicability import run as ap
from swm_gis.config.town import load_config

QGIS_PLUGINS = "/usr/share/qgis/python/plugins"




@pytest.mark.qgis
def test_output_opens_in_qgis_with_its_grouped_style(qgis_app, tmp_path):
    from qgis.core import QgsVectorLayer, QgsWkbTypes

    res = ap.run_applicability(load_config(write_town(tmp_path, town_layers())),
                               tmp_path / "applicability.gpkg")
    layer = QgsVectorLayer(f"{res.path}|layername=applicability", "applicability", "ogr")
    assert layer.isValid()
    assert layer.featureCount() == 6
    assert layer.geometryType() == QgsWkbTypes.PolygonGeometry
    renderer = layer.renderer()
    assert renderer.type() == "RuleRenderer"
    groups = rule_classes(renderer)
    values = {c for kids in groups.values() for c in kids}
    assert values == set(res.summary["screening_class"])
    # grouped by size, "large parcel" defined in its heading; children say what follows it
    large = next(g for g in groups if g.startswith("Large parcel"))
    assert "1 acre (43,560 sq ft) or more" in large
    assert all(label == cls.split("; ", 1)[1] for cls, label in groups[large].items())
    # every feature falls in exactly one rule of the stored style
    from qgis.core import QgsRenderContext

    ctx = QgsRenderContext()
    renderer.startRender(ctx, layer.fields())
    for f in layer.getFeatures():
        assert f["screening_class"] in values
        assert len(renderer.symbolsForFeature(f, ctx)) == 1
    renderer.stopRender(ctx)
    # QGIS lists the stored style as the layer's default
    count, ids, names, descriptions, _ = layer.listStylesInDatabase()
    assert count == 1 and names == [ap.STYLE_NAME]
    summary = QgsVectorLayer(f"{res.path}|layername=applicability_summary", "summary", "ogr")
    assert summary.isValid() and summary.featureCount() == len(res.summary)


@pytest.mark.qgis
def test_cambridge_in_sfha_agrees_with_qgis_native_intersection(cambridge_config, qgis_app,
                                                                  tmp_path):
    """QGIS native:intersection of the FY2014 parcels and the FEMA 100-year layer: the parcels
    with a positive overlap area are exactly those the map flags ``in_sfha``."""
    if QGIS_PLUGINS not in sys.path and os.path.isdir(QGIS_PLUGINS):
        sys.path.append(QGIS_PLUGINS)
    import processing
    from processing.core.Processing import Processing
    from qgis.analysis import QgsNativeAlgorithms
    from qgis.core import QgsApplication, QgsCoordinateReferenceSystem, QgsVectorLayer

    Processing.initialize()
    if QgsApplication.processingRegistry().providerById("native") is None:
        QgsApplication.processingRegistry().addProvider(QgsNativeAlgorithms())
    cfg = load_config(cambridge_config)
    res = ap.run_applicability(cfg, tmp_path / "cam.gpkg")
    got = ap.read_result(res.path)
    ours = set(got.loc[got["in_sfha"].eq(True) & got["parcel_id"].notna(), "parcel_id"])

    parcels = QgsVectorLayer(cfg.layer("parcels").path, "parcels", "ogr")
    parcels.setCrs(QgsCoordinateReferenceSystem("EPSG:4326"))
    fixed = processing.run("native:fixgeometries", {"INPUT": parcels, "OUTPUT": "memory:"})
    reproj = processing.run("native:reprojectlayer", {
        "INPUT": fixed["OUTPUT"], "TARGET_CRS": "EPSG:26986", "OUTPUT": "memory:"})
    flood = processing.run("native:reprojectlayer", {
        "INPUT": cfg.layer("flood_zones").path, "TARGET_CRS": "EPSG:26986",
        "OUTPUT": "memory:"})
    inter = processing.run("native:intersection", {
        "INPUT": reproj["OUTPUT"], "OVERLAY": flood["OUTPUT"], "INPUT_FIELDS": ["ML"],
        "OVERLAY_FIELDS": ["sfha_tf"], "OUTPUT": "memory:"})["OUTPUT"]
    qgis_ids = {f["ML"] for f in inter.getFeatures()
                if f["sfha_tf"] == "T" and f.geometry().area() > 0 and f["ML"]}
    assert len(qgis_ids) > 100
    assert ours == qgis_ids

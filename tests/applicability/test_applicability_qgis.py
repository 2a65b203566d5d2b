"""The applicability GeoPackage in real QGIS: opens styled, agrees with QGIS's own overlay."""

from __future__ import annotations

import os
import sys

import pytest
from support.applicabilitykit import town_layers
from support.qgisstylekit import rule_classes, styled_classes
from support.townkit import write_town

from swm_gis.applicability import run as ap
from swm_gis.config.town import load_config

QGIS_PLUGINS = "/usr/share/qgis/python/plugins"




@pytest.mark.qgis
def test_output_opens_in_qgis_styled_by_the_map_key(qgis_app, tmp_path):
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
    values = styled_classes(renderer)
    assert values == set(res.summary["screening_class"])
    # the legend is the map key: colour, then patterns, then the outline, each entry numbered
    heads = list(groups)
    assert heads[0].startswith("Colour: the strongest constraint found")
    labels = [label for rules in groups.values() for label in rules]
    assert [int(label.split(".", 1)[0]) for label in labels] == list(range(1, len(labels) + 1))
    outline = groups.get("Outline: parcel size", {})
    assert all("1 acre (43,560 sq ft) or more" in label for label in outline)
    # each feature: exactly one colour rule, then a rule per pattern of its look, then the
    # outline of a large parcel (drawn in that order)
    from qgis.core import QgsRenderContext

    from swm_gis.applicability.palette import class_look

    ctx = QgsRenderContext()
    renderer.startRender(ctx, layer.fields())
    for f in layer.getFeatures():
        look = class_look(f["screening_class"])
        symbols = renderer.symbolsForFeature(f, ctx)
        assert len(symbols) == 1 + len(look.marks) + look.large
        kinds = [s.symbolLayers()[0].layerType() for s in symbols]
        assert kinds[0] == "SimpleFill" and all(
            k in ("LinePatternFill", "PointPatternFill") for k in kinds[1:1 + len(look.marks)])
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


@pytest.mark.qgis
def test_qgis_draws_the_key_as_the_table_says(qgis_app):
    """QGIS's own images of the style's symbols (as its legend shows them): each colour rule
    fills with the key's colour, each pattern rule draws the key's lines or dots."""
    import numpy as np
    from qgis.core import QgsRenderContext, QgsVectorLayer
    from qgis.PyQt.QtCore import QSize
    from qgis.PyQt.QtGui import QColor, QImage, QPainter
    from qgis.PyQt.QtXml import QDomDocument
    from support.keykit import pattern_name, pattern_seen

    from swm_gis.applicability.classify import all_classes
    from swm_gis.applicability.palette import fill_colours
    from swm_gis.applicability.style import applicability_qml

    layer = QgsVectorLayer("MultiPolygon?crs=EPSG:26986&field=screening_class:string", "k",
                           "memory")
    doc = QDomDocument()
    assert doc.setContent(applicability_qml(all_classes()))[0]
    assert layer.importNamedStyle(doc)[0]
    size, px_per_mm = 240, 240 / 20.0  # a 20 mm square image: 12 px per mm
    seen = {}
    for group in layer.renderer().rootRule().children():
        for rule in group.children():
            kind, key = rule.ruleKey().strip("{}").split("-", 1)
            image = QImage(size, size, QImage.Format_ARGB32)
            image.fill(QColor(255, 255, 255))  # on white paper, as the legend shows it
            painter = QPainter(image)
            ctx = QgsRenderContext.fromQPainter(painter)
            ctx.setScaleFactor(px_per_mm)  # 12 px per mm (305 dpi), as a print
            rule.symbol().drawPreviewIcon(painter, QSize(size, size), ctx)
            painter.end()
            ptr = image.constBits()
            ptr.setsize(size * size * 4)
            bgra = np.frombuffer(ptr, dtype=np.uint8).reshape(size, size, 4)
            rgb = bgra[..., [2, 1, 0]].astype(int)
            rgb = rgb[size // 4:3 * size // 4, size // 4:3 * size // 4]
            if kind == "fill":
                r, g, b = (int(v) for v in np.median(rgb.reshape(-1, 3), axis=0))
                seen[(kind, key)] = f"#{r:02X}{g:02X}{b:02X}"
            elif kind == "mark":
                seen[(kind, key)] = pattern_seen(rgb, int(round(0.7 * px_per_mm)))
    fills = {("fill", k): v for k, v in fill_colours().items()}
    marks = {("mark", k): pattern_name(k) for k in ("impaired-water", "habitat", "floodplain",
                                                    "not-checked")}
    assert seen == {**fills, **marks}

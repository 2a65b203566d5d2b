"""swm_gis:applicabilitymap on the sample town: the same classes as ``swm-gis applicability``."""

from __future__ import annotations

import pytest
from support.plugin_kit import SAMPLE

pytestmark = [pytest.mark.qgis, pytest.mark.slow]

GPKG = SAMPLE / "sample.gpkg"
FIELDS = ("area_sqft", "huc12", "huc10", "nhesp_within_distance", "nhesp_distance_ft", "in_sfha",
          "sfha_fraction", "drains_to_orw", "drains_to_impaired", "impairment_causes",
          "can_reach_trigger", "screening_class")


def _rows(layer) -> list[tuple]:
    """(parcel_id, fields...) of every row, sorted (a parcel id split in two polygons by the
    rail line has two rows)."""
    return sorted(((f["parcel_id"], *(f[k] for k in FIELDS)) for f in layer.getFeatures()),
                  key=repr)


@pytest.fixture(scope="module")
def reference(sample_demo):
    """The sample town's ``swm-gis applicability`` map, as the session's demo wrote it."""
    return sample_demo.applicability


@pytest.fixture(scope="module")
def reference_rows(reference):
    from qgis.core import QgsVectorLayer

    return _rows(QgsVectorLayer(f"{reference}|layername=applicability", "ref", "ogr"))


def test_with_the_town_config(plugin, reference_rows, tmp_path):
    import processing
    from qgis.core import QgsVectorLayer

    gpkg = tmp_path / "kept.gpkg"
    r = processing.run("swm_gis:applicabilitymap", {
        "TOWN_CONFIG": str(SAMPLE / "town.toml"), "OUTPUT": "memory:", "SUMMARY": "memory:",
        "OUTPUT_GPKG": str(gpkg)})
    assert r["GPKG"] == str(gpkg)
    kept = QgsVectorLayer(f"{gpkg}|layername=applicability", "kept", "ogr")
    assert kept.listStylesInDatabase()[0] >= 1  # the engine's style, stored as default
    got = _rows(r["OUTPUT"])
    assert len(got) > 3000  # README: about 3,170 parcel polygons, every one classified
    assert got == reference_rows
    summary = list(r["SUMMARY"].getFeatures())
    town = [f for f in summary if f["huc12"] == "all"]
    assert sum(f["parcels"] for f in town) == len(got)


def test_with_qgis_layers(plugin, reference_rows):
    import processing

    def layer(name):
        return f"{GPKG}|layername={name}"

    r = processing.run("swm_gis:applicabilitymap", {
        "PARCELS": layer("parcels"), "NHESP_PRIORITY": None,
        "PRIORITY_HABITATS": layer("nhesp_priority"),
        "ESTIMATED_HABITATS": layer("nhesp_estimated"), "VERNAL_POOLS": layer("vernal_pools"),
        "FLOOD_ZONES": layer("flood_zones"), "HUC12": layer("huc12"), "HUC10": layer("huc10"),
        "ORW": layer("orw"), "IMPAIRED_WATERS": layer("impaired_waters"),
        "STREAMS": layer("streams"), "WATERBODIES": layer("waterbodies"),
        "TOWN_BOUNDARY": layer("town_boundary"), "DEM": str(SAMPLE / "dem.tif"),
        "OUTPUT": "memory:"})
    assert _rows(r["OUTPUT"]) == reference_rows


def test_the_output_gets_the_style_the_engine_stored(plugin, reference, tmp_path):
    from qgis.core import QgsVectorLayer
    from swm_gis_qgis.algorithms.base import StyleLayer, stored_style_qml

    src = QgsVectorLayer(f"{reference}|layername=applicability", "src", "ogr")
    qml = stored_style_qml(src, tmp_path / "stored.qml")
    assert qml is not None and "screening_class" in qml.read_text(encoding="utf-8")
    copy = QgsVectorLayer("MultiPolygon?crs=EPSG:26986&field=screening_class:string", "c",
                          "memory")
    StyleLayer(qml).postProcessLayer(copy, None, None)
    renderer = copy.renderer()
    # the engine's map key (issue 38): a rule-based style, a heading each for colour, pattern
    # and outline, each rule naming the classes it draws on screening_class
    from support.qgisstylekit import styled_classes

    assert renderer.type() == "RuleRenderer"
    assert all(rule.filterExpression().startswith('"screening_class" IN (')
               for group in renderer.rootRule().children() for rule in group.children())
    assert {row[-1] for row in _rows(src)} <= styled_classes(renderer)


def test_the_sample_towns_legend_is_the_map_key(plugin, reference, tmp_path):
    """Before: 27 classes drawn with 27 unrelated colours. Now the legend is the key: each
    class matches one colour rule, its strongest constraint's, and a dozen rules in all."""
    from qgis.core import QgsVectorLayer
    from support.qgisstylekit import rule_classes
    from swm_gis_qgis.algorithms.base import StyleLayer, stored_style_qml

    from swm_gis.applicability.palette import class_look, fill_colours

    src = QgsVectorLayer(f"{reference}|layername=applicability", "src", "ogr")
    present = {row[-1] for row in _rows(src)}
    copy = QgsVectorLayer("MultiPolygon?crs=EPSG:26986&field=screening_class:string", "c",
                          "memory")
    StyleLayer(stored_style_qml(src, tmp_path / "stored.qml")).postProcessLayer(copy, None, None)
    groups = rule_classes(copy.renderer())
    colour_rules = next(rules for head, rules in groups.items() if head.startswith("Colour"))
    fills = {c: rule.symbol().color().name().upper()
             for rule in copy.renderer().rootRule().children()[0].children()
             for c in colour_rules[rule.label()]}
    assert set(fills) == present and len(present) == 27
    assert all(fills[c] == fill_colours()[class_look(c).fill] for c in present)
    assert sum(len(rules) for rules in groups.values()) == 12

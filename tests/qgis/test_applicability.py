"""swm_gis:applicabilitymap on the sample town: the same classes as ``swm-gis applicability``."""

from __future__ import annotations

import subprocess

import pytest
from conftest import ENGINE, SAMPLE, engine_env

pytestmark = [pytest.mark.qgis, pytest.mark.slow]

GPKG = SAMPLE / "sample.gpkg"
FIELDS = ("area_sqft", "huc12", "huc10", "nhesp_within_500ft", "nhesp_distance_ft", "in_sfha",
          "sfha_fraction", "drains_to_orw", "drains_to_impaired", "impairment_causes",
          "can_reach_trigger", "screening_class")


def _rows(layer) -> list[tuple]:
    """(parcel_id, fields...) of every row, sorted (a parcel id split in two polygons by the
    rail line has two rows)."""
    return sorted(((f["parcel_id"], *(f[k] for k in FIELDS)) for f in layer.getFeatures()),
                  key=repr)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    from qgis.core import QgsVectorLayer

    out = tmp_path_factory.mktemp("cli_applicability") / "applicability.gpkg"
    proc = subprocess.run([ENGINE, "--progress", "none", "applicability", "--config",
                           str(SAMPLE / "town.toml"), "--out", str(out)],
                          capture_output=True, text=True, env=engine_env())
    assert proc.returncode == 0, proc.stderr[-2000:]
    return _rows(QgsVectorLayer(f"{out}|layername=applicability", "ref", "ogr"))


def test_with_the_town_config(plugin, reference):
    import processing

    r = processing.run("swm_gis:applicabilitymap", {
        "TOWN_CONFIG": str(SAMPLE / "town.toml"), "OUTPUT": "memory:", "SUMMARY": "memory:"})
    got = _rows(r["OUTPUT"])
    assert len(got) == 3168  # README: 3,168 parcel polygons
    assert got == reference
    assert len({row[0] for row in got}) == 3168 - 1  # one parcel id on two polygons
    summary = list(r["SUMMARY"].getFeatures())
    town = [f for f in summary if f["huc12"] == "all"]
    assert sum(f["parcels"] for f in town) == len(got)


def test_with_qgis_layers(plugin, reference):
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
    assert _rows(r["OUTPUT"]) == reference

"""Layer coverage: what area each layer is taken to cover, and whether a search lies inside it."""

from __future__ import annotations

import geopandas as gpd
import numpy as np
import pytest
import rasterio
from affine import Affine
from shapely.geometry import box
from support.townkit import write_town

from swm_gis.config.town import load_config
from swm_gis.io.coverage import coverage_record, layer_coverage

CRS = "EPSG:26986"
X0, Y0 = 238_000.0, 918_000.0
TOWN = box(X0, Y0, X0 + 1000, Y0 + 1000)


def town(tmp_path, coverage=None):
    layers = {
        "parcels": gpd.GeoDataFrame({"LOC_ID": ["M_1"]}, geometry=[TOWN], crs=CRS),
        # one habitat polygon in the town's north-east corner; the layer's extent is that box
        "nhesp_priority": gpd.GeoDataFrame(
            {"PRIHAB_ID": ["PH 1"]}, geometry=[box(X0 + 800, Y0 + 800, X0 + 900, Y0 + 900)],
            crs=CRS),
        # the same polygon stored in longitude/latitude: the extent is reprojected
        "nhesp_estimated": gpd.GeoDataFrame(
            {"ESTHAB_ID": ["EH 1"]}, geometry=[box(X0 + 800, Y0 + 800, X0 + 900, Y0 + 900)],
            crs=CRS).to_crs("EPSG:4326"),
    }
    toml = write_town(tmp_path, layers, extra='\n[layers.dem]\npath = "dem.tif"\n')
    with rasterio.open(tmp_path / "dem.tif", "w", driver="GTiff", width=50, height=50, count=1,
                       dtype="float32", crs=CRS,
                       transform=Affine(10, 0, X0, 0, -10, Y0 + 500)) as dst:
        dst.write(np.zeros((50, 50), dtype="float32"), 1)
    text = toml.read_text(encoding="utf-8")
    for key, value in (coverage or {}).items():
        text = text.replace(f'layer = "{key}"\n', f'layer = "{key}"\ncoverage = "{value}"\n')
    toml.write_text(text, encoding="utf-8")
    return load_config(toml)


def test_default_coverage_is_the_town_with_the_layers_extent(tmp_path):
    cfg = town(tmp_path)
    area, basis = layer_coverage(cfg, "nhesp_priority", town=TOWN)
    assert area.equals(TOWN) and basis.startswith("the town boundary")
    search = box(X0 + 100, Y0 + 100, X0 + 200, Y0 + 200)  # no feature near, inside the town
    assert coverage_record(cfg, "nhesp_priority", search, town=TOWN)["covers"] is True
    beyond = box(X0 - 150, Y0 + 100, X0 + 200, Y0 + 200)  # across the town line
    assert coverage_record(cfg, "nhesp_priority", beyond, town=TOWN)["covers"] is False


def test_without_a_town_boundary_only_the_layers_extent_counts(tmp_path):
    cfg = town(tmp_path)
    area, _ = layer_coverage(cfg, "nhesp_priority", town=None)
    assert area.bounds == pytest.approx((X0 + 800, Y0 + 800, X0 + 900, Y0 + 900))
    search = box(X0 + 100, Y0 + 100, X0 + 200, Y0 + 200)
    assert coverage_record(cfg, "nhesp_priority", search, town=None)["covers"] is False


def test_extent_coverage_ignores_the_town(tmp_path):
    cfg = town(tmp_path, {"nhesp_priority": "extent"})
    search = box(X0 + 100, Y0 + 100, X0 + 200, Y0 + 200)
    rec = coverage_record(cfg, "nhesp_priority", search, town=TOWN)
    assert rec == {"configured": True, "covers": False,
                   "basis": "the layer's own extent (bounding box of its data)"}


def test_statewide_coverage_covers_everything(tmp_path):
    cfg = town(tmp_path, {"nhesp_priority": "statewide"})
    far = box(X0 - 50_000, Y0, X0 - 49_000, Y0 + 1000)
    assert coverage_record(cfg, "nhesp_priority", far, town=None)["covers"] is True


def test_extent_in_another_crs_is_reprojected(tmp_path):
    cfg = town(tmp_path, {"nhesp_estimated": "extent"})
    area, _ = layer_coverage(cfg, "nhesp_estimated", town=None)
    # the lon/lat bounding box of the square, taken back, holds the square and a little more
    assert area.contains(box(X0 + 800, Y0 + 800, X0 + 900, Y0 + 900))
    assert area.bounds == pytest.approx((X0 + 800, Y0 + 800, X0 + 900, Y0 + 900), abs=1.0)


def test_raster_extent_is_its_grid(tmp_path):
    cfg = town(tmp_path, {"dem": "extent"})
    area, _ = layer_coverage(cfg, "dem", town=None)
    assert area.bounds == pytest.approx((X0, Y0, X0 + 500, Y0 + 500))


def test_unconfigured_layer_and_missing_search(tmp_path):
    cfg = town(tmp_path)
    assert coverage_record(cfg, "orw", TOWN, town=TOWN) == {
        "configured": False, "covers": None, "basis": "no orw layer configured"}
    assert coverage_record(cfg, "nhesp_priority", None, town=TOWN)["covers"] is None


def test_unreadable_extent_is_unknown_not_covered(tmp_path):
    cfg = town(tmp_path)
    (tmp_path / "dem.tif").write_bytes(b"not a tiff")
    rec = coverage_record(cfg, "dem", TOWN, town=None)
    assert rec["configured"] is True and rec["covers"] is None
    assert rec["basis"].startswith("its extent could not be read")

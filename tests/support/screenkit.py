"""The small town of the screening tests: two HUC12s of one HUC10, an impervious layer, the
200 ft x 218 ft site (shared by the screening and CLI tests)."""

from __future__ import annotations

import json
from pathlib import Path

import geopandas as gpd
import numpy as np
import rasterio
from affine import Affine
from shapely.geometry import box
from support.townkit import ALL_MS4, write_town

from swm_gis.screening.build import SCHEMA_PATH

CRS = "EPSG:26986"


FT = 0.3048


X0, Y0 = 238_000.0, 918_000.0


WEST, EAST = "010700020101", "010700020102"


HUC10 = "0107000201"


SCHEMA = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def gdf(data=None, geoms=()) -> gpd.GeoDataFrame:
    return gpd.GeoDataFrame(data or {}, geometry=list(geoms), crs=CRS)


def ft_box(x_ft, y_ft, w_ft, h_ft):
    return box(X0 + x_ft * FT, Y0 + y_ft * FT, X0 + (x_ft + w_ft) * FT, Y0 + (y_ft + h_ft) * FT)


def write_impervious_tif(path: Path) -> None:
    """10 m cells over X0..X0+2000, Y0..Y0+1000; one 20 m x 20 m patch at X0+500..520,
    Y0+500..520."""
    arr = np.zeros((100, 200), dtype="uint8")
    arr[48:50, 50:52] = 1  # rows from the top (y = Y0 + 1000): 48-49 -> y 500..520
    with rasterio.open(path, "w", driver="GTiff", width=200, height=100, count=1, dtype="uint8",
                       crs=CRS, transform=Affine(10, 0, X0, 0, -10, Y0 + 1000), nodata=255) as dst:
        dst.write(arr, 1)


def build_town(tmp_path: Path, *, impervious: str = "raster", hucs: bool = True) -> Path:
    """A small town: parcels, two HUC12s (West/East) of one HUC10, an impervious layer."""
    layers = {
        "parcels": gdf({"LOC_ID": ["M_1"]}, [box(X0, Y0, X0 + 2000, Y0 + 1000)]),
    }
    if hucs:
        layers["huc12"] = gdf({"huc12": [WEST, EAST], "name": ["West Brook", "East Brook"]},
                              [box(X0, Y0, X0 + 1000, Y0 + 1000),
                               box(X0 + 1000, Y0, X0 + 2000, Y0 + 1000)])
        layers["huc10"] = gdf({"huc10": [HUC10], "name": ["Upper River"]},
                              [box(X0, Y0, X0 + 2000, Y0 + 1000)])
    extra = ""
    if impervious == "raster":
        write_impervious_tif(tmp_path / "impervious.tif")
        extra = '\n[layers.impervious]\npath = "impervious.tif"\n'
    elif impervious == "polygons":
        layers["impervious"] = gdf({"kind": ["roof"]},
                                   [box(X0 + 500, Y0 + 500, X0 + 520, Y0 + 520)])
    # the town states that all its land drains to its MS4 (it has no MS4 layer): the permit
    # trigger is then decided by the area alone, as these tests expect
    return write_town(tmp_path, layers, extra=extra, town_extra=ALL_MS4)


#: A 200 ft x 218 ft site (43,600 sq ft) around the impervious patch, in the West HUC12.
SITE = gdf(geoms=[box(X0 + 480, Y0 + 480, X0 + 480 + 200 * FT, Y0 + 480 + 218 * FT)])


#: The same size in the West HUC12 but away from the patch.
BARE_SITE = gdf(geoms=[box(X0 + 100, Y0 + 100, X0 + 100 + 200 * FT, Y0 + 100 + 218 * FT)])


#: Every layer of every finding configured and covering the area searched.
FULL_COVERAGE = {
    key: {layer: {"configured": True, "covers": True, "basis": "test"} for layer in layers}
    for key, layers in {
        "development_type": ("impervious",), "watersheds": ("huc12", "huc10"),
        "mitigation": ("huc12", "huc10"),
        "habitats": ("nhesp_priority", "nhesp_estimated", "vernal_pools"),
        "floodplain": ("flood_zones",),
        "receiving_waters": ("streams", "waterbodies", "dem", "orw", "impaired_waters",
                             "vernal_pools")}.items()}

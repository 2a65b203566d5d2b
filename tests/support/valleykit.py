"""The valley town of the receiving-water tests: a V-shaped DEM and its streams, ponds, ORW and
impaired waters (shared by test_receiving_waters, test_resources and test_hydrology)."""

from __future__ import annotations

import geopandas as gpd
import numpy as np
from affine import Affine
from pyproj import CRS
from shapely.geometry import LineString, box

from swm_gis.raster import Raster

X0, Y0 = 200_000.0, 900_000.0
EPSG = "EPSG:26986"


def xy(x: float, y: float) -> tuple[float, float]:
    return (X0 + x, Y0 + y)


def line(*pts) -> LineString:
    return LineString([xy(*p) for p in pts])


def valley_dem(*, pit: bool = False, crs: str | None = EPSG) -> Raster:
    ny, nx = 200, 300
    cols, rows = np.meshgrid(np.arange(nx) + 0.5, np.arange(ny) + 0.5)
    x, y = cols * 10, 2000 - rows * 10
    z = 100 + 0.08 * np.abs(y - 1005) - 0.01 * x
    if pit:  # a 3 m hole on the site's flow path: depression filling must carry flow through
        z[(np.abs(x - 395) < 1) & (np.abs(y - 1105) < 1)] -= 3.0
    return Raster(np.ma.masked_invalid(z), Affine(10, 0, X0, 0, -10, Y0 + 2000),
                  CRS.from_user_input(crs) if crs else None, {"file": "valley.tif"})


def valley_layers(*, reverse_river: bool = False, salt_brook: bool = True) -> dict:
    river = line((1005, 1005), (2005, 1005))
    if reverse_river:
        river = line((2005, 1005), (1005, 1005))
    lines = [line((105, 1005), (705, 1005)), river, line((2005, 1005), (2995, 1005))]
    ids, names = ["BROOK", "R1", "R2"], ["Brook", "River", "River lower"]
    if salt_brook:
        lines.append(line((255, 1405), (455, 1425)))
        ids.append("SALT")
        names.append("Salt Brook")
    streams = gpd.GeoDataFrame({"id": ids, "name": names}, geometry=lines, crs=EPSG)
    pond = box(*xy(705, 955), *xy(1005, 1055))
    waterbodies = gpd.GeoDataFrame({"name": ["Mill Pond"]}, geometry=[pond], crs=EPSG)
    impaired = gpd.GeoDataFrame(
        {"id": ["MA93-01", "MA93-02", "MA93-03"],
         "name": ["Mill Pond", "Ipswich River", "Salt Brook"],
         "category": ["5", "4A", "5"],
         "causes": ["Phosphorus, Total", "Escherichia coli (E. coli)", "Chloride"],
         "tmdl": [None, "TMDL 12345", None]},
        geometry=[pond, line((1005, 1005), (2005, 1005)), line((255, 1405), (455, 1425))],
        crs=EPSG)
    orw = gpd.GeoDataFrame({"id": ["ORW-1"], "name": ["Ipswich River ORW"]},
                           geometry=[line((2005, 1005), (2995, 1005))], crs=EPSG)
    site = gpd.GeoDataFrame({"name": ["site"]}, geometry=[box(*xy(300, 1200), *xy(400, 1300))],
                            crs=EPSG)
    return {"site": site, "streams": streams, "waterbodies": waterbodies, "impaired": impaired,
            "orw": orw}

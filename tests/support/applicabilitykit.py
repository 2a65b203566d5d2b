"""The small towns of the applicability tests: squares in feet, the reference layers, a drainage
town (shared by the applicability, Dask, truth, QGIS and PostGIS tests)."""

from __future__ import annotations

from pathlib import Path

import geopandas as gpd
import numpy as np
import rasterio
import shapely
from rasterio.transform import from_origin
from shapely.geometry import LineString, Point, box
from support.townkit import CRS, write_town

FT = 0.3048


X0, Y0 = 230_000.0, 900_000.0


def sq(x_ft: float, y_ft: float, w_ft: float, h_ft: float) -> shapely.Polygon:
    """A rectangle given in feet from the town origin."""
    return box(X0 + x_ft * FT, Y0 + y_ft * FT, X0 + (x_ft + w_ft) * FT, Y0 + (y_ft + h_ft) * FT)


def frame(rows: dict, geoms: list) -> gpd.GeoDataFrame:
    return gpd.GeoDataFrame(rows, geometry=geoms, crs=CRS)


# Parcels (MassGIS names). The habitat is a polygon whose west edge is x = 10,000 ft.
PARCELS = {
    "FLOOD": sq(0, 0, 100, 100),          # AE zone covers its west 25 ft -> 25 %
    "TOUCH": sq(200, 0, 100, 100),        # shares only an edge with an AE zone
    "H459": sq(9_441, 0, 100, 100),       # east edge 459 ft from the habitat
    "H500": sq(9_400, 2_000, 100, 100),   # exactly 500 ft: inclusive -> within
    "H501": sq(9_399.5, 4_000, 100, 100),  # 500.5 ft -> not within
    "SPLIT": sq(4_860, 0, 200, 218),      # 43,600 sq ft; 70 % west of x = 5,000 ft
}


def town_layers(with_huc10: bool = True) -> dict[str, gpd.GeoDataFrame]:
    parcels = frame({"LOC_ID": list(PARCELS), "MAP_PAR_ID": [f"1-{i}" for i in
                                                             range(len(PARCELS))]},
                    list(PARCELS.values()))
    flood = frame({"FLD_ZONE": ["AE", "AE", "X"], "SFHA_TF": ["T", "T", "F"],
                   "STATIC_BFE": [12.0, 12.0, -9999.0]},
                  [sq(-50, -50, 75, 200),      # FLOOD: x -50..25 ft -> 25 ft of 100
                   sq(300, 0, 50, 100),        # TOUCH: meets its east edge only
                   sq(200, 0, 100, 100)])      # shaded X over TOUCH: not SFHA
    priority = frame({"PRIHAB_ID": ["PH 1"]}, [sq(10_000, -1_000, 1_000, 8_000)])
    # the other two NHESP layers, far (> 1,000 ft) from every parcel: all three are needed to
    # say "no NHESP feature within 500 ft"
    estimated = frame({"ESTHAB_ID": ["EH 1"]}, [sq(-1_500, 12_000, 500, 500)])
    pools = frame({"CVP_NUM": [7]}, [Point(X0 + 14_000 * FT, Y0 + 12_000 * FT)])
    boundary = frame({"TOWN": ["Testtown"]}, [sq(-2_000, -2_000, 17_000, 15_000)])
    huc12 = frame({"huc12": ["010700020101", "010700020102"], "name": ["West Brook", "East Brook"]},
                  [sq(-1_000, -1_000, 6_000, 10_000), sq(5_000, -1_000, 7_000, 10_000)])
    layers = {"parcels": parcels, "flood_zones": flood, "nhesp_priority": priority,
              "nhesp_estimated": estimated, "vernal_pools": pools, "huc12": huc12,
              "town_boundary": boundary}
    if with_huc10:
        layers["huc10"] = frame({"huc10": ["0107000201"]}, [sq(-1_000, -1_000, 13_000, 10_000)])
    return layers


# --------------------------------------------------------------------------- drainage
def drainage_town(tmp_path: Path, *, pond: bool = False) -> Path:
    """A 1 km square sloping east to a brook at x = 955 m flowing north.

    The brook's south reach (S1) runs through an ORW wetland; its north reach (S2) is an
    impaired assessment unit (category 5, phosphorus and E. coli). West land drains east to the
    brook; the strip east of the brook drains off the DEM. The brook ends at the north edge
    (the end of the mapped network), or with ``pond`` in a pond without an outlet (a real end),
    with a certified vernal pool far from the flow (so the ORW search has all its layers) and a
    town boundary (so the layers cover the town, not only their own extents).
    """
    cell = 10.0
    n = 100
    cols = np.arange(n)
    rows = np.arange(n)
    z = 100.0 - 0.5 * cols[None, :] + 0.01 * rows[:, None]  # east, and gently north
    z = z.astype("float32")
    dem = tmp_path / "dem.tif"
    with rasterio.open(dem, "w", driver="GTiff", width=n, height=n, count=1, dtype="float32",
                       crs=CRS, transform=from_origin(X0, Y0 + n * cell, cell, cell),
                       nodata=-9999.0) as dst:
        dst.write(z, 1)
    x = X0 + 955.0
    streams = frame({"STREAM_ID": ["S1", "S2"]},
                    [LineString([(x, Y0 + 5), (x, Y0 + 500)]),
                     LineString([(x, Y0 + 500), (x, Y0 + 995)])])
    orw = frame({"ORW_ID": ["ORW1"], "NAME": ["Fen"]}, [box(x - 20, Y0 + 100, x + 20, Y0 + 200)])
    impaired = frame({"AU_ID": ["MA93-01", "MA93-02"], "AU_NAME": ["Brook", "Other"],
                      "CATEGORY": ["5", "2"], "CAUSES": ["Phosphorus (Total); Escherichia coli",
                                                        "Mercury"],
                      "TMDL": [None, None]},
                     [LineString([(x, Y0 + 500), (x, Y0 + 995)]),
                      LineString([(x, Y0 + 5), (x, Y0 + 500)])])
    parcels = frame({"LOC_ID": ["SOUTH", "NORTH", "EAST"]},
                    [box(X0 + 400, Y0 + 100, X0 + 500, Y0 + 200),
                     box(X0 + 400, Y0 + 800, X0 + 500, Y0 + 900),
                     box(X0 + 965, Y0 + 400, X0 + 995, Y0 + 450)])
    layers = {"parcels": parcels, "streams": streams, "orw": orw, "impaired_waters": impaired}
    if pond:
        layers["waterbodies"] = frame({"NAME": ["End Pond"]},
                                      [box(x - 30, Y0 + 985, x + 30, Y0 + 999)])
        layers["vernal_pools"] = frame({"CVP_NUM": [1]}, [Point(X0 + 100, Y0 + 950)])
        # the town: the layers cover it (a layer's own extent alone would not cover the path)
        layers["town_boundary"] = frame({"NAME": ["Town"]}, [box(X0, Y0, X0 + 1_000, Y0 + 1_000)])
    return write_town(tmp_path, layers, extra='[layers.dem]\npath = "dem.tif"\n')

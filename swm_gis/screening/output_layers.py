"""The screening's map layers (screening.gpkg): the site and common plan, mitigation sites,
the watersheds the site lies in.
"""

from __future__ import annotations

from typing import Any

import geopandas as gpd
import pandas as pd
import shapely

from swm_gis.rules.disturbance import union_polygons
from swm_gis.units import SQFT_PER_ACRE


# --------------------------------------------------------------------------- layers
def site_layers(site_union, disturbance, common_plan, crs, factor) -> dict[str, gpd.GeoDataFrame]:
    out = {"site": gpd.GeoDataFrame(
        {"area_sqft": [disturbance["area_sqft"]], "area_acres": [disturbance["area_acres"]],
         "permit_required": [disturbance["permit_required"]]},
        geometry=[site_union], crs=crs)}
    if common_plan is not None:
        plan = shapely.union(union_polygons(common_plan, what="common plan"), site_union)
        sqft = float(plan.area) * factor
        out["common_plan"] = gpd.GeoDataFrame(
            {"area_sqft": [round(sqft, 2)], "area_acres": [round(sqft / SQFT_PER_ACRE, 4)]},
            geometry=[plan], crs=crs)
    return out


def mitigation_layer(mitigation: gpd.GeoDataFrame, rows: list[dict[str, Any]]
                      ) -> gpd.GeoDataFrame:
    table = pd.DataFrame(rows, columns=["id", "huc", "huc_name", "eligible", "huc_share",
                                        "reason", "section"])
    return gpd.GeoDataFrame(table, geometry=list(mitigation.geometry.values), crs=mitigation.crs)


def watershed_layer(hucs: dict[str, gpd.GeoDataFrame | None], watersheds: dict[str, Any],
                     crs: Any) -> gpd.GeoDataFrame | None:
    frames = []
    for level, frame in hucs.items():
        if frame is None or frame.empty:
            continue
        shares = {r["huc"]: r["share"] for r in watersheds.get(level, [])}
        sub = frame.loc[frame["huc"].astype(str).isin(shares)]
        if sub.empty:
            continue
        codes = sub["huc"].astype(str)
        frames.append(gpd.GeoDataFrame(
            {"level": level.upper(), "huc": codes.to_numpy(),
             "name": sub["name"].astype(object).to_numpy(),
             "site_share": codes.map(shares).to_numpy()},
            geometry=sub.geometry.values, crs=crs))
    if not frames:
        return None
    return gpd.GeoDataFrame(pd.concat(frames, ignore_index=True), geometry="geometry", crs=crs)


def plain(frame: gpd.GeoDataFrame) -> gpd.GeoDataFrame:
    """Geometry only (user files may carry columns a GeoPackage cannot take as they are)."""
    return gpd.GeoDataFrame(geometry=list(frame.geometry.values), crs=frame.crs)

"""Rare species: NHESP habitats and certified vernal pools near the work (``docs/findings.md``).

Chapter 320 § 320-20 A(3)(c) asks the erosion and sediment control plan to show NHESP Priority
Habitats of Rare Species, Estimated Habitats of Rare Wildlife and Certified Vernal Pools within
500 feet of any construction activity, and § 320-20 B(12) asks that their significant alteration
be prevented. Distances are exact (shapely ``distance`` from the limit of disturbance), the
threshold is inclusive, and features just beyond it are not listed.
"""

from __future__ import annotations

import geopandas as gpd
import numpy as np
import pandas as pd
import shapely
from pyproj import CRS

from swm_gis.errors import CrsError
from swm_gis.units import feet_per_unit, require_crs

#: Logical layer key -> the ``layer`` value reported in ``screening.json``.
LAYER_NAMES = {"nhesp_priority": "priority", "nhesp_estimated": "estimated",
               "vernal_pools": "vernal_pool"}

SECTION = "320-20 A(3)(c)"


def map_scale_note(distance_ft: float) -> str:
    """The note that goes with every habitat finding (the screening check entry) on the maps'
    scale; the regulation's plan / prevent notes are the profile's
    (:mod:`swm_gis.screening.wording`)."""
    return (f"NHESP habitat maps are drawn for use at 1:25,000; confirm boundaries near the "
            f"{float(distance_ft):,.0f} ft line with NHESP or a field delineation.")


_COLUMNS = ["layer", "id", "distance_ft", "overlaps", "section"]


def habitats_within(
    site: gpd.GeoDataFrame | gpd.GeoSeries,
    *,
    priority: gpd.GeoDataFrame | None = None,
    estimated: gpd.GeoDataFrame | None = None,
    vernal_pools: gpd.GeoDataFrame | None = None,
    distance_ft: float = 500.0,
) -> gpd.GeoDataFrame:
    """NHESP features whose exact distance from the site is at most ``distance_ft``.

    Parameters
    ----------
    site
        The limit of disturbance: polygon(s) in a projected CRS (their union is measured).
    priority, estimated, vernal_pools
        NHESP Priority Habitat and Estimated Habitat polygons and Certified Vernal Pool points,
        each with a logical ``id`` column, in the site's CRS. ``None`` or empty: nothing to list.
    distance_ft
        The search distance in feet, inclusive (Chapter 320: 500 ft).

    Returns
    -------
    GeoDataFrame
        One row per feature found, nearest first: ``layer`` ("priority" | "estimated" |
        "vernal_pool"), ``id``, ``distance_ft`` (0 when overlapping, rounded to 0.1 ft),
        ``overlaps``, ``section`` and the feature's geometry, in the site's CRS.

    Examples
    --------
    >>> from shapely.geometry import Point, box
    >>> site = gpd.GeoSeries([box(0, 0, 100, 100)], crs="EPSG:26986")
    >>> pools = gpd.GeoDataFrame({"id": ["CVP 1"]}, geometry=[Point(130, 50)], crs="EPSG:26986")
    >>> habitats_within(site, vernal_pools=pools)[["layer", "id", "distance_ft"]].values.tolist()
    [['vernal_pool', 'CVP 1', 98.4]]
    """
    require_crs(site, what="site")
    ft = feet_per_unit(site.crs)
    geoms = site.geometry.values if isinstance(site, gpd.GeoDataFrame) else site.values
    area = shapely.union_all(geoms)
    limit = distance_ft / ft
    frames = []
    for key, layer in (("nhesp_priority", priority), ("nhesp_estimated", estimated),
                       ("vernal_pools", vernal_pools)):
        if layer is None or layer.empty:
            continue
        _check_same_crs(layer, site.crs, key)
        tree = shapely.STRtree(layer.geometry.values)
        # dwithin on the exact geometry; a tiny tolerance keeps "exactly 500 ft" inclusive
        # despite the metre/foot round trip.
        hits = np.sort(tree.query(area, predicate="dwithin", distance=limit * (1 + 1e-12)))
        sub = layer.iloc[hits]
        dist = shapely.distance(area, sub.geometry.values)
        frames.append(gpd.GeoDataFrame(
            {"layer": LAYER_NAMES[key],
             "id": [_plain(v) for v in sub["id"]] if "id" in sub else [None] * len(sub),
             "distance_ft": np.round(dist * ft, 1),
             "overlaps": shapely.intersects(area, sub.geometry.values),
             "section": SECTION},
            geometry=sub.geometry.values, crs=site.crs,
        ))
    if not frames:
        return gpd.GeoDataFrame({c: [] for c in _COLUMNS}, geometry=[], crs=site.crs)
    out = pd.concat(frames, ignore_index=True)
    out["distance_ft"] = out["distance_ft"].where(~out["overlaps"], 0.0)
    out = out.sort_values(["distance_ft", "layer", "id"], kind="stable", ignore_index=True)
    return gpd.GeoDataFrame(out, geometry="geometry", crs=site.crs)


def habitat_records(found: gpd.GeoDataFrame) -> list[dict]:
    """The ``habitats`` key of screening.json from :func:`habitats_within`'s result."""
    return [
        {"layer": r.layer, "id": r.id, "distance_ft": float(r.distance_ft),
         "overlaps": bool(r.overlaps), "section": r.section}
        for r in found.itertuples(index=False)
    ]


def _check_same_crs(layer: gpd.GeoDataFrame, crs: object, key: str) -> None:
    if layer.crs is None or not CRS.from_user_input(layer.crs).equals(CRS.from_user_input(crs)):
        raise CrsError(
            f"The {key} layer ({layer.crs}) is not in the site's CRS ({crs}); read both through "
            "swm_gis.io.layers so they share the town's working CRS."
        )


def _plain(value: object) -> object:
    """numpy scalars -> Python values, so ids serialise to JSON as they read."""
    return value.item() if isinstance(value, np.generic) else value

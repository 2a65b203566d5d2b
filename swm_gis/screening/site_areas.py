"""The ``site_split`` block of screening.json: each constraint on the site, every square foot once.

Where the limit of disturbance runs off its parcel(s), "on the site" and "in the disturbance"
are different areas. For the SFHA, the 0.2%-annual-chance zone (outside the SFHA), the existing
impervious cover and the NHESP priority and estimated habitats (those found within the search
distance), :func:`site_split_block` gives the area on the site's parcel(s) inside the limit of
disturbance, on them outside it, and inside the limit off them
(:mod:`swm_gis.rules.site_split`). A constraint whose layer was not read is None. Reads the
frames the screening already holds; no I/O.
"""

from __future__ import annotations

from typing import Any

import geopandas as gpd
import shapely

from swm_gis.rules.site_split import SiteRegions, split_cover, split_polygons

__all__ = ["CONSTRAINTS", "site_split_block"]

#: The constraints split, in the order the findings and the report name them.
CONSTRAINTS = {"sfha": "the SFHA (100-year floodplain)",
               "shaded_x": "the 0.2%-annual-chance flood zone",
               "existing_impervious": "existing impervious cover",
               "nhesp_priority": "NHESP Priority Habitat",
               "nhesp_estimated": "NHESP Estimated Habitat"}
_HABITAT_LAYER = {"nhesp_priority": "priority", "nhesp_estimated": "estimated"}


def site_split_block(regions: SiteRegions, *, factor: float, impervious: Any,
                     layers: dict[str, gpd.GeoDataFrame], floodplain: Any,
                     habitat_layers: frozenset[str] = frozenset(_HABITAT_LAYER),
                     parcel_ids: list[str], basis: str) -> dict[str, Any]:
    """The ``site_split`` block: the site's own areas, then each constraint's split.

    ``layers`` are the screening's (``flood_zones`` with boolean ``sfha`` / ``shaded_x``
    columns, ``habitats`` with ``layer``); ``floodplain`` its block (the 0.2% zone is None where
    it was not checked); ``impervious`` the existing impervious raster or polygons, or None;
    ``habitat_layers`` the habitat layers configured (a habitat without one is None).
    """
    whole = shapely.union(regions.parcels, regions.off)
    block: dict[str, Any] = {"parcels": parcel_ids, "basis": basis,
                             "site": split_polygons(whole, regions, factor=factor)}
    zones = layers.get("flood_zones")
    if zones is not None and isinstance(floodplain, dict):
        sfha = _union(zones.loc[zones["sfha"].astype(bool)])
        block["sfha"] = split_polygons(sfha, regions, factor=factor)
        shaded = shapely.difference(_union(zones.loc[zones["shaded_x"].astype(bool)]), sfha)
        block["shaded_x"] = (split_polygons(shaded, regions, factor=factor)
                             if floodplain.get("shaded_x_checked") is not False else None)
    else:
        block["sfha"] = block["shaded_x"] = None
    block["existing_impervious"] = (None if impervious is None else
                                    split_cover(impervious, regions, factor=factor))
    habitats = layers.get("habitats")
    for key, layer in _HABITAT_LAYER.items():
        if habitats is None or "layer" not in habitats or key not in habitat_layers:
            block[key] = None
            continue
        found = habitats.loc[habitats["layer"] == layer]
        block[key] = split_polygons(_union(found), regions, factor=factor)
    return block


def _union(frame: gpd.GeoDataFrame) -> shapely.Geometry:
    """The union of a frame's polygons (points and lines have no area)."""
    geoms = frame.geometry.values
    geoms = geoms[shapely.get_dimensions(geoms) == 2] if len(geoms) else geoms
    return shapely.union_all(geoms) if len(geoms) else shapely.Polygon()

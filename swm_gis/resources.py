"""Site screening II: resource areas and receiving waters around one site (SPEC section 5).

:func:`resource_checks` is what ``swm-gis screen`` calls; it reads the layers it needs through
:mod:`swm_gis.layers` with a spatial filter around the site and hands frames to the core rules
(:mod:`swm_gis.habitats`, :mod:`swm_gis.floodplain`, :mod:`swm_gis.receiving_waters`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import geopandas as gpd

from swm_gis.config import TownConfig

Progress = Callable[[str, float], None]


def resource_checks(
    config: TownConfig,
    site: gpd.GeoDataFrame,
    *,
    subject_parcels: gpd.GeoDataFrame | None = None,
    progress: Progress | None = None,
) -> tuple[dict[str, Any], dict[str, gpd.GeoDataFrame], list[dict[str, Any]]]:
    """Habitats, floodplain and receiving waters for one site.

    Returns ``(keys, layers, checks)``: ``keys`` holds ``habitats``, ``floodplain`` and
    ``receiving_waters`` as in SPEC section 5; ``layers`` maps GeoPackage layer names to frames;
    ``checks`` lists ``{"name", "ran", "source", ...}`` for each check.
    """
    keys: dict[str, Any] = {
        "habitats": [],
        "floodplain": {"in_sfha": False, "sfha_area_sqft": 0.0, "site_fraction": 0.0,
                       "zones": [], "shaded_x_area_sqft": 0.0},
        "receiving_waters": {"orw": [], "impaired": [], "requirements": []},
    }
    checks = [
        {"name": name, "ran": False, "source": None, "reason": "not implemented yet"}
        for name in ("habitats", "floodplain", "receiving_waters")
    ]
    return keys, {}, checks

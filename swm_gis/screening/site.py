"""The regulation's site: the parcels a limit of disturbance lies on, the town it must touch, and
whether it drains to the Town's MS4.

Chapter 320 defines Site as "any lot or parcel of land or area of property where land-disturbing
activities are, were, or will be performed"; the bylaw's trigger is a land disturbance
"... draining to the Town's MS4". :func:`swm_gis.screening.build.build_screening` reads the site
through these functions (docs/findings.md, "Chapter 320 as written").
"""

from __future__ import annotations

from typing import Any

import geopandas as gpd
import numpy as np
import shapely

from swm_gis import formatting as fmt
from swm_gis.config.town import TownConfig
from swm_gis.coverage_rule import in_town
from swm_gis.io import layers as io
from swm_gis.messages import config_key
from swm_gis.rules.development import development_type
from swm_gis.rules.disturbance import sqft_per_crs_unit2, union_polygons


def parcels_under_site(config: TownConfig, site_union: shapely.Geometry) -> gpd.GeoDataFrame:
    """The parcels the site lies on: the screening's "site" when no ``parcels=`` are given.

    Chapter 320 defines Site as "any lot or parcel of land or area of property where
    land-disturbing activities are, were, or will be performed". The parcels the limit of
    disturbance really lies on are found by the one rule the abutter job uses for its subjects
    (:func:`swm_gis.rules.abutters.parcels_touched_by_site`, ``[rules] site_subject_share``):
    a neighbour the limit only grazes (a survey-to-GIS misalignment) is not the site.
    Right-of-way and water polygons are never a site's lot. Returns the parcels (working CRS,
    with ``id``; their basis is ``PARCELS_UNDER_SITE``), possibly empty.
    """
    from swm_gis.rules.abutters import parcels_touched_by_site

    frame = io.read_layer(config, "parcels", mask=site_union)
    if len(frame):
        site = gpd.GeoDataFrame(geometry=[site_union], crs=frame.crs)
        frame = parcels_touched_by_site(frame, site, rules=config.rules).subject
    return frame.copy()


def town_check(config: TownConfig, site_union: shapely.Geometry, *,
               common_plan: gpd.GeoDataFrame | None = None) -> list[dict[str, str]]:
    """Refuse a site or common plan that does not touch the town; warn when partly outside.

    The town is ``[layers.town_boundary]`` when configured, else its parcels (a site that
    touches no parcel of the town). With neither (no boundary and a parcels layer without a
    feature, as a front end's run without parcels writes) nothing is refused or measured: the
    one warning ``town_not_checked`` says the check could not be made. Returns the warnings
    ``[{code, text}]``.
    """
    from swm_gis.errors import GeometryError

    parts = [("site", site_union)]
    if common_plan is not None and len(common_plan):
        parts.append(("common plan", union_polygons(common_plan, what="common plan")))
    key = "town_boundary" if config.has("town_boundary") else "parcels"
    if key == "parcels" and io.layer_info(config.layer("parcels")).get("features") == 0:
        return [{"code": "town_not_checked",
                 "text": f"Not checked that the {' and '.join(w for w, _g in parts)} "
                         f"lie{'s' if len(parts) == 1 else ''} in {config.name}: the run has "
                         "no town boundary layer and no parcels, so no area is counted "
                         "outside the town."}]
    warnings: list[dict[str, str]] = []
    for what, geom in parts:
        frame = io.read_layer(config, key, mask=geom)
        town = shapely.union_all(frame.geometry.values) if len(frame) else None
        if town is None or not in_town(np.array([geom], dtype=object), town)[0]:
            raise GeometryError(
                f"The {what} does not touch {config.name} (none of its "
                f"{config_key('layers.' + key)} "
                f"{config.layer(key).describe()} is there): check that the {what} file is for "
                "this town and in the right CRS.")
        outside = float(shapely.area(shapely.difference(geom, town))) * sqft_per_crs_unit2(
            config.crs_obj)
        if key == "town_boundary" and outside >= 1.0:
            profile = config.applied_regulation().profile
            warnings.append({"code": f"{what.replace(' ', '_')}_partly_outside_town",
                             "text": f"{fmt.sqft(outside)} of the {what} lies outside "
                                     f"{config.name} (the town boundary layer); "
                                     f"{profile.chapter or profile.title} is the Town's, and "
                                     "the rest is another municipality's."})
    return warnings


def parcel_cover(parcels: gpd.GeoDataFrame, impervious: Any, factor: float, *,
                 basis: str | None = None) -> dict[str, Any]:
    """The site's parcels: their area and existing impervious cover (None when not measured),
    with the ``basis`` they were found on (``PARCELS_UNDER_SITE`` or ``PARCELS_GIVEN``)."""
    area = float(shapely.union_all(parcels.geometry.values).area) * factor
    existing = None
    if impervious is not None:
        existing = development_type(parcels[[parcels.geometry.name]],
                                    impervious=impervious)["existing_impervious_sqft"]
    return {"basis": basis, "area_sqft": round(area, 1),
            "existing_impervious_sqft": existing}


# the MS4 condition lives in its own module; these names stay importable from here
from swm_gis.screening.ms4 import MS4_REACH_FT, ms4_reach  # noqa: E402

__all__ = ["MS4_REACH_FT", "ms4_reach", "parcel_cover", "parcels_under_site", "town_check"]

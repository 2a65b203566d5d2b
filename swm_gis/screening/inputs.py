"""What a screening reads around the site: the impervious layer, optional layers by mask, the
map's context layers, and the coverage record of each finding's layers (docs/findings.md).
"""

from __future__ import annotations

from typing import Any

import geopandas as gpd
import numpy as np
import shapely

from swm_gis.config.town import TownConfig
from swm_gis.errors import LayerDataError, NotCoveredError, SwmGisError
from swm_gis.io import layers as io
from swm_gis.io.coverage import coverage_record, town_area
from swm_gis.messages import config_key
from swm_gis.screening.resource_findings import HABITAT_LAYERS
from swm_gis.units import M_PER_FT, metres_per_unit

# --------------------------------------------------------------------------- coverage
#: The layers that could turn each finding into "yes", whose coverage is recorded.
FINDING_LAYERS = {
    "development_type": ("impervious",),
    "watersheds": ("huc12", "huc10"),
    "habitats": HABITAT_LAYERS,
    "floodplain": ("flood_zones",),
    "receiving_waters": ("streams", "waterbodies", "dem", "orw", "impaired_waters",
                         "vernal_pools"),
}


def coverage(config: TownConfig, site_union: shapely.Geometry, *,
              mitigation: gpd.GeoDataFrame | None, flow_path: gpd.GeoDataFrame | None,
              checks: list[dict[str, Any]], site_area: shapely.Geometry | None = None
              ) -> dict[str, dict[str, Any]]:
    """Coverage records ({configured, covers, basis}) of every finding's layers for the area
    that finding searched (docs/findings.md): the site; the site grown by the habitat distance;
    the site and the traced flow path; the mitigation sites."""
    # the town and the rule of swm_gis.io.coverage: the applicability map's, for the same parcel
    town = town_area(config)
    grow = config.rules.habitat_distance_ft * M_PER_FT / metres_per_unit(config.crs_obj)
    path = site_union
    if flow_path is not None and len(flow_path):
        path = shapely.union(site_union, shapely.union_all(flow_path.geometry.values))
    whole = site_union if site_area is None else site_area  # the lot or parcel
    searches = {"development_type": whole, "watersheds": site_union,
                "habitats": site_union, "floodplain": whole, "receiving_waters": path}
    radius = {"habitats": grow}  # the site and everything within the habitat distance of it
    ran = {c["name"]: c.get("ran") for c in checks}
    out: dict[str, dict[str, Any]] = {}
    for key, keys in FINDING_LAYERS.items():
        check_ran = ran.get(key, True) is not False or key == "development_type"
        out[key] = {k: coverage_record(config, k, searches[key] if check_ran else None,
                                       town=town, radius=radius.get(key, 0.0)) for k in keys}
    reasons = {c["name"]: str(c.get("reason") or "") for c in checks}
    if reasons.get("development_type", "").startswith(IMPERVIOUS_NOT_COVERED):
        out["development_type"]["impervious"] = {
            "configured": True, "covers": False,
            "basis": "the raster does not cover the site, so existing cover was not measured"}
    if mitigation is not None:
        sites = shapely.union_all(mitigation.geometry.values)
        out["mitigation"] = {k: coverage_record(config, k, sites, town=town)
                             for k in ("huc12", "huc10")}
    return out


# --------------------------------------------------------------------------- reading
def to_working(frame: gpd.GeoDataFrame | None, config: TownConfig) -> gpd.GeoDataFrame | None:
    if frame is None or frame.crs is None or frame.crs.equals(config.crs_obj):
        return frame
    return frame.to_crs(config.crs)


#: The reason of the development check when the impervious raster does not cover the site.
IMPERVIOUS_NOT_COVERED = "the existing impervious layer does not cover the site"


def read_impervious(config: TownConfig, site_union: shapely.Geometry
                     ) -> tuple[Any, dict[str, Any] | None, str | None]:
    """The impervious layer around the site: a Raster, polygons, or None (with the reason:
    not configured, or a raster that does not cover the site, :data:`IMPERVIOUS_NOT_COVERED`)."""
    if not config.has("impervious"):
        return None, None, "the existing impervious layer is not configured"
    spec = config.layer("impervious")
    if io.is_raster(spec):
        try:
            raster = io.read_raster(config, "impervious", bounds=site_union.bounds)
        except NotCoveredError as exc:  # not a refusal: existing cover is not measured
            if off_town(exc, config):
                raise
            return None, io.source_info(spec), f"{IMPERVIOUS_NOT_COVERED} ({exc})"
        check_impervious_classes(raster, spec)
        return raster, io.source_info(spec), None
    frame = io.read_layer(config, "impervious", bbox=site_union.bounds)
    return frame, io.source_info(spec), None


def off_town(exc: NotCoveredError, config: TownConfig) -> bool:
    """Whether a layer that does not cover the site lies nowhere near the town either (its
    extent misses the town's area): a wrong file or CRS, refused rather than not checked."""
    if exc.layer_bounds is None:
        return False
    town = town_area(config)
    return town is not None and not shapely.intersects(shapely.box(*exc.layer_bounds), town)


def check_impervious_classes(raster: Any, spec: Any) -> None:
    """An impervious raster is classes (0 pervious, non-zero impervious): negative or fractional
    values are another kind of raster (a DEM, a reflectance) and would count as all impervious."""
    values = np.ma.compressed(np.ma.masked_invalid(raster.array))
    if values.size and (values.min() < 0 or not np.all(np.mod(values, 1) == 0)):
        raise LayerDataError(
            f"The impervious raster {spec.path} ({config_key('layers.impervious')}) holds "
            f"values from {values.min():g} to {values.max():g} ({raster.array.dtype}) around the "
            "site; it must be a class raster, 0 for pervious and 1 (any positive whole number) for "
            "impervious cells, like MassGIS's 2016 impervious surface. Point "
            f"{config_key('layers.impervious')} "
            "at that raster."
        )


def read_optional(config: TownConfig, key: str, mask: shapely.Geometry
                   ) -> gpd.GeoDataFrame | None:
    if not config.has(key):
        return None
    return io.read_layer(config, key, mask=mask)


#: How far around the site the map's context layers are read: past the 500 ft ring the map shows.
CONTEXT_REACH_FT = 800.0
#: Map context layer -> (config key, the columns kept).
CONTEXT_LAYERS = {"context_parcels": ("parcels", ["id"]), "streets": ("streets", ["name"]),
                  "waterbodies": ("waterbodies", ["name"])}


def map_context(config: TownConfig, site_union: shapely.Geometry
                ) -> dict[str, gpd.GeoDataFrame]:
    """Parcels, streets and water bodies around the site, for the map's orientation only.

    A layer not configured is simply absent; one that cannot be read is left off the map (it
    decides no finding: the checks read their own layers and report their own errors).
    """
    from swm_gis.units import metres_per_unit

    reach = CONTEXT_REACH_FT * M_PER_FT / metres_per_unit(config.crs)
    x0, y0, x1, y1 = site_union.bounds
    bbox = (x0 - reach, y0 - reach, x1 + reach, y1 + reach)
    out = {}
    for name, (key, columns) in CONTEXT_LAYERS.items():
        if not config.has(key):
            continue
        try:
            frame = io.read_layer(config, key, bbox=bbox)
        except SwmGisError:
            continue
        if len(frame):
            keep = [c for c in columns if c in frame]
            out[name] = gpd.GeoDataFrame(frame[keep], geometry=frame.geometry.values,
                                         crs=frame.crs).reset_index(drop=True)
    return out

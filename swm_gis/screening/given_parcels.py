"""The parcels the user names as the site (``parcels=``): each must touch the limit of
disturbance.

Chapter 320 defines Site as "any lot or parcel of land or area of property where land-disturbing
activities are, were, or will be performed": a parcel the limit of disturbance does not touch is
no such lot, and reading its floodplain or impervious cover as the site's would screen the wrong
land (a mistyped id, a site file for another lot). It is refused, naming it and the parcels the
site does lie on, so the user can correct either.
"""

from __future__ import annotations

import geopandas as gpd
import shapely

from swm_gis.config.town import TownConfig
from swm_gis.errors import ParcelOffSiteError
from swm_gis.messages import option

__all__ = ["check_given_parcels"]


def check_given_parcels(config: TownConfig, given: gpd.GeoDataFrame,
                        site_union: shapely.Geometry) -> None:
    """Refuse any parcel of ``given`` (working CRS, with ``id``) that the limit of disturbance
    ``site_union`` does not touch (a shared boundary counts: it touches); name it and the
    parcels the site lies on, each with the sq ft of the site on it (largest first)."""
    touching = shapely.intersects(given.geometry.values, site_union)
    if bool(touching.all()):
        return
    off = sorted(str(i) for i in given.loc[~touching, "id"])
    on = _parcels_on(config, site_union)
    lies_on = (f"the site lies on parcel(s) {on}" if on else
               "the site lies on no parcel of the parcels layer")
    raise ParcelOffSiteError(
        f"The site (limit of disturbance) does not touch parcel(s) {', '.join(off)} given as "
        f"{option('parcels', 'ID')}; {lies_on}. Give the parcel(s) the work is on, or check "
        "that the site file is for this lot and in the right CRS.")


def _parcels_on(config: TownConfig, site_union: shapely.Geometry) -> str:
    """The parcels the site overlaps by area, "ID (N sq ft)" each, largest share first."""
    from swm_gis import formatting as fmt
    from swm_gis.io import layers as io
    from swm_gis.rules.disturbance import sqft_per_crs_unit2

    frame = io.read_layer(config, "parcels", mask=site_union)
    if not len(frame) or "id" not in frame:
        return ""
    sqft = shapely.area(shapely.intersection(frame.geometry.values, site_union)) \
        * sqft_per_crs_unit2(frame.crs)
    rows = sorted(((float(a), str(i)) for a, i in zip(sqft, frame["id"], strict=True)
                   if a >= 0.5), key=lambda r: (-r[0], r[1]))
    return ", ".join(f"{i} ({fmt.sqft(a)})" for a, i in rows)

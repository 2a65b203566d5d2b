"""The one refusal of a frame without a CRS, shared by every frame-level rule.

A GeoDataFrame without a coordinate reference system has coordinates in unknown units: taking
them as metres (or feet) would turn a 100 ft rule into a 328 ft or a 30 ft one without a word.
Every rule on frames (:func:`swm_gis.find_abutters`, :func:`swm_gis.disturbance_trigger`,
:func:`swm_gis.development_type`, :func:`swm_gis.watershed_shares`,
:func:`swm_gis.mitigation_eligibility`, :func:`swm_gis.floodplain_overlap`,
:func:`swm_gis.habitats_within`, :func:`swm_gis.trace_receiving_waters`,
:func:`swm_gis.classify_parcels`) calls :func:`require_crs` first and raises the same
:class:`~swm_gis.errors.CrsError`.

>>> import geopandas as gpd, shapely
>>> require_crs(gpd.GeoDataFrame(geometry=[shapely.box(0, 0, 1, 1)]), what="site")
Traceback (most recent call last):
...
swm_gis.errors.CrsError: The site has no coordinate reference system, so its distances and \
areas cannot be measured: set one (gdf.set_crs("EPSG:26986"), or the CRS the coordinates are \
in) or read it through the town config.
"""

from __future__ import annotations

from typing import Any

from pyproj import CRS

from swm_gis.errors import CrsError

__all__ = ["no_crs_message", "require_crs"]


def no_crs_message(what: str) -> str:
    """The message of a frame ``what`` without a CRS (one wording for every rule)."""
    return (f"The {what} has no coordinate reference system, so its distances and areas cannot "
            'be measured: set one (gdf.set_crs("EPSG:26986"), or the CRS the coordinates are '
            "in) or read it through the town config.")


def require_crs(frame: Any, *, what: str) -> CRS:
    """The CRS of ``frame`` (a GeoDataFrame or GeoSeries); :class:`CrsError` when it has none."""
    crs = getattr(frame, "crs", None)
    if crs is None:
        raise CrsError(no_crs_message(what))
    return CRS.from_user_input(crs)

"""Units, in one place: feet and metres, square feet and acres, the units of a CRS, and the one
refusal of a frame without a CRS, shared by every frame-level rule.

Reports speak US units (feet, square feet, acres); geometry is measured in the working CRS
(metres for EPSG:26986, US survey feet for EPSG:2249): :func:`metres_per_unit`,
:func:`feet_per_unit` and :func:`sqft_per_unit2` convert between them.

>>> M_PER_FT, SQFT_PER_ACRE, round(feet_per_unit("EPSG:26986"), 4)
(0.3048, 43560.0, 3.2808)
>>> metres_per_unit("EPSG:26986"), round(metres_per_unit("EPSG:2249"), 7)
(1.0, 0.3048006)

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

__all__ = ["FT_PER_M", "M_PER_FT", "SQFT_PER_ACRE", "SQFT_PER_SQM", "feet_per_unit",
           "metres_per_unit", "no_crs_message", "require_crs", "sqft_per_unit2"]

#: Metres in one international foot.
M_PER_FT = 0.3048
#: Feet in one metre.
FT_PER_M = 1.0 / M_PER_FT
#: Square feet in one acre (the permit trigger: one acre, 43,560 sq ft).
SQFT_PER_ACRE = 43_560.0
#: Square feet in one square metre.
SQFT_PER_SQM = FT_PER_M**2


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


def metres_per_unit(crs: Any) -> float:
    """Metres in one unit of a projected CRS's x axis; the one place units are converted.

    No CRS is refused (its units are unknown, not metres), and so is a geographic one (degrees).
    """
    if crs is None:
        raise CrsError(no_crs_message("frame"))
    obj = CRS.from_user_input(crs)
    if not obj.is_projected:
        raise CrsError(
            f"Distances and areas cannot be measured in the geographic CRS {obj.to_string()} "
            "(degrees); reproject to a projected CRS such as EPSG:26986 (layers read through the "
            "town config are brought into its working CRS)."
        )
    return float(obj.axis_info[0].unit_conversion_factor)


def feet_per_unit(crs: Any) -> float:
    """Feet in one unit of a projected CRS's x axis (3.2808... for metres).

    >>> round(feet_per_unit("EPSG:2249"), 6)
    1.000002
    """
    return metres_per_unit(crs) / M_PER_FT


def sqft_per_unit2(crs: Any) -> float:
    """Square feet in one squared unit of a projected CRS (metres, feet or US survey feet)."""
    return (metres_per_unit(crs) / M_PER_FT) ** 2

"""Warnings of the abutter job and its ``abutters.json`` document (SPEC section 5).

A warning is ``{"code", "text"}``: the code is stable for programs (the QGIS plugin, scripts),
the text says what happened and what to do. The codes:

``parcels_missing_beyond_edge``
    The search area reaches past the parcels the config provides: off the extent of the parcel
    source(s), or beyond ``[layers.town_boundary]`` where no parcels were given (a town line
    whose neighbour's parcels are not configured). Owners there cannot be listed.
``right_of_way_not_subject``
    A ``--site`` reaches into a right-of-way or water polygon: it is not the applicant's land and
    is not made a subject (else a street network would pull in half the town).
``subject_is_right_of_way``
    A subject given by ``--parcel`` is itself a right-of-way or water polygon.
``many_abutters``
    More abutting parcels than ``[rules] abutter_warning_count`` (500): said before hundreds of
    pages are written (``--max-abutters N`` stops instead).
``no_assessing_data``
    No ``[layers.assess]``: no owner can be named.
``address_does_not_fit``
    A recipient's address (not the name: a long name gives way) cannot be printed whole on the
    label or in the mailing book even at the smallest size; that piece must be addressed by hand.
``map_context_unread``
    An optional map layer (streets) could not be read; the map is drawn without it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import geopandas as gpd
import numpy as np
import shapely

from swm_gis.config.town import TownConfig
from swm_gis.io import layers

#: Uncovered strips narrower than this (metres, each side) are digitising noise between a town
#: boundary and parcel lines drawn from deeds, not missing parcels.
SLIVER_M = 3.0
#: Beyond the town boundary, parcels must cover at least this share of the search area there
#: (streets without polygons leave the rest) for the neighbour to count as provided.
MIN_COVERED_SHARE = 0.5
ABUTTERS_SCHEMA_ID = "https://swm-gis.example/schemas/abutters.schema.json"


def warning(code: str, text: str) -> dict[str, str]:
    return {"code": code, "text": text}


# --------------------------------------------------------------------------- coverage
def source_extents(config: TownConfig, key: str = "parcels") -> list[shapely.Geometry] | None:
    """The extent (bounding box, working CRS) of each source of a layer, from
    :func:`swm_gis.io.layers.source_extents`; None when unknown (a source that cannot be read or
    states no extent: the town-boundary test still runs).

    A layer whose ``path`` is a list (several towns' parcels read as one) gives one box per
    source, so the coverage test sees the gap between two towns' boxes too. An empty source
    covers nothing and gives no box.
    """
    try:
        found = layers.source_extents(config, key)
    except Exception:  # noqa: BLE001 - an extent we cannot read is unknown
        return None
    boxes = []
    for source in found:
        if source["bounds"] is None:
            if source.get("features") == 0:
                continue
            return None
        boxes.append(shapely.box(*source["bounds"]))
    return boxes


def missing_parcels_area(
    area: shapely.Geometry,
    parcels: Sequence[shapely.Geometry] | np.ndarray,
    *,
    extents: Iterable[shapely.Geometry] | None,
    boundary: shapely.Geometry | None,
    metres_per_unit: float = 1.0,
) -> tuple[shapely.Geometry, list[str]]:
    """The part of the search ``area`` where parcels are missing, and why (phrases).

    Two tests: the part of the area outside every source's extent (no source reaches there);
    and, when a town boundary is given, the part beyond it that no parcel covers, counted only
    when parcels cover less than :data:`MIN_COVERED_SHARE` of the area beyond the line (the
    neighbour's parcels are not in the data). Strips under :data:`SLIVER_M` wide are ignored.
    """
    sliver = SLIVER_M / metres_per_unit
    gaps, why = [], []
    extents = list(extents) if extents is not None else []
    if extents:
        outside = shapely.difference(area, shapely.union_all(extents))
        if not shapely.buffer(outside, -sliver).is_empty:
            gaps.append(outside)
            why.append("off the extent of the parcel layer")
    if boundary is not None and not boundary.is_empty:
        beyond = shapely.difference(area, boundary)
        if not shapely.buffer(beyond, -sliver).is_empty:
            geoms = np.asarray(parcels)
            near = geoms[shapely.intersects(geoms, beyond)] if len(geoms) else geoms
            uncovered = shapely.difference(beyond, shapely.union_all(near)) if len(near) \
                else beyond
            share = 1.0 - shapely.area(uncovered) / max(shapely.area(beyond), 1e-12)
            if share < MIN_COVERED_SHARE and not shapely.buffer(uncovered, -sliver).is_empty:
                gaps.append(uncovered)
                why.append("beyond the town boundary ([layers.town_boundary]), where the "
                           "config provides no parcels")
    if not gaps:
        return shapely.Polygon(), []
    return shapely.union_all(gaps), why


def compass(origin: shapely.Geometry, target: shapely.Geometry) -> str:
    """The direction from ``origin`` to ``target`` (their centroids), in eight points."""
    a, b = shapely.centroid(origin), shapely.centroid(target)
    angle = math.degrees(math.atan2(b.y - a.y, b.x - a.x))
    names = ["east", "north-east", "north", "north-west", "west", "south-west", "south",
             "south-east"]
    return names[int(((angle + 22.5) % 360) // 45)]


def edge_warning(config: TownConfig, subject: gpd.GeoDataFrame, area: gpd.GeoDataFrame,
                 candidates: gpd.GeoDataFrame, *, distance_ft: float) -> dict[str, str] | None:
    """Warning ``parcels_missing_beyond_edge`` when the search area reaches past the parcels
    provided (see :func:`missing_parcels_area`), naming where and what to add."""
    from swm_gis.config.town import metres_per_unit

    area_geom = shapely.union_all(area.geometry.values)
    boundary = None
    if config.has("town_boundary"):
        x0, y0, x1, y1 = area_geom.bounds
        town = layers.read_layer(config, "town_boundary", bbox=(x0, y0, x1, y1))
        boundary = shapely.union_all(town.geometry.values) if len(town) else shapely.Polygon()
    factor = metres_per_unit(config.crs)
    gap, why = missing_parcels_area(area_geom, candidates.geometry.values,
                                    extents=source_extents(config), boundary=boundary,
                                    metres_per_unit=factor)
    if gap.is_empty:
        return None
    sqft = shapely.area(gap) * (factor / 0.3048) ** 2
    where = compass(shapely.union_all(subject.geometry.values), gap)
    return warning("parcels_missing_beyond_edge", (
        f"The {distance_ft:g} ft search area reaches {sqft:,.0f} sq ft to the {where} of the "
        f"subject where the config provides no parcels ({'; '.join(why)}): owners there, e.g. "
        "across the town line, are not listed. Add the neighbouring town's parcels as a further "
        "source in [layers.parcels] path (a list; MassGIS publishes each town as "
        "L3_SHP_M<town id>_<NAME>.zip) and its assessing table in [layers.assess] path, then "
        "run again."))


# --------------------------------------------------------------------------- other warnings
def right_of_way_warning(skipped: Sequence[str]) -> dict[str, str] | None:
    if not skipped:
        return None
    return warning("right_of_way_not_subject", (
        f"The site reaches into right-of-way or water polygon(s) {', '.join(skipped)}: they are "
        "not the applicant's land and are not subject parcels (their abutters are not "
        "notified for them). If part of the work lies in a street, the street's owner is "
        "notified through the town, not by this list."))


def subject_right_of_way_warning(ids: Sequence[str]) -> dict[str, str] | None:
    if not ids:
        return None
    return warning("subject_is_right_of_way", (
        f"The subject {', '.join(ids)} is a right-of-way or water polygon (no owner): its "
        "abutters are everyone along it. Give the applicant's own parcel(s) as the subject "
        "(--parcel ID or --site FILE)."))


def many_abutters_warning(n_abutting: int, limit: int, *, distance_ft: float
                          ) -> dict[str, str] | None:
    if n_abutting <= limit:
        return None
    return warning("many_abutters", (
        f"{n_abutting} parcels lie within {distance_ft:g} ft of the subject, more than the "
        f"usual {limit} ([rules] "
        "abutter_warning_count): check the subject and the distance (a street, railway or "
        "water polygon given as the subject reaches half the town). The package is written "
        "anyway; pass --max-abutters N to stop instead."))


def address_fit_warning(recips, *, label_template: str = "5160") -> dict[str, str] | None:
    """Warning ``address_does_not_fit`` naming the recipients whose address is shortened on the
    ``label_template`` labels or in the certified-mail book (normally none)."""
    from swm_gis.reports.certified_mail import unfit_addressees
    from swm_gis.reports.labels import unfit_addresses

    names = list(dict.fromkeys([*unfit_addresses(recips, template=label_template),
                                *unfit_addressees(recips)]))
    if not names:
        return None
    shown = "; ".join(names[:5]) + (f"; and {len(names) - 5} more" if len(names) > 5 else "")
    return warning("address_does_not_fit", (
        f"The mailing address of {len(names)} recipient(s) is too long to print whole on the "
        f"labels or in the certified-mail book, even at the smallest size: {shown}. Their "
        "pieces are shortened with an ellipsis: address them by hand from mailing_list.csv."))


def no_assess_warning() -> dict[str, str]:
    return warning("no_assessing_data", "No [layers.assess] in the config: no owners could be "
                   "named and the mailing list is empty.")


# --------------------------------------------------------------------------- abutters.json
def package_counts(listed, left, recipient_counts: Mapping[str, int]) -> dict[str, int]:
    """The counts of ``abutters.json``: abutting, left out, no owner of record, other town,
    then every count of :func:`swm_gis.rules.owners.build_recipients`."""
    n = len(listed)
    no_owner = int((~listed["owner_of_record"].astype(bool)).sum()) if n else 0
    other = int(listed["other_town"].astype(bool).sum()) if n else 0
    return {"abutting": n, "left_out": len(left), "no_owner_of_record": no_owner,
            "other_town": other, **{k: int(v) for k, v in recipient_counts.items()}}


def abutters_document(info, *, counts: Mapping[str, int], warnings: list[dict[str, str]],
                      site_source: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The ``abutters.json`` document (schema ``swm_gis/schemas/abutters.schema.json``)."""
    return {
        "town": info.town,
        "synthetic": bool(info.synthetic),
        "generated": info.generated,
        "section": f"Chapter 320 {info.section}",
        "subject": {"parcel_ids": list(info.subject_ids), "site": site_source},
        "distance_ft": float(info.distance_ft),
        "include_subject": bool(info.include_subject),
        "fiscal_years": list(info.fiscal_years),
        "counts": dict(counts),
        "warnings": list(warnings),
        "notes": list(info.notes),
        "sources": [dict(s) for s in info.sources],
    }


__all__ = ["abutters_document", "address_fit_warning", "compass", "edge_warning",
           "many_abutters_warning",
           "missing_parcels_area", "no_assess_warning", "package_counts",
           "right_of_way_warning", "source_extents", "subject_right_of_way_warning",
           "warning"]

"""Land of others under the limit of disturbance: the parcels, streets, ways and water it lies on
that are not the site's lot.

Chapter 320, permit procedure, A: "While the applicant can be a representative, the permittee
must be the owner of the site", and A(1): the application form carries the "original signatures
of all owners". Disturbance on another owner's parcel, a street or way, or water is therefore
named, with its id, owner (where known) and area (:func:`land_of_others`); the screening words
it as the warning ``disturbance_on_land_of_others`` (:mod:`swm_gis.screening.site_land`).

Examples
--------
>>> from shapely.geometry import box
>>> parcels = gpd.GeoDataFrame(
...     {"id": ["LOT", "NEXT", "ST"], "poly_type": ["FEE", "FEE", "ROW"],
...      "owner": ["A", "B", None]}, crs="EPSG:26986",
...     geometry=[box(0, 0, 30, 40), box(30, 0, 60, 40), box(0, 40, 60, 50)])
>>> lod = box(10, 10, 40, 45)  # 10 m into NEXT (10 x 30) and 5 m into the street (30 x 5)
>>> [(e["id"], e["kind"], e["owner"], round(e["sqft"])) for e in
...  land_of_others(parcels, lod, subject_ids=["LOT"], factor=10.7639104)]
[('NEXT', 'parcel', 'B', 3229), ('ST', 'ROW', None, 1615)]
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import geopandas as gpd
import numpy as np
import pandas as pd
import shapely

from swm_gis.config.town import Rules
from swm_gis.ids import id_text
from swm_gis.rules.abutters import no_owner_kind

__all__ = ["NO_PARCEL", "land_of_others"]

#: The kind of the part of the limit of disturbance no polygon of the parcels layer holds.
NO_PARCEL = "no_parcel"


def land_of_others(parcels: gpd.GeoDataFrame, lod: shapely.Geometry, *,
                   subject_ids: Iterable[str], factor: float, rules: Rules | None = None,
                   town: shapely.Geometry | None = None,
                   min_sqft: float = 1.0) -> list[dict[str, Any]]:
    """The land the limit of disturbance ``lod`` covers outside the site's parcels.

    Parameters
    ----------
    parcels
        The parcels around the limit (its CRS), with ``id``, optional ``poly_type`` (MassGIS
        ROW, PRIV_ROW, RAIL_ROW, WATER: :func:`swm_gis.rules.abutters.no_owner_kind`) and
        optional ``owner``.
    lod
        The limit of disturbance (its union).
    subject_ids
        The ids of the site's own parcel(s), left out.
    factor
        Square feet per square CRS unit.
    town
        The town's area, when known: land outside it is another municipality's (the
        screening's own warning), not land the parcels layer leaves unmapped.
    min_sqft
        An overlap under this is coordinate noise, not disturbance.

    Returns
    -------
    list of dict
        ``{id, kind, owner, sqft}``, largest first: ``kind`` is the polygon's ``poly_type``
        (``"ROW"``, ``"WATER"``, ...), ``"rule"`` (marked right-of-way by the town config) or
        ``"parcel"``; then, when the limit covers land no polygon holds,
        ``{id: None, kind: "no_parcel", owner: None, sqft}``. Overlapping parcel polygons each
        count their own overlap; the part on no parcel counts once.
    """
    subjects = {id_text(v) for v in subject_ids}
    geoms = np.asarray(parcels.geometry.values)
    out: list[dict[str, Any]] = []
    if len(geoms):
        sqft = shapely.area(shapely.intersection(geoms, lod)) * factor
        kinds = no_owner_kind(parcels, rules or Rules())
        ids = parcels["id"] if "id" in parcels else pd.Series([None] * len(parcels))
        owners = parcels["owner"] if "owner" in parcels else pd.Series([None] * len(parcels))
        for pid, kind, owner, area in zip(ids, kinds, owners, sqft, strict=True):
            if area < min_sqft or id_text(pid) in subjects:
                continue
            out.append({"id": id_text(pid), "kind": _kind(str(kind)),
                        "owner": None if owner is None or pd.isna(owner) else str(owner),
                        "sqft": round(float(area), 1)})
    out.sort(key=lambda e: -e["sqft"])
    covered = shapely.union_all(geoms) if len(geoms) else shapely.Polygon()
    bare_geom = shapely.difference(lod, covered)
    if town is not None:
        bare_geom = shapely.intersection(bare_geom, town)
    bare = float(shapely.area(bare_geom)) * factor
    if bare >= min_sqft:
        out.append({"id": None, "kind": NO_PARCEL, "owner": None, "sqft": round(bare, 1)})
    return out


def _kind(kind: str) -> str:
    """A polygon's kind: its POLY_TYPE, "rule" (the config's right-of-way rule) or "parcel"."""
    if not kind:
        return "parcel"
    return "rule" if "=" in kind else kind

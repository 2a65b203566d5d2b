"""The warning ``disturbance_on_land_of_others``: the limit of disturbance on land that is not
the site's lot (Chapter 320, permit procedure, A and A(1)).

:func:`land_warning` reads the parcels under the limit of disturbance and their owners of record
(``[layers.assess]``, where configured), measures the land of others
(:func:`swm_gis.rules.site_land.land_of_others`) and words it from the data table
``swm_gis/tables/site_land.toml`` (what a street, way or water polygon is called, the duty and
its citation). Used by :func:`swm_gis.screening.build.build_screening`.
"""

from __future__ import annotations

import functools
import tomllib
from importlib import resources
from typing import Any

import geopandas as gpd
import shapely

from swm_gis import formatting as fmt
from swm_gis.config.regulation import DEFAULT_ID, load_regulation
from swm_gis.config.town import TownConfig
from swm_gis.ids import id_text
from swm_gis.io import layers as io
from swm_gis.rules.owners import owner_display
from swm_gis.rules.site_land import NO_PARCEL, land_of_others
from swm_gis.screening.wording import wording_for

__all__ = ["land_table", "land_text", "land_warning"]

#: A condominium's owners named in the warning before "and N more".
_MOST_OWNERS = 3


@functools.cache
def land_table() -> dict[str, Any]:
    """The words of the warning (``swm_gis/tables/site_land.toml``)."""
    text = resources.files("swm_gis").joinpath("tables/site_land.toml").read_text(
        encoding="utf-8")
    return tomllib.loads(text)


def land_warning(config: TownConfig, lod: shapely.Geometry, site_parcels: gpd.GeoDataFrame, *,
                 factor: float, regulation: Any = None) -> dict[str, Any] | None:
    """The warning naming the land of others under the limit of disturbance ``lod``, or None.

    ``site_parcels`` are the site's own (``id``); ``factor`` is sq ft per square CRS unit.
    Returns ``{code, text, section, land}`` (``land``: the entries of
    :func:`~swm_gis.rules.site_land.land_of_others`); the duty and its citation are those of
    ``regulation`` (the town's in force today by default: :mod:`swm_gis.screening.wording`).
    """
    frame = io.read_layer(config, "parcels", mask=lod)
    if not len(frame) and io.layer_info(config.layer("parcels")).get("features") == 0:
        return None  # a run without parcels (town_not_checked says so): no land is known
    subject_ids = ([t for i in site_parcels["id"] if (t := id_text(i))]
                   if "id" in site_parcels else [])
    owners = _owners(config, [t for i in frame["id"] if (t := id_text(i))]
                     if "id" in frame else [])
    if "id" in frame:
        frame = frame.assign(owner=[owners.get(id_text(i) or "") for i in frame["id"]])
    town = None
    if config.has("town_boundary"):  # outside it: the warning site_partly_outside_town
        bounds = io.read_layer(config, "town_boundary", mask=lod)
        town = shapely.union_all(bounds.geometry.values) if len(bounds) else shapely.Polygon()
    land = land_of_others(frame, lod, subject_ids=subject_ids, factor=factor,
                          rules=config.rules, town=town)
    if not land:
        return None
    table = land_table()
    site_owners = {owners[i] for i in subject_ids if owners.get(i)}
    words = wording_for(regulation or config.applied_regulation())
    return {"code": table["code"],
            "text": land_text(land, site_owners=site_owners, duty=words.note("site_owner")),
            "section": words.note("site_owner_citation"), "land": land}


def land_text(land: list[dict[str, Any]], *, site_owners: set[str] = frozenset(),
              duty: str | None = None) -> str:
    """The warning's text: each piece of land with its kind, id, owner and area, then the duty
    (the regulation's: default, the default profile's).

    >>> land_text([{"id": "M_2", "kind": "parcel", "owner": "B", "sqft": 3229.2},
    ...            {"id": "M_3", "kind": "ROW", "owner": None, "sqft": 1614.6}]).split(". ")[0]
    "The limit of disturbance lies on land that is not the site's lot: parcel M_2 (owner B), \
3,229 sq ft; street or way M_3, 1,615 sq ft"
    """
    table = land_table()
    duty = duty or str(wording_for(load_regulation(DEFAULT_ID)).note("site_owner"))
    kinds = table["kinds"]
    parts = []
    for entry in land:
        area = fmt.sqft(entry["sqft"])
        if entry["kind"] == NO_PARCEL:
            parts.append(f"{area} {table['no_parcel']}")
            continue
        what = kinds.get(entry["kind"], kinds["parcel"])
        owner = entry.get("owner")
        if owner and owner in site_owners:
            who = f" ({table['same_owner']}: {owner})"
        elif owner:
            who = f" (owner {owner})"
        else:
            who = f" ({table['unknown_owner']})" if entry["kind"] == "parcel" else ""
        parts.append(f"{what} {entry['id'] or '(no id)'}{who}, {area}")
    return f"{table['lead']}: {'; '.join(parts)}. {duty[0].upper()}{duty[1:]}."


def _owners(config: TownConfig, ids: list[str]) -> dict[str, str]:
    """Owner(s) of record by parcel id, where the assessing table has them: read as the abutter
    job reads them (:func:`swm_gis.io.layers.read_by_ids`; ids by
    :func:`swm_gis.ids.id_text`); a condominium's many owners are shortened."""
    if not ids or not config.has("assess"):
        return {}
    table = io.read_by_ids(config, "assess", "parcel_id", ids)
    if "owner" not in table or "parcel_id" not in table:
        return {}
    co = table["co_owner"] if "co_owner" in table else [None] * len(table)
    names: dict[str, list[str]] = {}
    for pid, owner, co_owner in zip(table["parcel_id"], table["owner"], co, strict=True):
        name = owner_display(owner, co_owner)
        listed = names.setdefault(id_text(pid) or "", [])
        if name and name not in listed:
            listed.append(name)
    return {pid: "; ".join(n[:_MOST_OWNERS]) + (f"; and {len(n) - _MOST_OWNERS} more"
                                                if len(n) > _MOST_OWNERS else "")
            for pid, n in names.items() if n}

"""The ids clerks type for a subject parcel: the parcel id or the assessor's map-lot.

``abutter_package(parcels=...)`` takes the parcels layer's id field (MassGIS ``LOC_ID``) or its
``map_par_id`` (MassGIS ``MAP_PAR_ID``, e.g. ``7-K-33``), exactly or written with other spacing
and punctuation when that matches one parcel only; a value matching nothing is refused with the
nearest ids and map-lots (docs/abutters.md).
"""

from __future__ import annotations

import difflib
import re

import geopandas as gpd
import pandas as pd

from swm_gis.config.town import TownConfig, layer_key
from swm_gis.errors import UnknownParcelError
from swm_gis.ids import id_series, id_text
from swm_gis.io import layers, sanity
from swm_gis.messages import option


def _loose(text: object) -> str:
    """An id as a clerk may type it: case, spaces and punctuation ignored ("7-K-33" = "7K33")."""
    return re.sub(r"[^0-9A-Z]", "", str(text).upper())


def resolve_parcel_ids(cfg: TownConfig, given: list[str]
                       ) -> tuple[list[str], list[str], gpd.GeoDataFrame | None]:
    """The parcel ids of what a clerk typed: a parcel id (``[layers.parcels.fields] id``) or
    the assessor's map-lot (``map_par_id``, MassGIS ``MAP_PAR_ID``), exactly, else written
    with other spacing or punctuation when that matches one parcel only.

    Returns the ids, one note per value not matched as a parcel id (which field it matched)
    and, when every value was an id as given, the parcels read to check them (else None).
    Raises :class:`~swm_gis.errors.UnknownParcelError` listing near matches when a value matches
    nothing.
    """
    given = list(dict.fromkeys(id_text(v) or "" for v in given))
    if "" in given:
        raise UnknownParcelError(f"A parcel id is empty ({option('parcels')} \"\"); give the "
                                 "parcel's id, e.g. its MassGIS LOC_ID, or its map-lot "
                                 "(MAP_PAR_ID).")
    by_id = layers.read_by_ids(cfg, "parcels", "id", given)
    found = set(id_series(by_id["id"]).dropna())
    resolved = {g: [g] for g in given if g in found}
    notes: list[str] = []
    missing = [g for g in given if g not in resolved]
    if not missing:
        return given, notes, by_id
    fields = layers.field_map(cfg, "parcels")
    if missing and fields.get("map_par_id") and fields["map_par_id"] != fields.get("id"):
        _match_map_lots(cfg, missing, fields, resolved, notes)
    missing = [g for g in given if g not in resolved]
    if missing:
        _match_loosely(cfg, missing, fields, resolved, notes)
    ids_out = list(dict.fromkeys(i for g in given for i in resolved[g]))
    return ids_out, notes, None


def _match_map_lots(cfg: TownConfig, missing: list[str], fields: dict[str, str | None],
                    resolved: dict[str, list[str]], notes: list[str]) -> None:
    """Values that are a map-lot exactly: their parcel ids into ``resolved``, a note each."""
    rows = layers.read_by_ids(cfg, "parcels", "map_par_id", missing)
    for g in missing:
        hit = id_series(rows.loc[rows["map_par_id"].astype(str) == g, "id"]).dropna()
        if len(hit):
            resolved[g] = list(dict.fromkeys(hit))
            notes.append(f"The parcel given as {g} matched the map-lot ({fields['map_par_id']}) of "
                         f"parcel(s) {', '.join(resolved[g])}.")


def _match_loosely(cfg: TownConfig, missing: list[str], fields: dict[str, str | None],
                   resolved: dict[str, list[str]], notes: list[str]) -> None:
    """Values that match one parcel's id or map-lot written otherwise: into ``resolved``, a
    note each; any value left raises :class:`~swm_gis.errors.UnknownParcelError`."""
    raw, known = _known_parcels(cfg, fields)
    near: dict[str, list[str]] = {}
    for g in missing:
        exact = _loose_matches(known, g)
        if len(exact) == 1:
            resolved[g] = exact
            notes.append(f"The parcel given as {g} matched parcel {exact[0]} (written there as "
                         f"{_shown_as(known, exact[0], g)}).")
        else:
            near[g] = exact or _near_matches(known, g)
    if near:
        every_id = raw.to_frame()  # an id field empty in every row: say that instead
        sanity.check_ids(every_id, cfg.layer("parcels"), field_map={"id": fields.get("id")},
                         whole_layer=True)
        raise UnknownParcelError(_unknown_text(cfg, near, fields))


def _known_parcels(cfg: TownConfig, fields: dict[str, str | None]
                   ) -> tuple[pd.Series, pd.DataFrame]:
    """The parcels layer's id column as read, and every parcel's id (as text) and map-lot."""
    raw = layers.read_column(cfg, "parcels", "id")
    maplots = (layers.read_column(cfg, "parcels", "map_par_id") if fields.get("map_par_id")
               else pd.Series([], dtype=object))
    known = pd.DataFrame({"id": raw.astype(object).to_numpy()})
    if len(maplots) == len(raw):
        known["map_par_id"] = maplots.astype(object).to_numpy()
    known = known.assign(id=id_series(known["id"]))
    return raw, known.loc[known["id"].notna()]


def _loose_matches(known: pd.DataFrame, given: str) -> list[str]:
    key = _loose(given)
    if not key:
        return []
    hits = known["id"].map(_loose) == key
    if "map_par_id" in known:
        hits |= known["map_par_id"].map(lambda v: pd.notna(v) and _loose(v) == key)
    return list(dict.fromkeys(known.loc[hits, "id"]))


def _shown_as(known: pd.DataFrame, pid: str, given: str) -> str:
    row = known.loc[known["id"] == pid].iloc[0]
    if "map_par_id" in known and pd.notna(row.get("map_par_id")) and \
            _loose(row["map_par_id"]) == _loose(given):
        return f'map-lot "{row["map_par_id"]}"'
    return f'id "{pid}"'


def _near_matches(known: pd.DataFrame, given: str, most: int = 5) -> list[str]:
    """Parcels whose id or map-lot reads most like ``given`` (shown as "id (map-lot)")."""
    labels: dict[str, str] = {}
    for rec in known.to_dict("records"):
        labels.setdefault(_loose(rec["id"]), rec["id"])
        ml = rec.get("map_par_id")
        if ml is not None and pd.notna(ml) and str(ml) != rec["id"]:
            labels.setdefault(_loose(ml), f"{ml} (map-lot of parcel {rec['id']})")
    keys = difflib.get_close_matches(_loose(given), list(labels), n=most, cutoff=0.6)
    return list(dict.fromkeys(labels[k] for k in keys))


def _unknown_text(cfg: TownConfig, near: dict[str, list[str]], fields: dict) -> str:
    spec = cfg.layer("parcels")
    also = (f' nor among the map-lots (field "{fields["map_par_id"]}")'
            if fields.get("map_par_id") and fields["map_par_id"] != fields.get("id") else "")
    parts = [f"{g}: near matches {', '.join(options)}" if options else f"{g}: no near match"
             for g, options in near.items()]
    return (f"Parcel id(s) {', '.join(near)} not found in field \"{fields.get('id')}\"{also} "
            f"of {spec.describe()} ({layer_key('parcels')}); {'; '.join(parts)}. Check the "
            "number on "
            "the assessor's map" + (", or give one of the near matches." if any(
                near.values()) else ". If no id of the town reads like it, the config may key "
                "the parcels by another field: the town's GIS staff sets "
                f"{layer_key('parcels.fields', 'id')}.")
            + (layers.SEVERAL_PARCELS if any("," in g for g in near) else ""))


__all__ = ["resolve_parcel_ids"]

"""The join of abutting parcels to their owners of record, checked before a package is made.

A config whose parcel id names the wrong field joins no assessing record: the package would
certify an empty list. :func:`check_owner_join` refuses it (:class:`OwnerJoinError`, exit 2 on
the command line); ``data validate`` reports the town-wide join rate
(:func:`owner_join_rate`). Both, and the package's ``owner_of_record``, measure the join one way:
:func:`owned_parcel_ids` (the parcel ids with an owner in the assessing table) against the
parcels' ids, each written by :func:`swm_gis.ids.id_text`. :func:`subject_owners` feeds the
warning ``subjects_have_different_owners``.
"""

from __future__ import annotations

from collections.abc import Mapping

import geopandas as gpd
import pandas as pd

from swm_gis.config.town import Rules, TownConfig
from swm_gis.errors import SwmGisError
from swm_gis.ids import id_series
from swm_gis.messages import config_key
from swm_gis.rules.abutters import no_owner_type
from swm_gis.rules.owners import clean_text


class OwnerJoinError(SwmGisError):
    """The assessing table joins none of the abutting parcels: the id fields do not match.
    ``details``: ``ownable`` (how many abutters can have an owner) and ``examples`` (their
    first ids)."""

    def __init__(self, message: object = "", *args: object, ownable: int = 0,
                 examples: tuple[str, ...] = ()) -> None:
        super().__init__(message, *args)
        self.details = {"ownable": ownable, "examples": list(examples)}


def check_owner_join(config: TownConfig, listed: gpd.GeoDataFrame, assess: pd.DataFrame, *,
                     parcels_fields: Mapping[str, str | None] | None = None,
                     assess_fields: Mapping[str, str | None] | None = None) -> None:
    """Refuse a package whose ownable abutters all lack an assessing record (see
    :class:`OwnerJoinError`): every owner would be missing and the list certified empty.

    ``parcels_fields`` and ``assess_fields`` map logical fields to the source fields read
    (:func:`swm_gis.io.layers.field_map`); the message names them (else the config's names).
    """
    ownable = listed.loc[~listed["is_subject"].astype(bool)] if "is_subject" in listed \
        else listed
    if ownable.empty or ownable["owner_of_record"].astype(bool).any():
        return
    parcels_spec, assess_spec = config.layer("parcels"), config.layer("assess")
    field_of = {"parcels": (parcels_fields or {}).get("id"),
                "assess": (assess_fields or {}).get("parcel_id")}
    examples = tuple(id_series(ownable["id"]).dropna().head(3))
    example = ", ".join(examples) or "(none)"
    raise OwnerJoinError(
        f"None of the {len(ownable)} abutting parcel(s) that can have an owner joins a record "
        f"of {assess_spec.describe()} ({config_key('layers.assess')}): their ids (e.g. "
        f"{example}, field "
        f"{field_of['parcels'] or parcels_spec.fields.get('id')!r} of "
        f"{parcels_spec.describe()}) are not in the assessing table's field "
        f"{field_of['assess'] or assess_spec.fields.get('parcel_id')!r}, so every owner would "
        f"be missing. Check {config_key('layers.parcels.fields', 'id')} and "
        f"{config_key('layers.assess.fields', 'parcel_id')}: "
        "they must name fields holding the same ids (MassGIS: LOC_ID in both); "
        "swm-gis data validate reports the join rate.", ownable=len(ownable), examples=examples)


def owned_parcel_ids(assess: pd.DataFrame) -> set[str]:
    """The parcel ids (:func:`~swm_gis.ids.id_text`) of the assessing rows that name an owner:
    a parcel whose id is among them joins its owner of record, everywhere (the package's
    ``owner_of_record``, :func:`owner_join_rate`)."""
    if assess.empty or "parcel_id" not in assess:
        return set()
    owner = assess["owner"] if "owner" in assess else pd.Series("", index=assess.index)
    return set(id_series(assess.loc[(owner.map(clean_text) != "").to_numpy(),
                                    "parcel_id"]).dropna())


def owner_join_rate(parcels: pd.DataFrame, assess: pd.DataFrame, rules: Rules
                    ) -> tuple[int, int, dict[str, tuple[int, int]]]:
    """How many parcels that can have an owner (not right-of-way or water, with an id) join an
    owner of record (:func:`owned_parcel_ids`): ``(joined, ownable, {POLY_TYPE: (joined,
    ownable)})``."""
    ids = id_series(parcels["id"])
    ownable = ids.notna().to_numpy() & ~no_owner_type(parcels, rules).to_numpy(bool)
    joined = ids.isin(owned_parcel_ids(assess)).to_numpy() & ownable
    by_type: dict[str, tuple[int, int]] = {}
    if "poly_type" in parcels and parcels["poly_type"].notna().any():
        kinds = parcels["poly_type"].astype("string").str.strip().str.upper().fillna("(none)")
        kinds = kinds.to_numpy(object)
        for kind in sorted(set(kinds[ownable])):
            sel = ownable & (kinds == kind)
            by_type[str(kind)] = (int((joined & sel).sum()), int(sel.sum()))
    return int(joined.sum()), int(ownable.sum()), by_type


def subject_owners(assess: pd.DataFrame, ids: list[str]) -> dict[str, list[str]]:
    """Subject parcel id -> its owners of record (as printed), for the different-owners
    warning; a parcel without a record is left out."""
    out: dict[str, list[str]] = {}
    if assess.empty or "owner" not in assess:
        return out
    wanted = set(ids)
    for pid, owner in zip(id_series(assess["parcel_id"]), assess["owner"], strict=True):
        name = clean_text(owner)  # as the mailing list prints it (no control characters)
        if pid in wanted and name and name not in out.setdefault(pid, []):
            out[pid].append(name)
    return {pid: out[pid] for pid in ids if out.get(pid)}


__all__ = ["OwnerJoinError", "check_owner_join", "owned_parcel_ids", "owner_join_rate",
           "subject_owners"]

"""The join of parcels to their owners of record: one measure, for ``data validate`` and the
package.

A config whose parcel id names the wrong field joins no assessing record: the package would
certify an empty list. :func:`owner_join` measures the join (:class:`OwnerJoin`: how many
parcels that can have an owner join one, by ``POLY_TYPE``, example ids of each side);
``data validate`` reports it town-wide and the package measures its own abutters with it
(:func:`check_owner_join` refuses a package none of whose abutters joins:
:class:`OwnerJoinError`, exit 2 on the command line). A parcel joins when its id is among
:func:`owned_parcel_ids` (the parcel ids with an owner in the assessing table), each side written
by :func:`swm_gis.ids.id_text`; the package's ``owner_of_record`` is the same test. When little
or nothing joins, :func:`with_fields_that_join` finds the fields of either table that would
join (by the same id rule), so the message can say which to set. :func:`subject_owners` feeds
the warning ``subjects_have_different_owners``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import geopandas as gpd
import pandas as pd

from swm_gis.config.town import Rules, TownConfig
from swm_gis.errors import SwmGisError
from swm_gis.ids import id_series
from swm_gis.messages import config_key
from swm_gis.rules.abutters import no_owner_type
from swm_gis.rules.owners import clean_text

#: Which config key names each table's id field: (section, key).
ID_KEYS = {"parcels": ("layers.parcels.fields", "id"),
           "assess": ("layers.assess.fields", "parcel_id")}
#: How each table's id values are called in a message about the other's fields.
_IDS_OF = {"parcels": "assessing ids", "assess": "parcel ids"}
_TABLE = {"parcels": "the parcels' field", "assess": "the assessing table's field"}


@dataclass(frozen=True)
class FieldThatJoins:
    """A field of ``table`` ("parcels" or "assess") holding ``holds`` distinct ids of the other
    table's id field: the field the config could name instead."""

    table: str
    field: str
    holds: int

    def as_dict(self) -> dict[str, Any]:
        section, name = ID_KEYS[self.table]
        return {"table": self.table, "field": self.field, "holds": self.holds,
                "key": section, "name": name}

    def text(self) -> str:
        """The sentence that says it, naming the config key by reference
        (:func:`swm_gis.messages.config_key`): 'the parcels' field ML holds 535 of the assessing
        ids: set [layers.parcels.fields] id = "ML"'."""
        return (f"{_TABLE[self.table]} {self.field} holds {self.holds:,} of the "
                f"{_IDS_OF[self.table]}: set {config_key(*ID_KEYS[self.table])} = "
                f'"{self.field}"')


@dataclass(frozen=True)
class OwnerJoin:
    """How many parcels that can have an owner (not right-of-way or water, with an id, not in
    another town) join an owner of record.

    ``by_type``: ``POLY_TYPE -> (joined, ownable)``; ``parcel_examples``: the first ids of
    ownable parcels that do not join; ``assess_examples``: the first assessing ids (of rows
    naming an owner) that are no parcel's id; ``parcels_field``/``assess_field``: the source
    fields compared (None: not known); ``fields_that_join``: filled by
    :func:`with_fields_that_join`, best first.
    """

    joined: int
    ownable: int
    by_type: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    parcel_examples: tuple[str, ...] = ()
    assess_examples: tuple[str, ...] = ()
    parcels_field: str | None = None
    assess_field: str | None = None
    fields_that_join: tuple[FieldThatJoins, ...] = ()

    @property
    def share(self) -> float | None:
        """``joined / ownable``; None when no parcel can have an owner."""
        return self.joined / self.ownable if self.ownable else None

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON (``data validate``'s JSON result, the refusal's ``details``)."""
        return {"joined": self.joined, "ownable": self.ownable, "share": self.share,
                "by_type": {k: {"joined": j, "ownable": n} for k, (j, n) in self.by_type.items()},
                "parcel_examples": list(self.parcel_examples),
                "assess_examples": list(self.assess_examples),
                "parcels_field": self.parcels_field, "assess_field": self.assess_field,
                "fields_that_join": [f.as_dict() for f in self.fields_that_join]}

    def hint(self) -> str:
        """The best field that would join, as a sentence ('' when none would)."""
        return self.fields_that_join[0].text() if self.fields_that_join else ""


class OwnerJoinError(SwmGisError):
    """The assessing table joins none of the abutting parcels: the id fields do not match.
    ``details``: the package's :class:`OwnerJoin` (:meth:`OwnerJoin.as_dict`: ``joined``,
    ``ownable``, ``fields_that_join``...) and ``examples`` (the first abutters' ids)."""

    def __init__(self, message: object = "", *args: object, join: OwnerJoin | None = None
                 ) -> None:
        super().__init__(message, *args)
        join = join or OwnerJoin(0, 0)
        self.details = {**join.as_dict(), "examples": list(join.parcel_examples)}


def owner_join(parcels: pd.DataFrame, assess: pd.DataFrame, rules: Rules, *,
               parcels_field: str | None = None, assess_field: str | None = None,
               examples: int = 3) -> OwnerJoin:
    """The join of ``parcels`` (logical ``id``, optional ``poly_type``, ``other_town``) to the
    owners of record of ``assess`` (logical ``parcel_id``, ``owner``): the one measure of
    ``data validate`` (the town's parcels) and the package (its abutters).

    Examples
    --------
    >>> parcels = pd.DataFrame({"id": [12.0, 13.0, 14.0, None]})
    >>> assess = pd.DataFrame({"parcel_id": ["12", "012", "14"], "owner": ["A", "B", ""]})
    >>> j = owner_join(parcels, assess, Rules())
    >>> j.joined, j.ownable, j.parcel_examples, j.assess_examples
    (1, 3, ('13', '14'), ('012',))
    """
    ids = id_series(parcels["id"])
    ownable = ids.notna().to_numpy() & ~no_owner_type(parcels, rules).to_numpy(bool)
    if "other_town" in parcels:  # a neighbour's parcel: its owner is in its town's table
        ownable &= ~parcels["other_town"].fillna(False).astype(bool).to_numpy()
    owners = _owner_ids(assess)
    joined = ids.isin(set(owners)).to_numpy() & ownable
    known = set(ids.dropna())
    return OwnerJoin(
        joined=int(joined.sum()), ownable=int(ownable.sum()),
        by_type=_by_type(parcels, ownable, joined),
        parcel_examples=tuple(dict.fromkeys(ids[ownable & ~joined]))[:examples],
        assess_examples=tuple(dict.fromkeys(a for a in owners if a not in known))[:examples],
        parcels_field=parcels_field, assess_field=assess_field)


def _by_type(parcels: pd.DataFrame, ownable, joined) -> dict[str, tuple[int, int]]:
    by_type: dict[str, tuple[int, int]] = {}
    if "poly_type" in parcels and parcels["poly_type"].notna().any():
        kinds = parcels["poly_type"].astype("string").str.strip().str.upper().fillna("(none)")
        kinds = kinds.to_numpy(object)
        for kind in sorted(set(kinds[ownable])):
            sel = ownable & (kinds == kind)
            by_type[str(kind)] = (int((joined & sel).sum()), int(sel.sum()))
    return by_type


def fields_that_join(columns: pd.DataFrame, ids: Iterable[str | None], *,
                     skip: Iterable[str] = ()) -> list[tuple[str, int]]:
    """(field, how many distinct ``ids`` it holds) for each field of ``columns`` holding at
    least one, best first; values written by the id rule (:func:`swm_gis.ids.id_series`).

    >>> cols = pd.DataFrame({"LOC_ID": ["F_1", "F_2", "F_3"], "ML": ["1-1", "1-2", "1-3"],
    ...                      "MAP": [1, 1, 3]})
    >>> fields_that_join(cols, ["1-1", "1-2", "1-3", "3"])
    [('ML', 3), ('MAP', 1)]
    >>> fields_that_join(cols, ["1-1"], skip=["ML"])
    []
    """
    wanted = {i for i in ids if i is not None}
    skipped = set(skip)
    found = []
    for name in columns.columns:
        if name in skipped:
            continue
        values = pd.Series(columns[name].dropna().unique(), dtype=object)
        hits = len(set(id_series(values).dropna()) & wanted)
        if hits:
            found.append((str(name), hits))
    return sorted(found, key=lambda fh: (-fh[1], fh[0]))


def with_fields_that_join(join: OwnerJoin, parcels: pd.DataFrame, assess: pd.DataFrame
                          ) -> OwnerJoin:
    """``join`` with the fields that would join: the parcels' fields holding the ids of the
    assessing table's id field, and the assessing table's fields holding the parcels' ids
    (``parcels`` and ``assess``: every attribute as stored, by source name,
    :func:`swm_gis.io.attributes.read_attributes`), best first; only those holding more ids
    than the named fields join (a field that would join less is no advice)."""
    pfield, afield = join.parcels_field, join.assess_field
    pids = id_series(parcels[pfield]) if pfield in parcels else pd.Series([], dtype=object)
    aids = id_series(assess[afield]) if afield in assess else pd.Series([], dtype=object)
    found = [FieldThatJoins("parcels", f, n)
             for f, n in fields_that_join(parcels, aids, skip=[pfield])]
    found += [FieldThatJoins("assess", f, n)
              for f, n in fields_that_join(assess, pids, skip=[afield])]
    # a field is a better choice only where it holds more ids than the fields named now join
    found = sorted((f for f in found if f.holds > join.joined), key=lambda f: -f.holds)
    return dataclasses.replace(join, fields_that_join=tuple(found))


def check_owner_join(config: TownConfig, listed: gpd.GeoDataFrame, assess: pd.DataFrame, *,
                     parcels_fields: Mapping[str, str | None] | None = None,
                     assess_fields: Mapping[str, str | None] | None = None,
                     attributes: Any = None) -> OwnerJoin:
    """The package's join (:func:`owner_join` of its abutters, the subject aside); refuses
    (:class:`OwnerJoinError`) a package whose ownable abutters all lack an assessing record:
    every owner would be missing and the list certified empty.

    ``parcels_fields`` and ``assess_fields`` map logical fields to the source fields read
    (:func:`swm_gis.io.layers.field_map`); the message names them (else the config's names).
    ``attributes(key)`` gives every attribute of a layer (:func:`swm_gis.io.attributes.
    read_attributes`): with it, the refusal names the fields that would join.
    """
    parcels_spec, assess_spec = config.layer("parcels"), config.layer("assess")
    pfield = (parcels_fields or {}).get("id") or parcels_spec.fields.get("id")
    afield = (assess_fields or {}).get("parcel_id") or assess_spec.fields.get("parcel_id")
    abutting = listed.loc[~listed["is_subject"].astype(bool)] if "is_subject" in listed \
        else listed
    join = owner_join(abutting, assess, config.rules, parcels_field=pfield, assess_field=afield)
    if not join.ownable or join.joined:
        return join
    if attributes is not None:
        join = with_fields_that_join(join, attributes("parcels"), attributes("assess"))
    example = ", ".join(join.parcel_examples) or "(none)"
    hint = join.hint()
    hint = f" {hint[0].upper()}{hint[1:]}." if hint else ""
    raise OwnerJoinError(
        f"None of the {join.ownable} abutting parcel(s) that can have an owner joins a record "
        f"of {assess_spec.describe()} ({config_key('layers.assess')}): their ids (e.g. "
        f"{example}, field {pfield!r} of {parcels_spec.describe()}) are not in the assessing "
        f"table's field {afield!r}, so every owner would be missing.{hint} Check "
        f"{config_key('layers.parcels.fields', 'id')} and "
        f"{config_key('layers.assess.fields', 'parcel_id')}: "
        "they must name fields holding the same ids (MassGIS: LOC_ID in both); "
        "swm-gis data validate reports the join rate.", join=join)


def _owner_ids(assess: pd.DataFrame) -> list[str]:
    """The parcel ids of the assessing rows that name an owner, in the table's order."""
    if assess.empty or "parcel_id" not in assess:
        return []
    owner = assess["owner"] if "owner" in assess else pd.Series("", index=assess.index)
    rows = assess.loc[(owner.map(clean_text) != "").to_numpy(), "parcel_id"]
    return list(id_series(rows).dropna())


def owned_parcel_ids(assess: pd.DataFrame) -> set[str]:
    """The parcel ids (:func:`~swm_gis.ids.id_text`) of the assessing rows that name an owner:
    a parcel whose id is among them joins its owner of record, everywhere (the package's
    ``owner_of_record``, :func:`owner_join`)."""
    return set(_owner_ids(assess))


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


__all__ = ["FieldThatJoins", "OwnerJoin", "OwnerJoinError", "check_owner_join",
           "fields_that_join", "owned_parcel_ids", "owner_join", "subject_owners",
           "with_fields_that_join"]

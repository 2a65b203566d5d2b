"""How well the parcels join the assessing table, said before the run.

The engine joins ``[layers.parcels.fields] id`` to ``[layers.assess.fields] parcel_id`` as text
written by one rule (``swm_gis.ids.id_text``: a number 12.0 is "12", text stripped); :func:`key`
writes a value by the same rule, held to it by a test (tests/plugin/test_plugin_joins.py). A wrong
pair of fields (Cambridge's parcels have a ``LOC_ID`` the default accepts, while their assessing
table joins ``GISID`` to ``ML``) joins nothing, and an abutter list with no owners would be
written and certified. This module measures the join on the values alone and finds the fields
that would join, so the dialog can say which one to choose. Standard library only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass


def key(value) -> str | None:
    """A value as the engine's join compares it (text), None for NULL and empty.

    The engine's rule (``swm_gis.ids.id_text``, which the plugin cannot import: it runs the
    engine out of process): a whole-number float 12.0 is "12", text is stripped ("012" stays
    "012"). ``tests/plugin/test_plugin_joins.py`` holds this key to the engine's rule value for
    value, until the plugin reads the engine's own join measure.
    """
    if value is None or isinstance(value, bool):
        return None if value is None else str(value)
    is_null = getattr(value, "isNull", None)
    if callable(is_null) and is_null():
        return None
    if isinstance(value, float):
        if value != value:  # NaN
            return None
        return str(int(value)) if value.is_integer() else str(value)
    text = str(value).strip()
    return text or None


def keys(values: Iterable) -> list[str]:
    return [k for k in map(key, values) if k is not None]


@dataclass(frozen=True)
class JoinRate:
    assess_rows: int  # assessing rows with a parcel id
    matched_rows: int  # of them, rows whose id is a parcel's id
    parcels: int  # parcels with an id
    matched_parcels: int  # of them, parcels with at least one assessing row
    parcel_examples: tuple[str, ...]
    assess_examples: tuple[str, ...]

    @property
    def share(self) -> float:
        return self.matched_rows / self.assess_rows if self.assess_rows else 0.0

    def text(self) -> str:
        """'997 of 1,000 assessing rows (99.7 %) join one of the 13,116 parcels'."""
        return (f"{self.matched_rows:,} of {self.assess_rows:,} assessing rows "
                f"({100 * self.share:.1f} %) join one of the {self.parcels:,} parcels, and "
                f"{self.matched_parcels:,} parcels have an owner record")


def rate(parcel_ids: Iterable, assess_ids: Iterable, *, examples: int = 3) -> JoinRate:
    """The join of ``parcel_ids`` (one per parcel) and ``assess_ids`` (one per assessing row)."""
    pids = keys(parcel_ids)
    aids = keys(assess_ids)
    pset, aset = set(pids), set(aids)
    return JoinRate(
        assess_rows=len(aids), matched_rows=sum(1 for a in aids if a in pset),
        parcels=len(pids), matched_parcels=sum(1 for p in pset if p in aset),
        parcel_examples=tuple(dict.fromkeys(pids))[:examples],
        assess_examples=tuple(dict.fromkeys(aids))[:examples])


def fields_that_join(columns: Mapping[str, Iterable], targets: Iterable, *,
                     skip: Iterable[str] = ()) -> list[tuple[str, int]]:
    """(field, how many of its distinct values are in ``targets``) for every field of
    ``columns`` that shares at least one value with ``targets``, best first."""
    tset = set(keys(targets))
    skipped = set(skip)
    found = []
    for name, values in columns.items():
        if name in skipped:
            continue
        hits = sum(1 for v in set(keys(values)) if v in tset)
        if hits:
            found.append((name, hits))
    return sorted(found, key=lambda nh: (-nh[1], nh[0]))

"""Condominiums whose unit owners are not on the list (warning ``condo_units_missing``;
``docs/abutters.md``).

A condominium parcel is one polygon with one assessing row per unit in a full extract; MassGIS
L3 extracts often hold one record for the master parcel only. Every unit owner is an owner of
property within the distance and gets a notice, so a condominium parcel (use code in
``tables/condominium_use_codes.toml``: 102, 1020 and the like) with fewer owner records than
its units (the assessing ``units`` field, MassGIS ``UNITS``, where present; otherwise a single
record, the master record) is named: its unit owners are missing. A town's unit-owner table
(``[layers.condo_units]``) adds the unit owners' rows before this test.

Examples
--------
>>> import pandas as pd
>>> assess = pd.DataFrame({"parcel_id": ["C1", "C2", "C2", "H"],
...     "owner": ["ELM CONDO TRUST", "A", "B", "C"], "use_code": ["1020", "102", "102", "101"],
...     "units": [12, 2, 2, 1]})
>>> [(m["parcel_id"], m["records"], m["units"]) for m in missing_unit_owners(["C1", "C2", "H"], assess)]
[('C1', 1, 12)]
"""  # noqa: E501

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from importlib import resources

import pandas as pd

from swm_gis.ids import id_series

TABLE = "tables/condominium_use_codes.toml"


@dataclass(frozen=True)
class CondoCodes:
    """The use codes of condominiums (:data:`TABLE`)."""

    prefixes: tuple[str, ...]
    codes: frozenset[str]

    def matches(self, use_code: object) -> bool:
        """True for a condominium use code.

        >>> codes = condo_codes()
        >>> [codes.matches(c) for c in ("102", "1020", "0102", "102C", 102.0, "101", "1120")]
        [True, True, True, True, True, False, False]
        """
        if use_code is None or (not isinstance(use_code, str) and pd.isna(use_code)):
            return False
        text = str(use_code).strip().upper()
        text = text[:-2] if text.endswith(".0") else text
        if text in self.codes:
            return True
        digits = re.sub(r"[A-Z]+$", "", text).lstrip("0")
        return digits.isdigit() and len(digits) <= 4 and digits.startswith(self.prefixes)


@cache
def condo_codes() -> CondoCodes:
    """The bundled table of condominium use codes."""
    raw = tomllib.loads(resources.files("swm_gis").joinpath(TABLE).read_text(encoding="utf-8"))
    return CondoCodes(prefixes=tuple(str(p) for p in raw.get("prefixes", [])),
                      codes=frozenset(str(c).strip().upper() for c in raw.get("codes", [])))


def _units(values: pd.Series) -> int | None:
    numbers = pd.to_numeric(values, errors="coerce").dropna()
    numbers = numbers[numbers > 0]
    return int(numbers.max()) if len(numbers) else None


def missing_unit_owners(parcel_ids: Iterable[str], assess: pd.DataFrame, *,
                        codes: CondoCodes | None = None) -> list[dict]:
    """The condominium parcels among ``parcel_ids`` with fewer owner records than units.

    Parameters
    ----------
    parcel_ids
        The listed parcels' ids (text).
    assess
        Their assessing rows (logical fields ``parcel_id``, ``owner``, ``use_code``, and
        ``units`` where the table has it), unit-owner rows included.
    codes
        The condominium use codes (default: the bundled table).

    Returns
    -------
    list of dict
        ``{parcel_id, use_code, records, units}`` per parcel, in the order given; ``units`` is
        None where the data does not state it (then a single record, the master record, is
        what makes the parcel named).
    """
    codes = codes or condo_codes()
    if assess.empty or "use_code" not in assess:
        return []
    rows = assess.assign(parcel_id=id_series(assess["parcel_id"]))
    out = []
    for pid in dict.fromkeys(parcel_ids):
        mine = rows.loc[rows["parcel_id"] == pid]
        condo = mine.loc[[codes.matches(c) for c in mine["use_code"]]]
        if condo.empty:
            continue
        owners = mine["owner"].astype("string").str.strip().fillna("") if "owner" in mine \
            else pd.Series("", index=mine.index)
        records = int((owners != "").sum())
        units = _units(mine["units"]) if "units" in mine else None
        if (units is not None and records < units) or (units is None and records <= 1):
            out.append({"parcel_id": pid, "use_code": str(condo["use_code"].iloc[0]).strip(),
                        "records": records, "units": units})
    return out


__all__ = ["TABLE", "CondoCodes", "condo_codes", "missing_unit_owners"]

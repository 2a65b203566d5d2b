"""The clerk's order of a notice list, its labels and its mailing book (``docs/abutters.md``).

``owner``: by owner name as the mailing list compares names; ``street``: by the parcel's site
address, street name first, then the house number as a number (2 before 10), then its letter;
``map-lot``: by the assessor's map-lot, numbers as numbers (``7-K-9`` before ``7-K-33``). Ties
keep the nearest-first order. A recipient owning several listed parcels sorts by the first of
them. The abutting parcels are renumbered (``map_no``) in the order chosen, so the list, the map
and its key agree.

Examples
--------
>>> sorted(["7-K-33", "7-K-9", "10-A-1", "7-J-100"], key=natural_key)
['7-J-100', '7-K-9', '7-K-33', '10-A-1']
>>> sorted(["10 Elm Street", "2 Elm St", "1 Ash Road", "2A Elm St"], key=street_key)
['1 Ash Road', '2 Elm St', '2A Elm St', '10 Elm Street']
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
import pandas as pd

from swm_gis.ids import id_series
from swm_gis.rules.owners import normalise_address, normalise_owner

_TOKENS = re.compile(r"\d+|[A-Za-z]+")
_NUMBER = re.compile(r"^\s*(\d+)\s*([A-Za-z]?)(?:\s*-\s*\d+[A-Za-z]?)?\s+(.*)$")
_LAST = "\uffff"  # blanks sort last


def _text(value: object) -> str:
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return ""
    return str(value).strip()


def natural_key(value: object) -> tuple:
    """Sort key of a map-lot or id: its runs of digits compared as numbers, letters as text;
    a blank value sorts last."""
    text = _text(value).upper()
    if not text:
        return ((2, _LAST),)
    return tuple((0, int(t), "") if t.isdigit() else (1, 0, t) for t in _TOKENS.findall(text))


def street_key(address: object) -> tuple:
    """Sort key of a site address: the street (USPS abbreviations alike), the house number as a
    number, its letter; a condominium's several addresses sort by the first; blank last."""
    first = _text(address).split(";")[0].strip()
    if not first:
        return (_LAST, 0, "")
    m = _NUMBER.match(first)
    if m is None:
        return (normalise_address(first), -1, "")
    return (normalise_address(m.group(3)), int(m.group(1)), m.group(2).upper())


def _keys(by: str) -> tuple[str, Callable[[object], object]]:
    return {"owner": ("owners", lambda v: normalise_owner(_text(v).split(";")[0]) or _LAST),
            "street": ("site_address", street_key),
            "map-lot": ("map_par_id", natural_key)}[by]


def order_listed(listed: pd.DataFrame, by: str | None) -> pd.DataFrame:
    """The abutting parcels in the order ``by`` (None: as given, nearest first), ``map_no``
    renumbered 1..n."""
    if by is None or listed.empty:
        return listed
    column, key = _keys(by)
    values = listed[column] if column in listed else pd.Series("", index=listed.index)
    if by == "map-lot" and "id" in listed:  # no map-lot: the parcel id stands in
        values = values.where(values.map(_text) != "", listed["id"])
    order = sorted(range(len(listed)), key=lambda i: key(values.iloc[i]))
    out = listed.iloc[order].copy()
    if "map_no" in out:
        out["map_no"] = np.arange(1, len(out) + 1)
    return out


def order_recipients(recipients: pd.DataFrame, listed: pd.DataFrame, by: str | None
                     ) -> pd.DataFrame:
    """The mailing list (the labels and the mailing book print it in its order) in the order
    ``by``: by owner name, or by the first of the recipient's parcels in :func:`order_listed`'s
    order."""
    if by is None or recipients.empty:
        return recipients
    if by == "owner":
        keys = [(normalise_owner(n) or _LAST, normalise_address(a))
                for n, a in zip(recipients.get("owner_name", ""), recipients.get(
                    "mail_address", ""), strict=True)]
    else:
        rank = {pid: i for i, pid in enumerate(id_series(order_listed(listed, by)["parcel_id"])
                                               if "parcel_id" in listed else [])}
        keys = [min((rank.get(p.strip(), len(rank)) for p in _text(ids).split(";")),
                    default=len(rank)) for ids in recipients["parcel_ids"]]
    order = sorted(range(len(recipients)), key=lambda i: keys[i])
    return recipients.iloc[order]


__all__ = ["natural_key", "order_listed", "order_recipients", "street_key"]

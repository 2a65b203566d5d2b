"""Owners of record: join abutting parcels to the assessing table and make the recipient list.

Chapter 320 § 320-18 A(7) asks for notice "at the mailing addresses as certified by the Assessors'
office"; SPEC section 2 adds one notice per owner of record, and one per condominium unit owner
(a condominium is several assessing rows on one parcel id). The same owner at the same mailing
address gets one letter however many parcels or units it owns: rows are grouped on a normalised
key (case, spacing, punctuation, USPS street-suffix and PO Box spellings) and the recipient lists
every parcel id it owns. ZIP codes stay text (leading zeros, ZIP+4).

Examples
--------
>>> normalise_address("12 Elm Street.") == normalise_address("12 ELM ST")
True
>>> normalise_address("P.O. Box 29"), normalise_zip("2138"), normalise_zip("021381234")
('PO BOX 29', '02138', '02138-1234')
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

import pandas as pd

#: USPS Publication 28 street suffixes (and a few common variants) -> standard abbreviation.
STREET_SUFFIXES = {
    "STREET": "ST", "STR": "ST", "ROAD": "RD", "AVENUE": "AVE", "AV": "AVE", "AVEN": "AVE",
    "DRIVE": "DR", "DRV": "DR", "LANE": "LN", "COURT": "CT", "PLACE": "PL", "BOULEVARD": "BLVD",
    "BOUL": "BLVD", "PARKWAY": "PKWY", "PKY": "PKWY", "TERRACE": "TER", "TERR": "TER",
    "CIRCLE": "CIR", "HIGHWAY": "HWY", "SQUARE": "SQ", "PARK": "PARK", "PK": "PARK",
    "WAY": "WAY", "TRAIL": "TRL", "TURNPIKE": "TPKE", "EXTENSION": "EXT", "HEIGHTS": "HTS",
    "CROSSING": "XING", "POINT": "PT", "RIDGE": "RDG", "ROW": "ROW", "ALLEY": "ALY",
    "CENTER": "CTR", "CENTRE": "CTR", "HILL": "HL", "GARDENS": "GDNS", "PLAZA": "PLZ",
    "EXPRESSWAY": "EXPY", "FREEWAY": "FWY", "LOOP": "LOOP", "PATH": "PATH", "PIKE": "PIKE",
}
#: Directionals and secondary-unit designators (USPS Publication 28, appendix C).
DIRECTIONALS = {"NORTH": "N", "SOUTH": "S", "EAST": "E", "WEST": "W", "NORTHEAST": "NE",
                "NORTHWEST": "NW", "SOUTHEAST": "SE", "SOUTHWEST": "SW"}
UNIT_WORDS = {"APARTMENT": "APT", "SUITE": "STE", "FLOOR": "FL", "BUILDING": "BLDG",
              "ROOM": "RM", "DEPARTMENT": "DEPT", "NUMBER": "NO"}
US_COUNTRY = {"", "US", "USA", "U S", "U S A", "UNITED STATES", "UNITED STATES OF AMERICA"}

_PO_BOX = re.compile(r"\b(?:P\s?O\s?B(?:OX)?|POST\s+OFFICE\s+BOX|POST\s+BOX|P\s?O)\s+(?=\w)")
_PUNCT = re.compile(r"[^\w&/ ]+")
_SPACES = re.compile(r"\s+")

#: Columns of the mailing list (SPEC section 5), in order.
MAILING_COLUMNS = ["owner_name", "co_owner", "mail_address", "mail_city", "mail_state",
                   "mail_zip", "mail_country", "parcel_ids"]


def clean_text(value: object) -> str:
    """Text as printed: trimmed, inner whitespace collapsed, missing values as ''."""
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return ""
    text = _SPACES.sub(" ", str(value)).strip()
    # placeholders for "no value" ("_", "-", "N/A" ...) are no value
    if text.upper() in {"NAN", "NONE", "NULL", "N/A", "NA"} or not any(c.isalnum() for c in text):
        return ""
    return text


def _base(value: object) -> str:
    text = unicodedata.normalize("NFKC", clean_text(value)).upper()
    text = _PUNCT.sub(" ", text.replace("'", "").replace("\u2019", ""))
    return _SPACES.sub(" ", text).strip()


def normalise_owner(value: object) -> str:
    """Owner name key: case, spacing and punctuation ignored; "AND" and "&" alike.

    >>> normalise_owner("Smith, John & Mary.") == normalise_owner("SMITH JOHN AND MARY")
    True
    """
    return " ".join("&" if t == "AND" else t for t in _base(value).split())


def normalise_address(value: object) -> str:
    """Street address key: case, spacing, punctuation and USPS abbreviations ignored.

    >>> normalise_address("12 Elm St."), normalise_address("77 north Main Road, Apartment #4")
    ('12 ELM ST', '77 N MAIN RD APT 4')
    """
    text = _base(value)
    text = _PO_BOX.sub("PO BOX ", text)
    tokens = text.split()
    out = []
    for i, tok in enumerate(tokens):
        if tok in STREET_SUFFIXES and i > 0:
            tok = STREET_SUFFIXES[tok]
        elif tok in DIRECTIONALS and (i > 0 or len(tokens) > 2):
            tok = DIRECTIONALS[tok]
        elif tok in UNIT_WORDS:
            tok = UNIT_WORDS[tok]
        out.append(tok)
    # "UNIT NO 5" and "UNIT 5" are the same unit
    text = " ".join(out)
    text = re.sub(r"\b(UNIT|APT|STE) NO\b", r"\1", text)
    return text


def normalise_zip(value: object) -> str:
    """ZIP code as text: leading zeros restored (a spreadsheet may have dropped them), ZIP+4
    written 12345-6789; anything else (a foreign postcode) kept as given."""
    text = clean_text(value)
    if text.endswith(".0") and text[:-2].isdigit():
        text = text[:-2]
    digits = text.replace("-", "").replace(" ", "")
    if digits.isdigit():
        if len(digits) <= 5:
            return digits.zfill(5)
        if len(digits) == 9:
            return f"{digits[:5]}-{digits[5:]}"
        if len(digits) == 8:  # ZIP+4 whose leading zero was dropped
            return f"0{digits[:4]}-{digits[4:]}"
    return text


def normalise_country(value: object) -> str:
    text = _base(value)
    return "" if text in US_COUNTRY else text


def join_owners(
    abutting: pd.DataFrame,
    assess: pd.DataFrame,
    *,
    id_col: str = "id",
) -> pd.DataFrame:
    """One notice row per owner of record of each listed parcel (one per condominium unit).

    ``abutting`` has the parcel id in ``id_col``; ``assess`` has the logical assessing fields
    (``parcel_id``, ``owner``, ``co_owner``, ``address``, ``address2``, ``city``, ``state``,
    ``zip``, ``country``). Identical rows for one parcel (the same owner and address on two
    units) are one notice. Parcels without an assessing row get no notice here (the abutter list
    flags them). Returns the mailing columns plus ``parcel_id``, ``address1``, ``address2``.
    """
    ids = abutting[id_col].dropna().astype(str)
    a = assess.loc[assess["parcel_id"].astype(str).isin(set(ids))]
    order = {pid: i for i, pid in enumerate(dict.fromkeys(ids))}
    rows = pd.DataFrame({
        "parcel_id": a["parcel_id"].astype(str),
        "owner_name": a["owner"].map(clean_text),
        "co_owner": _col(a, "co_owner").map(clean_text),
        "address1": _col(a, "address").map(clean_text),
        "address2": _col(a, "address2").map(clean_text),
        "mail_city": _col(a, "city").map(clean_text),
        "mail_state": _col(a, "state").map(clean_text),
        "mail_zip": _col(a, "zip").map(normalise_zip),
        "mail_country": _col(a, "country").map(clean_text),
    })
    rows["mail_address"] = [", ".join(p for p in (a1, a2) if p)
                            for a1, a2 in zip(rows["address1"], rows["address2"], strict=True)]
    rows = rows.loc[(rows["owner_name"] != "") | (rows["mail_address"] != "")]
    rows = rows.drop_duplicates(subset=[c for c in rows.columns if c != "mail_address"])
    rows["_order"] = rows["parcel_id"].map(order)
    rows = rows.sort_values(["_order"], kind="stable").drop(columns="_order")
    return rows.reset_index(drop=True)


def recipient_key(row: pd.Series | dict) -> tuple[str, ...]:
    """The de-duplication key: normalised owner, address lines, city, state, 5-digit ZIP and
    country."""
    zip5 = normalise_zip(row.get("mail_zip", ""))[:5]
    address = " ".join(p for p in (normalise_address(row.get("address1", "")),
                                   normalise_address(row.get("address2", ""))) if p)
    return (normalise_owner(row.get("owner_name", "")), address,
            _base(row.get("mail_city", "")), _base(row.get("mail_state", "")), zip5,
            normalise_country(row.get("mail_country", "")))


def recipients(notices: pd.DataFrame) -> pd.DataFrame:
    """De-duplicate notices into recipients: one per owner and mailing address.

    The first spelling met is printed (a ZIP+4 preferred over a 5-digit ZIP; a co-owner line kept
    if any row has one); ``parcel_ids`` lists every parcel the recipient owns ("; "-separated).
    ``attrs["duplicates_removed"]`` is the number of notices merged away. A ``note`` column flags
    mailing addresses that look incomplete.
    """
    cols = MAILING_COLUMNS + ["address1", "address2", "note"]
    if notices.empty:
        out = pd.DataFrame(columns=cols)
        out.attrs["duplicates_removed"] = 0
        return out
    keys = [recipient_key(r) for r in notices.to_dict("records")]
    grouped: dict[tuple[str, ...], dict] = {}
    for key, rec in zip(keys, notices.to_dict("records"), strict=True):
        if key not in grouped:
            grouped[key] = {**rec, "_parcels": [rec["parcel_id"]]}
            continue
        g = grouped[key]
        if rec["parcel_id"] not in g["_parcels"]:
            g["_parcels"].append(rec["parcel_id"])
        if len(rec.get("mail_zip", "")) > len(g.get("mail_zip", "")):
            g["mail_zip"] = rec["mail_zip"]
        if not g.get("co_owner") and rec.get("co_owner"):
            g["co_owner"] = rec["co_owner"]
    rows = []
    for g in grouped.values():
        g["parcel_ids"] = "; ".join(g.pop("_parcels"))
        g["note"] = address_problem(g)
        rows.append(g)
    out = pd.DataFrame(rows)[cols].reset_index(drop=True)
    out.attrs["duplicates_removed"] = len(notices) - len(out)
    return out


def address_problem(rec: dict) -> str:
    """Why a mailing address looks unusable ('' when it looks complete)."""
    missing = [name for name, col in (("street address", "mail_address"), ("city", "mail_city"))
               if not rec.get(col)]
    if not normalise_country(rec.get("mail_country")):  # a US address needs state and ZIP
        if not rec.get("mail_state"):
            missing.append("state")
        if not rec.get("mail_zip"):
            missing.append("ZIP")
    if not rec.get("owner_name"):
        missing.append("owner name")
    return f"incomplete mailing address (no {', '.join(missing)}): check with the Assessors" \
        if missing else ""


def fiscal_years(assess: pd.DataFrame) -> list[str]:
    """The assessing data's fiscal year(s), as found in its ``fiscal_year`` field."""
    if "fiscal_year" not in assess:
        return []
    values = {clean_text(v) for v in assess["fiscal_year"]}
    values.discard("")
    return sorted(v[:-2] if v.endswith(".0") else v for v in values)


def owned_parcel_ids(assess: pd.DataFrame) -> set[str]:
    """Parcel ids that have at least one assessing row with an owner."""
    have = assess.loc[assess["owner"].map(clean_text) != "", "parcel_id"]
    return {str(v) for v in have.dropna()}


def _col(df: pd.DataFrame, name: str) -> pd.Series:
    return df[name] if name in df else pd.Series("", index=df.index, dtype=object)


def unique_ids(values: Iterable[object]) -> list[str]:
    return list(dict.fromkeys(str(v) for v in values if clean_text(v)))


__all__ = [
    "MAILING_COLUMNS", "address_problem", "clean_text", "fiscal_years", "join_owners",
    "normalise_address", "normalise_country", "normalise_owner", "normalise_zip",
    "owned_parcel_ids", "recipient_key", "recipients", "unique_ids",
]

"""The web map's search index, built at publish time (docs/publish.md, "Search").

What people type is rarely what the assessing table holds: "1218 Cambridge St" for
"1218-1228 Cambridge St", "4 Canal Park" for "4 Canal Pk", "84 20" for map-lot 84-20. The index
writes every address and map-lot once in a *search key* that such spellings share, and the
page (``assets/search.js``) writes what a visitor types in the same key and compares:

* an address key is upper case, without punctuation, each word in its USPS Publication 28
  standard form (``tables/street_suffixes.toml``: STREET and STR are ST, PARK and PK are
  PARK, NORTH is N); its leading house number or number range is read apart, so a number
  inside "1218-1228" (or "1218-28") finds it;
* a map-lot has two keys: its letters and digits alone ("84-20" -> "8420") and its parts with
  leading zeros dropped ("1-001" -> "1 1"), so "84 20", "84-20", "8420" and "1-1" all find it.

The page repeats :func:`address_key` and :func:`map_lot_keys` for the query (the word table
travels in the index, so the two cannot disagree on a word); a browser test runs both over
every address and map-lot of Cambridge and the sample town and compares.
"""

from __future__ import annotations

import re
from typing import Any

# the word table (USPS Publication 28 suffixes and directionals, and local spellings) is the
# package's one Pub 28 table, shared with the mailing list's address comparison
from swm_gis.rules.postal import SUFFIX_TABLE, street_words

_DROP = re.compile(r"[.']")
_SPACE = re.compile(r"[^0-9A-Z/\- ]+")
_DASH = re.compile(r"\s*-\s*")
_NUMBER = re.compile(r"^(\d+)[A-Z]?(?:-(\d+)[A-Z]?)?(?: \d+/\d+)?(?: (.*))?$")
_PARTS = re.compile(r"[0-9]+|[A-Z]+")


def address_key(text: Any) -> str:
    """An address as the search compares it: upper case, no punctuation, standard words.

    Full stops and apostrophes are dropped ("O'Brien" is OBRIEN), other punctuation is a space;
    a dash keeps a number range ("1218 - 1228" is 1218-1228) and splits words ("Smith-Jones"
    is SMITH JONES).

    >>> address_key("4 Canal Park"), address_key("4  canal pk.")
    ('4 CANAL PARK', '4 CANAL PARK')
    >>> address_key("1218 - 28 Cambridge Street"), address_key("O'Brien Hwy")
    ('1218-28 CAMBRIDGE ST', 'OBRIEN HWY')
    """
    words = street_words()
    s = _SPACE.sub(" ", _DROP.sub("", str(text).upper()))
    s = _DASH.sub("-", " ".join(s.split()))
    out = []
    for token in s.split(" "):
        if any(ch.isdigit() for ch in token):
            out.append(token)
        else:
            out.extend(words.get(w, w) for w in token.split("-") if w)
    return " ".join(out)


def split_number(key: str) -> tuple[int | None, int | None, str]:
    """``(low, high, street)`` of an address key: its house number or range and the rest.

    A short second number shares the first's leading digits ("1218-28" is 1218 to 1228); a
    fraction ("22-22 1/2") is read as its whole number; no leading number gives ``None``.

    >>> split_number("1218-28 CAMBRIDGE ST"), split_number("4 CANAL PARK")
    ((1218, 1228, 'CAMBRIDGE ST'), (4, 4, 'CANAL PARK'))
    >>> split_number("22-22 1/2 SHERMAN ST"), split_number("BROADWAY")
    ((22, 22, 'SHERMAN ST'), (None, None, 'BROADWAY'))
    """
    m = _NUMBER.match(key)
    if not m:
        return None, None, key
    low_text, high_text, street = m.group(1), m.group(2), m.group(3) or ""
    low = int(low_text)
    if high_text is None:
        return low, low, street
    if len(high_text) < len(low_text):
        high_text = low_text[: len(low_text) - len(high_text)] + high_text
    return low, max(low, int(high_text)), street


def map_lot_keys(text: Any) -> tuple[str, str]:
    """``(compact, parts)`` of a map-lot or parcel id: its letters and digits alone, and its
    parts (runs of digits or of letters) with leading zeros dropped.

    >>> map_lot_keys("84-20"), map_lot_keys("84 20"), map_lot_keys("1-001"), map_lot_keys("r12-034")
    (('8420', '84 20'), ('8420', '84 20'), ('1001', '1 1'), ('R12034', 'R 12 34'))
    """
    s = str(text).upper()
    parts = [p.lstrip("0") or "0" if p.isdigit() else p for p in _PARTS.findall(s)]
    return "".join(_PARTS.findall(s)), " ".join(parts)


def search_index(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The page's search index from the card records (:func:`~swm_gis.webmap.site.card_records`,
    in the page's parcel order).

    Returns ``{"words", "ad", "lk", "addressed", "parcels"}``: ``words`` the spellings that
    are not their own standard form (the page writes a query with them); ``ad`` one row per
    site address ``[parcel, address number on the card, low, high, street key, key]``;
    ``lk`` each parcel's map-lot keys (and its parcel id's, when it differs), one line per
    parcel, keys separated by tabs (a string: it costs the page nothing until the first
    search); ``addressed`` how many parcels have a site address.

    >>> index = search_index([{"id": "84-20", "ml": "84-20", "ad": ["1218-28 Cambridge St"]}])
    >>> index["ad"], index["lk"], index["addressed"]
    ([[0, 0, 1218, 1228, 'CAMBRIDGE ST', '1218-28 CAMBRIDGE ST']], '8420\\t84 20', 1)
    """
    rows, lines, addressed = [], [], 0
    for i, rec in enumerate(records):
        ads = rec.get("ad") or []
        addressed += bool(ads)
        for j, text in enumerate(ads):
            key = address_key(text)
            low, high, street = split_number(key)
            rows.append([i, j, low, high, street, key])
        keys = [rec.get("ml"), rec.get("id") if rec.get("id") != rec.get("ml") else None]
        lines.append("\t".join(k for v in keys if v for k in map_lot_keys(v)))
    words = {k: v for k, v in street_words().items() if k != v}
    return {"words": words, "ad": rows, "lk": "\n".join(lines), "addressed": addressed,
            "parcels": len(records)}


__all__ = ["SUFFIX_TABLE", "address_key", "map_lot_keys", "search_index", "split_number",
           "street_words"]

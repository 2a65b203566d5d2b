"""One notice per owner per address, typo-tolerant (``docs/abutters.md`` "Duplicates").

Owners and addresses are compared on normalised tokens: capitals, no punctuation, every street
word in its USPS Publication 28 standard form (the package's one table,
``swm_gis/tables/street_suffixes.toml``), PO box spellings alike. Two mailing addresses are
*near* when their numbers (house number, unit, PO box) and their standard words (suffix,
directional, unit designator, "PO BOX") are the same, their state, 5-digit ZIP and country are
the same, and the normalised address lines (so only their street names can differ), and the
cities, each score at least :data:`NEAR_SCORE` with rapidfuzz's ``fuzz.ratio`` (a normalised
Indel similarity, 0-100): "965 MASSAUCHETTS AVE" and "965 MASSACHUSETTS AVE" (92.7) are one
address; "9 ELM ST" and "9 ELK ST" (87.5), "9 ELM ST" and "19 ELM ST" (other number) or
"12 OAK RD" and "12 OAK DR" (other suffix) are not.

* :func:`merge_keys`: the same owner (normalised name) at near addresses is one recipient; each
  such merge is listed in ``mailing_review.csv`` (``merged_near_match``) with both spellings.
* :func:`likely_duplicates`: at near addresses, owner names whose words, filler ("TRUSTEE",
  "TRS", "&", initials) aside, are equal, nested, or near (ratio >= :data:`NEAR_SCORE`, the same
  numbers) are listed for review (``likely_duplicate``), never merged: "SMITH JOHN" and "SMITH
  JOAN" can be two people in one house.

Examples
--------
>>> near_address("965 MASSAUCHETTS AVE", "965 Massachusetts Avenue")
True
>>> near_address("12 OAK RD", "12 OAK DR"), near_address("9 ELM ST", "19 ELM ST")
(False, False)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import pandas as pd
from rapidfuzz import fuzz, process

from swm_gis.rules.mailing.addresses import normalise_address
from swm_gis.rules.postal import (
    comparison_form,
    country_name,
    directional_words,
    suffix_words,
    unit_words,
    us_zip,
)

#: The least rapidfuzz ``fuzz.ratio`` (0-100) at which two street names, cities or owner names
#: are taken as one spelled two ways (docs/abutters.md).
NEAR_SCORE = 90.0

#: Words that do not tell two owners apart ("TRUSTEE", "TRUSTEE OF", "TRS", "ET AL").
_OWNER_FILLER = frozenset({"&", "AND", "OF", "THE", "TR", "TRS", "TRUSTEE", "TRUSTEES", "TRST",
                           "ET", "AL", "JR", "SR"})
_DIGITS = re.compile(r"\d+")


def normalise_owner(value: object) -> str:
    """Owner name key: case, spacing and punctuation ignored; "AND" and "&" alike.

    >>> normalise_owner("Smith, John & Mary.") == normalise_owner("SMITH JOHN AND MARY")
    True
    """
    return " ".join("&" if t == "AND" else t for t in comparison_form(value).split())


def owner_words(name: object) -> frozenset[str]:
    """An owner name's words that tell owners apart (filler and initials dropped)."""
    return frozenset(t for t in normalise_owner(name).split()
                     if t not in _OWNER_FILLER and len(t) > 1)


def recipient_key(row: pd.Series | dict) -> tuple[str, ...]:
    """The exact de-duplication key: normalised owner, address lines, city, state, 5-digit ZIP
    and country (only a value that names one: "MIDDLESEX" in the country field splits no
    owner in two)."""
    zip5 = us_zip(row.get("mail_zip", ""), row.get("mail_state", ""))[0][:5]
    address = " ".join(p for p in (normalise_address(row.get("address1", "")),
                                   normalise_address(row.get("address2", ""))) if p)
    return (normalise_owner(row.get("owner_name", "")), address,
            comparison_form(row.get("mail_city", "")),
            comparison_form(row.get("mail_state", "")), zip5,
            country_name(row.get("mail_country", "")))


def _split_address(address: str) -> tuple[tuple[str, ...], tuple[str, ...], str]:
    """``(numbers, standard words, name)`` of a normalised address."""
    standard = set(suffix_words().values()) | set(directional_words().values()) | set(
        unit_words().values()) | {"PO", "BOX"}
    numbers, words, name = [], [], []
    for tok in address.split():
        if _DIGITS.search(tok):
            numbers.append(tok)
        elif tok in standard:
            words.append(tok)
        else:
            name.append(tok)
    return tuple(numbers), tuple(words), " ".join(name)


def near(a: str, b: str) -> bool:
    """Two normalised texts equal, or scoring at least :data:`NEAR_SCORE`."""
    return a == b or fuzz.ratio(a, b, score_cutoff=NEAR_SCORE) > 0


def near_address(a: object, b: object) -> bool:
    """Whether two street lines are one address spelled two ways (see the module)."""
    ka, kb = normalise_address(a), normalise_address(b)
    (na, wa, _), (nb, wb, _) = _split_address(ka), _split_address(kb)
    return na == nb and wa == wb and near(ka, kb)


def address_clusters(keys: Sequence[tuple[str, ...]]) -> list[int]:
    """A cluster number per address key ``(address, city, state, zip5, country)``: keys in one
    cluster are near (chains of near pairs count). Only keys with the same numbers, standard
    words, state, ZIP and country are compared, so the work stays small."""
    distinct = list(dict.fromkeys(keys))
    parent = list(range(len(distinct)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    blocks: dict[tuple, list[int]] = {}
    parts = []
    for k, (address, city, *rest) in enumerate(distinct):
        numbers, words, _name = _split_address(address)
        parts.append((address, city))
        blocks.setdefault((numbers, words, *rest), []).append(k)
    for members in blocks.values():
        for x, i in enumerate(members):
            for j in members[x + 1:]:
                if near(parts[i][0], parts[j][0]) and near(parts[i][1], parts[j][1]):
                    parent[find(j)] = find(i)
    index = {key: find(k) for k, key in enumerate(distinct)}
    return [index[key] for key in keys]


def merge_keys(records: Sequence[dict]) -> list[tuple[str, int]]:
    """The recipient of each notice: ``(normalised owner, address cluster)`` (one notice per
    owner per address, the address typo-tolerant)."""
    keys = [recipient_key(r) for r in records]
    clusters = address_clusters([k[1:] for k in keys])
    return [(k[0], c) for k, c in zip(keys, clusters, strict=True)]


def likely_duplicates(recips: pd.DataFrame) -> list[list[int]]:
    """Groups of recipients (positions) that are probably one owner but were not merged: near
    mailing addresses and owner names whose words, ignoring "TRUSTEE (OF)", "TRS", "&" and
    initials, are equal, one contains the other ("KARAGEZIAN, JOSEPH TRUSTEE" and "KARAGEZIAN,
    JOSEPH TRUSTEE OF" at "7 DEBSTON LANE" / "7 DEBSTON LN"), or are near with the same numbers
    ("KARAGEZIAN JOSEPH" / "KARAGEZAIN JOSEPH"). Listed for review, never merged.

    Each owner name is reduced to its words once; the names at one address are compared as
    distinct word sets through an index of their words (:func:`_nested`) and, for the near
    spellings, with rapidfuzz's ``cdist`` within sets holding the same numbers, so an address
    shared by thousands of owners is not a Python loop over every pair.
    """
    records = recips.to_dict("records")
    keys = [recipient_key(r)[1:] for r in records]
    clusters = address_clusters(keys)
    by_address: dict[int, list[int]] = {}
    for i, (key, cluster) in enumerate(zip(keys, clusters, strict=True)):
        if key[0]:
            by_address.setdefault(cluster, []).append(i)
    names = recips["owner_name"].tolist() if "owner_name" in recips else [None] * len(recips)
    groups = []
    for members in by_address.values():
        if len(members) < 2:
            continue
        by_words: dict[frozenset[str], list[int]] = {}
        for i in members:
            words = owner_words(names[i])
            if words:
                by_words.setdefault(words, []).append(i)
        linked_sets = ({w for w, rows in by_words.items() if len(rows) > 1} | _nested(by_words)
                       | _near_names(by_words))
        linked = sorted(i for w in linked_sets for i in by_words[w])
        if len(linked) >= 2:
            groups.append(linked)
    return groups


def _near_names(word_sets: Iterable[frozenset[str]]) -> set[frozenset[str]]:
    """The word sets with a near spelling among ``word_sets`` (sorted words compared, the
    numbers in them equal)."""
    by_numbers: dict[tuple[str, ...], list[frozenset[str]]] = {}
    for words in word_sets:
        numbers = tuple(sorted(w for w in words if _DIGITS.search(w)))
        by_numbers.setdefault(numbers, []).append(words)
    out: set[frozenset[str]] = set()
    for sets in by_numbers.values():
        if len(sets) < 2:
            continue
        texts = [" ".join(sorted(s)) for s in sets]
        for start in range(0, len(texts), _CHUNK):  # memory: _CHUNK rows of scores at a time
            scores = process.cdist(texts[start:start + _CHUNK], texts, scorer=fuzz.ratio,
                                   score_cutoff=NEAR_SCORE)
            for k, row in enumerate(scores):
                row[start + k] = 0  # a name is not its own near spelling
                if row.any():
                    out.add(sets[start + k])
    return out


#: Rows of :func:`_near_names`' score matrix computed at once.
_CHUNK = 1024


def _nested(word_sets: Iterable[frozenset[str]]) -> set[frozenset[str]]:
    """The word sets that contain another of ``word_sets`` or lie within one.

    Through an index word -> sets holding it: the sets containing ``s`` are the intersection of
    its words' entries (smallest first), so a thousand distinct names cost a thousand small
    intersections, not a million comparisons.
    """
    sets = list(word_sets)
    holding: dict[str, set[int]] = {}
    for k, words in enumerate(sets):
        for word in words:
            holding.setdefault(word, set()).add(k)
    out: set[frozenset[str]] = set()
    for k, words in enumerate(sets):
        entries = sorted((holding[w] for w in words), key=len)
        supersets = set(entries[0])
        for entry in entries[1:]:
            supersets &= entry
            if len(supersets) == 1:
                break
        supersets.discard(k)
        if supersets:
            out.add(words)
            out.update(sets[j] for j in supersets)
    return out


__all__ = ["NEAR_SCORE", "address_clusters", "likely_duplicates", "merge_keys", "near",
           "near_address", "normalise_owner", "owner_words", "recipient_key"]

"""Owners of record: join abutting parcels to the assessing table and make the recipient list.

Chapter 320's permit procedure, A(7), asks for notice "at the mailing addresses as certified by the
Assessors' office"; the package adds one notice per owner of record, and one per condominium unit
owner (a condominium is several assessing rows on one parcel id). The same owner at the same mailing
address gets one letter however many parcels or units it owns: rows are grouped on a normalised key
(case, spacing, punctuation, USPS street-suffix and PO Box spellings) and the recipient lists every
parcel id it owns. ZIP codes stay text (ZIP+4 kept); a leading zero a spreadsheet dropped is
restored only where the ZIP then belongs to the owner's state (:func:`us_zip`, from the USPS ZIP-
prefix table ``swm_gis/tables/zip_prefixes.csv``); state and ZIP that disagree go to review. A
country named in the city or an address line (pycountry's ISO 3166 names) is printed as the country
line; a country value that means the United States is never printed.

Examples
--------
>>> normalise_address("12 Elm Street.") == normalise_address("12 ELM ST")
True
>>> normalise_address("P.O. Box 29"), us_zip("2138", "MA"), normalise_zip("021381234")
('PO BOX 29', ('02138', ''), '02138-1234')
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

import pandas as pd

from swm_gis.ids import id_series, id_text

# clean_text and comparison_form: the one text normalising of addresses
from swm_gis.rules.postal import (
    US_COUNTRY,
    canadian_province,
    clean_text,
    comparison_form,
    country_at_end,
    country_in_lines,
    normalise_country,
    normalise_zip,
    us_states,
    us_zip,
    zip_prefix_states,
    zip_states,
)

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

_PO_BOX = re.compile(r"\b(?:P\s?O\s?B(?:OX)?|POST\s+OFFICE\s+BOX|POST\s+BOX|P\s?O)\s+(?=\w)")

#: Columns of the mailing list (``docs/abutters.md``), in order.
MAILING_COLUMNS = ["owner_name", "co_owner", "mail_address", "mail_city", "mail_state",
                   "mail_zip", "mail_country", "parcel_ids"]


def normalise_owner(value: object) -> str:
    """Owner name key: case, spacing and punctuation ignored; "AND" and "&" alike.

    >>> normalise_owner("Smith, John & Mary.") == normalise_owner("SMITH JOHN AND MARY")
    True
    """
    return " ".join("&" if t == "AND" else t for t in comparison_form(value).split())


def normalise_address(value: object) -> str:
    """Street address key: case, spacing, punctuation and USPS abbreviations ignored.

    >>> normalise_address("12 Elm St."), normalise_address("77 north Main Road, Apartment #4")
    ('12 ELM ST', '77 N MAIN RD APT 4')
    """
    text = comparison_form(value)
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


@dataclass(frozen=True)
class Notices:
    """The notice ``rows`` of :func:`join_owners` and what became of the listed parcels'
    ``assessing_rows`` (the counts add up: ``docs/abutters.md``): ``blank_rows`` (no owner, no
    address) and ``identical_rows_merged`` (the same owner and address on two units of one
    parcel)."""

    rows: pd.DataFrame
    assessing_rows: int
    blank_rows: int
    identical_rows_merged: int


def join_owners(
    abutting: pd.DataFrame,
    assess: pd.DataFrame,
    *,
    id_col: str = "id",
) -> pd.DataFrame:
    """One notice row per owner of record of each listed parcel (one per condominium unit).

    Identical rows for one parcel (the same owner and address on two units) are one notice.
    Parcels without an assessing row get no notice here (the abutter list flags them).

    Parameters
    ----------
    abutting
        The listed parcels, with the parcel id in ``id_col``.
    assess
        Assessing rows with the logical fields (``parcel_id``, ``owner``, ``co_owner``,
        ``address``, ``address2``, ``city``, ``state``, ``zip``, ``country``).
    id_col
        The parcel id column of ``abutting``.

    Returns
    -------
    DataFrame
        The mailing columns plus ``parcel_id``, ``address1``, ``address2``, in the order of
        ``abutting``. :func:`owner_notices` also counts the rows merged.
    """
    return owner_notices(abutting, assess, id_col=id_col).rows


def owner_notices(abutting: pd.DataFrame, assess: pd.DataFrame, *, id_col: str = "id") -> Notices:
    """:func:`join_owners` and the counts of :class:`Notices`, for :func:`build_recipients`."""
    ids = id_series(abutting[id_col]).dropna()
    assessed = id_series(assess["parcel_id"])
    a = assess.loc[assessed.isin(set(ids))]
    order = {pid: i for i, pid in enumerate(dict.fromkeys(ids))}
    rows = pd.DataFrame({
        "parcel_id": assessed.loc[a.index],
        "owner_name": a["owner"].map(clean_text),
        # a "co-owner" that only says "USA" is a country field mapped as a co-owner: not printed
        "co_owner": _col(a, "co_owner").map(
            lambda v: "" if comparison_form(v) in US_COUNTRY else clean_text(v)),
        "address1": _col(a, "address").map(clean_text),
        "address2": _col(a, "address2").map(clean_text),
        "mail_city": _col(a, "city").map(clean_text),
        "mail_state": _col(a, "state").map(clean_text),
        "mail_zip": _col(a, "zip").map(normalise_zip),
        "mail_country": _col(a, "country").map(clean_text),
    })
    rows["mail_address"] = [", ".join(p for p in (a1, a2) if p)
                            for a1, a2 in zip(rows["address1"], rows["address2"], strict=True)]
    n_rows = len(rows)
    rows = rows.loc[(rows["owner_name"] != "") | (rows["mail_address"] != "")]
    n_blank = n_rows - len(rows)
    rows = rows.drop_duplicates(subset=[c for c in rows.columns if c != "mail_address"])
    n_identical = n_rows - n_blank - len(rows)
    rows["_order"] = rows["parcel_id"].map(order)
    rows = rows.sort_values(["_order"], kind="stable").drop(columns="_order")
    rows = rows.reset_index(drop=True)
    # every row that does not become a notice is counted (the counts add up: docs/abutters.md)
    return Notices(rows=rows, assessing_rows=n_rows, blank_rows=n_blank,
                   identical_rows_merged=n_identical)


def recipient_key(row: pd.Series | dict) -> tuple[str, ...]:
    """The de-duplication key: normalised owner, address lines, city, state, 5-digit ZIP and
    country."""
    zip5 = us_zip(row.get("mail_zip", ""), row.get("mail_state", ""))[0][:5]
    address = " ".join(p for p in (normalise_address(row.get("address1", "")),
                                   normalise_address(row.get("address2", ""))) if p)
    return (normalise_owner(row.get("owner_name", "")), address,
            comparison_form(row.get("mail_city", "")),
            comparison_form(row.get("mail_state", "")), zip5,
            normalise_country(row.get("mail_country", "")))


def recipients(notices: pd.DataFrame) -> pd.DataFrame:
    """De-duplicate notices into recipients: one per owner and mailing address.

    The first spelling met is printed (a ZIP+4 preferred over a 5-digit ZIP; a co-owner line kept
    if any row has one).

    Parameters
    ----------
    notices
        Notice rows, as :func:`join_owners` returns them.

    Returns
    -------
    DataFrame
        One row per recipient: the mailing columns, ``parcel_ids`` (every parcel the recipient
        owns, "; "-separated), ``address1``, ``address2`` and a ``note`` flagging mailing
        addresses that look incomplete. Notices of the same owner at the same address are
        merged: ``len(notices) - len(result)`` of them (:func:`build_recipients` counts every
        merge).
    """
    cols = MAILING_COLUMNS + ["address1", "address2", "note"]
    if notices.empty:
        return pd.DataFrame(columns=cols)
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
    return pd.DataFrame(rows)[cols].reset_index(drop=True)


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


# --------------------------------------------------------------------------- mailability
#: Words in a foreign address that name its country when the assessing record does not (the
#: Cambridge table has no country field). Checked against the city, state and second address
#: line; the country is printed in capitals on the last line, as USPS Publication 28 asks.
COUNTRY_HINTS = {
    "NSW": "AUSTRALIA", "VIC": "AUSTRALIA", "QLD": "AUSTRALIA", "TAS": "AUSTRALIA",
    "SYDNEY": "AUSTRALIA", "MELBOURNE": "AUSTRALIA", "MANAMA": "BAHRAIN", "BAHRAIN": "BAHRAIN",
    "BEIJING": "CHINA", "SHANGHAI": "CHINA", "SHENZHEN": "CHINA", "HONG KONG": "HONG KONG",
    "TAIPEI": "TAIWAN", "SEOUL": "KOREA, REPUBLIC OF", "TOKYO": "JAPAN", "SINGAPORE": "SINGAPORE",
    "LONDON": "UNITED KINGDOM", "PARIS": "FRANCE", "DUBLIN": "IRELAND", "DUBAI": "UNITED ARAB "
    "EMIRATES", "ONTARIO": "CANADA", "QUEBEC": "CANADA", "TORONTO": "CANADA", "MONTREAL":
    "CANADA", "VANCOUVER": "CANADA", "BC": "CANADA", "ON": "CANADA", "QC": "CANADA",
    "NS": "CANADA", "NB": "CANADA", "AB": "CANADA", "MUMBAI": "INDIA", "DELHI": "INDIA",
    "BANGALORE": "INDIA", "BENGALURU": "INDIA", "ZURICH": "SWITZERLAND", "GENEVA": "SWITZERLAND",
}
#: A second address line that is only a secondary unit ("UNIT 108", "APT 2", "# 5", "STE I"):
#: USPS puts it on the delivery line, after the street ("4 CANAL PARK UNIT 108").
_UNIT_ONLY = re.compile(r"^(?:(?:UNIT|APT|APARTMENT|STE|SUITE|FL|FLOOR|RM|ROOM|NO|#)\.?\s*"
                        r"(?:NO\.?\s*|#\s*)?[\w/-]{1,8}(?:\s+(?:II|2))?|#?[A-Z0-9]{1,2})$",
                        re.IGNORECASE)
#: Address kinds that can be mailed (the others, "none" and "incomplete", go to review).
MAILABLE_KINDS = ("street", "po_box", "foreign")


@dataclass(frozen=True)
class AddressCheck:
    """What a recipient's mailing address is and the lines a label prints.

    ``kind`` is ``street`` (US street address), ``po_box`` (US post office box), ``foreign``
    (outside the US, with its country), ``none`` (no mailing address at all) or ``incomplete``
    (something a carrier needs is missing). ``lines`` are the address lines below the name(s):
    delivery line(s), city line, country line (foreign mail only).
    """

    kind: str
    lines: tuple[str, ...]
    country: str = ""
    problem: str = ""
    #: the city and ZIP as printed (a country taken out of the city line, a ZIP's zero back)
    city: str | None = field(default=None, repr=False)
    zip_code: str | None = field(default=None, repr=False)

    @property
    def mailable(self) -> bool:
        return self.kind in MAILABLE_KINDS


def delivery_lines(address1: object, address2: object) -> list[str]:
    """The street lines as USPS wants them: a unit-only second line joins the street line, and
    when a PO box and a street are both given the PO box is the line above the city.

    >>> delivery_lines("4 CANAL PARK", "UNIT 108")
    ['4 CANAL PARK UNIT 108']
    >>> delivery_lines("P.O. BOX 29", "ASTOR DRIVE")
    ['ASTOR DRIVE', 'P.O. BOX 29']
    """
    a1, a2 = clean_text(address1), clean_text(address2)
    if a1 and a2 and _UNIT_ONLY.match(a2) and not _is_po_box(a1):
        return [f"{a1} {a2}"]
    lines = [a for a in (a1, a2) if a]
    if len(lines) == 2 and _is_po_box(lines[0]) and not _is_po_box(lines[1]):
        lines.reverse()
    return lines


def _is_po_box(text: str) -> bool:
    return normalise_address(text).startswith("PO BOX ")


def _looks_like_street(text: str) -> bool:
    """A placeholder ("A", "Z", "-") is not a street line; two letters or digits at least."""
    return sum(ch.isalnum() for ch in text) >= 2


def infer_country(*parts: object) -> str:
    """The country a foreign address names, from :data:`COUNTRY_HINTS` ('' if none).

    >>> infer_country("BELLA VISTA NSW 2153"), infer_country("MANAMA"), infer_country("BOSTON")
    ('AUSTRALIA', 'BAHRAIN', '')
    """
    text = " ".join(comparison_form(p) for p in parts)
    words = set(text.split())
    for hint, country in COUNTRY_HINTS.items():
        if (hint in words) if " " not in hint else (hint in text):
            return country
    return ""


def classify_address(rec: dict) -> AddressCheck:
    """Classify one recipient's mailing address (pure; reads the ``join_owners`` columns).

    >>> classify_address({"owner_name": "A B", "address1": "4 CANAL PARK", "address2": "UNIT 1",
    ...                   "mail_city": "CAMBRIDGE", "mail_state": "MA", "mail_zip": "02141"})
    AddressCheck(kind='street', lines=('4 CANAL PARK UNIT 1', 'CAMBRIDGE, MA 02141'), country='', problem='')
    >>> classify_address({"owner_name": "A B"}).kind
    'none'
    """  # noqa: E501
    owner, street, city, state, zip_, given_country = _address_fields(rec)
    if not street and not city:
        return AddressCheck("none", (), problem="no mailing address on the assessing record: "
                            "ask the Assessors for one; this owner cannot be mailed a notice")
    country = normalise_country(given_country)
    country = country if sum(ch.isalpha() for ch in country) >= 2 else ""
    if not country and state not in us_states():
        country, city, state, street = country_in_lines(city, state, street)
        if not country:  # a province in the state field ("MB"), else a word of the lines
            country = canadian_province(state) or infer_country(city, state, *street[1:], zip_)
    missing = [] if street else ["street or PO box"]
    if not owner:
        missing.append("owner name")
    if country:
        return _foreign_check(street, city, state, zip_, country, missing)
    return _us_check(street, city, state, zip_, missing)


def _address_fields(rec: dict) -> tuple[str, list[str], str, str, str, str]:
    """Owner name, street lines, city, state, ZIP and the country column, cleaned (a placeholder
    street or city, "Z" or "-", is dropped)."""
    get = {k: clean_text(rec.get(k)) for k in ("owner_name", "address1", "address2",
                                               "mail_address", "mail_city", "mail_state",
                                               "mail_zip", "mail_country")}
    a1 = get["address1"] if "address1" in rec else get["mail_address"]
    a1 = a1 if _looks_like_street(a1) else ""  # "Z", "-": a placeholder, not a street
    street = [line for line in delivery_lines(a1, get["address2"]) if _looks_like_street(line)]
    city = get["mail_city"] if _looks_like_street(get["mail_city"]) else ""
    return (get["owner_name"], street, city, get["mail_state"].upper(), get["mail_zip"],
            get["mail_country"])


def _foreign_check(street: list[str], city: str, state: str, zip_: str, country: str,
                   missing: list[str]) -> AddressCheck:
    """A foreign address: its lines end with the country (state and ZIP as given, if any)."""
    last = " ".join(p for p in (city, state if _looks_like_street(state) else "",
                                zip_ if _looks_like_street(zip_) else "") if p)
    lines = (*street, last, country) if last else (*street, country)
    if missing:
        return AddressCheck("incomplete", lines, country, _missing_text(missing), city=city)
    return AddressCheck("foreign", lines, country, city=city)


def _us_check(street: list[str], city: str, state: str, zip_: str,
              missing: list[str]) -> AddressCheck:
    """A US address: it needs a state, a city and a ZIP that belongs to the state."""
    if state not in us_states():
        missing.append("state (or the country, if foreign)" if state == "" else
                       f"a US state (\"{state}\" is none; if foreign, the country)")
    if not city:
        missing.append("city")
    zip_problem = ""
    if not zip_:
        missing.append("ZIP")
    elif state in us_states():
        zip_, zip_problem = us_zip(zip_, state)
    last = " ".join(p for p in (f"{city}," if city else "", state, zip_) if p).rstrip(",")
    lines = tuple(line for line in (*street, last) if line)
    if missing:
        return AddressCheck("incomplete", lines, "", _missing_text(missing), city=city,
                            zip_code=zip_)
    if zip_problem:
        return AddressCheck("incomplete", lines, "", zip_problem, city=city, zip_code=zip_)
    kind = "po_box" if street and _is_po_box(street[-1]) else "street"
    return AddressCheck(kind, lines, city=city, zip_code=zip_)


def _missing_text(missing: list[str]) -> str:
    return (f"incomplete mailing address (no {', '.join(missing)}): check with the Assessors "
            "before mailing")


REVIEW_COLUMNS = ["issue", "group", "owner_name", "co_owner", "mail_address", "mail_city",
                  "mail_state", "mail_zip", "mail_country", "parcel_ids", "reason"]
#: Words that do not tell two owners apart ("TRUSTEE", "TRUSTEE OF", "TRS", "ET AL").
_OWNER_FILLER = frozenset({"&", "AND", "OF", "THE", "TR", "TRS", "TRUSTEE", "TRUSTEES", "TRST",
                           "ET", "AL", "JR", "SR"})


def _owner_words(name: object) -> frozenset[str]:
    return frozenset(t for t in normalise_owner(name).split()
                     if t not in _OWNER_FILLER and len(t) > 1)


def likely_duplicates(recips: pd.DataFrame) -> list[list[int]]:
    """Groups of recipients (positions) that are probably one owner but were not merged: the
    same mailing address (normalised) and owner names whose words, ignoring "TRUSTEE (OF)",
    "TRS", "&" and initials, are equal or one contains the other ("KARAGEZIAN, JOSEPH TRUSTEE"
    and "KARAGEZIAN, JOSEPH TRUSTEE OF" at "7 DEBSTON LANE" / "7 DEBSTON LN"). They are listed
    for review, never merged: two people can share a surname and a house.

    Each owner name is reduced to its words once; the names at one address are compared as
    distinct word sets (rows with the same non-empty set are linked at once) through an index of
    their words (:func:`_nested`), so an address shared by thousands of owners is not a
    comparison of every pair.
    """
    by_address: dict[tuple[str, ...], list[int]] = {}
    for i, rec in enumerate(recips.to_dict("records")):
        key = recipient_key(rec)[1:]
        if key[0]:
            by_address.setdefault(key, []).append(i)
    names = recips["owner_name"].tolist() if "owner_name" in recips else [None] * len(recips)
    groups = []
    for members in by_address.values():
        if len(members) < 2:
            continue
        by_words: dict[frozenset[str], list[int]] = {}
        for i in members:
            words = _owner_words(names[i])
            if words:
                by_words.setdefault(words, []).append(i)
        linked_sets = {w for w, rows in by_words.items() if len(rows) > 1} | _nested(by_words)
        linked = sorted(i for w in linked_sets for i in by_words[w])
        if len(linked) >= 2:
            groups.append(linked)
    return groups


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


def build_recipients(
    notices: Notices | pd.DataFrame,
    *,
    subject_ids: Iterable[object] = (),
) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, int]]:
    """Recipients who can be mailed, the records to review, and every count (``docs/abutters.md``).

    Parameters
    ----------
    notices
        The output of :func:`owner_notices` (the rows and the counts of the rows it merged); the
        rows alone (:func:`join_owners`) count as every assessing row with none merged.
    subject_ids
        Subject parcel ids: a recipient owning one gets ``is_subject`` true (with
        ``include_subject=True``).

    Returns
    -------
    mailable
        One row per recipient with a usable address: the mailing columns, ``is_subject``,
        ``address_kind`` (street, po_box, foreign), ``address_lines`` (the label's address lines,
        newline-separated) and ``note``. This is what ``mailing_list.csv``, the labels and the
        certified-mail book print.
    review
        :data:`REVIEW_COLUMNS`: ``issue`` ``no_mailing_address`` or ``incomplete_address`` (kept
        off every mailing output) or ``likely_duplicate`` (mailed, but probably the same owner as
        the other rows of its ``group``).
    counts
        ``assessing_rows``, ``blank_rows``, ``identical_rows_merged``,
        ``same_owner_address_merged``, ``duplicates_removed`` (the two merges together),
        ``recipients`` (before the mailability split), ``mailable``, ``no_mailing_address``,
        ``incomplete_address``, ``foreign_address``, ``po_box``, ``likely_duplicate_groups`` and
        ``likely_duplicate_recipients``. ``recipients == mailable + no_mailing_address +
        incomplete_address``.
    """
    if not isinstance(notices, Notices):
        notices = Notices(rows=notices, assessing_rows=len(notices), blank_rows=0,
                          identical_rows_merged=0)
    merged = recipients(notices.rows)
    same_owner_address = len(notices.rows) - len(merged)
    subjects = {str(s) for s in subject_ids}
    merged = merged.assign(**_address_columns(merged, subjects))
    mailable_mask = merged["address_kind"].isin(MAILABLE_KINDS).to_numpy()
    review = [merged.loc[~mailable_mask].assign(
        issue=["no_mailing_address" if k == "none" else "incomplete_address"
               for k in merged.loc[~mailable_mask, "address_kind"]],
        group=0, reason=merged.loc[~mailable_mask, "note"])]
    mailable = merged.loc[mailable_mask].reset_index(drop=True)
    groups = likely_duplicates(mailable)
    for g, members in enumerate(groups, start=1):
        review.append(mailable.iloc[members].assign(
            issue="likely_duplicate", group=g,
            reason="same mailing address and nearly the same owner name: check whether one "
                   "notice is enough (not merged)"))
    review_df = pd.concat(review, ignore_index=True)[REVIEW_COLUMNS] if review else \
        pd.DataFrame(columns=REVIEW_COLUMNS)
    kinds = merged["address_kind"].value_counts()
    counts = {
        "assessing_rows": notices.assessing_rows,
        "blank_rows": notices.blank_rows,
        "identical_rows_merged": notices.identical_rows_merged,
        "same_owner_address_merged": same_owner_address,
        "duplicates_removed": same_owner_address + notices.identical_rows_merged,
        "recipients": len(merged),
        "mailable": int(mailable_mask.sum()),
        "no_mailing_address": int(kinds.get("none", 0)),
        "incomplete_address": int(kinds.get("incomplete", 0)),
        "foreign_address": int(kinds.get("foreign", 0)),
        "po_box": int(kinds.get("po_box", 0)),
        "likely_duplicate_groups": len(groups),
        "likely_duplicate_recipients": sum(len(g) for g in groups),
    }
    return mailable, review_df, counts



def _address_columns(merged: pd.DataFrame, subjects: set[str]) -> dict[str, list]:
    """The columns :func:`classify_address` gives each recipient (and ``is_subject``)."""
    checks = [classify_address(r) for r in merged.to_dict("records")]
    return dict(
        is_subject=[bool(subjects & set(str(p).split("; "))) for p in merged["parcel_ids"]],
        address_kind=[c.kind for c in checks],
        address_lines=["\n".join(c.lines) for c in checks],
        # a US spelling of the country ("USA") is never printed
        mail_country=[c.country or normalise_country(v) for c, v in
                      zip(checks, merged["mail_country"], strict=True)],
        mail_city=[clean_text(v) if c.city is None else c.city for c, v in
                   zip(checks, merged["mail_city"], strict=True)],
        mail_zip=[clean_text(v) if c.zip_code is None else c.zip_code for c, v in
                  zip(checks, merged["mail_zip"], strict=True)],
        note=[c.problem or (f"country {c.country} read from the address" if c.kind == "foreign"
                            and not normalise_country(v) else "")
              for c, v in zip(checks, merged["mail_country"], strict=True)],
    )

_DANGLING = re.compile(r"\s*(?:&|\bAND\b|,)\s*$", re.IGNORECASE)


def owner_display(owner: object, co_owner: object = "") -> str:
    """An owner as a reader should see it in one cell: a name cut off by the assessing field
    ("GOMES, FERNANDO J. &") is completed with the co-owner line, or loses its dangling "&".

    >>> owner_display("GOMES, FERNANDO J. &", "MARIA GOMES"), owner_display("KIEU, ALIX &")
    ('GOMES, FERNANDO J. & MARIA GOMES', 'KIEU, ALIX')
    >>> owner_display("SMITH, ANN", "THE SMITH TRUST")
    'SMITH, ANN'
    """
    name, co = clean_text(owner), clean_text(co_owner)
    if _DANGLING.search(name):
        return f"{name} {co}" if co else _DANGLING.sub("", name)
    return name


def owners_by_parcel(notices: pd.DataFrame) -> dict[str, str]:
    """Parcel id -> its owners of record for the map key ("; " between distinct owners)."""
    out: dict[str, list[str]] = {}
    for rec in notices.to_dict("records"):
        name = owner_display(rec.get("owner_name"), rec.get("co_owner"))
        names = out.setdefault(id_text(rec["parcel_id"]) or "", [])
        if name and name not in names:
            names.append(name)
    return {pid: "; ".join(names) for pid, names in out.items()}


def fiscal_years(assess: pd.DataFrame) -> list[str]:
    """The assessing data's fiscal year(s), as found in its ``fiscal_year`` field."""
    if "fiscal_year" not in assess:
        return []
    values = {clean_text(v) for v in assess["fiscal_year"]}
    values.discard("")
    return sorted(v[:-2] if v.endswith(".0") else v for v in values)


def _col(df: pd.DataFrame, name: str) -> pd.Series:
    return df[name] if name in df else pd.Series("", index=df.index, dtype=object)


def unique_ids(values: Iterable[object]) -> list[str]:
    return list(dict.fromkeys(str(v) for v in values if clean_text(v)))


__all__ = [
    "MAILING_COLUMNS", "REVIEW_COLUMNS", "AddressCheck", "Notices", "address_problem",
    "build_recipients", "owner_notices",
    "classify_address", "clean_text", "delivery_lines", "fiscal_years", "infer_country",
    "country_at_end", "join_owners", "likely_duplicates", "us_zip", "zip_prefix_states",
    "zip_states", "owner_display", "owners_by_parcel",
    "normalise_address", "normalise_country", "normalise_owner", "normalise_zip",
    "recipient_key", "recipients", "unique_ids",
]

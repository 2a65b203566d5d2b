"""Postal facts for mailing addresses: US ZIPs against the owner's state, and country names.

* :func:`us_zip`: a US ZIP is 5 digits or ZIP+4; a leading zero a spreadsheet dropped is
  restored only where the padded ZIP belongs to the owner's state, from the USPS three-digit
  prefix table ``swm_gis/tables/zip_prefixes.csv`` (:func:`zip_states`); a ZIP of another state
  is a problem for review.
* :func:`country_at_end`, :func:`country_in_lines`: a country named at the end of the city, the
  state or an address line ("SANTIAGO CHILE"), from pycountry's ISO 3166 names.
* :func:`normalise_country`: a country as printed; the United States in any spelling is ''.
* :func:`us_states`, :func:`canadian_province`: the state field, from pycountry's ISO 3166-2
  subdivisions (USPS codes are the ISO codes of the US subdivisions).
* :func:`country_name`: a country field's value as a country, only when it names one (a county,
  a code or a number in the field is no country: :func:`not_a_country_reason`).
* :func:`is_placeholder_zip`: "99999", "00000" (and their ZIP+4) stand for "no ZIP".
* :func:`street_words`, :func:`unit_words`: the package's one USPS Publication 28 word table
  (``swm_gis/tables/street_suffixes.toml``), read by the mailing list and the web map's search.

:mod:`swm_gis.rules.owners` uses these to classify each recipient's address (docs/abutters.md).
"""

from __future__ import annotations

import csv
import functools
import re
import tomllib
import unicodedata
from importlib import resources as ilr

import pandas as pd

US_COUNTRY = {"", "US", "USA", "U S", "U S A", "UNITED STATES", "UNITED STATES OF AMERICA"}

_PUNCT = re.compile(r"[^\w&/ ]+")
_SPACES = re.compile(r"\s+")
#: Control characters (bell, NUL, escape ...): never printable, and illegal in an XLSX cell.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def clean_text(value: object) -> str:
    """Text as printed: trimmed, inner whitespace and control characters gone, missing values
    and placeholders for "no value" ("_", "-", "N/A" ...) as ''."""
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return ""
    text = _SPACES.sub(" ", _CONTROL.sub("", str(value))).strip()
    if text.upper() in {"NAN", "NONE", "NULL", "N/A", "NA"} or not any(c.isalnum() for c in text):
        return ""
    return text


def comparison_form(value: object) -> str:
    """Capitals, punctuation and apostrophes dropped: the form names are compared in."""
    text = unicodedata.normalize("NFKC", clean_text(value)).upper()
    text = _PUNCT.sub(" ", text.replace("'", "").replace("\u2019", ""))
    return _SPACES.sub(" ", text).strip()


def normalise_zip(value: object) -> str:
    """ZIP code as text, as given: ZIP+4 written 12345-6789, a spreadsheet's ``.0`` dropped;
    anything else (a foreign postcode, a ZIP cut short) kept as given. A leading zero is restored
    only by :func:`us_zip`, which knows the owner's state.

    >>> normalise_zip("019401234"), normalise_zip("1940.0"), normalise_zip("SW1A 1AA")
    ('01940-1234', '1940', 'SW1A 1AA')
    """
    text = clean_text(value)
    if text.endswith(".0") and text[:-2].isdigit():
        text = text[:-2]
    digits = text.replace("-", "").replace(" ", "")
    if digits.isdigit() and len(digits) == 9:
        return f"{digits[:5]}-{digits[5:]}"
    return text


@functools.cache
def zip_prefix_states() -> dict[str, frozenset[str]]:
    """Three-digit ZIP prefix -> the USPS state code(s) it serves (``tables/zip_prefixes.csv``,
    the public USPS prefix ranges; a few prefixes serve several, e.g. 969: Guam, the Northern
    Marianas, Palau, Micronesia, the Marshall Islands)."""
    text = ilr.files("swm_gis").joinpath("tables/zip_prefixes.csv").read_text("utf-8")
    out: dict[str, set[str]] = {}
    for row in csv.DictReader(text.splitlines()):
        for n in range(int(row["first"]), int(row["last"]) + 1):
            out.setdefault(f"{n:03d}", set()).add(row["state"].strip())
    return {k: frozenset(v) for k, v in out.items()}


def zip_states(zip_code: str) -> frozenset[str]:
    """The states a ZIP's first three digits belong to (empty: an unassigned prefix).

    >>> sorted(zip_states("01940")), sorted(zip_states("00100"))
    (['MA'], [])
    """
    return zip_prefix_states().get(str(zip_code)[:3], frozenset())


def us_zip(value: object, state: object) -> tuple[str, str]:
    """A US ZIP checked against the owner's state: ``(zip as printed, problem)``.

    Five digits or ZIP+4 are kept; four (or eight) digits get their leading zero back only when
    the padded ZIP belongs to ``state`` (a spreadsheet drops leading zeros; "0100" of Pelham, MA
    is cut short, not zero-stripped: 00100 belongs to no state); three (seven) digits likewise
    get two. Anything else, or a ZIP of another state, is a problem (review, not mail).

    >>> us_zip("1773", "MA"), us_zip("017731234", "MA")
    (('01773', ''), ('01773-1234', ''))
    >>> us_zip("0100", "MA")[1].split(":")[0]
    'ZIP 0100 has 4 digits and 00100 is not a MA ZIP'
    >>> us_zip("02141", "MS")[1]
    'state MS and ZIP 02141 disagree (ZIPs 021.. are MA): check them with the Assessors'
    """
    text = normalise_zip(value)
    st = clean_text(state).upper()
    digits = text.replace("-", "").replace(" ", "")
    if not digits.isdigit() or len(digits) not in (3, 4, 5, 7, 8, 9):
        return text, (f"ZIP {text!r} is not a US ZIP (5 digits or ZIP+4): check it with the "
                      "Assessors")
    pad = {3: 2, 4: 1, 7: 2, 8: 1}.get(len(digits), 0)
    full = "0" * pad + digits
    printed = full if len(full) == 5 else f"{full[:5]}-{full[5:]}"
    states = zip_states(full)
    if pad:
        if st in states:
            return printed, ""
        return text, (f"ZIP {text} has {len(digits)} digits and {printed} is not a {st} ZIP: the "
                      "ZIP is likely cut short; check it with the Assessors")
    if not states:
        return printed, (f"ZIP {printed} belongs to no state (prefix {full[:3]} is not "
                         "assigned): check it with the Assessors")
    if st not in states:
        return printed, (f"state {st} and ZIP {printed} disagree (ZIPs {full[:3]}.. are "
                         f"{'/'.join(sorted(states))}): check them with the Assessors")
    return printed, ""


def normalise_country(value: object) -> str:
    """A country value as printed; '' for the United States in any spelling (never printed on
    domestic mail).

    >>> [normalise_country(v) for v in ("U.S.A.", "United States of America", "Canada")]
    ['', '', 'CANADA']
    """
    text = comparison_form(value)
    if text in US_COUNTRY or _country_names().get(text) == "UNITED STATES":
        return ""
    return text


#: Names in addresses that pycountry's ISO 3166 names do not spell so.
_COUNTRY_EXTRA = {
    "UK": "UNITED KINGDOM", "GREAT BRITAIN": "UNITED KINGDOM", "ENGLAND": "UNITED KINGDOM",
    "SCOTLAND": "UNITED KINGDOM", "WALES": "UNITED KINGDOM", "NORTHERN IRELAND":
    "UNITED KINGDOM", "SOUTH KOREA": "KOREA, REPUBLIC OF", "KOREA": "KOREA, REPUBLIC OF",
    "RUSSIA": "RUSSIAN FEDERATION", "VIETNAM": "VIET NAM", "HOLLAND": "NETHERLANDS",
    "THE NETHERLANDS": "NETHERLANDS", "CZECH REPUBLIC": "CZECHIA", "TURKEY": "TURKIYE",
    "PRC": "CHINA", "P R CHINA": "CHINA", "PEOPLES REPUBLIC OF CHINA": "CHINA",
    "UAE": "UNITED ARAB EMIRATES", "IVORY COAST": "COTE D IVOIRE",
}


@functools.cache
def _country_names() -> dict[str, str]:
    """Country name as written (normalised like an address) -> the name printed, in capitals:
    ISO 3166 names, official and common names from pycountry, and a few usual spellings."""
    import pycountry

    names: dict[str, str] = {}
    for c in pycountry.countries:
        printed = comparison_form(getattr(c, "common_name", None) or c.name)
        for n in (c.name, getattr(c, "official_name", None), getattr(c, "common_name", None)):
            if n:
                names.setdefault(comparison_form(n), printed)
    names["UNITED STATES"] = names["UNITED STATES OF AMERICA"] = "UNITED STATES"
    for k, v in _COUNTRY_EXTRA.items():
        names.setdefault(k, names.get(v, v))
    return names


#: USPS state codes that are not ISO 3166-2 subdivisions of the United States: the freely
#: associated states the USPS serves (Micronesia, the Marshall Islands, Palau: their ISO 3166-1
#: codes) and the military "states" of APO/FPO mail (Publication 28 appendix B).
USPS_CODES_NOT_SUBDIVISIONS = ("FM", "MH", "PW", "AA", "AE", "AP")


@functools.cache
def us_states() -> frozenset[str]:
    """Every USPS state and territory code (Publication 28 appendix B): the codes of pycountry's
    ISO 3166-2 subdivisions of the United States (50 states, DC and the outlying areas, "US-MA"
    -> "MA") and :data:`USPS_CODES_NOT_SUBDIVISIONS`.

    >>> len(us_states()), {"MA", "DC", "PR", "GU", "AE"} <= us_states(), "ON" in us_states()
    (63, True, False)
    """
    import pycountry

    iso = (s.code.removeprefix("US-") for s in pycountry.subdivisions.get(country_code="US"))
    return frozenset(iso) | frozenset(USPS_CODES_NOT_SUBDIVISIONS)


@functools.cache
def _canadian_provinces() -> frozenset[str]:
    """Canada's provinces and territories, by code ("ON") and by name ("ONTARIO"), from
    pycountry's ISO 3166-2 subdivisions of Canada, normalised like an address."""
    import pycountry

    found = pycountry.subdivisions.get(country_code="CA")
    return frozenset(comparison_form(n)
                     for s in found for n in (s.code.removeprefix("CA-"), s.name))


def canadian_province(state: object) -> str:
    """``"CANADA"`` when a state field holds a Canadian province or territory (its code or name),
    else ''. None of their codes is a USPS code, so a US state is never read as one.

    >>> canadian_province("MB"), canadian_province("Nova Scotia"), canadian_province("MA")
    ('CANADA', 'CANADA', '')
    """
    return "CANADA" if comparison_form(state) in _canadian_provinces() else ""


def country_at_end(text: object) -> tuple[str, str]:
    """A country named by the last words of an address line: ``(country, the rest)``, or
    ``("", text)`` when none is (the United States is not a foreign country here).

    >>> country_at_end("SANTIAGO CHILE"), country_at_end("BOSTON")
    (('CHILE', 'SANTIAGO'), ('', 'BOSTON'))
    >>> country_at_end("London, United Kingdom")
    ('UNITED KINGDOM', 'LONDON')
    """
    base = comparison_form(text)
    words = base.split()
    names = _country_names()
    for k in range(min(5, len(words)), 0, -1):
        found = names.get(" ".join(words[-k:]))
        if found and found != "UNITED STATES":
            return found, " ".join(words[:-k])
    return "", clean_text(text)


def country_in_lines(city: str, state: str, street: list[str]
                      ) -> tuple[str, str, str, list[str]]:
    """A country named at the end of the city, the state or a second address line ("SANTIAGO
    CHILE"; "ONTARIO CANADA"; a line "CHILE"): the country and the lines without it."""
    country, rest = country_at_end(city)
    if country:
        return country, rest, state, street
    country, rest = country_at_end(state)
    if country:
        return country, city, rest, street
    for i in range(len(street) - 1, 0, -1):
        country, rest = country_at_end(street[i])
        if country:
            lines = [*street[:i], *([rest] if sum(ch.isalnum() for ch in rest) >= 2 else []),
                     *street[i + 1:]]
            return country, city, state, lines
    return "", city, state, street


def country_name(value: object) -> str:
    """The country a country field names, as printed; '' for the United States in any spelling
    and for a value that names no country (pycountry's ISO 3166 names and the usual spellings of
    :data:`_COUNTRY_EXTRA`, compared like an address).

    >>> [country_name(v) for v in ("Canada", "U.S.A.", "MIDDLESEX", "UDA", "4554", "uk")]
    ['CANADA', '', '', '', '', 'UNITED KINGDOM']
    """
    found = _country_names().get(comparison_form(value), "")
    return "" if found == "UNITED STATES" else found


def not_a_country_reason(value: object) -> str:
    """Why a country field's value is not printed as the country line ('' when it is a country,
    the United States, or empty). In the MassGIS L3 standard ``OWN_CO`` is the owner's country;
    extracts hold county names, codes and numbers in it.

    >>> not_a_country_reason("MIDDLESEX").split(":")[0]
    'the country field holds "MIDDLESEX", which names no country (a county or town?)'
    >>> not_a_country_reason("4554").split(":")[0], not_a_country_reason("Japan")
    ('the country field holds "4554", a number, not a country', '')
    """
    text = comparison_form(value)
    if text in US_COUNTRY or country_name(value) or _country_names().get(text):
        return ""
    shown = clean_text(value)
    if text.replace(" ", "").isdigit():
        what = "a number, not a country"
    elif len(text.replace(" ", "")) <= 3:
        what = "a code that names no country"
    else:
        what = "which names no country (a county or town?)"
    return (f'the country field holds "{shown}", {what}: printed without a country line; '
            "check it with the Assessors")


_PLACEHOLDER_ZIP = re.compile(r"^(?:0{5}|9{5})(?:-?(?:0{4}|9{4}))?$")


def is_placeholder_zip(value: object) -> bool:
    """True for the ZIPs assessing tables write for "no ZIP" (99999, 00000, 99999-9999); no
    US address has one (prefixes 000 and 999 are assigned to no state).

    >>> is_placeholder_zip("99999"), is_placeholder_zip("00000-0000"), is_placeholder_zip("01940")
    (True, True, False)
    """
    return bool(_PLACEHOLDER_ZIP.match(clean_text(value).replace(" ", "")))


#: The package's one USPS Publication 28 word table: suffixes, directionals, local spellings and
#: secondary-unit designators (the mailing list's comparison and the web map's search).
SUFFIX_TABLE = "tables/street_suffixes.toml"


@functools.cache
def _word_table() -> dict[str, dict[str, list[str]]]:
    text = ilr.files("swm_gis").joinpath(SUFFIX_TABLE).read_text(encoding="utf-8")
    return tomllib.loads(text)


def _standard_forms(sections: tuple[str, ...]) -> dict[str, str]:
    words: dict[str, str] = {}
    for section in sections:
        for standard, spellings in _word_table()[section].items():
            words[standard] = standard
            for spelling in spellings:
                words[spelling] = standard
    return words


@functools.cache
def street_words() -> dict[str, str]:
    """Spelling -> its USPS standard form, for every street suffix, directional and local
    spelling the table lists (the standard forms map to themselves).

    >>> street_words()["STREET"], street_words()["PK"], street_words()["AVENUE"]
    ('ST', 'PARK', 'AVE')
    """
    return _standard_forms(("suffixes", "directionals", "local"))


@functools.cache
def suffix_words() -> dict[str, str]:
    """:func:`street_words` without the directionals (suffixes and local spellings)."""
    return _standard_forms(("suffixes", "local"))


@functools.cache
def directional_words() -> dict[str, str]:
    """Directionals ("NORTH" -> "N"), Publication 28 appendix B."""
    return _standard_forms(("directionals",))


@functools.cache
def unit_words() -> dict[str, str]:
    """Secondary-unit designators ("APARTMENT" -> "APT"), Publication 28 appendix C2.

    >>> unit_words()["SUITE"], unit_words()["APT"]
    ('STE', 'APT')
    """
    return _standard_forms(("units",))


__all__ = ["SUFFIX_TABLE", "US_COUNTRY", "USPS_CODES_NOT_SUBDIVISIONS", "canadian_province",
           "clean_text", "comparison_form", "country_at_end", "country_in_lines",
           "country_name", "directional_words", "is_placeholder_zip", "normalise_country",
           "normalise_zip", "not_a_country_reason", "street_words", "suffix_words",
           "unit_words", "us_states", "us_zip", "zip_prefix_states", "zip_states"]

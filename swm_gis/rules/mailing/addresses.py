"""One mailing address, formatted once: :func:`format_address` (``docs/abutters.md``).

Every output that prints a recipient's address (``mailing_list.csv``, ``mailing_list.xlsx``,
``labels.pdf`` and the certified-mail book) prints what this one function returns: the delivery
line(s) (a unit-only second line joined to the street, a PO box the line above the city), the
city, state and ZIP, and a country line only on foreign mail and only when it names a country.
It also says what kind of address it is (``street``, ``po_box``, ``foreign``; ``none`` and
``incomplete`` go to review) and what it left out of the record, with the reason:

* a country field (MassGIS L3 ``OWN_CO``) that names no country ("MIDDLESEX", "UDA", "4554")
  is never printed (``not_a_country``);
* a placeholder ZIP (99999, 00000) is no ZIP: a US address without one goes to review, a
  foreign one is printed without it (``placeholder_dropped``);
* a US state on a foreign address ("HONG KONG MA 99999") is not printed (``placeholder_dropped``).

:func:`normalise_address` is the comparison form of a street line, in the standard words of the
package's one USPS Publication 28 table (:func:`swm_gis.rules.postal.street_words`).

Examples
--------
>>> normalise_address("12 Elm Street.") == normalise_address("12 ELM ST")
True
>>> format_address({"owner_name": "A", "address1": "1 QUEENS RD", "mail_city": "HONG KONG",
...                 "mail_state": "MA", "mail_zip": "99999", "mail_country": "HONG KONG"}).lines
('1 QUEENS RD', 'HONG KONG')
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from swm_gis.rules.postal import (
    canadian_province,
    clean_text,
    comparison_form,
    country_at_end,
    country_in_lines,
    country_name,
    directional_words,
    is_placeholder_zip,
    not_a_country_reason,
    suffix_words,
    unit_words,
    us_states,
    us_zip,
)

_PO_BOX = re.compile(r"\b(?:P\s?O\s?B(?:OX)?|POST\s+OFFICE\s+BOX|POST\s+BOX|P\s?O)\s+(?=\w)")
#: "BOX 29" at the start of a line is a post office box too.
_BARE_BOX = re.compile(r"^BOX\s+(?=\d)")


def normalise_address(value: object) -> str:
    """Street address key: case, spacing, punctuation and USPS Publication 28 abbreviations
    ignored (suffixes after the first word, directionals, unit designators, PO box spellings).

    >>> normalise_address("12 Elm St."), normalise_address("77 north Main Road, Apartment #4")
    ('12 ELM ST', '77 N MAIN RD APT 4')
    >>> normalise_address("P.O. Box 29"), normalise_address("Box 29")
    ('PO BOX 29', 'PO BOX 29')
    """
    text = _BARE_BOX.sub("PO BOX ", _PO_BOX.sub("PO BOX ", comparison_form(value)))
    suffixes, directionals, units = suffix_words(), directional_words(), unit_words()
    tokens = text.split()
    out = []
    for i, tok in enumerate(tokens):
        if tok in suffixes and i > 0:
            tok = suffixes[tok]
        elif tok in directionals and (i > 0 or len(tokens) > 2):
            tok = directionals[tok]
        elif tok in units:
            tok = units[tok]
        out.append(tok)
    # "UNIT NO 5" and "UNIT 5" are the same unit
    return re.sub(r"\b(UNIT|APT|STE) NO\b", r"\1", " ".join(out))


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
    """A recipient's mailing address as every output prints it (:func:`format_address`).

    ``kind`` is ``street`` (US street address), ``po_box`` (US post office box), ``foreign``
    (outside the US, with its country), ``none`` (no mailing address at all) or ``incomplete``
    (something a carrier needs is missing). ``lines`` are the address lines below the name(s):
    delivery line(s), city line, country line (foreign mail only). ``delivery``, ``city``,
    ``state``, ``zip_code`` and ``country`` are the parts the tables print (``mail_address`` is
    the delivery lines joined by ", "); ``fixes`` lists what of the record was left out, as
    ``(issue, reason)`` pairs for ``mailing_review.csv``.
    """

    kind: str
    lines: tuple[str, ...]
    country: str = ""
    problem: str = ""
    city: str | None = field(default=None, repr=False)
    zip_code: str | None = field(default=None, repr=False)
    state: str = field(default="", repr=False)
    delivery: tuple[str, ...] = field(default=(), repr=False)
    fixes: tuple[tuple[str, str], ...] = field(default=(), repr=False)

    @property
    def mailable(self) -> bool:
        return self.kind in MAILABLE_KINDS

    @property
    def mail_address(self) -> str:
        """The delivery line(s) in one table cell."""
        return ", ".join(self.delivery)


def delivery_lines(address1: object, address2: object) -> list[str]:
    """The street lines as USPS wants them: a unit-only second line joins the street line, and
    when a PO box and a street are both given the PO box is the line above the city.

    >>> delivery_lines("4 CANAL PARK", "UNIT 108")
    ['4 CANAL PARK UNIT 108']
    >>> delivery_lines("P.O. BOX 29", "ASTOR DRIVE")
    ['ASTOR DRIVE', 'P.O. BOX 29']
    """
    a1, a2 = clean_text(address1), clean_text(address2)
    if a1 and a2 and _UNIT_ONLY.match(a2) and not is_po_box(a1):
        return [f"{a1} {a2}"]
    lines = [a for a in (a1, a2) if a]
    if len(lines) == 2 and is_po_box(lines[0]) and not is_po_box(lines[1]):
        lines.reverse()
    return lines


def is_po_box(text: str) -> bool:
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


@dataclass
class _Record:
    """A recipient's address fields, cleaned, as :func:`format_address` works on them."""

    owner: str
    street: list[str]
    city: str
    state: str
    zip_code: str
    given_country: str
    fixes: list[tuple[str, str]]


def format_address(rec: dict) -> AddressCheck:
    """The one formatted mailing address of a recipient (pure; reads the ``join_owners``
    columns ``address1``/``address2`` or ``mail_address``, ``mail_city``, ``mail_state``,
    ``mail_zip``, ``mail_country`` and ``owner_name``).

    >>> format_address({"owner_name": "A B", "address1": "4 CANAL PARK", "address2": "UNIT 1",
    ...                 "mail_city": "CAMBRIDGE", "mail_state": "MA", "mail_zip": "02141"})
    AddressCheck(kind='street', lines=('4 CANAL PARK UNIT 1', 'CAMBRIDGE, MA 02141'), country='', problem='')
    >>> format_address({"owner_name": "A B"}).kind
    'none'
    >>> check = format_address({"owner_name": "A", "address1": "9 ELM ST", "mail_city": "LYNN",
    ...                         "mail_state": "MA", "mail_zip": "01902", "mail_country": "ESSEX"})
    >>> check.lines, check.fixes[0][0]
    (('9 ELM ST', 'LYNN, MA 01902'), 'not_a_country')
    """  # noqa: E501
    r = _record(rec)
    if not r.street and not r.city:
        return AddressCheck("none", (), problem="no mailing address on the assessing record: "
                            "ask the Assessors for one; this owner cannot be mailed a notice",
                            fixes=tuple(r.fixes))
    country = _country(r)
    missing = [] if r.street else ["street or PO box"]
    if not r.owner:
        missing.append("owner name")
    if country:
        return _foreign_check(r, country, missing)
    return _us_check(r, missing)


#: The name :func:`format_address` had before it printed every output's address.
classify_address = format_address


def _country(r: _Record) -> str:
    """The country of a record's address ('' for a US one), from the country field when it
    names a country, else from the city, state, address lines or a province in the state."""
    country = country_name(r.given_country)
    reason = not_a_country_reason(r.given_country)
    if reason:
        r.fixes.append(("not_a_country", reason))
    if country:
        if r.city:  # the city line need not repeat the country ("HONG KONG", "SINGAPORE")
            found, rest = country_at_end(r.city)
            r.city = rest if found == country else r.city
        return country
    placeholder = any(issue == "placeholder_dropped" for issue, _ in r.fixes)
    if r.state not in us_states() or (placeholder and country_at_end(r.city)[0]):
        country, r.city, r.state, r.street = country_in_lines(r.city, r.state, r.street)
        if not country:  # a province in the state field ("MB"), else a word of the lines
            country = canadian_province(r.state) or infer_country(r.city, r.state,
                                                                   *r.street[1:], r.zip_code)
    return country


def _record(rec: dict) -> _Record:
    """Owner name, street lines, city, state, ZIP and the country column, cleaned (a placeholder
    street or city, "Z" or "-", is dropped; a placeholder ZIP too, noted in ``fixes``)."""
    get = {k: clean_text(rec.get(k)) for k in ("owner_name", "address1", "address2",
                                               "mail_address", "mail_city", "mail_state",
                                               "mail_zip", "mail_country")}
    a1 = get["address1"] if "address1" in rec else get["mail_address"]
    a1 = a1 if _looks_like_street(a1) else ""  # "Z", "-": a placeholder, not a street
    street = [line for line in delivery_lines(a1, get["address2"]) if _looks_like_street(line)]
    city = get["mail_city"] if _looks_like_street(get["mail_city"]) else ""
    zip_code, fixes = get["mail_zip"], []
    if is_placeholder_zip(zip_code):
        fixes.append(("placeholder_dropped", f"ZIP {zip_code} is a placeholder for no ZIP: "
                      "not printed"))
        zip_code = ""
    return _Record(get["owner_name"], street, city, get["mail_state"].upper(), zip_code,
                   get["mail_country"], fixes)


def _foreign_check(r: _Record, country: str, missing: list[str]) -> AddressCheck:
    """A foreign address: its lines end with the country (state and ZIP as given, if any; a US
    state code is not printed on it)."""
    state = r.state if _looks_like_street(r.state) else ""
    if state in us_states():
        r.fixes.append(("placeholder_dropped", f"US state {state} on an address in {country}: "
                        "not printed"))
        state = ""
    zip_code = r.zip_code if _looks_like_street(r.zip_code) else ""
    last = " ".join(p for p in (r.city, state, zip_code) if p)
    lines = (*r.street, last, country) if last else (*r.street, country)
    parts = dict(city=r.city, state=state, zip_code=zip_code, delivery=tuple(r.street),
                 fixes=tuple(r.fixes))
    if missing:
        return AddressCheck("incomplete", lines, country, _missing_text(missing), **parts)
    return AddressCheck("foreign", lines, country, **parts)


def _us_check(r: _Record, missing: list[str]) -> AddressCheck:
    """A US address: it needs a state, a city and a ZIP that belongs to the state."""
    state, zip_code = r.state, r.zip_code
    if state not in us_states():
        missing.append("state (or the country, if foreign)" if state == "" else
                       f"a US state (\"{state}\" is none; if foreign, the country)")
    if not r.city:
        missing.append("city")
    zip_problem = ""
    if not zip_code:
        placeholder = any(issue == "placeholder_dropped" for issue, _ in r.fixes)
        missing.append("ZIP (a placeholder ZIP on record)" if placeholder else "ZIP")
    elif state in us_states():
        zip_code, zip_problem = us_zip(zip_code, state)
    last = " ".join(p for p in (f"{r.city}," if r.city else "", state, zip_code) if p)
    lines = tuple(line for line in (*r.street, last.rstrip(",")) if line)
    parts = dict(city=r.city, state=state, zip_code=zip_code, delivery=tuple(r.street),
                 fixes=tuple(r.fixes))
    if missing or zip_problem:
        return AddressCheck("incomplete", lines, "", _missing_text(missing) if missing
                            else zip_problem, **parts)
    kind = "po_box" if r.street and is_po_box(r.street[-1]) else "street"
    return AddressCheck(kind, lines, **parts)


def _missing_text(missing: list[str]) -> str:
    return (f"incomplete mailing address (no {', '.join(missing)}): check with the Assessors "
            "before mailing")


def address_problem(rec: dict) -> str:
    """Why a mailing address looks unusable ('' when it looks complete)."""
    missing = [name for name, col in (("street address", "mail_address"), ("city", "mail_city"))
               if not rec.get(col)]
    if not country_name(rec.get("mail_country")):  # a US address needs state and ZIP
        if not rec.get("mail_state"):
            missing.append("state")
        if not rec.get("mail_zip"):
            missing.append("ZIP")
    if not rec.get("owner_name"):
        missing.append("owner name")
    return f"incomplete mailing address (no {', '.join(missing)}): check with the Assessors" \
        if missing else ""


__all__ = ["COUNTRY_HINTS", "MAILABLE_KINDS", "AddressCheck", "address_problem",
           "classify_address", "delivery_lines", "format_address", "infer_country", "is_po_box",
           "normalise_address"]

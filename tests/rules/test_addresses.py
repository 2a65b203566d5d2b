"""One formatted address (swm_gis/rules/mailing/addresses.py): a country line only when it names a
country; county names, codes and numbers in OWN_CO, placeholder ZIPs and a US state on a foreign
address left out and listed with the reason; the labels print what the tables print."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swm_gis.reports.labels import label_parts
from swm_gis.rules.mailing.addresses import format_address
from swm_gis.rules.postal import country_name, is_placeholder_zip, not_a_country_reason


def rec(address="9 ELM ST", city="LYNN", state="MA", zip_code="01902", country="", **more):
    return {"owner_name": "A B", "address1": address, "mail_city": city, "mail_state": state,
            "mail_zip": zip_code, "mail_country": country, **more}


@pytest.mark.parametrize(("value", "what"), [
    ("MIDDLESEX", "which names no country (a county or town?)"),
    ("ESSEX", "which names no country (a county or town?)"),
    ("UDA", "a code that names no country"),
    ("4554", "a number, not a country"),
])
def test_a_country_field_that_names_no_country_is_not_printed(value, what):
    check = format_address(rec(country=value))
    # a complete US address: mailed, as a US address, without the value
    assert check.kind == "street" and check.country == ""
    assert check.lines == ("9 ELM ST", "LYNN, MA 01902")
    [(issue, reason)] = check.fixes
    assert issue == "not_a_country" and f'holds "{value}", {what}' in reason


@pytest.mark.parametrize("value", ["", "USA", "U.S.A.", "United States of America", "us"])
def test_the_united_states_in_any_spelling_is_no_country_line_and_no_review(value):
    check = format_address(rec(country=value))
    assert (check.kind, check.country, check.fixes) == ("street", "", ())


@pytest.mark.parametrize(("value", "printed"), [
    ("Canada", "CANADA"), ("JAPAN", "JAPAN"), ("uk", "UNITED KINGDOM"),
    ("Hong Kong", "HONG KONG"), ("Korea", "KOREA, REPUBLIC OF")])
def test_a_country_is_the_last_line(value, printed):
    check = format_address(rec(address="1 HIGH ST", city="SOMEWHERE", state="", zip_code="",
                               country=value))
    assert check.kind == "foreign" and check.lines[-1] == printed and check.fixes == ()
    assert country_name(value) == printed and not_a_country_reason(value) == ""


def test_hong_kong_ma_99999_prints_without_the_state_and_the_placeholder():
    check = format_address(rec(address="1 QUEENS RD", city="HONG KONG", state="MA",
                               zip_code="99999", country="HONG KONG"))
    # the city line repeats the country: one line, the country's
    assert (check.kind, check.lines) == ("foreign", ("1 QUEENS RD", "HONG KONG"))
    assert (check.state, check.zip_code, check.city) == ("", "", "")
    assert [issue for issue, _ in check.fixes] == ["placeholder_dropped", "placeholder_dropped"]
    assert "ZIP 99999 is a placeholder" in check.fixes[0][1]
    assert "US state MA on an address in HONG KONG" in check.fixes[1][1]


def test_a_foreign_city_with_a_us_state_and_a_placeholder_zip_and_no_country_field():
    """No country field, but the ZIP is a placeholder and the city names a country: foreign."""
    check = format_address(rec(address="8 ORCHARD RD", city="SINGAPORE", state="MA",
                               zip_code="00000"))
    assert (check.kind, check.lines) == ("foreign", ("8 ORCHARD RD", "SINGAPORE"))


@pytest.mark.parametrize("zip_code", ["99999", "00000", "99999-9999", "000000000"])
def test_a_us_address_with_a_placeholder_zip_goes_to_review(zip_code):
    check = format_address(rec(zip_code=zip_code))
    assert is_placeholder_zip(zip_code)
    assert check.kind == "incomplete" and "no ZIP (a placeholder ZIP on record)" in check.problem
    assert check.lines == ("9 ELM ST", "LYNN, MA")


def test_a_us_town_named_like_a_country_stays_domestic():
    check = format_address(rec(city="PERU", state="ME", zip_code="04290"))
    assert (check.kind, check.country) == ("street", "")


def test_the_table_columns_are_the_label_lines():
    """mail_address is the delivery lines (a unit joined to the street, a PO box last)."""
    check = format_address({"owner_name": "T", "address1": "P.O. BOX 29",
                            "address2": "ASTOR DRIVE", "mail_city": "RHINEBECK",
                            "mail_state": "NY", "mail_zip": "12572"})
    assert check.mail_address == "ASTOR DRIVE, P.O. BOX 29"
    assert check.lines == ("ASTOR DRIVE", "P.O. BOX 29", "RHINEBECK, NY 12572")


_TEXT = st.sampled_from(["", "9 ELM ST", "P.O. BOX 4", "UNIT 2", "HONG KONG", "LYNN", "MA", "NY",
                         "ON", "01902", "99999", "1902", "MIDDLESEX", "UDA", "4554", "CANADA",
                         "USA", "-", "SINGAPORE"])


@settings(max_examples=200, deadline=None)
@given(_TEXT, _TEXT, _TEXT, _TEXT, _TEXT, _TEXT)
def test_every_output_prints_the_one_formatted_address(a1, a2, city, state, zip_code, country):
    """Property: the lines are the delivery lines, then the city line, then the country (only
    a real one); a label of the raw record prints exactly those lines; a country field that
    names no country never reaches a line."""
    record = {"owner_name": "A B", "address1": a1, "address2": a2, "mail_city": city,
              "mail_state": state, "mail_zip": zip_code, "mail_country": country}
    check = format_address(record)
    assert label_parts(record)[1] == list(check.lines)
    assert check.lines[:len(check.delivery)] == check.delivery
    if check.country:  # foreign (or foreign and incomplete): the country is the last line
        assert check.lines[-1] == check.country and country_name(check.country)
        assert check.kind in ("foreign", "incomplete")
    else:
        assert check.kind != "foreign"
    if not_a_country_reason(country) and check.kind != "none":  # "none" is reviewed anyway
        assert ("not_a_country", not_a_country_reason(country)) in check.fixes
    if is_placeholder_zip(zip_code):
        assert check.zip_code in ("", None)

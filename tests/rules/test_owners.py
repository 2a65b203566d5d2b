"""Owners of record and recipients: joins, condominiums, normalisation and de-duplication."""

from __future__ import annotations

import pandas as pd
import pytest

from swm_gis.rules.owner_join import owned_parcel_ids
from swm_gis.rules.owners import (
    MAILING_COLUMNS,
    address_problem,
    fiscal_years,
    join_owners,
    normalise_address,
    normalise_owner,
    normalise_zip,
    recipients,
)


def assess_rows(rows):
    cols = ["parcel_id", "owner", "co_owner", "address", "address2", "city", "state", "zip",
            "country", "fiscal_year"]
    return pd.DataFrame([dict(zip(cols, r, strict=False)) for r in rows], columns=cols,
                        dtype=object)


ASSESS = assess_rows([
    ("A", "JOHN SMITH", None, "12 ELM ST", None, "LYNNFIELD", "MA", "01940", None, "2025"),
    ("C", "John  Smith", None, "12 Elm St.", None, "Lynnfield", "MA", "1940", None, "2025"),
    ("D", '=HYPERLINK("http://x","y")', None, "1 MAIN ST", None, "SAUGUS", "MA", "01906",
     None, "2025"),
    ("E", "Désirée Côté", None, "5 POND RD UNIT 1", None, "LYNNFIELD", "MA", "019401234",
     None, "2025"),
    ("E", "BOB JONES", "ALICE JONES", "5 POND RD UNIT 2", None, "LYNNFIELD", "MA", "01940",
     None, "2025"),
    ("E", "CAROL LEE", None, "PO Box 7", None, "LYNNFIELD", "MA", "01940", None, "2025"),
    ("Z", "NOT AN ABUTTER", None, "9 FAR ST", None, "BOSTON", "MA", "02108", None, "2025"),
])
ABUTTING = pd.DataFrame({"id": ["A", "C", "D", "E", "F"]})


def test_three_unit_condominium_gives_three_notices():
    notices = join_owners(ABUTTING, ASSESS)
    e = notices[notices["parcel_id"] == "E"]
    assert len(e) == 3
    assert set(e["owner_name"]) == {"Désirée Côté", "BOB JONES", "CAROL LEE"}
    assert len(recipients(notices).query("parcel_ids == 'E'")) == 3


def test_same_owner_at_12_elm_st_and_12_elm_st_dot_is_one_recipient_listing_both_parcels():
    notices = join_owners(ABUTTING, ASSESS)
    assert len(notices) == 6  # A, C, D and three units of E; F has no record, Z is no abutter
    rec = recipients(notices)
    assert len(rec) == 5
    assert len(notices) - len(rec) == 1  # one notice merged
    smith = rec[rec["owner_name"] == "JOHN SMITH"]
    assert smith["parcel_ids"].item() == "A; C"
    assert smith["mail_zip"].item() == "01940"  # the leading zero restored on the "1940" row
    assert list(rec.columns[:8]) == MAILING_COLUMNS


def test_zip_stays_text_with_leading_zeros_and_zip_plus_4():
    rec = recipients(join_owners(ABUTTING, ASSESS))
    zips = dict(zip(rec["owner_name"], rec["mail_zip"], strict=True))
    assert zips["Désirée Côté"] == "01940-1234"
    assert zips["CAROL LEE"] == "01940"


def test_co_owner_is_kept():
    rec = recipients(join_owners(ABUTTING, ASSESS))
    assert rec.loc[rec["owner_name"] == "BOB JONES", "co_owner"].item() == "ALICE JONES"


def test_identical_rows_on_two_units_are_one_notice():
    same = assess_rows([
        ("E", "BOB JONES", None, "5 POND RD", None, "LYNNFIELD", "MA", "01940"),
        ("E", "BOB JONES", None, "5 POND RD", None, "LYNNFIELD", "MA", "01940"),
    ])
    assert len(join_owners(pd.DataFrame({"id": ["E"]}), same)) == 1


def test_different_owners_at_one_address_stay_two_recipients():
    two = assess_rows([
        ("A", "JOHN SMITH", None, "12 ELM ST", None, "LYNNFIELD", "MA", "01940"),
        ("A", "MARY SMITH", None, "12 ELM ST", None, "LYNNFIELD", "MA", "01940"),
    ])
    assert len(recipients(join_owners(pd.DataFrame({"id": ["A"]}), two))) == 2


@pytest.mark.parametrize(("a", "b"), [
    ("12 ELM ST", "12 Elm St."),
    ("12 Elm Street", "12 ELM ST"),
    ("4 Canal Park, Unit 101", "4 CANAL PK UNIT 101"),
    ("10 Summer Road", "10 SUMMER RD"),
    ("3 Oak Avenue", "3 OAK AVE"),
    ("8 Birch Drive", "8 BIRCH DR"),
    ("2 Apple Lane", "2 APPLE LN"),
    ("6 King Court", "6 KING CT"),
    ("1 Kirkland Place", "1 KIRKLAND PL"),
    ("90 Commonwealth Boulevard", "90 COMMONWEALTH BLVD"),
    ("P.O. Box 29", "PO BOX 29"),
    ("Post Office Box 29", "P O BOX 29"),
    ("POB 29", "PO Box 29"),
    ("65 East India Row", "65 E. INDIA ROW"),
    ("4 Canal Park Unit No 109", "4 CANAL PARK UNIT 109"),
    ("77 Main St Apartment 4", "77 MAIN ST APT #4"),
])
def test_address_variants_normalise_alike(a, b):
    assert normalise_address(a) == normalise_address(b)


@pytest.mark.parametrize(("a", "b"), [
    ("12 ELM ST", "14 ELM ST"),
    ("PO BOX 29", "PO BOX 290"),
    ("4 CANAL PARK UNIT 101", "4 CANAL PARK UNIT 102"),
])
def test_different_addresses_stay_different(a, b):
    assert normalise_address(a) != normalise_address(b)


def test_owner_names_normalise_case_spacing_punctuation_and_and():
    assert normalise_owner("Smith,  John & Mary.") == normalise_owner("SMITH JOHN AND MARY")
    assert normalise_owner("O'Brien, Kate") == normalise_owner("OBRIEN KATE")
    assert normalise_owner("SMITH JOHN") != normalise_owner("SMITH JOAN")


@pytest.mark.parametrize(("raw", "zip_"), [
    ("01940", "01940"), ("1940", "1940"), ("1940.0", "1940"), ("019401234", "01940-1234"),
    ("01940-1234", "01940-1234"), ("19401234", "19401234"), ("SW1A 1AA", "SW1A 1AA"),
    (None, ""), ("_", ""),
])
def test_normalise_zip_keeps_what_was_given(raw, zip_):
    """No leading zero is guessed without the state (swm_gis.rules.owners.us_zip does that)."""
    assert normalise_zip(raw) == zip_


def test_incomplete_addresses_are_flagged():
    assert address_problem({"owner_name": "X", "mail_address": "1 A ST", "mail_city": "B",
                            "mail_state": "MA", "mail_zip": "01940"}) == ""
    note = address_problem({"owner_name": "X", "mail_address": "81 OLD PLACE AVE",
                            "mail_city": "MANAMA", "mail_state": "", "mail_zip": ""})
    assert "no state, ZIP" in note and "Assessors" in note
    assert address_problem({"owner_name": "X", "mail_address": "1 A ST", "mail_city": "PARIS",
                            "mail_country": "FRANCE"}) == ""


def test_fiscal_years_and_owned_ids():
    assert fiscal_years(ASSESS) == ["2025"]
    assert owned_parcel_ids(ASSESS) == {"A", "C", "D", "E", "Z"}


def test_no_notices_gives_an_empty_list():
    rec = recipients(join_owners(pd.DataFrame({"id": ["F"]}), ASSESS))
    assert rec.empty and list(rec.columns[:8]) == MAILING_COLUMNS

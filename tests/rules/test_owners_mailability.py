"""Mailability of recipients: address kinds, country lines, review lists and every merge counted.

The address cases come from the Cambridge FY2025 assessing table (owner names changed): no address
at all (84-86), foreign without a country field (MANAMA; BELLA VISTA NSW 2153), a PO box with a
street line, a five-line address (name, co-owner, two street lines, city line) and a unit on its
own second line ("4 CANAL PARK" + "UNIT 108").
"""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swm_gis.rules.owners import (
    REVIEW_COLUMNS,
    build_recipients,
    classify_address,
    delivery_lines,
    infer_country,
    join_owners,
    likely_duplicates,
    owner_notices,
    recipients,
)
from swm_gis.rules.postal import us_states

COLS = ["parcel_id", "owner", "co_owner", "address", "address2", "city", "state", "zip",
        "country"]


def frame(rows):
    return pd.DataFrame([dict(zip(COLS, r, strict=False)) for r in rows], columns=COLS,
                        dtype=object)


ASSESS = frame([
    ("P1", "NO ADDRESS, ANN", None, None, None, None, None, None),
    ("P1", "ALKHALIFA, MAYSA", "C/O AL BATI FURNISHING", "81 OLD PLACE AVE", "PO BOX 613",
     "MANAMA", "_", "_"),
    ("P1", "SASTRA, DJUNAEDI", None, "16 MOUNT BANK RISE", "BELLA VISTA NSW 2153", "-", "-",
     "-"),
    ("P2", "TEJERO, EDEN N. &", "JOSE A. TEJERO", "P.O. BOX 29", "ASTOR DRIVE", "RHINEBECK",
     "NY", "12572"),
    ("P2", "PARK, JENNIFER", "OSCAR ALCOREZA JR", "4 CANAL PARK", "UNIT 108", "CAMBRIDGE", "MA",
     "02141"),
    ("P2", "LUCAS, MARY", "LUCAS TRUST", "1 MAIN ST", "732 CAMBRIDGE ST", "BOSTON", "MA",
     "02109"),
    ("P3", "KARAGEZIAN, JOSEPH TRUSTEE", None, "7 DEBSTON LANE", None, "LYNNFIELD", "MA",
     "01940"),
    ("P3", "KARAGEZIAN, JOSEPH TRUSTEE OF", None, "7 DEBSTON LN", None, "LYNNFIELD", "MA",
     "01940"),
    ("P3", "PELON REALTY", None, "145 TRAPELO RD", None, "LINCOLN", "MA", "01773"),
    ("P3", "PELON REALTY", None, "145 TRAPELO RD", None, "LINCOLN", "MA", "01773"),
    ("P4", "PELON REALTY", None, "145 Trapelo Road", None, "Lincoln", "MA", "1773"),
    ("P4", "HALF, AN", None, "9 ELM ST", None, "LYNN", "MA", None),
])
LISTED = pd.DataFrame({"id": ["P1", "P2", "P3", "P4"]})


@pytest.fixture(scope="module")
def built():
    return build_recipients(owner_notices(LISTED, ASSESS), subject_ids=["P4"])


def test_every_merge_is_counted_and_counts_add_up(built):
    mailable, review, counts = built
    # 12 rows; PELON twice on P3 (identical: merged in the join) and once more on P4 (same
    # owner and address after normalisation: merged into one recipient) -> 2 merges, 10 left
    assert counts["assessing_rows"] == 12
    assert counts["identical_rows_merged"] == 1
    assert counts["same_owner_address_merged"] == 1
    assert counts["duplicates_removed"] == 2
    assert counts["recipients"] == 10
    assert counts["no_mailing_address"] == 1 and counts["incomplete_address"] == 1
    assert counts["mailable"] == 8 == len(mailable)
    assert counts["recipients"] == (counts["mailable"] + counts["no_mailing_address"]
                                    + counts["incomplete_address"])
    assert counts["foreign_address"] == 2 and counts["po_box"] == 1


def test_unmailable_records_go_to_review_not_to_the_mailing_list(built):
    mailable, review, _ = built
    assert "NO ADDRESS, ANN" not in set(mailable["owner_name"])
    assert "HALF, AN" not in set(mailable["owner_name"])
    assert list(review.columns) == REVIEW_COLUMNS
    issues = dict(zip(review["owner_name"], review["issue"], strict=False))
    assert issues["NO ADDRESS, ANN"] == "no_mailing_address"
    assert issues["HALF, AN"] == "incomplete_address"
    assert "no ZIP" in review.set_index("owner_name").loc["HALF, AN", "reason"]


def test_near_duplicates_listed_for_review_not_merged(built):
    mailable, review, counts = built
    k = mailable[mailable["owner_name"].str.startswith("KARAGEZIAN")]
    assert len(k) == 2  # both still get a notice
    dup = review[review["issue"] == "likely_duplicate"]
    assert sorted(dup["owner_name"]) == ["KARAGEZIAN, JOSEPH TRUSTEE",
                                         "KARAGEZIAN, JOSEPH TRUSTEE OF"]
    assert dup["group"].nunique() == 1 and counts["likely_duplicate_groups"] == 1


def test_is_subject_marks_the_owner_of_the_subject_parcel(built):
    mailable, _, _ = built
    assert mailable.set_index("owner_name")["is_subject"].to_dict()["PELON REALTY"]
    assert mailable["is_subject"].sum() == 1


def test_foreign_addresses_end_with_their_country(built):
    mailable, _, _ = built
    lines = mailable.set_index("owner_name")["address_lines"]
    assert lines["ALKHALIFA, MAYSA"].split("\n") == ["81 OLD PLACE AVE", "PO BOX 613", "MANAMA",
                                                     "BAHRAIN"]
    assert lines["SASTRA, DJUNAEDI"].split("\n") == ["16 MOUNT BANK RISE",
                                                     "BELLA VISTA NSW 2153", "AUSTRALIA"]
    assert mailable.set_index("owner_name").loc["SASTRA, DJUNAEDI", "mail_country"] == \
        "AUSTRALIA"


def test_po_box_is_the_delivery_line_and_unit_joins_the_street(built):
    mailable, _, _ = built
    lines = mailable.set_index("owner_name")["address_lines"]
    assert lines["TEJERO, EDEN N. &"].split("\n") == ["ASTOR DRIVE", "P.O. BOX 29",
                                                      "RHINEBECK, NY 12572"]
    assert lines["PARK, JENNIFER"].split("\n") == ["4 CANAL PARK UNIT 108",
                                                   "CAMBRIDGE, MA 02141"]
    # five lines with the name and co-owner: two street lines kept apart
    assert lines["LUCAS, MARY"].split("\n") == ["1 MAIN ST", "732 CAMBRIDGE ST",
                                                "BOSTON, MA 02109"]


@pytest.mark.parametrize(("rec", "kind"), [
    ({"owner_name": "A B"}, "none"),
    ({"owner_name": "A B", "address1": "Z", "address2": "Z", "mail_city": "Z"}, "none"),
    ({"owner_name": "A B", "address1": "1 X ST", "mail_city": "LYNN", "mail_state": "MA",
      "mail_zip": "01901"}, "street"),
    ({"owner_name": "A B", "address1": "PO Box 7", "mail_city": "LYNN", "mail_state": "MA",
      "mail_zip": "01901"}, "po_box"),
    ({"owner_name": "A B", "address1": "1 X ST", "mail_city": "LYNN", "mail_state": "ZZ",
      "mail_zip": "01901"}, "incomplete"),
    ({"owner_name": "A B", "address1": "1 RUE X", "mail_city": "PARIS",
      "mail_country": "France"}, "foreign"),
    ({"owner_name": "", "address1": "1 X ST", "mail_city": "LYNN", "mail_state": "MA",
      "mail_zip": "01901"}, "incomplete"),
    ({"owner_name": "A B", "address1": "1 X ST", "mail_city": "FARAWAY"}, "incomplete"),
], ids=["none", "placeholders", "street", "po-box", "bad-state", "foreign-country-field",
        "no-owner", "no-state-no-country"])
def test_classify_address_kinds(rec, kind):
    assert classify_address(rec).kind == kind


def test_delivery_lines_and_country_hints():
    assert delivery_lines("4 CANAL PARK", "UNIT NO 109") == ["4 CANAL PARK UNIT NO 109"]
    assert delivery_lines("6 CANAL PARK", "UNIT 206 II") == ["6 CANAL PARK UNIT 206 II"]
    assert delivery_lines("10 X ST", "37 MOORE ST") == ["10 X ST", "37 MOORE ST"]
    assert delivery_lines(None, None) == []
    assert infer_country("HAIDAN BEIJING") == "CHINA"
    assert infer_country("") == ""


#: USPS Publication 28 appendix B: the states, DC, the territories, the freely associated
#: states and the military "states" (the list the engine held by hand before pycountry).
USPS_STATE_CODES = (
    "AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ "
    "NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY AS GU MP PR VI UM FM MH PW "
    "AA AE AP")


def test_us_states_are_the_usps_codes():
    assert us_states() == frozenset(USPS_STATE_CODES.split()) and len(us_states()) == 63


@pytest.mark.parametrize("state", ["MB", "ON", "Nova Scotia", "YUKON"])
def test_a_canadian_province_in_the_state_field_is_a_canadian_address(state):
    """Every province and territory, by code or name (pycountry's ISO 3166-2), not only those
    the free-text hints know; before, "MB" went to review as "no US state"."""
    check = classify_address({"owner_name": "A B", "address1": "1 PORTAGE AVE",
                              "mail_city": "WINNIPEG", "mail_state": state,
                              "mail_zip": "R3C 0A1"})
    assert (check.kind, check.country) == ("foreign", "CANADA")
    assert check.lines == ("1 PORTAGE AVE", f"WINNIPEG {state.upper()} R3C 0A1", "CANADA")


def test_a_province_named_only_in_a_city_is_not_read_from_it():
    """A province's name is read from the state field, never from the city: New Brunswick, NJ
    with its state missing stays an incomplete US address (review), not a letter to Canada."""
    check = classify_address({"owner_name": "A B", "address1": "1 X ST",
                              "mail_city": "NEW BRUNSWICK", "mail_zip": "08901"})
    assert (check.kind, check.country) == ("incomplete", "")


def test_empty_input_gives_empty_outputs_and_zero_counts():
    mailable, review, counts = build_recipients(owner_notices(LISTED, ASSESS.iloc[:0]))
    assert mailable.empty and review.empty and set(counts.values()) == {0}


def test_hostile_values_do_not_break_classification():
    rec = {"owner_name": "=CMD()", "address1": "\x00\t", "address2": 3.5, "mail_city": None,
           "mail_state": float("nan"), "mail_zip": "", "mail_country": 7}
    assert classify_address(rec).kind in {"none", "incomplete"}


def test_duplicates_removed_counts_the_join_merge_and_the_same_owner_merge():
    notices = owner_notices(LISTED, ASSESS)
    _, _, counts = build_recipients(notices)
    assert counts["duplicates_removed"] == 2
    assert counts["duplicates_removed"] == (counts["identical_rows_merged"]
                                            + counts["same_owner_address_merged"])
    assert counts["same_owner_address_merged"] == (len(notices.rows)
                                                   - len(recipients(notices.rows)))
    # the rows alone (join_owners) count every row as an assessing row, none merged by the join
    _, _, bare = build_recipients(join_owners(LISTED, ASSESS))
    assert bare["assessing_rows"] == len(notices.rows) and bare["identical_rows_merged"] == 0


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["A", "B", "C"]), st.sampled_from(["ANN", "BO", "CY"]),
                          st.sampled_from(["1 ELM ST", "1 Elm Street", "2 OAK RD", None]),
                          st.sampled_from(["LYNN", None]), st.sampled_from(["MA", "-"]),
                          st.sampled_from(["01901", None])), max_size=12))
def test_counts_always_add_up(rows):
    assess = frame([(p, o, None, a, None, c, s, z) for p, o, a, c, s, z in rows])
    notices = owner_notices(pd.DataFrame({"id": ["A", "B", "C"]}), assess)
    mailable, review, counts = build_recipients(notices)
    assert counts["assessing_rows"] == len(rows)
    assert counts["assessing_rows"] == (counts["blank_rows"] + counts["duplicates_removed"]
                                        + counts["recipients"])
    assert counts["recipients"] == (counts["mailable"] + counts["no_mailing_address"]
                                    + counts["incomplete_address"])
    assert len(likely_duplicates(mailable)) == counts["likely_duplicate_groups"]


def test_owners_by_parcel_completes_dangling_names_for_the_map_key():
    from swm_gis.rules.owners import owners_by_parcel

    notices = join_owners(LISTED, frame([
        ("P1", "GOMES, FERNANDO J. &", "MARIA GOMES", "1 A ST", None, "LYNN", "MA", "01901"),
        ("P1", "KIEU, ALIX &", None, "2 A ST", None, "LYNN", "MA", "01901"),
        ("P2", "SMITH, ANN", "THE SMITH TRUST", "3 A ST", None, "LYNN", "MA", "01901"),
    ]))
    assert owners_by_parcel(notices) == {"P1": "GOMES, FERNANDO J. & MARIA GOMES; KIEU, ALIX",
                                         "P2": "SMITH, ANN"}


# --------------------------------------------------------------------------- likely duplicates
def _likely_duplicates_pairwise(recips: pd.DataFrame) -> list[list[int]]:
    """The first implementation (row by row, every pair), with the near spellings of issue 34:
    the reference for the fast one."""
    from swm_gis.rules.owners import _owner_words, recipient_key

    by_address: dict[tuple[str, ...], list[int]] = {}
    for i, rec in enumerate(recips.to_dict("records")):
        key = recipient_key(rec)[1:]
        if key[0]:
            by_address.setdefault(key, []).append(i)
    groups = []
    for members in by_address.values():
        if len(members) < 2:
            continue
        words = {i: _owner_words(recips.iloc[i]["owner_name"]) for i in members}
        # nested, or near (issue 34: rapidfuzz ratio >= 90 on the sorted words, same numbers)
        linked = sorted({i for i in members for j in members if i != j and words[i] and words[j]
                         and (words[i] <= words[j] or words[j] <= words[i]
                              or _near_words(words[i], words[j]))})
        if len(linked) >= 2:
            groups.append(linked)
    return groups


def _near_words(a: frozenset[str], b: frozenset[str]) -> bool:
    from rapidfuzz import fuzz

    from swm_gis.rules.mailing.duplicates import NEAR_SCORE

    def digits(words):
        return sorted(w for w in words if any(ch.isdigit() for ch in w))

    return digits(a) == digits(b) and fuzz.ratio(" ".join(sorted(a)),
                                                 " ".join(sorted(b))) >= NEAR_SCORE


_NAME_WORDS = ["KARAGEZIAN", "JOSEPH", "TRUSTEE", "OF", "TRS", "&", "J", "ANN", "LEE", "REALTY",
               "TRUST", "SMITH"]
_STREETS = ["7 DEBSTON LANE", "7 DEBSTON LN", "9 ELM ST", "", "PO BOX 12"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.lists(st.sampled_from(_NAME_WORDS), max_size=4),
                          st.sampled_from(_STREETS), st.sampled_from(["01940", "01940-1234",
                                                                       "02139"])),
                max_size=25))
def test_likely_duplicates_equals_the_pairwise_reference(rows):
    recips = pd.DataFrame([{"owner_name": " ".join(words), "co_owner": "", "address1": street,
                            "address2": "", "mail_city": "LYNNFIELD", "mail_state": "MA",
                            "mail_zip": zip_code, "mail_country": ""}
                           for words, street, zip_code in rows],
                          columns=["owner_name", "co_owner", "address1", "address2",
                                   "mail_city", "mail_state", "mail_zip", "mail_country"])
    assert likely_duplicates(recips) == _likely_duplicates_pairwise(recips)


def test_likely_duplicates_many_owners_at_one_address():
    """3,000 owners at one address (a management company): the two spellings of one trustee
    form the only group; every other name is distinct and contains no other."""
    names = [f"OWNER{i:05d} HOLDINGS" for i in range(3000)]
    names[10], names[2500] = "KARAGEZIAN, JOSEPH TRUSTEE", "KARAGEZIAN JOSEPH TRUSTEE OF"
    recips = pd.DataFrame({"owner_name": names, "co_owner": "", "address1": "1 CENTRAL ST",
                           "address2": "", "mail_city": "BOSTON", "mail_state": "MA",
                           "mail_zip": "02109", "mail_country": ""})
    assert likely_duplicates(recips) == [[10, 2500]]
    assert likely_duplicates(recips.iloc[:0]) == []


# --------------------------------------------------------------------------- ZIPs and states
def test_zip_prefix_table_places_known_zips_in_their_states():
    from swm_gis.rules.owners import zip_prefix_states, zip_states

    known = {"01940": "MA", "02141": "MA", "01002": "MA", "05501": "MA", "02903": "RI",
             "03101": "NH", "04101": "ME", "05401": "VT", "06103": "CT", "07102": "NJ",
             "10001": "NY", "00501": "NY", "19103": "PA", "19901": "DE", "20500": "DC",
             "21201": "MD", "23219": "VA", "25301": "WV", "27601": "NC", "29201": "SC",
             "30303": "GA", "33101": "FL", "35203": "AL", "37203": "TN", "39201": "MS",
             "40202": "KY", "43215": "OH", "46204": "IN", "48226": "MI", "50309": "IA",
             "53202": "WI", "55401": "MN", "57104": "SD", "58102": "ND", "59601": "MT",
             "60601": "IL", "63101": "MO", "66603": "KS", "68102": "NE", "70112": "LA",
             "72201": "AR", "73102": "OK", "75201": "TX", "79901": "TX", "80202": "CO",
             "82001": "WY", "83702": "ID", "84111": "UT", "85004": "AZ", "87102": "NM",
             "89101": "NV", "90210": "CA", "96813": "HI", "97204": "OR", "98101": "WA",
             "99501": "AK", "00901": "PR", "00802": "VI", "96910": "GU", "96799": "AS",
             "09021": "AE", "34002": "AA", "96201": "AP"}
    for zip_code, state in known.items():
        assert state in zip_states(zip_code), zip_code
    # every state and DC has prefixes; unassigned prefixes belong to no state
    states = {s for v in zip_prefix_states().values() for s in v}
    fifty_one = {"AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "DC", "FL", "GA", "HI", "ID",
                 "IL", "IN", "IA", "KS", "KY", "LA", "ME", "MD", "MA", "MI", "MN", "MS", "MO",
                 "MT", "NE", "NV", "NH", "NJ", "NM", "NY", "NC", "ND", "OH", "OK", "OR", "PA",
                 "RI", "SC", "SD", "TN", "TX", "UT", "VT", "VA", "WA", "WV", "WI", "WY"}
    assert len(fifty_one) == 51 and states >= fifty_one
    for unassigned in ("00000", "00100", "00499", "21300", "26900", "71500", "88800"):
        assert zip_states(unassigned) == frozenset(), unassigned


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=0, max_value=99_999), st.sampled_from(
    ["MA", "NH", "RI", "NY", "CA", "PR", "TX", "AE", "GU", "ZZ"]),
    st.sampled_from(["", "1234"]))
def test_a_us_zip_is_kept_only_where_it_belongs_to_the_owners_state(number, state, plus4):
    """Five digits (or ZIP+4) pass exactly when their prefix serves the state; a ZIP whose
    leading zeros a spreadsheet dropped gets them back exactly when the padded ZIP does."""
    from swm_gis.rules.owners import us_zip, zip_states

    full = f"{number:05d}"
    printed, problem = us_zip(full + plus4, state)
    belongs = state in zip_states(full)
    assert (problem == "") == belongs
    assert printed == (f"{full}-{plus4}" if plus4 else full)
    stripped = full.lstrip("0")
    if 3 <= len(stripped) < 5:
        printed, problem = us_zip(stripped + plus4, state)
        assert (problem == "") == belongs
        if belongs:
            assert printed == (f"{full}-{plus4}" if plus4 else full)


@pytest.mark.parametrize(("city", "state", "zip_", "reason"), [
    ("PELHAM", "MA", "0100", "ZIP 0100 has 4 digits and 00100 is not a MA ZIP"),
    ("CAMBRIDGE", "MS", "02141", "state MS and ZIP 02141 disagree (ZIPs 021.. are MA)"),
    ("LYNN", "MA", "019", "ZIP 019 has 3 digits and 00019 is not a MA ZIP"),
    ("LYNN", "MA", "0194", "ZIP 0194 has 4 digits and 00194 is not a MA ZIP"),
    ("LYNN", "MA", "ABCDE", "ZIP 'ABCDE' is not a US ZIP (5 digits or ZIP+4)"),
], ids=["pelham-cut-short", "state-zip-disagree", "three-digits", "four-digits", "letters"])
def test_zips_that_cannot_be_trusted_go_to_review_with_the_reason(city, state, zip_, reason):
    assess = frame([("P1", "AN OWNER", None, "1 MAIN ST", None, city, state, zip_)])
    mailable, review, counts = build_recipients(owner_notices(pd.DataFrame({"id": ["P1"]}),
                                                            assess))
    assert mailable.empty and counts["incomplete_address"] == 1
    [row] = review.to_dict("records")
    assert row["issue"] == "incomplete_address" and reason in row["reason"]


def test_a_dropped_leading_zero_is_restored_in_the_owners_state_only():
    assess = frame([("P1", "AN OWNER", None, "1 MAIN ST", None, "LYNNFIELD", "MA", "1940"),
                    ("P1", "PR OWNER", None, "1 CALLE SOL", None, "SAN JUAN", "PR", "901"),
                    ("P1", "NJ OWNER", None, "2 MAIN ST", None, "NEWARK", "NJ", "7102.0")])
    mailable, review, _ = build_recipients(owner_notices(pd.DataFrame({"id": ["P1"]}), assess))
    zips = dict(zip(mailable["owner_name"], mailable["mail_zip"], strict=True))
    assert zips == {"AN OWNER": "01940", "PR OWNER": "00901", "NJ OWNER": "07102"}
    lines = mailable.set_index("owner_name")["address_lines"]
    assert lines["AN OWNER"].split("\n")[-1] == "LYNNFIELD, MA 01940"


# --------------------------------------------------------------------------- countries
@pytest.mark.parametrize(("city", "state", "country", "lines"), [
    ("SANTIAGO CHILE", "", "CHILE", ["AV PROVIDENCIA 1208", "SANTIAGO", "CHILE"]),
    ("LONDON", "UNITED KINGDOM", "UNITED KINGDOM", ["AV PROVIDENCIA 1208", "LONDON",
                                                    "UNITED KINGDOM"]),
    ("SEOUL, KOREA, REPUBLIC OF", "", "SOUTH KOREA", ["AV PROVIDENCIA 1208", "SEOUL",
                                                      "SOUTH KOREA"]),
], ids=["city-line", "state-field", "two-word-country"])
def test_a_country_named_in_the_city_or_state_is_the_country_line(city, state, country, lines):
    check = classify_address({"owner_name": "A B", "address1": "AV PROVIDENCIA 1208",
                              "mail_city": city, "mail_state": state})
    assert check.kind == "foreign" and check.country == country
    assert list(check.lines) == lines


def test_us_towns_named_like_countries_stay_domestic_and_usa_is_never_printed():
    for city, state, zip_ in (("LEBANON", "NH", "03766"), ("PERU", "IN", "46970"),
                              ("JAMAICA", "NY", "11432"), ("MEXICO", "ME", "04257")):
        check = classify_address({"owner_name": "A B", "address1": "1 MAIN ST",
                                  "mail_city": city, "mail_state": state, "mail_zip": zip_,
                                  "mail_country": "U.S.A."})
        assert check.kind == "street" and check.country == "", city
        assert "USA" not in " ".join(check.lines) and "U.S.A." not in " ".join(check.lines)
    assess = frame([("P1", "AN OWNER", "USA", "1 MAIN ST", None, "LYNN", "MA", "01901",
                     "United States")])
    mailable, _, _ = build_recipients(owner_notices(pd.DataFrame({"id": ["P1"]}), assess))
    [rec] = mailable.to_dict("records")
    assert rec["mail_country"] == "" and rec["co_owner"] == ""
    assert "USA" not in rec["address_lines"] and "UNITED STATES" not in rec["address_lines"]

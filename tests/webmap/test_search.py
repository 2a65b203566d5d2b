"""The web map's search index (swm_gis/webmap/search.py), without a browser.

The page's own matching (assets/search.js) is tested in a browser in
tests/webmap/test_publish_browser.py, which also checks that the page writes every address and
map-lot in the same key as these functions.
"""

from __future__ import annotations

import csv
import tomllib
from importlib import resources

from hypothesis import given
from hypothesis import strategies as st
from support.townkit import REPO

from swm_gis.webmap.search import (
    SUFFIX_TABLE,
    address_key,
    map_lot_keys,
    search_index,
    split_number,
    street_words,
)

CAMBRIDGE_CSV = REPO.parent / "shared" / "data" / "cambridge" / \
    "ASSESSING_PropertyDatabase_FY2025.csv"


def test_every_spelling_has_one_standard_form():
    """No spelling is listed under two standard forms, and no standard form is listed as a
    spelling of another (a key must not depend on the table's order)."""
    table = tomllib.loads(resources.files("swm_gis").joinpath(SUFFIX_TABLE).read_text(
        encoding="utf-8"))
    seen: dict[str, str] = {}
    for section in ("suffixes", "directionals", "local"):
        for standard, spellings in table[section].items():
            for spelling in spellings:
                assert seen.setdefault(spelling, standard) == standard, spelling
    standards = {s for section in ("suffixes", "directionals") for s in table[section]}
    assert not set(seen) & standards
    words = street_words()
    # Publication 28's examples, and the spellings issue 38 names
    assert (words["STREET"], words["ST"], words["AVENUE"], words["AVE"]) == ("ST", "ST", "AVE",
                                                                           "AVE")
    assert (words["PARK"], words["PK"], words["BOULEVARD"], words["NORTH"]) == ("PARK", "PARK",
                                                                              "BLVD", "N")


def test_address_keys_of_what_people_type():
    assert address_key("4 Canal Park") == address_key("4 Canal Pk") == "4 CANAL PARK"
    assert address_key("1218 cambridge street") == "1218 CAMBRIDGE ST"
    assert address_key("12 Main St., Apt #3") == "12 MAIN ST APT 3"
    assert address_key("  221B  Baker  St ") == "221B BAKER ST"
    assert address_key("1218 - 1228 Cambridge St") == "1218-1228 CAMBRIDGE ST"
    assert address_key("Smith-Jones Road") == "SMITH JONES RD"
    assert address_key("") == ""


def test_number_ranges():
    # each range by hand: a short second number takes the first's leading digits
    assert split_number("1218-1228 CAMBRIDGE ST") == (1218, 1228, "CAMBRIDGE ST")
    assert split_number("1218-28 CAMBRIDGE ST") == (1218, 1228, "CAMBRIDGE ST")
    assert split_number("4-6 KIRKLAND PL") == (4, 6, "KIRKLAND PL")
    assert split_number("22-22 1/2 SHERMAN ST") == (22, 22, "SHERMAN ST")
    assert split_number("98-2 ELM ST") == (98, 98, "ELM ST")  # 92 < 98: read as 98 alone
    assert split_number("12A MAIN ST") == (12, 12, "MAIN ST")
    assert split_number("1218") == (1218, 1218, "")
    assert split_number("CANAL PARK") == (None, None, "CANAL PARK")


def test_map_lot_keys_with_spaces_dashes_or_none():
    assert map_lot_keys("84-20") == map_lot_keys("84 20") == ("8420", "84 20")
    assert map_lot_keys("84-020") == ("84020", "84 20")  # the same parts
    assert map_lot_keys("8420") == ("8420", "8420")
    assert map_lot_keys("2-017") == ("2017", "2 17")
    assert map_lot_keys("160.1-12") == ("160112", "160 1 12")
    assert map_lot_keys("R12-034A") == ("R12034A", "R 12 34 A")


@given(st.lists(st.integers(0, 999), min_size=1, max_size=4),
       st.sampled_from(["-", " ", " - ", ".", "/"]))
def test_a_map_lot_has_the_same_keys_whatever_separates_its_parts(parts, sep):
    dashed = map_lot_keys("-".join(str(p) for p in parts))
    assert map_lot_keys(sep.join(str(p) for p in parts)) == dashed
    # zero-padded parts ("2-017") have the same parts key as plain ones ("2-17")
    assert map_lot_keys(sep.join(f"{p:03d}" for p in parts))[1] == dashed[1]
    # without separators only the compact key is the same
    assert map_lot_keys("".join(str(p) for p in parts))[0] == dashed[0]


@given(st.text(alphabet="0123456789 -./#'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz,",
               max_size=30))
def test_an_address_key_is_its_own_key(text):
    key = address_key(text)
    assert address_key(key) == key
    low, high, street = split_number(key)
    assert (low is None) == (high is None) and (low is None or low <= high)


@given(st.sampled_from(sorted(street_words().items())), st.integers(1, 9999))
def test_every_spelling_finds_its_standard_form(pair, number):
    spelling, standard = pair
    assert address_key(f"{number} Main {spelling.title()}") == f"{number} MAIN {standard}"


def test_search_index_rows_and_counts():
    records = [{"id": "84-20", "ml": "84-20", "ad": ["1218-1228 Cambridge St",
                                                       "1218-28 Cambridge St"]},
               {"id": "M_1", "ml": "2-017"},
               {"id": "M_2", "ad": ["4 Canal Pk"]}]
    index = search_index(records)
    assert index["ad"] == [[0, 0, 1218, 1228, "CAMBRIDGE ST", "1218-1228 CAMBRIDGE ST"],
                           [0, 1, 1218, 1228, "CAMBRIDGE ST", "1218-28 CAMBRIDGE ST"],
                           [2, 0, 4, 4, "CANAL PARK", "4 CANAL PARK"]]
    # a parcel id that is not its map-lot is searched too; no map-lot, only the id
    assert index["lk"].split("\n") == ["8420\t84 20", "2017\t2 17\tM1\tM 1", "M2\tM 2"]
    assert (index["addressed"], index["parcels"]) == (2, 3)
    assert index["words"]["STREET"] == "ST" and "ST" not in index["words"]


def test_cambridge_counts_and_spellings():
    """Cambridge's FY2025 assessing sample: its address words are all standard ones (or
    names), and "1218" and "4 Canal Park" are keys of rows it holds."""
    with CAMBRIDGE_CSV.open(encoding="utf-8-sig") as f:
        rows = list(csv.DictReader(f))
    keys = {address_key(r["Address"]) for r in rows}
    assert "4 CANAL PARK" in keys and "1218-1228 CAMBRIDGE ST" in keys
    assert "1218-28 CAMBRIDGE ST" in keys
    assert split_number(address_key("1218-28 Cambridge St")) == (1218, 1228, "CAMBRIDGE ST")
    # the suffixes Cambridge writes all have their standard form
    last = {r["Address"].split()[-1].upper() for r in rows if r["Address"].split()}
    assert {w for w in last if w in street_words()} >= {"ST", "AVE", "PK", "PL", "RD"}

"""The tax list's fiscal year, condominium use codes and the clerk's order (issue 34;
docs/abutters.md): swm_gis.rules.mailing.tax_list, swm_gis.rules.mailing.condominiums,
swm_gis.rules.mailing.list_order."""

from __future__ import annotations

import datetime as dt

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swm_gis.rules.mailing.condominiums import condo_codes, missing_unit_owners
from swm_gis.rules.mailing.list_order import natural_key, order_listed, street_key
from swm_gis.rules.mailing.tax_list import current_fiscal_year, fiscal_year_number, tax_list_status


@pytest.mark.parametrize(("day", "fy"), [
    (dt.date(2026, 6, 30), 2026), (dt.date(2026, 7, 1), 2027), (dt.date(2026, 12, 6), 2027),
    (dt.date(2027, 1, 1), 2027)])
def test_the_massachusetts_fiscal_year_turns_on_1_july(day, fy):
    assert current_fiscal_year(day) == fy


@settings(max_examples=200, derandomize=True)
@given(st.dates(min_value=dt.date(1950, 1, 1), max_value=dt.date(2150, 12, 31)))
def test_fy_n_runs_from_1_july_n_minus_1_to_30_june_n(day):
    n = current_fiscal_year(day)
    assert dt.date(n - 1, 7, 1) <= day <= dt.date(n, 6, 30)


@pytest.mark.parametrize(("value", "year"), [
    (2025, 2025), (2025.0, 2025), ("2025", 2025), ("FY2025", 2025), ("fy 25", 2025),
    ("FY25", 2025), ("2025.0", 2025), ("", None), (None, None), ("CY25", None), ("12345", None)])
def test_fiscal_years_as_assessing_data_writes_them(value, year):
    assert fiscal_year_number(value) == year


def test_the_latest_year_decides_and_a_missing_one_is_not_current():
    on = dt.date(2026, 12, 6)  # FY2027
    assert tax_list_status(["2026", "FY2027"], on=on).is_current
    old = tax_list_status([2019], on=on)
    assert (old.latest, old.current, old.is_current) == (2019, 2027, False)
    assert "FY2019 (1 July 2018 to 30 June 2019), not the current one" in old.basis_text()
    none = tax_list_status([], on=on)
    assert none.latest is None and not none.is_current
    assert "does not record its fiscal year" in none.basis_text()


@pytest.mark.parametrize(("code", "condo"), [
    ("102", True), ("1020", True), ("0102", True), ("102C", True), (102, True), (1020.0, True),
    ("101", False), ("1010", False), ("104", False), ("1120", False), ("10200", False),
    ("", False), (None, False)])
def test_condominium_use_codes_come_from_the_table(code, condo):
    assert condo_codes().matches(code) is condo


def test_owner_records_against_units():
    """C1: 1 record for 12 units (named); C2: 2 records for 2 units (complete); C3: 1 record,
    no unit count (the master record: named); C4: 3 records, no unit count (taken as the
    units); H: a house (not a condominium)."""
    assess = pd.DataFrame({
        "parcel_id": ["C1", "C2", "C2", "C3", "C4", "C4", "C4", "H"],
        "owner": ["TRUST", "A", "B", "TRUST 3", "X", "Y", "Z", "H"],
        "use_code": ["1020", "102", "102", "102", "102", "102", "102", "101"],
        "units": [12, 2, 2, None, None, None, None, 1]})
    found = missing_unit_owners(["C1", "C2", "C3", "C4", "H"], assess)
    assert [(m["parcel_id"], m["records"], m["units"]) for m in found] == [
        ("C1", 1, 12), ("C3", 1, None)]


def test_map_lots_sort_numbers_as_numbers():
    lots = ["7-K-33", "7-K-9", "10-A-1", "7-J-100", "", "7-K-9A"]
    assert sorted(lots, key=natural_key) == ["7-J-100", "7-K-9", "7-K-9A", "7-K-33", "10-A-1", ""]


@settings(max_examples=200, derandomize=True)
@given(st.lists(st.tuples(st.integers(0, 999), st.integers(0, 999)), min_size=1, max_size=30))
def test_numeric_map_lots_sort_as_their_numbers(pairs):
    lots = [f"{a}-{b}" for a, b in sorted(pairs)]  # drawn sets sorted
    assert sorted(lots, key=natural_key) == [f"{a}-{b}" for a, b in sorted(pairs)]


def test_streets_sort_by_name_then_number():
    addresses = ["10 Elm Street", "2 Elm St", "1 Ash Road", "2A Elm St", "Elm St", "", "3-5 Elm St"]
    assert sorted(addresses, key=street_key) == [
        "1 Ash Road", "Elm St", "2 Elm St", "2A Elm St", "3-5 Elm St", "10 Elm Street", ""]


def test_order_listed_renumbers_the_map():
    listed = pd.DataFrame({"id": ["a", "b", "c"], "parcel_id": ["a", "b", "c"],
                           "map_par_id": ["7-K-33", "7-K-9", ""], "map_no": [1, 2, 3],
                           "owners": ["ZED", "ADAMS", "MOSS"],
                           "site_address": ["5 ELM ST", "1 OAK RD", "2 ELM ST"]})
    by_lot = order_listed(listed, "map-lot")  # no map-lot: the id "c" stands in, after digits
    assert by_lot["id"].tolist() == ["b", "a", "c"] and by_lot["map_no"].tolist() == [1, 2, 3]
    assert order_listed(listed, "owner")["id"].tolist() == ["b", "c", "a"]
    assert order_listed(listed, "street")["id"].tolist() == ["c", "a", "b"]
    assert order_listed(listed, None) is listed

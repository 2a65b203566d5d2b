"""Subjects of a site need the main subject's owner (issue 34; swm_gis.rules.site_subjects;
docs/abutters.md). Lots in metres (EPSG:26986); shares checked against an independent geopandas
overlay."""

from __future__ import annotations

import geopandas as gpd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import box

from swm_gis.rules.abutters import parcels_touched_by_site
from swm_gis.rules.site_subjects import main_subject, owner_keys, same_owner_subjects

CRS = "EPSG:26986"


def _row(widths: list[float]) -> gpd.GeoDataFrame:
    """Lots side by side, 40 m deep, named P0, P1, ..."""
    xs = [0.0]
    for w in widths:
        xs.append(xs[-1] + w)
    return gpd.GeoDataFrame({"id": [f"P{i}" for i in range(len(widths))]}, crs=CRS,
                            geometry=[box(a, 0, b, 40) for a, b in zip(xs, xs[1:], strict=False)])


def test_a_2_m_offset_on_a_6_m_lot_no_longer_makes_the_neighbour_the_applicant():
    """6 m-wide lots; the site is P1 (x 6-12) drawn 2 m east: it covers 2 m x 40 m = 80 m2 of
    P2, a third of it (past the 25 % share), and 4 m of P1. P2 belongs to someone else: an
    abutter."""
    lots = _row([6, 6, 6, 6])
    site = gpd.GeoDataFrame(geometry=[box(8, 0, 14, 40)], crs=CRS)
    # independent overlay: the share of each lot the site covers
    over = gpd.overlay(lots, site, how="intersection")
    share = dict(zip(over["id"], over.area / 240.0, strict=True))
    assert share == pytest.approx({"P1": 4 / 6, "P2": 2 / 6})
    found = parcels_touched_by_site(lots, site)
    assert sorted(found.subject["id"]) == ["P1", "P2"]  # both pass the share test ...
    assert main_subject(found) == "P1"  # ... P1 holds 160 m2 of the site, P2 80 m2
    kept = same_owner_subjects(found, {"P1": ["DOE JANE"], "P2": ["ROE RICHARD"]})
    assert list(kept.subject["id"]) == ["P1"]
    [g] = kept.grazed
    assert (g["id"], g["owner_differs"], g["owners"], g["main_owners"]) == (
        "P2", True, ["ROE RICHARD"], ["DOE JANE"])
    assert g["overlap_sqft"] == pytest.approx(80 / 0.3048**2)  # 861.1 sq ft


def test_the_same_owner_spelt_apart_keeps_both_and_no_record_keeps_none():
    lots = _row([6, 6, 6, 6])
    found = parcels_touched_by_site(lots, gpd.GeoDataFrame(geometry=[box(8, 0, 14, 40)], crs=CRS))
    same = same_owner_subjects(found, {"P1": ["Doe, Jane & John"], "P2": ["DOE JANE AND JOHN"]})
    assert sorted(same.subject["id"]) == ["P1", "P2"] and same.grazed == []
    unknown = same_owner_subjects(found, {"P1": ["DOE JANE"]})  # P2 has no assessing record
    assert list(unknown.subject["id"]) == ["P1"] and unknown.grazed[0]["owners"] == []


def test_one_shared_owner_among_co_owner_records_is_enough():
    assert owner_keys(["DOE JANE", "ROE RICHARD"]) & owner_keys(["roe, richard"])


@settings(max_examples=40, deadline=None, derandomize=True)
@given(widths=st.lists(st.floats(min_value=4, max_value=30), min_size=3, max_size=7),
       pad=st.floats(min_value=0.5, max_value=12), owners=st.lists(st.sampled_from("AB"),
                                                                   min_size=7, max_size=7))
def test_every_subject_has_the_main_subjects_owner(widths, pad, owners):
    """A site drawn as the middle lot grown by ``pad`` on every side: whatever it covers, the
    main subject holds the most of it, the subjects all share its owner, and every other lot
    the site overlaps is listed as grazed (an abutter)."""
    lots = _row(widths)
    mid = len(widths) // 2
    x0, y0, x1, y1 = lots.geometry.iloc[mid].bounds
    site = gpd.GeoDataFrame(geometry=[box(x0 - pad, y0 - pad, x1 + pad, y1 + pad)], crs=CRS)
    names = {f"P{i}": [owners[i]] for i in range(len(widths))}
    found = parcels_touched_by_site(lots, site)
    kept = same_owner_subjects(found, names)
    main = main_subject(found)
    # the main subject holds the most of the site (an independent overlay)
    over = gpd.overlay(lots, site, how="intersection")
    areas = dict(zip(over["id"], over.area, strict=True))
    assert areas[main] == pytest.approx(max(areas.values()))
    assert {names[p][0] for p in kept.subject["id"]} == {names[main][0]}
    touched = sorted([*kept.subject["id"], *(g["id"] for g in kept.grazed)])
    assert touched == sorted([*found.subject["id"], *(g["id"] for g in found.grazed)])

"""Abutters by exact distance from the subject property line (Chapter 320 § 320-18 A(7)).

The hand-built town (EPSG:26986, metres; S is the 50 m x 50 m subject at the origin O):

    C (across a 15 m ROW, 15 m = 49.21 ft)   ROW (x -15..0)   S (0..50, 0..50)   A (30.47 m east)
    F (no assessing record, 18.03 m)                          B (30.49 m north)
    D (another town, 10 m south)   E (condominium, 22.36 m south-east)
"""

from __future__ import annotations

import geopandas as gpd
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from shapely.geometry import box

from swm_gis.config.town import Rules
from swm_gis.errors import CrsError, SwmGisError
from swm_gis.rules.abutters import (
    NO_OWNER_NOTE,
    DistanceError,
    classify,
    find_abutters,
    parcels_touched_by_site,
    parse_distance_ft,
    search_area,
)

X0, Y0 = 230_000.0, 900_000.0
CRS = "EPSG:26986"


def _b(x0, y0, x1, y1):
    return box(X0 + x0, Y0 + y0, X0 + x1, Y0 + y1)


def town() -> gpd.GeoDataFrame:
    rows = [
        ("S", 164, "FEE", _b(0, 0, 50, 50)),
        ("A", 164, "FEE", _b(50 + 30.47, 0, 100 + 30.47, 50)),  # 30.47 m = 99.97 ft: in
        ("B", 164, "FEE", _b(0, 50 + 30.49, 50, 100 + 30.49)),  # 30.49 m = 100.03 ft: out
        ("ROW", 164, "ROW", _b(-15, -100, 0, 150)),  # a 15 m street along the west side
        ("C", 164, "FEE", _b(-65, 0, -15, 50)),  # across the street: 15 m
        ("D", 999, "FEE", _b(0, -60, 50, -10)),  # another town, 10 m
        ("E", 164, "FEE", _b(60, -60, 100, -20)),  # condominium: corner to corner 22.36 m
        ("F", 164, "FEE", _b(-65, 60, -15, 100)),  # no assessing record: 18.03 m
        ("G", 164, "FEE", _b(200, 200, 250, 250)),  # far away
    ]
    return gpd.GeoDataFrame(
        {"id": [r[0] for r in rows], "town_id": [r[1] for r in rows],
         "poly_type": [r[2] for r in rows]},
        geometry=[r[3] for r in rows], crs=CRS, index=[10 * i for i in range(len(rows))],
    )


def _subject(parcels, *ids):
    return parcels[parcels["id"].isin(ids)]


def test_30_47_m_is_in_and_30_49_m_is_out():
    parcels = town()
    out = find_abutters(parcels, _subject(parcels, "S"), distance_ft=100)
    assert "A" in set(out["id"]) and "B" not in set(out["id"])
    a = out.loc[out["id"] == "A", "distance_ft"].item()
    assert a == pytest.approx(30.47 / 0.3048, abs=1e-6)  # 99.967 ft
    assert round(a, 2) == 99.97
    b_ft = parcels.geometry[parcels["id"] == "B"].item().distance(parcels.geometry.iloc[0]) / 0.3048
    assert round(b_ft, 2) == 100.03


def test_distances_are_exact_and_the_input_index_is_kept():
    parcels = town()
    out = find_abutters(parcels, _subject(parcels, "S"), distance_ft=100)
    assert set(out["id"]) == {"A", "ROW", "C", "D", "E", "F"}
    dist = dict(zip(out["id"], out["distance_ft"], strict=True))
    assert dist["ROW"] == 0.0  # touches
    assert dist["C"] == pytest.approx(15 / 0.3048)  # 49.21 ft, across the street
    assert dist["D"] == pytest.approx(10 / 0.3048)  # 32.81 ft
    assert dist["E"] == pytest.approx(np.hypot(10, 20) / 0.3048)  # 73.36 ft
    assert dist["F"] == pytest.approx(np.hypot(15, 10) / 0.3048)
    assert list(out["distance_ft"]) == sorted(out["distance_ft"])
    # index labels of the input rows are kept
    assert out.index[out["id"] == "C"].item() == parcels.index[parcels["id"] == "C"].item()
    assert out.crs == parcels.crs


def test_threshold_is_inclusive():
    parcels = town()
    a_ft = 30.47 / 0.3048
    out = find_abutters(parcels, _subject(parcels, "S"), distance_ft=a_ft)
    assert "A" in set(out["id"])


def test_subject_only_with_include_subject():
    parcels = town()
    subject = _subject(parcels, "S")
    assert "S" not in set(find_abutters(parcels, subject, distance_ft=100)["id"])
    out = find_abutters(parcels, subject, distance_ft=100, include_subject=True)
    row = out[out["id"] == "S"]
    assert row["is_subject"].item() and row["distance_ft"].item() == 0.0


def test_several_subject_parcels_act_as_one_property():
    parcels = town()
    out = find_abutters(parcels, _subject(parcels, "S", "A"), distance_ft=100)
    assert {"S", "A"}.isdisjoint(out["id"])
    # G is 150 m from S but 69.53 m from A's corner: still out at 100 ft
    assert "G" not in set(out["id"])


def test_row_across_street_is_in_and_the_row_polygon_is_left_out_with_its_reason():
    parcels = town()
    abut = find_abutters(parcels, _subject(parcels, "S"), distance_ft=100)
    listed, left = classify(abut, {"A", "C", "D", "E"})
    assert "C" in set(listed["id"])
    assert list(left["id"]) == ["ROW"]
    assert "ROW polygon" in left["reason"].item() and "no owner" in left["reason"].item()
    assert "Chapter 320, permit procedure, A(7)" in left["reason"].item()


def test_water_without_owner_is_left_out_but_with_an_owner_is_listed():
    parcels = town()
    parcels.loc[parcels["id"] == "ROW", "poly_type"] = "WATER"
    abut = find_abutters(parcels, _subject(parcels, "S"), distance_ft=100)
    _, left = classify(abut, {"A"})
    assert "WATER polygon" in left["reason"].item()
    listed, left = classify(abut, {"A", "ROW"})  # a pond with an owner of record gets a notice
    assert "ROW" in set(listed["id"]) and left.empty


def test_other_town_is_in_and_flagged_with_its_town_id():
    parcels = town()
    abut = find_abutters(parcels, _subject(parcels, "S"), distance_ft=100)
    listed, _ = classify(abut, {"A", "C", "D", "E"})
    d = listed[listed["id"] == "D"]
    assert d["other_town"].item()
    assert d["note"].item() == "other town: town id 999"
    assert not listed.loc[listed["id"] == "A", "other_town"].item()


def test_parcel_without_assessing_record_is_listed_and_flagged():
    parcels = town()
    abut = find_abutters(parcels, _subject(parcels, "S"), distance_ft=100)
    listed, _ = classify(abut, {"A", "C", "D", "E"})
    f = listed[listed["id"] == "F"]
    assert f["note"].item() == NO_OWNER_NOTE == "no owner of record: ask the Assessors"
    assert not f["owner_of_record"].item()


def test_inputs_are_not_modified():
    parcels = town()
    before = parcels.copy()
    find_abutters(parcels, _subject(parcels, "S"), distance_ft=100)
    assert parcels.equals(before) and list(parcels.columns) == list(before.columns)


def test_geographic_crs_is_refused():
    parcels = town().to_crs("EPSG:4326")
    with pytest.raises(CrsError, match="geographic"):
        find_abutters(parcels, parcels.iloc[[0]], distance_ft=100)


def test_search_area_is_for_the_map_only():
    parcels = town()
    area = search_area(_subject(parcels, "S"), distance_ft=100)
    # a 50 m square grown by 30.48 m: 50*50 + 4*50*30.48 + pi*30.48^2
    assert area.geometry.area.item() == pytest.approx(2500 + 200 * 30.48 + np.pi * 30.48**2,
                                                      rel=1e-3)


@pytest.mark.parametrize(("text", "feet"), [
    ("100ft", 100.0), ("100 ft", 100.0), ("30.48m", 100.0), ("100", 100.0), ("30.48 m", 100.0),
    ("250 feet", 250.0), (75, 75.0), ("0", 0.0),
])
def test_parse_distance(text, feet):
    assert parse_distance_ft(text) == pytest.approx(feet)


@pytest.mark.parametrize("text", ["100yd", "", "-5ft", "ft", "1e3"])
def test_parse_distance_refuses_what_it_cannot_read(text):
    with pytest.raises(DistanceError, match="distance") as info:
        parse_distance_ft(text)
    assert isinstance(info.value, SwmGisError)


def test_site_selects_parcels_it_reaches_into_not_those_it_only_touches():
    parcels = town()
    site = gpd.GeoDataFrame(geometry=[_b(10, 10, 50, 40)], crs=CRS)  # shares S's east edge line
    subject = parcels_touched_by_site(parcels, site).subject
    assert list(subject["id"]) == ["S"]
    # P's copy nudged 1 mm east overlaps neighbour Q by 50 m x 1 mm = 0.05 m2 (0.54 sq ft):
    # coordinate noise, not Q's land; 1 m further it is 50 m2 and Q is a subject parcel too
    pq = gpd.GeoDataFrame({"id": ["P", "Q"], "poly_type": ["FEE", "FEE"]},
                          geometry=[_b(0, 0, 50, 50), _b(50, 0, 100, 50)], crs=CRS)
    nudged = gpd.GeoDataFrame(geometry=[_b(0.001, 0, 50.001, 50)], crs=CRS)
    assert list(parcels_touched_by_site(pq, nudged).subject["id"]) == ["P"]
    # 1 m further it grazes Q by 50 m2 (538 sq ft, 2 % of Q): Q is not made a subject
    # ([rules] site_subject_share 0.25) but named as grazed, for the warning
    wider = gpd.GeoDataFrame(geometry=[_b(0, 0, 51, 50)], crs=CRS)
    grazing = parcels_touched_by_site(pq, wider)
    assert list(grazing.subject["id"]) == ["P"]
    [g] = grazing.grazed
    assert g["id"] == "Q" and g["overlap_sqft"] == pytest.approx(50 / 0.3048**2)
    assert g["parcel_share"] == pytest.approx(0.02) and g["site_share"] == pytest.approx(50 / 2550)
    # 15 m into Q: 30 % of Q, so Q is the applicant's land too
    onto = gpd.GeoDataFrame(geometry=[_b(0, 0, 65, 50)], crs=CRS)
    assert list(parcels_touched_by_site(pq, onto).subject["id"]) == ["P", "Q"]
    # a site mostly on Q and a little on P: the share of the site decides (P holds 1/21)
    assert list(parcels_touched_by_site(pq, gpd.GeoDataFrame(
        geometry=[_b(49, 0, 70, 50)], crs=CRS)).subject["id"]) == ["Q"]
    over = gpd.GeoDataFrame(geometry=[_b(-5, 10, 20, 20)], crs=CRS)  # reaches into the street
    touched = parcels_touched_by_site(parcels, over, rules=Rules())
    assert list(touched.subject["id"]) == ["S"] and touched.skipped_no_owner == ["ROW"]


# --------------------------------------------------------------------------- properties
coords = st.integers(min_value=0, max_value=300)
sizes = st.integers(min_value=1, max_value=80)
boxes = st.tuples(coords, coords, sizes, sizes).map(lambda t: _b(t[0], t[1], t[0] + t[2],
                                                                 t[1] + t[3]))


def _frame(geoms):
    return gpd.GeoDataFrame({"id": [f"P{i}" for i in range(len(geoms))]}, geometry=geoms,
                            crs=CRS)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(a=boxes, b=boxes, feet=st.integers(min_value=0, max_value=400))
def test_abutting_is_symmetric(a, b, feet):
    parcels = _frame([a, b])
    a_finds_b = "P1" in set(find_abutters(parcels, parcels.iloc[[0]], distance_ft=feet)["id"])
    b_finds_a = "P0" in set(find_abutters(parcels, parcels.iloc[[1]], distance_ft=feet)["id"])
    assert a_finds_b == b_finds_a


@settings(max_examples=40, deadline=None)
@given(geoms=st.lists(boxes, min_size=2, max_size=12),
       d1=st.integers(min_value=0, max_value=400), d2=st.integers(min_value=0, max_value=400))
def test_larger_distance_never_finds_fewer_parcels(geoms, d1, d2):
    lo, hi = sorted((d1, d2))
    parcels = _frame(geoms)
    near = set(find_abutters(parcels, parcels.iloc[[0]], distance_ft=lo)["id"])
    far = set(find_abutters(parcels, parcels.iloc[[0]], distance_ft=hi)["id"])
    assert near <= far


@settings(max_examples=30, deadline=None)
@given(geoms=st.lists(boxes, min_size=2, max_size=10), feet=st.integers(min_value=1, max_value=400),
       crs=st.sampled_from(["EPSG:2249", "EPSG:26919", "EPSG:4326", "EPSG:3857"]))
def test_result_does_not_change_with_the_crs_of_the_inputs(geoms, feet, crs):
    """Inputs arriving in any CRS are measured in the working CRS: same parcels, same feet."""
    parcels = _frame(geoms)
    base = find_abutters(parcels, parcels.iloc[[0]], distance_ft=feet)
    # stay clear of the threshold itself, where the last bit of floating point decides
    d_all = parcels.geometry.distance(parcels.geometry.iloc[0]) / 0.3048
    assume(((d_all - feet).abs() > 1e-3).all())
    # the parcels delivered in another CRS and brought into the working CRS at the edge
    # (parcels at equal distances may swap places in the list: compare by id)
    expected = base.set_index("id")["distance_ft"].sort_index()
    arrived = parcels.to_crs(crs).to_crs(CRS)
    again = find_abutters(arrived, arrived.iloc[[0]], distance_ft=feet)
    got = again.set_index("id")["distance_ft"].sort_index()
    assert list(got.index) == list(expected.index)
    np.testing.assert_allclose(got, expected, atol=1e-4)
    # the subject in another CRS than the parcels: find_abutters reprojects it
    mixed = find_abutters(parcels, parcels.iloc[[0]].to_crs(crs), distance_ft=feet)
    got = mixed.set_index("id")["distance_ft"].sort_index()
    assert list(got.index) == list(expected.index)
    np.testing.assert_allclose(got, expected, atol=1e-4)


def test_parcels_in_us_survey_feet_give_the_same_list_in_feet():
    """EPSG:2249 is the same projection as EPSG:26986 in US survey feet."""
    parcels = town()
    base = find_abutters(parcels, _subject(parcels, "S"), distance_ft=100)
    feet = parcels.to_crs("EPSG:2249")
    other = find_abutters(feet, _subject(feet, "S"), distance_ft=100)
    assert list(other["id"]) == list(base["id"])
    np.testing.assert_allclose(other["distance_ft"], base["distance_ft"], atol=1e-4)


# --------------------------------------------------------------------------- WPA pond extension
def test_pond_extension_adds_owners_around_a_pond_under_10_acres_the_subject_borders():
    from swm_gis.rules.abutters import bordered_ponds, pond_extension

    parcels = gpd.GeoDataFrame(
        {"id": ["S", "POND", "Q", "R", "T"], "poly_type": ["FEE", "WATER", "FEE", "FEE", "FEE"]},
        geometry=[_b(0, 0, 50, 50), _b(50, 0, 110, 60), _b(110, 0, 160, 60),
                  _b(50, 200, 110, 250), _b(-350, 0, -300, 50)], crs=CRS)
    ponds = gpd.GeoDataFrame(
        {"name": ["Small Pond", "Big Pond"]},
        # 60 m x 60 m = 3,600 m2 = 0.89 acre; 300 m x 150 m = 45,000 m2 = 11.12 acres
        geometry=[_b(50, 0, 110, 60), _b(-300, 0, 0, 150)], crs=CRS)
    subject = _subject(parcels, "S")
    found = bordered_ponds(subject, ponds)
    assert list(found["pond"]) == ["Small Pond"] and found["pond_acres"].item() == 0.89
    extra = pond_extension(parcels, subject, ponds)
    assert list(extra["id"]) == ["Q"]  # not T (Big Pond is over 10 acres), not the pond itself
    assert extra["distance_ft"].item() == pytest.approx(60 / 0.3048)  # 196.85 ft from S
    assert extra["pond"].item() == "Small Pond"
    assert "Q" not in set(find_abutters(parcels, subject, distance_ft=100)["id"])
    assert pond_extension(parcels, subject, ponds, exclude_ids=["Q"]).empty

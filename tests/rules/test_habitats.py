"""NHESP habitats within 500 ft of the limit of disturbance (§ 320-20 A(3)(c)).

The site is a 100 m x 100 m square (EPSG:26986, metres); 1 m = 1 / 0.3048 ft, so 150 m is
492.1 ft, 153 m is 502.0 ft (beyond 500 ft) and 30 m is 98.4 ft.
"""

from __future__ import annotations

import geopandas as gpd
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import Point, box

from swm_gis.errors import CrsError
from swm_gis.rules.habitats import habitat_records, habitats_within, map_scale_note

X0, Y0 = 230_000.0, 905_000.0
EPSG = "EPSG:26986"


def frame(ids, geoms, crs=EPSG):
    return gpd.GeoDataFrame({"id": ids}, geometry=geoms, crs=crs)


def sq(x0, y0, x1, y1):
    return box(X0 + x0, Y0 + y0, X0 + x1, Y0 + y1)


SITE = gpd.GeoDataFrame(geometry=[sq(0, 0, 100, 100)], crs=EPSG)


def test_hand_checked_distances():
    found = habitats_within(
        SITE,
        priority=frame(["PH 1", "PH 2"], [sq(250, 0, 300, 100), sq(-20, -20, 10, 10)]),
        estimated=frame(["EH 9"], [sq(253, 0, 300, 100)]),
        vernal_pools=frame([4417], [Point(X0 + 130, Y0 + 50)]),
    )
    assert habitat_records(found) == [
        {"layer": "priority", "id": "PH 2", "distance_ft": 0.0, "overlaps": True,
         "section": "320-20 A(3)(c)"},
        {"layer": "vernal_pool", "id": 4417, "distance_ft": 98.4, "overlaps": False,
         "section": "320-20 A(3)(c)"},
        {"layer": "priority", "id": "PH 1", "distance_ft": 492.1, "overlaps": False,
         "section": "320-20 A(3)(c)"},
    ]
    assert found.crs == EPSG


def test_exactly_500_ft_is_within():
    edge = 500 * 0.3048  # 152.4 m
    found = habitats_within(SITE, estimated=frame(["E"], [sq(100 + edge, 0, 400, 100)]))
    assert found["distance_ft"].tolist() == [500.0]


def test_smaller_search_distance():
    found = habitats_within(SITE, priority=frame(["PH 1"], [sq(250, 0, 300, 100)]),
                            distance_ft=400)
    assert found.empty


def test_multi_polygon_site_measures_from_the_nearest_part():
    site = gpd.GeoDataFrame(geometry=[sq(0, 0, 100, 100), sq(1000, 0, 1100, 100)], crs=EPSG)
    found = habitats_within(site, vernal_pools=frame(["V"], [Point(X0 + 1130, Y0 + 50)]))
    assert found["distance_ft"].tolist() == [98.4]


def test_empty_and_missing_layers_give_an_empty_result():
    empty = gpd.GeoDataFrame({"id": []}, geometry=[], crs=EPSG)
    found = habitats_within(SITE, priority=empty, estimated=None, vernal_pools=empty)
    assert found.empty and list(found.columns[:4]) == ["layer", "id", "distance_ft", "overlaps"]
    assert habitat_records(found) == []


def test_layer_in_another_crs_is_refused():
    other = frame(["P"], [sq(250, 0, 300, 100)]).to_crs("EPSG:4326")
    with pytest.raises(CrsError, match="not in the site's CRS"):
        habitats_within(SITE, priority=other)


def test_site_without_crs_is_refused():
    with pytest.raises(CrsError):
        habitats_within(gpd.GeoSeries([sq(0, 0, 1, 1)]), priority=frame(["P"], [sq(5, 5, 6, 6)]))


def test_the_map_scale_note_names_the_scale_and_the_town_s_distance():
    # the plan / prevent notes are the profile's (tests/config/test_regulation.py)
    assert map_scale_note(500) == ("NHESP habitat maps are drawn for use at 1:25,000; confirm "
                                   "boundaries near the 500 ft line with NHESP or a field "
                                   "delineation.")
    assert "near the 1,250 ft line" in map_scale_note(1250.0)


# --------------------------------------------------------------------------- properties
coord = st.floats(-2000, 2000, allow_nan=False)
size = st.floats(1, 300, allow_nan=False)


@settings(max_examples=40, deadline=None)
@given(ax=coord, ay=coord, aw=size, ah=size, bx=coord, by=coord, bw=size, bh=size)
def test_distance_is_symmetric(ax, ay, aw, ah, bx, by, bw, bh):
    a, b = sq(ax, ay, ax + aw, ay + ah), sq(bx, by, bx + bw, by + bh)
    ab = habitats_within(gpd.GeoDataFrame(geometry=[a], crs=EPSG), priority=frame(["b"], [b]),
                         distance_ft=1e6)
    ba = habitats_within(gpd.GeoDataFrame(geometry=[b], crs=EPSG), priority=frame(["a"], [a]),
                         distance_ft=1e6)
    assert ab["distance_ft"].tolist() == ba["distance_ft"].tolist()
    assert ab["overlaps"].tolist() == ba["overlaps"].tolist()


@settings(max_examples=40, deadline=None)
@given(px=coord, py=coord, bx=coord, by=coord, bw=size, bh=size)
def test_distance_does_not_depend_on_the_crs_unit(px, py, bx, by, bw, bh):
    """The same features in Massachusetts State Plane feet (EPSG:2249) give the same feet."""
    site = gpd.GeoDataFrame(geometry=[sq(0, 0, 100, 100)], crs=EPSG)
    pri = frame(["P"], [sq(bx, by, bx + bw, by + bh)])
    pools = frame(["V"], [Point(X0 + px, Y0 + py)])
    m = habitats_within(site, priority=pri, vernal_pools=pools, distance_ft=1e6)
    f = habitats_within(site.to_crs("EPSG:2249"), priority=pri.to_crs("EPSG:2249"),
                        vernal_pools=pools.to_crs("EPSG:2249"), distance_ft=1e6)
    assert sorted(m["layer"]) == sorted(f["layer"])
    mm = dict(zip(m["layer"], m["distance_ft"], strict=True))
    ff = dict(zip(f["layer"], f["distance_ft"], strict=True))
    for layer, d in mm.items():
        assert ff[layer] == pytest.approx(d, abs=0.11)  # equal up to the 0.1 ft rounding


@settings(max_examples=30, deadline=None)
@given(d_m=st.floats(0.5, 300, allow_nan=False))
def test_listed_exactly_when_within_the_threshold(d_m):
    found = habitats_within(SITE, vernal_pools=frame(["V"], [Point(X0 + 100 + d_m, Y0 + 50)]))
    assert (len(found) == 1) == (d_m / 0.3048 <= 500)
    if len(found):
        assert found["distance_ft"].iloc[0] == round(d_m / 0.3048, 1)
    assert shapely.area(SITE.geometry.iloc[0]) == 10_000  # the input is left alone

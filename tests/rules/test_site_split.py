"""Every square foot once (issue 32, item 3): a constraint split on the site's parcel(s) inside
the limit of disturbance, on them outside it, and off them.

Coordinates in metres (EPSG:26986); 1 m2 = 10.7639104 sq ft.
"""

from __future__ import annotations

import geopandas as gpd
import numpy as np
import pytest
from affine import Affine
from hypothesis import given, settings
from hypothesis import strategies as st
from pyproj import CRS
from shapely.geometry import box

from swm_gis.raster import Raster
from swm_gis.rules.site_split import site_regions, split_cover, split_polygons

SQFT = 10.7639104  # sq ft per m2
LOT = box(0, 0, 100, 100)  # the site's lot: 100 m x 100 m = 107,639.1 sq ft
SFHA = box(0, 0, 100, 40)  # the lot's south 40 m: 4,000 m2 = 43,055.6 sq ft of SFHA on the lot


def test_a_limit_of_disturbance_half_off_its_lot_splits_the_sfha_exactly():
    # the limit runs x 50..150, y 0..60: half of it (x 100..150) lies off the lot. A wider SFHA
    # strip (x 0..200, y 0..40) is on the lot and off it
    lod = box(50, 0, 150, 60)
    sfha = box(0, 0, 200, 40)
    split = split_polygons(sfha, site_regions(lod, LOT), factor=SQFT)
    # on the lot: 100 x 40 = 4,000 m2 = 43,055.6 sq ft
    # on the lot inside the limit: x 50..100, y 0..40 = 2,000 m2 = 21,527.8 sq ft
    # on the lot outside it: 4,000 - 2,000 = 2,000 m2 = 21,527.8 sq ft
    # inside the limit off the lot: x 100..150, y 0..40 = 2,000 m2 = 21,527.8 sq ft
    assert split == {"parcel_sqft": 43_055.6, "inside_sqft": 21_527.8, "outside_sqft": 21_527.8,
                     "off_parcel_sqft": 21_527.8}


def test_the_earlier_reading_counted_the_off_lot_part_as_inside():
    # before the split, "inside the limit" was the SFHA in the whole limit (4,000 m2 here),
    # more than the lot's own SFHA west of x = 100 inside it; now inside <= the lot's total
    lod = box(50, 0, 150, 60)
    split = split_polygons(box(0, 0, 200, 40), site_regions(lod, LOT), factor=SQFT)
    assert split["inside_sqft"] + split["off_parcel_sqft"] == pytest.approx(4_000 * SQFT, abs=0.1)
    assert split["inside_sqft"] <= split["parcel_sqft"]


def test_overlapping_constraint_polygons_count_once_and_lines_have_no_area():
    frame = gpd.GeoDataFrame(geometry=[SFHA, SFHA, box(0, 0, 10, 10).boundary],
                             crs="EPSG:26986")
    split = split_polygons(frame, site_regions(box(0, 0, 50, 100), LOT), factor=SQFT)
    # 4,000 m2 once; the west half (x 0..50) inside: 2,000 m2 = 21,527.8 sq ft
    assert split["parcel_sqft"] == 43_055.6 and split["inside_sqft"] == 21_527.8


def test_no_parcel_known_puts_everything_in_the_limit_off_the_parcel():
    split = split_polygons(SFHA, site_regions(box(0, 0, 50, 100), None), factor=SQFT)
    # x 0..50, y 0..40 = 2,000 m2 = 21,527.8 sq ft, all off the (unknown) parcel
    assert split == {"parcel_sqft": 0.0, "inside_sqft": 0.0, "outside_sqft": 0.0,
                     "off_parcel_sqft": 21_527.8}


def _raster() -> Raster:
    """10 m cells over 0..200 x 0..100 with impervious cells x 40..120, y 0..20 (1,600 m2)."""
    arr = np.zeros((10, 20), dtype="uint8")
    arr[8:10, 4:12] = 1  # rows from the top (y = 100): rows 8-9 are y 0..20
    return Raster(array=np.ma.masked_array(arr), transform=Affine(10, 0, 0, 0, -10, 100),
                  crs=CRS.from_epsg(26986), source={})


def test_raster_cover_splits_like_the_same_cover_as_polygons():
    lod = box(50, 0, 150, 60)
    regions = site_regions(lod, LOT)
    cover = split_cover(_raster(), regions, factor=SQFT)
    # on the lot: x 40..100, y 0..20 = 1,200 m2 = 12,916.7 sq ft; inside the limit x 50..100:
    # 1,000 m2 = 10,763.9 sq ft; outside (x 40..50): 200 m2 = 2,152.8 sq ft; off the lot
    # inside the limit (x 100..120): 400 m2 = 4,305.6 sq ft
    assert cover == {"parcel_sqft": 12_916.7, "inside_sqft": 10_763.9, "outside_sqft": 2_152.8,
                     "off_parcel_sqft": 4_305.6}
    polygons = gpd.GeoDataFrame(geometry=[box(40, 0, 120, 20)], crs="EPSG:26986")
    assert split_polygons(polygons, regions, factor=SQFT) == cover


def test_raster_cover_survives_sliver_regions():
    # a limit that shares the lot's edge but for a 1e-7 m sliver leaves near-degenerate parts
    lod = box(1e-7, -1e-7, 100 - 1e-7, 60)
    cover = split_cover(_raster(), site_regions(lod, LOT), factor=SQFT)
    assert cover["parcel_sqft"] == 12_916.7
    assert cover["inside_sqft"] + cover["outside_sqft"] == pytest.approx(12_916.7, abs=0.05)


coord = st.integers(min_value=-50, max_value=150)


@settings(max_examples=60, deadline=None)
@given(x0=coord, y0=coord, w=st.integers(1, 120), h=st.integers(1, 120),
       cx=coord, cy=coord, cw=st.integers(1, 150), ch=st.integers(1, 150))
def test_inside_never_exceeds_the_parcel_and_inside_plus_outside_is_the_parcel(
        x0, y0, w, h, cx, cy, cw, ch):
    lod = box(x0, y0, x0 + w, y0 + h)
    constraint = box(cx, cy, cx + cw, cy + ch)
    split = split_polygons(constraint, site_regions(lod, LOT), factor=SQFT)
    assert split["inside_sqft"] <= split["parcel_sqft"]
    assert split["inside_sqft"] + split["outside_sqft"] == pytest.approx(split["parcel_sqft"],
                                                                         abs=0.01)
    # the parcel's total is the constraint on the lot, whatever the limit
    assert split["parcel_sqft"] == pytest.approx(constraint.intersection(LOT).area * SQFT,
                                                 abs=0.05)
    # the limit's own share is counted once: inside + off = the constraint in the limit
    assert split["inside_sqft"] + split["off_parcel_sqft"] == pytest.approx(
        constraint.intersection(lod).area * SQFT, abs=0.1)
    assert min(split.values()) >= 0

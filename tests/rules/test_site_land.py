"""Land of others under the limit of disturbance (issue 32, item 4; Chapter 320, permit
procedure, A and A(1)). Metres (EPSG:26986); 1 m2 = 10.7639104 sq ft."""

from __future__ import annotations

import geopandas as gpd
from shapely.geometry import box

from swm_gis.config.town import Rules
from swm_gis.rules.site_land import land_of_others
from swm_gis.screening.site_land import land_text

SQFT = 10.7639104

#: The lot (x 0..30), the neighbour east of it (x 30..60), the street north (y 40..50), a pond
#: north of the neighbour (x 60..80, y 0..50), and nothing west of x = 0.
PARCELS = gpd.GeoDataFrame(
    {"id": ["LOT", "NEXT", "ST", "POND"], "poly_type": ["FEE", "FEE", "ROW", "WATER"],
     "owner": ["ANN LOT", "BOB NEXT", None, None]}, crs="EPSG:26986",
    geometry=[box(0, 0, 30, 40), box(30, 0, 60, 40), box(0, 40, 60, 50), box(60, 0, 80, 50)])


def test_each_piece_of_land_of_others_is_named_with_its_kind_owner_and_area():
    # the limit: x -5..65, y 10..45
    lod = box(-5, 10, 65, 45)
    land = land_of_others(PARCELS, lod, subject_ids=["LOT"], factor=SQFT, rules=Rules())
    # NEXT: x 30..60, y 10..40 = 900 m2 = 9,687.5 sq ft
    # ST: x 0..60, y 40..45 = 300 m2 = 3,229.2 sq ft
    # POND: x 60..65, y 10..45 = 175 m2 = 1,883.7 sq ft
    # no parcel: x -5..0, y 10..45 = 175 m2 = 1,883.7 sq ft
    assert land == [
        {"id": "NEXT", "kind": "parcel", "owner": "BOB NEXT", "sqft": 9_687.5},
        {"id": "ST", "kind": "ROW", "owner": None, "sqft": 3_229.2},
        {"id": "POND", "kind": "WATER", "owner": None, "sqft": 1_883.7},
        {"id": None, "kind": "no_parcel", "owner": None, "sqft": 1_883.7},
    ]
    text = land_text(land, site_owners={"ANN LOT"})
    assert text.startswith(
        "The limit of disturbance lies on land that is not the site's lot: parcel NEXT (owner "
        "BOB NEXT), 9,688 sq ft; street or way ST, 3,229 sq ft; water POND, 1,884 sq ft; "
        "1,884 sq ft on no parcel of the parcels layer")
    assert "(Chapter 320, permit procedure, A and A(1))" in text
    assert "the permittee must be the owner of the site" in text


def test_a_limit_on_its_own_lot_names_nothing_and_a_grazing_sliver_is_noise():
    assert land_of_others(PARCELS, box(1, 1, 29, 39), subject_ids=["LOT"], factor=SQFT) == []
    # 0.01 m into NEXT along 30 m: 0.3 m2 = 3.2 sq ft is named; 0.001 m (0.3 sq ft) is not
    assert [e["id"] for e in land_of_others(PARCELS, box(1, 1, 30.01, 31), subject_ids=["LOT"],
                                            factor=SQFT)] == ["NEXT"]
    assert land_of_others(PARCELS, box(1, 1, 30.001, 31), subject_ids=["LOT"],
                          factor=SQFT) == []


def test_the_same_owner_and_an_unknown_owner_are_said_so():
    land = [{"id": "NEXT", "kind": "parcel", "owner": "ANN LOT", "sqft": 100.0},
            {"id": "OTHER", "kind": "parcel", "owner": None, "sqft": 50.0},
            {"id": "RR", "kind": "RAIL_ROW", "owner": None, "sqft": 20.0},
            {"id": "R9", "kind": "rule", "owner": None, "sqft": 10.0}]
    text = land_text(land, site_owners={"ANN LOT"})
    assert ("parcel NEXT (the same owner of record as the site's parcel(s): ANN LOT), 100 sq ft; "
            "parcel OTHER (owner not known), 50 sq ft; railroad right-of-way RR, 20 sq ft; "
            "street or way R9, 10 sq ft.") in text


def test_land_outside_the_town_is_not_land_the_parcels_layer_leaves_unmapped():
    # the limit x -5..10 reaches 5 m west of the lot; with the town ending at x = -2, only
    # x -2..0 (2 x 20 = 40 m2 = 430.6 sq ft) is in town on no parcel
    lod = box(-5, 10, 10, 30)
    town = box(-2, -100, 200, 100)
    land = land_of_others(PARCELS, lod, subject_ids=["LOT"], factor=SQFT, town=town)
    assert land == [{"id": None, "kind": "no_parcel", "owner": None, "sqft": 430.6}]
    # without the town's outline all 5 x 20 = 100 m2 = 1,076.4 sq ft is on no parcel
    assert land_of_others(PARCELS, lod, subject_ids=["LOT"], factor=SQFT)[0]["sqft"] == 1_076.4

"""HUC12/HUC10 shares of a site and off-site mitigation eligibility (§ 320-19 B(7)(d), B(8)(d))."""

from __future__ import annotations

import geopandas as gpd
import pytest
from shapely.geometry import LineString, Point, box

from swm_gis.rules.watersheds import mitigation_eligibility, watershed_shares

X0, Y0 = 238_000.0, 918_000.0
CRS = "EPSG:26986"
WEST, EAST, FAR = "010700020101", "010700020102", "010700030101"


def frame(data=None, geoms=()) -> gpd.GeoDataFrame:
    return gpd.GeoDataFrame(data or {}, geometry=list(geoms), crs=CRS)


# two neighbouring HUC12s of one HUC10, and a HUC12 of another HUC10 further east
HUC12 = frame({"huc": [WEST, EAST, FAR], "name": ["West Brook", "East Brook", "Far River"]},
              [box(X0, Y0, X0 + 1000, Y0 + 1000), box(X0 + 1000, Y0, X0 + 2000, Y0 + 1000),
               box(X0 + 2000, Y0, X0 + 3000, Y0 + 1000)])
HUC10 = frame({"huc": ["0107000201", "0107000301"], "name": ["Upper", "Lower"]},
              [box(X0, Y0, X0 + 2000, Y0 + 1000), box(X0 + 2000, Y0, X0 + 3000, Y0 + 1000)])


def test_site_across_two_huc12_gets_area_shares():
    site = frame(geoms=[box(X0 + 900, Y0 + 100, X0 + 1300, Y0 + 200)])  # 100 m west, 300 m east
    r = watershed_shares(site, huc12=HUC12, huc10=HUC10)
    assert [(h["huc"], h["share"]) for h in r["huc12"]] == [(EAST, 0.75), (WEST, 0.25)]
    assert r["huc12"][0]["name"] == "East Brook"
    assert r["huc12"][1]["area_sqft"] == pytest.approx(10_000 / 0.3048**2, abs=0.1)
    assert [(h["huc"], h["share"]) for h in r["huc10"]] == [("0107000201", 1.0)]
    assert "§ 320-19 B(7)(d)" in r["section"]


def test_polygons_sharing_a_code_count_as_one_watershed():
    split = frame({"huc": [WEST, WEST], "name": ["West Brook"] * 2},
                  [box(X0, Y0, X0 + 500, Y0 + 1000), box(X0 + 500, Y0, X0 + 1000, Y0 + 1000)])
    site = frame(geoms=[box(X0 + 400, Y0, X0 + 600, Y0 + 100)])
    r = watershed_shares(site, huc12=split, huc10=None)
    assert r["huc12"] == [{"huc": WEST, "name": "West Brook", "share": 1.0,
                           "area_sqft": pytest.approx(20_000 / 0.3048**2, abs=0.1)}]
    assert r["huc10"] == [] and any("No HUC10 layer" in x for x in r["reasons"])


def test_a_huc_layer_that_does_not_cover_the_site_is_named_not_an_error():
    """Issue 32 item 6: the level is not checked, with a reason naming the layer's file."""
    site = frame(geoms=[box(X0 - 5000, Y0, X0 - 4000, Y0 + 100)])
    source = {"file": "/data/wbd.gpkg", "layer": "WBDHU12"}
    out = watershed_shares(site, huc12=HUC12, huc10=None, sources={"huc12": source})
    assert out["huc12"] == [] and out["not_covered"] == ["huc12"]
    assert ("The site lies outside every HUC12 watershed polygon of /data/wbd.gpkg:WBDHU12: "
            "the layer does not cover it, so the site's HUC12 is not checked.") in out["reasons"]
    assert "polygon of the layer:" in " ".join(
        watershed_shares(site, huc12=HUC12, huc10=None)["reasons"])


def test_mitigation_in_neighbouring_huc12_of_same_huc10_is_eligible_only_for_redevelopment():
    mitigation = frame({"id": ["M1"]}, [box(X0 + 1400, Y0 + 400, X0 + 1500, Y0 + 500)])
    # the site lies wholly in the West HUC12; the mitigation site in the East HUC12
    new = mitigation_eligibility(mitigation, hucs=HUC12, site_hucs=[WEST], level="HUC12")
    redev = mitigation_eligibility(mitigation, hucs=HUC10, site_hucs=["0107000201"],
                                   level="HUC10")
    assert new[0]["eligible"] is False and new[0]["huc"] == EAST
    assert "Not eligible" in new[0]["reason"] and "§ 320-19 B(7)(d)" in new[0]["reason"]
    assert redev[0]["eligible"] is True and redev[0]["huc"] == "0107000201"
    assert "Eligible" in redev[0]["reason"] and redev[0]["section"] == "§ 320-19 B(8)(d)"


def test_mitigation_kinds_ids_and_straddling():
    mitigation = frame(
        {"name": ["pond", "swale", "straddle", "nowhere"]},
        [Point(X0 + 10, Y0 + 10), LineString([(X0 + 20, Y0 + 20), (X0 + 50, Y0 + 20)]),
         box(X0 + 900, Y0, X0 + 1300, Y0 + 100), Point(X0 - 100, Y0)])
    rows = mitigation_eligibility(mitigation, hucs=HUC12, site_hucs=[WEST], level="HUC12")
    assert [r["id"] for r in rows] == ["pond", "swale", "straddle", "nowhere"]
    assert [r["eligible"] for r in rows] == [True, True, False, False]
    assert rows[2]["huc"] == EAST and rows[2]["huc_share"] == 0.75
    assert "75.0% of it" in rows[2]["reason"]
    assert rows[3]["huc"] is None and "outside every HUC12" in rows[3]["reason"]


def test_mitigation_id_comes_from_an_id_field_before_the_name():
    mitigation = frame({"NAME": ["Rain garden"], "MIT_ID": ["MIT-7"]}, [Point(X0 + 10, Y0 + 10)])
    rows = mitigation_eligibility(mitigation, hucs=HUC12, site_hucs=[WEST], level="HUC12")
    assert rows[0]["id"] == "MIT-7"


def test_mitigation_without_a_huc_layer_cannot_be_eligible():
    mitigation = frame(geoms=[Point(X0 + 10, Y0 + 10)])
    rows = mitigation_eligibility(mitigation, hucs=None, site_hucs=[], level="HUC10")
    assert rows[0]["id"] == "1" and rows[0]["eligible"] is False
    assert "No HUC10 layer" in rows[0]["reason"]


def test_huc_codes_stored_as_numbers_get_their_leading_zero_back():
    numeric = HUC12.assign(huc=[10700020101, 10700020102, 10700030101])
    site = frame(geoms=[box(X0 + 10, Y0 + 10, X0 + 20, Y0 + 20)])
    assert watershed_shares(site, huc12=numeric, huc10=None)["huc12"][0]["huc"] == WEST
    mitigation = frame(geoms=[Point(X0 + 1500, Y0 + 500)])
    rows = mitigation_eligibility(mitigation, hucs=numeric, site_hucs=[WEST], level="HUC12")
    assert rows[0]["huc"] == EAST and rows[0]["eligible"] is False


def test_docstring_examples_run():
    import doctest

    import swm_gis.rules.watersheds as module

    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0

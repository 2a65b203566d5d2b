"""Permit trigger: union area of the disturbance, common plan, exemptions (Chapter 213 Art. II)."""

from __future__ import annotations

from pathlib import Path

import geopandas as gpd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import Point, box

from swm_gis.config.town import Rules
from swm_gis.errors import CrsError, EmptyLayerError, GeometryError, SwmGisError
from swm_gis.rules.citations import default_citations
from swm_gis.rules.disturbance import disturbance_trigger

#: the default profile's exemptions: id -> (citation, activity)
EXEMPTIONS = default_citations().exemption_list

FT = 0.3048  # metres per foot: EPSG:26986 is in metres
X0, Y0 = 238_000.0, 918_000.0
REPO = Path(__file__).resolve().parents[2]
RULES = Rules()
#: EPSG:26986's projection in international feet
FT_CRS = ("+proj=lcc +lat_0=41 +lon_0=-71.5 +lat_1=42.6833333333333 +lat_2=41.7166666666667 "
          "+x_0=200000 +y_0=750000 +ellps=GRS80 +units=ft +no_defs")


def ft_box(x_ft: float, y_ft: float, w_ft: float, h_ft: float):
    """A box given in feet from the origin (X0, Y0), in EPSG:26986 metres."""
    return box(X0 + x_ft * FT, Y0 + y_ft * FT, X0 + (x_ft + w_ft) * FT, Y0 + (y_ft + h_ft) * FT)


def frame(*geoms, crs: str | None = "EPSG:26986") -> gpd.GeoDataFrame:
    return gpd.GeoDataFrame(geometry=list(geoms), crs=crs)


def test_200_by_218_ft_site_is_43600_sqft_and_needs_a_permit():
    r = disturbance_trigger(frame(ft_box(0, 0, 200, 218)), rules=RULES)
    assert r["area_sqft"] == pytest.approx(43_600.0, abs=0.01)
    assert r["area_acres"] == pytest.approx(43_600 / 43_560, abs=1e-4)
    assert r["permit_required"] is True
    assert r["common_plan_area_sqft"] is None and r["exemption"] is None
    assert "Chapter 213, Article II" in r["section"]
    assert any("43,600.0 sq ft" in x and "reaches" in x for x in r["reasons"])


def test_overlapping_pieces_count_once_union_43500_is_below_the_trigger():
    # two 200 x 150 ft pieces overlapping by 200 x 82.5 ft: sum 60,000 sq ft, union 43,500 sq ft
    a, b = ft_box(0, 0, 200, 150), ft_box(0, 67.5, 200, 150)
    assert (a.area + b.area) / FT**2 > 43_560
    r = disturbance_trigger(frame(a, b), rules=RULES)
    assert r["area_sqft"] == pytest.approx(43_500.0, abs=0.01)
    assert r["disturbs_trigger_area"] is False
    # below an acre with no common plan given: it depends on the plan, so neither yes nor no
    assert r["permit_required"] is None
    assert any("is below" in x for x in r["reasons"])
    assert any("no larger common plan of development was given" in x for x in r["reasons"])


def test_sub_acre_site_in_a_sub_acre_common_plan_is_not_required():
    r = disturbance_trigger(frame(ft_box(0, 0, 100, 100)),
                            common_plan=frame(ft_box(0, 0, 200, 200)), rules=RULES)
    assert r["common_plan_area_sqft"] == pytest.approx(40_000.0, abs=0.01)
    assert r["permit_required"] is False


def test_20000_sqft_lot_in_45000_sqft_common_plan_is_required():
    lot = ft_box(0, 0, 100, 200)  # 20,000 sq ft
    plan = frame(ft_box(0, 0, 225, 200))  # 45,000 sq ft, containing the lot
    r = disturbance_trigger(frame(lot), common_plan=plan, rules=RULES)
    assert r["area_sqft"] == pytest.approx(20_000.0, abs=0.01)
    assert r["common_plan_area_sqft"] == pytest.approx(45_000.0, abs=0.01)
    assert r["permit_required"] is True
    assert any("larger common plan" in x for x in r["reasons"])


def test_common_plan_area_is_the_union_of_site_and_plan():
    # the plan lists only the other lots; the site's own 20,000 sq ft is added once
    lot = ft_box(0, 0, 100, 200)
    others = frame(ft_box(100, 0, 100, 200), ft_box(50, 0, 100, 200))  # overlap each other + lot
    r = disturbance_trigger(frame(lot), common_plan=others, rules=RULES)
    assert r["common_plan_area_sqft"] == pytest.approx(40_000.0, abs=0.01)
    assert r["permit_required"] is False


def test_exactly_one_acre_is_required_threshold_inclusive():
    side = 43_560 ** 0.5
    r = disturbance_trigger(frame(ft_box(0, 0, side, side)), rules=RULES)
    assert r["area_sqft"] == pytest.approx(43_560.0, abs=0.01)
    assert r["permit_required"] is True


@pytest.mark.parametrize("name", list(EXEMPTIONS))
def test_claimed_exemption_leaves_it_to_the_commission_and_says_so(name):
    r = disturbance_trigger(frame(ft_box(0, 0, 300, 300)), exemptions=[name], rules=RULES)
    assert r["disturbs_trigger_area"] is True
    assert r["permit_required"] is None  # the applicant's claim; the Commission decides
    assert r["exemption"][0]["name"] == name
    assert r["exemption"][0]["claimed_by"] == "applicant"
    assert r["exemption"][0]["section"].startswith("Bylaw 213-16B(")
    assert any("applicant's claim" in x for x in r["reasons"])
    assert "213-16B" in r["section"]


def test_unknown_exemption_lists_the_valid_names():
    with pytest.raises(SwmGisError, match="npdes-waived, agriculture, landscaping, fencing, "
                                          "utilities, wetlands-order"):
        disturbance_trigger(frame(ft_box(0, 0, 10, 10)), exemptions=["golf"], rules=RULES)


def test_area_in_us_survey_feet_crs_is_converted_to_international_feet():
    site = frame(ft_box(0, 0, 200, 218)).to_crs("EPSG:2249")  # MA Mainland, US survey feet
    r = disturbance_trigger(site, rules=RULES)
    assert r["area_sqft"] == pytest.approx(43_600.0, abs=0.05)


def test_input_frame_is_not_modified():
    site = frame(ft_box(0, 0, 200, 218), ft_box(10, 10, 5, 5))
    before = site.copy()
    disturbance_trigger(site, rules=RULES)
    assert site.geom_equals(before).all() and len(site) == 2


@pytest.mark.parametrize(
    ("site", "error", "message"),
    [
        (frame(crs="EPSG:26986"), EmptyLayerError, "has no polygons"),
        (frame(Point(X0, Y0)), GeometryError, "holds Point geometry"),
        (frame(ft_box(0, 0, 10, 10), crs=None), CrsError, "no coordinate reference system"),
        (frame(box(-71, 42, -70.99, 42.01), crs="EPSG:4326"), CrsError, "geographic CRS"),
    ],
    ids=["no-polygons", "point", "no-crs", "geographic"],
)
def test_bad_sites_are_refused_with_a_clear_message(site, error, message):
    with pytest.raises(error, match=message):
        disturbance_trigger(site, rules=RULES)


# --------------------------------------------------------------------------- properties
dims = st.floats(min_value=1, max_value=1_000, allow_nan=False)


@settings(max_examples=40, deadline=None)
@given(w=dims, h=dims, cuts=st.lists(st.floats(0.01, 0.99), min_size=1, max_size=5))
def test_area_is_invariant_to_splitting_a_polygon(w, h, cuts):
    whole = ft_box(0, 0, w, h)
    xs = sorted({0.0, *cuts, 1.0})
    pieces = [ft_box(w * a, 0, w * (b - a), h) for a, b in zip(xs, xs[1:], strict=False)]
    # plus a duplicate of the first piece: overlaps never count twice
    split = disturbance_trigger(frame(*pieces, pieces[0]), rules=RULES)
    one = disturbance_trigger(frame(whole), rules=RULES)
    assert split["area_sqft"] == pytest.approx(one["area_sqft"], rel=1e-9, abs=0.01)
    assert split["permit_required"] == one["permit_required"]


@settings(max_examples=25, deadline=None)
@given(w=dims, h=dims, crs=st.sampled_from(["EPSG:2249", "EPSG:6492", "EPSG:2805", FT_CRS]))
def test_area_is_invariant_to_reprojecting_between_ma_mainland_crss(w, h, crs):
    # Massachusetts Mainland in US survey feet, in international feet and on other NAD83
    # realisations: the same projection, so the area in square feet must not change
    site = frame(ft_box(0, 0, w, h))
    a = disturbance_trigger(site, rules=RULES)["area_sqft"]
    b = disturbance_trigger(site.to_crs(crs), rules=RULES)["area_sqft"]
    assert b == pytest.approx(a, rel=1e-5, abs=0.02)


@settings(max_examples=60, deadline=None)
@given(a=st.floats(1, 200_000), b=st.floats(1, 200_000))
def test_trigger_is_monotonic_in_area(a, b):
    small, large = sorted((a, b))
    r_small = disturbance_trigger(frame(ft_box(0, 0, small / 100, 100)), rules=RULES)
    r_large = disturbance_trigger(frame(ft_box(0, 0, large / 100, 100)), rules=RULES)
    assert r_small["area_sqft"] <= r_large["area_sqft"] + 1e-6
    # with no common plan given: required (True) from one acre, undecided (None) below it
    assert r_small["disturbs_trigger_area"] <= r_large["disturbs_trigger_area"]
    for r in (r_small, r_large):
        assert r["permit_required"] is (True if r["disturbs_trigger_area"] else None)


def test_exemption_6_is_quoted_in_full_with_its_compliance_condition():
    activity = EXEMPTIONS["wetlands-order"][1]
    assert ("and demonstrate compliance with the Massachusetts Stormwater Management Handbook "
            "and comply with these rules and regulations as reflected in an order of conditions "
            "issued by the Conservation Commission") in activity
    text = " ".join((REPO.parent / "shared" / "regulations" / "lynnfield-chapter-320.txt")
                    .read_text(encoding="utf-8").split())
    assert activity[0].upper() + activity[1:] in text


def test_docstring_examples_run():
    import doctest

    import swm_gis.rules.disturbance as module

    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


def test_a_regulation_that_does_not_count_the_common_plan_decides_on_the_site_alone():
    """Westwood counts the project alone (its profile's applicability.common_plan = false)."""
    westwood = Rules(trigger_sqft=21_780.0)
    site = frame(ft_box(0, 0, 100, 100))          # 100 x 100 = 10,000 sq ft
    plan = frame(ft_box(0, 0, 250, 200))          # 250 x 200 = 50,000 sq ft >= 21,780
    counted = disturbance_trigger(site, common_plan=plan, rules=westwood)
    alone = disturbance_trigger(site, common_plan=plan, rules=westwood, counts_common_plan=False)
    assert (counted["permit_required"], "counts_common_plan" in counted) == (True, False)
    assert (alone["permit_required"], alone["counts_common_plan"]) == (False, False)
    assert alone["common_plan_area_sqft"] == pytest.approx(50_000.0, abs=0.01)
    # no plan given: not "conditional on a common plan" but no permit
    assert disturbance_trigger(site, rules=westwood, counts_common_plan=False
                               )["permit_required"] is False
    assert disturbance_trigger(site, rules=westwood)["permit_required"] is None


def test_a_trigger_other_than_one_acre_is_never_called_an_acre():
    """A profile's 20,000 sq ft trigger: the reasons name it in square feet, never "one acre"
    (Lynnfield's 43,560 sq ft keeps its "(one acre)")."""
    rules = Rules(trigger_sqft=20_000.0)
    # site 150 ft x 100 ft = 15,000 sq ft (below); its plan 200 ft x 120 ft = 24,000 sq ft
    site = frame(ft_box(0, 0, 150, 100))
    plan = frame(ft_box(0, 0, 200, 120))
    r = disturbance_trigger(site, common_plan=plan, rules=rules)
    assert r["permit_required"] is True
    assert r["reasons"][0].endswith("which is below the 20,000 sq ft permit trigger of "
                                    + r["section"] + ".")
    assert ("which reaches 20,000 sq ft; a site under 20,000 sq ft in a plan that disturbs "
            "20,000 sq ft or more needs a permit") in r["reasons"][1]
    below = disturbance_trigger(site, rules=rules)["reasons"]
    assert below[-1].startswith("The site disturbs less than 20,000 sq ft and no larger")
    assert not [x for x in r["reasons"] + below if "one acre" in x or "an acre" in x]
    acre = disturbance_trigger(frame(ft_box(0, 0, 200, 218)), rules=Rules())["reasons"][0]
    assert "43,560 sq ft (one acre) permit trigger" in acre

"""The tier a project reaches (swm_gis.rules.tiers) under each bundled profile, at and around
each threshold, checked by hand against the published figures."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from swm_gis.config.regulation import read_regulation
from swm_gis.errors import SwmGisError
from swm_gis.rules.tiers import ORDER, regulation_tier

WESTWOOD = read_regulation("westwood-ch350").versions[-1]
LYNNFIELD = read_regulation("lynnfield-ch320").versions[-1]
NORTH_ANDOVER = read_regulation("north-andover-ch250").versions[-1]
HALF_ACRE_SQFT = 43_560 / 2  # 21,780 sq ft


@pytest.mark.parametrize(("area_sqft", "tier"), [
    (4_999, "none"), (5_000, "administrative_review"),
    (HALF_ACRE_SQFT - 1, "administrative_review"), (HALF_ACRE_SQFT, "permit")])
def test_westwood_reviews_from_5000_sqft_and_permits_from_half_an_acre(area_sqft, tier):
    decision = regulation_tier(WESTWOOD, disturbed_area_sqft=area_sqft,
                               proposed_use="residential")
    assert decision.tier == tier


def test_westwood_a_3000_sqft_gas_station_reaches_the_permit_tier_whatever_its_size():
    decision = regulation_tier(WESTWOOD, disturbed_area_sqft=3_000, proposed_use="gas station")
    assert decision.tier == "permit" and decision.undecided == ()
    assert decision.citation == "Ch. 350, Art. III, applicability A(2)"
    met = [t for t in decision.tests if t.met]
    assert [(t.test, t.value) for t in met] == [("land_use", "gas station")]
    # the same use by its Massachusetts use code (334, gasoline service station)
    assert regulation_tier(WESTWOOD, disturbed_area_sqft=3_000, proposed_use="334").tier \
        == "permit"


def test_westwood_an_unmapped_use_leaves_the_permit_tier_undecided_never_no():
    decision = regulation_tier(WESTWOOD, disturbed_area_sqft=6_000, proposed_use="residential")
    assert decision.tier == "administrative_review" and decision.undecided == ("permit",)
    use = next(t for t in decision.tests if t.test == "land_use")
    assert use.met is None and "Auto fueling facilities" in use.reason
    assert regulation_tier(WESTWOOD, disturbed_area_sqft=6_000).undecided == ("permit",)


def test_each_test_carries_its_threshold_and_citation():
    decision = regulation_tier(WESTWOOD, disturbed_area_sqft=5_000, proposed_use="marina")
    area = [(t.tier, t.threshold, t.met, t.citation) for t in decision.tests
            if t.test == "disturbed_area"]
    assert area == [
        ("administrative_review", 5_000, True,
         "Ch. 350, Art. III, applicability A(1)"),
        ("permit", 21_780, False, "Ch. 350, Art. III, applicability A(2)")]
    assert decision.tier == "permit"  # marinas and boatyards are listed


@pytest.mark.parametrize(("area_sqft", "tier"), [(43_559, "none"), (43_560, "permit")])
def test_lynnfield_permits_at_one_acre(area_sqft, tier):
    assert regulation_tier(LYNNFIELD, disturbed_area_sqft=area_sqft).tier == tier


def test_lynnfield_counts_the_larger_common_plan():
    decision = regulation_tier(LYNNFIELD, disturbed_area_sqft=10_000,
                               common_plan_area_sqft=43_560)
    assert decision.tier == "permit"
    assert "site or its common plan" in decision.tests[0].reason
    assert decision.citation == "Bylaw ch. 213, Art. II (Ch. 320 applicability A)"


@pytest.mark.parametrize(("area_sqft", "tier"), [(43_560, "none"), (43_561, "permit")])
def test_north_andover_permits_only_over_one_acre_of_disturbance(area_sqft, tier):
    decision = regulation_tier(NORTH_ANDOVER, disturbed_area_sqft=area_sqft,
                               site_or_drainage_area_sqft=area_sqft, runoff_changed=False)
    assert decision.tier == tier and decision.undecided == ()


def test_north_andover_a_small_disturbance_in_a_one_acre_drainage_area_that_changes_runoff():
    def tier(runoff_changed, drainage_sqft=43_560):
        return regulation_tier(NORTH_ANDOVER, disturbed_area_sqft=2_000,
                               site_or_drainage_area_sqft=drainage_sqft,
                               runoff_changed=runoff_changed)
    assert tier(True).tier == "permit"
    assert (tier(False).tier, tier(False).undecided) == ("none", ())
    assert (tier(None).tier, tier(None).undecided) == ("none", ("permit",))
    assert (tier(True, 43_559).tier, tier(True, 43_559).undecided) == ("none", ())


def test_areas_must_be_finite_and_not_negative():
    with pytest.raises(SwmGisError, match="disturbed_area_sqft= -1"):
        regulation_tier(LYNNFIELD, disturbed_area_sqft=-1)
    with pytest.raises(SwmGisError, match="nan"):
        regulation_tier(LYNNFIELD, disturbed_area_sqft=float("nan"))


@given(st.floats(0, 200_000), st.floats(0, 200_000))
def test_more_disturbance_never_lowers_the_tier(a, b):
    low, high = sorted((a, b))
    for version in (WESTWOOD, LYNNFIELD, NORTH_ANDOVER):
        lower = regulation_tier(version, disturbed_area_sqft=low, proposed_use="residential")
        higher = regulation_tier(version, disturbed_area_sqft=high, proposed_use="residential")
        assert ORDER.index(lower.tier) <= ORDER.index(higher.tier)


def test_the_ms4_condition_is_named_and_decides_when_known():
    unknown = regulation_tier(LYNNFIELD, disturbed_area_sqft=50_000)
    assert unknown.tier == "permit"
    assert unknown.conditions == (
        "only if the disturbed land drains to the MS4 (Chapter 320, applicability A); "
        "not known",)
    assert regulation_tier(LYNNFIELD, disturbed_area_sqft=50_000, drains_to_ms4=True
                           ).conditions == ()
    assert regulation_tier(LYNNFIELD, disturbed_area_sqft=50_000, drains_to_ms4=False
                           ).tier == "none"
    # North Andover's applicability as read has no MS4 condition
    assert regulation_tier(NORTH_ANDOVER, disturbed_area_sqft=50_000, drains_to_ms4=False
                           ).tier == "permit"

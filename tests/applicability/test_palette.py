"""The applicability palette: one distinct colour per class, told apart in greyscale too."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from swm_gis.applicability import palette
from swm_gis.applicability.run import all_classes

#: 8-bit rounding moves L* by well under one unit.
ROUNDING_L = 0.6


def checked_classes() -> list[str]:
    """The classes a fully configured town can show: every check ran (32 parcel classes, and 24
    whose drainage leaves the town's data), then right-of-way, water and a parcel outside the
    town. A map's style holds
    only the classes present in it."""
    return [c for c in all_classes() if "not checked" not in c]


def _min_step(colours: list[str]) -> float:
    values = sorted(palette.greyscale_lightness(c) for c in colours)
    return min((b - a for a, b in itertools.pairwise(values)), default=100.0)


def test_the_sample_towns_seventeen_classes_get_seventeen_colours():
    """Before: 17 classes, 14 fills (#12a612, #37bf37, #99f799 each used twice)."""
    classes = checked_classes()[:17]
    colours = palette.class_colours(classes)
    assert len(set(colours.values())) == len(classes) == 17
    step = (palette.L_LIGHT - palette.L_DARK) / 16  # 4.375 L* units between neighbours
    assert _min_step(list(colours.values())) >= step - ROUNDING_L


def test_every_possible_class_with_right_of_way_and_water_is_distinct():
    classes = checked_classes()
    assert classes[-3:] == ["right-of-way", "water",
                            "outside the town; not subject to its Chapter 320"]
    colours = palette.class_colours(classes)
    assert len(classes) == 59 and len(set(colours.values())) == 59
    assert _min_step(list(colours.values())) >= (92 - 22) / 58 - ROUNDING_L


def test_legend_neighbours_are_far_apart_in_grey():
    """The ramp is dealt from its dark and light halves in turn: the first (most constrained)
    class is the darkest, and any two neighbours differ by about half the range."""
    colours = list(palette.class_colours(checked_classes()).values())
    lightness = [palette.greyscale_lightness(c) for c in colours]
    assert lightness[0] == pytest.approx(palette.L_DARK, abs=ROUNDING_L)
    assert max(lightness) == pytest.approx(palette.L_LIGHT, abs=ROUNDING_L)
    step = (palette.L_LIGHT - palette.L_DARK) / (len(colours) - 1)
    gaps = [abs(b - a) for a, b in itertools.pairwise(lightness)]
    assert min(gaps) >= 28 * step - ROUNDING_L  # 58 classes: 28 or 29 steps apart


@given(st.integers(min_value=2, max_value=40))
def test_legend_lightness_is_a_permutation_with_wide_neighbour_gaps(n):
    values = palette.legend_lightness(n)
    assert sorted(values) == pytest.approx(palette.lightness_ramp(n))
    step = (palette.L_LIGHT - palette.L_DARK) / (n - 1)
    gaps = [abs(b - a) for a, b in itertools.pairwise(values)]
    assert min(gaps) >= (n // 2 - 1) * step - 1e-9 and values[0] == palette.L_DARK


def test_size_groups_define_large_parcel():
    groups = palette.legend_groups(checked_classes())
    assert list(groups)[:2] == ["large parcel", "small parcel"] and "not a parcel" in groups
    assert palette.size_label("large parcel") == (
        "Large parcel: 1 acre (43,560 sq ft) or more, can reach the permit trigger alone")
    assert palette.size_label("small parcel", trigger_sqft=21_780) == (
        "Small parcel: under 0.5 acres (21,780 sq ft)")


def test_right_of_way_is_grey_and_water_is_blue():
    colours = palette.class_colours(["large parcel; habitat constraint", "right-of-way",
                                     "water"])
    r, g, b = (int(colours["right-of-way"][i:i + 2], 16) for i in (1, 3, 5))
    assert r == g == b
    r, g, b = (int(colours["water"][i:i + 2], 16) for i in (1, 3, 5))
    assert b > g > r
    # an impaired-water or ORW class is a parcel class, not water
    hue = palette.class_colours(["large parcel; impaired-water constraint"])
    assert hue != palette.class_colours(["water"])


@given(st.integers(min_value=1, max_value=24))
def test_any_number_of_classes_gets_distinct_colours_and_greys(n):
    classes = [f"class {i}" for i in range(n)]
    colours = palette.class_colours(classes)
    assert len(set(colours.values())) == n
    if n > 1:
        assert _min_step(list(colours.values())) >= (92 - 22) / (n - 1) - ROUNDING_L


@given(st.floats(min_value=0, max_value=100), st.floats(min_value=0, max_value=150),
       st.floats(min_value=0, max_value=360))
def test_gamut_fitting_keeps_the_lightness(lightness, chroma, hue):
    colour = palette.lch_to_hex(lightness, chroma, hue)
    assert len(colour) == 7 and colour.startswith("#")
    assert palette.greyscale_lightness(colour) == pytest.approx(lightness, abs=ROUNDING_L)


def test_duplicates_and_empty_input():
    assert palette.class_colours([]) == {}
    assert list(palette.class_colours(["a", "a", "b"])) == ["a", "b"]
    assert palette.lightness_ramp(0) == []


def test_two_level_legend_groups_by_parcel_size():
    groups = palette.legend_groups(checked_classes())
    assert list(groups) == ["large parcel", "small parcel", "not a parcel", "outside the town"]
    assert len(groups["large parcel"]) == len(groups["small parcel"]) == 16 + 12
    assert groups["not a parcel"] == ["right-of-way", "water"]
    assert groups["outside the town"] == ["not subject to its Chapter 320"]

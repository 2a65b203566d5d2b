"""The map key (issue 38): one look per class, the same whatever classes a town has; colour-blind
safe fills, legible marks, a short key; the QGIS style is the key table."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from swm_gis.applicability import palette
from swm_gis.applicability.classify import class_name
from swm_gis.applicability.overlays import (
    OUTSIDE_CLASS,
    OUTSIDE_PREFIX,
    RIGHT_OF_WAY_CLASS,
    WATER_CLASS,
    outside_class,
)
from swm_gis.applicability.run import all_classes
from swm_gis.applicability.style import applicability_qml, style_classes

CLASSES = all_classes()
#: Colour-vision deficiencies simulated (colorspacious, Machado et al. 2009), at full severity.
CVD = ("deuteranomaly", "protanomaly", "tritanomaly")


# --------------------------------------------------------------------------- the fixed order
@pytest.mark.parametrize(("found", "fill", "marks"), [
    # ORW > impaired water > habitat > floodplain, whatever order the class names them in
    (["habitat", "floodplain", "ORW", "impaired-water"], "orw",
     ("impaired-water", "habitat", "floodplain")),
    (["habitat", "floodplain", "impaired-water"], "impaired-water", ("habitat", "floodplain")),
    (["habitat", "floodplain"], "habitat", ("floodplain",)),
    (["floodplain"], "floodplain", ()),
    (["ORW"], "orw", ()),
    ([], "none", ()),
], ids=["all-four", "no-orw", "habitat-first", "floodplain", "orw", "none"])
def test_colour_is_the_strongest_constraint_and_patterns_the_others(found, fill, marks):
    for large in (True, False):
        look = palette.class_look(class_name(large, found))
        assert look == palette.Look(fill, marks, large)


def test_not_checked_is_its_own_colour_and_pattern():
    nothing = palette.class_look(class_name(False, [], ["NHESP"]))
    assert nothing == palette.Look("not-checked", ("not-checked",), False)
    # the drainage leaving the town's data is "not determined": the same pattern
    left = palette.class_look(class_name(True, ["floodplain"], leaves=True))
    assert left == palette.Look("floodplain", ("not-checked",), True)
    assert palette.class_look(class_name(False, [])) == palette.Look("none", (), False)
    colours = palette.fill_colours()
    assert colours["not-checked"] != colours["none"]
    # a class no classification writes (an old file's) does not claim "none"
    assert palette.class_look("small parcel; something else").fill == "not-checked"


def test_special_classes_are_the_overlay_constants():
    table = palette.legend_table()
    assert {f["class"] for f in table["fill"] if "class" in f} == {
        RIGHT_OF_WAY_CLASS, WATER_CLASS}
    # the outside class names the regulation applied: the key draws it by its prefix
    assert [f["class_prefix"] for f in table["fill"] if "class_prefix" in f] == [OUTSIDE_PREFIX]
    assert OUTSIDE_CLASS == "outside the town; not subject to its Chapter 320"  # the default's
    for name, key in ((RIGHT_OF_WAY_CLASS, "right-of-way"), (WATER_CLASS, "water"),
                      (OUTSIDE_CLASS, "outside"), (outside_class("Chapter 9"), "outside")):
        assert palette.class_look(name) == palette.Look(key, (), False)


def test_every_class_has_a_look_from_the_table():
    fills, marks = set(palette.fill_colours()), set(palette.mark_styles())
    assert len(CLASSES) == len(set(CLASSES)) > 100
    for name in CLASSES:
        look = palette.class_look(name)
        assert look.fill in fills and set(look.marks) <= marks, name
        assert len(set(look.marks)) == len(look.marks)


# --------------------------------------------------------------------------- same in every town
@given(st.sets(st.sampled_from(CLASSES), min_size=1, max_size=40),
       st.sets(st.sampled_from(CLASSES), min_size=1, max_size=40))
def test_a_class_looks_the_same_whatever_other_classes_a_town_has(town_a, town_b):
    a, b = sorted(town_a), sorted(town_b)

    def looks(classes):
        key = palette.key_entries(classes)
        by = {(e["kind"], e["key"]): e for e in key}
        out = {}
        for name in classes:
            look = palette.class_look(name)
            out[name] = (by[("fill", look.fill)]["colour"],
                         tuple(str(by[("mark", m)]["pattern"]) for m in look.marks),
                         ("outline", "large") in by and look.large)
        return out, key

    la, ka = looks(a)
    lb, kb = looks(b)
    for name in set(a) & set(b):
        assert la[name] == lb[name], name
    # a key lists only what its classes use, numbered from 1 in the table's order
    for key in (ka, kb):
        assert [e["n"] for e in key] == list(range(1, len(key) + 1))
        order = [("fill", f["key"]) for f in palette.legend_table()["fill"]] + \
            [("mark", m["key"]) for m in palette.legend_table()["mark"]] + [("outline", "large")]
        ranks = [order.index((e["kind"], e["key"])) for e in key]
        assert ranks == sorted(ranks)


def test_key_entries_count_parcels_and_stay_short():
    counts = {"large parcel; habitat and floodplain constraints": 3, "water": 2,
              "small parcel; floodplain constraint": 5}
    key = palette.key_entries(list(counts), counts=counts)
    # fills: habitat (3), floodplain (5), water (2); marks: floodplain (3); outline (3)
    assert [(e["kind"], e["key"], e["parcels"]) for e in key] == [
        ("fill", "habitat", 3), ("fill", "floodplain", 5), ("fill", "water", 2),
        ("mark", "floodplain", 3), ("outline", "large", 3)]
    assert key[-1]["label"].startswith("Large parcel: 1 acre (43,560 sq ft) or more")
    # every class the map can show: 9 fills + 4 patterns + 1 outline, against 507 classes
    assert len(palette.key_entries(CLASSES)) == 14 and len(CLASSES) == 507


# --------------------------------------------------------------------------- colour and contrast
def _srgb(colour: str) -> np.ndarray:
    return np.array([int(colour[i:i + 2], 16) for i in (1, 3, 5)]) / 255.0


def test_fills_stay_apart_under_colour_blindness_simulations():
    """CAM02-UCS distance (colorspacious) >= 10 between any two fills, for normal vision and
    under simulated deuteranomaly, protanomaly and tritanomaly at full severity."""
    colorspacious = pytest.importorskip("colorspacious")  # a dev extra (pyproject)
    fills = palette.fill_colours()
    assert len(fills) == 9
    worst = 100.0
    for cvd in (None, *CVD):
        space = "sRGB1" if cvd is None else {"name": "sRGB1+CVD", "cvd_type": cvd,
                                             "severity": 100}
        seen = {k: np.clip(colorspacious.cspace_convert(_srgb(v), space, "sRGB1"), 0, 1)
                for k, v in fills.items()}
        for (ka, a), (kb, b) in itertools.combinations(seen.items(), 2):
            d = colorspacious.deltaE(a, b, input_space="sRGB1", uniform_space="CAM02-UCS")
            assert d >= 10.0, (cvd, ka, kb, d)
            worst = min(worst, d)
    assert worst < 12.0  # the closest pair (impaired water / outside under tritanomaly): 11.0


def test_marks_and_swatch_text_keep_their_contrast():
    fills = palette.fill_colours()
    for name in CLASSES:
        look = palette.class_look(name)
        for mark in look.marks:  # a pattern against the fill it is drawn on: 3:1 (WCAG 1.4.11)
            ink = palette.mark_styles()[mark]["colour"]
            assert palette.contrast_ratio(ink, fills[look.fill]) >= 3.0, (name, mark)
    for colour in fills.values():  # the black or white number on a swatch: 4.5:1
        assert palette.contrast_ratio(palette.ink(colour), colour) >= 4.5, colour
    # hand check, black on Okabe-Ito vermillion #D55E00: linear R = (0.8439)^2.4 = 0.6654,
    # G = (0.4015)^2.4 = 0.1119, B = 0; luminance 0.2126 * 0.6654 + 0.7152 * 0.1119 = 0.2215;
    # (0.2215 + 0.05) / (0 + 0.05) = 5.43
    assert palette.contrast_ratio("#000000", "#D55E00") == pytest.approx(5.43, abs=0.01)


# --------------------------------------------------------------------------- the QGIS style
def test_qgis_style_rules_are_the_key_table():
    classes = CLASSES[:60] + [RIGHT_OF_WAY_CLASS, WATER_CLASS]
    qml = applicability_qml(classes)
    looks = style_classes(qml)
    assert set(looks) == set(classes)
    colours, marks = palette.fill_colours(), palette.mark_styles()
    for name, look in looks.items():
        want = palette.class_look(name)
        assert (look["fill"], look["colour"]) == (want.fill, colours[want.fill]), name
        assert tuple(look["marks"]) == want.marks, name
        assert look["patterns"] == [
            "dots" if marks[m]["kind"] == "dots" else f"lines:{marks[m]['angle']:g}"
            for m in want.marks], name
        assert look["large"] == want.large
    # the legend is the key: one rule per entry, labelled with its number
    assert qml.count('label="1. ') == 1
    assert qml.count("<rule ") == len(palette.key_entries(classes)) + 3  # + 3 headings

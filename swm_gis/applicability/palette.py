"""The map key of the applicability classes: one look per class, the same in every town.

The key is data, ``swm_gis/tables/legend.toml``; this module reads it and gives every front end
(the QGIS style, :mod:`swm_gis.applicability.style`; the web map, :mod:`swm_gis.webmap.site`;
the printed map, :mod:`swm_gis.webmap.print_map`) the same answers:

* :func:`class_look` -- a class's look: its **fill** (the strongest constraint found, in the
  table's fixed order ORW > impaired water > habitat > floodplain; without one "none" when every
  check ran, "not-checked" otherwise), its **marks** (a pattern per further constraint, and the
  not-checked pattern wherever a check did not run or the drainage left the town's data) and its
  **outline** (heavy for a large parcel). It depends on the class alone, never on which other
  classes a town has, so "large parcel; floodplain constraint" looks the same in Cambridge and
  in the sample town.
* :func:`key_entries` -- the key of a map: one entry per fill, mark and outline its classes use,
  in the table's order, numbered from 1 (a dozen at most, not one per class).

>>> look = class_look("large parcel; habitat and ORW constraints; HUC not checked")
>>> look.fill, look.marks, look.large
('orw', ('habitat', 'not-checked'), True)
>>> class_look("small parcel; no mapped constraints")
Look(fill='none', marks=(), large=False)
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from itertools import combinations
from typing import Any

from swm_gis import formatting as fmt
from swm_gis.units import SQFT_PER_ACRE

#: Pixels per millimetre on screen (CSS: 96 px per inch): how the web map draws a mark's
#: spacing and width.
PX_PER_MM = 96 / 25.4


@dataclass(frozen=True)
class Look:
    """How a class is drawn: ``fill`` and ``marks`` are keys of the legend table's entries;
    ``large`` draws the heavy outline."""

    fill: str
    marks: tuple[str, ...]
    large: bool


@lru_cache(maxsize=1)
def legend_table() -> dict[str, Any]:
    """``swm_gis/tables/legend.toml``: ``order``, ``heading``, ``fill``, ``mark``, ``outline``."""
    text = resources.files("swm_gis").joinpath("tables/legend.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


def fill_colours() -> dict[str, str]:
    """Fill key -> ``#rrggbb``, in key order.

    >>> fill_colours()["orw"], fill_colours()["none"]
    ('#D55E00', '#FFFFFF')
    """
    return {f["key"]: f["colour"] for f in legend_table()["fill"]}


def mark_styles() -> dict[str, dict[str, Any]]:
    """Mark key -> its entry (``kind`` lines or dots, ``angle``, ``spacing_mm``, ``width_mm``,
    ``colour``, ``label``), in key order."""
    return {m["key"]: dict(m) for m in legend_table()["mark"]}


@lru_cache(maxsize=1)
def _class_facts() -> dict[str, tuple[bool, tuple[str, ...], bool]]:
    """Every class name :func:`~swm_gis.applicability.classify.class_name` can write -> (large,
    constraints found, something not checked or not determined). Built by asking it, so the
    wording lives in one place."""
    from swm_gis.applicability.classify import class_name
    from swm_gis.applicability.overlays import CHECKED, CONSTRAINTS

    names = [n for _, n in CONSTRAINTS]
    checks = [n for _, n in CHECKED]
    found_sets = [list(c) for r in range(len(names) + 1) for c in combinations(names, r)]
    out: dict[str, tuple[bool, tuple[str, ...], bool]] = {}
    for large in (True, False):
        for found in found_sets:
            for mask in range(1 << len(checks)):
                unchecked = [c for i, c in enumerate(checks) if mask >> i & 1]
                for leaves in (False, True):
                    out[class_name(large, found, unchecked, leaves)] = (
                        large, tuple(found), bool(unchecked) or leaves)
    return out


def class_look(name: str) -> Look:
    """The look of a screening class (see the module's description).

    A class no classification writes (an older file's) is drawn "not-checked": the key does not
    claim what it cannot read.

    >>> class_look("large parcel; floodplain constraint")
    Look(fill='floodplain', marks=(), large=True)
    >>> class_look("small parcel; no constraint found; NHESP not checked")
    Look(fill='not-checked', marks=('not-checked',), large=False)
    >>> class_look("water")
    Look(fill='water', marks=(), large=False)
    """
    table = legend_table()
    special = {f["class"]: f["key"] for f in table["fill"] if "class" in f}
    if name in special:
        return Look(special[name], (), False)
    for fill in table["fill"]:  # a class naming the regulation applied ("outside the town; ...")
        if "class_prefix" in fill and name.startswith(fill["class_prefix"]):
            return Look(fill["key"], (), False)
    facts = _class_facts().get(name)
    if facts is None:
        return Look("not-checked", ("not-checked",), False)
    large, found, unknown = facts
    by_constraint = {f["constraint"]: f["key"] for f in table["fill"] if "constraint" in f}
    marks_by = {m["constraint"]: m["key"] for m in table["mark"] if "constraint" in m}
    ranked = [c for c in table["order"] if c in found]
    if ranked:
        fill = by_constraint[ranked[0]]
        marks = [marks_by[c] for c in ranked[1:]]
    else:
        fill, marks = ("not-checked" if unknown else "none"), []
    if unknown:
        marks.append("not-checked")
    return Look(fill, tuple(marks), large)


def key_entries(classes: list[str], *, counts: dict[str, int] | None = None,
                trigger_sqft: float = SQFT_PER_ACRE) -> list[dict[str, Any]]:
    """The key of a map whose parcels have ``classes``: the fills, marks and outline they use.

    Each entry: ``n`` (its number, from 1, in the table's order), ``kind`` (``fill``, ``mark``
    or ``outline``), ``key``, ``label``, ``heading`` (the group it is listed under), ``colour``
    (a fill's colour; a mark's or outline's ink), ``ink`` (black or white, the legible text on
    the entry's swatch), ``pattern`` (a mark's style, else None) and ``parcels`` (how many
    parcels it applies to, from ``counts``: class -> parcels).

    >>> [(e["n"], e["kind"], e["key"]) for e in key_entries(
    ...     ["large parcel; habitat and floodplain constraints", "water"])]
    [(1, 'fill', 'habitat'), (2, 'fill', 'water'), (3, 'mark', 'floodplain'), \
(4, 'outline', 'large')]
    """
    table = legend_table()
    counts = counts or {}
    used: dict[tuple[str, str], int] = {}
    for name in dict.fromkeys(c for c in classes if c is not None):
        look, n = class_look(name), int(counts.get(name, 0))
        for part in [("fill", look.fill), *(("mark", m) for m in look.marks)] + (
                [("outline", "large")] if look.large else []):
            used[part] = used.get(part, 0) + n
    heads = table["heading"]
    rows = [("fill", f["key"], f["label"], f["colour"], None) for f in table["fill"]]
    rows += [("mark", m["key"], m["label"], m["colour"], _pattern(m)) for m in table["mark"]]
    out = table["outline"]
    rows.append(("outline", out["key"], size_label("large parcel", trigger_sqft=trigger_sqft),
                 out["colour"], None))
    entries = []
    for kind, key, label, colour, pattern in rows:
        if (kind, key) not in used:
            continue
        swatch = colour if kind == "fill" else "#FFFFFF"
        entries.append({"n": len(entries) + 1, "kind": kind, "key": key, "label": label,
                        "heading": heads[kind], "colour": colour, "ink": ink(swatch),
                        "pattern": pattern, "parcels": used[(kind, key)]})
    return entries


def _pattern(mark: dict[str, Any]) -> dict[str, Any]:
    return {"kind": mark["kind"], "angle": mark.get("angle", 0),
            "spacing_mm": mark["spacing_mm"], "width_mm": mark["width_mm"]}


def size_label(size: str, *, trigger_sqft: float = SQFT_PER_ACRE) -> str:
    """The key's words for a parcel size, with "large parcel" defined.

    >>> size_label("large parcel")
    'Large parcel: 1 acre (43,560 sq ft) or more, can reach the permit trigger alone'
    >>> size_label("small parcel", trigger_sqft=87_120)
    'Small parcel: under 2 acres (87,120 sq ft)'
    """
    acres = trigger_sqft / SQFT_PER_ACRE
    amount = f"{acres:g} acre{'' if acres == 1 else 's'} ({fmt.sqft(trigger_sqft)})"
    if size == "large parcel":
        return f"Large parcel: {amount} or more, can reach the permit trigger alone"
    if size == "small parcel":
        return f"Small parcel: under {amount}"
    return size[:1].upper() + size[1:]


# ---------------------------------------------------------------- contrast (WCAG 2)
def relative_luminance(colour: str) -> float:
    """WCAG 2 relative luminance of ``#rrggbb`` (0 black .. 1 white).

    >>> relative_luminance("#FFFFFF"), relative_luminance("#000000")
    (1.0, 0.0)
    """
    r, g, b = (_linear(int(colour[i:i + 2], 16) / 255) for i in (1, 3, 5))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two colours (1 .. 21).

    >>> round(contrast_ratio("#000000", "#FFFFFF"), 1)
    21.0
    """
    hi, lo = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def ink(colour: str) -> str:
    """Black or white, whichever reads better on ``colour``.

    >>> ink("#0072B2"), ink("#E69F00")
    ('#FFFFFF', '#000000')
    """
    return "#000000" if contrast_ratio(colour, "#000000") >= contrast_ratio(colour, "#FFFFFF") \
        else "#FFFFFF"


def _linear(v: float) -> float:
    return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4


__all__ = ["PX_PER_MM", "Look", "class_look", "contrast_ratio", "fill_colours", "ink",
           "key_entries", "legend_table", "mark_styles", "relative_luminance", "size_label"]

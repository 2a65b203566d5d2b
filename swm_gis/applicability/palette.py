"""Colours for the applicability legend: one distinct colour per class, readable in greyscale.

The legend is grouped (:func:`legend_groups`): parcel size first ("large parcel": one acre,
43,560 sq ft, or more, so the parcel alone can reach the permit trigger; :func:`size_label`),
then the constraints found and the checks that could not be made.

The applicability map has up to 32 classes (parcel size x four constraints) plus right-of-way,
water and not-checked classes; 17 appear on the sample town. A categorised style that recycles a
few greens (three pairs shared #12a612, #37bf37, #99f799) cannot be read, and nothing survives a
greyscale print. Here each class gets

* its own **lightness** (CIE L*), one of values evenly spaced from dark to light, so a greyscale
  copy still tells every class apart; the values are dealt out alternately from the dark and
  the light half of the ramp in legend order (:func:`legend_lightness`), so two neighbours in
  the legend differ by about half the range in grey (the first, most constrained class is the
  darkest), and
* its own **hue**, stepped by the golden angle so neighbours in the legend differ in colour too;
  right-of-way is neutral grey and water is blue, whatever their lightness.

Colours are computed in CIE LCh(ab) and brought into sRGB by lowering the chroma only, so the
lightness (what greyscale shows) is exact. Pure Python, no dependencies.

The QGIS style (:func:`swm_gis.applicability.style.applicability_qml`) draws the legend as a
tree: a rule per size group (:func:`legend_groups`, labelled by :func:`size_label`), the classes
under it by what follows the size, so labels stay short.

>>> class_colours(["large parcel; habitat constraint", "small parcel; no mapped constraints"])
{'large parcel; habitat constraint': '#393605', 'small parcel; no mapped constraints': '#ccedfe'}
"""

from __future__ import annotations

import math

from swm_gis import formatting as fmt
from swm_gis.units import SQFT_PER_ACRE

#: Lightest and darkest L* used: white labels stay legible on the darkest, the lightest is not
#: mistaken for the blank map.
L_DARK = 22.0
L_LIGHT = 92.0
GOLDEN_ANGLE_DEG = 137.508
START_HUE_DEG = 100.0  # an olive green first: a familiar "constraint" colour
MAX_CHROMA = 60.0
WATER_HUE_DEG = 250.0

_D65 = (0.95047, 1.0, 1.08883)


def lightness_ramp(n: int, *, dark: float = L_DARK, light: float = L_LIGHT) -> list[float]:
    """``n`` L* values evenly spaced from ``dark`` to ``light`` (one value: the middle).

    >>> lightness_ramp(3)
    [22.0, 57.0, 92.0]
    """
    if n <= 0:
        return []
    if n == 1:
        return [(dark + light) / 2]
    step = (light - dark) / (n - 1)
    return [dark + i * step for i in range(n)]


def lch_to_hex(lightness: float, chroma: float, hue_deg: float) -> str:
    """An sRGB colour of exactly this CIE L* and hue, with the chroma lowered until it fits.

    >>> lch_to_hex(50.0, 0.0, 0.0)
    '#777777'
    """
    c = max(0.0, chroma)
    for _ in range(60):
        rgb = _lab_to_srgb(lightness, c * math.cos(math.radians(hue_deg)),
                           c * math.sin(math.radians(hue_deg)))
        if all(-1e-9 <= v <= 1 + 1e-9 for v in rgb):
            return "#" + "".join(f"{round(min(1.0, max(0.0, v)) * 255):02x}" for v in rgb)
        c *= 0.9
    rgb = _lab_to_srgb(lightness, 0.0, 0.0)
    return "#" + "".join(f"{round(min(1.0, max(0.0, v)) * 255):02x}" for v in rgb)


def greyscale_lightness(colour: str) -> float:
    """The CIE L* of a ``#rrggbb`` colour: what a greyscale print or copy shows.

    >>> round(greyscale_lightness("#ffffff"), 6), round(greyscale_lightness("#000000"), 6)
    (100.0, 0.0)
    """
    r, g, b = (_linear(int(colour[i:i + 2], 16) / 255) for i in (1, 3, 5))
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    return 116 * _f(y) - 16


def legend_lightness(n: int, *, dark: float = L_DARK, light: float = L_LIGHT) -> list[float]:
    """``n`` distinct L* values for ``n`` legend entries in order: the ramp of
    :func:`lightness_ramp` dealt out alternately from its dark and its light half, so that
    neighbours differ by about half the range; the first entry is the darkest.

    >>> [round(v, 1) for v in legend_lightness(5)]
    [22.0, 74.5, 39.5, 92.0, 57.0]
    """
    ramp = lightness_ramp(n, dark=dark, light=light)
    half = (n + 1) // 2
    order = [i // 2 if i % 2 == 0 else half + i // 2 for i in range(n)]
    return [ramp[k] for k in order]


def size_label(size: str, *, trigger_sqft: float = SQFT_PER_ACRE) -> str:
    """The legend heading of a size group, with "large parcel" defined.

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


def class_colours(classes: list[str]) -> dict[str, str]:
    """One distinct colour per class, in the order given (first = darkest; neighbours far
    apart in lightness, :func:`legend_lightness`).

    Parameters
    ----------
    classes
        Class names in legend order (e.g. ``applicability.all_classes()`` filtered to those
        present). A name mentioning right-of-way is drawn neutral grey, one mentioning water
        blue; every class keeps its own lightness.

    Returns
    -------
    dict
        Class name -> ``#rrggbb``.
    """
    names = list(dict.fromkeys(classes))
    out: dict[str, str] = {}
    for i, (name, lightness) in enumerate(zip(names, legend_lightness(len(names)),
                                              strict=True)):
        hue, chroma = _hue_of(name, i)
        out[name] = lch_to_hex(lightness, chroma, hue)
    return out


def legend_groups(classes: list[str]) -> dict[str, list[str]]:
    """The classes under two-level legend headings: parcel size first, then the rest.

    ``"large parcel; habitat constraint"`` goes under ``"large parcel"`` as ``"habitat
    constraint"``; a class without ``"; "`` (right-of-way, water) under ``"not a parcel"``.

    >>> legend_groups(["large parcel; habitat constraint", "water", "small parcel; no mapped "
    ...                "constraints"])
    {'large parcel': ['habitat constraint'], 'not a parcel': ['water'], \
'small parcel': ['no mapped constraints']}
    """
    groups: dict[str, list[str]] = {}
    for name in dict.fromkeys(classes):
        head, sep, rest = name.partition("; ")
        if sep:
            groups.setdefault(head, []).append(rest)
        else:
            groups.setdefault("not a parcel", []).append(name)
    return groups


def _hue_of(name: str, index: int) -> tuple[float, float]:
    low = name.lower()
    if "right-of-way" in low or "right of way" in low or low.startswith("row"):
        return 0.0, 0.0
    if "water" in low and "impaired" not in low and "orw" not in low:
        return WATER_HUE_DEG, MAX_CHROMA
    return (START_HUE_DEG + index * GOLDEN_ANGLE_DEG) % 360.0, MAX_CHROMA


def _f(t: float) -> float:
    return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29


def _f_inv(t: float) -> float:
    return t ** 3 if t > 6 / 29 else 3 * (6 / 29) ** 2 * (t - 4 / 29)


def _linear(v: float) -> float:
    return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4


def _gamma(v: float) -> float:
    return 12.92 * v if v <= 0.0031308 else 1.055 * max(v, 0.0) ** (1 / 2.4) - 0.055


def _lab_to_srgb(lightness: float, a: float, b: float) -> tuple[float, float, float]:
    fy = (lightness + 16) / 116
    x, y, z = (_D65[0] * _f_inv(fy + a / 500), _D65[1] * _f_inv(fy),
               _D65[2] * _f_inv(fy - b / 200))
    r = 3.2404542 * x - 1.5371385 * y - 0.4985314 * z
    g = -0.9692660 * x + 1.8760108 * y + 0.0415560 * z
    bl = 0.0556434 * x - 0.2040259 * y + 1.0572252 * z
    return _gamma(r), _gamma(g), _gamma(bl)


__all__ = ["class_colours", "greyscale_lightness", "lch_to_hex", "legend_groups",
           "legend_lightness", "lightness_ramp", "size_label"]

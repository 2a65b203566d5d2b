"""QGIS styles stored with outputs (QML templates in this package).

:func:`applicability_qml` builds the categorised style of the applicability map from
``applicability.qml`` and the screening classes present in the output; colours say at a glance
which constraint dominates (habitat green, floodplain blue, ORW purple, impaired water orange),
deeper with more constraints; small parcels are paler than large ones (which can reach the
one-acre trigger); parcels with no mapped constraint are grey.
"""

from __future__ import annotations

import colorsys
import xml.etree.ElementTree as ET
from importlib import resources

#: Hue (degrees) of the first constraint named in a class.
_HUES = {"habitat": 120.0, "floodplain": 210.0, "ORW": 280.0, "impaired-water": 30.0}


def template(name: str) -> str:
    """Text of a QML template shipped in this package."""
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def class_colour(cls: str) -> tuple[int, int, int, int]:
    """RGBA fill colour of a screening class (see the module docstring).

    >>> class_colour("small parcel; no mapped constraints")
    (225, 225, 225, 255)
    """
    large = cls.startswith("large")
    rest = cls.split("; ", 1)[1] if "; " in cls else ""
    names = [n for n in _HUES if _mentions(rest, n)]
    if not names:
        grey = 170 if large else 225
        return (grey, grey, grey, 255)
    first = min(names, key=rest.index)
    sat = min(0.35 + 0.18 * len(names), 1.0) if large else 0.22 + 0.08 * len(names)
    val = max(0.85 - 0.1 * (len(names) - 1), 0.5) if large else 0.97
    r, g, b = colorsys.hsv_to_rgb(_HUES[first] / 360.0, sat, val)
    return (round(r * 255), round(g * 255), round(b * 255), 255)


def _mentions(text: str, name: str) -> bool:
    # "ORW" must not match inside another word; constraint names are separated by ", " / " and "
    words = text.replace(",", " ").split()
    return name in words


def applicability_qml(classes: list[str], *, field: str = "screening_class") -> str:
    """The QML of a categorised renderer on ``field`` with one category per class given.

    Classes are listed in legend order (:func:`swm_gis.applicability.all_classes`); unknown ones
    follow in the order given.
    """
    from swm_gis.applicability_classify import all_classes

    order = {c: i for i, c in enumerate(all_classes())}
    classes = sorted(dict.fromkeys(classes), key=lambda c: (order.get(c, len(order)), c))
    root = ET.fromstring(template("applicability.qml").split("-->", 1)[1])
    renderer = root.find("renderer-v2")
    assert renderer is not None
    renderer.set("attr", field)
    cats = renderer.find("categories")
    syms = renderer.find("symbols")
    for i, cls in enumerate(classes):
        ET.SubElement(cats, "category", {"render": "true", "symbol": str(i), "value": cls,
                                         "label": cls})
        syms.append(_fill_symbol(str(i), class_colour(cls), large=cls.startswith("large")))
    return "<!DOCTYPE qgis PUBLIC 'http://mrcc.com/qgis.dtd' 'SYSTEM'>\n" + ET.tostring(
        root, encoding="unicode")


def _fill_symbol(name: str, rgba: tuple[int, int, int, int], *, large: bool) -> ET.Element:
    sym = ET.Element("symbol", {"type": "fill", "name": name, "alpha": "1",
                                "clip_to_extent": "1", "force_rhr": "0"})
    layer = ET.SubElement(sym, "layer", {"class": "SimpleFill", "enabled": "1", "locked": "0",
                                         "pass": "0"})
    opts = ET.SubElement(layer, "Option", {"type": "Map"})
    props = {
        "color": ",".join(map(str, rgba)),
        "outline_color": "80,80,80,255" if large else "150,150,150,255",
        "outline_style": "solid",
        "outline_width": "0.26" if large else "0.1",
        "outline_width_unit": "MM",
        "style": "solid",
        "joinstyle": "bevel",
    }
    for k, v in props.items():
        ET.SubElement(opts, "Option", {"type": "QString", "name": k, "value": v})
    return sym


__all__ = ["applicability_qml", "class_colour", "template"]

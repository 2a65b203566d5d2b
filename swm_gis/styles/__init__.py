"""QGIS styles stored with outputs (QML templates in this package).

:func:`applicability_qml` builds the categorised style of the applicability map from
``applicability.qml`` and the screening classes present in the output, in legend order (large,
heavily constrained parcels first; right-of-way and water last). Each class gets its own colour
from :func:`swm_gis.applicability.palette.class_colours`: its own lightness (so a greyscale print
still tells the classes apart, the most constrained darkest) and its own hue; right-of-way is grey
and water blue. Large parcels (which can reach the one-acre trigger) have a darker, wider outline.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from importlib import resources


def template(name: str) -> str:
    """Text of a QML template shipped in this package."""
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def _rgba(colour: str) -> tuple[int, int, int, int]:
    """``#rrggbb`` -> (r, g, b, 255).

    >>> _rgba("#0a10ff")
    (10, 16, 255, 255)
    """
    return (int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16), 255)


def applicability_qml(classes: list[str], *, field: str = "screening_class") -> str:
    """The QML of a categorised renderer on ``field`` with one category per class given.

    Classes are listed in legend order (:func:`swm_gis.applicability.run.class_order`; unknown ones
    follow, sorted), each with its own fill colour
    (:func:`swm_gis.applicability.palette.class_colours`).
    """
    from swm_gis.applicability.classify import class_order
    from swm_gis.applicability.palette import class_colours

    classes = class_order(classes)
    colours = class_colours(classes)
    root = ET.fromstring(template("applicability.qml").split("-->", 1)[1])
    renderer = root.find("renderer-v2")
    assert renderer is not None
    renderer.set("attr", field)
    cats = renderer.find("categories")
    syms = renderer.find("symbols")
    for i, cls in enumerate(classes):
        ET.SubElement(cats, "category", {"render": "true", "symbol": str(i), "value": cls,
                                         "label": cls})
        syms.append(_fill_symbol(str(i), _rgba(colours[cls]), large=cls.startswith("large")))
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


__all__ = ["applicability_qml", "template"]

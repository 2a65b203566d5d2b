"""The QGIS style of the applicability map: its classes, colours and legend tree.

:func:`applicability_qml` builds the style from the ``applicability.qml`` template
(:mod:`swm_gis.styles`) and the screening classes present in the output: a rule-based renderer
whose legend is a tree, grouped by parcel size (:func:`swm_gis.applicability.palette.legend_groups`;
the heading defines "large parcel", :func:`swm_gis.applicability.palette.size_label`), each class
under its group labelled by what follows the size ("habitat and floodplain constraints"), in legend
order (heavily constrained first; right-of-way and water last, under "Not a parcel"). Each class
gets its own colour from :func:`swm_gis.applicability.palette.class_colours`: its own lightness,
neighbours far apart (so a greyscale print still tells the classes and their neighbours apart) and
its own hue; right-of-way is grey and water blue. Large parcels (which can reach the trigger) have
a darker, wider outline.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from swm_gis.applicability.classify import class_order
from swm_gis.applicability.palette import class_colours, legend_groups, size_label
from swm_gis.styles import template
from swm_gis.units import SQFT_PER_ACRE


def _rgba(colour: str) -> tuple[int, int, int, int]:
    """``#rrggbb`` -> (r, g, b, 255).

    >>> _rgba("#0a10ff")
    (10, 16, 255, 255)
    """
    return (int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16), 255)


def applicability_qml(classes: list[str], *, field: str = "screening_class",
                      trigger_sqft: float = SQFT_PER_ACRE) -> str:
    """The QML of a rule-based renderer on ``field``: one rule per size group (a legend
    heading), one child rule per class given.

    Classes are listed in legend order (:func:`swm_gis.applicability.classify.class_order`;
    unknown ones follow, sorted), each with its own fill colour
    (:func:`swm_gis.applicability.palette.class_colours`). ``trigger_sqft`` (the ``[rules]``
    trigger) defines "large parcel" in its heading.
    """
    classes = class_order(classes)
    colours = class_colours(classes)
    root = ET.fromstring(template("applicability.qml").split("-->", 1)[1])
    old = root.find("renderer-v2")
    assert old is not None
    renderer = ET.Element("renderer-v2", {"type": "RuleRenderer", "forceraster": "0",
                                          "symbollevels": "0", "enableorderby": "0",
                                          "referencescale": "-1"})
    root.insert(list(root).index(old), renderer)
    root.remove(old)
    rules = ET.SubElement(renderer, "rules", {"key": "{root}"})
    syms = ET.SubElement(renderer, "symbols")
    number = {cls: i for i, cls in enumerate(classes)}
    for g, (head, rests) in enumerate(legend_groups(classes).items()):
        names = [f"{head}; {r}" if head != "not a parcel" else r for r in rests]
        group = ET.SubElement(rules, "rule", {
            "key": f"{{group-{g}}}", "label": size_label(head, trigger_sqft=trigger_sqft),
            "filter": _group_filter(field, head, names)})
        for name, rest in zip(names, rests, strict=True):
            i = number[name]
            ET.SubElement(group, "rule", {"key": f"{{class-{i}}}", "symbol": str(i),
                                          "label": rest, "filter": _equals(field, name)})
            syms.append(_fill_symbol(str(i), _rgba(colours[name]),
                                     large=name.startswith("large")))
    return "<!DOCTYPE qgis PUBLIC 'http://mrcc.com/qgis.dtd' 'SYSTEM'>\n" + ET.tostring(
        root, encoding="unicode")


def _group_filter(field: str, head: str, names: list[str]) -> str:
    """A size group's rule: the class starts with its size ("large parcel; ..."); the other
    group lists its classes."""
    if head in ("large parcel", "small parcel"):
        return f'"{field}" LIKE \'{head}; %\''
    return " OR ".join(_equals(field, n) for n in names)


def _equals(field: str, value: str) -> str:
    """A QGIS expression ``"field" = 'value'`` (quotes doubled inside the literals).

    >>> print(_equals("screening_class", "drainage leaves the town's data"))
    "screening_class" = 'drainage leaves the town''s data'
    """
    name = field.replace('"', '""')
    text = value.replace("'", "''")
    return f'"{name}" = \'{text}\''


def style_classes(qml: str) -> dict[str, dict[str, str]]:
    """The classes of an applicability style: class -> {"group", "label", "colour"}, in
    legend order (for tests and for other outputs that show the same legend)."""
    root = ET.fromstring(qml.split("\n", 1)[1] if qml.startswith("<!DOCTYPE") else qml)
    renderer = root.find("renderer-v2")
    fills = {}
    for sym in renderer.find("symbols"):
        opt = {o.get("name"): o.get("value") for o in sym.iter("Option")}
        r, g, b, _ = (int(v) for v in opt["color"].split(","))
        fills[sym.get("name")] = f"#{r:02x}{g:02x}{b:02x}"
    out = {}
    for group in renderer.find("rules"):
        for rule in group:
            value = rule.get("filter").split(" = ", 1)[1][1:-1].replace("''", "'")
            out[value] = {"group": group.get("label"), "label": rule.get("label"),
                          "colour": fills[rule.get("symbol")]}
    return out


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



__all__ = ["applicability_qml", "style_classes"]

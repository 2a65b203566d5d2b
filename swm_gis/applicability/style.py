"""The QGIS style of the applicability map: the map key of :mod:`swm_gis.applicability.palette`.

:func:`applicability_qml` builds the style from the ``applicability.qml`` template
(:mod:`swm_gis.styles`) and the screening classes present in the output: a rule-based renderer
whose legend is the map key (``swm_gis/tables/legend.toml``), not one entry per class. Three
headings, each with the entries the classes use (numbered as on the web map and the printed map):

* **Colour**: one rule per fill (the strongest constraint found, in the fixed order ORW >
  impaired water > habitat > floodplain; "no mapped constraint"; "not every check ran";
  right-of-way, water, outside the town), a solid fill;
* **Pattern**: one rule per mark (a further constraint, or a check that did not run), a line or
  dot pattern drawn over the fill;
* **Outline**: the heavy outline of a large parcel (it can reach the permit trigger alone).

Every rule lists its classes (``"screening_class" IN (...)``): a parcel matches one colour rule
and the pattern and outline rules of its look, and QGIS draws them in that order.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

from swm_gis.applicability.classify import class_order
from swm_gis.applicability.palette import class_look, key_entries, legend_table, mark_styles
from swm_gis.styles import template
from swm_gis.units import SQFT_PER_ACRE

_UNIT_SCALE = "3x:0,0,0,0,0,0"


def _rgba(colour: str) -> str:
    """``#rrggbb`` -> ``"r,g,b,255"`` (QGIS's colour option).

    >>> _rgba("#0a10ff")
    '10,16,255,255'
    """
    return ",".join(str(int(colour[i:i + 2], 16)) for i in (1, 3, 5)) + ",255"


def applicability_qml(classes: list[str], *, field: str = "screening_class",
                      trigger_sqft: float = SQFT_PER_ACRE) -> str:
    """The QML of a rule-based renderer on ``field`` whose legend is the map key of ``classes``.

    Each key entry (:func:`swm_gis.applicability.palette.key_entries`) is a rule under its
    heading, labelled ``"N. label"`` and filtered to the classes whose look uses it
    (:func:`swm_gis.applicability.palette.class_look`). ``trigger_sqft`` (the ``[rules]``
    trigger) defines "large parcel" in the outline's label.
    """
    classes = class_order([c for c in classes if c is not None])
    looks = {c: class_look(c) for c in classes}
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
    groups: dict[str, ET.Element] = {}
    marks = mark_styles()
    for e in key_entries(classes, trigger_sqft=trigger_sqft):
        kind, key = e["kind"], e["key"]
        if kind not in groups:
            groups[kind] = ET.SubElement(rules, "rule", {"key": f"{{group-{kind}}}",
                                                         "label": e["heading"]})
        members = [c for c in classes if _uses(looks[c], kind, key)]
        name = str(len(syms))
        ET.SubElement(groups[kind], "rule", {"key": f"{{{kind}-{key}}}", "symbol": name,
                                             "label": f"{e['n']}. {e['label']}",
                                             "filter": _in(field, members)})
        if kind == "fill":
            syms.append(_fill_symbol(name, e["colour"]))
        elif kind == "mark":
            syms.append(_mark_symbol(name, marks[key]))
        else:
            syms.append(_outline_symbol(name))
    return "<!DOCTYPE qgis PUBLIC 'http://mrcc.com/qgis.dtd' 'SYSTEM'>\n" + ET.tostring(
        root, encoding="unicode")


def _uses(look: Any, kind: str, key: str) -> bool:
    if kind == "fill":
        return look.fill == key
    if kind == "mark":
        return key in look.marks
    return look.large


def _in(field: str, values: list[str]) -> str:
    """A QGIS expression ``"field" IN ('a', 'b')`` (quotes doubled inside the literals).

    >>> print(_in("screening_class", ["water", "drainage leaves the town's data"]))
    "screening_class" IN ('water', 'drainage leaves the town''s data')
    """
    name = field.replace('"', '""')
    texts = ", ".join("'" + v.replace("'", "''") + "'" for v in values)
    return f'"{name}" IN ({texts})'


_LITERAL = re.compile(r"'((?:[^']|'')*)'")


def style_classes(qml: str) -> dict[str, dict[str, Any]]:
    """The look of each class in an applicability style, read back from its rules (for tests and
    for other outputs that must show the same key): class -> ``{"fill": key, "colour": fill
    colour, "marks": [mark keys], "patterns": [pattern of each mark], "large": bool}``, where a
    pattern is ``"lines:ANGLE"`` or ``"dots"``."""
    root = ET.fromstring(qml.split("\n", 1)[1] if qml.startswith("<!DOCTYPE") else qml)
    renderer = root.find("renderer-v2")
    symbols = {sym.get("name"): sym for sym in renderer.find("symbols")}
    out: dict[str, dict[str, Any]] = {}
    for group in renderer.find("rules"):
        for rule in group:
            kind, _, key = rule.get("key").strip("{}").partition("-")
            sym = symbols[rule.get("symbol")]
            for value in (m.replace("''", "'") for m in _LITERAL.findall(rule.get("filter"))):
                look = out.setdefault(value, {"fill": None, "colour": None, "marks": [],
                                              "patterns": [], "large": False})
                if kind == "fill":
                    look["fill"], look["colour"] = key, _option(sym, "SimpleFill", "color")
                elif kind == "mark":
                    look["marks"].append(key)
                    look["patterns"].append(symbol_pattern(sym))
                else:
                    look["large"] = True
    return out


def symbol_pattern(sym: ET.Element) -> str:
    """``"lines:ANGLE"`` or ``"dots"``: the pattern a mark's QGIS symbol draws."""
    layer = sym.find("layer")
    if layer.get("class") == "PointPatternFill":
        return "dots"
    return f"lines:{float(_option(sym, 'LinePatternFill', 'angle')):g}"


def _option(sym: ET.Element, layer_class: str, name: str) -> str | None:
    for layer in sym.iter("layer"):
        if layer.get("class") == layer_class:
            for opt in layer.find("Option"):
                if opt.get("name") == name:
                    value = opt.get("value")
                    if name == "color":
                        r, g, b = (int(v) for v in value.split(",")[:3])
                        return f"#{r:02X}{g:02X}{b:02X}"
                    return value
    return None


def _symbol(name: str, kind: str = "fill") -> ET.Element:
    return ET.Element("symbol", {"type": kind, "name": name, "alpha": "1",
                                 "clip_to_extent": "1", "force_rhr": "0"})


def _layer(parent: ET.Element, cls: str, props: dict[str, str]) -> ET.Element:
    layer = ET.SubElement(parent, "layer", {"class": cls, "enabled": "1", "locked": "0",
                                            "pass": "0"})
    opts = ET.SubElement(layer, "Option", {"type": "Map"})
    for k, v in props.items():
        ET.SubElement(opts, "Option", {"type": "QString", "name": k, "value": v})
    return layer


def _fill_symbol(name: str, colour: str) -> ET.Element:
    out = legend_table()["outline"]
    sym = _symbol(name)
    _layer(sym, "SimpleFill", {
        "color": _rgba(colour), "outline_color": _rgba(out["thin_colour"]),
        "outline_style": "solid", "outline_width": str(out["thin_width_mm"]),
        "outline_width_unit": "MM", "style": "solid", "joinstyle": "bevel"})
    return sym


def _outline_symbol(name: str) -> ET.Element:
    out = legend_table()["outline"]
    sym = _symbol(name)
    _layer(sym, "SimpleFill", {
        "color": "0,0,0,0", "outline_color": _rgba(out["colour"]), "outline_style": "solid",
        "outline_width": str(out["width_mm"]), "outline_width_unit": "MM", "style": "no",
        "joinstyle": "bevel"})
    return sym


def _mark_symbol(name: str, mark: dict[str, Any]) -> ET.Element:
    """A fill symbol that draws only the mark's pattern (lines at an angle, or dots)."""
    sym = _symbol(name)
    ink, spacing, width = _rgba(mark["colour"]), str(mark["spacing_mm"]), str(mark["width_mm"])
    if mark["kind"] == "dots":
        layer = _layer(sym, "PointPatternFill", {
            "distance_x": spacing, "distance_x_unit": "MM", "distance_y": spacing,
            "distance_y_unit": "MM", "displacement_x": f"{mark['spacing_mm'] / 2:g}",
            "displacement_x_unit": "MM",
            "displacement_y": "0", "displacement_y_unit": "MM",
            "distance_x_map_unit_scale": _UNIT_SCALE, "distance_y_map_unit_scale": _UNIT_SCALE})
        sub = _symbol(f"@{name}@0", "marker")
        _layer(sub, "SimpleMarker", {
            "name": "circle", "color": ink, "size": width, "size_unit": "MM",
            "outline_style": "no", "outline_color": ink, "outline_width": "0",
            "angle": "0", "scale_method": "diameter", "vertical_anchor_point": "1",
            "horizontal_anchor_point": "1", "offset": "0,0", "offset_unit": "MM"})
    else:
        layer = _layer(sym, "LinePatternFill", {
            "angle": f"{mark['angle']:g}", "color": ink, "distance": spacing,
            "distance_unit": "MM", "line_width": width, "line_width_unit": "MM",
            "offset": "0", "offset_unit": "MM", "distance_map_unit_scale": _UNIT_SCALE,
            "line_width_map_unit_scale": _UNIT_SCALE})
        sub = _symbol(f"@{name}@0", "line")
        _layer(sub, "SimpleLine", {
            "line_color": ink, "line_style": "solid", "line_width": width,
            "line_width_unit": "MM", "capstyle": "flat", "joinstyle": "bevel",
            "offset": "0", "offset_unit": "MM", "use_custom_dash": "0"})
    layer.append(sub)
    return sym


__all__ = ["applicability_qml", "style_classes", "symbol_pattern"]

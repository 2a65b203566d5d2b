"""Reading a QGIS rule-based style back in real QGIS: its legend tree (shared by the
applicability QGIS and PostGIS tests)."""

from __future__ import annotations


def rule_classes(renderer) -> dict:
    """The rule-based style's legend: group label -> {class: child label}."""
    groups = {}
    for group in renderer.rootRule().children():
        assert group.symbol() is None  # a heading only
        kids = {}
        for rule in group.children():
            value = rule.filterExpression().split(" = ", 1)[1][1:-1].replace("''", "'")
            kids[value] = rule.label()
        groups[group.label()] = kids
    return groups

"""Reading the applicability style back in real QGIS: its legend (the map key) and the rules
each class matches (shared by the applicability QGIS and PostGIS tests)."""

from __future__ import annotations

import re

_LITERAL = re.compile(r"'((?:[^']|'')*)'")


def rule_classes(renderer) -> dict:
    """The rule-based style as QGIS loaded it: heading -> {rule label: [classes it matches]}."""
    groups = {}
    for group in renderer.rootRule().children():
        assert group.symbol() is None  # a heading only
        groups[group.label()] = {
            rule.label(): [m.replace("''", "'")
                           for m in _LITERAL.findall(rule.filterExpression())]
            for rule in group.children()}
    return groups


def styled_classes(renderer) -> set:
    """Every class some rule of the style names."""
    return {c for rules in rule_classes(renderer).values() for kids in rules.values()
            for c in kids}

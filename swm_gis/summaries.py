"""Summary lines for people: what a job found, in a few lines (the CLI prints them).

Pure text from a job's result; nothing here prints or reads files.
"""

from __future__ import annotations

from typing import Any


def screening_lines(document: dict[str, Any]) -> list[str]:
    """A few lines for people: each finding with its status (decided in screening.findings)."""
    from swm_gis.screening.findings import summary_lines

    return [*summary_lines(document), *_repair_notes(document)]


def _repair_notes(document: dict[str, Any]) -> list[str]:
    """Input polygons that were invalid (e.g. self-intersecting) and repaired with make_valid."""
    meta = document.get("meta") or {}
    notes = []
    for src in [meta.get("site"), *(meta.get("inputs") or [])]:
        if isinstance(src, dict) and src.get("repaired"):
            notes.append(f"Note: {src['repaired']} invalid polygon(s) of {src.get('file')} "
                         f"({src.get('key')}) were repaired (make_valid, e.g. a self-"
                         "intersection); check the areas above against the plan.")
    return list(dict.fromkeys(notes))


def applicability_lines(result: Any) -> list[str]:
    """Parcels and acres per class, town-wide, and the checks that did not run."""
    town = result.summary[result.summary["huc12"] == "all"]
    lines = [f"{result.parcels:,} parcels classified ({result.engine} engine, "
             f"{result.tiles} tile(s))"]
    for row in town.itertuples():
        lines.append(f"  {row.parcels:>8,}  {row.area_acres:>10,.1f} acres  {row.screening_class}")
    skipped = [c for c in result.checks if not c["ran"]]
    for c in skipped:
        lines.append(f"  not checked: {c['name']} ({c['note']})")
    from swm_gis.config.town_regulation import not_named_warning

    if (named := not_named_warning(result.config)) is not None:
        lines.append(f"Warning ({named['code']}): {named['text']}")
    return lines


__all__ = ["applicability_lines", "screening_lines"]

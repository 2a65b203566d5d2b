"""The screening report's model and formatting: shared by its findings, HTML and PDF modules.

:mod:`swm_gis.reports.screening_findings` builds a :class:`ScreeningReport` from a screening
document; :mod:`swm_gis.reports.screening_html` and :mod:`swm_gis.reports.screening_pdf` lay it
out, so the two renderings always say the same thing.
"""

from __future__ import annotations

import datetime as dt
import html
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from swm_gis.reports.screening_map import MapImage
from swm_gis.rules.timeline import Deadline
from swm_gis.screening.checklist import ChecklistGroup, ChecklistItem
from swm_gis.screening.finding_parts import STATUS_WORDS

#: Status words of the findings table (swm_gis.screening.findings decides the statuses).
STATUS_TEXT = dict(STATUS_WORDS)
STATUS_COLOURS = {"yes": "#8a1c1c", "no": "#1d5e2a", "conditional": "#7a4a00",
                  "not_checked": "#7a4a00", "info": "#1f3f7a"}


# --------------------------------------------------------------------------- the model
@dataclass(frozen=True)
class Finding:
    """One line of the findings page.

    ``status``: one of :data:`swm_gis.screening.findings.STATUSES`, as the screening document's
    ``findings`` decided it; ``details`` are its caveats.
    """

    key: str
    title: str
    status: str
    result: str
    details: tuple[str, ...] = ()
    section: str = ""
    source: str = ""
    reasons: tuple[str, ...] = ()  # the screening's own explanations, listed in the details


@dataclass(frozen=True)
class Table:
    """A detail table: caption, column headers (the first column heads each row) and rows."""

    key: str
    title: str
    caption: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    empty: str = "None."


@dataclass
class ScreeningReport:
    title: str
    town: str
    synthetic: bool
    generated: str
    site_label: str
    headline: str
    findings: list[Finding]
    tables: list[Table]
    map_image: MapImage | None
    map_alt: str
    checklist_groups: list[ChecklistGroup]
    checklist: list[ChecklistItem]
    checklist_note: str
    timeline: list[Deadline]
    received: dt.date | None
    checks: list[tuple[str, str, str, str]]  # name, ran, source, reason
    parameters: list[tuple[str, str]]
    data_sources: list[tuple[str, str]]
    general_requirements: list[tuple[str, str, str]] = field(default_factory=list)
    #: The regulation applied, as the header names it ("Runoff Rules, Chapter 9"), and its
    #: chapter (or title) as the findings table's column names it.
    regulation: str = ""
    chapter: str = ""
    #: What the checklist holds, citing the regulation (the legend's first sentence).
    checklist_lead: str = ""
    notes: list[str] = field(default_factory=list)
    #: the timeline's opening paragraph (:func:`timeline_intro`), the HTML's and the PDF's
    timeline_intro: str = ""


def timeline_intro(received: dt.date | None, permit_status: str) -> str:
    """The permit timeline's opening paragraph: how the dates were computed, and "if a permit is
    required" when the permit finding is conditional (the timeline binds only a permit)."""
    if received:
        text = (f"Computed from the application received on {received:%A, %B %-d, %Y}. "
                "Business days skip Saturdays, Sundays and Massachusetts legal holidays; "
                "calendar days do not count the day the period runs from. The notice deadlines "
                "assume the hearing opens on the latest permitted day (a latest day on a "
                "weekend or legal holiday is moved to the business day before); an earlier "
                "hearing moves them earlier.")
    else:
        text = ("No receipt date was given, so no dates are computed; give the date the "
                "application was received to compute them.")
    if permit_status == "conditional":
        return ("If a permit is required (the permit finding is conditional), this is its "
                "timeline. " + text)
    if permit_status == "no":
        return ("No permit is required (see the permit finding); the timeline is shown for "
                "information. " + text)
    return text


# --------------------------------------------------------------------------- formatting
def map_caption(image: MapImage) -> str:
    """The map's caption: exactly the legend entries drawn (never a layer that is not there)."""
    return ("Shown: " + "; ".join(image.legend) + ".") if image.legend else "The site."


def _date(text: Any) -> str:
    """The date part of an ISO timestamp (the vintage), or the text itself."""
    if not text:
        return "date unknown"
    s = str(text)
    return s[:10] if len(s) >= 10 and s[4] == "-" else s


def describe_source(src: Any, *, compact: bool = False) -> str:
    """One source (a source_info dict, a string, or a list of them) as 'file:layer (date)'.

    ``compact`` leaves out the logical layer key (for the findings page).
    """
    if src is None or src == "" or src == []:
        return ""
    if isinstance(src, str):
        return src
    if isinstance(src, list | tuple):
        return "; ".join(filter(None, (describe_source(s, compact=compact) for s in src)))
    if isinstance(src, Mapping):
        if "file" not in src and "path" not in src and all(
                isinstance(v, Mapping | list | str) for v in src.values()):
            return "; ".join(filter(None, (describe_source(v, compact=compact)
                                           for v in src.values())))
        return _describe_one_source(src, compact=compact)
    return str(src)


def _describe_one_source(src: Mapping[str, Any], *, compact: bool) -> str:
    """One source_info dict as '[key = ]file:layer (date)' (its label replacing file:layer)."""
    path = src.get("file") or src.get("path") or ""
    name = os.path.basename(str(path)) or str(path)
    layer = src.get("layer")
    key = src.get("key")
    where = f"{name}:{layer}" if layer else name
    where = src.get("label") or where
    label = f"{key} = {where}" if key and key != "input" and not compact else where
    if src.get("temporary"):  # a front end's copy: its label alone, never the copy's date
        return label
    return f"{label} ({_date(src.get('modified') or src.get('vintage'))})"


def escape_html(text: Any) -> str:
    """``text`` (None as "") escaped for HTML and for reportlab's paragraph markup."""
    return html.escape("" if text is None else str(text), quote=True)




def applies_text(item: ChecklistItem) -> str:
    """A checklist item's "Applies" cell: Required / Not applicable (its condition decided
    "no") / Check (the screening could not decide: a check not run or incomplete)."""
    return {True: "Required", False: "Not applicable", None: "Check"}[item.applies]


def deadline_date(d: Deadline) -> str:
    return f"{d.date:%a %b %-d, %Y}" if d.date else "when the dates are known"


__all__ = ["STATUS_COLOURS", "STATUS_TEXT", "Finding", "ScreeningReport", "Table",
           "applies_text", "deadline_date", "describe_source", "escape_html"]

"""The screening report as one self-contained, printable, accessible HTML page (map inlined).

Lays out a :class:`~swm_gis.reports.screening_model.ScreeningReport` built by
:func:`swm_gis.reports.screening_findings.build_report`; decides nothing itself. The page is the
Jinja2 template ``templates/screening_report.html.j2``, rendered with autoescape: a value is
escaped wherever the template writes it, so no text (a layer's name, an owner's, a note) can
become markup.
"""

from __future__ import annotations

import base64
import functools
import html
from typing import Any

import jinja2
from markupsafe import Markup

from swm_gis.reports.screening_model import (
    STATUS_TEXT,
    ScreeningReport,
    applies_text,
    deadline_date,
    map_caption,
)

__all__ = ["CHECKLIST_STATUSES", "general_intro", "render_html"]

#: The page's template, in this package's ``templates`` folder (package data).
TEMPLATE = "screening_report.html.j2"

#: The checklist legend's statuses, after the regulation's lead (its ``[notes]``
#: ``checklist_lead``: :mod:`swm_gis.screening.wording`).
CHECKLIST_STATUSES = (
    "Required: applies to every application or was triggered by a finding; "
    "Not applicable: a check that ran on data covering the area searched found its condition "
    "not met; Check: the screening could not decide (its check did not run, lacked a layer or "
    "was incomplete), so the applicant must check.")
def general_intro(chapter: str) -> str:
    """The general requirements' introduction, naming the regulation applied."""
    return ("What every permitted project must do, whatever the site, in the words of "
            f"{chapter} (quoted; \"...\" marks an omission). Where the copy of the "
            "regulation used by this tool is cut off, the item says so.")


def render_html(report: ScreeningReport) -> str:
    """The report as one self-contained, printable, accessible HTML page (map inlined)."""
    image = report.map_image
    return _template().render(
        r=report, status_text=STATUS_TEXT,
        checklist_legend=f"{report.checklist_lead} {CHECKLIST_STATUSES}",
        general_intro=general_intro(report.chapter),
        map_png_base64=base64.b64encode(image.png).decode("ascii") if image else "")


def numeric_columns(columns: tuple[str, ...]) -> tuple[int, ...]:
    """The columns right-aligned as numbers: those in feet or square feet."""
    return tuple(i for i, c in enumerate(columns) if "(ft)" in c or "(sq ft)" in c)


def _html_text(value: Any) -> Markup:
    """Every value the template writes, escaped as :func:`html.escape` does (``&quot;``,
    ``&#x27;``; markupsafe's own spelling is ``&#34;``, ``&#39;``), so the page is byte for byte
    the one the report has always written; ``None`` writes nothing. Markup (a macro's output)
    is already HTML."""
    if isinstance(value, Markup):
        return value
    return Markup(html.escape("" if value is None else str(value), quote=True))


@functools.cache
def _template() -> jinja2.Template:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("swm_gis.reports", "templates"), autoescape=True,
        finalize=_html_text, undefined=jinja2.StrictUndefined, trim_blocks=True,
        lstrip_blocks=True, keep_trailing_newline=True)
    env.globals.update(applies_text=applies_text, deadline_date=deadline_date,
                       map_caption=map_caption, numeric_columns=numeric_columns)
    return env.get_template(TEMPLATE)

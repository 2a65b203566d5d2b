"""The screening report as one self-contained, printable, accessible HTML page (map inlined).

Lays out a :class:`~swm_gis.reports.screening_model.ScreeningReport` built by
:func:`swm_gis.reports.screening_findings.build_report`; decides nothing itself.
"""

from __future__ import annotations

import base64

from swm_gis.reports.screening_model import (
    STATUS_TEXT,
    ScreeningReport,
    Table,
    applies_text,
    deadline_date,
    map_caption,
)
from swm_gis.reports.screening_model import (
    escape_html as _e,
)

__all__ = ["CHECKLIST_LEGEND", "GENERAL_INTRO", "render_html"]

CHECKLIST_LEGEND = (
    "Items of the application package (Ch. 320, permit procedure, A) and of the plans required "
    "by §§ 320-19, "
    "320-20 and 320-21. Required: applies to every application or was triggered by a finding; "
    "Not applicable: a check that ran on data covering the area searched found its condition "
    "not met; Check: the screening could not decide (its check did not run, lacked a layer or "
    "was incomplete), so the applicant must check.")
GENERAL_INTRO = ("What every permitted project must do, whatever the site, in the words of "
                 "Chapter 320 (quoted; \"...\" marks an omission). Where the copy of the "
                 "regulation used by this tool is cut off, the item says so.")


_CSS = """
:root { --ink:#1a1a1a; --muted:#555; --rule:#c8c8c8; --yes:#8a1c1c; --no:#1d5e2a; }
html { font-family: "DejaVu Sans", "Segoe UI", Arial, sans-serif; color: var(--ink);
       font-size: 11pt; line-height: 1.4; }
body { margin: 0 auto; max-width: 10in; padding: 0.4in; }
h1 { font-size: 18pt; margin: 0 0 0.1in; }
h2 { font-size: 14pt; margin: 0.3in 0 0.08in; border-bottom: 2px solid var(--ink); }
h3 { font-size: 11.5pt; margin: 0.2in 0 0.05in; }
p.meta { color: var(--muted); margin: 0.02in 0; font-size: 9.5pt; }
p.headline { font-size: 12pt; font-weight: bold; padding: 0.08in 0.12in;
             border-left: 5px solid var(--ink); background: #f3f3f3; }
p.synthetic { font-weight: bold; color: #7a4a00; border: 2px solid #7a4a00; padding: 0.05in; }
table { border-collapse: collapse; width: 100%; margin: 0.05in 0 0.15in; font-size: 9.5pt; }
caption { text-align: left; font-style: italic; color: var(--muted); padding-bottom: 0.04in; }
th, td { border: 1px solid var(--rule); padding: 3px 5px; vertical-align: top; text-align: left; }
thead th { background: #e9e9e9; }
tbody th { font-weight: bold; background: #fafafa; }
#table-findings td:nth-child(5) { font-size: 8.5pt; overflow-wrap: anywhere; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.status { font-weight: bold; white-space: nowrap; }
.status-yes { color: var(--yes); } .status-no { color: var(--no); }
.status-conditional, .status-not_checked { color: #7a4a00; } .status-info { color: #1f3f7a; }
tr.not-applicable td, tr.not-applicable th { color: #777; }
ul.details { margin: 0.03in 0 0 0.15in; padding: 0; font-size: 9pt; }
figure { margin: 0.1in 0; } figure img { width: 100%; height: auto; border: 1px solid var(--rule); }
figcaption { font-size: 9pt; color: var(--muted); }
small.cite { color: var(--muted); }
@page { size: letter; margin: 0.5in; }
@media print {
  body { max-width: none; padding: 0; font-size: 10pt; }
  h1 { font-size: 15pt; } h2 { font-size: 12pt; margin-top: 0.15in; }
  p.headline { font-size: 10pt; }
  #table-findings { font-size: 7.2pt; line-height: 1.25; } ul.details { font-size: 7pt; }
  #table-findings td, #table-findings th { padding: 2px 3px; }
  #table-findings td:nth-child(5) { font-size: 6.6pt; }
  p.meta, p.synthetic { font-size: 8pt; margin: 0.02in 0; }
  section#findings { break-after: page; zoom: 0.8; }  /* the findings on one sheet */
  tr#finding-requirements { break-inside: auto; }
  section#map { break-after: page; }
  h2, h3 { break-after: avoid; }
  tr, figure, p.headline { break-inside: avoid; }
  thead { display: table-header-group; }
  a { color: inherit; text-decoration: none; }
}
"""



def _html_table(table: Table, *, num_cols: tuple[int, ...] = ()) -> str:
    head = "".join(f'<th scope="col">{_e(c)}</th>' for c in table.columns)
    if not table.rows:
        body = f'<tr><td colspan="{len(table.columns)}">{_e(table.empty)}</td></tr>'
    else:
        body = ""
        for row in table.rows:
            cells = f'<th scope="row">{_e(row[0])}</th>' + "".join(
                f'<td{" class=num" if i + 1 in num_cols else ""}>{_e(v)}</td>'
                for i, v in enumerate(row[1:]))
            body += f"<tr>{cells}</tr>"
    return (f'<table id="table-{_e(table.key)}"><caption>{_e(table.caption)}</caption>'
            f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")


NA_CLASS = ' class="not-applicable"'


def render_html(report: ScreeningReport) -> str:
    """The report as one self-contained, printable, accessible HTML page (map inlined)."""
    r = report
    out: list[str] = [
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(r.title)} - {_e(r.town)}</title>",
        '<meta name="generator" content="swm-gis">', f"<style>{_CSS}</style>", "</head>",
        "<body>", "<main>",
    ]
    out += _findings_html(r) + _map_html(r) + _details_html(r) + _checklist_html(r)
    out += _general_html(report) + _timeline_html(r) + _sources_html(r)
    out += ["</main>", "</body>", "</html>"]
    return "\n".join(out) + "\n"


def _findings_html(r: ScreeningReport) -> list[str]:
    """Page 1: title, town, site, notes, headline and the findings table."""
    out: list[str] = [
        '<section id="findings" aria-labelledby="h-findings">',
        f"<h1>{_e(r.title)}</h1>",
        f'<p class="meta">Town of {_e(r.town)} &middot; Stormwater Management Rules and '
        "Regulations, Chapter 320 &middot; "
        f"generated {_e(r.generated)}</p>",
    ]
    if r.site_label:
        out.append(f'<p class="meta">Site: {_e(r.site_label)}</p>')
    out += [f'<p class="synthetic" role="note">{_e(n)}</p>' for n in r.notes]
    out.append('<h2 id="h-findings">Findings</h2>')
    out.append(f'<p class="headline">{_e(r.headline)}</p>')
    rows = []
    for f in r.findings:
        details = ("<ul class=\"details\">" + "".join(f"<li>{_e(d)}</li>" for d in f.details)
                   + "</ul>") if f.details else ""
        rows.append(
            f'<tr id="finding-{_e(f.key)}"><th scope="row">{_e(f.title)}</th>'
            f'<td><span class="status status-{_e(f.status)}">{STATUS_TEXT[f.status]}</span></td>'
            f"<td>{_e(f.result)}{details}</td><td>{_e(f.section)}</td>"
            f"<td>{_e(f.source)}</td></tr>")
    out.append(
        '<table id="table-findings"><caption>Each finding with the Chapter 320 section behind '
        "it and the data layer (file, layer and modification date) it came from</caption>"
        '<colgroup><col style="width:15%"><col style="width:7%"><col style="width:46%">'
        '<col style="width:14%"><col style="width:18%"></colgroup>'
        '<thead><tr><th scope="col">Finding</th><th scope="col">Status</th>'
        '<th scope="col">Result</th><th scope="col">Chapter 320</th>'
        '<th scope="col">Data (vintage)</th></tr></thead><tbody>' + "".join(rows)
        + "</tbody></table>")
    out.append("</section>")
    return out


def _map_html(r: ScreeningReport) -> list[str]:
    """The map, inlined as a PNG, with its caption and alternative text."""
    out: list[str] = []
    out.append('<section id="map" aria-labelledby="h-map"><h2 id="h-map">Map</h2>')
    if r.map_image is not None:
        b64 = base64.b64encode(r.map_image.png).decode("ascii")
        out.append(
            f'<figure><img src="data:image/png;base64,{b64}" alt="{_e(r.map_alt)}" '
            f'width="{r.map_image.width_px}" height="{r.map_image.height_px}">'
            f"<figcaption>{_e(map_caption(r.map_image))} Rendered offline; distances in the "
            "report are measured exactly, not from the rings.</figcaption></figure>")
    else:
        out.append("<p>No map: the screening layers (screening.gpkg) were not given.</p>")
    out.append("</section>")
    return out


def _details_html(r: ScreeningReport) -> list[str]:
    """One table per detail of the screening."""
    out: list[str] = []
    out.append('<section id="details" aria-labelledby="h-details">'
               '<h2 id="h-details">Details</h2>')
    for t in r.tables:
        num_cols = tuple(i for i, c in enumerate(t.columns) if "(ft)" in c or "(sq ft)" in c)
        out.append(f"<h3>{_e(t.title)}</h3>{_html_table(t, num_cols=num_cols)}")
    if not r.tables:
        out.append("<p>No detail tables: the screening document has no results to list.</p>")
    out.append("</section>")
    return out


def _checklist_html(r: ScreeningReport) -> list[str]:
    """The submittal checklist, one table per group."""
    out: list[str] = []
    out.append('<section id="checklist" aria-labelledby="h-checklist">'
               '<h2 id="h-checklist">Submittal checklist</h2>')
    if r.checklist_note:
        out.append(f"<p>{_e(r.checklist_note)}</p>")
    out.append(f"<p>{_e(CHECKLIST_LEGEND)}</p>")
    for g in r.checklist_groups:
        items = [i for i in r.checklist if i.group == g.key]
        body = "".join(
            f"<tr{NA_CLASS if i.applies is False else ''}>"
            f'<th scope="row">{_e(i.citation)}</th><td>{_e(i.text)}</td>'
            f"<td>{applies_text(i)}</td><td>{_e(i.note)}</td></tr>" for i in items)
        out.append(
            f"<h3>{_e(g.title)} ({_e(g.section)})</h3>"
            f'<table id="checklist-{_e(g.key)}"><caption>{_e(g.title)}: submittal items of '
            f"{_e(g.section)}</caption><thead><tr><th scope=\"col\">Section</th>"
            '<th scope="col">Item</th><th scope="col">Applies</th>'
            f'<th scope="col">Screening note</th></tr></thead><tbody>{body}</tbody></table>')
    out.append("</section>")
    return out


def _timeline_html(r: ScreeningReport) -> list[str]:
    """The permit timeline's deadlines."""
    out: list[str] = []
    out.append('<section id="timeline" aria-labelledby="h-timeline">'
               '<h2 id="h-timeline">Permit timeline</h2>')
    if r.received:
        out.append(f"<p>Computed from the application received on "
                   f"{r.received:%A, %B %-d, %Y}. Business days skip Saturdays, Sundays and "
                   "Massachusetts legal holidays; calendar days do not count the day the "
                   "period runs from. The notice deadlines assume the hearing opens on the "
                   "latest permitted day (a latest day on a weekend or legal holiday is moved "
                   "to the business day before); an earlier hearing moves them earlier.</p>")
    else:
        out.append("<p>No receipt date was given, so no dates are computed; give the date the "
                   "application was received to compute them.</p>")
    body = "".join(
        f'<tr><th scope="row">{_e(d.label)}</th><td>{_e(deadline_date(d))}</td>'
        f"<td>{_e(d.rule)}{(' ' + _e(d.note)) if d.note else ''}</td><td>{_e(d.section)}</td>"
        f"<td>{_e(d.basis)}</td></tr>" for d in r.timeline)
    out.append('<table id="table-timeline"><caption>Chapter 320 permit procedure deadlines'
               "</caption><thead><tr><th scope=\"col\">Step</th><th scope=\"col\">Date</th>"
               '<th scope="col">Rule</th><th scope="col">Section</th>'
               f'<th scope="col">Computed as</th></tr></thead><tbody>{body}</tbody></table>')
    out.append("</section>")
    return out


def _sources_html(r: ScreeningReport) -> list[str]:
    """Checks, data sources and parameters of the run."""
    out: list[str] = []
    out.append('<section id="sources" aria-labelledby="h-sources">'
               '<h2 id="h-sources">Data sources, checks and parameters</h2>')
    out.append(_html_table(Table("checks", "Checks", "Each screening check, whether it ran and "
                                 "on which data", ("Check", "Ran", "Data", "Reason"),
                                 tuple(r.checks), "No checks recorded.")))
    if r.data_sources:
        out.append(_html_table(Table("sources", "Data sources", "Reference layers of the town "
                                     "configuration (file, layer, modification date)",
                                     ("Layer", "Source"), tuple(r.data_sources))))
    out.append(_html_table(Table("parameters", "Parameters", "Parameters of this screening run",
                                 ("Parameter", "Value"), tuple(r.parameters),
                                 "No parameters recorded.")))
    out.append("</section>")
    return out


def _general_html(report: ScreeningReport) -> list[str]:
    rows = tuple((s, t, text) for s, t, text in report.general_requirements)
    if not rows:
        return []
    return ['<section id="general" aria-labelledby="h-general">'
            '<h2 id="h-general">General requirements of every permit</h2>',
            f"<p>{_e(GENERAL_INTRO)}</p>",
            _html_table(Table("general", "General requirements", "Chapter 320 requirements for "
                              "every permitted project", ("Section", "Topic", "Requirement"),
                              rows)), "</section>"]

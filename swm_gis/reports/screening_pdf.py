"""The screening report as a US Letter PDF with real (searchable) text in an embedded font.

Lays out a :class:`~swm_gis.reports.screening_model.ScreeningReport` built by
:func:`swm_gis.reports.screening_findings.build_report`; decides nothing itself.
"""

from __future__ import annotations

import io
from typing import Any

from swm_gis.reports.pdf_cells import PADDING_PT, breakable, fit_widths, plain_text
from swm_gis.reports.screening_html import CHECKLIST_STATUSES, general_intro
from swm_gis.reports.screening_model import (
    STATUS_COLOURS,
    STATUS_TEXT,
    ScreeningReport,
    applies_text,
    deadline_date,
    escape_html,
    map_caption,
)

__all__ = ["render_pdf"]


class _Kit:
    """The PDF's fonts and paragraph styles, and its two building blocks (a paragraph, a table)."""

    def __init__(self) -> None:
        from reportlab.lib import colors
        from reportlab.lib.enums import TA_LEFT
        from reportlab.lib.styles import ParagraphStyle
        from reportlab.pdfbase.pdfmetrics import registerFontFamily

        from swm_gis.reports.pdf_fonts import register_fonts

        regular, bold = register_fonts()
        if regular != "Helvetica":
            registerFontFamily(regular, normal=regular, bold=bold, italic=regular,
                               boldItalic=bold)
        self.regular = regular
        self.base = base = ParagraphStyle("base", fontName=regular, fontSize=9, leading=11.5,
                                          alignment=TA_LEFT)
        self.small = small = ParagraphStyle("small", parent=base, fontSize=7.6, leading=9.4)
        self.cell_b = ParagraphStyle("cellb", parent=small, fontName=bold)
        self.h1 = ParagraphStyle("h1", parent=base, fontName=bold, fontSize=16, leading=20,
                                 spaceAfter=4)
        self.h2 = ParagraphStyle("h2", parent=base, fontName=bold, fontSize=12.5, leading=16,
                                 spaceBefore=10, spaceAfter=4)
        self.h3 = ParagraphStyle("h3", parent=base, fontName=bold, fontSize=10, leading=13,
                                 spaceBefore=6, spaceAfter=2)
        self.meta = ParagraphStyle("meta", parent=base, fontSize=8.5,
                                   textColor=colors.HexColor("#555555"))
        self.headline = ParagraphStyle("headline", parent=base, fontName=bold, fontSize=10.5,
                                       leading=13.5, borderColor=colors.black, borderWidth=0,
                                       backColor=colors.HexColor("#f0f0f0"), borderPadding=5,
                                       spaceBefore=4, spaceAfter=8)
        self.warn = ParagraphStyle("warn", parent=base, fontName=bold,
                                   textColor=colors.HexColor("#7a4a00"))

    def p(self, text: Any, style=None) -> Any:
        from reportlab.platypus import Paragraph

        return Paragraph(escape_html(text), self.small if style is None else style)

    def table(self, header: list[str], rows: list[list[Any]], widths: list[float],
              caption: str | None = None, grey_rows: tuple[int, ...] = ()) -> list:
        from reportlab.lib import colors
        from reportlab.lib.units import inch
        from reportlab.platypus import Paragraph, Spacer, TableStyle
        from reportlab.platypus import Table as RLTable

        # columns as wide as their widest word (measured bold: the widest a cell prints it)
        bold, size = self.cell_b.fontName, self.small.fontSize
        widths_pt = fit_widths([[plain_text(r[i]) for r in [header, *rows]]
                                for i in range(len(widths))],
                               [w * inch for w in widths], bold, size)
        inner = [w - PADDING_PT for w in widths_pt]
        data = [[Paragraph(breakable(h, inner[i], bold, size), self.cell_b)
                 for i, h in enumerate(header)]]
        for row in rows:
            data.append([c if isinstance(c, Paragraph)
                         else Paragraph(breakable(c, inner[i], bold, size),
                                        self.cell_b if i == 0 else self.small)
                         for i, c in enumerate(row)])
        data, origin = _continued(data, inner, self.p("(continued)", self.small))
        grey_rows = tuple(n - 1 for n, o in enumerate(origin) if o - 1 in grey_rows and n)
        t = RLTable(data, colWidths=widths_pt, repeatRows=1)
        style = [("GRID", (0, 0), (-1, -1), 0.4, colors.HexColor("#b0b0b0")),
                 ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e6e6e6")),
                 ("VALIGN", (0, 0), (-1, -1), "TOP"),
                 ("LEFTPADDING", (0, 0), (-1, -1), 3), ("RIGHTPADDING", (0, 0), (-1, -1), 3),
                 ("TOPPADDING", (0, 0), (-1, -1), 2), ("BOTTOMPADDING", (0, 0), (-1, -1), 2)]
        style += [("TEXTCOLOR", (0, i + 1), (-1, i + 1), colors.HexColor("#777777"))
                  for i in grey_rows]
        t.setStyle(TableStyle(style))
        out = [self.p(caption, self.meta)] if caption else []
        return [*out, t, Spacer(1, 6)]


#: The tallest a table cell may be (points) before its row is continued on further rows:
#: reportlab never splits one row across pages, so a taller row (a whole town's list of
#: parcels or habitats) would not fit on a page (a frame is 693.6 pt tall).
MAX_CELL_PT = 480.0


def _continued(data: list[list[Any]], widths_pt: list[float], continued: Any
               ) -> tuple[list[list[Any]], list[int]]:
    """The table's rows with every cell taller than :data:`MAX_CELL_PT` cut into pieces, each
    on a row of its own ("(continued)" in the first column), and each row's original index."""
    out, origin = [], []
    for n, row in enumerate(data):
        pieces = [_pieces(cell, width) for cell, width in zip(row, widths_pt, strict=True)]
        for j in range(max(len(p) for p in pieces)):
            out.append([p[j] if j < len(p) else (continued if i == 0 else "")
                        for i, p in enumerate(pieces)])
            origin.append(n)
    return out, origin


def _pieces(cell: Any, width: float) -> list[Any]:
    """A paragraph cut into pieces no taller than :data:`MAX_CELL_PT` at ``width`` (points)."""
    from reportlab.platypus import Paragraph

    if not isinstance(cell, Paragraph):
        return [cell]
    pieces, rest = [], cell
    while rest.wrap(width, 1e9)[1] > MAX_CELL_PT:
        parts = rest.split(width, MAX_CELL_PT)
        if len(parts) < 2:  # one line taller than the limit: leave it whole
            break
        pieces.append(parts[0])
        rest = parts[1]
    return [*pieces, rest]


def _first_page(k: _Kit, r: ScreeningReport) -> list:
    """Page 1: title, town, site, notes, the headline and the findings table, shrunk to fit."""
    from reportlab.lib.units import inch
    from reportlab.platypus import KeepInFrame, PageBreak, Paragraph

    first: list = [Paragraph(escape_html(r.title), k.h1),
                   k.p(f"{r.town} - {r.regulation} - generated {r.generated}",
                       k.meta)]
    if r.site_label:
        first.append(k.p(f"Site: {r.site_label}", k.meta))
    first += [k.p(n, k.warn) for n in r.notes]
    first += [Paragraph(escape_html("Findings"), k.h2),
              Paragraph(escape_html(r.headline), k.headline)]
    rows = []
    for f in r.findings:
        text = escape_html(f.result) + "".join(f"<br/>- {escape_html(d)}" for d in f.details)
        status_color = STATUS_COLOURS[f.status]
        rows.append([f.title,
                     Paragraph(f'<font color="{status_color}"><b>{STATUS_TEXT[f.status]}</b>'
                               "</font>", k.small),
                     Paragraph(text, k.small), f.section, f.source])
    first += k.table(["Finding", "Status", "Result", r.chapter, "Data (vintage)"], rows,
                     [0.95, 0.85, 3.1, 1.15, 1.25])
    # The findings are one page: shrink them to fit rather than let them run over, unless
    # they are too long to read shrunk (a site covering a whole town): then they run on
    if sum(f.wrap(7.3 * inch, 9.75 * inch)[1] for f in first) > 1.5 * 9.75 * inch:
        return [*first, PageBreak()]
    return [KeepInFrame(7.3 * inch, 9.75 * inch, first, mode="shrink"), PageBreak()]


def _map_section(k: _Kit, r: ScreeningReport) -> list:
    from reportlab.lib.units import inch
    from reportlab.platypus import Image, Paragraph

    story: list = [Paragraph("Map", k.h2)]
    if r.map_image is not None:
        width = 7.3 * inch
        height = width * r.map_image.height_px / max(r.map_image.width_px, 1)
        story.append(Image(io.BytesIO(r.map_image.png), width=width, height=height))
        story.append(k.p(map_caption(r.map_image) + " Map description: " + r.map_alt, k.meta))
    else:
        story.append(k.p("No map: the screening layers (screening.gpkg) were not given.",
                         k.base))
    return story


def _details_section(k: _Kit, r: ScreeningReport) -> list:
    from reportlab.platypus import KeepTogether, Paragraph

    story: list = [Paragraph("Details", k.h2)]
    widths_by_cols = {2: [2.0, 5.3], 4: [1.6, 1.6, 1.6, 2.5],
                      6: [1.6, 1.0, 0.7, 2.0, 1.2, 0.8]}
    for t in r.tables:
        widths = widths_by_cols.get(len(t.columns), [7.3 / len(t.columns)] * len(t.columns))
        rows = [list(row) for row in t.rows] or [[t.empty] + [""] * (len(t.columns) - 1)]
        story.append(KeepTogether([Paragraph(escape_html(t.title), k.h3),
                                   *k.table(list(t.columns), rows, widths, t.caption)]))
    return story


def _checklist_section(k: _Kit, r: ScreeningReport) -> list:
    from reportlab.platypus import PageBreak, Paragraph

    story: list = [PageBreak(), Paragraph("Submittal checklist", k.h2)]
    if r.checklist_note:
        story.append(k.p(r.checklist_note, k.base))
    story.append(k.p(f"{r.checklist_lead} {CHECKLIST_STATUSES}", k.meta))
    for g in r.checklist_groups:
        items = [i for i in r.checklist if i.group == g.key]
        story.append(Paragraph(escape_html(f"{g.title} ({g.section})"), k.h3))
        story += k.table(["Section", "Item", "Applies", "Screening note"],
                         [[i.citation, i.text, applies_text(i), i.note] for i in items],
                         [1.2, 3.5, 0.8, 1.8],
                         grey_rows=tuple(n for n, i in enumerate(items) if i.applies is False))
    if r.general_requirements:
        story.append(Paragraph("General requirements of every permit", k.h2))
        story.append(k.p(general_intro(r.chapter), k.meta))
        story += k.table(["Section", "Topic", "Requirement"],
                         [list(g) for g in r.general_requirements], [1.3, 1.4, 4.6])
    return story


def _timeline_section(k: _Kit, r: ScreeningReport) -> list:
    from reportlab.platypus import KeepTogether, Paragraph

    timeline: list = [Paragraph("Permit timeline", k.h2)]
    timeline.append(k.p(r.timeline_intro, k.base))
    timeline += k.table(["Step", "Date", "Rule", "Section", "Computed as"],
                        [[d.label, deadline_date(d), d.rule + (" " + d.note if d.note else ""),
                          d.section, d.basis] for d in r.timeline],
                        [1.3, 1.1, 2.9, 0.8, 1.2])
    return [KeepTogether(timeline)]


def _sources_section(k: _Kit, r: ScreeningReport) -> list:
    from reportlab.platypus import Paragraph

    story: list = [Paragraph("Data sources, checks and parameters", k.h2),
                   Paragraph("Checks", k.h3)]
    story += k.table(["Check", "Ran", "Data", "Reason"], [list(c) for c in r.checks]
                     or [["No checks recorded.", "", "", ""]], [1.3, 0.4, 3.8, 1.8])
    if r.data_sources:
        story.append(Paragraph("Data sources", k.h3))
        story += k.table(["Layer", "Source"], [list(s) for s in r.data_sources], [1.6, 5.7])
    story.append(Paragraph("Parameters", k.h3))
    story += k.table(["Parameter", "Value"], [list(s) for s in r.parameters]
                     or [["No parameters recorded.", ""]], [2.4, 4.9])
    return story


def _build(k: _Kit, r: ScreeningReport, story: list) -> bytes:
    """Lay the story out on US Letter pages with the footer (title, town, page number)."""
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import letter
    from reportlab.lib.units import inch
    from reportlab.platypus import BaseDocTemplate, Frame, PageTemplate

    footer = f"{r.title} - {r.town}" + (" - SYNTHETIC SAMPLE DATA" if r.synthetic else "")

    def on_page(canvas, doc) -> None:
        canvas.saveState()
        canvas.setFont(k.regular, 7.5)
        canvas.setFillColor(colors.HexColor("#555555"))
        canvas.drawString(0.6 * inch, 0.4 * inch, footer)
        canvas.drawRightString(letter[0] - 0.6 * inch, 0.4 * inch, f"Page {doc.page}")
        canvas.restoreState()

    buf = io.BytesIO()
    doc = BaseDocTemplate(buf, pagesize=letter, leftMargin=0.6 * inch,
                          rightMargin=0.6 * inch, topMargin=0.55 * inch,
                          bottomMargin=0.65 * inch, title=f"{r.title} - {r.town}",
                          author="swm-gis", subject=f"{r.chapter} screening report",
                          creator="swm-gis")
    frame = Frame(doc.leftMargin, doc.bottomMargin, doc.width, doc.height, id="body")
    # The footer is drawn when the page ends, so text extraction reads the page body first.
    doc.addPageTemplates([PageTemplate(id="page", frames=[frame], onPageEnd=on_page)])
    doc.build(story)
    return buf.getvalue()


def render_pdf(report: ScreeningReport) -> bytes:
    """The report as a US Letter PDF with real (searchable) text in an embedded Unicode font."""
    k = _Kit()
    story = [*_first_page(k, report), *_map_section(k, report), *_details_section(k, report),
             *_checklist_section(k, report), *_timeline_section(k, report),
             *_sources_section(k, report)]
    return _build(k, report, story)

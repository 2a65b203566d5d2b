"""The screening report as a US Letter PDF with real (searchable) text in an embedded font.

Lays out a :class:`~swm_gis.reports.screening_model.ScreeningReport` built by
:func:`swm_gis.reports.screening_findings.build_report`; decides nothing itself.
"""

from __future__ import annotations

import io
from typing import Any

from swm_gis.reports.screening_html import CHECKLIST_LEGEND, GENERAL_INTRO
from swm_gis.reports.screening_model import (
    STATUS_COLOURS,
    STATUS_TEXT,
    ScreeningReport,
    _e,
    applies_text,
    deadline_date,
    map_caption,
)

__all__ = ["render_pdf"]


def render_pdf(report: ScreeningReport) -> bytes:
    """The report as a US Letter PDF with real (searchable) text in an embedded Unicode font."""
    from reportlab.lib import colors
    from reportlab.lib.enums import TA_LEFT
    from reportlab.lib.pagesizes import letter
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.lib.units import inch
    from reportlab.pdfbase.pdfmetrics import registerFontFamily
    from reportlab.platypus import (
        BaseDocTemplate,
        Frame,
        Image,
        KeepInFrame,
        KeepTogether,
        PageBreak,
        PageTemplate,
        Paragraph,
        Spacer,
        TableStyle,
    )
    from reportlab.platypus import Table as RLTable

    from swm_gis.reports.pdf_fonts import register_fonts

    r = report
    regular, bold = register_fonts()
    if regular != "Helvetica":
        registerFontFamily(regular, normal=regular, bold=bold, italic=regular,
                           boldItalic=bold)
    base = ParagraphStyle("base", fontName=regular, fontSize=9, leading=11.5, alignment=TA_LEFT)
    small = ParagraphStyle("small", parent=base, fontSize=7.6, leading=9.4)
    cell_b = ParagraphStyle("cellb", parent=small, fontName=bold)
    h1 = ParagraphStyle("h1", parent=base, fontName=bold, fontSize=16, leading=20,
                        spaceAfter=4)
    h2 = ParagraphStyle("h2", parent=base, fontName=bold, fontSize=12.5, leading=16,
                        spaceBefore=10, spaceAfter=4)
    h3 = ParagraphStyle("h3", parent=base, fontName=bold, fontSize=10, leading=13,
                        spaceBefore=6, spaceAfter=2)
    meta = ParagraphStyle("meta", parent=base, fontSize=8.5, textColor=colors.HexColor("#555555"))
    headline = ParagraphStyle("headline", parent=base, fontName=bold, fontSize=10.5,
                              leading=13.5, borderColor=colors.black, borderWidth=0,
                              backColor=colors.HexColor("#f0f0f0"), borderPadding=5,
                              spaceBefore=4, spaceAfter=8)
    warn = ParagraphStyle("warn", parent=base, fontName=bold,
                          textColor=colors.HexColor("#7a4a00"))

    def p(text: Any, style=small) -> Paragraph:
        return Paragraph(_e(text), style)

    def table(header: list[str], rows: list[list[Any]], widths: list[float],
              caption: str | None = None, grey_rows: tuple[int, ...] = ()) -> list:
        data = [[p(h, cell_b) for h in header]]
        for row in rows:
            data.append([c if isinstance(c, Paragraph) else p(c, cell_b if i == 0 else small)
                         for i, c in enumerate(row)])
        t = RLTable(data, colWidths=[w * inch for w in widths], repeatRows=1)
        style = [("GRID", (0, 0), (-1, -1), 0.4, colors.HexColor("#b0b0b0")),
                 ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e6e6e6")),
                 ("VALIGN", (0, 0), (-1, -1), "TOP"),
                 ("LEFTPADDING", (0, 0), (-1, -1), 3), ("RIGHTPADDING", (0, 0), (-1, -1), 3),
                 ("TOPPADDING", (0, 0), (-1, -1), 2), ("BOTTOMPADDING", (0, 0), (-1, -1), 2)]
        style += [("TEXTCOLOR", (0, i + 1), (-1, i + 1), colors.HexColor("#777777"))
                  for i in grey_rows]
        t.setStyle(TableStyle(style))
        out = [p(caption, meta)] if caption else []
        return [*out, t, Spacer(1, 6)]

    first: list = [Paragraph(_e(r.title), h1),
                   p(f"Town of {r.town} - Stormwater Management Rules and Regulations, "
                     f"Chapter 320 - generated {r.generated}", meta)]
    if r.site_label:
        first.append(p(f"Site: {r.site_label}", meta))
    first += [p(n, warn) for n in r.notes]
    first += [Paragraph(_e("Findings"), h2), Paragraph(_e(r.headline), headline)]
    rows = []
    for f in r.findings:
        text = _e(f.result) + "".join(f"<br/>- {_e(d)}" for d in f.details)
        status_color = STATUS_COLOURS[f.status]
        rows.append([f.title,
                     Paragraph(f'<font color="{status_color}"><b>{STATUS_TEXT[f.status]}</b>'
                               "</font>", small),
                     Paragraph(text, small), f.section, f.source])
    first += table(["Finding", "Status", "Result", "Chapter 320", "Data (vintage)"], rows,
                   [0.95, 0.85, 3.1, 1.15, 1.25])
    # The findings are one page: shrink them to fit rather than let them run over.
    story: list = [KeepInFrame(7.3 * inch, 9.75 * inch, first, mode="shrink"), PageBreak()]

    story.append(Paragraph("Map", h2))
    if r.map_image is not None:
        width = 7.3 * inch
        height = width * r.map_image.height_px / max(r.map_image.width_px, 1)
        story.append(Image(io.BytesIO(r.map_image.png), width=width, height=height))
        story.append(p(map_caption(r.map_image) + " Map description: " + r.map_alt, meta))
    else:
        story.append(p("No map: the screening layers (screening.gpkg) were not given.", base))

    story.append(Paragraph("Details", h2))
    widths_by_cols = {2: [2.0, 5.3], 4: [1.6, 1.6, 1.6, 2.5],
                      6: [1.6, 1.0, 0.7, 2.0, 1.2, 0.8]}
    for t in r.tables:
        widths = widths_by_cols.get(len(t.columns), [7.3 / len(t.columns)] * len(t.columns))
        rows = [list(row) for row in t.rows] or [[t.empty] + [""] * (len(t.columns) - 1)]
        story.append(KeepTogether([Paragraph(_e(t.title), h3),
                                   *table(list(t.columns), rows, widths, t.caption)]))

    story.append(PageBreak())
    story.append(Paragraph("Submittal checklist", h2))
    if r.checklist_note:
        story.append(p(r.checklist_note, base))
    story.append(p(CHECKLIST_LEGEND, meta))
    for g in r.checklist_groups:
        items = [i for i in r.checklist if i.group == g.key]
        story.append(Paragraph(_e(f"{g.title} ({g.section})"), h3))
        story += table(["Section", "Item", "Applies", "Screening note"],
                       [[i.citation, i.text, applies_text(i), i.note] for i in items],
                       [1.2, 3.5, 0.8, 1.8],
                       grey_rows=tuple(n for n, i in enumerate(items) if i.applies is False))

    if r.general_requirements:
        story.append(Paragraph("General requirements of every permit", h2))
        story.append(p(GENERAL_INTRO, meta))
        story += table(["Section", "Topic", "Requirement"],
                       [list(g) for g in r.general_requirements], [1.3, 1.4, 4.6])

    timeline: list = [Paragraph("Permit timeline", h2)]
    if r.received:
        timeline.append(p(
            f"Computed from the application received on {r.received:%A, %B %-d, %Y}. Business "
            "days skip Saturdays, Sundays and Massachusetts legal holidays; calendar days do not "
            "count the day the period runs from. The notice deadlines assume the hearing opens "
            "on the latest permitted day (a latest day on a weekend or legal holiday is moved to "
            "the business day before); an earlier hearing moves them earlier.", base))
    else:
        timeline.append(p("No receipt date was given, so no dates are computed; pass "
                          "--received DATE to compute them.", base))
    timeline += table(["Step", "Date", "Rule", "Section", "Computed as"],
                      [[d.label, deadline_date(d), d.rule + (" " + d.note if d.note else ""),
                        d.section, d.basis] for d in r.timeline],
                      [1.3, 1.1, 2.9, 0.8, 1.2])
    story.append(KeepTogether(timeline))

    story.append(Paragraph("Data sources, checks and parameters", h2))
    story.append(Paragraph("Checks", h3))
    story += table(["Check", "Ran", "Data", "Reason"], [list(c) for c in r.checks]
                   or [["No checks recorded.", "", "", ""]], [1.3, 0.4, 3.8, 1.8])
    if r.data_sources:
        story.append(Paragraph("Data sources", h3))
        story += table(["Layer", "Source"], [list(s) for s in r.data_sources], [1.6, 5.7])
    story.append(Paragraph("Parameters", h3))
    story += table(["Parameter", "Value"], [list(s) for s in r.parameters]
                   or [["No parameters recorded.", ""]], [2.4, 4.9])

    footer = f"{r.title} - {r.town}" + (" - SYNTHETIC SAMPLE DATA" if r.synthetic else "")

    def on_page(canvas, doc) -> None:
        canvas.saveState()
        canvas.setFont(regular, 7.5)
        canvas.setFillColor(colors.HexColor("#555555"))
        canvas.drawString(0.6 * inch, 0.4 * inch, footer)
        canvas.drawRightString(letter[0] - 0.6 * inch, 0.4 * inch, f"Page {doc.page}")
        canvas.restoreState()

    buf = io.BytesIO()
    doc = BaseDocTemplate(buf, pagesize=letter, leftMargin=0.6 * inch,
                          rightMargin=0.6 * inch, topMargin=0.55 * inch,
                          bottomMargin=0.65 * inch, title=f"{r.title} - {r.town}",
                          author="swm-gis", subject="Chapter 320 screening report",
                          creator="swm-gis")
    frame = Frame(doc.leftMargin, doc.bottomMargin, doc.width, doc.height, id="body")
    # The footer is drawn when the page ends, so text extraction reads the page body first.
    doc.addPageTemplates([PageTemplate(id="page", frames=[frame], onPageEnd=on_page)])
    doc.build(story)
    return buf.getvalue()

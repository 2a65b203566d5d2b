"""The firm mailing book for certified mail, return receipt requested (``certified_mail.pdf``),
in the layout of USPS PS Form 3877 ("Firm Mailing Book for Accountable Mail").

Chapter 320's permit procedure, A(7), has the applicant notify abutters "by certified mail,
return receipt requested, or by certificates of mailing" and present the receipts at the
hearing; the Post Office stamps a completed 3877 as that receipt. This is a pre-filled copy of
the layout (landscape letter, sender block, type of mail check boxes with Certified and Return
Receipt ticked, eight numbered article lines per page with the addressee's name and address,
postage and fee columns left blank for the clerk, totals per page); it is not the official USPS
form.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from swm_gis.io.writers import atomic_path
from swm_gis.notification.info import PackageInfo
from swm_gis.reports.labels import (
    FittedLabel,
    fit_address,
    fit_lines,
    label_box,
    label_parts,
)
from swm_gis.reports.pdf_fonts import register_fonts
from swm_gis.rules.abutters import MAIL_METHOD

LINES_PER_PAGE = 8
#: Columns after the addressee, as on PS Form 3877 (left blank: the clerk fills them in).
FEE_COLUMNS = ["Postage", "Fee", "Handling Charge", "Actual Value if Registered",
               "Insured Value", "Due Sender if COD", "RR Fee", "RD Fee", "SC Fee", "SH Fee"]
#: Widths of the article table's columns (pt; 732 pt between the margins) and its rows' heights.
WIDTHS_PT = [22.0, 95.0, 250.0] + [36.5] * len(FEE_COLUMNS)
HEAD_H_PT, ROW_H_PT = 26.0, 46.0
#: The addressee cell's text box (pt) and font sizes.
ADDRESSEE_W_PT, ADDRESSEE_H_PT = WIDTHS_PT[2] - 6, ROW_H_PT - 6
ADDRESSEE_MAX_PT, ADDRESSEE_MIN_PT, ADDRESSEE_LEADING = 8.0, 5.0, 1.18
MAIL_TYPES = ["Certified", "Return Receipt (hardcopy)", "Return Receipt (electronic)",
              "Certificate of Mailing", "Restricted Delivery", "Registered", "Insured", "COD"]
#: Pre-ticked: A(7)'s "certified mail, return receipt requested" (the clerk who mails by
#: certificates of mailing instead ticks that box and strikes these).
TICKED = ("Certified", "Return Receipt (hardcopy)")


#: Page margin (pt), and where the sender block's top and the article table's top lie below
#: the page's top edge.
MARGIN_PT = 30.0
BOX_TOP_PT, BOX_H_PT = MARGIN_PT + 28, 70.0
TABLE_TOP_PT = BOX_TOP_PT + BOX_H_PT + 8


def write_certified_mail(
    recips: pd.DataFrame,
    info: PackageInfo,
    target: str | Path,
    *,
    sender: list[str] | None = None,
) -> Path:
    """Write the mailing book: ``LINES_PER_PAGE`` recipients per landscape page.

    What every page shares (titles, sender block, check boxes, the ruled table and its heads, the
    footer) is drawn once as a PDF form and placed on each page; a page then adds its number,
    one text object per article and its count.
    """
    from reportlab.lib.pagesizes import landscape, letter
    from reportlab.pdfgen.canvas import Canvas

    font, bold = register_fonts()
    records = recips.to_dict("records")
    pages = max(1, -(-len(records) // LINES_PER_PAGE))
    page_w, page_h = landscape(letter)
    sender = [s for s in (sender or list(info.sender)) if s]
    with atomic_path(target) as tmp:
        c = Canvas(str(tmp), pagesize=landscape(letter), pageCompression=1)
        c.setTitle(f"Firm mailing book (PS Form 3877 layout): abutters of {info.subject_text}")
        c.setAuthor("swm-gis")
        c.setSubject(" ".join(info.header_lines()))
        c.beginForm("page_frame")
        _frame(c, total=len(records), info=info, sender=sender, font=font, bold=bold,
               page_w=page_w, page_h=page_h)
        c.endForm()
        for p in range(pages):
            chunk = records[p * LINES_PER_PAGE:(p + 1) * LINES_PER_PAGE]
            c.doForm("page_frame")
            _page(c, chunk, first_no=p * LINES_PER_PAGE + 1, page=p + 1, pages=pages,
                  font=font, page_w=page_w, page_h=page_h)
            c.showPage()
        c.save()
    return Path(target)


def _frame(c, *, total, info, sender, font, bold, page_w, page_h) -> None:
    """Everything a page of the book shares."""
    m = MARGIN_PT
    top = page_h - m
    c.setFont(bold, 11)
    c.drawString(m, top - 10, "Firm Mailing Book for Accountable Mail")
    line = ("Layout of USPS PS Form 3877 (pre-filled by swm-gis; not an official USPS form). "
            f"Abutter notice, {info.section}: by {MAIL_METHOD}.")
    size, fitted = fit_lines([line], width_pt=page_w - 2 * m, height_pt=8, font=font,
                             max_size=7, min_size=5)
    c.setFont(font, size)
    c.drawString(m, top - 20, fitted[0])
    _boxes(c, sender=sender, font=font, bold=bold, page_w=page_w, box_top=page_h - BOX_TOP_PT)
    x_cols = _columns()
    table_top = page_h - TABLE_TOP_PT
    _grid(c, x_cols, table_top)
    heads = ["No.", "Article Number", "Addressee (Name, Street, City, State, & ZIP Code)",
             *FEE_COLUMNS]
    for x, w, head in zip(x_cols, WIDTHS_PT, heads, strict=False):
        size, lines = fit_lines([head], width_pt=w - 4, height_pt=HEAD_H_PT - 4, font=bold,
                                max_size=6, min_size=4)
        text = c.beginText(x + 2, table_top - 8)
        text.setFont(bold, size, size * 1.15)
        for line in lines:
            text.textLine(line)
        c.drawText(text)
    y = _totals_y(page_h)
    c.setFont(font, 8)
    c.drawString(m + 200, y, "Total Number of Pieces Received at Post Office: ______")
    c.drawString(m + 430, y, "Postmaster, Per (Name of receiving employee): ____________________")
    for line in [f"All pages together: {total} piece(s).", *info.header_lines()[:2]]:
        y -= 9
        size, fitted = fit_lines([line], width_pt=page_w - 2 * m, height_pt=9, font=font,
                                 max_size=6.5, min_size=4)
        c.setFont(font, size)
        c.drawString(m, y, fitted[0])


def _boxes(c, *, sender, font, bold, page_w, box_top) -> None:
    """The sender block, the type-of-mail check boxes and the postmark box."""
    m, box_h = MARGIN_PT, BOX_H_PT
    c.rect(m, box_top - box_h, 230, box_h)
    c.setFont(bold, 7)
    c.drawString(m + 4, box_top - 9, "Name and Address of Sender")
    c.setFont(font, 8)
    y = box_top - 20
    for line in (sender or ["", "", ""])[:5]:
        c.drawString(m + 4, y, line)
        y -= 10
    if not sender:
        for i in range(3):
            c.line(m + 4, box_top - 26 - i * 13, m + 226, box_top - 26 - i * 13)
    x2 = m + 240
    c.rect(x2, box_top - box_h, 300, box_h)
    c.setFont(bold, 7)
    c.drawString(x2 + 4, box_top - 9, "Check type of mail or service")
    c.setFont(font, 7)
    for i, kind in enumerate(MAIL_TYPES):
        col, row = divmod(i, 4)
        bx, by = x2 + 6 + col * 150, box_top - 20 - row * 11
        c.rect(bx, by - 1, 7, 7)
        if kind in TICKED:
            c.drawString(bx + 1.2, by, "X")
        c.drawString(bx + 11, by, kind)
    c.setFont(font, 6)
    c.drawString(x2 + 6, box_top - box_h + 5, "Return receipt requested with certified mail "
                 "(RR Fee column), or tick Certificate of Mailing instead.")
    x3 = x2 + 310
    c.rect(x3, box_top - box_h, page_w - m - x3, box_h)
    c.setFont(font, 6.5)
    c.drawString(x3 + 4, box_top - 9, "Affix stamp here (if issued as a certificate of mailing")
    c.drawString(x3 + 4, box_top - 17, "or for additional copies of this bill)")
    c.drawString(x3 + 4, box_top - 27, "Postmark and date of receipt")


def _columns() -> list[float]:
    x_cols = [MARGIN_PT]
    for w in WIDTHS_PT:
        x_cols.append(x_cols[-1] + w)
    return x_cols


def _totals_y(page_h: float) -> float:
    return page_h - TABLE_TOP_PT - HEAD_H_PT - LINES_PER_PAGE * ROW_H_PT - 14


def _page(c, chunk, *, first_no, page, pages, font, page_w, page_h) -> None:
    """What differs from page to page: its number, its articles and their count."""
    c.setFont(font, 7)
    c.drawRightString(page_w - MARGIN_PT, page_h - MARGIN_PT - 10, f"Page {page} of {pages}")
    x_cols = _columns()
    for r, rec in enumerate(chunk):  # one text object per article
        y_top = page_h - TABLE_TOP_PT - HEAD_H_PT - r * ROW_H_PT
        fitted = addressee_lines(rec, font=font)
        text = c.beginText(x_cols[0] + 3, y_top - 11)
        text.setFont(font, 8)
        text.textOut(str(first_no + r))
        text.setTextOrigin(x_cols[2] + 3, y_top - 3 - fitted.size)
        text.setFont(font, fitted.size, fitted.size * ADDRESSEE_LEADING)
        for line in fitted.lines:
            text.textLine(line)
        c.drawText(text)
    c.setFont(font, 8)
    c.drawString(MARGIN_PT, _totals_y(page_h),
                 f"Total Number of Pieces Listed by Sender: {len(chunk)}")


def _grid(c, x_cols: list[float], table_top: float) -> None:
    """The article table's ruling: a header row and ``LINES_PER_PAGE`` rows, one path."""
    bottom = table_top - HEAD_H_PT - LINES_PER_PAGE * ROW_H_PT
    path = c.beginPath()
    for x in x_cols:
        path.moveTo(x, table_top)
        path.lineTo(x, bottom)
    for y in [table_top, *(table_top - HEAD_H_PT - r * ROW_H_PT
                           for r in range(LINES_PER_PAGE + 1))]:
        path.moveTo(x_cols[0], y)
        path.lineTo(x_cols[-1], y)
    c.drawPath(path, stroke=1, fill=0)


def addressee_lines(rec: dict, *, font: str) -> FittedLabel:
    """One article's addressee cell: name, co-owner and address fitted to the cell, the address
    never given up for a long name (:func:`swm_gis.reports.labels.fit_address`)."""
    return fit_address(*label_parts(rec), width_pt=ADDRESSEE_W_PT, height_pt=ADDRESSEE_H_PT,
                       font=font, max_size=ADDRESSEE_MAX_PT, min_size=ADDRESSEE_MIN_PT)


def unfit_addressees(recips: pd.DataFrame) -> list[str]:
    """Owner names whose address cannot be printed whole in the book's addressee cell."""
    font, _bold = register_fonts()
    out = []
    for rec in recips.to_dict("records"):
        if addressee_lines(rec, font=font).cut == "address":
            names, _address = label_parts(rec)
            out.append(names[0] if names else "(no name)")
    return out


def shortened_labels(recips: pd.DataFrame, *, template: str = "5160") -> list[str]:
    """Owner names whose label (on ``template``) or certified-mail line had to be shortened with
    an ellipsis even at the smallest type, for the package summary: nothing is cut silently (the
    full names stay in mailing_list.csv; the address is always printed whole when it fits)."""
    font, _bold = register_fonts()
    width_pt, height_pt = label_box(template)
    out = []
    for rec in recips.to_dict("records"):
        names, address = label_parts(rec)
        label = fit_address(names, address, width_pt=width_pt, height_pt=height_pt, font=font)
        if label.cut or addressee_lines(rec, font=font).cut:
            out.append(names[0] if names else "(no name)")
    return out


def address_fit_warning(recips, *, label_template: str = "5160") -> dict[str, str] | None:
    """Warning ``address_does_not_fit`` naming the recipients whose address is shortened on the
    ``label_template`` labels or in the certified-mail book (normally none)."""
    from swm_gis.notification.checks import warning
    from swm_gis.reports.labels import unfit_addresses

    names = list(dict.fromkeys([*unfit_addresses(recips, template=label_template),
                                *unfit_addressees(recips)]))
    if not names:
        return None
    shown = "; ".join(names[:5]) + (f"; and {len(names) - 5} more" if len(names) > 5 else "")
    return warning("address_does_not_fit", (
        f"The mailing address of {len(names)} recipient(s) is too long to print whole on the "
        f"labels or in the certified-mail book, even at the smallest size: {shown}. Their "
        "pieces are shortened with an ellipsis: address them by hand from mailing_list.csv."))

__all__ = ["FEE_COLUMNS", "LINES_PER_PAGE", "address_fit_warning", "addressee_lines",
           "shortened_labels", "unfit_addressees", "write_certified_mail"]

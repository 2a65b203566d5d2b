"""The firm mailing book for certified mail (``certified_mail.pdf``), in the layout of USPS PS Form
3877 ("Firm Mailing Book for Accountable Mail").

§ 320-18 A(7) has the applicant notify abutters "by certified mail, return receipt requested, or
by certificates of mailing" and present the receipts at the hearing; the Post Office stamps a
completed 3877 as that receipt. This is a pre-filled copy of the layout (landscape letter, sender
block, type of mail check boxes, eight numbered article lines per page with the addressee's name
and address, postage and fee columns left blank for the clerk, totals per page); it is not the
official USPS form.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from swm_gis.reports import PackageInfo
from swm_gis.reports.labels import fit_lines, label_lines
from swm_gis.reports.pdf_fonts import register_fonts
from swm_gis.writers import atomic_path

LINES_PER_PAGE = 8
#: Columns after the addressee, as on PS Form 3877 (left blank: the clerk fills them in).
FEE_COLUMNS = ["Postage", "Fee", "Handling Charge", "Actual Value if Registered",
               "Insured Value", "Due Sender if COD", "RR Fee", "RD Fee", "SC Fee", "SH Fee"]
MAIL_TYPES = ["Certified", "Return Receipt (hardcopy)", "Return Receipt (electronic)",
              "Certificate of Mailing", "Restricted Delivery", "Registered", "Insured", "COD"]


def write_certified_mail(
    recips: pd.DataFrame,
    info: PackageInfo,
    target: str | Path,
    *,
    sender: list[str] | None = None,
) -> Path:
    """Write the mailing book: ``LINES_PER_PAGE`` recipients per landscape page."""
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
        for p in range(pages):
            chunk = records[p * LINES_PER_PAGE:(p + 1) * LINES_PER_PAGE]
            _page(c, chunk, first_no=p * LINES_PER_PAGE + 1, page=p + 1, pages=pages,
                  total=len(records), info=info, sender=sender, font=font, bold=bold,
                  page_w=page_w, page_h=page_h)
            c.showPage()
        c.save()
    return Path(target)


def _page(c, chunk, *, first_no, page, pages, total, info, sender, font, bold, page_w, page_h
          ) -> None:
    m = 30.0
    top = page_h - m
    c.setFont(bold, 11)
    c.drawString(m, top - 10, "Firm Mailing Book for Accountable Mail")
    c.setFont(font, 7)
    c.drawString(m, top - 20, "Layout of USPS PS Form 3877 (pre-filled by swm-gis; not an "
                              "official USPS form). Abutter notice, Chapter 320 "
                              f"{info.section}.")
    c.drawRightString(page_w - m, top - 10, f"Page {page} of {pages}")

    # sender block, type of mail, postmark box
    box_top, box_h = top - 28, 70.0
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
        bx, by = x2 + 6 + col * 150, box_top - 22 - row * 12
        c.rect(bx, by - 1, 7, 7)
        if kind == "Certified":
            c.drawString(bx + 1.2, by, "X")
        c.drawString(bx + 11, by, kind)
    x3 = x2 + 310
    c.rect(x3, box_top - box_h, page_w - m - x3, box_h)
    c.setFont(font, 6.5)
    c.drawString(x3 + 4, box_top - 9, "Affix stamp here (if issued as a certificate of mailing")
    c.drawString(x3 + 4, box_top - 17, "or for additional copies of this bill)")
    c.drawString(x3 + 4, box_top - 27, "Postmark and date of receipt")

    # article table
    widths = [22, 95, 250] + [36.5] * len(FEE_COLUMNS)  # 732 pt between margins
    x_cols = [m]
    for w in widths:
        x_cols.append(x_cols[-1] + w)
    table_top = box_top - box_h - 8
    head_h, row_h = 26.0, 46.0
    c.setFont(bold, 6)
    heads = ["No.", "Article Number", "Addressee (Name, Street, City, State, & ZIP Code)",
             *FEE_COLUMNS]
    for i, h in enumerate(heads):
        c.rect(x_cols[i], table_top - head_h, widths[i], head_h)
        size, lines = fit_lines([h], width_pt=widths[i] - 4, height_pt=head_h - 4, font=bold,
                                max_size=6, min_size=4)
        c.setFont(bold, size)
        yy = table_top - 8
        for line in lines:
            c.drawString(x_cols[i] + 2, yy, line)
            yy -= size * 1.15
    for r in range(LINES_PER_PAGE):
        y_top = table_top - head_h - r * row_h
        for i, w in enumerate(widths):
            c.rect(x_cols[i], y_top - row_h, w, row_h)
        c.setFont(font, 8)
        no = first_no + r
        if r < len(chunk):
            c.drawString(x_cols[0] + 3, y_top - 11, str(no))
            size, lines = fit_lines(label_lines(chunk[r]), width_pt=widths[2] - 6,
                                    height_pt=row_h - 6, font=font, max_size=8, min_size=5)
            c.setFont(font, size)
            yy = y_top - 3 - size
            for line in lines:
                c.drawString(x_cols[2] + 3, yy, line)
                yy -= size * 1.18
    # totals
    y = table_top - head_h - LINES_PER_PAGE * row_h - 14
    c.setFont(font, 8)
    c.drawString(m, y, f"Total Number of Pieces Listed by Sender: {len(chunk)}")
    c.drawString(m + 200, y, "Total Number of Pieces Received at Post Office: ______")
    c.drawString(m + 430, y, "Postmaster, Per (Name of receiving employee): ____________________")
    c.setFont(font, 6.5)
    for line in [f"All pages together: {total} piece(s).", *info.header_lines()[:2]]:
        y -= 9
        size, fitted = fit_lines([line], width_pt=page_w - 2 * m, height_pt=9, font=font,
                                 max_size=6.5, min_size=4)
        c.setFont(font, size)
        c.drawString(m, y, fitted[0])


__all__ = ["FEE_COLUMNS", "LINES_PER_PAGE", "write_certified_mail"]

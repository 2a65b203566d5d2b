"""Mailing labels on Avery sheets (``labels.pdf``; SPEC section 5).

Avery 5160 is the default: an 8.5 x 11 in sheet of 30 labels, 2.625 x 1 in, 3 across and 10 down,
0.1875 in side margins, 0.5 in top margin and 0.125 in between columns. 5161 (20 labels,
4 x 1 in), 5162 (14 labels, 4 x 1.33 in) and 5163 (10 labels, 4 x 2 in) are offered too. Text
that is too long wraps, then shrinks (down to 5 pt); only past that is a line shortened with an
ellipsis: text never leaves its label. ``offset_in`` shifts everything for printer calibration
(x to the right, y down, in inches).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from swm_gis.owners import normalise_country
from swm_gis.reports import PackageInfo
from swm_gis.reports.pdf_fonts import register_fonts
from swm_gis.writers import atomic_path

PT_PER_IN = 72.0
MAX_FONT_PT = 10.0
MIN_FONT_PT = 5.0
LEADING = 1.18
PAD_X_IN = 0.12
PAD_Y_IN = 0.06


@dataclass(frozen=True)
class LabelSheet:
    """Geometry of one label product, in inches."""

    name: str
    label_w: float
    label_h: float
    cols: int
    rows: int
    side_margin: float
    top_margin: float
    gutter: float  # horizontal space between columns
    page_w: float = 8.5
    page_h: float = 11.0

    @property
    def per_page(self) -> int:
        return self.cols * self.rows

    def origin(self, slot: int) -> tuple[float, float]:
        """Lower-left corner (in, from the page's lower-left) of label ``slot`` (row-major)."""
        row, col = divmod(slot, self.cols)
        x = self.side_margin + col * (self.label_w + self.gutter)
        y = self.page_h - self.top_margin - (row + 1) * self.label_h
        return x, y


SHEETS = {
    "5160": LabelSheet("Avery 5160", 2.625, 1.0, 3, 10, 0.1875, 0.5, 0.125),
    "5161": LabelSheet("Avery 5161", 4.0, 1.0, 2, 10, 0.15625, 0.5, 0.1875),
    "5162": LabelSheet("Avery 5162", 4.0, 4.0 / 3.0, 2, 7, 0.15625, 5.0 / 6.0, 0.1875),
    "5163": LabelSheet("Avery 5163", 4.0, 2.0, 2, 5, 0.15625, 0.5, 0.1875),
}


def label_lines(rec: dict) -> list[str]:
    """The lines of one address label: name, co-owner, street lines, city/state/ZIP, country.

    A recipient from :func:`swm_gis.owners.build_recipients` carries ``address_lines`` (unit
    joined to the street, PO box above the city, the country line on foreign mail): those are
    printed as they are.
    """
    def txt(key: str) -> str:
        v = rec.get(key)
        return "" if v is None or (not isinstance(v, str) and pd.isna(v)) else str(v).strip()

    if txt("address_lines"):  # classified by owners.build_recipients: USPS order, country
        return [line for line in (txt("owner_name"), txt("co_owner"),
                                  *txt("address_lines").split("\n")) if line.strip()]
    street = [txt("address1"), txt("address2")] if ("address1" in rec) else [txt("mail_address")]
    last = " ".join(p for p in (txt("mail_city") + ("," if txt("mail_state") else ""),
                                txt("mail_state"), txt("mail_zip")) if p)
    last = last.rstrip(",")
    # USPS: no country line on domestic mail
    country = txt("mail_country") if normalise_country(txt("mail_country")) else ""
    lines = [txt("owner_name"), txt("co_owner"), *street, last, country]
    return [line for line in lines if line]


def fit_lines(lines: Sequence[str], *, width_pt: float, height_pt: float, font: str,
              max_size: float = MAX_FONT_PT, min_size: float = MIN_FONT_PT
              ) -> tuple[float, list[str]]:
    """Choose a font size and wrapped lines that fit in ``width_pt`` x ``height_pt``.

    Wraps at words first (breaking words longer than the width), shrinks in 0.5 pt steps, and at
    the minimum size shortens the first lines (the name) with an ellipsis, never the address.
    """

    size = max_size
    while True:
        wrapped = [piece for line in lines for piece in _wrap(line, font, size, width_pt)]
        if len(wrapped) * size * LEADING <= height_pt or size <= min_size:
            break
        size -= 0.5
    max_lines = max(1, int(height_pt // (size * LEADING)))
    if len(wrapped) > max_lines:
        wrapped = _shorten(lines, font=font, size=size, width_pt=width_pt, max_lines=max_lines)
    return size, wrapped


def _shorten(lines: Sequence[str], *, font: str, size: float, width_pt: float, max_lines: int
             ) -> list[str]:
    """Wrapped ``lines`` cut to ``max_lines``, keeping the last lines (street, city/state/ZIP)
    whole: the first lines (the owner's name, then the co-owner) give up their wrapped pieces
    first, each shortened one ending in an ellipsis; a line is dropped only if even one piece per
    line does not fit, and then from the top, so the city/state/ZIP line always stays."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    groups = [_wrap(line, font, size, width_pt) for line in lines]
    cut = [False] * len(groups)
    for i in range(len(groups) - 1):  # the last line (city, state, ZIP) is never shortened
        excess = sum(len(g) for g in groups) - max_lines
        if excess <= 0:
            break
        keep = max(1, len(groups[i]) - excess)
        if keep < len(groups[i]):
            groups[i], cut[i] = groups[i][:keep], True
    while sum(len(g) for g in groups) > max_lines and len(groups) > 1:
        drop = 1 if len(groups) > 2 else 0  # the co-owner before the owner
        del groups[drop], cut[drop]
    if len(groups[-1]) > max_lines:  # one line longer than the whole label
        groups[-1], cut[-1] = groups[-1][:max_lines], True
    out: list[str] = []
    for pieces, shortened in zip(groups, cut, strict=True):
        if shortened:
            last = pieces[-1]
            while last and stringWidth(last + "…", font, size) > width_pt:
                last = last[:-1]
            pieces = [*pieces[:-1], last.rstrip() + "…"]
        out.extend(pieces)
    return out[-max_lines:]


def shortened_labels(recips: pd.DataFrame, *, template: str = "5160") -> list[str]:
    """Owner names whose label (on ``template``) or certified-mail line had to be shortened
    even at the smallest type, for the package summary: text is never cut silently."""
    font, _bold = register_fonts()
    sheet = SHEETS[str(template)]
    boxes = [((sheet.label_w - 2 * PAD_X_IN) * PT_PER_IN, (sheet.label_h - 2 * PAD_Y_IN)
              * PT_PER_IN, MAX_FONT_PT, MIN_FONT_PT), (244.0, 40.0, 8.0, 5.0)]
    names = []
    for rec in recips.to_dict("records"):
        lines = label_lines(rec)
        for width, height, big, small in boxes:
            _size, fitted = fit_lines(lines, width_pt=width, height_pt=height, font=font,
                                      max_size=big, min_size=small)
            if any(line.endswith("…") for line in fitted) or len(fitted) < len(lines):
                names.append(lines[0] if lines else "(no name)")
                break
    return names


def _wrap(text: str, font: str, size: float, width: float) -> list[str]:
    from reportlab.pdfbase.pdfmetrics import stringWidth

    out: list[str] = []
    current = ""
    for word in text.split():
        while stringWidth(word, font, size) > width:  # a word longer than the label: break it
            cut = len(word)
            while cut > 1 and stringWidth(word[:cut], font, size) > width:
                cut -= 1
            # prefer a break after a separator ("/", "_", "-", ".") to one mid-word
            seps = [i + 1 for i in range(cut - 1) if word[i] in "/_-.\\,"]
            if seps and seps[-1] > cut // 3:
                cut = seps[-1]
            if current:
                out.append(current)
                current = ""
            out.append(word[:cut])
            word = word[cut:]
        candidate = f"{current} {word}".strip()
        if stringWidth(candidate, font, size) <= width:
            current = candidate
        else:
            out.append(current)
            current = word
    if current:
        out.append(current)
    return out or [""]


def write_labels(
    recips: pd.DataFrame,
    info: PackageInfo,
    target: str | Path,
    *,
    template: str = "5160",
    offset_in: tuple[float, float] = (0.0, 0.0),
) -> Path:
    """Write one label per recipient, in list order, on as many sheets as needed."""
    from reportlab.lib.pagesizes import letter
    from reportlab.pdfgen.canvas import Canvas

    sheet = SHEETS[str(template)]
    font, _bold = register_fonts()
    dx, dy = offset_in[0] * PT_PER_IN, -offset_in[1] * PT_PER_IN
    width_pt = (sheet.label_w - 2 * PAD_X_IN) * PT_PER_IN
    height_pt = (sheet.label_h - 2 * PAD_Y_IN) * PT_PER_IN
    records = recips.to_dict("records")
    with atomic_path(target) as tmp:
        c = Canvas(str(tmp), pagesize=letter, pageCompression=1)
        c.setTitle(f"Abutter mailing labels ({sheet.name}): parcel(s) {info.subject_text}")
        c.setSubject(" ".join(info.header_lines()))
        c.setAuthor("swm-gis")
        if not records:
            c.setFont(font, 10)
            c.drawString(72, 720, "No recipients: no abutting parcel has an owner of record.")
        for i, rec in enumerate(records):
            slot = i % sheet.per_page
            if slot == 0 and i:
                c.showPage()
            x_in, y_in = sheet.origin(slot)
            x = x_in * PT_PER_IN + PAD_X_IN * PT_PER_IN + dx
            top = (y_in + sheet.label_h) * PT_PER_IN - PAD_Y_IN * PT_PER_IN + dy
            size, lines = fit_lines(label_lines(rec), width_pt=width_pt, height_pt=height_pt,
                                    font=font)
            c.setFont(font, size)
            block = len(lines) * size * LEADING
            y = top - (height_pt - block) / 2 - size  # centre the block vertically
            for line in lines:
                c.drawString(x, y, line)
                y -= size * LEADING
        c.showPage()
        c.save()
    return Path(target)


__all__ = ["SHEETS", "LabelSheet", "fit_lines", "label_lines", "shortened_labels",
           "write_labels"]

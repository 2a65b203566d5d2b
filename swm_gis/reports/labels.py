"""Mailing labels on Avery sheets (``labels.pdf``; README "Commands").

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

from swm_gis.io.writers import atomic_path
from swm_gis.notification.info import PackageInfo
from swm_gis.reports.pdf_fonts import register_fonts
from swm_gis.rules.mailing.addresses import format_address

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


def label_parts(rec: dict) -> tuple[list[str], list[str]]:
    """The lines of one address label in two parts: the names (owner, co-owner) and the
    address (street lines, city/state/ZIP, country).

    A recipient from :func:`swm_gis.rules.owners.build_recipients` carries ``address_lines`` (unit
    joined to the street, PO box above the city, the country line on foreign mail): those are
    printed as they are; any other record is formatted by the same one function,
    :func:`swm_gis.rules.mailing.addresses.format_address`.
    """
    def txt(key: str) -> str:
        v = rec.get(key)
        return "" if v is None or (not isinstance(v, str) and pd.isna(v)) else str(v).strip()

    names = [line for line in (txt("owner_name"), txt("co_owner")) if line]
    if txt("address_lines"):  # formatted by owners.build_recipients: USPS order, country
        return names, [line for line in txt("address_lines").split("\n") if line.strip()]
    # a record not yet formatted: the one formatter, never a second one here
    return names, list(format_address(rec).lines)


def label_lines(rec: dict) -> list[str]:
    """The lines of one address label: name, co-owner, street lines, city/state/ZIP, country."""
    names, address = label_parts(rec)
    return names + address


def fit_lines(lines: Sequence[str], *, width_pt: float, height_pt: float, font: str,
              max_size: float = MAX_FONT_PT, min_size: float = MIN_FONT_PT
              ) -> tuple[float, list[str]]:
    """Choose a font size and wrapped lines that fit in ``width_pt`` x ``height_pt``.

    Wraps at words first (breaking words longer than the width), shrinks in 0.5 pt steps, and at
    the minimum size drops what still does not fit, ending the last line with an ellipsis.
    """
    size, wrapped = _shrink_wrap(lines, width_pt=width_pt, height_pt=height_pt, font=font,
                                 max_size=max_size, min_size=min_size)
    return size, _cut(wrapped, _max_lines(height_pt, size), font=font, size=size,
                      width_pt=width_pt)


@dataclass(frozen=True)
class FittedLabel:
    """An address block fitted to a box: font ``size``, the ``lines`` to print, and what had to
    be shortened with an ellipsis (``""`` nothing, ``"name"``, or ``"address"``)."""

    size: float
    lines: list[str]
    cut: str = ""


def fit_address(names: Sequence[str], address: Sequence[str], *, width_pt: float,
                height_pt: float, font: str, max_size: float = MAX_FONT_PT,
                min_size: float = MIN_FONT_PT) -> FittedLabel:
    """Fit a label's names and address in a box, never at the cost of the address.

    Like :func:`fit_lines` (wrap, then shrink down to ``min_size``); when even that is too much
    (a 260-character trust name and a co-owner), the names give way: they keep the lines the
    address leaves and end with an ellipsis, while the street and the city/state/ZIP lines are
    printed whole. Only when the address alone does not fit is it shortened (``cut ==
    "address"``: the piece cannot be mailed from this label and the package must say so).
    """
    size, wrapped = _shrink_wrap([*names, *address], width_pt=width_pt, height_pt=height_pt,
                                 font=font, max_size=max_size, min_size=min_size)
    room = _max_lines(height_pt, size)
    if len(wrapped) <= room:
        return FittedLabel(size, wrapped)
    addr = [piece for line in address for piece in _wrap(line, font, size, width_pt)]
    if names and room - len(addr) >= 1:
        name = [piece for line in names for piece in _wrap(line, font, size, width_pt)]
        kept = _cut(name, room - len(addr), font=font, size=size, width_pt=width_pt)
        return FittedLabel(size, kept + addr, "name")
    if len(addr) <= room:  # no room for a name line at all: the address still goes out whole
        return FittedLabel(size, addr, "name")
    return FittedLabel(size, _cut(addr, room, font=font, size=size, width_pt=width_pt),
                       "address")


def _shrink_wrap(lines: Sequence[str], *, width_pt: float, height_pt: float, font: str,
                 max_size: float, min_size: float) -> tuple[float, list[str]]:
    size = max_size
    while True:
        wrapped = [piece for line in lines for piece in _wrap(line, font, size, width_pt)]
        if len(wrapped) * size * LEADING <= height_pt or size <= min_size:
            return size, wrapped
        size -= 0.5


def _max_lines(height_pt: float, size: float) -> int:
    return max(1, int(height_pt // (size * LEADING)))


def _cut(wrapped: list[str], max_lines: int, *, font: str, size: float, width_pt: float
         ) -> list[str]:
    """The first ``max_lines`` lines, the last ending with an ellipsis when lines were dropped."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    if len(wrapped) <= max_lines:
        return wrapped
    kept = wrapped[:max_lines]
    last = kept[-1]
    while last and stringWidth(last + "…", font, size) > width_pt:
        last = last[:-1]
    kept[-1] = last.rstrip() + "…"
    return kept


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
            fitted = fit_address(*label_parts(rec), width_pt=width_pt, height_pt=height_pt,
                                 font=font)
            size, lines = fitted.size, fitted.lines
            block = len(lines) * size * LEADING
            y = top - (height_pt - block) / 2 - size  # centre the block vertically
            text = c.beginText(x, y)  # one text object per label, not a drawString a line
            text.setFont(font, size, size * LEADING)
            for line in lines:
                text.textLine(line)
            c.drawText(text)
        c.showPage()
        c.save()
    return Path(target)


def label_box(template: str = "5160") -> tuple[float, float]:
    """(width, height) in points of the text area of one label on ``template``."""
    sheet = SHEETS[str(template)]
    return ((sheet.label_w - 2 * PAD_X_IN) * PT_PER_IN, (sheet.label_h - 2 * PAD_Y_IN) * PT_PER_IN)


def unfit_addresses(recips: pd.DataFrame, *, template: str = "5160") -> list[str]:
    """The owner names of recipients whose address cannot be printed whole on a ``template``
    label even at the smallest size (see :func:`fit_address`); normally none."""
    font, _bold = register_fonts()
    width_pt, height_pt = label_box(template)
    out = []
    for rec in recips.to_dict("records"):
        names, address = label_parts(rec)
        if fit_address(names, address, width_pt=width_pt, height_pt=height_pt,
                       font=font).cut == "address":
            out.append(names[0] if names else "(no name)")
    return out


__all__ = ["SHEETS", "FittedLabel", "LabelSheet", "fit_address", "fit_lines", "label_lines",
           "label_box", "label_parts", "unfit_addresses", "write_labels"]

"""The key to the abutters map: one row per numbered abutter (number, map-lot, site address,
distance, owners, note), every cell wrapped to its column at words, never truncated, on as many
pages as the rows need."""

from __future__ import annotations

import pandas as pd

from swm_gis.reports.labels import fit_lines


def key_rows(listed: pd.DataFrame) -> list[tuple[str, ...]]:
    rows = []
    for rec in listed.to_dict("records"):
        # the assessor's map-lot, as clerks and owners know the parcel (the id where none)
        lot = _t(rec.get("map_par_id")) or _t(rec.get("id"))
        rows.append((str(rec.get("map_no", "")), lot, _t(rec.get("site_address")),
                     f"{rec.get('distance_ft', 0):.2f}", _t(rec.get("owners", "")),
                     _t(rec.get("note"))))
    return rows


KEY_COLUMNS = [(30, 26, "No."), (56, 70, "Map-lot"), (126, 150, "Site address"),
               (276, 44, "Dist. ft"), (320, 262, "Owner(s) of record"), (582, 180, "Note")]
KEY_SIZE, KEY_LEADING = 7.0, 8.6


#: With map sheets: a "Sheet" column taken from the note's width.
SHEET_KEY_COLUMNS = [*KEY_COLUMNS[:5], (582, 34, "Sheet"), (616, 146, "Note")]


def key_cells(row: tuple[str, ...], font: str, columns=KEY_COLUMNS) -> list[list[str]]:
    """Each cell of a key row wrapped to its column (names wrap at words, never truncated)."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    out = []
    for (_x, w, _h), val in zip(columns, row, strict=True):
        if len(val) < 4 or stringWidth(val, font, KEY_SIZE) <= w - 4:
            out.append([val])  # fits as it is (most cells): no wrapping work
        else:
            out.append(fit_lines([val], width_pt=w - 4, height_pt=10_000, font=font,
                                 max_size=KEY_SIZE, min_size=KEY_SIZE)[1])
    return out


def key_pages(c, rows, info, *, font, bold, page_w: float, page_h: float,
              sheets: dict[str, int] | None = None) -> None:
    """The key, as many pages as the wrapped rows need; with ``sheets`` (map number -> sheet)
    a column says on which sheet of the map each number is."""
    columns = KEY_COLUMNS
    if sheets:
        columns = SHEET_KEY_COLUMNS
        rows = [(*row[:5], str(sheets.get(row[0], "")), row[5]) for row in rows]
    bottom = 40
    y = None
    page = 0
    for row in rows or [None]:
        cells = (key_cells(row, font, columns) if row
                 else [["No abutting parcels within the distance."]])
        height = max(len(cell) for cell in cells) * KEY_LEADING + 3.5
        if y is None or y - height < bottom:
            if y is not None:
                c.showPage()
            page += 1
            y = _key_header(c, info, len(rows), page, font, bold, page_w, page_h, columns)
        text = c.beginText()  # one text object per row: far cheaper than a drawString a cell
        text.setFont(font, KEY_SIZE)
        for (x, _w, _h), cell in zip(columns, cells, strict=False):
            for i, line in enumerate(cell):
                if line:
                    text.setTextOrigin(x, y - i * KEY_LEADING)
                    text.textOut(line)
        c.drawText(text)
        y -= height
    c.showPage()


def _key_header(c, info, n, page, font, bold, page_w, page_h, columns=KEY_COLUMNS) -> float:
    c.setFont(bold, 11)
    c.drawString(30, page_h - 30, _fit(
        f"Key to the abutters map: parcel(s) {info.subject_text}, {info.distance_text} "
        f"({n} abutting parcel(s)), page {page}", bold, 11, page_w - 60))
    y = page_h - 52
    c.setFont(bold, 7.5)
    for x, _w, head in columns:
        c.drawString(x, y, head)
    c.setFont(font, 6.5)
    c.drawString(30, 24, _fit(" ".join(info.header_lines()[1:2]), font, 6.5, page_w - 60))
    return y - 13


def _fit(text: str, font: str, size: float, width: float) -> str:
    """A one-line heading shortened with an ellipsis (headings only; cells wrap)."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    if stringWidth(text, font, size) <= width:
        return text
    while text and stringWidth(text + "…", font, size) > width:
        text = text[:-1]
    return text.rstrip() + "…"


def _t(v: object) -> str:
    return "" if v is None or (not isinstance(v, str) and pd.isna(v)) else str(v)


__all__ = ["KEY_COLUMNS", "SHEET_KEY_COLUMNS", "key_cells", "key_pages", "key_rows"]

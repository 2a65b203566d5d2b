"""The abutters map (``abutters_map.pdf``): subject, the distance line, numbered abutters keyed to
the list, north arrow, scale bar, legend and data vintage; then the key on the following pages.

Drawn directly with reportlab (the map is a few hundred polygons; matplotlib's import and font
subsetting would cost seconds of the "about a second" budget of an abutter list). Geometries are
clipped to the map frame first. The numbers are the ``map_no`` of ``abutting_parcels.csv``; text
uses the embedded Unicode font, so accented names survive.
"""

from __future__ import annotations

import math
from pathlib import Path

import geopandas as gpd
import numpy as np
import pandas as pd
import shapely

from swm_gis.abutters import M_PER_FT, metres_per_unit
from swm_gis.reports import PackageInfo
from swm_gis.reports.labels import fit_lines
from swm_gis.reports.pdf_fonts import register_fonts
from swm_gis.writers import atomic_path

KEY_ROWS_PER_PAGE = 40
COLOURS = {"subject": "#e06666", "abutter": "#ffd27f", "other_town": "#9ecae1",
           "no_owner": "#f4a6a6", "left_out": "#d9d9d9", "context": "#ffffff",
           "line": "#1f3b73"}
PAGE_W, PAGE_H = 792.0, 612.0  # letter, landscape
FRAME = (30.0, 92.0, 560.0, 560.0)  # x0, y0, x1, y1 of the map frame, points


def write_abutters_map(
    subject: gpd.GeoDataFrame,
    area: gpd.GeoDataFrame,
    listed: gpd.GeoDataFrame,
    left: gpd.GeoDataFrame,
    info: PackageInfo,
    target: str | Path,
    *,
    context: gpd.GeoDataFrame | None = None,
) -> Path:
    """Write the map page and the key pages to ``target`` (letter, landscape)."""
    from reportlab.pdfgen.canvas import Canvas

    font, bold = register_fonts()
    with atomic_path(target) as tmp:
        c = Canvas(str(tmp), pagesize=(PAGE_W, PAGE_H), pageCompression=1)
        c.setTitle(f"Abutters map: parcel(s) {info.subject_text}")
        c.setSubject(" ".join(info.header_lines()))
        c.setAuthor("swm-gis")
        _map_page(c, subject, area, listed, left, info, context, font, bold)
        c.showPage()
        rows = _key_rows(listed)
        for start in range(0, max(len(rows), 1), KEY_ROWS_PER_PAGE):
            _key_page(c, rows[start:start + KEY_ROWS_PER_PAGE], info, n=len(rows), font=font,
                      bold=bold)
            c.showPage()
        c.save()
    return Path(target)


class _View:
    """World (CRS units) -> page points, keeping the aspect ratio, centred in the frame."""

    def __init__(self, bounds: tuple[float, float, float, float]) -> None:
        x0, y0, x1, y1 = bounds
        pad = 0.08 * max(x1 - x0, y1 - y0, 1e-9)
        self.world = (x0 - pad, y0 - pad, x1 + pad, y1 + pad)
        fw, fh = FRAME[2] - FRAME[0], FRAME[3] - FRAME[1]
        ww, wh = self.world[2] - self.world[0], self.world[3] - self.world[1]
        self.scale = min(fw / ww, fh / wh)
        self.ox = FRAME[0] + (fw - ww * self.scale) / 2 - self.world[0] * self.scale
        self.oy = FRAME[1] + (fh - wh * self.scale) / 2 - self.world[1] * self.scale
        # the world box actually visible in the frame
        self.visible = shapely.box((FRAME[0] - self.ox) / self.scale,
                                   (FRAME[1] - self.oy) / self.scale,
                                   (FRAME[2] - self.ox) / self.scale,
                                   (FRAME[3] - self.oy) / self.scale)

    def xy(self, coords: np.ndarray) -> np.ndarray:
        return np.column_stack((coords[:, 0] * self.scale + self.ox,
                                coords[:, 1] * self.scale + self.oy))


def _draw_geoms(c, view: _View, geoms, *, fill: str | None, stroke: str, width: float,
                dash: tuple[float, float] | None = None, lines_only: bool = False) -> None:
    from reportlab.lib.colors import HexColor

    geoms = np.asarray(geoms)
    if len(geoms) == 0:
        return
    clipped = shapely.intersection(geoms, view.visible.buffer(view.visible.length * 0.01))
    c.saveState()
    c.setStrokeColor(HexColor(stroke))
    c.setLineWidth(width)
    if dash:
        c.setDash(*dash)
    if fill:
        c.setFillColor(HexColor(fill))
    for geom in clipped:
        if geom is None or geom.is_empty:
            continue
        p = c.beginPath()
        parts = shapely.get_parts(geom)
        for part in parts:
            rings = ([part] if part.geom_type in ("LineString", "LinearRing") else
                     [part.exterior, *part.interiors] if part.geom_type == "Polygon" else [])
            for ring in rings:
                pts = view.xy(shapely.get_coordinates(ring))
                if len(pts) < 2:
                    continue
                p.moveTo(*pts[0])
                for x, y in pts[1:]:
                    p.lineTo(x, y)
                if ring.geom_type == "LinearRing":
                    p.close()
        c.drawPath(p, stroke=1, fill=int(bool(fill) and not lines_only), fillMode=0)
    c.restoreState()


def _map_page(c, subject, area, listed, left, info, context, font, bold) -> None:
    from reportlab.lib.colors import HexColor, black, white

    view = _View(tuple(area.total_bounds))
    c.setFont(bold, 14)
    c.drawString(FRAME[0], PAGE_H - 30, _fit(f"Abutters map: {info.town}", bold, 14, 730))
    c.setFont(font, 8.5)
    c.drawString(FRAME[0], PAGE_H - 44, _fit(
        f"Subject parcel(s) {info.subject_text}: owners of property within "
        f"{info.distance_text} of the property line (Chapter 320 {info.section})", font, 8.5, 730))

    c.saveState()
    frame = c.beginPath()
    frame.rect(FRAME[0], FRAME[1], FRAME[2] - FRAME[0], FRAME[3] - FRAME[1])
    c.clipPath(frame, stroke=0, fill=0)
    if context is not None and len(context):
        _draw_geoms(c, view, context.geometry.values, fill=COLOURS["context"], stroke="#bbbbbb",
                    width=0.3)
    if "id" in left and len(left):  # the subject is drawn as the subject, not as left out
        left = left[~left["id"].astype(str).isin(info.subject_ids)]
    _draw_geoms(c, view, left.geometry.values, fill=COLOURS["left_out"], stroke="#888888",
                width=0.4)
    for key, mask in _classes(listed).items():
        _draw_geoms(c, view, listed.geometry.values[mask], fill=COLOURS[key], stroke="#555555",
                    width=0.5)
    _draw_geoms(c, view, subject.geometry.values, fill=COLOURS["subject"], stroke="#7f0000",
                width=1.2)
    _draw_geoms(c, view, area.boundary.values, fill=None, stroke=COLOURS["line"], width=1.2,
                dash=(5, 3), lines_only=True)
    if len(listed):
        pts = shapely.point_on_surface(shapely.intersection(listed.geometry.values,
                                                            view.visible))
        for no, pt in zip(listed["map_no"], pts, strict=True):
            if pt is None or pt.is_empty:
                continue
            x, y = view.xy(np.array([[pt.x, pt.y]]))[0]
            label = str(no)
            r = max(5.5, 2.6 * len(label) + 2)
            c.setFillColor(white)
            c.setStrokeColor(HexColor("#333333"))
            c.setLineWidth(0.5)
            c.circle(x, y, r, stroke=1, fill=1)
            c.setFillColor(black)
            c.setFont(bold, 6.5)
            c.drawCentredString(x, y - 2.3, label)
    c.restoreState()
    c.setStrokeColor(black)
    c.setLineWidth(0.8)
    c.rect(FRAME[0], FRAME[1], FRAME[2] - FRAME[0], FRAME[3] - FRAME[1])
    _north_arrow(c, FRAME[2] - 22, FRAME[3] - 50, bold)
    _scale_bar(c, view, listed.crs or subject.crs, font)
    _legend(c, info, font, bold)
    notes = [
        f"{len(listed)} abutting parcel(s), {len(left)} polygon(s) left out. Numbers key to "
        "abutting_parcels.csv (map_no) and to the key on the next page(s).",
        "Distances are exact, measured from the subject property line; the dashed line is "
        "drawn for reference only.",
        *info.header_lines()[1:],
    ]
    y = FRAME[1] - 14
    c.setFillColor(black)
    for line in notes[:7]:
        c.setFont(font, 6.5)
        c.drawString(FRAME[0], y, _fit(line, font, 6.5, PAGE_W - 2 * FRAME[0]))
        y -= 9


def _classes(listed: pd.DataFrame) -> dict[str, np.ndarray]:
    n = len(listed)
    other = (listed["other_town"].fillna(False).astype(bool).to_numpy() if "other_town" in
             listed else np.zeros(n, bool))
    owned = (listed["owner_of_record"].fillna(True).astype(bool).to_numpy() if
             "owner_of_record" in listed else np.ones(n, bool))
    return {"abutter": ~other & owned, "no_owner": ~other & ~owned, "other_town": other}


def _north_arrow(c, x, y, bold) -> None:
    from reportlab.lib.colors import black, white

    c.setFillColor(white)
    c.setStrokeColor(black)
    c.rect(x - 12, y - 8, 24, 48, stroke=0, fill=1)
    c.setFillColor(black)
    p = c.beginPath()
    p.moveTo(x, y + 28)
    p.lineTo(x - 7, y)
    p.lineTo(x, y + 6)
    p.lineTo(x + 7, y)
    p.close()
    c.drawPath(p, stroke=1, fill=1)
    c.setFont(bold, 11)
    c.drawCentredString(x, y + 31, "N")


def _scale_bar(c, view: _View, crs, font) -> None:
    """A bar of a round number of feet, about a quarter of the frame wide."""
    from reportlab.lib.colors import black, white

    unit_per_ft = M_PER_FT / metres_per_unit(crs)
    pt_per_ft = view.scale * unit_per_ft
    target = (FRAME[2] - FRAME[0]) / 4 / pt_per_ft
    exp = 10 ** math.floor(math.log10(max(target, 1)))
    nice = max((n * exp for n in (1, 2, 2.5, 5) if n * exp <= target), default=exp)
    length = nice * pt_per_ft
    x0, y0 = FRAME[0] + 12, FRAME[1] + 12
    c.setFillColor(white)
    c.rect(x0 - 6, y0 - 5, length + 30, 24, stroke=0, fill=1)
    c.setStrokeColor(black)
    c.setLineWidth(0.6)
    for i in range(4):
        c.setFillColor(black if i % 2 == 0 else white)
        c.rect(x0 + i * length / 4, y0, length / 4, 4, stroke=1, fill=1)
    c.setFillColor(black)
    c.setFont(font, 7)
    c.drawCentredString(x0, y0 + 7, "0")
    c.drawCentredString(x0 + length, y0 + 7, f"{nice:g} ft")


def _legend(c, info: PackageInfo, font, bold) -> None:
    from reportlab.lib.colors import HexColor, black

    x, y = FRAME[2] + 16, FRAME[3]
    c.setFillColor(black)
    c.setFont(bold, 10)
    c.drawString(x, y - 10, "Legend")
    items = [
        ("subject", "Subject property"),
        ("line", f"{info.distance_text} from the property line"),
        ("abutter", "Abutter (numbered)"),
        ("no_owner", "Abutter, no owner of record"),
        ("other_town", "Abutter in another town"),
        ("left_out", "Left out (ROW / water, no owner)"),
        ("context", "Other parcels"),
    ]
    y -= 28
    for key, label in items:
        if key == "line":
            c.setStrokeColor(HexColor(COLOURS["line"]))
            c.setDash(5, 3)
            c.setLineWidth(1.2)
            c.line(x, y + 4, x + 18, y + 4)
            c.setDash()
        else:
            c.setFillColor(HexColor(COLOURS[key]))
            c.setStrokeColor(HexColor("#555555"))
            c.setLineWidth(0.5)
            c.rect(x, y, 18, 9, stroke=1, fill=1)
        c.setFillColor(black)
        c.setFont(font, 8)
        c.drawString(x + 24, y + 1.5, label)
        y -= 16
    y -= 8
    c.setFont(bold, 8)
    c.drawString(x, y, "Data")
    c.setFont(font, 7)
    lines = [f"Assessing data: {info.fiscal_year_text}", *info.source_lines(),
             f"Generated {info.generated}"]
    if info.synthetic:
        lines.insert(0, "SYNTHETIC SAMPLE DATA")
    _size, wrapped = fit_lines(lines, width_pt=PAGE_W - 30 - x, height_pt=y - FRAME[1],
                               font=font, max_size=7, min_size=5)
    for line in wrapped:
        y -= 9
        c.drawString(x, y, line)


def _key_rows(listed: pd.DataFrame) -> list[tuple[str, ...]]:
    rows = []
    for rec in listed.to_dict("records"):
        rows.append((str(rec.get("map_no", "")), _t(rec.get("id")), _t(rec.get("site_address")),
                     f"{rec.get('distance_ft', 0):.2f}", _t(rec.get("owners", "")),
                     _t(rec.get("note"))))
    return rows


def _key_page(c, rows, info, *, n: int, font, bold) -> None:
    c.setFont(bold, 11)
    c.drawString(30, PAGE_H - 30, _fit(
        f"Key to the abutters map: parcel(s) {info.subject_text}, {info.distance_text} "
        f"({n} abutting parcel(s))", bold, 11, PAGE_W - 60))
    cols = [(30, 26, "No."), (56, 100, "Parcel id"), (156, 150, "Site address"),
            (306, 52, "Distance ft"), (358, 230, "Owner(s) of record"), (588, 174, "Note")]
    y = PAGE_H - 52
    c.setFont(bold, 7.5)
    for x, _w, head in cols:
        c.drawString(x, y, head)
    y -= 13
    c.setFont(font, 7)
    if not rows:
        c.drawString(30, y, "No abutting parcels within the distance.")
    for row in rows:
        for (x, w, _), val in zip(cols, row, strict=True):
            c.drawString(x, y, _fit(val, font, 7, w - 4))
        y -= 12.5
    c.setFont(font, 6.5)
    c.drawString(30, 24, _fit(" ".join(info.header_lines()[1:2]), font, 6.5, PAGE_W - 60))


def _fit(text: str, font: str, size: float, width: float) -> str:
    """``text`` shortened with an ellipsis to ``width`` points."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    if stringWidth(text, font, size) <= width:
        return text
    while text and stringWidth(text + "…", font, size) > width:
        text = text[:-1]
    return text.rstrip() + "…"


def _t(v: object) -> str:
    return "" if v is None or (not isinstance(v, str) and pd.isna(v)) else str(v)


__all__ = ["write_abutters_map"]

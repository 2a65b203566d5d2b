"""The furniture of the abutters map pages: page and frame geometry, fills, the world-to-page
view, north arrow, scale bar and legend (shared by the single map, the index and the sheets)."""

from __future__ import annotations

import math

import numpy as np
import shapely

from swm_gis.notification.info import PackageInfo
from swm_gis.reports.labels import fit_lines
from swm_gis.units import M_PER_FT, metres_per_unit

#: Fills chosen to stay apart in greyscale print (luminance 60 / 225 / 158 / 230), with textures
#: where two would be close: no owner of record = the abutter fill with diagonal hatching, left
#: out = light grey with a cross grid. Tests check the luminance gaps.
COLOURS = {"subject": "#a50f15", "abutter": "#fee391", "other_town": "#6baed6",
           "no_owner": "#fee391", "left_out": "#e6e6e6", "context": "#ffffff",
           "line": "#1f3b73", "site": "#000000", "street": "#8c8c8c"}
HATCH = {"no_owner": ("diagonal", "#5a5a5a"), "left_out": ("grid", "#9a9a9a")}
PAGE_W, PAGE_H = 792.0, 612.0  # letter, landscape
FRAME = (30.0, 92.0, 560.0, 560.0)  # x0, y0, x1, y1 of the map frame, points



class View:
    """World (CRS units) -> page points, keeping the aspect ratio, centred in the frame."""

    def __init__(self, bounds: tuple[float, float, float, float], pad_frac: float = 0.08
                 ) -> None:
        x0, y0, x1, y1 = bounds
        pad = pad_frac * max(x1 - x0, y1 - y0, 1e-9)
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


def draw_north_arrow(c, x, y, bold) -> None:
    """A north arrow with its "N" at (x, y) points on canvas ``c``."""
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


#: Where the north arrow stands (its foot), inside the frame's top right corner.
NORTH_ARROW_XY = (FRAME[2] - 22, FRAME[3] - 50)


def north_arrow_box() -> tuple[float, float, float, float]:
    """The north arrow's white box (x0, y0, x1, y1, points): nothing is drawn over it."""
    x, y = NORTH_ARROW_XY
    return (x - 12, y - 8, x + 12, y + 40)


def _scale_length(view: View, crs) -> tuple[float, float]:
    """A round number of feet about a quarter of the frame wide, and its length in points."""
    unit_per_ft = M_PER_FT / metres_per_unit(crs)
    pt_per_ft = view.scale * unit_per_ft
    target = (FRAME[2] - FRAME[0]) / 4 / pt_per_ft
    exp = 10 ** math.floor(math.log10(max(target, 1)))
    nice = max((n * exp for n in (1, 2, 2.5, 5) if n * exp <= target), default=exp)
    return nice, nice * pt_per_ft


def scale_bar_box(view: View, crs) -> tuple[float, float, float, float]:
    """The scale bar's white box (x0, y0, x1, y1, points): nothing is drawn over it."""
    _nice, length = _scale_length(view, crs)
    x0, y0 = FRAME[0] + 12, FRAME[1] + 12
    return (x0 - 6, y0 - 5, x0 + length + 24, y0 + 19)


def draw_scale_bar(c, view: View, crs, font) -> None:
    """A bar of a round number of feet, about a quarter of the frame wide."""
    from reportlab.lib.colors import black, white

    nice, length = _scale_length(view, crs)
    x0, y0 = FRAME[0] + 12, FRAME[1] + 12
    bx0, by0, bx1, by1 = scale_bar_box(view, crs)
    c.setFillColor(white)
    c.rect(bx0, by0, bx1 - bx0, by1 - by0, stroke=0, fill=1)
    c.setStrokeColor(black)
    c.setLineWidth(0.6)
    for i in range(4):
        c.setFillColor(black if i % 2 == 0 else white)
        c.rect(x0 + i * length / 4, y0, length / 4, 4, stroke=1, fill=1)
    c.setFillColor(black)
    c.setFont(font, 7)
    c.drawCentredString(x0, y0 + 7, "0")
    c.drawCentredString(x0 + length, y0 + 7, f"{nice:g} ft")


LEGEND_LABELS = {
    "subject": "Subject property (labelled)",
    "site": "Project site (limit of disturbance)",
    "line": None,  # the distance line: its label names the distance
    "abutter": "Abutter (numbered)",
    "no_owner": "Abutter, no owner of record",
    "other_town": "Abutter in another town",
    "left_out": "Left out (ROW / water, no owner)",
    "street": "Street centerline",
    "context": "Other parcels",
}


def draw_legend(c, info: PackageInfo, font, bold, drawn: list[str]) -> None:
    """A legend of exactly what was drawn, then the data sources with their vintage."""
    from reportlab.lib.colors import HexColor, black

    x, y = FRAME[2] + 16, FRAME[3]
    c.setFillColor(black)
    c.setFont(bold, 10)
    c.drawString(x, y - 10, "Legend")
    y -= 28
    for key in drawn:
        label = LEGEND_LABELS[key] or f"{info.distance_text} from the property line"
        if key in ("line", "site", "street"):
            c.setStrokeColor(HexColor(COLOURS[key]))
            c.setDash(*((5, 3) if key == "line" else (2, 2) if key == "site" else (1, 0)))
            c.setLineWidth(1.2 if key != "site" else 2.0)
            c.line(x, y + 4, x + 18, y + 4)
            c.setDash()
        else:
            c.setFillColor(HexColor(COLOURS[key]))
            c.setStrokeColor(HexColor("#000000" if key == "subject" else "#555555"))
            c.setLineWidth(1.6 if key == "subject" else 0.5)
            c.rect(x, y, 18, 9, stroke=1, fill=1)
            if key in HATCH:
                _legend_hatch(c, x, y, *HATCH[key])
        c.setFillColor(black)
        c.setFont(font, 8)
        c.drawString(x + 24, y + 1.5, label)
        y -= 16
    y -= 8
    c.setFont(bold, 8)
    c.drawString(x, y, "Data")
    lines = [f"Assessing data: {info.fiscal_year_text}",
             *[f"{k}: {name}; {vintage}" for k, name, vintage in info.source_rows()],
             f"Generated {info.generated}"]
    if info.synthetic:
        lines.insert(0, "SYNTHETIC SAMPLE DATA")
    size, wrapped = fit_lines(lines, width_pt=PAGE_W - 30 - x, height_pt=y - FRAME[1] - 4,
                              font=font, max_size=7, min_size=5)
    c.setFont(font, size)
    for line in wrapped:
        y -= size * 1.25
        c.drawString(x, y, line)


def _legend_hatch(c, x, y, kind, colour) -> None:
    from reportlab.lib.colors import HexColor

    c.saveState()
    p = c.beginPath()
    p.rect(x, y, 18, 9)
    c.clipPath(p, stroke=0, fill=0)
    c.setStrokeColor(HexColor(colour))
    c.setLineWidth(0.4)
    if kind == "diagonal":
        for k in range(0, 30, 5):
            c.line(x + k, y, x + k - 9, y + 9)
    else:
        for k in range(0, 19, 5):
            c.line(x + k, y, x + k, y + 9)
        for k in range(0, 10, 5):
            c.line(x, y + k, x + 18, y + k)
    c.restoreState()


def fit_text(text: str, font: str, size: float, width: float) -> str:
    """``text`` shortened with an ellipsis to ``width`` points."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    if stringWidth(text, font, size) <= width:
        return text
    while text and stringWidth(text + "…", font, size) > width:
        text = text[:-1]
    return text.rstrip() + "…"



__all__ = ["COLOURS", "FRAME", "HATCH", "LEGEND_LABELS", "NORTH_ARROW_XY", "PAGE_H", "PAGE_W",
           "View", "draw_legend", "draw_north_arrow", "draw_scale_bar", "fit_text",
           "north_arrow_box", "scale_bar_box"]

"""The printable applicability map: ``applicability_map.pdf`` of ``swm-gis publish``.

One US Letter landscape page: every parcel drawn with its look from the package's one map key
(:mod:`swm_gis.applicability.palette`, the QGIS style's and the web map's too): the fill of its
strongest constraint, the patterns of the others (lines at the key's angles, dots on its grid,
spaced and sized in millimetres on paper), a heavy outline for a large parcel; the key beside
it, numbered as on the web map; a scale bar and the screening-aid note.

Drawn with reportlab in a handful of paths (one per fill, one clip per pattern), so a city of
13,000 parcels prints in a second. Helvetica (the PDF standard font): the key's words are plain
ASCII.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import geopandas as gpd
import numpy as np
import shapely

from swm_gis.applicability.palette import legend_table, mark_styles
from swm_gis.units import M_PER_FT, metres_per_unit

PAGE_W, PAGE_H = 792.0, 612.0  # US Letter, landscape, points
#: The map's frame (x0, y0, x1, y1, points) and the key's column.
FRAME = (28.0, 52.0, 500.0, 548.0)
KEY_X, KEY_W = 516.0, 248.0
PT_PER_MM = 72 / 25.4
SWATCH_W, SWATCH_H = 28.0, 16.0
ROW_H = 23.0
FONT, BOLD = "Helvetica", "Helvetica-Bold"


class _View:
    """World (CRS units) -> page points, aspect kept, centred in :data:`FRAME`."""

    def __init__(self, bounds: np.ndarray) -> None:
        x0, y0, x1, y1 = (float(v) for v in bounds)
        pad = 0.02 * max(x1 - x0, y1 - y0, 1e-9)
        x0, y0, x1, y1 = x0 - pad, y0 - pad, x1 + pad, y1 + pad
        fw, fh = FRAME[2] - FRAME[0], FRAME[3] - FRAME[1]
        self.scale = min(fw / (x1 - x0), fh / (y1 - y0))
        self.ox = FRAME[0] + (fw - (x1 - x0) * self.scale) / 2 - x0 * self.scale
        self.oy = FRAME[1] + (fh - (y1 - y0) * self.scale) / 2 - y0 * self.scale

    def xy(self, coords: np.ndarray) -> np.ndarray:
        return np.column_stack((coords[:, 0] * self.scale + self.ox,
                                coords[:, 1] * self.scale + self.oy))


def key_layout(key: list[dict[str, Any]]) -> list[tuple[dict[str, Any], tuple[float, ...]]]:
    """Where each key entry's swatch is drawn: ``(entry, (x, y, w, h))`` in points from the
    page's bottom left (the tests render the page and read the colours there).

    >>> [box for _, box in key_layout([{"kind": "fill", "heading": "Colour"}])]
    [(516.0, 500.0, 28.0, 16.0)]
    """
    return [(e, box) for e, box, _ in _layout(key)]


def _layout(key: list[dict[str, Any]]) -> list[tuple[dict[str, Any], tuple[float, ...],
                                                     list[tuple[str, float]]]]:
    """Each entry with its swatch box and the heading lines (text, baseline) drawn above it."""
    out = []
    y = FRAME[3] - 18.0  # under the key's title
    heading = None
    for e in key:
        lines: list[tuple[str, float]] = []
        if e["heading"] != heading:
            heading = e["heading"]
            for line in _wrap(heading, BOLD, 8.0, KEY_W):
                y -= 10.0
                lines.append((line, y))
            y -= 8.0
        out.append((e, (KEY_X, y - SWATCH_H + 4.0, SWATCH_W, SWATCH_H), lines))
        y -= ROW_H
    return out


def write_map_pdf(path: str | Path, frame: gpd.GeoDataFrame, legend: list[dict[str, Any]],
                  key: list[dict[str, Any]], *, title: str, subtitle: str) -> Path:
    """Write the page to ``path`` (a staging folder's file: the job moves it into place).

    ``frame`` has ``screening_class`` and the parcels' geometry; ``legend`` and ``key`` are
    the web map's (:func:`swm_gis.webmap.site.legend_entries`, :func:`~swm_gis.webmap.site.
    map_key`), so the page and the site say the same.
    """
    from reportlab.pdfgen.canvas import Canvas

    path = Path(path)
    geoms = frame.geometry.values.to_numpy()
    ok = ~(shapely.is_missing(geoms) | shapely.is_empty(geoms))
    view = _View(shapely.total_bounds(geoms[ok]) if ok.any() else np.array([0, 0, 1, 1]))
    geoms = shapely.simplify(geoms, 0.25 / view.scale)  # a quarter point: invisible on paper
    classes = frame["screening_class"].astype(object).to_numpy()
    looks = {e["value"]: e for e in legend}
    c = Canvas(str(path), pagesize=(PAGE_W, PAGE_H), pageCompression=1)
    c.setTitle(title)
    c.setAuthor("swm-gis publish")
    c.setSubject("Applicability map: every parcel by the package's map key")
    outline = legend_table()["outline"]
    for e in key:
        members = [v for v, lk in looks.items() if _uses(lk, e)]
        part = geoms[ok & np.isin(classes, members)]
        if e["kind"] == "fill":
            _draw(c, view, part, fill=e["colour"], stroke=outline["thin_colour"],
                  width=outline["thin_width_mm"] * PT_PER_MM)
        elif e["kind"] == "mark":
            _pattern(c, view, part, mark_styles()[e["key"]])
        else:
            _draw(c, view, part, fill=None, stroke=outline["colour"],
                  width=outline["width_mm"] * PT_PER_MM)
    c.setStrokeColorRGB(0, 0, 0)
    c.setLineWidth(0.6)
    c.rect(FRAME[0], FRAME[1], FRAME[2] - FRAME[0], FRAME[3] - FRAME[1])
    _scale_bar(c, view, frame.crs)
    _texts(c, key, title=title, subtitle=subtitle)
    c.showPage()
    c.save()
    return path


def _uses(look: dict[str, Any], entry: dict[str, Any]) -> bool:
    if entry["kind"] == "fill":
        return look["fill"] == entry["key"]
    if entry["kind"] == "mark":
        return entry["key"] in look["marks"]
    return bool(look["large"])


def _path_code(view: _View, geoms: np.ndarray) -> list[str]:
    """PDF path operators for every ring of ``geoms`` (page points, 0.01 pt)."""
    rings = shapely.get_rings(shapely.get_parts(geoms))
    if len(rings) == 0:
        return []
    coords, index = shapely.get_coordinates(rings, return_index=True)
    xy = view.xy(coords)
    code = []
    for seg in np.split(xy, np.flatnonzero(np.diff(index)) + 1):
        if len(seg) >= 3:
            pts = seg.tolist()
            code.append(f"{pts[0][0]:.2f} {pts[0][1]:.2f} m " + " ".join(
                f"{x:.2f} {y:.2f} l" for x, y in pts[1:]) + " h")
    return code


def _draw(c, view: _View, geoms: np.ndarray, *, fill: str | None, stroke: str,
          width: float) -> None:
    from reportlab.lib.colors import HexColor

    if len(geoms) == 0:
        return
    c.saveState()
    c.setStrokeColor(HexColor(stroke))
    c.setLineWidth(width)
    if fill:
        c.setFillColor(HexColor(fill))
    p = c.beginPath()
    p._code.extend(_path_code(view, geoms))  # one path for all: a drawPath per parcel is slow
    c.drawPath(p, stroke=1, fill=int(bool(fill)), fillMode=0)  # even-odd: holes stay holes
    c.restoreState()


def _pattern(c, view: _View, geoms: np.ndarray, mark: dict[str, Any]) -> None:
    """The mark's lines or dots over the frame, clipped to ``geoms``."""
    if len(geoms) == 0:
        return
    c.saveState()
    p = c.beginPath()
    p._code.extend(_path_code(view, geoms))
    c.clipPath(p, stroke=0, fill=0, fillMode=0)
    _marks(c, mark, FRAME)
    c.restoreState()


def _marks(c, mark: dict[str, Any], box: tuple[float, float, float, float]) -> None:
    """A mark's pattern over ``box`` (x0, y0, x1, y1, points), in the key's millimetres."""
    from reportlab.lib.colors import HexColor

    x0, y0, x1, y1 = box
    step = mark["spacing_mm"] * PT_PER_MM
    width = mark["width_mm"] * PT_PER_MM
    c.setStrokeColor(HexColor(mark["colour"]))
    c.setFillColor(HexColor(mark["colour"]))
    if mark["kind"] == "dots":
        for j, y in enumerate(np.arange(y0 + step / 2, y1, step)):
            shift = step / 2 if j % 2 else 0.0  # staggered, as the web map's
            for x in np.arange(x0 + step / 4 + shift, x1, step):
                c.circle(float(x), float(y), width / 2, stroke=0, fill=1)
        return
    c.setLineWidth(width)
    a = math.radians(mark.get("angle", 0))
    dx, dy = math.cos(a), math.sin(a)
    cx, cy, span = (x0 + x1) / 2, (y0 + y1) / 2, math.hypot(x1 - x0, y1 - y0)
    for k in np.arange(-span / 2, span / 2 + step, step):
        px, py = cx - dy * k, cy + dx * k  # along the normal
        c.line(px - dx * span, py - dy * span, px + dx * span, py + dy * span)


def _scale_bar(c, view: _View, crs) -> None:
    """A bar of a round number of feet, about a fifth of the frame wide, under the frame."""
    pt_per_ft = view.scale * M_PER_FT / metres_per_unit(crs)
    target = (FRAME[2] - FRAME[0]) / 5 / pt_per_ft
    exp = 10 ** math.floor(math.log10(max(target, 1)))
    nice = max((n * exp for n in (1, 2, 2.5, 5) if n * exp <= target), default=exp)
    length, x, y = nice * pt_per_ft, FRAME[0], FRAME[1] - 22
    c.setLineWidth(0.5)
    for i in range(4):
        c.setFillColorRGB(*((0, 0, 0) if i % 2 == 0 else (1, 1, 1)))
        c.rect(x + i * length / 4, y, length / 4, 4, stroke=1, fill=1)
    c.setFillColorRGB(0, 0, 0)
    c.setFont(FONT, 7)
    c.drawString(x + length + 6, y, f"{nice:,g} ft")


def _wrap(text: str, font: str, size: float, width: float) -> list[str]:
    from reportlab.pdfbase.pdfmetrics import stringWidth

    lines, line = [], ""
    for word in text.split():
        trial = f"{line} {word}".strip()
        if line and stringWidth(trial, font, size) > width:
            lines.append(line)
            line = word
        else:
            line = trial
    return lines + ([line] if line else [])


def _texts(c, key: list[dict[str, Any]], *, title: str, subtitle: str) -> None:
    from reportlab.lib.colors import HexColor

    c.setFillColorRGB(0, 0, 0)
    c.setFont(BOLD, 13)
    c.drawString(FRAME[0], PAGE_H - 34, title)
    c.setFont(FONT, 8)
    c.drawString(FRAME[0], PAGE_H - 48, subtitle)
    c.setFont(BOLD, 10)
    c.drawString(KEY_X, FRAME[3] - 8, "Map key")
    marks = mark_styles()
    outline = legend_table()["outline"]
    for e, (x, y, w, h), heading in _layout(key):
        c.setFont(BOLD, 8)
        for line, baseline in heading:
            c.drawString(KEY_X, baseline, line)
        c.saveState()
        c.setFillColor(HexColor(e["colour"] if e["kind"] == "fill" else "#FFFFFF"))
        c.setStrokeColor(HexColor(outline["colour"] if e["kind"] == "outline"
                                  else outline["thin_colour"]))
        c.setLineWidth(outline["width_mm"] * PT_PER_MM if e["kind"] == "outline" else 0.5)
        c.rect(x, y, w, h, stroke=1, fill=1)
        if e["kind"] == "mark":
            p = c.beginPath()
            p.rect(x, y, w, h)
            c.clipPath(p, stroke=0, fill=0)
            _marks(c, marks[e["key"]], (x, y, x + w, y + h))
        c.restoreState()
        c.setFillColorRGB(0, 0, 0)
        c.setFont(BOLD, 8)
        c.drawString(x + w + 4, y + h - 6, str(e["n"]))
        c.setFont(FONT, 7.5)
        lines = _wrap(f"{e['label']} ({e['parcels']:,})", FONT, 7.5, KEY_W - w - 22)
        for i, line in enumerate(lines[:2]):
            c.drawString(x + w + 18, y + h - 6 - 8.5 * i, line)
    c.setFont(FONT, 7)
    note = ("A screening aid, not a determination: the Conservation Commission decides. "
            "Numbers in brackets: parcels. Colour: the strongest constraint found; patterns: "
            "the other constraints and the checks not run; heavy outline: a large parcel.")
    for i, line in enumerate(_wrap(note, FONT, 7, KEY_W)):
        c.drawString(KEY_X, FRAME[1] + 26 - 9 * i, line)


__all__ = ["FRAME", "PAGE_H", "PAGE_W", "key_layout", "write_map_pdf"]

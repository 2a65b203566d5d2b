"""A large abutters map split into readable sheets with an index.

One page holds every number legibly up to :data:`SINGLE_PAGE_MAX` abutters. Beyond that the map
is cut into a grid of sheets at a scale where the median abutter is drawn at least
:data:`MIN_PARCEL_PT` wide (room for its number): the index page shows the whole search area
with the grid and each sheet's number; each sheet page shows its cell with every number whose
label point falls in it (so each number is on exactly one sheet), and the key names each
number's sheet. Frames are cut to each sheet with an STRtree, so a sheet costs what it shows.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import geopandas as gpd
import numpy as np
import shapely

from swm_gis.reports.map_furniture import FRAME, View

#: Up to this many abutters, one page shows every number.
SINGLE_PAGE_MAX = 150
#: On a sheet, the median abutter is drawn at least this wide (points).
MIN_PARCEL_PT = 30.0
#: Margin of a sheet's view around its cell (share of the cell), so edge numbers fit the frame.
SHEET_PAD = 0.04


@dataclass(frozen=True)
class Sheet:
    """One sheet: its number, its cell (world units) and the rows of ``listed`` it numbers."""

    number: int
    cell: shapely.Polygon
    rows: np.ndarray  # positions in ``listed``


def sheet_plan(listed: gpd.GeoDataFrame, points: np.ndarray, *,
               single_page_max: int | None = None,
               min_parcel_pt: float | None = None) -> list[Sheet] | None:
    """The sheets of the map, numbered in reading order (rows from the north, west to east);
    None when one page is enough. Cells without a number are left out."""
    single_page_max = SINGLE_PAGE_MAX if single_page_max is None else single_page_max
    min_parcel_pt = MIN_PARCEL_PT if min_parcel_pt is None else min_parcel_pt
    if len(listed) <= single_page_max:
        return None
    xy = np.array([(p.x, p.y) if p is not None and not p.is_empty else (np.nan, np.nan)
                   for p in points])
    ok = np.isfinite(xy).all(axis=1)
    widths = np.sqrt(shapely.area(listed.geometry.values))
    median_w = float(np.median(widths[widths > 0])) if (widths > 0).any() else 1.0
    scale = min_parcel_pt / median_w  # points per world unit
    fw, fh = FRAME[2] - FRAME[0], FRAME[3] - FRAME[1]
    cell_w, cell_h = fw / scale / (1 + 2 * SHEET_PAD), fh / scale / (1 + 2 * SHEET_PAD)
    x0, y0 = np.nanmin(xy[ok, 0]), np.nanmin(xy[ok, 1])
    x1, y1 = np.nanmax(xy[ok, 0]), np.nanmax(xy[ok, 1])
    nx = max(1, math.ceil((x1 - x0) / cell_w + 1e-9))
    ny = max(1, math.ceil((y1 - y0) / cell_h + 1e-9))
    gx0 = (x0 + x1) / 2 - nx * cell_w / 2  # the grid centred on the numbers
    gy0 = (y0 + y1) / 2 - ny * cell_h / 2
    ix = np.clip(((xy[:, 0] - gx0) // cell_w), 0, nx - 1)
    iy = np.clip(((xy[:, 1] - gy0) // cell_h), 0, ny - 1)
    cell_id = np.where(ok, (ny - 1 - iy) * nx + ix, -1).astype(int)
    sheets = []
    for cid in np.unique(cell_id[cell_id >= 0]):
        row, col = divmod(int(cid), nx)
        cx0, cy0 = gx0 + col * cell_w, gy0 + (ny - 1 - row) * cell_h
        sheets.append(Sheet(len(sheets) + 1, shapely.box(cx0, cy0, cx0 + cell_w, cy0 + cell_h),
                            np.flatnonzero(cell_id == cid)))
    return sheets


class _Cutter:
    """Rows of a frame that reach into a box, through an STRtree built once."""

    def __init__(self, frame: gpd.GeoDataFrame | None) -> None:
        self.frame = frame
        self.tree = (shapely.STRtree(np.asarray(frame.geometry.values))
                     if frame is not None and len(frame) else None)

    def positions(self, box: shapely.Geometry) -> np.ndarray:
        if self.tree is None:
            return np.empty(0, dtype=int)
        return np.sort(self.tree.query(box, predicate="intersects"))

    def cut(self, box: shapely.Geometry) -> gpd.GeoDataFrame | None:
        if self.frame is None or self.tree is None:
            return self.frame
        return self.frame.iloc[self.positions(box)]


def draw_sheets(c, plan: list[Sheet], frames: dict, points: np.ndarray, info, extras: dict,
                font: str, bold: str, *, page: Callable) -> dict[str, int]:
    """Draw the index page and one page per sheet; return map number -> sheet number.

    ``page`` is the map page drawer (:func:`swm_gis.reports.abutters_map._map_page`).
    """
    listed = frames["listed"]
    subject, area = frames["subject"], frames["area"]
    n = len(plan)
    sheet_of = np.zeros(len(listed), dtype=int)
    for sheet in plan:
        sheet_of[sheet.rows] = sheet.number
    numbers = listed["map_no"].astype(str).to_numpy() if len(listed) else np.array([])
    note = (f"The map is split into {n} sheets at a scale where each number fits its parcel: "
            "this index shows the whole search area and the sheet grid; the key gives each "
            "number's sheet.")
    index_extras = {**extras, "streets": None}
    page(c, subject, area, listed, frames["left"], info, None, font, bold, index_extras,
         points=points, numbered=np.zeros(len(listed), dtype=bool),
         heading=f"index of {n} sheets", notes_extra=(note,), names=False,
         overlay=lambda cv, view: _grid(cv, view, plan, bold))
    c.showPage()
    cutters = {k: _Cutter(frames.get(k)) for k in ("listed", "left", "context")}
    streets = _Cutter(extras.get("streets"))
    for sheet in plan:
        view = View(sheet.cell.bounds, SHEET_PAD)
        box = view.visible
        rows = cutters["listed"].positions(box)
        numbered = np.isin(rows, sheet.rows)
        first, last = min(numbers[sheet.rows], key=int), max(numbers[sheet.rows], key=int)
        page(c, subject, area, listed.iloc[rows], cutters["left"].cut(box), info,
             cutters["context"].cut(box), font, bold,
             {**extras, "streets": streets.cut(box)}, points=points[rows], view=view,
             numbered=numbered, heading=f"sheet {sheet.number} of {n}",
             notes_extra=(f"Sheet {sheet.number} of {n}: {len(sheet.rows)} numbers "
                          f"({first} to {last} among them); the index is the first page.",))
        c.showPage()
    return {str(no): int(s) for no, s in zip(numbers, sheet_of, strict=True)}


def _grid(c, view: View, plan: list[Sheet], bold: str) -> None:
    """The sheet cells on the index, each with its number on a white disc."""
    from reportlab.lib.colors import HexColor, black, white

    c.setStrokeColor(HexColor("#1f3b73"))
    c.setLineWidth(0.9)
    for sheet in plan:
        (x0, y0), (x1, y1) = view.xy(np.array([sheet.cell.bounds[:2], sheet.cell.bounds[2:]]))
        c.rect(x0, y0, x1 - x0, y1 - y0, stroke=1, fill=0)
    for sheet in plan:
        (x0, y0), (x1, y1) = view.xy(np.array([sheet.cell.bounds[:2], sheet.cell.bounds[2:]]))
        label = str(sheet.number)
        r = 4.0 + 3.2 * len(label)
        x, y = (x0 + x1) / 2, (y0 + y1) / 2
        c.setFillColor(white)
        c.setStrokeColor(black)
        c.circle(x, y, r, stroke=1, fill=1)
        c.setFillColor(black)
        c.setFont(bold, 8)
        c.drawCentredString(x, y - 2.8, label)


__all__ = ["MIN_PARCEL_PT", "SINGLE_PAGE_MAX", "Sheet", "draw_sheets", "sheet_plan"]

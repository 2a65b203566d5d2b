"""Where the numbers and names of the abutters map go, so that nothing hides anything.

:class:`Taken` holds what is already on a page (number circles, the north arrow, the scale bar,
label boxes); :func:`place_numbers` puts each abutter's numbered circle at its parcel's point,
else at a free point inside its parcel, else on the nearest free ring round it with a leader
line (a cluster of lots too small for their numbers), always wholly inside the map frame; the
street names and parcel ids are then placed only where :meth:`Taken.clear_of` says they cover
nothing (:mod:`swm_gis.reports.abutters_map`).
"""

from __future__ import annotations

import math

import numpy as np
import shapely

from swm_gis.reports.map_furniture import FRAME


class Taken:
    """What is already on the page (points): number circles in a grid of :data:`_CELL_PT`
    cells (a check looks at its neighbours only: a sheet places hundreds) and boxes (the
    north arrow, the scale bar, labels), so nothing new is drawn over them."""

    def __init__(self, rects=()) -> None:
        self.grid: dict[tuple[int, int], list[tuple[float, float, float]]] = {}
        self.rects: list[tuple[float, float, float, float]] = []
        self.shapes: list[shapely.Geometry] = []  # rotated label boxes (street names)
        for r in rects:
            self.add_rect(r)

    def add_circle(self, x: float, y: float, r: float) -> None:
        self.grid.setdefault((int(x // _CELL_PT), int(y // _CELL_PT)), []).append((x, y, r))

    def add_rect(self, rect) -> None:
        self.rects.append(tuple(float(v) for v in rect))

    def add_shape(self, shape: shapely.Geometry) -> None:
        self.shapes.append(shape)

    def circles_near(self, x: float, y: float, reach: float = 0.0):
        gx, gy = int(x // _CELL_PT), int(y // _CELL_PT)
        k = 1 + int(reach // _CELL_PT)
        return [c for i in range(-k, k + 1) for j in range(-k, k + 1)
                for c in self.grid.get((gx + i, gy + j), ())]

    def free(self, xy: np.ndarray, r: float, *, gap: float = 1.0) -> np.ndarray:
        """Which circle centres ``xy`` (n x 2) of radius ``r`` are wholly in the frame and
        clear of everything taken."""
        xy = np.atleast_2d(np.asarray(xy, dtype=float))
        inset = r + 1.0
        ok = ((xy[:, 0] >= FRAME[0] + inset) & (xy[:, 0] <= FRAME[2] - inset)
              & (xy[:, 1] >= FRAME[1] + inset) & (xy[:, 1] <= FRAME[3] - inset))
        if not ok.any():
            return ok
        lo, hi = xy[ok].min(axis=0), xy[ok].max(axis=0)
        near = [c for c in self.circles_near((lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2,
                                              reach=max(hi[0] - lo[0], hi[1] - lo[1]) / 2 + 20)]
        if near:
            others = np.array(near)
            d = np.hypot(xy[:, None, 0] - others[None, :, 0], xy[:, None, 1] - others[None, :, 1])
            ok &= (d >= others[None, :, 2] + r + gap).all(axis=1)
        for x0, y0, x1, y1 in self.rects:
            dx = np.maximum(np.maximum(x0 - xy[:, 0], xy[:, 0] - x1), 0)
            dy = np.maximum(np.maximum(y0 - xy[:, 1], xy[:, 1] - y1), 0)
            ok &= np.hypot(dx, dy) >= r + gap
        for shape in self.shapes:
            if ok.any():
                pts = shapely.points(xy[ok])
                ok[np.flatnonzero(ok)] = shapely.distance(pts, shape) >= r + gap
        return ok

    def clear_of(self, shape: shapely.Geometry, *, gap: float = 1.0) -> bool:
        """Whether a label box (page points) is in the frame and clear of everything taken."""
        x0, y0, x1, y1 = shape.bounds
        if x0 < FRAME[0] + 1 or y0 < FRAME[1] + 1 or x1 > FRAME[2] - 1 or y1 > FRAME[3] - 1:
            return False
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        for px, py, pr in self.circles_near(cx, cy, reach=max(x1 - x0, y1 - y0) / 2 + 20):
            if shapely.distance(shape, shapely.Point(px, py)) < pr + gap:
                return False
        grown = shapely.buffer(shape, gap, join_style="mitre")
        return not any(shapely.intersects(grown, shapely.box(*r)) for r in self.rects) and \
            not any(shapely.intersects(grown, other) for other in self.shapes)


#: Grid cell of the placed-circle index (points): larger than two circles' reach.
_CELL_PT = 40.0
#: Rings searched for a number with no room in its parcel (points from its parcel's point).
_LEADER_STEPS = (2.2, 3.0, 4.0, 5.5, 7.5, 10.0, 13.0, 17.0, 22.0)


def place_numbers(view, listed, points, bold, area, taken: Taken) -> list[tuple]:
    """Where each numbered circle goes: ``(label, x, y, r, anchor)``, ``anchor`` the parcel
    point a leader line runs to (None when the circle sits on its parcel).

    A circle never covers another or anything ``taken`` and lies wholly in the frame: at the
    parcel's label point if that is free, else at the free point of a grid over the parcel's
    part in the search area farthest from the placed circles, else on the nearest free ring
    round the point, with a leader to it (a dense cluster of small lots)."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    reach = shapely.union_all(area.geometry.values) if area is not None else None
    if reach is not None:
        shapely.prepare(reach)
    geoms = listed.geometry.values if len(listed) else []
    marks = []
    for no, pt, geom in zip(listed["map_no"] if len(listed) else [], points, geoms,
                            strict=True):
        if pt is None or pt.is_empty:
            continue
        label = str(no)
        r = max(5.5, stringWidth(label, bold, 6.5) / 2 + 2.0)
        x, y = view.xy(np.array([[pt.x, pt.y]]))[0]
        anchor = None
        if not taken.free(np.array([[x, y]]), r)[0]:
            spot = _free_in_parcel(view, geom, reach, taken, r)
            if spot is None:
                spot = _free_ring(x, y, r, taken)
                anchor = (x, y) if spot is not None else None
            if spot is not None:
                x, y = spot
        taken.add_circle(x, y, r)
        marks.append((label, float(x), float(y), r, anchor))
    return marks


def _free_in_parcel(view, geom, reach, taken: Taken, r: float, *, n: int = 9):
    """The free point of an n x n grid over the parcel's part in the search area farthest from
    the placed circles; None when no grid point is free."""
    inside = reach is None or shapely.contains_properly(reach, geom)
    part = geom if inside else shapely.intersection(geom, reach)
    if part is None or part.is_empty:
        part = geom
    x0, y0, x1, y1 = part.bounds
    gx, gy = np.meshgrid(np.linspace(x0, x1, n), np.linspace(y0, y1, n))
    cand = shapely.points(gx.ravel(), gy.ravel())
    cand = cand[shapely.contains(part, cand)]
    if len(cand) == 0:
        return None
    xy = view.xy(shapely.get_coordinates(cand))
    xy = xy[taken.free(xy, r)]
    if not len(xy):
        return None
    near = taken.circles_near(float(xy[:, 0].mean()), float(xy[:, 1].mean()), reach=60)
    if not near:
        return float(xy[0, 0]), float(xy[0, 1])
    others = np.array(near)
    gap = (np.hypot(xy[:, None, 0] - others[None, :, 0], xy[:, None, 1] - others[None, :, 1])
           - others[None, :, 2]).min(axis=1)
    best = int(np.argmax(gap))
    return float(xy[best, 0]), float(xy[best, 1])


def _free_ring(x: float, y: float, r: float, taken: Taken):
    """The nearest free circle centre on rings round (x, y), 24 directions each, preferring one
    whose leader line passes under no placed circle (the first free one otherwise)."""
    angles = np.linspace(0, 2 * np.pi, 24, endpoint=False)
    fallback = None
    for step in _LEADER_STEPS:
        d = step * r
        xy = np.column_stack((x + d * np.cos(angles), y + d * np.sin(angles)))
        ok = np.flatnonzero(taken.free(xy, r))
        if not len(ok):
            continue
        near = taken.circles_near(x, y, reach=d + r)
        for k in ok:
            if not _leader_crosses(x, y, xy[k, 0], xy[k, 1], near):
                return float(xy[k, 0]), float(xy[k, 1])
        if fallback is None:
            fallback = (float(xy[ok[0], 0]), float(xy[ok[0], 1]))
    return fallback


def _leader_crosses(ax: float, ay: float, bx: float, by: float, circles) -> bool:
    """Whether the segment from (ax, ay) to (bx, by) passes under one of ``circles``."""
    if not circles:
        return False
    c = np.asarray(circles, dtype=float)
    dx, dy = bx - ax, by - ay
    t = np.clip(((c[:, 0] - ax) * dx + (c[:, 1] - ay) * dy) / max(dx * dx + dy * dy, 1e-12),
                0, 1)
    dist = np.hypot(ax + t * dx - c[:, 0], ay + t * dy - c[:, 1])
    return bool((dist < c[:, 2]).any())


def draw_numbers(c, marks, bold) -> None:
    """Leader lines first, then the numbered circles over them."""
    from reportlab.lib.colors import HexColor, black, white

    c.setLineWidth(0.5)
    c.setStrokeColor(HexColor("#333333"))
    for _label, x, y, r, anchor in marks:
        if anchor is None:
            continue
        ax, ay = anchor
        c.circle(ax, ay, 1.2, stroke=1, fill=0)
        d = math.hypot(x - ax, y - ay) or 1.0
        c.line(ax, ay, x - (x - ax) * r / d, y - (y - ay) * r / d)
    c.setFont(bold, 6.5)
    for label, x, y, r, _anchor in marks:
        c.setFillColor(white)
        c.setStrokeColor(HexColor("#333333"))
        c.circle(x, y, r, stroke=1, fill=1)
        c.setFillColor(black)
        c.drawCentredString(x, y - 2.3, label)


def text_box(x: float, y: float, width: float, size: float, angle: float = 0.0):
    """The page box of a halo text centred at (x, y) (baseline at y - 0.3 size), rotated."""
    import shapely.affinity

    rect = shapely.box(x - width / 2 - 1.5, y - size * 0.3, x + width / 2 + 1.5, y + size * 0.9)
    return shapely.affinity.rotate(rect, angle, origin=(x, y)) if angle else rect


__all__ = ["Taken", "draw_numbers", "place_numbers", "text_box"]

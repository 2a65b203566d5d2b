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

from swm_gis.ids import id_text
from swm_gis.io.writers import atomic_path
from swm_gis.notification.info import PackageInfo
from swm_gis.reports.abutters_key import key_pages, key_rows
from swm_gis.reports.abutters_sheets import draw_sheets, sheet_plan
from swm_gis.reports.labels import fit_lines
from swm_gis.reports.map_furniture import (
    COLOURS,
    FRAME,
    HATCH,
    NORTH_ARROW_XY,
    PAGE_H,
    PAGE_W,
    View,
    draw_legend,
    draw_north_arrow,
    draw_scale_bar,
    fit_text,
    north_arrow_box,
    scale_bar_box,
)
from swm_gis.reports.map_placement import Taken, draw_numbers, place_numbers, text_box
from swm_gis.reports.pdf_fonts import register_fonts

_View = View

def write_abutters_map(
    subject: gpd.GeoDataFrame,
    area: gpd.GeoDataFrame,
    listed: gpd.GeoDataFrame,
    left: gpd.GeoDataFrame,
    info: PackageInfo,
    target: str | Path,
    *,
    context: gpd.GeoDataFrame | None = None,
    site: gpd.GeoDataFrame | None = None,
    streets: gpd.GeoDataFrame | None = None,
    subject_labels: dict[str, str] | None = None,
    left_out_count: int | None = None,
) -> Path:
    """Write the map page and the key pages to ``target`` (letter, landscape).

    When the abutters are too many for one legible page (more than
    :data:`~swm_gis.reports.abutters_sheets.SINGLE_PAGE_MAX`), the map is split into sheets
    at a scale where a typical abutter is large enough for its number: the first page is the
    index (the whole search area with the sheet grid), then one page per sheet (each number on
    exactly one sheet), and the key gives each number's sheet.

    Parameters
    ----------
    subject, area, listed, left
        Subject parcels, the search area, the abutting parcels (``map_no``, ``id``, ``owners``,
        ``site_address``, ``distance_ft``, ``owner_of_record``, ``other_town``) and the left-out
        polygons, all in one projected CRS.
    context
        Other parcels around, drawn thin; labelled with their id when no ``streets`` are given.
    site
        The ``site=`` polygon(s), drawn with a heavy dashed outline.
    streets
        Street centerlines with a ``name`` column ([layers.streets]); names are printed along
        the longest piece of each street in view.
    subject_labels
        Subject parcel id -> site address, printed in the subject's label.
    left_out_count
        The number of left-out polygons the other outputs state (default ``len(left)``, the
        rows of ``left_out.csv``), so every output gives one count.
    """
    from reportlab.pdfgen.canvas import Canvas

    font, bold = register_fonts()
    with atomic_path(target) as tmp:
        c = Canvas(str(tmp), pagesize=(PAGE_W, PAGE_H), pageCompression=1)
        c.setTitle(f"Abutters map: parcel(s) {info.subject_text}")
        c.setSubject(" ".join(info.header_lines()))
        c.setAuthor("swm-gis")
        extras = {"site": site, "streets": streets, "subject_labels": subject_labels or {},
                  "left_out_count": len(left) if left_out_count is None else left_out_count,
                  "abutting_count": len(listed)}
        points = label_points(listed, area)
        plan = sheet_plan(listed, points)
        sheets = None
        if plan is None:
            _map_page(c, subject, area, listed, left, info, context, font, bold, extras,
                      points=points)
            c.showPage()
        else:
            frames = {"subject": subject, "area": area, "listed": listed, "left": left,
                      "context": context}
            sheets = draw_sheets(c, plan, frames, points, info, extras, font, bold,
                                 page=_map_page)
        key_pages(c, key_rows(listed), info, font=font, bold=bold, page_w=PAGE_W,
                  page_h=PAGE_H, sheets=sheets)
        c.save()
    return Path(target)


def _hatch(c, view: _View, geoms, kind: str, colour: str) -> None:
    """Texture inside each polygon (clipped to it): diagonal lines or a grid, 5 pt apart."""
    from reportlab.lib.colors import HexColor

    for geom in shapely.intersection(np.asarray(geoms), view.visible):
        if geom is None or geom.is_empty:
            continue
        c.saveState()
        p = _path(c, view, geom)
        c.clipPath(p, stroke=0, fill=0)
        c.setStrokeColor(HexColor(colour))
        c.setLineWidth(0.4)
        x0, y0 = view.xy(np.array([geom.bounds[:2]]))[0]
        x1, y1 = view.xy(np.array([geom.bounds[2:]]))[0]
        step = 5.0
        if kind == "diagonal":
            span = (x1 - x0) + (y1 - y0)
            for k in np.arange(0, span + step, step):
                c.line(x0 + k, y0, x0 + k - (y1 - y0), y1)
        else:
            for x in np.arange(x0, x1 + step, step):
                c.line(x, y0, x, y1)
            for y in np.arange(y0, y1 + step, step):
                c.line(x0, y, x1, y)
        c.restoreState()


def _path(c, view: _View, geom):
    p = c.beginPath()
    for part in shapely.get_parts(geom):
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
    return p


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
    p = c.beginPath()
    p._code.extend(_path_code(view, clipped))  # one path for all: a drawPath per parcel is slow
    c.drawPath(p, stroke=1, fill=int(bool(fill) and not lines_only), fillMode=0)  # even-odd
    c.restoreState()


def _path_code(view: _View, geoms: np.ndarray) -> list[str]:
    """PDF path operators for every ring and line of ``geoms`` (page points, 0.01 pt)."""
    geoms = geoms[~(shapely.is_missing(geoms) | shapely.is_empty(geoms))]
    parts = shapely.get_parts(geoms)
    kinds = shapely.get_type_id(parts)
    code: list[str] = []
    for pieces, close in ((shapely.get_rings(parts[kinds == 3]), True),
                          (parts[(kinds == 1) | (kinds == 2)], False)):
        if len(pieces) == 0:
            continue
        coords, index = shapely.get_coordinates(pieces, return_index=True)
        xy = view.xy(coords)
        for seg in np.split(xy, np.flatnonzero(np.diff(index)) + 1):
            if len(seg) < 2:
                continue
            pts = seg.tolist()
            code.append(f"{pts[0][0]:.2f} {pts[0][1]:.2f} m " + " ".join(
                f"{x:.2f} {y:.2f} l" for x, y in pts[1:]) + (" h" if close else ""))
    return code


def label_points(listed: gpd.GeoDataFrame, area: gpd.GeoDataFrame) -> np.ndarray:
    """Where each abutter's number goes: inside the part of the parcel within the search area
    (a 777-acre street polygon gets its number near the subject, not at its far centre)."""
    geoms = listed.geometry.values
    if len(geoms) == 0:
        return np.empty(0, dtype=object)
    reach = shapely.union_all(area.geometry.values)
    inside = shapely.intersection(geoms, reach)
    points = shapely.point_on_surface(inside)
    # a parcel outside the drawn area (a listed pond neighbour): its point nearest the area
    outside = shapely.is_empty(inside) | (shapely.area(inside) <= 0)
    if outside.any():
        points[outside] = shapely.get_point(shapely.shortest_line(geoms[outside], reach), 0)
    return points


def map_view(area: gpd.GeoDataFrame, points: np.ndarray, *, radius_pt: float = 9.0) -> _View:
    """The view holding the search area and every number's circle wholly inside the frame; the
    padding grows until they fit (numbers are never cut off by the frame)."""
    boxes = [area.total_bounds]
    pts = [p for p in points if p is not None and not p.is_empty]
    if pts:
        boxes.append(shapely.MultiPoint(pts).bounds)
    b = np.array(boxes, dtype=float)
    bounds = (b[:, 0].min(), b[:, 1].min(), b[:, 2].max(), b[:, 3].max())
    pad = 0.08
    while True:
        view = _View(bounds, pad)
        if not pts or pad > 1:
            return view
        xy = view.xy(np.array([[p.x, p.y] for p in pts]))
        inset = radius_pt + 1
        if ((xy[:, 0] >= FRAME[0] + inset) & (xy[:, 0] <= FRAME[2] - inset)
                & (xy[:, 1] >= FRAME[1] + inset) & (xy[:, 1] <= FRAME[3] - inset)).all():
            return view
        pad += 0.04


def _map_page(c, subject, area, listed, left, info, context, font, bold, extras, *,
              points=None, view=None, numbered=None, heading: str = "",
              notes_extra: tuple[str, ...] = (), names: bool = True, overlay=None) -> View:
    """Draw one map page: the whole map, the index of a split map, or one of its sheets.

    ``numbered`` (a mask over ``listed``) says which abutters get their number on this page
    (default all); ``overlay(c, view)`` draws more inside the frame (the index's sheet grid).
    """
    from reportlab.lib.colors import black

    points = label_points(listed, area) if points is None else points
    view = map_view(area, points) if view is None else view
    c.setFont(bold, 14)
    title = f"Abutters map{', ' + heading if heading else ''}: {info.town}"
    c.drawString(FRAME[0], PAGE_H - 30, fit_text(title, bold, 14, 730))
    c.setFont(font, 8.5)
    c.drawString(FRAME[0], PAGE_H - 44, fit_text(
        f"Subject parcel(s) {info.subject_text}: {info.list_scope} ({info.section})", font,
        8.5, 730))

    c.saveState()
    frame = c.beginPath()
    frame.rect(FRAME[0], FRAME[1], FRAME[2] - FRAME[0], FRAME[3] - FRAME[1])
    c.clipPath(frame, stroke=0, fill=0)
    drawn = _draw_layers(c, view, subject, area, listed, left, context, extras)
    # what must stay readable is placed first; numbers, then names, keep clear of it
    crs = listed.crs or subject.crs
    taken = Taken([north_arrow_box(), scale_bar_box(view, crs)])
    boxes = _subject_label_boxes(view, subject, extras["subject_labels"], font, bold)
    for box_ in boxes:
        taken.add_rect(box_[:4])
    if numbered is None:
        marks = place_numbers(view, listed, points, bold, area, taken)
    elif numbered.any():
        marks = place_numbers(view, listed.loc[numbered], points[numbered], bold, area, taken)
    else:
        marks = []
    streets = extras.get("streets")
    if names and streets is not None and len(streets) and "name" in streets:
        _street_names(c, view, streets, font, taken)
    elif names and context is not None and len(context) and "id" in context:
        _parcel_ids(c, view, context, listed, font, taken, skip=info_ids(subject))
    draw_numbers(c, marks, bold)
    if overlay is not None:
        overlay(c, view)
    _draw_subject_labels(c, boxes, font, bold)
    c.restoreState()
    c.setStrokeColor(black)
    c.setLineWidth(0.8)
    c.rect(FRAME[0], FRAME[1], FRAME[2] - FRAME[0], FRAME[3] - FRAME[1])
    draw_north_arrow(c, *NORTH_ARROW_XY, bold)
    draw_scale_bar(c, view, crs, font)
    draw_legend(c, info, font, bold, drawn)
    notes = [
        f"{extras.get('abutting_count', len(listed))} abutting parcel(s), "
        f"{extras['left_out_count']} polygon(s) left out (left_out.csv). Numbers key to "
        "abutting_parcels.csv (map_no) and to the key on the following page(s).",
        *notes_extra,
        "Distances are exact, measured from the subject property line; the dashed line is "
        "drawn for reference only.",
        *info.header_lines()[1:2],
    ]
    y = FRAME[1] - 14
    c.setFillColor(black)
    for line in notes:
        size, wrapped = fit_lines([line], width_pt=PAGE_W - 2 * FRAME[0], height_pt=20,
                                  font=font, max_size=6.5, min_size=6.5)
        for piece in wrapped:
            c.setFont(font, size)
            c.drawString(FRAME[0], y, piece)
            y -= 8.5
    return view


def _draw_layers(c, view, subject, area, listed, left, context, extras) -> list[str]:
    """Draw every layer; return the legend keys of what was drawn, in legend order."""
    drawn = []
    if context is not None and len(context):
        _draw_geoms(c, view, context.geometry.values, fill=COLOURS["context"], stroke="#bbbbbb",
                    width=0.3)
        drawn.append("context")
    if "id" in left and len(left):  # the subject is drawn as the subject, not as left out
        left = left[~pd.Series(_texts(left["id"]), index=left.index).isin(info_ids(subject))]
    if len(left):
        _draw_geoms(c, view, left.geometry.values, fill=COLOURS["left_out"], stroke="#888888",
                    width=0.4)
        _hatch(c, view, left.geometry.values, *HATCH["left_out"])
        drawn.append("left_out")
    streets = extras.get("streets")
    if streets is not None and len(streets):
        _draw_geoms(c, view, streets.geometry.values, fill=None, stroke=COLOURS["street"],
                    width=0.8, lines_only=True)
        drawn.append("street")
    for key, mask in _classes(listed).items():
        if not mask.any():
            continue
        _draw_geoms(c, view, listed.geometry.values[mask], fill=COLOURS[key], stroke="#555555",
                    width=0.5)
        if key in HATCH:
            _hatch(c, view, listed.geometry.values[mask], *HATCH[key])
        drawn.append(key)
    _draw_geoms(c, view, subject.geometry.values, fill=COLOURS["subject"], stroke="#000000",
                width=1.6)
    drawn.insert(0, "subject")
    site = extras.get("site")
    if site is not None and len(site):
        # a white casing under the dashes: the site reads on the dark subject fill and on white
        _draw_geoms(c, view, site.geometry.values, fill=None, stroke="#ffffff", width=3.4,
                    lines_only=True)
        _draw_geoms(c, view, site.geometry.values, fill=None, stroke=COLOURS["site"], width=2.0,
                    dash=(2, 2), lines_only=True)
        drawn.insert(1, "site")
    _draw_geoms(c, view, area.boundary.values, fill=None, stroke=COLOURS["line"], width=1.2,
                dash=(5, 3), lines_only=True)
    drawn.insert(2 if "site" in drawn else 1, "line")
    return drawn


def info_ids(subject: gpd.GeoDataFrame) -> set[str]:
    return set(_texts(subject["id"])) - {""} if "id" in subject else set()


def _texts(values) -> list[str]:
    """Ids as text by the one rule (:func:`swm_gis.ids.id_text`), '' for a missing one (a NaN
    reaching reportlab's string measure stops the run)."""
    return [id_text(v) or "" for v in values]


def _halo_text(c, x, y, text, font, size, *, angle=0.0, centred=True) -> None:
    """Text on a white box, so it reads over any fill."""
    from reportlab.lib.colors import black, white
    from reportlab.pdfbase.pdfmetrics import stringWidth

    w = stringWidth(text, font, size)
    c.saveState()
    c.translate(x, y)
    c.rotate(angle)
    x0 = -w / 2 if centred else 0
    c.setFillColor(white)
    c.rect(x0 - 1.5, -size * 0.3, w + 3, size * 1.2, stroke=0, fill=1)
    c.setFillColor(black)
    c.setFont(font, size)
    c.drawString(x0, 0, text)
    c.restoreState()


def _subject_label_boxes(view, subject, addresses, font, bold) -> list[tuple]:
    """Each subject parcel's label ("SUBJECT <id>" and its address) at its inside point, kept
    in the frame: ``(x0, y0, x1, y1, lines)`` in points."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    ids = _texts(subject["id"]) if "id" in subject else [""] * len(subject)
    out = []
    for pid, pt in zip(ids, shapely.point_on_surface(subject.geometry.values), strict=True):
        if not shapely.intersects(view.visible, pt):
            continue  # a sheet away from the subject: no label pinned to its edge
        x, y = view.xy(np.array([[pt.x, pt.y]]))[0]
        lines = [f"SUBJECT {pid}".strip(), *([addresses[pid]] if addresses.get(pid) else [])]
        lines = [fit_text(line, font, 7, 160) for line in lines]
        w = max(stringWidth(line, bold, 7.5) for line in lines) + 6
        h = 9.5 * len(lines) + 3
        x = min(max(x, FRAME[0] + w / 2 + 2), FRAME[2] - w / 2 - 2)
        y = min(max(y, FRAME[1] + h + 2), FRAME[3] - 2)
        out.append((x - w / 2, y - h, x + w / 2, y, lines))
    return out


def _draw_subject_labels(c, boxes, font, bold) -> None:
    from reportlab.lib.colors import black, white

    for x0, y0, x1, y1, lines in boxes:
        c.setFillColor(white)
        c.setStrokeColor(black)
        c.setLineWidth(0.8)
        c.rect(x0, y0, x1 - x0, y1 - y0, stroke=1, fill=1)
        c.setFillColor(black)
        for i, line in enumerate(lines):
            c.setFont(bold if i == 0 else font, 7.5 if i == 0 else 7)
            c.drawCentredString((x0 + x1) / 2, y1 - 9 - 9.5 * i, line)


def _street_names(c, view, streets, font, taken: Taken, *, min_len_pt: float = 40.0) -> None:
    """One name per street, along its longest piece in view (never upside down), wholly in the
    frame and clear of the numbers and boxes ``taken``: tried at the middle, then further along
    the piece; left out when nowhere fits."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    pieces = shapely.intersection(streets.geometry.values, view.visible)
    best: dict[str, tuple[float, object]] = {}
    for name, geom in zip(streets["name"], pieces, strict=True):
        text = "" if name is None or (not isinstance(name, str) and pd.isna(name)) else str(name)
        if not text.strip() or geom is None or geom.is_empty:
            continue
        for part in shapely.get_parts(geom):
            if part.geom_type != "LineString":
                continue
            length = part.length * view.scale
            if length > best.get(text, (0.0, None))[0]:
                best[text] = (length, part)
    for text, (length, part) in sorted(best.items(), key=lambda kv: -kv[1][0]):
        width = stringWidth(text, font, 6.5)
        if length < max(min_len_pt, width + 6):
            continue
        for at in (0.5, 0.38, 0.62, 0.26, 0.74, 0.14, 0.86):
            mid = part.interpolate(at, normalized=True)
            a = part.interpolate(max(0.0, at - 0.05), normalized=True)
            b = part.interpolate(min(1.0, at + 0.05), normalized=True)
            angle = math.degrees(math.atan2(b.y - a.y, b.x - a.x))
            if angle > 90:
                angle -= 180
            elif angle < -90:
                angle += 180
            x, y = view.xy(np.array([[mid.x, mid.y]]))[0]
            box_ = text_box(x, y - 2, width, 6.5, angle)
            if taken.clear_of(box_):
                taken.add_shape(box_)
                _halo_text(c, x, y - 2, text, font, 6.5, angle=angle)
                break


def _parcel_ids(c, view, context, listed, font, taken: Taken, *,
                skip: set[str] = frozenset()) -> None:
    """Without a streets layer, other parcels large enough on the page show their id, inside
    the parcel and the frame, clear of the numbers and boxes ``taken``."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    used = (set(_texts(listed["id"])) if "id" in listed else set()) | set(skip)
    for pid, geom in zip(_texts(context["id"]), context.geometry.values, strict=True):
        if not pid or pid in used or geom is None or geom.is_empty:
            continue
        part = shapely.intersection(geom, view.visible)
        if part.is_empty or part.area * view.scale ** 2 < 900:  # under 30 x 30 pt: no room
            continue
        pt = shapely.point_on_surface(part)
        x, y = view.xy(np.array([[pt.x, pt.y]]))[0]
        width = stringWidth(pid, font, 5.5)
        half = width / 2 + 2
        (bx0, _), (bx1, _) = view.xy(np.array([part.bounds[:2], part.bounds[2:]]))
        if 2 * half > bx1 - bx0:  # wider than the parcel: it would read as a neighbour's
            continue
        x = min(max(x, FRAME[0] + half, bx0 + half), FRAME[2] - half, bx1 - half)
        box_ = text_box(x, y - 2, width, 5.5)
        if taken.clear_of(box_):
            taken.add_shape(box_)
            _halo_text(c, x, y - 2, pid, font, 5.5)


def _classes(listed: pd.DataFrame) -> dict[str, np.ndarray]:
    n = len(listed)
    other = (listed["other_town"].fillna(False).astype(bool).to_numpy() if "other_town" in
             listed else np.zeros(n, bool))
    owned = (listed["owner_of_record"].fillna(True).astype(bool).to_numpy() if
             "owner_of_record" in listed else np.ones(n, bool))
    return {"abutter": ~other & owned, "no_owner": ~other & ~owned, "other_town": other}


__all__ = ["write_abutters_map"]

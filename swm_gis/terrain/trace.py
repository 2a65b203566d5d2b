"""Traces downstream: :func:`trace_overland` from a site down the DEM to the first stream or
water body, :func:`downstream_legs` along the network from there, :func:`waters_along` for the
receiving waters met. Part of :mod:`swm_gis.terrain`.
"""

from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass
from typing import Any

import geopandas as gpd
import numpy as np
import shapely
from shapely import ops

from swm_gis.errors import EmptyLayerError, NotCoveredError
from swm_gis.messages import config_key
from swm_gis.terrain.grid import FlowGrid, StreamNetwork, text_or_none, water_cells
from swm_gis.units import feet_per_unit

Node = tuple[str, int]  # ("r", reach number) or ("w", waterbody number)

_NODATA = -9999.0

# --------------------------------------------------------------------------- traces
@dataclass(frozen=True)
class Entry:
    """Where runoff from the site first meets mapped water."""

    node: Node
    position: float | None  # along the reach (CRS units); None for a water body
    point: shapely.Point
    overland: shapely.LineString | None  # site -> entry point
    overland_length: float  # CRS units
    site_cells: int  # how many site cells drain here


def trace_overland(
    flow: FlowGrid, site: shapely.Geometry, network: StreamNetwork,
    *, water: np.ndarray | None = None,
) -> tuple[list[Entry], list[dict[str, Any]]]:
    """Follow the DEM from every cell of the site to the first mapped water.

    Returns one :class:`Entry` per water met (its shortest overland path from the site) and
    warnings for site cells whose flow leaves the DEM or ends in a pit without meeting water.

    Raises :class:`~swm_gis.errors.NotCoveredError` when the DEM does not cover the whole site.
    """
    _check_cover(flow, site)
    water = water_cells(flow, network) if water is None else water
    idxs = flow.cells_of(site)
    valid = np.isfinite(flow.elevation.ravel()[idxs])
    if not valid.all():
        raise NotCoveredError(
            f"The DEM{_src(flow)} has no elevation for {int((~valid).sum())} of the "
            f"{idxs.size} cells under the site; the DEM must cover the whole site. Use a DEM "
            "without gaps there."
        )
    mask = water != 0
    snapped, dist = flow.flwdir.snap(idxs=idxs, mask=mask, unit="m")
    labels = water.ravel()[snapped]
    warnings: list[dict[str, Any]] = []
    lost = labels == 0
    if lost.any():
        x, y = flow.centres(snapped[lost][:1])[0]
        warnings.append({
            "problem": "no_water_reached", "cells": int(lost.sum()),
            "message": (f"Runoff from {int(lost.sum())} of {idxs.size} site cells leaves the "
                        f"DEM or ends in a closed low point (e.g. at {x:.0f}, {y:.0f}) before "
                        "meeting a mapped stream or water body."),
        })
    entries: list[Entry] = []
    for label in np.unique(labels[~lost]):
        members = np.flatnonzero(labels == label)
        # The entry that gives the shortest flow distance to whatever lies downstream: on a
        # reach, the one that is overland shortest *and* furthest down the reach.
        score = dist[members].astype(float)
        if label > 0:
            line = network.reaches.geometry.values[label - 1]
            score = score - shapely.line_locate_point(
                line, shapely.points(flow.centres(snapped[members])))
        best = members[int(np.argmin(score))]
        path = _path_to(flow.flwdir.idxs_ds, int(idxs[best]), mask.ravel())
        entries.append(_entry(network, int(label), flow.centres(path), len(members)))
    entries.sort(key=lambda e: e.overland_length)
    return entries, warnings


def _path_to(idxs_ds: np.ndarray, start: int, stop: np.ndarray) -> np.ndarray:
    """Cells from ``start`` downstream to the first ``stop`` cell or a pit (inclusive).

    A plain walk on pyflwdir's downstream-index array: one path of a few hundred cells, and it
    avoids ``FlwdirRaster.path``, whose numba typed-list result is compiled anew in every
    process (about a second on a cold start).
    """
    path = [start]
    cur = start
    while not stop[cur]:
        nxt = int(idxs_ds[cur])
        if nxt == cur:
            break
        path.append(nxt)
        cur = nxt
    return np.asarray(path, dtype=np.int64)


def nearest_entry(site: shapely.Geometry, network: StreamNetwork) -> Entry | None:
    """Without a DEM: the nearest stream or water body, reached in a straight line (approximate)."""
    best: tuple[float, Node, shapely.Geometry] | None = None
    for kind, frame in (("r", network.reaches), ("w", network.waterbodies)):
        if not len(frame):
            continue
        tree = shapely.STRtree(frame.geometry.values)
        i = int(tree.nearest(site))
        geom = frame.geometry.values[i]
        d = float(shapely.distance(site, geom))
        if best is None or d < best[0]:
            best = (d, (kind, i), geom)
    if best is None:
        return None
    d, node, geom = best
    line = shapely.shortest_line(site, geom)
    a, b = shapely.get_coordinates(line)
    point = shapely.Point(b)
    pos = float(shapely.line_locate_point(geom, point)) if node[0] == "r" else None
    overland = shapely.LineString([a, b]) if d > 0 else None
    return Entry(node=node, position=pos, point=point, overland=overland, overland_length=d,
                 site_cells=0)


def _entry(network: StreamNetwork, label: int, coords: np.ndarray, n_cells: int) -> Entry:
    last = shapely.Point(coords[-1])
    if label > 0:
        node: Node = ("r", label - 1)
        line = network.reaches.geometry.values[label - 1]
        pos: float | None = float(shapely.line_locate_point(line, last))
        point = shapely.line_interpolate_point(line, pos)
    else:
        node = ("w", -label - 1)
        poly = network.waterbodies.geometry.values[-label - 1]
        pos = None
        point = last if shapely.intersects(poly, last) else ops.nearest_points(poly, last)[0]
    pts = np.vstack([coords, shapely.get_coordinates(point)])
    pts = pts[np.r_[True, np.any(np.diff(pts, axis=0) != 0, axis=1)]]
    overland = shapely.LineString(pts) if len(pts) >= 2 else None
    length = float(overland.length) if overland is not None else 0.0
    return Entry(node=node, position=pos, point=point, overland=overland,
                 overland_length=length, site_cells=n_cells)


@dataclass(frozen=True)
class Leg:
    """One piece of a downstream path with its measure (distance from the site) at each end."""

    kind: str  # "overland" | "stream" | "waterbody"
    node: Node | None
    geometry: shapely.LineString
    from_measure: float
    to_measure: float


def downstream_legs(
    network: StreamNetwork,
    entry: Entry,
    *,
    boundary: shapely.Geometry | None = None,
    max_legs: int = 100_000,
) -> tuple[list[Leg], bool]:
    """Follow the network downstream from an entry to the network's end or the boundary.

    Returns the legs (overland first, then reaches and crossings of water bodies, in order of
    distance; a braid gives both branches) and whether the trace stopped at ``boundary``. The
    shortest route to each reach or water body is kept (Dijkstra on distance).
    """
    legs: list[Leg] = []
    start = entry.overland_length
    if entry.overland is not None:
        legs.append(Leg("overland", None, entry.overland, 0.0, start))
    use_boundary = boundary is not None and shapely.intersects(boundary, entry.point)
    counter = itertools.count()
    heap: list[tuple[float, int, Node, float | None, shapely.Point]] = [
        (start, next(counter), entry.node, entry.position, entry.point)]
    visited: set[Node] = set()
    stopped = False
    lines = network.reaches.geometry.values
    while heap and len(legs) < max_legs:
        measure, _, node, pos, point = heapq.heappop(heap)
        if node in visited:
            continue
        visited.add(node)
        if node[0] == "r":
            line = lines[node[1]]
            geom = ops.substring(line, pos or 0.0, line.length)
            if geom.geom_type != "LineString" or geom.length == 0:
                geom = None
            if geom is not None:
                geom, cut = clip_at_boundary(geom, boundary) if use_boundary else (geom, False)
                legs.append(Leg("stream", node, geom, measure, measure + geom.length))
                if cut:
                    stopped = True
                    continue
                end_measure = measure + geom.length
            else:
                end_measure = measure
            end = shapely.get_point(line, -1)
            for nxt, npos in network.downstream.get(node, []):
                heapq.heappush(heap, (end_measure, next(counter), nxt, npos, end))
        else:
            poly_out = network.outflows.get(node[1], [])
            for j, jpos in poly_out:
                exit_point = shapely.line_interpolate_point(lines[j], jpos)
                crossing = shapely.LineString([point, exit_point])
                length = float(crossing.length)
                if length > 0:
                    legs.append(Leg("waterbody", node, crossing, measure, measure + length))
                heapq.heappush(heap, (measure + length, next(counter), ("r", j), jpos,
                                      exit_point))
            if not poly_out:  # a pond with no outlet: record it as met, the trace ends here
                legs.append(Leg("waterbody", node, shapely.LineString([point, point]), measure,
                                measure))
    legs.sort(key=lambda leg: (leg.from_measure, leg.to_measure))
    return legs, stopped


def clip_at_boundary(geom: shapely.LineString, boundary: shapely.Geometry):
    """``geom`` up to where it first leaves ``boundary``, and whether it was cut there (a line
    starting outside is cut to its first point). The one rule of where a trace stops at the
    town line: the screening's legs and the applicability map's catchments both use it."""
    if shapely.covers(boundary, geom):
        return geom, False
    outside = shapely.difference(geom, boundary)
    coords = shapely.get_coordinates(outside)
    if not len(coords):
        return geom, False
    first = float(np.min(shapely.line_locate_point(geom, shapely.points(coords))))
    if first <= 0:
        return shapely.LineString([geom.coords[0], geom.coords[0]]), True
    return ops.substring(geom, 0.0, first), True


def legs_frame(network: StreamNetwork, legs: list[Leg], crs: Any) -> gpd.GeoDataFrame:
    """The legs as a GeoDataFrame (``kind``, ``id``, ``name``, ``from_ft``, ``to_ft``)."""
    ft = feet_per_unit(crs)
    rows = []
    for leg in legs:
        info = network.describe(leg.node) if leg.node is not None else {"id": None, "name": None}
        rows.append({"kind": leg.kind, "id": text_or_none(info["id"]),
                     "name": text_or_none(info["name"]),
                     "from_ft": round(leg.from_measure * ft, 1),
                     "to_ft": round(leg.to_measure * ft, 1)})
    cols = ["kind", "id", "name", "from_ft", "to_ft"]
    return gpd.GeoDataFrame(rows or {c: [] for c in cols}, geometry=[leg.geometry for leg in legs],
                            crs=crs)


# --------------------------------------------------------------------------- matching waters
def waters_along(
    legs: list[Leg],
    features: gpd.GeoDataFrame,
    *,
    tolerance: float,
    follow_min: float | None = None,
) -> dict[int, float]:
    """Which features the flow reaches, and the measure (distance from the site) where it does.

    Polygons (ponds, wetlands, ORW areas) are met where any leg enters them or reaches their
    shore (within ``tolerance``, for digitising and rounding differences). Lines (stream
    assessment units, ORW reaches) are met where a stream leg runs along them for at least
    ``follow_min`` (default ten times ``tolerance``), so a tributary that merely joins the path at
    a confluence, or a brook the path does not follow, is not a receiving water. Returns
    ``{row position in features: measure}``.
    """
    if features is None or features.empty or not legs:
        return {}
    follow_min = 10 * tolerance if follow_min is None else follow_min
    geoms = features.geometry.values
    is_poly = np.isin(shapely.get_type_id(geoms), [3, 6])
    tree = shapely.STRtree(geoms)
    found: dict[int, float] = {}
    for leg in legs:
        g = leg.geometry
        for k in tree.query(g, predicate="dwithin", distance=tolerance).tolist():
            if is_poly[k]:
                inter = shapely.intersection(g, geoms[k])
                if inter.is_empty:  # reaches the shore within the tolerance (rounding, digitising)
                    inter = shapely.get_point(shapely.shortest_line(g, geoms[k]), 0)
                coords = shapely.get_coordinates(inter)
            else:
                if leg.kind != "stream":
                    continue
                near = shapely.intersection(g, shapely.buffer(geoms[k], tolerance))
                if near.is_empty or near.length < min(follow_min, 0.5 * g.length):
                    continue
                coords = shapely.get_coordinates(near)
            m = leg.from_measure + float(np.min(shapely.line_locate_point(g, shapely.points(
                coords))))
            if k not in found or m < found[k]:
                found[k] = m
    return found


def _check_cover(flow: FlowGrid, site: shapely.Geometry) -> None:
    x0, y0, x1, y1 = flow.bounds
    sx0, sy0, sx1, sy1 = shapely.bounds(site)
    if sx0 < x0 or sy0 < y0 or sx1 > x1 or sy1 > y1:
        raise NotCoveredError(
            f"The DEM{_src(flow)} covers x {x0:.0f}..{x1:.0f}, y {y0:.0f}..{y1:.0f} but the site "
            f"spans x {sx0:.0f}..{sx1:.0f}, y {sy0:.0f}..{sy1:.0f}: it does not cover the site. "
            "Use a DEM that covers the site and the land downhill of it to the nearest stream."
        )


def _src(flow: FlowGrid) -> str:
    f = flow.source.get("file") if flow.source else None
    return f" {f}" if f else ""


def require_network(network: StreamNetwork) -> None:
    """Refuse a network with neither streams nor water bodies."""
    if not len(network.reaches) and not len(network.waterbodies):
        raise EmptyLayerError(
            "There are no stream lines or water bodies near the site, so no receiving water can "
            f"be traced. Configure {config_key('layers.streams')} and "
            f"{config_key('layers.waterbodies')} in the town config."
        )


# --------------------------------------------------------------------------- pools overland
def point_cells(flow: FlowGrid, geoms: np.ndarray) -> np.ndarray:
    """The linear index of the DEM cell holding each feature (a point, or a polygon's
    representative point), or -1 off the grid or where the DEM has no elevation.

    The one rule by which a certified vernal pool is met overland: the flow of a cell meets
    the pool when its D8 path passes the pool's cell (:func:`marks_on_paths`), both in a
    screening's trace and in the applicability map's catchments.
    """
    geoms = np.asarray(geoms, dtype=object)
    out = np.full(len(geoms), -1, dtype=np.int64)
    if not len(geoms):
        return out
    pts = shapely.point_on_surface(geoms)
    col, row = ~flow.transform * (shapely.get_x(pts), shapely.get_y(pts))
    row, col = np.floor(row), np.floor(col)
    rows, cols = flow.shape
    ok = np.isfinite(row) & np.isfinite(col) & (row >= 0) & (row < rows) & (col >= 0) & \
        (col < cols)
    idx = row[ok].astype(np.int64) * cols + col[ok].astype(np.int64)
    good = np.isfinite(flow.elevation.ravel()[idx])
    sel = np.flatnonzero(ok)
    out[sel[good]] = idx[good]
    return out


def feature_cells(flow: FlowGrid, geoms: np.ndarray, *, areas: bool = True
                  ) -> tuple[np.ndarray, np.ndarray]:
    """(cell, feature) pairs: the DEM cells by which each feature is met overland.

    A polygon (with ``areas``) holds the cells whose centre lies in it, or, smaller than a cell,
    the cell of its representative point; a point (or any feature without ``areas``: a certified
    vernal pool) its one cell (:func:`point_cells`). Cells off the grid or without elevation
    are left out. The one rule of an ORW, an impaired water or a pool met off the mapped water:
    a cell's flow meets the feature where its D8 path passes one of these cells before mapped
    water (:func:`marks_on_paths`), in a screening's trace and in the applicability map's
    catchments alike.
    """
    geoms = np.asarray(geoms, dtype=object)
    one = point_cells(flow, geoms)
    cells, rows = [], []
    kinds = shapely.get_type_id(geoms) if len(geoms) else np.zeros(0, dtype=int)
    valid = np.isfinite(flow.elevation.ravel())
    for i, g in enumerate(geoms.tolist()):
        got = np.array([], dtype=np.int64)
        polygon, point = kinds[i] in (3, 6), kinds[i] in (0, 4)
        if areas and not polygon and not point:
            pass  # a line is met where the network follows it, never overland
        else:
            if areas and polygon:
                got = flow.centre_cells(g)
                got = got[valid[got]]
            if not len(got) and one[i] >= 0:
                got = np.array([one[i]], dtype=np.int64)
        cells.append(got)
        rows.append(np.full(len(got), i, dtype=np.int64))
    if not cells:
        return np.array([], dtype=np.int64), np.array([], dtype=np.int64)
    return np.concatenate(cells).astype(np.int64), np.concatenate(rows).astype(np.int64)


def features_met_overland(flow: FlowGrid, starts: np.ndarray, water: np.ndarray,
                          cells: np.ndarray, rows: np.ndarray) -> dict[int, float]:
    """``{feature row: shortest D8 path length}`` for the features (``cells``, ``rows`` from
    :func:`feature_cells`) whose cells the paths from ``starts`` pass before mapped water
    (``water``, :func:`swm_gis.terrain.water_cells`). A feature cell on mapped water is met
    along the network instead, and is not a mark here."""
    stop = np.asarray(water).ravel() != 0
    keep = ~stop[cells] if len(cells) else np.zeros(0, dtype=bool)
    cells, rows = cells[keep], rows[keep]
    if not len(cells):
        return {}
    uniq, inverse = np.unique(cells, return_inverse=True)
    marks = np.zeros(stop.size, dtype=np.int64)
    marks[uniq] = np.arange(1, len(uniq) + 1)
    hit = marks_on_paths(flow, starts, stop, marks)
    found: dict[int, float] = {}
    for m, row in zip(inverse.tolist(), rows.tolist(), strict=True):
        if m in hit:
            found[row] = min(found.get(row, hit[m]), hit[m])
    return found


def marks_on_paths(flow: FlowGrid, starts: np.ndarray, stop: np.ndarray, marks: np.ndarray
                   ) -> dict[int, float]:
    """Which marked cells the D8 paths from ``starts`` pass before a ``stop`` cell (water) or a
    pit, and the shortest path length (CRS units, centre to centre) to each.

    ``marks`` (int, the grid's cells, flattened) is 0, or ``k + 1`` for mark ``k``; ``stop``
    (bool, flattened) ends a path at that cell (a marked stop cell is not counted). All paths
    advance together, merged where they join, so the work is one step per cell of the longest.
    """
    idxs_ds = flow.flwdir.idxs_ds
    cols = flow.shape[1]
    dx, dy = abs(flow.transform.a), abs(flow.transform.e)
    cur = np.unique(np.asarray(starts, dtype=np.int64))
    dist = np.zeros(len(cur))
    found: dict[int, float] = {}
    for _ in range(int(np.prod(flow.shape)) + 1):
        if not len(cur):
            break
        here = ~stop[cur]
        cur, dist = cur[here], dist[here]
        hit = marks[cur] > 0
        for k, d in zip((marks[cur[hit]] - 1).tolist(), dist[hit].tolist(), strict=True):
            found[k] = min(found.get(k, d), d)
        nxt = np.asarray(idxs_ds[cur], dtype=np.int64)
        moved = nxt != cur
        r0, c0 = np.divmod(cur[moved], cols)
        r1, c1 = np.divmod(nxt[moved], cols)
        step = np.hypot((c1 - c0) * dx, (r1 - r0) * dy)
        cur, dist = nxt[moved], dist[moved] + step
        if len(cur):  # paths that joined go on as one, with the shorter distance
            order = np.lexsort((dist, cur))
            cur, dist = cur[order], dist[order]
            first = np.r_[True, cur[1:] != cur[:-1]]
            cur, dist = cur[first], dist[first]
    return found

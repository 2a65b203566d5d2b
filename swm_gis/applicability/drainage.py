"""Drainage flags per parcel: what each parcel's land drains to, read from the catchments' grid
computed once for the town (:class:`swm_gis.terrain.catchments.DrainageGrid`).

Part of the applicability rules on frames (:mod:`swm_gis.applicability.classify` re-exports
:func:`drainage_flags`). Vectorised: the parcels are rasterised strip by strip and the flags
reduced by parcel. Pure: no file is read here.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import shapely

from swm_gis.applicability.overlays import unknown_flags
from swm_gis.coverage_rule import covered_by_all
from swm_gis.terrain.catchments import DrainageGrid


def drainage_flags(geoms: np.ndarray, grid: DrainageGrid | None, *, leaves: bool = False
                   ) -> tuple[Any, ...]:
    """ORW / impaired flags and impairment causes per parcel from the per-cell drainage grid.

    A parcel drains to what any of its cells (cell centres inside the parcel, plus the cell under
    its representative point so a parcel smaller than a cell still has one) drains to.
    Vectorised: the parcels are rasterised strip by strip and the flags reduced by parcel.

    Three-valued, like the screening's receiving waters: true where the flow reaches such a
    water; false only where it was traced to its end inside the data having passed none (wholly
    on the DEM, no branch below leaving the town or the mapped streams, every layer that could
    find one configured and covering the parcel and path); null otherwise. ``leaves=True`` also
    returns where each is null because the flow leaves the data, and which parcels were traced.
    """
    n = len(geoms)
    if grid is None or n == 0:
        none = (unknown_flags(n), unknown_flags(n), np.full(n, None, dtype=object))
        return (*none, (np.zeros(n, dtype=bool),) * 3) if leaves else none
    k = grid.node_flags.shape[1]
    flags, has_cell, lost = _reached(geoms, grid)
    unknown = flags[:, k:k + 3] if flags.shape[1] > k else np.zeros((n, 3), dtype=bool)
    traced = has_cell & _inside_grid(geoms, grid)
    # the flow of every cell met the network and no branch below leaves the data
    ended = traced & ~lost & ~unknown[:, 0]
    # the search starts on the parcel (the path below it: the nodes' node_unknown)
    orw_ok = ended & ~unknown[:, 1] & grid.orw_complete & covered_by_all(
        geoms, grid.coverage.get("orw"))
    imp_ok = ended & ~unknown[:, 2] & covered_by_all(geoms, grid.coverage.get("impaired"))
    orw = pd.array(flags[:, 0], dtype="boolean")
    imp = pd.array(flags[:, 1], dtype="boolean")
    orw[~(orw_ok | flags[:, 0])] = pd.NA  # found downstream: true even if part is unknown
    imp[~(imp_ok | flags[:, 1])] = pd.NA
    # unknown because the flow leaves the data (not for want of a layer or of the DEM)
    orw_left = traced & orw.isna() & grid.orw_ran & (lost | unknown[:, 0] | unknown[:, 1])
    imp_left = traced & imp.isna() & grid.impaired_ran & (lost | unknown[:, 0] | unknown[:, 2])
    if not grid.orw_ran:
        orw[:] = pd.NA
    if not grid.impaired_ran:
        imp[:] = pd.NA
    causes = _decode_causes(flags[:, 2:k], grid.cause_names)
    causes[imp.isna()] = None
    if leaves:
        return orw, imp, causes, (np.asarray(orw_left, dtype=bool),
                                  np.asarray(imp_left, dtype=bool), np.asarray(traced, bool))
    return orw, imp, causes


def _inside_grid(geoms: np.ndarray, grid: DrainageGrid) -> np.ndarray:
    """Whether each parcel lies wholly inside the drainage grid (the DEM window)."""
    rows, cols = grid.labels.shape
    t = grid.transform
    xs = (t.c, t.c + cols * t.a)
    ys = (t.f, t.f + rows * t.e)
    b = shapely.bounds(geoms)
    return ((b[:, 0] >= min(xs)) & (b[:, 2] <= max(xs)) & (b[:, 1] >= min(ys))
            & (b[:, 3] <= max(ys)))


#: Rows of the DEM rasterised at a time: bounds the memory of a 1 m town (a strip of a
#: 6,000-column window is 12 million cells) whatever the town's size.
STRIP_ROWS = 512


def _reached(geoms: np.ndarray, grid: DrainageGrid
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What each parcel's cells drain to, reduced per parcel without listing its cells.

    Returns ``flags`` (parcels x node_flags columns, then the ``node_unknown`` ones if any: the
    OR over the parcel's cells of their node's flags), ``has_cell`` (the parcel has a cell
    centre inside it, or its representative point is on the grid) and ``lost`` (some cell's
    runoff meets no node in the data). The parcels are rasterised strip by strip
    (:data:`STRIP_ROWS`) and each node's flags packed into bits, so the work is one pass over
    the cells and the memory one strip's.
    """
    from rasterio import features, windows

    n = len(geoms)
    node_flags = (grid.node_flags if grid.node_unknown is None
                  else np.hstack([grid.node_flags, grid.node_unknown]))
    k = node_flags.shape[1]
    n_words = max(1, -(-k // 64))
    node_bits = np.zeros((node_flags.shape[0], n_words), dtype=np.uint64)
    for j in range(k):
        node_bits[:, j // 64] |= node_flags[:, j].astype(np.uint64) << np.uint64(j % 64)
    acc = np.zeros((n, n_words), dtype=np.uint64)
    has_cell = np.zeros(n, dtype=bool)
    lost = np.zeros(n, dtype=bool)

    def add(parcel: np.ndarray, label: np.ndarray) -> None:
        has_cell[parcel] = True
        off = label < 0
        lost[parcel[off]] = True
        parcel, label = parcel[~off], label[~off]
        for w in range(n_words):
            np.bitwise_or.at(acc[:, w], parcel, node_bits[label, w])

    transform, labels = grid.transform, grid.labels
    rows_all, cols_all = labels.shape
    minx, miny, maxx, maxy = shapely.total_bounds(geoms)
    win = windows.from_bounds(minx, miny, maxx, maxy, transform=transform)
    r0, c0 = max(math.floor(win.row_off) - 1, 0), max(math.floor(win.col_off) - 1, 0)
    r1 = min(math.ceil(win.row_off + win.height) + 1, rows_all)
    c1 = min(math.ceil(win.col_off + win.width) + 1, cols_all)
    if c1 > c0:
        b = shapely.bounds(geoms)
        for top in range(r0, r1, STRIP_ROWS):
            bottom = min(top + STRIP_ROWS, r1)
            # the parcels whose envelope reaches the strip (its rows span y from y_hi to y_lo)
            y_hi, y_lo = (transform * (c0, top))[1], (transform * (c0, bottom))[1]
            y_lo, y_hi = min(y_lo, y_hi), max(y_lo, y_hi)
            here = np.flatnonzero((b[:, 1] <= y_hi) & (b[:, 3] >= y_lo))
            if not len(here):
                continue
            burned = features.rasterize(
                zip(geoms[here], here + 1, strict=True), out_shape=(bottom - top, c1 - c0),
                transform=transform * transform.translation(c0, top), fill=0, dtype="int32")
            inside = burned > 0
            add(burned[inside].astype(np.int64) - 1,
                np.asarray(labels[top:bottom, c0:c1])[inside].astype(np.int64))
    # the cell under the representative point: a parcel smaller than a cell still has one
    rp = shapely.point_on_surface(geoms)
    col, row = ~transform * (shapely.get_x(rp), shapely.get_y(rp))
    row, col = np.floor(row).astype(np.int64), np.floor(col).astype(np.int64)
    on = np.flatnonzero((row >= 0) & (row < rows_all) & (col >= 0) & (col < cols_all))
    add(on, np.asarray(labels[row[on], col[on]]).astype(np.int64))
    flags = np.zeros((n, k), dtype=bool)
    for j in range(k):
        flags[:, j] = (acc[:, j // 64] >> np.uint64(j % 64)) & np.uint64(1)
    return flags, has_cell, lost


def _decode_causes(matrix: np.ndarray, names: tuple[str, ...]) -> np.ndarray:
    """Rows of cause flags -> "cause; cause" strings (one join per distinct row, not per parcel)."""
    n = matrix.shape[0]
    if n == 0 or matrix.shape[1] == 0:
        return np.full(n, "", dtype=object)
    uniq, inv = np.unique(matrix, axis=0, return_inverse=True)
    text = np.array(["; ".join(nm for nm, on in zip(names, row, strict=True) if on)
                     for row in uniq], dtype=object)
    return text[np.asarray(inv).ravel()]


# =========================================================================== summary


__all__ = ["STRIP_ROWS", "drainage_flags"]

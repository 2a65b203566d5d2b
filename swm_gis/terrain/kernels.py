"""Compiled loops of the flow grid (numba, as pyflwdir's own code is), for 1 m town DEMs.

At 40 million cells a whole-array numpy expression costs a grid-sized temporary per step (the
steepest-descent D8 needed about 2.5 GB of them) and pyflwdir's ``basins`` first orders every
cell (about 1 GB and 9 s). These loops make one pass with no temporaries. Each has a reference
it is tested against: :func:`steepest_reference` (numpy) and pyflwdir ``basins``
(:func:`swm_gis.terrain.grid._labels_by_basins`). Compiled on first use and cached on disk by numba.
"""

from __future__ import annotations

from typing import Any

import numpy as np

_NODATA = -9999.0
#: D8 codes (pyflwdir / ArcGIS convention) of the neighbour at (row offset, column offset).
D8 = {(-1, -1): 32, (-1, 0): 64, (-1, 1): 128, (0, -1): 16, (0, 1): 1,
      (1, -1): 8, (1, 0): 4, (1, 1): 2}

_STEEPEST: list[Any] = []


def steepest_kernel() -> Any:
    """The loop of :func:`swm_gis.terrain.grid._steepest_d8` (compiled once, cached on disk)."""
    if not _STEEPEST:
        import numba

        @numba.njit(cache=True, nogil=True)
        def kernel(filled, flood, offsets, codes, dists, nodata):  # pragma: no cover - compiled
            rows, cols = filled.shape
            out = np.empty((rows, cols), dtype=np.uint8)
            for r in range(rows):
                for c in range(cols):
                    z = filled[r, c]
                    if z == nodata:
                        out[r, c] = 247
                        continue
                    best = 0.0
                    code = np.uint8(0)
                    for k in range(8):  # the order of D8: the first of equal slopes wins
                        rr, cc = r + offsets[k, 0], c + offsets[k, 1]
                        if rr < 0 or rr >= rows or cc < 0 or cc >= cols:
                            continue
                        zn = filled[rr, cc]
                        if zn == nodata:
                            continue
                        slope = (np.float64(z) - np.float64(zn)) / dists[k]
                        if slope > best:
                            best = slope
                            code = codes[k]
                    out[r, c] = code if best > 0 else flood[r, c]
            return out

        _STEEPEST.append(kernel)
    return _STEEPEST[0]


def steepest_reference(filled: np.ndarray, d8_flood: np.ndarray, dx: float, dy: float
                        ) -> np.ndarray:
    """:func:`swm_gis.terrain.grid._steepest_d8` in numpy over whole arrays (eight grid-sized
    temporaries): the reference the compiled loop is tested against."""
    rows, cols = filled.shape
    valid = filled != _NODATA
    z = np.where(valid, filled, np.inf).astype(np.float64)
    padded = np.pad(z, 1, constant_values=np.inf)
    best = np.zeros(filled.shape)
    code = np.zeros(filled.shape, dtype=np.uint8)
    for (dr, dc), value in D8.items():
        neighbour = padded[1 + dr: 1 + dr + rows, 1 + dc: 1 + dc + cols]
        with np.errstate(invalid="ignore"):  # inf - inf outside the data: no slope
            slope = (z - neighbour) / np.hypot(dr * dy, dc * dx)
        slope = np.where(np.isfinite(slope), slope, 0.0)
        better = slope > best
        best = np.where(better, slope, best)
        code = np.where(better, np.uint8(value), code)
    out = np.where(best > 0, code, d8_flood).astype(np.uint8)
    out[~valid] = 247
    return out


_LABELS: list[Any] = []


def labels_kernel() -> Any:
    """Compiled walk: each cell takes the label of the first water cell downstream of it.

    Every path is walked twice, once to find its label (marking the cells) and once to write it,
    stopping at cells already labelled, so each cell is visited a bounded number of times and no
    path has to be stored; a loop (none is made by :mod:`swm_gis.terrain.grid`) drains to 0. The
    downstream cell follows pyflwdir's D8 parsing: code 0, a neighbour outside the grid or a no-data
    (247) neighbour make a pit, which drains to nothing (0).
    """
    if not _LABELS:
        import numba

        # A module global, not a closure cell: numba keys the disk cache of a closure on its
        # cells, and a dispatcher made anew in every process missed it every time (each run
        # recompiled the walk, 1-4 s, and left one more cache file).
        global _downstream

        @numba.njit(cache=True, nogil=True)
        def _downstream(d8, j, rows, cols):  # pragma: no cover - compiled
            code = d8[j]
            r, c = j // cols, j % cols
            if code == 1:
                c += 1
            elif code == 2:
                r += 1
                c += 1
            elif code == 4:
                r += 1
            elif code == 8:
                r += 1
                c -= 1
            elif code == 16:
                c -= 1
            elif code == 32:
                r -= 1
                c -= 1
            elif code == 64:
                r -= 1
            elif code == 128:
                r -= 1
                c += 1
            else:
                return -1
            if r < 0 or r >= rows or c < 0 or c >= cols:
                return -1
            k = r * cols + c
            return -1 if d8[k] == 247 else k

        @numba.njit(cache=True, nogil=True)
        def kernel(d8_2d, water_2d):  # pragma: no cover - compiled
            rows, cols = d8_2d.shape
            d8, water = d8_2d.ravel(), water_2d.ravel()
            n = d8.size
            unset = np.int32(-2147483648)
            busy = np.int32(-2147483647)
            out = np.full(n, unset, dtype=np.int32)
            for i in range(n):
                if out[i] != unset:
                    continue
                j, label = i, np.int32(0)
                while True:  # find the label, marking the path
                    if out[j] == busy:  # back on this path: a loop drains nowhere
                        break
                    if out[j] != unset:
                        label = out[j]
                        break
                    if d8[j] == 247:
                        out[j] = 0
                        break
                    if water[j] != 0:
                        out[j] = water[j]
                        label = water[j]
                        break
                    out[j] = busy
                    k = _downstream(d8, j, rows, cols)
                    if k < 0:
                        break
                    j = k
                j = i
                while out[j] == busy:  # write it down the same path
                    out[j] = label
                    k = _downstream(d8, j, rows, cols)
                    if k < 0:
                        break
                    j = k
            return out.reshape(rows, cols)

        _LABELS.append(kernel)
    return _LABELS[0]


_REFILL: list[Any] = []


def refill_kernel() -> Any:
    """Compiled: the depression-filled DEM recomputed exactly from the priority flood's tree.

    pyflwdir's ``fill_depressions`` keeps its queue in float32 and raises a cell by adding the
    difference ``z0 - z1`` to it, so a filled depression can end a rounding step above or below
    the cell it spills over. On a flat that step is a slope: the spill cell "drains" into the
    depression, whose flood direction points back at it, and the two make a loop that drains
    nothing. Here each cell's level is exactly ``max(own elevation, level of the cell the flood
    reached it from)`` (the flood's tree, walked once per cell; the flood's outlets, code 0, are
    the roots), so a filled depression is exactly as high as its spill point, a flood direction
    never climbs and steepest descent always falls: no loops.
    """
    if not _REFILL:
        import numba

        @numba.njit(cache=True, nogil=True)
        def kernel(raw, flood, nodata):  # pragma: no cover - compiled
            rows, cols = raw.shape
            z = raw.ravel()
            fl = flood.ravel()
            n = z.size
            out = np.empty(n, dtype=raw.dtype)
            state = np.zeros(n, dtype=np.uint8)  # 0 to do, 1 on the current path, 2 done
            stack = np.empty(1024, dtype=np.int64)
            for i in range(n):
                if state[i] == 2:
                    continue
                top = 0
                j = i
                while state[j] != 2:
                    if z[j] == nodata:
                        out[j] = z[j]
                        state[j] = 2
                        break
                    r, c = j // cols, j % cols
                    parent = -1
                    code = fl[j]
                    dr, dc = 0, 0
                    if code == 1:
                        dc = 1
                    elif code == 2:
                        dr, dc = 1, 1
                    elif code == 4:
                        dr = 1
                    elif code == 8:
                        dr, dc = 1, -1
                    elif code == 16:
                        dc = -1
                    elif code == 32:
                        dr, dc = -1, -1
                    elif code == 64:
                        dr = -1
                    elif code == 128:
                        dr, dc = -1, 1
                    if (dr != 0 or dc != 0) and 0 <= r + dr < rows and 0 <= c + dc < cols:
                        parent = (r + dr) * cols + (c + dc)
                    if parent < 0 or z[parent] == nodata or state[parent] == 1:
                        out[j] = z[j]  # a root: its own elevation
                        state[j] = 2
                        break
                    if top == stack.size:
                        bigger = np.empty(stack.size * 2, dtype=np.int64)
                        bigger[:top] = stack[:top]
                        stack = bigger
                    stack[top] = j
                    top += 1
                    state[j] = 1
                    j = parent
                level = out[j]
                while top > 0:
                    top -= 1
                    cell = stack[top]
                    if z[cell] > level:
                        level = z[cell]
                    out[cell] = level
                    state[cell] = 2
            return out.reshape(rows, cols)

        _REFILL.append(kernel)
    return _REFILL[0]

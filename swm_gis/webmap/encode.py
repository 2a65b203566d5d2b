"""Compact forms of the web map's data, so a city's page is read and drawn in well under 2 s.

A browser spends most of a big page's start reading ``data/data.js``; 13,035 parcels as
``[lat, lng]`` arrays and one object per card were 4.8 MB and most of Cambridge's start-up.
Here the data takes the forms a page reads fastest (docs/publish.md, "Size and speed"):

* **Geometry, pre-projected and quantised**: each vertex in Web Mercator at Leaflet's zoom 0
  (a 256-unit world), times :data:`QUANT` and rounded: one unit is 0.15 m on the projection,
  0.11 m on the ground at 42 degrees north, as fine as the six decimals of a degree used
  before. The vertices are delta-encoded (each from the one before, across rings and parcels)
  as zigzag varints and the bytes written as one base64 string: a string literal costs the
  browser nothing to parse, and the page decodes it into one ``Float64Array``. The label
  point (where the class number is drawn) rides along.
* **Card figures as columns**: one array per field rather than one object per parcel (the
  page builds a card's record when it opens one).
"""

from __future__ import annotations

import base64
import math
from typing import Any

import geopandas as gpd
import numpy as np
import shapely

#: Quantisation: units per Leaflet zoom-0 pixel (the world is 256 * QUANT units wide).
QUANT = 2 ** 20


def _zigzag_varints(values: np.ndarray) -> bytes:
    """Signed integers as zigzag LEB128 varints (7 bits a byte, low bits first, high bit set
    on every byte but a value's last), vectorised.

    >>> _zigzag_varints(np.array([0, -1, 1, 64, -300])).hex()
    '0001028001d704'
    """
    v = np.asarray(values, dtype=np.int64)
    z = ((v << 1) ^ (v >> 63)).astype(np.uint64)
    groups = np.ones(len(z), dtype=np.int64)
    for k in range(1, 10):
        groups += (z >> np.uint64(7 * k)) > 0
    starts = np.concatenate([[0], np.cumsum(groups)[:-1]])
    out = np.empty(int(groups.sum()), dtype=np.uint8)
    for k in range(int(groups.max()) if len(z) else 0):
        has = groups > k
        byte = (z[has] >> np.uint64(7 * k)) & np.uint64(0x7F)
        more = (groups[has] > k + 1).astype(np.uint64) << np.uint64(7)
        out[starts[has] + k] = (byte | more).astype(np.uint8)
    return out.tobytes()


def mercator_units(lng: np.ndarray, lat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """WGS84 degrees -> quantised Web Mercator units (x east, y south, from the world's
    north-west corner), as Leaflet's ``map.project(latlng, 0)`` times :data:`QUANT`.

    >>> x, y = mercator_units(np.array([0.0]), np.array([0.0]))
    >>> int(x[0]) == int(y[0]) == 128 * QUANT
    True
    """
    s = np.sin(np.radians(np.clip(lat, -85.0511287798, 85.0511287798)))
    x = 256.0 * (np.asarray(lng) + 180.0) / 360.0
    y = 256.0 * (0.5 - np.log((1 + s) / (1 - s)) / (4 * math.pi))
    return np.rint(x * QUANT).astype(np.int64), np.rint(y * QUANT).astype(np.int64)


def _rings(geoms: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every ring (polygon) or part (line) of the geometries: ``(coords, ring, owner)``,
    the lng/lat vertices, the ring each vertex is in, the geometry each ring is of (rings of
    a geometry in order, closing vertices dropped)."""
    parts, part_owner = shapely.get_parts(geoms, return_index=True)
    polygon = shapely.get_type_id(parts) == 3
    rings, ring_part = shapely.get_rings(parts[polygon], return_index=True)
    lines = np.flatnonzero(~polygon)
    # rings of polygons and the lines, back in part order (a geometry's rings stay together)
    part_of_ring = np.concatenate([np.flatnonzero(polygon)[ring_part], lines])
    all_rings = np.concatenate([rings, parts[lines]])
    closed = np.concatenate([np.ones(len(rings), dtype=bool), np.zeros(len(lines), dtype=bool)])
    order = np.argsort(part_of_ring, kind="stable")
    all_rings, closed, part_of_ring = all_rings[order], closed[order], part_of_ring[order]
    coords, ring = shapely.get_coordinates(all_rings, return_index=True)
    last = np.ones(len(ring), dtype=bool)
    last[:-1] = ring[1:] != ring[:-1]
    keep = ~(last & closed[ring])
    return coords[keep], ring[keep], part_owner[part_of_ring]


def encode_shapes(geoms: np.ndarray, *, crs: Any, tolerance: float,
                  labels: bool = True) -> str:
    """Geometries simplified by ``tolerance`` (CRS units), projected, quantised, encoded.

    The varint stream holds, per geometry: its ring (or line) count ``r``; when ``labels``
    and ``r > 0``, its label point (a point on its surface); then each ring's vertex count and
    its vertices. Every point is written as its delta from the point written before it (the
    first from 0, 0). Repeated vertices that quantising made are dropped (a ring keeps its
    first). Returns the stream as base64.
    """
    n = len(geoms)
    if n == 0:
        return ""
    simple = shapely.simplify(geoms, tolerance, preserve_topology=True) if tolerance > 0 \
        else geoms
    wgs = gpd.GeoSeries(simple, crs=crs).to_crs(4326).to_numpy()
    coords, ring, owner = _rings(wgs)
    x, y = mercator_units(coords[:, 0], coords[:, 1])
    keep = np.ones(len(ring), dtype=bool)
    keep[1:] = (ring[1:] != ring[:-1]) | (x[1:] != x[:-1]) | (y[1:] != y[:-1])
    x, y, ring = x[keep], y[keep], ring[keep]
    n_rings = np.bincount(owner, minlength=n)
    n_pts = np.bincount(ring, minlength=len(owner))
    head = 1 + 2 * (n_rings > 0) * labels
    ring_size = 1 + 2 * n_pts
    geom_size = head + np.bincount(owner, weights=ring_size, minlength=n).astype(np.int64)
    geom_start = np.concatenate([[0], np.cumsum(geom_size)[:-1]])
    ring_cum = np.concatenate([[0], np.cumsum(ring_size)[:-1]])
    first_ring = np.concatenate([[0], np.cumsum(n_rings)[:-1]])
    ring_start = geom_start[owner] + head[owner] + ring_cum - ring_cum[first_ring[owner]]
    stream = np.zeros(int(geom_size.sum()), dtype=np.int64)
    is_x = np.zeros(len(stream), dtype=bool)
    stream[geom_start] = n_rings
    stream[ring_start] = n_pts
    vertex_at = ring_start[ring] + 1 + 2 * (np.arange(len(ring)) - np.repeat(
        np.concatenate([[0], np.cumsum(n_pts)[:-1]]), n_pts))
    stream[vertex_at], stream[vertex_at + 1] = x, y
    is_x[vertex_at] = True
    if labels:
        has = n_rings > 0
        pts = gpd.GeoSeries(shapely.point_on_surface(geoms[has]), crs=crs).to_crs(4326)
        lx, ly = mercator_units(pts.x.to_numpy(), pts.y.to_numpy())
        stream[geom_start[has] + 1], stream[geom_start[has] + 2] = lx, ly
        is_x[geom_start[has] + 1] = True
    xs = np.flatnonzero(is_x)
    stream[xs] = np.diff(stream[xs], prepend=0)
    stream[xs + 1] = np.diff(stream[xs + 1], prepend=0)
    return base64.b64encode(_zigzag_varints(stream)).decode("ascii")


def decode_shapes(text: str, count: int, *, labels: bool = True
                  ) -> list[tuple[tuple[float, float] | None, list[np.ndarray]]]:
    """The inverse of :func:`encode_shapes` (for tests and scripts; the page has its own):
    per geometry ``(label, rings)`` in zoom-0 Web Mercator units (``QUANT`` undone)."""
    raw = base64.b64decode(text)
    values, v, shift = [], 0, 0
    for byte in raw:
        v |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            values.append((v >> 1) ^ -(v & 1))
            v, shift = 0, 0
    it = iter(values)
    x = y = 0
    out = []
    for _ in range(count):
        n_rings, label, rings = next(it), None, []
        if n_rings and labels:
            x += next(it)
            y += next(it)
            label = (x / QUANT, y / QUANT)
        for _r in range(n_rings):
            pts = []
            for _p in range(next(it)):
                x += next(it)
                y += next(it)
                pts.append((x / QUANT, y / QUANT))
            rings.append(np.array(pts))
        out.append((label, rings))
    return out


def columns(records: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """Records (one dict per parcel) as one list per key, ``None`` where a record lacks it; a
    key that is ``None`` in every record is left out (the page reads a missing field as a null
    one: "not checked" in Cambridge is five columns of 13,035 nulls, 0.3 MB).

    >>> columns([{"id": "A", "c": 1, "h": None}, {"id": "B", "ad": ["1 MAIN ST"], "h": None}])
    {'id': ['A', 'B'], 'c': [1, None], 'ad': [None, ['1 MAIN ST']]}
    """
    keys = list(dict.fromkeys(k for rec in records for k in rec))
    out = {k: [rec.get(k) for rec in records] for k in keys}
    return {k: v for k, v in out.items() if any(x is not None for x in v)}


__all__ = ["QUANT", "columns", "decode_shapes", "encode_shapes", "mercator_units"]

"""D8 flow on a DEM and the stream network: :func:`flow_directions`, :func:`stream_network`.

Part of :mod:`swm_gis.hydrology` (read its notes on pyflwdir); :func:`drainage_labels` gives each
cell the reach or water body it first drains to (the applicability map's catchments).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import geopandas as gpd
import numpy as np
import shapely
from pyproj import CRS

from swm_gis.errors import CrsError, GeometryError, InputFileError
from swm_gis.floodplain import feet_per_unit
from swm_gis.raster import Raster

Node = tuple[str, int]  # ("r", reach number) or ("w", waterbody number)

_NODATA = -9999.0


# --------------------------------------------------------------------------- DEM flow
@dataclass(frozen=True)
class FlowGrid:
    """D8 flow directions over a DEM window, with the grid's geometry and elevations."""

    flwdir: Any  # pyflwdir.FlwdirRaster
    transform: Any
    crs: CRS
    shape: tuple[int, int]
    elevation: np.ndarray  # float64, NaN where the DEM has no data
    source: dict[str, Any] = field(default_factory=dict)

    @property
    def cell_size(self) -> float:
        return abs(self.transform.a)

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        rows, cols = self.shape
        x0, y0 = self.transform * (0, 0)
        x1, y1 = self.transform * (cols, rows)
        return min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)

    def centres(self, idxs: np.ndarray) -> np.ndarray:
        """Cell-centre coordinates (n x 2) of linear cell indices."""
        rows, cols = np.divmod(np.asarray(idxs, dtype=np.int64), self.shape[1])
        xs, ys = self.transform * (cols + 0.5, rows + 0.5)
        return np.column_stack([xs, ys])

    def cells_of(self, geom: shapely.Geometry) -> np.ndarray:
        """Linear indices of the cells whose centre is in ``geom`` (or that it touches, if none)."""
        from rasterio import features

        for touched in (False, True):
            burn = features.rasterize([(geom, 1)], out_shape=self.shape, transform=self.transform,
                                      fill=0, all_touched=touched, dtype="uint8")
            idxs = np.flatnonzero(burn)
            if idxs.size:
                return idxs
        return idxs


def flow_directions(dem: Raster) -> FlowGrid:
    """D8 flow directions from a DEM, with depressions filled (pyflwdir ``from_dem``).

    Cells on the edge of the valid data are outlets, so a trace that leaves the DEM ends there.

    Raises
    ------
    CrsError
        The DEM has no CRS, or a geographic one (cell sizes must be lengths).
    InputFileError
        The DEM holds no valid elevations.
    """
    import pyflwdir

    where = dem.source.get("file") if dem.source else None
    label = f"The DEM {where}" if where else "The DEM"
    if dem.crs is None:
        raise CrsError(
            f"{label} has no coordinate reference system, so its cells cannot be placed or "
            'measured. Save it with a CRS, or state it in the town config: [layers.dem] crs = '
            '"EPSG:26986".'
        )
    crs = CRS.from_user_input(dem.crs)
    if not crs.is_projected:
        raise CrsError(f"{label} is in a geographic CRS ({crs.name}); warp it to the working CRS.")
    arr = np.ma.asarray(dem.array)
    data = np.asarray(arr.filled(np.nan), dtype="float64")
    data[~np.isfinite(data)] = np.nan
    if not np.isfinite(data).any():
        raise InputFileError(f"{label} holds no elevation values in the area needed.")
    raw = np.where(np.isfinite(data), data, _NODATA)
    filled, d8_flood = pyflwdir.dem.fill_depressions(raw, nodata=_NODATA, outlets="edge")
    d8 = _steepest_d8(filled, d8_flood, abs(dem.transform.a), abs(dem.transform.e))
    flw = pyflwdir.from_array(d8, ftype="d8", transform=dem.transform, latlon=False,
                              check_ftype=False)
    return FlowGrid(flwdir=flw, transform=dem.transform, crs=crs, shape=data.shape,
                    elevation=data, source=dict(dem.source or {}))


#: D8 codes (pyflwdir / ArcGIS convention) of the neighbour at (row offset, column offset).
_D8 = {(-1, -1): 32, (-1, 0): 64, (-1, 1): 128, (0, -1): 16, (0, 1): 1,
       (1, -1): 8, (1, 0): 4, (1, 1): 2}


def _steepest_d8(filled: np.ndarray, d8_flood: np.ndarray, dx: float, dy: float) -> np.ndarray:
    """Steepest-descent D8 on the depression-filled DEM; flats keep the priority-flood direction.

    pyflwdir's ``fill_depressions`` returns, with the filled DEM, the direction in which the
    priority flood reached each cell; on sloping ground that is not the steepest descent (it
    zig-zags diagonally), so it is used only where the filled surface is flat. Steepest descent
    always goes strictly down and flood directions never go up, so the mix has no loops.
    """
    rows, cols = filled.shape
    valid = filled != _NODATA
    z = np.where(valid, filled, np.inf)
    padded = np.pad(z, 1, constant_values=np.inf)
    best = np.zeros(filled.shape)
    code = np.zeros(filled.shape, dtype=np.uint8)
    for (dr, dc), value in _D8.items():
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


# --------------------------------------------------------------------------- stream network
@dataclass
class StreamNetwork:
    """Stream reaches and water bodies as a directed graph (edges point downstream).

    ``reaches`` has one single-part line per row (columns ``reach``, ``id``, ``name``,
    ``source_index``); ``waterbodies`` one polygon per row (``id``, ``name``). ``downstream`` maps
    a node to ``(next node, position along the next reach, or None for a water body)``;
    ``outflows`` maps a water body to the reaches leaving it and where; ``warnings`` lists
    digitisation problems found (reversed or disconnected lines).
    """

    reaches: gpd.GeoDataFrame
    waterbodies: gpd.GeoDataFrame
    downstream: dict[Node, list[tuple[Node, float | None]]]
    outflows: dict[int, list[tuple[int, float]]]
    tolerance: float
    warnings: list[dict[str, Any]] = field(default_factory=list)

    @property
    def crs(self) -> Any:
        return self.reaches.crs if len(self.reaches) else self.waterbodies.crs

    def describe(self, node: Node) -> dict[str, Any]:
        kind, i = node
        frame = self.reaches if kind == "r" else self.waterbodies
        row = frame.iloc[i]
        return {"type": "stream" if kind == "r" else "waterbody",
                "id": _plain(row.get("id")), "name": _plain(row.get("name"))}


def stream_network(
    streams: gpd.GeoDataFrame | None,
    waterbodies: gpd.GeoDataFrame | None = None,
    *,
    tolerance_ft: float = 3.0,
    flow: FlowGrid | None = None,
    rise_tolerance: float = 1.0,
) -> StreamNetwork:
    """Build the downstream graph of stream lines (digitised in flow direction) and ponds.

    A reach flows into another where its last point lies within ``tolerance_ft`` of the other
    line (at its start, or part-way along for a tributary joining an undivided line), and into a
    water body where its last point lies in or on it. A water body flows out through every reach
    that leaves it (starts in or on it, or crosses it and ends outside).

    Digitisation problems are reported in ``warnings`` (they are not silently "fixed"):

    * ``"ends_meet"``: two or more reaches end at one point and nothing leaves it (outside any
      water body); one of them is probably digitised against the flow;
    * ``"starts_meet"``: two or more reaches start at one point that no reach ends at;
    * ``"rises"`` (with ``flow``): a reach climbs more than ``rise_tolerance`` (DEM z units)
      from its first to its last point, so it is probably drawn upstream.
    """
    crs = None
    for frame in (streams, waterbodies):
        if frame is not None and frame.crs is not None:
            crs = frame.crs
    reaches = _explode_lines(streams, crs)
    ponds = _waterbody_frame(waterbodies, crs)
    tol = tolerance_ft / feet_per_unit(crs) if crs is not None else 1.0
    lines = reaches.geometry.values
    starts = shapely.get_point(lines, 0)
    ends = shapely.get_point(lines, -1)
    lengths = shapely.length(lines)
    downstream: dict[Node, list[tuple[Node, float | None]]] = {}
    outflows: dict[int, list[tuple[int, float]]] = {}
    co_ending: dict[int, set[int]] = {}

    if len(reaches):
        tree = shapely.STRtree(lines)
        src, dst = tree.query(ends, predicate="dwithin", distance=tol)
        for i, j in zip(src.tolist(), dst.tolist(), strict=True):
            if i == j:
                continue
            pos = float(shapely.line_locate_point(lines[j], ends[i]))
            if pos >= lengths[j] - tol:  # both end here: a confluence, not a continuation
                co_ending.setdefault(i, set()).add(j)
                continue
            downstream.setdefault(("r", i), []).append((("r", j), pos))
    if len(ponds) and len(reaches):
        ptree = shapely.STRtree(ponds.geometry.values)
        src, dst = ptree.query(ends, predicate="dwithin", distance=tol)
        for i, k in zip(src.tolist(), dst.tolist(), strict=True):
            downstream.setdefault(("r", i), []).append((("w", k), None))
        src, dst = ptree.query(lines, predicate="dwithin", distance=tol)
        for j, k in zip(src.tolist(), dst.tolist(), strict=True):
            poly = ponds.geometry.values[k]
            if shapely.dwithin(ends[j], poly, tol):
                continue  # flows into the pond, not out of it
            inside = shapely.intersection(lines[j], poly)
            coords = shapely.get_coordinates(inside)
            if len(coords):
                pos = float(np.max(shapely.line_locate_point(lines[j], shapely.points(coords))))
            else:
                pos = 0.0  # starts on the shore
            outflows.setdefault(k, []).append((j, pos))
            downstream.setdefault(("w", k), []).append((("r", j), pos))

    net = StreamNetwork(reaches=reaches, waterbodies=ponds, downstream=downstream,
                        outflows=outflows, tolerance=tol)
    net.warnings = _digitisation_warnings(net, starts, ends, co_ending, flow, rise_tolerance)
    return net


def _explode_lines(streams: gpd.GeoDataFrame | None, crs: Any) -> gpd.GeoDataFrame:
    cols = {"reach": [], "id": [], "name": [], "source_index": []}
    if streams is None or streams.empty:
        return gpd.GeoDataFrame(cols, geometry=[], crs=crs)
    bad = ~streams.geom_type.isin(["LineString", "MultiLineString"])
    if bad.any():
        raise GeometryError(
            f"The streams layer holds {', '.join(sorted(set(streams.geom_type[bad])))} features; "
            "stream lines (LineString) digitised in flow direction are needed."
        )
    parts = streams.explode(index_parts=False)
    parts = parts[~parts.geometry.is_empty]
    return gpd.GeoDataFrame(
        {"reach": np.arange(len(parts)),
         "id": parts["id"].to_numpy() if "id" in parts else parts.index.to_numpy(),
         "name": parts["name"].to_numpy() if "name" in parts else [None] * len(parts),
         "source_index": parts.index.to_numpy()},
        geometry=parts.geometry.values, crs=streams.crs,
    )


def _waterbody_frame(waterbodies: gpd.GeoDataFrame | None, crs: Any) -> gpd.GeoDataFrame:
    if waterbodies is None or waterbodies.empty:
        return gpd.GeoDataFrame({"id": [], "name": []}, geometry=[], crs=crs)
    polys = waterbodies[waterbodies.geom_type.isin(["Polygon", "MultiPolygon"])]
    ids = polys["id"].to_numpy() if "id" in polys else [None] * len(polys)
    names = polys["name"].to_numpy() if "name" in polys else [None] * len(polys)
    return gpd.GeoDataFrame({"id": ids, "name": names}, geometry=polys.geometry.values,
                            crs=polys.crs)


def _digitisation_warnings(net: StreamNetwork, starts, ends, co_ending, flow, rise_tol):
    warnings: list[dict[str, Any]] = []
    reaches, tol = net.reaches, net.tolerance
    if not len(reaches):
        return warnings
    in_pond = np.zeros(len(reaches), dtype=bool)
    start_in_pond = np.zeros(len(reaches), dtype=bool)
    if len(net.waterbodies):
        ptree = shapely.STRtree(net.waterbodies.geometry.values)
        in_pond[np.unique(ptree.query(ends, predicate="dwithin", distance=tol)[0])] = True
        start_in_pond[np.unique(ptree.query(starts, predicate="dwithin", distance=tol)[0])] = True
    ids = reaches["id"].tolist()
    seen: set[frozenset[int]] = set()
    for i, others in co_ending.items():
        group = frozenset({i, *others})
        if group in seen or any(("r", g) in net.downstream for g in group) or in_pond[i]:
            continue
        seen.add(group)
        names = ", ".join(str(ids[g]) for g in sorted(group))
        x, y = shapely.get_coordinates(ends[i])[0]
        warnings.append({
            "problem": "ends_meet", "reaches": [_plain(ids[g]) for g in sorted(group)],
            "x": round(float(x), 1), "y": round(float(y), 1),
            "message": (f"Stream lines {names} all end at ({x:.0f}, {y:.0f}) and no line leaves "
                        "that point: one of them is probably digitised against the flow. "
                        "Streams must be drawn in flow direction; reverse the wrong line."),
        })
    stree = shapely.STRtree(starts)
    src, dst = stree.query(starts, predicate="dwithin", distance=tol)
    groups: dict[int, set[int]] = {}
    for i, j in zip(src.tolist(), dst.tolist(), strict=True):
        if i != j:
            groups.setdefault(i, set()).add(j)
    etree = shapely.STRtree(ends)
    seen = set()
    for i, others in groups.items():
        group = frozenset({i, *others})
        if group in seen or start_in_pond[i]:
            continue
        seen.add(group)
        if len(etree.query(starts[i], predicate="dwithin", distance=tol)):
            continue  # a reach ends here too: a split (braid), not necessarily an error
        names = ", ".join(str(ids[g]) for g in sorted(group))
        x, y = shapely.get_coordinates(starts[i])[0]
        warnings.append({
            "problem": "starts_meet", "reaches": [_plain(ids[g]) for g in sorted(group)],
            "x": round(float(x), 1), "y": round(float(y), 1),
            "message": (f"Stream lines {names} all start at ({x:.0f}, {y:.0f}) and no line "
                        "ends there: one of them is probably digitised against the flow."),
        })
    if flow is not None:
        z0 = _sample(flow, starts)
        z1 = _sample(flow, ends)
        rises = np.isfinite(z0) & np.isfinite(z1) & (z1 - z0 > rise_tol)
        for i in np.flatnonzero(rises):
            warnings.append({
                "problem": "rises", "reaches": [_plain(ids[i])],
                "message": (f"Stream line {ids[i]} climbs from {z0[i]:.1f} to {z1[i]:.1f} (DEM "
                            "elevation) from its first to its last point: it is probably "
                            "digitised against the flow. Reverse it in the streams layer."),
            })
    return warnings


def _sample(flow: FlowGrid, points: np.ndarray) -> np.ndarray:
    xy = shapely.get_coordinates(points)
    inv = ~flow.transform
    cols, rows = inv * (xy[:, 0], xy[:, 1])
    rows, cols = np.floor(rows).astype(int), np.floor(cols).astype(int)
    ok = (rows >= 0) & (rows < flow.shape[0]) & (cols >= 0) & (cols < flow.shape[1])
    out = np.full(len(xy), np.nan)
    out[ok] = flow.elevation[rows[ok], cols[ok]]
    return out


# --------------------------------------------------------------------------- water cells
def water_cells(flow: FlowGrid, network: StreamNetwork) -> np.ndarray:
    """Label the DEM cells that are mapped water: reach r -> r + 1, water body k -> -(k + 1).

    Streams are burnt over water bodies (all cells a line touches); 0 means land.
    """
    from rasterio import features

    labels = np.zeros(flow.shape, dtype=np.int64)
    if len(network.waterbodies):
        shapes = zip(network.waterbodies.geometry.values,
                     -(np.arange(len(network.waterbodies)) + 1), strict=True)
        labels = features.rasterize(shapes, out_shape=flow.shape, transform=flow.transform,
                                    fill=0, all_touched=True, dtype="int32").astype(np.int64)
    if len(network.reaches):
        shapes = zip(network.reaches.geometry.values, np.arange(len(network.reaches)) + 1,
                     strict=True)
        streams = features.rasterize(shapes, out_shape=flow.shape, transform=flow.transform,
                                     fill=0, all_touched=True, dtype="int32")
        labels = np.where(streams != 0, streams, labels)
    labels[~np.isfinite(flow.elevation)] = 0
    return labels


def drainage_labels(flow: FlowGrid, network: StreamNetwork,
                    water: np.ndarray | None = None) -> np.ndarray:
    """Label every DEM cell with the mapped water it first drains to.

    The result has the DEM window's shape: ``r + 1`` for stream reach ``r`` (a row of
    ``network.reaches``), ``-(k + 1)`` for water body ``k``, 0 where the flow leaves the DEM or
    ends in a pit without meeting mapped water. Water cells carry their own label. One pass of
    pyflwdir ``basins`` with every water cell as an outlet: the catchment of each reach, for all
    reaches at once.
    """
    water = water_cells(flow, network) if water is None else water
    idxs = np.flatnonzero(water)
    if not idxs.size:
        return np.zeros(flow.shape, dtype=np.int64)
    basins = flow.flwdir.basins(idxs=idxs, ids=np.arange(1, idxs.size + 1, dtype=np.uint32))
    flat = basins.ravel().astype(np.int64)
    out = np.zeros(flat.size, dtype=np.int64)
    has = flat > 0
    out[has] = water.ravel()[idxs][flat[has] - 1]
    return out.reshape(flow.shape)


def _plain(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    try:
        if value is None or (not isinstance(value, str) and np.isnan(value)):
            return None
    except TypeError:
        pass
    return value


def _text(value: Any) -> str | None:
    value = _plain(value)
    return None if value is None else str(value)

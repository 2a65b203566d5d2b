"""D8 flow on a DEM and the stream network: :func:`flow_directions`, :func:`stream_network`.

Part of :mod:`swm_gis.terrain` (read its notes on pyflwdir); :func:`drainage_labels` gives each
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
from swm_gis.messages import config_key
from swm_gis.raster import Raster
from swm_gis.terrain import kernels as flowkernels
from swm_gis.units import feet_per_unit

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
    elevation: np.ndarray  # float32 or float64 (as the DEM needs), NaN where it has no data
    source: dict[str, Any] = field(default_factory=dict)
    d8: np.ndarray | None = None  # uint8 D8 codes, 247 where the DEM has no data
    #: where :func:`water_cells` / :func:`drainage_labels` keep their results for this grid
    #: (a :class:`swm_gis.terrain.cache.GridStore`), or None
    store: Any = None

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
        idxs = self.centre_cells(geom)
        return idxs if idxs.size else self.centre_cells(geom, all_touched=True)

    def centre_cells(self, geom: shapely.Geometry, *, all_touched: bool = False) -> np.ndarray:
        """Linear indices (ascending) of the cells whose centre is in ``geom`` (``all_touched``:
        that it touches), rasterised over the cells under its bounds only, not the whole grid."""
        from rasterio import features

        rows, cols = self.shape
        none = np.array([], dtype=np.int64)
        if geom is None or shapely.is_empty(geom):
            return none
        x0, y0, x1, y1 = shapely.bounds(geom)
        (ca, ra), (cb, rb) = ~self.transform * (x0, y0), ~self.transform * (x1, y1)
        r0, r1 = max(int(np.floor(min(ra, rb))), 0), min(int(np.ceil(max(ra, rb))) + 1, rows)
        c0, c1 = max(int(np.floor(min(ca, cb))), 0), min(int(np.ceil(max(ca, cb))) + 1, cols)
        if r0 >= r1 or c0 >= c1:
            return none
        burn = features.rasterize([(geom, 1)], out_shape=(r1 - r0, c1 - c0),
                                  transform=self.transform * self.transform.translation(c0, r0),
                                  fill=0, all_touched=all_touched, dtype="uint8")
        r, c = np.nonzero(burn)
        return ((r + r0) * cols + (c + c0)).astype(np.int64)


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
            f"measured. Save it with a CRS, or state it in the town config: "
            f"{config_key('layers.dem', 'crs')} = \"EPSG:26986\"."
        )
    crs = CRS.from_user_input(dem.crs)
    if not crs.is_projected:
        raise CrsError(f"{label} is in a geographic CRS ({crs.name}); warp it to the working CRS.")
    data = _elevations(dem.array)
    if not np.isfinite(data).any():
        raise InputFileError(f"{label} holds no elevation values in the area needed.")
    raw = np.where(np.isfinite(data), data, data.dtype.type(_NODATA))
    filled, d8_flood = pyflwdir.dem.fill_depressions(raw, nodata=_NODATA, outlets="edge")
    del filled  # rounded in float32 on the way: recomputed exactly from the flood's tree
    filled = flowkernels.refill_kernel()(raw, d8_flood, raw.dtype.type(_NODATA))
    del raw
    d8 = _steepest_d8(filled, d8_flood, abs(dem.transform.a), abs(dem.transform.e))
    del filled, d8_flood
    return flow_grid(d8, transform=dem.transform, crs=crs, elevation=data,
                     source=dict(dem.source or {}))


def flow_grid(d8: np.ndarray, *, transform: Any, crs: CRS, elevation: np.ndarray,
              source: dict[str, Any] | None = None, store: Any = None) -> FlowGrid:
    """A :class:`FlowGrid` from D8 codes (uint8, 247 = no data) and the DEM's elevations.

    Used by :func:`flow_directions` and to rebuild a grid kept on disk by
    :mod:`swm_gis.terrain.cache` (then ``d8`` and ``elevation`` may be memory-mapped).
    """
    return FlowGrid(flwdir=_LazyFlwdir(d8, transform), transform=transform, crs=crs,
                    shape=tuple(elevation.shape), elevation=elevation,
                    source=dict(source or {}), d8=d8, store=store)


class _LazyFlwdir:
    """pyflwdir's ``FlwdirRaster`` of D8 codes, parsed on first use: a run that finds its
    drainage labels in the cache never needs it, and parsing 40 million cells (and importing
    pyflwdir's compiled code) costs about a second."""

    def __init__(self, d8: np.ndarray, transform: Any) -> None:
        self._d8, self._transform, self._raster = d8, transform, None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if self._raster is None:
            import pyflwdir

            self._raster = pyflwdir.from_array(np.asarray(self._d8), ftype="d8",
                                               transform=self._transform, latlon=False,
                                               check_ftype=False)
        return getattr(self._raster, name)


def _elevations(array: Any) -> np.ndarray:
    """The DEM band as floats with NaN for no data: float32 when that holds every value exactly
    (integer or float32 sources, half the memory of float64 on a 1 m town DEM), else float64."""
    arr = np.ma.asarray(array)
    small = arr.dtype.itemsize <= 2 or arr.dtype == np.float32
    out = np.asarray(arr.filled(np.nan), dtype="float32" if small else "float64")
    out[~np.isfinite(out)] = np.nan
    return out


_D8 = flowkernels.D8


def _steepest_d8(filled: np.ndarray, d8_flood: np.ndarray, dx: float, dy: float) -> np.ndarray:
    """Steepest-descent D8 on the depression-filled DEM; flats keep the priority-flood direction.

    pyflwdir's ``fill_depressions`` returns, with the filled DEM, the direction in which the
    priority flood reached each cell; on sloping ground that is not the steepest descent (it
    zig-zags diagonally), so it is used only where the filled surface is flat. The filled
    surface is the exact one of :func:`swm_gis.terrain.kernels.refill_kernel` (pyflwdir's is
    rounded in float32, which made two-cell loops on flats). Steepest descent always goes
    strictly down and flood directions point to a cell flooded earlier at the same or a lower
    level, so the mix has no loops.

    Compiled with numba (as pyflwdir's own code is): one pass over the grid with no
    temporaries, so a 1 m town DEM of 40 million cells costs a fraction of a second and no
    memory beyond the result. :func:`swm_gis.terrain.kernels.steepest_reference` is the same rule
    in numpy (tests check that both give the same codes).
    """
    dists = np.array([np.hypot(dr * dy, dc * dx) for dr, dc in _D8], dtype=np.float64)
    offsets = np.array(list(_D8), dtype=np.int64)
    codes = np.array(list(_D8.values()), dtype=np.uint8)
    return flowkernels.steepest_kernel()(np.ascontiguousarray(filled),
                                         np.ascontiguousarray(d8_flood), offsets, codes, dists,
                                         float(_NODATA))


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
                "id": plain_value(row.get("id")), "name": plain_value(row.get("name"))}


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
            "problem": "ends_meet", "reaches": [plain_value(ids[g]) for g in sorted(group)],
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
            "problem": "starts_meet", "reaches": [plain_value(ids[g]) for g in sorted(group)],
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
                "problem": "rises", "reaches": [plain_value(ids[i])],
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

    Streams are burnt over water bodies (all cells a line touches); 0 means land. int32, the
    grid's shape; kept in the grid's :attr:`FlowGrid.store` (on disk) when it has one.
    """
    if flow.store is not None:
        return flow.store.network_array("water", network, lambda: _water_cells(flow, network))
    return _water_cells(flow, network)


def _water_cells(flow: FlowGrid, network: StreamNetwork) -> np.ndarray:
    from rasterio import features

    labels = np.zeros(flow.shape, dtype=np.int32)
    if len(network.waterbodies):
        shapes = zip(network.waterbodies.geometry.values,
                     -(np.arange(len(network.waterbodies)) + 1), strict=True)
        labels = features.rasterize(shapes, out_shape=flow.shape, transform=flow.transform,
                                    fill=0, all_touched=True, dtype="int32")
    if len(network.reaches):
        shapes = zip(network.reaches.geometry.values, np.arange(len(network.reaches)) + 1,
                     strict=True)
        streams = features.rasterize(shapes, out_shape=flow.shape, transform=flow.transform,
                                     fill=0, all_touched=True, dtype="int32")
        np.copyto(labels, streams, where=streams != 0)
        del streams
    labels[~np.isfinite(flow.elevation)] = 0
    return labels


def drainage_labels(flow: FlowGrid, network: StreamNetwork,
                    water: np.ndarray | None = None) -> np.ndarray:
    """Label every DEM cell with the mapped water it first drains to.

    The result (int32) has the DEM window's shape: ``r + 1`` for stream reach ``r`` (a row of
    ``network.reaches``), ``-(k + 1)`` for water body ``k``, 0 where the flow leaves the DEM or
    ends in a pit without meeting mapped water. Water cells carry their own label. One pass of
    pyflwdir ``basins`` with every water cell as an outlet: the catchment of each reach, for all
    reaches at once. Kept in the grid's :attr:`FlowGrid.store` (on disk) when it has one and
    ``water`` is not given.
    """
    if water is None and flow.store is not None:
        return flow.store.network_array("labels", network,
                                        lambda: _drainage_labels(flow, network, None))
    return _drainage_labels(flow, network, water)


def _drainage_labels(flow: FlowGrid, network: StreamNetwork,
                     water: np.ndarray | None) -> np.ndarray:
    water = water_cells(flow, network) if water is None else water
    if flow.d8 is None:
        return _labels_by_basins(flow, water)
    return flowkernels.labels_kernel()(np.ascontiguousarray(flow.d8),
                                       np.ascontiguousarray(water, dtype=np.int32))


def _labels_by_basins(flow: FlowGrid, water: np.ndarray) -> np.ndarray:
    """:func:`drainage_labels` by pyflwdir ``basins`` with every water cell as an outlet (the
    reference the compiled walk is tested against; it orders all cells first: about 1 GB and
    9 s more on 40 million cells)."""
    idxs = np.flatnonzero(water)
    if not idxs.size:
        return np.zeros(flow.shape, dtype=np.int32)
    basins = flow.flwdir.basins(idxs=idxs, ids=np.arange(1, idxs.size + 1, dtype=np.uint32))
    lookup = np.concatenate([[0], water.ravel()[idxs]]).astype(np.int32)  # basin id -> label
    return lookup[basins]


def plain_value(value: Any) -> Any:
    """A numpy scalar as the Python value, NaN as None (for JSON and frames)."""
    if isinstance(value, np.generic):
        return value.item()
    try:
        if value is None or (not isinstance(value, str) and np.isnan(value)):
            return None
    except TypeError:
        pass
    return value


def text_or_none(value: Any) -> str | None:
    """:func:`plain_value` as text; None stays None."""
    value = plain_value(value)
    return None if value is None else str(value)

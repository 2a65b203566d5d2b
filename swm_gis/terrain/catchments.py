"""Catchments computed once per town: which receiving waters each DEM cell drains to.

For the applicability map (README "Commands"), tracing every parcel downstream would repeat the same
walk thousands of times. Instead, built on :mod:`swm_gis.terrain`:

1. D8 flow directions on the DEM (:func:`swm_gis.terrain.flow_directions`) and the stream
   network (:func:`swm_gis.terrain.stream_network`), once for the town;
2. every DEM cell labelled with the reach or water body it first drains to, in one pass
   (:func:`swm_gis.terrain.drainage_labels`: each reach's contributing area);
3. each network node matched to the ORWs and impaired waters it is or runs along
   (:func:`node_matches`), then closed downstream over the network (:func:`downstream_closure`),
   so a node is flagged if any water below it is an ORW or impaired;
4. a cell inherits its node's flags (:class:`DrainageGrid`).

Like the screening's trace (:func:`swm_gis.terrain.receiving_waters.trace_receiving_waters`), the
closure stops at the town line (a reach leaving the town is cut where it first leaves, with the
same :func:`swm_gis.terrain.trace.clip_at_boundary`) and knows where it left the data: a
reach cut at the town line, or with nothing downstream (the end of the mapped network), makes
every node above it "leaves the data" (:data:`LEAVES`), and a node whose geometry lies beyond a
receiving-water layer's coverage (:func:`swm_gis.coverage_rule.covers`) makes the nodes above it
uncovered for that layer. The map then says "drains to" where a water was found, "does not"
only where the trace ended inside the data having passed none, and null otherwise.

Impaired waters are Integrated List assessment units in category 4a (approved TMDL), 4b or 5
(§ 320-19 B(10)). Pure: the files are read by
:func:`swm_gis.applicability.tiles.drainage_grid`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import geopandas as gpd
import numpy as np
import pandas as pd
import shapely

from swm_gis import terrain as hydrology
from swm_gis.coverage_rule import covers
from swm_gis.terrain.receiving_waters import IMPAIRED_CATEGORIES, is_impaired
from swm_gis.terrain.receiving_waters import split_causes as rw_split_causes
from swm_gis.terrain.trace import clip_at_boundary


@dataclass(frozen=True)
class DrainageGrid:
    """Receiving-water flags per DEM cell, from catchments computed once for the town.

    ``labels`` (int32, the DEM window's shape) gives each cell the network node (stream reach or
    water body) its runoff first meets, or -1; row ``i`` of ``node_flags`` (bool, nodes x
    (2 + causes)) says whether node ``i`` or anything downstream of it is an ORW (column 0), an
    impaired water (column 1) and which of ``cause_names`` impair it (columns 2...).
    ``transform`` is the affine transform of ``labels``.

    ``node_unknown`` (bool, nodes x 3, or None when nothing is unknown) says, for each node,
    whether the flow below it leaves the data (column :data:`LEAVES`: the town line, the end of
    the mapped network) and whether it passes land beyond the coverage of the ORW layers
    (:data:`UNCOVERED_ORW`) or of the impaired-waters layer (:data:`UNCOVERED_IMPAIRED`).
    ``orw_complete``: the ORW search had every layer that could find one (``orw`` and the
    certified vernal pools, which are ORWs). ``coverage`` holds the grown coverage areas
    (:func:`swm_gis.io.coverage.coverage_areas`) of ``"orw"`` and ``"impaired"``, which the parcel
    itself must lie in.
    """

    labels: np.ndarray
    node_flags: np.ndarray
    cause_names: tuple[str, ...]
    transform: Any
    orw_ran: bool = True
    impaired_ran: bool = True
    node_unknown: np.ndarray | None = None
    orw_complete: bool = True
    coverage: dict[str, Any] = field(default_factory=dict)


#: Columns of :attr:`DrainageGrid.node_unknown`.
LEAVES, UNCOVERED_ORW, UNCOVERED_IMPAIRED = 0, 1, 2


def impaired_rows(impaired: gpd.GeoDataFrame) -> np.ndarray:
    """True for the assessment units that count as impaired (the rule lives in
    :func:`swm_gis.terrain.receiving_waters.is_impaired`, shared with the site screening).

    >>> impaired_rows(pd.DataFrame({"category": ["4a", "2", "5", "4C", None, "5M"]})).tolist()
    [True, False, True, False, False, True]
    """
    return is_impaired(impaired["category"].to_numpy())


def split_causes(causes: pd.Series) -> list[list[str]]:
    """Semicolon-separated cause lists -> lists of trimmed names (empty entries dropped)."""
    return [rw_split_causes(v) for v in causes.astype(object)]


def node_matches(network: hydrology.StreamNetwork, features: gpd.GeoDataFrame, *,
                 follow_min: float | None = None, tolerance: float | None = None,
                 reaches: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(node, feature row) pairs where a network node is, or runs along, a feature.

    Nodes are the network's reaches (0..R-1) then water bodies (R..R+W-1). A reach meets a
    polygon feature it runs inside or ends in, and a line feature it follows for at least
    ``follow_min`` (default ten network tolerances, or half the reach if shorter) within the
    tolerance, the same rule as :func:`swm_gis.terrain.waters_along`. A reach that only
    starts on a polygon's shore flows out of it and does not meet it. A water body meets polygons
    it overlaps and line features running through it. A point feature (a certified vernal pool)
    is met by a reach or water body passing within the tolerance, as the screening's trace
    meets it. One STRtree query per node kind.

    ``tolerance`` (CRS units) defaults to the network's; ``reaches`` replaces the reaches'
    geometry (the same rows), e.g. reaches cut at the town line.
    """
    if features is None or features.empty:
        return np.array([], dtype=np.int64), np.array([], dtype=np.int64)
    tol = network.tolerance if tolerance is None else tolerance
    follow_min = 10 * tol if follow_min is None else follow_min
    geoms = features.geometry.values.to_numpy()
    is_poly = np.isin(shapely.get_type_id(geoms), [3, 6])
    is_point = np.isin(shapely.get_type_id(geoms), [0, 4])
    tree = shapely.STRtree(geoms)
    nodes, feats = [], []
    if reaches is None:
        reaches = network.reaches.geometry.values.to_numpy()
    if len(reaches):
        ri, fi = tree.query(reaches, predicate="dwithin", distance=tol)
        poly = is_poly[fi]
        ok = is_point[fi].copy()  # a pool within the tolerance of the reach is met
        if poly.any():  # runs inside the polygon, or ends in it (flows into it); a reach that
            # only starts on its shore flows out of it and does not meet it
            r, f = reaches[ri[poly]], geoms[fi[poly]]
            inside = shapely.length(shapely.intersection(r, f)) > 0
            ok[poly] = inside | shapely.dwithin(shapely.get_point(r, -1), f, tol)
        line = ~poly & ~is_point[fi]
        if line.any():
            along = shapely.length(shapely.intersection(
                reaches[ri[line]], shapely.buffer(geoms[fi[line]], tol)))
            need = np.minimum(follow_min, 0.5 * shapely.length(reaches[ri[line]]))
            ok[line] = along >= need
        nodes.append(ri[ok])
        feats.append(fi[ok])
    ponds = network.waterbodies.geometry.values.to_numpy()
    if len(ponds):  # the pond overlaps an ORW / AU polygon, or a line AU runs through it
        wi, fi = tree.query(ponds, predicate="dwithin", distance=tol)
        inter = shapely.intersection(ponds[wi], geoms[fi])
        ok = np.where(is_poly[fi], shapely.area(inter) > 0,
                      np.where(is_point[fi], True, shapely.length(inter) >= follow_min))
        nodes.append(wi[ok] + len(reaches))
        feats.append(fi[ok])
    if not nodes:
        return np.array([], dtype=np.int64), np.array([], dtype=np.int64)
    return np.concatenate(nodes).astype(np.int64), np.concatenate(feats).astype(np.int64)


def network_edges(network: hydrology.StreamNetwork) -> tuple[np.ndarray, np.ndarray]:
    """Downstream edges (from node, to node) in the node numbering of :func:`node_matches`."""
    n_r = len(network.reaches)

    def num(node: tuple[str, int]) -> int:
        return node[1] if node[0] == "r" else n_r + node[1]

    src, dst = [], []
    for u, targets in network.downstream.items():
        for v, _pos in targets:
            src.append(num(u))
            dst.append(num(v))
    return np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64)


def downstream_closure(own: np.ndarray, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Flags of each node OR-ed with those of every node downstream of it.

    ``own`` is (nodes x flags) bool; edges ``src -> dst`` point downstream. Propagates along all
    edges at once until nothing changes (as many rounds as the longest path; cycles, e.g.
    braids, are fine).

    >>> own = np.array([[False], [False], [True]])
    >>> downstream_closure(own, np.array([0, 1]), np.array([1, 2])).ravel().tolist()
    [True, True, True]
    """
    flags = own.copy()
    if not len(src):
        return flags
    for _ in range(len(flags) + 1):
        new = flags.copy()
        np.logical_or.at(new, src, flags[dst])
        if np.array_equal(new, flags):
            break
        flags = new
    return flags


def node_flags(network: hydrology.StreamNetwork, *, orw: gpd.GeoDataFrame | None,
               impaired: gpd.GeoDataFrame | None, vernal_pools: gpd.GeoDataFrame | None = None,
               boundary: shapely.Geometry | None = None,
               coverage: dict[str, Any] | None = None, tolerance: float | None = None,
               pools: tuple[np.ndarray, np.ndarray] | None = None
               ) -> tuple[np.ndarray, tuple[str, ...]]:
    """(nodes x (2 + causes + 3)) flags closed downstream, and the cause names (columns 2...).

    ``pools`` adds one node per certified vernal pool met overland (after the reaches and
    water bodies): its geometry and the node its cell drains to (-1: nowhere in the data).

    The last three columns are :attr:`DrainageGrid.node_unknown`'s. With a ``boundary`` (the
    town), build the network from streams cut at it (:func:`split_at_boundary`): as the
    screening traces a site whose flow enters the network in the town, a node in the town is
    closed over the network cut where a reach first leaves it (the same rule,
    :func:`swm_gis.terrain.trace.clip_at_boundary`); a node outside it over the whole
    network, as the screening traces one entering outside.
    """
    reaches = network.reaches.geometry.values.to_numpy()
    n_r = len(reaches)
    full = _node_flags(network, orw=orw, impaired=impaired, vernal_pools=vernal_pools,
                       outside=np.zeros(n_r, dtype=bool), coverage=coverage,
                       tolerance=tolerance, pools=pools)
    if boundary is None or boundary.is_empty:
        return full
    outside = np.array([clip_at_boundary(g, boundary)[1] for g in reaches], dtype=bool)
    in_town = _node_flags(network, orw=orw, impaired=impaired, vernal_pools=vernal_pools,
                          outside=outside, coverage=coverage, tolerance=tolerance, pools=pools)
    ponds = network.waterbodies.geometry.values.to_numpy()
    marks = pools[0] if pools is not None else np.array([], dtype=object)
    inside = np.concatenate([~outside, shapely.intersects(boundary, ponds).astype(bool),
                             shapely.intersects(boundary, marks).astype(bool)])
    return np.where(inside[:, None], in_town[0], full[0]), full[1]


def split_at_boundary(streams: gpd.GeoDataFrame | None, boundary: shapely.Geometry | None
                      ) -> gpd.GeoDataFrame | None:
    """Stream lines cut where they cross ``boundary`` (the town line), each piece wholly inside
    or outside it, in flow order, with its line's attributes.

    The pieces join end to start, so the network built from them (:func:`swm_gis.terrain.
    stream_network`) flows as the lines do; what changes is that a catchment is known per
    piece, in the town or beyond it, as the screening's trace knows where it left the town.
    """
    if streams is None or streams.empty or boundary is None or boundary.is_empty:
        return streams
    parts = streams.explode(index_parts=False)
    parts = parts[~parts.geometry.is_empty & parts.geometry.notna()]
    lines = parts.geometry.values.to_numpy()
    crossing = ~shapely.covers(boundary, lines) & shapely.intersects(boundary, lines)
    if not crossing.any():
        return parts
    rows, geoms = [], []
    for i, line in enumerate(lines):
        if not crossing[i]:
            rows.append(i)
            geoms.append(line)
            continue
        pieces = [g for part in (shapely.intersection(line, boundary),
                                 shapely.difference(line, boundary))
                  for g in shapely.get_parts(shapely.line_merge(part))
                  if shapely.get_type_id(g) == 1 and shapely.length(g) > 0]
        pieces.sort(key=lambda g: float(shapely.line_locate_point(line, shapely.get_point(g, 0))))
        rows += [i] * len(pieces)
        geoms += pieces
    return gpd.GeoDataFrame(parts.iloc[rows].drop(columns=parts.geometry.name),
                            geometry=geoms, crs=streams.crs)


def _node_flags(network: hydrology.StreamNetwork, *, orw: gpd.GeoDataFrame | None,
                impaired: gpd.GeoDataFrame | None, vernal_pools: gpd.GeoDataFrame | None,
                outside: np.ndarray, coverage: dict[str, Any] | None, tolerance: float | None,
                pools: tuple[np.ndarray, np.ndarray] | None = None
                ) -> tuple[np.ndarray, tuple[str, ...]]:
    """:func:`node_flags` with the reaches marked ``outside`` (of the town) ending the trace:
    a trace reaching one stops there (it leaves the town), meeting nothing on it."""
    if pools is None:
        pools = (np.array([], dtype=object), np.array([], dtype=np.int64),
                 np.array([], dtype=bool), [])
    pool_geoms, pool_dst, mark_orw, mark_imp = pools
    n_net = len(network.reaches) + len(network.waterbodies)
    n_nodes = n_net + len(pool_geoms)
    impaired, causes_per_row, names = _impaired_causes(impaired)
    col = {c: 2 + i for i, c in enumerate(names)}
    k = 2 + len(names)
    own = np.zeros((n_nodes, k + 3), dtype=bool)
    reaches = network.reaches.geometry.values.to_numpy()
    n_r = len(reaches)
    match = {"tolerance": tolerance}
    _mark_network(own, network, orw=orw, impaired=impaired, vernal_pools=vernal_pools,
                  causes_per_row=causes_per_row, col=col, match=match)
    own[:n_r][outside] = False  # beyond the town line: the trace stopped before it
    own[n_net:, 0] = mark_orw  # an ORW or a certified vernal pool met overland
    for m, feats in enumerate(mark_imp):  # an impaired polygon met overland
        if len(feats):
            own[n_net + m, 1] = True
            for feat in feats:
                for c in causes_per_row[feat]:
                    own[n_net + m, col[c]] = True
    src, dst = network_edges(network)
    on = np.flatnonzero(pool_dst >= 0)
    src = np.concatenate([src, n_net + on]).astype(np.int64)
    dst = np.concatenate([dst, pool_dst[on]]).astype(np.int64)
    own[n_net:, k + LEAVES] = pool_dst < 0  # the pool's cell drains off the data
    # the trace leaves the data at a reach beyond the town line or with nothing downstream
    ends = np.ones(n_r, dtype=bool)
    ends[np.unique(src[src < n_r])] = False
    own[:n_r, k + LEAVES] = ends | outside
    geoms = np.concatenate([reaches, network.waterbodies.geometry.values.to_numpy(),
                            pool_geoms])
    searched = np.r_[~outside, np.ones(len(geoms) - n_r, dtype=bool)]
    _mark_uncovered(own, k, geoms, searched, coverage)
    # no edge leaves a reach beyond the town line: the trace stopped at it
    keep = np.ones(len(src), dtype=bool)
    from_reach = src < n_r
    keep[from_reach] = ~outside[src[from_reach]]
    return downstream_closure(own, src[keep], dst[keep]), names


def _impaired_causes(impaired: gpd.GeoDataFrame | None
                     ) -> tuple[gpd.GeoDataFrame | None, list[list[str]], tuple[str, ...]]:
    """The impaired rows that count, each row's pollutant groups, and every group's name."""
    causes_per_row: list[list[str]] = []
    if impaired is not None and len(impaired):
        impaired = impaired.loc[impaired_rows(impaired)]
        causes_per_row = split_causes(impaired["causes"]) if "causes" in impaired else \
            [[] for _ in range(len(impaired))]
    names = tuple(sorted({c for row in causes_per_row for c in row}, key=str.lower))
    return impaired, causes_per_row, names


def _mark_network(own: np.ndarray, network: hydrology.StreamNetwork, *,
                  orw: gpd.GeoDataFrame | None, impaired: gpd.GeoDataFrame | None,
                  vernal_pools: gpd.GeoDataFrame | None, causes_per_row: list[list[str]],
                  col: dict[str, int], match: dict[str, Any]) -> None:
    """Mark the network's nodes that meet an ORW (column 0) or an impaired water (column 1 and
    its pollutant groups' columns)."""
    for waters in (orw, vernal_pools):  # certified vernal pools are ORWs (Chapter 320)
        if waters is not None and len(waters):
            nodes, _ = node_matches(network, waters, **match)
            own[nodes, 0] = True
    if impaired is not None and len(impaired):
        nodes, feats = node_matches(network, impaired, **match)
        own[nodes, 1] = True
        for node, feat in zip(nodes.tolist(), feats.tolist(), strict=True):
            for c in causes_per_row[feat]:
                own[node, col[c]] = True


def _mark_uncovered(own: np.ndarray, k: int, geoms: np.ndarray, searched: np.ndarray,
                    coverage: dict[str, Any] | None) -> None:
    """Mark the searched nodes lying beyond the ORW or impaired layer's coverage."""
    for col_k, key in ((UNCOVERED_ORW, "orw"), (UNCOVERED_IMPAIRED, "impaired")):
        for area in (coverage or {}).get(key) or []:
            own[searched, k + col_k] |= ~covers(geoms[searched], area)


def build_grid(flow: hydrology.FlowGrid, network: hydrology.StreamNetwork, *,
               orw: gpd.GeoDataFrame | None, impaired: gpd.GeoDataFrame | None,
               vernal_pools: gpd.GeoDataFrame | None = None,
               boundary: shapely.Geometry | None = None,
               coverage: dict[str, Any] | None = None, tolerance: float | None = None,
               orw_complete: bool | None = None) -> DrainageGrid:
    """The per-cell drainage grid from flow directions, the network and the receiving waters.

    ``boundary`` is the town (the trace stops where it leaves it), ``coverage`` the grown
    coverage areas of ``"orw"`` and ``"impaired"`` and ``tolerance`` (CRS units) how close a
    water must run to be met (the screening's, 10 ft); ``orw_complete`` whether every ORW layer
    (``orw`` and ``vernal_pools``) was given (default: both frames given).
    """
    labels = hydrology.drainage_labels(flow, network)
    n_r, n_w = len(network.reaches), len(network.waterbodies)
    labels, pools = _mark_labels(flow, network, labels, orw=orw, impaired=impaired,
                                 vernal_pools=vernal_pools)
    node = np.full(labels.shape, -1, dtype=np.int32)
    node[labels > 0] = labels[labels > 0] - 1
    node[labels > n_r] += n_w  # a pool's catchment: its node follows the water bodies'
    node[labels < 0] = n_r + (-labels[labels < 0] - 1)
    flags, names = node_flags(network, orw=orw, impaired=impaired, vernal_pools=vernal_pools,
                              boundary=boundary, coverage=coverage, tolerance=tolerance,
                              pools=pools)
    k = 2 + len(names)
    return DrainageGrid(labels=node, node_flags=flags[:, :k], cause_names=names,
                        transform=flow.transform,
                        orw_ran=orw is not None or vernal_pools is not None,
                        impaired_ran=impaired is not None, node_unknown=flags[:, k:],
                        orw_complete=(orw is not None and vernal_pools is not None)
                        if orw_complete is None else orw_complete,
                        coverage=dict(coverage or {}))


def _mark_labels(flow: hydrology.FlowGrid, network: hydrology.StreamNetwork,
                 labels: np.ndarray, *, orw: gpd.GeoDataFrame | None,
                 impaired: gpd.GeoDataFrame | None, vernal_pools: gpd.GeoDataFrame | None
                 ) -> tuple[np.ndarray, tuple | None]:
    """The drainage labels with each cell by which an ORW, an impaired water or a certified
    vernal pool is met overland (off the mapped water, :func:`swm_gis.terrain.feature_cells`)
    as an outlet of its own, labelled after the reaches (``n_r + 1 + m``), and those marks'
    nodes: their geometry, the node their cell drains on to, whether an ORW (or pool) is there
    and which impaired rows (positions among the impaired units) are.

    A cell then drains to the first mark its D8 path passes, and the mark on to the water (or
    the next mark) below it: the rule of :func:`swm_gis.terrain.features_met_overland`, by
    which the screening meets these waters overland.
    """
    water = hydrology.water_cells(flow, network)
    cells, orw_of, imp_of, geoms = [], [], [], []
    for frame, kind, areas in ((vernal_pools, "orw", False), (orw, "orw", True),
                               (impaired, "impaired", True)):
        if frame is None or frame.empty:
            continue
        if kind == "impaired":
            frame = frame.loc[impaired_rows(frame)]
        g = frame.geometry.values.to_numpy()
        c, r = hydrology.feature_cells(flow, g, areas=areas)
        cells.append(c)
        orw_of.append(np.full(len(c), kind == "orw"))
        imp_of.append(np.where(kind == "impaired", r, -1))
        # a polygon's mark is its cell's centre, a pool's the pool
        geoms.append(g[r] if not areas else shapely.points(flow.centres(c)) if len(c) else
                     np.array([], dtype=object))
    if not cells:
        return labels, None
    cells, orw_of, imp_of = np.concatenate(cells), np.concatenate(orw_of), np.concatenate(imp_of)
    geoms = np.concatenate(geoms)
    keep = water.ravel()[cells] == 0  # on a water cell: met along the network
    cells, orw_of, imp_of, geoms = cells[keep], orw_of[keep], imp_of[keep], geoms[keep]
    if not len(cells):
        return labels, None
    uniq, inverse = np.unique(cells, return_inverse=True)
    n_r, n_w = len(network.reaches), len(network.waterbodies)
    marked = np.array(water, dtype=np.int32, copy=True)
    marked.ravel()[uniq] = n_r + 1 + np.arange(len(uniq), dtype=np.int32)
    labels = hydrology.drainage_labels(flow, network, water=marked)
    order = np.argsort(inverse, kind="stable")
    starts = np.searchsorted(inverse[order], np.arange(len(uniq)))
    groups = np.split(order, starts[1:])
    mark_geoms = np.array([shapely.union_all(geoms[i]) for i in groups], dtype=object)
    mark_orw = np.array([bool(orw_of[i].any()) for i in groups], dtype=bool)
    mark_imp = [np.unique(imp_of[i][imp_of[i] >= 0]) for i in groups]
    ds = np.asarray(flow.flwdir.idxs_ds[uniq], dtype=np.int64)
    below = labels.ravel()[ds].astype(np.int64)
    dst = np.where(below > n_r, below - 1 + n_w,
                   np.where(below > 0, below - 1, np.where(below < 0, n_r - below - 1, -1)))
    dst[ds == uniq] = -1  # the mark's cell is a pit or an outlet of the DEM
    return labels, (mark_geoms, dst.astype(np.int64), mark_orw, mark_imp)


__all__ = ["IMPAIRED_CATEGORIES", "LEAVES", "UNCOVERED_IMPAIRED", "UNCOVERED_ORW",
           "DrainageGrid", "build_grid", "downstream_closure", "impaired_rows", "node_flags",
           "node_matches", "split_at_boundary", "split_causes"]

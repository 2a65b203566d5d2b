"""Catchments computed once per town: which receiving waters each DEM cell drains to.

For the applicability map (SPEC section 5), tracing every parcel downstream would repeat the same
walk thousands of times. Instead, built on :mod:`swm_gis.terrain`:

1. D8 flow directions on the DEM (:func:`swm_gis.terrain.flow_directions`) and the stream
   network (:func:`swm_gis.terrain.stream_network`), once for the town;
2. every DEM cell labelled with the reach or water body it first drains to, in one pass
   (:func:`swm_gis.terrain.drainage_labels`: each reach's contributing area);
3. each network node matched to the ORWs and impaired waters it is or runs along
   (:func:`node_matches`), then closed downstream over the network (:func:`downstream_closure`),
   so a node is flagged if any water below it is an ORW or impaired;
4. a cell inherits its node's flags (:class:`DrainageGrid`).

Impaired waters are Integrated List assessment units in category 4a (approved TMDL), 4b or 5
(§ 320-19 B(10)). Pure: the files are read by
:func:`swm_gis.applicability.tiles.drainage_grid`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import geopandas as gpd
import numpy as np
import pandas as pd
import shapely

from swm_gis import terrain as hydrology
from swm_gis.terrain.receiving_waters import is_impaired
from swm_gis.terrain.receiving_waters import split_causes as rw_split_causes


@dataclass(frozen=True)
class DrainageGrid:
    """Receiving-water flags per DEM cell, from catchments computed once for the town.

    ``labels`` (int32, the DEM window's shape) gives each cell the network node (stream reach or
    water body) its runoff first meets, or -1; row ``i`` of ``node_flags`` (bool, nodes x
    (2 + causes)) says whether node ``i`` or anything downstream of it is an ORW (column 0), an
    impaired water (column 1) and which of ``cause_names`` impair it (columns 2...).
    ``transform`` is the affine transform of ``labels``.
    """

    labels: np.ndarray
    node_flags: np.ndarray
    cause_names: tuple[str, ...]
    transform: Any
    orw_ran: bool = True
    impaired_ran: bool = True


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
                 follow_min: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(node, feature row) pairs where a network node is, or runs along, a feature.

    Nodes are the network's reaches (0..R-1) then water bodies (R..R+W-1). A reach meets a
    polygon feature it runs inside or ends in, and a line feature it follows for at least
    ``follow_min`` (default ten network tolerances, or half the reach if shorter) within the
    tolerance, the same rule as :func:`swm_gis.terrain.waters_along`. A reach that only
    starts on a polygon's shore flows out of it and does not meet it. A water body meets polygons
    it overlaps and line features running through it. One STRtree query per node kind.
    """
    if features is None or features.empty:
        return np.array([], dtype=np.int64), np.array([], dtype=np.int64)
    tol = network.tolerance
    follow_min = 10 * tol if follow_min is None else follow_min
    geoms = features.geometry.values.to_numpy()
    is_poly = np.isin(shapely.get_type_id(geoms), [3, 6])
    tree = shapely.STRtree(geoms)
    nodes, feats = [], []
    reaches = network.reaches.geometry.values.to_numpy()
    if len(reaches):
        ri, fi = tree.query(reaches, predicate="dwithin", distance=tol)
        poly = is_poly[fi]
        ok = np.zeros(len(ri), dtype=bool)
        if poly.any():  # runs inside the polygon, or ends in it (flows into it); a reach that
            # only starts on its shore flows out of it and does not meet it
            r, f = reaches[ri[poly]], geoms[fi[poly]]
            inside = shapely.length(shapely.intersection(r, f)) > 0
            ok[poly] = inside | shapely.dwithin(shapely.get_point(r, -1), f, tol)
        line = ~poly
        if line.any():
            along = shapely.length(shapely.intersection(
                reaches[ri[line]], shapely.buffer(geoms[fi[line]], tol)))
            need = np.minimum(follow_min, 0.5 * shapely.length(reaches[ri[line]]))
            ok[line] = along >= need
        nodes.append(ri[ok])
        feats.append(fi[ok])
    ponds = network.waterbodies.geometry.values.to_numpy()
    if len(ponds):  # the pond overlaps an ORW / AU polygon, or a line AU runs through it
        wi, fi = tree.query(ponds, predicate="intersects")
        inter = shapely.intersection(ponds[wi], geoms[fi])
        ok = np.where(is_poly[fi], shapely.area(inter) > 0, shapely.length(inter) >= follow_min)
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
               impaired: gpd.GeoDataFrame | None) -> tuple[np.ndarray, tuple[str, ...]]:
    """(nodes x (2 + causes)) flags closed downstream, and the cause names (columns 2...)."""
    n_nodes = len(network.reaches) + len(network.waterbodies)
    causes_per_row: list[list[str]] = []
    if impaired is not None and len(impaired):
        impaired = impaired.loc[impaired_rows(impaired)]
        causes_per_row = split_causes(impaired["causes"]) if "causes" in impaired else \
            [[] for _ in range(len(impaired))]
    names = tuple(sorted({c for row in causes_per_row for c in row}, key=str.lower))
    col = {c: 2 + i for i, c in enumerate(names)}
    own = np.zeros((n_nodes, 2 + len(names)), dtype=bool)
    if orw is not None and len(orw):
        nodes, _ = node_matches(network, orw)
        own[nodes, 0] = True
    if impaired is not None and len(impaired):
        nodes, feats = node_matches(network, impaired)
        own[nodes, 1] = True
        for node, feat in zip(nodes.tolist(), feats.tolist(), strict=True):
            for c in causes_per_row[feat]:
                own[node, col[c]] = True
    src, dst = network_edges(network)
    return downstream_closure(own, src, dst), names


def build_grid(flow: hydrology.FlowGrid, network: hydrology.StreamNetwork, *,
               orw: gpd.GeoDataFrame | None, impaired: gpd.GeoDataFrame | None
               ) -> DrainageGrid:
    """The per-cell drainage grid from flow directions, the network and the receiving waters."""
    labels = hydrology.drainage_labels(flow, network)
    n_r = len(network.reaches)
    node = np.full(labels.shape, -1, dtype=np.int32)
    node[labels > 0] = labels[labels > 0] - 1
    node[labels < 0] = n_r + (-labels[labels < 0] - 1)
    flags, names = node_flags(network, orw=orw, impaired=impaired)
    return DrainageGrid(labels=node, node_flags=flags, cause_names=names,
                        transform=flow.transform, orw_ran=orw is not None,
                        impaired_ran=impaired is not None)


__all__ = ["DrainageGrid", "build_grid", "downstream_closure", "impaired_rows", "node_flags",
           "node_matches", "split_causes"]

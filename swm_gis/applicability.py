"""Town-wide applicability map: every parcel classified at once (SPEC sections 3, 5 and 7).

Per parcel: area and whether it can reach the one-acre trigger, largest-overlap HUC12/HUC10, exact
distance to the nearest NHESP feature (priority or estimated habitat, certified vernal pool),
Special Flood Hazard Area overlap, whether its land drains to an Outstanding Resource Water or an
impaired water (from catchments computed once for the town), and a ``screening_class`` a person
reads at a glance.

The module has two halves:

* the core, pure and vectorised: :class:`Overlays` (reference layers prepared once, as STRtrees
  over subdivided geometry) and :func:`classify_parcels` (one GeoDataFrame of parcels in, one of
  flags out, same index and CRS; no per-row Python loops);
* the job: :func:`run_applicability` reads the town in spatial tiles through
  :mod:`swm_gis.layers` (each parcel assigned to exactly one tile by its representative point),
  classifies each tile and appends it to the output GeoPackage, so memory stays flat as the parcel
  count grows. :mod:`swm_gis.applicability_dask` runs the same per-tile function on a Dask cluster.

Examples
--------
>>> import geopandas as gpd, shapely
>>> parcels = gpd.GeoDataFrame({"id": ["A", "B"]},
...     geometry=[shapely.box(0, 0, 100, 100), shapely.box(300, 0, 310, 10)], crs="EPSG:26986")
>>> flood = gpd.GeoDataFrame({"zone": ["AE"], "sfha": [None]},
...     geometry=[shapely.box(-50, -50, 25, 200)], crs="EPSG:26986")
>>> out = classify_parcels(parcels, Overlays.build(flood_zones=flood))
>>> out[["parcel_id", "in_sfha", "sfha_fraction", "can_reach_trigger"]].to_dict("list")
{'parcel_id': ['A', 'B'], 'in_sfha': [True, False], 'sfha_fraction': [0.25, 0.0], \
'can_reach_trigger': [True, False]}
>>> out["screening_class"].tolist()
['large parcel; floodplain constraint', 'small parcel; no mapped constraints']
"""

from __future__ import annotations

import datetime as dt
import json
import math
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import geopandas as gpd
import numpy as np
import pandas as pd
import pyogrio
import shapely
from pyproj import Transformer

from swm_gis import layers as io
from swm_gis.config import FT_PER_M, SQFT_PER_ACRE, Rules, TownConfig
from swm_gis.config import metres_per_unit as config_metres_per_unit
from swm_gis.errors import EmptyLayerError
from swm_gis.floodplain import sfha_mask
from swm_gis.writers import atomic_path, check_outputs_free, sqlite_sync_off

Progress = Callable[[float, str], None]
BBox = tuple[float, float, float, float]

SQFT_PER_SQM = FT_PER_M**2
#: Reference geometry is cut into pieces of at most this many vertices and this extent (m), so
#: that predicates, distances and intersections against huge habitat or floodplain polygons touch
#: only a few dozen vertices each.
MAX_PIECE_VERTICES = 64
MAX_PIECE_EXTENT_M = 500.0
#: NHESP distances are reported up to this far (twice the 500 ft rule); beyond it the distance is
#: empty (null), read "no NHESP feature within 1,000 ft". Searching farther costs time for no
#: screening value.
NHESP_SEARCH_FT = 1_000.0
#: Thresholds are inclusive; this absorbs floating-point noise from the metre-to-foot conversion
#: (a parcel exactly 500 ft away computes as 500.00000000000006 ft).
INCLUSIVE_TOL_FT = 1e-6
#: Target number of parcels per spatial tile (chunk) of the job.
DEFAULT_CHUNK_SIZE = 50_000

LAYER = "applicability"
SUMMARY_TABLE = "applicability_summary"
CHECKS_TABLE = "applicability_checks"
STYLE_NAME = "swm-gis applicability"

#: Chapter 320 sections behind each flag (written to the checks table of every output).
SECTIONS = {
    "can_reach_trigger": "Ch. 320 applicability / General Bylaws 213 Art. II: land disturbance "
                         ">= 1 acre (43,560 sq ft) needs a stormwater management permit",
    "huc12": "§ 320-19 B(7)(d): off-site mitigation for new development within the same HUC12",
    "huc10": "§ 320-19 B(8)(d): off-site mitigation for redevelopment within the same HUC10",
    "nhesp_within_500ft": "§ 320-20 A(3)(c) and B(12): NHESP habitats and certified vernal pools "
                          "within 500 ft of construction shown and protected",
    "in_sfha": "§ 320-19 A(8) and § 320-20 A(3)(a): 100-year floodplain delineated, with BFE",
    "drains_to_orw": "Ch. 320 definitions (ORW) and § 320-19 B: discharges to Outstanding "
                     "Resource Waters meet the stricter state standards",
    "drains_to_impaired": "§ 320-19 B(10): discharges to TMDL (4a), 4b or 5 waters: BMPs "
                          "consistent with the TMDL, optimised for the impairment",
}

#: Constraint flags in the order they are named in ``screening_class``.
CONSTRAINTS = (
    ("nhesp_within_500ft", "habitat"),
    ("in_sfha", "floodplain"),
    ("drains_to_orw", "ORW"),
    ("drains_to_impaired", "impaired-water"),
)

OUTPUT_COLUMNS = [
    "parcel_id", "map_par_id", "area_sqft", "area_acres", "can_reach_trigger", "huc12",
    "huc12_name", "huc10", "nhesp_within_500ft", "nhesp_distance_ft", "nhesp_nearest",
    "in_sfha", "sfha_fraction", "sfha_area_sqft", "drains_to_orw", "drains_to_impaired",
    "impairment_causes", "screening_class",
]


# =========================================================================== screening class
def class_name(large: bool, constraints: list[str]) -> str:
    """The human-readable class for a parcel size and its constraint names.

    >>> class_name(True, ["habitat", "floodplain"])
    'large parcel; habitat and floodplain constraints'
    >>> class_name(False, [])
    'small parcel; no mapped constraints'
    >>> class_name(True, ["habitat", "floodplain", "ORW"])
    'large parcel; habitat, floodplain and ORW constraints'
    """
    size = "large parcel" if large else "small parcel"
    if not constraints:
        return f"{size}; no mapped constraints"
    if len(constraints) == 1:
        return f"{size}; {constraints[0]} constraint"
    return f"{size}; {', '.join(constraints[:-1])} and {constraints[-1]} constraints"


def all_classes() -> list[str]:
    """Every class :func:`screening_class` can give, most constrained large parcels first.

    Index ``code`` of the list is the class of bit code ``code`` (see :func:`screening_class`)
    read in reverse, so the legend lists large, heavily constrained parcels first.
    """
    return [_CLASS_BY_CODE[c] for c in _legend_codes()]


def _class_of_code(code: int) -> str:
    large = bool(code & 1)
    names = [name for i, (_, name) in enumerate(CONSTRAINTS) if code & (2 << i)]
    return class_name(large, names)


_N_CODES = 2 << len(CONSTRAINTS)
_CLASS_BY_CODE = np.array([_class_of_code(c) for c in range(_N_CODES)], dtype=object)


def _legend_codes() -> list[int]:
    def key(code: int) -> tuple[int, int, int]:
        n = bin(code >> 1).count("1")
        return (-(code & 1), -n, code)

    return sorted(range(_N_CODES), key=key)


def screening_class(flags: pd.DataFrame) -> pd.Series:
    """``screening_class`` for each row of a frame of flags (vectorised: a lookup by bit code).

    Uses ``can_reach_trigger`` and the constraint flags of :data:`CONSTRAINTS`; a missing flag or
    a null (check not run) counts as no constraint.
    """
    code = np.asarray(_as_bool(flags["can_reach_trigger"]), dtype=np.int64)
    for i, (col, _) in enumerate(CONSTRAINTS):
        if col in flags:
            code |= np.asarray(_as_bool(flags[col]), dtype=np.int64) << (i + 1)
    return pd.Series(_CLASS_BY_CODE[code], index=flags.index, name="screening_class",
                     dtype=object)


def _as_bool(s: pd.Series) -> np.ndarray:
    return s.astype("boolean").fillna(False).to_numpy(dtype=bool)


# =========================================================================== overlays
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


class _Zones:
    """Polygons with a value each (watersheds) for largest-overlap assignment.

    Keeps the polygons whole and cuts only their boundaries into short lines: a parcel's
    representative point finds its polygon (prepared polygons against a tree of points), and only
    parcels that meet a boundary have their shares measured.
    """

    def __init__(self, polys: np.ndarray, values: np.ndarray) -> None:
        self.polys = polys
        self.values = values
        self.edges, self.edge_owner = boundary_chunks(polys)
        # cut by vertex count only: boundary parcels meet small pieces, the interior stays whole
        self.pieces, self.piece_owner = subdivide(polys, np.arange(len(polys)),
                                                  max_extent_m=math.inf)
        self._trees: dict[str, shapely.STRtree] = {}

    def tree(self, which: str) -> shapely.STRtree:
        if which not in self._trees:
            geoms = {"polys": self.polys, "edges": self.edges, "pieces": self.pieces}[which]
            self._trees[which] = shapely.STRtree(geoms)
        return self._trees[which]

    def __len__(self) -> int:
        return len(self.polys)

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_trees": {}}


def boundary_chunks(polys: np.ndarray, *, max_vertices: int = 32
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Polygon boundaries cut into lines of at most ``max_vertices`` vertices, with their owner."""
    if len(polys) == 0:
        return np.array([], dtype=object), np.array([], dtype=np.int64)
    rings, owner = shapely.get_parts(shapely.boundary(polys), return_index=True)
    coords, ring_of = shapely.get_coordinates(rings, return_index=True)
    starts = np.r_[0, np.flatnonzero(np.diff(ring_of)) + 1]
    lines, owners = [], []
    step = max_vertices - 1
    for ring, start in enumerate(starts):  # one entry per ring (few): not the parcel hot path
        end = starts[ring + 1] if ring + 1 < len(starts) else len(coords)
        for a in range(start, end - 1, step):
            lines.append(coords[a:min(a + max_vertices, end)])
            owners.append(owner[ring])
    return (np.array([shapely.linestrings(c) for c in lines], dtype=object),
            np.asarray(owners, dtype=np.int64))


class _Pieces:
    """Reference geometry cut into small pieces, with a value per piece and an STRtree.

    The tree is built lazily and not pickled, so an :class:`Overlays` travels cheaply to Dask
    workers and each worker builds its trees once.
    """

    def __init__(self, geoms: np.ndarray, values: np.ndarray) -> None:
        self.geoms = geoms
        self.values = values
        self._tree: shapely.STRtree | None = None

    @property
    def tree(self) -> shapely.STRtree:
        if self._tree is None:
            self._tree = shapely.STRtree(self.geoms)
        return self._tree

    def __len__(self) -> int:
        return len(self.geoms)

    def __getstate__(self) -> dict[str, Any]:
        return {"geoms": self.geoms, "values": self.values, "_tree": None}


@dataclass
class Overlays:
    """The reference layers, prepared once per job (see :meth:`build`).

    A layer that was not configured is ``None`` and the flags that need it stay empty (null);
    ``checks`` records which checks ran and on which data.
    """

    rules: Rules = field(default_factory=Rules)
    habitats: _Pieces | None = None
    sfha: _Pieces | None = None
    huc12: _Zones | None = None
    huc12_names: dict[str, str] = field(default_factory=dict)
    huc10: _Zones | None = None
    drainage: DrainageGrid | None = None
    checks: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def build(
        cls,
        *,
        rules: Rules | None = None,
        nhesp_priority: gpd.GeoDataFrame | None = None,
        nhesp_estimated: gpd.GeoDataFrame | None = None,
        vernal_pools: gpd.GeoDataFrame | None = None,
        flood_zones: gpd.GeoDataFrame | None = None,
        huc12: gpd.GeoDataFrame | None = None,
        huc10: gpd.GeoDataFrame | None = None,
        drainage: DrainageGrid | None = None,
        max_piece_vertices: int = MAX_PIECE_VERTICES,
    ) -> Overlays:
        """Prepare reference frames (logical field names, working CRS) for :func:`classify_parcels`.

        Habitat features are labelled ``priority:<id>``, ``estimated:<id>`` and
        ``vernal_pool:<id>``; SFHA polygons (rows where :func:`swm_gis.floodplain.sfha_mask` is
        true) are dissolved so overlapping zones are not counted twice; polygons are cut into
        small pieces by :func:`subdivide` (areas and distances are unchanged by the cut).
        """
        rules = rules or Rules()
        hab_geoms, hab_labels = [], []
        for kind, frame in (("priority", nhesp_priority), ("estimated", nhesp_estimated),
                            ("vernal_pool", vernal_pools)):
            if frame is not None and len(frame):
                ids = frame["id"].astype(object).where(frame["id"].notna(), "?").astype(str)
                hab_geoms.append(frame.geometry.values.to_numpy())
                hab_labels.append((kind + ":" + ids).to_numpy(dtype=object))
        habitats = None
        if any(f is not None for f in (nhesp_priority, nhesp_estimated, vernal_pools)):
            g = np.concatenate(hab_geoms) if hab_geoms else np.array([], dtype=object)
            v = np.concatenate(hab_labels) if hab_labels else np.array([], dtype=object)
            habitats = _Pieces(*subdivide(g, v, max_vertices=max_piece_vertices))
        sfha = None
        if flood_zones is not None:
            in_sfha = sfha_mask(flood_zones, rules=rules).to_numpy()
            geoms = flood_zones.geometry.values.to_numpy()[in_sfha]
            dissolved = (shapely.get_parts(shapely.union_all(geoms)) if len(geoms)
                         else np.array([], dtype=object))
            dissolved = dissolved[shapely.area(dissolved) > 0] if len(dissolved) else dissolved
            sfha = _Pieces(*subdivide(dissolved, np.zeros(len(dissolved), dtype=np.int64),
                                      max_vertices=max_piece_vertices))
        h12 = _huc_zones(huc12)
        h10 = _huc_zones(huc10)
        names = {}
        if huc12 is not None and "name" in huc12:
            names = dict(zip(huc12["huc"].astype(str), huc12["name"].astype(object), strict=True))
        return cls(rules=rules, habitats=habitats, sfha=sfha, huc12=h12, huc12_names=names,
                   huc10=h10, drainage=drainage)


def _huc_zones(frame: gpd.GeoDataFrame | None) -> _Zones | None:
    if frame is None:
        return None
    ok = frame["huc"].notna().to_numpy()
    codes = frame["huc"].astype(object)[ok].astype(str).str.strip().to_numpy(dtype=object)
    return _Zones(frame.geometry.values.to_numpy()[ok], codes)


def subdivide(geoms: np.ndarray, values: np.ndarray, *, max_vertices: int = MAX_PIECE_VERTICES,
              max_extent_m: float = MAX_PIECE_EXTENT_M) -> tuple[np.ndarray, np.ndarray]:
    """Cut polygons and lines in halves, recursively, until each piece is small (points pass).

    A piece is small when it has at most ``max_vertices`` vertices and spans at most
    ``max_extent_m`` (the quadtree cut of PostGIS ``ST_Subdivide``). Each piece keeps its source's
    value. Distances to, and intersection areas with, the union of a source's pieces equal those
    of the source, so exact results are unchanged; only the work per predicate shrinks. Each round
    is vectorised (every large piece cut at once), and a round costs about one pass over the
    vertices, so a source of n vertices is cut in O(n log n).
    """
    geoms = np.asarray(geoms, dtype=object)
    values = np.asarray(values)
    max_vertices = max(int(max_vertices), 8)  # a cut polygon keeps at least 5 vertices
    done_g, done_v = [], []
    for _ in range(64):  # each round halves the pieces; 64 rounds is far more than enough
        if not len(geoms):
            break
        b = shapely.bounds(geoms)
        w, h = b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]
        dim = shapely.get_dimensions(geoms)
        big = (dim > 0) & ((shapely.get_num_coordinates(geoms) > max_vertices)
                           | (np.maximum(w, h) > max_extent_m))
        done_g.append(geoms[~big])
        done_v.append(values[~big])
        if not big.any():
            break
        g, v, b, w, h, dim = geoms[big], values[big], b[big], w[big], h[big], dim[big]
        wide = w >= h
        mid_x, mid_y = (b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2
        lo = shapely.box(b[:, 0], b[:, 1], np.where(wide, mid_x, b[:, 2]),
                         np.where(wide, b[:, 3], mid_y))
        hi = shapely.box(np.where(wide, mid_x, b[:, 0]), np.where(wide, b[:, 1], mid_y),
                         b[:, 2], b[:, 3])
        halves = shapely.intersection(np.concatenate([g, g]), np.concatenate([lo, hi]))
        hv, hdim = np.concatenate([v, v]), np.concatenate([dim, dim])
        # keep halves with substance in the source's own dimension (drop cut-line slivers)
        keep = np.where(hdim == 2, shapely.area(halves) > 0, shapely.length(halves) > 0)
        geoms, values = halves[keep], hv[keep]
    else:
        done_g.append(geoms)
        done_v.append(values)
    return np.concatenate(done_g), np.concatenate(done_v)


# =========================================================================== core
def classify_parcels(parcels: gpd.GeoDataFrame, overlays: Overlays, *,
                     rep_points: np.ndarray | None = None) -> gpd.GeoDataFrame:
    """Flag every parcel (vectorised); returns a new frame with the input's index and CRS.

    ``parcels`` has logical fields (``id``, optionally ``map_par_id``) in a projected CRS in
    metres (the working CRS). Thresholds are inclusive and measured exactly: the NHESP distance is
    the exact distance between the parcel and the nearest feature (no buffer stands in for it).
    Flags whose reference layer is absent are null.
    """
    rules = overlays.rules
    geoms = parcels.geometry.values.to_numpy()
    n = len(geoms)
    unit_m = metres_per_unit(parcels.crs)
    area_sqm = shapely.area(geoms) * unit_m**2
    out = pd.DataFrame(index=parcels.index)
    out["parcel_id"] = parcels["id"].astype(object).to_numpy() if "id" in parcels else None
    out["map_par_id"] = (parcels["map_par_id"].astype(object).to_numpy()
                         if "map_par_id" in parcels else None)
    out["area_sqft"] = area_sqm * SQFT_PER_SQM
    out["area_acres"] = out["area_sqft"] / SQFT_PER_ACRE
    out["can_reach_trigger"] = pd.array(out["area_sqft"].to_numpy() >= rules.trigger_sqft,
                                        dtype="boolean")
    if rep_points is None or len(rep_points) != n:
        rep_points = shapely.point_on_surface(geoms)
    huc12 = _largest_overlap(geoms, overlays.huc12, rep_points)
    out["huc12"] = huc12
    out["huc12_name"] = pd.Series(huc12, index=out.index, dtype=object).map(
        lambda c: overlays.huc12_names.get(c) if c is not None else None
    ) if overlays.huc12_names else None
    if overlays.huc10 is not None:
        out["huc10"] = _largest_overlap(geoms, overlays.huc10, rep_points)
    elif overlays.huc12 is not None:  # WBD codes nest: a HUC10 is the first 10 digits of a HUC12
        out["huc10"] = [c[:10] if c is not None else None for c in huc12]
    else:
        out["huc10"] = None
    dist_ft, nearest = _nearest_habitat_ft(geoms, overlays.habitats, unit_m=unit_m)
    out["nhesp_within_500ft"] = _nullable(
        dist_ft <= rules.habitat_distance_ft + INCLUSIVE_TOL_FT
        if overlays.habitats is not None else None, n)
    out["nhesp_distance_ft"] = dist_ft
    out["nhesp_nearest"] = nearest
    sfha_sqm = _overlap_area(geoms, overlays.sfha) * unit_m**2
    if overlays.sfha is not None:
        out["in_sfha"] = pd.array(sfha_sqm > 0, dtype="boolean")
        with np.errstate(invalid="ignore", divide="ignore"):
            out["sfha_fraction"] = np.where(area_sqm > 0, np.minimum(sfha_sqm / area_sqm, 1.0),
                                            0.0)
        out["sfha_area_sqft"] = sfha_sqm * SQFT_PER_SQM
    else:
        out["in_sfha"] = pd.array([pd.NA] * n, dtype="boolean")
        out["sfha_fraction"] = np.nan
        out["sfha_area_sqft"] = np.nan
    orw, impaired, causes = drainage_flags(geoms, overlays.drainage)
    out["drains_to_orw"] = orw
    out["drains_to_impaired"] = impaired
    out["impairment_causes"] = causes
    out["screening_class"] = screening_class(out)
    return gpd.GeoDataFrame(out[OUTPUT_COLUMNS], geometry=parcels.geometry.values,
                            crs=parcels.crs)


def metres_per_unit(crs: Any) -> float:
    """Metres per unit of a projected CRS (1 for EPSG:26986, 0.3048006 for US survey feet)."""
    return 1.0 if crs is None else config_metres_per_unit(crs)


def _nullable(values: np.ndarray | None, n: int) -> pd.arrays.BooleanArray:
    if values is None:
        return pd.array([pd.NA] * n, dtype="boolean")
    return pd.array(np.asarray(values, dtype=bool), dtype="boolean")


def _largest_overlap(geoms: np.ndarray, zones: _Zones | None, rep_points: np.ndarray
                     ) -> np.ndarray:
    """Value of the polygon with the largest overlap area (ties: smallest value).

    A parcel that meets no polygon boundary lies wholly in the polygon holding its representative
    point (found with prepared polygons against a tree of points); only parcels that meet a
    boundary have their shares measured by exact intersection areas.
    """
    out = np.full(len(geoms), None, dtype=object)
    if zones is None or len(zones) == 0 or len(geoms) == 0:
        return out
    zi, pi = shapely.STRtree(rep_points).query(zones.polys, predicate="contains")
    out[pi] = zones.values[zi]
    cross = np.unique(zones.tree("edges").query(geoms, predicate="intersects")[0])
    if len(cross):
        ci, ti = zones.tree("pieces").query(geoms[cross], predicate="intersects")
        inter = shapely.area(shapely.intersection(geoms[cross][ci], zones.pieces[ti]))
        owner = zones.piece_owner[ti]
        shares = (pd.DataFrame({"p": cross[ci], "v": zones.values[owner].astype(str), "a": inter})
                  .groupby(["p", "v"], as_index=False)["a"].sum())
        shares = shares[shares["a"] > 0].sort_values(["p", "a", "v"],
                                                     ascending=[True, False, True])
        best = shares.drop_duplicates("p")
        out[cross] = None
        out[best["p"].to_numpy()] = best["v"].to_numpy(dtype=object)
    return out


def _overlap_area(geoms: np.ndarray, pieces: _Pieces | None) -> np.ndarray:
    """Area (m²) of each parcel inside the (dissolved, disjoint) reference polygons.

    A parcel properly inside one piece (found with the pieces prepared, against a tree of the
    parcels) counts whole; only parcels that cross a piece's edge are intersected.
    """
    area = np.zeros(len(geoms))
    if pieces is None or len(pieces) == 0 or len(geoms) == 0:
        return area
    inside = np.zeros(len(geoms), dtype=bool)
    inside[shapely.STRtree(geoms).query(pieces.geoms, predicate="contains_properly")[1]] = True
    area[inside] = shapely.area(geoms[inside])
    pi, ti = pieces.tree.query(geoms, predicate="intersects")
    cut = ~inside[pi]
    if cut.any():
        inter = shapely.area(shapely.intersection(geoms[pi[cut]], pieces.geoms[ti[cut]]))
        area += np.bincount(pi[cut], weights=inter, minlength=len(geoms))
    return area


def _nearest_habitat_ft(geoms: np.ndarray, pieces: _Pieces | None, *, unit_m: float = 1.0
                        ) -> tuple[np.ndarray, np.ndarray]:
    """Exact distance (ft) to the nearest habitat feature within the search radius, and its label.

    One STRtree ``dwithin`` query gives every (parcel, feature piece) pair within
    :data:`NHESP_SEARCH_FT`; exact distances of the pairs are reduced to the minimum per parcel.
    Beyond the radius the distance is NaN (null).
    """
    dist = np.full(len(geoms), np.nan)
    label = np.full(len(geoms), None, dtype=object)
    if pieces is None or len(pieces) == 0 or len(geoms) == 0:
        return dist, label
    radius = NHESP_SEARCH_FT / FT_PER_M / unit_m
    # candidates by envelope (grown by the radius): one cheap tree pass; the exact distance of
    # each candidate then decides, so a GEOS distance is computed once per pair, not twice
    b = shapely.bounds(geoms)
    grown = shapely.box(b[:, 0] - radius, b[:, 1] - radius, b[:, 2] + radius, b[:, 3] + radius)
    pi, ti = pieces.tree.query(grown)
    if len(pi):
        d = shapely.distance(geoms[pi], pieces.geoms[ti])
        near = d <= radius
        pi, ti, d = pi[near], ti[near], d[near]
    if len(pi):
        order = np.lexsort((ti, d, pi))  # per parcel: nearest first, ties by feature order
        first = order[np.r_[True, pi[order][1:] != pi[order][:-1]]]
        dist[pi[first]] = d[first] * unit_m * FT_PER_M
        label[pi[first]] = pieces.values[ti[first]]
    return dist, label


def drainage_flags(geoms: np.ndarray, grid: DrainageGrid | None
                   ) -> tuple[pd.arrays.BooleanArray, pd.arrays.BooleanArray, np.ndarray]:
    """ORW / impaired flags and impairment causes per parcel from the per-cell drainage grid.

    A parcel drains to what any of its cells (cell centres inside the parcel, plus the cell under
    its representative point so a parcel smaller than a cell still has one) drains to.
    Vectorised: the parcels are rasterised once per call and the flags reduced by parcel. A
    parcel outside the DEM gets nulls (unknown), not False.
    """
    n = len(geoms)
    if grid is None or n == 0:
        return (pd.array([pd.NA] * n, dtype="boolean"), pd.array([pd.NA] * n, dtype="boolean"),
                np.full(n, None, dtype=object))
    pid, cell = _parcel_cells(geoms, grid.transform, grid.labels.shape)
    covered = np.bincount(pid, minlength=n) > 0
    node = grid.labels.ravel()[cell].astype(np.int64)
    keep = node >= 0
    pid, node = pid[keep], node[keep]
    n_nodes = grid.node_flags.shape[0]
    pairs = np.unique(pid * max(n_nodes, 1) + node)  # each (parcel, node) once
    pid, node = pairs // max(n_nodes, 1), pairs % max(n_nodes, 1)
    flags = np.zeros((n, grid.node_flags.shape[1]), dtype=bool)
    np.logical_or.at(flags, pid, grid.node_flags[node])
    orw = pd.array(flags[:, 0], dtype="boolean")
    imp = pd.array(flags[:, 1], dtype="boolean")
    orw[~covered] = pd.NA
    imp[~covered] = pd.NA
    if not grid.orw_ran:
        orw[:] = pd.NA
    if not grid.impaired_ran:
        imp[:] = pd.NA
    causes = _decode_causes(flags[:, 2:], grid.cause_names)
    causes[~covered] = None
    if not grid.impaired_ran:
        causes[:] = None
    return orw, imp, causes


def _parcel_cells(geoms: np.ndarray, transform: Any, shape: tuple[int, int]
                  ) -> tuple[np.ndarray, np.ndarray]:
    """(parcel position, linear cell index) pairs: cell centres in the parcel + its rep. point."""
    from rasterio import features, windows

    rows_all, cols_all = shape
    minx, miny, maxx, maxy = shapely.total_bounds(geoms)
    win = windows.from_bounds(minx, miny, maxx, maxy, transform=transform)
    r0, c0 = max(math.floor(win.row_off) - 1, 0), max(math.floor(win.col_off) - 1, 0)
    r1 = min(math.ceil(win.row_off + win.height) + 1, rows_all)
    c1 = min(math.ceil(win.col_off + win.width) + 1, cols_all)
    pid_parts, cell_parts = [], []
    if r1 > r0 and c1 > c0:
        tr = transform * transform.translation(c0, r0)
        burned = features.rasterize(zip(geoms, np.arange(1, len(geoms) + 1), strict=True),
                                    out_shape=(r1 - r0, c1 - c0), transform=tr, fill=0,
                                    dtype="int32")
        rr, cc = np.nonzero(burned)
        pid_parts.append(burned[rr, cc].astype(np.int64) - 1)
        cell_parts.append((rr + r0).astype(np.int64) * cols_all + (cc + c0))
    rp = shapely.point_on_surface(geoms)
    col, row = ~transform * (shapely.get_x(rp), shapely.get_y(rp))
    row, col = np.floor(row).astype(np.int64), np.floor(col).astype(np.int64)
    inside = (row >= 0) & (row < rows_all) & (col >= 0) & (col < cols_all)
    pid_parts.append(np.flatnonzero(inside))
    cell_parts.append(row[inside] * cols_all + col[inside])
    return np.concatenate(pid_parts), np.concatenate(cell_parts)


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
def summarise(result: pd.DataFrame, *, huc12_names: dict[str, str] | None = None
              ) -> pd.DataFrame:
    """Counts and acres per screening class, per HUC12 and for the whole town (``huc12 = "all"``).

    Partial summaries of tiles combine with :func:`combine_summaries`.
    """
    huc = result["huc12"].astype(object).where(result["huc12"].notna(), "none")
    df = pd.DataFrame({"huc12": huc.to_numpy(dtype=object),
                       "screening_class": result["screening_class"].to_numpy(dtype=object),
                       "area_acres": result["area_acres"].to_numpy()})
    part = (df.groupby(["huc12", "screening_class"], as_index=False)
            .agg(parcels=("area_acres", "size"), area_acres=("area_acres", "sum")))
    return part


def combine_summaries(parts: list[pd.DataFrame], *, huc12_names: dict[str, str] | None = None
                      ) -> pd.DataFrame:
    """Add up tile summaries and append the town-wide rows; classes in legend order."""
    cols = ["huc12", "screening_class", "parcels", "area_acres"]
    if parts:
        df = pd.concat(parts, ignore_index=True)
        df = df.groupby(["huc12", "screening_class"], as_index=False)[["parcels",
                                                                        "area_acres"]].sum()
    else:
        df = pd.DataFrame(columns=cols)
    town = df.groupby("screening_class", as_index=False)[["parcels", "area_acres"]].sum()
    town.insert(0, "huc12", "all")
    out = pd.concat([df, town], ignore_index=True)
    order = {c: i for i, c in enumerate(all_classes())}
    out["_o"] = out["screening_class"].map(order)
    out["_h"] = out["huc12"].eq("all")
    out = out.sort_values(["_h", "huc12", "_o"]).drop(columns=["_o", "_h"])
    names = huc12_names or {}
    out.insert(1, "huc12_name", out["huc12"].map(lambda h: names.get(h)).astype(object))
    out["parcels"] = out["parcels"].astype("int64")
    out["area_acres"] = out["area_acres"].astype(float).round(3)
    return out.reset_index(drop=True)


# =========================================================================== tiles
@dataclass(frozen=True)
class Tile:
    """One chunk of the job: parcels whose representative point falls in [x0, x1) x [y0, y1).

    Parcel ids on more than one polygon (``skip_ids``) are left out of the spatial tiles and
    classified together in a last tile (``ids``) as one parcel each (the union of its polygons),
    since their polygons may lie in different tiles.
    """

    index: int
    bounds: BBox
    skip_ids: frozenset[str] = frozenset()
    ids: tuple[str, ...] | None = None


def parcel_extent(config: TownConfig) -> tuple[BBox | None, int]:
    """Extent of the parcels layer in the working CRS and its feature count (-1 if unknown)."""
    spec = config.layer("parcels")
    info = io.layer_info(spec)
    bounds = info.get("total_bounds")
    count = int(info.get("features") if info.get("features") is not None else -1)
    if bounds is None or any(b is None or not math.isfinite(b) for b in bounds):
        return None, count
    src = io.layer_crs(spec, info)
    working = config.crs_obj
    if not src.equals(working):
        t = Transformer.from_crs(src, working, always_xy=True)
        bounds = t.transform_bounds(*bounds, densify_pts=21)
    return tuple(float(b) for b in bounds), count  # type: ignore[return-value]


def make_tiles(extent: BBox | None, count: int, *, chunk_size: int = DEFAULT_CHUNK_SIZE
               ) -> list[Tile]:
    """A grid of tiles over the parcel extent with about ``chunk_size`` parcels each.

    Without an extent (a source that cannot tell it cheaply) the whole town is one tile.
    """
    if extent is None or count < 0 or count <= chunk_size:
        return [Tile(0, _grow(extent) if extent else (-math.inf, -math.inf, math.inf, math.inf))]
    x0, y0, x1, y1 = _grow(extent)
    n = math.ceil(count / chunk_size)
    w, h = x1 - x0, y1 - y0
    nx = max(1, round(math.sqrt(n * w / h))) if h > 0 else n
    ny = max(1, math.ceil(n / nx))
    xs = np.linspace(x0, x1, nx + 1)
    ys = np.linspace(y0, y1, ny + 1)
    tiles = []
    for j in range(ny):  # rows, then columns: neighbouring tiles are written together
        for i in range(nx):
            tiles.append(Tile(len(tiles), (float(xs[i]), float(ys[j]), float(xs[i + 1]),
                                           float(ys[j + 1]))))
    return tiles


def _grow(extent: BBox, margin: float = 1.0) -> BBox:
    x0, y0, x1, y1 = extent
    return (x0 - margin, y0 - margin, x1 + margin, y1 + margin)


def read_tile_parcels(config: TownConfig, tile: Tile) -> gpd.GeoDataFrame:
    """Parcels of one tile: read with a bbox, kept where the representative point is in the tile.

    The tile of duplicate ids reads those ids by attribute and merges each into one parcel.
    """
    return _read_tile(config, tile)[0]


def _read_tile(config: TownConfig, tile: Tile) -> tuple[gpd.GeoDataFrame, np.ndarray | None]:
    """:func:`read_tile_parcels` and the representative points it computed (or None)."""
    if tile.ids is not None:
        return _read_ids(config, tile.ids), None
    finite = all(math.isfinite(b) for b in tile.bounds)
    parcels = io.read_layer(config, "parcels", bbox=tile.bounds if finite else None,
                            use_arrow=True)
    if tile.skip_ids and len(parcels):
        parcels = parcels.loc[~parcels["id"].astype(str).isin(tile.skip_ids).to_numpy()]
    if parcels.empty or not finite:
        return parcels, None
    rp = shapely.point_on_surface(parcels.geometry.values.to_numpy())
    x, y = shapely.get_x(rp), shapely.get_y(rp)
    x0, y0, x1, y1 = tile.bounds
    mine = (x >= x0) & (x < x1) & (y >= y0) & (y < y1)
    return parcels.loc[mine], rp[mine]


def duplicate_ids(config: TownConfig) -> list[str]:
    """Parcel ids that label more than one polygon (the id column alone, without geometry)."""
    ids = io.read_column(config, "parcels", "id")
    ids = ids[ids.notna()].astype(str)
    return sorted(ids[ids.duplicated(keep=False)].unique())


def _read_ids(config: TownConfig, ids: tuple[str, ...]) -> gpd.GeoDataFrame:
    return io.merge_duplicate_ids(io.read_by_ids(config, "parcels", "id", list(ids),
                                                     as_text=False))


def classify_tile(config: TownConfig, tile: Tile, overlays: Overlays) -> gpd.GeoDataFrame:
    """Read and classify one tile (what the local loop and each Dask task run)."""
    parcels, rep_points = _read_tile(config, tile)
    result = classify_parcels(parcels, overlays, rep_points=rep_points)
    return result.reset_index(drop=True)


# =========================================================================== reading overlays
def load_overlays(config: TownConfig, extent: BBox | None, *,
                  progress: Progress | None = None) -> Overlays:
    """Read every configured reference layer once (around the parcels) and prepare it.

    Reference layers are read with the parcel extent as a spatial filter (grown by the NHESP
    search radius for habitat layers), so a statewide layer costs only the town's neighbourhood.
    """
    def bbox(margin_m: float = 0.0) -> BBox | None:
        return _grow(extent, margin_m) if extent else None

    def read(key: str, margin_m: float = 0.0) -> gpd.GeoDataFrame | None:
        if not config.has(key):
            return None
        return io.read_layer(config, key, bbox=bbox(margin_m))

    search_m = NHESP_SEARCH_FT / FT_PER_M + 1.0
    frames: dict[str, gpd.GeoDataFrame | None] = {}
    keys = [("nhesp_priority", search_m), ("nhesp_estimated", search_m),
            ("vernal_pools", search_m), ("flood_zones", 0.0), ("huc12", 0.0), ("huc10", 0.0)]
    for i, (key, margin) in enumerate(keys):
        if progress:
            progress(0.02 + 0.06 * i / len(keys), f"reading {key}")
        frames[key] = read(key, margin)
    drainage, drainage_checks = _load_drainage(config, extent, progress=progress)
    overlays = Overlays.build(rules=config.rules, drainage=drainage, **frames)
    overlays.checks = _checks(config, frames, drainage_checks)
    return overlays


def _load_drainage(config: TownConfig, extent: BBox | None, *, progress: Progress | None
                   ) -> tuple[DrainageGrid | None, dict[str, str | None]]:
    """Catchments computed once per town -> per-cell ORW / impaired flags (see catchments)."""
    from swm_gis import catchments

    return catchments.drainage_grid(config, extent, progress=progress)


def _checks(config: TownConfig, frames: dict[str, Any], drainage: dict[str, str | None]
            ) -> list[dict[str, Any]]:
    def src(keys: list[str]) -> list[dict[str, Any]]:
        return [io.source_info(config.layer(k)) for k in keys if config.has(k)]

    hab = [k for k in ("nhesp_priority", "nhesp_estimated", "vernal_pools") if config.has(k)]
    has12, has10 = config.has("huc12"), config.has("huc10")
    rows = [
        ("can_reach_trigger", True, src(["parcels"]), None),
        ("huc12", has12, src(["huc12"]), None if has12 else "no layers.huc12 in the town config"),
        ("huc10", has10 or has12, src(["huc10"] if has10 else ["huc12"]),
         None if has10 else ("first 10 digits of the HUC12 (WBD codes nest)" if has12 else
                             "no layers.huc10 or layers.huc12 in the town config")),
        ("nhesp_within_500ft", bool(hab), src(hab), None if hab else
         "no NHESP layers (nhesp_priority, nhesp_estimated, vernal_pools) in the town config"),
        ("in_sfha", config.has("flood_zones"), src(["flood_zones"]), None if
         config.has("flood_zones") else "no layers.flood_zones in the town config"),
        ("drains_to_orw", drainage.get("orw") is None, src(["dem", "streams", "orw"]),
         drainage.get("orw")),
        ("drains_to_impaired", drainage.get("impaired") is None,
         src(["dem", "streams", "impaired_waters"]), drainage.get("impaired")),
    ]
    return [{"name": name, "ran": ran, "section": SECTIONS[name], "sources": sources,
             "note": note} for name, ran, sources, note in rows]


# =========================================================================== the job
@dataclass
class RunResult:
    """What :func:`run_applicability` wrote, with the town-wide summary."""

    path: Path
    parcels: int
    tiles: int
    summary: pd.DataFrame
    checks: list[dict[str, Any]]
    engine: str = "local"


def run_applicability(
    config: TownConfig,
    out: str | Path,
    *,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    overwrite: bool = False,
    progress: Progress | None = None,
    tile_results: Callable[[list[Tile], Overlays], Iterator[gpd.GeoDataFrame]] | None = None,
    engine: str = "local",
    parameters: dict[str, Any] | None = None,
) -> RunResult:
    """Classify every parcel of the town and write the styled GeoPackage ``out``.

    The town is read and classified tile by tile (about ``chunk_size`` parcels each) and each
    tile is appended to the output as soon as it is done, so memory holds one tile at a time.
    ``tile_results`` lets another engine (Dask) produce the tiles' results, in tile order.
    """
    out = Path(out)
    check_outputs_free([out], overwrite=overwrite)
    report = progress or (lambda f, m: None)
    report(0.0, "planning tiles")
    extent, count = parcel_extent(config)
    tiles = make_tiles(extent, count, chunk_size=chunk_size)
    dups = duplicate_ids(config)
    if dups:
        skip = frozenset(dups)
        tiles = [Tile(t.index, t.bounds, skip_ids=skip) for t in tiles]
        tiles.append(Tile(len(tiles), tiles[0].bounds, ids=tuple(dups)))
    overlays = load_overlays(config, extent, progress=report)
    results = (tile_results(tiles, overlays) if tile_results
               else (classify_tile(config, t, overlays) for t in tiles))
    parts: list[pd.DataFrame] = []
    n_parcels = 0
    with atomic_path(out, suffix=".gpkg") as tmp, sqlite_sync_off():
        for i, res in enumerate(results):
            if len(res):
                _append(res, tmp, first=n_parcels == 0)
                parts.append(summarise(res))
                n_parcels += len(res)
            report(0.15 + 0.8 * (i + 1) / len(tiles),
                   f"tile {i + 1} of {len(tiles)}: {n_parcels:,} parcels classified")
        if n_parcels == 0:
            raise EmptyLayerError(
                f"{config.layer('parcels').describe()} ([layers.parcels]) has no parcels; "
                "nothing to classify."
            )
        summary = combine_summaries(parts, huc12_names=overlays.huc12_names)
        params = {"engine": engine, "chunk_size": chunk_size, "tiles": len(tiles),
                  "merged_duplicate_ids": dups,
                  "habitat_distance_ft": config.rules.habitat_distance_ft,
                  "trigger_sqft": config.rules.trigger_sqft,
                  "nhesp_search_ft": NHESP_SEARCH_FT, **(parameters or {})}
        _write_tables(tmp, summary, overlays.checks, config, params)
        write_style(tmp, layer=LAYER, classes=summary["screening_class"].unique().tolist())
    report(1.0, "done")
    return RunResult(path=out, parcels=n_parcels, tiles=len(tiles), summary=summary,
                     checks=overlays.checks, engine=engine)



def _append(result: gpd.GeoDataFrame, path: Path, *, first: bool) -> None:
    # Arrow writes in bulk: half the CPU of feature-by-feature writing
    pyogrio.write_dataframe(result, path, layer=LAYER, driver="GPKG", append=not first,
                            dataset_options={"VERSION": "1.2"} if first else None,
                            promote_to_multi=True, use_arrow=True)


def _write_tables(path: Path, summary: pd.DataFrame, checks: list[dict[str, Any]],
                  config: TownConfig, params: dict[str, Any]) -> None:
    pyogrio.write_dataframe(summary, path, layer=SUMMARY_TABLE, driver="GPKG", append=True)
    now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    rows = [{"check": c["name"], "ran": c["ran"], "chapter_320": c["section"],
             "sources": json.dumps(c["sources"]), "note": c["note"]} for c in checks]
    rows.append({"check": "run", "ran": True, "chapter_320": None,
                 "sources": json.dumps([io.source_info(config.layer("parcels"))]),
                 "note": json.dumps({"town": config.name, "synthetic": config.synthetic,
                                     "config": str(config.path) if config.path else None,
                                     "written_utc": now, "parameters": params})})
    frame = pd.DataFrame(rows)
    frame["ran"] = frame["ran"].astype(bool)
    pyogrio.write_dataframe(frame, path, layer=CHECKS_TABLE, driver="GPKG", append=True)


# =========================================================================== QGIS style
def write_style(gpkg: str | Path, *, layer: str, classes: list[str],
                geometry_column: str = "geom") -> None:
    """Store the categorised QGIS style in the GeoPackage's ``layer_styles`` table (as default).

    QGIS (3.22 and later) applies it when the layer is opened. The table has the columns QGIS
    itself creates (``saveStyleToDatabase``) and is registered in ``gpkg_contents`` so GDAL and
    QGIS list it as an attribute table. Call on the temporary file of an atomic write.
    """
    from swm_gis.styles import applicability_qml

    qml = applicability_qml(classes)
    now = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    con = sqlite3.connect(str(gpkg))
    try:
        with con:
            con.execute(
                'CREATE TABLE IF NOT EXISTS "layer_styles" ('
                '"id" INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, "f_table_catalog" TEXT(256), '
                '"f_table_schema" TEXT(256), "f_table_name" TEXT(256), '
                '"f_geometry_column" TEXT(256), "styleName" TEXT(30), "styleQML" TEXT, '
                '"styleSLD" TEXT, "useAsDefault" BOOLEAN, "description" TEXT, '
                '"owner" TEXT(30), "ui" TEXT(30), "update_time" DATETIME DEFAULT '
                "(strftime('%Y-%m-%dT%H:%M:%fZ','now')))"
            )
            con.execute(
                "INSERT OR IGNORE INTO gpkg_contents (table_name, data_type, identifier, "
                "last_change) VALUES ('layer_styles', 'attributes', 'layer_styles', ?)", (now,)
            )
            has_ogr = con.execute("SELECT 1 FROM sqlite_master WHERE name='gpkg_ogr_contents'"
                                  ).fetchone()
            con.execute('UPDATE "layer_styles" SET "useAsDefault" = 0 WHERE f_table_name = ?',
                        (layer,))
            con.execute(
                'INSERT INTO "layer_styles" (f_table_catalog, f_table_schema, f_table_name, '
                'f_geometry_column, styleName, styleQML, styleSLD, useAsDefault, description, '
                'owner, ui, update_time) VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?)',
                ("", "", layer, geometry_column, STYLE_NAME, qml, "",
                 "Categorised by screening_class (swm-gis applicability, Chapter 320)", "",
                 "", now),
            )
            if has_ogr:
                n = con.execute('SELECT count(*) FROM "layer_styles"').fetchone()[0]
                con.execute("INSERT OR REPLACE INTO gpkg_ogr_contents (table_name, feature_count)"
                            " VALUES ('layer_styles', ?)", (n,))
    finally:
        con.close()


def read_result(path: str | Path) -> gpd.GeoDataFrame:
    """Read an applicability GeoPackage's layer back (for tests and the plugin)."""
    return gpd.read_file(path, layer=LAYER)


__all__ = [
    "CONSTRAINTS", "DrainageGrid", "Overlays", "RunResult", "SECTIONS", "Tile", "all_classes",
    "class_name", "classify_parcels", "classify_tile", "combine_summaries", "drainage_flags",
    "load_overlays", "make_tiles", "parcel_extent", "read_tile_parcels", "run_applicability",
    "screening_class", "subdivide", "summarise", "write_style",
]

"""Reference layers of the applicability map, prepared once: :class:`Overlays`.

Watersheds (largest overlap), NHESP habitats and vernal pools (exact distance) and flood zones
(overlap area) are cut into small pieces (:func:`subdivide`) held in STRtrees, so that each
predicate against a huge habitat or floodplain polygon touches only a few dozen vertices. The
catchment flags come as a :class:`swm_gis.terrain.catchments.DrainageGrid`. Pure: no file is read
here.
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import geopandas as gpd
import numpy as np
import pandas as pd
import shapely

from swm_gis.applicability.pool_start import available_cores
from swm_gis.config.town import Rules
from swm_gis.rules.floodplain import sfha_mask
from swm_gis.rules.watersheds import huc_codes, huc_names
from swm_gis.terrain.catchments import DrainageGrid
from swm_gis.units import FT_PER_M

BBox = tuple[float, float, float, float]

SQFT_PER_SQM = FT_PER_M**2
#: Reference geometry is cut into pieces of at most this many vertices and this extent (m), so
#: that predicates, distances and intersections against huge habitat or floodplain polygons touch
#: only a few dozen vertices each.
MAX_PIECE_VERTICES = 64
MAX_PIECE_EXTENT_M = 500.0
#: Habitat features are cut to this extent (and MAX_PIECE_VERTICES): measured on the statewide
#: benchmark (82,030 pieces at 500 m, 12,798 at 2 km), the larger pieces cut in 0.2 s instead of
#: 1.4-3.8 s and the nearest-feature search (candidates pruned by their bounds) ran 7.0 s
#: instead of 11.1 s over the 120 tiles; distances do not depend on the cut.
HABITAT_PIECE_EXTENT_M = 2_000.0
#: NHESP distances are reported up to this far (twice Chapter 320's 500 ft), or up to the
#: configured ``[rules] habitat_distance_ft`` if that is farther (:func:`nhesp_search_ft`);
#: beyond it the distance is empty (null). Searching farther costs time for no screening value.
NHESP_SEARCH_FT = 1_000.0
#: The NHESP flag column: "within the configured habitat distance" (``[rules]
#: habitat_distance_ft``, recorded in the run's parameters and the checks table). Files may call
#: it ``nhesp_within_500ft`` (:data:`OLD_COLUMNS`), whatever the distance.
NHESP_FLAG = "nhesp_within_distance"
#: Column name a file may hold -> the name the readers give it.
OLD_COLUMNS = {"nhesp_within_500ft": NHESP_FLAG}


def nhesp_search_ft(rules: Rules) -> float:
    """How far (ft) the map looks for NHESP features: the rule distance, and at least
    :data:`NHESP_SEARCH_FT` so nearby distances are reported too.

    >>> nhesp_search_ft(Rules()), nhesp_search_ft(Rules(habitat_distance_ft=1_500))
    (1000.0, 1500.0)
    """
    return max(NHESP_SEARCH_FT, float(rules.habitat_distance_ft))
#: Thresholds are inclusive; this absorbs floating-point noise from the metre-to-foot conversion
#: (a parcel exactly 500 ft away computes as 500.00000000000006 ft).
INCLUSIVE_TOL_FT = 1e-6
#: Target number of parcels per spatial tile (chunk) of the job: small enough that the tiles
#: keep every worker busy to the end (and memory low), large enough that per-tile costs vanish.
DEFAULT_CHUNK_SIZE = 20_000

LAYER = "applicability"
SUMMARY_TABLE = "applicability_summary"
CHECKS_TABLE = "applicability_checks"
STYLE_NAME = "swm-gis applicability"

#: Checks named in ``not_checked`` (and in the class) when a parcel's flag is null: the flag that
#: decides it, and its short name. HUC is not a constraint but decides mitigation eligibility.
CHECKED = (
    (NHESP_FLAG, "NHESP"),
    ("in_sfha", "floodplain"),
    ("drains_to_orw", "ORW"),
    ("drains_to_impaired", "impaired waters"),
    ("huc12", "HUC"),
)

#: Classes of polygons that are not land anyone applies for (the abutters rule's predicate,
#: :func:`swm_gis.rules.abutters.no_owner_type`): whatever their flags.
RIGHT_OF_WAY_CLASS = "right-of-way"
WATER_CLASS = "water"
#: A parcel that shares no area with the town boundary (:func:`swm_gis.coverage_rule.in_town`):
#: the screening refuses it as a site, so the map says so instead of classing it, naming the
#: regulation applied (:func:`outside_class`).
OUTSIDE_PREFIX = "outside the town; not subject to its "


def outside_class(regulation: str | None = None) -> str:
    """The class of a parcel outside the town: :data:`OUTSIDE_PREFIX` and the regulation's
    chapter (else its title); default: the default profile's."""
    if regulation is None:
        from swm_gis.config.town_regulation import read_profile

        profile = read_profile(None)
        regulation = str(profile.chapter or profile.title)
    return OUTSIDE_PREFIX + regulation


#: The class of a parcel outside the town under the default profile.
OUTSIDE_CLASS = outside_class()

#: Constraint flags in the order they are named in ``screening_class``.
CONSTRAINTS = (
    (NHESP_FLAG, "habitat"),
    ("in_sfha", "floodplain"),
    ("drains_to_orw", "ORW"),
    ("drains_to_impaired", "impaired-water"),
)

OUTPUT_COLUMNS = [
    "parcel_id", "map_par_id", "area_sqft", "area_acres", "can_reach_trigger", "huc12",
    "huc12_name", "huc10", NHESP_FLAG, "nhesp_distance_ft", "nhesp_nearest",
    "in_sfha", "sfha_fraction", "sfha_area_sqft", "drains_to_orw", "drains_to_impaired",
    "drainage_leaves_data", "impairment_causes", "not_checked", "screening_class",
]


# =========================================================================== overlays
class Zones:
    """Polygons with a value each (watersheds) for largest-overlap assignment.

    Keeps the polygons whole and cuts only their boundaries into short lines: a point of a
    parcel (its first vertex) finds its polygon (:meth:`holding`), and only parcels that meet a
    boundary have their shares measured.
    """

    def __init__(self, polys: np.ndarray, values: np.ndarray) -> None:
        self.polys = polys
        self.values = values
        self.edges = boundary_chunks(polys)[0]
        # cut by vertex count only: boundary parcels meet small pieces, the interior stays whole
        self.pieces, self.piece_owner = subdivide(polys, np.arange(len(polys)),
                                                  max_extent_m=math.inf)
        self._trees: dict[str, shapely.STRtree] = {}

    def tree(self, which: str) -> shapely.STRtree:
        if which not in self._trees:
            geoms = {"polys": self.polys, "edges": self.edges, "pieces": self.pieces}[which]
            self._trees[which] = shapely.STRtree(geoms)
        return self._trees[which]

    def holding(self, xy: np.ndarray) -> np.ndarray:
        """Per point (rows of x, y): the index of the polygon whose interior holds it, or -1
        (none, or a missing point); where polygons overlap, the last one's.

        The polygons near the points (a tree query with their extent) are prepared and asked
        about the points in their envelope, without making a point geometry of each.
        """
        out = np.full(len(xy), -1, dtype=np.int64)
        x, y = xy[:, 0], xy[:, 1]
        ok = np.isfinite(x) & np.isfinite(y)
        if not ok.any() or not len(self.polys):
            return out
        near = np.sort(self.tree("polys").query(shapely.box(
            x[ok].min(), y[ok].min(), x[ok].max(), y[ok].max())))
        bounds = shapely.bounds(self.polys[near])
        for k, (x0, y0, x1, y1) in zip(near, bounds, strict=True):
            cand = np.flatnonzero((x >= x0) & (x <= x1) & (y >= y0) & (y <= y1))
            if len(cand):
                shapely.prepare(self.polys[k])
                out[cand[shapely.contains_xy(self.polys[k], x[cand], y[cand])]] = k
        return out

    def __len__(self) -> int:
        return len(self.polys)

    def __getstate__(self) -> dict[str, Any]:
        return packed({**self.__dict__, "_trees": {}}, ("polys", "edges", "pieces"))

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(unpacked(state))


@dataclass(frozen=True)
class PackedGeometries:
    """An array of geometries as pickled (:func:`packed`): each one's WKB length (-1: missing)
    and their WKB one after the other, two numpy arrays."""

    lengths: np.ndarray
    wkb: np.ndarray

    @classmethod
    def pack(cls, geoms: np.ndarray) -> PackedGeometries:
        wkb = shapely.to_wkb(geoms, include_srid=True)  # what a geometry's own pickle holds
        lengths = np.array([-1 if w is None else len(w) for w in wkb], dtype=np.int64)
        return cls(lengths, np.frombuffer(b"".join(w for w in wkb if w is not None),
                                          dtype=np.uint8))

    def unpack(self) -> np.ndarray:
        ends = np.cumsum(np.maximum(self.lengths, 0))
        buf = self.wkb
        wkb = np.array([None if n < 0 else buf[e - n:e].tobytes()
                        for n, e in zip(self.lengths.tolist(), ends.tolist(), strict=True)],
                       dtype=object)
        return shapely.from_wkb(wkb)


def packed(state: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    """``state`` with its arrays of geometries ``names`` as :class:`PackedGeometries`.

    A pickled array of geometries holds one WKB string per geometry, and loading it calls
    shapely's ``from_wkb`` once per geometry: 0.42 s for the statewide overlays (79,882
    geometries), in the job and again in each worker before its first tile. Packed, they
    load with one vectorised ``from_wkb`` (0.22 s), and their two arrays travel beside the
    pickle, mapped by every worker (:mod:`~swm_gis.applicability.shared_file`).
    """
    return {k: PackedGeometries.pack(v) if k in names and isinstance(v, np.ndarray) else v
            for k, v in state.items()}


def unpacked(state: dict[str, Any]) -> dict[str, Any]:
    """``state`` with each :class:`PackedGeometries` as its array of geometries again."""
    return {k: v.unpack() if isinstance(v, PackedGeometries) else v for k, v in state.items()}


def point_xy(points: np.ndarray) -> np.ndarray:
    """x, y of each point (NaN for a missing or empty one), one row per point."""
    return np.column_stack([shapely.get_x(points), shapely.get_y(points)])


def unknown_flags(n: int) -> pd.arrays.BooleanArray:
    """``n`` null flags (a nullable boolean array), made from two numpy arrays rather than a
    list of ``n`` missing values (a tenth of the time)."""
    return pd.arrays.BooleanArray(np.zeros(n, dtype=bool), np.ones(n, dtype=bool))


def first_vertices(geoms: np.ndarray) -> np.ndarray:
    """x, y of each geometry's first vertex (NaN for a missing or empty one), one row per
    geometry: a point of the geometry at the cost of reading its coordinates (a third of
    ``point_on_surface``'s)."""
    count = shapely.get_num_coordinates(geoms)
    xy = np.full((len(geoms), 2), np.nan)
    has = count > 0
    xy[has] = shapely.get_coordinates(geoms)[(np.cumsum(count) - count)[has]]
    return xy


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


class Pieces:
    """Reference geometry cut into small pieces, with a value per piece and an STRtree.

    The tree is built lazily and not pickled, so an :class:`Overlays` travels cheaply to Dask
    workers and each worker builds its trees once.
    """

    def __init__(self, geoms: np.ndarray, values: np.ndarray,
                 order: np.ndarray | None = None, edges: np.ndarray | None = None) -> None:
        self.geoms = geoms
        self.values = values
        #: each piece's source feature's place (ties go to the first feature); default: the
        #: pieces' own order
        self.order = np.arange(len(geoms)) if order is None else np.asarray(order)
        #: the sources' own boundaries (not the cuts) as short lines, where known: a parcel
        #: that meets none of them lies wholly inside the sources or wholly outside
        self.edges = edges
        self._tree: shapely.STRtree | None = None
        self._edge_tree: shapely.STRtree | None = None
        self._grown: dict[float, shapely.STRtree] = {}
        self._bounds: np.ndarray | None = None
        self._points: np.ndarray | None = None

    @property
    def bounds(self) -> np.ndarray:
        """Each piece's envelope (minx, miny, maxx, maxy), computed once."""
        if self._bounds is None:
            self._bounds = shapely.bounds(self.geoms)
        return self._bounds

    @property
    def points(self) -> np.ndarray:
        """x, y of a point on each piece (NaN for an empty one), computed once: with a parcel's
        own point, an upper bound of their distance."""
        if self._points is None:
            self._points = point_xy(shapely.point_on_surface(self.geoms))
        return self._points

    @property
    def tree(self) -> shapely.STRtree:
        if self._tree is None:
            self._tree = shapely.STRtree(self.geoms)
        return self._tree

    @property
    def edge_tree(self) -> shapely.STRtree | None:
        """A tree of :attr:`edges` (None without them)."""
        if self._edge_tree is None and self.edges is not None:
            self._edge_tree = shapely.STRtree(self.edges)
        return self._edge_tree

    def grown_tree(self, radius: float) -> shapely.STRtree:
        """A tree of the pieces' envelopes grown by ``radius``: queried with a geometry, it gives
        the pieces whose envelope lies within ``radius`` of the geometry's envelope (the pairs a
        query with the geometry's grown envelope gives, without building that envelope)."""
        if radius not in self._grown:
            self._grown[radius] = shapely.STRtree(grown_envelopes(self.geoms, radius))
        return self._grown[radius]

    def hold_points(self, ti: np.ndarray, xy: np.ndarray) -> np.ndarray:
        """Per pair: does the point (a row of ``xy``) lie in or on piece ``ti``? Asked of the
        prepared pieces only for the points inside their envelope (False for a missing point)."""
        b = self.bounds[ti]
        x, y = xy[:, 0], xy[:, 1]
        inside = (x >= b[:, 0]) & (x <= b[:, 2]) & (y >= b[:, 1]) & (y <= b[:, 3])
        ask = np.flatnonzero(inside)
        if len(ask):
            near = self.geoms[ti[ask]]
            shapely.prepare(near)
            inside[ask] = shapely.intersects_xy(near, x[ask], y[ask])
        return inside

    def __len__(self) -> int:
        return len(self.geoms)

    def __getstate__(self) -> dict[str, Any]:
        return packed({"geoms": self.geoms, "values": self.values, "order": self.order,
                       "edges": self.edges, "_tree": None, "_edge_tree": None, "_grown": {},
                       "_bounds": None, "_points": None}, ("geoms", "edges"))

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(unpacked(state))


def meeting(tree: shapely.STRtree, geoms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The (geometry, tree item) index pairs that intersect: the pairs, in the order, of
    ``tree.query(geoms, predicate="intersects")``.

    That query prepares each parcel for the one test it takes part in; here the tree's own
    items (pieces, edges: the same for every tile of a worker) are prepared, once each, and the
    envelope pairs are tested with them: GEOS's prepared test, the same answer, in about three
    quarters of the time on a statewide tile (benchmarks/README).
    """
    pi, ti = tree.query(geoms)
    if len(pi):
        items = tree.geometries
        shapely.prepare(items[np.unique(ti)])  # a geometry prepared before is left as it is
        keep = shapely.intersects(items[ti], geoms[pi])
        pi, ti = pi[keep], ti[keep]
    return pi, ti


def grown_envelopes(geoms: np.ndarray, radius: float) -> np.ndarray:
    """Each geometry's envelope grown by ``radius`` on every side (it holds the true buffer)."""
    b = shapely.bounds(geoms)
    return shapely.box(b[:, 0] - radius, b[:, 1] - radius, b[:, 2] + radius, b[:, 3] + radius)


@dataclass
class Overlays:
    """The reference layers, prepared once per job (see :meth:`Overlays.build`).

    A layer that was not configured is ``None`` and the flags that need it stay empty (null).

    Attributes
    ----------
    rules
        Rule values (habitat distance, permit trigger, ...).
    habitats
        NHESP priority and estimated habitats and vernal pools, labelled ``kind:<id>``.
    sfha
        The FEMA Special Flood Hazard Area, dissolved.
    huc12, huc10
        The WBD watersheds, for each parcel's largest-overlap HUC12 and HUC10.
    huc12_names
        HUC12 code to its name.
    drainage
        Receiving-water flags per DEM cell (ORW, impaired waters), if a DEM is configured.
    checks
        Which checks ran and on which data (the output's checks table).
    coverage
        Area each check's layers cover (``"nhesp"``, ``"sfha"``); beyond it a flag that found
        nothing is null, not false. A missing key or None covers every parcel.
    nhesp_complete
        All three NHESP layers configured: only then can "no NHESP feature within 500 ft" be
        said.
    town
        The union of the town boundary's polygons (:func:`swm_gis.io.coverage.town_area`): a
        parcel sharing no area with it is classed "outside the town"; None (no boundary) makes
        every parcel the town's.
    outside
        The class of a parcel outside the town (:func:`outside_class` of the regulation
        applied; default: the default profile's).
    """

    rules: Rules = field(default_factory=Rules)
    habitats: Pieces | None = None
    sfha: Pieces | None = None
    huc12: Zones | None = None
    huc12_names: dict[str, str] = field(default_factory=dict)
    huc10: Zones | None = None
    drainage: DrainageGrid | None = None
    checks: list[dict[str, Any]] = field(default_factory=list)
    #: Area each check's layers cover (working CRS): ``"nhesp"``, ``"sfha"``; a missing key or
    #: None covers every parcel. Beyond it a flag that found nothing is null, not false.
    coverage: dict[str, Any] = field(default_factory=dict)
    #: All three NHESP layers configured: only then can "no NHESP feature within 500 ft" be said.
    nhesp_complete: bool = False
    #: The town boundary's union (None: no boundary; every parcel is the town's).
    town: Any = None
    #: The class of a parcel outside the town, naming the regulation applied.
    outside: str = OUTSIDE_CLASS

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
        coverage: dict[str, Any] | None = None,
        town: shapely.Geometry | None = None,
        max_piece_vertices: int = MAX_PIECE_VERTICES,
    ) -> Overlays:
        """Prepare reference frames (logical field names, working CRS) for :func:`classify_parcels`.

        Habitat features are labelled ``priority:<id>``, ``estimated:<id>`` and
        ``vernal_pool:<id>``; SFHA polygons (rows where ``swm_gis.rules.floodplain.sfha_mask`` is
        true) are dissolved so overlapping zones are not counted twice; polygons are cut into
        small pieces by ``subdivide`` (areas and distances are unchanged by the cut).
        ``coverage`` maps ``"nhesp"`` / ``"sfha"`` to the area their layers cover (default:
        everywhere). "No NHESP feature within 500 ft" needs all three NHESP layers. ``town``
        is the town boundary's union (:func:`swm_gis.io.coverage.town_area`; None: no boundary,
        every parcel is the town's).
        """
        rules = rules or Rules()
        # the three preparations are independent and mostly GEOS work, which releases the GIL:
        # they run side by side on the machine's cores
        with ThreadPoolExecutor(max_workers=3) as pool:
            habitats = pool.submit(_habitat_pieces, nhesp_priority, nhesp_estimated,
                                   vernal_pools, max_piece_vertices)
            sfha = pool.submit(_sfha_pieces, flood_zones, rules, max_piece_vertices)
            hucs = pool.submit(lambda: (_huc_zones(huc12, 12), _huc_zones(huc10, 10)))
            h12, h10 = hucs.result()
            habitats, sfha = habitats.result(), sfha.result()
        names = huc_names(huc12, width=12) if huc12 is not None else {}
        complete = all(f is not None for f in (nhesp_priority, nhesp_estimated, vernal_pools))
        cov = {k: g for k, g in (coverage or {}).items() if g is not None}
        return cls(rules=rules, habitats=habitats, sfha=sfha, huc12=h12, huc12_names=names,
                   huc10=h10, drainage=drainage, coverage=cov, nhesp_complete=complete,
                   town=town)


def _habitat_pieces(nhesp_priority: gpd.GeoDataFrame | None,
                    nhesp_estimated: gpd.GeoDataFrame | None,
                    vernal_pools: gpd.GeoDataFrame | None, max_vertices: int) -> Pieces | None:
    """The three NHESP layers as labelled pieces (None when none is configured)."""
    hab_geoms, hab_labels, hab_kinds, hab_ids = [], [], [], []
    for k, (kind, frame) in enumerate((("priority", nhesp_priority),
                                       ("estimated", nhesp_estimated),
                                       ("vernal_pool", vernal_pools))):
        if frame is not None and len(frame):
            ids = frame["id"].astype(object).where(frame["id"].notna(), "?").astype(str)
            hab_geoms.append(frame.geometry.values.to_numpy())
            hab_labels.append((kind + ":" + ids).to_numpy(dtype=object))
            hab_kinds.append(np.full(len(frame), k))
            hab_ids.append(ids.to_numpy(dtype=object))
    if all(f is None for f in (nhesp_priority, nhesp_estimated, vernal_pools)):
        return None
    if not hab_geoms:
        return Pieces(np.array([], dtype=object), np.array([], dtype=object))
    g, v = np.concatenate(hab_geoms), np.concatenate(hab_labels)
    # a tie between features at one distance goes to the first in the layers' order, then by
    # feature id: never to whichever the source listed first (a database returns its rows in
    # its index's order) nor to whichever piece the cut put first
    rank = np.empty(len(g), dtype=np.int64)
    rank[np.lexsort((np.concatenate(hab_ids).astype(str), np.concatenate(hab_kinds)))] = \
        np.arange(len(g))
    pieces, feature = subdivide(g, np.arange(len(g)), max_vertices=max_vertices,
                                max_extent_m=HABITAT_PIECE_EXTENT_M)
    return Pieces(pieces, v[feature], order=rank[feature])


def _sfha_pieces(flood_zones: gpd.GeoDataFrame | None, rules: Rules, max_vertices: int
                 ) -> Pieces | None:
    """The SFHA zones dissolved (overlaps counted once) and cut into pieces."""
    if flood_zones is None:
        return None
    in_sfha = sfha_mask(flood_zones, rules=rules).to_numpy()
    geoms = flood_zones.geometry.values.to_numpy()[in_sfha]
    dissolved = (shapely.get_parts(shapely.union_all(geoms)) if len(geoms)
                 else np.array([], dtype=object))
    dissolved = dissolved[shapely.area(dissolved) > 0] if len(dissolved) else dissolved
    return Pieces(*subdivide(dissolved, np.zeros(len(dissolved), dtype=np.int64),
                              max_vertices=max_vertices),
                  edges=boundary_chunks(dissolved)[0])


def _huc_zones(frame: gpd.GeoDataFrame | None, width: int) -> Zones | None:
    """A HUC layer's polygons and codes, read as the screening reads them
    (:func:`swm_gis.rules.watersheds.huc_codes`: a code stored as a number gets its leading zero
    back); a polygon without a code is left out."""
    if frame is None:
        return None
    codes = np.array(huc_codes(frame["huc"], width=width), dtype=object)
    ok = np.array([c is not None for c in codes], dtype=bool)
    return Zones(frame.geometry.values.to_numpy()[ok], codes[ok])


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
    if len(geoms) == 0:  # a layer with nothing in the area read
        return geoms, values
    max_vertices = max(int(max_vertices), 8)  # a cut polygon keeps at least 5 vertices
    cores = available_cores()
    pool = ThreadPoolExecutor(max_workers=cores) if cores > 1 else None
    try:
        return _subdivide(geoms, values, max_vertices, max_extent_m, pool)
    finally:
        if pool is not None:
            pool.shutdown()


def _subdivide(geoms: np.ndarray, values: np.ndarray, max_vertices: int, max_extent_m: float,
               pool: ThreadPoolExecutor | None) -> tuple[np.ndarray, np.ndarray]:
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
        halves = _intersection(np.concatenate([g, g]), np.concatenate([lo, hi]), pool)
        hv, hdim = np.concatenate([v, v]), np.concatenate([dim, dim])
        # keep halves with substance in the source's own dimension (drop cut-line slivers)
        keep = np.where(hdim == 2, shapely.area(halves) > 0, shapely.length(halves) > 0)
        geoms, values = halves[keep], hv[keep]
    else:
        done_g.append(geoms)
        done_v.append(values)
    return np.concatenate(done_g), np.concatenate(done_v)


#: Below this many vertices a round of cuts runs in the calling thread (threads cost more).
_THREADED_VERTICES = 20_000


def _intersection(geoms: np.ndarray, boxes: np.ndarray,
                  pool: ThreadPoolExecutor | None) -> np.ndarray:
    """``shapely.intersection(geoms, boxes)``, on the ``pool``'s threads when there is enough
    work: GEOS releases the GIL, so each thread cuts a share of the vertices. The result is the
    same array, element for element."""
    work = np.cumsum(shapely.get_num_coordinates(geoms)) if pool is not None else None
    if work is None or len(geoms) < 2 or work[-1] < _THREADED_VERTICES:
        return shapely.intersection(geoms, boxes)
    n = available_cores()
    cuts = np.searchsorted(work, work[-1] * np.arange(1, n) / n)
    bounds = [0, *sorted({int(c) + 1 for c in cuts if c < len(geoms) - 1}), len(geoms)]
    spans = [slice(a, b) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
    parts = pool.map(lambda span: shapely.intersection(geoms[span], boxes[span]), spans)
    return np.concatenate(list(parts))


# =========================================================================== core


__all__ = ["CHECKED", "CONSTRAINTS", "DEFAULT_CHUNK_SIZE", "NHESP_FLAG", "OLD_COLUMNS",
           "OUTSIDE_CLASS", "OUTSIDE_PREFIX", "RIGHT_OF_WAY_CLASS", "WATER_CLASS", "Overlays",
           "first_vertices", "outside_class", "point_xy", "unknown_flags",
           "Pieces", "Zones", "grown_envelopes", "meeting", "nhesp_search_ft", "subdivide"]

"""The map's cheap answers give what measuring gives.

A parcel's first vertex stands for it where any point of it would do (the tile that keeps it,
the watershed holding a parcel that meets no boundary, the upper bound of its NHESP distance),
and a parcel that meets the flood zones but none of their own boundaries counts whole. Each is
checked against the plain version written out here, by hand and on random inputs.
"""

from __future__ import annotations

import math

import geopandas as gpd
import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import MultiPolygon, Point, Polygon, box
from support.townkit import CRS

from swm_gis.applicability import classify, overlays, tiles
from swm_gis.config.town import Rules


# --------------------------------------------------------------------------- first vertices
def test_first_vertices_by_hand():
    """A box's first vertex is shapely's first corner (maxx, miny); a multipolygon's is its
    first part's; a polygon with a hole starts on its shell; empty and missing: NaN."""
    holed = Polygon([(0, 0), (9, 0), (9, 9), (0, 9)], [[(3, 3), (4, 3), (4, 4)]])
    geoms = np.array([box(0, 0, 10, 5), MultiPolygon([box(20, 20, 21, 21), box(0, 0, 1, 1)]),
                      holed, Polygon(), None, Point(7, 8)], dtype=object)
    xy = overlays.first_vertices(geoms)
    assert xy[:3].tolist() == [[10.0, 0.0], [21.0, 20.0], [0.0, 0.0]]
    assert np.isnan(xy[3:5]).all()
    assert xy[5].tolist() == [7.0, 8.0]
    assert overlays.first_vertices(np.array([], dtype=object)).shape == (0, 2)


def test_a_parcel_is_kept_by_the_tile_holding_its_first_vertex(tmp_path):
    """L-shaped lots whose envelope's centre lies outside them, in a tile they do not meet (so
    that tile's bbox read does not return them): each lot is kept by the tile of its first
    vertex, and every lot by exactly one tile."""
    from support.townkit import write_town

    from swm_gis.config.town import load_config

    x0, y0 = 230_000.0, 900_000.0  # in the state plane's area
    ell = Polygon([(0, 0), (100, 0), (100, 10), (10, 10), (10, 100), (0, 100)])
    lots = [shapely.affinity.translate(ell, x0 + 150 * i, y0 + 150 * j) for i in range(4)
            for j in range(4)]
    ids = [f"L{i}{j}" for i in range(4) for j in range(4)]
    config = load_config(write_town(tmp_path, {"parcels": gpd.GeoDataFrame(
        {"LOC_ID": ids}, geometry=lots, crs=CRS)}))
    origins = np.arange(-130.0, 600, 150)  # tiles [-130, 20), [20, 170), ... from x0, y0
    grid = {(x, y): tiles.Tile(k, (x0 + x, y0 + y, x0 + x + 150.0, y0 + y + 150.0))
            for k, (x, y) in enumerate((x, y) for y in origins for x in origins)}
    first = lots[0]
    assert not first.intersects(box(*grid[(20.0, 20.0)].bounds))  # the envelope centre's tile
    assert box(*grid[(20.0, 20.0)].bounds).contains(shapely.centroid(shapely.envelope(first)))
    kept = {k: tiles.read_tile_parcels(config, t)["id"].tolist() for k, t in grid.items()}
    assert sorted(i for got in kept.values() for i in got) == sorted(ids)
    assert kept[(-130.0, -130.0)] == ["L00"] and kept[(20.0, 20.0)] == ["L11"]
    assert sum(1 for got in kept.values() if got) == 16


def test_a_parcel_touching_its_tile_only_at_its_first_vertex_is_kept_once(tmp_path,
                                                                           monkeypatch):
    """A lot west of a tile line whose first vertex lies on the line: kept by the east tile
    (x >= its west edge), whose read reaches READ_SLACK beyond the tile, and not by the west."""
    from support.townkit import write_town

    from swm_gis.config.town import load_config

    x0, y0 = 230_000.0, 900_000.0
    lot = Polygon([(x0, y0 + 50), (x0 - 100, y0 + 50), (x0 - 100, y0 + 20), (x0 - 10, y0 + 20)])
    other = box(x0 + 20, y0 + 20, x0 + 40, y0 + 40)
    config = load_config(write_town(tmp_path, {"parcels": gpd.GeoDataFrame(
        {"LOC_ID": ["EDGE", "EAST"]}, geometry=[lot, other], crs=CRS)}))
    asked = []
    real = tiles.io.read_layer_with_source
    monkeypatch.setattr(tiles.io, "read_layer_with_source",
                        lambda *a, **k: (asked.append(k["bbox"]), real(*a, **k))[1])
    west = tiles.Tile(0, (x0 - 150, y0, x0, y0 + 150))
    east = tiles.Tile(1, (x0, y0, x0 + 150, y0 + 150))
    assert tiles.read_tile_parcels(config, west)["id"].tolist() == []
    assert tiles.read_tile_parcels(config, east)["id"].tolist() == ["EDGE", "EAST"]
    slack = tiles.READ_SLACK
    assert asked[1] == (x0 - slack, y0 - slack, x0 + 150 + slack, y0 + 150 + slack)


# --------------------------------------------------------------------------- watersheds
def holding_by_points(zones: overlays.Zones, xy: np.ndarray) -> np.ndarray:
    """The plain lookup: every point against every polygon, ``contains`` (the last wins)."""
    out = np.full(len(xy), -1)
    for i, (x, y) in enumerate(xy):
        for k, poly in enumerate(zones.polys):
            if np.isfinite(x) and poly.contains(Point(x, y)):
                out[i] = k
    return out


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_zones_holding_is_contains_of_each_point(seed):
    """Random points (some on a boundary, some missing, some beyond every zone) in a notched
    zone, a zone with a hole and a zone overlapping another: the polygon that contains each."""
    rng = np.random.default_rng(seed)
    notched = Polygon([(0, 0), (50, 0), (50, 50), (30, 50), (30, 20), (20, 20), (20, 50),
                       (0, 50)])
    holed = Polygon([(50, 0), (100, 0), (100, 50), (50, 50)],
                    [[(60, 10), (90, 10), (90, 40), (60, 40)]])
    over = box(80, 30, 120, 60)
    zones = overlays.Zones(np.array([notched, holed, over], dtype=object),
                           np.array(["A", "B", "C"], dtype=object))
    xy = np.round(rng.uniform(-10, 130, (60, 2)), int(rng.integers(0, 2)))
    xy[:5] = [[50, 20], [20, 30], [60, 10], [np.nan, np.nan], [75, 25]]  # edges, hole, none
    assert zones.holding(xy).tolist() == holding_by_points(zones, xy).tolist()


def test_zones_holding_by_hand():
    """West (0-10) and east (10-20) halves: a point in each, one on the line between (neither
    contains it: the parcel then meets the line and is measured), one beyond both, one missing."""
    zones = overlays.Zones(np.array([box(0, 0, 10, 10), box(10, 0, 20, 10)], dtype=object),
                           np.array(["W", "E"], dtype=object))
    xy = np.array([[5, 5], [15, 5], [10, 5], [25, 5], [np.nan, np.nan]])
    assert zones.holding(xy).tolist() == [0, 1, -1, -1, -1]


def largest_share_by_text(parcel, value, area):
    """The plain rule: a group-by on (parcel, value), largest sum first, ties by value."""
    import pandas as pd

    shares = (pd.DataFrame({"p": parcel, "v": value, "a": area})
              .groupby(["p", "v"], as_index=False)["a"].sum())
    shares = shares[shares["a"] > 0].sort_values(["p", "a", "v"], ascending=[True, False, True])
    best = shares.drop_duplicates("p")
    return best["p"].to_numpy(), best["v"].to_numpy(dtype=object)


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.tuples(st.integers(0, 6), st.sampled_from(
    ["010700020101", "010700020102", "0107000202", "9"]), st.sampled_from(
    [0.0, 0.1, 0.2, 0.3, 1.0, 2.5, 1e-12, 1e9])), max_size=40))
def test_largest_share_is_the_text_groupby(rows):
    """By integer keys: the same parcels, values and ties (equal sums, sums of 0.1 + 0.2 against
    0.3, parcels whose shares are all 0) as the group-by on the text column."""
    parcel = np.array([r[0] for r in rows], dtype=np.int64)
    value = np.array([r[1] for r in rows], dtype=object).astype(str)
    area = np.array([r[2] for r in rows], dtype=float)
    got = classify._largest_share(parcel, value, area)
    want = largest_share_by_text(parcel, value, area)
    assert got[0].tolist() == want[0].tolist() and got[1].tolist() == want[1].tolist()


def test_largest_share_by_hand():
    """Parcel 0: A 3 + 1 = 4 against B 4 (a tie: A, the smaller); parcel 1: only zeros (left
    out); parcel 2: C 0.5 against B 0.25."""
    parcel = np.array([0, 0, 0, 1, 2, 2])
    value = np.array(["A", "B", "A", "B", "C", "B"])
    area = np.array([3.0, 4.0, 1.0, 0.0, 0.5, 0.25])
    got = classify._largest_share(parcel, value, area)
    assert got[0].tolist() == [0, 2] and got[1].tolist() == ["A", "C"]


# --------------------------------------------------------------------------- flood zone areas
def overlap_by_intersection(geoms: np.ndarray, sources: list) -> np.ndarray:
    """The plain area: each parcel intersected with the dissolved sources."""
    flood = shapely.union_all(sources)
    return np.array([0.0 if g is None else shapely.intersection(g, flood).area for g in geoms])


def flood_pieces(sources: list, max_vertices: int = 8) -> overlays.Pieces:
    zones = gpd.GeoDataFrame({"zone": ["AE"] * len(sources)}, geometry=sources, crs=CRS)
    return overlays._sfha_pieces(zones, Rules(), max_vertices)


FLOOD = [Point(0, 0).buffer(300, 8).difference(box(-40, -40, 40, 40)),  # a ring round a hole
         box(250, -20, 900, 20)]                                        # and a long arm


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), size=st.sampled_from([5.0, 40.0, 200.0]))
def test_overlap_area_is_the_intersection_with_the_flood_zones(seed, size):
    """Random lots (inside, across the cuts, across the zone line, in the hole, beyond) and
    two-part lots: the area within the flood zones is the intersection's (to rounding), and
    exactly zero where the intersection's is."""
    rng = np.random.default_rng(seed)
    xy = rng.uniform(-400, 950, (40, 2))
    lots = [box(x, y, x + size, y + size * rng.uniform(0.2, 1.5)) for x, y in xy]
    lots += [MultiPolygon([box(-10, -10, -5, -5), box(100, 0, 110, 10)]),  # hole + ring
             MultiPolygon([box(100, 0, 110, 10), box(120, 0, 130, 10)])]    # both in the ring
    lots = np.array(lots, dtype=object)
    pieces = flood_pieces(FLOOD)
    got = classify._overlap_area(lots, pieces)
    want = overlap_by_intersection(lots, FLOOD)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9)
    assert ((got > 0) == (want > 0)).all()


def test_overlap_area_by_hand():
    """Cut in pieces of at most 8 vertices, the zones' own boundary in short lines: a 10 x 10
    lot inside the ring across the cuts counts whole (100 m², no intersection made); one
    across the hole's edge 50 of its 100; one in the hole and one touching the arm from beyond
    nothing; a two-part lot with one part in the ring 25; a 40 x 40 lot across the arm's end
    (x = 900) 20 x 40."""
    pieces = flood_pieces(FLOOD)
    assert len(pieces) > 2 and pieces.edges is not None and len(pieces.edges) > 2
    across_cuts = box(-5, 150, 5, 160)
    assert len(pieces.tree.query(across_cuts, predicate="intersects")) > 1
    lots = np.array([across_cuts, box(35, -5, 45, 5), box(-10, -10, 10, 10),
                     box(850, 20, 860, 30), MultiPolygon([box(150, 0, 155, 5),
                                                          box(-5, -5, 0, 0)]),
                     box(880, -20, 920, 20)], dtype=object)
    area = classify._overlap_area(lots, pieces)
    assert area.tolist() == pytest.approx([100.0, 50.0, 0.0, 0.0, 25.0, 800.0])
    assert area[0] == 100.0 and area[2] == 0.0 and area[3] == 0.0


def test_pieces_without_edges_measure_every_lot():
    """Pieces made without the sources' boundary (a caller's own) intersect every lot that
    meets them: the same areas."""
    with_edges = flood_pieces(FLOOD)
    bare = overlays.Pieces(with_edges.geoms, with_edges.values)
    lots = np.array([box(-5, 150, 5, 160), box(35, -5, 45, 5), box(-10, -10, 10, 10)],
                    dtype=object)
    np.testing.assert_allclose(classify._overlap_area(lots, bare),
                               classify._overlap_area(lots, with_edges), rtol=1e-12)


def test_the_cut_pieces_and_their_edges_travel_to_the_workers():
    """The pieces pickle with their edges (the workers' copy) and build their trees again."""
    import pickle

    pieces = flood_pieces(FLOOD)
    assert pieces.edge_tree is not None
    back = pickle.loads(pickle.dumps(pieces))
    assert back._edge_tree is None and back._tree is None
    assert shapely.equals(shapely.union_all(back.edges), shapely.union_all(pieces.edges))
    lots = np.array([box(-5, 150, 5, 160), box(35, -5, 45, 5)], dtype=object)
    assert classify._overlap_area(lots, back).tolist() == \
        classify._overlap_area(lots, pieces).tolist()
    assert math.isclose(shapely.union_all(back.geoms).area,
                        shapely.union_all(FLOOD).area, rel_tol=1e-12)


def test_geometries_travel_packed_and_come_back_the_same(tmp_path):
    """An array of geometries pickles as two arrays (each WKB's length, -1 for a missing one,
    and the WKB one after the other) and loads with one vectorised ``from_wkb``: by hand, a
    polygon with a hole, a two-part lot, an empty polygon, a line, a missing geometry and a
    geometry with an SRID come back byte for byte; an empty array comes back empty."""
    import pickle

    from swm_gis.applicability.shared_file import load_overlays, write_shared

    holed = shapely.Polygon([(0, 0), (10, 0), (10, 10), (0, 10)], [[(2, 2), (4, 2), (4, 4)]])
    geoms = np.array([holed, shapely.MultiPolygon([box(0, 0, 1, 1), box(5, 5, 6, 6)]),
                      shapely.Polygon(), shapely.LineString([(0, 0), (3, 4)]), None,
                      shapely.set_srid(box(1, 1, 2, 2), 26986)], dtype=object)
    packed = overlays.PackedGeometries.pack(geoms)
    sizes = [len(shapely.to_wkb(g, include_srid=True)) for g in geoms[:4]]
    # a box with its SRID: byte order 1, type 4, SRID 4, rings 4, points 4, 5 points of 16
    assert packed.lengths.tolist() == [*sizes, -1, 1 + 4 + 4 + 4 + 4 + 5 * 16]
    assert packed.wkb.dtype == np.uint8 and len(packed.wkb) == sum(sizes) + 97
    back = packed.unpack()
    assert back[4] is None and shapely.get_srid(back[5]) == 26986
    assert [shapely.to_wkb(g, include_srid=True) if g is not None else None for g in back] == \
        [shapely.to_wkb(g, include_srid=True) if g is not None else None for g in geoms]
    assert len(overlays.PackedGeometries.pack(np.array([], dtype=object)).unpack()) == 0
    # the pieces and the zones pickle so, in the workers' file too (arrays beside it, mapped)
    pieces = flood_pieces(FLOOD)
    zones = overlays.Zones(np.array([box(0, 0, 10, 10), box(10, 0, 20, 10)], dtype=object),
                           np.array(["a", "b"], dtype=object))
    for value in (pieces, zones):
        state = value.__getstate__()
        assert any(isinstance(v, overlays.PackedGeometries) for v in state.values())
        assert not any(isinstance(v, np.ndarray) and v.dtype == object
                       and isinstance(v[0], shapely.Geometry) for v in state.values()
                       if isinstance(v, np.ndarray) and len(v))
    again = pickle.loads(pickle.dumps((pieces, zones), protocol=5))
    base = tmp_path / "overlays"
    assert write_shared((pieces, zones), base)
    mapped = load_overlays(str(base))
    for p, z in (again, mapped):
        for a, b in ((p.geoms, pieces.geoms), (p.edges, pieces.edges), (z.polys, zones.polys),
                     (z.edges, zones.edges), (z.pieces, zones.pieces)):
            assert shapely.to_wkb(a).tolist() == shapely.to_wkb(b).tolist()
        assert p.values.tolist() == pieces.values.tolist() and p._tree is None
        assert z.values.tolist() == ["a", "b"] and z._trees == {}
        assert z.holding(np.array([[5.0, 5.0], [15.0, 5.0]])).tolist() == [0, 1]

"""The applicability engine's fast paths give exactly what their plain versions give.

Each fast path (drainage flags reduced strip by strip in bits, MultiPolygon WKB by a header,
text columns cast in C, subdivide's cuts on threads, the one-box coverage test, null counts
from the batches, the id scan in Arrow) is checked against a plain reference written out here,
on hand-made and random inputs, including the awkward ones (cells draining nowhere, parcels off
the grid, more than 64 flag columns, integer ids, nulls, geometry collections).
"""

from __future__ import annotations

import json
import sqlite3

import geopandas as gpd
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from rasterio import features
from rasterio.transform import from_origin
from shapely.geometry import MultiPolygon, Polygon, box
from support.townkit import CRS, write_town

from swm_gis.applicability import classify, drainage, overlays, write
from swm_gis.applicability import run as ap
from swm_gis.config.town import load_config
from swm_gis.terrain.catchments import DrainageGrid

X0, Y0 = 230_000.0, 900_000.0


# --------------------------------------------------------------------------- drainage flags
def reached_by_pairs(geoms: np.ndarray, grid: DrainageGrid):
    """The plain reduction: every (parcel, cell) pair listed, each (parcel, node) once."""
    rows, cols = grid.labels.shape
    burned = features.rasterize(zip(geoms, np.arange(1, len(geoms) + 1), strict=True),
                                out_shape=(rows, cols), transform=grid.transform, fill=0,
                                dtype="int32")
    rr, cc = np.nonzero(burned)
    pid = [burned[rr, cc].astype(np.int64) - 1]
    cell = [rr.astype(np.int64) * cols + cc]
    rp = shapely.point_on_surface(geoms)
    col, row = ~grid.transform * (shapely.get_x(rp), shapely.get_y(rp))
    row, col = np.floor(row).astype(np.int64), np.floor(col).astype(np.int64)
    on = (row >= 0) & (row < rows) & (col >= 0) & (col < cols)
    pid.append(np.flatnonzero(on))
    cell.append(row[on] * cols + col[on])
    pid, cell = np.concatenate(pid), np.concatenate(cell)
    node = grid.labels.ravel()[cell].astype(np.int64)
    n = len(geoms)
    has_cell = np.bincount(pid, minlength=n) > 0
    lost = np.bincount(pid[node < 0], minlength=n) > 0
    flags = np.zeros((n, grid.node_flags.shape[1]), dtype=bool)
    keep = node >= 0
    np.logical_or.at(flags, pid[keep], grid.node_flags[node[keep]])
    return flags, has_cell, lost


def random_grid(rng: np.random.Generator, rows: int, cols: int, n_nodes: int, n_flags: int,
                cell: float) -> DrainageGrid:
    labels = rng.integers(-1, n_nodes, size=(rows, cols)).astype(np.int32)
    node_flags = rng.random((n_nodes, n_flags)) < 0.3
    return DrainageGrid(labels=labels, node_flags=node_flags,
                        cause_names=tuple(f"cause {i}" for i in range(n_flags - 2)),
                        transform=from_origin(X0, Y0 + rows * cell, cell, cell))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_flags=st.sampled_from([2, 5, 64, 70, 130]),
       strip=st.sampled_from([1, 3, 7, 512]))
def test_reached_equals_the_pairwise_reduction(seed, n_flags, strip):
    rng = np.random.default_rng(seed)
    rows, cols, cell = 23, 31, 2.0
    grid = random_grid(rng, rows, cols, n_nodes=int(rng.integers(1, 9)), n_flags=n_flags,
                       cell=cell)
    # parcels of every kind: inside, across the edge, off the grid, smaller than a cell
    geoms = []
    for _ in range(int(rng.integers(1, 25))):
        x, y = rng.uniform(-10, cols * cell + 10), rng.uniform(-10, rows * cell + 10)
        w, h = rng.uniform(0.3, 20), rng.uniform(0.3, 20)
        geoms.append(box(X0 + x, Y0 + y, X0 + x + w, Y0 + y + h))
    geoms = np.array(geoms, dtype=object)
    old = drainage.STRIP_ROWS
    drainage.STRIP_ROWS = strip
    try:
        got = drainage._reached(geoms, grid)
    finally:
        drainage.STRIP_ROWS = old
    want = reached_by_pairs(geoms, grid)
    for g, w in zip(got, want, strict=True):
        assert g.dtype == bool and g.shape == w.shape
        assert (g == w).all()


def test_reached_by_hand():
    # a 4 x 4 grid of 1 m cells; nodes 0 (ORW) and 1 (impaired, cause 0); -1 drains nowhere
    labels = np.array([[0, 0, 1, 1],
                       [0, 0, 1, 1],
                       [-1, -1, 1, 1],
                       [-1, -1, 1, 1]], dtype=np.int32)
    node_flags = np.array([[True, False, False], [False, True, True]])
    grid = DrainageGrid(labels=labels, node_flags=node_flags, cause_names=("Phosphorus",),
                        transform=from_origin(X0, Y0 + 4, 1, 1))
    geoms = np.array([
        box(X0, Y0 + 2, X0 + 2, Y0 + 4),          # top left: node 0 only
        box(X0, Y0, X0 + 4, Y0 + 2),              # bottom row: nowhere and node 1
        box(X0 + 2.2, Y0 + 2.2, X0 + 2.4, Y0 + 2.4),  # smaller than a cell: its point's cell
        box(X0 + 10, Y0 + 10, X0 + 11, Y0 + 11),  # off the grid: no cell at all
    ], dtype=object)
    flags, has_cell, lost = drainage._reached(geoms, grid)
    assert flags.tolist() == [[True, False, False], [False, True, True],
                              [False, True, True], [False, False, False]]
    assert has_cell.tolist() == [True, True, True, False]
    assert lost.tolist() == [False, True, False, False]
    orw, imp, causes = classify.drainage_flags(geoms, grid)
    assert orw.tolist() == [True, pd.NA, False, pd.NA]
    assert imp.tolist() == [False, True, True, pd.NA]
    assert causes.tolist() == ["", "Phosphorus", "Phosphorus", None]


# --------------------------------------------------------------------------- tile encoding
def polygon_with_hole() -> Polygon:
    return Polygon([(0, 0), (10, 0), (10, 10), (0, 10)], [[(2, 2), (4, 2), (4, 4), (2, 4)]])


@pytest.mark.parametrize("geoms", [
    [box(0, 0, 1, 1), box(5, 5, 7, 8)],
    [MultiPolygon([box(0, 0, 1, 1), box(3, 3, 4, 4)]), box(1, 1, 2, 2), polygon_with_hole()],
    [MultiPolygon([box(0, 0, 1, 1), box(3, 3, 4, 4)])],
    [],
])
def test_multipolygon_wkb_is_the_bytes_of_multipolygons(geoms):
    g = np.array(geoms, dtype=object)
    got = write._multipolygon_wkb(g).to_pylist()
    want = list(shapely.to_wkb(write._as_multi(g))) if len(g) else []
    assert got == want
    back = shapely.from_wkb(got) if got else []
    assert all(b.geom_type == "MultiPolygon" for b in back)
    assert all(b.equals(a) for a, b in zip(g, back, strict=True))


def test_multipolygon_wkb_falls_back_for_other_types():
    g = np.array([shapely.GeometryCollection([box(0, 0, 1, 1)]), box(2, 2, 3, 3)], dtype=object)
    assert write._multipolygon_wkb(g).to_pylist() == list(shapely.to_wkb(write._as_multi(g)))


@pytest.mark.parametrize("series", [
    pd.Series(["a", None, "ç é"], dtype="str"),
    pd.Series(["a", None, np.nan, "b"], dtype=object),
    pd.Series([17, None, 3.5, "x"], dtype=object),      # integer ids and mixed values: str()
    pd.Series([None, None], dtype=object),
    pd.Series([], dtype=object),
    pd.Series(pd.array(["x", pd.NA], dtype="string")),
])
def test_text_columns_as_before(series):
    text = series.astype(object).where(series.notna(), None)
    want = pa.array([None if v is None else str(v) for v in text], type=pa.string())
    assert write._text_array(series).equals(want)


def test_null_counts_are_the_batch_nulls():
    table = pa.table({"a": pa.array([True, None, None]), "b": pa.array(["x", "y", None])})
    assert write.null_counts(table) == {"a": 2, "b": 1}


# --------------------------------------------------------------------------- subdivide, coverage
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_subdivide_on_threads_cuts_the_same_pieces(seed):
    rng = np.random.default_rng(seed)
    geoms = []
    for _ in range(int(rng.integers(1, 12))):
        n = int(rng.integers(8, 300))
        angle = np.sort(rng.uniform(0, 2 * np.pi, n))
        radius = rng.uniform(200, 3_000) * rng.uniform(0.6, 1.0, n)
        cx, cy = rng.uniform(0, 20_000, 2)
        geoms.append(shapely.make_valid(Polygon(np.c_[cx + radius * np.cos(angle),
                                                      cy + radius * np.sin(angle)])))
    geoms = np.array(geoms, dtype=object)
    values = np.arange(len(geoms))
    old_cores, old_min = overlays.available_cores, overlays._THREADED_VERTICES
    try:
        overlays.available_cores = lambda: 1
        one = overlays.subdivide(geoms, values, max_vertices=16, max_extent_m=500)
        overlays.available_cores = lambda: 3
        overlays._THREADED_VERTICES = 0  # threads even for a few vertices
        many = overlays.subdivide(geoms, values, max_vertices=16, max_extent_m=500)
    finally:
        overlays.available_cores, overlays._THREADED_VERTICES = old_cores, old_min
    assert (one[1] == many[1]).all()
    assert list(shapely.to_wkb(one[0])) == list(shapely.to_wkb(many[0]))


def covered_one_by_one(geoms, area, radius):
    return np.array([area.covers(shapely.box(*np.add(g.bounds, (-radius, -radius, radius,
                                                                   radius))))
                     or area.covers(shapely.buffer(shapely.buffer(g, radius, quad_segs=16),
                                                   radius * (1 - np.cos(np.pi / 64))))
                     for g in geoms])


@pytest.mark.parametrize("area", [box(0, 0, 1_000, 1_000),              # covers them all
                                  box(0, 0, 520, 1_000),                # covers some
                                  Polygon([(0, 0), (1_000, 0), (0, 1_000)])])
def test_covered_with_and_without_the_tile_shortcut(area):
    geoms = np.array([box(x, y, x + 30, y + 20) for x in range(100, 800, 90)
                      for y in range(100, 800, 110)], dtype=object)
    for radius in (0.0, 50.0):
        got = classify.covered(geoms, area, radius=radius)
        assert got.tolist() == covered_one_by_one(geoms, area, radius).tolist()


SLACK_50 = 50.0 * (1 - np.cos(np.pi / 64))  # the chord gap of a 50 unit buffer: 0.06 units


@settings(max_examples=40, deadline=None)
@given(offsets=st.lists(st.sampled_from([-3.0, -1.0, -0.5, -1e-4, 0.0, 1e-4, 0.5, 1.0, 3.0]),
                        min_size=1, max_size=12),
       radius=st.sampled_from([0.0, 50.0]), shape=st.sampled_from(["box", "triangle", "town"]),
       size=st.floats(1.0, 40.0))
def test_covered_decides_the_band_at_the_radius_by_the_rule(offsets, radius, shape, size):
    """Parcels a radius (give or take a few chord gaps, or a hair) from the coverage edge: the
    distance prefilter must give what the rule (envelope, else grown buffer) gives, one by one."""
    area = {"box": box(0, 0, 520, 1_000),
            "triangle": Polygon([(0, 0), (1_000, 0), (0, 1_000)]),
            "town": shapely.union(Polygon([(0, 0), (700, 80), (640, 900), (60, 760)]),
                                  box(0, 0, 300, 300))}[shape]
    geoms = []
    for i, k in enumerate(offsets):
        gap = radius + k * max(SLACK_50 if radius else 1.0, 1e-9)  # from the parcel to the edge
        x1 = 520 - gap  # the box's right edge, and (roughly) the others' east side
        y = 100 + 60 * i
        geoms.append(box(x1 - size, y, x1, y + size / 2))
        geoms.append(Polygon([(x1 - size, y), (x1, y + size / 3), (x1 - size / 2, y + size)]))
    geoms = np.array(geoms, dtype=object)
    got = classify.covered(geoms, area, radius=radius)
    assert got.tolist() == covered_one_by_one(geoms, area, radius).tolist()


def test_covered_on_an_invalid_area_is_the_rule():
    """A self-crossing coverage polygon (a bow tie) cannot be overlaid: the rule decides every
    parcel, as before, instead of the run failing."""
    bow = Polygon([(0, 0), (1_000, 1_000), (1_000, 0), (0, 1_000)])
    assert not bow.is_valid
    geoms = np.array([box(x, y, x + 30, y + 20) for x in range(100, 900, 150)
                      for y in range(50, 950, 150)], dtype=object)
    for radius in (0.0, 50.0):
        got = classify.covered(geoms, bow, radius=radius)
        assert got.tolist() == covered_one_by_one(geoms, bow, radius).tolist()


def test_covered_band_worked_by_hand():
    """Coverage x <= 520, radius 50, chord gap 0.0602: a parcel whose east side is 50.1 from the
    edge is covered, 49.9 is not (its buffer crosses). At 50.03, inside the gap, the distance
    cannot decide; the rule does: the envelope grown by 50 ends at 519.97, inside, so covered.
    An empty geometry has no distance: the rule says not covered, as before."""
    area = box(0, 0, 520, 1_000)
    geoms = np.array([box(400, 100, 520 - 50.1, 110), box(400, 200, 520 - 49.9, 210),
                      box(400, 300, 520 - 50.03, 310), Polygon()], dtype=object)
    assert classify.covered(geoms, area, radius=50.0).tolist() == [True, False, True, False]
    assert classify.covered(geoms[:3], area, radius=0.0).tolist() == [True, True, True]


def summary_by_text_groupby(result):
    """The tile summary as a plain groupby on the two text columns."""
    huc = result["huc12"].astype(object).where(result["huc12"].notna(), "none")
    df = pd.DataFrame({"huc12": huc.to_numpy(dtype=object),
                       "screening_class": result["screening_class"].to_numpy(dtype=object),
                       "area_acres": result["area_acres"].to_numpy()})
    return (df.groupby(["huc12", "screening_class"], as_index=False)
            .agg(parcels=("area_acres", "size"), area_acres=("area_acres", "sum")))


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.tuples(st.sampled_from([None, "010700020301", "010700020302", "0109"]),
                               st.sampled_from(["large parcel; no constraint found",
                                                "small parcel; habitat constraint", "water",
                                                "right-of-way", None]),
                               st.floats(0.0, 1e4, allow_nan=False)), min_size=0, max_size=60))
def test_summary_by_integer_keys_is_the_text_groupby(rows):
    """Same groups, same order, same sums to the last bit (compensated sums over the same rows
    in the same order), same types; an empty tile too, and a row without a class (no group)."""
    result = pd.DataFrame(rows, columns=["huc12", "screening_class", "area_acres"])
    result["area_acres"] = result["area_acres"].astype(float)
    got, want = classify.summarise(result), summary_by_text_groupby(result)
    pd.testing.assert_frame_equal(got, want, check_exact=True)


# --------------------------------------------------------------------------- the whole run
def town_with_duplicates(tmp_path, ids):
    geoms = [box(X0 + 60 * i, Y0, X0 + 60 * i + 50, Y0 + 50) for i in range(len(ids))]
    parcels = gpd.GeoDataFrame({"LOC_ID": ids, "POLY_TYPE": ["FEE"] * len(ids)},
                               geometry=geoms, crs=CRS)
    flood = gpd.GeoDataFrame({"FLD_ZONE": ["AE"], "SFHA_TF": ["T"], "STATIC_BFE": [10.0]},
                             geometry=[box(X0 - 10, Y0 - 10, X0 + 75, Y0 + 60)], crs=CRS)
    return write_town(tmp_path, {"parcels": parcels, "flood_zones": flood})


@pytest.mark.parametrize("beside", [True, False])  # the id scan beside the overlays, or first
@pytest.mark.parametrize("ids, merged", [
    (["A", "B", "A", "C"], ["A"]),
    ([7, 8, 7, 9, 9], ["7", "9"]),   # integer ids compared as text
    (["A", "B", "C"], []),
])
def test_duplicate_ids_merged_and_null_counts_as_counted_in_the_file(tmp_path, monkeypatch,
                                                                      ids, merged, beside):
    if not beside:
        monkeypatch.setattr(ap, "DUPLICATE_SCAN_BESIDE_MAX", 0)
    out = tmp_path / "map.gpkg"
    run = ap.run_applicability(load_config(town_with_duplicates(tmp_path, ids)), out,
                               workers=1)
    res = ap.read_result(out)
    assert sorted(res["parcel_id"].astype(str)) == sorted({str(i) for i in ids})
    assert run.parcels == len(set(ids))
    con = sqlite3.connect(out)
    try:
        rows = dict(con.execute(
            'SELECT "check", parcels_not_checked FROM applicability_checks').fetchall())
        note = con.execute(
            "SELECT note FROM applicability_checks WHERE \"check\" = 'run'").fetchone()[0]
    finally:
        con.close()
    assert json.loads(note)["parameters"]["merged_duplicate_ids"] == merged
    # the counts written from the batches are the file's own nulls
    assert rows == {**write_counts_in_file(out, list(rows)), "run": None}


def write_counts_in_file(path, checks):
    """Nulls per flag counted in the written layer by SQL (None for a check with no column)."""
    con = sqlite3.connect(path)
    try:
        have = {r[1] for r in con.execute('PRAGMA table_info("applicability")')}
        return {c: (con.execute(f'SELECT SUM("{c}" IS NULL) FROM applicability').fetchone()[0]
                    if c in have else None) for c in checks if c != "run"}
    finally:
        con.close()


# --------------------------------------------------------------------------- one description a run
def test_a_run_describes_each_source_once_and_forgets_after(tmp_path, monkeypatch):
    """Inside a run GDAL describes the parcels once, not once a tile; after the run the
    descriptions are dropped, so a parcel added to the file is seen by the next run."""
    import pyogrio

    from swm_gis.io import layers

    ids = [f"P{i}" for i in range(12)]
    cfg = load_config(town_with_duplicates(tmp_path, ids))
    calls: list[str | None] = []
    real = pyogrio.read_info

    def counted(path, layer=None, **kw):
        calls.append(layer)
        return real(path, layer=layer, **kw)

    monkeypatch.setattr(layers.pyogrio, "read_info", counted)
    first = ap.run_applicability(cfg, tmp_path / "a.gpkg", workers=1, chunk_size=2)
    assert first.tiles >= 4 and first.parcels == 12
    assert calls.count("parcels") == 1 and layers._RUN_INFO is None
    calls.clear()
    layers.layer_info(cfg.layer("parcels"))
    layers.layer_info(cfg.layer("parcels"))
    assert calls.count("parcels") == 2  # outside a run: described each time, as before
    more = gpd.GeoDataFrame({"LOC_ID": ["NEW"], "POLY_TYPE": ["FEE"]},
                            geometry=[box(X0 + 2_000, Y0, X0 + 2_050, Y0 + 50)], crs=CRS)
    more.to_file(cfg.layer("parcels").path, layer="parcels", mode="a")
    again = ap.run_applicability(cfg, tmp_path / "b.gpkg", workers=1, chunk_size=2)
    assert again.parcels == 13
    assert "NEW" in set(ap.read_result(again.path)["parcel_id"])


# --------------------------------------------------------------------------- nearest habitat
def nearest_by_every_pair(geoms: np.ndarray, pieces: overlays.Pieces, radius: float):
    """The plain search: the exact distance of every (parcel, piece) pair within the radius,
    least per parcel, ties by piece order."""
    dist = np.full(len(geoms), np.nan)
    label = np.full(len(geoms), None, dtype=object)
    for i, g in enumerate(geoms):
        d = shapely.distance(g, pieces.geoms)
        ok = np.flatnonzero(d <= radius)
        if len(ok):
            j = ok[np.lexsort((ok, d[ok]))[0]]
            dist[i], label[i] = d[j] * 3.280839895013123, pieces.values[j]
    return dist, label


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), spread=st.sampled_from([50.0, 300.0, 1_000.0]))
def test_nearest_habitat_pruned_equals_every_pair(seed, spread):
    """Pruning by envelope gap and point distance skips no nearest piece and no tie: random
    lots, blobs (some overlapping the lots), points (vernal pools, some at equal distances) and
    copies of one piece (exact ties, broken by piece order)."""
    rng = np.random.default_rng(seed)
    lots = np.array([box(x, y, x + w, y + h) for x, y, w, h in zip(
        rng.uniform(0, spread, 30), rng.uniform(0, spread, 30), rng.uniform(5, 60, 30),
        rng.uniform(5, 60, 30), strict=True)], dtype=object)
    blobs = [shapely.Point(x, y).buffer(r, 3) for x, y, r in zip(
        rng.uniform(-100, spread + 100, 8), rng.uniform(-100, spread + 100, 8),
        rng.uniform(3, 80, 8), strict=True)]
    pools = [shapely.Point(x, y) for x, y in rng.uniform(-50, spread + 50, (6, 2))]
    geoms = np.array([*blobs, *pools, blobs[0], pools[0]], dtype=object)
    pieces = overlays.Pieces(geoms, np.array([f"p{i}" for i in range(len(geoms))], dtype=object))
    radius = 1_000.0 / 3.280839895013123
    got = classify._nearest_habitat_ft(lots, pieces, search_ft=1_000.0)
    want = nearest_by_every_pair(lots, pieces, radius)
    np.testing.assert_array_equal(got[0], want[0])
    assert got[1].tolist() == want[1].tolist()


def test_nearest_habitat_by_hand():
    """Lot (0,0)-(10,10): a pool 30 m east (the points' bound, 30.4 m from the lot's first
    vertex (10, 0) to the pool, prunes the blob 200 m away), a blob it overlaps at distance 0,
    ties by piece order."""
    lot = np.array([box(0, 0, 10, 10)], dtype=object)
    far = shapely.Point(210, 5).buffer(5)
    pool = shapely.Point(40, 5)
    pieces = overlays.Pieces(np.array([far, pool], dtype=object),
                             np.array(["priority:far", "vernal_pool:7"], dtype=object))
    dist, label = classify._nearest_habitat_ft(lot, pieces, search_ft=1_000.0)
    assert label.tolist() == ["vernal_pool:7"]
    assert dist[0] == pytest.approx(30 * 3.280839895013123)  # 40 - 10 m, in feet: 98.43 ft
    inside = shapely.box(5, 5, 20, 20)
    pieces = overlays.Pieces(np.array([pool, inside, inside], dtype=object),
                             np.array(["vernal_pool:7", "estimated:A", "estimated:B"],
                                      dtype=object))
    dist, label = classify._nearest_habitat_ft(lot, pieces, search_ft=1_000.0)
    assert dist.tolist() == [0.0] and label.tolist() == ["estimated:A"]  # tie: first piece


def test_a_tie_goes_to_the_first_feature_whatever_the_cut():
    """A lot overlapping a large priority habitat (5 km wide: cut into pieces of at most
    HABITAT_PIECE_EXTENT_M, which come after the small features' in the pieces' order) and a
    small estimated habitat: both at distance 0; the tie goes to the first feature in the
    layers' order (priority, estimated, vernal pools), as it did before any cut."""
    def frame(geoms, ids):
        return gpd.GeoDataFrame({"id": ids}, geometry=geoms, crs=CRS)

    big = box(-2_500, -2_500, 2_500, 2_500)  # 5 km: at least 9 pieces
    pieces = overlays._habitat_pieces(frame([big], ["P1"]), frame([box(-5, -5, 5, 5)], ["E1"]),
                                      None, overlays.MAX_PIECE_VERTICES)
    assert len(pieces) > 2 and pieces.values[0] == "estimated:E1"  # the cut reordered them
    lot = np.array([box(-1, -1, 1, 1)], dtype=object)
    dist, label = classify._nearest_habitat_ft(lot, pieces, search_ft=1_000.0)
    assert dist.tolist() == [0.0] and label.tolist() == ["priority:P1"]


def test_a_tie_does_not_follow_the_order_a_source_returns_its_rows_in():
    """Two priority habitats overlapping a lot (both at 0 ft) and an estimated one: the tie goes
    to priority "PH 1" (the layers' order, then the id), whichever order the rows come in (a
    database returns them in its spatial index's order)."""
    def frame(geoms, ids):
        return gpd.GeoDataFrame({"id": ids}, geometry=geoms, crs=CRS)

    a, b = box(-50, -50, 50, 50), box(-20, -20, 3_000, 20)
    lot = np.array([box(-1, -1, 1, 1)], dtype=object)
    for geoms, ids in (([a, b], ["PH 1", "PH 2"]), ([b, a], ["PH 2", "PH 1"])):
        pieces = overlays._habitat_pieces(frame(geoms, ids), frame([a], ["EH 0"]), None,
                                          overlays.MAX_PIECE_VERTICES)
        assert classify._nearest_habitat_ft(lot, pieces)[1].tolist() == ["priority:PH 1"]


def test_nearest_habitat_measures_the_closest_envelope_first(monkeypatch):
    """Lot (0,0)-(10,10). A U-shaped habitat around it (its envelope holds the lot: gap 0, but
    its nearest part is 50 m away), a pool 30 m east (gap 30) and a blob 45 m north (gap 45,
    inside the points' bound). The U is measured first (50 m): the pool (30 <= 50) is still
    measured and is the nearest; the blob (45 <= 50) too. With the U replaced by a long strip
    the lot overlaps (distance 0; the strip's own point (154, 8.75) 144 m from the lot's first
    vertex (10, 0), so the points' bound is the pool's 30.4 m and keeps the pool), the pool is
    not measured: one GEOS distance, not two."""
    lot = np.array([box(0, 0, 10, 10)], dtype=object)
    u_shape = shapely.union_all([box(-60, -60, 70, -50), box(60, -60, 70, 70),
                                 box(-60, -60, -50, 70)])
    pool, blob = shapely.Point(40, 5), shapely.Point(5, 60).buffer(5)
    pieces = overlays.Pieces(np.array([u_shape, pool, blob], dtype=object),
                             np.array(["priority:U", "vernal_pool:7", "estimated:B"],
                                      dtype=object))
    dist, label = classify._nearest_habitat_ft(lot, pieces, search_ft=1_000.0)
    assert label.tolist() == ["vernal_pool:7"]
    assert dist[0] == pytest.approx(30 * 3.280839895013123)  # 40 - 10 m: 98.43 ft
    measured = []
    real = shapely.distance
    monkeypatch.setattr(shapely, "distance",
                        lambda a, b, **k: (measured.append(len(a)), real(a, b, **k))[1])
    pieces = overlays.Pieces(np.array([box(8, 8, 300, 9.5), pool, blob], dtype=object),
                             np.array(["priority:S", "vernal_pool:7", "estimated:B"],
                                      dtype=object))
    dist, label = classify._nearest_habitat_ft(lot, pieces, search_ft=1_000.0)
    assert dist.tolist() == [0.0] and label.tolist() == ["priority:S"]
    assert sum(measured) == 1


def test_a_lot_whose_point_lies_in_a_piece_is_at_0_without_a_distance(monkeypatch):
    """Lot (0,0)-(10,10), first vertex (10, 0). A habitat holding that vertex inside
    (box(5,-5,20,5)) and one whose edge passes through it (box(10,-20,30,0), touching at the
    corner): both at 0 ft, found by the point test on the prepared pieces, and no GEOS
    distance is computed; the tie goes to the first piece. A blob the lot overlaps away from
    its vertex (box(-5, 4, 2, 6)) is at 0 ft too, measured by GEOS (one distance)."""
    lot = np.array([box(0, 0, 10, 10)], dtype=object)
    assert shapely.get_coordinates(lot[0])[0].tolist() == [10.0, 0.0]
    measured = []
    real = shapely.distance
    monkeypatch.setattr(shapely, "distance",
                        lambda a, b, **k: (measured.append(len(a)), real(a, b, **k))[1])
    pieces = overlays.Pieces(np.array([box(5, -5, 20, 5), box(10, -20, 30, 0)], dtype=object),
                             np.array(["priority:IN", "estimated:EDGE"], dtype=object))
    dist, label = classify._nearest_habitat_ft(lot, pieces, search_ft=1_000.0)
    assert dist.tolist() == [0.0] and label.tolist() == ["priority:IN"]
    assert sum(measured) == 0
    pieces = overlays.Pieces(np.array([box(-5, 4, 2, 6)], dtype=object),
                             np.array(["estimated:AWAY"], dtype=object))
    dist, label = classify._nearest_habitat_ft(lot, pieces, search_ft=1_000.0)
    assert dist.tolist() == [0.0] and label.tolist() == ["estimated:AWAY"]
    assert sum(measured) == 1
    # the pair test by hand: inside, on the edge, outside its envelope, inside the envelope of
    # an L-shaped piece but not in it, and a missing point
    ell = shapely.union_all([box(0, 0, 10, 2), box(0, 0, 2, 10)])
    pieces = overlays.Pieces(np.array([box(0, 0, 4, 4), ell], dtype=object),
                             np.array(["a", "b"], dtype=object))
    xy = np.array([[1, 1], [4, 2], [5, 5], [5, 5], [np.nan, np.nan]], dtype=float)
    got = pieces.hold_points(np.array([0, 0, 0, 1, 1]), xy)
    assert got.tolist() == [True, True, False, False, False]


# --------------------------------------------------------------------------- prepared items
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), snap=st.sampled_from([1.0, 10.0]))
def test_meeting_is_the_tree_s_intersects_query(seed, snap):
    """``overlays.meeting`` (the tree's items prepared, the envelope pairs tested with them)
    gives the pairs, in the order, of ``STRtree.query(predicate="intersects")``: on random
    boxes, polygons and lines snapped to a coarse grid, so that many share an edge or touch at a
    vertex only (the cases where a predicate could tell them apart); asked twice, the second
    time with the items already prepared."""
    rng = np.random.default_rng(seed)

    def shapes(n: int) -> np.ndarray:
        x, y = np.round(rng.uniform(0, 100, (2, n)) / snap) * snap
        w, h = np.round(rng.uniform(1, 30, (2, n)) / snap) * snap + snap
        out = shapely.box(x, y, x + w, y + h)
        tri = rng.random(n) < 0.3  # triangles: a slanted edge
        out[tri] = shapely.polygons([[(a, b), (a + c, b), (a, b + d)] for a, b, c, d in
                                     zip(x[tri], y[tri], w[tri], h[tri], strict=True)])
        return out

    items = shapes(60)
    lines = shapely.boundary(items[:20])  # edges, as the boundary chunks are
    parcels = shapes(80)
    for tree_geoms in (items, lines):
        tree = shapely.STRtree(tree_geoms)
        want = tree.query(parcels, predicate="intersects")
        for _ in range(2):
            got = overlays.meeting(tree, parcels)
            assert np.array_equal(np.vstack(got), want)


def test_meeting_by_hand():
    """A square and the four squares around it: one shares an edge, one a corner only, one
    overlaps, one is 1 unit away; a line ends on the square's edge. The square meets all but
    the distant one."""
    square = box(0, 0, 10, 10)
    tree = shapely.STRtree(np.array([box(10, 0, 20, 10), box(10, 10, 20, 20), box(5, 5, 15, 15),
                                     box(-11, 0, -1, 10), shapely.LineString([(5, -5), (5, 0)])]))
    pi, ti = overlays.meeting(tree, np.array([square]))
    assert pi.tolist() == [0, 0, 0, 0] and sorted(ti.tolist()) == [0, 1, 2, 4]
    assert overlays.meeting(tree, np.array([], dtype=object))[0].size == 0

"""Hydrology: D8 flow on a DEM (pyflwdir, depressions filled), the stream network, drainage labels.

Uses the synthetic valley of test_receiving_waters (described there).
"""

from __future__ import annotations

import geopandas as gpd
import numpy as np
import pytest
import shapely
import shapely.affinity
from affine import Affine
from hypothesis import given, settings
from hypothesis import strategies as st
from pyproj import CRS
from shapely.geometry import LineString, box
from support.valleykit import EPSG, X0, Y0, valley_dem, valley_layers, xy

from swm_gis import terrain as hy
from swm_gis.errors import CrsError, EmptyLayerError, GeometryError, InputFileError
from swm_gis.raster import Raster


def plane(nrows=20, ncols=30, *, pit_at=None, crs=EPSG) -> Raster:
    """A plane falling 0.5 m per 10 m cell to the south, optionally with a 2 m pit."""
    rows = np.arange(nrows)[:, None] * np.ones((1, ncols))
    z = 100.0 - 0.5 * rows
    if pit_at is not None:
        z[pit_at] -= 2.0
    return Raster(np.ma.masked_invalid(z), Affine(10, 0, X0, 0, -10, Y0),
                  CRS.from_user_input(crs) if crs else None, {"file": "plane.tif"})


def test_plane_flows_straight_downhill():
    flow = hy.flow_directions(plane())
    ds = flow.flwdir.idxs_ds.reshape(flow.shape)
    rows, cols = np.divmod(ds[:-1, 1:-1], flow.shape[1])
    assert (rows == np.arange(1, flow.shape[0])[:, None]).all()  # one row down (south)
    assert (cols == np.arange(1, flow.shape[1] - 1)[None, :]).all()  # same column


def test_depressions_are_filled_so_only_edge_cells_are_pits():
    flow = hy.flow_directions(plane(pit_at=(10, 15)))
    rows, cols = np.divmod(flow.flwdir.idxs_pit, flow.shape[1])
    on_edge = (rows == 0) | (rows == flow.shape[0] - 1) | (cols == 0) | (cols == flow.shape[1] - 1)
    assert on_edge.all()
    path, _ = flow.flwdir.path(idxs=[5 * flow.shape[1] + 15], unit="m")
    assert path[0][-1] // flow.shape[1] == flow.shape[0] - 1  # reaches the southern edge


def test_nodata_cells_are_left_out():
    dem = plane()
    arr = dem.array.copy()
    arr[:, :3] = np.ma.masked
    flow = hy.flow_directions(Raster(arr, dem.transform, dem.crs, dem.source))
    assert np.isnan(flow.elevation[:, :3]).all()
    assert not flow.flwdir.mask.reshape(flow.shape)[:, :3].any()


def test_dem_without_crs_or_values_is_refused():
    with pytest.raises(CrsError, match=r"plane\.tif has no coordinate reference system"):
        hy.flow_directions(plane(crs=None))
    with pytest.raises(CrsError, match="geographic"):
        hy.flow_directions(plane(crs="EPSG:4326"))
    empty = plane()
    with pytest.raises(InputFileError, match="no elevation"):
        hy.flow_directions(Raster(np.ma.masked_all(empty.array.shape), empty.transform,
                                  empty.crs, empty.source))


# --------------------------------------------------------------------------- network
def test_valley_network_connects_through_the_pond():
    v = valley_layers()
    net = hy.stream_network(v["streams"], v["waterbodies"])
    assert net.downstream[("r", 0)] == [(("w", 0), None)]  # brook -> pond
    assert net.downstream[("w", 0)] == [(("r", 1), 0.0)]  # pond -> river
    assert net.downstream[("r", 1)] == [(("r", 2), 0.0)]  # river -> lower river
    assert ("r", 2) not in net.downstream and ("r", 3) not in net.downstream
    assert net.warnings == []


def test_tributary_joining_an_undivided_line_enters_part_way():
    streams = gpd.GeoDataFrame(
        {"id": ["MAIN", "TRIB"]},
        geometry=[LineString([xy(0, 0), xy(100, 0)]), LineString([xy(50, 50), xy(50, 0)])],
        crs=EPSG)
    net = hy.stream_network(streams)
    assert net.downstream == {("r", 1): [(("r", 0), 50.0)]}


def test_multipart_lines_become_reaches_with_their_source_id():
    streams = gpd.GeoDataFrame(
        {"id": ["M"]}, crs=EPSG,
        geometry=[shapely.MultiLineString([[xy(0, 0), xy(10, 0)], [xy(10, 0), xy(20, 0)]])])
    net = hy.stream_network(streams)
    assert net.reaches["id"].tolist() == ["M", "M"]
    assert net.downstream == {("r", 0): [(("r", 1), 0.0)]}


def test_reversed_digitisation_is_reported_by_topology_and_by_the_dem():
    v = valley_layers(reverse_river=True)
    flow = hy.flow_directions(valley_dem())
    net = hy.stream_network(v["streams"], v["waterbodies"], flow=flow)
    problems = {w["problem"]: w for w in net.warnings}
    assert set(problems) == {"starts_meet", "rises"}
    assert problems["starts_meet"]["reaches"] == ["R1", "R2"]
    assert (problems["starts_meet"]["x"], problems["starts_meet"]["y"]) == xy(2005, 1005)
    assert problems["rises"]["reaches"] == ["R1"]
    assert "from 80.0 to 90.0" in problems["rises"]["message"]


def test_two_lines_ending_together_with_no_way_out_are_reported():
    streams = gpd.GeoDataFrame(
        {"id": ["A", "B"]},
        geometry=[LineString([xy(0, 0), xy(100, 0)]), LineString([xy(200, 0), xy(100, 0)])],
        crs=EPSG)
    warnings = hy.stream_network(streams).warnings
    assert [w["problem"] for w in warnings] == ["ends_meet"]
    assert warnings[0]["reaches"] == ["A", "B"]


def test_stream_layer_of_polygons_is_refused():
    bad = gpd.GeoDataFrame({"id": [1]}, geometry=[box(0, 0, 1, 1)], crs=EPSG)
    with pytest.raises(GeometryError, match="stream lines"):
        hy.stream_network(bad)


def test_no_streams_and_no_waterbodies():
    net = hy.stream_network(None, None)
    with pytest.raises(EmptyLayerError, match=r"layers\.streams"):
        hy.require_network(net)


# --------------------------------------------------------------------------- labels, traces
def test_every_cell_is_labelled_with_the_water_it_drains_to():
    v = valley_layers()
    flow = hy.flow_directions(valley_dem())
    net = hy.stream_network(v["streams"], v["waterbodies"])
    labels = hy.drainage_labels(flow, net)

    def at(x, y):
        col, row = ~flow.transform * xy(x, y)
        return labels[int(row), int(col)]

    assert at(350, 1250) == 1  # north slope above the brook -> reach 0 (BROOK)
    assert at(1500, 700) == 2  # south slope above the river -> reach 1 (R1)
    assert at(2500, 1300) == 3  # -> reach 2 (R2, the ORW)
    assert at(850, 1200) == -1  # above the pond -> water body 0
    assert at(355, 1415) == 4  # the salt brook's own cells
    assert set(np.unique(labels)) <= {0, 1, 2, 3, 4, -1}


def test_overland_trace_and_site_off_the_dem():
    v = valley_layers()
    flow = hy.flow_directions(valley_dem())
    net = hy.stream_network(v["streams"], v["waterbodies"])
    entries, warnings = hy.trace_overland(flow, box(*xy(300, 1200), *xy(400, 1300)), net)
    assert warnings == [] and len(entries) == 1
    (e,) = entries
    assert e.node == ("r", 0) and e.position == pytest.approx(290.0)
    assert e.overland_length == pytest.approx(200.0) and e.site_cells == 100
    with pytest.raises(InputFileError, match="does not cover the site"):
        hy.trace_overland(flow, box(*xy(2900, 1900), *xy(3100, 2100)), net)


def test_site_on_dem_gaps_is_refused():
    v = valley_layers()
    dem = valley_dem()
    arr = dem.array.copy()
    arr[70:80, 30:40] = np.ma.masked  # rows for y 1295..1205, columns x 305..395
    flow = hy.flow_directions(Raster(arr, dem.transform, dem.crs, dem.source))
    net = hy.stream_network(v["streams"], v["waterbodies"])
    with pytest.raises(InputFileError, match="no elevation for 100 of the 100 cells"):
        hy.trace_overland(flow, box(*xy(300, 1200), *xy(400, 1300)), net)


def test_nearest_entry_without_dem():
    v = valley_layers(salt_brook=False)
    net = hy.stream_network(v["streams"], v["waterbodies"])
    e = hy.nearest_entry(box(*xy(300, 1200), *xy(400, 1300)), net)
    assert e.node == ("r", 0) and e.overland_length == pytest.approx(195.0)


@settings(max_examples=60, deadline=None)
@given(x=st.floats(-60, 320), y=st.floats(-60, 220), w=st.floats(0.5, 150), h=st.floats(0.5, 150),
       turn=st.floats(0, 90), touched=st.booleans())
def test_cells_under_a_polygon_are_those_of_the_whole_grid(x, y, w, h, turn, touched):
    """``centre_cells`` rasterises only the cells under the polygon's bounds: the same cells, in
    the same order, as rasterising the whole grid (polygons partly or wholly off it included)."""
    from rasterio import features

    flow = hy.flow_directions(plane())  # 20 x 30 cells of 10 m from (X0, Y0) down to the south
    geom = shapely.affinity.rotate(box(X0 + x, Y0 - 200 + y, X0 + x + w, Y0 - 200 + y + h), turn)
    whole = np.flatnonzero(features.rasterize([(geom, 1)], out_shape=flow.shape,
                                              transform=flow.transform, fill=0,
                                              all_touched=touched, dtype="uint8"))
    assert flow.centre_cells(geom, all_touched=touched).tolist() == whole.tolist()


def test_cells_of_a_polygon_by_hand():
    """A box 6..30 m east of the grid's corner and 0..22 m south of it holds the centres of
    columns 1 and 2 (15 and 25 m east) in rows 0 and 1 (5 and 15 m south): cells 1, 2, 31, 32."""
    flow = hy.flow_directions(plane())
    square = box(X0 + 6, Y0 - 22, X0 + 30, Y0)
    assert flow.centre_cells(square).tolist() == [1, 2, 31, 32]
    assert flow.centre_cells(box(X0 - 50, Y0 + 10, X0 - 20, Y0 + 40)).tolist() == []
    assert flow.cells_of(box(X0 + 1, Y0 - 2, X0 + 2, Y0 - 1)).tolist() == [0]  # touched only

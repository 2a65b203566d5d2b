"""The town-wide map's tiles keep the source's WKB and write it back only where it is exactly
what encoding the geometry would write.

* ``read_source_and_wkb`` builds the frame pyogrio's ``read_dataframe(use_arrow=True)`` builds
  (compared on GeoPackages with text, numbers, nulls, dates and numeric ids, with box and
  attribute filters, a shapefile and a GeoJSON), and its WKB decodes to the frame's geometries.
* ``Layer.wkb`` is kept only where every geometry is as read: not after a reprojection, a repair
  or a dropped empty geometry.
* ``as_written`` gives the bytes ``_multipolygon_wkb`` gives for any mix of polygons and
  multipolygons in either byte order, with or without z (random and by hand); a map's tiles
  are the same Arrow tables with and without the source's bytes (the sample town, Cambridge).
"""

from __future__ import annotations

import datetime as dt

import geopandas as gpd
import numpy as np
import pandas as pd
import pyarrow as pa
import pyogrio
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import MultiPolygon, Polygon, box
from support.townkit import CAMBRIDGE_CONFIG, CRS, SAMPLE_CONFIG, write_town

from swm_gis.applicability import run as ap
from swm_gis.applicability import tiles, write
from swm_gis.config.town import LayerSpec, load_config
from swm_gis.io import layers, source_cache
from swm_gis.io.source_read import read_source_and_wkb

X0, Y0 = 230_000.0, 900_000.0


def hole_polygon(x: float, y: float) -> Polygon:
    return Polygon([(x, y), (x + 40, y), (x + 40, y + 40), (x, y + 40)],
                   [[(x + 10, y + 10), (x + 20, y + 10), (x + 20, y + 20), (x + 10, y + 20)]])


def mixed_frame() -> gpd.GeoDataFrame:
    geoms = [box(X0, Y0, X0 + 50, Y0 + 50), MultiPolygon([box(X0 + 60, Y0, X0 + 90, Y0 + 30)]),
             MultiPolygon([box(X0 + 100, Y0, X0 + 120, Y0 + 20), box(X0 + 130, Y0, X0 + 150,
                                                                       Y0 + 20)]),
             hole_polygon(X0 + 200, Y0)]
    return gpd.GeoDataFrame({
        "LOC_ID": [101, 102, None, 104],
        "NAME": ["a", None, "ç", "d"],
        "AREA": [1.5, None, 3.0, 4.25],
        "SEEN": [dt.date(2024, 1, 2), None, dt.date(2025, 3, 4), dt.date(2025, 3, 5)],
        "WHEN": pd.to_datetime(["2024-01-02 03:04:05", None, "2025-03-04 00:00:00",
                                "2025-03-05 12:00:00"]),
    }, geometry=geoms, crs=CRS)


def spec_for(path, layer: str | None = None) -> LayerSpec:
    return LayerSpec(key="parcels", path=str(path), layer=layer)


@pytest.mark.parametrize("area", [{}, {"bbox": (X0 - 1, Y0 - 1, X0 + 95, Y0 + 60)},
                                  {"where": "LOC_ID >= 102"}])
def test_frame_is_pyogrios_and_the_wkb_is_its_geometries(tmp_path, area):
    path = tmp_path / "p.gpkg"
    mixed_frame().to_file(path, layer="parcels", driver="GPKG")
    spec = spec_for(path, "parcels")
    info = pyogrio.read_info(str(path), layer="parcels")
    columns = list(info["fields"])
    ours, wkb = read_source_and_wkb(spec, info, columns=columns, **area)
    theirs = pyogrio.read_dataframe(str(path), layer="parcels", columns=columns,
                                    use_arrow=True, **area)
    pd.testing.assert_frame_equal(pd.DataFrame(ours), pd.DataFrame(theirs))
    assert ours.crs == theirs.crs
    assert len(wkb) == len(ours) >= 1
    assert shapely.equals_exact(shapely.from_wkb(wkb.to_numpy(zero_copy_only=False)),
                                ours.geometry.values.to_numpy(), tolerance=0).all()


@pytest.mark.parametrize("driver, name", [("ESRI Shapefile", "p.shp"), ("GeoJSON", "p.geojson")])
def test_other_formats_read_as_pyogrio_reads_them(tmp_path, driver, name):
    path = tmp_path / name
    mixed_frame().drop(columns=["WHEN"]).to_file(path, driver=driver)
    spec = spec_for(path)
    info = pyogrio.read_info(str(path))
    columns = list(info["fields"])
    source_cache.use_folder(None)  # the source cache off: GDAL reads it
    ours, wkb = read_source_and_wkb(spec, info, columns=columns)
    theirs = pyogrio.read_dataframe(str(path), columns=columns, use_arrow=True)
    pd.testing.assert_frame_equal(pd.DataFrame(ours), pd.DataFrame(theirs))
    assert wkb is not None and len(wkb) == 4


def one_town(tmp_path, frame: gpd.GeoDataFrame):
    return load_config(write_town(tmp_path, {"parcels": frame}))


def test_the_layer_keeps_the_wkb_of_its_rows_in_order(tmp_path):
    frame = mixed_frame()
    config = one_town(tmp_path, frame)
    layer = layers.read_layer_with_source(config, "parcels", use_arrow=True, keep_wkb=True,
                                          bbox=(X0 + 55, Y0 - 1, X0 + 250, Y0 + 60))
    assert len(layer.wkb) == len(layer.frame) == 3  # the first box is outside the box read
    assert shapely.equals_exact(shapely.from_wkb(layer.wkb.to_numpy(zero_copy_only=False)),
                                layer.frame.geometry.values.to_numpy(), tolerance=0).all()
    plain = layers.read_layer_with_source(config, "parcels", use_arrow=True)
    assert plain.wkb is None  # not asked


def test_no_wkb_after_a_reprojection(tmp_path):
    frame = mixed_frame().to_crs("EPSG:26919")
    path = write_town(tmp_path, {"parcels": frame})
    config = load_config(path)  # the working CRS is EPSG:26986, the source's UTM 19N
    layer = layers.read_layer_with_source(config, "parcels", keep_wkb=True)
    assert len(layer.frame) == 4 and layer.wkb is None


def test_no_wkb_after_a_repair_or_a_dropped_empty_geometry(tmp_path):
    bowtie = Polygon([(X0, Y0), (X0 + 10, Y0 + 10), (X0 + 10, Y0), (X0, Y0 + 10)])
    for sub in ("a", "b"):  # a town each
        (tmp_path / sub).mkdir()
    repaired = mixed_frame()
    repaired.loc[0, "geometry"] = bowtie
    layer = layers.read_layer_with_source(one_town(tmp_path / "a", repaired), "parcels",
                                          keep_wkb=True)
    assert layer.repaired == 1 and layer.wkb is None
    emptied = mixed_frame()
    emptied.loc[1, "geometry"] = Polygon()
    layer = layers.read_layer_with_source(one_town(tmp_path / "b", emptied), "parcels",
                                          keep_wkb=True)
    assert layer.dropped_empty == 1 and layer.wkb is None


# --------------------------------------------------------------------------- as written
def encodings(geom, byte_order: int, z: bool) -> bytes:
    if z:
        geom = shapely.force_3d(geom, 7.0)
    return shapely.to_wkb(geom, byte_order=byte_order)


def test_as_written_by_hand():
    geoms = np.array([box(0, 0, 1, 1), MultiPolygon([box(0, 0, 1, 1)]),
                      MultiPolygon([box(0, 0, 1, 1), box(2, 2, 3, 3)]), box(0, 0, 1, 1),
                      hole_polygon(0, 0)], dtype=object)
    source = pa.array([shapely.to_wkb(geoms[0], byte_order=1),
                       shapely.to_wkb(geoms[1], byte_order=1),
                       shapely.to_wkb(geoms[2], byte_order=1),  # two parts: encoded anew
                       shapely.to_wkb(geoms[3], byte_order=0),  # big-endian: encoded anew
                       shapely.to_wkb(geoms[4], byte_order=1)], type=pa.binary())
    out = write.as_written(geoms, source)
    assert out.equals(write._multipolygon_wkb(geoms))
    # the one-part header (9 bytes) in front of a polygon's own bytes, the rest as read
    assert out[0].as_py() == b"\x01\x06\x00\x00\x00\x01\x00\x00\x00" + source[0].as_py()
    assert out[1].as_py() == source[1].as_py()
    assert out[3].as_py()[:1] == b"\x01"  # written little-endian, like every other row


@settings(max_examples=150, deadline=None)
@given(rows=st.lists(st.tuples(st.sampled_from(["box", "hole", "multi1", "multi2"]),
                               st.sampled_from([0, 1]), st.booleans(),
                               st.floats(-1e6, 1e6, allow_nan=False)),
                     min_size=1, max_size=12))
def test_as_written_is_the_encoding_of_the_geometries(rows):
    shapes = {"box": lambda x: box(x, 0, x + 3, 2), "hole": lambda x: hole_polygon(x, 0),
              "multi1": lambda x: MultiPolygon([box(x, 0, x + 1, 1)]),
              "multi2": lambda x: MultiPolygon([box(x, 0, x + 1, 1), box(x + 2, 0, x + 3, 1)])}
    geoms = [shapes[kind](x) for kind, _, _, x in rows]
    source = pa.array([encodings(g, order, z) for g, (_, order, z, _) in
                       zip(geoms, rows, strict=True)], type=pa.binary())
    decoded = shapely.from_wkb(source.to_numpy(zero_copy_only=False))
    assert write.as_written(decoded, source).equals(write._multipolygon_wkb(decoded))


@pytest.mark.parametrize("config_path", [SAMPLE_CONFIG, CAMBRIDGE_CONFIG])
def test_tiles_are_the_same_tables_with_the_source_bytes(config_path):
    config = load_config(config_path)
    planned, overlays, _ = ap.plan_tiles(config, chunk_size=1_000)
    kept = 0
    for tile in planned:
        result, read = tiles.classify_tile_read(config, tile, overlays)
        if read.wkb is not None:
            kept += len(read.wkb)
            assert len(read.wkb) == len(result)
        assert write.to_batch(result, source_wkb=read.wkb).equals(write.to_batch(result))
    if config_path == SAMPLE_CONFIG:  # the sample's parcels are in the working CRS: kept
        assert kept > 1_000


def test_a_pyogrio_without_the_pieces_reads_as_before(tmp_path, monkeypatch):
    """Where pyogrio's internals the frame is built with are missing (another pyogrio),
    its own reader reads the rows, and no WKB is kept."""
    from swm_gis.io import source_read

    monkeypatch.setattr(source_read, "_pyogrio_steps", lambda: None)
    path = tmp_path / "p.gpkg"
    mixed_frame().to_file(path, layer="parcels", driver="GPKG")
    info = pyogrio.read_info(str(path), layer="parcels")
    ours, wkb = read_source_and_wkb(spec_for(path, "parcels"), info,
                                    columns=list(info["fields"]))
    theirs = pyogrio.read_dataframe(str(path), layer="parcels", use_arrow=True)
    assert wkb is None
    pd.testing.assert_frame_equal(pd.DataFrame(ours), pd.DataFrame(theirs))

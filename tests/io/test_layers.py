import os

import geopandas as gpd
import numpy as np
import pyogrio
import pytest
import rasterio
from pyproj import Transformer
from rasterio.transform import from_origin
from shapely.geometry import Point, Polygon, box
from support.townkit import CRS, write_town

from swm_gis.config.town import load_config
from swm_gis.errors import (
    CrsError,
    EmptyLayerError,
    FieldMissingError,
    GeometryError,
    InputFileError,
    UnknownParcelError,
)
from swm_gis.io import layers as io
from swm_gis.io.hygiene import duplicate_ids
from swm_gis.io.sources import split_source


def test_reads_logical_fields_case_insensitively(tmp_path, simple_parcels):
    lower = simple_parcels.rename(columns={"LOC_ID": "loc_id"})
    cfg = load_config(write_town(tmp_path, {"parcels": lower}))
    layer = io.read_layer_with_source(cfg, "parcels")
    gdf = layer.frame
    assert list(gdf.columns) == ["id", "map_par_id", "town_id", "poly_type", "use_code",
                                 "geometry"]
    assert gdf["id"].tolist() == ["M_1", "M_2", "M_3"]
    assert gdf["use_code"].isna().all()  # optional field absent from the source
    assert gdf.crs.to_epsg() == 26986
    assert layer.source["file"].endswith("town.gpkg")
    assert layer.source["modified"] is not None
    assert layer.field_map["id"] == "loc_id"
    assert gdf.attrs == {}  # provenance travels in the Layer, never in DataFrame.attrs


def test_missing_required_field_names_the_config_key(tmp_path, simple_parcels):
    cfg = load_config(write_town(tmp_path, {"parcels": simple_parcels.drop(columns="LOC_ID")}))
    with pytest.raises(FieldMissingError) as info:
        io.read_layer(cfg, "parcels")
    msg = str(info.value)
    assert '[layers.parcels.fields] id = "<field name>"' in msg
    assert '"LOC_ID"' in msg and "MAP_PAR_ID" in msg  # lists the fields that are there


def test_explicitly_mapped_optional_field_must_exist(tmp_path, simple_parcels):
    toml = write_town(tmp_path, {"parcels": simple_parcels})
    toml.write_text(toml.read_text() + '[layers.parcels.fields]\ntown_id = "TOWN"\n')
    with pytest.raises(FieldMissingError, match="town_id"):
        io.read_layer(load_config(toml), "parcels")


def test_source_without_crs_is_refused_unless_config_declares_it(tmp_path):
    path = tmp_path / "nocrs.geojson"
    path.write_text('{"type":"FeatureCollection","features":[{"type":"Feature","properties":'
                    '{"LOC_ID":"A"},"geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],'
                    '[1,1],[0,1],[0,0]]]}}]}')
    # GeoJSON is WGS84 by definition, so use a TopoJSON-like case: strip the CRS via a shapefile
    shp = tmp_path / "nocrs.shp"
    gpd.GeoDataFrame({"LOC_ID": ["A"]}, geometry=[box(238000, 918000, 238010, 918010)]).to_file(shp)
    assert pyogrio.read_info(shp)["crs"] is None
    toml = tmp_path / "t.toml"
    toml.write_text('[town]\nname = "T"\n[layers.parcels]\npath = "nocrs.shp"\n')
    with pytest.raises(CrsError) as info:
        io.read_layer(load_config(toml), "parcels")
    assert '[layers.parcels] crs = "EPSG:...' in str(info.value)
    toml.write_text('[town]\nname = "T"\n[layers.parcels]\npath = "nocrs.shp"\n'
                    'crs = "EPSG:26986"\n')
    gdf = io.read_layer(load_config(toml), "parcels")
    assert gdf.geometry.iloc[0].area == pytest.approx(100.0)


def test_geographic_source_is_reprojected_once_into_working_crs(tmp_path):
    lon, lat = -71.03, 42.53
    pt = gpd.GeoDataFrame({"CVP_NUM": ["7"]}, geometry=[Point(lon, lat)], crs="EPSG:4326")
    cfg = load_config(write_town(tmp_path, {"parcels": gpd.GeoDataFrame(
        {"LOC_ID": ["A"]}, geometry=[box(238000, 919000, 239000, 921000)], crs=CRS),
        "vernal_pools": pt}))
    layer = io.read_layer_with_source(cfg, "vernal_pools")
    gdf = layer.frame
    x, y = Transformer.from_crs("EPSG:4326", CRS, always_xy=True).transform(lon, lat)
    assert gdf.geometry.iloc[0].x == pytest.approx(x, abs=1e-6)
    assert gdf.geometry.iloc[0].y == pytest.approx(y, abs=1e-6)
    assert layer.source_crs == "EPSG:4326"


def test_bbox_filter_reads_only_the_neighbourhood(tmp_path):
    boxes = [box(238000 + 100 * i, 918000, 238050 + 100 * i, 918050) for i in range(50)]
    parcels = gpd.GeoDataFrame({"LOC_ID": [f"M_{i}" for i in range(50)]}, geometry=boxes,
                               crs=CRS)
    cfg = load_config(write_town(tmp_path, {"parcels": parcels}))
    gdf = io.read_layer(cfg, "parcels", bbox=(238140, 918000, 238310, 918010))
    # M_1 spans x 238100-238150, M_2 238200-238250, M_3 238300-238350; M_0 and M_4.. lie outside
    assert sorted(gdf["id"]) == ["M_1", "M_2", "M_3"]


def test_invalid_geometry_repaired_and_empty_dropped_and_counted(tmp_path):
    # In Massachusetts: coordinates near 0, 0 cannot be EPSG:26986 and are refused.
    bowtie = Polygon([(238000, 918000), (238010, 918010), (238010, 918000), (238000, 918010),
                      (238000, 918000)])
    parcels = gpd.GeoDataFrame({"LOC_ID": ["bow", "ok", "empty"]},
                               geometry=[bowtie, box(238020, 918000, 238030, 918010), Polygon()],
                               crs=CRS)
    cfg = load_config(write_town(tmp_path, {"parcels": parcels}))
    layer = io.read_layer_with_source(cfg, "parcels")
    gdf = layer.frame
    assert layer.repaired == 1 and layer.dropped_empty == 1
    assert gdf["id"].tolist() == ["bow", "ok"]
    assert gdf.geometry.is_valid.all()
    assert gdf.geometry.iloc[0].area == pytest.approx(50.0)  # two triangles of 25 m2


def test_duplicate_parcel_ids_are_one_parcel(simple_parcels):
    dup = simple_parcels.assign(id=["A", "B", "A"]).drop(columns="LOC_ID")
    merged = io.merge_duplicate_ids(dup)
    assert duplicate_ids(dup) == ["A"]
    assert sorted(merged["id"]) == ["A", "B"]
    assert merged.set_index("id").geometry["A"].area == pytest.approx(800.0)
    assert len(dup) == 3  # input untouched


def test_missing_file_layer_and_unreadable_file(tmp_path, simple_parcels):
    toml = tmp_path / "t.toml"
    toml.write_text('[town]\nname = "T"\n[layers.parcels]\npath = "missing.gpkg"\n')
    with pytest.raises(InputFileError, match="File not found: .*missing.gpkg"):
        io.read_layer(load_config(toml), "parcels")
    write_town(tmp_path, {"parcels": simple_parcels})
    toml.write_text('[town]\nname = "T"\n[layers.parcels]\npath = "town.gpkg"\nlayer = "nope"\n')
    with pytest.raises(InputFileError,
                       match=r'Layer "nope" not found.*Layers in the source: parcels'):
        io.read_layer(load_config(toml), "parcels")
    (tmp_path / "junk.gpkg").write_bytes(b"this is not a geopackage")
    toml.write_text('[town]\nname = "T"\n[layers.parcels]\npath = "junk.gpkg"\n')
    with pytest.raises(InputFileError, match="Cannot read .*junk.gpkg"):
        io.read_layer(load_config(toml), "parcels")


def test_empty_layer_and_wrong_geometry(tmp_path, simple_parcels):
    pts = gpd.GeoDataFrame({"LOC_ID": ["P"]}, geometry=[Point(0, 0)], crs=CRS)
    cfg = load_config(write_town(tmp_path, {"parcels": pts}))
    with pytest.raises(GeometryError, match="holds Point features; the parcels layer needs "
                                            "polygon features"):
        io.read_layer(cfg, "parcels")
    cfg = load_config(write_town(tmp_path, {"parcels": simple_parcels}))
    with pytest.raises(EmptyLayerError, match="no features in the area asked for"):
        io.read_layer(cfg, "parcels", bbox=(0, 0, 1, 1), allow_empty=False)


def test_read_table_keeps_zip_leading_zeros_and_filters(tmp_path, simple_parcels):
    csv = tmp_path / "assess.csv"
    csv.write_text("LOC_ID,OWNER1,OWN_ZIP\nM_1,SMITH JOHN,01940\nM_2,DOE JANE,01940-1234\n",
                   encoding="utf-8")
    toml = write_town(tmp_path, {"parcels": simple_parcels})
    toml.write_text(toml.read_text() + '[layers.assess]\npath = "assess.csv"\n')
    df = io.read_table(load_config(toml), "assess", where=io.sql_in("LOC_ID", ["M_2", "O'X"]))
    assert df["zip"].tolist() == ["01940-1234"]
    df = io.read_table(load_config(toml), "assess")
    assert df["zip"].tolist() == ["01940", "01940-1234"]
    assert df["country"].isna().all()


def test_read_column_reads_one_logical_field_without_geometry(tmp_path, simple_parcels):
    cfg = load_config(write_town(tmp_path, {"parcels": simple_parcels}))
    ids = io.read_column(cfg, "parcels", "id")
    assert ids.name == "id" and ids.tolist() == ["M_1", "M_2", "M_3"]
    assert io.read_column(cfg, "parcels", "use_code").empty  # optional field not in the source


def test_read_parcels_by_id_names_unknown_ids_and_matches_numeric_fields(tmp_path,
                                                                          simple_parcels):
    numeric = simple_parcels.assign(LOC_ID=[101, 102, 103])
    cfg = load_config(write_town(tmp_path, {"parcels": numeric}))
    got = io.read_parcels_by_id(cfg, ["103", "101", "101"])
    assert sorted(got["id"]) == ["101", "103"]  # text ids, integer field
    with pytest.raises(UnknownParcelError) as info:
        io.read_parcels_by_id(cfg, ["101", "999", "X-1"])
    assert 'Parcel id(s) 999, X-1 not found in field "LOC_ID"' in str(info.value)
    assert io.read_by_ids(cfg, "parcels", "id", []).empty


def test_split_source(tmp_path):
    gpkg = tmp_path / "a.gpkg"
    gpkg.write_bytes(b"")
    assert split_source(f"{gpkg}:site") == (str(gpkg), "site")
    assert split_source(str(gpkg)) == (str(gpkg), None)


def _write_raster(path, crs=CRS, origin=(238000, 918100)):
    arr = np.arange(100, dtype="float32").reshape(10, 10)
    with rasterio.open(path, "w", driver="GTiff", width=10, height=10, count=1, dtype="float32",
                       crs=crs, transform=from_origin(*origin, 10, 10), nodata=-9999) as dst:
        dst.write(arr, 1)


def test_raster_window_crs_and_cover(tmp_path, simple_parcels):
    _write_raster(tmp_path / "dem.tif")
    toml = write_town(tmp_path, {"parcels": simple_parcels})
    toml.write_text(toml.read_text() + '[layers.dem]\npath = "dem.tif"\n')
    cfg = load_config(toml)
    r = io.read_raster(cfg, "dem", bounds=(238020, 918020, 238040, 918040), pad_cells=0)
    assert r.array.shape == (2, 2)
    assert r.array[0, 0] == 62.0  # row 6 (918040 is 6 cells below the top), column 2
    assert r.cell_size == (10.0, 10.0)
    with pytest.raises(InputFileError, match="covers x 238000..238100"):
        io.read_raster(cfg, "dem", bounds=(237000, 918000, 238050, 918050))
    _write_raster(tmp_path / "nocrs.tif", crs=None)
    toml.write_text(toml.read_text().replace("dem.tif", "nocrs.tif"))
    with pytest.raises(CrsError, match=r'\[layers.dem\] crs = "EPSG:26986"'):
        io.read_raster(load_config(toml), "dem")


def test_inputs_are_never_modified(tmp_path, simple_parcels):
    cfg = load_config(write_town(tmp_path, {"parcels": simple_parcels}))
    gpkg = tmp_path / "town.gpkg"
    before = (gpkg.read_bytes(), os.path.getmtime(gpkg))
    io.read_layer(cfg, "parcels")
    assert (gpkg.read_bytes(), os.path.getmtime(gpkg)) == before


def test_a_line_among_parcel_polygons_is_named_with_its_count(tmp_path):
    """A layer of mixed geometry (GPKG type GEOMETRY) with one line among the polygons: the
    read stops and says how many features are of which type."""
    from shapely.geometry import LineString

    from swm_gis.errors import GeometryError

    parcels = gpd.GeoDataFrame(
        {"LOC_ID": ["A", "B", "C"], "POLY_TYPE": ["FEE"] * 3},
        geometry=[box(230_000, 900_000, 230_050, 900_050),
                  box(230_100, 900_000, 230_150, 900_050),
                  LineString([(230_200, 900_000), (230_250, 900_050)])], crs=CRS)
    cfg = load_config(write_town(tmp_path, {"parcels": parcels}))
    with pytest.raises(GeometryError, match=r"should hold polygon features but 1 are LineString"):
        io.read_layer(cfg, "parcels")

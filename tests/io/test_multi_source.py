"""A layer read from several sources (README "Where layers may live"): a town's parcels and its
neighbour's.

Layout (EPSG:26986, metres): the town's parcels T_1..T_3 are 20 m squares in a row from x=0;
the neighbour's N_1, N_2 continue the row from x=60, and its extract repeats the town's T_3
(the edge strip), slightly differently drawn. The neighbour's file is in EPSG:2249 (feet) with
lower-case field names.
"""

from __future__ import annotations

import csv
import zipfile
from pathlib import Path

import geopandas as gpd
import pyogrio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import box
from support.townkit import CRS

from swm_gis.cli import main
from swm_gis.config.town import load_config, parse_config
from swm_gis.errors import ConfigError
from swm_gis.io import layers as io

X0, Y0 = 238000.0, 918000.0


def square(i: int, grow: float = 0.0):
    return box(X0 + 20 * i - grow, Y0 - grow, X0 + 20 * i + 20 + grow, Y0 + 20 + grow)


def town_frame() -> gpd.GeoDataFrame:
    return gpd.GeoDataFrame({"LOC_ID": ["T_1", "T_2", "T_3"], "TOWN_ID": [164] * 3,
                             "POLY_TYPE": ["FEE"] * 3}, geometry=[square(i) for i in range(3)],
                            crs=CRS)


def neighbour_frame() -> gpd.GeoDataFrame:
    return gpd.GeoDataFrame({"loc_id": ["T_3", "N_1", "N_2"], "town_id": [163] * 3,
                             "poly_type": ["FEE"] * 3},
                            geometry=[square(2, grow=0.5), square(3), square(4)], crs=CRS
                            ).to_crs("EPSG:2249")


@pytest.fixture
def two_towns(tmp_path) -> Path:
    town_frame().to_file(tmp_path / "town.gpkg", layer="parcels")
    neighbour_frame().to_file(tmp_path / "neighbour.gpkg", layer="M163TaxPar")
    toml = tmp_path / "town.toml"
    toml.write_text(f'''[town]
name = "Edgetown"
crs = "{CRS}"
[layers.parcels]
path = ["town.gpkg", "neighbour.gpkg"]
layer = ["parcels", "M163TaxPar"]
''', encoding="utf-8")
    return toml


def test_sources_read_as_one_layer_each_row_naming_its_source(two_towns, tmp_path):
    cfg = load_config(two_towns)
    spec = cfg.layer("parcels")
    assert [p.describe() for p in spec.parts] == [f"{tmp_path}/town.gpkg:parcels",
                                                  f"{tmp_path}/neighbour.gpkg:M163TaxPar"]
    layer = io.read_layer_with_source(cfg, "parcels")
    got = layer.frame
    assert got["id"].tolist() == ["T_1", "T_2", "T_3", "N_1", "N_2"]
    assert got["source"].tolist() == [spec.parts[0].describe()] * 3 + [
        spec.parts[1].describe()] * 2
    assert got["town_id"].astype(int).tolist() == [164, 164, 164, 163, 163]
    assert got.crs.to_epsg() == 26986
    assert got.area.round(3).tolist() == [400.0] * 5  # the town's own T_3 kept (first wins)
    assert layer.duplicates_across_sources == ["T_3"]
    assert [s["file"] for s in layer.source["sources"]] == [
        str(tmp_path / "town.gpkg"), str(tmp_path / "neighbour.gpkg")]


def test_filters_ids_and_columns_work_across_sources(two_towns):
    cfg = load_config(two_towns)
    near = io.read_layer(cfg, "parcels", bbox=(X0 + 55, Y0 + 5, X0 + 65, Y0 + 10))
    assert near["id"].tolist() == ["T_3", "N_1"]
    assert sorted(io.read_column(cfg, "parcels", "id")) == ["N_1", "N_2", "T_1", "T_2", "T_3"]
    both = io.read_parcels_by_id(cfg, ["N_2", "T_1", "T_3"])
    assert sorted(both["id"]) == ["N_2", "T_1", "T_3"]
    assert both.loc[both["id"] == "T_3"].area.round(3).tolist() == [400.0]


def test_source_extents_tell_where_each_source_has_data(two_towns):
    extents = io.source_extents(load_config(two_towns), "parcels")
    assert [e["features"] for e in extents] == [3, 3]
    assert extents[0]["bounds"] == pytest.approx((X0, Y0, X0 + 60, Y0 + 20))
    assert extents[1]["bounds"] == pytest.approx((X0 + 39.5, Y0 - 0.5, X0 + 100, Y0 + 20.5),
                                                 abs=0.01)
    info = io.layer_info(load_config(two_towns).layer("parcels"))
    assert info["features"] == 6


def test_abutters_reach_into_the_neighbours_parcels(two_towns, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["--progress", "none", "abutters", "--config", str(two_towns), "--parcel",
                 "T_3", "--out", str(out)]) == 0, capsys.readouterr().err
    with (out / "abutting_parcels.csv").open(encoding="utf-8-sig") as f:
        ids = [row["parcel_id"] for row in csv.DictReader(f)
               if not row["parcel_id"].startswith("#")]  # the footer notes
    assert set(ids) == {"T_1", "T_2", "N_1", "N_2"}  # T_1 and N_2 lie 20 m (66 ft) away


def test_a_zip_among_the_sources(tmp_path):
    town_frame().to_file(tmp_path / "town.gpkg", layer="parcels")
    shp_dir = tmp_path / "shp"
    shp_dir.mkdir()
    pyogrio.write_dataframe(neighbour_frame(), shp_dir / "M163TaxPar_CY25_FY25.shp")
    with zipfile.ZipFile(tmp_path / "L3_SHP_M163_LYNN.zip", "w") as zf:
        for f in shp_dir.iterdir():
            zf.write(f, f"L3_SHP_M163_Lynn/{f.name}")
    cfg = parse_config({"town": {"name": "T"}, "layers": {"parcels": {
        "path": ["town.gpkg", "L3_SHP_M163_LYNN.zip"],
        "layer": ["parcels", "M163TaxPar_CY25_FY25"]}}}, base_dir=tmp_path)
    assert io.read_layer(cfg, "parcels")["id"].tolist() == ["T_1", "T_2", "T_3", "N_1", "N_2"]


@pytest.mark.parametrize(("layers", "paths", "needle"), [
    ({"path": []}, None, "needs path"),
    ({"path": ["a.gpkg", ""]}, None, "must be a file or GDAL source"),
    ({"path": ["a.gpkg", 3]}, None, "must be a file or GDAL source"),
    ({"path": ["a.gpkg", "b.gpkg"], "layer": ["x"]}, None, "one layer name per path"),
    ({"path": "a.gpkg", "layer": ["x"]}, None, "one layer name per path"),
    ({"path": 7}, None, "must be a file or GDAL source"),
    ({"path": "a.gpkg", "layer": 5}, None, "layer = 5 must be a text value"),
])
def test_bad_source_lists_are_config_errors(layers, paths, needle):
    with pytest.raises(ConfigError, match=needle):
        parse_config({"town": {"name": "T"}, "layers": {"parcels": layers}}, base_dir=Path("/"))


def test_a_missing_source_is_named(two_towns, tmp_path):
    (tmp_path / "neighbour.gpkg").unlink()
    with pytest.raises(Exception, match="neighbour.gpkg"):
        io.read_layer(load_config(two_towns), "parcels")


@settings(max_examples=25, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["A", "B", "C", "D"]), max_size=4), min_size=1,
                max_size=4))
def test_each_id_comes_from_the_first_source_that_has_it(tmp_path_factory, sources):
    """Property: the ids read are exactly the union, each from the first source holding it,
    and ids repeated within one source are all kept."""
    folder = tmp_path_factory.mktemp("multi")
    paths = []
    for n, ids in enumerate(sources):
        frame = gpd.GeoDataFrame({"LOC_ID": ids or ["Z"]},
                                 geometry=[square(i) for i in range(len(ids) or 1)], crs=CRS)
        frame.to_file(folder / f"s{n}.gpkg", layer="p")
        paths.append(str(folder / f"s{n}.gpkg"))
    cfg = parse_config({"town": {"name": "T"}, "layers": {"parcels": {
        "path": paths, "layer": "p"}}}, base_dir=folder)
    got = io.read_layer(cfg, "parcels")
    expected = []
    seen: set[str] = set()
    for n, ids in enumerate(sources):
        ids = ids or ["Z"]
        expected += [(i, n) for i in ids if i not in seen]
        seen |= set(ids)
    names = {p: n for n, p in enumerate(paths)}
    assert [(i, names[s.rsplit(":", 1)[0]]) for i, s in zip(got["id"], got["source"],
                                                              strict=True)] == expected

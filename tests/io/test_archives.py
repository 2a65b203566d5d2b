"""Zip files as published, read in place: MassGIS L3 parcels, an NFHL-style geodatabase zip."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import geopandas as gpd
import pandas as pd
import pyogrio
import pytest
from shapely.geometry import box
from support.townkit import CRS

from swm_gis.cli import main
from swm_gis.config.town import load_config
from swm_gis.errors import CrsError, InputFileError
from swm_gis.io import archives
from swm_gis.io import layers as io
from swm_gis.validate import validate_config

X0, Y0 = 238000, 918000


def parcels_frame() -> gpd.GeoDataFrame:
    return gpd.GeoDataFrame(
        {"LOC_ID": ["F_1", "F_2", "F_3"], "MAP_PAR_ID": ["1-1", "1-2", "1-3"],
         "TOWN_ID": [164, 164, 164], "POLY_TYPE": ["FEE", "FEE", "ROW"]},
        geometry=[box(X0 + 20 * i, Y0, X0 + 20 * i + 20, Y0 + 20) for i in range(3)], crs=CRS)


def massgis_zip(tmp_path: Path, *, prj: bool = True) -> Path:
    """A zip built like MassGIS's L3_SHP_M164_LYNNFIELD.zip: a folder holding the parcel
    shapefile set (.shp .shx .dbf .prj .cpg) and the assessing table as a stand-alone .dbf."""
    work = tmp_path / "build"
    work.mkdir()
    shp = work / "M164TaxPar_CY25_FY25.shp"
    pyogrio.write_dataframe(parcels_frame(), shp, encoding="UTF-8")
    assess = pd.DataFrame({"LOC_ID": ["F_1", "F_2"], "OWNER1": ["SMITH JO\u00c9", "DOE ANN"],
                           "OWN_ZIP": ["01940", "01940"]})
    pyogrio.write_dataframe(assess, work / "M164Assess_CY25_FY25.dbf", driver="ESRI Shapefile",
                            encoding="UTF-8")
    out = tmp_path / "L3_SHP_M164_LYNNFIELD.zip"
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for f in sorted(work.iterdir()):
            if f.suffix == ".prj" and not prj:
                continue
            zf.write(f, f"L3_SHP_M164_Lynnfield/{f.name}")
        zf.writestr("L3_SHP_M164_Lynnfield/README.txt", "MassGIS L3 parcels (test copy)")
    return out


def write_config(tmp_path: Path, body: str) -> Path:
    toml = tmp_path / "town.toml"
    toml.write_text(f'[town]\nname = "Zipton"\ncrs = "{CRS}"\n{body}', encoding="utf-8")
    return toml


MASSGIS = '''
[layers.parcels]
path = "L3_SHP_M164_LYNNFIELD.zip"
layer = "M164TaxPar_CY25_FY25"
[layers.assess]
path = "L3_SHP_M164_LYNNFIELD.zip"
layer = "m164assess_cy25_fy25"
'''


def test_massgis_zip_reads_in_place_like_the_unpacked_files(tmp_path):
    z = massgis_zip(tmp_path)
    cfg = load_config(write_config(tmp_path, MASSGIS))
    before = sorted(os.listdir(tmp_path))
    layer = io.read_layer_with_source(cfg, "parcels")
    parcels = layer.frame
    assert parcels["id"].tolist() == ["F_1", "F_2", "F_3"]
    assert parcels.area.tolist() == [400.0, 400.0, 400.0]
    assert layer.source["file"] == str(z)
    assess = io.read_table(cfg, "assess")
    assert assess["owner"].tolist() == ["SMITH JO\u00c9", "DOE ANN"]  # the .cpg says UTF-8
    assert assess["zip"].tolist() == ["01940", "01940"]
    window = io.read_layer(cfg, "parcels", bbox=(X0 + 25, Y0 + 5, X0 + 30, Y0 + 10))
    assert window["id"].tolist() == ["F_2"]
    assert sorted(os.listdir(tmp_path)) == before  # nothing unpacked beside the zip
    assert io.read_parcels_by_id(cfg, ["F_3"])["poly_type"].tolist() == ["ROW"]


def test_zip_layer_listing_and_error_names_what_the_zip_holds(tmp_path):
    z = massgis_zip(tmp_path)
    names = [layer.name for layer in archives.zip_layers(str(z))]
    assert names == ["M164Assess_CY25_FY25", "M164TaxPar_CY25_FY25"]
    with pytest.raises(InputFileError, match=r"no layer \"M164TaxPar\". Layers in the zip: "
                                             r"M164Assess_CY25_FY25, M164TaxPar_CY25_FY25"):
        archives.resolve_zip(str(z), "M164TaxPar", what="test")
    with pytest.raises(InputFileError, match="several layers"):
        archives.resolve_zip(str(z), None, what="test")


def test_data_validate_lists_the_zip_when_the_layer_is_missing(tmp_path, capsys):
    massgis_zip(tmp_path)
    toml = write_config(tmp_path, MASSGIS.replace('layer = "M164TaxPar_CY25_FY25"',
                                                  'layer = "M164TaxPar"'))
    assert main(["--progress", "none", "data", "validate", "--config", str(toml)]) == 2
    printed = capsys.readouterr()
    assert "Layers in the zip: M164Assess_CY25_FY25, M164TaxPar_CY25_FY25" in \
        " ".join((printed.out + printed.err).split())
    report = {r.key: r for r in validate_config(load_config(toml))}
    assert report["assess"].error is None and report["assess"].rows == 2
    assert "Layers in the zip: M164Assess_CY25_FY25, M164TaxPar_CY25_FY25" in \
        report["parcels"].error


def test_zip_without_prj_needs_the_config_crs(tmp_path):
    massgis_zip(tmp_path, prj=False)
    with pytest.raises(CrsError, match="declares no coordinate reference system"):
        io.read_layer(load_config(write_config(tmp_path, MASSGIS)), "parcels")
    body = MASSGIS.replace('layer = "M164TaxPar_CY25_FY25"',
                           'layer = "M164TaxPar_CY25_FY25"\ncrs = "EPSG:26986"')
    assert len(io.read_layer(load_config(write_config(tmp_path, body)), "parcels")) == 3


def test_geodatabase_zip_like_the_nfhl(tmp_path):
    gdb = tmp_path / "NFHL_25_20250101.gdb"
    zones = gpd.GeoDataFrame({"FLD_ZONE": ["AE", "X"], "ZONE_SUBTY": [None, "0.2 PCT"],
                              "SFHA_TF": ["T", "F"], "STATIC_BFE": [12.0, -9999.0]},
                             geometry=[box(X0, Y0, X0 + 30, Y0 + 30),
                                       box(X0 + 30, Y0, X0 + 60, Y0 + 30)], crs=CRS)
    pyogrio.write_dataframe(zones.to_crs("EPSG:4269"), gdb, layer="S_FLD_HAZ_AR",
                            driver="OpenFileGDB")
    pyogrio.write_dataframe(zones.iloc[:1], gdb, layer="S_BFE", driver="OpenFileGDB")
    z = tmp_path / "NFHL_25_20250101.zip"
    with zipfile.ZipFile(z, "w") as zf:
        for f in sorted(gdb.iterdir()):
            zf.write(f, f"{gdb.name}/{f.name}")
    parcels = tmp_path / "p.gpkg"
    parcels_frame().to_file(parcels, layer="parcels")
    cfg = load_config(write_config(tmp_path, f'''
[layers.parcels]
path = "p.gpkg"
[layers.flood_zones]
path = "{z.name}"
layer = "s_fld_haz_ar"
'''))
    got = io.read_layer(cfg, "flood_zones")
    assert got["zone"].tolist() == ["AE", "X"]
    assert got.crs.to_epsg() == 26986 and got.area.round(0).tolist() == [900.0, 900.0]
    names = {layer.name for layer in archives.zip_layers(str(z))}
    assert {"S_FLD_HAZ_AR", "S_BFE"} <= names


@pytest.mark.parametrize("content", [b"", b"PK\x03\x04 not really a zip", b"\x00" * 64])
def test_broken_zip_is_a_clear_error(tmp_path, content):
    (tmp_path / "L3_SHP_M164_LYNNFIELD.zip").write_bytes(content)
    cfg = load_config(write_config(tmp_path, MASSGIS))
    with pytest.raises(InputFileError, match="not a readable zip file"):
        io.read_layer(cfg, "parcels")


def test_hostile_member_names_are_not_unpacked(tmp_path):
    """A member named ../../x.shp is only ever read through /vsizip/, never written out."""
    z = tmp_path / "evil.zip"
    work = tmp_path / "w"
    work.mkdir()
    pyogrio.write_dataframe(parcels_frame(), work / "p.shp")
    with zipfile.ZipFile(z, "w") as zf:
        for f in work.iterdir():
            zf.write(f, f"../../{f.name}")
    cfg = load_config(write_config(tmp_path, '[layers.parcels]\npath = "evil.zip"\n'))
    try:
        frame = io.read_layer(cfg, "parcels")
        assert len(frame) == 3
    except InputFileError:
        pass  # GDAL may refuse such a member: a clear error is as good
    assert not (tmp_path.parent / "p.shp").exists()


def test_a_zipped_raster_reads_in_place(tmp_path):
    """A DEM published as a zipped GeoTIFF (e.g. a MassGIS LiDAR tile): the same cells."""
    from support.townkit import REPO

    dem = REPO / "data" / "sample" / "dem.tif"
    with zipfile.ZipFile(tmp_path / "dem.zip", "w") as zf:
        zf.write(dem, "tiles/dem.tif")
    parcels_frame().to_file(tmp_path / "p.gpkg", layer="parcels")
    zipped = load_config(write_config(tmp_path, '[layers.parcels]\npath = "p.gpkg"\n'
                                                 '[layers.dem]\npath = "dem.zip"\n'))
    plain = load_config(write_config(tmp_path, '[layers.parcels]\npath = "p.gpkg"\n'
                                                f'[layers.dem]\npath = "{dem}"\n'))
    assert io.is_raster(zipped.layer("dem"))
    a, b = io.read_raster(zipped, "dem"), io.read_raster(plain, "dem")
    assert a.transform == b.transform and (a.array == b.array).all()
    assert a.source["file"] == str(tmp_path / "dem.zip")

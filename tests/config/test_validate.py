"""`swm-gis data validate` on broken copies of the sample town: each bad input gives its own
message and exit code 2, never a traceback."""

import shutil

import geopandas as gpd
import pytest
from shapely.geometry import Polygon
from support.townkit import SAMPLE_CONFIG

from swm_gis.cli import main
from swm_gis.config.town import load_config
from swm_gis.validate import validate_config


@pytest.fixture
def sample_copy(tmp_path):
    """The sample town's folder copied, so it can be broken without touching the original."""
    dst = tmp_path / "sample"
    shutil.copytree(SAMPLE_CONFIG.parent, dst)
    return dst / "town.toml"


def _validate(toml, capsys):
    code = main(["--progress", "none", "data", "validate", "--config", str(toml)])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def _edit(toml, old, new):
    text = toml.read_text(encoding="utf-8")
    assert old in text, old
    toml.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_the_unbroken_copy_passes(sample_copy, capsys):
    code, text = _validate(sample_copy, capsys)
    assert code == 0, text
    n = len(load_config(sample_copy).layers)
    assert f"{n} of {n} layers passed" in text


@pytest.mark.parametrize(
    ("old", "new", "fragments"),
    [
        ('path = "dem.tif"', 'path = "missing_dem.tif"', ["File not found", "missing_dem.tif"]),
        ('layer = "flood_zones"', 'layer = "fema"', ['Layer "fema" not found', "flood_zones"]),
        ('crs = "EPSG:26986"', 'crs = "EPSG:4326"', ["geographic", 'crs = "EPSG:26986"']),
        ('layer = "parcels"', 'layer = "parcels"\nfields = { id = "PARCEL_NO" }',
         ['no field "PARCEL_NO"', '[layers.parcels.fields] id = "<field name>"']),
        ('[layers.assess]', '[layers.assess', ["not valid TOML"]),
    ],
    ids=["missing-file", "missing-layer", "geographic-working-crs", "missing-field", "bad-toml"],
)
def test_broken_config_exits_2_with_a_specific_message(sample_copy, capsys, old, new, fragments):
    _edit(sample_copy, old, new)
    code, text = _validate(sample_copy, capsys)
    assert code == 2
    assert "Traceback" not in text
    for fragment in fragments:
        assert fragment in text


def test_missing_field_names_the_config_key(sample_copy, capsys):
    text = sample_copy.read_text(encoding="utf-8")
    sample_copy.write_text(text + '\n[layers.huc12.fields]\nhuc = "HUC_12"\n', encoding="utf-8")
    code, out = _validate(sample_copy, capsys)
    assert code == 2
    assert '[layers.huc12.fields] huc = "<field name>"' in out and '"HUC_12"' in out


def test_unreadable_and_empty_layers(sample_copy, capsys):
    folder = sample_copy.parent
    (folder / "impervious.tif").write_bytes(b"not a tiff")
    empty = gpd.GeoDataFrame({"CVP_NUM": []}, geometry=[], crs="EPSG:26986")
    empty.to_file(folder / "empty.gpkg", layer="vernal_pools", driver="GPKG")
    _edit(sample_copy, '[layers.vernal_pools]\npath = "sample.gpkg"',
          '[layers.vernal_pools]\npath = "empty.gpkg"')
    reports = {r.key: r for r in validate_config(load_config(sample_copy))}
    assert "has no features" in reports["vernal_pools"].error
    assert reports["impervious"].error  # neither a raster nor a vector GDAL can read
    code, out = _validate(sample_copy, capsys)
    assert code == 2 and "vernal_pools" in out and "impervious" in out


def test_invalid_geometry_is_repaired_and_reported_not_fatal(sample_copy, capsys):
    folder = sample_copy.parent
    x, y = 237_000, 917_000  # inside the sample town
    bowtie = Polygon([(x, y), (x + 10, y + 10), (x + 10, y), (x, y + 10), (x, y)])
    frame = gpd.GeoDataFrame({"PRIHAB_ID": ["PH 9"]}, geometry=[bowtie], crs="EPSG:26986")
    frame.to_file(folder / "bad.gpkg", layer="prihab", driver="GPKG")
    _edit(sample_copy, '[layers.nhesp_priority]\npath = "sample.gpkg"\nlayer = "nhesp_priority"',
          '[layers.nhesp_priority]\npath = "bad.gpkg"\nlayer = "prihab"')
    code, out = _validate(sample_copy, capsys)
    assert code == 0
    assert "nhesp_priority: 1 invalid geometries repaired with make_valid" in out


@pytest.mark.parametrize(("rule", "error"), [
    ('{field = "NOPE", values = ["ROAD"]}', True),
    ('{field = "DATA_NOTE", values = ["ROAD"]}', False),  # a field the sample parcels have
])
def test_the_right_of_way_field_must_exist_in_the_parcels(sample_copy, capsys, rule, error):
    """``[layers.parcels] right_of_way`` names a field: validate refuses one the parcels source
    lacks, with the abutter job's message naming the key, and passes one it has."""
    _edit(sample_copy, 'layer = "parcels"', f'layer = "parcels"\nright_of_way = {rule}')
    reports = {r.key: r for r in validate_config(load_config(sample_copy))}
    code, out = _validate(sample_copy, capsys)
    said = " ".join(out.split())
    if error:
        assert "[layers.parcels] right_of_way names the field 'NOPE'" in reports["parcels"].error
        assert "sample.gpkg does not have" in reports["parcels"].error
        assert reports["parcels"].rows is not None  # the layer itself was read and described
        assert code == 2 and "'NOPE'" in said and "Traceback" not in said
        assert reports["assess"].error is None  # the other layers are still checked
    else:
        assert reports["parcels"].error is None and code == 0

"""The real town no one here drew: Cambridge, MA layers read through data/cambridge.toml."""

import tomllib

import pytest
from pyproj import Transformer

from swm_gis.cli import main
from swm_gis.config.town import load_config, parse_config
from swm_gis.errors import CrsError
from swm_gis.io import layers as io


def test_topojson_parcels_refused_without_declared_crs(cambridge_config):
    data = tomllib.loads(cambridge_config.read_text())
    del data["layers"]["parcels"]["crs"]
    cfg = parse_config(data, base_dir=cambridge_config.parent)
    with pytest.raises(CrsError, match="declares no coordinate reference system"):
        io.read_layer(cfg, "parcels")


def test_topojson_parcels_read_correctly_with_epsg4326(cambridge_config):
    cfg = load_config(cambridge_config)
    layer = io.read_layer_with_source(cfg, "parcels")
    parcels = layer.frame
    assert len(parcels) == 13_115  # 13,116 in the file, one with empty geometry
    assert layer.dropped_empty == 1
    assert parcels.crs.to_epsg() == 26986
    # The parcels fill the TopoJSON's lon/lat bbox: projected, they sit inside its projection
    # and touch it on the south (the bbox's bottom edge is the southernmost vertex).
    t = Transformer.from_crs("EPSG:4326", "EPSG:26986", always_xy=True)
    bx0, by0, bx1, by1 = t.transform_bounds(-71.1601447528039, 42.35207051876413,
                                            -71.06543651026468, 42.40376072609409)
    minx, miny, maxx, maxy = parcels.total_bounds
    assert bx0 - 1 <= minx and maxx <= bx1 + 1 and by0 - 1 <= miny and maxy <= by1 + 1
    assert miny == pytest.approx(by0, abs=20.0)
    # Cambridge is about 6.4 km x 5.8 km (city area ~ 18.5 km2 incl. water)
    w = parcels.total_bounds[2] - minx
    h = parcels.total_bounds[3] - miny
    assert 7_000 < w < 8_500 and 5_000 < h < 6_500


def test_assessing_csv_joins_parcels(cambridge_config):
    cfg = load_config(cambridge_config)
    assess = io.read_table(cfg, "assess")
    assert len(assess) == 1000
    parcels = io.read_layer(cfg, "parcels")
    joined = assess["parcel_id"].isin(parcels["id"])
    assert joined.mean() > 0.95  # FY2025 owners on FY2014 parcels: close, not identical


def test_data_validate_passes_on_cambridge(cambridge_config, capsys):
    assert main(["--progress", "none", "data", "validate", "--config", str(cambridge_config)]) == 0
    out = capsys.readouterr().out
    assert "6 of 6 layers passed" in out


def test_data_validate_fails_clearly_on_broken_cambridge_copy(cambridge_config, tmp_path, capsys):
    text = cambridge_config.read_text().replace('crs = "EPSG:4326"', "")
    text = text.replace("../../shared", str(cambridge_config.parents[2] / "shared"))
    text = text.replace('owner = "Owner_Name"', 'owner = "OWNER_NAME_TYPO"')
    broken = tmp_path / "broken.toml"
    broken.write_text(text)
    assert main(["--progress", "none", "data", "validate", "--config", str(broken)]) == 2
    err = capsys.readouterr().err
    assert "parcels" in err and "declares no coordinate reference system" in err
    assert "OWNER_NAME_TYPO" in err and "[layers.assess.fields] owner" in err
    assert "Traceback" not in err

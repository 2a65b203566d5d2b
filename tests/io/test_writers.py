import geopandas as gpd
import pandas as pd
import pyogrio
import pytest
from shapely.geometry import box

from swm_gis.errors import OutputExistsError
from swm_gis.io.writers import (
    atomic_path,
    check_outputs_free,
    safe_frame,
    write_geopackage,
    write_json,
)


def test_atomic_path_leaves_old_file_when_writer_fails(tmp_path):
    target = tmp_path / "out.json"
    write_json({"a": 1}, target)
    with pytest.raises(RuntimeError), atomic_path(target) as tmp:
        tmp.write_text("half")
        raise RuntimeError("crash mid-write")
    assert target.read_text().strip() == '{\n  "a": 1\n}'
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_existing_output_needs_overwrite(tmp_path):
    (tmp_path / "a.csv").write_text("x")
    with pytest.raises(OutputExistsError, match="overwrite=True"):
        check_outputs_free([tmp_path / "a.csv", tmp_path / "b.csv"], overwrite=False)
    check_outputs_free([tmp_path / "a.csv"], overwrite=True)


def test_safe_frame_neutralises_formulas():
    df = pd.DataFrame({"owner": ["=HYPERLINK(\"x\")", "+1", "-2", "@SUM", "JOSÉ NÚÑEZ"],
                       "n": [1, 2, 3, 4, 5]})
    back = safe_frame(df)
    assert back["owner"].tolist() == ["'=HYPERLINK(\"x\")", "'+1", "'-2", "'@SUM", "JOSÉ NÚÑEZ"]
    assert back["n"].tolist() == [1, 2, 3, 4, 5]
    assert df["owner"].iloc[0].startswith("=")  # input not modified


def test_geopackage_is_version_1_2_with_layers_and_tables(tmp_path):
    g = gpd.GeoDataFrame({"a": [1]}, geometry=[box(0, 0, 1, 1)], crs="EPSG:26986")
    path = write_geopackage({"site": g, "summary": pd.DataFrame({"k": ["x"], "v": [2]})},
                            tmp_path / "o.gpkg")
    names = [row[0] for row in pyogrio.list_layers(path)]
    assert names == ["site", "summary"]
    import sqlite3

    with sqlite3.connect(path) as con:
        user_version = con.execute("PRAGMA user_version").fetchone()[0]
    assert user_version == 10200

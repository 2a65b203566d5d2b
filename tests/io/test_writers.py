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


def test_geopackage_stores_its_layers_styles_one_default_each(tmp_path):
    """Issue 35: a layer's styles go into layer_styles; the last default of a layer wins, a
    style of a layer not written is not stored, and no styles leave no table."""
    import sqlite3

    from swm_gis.io.gpkg_styles import StoredStyle

    g = gpd.GeoDataFrame({"a": [1]}, geometry=[box(0, 0, 1, 1)], crs="EPSG:26986")
    styles = [StoredStyle("site", "first", "<qgis/>"),
              StoredStyle("site", "second", "<qgis a='1'/>"),
              StoredStyle("site", "other", "<qgis b='2'/>", default=False),
              StoredStyle("absent", "x", "<qgis/>")]
    path = write_geopackage({"site": g}, tmp_path / "o.gpkg", styles=styles)
    with sqlite3.connect(path) as con:
        rows = con.execute("SELECT f_table_name, f_geometry_column, styleName, useAsDefault "
                           "FROM layer_styles ORDER BY id").fetchall()
        listed = con.execute("SELECT data_type FROM gpkg_contents WHERE table_name = "
                             "'layer_styles'").fetchone()
    assert rows == [("site", "geom", "first", 0), ("site", "geom", "second", 1),
                    ("site", "geom", "other", 0)]
    assert listed == ("attributes",)
    bare = write_geopackage({"site": g}, tmp_path / "bare.gpkg")
    with sqlite3.connect(bare) as con:
        assert con.execute("SELECT count(*) FROM sqlite_master WHERE name = 'layer_styles'"
                           ).fetchone() == (0,)


def _page_size(path) -> int:
    import sqlite3

    with sqlite3.connect(path) as db:
        return db.execute("PRAGMA page_size").fetchone()[0]


def _small_layer(path) -> None:
    frame = gpd.GeoDataFrame({"id": ["a", "b"]}, geometry=[box(0, 0, 1, 1), box(2, 0, 3, 1)],
                             crs="EPSG:26986")
    pyogrio.write_dataframe(frame, path, layer="t", driver="GPKG")


def test_large_pages_give_a_new_geopackage_64_kib_pages_and_keep_the_pragmas_set(tmp_path):
    """Within the block a new GeoPackage has 64 KiB pages (SQLite's default, 4 KiB, outside);
    pragmas set before are kept beside it and restored after; a page size set before wins; the
    file reads back the same."""
    from swm_gis.io.writers import LARGE_PAGE_BYTES, gdal_option, large_pages

    _small_layer(tmp_path / "plain.gpkg")
    with large_pages():
        _small_layer(tmp_path / "large.gpkg")
    assert LARGE_PAGE_BYTES == 65_536
    assert (_page_size(tmp_path / "plain.gpkg"), _page_size(tmp_path / "large.gpkg")) \
        == (4_096, 65_536)
    plain = pyogrio.read_dataframe(tmp_path / "plain.gpkg")
    assert plain.equals(pyogrio.read_dataframe(tmp_path / "large.gpkg"))
    with gdal_option("OGR_SQLITE_PRAGMA", "cache_size=-4000"):
        with large_pages():
            assert pyogrio.get_gdal_config_option("OGR_SQLITE_PRAGMA") \
                == "cache_size=-4000,page_size=65536"
        assert pyogrio.get_gdal_config_option("OGR_SQLITE_PRAGMA") == "cache_size=-4000"
    with gdal_option("OGR_SQLITE_PRAGMA", "page_size=8192"), large_pages():
        _small_layer(tmp_path / "chosen.gpkg")
    assert _page_size(tmp_path / "chosen.gpkg") == 8_192
    assert not pyogrio.get_gdal_config_option("OGR_SQLITE_PRAGMA")

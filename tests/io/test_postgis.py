"""PostGIS sources and outputs against a real server (tests/support/postgis_server.py starts one).

The sample town is loaded into PostGIS as it is (source field names, source CRS); a config that
reads every vector layer from the database must give the same answers as the files.
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import geopandas as gpd
import numpy as np
import psycopg
import pyogrio
import pytest
import shapely
from shapely.geometry import box
from support.townkit import REPO

from swm_gis.applicability import postgis_write as postgis_out
from swm_gis.cli import main
from swm_gis.config.town import load_config, parse_config
from swm_gis.errors import ConfigError, CrsError, InputFileError, OutputExistsError
from swm_gis.io import layers as io
from swm_gis.io import postgis
from swm_gis.jobs import applicability_map

SAMPLE = REPO / "data" / "sample"
VECTOR_LAYERS = [name for name, _ in pyogrio.list_layers(SAMPLE / "sample.gpkg")]


# --------------------------------------------------------------------------- no server needed
@pytest.mark.parametrize(("path", "expected"), [
    ("postgresql://ann@db.example:5433/gis", "postgresql://ann@db.example:5433/gis"),
    ("postgresql://ann@db/gis?table=s.t&sslmode=require",
     "postgresql://ann@db/gis?sslmode=require"),
    ("PG:dbname=gis host=db user=ann schemas=town", "dbname=gis host=db user=ann"),
    ("PG:service=massgis tables=a.b", "service=massgis"),
])
def test_conninfo_drops_gdal_and_table_options(path, expected):
    assert postgis.conninfo(path) == expected


@pytest.mark.parametrize(("path", "shown"), [
    ("postgresql://ann:s3cret@db/gis", "postgresql://ann:***@db/gis"),
    ("PG:dbname=gis password='s3 cret' user=ann", "PG:dbname=gis password=*** user=ann"),
])
def test_redact_hides_passwords(path, shown):
    assert postgis.redact(path) == shown


def test_parse_target_needs_a_table():
    assert postgis.parse_target("postgresql://u@h/db?table=town.app") == (
        "postgresql://u@h/db", "town", "app")
    assert postgis.parse_target("PG:dbname=db host=h table=app")[1:] == (None, "app")
    with pytest.raises(ConfigError, match=r"\?table=schema.name"):
        postgis.parse_target("postgresql://u@h/db")


@pytest.mark.parametrize("target", ["postgresql://ann:pw@db/gis?table=a.b",
                                    "PG:dbname=gis password=pw table=a.b"])
def test_out_target_refuses_a_password(target):
    with pytest.raises(ConfigError, match="password") as err:
        postgis.parse_target(target)
    assert "pw@" not in str(err.value) and "password=pw" not in str(err.value)


def test_without_postgres_binaries_the_fixture_says_what_to_install(tmp_path, monkeypatch):
    """Where the machine has no PostgreSQL the PostGIS tests skip (fail under CI) with this."""
    import support.postgis_server as postgis_server

    monkeypatch.setattr(postgis_server, "PG_ROOT", tmp_path / "none")
    assert postgis_server.find_binaries() == (None, "PostgreSQL is not installed (apt-get "
                                              "install postgresql postgresql-15-postgis-3; make "
                                              "test does it)")
    (tmp_path / "pg" / "15" / "bin").mkdir(parents=True)
    (tmp_path / "pg" / "15" / "bin" / "initdb").write_text("")
    monkeypatch.setattr(postgis_server, "PG_ROOT", tmp_path / "pg")
    monkeypatch.setattr(postgis_server, "PG_SHARE", tmp_path / "share")
    assert "PostGIS is not installed for PostgreSQL 15" in postgis_server.find_binaries()[1]


@pytest.mark.parametrize("path", ["postgresql://ann:pw@db/gis", "PG:dbname=gis password=pw",
                                  "postgres://ann@db/gis?password=pw"])
def test_config_refuses_a_password_in_a_path(path):
    with pytest.raises(ConfigError, match="PGPASSWORD"):
        parse_config({"town": {"name": "T"}, "layers": {"parcels": {
            "path": path, "layer": "public.parcels"}}}, base_dir=Path("/"))


def test_database_source_without_a_table_is_a_config_error():
    cfg = parse_config({"town": {"name": "T"}, "layers": {"parcels": {
        "path": "postgresql://u@127.0.0.1:1/db"}}}, base_dir=Path("/"))
    with pytest.raises(ConfigError, match='layer = "schema.table"'):
        io.read_layer(cfg, "parcels")


def test_unreachable_server_is_an_input_error():
    cfg = parse_config({"town": {"name": "T"}, "layers": {"parcels": {
        "path": "postgresql://u@127.0.0.1:1/db", "layer": "p"}}}, base_dir=Path("/"))
    with pytest.raises(InputFileError, match="Cannot connect to the database"):
        io.read_layer(cfg, "parcels")


# --------------------------------------------------------------------------- the sample town
@pytest.fixture(scope="module")
def pg_town(postgis_server, tmp_path_factory):
    """The sample town in schema ``sample`` and a config reading every vector layer from it."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PGPASSWORD", postgis_server.password)
        for name in VECTOR_LAYERS:
            postgis_out.copy_layer(str(SAMPLE / "sample.gpkg"), name, postgis_server.url,
                               f"sample.{name}", overwrite=True)
    folder = tmp_path_factory.mktemp("pgtown")
    text = (SAMPLE / "town.toml").read_text(encoding="utf-8")
    for name in VECTOR_LAYERS:
        text = text.replace(f'path = "sample.gpkg"\nlayer = "{name}"',
                            f'path = "{postgis_server.url}"\nlayer = "sample.{name}"')
    for raster in ("dem.tif", "impervious.tif"):
        text = text.replace(f'"{raster}"', f'"{SAMPLE / raster}"')
    assert "sample.gpkg" not in text
    toml = folder / "town.toml"
    toml.write_text(text, encoding="utf-8")
    for name in ("sites.gpkg", "README.md"):  # the demo finds its sites and subject here
        shutil.copy(SAMPLE / name, folder / name)
    return toml


def _same(a: gpd.GeoDataFrame, b: gpd.GeoDataFrame, key: str) -> None:
    assert len(a) == len(b)
    a = a.sort_values(key).reset_index(drop=True)
    b = b.sort_values(key).reset_index(drop=True)
    for col in a.columns.drop("geometry"):
        assert a[col].astype(str).tolist() == b[col].astype(str).tolist(), col
    # a database load promotes polygons to multi-polygons (as ogr2ogr -nlt PROMOTE_TO_MULTI):
    # the same shapes, so compared as shapes
    assert shapely.equals(a.geometry.values, b.geometry.values).all()


@pytest.mark.parametrize("key", ["parcels", "flood_zones", "nhesp_priority", "vernal_pools",
                                 "huc12", "streams", "orw", "impaired_waters"])
def test_every_layer_reads_as_from_the_file(pg, pg_town, key):
    files, db = load_config(SAMPLE / "town.toml"), load_config(pg_town)
    layer, want = io.read_layer_with_source(db, key), io.read_layer(files, key)
    got = layer.frame
    def sort_key(frame):
        c = shapely.centroid(frame.geometry.values)
        return [f"{x:.3f} {y:.3f} {a:.1f}" for x, y, a in
                zip(shapely.get_x(c), shapely.get_y(c), frame.geometry.length, strict=True)]

    want, got = want.assign(_key=sort_key(want)), got.assign(_key=sort_key(got))
    _same(got, want, "_key")
    assert layer.source["file"] == pg.url
    assert layer.source["layer"] == f"sample.{key}"


def test_bbox_and_mask_reads_match_the_file(pg, pg_town):
    files, db = load_config(SAMPLE / "town.toml"), load_config(pg_town)
    x0, y0, x1, y1 = io.layer_info(files.layer("parcels"))["total_bounds"]
    window = (x0 + 0.3 * (x1 - x0), y0 + 0.3 * (y1 - y0), x0 + 0.4 * (x1 - x0),
              y0 + 0.4 * (y1 - y0))
    want = io.read_layer(files, "parcels", bbox=window)
    assert 0 < len(want) < 3167
    _same(io.read_layer(db, "parcels", bbox=window), want, "id")
    disc = shapely.Point((window[0] + window[2]) / 2, (window[1] + window[3]) / 2).buffer(80)
    _same(io.read_layer(db, "parcels", mask=disc), io.read_layer(files, "parcels", mask=disc),
          "id")


def test_table_ids_and_extent_match_the_file(pg, pg_town):
    files, db = load_config(SAMPLE / "town.toml"), load_config(pg_town)
    a, b = io.read_table(db, "assess"), io.read_table(files, "assess")
    assert sorted(map(tuple, a.fillna("").to_numpy())) == sorted(map(tuple, b.fillna("")
                                                                      .to_numpy()))
    assert sorted(io.read_column(db, "parcels", "id")) == sorted(
        io.read_column(files, "parcels", "id"))
    ids = sorted(io.read_column(files, "parcels", "id"))[:3]
    _same(io.read_parcels_by_id(db, ids), io.read_parcels_by_id(files, ids), "id")
    info_db, info_file = io.layer_info(db.layer("parcels")), io.layer_info(files.layer("parcels"))
    assert info_db["features"] == info_file["features"] == 3168  # one without geometry
    assert np.allclose(info_db["total_bounds"], info_file["total_bounds"])


def test_every_command_gives_the_same_answers_as_the_files(pg, pg_town, tmp_path, capsys,
                                                           sample_demo):
    # the demo on the sample town's files is the session's (tests/support/sample_demo.py)
    files = sample_demo.out
    assert main(["--progress", "none", "demo", "--config", str(pg_town), "--out",
                 str(tmp_path / "db")]) == 0
    assert main(["--progress", "none", "data", "validate", "--config", str(pg_town)]) == 0
    for site in ("site", "site_small"):
        want = json.loads((files / "screen" / site / "screening.json").read_text())
        got = json.loads((tmp_path / "db/screen" / site / "screening.json").read_text())
        for doc in (want, got):  # where the data came from differs, nothing else
            doc.pop("meta")
            for check in doc["checks"]:
                check.pop("source", None)
        assert got == want, site
    for name in ("mailing_list.csv", "abutting_parcels.csv"):
        rows = [[r for r in csv.reader((d / "abutters" / name).open(encoding="utf-8"))
                 if not (r and r[0].startswith("# "))]  # the footer has the time of the run
                for d in (files, tmp_path / "db")]
        assert len(rows[0]) > 3
        assert rows[0] == rows[1], name
    a, b = (gpd.read_file(d / "applicability" / "applicability.gpkg", layer="applicability")
            for d in (files, tmp_path / "db"))
    _same(a, b, "parcel_id" if "parcel_id" in a else a.columns[0])
    assert pg.password not in (tmp_path / "db/screen/site/screening.json").read_text()


def test_a_pg_string_and_a_table_in_another_crs(pg, tmp_path):
    frame = gpd.GeoDataFrame({"LOC_ID": ["A", "B"]},
                             geometry=[box(238000, 918000, 238020, 918020),
                                       box(238020, 918000, 238040, 918020)], crs="EPSG:26986")
    src = tmp_path / "p.gpkg"
    frame.to_crs("EPSG:4326").to_file(src, layer="p")
    postgis_out.copy_layer(str(src), "p", pg.url, "wgs.parcels", overwrite=True)
    cfg = parse_config({"town": {"name": "T"}, "layers": {"parcels": {
        "path": pg.pg_string, "layer": "wgs.parcels"}}}, base_dir=tmp_path)
    layer = io.read_layer_with_source(cfg, "parcels")
    got = layer.frame
    assert got.crs.to_epsg() == 26986
    assert sorted(got["id"]) == ["A", "B"]
    assert got.area.round(1).tolist() == [400.0, 400.0]
    assert layer.source_crs == "EPSG:4326"


def test_table_without_srid_needs_the_config_crs(pg, tmp_path):
    with psycopg.connect(pg.url, autocommit=True) as con:
        con.execute("DROP TABLE IF EXISTS public.nosrid")
        con.execute("CREATE TABLE public.nosrid (loc_id text, geom geometry)")
        con.execute("INSERT INTO public.nosrid VALUES ('X', ST_MakeEnvelope(0, 0, 10, 10))")
    raw = {"town": {"name": "T"}, "layers": {"parcels": {"path": pg.url,
                                                         "layer": "public.nosrid"}}}
    with pytest.raises(CrsError, match="declares no coordinate reference system"):
        io.read_layer(parse_config(raw, base_dir=tmp_path), "parcels")
    raw["layers"]["parcels"]["crs"] = "EPSG:26986"
    got = io.read_layer(parse_config(raw, base_dir=tmp_path), "parcels")
    assert got["id"].tolist() == ["X"] and got.area.tolist() == [100.0]


@pytest.mark.parametrize("table", ['public."; DROP TABLE x; --', "nosuch.table", "nosuchtable"])
def test_missing_or_hostile_table_names_list_the_tables(pg, pg_town, table):
    cfg = parse_config({"town": {"name": "T"}, "layers": {"parcels": {
        "path": pg.url, "layer": table}}}, base_dir=Path("/"))
    with pytest.raises(InputFileError, match=r"not found in .*Tables in the database: .*"
                                              r"sample\.parcels"):
        io.read_layer(cfg, "parcels")


def test_wrong_password_is_a_clear_error(pg, monkeypatch, tmp_path):
    monkeypatch.setenv("PGPASSWORD", "wrong")
    cfg = parse_config({"town": {"name": "T"}, "layers": {"parcels": {
        "path": pg.url, "layer": "sample.parcels"}}}, base_dir=tmp_path)
    with pytest.raises(InputFileError, match="password comes from PGPASSWORD") as err:
        io.read_layer(cfg, "parcels")
    assert pg.password not in str(err.value)


def test_password_from_a_pgpass_file(pg, monkeypatch, tmp_path, pg_town):
    pgpass = tmp_path / "pgpass"
    pgpass.write_text(f"{pg.host}:{pg.port}:*:{pg.user}:{pg.password}\n", encoding="utf-8")
    pgpass.chmod(0o600)
    monkeypatch.delenv("PGPASSWORD")
    monkeypatch.setenv("PGPASSFILE", str(pgpass))
    assert len(io.read_layer(load_config(pg_town), "huc12")) > 0


def test_bbox_reads_use_the_spatial_index(pg):
    """The spatial filter runs on the server through the GiST index (a neighbourhood of a
    statewide table is read, not the table)."""
    cells = [box(x * 10, y * 10, x * 10 + 10, y * 10 + 10) for x in range(150) for y in range(150)]
    frame = gpd.GeoDataFrame({"LOC_ID": [f"P{i}" for i in range(len(cells))]}, geometry=cells,
                             crs="EPSG:26986")
    with psycopg.connect(pg.url) as con, con.transaction():
        postgis.write_frame(con, frame, "big", "parcels", overwrite=True, srid=26986)
    with psycopg.connect(pg.url, autocommit=True) as con:
        con.execute("ANALYZE big.parcels")
    info = postgis.read_info(pg.url, "big.parcels")
    query, params = postgis.select_sql(info, "big.parcels", columns=["LOC_ID"],
                                       bbox=(500, 500, 525, 525))
    with psycopg.connect(pg.url) as con:
        plan = "\n".join(r[0] for r in con.execute(b"EXPLAIN " + query.as_bytes(con), params))
    assert "Index" in plan and "parcels_geom_idx" in plan, plan
    got = postgis.read_frame(pg.url, "big.parcels", info, columns=["LOC_ID"],
                             bbox=(500, 500, 525, 525))
    assert len(got) == 16  # 4 x 4 cells touch the 25 m window (edges included)


# --------------------------------------------------------------------------- writing
def test_applicability_into_postgis_is_styled_indexed_and_equal(pg, pg_town, sample_demo):
    target = f"{pg.url}?table=maps.applicability"
    result = postgis_out.write_applicability(load_config(pg_town), target, run=applicability_map)
    assert result.path == target and pg.password not in result.path
    # the map of the sample town's files: the session demo's (tests/support/sample_demo.py)
    want = gpd.read_file(sample_demo.applicability, layer="applicability")
    info = postgis.read_info(pg.url, "maps.applicability")
    got = postgis.read_frame(pg.url, "maps.applicability", info, columns=list(info["fields"]))
    # this table's styles only: the session's server holds other tests' tables too (the CLI
    # test's cli.applicability has a default style of its own)
    with psycopg.connect(pg.url) as con:
        style = con.execute(
            "SELECT f_table_schema, f_table_name, f_geometry_column, useasdefault, "
            "styleqml::text FROM public.layer_styles WHERE f_table_schema = 'maps' AND "
            "f_table_name = 'applicability'").fetchall()
        index = con.execute("SELECT indexdef FROM pg_indexes WHERE schemaname = 'maps' AND "
                            "tablename = 'applicability'").fetchall()
        summary = con.execute("SELECT count(*) FROM maps.applicability_summary").fetchone()[0]
    assert len(got) == len(want) == 3167
    assert sorted(got["screening_class"]) == sorted(want["screening_class"])
    assert [s[:4] for s in style] == [("maps", "applicability", "geom", True)]
    assert "<qgis" in style[0][4] and "screening_class" in style[0][4]
    assert any("gist (geom)" in i[0] for i in index)
    assert summary > 0
    with pytest.raises(OutputExistsError, match="overwrite=True"):
        postgis_out.write_applicability(load_config(pg_town), target, run=applicability_map)
    postgis_out.write_applicability(load_config(pg_town), target, overwrite=True,
                                    run=applicability_map)
    with psycopg.connect(pg.url) as con:
        defaults = con.execute("SELECT count(*) FROM public.layer_styles WHERE f_table_schema = "
                               "'maps' AND f_table_name = 'applicability' AND useasdefault"
                               ).fetchone()[0]
    assert defaults == 1


def test_applicability_cli_writes_into_postgis(pg, pg_town, capsys):
    target = f"{pg.url}?table=cli.applicability"
    assert main(["--progress", "none", "applicability", "--config", str(pg_town), "--out",
                 target]) == 0
    out = capsys.readouterr().out
    assert "cli.applicability" in out or "table=cli.applicability" in out
    with psycopg.connect(pg.url) as con:
        assert con.execute("SELECT count(*) FROM cli.applicability").fetchone()[0] == 3167
    assert main(["--progress", "none", "applicability", "--config", str(pg_town), "--out",
                 f"{pg.url}"]) == 2
    assert "?table=schema.name" in capsys.readouterr().err


def test_null_empty_and_invalid_geometries_are_handled_as_for_files(pg, tmp_path):
    """Partial and hostile rows: a NULL and an empty geometry are dropped, a bow-tie repaired,
    a quote in an id read back as text; counts as the file reader gives them."""
    with psycopg.connect(pg.url, autocommit=True) as con:
        con.execute("DROP TABLE IF EXISTS public.messy")
        con.execute("CREATE TABLE public.messy (\"LOC_ID\" text, geom geometry(Geometry, 26986))")
        con.execute("INSERT INTO public.messy VALUES "
                    "('ok', ST_GeomFromText('POLYGON((0 0,10 0,10 10,0 10,0 0))', 26986)), "
                    "('bow''tie', ST_GeomFromText('POLYGON((0 0,10 10,10 0,0 10,0 0))', 26986)), "
                    "('null', NULL), "
                    "('empty', ST_GeomFromText('POLYGON EMPTY', 26986))")
    cfg = parse_config({"town": {"name": "T"}, "layers": {"parcels": {
        "path": pg.url, "layer": "public.messy"}}}, base_dir=tmp_path)
    layer = io.read_layer_with_source(cfg, "parcels")
    got = layer.frame
    assert sorted(got["id"]) == ["bow'tie", "ok"]
    assert layer.repaired == 1 and layer.dropped_empty == 2
    assert got.loc[got["id"] == "bow'tie"].area.tolist() == [50.0]
    assert io.read_parcels_by_id(cfg, ["bow'tie"])["id"].tolist() == ["bow'tie"]


@pytest.mark.qgis
def test_qgis_opens_the_postgis_map_with_its_grouped_style(qgis_app, pg, tmp_path):
    """The map written with --out postgresql://... opens in QGIS (postgres provider) already
    styled from layer_styles, as the GeoPackage does."""
    from qgis.core import QgsDataSourceUri, QgsVectorLayer, QgsWkbTypes
    from support.applicabilitykit import town_layers
    from support.townkit import write_town

    from swm_gis.applicability.run import STYLE_NAME

    cfg = load_config(write_town(tmp_path, town_layers()))
    res = postgis_out.write_applicability(cfg, f"{pg.url}?table=qgis.applicability", overwrite=True,
                                          run=applicability_map)
    uri = QgsDataSourceUri()
    uri.setConnection(pg.host, str(pg.port), pg.dbname, pg.user, pg.password)
    uri.setDataSource("qgis", "applicability", "geom", "", "fid")
    as_browser = QgsDataSourceUri(uri)  # QGIS's browser adds the type and SRID
    as_browser.setWkbType(QgsWkbTypes.MultiPolygon)
    as_browser.setSrid("26986")
    for opened in (uri, as_browser):
        layer = QgsVectorLayer(opened.uri(False), "applicability", "postgres")
        assert layer.isValid(), layer.error().summary()
        assert layer.renderer().type() == "RuleRenderer", opened.uri(False)
    assert layer.featureCount() == res.parcels == 6
    assert layer.geometryType() == QgsWkbTypes.PolygonGeometry
    from support.qgisstylekit import styled_classes

    assert styled_classes(layer.renderer()) == set(res.summary["screening_class"])
    count, _, names, _, _ = layer.listStylesInDatabase()
    assert count == 1 and names[0] == STYLE_NAME  # the first count names are this layer's

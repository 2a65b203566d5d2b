"""Writing the applicability GeoPackage: tile appends, summary and checks tables, QGIS style."""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from pathlib import Path
from typing import Any

import geopandas as gpd
import pandas as pd
import pyogrio

from swm_gis import layers as io
from swm_gis.applicability_overlays import CHECKS_TABLE, LAYER, STYLE_NAME, SUMMARY_TABLE
from swm_gis.config import TownConfig
from swm_gis.writers import atomic_path, check_outputs_free, sqlite_sync_off


def _append(result: gpd.GeoDataFrame, path: Path, *, first: bool) -> None:
    # Arrow writes in bulk: half the CPU of feature-by-feature writing
    pyogrio.write_dataframe(result, path, layer=LAYER, driver="GPKG", append=not first,
                            dataset_options={"VERSION": "1.2"} if first else None,
                            promote_to_multi=True, use_arrow=True)


def _write_tables(path: Path, summary: pd.DataFrame, checks: list[dict[str, Any]],
                  config: TownConfig, params: dict[str, Any]) -> None:
    pyogrio.write_dataframe(summary, path, layer=SUMMARY_TABLE, driver="GPKG", append=True)
    now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    rows = [{"check": c["name"], "ran": c["ran"], "chapter_320": c["section"],
             "sources": json.dumps(c["sources"]), "note": c["note"]} for c in checks]
    rows.append({"check": "run", "ran": True, "chapter_320": None,
                 "sources": json.dumps([io.source_info(config.layer("parcels"))]),
                 "note": json.dumps({"town": config.name, "synthetic": config.synthetic,
                                     "config": str(config.path) if config.path else None,
                                     "written_utc": now, "parameters": params})})
    frame = pd.DataFrame(rows)
    frame["ran"] = frame["ran"].astype(bool)
    pyogrio.write_dataframe(frame, path, layer=CHECKS_TABLE, driver="GPKG", append=True)


# =========================================================================== QGIS style
def write_style(gpkg: str | Path, *, layer: str, classes: list[str],
                geometry_column: str = "geom") -> None:
    """Store the categorised QGIS style in the GeoPackage's ``layer_styles`` table (as default).

    QGIS (3.22 and later) applies it when the layer is opened. The table has the columns QGIS
    itself creates (``saveStyleToDatabase``) and is registered in ``gpkg_contents`` so GDAL and
    QGIS list it as an attribute table. Call on the temporary file of an atomic write.
    """
    from swm_gis.styles import applicability_qml

    qml = applicability_qml(classes)
    now = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    con = sqlite3.connect(str(gpkg))
    try:
        with con:
            con.execute(
                'CREATE TABLE IF NOT EXISTS "layer_styles" ('
                '"id" INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, "f_table_catalog" TEXT(256), '
                '"f_table_schema" TEXT(256), "f_table_name" TEXT(256), '
                '"f_geometry_column" TEXT(256), "styleName" TEXT(30), "styleQML" TEXT, '
                '"styleSLD" TEXT, "useAsDefault" BOOLEAN, "description" TEXT, '
                '"owner" TEXT(30), "ui" TEXT(30), "update_time" DATETIME DEFAULT '
                "(strftime('%Y-%m-%dT%H:%M:%fZ','now')))"
            )
            con.execute(
                "INSERT OR IGNORE INTO gpkg_contents (table_name, data_type, identifier, "
                "last_change) VALUES ('layer_styles', 'attributes', 'layer_styles', ?)", (now,)
            )
            has_ogr = con.execute("SELECT 1 FROM sqlite_master WHERE name='gpkg_ogr_contents'"
                                  ).fetchone()
            con.execute('UPDATE "layer_styles" SET "useAsDefault" = 0 WHERE f_table_name = ?',
                        (layer,))
            con.execute(
                'INSERT INTO "layer_styles" (f_table_catalog, f_table_schema, f_table_name, '
                'f_geometry_column, styleName, styleQML, styleSLD, useAsDefault, description, '
                'owner, ui, update_time) VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?)',
                ("", "", layer, geometry_column, STYLE_NAME, qml, "",
                 "Categorised by screening_class (swm-gis applicability, Chapter 320)", "",
                 "", now),
            )
            if has_ogr:
                n = con.execute('SELECT count(*) FROM "layer_styles"').fetchone()[0]
                con.execute("INSERT OR REPLACE INTO gpkg_ogr_contents (table_name, feature_count)"
                            " VALUES ('layer_styles', ?)", (n,))
    finally:
        con.close()


def write_map(frame: gpd.GeoDataFrame, out: str | Path, *, summary: pd.DataFrame,
              checks: list[dict[str, Any]], config: TownConfig, parameters: dict[str, Any],
              overwrite: bool = False) -> Path:
    """Write classified parcels as the styled applicability GeoPackage ``out`` (atomically)."""
    out = Path(out)
    check_outputs_free([out], overwrite=overwrite)
    with atomic_path(out, suffix=".gpkg") as tmp, sqlite_sync_off():
        _append(frame, tmp, first=True)
        _write_tables(tmp, summary, checks, config, parameters)
        write_style(tmp, layer=LAYER, classes=summary["screening_class"].unique().tolist())
    return out


def read_result(path: str | Path) -> gpd.GeoDataFrame:
    """Read an applicability GeoPackage's layer back (for tests and the plugin)."""
    return gpd.read_file(path, layer=LAYER)


__all__ = ["read_result", "write_map", "write_style"]

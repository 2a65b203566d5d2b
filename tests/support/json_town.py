"""The sample town in formats GDAL parses whole (the source cache's tests and benchmark)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pyogrio
from support.townkit import REPO

SAMPLE = REPO / "data" / "sample"


def json_town(folder: Path) -> Path:
    """The sample town with its vector layers in formats GDAL parses whole: GeoJSON, the flood
    zones a shapefile with a ``.qix`` spatial index, the assessing table a CSV (same shapes and
    ids); DEM, impervious grid and sites as they are. Returns its town.toml (cache: ../cache)."""
    folder.mkdir(parents=True)
    text = (SAMPLE / "town.toml").read_text(encoding="utf-8")
    for key, _ in pyogrio.list_layers(SAMPLE / "sample.gpkg"):
        frame = pyogrio.read_dataframe(SAMPLE / "sample.gpkg", layer=key)
        if key == "assess":
            name = "assess.csv"
            pyogrio.write_dataframe(frame, folder / name)
        elif key == "flood_zones":
            name = "flood_zones.shp"
            pyogrio.write_dataframe(frame, folder / name, layer_options={"SPATIAL_INDEX": "YES"})
        else:
            name = f"{key}.geojson"
            pyogrio.write_dataframe(frame, folder / name)
        old = f'path = "sample.gpkg"\nlayer = "{key}"\n'
        assert old in text, key
        text = text.replace(old, f'path = "{name}"\n')
    for name in ("dem.tif", "impervious.tif", "sites.gpkg"):
        shutil.copy2(SAMPLE / name, folder / name)
    (folder / "town.toml").write_text(text + '\n[cache]\ndir = "../cache"\n', encoding="utf-8")
    return folder / "town.toml"

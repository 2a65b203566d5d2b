"""Zip files as published (MassGIS, FEMA NFHL, USGS WBD / NHDPlus HR), read in place.

A config path may name the zip as downloaded, with ``layer`` naming a layer inside it: a
shapefile (``M164TaxPar_CY25_FY25``), a stand-alone ``.dbf`` table (the assessing table beside
it), or a layer of a file geodatabase or GeoPackage in the zip (``S_FLD_HAZ_AR``). GDAL reads it
through its virtual file system (``/vsizip/``); nothing is unpacked into the user's folder.
Names match case-insensitively (MassGIS and FEMA change case between releases).
"""

from __future__ import annotations

import os
import zipfile
from dataclasses import dataclass
from pathlib import PurePosixPath

import pyogrio

from swm_gis.errors import InputFileError

#: Single-layer files GDAL opens directly: the file's name (without suffix) is the layer name.
SINGLE_LAYER = (".shp", ".geojson", ".json", ".csv", ".kml", ".tif", ".tiff", ".img")
#: Containers whose layers are listed by GDAL (one zip may hold several).
CONTAINERS = (".gdb", ".gpkg", ".sqlite")


@dataclass(frozen=True)
class ZipLayer:
    """One layer found in a zip: its name, the GDAL path and layer to open it with."""

    name: str
    gdal_path: str
    gdal_layer: str | None


def is_zip(path: str) -> bool:
    """True for an existing ``.zip`` file."""
    return str(path).lower().endswith(".zip") and os.path.isfile(path)


def vsi(zip_path: str, member: str = "") -> str:
    """GDAL's path to ``member`` of a zip (or to the zip as a folder)."""
    inner = f"/{member.strip('/')}" if member else ""
    return f"/vsizip/{os.path.abspath(zip_path)}{inner}"


def zip_layers(zip_path: str) -> list[ZipLayer]:
    """Every layer a zip holds, in archive order.

    Shapefiles count once (their ``.dbf``/``.prj``/``.cpg`` sidecars are part of them); a ``.dbf``
    without a ``.shp`` beside it is a table layer; file geodatabases and GeoPackages are opened
    to list their layers.
    """
    try:
        with zipfile.ZipFile(zip_path) as zf:
            names = [n for n in zf.namelist() if not n.startswith("__MACOSX/")]
    except (zipfile.BadZipFile, OSError) as exc:
        raise InputFileError(f"{zip_path} is not a readable zip file: {exc}.") from exc
    lowered = {n.lower() for n in names}
    found: list[ZipLayer] = []
    containers: list[str] = []
    for name in names:
        member = PurePosixPath(name)
        suffix = member.suffix.lower()
        for part in member.parents:
            if part.suffix.lower() in CONTAINERS and str(part) not in containers:
                containers.append(str(part))
        if suffix in CONTAINERS[1:] and name not in containers:
            containers.append(name)
        elif suffix in SINGLE_LAYER or (suffix == ".dbf"
                                        and f"{name[:-4]}.shp".lower() not in lowered):
            found.append(ZipLayer(member.stem, vsi(zip_path, name), None))
    for container in containers:
        path = vsi(zip_path, container)
        try:
            inner = [row[0] for row in pyogrio.list_layers(path)]
        except Exception:  # noqa: BLE001 - an unreadable container is listed by name only
            inner = []
        found.extend(ZipLayer(layer, path, layer) for layer in inner)
    return found


def resolve_zip(zip_path: str, layer: str | None, *, what: str) -> tuple[str, str | None]:
    """The GDAL path and layer for ``layer`` inside a zip (the only layer if None).

    Raises :class:`InputFileError` listing what the zip holds when the layer is not in it.
    """
    layers = zip_layers(zip_path)
    if layer is None:
        if len(layers) == 1:
            return layers[0].gdal_path, layers[0].gdal_layer
        chosen = None
    else:
        wanted = layer.lower().removesuffix(".shp")
        matches = [z for z in layers if z.name.lower() == wanted]
        chosen = matches[0] if matches else None
    if chosen is None:
        held = ", ".join(z.name for z in layers) or "no GIS layers"
        need = f'no layer "{layer}"' if layer else "several layers"
        raise InputFileError(
            f'{zip_path} ({what}) holds {need}. Layers in the zip: {held}. '
            f'Name one with layer = "<name>" in the town config.'
        )
    return chosen.gdal_path, chosen.gdal_layer


__all__ = ["ZipLayer", "is_zip", "resolve_zip", "vsi", "zip_layers"]

"""Inputs are never written to: an output that is, contains or lies inside an input is refused.

The engine refuses this on the command line (``swm_gis.io.outputs.refuse_inputs``), but in QGIS it
only sees the plugin's temporary exports, never the user's files: the check has to be made here,
on the *real* sources of the layers the dialog was given (a GeoPackage holding the parcels, the
shapefile's companion files, a town config and every file it names), before anything is written.

Standard library only (no QGIS import), so it is tested on its own and runs the same in QGIS's
interpreter on every platform.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

#: Sources that are not files: nothing on disk to protect here.
_NOT_FILES = ("memory", "PG:", "postgres", "dbname=", "MSSQL:", "OCI:", "http://", "https://",
              "/vsicurl/", "wms", "wfs", "service=")
_SHAPEFILE_PARTS = (".shp", ".shx", ".dbf", ".prj", ".cpg", ".sbn", ".sbx", ".qix", ".shp.xml")
#: "GPKG:/path/file.gpkg:layer" (GDAL's raster subdataset form)
_GDAL_PREFIX = re.compile(r"^(?:GPKG|NETCDF|HDF5|HDF4_SDS):(?P<path>.+?)(?::[^:/\\]+)?$")


def source_files(source: str) -> list[str]:
    """The files on disk behind a QGIS layer source ('' parts dropped): ``path|layername=x`` and
    ``/vsizip/path.zip/inner`` reduce to their file, a shapefile brings its companions, database
    and web sources give none."""
    text = str(source or "").strip()
    if not text:
        return []
    m = re.search(r"dbname='([^']+)'", text)
    if m and not text.lower().startswith(("dbname='", "service=")) and "host=" not in text:
        text = m.group(1)  # ogr:dbname='/x.gpkg' table="t" (a Processing destination)
    elif text.startswith("ogr:dbname="):
        text = text[len("ogr:dbname="):].split(" ", 1)[0].strip("'\"")
    if text.startswith("file://"):
        text = text[len("file://"):]
    if text.startswith(_NOT_FILES):
        return []
    text = text.split("|", 1)[0].split("?", 1)[0] if not text.startswith("/vsi") else \
        text.split("|", 1)[0]
    gdal = _GDAL_PREFIX.match(text)
    if gdal:
        text = gdal.group("path")
    for prefix in ("/vsizip/", "/vsitar/", "/vsigzip/"):
        if text.startswith(prefix):
            rest = text[len(prefix):]
            for ext in (".zip", ".tar.gz", ".tgz", ".tar", ".gz"):
                if ext in rest.lower():
                    i = rest.lower().index(ext) + len(ext)
                    text = rest[:i]
                    break
            else:
                text = rest
    if not text:
        return []
    real = real_path(text)
    out = [real]
    stem, suffix = os.path.splitext(real)
    if suffix.lower() == ".shp":
        out += [stem + part for part in _SHAPEFILE_PARTS[1:]]
    return out


def config_files(config: str) -> list[str]:
    """A town config and every file its layers name (paths relative to the config)."""
    path = Path(config)
    found = [real_path(str(path))]
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return found
    paths: list[str] = []
    try:
        import tomllib  # Python 3.11+ (QGIS 3.22 on Debian 12, current OSGeo4W)

        doc = tomllib.loads(text)
        for spec in (doc.get("layers") or {}).values():
            given = spec.get("path") if isinstance(spec, dict) else None
            paths += given if isinstance(given, list) else [given] if given else []
    except Exception:  # noqa: BLE001 - an older Python or a broken file: the plain lines
        paths = re.findall(r'^\s*path\s*=\s*"([^"]+)"', text, flags=re.MULTILINE)
    for p in paths:
        p = str(p)
        if p.startswith(_NOT_FILES):
            continue
        full = p if os.path.isabs(p) or p.startswith("/vsi") else str(path.parent / p)
        found += source_files(full)
    return found


def real_path(path: str) -> str:
    return os.path.realpath(os.path.abspath(os.path.expanduser(path)))


def relation(output: str, source: str) -> str | None:
    """How ``output`` stands to the input file or folder ``source``: 'is', 'is inside',
    'contains' or None (both real paths; hard links count as the same file)."""
    if output == source or _same_file(output, source):
        return "is"
    if _inside(output, source):
        return "is inside"
    if _inside(source, output):
        return "contains"
    return None


def _inside(child: str, parent: str) -> bool:
    try:
        return child != parent and os.path.commonpath([child, parent]) == parent
    except ValueError:  # different drives on Windows
        return False


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def clash(output: str, inputs: dict[str, list[str]]) -> tuple[str, str, str] | None:
    """The first input ``output`` collides with: (input name, relation, its file), or None.

    ``inputs`` maps what the dialog calls an input (its label and layer) to the files behind it.
    """
    out = real_path(output)
    for name, files in inputs.items():
        for f in files:
            rel = relation(out, f)
            if rel:
                return name, rel, f
    return None

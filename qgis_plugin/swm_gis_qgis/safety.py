"""The files on disk behind a QGIS layer source string.

Output safety itself is the engine's (``swm_gis.io.outputs.refuse_inputs``): the plugin hands it
the user's real sources and ``--protect``s the files behind every other layer of the run and the
project, which this module finds in QGIS's source strings (``path|layername=x``, ``/vsizip/``,
``GPKG:path:layer``, a shapefile's companion files; database and web sources have none).

Standard library only (no QGIS import), so it is tested on its own and runs the same in QGIS's
interpreter on every platform.
"""

from __future__ import annotations

import os
import re

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


def real_path(path: str) -> str:
    return os.path.realpath(os.path.abspath(os.path.expanduser(path)))

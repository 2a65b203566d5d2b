"""Helpers of the QGIS plugin tests (a uniquely named module: tests/conftest.py is also a
``conftest``). The plugin lives in ``qgis_plugin/swm_gis_qgis`` (not installed in a QGIS
profile), so its parent folder goes on ``sys.path`` the way QGIS puts the plugin folder there.
Test data is written with QGIS's own writer (the plugin's world), in EPSG:26986 metres.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PLUGIN_PARENT = ROOT / "qgis_plugin"
DATA = Path(__file__).resolve().parents[1] / "plugin" / "data"
SAMPLE = ROOT / "data" / "sample"
if str(PLUGIN_PARENT) not in sys.path:
    sys.path.insert(0, str(PLUGIN_PARENT))
# QGIS computes raster statistics when it opens a DEM; without this GDAL would leave
# dem.tif.aux.xml files beside the shared sample data.
os.environ["GDAL_PAM_ENABLED"] = "NO"
QGIS_PLUGINS = "/usr/share/qgis/python/plugins"
if os.path.isdir(QGIS_PLUGINS) and QGIS_PLUGINS not in sys.path:
    sys.path.append(QGIS_PLUGINS)

def _engine_of_this_tree() -> str:
    """An ``swm-gis`` executable that runs THIS checkout's engine.

    The venv's console script imports whichever swm_gis the venv installed (another worktree,
    when several share one venv), and the plugin drops PYTHONPATH from the engine's environment
    (QGIS's own Python settings must not reach it). A two-line wrapper pins the engine to the
    tree under test, so plugin and engine of one commit are tested together.
    """
    import hashlib
    import tempfile

    folder = Path(tempfile.gettempdir()) / (
        "swm-gis-engine-" + hashlib.sha1(str(ROOT).encode()).hexdigest()[:10])
    folder.mkdir(exist_ok=True)
    exe = folder / "swm-gis"
    text = (f"#!/bin/sh\nPYTHONPATH={ROOT} exec {sys.executable} -m swm_gis \"$@\"\n")
    if not exe.exists() or exe.read_text() != text:
        tmp = folder / "swm-gis.part"
        tmp.write_text(text)
        tmp.chmod(0o755)
        os.replace(tmp, exe)
    return str(exe)


#: The engine the plugin runs in these tests: this checkout's engine (see above).
ENGINE = _engine_of_this_tree()

M = 1.0 / 0.3048  # feet per metre
X0, Y0 = 230000.0, 900000.0  # EPSG:26986, somewhere in Essex County


def square(x: float, y: float, w: float, h: float) -> str:
    x, y = X0 + x, Y0 + y
    return f"POLYGON(({x} {y},{x + w} {y},{x + w} {y + h},{x} {y + h},{x} {y}))"


def write_layer(path: Path, name: str, geometry: str, fields: list[tuple[str, str]],
                rows: list[tuple[str | None, list]], crs: str | None = "EPSG:26986") -> str:
    """Write a GeoPackage layer with QGIS (geometry 'Polygon', 'Point', 'LineString' or 'None')."""
    from qgis.core import (
        QgsCoordinateReferenceSystem,
        QgsCoordinateTransformContext,
        QgsFeature,
        QgsField,
        QgsFields,
        QgsGeometry,
        QgsVectorFileWriter,
        QgsWkbTypes,
    )
    from qgis.PyQt.QtCore import QVariant

    types = {"str": QVariant.String, "int": QVariant.Int, "float": QVariant.Double}
    qfields = QgsFields()
    for fname, ftype in fields:
        qfields.append(QgsField(fname, types[ftype]))
    wkb = {"Polygon": QgsWkbTypes.MultiPolygon, "Point": QgsWkbTypes.Point,
           "LineString": QgsWkbTypes.MultiLineString, "None": QgsWkbTypes.NoGeometry}[geometry]
    opts = QgsVectorFileWriter.SaveVectorOptions()
    opts.driverName = "GPKG"
    opts.layerName = name
    if path.exists():
        opts.actionOnExistingFile = QgsVectorFileWriter.CreateOrOverwriteLayer
    writer = QgsVectorFileWriter.create(
        str(path), qfields, wkb,
        QgsCoordinateReferenceSystem(crs) if crs else QgsCoordinateReferenceSystem(),
        QgsCoordinateTransformContext(), opts)
    assert writer.hasError() == QgsVectorFileWriter.NoError, writer.errorMessage()
    for wkt, attrs in rows:
        f = QgsFeature(qfields)
        if wkt:
            g = QgsGeometry.fromWkt(wkt)
            if QgsWkbTypes.isMultiType(wkb):
                g.convertToMultiType()
            f.setGeometry(g)
        f.setAttributes(attrs)
        assert writer.addFeature(f)
    del writer
    return f"{path}|layername={name}"


ASSESS_FIELDS = [("LOC_ID", "str"), ("OWNER1", "str"), ("OWN_ADDR", "str"), ("OWN_CITY", "str"),
                 ("OWN_STATE", "str"), ("OWN_ZIP", "str"), ("SITE_ADDR", "str"), ("FY", "int")]


def engine_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update({"QT_QPA_PLATFORM": "offscreen", "SWM_GIS_EXECUTABLE": ENGINE})
    return env


def write_shapefile(path: Path, fields: list[tuple[str, str]], rows) -> str:
    """A polygon shapefile written without a CRS (no .prj)."""
    from qgis.core import (
        QgsCoordinateReferenceSystem,
        QgsCoordinateTransformContext,
        QgsFeature,
        QgsField,
        QgsFields,
        QgsGeometry,
        QgsVectorFileWriter,
        QgsWkbTypes,
    )
    from qgis.PyQt.QtCore import QVariant

    qfields = QgsFields()
    for fname, _ftype in fields:
        qfields.append(QgsField(fname, QVariant.String))
    opts = QgsVectorFileWriter.SaveVectorOptions()
    opts.driverName = "ESRI Shapefile"
    writer = QgsVectorFileWriter.create(str(path), qfields, QgsWkbTypes.Polygon,
                                        QgsCoordinateReferenceSystem(),
                                        QgsCoordinateTransformContext(), opts)
    for wkt, attrs in rows:
        f = QgsFeature(qfields)
        f.setGeometry(QgsGeometry.fromWkt(wkt))
        f.setAttributes(attrs)
        writer.addFeature(f)
    del writer
    return str(path)


def recording_feedback():
    """A QgsProcessingFeedback that keeps every line the dialog's log would show.

    The Processing dialog logs pushed info, warnings, errors, command and console lines and each
    progress text; ``lines`` holds them one line each (a message with line breaks counts as
    several), ``warnings`` the warnings alone.
    """
    from qgis.core import QgsProcessingFeedback

    class Recorder(QgsProcessingFeedback):
        def __init__(self):
            super().__init__()
            self.lines: list[str] = []
            self.warnings: list[str] = []

        def _keep(self, text):
            self.lines.extend(str(text).splitlines() or [""])

        def pushInfo(self, text):  # noqa: N802
            self._keep(text)

        def pushWarning(self, text):  # noqa: N802
            self.warnings.append(str(text))
            self._keep(text)

        def reportError(self, text, fatalError=False):  # noqa: N802, N803
            self._keep(text)

        def pushCommandInfo(self, text):  # noqa: N802
            self._keep(text)

        def pushDebugInfo(self, text):  # noqa: N802
            self._keep(text)

        def pushConsoleInfo(self, text):  # noqa: N802
            self._keep(text)

        def setProgressText(self, text):  # noqa: N802
            self._keep(text)

    return Recorder()


def cli_language(text: str) -> list[str]:
    """The command-line words left in ``text``: ``--flags`` and temporary processing paths."""
    import re

    found = re.findall(r"(?<![\w-])--[a-z][a-z-]*", text)
    found += re.findall(r"\S*/processing_\S*", text)
    return found

"""Fixtures for the QGIS plugin tests: the plugin loaded through classFactory, small town data.

The plugin lives in ``qgis_plugin/swm_gis_qgis`` (not installed in a QGIS profile), so its parent
folder goes on ``sys.path`` the way QGIS puts the plugin folder there. Test data is written with
QGIS's own writer (the plugin's world), in EPSG:26986 metres.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PLUGIN_PARENT = ROOT / "qgis_plugin"
DATA = Path(__file__).resolve().parent / "data"
SAMPLE = ROOT / "data" / "sample"
if str(PLUGIN_PARENT) not in sys.path:
    sys.path.insert(0, str(PLUGIN_PARENT))
# QGIS computes raster statistics when it opens a DEM; without this GDAL would leave
# dem.tif.aux.xml files beside the shared sample data.
os.environ["GDAL_PAM_ENABLED"] = "NO"
QGIS_PLUGINS = "/usr/share/qgis/python/plugins"
if os.path.isdir(QGIS_PLUGINS) and QGIS_PLUGINS not in sys.path:
    sys.path.append(QGIS_PLUGINS)

#: The engine the plugin runs in these tests: the checkout's own console script.
ENGINE = str(Path(sys.executable).resolve().parent / "swm-gis")
if not Path(ENGINE).exists():  # sys.executable resolved through a symlink to the base Python
    ENGINE = str(ROOT / ".venv" / "bin" / "swm-gis")

M = 1.0 / 0.3048  # feet per metre
X0, Y0 = 230000.0, 900000.0  # EPSG:26986, somewhere in Essex County


def square(x: float, y: float, w: float, h: float) -> str:
    x, y = X0 + x, Y0 + y
    return f"POLYGON(({x} {y},{x + w} {y},{x + w} {y + h},{x} {y + h},{x} {y}))"


@pytest.fixture(scope="session")
def plugin(qgis_app, qgis_processing, qgis_iface):
    """The plugin loaded as QGIS loads it: ``classFactory(iface)`` then ``initProcessing``."""
    os.environ["SWM_GIS_EXECUTABLE"] = ENGINE
    import swm_gis_qgis

    instance = swm_gis_qgis.classFactory(qgis_iface)
    instance.initGui()
    yield instance
    instance.unload()


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


@pytest.fixture(scope="session")
def town(tmp_path_factory, qgis_app):
    """A hand-made block: three lots, a 15 m street, three lots, and one far lot.

    Lots are 60 m x 60 m. Subject P2 (x 60-120, y 0-60). P1 and P3 touch it (0 ft); the street
    R1 (POLY_TYPE ROW) touches it and is left out; P4, P5, P6 across the 15 m street are
    15 m = 49.2126 ft away; P7 (y 300-360) is 240 m away; P8 (x 180-240, y 75-135) is
    sqrt(60^2 + 15^2) m = 61.85 m = 202.9 ft away, outside 100 ft but inside 250 ft.
    """
    folder = tmp_path_factory.mktemp("town")
    gpkg = folder / "town.gpkg"
    parcels = [
        ("P1", 0, 0, 60, 60, "FEE"), ("P2", 60, 0, 60, 60, "FEE"), ("P3", 120, 0, 60, 60, "FEE"),
        ("R1", 0, 60, 240, 15, "ROW"),
        ("P4", 0, 75, 60, 60, "FEE"), ("P5", 60, 75, 60, 60, "FEE"),
        ("P6", 120, 75, 60, 60, "FEE"), ("P7", 0, 300, 60, 60, "FEE"),
        ("P8", 180, 75, 60, 60, "FEE"),
    ]
    rows = [(square(x, y, w, h), [pid, f"M-{pid}", "164", ptype])
            for pid, x, y, w, h, ptype in parcels]
    uri_parcels = write_layer(gpkg, "parcels", "Polygon",
                              [("LOC_ID", "str"), ("MAP_PAR_ID", "str"), ("TOWN_ID", "str"),
                               ("POLY_TYPE", "str")], rows)
    owners = {
        "P1": ("ALICE ADAMS", "1 ELM ST"), "P2": ("BOB BROWN", "2 ELM ST"),
        "P3": ("CAROL CHEN", "3 ELM ST"), "P4": ("DAN DOYLE", "4 OAK ST"),
        "P5": ("ALICE ADAMS", "1 ELM ST"), "P6": ("=EVIL FORMULA LLC", "6 OAK ST"),
        "P7": ("GINA GRAY", "7 PINE ST"), "P8": ("HAL HILL", "8 OAK ST"),
    }
    assess_rows = [(None, [pid, o, a, "LYNNFIELD", "MA", "01940", a, 2026])
                   for pid, (o, a) in owners.items()]
    uri_assess = write_layer(gpkg, "assess", "None", ASSESS_FIELDS, assess_rows, crs=None)
    uri_site = write_layer(gpkg, "site", "Polygon", [("name", "str")],
                           [(square(70, 10, 40, 40), ["house lot"])])
    return {"folder": folder, "gpkg": gpkg, "parcels": uri_parcels, "assess": uri_assess,
            "site": uri_site}


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

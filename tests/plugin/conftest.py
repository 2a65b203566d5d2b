"""Fixtures of the QGIS plugin tests: the plugin loaded through classFactory, a small town."""

from __future__ import annotations

import os

import pytest
from support.plugin_kit import ASSESS_FIELDS, ENGINE, square, write_layer


@pytest.fixture(scope="session")
def plugin(qgis_app, qgis_processing, qgis_iface):
    """The plugin loaded as QGIS loads it: ``classFactory(iface)`` then ``initProcessing``."""
    os.environ["SWM_GIS_EXECUTABLE"] = ENGINE
    import swm_gis_qgis

    instance = swm_gis_qgis.classFactory(qgis_iface)
    instance.initGui()
    yield instance
    instance.unload()


@pytest.fixture(scope="session")
def block(tmp_path_factory, qgis_app):
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

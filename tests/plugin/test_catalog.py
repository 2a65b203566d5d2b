"""The QGIS plugin cannot import swm_gis (it runs the engine out of process), so its parameter
catalog repeats the logical layers and their default field names. This keeps the two in step."""

import importlib.util
import sys
from pathlib import Path

import pytest

from swm_gis.config.town import SCHEMAS

CATALOG_FILE = (Path(__file__).resolve().parents[2] / "qgis_plugin" / "swm_gis_qgis"
                / "catalog.py")


@pytest.fixture(scope="module")
def catalog():
    # catalog.py is plain Python; load it by path (the plugin package itself imports qgis)
    spec = importlib.util.spec_from_file_location("swm_gis_qgis_catalog", CATALOG_FILE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while being built
    spec.loader.exec_module(module)
    return module.CATALOG


def test_every_plugin_layer_is_a_logical_layer_of_the_engine(catalog):
    assert set(catalog) <= set(SCHEMAS)


def test_plugin_field_defaults_are_the_engine_defaults(catalog):
    mismatches = []
    for key, layer in catalog.items():
        schema = SCHEMAS[key]
        for f in layer.fields:
            if f.logical not in schema.fields:
                mismatches.append(f"{key}.{f.logical}: not a logical field of the engine")
            elif (f.default or None) != schema.fields[f.logical]:
                mismatches.append(f"{key}.{f.logical}: plugin {f.default!r} vs engine "
                                  f"{schema.fields[f.logical]!r}")
            if f.logical in schema.required_fields and not f.required:
                mismatches.append(f"{key}.{f.logical}: required by the engine, optional in "
                                  "the plugin")
    assert mismatches == []

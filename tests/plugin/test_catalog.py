"""The QGIS plugin cannot import swm_gis (it runs the engine out of process), so its parameter
catalog is a data file generated from the engine's config schema at build time
(scripts/gen_plugin_catalog.py): the file in the checkout is what the script writes now, and the
Processing parameter names (the plugin's contract with models and scripts) never change."""

import importlib.util
import sys

from support.plugin_kit import ROOT

from swm_gis.config.schema import SCHEMAS

CATALOG_FILE = ROOT / "qgis_plugin" / "swm_gis_qgis" / "catalog.py"
GEN = ROOT / "scripts" / "gen_plugin_catalog.py"


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while being built
    spec.loader.exec_module(module)
    return module


def test_the_generated_file_is_what_the_script_writes_now():
    gen = _load(GEN, "gen_plugin_catalog")
    assert gen.TARGET.read_text(encoding="utf-8") == gen.catalog_text()
    assert gen.main(["--check"]) == 0


def test_a_stale_file_is_found_and_rewritten(tmp_path, monkeypatch, capsys):
    gen = _load(GEN, "gen_plugin_catalog_stale")
    stale = tmp_path / "catalog_data.json"
    stale.write_text("{}", encoding="utf-8")
    monkeypatch.setattr(gen, "TARGET", stale)
    assert gen.main(["--check"]) == 1
    assert "is out of date: run scripts/gen_plugin_catalog.py" in capsys.readouterr().err
    assert gen.main([]) == 0
    assert stale.read_text(encoding="utf-8") == gen.catalog_text()
    assert gen.write(stale) is False  # the same text is not written again


#: The plugin's contract: every layer and field parameter name, as QGIS models, qgis_process
#: scripts and saved dialogs use them (the names of the hand-kept catalog this file replaced).
PARAMS = {
    "parcels": ("PARCELS", ["PARCEL_ID_FIELD", "MAP_PAR_ID_FIELD", "TOWN_ID_FIELD",
                            "POLY_TYPE_FIELD", "PARCEL_USE_CODE_FIELD"]),
    "assess": ("ASSESS", ["ASSESS_PARCEL_ID_FIELD", "OWNER_FIELD", "CO_OWNER_FIELD",
                          "OWNER_ADDRESS_FIELD", "OWNER_ADDRESS2_FIELD", "OWNER_CITY_FIELD",
                          "OWNER_STATE_FIELD", "OWNER_ZIP_FIELD", "OWNER_COUNTRY_FIELD",
                          "SITE_ADDRESS_FIELD", "PROP_ID_FIELD", "USE_CODE_FIELD",
                          "FISCAL_YEAR_FIELD"]),
    "nhesp_priority": ("PRIORITY_HABITATS", ["PRIORITY_ID_FIELD"]),
    "nhesp_estimated": ("ESTIMATED_HABITATS", ["ESTIMATED_ID_FIELD"]),
    "vernal_pools": ("VERNAL_POOLS", ["VERNAL_POOL_ID_FIELD"]),
    "flood_zones": ("FLOOD_ZONES", ["FLOOD_ZONE_FIELD", "FLOOD_SUBTYPE_FIELD", "SFHA_FIELD",
                                    "BFE_FIELD"]),
    "huc10": ("HUC10", ["HUC10_FIELD", "HUC10_NAME_FIELD"]),
    "huc12": ("HUC12", ["HUC12_FIELD", "HUC12_NAME_FIELD"]),
    "orw": ("ORW", ["ORW_ID_FIELD", "ORW_NAME_FIELD"]),
    "impaired_waters": ("IMPAIRED_WATERS", ["IMPAIRED_ID_FIELD", "IMPAIRED_NAME_FIELD",
                                            "IMPAIRED_CATEGORY_FIELD", "IMPAIRED_CAUSES_FIELD",
                                            "IMPAIRED_TMDL_FIELD"]),
    "streams": ("STREAMS", ["STREAM_ID_FIELD"]),
    "waterbodies": ("WATERBODIES", ["WATERBODY_NAME_FIELD"]),
    "town_boundary": ("TOWN_BOUNDARY", []),
    "streets": ("STREETS", ["STREET_NAME_FIELD"]),
    "dem": ("DEM", []),
    "impervious": ("IMPERVIOUS", []),
    "ms4": ("MS4", ["MS4_ID_FIELD"]),
}


def test_the_parameter_names_are_the_plugins_contract():
    catalog = _load(CATALOG_FILE, "swm_gis_qgis_catalog").CATALOG
    assert {k: (li.param, [f.param for f in li.fields]) for k, li in catalog.items()} == PARAMS


def test_the_catalog_reads_the_engine_schema():
    """Defaults, required and text fields are the engine's; the assessing fields keep the
    dialog's order (owner right after the parcel id), which differs from the schema's."""
    catalog = _load(CATALOG_FILE, "swm_gis_qgis_catalog2").CATALOG
    for key, layer in catalog.items():
        schema = SCHEMAS[key]
        assert layer.description == schema.label and layer.help == schema.help
        for f in layer.fields:
            assert (f.default or None) == schema.fields[f.logical], (key, f.logical)
            assert f.required == (f.logical in schema.required_fields), (key, f.logical)
            assert f.text == (f.logical in schema.text_fields), (key, f.logical)
    assert [f.logical for f in catalog["assess"].fields][:3] == ["parcel_id", "owner", "co_owner"]
    assert [f.logical for f in catalog["assess"].fields if f.text] == [
        "owner", "co_owner", "address", "address2", "city", "state", "zip", "country",
        "site_address"]
    assert "condo_units" not in catalog  # a layer the dialogs do not offer (no param)
    assert [f.logical for f in catalog["parcels"].fields if not f.advanced] == ["id"]

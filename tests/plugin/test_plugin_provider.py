"""The plugin loads through classFactory; the provider offers the eight algorithms with help."""

from __future__ import annotations

import os
import sys

import pytest

pytestmark = pytest.mark.qgis
#: the README's install line (swm-gis is not on PyPI)

IDS = ["disturbancetrigger", "abutters", "habitatscreening", "floodplainoverlap",
       "mitigationeligibility", "receivingwaters", "sitescreening", "applicabilitymap",
       "publishwebmap", "townsetup", "loadsampletown", "enginesetup"]


def _alg(alg_id: str):
    from qgis.core import QgsApplication

    return QgsApplication.processingRegistry().algorithmById(f"swm_gis:{alg_id}")


def test_the_algorithms_are_registered_with_help(plugin):
    from qgis.core import QgsApplication

    provider = QgsApplication.processingRegistry().providerById("swm_gis")
    assert provider is not None and provider.name() == "swm-gis"
    assert sorted(a.name() for a in provider.algorithms()) == sorted(IDS)
    for alg_id in IDS:
        alg = _alg(alg_id)
        assert len(alg.shortHelpString()) > 300, alg_id
        if alg_id != "enginesetup":  # the others say how to get the engine
            assert "Set up the swm-gis engine" in alg.shortHelpString()
            assert "Settings > Options > Processing > Providers > swm-gis" in \
                alg.shortHelpString()
        for p in alg.parameterDefinitions():
            assert p.name() == p.name().upper(), (alg_id, p.name())
            assert p.help(), (alg_id, p.name())


def test_abutters_parameters_are_those_of_spec_section_6(plugin):
    from qgis.core import QgsProcessingParameterDefinition as Def

    alg = _alg("abutters")
    p = {d.name(): d for d in alg.parameterDefinitions()}
    # optional for QGIS: a town config file replaces it (the run refuses neither being given)
    assert p["PARCELS"].flags() & Def.FlagOptional
    assert alg.parameterDefinitions()[0].name() == "TOWN_CONFIG"
    assert p["ASSESS"].flags() & Def.FlagOptional
    # empty: the notice distance of the town's regulation (the engine's; 100 ft by default)
    assert p["DISTANCE"].defaultValue() is None
    assert p["DISTANCE"].flags() & Def.FlagOptional
    assert p["INCLUDE_SUBJECT"].defaultValue() is False
    assert p["PARCEL_ID_FIELD"].defaultValue() == "LOC_ID"
    assert p["PARCEL_ID_FIELD"].parentLayerParameterName() == "PARCELS"
    assert p["OWNER_FIELD"].defaultValue() == "OWNER1"
    assert p["OWNER_ZIP_FIELD"].defaultValue() == "OWN_ZIP"
    assert p["POLY_TYPE_FIELD"].defaultValue() == "POLY_TYPE"
    assert p["OUTPUT"].type() == "sink"
    assert p["OUTPUT_FOLDER"].flags() & Def.FlagOptional
    assert p["SUBJECT_IDS"].flags() & Def.FlagAdvanced
    assert "selected features only" in p["SUBJECT"].help().lower()


def test_the_town_config_is_the_first_parameter_of_every_algorithm_reading_town_layers(plugin):
    """'Set up the town' saves it once; every algorithm that reads a town layer takes it
    first. The disturbance trigger reads only the optional MS4 layer (no town config); the
    set-up itself writes it."""
    for alg_id in IDS:
        names = [d.name() for d in _alg(alg_id).parameterDefinitions()]
        takes = alg_id not in ("disturbancetrigger", "townsetup", "loadsampletown",
                               "enginesetup")
        assert ("TOWN_CONFIG" in names) == takes, alg_id
        if takes:
            assert names[0] == "TOWN_CONFIG", alg_id


def test_no_parcels_and_no_town_config_is_refused(plugin, block):
    import processing
    from qgis.core import QgsProcessingException

    with pytest.raises(QgsProcessingException, match="Choose a layer in "
                       "'Parcels \\(tax parcel polygons\\)', or a town config file in "
                       "'Town config file \\(saved by 'Set up the town'\\)'"):
        processing.run("swm_gis:abutters", {"TOWN_NAME": "Sampleton", "SUBJECT": block["site"],
                                            "OUTPUT": "memory:"})


def test_the_engine_path_setting_is_registered_and_honoured(plugin, tmp_path, monkeypatch):
    from processing.core.ProcessingConfig import ProcessingConfig
    from swm_gis_qgis import engine

    fake = tmp_path / "swm-gis"
    fake.write_text("#!/bin/sh\n", encoding="utf-8")
    fake.chmod(0o755)
    assert ProcessingConfig.getSetting(engine.SETTING_EXECUTABLE) in ("", None)
    ProcessingConfig.setSettingValue(engine.SETTING_EXECUTABLE, str(fake))
    try:
        assert engine.find_engine() == str(fake)
        fake.unlink()  # the engine was uninstalled after the path was set
        with pytest.raises(engine.EngineError, match="does not exist"):
            engine.find_engine()
    finally:
        ProcessingConfig.setSettingValue(engine.SETTING_EXECUTABLE, "")


def test_without_the_engine_each_algorithm_says_how_to_install_it(plugin, block, tmp_path,
                                                                  monkeypatch):
    import processing
    from qgis.core import QgsProcessingException
    from swm_gis_qgis import engine

    monkeypatch.delenv("SWM_GIS_EXECUTABLE", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python3"))
    with pytest.raises(engine.EngineError) as err:
        engine.find_engine()
    assert str(err.value) == engine.missing_message()
    alg = _alg("abutters")
    assert alg.canExecute() == (False, engine.missing_message())  # said when the dialog opens
    assert _alg("enginesetup").canExecute() == (True, "")
    with pytest.raises(QgsProcessingException) as exc:
        processing.run("swm_gis:abutters", {"TOWN_NAME": "Sampleton", "PARCELS": block["parcels"],
                                            "SUBJECT": block["parcels"],
                                            "SUBJECT_IDS": "P2", "OUTPUT": "memory:"})
    message = str(exc.value)
    assert "Set up the swm-gis engine" in message
    assert "Settings > Options > Processing > Providers > swm-gis" in message


def test_the_engine_environment_drops_qgis_python_settings(monkeypatch):
    from swm_gis_qgis import engine

    monkeypatch.setenv("PYTHONPATH", "/usr/share/qgis/python")
    monkeypatch.setenv("PYTHONHOME", "/opt/qgis")
    env = engine.engine_environment()
    assert "PYTHONPATH" not in env and "PYTHONHOME" not in env
    assert env["PATH"] == os.environ["PATH"]


def test_the_plugin_imports_no_geospatial_wheels():
    """The plugin must run inside QGIS's Python: PyQGIS and the standard library only."""
    import ast
    from pathlib import Path

    from support.plugin_kit import PLUGIN_PARENT

    banned = {"swm_gis", "geopandas", "shapely", "pyproj", "pyogrio", "rasterio", "fiona",
              "pandas", "numpy", "osgeo"}
    for path in (PLUGIN_PARENT / "swm_gis_qgis").rglob("*.py"):
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            for name in names:
                assert name.split(".")[0] not in banned, (path.name, name)


def test_without_the_engine_the_plugin_offers_the_set_up_on_load(plugin, qgis_iface, tmp_path,
                                                                  monkeypatch):
    """Issue 35: on first use (no engine found) a message-bar notice says so, with the set-up's
    true size, and its button opens 'Set up the swm-gis engine'; the dialog's refusal names the
    Toolbox group the set-up is in. With an engine, no notice."""
    from qgis.PyQt.QtWidgets import QLabel, QPushButton
    from swm_gis_qgis import engine
    from swm_gis_qgis import plugin as plugin_module

    found = plugin_module.SwmGisPlugin(qgis_iface)
    found.offer_engine_setup()  # the session's engine is found: nothing said
    assert found.notice is None
    monkeypatch.delenv("SWM_GIS_EXECUTABLE", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python3"))
    monkeypatch.setattr(engine, "_candidates", lambda: [])  # not the profile's default either
    opened = []
    monkeypatch.setattr(plugin_module, "_open_dialog", opened.append)
    fresh = plugin_module.SwmGisPlugin(qgis_iface)
    fresh.offer_engine_setup()
    try:
        assert fresh.notice is not None
        texts = " ".join(w.text() for w in fresh.notice.findChildren(QLabel))
        texts += " " + fresh.notice.text() if hasattr(fresh.notice, "text") else ""
        assert "The swm-gis engine is not set up yet" in texts
        assert "about 1.2 GB" in texts and "300 MB" not in texts
        buttons = fresh.notice.findChildren(QPushButton)
        button = next(b for b in buttons if b.text() == "Set up the swm-gis engine...")
        button.click()
        assert opened == ["swm_gis:enginesetup"]
    finally:
        fresh.unload()
    assert fresh.notice is None
    message = _alg("abutters").canExecute()[1]
    assert "(Processing Toolbox > swm-gis > Engine set-up)" in message
    assert _alg("enginesetup").group() == "Engine set-up"
    assert "about 1.2 GB once installed" in _alg("enginesetup").shortHelpString()

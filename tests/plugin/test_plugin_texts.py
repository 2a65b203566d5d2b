"""What the plugin tells the user: how to set up the engine (from the plugin, never a
command line) and no internal document names (the developers' spec)."""

from __future__ import annotations

import re

import pytest
from support.plugin_kit import PLUGIN_PARENT, ROOT

pytestmark = pytest.mark.qgis

PLUGIN = PLUGIN_PARENT / "swm_gis_qgis"


def test_the_engine_is_set_up_from_the_plugin_not_from_a_checkout():
    """Town staff never see a command line: every text points at 'Set up the swm-gis engine'
    and at the menu path that exists in the running QGIS (3.22 has no 'Processing > Options')."""
    from swm_gis_qgis import engine

    message = engine.missing_message("linux")
    assert message == (
        "The swm-gis engine is not set up yet: run 'Set up the swm-gis engine' (Processing "
        "Toolbox > swm-gis > Engine set-up) once to install it from this plugin (about 1.2 GB). "
        "If it is installed "
        "elsewhere, set its path in Settings > Options > Processing > Providers > swm-gis > "
        "'swm-gis executable' (or SWM_GIS_EXECUTABLE for qgis_process and scripts).")
    assert message.count(". ") == 1  # two sentences
    assert engine.options_path("darwin") == "QGIS > Preferences > Processing > Providers > swm-gis"
    assert engine.options_path("win32") == "Settings > Options > Processing > Providers > swm-gis"
    for doc in (PLUGIN_PARENT / "README.md", PLUGIN / "help" / "index.html",
                PLUGIN / "metadata.txt"):
        text = doc.read_text(encoding="utf-8")
        assert "Set up the swm-gis engine" in text, doc
        for unix in ("make dist", "pip install", "python3 -m venv", "Processing > Options"):
            assert unix not in text, (doc, unix)


def test_no_user_facing_text_names_the_internal_spec(plugin):
    from qgis.core import QgsApplication

    provider = QgsApplication.processingRegistry().providerById("swm_gis")
    algs = provider.algorithms()
    assert len(algs) == 12  # with Load the sample town (issue 35)
    texts = {}
    for alg in algs:
        texts[alg.id()] = alg.shortHelpString()
        for p in alg.parameterDefinitions():
            texts[f"{alg.id()}:{p.name()}"] = f"{p.description()} {p.help()}"
    for doc in (PLUGIN_PARENT / "README.md", PLUGIN / "help" / "index.html",
                PLUGIN / "metadata.txt", ROOT / "docs" / "qgis.md"):
        texts[doc.name] = doc.read_text(encoding="utf-8")
    spec = re.compile(r"\bSPEC\b")
    assert [k for k, v in texts.items() if spec.search(v)] == []
    assert "MassGIS" in texts["swm_gis:abutters"]  # the field names the user needs instead
    config_helps = [v for k, v in texts.items() if k.endswith(":TOWN_CONFIG")]
    assert config_helps
    config_help = config_helps[0]
    assert "parcels: LOC_ID, MAP_PAR_ID, TOWN_ID, POLY_TYPE;" in config_help
    # issue 22: in the MassGIS L3 standard OWN_CO is the owner's country (after the ZIP), not
    # a co-owner (the standard has no co-owner field)
    assert "OWNER1, OWN_ADDR, OWN_CITY, OWN_STATE, OWN_ZIP, OWN_CO," in config_help

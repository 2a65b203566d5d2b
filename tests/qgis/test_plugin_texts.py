"""What the plugin tells the user: how to install the engine (exactly the repository README's
tested lines: swm-gis is not on PyPI) and no internal document names ("SPEC section 4")."""

from __future__ import annotations

import re

import pytest
from plugin_kit import PLUGIN_PARENT, ROOT

pytestmark = pytest.mark.qgis

PLUGIN = PLUGIN_PARENT / "swm_gis_qgis"


def _readme_install_lines() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("<!-- install: tests/test_packaging.py runs these lines as written -->")[1]
    body = block.split("```")[1]
    return [line.split("#")[0].strip() for line in body.splitlines() if line.strip()]


def test_the_install_lines_are_the_readme_lines_the_packaging_test_runs():
    from swm_gis_qgis import engine

    readme = _readme_install_lines()
    assert list(engine.INSTALL_LINES) == readme[:3]
    for line in engine.INSTALL_LINES:
        assert f"'{line}'" in engine.INSTALL_HELP
    for doc in (PLUGIN_PARENT / "README.md", PLUGIN / "help" / "index.html",
                PLUGIN / "metadata.txt"):
        text = doc.read_text(encoding="utf-8")
        assert "pip install swm-gis" not in text, doc
        assert all(line in text for line in engine.INSTALL_LINES[1:]), doc


def test_no_user_facing_text_names_the_internal_spec(plugin):
    from qgis.core import QgsApplication

    provider = QgsApplication.processingRegistry().providerById("swm_gis")
    algs = provider.algorithms()
    assert len(algs) == 9
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
    assert "OWNER1, OWN_CO, OWN_ADDR, OWN_CITY" in config_help

"""QGIS 4 readiness (Qt6): the plugin's sources use only scoped enums, which work on 3.22 and on
the Qt6 bindings; metadata.txt says so (issue 26, item 10).

The static check is the equivalent of QGIS's own ``pyqt5_to_pyqt6.py`` enum pass: every
``Class.MEMBER`` whose value is a member of an enum nested in a QGIS or Qt class is listed, with
the scoped form ``Class.Enum.MEMBER`` to write instead.
"""

from __future__ import annotations

import ast
import configparser
from pathlib import Path

import pytest
from support.plugin_kit import PLUGIN_PARENT

pytestmark = pytest.mark.qgis

PLUGIN = PLUGIN_PARENT / "swm_gis_qgis"
SOURCES = sorted(PLUGIN.rglob("*.py"))


def _classes():
    import qgis.core
    import qgis.PyQt.QtCore
    import qgis.PyQt.QtGui
    import qgis.PyQt.QtWidgets

    return [qgis.core, qgis.PyQt.QtCore, qgis.PyQt.QtGui, qgis.PyQt.QtWidgets]


def _resolve(name: str):
    for module in _classes():
        obj = getattr(module, name, None)
        if isinstance(obj, type):
            return obj
    return None


def unscoped_enums(path: Path) -> list[str]:
    """``file:line Class.MEMBER -> Class.Enum.MEMBER`` for each unscoped enum use."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)):
            continue
        cls = _resolve(node.value.id)
        value = getattr(cls, node.attr, None) if cls is not None else None
        if value is None or isinstance(value, type) or not isinstance(value, int):
            continue
        enum = type(value)
        if enum not in (int, bool) and getattr(cls, enum.__name__, None) is enum:
            found.append(f"{path.relative_to(PLUGIN)}:{node.lineno} {node.value.id}.{node.attr}"
                         f" -> {node.value.id}.{enum.__name__}.{node.attr}")
    return found


def scoped_enums(path: Path) -> list[tuple[str, str, str]]:
    """(Class, Enum, MEMBER) of each ``Class.Enum.MEMBER`` use."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute) and \
                isinstance(node.value.value, ast.Name):
            cls = _resolve(node.value.value.id)
            inner = getattr(cls, node.value.attr, None) if cls is not None else None
            if isinstance(inner, type) and issubclass(inner, int):
                found.append((node.value.value.id, node.value.attr, node.attr))
    return found


def test_the_checker_finds_an_unscoped_enum(tmp_path, plugin):
    sample = PLUGIN / "_enum_sample_for_test.py"
    sample.write_text("from qgis.core import QgsProcessing, QgsWkbTypes\n"
                      "a = QgsProcessing.TypeVectorPolygon\n"
                      "b = QgsWkbTypes.GeometryType.PolygonGeometry\n", encoding="utf-8")
    try:
        assert unscoped_enums(sample) == [
            "_enum_sample_for_test.py:2 QgsProcessing.TypeVectorPolygon -> "
            "QgsProcessing.SourceType.TypeVectorPolygon"]
    finally:
        sample.unlink()


def test_no_unscoped_enum_in_the_plugin(plugin):
    assert len(SOURCES) > 15
    assert [hit for path in SOURCES for hit in unscoped_enums(path)] == []


def test_every_scoped_enum_resolves_on_this_qgis(plugin):
    uses = {use for path in SOURCES for use in scoped_enums(path)}
    assert ("QgsProcessing", "SourceType", "TypeVectorPolygon") in uses
    for cls, enum, member in sorted(uses):
        assert hasattr(getattr(_resolve(cls), enum), member), (cls, enum, member)


def test_no_pyqt5_only_idioms(plugin):
    for path in SOURCES:
        text = path.read_text(encoding="utf-8")
        assert "from PyQt5" not in text and "import PyQt5" not in text, path  # qgis.PyQt
        assert ".exec_(" not in text, path  # gone in PyQt6


def test_metadata_declares_qt6_and_a_maximum_version():
    cp = configparser.ConfigParser(interpolation=None)
    cp.optionxform = str
    cp.read(PLUGIN / "metadata.txt", encoding="utf-8")
    meta = cp["general"]
    assert meta["supportsQt6"] == "True"
    assert meta["qgisMinimumVersion"] == "3.22"
    assert meta["qgisMaximumVersion"] == "4.99"

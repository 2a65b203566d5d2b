"""The ``swm_gis`` Processing provider: one algorithm per swm-gis tool (``docs/qgis.md``)."""

from __future__ import annotations

from pathlib import Path

from qgis.core import QgsProcessingProvider
from qgis.PyQt.QtGui import QIcon

from . import engine, warm
from .algorithms import ALGORITHMS

PLUGIN_DIR = Path(__file__).resolve().parent


def _version() -> str:
    for line in (PLUGIN_DIR / "metadata.txt").read_text(encoding="utf-8").splitlines():
        if line.startswith("version="):
            return line.split("=", 1)[1].strip()
    return ""


class SwmGisProvider(QgsProcessingProvider):
    """Loads even when the engine is missing: each algorithm then says how to install it."""

    def id(self) -> str:
        return "swm_gis"

    def name(self) -> str:
        return "swm-gis"

    def longName(self) -> str:  # noqa: N802
        return f"swm-gis {_version()} (Massachusetts town stormwater regulations)"

    def icon(self) -> QIcon:
        return QIcon(str(PLUGIN_DIR / "icon.svg"))

    def svgIconPath(self) -> str:  # noqa: N802
        return str(PLUGIN_DIR / "icon.svg")

    def versionInfo(self) -> str:  # noqa: N802
        return _version()

    def load(self) -> bool:
        try:
            from processing.core.ProcessingConfig import ProcessingConfig, Setting
        except ImportError:  # plain PyQGIS without the Processing plugin: no settings page
            ProcessingConfig = None  # noqa: N806
        if ProcessingConfig is not None:
            ProcessingConfig.settingIcons[self.name()] = self.icon()
            ProcessingConfig.addSetting(Setting(
                self.name(), engine.SETTING_EXECUTABLE, "swm-gis executable", "",
                valuetype=Setting.FILE))
            ProcessingConfig.addSetting(Setting(
                self.name(), warm.SETTING_WARM,
                "Keep the swm-gis engine running between runs (faster; off: one process per "
                "run)", True))
            ProcessingConfig.readSettings()
        self.refreshAlgorithms()
        return True

    def unload(self) -> None:
        warm.shutdown()  # the session's warm engine ends with the plugin
        try:
            from processing.core.ProcessingConfig import ProcessingConfig
            ProcessingConfig.removeSetting(engine.SETTING_EXECUTABLE)
            ProcessingConfig.removeSetting(warm.SETTING_WARM)
        except (ImportError, KeyError):
            pass

    def loadAlgorithms(self) -> None:  # noqa: N802
        for cls in ALGORITHMS:
            self.addAlgorithm(cls())

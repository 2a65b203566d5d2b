"""QGIS plugin entry: registers the swm-gis Processing provider, and a Plugins menu entry that
opens 'Set up the swm-gis engine' (the provider's settings page cannot hold a button)."""

from __future__ import annotations

from qgis.core import QgsApplication

from .provider import SwmGisProvider

MENU = "swm-gis"


class SwmGisPlugin:
    def __init__(self, iface=None) -> None:
        self.iface = iface
        self.provider: SwmGisProvider | None = None
        self.actions: list = []

    def initProcessing(self) -> None:  # noqa: N802 - QGIS plugin API
        if self.provider is None:
            self.provider = SwmGisProvider()
            QgsApplication.processingRegistry().addProvider(self.provider)

    def initGui(self) -> None:  # noqa: N802
        self.initProcessing()
        if self.iface is None or not hasattr(self.iface, "addPluginToMenu"):
            return
        from qgis.PyQt.QtWidgets import QAction

        for text, alg_id in (("Set up the swm-gis engine...", "swm_gis:enginesetup"),
                             ("Set up the town...", "swm_gis:townsetup")):
            action = QAction(text, self.iface.mainWindow())
            action.triggered.connect(lambda _checked=False, a=alg_id: _open_dialog(a))
            self.iface.addPluginToMenu(MENU, action)
            self.actions.append(action)

    def unload(self) -> None:
        for action in self.actions:
            if self.iface is not None:
                self.iface.removePluginMenu(MENU, action)
        self.actions = []
        if self.provider is not None:
            QgsApplication.processingRegistry().removeProvider(self.provider)
            self.provider = None


def _open_dialog(alg_id: str) -> None:
    import processing

    processing.execAlgorithmDialog(alg_id, {})

"""QGIS plugin entry: registers the swm-gis Processing provider, and a Plugins menu entry that
opens 'Set up the swm-gis engine' (the provider's settings page cannot hold a button). On first
use, when no engine is found, a message-bar notice offers the set-up with a button."""

from __future__ import annotations

import contextlib

from qgis.core import QgsApplication

from .provider import SwmGisProvider

MENU = "swm-gis"
#: The first-use notice when no engine is found.
FIRST_USE = ("The swm-gis engine is not set up yet: set it up once from this plugin ({size}, "
             "{time}) to run the swm-gis tools.")


class SwmGisPlugin:
    def __init__(self, iface=None) -> None:
        self.iface = iface
        self.provider: SwmGisProvider | None = None
        self.actions: list = []
        #: the message-bar notice offering the engine set-up (None: an engine was found)
        self.notice = None

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
                             ("Load the sample town...", "swm_gis:loadsampletown"),
                             ("Set up the town...", "swm_gis:townsetup")):
            action = QAction(text, self.iface.mainWindow())
            action.triggered.connect(lambda _checked=False, a=alg_id: _open_dialog(a))
            self.iface.addPluginToMenu(MENU, action)
            self.actions.append(action)
        self.offer_engine_setup()

    def offer_engine_setup(self) -> None:
        """No engine found: a notice in the message bar says so, with a button that opens 'Set
        up the swm-gis engine' (issue 35: the agent was left to find it)."""
        from . import engine

        try:
            engine.find_engine()
            return
        except engine.EngineError:
            pass
        if self.iface is None or not hasattr(self.iface, "messageBar"):
            return
        from qgis.core import Qgis
        from qgis.PyQt.QtWidgets import QPushButton

        bar = self.iface.messageBar()
        item = bar.createMessage("swm-gis", FIRST_USE.format(
            size=engine.SETUP_SIZE, time=engine.SETUP_TIME))
        button = QPushButton(f"{engine.SETUP_ALGORITHM}...", item)
        button.clicked.connect(lambda _checked=False: _open_dialog("swm_gis:enginesetup"))
        item.layout().addWidget(button)
        self.notice = bar.pushWidget(item, Qgis.MessageLevel.Info)

    def unload(self) -> None:
        if self.notice is not None and self.iface is not None:
            with contextlib.suppress(RuntimeError):  # the user closed it (its widget is gone)
                self.iface.messageBar().popWidget(self.notice)
            self.notice = None
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

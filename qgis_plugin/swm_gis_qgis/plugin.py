"""QGIS plugin entry: registers the swm-gis Processing provider (no GUI of its own)."""

from __future__ import annotations

from qgis.core import QgsApplication

from .provider import SwmGisProvider


class SwmGisPlugin:
    def __init__(self, iface=None) -> None:
        self.iface = iface
        self.provider: SwmGisProvider | None = None

    def initProcessing(self) -> None:  # noqa: N802 - QGIS plugin API
        if self.provider is None:
            self.provider = SwmGisProvider()
            QgsApplication.processingRegistry().addProvider(self.provider)

    def initGui(self) -> None:  # noqa: N802
        self.initProcessing()

    def unload(self) -> None:
        if self.provider is not None:
            QgsApplication.processingRegistry().removeProvider(self.provider)
            self.provider = None

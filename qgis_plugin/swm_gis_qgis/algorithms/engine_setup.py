"""swm_gis:enginesetup - "Set up the swm-gis engine": install the engine the plugin carries.

Makes a Python environment of the engine's own (with the Python QGIS runs on, or one chosen),
installs the bundled wheel and its dependencies with pip, with progress, checks that
``swm-gis --help`` runs and remembers the executable in the provider's setting (Settings >
Options > Processing > Providers > swm-gis). See :mod:`swm_gis_qgis.installer`.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from qgis.core import (
    QgsProcessingException,
    QgsProcessingOutputFile,
    QgsProcessingOutputNumber,
    QgsProcessingOutputString,
    QgsProcessingParameterFile,
)

from .. import engine, installer
from .base import SwmGisAlgorithm, absolute_paths


class EngineSetupAlgorithm(SwmGisAlgorithm):
    ALG_ID = "enginesetup"
    DISPLAY_NAME = "Set up the swm-gis engine"
    GROUP = engine.SETUP_GROUP
    GROUP_ID = "enginesetup"
    HELP = f"""
Installs the swm-gis engine that this plugin carries, once, so that every other swm-gis tool \
runs. The engine runs as a separate program (geospatial Python packages cannot be loaded into \
QGIS's own Python without clashing with QGIS's libraries), so it gets a Python environment of \
its own: made with the Python QGIS runs on (or the one chosen in <i>Python to use</i>, 3.11 or \
newer), in a folder of the QGIS profile (or the one chosen). Its dependencies (geopandas, \
shapely, pyproj, rasterio, reportlab, ...) are downloaded from the Python package index \
(pypi.org): some 50 packages, <b>{engine.SETUP_SIZE} once installed</b> (the largest are \
numba's compiler llvmlite, pyarrow, scipy, and rasterio and pyogrio with the GDAL they \
carry), <b>{engine.SETUP_TIME}</b>; the log shows each step and, at the end, the \
size installed. The result is checked and remembered in the swm-gis provider's settings.

<b>Offline</b>: the message says exactly which files to download on another computer; choose \
that folder in <i>Folder of downloaded packages (offline)</i>.

Running it again replaces the engine only once the new one works.
"""

    def canExecute(self):  # noqa: N802 - this one needs no engine
        return True, ""

    def shortHelpString(self) -> str:  # noqa: N802
        return self.tr(self.HELP.strip())

    def initAlgorithm(self, config=None):  # noqa: N802
        self.add(QgsProcessingParameterFile(
            "PYTHON", self.tr("Python to use (empty: the one QGIS runs on)"),
            behavior=QgsProcessingParameterFile.Behavior.File, optional=True),
            "A Python 3.11 or newer executable to make the engine's environment with. Empty: "
            "the Python QGIS runs on (Linux: python3; Windows OSGeo4W or standalone: "
            "bin\\python3.exe of the QGIS folder; macOS: QGIS.app/Contents/MacOS/bin/python3).")
        self.add(QgsProcessingParameterFile(
            "FOLDER", self.tr("Folder for the engine (empty: in the QGIS profile)"),
            behavior=QgsProcessingParameterFile.Behavior.Folder, optional=True),
            f"Where the engine's environment goes. Empty: {installer.default_home()}.",
            advanced=True)
        self.add(QgsProcessingParameterFile(
            "WHEELS_FOLDER", self.tr("Folder of downloaded packages (offline)"),
            behavior=QgsProcessingParameterFile.Behavior.Folder, optional=True),
            "Only without internet access: the folder of packages downloaded on another "
            "computer (the message of an offline attempt says how); pip then installs from it "
            "alone.", advanced=True)
        self.addOutput(QgsProcessingOutputFile("EXECUTABLE", self.tr("The swm-gis engine")))
        self.addOutput(QgsProcessingOutputString("HEADLINE", self.tr("Headline")))
        self.addOutput(QgsProcessingOutputNumber("SIZE_BYTES",
                                                 self.tr("Size of the engine's environment")))

    def processAlgorithm(self, parameters, context, feedback):  # noqa: N802
        params = absolute_paths(self, dict(parameters))
        python = self.parameterAsFile(params, "PYTHON", context) or None
        folder = Path(self.parameterAsFile(params, "FOLDER", context) or
                      installer.default_home())
        wheels = self.parameterAsFile(params, "WHEELS_FOLDER", context) or None
        try:
            exe = installer.install(
                folder, python=python, wheels_dir=Path(wheels) if wheels else None,
                log=feedback.pushConsoleInfo,
                progress=lambda f: feedback.setProgress(100.0 * f),
                canceled=feedback.isCanceled)
        except installer.InstallError as exc:
            raise QgsProcessingException(str(exc)) from None
        remember(str(exe))
        size = installer.folder_size(folder)
        headline = (f"The swm-gis engine is set up: {exe} ({size / 1e6:,.0f} MB installed in "
                    f"{folder}). Every swm-gis tool now uses it (remembered in "
                    f"{engine.options_path()}).")
        feedback.pushInfo(headline)
        return {"EXECUTABLE": str(exe), "HEADLINE": headline, "SIZE_BYTES": size}


def remember(path: str) -> None:
    """Save the engine's path in the provider's Processing setting (kept in the profile)."""
    try:
        from processing.core.ProcessingConfig import ProcessingConfig
    except ImportError:
        return
    # an unregistered setting: the default folder is found by engine.find_engine anyway
    with contextlib.suppress(Exception):
        ProcessingConfig.setSettingValue(engine.SETTING_EXECUTABLE, path)

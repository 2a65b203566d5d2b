"""swm_gis:loadsampletown - "Load the sample town": the bundled synthetic town in the project.

The engine says where its sample lives (``swm-gis demo --where``); its layers are added to the
project as they are (the sample's own files, never copied or changed), and the path of its town
config is returned, to give as 'Town config file' in every other algorithm. Nothing is computed.
"""

from __future__ import annotations

from qgis.core import (
    QgsProcessingContext,
    QgsProcessingException,
    QgsProcessingOutputFile,
    QgsProcessingOutputFolder,
    QgsProcessingOutputNumber,
    QgsProcessingOutputString,
    QgsProcessingParameterBoolean,
)

from .. import engine
from ..catalog import CATALOG
from .base import SwmGisAlgorithm

#: The group the sample's layers are named under in the Layers panel.
PREFIX = "Sample town"


class LoadSampleTownAlgorithm(SwmGisAlgorithm):
    ALG_ID = "loadsampletown"
    DISPLAY_NAME = "Load the sample town (synthetic Sampleton, to try every tool)"
    GROUP = "Town set-up"
    GROUP_ID = "setup"
    HELP = """
Adds the sample town that comes with the swm-gis engine to the project: <b>Sampleton, a made-up \
town</b> (not real data) with every layer a town config can name (parcels and their assessing \
table, NHESP habitats, certified vernal pools, FEMA flood zones, HUC10 and HUC12 watersheds, \
ORW, impaired waters, streams, water bodies, the town boundary, a DEM and impervious cover) in \
the published MassGIS / FEMA / USGS / MassDEP field names, and demo sites (a site, a small \
site, a common plan, proposed impervious surfaces, mitigation sites).

The layers are the sample's own files, added as they are (nothing is copied or changed). \
TOWN_CONFIG, the sample's town config file, goes in 'Town config file' of every other swm-gis \
tool: for instance Site screening with the demo layer 'site' as the site, or Abutters with a \
parcel selected. Its assessing table follows the MassGIS L3 standard (OWN_CO is the owner's \
country), so the dialogs' default fields read it as they would a real town's.
"""

    def initAlgorithm(self, config=None):  # noqa: N802
        self.add(QgsProcessingParameterBoolean(
            "SITES", self.tr("Also add the demo sites"), defaultValue=True),
            "Add the demo site layers (site, site_small, common_plan, proposed_impervious, "
            "mitigation) too, to use as the screening tools' inputs.")
        self.addOutput(QgsProcessingOutputFile("TOWN_CONFIG",
                                               self.tr("Town config file of the sample town")))
        self.addOutput(QgsProcessingOutputFolder("FOLDER", self.tr("Sample town folder")))
        self.addOutput(QgsProcessingOutputNumber("LAYER_COUNT", self.tr("Layers added")))
        self.addOutput(QgsProcessingOutputString("HEADLINE", self.tr("Headline")))

    def processAlgorithm(self, parameters, context, feedback):  # noqa: N802
        try:
            result = engine.run_engine(["demo", "--where"], feedback)
        except engine.EngineError as exc:
            raise QgsProcessingException(str(exc)) from None
        info = result.get("sample")
        if not isinstance(info, dict) or not info.get("config"):
            raise QgsProcessingException(
                "The swm-gis engine did not say where its sample town is; this plugin and the "
                "installed engine may not match (update both).")
        layers = [(_name(x["key"]), _uri(x["path"], x.get("layer")))
                  for x in info.get("layers") or []]
        if self.parameterAsBoolean(parameters, "SITES", context):
            sites = info.get("sites") or {}
            layers += [(f"demo {name}", _uri(sites["path"], name))
                       for name in sites.get("layers") or []]
        for name, uri in layers:
            display = f"{PREFIX}: {name}"
            context.addLayerToLoadOnCompletion(
                uri, QgsProcessingContext.LayerDetails(display, context.project(), display))
        headline = (f"Added {len(layers)} layer(s) of the sample town {info.get('name')} (made "
                    f"up, not real data) from {info['folder']}. Give {info['config']} as 'Town "
                    "config file' in the other swm-gis tools.")
        feedback.pushInfo(headline)
        return {"TOWN_CONFIG": info["config"], "FOLDER": info["folder"],
                "LAYER_COUNT": len(layers), "HEADLINE": headline}


def _name(key: str) -> str:
    """A config layer as the dialogs call it ("Parcels"), its key when the plugin has none."""
    layer = CATALOG.get(key)
    return layer.description.split(" (")[0] if layer else key


def _uri(path: str, layer: str | None) -> str:
    """The OGR source of ``layer`` of ``path`` (a raster file: its path)."""
    return f"{path}|layername={layer}" if layer else path

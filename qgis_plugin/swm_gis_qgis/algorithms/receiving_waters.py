"""swm_gis:receivingwaters - downstream ORWs and impaired waters, with their requirements."""

from __future__ import annotations

from qgis.core import (
    QgsProcessingException,
    QgsProcessingOutputNumber,
    QgsProcessingOutputString,
)

from .. import findings
from .screen_base import (
    IMPAIRED_DOWNSTREAM,
    ORW_DOWNSTREAM,
    SCREEN_FOLDER_HELP,
    ScreenAlgorithm,
    Sink,
    listed,
    require_any,
)


class ReceivingWatersAlgorithm(ScreenAlgorithm):
    ALG_ID = "receivingwaters"
    DISPLAY_NAME = "Receiving waters: downstream ORWs and impaired waters"
    #: parcels and the assessing table only add the use-code requirements (advanced)
    #: certified vernal pools are ORWs (the default regulation's definitions): without them the
    #: ORW search is incomplete (ORW_DOWNSTREAM NULL, never false)
    TOWN_LAYERS = (("dem", True, False), ("streams", True, False), ("orw", True, False),
                   ("vernal_pools", True, False),
                   ("impaired_waters", True, False), ("waterbodies", True, False),
                   ("town_boundary", True, False), ("parcels", True, True), ("assess", True, True))
    ACCEPTS_TOWN_CONFIG = True
    JSON_KEYS = ("receiving_waters",)
    FLAGS = (ORW_DOWNSTREAM, IMPAIRED_DOWNSTREAM)
    SINKS = (
        Sink("OUTPUT", "receiving_waters", "Receiving waters (lines)",
             "Outstanding Resource Waters and impaired waters (streams) downstream of the "
             "site: type, id, name, category, causes, TMDL, flow_distance_ft.", "line",
             "receiving_waters.qml", "Receiving waters", optional=False),
        Sink("RECEIVING_WATER_AREAS", "receiving_waters", "Receiving waters (ponds, lakes)",
             "The same for waters mapped as polygons (ponds, reservoirs).", "polygon",
             "receiving_water_areas.qml", "Receiving waters (areas)"),
        Sink("FLOW_PATH", "flow_path", "Flow path",
             "The traced flow path from the site downstream (overland, then along streams), "
             "with from_ft / to_ft along it.", "line", "flow_path.qml", "Flow path"),
    )
    HELP = """
Traces drainage from the site downstream (over the DEM to the stream network, then along the \
streams in their digitised direction) and lists the Outstanding Resource Waters and the \
impaired waters (MassDEP Integrated List category 4a with a TMDL, 4b or 5) it reaches, with \
the flow distance in feet, and turns the impairment causes into the requirements of the town's \
stormwater regulation they bring (the regulation profile the town config names; the default \
regulation's: (nitrogen/phosphorus optimisation, salt-reduction O&amp;M for \
chloride, spill shutdown and pre-infiltration treatment for solids, metals, oil and grease;
each cites its section).

VERNAL_POOLS: certified vernal pools are Outstanding Resource Waters by the default regulation's \
definitions; without them the ORW search is incomplete, so ORW_DOWNSTREAM and ORW_COUNT stay \
empty (NULL) instead of saying none.

TOWN_BOUNDARY stops the trace where the water leaves the town; PARCELS with ASSESS (the use \
codes of the site's parcels, under Advanced Parameters) add the requirements for commercial and \
industrial land.

Runs <i>swm-gis screen</i> with the site and the hydrography layers and returns the \
'receiving_waters' part of screening.json (REQUIREMENTS as text) and the waters found as \
OUTPUT.
"""

    def initAlgorithm(self, config=None):  # noqa: N802
        self.add_town_config_param()
        self.add_site_param()
        self.add_town_layers()
        self.add_common_advanced()
        self.add_output_folder(SCREEN_FOLDER_HELP)
        self.add_sinks_and_files()
        self.addOutput(QgsProcessingOutputNumber(
            "ORW_COUNT", self.tr("ORWs found downstream (NULL when not checked)")))
        self.addOutput(QgsProcessingOutputNumber(
            "IMPAIRED_COUNT", self.tr("Impaired waters found downstream (NULL when not checked)")))
        self.addOutput(QgsProcessingOutputString("REQUIREMENTS",
                                                 self.tr("Requirements (section: text)")))

    def engine_args(self, parameters, context, feedback, ws):
        require_any(ws, ["ORW", "IMPAIRED_WATERS"], "the receiving water layers")
        if ws.has("ASSESS") and not ws.has("PARCELS"):
            raise QgsProcessingException(
                "Choose PARCELS too: ASSESS gives the use codes of the parcels under the site.")
        return super().engine_args(parameters, context, feedback, ws)

    def summarize(self, data, feedback):
        rw = data.get("receiving_waters") or {}
        reqs = rw.get("requirements") or []
        for line in listed([f"{r.get('section')}: {r.get('text')}" for r in reqs]):
            feedback.pushInfo(line)
        return {"ORW_COUNT": findings.counted(self.count("orw_found") or 0,
                                              self.status("receiving_waters", "orw")),
                "IMPAIRED_COUNT": findings.counted(self.count("impaired_found") or 0,
                                                   self.status("receiving_waters", "impaired")),
                "REQUIREMENTS": "\n".join(f"{r.get('section')}: {r.get('text')}"
                                           for r in reqs)}

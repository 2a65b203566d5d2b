"""swm_gis:habitatscreening - NHESP habitats and certified vernal pools within the distance."""

from __future__ import annotations

from qgis.core import QgsProcessingOutputNumber

from .. import findings
from .screen_base import (
    HABITATS_FOUND,
    SCREEN_FOLDER_HELP,
    ScreenAlgorithm,
    Sink,
    listed,
    require_any,
)


class HabitatScreeningAlgorithm(ScreenAlgorithm):
    ALG_ID = "habitatscreening"
    DISPLAY_NAME = "Habitat screening: NHESP habitats and vernal pools within the distance"
    TOWN_LAYERS = (("nhesp_priority", True, False), ("nhesp_estimated", True, False),
                   ("vernal_pools", True, False))
    ACCEPTS_TOWN_CONFIG = True
    JSON_KEYS = ("habitats",)
    FLAGS = (HABITATS_FOUND,)
    SINKS = (
        Sink("OUTPUT", "habitats", "Habitats within the distance",
             "NHESP Priority and Estimated Habitat polygons within the distance, with layer, "
             "id, distance_ft, overlaps and the regulation's section.", "polygon",
             "habitats.qml", "NHESP habitats within reach", optional=False),
        Sink("VERNAL_POOLS_OUTPUT", "habitats", "Certified vernal pools within the distance",
             "Certified Vernal Pools (points) within the distance, with distance_ft.", "point",
             "vernal_pools.qml", "Certified vernal pools within reach"),
        Sink("SEARCH_AREA", "buffer_500ft", "Search area",
             "The area within the distance of the site (for the map only: the features are "
             "selected by exact distance, not by this polygon).", "polygon",
             "search_area.qml", "Habitat search area"),
    )
    HELP = """
Finds the NHESP Priority Habitats of Rare Species, Estimated Habitats of Rare Wildlife and \
Certified Vernal Pools within DISTANCE feet of the construction activity (the site), which \
the town's stormwater regulation requires to be shown on the erosion and sediment control \
plan (the regulation profile the town config names sets the distance and the section the \
finding cites; the default regulation's is 500 ft). Distances are exact, from the site's \
edge (0 where they overlap); a feature at exactly DISTANCE is included.

Runs <i>swm-gis screen</i> with the site and the habitat layers given, and returns the \
'habitats' part of screening.json (layer, id, distance_ft, overlaps) plus the features found \
as OUTPUT.
"""

    def initAlgorithm(self, config=None):  # noqa: N802
        self.add_town_config_param()
        self.add_site_param()
        self.add_town_layers()
        self.add_distance("DISTANCE", "Distance (ft)", None,
                          "Report features within this many feet of the site. Empty: the "
                          "distance of the town's stormwater regulation (the default "
                          "regulation's: 500 ft; the town's profile decides).", optional=True)
        self.add_common_advanced()
        self.add_output_folder(SCREEN_FOLDER_HELP)
        self.add_sinks_and_files()
        self.addOutput(QgsProcessingOutputNumber(
            "FEATURE_COUNT", self.tr("Features within the distance (NULL when not checked)")))

    def engine_args(self, parameters, context, feedback, ws):
        require_any(ws, ["PRIORITY_HABITATS", "ESTIMATED_HABITATS", "VERNAL_POOLS"],
                    "the habitat layers to screen against")
        if not ws.has("DISTANCE"):  # the regulation's (the engine's)
            return super().engine_args(parameters, context, feedback, ws)
        distance = self.parameterAsDouble(parameters, "DISTANCE", context)
        ws.rules["habitat_distance_ft"] = distance
        if ws.town_config():
            ws.warn(f"A town config file is set, so its own habitat distance applies, not "
                    f"{distance:g} ft (set [rules] habitat_distance_ft in the config to change "
                    "it).")
        return super().engine_args(parameters, context, feedback, ws)

    def summarize(self, data, feedback):
        found = data.get("habitats") or []
        for line in listed([f"{h.get('layer')} {h.get('id')}: {_ft(h.get('distance_ft'))}"
                            + (" (overlaps the site)" if h.get("overlaps") else "")
                            for h in found]):
            feedback.pushInfo(line)
        return {"FEATURE_COUNT": findings.counted(self.count("habitats_found") or 0,
                                                  self.status("habitats"))}


def _ft(value) -> str:
    return f"{value:,.1f} ft" if isinstance(value, (int, float)) else "distance unknown"

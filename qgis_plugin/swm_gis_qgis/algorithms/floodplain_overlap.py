"""swm_gis:floodplainoverlap - SFHA and 0.2% zones overlapping the site."""

from __future__ import annotations

from qgis.core import QgsProcessingOutputNumber

from .. import findings
from .screen_base import IN_SFHA, SCREEN_FOLDER_HELP, ScreenAlgorithm, Sink, listed


class FloodplainOverlapAlgorithm(ScreenAlgorithm):
    ALG_ID = "floodplainoverlap"
    DISPLAY_NAME = "Floodplain overlap: FEMA SFHA and 0.2% zones on the site"
    #: the parcels (optional): the default regulation's site is the lot, so the floodplain of
    #: the whole parcel(s) the site lies on is reported beside the limit of disturbance's
    TOWN_LAYERS = (("flood_zones", False, False), ("parcels", True, False))
    ACCEPTS_TOWN_CONFIG = True
    JSON_KEYS = ("floodplain",)
    FLAGS = (IN_SFHA,)
    SINKS = (
        Sink("OUTPUT", "flood_overlap", "Flood zone pieces on the site",
             "The FEMA flood zones cut to the site: zone, subtype, BFE, sfha, shaded_x and "
             "area_sqft.", "polygon", "flood_zones.qml", "Flood zones on the site",
             optional=False),
        Sink("FLOOD_ZONES_NEARBY", "flood_zones", "Flood zones around the site",
             "The whole FEMA flood zone polygons the site touches, for the map.", "polygon",
             "flood_zones.qml", "Flood zones near the site"),
    )
    HELP = """
Delineates the 100-year floodplain (FEMA Special Flood Hazard Area) on the site, as the town's \
stormwater regulation requires: whether the site is in the SFHA, the overlap area (sq ft) and \
share of the site, the zones with their subtype and base flood elevation, and the \
0.2%-annual-chance (shaded X) area separately. The SFHA is SFHA_TF = 'T' where that field exists, \
else zones A, A1-A30, AE, AH, AO, A99, AR, V, V1-V30, VE. Areas are exact intersections in the \
working CRS.

Runs <i>swm-gis screen</i> with the site and FLOOD_ZONES and returns the 'floodplain' part of \
screening.json and the zone pieces as OUTPUT. SFHA_AREA_SQFT, SITE_FRACTION and \
SHADED_X_AREA_SQFT are the figures <b>inside the limit of disturbance</b>. With PARCELS, the \
finding leads with the whole parcel(s) the site lies on (the default regulation's site is the \
lot; the town's profile decides) and splits them: on the lot inside and outside the limit, and \
inside the limit off the lot, with the limit's own total; without it only the limit of \
disturbance is measured. For every parcel of a town use swm_gis:applicabilitymap.
"""

    def initAlgorithm(self, config=None):  # noqa: N802
        self.add_town_config_param()
        self.add_site_param()
        self.add_town_layers()
        self.add_common_advanced()
        self.add_output_folder(SCREEN_FOLDER_HELP)
        self.add_sinks_and_files()
        # the limit of disturbance's figures (the findings name the lot's too, and say which)
        for name, desc in (("SFHA_AREA_SQFT", "SFHA inside the limit of disturbance (sq ft)"),
                           ("SITE_FRACTION",
                            "Share of the limit of disturbance in the SFHA (0-1)"),
                           ("SHADED_X_AREA_SQFT",
                            "0.2% annual chance area inside the limit of disturbance (sq ft)")):
            self.addOutput(QgsProcessingOutputNumber(name, self.tr(desc)))

    def summarize(self, data, feedback):
        f = data.get("floodplain") or {}
        for line in listed([f"Zone {z.get('zone')}{' ' + z['subtype'] if z.get('subtype') else ''}"
                            f": {z.get('area_sqft') or 0:,.0f} sq ft"
                            + (f", BFE {z['bfe']:g} ft" if isinstance(z.get("bfe"), (int, float))
                               else "") for z in f.get("zones") or []]):
            feedback.pushInfo(line)
        status = self.status("floodplain")  # 0 where not (fully) checked is NULL, not "none"
        return {"SFHA_AREA_SQFT": findings.determined(self.count("sfha_area_sqft"), status),
                "SITE_FRACTION": findings.determined(self.count("site_fraction"), status),
                "SHADED_X_AREA_SQFT": findings.determined(self.count("shaded_x_area_sqft"),
                                                          status)}

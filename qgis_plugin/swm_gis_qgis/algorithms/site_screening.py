"""swm_gis:sitescreening - every check for one site, with the report (``swm-gis screen``)."""

from __future__ import annotations

from qgis.core import (
    QgsProcessingOutputFile,
    QgsProcessingOutputHtml,
    QgsProcessingOutputNumber,
)

from .. import findings, manifest
from .screen_base import (
    HABITATS_FOUND,
    IMPAIRED_DOWNSTREAM,
    IN_SFHA,
    ORW_DOWNSTREAM,
    PERMIT,
    ScreenAlgorithm,
    Sink,
)

TOWN = (("parcels", False, False), ("assess", True, True), ("nhesp_priority", True, False),
        ("nhesp_estimated", True, False), ("vernal_pools", True, False),
        ("flood_zones", True, False), ("huc12", True, False), ("huc10", True, False),
        ("orw", True, False), ("impaired_waters", True, False), ("streams", True, False),
        ("ms4", True, False), ("waterbodies", True, True), ("town_boundary", True, True),
        ("dem", True, False), ("impervious", True, False))


class SiteScreeningAlgorithm(ScreenAlgorithm):
    ALG_ID = "sitescreening"
    DISPLAY_NAME = "Site screening: all checks and the report"
    TOWN_LAYERS = TOWN
    ACCEPTS_TOWN_CONFIG = True
    WITH_COMMON_PLAN = True
    WITH_EXEMPTIONS = True
    WITH_DEVELOPMENT = True
    WITH_MITIGATION = True
    WITH_PROPOSED_IMPERVIOUS = True
    REPORT_OPTIONAL = False
    LOG_ENGINE_STEPS = True
    JSON_KEYS = findings.KEYS  # every finding, in the report's order (the engine's)
    FLAGS = (PERMIT, IN_SFHA, HABITATS_FOUND, ORW_DOWNSTREAM, IMPAIRED_DOWNSTREAM)
    SINKS = (
        Sink("OUTPUT", "site", "Site (limit of disturbance)",
             "The union of the site polygons as measured, with area and permit_required.",
             "polygon", "site.qml", "Limit of disturbance", optional=False),
        Sink("HABITATS", "habitats", "Habitats within the distance",
             "NHESP habitat polygons within the regulation's distance, with distance_ft.",
             "polygon",
             "habitats.qml", "NHESP habitats within reach"),
        Sink("VERNAL_POOLS_OUTPUT", "habitats", "Certified vernal pools within the distance",
             "Certified vernal pools within the regulation's distance, with distance_ft.", "point",
             "vernal_pools.qml", "Certified vernal pools within reach"),
        Sink("FLOOD_ZONES_OUTPUT", "flood_overlap", "Flood zone pieces on the site",
             "FEMA flood zones cut to the site, with area_sqft.", "polygon", "flood_zones.qml",
             "Flood zones on the site"),
        Sink("RECEIVING_WATERS", "receiving_waters", "Receiving waters (lines)",
             "ORWs and impaired streams downstream, with flow_distance_ft.", "line",
             "receiving_waters.qml", "Receiving waters"),
        Sink("RECEIVING_WATER_AREAS", "receiving_waters", "Receiving waters (ponds, lakes)",
             "ORWs and impaired waters mapped as polygons.", "polygon",
             "receiving_water_areas.qml", "Receiving waters (areas)"),
        Sink("FLOW_PATH", "flow_path", "Flow path", "The traced flow path downstream.", "line",
             "flow_path.qml", "Flow path"),
        Sink("MITIGATION_OUTPUT", "mitigation", "Mitigation sites with eligibility",
             "Off-site mitigation sites with eligibility and reason.", "polygon",
             "mitigation.qml", "Mitigation eligibility"),
        Sink("WATERSHEDS", "watersheds", "Watersheds of the site",
             "HUC12 and HUC10 polygons holding the site, with the site's share.", "polygon",
             "watersheds.qml", "Site watersheds"),
    )
    HELP = """
Screens one proposed project against the town's stormwater regulation (the profile the town \
config names; the default regulation's where it names none) and writes the report: land \
disturbance and permit trigger (with common plan and claimed exemptions), new development vs \
redevelopment, the retention/treatment standard and required retention volume (cu ft), \
HUC12/HUC10 and off-site mitigation eligibility, NHESP habitats and vernal pools within the \
regulation's distance, FEMA floodplain overlap, and the downstream Outstanding Resource Waters \
and impaired waters with the requirements they bring; each finding cites its section of the \
regulation, and the report lists the submittal checklist that applies.

<b>Town layers</b>: either TOWN_CONFIG (a town TOML file naming every layer, for staff who \
keep one config per town) or the individual layers below; a missing optional layer only \
disables the checks that need it (the results say which checks ran and on which data).

<b>Outputs</b>: screening.json, screening_report.html, screening_report.pdf and \
screening.gpkg in OUTPUT_FOLDER (a temporary folder if not set), the site and the features \
found as layers, and the key figures. Same as <i>swm-gis screen</i>.
"""

    def initAlgorithm(self, config=None):  # noqa: N802
        self.add_town_config_param()
        self.add_site_param()
        self.add_town_layers(only=("parcels",))
        self.add_screen_options()
        self.add_town_layers(skip=("parcels",), fold=True)
        self.add_common_advanced()
        self.add_output_folder("Folder for screening.json, screening_report.html, "
                               "screening_report.pdf and screening.gpkg (optional; a temporary "
                               "folder otherwise).")
        self.add_sinks_and_files()
        self.addOutput(QgsProcessingOutputHtml("REPORT_HTML", self.tr("Screening report")))
        self.addOutput(QgsProcessingOutputFile("REPORT_PDF", self.tr("Screening report (PDF)")))
        for name, desc in (("AREA_SQFT", "Disturbance (sq ft)"),
                           ("REQUIRED_RETENTION_CUFT", "Required retention (cu ft)")):
            self.addOutput(QgsProcessingOutputNumber(name, self.tr(desc)))

    def collect(self, result, parameters, context, feedback, ws):
        res = super().collect(result, parameters, context, feedback, ws)
        res["REPORT_HTML"] = manifest.path_of(self._manifest, "report_html")
        res["REPORT_PDF"] = manifest.path_of(self._manifest, "report_pdf")
        res["OUTPUT_FOLDER"] = self._manifest.get("out_dir")
        return res

    def summarize(self, data, feedback):
        return {"AREA_SQFT": self.count("area_sqft"),
                "REQUIRED_RETENTION_CUFT": self.count("required_retention_cuft")}

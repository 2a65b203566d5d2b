"""swm_gis:disturbancetrigger - disturbance area, common plan, exemption, permit required."""

from __future__ import annotations

from qgis.core import QgsProcessingOutputNumber, QgsProcessingOutputString

from .screen_base import PERMIT, SCREEN_FOLDER_HELP, ScreenAlgorithm, Sink


class DisturbanceTriggerAlgorithm(ScreenAlgorithm):
    ALG_ID = "disturbancetrigger"
    DISPLAY_NAME = "Disturbance trigger: is a Stormwater Management Permit required?"
    #: the rule needs the site (and the common plan); the Town's MS4, when given, tells whether
    #: the disturbance drains to it
    TOWN_LAYERS = (("ms4", True, False),)
    WITH_COMMON_PLAN = True
    WITH_EXEMPTIONS = True
    JSON_KEYS = ("disturbance",)
    FLAGS = (PERMIT,)
    SINKS = (
        Sink("OUTPUT", "site", "Site (limit of disturbance)",
             "The union of the site polygons as measured, with area_sqft, area_acres and "
             "permit_required.", "polygon", "site.qml", "Limit of disturbance", optional=False),
        Sink("COMMON_PLAN_OUTPUT", "common_plan", "Common plan (union with the site)",
             "The larger common plan of development or sale united with the site, with its "
             "area (only when COMMON_PLAN is given).", "polygon", "site.qml", "Common plan"),
    )
    HELP = """
Measures the land disturbance of the site (the area of the <i>union</i> of its polygons, so \
overlaps are not counted twice) and, when given, of the larger common plan of development or \
sale, and says which tier of the town's stormwater regulation the project reaches (none, \
administrative review or permit) and whether a permit is required, with each tier's threshold \
and citation. The regulation is the profile the town config names (or REGULATION); under the \
default regulation a permit is required for disturbance of 1 acre (43,560 sq ft) or more, or \
less than 1 acre within a common plan that disturbs 1 acre or more; the town's profile decides. \
Claimed exemptions are reported as the applicant's claim, with the regulation's citation.

Needs only the site (and the common plan when there is one): no parcels, no flow trace. The \
Town's MS4 layer, when given, tells whether the disturbance drains to the MS4 (the site within \
10 ft of a storm drain, pipe or outfall); without it the finding states that it assumes so. \
Returns the disturbance in square feet and acres, whether a permit is required \
(with the finding's status: yes, no or conditional), the exemption claimed and the reasons, \
plus the result as a JSON file.
"""

    def initAlgorithm(self, config=None):  # noqa: N802
        self.add_site_param()
        self.add_town_layers()
        self.add_screen_options()
        self.add_common_advanced()
        self.add_output_folder(SCREEN_FOLDER_HELP)
        self.add_sinks_and_files()
        for name, desc in (("AREA_SQFT", "Disturbance (sq ft)"),
                           ("AREA_ACRES", "Disturbance (acres)"),
                           ("COMMON_PLAN_AREA_SQFT", "Common plan disturbance (sq ft)")):
            self.addOutput(QgsProcessingOutputNumber(name, self.tr(desc)))
        self.addOutput(QgsProcessingOutputString("EXEMPTION", self.tr("Exemption claimed")))
        self.addOutput(QgsProcessingOutputString("REASONS", self.tr("Reasons")))

    def summarize(self, data, feedback):
        d = data.get("disturbance") or {}
        reasons = d.get("reasons") or []
        exemption = d.get("exemption")
        return {"AREA_SQFT": self.count("area_sqft"), "AREA_ACRES": self.count("area_acres"),
                "COMMON_PLAN_AREA_SQFT": self.count("common_plan_area_sqft"),
                "EXEMPTION": _exemption_text(exemption),
                "REASONS": "\n".join(str(r) for r in reasons)}


def _exemption_text(exemption) -> str:
    """The claimed exemptions as names ('' when none): never a Python repr."""
    if not exemption:
        return ""
    items = exemption if isinstance(exemption, list) else [exemption]
    return ", ".join(str(e.get("name", e)) if isinstance(e, dict) else str(e) for e in items)

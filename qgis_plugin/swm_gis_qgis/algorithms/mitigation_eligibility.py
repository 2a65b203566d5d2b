"""swm_gis:mitigationeligibility - HUC12/HUC10 of the site and of mitigation sites."""

from __future__ import annotations

from qgis.core import QgsProcessingOutputNumber, QgsProcessingOutputString

from .. import findings
from .screen_base import SCREEN_FOLDER_HELP, ScreenAlgorithm, Sink, listed, require_any


class MitigationEligibilityAlgorithm(ScreenAlgorithm):
    ALG_ID = "mitigationeligibility"
    DISPLAY_NAME = "Mitigation eligibility: same HUC12 / HUC10 as the site"
    #: the parcels (optional, advanced): the existing impervious cover of the whole parcel(s)
    #: the site lies on is reported beside the limit of disturbance's
    TOWN_LAYERS = (("huc12", True, False), ("huc10", True, False), ("impervious", True, False),
                   ("parcels", True, True))
    ACCEPTS_TOWN_CONFIG = True
    WITH_DEVELOPMENT = True
    WITH_MITIGATION = True
    JSON_KEYS = ("development_type", "watersheds", "mitigation", "standards")
    SINKS = (
        Sink("OUTPUT", "mitigation", "Mitigation sites with eligibility",
             "The proposed off-site mitigation sites with id, huc, eligible (true/false), the "
             "reason and the regulation's section.", "polygon", "mitigation.qml",
             "Mitigation eligibility", optional=False),
        Sink("WATERSHEDS", "watersheds", "Watersheds of the site",
             "The HUC12 and HUC10 polygons holding the site, with the site's share in each.",
             "polygon", "watersheds.qml", "Site watersheds"),
    )
    HELP = """
Finds the USGS HUC12 and HUC10 watersheds of the site (with the share of the site in each) and \
says whether each proposed off-site mitigation site is eligible: the town's stormwater regulation \
ties off-site mitigation to the site's watershed (the default regulation's: the same HUC12 for \
new development and the same HUC10 for redevelopment; the town's profile decides). New \
development vs redevelopment comes from DEVELOPMENT, or, when 'auto', from the existing \
impervious cover (IMPERVIOUS) under the site.

Runs <i>swm-gis screen</i> with the site, MITIGATION and the HUC layers and returns the \
'development_type', 'watersheds' and 'mitigation' parts of screening.json, and the mitigation \
sites with eligible and reason as OUTPUT.
"""

    def initAlgorithm(self, config=None):  # noqa: N802
        self.add_town_config_param()
        self.add_site_param()
        self.add_screen_options()
        self.add_town_layers()
        self.add_common_advanced()
        self.add_output_folder(SCREEN_FOLDER_HELP)
        self.add_sinks_and_files()
        self.addOutput(QgsProcessingOutputString("DEVELOPMENT_TYPE",
                                                 self.tr("new or redevelopment")))
        self.addOutput(QgsProcessingOutputString("MITIGATION_HUC_LEVEL",
                                                 self.tr("HUC level for mitigation")))
        self.addOutput(QgsProcessingOutputNumber(
            "ELIGIBLE_COUNT", self.tr("Eligible mitigation sites (NULL when not checked)")))

    def engine_args(self, parameters, context, feedback, ws):
        require_any(ws, ["HUC12", "HUC10"], "the watershed layers")
        return super().engine_args(parameters, context, feedback, ws)

    def summarize(self, data, feedback):
        mit = data.get("mitigation") or []
        for line in listed([f"Mitigation site {m.get('id')} (HUC {m.get('huc') or 'none'}): "
                            f"{'eligible' if m.get('eligible') else 'not eligible'}"
                            for m in mit]):
            feedback.pushInfo(line)
        dev = (data.get("development_type") or {}).get("value")
        level = (data.get("standards") or {}).get("mitigation_huc_level")
        out = {}
        n_ok, n_sites = self.count("mitigation_eligible") or 0, self.count("mitigation_sites")
        if n_sites:  # the headline answers this tool's own question
            out["HEADLINE"] = (f"{n_ok} of {n_sites} mitigation site(s) eligible"
                               + (f" (same {level} as the site, {dev or 'development type'} "
                                  "rule)" if level else "") + ".")
            feedback.pushInfo(out["HEADLINE"])
        return {**out, "DEVELOPMENT_TYPE": dev or "", "MITIGATION_HUC_LEVEL": level or "",
                "ELIGIBLE_COUNT": findings.counted(n_ok, self.status("mitigation"))}

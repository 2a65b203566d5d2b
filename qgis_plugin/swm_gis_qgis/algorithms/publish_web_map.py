"""swm_gis:publishwebmap - the public web map of the applicability classes (``swm-gis publish``)."""

from __future__ import annotations

from qgis.core import (
    QgsProcessingOutputFile,
    QgsProcessingOutputHtml,
    QgsProcessingOutputNumber,
    QgsProcessingParameterFile,
    QgsProcessingParameterFolderDestination,
    QgsProcessingParameterNumber,
)

from .. import manifest
from .base import SwmGisAlgorithm
from .site_screening import TOWN


class PublishWebMapAlgorithm(SwmGisAlgorithm):
    ALG_ID = "publishwebmap"
    DISPLAY_NAME = "Public web map: do I need a stormwater permit?"
    GROUP = "Town-wide"
    GROUP_ID = "townwide"
    TOWN_LAYERS = tuple(t for t in TOWN if t[0] != "impervious")
    ACCEPTS_TOWN_CONFIG = True
    #: a public site: the plugin's provenance (the user's layer sources) is never written in it
    PUBLIC_OUTPUT = True
    HELP = """
Writes a static web site of the applicability map for the public: every parcel drawn by the map \
key the QGIS style uses too (colour: the strongest constraint found; patterns: the others and the \
checks not run; heavy outline: a large parcel), the streets, water and town boundary, a search by \
street address (the assessing table's site address) or map-lot, and a card per parcel in plain \
words (area, the regulation's trigger, NHESP habitats, floodplain share, HUC12/HUC10, runoff to \
ORWs and impaired waters, 'not checked' said as plainly as yes and no) with the sections of the \
town's stormwater regulation quoted and the Conservation Commission's role stated. It opens \
offline from the folder or from any web server: no server-side code, no internet.

<b>Town layers</b>: TOWN_CONFIG (a town TOML file; the data listed on the page is then named \
as the config names it) or the individual layers. APPLICABILITY publishes an applicability \
GeoPackage already written (by the Applicability map algorithm, kept with its style); without \
it the map is computed first.

<b>Privacy</b>: owner names and mailing addresses are not published unless the town config \
says [publish] include_owners = true.

<b>Outputs</b>: SITE_FOLDER (index.html, data/, assets/, publish.json; files of the same name \
are replaced), INDEX_HTML (the page), PARCEL_COUNT and SITE_BYTES. Same as \
<i>swm-gis publish</i>.
"""

    def initAlgorithm(self, config=None):  # noqa: N802
        self.add_town_config_param()
        self.add(QgsProcessingParameterFile(
            "APPLICABILITY", self.tr("Applicability map to publish (GeoPackage)"),
            behavior=QgsProcessingParameterFile.Behavior.File, extension="gpkg", optional=True),
            "An applicability GeoPackage written by the Applicability map algorithm (its engine "
            "GeoPackage) or by swm-gis applicability. Empty: the map is computed from the "
            "town layers first.")
        self.add_town_layers(only=("parcels",))
        self.add_right_of_way_params()
        self.add_town_layers(skip=("parcels",), fold=True)
        p = QgsProcessingParameterNumber("SIMPLIFY_FT", self.tr("Display simplification (ft)"),
                                         QgsProcessingParameterNumber.Type.Double,
                                         defaultValue=1.5, minValue=0.0, maxValue=100.0)
        p.setMetadata({"widget_wrapper": {"decimals": 1}})
        self.add(p, "How far (feet) the parcel shapes drawn on the web map may move from the "
                 "exact ones, to keep the site small; 0 keeps them exact. The figures on the "
                 "cards always come from the exact parcels.", advanced=True)
        self.add_common_advanced()
        self.add(QgsProcessingParameterFolderDestination(
            "SITE_FOLDER", self.tr("Web site folder"), optional=True, createByDefault=True),
            "The folder the site is written into (copy it to the town's web server, or open "
            "index.html). The engine writes it whole at the end; files of the same name "
            "already in it are replaced (the log names them), other files are left alone. A "
            "temporary folder when none is chosen.")
        self.addOutput(QgsProcessingOutputHtml("INDEX_HTML", self.tr("Web map page")))
        self.addOutput(QgsProcessingOutputFile("PUBLISH_JSON",
                                               self.tr("What the site rests on (JSON)")))
        self.addOutput(QgsProcessingOutputNumber("PARCEL_COUNT", self.tr("Parcels published")))
        self.addOutput(QgsProcessingOutputNumber("SITE_BYTES", self.tr("Size of the site")))

    def engine_args(self, parameters, context, feedback, ws):
        ws.right_of_way = self.right_of_way(parameters, context, ws)
        config = ws.config_path()
        # the engine writes SITE_FOLDER itself (staged beside it, moved in whole at the end)
        self.engine_out = self._site = ws.out_folder("SITE_FOLDER", sub="site")
        args = ["publish", "--config", config, "--out", self._site, "--overwrite",
                "--simplify-ft", repr(self.parameterAsDouble(parameters, "SIMPLIFY_FT", context))]
        source = self.parameterAsFile(parameters, "APPLICABILITY", context)
        if source:
            args += ["--from", source]
        return args

    def collect(self, result, parameters, context, feedback, ws):
        m = self.manifest_of(result)
        for line in m.get("summary") or []:
            feedback.pushInfo(ws.say(str(line), ids=False))
        return {"SITE_FOLDER": m.get("out_dir"), "INDEX_HTML": manifest.path_of(m, "web_page"),
                "PUBLISH_JSON": manifest.path_of(m, "record"),
                "PARCEL_COUNT": manifest.count(m, "parcels"),
                "SITE_BYTES": manifest.count(m, "size_bytes")}

"""Shared base of the algorithms that run ``swm-gis screen`` (one site, ``docs/qgis.md``).

The single-check algorithms (disturbance trigger, habitats, floodplain, mitigation, receiving
waters) run the same ``swm-gis screen`` with only the layers their check needs: a check whose
layers are absent does not run (the engine says so in ``checks``). Each returns its findings
and figures (as numbers/strings), the engine's ``screening.json`` as the JSON file output and
the matching layers of ``screening.gpkg`` as feature sinks, all read from the engine's result
manifest (:mod:`swm_gis_qgis.manifest`). No rule is computed here.
"""

from __future__ import annotations

from dataclasses import dataclass

from qgis.core import (
    QgsProcessing,
    QgsProcessingException,
    QgsProcessingOutputBoolean,
    QgsProcessingOutputFile,
    QgsProcessingOutputString,
    QgsProcessingParameterEnum,
    QgsProcessingParameterFeatureSink,
    QgsProcessingParameterFeatureSource,
    QgsProcessingParameterField,
    QgsProcessingParameterNumber,
)

from .. import catalog, findings, manifest
from .base import SwmGisAlgorithm

# The exemptions offered (the default regulation profile's; the engine checks a claim against
# the applied profile's) and the development types are the engine's: catalog.CHOICES.
SCREEN_FOLDER_HELP = "Folder for screening.json and screening.gpkg (and the report when asked)."


@dataclass(frozen=True)
class Sink:
    """A feature sink filled from one layer of the engine's screening.gpkg."""

    param: str
    layer: str  # layer of screening.gpkg
    description: str
    help: str
    geometry: str | None = None  # polygon | line | point: only those features (mixed layers)
    style: str | None = None  # the style the engine stored with the layer (its QML name)
    display: str | None = None  # layer name in the project
    optional: bool = True


@dataclass(frozen=True)
class Flag:
    """A boolean output read from a finding's status (or one part of it): True for yes, False
    only for no, NULL for conditional / not checked (:func:`findings.flag`)."""

    name: str
    key: str  # finding key
    part: str | None  # part of the finding (receiving waters: orw, impaired)
    description: str

    def help_text(self) -> str:
        """The output's description: what false and NULL mean, and where the status is."""
        status = ("PERMIT_STATUS" if self.name == "PERMIT_REQUIRED" else
                  f"{self.key.upper()}_STATUS" + (f", {self.part} part" if self.part else ""))
        return (f"{self.description} (true: yes; false: no, found not to apply on complete "
                f"data; NULL: conditional or not checked, see {status})")


#: The boolean outputs a model can branch on, one per finding (or part) that has a yes/no.
PERMIT = Flag("PERMIT_REQUIRED", "disturbance", None, "Permit required")
IN_SFHA = Flag("IN_SFHA", "floodplain", None, "Site in the SFHA")
HABITATS_FOUND = Flag("HABITATS_FOUND", "habitats", None,
                      "NHESP habitat or certified vernal pool within the distance")
ORW_DOWNSTREAM = Flag("ORW_DOWNSTREAM", "receiving_waters", "orw",
                      "Outstanding Resource Water downstream")
IMPAIRED_DOWNSTREAM = Flag("IMPAIRED_DOWNSTREAM", "receiving_waters", "impaired",
                           "Impaired water downstream")


class ScreenAlgorithm(SwmGisAlgorithm):
    GROUP = "Site screening"
    GROUP_ID = "screening"
    #: the findings (screening sections) this algorithm reports.
    JSON_KEYS: tuple[str, ...] = ()
    SINKS: tuple[Sink, ...] = ()
    FLAGS: tuple[Flag, ...] = ()
    WITH_COMMON_PLAN = False
    WITH_EXEMPTIONS = False
    WITH_DEVELOPMENT = False
    WITH_MITIGATION = False
    WITH_PROPOSED_IMPERVIOUS = False
    #: a single check writes the report only when asked (WRITE_REPORT)
    REPORT_OPTIONAL = True
    #: a single check logs its own lines only, not the engine's every screening step
    LOG_ENGINE_STEPS = False

    # ------------------------------------------------------------------ parameters
    def add_site_param(self) -> None:
        self.add(QgsProcessingParameterFeatureSource(
            "SITE", self.tr("Site: proposed limit of disturbance (polygons)"),
            [QgsProcessing.SourceType.TypeVectorPolygon]),
            "The proposed limit of disturbance: one or more polygons (selected features only "
            "works). Their union is the site; overlaps are not counted twice.")

    def add_screen_options(self) -> None:
        self.add_ms4_statement()
        if self.WITH_COMMON_PLAN:
            self.add(QgsProcessingParameterFeatureSource(
                "COMMON_PLAN", self.tr("Larger common plan of development or sale"),
                [QgsProcessing.SourceType.TypeVectorPolygon], optional=True),
                "The disturbance of the larger common plan of development or sale the site "
                "belongs to (e.g. every lot of a subdivision), where the town's regulation "
                "counts it: under the default regulation a site under 1 acre in a plan that "
                "disturbs 1 acre or more still needs a permit (the town's profile decides).")
        if self.WITH_EXEMPTIONS:
            self.add(QgsProcessingParameterEnum(
                "EXEMPTIONS", self.tr("Exemptions claimed (the regulation's)"),
                catalog.labels("exemptions"), allowMultiple=True, optional=True),
                "Exemptions the applicant claims under the town's stormwater regulation; the "
                "result states the claim as the applicant's and cites it, it does not verify "
                "it. The list is the default regulation's; a town whose profile lists other "
                "exemptions gets the engine's refusal of a name it does not list.")
        if self.WITH_DEVELOPMENT:
            self.add(QgsProcessingParameterEnum(
                "DEVELOPMENT", self.tr("New development or redevelopment"),
                catalog.labels("development"), defaultValue=0),
                "auto: decided from the existing impervious cover (IMPERVIOUS) under the site; "
                "or state new development / redevelopment.")
            self.add_bool("ROADWAY_MAINTENANCE", "Roadway maintenance redevelopment", False,
                          "The project is roadway maintenance redevelopment (the town's "
                          "regulation may exempt it from some redevelopment standards; the "
                          "finding cites the section).",
                          advanced=True)
        if self.WITH_MITIGATION:
            self.add(QgsProcessingParameterFeatureSource(
                "MITIGATION", self.tr("Proposed off-site mitigation sites"),
                [QgsProcessing.SourceType.TypeVectorAnyGeometry], optional=True),
                "Candidate off-site mitigation sites; each is checked against the HUC12 (new "
                "development) or HUC10 (redevelopment) of the site.")
            self.add(QgsProcessingParameterField(
                "MITIGATION_ID_FIELD", self.tr("Mitigation site id field"),
                parentLayerParameterName="MITIGATION", optional=True),
                "Field naming each mitigation site in the results. Empty: the engine uses a "
                "field called id, else the first ending in _id (e.g. MIT_ID), else name, else "
                "the row number.", advanced=True)
        if self.WITH_PROPOSED_IMPERVIOUS:
            self.add(QgsProcessingParameterFeatureSource(
                "PROPOSED_IMPERVIOUS", self.tr("Proposed (post-construction) impervious cover"),
                [QgsProcessing.SourceType.TypeVectorPolygon], optional=True),
                "Polygons of the proposed (post-construction) impervious cover, for the "
                "required retention volume. The existing impervious cover on the site's "
                "parcel(s) outside the limit of disturbance that stays is added to it: the "
                "total post-construction impervious area on the site.")
            self.add(QgsProcessingParameterNumber(
                "PROPOSED_IMPERVIOUS_SQFT", self.tr("Or: proposed impervious area (sq ft)"),
                QgsProcessingParameterNumber.Type.Double, optional=True, minValue=0.0),
                "Proposed impervious area inside the limit of disturbance in square feet, when "
                "there is no polygon layer (PROPOSED_IMPERVIOUS wins when both are given); the "
                "existing cover outside the limit that stays is added to it.")
            self.add(QgsProcessingParameterFeatureSource(
                "REMOVED_IMPERVIOUS", self.tr("Existing impervious cover removed (polygons)"),
                [QgsProcessing.SourceType.TypeVectorPolygon], optional=True),
                "Existing impervious cover on the site's parcel(s) outside the limit of "
                "disturbance that the applicant removes: it is left out of the total "
                "post-construction impervious area (without it, all of that cover stays).",
                advanced=True)

    def add_ms4_statement(self) -> None:
        """ALL_LAND_DRAINS_TO_MS4: the town states that all of its land drains to its MS4
        (``[town] all_land_drains_to_ms4`` of the config the run writes)."""
        if PERMIT in self.FLAGS:
            self.add_bool(
                "ALL_LAND_DRAINS_TO_MS4", "All the town's land drains to its MS4", False,
                "The permit trigger applies to land \"draining to the Town's MS4\". Without an "
                "MS4 layer the permit finding is conditional on it, unless this box states that "
                "all of the town's land drains to its MS4: the report then prints that as the "
                "Town's assumption. Not used with a town config file (its [town] "
                "all_land_drains_to_ms4 says it).", advanced=True)

    def names_town(self, parameters, context) -> bool:
        """Only the screening report prints the town's name: a single check without it does
        not need one."""
        return not self.REPORT_OPTIONAL or \
            self.parameterAsBoolean(parameters, "WRITE_REPORT", context)

    def add_sinks_and_files(self) -> None:
        if self.REPORT_OPTIONAL:
            self.add_bool("WRITE_REPORT", "Also write the screening report (HTML and PDF)", False,
                          "Write screening_report.html and .pdf in the output folder too (a few "
                          "seconds more); Site screening always writes them.", advanced=True)
        for sk in self.SINKS:
            self.add(QgsProcessingParameterFeatureSink(
                sk.param, self.tr(sk.description), _SINK_TYPES.get(sk.geometry,
                                                               QgsProcessing.SourceType.TypeVectorAnyGeometry),
                optional=sk.optional, createByDefault=True), sk.help)
        self.addOutput(QgsProcessingOutputFile("JSON", self.tr("Result file (JSON)")))
        self.addOutput(QgsProcessingOutputFile("SCREENING_GPKG",
                                               self.tr("Screening layers (GeoPackage)")))
        self.addOutput(QgsProcessingOutputString("HEADLINE", self.tr("Headline")))
        self.addOutput(QgsProcessingOutputString("FINDINGS",
                                                 self.tr("Findings (title: status - answer)")))
        for key in self.FINDING_KEYS or self.JSON_KEYS:
            self.addOutput(QgsProcessingOutputString(
                f"{key.upper()}_STATUS",
                self.tr(f"Status: {key.replace('_', ' ')} (yes, no, conditional, not_checked, "
                        "info)")))
        if PERMIT in self.FLAGS:
            self.addOutput(QgsProcessingOutputString(
                "PERMIT_STATUS", self.tr("Permit status (yes, no, conditional)")))
        for fl in self.FLAGS:
            self.addOutput(QgsProcessingOutputBoolean(fl.name, self.tr(fl.help_text())))

    # ------------------------------------------------------------------ running
    def engine_args(self, parameters, context, feedback, ws):
        site = ws.file_arg("SITE", "site")
        config = ws.config_path(without_parcels_crs=ws.checked_source("SITE").sourceCrs())
        args = ["screen", "--config", config, "--site", site]
        if self.WITH_COMMON_PLAN and ws.has("COMMON_PLAN"):
            args += ["--common-plan", ws.file_arg("COMMON_PLAN", "common_plan")]
        if self.WITH_EXEMPTIONS and ws.has("EXEMPTIONS"):
            for i in self.parameterAsEnums(parameters, "EXEMPTIONS", context):
                args += ["--exemption", catalog.values("exemptions")[i]]
        if self.WITH_DEVELOPMENT:
            dev = catalog.values("development")[
                self.parameterAsEnum(parameters, "DEVELOPMENT", context)]
            args += ["--development", dev]
            if self.parameterAsBoolean(parameters, "ROADWAY_MAINTENANCE", context):
                args.append("--roadway-maintenance")
        if self.WITH_MITIGATION and ws.has("MITIGATION"):
            src = self.parameterAsSource(parameters, "MITIGATION", context)
            id_field = self.parameterAsString(parameters, "MITIGATION_ID_FIELD", context)
            if id_field:
                if src.fields().indexOf(id_field) < 0:
                    raise QgsProcessingException(
                        f"MITIGATION has no field '{id_field}': choose one in "
                        f"MITIGATION_ID_FIELD. Fields: {', '.join(src.fields().names())}.")
                keep = [id_field]
                rename = {id_field: "id"} if id_field != "id" else {}
            else:
                keep, rename = list(src.fields().names()), {}
            args += ["--mitigation", ws.file_arg("MITIGATION", "mitigation", keep_fields=keep,
                                                 rename=rename)]
        if self.WITH_PROPOSED_IMPERVIOUS:
            if ws.has("PROPOSED_IMPERVIOUS"):
                args += ["--proposed-impervious",
                         ws.file_arg("PROPOSED_IMPERVIOUS", "proposed_impervious")]
            elif ws.has("PROPOSED_IMPERVIOUS_SQFT"):
                sqft = self.parameterAsDouble(parameters, "PROPOSED_IMPERVIOUS_SQFT", context)
                args += ["--proposed-impervious-sqft", f"{sqft:g}"]
            if ws.has("REMOVED_IMPERVIOUS"):
                args += ["--removed-impervious",
                         ws.file_arg("REMOVED_IMPERVIOUS", "removed_impervious")]
        args += self.extra_args(parameters, context, ws)
        if self.REPORT_OPTIONAL and not self.parameterAsBoolean(parameters, "WRITE_REPORT",
                                                                context):
            args.append("--no-report")
        self.engine_out = ws.out_folder()
        args += ["--out", self.engine_out, "--overwrite"]
        return args

    def extra_args(self, parameters, context, ws) -> list[str]:
        return []

    def collect(self, result, parameters, context, feedback, ws):
        m = self.manifest_of(result)
        self._manifest = m
        keys = self.FINDING_KEYS or self.JSON_KEYS
        try:
            found = findings.findings_of(m, path="its result manifest")
        except findings.EngineTooOld as exc:
            raise QgsProcessingException(str(exc)) from None
        gpkg = manifest.path_of(m, "layers")
        res = {"JSON": manifest.path_of(m, "record"), "SCREENING_GPKG": gpkg}
        written = manifest.layer_names(m)
        for sk in self.SINKS:  # the layers the manifest lists; an empty sink for the others
            res[sk.param] = self.copy_to_sink(parameters, sk.param, context, gpkg, sk.layer,
                                              style=sk.style, display=sk.display,
                                              geometry=sk.geometry,
                                              missing_ok=sk.layer not in written)
        res.update(findings.typed_outputs(found, keys))
        for fl in self.FLAGS:
            res[fl.name] = findings.flag(findings.status_of(found, fl.key, fl.part))
        if PERMIT in self.FLAGS:
            res["PERMIT_STATUS"] = findings.status_of(found, "disturbance")
        self._found = found
        res.update(self.summarize(m.get("details") or {}, feedback))
        for name, value in res.items():  # text outputs in the dialog's words, never a path
            out_def = self.outputDefinition(name)
            if isinstance(value, str) and out_def is not None and \
                    out_def.type() == "outputString":
                res[name] = "\n".join(ws.say(line, ids=False, whole=True)
                                      for line in value.splitlines())
        for line in findings.summary_lines(found, keys):
            feedback.pushInfo(ws.say(line, ids=False, whole=True))
        return res

    #: findings keys this algorithm reports (default: JSON_KEYS).
    FINDING_KEYS: tuple[str, ...] = ()

    def summarize(self, data: dict, feedback) -> dict:
        """This algorithm's own outputs from ``data``, the manifest's ``details`` (the
        screening's sections behind the findings, as screening.json has them)."""
        return {}

    def count(self, name: str):
        """A figure of this run's manifest ``counts``; None when the engine did not state it."""
        return manifest.count(getattr(self, "_manifest", {}), name)

    def status(self, key: str, part: str | None = None) -> str:
        """The engine's status of finding ``key`` (or its ``part``) in this run."""
        return findings.status_of(getattr(self, "_found", []), key, part)


def listed(items: list[str], limit: int = 8) -> list[str]:
    """At most ``limit`` lines for the log; the rest counted (the JSON file has them all)."""
    if len(items) <= limit:
        return items
    return items[:limit] + [f"... and {len(items) - limit} more (see the result file)"]


_SINK_TYPES = {"polygon": QgsProcessing.SourceType.TypeVectorPolygon,
               "line": QgsProcessing.SourceType.TypeVectorLine,
               "point": QgsProcessing.SourceType.TypeVectorPoint}


def require_any(ws, names: list[str], what: str) -> None:
    if not any(ws.has(n) for n in names) and not ws.has("TOWN_CONFIG"):
        raise QgsProcessingException(
            f"Choose at least one of {' or '.join(ws.label(n) for n in names)} ({what}).")

"""swm_gis:abutters - abutting parcels and the mailing package (runs ``swm-gis abutters``)."""

from __future__ import annotations

from qgis.core import (
    QgsProcessing,
    QgsProcessingException,
    QgsProcessingFeatureSourceDefinition,
    QgsProcessingOutputFile,
    QgsProcessingOutputNumber,
    QgsProcessingOutputString,
    QgsProcessingParameterEnum,
    QgsProcessingParameterFeatureSink,
    QgsProcessingParameterFeatureSource,
    QgsProcessingParameterString,
)

from .. import catalog, manifest, wording
from ..catalog import CATALOG, MAILING_FIELDS
from .base import SwmGisAlgorithm

# The Avery sheets (``--label-template``), notice lists (``--notice``) and orders (``--sort``;
# "" = nearest first) are the engine's, read from the generated catalog (catalog.CHOICES): the
# dialog's enums need them before the engine runs.
#: (output name, the engine's manifest role of the file, description): the plugin's file outputs
FILE_OUTPUTS = (
    ("ABUTTING_PARCELS_CSV", "abutting_parcels", "Abutting parcels (CSV)"),
    ("MAILING_LIST_CSV", "mailing_list", "Mailing list (CSV)"),
    ("MAILING_LIST_XLSX", "mailing_workbook", "Mailing list (Excel)"),
    ("LABELS_PDF", "labels", "Mailing labels, Avery 5160 (PDF)"),
    ("MAP_PDF", "map_pdf", "Abutters map (PDF)"),
    ("CERTIFIED_MAIL_PDF", "certified_mail", "Certified mail book, PS Form 3877 (PDF)"),
    ("LEFT_OUT_CSV", "left_out", "Parcels left out, with reasons (CSV)"),
    ("MAILING_REVIEW_CSV", "mailing_review", "Records to review before mailing (CSV)"),
    ("CERTIFICATION_PDF", "certification", "Certification sheet for the Board of Assessors "
                                           "(PDF)"),
    ("ABUTTERS_JSON", "record", "Counts and warnings (JSON)"),
    ("ABUTTERS_GPKG", "layers", "Subject, search area and abutters (GeoPackage)"),
)


class AbuttersAlgorithm(SwmGisAlgorithm):
    ALG_ID = "abutters"
    DISPLAY_NAME = "Abutters: notification list and mailing package"
    GROUP = "Notification"
    GROUP_ID = "notification"
    TOWN_LAYERS = (("parcels", False, False), ("assess", True, False),
                   ("town_boundary", True, True))
    ACCEPTS_TOWN_CONFIG = True
    #: a mailing list needs all of these; a default name the table lacks stops the run
    REQUIRED_FIELDS = MAILING_FIELDS
    HELP = """
Lists the owners of every property within the distance of the subject property's line that \
the town's stormwater regulation sets in its notice clause (the regulation profile the town \
config names; the default regulation's is 100 ft; the certification cites the clause), \
across streets, water and town lines, and writes the mailing package.

<b>How to</b>: select the subject parcel(s) on the map; choose the parcels layer under \
<i>Parcels</i> and again under <i>Subject property</i>, ticking <i>Selected features only</i> \
under <i>Subject property</i>. A selection under <i>Parcels</i> is not used: abutters are always \
searched among all parcels. The subject property may also be a layer of its own (its polygons \
are the site).

<b>Mailing list</b>: choose the <i>Assessing table</i> and check its owner, address, city, \
state and ZIP fields (under Advanced Parameters when your table names them differently from \
MassGIS's OWNER1, OWN_ADDR, OWN_CITY, OWN_STATE, OWN_ZIP). A field that does not resolve stops \
the run naming the parameter to set. Without the table the abutting parcels are listed but no \
mailing list is produced.

The distance is measured exactly from the subject parcels' property line; a parcel at exactly \
the distance is included. Right-of-way and water polygons without an owner are left out and \
listed with the reason; for a parcels layer without MassGIS's POLY_TYPE (e.g. Cambridge's, whose \
streets have ML = ROAD) set the right-of-way field and values under Advanced Parameters. \
The output folder receives abutting_parcels.csv, mailing_list.csv and .xlsx, labels.pdf, \
abutters_map.pdf, certified_mail.pdf, left_out.csv, mailing_review.csv (the \
owners that cannot be mailed for want of an address, and likely duplicates), certification.pdf \
(the cover sheet the Board of Assessors certifies), abutters.json and abutters.gpkg. The result \
says how many recipients cannot be mailed.
"""

    def initAlgorithm(self, config=None):  # noqa: N802
        li = CATALOG["parcels"]
        self.add_town_config_param()
        self.add_town_layers(only=("parcels",))
        self.add(QgsProcessingParameterFeatureSource(
            "SUBJECT", self.tr("Subject property"), [QgsProcessing.SourceType.TypeVectorPolygon]),
            "The subject property: the parcels layer with the subject parcel(s) selected and "
            "'Selected features only' ticked here, or a layer of its own (its polygons are the "
            "site; the parcels they reach inside are the subject). The selection on the "
            "parcels layer above is not used: abutters are always searched among all parcels.")
        self.add(QgsProcessingParameterString(
            "SUBJECT_IDS", self.tr("Subject parcel ids (comma-separated, instead of a "
                                   "selection)"), optional=True),
            f"Parcel ids ({li.fields[0].default} values, or the field chosen as the parcel id) "
            "of the subject property, separated by commas, for scripts and models where no "
            "selection exists; the subject property is then the parcels layer.", advanced=True)
        self.add_distance("DISTANCE", "Distance (ft)", None,
                          "Notify owners of property within this many feet of the subject "
                          "property line (inclusive). Empty: the distance of the notice clause "
                          "of the town's stormwater regulation (the default regulation's: "
                          "100 ft; the town's profile decides). A distance that differs from "
                          "the regulation's makes a plain radius list, and the certification "
                          "says so.", optional=True)
        self.add(QgsProcessingParameterEnum("NOTICE", self.tr("Notice list"),
                                            catalog.labels("notices"), defaultValue=0),
                 "Which board's list: the Conservation Commission's (the regulation's notice "
                 "clause: owners within the distance above, across streets) or the Zoning "
                 "Board's and Planning Board's parties in interest under M.G.L. c.40A s.11 "
                 "(abutters, owners directly opposite on any street or way, abutters to the "
                 "abutters within 300 ft, and every parcel within 100 ft; the distance above is "
                 "not used). The certification states the definition used.")
        self.add(QgsProcessingParameterEnum("SORT", self.tr("Order of the list, labels and "
                                                            "mailing book"),
                                            catalog.labels("sorts"), defaultValue=0),
                 "Nearest first, or as clerks sort: by owner name, by street (the parcel's "
                 "site address: street, then number) or by map-lot. The map's numbers follow.")
        self.add_bool("INCLUDE_SUBJECT", "Include the subject parcels in the list", False,
                      "Also list the subject parcels' owners (e.g. when the applicant is not "
                      "the owner).")
        self.add_town_layers(skip=("parcels",))
        self.add(QgsProcessingParameterEnum("LABEL_TEMPLATE", self.tr("Label sheet (Avery)"),
                                            catalog.values("label_templates"), defaultValue=0),
                 "Avery label sheet for labels.pdf: "
                 + "; ".join(catalog.labels("label_templates")) + ".", advanced=True)
        self.add(QgsProcessingParameterString("LABEL_OFFSET",
                                              self.tr("Printer offset for labels (X,Y inches)"),
                                              defaultValue="0,0", optional=True),
                 "Printer calibration for labels.pdf in inches, X to the right and Y down, "
                 "e.g. 0.03,-0.05.", advanced=True)
        self.add(QgsProcessingParameterString("SENDER", self.tr("Sender block (one line each)"),
                                              multiLine=True, optional=True),
                 "Sender lines for certified_mail.pdf (name, street, city/state/ZIP), one per "
                 "line.", advanced=True)
        self.add_right_of_way_params()
        self.add_common_advanced(town_name_advanced=False)
        self.add(QgsProcessingParameterFeatureSink(
            "OUTPUT", self.tr("Abutting parcels"), QgsProcessing.SourceType.TypeVectorPolygon),
            "The abutting parcels with parcel_id, map_par_id, town_id, site_address and "
            "distance_ft (feet from the subject property line).")
        self.add_output_folder("Folder for the mailing package (CSV, Excel, labels, map, "
                               "certified-mail book, left-out and review lists, "
                               "certification sheet, GeoPackage). Optional: "
                               "without it the files go to a temporary folder.")
        for name, _role, desc in FILE_OUTPUTS:
            self.addOutput(QgsProcessingOutputFile(name, self.tr(desc)))
        self.addOutput(QgsProcessingOutputNumber("ABUTTER_COUNT",
                                                 self.tr("Number of abutting parcels")))
        self.addOutput(QgsProcessingOutputNumber("RECIPIENT_COUNT",
                                                 self.tr("Number of notice recipients")))
        self.addOutput(QgsProcessingOutputNumber(
            "UNMAILABLE_COUNT", self.tr("Owners that cannot be mailed (no or incomplete "
                                        "address; NULL when not known)")))
        self.addOutput(QgsProcessingOutputString("HEADLINE", self.tr("Headline")))

    def engine_args(self, parameters, context, feedback, ws):
        self.search_all_parcels(ws)
        if not ws.has("ASSESS") and not ws.town_config():
            ws.warn(
                "No ASSESS is chosen: the abutting parcels are listed, but no mailing list, "
                "labels or certified-mail book will be produced.")
        ids, site = self.subject(parameters, context, ws)
        ws.right_of_way = self.right_of_way(parameters, context, ws)
        config = ws.config_path()
        args = ["abutters", "--config", config]
        if site is not None:
            args += ["--site", site]
        for pid in dict.fromkeys(ids):  # "--opt=value": an id starting with "-" stays a value
            args.append(f"--parcel={pid}")
        notice = catalog.values("notices")[self.parameterAsEnum(parameters, "NOTICE", context)]
        if notice == "zoning":  # 300 ft by the statute: the distance is not the user's
            args += ["--notice", "zoning"]
        elif ws.has("DISTANCE"):  # else the regulation's notice distance (the engine's)
            distance = self.parameterAsDouble(parameters, "DISTANCE", context)
            args += ["--distance", f"{distance:g}ft"]
        sort = catalog.values("sorts")[self.parameterAsEnum(parameters, "SORT", context)]
        if sort:
            args += ["--sort", sort]
        if self.parameterAsBoolean(parameters, "INCLUDE_SUBJECT", context):
            args.append("--include-subject")
        args += self.label_args(parameters, context)
        self.engine_out = ws.out_folder()
        args += ["--out", self.engine_out, "--overwrite"]
        return args

    @staticmethod
    def search_all_parcels(ws) -> None:
        """The selection on the parcels layer must never narrow the search for abutters: the
        whole layer is searched, and the user is told."""
        if not ws.selected_only("PARCELS"):
            return
        value = ws.parameters["PARCELS"]
        ws.parameters["PARCELS"] = QgsProcessingFeatureSourceDefinition(
            value.source, False, value.featureLimit, value.flags, value.geometryCheck)
        ws.warn(
            "The selection on PARCELS is not used: abutters are searched among all its "
            "parcels (the subject is chosen in SUBJECT).")

    def subject(self, parameters, context, ws) -> tuple[list[str], str | None]:
        """The subject property: the ids of parcels (typed, or the selection on the parcels
        layer), or a layer of its own exported as the site; exactly one of the two."""
        ids_text = self.parameterAsString(parameters, "SUBJECT_IDS", context) or ""
        ids = [s.strip() for s in ids_text.split(",") if s.strip()]
        site: str | None = None
        cfg = ws.town_config()
        config_parcels = ws.config_parcels() if cfg else None
        if ws.has("SUBJECT") and not ids:
            from_config = config_parcels is not None and ws.reads("SUBJECT", config_parcels)
            if from_config or (not cfg and ws.same_layer("SUBJECT", "PARCELS")):
                if not ws.selected_only("SUBJECT"):
                    raise QgsProcessingException(
                        "SUBJECT is the whole parcels layer: select the subject parcel(s) and "
                        "tick 'Selected features only' under SUBJECT (a selection under "
                        "PARCELS does not choose the subject).")
                ids = self.subject_ids(parameters, context, ws,
                                       id_field=config_parcels["id"] if from_config else None)
            else:
                site = ws.file_arg("SUBJECT", "subject", engine_input="site")
        if not ids and site is None:
            raise QgsProcessingException(
                "Choose the subject property in SUBJECT: the parcels layer with the subject "
                "parcel(s) selected and 'Selected features only' ticked, or a layer of its own.")
        return ids, site

    def label_args(self, parameters, context) -> list[str]:
        """The engine's label template, label offset and sender lines."""
        args = ["--label-template", catalog.values("label_templates")[
            self.parameterAsEnum(parameters, "LABEL_TEMPLATE", context)]]
        offset = (self.parameterAsString(parameters, "LABEL_OFFSET", context) or "").strip()
        if offset:
            args += ["--label-offset", offset]
        sender = self.parameterAsString(parameters, "SENDER", context) or ""
        args += [f"--sender={line.strip()}" for line in sender.splitlines() if line.strip()]
        return args

    def subject_ids(self, parameters, context, ws, *, id_field: str | None = None
                    ) -> list[str]:
        """The ids of the selected subject parcels, read in the parcel id field (the town
        config's when the subject is the layer the config names)."""
        source = self.parameterAsSource(parameters, "SUBJECT", context)
        names = list(source.fields().names())
        if id_field is not None:
            actual = {n.lower(): n for n in names}.get(id_field.lower())
            if actual is None:
                raise QgsProcessingException(
                    f"SUBJECT ({ws.source_layer_label('SUBJECT')}) has no field '{id_field}', "
                    "the parcel id field of the town config file. Fields in the layer: "
                    f"{', '.join(names)}.")
            idx = source.fields().indexOf(actual)
        else:
            mapping = ws.field_mapping(CATALOG["parcels"], names)
            idx = source.fields().indexOf(mapping["id"])
        ids = [str(f.attributes()[idx]) for f in source.getFeatures()
               if f.attributes()[idx] not in (None, "")]
        if not ids:
            raise QgsProcessingException(
                "No subject parcel with an id is selected: select the subject parcel(s) on the "
                "map and tick 'Selected features only' under SUBJECT.")
        layer = ws.layer_of("SUBJECT")
        ws.inputs["SUBJECT"] = {
            "layer": layer.name() if layer is not None else None,
            "source": layer.publicSource() if layer is not None else None,
            "subset": layer.subsetString() if layer is not None else "",
            "selected_features_only": ws.selected_only("SUBJECT"),
            "features": len(ids), "parcel_ids": ids[:50], "exported_to": None}
        return ids

    def engine_refusal(self, exc, ws):
        """The engine's own refusal of an ownerless package (its class ``OwnerJoinError``; its
        figures and the field that would join from its ``details``) in the dialog's words."""
        if exc.kind != "OwnerJoinError":
            return None
        return no_owner_text(exc.details, ws)

    def collect(self, result, parameters, context, feedback, ws):
        m = self.manifest_of(result)
        dest = self.copy_to_sink(parameters, "OUTPUT", context, manifest.path_of(m, "layers"),
                                 "abutting_parcels", style="abutting_parcels.qml",
                                 display="Abutting parcels",
                                 missing_ok="abutting_parcels" not in manifest.layer_names(m))
        res = {"OUTPUT": dest, "OUTPUT_FOLDER": m.get("out_dir")}
        for name, role, _desc in FILE_OUTPUTS:
            res[name] = manifest.path_of(m, role)
        res["ABUTTER_COUNT"] = manifest.count(m, "abutting")  # = OUTPUT rows
        res["RECIPIENT_COUNT"] = manifest.count(m, "mailable")  # = mailing list rows
        res["UNMAILABLE_COUNT"] = manifest.count(m, "unmailable")  # NULL: not known
        res["HEADLINE"] = m.get("headline") or ""
        feedback.pushInfo(res["HEADLINE"])
        for line in m.get("summary") or []:
            feedback.pushInfo(ws.say(str(line)))
        if ws.has("ASSESS") or ws.town_config():
            warn_owners_not_found(m, ws)
        if res["UNMAILABLE_COUNT"]:
            ws.warn(f"{res['UNMAILABLE_COUNT']} owner(s) cannot be mailed (no or incomplete "
                    "mailing address): they are listed in mailing_review.csv and on "
                    "certification.pdf for the Board of Assessors to supply the address.")
        blank = manifest.count(m, "blank_addresses")
        if blank:
            ws.warn(f"{blank} recipient(s) have no mailing address: check "
                    "OWNER_ADDRESS_FIELD and the assessing table before mailing.")
        return res


def warn_owners_not_found(m: dict, ws) -> None:
    """Abutting parcels without an owner record get no notice: say how many, in the dialog's
    words. The engine refuses a package where none has one (exit 2, :meth:`engine_refusal`)."""
    ownable = int(manifest.count(m, "abutting") or 0) - int(manifest.count(m, "other_town") or 0)
    missing = int(manifest.count(m, "no_owner_of_record") or 0)
    if 0 < missing < ownable:
        ws.warn(f"{missing} of the {ownable} abutting parcel(s) have no owner record in the "
                "assessing table and get no notice: ask the Assessors for their owners "
                "(abutting_parcels.csv lists every abutting parcel).")


def no_owner_text(join: dict, ws) -> str:
    """The refusal when no abutting parcel that can have an owner joins an owner record: the
    engine's join (``OwnerJoinError.details``) with the field to choose, in the dialog's words."""
    user_config = bool(ws.town_config())
    if user_config:
        fields = ("the parcel id field and the assessing table's parcel id field of the town "
                  "config file")
    else:
        fields = f"{ws.label('PARCEL_ID_FIELD')} and {ws.label('ASSESS_PARCEL_ID_FIELD')}"
    ids = [str(i) for i in join.get("examples") or join.get("parcel_examples") or ()]
    labels = {} if user_config else wording.param_labels(ws.alg.parameterDefinitions())
    hint = wording.join_hint(join, labels, user_config=user_config)
    return (f"None of the {int(join.get('ownable') or 0)} abutting parcel(s) (e.g. "
            f"{', '.join(ids) or 'none'}) has an owner record in the assessing table, so the "
            f"notice would go to no one.{' ' + hint if hint else ''} Check that {fields} hold "
            "the same parcel ids, and that the assessing table covers this area. No mailing "
            "list, labels or certification were written: an empty list is never certified.")


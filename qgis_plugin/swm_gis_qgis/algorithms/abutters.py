"""swm_gis:abutters - abutting parcels and the mailing package (runs ``swm-gis abutters``)."""

from __future__ import annotations

from pathlib import Path

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

from ..catalog import CATALOG
from .base import SwmGisAlgorithm

LABEL_TEMPLATES = ["5160", "5161", "5162", "5163"]
#: the engine's notice lists (``--notice``) and orders (``--sort``; "" = nearest first)
NOTICES = [("conservation", "Conservation Commission: the regulation's notice clause (100 ft)"),
           ("zoning", "Zoning / Planning Board: M.G.L. c.40A s.11 parties in interest (300 ft)")]
SORTS = [("", "Nearest first"), ("owner", "Owner name"), ("street", "Street (site address)"),
         ("map-lot", "Map-lot")]
FILES = {  # output name -> file the engine writes in its --out folder
    "ABUTTING_PARCELS_CSV": ("abutting_parcels.csv", "Abutting parcels (CSV)"),
    "MAILING_LIST_CSV": ("mailing_list.csv", "Mailing list (CSV)"),
    "MAILING_LIST_XLSX": ("mailing_list.xlsx", "Mailing list (Excel)"),
    "LABELS_PDF": ("labels.pdf", "Mailing labels, Avery 5160 (PDF)"),
    "MAP_PDF": ("abutters_map.pdf", "Abutters map (PDF)"),
    "CERTIFIED_MAIL_PDF": ("certified_mail.pdf", "Certified mail book, PS Form 3877 (PDF)"),
    "LEFT_OUT_CSV": ("left_out.csv", "Parcels left out, with reasons (CSV)"),
    "MAILING_REVIEW_CSV": ("mailing_review.csv", "Records to review before mailing (CSV)"),
    "CERTIFICATION_PDF": ("certification.pdf", "Certification sheet for the Board of Assessors "
                                               "(PDF)"),
    "ABUTTERS_JSON": ("abutters.json", "Counts and warnings (JSON)"),
    "ABUTTERS_GPKG": ("abutters.gpkg", "Subject, search area and abutters (GeoPackage)"),
}
#: counts (abutters.json) of owners kept off the mailing list for their address
UNMAILABLE_KEYS = ("no_mailing_address", "incomplete_address")


class AbuttersAlgorithm(SwmGisAlgorithm):
    ALG_ID = "abutters"
    DISPLAY_NAME = "Abutters: notification list and mailing package"
    GROUP = "Notification"
    GROUP_ID = "notification"
    TOWN_LAYERS = (("parcels", False, False), ("assess", True, False),
                   ("town_boundary", True, True))
    ACCEPTS_TOWN_CONFIG = True
    #: a mailing list needs all of these; a default name the table lacks stops the run
    REQUIRED_FIELDS = {"assess": ("owner", "address", "city", "state", "zip")}
    HELP = """
Lists the owners of every property within the distance (100 ft, Chapter 320, permit procedure, \
A(7)) of the subject property's line, across streets, water and town lines, and writes the \
mailing package.

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
        self.add_distance("DISTANCE", "Distance (ft)", 100.0,
                          "Notify owners of property within this many feet of the subject "
                          "property line (inclusive). Chapter 320, permit procedure, A(7): 100 ft.")
        self.add(QgsProcessingParameterEnum("NOTICE", self.tr("Notice list"),
                                            [label for _v, label in NOTICES], defaultValue=0),
                 "Which board's list: the Conservation Commission's (the regulation's notice "
                 "clause: owners within the distance above, across streets) or the Zoning "
                 "Board's and Planning Board's parties in interest under M.G.L. c.40A s.11 "
                 "(abutters, owners directly opposite on any street or way, abutters to the "
                 "abutters within 300 ft, and every parcel within 100 ft; the distance above is "
                 "not used). The certification states the definition used.")
        self.add(QgsProcessingParameterEnum("SORT", self.tr("Order of the list, labels and "
                                                            "mailing book"),
                                            [label for _v, label in SORTS], defaultValue=0),
                 "Nearest first, or as clerks sort: by owner name, by street (the parcel's "
                 "site address: street, then number) or by map-lot. The map's numbers follow.")
        self.add_bool("INCLUDE_SUBJECT", "Include the subject parcels in the list", False,
                      "Also list the subject parcels' owners (e.g. when the applicant is not "
                      "the owner).")
        self.add_town_layers(skip=("parcels",))
        self.add(QgsProcessingParameterEnum("LABEL_TEMPLATE", self.tr("Label sheet (Avery)"),
                                            LABEL_TEMPLATES, defaultValue=0),
                 "Avery label sheet for labels.pdf: 5160 (30 per sheet, 2.625 x 1 in), 5161, "
                 "5162 or 5163.", advanced=True)
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
        for name, (_file, desc) in FILES.items():
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
        notice = NOTICES[self.parameterAsEnum(parameters, "NOTICE", context)][0]
        if notice == "zoning":  # 300 ft by the statute: the distance is not the user's
            args += ["--notice", "zoning"]
        else:
            distance = self.parameterAsDouble(parameters, "DISTANCE", context)
            args += ["--distance", f"{distance:g}ft"]
        sort = SORTS[self.parameterAsEnum(parameters, "SORT", context)][0]
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
        args = ["--label-template",
                LABEL_TEMPLATES[self.parameterAsEnum(parameters, "LABEL_TEMPLATE", context)]]
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
        """The engine's own refusal of an ownerless package in the words of the plugin's."""
        if exc.kind != "OwnerJoinError":
            return None
        return no_owner_text(int(exc.details.get("ownable") or 0),
                             [str(i) for i in exc.details.get("examples") or ()], ws)

    def collect(self, result, parameters, context, feedback, ws):
        out = Path(self.engine_out)
        if ws.has("ASSESS") or ws.town_config():
            check_owners_found(out, ws)
        gpkg = out / "abutters.gpkg"
        dest = self.copy_to_sink(parameters, "OUTPUT", context, gpkg, "abutting_parcels",
                                 style="abutting_parcels.qml", display="Abutting parcels")
        res = {"OUTPUT": dest, "OUTPUT_FOLDER": str(out)}
        for name, (file, _desc) in FILES.items():
            res[name] = str(out / file) if (out / file).exists() else None
        res["ABUTTER_COUNT"] = _count_rows(out / "abutting_parcels.csv")  # = OUTPUT rows
        res["RECIPIENT_COUNT"] = _count_rows(out / "mailing_list.csv")
        res["UNMAILABLE_COUNT"] = unmailable_count(out, result)
        distance = self.parameterAsDouble(parameters, "DISTANCE", context)
        scope = (f"within {distance:g} ft"
                 if NOTICES[self.parameterAsEnum(parameters, "NOTICE", context)][0] != "zoning"
                 else "among the parties in interest (M.G.L. c.40A s.11)")
        res["HEADLINE"] = (f"{res['ABUTTER_COUNT'] or 0} abutting parcel(s) {scope}; "
                           f"{res['RECIPIENT_COUNT'] or 0} notice recipient(s)"
                           + _unmailable_text(res["UNMAILABLE_COUNT"]) + ".")
        feedback.pushInfo(res["HEADLINE"])
        for line in result.get("summary") or []:
            feedback.pushInfo(ws.say(str(line)))
        if res["UNMAILABLE_COUNT"]:
            ws.warn(f"{res['UNMAILABLE_COUNT']} owner(s) cannot be mailed (no or incomplete "
                    "mailing address): they are listed in mailing_review.csv and on "
                    "certification.pdf for the Board of Assessors to supply the address.")
        blank = _blank_addresses(out / "mailing_list.csv")
        if blank:
            ws.warn(f"{blank} recipient(s) have no mailing address: check "
                    "OWNER_ADDRESS_FIELD and the assessing table before mailing.")
        return res


def check_owners_found(out: Path, ws) -> None:
    """No empty list is ever certified: when no abutting parcel that can have an owner (those
    in another town aside) joins an owner record, stop before the package reaches the output
    folder; when some do not, say how many (the engine's rule: refuse when none joins, warn
    ``owners_not_found`` for some)."""
    counts = _json_counts(out / "abutters.json") or {}
    if "no_owner_of_record" not in counts:
        return
    ownable = int(counts.get("abutting") or 0) - int(counts.get("other_town") or 0)
    missing = int(counts.get("no_owner_of_record") or 0)
    if ownable <= 0 or missing <= 0:
        return
    if missing >= ownable:
        ids = _first_ids(out / "abutting_parcels.csv")
        raise QgsProcessingException(no_owner_text(ownable, ids, ws))
    ws.warn(f"{missing} of the {ownable} abutting parcel(s) have no owner record in the "
            "assessing table and get no notice: ask the Assessors for their owners "
            "(abutting_parcels.csv lists every abutting parcel).")


def no_owner_text(ownable: int, ids: list[str], ws) -> str:
    """The refusal when no abutting parcel that can have an owner joins an owner record: one
    message whether the plugin's check or the engine's (exit 2) found it."""
    if ws.town_config():
        fields = ("the parcel id field and the assessing table's parcel id field of the town "
                  "config file")
    else:
        fields = f"{ws.label('PARCEL_ID_FIELD')} and {ws.label('ASSESS_PARCEL_ID_FIELD')}"
    return (f"None of the {ownable} abutting parcel(s) (e.g. {', '.join(ids) or 'none'}) has "
            f"an owner record in the assessing table, so the notice would go to no one. Check "
            f"that {fields} hold the same parcel ids, and that the assessing table covers this "
            "area. No mailing list, labels or certification were written: an empty list is "
            "never certified.")


def _first_ids(path: Path, n: int = 3) -> list[str]:
    if not path.exists():
        return []
    import csv

    with path.open(encoding="utf-8-sig", newline="") as fh:
        import itertools

        return [row.get("parcel_id", "") for row in itertools.islice(csv.DictReader(fh), n)]


def unmailable_count(out: Path, result: dict) -> int | None:
    """Owners kept off the mailing list for their address: from ``abutters.json``'s counts,
    else the counts of the engine's result line, else the review rows of mailing_review.csv;
    None when the engine reported none of these (it cannot be known)."""
    for counts in (_json_counts(out / "abutters.json"), result.get("counts")):
        if isinstance(counts, dict) and any(k in counts for k in UNMAILABLE_KEYS):
            return sum(int(counts.get(k) or 0) for k in UNMAILABLE_KEYS)
    review = out / "mailing_review.csv"
    if not review.exists():
        return None
    import csv

    with review.open(encoding="utf-8-sig", newline="") as fh:
        return sum(1 for row in csv.DictReader(fh) if row.get("issue") in UNMAILABLE_KEYS)


def _json_counts(path: Path) -> dict | None:
    if not path.exists():
        return None
    import json

    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return doc.get("counts") if isinstance(doc, dict) else None


def _unmailable_text(n: int | None) -> str:
    if n is None:
        return ""
    return f"; {n} cannot be mailed (no or incomplete address)" if n else \
        "; every recipient has a mailing address"


def _blank_addresses(path: Path) -> int:
    """Recipients of mailing_list.csv (the rows before the first blank one) with no
    mail_address."""
    if not path.exists():
        return 0
    import csv

    with path.open(encoding="utf-8-sig", newline="") as fh:
        reader = csv.reader(fh)
        header = next(reader, [])
        if "mail_address" not in header:
            return 0
        col = header.index("mail_address")
        blank = 0
        for row in reader:
            if not row or not any(c.strip() for c in row) or row[0].startswith("#"):
                break
            blank += not (row[col] if col < len(row) else "").strip()
    return blank


def _count_rows(path: Path) -> int | None:
    """Data rows of a CSV the engine wrote: the table ends at the first blank row (the notes
    after it start with '#')."""
    if not path.exists():
        return None
    import csv

    n = 0
    with path.open(encoding="utf-8-sig", newline="") as fh:
        reader = csv.reader(fh)
        next(reader, None)  # header
        for row in reader:
            if not row or not any(c.strip() for c in row) or row[0].startswith("#"):
                break
            n += 1
    return n

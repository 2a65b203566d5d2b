"""The small base every swm-gis algorithm shares.

An algorithm here does four things, and no rule logic:

1. chooses its sources: the user's own files as they are, a copy only of a selection, a filter,
   a memory layer or a non-file provider (:mod:`swm_gis_qgis.workspace`);
2. hands the engine a small town config naming them (JSON data: the engine writes no TOML for
   it), with the field mapping taken from its field parameters and each layer's QGIS name as its
   ``label``;
3. runs the ``swm-gis`` engine (:mod:`swm_gis_qgis.engine`) with ``--progress json`` into the
   user's output folder (``--out FOLDER --overwrite``: the engine stages and refuses outputs on
   any source of the run or the project, ``--protect``), streaming progress into the feedback
   and stopping the engine on cancel;
4. reads the engine's result manifest (:mod:`swm_gis_qgis.manifest`): loads the GeoPackage
   layers it lists into the feature sinks (styled with the QML shipped in the plugin) and
   returns the files, counts and findings it states; it never edits the outputs.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from pathlib import Path
from typing import Any

from qgis.core import (
    QgsCoordinateReferenceSystem,
    QgsFeature,
    QgsFeatureSink,
    QgsFields,
    QgsProcessing,
    QgsProcessingAlgorithm,
    QgsProcessingContext,
    QgsProcessingException,
    QgsProcessingLayerPostProcessorInterface,
    QgsProcessingParameterBoolean,
    QgsProcessingParameterCrs,
    QgsProcessingParameterDefinition,
    QgsProcessingParameterFeatureSource,
    QgsProcessingParameterField,
    QgsProcessingParameterFile,
    QgsProcessingParameterFolderDestination,
    QgsProcessingParameterMapLayer,
    QgsProcessingParameterNumber,
    QgsProcessingParameterRasterLayer,
    QgsProcessingParameterString,
    QgsProcessingUtils,
    QgsVectorLayer,
    QgsWkbTypes,
)
from qgis.PyQt.QtCore import QCoreApplication, QUrl
from qgis.PyQt.QtGui import QIcon

from .. import engine, manifest, wording
from .. import regulation as regulations
from ..catalog import CATALOG
from ..workspace import DEFAULT_CRS, Workspace

PLUGIN_DIR = Path(__file__).resolve().parents[1]
HELP_PAGE = PLUGIN_DIR / "help" / "index.html"

_GEOM_TYPES = {
    "polygon": [QgsProcessing.SourceType.TypeVectorPolygon],
    "line": [QgsProcessing.SourceType.TypeVectorLine],
    "point": [QgsProcessing.SourceType.TypeVectorPoint],
    "any": [QgsProcessing.SourceType.TypeVectorAnyGeometry],
    "table": [QgsProcessing.SourceType.TypeVector],
}

_GEOMETRY_FAMILY = {"polygon": QgsWkbTypes.GeometryType.PolygonGeometry,
                    "line": QgsWkbTypes.GeometryType.LineGeometry,
                    "point": QgsWkbTypes.GeometryType.PointGeometry}

#: Post-processors must outlive the algorithm instance until QGIS loads the layers.
_KEEP_ALIVE: list[Any] = []


class StyleLayer(QgsProcessingLayerPostProcessorInterface):
    """Applies a QML style to an output layer when QGIS loads it (if the geometry type fits)."""

    def __init__(self, qml: Path) -> None:
        super().__init__()
        self.qml = str(qml)

    def postProcessLayer(self, layer, context, feedback):  # noqa: N802 - Qt API
        if not isinstance(layer, QgsVectorLayer) or not os.path.exists(self.qml):
            return
        if qml_geometry_type(self.qml) not in (None, _enum_int(layer.geometryType())):
            return  # e.g. a polygon style offered to a point layer
        _msg, ok = layer.loadNamedStyle(self.qml)
        if ok:
            layer.triggerRepaint()


def _enum_int(value) -> int:
    """An enum's number on Qt5 (sip enums are ints) and Qt6 (Python enums carry ``value``)."""
    return int(getattr(value, "value", value))


def stored_style_qml(layer: QgsVectorLayer, path: Path, name: str | None = None
                     ) -> Path | None:
    """Write the style stored with ``layer`` in its GeoPackage (layer_styles) to ``path``: the
    one called ``name`` when there is one, else the layer's default (listed first)."""
    try:
        listed = layer.listStylesInDatabase()
    except Exception:  # noqa: BLE001 - no style table: no stored style
        return None
    count, ids = listed[0], listed[1]
    if not count or not ids:
        return None
    names = list(listed[2]) if len(listed) > 2 else []
    chosen = ids[names.index(name)] if name in names else ids[0]
    got = layer.getStyleFromDatabase(chosen)
    text = got[0] if isinstance(got, tuple) else got
    if not text:
        return None
    path.write_text(text, encoding="utf-8")
    return path


def qml_geometry_type(path: str) -> int | None:
    """The <layerGeometryType> a QML file was saved for (0 point, 1 line, 2 polygon)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError:
        return None
    m = re.search(r"<layerGeometryType>(\d+)</layerGeometryType>", text)
    return int(m.group(1)) if m else None


class SwmGisAlgorithm(QgsProcessingAlgorithm):
    """Shared machinery; subclasses set the class attributes and the three hooks."""

    ALG_ID = ""
    DISPLAY_NAME = ""
    GROUP = "Site screening"
    GROUP_ID = "screening"
    #: (logical key, optional, advanced) for the town layers this algorithm exports.
    TOWN_LAYERS: tuple[tuple[str, bool, bool], ...] = ()
    #: True: the algorithm accepts TOWN_CONFIG instead of the individual layers.
    ACCEPTS_TOWN_CONFIG = False
    #: Logical fields this algorithm needs beyond the engine's required ones, per layer key.
    REQUIRED_FIELDS: dict[str, tuple[str, ...]] = {}
    HELP = ""
    #: Show the engine's step texts in the log (False for a single check, which runs the whole
    #: screening in the engine: its other steps are not this tool's).
    LOG_ENGINE_STEPS = True
    #: The folder the engine writes this run's files into (set by ``engine_args``): the user's
    #: output folder, or one in the run's temporary folder when none is chosen.
    engine_out: str | None = None

    # ------------------------------------------------------------------ QGIS boilerplate
    def tr(self, text: str) -> str:
        return QCoreApplication.translate("SwmGis", text)

    def createInstance(self):  # noqa: N802
        return type(self)()

    def name(self) -> str:
        return self.ALG_ID

    def displayName(self) -> str:  # noqa: N802
        return self.tr(self.DISPLAY_NAME)

    def group(self) -> str:
        return self.tr(self.GROUP)

    def groupId(self) -> str:  # noqa: N802
        return self.GROUP_ID

    def icon(self) -> QIcon:
        return QIcon(str(PLUGIN_DIR / "icon.svg"))

    def shortHelpString(self) -> str:  # noqa: N802
        labels = wording.param_labels(self.parameterDefinitions())
        labels.update({o.name(): o.description() for o in self.outputDefinitions()})
        return wording.help_text(self.tr(self.HELP.strip() + "\n\n" + ENGINE_NOTE), labels)

    def canExecute(self):  # noqa: N802 - the dialog says it when it opens, not after Run
        try:
            engine.find_engine()
        except engine.EngineError as exc:
            return False, str(exc)
        return True, ""

    # ------------------------------------------------------------------ parameter helpers
    def add(self, param: QgsProcessingParameterDefinition, help_text: str, *,
            advanced: bool = False) -> QgsProcessingParameterDefinition:
        param.setHelp(self.tr(help_text))
        if advanced:
            param.setFlags(param.flags() | QgsProcessingParameterDefinition.Flag.FlagAdvanced)
        self.addParameter(param)
        return param

    def add_town_config_param(self) -> None:
        """TOWN_CONFIG, the first parameter: the file 'Set up the town' saves once."""
        self.add(QgsProcessingParameterFile(
            "TOWN_CONFIG", self.tr("Town config file (saved by 'Set up the town')"),
            behavior=QgsProcessingParameterFile.Behavior.File, extension="toml", optional=True),
            "The town's config file (TOML) that 'Set up the town' (swm-gis > Town set-up) "
            "saved from the project's layers: parcels, assessing table, every reference layer, "
            "their fields, the right-of-way rule and the town's name, checked once. With it "
            "the layer parameters of this algorithm are not needed (and not used). A "
            "hand-written config works too: a [layers.parcels], [layers.assess], ... section "
            "per layer with its path, and a [layers.KEY.fields] table only where the source's "
            f"field names differ from MassGIS's (parcels: {_massgis_fields('parcels')}; "
            f"assessing table: {_massgis_fields('assess')}); the repository's "
            "data/cambridge.toml is a worked example.")

    def add_right_of_way_params(self, *, advanced: bool = True) -> None:
        """RIGHT_OF_WAY_FIELD / RIGHT_OF_WAY_VALUES: the town config's ``right_of_way`` rule for
        parcels layers without MassGIS's POLY_TYPE (every algorithm that classes parcels)."""
        self.add(QgsProcessingParameterField(
            "RIGHT_OF_WAY_FIELD", self.tr("Right-of-way field of the parcels layer"),
            parentLayerParameterName="PARCELS", optional=True),
            "For parcels layers without MassGIS's POLY_TYPE (e.g. Cambridge): the field that "
            "marks street and other right-of-way polygons. Together with the values below, "
            "those polygons have no owner to notify, are left out of abutter lists (listed in "
            "left_out.csv) and get the map's right-of-way class, as the town config's "
            "right_of_way = {field = \"ML\", values = [\"ROAD\"]} does.", advanced=advanced)
        self.add(QgsProcessingParameterString(
            "RIGHT_OF_WAY_VALUES", self.tr("Right-of-way values (comma-separated)"),
            defaultValue="", optional=True),
            "The values of the right-of-way field that mark a right-of-way polygon, separated "
            "by commas, e.g. ROAD.", advanced=advanced)

    def right_of_way(self, parameters, context, ws) -> dict | None:
        """The right-of-way rule the dialog sets: ``{"field": ..., "values": [...]}`` or None."""
        field = (self.parameterAsString(parameters, "RIGHT_OF_WAY_FIELD", context) or "").strip()
        text = self.parameterAsString(parameters, "RIGHT_OF_WAY_VALUES", context) or ""
        values = [v.strip() for v in text.split(",") if v.strip()]
        if not field and not values:
            return None
        if not field or not values:
            raise QgsProcessingException(
                f"Set both {ws.label('RIGHT_OF_WAY_FIELD')} and "
                f"{ws.label('RIGHT_OF_WAY_VALUES')} (e.g. ML and ROAD), or neither.")
        if ws.town_config():
            ws.warn("A town config file is set, so the right-of-way field and values are not "
                    "used: the town config's [layers.parcels] right_of_way applies.")
            return None
        return {"field": field, "values": values}

    def add_town_layers(self, *, only: tuple[str, ...] | None = None,
                        skip: tuple[str, ...] = (), fold: bool = False,
                        fields_shown: bool = False) -> None:
        """One layer parameter (+ its field parameters) per entry of :attr:`TOWN_LAYERS`;
        ``only`` / ``skip`` choose entries (to order the dialog), ``fold`` puts them all under
        Advanced Parameters (the layers a town config file names, for the long dialogs)."""
        for key, optional, advanced in self.TOWN_LAYERS:
            if (only is not None and key not in only) or key in skip:
                continue
            advanced = advanced or fold
            li = CATALOG[key]
            optional = optional or self.ACCEPTS_TOWN_CONFIG
            desc = self.tr(li.description)
            if li.geometry in _GEOM_TYPES:
                p = QgsProcessingParameterFeatureSource(li.param, desc, _GEOM_TYPES[li.geometry],
                                                        optional=optional)
            elif li.geometry == "raster":
                p = QgsProcessingParameterRasterLayer(li.param, desc, optional=optional)
            else:
                p = QgsProcessingParameterMapLayer(li.param, desc, optional=optional)
            self.add(p, li.help, advanced=advanced)
            needed = self.REQUIRED_FIELDS.get(key, ())
            for f in li.fields:
                required = f.required or f.logical in needed
                fp = QgsProcessingParameterField(
                    f.param, self.tr(f.description), defaultValue=f.default or None,
                    parentLayerParameterName=li.param, optional=True)
                # optional for QGIS: 3.22 refuses a non-optional field parameter whose parent is
                # a "selected features only" source; field_mapping() checks it before the run
                what = f"The field of '{li.description}' holding the " \
                       f"{f.logical.replace('_', ' ')}"
                default = (f" (default {f.default}, the published name)" if f.default
                           else " (no published field: empty unless your data has one)")
                self.add(fp, what + default
                         + ("; needed when the layer is given." if required
                            else "; leave empty if absent.")
                         + (" It must be a text field: the engine refuses a number here."
                            if f.text else ""),
                         advanced=advanced or (f.advanced and not fields_shown))

    def add_regulation_param(self, *, saved: bool = False) -> None:
        """REGULATION: a bundled profile id or a profile file (:mod:`swm_gis_qgis.regulation`);
        advanced where the algorithm writes a run's own config, not in the town set-up."""
        self.add(QgsProcessingParameterString("REGULATION", self.tr(regulations.LABEL),
                                              defaultValue="", optional=True),
                 regulations.help_text(saved=saved), advanced=not saved)

    def add_common_advanced(self, *, town_name_advanced: bool = True,
                            with_town_name: bool = True, with_regulation: bool = True) -> None:
        if with_regulation:
            self.add_regulation_param()
        self.add(QgsProcessingParameterCrs("WORKING_CRS", self.tr("Working CRS (projected)"),
                                           defaultValue=DEFAULT_CRS, optional=True),
                 "The projected CRS the engine measures distances and areas in (inputs in any "
                 "CRS are reprojected). Default EPSG:26986, NAD83 / Massachusetts Mainland.",
                 advanced=True)
        if not with_town_name:
            return
        self.add(QgsProcessingParameterString("TOWN_NAME", self.tr("Town name on the reports"),
                                              defaultValue="", optional=True),
                 "The town's name printed on reports and lists (not used with a town config "
                 "file, which names the town). A run that writes a report or a list asks for "
                 "it when neither is given.",
                 advanced=town_name_advanced)

    def add_output_folder(self, help_text: str) -> None:
        p = QgsProcessingParameterFolderDestination(
            "OUTPUT_FOLDER", self.tr("Output folder"), optional=True, createByDefault=True)
        self.add(p, help_text + " Files of the same name already in the folder are replaced "
                 "(the log names them), other files are left alone; a temporary folder when "
                 "none is chosen. A certified package from an earlier hearing belongs in its "
                 "own folder: choose a new one for each notice. The folder may not hold a "
                 "layer of the project.")

    def add_distance(self, name: str, desc: str, default: float | None, help_text: str, *,
                     advanced: bool = False, optional: bool = False) -> None:
        p = QgsProcessingParameterNumber(name, self.tr(desc),
                                         QgsProcessingParameterNumber.Type.Double,
                                         defaultValue=default, optional=optional, minValue=0.0)
        p.setMetadata({"widget_wrapper": {"decimals": 1}})
        self.add(p, help_text, advanced=advanced)

    def add_bool(self, name: str, desc: str, default: bool, help_text: str, *,
                 advanced: bool = False) -> None:
        self.add(QgsProcessingParameterBoolean(name, self.tr(desc), defaultValue=default),
                 help_text, advanced=advanced)

    def helpUrl(self) -> str:  # noqa: N802
        """The plugin's documentation page (shipped with it), at this algorithm's section."""
        return QUrl.fromLocalFile(str(HELP_PAGE)).toString() + f"#{self.ALG_ID}"

    # ------------------------------------------------------------------ checking
    def checkParameterValues(self, parameters, context):  # noqa: N802
        """QGIS's own checks, then the town's name: a run whose outputs print it is refused
        before it starts when nothing names the town."""
        ok, message = super().checkParameterValues(parameters, context)
        if not ok:
            return ok, message
        refusal = self.unnamed_town(parameters, context)
        return (False, refusal) if refusal else (True, "")

    def names_town(self, parameters, context) -> bool:
        """Whether this run's outputs print the town's name (reports, lists, the web map)."""
        return self.parameterDefinition("TOWN_NAME") is not None

    def unnamed_town(self, parameters, context) -> str | None:
        """Why this run cannot start for want of the town's name, in the dialog's words; None
        when the name is given (the town name or a town config file) or nothing the run writes
        prints it. The name is never guessed (from the project's title, say): a certified list
        must not name the wrong town."""
        name = self.parameterDefinition("TOWN_NAME")
        if name is None or not self.names_town(parameters, context):
            return None
        if self.ACCEPTS_TOWN_CONFIG and \
                (self.parameterAsFile(parameters, "TOWN_CONFIG", context) or "").strip():
            return None
        if (self.parameterAsString(parameters, "TOWN_NAME", context) or "").strip():
            return None
        where = " (under Advanced Parameters)" if \
            name.flags() & QgsProcessingParameterDefinition.Flag.FlagAdvanced else ""
        config = ", or choose a town config file (it names the town)" if \
            self.ACCEPTS_TOWN_CONFIG else ""
        return (f"Name the town the reports are for: fill in '{name.description()}'{where}"
                f"{config}. The reports' first lines print it.")

    # ------------------------------------------------------------------ running
    def processAlgorithm(self, parameters, context, feedback):  # noqa: N802
        work = Path(tempfile.mkdtemp(prefix=f"swm_gis_{self.ALG_ID}_",
                                     dir=QgsProcessingUtils.tempFolder()))
        self._work, self._feedback = work, feedback
        ws = Workspace(self, absolute_paths(self, dict(parameters)), context, feedback, work)
        stage = "checking the parameters"
        try:
            exe = _find_engine()
            stage = "exporting the layers"
            args = [*self.engine_args(ws.parameters, context, feedback, ws), *ws.protect_args(),
                    *ws.sink_args(),
                    *(f"--input-label={k}={v}" for k, v in ws.input_labels.items())]
            stage = "running the swm-gis engine"
            feedback.setProgressText(self.tr("Running the swm-gis engine"))
            quiet = EngineFeedback(feedback, ws, steps=self.LOG_ENGINE_STEPS)
            try:
                result = engine.run_engine(args, quiet, executable=exe, cwd=str(work),
                                           progress_range=(5.0, 95.0))
            finally:
                quiet.write_log(args)
            ws.engine_done = True
            stage = "loading the results"
            feedback.setProgressText(self.tr("Loading the results"))
            outputs = self.collect(result, ws.parameters, context, feedback, ws)
            if feedback.isCanceled():
                raise QgsProcessingException(ws.cancelled_text())
        except engine.EngineCanceled:
            raise QgsProcessingException(ws.cancelled_text()) from None
        except (engine.EngineError, QgsProcessingException) as exc:
            text, parts = _message(exc), getattr(exc, "parts", None)
            if isinstance(exc, engine.EngineError):
                refused = ws.output_refusal(exc) or self.engine_refusal(exc, ws)
                if refused is not None:
                    text, parts = refused, None
            if feedback.isCanceled():
                text, parts = ws.cancelled_text(), None
            raise QgsProcessingException(ws.say(text, parts=parts)) from None
        except Exception as exc:  # noqa: BLE001 - never "Execution failed" without a reason
            written = ("The engine's outputs are complete" if ws.engine_done else
                       "Nothing was written to the outputs you chose")
            raise QgsProcessingException(
                f"The swm-gis plugin failed while {stage}: {type(exc).__name__}: {exc}. "
                f"{written}; the log of this run is in {work / 'engine_log.txt'}.") from None
        feedback.setProgress(100.0)
        return outputs

    def engine_args(self, parameters, context, feedback, ws: Workspace) -> list[str]:
        raise NotImplementedError

    def engine_refusal(self, exc: engine.EngineError, ws: Workspace) -> str | None:
        """The engine's refusal ``exc`` (its class in ``exc.kind``) as this algorithm says it;
        None: as the engine said it (its parts in the dialog's words)."""
        return None

    def collect(self, result: dict, parameters, context, feedback, ws: Workspace) -> dict:
        raise NotImplementedError

    # ------------------------------------------------------------------ outputs
    def copy_to_sink(self, parameters, sink_param: str, context: QgsProcessingContext,
                     gpkg: str | Path, layer_name: str, *, style: str | None = None,
                     display: str | None = None, stored_style: bool = False,
                     geometry: str | None = None, missing_ok: bool = False) -> str | None:
        """Copy layer ``layer_name`` of the engine's GeoPackage into the sink; its dest id.

        ``geometry`` ('polygon', 'line', 'point') keeps only features of that type (the engine
        writes some layers with mixed geometry, e.g. habitat polygons with vernal pool points);
        with ``missing_ok`` an absent layer gives an empty sink. ``style`` names the style the
        engine stored with the layer in its GeoPackage (layer_styles, by its QML's name); with
        ``stored_style`` alone, the layer's default stored style is used.
        """
        src = QgsVectorLayer(f"{gpkg}|layername={layer_name}", layer_name, "ogr")
        if not src.isValid() and not missing_ok:
            raise QgsProcessingException(
                f"The swm-gis engine did not write layer '{layer_name}' in {gpkg}; this plugin "
                "and the installed engine may not match (update both).")
        wanted = _GEOMETRY_FAMILY.get(geometry or "")
        fields, keep, wkb, crs = _sink_schema(src, wanted)
        sink, dest = self.parameterAsSink(parameters, sink_param, context, fields, wkb, crs)
        if sink is None:
            return None
        written = 0
        if src.isValid():
            written = _copy_features(src, sink, sink_param, fields, keep, wkb, wanted,
                                     getattr(self, "_feedback", None))
        if written == 0 and context.willLoadLayerOnCompletion(dest):
            # an empty layer in the project only says "nothing" less clearly than the summary
            to_load = context.layersToLoadOnCompletion()
            to_load.pop(dest, None)
            context.setLayersToLoadOnCompletion(to_load)
        if context.willLoadLayerOnCompletion(dest):
            qml = None
            if (stored_style or style) and src.isValid():
                # the engine stores its styles in its GeoPackages (issue 35); the copy goes in
                # the run's own folder: nothing stray beside the user's outputs
                folder = getattr(self, "_work", None) or Path(str(gpkg)).parent
                qml = stored_style_qml(src, Path(folder) / f"{layer_name}_stored_style.qml",
                                       Path(style).stem if style else None)
            _load_details(context, dest, display, qml)
        return dest

    @staticmethod
    def manifest_of(result: dict) -> dict:
        """The engine's result manifest (:mod:`swm_gis_qgis.manifest`): what ``collect``
        reads, never the engine's output files."""
        try:
            return manifest.manifest_of(result)
        except manifest.EngineTooOld as exc:
            raise QgsProcessingException(str(exc)) from None


#: The multi-part type a sink of one geometry family gets.
_MULTI_TYPE = {QgsWkbTypes.GeometryType.PolygonGeometry: QgsWkbTypes.Type.MultiPolygon,
               QgsWkbTypes.GeometryType.LineGeometry: QgsWkbTypes.Type.MultiLineString,
               QgsWkbTypes.GeometryType.PointGeometry: QgsWkbTypes.Type.MultiPoint}


def _sink_schema(src: QgsVectorLayer, wanted) -> tuple:
    """The sink's fields, the source field indexes kept (all but ``fid``), its WKB type and CRS
    for copying ``src`` (an invalid ``src``: an empty table in the default CRS); ``wanted``, a
    geometry family, fixes the WKB type to that family's multi-part type."""
    fields = QgsFields()
    keep: list[int] = []
    wkb, crs = QgsWkbTypes.Type.NoGeometry, QgsCoordinateReferenceSystem(DEFAULT_CRS)
    if src.isValid():
        keep = [i for i, f in enumerate(src.fields()) if f.name().lower() != "fid"]
        for i in keep:
            fields.append(src.fields().at(i))
        if src.isSpatial():
            wkb = QgsWkbTypes.multiType(src.wkbType())
        crs = src.crs()
    if wanted is not None:
        wkb = _MULTI_TYPE[wanted]
    return fields, keep, wkb, crs


def _copy_features(src: QgsVectorLayer, sink, sink_param: str, fields: QgsFields,
                   keep: list[int], wkb, wanted, feedback) -> int:
    """Copy the features of ``src`` (only those of geometry family ``wanted`` when it is set)
    into ``sink`` with the attributes at ``keep``; the number written. Cancelling stops it."""
    written = 0
    for feat in src.getFeatures():
        if feedback is not None and feedback.isCanceled():
            raise QgsProcessingException("Cancelled.")
        geom = feat.geometry()
        if wanted is not None and (geom.isNull() or geom.type() != wanted):
            continue
        if not geom.isNull() and QgsWkbTypes.isMultiType(wkb):
            geom.convertToMultiType()
        out = QgsFeature(fields)
        out.setGeometry(geom)
        attrs = feat.attributes()
        out.setAttributes([attrs[i] for i in keep])
        if not sink.addFeature(out, QgsFeatureSink.Flag.FastInsert):
            raise QgsProcessingException(f"Cannot write to {sink_param}: {sink.lastError()}")
        written += 1
    return written


def _load_details(context: QgsProcessingContext, dest: str, display: str | None,
                  qml: Path | None) -> None:
    """Name the layer ``dest`` loads as (``display``) and style it from ``qml`` when loaded."""
    details = context.layerToLoadOnCompletionDetails(dest)
    if display:
        details.name = display
    if qml is not None:
        pp = StyleLayer(qml)
        _KEEP_ALIVE.append(pp)
        details.setPostProcessor(pp)


#: Parameter types whose value is a file or folder path typed by the user.
_PATH_TYPES = ("file", "folderDestination", "fileDestination")


def absolute_paths(alg: QgsProcessingAlgorithm, parameters: dict) -> dict:
    """``parameters`` with every relative file and folder path made absolute against the
    caller's working folder (``qgis_process run ... TOWN_CONFIG=town.toml`` in a shell): the
    engine runs in the run's temporary folder, where a relative path would mean something else
    (or a folder deleted when QGIS exits)."""
    out = dict(parameters)
    for d in alg.parameterDefinitions():
        value = out.get(d.name())
        if d.type() in _PATH_TYPES and isinstance(value, str) and value and \
                value != "TEMPORARY_OUTPUT" and not os.path.isabs(value) and \
                "://" not in value and not value.startswith(("memory:", "ogr:", "/vsi")):
            out[d.name()] = os.path.abspath(os.path.expanduser(value))
    return out


def _massgis_fields(key: str) -> str:
    """The published MassGIS field names of layer ``key``, for help texts."""
    return ", ".join(f.default for f in CATALOG[key].fields if f.default)


ENGINE_NOTE = (
    "Runs the swm-gis engine as a separate program (like QGIS's GRASS and SAGA providers). "
    f"{engine.INSTALL_HOW} An engine installed elsewhere: set its path in "
    f"{engine.options_path()}. Rule values and citations are those of the "
    "town's stormwater regulation (the profile its config names; the engine prints its "
    "sections); distances are in feet and measured exactly on the geometry in the working CRS."
)


def _message(exc: Exception) -> str:
    args = getattr(exc, "args", None)
    return str(args[0]) if args else str(exc)


#: How the engine's line naming the files an ``--overwrite`` replaces starts (it goes to the log).
REPLACES = "Replaces "


class EngineFeedback:
    """What the engine says, as the dialog should show it.

    Progress goes through (its text translated, each text once); the engine's info lines and
    the command line it was started with go to ``engine_log.txt`` in the run's folder instead of
    the log (the dialog shows the plugin's short summary), except lines that warn.
    """

    def __init__(self, feedback, ws: Workspace, *, steps: bool = True) -> None:
        self.feedback = feedback
        self.ws = ws
        self.steps = steps
        self.lines: list[str] = []
        self._last_text = ""

    def isCanceled(self) -> bool:  # noqa: N802 - QgsFeedback API
        return self.feedback.isCanceled()

    def setProgress(self, value: float) -> None:  # noqa: N802
        self.feedback.setProgress(value)

    def setProgressText(self, text: str) -> None:  # noqa: N802
        if not self.steps:
            self.lines.append(f"step: {text}")
            return
        said = self.ws.say(text)
        if said and said != self._last_text:
            self._last_text = said
            self.feedback.setProgressText(said)

    def pushCommandInfo(self, text: str) -> None:  # noqa: N802
        self.lines.append(f"command: {text}")

    def pushInfo(self, text: str, parts: list | None = None) -> None:  # noqa: N802
        self.lines.append(str(text))
        if str(text).lower().startswith(("warning", "caution")):
            self.feedback.pushWarning(self.ws.say(text, parts=parts))
        elif str(text).startswith(REPLACES):  # the files of an earlier run the engine replaced
            self.feedback.pushInfo(self.ws.say(text, parts=parts, whole=True))

    def pushEngineInfo(self, text: str, parts: list) -> None:  # noqa: N802
        """An engine info line with its references (``--progress json`` ``"parts"``)."""
        self.pushInfo(text, parts)

    def pushConsoleInfo(self, text: str) -> None:  # noqa: N802
        self.lines.append(str(text))

    def write_log(self, args: list[str]) -> None:
        with contextlib.suppress(OSError):
            (self.ws.folder / "engine_log.txt").write_text(
                "\n".join(self.lines) + "\n", encoding="utf-8")


def _find_engine() -> str:
    try:
        return engine.find_engine()
    except engine.EngineError as exc:
        raise QgsProcessingException(str(exc)) from None

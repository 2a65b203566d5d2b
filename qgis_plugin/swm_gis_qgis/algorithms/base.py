"""The small base every swm-gis algorithm shares.

An algorithm here does four things, and no rule logic:

1. exports its input layers (honouring "selected features only") to temporary GeoPackages with
   QGIS's own writer, keeping only the mapped fields;
2. writes a small temporary town config (TOML) pointing at them, with the field mapping taken from
   its field parameters;
3. runs the ``swm-gis`` engine (:mod:`swm_gis_qgis.engine`) with ``--progress json``, streaming
   progress into the feedback and stopping the engine on cancel;
4. loads the engine's outputs into the feature sinks (styled with the QML shipped in the plugin)
   and returns the files it wrote.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

from qgis.core import (
    QgsCoordinateReferenceSystem,
    QgsFeature,
    QgsFeatureRequest,
    QgsFeatureSink,
    QgsField,
    QgsFields,
    QgsProcessing,
    QgsProcessingAlgorithm,
    QgsProcessingContext,
    QgsProcessingException,
    QgsProcessingFeatureSource,
    QgsProcessingFeatureSourceDefinition,
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
    QgsRasterLayer,
    QgsVectorFileWriter,
    QgsVectorLayer,
    QgsWkbTypes,
)
from qgis.PyQt.QtCore import QCoreApplication
from qgis.PyQt.QtGui import QIcon

from .. import engine
from ..catalog import CATALOG, LayerInput

PLUGIN_DIR = Path(__file__).resolve().parents[1]
STYLES_DIR = PLUGIN_DIR / "styles"
DEFAULT_CRS = "EPSG:26986"  # NAD83 / Massachusetts Mainland (metres)

_GEOM_TYPES = {
    "polygon": [QgsProcessing.TypeVectorPolygon],
    "line": [QgsProcessing.TypeVectorLine],
    "point": [QgsProcessing.TypeVectorPoint],
    "any": [QgsProcessing.TypeVectorAnyGeometry],
    "table": [QgsProcessing.TypeVector],
}

_GEOMETRY_FAMILY = {"polygon": QgsWkbTypes.PolygonGeometry, "line": QgsWkbTypes.LineGeometry,
                    "point": QgsWkbTypes.PointGeometry}

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
        if qml_geometry_type(self.qml) not in (None, int(layer.geometryType())):
            return  # e.g. a polygon style offered to a point layer
        _msg, ok = layer.loadNamedStyle(self.qml)
        if ok:
            layer.triggerRepaint()


def stored_style_qml(layer: QgsVectorLayer, path: Path) -> Path | None:
    """Write the style stored with ``layer`` in its GeoPackage (layer_styles) to ``path``."""
    try:
        listed = layer.listStylesInDatabase()
    except Exception:  # noqa: BLE001 - no style table: no stored style
        return None
    count, ids = listed[0], listed[1]
    if not count or not ids:
        return None
    got = layer.getStyleFromDatabase(ids[0])
    text = got[0] if isinstance(got, tuple) else got
    if not text:
        return None
    path.write_text(text, encoding="utf-8")
    return path


def crs_missing(crs: QgsCoordinateReferenceSystem) -> bool:
    """True for no CRS, and for the GeoPackage "Undefined geographic/Cartesian SRS" (srs_id 0/-1)
    that GDAL reports for layers written without one."""
    if not crs.isValid():
        return True
    if crs.authid():
        return False
    text = f"{crs.description()} {crs.toWkt()[:200]}".lower()
    return "undefined geographic srs" in text or "undefined cartesian srs" in text


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
    HELP = ""

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
        return self.tr(self.HELP.strip() + "\n\n" + ENGINE_NOTE)

    # ------------------------------------------------------------------ parameter helpers
    def add(self, param: QgsProcessingParameterDefinition, help_text: str, *,
            advanced: bool = False) -> QgsProcessingParameterDefinition:
        param.setHelp(self.tr(help_text))
        if advanced:
            param.setFlags(param.flags() | QgsProcessingParameterDefinition.FlagAdvanced)
        self.addParameter(param)
        return param

    def add_town_config_param(self) -> None:
        self.add(QgsProcessingParameterFile(
            "TOWN_CONFIG", self.tr("Town config file (TOML), instead of the layers below"),
            behavior=QgsProcessingParameterFile.File, extension="toml", optional=True),
            "A town config (TOML, see SPEC section 4) naming every reference layer, for staff "
            "who keep one config per town. When set, the town layer parameters of this "
            "algorithm are ignored and the engine reads the layers the config names.")

    def add_town_layers(self) -> None:
        """One layer parameter (+ its field parameters) per entry of :attr:`TOWN_LAYERS`."""
        for key, optional, advanced in self.TOWN_LAYERS:
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
            for f in li.fields:
                fp = QgsProcessingParameterField(
                    f.param, self.tr(f.description), defaultValue=f.default or None,
                    parentLayerParameterName=li.param, optional=True)
                what = f"Field of {li.param} holding the {f.logical.replace('_', ' ')}"
                default = (f" (default: {f.default}, the published field name)" if f.default
                           else " (no published field: empty unless your data has one)")
                self.add(fp, what + default
                         + ("; required." if f.required else "; leave empty if absent."),
                         advanced=advanced or f.advanced)

    def add_common_advanced(self) -> None:
        self.add(QgsProcessingParameterCrs("WORKING_CRS", self.tr("Working CRS (projected)"),
                                           defaultValue=DEFAULT_CRS, optional=True),
                 "The projected CRS the engine measures distances and areas in (inputs in any "
                 "CRS are reprojected). Default EPSG:26986, NAD83 / Massachusetts Mainland.",
                 advanced=True)
        self.add(QgsProcessingParameterString("TOWN_NAME", self.tr("Town name (for reports)"),
                                              defaultValue="Lynnfield", optional=True),
                 "Town name printed on reports and lists (not used when TOWN_CONFIG is set).",
                 advanced=True)

    def add_output_folder(self, help_text: str, *, optional: bool = True) -> None:
        p = QgsProcessingParameterFolderDestination(
            "OUTPUT_FOLDER", self.tr("Output folder (all files the engine writes)"),
            optional=optional, createByDefault=not optional)
        self.add(p, help_text + " Files of the same name already in the folder are replaced.")

    def add_distance(self, name: str, desc: str, default: float, help_text: str, *,
                     advanced: bool = False) -> None:
        self.add(QgsProcessingParameterNumber(name, self.tr(desc),
                                              QgsProcessingParameterNumber.Double,
                                              defaultValue=default, minValue=0.0),
                 help_text, advanced=advanced)

    def add_bool(self, name: str, desc: str, default: bool, help_text: str, *,
                 advanced: bool = False) -> None:
        self.add(QgsProcessingParameterBoolean(name, self.tr(desc), defaultValue=default),
                 help_text, advanced=advanced)

    # ------------------------------------------------------------------ running
    def processAlgorithm(self, parameters, context, feedback):  # noqa: N802
        exe = _find_engine()
        work = Path(tempfile.mkdtemp(prefix=f"swm_gis_{self.ALG_ID}_",
                                     dir=QgsProcessingUtils.tempFolder()))
        ws = Workspace(self, parameters, context, feedback, work)
        args = self.engine_args(parameters, context, feedback, ws)
        feedback.setProgressText(self.tr("Running the swm-gis engine"))
        try:
            result = engine.run_engine(args, feedback, executable=exe, cwd=str(work),
                                       progress_range=(5.0, 95.0))
        except engine.EngineCanceled as exc:
            raise QgsProcessingException(str(exc)) from None
        except engine.EngineError as exc:
            raise QgsProcessingException(str(exc)) from None
        outputs = self.collect(result, parameters, context, feedback, ws)
        ws.write_provenance(outputs)
        feedback.setProgress(100.0)
        return outputs

    def engine_args(self, parameters, context, feedback, ws: Workspace) -> list[str]:
        raise NotImplementedError

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
        with ``missing_ok`` an absent layer gives an empty sink. ``style`` names a QML file of
        the plugin's styles folder; with ``stored_style`` the style the engine stored in the
        GeoPackage (layer_styles) is used when there is one.
        """
        src = QgsVectorLayer(f"{gpkg}|layername={layer_name}", layer_name, "ogr")
        if not src.isValid() and not missing_ok:
            raise QgsProcessingException(
                f"The swm-gis engine did not write layer '{layer_name}' in {gpkg}; this plugin "
                "and the installed engine may not match (update both).")
        wanted = _GEOMETRY_FAMILY.get(geometry or "")
        fields = QgsFields()
        keep: list[int] = []
        if src.isValid():
            keep = [i for i, f in enumerate(src.fields()) if f.name().lower() != "fid"]
            for i in keep:
                fields.append(src.fields().at(i))
            wkb = QgsWkbTypes.multiType(src.wkbType()) if src.isSpatial() else \
                QgsWkbTypes.NoGeometry
            crs = src.crs()
        else:
            wkb, crs = QgsWkbTypes.NoGeometry, QgsCoordinateReferenceSystem(DEFAULT_CRS)
        if wanted is not None:
            wkb = {QgsWkbTypes.PolygonGeometry: QgsWkbTypes.MultiPolygon,
                   QgsWkbTypes.LineGeometry: QgsWkbTypes.MultiLineString,
                   QgsWkbTypes.PointGeometry: QgsWkbTypes.MultiPoint}[wanted]
        sink, dest = self.parameterAsSink(parameters, sink_param, context, fields, wkb, crs)
        if sink is None:
            return None
        if src.isValid():
            for feat in src.getFeatures():
                geom = feat.geometry()
                if wanted is not None and (geom.isNull() or geom.type() != wanted):
                    continue
                if not geom.isNull() and QgsWkbTypes.isMultiType(wkb):
                    geom.convertToMultiType()
                out = QgsFeature(fields)
                out.setGeometry(geom)
                attrs = feat.attributes()
                out.setAttributes([attrs[i] for i in keep])
                if not sink.addFeature(out, QgsFeatureSink.FastInsert):
                    raise QgsProcessingException(
                        f"Cannot write to {sink_param}: {sink.lastError()}")
        if context.willLoadLayerOnCompletion(dest):
            details = context.layerToLoadOnCompletionDetails(dest)
            if display:
                details.name = display
            qml = STYLES_DIR / style if style else None
            if stored_style and src.isValid():
                stored = stored_style_qml(src, Path(str(gpkg)).with_name(
                    f"{layer_name}_stored_style.qml"))
                qml = stored or qml
            if qml is not None:
                pp = StyleLayer(qml)
                _KEEP_ALIVE.append(pp)
                details.setPostProcessor(pp)
        return dest

    @staticmethod
    def read_json(path: str | Path) -> dict:
        try:
            return json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise QgsProcessingException(
                f"Cannot read the engine's output {path}: {exc}") from None


ENGINE_NOTE = (
    "Runs the swm-gis engine as a separate program (like QGIS's GRASS and SAGA providers); "
    "install it with 'pip install swm-gis' and, if it is not on PATH, set its path under "
    "Processing > Options > Providers > swm-gis. Rule values are Lynnfield Chapter 320's; "
    "distances are in feet and measured exactly on the geometry in the working CRS."
)


def _find_engine() -> str:
    try:
        return engine.find_engine()
    except engine.EngineError as exc:
        raise QgsProcessingException(str(exc)) from None


class Workspace:
    """The temporary folder of one run: exported layers and the town config that names them."""

    def __init__(self, alg: SwmGisAlgorithm, parameters: dict, context, feedback,
                 folder: Path) -> None:
        self.alg = alg
        self.parameters = parameters
        self.context = context
        self.feedback = feedback
        self.folder = folder
        self.layers: dict[str, dict[str, Any]] = {}
        self.rules: dict[str, Any] = {}
        self.inputs: dict[str, dict[str, Any]] = {}  # provenance: QGIS layer -> exported file

    # -- helpers ------------------------------------------------------------------------
    def has(self, name: str) -> bool:
        value = self.parameters.get(name)
        return value is not None and value != ""

    def layer_of(self, name: str) -> QgsVectorLayer | None:
        """The vector layer behind parameter ``name``, also for a "selected features only"
        definition (which parameterAsVectorLayer does not resolve in QGIS 3.22)."""
        value = self.parameters.get(name)
        if isinstance(value, QgsProcessingFeatureSourceDefinition):
            src = value.source
            src = src.staticValue() if hasattr(src, "staticValue") else src
            layer = QgsProcessingUtils.mapLayerFromString(str(src), self.context)
            return layer if isinstance(layer, QgsVectorLayer) else None
        return self.alg.parameterAsVectorLayer(self.parameters, name, self.context)

    def source_layer_label(self, name: str) -> str:
        layer = self.layer_of(name)
        return f"'{layer.name()}'" if layer is not None else name

    def selected_only(self, name: str) -> bool:
        value = self.parameters.get(name)
        return isinstance(value, QgsProcessingFeatureSourceDefinition) and \
            bool(value.selectedFeaturesOnly)

    def same_layer(self, a: str, b: str) -> bool:
        """True when parameters ``a`` and ``b`` name the same layer (maybe with a selection)."""
        la, lb = self.layer_of(a), self.layer_of(b)
        if la is None or lb is None:
            return False
        return la.id() == lb.id() or la.source() == lb.source()

    # -- town layers --------------------------------------------------------------------
    def town_config(self) -> str | None:
        if not self.alg.ACCEPTS_TOWN_CONFIG:
            return None
        path = self.alg.parameterAsFile(self.parameters, "TOWN_CONFIG", self.context)
        if not path:
            return None
        if not os.path.isfile(path):
            raise QgsProcessingException(f"TOWN_CONFIG: the town config file {path} does not "
                                         "exist. Choose a TOML town config, or leave it empty "
                                         "and give the layers instead.")
        return path

    def add_town_layers(self, *, progress_to: float = 5.0) -> None:
        """Export every town layer parameter that has a value; check required ones."""
        wanted = [(k, opt) for k, opt, _adv in self.alg.TOWN_LAYERS]
        for n, (key, optional) in enumerate(wanted):
            li = CATALOG[key]
            if not self.has(li.param):
                if not optional:
                    raise QgsProcessingException(
                        f"{li.param}: the {li.description} layer is required.")
                continue
            if self.feedback.isCanceled():
                raise QgsProcessingException("Cancelled.")
            self.feedback.setProgressText(f"Exporting {li.description}")
            if li.geometry == "raster":
                self.add_raster(li)
            elif li.geometry == "raster_or_polygon":
                layer = self.alg.parameterAsLayer(self.parameters, li.param, self.context)
                if isinstance(layer, QgsRasterLayer):
                    self.add_raster(li)
                else:
                    self.add_vector(li)
            else:
                self.add_vector(li)
            self.feedback.setProgress(progress_to * (n + 1) / max(1, len(wanted)))

    def field_mapping(self, li: LayerInput, names: list[str]) -> dict[str, str]:
        """Logical field -> actual field from the field parameters, with clear errors."""
        by_lower = {n.lower(): n for n in names}
        label = self.source_layer_label(li.param)
        mapping: dict[str, str] = {}
        for f in li.fields:
            value = self.alg.parameterAsString(self.parameters, f.param, self.context)
            value = (value or "").strip()
            if not value:
                if f.required:
                    raise QgsProcessingException(
                        f"{f.param}: choose the field of {li.param} ({label}) holding the "
                        f"{f.logical.replace('_', ' ')} (published name {f.default}).")
                continue
            actual = by_lower.get(value.lower())
            if actual is None:
                if not f.required and value == f.default:
                    continue  # an optional published field this layer simply does not have
                raise QgsProcessingException(
                    f"{li.param} ({label}) has no field '{value}' for the "
                    f"{f.logical.replace('_', ' ')} ({f.param}). Choose the right field in "
                    f"{f.param}. Fields in the layer: {', '.join(names) or 'none'}.")
            mapping[f.logical] = actual
        return mapping

    def export(self, name: str, file_stem: str, *, keep_fields: list[str] | None = None,
               rename: dict[str, str] | None = None, mixed_geometry: bool = False) -> str:
        """Write parameter ``name``'s features (selection honoured) to ``file_stem``.gpkg."""
        source = self.alg.parameterAsSource(self.parameters, name, self.context)
        if source is None:
            raise QgsProcessingException(f"{name}: cannot open the layer.")
        label = self.source_layer_label(name)
        crs = source.sourceCrs()
        has_geom = source.wkbType() not in (QgsWkbTypes.NoGeometry, QgsWkbTypes.Unknown)
        if has_geom and crs_missing(crs):
            raise QgsProcessingException(
                f"{name} ({label}) has no coordinate reference system, so distances and areas "
                "cannot be measured. Set it in the layer's Properties > Source > Assigned "
                "Coordinate Reference System (MassGIS data: EPSG:26986, NAD83 / Massachusetts "
                "Mainland; GPS longitude/latitude: EPSG:4326) and run again.")
        if source.featureCount() == 0:
            sel = " (only selected features: is anything selected?)" if \
                self.selected_only(name) else ""
            raise QgsProcessingException(f"{name} ({label}) has no features{sel}.")
        src_fields = source.fields()
        rename = rename or {}
        idx = [src_fields.indexOf(f) for f in (keep_fields or [])
               if f.lower() != "fid" or f in rename]  # GeoPackage keeps fid for itself
        fields = QgsFields()
        for i in idx:
            fld = QgsField(src_fields.at(i))
            if fld.name() in rename:
                fld.setName(rename[fld.name()])
            fields.append(fld)
        if not has_geom:
            wkb = QgsWkbTypes.NoGeometry
        elif mixed_geometry:  # e.g. impaired waters: streams (lines) and ponds (polygons)
            wkb = QgsWkbTypes.Unknown
        else:
            wkb = QgsWkbTypes.multiType(source.wkbType())
        path = str(self.folder / f"{file_stem}.gpkg")
        opts = QgsVectorFileWriter.SaveVectorOptions()
        opts.driverName = "GPKG"
        opts.layerName = file_stem
        opts.fileEncoding = "UTF-8"
        writer = QgsVectorFileWriter.create(path, fields, wkb,
                                            crs if has_geom else QgsCoordinateReferenceSystem(),
                                            self.context.transformContext(), opts)
        if writer.hasError() != QgsVectorFileWriter.NoError:
            raise QgsProcessingException(f"Cannot write {path}: {writer.errorMessage()}")
        request = QgsFeatureRequest()
        if not has_geom:
            request.setFlags(QgsFeatureRequest.NoGeometry)
        # invalid geometry goes through as it is: the engine repairs it (make_valid) and
        # reports it, exactly as on the command line
        for feat in source.getFeatures(request,
                                       QgsProcessingFeatureSource.FlagSkipGeometryValidityChecks):
            if self.feedback.isCanceled():
                del writer
                raise QgsProcessingException("Cancelled.")
            out = QgsFeature(fields)
            attrs = feat.attributes()
            out.setAttributes([attrs[i] for i in idx])
            if has_geom:
                geom = feat.geometry()
                if not geom.isNull() and QgsWkbTypes.isMultiType(wkb):
                    geom.convertToMultiType()
                out.setGeometry(geom)
            if not writer.addFeature(out):
                msg = writer.errorMessage()
                del writer
                raise QgsProcessingException(f"Cannot export {name} ({label}) to {path}: {msg}")
        del writer  # flush and close
        layer = self.layer_of(name)
        self.inputs[name] = {
            "layer": layer.name() if layer is not None else None,
            "source": layer.publicSource() if layer is not None else str(
                self.parameters.get(name)),
            "crs": crs.authid() or crs.description(),
            "selected_features_only": self.selected_only(name),
            "features": source.featureCount(), "exported_to": path,
        }
        self.feedback.pushInfo(f"{name}: exported {source.featureCount()} features of {label}"
                               f"{' (selected only)' if self.selected_only(name) else ''} "
                               f"to {path}")
        return path

    def add_vector(self, li: LayerInput) -> None:
        source = self.alg.parameterAsSource(self.parameters, li.param, self.context)
        if source is None:
            raise QgsProcessingException(f"{li.param}: cannot open the layer.")
        mapping = self.field_mapping(li, list(source.fields().names()))
        keep = list(dict.fromkeys(mapping.values()))
        path = self.export(li.param, li.key, keep_fields=keep,
                           mixed_geometry=li.geometry == "any")
        self.layers[li.key] = {"path": path, "layer": li.key, "fields": mapping,
                               "crs": source.sourceCrs().authid() or None}

    def add_raster(self, li: LayerInput) -> None:
        layer = self.alg.parameterAsRasterLayer(self.parameters, li.param, self.context)
        if layer is None:
            raise QgsProcessingException(f"{li.param}: cannot open the raster layer.")
        if layer.providerType() != "gdal" or not os.path.exists(layer.source().split("|")[0]):
            raise QgsProcessingException(
                f"{li.param} ('{layer.name()}') is not a raster file the engine can read "
                f"(provider {layer.providerType()}). Save it as a GeoTIFF (Export > Save As) "
                "and use that.")
        if crs_missing(layer.crs()):
            raise QgsProcessingException(
                f"{li.param} ('{layer.name()}') has no coordinate reference system. Set it in "
                "the layer's Properties > Source and run again.")
        self.layers[li.key] = {"path": layer.source().split("|")[0], "layer": None,
                               "fields": {}, "crs": layer.crs().authid() or None}
        self.inputs[li.param] = {"layer": layer.name(), "source": layer.publicSource(),
                                 "crs": layer.crs().authid(), "exported_to": None}

    # -- the town config ----------------------------------------------------------------
    def write_config(self, *, name: str | None = None) -> str:
        """Write the temporary town config naming the exported layers; its path."""
        crs = self.alg.parameterAsCrs(self.parameters, "WORKING_CRS", self.context)
        crs_id = crs.authid() if crs.isValid() and crs.authid() else DEFAULT_CRS
        if crs.isValid() and crs.isGeographic():
            raise QgsProcessingException(
                f"WORKING_CRS {crs_id} is geographic (degrees); distances and areas need a "
                "projected CRS such as EPSG:26986 (NAD83 / Massachusetts Mainland).")
        town = name or self.alg.parameterAsString(self.parameters, "TOWN_NAME", self.context) \
            or "Lynnfield"
        lines = ["# Written by the swm-gis QGIS plugin for one run.", "[town]",
                 f"name = {_toml(town)}", f"crs = {_toml(crs_id)}", ""]
        if self.rules:
            lines.append("[rules]")
            lines += [f"{k} = {_toml(v)}" for k, v in self.rules.items()]
            lines.append("")
        for key, entry in self.layers.items():
            lines.append(f"[layers.{key}]")
            lines.append(f"path = {_toml(entry['path'])}")
            if entry.get("layer"):
                lines.append(f"layer = {_toml(entry['layer'])}")
            if entry.get("crs"):
                lines.append(f"crs = {_toml(entry['crs'])}")
            if entry.get("fields"):
                lines.append(f"[layers.{key}.fields]")
                lines += [f"{k} = {_toml(v)}" for k, v in entry["fields"].items()]
            lines.append("")
        path = self.folder / "town.toml"
        path.write_text("\n".join(lines), encoding="utf-8")
        return str(path)

    def config_path(self) -> str:
        """The TOWN_CONFIG file if given, else the exported layers' temporary config."""
        cfg = self.town_config()
        if cfg:
            given = [CATALOG[k].param for k, _o, _a in self.alg.TOWN_LAYERS
                     if self.has(CATALOG[k].param)]
            if given:
                self.feedback.pushWarning(
                    f"TOWN_CONFIG is set, so these layer parameters are ignored: "
                    f"{', '.join(given)}.")
            return cfg
        self.add_town_layers()
        if "parcels" not in self.layers:
            raise QgsProcessingException(
                "PARCELS: give the parcels layer"
                + (" or a town config file (TOWN_CONFIG)." if self.alg.ACCEPTS_TOWN_CONFIG
                   else "."))
        return self.write_config()

    def write_provenance(self, outputs: dict) -> None:
        """qgis_inputs.json beside the engine's outputs: which QGIS layers (source, selection,
        feature count) the temporary files named in the outputs' source notes came from."""
        folder = outputs.get("OUTPUT_FOLDER") or getattr(self.alg, "_out", None)
        if not folder or not os.path.isdir(folder) or not self.inputs:
            return
        doc = {"algorithm": f"swm_gis:{self.alg.ALG_ID}", "inputs": self.inputs,
               "town_config": self.town_config() or str(self.folder / "town.toml"),
               "note": "The engine read temporary exports of these QGIS layers; the source "
                       "notes in the outputs name the exports."}
        Path(folder, "qgis_inputs.json").write_text(json.dumps(doc, indent=2, default=str),
                                                    encoding="utf-8")
        self.feedback.pushInfo(f"Inputs recorded in {Path(folder, 'qgis_inputs.json')}")

    def out_folder(self, *, sub: str = "out") -> str:
        """OUTPUT_FOLDER if given (created), else a folder in the run's temporary folder."""
        folder = ""
        if "OUTPUT_FOLDER" in [p.name() for p in self.alg.parameterDefinitions()]:
            folder = self.alg.parameterAsFileOutput(self.parameters, "OUTPUT_FOLDER",
                                                    self.context)
        if not folder or folder == "TEMPORARY_OUTPUT":
            folder = str(self.folder / sub)
        os.makedirs(folder, exist_ok=True)
        return folder


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return json.dumps(str(value), ensure_ascii=False)

"""The temporary folder of one run: the exported layers and the town config that names them.

:class:`Workspace` exports the QGIS layers an algorithm was given (with QGIS's own writer,
honouring "selected features only", keeping only the mapped fields), checks field mappings before
the run, writes the temporary town config, turns messages into the dialog's words and, after the
run, puts the names of the user's QGIS layers into the outputs in place of the temporary exports.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from pathlib import Path
from typing import Any

from qgis.core import (
    QgsCoordinateReferenceSystem,
    QgsFeature,
    QgsFeatureRequest,
    QgsField,
    QgsFields,
    QgsProcessingException,
    QgsProcessingFeatureSource,
    QgsProcessingFeatureSourceDefinition,
    QgsProcessingOutputLayerDefinition,
    QgsProcessingParameterDefinition,
    QgsProcessingUtils,
    QgsRasterLayer,
    QgsVectorFileWriter,
    QgsVectorLayer,
    QgsWkbTypes,
)

from . import engine, safety, wording
from .catalog import CATALOG, LayerInput

DEFAULT_CRS = "EPSG:26986"  # NAD83 / Massachusetts Mainland (metres)


def crs_missing(crs: QgsCoordinateReferenceSystem) -> bool:
    """True for no CRS, and for the GeoPackage "Undefined geographic/Cartesian SRS" (srs_id 0/-1)
    that GDAL reports for layers written without one."""
    if not crs.isValid():
        return True
    if crs.authid():
        return False
    text = f"{crs.description()} {crs.toWkt()[:200]}".lower()
    return "undefined geographic srs" in text or "undefined cartesian srs" in text


class Workspace:
    """The temporary folder of one run: exported layers and the town config that names them."""

    def __init__(self, alg: Any, parameters: dict, context, feedback,
                 folder: Path) -> None:
        self.alg = alg
        self.parameters = parameters
        self.context = context
        self.feedback = feedback
        self.folder = folder
        self.layers: dict[str, dict[str, Any]] = {}
        self.rules: dict[str, Any] = {}
        self.inputs: dict[str, dict[str, Any]] = {}  # provenance: QGIS layer -> exported file
        #: ``[layers.parcels] right_of_way`` for the config: {"field": ..., "values": [...]}
        self.right_of_way: dict[str, Any] | None = None
        #: the user's output folder: the engine writes into a staging folder of this run and
        #: :meth:`deliver` moves the files there once everything succeeded (None: none chosen)
        self.final_folder: str | None = None
        #: (staged file, the user's file) pairs that :meth:`deliver` moves into place
        self.final_files: list[tuple[str, str]] = []

    # -- helpers ------------------------------------------------------------------------
    def label(self, name: str) -> str:
        """The label the dialog shows for parameter ``name``, quoted."""
        d = self.alg.parameterDefinition(name)
        return f"'{d.description()}'" if d is not None else name

    def say(self, text: str, *, parts: list | None = None, ids: bool = True,
            whole: bool = False) -> str:
        """``text`` in the dialog's words (labels, QGIS layers; no flags, no temporary paths);
        ``ids=False`` for data values, whose words may look like parameter ids (HUC10);
        ``whole`` for findings and text outputs, which are never cut; ``parts``: the engine's
        message as text and references, worded from them."""
        labels = wording.param_labels(self.alg.parameterDefinitions())
        exports = self._export_names(
            lambda name, info: f"the layer '{info.get('layer') or name}'")
        return wording.dialog_text(text, labels, parts=parts, exports=exports,
                                   temp_root=str(self.folder),
                                   user_config=self.has("TOWN_CONFIG"), ids=ids,
                                   limit=None if whole else wording.MAX_CHARS)

    def arg(self, path: str) -> str:
        """How a command-line argument names an exported file: ``./NAME`` relative to this
        folder (the engine runs in it), so the outputs that echo the argument (the screening
        report's parameters) never print the temporary folder."""
        p = Path(path)
        return f"./{p.name}" if p.parent == self.folder else path

    def _export_names(self, label) -> dict[str, str]:
        """Each export (absolute and as :meth:`arg` names it) -> ``label(name, info)``."""
        names = {}
        for name, info in self.inputs.items():
            if info.get("exported_to"):
                text = label(name, info)
                names[str(info["exported_to"])] = text
                names[self.arg(str(info["exported_to"]))] = text
        return names

    def warn(self, text: str) -> None:
        """A warning in the dialog's log, in the dialog's words."""
        self.feedback.pushWarning(self.say(text))

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

    # -- inputs are never written to -----------------------------------------------------
    def real_inputs(self) -> dict[str, list[str]]:
        """What each input parameter reads, by its dialog name: the files behind the QGIS
        layers (never the temporary exports) and a town config with every file it names."""
        found: dict[str, list[str]] = {}
        for d in self.alg.parameterDefinitions():
            name = d.name()
            if d.isDestination() or not self.has(name):
                continue
            kind = d.type()
            files: list[str] = []
            what = self.label(name)
            if kind == "file":
                path = self.alg.parameterAsFile(self.parameters, name, self.context)
                if path:
                    files = safety.config_files(path) if path.lower().endswith(".toml") \
                        else safety.source_files(path)
            elif kind in ("source", "vector", "raster", "layer"):
                layer = self.layer_of(name) if kind in ("source", "vector") else \
                    self.alg.parameterAsLayer(self.parameters, name, self.context)
                if layer is not None:
                    files = safety.source_files(layer.source())
                    what += f" (layer '{layer.name()}')"
            elif kind == "multilayer":
                for layer in self.alg.parameterAsLayerList(self.parameters, name, self.context):
                    files += safety.source_files(layer.source())
            if files:
                found[what] = files
        return found

    def destinations(self) -> list[tuple[str, str]]:
        """(parameter name, path) of every output the user chose as a file or folder."""
        out = []
        for d in self.alg.parameterDefinitions():
            if not d.isDestination():
                continue
            value = self.parameters.get(d.name())
            if isinstance(value, QgsProcessingOutputLayerDefinition):
                sink = value.sink
                value = sink.staticValue() if hasattr(sink, "staticValue") else sink
            text = str(value or "").strip()
            if not text or text == "TEMPORARY_OUTPUT" or text.startswith("memory:"):
                continue
            files = safety.source_files(text)
            if files:
                out.append((d.name(), files[0]))
        return out

    def refuse_outputs_on_inputs(self) -> None:
        """Stop the run before anything is written when an output is, contains or lies inside
        an input of the run (a GeoPackage holding the parcels, the folder of the data)."""
        inputs = self.real_inputs()
        for name, path in self.destinations():
            hit = safety.clash(path, inputs)
            if hit is None:
                continue
            what, rel, src = hit
            where = {"is": f"is {src}, the very file {what} is read from",
                     "is inside": f"({path}) lies inside {src}, which {what} is read from",
                     "contains": f"({path}) is a folder holding {src}, which {what} is read "
                                 "from"}[rel]
            raise QgsProcessingException(
                f"{self.label(name)} {where}: writing there would destroy the input. "
                "Choose a new file or folder outside every input of the run; nothing was "
                "written.")

    # -- outputs: staged in this run's folder, moved into place at the end ---------------
    def deliver(self, outputs: dict) -> dict:
        """Move the staged outputs into the user's folder and files (each file to a temporary
        name beside its target, then renamed over it) once the run succeeded; ``outputs`` with
        their paths changed accordingly. A cancel before this leaves the user's files as they
        were."""
        if self.feedback.isCanceled():
            raise QgsProcessingException(self.cancelled_text())
        moved: dict[str, str] = {}
        staged = self.alg.engine_out
        if self.final_folder and staged and os.path.isdir(staged) and \
                safety.real_path(staged) != safety.real_path(self.final_folder):
            os.makedirs(self.final_folder, exist_ok=True)
            for path in sorted(Path(staged).rglob("*")):
                if path.is_file():
                    target = Path(self.final_folder) / path.relative_to(staged)
                    _move_into_place(path, target)
                    moved[str(path)] = str(target)
            moved[str(staged)] = str(self.final_folder)
        for src, target in self.final_files:
            if os.path.exists(src):
                _move_into_place(Path(src), Path(target))
                moved[src] = target

        def final(value):
            if not isinstance(value, str):
                return value
            if value in moved:
                return moved[value]
            if self.final_folder and staged and value.startswith(str(staged) + os.sep):
                return self.final_folder + value[len(str(staged)):]  # a file not written
            return value

        return {k: final(v) for k, v in outputs.items()}

    def cancelled_text(self) -> str:
        kept = [p for _n, p in self.destinations() if os.path.exists(p)]
        return ("Cancelled: the run was stopped before any output was replaced"
                + (f" ({', '.join(kept)} left as they were)." if kept else "."))

    # -- town layers --------------------------------------------------------------------
    def town_config(self) -> str | None:
        if not self.alg.ACCEPTS_TOWN_CONFIG:
            return None
        path = self.alg.parameterAsFile(self.parameters, "TOWN_CONFIG", self.context)
        if not path:
            return None
        if not os.path.isfile(path):
            raise QgsProcessingException(f"The file {path} chosen in TOWN_CONFIG does not "
                                         "exist. Choose a TOML town config, or leave it empty "
                                         "and choose the layers instead.")
        return path

    def town_name(self) -> str:
        """The town's name for the reports, from the town name parameter; "" when not set
        (never guessed: a certified list must not name the wrong town)."""
        if self.alg.parameterDefinition("TOWN_NAME") is None:
            return ""
        return (self.alg.parameterAsString(self.parameters, "TOWN_NAME", self.context)
                or "").strip()

    def config_parcels(self) -> dict[str, Any] | None:
        """The parcels the town config file names, as the engine reads the file (``swm-gis
        config show``): {"sources": [(file, layer or ""), ...], "id": its id field}, or None
        without a config (or with one the engine refuses: the run then says why)."""
        cfg = self.town_config()
        if not cfg:
            return None
        try:
            shown = engine.run_engine(["config", "show", "--config", cfg], None,
                                      cwd=str(self.folder))["config"]
        except engine.EngineError:
            return None
        parcels = shown["layers"]["parcels"]
        sources = [(f, str(src.get("layer") or "")) for src in parcels["sources"]
                   for f in safety.source_files(str(src["path"]))[:1]]
        return {"sources": sources, "id": str(parcels["fields"].get("id") or "")}

    def reads(self, name: str, parcels: dict) -> bool:
        """True when parameter ``name``'s layer reads one of the config's parcels sources (same
        file, and the same layer of it when the config names one)."""
        layer = self.layer_of(name)
        if layer is None:
            return False
        files = safety.source_files(layer.source())
        m = re.search(r"\|layername=([^|]+)", layer.source())
        return bool(files) and any(
            files[0] == file and not (wanted and m and m.group(1) != wanted)
            for file, wanted in parcels["sources"])

    def add_town_layers(self, *, progress_to: float = 5.0) -> None:
        """Export every town layer parameter that has a value; check required ones."""
        wanted = [(k, opt) for k, opt, _adv in self.alg.TOWN_LAYERS]
        for n, (key, optional) in enumerate(wanted):
            li = CATALOG[key]
            if not self.has(li.param):
                if not optional:
                    alt = (f", or a town config file in {self.label('TOWN_CONFIG')} (saved "
                           "once by 'Set up the town')") if self.alg.ACCEPTS_TOWN_CONFIG else ""
                    raise QgsProcessingException(
                        f"Choose a layer in {self.label(li.param)}{alt}.")
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

    def field_mapping(self, li: LayerInput, names: list[str], *,
                      problems: list[str] | None = None) -> dict[str, str]:
        """Logical field -> actual field from the field parameters, checked before the run.

        A field the engine (or this algorithm, see :attr:`SwmGisAlgorithm.REQUIRED_FIELDS`)
        needs and that does not resolve stops the run naming the parameter to set; with a
        ``problems`` list each such message is added to it instead (all said at once).
        """
        by_lower = {n.lower(): n for n in names}
        label = self.source_layer_label(li.param)
        needed = set(self.alg.REQUIRED_FIELDS.get(li.key, ()))
        mapping: dict[str, str] = {}
        for f in li.fields:
            required = f.required or f.logical in needed
            value = (self.alg.parameterAsString(self.parameters, f.param, self.context)
                     or "").strip()
            actual = by_lower.get(value.lower()) if value else None
            if actual is None and value and not required and value == f.default:
                continue  # an optional published field this layer simply does not have
            if actual is None and (value or required):
                has = f"has no field '{value}'" if value else "has no field chosen"
                text = (f"{self.label(li.param)} ({label}) {has} for the "
                        f"{f.logical.replace('_', ' ')}: choose it in {self.label(f.param)}"
                        f"{' (under Advanced Parameters)' if self._is_advanced(f.param) else ''}"
                        f". Fields in the layer: {', '.join(names) or 'none'}.")
                if problems is None:
                    raise QgsProcessingException(text)
                problems.append(text)
                continue
            if actual is not None:
                mapping[f.logical] = actual
        return mapping

    def _is_advanced(self, name: str) -> bool:
        d = self.alg.parameterDefinition(name)
        return d is not None and \
            bool(d.flags() & QgsProcessingParameterDefinition.Flag.FlagAdvanced)

    def export(self, name: str, file_stem: str, *, keep_fields: list[str] | None = None,
               rename: dict[str, str] | None = None, mixed_geometry: bool = False) -> str:
        """Write parameter ``name``'s features (selection honoured) to ``file_stem``.gpkg."""
        source = self.checked_source(name)
        label = self.source_layer_label(name)
        crs = source.sourceCrs()
        has_geom = _has_geometry(source)
        fields, idx = _export_fields(source.fields(), keep_fields or [], rename or {})
        if not has_geom:
            wkb = QgsWkbTypes.Type.NoGeometry
        elif mixed_geometry:  # e.g. impaired waters: streams (lines) and ponds (polygons)
            wkb = QgsWkbTypes.Type.Unknown
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
        if writer.hasError() != QgsVectorFileWriter.WriterError.NoError:
            raise QgsProcessingException(f"Cannot write {path}: {writer.errorMessage()}")
        failed = self._write_features(source, writer, fields, idx, wkb, has_geom)
        del writer  # flush and close, before any refusal (the file is not left open)
        if failed:
            raise QgsProcessingException(
                failed if failed == "Cancelled." else
                f"Cannot export {name} ({label}) to {path}: {failed}")
        self.record_input(name, source, path)
        n = source.featureCount()
        self.feedback.pushInfo(f"{self.label(name)}: {n:,} feature{'' if n == 1 else 's'} of "
                               f"{label}"
                               f"{' (selected features only)' if self.selected_only(name) else ''}")
        return path

    def checked_source(self, name: str):
        """Parameter ``name``'s feature source, refused when it cannot be opened, has
        geometry but no CRS, or has no features."""
        source = self.alg.parameterAsSource(self.parameters, name, self.context)
        if source is None:
            raise QgsProcessingException(f"{name}: cannot open the layer.")
        label = self.source_layer_label(name)
        if _has_geometry(source) and crs_missing(source.sourceCrs()):
            raise QgsProcessingException(
                f"{name} ({label}) has no coordinate reference system, so distances and areas "
                "cannot be measured. Set it in the layer's Properties > Source > Assigned "
                "Coordinate Reference System (MassGIS data: EPSG:26986, NAD83 / Massachusetts "
                "Mainland; GPS longitude/latitude: EPSG:4326) and run again.")
        if source.featureCount() == 0:
            sel = " (only selected features: is anything selected?)" if \
                self.selected_only(name) else ""
            raise QgsProcessingException(f"{name} ({label}) has no features{sel}.")
        return source

    def _write_features(self, source, writer, fields: QgsFields, idx: list[int], wkb,
                        has_geom: bool) -> str | None:
        """Copy ``source``'s features (attributes at ``idx``) into ``writer``; None, or why
        it stopped ("Cancelled.", or the writer's error)."""
        request = QgsFeatureRequest()
        if not has_geom:
            request.setFlags(QgsFeatureRequest.Flag.NoGeometry)
        # invalid geometry goes through as it is: the engine repairs it (make_valid) and
        # reports it, exactly as on the command line
        for feat in source.getFeatures(request,
                                       QgsProcessingFeatureSource.Flag.FlagSkipGeometryValidityChecks):
            if self.feedback.isCanceled():
                return "Cancelled."
            out = QgsFeature(fields)
            attrs = feat.attributes()
            out.setAttributes([attrs[i] for i in idx])
            if has_geom:
                geom = feat.geometry()
                if not geom.isNull() and QgsWkbTypes.isMultiType(wkb):
                    geom.convertToMultiType()
                out.setGeometry(geom)
            if not writer.addFeature(out):
                return writer.errorMessage()
        return None

    def record_input(self, name: str, source, path: str) -> None:
        """What the provenance says of input ``name``: its layer, source, CRS, filter,
        selection and feature count, and where it was exported to."""
        layer = self.layer_of(name)
        crs = source.sourceCrs()
        self.inputs[name] = {
            "layer": layer.name() if layer is not None else None,
            "source": layer.publicSource() if layer is not None else str(
                self.parameters.get(name)),
            "crs": crs.authid() or crs.description(),
            "subset": layer.subsetString() if layer is not None else "",
            "selected_features_only": self.selected_only(name),
            "features": source.featureCount(), "exported_to": path,
        }

    def add_vector(self, li: LayerInput) -> None:
        source = self.alg.parameterAsSource(self.parameters, li.param, self.context)
        if source is None:
            raise QgsProcessingException(f"{li.param}: cannot open the layer.")
        names = list(source.fields().names())
        mapping = self.field_mapping(li, names)
        keep = list(dict.fromkeys(mapping.values()))
        if li.key in ("parcels", "assess") and self.has(CATALOG["assess"].param):
            keep = list(dict.fromkeys([*keep, *names]))  # a refused join names the field to use
        if li.key == "parcels" and self.right_of_way:
            row_field = self.right_of_way["field"]
            if row_field not in names:
                raise QgsProcessingException(
                    f"The right-of-way field {row_field} is not a field of "
                    f"{self.source_layer_label(li.param)}.")
            keep = list(dict.fromkeys([*keep, row_field]))
        path = self.export(li.param, li.key, keep_fields=keep,
                           mixed_geometry=li.geometry == "any")
        self.layers[li.key] = {"path": path, "layer": li.key, "fields": mapping,
                               "crs": source.sourceCrs().authid() or None,
                               "label": provenance_label(self.inputs[li.param], short=True)}

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
        self.inputs[li.param] = {"layer": layer.name(), "source": layer.publicSource(),
                                 "crs": layer.crs().authid(), "exported_to": None}
        self.layers[li.key] = {"path": layer.source().split("|")[0], "layer": None,
                               "fields": {}, "crs": layer.crs().authid() or None,
                               "label": provenance_label(self.inputs[li.param], short=True)}

    # -- the town config ----------------------------------------------------------------
    def config_data(self, *, name: str | None = None, regulation: str | None = None) -> dict:
        """The town config naming :attr:`layers` as data (the TOML's model, which the engine
        reads from JSON and writes as TOML: ``swm-gis config write``), with the town's
        ``regulation`` (a bundled id or a profile file) when given."""
        crs = self.alg.parameterAsCrs(self.parameters, "WORKING_CRS", self.context)
        crs_id = crs.authid() if crs.isValid() and crs.authid() else DEFAULT_CRS
        if crs.isValid() and crs.isGeographic():
            raise QgsProcessingException(
                f"WORKING_CRS {crs_id} is geographic (degrees); distances and areas need a "
                "projected CRS such as EPSG:26986 (NAD83 / Massachusetts Mainland).")
        town = name or self.town_name()
        if not town:
            refusal = self.alg.unnamed_town(self.parameters, self.context)
            if refusal:
                raise QgsProcessingException(refusal)
            town = UNNAMED_TOWN  # nothing this run writes prints it
        data: dict[str, Any] = {"town": {
            "name": town, "crs": crs_id,
            **({"all_land_drains_to_ms4": True} if self._drains_to_ms4() else {}),
            **({"regulation": regulation} if regulation else {})}}
        if self.rules:
            data["rules"] = dict(self.rules)
        data["layers"] = {key: self._layer_data(key, entry) for key, entry in self.layers.items()}
        return data

    def write_config(self) -> str:
        """Write this run's town config naming :attr:`layers` (JSON, which the engine reads as
        it reads a TOML file); its path."""
        path = self.folder / RUN_CONFIG
        path.write_text(json.dumps(self.config_data(), indent=1, ensure_ascii=False),
                        encoding="utf-8")
        return str(path)

    def _drains_to_ms4(self) -> bool:
        """Whether the run states all the town's land drains to its MS4
        (ALL_LAND_DRAINS_TO_MS4: the config's ``[town] all_land_drains_to_ms4``)."""
        return self.alg.parameterDefinition("ALL_LAND_DRAINS_TO_MS4") is not None and \
            self.alg.parameterAsBoolean(self.parameters, "ALL_LAND_DRAINS_TO_MS4", self.context)

    def _layer_data(self, key: str, entry: dict) -> dict[str, Any]:
        """The ``[layers.KEY]`` table of the town config for ``entry``, as data."""
        out = {"path": entry["path"], **{k: entry[k] for k in ("layer", "crs", "label")
                                         if entry.get(k)}}
        if key == "parcels" and self.right_of_way:
            out["right_of_way"] = {"field": self.right_of_way["field"],
                                   "values": list(self.right_of_way["values"])}
        if entry.get("fields"):
            out["fields"] = dict(entry["fields"])
        return out

    def config_path(self, *, site_standin: str | None = None) -> str:
        """The town config file if given, else the exported layers' temporary config.

        The engine's town config needs a parcels layer even where the rule never reads it (the
        single checks). A screening algorithm hands its exported site as ``site_standin``: when
        no parcels layer is given, the parcels slot gets an empty layer (no parcel lies under
        the site, so the engine screens the limit of disturbance alone and reads no lot) and
        the site stands for the town's extent (the town check cannot be made without the
        town's layers). The site is never read as a parcel: Chapter 320's site is the lot, and
        the engine would report the limit of disturbance as one.
        """
        cfg = self.town_config()
        if cfg:
            given = [self.label(CATALOG[k].param) for k, _o, _a in self.alg.TOWN_LAYERS
                     if self.has(CATALOG[k].param)]
            if given:
                self.warn(
                    f"A town config file is set, so these layers are not used: "
                    f"{', '.join(given)}.")
            if self._drains_to_ms4():
                self.warn(f"A town config file is set, so {self.label('ALL_LAND_DRAINS_TO_MS4')}"
                          " is not used: the file's [town] all_land_drains_to_ms4 says it.")
            return cfg
        self.add_town_layers()
        if "parcels" not in self.layers:
            if site_standin is None:
                raise QgsProcessingException(
                    "Choose the parcels layer in PARCELS"
                    + (" or a TOWN_CONFIG." if self.alg.ACCEPTS_TOWN_CONFIG else "."))
            self.layers["parcels"] = {"path": self.no_parcels(site_standin), "layer": "parcels",
                                      "fields": {"id": "id"}, "crs": None}
            self.layers.setdefault("town_boundary", {"path": site_standin, "layer": "site",
                                                     "fields": {}, "crs": None})
            if any(k == "parcels" for k, _o, _a in self.alg.TOWN_LAYERS):
                # a check that reads the site's lot says it did not
                self.feedback.pushInfo(
                    f"No {self.label(CATALOG['parcels'].param)} in this run: the limit of "
                    "disturbance is screened alone, not the whole parcel(s) it lies on, and "
                    "the site is not checked to lie in the town.")
        return self.write_config()

    def no_parcels(self, site_standin: str) -> str:
        """An empty parcels layer (polygons, one text field ``id``, the site's CRS) for a
        screening run without parcels; its path."""
        site = QgsVectorLayer(f"{site_standin}|layername=site", "site", "ogr")
        fields = QgsVectorLayer("MultiPolygon?field=id:string", "parcels", "memory").fields()
        path = str(self.folder / "no_parcels.gpkg")
        opts = QgsVectorFileWriter.SaveVectorOptions()
        opts.driverName = "GPKG"
        opts.layerName = "parcels"
        writer = QgsVectorFileWriter.create(path, fields, QgsWkbTypes.Type.MultiPolygon,
                                            site.crs(), self.context.transformContext(), opts)
        if writer.hasError() != QgsVectorFileWriter.WriterError.NoError:
            raise QgsProcessingException(f"Cannot write {path}: {writer.errorMessage()}")
        del writer  # flush and close
        return path

    def write_provenance(self, outputs: dict) -> None:
        """Name the QGIS layers the user chose in the outputs, never the temporary exports.

        The engine's text outputs (CSV, JSON, HTML) record the files it read: here those are
        this run's temporary exports, deleted when QGIS exits, so each export path is replaced
        by the QGIS layer it came from (name, source, filter, selection). qgis_inputs.json beside
        them lists the same in full.
        """
        folder = outputs.get("OUTPUT_FOLDER") or self.alg.engine_out
        if not folder or not os.path.isdir(folder) or getattr(self.alg, "PUBLIC_OUTPUT", False):
            return  # a public web site never names the user's layer sources
        names = self._export_names(lambda _name, info: provenance_label(info))
        config = self.town_config()
        if not config:
            names[str(self.folder / RUN_CONFIG)] = "the layers chosen in the QGIS dialog"
        if self.final_folder:  # the files are read where they will be, not in the staging
            names[str(folder)] = self.final_folder
        for path in Path(folder).iterdir():
            if path.suffix.lower() in (".csv", ".json", ".html", ".txt", ".md", ".xlsx"):
                replace_paths(path, names)
        if not self.inputs:
            return
        doc = {"algorithm": f"swm_gis:{self.alg.ALG_ID}", "inputs": {
            k: {"parameter": self.label(k).strip("'"),
                **{kk: vv for kk, vv in v.items() if kk != "exported_to"}}
            for k, v in self.inputs.items()},
            "town_config": config or "written by the plugin from the layers above"}
        Path(folder, "qgis_inputs.json").write_text(json.dumps(doc, indent=2, default=str),
                                                    encoding="utf-8")

    def out_folder(self, *, sub: str = "out") -> str:
        """The folder the engine writes into: always one in this run's temporary folder.

        OUTPUT_FOLDER, when chosen, is where :meth:`deliver` moves the files at the end (as
        :attr:`final_folder`), so a failed or cancelled run never touches the user's folder.
        """
        folder = ""
        if "OUTPUT_FOLDER" in [p.name() for p in self.alg.parameterDefinitions()]:
            folder = self.alg.parameterAsFileOutput(self.parameters, "OUTPUT_FOLDER",
                                                    self.context)
        if folder and folder != "TEMPORARY_OUTPUT":
            self.final_folder = safety.real_path(folder)
        staged = str(self.folder / sub)
        os.makedirs(staged, exist_ok=True)
        return staged


def _move_into_place(src: Path, target: Path) -> None:
    """``src`` to ``target``: copied to a hidden name beside the target, then renamed over it
    (the target is never half written; another file system is fine)."""
    import shutil

    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.swm-gis-part")
    try:
        shutil.copy2(src, tmp)
        os.replace(tmp, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise QgsProcessingException(f"Cannot write {target}: {exc.strerror or exc}. Check "
                                     "that the folder exists and can be written, and that the "
                                     "file is not open in another program.") from None
    with contextlib.suppress(OSError):
        src.unlink()


def provenance_label(info: dict, *, short: bool = False) -> str:
    """How an output names the QGIS layer a temporary export came from; ``short`` gives the
    source's file name only (the ``label`` in the town config, printed on PDFs)."""
    source = str(info.get("source") or "?")
    if short:  # a file's name (and its layer), never a provider string with its options
        files = safety.source_files(source)
        m = re.search(r"\|layername=([^|]+)", source)
        if files:
            source = os.path.basename(files[0]) + (f", layer {m.group(1)}" if m else "")
    text = f"QGIS layer '{info.get('layer') or '?'}' ({source}"
    if info.get("subset"):
        text += f"; filter {info['subset']}"
    if info.get("selected_features_only"):
        text += f"; {info.get('features')} selected features"
    return text + ")"


def replace_in_text(text: str, names: dict[str, str], kind: str = "text") -> str:
    """``text`` with each key of ``names`` (a path) replaced by its value, escaped for
    ``kind``: 'json' (JSON string content), 'xml' / 'html' (markup) or 'text'."""
    for old, label in sorted(names.items(), key=lambda kv: -len(kv[0])):
        if kind == "json":
            old, label = json.dumps(old)[1:-1], json.dumps(label)[1:-1]
        elif kind in ("xml", "html"):
            label = label.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            old = old.replace("&", "&amp;")
        stem = Path(old).stem
        text = text.replace(f"{old}:{stem}", label).replace(f"{old}|layername={stem}", label)
        text = text.replace(old, label)
    return text


def replace_paths(path: Path, names: dict[str, str]) -> None:
    """Replace the paths ``names`` in an output file: text files (CSV, JSON, HTML) directly,
    an Excel workbook in its XML parts; written to a temporary name and moved into place."""
    suffix = path.suffix.lower()
    tmp = path.with_name(path.name + ".tmp")
    if suffix == ".xlsx":
        _replace_in_xlsx(path, tmp, names)
        return
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return
    kind = {".json": "json", ".html": "html"}.get(suffix, "text")
    new = replace_in_text(text, names, kind)
    if new != text:
        tmp.write_text(new, encoding="utf-8")
        os.replace(tmp, path)


def _replace_in_xlsx(path: Path, tmp: Path, names: dict[str, str]) -> None:
    import zipfile

    try:
        with zipfile.ZipFile(path) as src:
            parts = [(info, src.read(info)) for info in src.infolist()]
    except (OSError, zipfile.BadZipFile):
        return
    changed = False
    out = []
    for info, data in parts:
        if info.filename.endswith(".xml"):
            text = data.decode("utf-8")
            new = replace_in_text(text, names, "xml")
            if new != text:
                changed, data = True, new.encode("utf-8")
        out.append((info, data))
    if not changed:
        return
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as dst:
        for info, data in out:
            dst.writestr(info, data)
    os.replace(tmp, path)


#: This run's town config in its temporary folder: JSON, the TOML's model (the engine reads
#: both; the plugin writes no TOML).
RUN_CONFIG = "town.json"

#: The town's name in a config for a run that prints no report or list (a single check
#: without its report): the engine needs one, nobody reads it.
UNNAMED_TOWN = "(town not named)"


def _has_geometry(source) -> bool:
    return source.wkbType() not in (QgsWkbTypes.Type.NoGeometry, QgsWkbTypes.Type.Unknown)


def _export_fields(src_fields: QgsFields, keep_fields: list[str],
                   rename: dict[str, str]) -> tuple[QgsFields, list[int]]:
    """The exported layer's fields (``keep_fields`` of ``src_fields``, renamed per ``rename``)
    and their indexes in the source. ``fid`` goes (GeoPackage keeps it for itself) unless it is
    renamed."""
    idx = [src_fields.indexOf(f) for f in keep_fields if f.lower() != "fid" or f in rename]
    fields = QgsFields()
    for i in idx:
        fld = QgsField(src_fields.at(i))
        if fld.name() in rename:
            fld.setName(rename[fld.name()])
        fields.append(fld)
    return fields, idx

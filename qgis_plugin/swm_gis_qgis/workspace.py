"""One run's sources: which of the user's layers the engine reads as they are, which it gets a copy
of, and the field mapping, written into the town config that names them.

:class:`Workspace` hands the engine the user's own files (:func:`exports.real_source`) and exports
only what must be (a selection, a filter, a memory layer, a non-file provider), each named in the
config by its QGIS layer (``label``; a copy also ``temporary = true``, so the outputs never print
its path). It checks field mappings before the run and turns messages into the dialog's words.
The engine writes the user's folder itself (staged, whole or not at all) and refuses outputs on
any source of the run or of the project (``--protect``); nothing here edits an output.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from qgis.core import (
    QgsProcessingException,
    QgsProcessingFeatureSourceDefinition,
    QgsProcessingParameterDefinition,
    QgsProcessingUtils,
    QgsRasterLayer,
    QgsVectorFileWriter,
    QgsVectorLayer,
    QgsWkbTypes,
)

from . import engine, exports, safety, wording
from . import regulation as regulations
from .catalog import CATALOG, LayerInput
from .destinations import Destinations
from .exports import crs_missing

__all__ = ["DEFAULT_CRS", "UNNAMED_TOWN", "Workspace", "crs_missing"]

DEFAULT_CRS = "EPSG:26986"  # NAD83 / Massachusetts Mainland (metres)


class Workspace(Destinations):
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
        #: input parameter -> {"layer": its QGIS name, "label", "exported_to": the copy or None}
        self.inputs: dict[str, dict[str, Any]] = {}
        #: the engine's FILE input (site, common_plan, ...) -> the label of the copy it reads
        self.input_labels: dict[str, str] = {}
        #: ``[layers.parcels] right_of_way`` for the config: {"field": ..., "values": [...]}
        self.right_of_way: dict[str, Any] | None = None
        #: the user's output folder the engine writes (None: none chosen)
        self.final_folder: str | None = None
        #: True once the engine finished: its outputs are in place
        self.engine_done = False
        #: the parameter the engine's output is chosen in, and each --protect file -> its name
        self.out_param = "OUTPUT_FOLDER"
        self.protected: dict[str, str] = {}
        #: each typed output chosen as a file (--also-writes) -> its parameter
        self.sinks: dict[str, str] = {}

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
        """Each export (absolute and as :meth:`arg` names it) and each user's file read as it is
        (``path:layer``, as the engine names a layer of a GeoPackage) -> ``label(name, info)``."""
        names = {}
        for name, info in self.inputs.items():
            if info.get("exported_to"):
                text = label(name, info)
                names[str(info["exported_to"])] = text
                names[self.arg(str(info["exported_to"]))] = text
            elif info.get("read_from"):
                path, layer = info["read_from"]
                names[f"{path}:{layer}" if layer else str(path)] = label(name, info)
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

    def file_arg(self, name: str, file_stem: str, *, keep_fields: list[str] | None = None,
                 rename: dict[str, str] | None = None, engine_input: str | None = None) -> str:
        """How a FILE argument (``--site``, ``--common-plan``, ...) names parameter ``name``'s
        layer: the user's own ``path:layer`` when the engine can read it as it is, else a
        copy exported to ``file_stem``.gpkg (as this run's folder names it), which the engine
        names by its label (``--input-label``, for its input ``engine_input``: default
        ``file_stem``)."""
        self.checked_source(name)
        real = None if rename else exports.real_source(self.layer_of(name),
                                                       selected=self.selected_only(name))
        if real is None:
            path = self.arg(self.export(name, file_stem, keep_fields=keep_fields,
                                        rename=rename))
            self.input_labels[engine_input or file_stem] = self.inputs[name]["label"]
            return path
        self.record_input(name, None)
        return f"{real[0]}:{real[1]}" if real[1] else real[0]

    def export(self, name: str, file_stem: str, *, keep_fields: list[str] | None = None,
               rename: dict[str, str] | None = None, mixed_geometry: bool = False) -> str:
        """Write parameter ``name``'s features (selection honoured) to ``file_stem``.gpkg."""
        source = self.checked_source(name)
        path = str(self.folder / f"{file_stem}.gpkg")
        try:
            exports.write_copy(source, path, file_stem,
                               transform_context=self.context.transformContext(),
                               feedback=self.feedback, keep_fields=keep_fields or [],
                               rename=rename or {}, mixed_geometry=mixed_geometry)
        except QgsProcessingException as exc:
            raise QgsProcessingException(str(exc).replace(
                "Cannot export to", f"Cannot export {name} ({self.source_layer_label(name)}) "
                "to")) from None
        self.record_input(name, path)
        n = source.featureCount()
        self.feedback.pushInfo(f"{self.label(name)}: {n:,} feature{'' if n == 1 else 's'} of "
                               f"{self.source_layer_label(name)}"
                               f"{' (selected features only)' if self.selected_only(name) else ''}")
        return path

    def checked_source(self, name: str):
        """Parameter ``name``'s feature source, refused when it cannot be opened, has
        geometry but no CRS, or has no features."""
        source = self.alg.parameterAsSource(self.parameters, name, self.context)
        if source is None:
            raise QgsProcessingException(f"{name}: cannot open the layer.")
        label = self.source_layer_label(name)
        if exports.has_geometry(source) and crs_missing(source.sourceCrs()):
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

    def record_input(self, name: str, path: str | None) -> None:
        """What the outputs call input ``name`` (its ``label``) and, for a copy, where it was
        exported to (``path``; None: the engine reads the user's own file)."""
        layer = self.layer_of(name)
        source = layer.source() if layer is not None else str(self.parameters.get(name))
        selected = self.selected_only(name) and path is not None
        self.inputs[name] = {
            "layer": layer.name() if layer is not None else name, "exported_to": path,
            "label": exports.label(
                layer.name() if layer is not None else name, source,
                subset=layer.subsetString() if layer is not None else "",
                selected=self.alg.parameterAsSource(self.parameters, name, self.context)
                .featureCount() if selected else None)}

    def add_vector(self, li: LayerInput) -> None:
        """Layer ``li`` as its ``[layers.KEY]``: the user's file with the field mapping, or a
        copy of the mapped fields marked ``temporary``."""
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
        layer = self.layer_of(li.param)
        real = exports.real_source(layer, selected=self.selected_only(li.param))
        if real is None:
            path, name = self.export(li.param, li.key, keep_fields=keep,
                                     mixed_geometry=li.geometry == "any"), li.key
        else:
            self.checked_source(li.param)
            self.record_input(li.param, None)
            path, name = real
            self.inputs[li.param]["read_from"] = (path, name)
        self.layers[li.key] = {"path": path, "layer": name, "fields": mapping,
                               "crs": source.sourceCrs().authid() or None,
                               "label": self.inputs[li.param]["label"],
                               "temporary": real is None}

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
        self.inputs[li.param] = {"layer": layer.name(), "exported_to": None,
                                 "label": exports.label(layer.name(), layer.source())}
        self.layers[li.key] = {"path": layer.source().split("|")[0], "layer": None,
                               "fields": {}, "crs": layer.crs().authid() or None,
                               "label": self.inputs[li.param]["label"]}

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

    def write_config(self, data: dict | None = None, *, name: str | None = None) -> str:
        """Write this run's town config naming :attr:`layers` (or ``data``) as ``name`` (else
        :data:`RUN_CONFIG`) in the run's folder (JSON, which the engine reads as it reads a
        TOML file); its path."""
        path = self.folder / (name or RUN_CONFIG)
        path.write_text(json.dumps(self.config_data() if data is None else data, indent=1,
                                   ensure_ascii=False), encoding="utf-8")
        return str(path)

    def _drains_to_ms4(self) -> bool:
        """Whether the run states all the town's land drains to its MS4
        (ALL_LAND_DRAINS_TO_MS4: the config's ``[town] all_land_drains_to_ms4``)."""
        return self.alg.parameterDefinition("ALL_LAND_DRAINS_TO_MS4") is not None and \
            self.alg.parameterAsBoolean(self.parameters, "ALL_LAND_DRAINS_TO_MS4", self.context)

    def _layer_data(self, key: str, entry: dict) -> dict[str, Any]:
        """The ``[layers.KEY]`` table of the town config for ``entry``, as data."""
        out = {"path": entry["path"], **{k: entry[k] for k in ("layer", "crs", "label",
                                                            "temporary")
                                         if entry.get(k)}}
        if key == "parcels" and self.right_of_way:
            out["right_of_way"] = {"field": self.right_of_way["field"],
                                   "values": list(self.right_of_way["values"])}
        if entry.get("fields"):
            out["fields"] = dict(entry["fields"])
        return out

    def config_path(self, *, without_parcels_crs=None) -> str:
        """The town config file if given, else the config naming this run's layers.

        The engine's town config needs a parcels layer even where the rule never reads it (the
        single checks). A screening algorithm hands its site's CRS as ``without_parcels_crs``:
        when no parcels layer is given, the parcels slot gets an empty layer (no parcel lies
        under the site, so the engine screens the limit of disturbance alone and reads no lot).
        Nothing stands in for the town: with no town boundary and no parcels the engine says
        it could not check the site lies in the town (warning ``town_not_checked``).
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
            if self.regulation():
                self.warn(f"A town config file is set, so {self.label('REGULATION')} is not "
                          "used: the file's [town] regulation says it.")
            return cfg
        self.add_town_layers()
        if "parcels" not in self.layers:
            if without_parcels_crs is None:
                raise QgsProcessingException(
                    "Choose the parcels layer in PARCELS"
                    + (" or a TOWN_CONFIG." if self.alg.ACCEPTS_TOWN_CONFIG else "."))
            self.layers["parcels"] = {"path": self.no_parcels(without_parcels_crs),
                                      "layer": "parcels", "fields": {"id": "id"}, "crs": None,
                                      "label": "no parcels layer (none chosen in the dialog)",
                                      "temporary": True}
            if any(k == "parcels" for k, _o, _a in self.alg.TOWN_LAYERS):
                # a check that reads the site's lot says it did not
                self.feedback.pushInfo(
                    f"No {self.label(CATALOG['parcels'].param)} in this run: the limit of "
                    "disturbance is screened alone, not the whole parcel(s) it lies on.")
        # ./town.json: no output names the run's folder
        return self.arg(self.write_config(self.config_data(regulation=self.regulation())))

    def regulation(self) -> str | None:
        """``[town] regulation`` of the run's own config: the REGULATION parameter (a bundled
        id, or a profile file as an absolute path); None when not given."""
        if self.alg.parameterDefinition("REGULATION") is None:
            return None
        return regulations.run_ref(self.alg.parameterAsString(self.parameters, "REGULATION",
                                                              self.context))

    def no_parcels(self, crs) -> str:
        """An empty parcels layer (polygons, one text field ``id``, in ``crs``) for a
        screening run without parcels; its path."""
        fields = QgsVectorLayer("MultiPolygon?field=id:string", "parcels", "memory").fields()
        path = str(self.folder / "no_parcels.gpkg")
        opts = QgsVectorFileWriter.SaveVectorOptions()
        opts.driverName = "GPKG"
        opts.layerName = "parcels"
        writer = QgsVectorFileWriter.create(path, fields, QgsWkbTypes.Type.MultiPolygon,
                                            crs, self.context.transformContext(), opts)
        if writer.hasError() != QgsVectorFileWriter.WriterError.NoError:
            raise QgsProcessingException(f"Cannot write {path}: {writer.errorMessage()}")
        del writer  # flush and close
        return path


#: This run's town config in its temporary folder: JSON, the TOML's model (the engine reads
#: both; the plugin writes no TOML).
RUN_CONFIG = wording.RUN_CONFIG

#: The town's name in a config for a run that prints no report or list (a single check
#: without its report): the engine needs one, nobody reads it.
UNNAMED_TOWN = "(town not named)"

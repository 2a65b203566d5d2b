"""swm_gis:townsetup - the town set up once: a town config (TOML) from the project's layers.

Staff choose the town's layers and fields once; every field and the parcels-to-owners join are
checked at once (all problems in one message, the join rate stated), and the engine checks and
saves the config (``swm-gis config write``: its own loader, and each source's field kinds) where
the other algorithms take it as their first parameter (TOWN_CONFIG). The config names the
layers' own files (relative to the config, as README "Town configuration" says); a layer that is
not a plain file (a memory layer, a filtered layer, a database table) is saved into a GeoPackage
in a folder beside the config. Nothing here computes a rule or writes TOML: the engine measures
the join (``swm-gis data validate`` on the two tables).
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

from qgis.core import (
    QgsProcessingException,
    QgsProcessingOutputFile,
    QgsProcessingOutputNumber,
    QgsProcessingOutputString,
    QgsProcessingParameterFileDestination,
    QgsProcessingParameterString,
    QgsProcessingUtils,
    QgsRasterLayer,
    QgsVectorLayer,
)

from .. import engine, exports, safety, wording
from .. import regulation as regulations
from ..catalog import CATALOG, MAILING_FIELDS
from ..workspace import Workspace, crs_missing
from .base import EngineFeedback, SwmGisAlgorithm, _find_engine, absolute_paths

#: Every layer of a town config (README "Town configuration"), in the dialog's order.
SETUP_LAYERS = (("parcels", False, False), ("assess", True, False),
                ("nhesp_priority", True, False), ("nhesp_estimated", True, False),
                ("vernal_pools", True, False), ("flood_zones", True, False),
                ("huc12", True, False), ("huc10", True, False), ("orw", True, False),
                ("impaired_waters", True, False), ("streams", True, False),
                ("ms4", True, False), ("dem", True, False), ("waterbodies", True, False),
                ("town_boundary", True, False), ("streets", True, False),
                ("impervious", True, False))
#: The saved config's first lines (comments, written by the engine's ``config write``).
HEADER = ("The town's swm-gis config, saved by the QGIS plugin's 'Set up the town' from the\n"
          "project's layers. Paths are relative to this file. Use it as 'Town config file' in\n"
          "every swm-gis algorithm, or on the command line: swm-gis ... --config THIS_FILE.")


class TownSetupAlgorithm(SwmGisAlgorithm):
    ALG_ID = "townsetup"
    DISPLAY_NAME = "Set up the town: one town config file from the project's layers"
    GROUP = "Town set-up"
    GROUP_ID = "setup"
    TOWN_LAYERS = SETUP_LAYERS
    #: a mailing list needs these (checked when the assessing table is given)
    REQUIRED_FIELDS = MAILING_FIELDS
    HELP = """
Sets the town up once. Choose the town's name, its parcels and assessing table with their \
fields (owner, co-owner, both mailing address lines, city, state, ZIP, country), the \
right-of-way rule when the parcels have no MassGIS POLY_TYPE, and the reference layers the town \
has: NHESP habitats and vernal pools, FEMA flood zones, HUC12 and HUC10, Outstanding Resource \
Waters, impaired waters, streams, the DEM, water bodies, the town boundary, streets and the \
existing impervious cover.

Every field and the join of the parcels to the assessing table are checked at once: all \
problems are listed in one message, and the join rate is stated ("535 of 13,104 parcels that can \
have an owner (4.1 %) have an owner record in the assessing table", measured by the swm-gis \
engine as <i>swm-gis data validate</i> does); when too few join, the message names the field \
that would. The engine then checks the town config file (TOML) as every run will read it, \
and saves it: a numeric field chosen for text (the owner's name, ZIP code, ...) or an unknown \
regulation is refused before anything is saved. Choose it as <i>Town config file</i> \
in the other swm-gis algorithms: site screening then needs only the site, the abutters only \
the subject parcel(s). The same file works on the command line (<i>swm-gis ... --config</i>).

The config names each layer's own file. A layer that is not a plain file (a memory layer, a \
layer with a filter, a database table) is saved into a GeoPackage in the folder \
<i>NAME_layers</i> beside the config.
"""

    def initAlgorithm(self, config=None):  # noqa: N802
        self.add(QgsProcessingParameterString("TOWN_NAME", self.tr("Town name")),
                 "The town's name as the reports and lists print it, e.g. Westwood.")
        self.add_regulation_param(saved=True)
        self.add_town_layers(only=("parcels", "assess"), fields_shown=True)
        self.add_right_of_way_params(advanced=False)
        self.add_town_layers(skip=("parcels", "assess"))
        self.add_common_advanced(town_name_advanced=False, with_town_name=False,
                                 with_regulation=False)
        self.add_bool("ALL_LAND_DRAINS_TO_MS4", "All the town's land drains to its MS4", False,
                      "Saved as [town] all_land_drains_to_ms4: without an MS4 layer, the permit "
                      "finding is conditional on the land \"draining to the Town's MS4\" unless "
                      "the town states this; the report prints it as the Town's assumption.",
                      advanced=True)
        self.add(QgsProcessingParameterFileDestination(
            "OUTPUT_CONFIG", self.tr("Town config file to save"), fileFilter="TOML (*.toml)"),
            "Where to save the town config (e.g. westwood.toml beside the project); an "
            "existing file is replaced once everything checked out.")
        self.addOutput(QgsProcessingOutputFile("CONFIG", self.tr("Town config file")))
        self.addOutput(QgsProcessingOutputNumber(
            "JOIN_RATE", self.tr("Share of the parcels that can have an owner that have an "
                                 "owner record (0-1; NULL without an assessing table)")))
        self.addOutput(QgsProcessingOutputString("HEADLINE", self.tr("Headline")))

    def names_town(self, parameters, context) -> bool:
        """A blank town name is said with every other problem (all at once), not before."""
        return False

    def processAlgorithm(self, parameters, context, feedback):  # noqa: N802
        work = Path(tempfile.mkdtemp(prefix="swm_gis_townsetup_",
                                     dir=QgsProcessingUtils.tempFolder()))
        self._work, self._feedback = work, feedback
        ws = Workspace(self, absolute_paths(self, dict(parameters)), context, feedback, work)
        target = Path(self.parameterAsFileOutput(ws.parameters, "OUTPUT_CONFIG", context))
        if target.suffix.lower() != ".toml":
            target = target.with_suffix(".toml")
        problems: list[str] = []
        self._saved: list[tuple[str, str]] = []  # (export, where it is saved), with the config
        town = ws.town_name()
        if not town:
            problems.append(f"{ws.label('TOWN_NAME')}: name the town (every report and list "
                            "the config is used for prints it).")
        names = self.collect_layers(ws, target, problems)
        if not ws.has("PARCELS"):
            problems.insert(0, f"Choose the parcels layer in {ws.label('PARCELS')}.")
        self.check_right_of_way(ws, names, problems)
        rate = self.measure_join(ws, target, names, problems)
        if problems:
            joined = f" ({wording.join_text(rate)})" if rate is not None else ""
            raise QgsProcessingException(
                f"The town is not set up yet{joined}: {len(problems)} thing(s) to fix, then "
                "run again:\n" + "\n".join(f"{i}. {p}" for i, p in enumerate(problems, 1)))
        regulation = (self.parameterAsString(ws.parameters, "REGULATION", context)
                      or "").strip()
        self.save_config(ws, target, town, regulation)
        missing = [CATALOG[k].description for k, _o, _a in self.TOWN_LAYERS
                   if k not in ws.layers]
        headline = (f"Town config for {town} saved: {len(ws.layers)} layer(s)"
                    + (f"; {wording.join_text(rate)}" if rate is not None else
                       "; no parcel that can have an owner" if "assess" in ws.layers else
                       "; no assessing table, so no mailing lists") + ".")
        feedback.pushInfo(headline)
        if missing:
            feedback.pushInfo("Not given (the checks that need them will say 'not checked'): "
                              + ", ".join(missing) + ".")
        return {"CONFIG": str(target), "HEADLINE": headline,
                "JOIN_RATE": rate.get("share") if rate is not None else None}

    def save_config(self, ws: Workspace, target: Path, town: str, regulation: str) -> None:
        """The engine writes the town config (``swm-gis config write``): first a check with
        every source where it is now (the layers' files, this run's exports), so a refusal (a
        numeric field as the owner's name or ZIP code, an unknown regulation) leaves the user's
        files as they were; then, the exports moved beside ``target``, ``target`` itself."""
        exe = _find_engine()
        data = ws.config_data(name=town, regulation=regulations.saved_ref(regulation, target))
        check = ws.config_data(name=town, regulation=regulations.run_ref(regulation))
        for key, entry in check["layers"].items():
            entry["path"] = self._sources[key][0]
        self.config_write(ws, exe, check, "check", ws.folder / "check" / "town.toml")
        ws.save_files(self._saved)
        self.config_write(ws, exe, data, "town", target, "--overwrite", "--comment", HEADER)

    def config_write(self, ws: Workspace, exe: str, data: dict, name: str, out: Path,
                     *flags: str) -> None:
        """``swm-gis config write`` of ``data`` (handed as ``name``.json in the run's folder) to
        ``out``; its refusal in the dialog's words."""
        given = ws.write_config(data, name=f"{name}.json")
        quiet = EngineFeedback(ws.feedback, ws)
        try:
            engine.run_engine(["config", "write", str(given), "--out", str(out), *flags], quiet,
                              executable=exe, cwd=str(ws.folder))
        except engine.EngineCanceled:
            raise QgsProcessingException(ws.cancelled_text()) from None
        except engine.EngineError as exc:
            raise QgsProcessingException(
                "The town is not set up yet: 1 thing(s) to fix, then run again:\n1. "
                + self.refusal_text(ws, exc, out)) from None
        finally:
            quiet.write_log([])

    def refusal_text(self, ws: Workspace, exc, out: Path) -> str:
        """The engine's refusal of the config in the dialog's words: the parameters by their
        labels, the layers by their names, no temporary path."""
        parts = list(exc.parts)
        where = f"the town config {out}: "
        if parts and isinstance(parts[0], str) and parts[0].startswith(where):
            parts[0] = parts[0][len(where):]
        parts = [f"'{ws.alg.parameterDefinition('REGULATION').description()}'"
                 if isinstance(p, dict) and p == {"key": "town", "name": "regulation"} else p
                 for p in parts]
        return wording.dialog_text(
            str(exc), wording.param_labels(self.parameterDefinitions()), parts=parts,
            exports=dict(self._sources.values()), temp_root=str(ws.folder), limit=None)

    def collect_layers(self, ws: Workspace, target: Path,
                       problems: list[str]) -> dict[str, list[str]]:
        """Each town layer given, as its ``[layers.KEY]`` entry in ``ws.layers``; the field
        names of the vector ones, by key. What cannot be used is added to ``problems``."""
        names: dict[str, list[str]] = {}
        #: each layer's source as the engine reads it now (a file, or this run's export) and
        #: how the dialog names it
        self._sources: dict[str, tuple[str, str]] = {}
        for key, _optional, _advanced in self.TOWN_LAYERS:
            if ws.feedback.isCanceled():
                raise QgsProcessingException(ws.cancelled_text())
            li = CATALOG[key]
            if not ws.has(li.param):
                continue
            layer = self.parameterAsLayer(ws.parameters, li.param, ws.context)
            if layer is None:
                problems.append(f"{ws.label(li.param)}: the layer cannot be opened.")
                continue
            entry = self.layer_entry(ws, li, layer, target, problems)
            if entry is not None:
                ws.layers[key] = entry
                if isinstance(layer, QgsVectorLayer):
                    names[key] = list(layer.fields().names())
        return names

    def check_right_of_way(self, ws: Workspace, names: dict[str, list[str]],
                           problems: list[str]) -> None:
        """The right-of-way rule read into ``ws.right_of_way``; its field must be one of the
        parcels layer's."""
        try:
            ws.right_of_way = self.right_of_way(ws.parameters, ws.context, ws)
        except QgsProcessingException as exc:
            problems.append(str(exc))
        row = ws.right_of_way
        if row and "parcels" in names and row["field"] not in names["parcels"]:
            problems.append(f"{ws.label('RIGHT_OF_WAY_FIELD')}: {row['field']} is not a field "
                            f"of {ws.source_layer_label('PARCELS')}.")

    def measure_join(self, ws: Workspace, target: Path, names: dict[str, list[str]],
                     problems: list[str]) -> dict | None:
        """The engine's owner join of the parcels and the assessing table (``data validate``'s
        ``owner_join``; None without both), said in the log. A join of no parcel is a problem
        naming the field that would join, one under the engine's minimum share a warning; any
        other refusal of the two layers by the engine is said as the engine said it."""
        if "parcels" not in ws.layers or "assess" not in ws.layers:
            return None
        config = _join_check_config(ws, target, names, self._saved)
        quiet = EngineFeedback(ws.feedback, ws, steps=False)
        try:
            result = engine.run_engine(
                ["data", "validate", "--config", config, "--layer", "parcels", "--layer",
                 "assess"], quiet, executable=engine.find_engine(), cwd=str(ws.folder))
            join = result.get("owner_join")
        except engine.EngineCanceled:
            raise QgsProcessingException(ws.cancelled_text()) from None
        except engine.EngineError as exc:
            join = exc.details.get("owner_join")
            if not join:  # another refusal of the two tables (a numeric owner field, ...)
                problems.append(re.sub(r"^Data validation failed:\s*-\s*\w+:\s*", "",
                                       self.refusal_text(ws, exc, Path(config))))
            elif join.get("joined"):  # a partial table (a sample, a newer town): said, not refused
                ws.warn(f"Only {wording.join_text(join)}: check {ws.label('PARCEL_ID_FIELD')} "
                        f"and {ws.label('ASSESS_PARCEL_ID_FIELD')}, or that the assessing table "
                        "covers the parcels.")
            else:
                problems.append(_join_problem(ws, join))
        finally:
            quiet.write_log([])
        if join:
            ws.feedback.pushInfo("Join of the parcels and the assessing table: "
                                 f"{wording.join_text(join)}.")
        return join

    def layer_entry(self, ws: Workspace, li, layer, target: Path,
                    problems: list[str]) -> dict | None:
        """The ``[layers.KEY]`` entry naming ``layer``'s own file (relative to the config), or
        a GeoPackage the layer is saved into when it is not a plain file."""
        label = ws.label(li.param)
        if crs_missing(layer.crs()) and not (isinstance(layer, QgsVectorLayer)
                                             and not layer.isSpatial()):
            problems.append(
                f"{label} ('{layer.name()}') has no coordinate reference system: set it in the "
                "layer's Properties > Source > Assigned Coordinate Reference System (MassGIS "
                "data: EPSG:26986; longitude/latitude: EPSG:4326).")
            return None
        mapping: dict[str, str] = {}
        if isinstance(layer, QgsVectorLayer):
            mapping = ws.field_mapping(li, list(layer.fields().names()), problems=problems)
        own = _own_file(layer)
        entry = {"fields": mapping, "crs": layer.crs().authid() or None, "layer": None}
        if own is not None:
            path, name = own
            entry["path"] = _relative(path, target.parent)
            entry["layer"] = name
            entry["label"] = f"{layer.name()} ({os.path.basename(path)})"
            self._sources[li.key] = (path, f"the layer '{layer.name()}'")
            return entry
        if isinstance(layer, QgsRasterLayer):
            problems.append(f"{label} ('{layer.name()}') is not a raster file the engine can "
                            "read: save it as a GeoTIFF (Export > Save As) and choose that.")
            return None
        keep = list(dict.fromkeys(mapping.values()))
        if li.key == "parcels":
            field = (self.parameterAsString(ws.parameters, "RIGHT_OF_WAY_FIELD", ws.context)
                     or "").strip()
            if field:
                keep.append(field)
        saved = ws.export(li.param, li.key, keep_fields=keep,
                          mixed_geometry=li.geometry == "any")
        folder = target.parent / f"{target.stem}_layers"
        self._saved.append((saved, str(folder / f"{li.key}.gpkg")))
        self._sources[li.key] = (saved, f"the layer '{layer.name()}'")
        entry["path"] = f"{target.stem}_layers/{li.key}.gpkg"
        entry["layer"] = li.key
        entry["label"] = f"{layer.name()} (saved from QGIS)"
        return entry


def _own_file(layer) -> tuple[str, str | None] | None:
    """(file, layer name or None) when the config can name ``layer``'s own file: an OGR vector
    layer by the runs' rule (:func:`exports.real_source`: no filter, no CRS assigned over the
    file's, ...), a raster or delimited-text layer when it reads a plain file; else None (the
    layer is saved beside the config)."""
    if isinstance(layer, QgsVectorLayer) and layer.providerType() == "ogr":
        return exports.real_source(layer, selected=False)
    files = safety.source_files(layer.source())
    if not files or not os.path.isfile(files[0]) or \
            layer.providerType() not in ("gdal", "delimitedtext") or \
            (isinstance(layer, QgsVectorLayer) and layer.subsetString()):
        return None
    m = re.search(r"\|layername=([^|]+)", layer.source())
    return files[0], m.group(1) if m else None


def _relative(path: str, folder: Path) -> str:
    """``path`` relative to the config's folder (forward slashes), absolute where it cannot be
    (another drive on Windows)."""
    try:
        return Path(os.path.relpath(path, safety.real_path(str(folder)))).as_posix()
    except ValueError:
        return Path(path).as_posix()


def _join_problem(ws: Workspace, join: dict) -> str:
    """A join of no parcel, in the dialog's words, with the field that would join (the
    engine's ``fields_that_join``)."""
    hint = wording.join_hint(join, wording.param_labels(ws.alg.parameterDefinitions()))
    pex = ", ".join(join.get("parcel_examples") or ()) or "none"
    aex = ", ".join(join.get("assess_examples") or ()) or "none"
    return (f"{wording.join_text(join)}: {ws.label('PARCEL_ID_FIELD')} "
            f"({join.get('parcels_field')}, e.g. {pex}) of {ws.source_layer_label('PARCELS')} "
            f"and {ws.label('ASSESS_PARCEL_ID_FIELD')} ({join.get('assess_field')}, e.g. {aex}) "
            f"of {ws.source_layer_label('ASSESS')} do not hold the same ids, so abutter lists "
            "would name no owners." + (f" {hint}" if hint else ""))


def _join_check_config(ws: Workspace, target: Path, names: dict[str, list[str]],
                       saved: list[tuple[str, str]]) -> str:
    """A town config of the parcels and the assessing table alone, naming the files as they
    are now (a layer saved from QGIS: its staged copy), for the engine to measure the join
    before anything is saved. A right-of-way rule whose field the parcels lack is left out
    (said as its own problem)."""
    staged = {os.path.normpath(final): export for export, final in saved}
    layers, row = ws.layers, ws.right_of_way
    check = {}
    for key in ("parcels", "assess"):
        where = os.path.normpath(target.parent / layers[key]["path"])
        check[key] = {**layers[key], "path": Path(staged.get(where, where)).as_posix()}
    if row and row["field"] not in names.get("parcels", []):
        ws.right_of_way = None
    ws.layers = check
    try:
        # the engine reads a JSON config as a TOML one
        return ws.write_config(ws.config_data(name=ws.town_name() or None),
                               name="join_check.json")
    finally:
        ws.layers, ws.right_of_way = layers, row

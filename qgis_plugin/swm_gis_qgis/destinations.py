"""Where one run's engine output goes, and what it must never write over.

The engine writes the folder (or GeoPackage) the user chose itself: ``--out PATH --overwrite``,
staged beside it and moved in whole (``swm_gis.io.outputs``), saying in one line which files of
an earlier run it replaces. The plugin only tells it which files to protect besides the run's
inputs (``--protect``: the sources of every layer of the run and of the project) and words the
engine's refusal and a cancel in the dialog's terms. :class:`Destinations` is the part of
:class:`~swm_gis_qgis.workspace.Workspace` that does this.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from qgis.core import QgsProcessingException

from . import safety


class Destinations:
    """The output side of a :class:`~swm_gis_qgis.workspace.Workspace` (its ``alg``,
    ``parameters``, ``context``, ``folder``; ``out_param``, ``final_folder``, ``engine_done``
    and ``protected`` are set in its ``__init__``)."""

    def protect_args(self) -> list[str]:
        """``--protect PATH`` for each file the run's outputs must never be, lie in or hold:
        the sources of the layers this run was given (also those it exported: the engine sees
        only the copies) and of every layer of the QGIS project (an output GeoPackage that is
        another layer's source is refused like an input, by the engine)."""
        from qgis.core import QgsProject

        layers = []  # the run's own parameters first (a file is named by the first that reads it)
        for d in self.alg.parameterDefinitions():
            if not d.isDestination() and self.has(d.name()) and \
                    d.type() in ("source", "vector", "raster", "layer"):
                layer = self.layer_of(d.name()) if d.type() in ("source", "vector") else \
                    self.alg.parameterAsLayer(self.parameters, d.name(), self.context)
                if layer is not None:
                    layers.append((f"{self.label(d.name())} (layer '{layer.name()}')", layer))
        layers += [(f"the project's layer '{la.name()}'", la)
                   for la in QgsProject.instance().mapLayers().values()]
        for what, layer in layers:
            for f in safety.source_files(layer.source()):
                if os.path.exists(f):
                    self.protected.setdefault(f, what)
        return [a for f in sorted(self.protected) for a in ("--protect", f)]

    def sink_args(self) -> list[str]:
        """``--also-writes PATH`` for each typed output (a sink) the user chose as a file: QGIS
        writes it after the run, and the engine refuses it first when it is an input of the
        run or a layer of the project (a sink over the parcels' GeoPackage would replace it)."""
        from qgis.core import QgsProcessingOutputLayerDefinition

        args = []
        for d in self.alg.parameterDefinitions():
            if not d.isDestination() or d.name() == self.out_param or \
                    d.type() == "folderDestination":
                continue
            value = self.parameters.get(d.name())
            if isinstance(value, QgsProcessingOutputLayerDefinition):
                sink = value.sink
                value = sink.staticValue() if hasattr(sink, "staticValue") else sink
            text = str(value or "").strip()
            if text and text != "TEMPORARY_OUTPUT" and not text.startswith("memory:"):
                for f in safety.source_files(text)[:1]:
                    self.sinks[f] = d.name()
                    args += ["--also-writes", f]
        return args

    def output_refusal(self, exc) -> str | None:
        """The engine's refusal of an output on an input (``OutputError`` with the relation in
        its details) in the dialog's words; None for any other error."""
        d = exc.details if getattr(exc, "kind", "") == "OutputError" else {}
        if not d.get("relation"):
            return None
        out, rel, src = d.get("output"), d["relation"], str(d.get("input"))
        what = self.protected.get(src) or self.protected.get(safety.real_path(src)) or (
            f"{self.label('TOWN_CONFIG')} (a file it names)" if self.has("TOWN_CONFIG")
            else "an input of the run")
        where = {"is": f"is {src}, the very file {what} is read from",
                 "is inside": f"({out}) lies inside {src}, which {what} is read from",
                 "contains": f"({out}) is a folder holding {src}, which {what} is read from"
                 }.get(rel, f"({out}) {rel} {src}")
        param = self.sinks.get(str(out)) or self.out_param
        return (f"{self.label(param)} {where}: writing there would destroy the input. "
                "Choose a new file or folder outside every input of the run and every layer "
                "of the project; nothing was written.")

    def out_folder(self, name: str = "OUTPUT_FOLDER", *, sub: str = "out") -> str:
        """The folder the engine writes: the one the user chose in ``name`` (the engine stages
        its files beside it and moves them in whole), else one in this run's temporary
        folder."""
        self.out_param = name
        folder = self.chosen_output()
        if folder:
            self.final_folder = safety.real_path(folder)
            return self.final_folder
        return str(self.folder / sub)

    def chosen_output(self) -> str | None:
        """The file or folder the user chose for the engine's output (:attr:`out_param`)."""
        if self.alg.parameterDefinition(self.out_param) is None:
            return None
        value = self.alg.parameterAsFileOutput(self.parameters, self.out_param, self.context)
        return value if value and value != "TEMPORARY_OUTPUT" else None

    def cancelled_text(self) -> str:
        """What a cancel did: the engine stopped before it moved anything into place, or (a
        cancel while the results load) the outputs are complete where the engine put them."""
        chosen = self.final_folder or self.chosen_output()
        where = chosen or getattr(self.alg, "engine_out", None)
        if self.engine_done and where:
            return (f"Cancelled after the engine finished: its outputs are complete in {where}; "
                    "only loading them into the project was stopped.")
        return ("Cancelled: the run was stopped before any output was replaced"
                + (f" ({chosen} left as it was)." if chosen else "."))

    def save_files(self, pairs: list[tuple[str, str]]) -> None:
        """Town set-up's own files (the config and the layers it saved, not an engine output):
        each copied to a hidden name beside its target, then renamed over it."""
        import shutil

        for src, target in pairs:
            dest = Path(target)
            dest.parent.mkdir(parents=True, exist_ok=True)
            tmp = dest.with_name(f".{dest.name}.swm-gis-part")
            try:
                shutil.copy2(src, tmp)
                os.replace(tmp, dest)
            except OSError as exc:
                with contextlib.suppress(OSError):
                    tmp.unlink()
                raise QgsProcessingException(
                    f"Cannot write {dest}: {exc.strerror or exc}. Check that the folder exists "
                    "and can be written.") from None

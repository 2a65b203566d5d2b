"""Shared pieces of the command line: the Typer app, output/progress reporting, common options.

Progress goes to stderr: a rich progress bar for people, or JSON lines (``--progress json``) for
programs such as the QGIS plugin, one object per line::

    {"type": "progress", "fraction": 0.4, "message": "reading parcels"}
    {"type": "info", "message": "..."}
    {"type": "error", "message": "...", "exit_code": 2, "error": "ConfigError",
     "parts": ["Set ", {"key": "layers.parcels.fields", "name": "id"}, " ..."]}
    {"type": "result", "command": "abutters", "outputs": {"mailing_list_csv": "..."},
     "manifest": {"version": 1, "files": [...], "counts": {...}, ...}, ...}
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.panel import Panel
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from swm_gis.cli.words import cli_words
from swm_gis.errors import SwmGisError
from swm_gis.messages import parts, references, render

if TYPE_CHECKING:
    from swm_gis.config.town import TownConfig


class ProgressMode(StrEnum):
    rich = "rich"
    json = "json"
    none = "none"


class Reporter:
    """Where the CLI says things: human (rich) or machine (JSON lines) form."""

    def __init__(self, mode: ProgressMode = ProgressMode.rich) -> None:
        self.mode = mode
        self.err = Console(stderr=True, highlight=False)
        self.out = Console(highlight=False)
        self._progress: Progress | None = None
        self._task: Any = None

    # -- progress ----------------------------------------------------------------------
    def progress(self, fraction: float, message: str = "") -> None:
        """Callback handed to the core: ``fraction`` in [0, 1] of the whole job."""
        fraction = max(0.0, min(1.0, float(fraction)))
        message = render(message, cli_words)
        if self.mode is ProgressMode.json:
            self._emit({"type": "progress", "fraction": round(fraction, 4), "message": message})
        elif self.mode is ProgressMode.rich and self.err.is_terminal:
            if self._progress is None:
                self._progress = Progress(TextColumn("{task.description}"), BarColumn(),
                                          TextColumn("{task.percentage:>3.0f}%"),
                                          TimeElapsedColumn(), console=self.err, transient=True)
                self._progress.start()
                self._task = self._progress.add_task(message or "working", total=1.0)
            self._progress.update(self._task, completed=fraction, description=message or "working")

    def done(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None

    # -- messages ----------------------------------------------------------------------
    def info(self, message: str) -> None:
        """A line for the user. A message with references (:mod:`swm_gis.messages`) is worded
        with the command line's flags; ``--progress json`` also carries its ``"parts"``."""
        text = render(message, cli_words)
        if self.mode is ProgressMode.json:
            obj: dict[str, Any] = {"type": "info", "message": text}
            if references(message):
                obj["parts"] = parts(message)
            self._emit(obj)
        elif self.mode is ProgressMode.rich:
            self.err.print(text, markup=False)

    def error(self, message: str, exit_code: int = 2, *, error: SwmGisError | None = None
              ) -> None:
        """Say why the run stopped. For a user error, ``--progress json`` also carries its
        class (``"error"``) and its message as plain text and references (``"parts"``,
        :func:`swm_gis.messages.parts`), so a program words it in its own vocabulary."""
        self.done()
        if self.mode is ProgressMode.json:
            obj: dict[str, Any] = {"type": "error", "message": message, "exit_code": exit_code}
            if error is not None:
                obj |= {"error": type(error).__name__, "parts": error.parts}
                if error.details:
                    obj["details"] = dict(error.details)
            self._emit(obj)
        elif self.err.is_terminal:
            self.err.print(Panel(message, title="swm-gis: cannot continue", title_align="left",
                                 border_style="red", expand=False))
        else:  # logs and pipes: one unwrapped paragraph
            print(f"swm-gis: error: {message}", file=sys.stderr, flush=True)

    def result(self, command: str, outputs: dict[str, Any], summary: list[str] | None = None,
               *, manifest: dict[str, Any] | None = None, **extra: Any) -> None:
        """Report what a command wrote: a table for people, one JSON line for programs.

        A command that writes files gives its result ``manifest`` (:mod:`swm_gis.manifest`):
        the JSON line carries it as ``"manifest"``, beside the ``"outputs"`` it always had."""
        self.done()
        if self.mode is ProgressMode.json:
            payload = {"type": "result", "command": command,
                       "outputs": {k: str(v) for k, v in outputs.items()}, **extra}
            if summary:
                payload["summary"] = summary
            if manifest is not None:
                payload["manifest"] = manifest
            print(json.dumps(payload, default=str), flush=True)
            return
        for line in summary or []:
            self.out.print(line, markup=False)
        if outputs:
            self.out.print("[bold]Wrote:[/bold]")
            for path in outputs.values():  # one line each, never folded: a path is copied whole
                self.out.print(f"  {path}", markup=False, soft_wrap=True)

    def _emit(self, obj: dict[str, Any]) -> None:
        print(json.dumps(obj, default=str), file=sys.stderr, flush=True)


@dataclass
class State:
    reporter: Reporter = field(default_factory=Reporter)


state = State()

app = typer.Typer(
    name="swm-gis",
    help=(
        "Apply a Massachusetts town's stormwater regulation, as its profile states it "
        "([town] regulation; swm-gis regulation list), to real parcels: screen a site, list "
        "abutters, map applicability.\n\n"
        "Example: swm-gis demo --out swm-gis-demo"
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


@app.callback()
def _root(
    progress: ProgressMode = typer.Option(
        ProgressMode.rich, "--progress", metavar="rich|json|none",
        help="How to report progress on stderr: rich (a bar for people), json (one JSON object "
             "per line, for programs such as the QGIS plugin) or none.",
    ),
) -> None:
    state.reporter = Reporter(progress)


def config_option() -> Any:
    return typer.Option(..., "--config", "-c", dir_okay=False, metavar="FILE",
                        help="Town config file (TOML, or JSON of the same model), e.g. "
                             "data/sample/town.toml.")


def out_dir_option() -> Any:
    return typer.Option(..., "--out", "-o", help="Folder for the outputs (created if missing).",
                        file_okay=False, metavar="DIR")


def overwrite_option() -> Any:
    return typer.Option(False, "--overwrite", help="Replace outputs that already exist.")


def protect_option() -> Any:
    """``--protect PATH`` (repeatable, hidden): a path the run must never write over, refused as
    an output exactly like an input (exit 2). For front ends: the QGIS plugin passes the
    sources of the layers it exported and of every layer in the user's project."""
    return typer.Option([], "--protect", metavar="PATH", hidden=True,
                        help="A file or folder the outputs must never be, lie in or contain "
                             "(repeatable), refused like an input.")


def also_writes_option() -> Any:
    """``--also-writes PATH`` (repeatable, hidden): a file a front end writes after the run (the
    QGIS plugin's typed outputs), refused before anything is written, exactly as ``--out`` is,
    when it is, lies in or holds an input or a protected path."""
    return typer.Option([], "--also-writes", metavar="PATH", hidden=True,
                        help="A file the front end writes after the run, refused like the "
                             "output when it is an input (repeatable).")


def refuse_front_end_outputs(paths: list[Path], inputs: list[Any]) -> None:
    """Refuse each ``--also-writes`` path that is, lies in or holds one of ``inputs``."""
    from swm_gis.io.outputs import refuse_inputs

    for path in paths:
        refuse_inputs(path, inputs, what="a file the front end writes")


def input_label_option() -> Any:
    """``--input-label NAME=TEXT`` (repeatable, hidden): the FILE given for input NAME (``site``,
    ``common_plan``, ...) is a temporary copy a front end made; the outputs name it by TEXT alone
    and never print the copy's path (the QGIS plugin's export of a selection)."""
    return typer.Option([], "--input-label", metavar="NAME=TEXT", hidden=True,
                        help="Name the FILE of input NAME by TEXT alone (a temporary copy).")


def input_labels(given: list[str], names: tuple[str, ...]) -> dict[str, str]:
    """``--input-label`` values as {input: label}; a value without ``=`` or naming an input the
    command does not take is refused (exit 2).

    >>> input_labels(["site=QGIS layer 'Sites' (1 selected feature)"], ("site",))
    {'site': "QGIS layer 'Sites' (1 selected feature)"}
    """
    labels: dict[str, str] = {}
    for item in given:
        name, sep, text = str(item).partition("=")
        name = name.strip().replace("-", "_")
        if not sep or name not in names or not text.strip():
            raise SwmGisError(f'--input-label "{item}" is not NAME=TEXT with NAME one of '
                              f"{', '.join(names)}.")
        labels[name] = text.strip()
    return labels


def no_cache_option() -> Any:
    return typer.Option(False, "--no-cache",
                        help="Do not read or keep anything in the cache: the parsed sources "
                             "and the town's flow grid (same results, read and computed "
                             "again: slower).")


def open_config(path: Path, *, no_cache: bool = False) -> TownConfig:
    from swm_gis.config.town import load_config  # pyproj: not for --help

    cfg = load_config(path)
    return replace(cfg, cache_enabled=False) if no_cache else cfg


def emit_lines(command: str, lines: list[str], **extra: object) -> None:
    """A command's result as plain lines for people and pipes, or one JSON line for programs
    (``--progress json``), with ``extra`` fields."""
    rep = state.reporter
    if rep.mode.value == "json":
        rep.result(command, {}, summary=lines, **extra)
        return
    rep.done()
    for line in lines:
        typer.echo(line)


#: Where the bundled synthetic sample town lives: package data (``swm_gis/sample``, in a
#: checkout a link to ``data/sample``), so an installed wheel has it too.
SAMPLE_DIR = Path(__file__).resolve().parents[1] / "sample"

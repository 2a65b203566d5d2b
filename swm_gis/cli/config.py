"""``swm-gis config ...``: the town config written by the engine from data, and read back as
data (README "Town configuration")."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from swm_gis.cli._common import app, config_option, overwrite_option, state

config_app = typer.Typer(
    help="The town config: write one from JSON (checked), show one as JSON.",
    no_args_is_help=True)
app.add_typer(config_app, name="config")


@config_app.command("write")
def write(
    source: str = typer.Argument(
        "-", metavar="FILE.json",
        help="The config as JSON, the TOML's model: {\"town\": {...}, \"rules\": {...}, "
             "\"layers\": {KEY: {...}}}; - (the default) reads standard input."),
    out: Path = typer.Option(..., "--out", dir_okay=False,
                             help="The TOML file to write, e.g. town.toml; the JSON's paths "
                                  "are relative to its folder."),
    overwrite: bool = overwrite_option(),
    comment: str = typer.Option("", "--comment",
                                help="Lines to put at the top of the file as comments."),
) -> None:
    """Check a town config given as JSON and write it as TOML (atomically).

    Checked as every command reads a config (unknown keys, kinds, CRSs, rule values) and each
    source as the jobs read it (a missing file; a numeric column mapped to a text field such as
    the owner's name or ZIP code): any problem exits 2 naming its key, and nothing is written.

    Example: swm-gis config write town.json --out town.toml
    """
    from swm_gis.io.config_file import read_config_data, write_config

    data = read_config_data(source, stdin=sys.stdin)
    written = write_config(data, out, overwrite=overwrite, comment=comment)
    layers = data.get("layers") or {}
    state.reporter.result("config write", {"config": written},
                          summary=[f"{len(layers)} layer(s) checked."])


@config_app.command("show")
def show(config: Path = config_option()) -> None:
    """Print a town config (TOML or JSON) as its loader reads it, as one JSON object: the town,
    its CRS and each layer's sources (resolved paths), layer names and field map.

    Example: swm-gis config show --config data/sample/town.toml
    """
    import json

    from swm_gis.io.config_file import config_summary

    summary = config_summary(config)
    rep = state.reporter
    if rep.mode.value == "json":
        rep.result("config show", {}, config=summary)
        return
    rep.done()
    typer.echo(json.dumps(summary, indent=2))

"""``swm-gis data ...``: checks on the configured layers."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from swm_gis.cli._common import app, config_option, no_cache_option, open_config, state
from swm_gis.errors import SwmGisError

data_app = typer.Typer(help="Check the town's data layers.", no_args_is_help=True)
app.add_typer(data_app, name="data")


@data_app.command("validate")
def validate(config: Path = config_option(), no_cache: bool = no_cache_option(),
             layer: list[str] | None = typer.Option(
                 None, "--layer", "-l", metavar="KEY",
                 help="Check only this layer (a key of the config's [layers], e.g. parcels); "
                      "repeat for several. The owner join is measured when parcels and assess "
                      "are both checked.")) -> None:
    """Check every configured layer: readable, CRS, fields, geometry, extent, and the join of
    the parcels to the assessing table's owners.

    Prints one row per layer; exits 2 if any layer has an error. With --progress json the
    result carries every layer's report and the owner join ("owner_join": joined, ownable,
    share, by POLY_TYPE, example ids, the fields that would join).

    Example: swm-gis data validate --config data/sample/town.toml
    """
    from swm_gis.validate import ValidationError, owner_join_of, validate_config

    cfg = open_config(config, no_cache=no_cache)
    unknown = [k for k in layer or [] if k not in cfg.layers]
    if unknown:
        raise SwmGisError(f"No layer {', '.join(unknown)} in the town config: it has "
                          f"{', '.join(cfg.layers)}.")
    reports = validate_config(cfg, keys=layer or None, progress=state.reporter.progress)
    rep = state.reporter
    rep.done()
    if rep.mode.value != "json":  # the table is the result: "none" silences progress only
        _print_reports(rep, cfg.name, reports)
    errors = [r for r in reports if r.error]
    rep.result("data validate", {}, summary=[f"{len(reports) - len(errors)} of {len(reports)} "
                                             "layers passed"],
               layers=[r.as_dict() for r in reports], owner_join=owner_join_of(reports))
    if errors:
        raise ValidationError(
            "Data validation failed:\n" + "\n".join(f"- {r.key}: {r.error}" for r in errors),
            reports=reports)


def _print_reports(rep, name: str, reports: list) -> None:
    """One row per layer, then each layer's warnings."""
    table = Table(title=f"{name}: {len(reports)} configured layers", show_lines=False)
    for col in ("layer", "status", "rows", "source CRS", "fields", "not in source",
                "repaired", "extent (working CRS)"):
        table.add_column(col, overflow="fold")
    for r in reports:
        status = ("[red]ERROR[/red]" if r.error
                  else "[yellow]warn[/yellow]" if r.warnings else "ok")
        table.add_row(r.key, status, "" if r.rows is None else f"{r.rows:,}", r.crs or "",
                      str(len(r.fields_found)), ", ".join(r.fields_missing),
                      "" if r.invalid is None else str(r.invalid), r.extent_text)
    rep.out.print(table)
    for r in reports:
        for w in r.warnings:
            rep.out.print(f"[yellow]{r.key}[/yellow]: {w}")

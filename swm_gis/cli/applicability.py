"""``swm-gis applicability``: every parcel of the town classified, as a styled GeoPackage."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

import typer

from swm_gis.applicability import DEFAULT_CHUNK_SIZE, RunResult, run_applicability
from swm_gis.cli._common import (
    app,
    config_option,
    no_cache_option,
    open_config,
    overwrite_option,
    state,
)
from swm_gis.config import load_config
from swm_gis.errors import ConfigError

DEMO_ORDER = 40


class Engine(StrEnum):
    local = "local"
    dask = "dask"


@app.command()
def applicability(
    config: Path = config_option(),
    out: Path = typer.Option(..., "--out", "-o", dir_okay=False,
                             help="GeoPackage to write (.gpkg): layer 'applicability', the "
                                  "summary table and the QGIS style."),
    engine: Engine = typer.Option(Engine.local, "--engine",
                                  help="local: one process, the town in spatial tiles; dask: the "
                                       "tiles on a Dask cluster (dask-geopandas)."),
    scheduler: str = typer.Option(None, "--scheduler",
                                  help="Address of a running Dask scheduler (e.g. "
                                       "tcp://10.0.0.5:8786); default: a LocalCluster. Only "
                                       "with --engine dask."),
    workers: int = typer.Option(2, "--workers", min=1,
                                help="Worker processes of the LocalCluster (--engine dask "
                                     "without --scheduler)."),
    chunk_size: int = typer.Option(DEFAULT_CHUNK_SIZE, "--chunk-size", min=100,
                                   help="About how many parcels per spatial tile (bounds memory)."),
    overwrite: bool = overwrite_option(),
    no_cache: bool = no_cache_option(),
) -> None:
    """Classify every parcel: one-acre trigger, HUC12/HUC10, NHESP within 500 ft, SFHA,
    drainage to ORWs and impaired waters, and a screening class; writes a GeoPackage that QGIS
    opens styled by class, with a summary (parcels and acres per class, per HUC12).

    Example: swm-gis applicability --config data/sample/town.toml --out applicability.gpkg
    """
    if out.suffix.lower() != ".gpkg":
        raise ConfigError(f"--out {out} must be a GeoPackage file ending in .gpkg.")
    if scheduler and engine is not Engine.dask:
        raise ConfigError("--scheduler is for the Dask engine; add --engine dask.")
    cfg = open_config(config, no_cache=no_cache)
    rep = state.reporter
    if engine is Engine.dask:
        from swm_gis.applicability_dask import run_applicability_dask

        result = run_applicability_dask(cfg, out, scheduler=scheduler, workers=workers,
                                        chunk_size=chunk_size, overwrite=overwrite,
                                        progress=rep.progress)
    else:
        result = run_applicability(cfg, out, chunk_size=chunk_size, overwrite=overwrite,
                                   progress=rep.progress)
    rep.result("applicability", {"geopackage": result.path}, summary=summary_lines(result),
               parcels=result.parcels, engine=result.engine)


def summary_lines(result: RunResult) -> list[str]:
    town = result.summary[result.summary["huc12"] == "all"]
    lines = [f"{result.parcels:,} parcels classified ({result.engine} engine, "
             f"{result.tiles} tile(s))"]
    for row in town.itertuples():
        lines.append(f"  {row.parcels:>8,}  {row.area_acres:>10,.1f} acres  {row.screening_class}")
    skipped = [c for c in result.checks if not c["ran"]]
    for c in skipped:
        lines.append(f"  not checked: {c['name']} ({c['note']})")
    return lines


def run_demo(config_path: Path, out_dir: Path) -> list[str]:
    out_dir.mkdir(parents=True, exist_ok=True)
    result = run_applicability(load_config(config_path), out_dir / "applicability.gpkg",
                               overwrite=True)
    return [f"applicability map: {result.path}", *summary_lines(result)]

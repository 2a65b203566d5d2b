"""``swm-gis applicability``: every parcel of the town classified, as a styled GeoPackage.

Thin: parses the arguments, calls :func:`swm_gis.jobs.applicability_map` and prints.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

import typer

from swm_gis.applicability_overlays import DEFAULT_CHUNK_SIZE
from swm_gis.cli._common import app, config_option, open_config, overwrite_option, state
from swm_gis.jobs import applicability_map

DEMO_ORDER = 40


class Engine(StrEnum):
    local = "local"
    dask = "dask"


@app.command()
def applicability(
    config: Path = config_option(),
    out: Path = typer.Option(..., "--out", "-o", dir_okay=False, metavar="FILE",
                             help="GeoPackage to write (.gpkg): layer 'applicability', the "
                                  "summary table and the QGIS style."),
    engine: Engine = typer.Option(Engine.local, "--engine", metavar="local|dask",
                                  help="local: the town in spatial tiles, classified on this "
                                       "machine's cores; dask: the tiles on a Dask cluster "
                                       "(dask-geopandas)."),
    scheduler: str = typer.Option(None, "--scheduler", metavar="URL",
                                  help="Address of a running Dask scheduler (e.g. "
                                       "tcp://10.0.0.5:8786); default: a LocalCluster. Only "
                                       "with --engine dask."),
    workers: int = typer.Option(None, "--workers", min=1, metavar="N",
                                help="Worker processes (local engine, or the Dask LocalCluster "
                                     "without --scheduler); default: every core. The output is "
                                     "the same whatever N."),
    chunk_size: int = typer.Option(DEFAULT_CHUNK_SIZE, "--chunk-size", min=100, metavar="N",
                                   help="About how many parcels per spatial tile (bounds memory)."),
    overwrite: bool = overwrite_option(),
) -> None:
    """Classify every parcel: one-acre trigger, HUC12/HUC10, NHESP within 500 ft, SFHA,
    drainage to ORWs and impaired waters, and a screening class; writes a GeoPackage that QGIS
    opens styled by class, with a summary (parcels and acres per class, per HUC12).

    Example: swm-gis applicability --config data/sample/town.toml --out applicability.gpkg
    """
    result = applicability_map(config, out, engine=engine.value,
                               scheduler=scheduler, workers=workers, chunk_size=chunk_size,
                               overwrite=overwrite, progress=state.reporter.progress)
    state.reporter.result("applicability", {"geopackage": result.path},
                          summary=result.summary_lines, parcels=result.parcels,
                          engine=result.engine)


#: Files the demo step writes in its folder.
DEMO_OUTPUTS = ("applicability.gpkg",)


def run_demo(config_path: Path, out_dir: Path) -> list[str]:
    out_dir.mkdir(parents=True, exist_ok=True)
    result = applicability_map(open_config(config_path), out_dir / "applicability.gpkg",
                               overwrite=True)
    return [f"applicability map: {result.path}", *result.summary_lines]

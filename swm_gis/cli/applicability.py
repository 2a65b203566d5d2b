"""``swm-gis applicability``: every parcel of the town classified, as a styled GeoPackage.

Thin: parses the arguments, calls :func:`swm_gis.jobs.applicability_map` and prints.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

import typer

from swm_gis.applicability.scheduler import check_scheduler
from swm_gis.cli._common import (
    also_writes_option,
    app,
    config_option,
    no_cache_option,
    open_config,
    overwrite_option,
    protect_option,
    refuse_front_end_outputs,
    state,
)
from swm_gis.errors import ConfigError
from swm_gis.io.outputs import config_inputs, output_file

DEMO_ORDER = 40

#: ``--chunk-size``'s default: swm_gis.applicability.overlays.DEFAULT_CHUNK_SIZE, written here so
#: ``--help`` need not import the overlays (geopandas); tests/cli/test_start.py keeps them equal.
DEFAULT_CHUNK_SIZE = 20_000


class Engine(StrEnum):
    local = "local"
    dask = "dask"


@app.command()
def applicability(
    config: Path = config_option(),
    out: str = typer.Option(..., "--out", "-o", metavar="FILE|URL",
                            help="GeoPackage to write (.gpkg): layer 'applicability', the "
                                 "summary table and the QGIS style; or a PostGIS table, "
                                 "postgresql://user@host/db?table=schema.name."),
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
    protect: list[Path] = protect_option(),
    also_writes: list[Path] = also_writes_option(),
    no_cache: bool = no_cache_option(),
) -> None:
    """Classify every parcel: one-acre trigger, HUC12/HUC10, NHESP within 500 ft, SFHA,
    drainage to ORWs and impaired waters, and a screening class; writes a GeoPackage that QGIS
    opens styled by class, with a summary (parcels and acres per class, per HUC12).

    Example: swm-gis applicability --config data/sample/town.toml --out applicability.gpkg
    """
    if scheduler and engine is not Engine.dask:
        raise ConfigError("--scheduler is for the Dask engine; add --engine dask.")
    if scheduler:  # before any work: form, reachable, a Dask scheduler (with a timeout)
        scheduler = check_scheduler(scheduler)
    cfg = open_config(config, no_cache=no_cache)
    if engine is Engine.local:  # the workers' fork server starts while the engine is imported
        from swm_gis.applicability.pool_start import start_early

        start_early(cfg, workers=workers, chunk_size=chunk_size)
    from swm_gis.io import postgis
    from swm_gis.io.writers import check_outputs_free
    from swm_gis.jobs import applicability_map

    refuse_front_end_outputs(also_writes, [*config_inputs(cfg), *protect])
    # --- PostGIS output (swm_gis.applicability.postgis_write): the map into a database table,
    # styled.
    if postgis.is_postgis(out):
        from swm_gis.applicability.postgis_write import write_applicability

        result = write_applicability(cfg, out, overwrite=overwrite, run=applicability_map,
                                     engine=engine.value, scheduler=scheduler, workers=workers,
                                     chunk_size=chunk_size, progress=state.reporter.progress)
        state.reporter.result("applicability", {"postgis": result.path},
                              summary=result.summary_lines, parcels=result.parcels,
                              engine=result.engine,
                              manifest=result.manifest({"postgis": result.path}))
        return
    out = Path(out)
    # --- end PostGIS output
    if out.suffix.lower() != ".gpkg":
        raise ConfigError(f"--out {out} must be a GeoPackage file ending in .gpkg.")
    check_outputs_free([out], overwrite=overwrite)
    # Inputs read-only, one run per file, the file whole or not at all (swm_gis.io.outputs).
    with output_file(out, inputs=[*config_inputs(cfg), *protect], overwrite=overwrite,
                     command=f"swm-gis applicability --out {out}",
                     say=state.reporter.info) as tmp:
        result = applicability_map(cfg, tmp, engine=engine.value,
                                   scheduler=scheduler, workers=workers, chunk_size=chunk_size,
                                   overwrite=True, progress=state.reporter.progress)
    state.reporter.result("applicability", {"geopackage": out},
                          summary=result.summary_lines, parcels=result.parcels,
                          engine=result.engine,
                          manifest=result.manifest({"geopackage": out}, out.parent))


#: Files the demo step writes in its folder.
DEMO_OUTPUTS = ("applicability.gpkg",)


def run_demo(config_path: Path, out_dir: Path) -> list[str]:
    from swm_gis.jobs import applicability_map

    out_dir.mkdir(parents=True, exist_ok=True)
    result = applicability_map(open_config(config_path), out_dir / "applicability.gpkg",
                               overwrite=True)
    return [f"applicability map: {result.path}", *result.summary_lines]

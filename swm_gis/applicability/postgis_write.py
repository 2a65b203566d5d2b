"""Jobs whose output goes into PostGIS: the applicability map, and loading a file layer.

Kept apart from :mod:`swm_gis.io.postgis` (which the reader uses) so that the reader does not import
the jobs.
"""

from __future__ import annotations

from typing import Any

from swm_gis.applicability.style import applicability_qml
from swm_gis.errors import ConfigError, OutputExistsError
from swm_gis.io.postgis import (
    connect,
    parse_target,
    qualified_table,
    redact,
    split_table,
    table_oid,
    write_frame,
    write_style,
)
from swm_gis.messages import option


def write_applicability(config: Any, target: str, *, overwrite: bool = False,
                        run: Any = None, **options: Any) -> Any:
    """Run the town-wide applicability map and write it into PostGIS, styled.

    ``target`` is ``postgresql://user@host/db?table=schema.name`` (see :func:`parse_target`). The
    map is computed into a temporary GeoPackage (by ``run``, the job-level
    :func:`swm_gis.jobs.applicability_map` as the callers pass it, with ``options``: ``engine``,
    ``chunk_size``, ``scheduler``, ``workers``, ``progress``), then written in one transaction as
    ``schema.name`` (with a GiST index), ``schema.name_summary`` and ``schema.name_checks``, and its
    QGIS style stored in ``public.layer_styles`` as the table's default. Returns the job's result
    with ``path`` set to the target (without any password).
    """
    import dataclasses
    import tempfile
    from pathlib import Path

    import pyogrio

    from swm_gis.applicability import run as job
    from swm_gis.applicability.write import (
        regulation_name,
        rename_old_columns,
        style_description,
    )

    conn, schema, table = parse_target(target)
    if run is None:
        raise TypeError("write_applicability needs run=, e.g. swm_gis.applicability_map")
    with connect(conn) as con:  # fail before the long job: server reachable, table free
        _check_free(con, schema, [table, f"{table}_summary", f"{table}_checks"],
                    overwrite=overwrite)
    with tempfile.TemporaryDirectory(prefix="swm-gis-pg-") as tmp:
        gpkg = Path(tmp) / "applicability.gpkg"
        result = run(config, gpkg, overwrite=True, **options)
        frames = {
            # a map that names the NHESP column by its 500 ft gets nhesp_within_distance
            table: rename_old_columns(pyogrio.read_dataframe(gpkg, layer=job.LAYER)),
            f"{table}_summary": pyogrio.read_dataframe(gpkg, layer=job.SUMMARY_TABLE),
            f"{table}_checks": pyogrio.read_dataframe(gpkg, layer=job.CHECKS_TABLE),
        }
    srid = _srid_of(config.crs)
    with connect(conn) as con, con.transaction():
        for name, frame in frames.items():
            write_frame(con, frame, schema, name, overwrite=overwrite, srid=srid)
        classes = frames[table]["screening_class"].unique().tolist()
        trigger = config.rules.trigger_sqft
        write_style(con, schema, table, qml=applicability_qml(classes, trigger_sqft=trigger),
                    name=job.STYLE_NAME,
                    description=style_description(trigger, regulation_name(config)))
    with connect(conn, autocommit=True) as con:
        con.execute(f'ANALYZE {qualified_table(schema, table).as_string(con)}')
    shown = redact(target)
    if "_frame" in {f.name for f in dataclasses.fields(result)}:  # jobs.ApplicabilityMap
        return dataclasses.replace(result, path=shown, _frame=frames[table])
    return dataclasses.replace(result, path=shown)


def copy_layer(source: str, layer: str | None, target: str, table: str, *,
               overwrite: bool = False) -> int:
    """Load a file layer (any GDAL source) into ``table`` (``schema.name``) of a database, as
    it is (source field names, source CRS), with a GiST index; returns the row count.

    What a town does once with ``ogr2ogr -f PostgreSQL``; used by the tests and benchmarks.
    """
    import pyogrio

    frame = pyogrio.read_dataframe(source, layer=layer)
    info = pyogrio.read_info(source, layer=layer)
    schema, name = split_table(table, where=redact(target))
    srid = _srid_of(info.get("crs")) if info.get("crs") else 0
    with connect(target) as con, con.transaction():
        write_frame(con, frame, schema, name, overwrite=overwrite, srid=srid)
    with connect(target, autocommit=True) as con:
        con.execute(f"ANALYZE {qualified_table(schema, name).as_string(con)}")
    return len(frame)


def _srid_of(crs: Any) -> int:
    from pyproj import CRS

    epsg = CRS.from_user_input(crs).to_epsg()
    if epsg is None:
        raise ConfigError(f"The CRS {crs} has no EPSG code; PostGIS tables need an SRID.")
    return int(epsg)


def _check_free(con: Any, schema: str | None, tables: list[str], *, overwrite: bool) -> None:
    if overwrite:
        return
    taken = [t for t in tables if table_oid(con, schema, t) is not None]
    if taken:
        raise OutputExistsError(
            f"Table(s) {', '.join(taken)} already exist. Choose another table or pass "
            f"{option('overwrite')} to replace them.")


__all__ = ["copy_layer", "write_applicability"]

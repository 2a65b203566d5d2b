"""PostgreSQL/PostGIS sources and outputs, through psycopg 3.

The GDAL inside the pyogrio wheel has no PostgreSQL driver (``pyogrio.list_drivers()``), so a
``PG:`` path cannot go through GDAL there; this module talks to the server with psycopg instead
(the same libpq as ``psql``). A source is a connection, written either as a URL
(``postgresql://user@host:5432/db``) or as GDAL's ``PG:dbname=db host=... user=...``, plus the
table in ``layer = "schema.table"``. Passwords never appear in a config (it is refused there):
libpq takes them from ``PGPASSWORD``, ``~/.pgpass`` or a ``pg_service.conf`` service.

Reads push the spatial filter to the server: ``geom && envelope AND ST_Intersects(...)`` uses the
table's GiST index, so a neighbourhood query over a statewide table reads only the neighbourhood.
Writes create the table, load it with ``COPY``, add a GiST index and commit once, so a reader sees
either the old table or the complete new one.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import geopandas as gpd
import numpy as np
import pandas as pd
import shapely

from swm_gis.errors import ConfigError, InputFileError, OutputExistsError
from swm_gis.messages import option

BBox = tuple[float, float, float, float]

#: Keys of GDAL's ``PG:`` string that are GDAL options, not libpq connection parameters.
GDAL_ONLY_KEYS = {"schemas", "tables", "active_schema", "list_all_tables"}
_PG_TOKEN = re.compile(r"(\w+)\s*=\s*('(?:[^'\\]|\\.)*'|\S+)")
_INT_TYPES = {"int2", "int4", "int8", "oid"}
_FLOAT_TYPES = {"float4", "float8", "numeric"}


# --------------------------------------------------------------------------- connections
def is_postgis(path: str) -> bool:
    """True for ``postgresql://`` / ``postgres://`` URLs and GDAL ``PG:`` strings."""
    return str(path).startswith(("PG:", "postgresql://", "postgres://"))


def conninfo(path: str) -> str:
    """The libpq connection string behind a source path (GDAL-only keys and ``table`` dropped)."""
    path = str(path)
    if path.startswith("PG:"):
        pairs = [(k, v) for k, v in _PG_TOKEN.findall(path[3:])
                 if k.lower() not in GDAL_ONLY_KEYS | {"table"}]
        return " ".join(f"{k}={v}" for k, v in pairs)
    parts = urlsplit(path)
    query = [(k, v) for k, v in parse_qsl(parts.query) if k != "table"]
    return urlunsplit(parts._replace(query=urlencode(query)))


def redact(path: str) -> str:
    """A path safe for messages and outputs: any password replaced by ``***``."""
    path = str(path)
    path = re.sub(r"(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)", r"\1***", path, flags=re.I)
    return re.sub(r"(://[^:/@]*):[^@/]*@", r"\1:***@", path)


def connect(path: str, **kwargs: Any) -> Any:
    """A psycopg connection for a source path, with a clear error when the server refuses."""
    try:
        import psycopg
    except ImportError as exc:
        raise ConfigError(
            f"{redact(path)} is a PostgreSQL database; reading and writing PostGIS needs "
            'psycopg: pip install "swm-gis[postgis]".'
        ) from exc

    try:
        return psycopg.connect(conninfo(path), connect_timeout=10, **kwargs)
    except psycopg.OperationalError as exc:
        raise InputFileError(
            f"Cannot connect to the database {redact(path)}: {_first_line(exc)}. Check host, "
            "port, database and user; the password comes from PGPASSWORD, ~/.pgpass or a "
            "pg_service.conf service."
        ) from exc


def split_table(name: str | None, *, where: str) -> tuple[str | None, str]:
    """``"schema.table"`` -> (schema, table); a bare name uses the server's search_path."""
    if not name or not str(name).strip():
        raise ConfigError(f'{where}: a database source needs layer = "schema.table".')
    schema, _, table = str(name).strip().rpartition(".")
    return (schema or None), table


def qualified_table(schema: str | None, table: str) -> Any:
    """``schema.table`` (or ``table``) as a psycopg identifier, quoted for SQL."""
    from psycopg import sql

    return sql.Identifier(schema, table) if schema else sql.Identifier(table)


# --------------------------------------------------------------------------- reading
def read_info(path: str, layer: str | None, *, full: bool = False) -> dict[str, Any]:
    """Fields, dtypes, CRS and geometry column of a table, like ``pyogrio.read_info``.

    With ``full`` also ``features`` (exact count) and ``total_bounds`` (exact extent).
    """
    schema, table = split_table(layer, where=redact(path))
    with connect(path) as con:
        oid = _table_oid(con, path, schema, table)
        rows = con.execute(
            "SELECT a.attname, t.typname FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid"
            " WHERE a.attrelid = %s AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum",
            (oid,)).fetchall()
        geom_cols = [name for name, typ in rows if typ == "geometry"]
        geom = geom_cols[0] if geom_cols else None
        srid, gtype, crs = 0, None, None
        if geom:
            srid, gtype = _geometry_column(con, oid, geom)
            crs = _crs_of(con, srid)
        fields = [(n, t) for n, t in rows if n != geom]
        info: dict[str, Any] = {
            "fields": np.array([n for n, _ in fields], dtype=object),
            "dtypes": np.array([_dtype(t) for _, t in fields], dtype=object),
            "crs": crs, "srid": srid, "geometry_column": geom, "geometry_type": gtype,
            "layer_name": f"{schema}.{table}" if schema else table,
        }
        if full:
            from psycopg import sql

            extent = sql.SQL(", ST_XMin(e), ST_YMin(e), ST_XMax(e), ST_YMax(e) FROM (SELECT "
                             "count(*) AS n, ST_Extent({}) AS e FROM {}) s").format(
                sql.Identifier(geom), qualified_table(schema, table)) if geom else \
                sql.SQL(" FROM (SELECT count(*) AS n FROM {}) s").format(
                    qualified_table(schema, table))
            got = con.execute(sql.SQL("SELECT n") + extent).fetchone()
            info["features"] = int(got[0])
            bounds = got[1:] if geom else ()
            info["total_bounds"] = (tuple(float(b) for b in bounds)
                                    if bounds and bounds[0] is not None else None)
    return info


def read_frame(path: str, layer: str | None, info: dict[str, Any], *, columns: list[str],
               where: str | None = None, bbox: BBox | None = None,
               mask: shapely.Geometry | None = None,
               read_geometry: bool = True) -> pd.DataFrame | gpd.GeoDataFrame:
    """Rows of a table: ``columns`` (source names), geometry unless ``read_geometry`` is False.

    ``bbox`` / ``mask`` are in the table's CRS and select features that intersect them (on the
    server, through the GiST index); ``where`` is an SQL condition on source field names.
    """
    import psycopg

    query, params = select_sql(info, layer, columns=columns, where=where, bbox=bbox, mask=mask,
                               read_geometry=read_geometry)
    geom = info.get("geometry_column") if read_geometry else None
    with connect(path) as con:
        try:
            rows = con.execute(query, params).fetchall()
        except psycopg.Error as exc:
            raise InputFileError(
                f"Cannot read {redact(path)} table {layer}: {_first_line(exc)}") from exc
    frame = pd.DataFrame.from_records(rows, columns=[*columns, *(["geometry"] if geom else [])])
    for c, dtype in zip(info["fields"], info["dtypes"], strict=True):
        if c in frame and dtype == "float64":
            frame[c] = pd.to_numeric(frame[c], errors="coerce").astype("float64")
    if not geom:
        return frame
    geoms = shapely.from_wkb(np.array([bytes(g) if g is not None else None
                                       for g in frame.pop("geometry")], dtype=object))
    return gpd.GeoDataFrame(frame, geometry=geoms, crs=info.get("crs"))


def select_sql(info: dict[str, Any], layer: str | None, *, columns: list[str],
               where: str | None = None, bbox: BBox | None = None,
               mask: shapely.Geometry | None = None,
               read_geometry: bool = True) -> tuple[Any, list[Any]]:
    """The SELECT :func:`read_frame` runs, and its parameters.

    The spatial filter is ``geom && shape AND ST_Intersects(geom, shape)``: the ``&&`` lets the
    planner use the GiST index; ``ST_Intersects`` keeps what GDAL's filter keeps.
    """
    from psycopg import sql

    schema, table = split_table(layer, where="the table")
    geom = info.get("geometry_column") if read_geometry else None
    select = [sql.Identifier(c) for c in columns]
    if geom:
        select.append(sql.SQL("ST_AsBinary({})").format(sql.Identifier(geom)))
    conds: list[Any] = []
    params: list[Any] = []
    srid = int(info.get("srid") or 0)
    if (bbox is not None or mask is not None) and info.get("geometry_column"):
        col = sql.Identifier(info["geometry_column"])
        shape = shapely.box(*bbox) if bbox is not None else mask
        conds.append(sql.SQL("{c} && ST_GeomFromWKB(%s, %s) AND ST_Intersects({c}, "
                             "ST_GeomFromWKB(%s, %s))").format(c=col))
        wkb = shapely.to_wkb(shape)
        params += [wkb, srid, wkb, srid]
    if where:  # literal text: a "%" in it must not read as a placeholder
        conds.append(sql.SQL("(" + where.replace("%", "%%") + ")"))  # type: ignore[arg-type]
    query = sql.SQL("SELECT {} FROM {}").format(
        sql.SQL(", ").join(select) if select else sql.SQL("1"), qualified_table(schema, table))
    if conds:
        query += sql.SQL(" WHERE ") + sql.SQL(" AND ").join(conds)
    return query, params


def list_tables(path: str) -> list[str]:
    """``schema.table`` of every table and view the user can see (system schemas left out)."""
    with connect(path) as con:
        rows = con.execute(
            "SELECT table_schema || '.' || table_name FROM information_schema.tables WHERE "
            "table_schema NOT IN ('pg_catalog', 'information_schema', 'tiger', 'topology') "
            "ORDER BY 1").fetchall()
    return [r[0] for r in rows]


def _table_oid(con: Any, path: str, schema: str | None, table: str) -> int:
    oid = table_oid(con, schema, table)
    if oid is None:
        known = list_tables(path)
        hint = f" Tables in the database: {', '.join(known[:40])}." if known else ""
        raise InputFileError(f"Table {schema + '.' if schema else ''}{table} not found in "
                             f"{redact(path)}.{hint}")
    return int(oid)


def table_oid(con: Any, schema: str | None, table: str) -> int | None:
    """The table's oid, or None; names are quoted by the server (any text is safe)."""
    if schema:
        row = con.execute("SELECT to_regclass(quote_ident(%s) || '.' || quote_ident(%s))::oid",
                          (schema, table)).fetchone()
    else:
        row = con.execute("SELECT to_regclass(quote_ident(%s))::oid", (table,)).fetchone()
    return None if row[0] is None else int(row[0])


def _geometry_column(con: Any, oid: int, column: str) -> tuple[int, str | None]:
    row = con.execute(
        "SELECT srid, type FROM geometry_columns g JOIN pg_class c ON c.relname = "
        "g.f_table_name JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = "
        "g.f_table_schema WHERE c.oid = %s AND g.f_geometry_column = %s", (oid, column)
    ).fetchone()
    return (int(row[0]), row[1]) if row else (0, None)


def _crs_of(con: Any, srid: int) -> str | None:
    if srid <= 0:
        return None
    row = con.execute("SELECT auth_name, auth_srid, srtext FROM spatial_ref_sys WHERE srid = %s",
                      (srid,)).fetchone()
    if row is None:
        return None
    return f"{row[0]}:{row[1]}" if row[0] and row[1] else row[2]


def _dtype(typname: str) -> str:
    if typname in _INT_TYPES:
        return "int64"
    if typname in _FLOAT_TYPES:
        return "float64"
    if typname == "bool":
        return "bool"
    return "object"


# --------------------------------------------------------------------------- writing
def parse_target(target: str) -> tuple[str, str | None, str]:
    """``postgresql://.../db?table=schema.name`` (or ``PG:... table=schema.name``) ->
    (connection path, schema, table)."""
    target = str(target)
    if urlsplit(target).password is not None or re.search(r"password\s*=", target, re.I):
        raise ConfigError(
            f"{option('out')} {redact(target)} holds a database password. Remove it: it would "
            "be recorded with the outputs; libpq takes it from PGPASSWORD, ~/.pgpass or a "
            "service file."
        )
    if target.startswith("PG:"):
        found = dict((k.lower(), v.strip("'")) for k, v in _PG_TOKEN.findall(target[3:]))
        name = found.get("table")
    else:
        name = dict(parse_qsl(urlsplit(target).query)).get("table")
    if not name:
        raise ConfigError(
            f"{option('out')} {redact(target)} names no table; add ?table=schema.name to the URL "
            "(e.g. postgresql://user@host/db?table=public.applicability)."
        )
    schema, table = split_table(name, where=f"{option('out')} {redact(target)}")
    return conninfo(target), schema, table


def _sql_type(series: pd.Series) -> str:
    if pd.api.types.is_bool_dtype(series):
        return "boolean"
    if pd.api.types.is_integer_dtype(series):
        return "bigint"
    if pd.api.types.is_float_dtype(series):
        return "double precision"
    if pd.api.types.is_datetime64_any_dtype(series):
        return "timestamptz"
    return "text"


def write_frame(con: Any, frame: pd.DataFrame, schema: str | None, table: str, *,
                overwrite: bool, srid: int = 0) -> None:
    """Create ``schema.table`` from a (Geo)DataFrame inside the caller's transaction.

    A GeoDataFrame's geometry goes to ``geom`` (promoted to multi-part for polygons, with a GiST
    index); every table gets an ``fid`` primary key, which QGIS uses to identify features.
    """
    from psycopg import sql

    ref = qualified_table(schema, table)
    if table_oid(con, schema, table) is not None:
        if not overwrite:
            raise OutputExistsError(
                f"Table {schema + '.' if schema else ''}{table} already exists. Choose another "
                f"table or pass {option('overwrite')} to replace it.")
        con.execute(sql.SQL("DROP TABLE {} CASCADE").format(ref))
    if schema:
        con.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema)))
    is_geo = isinstance(frame, gpd.GeoDataFrame)
    attrs = [c for c in frame.columns if not (is_geo and c == frame.geometry.name)]
    cols = [sql.SQL("fid bigserial PRIMARY KEY")]
    cols += [sql.SQL("{} {}").format(sql.Identifier(c), sql.SQL(_sql_type(frame[c])))
             for c in attrs]
    values: list[np.ndarray] = [frame[c].astype(object).where(frame[c].notna(), None).to_numpy()
                                for c in attrs]
    copy_cols = [sql.Identifier(c) for c in attrs]
    if is_geo:
        geoms = frame.geometry.values.to_numpy()
        kind = _geometry_kind(geoms)
        if kind == "MultiPolygon":
            single = shapely.get_type_id(geoms) == 3
            geoms = geoms.copy()
            geoms[single] = shapely.multipolygons(geoms[single].reshape(-1, 1))
        cols.append(sql.SQL("geom geometry({}, {})").format(sql.SQL(kind), sql.Literal(srid)))
        values.append(shapely.to_wkb(geoms, hex=True))
        copy_cols.append(sql.Identifier("geom"))
    con.execute(sql.SQL("CREATE TABLE {} ({})").format(ref, sql.SQL(", ").join(cols)))
    with con.cursor().copy(sql.SQL("COPY {} ({}) FROM STDIN").format(
            ref, sql.SQL(", ").join(copy_cols))) as copy:
        for row in zip(*values, strict=True):
            copy.write_row(row)
    if is_geo:
        con.execute(sql.SQL("CREATE INDEX {} ON {} USING GIST (geom)").format(
            sql.Identifier(f"{table}_geom_idx"), ref))


def _geometry_kind(geoms: np.ndarray) -> str:
    types = set(shapely.get_type_id(geoms[~shapely.is_missing(geoms)]).tolist())
    if types <= {3, 6}:
        return "MultiPolygon"
    if len(types) == 1:
        return {0: "Point", 1: "LineString", 4: "MultiPoint", 5: "MultiLineString"}.get(
            types.pop(), "Geometry")
    return "Geometry"


def write_style(con: Any, schema: str | None, table: str, *, qml: str, name: str,
                description: str, geometry_column: str = "geom") -> None:
    """Store a QGIS style as the default of ``schema.table`` in the ``layer_styles`` table.

    The table has the columns QGIS itself creates (``saveStyleToDatabase``), so QGIS applies the
    style when the layer is opened, as it does for a GeoPackage.
    """
    schema = schema or con.execute("SELECT current_schema()").fetchone()[0]
    con.execute(
        "CREATE TABLE IF NOT EXISTS public.layer_styles (id SERIAL PRIMARY KEY, "
        "f_table_catalog varchar, f_table_schema varchar, f_table_name varchar, "
        "f_geometry_column varchar, stylename text, styleqml xml, stylesld xml, "
        "useasdefault boolean, description text, owner varchar(63) DEFAULT CURRENT_USER, "
        "ui xml, update_time timestamp DEFAULT CURRENT_TIMESTAMP, type varchar)")
    con.execute("UPDATE public.layer_styles SET useasdefault = false WHERE f_table_catalog = "
                "current_database() AND f_table_schema = %s AND f_table_name = %s",
                (schema, table))
    has_type = con.execute(
        "SELECT 1 FROM information_schema.columns WHERE table_schema = 'public' AND "
        "table_name = 'layer_styles' AND column_name = 'type'").fetchone()
    cols = ("f_table_catalog, f_table_schema, f_table_name, f_geometry_column, stylename, "
            "styleqml, stylesld, useasdefault, description")
    vals = "current_database(), %s, %s, %s, %s, XMLPARSE(DOCUMENT %s), NULL, true, %s"
    params: list[Any] = [schema, table, geometry_column, name, qml, description]
    if has_type:  # QGIS matches type = the layer's geometry type, or NULL (any): NULL, as a
        # layer opened from a URI without "type=" (as scripts do) asks for "Unknown geometry"
        cols, vals = cols + ", type", vals + ", NULL"
    con.execute(f"INSERT INTO public.layer_styles ({cols}) VALUES ({vals})", params)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


__all__ = ["conninfo", "connect", "is_postgis", "list_tables", "parse_target", "read_frame",
           "qualified_table", "read_info", "redact", "select_sql", "split_table", "table_oid",
           "write_frame", "write_style"]

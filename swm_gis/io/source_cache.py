"""Read once: every file source parsed once and kept on disk, read again by bounding box.

Parsing a source is most of a site job's reading: Cambridge's 3.8 MB TopoJSON takes GDAL about
half a second to describe and as long again for every read of it, bounding box or not, because a
JSON file has no index. :func:`read` keeps what GDAL read from a file source, every field and
the geometry, exactly as :func:`pyogrio.raw.read` returned it, in an uncompressed Arrow IPC file
with a bounding-box column per feature; later runs memory-map it, pick the features whose boxes
meet the area asked for and test only those exactly, so a site's cost does not grow with the
town. :func:`info` serves the source's description (``pyogrio.read_info``) from the same entry.

What an entry holds, and why the answer never changes
------------------------------------------------------
The *source as read*: no field renamed, no CRS assigned, no reprojection or repair. The reader
(:mod:`swm_gis.io.layers`) applies the field mapping, the config's CRS, the id rule and the
geometry repair to what this module returns exactly as it does to what GDAL returns, so a changed
field mapping, layer CRS or right-of-way rule can never be served a stale frame: those are not
in the key because they are not in the entry. The frame is rebuilt the way
:func:`pyogrio.read_dataframe` builds its own (the same pandas construction, integer columns with
no null in the rows read given their declared type, dates parsed by pyogrio's own parser), and
the filters are GDAL's: a bounding box or mask keeps the features whose geometry intersects it
(GEOS, as GDAL asks it; null and empty geometries never), in the file's order; a WHERE clause is
answered only in the two forms the reader writes (:func:`swm_gis.io.layers.sql_in`,
``1 = 0``), with OGR SQL's comparison (its string ``IN`` ignores ASCII case), and any other
clause reads the source.

Which sources: the formats GDAL parses whole for every read (:data:`DRIVERS`: GeoJSON,
TopoJSON, CSV, shapefiles). A GeoPackage, FlatGeobuf or File Geodatabase is read directly: its
spatial index already makes a box read cost the area, not the town, and GDAL returns the
features of such a read in the index's order, which a copy could not reproduce. PostGIS tables
and remote sources (``/vsicurl/``, URLs) are never cached either. A read that asks for GDAL's
Arrow stream (the town-wide map's tiles and id scan) is served from the cache like any other:
the reader turns either frame into the same logical layer (the map's file is the same byte for
byte with and without the cache: ``tests/io/test_source_cache.py``).

Key, freshness, corruption
--------------------------
An entry is named by the source (the path GDAL opens and the layer) and holds in its JSON
sidecar the key: every file of the source (a shapefile's sidecar files, a GeoPackage's ``-wal``,
every file of a File Geodatabase folder, the zip itself) with its size and modification time in
nanoseconds, the swm-gis, pyogrio and GDAL versions and :data:`FORMAT_VERSION`. A source changed
on disk gets a new key and its entry is rebuilt in place. The sidecar also holds the data file's
size and CRC-32: an entry whose data does not match (truncated, rewritten, half-copied) or whose
sidecar does not parse is rebuilt, with a debug log line, never trusted. Entries are written to a
temporary name and renamed into place under a file lock (:mod:`filelock`), so concurrent runs
build an entry once and readers never see half of one.

Where
-----
In the per-user cache folder shared with the flow grid (:func:`cache_root`: ``[cache] dir``,
else ``SWM_GIS_CACHE_DIR``, else ``~/.cache/swm-gis`` or the platform's equivalent), under
``sources-v{FORMAT_VERSION}/``. A job turns the cache on for its reads with :func:`using`;
``[cache] enabled = false``, ``SWM_GIS_CACHE_DIR=off`` or a job's cache option turn it off
(nothing is read from or written to the folder; the answers are the same, only slower). The
command line's cache commands list and empty the folder (:func:`entries`, :func:`clear`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import mmap
import os
import re
import shutil
import sys
import uuid
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

#: Raised whenever what an entry holds, or how a read is answered from it, changes.
FORMAT_VERSION = 1
_OFF = {"", "0", "off", "none", "false", "no"}
#: OGR field types an entry keeps as GDAL gives them (anything else: the source is read each time)
_TYPES = {"OFTInteger", "OFTInteger64", "OFTReal", "OFTString", "OFTDate", "OFTDateTime",
          "OFTTime"}
#: Drivers that scan the file for every read (no index, or one that keeps the file's order) and
#: answer WHERE with OGR SQL: the sources kept. GeoPackage, FlatGeobuf, File Geodatabase and
#: SQLite sources are read through their own spatial and attribute indexes, already in time with
#: the area read and in the index's order of features, so they are read directly.
DRIVERS = frozenset({"GeoJSON", "TopoJSON", "GeoJSONSeq", "ESRI Shapefile", "CSV"})
_BOX = ("xmin", "ymin", "xmax", "ymax")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")

#: The folder of the entries for the reads of the current job; None: no cache.
_FOLDER: ContextVar[Path | None] = ContextVar("swm_gis_source_cache", default=None)
#: Entries opened in this process, by file: (sidecar, table), reused while the files are unchanged
_OPEN: dict[str, tuple[tuple[int, int, int, int], dict[str, Any], Any]] = {}


# --------------------------------------------------------------------------- where
def cache_root(config: Any) -> Path | None:
    """The cache folder for this config, or None when caching is off.

    ``[cache] enabled = false`` turns it off; ``[cache] dir`` (relative to the config) beats the
    ``SWM_GIS_CACHE_DIR`` environment variable (a folder, or ``off``), which beats the per-user
    default (:func:`default_root`).

    >>> from swm_gis.config.town import parse_config
    >>> cfg = parse_config({"town": {"name": "T"}, "layers": {"parcels": {"path": "p.gpkg"}},
    ...                     "cache": {"dir": "/data/swm-cache"}}, base_dir=Path("/data"))
    >>> str(cache_root(cfg))
    '/data/swm-cache'
    """
    if not config.cache_enabled:
        return None
    if config.cache_dir:
        return Path(config.cache_dir)
    return env_root()


def env_root() -> Path | None:
    """The cache folder without a config: ``SWM_GIS_CACHE_DIR`` (None for ``off``), else the
    per-user default."""
    env = os.environ.get("SWM_GIS_CACHE_DIR")
    if env is not None:
        return None if env.strip().lower() in _OFF else Path(env).expanduser()
    return default_root()


def default_root() -> Path:
    """The per-user cache folder of this platform."""
    if sys.platform.startswith("win"):
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
        return base / "swm-gis" / "cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "swm-gis"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "swm-gis"


def sources_folder(root: Path) -> Path:
    """Where the source entries live under a cache folder."""
    return root / f"sources-v{FORMAT_VERSION}"


@contextmanager
def using(config: Any) -> Iterator[Path | None]:
    """Within the block, file sources are read through the cache of ``config``
    (:func:`cache_root`; none when it is off). Yields the entries' folder or None."""
    root = cache_root(config)
    token = _FOLDER.set(sources_folder(root) if root is not None else None)
    try:
        yield _FOLDER.get()
    finally:
        _FOLDER.reset(token)


# --------------------------------------------------------------------------- the key
def source_files(path: str) -> list[str]:
    """Every local file GDAL may read for ``path`` (sorted): a folder's files (a File
    Geodatabase), or the file with its same-named sidecars (``.shx``, ``.dbf``, ``.prj``,
    ``.cpg``, ``-wal``...)."""
    p = Path(path)
    if p.is_dir():
        return sorted(str(f) for f in p.rglob("*") if f.is_file())
    stem = p.name.split(".")[0]
    siblings = [f for f in p.parent.glob(f"{glob_escape(stem)}.*") if f.is_file()]
    wal = [Path(f"{p}-wal")] if Path(f"{p}-wal").is_file() else []
    return sorted({str(f) for f in [p, *siblings, *wal]})


def glob_escape(text: str) -> str:
    return re.sub(r"([*?\[])", r"[\1]", text)


def _key(spec: Any, path: str, layer: str | None) -> dict[str, Any] | None:
    """What an entry must match: the files' sizes and times and the readers' versions."""
    import pyogrio

    from swm_gis._version import __version__

    files = []
    for f in source_files(spec.path):
        st = os.stat(f)
        files.append([f, st.st_size, st.st_mtime_ns])
    return {"format": FORMAT_VERSION, "swm_gis": __version__,
            "pyogrio": pyogrio.__version__, "gdal": pyogrio.__gdal_version_string__,
            "path": path, "layer": layer, "files": files}


def _cacheable(spec: Any, path: str) -> bool:
    if not getattr(spec, "is_file", False) or spec.is_postgis:
        return False
    if re.match(r"^(/vsicurl|/vsis3|/vsigs|/vsiaz|https?:|ftp:)", str(spec.path), re.I):
        return False
    return os.path.exists(spec.path) and not str(path).startswith(("/vsicurl", "http"))


def _entry_name(path: str, layer: str | None) -> str:
    ident = json.dumps([os.path.abspath(path) if "/vsi" not in path else path, layer])
    return hashlib.blake2b(ident.encode(), digest_size=16).hexdigest()


# --------------------------------------------------------------------------- reading
def info(spec: Any, path: str, layer: str | None) -> dict[str, Any] | None:
    """The source's description (as ``pyogrio.read_info`` gave it when the entry was built) from
    a fresh entry; None when there is none (nothing is built here)."""
    folder = _FOLDER.get()
    if folder is None or not _cacheable(spec, path):
        return None
    try:
        found = _open(folder / _entry_name(path, layer), _key(spec, path, layer))
    except OSError:
        return None
    return None if found is None else _info_from_json(found[0]["info"])


def data_bounds(spec: Any) -> tuple[float, float, float, float] | None:
    """The extent of a source's geometries from a fresh entry (what GDAL computes when forced
    to), or None."""
    from swm_gis.io.sources import gdal_source

    folder = _FOLDER.get()
    if folder is None:
        return None
    try:
        path, layer = gdal_source(spec)
        if not _cacheable(spec, path):
            return None
        found = _open(folder / _entry_name(path, layer), _key(spec, path, layer))
    except Exception:  # noqa: BLE001 - the reader reports an unreadable source
        return None
    bounds = found[0].get("bounds") if found else None
    return tuple(bounds) if bounds else None  # type: ignore[return-value]


def read(spec: Any, path: str, layer: str | None, source_info: dict[str, Any], *,
         columns: list[str], where: str | None = None, bbox: Any = None, mask: Any = None,
         read_geometry: bool = True) -> Any:
    """What ``pyogrio.read_dataframe(path, layer=layer, columns=..., where=..., bbox=...,
    mask=..., read_geometry=...)`` returns, from the cache (built by this read if missing or
    stale); None when this read cannot be answered from it (the caller reads the source)."""
    folder = _FOLDER.get()
    if folder is None or source_info.get("driver") not in DRIVERS or not _cacheable(spec, path):
        return None
    try:
        match = _where(where)
    except ValueError:
        return None  # a clause the cache does not answer: the source is read
    if not set(columns) <= set(source_info.get("fields", [])):
        return None
    try:
        entry = _entry(folder, spec, path, layer, source_info)
        if entry is None:
            return None
        return _select(*entry, columns=columns, match=match, bbox=bbox, mask=mask,
                       read_geometry=read_geometry)
    except Exception as exc:  # noqa: BLE001 - never an answer from a doubtful entry
        log.debug("source cache: reading %s directly (%s)", path, exc)
        return None


def _entry(folder: Path, spec: Any, path: str, layer: str | None,
           source_info: dict[str, Any]) -> tuple[dict[str, Any], Any] | None:
    """A fresh entry for the source: opened, or built under the lock."""
    base = folder / _entry_name(path, layer)
    key = _key(spec, path, layer)
    try:
        found = built_once(base, lambda: _open(base, key),
                           lambda: _build(base, key, path, layer, source_info))
    except OSError as exc:
        log.debug("source cache: cannot write in %s (%s); reading directly", folder, exc)
        return None
    return None if found is None or found[0].get("uncacheable") else found


def built_once(base: Path, load: Callable[[], Any], build: Callable[[], None]) -> Any:
    """The entry at ``base`` as ``load()`` gives it (None: none, stale or damaged); else built by
    ``build()`` under the entry's file lock (another run may have built it meanwhile: loaded
    again first) and loaded. What the cache keeps beside its entries (io.id_index) is built
    the same way. OSError where the folder cannot be written."""
    import filelock

    found = load()
    if found is not None:
        return found
    base.parent.mkdir(parents=True, exist_ok=True)
    with filelock.FileLock(f"{base}.lock", timeout=600):
        found = load()
        if found is None:
            build()
            found = load()
    return found


def _open(base: Path, key: dict[str, Any]) -> tuple[dict[str, Any], Any] | None:
    """(sidecar, table) of the entry at ``base`` when it matches ``key`` and its data checks out;
    None (a debug line when the entry is there but bad) otherwise."""
    import pyarrow as pa

    side, data = base.with_suffix(".json"), base.with_suffix(".arrow")
    try:
        st = data.stat() if data.exists() else None
        raw = side.read_bytes()
    except FileNotFoundError:
        return None
    try:
        meta = json.loads(raw)
    except ValueError:
        log.debug("source cache: %s does not parse; rebuilding the entry", side)
        return None
    if meta.get("key") != key:
        return None  # a changed source (or another version): rebuilt
    if meta.get("uncacheable"):
        return meta, None
    if st is None:
        return None
    stamp = (st.st_ino, st.st_size, st.st_mtime_ns, len(raw))
    held = _OPEN.get(str(data))
    if held is not None and held[0] == stamp and held[1] == meta:
        return meta, held[2]
    try:
        if st.st_size != meta.get("bytes") or file_crc(data) != meta.get("crc32"):
            raise ValueError("its data does not match its sidecar (truncated or rewritten)")
        table = pa.ipc.open_file(pa.memory_map(str(data))).read_all()
        if table.num_rows != meta.get("rows") or table.column_names != meta.get("columns"):
            raise ValueError("its table is not the one its sidecar describes")
    except (OSError, ValueError, pa.ArrowException) as exc:
        log.debug("source cache: entry %s is corrupt (%s); rebuilding it", data, exc)
        return None
    _OPEN[str(data)] = (stamp, meta, table)
    return meta, table


def file_crc(path: Path) -> int:
    """The CRC-32 of a file's bytes (mapped, not read into memory); 0 for an empty file."""
    with open(path, "rb") as fh:
        if os.fstat(fh.fileno()).st_size == 0:
            return 0
        with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            return zlib.crc32(mm)


# --------------------------------------------------------------------------- building
def _build(base: Path, key: dict[str, Any], path: str, layer: str | None,
           source_info: dict[str, Any]) -> None:
    """Read the whole source as pyogrio does and store it (data first, then its sidecar)."""
    import pyarrow as pa
    import pyogrio.raw
    import shapely

    meta, _, geometry, field_data = pyogrio.raw.read(path, layer=layer, datetime_as_string=True)
    side = {"key": key, "info": _info_to_json(source_info)}
    bad = [t for t in meta["ogr_types"] if t not in _TYPES] + \
        [s for s in meta["ogr_subtypes"] if s == "OFSTJSON"]
    if bad:
        write_json(base.with_suffix(".json"), {**side, "uncacheable": sorted(set(bad))})
        return
    arrays: dict[str, Any] = {}
    for i, values in enumerate(field_data):
        arrays[f"f{i}"] = pa.array(values, type=pa.large_string()) if values.dtype == object \
            else pa.array(values)
    bounds = None
    if geometry is not None:
        arrays["wkb"] = pa.array(geometry, type=pa.large_binary())
        box = shapely.bounds(shapely.from_wkb(geometry))
        for j, name in enumerate(_BOX):
            arrays[name] = pa.array(box[:, j])
        if np.isfinite(box).all(axis=1).any():
            bounds = [float(np.nanmin(box[:, 0])), float(np.nanmin(box[:, 1])),
                      float(np.nanmax(box[:, 2])), float(np.nanmax(box[:, 3]))]
    rows = len(field_data[0]) if len(field_data) else (len(geometry) if geometry is not None
                                                       else 0)
    table = pa.table(arrays) if arrays else pa.table({"f": pa.nulls(rows)})
    data = base.with_suffix(".arrow")
    tmp = data.with_name(f".{data.name}.{uuid.uuid4().hex}.tmp")
    try:
        with pa.OSFile(str(tmp), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
            writer.write_table(table)
        os.replace(tmp, data)
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
    side.update({
        "meta": {"fields": list(meta["fields"]), "dtypes": list(meta["dtypes"]),
                 "crs": meta["crs"], "geometry": geometry is not None},
        "rows": table.num_rows, "columns": table.column_names, "bounds": bounds,
        "bytes": data.stat().st_size, "crc32": file_crc(data)})
    write_json(base.with_suffix(".json"), side)


def write_json(path: Path, value: dict[str, Any]) -> None:
    """``value`` as JSON at ``path``, written to a temporary name and renamed into place."""
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        tmp.write_text(json.dumps(value, default=_plain), encoding="utf-8")
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)


def _plain(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"not JSON: {type(value).__name__}")


def _info_to_json(source_info: dict[str, Any]) -> dict[str, Any]:
    arrays = [k for k, v in source_info.items() if isinstance(v, np.ndarray)]
    tuples = [k for k, v in source_info.items() if isinstance(v, tuple)]
    return {"value": json.loads(json.dumps(source_info, default=_plain)), "arrays": arrays,
            "tuples": tuples}


def _info_from_json(stored: dict[str, Any]) -> dict[str, Any]:
    value = dict(stored["value"])
    for k in stored["arrays"]:
        value[k] = np.array(value[k], dtype=object)
    for k in stored["tuples"]:
        value[k] = tuple(value[k])
    return value


# --------------------------------------------------------------------------- answering a read
_IN = re.compile(r'^"([^"]+)" IN \((.*)\)$', re.S)
_QUOTED = re.compile(r"'((?:[^']|'')*)'")
_NUMBER = re.compile(r"-?\d+(\.\d+)?")


def _where(where: str | None) -> tuple[str, list[Any], bool] | None:
    """(field, values, ignore ASCII case: OGR SQL's string ``IN``) of a WHERE clause the reader
    writes; None for no clause; ValueError for any other."""
    if where is None:
        return None
    if where.strip() == "1 = 0":
        return ("", [], False)
    m = _IN.match(where.strip())
    if not m:
        raise ValueError(where)
    field, body = m.group(1), m.group(2).strip()
    if body == "NULL":
        return (field, [], False)
    quoted = _QUOTED.findall(body)
    if quoted and ",".join(f"'{q}'" for q in quoted) == body:
        return (field, [q.replace("''", "'") for q in quoted], True)
    numbers = body.split(",")
    if all(_NUMBER.fullmatch(n) for n in numbers):
        return (field, [float(n) for n in numbers], False)
    raise ValueError(where)


def _select(side: dict[str, Any], table: Any, *, columns: list[str],
            match: tuple[str, list[Any], bool] | None, bbox: Any, mask: Any,
            read_geometry: bool) -> Any:
    """The rows of the entry a GDAL read with these filters returns, as pyogrio builds them."""
    import shapely

    meta = side["meta"]
    fields, dtypes = meta["fields"], meta["dtypes"]
    rows: np.ndarray | None = None
    if bbox is not None or mask is not None:
        if not meta["geometry"]:
            raise ValueError("a spatial filter on a table")
        area = shapely.box(*bbox) if bbox is not None else mask
        rows = _spatial(table, area)
    if match is not None:
        rows = _matching(table, fields, match, rows)
    wanted = [(i, f) for i, f in enumerate(fields) if f in set(columns)]
    data = {}
    for i, f in wanted:
        col = table.column(f"f{i}")
        values = (col if rows is None else col.take(rows)).to_numpy(zero_copy_only=False)
        if values.dtype.kind == "f" and dtypes[i].startswith(("int", "uint", "bool")) \
                and not np.isnan(values).any():
            values = values.astype(dtypes[i])  # GDAL gives the declared type without nulls
        data[f] = values
    return _frame(data, [f for _, f in wanted], [dtypes[i] for i, _ in wanted], meta, table,
                  rows, read_geometry)


def _spatial(table: Any, area: Any) -> np.ndarray:
    """Row numbers (ascending) of the features whose geometry intersects ``area``: the boxes
    narrow the candidates, GEOS decides (as GDAL's spatial filter does)."""
    import shapely

    x0, y0, x1, y1 = shapely.bounds(area)
    box = [table.column(n).to_numpy() for n in _BOX]
    with np.errstate(invalid="ignore"):
        near = (box[2] >= x0) & (box[3] >= y0) & (box[0] <= x1) & (box[1] <= y1)
    rows = np.flatnonzero(near)
    geoms = shapely.from_wkb(table.column("wkb").take(rows).to_numpy(zero_copy_only=False))
    shapely.prepare(area)
    return rows[shapely.intersects(area, geoms) & ~shapely.is_empty(geoms)]


def _matching(table: Any, fields: list[str], match: tuple[str, list[Any], bool],
              rows: np.ndarray | None) -> np.ndarray:
    """Row numbers among ``rows`` (all when None) whose field is IN the values (Arrow's
    vectorised ``is_in``; a null never matches)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    field, values, fold = match
    rows = np.arange(table.num_rows) if rows is None else rows
    if not values:
        return rows[:0]
    col = table.column(f"f{fields.index(field)}").take(pa.array(rows, type=pa.int64()))
    if isinstance(values[0], str):
        if not pa.types.is_large_string(col.type):
            raise ValueError("a text IN on a number field")
        if fold:  # OGR SQL compares text ignoring ASCII case (and only ASCII)
            col = pc.ascii_lower(col)
            values = [v.translate(_ASCII_LOWER) for v in values]
        wanted = pa.array(values, type=pa.large_string())
    else:
        if not (pa.types.is_integer(col.type) or pa.types.is_floating(col.type)
                or pa.types.is_boolean(col.type)):
            raise ValueError("a number IN on a text field")
        col = pc.cast(col, pa.float64())
        wanted = pa.array(values, type=pa.float64())
    keep = pc.fill_null(pc.is_in(col, value_set=wanted), False)
    return rows[np.asarray(keep.to_numpy(zero_copy_only=False), dtype=bool)]


def _frame(data: dict[str, Any], columns: list[str], dtypes: list[str], meta: dict[str, Any],
           table: Any, rows: np.ndarray | None, read_geometry: bool) -> Any:
    """The frame pyogrio.read_dataframe builds from these arrays (its own steps, in order)."""
    import geopandas as gpd
    import pandas as pd
    import shapely
    from pyogrio.geopandas import _try_parse_datetime

    df = pd.DataFrame(data, columns=columns)
    for dtype, c in zip(dtypes, columns, strict=True):
        if dtype.startswith("datetime"):
            df[c] = _try_parse_datetime(df[c], False, True)
    if not meta["geometry"] or not read_geometry:
        return df
    wkb = table.column("wkb")
    geometry = shapely.from_wkb((wkb if rows is None else wkb.take(rows))
                                .to_numpy(zero_copy_only=False), on_invalid="raise")
    return gpd.GeoDataFrame(df, geometry=geometry, crs=meta["crs"])


# --------------------------------------------------------------------------- the folder
def entries(root: Path) -> list[dict[str, Any]]:
    """The source entries under a cache folder: ``source``, ``layer``, ``rows``, ``bytes``."""
    out = []
    for side in sorted(sources_folder(root).glob("*.json")):
        try:
            meta = json.loads(side.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            meta = {}
        data = side.with_suffix(".arrow")
        size = side.stat().st_size + (data.stat().st_size if data.exists() else 0)
        out.append({"source": meta.get("key", {}).get("path"),
                    "layer": meta.get("key", {}).get("layer"), "rows": meta.get("rows"),
                    "bytes": size})
    return out


def clear(root: Path) -> int:
    """Delete every source entry under ``root``; returns how many entries went."""
    folder = sources_folder(root)
    n = len(list(folder.glob("*.json"))) if folder.is_dir() else 0
    for old in root.glob("sources-v*"):
        shutil.rmtree(old, ignore_errors=True)
    _OPEN.clear()
    return n


# ------------------------------------------------------------------- shared with io.id_index
def current_folder() -> Path | None:
    """The entries' folder of the current job's reads (:func:`using`); None: no cache."""
    return _FOLDER.get()


def use_folder(folder: Path | None) -> None:
    """Read through the entries' ``folder`` (a job's :func:`current_folder`) from now on in
    this context: a worker process of the job, which does not inherit the job's context."""
    _FOLDER.set(folder)


def source_key(spec: Any, path: str, layer: str | None) -> dict[str, Any] | None:
    """What anything kept for this source must match (:func:`_key`)."""
    return _key(spec, path, layer)


def local_source(spec: Any, path: str) -> bool:
    """Whether the source is a local file whose reads may be kept (:func:`_cacheable`)."""
    return _cacheable(spec, path)


def where_terms(where: str | None) -> tuple[str, list[Any], bool] | None:
    """The reader's own WHERE clause parsed (:func:`_where`); ValueError for any other."""
    return _where(where)


__all__ = ["FORMAT_VERSION", "cache_root", "clear", "current_folder", "use_folder", "data_bounds",
           "default_root", "entries", "env_root", "info", "local_source", "read", "source_files",
           "source_key", "sources_folder", "using", "where_terms", "built_once", "write_json",
           "file_crc"]

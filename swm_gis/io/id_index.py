"""Rows by id from a GeoPackage without scanning it: a sorted id index kept in the source cache.

A site job reads a few rows by id (the subject parcel, the abutters' assessing records) with
``"LOC_ID" IN ('...')`` (:func:`swm_gis.io.layers.sql_in`). A GeoPackage answers that with
SQLite, which scans the whole table unless the field has an attribute index, and the files
MassGIS publishes and towns export have none: 0.035 s per 100,000 rows and per read, so the
one part of an abutter list whose cost followed the town's size (issue 37). The input is never
modified (no index is created in it). Instead :func:`read` keeps, beside the source cache's
entries (:mod:`swm_gis.io.source_cache`: the same key and freshness rule, in its folder's
``ids/``, which ``swm-gis cache clear`` empties with the rest), the field's values sorted with
their feature ids; a read by ids looks them up (a binary search) and reads those features by
id, which a GeoPackage answers from its primary key. The first read by a field builds its
index (one read of that column: 0.16 s for 200,000 parcels); with the cache off, reads are
GDAL's as before.

Why the answer is the one GDAL gives
------------------------------------
Only a GeoPackage, only a text field, only the reader's own ``IN`` clause of quoted values:
SQLite compares text byte for byte (the field's UTF-8), as the index does; nulls never match.
The features are read in ascending feature id, the order of SQLite's scan of the table. Any
other clause, field type, source or filter (a bounding box with the ids), or any doubt (an
entry that does not load, a value that does not encode), and the source is read as before.
An entry is rebuilt when the GeoPackage changes (its files' sizes and times, the readers'
versions: the source cache's key) or does not check out; it is never trusted otherwise.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import uuid
from pathlib import Path
from typing import Any

import numpy as np

from swm_gis.io import source_cache

log = logging.getLogger(__name__)

#: Raised whenever what an index holds, or how it is searched, changes.
FORMAT_VERSION = 1
#: Reading one feature by id costs GDAL about what a scan of 60 rows does (12 us against 0.2 us a
#: row on a 200,000-parcel GeoPackage): a read of more ids than one per this many rows scans.
ROWS_PER_FID = 50


def read(spec: Any, path: str, layer: str | None, source_info: dict[str, Any], *,
         columns: list[str], where: str | None, read_geometry: bool = True) -> Any:
    """What ``pyogrio.read_dataframe(path, layer=layer, columns=columns, where=where,
    read_geometry=read_geometry)`` returns, read by feature id through the field's index; None
    when this read is not one the index answers (the caller reads the source)."""
    fids = lookup(spec, path, layer, source_info, where)
    if fids is None or not len(fids):
        return None  # none found: the plain read builds the empty frame as GDAL types it
    import pyogrio

    return pyogrio.read_dataframe(path, layer=layer, columns=columns, fids=fids,
                                  read_geometry=read_geometry)


def lookup(spec: Any, path: str, layer: str | None, source_info: dict[str, Any],
           where: str | None) -> np.ndarray | None:
    """The feature ids ``where`` selects, ascending, from the field's index; None when the
    index cannot answer it."""
    sources = source_cache.current_folder()  # the cache's own folder and rules
    if sources is None or where is None or source_info.get("driver") != "GPKG" \
            or not source_cache.local_source(spec, path) or not os.path.isfile(path):
        return None  # (a GeoPackage inside an archive is read by GDAL, as before)
    try:
        match = source_cache.where_terms(where)
    except ValueError:
        return None
    if match is None or not match[0] or not match[2]:  # "1 = 0", numbers: read the source
        return None
    field, values, _ = match
    dtypes = dict(zip(source_info.get("fields", []), source_info.get("dtypes", []),
                      strict=False))
    if str(dtypes.get(field)) != "object":
        return None
    try:
        keys, fids = _index(sources / "ids", spec, path, layer, field)
        if keys is None:
            return None  # SQLite answers it from the file's own index, in that index's order
        wanted = np.array([v.encode("utf-8") for v in values], dtype=object)
    except Exception as exc:  # noqa: BLE001 - never an answer from a doubtful index
        log.debug("id index: reading %s directly (%s)", path, exc)
        return None
    found = [fids[np.searchsorted(keys, w, "left"):np.searchsorted(keys, w, "right")]
             for w in wanted if len(w) <= keys.dtype.itemsize and not w.endswith(b"\0")]
    fids = np.unique(np.concatenate(found)) if found else np.empty(0, dtype=np.int64)
    return fids if len(fids) * ROWS_PER_FID <= len(keys) else None  # many: the scan is cheaper


def _index(folder: Path, spec: Any, path: str, layer: str | None, field: str
           ) -> tuple[np.ndarray | None, np.ndarray | None]:
    """(sorted UTF-8 values, their feature ids) of ``field``: loaded, else built; (None, None)
    when the table answers the clause in an order or a comparison of its own (an index or a
    collation on the field)."""
    key = {**source_cache.source_key(spec, path, layer), "field": field,
           "index_format": FORMAT_VERSION}
    ident = json.dumps([os.path.abspath(path), layer, field])
    base = folder / f"ids-{hashlib.blake2b(ident.encode(), digest_size=16).hexdigest()}"
    found = source_cache.built_once(base, lambda: _load(base, key),
                                    lambda: _build(base, key, path, layer, field))
    if found is None:
        raise OSError(f"the id index of {path} does not load")
    return found


#: Indexes loaded in this process (a warm engine), by file: (key, values, ids)
_LOADED: dict[str, tuple[dict[str, Any], np.ndarray, np.ndarray]] = {}


def _load(base: Path, key: dict[str, Any]
          ) -> tuple[np.ndarray | None, np.ndarray | None] | None:
    held = _LOADED.get(str(base))
    if held is not None and held[0] == key:
        return held[1], held[2]
    try:
        side = json.loads(base.with_suffix(".json").read_text("utf-8"))
        if side.get("key") != key:
            return None
        if not side.get("usable", True):
            return None, None
        data = np.load(base.with_suffix(".npz"))
        keys, fids = data["keys"], data["fids"]
    except Exception as exc:  # noqa: BLE001 - a damaged entry (a bad zip...) is rebuilt
        if base.with_suffix(".json").exists():
            log.debug("id index: rebuilding %s (%s)", base, exc)
        return None
    if len(keys) != side.get("rows") or len(fids) != len(keys) \
            or int(fids.sum()) != side.get("fid_sum"):
        log.debug("id index: rebuilding %s (its data does not check out)", base)
        return None
    _LOADED[str(base)] = (key, keys, fids)
    return keys, fids


def _build(base: Path, key: dict[str, Any], path: str, layer: str | None, field: str) -> None:
    """Read the field with the feature ids, sort by (value, id), write data then sidecar."""
    import pyogrio

    if layer is None or _own_order(path, layer, field):
        source_cache.write_json(base.with_suffix(".json"), {"key": key, "usable": False})
        return
    frame = pyogrio.read_dataframe(path, layer=layer, columns=[field], read_geometry=False,
                                   fid_as_index=True)
    values = frame[field].to_numpy(dtype=object)
    ids = frame.index.to_numpy(dtype=np.int64)
    keep = np.array([isinstance(v, str) for v in values], dtype=bool)
    encoded = np.array([v.encode("utf-8") for v in values[keep]], dtype=bytes)
    encoded = encoded if len(encoded) else np.empty(0, dtype="S1")
    if any(v.endswith(b"\0") for v in encoded.tolist()):  # numpy's bytes drop a trailing NUL
        source_cache.write_json(base.with_suffix(".json"), {"key": key, "usable": False})
        return
    ids = ids[keep]
    order = np.lexsort((ids, encoded))
    keys, fids = encoded[order], ids[order]
    tmp = base.parent / f".{base.name}.{uuid.uuid4().hex}"
    with open(f"{tmp}.npz", "wb") as fh:
        np.savez(fh, keys=keys, fids=fids)
    os.replace(f"{tmp}.npz", base.with_suffix(".npz"))
    source_cache.write_json(base.with_suffix(".json"),
                            {"key": key, "rows": len(keys), "fid_sum": int(fids.sum())})


def _own_order(path: str, table: str, field: str) -> bool:
    """Whether SQLite would answer ``field IN (...)`` other than by a scan in row order with
    byte comparison: an index on the field, or a collation declared in the table."""
    import sqlite3

    con = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True)
    try:
        sql = con.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?",
                          (table,)).fetchone()
        if sql is None or "COLLATE" in str(sql[0]).upper():
            return True
        for row in con.execute(f'PRAGMA index_list("{table.replace(chr(34), chr(34) * 2)}")'):
            cols = con.execute(f'PRAGMA index_info("{row[1].replace(chr(34), chr(34) * 2)}")')
            if any(c[2] is not None and c[2].lower() == field.lower() for c in cols):
                return True
    finally:
        con.close()
    return False

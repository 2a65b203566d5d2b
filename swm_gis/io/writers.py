"""Writing outputs safely: every file goes to a temporary name beside its target and is moved
into place only when complete, so a crash never leaves half a file, and an existing output is
not replaced unless the user asked for it (``overwrite=True``)."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import geopandas as gpd
import pandas as pd
import pyogrio

from swm_gis.errors import OutputError, OutputExistsError
from swm_gis.io.gpkg_styles import StoredStyle, store_styles
from swm_gis.messages import option

#: Characters that make a spreadsheet treat a text cell as a formula (CSV/formula injection).
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def check_outputs_free(paths: Iterable[str | Path], *, overwrite: bool) -> None:
    """Refuse to run when any output already exists and ``overwrite`` is False."""
    if overwrite:
        return
    existing = [str(p) for p in paths if Path(p).exists()]
    if existing:
        raise OutputExistsError(
            f"Output already exists: {', '.join(existing)}. Choose another {option('out')} or "
            f"pass {option('overwrite')} to replace it."
        )


@contextlib.contextmanager
def atomic_path(target: str | Path, *, suffix: str | None = None) -> Iterator[Path]:
    """Yield a temporary path beside ``target``; on success move it onto ``target``.

    The temporary file is removed if the block raises, so the target is either the old file or
    the complete new one, never a partial one.
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=suffix or target.suffix,
                               dir=target.parent)
    os.close(fd)
    os.unlink(tmp)  # writers (GDAL in particular) want to create the file themselves
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        os.replace(tmp_path, target)
    finally:
        for leftover in (tmp_path, Path(f"{tmp_path}-journal"), Path(f"{tmp_path}-wal")):
            if leftover.exists():
                leftover.unlink()


def write_json(data: Any, target: str | Path) -> Path:
    """Write JSON (UTF-8, indented, keys in insertion order) atomically."""
    try:  # JSON has no Infinity or NaN: refuse rather than write a file no parser reads
        text = json.dumps(data, indent=2, ensure_ascii=False, default=_json_default,
                          allow_nan=False)
    except ValueError as exc:
        raise OutputError(
            f"Cannot write {target}: a value is infinite or not a number (inf/nan), which JSON "
            "cannot hold. Check the numbers given to the command; nothing was written."
        ) from exc
    with atomic_path(target) as tmp:
        tmp.write_text(text + "\n", encoding="utf-8")
    return Path(target)


def write_text(text: str, target: str | Path) -> Path:
    with atomic_path(target) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return Path(target)


def write_bytes(data: bytes, target: str | Path) -> Path:
    with atomic_path(target) as tmp:
        tmp.write_bytes(data)
    return Path(target)


def neutralise_formula(value: Any) -> Any:
    """Prefix text a spreadsheet would execute (leading ``= + - @``) with an apostrophe.

    >>> neutralise_formula("=HYPERLINK(1)"), neutralise_formula("O'BRIEN"), neutralise_formula(5)
    ("'=HYPERLINK(1)", "O'BRIEN", 5)
    """
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


def safe_frame(df: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``df`` with every text cell neutralised against formula injection."""
    out = df.copy()
    for col in out.columns:
        if out[col].dtype == object or pd.api.types.is_string_dtype(out[col]):
            out[col] = out[col].map(neutralise_formula)
    return out


@contextlib.contextmanager
def sqlite_sync_off() -> Iterator[None]:
    """Turn off GDAL's sync-to-disk after each GeoPackage write while writing a temporary file.

    GDAL syncs after every layer (about 0.1 s each); the file is a temporary one that
    :func:`atomic_path` moves into place only when complete, so per-write durability buys
    nothing. The previous setting is restored afterwards.
    """
    with gdal_option("OGR_SQLITE_SYNCHRONOUS", "OFF"):
        yield


#: SQLite's largest page size, for a GeoPackage GDAL creates inside :func:`large_pages`.
LARGE_PAGE_BYTES = 65_536


@contextlib.contextmanager
def large_pages() -> Iterator[None]:
    """A GeoPackage GDAL creates within the block gets SQLite pages of 64 KiB instead of 4 KiB
    (``OGR_SQLITE_PRAGMA``, added to any pragmas set before; one that already names a page size
    is kept as it is).

    For a large layer written in one stream (the town-wide map): a sixteenth of the pages to
    allocate, balance and hand to the kernel. Statewide (2.4 million parcels, 1.1 GB) the
    writer's CPU went from 11.4-11.6 s to 10.2-10.3 s; whole-layer and box reads of the file
    took as long as before (benchmarks/README). Any SQLite reads either page size; an existing
    file keeps its own.
    """
    before = pyogrio.get_gdal_config_option("OGR_SQLITE_PRAGMA") or ""
    if "page_size" in before.lower():
        yield
        return
    pragma = f"page_size={LARGE_PAGE_BYTES}"
    with gdal_option("OGR_SQLITE_PRAGMA", f"{before},{pragma}" if before else pragma):
        yield


@contextlib.contextmanager
def gdal_option(key: str, value: str) -> Iterator[None]:
    """Set one GDAL configuration option (pyogrio's GDAL) for the block; the previous setting
    is restored afterwards."""
    before = pyogrio.get_gdal_config_option(key)
    pyogrio.set_gdal_config_options({key: value})
    try:
        yield
    finally:
        pyogrio.set_gdal_config_options({key: before})


def write_geopackage(layers: dict[str, gpd.GeoDataFrame | pd.DataFrame], target: str | Path,
                     *, styles: Iterable[StoredStyle] = ()) -> Path:
    """Write several layers (and attribute-only tables) into one GeoPackage, atomically, with
    the QGIS ``styles`` of its layers in its ``layer_styles`` table (:mod:`.gpkg_styles`).

    GeoPackage version 1.2 keeps the file readable without warnings by QGIS 3.22's GDAL.
    """
    styles = [s for s in styles if s.layer in layers]
    with atomic_path(target, suffix=".gpkg") as tmp, sqlite_sync_off():
        for i, (name, frame) in enumerate(layers.items()):
            opts = {"VERSION": "1.2"} if i == 0 else {}
            if isinstance(frame, gpd.GeoDataFrame):
                pyogrio.write_dataframe(frame, tmp, layer=name, driver="GPKG",
                                        append=i > 0, dataset_options=opts or None)
            else:
                pyogrio.write_dataframe(pd.DataFrame(frame), tmp, layer=name, driver="GPKG",
                                        append=i > 0, dataset_options=opts or None)
        store_styles(tmp, styles)
    return Path(target)


def _json_default(obj: Any) -> Any:
    import numpy as np

    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")

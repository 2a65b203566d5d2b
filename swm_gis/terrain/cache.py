"""The town's flow grid, computed once per DEM and kept on disk for every later run.

On a 1 m LiDAR DEM of a whole town (40 million cells) conditioning the DEM and routing it
(:func:`swm_gis.terrain.flow_directions`) takes tens of seconds, and labelling every cell with
the water it drains to (:func:`swm_gis.terrain.drainage_labels`) a few more. Neither depends on
the parcels or the site, so :func:`town_flow` computes them once and stores them as ``.npy``
arrays that later runs memory-map: ``swm-gis applicability``, every ``swm-gis screen`` and the
QGIS plugin (which runs the engine on a temporary copy of the town config) all reuse them.

What is stored, and why not a COG or WhiteboxTools
---------------------------------------------------
Per DEM: the D8 flow directions (uint8, one byte a cell) and the elevations (float32 for float32
or integer DEMs, NaN for no data), in the working CRS over the whole DEM. Per stream network on
that DEM: the water cells and the drainage labels (int32). The conditioned (depression-filled)
DEM is an intermediate: every consumer reads the flow directions, none the filled surface, so it
is not kept. Plain ``.npy`` files load in milliseconds with ``numpy.load(mmap_mode="r")``, and
only the pages a trace touches are read; a COG would need decompressing on every run and its
tiles buy nothing for whole-grid arrays. The routing stays in pyflwdir (already the engine of
:mod:`swm_gis.terrain`): at 1 m it fills and routes 40 million cells in memory within the
target, so an out-of-core tool (WhiteboxTools, a separate binary and file round-trips) is not
needed; the memory is bounded instead by float32 elevations and compiled single-pass loops
(:mod:`swm_gis.terrain.kernels`).

Keys: content, never names or dates
-----------------------------------
A grid's key is a BLAKE2b digest of every byte of the DEM's files (a GeoTIFF and its sidecars,
or a VRT and all its sources), streamed, plus what changes the result: the working CRS, the
DEM's CRS (its own, or the one the config declares for a DEM without one), the window, the
pyflwdir version and :data:`CACHE_VERSION` (raised whenever the flow or label computation
changes). Hashing a 1 m town DEM (about 100 MB) costs about 0.2 s a run; a size + date key
would be faster but a DEM rewritten in place with the same size and a preserved date would then
be served the old grid, and correctness comes first. The network arrays are keyed by the exact
geometry (WKB) of the reaches and water bodies, in order.

Where
-----
In a per-user cache folder (``%LOCALAPPDATA%/swm-gis/cache``, ``~/Library/Caches/swm-gis``
or ``$XDG_CACHE_HOME/swm-gis``, default ``~/.cache/swm-gis``), not beside the config: the
plugin's runs use a temporary copy of the config, town data often sits on a read-only share, and
since entries are keyed by content two configs naming the same DEM share one entry. The
``SWM_GIS_CACHE_DIR`` environment variable or ``[cache] dir`` in the town config moves it;
``[cache] enabled = false``, ``SWM_GIS_CACHE_DIR=off`` or the job's cache option turn it off
(results are the same, only slower). Entries are written to a temporary name and renamed into
place, so a reader never sees half an entry; a folder that cannot be written gives a
:class:`CacheWarning` and the run goes on uncached. Nothing is ever written to the user's
output folder.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import uuid
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import shapely
from affine import Affine
from pyproj import CRS

from swm_gis import terrain as hydrology
from swm_gis.config.town import TownConfig
from swm_gis.io import layers as io
from swm_gis.io.source_cache import cache_root, default_root
from swm_gis.messages import config_key

#: Raised whenever what a stored grid holds, or how it is computed, changes.
CACHE_VERSION = 3
#: Above this many cells the town grid is not the whole DEM but the parcels' extent (a DEM much
#: bigger than the town, e.g. a county mosaic); about 3 GB of peak memory at 20 bytes a cell.
TOWN_MAX_CELLS = 150_000_000
_CHUNK = 8 << 20


class CacheWarning(UserWarning):
    """The flow-grid cache could not be read or written; the run goes on without it."""


# --------------------------------------------------------------------------- location
# cache_root and default_root: the folder the flow grid shares with the parsed sources
# (swm_gis.io.source_cache), imported above


# --------------------------------------------------------------------------- keys
def file_digest(paths: list[str]) -> str | None:
    """BLAKE2b of the files' sizes and bytes (streamed), or None if one is not a local file."""
    h = hashlib.blake2b(digest_size=20)
    for path in paths:
        if not os.path.isfile(path):
            return None
        h.update(f"{os.path.getsize(path)}\0".encode())
        with open(path, "rb") as fh:
            while chunk := fh.read(_CHUNK):
                h.update(chunk)
    return h.hexdigest()


def dem_files(path: str) -> list[str]:
    """Every file GDAL reads for the DEM (a VRT's sources too), in a stable order."""
    import rasterio

    with rasterio.open(path) as src:
        files = [str(f) for f in (src.files or [path])]
    return sorted(set(files), key=lambda f: (f != str(path), f))


def grid_key(config: TownConfig, window: tuple[float, ...] | None) -> str | None:
    """The key of the town's flow grid: DEM content + everything else that changes the grid."""
    from importlib.metadata import version

    spec = config.layer("dem")
    if not spec.is_file or not os.path.isfile(spec.path):
        return None  # a database, URL or several sources: no one set of bytes to hash
    import rasterio

    try:
        digest = file_digest(dem_files(spec.path))
        source_crs = _source_crs(spec)
    except rasterio.errors.RasterioIOError:
        return None  # not a raster GDAL opens as it is (e.g. inside a zip): run uncached
    if digest is None:
        return None
    what = {"version": CACHE_VERSION, "pyflwdir": version("pyflwdir"), "content": digest,
            "working_crs": config.crs_obj.to_wkt(), "source_crs": source_crs,
            "window": [round(float(v), 6) for v in window] if window else None}
    return hashlib.blake2b(json.dumps(what, sort_keys=True).encode(),
                           digest_size=16).hexdigest()


def _source_crs(spec: Any) -> str | None:
    """The CRS the DEM is read in: its own, else the one the config declares (as
    :func:`swm_gis.io.layers.read_raster` does), so a config that repeats the file's own CRS (the
    QGIS plugin's temporary configs do) shares the entry of one that does not."""
    import rasterio

    with rasterio.open(spec.path) as src:
        if src.crs:
            return CRS.from_user_input(src.crs.to_wkt()).to_wkt()
    return CRS.from_user_input(spec.crs).to_wkt() if spec.crs else None


def network_key(network: hydrology.StreamNetwork) -> str:
    """Digest of the network's reach and water-body geometry, in order (what the labels use)."""
    h = hashlib.blake2b(digest_size=16)
    for frame in (network.reaches, network.waterbodies):
        geoms = np.asarray(frame.geometry.values, dtype=object)
        h.update(f"{len(geoms)}\0".encode())
        for wkb in shapely.to_wkb(geoms, include_srid=False, byte_order=1):
            h.update(len(wkb).to_bytes(8, "little"))
            h.update(wkb)
    return h.hexdigest()


# --------------------------------------------------------------------------- store
@dataclass(frozen=True)
class GridStore:
    """One stored flow grid's folder; keeps per-network arrays (water cells, labels) beside it."""

    folder: Path
    shape: tuple[int, int]

    def network_array(self, name: str, network: hydrology.StreamNetwork,
                      compute: Callable[[], np.ndarray]) -> np.ndarray:
        """The stored array ``name`` for this network, or ``compute()`` stored for next time."""
        path = self.folder / f"net-{network_key(network)}" / f"{name}.npy"
        arr = _load(path, self.shape)
        if arr is not None:
            return arr
        arr = compute()
        _save_array(path, arr)
        return arr


def _load(path: Path, shape: tuple[int, int]) -> np.ndarray | None:
    try:
        arr = np.load(path, mmap_mode="r", allow_pickle=False)
    except (FileNotFoundError, NotADirectoryError):  # not stored (yet)
        return None
    except (OSError, ValueError) as exc:
        warnings.warn(f"Ignoring the unreadable cached array {path} ({exc}); recomputing it.",
                      CacheWarning, stacklevel=3)
        return None
    return arr if tuple(arr.shape) == tuple(shape) else None


def _save_array(path: Path, arr: np.ndarray) -> None:
    """Write ``path`` through a temporary name in its folder (a reader never sees half of it)."""
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as fh:
            np.save(fh, np.ascontiguousarray(arr), allow_pickle=False)
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        _warn_unwritable(path.parent, exc)


def _warn_unwritable(where: Path, exc: OSError) -> None:
    warnings.warn(
        f"Cannot write the flow-grid cache in {where} ({exc.strerror or exc}); going on without "
        f"it, so the next run computes the flow grid again. Set SWM_GIS_CACHE_DIR or "
        f"{config_key('cache', 'dir')} in the town config to a writable folder, or "
        f"{config_key('cache', 'enabled')} = false.",
        CacheWarning, stacklevel=4)


def _store_grid(folder: Path, flow: hydrology.FlowGrid, key: str) -> bool:
    """Write a grid's entry under a temporary name and rename it into place; False if it failed."""
    tmp = folder.parent / f".{folder.name}.{uuid.uuid4().hex}.tmp"
    try:
        tmp.mkdir(parents=True)
        np.save(tmp / "d8.npy", np.ascontiguousarray(flow.d8), allow_pickle=False)
        np.save(tmp / "elevation.npy", np.ascontiguousarray(flow.elevation), allow_pickle=False)
        meta = {"key": key, "version": CACHE_VERSION, "shape": list(flow.shape),
                "transform": list(flow.transform)[:6], "crs": flow.crs.to_wkt()}
        (tmp / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
        try:
            os.rename(tmp, folder)
        except OSError:
            if not (folder / "meta.json").is_file():  # not another run storing the same grid
                raise
            shutil.rmtree(tmp, ignore_errors=True)
        return True
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        _warn_unwritable(folder.parent, exc)
        return False


def _discard(folder: Path) -> None:
    """Move a bad entry aside (one rename: readers see it whole or not at all), then delete it."""
    if not folder.exists():
        return
    aside = folder.parent / f".stale-{folder.name}.{uuid.uuid4().hex}"
    try:
        os.rename(folder, aside)
    except OSError:
        return  # another run got there first, or the folder is read-only: store() will warn
    shutil.rmtree(aside, ignore_errors=True)


def _load_grid(folder: Path, key: str, source: dict[str, Any]) -> hydrology.FlowGrid | None:
    try:
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    except (FileNotFoundError, NotADirectoryError):  # not stored (yet)
        return None
    except (OSError, ValueError) as exc:
        warnings.warn(f"Ignoring the unreadable flow-grid cache entry {folder} ({exc}).",
                      CacheWarning, stacklevel=3)
        return None
    if meta.get("key") != key or meta.get("version") != CACHE_VERSION:
        return None
    shape = tuple(meta["shape"])
    d8 = _load(folder / "d8.npy", shape)
    elevation = _load(folder / "elevation.npy", shape)
    if d8 is None or elevation is None:
        return None
    store = GridStore(folder, shape)  # type: ignore[arg-type]
    return hydrology.flow_grid(d8, transform=Affine(*meta["transform"]),
                               crs=CRS.from_wkt(meta["crs"]), elevation=elevation,
                               source=source, store=store)


# --------------------------------------------------------------------------- the town grid
def dem_cells(config: TownConfig) -> int:
    """How many cells the whole DEM has in the working CRS (warped size if reprojected)."""
    import rasterio
    from rasterio.vrt import WarpedVRT

    spec = config.layer("dem")
    try:
        src = rasterio.open(spec.path)
    except rasterio.errors.RasterioIOError:
        return 0  # read_raster says what is wrong with it
    with src:
        src_crs = src.crs or (CRS.from_user_input(spec.crs) if spec.crs else None)
        if src_crs is None or CRS.from_user_input(src_crs).equals(config.crs_obj):
            return int(src.width) * int(src.height)
        with WarpedVRT(src, crs=config.crs_obj.to_wkt(),
                       src_crs=CRS.from_user_input(src_crs).to_wkt()) as vrt:
            return int(vrt.width) * int(vrt.height)


def town_flow(config: TownConfig, *, fallback_bounds: tuple[float, float, float, float]
              | None = None) -> hydrology.FlowGrid | None:
    """The town's flow grid: the whole DEM routed once, from the cache when it holds it.

    A DEM of more than :data:`TOWN_MAX_CELLS` cells is routed over ``fallback_bounds`` (the
    parcels' extent) instead, or not at all (None: the caller reads its own window) without
    them. The grid carries a :class:`GridStore` when cached, so water cells and drainage labels
    are kept beside it.

    Raises what :func:`swm_gis.io.layers.read_raster` and
    :func:`swm_gis.terrain.flow_directions` raise for a missing, unreadable or CRS-less DEM.
    """
    window = None
    if dem_cells(config) > TOWN_MAX_CELLS:
        if fallback_bounds is None:
            return None
        window = tuple(float(v) for v in fallback_bounds)
    source = io.source_info(config.layer("dem"))
    root = cache_root(config)
    key = grid_key(config, window) if root is not None else None
    folder = root / f"flowgrid-v{CACHE_VERSION}" / key if root is not None and key else None
    if folder is not None:
        flow = _load_grid(folder, key, source)  # type: ignore[arg-type]
        if flow is not None:
            return flow
        _discard(folder)  # an unreadable or foreign entry under this key: never reuse its parts
    dem = io.read_raster(config, "dem", bounds=window, require_cover=False) if window else \
        io.read_raster(config, "dem")
    flow = hydrology.flow_directions(dem)
    del dem
    if folder is not None and _store_grid(folder, flow, key):  # type: ignore[arg-type]
        from dataclasses import replace

        flow = replace(flow, store=GridStore(folder, flow.shape))
    return flow


def clear(root: Path) -> int:
    """Delete every stored flow grid under ``root``; returns how many entries went."""
    n = 0
    for entry in sorted(root.glob(f"flowgrid-v{CACHE_VERSION}/*")):
        shutil.rmtree(entry, ignore_errors=True)
        n += 1
    return n


__all__ = ["CACHE_VERSION", "CacheWarning", "GridStore", "TOWN_MAX_CELLS", "cache_root",
           "clear", "default_root", "dem_cells", "dem_files", "file_digest", "grid_key",
           "network_key", "town_flow"]

"""The prepared overlays of the town-wide map, kept between runs (issue 37).

Every run of the town-wide map reads the six reference layers (NHESP x3, flood zones,
HUC12, HUC10) around the parcels and prepares them (:meth:`Overlays.build`: the SFHA union and
its cut, the habitat pieces, the HUC zones): on the statewide benchmark about 3.6 s of the job's
serial start, before any tile runs. A town re-runs the map with the same reference layers (only
its parcels change), so :func:`prepared` keeps what it prepared in the job's source cache
folder (:func:`swm_gis.io.source_cache.current_folder`, under ``overlays/``) and a later run
loads it (0.3 s statewide) instead.

What an entry holds
-------------------
The :class:`Overlays` without what each run makes again: the drainage grid (built as before,
from its own flow-grid cache, :mod:`swm_gis.terrain.cache`), the checks table (it names every
source, the parcels' too) and the class of a parcel outside the town (it names the regulation
in force today). They are put back by :func:`Prepared.for_run`. The entry is the pickle and the
64-byte-aligned arrays file the workers load the overlays from
(:func:`swm_gis.applicability.parallel.share_overlays`), so the workers of a warm run map the
entry itself (hard-linked into the run's private folder, so that a rebuild or a ``cache clear``
meanwhile cannot change it under them): the overlays are not pickled again (0.56 s statewide).
Its JSON sidecar holds the key, both files' sizes and CRC-32 and what the coverage of each
check was taken to be (the checks table's words).

The key, and why the answer never changes
-----------------------------------------
Everything the prepared overlays depend on: for each reference layer, the town boundary
(``town_area``, the coverage) and each layer whose coverage is measured, the layer as the config
describes it (path, layer, CRS, field mapping, coverage, ...) and the source cache's key of each
of its files (paths, sizes and modification times in nanoseconds, the readers' versions); the
working CRS; the ``[rules]`` (habitat distance, SFHA zones...); the parcel extent the layers were
read around; the swm-gis, shapely/GEOS, NumPy and Python versions; a digest of the engine's
modules (:data:`CODE`: all of them); and :data:`FORMAT_VERSION`. A source that
is not a local file (PostGIS, a URL), or a front end's temporary copy of a layer (a new file
each run, as the QGIS plugin exports one), is never kept: the overlays are prepared as before.
Any difference rebuilds the entry; a sidecar that does not parse, a file whose size or CRC-32
does not match, or a pickle that does not load is rebuilt, never trusted (a debug log line
says so).
Entries are built once under a file lock (:func:`swm_gis.io.source_cache.built_once`), written
to temporary names and renamed into place, sidecar last. There is one entry per town (its
config file and layers): a changed key rebuilds it in place.

A job's cache option (or the config's cache turned off) turns it off with the source cache;
the command line's cache commands count the entries (:func:`entries`) and remove them with
the sources folder.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import json
import logging
import mmap
import os
import shutil
import sys
import uuid
import weakref
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from swm_gis.applicability.shared_file import (
    load_overlays,
    load_shared,
    off_the_main_arena,
    write_shared,
)

log = logging.getLogger(__name__)

#: Raised whenever :class:`Overlays`, :class:`Pieces` or :class:`Zones`, or what an entry holds,
#: change.
FORMAT_VERSION = 1
#: The entries' folder under the job's source cache folder.
FOLDER = "overlays"
#: The reference layers the prepared overlays are read from, and the layers whose coverage they
#: measure (the town boundary).
LAYERS = ("nhesp_priority", "nhesp_estimated", "vernal_pools", "flood_zones", "huc12", "huc10",
          "town_boundary")
#: The engine's code whose digest is in the key, so that a changed rule never meets an entry
#: made by the old one: every module of the package (a list of the modules that read and
#: prepare the overlays missed one, the watershed codes' rule, the day it changed).
CODE = "**/*.py"
#: What each run makes again (:class:`Prepared.for_run`); not in an entry.
PER_RUN = ("drainage", "checks", "outside")


@dataclass
class Prepared:
    """The overlays as prepared (without :data:`PER_RUN`), the text of each check's coverage
    (``"nhesp"``, ``"sfha"``) and the entry they were kept in (None: not kept)."""

    overlays: Any
    bases: dict[str, str]
    entry: Entry | None = None

    def for_run(self, **per_run: Any) -> Any:
        """The run's overlays: these with the run's own :data:`PER_RUN` fields; remembered as
        made from the entry (:func:`shareable`)."""
        assert set(per_run) == set(PER_RUN), sorted(per_run)
        overlays = dataclasses.replace(self.overlays, **per_run)
        if self.entry is not None:
            for gone in [k for k, (ref, _) in _MADE_FROM.items() if ref() is None]:
                del _MADE_FROM[gone]
            _MADE_FROM[id(overlays)] = (weakref.ref(overlays), self.entry)
        return overlays


@dataclass(frozen=True)
class Entry:
    """An entry's two files (``base`` + ``.pickle`` / ``.arrays``) as they were checked: inode,
    size and modification time of each, and their CRC-32."""

    base: str
    stamps: tuple[tuple[int, int, int], tuple[int, int, int]]
    crcs: tuple[int, int]


@dataclass
class FromEntry:
    """What the workers of a warm run load: the entry's files linked into the run's folder
    (``base``) and the run's own fields (:data:`PER_RUN`)."""

    base: str
    per_run: dict[str, Any]


#: Overlays made from an entry in this process, by id: (a weak reference to them, the entry).
_MADE_FROM: dict[int, tuple[weakref.ref[Any], Entry]] = {}


# --------------------------------------------------------------------------- the key
def cache_key(config: Any, extent: Any) -> dict[str, Any] | None:
    """What an entry for this town and parcel extent must match; None when a layer is not a
    local file (a database, a URL) or is a front end's temporary copy (a new file each run):
    nothing is kept."""
    import numpy
    import shapely

    from swm_gis._version import __version__

    layers: dict[str, Any] = {}
    for name in LAYERS:
        if not config.has(name):
            continue
        layers[name] = layer_key(config.layer(name))
        if layers[name] is None:
            return None
    return {"format": FORMAT_VERSION, "swm_gis": __version__, "code": code_digest(),
            "shapely": shapely.__version__, "geos": shapely.geos_version_string,
            "numpy": numpy.__version__, "python": sys.version,
            "crs": config.crs, "rules": plain(config.rules),
            "extent": None if extent is None else [float(v) for v in extent],
            "layers": layers}


def layer_key(spec: Any) -> dict[str, Any] | None:
    """What a kept answer derived from one layer must match: the layer as the config describes
    it and the source cache's key of each of its files (paths, sizes, modification times, the
    readers' versions); None when a source of it is not a local file or is a front end's
    temporary copy (a new file each run never matches again: nothing is kept)."""
    from swm_gis.io import source_cache
    from swm_gis.io.sources import gdal_source

    files = []
    for part in spec.sources:
        path, layer = gdal_source(part)
        if part.temporary or not source_cache.local_source(part, path):
            return None
        files.append(source_cache.source_key(part, path, layer))
    return {"spec": plain(spec), "files": plain(files)}


def plain(value: Any) -> Any:
    """``value`` as JSON holds it, the same in every process: a dataclass as its fields, a set
    sorted (a set's order, and so its ``repr``, changes with each process's string hashing),
    a tuple as a list, anything else unknown as its ``repr``.

    >>> plain({"b": frozenset({"y", "x"}), "a": (1, 2.5, None)})
    {'b': ['x', 'y'], 'a': [1, 2.5, None]}
    """
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return sorted((plain(v) for v in value), key=lambda v: json.dumps(v, sort_keys=True))
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    return repr(value)


@functools.cache
def code_digest() -> str:
    """The digest of :data:`CODE`, once per process (about 10 ms); the duplicate-id scan's
    cache keys on it too (:mod:`~swm_gis.applicability.id_scan_cache`)."""
    root = Path(__file__).resolve().parents[1]
    digest = hashlib.blake2b(digest_size=16)
    for path in sorted(root.glob(CODE)):
        name = path.relative_to(root).as_posix()
        try:
            digest.update(name.encode() + b"\0" + path.read_bytes())
        except OSError:
            digest.update(name.encode() + b"\0?")
    return digest.hexdigest()


def _entry_base(folder: Path, config: Any) -> Path:
    """One entry per town: its config file and its reference layers' paths."""
    ident = [str(Path(config.path).resolve()) if config.path else None,
             [[k, config.layer(k).describe()] for k in LAYERS if config.has(k)]]
    name = hashlib.blake2b(json.dumps(ident).encode(), digest_size=16).hexdigest()
    return folder / FOLDER / name


# --------------------------------------------------------------------------- prepared
def prepared(config: Any, extent: Any, build: Callable[[], Prepared]) -> Prepared:
    """The prepared overlays for this town and extent: from its entry when the entry is fresh
    and checks out, else ``build()`` (kept as the entry, where the cache is on and every layer
    is a local file)."""
    from swm_gis.io import source_cache

    folder = source_cache.current_folder()
    key = cache_key(config, extent) if folder is not None else None
    if key is None:
        return build()
    base = _entry_base(folder, config)
    made: list[Prepared] = []
    building: list[bool] = []

    def load() -> Prepared | None:
        return made[0] if made else _load(base, key)

    def make() -> None:
        building.append(True)
        made.append(_store(base, key, build()))

    try:
        return source_cache.built_once(base, load, make)
    except OSError as exc:
        if building and not made:
            raise  # the preparation's own error (a source that cannot be read)
        # the folder cannot be written (nor locked): prepared as before
        log.debug("overlay cache: cannot write in %s (%s); preparing the overlays", folder, exc)
        return made[0] if made else build()


def _store(base: Path, key: dict[str, Any], done: Prepared) -> Prepared:
    """Write ``done`` as the entry at ``base`` (files to temporary names, renamed into place,
    the sidecar last); ``done`` with its entry, or as it is where the entry cannot be written."""
    from swm_gis.io import source_cache

    tmp = base.parent / f".{base.name}.{uuid.uuid4().hex}.tmp"
    try:
        tmp.mkdir(parents=True)
        if not write_shared(done.overlays, tmp / "overlays"):
            return done
        sums = {}
        for ext in ("pickle", "arrays"):
            part = tmp / f"overlays.{ext}"
            sums[ext] = [part.stat().st_size, source_cache.file_crc(part)]
            os.replace(part, f"{base}.{ext}")
        source_cache.write_json(base.with_suffix(".json"),
                                {"key": key, "files": sums, "bases": done.bases,
                                 "counts": _counts(done.overlays)})
        entry = _stamped(base, sums)
    except OSError as exc:
        log.debug("overlay cache: cannot keep %s (%s)", base, exc)
        return done
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return dataclasses.replace(done, entry=entry) if entry else done


def _stamped(base: Path, sums: dict[str, list[int]]) -> Entry | None:
    """The entry at ``base`` stamped as it is now, if its files still have these sizes."""
    stamps = []
    for ext in ("pickle", "arrays"):
        st = os.stat(f"{base}.{ext}")
        if st.st_size != sums[ext][0]:
            return None
        stamps.append((st.st_ino, st.st_size, st.st_mtime_ns))
    return Entry(str(base), (stamps[0], stamps[1]), (sums["pickle"][1], sums["arrays"][1]))


def _load(base: Path, key: dict[str, Any]) -> Prepared | None:
    """The entry at ``base`` when it matches ``key`` and both its files check out; else None
    (a debug line when it is there but damaged)."""

    try:
        meta = json.loads(base.with_suffix(".json").read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        log.debug("overlay cache: %s does not parse; rebuilding the entry", base)
        return None
    if not isinstance(meta, dict) or meta.get("key") != key:
        return None  # another town's extent, a changed source, rule or version: rebuilt
    try:
        with open(f"{base}.pickle", "rb") as p, open(f"{base}.arrays", "rb") as a:
            stamps, data, arrays = [], p.read(), None
            for fh, ext in ((p, "pickle"), (a, "arrays")):
                st = os.fstat(fh.fileno())
                stamps.append((st.st_ino, st.st_size, st.st_mtime_ns))
                if [st.st_size] != meta["files"][ext][:1]:
                    raise ValueError(f"its {ext} file is not the size its sidecar says")
            if zlib.crc32(data) != meta["files"]["pickle"][1]:
                raise ValueError("its pickle does not match its sidecar (rewritten?)")
            if stamps[1][1]:
                arrays = memoryview(mmap.mmap(a.fileno(), 0, access=mmap.ACCESS_READ))
                if zlib.crc32(arrays) != meta["files"]["arrays"][1]:
                    raise ValueError("its arrays do not match its sidecar (rewritten?)")
            overlays = off_the_main_arena(load_shared, data, arrays)
        crcs = (meta["files"]["pickle"][1], meta["files"]["arrays"][1])
        return Prepared(overlays, dict(meta["bases"]),
                        Entry(str(base), (stamps[0], stamps[1]), crcs))
    except FileNotFoundError:
        return None
    except Exception as exc:  # noqa: BLE001 - never an answer from a doubtful entry
        log.debug("overlay cache: entry %s is damaged (%s); rebuilding it", base, exc)
        return None


def _counts(overlays: Any) -> dict[str, int | None]:
    return {name: None if getattr(overlays, name) is None else len(getattr(overlays, name))
            for name in ("habitats", "sfha", "huc12", "huc10")}


# --------------------------------------------------------------------------- the workers
def shareable(overlays: Any, folder: str | None) -> Any:
    """What the workers should load for ``overlays``: where they were made from an entry and
    ``folder`` (the run's private folder) can hold its files, a :class:`FromEntry` (the entry's
    files linked there, or copied where a link cannot be made, and checked to be the ones
    loaded); else the overlays themselves."""
    entry = entry_of(overlays)
    if folder is None or entry is None:
        return overlays
    here = Path(folder) / "entry"
    try:
        for ext, stamp, crc in zip(("pickle", "arrays"), entry.stamps, entry.crcs, strict=True):
            _link_or_copy(f"{entry.base}.{ext}", f"{here}.{ext}", stamp, crc)
    except OSError as exc:  # rebuilt or cleared meanwhile, or a full disk: pickled as before
        log.debug("overlay cache: the workers get the overlays pickled (%s)", exc)
        for ext in ("pickle", "arrays"):
            with contextlib.suppress(OSError):
                os.unlink(f"{here}.{ext}")
        return overlays
    return FromEntry(str(here), per_run(overlays))


def entry_of(overlays: Any) -> Entry | None:
    """The entry ``overlays`` were made from in this process (:meth:`Prepared.for_run`), or
    None (prepared by the run, or made otherwise)."""
    held = _MADE_FROM.get(id(overlays))
    return held[1] if held is not None and held[0]() is overlays else None


def per_run(overlays: Any) -> dict[str, Any]:
    """The run's own fields of ``overlays`` (:data:`PER_RUN`), which an entry does not hold."""
    return {name: getattr(overlays, name) for name in PER_RUN}


def _link_or_copy(src: str, dst: str, stamp: tuple[int, int, int], crc: int) -> None:
    """``src`` at ``dst``: a hard link that must be the file loaded (its inode, size and time),
    else a copy that must hold the bytes loaded (their CRC-32); OSError otherwise."""
    from swm_gis.io import source_cache

    try:
        os.link(src, dst)
    except OSError:  # another file system, or none that links
        shutil.copyfile(src, dst)
        if source_cache.file_crc(Path(dst)) != crc:
            raise OSError(f"{src} changed since it was loaded") from None
        return
    st = os.stat(dst)
    if (st.st_ino, st.st_size, st.st_mtime_ns) != stamp:
        raise OSError(f"{src} changed since it was loaded")


def resolve(shared: Any) -> Any:
    """The overlays a worker loaded (:func:`shareable`'s answer, through the run's file): a
    :class:`FromEntry` loaded from the linked entry with the run's own fields."""
    if not isinstance(shared, FromEntry):
        return shared
    return dataclasses.replace(load_overlays(shared.base), **shared.per_run)


# --------------------------------------------------------------------------- the folder
def entries(root: Path) -> list[dict[str, Any]]:
    """The entries under a cache folder (the cache commands): ``bytes`` and the pieces
    and zones each holds (``counts``)."""
    from swm_gis.io import source_cache

    out = []
    for side in sorted((source_cache.sources_folder(root) / FOLDER).glob("*.json")):
        try:
            meta = json.loads(side.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            meta = {}
        size = sum(f.stat().st_size for f in (side, side.with_suffix(".pickle"),
                                              side.with_suffix(".arrays")) if f.exists())
        out.append({"bytes": size, "counts": meta.get("counts") if isinstance(meta, dict)
                    else None})
    return out


__all__ = ["CODE", "FOLDER", "FORMAT_VERSION", "LAYERS", "PER_RUN", "Entry", "FromEntry",
           "Prepared", "cache_key", "code_digest", "entries", "entry_of", "layer_key",
           "per_run", "plain", "prepared", "resolve", "shareable"]

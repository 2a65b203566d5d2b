"""The town-wide map's duplicate-id scan, kept between runs (issue 37).

Before any tile runs, the map reads every parcel id and finds those on more than one polygon
(:func:`swm_gis.applicability.tiles.duplicate_ids`: they are classified together in a last
tile). Statewide (2.4 million parcels, a GeoPackage) that is 0.3-0.4 s of reading and 0.6 s of
hashing, on one core while the other waits. The answer depends only on the parcels layer and
the id rule, so :func:`scanned` keeps it, a JSON list of ids, in the job's source cache folder
(under ``duplicates/``) and a later run with the same parcels reads it instead.

The key, and why the answer never changes
-----------------------------------------
The parcels layer as the config describes it (paths, layer, field mapping, several sources...),
the source cache's key of each of its files (paths, sizes and modification times in
nanoseconds, the readers' versions: :func:`~swm_gis.applicability.overlay_cache.layer_key`, the
prepared overlays' own key of a layer), the swm-gis version, the digest of the engine's modules
(:func:`swm_gis.applicability.overlay_cache.code_digest`: the id rule among them) and
:data:`FORMAT_VERSION`. A parcels layer that is not a local file (PostGIS, a URL), or a front
end's temporary copy (a new file each run), is scanned each time, as is every run with the
cache off. An entry that does not parse, or whose key or ids are not as written, is scanned
again and rewritten, never trusted. One entry per parcels layer, written to a temporary name and
renamed into place (two runs at once write the same answer). The cache commands count the
entries and clear them with the sources folder.

Parcels found valid
-------------------
A complete map whose tiles read every parcel and repaired none records so in the entry
(:func:`record_valid`: ``"valid"``, a list of :func:`valid_mark`, the working CRS and the GEOS
that judged them); a later map of the same parcels (the same key) in that CRS with that GEOS
skips GEOS's validity test in its tiles (:func:`known_valid`), 4 % of a statewide tile's CPU.
Missing and empty geometries are still dropped. A run that repaired any parcel records nothing,
so its parcels are tested, and repaired, every time; an entry rewritten forgets the mark.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

#: Raised whenever what an entry holds changes.
FORMAT_VERSION = 1
#: The entries' folder under the job's source cache folder.
FOLDER = "duplicates"


def scanned(config: Any, scan: Callable[[], list[str]]) -> list[str]:
    """The parcel ids on several polygons: the kept answer for this parcels layer when it is
    fresh, else ``scan()`` (kept, where the cache is on and the layer is a local file)."""
    from swm_gis.io import source_cache

    folder = source_cache.current_folder()
    key = cache_key(config) if folder is not None else None
    if key is None:
        return scan()
    path = _entry_path(folder, key)
    kept = _read(path, key)
    if kept is not None:
        return kept
    ids = scan()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        source_cache.write_json(path, {"key": key, "ids": ids})
    except OSError as exc:  # a folder that cannot be written: scanned each time, as before
        log.debug("id scan cache: cannot write %s (%s)", path, exc)
    return ids


def cache_key(config: Any) -> dict[str, Any] | None:
    """What an entry for this town's parcels must match; None when the layer (or a source of
    it) is not a local file or is a front end's temporary copy: nothing is kept."""
    from swm_gis._version import __version__
    from swm_gis.applicability.overlay_cache import code_digest, layer_key

    parcels = layer_key(config.layer("parcels"))
    if parcels is None:
        return None
    return {"format": FORMAT_VERSION, "swm_gis": __version__, "code": code_digest(), **parcels}


def _entry_path(folder: Path, key: dict[str, Any]) -> Path:
    """One entry per parcels layer (its description, not its files' times: a changed file
    rewrites the entry in place)."""
    ident = json.dumps(key["spec"], sort_keys=True)
    return folder / FOLDER / f"{hashlib.blake2b(ident.encode(), digest_size=16).hexdigest()}.json"


def _read(path: Path, key: dict[str, Any]) -> list[str] | None:
    entry = _entry(path, key)
    return None if entry is None else entry["ids"]


def _entry(path: Path, key: dict[str, Any]) -> dict[str, Any] | None:
    """The entry at ``path`` when it is for ``key`` and holds a sorted list of ids; else None."""
    try:
        stored = json.loads(path.read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        log.debug("id scan cache: %s does not parse (%s); scanning again", path, exc)
        return None
    if not isinstance(stored, dict) or stored.get("key") != key:
        return None  # changed parcels (or another version): scanned again
    ids = stored.get("ids")
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids) \
            or ids != sorted(set(ids)):
        log.debug("id scan cache: %s holds no sorted list of ids; scanning again", path)
        return None
    return stored


# --------------------------------------------------------------------------- valid parcels
def valid_mark(config: Any) -> str:
    """What an entry records for parcels found all valid: the working CRS they were read in
    and the GEOS that judged them (validity can change with either)."""
    import shapely

    return f"{config.crs}|GEOS {shapely.geos_version_string}"


def _found(config: Any) -> tuple[Path, dict[str, Any]] | None:
    from swm_gis.io import source_cache

    folder = source_cache.current_folder()
    key = cache_key(config) if folder is not None else None
    if key is None:
        return None
    path = _entry_path(folder, key)
    entry = _entry(path, key)
    return None if entry is None else (path, entry)


def known_valid(config: Any) -> bool:
    """Whether an earlier complete map of these parcels (the entry's key: the same files,
    layer, fields and engine) read every geometry and found it valid, in this working CRS with
    this GEOS (:func:`valid_mark`): its tiles then skip the validity test."""
    found = _found(config)
    marks = found[1].get("valid") if found else None
    return isinstance(marks, list) and valid_mark(config) in marks


def record_valid(config: Any) -> None:
    """Record in the parcels' entry that a complete map read every geometry and repaired none
    (nothing where there is no entry: the cache off, or not a local file)."""
    from swm_gis.io import source_cache

    found = _found(config)
    if found is None:
        return
    path, entry = found
    marks = entry.get("valid") if isinstance(entry.get("valid"), list) else []
    if valid_mark(config) in marks:
        return
    try:
        source_cache.write_json(path, {**entry, "valid": sorted({*map(str, marks),
                                                                 valid_mark(config)})})
    except OSError as exc:
        log.debug("id scan cache: cannot write %s (%s)", path, exc)


def entries(root: Path) -> int:
    """How many entries a cache folder holds (the cache commands)."""
    from swm_gis.io import source_cache

    return sum(1 for _ in (source_cache.sources_folder(root) / FOLDER).glob("*.json"))


__all__ = ["FOLDER", "FORMAT_VERSION", "cache_key", "entries", "known_valid", "record_valid",
           "scanned", "valid_mark"]

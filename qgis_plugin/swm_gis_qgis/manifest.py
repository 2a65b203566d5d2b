"""The engine's result manifest, as the algorithms read it.

The engine's last ``--progress json`` line carries ``"manifest"`` (the engine's
``swm_gis/schemas/manifest.schema.json``): every file it wrote with its ``role``, the
GeoPackages' layers, the counts, warnings, findings and the headline. The plugin takes its
outputs from it and never re-reads (or edits) the engine's files to recover a figure. An engine
that gives no manifest is too old for this plugin (:class:`EngineTooOld`).

No QGIS import (plain dicts), so it is tested on its own.

Examples
--------
>>> m = manifest_of({"manifest": {"version": 1, "out_dir": "/o", "files": [
...     {"key": "abutters_gpkg", "path": "/o/a.gpkg", "role": "layers", "format": "gpkg",
...      "title": "t", "layers": [{"name": "subject", "geometry": "polygon", "features": 1}]}],
...     "counts": {"abutting": 9}}})
>>> path_of(m, "layers"), path_of(m, "mailing_list"), layer_names(m)
('/o/a.gpkg', None, ['subject'])
"""

from __future__ import annotations

from typing import Any

#: The manifest versions this plugin reads.
VERSIONS = (1,)

TOO_OLD = ("The swm-gis engine reported its results without a result manifest (or in a version "
           "this plugin does not read), so it is too old for this plugin (the plugin never "
           "reads a figure from the engine's files). Reinstall the engine: run 'Set up the "
           "swm-gis engine' (Processing Toolbox > swm-gis > Set-up), which installs the engine "
           "this plugin carries, or set a newer swm-gis executable in Settings > Options > "
           "Processing > Providers > swm-gis.")


class EngineTooOld(Exception):
    """The engine's result line has no manifest this plugin reads."""


def manifest_of(result: dict[str, Any]) -> dict[str, Any]:
    """The manifest of the engine's result line; :class:`EngineTooOld` without one."""
    found = result.get("manifest") if isinstance(result, dict) else None
    if not isinstance(found, dict) or found.get("version") not in VERSIONS:
        raise EngineTooOld(TOO_OLD)
    return found


def entry(manifest: dict[str, Any], role: str) -> dict[str, Any] | None:
    """The first file of ``role`` (``"mailing_list"``, ``"layers"``, ...); None if none."""
    return next((f for f in manifest.get("files") or [] if f.get("role") == role), None)


def path_of(manifest: dict[str, Any], role: str) -> str | None:
    """The path of the file of ``role``; None when the engine wrote none."""
    found = entry(manifest, role)
    return str(found["path"]) if found else None


def layer_names(manifest: dict[str, Any], role: str = "layers") -> list[str]:
    """The layers of the GeoPackage of ``role``, as the engine wrote them."""
    found = entry(manifest, role) or {}
    return [str(la.get("name")) for la in found.get("layers") or []]


def count(manifest: dict[str, Any], name: str) -> int | float | None:
    """A count of the manifest; None (NULL, not 0) when the engine did not state it."""
    return (manifest.get("counts") or {}).get(name)

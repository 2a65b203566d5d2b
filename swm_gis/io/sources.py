"""Where a layer's data lives: provenance, existence, and the path GDAL opens.

Shared by the readers (:mod:`swm_gis.io.layers` for vectors, :mod:`swm_gis.io.rasters` for rasters):
a zip as published is opened in place through ``/vsizip/`` (:mod:`swm_gis.io.archives`), a database
connection is named without any password (:mod:`swm_gis.io.postgis`).
"""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass, field
from typing import Any

from swm_gis.config.town import LayerSpec, layer_key
from swm_gis.errors import InputFileError
from swm_gis.io import archives
from swm_gis.messages import references


@dataclass(frozen=True)
class Layer:
    """A frame as a reader made it, with where it came from and what the reading found.

    Provenance travels as this explicit record next to the frame, never in
    ``DataFrame.attrs`` (experimental in pandas, kept by some operations and dropped by others).
    The ``*_with_source`` readers of :mod:`swm_gis.io.layers` and
    :func:`swm_gis.io.inputs.read_input` return one; the plain readers return its ``frame``.

    Attributes
    ----------
    frame
        The rows read: a GeoDataFrame for a vector layer, a DataFrame for a table.
    source
        The provenance record outputs write (:func:`source_info`: ``key``, ``file``, ``layer``,
        ``modified``, a config ``label``, ``sources`` for several sources; a FILE argument's
        also ``repaired`` when geometries were).
    field_map
        Logical field -> the source field read (None where absent); the first source's for a
        layer of several.
    source_crs
        The source's CRS (e.g. ``"EPSG:4326"``) before reprojection; None for a table.
    repaired, dropped_empty
        Invalid geometries repaired with ``make_valid``, and features dropped for an empty
        geometry (summed over several sources).
    warnings
        What :func:`swm_gis.io.sanity.check_ids` found (e.g. a required field mostly empty).
    duplicates_across_sources
        Ids dropped because an earlier source of a several-source layer had them.
    wkb
        Asked for (``keep_wkb``): the source's WKB of each row of ``frame``, in order (an Arrow
        array), where the read left every geometry as it was (the source's CRS is the working
        one, nothing repaired or dropped); else None.
    """

    frame: Any
    source: dict[str, Any]
    field_map: dict[str, str | None] = field(default_factory=dict)
    source_crs: str | None = None
    repaired: int = 0
    dropped_empty: int = 0
    warnings: list[str] = field(default_factory=list)
    duplicates_across_sources: list[str] = field(default_factory=list)
    wkb: Any = None


def source_info(spec: LayerSpec) -> dict[str, Any]:
    """Where a layer came from: file (or connection), layer name and modification time (UTC).

    A config ``label`` is carried as ``label``: outputs print it instead of the file.

    A layer read from several sources also lists each one under ``sources``; a database
    connection is given without any password. A ``temporary`` layer (a front end's copy of the
    user's layer) is named by its label alone: no file, layer or date of the copy.

    >>> from swm_gis.config.town import LayerSpec
    >>> info = source_info(LayerSpec(key="site", path="/tmp/x/site.gpkg", layer="site",
    ...                              label="QGIS layer 'Sites' (1 selected feature)",
    ...                              temporary=True))
    >>> info["file"], info["layer"], info["modified"], info["label"], info["temporary"]
    (None, None, None, "QGIS layer 'Sites' (1 selected feature)", True)
    """
    if spec.temporary:
        return temporary_source(spec.key, spec.label)
    if spec.parts:
        parts = [source_info(p) for p in spec.parts]
        times = [p["modified"] for p in parts if p["modified"]]
        return _labelled({"key": spec.key, "file": spec.path, "layer": spec.layer,
                          "modified": max(times) if times else None, "sources": parts}, spec)
    modified = None
    if spec.is_file and os.path.exists(spec.path):
        ts = os.path.getmtime(spec.path)
        modified = dt.datetime.fromtimestamp(ts, tz=dt.UTC).isoformat(timespec="seconds")
    from swm_gis.io import postgis  # geopandas: not for the light callers of gdal_source

    file = postgis.redact(spec.path) if spec.is_postgis else spec.path
    return _labelled({"key": spec.key, "file": file, "layer": spec.layer, "modified": modified},
                     spec)


def temporary_source(key: str, label: str | None) -> dict[str, Any]:
    """The source record of a temporary copy a front end made (a ``temporary`` config layer, or
    a FILE input it labelled): its label alone, never the copy's file, layer or date."""
    return {"key": key, "file": None, "layer": None, "modified": None,
            "label": label or f"a temporary copy of the {key} layer", "temporary": True}


def _labelled(info: dict[str, Any], spec: LayerSpec) -> dict[str, Any]:
    """``info`` with the config's ``label`` (how outputs name the source), when it has one."""
    return {**info, "label": spec.label} if spec.label else info


def file_source_info(source: str) -> dict[str, Any]:
    """Provenance for a user-supplied FILE argument (``path`` or ``path.gpkg:layer``)."""
    path, layer = split_source(source)
    spec = LayerSpec(key="input", path=path, layer=layer)
    return source_info(spec)


def input_key(what: str) -> str:
    """The key of a user's input in a source record: the option's name when ``what`` names it
    by reference (``option("site", "FILE")`` -> ``"site"``), else ``what`` itself.

    >>> from swm_gis.messages import option
    >>> input_key(option("common_plan", "FILE")), input_key("site")
    ('common_plan', 'site')
    """
    names = [ref["option"] for ref in references(what) if "option" in ref]
    return names[0] if names else what


def split_source(source: str) -> tuple[str, str | None]:
    """Split ``path.gpkg:layer`` into path and layer; a plain path (or ``C:\\...``) has no layer."""
    source = str(source)
    head, sep, tail = source.rpartition(":")
    if sep and head and len(head) > 1 and os.path.exists(head) and not os.path.exists(source):
        return head, tail
    return source, None


def gdal_source(spec: LayerSpec) -> tuple[str, str | None]:
    """The path and layer GDAL opens: a zip as published is read in place (``/vsizip/``)."""
    if spec.is_file and archives.is_zip(spec.path):
        return archives.resolve_zip(spec.path, spec.layer, what=layer_key(spec.key, "path"))
    return spec.path, spec.layer


def check_exists(spec: LayerSpec, what: str | None = None) -> None:
    if spec.is_file and not os.path.exists(spec.path):
        label = what or layer_key(spec.key, "path")
        raise InputFileError(
            f"File not found: {spec.path} ({label}). Check the path; config paths are relative "
            "to the config file."
        )
    if spec.is_file and os.path.isfile(spec.path) and not os.access(spec.path, os.R_OK):
        raise InputFileError(f"File {spec.path} is not readable (permissions).")


def first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    text = text.splitlines()[0]
    if isinstance(exc, UnicodeDecodeError) or "codec can't decode" in text:
        return (f"the text is not UTF-8 ({text}); save it as UTF-8 (Excel: \"CSV UTF-8\") "
                "and run again")
    if "file is not a database" in text:  # GDAL quotes its SQL: say what it means instead
        return "it is not a GeoPackage (not an SQLite database; damaged or another format)"
    return text


__all__ = ["Layer", "check_exists", "file_source_info", "first_line", "gdal_source", "input_key",
           "source_info", "split_source", "temporary_source"]

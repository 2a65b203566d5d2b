"""The town config written by the engine (``swm-gis config write``, :func:`write_config`), and a
config as plain data (``swm-gis config show``, :func:`config_summary`).

A front end (the QGIS plugin, a script) hands the config as data: the same model as the TOML,
``{"town": {...}, "rules": {...}, "layers": {KEY: {...}}}``, e.g. from ``json.dumps``. It is
checked by the loader every command uses (:func:`swm_gis.config.town.parse_config`: unknown
keys, kinds, ranges, CRSs), each source is described as the jobs describe it (so a missing file
or a numeric column mapped to a text field such as the owner's name or ZIP code is refused
naming its key), and only then is the TOML written, atomically, through ``tomli_w``.

Examples
--------
>>> text = config_text({"town": {"name": "Demo"}, "layers": {"parcels": {"path": "p.gpkg"}}})
>>> print(text)
[town]
name = "Demo"
<BLANKLINE>
[layers.parcels]
path = "p.gpkg"
<BLANKLINE>
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import tomli_w

from swm_gis.config.town import TownConfig, load_config, parse_config
from swm_gis.errors import ConfigError
from swm_gis.io.layers import layer_info
from swm_gis.io.outputs import output_file
from swm_gis.io.rasters import is_raster


def read_config_data(source: str | os.PathLike | dict[str, Any], *, stdin: Any = None
                     ) -> dict[str, Any]:
    """A config as data: ``source`` itself (a dict), a JSON file, or ``"-"`` (``stdin``)."""
    if isinstance(source, dict):
        return source
    where = "standard input" if str(source) == "-" else str(source)
    try:
        text = stdin.read() if str(source) == "-" else Path(source).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"Cannot read the town config {where}: {exc}.") from exc
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ConfigError(f"The town config {where} is not valid JSON: {exc}.") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"The town config {where} must be a JSON object with the sections "
                          '"town" and "layers" (and "rules", ...), as the TOML has.')
    return data


def config_text(data: dict[str, Any], *, comment: str = "") -> str:
    """The TOML of ``data`` (no check), after ``comment`` as ``#`` lines and a blank line."""
    head = "".join(f"# {line}".rstrip() + "\n" for line in comment.splitlines())
    head += "\n" if head else ""
    try:
        return head + tomli_w.dumps(data)
    except TypeError as exc:  # a null or another value TOML has no word for
        raise ConfigError(f"The town config holds a value TOML cannot write: {exc}. Leave out "
                          "a key that has no value (JSON null).") from exc


def check_sources(cfg: TownConfig) -> None:
    """Describe every vector layer and table the config names, as the jobs do: a missing or
    unreadable source, or a numeric column mapped to a text field, is refused naming its key."""
    for spec in cfg.layers.values():
        kind = spec.schema.kind
        if kind == "raster" or (kind == "vector_or_raster" and is_raster(spec)):
            continue
        for part in spec.sources:
            layer_info(part)


def write_config(config: str | os.PathLike | dict[str, Any], out: str | os.PathLike, *,
                 overwrite: bool = False, comment: str = "") -> Path:
    """Check a town config given as data and write it as TOML.

    Parameters
    ----------
    config
        The config as data (the TOML's model: ``{"town": {...}, "layers": {KEY: {...}}}``), or
        a JSON file holding it. Its paths are relative to ``out``'s folder, as in the TOML.
    out
        The ``.toml`` file to write (atomically).
    overwrite
        Replace ``out`` when it exists (otherwise an existing file is refused).
    comment
        Lines written at the top of the file as TOML comments.

    Returns
    -------
    Path
        ``out``.

    Raises
    ------
    ConfigError
        A section, key, value or field mapping the loader refuses (named by its key), or a
        value TOML cannot hold.
    InputFileError
        A source that is missing or cannot be read.
    """
    data = read_config_data(config)
    out = Path(out)
    if out.suffix.lower() != ".toml":
        raise ConfigError(f"The town config to write ({out}) must be a .toml file.")
    cfg = parse_config(data, base_dir=out.resolve().parent, source=out)
    text = config_text(data, comment=comment)
    check_sources(cfg)
    sources = [p.path for spec in cfg.layers.values() for p in spec.sources]
    with output_file(out, inputs=sources, overwrite=overwrite,
                     command="swm-gis config write") as tmp:
        tmp.write_text(text, encoding="utf-8")
    return out


def config_summary(path: str | os.PathLike) -> dict[str, Any]:
    """A town config (TOML or JSON) as its loader reads it, as plain data for a front end: the
    town, its CRS and each layer's sources (resolved paths), layer names and field map."""
    cfg = load_config(path)
    layers = {}
    for key, spec in cfg.layers.items():
        layers[key] = {"sources": [{"path": p.path, "layer": p.layer} for p in spec.sources],
                       "fields": dict(spec.fields), "label": spec.label}
    return {"name": cfg.name, "crs": cfg.crs, "path": str(cfg.path), "layers": layers}

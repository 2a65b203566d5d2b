"""Where a town config's layers live: ``path`` / ``layer`` (one source or a list), paths
resolved against the config's folder, database connections recognised and refused when they carry
a password (README "Where layers may live").
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from swm_gis.errors import ConfigError
from swm_gis.messages import config_key


def with_sources(spec: Any, raw: dict, base_dir: Path, where: str) -> Any:
    """Fill in ``path``/``layer``: one source, or ``parts`` for ``path = [...]`` (README "Where
    layers may live").

    ``layer`` is one name for every source or a list with one name per source.
    """
    key = spec.key
    paths, layer = raw["path"], raw.get("layer")
    if isinstance(paths, list):
        if not paths or not all(isinstance(p, str) and p.strip() for p in paths):
            raise ConfigError(f"{where}: {layer_key(key, 'path')} = [...] must list one or "
                              "more file names or connections (text).")
    elif not isinstance(paths, str):
        raise ConfigError(f"{where}: {layer_key(key, 'path')} must be text or a list of "
                          "texts.")
    many = isinstance(paths, list)
    plist = paths if many else [paths]
    if isinstance(layer, list):
        if not many or len(layer) != len(plist) or not all(isinstance(v, str) for v in layer):
            raise ConfigError(
                f"{where}: {layer_key(key, 'layer')} = [...] needs one layer name per path "
                f"({len(plist)} path(s), {len(layer)} layer name(s))."
            )
        layers = layer
    elif layer is None or isinstance(layer, str):
        layers = [layer] * len(plist)
    else:
        raise ConfigError(f"{where}: {layer_key(key, 'layer')} must be text (or a list, one "
                          "per path).")
    for p in plist:
        _refuse_password(p, f"{where}: {layer_key(key, 'path')}")
    parts = tuple(replace(spec, path=resolve_path(str(p), base_dir), layer=lay)
                  for p, lay in zip(plist, layers, strict=True))
    if not many:
        return parts[0]
    return replace(spec, path=" + ".join(p.path for p in parts), parts=parts)


def layer_key(key: str, name: str = "") -> str:
    """A reference to the config section of layer ``key`` (``[layers.KEY]``) or to one ``name``
    in it (:func:`~swm_gis.messages.config_key`), for messages.

    >>> from swm_gis.messages import api_text
    >>> api_text(layer_key("parcels", "crs")), api_text(layer_key("parcels.fields", "id"))
    ('[layers.parcels] crs', '[layers.parcels.fields] id')
    """
    return config_key(f"layers.{key}", name)


def is_postgis_path(path: str) -> bool:
    """True for a PostgreSQL connection: a ``postgresql://`` / ``postgres://`` URL or ``PG:``."""
    return str(path).startswith(("PG:", "postgresql://", "postgres://"))


def _refuse_password(path: str, what: str) -> None:
    """A connection must not carry a password: outputs and logs record the path."""
    text = str(path)
    found = False
    if text.startswith(("postgresql://", "postgres://")):
        found = urlsplit(text).password is not None or "password=" in text.lower()
    elif text.startswith("PG:"):
        found = re.search(r"(^|[\s:])password\s*=", text, flags=re.IGNORECASE) is not None
    if found:
        raise ConfigError(
            f"{what} holds a database password. Remove it: swm-gis records sources in its "
            "outputs, so passwords come from the PGPASSWORD environment variable, ~/.pgpass or a "
            "pg_service.conf service (service=name), as for psql."
        )


def is_connection_string(path: str) -> bool:
    return is_postgis_path(path) or path.startswith(
        ("MSSQL:", "OCI:", "/vsicurl/", "http://", "https://"))


def resolve_path(path: str, base_dir: Path) -> str:
    if is_connection_string(path) or path.startswith("/vsi"):
        return path
    p = Path(path).expanduser()
    return str(p if p.is_absolute() else (base_dir / p).resolve())

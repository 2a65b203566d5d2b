"""Neighbouring towns' parcels and assessing tables as sources of their own (README "Town
configuration", docs/abutters.md "Across town lines").

Written as TOML arrays of tables after the town's own ``[layers.parcels]`` / ``[layers.assess]``::

    [[layers.parcels.sources]]
    path = "../peabody/M229TaxPar.shp"
    town = "Peabody"
    crs = "EPSG:26986"                 # only where the source declares none
    right_of_way = { field = "POLY_TYPE", values = ["ROW", "PRIV_ROW", "RAIL_ROW", "WATER"] }
    [layers.parcels.sources.fields]
    id = "LOC_ID"

Each source has its own path, layer, CRS, field mapping (defaults: the MassGIS names, as for the
town's own layer), right-of-way rule (parcels only; none unless stated) and town name (required).
The layer is then read as the town's own source(s) first (their town: the config's ``[town]
name``), then each neighbour's, every row carrying its ``source`` and ``source_town``; the
abutter list counts a row whose ``source_town`` is not the subject's as "in another town", and
the certification names the Assessors of each town for its rows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from swm_gis.config.layer_paths import with_sources
from swm_gis.config.strict import TABLE, TEXT, Kind, check_values
from swm_gis.errors import ConfigError
from swm_gis.messages import config_key

#: What the town config's own layer parsing makes of one source table's ``fields``, ``crs`` and
#: ``right_of_way``: ``(fields, explicit_fields, crs, rule)`` (``swm_gis.config.town``).
SourceFields = Callable[[str, dict, str, str], tuple[dict, frozenset, Any, Any]]

#: The layers that take ``[[layers.KEY.sources]]`` (the town's neighbours' data).
KEYS_WITH_SOURCES = ("parcels", "assess")
#: ``sources`` is an array of tables.
SOURCES = Kind("an array of tables (one per source, with path and town each)",
               lambda v: isinstance(v, list) and len(v) > 0
               and all(isinstance(t, dict) for t in v))
#: Keys of one ``[[layers.KEY.sources]]`` table.
SOURCE_KEYS: dict[str, Kind] = {"path": TEXT, "layer": TEXT, "crs": TEXT, "fields": TABLE,
                                "town": TEXT, "vintage": TEXT, "label": TEXT}
PARCEL_SOURCE_KEYS: dict[str, Kind] = {**SOURCE_KEYS, "right_of_way": TABLE}


def source_section(key: str, n: int) -> str:
    """How a message names the ``n``-th (1-based) source table of layer ``key``."""
    return f"{config_key(f'layers.{key}.sources')} (source {n})"


def fields_key(spec: Any, logical: str) -> str:
    """The config key that names ``logical``'s source field for this source, for messages: the
    layer's ``fields`` table, or its ``[[layers.KEY.sources]]`` table's (``right_of_way``'s
    field for the right-of-way rule's)."""
    if not spec.source_table:
        return config_key(f"layers.{spec.key}.fields", logical)
    if logical == "right_of_way":
        return f"{source_section(spec.key, spec.source_table)} right_of_way field"
    return (f"{config_key(f'layers.{spec.key}.sources.fields', logical)} (source "
            f"{spec.source_table})")


def with_town_sources(spec: Any, raw: dict, *, base_dir: Path, where: str, home_town: str,
                      source_fields: SourceFields) -> Any:
    """``spec`` with its ``[[layers.KEY.sources]]`` added as further parts (unchanged when it
    has none). The town's own part(s) come first, with ``town = home_town``."""
    given = raw.get("sources")
    if given is None:
        return spec
    if spec.key not in KEYS_WITH_SOURCES:
        raise ConfigError(f"{where}: {config_key(f'layers.{spec.key}')} takes no sources; only "
                          f"{', '.join(KEYS_WITH_SOURCES)} come from several towns.")
    own = tuple(replace(p, town=home_town) for p in spec.sources)
    extra = tuple(_source(spec, table, n, base_dir=base_dir, where=where,
                          source_fields=source_fields)
                  for n, table in enumerate(given, start=1))
    parts = (*own, *extra)
    return replace(spec, path=" + ".join(p.path for p in parts), parts=parts, town=home_town)


def _source(spec: Any, raw: dict, n: int, *, base_dir: Path, where: str,
            source_fields: SourceFields) -> Any:
    """One neighbour's source: its own path, layer, CRS, fields, right-of-way rule and town."""
    section = source_section(spec.key, n)
    check_values(raw, PARCEL_SOURCE_KEYS if spec.key == "parcels" else SOURCE_KEYS,
                 where=where, section=section)
    for needed, example in (("path", '"../peabody/M229TaxPar.shp"'), ("town", '"Peabody"')):
        if not raw.get(needed):
            raise ConfigError(f"{where}: {section} needs {needed} = {example}.")
    fields, explicit, crs, rule = source_fields(spec.key, raw, section, where)
    one = replace(spec, path=raw["path"], layer=raw.get("layer"), crs=crs, fields=fields,
                  explicit_fields=explicit, parts=(),
                  vintage=str(raw["vintage"]) if raw.get("vintage") else None,
                  label=str(raw["label"]).strip() or None if raw.get("label") else None,
                  town=raw["town"].strip(), right_of_way=rule, source_table=n)
    return with_sources(one, {"path": raw["path"], "layer": raw.get("layer")}, base_dir, where)


__all__ = ["KEYS_WITH_SOURCES", "fields_key", "PARCEL_SOURCE_KEYS", "SOURCES", "SOURCE_KEYS",
           "source_section", "with_town_sources"]

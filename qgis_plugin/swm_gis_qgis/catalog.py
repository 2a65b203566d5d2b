"""The logical layers of the town config (README "Town configuration") as Processing parameters.

Each logical layer has one UPPERCASE layer parameter and one field parameter per logical field,
defaulting to the published MassGIS / FEMA / USGS WBD / MassDEP field names. The engine owns the
schema: ``catalog_data.json`` beside this module is generated from it at build time
(``scripts/gen_plugin_catalog.py``, from ``swm_gis/tables/layer_schema.toml``), never edited by
hand; this module only reads it into the objects the algorithms use to map a QGIS layer and its
fields onto a ``[layers.KEY]`` section of the town config the engine writes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

#: The generated catalog data (scripts/gen_plugin_catalog.py).
DATA_FILE = Path(__file__).with_name("catalog_data.json")


@dataclass(frozen=True)
class FieldInput:
    logical: str  # logical field name in the town config ([layers.KEY.fields] LOGICAL = "...")
    param: str  # Processing parameter name
    default: str  # published source field name
    description: str
    required: bool = False  # the engine cannot work without it
    advanced: bool = True
    text: bool = False  # the engine refuses a numeric field here (owner, ZIP, ...)


@dataclass(frozen=True)
class LayerInput:
    key: str  # logical layer key ([layers.KEY])
    param: str
    description: str
    geometry: str  # polygon | line | point | any | table | raster | raster_or_polygon
    help: str
    fields: tuple[FieldInput, ...] = field(default_factory=tuple)


def load(path: Path = DATA_FILE) -> dict[str, LayerInput]:
    """The catalog in ``path``: layer key -> its parameters."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    return {key: LayerInput(key=key, param=raw["param"], description=raw["description"],
                            geometry=raw["geometry"], help=raw["help"],
                            fields=tuple(FieldInput(**f) for f in raw["fields"]))
            for key, raw in doc["layers"].items()}


CATALOG: dict[str, LayerInput] = load()

"""The logical layers of the town config (README "Town configuration") as Processing parameters,
and the engine's choices the dialogs offer.

Each logical layer has one UPPERCASE layer parameter and one field parameter per logical field,
defaulting to the published MassGIS / FEMA / USGS WBD / MassDEP field names. The engine owns the
schema: ``catalog_data.json`` beside this module is generated from it at build time
(``scripts/gen_plugin_catalog.py``, from ``swm_gis/tables/layer_schema.toml``), never edited by
hand; this module only reads it into the objects the algorithms use to map a QGIS layer and its
fields onto a ``[layers.KEY]`` section of the town config the engine writes.

:data:`CHOICES` holds the engine's lists a dialog offers before the engine runs (Avery sheets,
notice lists, orders of a mailing list, development types, the default regulation profile's
exemptions) and :data:`REGULATIONS` the bundled regulation profiles: no plugin module keeps a
copy of an engine table (``tests/plugin/test_catalog.py`` checks it).
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
    mailing: bool = False  # a mailing list needs it (asked for with the assessing table)


@dataclass(frozen=True)
class LayerInput:
    key: str  # logical layer key ([layers.KEY])
    param: str
    description: str
    geometry: str  # polygon | line | point | any | table | raster | raster_or_polygon
    help: str
    fields: tuple[FieldInput, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class Choice:
    """One option of an engine choice: the value the engine takes and the dialog's label."""

    value: str
    label: str
    citation: str = ""  # the regulation's section (exemptions)


def read(path: Path = DATA_FILE) -> dict:
    """The generated catalog data in ``path``."""
    return json.loads(path.read_text(encoding="utf-8"))


def load(path: Path = DATA_FILE, doc: dict | None = None) -> dict[str, LayerInput]:
    """The catalog in ``path`` (or ``doc``, as read): layer key -> its parameters."""
    doc = read(path) if doc is None else doc
    return {key: LayerInput(key=key, param=raw["param"], description=raw["description"],
                            geometry=raw["geometry"], help=raw["help"],
                            fields=tuple(FieldInput(**f) for f in raw["fields"]))
            for key, raw in doc["layers"].items()}


def load_choices(doc: dict) -> dict[str, tuple[Choice, ...]]:
    """The engine's choices in ``doc`` by kind (``label_templates``, ``notices``, ``sorts``,
    ``development``, ``exemptions``), each in the engine's order: the first is the default."""
    return {kind: tuple(Choice(**c) for c in items) for kind, items in doc["choices"].items()}


_DOC = read()
CATALOG: dict[str, LayerInput] = load(doc=_DOC)
#: The fields a mailing list needs, by layer (the engine schema's ``mailing`` flag): asked for
#: whenever the assessing table is given to an algorithm that makes a list.
MAILING_FIELDS: dict[str, tuple[str, ...]] = {
    key: needed for key, li in CATALOG.items()
    if (needed := tuple(f.logical for f in li.fields if f.mailing))}
CHOICES: dict[str, tuple[Choice, ...]] = load_choices(_DOC)
#: ``default``: the profile the engine applies when the config names none; ``bundled``: ids.
REGULATIONS: dict = _DOC["regulation"]
#: The screening's finding keys in the report's order, and the statuses a finding takes.
FINDING_KEYS: tuple[str, ...] = tuple(_DOC["findings"]["keys"])
FINDING_STATUSES: tuple[str, ...] = tuple(_DOC["findings"]["statuses"])


def values(kind: str) -> list[str]:
    """The engine's values of choice ``kind``, in order (the dialog's enum index -> value)."""
    return [c.value for c in CHOICES[kind]]


def labels(kind: str) -> list[str]:
    """The dialog's labels of choice ``kind``, in order."""
    return [c.label for c in CHOICES[kind]]

"""The town config's logical layers: kind, geometry, logical fields with their default source
field names, which fields must hold text, and the words a front end shows for each.

The schema is data (``swm_gis/tables/layer_schema.toml``); :data:`SCHEMAS` is what the config
loader checks ``[layers.KEY]`` and ``[layers.KEY.fields]`` against, and :func:`plugin_catalog`
is what ``scripts/gen_plugin_catalog.py`` writes for the QGIS plugin's parameters (the plugin
runs the engine out of process and cannot import it).

Examples
--------
>>> SCHEMAS["parcels"].fields["id"], SCHEMAS["assess"].required_fields
('LOC_ID', ('parcel_id', 'owner'))
>>> SCHEMAS["assess"].text_fields["zip"]
"the owner's ZIP code"
>>> is_numeric_dtype("int64"), is_numeric_dtype("object")
(True, False)
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Literal

from swm_gis.errors import ConfigError

LayerKind = Literal["vector", "table", "raster", "vector_or_raster"]

#: The data file the schema is read from (inside the package).
SCHEMA_FILE = "tables/layer_schema.toml"


@dataclass(frozen=True)
class FieldInfo:
    """One logical field as a front end shows it (``[KEY.fields.NAME]`` of the schema file)."""

    name: str
    default: str | None
    required: bool = False
    #: what the field holds, in words, when it must hold text ("the owner's ZIP code"); None:
    #: any kind
    text: str | None = None
    label: str = ""
    #: the QGIS plugin's Processing parameter ("" : the dialog does not offer the field)
    param: str = ""
    advanced: bool = True
    #: a mailing list needs it (the owner and the address lines): a front end that makes one
    #: asks for it whenever the assessing table is given
    mailing: bool = False


@dataclass(frozen=True)
class LayerSchema:
    """What a logical layer is: its kind, geometry and logical fields with their default names."""

    kind: LayerKind
    geometry: str | None
    fields: dict[str, str | None]  # logical name -> default source field (None: no default)
    required_fields: tuple[str, ...] = ()
    #: logical field -> its description (label, parameter, text kind)
    info: dict[str, FieldInfo] = field(default_factory=dict)
    label: str = ""
    help: str = ""
    param: str = ""
    #: the dialog's order of the logical fields (the schema's order where empty)
    dialog_order: tuple[str, ...] = ()

    @property
    def text_fields(self) -> dict[str, str]:
        """Logical fields that must hold text -> what they hold, in words."""
        return {k: f.text for k, f in self.info.items() if f.text}


def _field(name: str, raw: dict[str, Any]) -> FieldInfo:
    return FieldInfo(name=name, default=raw.get("default") or None,
                     required=bool(raw.get("required", False)), text=raw.get("text"),
                     label=raw.get("label", ""), param=raw.get("param", ""),
                     advanced=bool(raw.get("advanced", True)),
                     mailing=bool(raw.get("mailing", False)))


def read_schemas(text: str) -> dict[str, LayerSchema]:
    """The layer schemas of a schema file's ``text`` (see ``swm_gis/tables/layer_schema.toml``)."""
    doc = tomllib.loads(text)
    out: dict[str, LayerSchema] = {}
    for key, raw in doc.items():
        fields_raw = doc[raw["fields_like"]]["fields"] if "fields_like" in raw \
            else raw.get("fields", {})
        info = {name: _field(name, f) for name, f in fields_raw.items()}
        out[key] = LayerSchema(
            kind=raw["kind"], geometry=raw.get("geometry"),
            fields={name: f.default for name, f in info.items()},
            required_fields=tuple(name for name, f in info.items() if f.required),
            info=info, label=raw.get("label", ""), help=raw.get("help", ""),
            param=raw.get("param", ""), dialog_order=tuple(raw.get("dialog_order", ())))
    return out


#: Logical layers of the town config (README "Town configuration") with their default
#: (published) source field names.
SCHEMAS: dict[str, LayerSchema] = read_schemas(
    resources.files("swm_gis").joinpath(SCHEMA_FILE).read_text(encoding="utf-8"))

#: The assessing table's logical fields (MassGIS L3 names); a unit-owner table has the same.
#: MassGIS L3: OWN_CO is the owner's COUNTRY; the standard has no co-owner field.
ASSESS_FIELDS: dict[str, str | None] = SCHEMAS["assess"].fields


# --------------------------------------------------------------------------- field kinds
def is_numeric_dtype(dtype: Any) -> bool:
    """Whether a source column's dtype (as ``pyogrio.read_info`` gives it) holds numbers."""
    return str(dtype).lower().startswith(("int", "uint", "float"))


def field_kind_problem(spec: Any, fields: list[str], dtypes: list[Any]) -> str | None:
    """Why a source's field mapping cannot be read, for a text field mapped to a numeric source
    column (an owner's name or ZIP code read as a number: labels addressed to "0", "01940"
    printed 1940); None when every text field maps to text (or is absent).

    ``spec`` is a :class:`~swm_gis.config.town.LayerSpec`; ``fields`` and ``dtypes`` are the
    source's columns and their dtypes.
    """
    from swm_gis.config.layer_sources import fields_key  # beside LayerSpec, no cycle

    kinds = {str(f).lower(): (str(f), str(d)) for f, d in zip(fields, dtypes, strict=False)}
    for logical, what in spec.schema.text_fields.items():
        wanted = spec.fields.get(logical)
        actual = kinds.get(wanted.lower()) if wanted else None
        if actual is None or not is_numeric_dtype(actual[1]):
            continue
        name, dtype = actual
        zeros = (' (a number loses its leading zeros: "01940" becomes 1940)'
                 if logical == "zip" else "")
        return (f"{what[0].upper()}{what[1:]} must be text{zeros}, but "
                f'{fields_key(spec, logical)} = "{name}" names a numeric field ({dtype}) of '
                f"{spec.describe()}. Name a text field there, or store {name} as text in the "
                "source.")
    return None


def check_field_kinds(spec: Any, info: dict[str, Any]) -> dict[str, Any]:
    """``info`` (a source's description: fields, dtypes), refused (exit code 2) where a text
    field of ``spec`` maps to a numeric column (:func:`field_kind_problem`)."""
    if "dtypes" in info and spec.schema.text_fields:
        problem = field_kind_problem(spec, list(info["fields"]), list(info["dtypes"]))
        if problem:
            raise ConfigError(problem)
    return info


# --------------------------------------------------------------------------- front ends
#: The plugin's word for a layer's geometry: (kind, geometry) -> what its parameter accepts.
_DIALOG_GEOMETRY = {"table": "table", "raster": "raster", "vector_or_raster": "raster_or_polygon"}


def plugin_catalog() -> dict[str, Any]:
    """The layers a front end offers (those with a ``param``) with their parameters, labels,
    help, default fields and which fields are required or must be text: the QGIS plugin's
    catalog data (``scripts/gen_plugin_catalog.py`` writes it)."""
    layers = {}
    for key, schema in SCHEMAS.items():
        if not schema.param:
            continue
        order = schema.dialog_order or tuple(schema.info)
        layers[key] = {
            "param": schema.param, "description": schema.label,
            "geometry": _DIALOG_GEOMETRY.get(schema.kind, schema.geometry or "any"),
            "help": schema.help,
            "fields": [{"logical": f.name, "param": f.param, "default": f.default or "",
                        "description": f.label, "required": f.required,
                        "advanced": f.advanced, "text": bool(f.text),
                        "mailing": f.mailing}
                       for f in (schema.info[name] for name in order) if f.param]}
    return {"_note": f"Generated from swm_gis/{SCHEMA_FILE} by scripts/gen_plugin_catalog.py; "
                     "do not edit.", "layers": layers}

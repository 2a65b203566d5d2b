"""Say the engine's messages in the dialog's words.

The engine speaks to a command-line user; in QGIS the user sees parameter *labels*, the config is
one the plugin wrote, and the files the engine read are temporary exports of the user's layers.
The engine's ``--progress json`` error events carry the message as *parts*: plain text and
references (``{"option": "site", "metavar": "FILE"}``, ``{"key": "layers.parcels.fields",
"name": "id"}``, ``{"config": ""}``). :func:`dialog_text` words each reference in the dialog's
terms and returns one short paragraph:

* an option becomes the label of the parameter that feeds it (:data:`OPTION_PARAMS`);
* a config section or key becomes the label of the layer or field parameter the plugin filled it
  from (or, with the user's own town config, the key as the TOML reads, "in the town config");
* the town config becomes "the dialog" (or "the town config" when the user gave theirs);
* a path of a temporary export becomes the QGIS layer it came from, any other path in the run's
  temporary folder is dropped;
* parameter ids (``SUBJECT``, ``OUTPUT_FOLDER``) become their labels.

Plain strings are used as they are (no pattern matching): the engine names what the user set by
reference. No QGIS import, no swm_gis import (the engine runs in its own process): it works on
plain strings, lists and dicts so it can be tested on its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .catalog import CATALOG

#: The run's own town config in its temporary folder (the workspace writes it): a refusal that
#: names it is about the dialog's parameters, so the name is left out.
RUN_CONFIG = "town.json"

#: Engine option (a name of the engine's ``messages.OPTIONS``) -> the plugin parameters that feed
#: it (the first one the running algorithm has is named).
OPTION_PARAMS: dict[str, tuple[str, ...]] = {
    "site": ("SITE", "SUBJECT"),
    "parcels": ("SUBJECT",),
    "common_plan": ("COMMON_PLAN",),
    "mitigation": ("MITIGATION",),
    "proposed_impervious_sqft": ("PROPOSED_IMPERVIOUS_SQFT",),
    "proposed_impervious": ("PROPOSED_IMPERVIOUS",),
    "removed_impervious": ("REMOVED_IMPERVIOUS",),
    "exemptions": ("EXEMPTIONS",),
    "development": ("DEVELOPMENT",),
    "roadway_maintenance": ("ROADWAY_MAINTENANCE",),
    "received": ("RECEIVED",),
    "proposed_use": ("PROPOSED_USE",),
    "distance": ("DISTANCE",),
    "notice": ("NOTICE",),
    "sort": ("SORT",),
    "include_subject": ("INCLUDE_SUBJECT",),
    "label_template": ("LABEL_TEMPLATE",),
    "label_offset": ("LABEL_OFFSET",),
    "sender": ("SENDER",),
    "config": ("TOWN_CONFIG",),
    "out": ("OUTPUT_FOLDER", "OUTPUT_GPKG"),
    "overwrite": ("OUTPUT_FOLDER", "OUTPUT_GPKG"),
    "engine": ("ENGINE",),
    "scheduler": ("SCHEDULER",),
}

#: Longest useful message: a list of hundreds of ids helps nobody.
MAX_CHARS = 600

#: Characters that end a path in a message.
_PATH_END = " \t\n'\"(),;"


def param_labels(definitions) -> dict[str, str]:
    """Parameter id -> the label the dialog shows, from QgsProcessingParameterDefinition objects
    (or anything with ``name()`` and ``description()``)."""
    return {d.name(): d.description() for d in definitions}


def field_label(layer_key: str, logical: str, labels: Mapping[str, str]) -> str | None:
    li = CATALOG.get(layer_key)
    if li is None:
        return None
    for f in li.fields:
        if f.logical == logical:
            return labels.get(f.param, f.description)
    return None


def layer_label(layer_key: str, labels: Mapping[str, str]) -> str | None:
    li = CATALOG.get(layer_key)
    if li is None:
        return None
    return labels.get(li.param, li.description)


def _quote(label: str) -> str:
    return f"'{label}'"


def option_text(name: str, labels: Mapping[str, str]) -> str:
    """The engine option ``name`` as the dialog names it: the label of its parameter."""
    for param in OPTION_PARAMS.get(name, ()):
        if param in labels:
            return _quote(labels[param])
    return name.replace("_", " ")


def toml_text(section: str, name: str = "") -> str:
    """A config key as the TOML reads: ``[layers.parcels.fields] id``."""
    return f"[{section}] {name}" if name else f"[{section}]"


def key_text(section: str, name: str, labels: Mapping[str, str], *,
             user_config: bool = False, where: bool = True) -> str:
    """The config key ``[section] name`` as the dialog names it: the layer or field parameter
    the plugin filled it from; with the user's own town config, the key in it (``where``:
    saying "in the town config", when the message does not say where)."""
    if user_config:
        return toml_text(section, name) + (" in the town config" if where else "")
    if (section, name) == ("town", "regulation") and labels.get("REGULATION"):
        return _quote(labels["REGULATION"])  # its value follows (' = "id"')
    layer, _, rest = section.removeprefix("layers.").partition(".")
    if section.startswith("layers.") and rest == "fields":
        label = field_label(layer, name, labels) if name else None
        if label:
            return f"the parameter {_quote(label)}"
        label = layer_label(layer, labels)
        if label:
            return f"the field parameters of {_quote(label)}"
    elif section.startswith("layers.") and not rest:
        label = layer_label(layer, labels)
        if label:
            return _quote(label)
    return toml_text(section, name)


def parts_text(parts: Sequence, labels: Mapping[str, str], *, user_config: bool = False) -> str:
    """The engine's message ``parts`` (strings and references) in the dialog's words."""
    out: list[str] = []
    for at, part in enumerate(parts):
        if isinstance(part, str):
            if out and out[-1].startswith("the parameter '") and part.startswith(' = "'):
                part = part[part.find('"', 4) + 1:]  # 'Set <the field> = "<field name>"'
            if not user_config and not out:
                part = part.removeprefix(f"the town config {RUN_CONFIG}: ")
            out.append(part)
        elif not isinstance(part, Mapping):
            out.append(str(part))
        elif "option" in part:
            out.append(option_text(str(part["option"]), labels))
        elif "key" in part:
            after = parts[at + 1] if at + 1 < len(parts) else ""
            says_where = isinstance(after, str) and after.startswith(" in ")
            out.append(key_text(str(part["key"]), str(part.get("name") or ""), labels,
                                user_config=user_config, where=not says_where))
        elif "config" in part:
            out.append("the town config" if user_config else "the dialog")
    return "".join(out)


def dialog_text(message: str, labels: Mapping[str, str], *, parts: Sequence | None = None,
                exports: Mapping[str, str] | None = None, temp_root: str | None = None,
                user_config: bool = False, ids: bool = True,
                limit: int | None = MAX_CHARS) -> str:
    """``message`` in the dialog's words, as one paragraph of at most ``limit`` characters
    (:data:`MAX_CHARS`; None: whole, for text outputs and findings, which are never cut).

    Parameters
    ----------
    message
        The engine's (or the plugin's own) message; used when ``parts`` is not given.
    labels
        Parameter id -> label of the running algorithm (:func:`param_labels`).
    parts
        The engine's message as plain text and references (its error event's ``"parts"``).
    exports
        Path of a temporary export -> how to name it (e.g. "layer 'Parcels'").
    temp_root
        The run's temporary folder: any other path under it is dropped.
    user_config
        The user chose a town config file: "the town config" then means theirs.
    ids
        Also turn parameter ids into labels (not for data values such as "HUC10").

    Examples
    --------
    >>> dialog_text("", {"COMMON_PLAN": "Common plan"},
    ...             parts=["no ", {"option": "common_plan", "metavar": "FILE"}, " given"])
    "no 'Common plan' given"
    """
    text = parts_text(parts, labels, user_config=user_config) if parts else str(message)
    for path, name in sorted((exports or {}).items(), key=lambda kv: -len(kv[0])):
        if path:
            text = _replace_path(text, path, name)
    if temp_root:
        text = _replace_path(text, temp_root, "the temporary copy", prefix=True)
        text = text.replace(" in the temporary copy", "")
    if not user_config:
        for said in ("in the town config", "in the config", "to the town config",
                     "to the config"):
            text = text.replace(said, said.split()[0] + " the dialog")
    if ids:
        text = _ids_to_labels(text, labels)
    text = " ".join(text.split())
    return text if limit is None else shorten(text, limit)


def _replace_path(text: str, path: str, name: str, *, prefix: bool = False) -> str:
    """Each ``path`` in ``text`` (with a ``:layer`` or ``|layername=layer`` suffix; with
    ``prefix``, any path that starts with it) as ``name``."""
    out, i = [], 0
    while (at := text.find(path, i)) >= 0:
        end = at + len(path)
        if prefix:
            while end < len(text) and text[end] not in _PATH_END:
                end += 1
            while end > at + len(path) and text[end - 1] in ".:":  # a sentence's end
                end -= 1
        else:
            end = _skip_layer_suffix(text, end)
        out.append(text[i:at] + name)
        i = end
    return "".join(out) + text[i:]


def _skip_layer_suffix(text: str, end: int) -> int:
    for lead in ("|layername=", ":"):
        if text.startswith(lead, end):
            stop = end + len(lead)
            while stop < len(text) and (text[stop].isalnum() or text[stop] == "_"):
                stop += 1
            if stop > end + len(lead):
                return stop
    return end


#: How a message names each table of the owner join, and the ids of the other table.
_JOIN_TABLES = {"parcels": ("The parcels' field", "assessing ids"),
                "assess": ("The assessing table's field", "parcel ids")}


def join_text(join: Mapping) -> str:
    """The engine's owner join (``data validate``'s ``"owner_join"``, an ``OwnerJoinError``'s
    details) in a sentence: '535 of 13,104 parcels that can have an owner (4.1 %) have an
    owner record in the assessing table'.

    >>> join_text({"joined": 3, "ownable": 4})
    '3 of 4 parcels that can have an owner (75.0 %) have an owner record in the assessing table'
    """
    joined, ownable = int(join.get("joined") or 0), int(join.get("ownable") or 0)
    share = f" ({100 * joined / ownable:.1f} %)" if ownable else ""
    return (f"{joined:,} of {ownable:,} parcels that can have an owner{share} have an owner "
            "record in the assessing table")


def join_hint(join: Mapping, labels: Mapping[str, str], *, user_config: bool = False) -> str:
    """The field that would join (the engine's ``fields_that_join``, best first) as the dialog
    says it: the field parameter to choose it in, or with the user's own town config the key
    to set in it; '' when the engine found none.

    >>> join_hint({"fields_that_join": [{"table": "parcels", "field": "ML", "holds": 535,
    ...            "key": "layers.parcels.fields", "name": "id"}]}, {})
    "The parcels' field ML holds 535 of the assessing ids: choose it in 'Parcel id field'."
    """
    found = [f for f in join.get("fields_that_join") or () if isinstance(f, Mapping)]
    if not found:
        return ""
    best = found[0]
    table, ids = _JOIN_TABLES.get(str(best.get("table")), ("The field", "ids"))
    said = f"{table} {best.get('field')} holds {int(best.get('holds') or 0):,} of the {ids}"
    section, name = str(best.get("key") or ""), str(best.get("name") or "")
    if user_config:
        return f'{said}: set {toml_text(section, name)} = "{best.get("field")}" in the town config.'
    layer = section.removeprefix("layers.").partition(".")[0]
    label = field_label(layer, name, labels)
    return f"{said}: choose it in {_quote(label) if label else toml_text(section, name)}."


#: Parameter ids that are also words of the data (a HUC12 code, an ORW): never replaced.
DOMAIN_WORDS = frozenset({"HUC12", "HUC10", "ORW", "DEM", "JSON"})


def _is_word_char(c: str) -> bool:
    return c.isalnum() or c in "_'"


def _ids_to_labels(text: str, labels: Mapping[str, str], *, fmt: str = "'{}'") -> str:
    names = sorted((n for n in labels if n.isupper() and len(n) > 2 and n not in DOMAIN_WORDS),
                   key=len, reverse=True)
    if not names:
        return text
    out, i = [], 0
    while i < len(text):
        found = None
        if i == 0 or not _is_word_char(text[i - 1]):
            found = next((n for n in names if text.startswith(n, i)
                          and (i + len(n) == len(text) or not _is_word_char(text[i + len(n)]))),
                         None)
        if found:
            out.append(fmt.format(labels[found]))
            i += len(found)
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def help_text(text: str, labels: Mapping[str, str]) -> str:
    """Help (HTML) with parameter ids shown as the labels the dialog shows, in bold."""
    return _ids_to_labels(text, labels, fmt="<b>{}</b>")


def shorten(text: str, limit: int = MAX_CHARS) -> str:
    """At most about ``limit`` characters when ``text`` is a long list: cut at a comma with the
    count left out ("... and 2,400 more."). Any other text is kept whole: never cut mid-word."""
    if len(text) <= limit:
        return text
    head = text[:limit - 20]  # room for " and N more."
    cut = head.rfind(", ")
    if cut > limit // 2:
        rest = text[cut + 2:].count(", ") + 1
        return head[:cut] + f" and {rest} more."
    return text


"""Say the engine's messages in the dialog's words.

The engine speaks to a command-line user: ``--common-plan``, ``[layers.parcels.fields] id``,
``set ... in town.toml``, paths of the files it read. In QGIS those files are temporary exports
of the user's layers, the config is one the plugin wrote, and the user sees parameter *labels*,
never ids. :func:`dialog_text` rewrites a message into one short paragraph in the dialog's terms:

* a command-line flag becomes the label of the parameter that feeds it;
* a config section or key (``[layers.assess.fields] owner``) becomes the layer or field
  parameter's label;
* a path of a temporary export becomes the QGIS layer it came from, any other path in the run's
  temporary folder is dropped;
* parameter ids (``SUBJECT``, ``OUTPUT_FOLDER``) become their labels.

No QGIS import: it works on plain strings and dicts so it can be tested on its own.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from .catalog import CATALOG

#: Engine flag -> the plugin parameter that feeds it (the first one the algorithm has).
FLAG_PARAMS: dict[str, tuple[str, ...]] = {
    "--site": ("SITE", "SUBJECT"),
    "--common-plan": ("COMMON_PLAN",),
    "--mitigation": ("MITIGATION",),
    "--proposed-impervious-sqft": ("PROPOSED_IMPERVIOUS_SQFT",),
    "--proposed-impervious": ("PROPOSED_IMPERVIOUS",),
    "--exemption": ("EXEMPTIONS",),
    "--development": ("DEVELOPMENT",),
    "--roadway-maintenance": ("ROADWAY_MAINTENANCE",),
    "--parcel": ("SUBJECT",),
    "--distance": ("DISTANCE",),
    "--include-subject": ("INCLUDE_SUBJECT",),
    "--label-template": ("LABEL_TEMPLATE",),
    "--label-offset": ("LABEL_OFFSET",),
    "--sender": ("SENDER",),
    "--config": ("TOWN_CONFIG",),
    "--out": ("OUTPUT_FOLDER", "OUTPUT_GPKG"),
    "--engine": ("ENGINE",),
    "--scheduler": ("SCHEDULER",),
}

#: Longest useful message: a list of hundreds of ids helps nobody.
MAX_CHARS = 600

_FLAG = re.compile(r"--[a-z][a-z0-9-]*(?:\s+(?:FILE|DIR|ID|PATH|N|VALUE)\b)?")
_FIELD_KEY = re.compile(r"\[?layers\.([a-z0-9_]+)\.fields\]?\s*\.?\s*([a-z0-9_]+)?"
                        r"(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|\S+))?")
_LAYER_KEY = re.compile(r"\[?layers\.([a-z0-9_]+)\]?(?:\s+(?:path|layer|crs)\b)?")
_SPEC = re.compile(r"\s*\(?\bSPEC section \d+\)?")
_TMP_PATH = re.compile(r"(?:[A-Za-z]:)?[/\\][^\s'\"()]*processing_[^\s'\"()]*[^\s'\"().,;:]")


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


def dialog_text(message: str, labels: Mapping[str, str], *,
                exports: Mapping[str, str] | None = None, temp_root: str | None = None,
                user_config: bool = False, ids: bool = True,
                limit: int | None = MAX_CHARS) -> str:
    """``message`` in the dialog's words, as one paragraph of at most ``limit`` characters
    (:data:`MAX_CHARS`; None: whole, for text outputs and findings, which are never cut).

    Parameters
    ----------
    message
        The engine's (or the plugin's own) message.
    labels
        Parameter id -> label of the running algorithm (:func:`param_labels`).
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
    >>> dialog_text("no --common-plan given", {"COMMON_PLAN": "Common plan"})
    "no 'Common plan' given"
    """
    text = str(message)
    for path, name in sorted((exports or {}).items(), key=lambda kv: -len(kv[0])):
        if path:
            text = re.sub(re.escape(path) + r"(?::[A-Za-z0-9_]+|\|layername=[A-Za-z0-9_]+)?",
                          name, text)
    text = _FIELD_KEY.sub(lambda m: _field_sub(m, labels), text)
    text = _LAYER_KEY.sub(lambda m: _layer_sub(m, labels), text)
    text = _FLAG.sub(lambda m: _flag_sub(m, labels), text)
    text = _SPEC.sub("", text)
    if temp_root:
        text = re.sub(re.escape(temp_root) + r"(?:[^\s'\"(),;]*[^\s'\"(),;.:])?",
                      "the temporary copy", text)
    text = _TMP_PATH.sub("the temporary copy", text)
    text = re.sub(r"\s+in the temporary copy\b", "", text)
    if not user_config:
        text = re.sub(r"\b(in|to) the (town )?config\b", r"\1 the dialog", text)
    if ids:
        text = _ids_to_labels(text, labels)
    text = " ".join(text.split())
    return text if limit is None else shorten(text, limit)


def _field_sub(m: re.Match, labels: Mapping[str, str]) -> str:
    key, logical = m.group(1), m.group(2)
    if logical:
        label = field_label(key, logical, labels)
        if label:
            return f"the parameter {_quote(label)}"
    label = layer_label(key, labels)
    return f"the field parameters of {_quote(label)}" if label else m.group(0)


def _layer_sub(m: re.Match, labels: Mapping[str, str]) -> str:
    label = layer_label(m.group(1), labels)
    return _quote(label) if label else m.group(0)


def _flag_sub(m: re.Match, labels: Mapping[str, str]) -> str:
    flag = m.group(0).split()[0]
    for name in FLAG_PARAMS.get(flag, ()):
        if name in labels:
            return _quote(labels[name])
    return flag.lstrip("-").replace("-", " ")


#: Parameter ids that are also words of the data (a HUC12 code, an ORW): never replaced.
DOMAIN_WORDS = frozenset({"HUC12", "HUC10", "ORW", "DEM", "JSON"})


def _ids_to_labels(text: str, labels: Mapping[str, str], *, fmt: str = "'{}'") -> str:
    names = sorted((n for n in labels if n.isupper() and len(n) > 2 and n not in DOMAIN_WORDS),
                   key=len, reverse=True)
    if not names:
        return text
    pattern = re.compile(r"(?<![A-Za-z0-9_'])(" + "|".join(map(re.escape, names))
                         + r")(?![A-Za-z0-9_'])")
    return pattern.sub(lambda m: fmt.format(labels[m.group(1)]), text)


def help_text(text: str, labels: Mapping[str, str]) -> str:
    """Help (HTML) with parameter ids shown as the labels the dialog shows, in bold."""
    return _ids_to_labels(text, labels, fmt="<b>{}</b>")


def shorten(text: str, limit: int = MAX_CHARS) -> str:
    """At most ``limit`` characters: a long list is cut at a comma with the count left out."""
    if len(text) <= limit:
        return text
    head = text[:limit - 20]  # room for " and N more."
    cut = head.rfind(", ")
    if cut > limit // 2:
        rest = text[cut + 2:].count(", ") + 1
        return head[:cut] + f" and {rest} more."
    return head.rstrip() + "..."


def has_cli_language(text: str) -> bool:
    """True when ``text`` still holds a command-line flag or a temporary processing path."""
    return bool(re.search(r"(?<![\w-])--[a-z]", text) or "/tmp/processing_" in text
                or "processing_" in text and "swm_gis_" in text)

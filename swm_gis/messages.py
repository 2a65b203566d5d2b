"""Messages that name what the user set by reference, so each front end words them its own way.

An error about an option or a config key does not spell a command-line flag or a dialog label:
it holds a *reference*, and the front end that shows the message words it — the command line as
its flag with the kind of value it takes, the QGIS plugin as the label of the dialog parameter
that feeds it, Python as the keyword argument (``site=``). The core speaks no front end's language.

A reference is built with :func:`option` (a job's option, by its Python keyword name),
:func:`config_key` (a section or key of the town config) or :func:`town_config` (the town config
file itself), and placed in the message like any other text::

    raise ArgumentError(f"Give the subject by {option('parcels', 'ID')} or by "
                        f"{option('site', 'FILE')}, not both.")

The message then holds plain text and references (:func:`parts`); :func:`render` words it with
a front end's vocabulary, and :func:`api_text` with Python's (what ``str(error)`` reads).
Documents (findings, reports, warnings) never hold references: they are read by the Commission
whichever front end ran the job, so they name inputs in words ("the common plan of development").

Examples
--------
>>> text = f"no {option('common_plan', 'FILE')} given; set {config_key('layers.impervious')}"
>>> api_text(text)
'no common_plan= given; set [layers.impervious]'
>>> [p if isinstance(p, str) else p.get("option", p.get("key")) for p in parts(text)]
['no ', 'common_plan', ' given; set ', 'layers.impervious']
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["OPTIONS", "SWITCHES", "Templated", "api_text", "api_words", "config_key", "option",
           "key_text", "parts", "references", "render", "town_config"]

#: The jobs' options, by their Python keyword names (``swm_gis.screen(site=...)``), with what
#: each is in words. Every front end words each of them (tests check the command line's and
#: the plugin's vocabularies cover this table).
OPTIONS: dict[str, str] = {
    "config": "the town config",
    "site": "the project site (limit of disturbance)",
    "parcels": "the subject parcel id(s)",
    "common_plan": "the common plan of development",
    "development": "the development type",
    "proposed_impervious": "the proposed impervious surfaces",
    "proposed_impervious_sqft": "the proposed impervious area",
    "removed_impervious": "the existing impervious cover removed",
    "mitigation": "the candidate mitigation sites",
    "exemptions": "the claimed exemptions",
    "roadway_maintenance": "the roadway maintenance claim",
    "received": "the date the application was received",
    "proposed_use": "the proposed land use",
    "distance": "the abutter distance",
    "notice": "the notice list (the board's definition)",
    "sort": "the order of the list",
    "include_subject": "listing the subject's own owners",
    "wpa_pond_extension": "the Wetlands Protection Act pond extension",
    "sender": "the return address",
    "max_abutters": "the most abutters to write",
    "label_template": "the label sheet",
    "label_offset": "the label offset",
    "out": "the output",
    "overwrite": "replacing existing outputs",
    "engine": "the applicability engine",
    "chunk_size": "the tile size",
    "scheduler": "the Dask scheduler",
    "workers": "the number of worker processes",
    "source": "the applicability GeoPackage to publish",
    "simplify_ft": "the web map's simplification",
    "cache": "the cache (parsed sources, flow grid)",
}

#: Options that are yes/no: Python says ``overwrite=True``.
SWITCHES: dict[str, str] = {"include_subject": "True", "overwrite": "True",
                            "roadway_maintenance": "True", "wpa_pond_extension": "True",
                            "cache": "False"}

_OPEN, _CLOSE, _SEP = "\u27e8", "\u27e9", "\u2502"  # ⟨ ⟩ and a box-drawing bar: never in data


def option(name: str, metavar: str = "") -> str:
    """A reference to the job option ``name`` (a key of :data:`OPTIONS`), with the kind of value
    it takes (``"FILE"``, ``"ID"``, ``"N"``; ``""`` for none), for the command line's wording.

    >>> api_text(option("overwrite"))
    'overwrite=True'
    """
    if name not in OPTIONS:
        raise KeyError(f"no option {name!r} in swm_gis.messages.OPTIONS")
    return f"{_OPEN}option{_SEP}{name}{_SEP}{metavar}{_CLOSE}"


def config_key(section: str, key: str = "") -> str:
    """A reference to a section of the town config (``"layers.parcels"``, ``"rules"``,
    ``"layers.assess.fields"``) or to one ``key`` in it.

    >>> api_text(config_key("layers.parcels.fields", "id"))
    '[layers.parcels.fields] id'
    """
    if not section or _SEP in section + key or _CLOSE in section + key:
        raise ValueError(f"not a config section/key: {section!r} {key!r}")
    return f"{_OPEN}key{_SEP}{section}{_SEP}{key}{_CLOSE}"


def town_config() -> str:
    """A reference to the town config file itself: "the town config" on the command line and
    in Python; the dialog in QGIS when the plugin wrote the config from the dialog."""
    return f"{_OPEN}config{_SEP}{_SEP}{_CLOSE}"


def parts(text: str) -> list[str | dict[str, str]]:
    """``text`` as a list of plain strings and references: ``{"option": name, "metavar": m}``,
    ``{"key": section, "name": key}`` (``"name"`` left out for a whole section) or
    ``{"config": ""}``. Plain JSON, so the command line's JSON progress carries it as it is."""
    out: list[str | dict[str, str]] = []
    rest = str(text)
    while _OPEN in rest:
        head, _, tail = rest.partition(_OPEN)
        body, closed, after = tail.partition(_CLOSE)
        fields = body.split(_SEP)
        if not closed or len(fields) != 3 or fields[0] not in ("option", "key", "config"):
            head, body, after = head + _OPEN, "", tail  # a stray bracket: plain text
            fields = []
        if head:
            if out and isinstance(out[-1], str):
                out[-1] += head
            else:
                out.append(head)
        if fields:
            out.append(_reference(*fields))
        rest = after
    if rest:
        if out and isinstance(out[-1], str):
            out[-1] += rest
        else:
            out.append(rest)
    return out


def _reference(kind: str, name: str, extra: str) -> dict[str, str]:
    if kind == "option":
        return {"option": name, "metavar": extra}
    if kind == "key":
        return {"key": name, "name": extra} if extra else {"key": name}
    return {"config": ""}


def references(text: str) -> list[dict[str, str]]:
    """The references in ``text``, in order (see :func:`parts`)."""
    return [p for p in parts(text) if isinstance(p, dict)]


def key_text(ref: dict[str, str]) -> str:
    """A config reference as the TOML reads: ``[layers.parcels]`` or ``[rules] trigger_sqft``."""
    return f"[{ref['key']}] {ref['name']}" if ref.get("name") else f"[{ref['key']}]"


def api_words(ref: dict[str, str]) -> str:
    """Python's word for a reference: the keyword argument (``site=``, ``overwrite=True``), the
    TOML key, "the town config"."""
    if "option" in ref:
        name = ref["option"]
        return f"{name}={SWITCHES[name]}" if name in SWITCHES else f"{name}="
    if "key" in ref:
        return key_text(ref)
    return "the town config"


def render(text: str, words: Callable[[dict[str, str]], str]) -> str:
    """``text`` with every reference worded by ``words`` (a front end's vocabulary)."""
    return "".join(p if isinstance(p, str) else words(p) for p in parts(text))


def api_text(text: Any) -> str:
    """``text`` in Python's words (:func:`api_words`): what ``str(error)`` reads."""
    return render(str(text), api_words)


class Templated:
    """What a message holding references is, mixed into an error (``SwmGisError``) or a text
    (``validate.ReportText``): its ``template`` keeps the references; an f-string that embeds
    it keeps them (``__format__``), so a wrapping message is worded whole by each front end."""

    template: str

    def __format__(self, spec: str) -> str:
        return format(self.template, spec)

    @property
    def parts(self) -> list[str | dict[str, str]]:
        """The message as plain strings and references (:func:`parts`)."""
        return parts(self.template)

    def worded(self, words: Callable[[dict[str, str]], str]) -> str:
        """The message with each reference worded by ``words`` (a front end's vocabulary)."""
        return render(self.template, words)

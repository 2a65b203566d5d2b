"""The findings of ``screening.json`` as a person reads them, and as typed outputs.

``docs/findings.md``: ``findings: [{key, title, status, answer, section, layers_used[],
layers_missing[], caveats[]}]`` in report order, status in yes / no / conditional / not_checked /
info. The plugin never decides a status: it shows the engine's. Each algorithm returns a
``HEADLINE`` (string), one ``<KEY>_STATUS`` string per finding it covers and a short
``FINDINGS`` text, and pushes the same few lines to the log. A boolean output derived from a
finding (:func:`flag`) is True for ``yes``, False only for ``no`` and NULL otherwise: never
"no" for a check that did not run or did not cover the area searched. An engine that writes no
``findings`` is too old (:class:`EngineTooOld`).

No QGIS import (plain dicts), so it is tested on its own.
"""

from __future__ import annotations

from typing import Any

from .catalog import CATALOG, FINDING_KEYS, FINDING_STATUSES

#: The engine's statuses and findings (in the report's order), from the generated catalog.
STATUSES = FINDING_STATUSES
KEYS = FINDING_KEYS
#: A status as the log says it ("not_checked": "not checked").
STATUS_WORDS = {s: s.replace("_", " ") for s in STATUSES}


class EngineTooOld(Exception):
    """screening.json has no ``findings`` list: an engine that does not write one."""


TOO_OLD = ("The swm-gis engine wrote {path} without the 'findings' list, so it is too old for "
           "this plugin (the plugin never decides a finding itself). Reinstall the engine: run "
           "'Set up the swm-gis engine' (Processing Toolbox > swm-gis > Engine set-up), which "
           "installs "
           "the engine this plugin carries, or set a newer swm-gis executable in Settings > "
           "Options > Processing > Providers > swm-gis.")


def findings_of(document: dict[str, Any], *, path: str = "screening.json"
                ) -> list[dict[str, Any]]:
    """The document's findings list; :class:`EngineTooOld` when it has none."""
    found = document.get("findings")
    if not isinstance(found, list) or not found:
        raise EngineTooOld(TOO_OLD.format(path=path))
    return [f for f in found if isinstance(f, dict)]


def by_key(findings: list[dict[str, Any]], key: str) -> dict[str, Any]:
    """The finding of ``key`` ({} when the engine reported none)."""
    return next((f for f in findings if f.get("key") == key), {})


def status_of(findings: list[dict[str, Any]], key: str, part: str | None = None) -> str:
    """The status of finding ``key`` (or of one ``part`` of it, e.g. receiving waters' ``orw``
    and ``impaired``); ``not_checked`` when the engine reported no such finding."""
    f = by_key(findings, key)
    if part is not None:
        parts = f.get("parts") if isinstance(f.get("parts"), dict) else {}
        value = parts.get(part)
        if value in STATUSES:
            return str(value)
    value = f.get("status")
    return str(value) if value in STATUSES else "not_checked"


def flag(status: str) -> bool | None:
    """A boolean output true to its name: True for ``yes``, False only for ``no`` (a complete
    search that found nothing), None (NULL: undecided) for conditional, not_checked and info."""
    return {"yes": True, "no": False}.get(status)


def counted(n: int, status: str) -> int | None:
    """A count of features found: the number when the search ran (``yes``/``no``), else None
    (NULL) - 0 for a search that did not run would read as "none"."""
    return n if status in ("yes", "no") or n else None


def headline(findings: list[dict[str, Any]]) -> str:
    """The answer of the disturbance finding (the permit question), else the first answer."""
    for f in findings:
        if f.get("key") == "disturbance" and f.get("answer"):
            return _one_line(f["answer"])
    return _one_line(findings[0].get("answer") or "") if findings else ""


def finding_line(f: dict[str, Any], *, said: str = "") -> str:
    """"Title: status - answer", one line (the answer left out when it is ``said`` already)."""
    status = STATUS_WORDS.get(str(f.get("status")), str(f.get("status")))
    title = f.get("title") or str(f.get("key", "")).replace("_", " ")
    answer = _one_line(f.get("answer") or "")
    return f"{title}: {status}" + (f" - {answer}" if answer and answer != said else "")


#: Caveats logged under a finding (the JSON file and the report have them all).
MAX_CAVEATS = 3


def summary_lines(findings: list[dict[str, Any]], keys: tuple[str, ...] = KEYS) -> list[str]:
    """The headline then one line per finding of ``keys`` (report order), each followed by its
    first caveats (what a conditional answer depends on)."""
    chosen = [f for f in findings if f.get("key") in keys]
    top = headline(findings) if "disturbance" in keys else ""
    lines = [top]
    for f in chosen:
        lines.append(finding_line(f, said=top))
        caveats = [c for c in f.get("caveats") or [] if c]
        lines += [f"  caveat: {_one_line(c)}" for c in caveats[:MAX_CAVEATS]]
        if len(caveats) > MAX_CAVEATS:
            lines.append(f"  ... and {len(caveats) - MAX_CAVEATS} more caveat(s) (see the "
                         "result file)")
    missing = sorted({m for f in chosen for m in f.get("layers_missing") or []})
    if missing:  # by the dialog's labels, never the config keys (issue 35: "lacking: ms4")
        lines.append("Not given, so not checked: " + ", ".join(map(layer_label, missing)))
    return [line for line in lines if line]


def layer_label(key: str) -> str:
    """A town layer the engine names by its config key, as the dialog labels its parameter
    ("'NHESP Priority Habitats of Rare Species'"); an unknown key as it is."""
    layer = CATALOG.get(str(key))
    return f"'{layer.description}'" if layer else str(key)


def typed_outputs(findings: list[dict[str, Any]], keys: tuple[str, ...]) -> dict[str, Any]:
    """``HEADLINE``, ``FINDINGS`` and ``<KEY>_STATUS`` for each of ``keys`` ('' when the engine
    reported no such finding)."""
    by_key = {f.get("key"): f for f in findings}
    out: dict[str, Any] = {f"{k.upper()}_STATUS": str((by_key.get(k) or {}).get("status") or "")
                           for k in keys}
    out["HEADLINE"] = headline(findings) if "disturbance" in keys else \
        "; ".join(finding_line(by_key[k]) for k in keys if k in by_key)
    out["FINDINGS"] = "\n".join(finding_line(by_key[k]) for k in keys if k in by_key)
    return out


def determined(value: Any, status: str) -> Any:
    """A figure of a finding: as the engine gave it when the finding was decided (yes / no),
    else None (NULL) where it is 0 or missing - 0 sq ft of a floodplain that was not (fully)
    checked would read as "none"."""
    if status in ("yes", "no"):
        return value
    return value if value not in (None, 0, 0.0) else None


def _one_line(text: str) -> str:
    """One line, whole: outputs and the log never cut a finding (the issue's "Tot...")."""
    return " ".join(str(text).split())

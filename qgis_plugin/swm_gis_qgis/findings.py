"""The findings of ``screening.json`` as a person reads them, and as typed outputs.

SPEC section 5: ``findings: [{key, title, status, answer, section, layers_used[],
layers_missing[], caveats[]}]`` in report order, status in yes / no / conditional / not_checked /
info. The plugin never decides a status: it shows the engine's. Each algorithm returns a
``HEADLINE`` (string), one ``<KEY>_STATUS`` string per finding it covers and a short
``FINDINGS`` text, and pushes the same few lines to the log.

No QGIS import (plain dicts), so it is tested on its own.
"""

from __future__ import annotations

from typing import Any

STATUSES = ("yes", "no", "conditional", "not_checked", "info")
KEYS = ("disturbance", "development_type", "standards", "watersheds", "mitigation",
        "habitats", "floodplain", "receiving_waters")
STATUS_WORDS = {"yes": "yes", "no": "no", "conditional": "conditional",
                "not_checked": "not checked", "info": "info"}
#: Longest text output: outputs are for reading, the JSON file holds the rest.
MAX_OUTPUT_CHARS = 2000


def findings_of(document: dict[str, Any]) -> list[dict[str, Any]]:
    """The document's findings list, or the fallback below when the engine has none yet."""
    found = document.get("findings")
    if isinstance(found, list) and found:
        return [f for f in found if isinstance(f, dict)]
    return fallback_findings(document)


# --- FALLBACK (delete once the engine writes `findings`, SPEC section 5) -----------------------
def fallback_findings(document: dict[str, Any]) -> list[dict[str, Any]]:
    """A disturbance finding built from ``disturbance.permit_required`` for engines that do not
    write ``findings`` yet. Under one acre without a common plan, or with an exemption claimed,
    the answer is ``conditional`` (SPEC section 5), never a bare "no"."""
    d = document.get("disturbance")
    if not isinstance(d, dict):
        return []
    if d.get("permit_required"):
        status, answer = "yes", "A Stormwater Management Permit is required."
    elif d.get("common_plan_area_sqft") is None or d.get("exemption"):
        status = "conditional"
        answer = ("No permit for the site alone; one is required if it is part of a larger "
                  "common plan that disturbs 1 acre or more" if not d.get("exemption") else
                  "The permit depends on the exemption claimed (the Commission decides)")
        answer += "."
    else:
        status, answer = "no", "No Stormwater Management Permit is required."
    return [{"key": "disturbance", "title": "Stormwater Management Permit", "status": status,
             "answer": answer, "section": "320-3", "layers_used": [], "layers_missing": [],
             "caveats": []}]
# --- end of FALLBACK -------------------------------------------------------------------------


def headline(findings: list[dict[str, Any]]) -> str:
    """The answer of the disturbance finding (the permit question), else the first answer."""
    for f in findings:
        if f.get("key") == "disturbance" and f.get("answer"):
            return _one_line(f["answer"], 300)
    return _one_line(findings[0].get("answer") or "", 300) if findings else ""


def finding_line(f: dict[str, Any], *, said: str = "") -> str:
    """"Title: status - answer", one line (the answer left out when it is ``said`` already)."""
    status = STATUS_WORDS.get(str(f.get("status")), str(f.get("status")))
    title = f.get("title") or str(f.get("key", "")).replace("_", " ")
    answer = _one_line(f.get("answer") or "", 160)
    return f"{title}: {status}" + (f" - {answer}" if answer and answer != said else "")


def summary_lines(findings: list[dict[str, Any]], keys: tuple[str, ...] = KEYS) -> list[str]:
    """The headline then one line per finding of ``keys`` (report order)."""
    chosen = [f for f in findings if f.get("key") in keys]
    top = headline(findings) if "disturbance" in keys else ""
    lines = [top] + [finding_line(f, said=top) for f in chosen]
    missing = sorted({m for f in chosen for m in f.get("layers_missing") or []})
    if missing:
        lines.append("Not given, so not checked: " + ", ".join(map(str, missing)))
    return [line for line in lines if line]


def typed_outputs(findings: list[dict[str, Any]], keys: tuple[str, ...]) -> dict[str, Any]:
    """``HEADLINE``, ``FINDINGS`` and ``<KEY>_STATUS`` for each of ``keys`` ('' when the engine
    reported no such finding)."""
    by_key = {f.get("key"): f for f in findings}
    out: dict[str, Any] = {f"{k.upper()}_STATUS": str((by_key.get(k) or {}).get("status") or "")
                           for k in keys}
    out["HEADLINE"] = headline(findings) if "disturbance" in keys else \
        "; ".join(finding_line(by_key[k]) for k in keys if k in by_key)[:300]
    text = "\n".join(finding_line(by_key[k]) for k in keys if k in by_key)
    out["FINDINGS"] = text[:MAX_OUTPUT_CHARS]
    return out


def _one_line(text: str, limit: int) -> str:
    s = " ".join(str(text).split())
    return s if len(s) <= limit else s[: limit - 3].rstrip() + "..."

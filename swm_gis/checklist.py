"""The Chapter 320 submittal checklist (§§ 320-18 A, 320-19, 320-20, 320-21) and what applies.

The items are data (``swm_gis/tables/submittal_checklist.toml``, read with importlib.resources),
taken from the regulation text; this module decides, from a screening document (the content of
``screening.json``, SPEC section 5), which conditional items apply and attaches the screening
finding each item needs (the floodplain for the 100-year flood elevation, the NHESP features
within 500 ft, the required retention volume, ...).

Examples
--------
>>> items = submittal_checklist({"floodplain": {"in_sfha": False}})
>>> [i.ref for i in items if i.section == "§ 320-20"][:4]
['A(1)', 'A(2)', 'A(3)(a)', 'A(3)(b)']
>>> next(i for i in items if i.section == "§ 320-19" and i.ref == "A(8)").applies
False
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

__all__ = ["ChecklistGroup", "ChecklistItem", "checklist_groups", "submittal_checklist"]

CONDITIONS = ("always", "in_sfha", "offsite_mitigation", "impaired", "tmdl", "nitrogen",
              "phosphorus", "chloride", "solids_metals_oil", "orw")

#: Words in MassDEP impairment cause names that bring each § 320-19 B(10) requirement.
_CAUSE_PATTERNS = {
    "nitrogen": re.compile(r"nitrogen|nitrate|nitrite|ammonia", re.I),
    "phosphorus": re.compile(r"phosph", re.I),
    "chloride": re.compile(r"chloride|salinity|road salt", re.I),
    "solids_metals_oil": re.compile(
        r"solids|sediment|siltation|turbidity|metal|lead|copper|zinc|cadmium|mercury|arsenic|"
        r"iron|alumin|nickel|chromium|oil|grease|petroleum", re.I),
}
#: The § 320-19 B(10) paragraph of each condition, to recognise requirements already derived.
_CONDITION_REF = {"tmdl": "B(10)(a)", "nitrogen": "B(10)(b)", "phosphorus": "B(10)(c)",
                  "chloride": "B(10)(d)", "solids_metals_oil": "B(10)(e)"}


@dataclass(frozen=True)
class ChecklistGroup:
    key: str
    section: str
    title: str


@dataclass(frozen=True)
class ChecklistItem:
    """One submittal item.

    ``applies`` is True (required), False (its condition is not met) or None (the screening
    check that decides it did not run: the applicant must check). ``note`` carries the screening
    finding the item needs.
    """

    group: str
    section: str
    ref: str
    text: str
    when: str = "always"
    applies: bool | None = True
    note: str = ""

    @property
    def citation(self) -> str:
        return f"{self.section} {self.ref}"


@lru_cache(maxsize=1)
def _table() -> dict[str, Any]:
    text = resources.files("swm_gis").joinpath("tables/submittal_checklist.toml").read_text(
        encoding="utf-8")
    return tomllib.loads(text)


def checklist_groups() -> list[ChecklistGroup]:
    """The plans of the application package, in order."""
    return [ChecklistGroup(g["key"], g["section"], g["title"]) for g in _table()["groups"]]


def _raw_items() -> list[dict[str, Any]]:
    sections = {g.key: g.section for g in checklist_groups()}
    items = []
    for raw in _table()["items"]:
        when = raw.get("when", "always")
        if when not in CONDITIONS:  # a typo in the table must not silently drop an item
            raise ValueError(f"submittal_checklist.toml: unknown condition {when!r} "
                             f"for {raw['group']} {raw['ref']}; known: {', '.join(CONDITIONS)}")
        items.append({**raw, "section": raw.get("section", sections[raw["group"]]),
                      "when": when})
    return items


def submittal_checklist(document: Mapping[str, Any] | None = None) -> list[ChecklistItem]:
    """Every checklist item, with whether it applies to the screened site and its finding.

    Parameters
    ----------
    document
        The screening document (``screening.json`` content); None gives the bare checklist with
        every conditional item undecided.

    Returns
    -------
    list of ChecklistItem
        In checklist order; ``applies`` is True, False or None (the deciding check did not run).
    """
    doc = document or {}
    conditions = _conditions(doc) if document is not None else {}
    out = []
    for raw in _raw_items():
        when = raw["when"]
        applies = True if when == "always" else conditions.get(when)
        note = _note(raw.get("notes", ""), doc) if document is not None else ""
        out.append(ChecklistItem(group=raw["group"], section=raw["section"], ref=raw["ref"],
                                 text=raw["text"], when=when, applies=applies, note=note))
    return out


# --------------------------------------------------------------------------- conditions
def _ran(doc: Mapping[str, Any], name: str) -> bool | None:
    """Whether the named check ran, from ``checks[]``; None when it is not listed."""
    for check in doc.get("checks") or []:
        if isinstance(check, Mapping) and check.get("name") == name:
            return bool(check.get("ran"))
    return None


def _block(doc: Mapping[str, Any], key: str) -> Any:
    """The document block ``key``, or None when it is missing or its check did not run."""
    if key not in doc or doc.get(key) is None or _ran(doc, key) is False:
        return None
    return doc[key]


def _causes(doc: Mapping[str, Any]) -> list[str]:
    rw = _block(doc, "receiving_waters") or {}
    causes = []
    for au in rw.get("impaired") or []:
        raw = au.get("causes") or []
        causes.extend(raw.split(";") if isinstance(raw, str) else raw)
    return [str(c).strip() for c in causes if str(c).strip()]


def _conditions(doc: Mapping[str, Any]) -> dict[str, bool | None]:
    flood = _block(doc, "floodplain")
    mitigation = doc.get("mitigation")
    rw = _block(doc, "receiving_waters")
    cond: dict[str, bool | None] = {
        "in_sfha": bool(flood.get("in_sfha")) if isinstance(flood, Mapping) else None,
        "offsite_mitigation": (bool(mitigation) if isinstance(mitigation, list) else None),
    }
    if not isinstance(rw, Mapping):
        cond.update(dict.fromkeys(("impaired", "tmdl", "orw", *_CAUSE_PATTERNS)))
        return cond
    impaired = rw.get("impaired") or []
    req_sections = " ".join(f"{r.get('section', '')} {r.get('text', '')}"
                            for r in rw.get("requirements") or [] if isinstance(r, Mapping))
    causes = _causes(doc)
    cond["impaired"] = bool(impaired)
    cond["orw"] = bool(rw.get("orw"))
    cond["tmdl"] = any(_has_tmdl(au) for au in impaired) or _CONDITION_REF["tmdl"] in req_sections
    for key, pattern in _CAUSE_PATTERNS.items():
        cond[key] = (any(pattern.search(c) for c in causes)
                     or _CONDITION_REF[key] in req_sections)
    return cond


def _has_tmdl(au: Mapping[str, Any]) -> bool:
    tmdl = au.get("tmdl")
    category = str(au.get("category") or "").strip().upper()
    has_text = bool(tmdl) and str(tmdl).strip().lower() not in ("no", "none", "false", "0", "n")
    return has_text or category == "4A"


# --------------------------------------------------------------------------- notes
def _sqft(x: Any) -> str:
    return f"{float(x):,.0f} sq ft"


def _ft(x: Any) -> str:
    return f"{float(x):,.0f} ft"


def _note(kind: str, doc: Mapping[str, Any]) -> str:
    try:
        return _NOTES[kind](doc) if kind else ""
    except (TypeError, ValueError, KeyError, AttributeError):  # malformed block: say nothing
        return ""


def _note_floodplain(doc: Mapping[str, Any]) -> str:
    flood = _block(doc, "floodplain")
    if not isinstance(flood, Mapping):
        return "Floodplain check did not run: delineate from the current FIRM."
    if not flood.get("in_sfha"):
        extra = ""
        if float(flood.get("shaded_x_area_sqft") or 0) > 0:
            extra = f"; 0.2%-annual-chance zone: {_sqft(flood['shaded_x_area_sqft'])}"
        return f"Screening found no 100-year floodplain (SFHA) on the site{extra}."
    zones = []
    for z in flood.get("zones") or []:
        bfe = z.get("bfe")
        bfe_txt = f", BFE {float(bfe):g} ft" if bfe not in (None, "") and float(bfe) > -9999 \
            else ", no BFE on the FIRM"
        zones.append(f"zone {z.get('zone')}{bfe_txt}")
    share = float(flood.get("site_fraction") or 0) * 100
    return (f"Site in the SFHA: {_sqft(flood.get('sfha_area_sqft') or 0)} ({share:.1f}% of the "
            f"site); {'; '.join(zones) or 'zones not listed'}.")


_HABITAT_NAMES = {"priority": "Priority Habitat", "estimated": "Estimated Habitat",
                  "vernal_pool": "Certified Vernal Pool"}


def _note_habitats(doc: Mapping[str, Any]) -> str:
    habitats = _block(doc, "habitats")
    if habitats is None:
        return "NHESP check did not run: consult the current NHESP maps."
    if not habitats:
        return "Screening found no NHESP habitat or certified vernal pool within 500 ft."
    parts = [f"{_HABITAT_NAMES.get(h.get('layer'), h.get('layer'))} {h.get('id')} at "
             f"{_ft(h.get('distance_ft') or 0)}{' (overlaps)' if h.get('overlaps') else ''}"
             for h in sorted(habitats, key=lambda h: float(h.get("distance_ft") or 0))]
    return "Show: " + "; ".join(parts) + "."


def _note_standards(doc: Mapping[str, Any]) -> str:
    st = _block(doc, "standards")
    if not isinstance(st, Mapping) or st.get("required_retention_cuft") is None:
        return ""
    return (f"Retention required: {float(st['required_retention_cuft']):,.0f} cu ft "
            f"({float(st.get('retention_depth_in') or 0):g} in x "
            f"{_sqft(st.get('post_impervious_sqft') or 0)} impervious).")


def _note_treatment(doc: Mapping[str, Any]) -> str:
    st = _block(doc, "standards")
    if not isinstance(st, Mapping) or st.get("tss_removal") is None:
        return ""
    return (f"Removal targets: {float(st['tss_removal']) * 100:.0f}% TSS, "
            f"{float(st.get('tp_removal') or 0) * 100:.0f}% TP.")


def _note_mitigation(doc: Mapping[str, Any]) -> str:
    sites = doc.get("mitigation") or []
    parts = [f"{m.get('id')}: {'eligible' if m.get('eligible') else 'not eligible'}"
             for m in sites]
    return "; ".join(parts) + "." if parts else ""


def _note_abutters(doc: Mapping[str, Any]) -> str:
    return "Prepare with swm-gis abutters (owners within 100 ft of the property line)."


def _note_receiving(doc: Mapping[str, Any]) -> str:
    rw = _block(doc, "receiving_waters")
    if not isinstance(rw, Mapping):
        return "Receiving-waters check did not run."
    names = [f"{w.get('name') or w.get('id')} (ORW)" for w in rw.get("orw") or []]
    names += [f"{w.get('name') or w.get('au_id')} (category {w.get('category')})"
              for w in rw.get("impaired") or []]
    return ("Drains to " + "; ".join(names) + ".") if names else \
        "No ORW or impaired water found downstream."


def _note_disturbance(doc: Mapping[str, Any]) -> str:
    dist = _block(doc, "disturbance")
    if not isinstance(dist, Mapping) or dist.get("area_sqft") is None:
        return ""
    return (f"Screened limit of disturbance: {_sqft(dist['area_sqft'])} "
            f"({float(dist.get('area_acres') or dist['area_sqft'] / 43_560):.2f} acres).")


_NOTES = {
    "floodplain": _note_floodplain, "habitats": _note_habitats, "standards": _note_standards,
    "treatment": _note_treatment, "mitigation": _note_mitigation, "abutters": _note_abutters,
    "receiving_waters": _note_receiving, "disturbance": _note_disturbance,
}

"""The screening report for the Conservation Commission: ``screening_report.html`` and ``.pdf``.

One model, two renderings. :func:`build_report` turns a screening document (the content of
``screening.json``, SPEC section 5) into findings, detail tables, the submittal checklist
(:mod:`swm_gis.checklist`) and the permit timeline (:mod:`swm_gis.timeline`); the HTML and PDF
writers only lay that model out, so the two always say the same thing.

The first page is the findings: permit required or not and why, new or redevelopment, the
standards and required retention volume, HUC and mitigation eligibility, NHESP features within
500 ft, floodplain overlap, receiving waters, and every extra requirement; each cites its Chapter
320 section and the data layer and vintage it came from. A check that did not run says so. Then
the map, the detail tables, the checklist of §§ 320-18 A, 320-19, 320-20 and 320-21, the
timeline of § 320-18, and the data sources, checks and parameters.
"""

from __future__ import annotations

import base64
import datetime as dt
import html
import io
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import geopandas as gpd

from swm_gis.checklist import ChecklistGroup, ChecklistItem, checklist_groups, submittal_checklist
from swm_gis.config import SQFT_PER_ACRE
from swm_gis.reports.screening_map import MapImage, render_screening_map
from swm_gis.timeline import Deadline, permit_timeline
from swm_gis.writers import write_bytes, write_text

__all__ = ["Finding", "ScreeningReport", "build_report", "render_html", "render_pdf",
           "write_screening_report"]

HTML_NAME = "screening_report.html"
PDF_NAME = "screening_report.pdf"

# Chapter 320 sections behind each finding (SPEC section 2; the regulation text of
# shared/regulations). The screening document may carry its own citations; these are defaults.
SEC_TRIGGER = "Bylaw ch. 213, Art. II (Ch. 320 applicability); exemptions § 213-16B"
SEC_DEVELOPMENT = "Ch. 320 definitions: new development, redevelopment"
SEC_STANDARDS = {"new": "§ 320-19 B(7)", "redevelopment": "§ 320-19 B(8)"}
SEC_MITIGATION = {"new": "§ 320-19 B(7)(d)", "redevelopment": "§ 320-19 B(8)(d)"}
SEC_ROADWAY = "§ 320-19 B(8)(e)"
SEC_HABITATS = "§ 320-20 A(3)(c), B(12)"
SEC_FLOODPLAIN = "§ 320-19 A(8); § 320-20 A(3)(a)"
SEC_RECEIVING = "§ 320-19 B(10); Ch. 320 definitions: ORW"

STATUS_TEXT = {"yes": "Yes", "no": "No", "info": "Info", "not_run": "Not run"}


# --------------------------------------------------------------------------- the model
@dataclass(frozen=True)
class Finding:
    """One line of the findings page.

    ``status``: "yes" (a requirement or a feature found), "no" (nothing found / not required),
    "info" (a value, no duty by itself) or "not_run" (the check could not run).
    """

    key: str
    title: str
    status: str
    result: str
    details: tuple[str, ...] = ()
    section: str = ""
    source: str = ""
    reasons: tuple[str, ...] = ()  # the screening's own explanations, listed in the details


@dataclass(frozen=True)
class Table:
    """A detail table: caption, column headers (the first column heads each row) and rows."""

    key: str
    title: str
    caption: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    empty: str = "None."


@dataclass
class ScreeningReport:
    title: str
    town: str
    synthetic: bool
    generated: str
    site_label: str
    headline: str
    no_findings: bool
    findings: list[Finding]
    tables: list[Table]
    map_image: MapImage | None
    map_alt: str
    checklist_groups: list[ChecklistGroup]
    checklist: list[ChecklistItem]
    checklist_note: str
    timeline: list[Deadline]
    received: dt.date | None
    checks: list[tuple[str, str, str, str]]  # name, ran, source, reason
    parameters: list[tuple[str, str]]
    data_sources: list[tuple[str, str]]
    notes: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- formatting
def _num(x: Any, digits: int = 0) -> str:
    try:
        return f"{float(x):,.{digits}f}"
    except (TypeError, ValueError):
        return "?"


def _sqft(x: Any) -> str:
    return f"{_num(x)} sq ft"


def _acres(x: Any) -> str:
    return f"{_num(x, 2)} acres"


def _ft(x: Any) -> str:
    return f"{_num(x)} ft"


def _pct(x: Any, digits: int = 0) -> str:
    try:
        return f"{float(x) * 100:.{digits}f}%"
    except (TypeError, ValueError):
        return "?"


def _bfe(value: Any) -> str:
    try:
        v = float(value)
    except (TypeError, ValueError):
        return "none on the FIRM"
    return "none on the FIRM" if v <= -9999 else f"{v:g} ft"


def _date(text: Any) -> str:
    """The date part of an ISO timestamp (the vintage), or the text itself."""
    if not text:
        return "date unknown"
    s = str(text)
    return s[:10] if len(s) >= 10 and s[4] == "-" else s


def _describe_source(src: Any, *, compact: bool = False) -> str:
    """One source (a source_info dict, a string, or a list of them) as 'file:layer (date)'.

    ``compact`` leaves out the logical layer key (for the findings page).
    """
    if src is None or src == "" or src == []:
        return ""
    if isinstance(src, str):
        return src
    if isinstance(src, list | tuple):
        return "; ".join(filter(None, (_describe_source(s, compact=compact) for s in src)))
    if isinstance(src, Mapping):
        if "file" not in src and "path" not in src and all(
                isinstance(v, Mapping | list | str) for v in src.values()):
            return "; ".join(filter(None, (_describe_source(v, compact=compact)
                                           for v in src.values())))
        path = src.get("file") or src.get("path") or ""
        name = os.path.basename(str(path)) or str(path)
        layer = src.get("layer")
        key = src.get("key")
        where = f"{name}:{layer}" if layer else name
        label = f"{key} = {where}" if key and key != "input" and not compact else where
        return f"{label} ({_date(src.get('modified') or src.get('vintage'))})"
    return str(src)


def _checks(doc: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    return {str(c.get("name")): c for c in doc.get("checks") or [] if isinstance(c, Mapping)}


def _check_for(doc: Mapping[str, Any], *names: str) -> Mapping[str, Any] | None:
    checks = _checks(doc)
    for name in names:
        if name in checks:
            return checks[name]
    return None


def _source_for(doc: Mapping[str, Any], *names: str) -> str:
    check = _check_for(doc, *names)
    if check is None:
        return "source not recorded in screening.json"
    text = _describe_source(check.get("source"), compact=True)
    if text:
        return text
    reason = check.get("reason") or check.get("message")
    return f"no input data: {reason}" if reason else "Chapter 320 rule values (no data layer)"


def _not_run(doc: Mapping[str, Any], key: str, title: str, section: str, *names: str
             ) -> Finding | None:
    """A 'not run' finding when the check did not run or its block is missing; else None."""
    check = _check_for(doc, *(names or (key,)))
    block = doc.get(key)
    if check is not None and not check.get("ran"):
        reason = check.get("reason") or check.get("message") or "no reason recorded"
        return Finding(key, title, "not_run", f"Check did not run: {reason}.", section=section,
                       source=_describe_source(check.get("source"), compact=True) or "no data")
    if block is None:
        return Finding(key, title, "not_run",
                       f"Not evaluated: screening.json has no '{key}' result.", section=section,
                       source="no data")
    return None


def _cite(section: Any) -> str:
    """A citation with its section sign: '320-19 B(10)' -> '§ 320-19 B(10)'."""
    text = str(section or "").strip()
    return f"§ {text}" if re.match(r"^\d{3}-\d+", text) else text


def _section(block: Any, default: str) -> str:
    if isinstance(block, Mapping) and block.get("section"):
        return _cite(block["section"])
    return default


def _reasons(block: Any) -> tuple[str, ...]:
    if not isinstance(block, Mapping):
        return ()
    return tuple(str(r) for r in block.get("reasons") or [] if r)


def _dev_value(doc: Mapping[str, Any]) -> str | None:
    dev = doc.get("development_type")
    value = dev.get("value") if isinstance(dev, Mapping) else None
    return value if value in ("new", "redevelopment") else None


# --------------------------------------------------------------------------- findings
def _finding_permit(doc: Mapping[str, Any]) -> Finding:
    title = "Stormwater management permit"
    missing = _not_run(doc, "disturbance", title, SEC_TRIGGER)
    if missing:
        return missing
    d = doc["disturbance"]
    required = bool(d.get("permit_required"))
    area = d.get("area_sqft")
    acres = d.get("area_acres", (float(area) / SQFT_PER_ACRE) if area is not None else None)
    plan = d.get("common_plan_area_sqft")
    parts = [f"land disturbance {_sqft(area)} ({_acres(acres)})"]
    if plan is not None and area is not None and float(plan) > float(area):
        plan_acres = _acres(float(plan) / SQFT_PER_ACRE)
        parts.append(f"common plan of development {_sqft(plan)} ({plan_acres})")
    threshold = f"the 1-acre threshold ({_sqft(d.get('trigger_sqft') or SQFT_PER_ACRE)})"
    exemption = _exemption_text(d.get("exemption"))
    if required:
        result = f"Required: {'; '.join(parts)}; reaches {threshold}."
    elif exemption:
        result = (f"Not required if the exemption claimed by the applicant applies "
                  f"({exemption}); {'; '.join(parts)}.")
    else:
        result = f"Not required: {'; '.join(parts)}; below {threshold}."
    return Finding("disturbance", title, "yes" if required else "no", result, (),
                   _section(d, SEC_TRIGGER), _source_for(doc, "disturbance"),
                   reasons=_reasons(d))


def _exemption_text(exemption: Any) -> str:
    """The claimed exemption(s): a name, or a list of {name, section, ...}."""
    if not exemption:
        return ""
    items = exemption if isinstance(exemption, list) else [exemption]
    return ", ".join(f"{e.get('name')} ({e.get('section')})" if isinstance(e, Mapping)
                     and e.get("section") else str(e.get("name") if isinstance(e, Mapping)
                                                   else e) for e in items)


def _finding_development(doc: Mapping[str, Any]) -> Finding:
    title = "New development or redevelopment"
    missing = _not_run(doc, "development_type", title, SEC_DEVELOPMENT, "development_type",
                       "development")
    if missing:
        return missing
    d = doc["development_type"]
    value = d.get("value")
    label = {"new": "New development", "redevelopment": "Redevelopment"}.get(value, str(value))
    existing = d.get("existing_impervious_sqft")
    method = d.get("method")
    result = label
    if existing is not None:
        result += f": existing impervious cover in the disturbance {_sqft(existing)}"
    if method:
        result += f" (decided by: {method})"
    return Finding("development_type", title, "info", result + ".", (),
                   _section(d, SEC_DEVELOPMENT),
                   _source_for(doc, "development_type", "development", "impervious"),
                   reasons=_reasons(d))


def _finding_standards(doc: Mapping[str, Any]) -> Finding:
    title = "Performance standards and retention volume"
    dev = _dev_value(doc) or "new"
    missing = _not_run(doc, "standards", title, SEC_STANDARDS[dev])
    if missing:
        return missing
    s = doc["standards"]
    reasons = _reasons(s)
    if s.get("applies") is False or s.get("roadway_exempt"):
        result = ("Roadway maintenance redevelopment: exempt from § 320-19 B(8)(a)-(d); "
                  "must improve existing conditions unless infeasible.")
        return Finding("standards", title, "info", result, (),
                       _section(s, SEC_ROADWAY), _source_for(doc, "standards"), reasons=reasons)
    depth, imp, vol = (s.get("retention_depth_in"), s.get("post_impervious_sqft"),
                       s.get("required_retention_cuft"))
    result = (f"Retain {_num(vol)} cu ft ({_num(depth, 1)} in x {_sqft(imp)} post-construction "
              f"impervious area), or remove {_pct(s.get('tss_removal'))} TSS and "
              f"{_pct(s.get('tp_removal'))} TP, or a combination, or off-site mitigation in the "
              f"same {s.get('mitigation_huc_level') or ('HUC12' if dev == 'new' else 'HUC10')}.")
    if imp is None:
        result = (f"Retention depth {_num(depth, 1)} in; post-construction impervious area not "
                  f"given, so the volume is not computed. Targets: {_pct(s.get('tss_removal'))} "
                  f"TSS, {_pct(s.get('tp_removal'))} TP.")
    # The standards are a duty only when a permit is required; otherwise they are information.
    permit = doc.get("disturbance") if isinstance(doc.get("disturbance"), Mapping) else {}
    status = "info" if permit.get("permit_required") is False else "yes"
    return Finding("standards", title, status, result, (),
                   _section(s, SEC_STANDARDS[dev]), _source_for(doc, "standards", "disturbance"),
                   reasons=reasons)


def _finding_watersheds(doc: Mapping[str, Any]) -> Finding:
    title = "Watershed (HUC) and off-site mitigation"
    dev = _dev_value(doc) or "new"
    section = SEC_MITIGATION[dev]
    missing = _not_run(doc, "watersheds", title, section)
    if missing:
        return missing
    w = doc["watersheds"]
    level = (doc.get("standards") or {}).get("mitigation_huc_level") or (
        "HUC12" if dev == "new" else "HUC10")

    def hucs(key: str) -> str:
        items = w.get(key) or []
        return ", ".join(f"{h.get('huc')} {h.get('name') or ''} ({_pct(h.get('share'))})".replace(
            "  ", " ") for h in items) or "none found"

    result = f"HUC12: {hucs('huc12')}. HUC10: {hucs('huc10')}. Off-site mitigation must be in " \
             f"the same {level}."
    mitigation = doc.get("mitigation")
    reasons: tuple[str, ...] = ()
    if isinstance(mitigation, list) and mitigation:
        n_ok = sum(bool(m.get("eligible")) for m in mitigation)
        ok = ", ".join(str(m.get("id")) for m in mitigation if m.get("eligible")) or "none"
        result += f" Mitigation sites: {n_ok} of {len(mitigation)} eligible ({ok})."
        reasons = tuple(f"{m.get('id')}: {m.get('reason')}" for m in mitigation
                        if m.get("reason"))
    elif isinstance(mitigation, list):
        result += " No mitigation site proposed."
    return Finding("watersheds", title, "info", result, (), section,
                   _source_for(doc, "watersheds", "watersheds_huc12", "mitigation"),
                   reasons=reasons)


_HABITAT = {"priority": "Priority Habitat", "estimated": "Estimated Habitat",
            "vernal_pool": "Certified Vernal Pool"}


def _finding_habitats(doc: Mapping[str, Any]) -> Finding:
    title = "NHESP habitats within 500 ft"
    missing = _not_run(doc, "habitats", title, SEC_HABITATS)
    if missing:
        return missing
    habitats = sorted(doc["habitats"] or [], key=lambda h: float(h.get("distance_ft") or 0))
    src = _source_for(doc, "habitats")
    if not habitats:
        return Finding("habitats", title, "no",
                       "None: no Priority or Estimated Habitat and no Certified Vernal Pool "
                       "within 500 ft of the limit of disturbance.", (), SEC_HABITATS, src)
    parts = [f"{_HABITAT.get(h.get('layer'), h.get('layer'))} {h.get('id')} at "
             f"{_ft(h.get('distance_ft'))}{' (overlaps the site)' if h.get('overlaps') else ''}"
             for h in habitats]
    result = (f"{len(habitats)} feature(s): " + "; ".join(parts) + ". Show them on the erosion "
              "and sediment control plan and prevent significant alteration.")
    return Finding("habitats", title, "yes", result, (), SEC_HABITATS, src)


def _finding_floodplain(doc: Mapping[str, Any]) -> Finding:
    title = "100-year floodplain (FEMA SFHA)"
    missing = _not_run(doc, "floodplain", title, SEC_FLOODPLAIN)
    if missing:
        return missing
    f = doc["floodplain"]
    src = _source_for(doc, "floodplain")
    shaded = float(f.get("shaded_x_area_sqft") or 0)
    shaded_txt = (f" 0.2%-annual-chance zone (shaded X): {_sqft(shaded)}." if shaded > 0
                  else "")
    if not f.get("in_sfha"):
        return Finding("floodplain", title, "no",
                       "The site does not overlap the Special Flood Hazard Area." + shaded_txt,
                       (), SEC_FLOODPLAIN, src)
    zones = "; ".join(
        f"zone {z.get('zone')}{' ' + str(z['subtype']) if z.get('subtype') else ''}"
        f" {_sqft(z.get('area_sqft'))}, BFE {_bfe(z.get('bfe'))}"
        for z in f.get("zones") or []) or "zones not listed"
    result = (f"Overlap {_sqft(f.get('sfha_area_sqft'))} ({_pct(f.get('site_fraction'), 1)} of "
              f"the site): {zones}. Delineate it on the plans with the 100-year flood "
              f"elevation." + shaded_txt)
    return Finding("floodplain", title, "yes", result, (), SEC_FLOODPLAIN, src)


def _tmdl_text(tmdl: Any) -> str:
    """ "TMDL 12345" as it is; a bare number or name gets the word: "TMDL 12345".

    >>> _tmdl_text("TMDL 12345"), _tmdl_text("12345")
    ('TMDL 12345', 'TMDL 12345')
    """
    text = str(tmdl).strip()
    return text if text.upper().startswith("TMDL") else f"TMDL {text}"


def _finding_receiving(doc: Mapping[str, Any]) -> Finding:
    title = "Receiving waters (ORW, impaired waters)"
    missing = _not_run(doc, "receiving_waters", title, SEC_RECEIVING)
    if missing:
        return missing
    rw = doc["receiving_waters"]
    src = _source_for(doc, "receiving_waters")
    orw, impaired = rw.get("orw") or [], rw.get("impaired") or []
    approx = (" Approximate: traced from the nearest stream, not from the terrain (no "
              "elevation model).") if rw.get("approximate") else ""
    if not orw and not impaired:
        return Finding("receiving_waters", title, "no",
                       "No Outstanding Resource Water and no impaired water (category 4A, 4B "
                       "or 5) found downstream of the site." + approx, (), SEC_RECEIVING, src)
    parts = [f"ORW {w.get('name') or w.get('id')} at {_ft(w.get('flow_distance_ft'))} "
             "downstream" for w in orw]
    parts += [f"{w.get('name') or w.get('au_id')} ({w.get('au_id')}), category "
              f"{w.get('category')}: {', '.join(_causes(w)) or 'causes not listed'}"
              f"{'; ' + _tmdl_text(w['tmdl']) if w.get('tmdl') else ''}, "
              f"{_ft(w.get('flow_distance_ft'))} downstream" for w in impaired]
    return Finding("receiving_waters", title, "yes", "; ".join(parts) + "." + approx, (),
                   SEC_RECEIVING, src)


def _causes(au: Mapping[str, Any]) -> list[str]:
    raw = au.get("causes") or []
    items = raw.split(";") if isinstance(raw, str) else raw
    return [str(c).strip() for c in items if str(c).strip()]


def _requirements(doc: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Every extra requirement the findings bring, as (section, text)."""
    reqs: list[tuple[str, str]] = []
    rw = doc.get("receiving_waters")
    if isinstance(rw, Mapping) and _ran_or_unknown(doc, "receiving_waters"):
        for r in rw.get("requirements") or []:
            if isinstance(r, Mapping):
                reqs.append((_cite(r.get("section") or "320-19 B(10)"), str(r.get("text"))))
        if rw.get("orw"):
            reqs.append(("Ch. 320 definitions: ORW; § 320-19 B(2)",
                         "Discharge to an Outstanding Resource Water: the more stringent "
                         "requirements of 314 CMR 4.00 and the Massachusetts Stormwater "
                         "Standards apply."))
    if doc.get("habitats") and _ran_or_unknown(doc, "habitats"):
        reqs.append(("§ 320-20 A(3)(c)", "Show the NHESP habitats and certified vernal pools "
                     "within 500 ft on the erosion and sediment control plan."))
        reqs.append(("§ 320-20 B(12)", "Prevent significant alteration of the mapped habitats "
                     "from the proposed activities."))
    flood = doc.get("floodplain")
    if isinstance(flood, Mapping) and flood.get("in_sfha") and _ran_or_unknown(doc,
                                                                             "floodplain"):
        reqs.append(("§ 320-19 A(8)", "Delineate the 100-year floodplain on the stormwater "
                     "management plan."))
        reqs.append(("§ 320-20 A(3)(a)", "Show the 100-year flood elevation from the most "
                     "recent FIRM on the erosion and sediment control plan."))
    mitigation = doc.get("mitigation")
    if isinstance(mitigation, list) and any(m.get("eligible") for m in mitigation):
        reqs.append(("§ 320-21 B(3), B(4)", "Stormwater management easements for the off-site "
                     "mitigation areas, recorded at the Essex County Registry of Deeds."))
    return reqs


def _ran_or_unknown(doc: Mapping[str, Any], name: str) -> bool:
    check = _check_for(doc, name)
    return check is None or bool(check.get("ran"))


def _finding_requirements(doc: Mapping[str, Any], permit: Finding) -> Finding:
    reqs = _requirements(doc)
    title = "Extra requirements"
    if not reqs:
        return Finding("requirements", title, "no", "None beyond the standard submittals.",
                       (), "§§ 320-19, 320-20, 320-21", "from the findings above")
    details = tuple(f"{sec}: {text}" for sec, text in reqs)
    prefix = "" if permit.status == "yes" else "If a permit is required: "
    sections = sorted(set(re.findall(r"320-\d+", " ".join(sec for sec, _ in reqs))))
    return Finding("requirements", title, "yes",
                   f"{prefix}{len(reqs)} requirement(s) from the findings above:", details,
                   "§§ " + ", ".join(sections) if len(sections) > 1 else f"§ {sections[0]}"
                   if sections else "", "the findings above")


# --------------------------------------------------------------------------- detail tables
def _tables(doc: Mapping[str, Any]) -> list[Table]:
    tables = []
    habitats = doc.get("habitats") if _ran_or_unknown(doc, "habitats") else None
    if isinstance(habitats, list):
        tables.append(Table(
            "habitats", "NHESP habitats and certified vernal pools within 500 ft",
            f"Features within 500 ft of the limit of disturbance ({SEC_HABITATS}); distance "
            "0 ft means the feature overlaps the site",
            ("Feature id", "Layer", "Distance (ft)", "Overlaps site"),
            tuple((str(h.get("id")), _HABITAT.get(h.get("layer"), str(h.get("layer"))),
                   _num(h.get("distance_ft"), 1), "yes" if h.get("overlaps") else "no")
                  for h in sorted(habitats, key=lambda h: float(h.get("distance_ft") or 0))),
            "No feature within 500 ft."))
    flood = doc.get("floodplain") if _ran_or_unknown(doc, "floodplain") else None
    if isinstance(flood, Mapping):
        rows = [(str(z.get("zone")), str(z.get("subtype") or ""), _num(z.get("area_sqft")),
                 _bfe(z.get("bfe"))) for z in flood.get("zones") or []]
        if float(flood.get("shaded_x_area_sqft") or 0) > 0:
            rows.append(("X (0.2% annual chance)", "shaded X",
                         _num(flood.get("shaded_x_area_sqft")), "n/a"))
        tables.append(Table(
            "floodplain", "Flood zones on the site",
            f"FEMA flood zones overlapping the site ({SEC_FLOODPLAIN}); SFHA total "
            f"{_sqft(flood.get('sfha_area_sqft') or 0)}, "
            f"{_pct(flood.get('site_fraction') or 0, 1)} of the site",
            ("Zone", "Subtype", "Area (sq ft)", "Base flood elevation"), tuple(rows),
            "The site overlaps no FEMA flood zone."))
    rw = doc.get("receiving_waters") if _ran_or_unknown(doc, "receiving_waters") else None
    if isinstance(rw, Mapping):
        rows = [(str(w.get("name") or w.get("id")), str(w.get("id") or ""), "ORW", "", "",
                 _num(w.get("flow_distance_ft"))) for w in rw.get("orw") or []]
        rows += [(str(w.get("name") or w.get("au_id")), str(w.get("au_id") or ""),
                  str(w.get("category") or ""), ", ".join(_causes(w)),
                  str(w.get("tmdl") or ""), _num(w.get("flow_distance_ft")))
                 for w in rw.get("impaired") or []]
        tables.append(Table(
            "receiving_waters", "Receiving waters downstream of the site",
            f"Outstanding Resource Waters and impaired waters met downstream ({SEC_RECEIVING})",
            ("Water", "Id", "Category", "Causes", "TMDL", "Flow distance (ft)"), tuple(rows),
            "No ORW or impaired water downstream."))
        reqs = [(_cite(r.get("section")), str(r.get("text") or ""))
                for r in rw.get("requirements") or [] if isinstance(r, Mapping)]
        if reqs:
            tables.append(Table("requirements", "Requirements from the receiving waters",
                                "Chapter 320 requirements brought by the receiving waters",
                                ("Section", "Requirement"), tuple(reqs)))
    w = doc.get("watersheds")
    if isinstance(w, Mapping) and _ran_or_unknown(doc, "watersheds"):
        rows = [(str(h.get("huc")), level.upper(), str(h.get("name") or ""),
                 _pct(h.get("share"), 1)) for level in ("huc12", "huc10")
                for h in w.get(level) or []]
        tables.append(Table("watersheds", "Watersheds of the site",
                            "USGS HUC12 and HUC10 units containing the site, with the share of "
                            "the site in each", ("HUC", "Level", "Name", "Share of site"),
                            tuple(rows), "The site is in no HUC of the layers given."))
    mitigation = doc.get("mitigation")
    if isinstance(mitigation, list) and mitigation:
        tables.append(Table(
            "mitigation", "Off-site mitigation eligibility",
            "Each proposed mitigation site, its HUC and whether it is eligible "
            f"({SEC_MITIGATION[_dev_value(doc) or 'new']})",
            ("Mitigation site", "HUC", "Eligible", "Reason"),
            tuple((str(m.get("id")), str(m.get("huc") or ""),
                   "yes" if m.get("eligible") else "no", str(m.get("reason") or ""))
                  for m in mitigation)))
    return tables


def _reasons_table(findings: list[Finding]) -> list[Table]:
    rows = tuple((f.title, r) for f in findings for r in f.reasons)
    if not rows:
        return []
    return [Table("reasons", "Reasons recorded by the screening",
                  "The screening's own explanation of each decision, as written in "
                  "screening.json", ("Finding", "Reason"), rows)]


# --------------------------------------------------------------------------- meta
def _meta(doc: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = doc.get("meta")
    return meta if isinstance(meta, Mapping) else {}


def _town(meta: Mapping[str, Any]) -> str:
    town = meta.get("town")
    if isinstance(town, Mapping):
        town = town.get("name")
    return str(town or "Town not recorded")


def _flatten(prefix: str, value: Any) -> list[tuple[str, str]]:
    if isinstance(value, Mapping):
        out = []
        for k, v in value.items():
            out.extend(_flatten(f"{prefix}.{k}" if prefix else str(k), v))
        return out
    if isinstance(value, list | tuple):
        return [(prefix, ", ".join(str(v) for v in value) or "none")]
    return [(prefix, "" if value is None else str(value))]


def _data_sources(doc: Mapping[str, Any]) -> list[tuple[str, str]]:
    meta = _meta(doc)
    raw = meta.get("data_sources", meta.get("sources"))
    rows: list[tuple[str, str]] = []
    if isinstance(raw, Mapping):
        rows = [(str(k), _describe_source(v)) for k, v in raw.items()]
    elif isinstance(raw, list):
        rows = [(str(s.get("key") or "") if isinstance(s, Mapping) else "",
                 _describe_source(s)) for s in raw]
    return rows


def map_caption(image: MapImage) -> str:
    """The map's caption: exactly the legend entries drawn (never a layer that is not there)."""
    return ("Shown: " + "; ".join(image.legend) + ".") if image.legend else "The site."


def _alt_text(doc: Mapping[str, Any], image: MapImage | None) -> str:
    """Alternative text for the map: what it shows, in words (the legend entries drawn)."""
    if image is None:
        return ""
    area = (doc.get("disturbance") or {}).get("area_sqft") if isinstance(
        doc.get("disturbance"), Mapping) else None
    site = f"the screened site ({_sqft(area)})" if area is not None else "the screened site"
    shown = [s for s in image.legend if not s.startswith("Limit of disturbance")]
    text = f"Map of {site}, outlined in red."
    if shown:
        text += " Also shown: " + "; ".join(shown) + "."
    habitats = doc.get("habitats") if isinstance(doc.get("habitats"), list) else []
    if habitats:
        text += " Labelled habitat features: " + ", ".join(
            f"{h.get('id')} ({_ft(h.get('distance_ft'))} away)" for h in habitats) + "."
    return text + f" North is up; the scale bar is {_num(image.scale_bar_ft)} ft long."


# --------------------------------------------------------------------------- build
def build_report(
    document: Mapping[str, Any],
    layers: Mapping[str, gpd.GeoDataFrame] | None = None,
    *,
    received: dt.date | None = None,
) -> ScreeningReport:
    """Turn a screening document (and its map layers) into the report model."""
    doc = document or {}
    meta = _meta(doc)
    permit = _finding_permit(doc)
    findings = [permit, _finding_development(doc), _finding_standards(doc),
                _finding_watersheds(doc), _finding_habitats(doc), _finding_floodplain(doc),
                _finding_receiving(doc)]
    findings.append(_finding_requirements(doc, permit))
    by_key = {f.key: f for f in findings}
    found = [f for f in findings if f.status == "yes"]
    not_run = [f for f in findings if f.status == "not_run"]
    no_findings = not found
    if no_findings and not not_run:
        headline = ("No findings. A stormwater management permit is not required, and the "
                    "screening found no NHESP habitat within 500 ft, no 100-year floodplain on "
                    "the site and no Outstanding Resource Water or impaired water downstream.")
    elif no_findings:
        headline = ("No findings among the checks that ran; these checks did not run: "
                    + ", ".join(f.title for f in not_run) + ".")
    else:
        pr = by_key["disturbance"]
        lead = ("A stormwater management permit is required." if pr.status == "yes" else
                "A stormwater management permit is not required." if pr.status == "no" else
                "The permit trigger was not evaluated.")
        others = [f.title for f in found if f.key not in ("disturbance", "standards",
                                                          "requirements")]
        headline = lead + (" Findings: " + "; ".join(others) + "." if others else "")
        if not_run:
            headline += " Not run: " + ", ".join(f.title for f in not_run) + "."

    image = render_screening_map(layers or {}, title=None) if layers else None
    checklist = submittal_checklist(doc)
    checklist_note = ("" if permit.status == "yes" else
                      "A permit is not required on the screened figures; the checklist applies "
                      "only if a permit application is filed.")
    checks = [(str(c.get("name")), "yes" if c.get("ran") else "no",
               _describe_source(c.get("source")) or "-",
               str(c.get("reason") or c.get("message") or ""))
              for c in doc.get("checks") or [] if isinstance(c, Mapping)]
    params = _flatten("", meta.get("parameters") or {})
    params += _flatten("rules", meta.get("rules") or {})
    synthetic = bool(meta.get("synthetic")) or "synthetic" in _town(meta).lower()
    generated = str(meta.get("generated") or meta.get("generated_at") or meta.get("created")
                    or dt.datetime.now(dt.UTC).isoformat(timespec="seconds"))
    site_label = str(meta.get("site") or meta.get("site_file") or "")
    if isinstance(meta.get("site"), Mapping):
        site_label = _describe_source(meta["site"])
    inputs = meta.get("inputs")
    if not site_label and isinstance(inputs, list):
        site_label = _describe_source([i for i in inputs if isinstance(i, Mapping)])
    notes = []
    if synthetic:
        notes.append("SYNTHETIC SAMPLE DATA: this report is a demonstration on invented "
                     "layers, not a finding about any real property.")
    return ScreeningReport(
        title="Stormwater Management Permit Screening",
        town=_town(meta), synthetic=synthetic, generated=generated, site_label=site_label,
        headline=headline, no_findings=no_findings, findings=findings,
        tables=_tables(doc) + _reasons_table(findings),
        map_image=image, map_alt=_alt_text(doc, image),
        checklist_groups=checklist_groups(), checklist=checklist, checklist_note=checklist_note,
        timeline=permit_timeline(received), received=received, checks=checks,
        parameters=params, data_sources=_data_sources(doc), notes=notes,
    )


# --------------------------------------------------------------------------- HTML
_CSS = """
:root { --ink:#1a1a1a; --muted:#555; --rule:#c8c8c8; --yes:#8a1c1c; --no:#1d5e2a; }
html { font-family: "DejaVu Sans", "Segoe UI", Arial, sans-serif; color: var(--ink);
       font-size: 11pt; line-height: 1.4; }
body { margin: 0 auto; max-width: 10in; padding: 0.4in; }
h1 { font-size: 18pt; margin: 0 0 0.1in; }
h2 { font-size: 14pt; margin: 0.3in 0 0.08in; border-bottom: 2px solid var(--ink); }
h3 { font-size: 11.5pt; margin: 0.2in 0 0.05in; }
p.meta { color: var(--muted); margin: 0.02in 0; font-size: 9.5pt; }
p.headline { font-size: 12pt; font-weight: bold; padding: 0.08in 0.12in;
             border-left: 5px solid var(--ink); background: #f3f3f3; }
p.synthetic { font-weight: bold; color: #7a4a00; border: 2px solid #7a4a00; padding: 0.05in; }
table { border-collapse: collapse; width: 100%; margin: 0.05in 0 0.15in; font-size: 9.5pt; }
caption { text-align: left; font-style: italic; color: var(--muted); padding-bottom: 0.04in; }
th, td { border: 1px solid var(--rule); padding: 3px 5px; vertical-align: top; text-align: left; }
thead th { background: #e9e9e9; }
tbody th { font-weight: bold; background: #fafafa; }
#table-findings td:nth-child(5) { font-size: 8.5pt; overflow-wrap: anywhere; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.status { font-weight: bold; white-space: nowrap; }
.status-yes { color: var(--yes); } .status-no { color: var(--no); }
.status-not_run { color: #7a4a00; } .status-info { color: #1f3f7a; }
tr.not-applicable td, tr.not-applicable th { color: #777; }
ul.details { margin: 0.03in 0 0 0.15in; padding: 0; font-size: 9pt; }
figure { margin: 0.1in 0; } figure img { width: 100%; height: auto; border: 1px solid var(--rule); }
figcaption { font-size: 9pt; color: var(--muted); }
small.cite { color: var(--muted); }
@page { size: letter; margin: 0.5in; }
@media print {
  body { max-width: none; padding: 0; font-size: 10pt; }
  h1 { font-size: 15pt; } h2 { font-size: 12pt; margin-top: 0.15in; }
  p.headline { font-size: 10pt; }
  #table-findings { font-size: 7.2pt; line-height: 1.25; } ul.details { font-size: 7pt; }
  #table-findings td, #table-findings th { padding: 2px 3px; }
  #table-findings td:nth-child(5) { font-size: 6.6pt; }
  p.meta, p.synthetic { font-size: 8pt; margin: 0.02in 0; }
  section#findings { break-after: page; zoom: 0.8; }  /* the findings on one sheet */
  tr#finding-requirements { break-inside: auto; }
  section#map { break-after: page; }
  h2, h3 { break-after: avoid; }
  tr, figure, p.headline { break-inside: avoid; }
  thead { display: table-header-group; }
  a { color: inherit; text-decoration: none; }
}
"""


def _e(text: Any) -> str:
    return html.escape("" if text is None else str(text), quote=True)


def _html_table(table: Table, *, num_cols: tuple[int, ...] = ()) -> str:
    head = "".join(f'<th scope="col">{_e(c)}</th>' for c in table.columns)
    if not table.rows:
        body = f'<tr><td colspan="{len(table.columns)}">{_e(table.empty)}</td></tr>'
    else:
        body = ""
        for row in table.rows:
            cells = f'<th scope="row">{_e(row[0])}</th>' + "".join(
                f'<td{" class=num" if i + 1 in num_cols else ""}>{_e(v)}</td>'
                for i, v in enumerate(row[1:]))
            body += f"<tr>{cells}</tr>"
    return (f'<table id="table-{_e(table.key)}"><caption>{_e(table.caption)}</caption>'
            f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")


NA_CLASS = ' class="not-applicable"'


def _applies_text(item: ChecklistItem) -> str:
    return {True: "Required", False: "Not applicable", None: "Check"}[item.applies]


def _deadline_date(d: Deadline) -> str:
    return f"{d.date:%a %b %-d, %Y}" if d.date else "when the dates are known"


def render_html(report: ScreeningReport) -> str:
    """The report as one self-contained, printable, accessible HTML page (map inlined)."""
    r = report
    out: list[str] = [
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(r.title)} - {_e(r.town)}</title>",
        '<meta name="generator" content="swm-gis">', f"<style>{_CSS}</style>", "</head>",
        "<body>", "<main>",
        '<section id="findings" aria-labelledby="h-findings">',
        f"<h1>{_e(r.title)}</h1>",
        f'<p class="meta">Town of {_e(r.town)} &middot; Stormwater Management Rules and '
        "Regulations, Chapter 320 &middot; "
        f"generated {_e(r.generated)}</p>",
    ]
    if r.site_label:
        out.append(f'<p class="meta">Site: {_e(r.site_label)}</p>')
    out += [f'<p class="synthetic" role="note">{_e(n)}</p>' for n in r.notes]
    out.append('<h2 id="h-findings">Findings</h2>')
    out.append(f'<p class="headline">{_e(r.headline)}</p>')
    rows = []
    for f in r.findings:
        details = ("<ul class=\"details\">" + "".join(f"<li>{_e(d)}</li>" for d in f.details)
                   + "</ul>") if f.details else ""
        rows.append(
            f'<tr id="finding-{_e(f.key)}"><th scope="row">{_e(f.title)}</th>'
            f'<td><span class="status status-{_e(f.status)}">{STATUS_TEXT[f.status]}</span></td>'
            f"<td>{_e(f.result)}{details}</td><td>{_e(f.section)}</td>"
            f"<td>{_e(f.source)}</td></tr>")
    out.append(
        '<table id="table-findings"><caption>Each finding with the Chapter 320 section behind '
        "it and the data layer (file, layer and modification date) it came from</caption>"
        '<colgroup><col style="width:15%"><col style="width:7%"><col style="width:46%">'
        '<col style="width:14%"><col style="width:18%"></colgroup>'
        '<thead><tr><th scope="col">Finding</th><th scope="col">Status</th>'
        '<th scope="col">Result</th><th scope="col">Chapter 320</th>'
        '<th scope="col">Data (vintage)</th></tr></thead><tbody>' + "".join(rows)
        + "</tbody></table>")
    out.append("</section>")

    out.append('<section id="map" aria-labelledby="h-map"><h2 id="h-map">Map</h2>')
    if r.map_image is not None:
        b64 = base64.b64encode(r.map_image.png).decode("ascii")
        out.append(
            f'<figure><img src="data:image/png;base64,{b64}" alt="{_e(r.map_alt)}" '
            f'width="{r.map_image.width_px}" height="{r.map_image.height_px}">'
            f"<figcaption>{_e(map_caption(r.map_image))} Rendered offline; distances in the "
            "report are measured exactly, not from the rings.</figcaption></figure>")
    else:
        out.append("<p>No map: the screening layers (screening.gpkg) were not given.</p>")
    out.append("</section>")

    out.append('<section id="details" aria-labelledby="h-details">'
               '<h2 id="h-details">Details</h2>')
    for t in r.tables:
        num_cols = tuple(i for i, c in enumerate(t.columns) if "(ft)" in c or "(sq ft)" in c)
        out.append(f"<h3>{_e(t.title)}</h3>{_html_table(t, num_cols=num_cols)}")
    if not r.tables:
        out.append("<p>No detail tables: the screening document has no results to list.</p>")
    out.append("</section>")

    out.append('<section id="checklist" aria-labelledby="h-checklist">'
               '<h2 id="h-checklist">Submittal checklist</h2>')
    if r.checklist_note:
        out.append(f"<p>{_e(r.checklist_note)}</p>")
    out.append("<p>Items of the application package (§ 320-18 A) and of the plans required by "
               "§§ 320-19, 320-20 and 320-21. <em>Required</em>: applies to every application "
               "or was triggered by a finding; <em>Not applicable</em>: its condition was not "
               "met on the screened data; <em>Check</em>: the screening could not decide.</p>")
    for g in r.checklist_groups:
        items = [i for i in r.checklist if i.group == g.key]
        body = "".join(
            f"<tr{NA_CLASS if i.applies is False else ''}>"
            f'<th scope="row">{_e(i.citation)}</th><td>{_e(i.text)}</td>'
            f"<td>{_applies_text(i)}</td><td>{_e(i.note)}</td></tr>" for i in items)
        out.append(
            f"<h3>{_e(g.title)} ({_e(g.section)})</h3>"
            f'<table id="checklist-{_e(g.key)}"><caption>{_e(g.title)}: submittal items of '
            f"{_e(g.section)}</caption><thead><tr><th scope=\"col\">Section</th>"
            '<th scope="col">Item</th><th scope="col">Applies</th>'
            f'<th scope="col">Screening note</th></tr></thead><tbody>{body}</tbody></table>')
    out.append("</section>")

    out.append('<section id="timeline" aria-labelledby="h-timeline">'
               '<h2 id="h-timeline">Permit timeline</h2>')
    if r.received:
        out.append(f"<p>Computed from the application received on "
                   f"{r.received:%A, %B %-d, %Y}. Business days skip Saturdays, Sundays and "
                   "Massachusetts legal holidays; calendar days do not count the day the "
                   "period runs from. The notice deadlines assume the hearing opens on the "
                   "latest permitted day; an earlier hearing moves them earlier.</p>")
    else:
        out.append("<p>No receipt date was given, so no dates are computed; pass "
                   "<code>--received DATE</code> to compute them.</p>")
    body = "".join(
        f'<tr><th scope="row">{_e(d.label)}</th><td>{_e(_deadline_date(d))}</td>'
        f"<td>{_e(d.rule)}{(' ' + _e(d.note)) if d.note else ''}</td><td>{_e(d.section)}</td>"
        f"<td>{_e(d.basis)}</td></tr>" for d in r.timeline)
    out.append('<table id="table-timeline"><caption>Chapter 320 § 320-18 deadlines'
               "</caption><thead><tr><th scope=\"col\">Step</th><th scope=\"col\">Date</th>"
               '<th scope="col">Rule</th><th scope="col">Section</th>'
               f'<th scope="col">Computed as</th></tr></thead><tbody>{body}</tbody></table>')
    out.append("</section>")

    out.append('<section id="sources" aria-labelledby="h-sources">'
               '<h2 id="h-sources">Data sources, checks and parameters</h2>')
    out.append(_html_table(Table("checks", "Checks", "Each screening check, whether it ran and "
                                 "on which data", ("Check", "Ran", "Data", "Reason"),
                                 tuple(r.checks), "No checks recorded.")))
    if r.data_sources:
        out.append(_html_table(Table("sources", "Data sources", "Reference layers of the town "
                                     "configuration (file, layer, modification date)",
                                     ("Layer", "Source"), tuple(r.data_sources))))
    out.append(_html_table(Table("parameters", "Parameters", "Parameters of this screening run",
                                 ("Parameter", "Value"), tuple(r.parameters),
                                 "No parameters recorded.")))
    out.append("</section>")
    out += ["</main>", "</body>", "</html>"]
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- PDF
def render_pdf(report: ScreeningReport) -> bytes:
    """The report as a US Letter PDF with real (searchable) text in an embedded Unicode font."""
    from reportlab.lib import colors
    from reportlab.lib.enums import TA_LEFT
    from reportlab.lib.pagesizes import letter
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.lib.units import inch
    from reportlab.pdfbase.pdfmetrics import registerFontFamily
    from reportlab.platypus import (
        BaseDocTemplate,
        Frame,
        Image,
        KeepInFrame,
        KeepTogether,
        PageBreak,
        PageTemplate,
        Paragraph,
        Spacer,
        TableStyle,
    )
    from reportlab.platypus import Table as RLTable

    from swm_gis.reports.pdf_fonts import register_fonts

    r = report
    regular, bold = register_fonts()
    if regular != "Helvetica":
        registerFontFamily(regular, normal=regular, bold=bold, italic=regular,
                           boldItalic=bold)
    base = ParagraphStyle("base", fontName=regular, fontSize=9, leading=11.5, alignment=TA_LEFT)
    small = ParagraphStyle("small", parent=base, fontSize=7.6, leading=9.4)
    cell_b = ParagraphStyle("cellb", parent=small, fontName=bold)
    h1 = ParagraphStyle("h1", parent=base, fontName=bold, fontSize=16, leading=20,
                        spaceAfter=4)
    h2 = ParagraphStyle("h2", parent=base, fontName=bold, fontSize=12.5, leading=16,
                        spaceBefore=10, spaceAfter=4)
    h3 = ParagraphStyle("h3", parent=base, fontName=bold, fontSize=10, leading=13,
                        spaceBefore=6, spaceAfter=2)
    meta = ParagraphStyle("meta", parent=base, fontSize=8.5, textColor=colors.HexColor("#555555"))
    headline = ParagraphStyle("headline", parent=base, fontName=bold, fontSize=10.5,
                              leading=13.5, borderColor=colors.black, borderWidth=0,
                              backColor=colors.HexColor("#f0f0f0"), borderPadding=5,
                              spaceBefore=4, spaceAfter=8)
    warn = ParagraphStyle("warn", parent=base, fontName=bold,
                          textColor=colors.HexColor("#7a4a00"))

    def p(text: Any, style=small) -> Paragraph:
        return Paragraph(_e(text), style)

    def table(header: list[str], rows: list[list[Any]], widths: list[float],
              caption: str | None = None, grey_rows: tuple[int, ...] = ()) -> list:
        data = [[p(h, cell_b) for h in header]]
        for row in rows:
            data.append([c if isinstance(c, Paragraph) else p(c, cell_b if i == 0 else small)
                         for i, c in enumerate(row)])
        t = RLTable(data, colWidths=[w * inch for w in widths], repeatRows=1)
        style = [("GRID", (0, 0), (-1, -1), 0.4, colors.HexColor("#b0b0b0")),
                 ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e6e6e6")),
                 ("VALIGN", (0, 0), (-1, -1), "TOP"),
                 ("LEFTPADDING", (0, 0), (-1, -1), 3), ("RIGHTPADDING", (0, 0), (-1, -1), 3),
                 ("TOPPADDING", (0, 0), (-1, -1), 2), ("BOTTOMPADDING", (0, 0), (-1, -1), 2)]
        style += [("TEXTCOLOR", (0, i + 1), (-1, i + 1), colors.HexColor("#777777"))
                  for i in grey_rows]
        t.setStyle(TableStyle(style))
        out = [p(caption, meta)] if caption else []
        return [*out, t, Spacer(1, 6)]

    first: list = [Paragraph(_e(r.title), h1),
                   p(f"Town of {r.town} - Stormwater Management Rules and Regulations, "
                     f"Chapter 320 - generated {r.generated}", meta)]
    if r.site_label:
        first.append(p(f"Site: {r.site_label}", meta))
    first += [p(n, warn) for n in r.notes]
    first += [Paragraph(_e("Findings"), h2), Paragraph(_e(r.headline), headline)]
    rows = []
    for f in r.findings:
        text = _e(f.result) + "".join(f"<br/>- {_e(d)}" for d in f.details)
        status_color = {"yes": "#8a1c1c", "no": "#1d5e2a", "not_run": "#7a4a00",
                        "info": "#1f3f7a"}[f.status]
        rows.append([f.title,
                     Paragraph(f'<font color="{status_color}"><b>{STATUS_TEXT[f.status]}</b>'
                               "</font>", small),
                     Paragraph(text, small), f.section, f.source])
    first += table(["Finding", "Status", "Result", "Chapter 320", "Data (vintage)"], rows,
                   [1.0, 0.5, 3.35, 1.2, 1.25])
    # The findings are one page: shrink them to fit rather than let them run over.
    story: list = [KeepInFrame(7.3 * inch, 9.75 * inch, first, mode="shrink"), PageBreak()]

    story.append(Paragraph("Map", h2))
    if r.map_image is not None:
        width = 7.3 * inch
        height = width * r.map_image.height_px / max(r.map_image.width_px, 1)
        story.append(Image(io.BytesIO(r.map_image.png), width=width, height=height))
        story.append(p(map_caption(r.map_image) + " Map description: " + r.map_alt, meta))
    else:
        story.append(p("No map: the screening layers (screening.gpkg) were not given.", base))

    story.append(Paragraph("Details", h2))
    widths_by_cols = {2: [2.0, 5.3], 4: [1.6, 1.6, 1.6, 2.5],
                      6: [1.6, 1.0, 0.7, 2.0, 1.2, 0.8]}
    for t in r.tables:
        widths = widths_by_cols.get(len(t.columns), [7.3 / len(t.columns)] * len(t.columns))
        rows = [list(row) for row in t.rows] or [[t.empty] + [""] * (len(t.columns) - 1)]
        story.append(KeepTogether([Paragraph(_e(t.title), h3),
                                   *table(list(t.columns), rows, widths, t.caption)]))

    story.append(PageBreak())
    story.append(Paragraph("Submittal checklist", h2))
    if r.checklist_note:
        story.append(p(r.checklist_note, base))
    story.append(p("Required: applies to every application or was triggered by a finding. "
                   "Not applicable: its condition was not met on the screened data. Check: the "
                   "screening could not decide.", meta))
    for g in r.checklist_groups:
        items = [i for i in r.checklist if i.group == g.key]
        story.append(Paragraph(_e(f"{g.title} ({g.section})"), h3))
        story += table(["Section", "Item", "Applies", "Screening note"],
                       [[i.citation, i.text, _applies_text(i), i.note] for i in items],
                       [1.2, 3.5, 0.8, 1.8],
                       grey_rows=tuple(n for n, i in enumerate(items) if i.applies is False))

    timeline: list = [Paragraph("Permit timeline", h2)]
    if r.received:
        timeline.append(p(
            f"Computed from the application received on {r.received:%A, %B %-d, %Y}. Business "
            "days skip Saturdays, Sundays and Massachusetts legal holidays; calendar days do not "
            "count the day the period runs from. The notice deadlines assume the hearing opens "
            "on the latest permitted day; an earlier hearing moves them earlier.", base))
    else:
        timeline.append(p("No receipt date was given, so no dates are computed; pass "
                          "--received DATE to compute them.", base))
    timeline += table(["Step", "Date", "Rule", "Section", "Computed as"],
                      [[d.label, _deadline_date(d), d.rule + (" " + d.note if d.note else ""),
                        d.section, d.basis] for d in r.timeline],
                      [1.3, 1.1, 2.9, 0.8, 1.2])
    story.append(KeepTogether(timeline))

    story.append(Paragraph("Data sources, checks and parameters", h2))
    story.append(Paragraph("Checks", h3))
    story += table(["Check", "Ran", "Data", "Reason"], [list(c) for c in r.checks]
                   or [["No checks recorded.", "", "", ""]], [1.3, 0.4, 3.8, 1.8])
    if r.data_sources:
        story.append(Paragraph("Data sources", h3))
        story += table(["Layer", "Source"], [list(s) for s in r.data_sources], [1.6, 5.7])
    story.append(Paragraph("Parameters", h3))
    story += table(["Parameter", "Value"], [list(s) for s in r.parameters]
                   or [["No parameters recorded.", ""]], [2.4, 4.9])

    footer = f"{r.title} - {r.town}" + (" - SYNTHETIC SAMPLE DATA" if r.synthetic else "")

    def on_page(canvas, doc) -> None:
        canvas.saveState()
        canvas.setFont(regular, 7.5)
        canvas.setFillColor(colors.HexColor("#555555"))
        canvas.drawString(0.6 * inch, 0.4 * inch, footer)
        canvas.drawRightString(letter[0] - 0.6 * inch, 0.4 * inch, f"Page {doc.page}")
        canvas.restoreState()

    buf = io.BytesIO()
    doc = BaseDocTemplate(buf, pagesize=letter, leftMargin=0.6 * inch,
                          rightMargin=0.6 * inch, topMargin=0.55 * inch,
                          bottomMargin=0.65 * inch, title=f"{r.title} - {r.town}",
                          author="swm-gis", subject="Chapter 320 screening report",
                          creator="swm-gis")
    frame = Frame(doc.leftMargin, doc.bottomMargin, doc.width, doc.height, id="body")
    # The footer is drawn when the page ends, so text extraction reads the page body first.
    doc.addPageTemplates([PageTemplate(id="page", frames=[frame], onPageEnd=on_page)])
    doc.build(story)
    return buf.getvalue()


# --------------------------------------------------------------------------- write
def write_screening_report(
    document: Mapping[str, Any],
    layers: Mapping[str, gpd.GeoDataFrame] | None,
    out_dir: str | Path,
    *,
    received: dt.date | None = None,
) -> dict[str, Path]:
    """Write ``screening_report.html`` and ``screening_report.pdf`` into ``out_dir``.

    Both files are written atomically (a temporary name moved into place); the caller checks
    ``--overwrite`` beforehand. Returns ``{"html": path, "pdf": path}``.

    Parameters
    ----------
    document
        The screening document (``screening.json`` content, SPEC section 5, with ``meta``).
    layers
        The ``screening.gpkg`` layers by name, for the map; missing ones are not drawn.
    received
        Date the completed application was received; the permit timeline gets dates from it.
    """
    out_dir = Path(out_dir)
    report = build_report(document, layers, received=received)
    html_path = write_text(render_html(report), out_dir / HTML_NAME)
    pdf_path = write_bytes(render_pdf(report), out_dir / PDF_NAME)
    return {"html": html_path, "pdf": pdf_path}

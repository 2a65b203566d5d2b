"""The screening report's content: findings page, detail tables, checklist, parameters.

:func:`build_report` turns a screening document (``screening.json``) into a
:class:`~swm_gis.reports.screening_model.ScreeningReport`. Every status, the headline and the
checklist come from the document's ``findings`` (decided by :mod:`swm_gis.screening.findings`), so
the report never says "no", "none" or "not applicable" where a finding says "conditional" or "not
checked". Each finding cites its Chapter 320 section and the data layers (and vintage) it used, and
names the layers it lacked.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from typing import Any

import geopandas as gpd

from swm_gis import formatting as fmt
from swm_gis.config.town_regulation import read_profile
from swm_gis.formatting import bfe_text as _bfe
from swm_gis.reports.screening_map import MapImage, render_screening_map
from swm_gis.reports.screening_model import (
    Finding,
    ScreeningReport,
    Table,
    describe_source,
    timeline_intro,
)
from swm_gis.reports.screening_parameters import parameter_rows
from swm_gis.rules.procedure import procedure_of
from swm_gis.rules.timeline import permit_timeline
from swm_gis.screening.checklist import checklist_file, checklist_groups, submittal_checklist
from swm_gis.screening.finding_parts import layer_names
from swm_gis.screening.findings import decide_findings
from swm_gis.screening.general_requirements import general_requirements
from swm_gis.screening.wording import applied_of_document, wording_for, wording_of_document

__all__ = ["build_report", "report_findings"]

_HABITAT = {"priority": "Priority Habitat", "estimated": "Estimated Habitat",
            "vernal_pool": "Certified Vernal Pool"}
_CHECKED = ("yes", "no", "conditional")


# --------------------------------------------------------------------------- helpers
def _cite(section: Any) -> str:
    """A citation with its section sign: '320-19 B(10)' -> '§ 320-19 B(10)'."""
    text = str(section or "").strip()
    return f"§ {text}" if re.match(r"^\d{3}-\d+", text) else text


def _meta(doc: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = doc.get("meta")
    return meta if isinstance(meta, Mapping) else {}


def _reasons(block: Any) -> tuple[str, ...]:
    if not isinstance(block, Mapping):
        return ()
    return tuple(str(r) for r in block.get("reasons") or [] if r)


def _sources_by_key(doc: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """Every recorded source by its layer key (``site`` for the disturbance check's input)."""
    meta = _meta(doc)
    found: list[Any] = [*(meta.get("inputs") or []), *(meta.get("sources") or [])]
    if isinstance(meta.get("data_sources"), Mapping):
        found += list(meta["data_sources"].values())
    out: dict[str, Mapping[str, Any]] = {}
    for check in doc.get("checks") or []:
        src = check.get("source") if isinstance(check, Mapping) else None
        if check.get("name") == "disturbance" and isinstance(src, Mapping):
            out["site"] = src
        found += src if isinstance(src, list) else [src]
    for src in found:
        if isinstance(src, Mapping) and src.get("key"):
            out.setdefault(str(src["key"]).lstrip("-").replace("-", "_"), src)
    return out


def _data_text(f: Mapping[str, Any], sources: Mapping[str, Mapping[str, Any]],
               chapter: str) -> str:
    used = [describe_source(sources[k], compact=True) if k in sources else k
            for k in f.get("layers_used") or []]
    text = "; ".join(used) or f"{chapter} rule values (no data layer)"
    missing = f.get("layers_missing") or []
    if missing:  # in words, never config keys (issue 35)
        text += "; not configured: " + layer_names(missing)
    return text


# --------------------------------------------------------------------------- findings
def report_findings(doc: Mapping[str, Any]) -> list[Finding]:
    """The findings rows: the document's ``findings`` (decided here if it has none), then the
    extra requirements they bring."""
    items = doc.get("findings") or decide_findings(doc)
    sources = _sources_by_key(doc)
    chapter = _regulation_names(_meta(doc))[1]
    rows = [Finding(str(f["key"]), str(f["title"]), str(f["status"]), str(f["answer"]),
                    tuple(str(c) for c in f.get("caveats") or []), _cite(f.get("section")),
                    _data_text(f, sources, chapter), reasons=_reasons(doc.get(f["key"])))
            for f in items]
    return [*rows, _finding_requirements(doc, rows)]


def _requirements(doc: Mapping[str, Any], status: Mapping[str, str]) -> list[tuple[str, str]]:
    """Every extra requirement the findings bring, as (section, text), citing the regulation
    applied (its words: :mod:`swm_gis.screening.wording`)."""
    reqs: list[tuple[str, str]] = []
    applied = applied_of_document(doc)
    words, res = wording_for(applied), applied.version.section("resources")
    distance = fmt.number((doc.get("rules") or {}).get("habitat_distance_ft") or 500)
    flood = str(res.get("floodplain_citation") or words.citation("floodplain")).split("; ")
    rw = doc.get("receiving_waters")
    if isinstance(rw, Mapping):
        reqs += [(_cite(r.get("section") or res.get("impaired_citation")
                        or words.citation("receiving_waters")), str(r.get("text")))
                 for r in rw.get("requirements") or [] if isinstance(r, Mapping)]
    if status.get("habitats") == "yes":
        reqs.append((str(res.get("nhesp_citation") or words.citation("habitats")),
                     "Show the NHESP habitats and certified vernal pools "
                     f"within {distance} ft on the erosion and sediment control plan."))
        reqs.append((str(res.get("nhesp_prevent_citation") or words.citation("habitats")),
                     "Prevent significant alteration of the mapped habitats "
                     "from the proposed activities."))
    if status.get("floodplain") == "yes":
        reqs.append((flood[0], "Delineate the 100-year floodplain on the stormwater "
                     "management plan."))
        reqs.append((flood[-1], str(words.note("floodplain_show"))))
    mitigation = doc.get("mitigation")
    if isinstance(mitigation, list) and any(m.get("eligible") for m in mitigation):
        reqs.append((str(words.note("easements_citation")), str(words.note("easements"))))
    return reqs


def _finding_requirements(doc: Mapping[str, Any], findings: list[Finding]) -> Finding:
    status = {f.key: f.status for f in findings}
    reqs = _requirements(doc, status)
    title = "Extra requirements"
    open_ = [f.title for f in findings if f.status in ("conditional", "not_checked")
             and f.key not in ("disturbance", "standards", "development_type", "mitigation")]
    cited = wording_of_document(doc).citation("general_requirements")
    if not reqs and open_:
        return Finding("requirements", title, "conditional",
                       "None from the checks that were complete; these were not checked or "
                       "incomplete and could bring more: " + "; ".join(open_) + ".",
                       (), cited, "the findings above")
    if not reqs:
        return Finding("requirements", title, "no", "None beyond the standard submittals and "
                       "the general requirements.", (), cited, "the findings above")
    details = tuple(f"{sec}: {text}" for sec, text in reqs)
    prefix = "" if status.get("disturbance") == "yes" else "If a permit is required: "
    # the numbered sections cited ("§ 320-19 B(10)" -> 320-19)
    sections = sorted(set(re.findall(r"(?<=§ )\d+-\d+|(?<=^)\d+-\d+",
                                     "\n".join(sec for sec, _ in reqs), re.M)))
    cite = ("§§ " + ", ".join(sections) if len(sections) > 1
            else f"§ {sections[0]}" if sections else "")
    return Finding("requirements", title, "yes",
                   f"{prefix}{len(reqs)} requirement(s) from the findings above:", details,
                   cite, "the findings above")


def _permit_lead(permit: Finding | None, claimed: Any,
                 d: Mapping[str, Any] | None = None, authority: str = "permit authority") -> str:
    """The headline's first sentence: whether a permit is required (the trigger in words:
    the disturbance block's ``trigger_sqft``; the common plan only where the regulation
    counts one)."""
    d = d or {}
    area = fmt.trigger_area(d.get("trigger_sqft") or 43_560)
    below = (f"the site disturbs less than {area}" if d.get("counts_common_plan") is False
             else f"neither the site nor its common plan of development or sale disturbs {area}")
    lead = {"yes": "A stormwater management permit is required.",
            "no": f"A stormwater management permit is not required: {below}.",
            }.get(permit.status if permit else "", "")
    if permit is not None and permit.status == "conditional" and claimed:
        names = ", ".join(f"{e.get('section')} ({e.get('name')})" for e in claimed
                          if isinstance(e, Mapping))
        lead = ("Whether a stormwater management permit is required is conditional: the "
                f"applicant claims an exemption ({names}); this is the applicant's claim, and "
                f"the {authority} decides whether it applies.")
    elif permit is not None and permit.status == "conditional":
        lead = ("Whether a stormwater management permit is required is conditional: "
                + permit.result.removeprefix("Conditional. ").split(". ")[0] + ".")
    elif permit is None or permit.status == "not_checked":
        lead = "The permit trigger was not evaluated."
    return lead


_HEADLINE_SKIP = ("disturbance", "standards", "requirements", "development_type")


def _status_groups(findings: list[Finding]) -> list[str]:
    """The headline's lists of resource findings: found, conditional, not checked."""
    groups = [("Found", "yes"), ("Conditional", "conditional"), ("Not checked", "not_checked")]
    parts = []
    for word, status in groups:
        names = [f.title for f in findings if f.status == status and f.key not in _HEADLINE_SKIP
                 and not (status == "yes" and f.key == "mitigation")]
        if names:
            parts.append(f"{word}: " + "; ".join(names) + ".")
    if all(f.status in ("no", "info") for f in findings if f.key not in _HEADLINE_SKIP):
        parts.append("Every resource check ran on data covering the area searched and found "
                     "nothing that brings an extra requirement.")
    return parts


def headline(findings: list[Finding], doc: Mapping[str, Any] | None = None) -> str:
    """Page 1's headline, from the statuses: what is required, found, open."""
    by = {f.key: f for f in findings}
    d = (doc or {}).get("disturbance")
    claimed = d.get("exemption") if isinstance(d, Mapping) else None
    authority = wording_of_document(doc or {}).rules.authority  # who decides a claim
    return " ".join([_permit_lead(by.get("disturbance"), claimed,
                                  d if isinstance(d, Mapping) else None, authority)]
                    + _status_groups(findings))


# --------------------------------------------------------------------------- detail tables
_INCOMPLETE = "None found in the layers given; the search was incomplete (see the findings)."


def _tables(doc: Mapping[str, Any], status: Mapping[str, str]) -> list[Table]:
    return (_habitat_tables(doc, status) + _flood_tables(doc, status)
            + _water_tables(doc, status.get("receiving_waters"), _INCOMPLETE)
            + _watershed_tables(doc, status) + _mitigation_tables(doc))


def _finding_of(doc: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    """The document's finding ``key`` (its title and section cite the regulation applied);
    empty for a document without findings."""
    return next((f for f in doc.get("findings") or [] if isinstance(f, Mapping)
                 and f.get("key") == key), {})


def _section_of(doc: Mapping[str, Any], key: str) -> str:
    """The section of the document's finding ``key``; for a document without findings, the
    citation of the regulation its ``meta.regulation`` names."""
    return str(_finding_of(doc, key).get("section")
               or wording_of_document(doc).citation(key))


def _habitat_tables(doc: Mapping[str, Any], status: Mapping[str, str]) -> list[Table]:
    habitats = doc.get("habitats")
    if not isinstance(habitats, list) or status.get("habitats") not in _CHECKED:
        return []
    cited = _finding_of(doc, "habitats")
    distance = fmt.number((doc.get("rules") or {}).get("habitat_distance_ft") or 500)
    return [Table(
        "habitats", str(cited.get("title") or f"NHESP habitats and certified vernal pools "
                                                f"within {distance} ft"),
        f"Features within {distance} ft of the limit of disturbance "
        f"({_section_of(doc, 'habitats')}); "
        "distance 0 ft means the feature overlaps the site",
        ("Feature id", "Layer", "Distance (ft)", "Overlaps site"),
        tuple((str(h.get("id")), _HABITAT.get(h.get("layer"), str(h.get("layer"))),
               fmt.number(h.get("distance_ft"), 1), "yes" if h.get("overlaps") else "no")
              for h in sorted(habitats, key=lambda h: float(h.get("distance_ft") or 0))),
        "No feature within 500 ft." if status["habitats"] == "no" else _INCOMPLETE)]


def _flood_rows(site: Mapping[str, Any]) -> list[tuple[str, ...]]:
    rows = [(str(z.get("zone")), str(z.get("subtype") or ""), fmt.number(z.get("area_sqft")),
             _bfe(z.get("bfe"))) for z in site.get("zones") or []]
    if float(site.get("shaded_x_area_sqft") or 0) > 0:
        rows.append(("X (0.2% annual chance)", "shaded X",
                     fmt.number(site.get("shaded_x_area_sqft")), "n/a"))
    return rows


def _flood_caption(flood: Mapping[str, Any], site: Mapping[str, Any], on_parcels: bool,
                   sfha_split: Any = None, *, section: str) -> str:
    where = "the site's parcel(s)" if on_parcels else "the limit of disturbance"
    split = (f"; {fmt.sqft(flood.get('sfha_area_sqft') or 0)} of it inside the limit of "
             "disturbance" if on_parcels else "")
    if on_parcels and isinstance(sfha_split, Mapping):  # every square foot once
        split = (f"; {fmt.sqft(sfha_split.get('inside_sqft') or 0)} of it inside the limit of "
                 f"disturbance and {fmt.sqft(sfha_split.get('outside_sqft') or 0)} outside it"
                 + (f"; {fmt.sqft(sfha_split['off_parcel_sqft'])} more inside the limit off "
                    "the parcel(s)" if float(sfha_split.get("off_parcel_sqft") or 0) > 0
                    else ""))
    shaded = ("" if flood.get("shaded_x_checked") is not False else
              "; the 0.2%-annual-chance zone was not checked (the flood zone layer holds "
              "none around the site and does not say it maps them)")
    return (f"FEMA flood zones overlapping {where} ({section}); SFHA "
            f"total {fmt.sqft(site.get('sfha_area_sqft') or 0)}, "
            f"{fmt.pct(site.get('site_fraction') or 0, 1)} of {where}{split}{shaded}")


def _flood_empty(flood: Mapping[str, Any], on_parcels: bool) -> str:
    where = "the site's parcel(s)" if on_parcels else "the limit of disturbance"
    return (f"{where[0].upper()}{where[1:]} overlaps no Special Flood Hazard Area zone"
            + (" and no 0.2%-annual-chance zone." if flood.get("shaded_x_checked") is not False
               else "; the 0.2%-annual-chance zone was not checked."))


def _flood_tables(doc: Mapping[str, Any], status: Mapping[str, str]) -> list[Table]:
    flood = doc.get("floodplain")
    if not isinstance(flood, Mapping) or status.get("floodplain") not in _CHECKED:
        return []
    parcels = flood.get("subject_parcels")
    site = parcels if isinstance(parcels, Mapping) else flood
    on_parcels = site is parcels
    return [Table(
        "floodplain", "Flood zones on the site",
        _flood_caption(flood, site, on_parcels, (doc.get("site_split") or {}).get("sfha"),
                       section=_section_of(doc, "floodplain")),
        ("Zone", "Subtype", "Area (sq ft)", "Base flood elevation"), tuple(_flood_rows(site)),
        _flood_empty(flood, on_parcels) if status["floodplain"] == "no" else _INCOMPLETE)]


def _watershed_tables(doc: Mapping[str, Any], status: Mapping[str, str]) -> list[Table]:
    w = doc.get("watersheds")
    if not isinstance(w, Mapping) or status.get("watersheds") in (None, "not_checked"):
        return []
    rows = [(str(h.get("huc")), level.upper(), str(h.get("name") or ""),
             fmt.pct(h.get("share"), 1)) for level in ("huc12", "huc10")
            for h in w.get(level) or []]
    return [Table("watersheds", "Watersheds of the site",
                  "USGS HUC12 and HUC10 units containing the site, with the share of "
                  "the site in each", ("HUC", "Level", "Name", "Share of site"),
                  tuple(rows), "No unit of the HUC layers given contains the site.")]


def _mitigation_tables(doc: Mapping[str, Any]) -> list[Table]:
    mitigation = doc.get("mitigation")
    if not isinstance(mitigation, list) or not mitigation:
        return []
    return [Table(
        "mitigation", "Off-site mitigation eligibility",
        "Each proposed mitigation site, its HUC and whether it is eligible "
        f"({_section_of(doc, 'mitigation')})",
        ("Mitigation site", "HUC", "Eligible", "Reason"),
        tuple((str(m.get("id")), str(m.get("huc") or ""),
               "yes" if m.get("eligible") else "no", str(m.get("reason") or ""))
              for m in mitigation))]


def _water_rows(rw: Mapping[str, Any]) -> list[tuple[str, ...]]:
    rows = [(str(w.get("name") or w.get("id")), str(w.get("id") or ""),
             "ORW (certified vernal pool)" if w.get("vernal_pool") else "ORW", "", "",
             fmt.number(w.get("flow_distance_ft"))) for w in rw.get("orw") or []]
    rows += [(str(w.get("name") or w.get("au_id")), str(w.get("au_id") or ""),
              str(w.get("category") or ""), ", ".join(w.get("causes") or []),
              str(w.get("tmdl") or ""), fmt.number(w.get("flow_distance_ft")))
             for w in rw.get("impaired") or []]
    return rows


def _trace_end_tables(rw: Mapping[str, Any]) -> list[Table]:
    ends = [(e.get("reason", ""), str(e.get("message") or "")) for e in rw.get("trace_end") or []]
    if not ends:
        return []
    return [Table("trace_end", "Where the trace left the data",
                  "The flow trace stopped here; waters beyond were not searched",
                  ("Reason", "Where and what would carry it further"), tuple(ends))]


def _water_requirement_tables(rw: Mapping[str, Any], doc: Mapping[str, Any]) -> list[Table]:
    reqs = [(_cite(r.get("section")), str(r.get("text") or ""))
            for r in rw.get("requirements") or [] if isinstance(r, Mapping)]
    if not reqs:
        return []
    return [Table("requirements", "Requirements from the receiving waters",
                  f"{_regulation_names(_meta(doc))[1]} requirements brought by the receiving "
                  "waters",
                  ("Section", "Requirement"), tuple(reqs))]


def _water_tables(doc: Mapping[str, Any], status: str | None, incomplete: str) -> list[Table]:
    rw = doc.get("receiving_waters")
    if not isinstance(rw, Mapping) or status not in _CHECKED:
        return []
    out = [Table("receiving_waters", "Receiving waters downstream of the site",
                 f"Outstanding Resource Waters and impaired waters met downstream ({_waters(doc)})",
                 ("Water", "Id", "Category", "Causes", "TMDL", "Flow distance (ft)"),
                 tuple(_water_rows(rw)), "No ORW or impaired water downstream." if status == "no"
                 else incomplete)]
    return out + _trace_end_tables(rw) + _water_requirement_tables(rw, doc)


def _waters(doc: Mapping[str, Any]) -> str:
    """The receiving-waters table's citation: the regulation's impaired-waters section and its
    ORW definition ("§ 320-19 B(10); Ch. 320 definitions: ORW")."""
    applied = applied_of_document(doc)
    res = applied.version.section("resources")
    impaired = res.get("impaired_citation") or wording_for(applied).citation("receiving_waters")
    orw = str(res.get("orw_citation") or "").split("; ")[0]
    return f"{impaired}; {orw}" if orw else str(impaired)


def _reasons_table(findings: list[Finding]) -> list[Table]:
    rows = tuple((f.title, r) for f in findings for r in f.reasons)
    if not rows:
        return []
    return [Table("reasons", "Reasons recorded by the screening",
                  "The screening's own explanation of each decision, as written in "
                  "screening.json", ("Finding", "Reason"), rows)]


# --------------------------------------------------------------------------- meta
def _town(meta: Mapping[str, Any]) -> str:
    town = meta.get("town")
    if isinstance(town, Mapping):
        town = town.get("name")
    return fmt.municipality(town) if town else "Town not recorded"


def _data_sources(doc: Mapping[str, Any]) -> list[tuple[str, str]]:
    raw = _meta(doc).get("data_sources", _meta(doc).get("sources"))
    if isinstance(raw, Mapping):
        return [(str(k), describe_source(v)) for k, v in raw.items()]
    if isinstance(raw, list):
        return [(str(s.get("key") or "") if isinstance(s, Mapping) else "",
                 describe_source(s)) for s in raw]
    return []


def _alt_text(doc: Mapping[str, Any], image: MapImage | None) -> str:
    """Alternative text for the map: what it shows, in words (the legend entries drawn)."""
    if image is None:
        return ""
    d = doc.get("disturbance")
    area = d.get("area_sqft") if isinstance(d, Mapping) else None
    site = f"the screened site ({fmt.sqft(area)})" if area is not None else "the screened site"
    shown = [s for s in image.legend if not s.startswith("Limit of disturbance")]
    text = f"Map of {site}, outlined in red."
    if shown:
        text += " Also shown: " + "; ".join(shown) + "."
    habitats = doc.get("habitats") if isinstance(doc.get("habitats"), list) else []
    if habitats:
        text += " Labelled habitat features: " + ", ".join(
            f"{h.get('id')} ({fmt.ft(h.get('distance_ft'))} away)" for h in habitats) + "."
    return text + f" North is up; the scale bar is {fmt.number(image.scale_bar_ft)} ft long."


def _site_label(meta: Mapping[str, Any]) -> str:
    if isinstance(meta.get("site"), Mapping):
        return describe_source(meta["site"])
    label = str(meta.get("site") or meta.get("site_file") or "")
    inputs = meta.get("inputs")
    if not label and isinstance(inputs, list):
        label = describe_source([i for i in inputs if isinstance(i, Mapping)])
    return label


# --------------------------------------------------------------------------- build
def _checklist_note(permit: str) -> str:
    """The note above the submittal checklist, from the permit trigger's status."""
    return {
        "yes": "",
        "no": "A permit is not required on the screened figures; the checklist applies only "
              "if a permit application is filed.",
        "conditional": "Whether a permit is required is conditional (see the findings); the "
                       "checklist applies if a permit application is filed.",
    }.get(permit, "The permit trigger was not evaluated.")


def _check_rows(doc: Mapping[str, Any]) -> list[tuple[str, str, str, str]]:
    """One row per check the screening ran or skipped: name, ran, source, reason."""
    return [(str(c.get("name")), "yes" if c.get("ran") else "no",
             describe_source(c.get("source")) or "-",
             str(c.get("reason") or c.get("message") or ""))
            for c in doc.get("checks") or [] if isinstance(c, Mapping)]


def build_report(
    document: Mapping[str, Any],
    layers: Mapping[str, gpd.GeoDataFrame] | None = None,
    *,
    received: dt.date | None = None,
) -> ScreeningReport:
    """Turn a screening document (and its map layers) into the report model."""
    doc = document or {}
    meta = _meta(doc)
    findings = report_findings(doc)
    status = {f.key: f.status for f in findings}
    image = render_screening_map(layers or {}, title=None) if layers else None
    checklist_note = _checklist_note(status.get("disturbance", ""))
    checks = _check_rows(doc)
    synthetic = bool(meta.get("synthetic")) or "synthetic" in _town(meta).lower()
    generated = str(meta.get("generated") or meta.get("generated_at") or meta.get("created")
                    or dt.datetime.now(dt.UTC).isoformat(timespec="seconds"))
    notes = ["SYNTHETIC SAMPLE DATA: this report is a demonstration on invented layers, not a "
             "finding about any real property."] if synthetic else []
    general = (doc["general_requirements"] if isinstance(doc.get("general_requirements"), list)
               else general_requirements())
    regulation, chapter = _regulation_names(meta)
    applied = applied_of_document(doc)
    listed = checklist_file(applied)
    return ScreeningReport(
        title="Stormwater Management Permit Screening",
        town=_town(meta), synthetic=synthetic, generated=generated,
        site_label=_site_label(meta), headline=headline(findings, doc),
        findings=findings,
        tables=_tables(doc, status) + _reasons_table(findings),
        map_image=image, map_alt=_alt_text(doc, image),
        checklist_groups=checklist_groups(listed) if listed else [],
        checklist=submittal_checklist(doc, path=listed) if listed else [],
        checklist_note=checklist_note, timeline=permit_timeline(
            received, procedure=procedure_of(applied)), received=received,
        checks=checks, parameters=parameter_rows(meta), data_sources=_data_sources(doc),
        general_requirements=[(str(g.get("section")), str(g.get("topic") or ""),
                               str(g.get("text"))) for g in general],
        notes=notes, timeline_intro=timeline_intro(received, status.get("disturbance", "")),
        regulation=regulation, chapter=chapter,
        checklist_lead=str(wording_for(applied).note("checklist_lead")),
    )


def _regulation_names(meta: Mapping[str, Any]) -> tuple[str, str]:
    """(the regulation as the header names it, its chapter) from ``meta.regulation``; an older
    document without it: the default profile's."""
    reg = meta.get("regulation")
    if not isinstance(reg, Mapping) or not reg.get("title"):
        profile = read_profile(None)
        reg = {"title": profile.title, "chapter": profile.chapter}
    title, chapter = str(reg["title"]), str(reg.get("chapter") or "")
    return (f"{title}, {chapter}" if chapter else title), (chapter or title)

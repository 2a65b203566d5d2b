"""The findings of a screening and their status: the one place that decides what may be said.

:func:`decide_findings` reads a screening document (the content of ``screening.json``, SPEC
section 5, with its ``coverage`` records from :mod:`swm_gis.io.coverage`) and returns ``findings``:
one entry per finding, in the report's order, each with a ``status``:

* ``yes``: the rule applies / the feature was found;
* ``no``: only when every layer that could have turned it into ``yes`` was configured, read and
  covers the whole area searched, and (receiving waters) the trace did not leave the data;
* ``conditional``: the answer depends on something the tool could not see; ``caveats`` name it;
* ``not_checked``: no data to decide;
* ``info``: a value that brings no duty by itself.

The command's summary (:func:`summary_lines`), the report (headline, findings table, checklist)
and the QGIS outputs read these entries and never say "no", "none" or "not applicable" where a
finding says otherwise. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from swm_gis import formatting as fmt
from swm_gis.screening.general_requirements import EXEMPTION_7_NOTE
from swm_gis.units import SQFT_PER_ACRE

__all__ = ["STATUSES", "STATUS_WORDS", "decide_findings", "finding", "part_status",
           "summary_lines"]

STATUSES = ("yes", "no", "conditional", "not_checked", "info")
STATUS_WORDS = {"yes": "Yes", "no": "No", "conditional": "Conditional",
                "not_checked": "Not checked", "info": "Info"}

TRIGGER_SECTION = ("Bylaw ch. 213, Art. II (Ch. 320 applicability A); exemptions Bylaw "
                   "213-16B")
SECTIONS = {
    "development_type": "Ch. 320 definitions: new development, redevelopment",
    "standards": "§ 320-19 B(7) / B(8)",
    "watersheds": "§ 320-19 B(7)(d) / B(8)(d)",
    "mitigation": "§ 320-19 B(7)(d) / B(8)(d)",
    "habitats": "§ 320-20 A(3)(c), B(12)",
    "floodplain": "§ 320-19 A(8); § 320-20 A(3)(a)",
    "receiving_waters": "§ 320-19 B(10); Ch. 320 definitions: ORW; § 320-19 B(2)",
}
TITLES = {
    "disturbance": "Stormwater management permit",
    "development_type": "New development or redevelopment",
    "standards": "Performance standards and retention volume",
    "watersheds": "Watersheds (HUC12 / HUC10)",
    "mitigation": "Off-site mitigation",
    "habitats": "NHESP habitats and certified vernal pools within 500 ft",
    "floodplain": "100-year floodplain (FEMA SFHA)",
    "receiving_waters": "Receiving waters (ORW, impaired waters)",
}
HABITAT_LAYERS = ("nhesp_priority", "nhesp_estimated", "vernal_pools")
_HABITAT_NAMES = {"priority": "Priority Habitat", "estimated": "Estimated Habitat",
                  "vernal_pool": "Certified Vernal Pool"}
#: A share of existing impervious cover below this makes the development type the Commission's
#: call (the definitions are silent on mixed sites); ``[rules] small_existing_impervious_share``.
SLIVER_SHARE = 0.05
#: The bylaw's trigger, as Chapter 320 (applicability A) quotes it, ends with this condition.
MS4_WORDS = "draining to the Town's MS4"
#: Chapter 320 (authority B): projects approved by Town Boards that adopted the rules.
TOWN_BOARDS_NOTE = (
    "Ch. 320, authority, B: Town Boards (e.g. the Planning Board and Zoning Board of Appeals) "
    "\"who have formally adopted these regulations, either directly, or by reference\" have "
    "approval authority; \"Projects or activities approved by these Boards shall be deemed in "
    "compliance with the intent and provisions of these regulations.\" If such a Board approves "
    "the project, that approval decides.")
#: Bylaw 213-16B(6), the wetlands-order exemption: it holds only if the discharges comply with
#: Chapter 320, so its standards apply either way.
WETLANDS_ORDER_NOTE = (
    "The wetlands-order exemption (Bylaw 213-16B(6)) holds only for discharges that "
    "\"comply with these rules and regulations as reflected in an order of conditions issued by "
    "the Conservation Commission\": the performance standards apply either way.")
ROADWAY_CLAIM_NOTE = (
    "The applicant claims roadway maintenance (§ 320-19 B(8)(e)); the Commission decides: "
    "\"Roadway widening or improvements that increase the amount of impervious area on the "
    "redevelopment site by greater than or equal to a single lane width shall meet the "
    "requirements of Subsection B(8)(a) through (d) fully.\"")


def absent(key: str) -> dict[str, Any]:
    """The finding of a block the document does not hold: not checked, and says so."""
    return finding(key, "not_checked", f"Not checked: screening.json has no '{key}' result.")


def finding(key: str, status: str, answer: str, *, title: str | None = None,
            section: str | None = None, used: Sequence[str] = (), missing: Sequence[str] = (),
            caveats: Sequence[str] = (), **extra: Any) -> dict[str, Any]:
    """One finding entry (SPEC section 5); ``status`` must be one of :data:`STATUSES`."""
    if status not in STATUSES:
        raise ValueError(f"unknown finding status {status!r}")
    return {"key": key, "title": title or TITLES[key], "status": status, "answer": answer,
            "section": section or SECTIONS.get(key, TRIGGER_SECTION),
            "layers_used": list(dict.fromkeys(used)),
            "layers_missing": list(dict.fromkeys(missing)),
            "caveats": [c for c in dict.fromkeys(caveats) if c], **extra}


def decide_findings(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every finding of a screening document, in the report's order."""
    permit = _disturbance(doc)
    dev = _development(doc)
    return [permit, dev, _standards(doc, permit, dev), _watersheds(doc), _mitigation(doc),
            _habitats(doc), _floodplain(doc), _receiving(doc)]


# --------------------------------------------------------------------------- helpers
def _cov(doc: Mapping[str, Any], key: str, layer: str) -> Mapping[str, Any]:
    """The coverage record of ``layer`` for finding ``key`` ({} when none was recorded)."""
    cov = (doc.get("coverage") or {}).get(key) or {}
    return cov.get(layer) or {}


def _layer_state(doc: Mapping[str, Any], key: str, layers: Sequence[str]
                 ) -> tuple[list[str], list[str], list[str]]:
    """(configured, missing, caveats about partial or unknown coverage) for a finding's layers.

    A layer with no coverage record counts as missing: nothing shows it was read.
    """
    used, missing, caveats = [], [], []
    for layer in layers:
        rec = _cov(doc, key, layer)
        if not rec.get("configured"):
            missing.append(layer)
            continue
        used.append(layer)
        if rec.get("covers") is False:
            caveats.append(f"[layers.{layer}] does not cover the whole area searched (its "
                           f"coverage: {rec.get('basis')}).")
        elif rec.get("covers") is None:
            caveats.append(f"[layers.{layer}]: whether it covers the area searched is unknown "
                           f"({rec.get('basis')}).")
    return used, missing, caveats


def _missing_text(missing: Sequence[str], what: str) -> str:
    names = ", ".join(f"[layers.{m}]" for m in missing)
    return f"Not checked for {what}: no {names} configured." if missing else ""


# --------------------------------------------------------------------------- permit trigger
def _disturbance(doc: Mapping[str, Any]) -> dict[str, Any]:
    d = doc.get("disturbance")
    if not isinstance(d, Mapping):
        return absent("disturbance")
    area, plan = float(d.get("area_sqft") or 0), d.get("common_plan_area_sqft")
    trigger = float(d.get("trigger_sqft") or SQFT_PER_ACRE)
    figures = f"The site disturbs {fmt.sqft(area)} ({area / SQFT_PER_ACRE:.2f} acres)"
    if plan is not None:
        figures += f"; with its common plan of development or sale {fmt.sqft(plan)} " \
                   f"({float(plan) / SQFT_PER_ACRE:.2f} acres)"
    used = ["site"] + (["common_plan"] if plan is not None else [])
    reaches = d.get("disturbs_trigger_area")
    if not isinstance(reaches, bool):  # an older document: decide from the areas
        reaches = round(area, 3) >= trigger or (plan is not None and round(float(plan), 3)
                                                >= trigger)
    claimed = d.get("exemption") or []
    ms4_text, ms4_caveats, ms4_used, ms4_missing, ms4_open = _ms4(d)
    ms4_sentence = f"{ms4_text[0].upper()}{ms4_text[1:]}."
    town_caveats = [str(w.get("text")) for w in doc.get("warnings") or []
                    if isinstance(w, Mapping) and w.get("text")]
    if claimed:
        names = "; ".join(f"{e.get('section')} ({e.get('name')})"
                          + (f": {e['activity']}" if e.get("activity") else "") for e in claimed)
        otherwise = ("a permit is required (the disturbance reaches one acre)" if reaches else
                     "no permit is required either: neither the site nor its common plan "
                     "disturbs one acre" if plan is not None else
                     "a permit is required only if the site is part of a larger common plan of "
                     "development or sale that will ultimately disturb one acre or more")
        return finding(
            "disturbance", "conditional",
            f"Conditional. The applicant claims an exemption: {names}. This is the applicant's "
            f"claim; the Conservation Commission decides whether the activity qualifies. If it "
            f"does not, {otherwise}.{' ' + ms4_sentence if reaches else ''} {figures}.",
            section=TRIGGER_SECTION, used=used + ms4_used, missing=ms4_missing,
            caveats=["The exemption is the applicant's claim, not a finding of this tool.",
                     EXEMPTION_7_NOTE, *town_caveats, *(ms4_caveats if reaches else []),
                     TOWN_BOARDS_NOTE])
    if reaches and ms4_open:
        return finding("disturbance", "conditional",
                       f"Conditional. {figures}, which reaches the one-acre "
                       f"({trigger:,.0f} sq ft) trigger; a permit is required if the disturbance "
                       f"drains to the Town's MS4 ({ms4_text}).", section=TRIGGER_SECTION,
                       used=used + ms4_used, missing=ms4_missing,
                       caveats=[*town_caveats, *ms4_caveats, TOWN_BOARDS_NOTE])
    if reaches:
        return finding("disturbance", "yes",
                       f"Required. {figures}, which reaches the one-acre "
                       f"({trigger:,.0f} sq ft) trigger. {ms4_sentence}", section=TRIGGER_SECTION,
                       used=used + ms4_used, missing=ms4_missing,
                       caveats=[*town_caveats, *ms4_caveats, TOWN_BOARDS_NOTE])
    if plan is None:
        return finding(
            "disturbance", "conditional",
            f"Conditional. {figures}, below one acre, and no common plan was given: a permit is "
            "required if the site is part of a larger common plan of development or sale that "
            "will ultimately disturb one acre or more (e.g. a lot of a subdivision), and not "
            "otherwise.", section=TRIGGER_SECTION, used=used, missing=["common_plan"],
            caveats=["Give the plan's disturbance with --common-plan to decide.",
                     *town_caveats])
    return finding("disturbance", "no",
                   f"Not required. {figures}: neither reaches the one-acre "
                   f"({trigger:,.0f} sq ft) trigger.", section=TRIGGER_SECTION, used=used,
                   caveats=town_caveats)


def _ms4(d: Mapping[str, Any]) -> tuple[str, list[str], list[str], list[str], bool]:
    """The MS4 condition of the trigger: (text, caveats, layers used, layers missing, open).

    ``open`` is True when an MS4 layer was read and the site's flow path met none of it: the
    trigger then rests on drainage the tool could not see.
    """
    m = d.get("ms4") if isinstance(d.get("ms4"), Mapping) else {}
    if not m.get("checked"):
        return (f"this assumes the disturbance is {MS4_WORDS} (the bylaw's words; the rules' "
                "purpose is discharges to the MS4), not checked: no [layers.ms4] (catch basins, "
                "pipes, outfalls, drainage channels) configured",
                ["The bylaw's trigger is a land disturbance \"... draining to the Town's MS4\" "
                 "(Chapter 320, applicability A); configure [layers.ms4] to check it."],
                [], ["ms4"], False)
    searched = str(m.get("searched") or "the site")
    if m.get("reached"):
        ids = ", ".join(str(i) for i in (m.get("features") or [])[:5])
        return (f"the disturbance is {MS4_WORDS}: {searched} reaches MS4 feature(s) "
                f"{ids or '(unnamed)'} of [layers.ms4]", [], ["ms4"], [], False)
    return (f"no feature of [layers.ms4] was met by {searched}, so whether it is {MS4_WORDS} "
            "is not shown",
            ["The bylaw's trigger is a land disturbance \"... draining to the Town's MS4\": "
             "the MS4 layer shows no catch basin, pipe, outfall or drainage channel on the "
             "runoff's path; the Commission decides whether the site drains to the MS4."],
            ["ms4"], [], True)


# --------------------------------------------------------------------------- development
def _development(doc: Mapping[str, Any]) -> dict[str, Any]:
    d = doc.get("development_type")
    if not isinstance(d, Mapping):
        return absent("development_type")
    value = d.get("value")
    label = {"new": "New development", "redevelopment": "Redevelopment"}.get(value, str(value))
    method = str(d.get("method") or "")
    existing = d.get("existing_impervious_sqft")
    area = (doc.get("disturbance") or {}).get("area_sqft")
    cover = ""
    caveats: list[str] = []
    small = False
    threshold = float(d.get("small_share_threshold") or SLIVER_SHARE)
    if existing is not None:
        share = float(existing) / float(area) if area else 0.0
        cover = (f" Existing impervious cover in the limit of disturbance: {fmt.sqft(existing)}, "
                 f"{fmt.pct(share, 1)} of its {fmt.sqft(area or 0)}.")
        parcels = d.get("site_parcels") if isinstance(d.get("site_parcels"), Mapping) else None
        if parcels and parcels.get("existing_impervious_sqft") is not None:
            on = float(parcels["existing_impervious_sqft"])
            cover += (f" On the site's parcel(s) ({fmt.sqft(parcels.get('area_sqft') or 0)}): "
                      f"{fmt.sqft(on)}, of which {fmt.sqft(max(on - float(existing), 0))} "
                      "lies outside "
                      "the limit of disturbance.")
        small = value == "redevelopment" and 0 < share < threshold
        if small:
            caveats.append(
                f"Only {fmt.pct(share, 1)} of the limit of disturbance is existing impervious "
                "cover "
                f"(under the {fmt.pct(threshold, 1)} of [rules] small_existing_impervious_share). "
                "New development is disturbance \"on an area that has not previously been "
                "developed to include impervious cover\"; redevelopment is any that \"does not "
                "meet the definition of new development\". The text is silent on a mostly "
                "undeveloped site: whether this is new development (the stricter B(7)) or "
                "redevelopment (B(8)) is the Commission's judgement.")
    if method.startswith("override"):
        return finding("development_type", "info",
                       f"{label}, as stated with --development.{cover}", used=["impervious"]
                       if existing is not None else [], caveats=caveats +
                       ["Stated by the applicant; not measured by this tool."])
    used, missing, cov_caveats = _layer_state(doc, "development_type", ["impervious"])
    if missing:
        return finding(
            "development_type", "conditional",
            f"{label} assumed (the stricter standards): no existing-impervious layer is "
            "configured, so existing cover was not measured. If the site has existing "
            "impervious cover, the project is redevelopment.", missing=missing,
            caveats=["Configure [layers.impervious] or state --development."])
    status = "info" if not cov_caveats and not small else "conditional"
    lead = (f"{label} as measured ({method}), for the Commission to confirm." if small
            else f"{label} ({method}).")
    return finding("development_type", status, f"{lead}{cover}", used=used,
                   caveats=caveats + cov_caveats)


# --------------------------------------------------------------------------- standards
def _standards(doc: Mapping[str, Any], permit: Mapping[str, Any], dev: Mapping[str, Any]
               ) -> dict[str, Any]:
    s = doc.get("standards")
    if not isinstance(s, Mapping):
        return absent("standards")
    section = str(s.get("section") or SECTIONS["standards"])
    roadway = bool(s.get("roadway_claimed"))
    if (s.get("applies") is False or s.get("roadway_exempt")) and not roadway:
        # an older document, where the tool took the roadway claim as decided
        answer = ("Roadway maintenance redevelopment claimed: exempt from § 320-19 "
                  "B(8)(a)-(d) if the Commission accepts it; must improve existing conditions "
                  "unless infeasible (§ 320-19 B(8)(e)).")
        roadway = True
    else:
        vol, imp = s.get("required_retention_cuft"), s.get("post_impervious_sqft")
        depth = float(s.get("retention_depth_in") or 0)
        retain = (f"retain {float(vol):,.0f} cu ft ({depth:.1f} in x {fmt.sqft(imp)} "
                  "post-construction impervious area)" if vol is not None else
                  f"retain {depth:.1f} in x the post-construction impervious area (not given, so "
                  "the volume is not computed)")
        answer = (f"{retain[0].upper()}{retain[1:]}, or remove "
                  f"{fmt.pct(s.get('tss_removal') or 0)} TSS and "
                  f"{fmt.pct(s.get('tp_removal') or 0)} "
                  "TP, or a combination, or off-site mitigation in the same "
                  f"{s.get('mitigation_huc_level')}; removal as an average over a year, "
                  "calculated consistent with EPA Region 1's BMP Accounting and Tracking Tool "
                  "(2016) (§ 320-19 B(9)).")
        if roadway:
            answer = ("Unless the Commission accepts the applicant's roadway-maintenance claim "
                      "(§ 320-19 B(8)(e): exempt from B(8)(a)-(d), and \"shall improve existing "
                      "conditions unless infeasible\"): " + answer)
    caveats = [ROADWAY_CLAIM_NOTE] if roadway else []
    claims = [e.get("name") for e in (doc.get("disturbance") or {}).get("exemption") or []
              if isinstance(e, Mapping)]
    base = _permit_without_claims(doc) if claims else permit["status"]
    if claims and "wetlands-order" in claims:
        caveats.append(WETLANDS_ORDER_NOTE)
        permit_status = base
    else:
        permit_status = permit["status"]
    if permit_status == "yes":
        status = "yes"
    elif permit_status == "no":
        status, answer = "info", "For information (no permit is required): " + answer
    else:
        status = "conditional"
        answer = "If a permit is required: " + answer
        caveats.append("Apply only if a permit is required (see the permit finding).")
    if status == "yes" and roadway:
        status = "conditional"
    if dev["status"] == "conditional" and status == "yes":
        status = "conditional"
    if dev["status"] == "conditional":
        caveats.append("The standards follow the development type, which is conditional.")
    alt = s.get("if_new_development")
    if isinstance(alt, Mapping):
        vol = alt.get("required_retention_cuft")
        caveats.append(
            f"If the Commission finds new development ({alt.get('section')}): "
            + (f"retain {float(vol):,.0f} cu ft ({float(alt.get('retention_depth_in') or 0):.1f} "
               "in x the post-construction impervious area)" if vol is not None else
               f"retain {float(alt.get('retention_depth_in') or 0):.1f} in x the "
               "post-construction impervious area")
            + f", or remove {fmt.pct(alt.get('tss_removal') or 0)} TSS and "
              f"{fmt.pct(alt.get('tp_removal') or 0)} TP; off-site mitigation in the same "
              f"{alt.get('mitigation_huc_level')}.")
    return finding("standards", status, answer, section=section,
                   used=["proposed_impervious"] if s.get("post_impervious_sqft") is not None
                   else [], caveats=caveats)


def _permit_without_claims(doc: Mapping[str, Any]) -> str:
    """The permit finding's status as it would be without the claimed exemptions."""
    d = dict(doc.get("disturbance") or {})
    d["exemption"] = None
    return _disturbance({**doc, "disturbance": d})["status"]


# --------------------------------------------------------------------------- watersheds
def _watersheds(doc: Mapping[str, Any]) -> dict[str, Any]:
    w = doc.get("watersheds")
    if not isinstance(w, Mapping):
        return absent("watersheds")
    used, missing, caveats = _layer_state(doc, "watersheds", ["huc12", "huc10"])
    parts = []
    for level in ("huc12", "huc10"):
        if level in missing:
            parts.append(f"{level.upper()} not checked (no [layers.{level}] configured)")
            continue
        items = w.get(level) or []
        share = sum(float(h.get("share") or 0) for h in items)
        text = ", ".join(f"{h.get('huc')} {h.get('name') or ''} ({fmt.pct(h.get('share'), 1)})"
                         .replace("  ", " ") for h in items)
        parts.append(f"{level.upper()}: {text or 'no unit of the layer contains the site'}")
        if share < 0.999:
            caveats.append(f"Only {fmt.pct(share, 1)} of the site lies in the {level.upper()} "
                           "units of the layer given.")
    if not used:
        return finding("watersheds", "not_checked", "Not checked: no [layers.huc12] or "
                       "[layers.huc10] configured.", missing=missing)
    status = "info" if not missing and not caveats else "conditional"
    return finding("watersheds", status, "; ".join(parts) + ".", used=used, missing=missing,
                   caveats=caveats)


def _mitigation(doc: Mapping[str, Any]) -> dict[str, Any]:
    rows = doc.get("mitigation")
    if not isinstance(rows, list):
        return absent("mitigation")
    standards = doc.get("standards") or {}
    level = str(standards.get("mitigation_huc_level") or "HUC12")
    claim = ([ROADWAY_CLAIM_NOTE + " If it accepts the claim, B(8)(d) (off-site mitigation) "
              "does not bind the project."] if standards.get("roadway_claimed") else [])
    if not rows:
        return finding("mitigation", "info", f"No off-site mitigation site proposed; one must "
                       f"lie in the same {level} as the site"
                       + (" (unless the roadway-maintenance claim is accepted)." if claim
                          else "."), caveats=claim)
    used, missing, caveats = _layer_state(doc, "mitigation", [level.lower()])
    if missing:
        return finding("mitigation", "not_checked", f"Not checked: no [layers.{level.lower()}] "
                       "configured.", used=["mitigation"], missing=missing, caveats=claim)
    ok = [str(m.get("id")) for m in rows if m.get("eligible")]
    text = "; ".join(f"{m.get('id')}: {'eligible' if m.get('eligible') else 'not eligible'}"
                     f"{' (' + str(m.get('reason')) + ')' if m.get('reason') else ''}"
                     for m in rows)
    status = "yes" if ok else ("no" if not caveats else "conditional")
    shares = [h for h in ((doc.get("watersheds") or {}).get(level.lower()) or [])
              if float(h.get("share") or 0) > 0]
    if ok and len(shares) > 1:
        split = ", ".join(f"{h.get('huc')} ({fmt.pct(h.get('share'), 1)})" for h in shares)
        share_of = {str(h.get("huc")): h.get("share") for h in shares}
        where = "; ".join(f"{m.get('id')} lies in {m.get('huc')}, which holds "
                          f"{fmt.pct(share_of.get(str(m.get('huc')), 0), 1)} of the site"
                          for m in rows if m.get("eligible"))
        status = "conditional"
        caveats.append(
            f"The site straddles {level}s: {split}. Only the mitigation site's location was "
            f"tested ({where}); whether mitigation there is \"within the same USGS {level} as "
            f"the {'new development' if level == 'HUC12' else 'redevelopment'} site\" is the "
            "Commission's judgement.")
    return finding("mitigation", status, f"{len(ok)} of {len(rows)} site(s) eligible. {text}",
                   used=["mitigation", *used], caveats=caveats + claim)


# --------------------------------------------------------------------------- resources
def _habitats(doc: Mapping[str, Any]) -> dict[str, Any]:
    if not isinstance(doc.get("habitats"), list):
        return absent("habitats")
    found = sorted(doc.get("habitats") or [], key=lambda h: float(h.get("distance_ft") or 0))
    used, missing, caveats = _layer_state(doc, "habitats", HABITAT_LAYERS)
    gap = _missing_text(missing, "these layers")
    if found:
        parts = [f"{_HABITAT_NAMES.get(h.get('layer'), h.get('layer'))} {h.get('id')} at "
                 f"{fmt.ft(h.get('distance_ft') or 0)}"
                 + (" (overlaps the site)" if h.get("overlaps") else "") for h in found]
        return finding("habitats", "yes", f"{len(found)} feature(s): " + "; ".join(parts) +
                       ". Show them on the erosion and sediment control plan and prevent "
                       "significant alteration.", used=used, missing=missing,
                       caveats=[gap, *caveats])
    if not used:
        return finding("habitats", "not_checked", "Not checked: no NHESP priority or estimated "
                       "habitat and no certified vernal pool layer configured.", missing=missing)
    if missing or caveats:
        names = ", ".join(used)
        return finding("habitats", "conditional",
                       f"None found in {names} within 500 ft, but the search was incomplete.",
                       used=used, missing=missing, caveats=[gap, *caveats])
    return finding("habitats", "no", "None: no Priority or Estimated Habitat and no Certified "
                   "Vernal Pool within 500 ft of the limit of disturbance.", used=used)


def _floodplain(doc: Mapping[str, Any]) -> dict[str, Any]:
    f = doc.get("floodplain")
    used, missing, caveats = _layer_state(doc, "floodplain", ["flood_zones"])
    if not isinstance(f, Mapping) and not missing:
        return absent("floodplain")
    if not isinstance(f, Mapping) or missing:
        return finding("floodplain", "not_checked", "Not checked: no [layers.flood_zones] "
                       "configured.", missing=missing or ["flood_zones"])
    parcels = f.get("subject_parcels") if isinstance(f.get("subject_parcels"), Mapping) else None
    site = parcels or f  # the site is the lot or parcel (Chapter 320 definitions)
    shaded_part, shaded_txt = _shaded_part(f, site)
    parts = {"shaded_x": shaded_part}
    if f.get("in_sfha") or (parcels and parcels.get("in_sfha")):
        zones = "; ".join(
            f"zone {z.get('zone')}{' ' + str(z['subtype']) if z.get('subtype') else ''}"
            + (f" {fmt.sqft(z['area_sqft'])}" if z.get("area_sqft") is not None else "")
            + f", BFE {fmt.bfe_text(z.get('bfe'))}" for z in site.get("zones") or []) or \
            "zones not listed"
        where = "of the site"
        split = ""
        if parcels:
            ids = ", ".join(str(p.get("id")) for p in parcels.get("parcels") or []
                            if p.get("id"))
            where = (f"of the site's parcel(s) {ids}".rstrip()
                     + f" ({fmt.sqft(parcels.get('area_sqft') or 0)})")
            inside = float(f.get("sfha_area_sqft") or 0)
            outside = max(float(parcels.get("sfha_area_sqft") or 0) - inside, 0.0)
            split = (f" Inside the limit of disturbance: {fmt.sqft(inside)}; on the parcel(s) "
                     f"outside it: {fmt.sqft(outside)}.")
        no_bfe = [str(z.get("zone")) for z in site.get("zones") or []
                  if fmt.bfe_text(z.get("bfe")) == "none on the FIRM"]
        bfe_caveat = ([f"No base flood elevation on the FIRM for zone {', '.join(no_bfe)}: "
                       "§ 320-20 A(3)(a) asks for \"the 100-year flood elevation based upon the "
                       "most recent Flood Insurance Rate Map, or as calculated by a professional "
                       "engineer for areas not assessed on these maps\"."] if no_bfe else [])
        parts["sfha"] = "yes"
        return finding("floodplain", "yes",
                       f"{fmt.sqft(site.get('sfha_area_sqft') or 0)} {where} "
                       f"({fmt.pct(site.get('site_fraction') or 0, 1)}) in the SFHA: {zones}."
                       f"{split} Delineate it on the plans with the 100-year flood elevation."
                       + shaded_txt, used=used, caveats=caveats + bfe_caveat, parts=parts)
    target = "the site's parcel(s)" if parcels else "the limit of disturbance"
    if caveats:
        parts["sfha"] = "conditional"
        return finding("floodplain", "conditional", f"No SFHA found on the part of {target} "
                       "the flood zone layer covers." + shaded_txt, used=used, caveats=caveats,
                       parts=parts)
    parts["sfha"] = "no"
    gap = [] if parcels else [
        "Measured on the limit of disturbance only: the site is \"any lot or parcel of land "
        "... where land-disturbing activities are ... performed\" (Chapter 320 definitions), "
        "and no parcel under the site was found."]
    return finding("floodplain", "conditional" if gap else "no",
                   f"{target[0].upper()}{target[1:]} does not overlap the Special Flood Hazard "
                   "Area." + shaded_txt, used=used, caveats=gap, parts=parts)


def _shaded_part(f: Mapping[str, Any], site: Mapping[str, Any]) -> tuple[str, str]:
    """The 0.2%-annual-chance zone's status and sentence: not checked unless the flood layer
    holds such zones or its config says it covers them."""
    if f.get("shaded_x_checked") is False or site.get("shaded_x_area_sqft") is None:
        return "not_checked", (" 0.2%-annual-chance zone: not checked (the flood zone layer "
                               "holds no 0.2%-annual-chance zone around the site and its config "
                               "does not say it covers them).")
    shaded = float(site.get("shaded_x_area_sqft") or 0)
    if shaded > 0:
        return "yes", f" 0.2%-annual-chance zone: {fmt.sqft(shaded)}."
    return "no", " No 0.2%-annual-chance zone."


# --------------------------------------------------------------------------- receiving waters
def part_status(found: bool, *, layers_configured: bool, complete: bool) -> str:
    """Status of one part of a search: found -> yes; no data -> not_checked; a complete search
    -> no; else conditional.

    >>> [part_status(True, layers_configured=False, complete=False),
    ...  part_status(False, layers_configured=False, complete=True),
    ...  part_status(False, layers_configured=True, complete=True),
    ...  part_status(False, layers_configured=True, complete=False)]
    ['yes', 'not_checked', 'no', 'conditional']
    """
    if found:
        return "yes"
    if not layers_configured:
        return "not_checked"
    return "no" if complete else "conditional"


def _receiving(doc: Mapping[str, Any]) -> dict[str, Any]:
    rw = doc.get("receiving_waters")
    net_used, net_missing, _ = _layer_state(doc, "receiving_waters", ["streams", "waterbodies"])
    if not isinstance(rw, Mapping):
        why = ("no stream or water body layer configured, so the runoff was not traced" if
               len(net_missing) == 2 else "screening.json has no 'receiving_waters' result")
        return finding("receiving_waters", "not_checked", f"Not checked: {why}.",
                       missing=net_missing + ["orw", "impaired_waters"],
                       parts={"orw": "not_checked", "impaired": "not_checked"},
                       complete={"orw": False, "impaired": False})
    trace_caveats = [str(e.get("message")) for e in rw.get("trace_end") or []]
    if rw.get("approximate"):
        trace_caveats.append("No DEM: the runoff was taken to the nearest mapped stream in a "
                             "straight line; configure [layers.dem] for a flow trace.")
    if rw.get("stopped_at_boundary") and not any("town line" in c for c in trace_caveats):
        trace_caveats.append("The trace stopped at the town line; waters downstream of it were "
                             "not searched.")
    complete = not trace_caveats
    orw_used, orw_missing, orw_cov = _layer_state(doc, "receiving_waters",
                                                  ["orw", "vernal_pools"])
    imp_used, imp_missing, imp_cov = _layer_state(doc, "receiving_waters", ["impaired_waters"])
    orw, impaired = rw.get("orw") or [], rw.get("impaired") or []
    # complete: every layer that could add a water to this part was read over the whole path
    full = {"orw": complete and not orw_missing and not orw_cov,
            "impaired": complete and bool(imp_used) and not imp_cov}
    parts = {
        "orw": part_status(bool(orw), layers_configured=bool(orw_used), complete=full["orw"]),
        "impaired": part_status(bool(impaired), layers_configured=bool(imp_used),
                                complete=full["impaired"]),
    }
    answer = " ".join([_orw_text(orw, parts["orw"], orw_missing),
                       _impaired_text(impaired, parts["impaired"])])
    statuses = set(parts.values())
    status = ("yes" if "yes" in statuses else "not_checked" if statuses == {"not_checked"}
              else "no" if statuses == {"no"} else "conditional")
    missing = [m for m in ["dem"] if rw.get("approximate")] + orw_missing + imp_missing
    caveats = trace_caveats + orw_cov + imp_cov
    if orw_missing and "vernal_pools" in orw_missing and "orw" not in orw_missing:
        caveats.append("Certified vernal pools are ORWs (Chapter 320 definitions) and were not "
                       "searched: no [layers.vernal_pools] configured.")
    if status == "yes" and set(parts.values()) - {"yes", "no"}:
        names = {"orw": "The ORW search", "impaired": "The impaired-water search"}
        caveats += [f"{names[k]} is {STATUS_WORDS[v].lower()}." for k, v in parts.items()
                    if v not in ("yes", "no")]
    return finding("receiving_waters", status, answer,
                   used=net_used + orw_used + imp_used + (["dem"] if not rw.get("approximate")
                                                          else []),
                   missing=missing, caveats=caveats, parts=parts, complete=full)


def _orw_text(orw: Sequence[Mapping[str, Any]], status: str, missing: Sequence[str]) -> str:
    if orw:
        return "Outstanding Resource Waters downstream: " + "; ".join(
            f"{w.get('name') or w.get('id')} at {fmt.ft(w.get('flow_distance_ft') or 0)}"
            for w in orw) + "."
    return {"not_checked": "ORWs not checked (no [layers.orw] or [layers.vernal_pools] "
                           "configured).",
            "no": "No Outstanding Resource Water downstream.",
            "conditional": "No ORW found on the part of the flow path searched (incomplete: see "
                           "the caveats)."}[status]


def _impaired_text(impaired: Sequence[Mapping[str, Any]], status: str) -> str:
    if impaired:
        return "Impaired waters downstream: " + "; ".join(
            f"{w.get('name') or w.get('au_id')} ({w.get('au_id')}, category "
            f"{w.get('category')}: {', '.join(w.get('causes') or []) or 'causes not listed'}"
            f"{'; ' + fmt.tmdl_text(w['tmdl']) if w.get('tmdl') else ''}) at "
            f"{fmt.ft(w.get('flow_distance_ft') or 0)}" for w in impaired) + "."
    return {"not_checked": "Impaired waters not checked (no [layers.impaired_waters] "
                           "configured).",
            "no": "No impaired water downstream.",
            "conditional": "No impaired water found on the part of the flow path searched "
                           "(incomplete: see the caveats)."}[status]


# --------------------------------------------------------------------------- summary
def summary_lines(doc: Mapping[str, Any], *, keys: Sequence[str] | None = None) -> list[str]:
    """The command's summary: one line per finding, its status word first, then its caveats.

    ``keys`` limits it to some findings (a QGIS algorithm's feedback for its own checks).
    """
    findings = [f for f in doc.get("findings") or decide_findings(doc)
                if keys is None or f["key"] in keys]
    lines = []
    if keys is None:
        d = doc.get("disturbance") or {}
        town = (doc.get("meta") or {}).get("town") or "Town"
        lines.append(f"{town}: the site disturbs {float(d.get('area_sqft') or 0):,.1f} sq ft "
                     f"({float(d.get('area_acres') or 0):.3f} acres)")
    for f in findings:
        lines.append(f"{f['title']}: {STATUS_WORDS[f['status']].upper()} - {f['answer']}")
        lines.extend(f"  caveat: {c}" for c in f.get("caveats") or [])
    rw = doc.get("receiving_waters") or {}
    if keys is None or "receiving_waters" in keys:
        lines.extend(f"  requires (§ {r['section']}): {r['text']}"
                     for r in rw.get("requirements") or [])
    return lines

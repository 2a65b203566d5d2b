"""The findings of a screening and their status: the one place that decides what may be said.

:func:`decide_findings` reads a screening document (the content of ``screening.json``, with its
``coverage`` records from :mod:`swm_gis.io.coverage`) and returns ``findings``:
one entry per finding, in the report's order, each with a ``status``:

* ``yes``: the rule applies / the feature was found;
* ``no``: only when every layer that could have turned it into ``yes`` was configured, read and
  covers the whole area searched, and (receiving waters) the trace did not leave the data;
* ``conditional``: the answer depends on something the tool could not see; ``caveats`` name it;
* ``not_checked``: no data to decide;
* ``info``: a value that brings no duty by itself.

The command's summary (:func:`summary_lines`), the report (headline, findings table, checklist)
and the QGIS outputs read these entries and never say "no", "none" or "not applicable" where a
finding says otherwise. The resource-area findings (habitats, floodplain, receiving waters) are
decided in :mod:`swm_gis.screening.resource_findings`; the statuses and the finding entry are in
:mod:`swm_gis.screening.finding_parts`. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from swm_gis import formatting as fmt
from swm_gis.screening.finding_parts import (
    STATUS_WORDS,
    STATUSES,
    TITLES,
    absent,
    finding,
    layer_state,
    part_status,
)
from swm_gis.screening.ms4 import MS4_WORDS, ms4_condition
from swm_gis.screening.resource_findings import (
    HABITAT_LAYERS,
    floodplain_finding,
    habitats_finding,
    receiving_finding,
)
from swm_gis.screening.site_findings import (
    development_finding,
    other_type_caveat,
    retention_text,
)
from swm_gis.screening.tiers import tier_sentence
from swm_gis.screening.wording import Wording, wording_of_document
from swm_gis.units import SQFT_PER_ACRE

__all__ = ["HABITAT_LAYERS", "MS4_WORDS", "STATUSES", "STATUS_WORDS", "decide_findings",
           "finding", "part_status", "summary_lines"]

def decide_findings(doc: Mapping[str, Any], wording: Wording | None = None
                    ) -> list[dict[str, Any]]:
    """Every finding of a screening document, in the report's order. ``wording``: the
    citations and notes of the regulation applied (:mod:`swm_gis.screening.wording`); by
    default those of the bundled profile the document's ``meta.regulation`` names."""
    w = wording or wording_of_document(doc)
    permit = _with_tier(_disturbance(doc, w), doc)
    dev = development_finding(doc, w.rules)
    found = [permit, dev, _standards(doc, permit, dev, w), _watersheds(doc),
             _mitigation(doc, w), habitats_finding(doc), floodplain_finding(doc, w),
             receiving_finding(doc, w)]
    return [_cited(f, doc, w) for f in found]


def _cited(f: dict[str, Any], doc: Mapping[str, Any], w: Wording) -> dict[str, Any]:
    """A finding with the regulation's citation where it carries none of its own, and the
    habitat distance of the town's rules in the habitats title."""
    if f.get("section") is None:
        f["section"] = w.citation(f["key"])
    if f["key"] == "habitats" and f["title"] == TITLES["habitats"]:
        distance = (doc.get("rules") or {}).get("habitat_distance_ft")
        f["title"] = f["title"].format(distance=fmt.number(
            distance if distance is not None else 500))
    return f


# --------------------------------------------------------------------------- permit trigger
def _with_tier(permit: dict[str, Any], doc: Mapping[str, Any]) -> dict[str, Any]:
    """The permit finding with the review tier the project reaches (``disturbance.tier``,
    :mod:`swm_gis.screening.tiers`) after its answer, where the profile has more than the one
    disturbed-area tier the answer already speaks of."""
    block = (doc.get("disturbance") or {}).get("tier")
    if not isinstance(block, Mapping):
        return permit
    sentence = tier_sentence(block)
    cited = {"section": block["section"]} if block.get("section") else {}
    return {**permit, **cited, **({"answer": f"{permit['answer']} {sentence}"} if sentence
                                   else {})}


def _disturbance(doc: Mapping[str, Any], w: Wording) -> dict[str, Any]:
    d = doc.get("disturbance")
    if not isinstance(d, Mapping):
        return absent("disturbance")
    area, plan = float(d.get("area_sqft") or 0), d.get("common_plan_area_sqft")
    trigger = float(d.get("trigger_sqft") or SQFT_PER_ACRE)
    figures = _disturbance_figures(area, plan, trigger)
    used = ["site"] + (["common_plan"] if plan is not None else [])
    reaches = _reaches_trigger(d, area, plan, trigger)
    claimed = d.get("exemption") or []
    ms4 = ms4_condition(d, w.citation("ms4"))
    town_caveats = [str(w.get("text")) for w in doc.get("warnings") or []
                    if isinstance(w, Mapping) and w.get("text")]
    if claimed:
        return _claimed_exemption(claimed, reaches, plan, figures, used, ms4, town_caveats,
                                  trigger=trigger, w=w,
                                  counts_plan=d.get("counts_common_plan") is not False)
    if reaches:
        return _reaching_trigger(figures, trigger, used, ms4, town_caveats, w)
    if d.get("counts_common_plan") is False:  # the regulation counts the project alone
        return finding("disturbance", "no",
                       f"Not required. {figures}: below the {_trigger_name(trigger)} trigger, "
                       "and the regulation applied counts the project's own disturbance, not a "
                       "larger common plan's.", used=used,
                       caveats=town_caveats)
    if plan is None:
        return finding(
            "disturbance", "conditional",
            f"Conditional. {figures}, below {_acre(trigger)}, and no common plan was given: a "
            "permit is required if the site is part of a larger common plan of development or "
            f"sale that will ultimately disturb {_acre(trigger)} or more (e.g. a lot of a "
            "subdivision), and not "
            "otherwise.", used=used, missing=["common_plan"],
            caveats=["Give the larger common plan of development or sale to decide.",
                     *town_caveats])
    return finding("disturbance", "no",
                   f"Not required. {figures}: neither reaches the {_trigger_name(trigger)} "
                   "trigger.", used=used,
                   caveats=town_caveats)


#: The trigger area in words: "one acre" only for 43,560 sq ft, else its square feet.
_acre = fmt.trigger_area


def _trigger_name(trigger: float) -> str:
    """The trigger as an adjective: "one-acre (43,560 sq ft)", else "21,780 sq ft"."""
    return f"one-acre ({fmt.sqft(trigger)})" if trigger == SQFT_PER_ACRE else fmt.sqft(trigger)


def _disturbance_figures(area: float, plan: Any, trigger: float = SQFT_PER_ACRE) -> str:
    """The areas disturbed: the site's, and its common plan's when one was given; a figure
    below the trigger never prints as the trigger (:func:`swm_gis.formatting.below`)."""
    def words(sqft: float) -> str:
        acres = sqft / SQFT_PER_ACRE
        if round(sqft, 3) < trigger:  # below it, as _reaches_trigger reads the figure
            sqft, acres = fmt.below(sqft, trigger), fmt.below(acres, trigger / SQFT_PER_ACRE, 2)
        return f"{fmt.sqft(sqft)} ({fmt.acres(acres, grouping=False)})"

    figures = f"The site disturbs {words(area)}"
    if plan is not None:
        figures += f"; with its common plan of development or sale {words(float(plan))}"
    return figures


def _reaches_trigger(d: Mapping[str, Any], area: float, plan: Any, trigger: float) -> bool:
    """Whether the site or its common plan disturbs the trigger area (one acre)."""
    reaches = d.get("disturbs_trigger_area")
    if not isinstance(reaches, bool):  # an older document: decide from the areas
        reaches = round(area, 3) >= trigger or (plan is not None and round(float(plan), 3)
                                                >= trigger)
    return reaches


def _ms4_sentence(ms4_text: str) -> str:
    return f"{ms4_text[0].upper()}{ms4_text[1:]}."


def _claimed_exemption(claimed: Sequence[Mapping[str, Any]], reaches: bool, plan: Any,
                       figures: str, used: list[str], ms4: tuple, town_caveats: list[str],
                       *, trigger: float = SQFT_PER_ACRE, w: Wording,
                       counts_plan: bool = True) -> dict[str, Any]:
    """The permit finding when the applicant claims an exemption: the permit authority decides
    (a larger common plan is spoken of only where the regulation counts one)."""
    _, ms4_caveats, ms4_used, ms4_missing, _ = ms4
    names = "; ".join(f"{e.get('section')} ({e.get('name')})"
                      + (f": {e['activity']}" if e.get("activity") else "") for e in claimed)
    acre = _acre(trigger)
    otherwise = (f"a permit is required (the disturbance reaches {acre})" if reaches else
                 f"no permit is required either: the site disturbs less than {acre}"
                 if not counts_plan else
                 "no permit is required either: neither the site nor its common plan "
                 f"disturbs {acre}" if plan is not None else
                 "a permit is required only if the site is part of a larger common plan of "
                 f"development or sale that will ultimately disturb {acre} or more")
    return finding(
        "disturbance", "conditional",
        f"Conditional. The applicant claims an exemption: {names}. This is the applicant's "
        f"claim; the {w.rules.authority} decides whether the activity qualifies. If it "
        f"does not, {otherwise}.{' ' + _ms4_sentence(ms4[0]) if reaches else ''} {figures}.",
        used=used + ms4_used, missing=ms4_missing,
        caveats=["The exemption is the applicant's claim, not a finding of this tool.",
                 w.note("exemption_7"), *town_caveats, *(ms4_caveats if reaches else []),
                 w.note("town_boards")])


def _reaching_trigger(figures: str, trigger: float, used: list[str], ms4: tuple,
                      town_caveats: list[str], w: Wording) -> dict[str, Any]:
    """The permit finding when the disturbance reaches the trigger: required, or conditional
    on the MS4 while that condition is open (:func:`swm_gis.screening.ms4.ms4_condition`)."""
    ms4_text, ms4_caveats, ms4_used, ms4_missing, ms4_open = ms4
    if ms4_open:
        return finding("disturbance", "conditional",
                       f"Conditional. {figures}, which reaches the {_trigger_name(trigger)} "
                       "trigger; a permit is required if the disturbance "
                       f"drains to the Town's MS4. {_ms4_sentence(ms4_text)}",
                                              used=used + ms4_used, missing=ms4_missing,
                       caveats=[*town_caveats, *ms4_caveats, w.note("town_boards")])
    return finding("disturbance", "yes",
                   f"Required. {figures}, which reaches the {_trigger_name(trigger)} "
                   f"trigger. {_ms4_sentence(ms4_text)}",
                   used=used + ms4_used, missing=ms4_missing,
                   caveats=[*town_caveats, *ms4_caveats, w.note("town_boards")])


# --------------------------------------------------------------------------- standards
def _standards(doc: Mapping[str, Any], permit: Mapping[str, Any], dev: Mapping[str, Any],
               w: Wording) -> dict[str, Any]:
    s = doc.get("standards")
    if not isinstance(s, Mapping):
        return absent("standards")
    section = s.get("section") or None
    answer, roadway = _standards_answer(s, w)
    if s.get("roadway_maintenance") and not roadway:  # claimed, but on new development
        answer = f"{answer} {w.rules.roadway_on_new(note=True)}"
    caveats = [w.note("roadway_claim")] if roadway else []
    permit_status = _standards_permit_status(doc, permit, caveats, w)
    status, answer = _permit_gate(permit_status, answer, caveats)
    if status == "yes" and roadway:
        status = "conditional"
    if dev["status"] == "conditional" and status == "yes":
        status = "conditional"
    if dev["status"] == "conditional":
        caveats.append("The standards follow the development type, which is conditional.")
    caveats.append(other_type_caveat(s, w.rules))
    missing = ["impervious"] if s.get("post_impervious_missing") else []
    if missing:  # the total lacks the existing cover that stays: at least the figure given
        status = "conditional" if status == "yes" else status
        caveats.append("The total post-construction impervious area on the site lacks "
                       + "; ".join(s["post_impervious_missing"]) + " (no existing impervious "
                       "layer is configured): the retention volume is at least the figure "
                       "given.")
    return finding("standards", status, answer, section=section,
                   used=["proposed_impervious"] if s.get("post_impervious_sqft") is not None
                   else [], missing=missing, caveats=caveats)


def _standards_answer(s: Mapping[str, Any], w: Wording) -> tuple[str, bool]:
    """(what the standards ask, whether a roadway-maintenance claim stands before them)."""
    roadway, r = bool(s.get("roadway_claimed")), w.rules
    if (s.get("applies") is False or s.get("roadway_exempt")) and not roadway:
        # an older document, where the tool took the roadway claim as decided
        return ("Roadway maintenance redevelopment claimed: exempt from "
                f"{r.parts('redevelopment', '(a)-(d)')} if the {r.decider_short()} accepts it; "
                "must "
                "improve existing conditions unless infeasible "
                f"({r.roadway_maintenance})."), True
    answer = _retention_answer(s, w)
    if roadway:
        answer = (f"Unless the {r.decider_short()} accepts the applicant's roadway-maintenance "
                  "claim "
                  f"({r.roadway_maintenance}: exempt from "
                  f"{r.parts('redevelopment', '(a)-(d)', whole=False)}, and \"shall improve "
                  "existing conditions unless infeasible\"): " + answer)
    return answer, roadway


def _retention_answer(s: Mapping[str, Any], w: Wording) -> str:
    """The retention volume or the removal targets, or off-site mitigation (§ 320-19 B(9))."""
    retain = retention_text(s)
    return (f"{retain[0].upper()}{retain[1:]}, or remove "
            f"{fmt.pct(s.get('tss_removal') or 0)} TSS and "
            f"{fmt.pct(s.get('tp_removal') or 0)} "
            "TP, or a combination, or off-site mitigation in the same "
            f"{s.get('mitigation_huc_level')}; removal as an average over a year, "
            "calculated consistent with EPA Region 1's BMP Accounting and Tracking Tool "
            f"(2016) ({w.citation('removal_method')}).")


def _standards_permit_status(doc: Mapping[str, Any], permit: Mapping[str, Any],
                             caveats: list[str | None], w: Wording) -> str:
    """The permit status the standards follow: under a wetlands-order claim, the one without
    the claims (the standards apply either way; its note joins ``caveats``)."""
    claims = [e.get("name") for e in (doc.get("disturbance") or {}).get("exemption") or []
              if isinstance(e, Mapping)]
    base = _permit_without_claims(doc, w) if claims else permit["status"]
    if claims and "wetlands-order" in claims:
        caveats.append(w.note("wetlands_order"))
        return base
    return permit["status"]


def _permit_gate(permit_status: str, answer: str, caveats: list[str]) -> tuple[str, str]:
    """(status, answer) of the standards as the permit finding allows them."""
    if permit_status == "yes":
        return "yes", answer
    if permit_status == "no":
        return "info", "For information (no permit is required): " + answer
    caveats.append("Apply only if a permit is required (see the permit finding).")
    return "conditional", "If a permit is required: " + answer


def _permit_without_claims(doc: Mapping[str, Any], w: Wording) -> str:
    """The permit finding's status as it would be without the claimed exemptions."""
    d = dict(doc.get("disturbance") or {})
    d["exemption"] = None
    return _disturbance({**doc, "disturbance": d}, w)["status"]


# --------------------------------------------------------------------------- watersheds
def _watersheds(doc: Mapping[str, Any]) -> dict[str, Any]:
    w = doc.get("watersheds")
    if not isinstance(w, Mapping):
        return absent("watersheds")
    used, missing, caveats = layer_state(doc, "watersheds", ["huc12", "huc10"])
    # a layer that does not cover the site: that level is not checked (never a refusal)
    uncovered = [lv for lv in w.get("not_covered") or [] if lv in used]
    used = [lv for lv in used if lv not in uncovered]
    parts = [_watershed_part(w, level, missing, uncovered, caveats)
             for level in ("huc12", "huc10")]
    if not used and uncovered:
        return finding("watersheds", "not_checked", "; ".join(parts) + ".",
                       used=uncovered, missing=missing)
    if not used:
        return finding("watersheds", "not_checked", "Not checked: no HUC12 or HUC10 "
                       "watershed layer is configured.", missing=missing)
    status = "info" if not missing and not caveats and not uncovered else "conditional"
    return finding("watersheds", status, "; ".join(parts) + ".", used=[*used, *uncovered],
                   missing=missing, caveats=caveats)


def _watershed_part(w: Mapping[str, Any], level: str, missing: Sequence[str],
                    uncovered: Sequence[str], caveats: list[str]) -> str:
    """One level's part of the watersheds answer; a partial share adds to ``caveats``."""
    if level in missing:
        return f"{level.upper()} not checked (no {level.upper()} watershed layer is configured)"
    if level in uncovered:
        return (f"{level.upper()} not checked (the {level.upper()} watershed layer does not "
                "cover the site)")
    items = w.get(level) or []
    share = sum(float(h.get("share") or 0) for h in items)
    text = ", ".join(f"{h.get('huc')} {h.get('name') or ''} ({fmt.pct(h.get('share'), 1)})"
                     .replace("  ", " ") for h in items)
    if share < 0.999:
        caveats.append(f"Only {fmt.pct(share, 1)} of the site lies in the {level.upper()} "
                       "units of the layer given.")
    return f"{level.upper()}: {text or 'no unit of the layer contains the site'}"


def _mitigation(doc: Mapping[str, Any], w: Wording) -> dict[str, Any]:
    rows = doc.get("mitigation")
    if not isinstance(rows, list):
        return absent("mitigation")
    standards = doc.get("standards") or {}
    level = str(standards.get("mitigation_huc_level") or "HUC12")
    mitigation_part = w.rules.parts("redevelopment", "(d)", whole=False)
    claim = ([f"{w.note('roadway_claim')} If it accepts the claim, {mitigation_part} (off-site "
              "mitigation) does not bind the project."] if standards.get("roadway_claimed") else [])
    if not rows:
        return finding("mitigation", "info", f"No off-site mitigation site proposed; one must "
                       f"lie in the same {level} as the site"
                       + (" (unless the roadway-maintenance claim is accepted)." if claim
                          else "."), caveats=claim)
    used, missing, caveats = layer_state(doc, "mitigation", [level.lower()])
    if level.lower() in ((doc.get("watersheds") or {}).get("not_covered") or []):
        return finding("mitigation", "not_checked", f"Not checked: the {level.upper()} "
                       "watershed layer does not cover the site, so the site's "
                       f"{level.upper()} is unknown.", used=["mitigation", *used], caveats=claim)
    if missing:
        return finding("mitigation", "not_checked", f"Not checked: no {level.upper()} watershed "
                       "layer is configured.", used=["mitigation"], missing=missing, caveats=claim)
    ok = [str(m.get("id")) for m in rows if m.get("eligible")]
    text = "; ".join(f"{m.get('id')}: {'eligible' if m.get('eligible') else 'not eligible'}"
                     f"{' (' + str(m.get('reason')).rstrip('.') + ')' if m.get('reason') else ''}"
                     for m in rows)
    status = "yes" if ok else ("no" if not caveats else "conditional")
    straddle = _straddle_caveat(doc, level, rows, bool(ok))
    if straddle:
        status = "conditional"
        caveats.append(straddle)
    return finding("mitigation", status, f"{len(ok)} of {len(rows)} site(s) eligible. {text}",
                   used=["mitigation", *used], caveats=caveats + claim)


def _straddle_caveat(doc: Mapping[str, Any], level: str, rows: Sequence[Mapping[str, Any]],
                     eligible: bool) -> str:
    """The caveat of a site that straddles watersheds of ``level`` ("" when it lies in one or
    no site is ``eligible``): only the mitigation site's location was tested, the rest is the
    Commission's judgement."""
    shares = [h for h in ((doc.get("watersheds") or {}).get(level.lower()) or [])
              if float(h.get("share") or 0) > 0]
    if not eligible or len(shares) <= 1:
        return ""
    split = ", ".join(f"{h.get('huc')} ({fmt.pct(h.get('share'), 1)})" for h in shares)
    share_of = {str(h.get("huc")): h.get("share") for h in shares}
    where = "; ".join(f"{m.get('id')} lies in {m.get('huc')}, which holds "
                      f"{fmt.pct(share_of.get(str(m.get('huc')), 0), 1)} of the site"
                      for m in rows if m.get("eligible"))
    return (
        f"The site straddles {level}s: {split}. Only the mitigation site's location was "
        f"tested ({where}); whether mitigation there is \"within the same USGS {level} as "
        f"the {'new development' if level == 'HUC12' else 'redevelopment'} site\" is the "
        "Commission's judgement.")


# --------------------------------------------------------------------------- summary
def _summary_area(d: Mapping[str, Any]) -> str:
    """The summary's area, "43,559.9 sq ft (0.999 acres)": below the trigger, never printed
    as the trigger (:func:`swm_gis.formatting.below`)."""
    area = float(d.get("area_sqft") or 0)
    trigger = float(d.get("trigger_sqft") or SQFT_PER_ACRE)
    sqft, acres = area, area / SQFT_PER_ACRE
    if not d.get("disturbs_trigger_area") and round(area, 3) < trigger:
        sqft, acres = fmt.below(area, trigger, 1), fmt.below(acres, trigger / SQFT_PER_ACRE, 3)
    return f"{fmt.sqft(sqft, 1)} ({fmt.acres(acres, 3, grouping=False)})"


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
        lines.append(f"{town}: the site disturbs {_summary_area(d)}")
    for f in findings:
        lines.append(f"{f['title']}: {STATUS_WORDS[f['status']].upper()} - {f['answer']}")
        lines.extend(f"  caveat: {c}" for c in f.get("caveats") or [])
    rw = doc.get("receiving_waters") or {}
    if keys is None or "receiving_waters" in keys:
        lines.extend(f"  requires (§ {r['section']}): {r['text']}"
                     for r in rw.get("requirements") or [])
    return lines

"""The words the findings cite and note, read from the regulation profile applied (issue 33).

Each finding's citation comes from the profile's ``[versions.citations]``; the notes printed with
the findings (the Town Boards note, the MS4 words, the wetlands-order and roadway notes,
exemption 7, the NHESP plan / prevent notes) from the ``[notes]`` of the profile's ``texts``
file, byte for byte (Lynnfield's are the texts swm-gis printed before the regulation became
data). A profile that gives no text gets swm-gis's own neutral wording with the profile's
citation, never another town's words; a profile without the citation gets the regulation's
short name (``docs/regulations.md``, "Where the screening's words come from").

Pure: reads the profile (already loaded) only.

Examples
--------
>>> from swm_gis.config.regulation import load_regulation
>>> w = wording_for(load_regulation("lynnfield-ch320", on="2026-01-01"))
>>> w.citation("standards")
'§ 320-19 B(7) / B(8)'
>>> ww = wording_for(load_regulation("westwood-ch350", on="2026-01-01"))
>>> ww.note("exemption_7") is None
True
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from swm_gis.rules.citations import RuleCitations, default_citations, rule_citations

__all__ = ["FINDING_KEYS", "Wording", "applied_of_document", "requirement_rows", "wording_for",
           "wording_of_document"]

#: The findings, in the report's order; each cites ``[versions.citations]`` under its key.
FINDING_KEYS = ("disturbance", "development_type", "standards", "watersheds", "mitigation",
                "habitats", "floodplain", "receiving_waters")


@dataclasses.dataclass(frozen=True)
class Wording:
    """What a screening cites and notes under one regulation profile's version."""

    name: str
    citations: Mapping[str, str]
    notes: Mapping[str, str | None]
    #: what the rules cite (:mod:`swm_gis.rules.citations`), for the findings that word them
    rules: RuleCitations = dataclasses.field(default_factory=default_citations)

    def citation(self, key: str) -> str:
        """The citation finding ``key`` carries: the profile's, else the regulation's name."""
        return self.citations.get(key) or self.name

    def note(self, key: str) -> str | None:
        """A note printed with the findings (``[notes]`` key); None when the profile has none
        and swm-gis has no neutral wording for it."""
        return self.notes.get(key)


def _neutral_notes(applied: Any, name: str) -> dict[str, str | None]:
    """swm-gis's own words for a profile whose texts file gives no note: the profile's
    citation and offices, never another town's wording."""
    version, offices = applied.version, applied.profile.offices
    resources, standards = version.section("resources"), version.section("standards")
    authority = offices.permit_authority
    habitat_cite = resources.get("nhesp_citation") or version.citation("habitats") or name
    prevent_cite = resources.get("nhesp_prevent_citation") or habitat_cite
    distance = resources.get("nhesp_distance_ft")
    wetlands = next((e.citation for e in version.exemptions if e.key == "wetlands-order"), None)
    roadway = standards.get("roadway_maintenance_citation")
    submittals = version.section("submittals").get("citation") or name
    floodplain = resources.get("floodplain_citation") or version.citation("floodplain") or name
    definitions = version.section("definitions").get("citation") or name
    orw = resources.get("orw_citation") or name
    return {
        "ms4_words": "draining to the Town's MS4",
        "town_boards": None,
        "wetlands_order": None if wetlands is None else (
            f"The wetlands-order exemption ({wetlands}) is decided by the {authority}: "
            "read the regulation for whether the performance standards apply either way."),
        "roadway_claim": (
            f"The applicant claims roadway maintenance ({roadway or name}); the {authority} "
            "decides whether the claim holds."),
        "exemption_7": None,
        "owner_of_site": "The permittee should own the site",
        "habitat_plan": (
            "NHESP Priority Habitats, Estimated Habitats and Certified Vernal Pools"
            + (f" within {distance:,.0f} ft" if distance is not None else "")
            + f" of any construction activity must be shown on the plans ({habitat_cite})."),
        "site_owner": (
            "the permittee should be the owner of the site and every owner of the land "
            f"disturbed sign the application ({submittals}), or the limit of disturbance be "
            "redrawn on the applicant's lot"),
        "site_owner_citation": submittals,
        "floodplain_show": "Show the 100-year floodplain, with its flood elevation, on the "
                           "erosion and sediment control plan.",
        "easements": "Stormwater management easements for the off-site mitigation areas, "
                     f"recorded at the {offices.registry_of_deeds or 'Registry of Deeds'}.",
        "easements_citation": version.citation("mitigation") or name,
        "checklist_lead": "Items of the application package and of the plans the regulation "
                          f"applied requires ({version.citation('checklist') or submittals}).",
        "habitat_prevent": f"Significant alteration of these habitats must be prevented "
                           f"({prevent_cite}).",
        "floodplain_no_bfe": (f"the regulation applied ({floodplain}) asks for the 100-year "
                              "flood elevation on the plans, calculated where the map gives "
                              "none."),
        "site_lod_only": ("Measured on the limit of disturbance only: the site is the lot or "
                          f"parcel ({definitions}), and no parcel under the site was found."),
        "vernal_pool_orw": (f"Certified vernal pools are ORWs ({orw}) and were not searched: "
                            "no certified vernal pools layer is configured."),
    }


def wording_for(applied: Any) -> Wording:
    """The wording of an applied regulation (:class:`~swm_gis.config.regulation.
    AppliedRegulation`): its citations, and its texts file's notes over swm-gis's neutral
    ones."""
    profile, version = applied.profile, applied.version
    name = profile.short_name or profile.chapter or profile.title
    given = version.section("citations")  # every key the profile cites, findings first
    citations = {k: str(given[k]) for k in (*FINDING_KEYS, *given) if given.get(k)}
    removal = version.section("standards").get("removal_method_citation")
    if removal:  # how removal is calculated, cited in the standards finding's answer
        citations["removal_method"] = str(removal)
    ms4 = version.section("applicability").get("ms4_citation")
    if ms4:  # the MS4 condition of the trigger, cited in the permit finding's caveats
        citations["ms4"] = str(ms4)
    texts = dict(profile.texts_table().get("notes") or {})
    notes = {k: texts.get(k, v) for k, v in _neutral_notes(applied, name).items()}
    return Wording(name=name, citations=citations, notes=notes, rules=rule_citations(applied))


#: The requirement groups of the impaired-water causes a profile lists (its ``cause`` keys).
_SPILL = ("solids", "metals", "oil_grease")


def requirement_rows(applied: Any) -> dict[str, dict[str, str]]:
    """The receiving waters' requirement rows (group -> section, condition, text; see
    :func:`swm_gis.terrain.receiving_waters.requirements_for`) of an applied regulation: the
    file its profile names (``pollutant_requirements``: Lynnfield's quotes Chapter 320), else
    swm-gis's own words with the duties and citations of its ``[[versions.resources.impaired]]``
    and its ``orw_citation``."""
    from swm_gis.terrain.receiving_waters import requirement_table

    profile, version = applied.profile, applied.version
    if profile.pollutant_requirements is not None:
        return requirement_table(str(profile.pollutant_requirements))
    name = profile.short_name or profile.chapter or profile.title
    res = version.section("resources")
    cited = res.get("impaired_citation") or version.citation("receiving_waters") or name
    rows = {"listed": {"section": cited, "condition": "", "text": (
        "Runoff reaches impaired water(s) {waters}: the impaired-waters standards of the "
        f"regulation applied ({cited}) apply to the stormwater management plan.")}}
    for item in version.impairments:
        group = item.cause.replace("-", "_")
        duty = item.duty.replace("{", "(").replace("}", ")")
        text = ("{causes} impairment ({waters}): " + duty + " (on commercial or industrial "
                "land)." if group in _SPILL else f"{duty} " + "({waters}: {tmdls})."
                if group == "tmdl" else f"{group.capitalize()} impairment " + "({waters}): "
                + f"{duty}.")
        rows.setdefault(group, {"section": item.citation, "text": text,
                                "condition": item.land_use or ""})
    rows["orw"] = {"section": res.get("orw_citation") or name, "condition": "", "text": (
        "Runoff reaches Outstanding Resource Water(s) {waters}: flagged. ORWs are subject to "
        "the more stringent requirements of the Massachusetts Surface Water Quality Standards "
        "(314 CMR 4.00) and the Massachusetts Stormwater Management Standards.")}
    return rows


def applied_of_document(doc: Mapping[str, Any]) -> Any:
    """The regulation a screening document applied (``meta.regulation``: its profile file, or
    the bundled id, on the date it was applied); an older document, or a profile file no
    longer there: the default profile's (Lynnfield's) first version."""
    from swm_gis.config.regulation import AppliedRegulation, bundled_ids
    from swm_gis.config.town_regulation import read_profile

    reg = (doc.get("meta") or {}).get("regulation") or {}
    ref = reg.get("file") if reg.get("file") and Path(str(reg["file"])).is_file() else \
        reg.get("id") if reg.get("id") in bundled_ids() else None
    profile = read_profile(ref)
    if ref is not None and reg.get("applied_on"):
        day = dt.date.fromisoformat(str(reg["applied_on"])[:10])
        return AppliedRegulation(profile, profile.version_on(day), day)
    first = profile.versions[0]
    return AppliedRegulation(profile, first, first.effective)


def wording_of_document(doc: Mapping[str, Any]) -> Wording:
    """The wording of a screening document that holds none (:func:`applied_of_document`)."""
    return wording_for(applied_of_document(doc))

"""The Chapter 320 submittal checklist (permit procedure A, §§ 320-19, 320-20, 320-21) and what
applies.

The items are data (the file the profile names: Lynnfield's
``swm_gis/regulations/lynnfield-ch320.checklist.toml``), taken from the regulation text; this
module decides, from a screening document (the content of ``screening.json``, README
"Commands"), which conditional items apply and attaches the screening
finding each item needs (the floodplain for the 100-year flood elevation, the NHESP features
within 500 ft, the required retention volume, ...).

Examples
--------
>>> items = submittal_checklist({"floodplain": {"in_sfha": False}})
>>> [i.ref for i in items if i.section == "§ 320-20"][:4]
['A(1)', 'A(2)', 'A(3)(a)', 'A(3)(b)']

No coverage record shows that a flood zone layer covered the site, so the floodplain is not
checked and the delineation item is undecided ("Check"), never "Not applicable":

>>> print(next(i for i in items if i.section == "§ 320-19" and i.ref == "A(8)").applies)
None
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from swm_gis import formatting as fmt
from swm_gis.screening.findings import decide_findings
from swm_gis.screening.general_requirements import CUT_OFF_NOTE
from swm_gis.screening.wording import applied_of_document, wording_of_document
from swm_gis.terrain.receiving_waters import SPILL_GROUPS, cause_group, requirements_for
from swm_gis.units import SQFT_PER_ACRE

__all__ = ["ChecklistGroup", "ChecklistItem", "checklist_groups", "submittal_checklist"]

CONDITIONS = ("always", "in_sfha", "offsite_mitigation", "impaired", "tmdl", "nitrogen",
              "phosphorus", "chloride", "solids_metals_oil", "orw")

#: The § 320-19 B(10) conditions and the requirement group (receiving_waters tables) of each.
_DUTY_GROUP = {"tmdl": "tmdl", "nitrogen": "nitrogen", "phosphorus": "phosphorus",
               "chloride": "chloride", "solids_metals_oil": "solids_metals_oil"}


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
    cut_off: bool = False

    @property
    def citation(self) -> str:
        """``§ 320-19 A(8)``; a section cited by its heading takes a comma
        (``Ch. 320, permit procedure, A(7)``)."""
        sep = " " if self.section.startswith("§") else ", "
        return f"{self.section}{sep}{self.ref}"


@lru_cache(maxsize=4)
def _table(path: str | None = None) -> dict[str, Any]:
    if path is None:  # the default profile's
        default = checklist_file(applied_of_document({}))
        if default is None:
            return {"groups": [], "items": []}
        path = str(default)
    return tomllib.loads(Path(path).read_text(encoding="utf-8"))


def checklist_file(applied: Any) -> Path | None:
    """The checklist file a regulation profile's version names (``submittals.checklist_file``,
    relative to the profile); None: it names none, and the report lists no checklist."""
    name = applied.version.section("submittals").get("checklist_file")
    return (applied.profile.path.parent / name).resolve() if name else None


def checklist_groups(path: Path | None = None) -> list[ChecklistGroup]:
    """The plans of the application package, in order (``path``: the profile's checklist file,
    :func:`checklist_file`; default: the one the default profile names)."""
    return [ChecklistGroup(g["key"], g["section"], g["title"])
            for g in _table(None if path is None else str(path))["groups"]]


def _raw_items(path: Path | None = None) -> list[dict[str, Any]]:
    sections = {g.key: g.section for g in checklist_groups(path)}
    items = []
    for raw in _table(None if path is None else str(path))["items"]:
        when = raw.get("when", "always")
        if when not in CONDITIONS:  # a typo in the table must not silently drop an item
            raise ValueError(f"submittal_checklist.toml: unknown condition {when!r} "
                             f"for {raw['group']} {raw['ref']}; known: {', '.join(CONDITIONS)}")
        items.append({**raw, "section": raw.get("section", sections[raw["group"]]),
                      "when": when})
    return items


def submittal_checklist(document: Mapping[str, Any] | None = None, *,
                        path: Path | None = None) -> list[ChecklistItem]:
    """Every checklist item, with whether it applies to the screened site and its finding.

    Parameters
    ----------
    document
        The screening document (``screening.json`` content); None gives the bare checklist with
        every conditional item undecided.
    path
        The regulation profile's checklist file (:func:`checklist_file`); default: the one
        Lynnfield's profile names.

    Returns
    -------
    list of ChecklistItem
        In checklist order; ``applies`` is True, False or None (the deciding check did not run).
    """
    doc = document or {}
    conditions = _conditions(doc) if document is not None else {}
    out = []
    for raw in _raw_items(path):
        when = raw["when"]
        applies = True if when == "always" else conditions.get(when)
        note = _note(raw.get("notes", ""), doc) if document is not None else ""
        cut = bool(raw.get("cut_off"))
        if cut:
            note = " ".join(filter(None, [CUT_OFF_NOTE, note]))
        out.append(ChecklistItem(group=raw["group"], section=raw["section"], ref=raw["ref"],
                                 text=raw["text"], when=when, applies=applies, note=note,
                                 cut_off=cut))
    return out


# --------------------------------------------------------------------------- conditions
def _findings(doc: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """The document's findings by key (decided here for a document that has none)."""
    items = doc.get("findings") or decide_findings(doc)
    return {f["key"]: f for f in items if isinstance(f, Mapping)}


def _yes_no(status: Any) -> bool | None:
    """A finding status as the checklist's applies: yes -> True, no -> False, else undecided."""
    return True if status == "yes" else False if status == "no" else None


def _block(doc: Mapping[str, Any], key: str) -> Any:
    """The document block ``key``, or None when its finding is not checked."""
    if doc.get(key) is None or _findings(doc).get(key, {}).get("status") == "not_checked":
        return None
    return doc[key]


def _conditions(doc: Mapping[str, Any]) -> dict[str, bool | None]:
    found = _findings(doc)
    mitigation = doc.get("mitigation")
    rw_finding = found.get("receiving_waters") or {}
    parts = rw_finding.get("parts") or {}
    cond: dict[str, bool | None] = {
        "in_sfha": _yes_no((found.get("floodplain") or {}).get("status")),
        "offsite_mitigation": (bool(mitigation) if isinstance(mitigation, list) else None),
        "impaired": _yes_no(parts.get("impaired")),
        "orw": _yes_no(parts.get("orw")),
    }
    cond.update(b10_conditions(doc, complete=bool((rw_finding.get("complete") or {})
                                                  .get("impaired"))))
    return cond


def b10_conditions(doc: Mapping[str, Any], *, complete: bool) -> dict[str, bool | None]:
    """Whether each § 320-19 B(10) duty applies, from the very function that writes the
    requirements list (:func:`swm_gis.terrain.receiving_waters.requirements_for`, one causes table).

    A duty derived is True (None when it is conditional on the land use); a duty not derived is
    False only when the search for impaired waters was complete (``complete``), or when its
    causes were met but the stated proposed use rules it out (§ 320-19 B(10)(e)); otherwise
    undecided. Without a proposed use, (e) is never "Not applicable".
    """
    rw = doc.get("receiving_waters")
    if not isinstance(rw, Mapping):
        return dict.fromkeys(_DUTY_GROUP)
    impaired = [a for a in rw.get("impaired") or [] if isinstance(a, Mapping)]
    derived = {r["group"]: r for r in requirements_for(
        impaired, [], use_codes=rw.get("use_codes"), proposed_use=rw.get("proposed_use"))}
    spill_met = any(cause_group(c) in SPILL_GROUPS for a in impaired for c in a.get("causes") or [])
    out: dict[str, bool | None] = {}
    for key, group in _DUTY_GROUP.items():
        if group in derived:
            out[key] = None if derived[group].get("conditional") else True
        elif key == "solids_metals_oil" and spill_met:
            out[key] = False  # causes met, but not on commercial or industrial land
        else:
            out[key] = False if complete else None
    return out


# --------------------------------------------------------------------------- notes
def _note(kind: str, doc: Mapping[str, Any]) -> str:
    try:
        return _NOTES[kind](doc) if kind else ""
    except (TypeError, ValueError, KeyError, AttributeError):  # malformed block: say nothing
        return ""


def _note_floodplain(doc: Mapping[str, Any]) -> str:
    flood = _block(doc, "floodplain")
    status = _findings(doc).get("floodplain", {}).get("status")
    if not isinstance(flood, Mapping):
        return "Floodplain not checked: delineate from the current FIRM."
    if status == "conditional":
        return ("Floodplain conditional (see the floodplain finding: the flood zone layer or "
                "the site's parcels did not cover the whole site); delineate from the current "
                "FIRM.")
    parcels = flood.get("subject_parcels") if isinstance(flood.get("subject_parcels"),
                                                         Mapping) else None
    if not flood.get("in_sfha") and not (parcels and parcels.get("in_sfha")):
        return _note_no_sfha(flood, parcels, status)
    if parcels and parcels.get("in_sfha"):
        return _note_parcels_in_sfha(flood, parcels)
    share = float(flood.get("site_fraction") or 0) * 100
    return (f"Site in the SFHA: {fmt.sqft(flood.get('sfha_area_sqft') or 0)} ({share:.1f}% of the "
            f"site); {'; '.join(_zone_texts(flood)) or 'zones not listed'}.")


def _note_no_sfha(flood: Mapping[str, Any], parcels: Mapping[str, Any] | None,
                  status: Any) -> str:
    """The note when no SFHA was found, with the 0.2%-annual-chance zone when it is known."""
    where = "on the site's parcel(s)" if parcels else "in the limit of disturbance"
    if status != "no":
        return (f"Floodplain {status.replace('_', ' ')}: no SFHA found {where}; delineate "
                "from the current FIRM.")
    extra = ""
    if float((parcels or flood).get("shaded_x_area_sqft") or 0) > 0:
        shaded = (parcels or flood)["shaded_x_area_sqft"]
        extra = f"; 0.2%-annual-chance zone: {fmt.sqft(shaded)}"
    elif flood.get("shaded_x_checked") is False:
        extra = "; the 0.2%-annual-chance zone was not checked"
    return f"Screening found no 100-year floodplain (SFHA) {where}{extra}."


def _note_parcels_in_sfha(flood: Mapping[str, Any], parcels: Mapping[str, Any]) -> str:
    """The note when the site's parcels are in the SFHA: inside and outside the limit."""
    inside = float(flood.get("sfha_area_sqft") or 0)
    total = float(parcels.get("sfha_area_sqft") or 0)
    share = float(parcels.get("site_fraction") or 0) * 100
    return (f"Site's parcel(s) in the SFHA: {fmt.sqft(total)} ({share:.1f}%): "
            f"{fmt.sqft(inside)} "
            f"inside the limit of disturbance, {fmt.sqft(max(total - inside, 0))} outside it; "
            f"{'; '.join(_zone_texts(parcels)) or 'zones not listed'}.")


def _zone_texts(flood: Mapping[str, Any]) -> list[str]:
    zones = []
    for z in flood.get("zones") or []:
        bfe = z.get("bfe")
        bfe_txt = f", BFE {float(bfe):g} ft" if bfe not in (None, "") and float(bfe) > -9999 \
            else ", no BFE on the FIRM (or as calculated by a professional engineer)"
        zones.append(f"zone {z.get('zone')}{bfe_txt}")
    return zones


_HABITAT_NAMES = {"priority": "Priority Habitat", "estimated": "Estimated Habitat",
                  "vernal_pool": "Certified Vernal Pool"}


def _note_habitats(doc: Mapping[str, Any]) -> str:
    habitats = _block(doc, "habitats")
    status = _findings(doc).get("habitats", {}).get("status")
    if habitats is None:
        return "NHESP habitats not checked: consult the current NHESP maps."
    if not habitats and status == "no":
        return "Screening found no NHESP habitat or certified vernal pool within 500 ft."
    if not habitats:
        return ("NHESP search incomplete (conditional): none found in the layers given; "
                "consult the current NHESP maps.")
    parts = [f"{_HABITAT_NAMES.get(h.get('layer'), h.get('layer'))} {h.get('id')} at "
             f"{fmt.ft(h.get('distance_ft') or 0)}{' (overlaps)' if h.get('overlaps') else ''}"
             for h in sorted(habitats, key=lambda h: float(h.get("distance_ft") or 0))]
    return "Show: " + "; ".join(parts) + "."


def _note_standards(doc: Mapping[str, Any]) -> str:
    st = _block(doc, "standards")
    if not isinstance(st, Mapping) or st.get("required_retention_cuft") is None:
        return ""
    roadway = wording_of_document(doc).rules.roadway_maintenance
    word = ("Retention, unless the Commission accepts the roadway-maintenance claim "
            f"({roadway})" if st.get("roadway_claimed") else "Retention required")
    least = "at least " if st.get("post_impervious_missing") else ""  # cover that stays unknown
    return (f"{word}: {least}{float(st['required_retention_cuft']):,.0f} cu ft "
            f"({float(st.get('retention_depth_in') or 0):g} in x "
            f"{fmt.sqft(st.get('post_impervious_sqft') or 0)} impervious on the site).")


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


def _note_filing(doc: Mapping[str, Any]) -> str:
    return ("Hand delivered or sent certified mail, return receipt requested; the application "
            "form is signed by all owners of the site (the permittee must be the owner).")


def _note_receiving(doc: Mapping[str, Any]) -> str:
    rw = _block(doc, "receiving_waters")
    status = _findings(doc).get("receiving_waters", {}).get("status")
    if not isinstance(rw, Mapping):
        return "Receiving waters not checked."
    names = [f"{w.get('name') or w.get('id')} (ORW)" for w in rw.get("orw") or []]
    names += [f"{w.get('name') or w.get('au_id')} (category {w.get('category')})"
              for w in rw.get("impaired") or []]
    if names:
        return "Drains to " + "; ".join(names) + "."
    if status == "no":
        return "No ORW or impaired water found downstream."
    return ("Receiving waters conditional: none found on the part of the flow path searched; "
            "see the receiving-waters finding.")


def _note_disturbance(doc: Mapping[str, Any]) -> str:
    dist = _block(doc, "disturbance")
    if not isinstance(dist, Mapping) or dist.get("area_sqft") is None:
        return ""
    acres = dist.get("area_acres") or dist["area_sqft"] / SQFT_PER_ACRE
    text = (f"Screened limit of disturbance: {fmt.sqft(dist['area_sqft'])} "
            f"({fmt.acres(acres, grouping=False)}).")
    parcels = ((doc.get("meta") or {}).get("site_parcels") or {})
    if parcels.get("ids"):
        text += (f" The entire parcel(s) {', '.join(parcels['ids'])}: "
                 f"{fmt.sqft(parcels.get('area_sqft') or 0)}.")
    return text


_NOTES = {
    "floodplain": _note_floodplain, "habitats": _note_habitats, "standards": _note_standards,
    "treatment": _note_treatment, "mitigation": _note_mitigation, "abutters": _note_abutters,
    "receiving_waters": _note_receiving, "disturbance": _note_disturbance,
    "filing": _note_filing,
}

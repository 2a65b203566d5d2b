"""The report's Parameters table in words and units ("1 acre (43,560 sq ft)", not "43560.0").

>>> rows = dict(parameter_rows({"parameters": {"roadway_maintenance": False,
...                                            "proposed_impervious_sqft": 20000.0},
...                             "rules": {"trigger_sqft": 43560.0, "tss_removal_new": 0.9}}))
>>> rows["Roadway maintenance only (§ 320-19 B(8)(e))"]  # the default profile's citation
'no'
>>> rows["Proposed impervious area inside the limit of disturbance"], rows["Permit trigger"]
('20,000 sq ft', '43,560 sq ft (1 acre)')
>>> rows["TSS removal, new development"]
'90%'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from swm_gis.formatting import pct, sqft
from swm_gis.units import SQFT_PER_ACRE

__all__ = ["parameter_rows"]


def _yes_no(v: Any) -> str:
    return "yes" if v else "no"


def _given(what: str) -> Callable[[Any], str]:
    def fmt(v: Any) -> str:
        if v in (None, "", [], ()):
            return f"not given ({what})"
        if v is True:
            return "given"
        return ", ".join(map(str, v)) if isinstance(v, list | tuple) else str(v)
    return fmt


def _sqft(v: Any) -> str:
    return sqft(v, missing="not given")


def _inches(v: Any) -> str:
    return f"{float(v):g} in"


def _pct(v: Any) -> str:
    return pct(v, digits=None)


def _development(v: Any) -> str:
    return {"auto": "measured from the existing impervious layer",
            "new": "stated: new development",
            "redevelopment": "stated: redevelopment"}.get(
                str(v), str(v))


def _exemptions(v: Any) -> str:
    return ", ".join(map(str, v)) + " (the applicant's claim)" if v else "no exemption claimed"


def _trigger(v: Any) -> str:
    acres = float(v) / SQFT_PER_ACRE
    return f"{sqft(v)} ({acres:g} acre{'s' if acres != 1 else ''})"


#: meta.parameters key -> (label, formatter), in the order shown; a label's ``{exemptions}``,
#: ``{roadway}`` and ``{proposed_use}`` are the regulation applied's citations
#: (:func:`_label_citations`).
PARAMETERS: dict[str, tuple[str, Callable[[Any], str]]] = {
    "site": ("Site (limit of disturbance)", _given("")),
    "common_plan": ("Common plan of development or sale",
                    _given("the permit trigger is conditional below one acre")),
    "development": ("Development type", _development),
    "proposed_impervious": ("Proposed impervious surfaces file", _given("see the area below")),
    "proposed_impervious_sqft": ("Proposed impervious area inside the limit of disturbance",
                                 _sqft),
    "removed_impervious": ("Existing impervious cover removed (file)",
                           _given("none: the existing cover outside the limit of disturbance "
                                  "stays")),
    "mitigation": ("Off-site mitigation sites", _given("none proposed")),
    "exemptions": ("Exemptions ({exemptions})", _exemptions),
    "roadway_maintenance": ("Roadway maintenance only ({roadway})",
                            lambda v: "yes (the applicant's claim; the Commission decides)"
                            if v else "no"),
    "proposed_use": ("Proposed land use ({proposed_use})",
                     _given("the parcels' existing use codes decide")),
    "parcels": ("Subject parcels", _given("none listed")),
    "received": ("Application received", _given("no dates computed")),
}
RULES: dict[str, tuple[str, Callable[[Any], str]]] = {
    "trigger_sqft": ("Permit trigger", _trigger),
    "retention_new_in": ("Retention depth, new development", _inches),
    "retention_redevelopment_in": ("Retention depth, redevelopment", _inches),
    "tss_removal_new": ("TSS removal, new development", _pct),
    "tp_removal_new": ("TP removal, new development", _pct),
    "tss_removal_redevelopment": ("TSS removal, redevelopment", _pct),
    "tp_removal_redevelopment": ("TP removal, redevelopment", _pct),
    "mitigation_huc_new": ("Off-site mitigation watershed, new development", str),
    "mitigation_huc_redevelopment": ("Off-site mitigation watershed, redevelopment", str),
    "habitat_distance_ft": ("NHESP search distance", lambda v: f"{float(v):,.0f} ft"),
}


def _label_citations(meta: Mapping[str, Any]) -> dict[str, str]:
    """What the labels cite: the exemptions, the roadway-maintenance exemption and the land-use
    duty of the regulation the document applied (``meta.regulation``; else the default
    profile)."""
    from swm_gis.screening.wording import wording_of_document

    words = wording_of_document({"meta": meta})
    return {"exemptions": words.rules.exemptions_label(),
            "roadway": words.rules.roadway_maintenance,
            "proposed_use": words.citation("proposed_use")}


def parameter_rows(meta: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(label, value in words) for the run's parameters, then the rule values it used."""
    rows: list[tuple[str, str]] = []
    cites = _label_citations(meta)
    regulation = meta.get("regulation")
    if isinstance(regulation, Mapping) and regulation.get("description"):
        # which profile and version, in force on which date (swm_gis.config.town_regulation)
        rows.append(("Regulation applied", str(regulation["description"])
                     + ("" if regulation.get("named_in_config", True)
                        else " (the town config names none)")))
    for block, table in (("parameters", PARAMETERS), ("rules", RULES)):
        values = meta.get(block) or {}
        if not isinstance(values, Mapping):
            continue
        for key, (label, fmt) in table.items():
            if key not in values:
                continue
            label = label.format(**cites)
            try:
                rows.append((label, fmt(values[key])))
            except (TypeError, ValueError):
                rows.append((label, str(values[key])))
        # anything this table does not know yet, shown as it is rather than dropped
        rows += [(f"{block}.{k}", str(v)) for k, v in values.items()
                 if k not in table and not isinstance(v, bool)]
    return rows

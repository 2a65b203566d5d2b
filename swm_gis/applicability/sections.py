"""The section of the regulation behind each flag of the applicability map (its checks table).

Read from the regulation applied (issue 33): the ``[applicability]`` texts of its profile's
``texts`` file (Lynnfield's, byte for byte as the map printed them before), else swm-gis's own
words with the profile's citations, never another town's. Pure: the profile is read already.

Examples
--------
>>> from swm_gis.config.regulation import load_regulation
>>> flag_sections(load_regulation("westwood-ch350", on="2026-01-01"))["in_sfha"]
'Ch. 350: 100-year floodplain delineated, with BFE'
"""

from __future__ import annotations

from typing import Any

from swm_gis.applicability.overlays import NHESP_FLAG
from swm_gis.rules.citations import rule_citations

__all__ = ["FLAGS", "flag_sections"]

#: The flags of the map, in the checks table's order.
FLAGS = ("can_reach_trigger", "huc12", "huc10", NHESP_FLAG, "in_sfha", "drains_to_orw",
         "drains_to_impaired")


def _neutral(applied: Any) -> dict[str, str]:
    """swm-gis's own words for each flag, with the profile's citations."""
    cite = rule_citations(applied)
    res = applied.version.section("resources")
    habitats = res.get("nhesp_citation") or applied.version.citation("habitats") or cite.name
    floodplain = (res.get("floodplain_citation") or applied.version.citation("floodplain")
                  or cite.name)
    return {
        "can_reach_trigger": f"{cite.trigger}: a parcel large enough to reach the permit "
                             "trigger (the town's permit trigger rule)",
        "huc12": f"{cite.mitigation_of('HUC12')}: off-site mitigation within the same HUC12",
        "huc10": f"{cite.mitigation_of('HUC10')}: off-site mitigation within the same HUC10",
        NHESP_FLAG: f"{habitats}: NHESP habitats and certified vernal pools within the town's "
                    "habitat distance of construction shown and protected",
        "in_sfha": f"{floodplain}: 100-year floodplain delineated, with BFE",
        "drains_to_orw": f"{res.get('orw_citation') or cite.name}: discharges to Outstanding "
                         "Resource Waters meet the stricter state standards",
        "drains_to_impaired": f"{res.get('impaired_citation') or cite.name}: discharges to "
                              "impaired waters: the regulation's impaired-waters standards",
    }


def flag_sections(applied: Any) -> dict[str, str]:
    """Flag -> the section behind it, under an applied regulation
    (:class:`~swm_gis.config.regulation.AppliedRegulation`)."""
    given = applied.profile.texts_table().get("applicability") or {}
    neutral = _neutral(applied)
    return {flag: str(given.get(flag) or neutral[flag]) for flag in FLAGS}

"""The tier of review the screened project reaches under the town's regulation profile (none /
administrative review / permit), for ``screening.json``'s ``disturbance.tier`` block and the
disturbance finding's sentence (docs/findings.md).

The rule is :func:`swm_gis.rules.tiers.regulation_tier`; this module hands it the screening's
figures (the disturbed area, the common plan's, the proposed use, whether the runoff's path met
the MS4) and words the answer. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from swm_gis import formatting as fmt
from swm_gis.config.regulation import AppliedRegulation, Tier
from swm_gis.errors import SwmGisError
from swm_gis.rules.tiers import match_land_use, regulation_tier

__all__ = ["TIER_WORDS", "tier_block", "tier_sentence", "waters_use"]

#: How the answer names each tier.
TIER_WORDS = {"none": "no review", "administrative_review": "administrative review",
              "permit": "permit"}


def _threshold_words(tier: Tier, version: Any) -> str:
    """What reaches a tier: "5,000 sq ft or more disturbed", "a listed land use", ..."""
    parts = []
    for sqft, what in ((tier.disturbed_area_sqft, "disturbed"),
                       (tier.impervious_area_sqft, "of impervious area"),
                       (tier.site_or_drainage_area_sqft, "of site or drainage area")):
        if sqft:
            parts.append(f"{fmt.sqft(sqft)} {what} or more" if tier.comparison == "at_least"
                         else f"more than {fmt.sqft(sqft)} {what}")
    if tier.land_uses:
        parts.append("a land use it lists, whatever the area ("
                     + "; ".join(version.land_uses[k].name for k in tier.land_uses) + ")")
    return " or ".join(parts)


def tier_block(applied: AppliedRegulation, disturbance: Mapping[str, Any], *,
               proposed_use: str | None) -> dict[str, Any]:
    """``disturbance.tier``: the tier reached, each tier's threshold and citation, and every
    test (:meth:`~swm_gis.rules.tiers.TierDecision.as_dict`).

    The MS4 condition: a runoff path that reached the MS4 satisfies it; otherwise it is not
    known (never "does not drain"), and the decision names it in ``conditions``.
    """
    version = applied.version
    ms4 = disturbance.get("ms4") if isinstance(disturbance.get("ms4"), Mapping) else {}
    decision = regulation_tier(
        version, disturbed_area_sqft=float(disturbance.get("area_sqft") or 0),
        common_plan_area_sqft=disturbance.get("common_plan_area_sqft"),
        proposed_use=proposed_use, drains_to_ms4=True if ms4.get("reached") else None)
    out = decision.as_dict()
    out["citation"] = decision.citation
    out["tiers"] = [{"tier": t.tier, "name": t.name, "citation": t.citation,
                     "threshold": _threshold_words(t, version)} for t in version.tiers]
    out["profile"] = applied.profile.id
    out["section"] = version.citation("disturbance")  # the permit finding's citation
    return out


def tier_sentence(block: Mapping[str, Any]) -> str:
    """The finding's sentence: the tier reached, and each tier with its threshold and citation.

    Empty for a profile with a single tier tested by the disturbed area alone (Lynnfield's: the
    finding's trigger sentence already says it).
    """
    tiers = block.get("tiers") or []
    tests = block.get("tests") or []
    if len(tiers) <= 1 and all(t.get("test") == "disturbed_area" for t in tests):
        return ""
    reached = str(block.get("tier") or "none")
    met = [t for t in tests if t.get("tier") == reached and t.get("met")]
    why = f" ({met[0]['reason']}; {met[0]['citation']})" if met else ""
    each = "; ".join(f"{TIER_WORDS.get(t['tier'], t['tier'])} ({t['name']}, {t['citation']}): "
                     f"{t['threshold']}" for t in tiers)
    sentence = f"Review tier reached: {TIER_WORDS.get(reached, reached)}{why}. The tiers: {each}."
    undecided = block.get("undecided") or []
    if undecided:
        sentence += (" Not decided for want of an input: "
                     + ", ".join(TIER_WORDS.get(u, u) for u in undecided) + ".")
    return sentence


def waters_use(applied: AppliedRegulation, proposed_use: str | None) -> str | None:
    """The proposed use as the receiving-waters duties read it (§ 320-19 B(10)(e): commercial
    or industrial land), for a use the regulation profile words (a proposed use of "gas
    station", which the profile maps to auto fueling): its first use code (e.g. 333), or
    None where the profile maps it to no code (the duty then follows the parcels' use codes).
    A use code or one of the words the rule knows passes as given; anything else is refused,
    naming the profile's words too.
    """
    from swm_gis.terrain.receiving_waters import LAND_USE_WORDS, land_use

    text = str(proposed_use or "").strip()
    if not text or re.fullmatch(r"\d{3,4}[A-Za-z]?", text) or text.lower() in LAND_USE_WORDS:
        return proposed_use
    found = match_land_use(text, applied.version.land_uses)
    if found is not None:
        return found.use_codes[0] if found.use_codes else None
    try:
        land_use(proposed_use=proposed_use)
    except SwmGisError as exc:
        words = sorted({w for u in applied.version.land_uses.values() for w in u.aliases})
        if not words:
            raise
        raise SwmGisError(f"{exc} The regulation applied ({applied.profile.id}) also knows: "
                          f"{', '.join(words)}.") from None
    return proposed_use

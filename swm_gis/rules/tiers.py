"""The tier of review a project reaches under a regulation profile: none, administrative review
or permit, with the threshold and citation of each test (docs/regulations.md).

A tier is reached when any of its tests is met: the disturbed area (the common plan's where the
tier counts it) at or over a threshold, the impervious area, the site or its drainage area (with
a change to the runoff), or a proposed land use the tier lists. A test whose input is not known
is *undecided*, never "no": the answer then says which higher tier it could still reach.

Pure: the profile's tiers and land uses come in as objects (:mod:`swm_gis.config.regulation`).

Examples
--------
>>> from swm_gis.config.regulation import read_regulation
>>> westwood = read_regulation("westwood-ch350").versions[-1]
>>> [regulation_tier(westwood, disturbed_area_sqft=a).tier for a in (4_999, 5_000, 21_780)]
['none', 'administrative_review', 'permit']
>>> regulation_tier(westwood, disturbed_area_sqft=3_000, proposed_use="gas station").tier
'permit'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from swm_gis.config.regulation import LandUse, RegulationVersion, Tier
from swm_gis.config.strict import finite_value

#: Tiers from least to most: the answer is the highest tier one of whose tests is met.
ORDER = ("none", "administrative_review", "permit")

__all__ = ["ORDER", "TierDecision", "TierTest", "match_land_use", "regulation_tier"]


@dataclass(frozen=True)
class TierTest:
    """One test of one tier: what was compared with what, and whether it was met (None:
    undecided, an input is not known)."""

    tier: str
    test: str
    threshold: Any
    value: Any
    met: bool | None
    citation: str
    reason: str


@dataclass(frozen=True)
class TierDecision:
    """The tier reached, every test behind it, the higher tiers an unknown could reach, and
    the conditions the tier still rests on (e.g. that the land drains to the MS4)."""

    tier: str
    tests: tuple[TierTest, ...]
    undecided: tuple[str, ...] = ()
    conditions: tuple[str, ...] = ()

    @property
    def citation(self) -> str | None:
        """The citation of the tier reached (None for ``"none"``)."""
        met = [t for t in self.tests if t.tier == self.tier and t.met]
        return met[0].citation if met else None

    def as_dict(self) -> dict[str, Any]:
        return {"tier": self.tier, "undecided": list(self.undecided),
                "conditions": list(self.conditions),
                "tests": [t.__dict__.copy() for t in self.tests]}


def _sqft(n: float) -> str:
    return f"{n:,.0f} sq ft"


def _area_test(tier: Tier, test: str, threshold: float | None, value: float | None,
               what: str) -> TierTest | None:
    if threshold is None:
        return None
    words = "at least" if tier.comparison == "at_least" else "more than"
    if value is None:
        return TierTest(tier.tier, test, threshold, None, None, tier.citation,
                        f"{what} not known; the tier needs {words} {_sqft(threshold)}")
    met = value >= threshold if tier.comparison == "at_least" else value > threshold
    sign = (">=" if met else "<") if tier.comparison == "at_least" else (">" if met else "<=")
    return TierTest(tier.tier, test, threshold, value, met, tier.citation,
                    f"{what} {_sqft(value)} {sign} {_sqft(threshold)} (the tier needs {words} "
                    f"{_sqft(threshold)})")


def match_land_use(proposed_use: str, uses: dict[str, LandUse] | Any) -> LandUse | None:
    """The profile's land use that ``proposed_use`` names (its key, a name or alias, or one of
    its use codes), or None.

    >>> from swm_gis.config.regulation import LandUse
    >>> fuel = LandUse("auto-fueling", "Auto fueling facilities", "x", ("gas station",), ("334",))
    >>> [getattr(match_land_use(u, {"auto-fueling": fuel}), "key", None)
    ...  for u in ("Gas Station", "334", "101", "auto-fueling")]
    ['auto-fueling', 'auto-fueling', None, 'auto-fueling']
    """
    text = re.sub(r"[\s_-]+", " ", str(proposed_use).strip().lower())
    for use in uses.values():
        words = {re.sub(r"[\s_-]+", " ", w.lower()) for w in (use.key, use.name, *use.aliases)}
        if text in words or text in use.use_codes:
            return use
    return None


def _use_test(tier: Tier, version: RegulationVersion, proposed_use: str | None
              ) -> TierTest | None:
    if not tier.land_uses:
        return None
    listed = {k: version.land_uses[k] for k in tier.land_uses}
    names = "; ".join(u.name for u in listed.values())
    if proposed_use is None or not str(proposed_use).strip():
        return TierTest(tier.tier, "land_use", list(listed), None, None, tier.citation,
                        f"proposed land use not given; the tier lists: {names}")
    found = match_land_use(proposed_use, listed)
    if found is not None:
        return TierTest(tier.tier, "land_use", list(listed), proposed_use, True, tier.citation,
                        f"proposed use {proposed_use!r} is listed: {found.name} "
                        f"({found.citation}), whatever the area")
    code = re.fullmatch(r"\d{3}", str(proposed_use).strip())
    every_use_mapped = all(u.use_codes for u in listed.values())
    if code and every_use_mapped:
        return TierTest(tier.tier, "land_use", list(listed), proposed_use, False, tier.citation,
                        f"use code {proposed_use} is none of the listed uses' codes")
    if not code and match_land_use(proposed_use, version.land_uses) is not None:
        return TierTest(tier.tier, "land_use", list(listed), proposed_use, False, tier.citation,
                        f"proposed use {proposed_use!r} is not one this tier lists ({names})")
    return TierTest(tier.tier, "land_use", list(listed), proposed_use, None, tier.citation,
                    f"proposed use {proposed_use!r} is not among the words or codes the profile "
                    f"maps; decide whether it is one of: {names}")


def _tests(tier: Tier, version: RegulationVersion, areas: dict[str, float | None],
           proposed_use: str | None, runoff_changed: bool | None) -> list[TierTest]:
    disturbed = areas["disturbed"]
    plan = areas["common_plan"]
    if tier.counts_common_plan and plan is not None and disturbed is not None:
        disturbed, what = max(disturbed, plan), "disturbance (site or its common plan)"
    else:
        what = "disturbance"
    found = [
        _area_test(tier, "disturbed_area", tier.disturbed_area_sqft, disturbed, what),
        _area_test(tier, "impervious_area", tier.impervious_area_sqft, areas["impervious"],
                   "impervious area"),
        _site_test(tier, areas["site_or_drainage"], runoff_changed),
        _use_test(tier, version, proposed_use),
    ]
    return [t for t in found if t is not None]


def _site_test(tier: Tier, area: float | None, runoff_changed: bool | None) -> TierTest | None:
    test = _area_test(tier, "site_or_drainage_area", tier.site_or_drainage_area_sqft, area,
                      "site or drainage area")
    if test is None or test.met is False:
        return test
    if runoff_changed is False:
        return TierTest(test.tier, test.test, test.threshold, test.value, False, test.citation,
                        test.reason + ", but no change to the runoff is proposed")
    if runoff_changed is None:
        return TierTest(test.tier, test.test, test.threshold, test.value, None, test.citation,
                        test.reason + "; met only if the runoff's direction, rate, timing, "
                                      "quantity or quality changes (not stated)")
    return TierTest(test.tier, test.test, test.threshold, test.value, test.met, test.citation,
                    test.reason + ", with a change to the runoff")


def regulation_tier(version: RegulationVersion, *, disturbed_area_sqft: float | None,
                    common_plan_area_sqft: float | None = None,
                    impervious_area_sqft: float | None = None,
                    site_or_drainage_area_sqft: float | None = None,
                    runoff_changed: bool | None = None,
                    proposed_use: str | None = None,
                    drains_to_ms4: bool | None = None) -> TierDecision:
    """The tier of review a project reaches under ``version`` of a regulation profile.

    Parameters
    ----------
    version
        The version in force (:meth:`swm_gis.config.regulation.Regulation.version_on`).
    disturbed_area_sqft, common_plan_area_sqft
        The land disturbance, and that of the larger common plan it belongs to (counted where
        the tier says so); square feet.
    impervious_area_sqft, site_or_drainage_area_sqft
        For tiers with those tests; square feet. Unknown (None) leaves such a test undecided.
    runoff_changed
        Whether the runoff's direction, rate, timing, quantity or quality changes (for a site
        or drainage area test).
    proposed_use
        A land use key, name or alias of the profile (e.g. ``"gas station"``) or a three-digit
        Massachusetts use code.
    drains_to_ms4
        Whether the disturbed land drains to the town's MS4, where the profile's applicability
        has that condition: False reaches no tier; None (not known) keeps the tier and names the
        condition in ``conditions``.

    Returns
    -------
    TierDecision
        ``tier`` (``"none"``, ``"administrative_review"`` or ``"permit"``), every test with its
        threshold, value, citation and reason, the higher tiers left ``undecided`` and the
        ``conditions`` the tier still rests on.
    """
    areas = {"disturbed": _area(disturbed_area_sqft, "disturbed_area_sqft"),
             "common_plan": _area(common_plan_area_sqft, "common_plan_area_sqft"),
             "impervious": _area(impervious_area_sqft, "impervious_area_sqft"),
             "site_or_drainage": _area(site_or_drainage_area_sqft, "site_or_drainage_area_sqft")}
    tests: list[TierTest] = []
    for tier in version.tiers:
        tests += _tests(tier, version, areas, proposed_use, runoff_changed)
    reached = max((ORDER.index(t.tier) for t in tests if t.met), default=0)
    undecided = sorted({t.tier for t in tests if t.met is None
                        and ORDER.index(t.tier) > reached}, key=ORDER.index)
    applicability = version.section("applicability")
    if not applicability.get("ms4_condition") or drains_to_ms4 is True:
        return TierDecision(ORDER[reached], tuple(tests), tuple(undecided))
    where = applicability.get("ms4_citation") or applicability.get("citation") or "the profile"
    if drains_to_ms4 is False:
        return TierDecision("none", tuple(tests), (), (
            f"the land does not drain to the MS4, and the regulation applies only to land that "
            f"does ({where})",))
    return TierDecision(ORDER[reached], tuple(tests), tuple(undecided), (
        f"only if the disturbed land drains to the MS4 ({where}); not known",))


def _area(value: float | None, name: str) -> float | None:
    return None if value is None else finite_value(value, what=f"{name}=", low=0, unit="sq ft")

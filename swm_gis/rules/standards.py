"""Performance standards of § 320-19 B(7) (new development) and B(8) (redevelopment).

New development: retain 1.0 in of runoff over the total post-construction impervious area, or
remove 90% of TSS and 60% of TP; off-site mitigation only within the same USGS HUC12.
Redevelopment: 0.8 in, or 80% TSS and 50% TP; off-site mitigation within the same HUC10.
Redevelopment limited to maintenance and improvement of existing roadways is exempt from
B(8)(a)-(d) (B(8)(e)) unless it widens the road by a lane or more: whether a project qualifies
is the Commission's finding, so ``roadway_maintenance`` records the applicant's claim and the
figures stay (``roadway_claimed``; the findings make the standards conditional).

Examples
--------
>>> from swm_gis.config.town import Rules
>>> r = performance_standards("new", post_impervious_sqft=20_000, rules=Rules())
>>> r["required_retention_cuft"], r["tss_removal"], r["mitigation_huc_level"]
(1666.7, 0.9, 'HUC12')
>>> performance_standards("redevelopment", post_impervious_sqft=20_000,
...                       rules=Rules())["required_retention_cuft"]
1333.3
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from swm_gis import formatting as fmt
from swm_gis.config.town import Rules
from swm_gis.errors import SwmGisError
from swm_gis.rules.citations import RuleCitations, default_citations

INCHES_PER_FOOT = 12.0


def performance_standards(
    development: str | Mapping[str, Any],
    *,
    post_impervious_sqft: float | None,
    rules: Rules,
    roadway_maintenance: bool = False,
    citations: RuleCitations | None = None,
) -> dict[str, Any]:
    """Retention volume, removal targets and mitigation HUC level for the development type.

    Parameters
    ----------
    development
        ``"new"`` or ``"redevelopment"``, or the dict from
        :func:`swm_gis.rules.development.development_type` (its ``value`` is used).
    post_impervious_sqft
        Total post-construction impervious area on the site (sq ft); None when not given, in
        which case the retention volume is None and the reasons say what to supply.
    rules
        Rule values (retention depths in inches, removal fractions, HUC levels).
    roadway_maintenance
        The project is redevelopment exclusively limited to maintenance and improvement of
        existing roadways (B(8)(e)).
    citations
        What the section and reasons cite (:func:`swm_gis.rules.citations.rule_citations` of
        the regulation applied: each type's standards and the roadway exemption). Default: the
        default profile's.

    Returns
    -------
    dict
        ``development``, ``retention_depth_in``, ``post_impervious_sqft``,
        ``required_retention_cuft`` (depth / 12 x area, to 0.1 cu ft), ``tss_removal``,
        ``tp_removal`` (fractions), ``mitigation_huc_level`` ("HUC12" | "HUC10"),
        ``applies`` (True: the figures apply unless the Commission accepts a claim),
        ``roadway_maintenance`` (the user's flag), ``roadway_claimed`` (the claim stands:
        redevelopment only), ``roadway_exempt`` (always False: the tool never decides the
        claim), ``reasons`` and ``section``.
    """
    value = development["value"] if isinstance(development, Mapping) else development
    if value not in ("new", "redevelopment"):
        raise SwmGisError(f'Unknown development type "{value}"; use new or redevelopment.')
    if post_impervious_sqft is not None and (post_impervious_sqft != post_impervious_sqft
                                             or post_impervious_sqft < 0):
        raise SwmGisError(f"The post-construction impervious area must be zero or more square "
                          f"feet; got {post_impervious_sqft}.")
    new = value == "new"
    cite = citations or default_citations()
    section = cite.standard(value)
    depth_in = rules.retention_new_in if new else rules.retention_redevelopment_in
    tss = rules.tss_removal_new if new else rules.tss_removal_redevelopment
    tp = rules.tp_removal_new if new else rules.tp_removal_redevelopment
    level = rules.mitigation_huc_new if new else rules.mitigation_huc_redevelopment
    volume = None
    if post_impervious_sqft is not None:
        volume = round(depth_in / INCHES_PER_FOOT * float(post_impervious_sqft), 1)
    kind = "new development" if new else "redevelopment"
    reasons = [
        f"For {kind}, {section} requires an average annual removal of {tss:.0%} of TSS and "
        f"{tp:.0%} of total phosphorus from the post-construction impervious area, by BMPs"
        f"{cite.part(value, 'a')}, by retaining {depth_in:.1f} in of runoff over that area"
        f"{cite.part(value, 'b')}, by a combination{cite.part(value, 'c')}, or by off-site "
        f"mitigation within the same USGS {level}{cite.part(value, 'd')}.",
    ]
    if volume is None:
        reasons.append("The post-construction impervious area was not given, so the retention "
                       "volume is not computed; give the proposed impervious surfaces (a file) or "
                       "the proposed impervious area in square feet.")
    else:
        area = float(post_impervious_sqft)
        reasons.append(f"Retention: {depth_in:.1f} in / 12 x {fmt.sqft(area)} "
                       f"= {volume:,.1f} cu ft{cite.part(value, 'b')}.")
    claimed = bool(roadway_maintenance and not new)
    if claimed:
        reasons.append(
            "The applicant claims roadway maintenance: redevelopment exclusively limited to "
            "maintenance and improvement of existing roadways (widening less than a single lane, "
            "adding shoulders, correcting substandard intersections, improving existing "
            f"drainage, repaving) is exempt from {cite.parts(value, '(a) through (d)')} and "
            f"shall improve existing conditions unless infeasible ({cite.roadway_sub()}). This "
            f"is the applicant's claim; the {cite.authority} decides it. Widening that "
            "increases impervious area by a single lane width or more meets "
            f"{cite.parts(value, '(a)-(d)', whole=False)} fully: the figures above.")
    elif roadway_maintenance:
        reasons.append(cite.roadway_on_new())
    return {
        "development": value,
        "retention_depth_in": depth_in,
        "post_impervious_sqft": None if post_impervious_sqft is None
        else round(float(post_impervious_sqft), 2),
        "required_retention_cuft": volume,
        "tss_removal": tss,
        "tp_removal": tp,
        "mitigation_huc_level": level,
        "applies": True,
        "roadway_maintenance": bool(roadway_maintenance),
        "roadway_claimed": claimed,
        "roadway_exempt": False,
        "reasons": reasons,
        "section": section + (f"; {cite.roadway_sub()} claimed" if claimed else ""),
    }


__all__ = ["performance_standards"]

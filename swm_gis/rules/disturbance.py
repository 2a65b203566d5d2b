"""Permit trigger: how much land a project disturbs, alone and with its larger common plan.

Chapter 320's applicability section quotes General Bylaws Chapter 213, Article II: no construction
activity that disturbs one acre (43,560 sq ft) or more, or less than an acre but as part of a
larger common plan of development or sale that will ultimately disturb an acre or more, without a
Stormwater Management Permit. Areas are those of the *union* of the disturbance polygons, so
overlapping pieces are never counted twice. The regulation exempts some kinds of activity (the
applied profile's ``[[versions.exemptions]]``: Lynnfield's are Bylaw 213-16B(1)-(6)); an
exemption is the applicant's claim and the result says so.

Examples
--------
>>> import geopandas as gpd
>>> from shapely.geometry import box
>>> from swm_gis.config.town import Rules
>>> ft = 0.3048  # a 200 ft x 218 ft site, in metres (EPSG:26986)
>>> site = gpd.GeoDataFrame(geometry=[box(0, 0, 200 * ft, 218 * ft)], crs="EPSG:26986")
>>> r = disturbance_trigger(site, rules=Rules())
>>> r["area_sqft"], r["permit_required"]
(43600.0, True)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import geopandas as gpd
import shapely
from pyproj import CRS

from swm_gis import formatting as fmt
from swm_gis.config.strict import did_you_mean
from swm_gis.config.town import Rules
from swm_gis.errors import CrsError, EmptyLayerError, GeometryError, SwmGisError
from swm_gis.messages import option
from swm_gis.rules.citations import RuleCitations, default_citations
from swm_gis.units import SQFT_PER_ACRE, require_crs, sqft_per_unit2

#: Areas are compared with the trigger at this resolution (sq ft), so floating-point noise from
#: reprojection never flips a site of exactly one acre.
_COMPARE_DECIMALS = 3


def disturbance_trigger(
    site: gpd.GeoDataFrame,
    *,
    common_plan: gpd.GeoDataFrame | None = None,
    exemptions: Iterable[str] = (),
    rules: Rules,
    counts_common_plan: bool = True,
    citations: RuleCitations | None = None,
) -> dict[str, Any]:
    """Disturbed area (union of the polygons) and whether a Stormwater Management Permit is needed.

    Parameters
    ----------
    site
        The proposed limit-of-disturbance polygon(s), in a projected CRS.
    common_plan
        The disturbance of the larger common plan of development or sale the site belongs to
        (e.g. every lot of a subdivision); its union with the site is the plan's disturbance.
    exemptions
        Ids of the applied regulation's exemptions claimed by the applicant (the keys of
        ``citations.exemption_list``: the profile's ``[[versions.exemptions]]``).
    rules
        Rule values; ``rules.trigger_sqft`` is the threshold (inclusive).
    counts_common_plan
        Whether the regulation counts the larger common plan's disturbance (Chapter 320 does;
        a profile's ``applicability.common_plan = false`` does not): when False, the plan does
        not reach the trigger, a site below it needs no permit, and the result says
        ``counts_common_plan: False``.
    citations
        What the section and reasons cite (:func:`swm_gis.rules.citations.rule_citations` of
        the regulation applied: its trigger, exemptions and permit procedure). Default: the
        default profile's.

    Returns
    -------
    dict
        ``area_sqft``, ``area_acres``, ``common_plan_area_sqft`` (None without a plan),
        ``common_plan_area_acres``, ``trigger_sqft``, ``disturbs_trigger_area``,
        ``permit_required`` (True, False, or None when it depends on what the tool cannot see:
        a claimed exemption, or a sub-acre site without ``common_plan``), ``exemption`` (None, or
        the claimed exemptions with citations),
        ``reasons`` and ``section``.

    Raises
    ------
    SwmGisError
        An exemption name is not one of the applied regulation's exemption ids.
    CrsError, GeometryError, EmptyLayerError
        The site (or plan) has no CRS, a geographic CRS, no polygons or non-polygon geometry.
    """
    cite = citations or default_citations()
    claimed = check_exemptions(exemptions, cite)
    listed_by = cite.exemption_list
    site_union = union_polygons(site, what="site")
    factor = sqft_per_crs_unit2(site.crs)
    area_sqft = float(site_union.area) * factor
    plan_sqft = None
    if common_plan is not None:
        check_projected(common_plan, what="common plan")
        plan_union = union_polygons(common_plan.to_crs(site.crs), what="common plan")
        plan_sqft = float(shapely.union(site_union, plan_union).area) * factor
    trigger = float(rules.trigger_sqft)
    site_hits = _reaches(area_sqft, trigger)
    plan_hits = counts_common_plan and plan_sqft is not None and _reaches(plan_sqft, trigger)
    reasons = [_area_reason(area_sqft, trigger, site_hits, cite.trigger)]
    if plan_sqft is not None:
        reasons.append(_plan_reason(plan_sqft, trigger, plan_hits, cite.trigger))
    disturbs = site_hits or plan_hits
    exemption = None
    if claimed:
        exemption = [
            {"name": name, "section": listed_by[name][0], "activity": listed_by[name][1],
             "claimed_by": "applicant"}
            for name in claimed
        ]
        listed = "; ".join(f"{listed_by[n][0]} ({n}): {listed_by[n][1]}" for n in claimed)
        reasons.append(
            f"The applicant claims the exemption of {listed}. This is the applicant's claim, not "
            f"a finding: {cite.decider()} decides whether the activity qualifies."
        )
    # permit_required is True / False only where the tool decided it; None when the answer
    # rests on something it cannot see (a claimed exemption; a sub-acre site with no plan given)
    required: bool | None
    if claimed:
        required = None
        reasons.append(
            f"If the {cite.decider_short()} accepts the claimed exemption, no Stormwater "
            "Management Permit is "
            "required; otherwise " + (f"one is required (the disturbance reaches "
                                      f"{_acre(trigger)})." if disturbs
                                      else _below_text(plan_sqft, trigger,
                                                       counts_plan=counts_common_plan)))
    elif disturbs:
        required = True
        reasons.append(permit_required_reason(cite))
    elif not counts_common_plan:
        required = False
        reasons.append("No permit is required: the site's disturbance is below the trigger, "
                       "and the regulation applied counts the project's own disturbance, not "
                       "a larger common plan's.")
    elif plan_sqft is None:
        required = None
        reasons.append(_below_text(None, trigger))
    else:
        required = False
        reasons.append("No Stormwater Management Permit is required: neither the site nor its "
                       f"larger common plan of development or sale disturbs {_acre(trigger)}.")
    return {
        "area_sqft": round(area_sqft, 2),
        "area_acres": round(area_sqft / SQFT_PER_ACRE, 4),
        "common_plan_area_sqft": None if plan_sqft is None else round(plan_sqft, 2),
        "common_plan_area_acres": (None if plan_sqft is None
                                   else round(plan_sqft / SQFT_PER_ACRE, 4)),
        "trigger_sqft": trigger,
        "disturbs_trigger_area": bool(disturbs),
        "permit_required": required,
        "exemption": exemption,
        "reasons": reasons,
        "section": cite.trigger + ("; " + cite.exemptions if claimed else ""),
        **({} if counts_common_plan else {"counts_common_plan": False}),
    }


def permit_required_reason(citations: RuleCitations) -> str:
    """The reason a permit the disturbance requires gives (its citation: the permit
    procedure's)."""
    return ("A Stormwater Management Permit is required before any site-altering activity "
            f"({citations.permit_required}).")


#: The trigger in words: "one acre" (43,560 sq ft), else its square feet, so a reason never
#: calls another trigger an acre.
_acre = fmt.trigger_area


def _below_text(plan_sqft: float | None, trigger: float, *, counts_plan: bool = True) -> str:
    acre = _acre(trigger)
    if not counts_plan:  # the regulation counts the project's own disturbance
        return f"no permit is required: the site disturbs less than {acre}."
    if plan_sqft is None:
        return (f"The site disturbs less than {acre} and no larger common plan of development "
                "was given: a permit is required if the site is part of a larger common "
                f"plan of development or sale that will ultimately disturb {acre} or more, and "
                "not otherwise.")
    return ("no permit is required: neither the site nor its larger common plan of development "
            f"or sale disturbs {acre}.")


def exemption_names(names: Iterable[str]) -> list[str]:
    """The claimed exemption names as given, normalised: ``"a,b"`` read as ``a`` and ``b``,
    stripped, lower case, de-duplicated in order (the applied profile checks them:
    :func:`check_exemptions`)."""
    out: list[str] = []
    for item in names:
        for raw in str(item).split(","):
            name = raw.strip().lower()
            if name and name not in out:
                out.append(name)
    return out


def check_exemptions(names: Iterable[str], citations: RuleCitations | None = None
                     ) -> list[str]:
    """The claimed exemption names (:func:`exemption_names`), each one of the applied
    regulation's exemption ids (``citations.exemption_list``; default: the default profile's);
    an unknown name raises with the regulation's ids and the closest one."""
    cite = citations or default_citations()
    known = list(cite.exemption_list)
    out = exemption_names(names)
    for name in out:
        if name not in known:
            valid = (f"Valid {option('exemptions')} names ({cite.exemptions_label()}) are: "
                     f"{', '.join(known)}." if known else
                     f"The regulation applied ({cite.name}) lists no exemption that can be "
                     f"claimed here (its profile gives none for {cite.exemptions}).")
            raise SwmGisError(f'Unknown exemption "{name}".{did_you_mean(name, known)} '
                              f"{valid}")
    return out


def union_polygons(frame: gpd.GeoDataFrame, *, what: str) -> shapely.Geometry:
    """The union of a frame's polygons, refusing no CRS, a geographic CRS and non-polygons."""
    check_projected(frame, what=what)
    geoms = frame.geometry.values
    keep = ~(shapely.is_missing(geoms) | shapely.is_empty(geoms))
    geoms = geoms[keep]
    if len(geoms) == 0:
        raise EmptyLayerError(f"The {what} has no polygons; it needs the limit-of-disturbance "
                              "polygon(s) of the project.")
    kinds = set(shapely.get_type_id(geoms).tolist())
    if not kinds <= {3, 6}:  # Polygon, MultiPolygon
        found = ", ".join(sorted(set(frame.geom_type[keep])))
        raise GeometryError(
            f"The {what} holds {found} geometry; it must be polygon(s) outlining the area "
            "(a point or line has no area to measure). Draw the limit of disturbance as polygons."
        )
    return shapely.union_all(shapely.make_valid(geoms))


def check_projected(frame: gpd.GeoDataFrame, *, what: str) -> CRS:
    """The frame's CRS, which must exist and be projected (areas need a plane)."""
    require_crs(frame, what=what)
    if not frame.crs.is_projected:
        raise CrsError(
            f"The {what} is in a geographic CRS ({frame.crs.name}); areas need a projected CRS. "
            "Reproject it to the town's working CRS (e.g. EPSG:26986) first."
        )
    return frame.crs


#: Square feet per squared unit of a projected CRS (:func:`swm_gis.units.sqft_per_unit2`).
sqft_per_crs_unit2 = sqft_per_unit2


def _reaches(area_sqft: float, trigger_sqft: float) -> bool:
    return round(area_sqft, _COMPARE_DECIMALS) >= trigger_sqft


def _area_reason(area_sqft: float, trigger: float, hits: bool, section: str) -> str:
    rel = "reaches" if hits else "is below"
    acres = fmt.acres(area_sqft / SQFT_PER_ACRE, 3, grouping=False)
    return (f"The site's limit of disturbance (union of its polygons, overlaps counted once) is "
            f"{fmt.sqft(area_sqft, 1)} ({acres}), "
            f"which {rel} the {fmt.sqft(trigger)}"
            f"{' (one acre)' if trigger == SQFT_PER_ACRE else ''} permit trigger of {section}.")


def _plan_reason(plan_sqft: float, trigger: float, hits: bool, section: str) -> str:
    rel = "reaches" if hits else "is below"
    return (f"The larger common plan of development or sale (union of the site and the plan) "
            f"disturbs {fmt.sqft(plan_sqft, 1)} "
            f"({fmt.acres(plan_sqft / SQFT_PER_ACRE, 3, grouping=False)}), which {rel} "
            f"{_acre(trigger)}; a site under {_acre(trigger)} in a plan that disturbs "
            f"{'an acre' if trigger == SQFT_PER_ACRE else _acre(trigger)} or more needs a "
            f"permit ({section}).")


__all__ = ["check_exemptions", "disturbance_trigger", "exemption_names", "permit_required_reason"]

"""The performance standards of one site, on the total post-construction impervious area.

§ 320-19 B(7)(b) and B(8)(b) measure retention over "the total post-construction impervious
surface area on the ... site", and the site is the lot or parcel (Chapter 320 definitions). So
the total is the proposed cover (inside the limit of disturbance, where the work is) **plus the
existing cover on the site's parcel(s) outside the limit that stays**: cover the work does not
touch is still impervious after construction. Cover the applicant removes there is given as
polygons (``removed_impervious``) and does not stay. Without an existing-impervious layer the
cover that stays is not measured: the total is then a lower bound and the findings make the
standards conditional, naming the missing figure.

:func:`post_impervious` measures the parts, :func:`site_standards` builds the ``standards``
block of screening.json (:func:`swm_gis.rules.standards.performance_standards` with these
reasons). Used by :func:`swm_gis.screening.build.build_screening`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import geopandas as gpd
import shapely

from swm_gis import formatting as fmt
from swm_gis.config.town import TownConfig
from swm_gis.errors import GeometryError
from swm_gis.messages import option
from swm_gis.raster import Raster
from swm_gis.rules.citations import RuleCitations, default_citations
from swm_gis.rules.disturbance import union_polygons
from swm_gis.rules.site_split import SiteRegions, polygonal, raster_cover, split_polygons
from swm_gis.rules.standards import performance_standards

__all__ = ["MISSING_STAYING", "PostImpervious", "on_site", "post_impervious", "site_standards"]

#: The figure the total lacks without an existing-impervious layer.
MISSING_STAYING = ("the existing impervious cover on the site's parcel(s) outside the limit of "
                   "disturbance that stays")
#: Below this (sq ft) the parcel(s) outside the limit of disturbance are no area at all.
_NO_AREA_SQFT = 1.0
#: The keys of the other development type's figures given for comparison.
_ALT_KEYS = ("retention_depth_in", "required_retention_cuft", "tss_removal", "tp_removal",
             "mitigation_huc_level", "section")


@dataclass
class PostImpervious:
    """The total post-construction impervious area of the standards and its parts (sq ft)."""

    proposed_sqft: float | None              # proposed cover; None: not given
    staying_sqft: float | None = 0.0         # existing cover outside the LOD that stays
    removed_sqft: float | None = None        # existing cover there the applicant removes
    left_out: int = 0                        # proposed polygons wholly off the site
    split: tuple[float, float] | None = None  # proposed cover inside / outside the LOD
    proposed: gpd.GeoDataFrame | None = None  # the proposed polygons on the site

    @property
    def missing(self) -> list[str]:
        """The figures the total lacks."""
        return [MISSING_STAYING] if self.staying_sqft is None else []

    @property
    def total_sqft(self) -> float | None:
        """Proposed + staying (the proposed alone, a lower bound, when staying is unknown)."""
        if self.proposed_sqft is None:
            return None
        return round(self.proposed_sqft + (self.staying_sqft or 0.0), 2)


def post_impervious(proposed: gpd.GeoDataFrame | None, given_sqft: float | None, *,
                    regions: SiteRegions, lod: shapely.Geometry, area: shapely.Geometry,
                    impervious: Any, removed: gpd.GeoDataFrame | None,
                    factor: float) -> PostImpervious:
    """The parts of the total post-construction impervious area on the site.

    ``proposed`` polygons (those on the site count whole, :func:`on_site`) or ``given_sqft``
    (the proposed cover inside the limit of disturbance); the existing cover (``impervious``:
    a raster, polygons or None) on ``regions.outside`` less the ``removed`` polygons and the
    proposed ones (a square foot counts once); ``factor`` is sq ft per square CRS unit.
    """
    post = PostImpervious(proposed_sqft=given_sqft)
    surfaces = shapely.Polygon()
    if proposed is not None:
        post.proposed, post.left_out = on_site(proposed, lod, area)
        surfaces = union_polygons(post.proposed, what="proposed impervious")
        total = float(surfaces.area) * factor
        inside = float(shapely.intersection(surfaces, lod).area) * factor
        post.proposed_sqft = round(total, 2)
        post.split = (round(inside, 2), round(total - inside, 2))
    removed_union = (union_polygons(removed, what="removed impervious")
                     if removed is not None and len(removed) else shapely.Polygon())
    outside = regions.outside
    if float(shapely.area(outside)) * factor < _NO_AREA_SQFT:
        post.staying_sqft = 0.0
        post.removed_sqft = None if removed is None else 0.0
        return post
    if impervious is None:
        post.staying_sqft = None
        return post
    stays = polygonal(shapely.difference(outside, shapely.union(removed_union, surfaces)))
    gone = polygonal(shapely.intersection(outside, removed_union))
    stay_sqft, gone_sqft = (_cover(impervious, geom, factor) for geom in (stays, gone))
    post.staying_sqft = round(stay_sqft, 2)
    post.removed_sqft = None if removed is None else round(gone_sqft, 2)
    return post


def _cover(impervious: Any, geom: shapely.Geometry, factor: float) -> float:
    """Existing impervious cover (sq ft) inside one geometry: raster or polygons."""
    if shapely.is_empty(geom):
        return 0.0
    if isinstance(impervious, Raster):
        return raster_cover(impervious, [geom])[0] * factor
    empty = shapely.Polygon()
    regions = SiteRegions(parcels=geom, inside=empty, outside=geom, off=empty)
    return split_polygons(impervious, regions, factor=factor)["parcel_sqft"]


def site_standards(config: TownConfig, dev: dict[str, Any], disturbance: dict[str, Any],
                   post: PostImpervious, roadway_maintenance: bool, *,
                   citations: RuleCitations | None = None) -> dict[str, Any]:
    """The ``standards`` block: the performance standards (§ 320-19 B(7), B(8)) on the total,
    its parts, the other type's figures where the Commission decides the type, the reasons;
    ``citations``: the regulation applied's (:func:`swm_gis.rules.citations.rule_citations`;
    default: the default profile's)."""
    total = post.total_sqft
    cite = citations or default_citations()
    standards = performance_standards(dev, post_impervious_sqft=total, rules=config.rules,
                                      roadway_maintenance=roadway_maintenance, citations=cite)
    other = _other_type(dev, config)
    if other is not None:  # the Commission's call: give it the other type's figures
        alt = performance_standards(other, post_impervious_sqft=total, rules=config.rules,
                                    citations=cite)
        key = "if_new_development" if other == "new" else "if_redevelopment"
        standards[key] = {k: alt[k] for k in _ALT_KEYS}
    standards.update({
        "proposed_impervious_sqft": post.proposed_sqft,
        "existing_impervious_staying_sqft": post.staying_sqft,
        "existing_impervious_removed_sqft": post.removed_sqft,
        "post_impervious_missing": post.missing,
    })
    if post.split is not None:
        standards["post_impervious_inside_disturbance_sqft"] = post.split[0]
        standards["post_impervious_outside_disturbance_sqft"] = post.split[1]
    standards["reasons"].extend(_reasons(post, disturbance["permit_required"], cite))
    return standards


def _other_type(dev: dict[str, Any], config: TownConfig) -> str | None:
    """The type whose figures the findings also give: the measured one where the applicant
    states the other, new development where the existing cover is a small share."""
    if dev.get("conflict") and dev.get("measured_value") in ("new", "redevelopment"):
        return str(dev["measured_value"])
    existing, area = dev.get("existing_impervious_sqft"), dev.get("disturbed_sqft")
    small = (dev.get("value") == "redevelopment"
             and str(dev.get("method", "")).startswith("measured") and existing is not None
             and bool(area) and 0 < float(existing) / float(area)
             < config.rules.small_existing_impervious_share)
    return "new" if small else None


def _reasons(post: PostImpervious, permit_required: bool | None,
             cite: RuleCitations) -> list[str]:
    """What the standards add to their reasons: the total's parts, the polygons left out and
    whether a permit is required at all."""
    reasons = [_total_reason(post, cite.retention())]
    if post.left_out:
        reasons.append(
            f"{post.left_out} proposed impervious polygon(s) lie wholly off the site (its "
            "parcel(s) and the limit of disturbance) and were left out (they belong to another "
            "site).")
    if permit_required is False:
        reasons.append("No Stormwater Management Permit is required (see disturbance); these "
                       "standards are shown for information.")
    elif permit_required is None:
        reasons.append("These standards apply if a Stormwater Management Permit is required "
                       "(see disturbance: it is conditional).")
    return reasons


def _total_reason(post: PostImpervious, section: str) -> str:
    """The sentence giving the total post-construction impervious area and its parts
    (``section``: both types' retention citations)."""
    if post.split is not None and post.split[1] > 0:
        proposed = (f"{fmt.sqft(post.proposed_sqft)} of proposed cover "
                    f"({fmt.sqft(post.split[0])} inside the limit of disturbance, "
                    f"{fmt.sqft(post.split[1])} outside it)")
    elif post.proposed_sqft is not None:
        proposed = (f"{fmt.sqft(post.proposed_sqft)} of proposed cover inside the limit of "
                    "disturbance")
    else:
        proposed = "the proposed cover (not given)"
    removed = (f"; {fmt.sqft(post.removed_sqft)} of existing cover there is removed, as the "
               "applicant states" if post.removed_sqft else "")
    if post.staying_sqft is None:
        return (f"The total post-construction impervious area on the site ({section}) "
                f"is {proposed} + {MISSING_STAYING}, which was not measured (no "
                "existing impervious layer is configured): the total, and the retention volume, "
                "are at least the proposed cover's.")
    staying = (f"{fmt.sqft(post.staying_sqft)} of existing cover on the site's parcel(s) "
               f"outside it that stays{removed}")
    if post.total_sqft is None:
        return (f"The total post-construction impervious area on the site ({section}) "
                f"is {proposed} + {staying}.")
    return (f"The total post-construction impervious area on the site ({section}) is "
            f"{fmt.sqft(post.total_sqft)}: {proposed} + {staying}.")


def on_site(proposed: gpd.GeoDataFrame, site_union: shapely.Geometry,
            site_area: shapely.Geometry | None = None) -> tuple[gpd.GeoDataFrame, int]:
    """Proposed impervious polygons on the site, and how many were not.

    § 320-19 B(7)/B(8) measure "the total post-construction impervious area on the site", and
    the site is the lot or parcel: a polygon counts when it overlaps the site's parcel(s)
    (``site_area``, which holds the limit of disturbance) by area or touches the limit of
    disturbance. One file may hold several sites' surfaces (e.g. a SITE field); the whole
    polygon counts, so a roof drawn a little past the line is not cut short.
    """
    geoms = proposed.geometry.values
    touches = shapely.intersects(geoms, site_union)
    if site_area is not None and not shapely.is_empty(site_area):
        on = shapely.area(shapely.intersection(geoms, site_area)) > 0
        touches = touches | on
    if touches.any():
        return proposed.loc[touches], int((~touches).sum())
    raise GeometryError(
        f"No {option('proposed_impervious')} polygon touches the site's limit of disturbance; "
        "check that the file belongs to this site and is in the right CRS.")

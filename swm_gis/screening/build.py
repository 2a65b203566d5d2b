"""Site screening: every check of ``swm-gis screen`` for one site, as one document (screening.json).

:func:`build_screening` takes the site and the options as one
:class:`~swm_gis.screening.request.ScreeningRequest`, reads the reference layers it needs through
:mod:`swm_gis.io.layers` with a spatial filter around the site, hands frames to the rule functions
(:mod:`swm_gis.rules.disturbance`, :mod:`swm_gis.rules.development`, :mod:`swm_gis.rules.standards`,
:mod:`swm_gis.rules.watersheds` and the resource checks of :mod:`swm_gis.screening.resource_areas`)
and collects their results into the ``screening.json`` document plus the layers of
``screening.gpkg``. The site is read as the land it is: the standards over the total
post-construction impervious area on it (:mod:`swm_gis.screening.site_standards`), each
constraint split at the limit of disturbance (:mod:`swm_gis.screening.site_areas`) and the land
of others the limit lies on (:mod:`swm_gis.screening.site_land`). It writes nothing: the CLI and
the QGIS plugin do.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import geopandas as gpd
import shapely

from swm_gis._version import __version__
from swm_gis.config.town import TownConfig
from swm_gis.config.town_regulation import describe_applied, not_named_warning
from swm_gis.io import layers as io
from swm_gis.progress import Progress, quiet, scaled
from swm_gis.rules.citations import RuleCitations, rule_citations
from swm_gis.rules.development import development_type
from swm_gis.rules.disturbance import disturbance_trigger, sqft_per_crs_unit2, union_polygons
from swm_gis.rules.site_split import SiteRegions, site_regions
from swm_gis.rules.watersheds import mitigation_eligibility, watershed_shares
from swm_gis.screening.finding_parts import PARCELS_GIVEN, PARCELS_UNDER_SITE, layer_words
from swm_gis.screening.findings import decide_findings
from swm_gis.screening.general_requirements import general_requirements, requirements_file
from swm_gis.screening.given_parcels import check_given_parcels
from swm_gis.screening.inputs import (
    coverage,
    map_context,
    read_impervious,
    read_optional,
    to_working,
)
from swm_gis.screening.ms4 import permit_on_ms4
from swm_gis.screening.output_layers import mitigation_layer, plain, site_layers, watershed_layer
from swm_gis.screening.request import ScreeningRequest, check_claims
from swm_gis.screening.site import ms4_reach, parcel_cover, parcels_under_site, town_check
from swm_gis.screening.site_areas import site_split_block
from swm_gis.screening.site_land import land_warning
from swm_gis.screening.site_standards import post_impervious, site_standards
from swm_gis.screening.tiers import tier_block, waters_use
from swm_gis.screening.wording import wording_for

#: Top-level keys of screening.json in the order they are written (the schema's, plus meta).
DOCUMENT_KEYS = ("meta", "disturbance", "development_type", "standards", "watersheds",
                 "mitigation", "habitats", "floodplain", "receiving_waters", "site_split",
                 "checks", "warnings", "coverage", "findings", "general_requirements")

#: JSON Schema (draft 2020-12) of screening.json, published with the package.
SCHEMA_PATH = Path(__file__).resolve().parents[1] / "schemas" / "screening.schema.json"


@dataclass
class ScreeningResult:
    """The screening of one site: the ``screening.json`` document and the GeoPackage layers."""

    document: dict[str, Any]
    layers: dict[str, gpd.GeoDataFrame] = field(default_factory=dict)


@dataclass
class _Site:
    """The site as the checks read it, every frame in the working CRS."""

    frame: gpd.GeoDataFrame                  # the limit of disturbance
    union: shapely.Geometry                  # its union
    common_plan: gpd.GeoDataFrame | None
    mitigation: gpd.GeoDataFrame | None
    proposed: gpd.GeoDataFrame | None        # proposed impervious surfaces (those on the site)
    removed: gpd.GeoDataFrame | None         # existing impervious cover the applicant removes
    parcels: gpd.GeoDataFrame                # the lot or parcel(s) (Chapter 320's site)
    parcels_basis: str                       # given, or those the limit of disturbance lies on
    parcel_union: shapely.Geometry
    area: shapely.Geometry                   # the limit of disturbance and its parcel(s)
    factor: float                            # sq ft per square unit of the CRS
    warnings: list[dict[str, Any]]           # the town check's
    sources: dict[str, dict[str, Any]]       # the request's inputs' source records, by key
    regions: SiteRegions                     # the parcel(s) inside / outside the LOD, and off
    impervious: Any = None                   # the existing impervious layer (raster, polygons)


def build_screening(config: TownConfig, request: ScreeningRequest, *,
                    progress: Progress | None = None) -> ScreeningResult:
    """Screen one site against Chapter 320.

    Parameters
    ----------
    config
        The town (working CRS, rule values, reference layers).
    request
        The site and the options (:class:`~swm_gis.screening.request.ScreeningRequest`, which
        lists them). Its vector inputs are best given read (GeoDataFrames, as
        :func:`swm_gis.jobs.screen_request` hands them); GeoDataFrames are reprojected to the
        working CRS if needed; a request with a file in it is read whole
        (:meth:`~swm_gis.screening.request.ScreeningRequest.read`). The site's ``parcels``
        (ids) are read from ``[layers.parcels]``; without them, :func:`parcels_under_site`.
        Chapter 320's site is the lot or parcel: the floodplain, impervious areas and coverage
        read them.
    progress
        ``progress(fraction, message)`` callback.

    Returns
    -------
    ScreeningResult
        ``document`` (the screening.json content) and ``layers`` (for screening.gpkg).
    """
    report = progress or quiet
    applied = config.applied_regulation(request.received)
    cites = rule_citations(applied)  # every citation the rules write: the profile's
    waters_proposed_use = waters_use(applied, request.proposed_use)  # a wrong word: refused
    check_claims(request, cites)  # an exemption or roadway claim the regulation lacks: refused
    site = _read_site(config, request if request.is_read else request.read(config.crs))

    report(0.05, "disturbance and permit trigger")
    disturbance, checks = _disturbance(config, site, request, cites)
    # watersheds first: a site outside every HUC is a more basic error than a layer's extent
    report(0.1, "watersheds (HUC12 / HUC10)")
    hucs, watersheds, watershed_checks = _watersheds(config, site, cites)
    report(0.15, "existing impervious cover")
    dev, dev_check = _development(config, site, request, disturbance, cites)
    checks.append(dev_check)
    report(0.3, "performance standards")
    post = post_impervious(site.proposed, request.proposed_impervious_sqft,
                           regions=site.regions, lod=site.union, area=site.area,
                           impervious=site.impervious, removed=site.removed, factor=site.factor)
    site.proposed = post.proposed
    standards = site_standards(config, dev, disturbance, post, request.roadway_maintenance,
                               citations=cites)
    checks.append(_check("standards", True, _src(site, "proposed_impervious"),
                         None if post.proposed_sqft is not None else
                         "no proposed impervious area given: retention not computed"))
    checks.extend(watershed_checks)
    report(0.5, "off-site mitigation eligibility")
    mitigation_rows, mitigation_check = _mitigation(config, site, standards, watersheds, hucs,
                                                    cites)
    checks.append(mitigation_check)
    report(0.6, "resource areas and receiving waters")
    res_keys, res_layers, res_checks, disturbance["ms4"] = _resources(
        config, site, waters_proposed_use, scaled(report, 0.6, 0.95), applied)
    required_before = disturbance.get("permit_required")
    disturbance.update(permit_on_ms4(disturbance, citations=cites))  # open MS4: conditional
    if disturbance.get("permit_required") is not required_before:
        # the standards' reasons say "if a permit is required" while the MS4 condition is open
        standards = site_standards(config, dev, disturbance, post, request.roadway_maintenance,
                                   citations=cites)
    checks.extend(res_checks)
    disturbance["tier"] = tier_block(applied, disturbance, proposed_use=request.proposed_use)

    report(0.97, "assembling the screening document")
    layers = _layers(config, site, disturbance, mitigation_rows, hucs, watersheds, res_layers)
    document = {
        "meta": _meta(config, site, request, checks),
        "disturbance": disturbance,
        "development_type": dev,
        "standards": standards,
        "watersheds": watersheds,
        "mitigation": mitigation_rows,
        "habitats": res_keys.get("habitats", []),
        "floodplain": res_keys.get("floodplain"),
        "receiving_waters": res_keys.get("receiving_waters"),
        "site_split": site_split_block(
            site.regions, factor=site.factor, impervious=site.impervious, layers=res_layers,
            floodplain=res_keys.get("floodplain"),
            habitat_layers=frozenset(k for k in ("nhesp_priority", "nhesp_estimated")
                                     if config.has(k)),
            parcel_ids=_site_parcels_meta(site)["ids"], basis=site.parcels_basis),
        "checks": checks,
    }
    for key, value in res_keys.items():  # anything further the resource checks add
        document.setdefault(key, value)
    _conclude(config, site, document, layers)
    report(1.0, "screening done")
    return ScreeningResult(document=document, layers=layers)


# --------------------------------------------------------------------------- the parts
def _read_site(config: TownConfig, request: ScreeningRequest) -> _Site:
    """The request's inputs in the working CRS, the site's union and its lot or parcel(s).

    A site or plan elsewhere is refused before any rule speaks of it (a wrong file or CRS).
    """
    # the parcels given by id are read first: a wrong id is refused before the site is read
    given = io.read_parcels_by_id(config, list(request.parcels)) if request.parcels else None
    frame = to_working(request.site, config)
    common_plan = to_working(request.common_plan, config)
    mitigation = to_working(request.mitigation, config)
    proposed = to_working(request.proposed_impervious, config)
    removed = to_working(request.removed_impervious, config)
    union = union_polygons(frame, what="site")
    factor = sqft_per_crs_unit2(frame.crs)
    warnings = town_check(config, union, common_plan=common_plan)
    parcels, basis = _site_parcels(config, to_working(given, config), union)
    parcel_union = (shapely.union_all(parcels.geometry.values) if len(parcels)
                    else shapely.Polygon())
    return _Site(frame=frame, union=union, common_plan=common_plan, mitigation=mitigation,
                 proposed=proposed, removed=removed, parcels=parcels, parcels_basis=basis,
                 parcel_union=parcel_union, area=shapely.union(union, parcel_union),
                 factor=factor, warnings=warnings, sources=dict(request.sources),
                 regions=site_regions(union, parcel_union))


def _site_parcels(config: TownConfig, given: gpd.GeoDataFrame | None,
                  site_union: shapely.Geometry) -> tuple[gpd.GeoDataFrame, str]:
    """The site is the lot or parcel (Chapter 320 definitions): the parcels given
    (``parcels=``), else the parcels the limit of disturbance lies on; and that basis."""
    if given is not None and len(given):
        check_given_parcels(config, given, site_union)  # each must touch the site
        return given.copy(), PARCELS_GIVEN
    return parcels_under_site(config, site_union), PARCELS_UNDER_SITE


def _disturbance(config: TownConfig, site: _Site, request: ScreeningRequest,
                 cites: RuleCitations) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The disturbance and permit trigger, and the checks of the site and the common plan."""
    applicability = config.applied_regulation(request.received).version.section("applicability")
    disturbance = disturbance_trigger(site.frame, common_plan=site.common_plan,
                                      exemptions=list(request.exemptions), rules=config.rules,
                                      counts_common_plan=applicability.get("common_plan", True),
                                      citations=cites)
    checks = [_check("disturbance", True, _src(site, "site"))]
    if site.common_plan is not None:
        checks.append(_check("common_plan", True, _src(site, "common_plan")))
    else:
        checks.append(_check("common_plan", False, None,
                             "no larger common plan of development or sale was given"))
    return disturbance, checks


def _watersheds(config: TownConfig, site: _Site, cites: RuleCitations
                ) -> tuple[dict[str, gpd.GeoDataFrame | None], dict[str, Any],
                           list[dict[str, Any]]]:
    """The HUC12 / HUC10 layers around the site and the mitigation sites, the site's shares of
    them and their checks."""
    mask = site.union if site.mitigation is None else shapely.union_all(
        [site.union, *site.mitigation.geometry.values])
    hucs = {level: read_optional(config, level, mask) for level in ("huc12", "huc10")}
    watersheds = watershed_shares(site.frame, huc12=hucs["huc12"], huc10=hucs["huc10"],
                                  sources={level: _spec_src(config, level) for level in hucs},
                                  citations=cites)
    checks = [_layer_check(f"watersheds_{level}", config, level) for level in ("huc12", "huc10")]
    return hucs, watersheds, checks


def _development(config: TownConfig, site: _Site, request: ScreeningRequest,
                 disturbance: dict[str, Any], cites: RuleCitations
                 ) -> tuple[dict[str, Any], dict[str, Any]]:
    """New development or redevelopment (the existing impervious cover), and its check."""
    impervious, imp_source, imp_reason = read_impervious(config, site.area)
    site.impervious = impervious
    development = request.development
    dev = development_type(site.frame, impervious=impervious,
                           override=None if development == "auto" else development,
                           citations=cites)
    dev["small_share_threshold"] = config.rules.small_existing_impervious_share
    dev["disturbed_sqft"] = disturbance["area_sqft"]
    if len(site.parcels):
        dev["site_parcels"] = parcel_cover(site.parcels, impervious, site.factor,
                                           basis=site.parcels_basis)
    return dev, _check("development_type", impervious is not None or development != "auto",
                       imp_source, imp_reason)


def _mitigation(config: TownConfig, site: _Site, standards: dict[str, Any],
                watersheds: dict[str, Any], hucs: dict[str, gpd.GeoDataFrame | None],
                cites: RuleCitations) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Each off-site mitigation site's eligibility at the standards' HUC level, and the check."""
    level = standards["mitigation_huc_level"]
    if site.mitigation is None:
        return [], _check("mitigation", False, None, "no candidate mitigation site was given")
    key = level.lower()
    rows = mitigation_eligibility(site.mitigation, hucs=hucs[key],
                                  site_hucs=[r["huc"] for r in watersheds[key]], level=level,
                                  citations=cites)
    return rows, _check("mitigation", hucs[key] is not None,
                        [_src(site, "mitigation"), _spec_src(config, key)],
                        None if hucs[key] is not None
                        else f"{layer_words(key)} is not configured")


def _resources(config: TownConfig, site: _Site, proposed_use: str | None, progress: Progress,
               applied: Any = None
               ) -> tuple[dict[str, Any], dict[str, gpd.GeoDataFrame], list[dict[str, Any]], Any]:
    """The resource areas and receiving waters (:mod:`swm_gis.screening.resource_areas`), then
    whether the site drains to the Town's MS4: their keys, layers and checks, and the MS4's."""
    from swm_gis.screening.resource_areas import resource_checks

    keys, layers, checks = resource_checks(
        config, site.frame, subject_parcels=site.parcels if len(site.parcels) else None,
        proposed_use=proposed_use, progress=progress, regulation=applied,
    )
    if (subject := (keys.get("floodplain") or {}).get("subject_parcels")) is not None:
        subject["basis"] = site.parcels_basis  # the check was given them; this job found them
    ms4, ms4_check = ms4_reach(config, site.union, layers.get("flow_path"), checks=checks)
    return keys, layers, [*checks, ms4_check], ms4


def _layers(config: TownConfig, site: _Site, disturbance: dict[str, Any],
            mitigation_rows: list[dict[str, Any]], hucs: dict[str, gpd.GeoDataFrame | None],
            watersheds: dict[str, Any], res_layers: dict[str, gpd.GeoDataFrame]
            ) -> dict[str, gpd.GeoDataFrame]:
    """The layers of screening.gpkg: the site's, the resource checks', the map's context."""
    layers = site_layers(site.union, disturbance, site.common_plan, site.frame.crs, site.factor)
    if site.proposed is not None:
        layers["proposed_impervious"] = plain(site.proposed)
    if site.mitigation is not None:
        layers["mitigation"] = mitigation_layer(site.mitigation, mitigation_rows)
    wlayer = watershed_layer(hucs, watersheds, site.frame.crs)
    if wlayer is not None:
        layers["watersheds"] = wlayer
    for name, frame in res_layers.items():
        layers[name if name not in layers else f"resources_{name}"] = frame
    for name, frame in map_context(config, site.union).items():
        layers.setdefault(name, frame)
    return layers


def _conclude(config: TownConfig, site: _Site, document: dict[str, Any],
              layers: dict[str, gpd.GeoDataFrame]) -> None:
    """The document's last keys: warnings, the coverage of each finding's layers, the findings
    (:func:`decide_findings`) and the general requirements."""
    applied = config.applied_regulation((document.get("meta") or {}).get("regulation", {})
                                        .get("applied_on"))
    land = land_warning(config, site.union, site.parcels, factor=site.factor,
                        regulation=applied)
    named = not_named_warning(config)
    document["warnings"] = ([named] if named else []) + site.warnings + ([land] if land else [])
    document["coverage"] = coverage(config, site.union, mitigation=site.mitigation,
                                     flow_path=layers.get("flow_path"),
                                     checks=document["checks"], site_area=site.area)
    document["findings"] = decide_findings(document, wording_for(applied))
    listed = requirements_file(applied)
    document["general_requirements"] = general_requirements(listed) if listed else []


# --------------------------------------------------------------------------- checks & meta
def _check(name: str, ran: bool, source: Any, reason: str | None = None) -> dict[str, Any]:
    out = {"name": name, "ran": bool(ran), "source": source}
    if reason:
        out["reason"] = reason
    return out


def _layer_check(name: str, config: TownConfig, key: str) -> dict[str, Any]:
    if config.has(key):
        return _check(name, True, _spec_src(config, key))
    return _check(name, False, None, f"{layer_words(key)} is not configured")


def _spec_src(config: TownConfig, key: str) -> dict[str, Any] | None:
    return io.source_info(config.layer(key)) if config.has(key) else None


#: The request's vector inputs -> the :class:`_Site` attribute holding each.
_INPUT_FRAMES = {"site": "frame", "common_plan": "common_plan", "mitigation": "mitigation",
                 "proposed_impervious": "proposed", "removed_impervious": "removed"}


def _src(site: _Site, key: str) -> dict[str, Any] | None:
    """The source record of one of the request's inputs (None when it was not given)."""
    if getattr(site, _INPUT_FRAMES[key]) is None:
        return None
    src = dict(site.sources.get(key) or {"file": None, "layer": None, "modified": None})
    src["key"] = key
    return src


def _meta(config: TownConfig, site: _Site, request: ScreeningRequest,
          checks: list[dict[str, Any]]) -> dict[str, Any]:
    inputs = [src for key in _INPUT_FRAMES if (src := _src(site, key)) is not None]
    layers_used = [io.source_info(spec) for spec in config.layers.values()
                   if any(_mentions(c.get("source"), spec) for c in checks)]
    return {
        "tool": "swm-gis",
        "tool_version": __version__,
        "generated": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "town": config.name,
        "synthetic": bool(config.synthetic),
        "config": str(config.path) if config.path else None,
        "crs": config.crs,
        "site": _src(site, "site"),
        "parameters": {
            "development": request.development,
            "proposed_impervious_sqft": request.proposed_impervious_sqft,
            "exemptions": list(request.exemptions),
            "roadway_maintenance": bool(request.roadway_maintenance),
            "common_plan": site.common_plan is not None,
            "mitigation": site.mitigation is not None,
            "proposed_impervious": site.proposed is not None,
            "removed_impervious": site.removed is not None,
            "proposed_use": request.proposed_use,
        },
        "rules": _rules_dict(config),
        "inputs": inputs,
        "sources": layers_used,
        "units": {"area": "sq ft", "volume": "cu ft", "depth": "in", "distance": "ft"},
        "site_parcels": _site_parcels_meta(site),
        # the profile and its version in force on the received date (or today)
        "regulation": describe_applied(config.applied_regulation(request.received),
                                       named=config.regulation is not None),
    }


def _site_parcels_meta(site: _Site) -> dict[str, Any]:
    """Which parcels the site is, on what basis, and their area."""
    parcels = site.parcels
    return {"basis": site.parcels_basis,
            "ids": [str(i) for i in parcels["id"]] if "id" in parcels else [],
            "area_sqft": round(float(site.parcel_union.area) * site.factor, 1)}


def _mentions(source: Any, spec: Any) -> bool:
    """Whether a check's source (a source_info dict, or a list of them) names this layer."""
    if isinstance(source, dict):
        if source.get("key") is not None:
            return source.get("key") == spec.key
        return source.get("file") == spec.path and source.get("layer") == spec.layer
    if isinstance(source, list):
        return any(_mentions(s, spec) for s in source)
    return False


def _rules_dict(config: TownConfig) -> dict[str, Any]:
    keep = ("trigger_sqft", "retention_new_in", "retention_redevelopment_in", "tss_removal_new",
            "tp_removal_new", "tss_removal_redevelopment", "tp_removal_redevelopment",
            "mitigation_huc_new", "mitigation_huc_redevelopment", "habitat_distance_ft",
            "small_existing_impervious_share")
    values = dataclasses.asdict(config.rules)
    return {k: values[k] for k in keep if k in values}


__all__ = ["DOCUMENT_KEYS", "SCHEMA_PATH", "ScreeningResult", "build_screening"]

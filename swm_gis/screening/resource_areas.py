"""Site screening II: resource areas and receiving waters around one site (``docs/findings.md``).

:func:`resource_checks` is what ``swm-gis screen`` calls; it reads the layers it needs through
:mod:`swm_gis.io.layers` with a spatial filter around the site and hands frames to the core rules
(:mod:`swm_gis.rules.habitats`, :mod:`swm_gis.rules.floodplain`,
:mod:`swm_gis.terrain.receiving_waters`). A missing optional layer turns off only the check that
needs it; the check entry says why.

Spatial filters:

* habitats: the site's bounding box grown by the search distance (500 ft);
* floodplain: the bounding box of the site and the subject parcels;
* receiving waters: the town (:func:`swm_gis.io.coverage.town_area`, every polygon of
  ``town_boundary``) grown by 1 km, or the site grown by 10 km without a boundary, for
  streams, water bodies, ORWs and impaired waters; the flow runs on the town's flow grid (the
  whole DEM, routed once and kept by :mod:`swm_gis.terrain.cache`), or, for a DEM too big
  for one grid, on a window around the site that grows (1, 4, 16 km) while the flow leaves
  it before meeting mapped water.
"""

from __future__ import annotations

from typing import Any

import geopandas as gpd
import numpy as np
import pandas as pd
import shapely

from swm_gis.config.regulation import AppliedRegulation
from swm_gis.config.town import TownConfig
from swm_gis.errors import InputFileError, NotCoveredError
from swm_gis.io import layers as io
from swm_gis.io.coverage import town_area
from swm_gis.progress import Progress
from swm_gis.rules import habitats as hab
from swm_gis.rules.floodplain import (
    flood_zone_pieces,
    floodplain_by_area,
    floodplain_overlap,
    sfha_mask,
    shaded_x_mask,
)
from swm_gis.screening.finding_parts import PARCELS_GIVEN, layer_words
from swm_gis.screening.inputs import off_town
from swm_gis.screening.wording import requirement_rows, wording_for
from swm_gis.terrain import cache as flowgrid_cache
from swm_gis.terrain import flow_directions
from swm_gis.terrain.receiving_waters import TRIBUTARIES, trace_receiving_waters
from swm_gis.units import M_PER_FT, feet_per_unit

_HABITAT_KEYS = ("nhesp_priority", "nhesp_estimated", "vernal_pools")
_DEM_MARGINS_M = (1_000.0, 4_000.0, 16_000.0)


def resource_checks(
    config: TownConfig,
    site: gpd.GeoDataFrame,
    *,
    subject_parcels: gpd.GeoDataFrame | None = None,
    proposed_use: str | None = None,
    progress: Progress | None = None,
    regulation: AppliedRegulation | None = None,
) -> tuple[dict[str, Any], dict[str, gpd.GeoDataFrame], list[dict[str, Any]]]:
    """Habitats, floodplain and receiving waters for one site.

    Parameters
    ----------
    config
        The town.
    site
        Limit-of-disturbance polygon(s) in the working CRS.
    subject_parcels
        The parcel(s) the work is on (working CRS, optional ``id`` and ``use_code`` columns):
        the floodplain is also reported for them, and their use codes decide the commercial /
        industrial clause of § 320-19 B(10)(e) when no ``proposed_use`` is given.
    proposed_use
        The proposed land use (DOR use code or word), which decides § 320-19 B(10)(e).
    progress
        ``progress(fraction, message)`` with fraction in [0, 1] of this step.
    regulation
        The regulation applied (default: the town's, in force today): the checks' sections and
        the habitat notes are its (:func:`_cite`).

    Returns
    -------
    tuple
        ``(keys, layers, checks)``: ``keys`` holds ``habitats``, ``floodplain`` and
        ``receiving_waters`` as ``screening.json`` holds them (``floodplain`` /
        ``receiving_waters`` are None when their check could not run); ``layers`` maps
        screening.gpkg layer names to frames; ``checks`` lists
        ``{"name", "ran", "source", "reason"?, "section", ...}``.
    """
    report = progress or (lambda fraction, message: None)
    site = site if site.crs is None or site.crs.equals(config.crs_obj) else site.to_crs(config.crs)
    keys: dict[str, Any] = {}
    layers: dict[str, gpd.GeoDataFrame] = {}
    checks: list[dict[str, Any]] = []

    report(0.0, "NHESP habitats within 500 ft")
    keys["habitats"], hl, hc = _habitats(config, site)
    layers.update(hl)
    checks.append(hc)

    report(0.2, "FEMA floodplain")
    keys["floodplain"], fl, fc = _floodplain(config, site, subject_parcels)
    layers.update(fl)
    checks.append(fc)

    report(0.35, "receiving waters (flow trace)")
    applied = regulation or config.applied_regulation()
    keys["receiving_waters"], rl, rc = _receiving(config, site, subject_parcels, proposed_use,
                                                  requirement_rows(applied))
    layers.update(rl)
    checks.append(rc)
    report(1.0, "resource checks done")
    _cite(applied, keys, layers, checks)
    return keys, layers, checks


def _cite_tributaries(block: Any, checks: list[dict[str, Any]], section: str) -> None:
    """The trace's end note (:func:`swm_gis.trace_receiving_waters` cites Chapter 320's
    impaired-waters section, which covers tributaries) citing the regulation applied."""
    def cited(text: str) -> str:
        return text.replace(TRIBUTARIES, f"{section} covers tributaries")

    for end in (block or {}).get("trace_end") or []:
        end["message"] = cited(str(end.get("message")))
    for check in checks:
        if check["name"] == "receiving_waters" and check.get("warnings"):
            check["warnings"] = [cited(str(w)) for w in check["warnings"]]


def _bare(citation: str | None) -> str | None:
    """A citation as the checks keep it: without its section signs (the report adds one)."""
    return citation.replace("§ ", "") if citation else None


def _cite(applied: AppliedRegulation, keys: dict[str, Any],
          layers: dict[str, gpd.GeoDataFrame], checks: list[dict[str, Any]]) -> None:
    """The regulation's citations in the resource checks, the habitat records and layer, and
    its notes in the habitat check (:mod:`swm_gis.screening.wording`)."""
    words = wording_for(applied)
    res = applied.version.section("resources")
    sections = {"habitats": _bare(res.get("nhesp_citation")) or words.citation("habitats"),
                "floodplain": _bare(res.get("floodplain_citation"))
                or words.citation("floodplain"),
                "receiving_waters": _bare(res.get("impaired_citation"))
                or words.citation("receiving_waters")}
    for check in checks:
        check["section"] = sections.get(check["name"], check.get("section"))
        if check["name"] == "habitats":
            check["notes"] = [n for n in (words.note("habitat_plan"),
                                          words.note("habitat_prevent"),
                                          hab.map_scale_note(check["distance_ft"])) if n]
    _cite_tributaries(keys.get("receiving_waters"), checks,
                      res.get("impaired_citation") or words.citation("receiving_waters"))
    for record in keys.get("habitats") or []:
        record["section"] = sections["habitats"]
    for name, frame in layers.items():
        if name == "habitats" and "section" in frame:
            frame["section"] = sections["habitats"]


# --------------------------------------------------------------------------- habitats
def _habitats(config: TownConfig, site: gpd.GeoDataFrame):
    distance_ft = config.rules.habitat_distance_ft
    grow = distance_ft / feet_per_unit(site.crs) * 1.01
    x0, y0, x1, y1 = site.total_bounds
    bbox = (x0 - grow, y0 - grow, x1 + grow, y1 + grow)
    frames: dict[str, gpd.GeoDataFrame | None] = {}
    sources, missing = [], []
    for key in _HABITAT_KEYS:
        if config.has(key):
            frames[key] = io.read_layer(config, key, bbox=bbox)
            sources.append(io.source_info(config.layer(key)))
        else:
            frames[key] = None
            missing.append(f"{layer_words(key)} is not configured")
    found = hab.habitats_within(site, priority=frames["nhesp_priority"],
                                estimated=frames["nhesp_estimated"],
                                vernal_pools=frames["vernal_pools"], distance_ft=distance_ft)
    check = {"name": "habitats", "ran": bool(sources), "source": sources or None,
             "section": None, "distance_ft": distance_ft, "notes": []}
    if missing:
        check["reason"] = "; ".join(missing)
    layers: dict[str, gpd.GeoDataFrame] = {}
    if sources:
        layers["habitats"] = found.astype({"id": "string"}) if len(found) else found
        union = shapely.union_all(site.geometry.values)
        # for the map only: the distance rule above is exact, never this polygon
        layers["buffer_500ft"] = gpd.GeoDataFrame(
            {"what": [f"{distance_ft:g} ft from the limit of disturbance (display only)"]},
            geometry=[shapely.buffer(union, distance_ft / feet_per_unit(site.crs),
                                     quad_segs=32)], crs=site.crs)
    return hab.habitat_records(found), layers, check


# --------------------------------------------------------------------------- floodplain
_FLOOD = layer_words("flood_zones")


def _floodplain(config: TownConfig, site: gpd.GeoDataFrame,
                subject: gpd.GeoDataFrame | None):
    if not config.has("flood_zones"):
        return None, {}, {"name": "floodplain", "ran": False, "source": None,
                          "reason": f"{_FLOOD} is not configured",
                          "section": None}
    geoms = list(site.geometry.values)
    if subject is not None and len(subject):
        geoms += list(subject.to_crs(site.crs).geometry.values)
    # grown by the habitat distance so the map shows the zones around the site, too
    grow = config.rules.habitat_distance_ft / feet_per_unit(site.crs)
    x0, y0, x1, y1 = shapely.bounds(shapely.union_all(geoms))
    zones = io.read_layer(config, "flood_zones", bbox=(x0 - grow, y0 - grow, x1 + grow, y1 + grow))
    rules = config.rules
    result = floodplain_overlap(site, zones, rules=rules)
    result.pop("area_sqft", None)
    spec = config.layer("flood_zones")
    # a 100-year-only file holds no shaded X: its absence there is no finding about the 0.2% zone
    holds = bool(len(zones)) and bool(shaded_x_mask(zones).any())
    result["shaded_x_checked"] = bool(spec.includes_0_2_pct or holds)
    result["shaded_x_basis"] = (
        f"the town config says {_FLOOD} maps the 0.2%-annual-chance zone"
        if spec.includes_0_2_pct else
        f"{_FLOOD} holds 0.2%-annual-chance zones around the site" if holds else
        f"{_FLOOD} holds no 0.2%-annual-chance zone around the site and does not "
        "say it maps them (the town config can say so if it does)")
    if not result["shaded_x_checked"]:
        result["shaded_x_area_sqft"] = None
    if subject is not None and len(subject):
        subj = subject.to_crs(site.crs)
        per = floodplain_by_area(subj, zones, rules=rules)
        ids = subj["id"] if "id" in subj else pd.Series(subj.index, index=subj.index)
        total = floodplain_overlap(subj, zones, rules=rules)
        result["subject_parcels"] = {
            "area_sqft": total["area_sqft"], "in_sfha": total["in_sfha"],
            "sfha_area_sqft": total["sfha_area_sqft"], "site_fraction": total["site_fraction"],
            "zones": total["zones"],
            "shaded_x_area_sqft": total["shaded_x_area_sqft"] if result["shaded_x_checked"]
            else None,
            "basis": PARCELS_GIVEN,  # the job restates how it found them
            "parcels": [
                {"id": _text(ids.loc[i]), **{k: _py(v) for k, v in row.items()}}
                for i, row in per.iterrows()
            ],
        }
    near = zones.copy()
    near["sfha"] = sfha_mask(zones, rules=rules).to_numpy()
    near["shaded_x"] = shaded_x_mask(zones).to_numpy()
    near = near.drop(columns=[c for c in near.columns if c not in
                              ("zone", "subtype", "sfha", "bfe", "shaded_x", "geometry")])
    layers = {"flood_zones": near,
              "flood_overlap": flood_zone_pieces(site, zones, rules=rules)}
    check = {"name": "floodplain", "ran": True,
             "source": io.source_info(config.layer("flood_zones")), "section": None}
    return result, layers, check


# --------------------------------------------------------------------------- receiving waters
def _receiving(config: TownConfig, site: gpd.GeoDataFrame,
               subject: gpd.GeoDataFrame | None, proposed_use: str | None = None,
               requirements: Any = None):
    name = "receiving_waters"
    if not (config.has("streams") or config.has("waterbodies")):
        return None, {}, {"name": name, "ran": False, "source": None,
                          "section": None,
                          "reason": "neither the streams layer nor the waterbodies layer is "
                                    "configured"}
    union = shapely.union_all(site.geometry.values)
    per_m = 1.0 / (feet_per_unit(site.crs) * M_PER_FT)  # CRS units per metre
    # the town where the trace stops: the one the applicability map stops at too
    boundary = town_area(config)
    area = boundary if boundary is not None else union
    grow = (1_000.0 if boundary is not None else 10_000.0) * per_m
    x0, y0, x1, y1 = shapely.bounds(area)
    bbox = (x0 - grow, y0 - grow, x1 + grow, y1 + grow)
    frames = {k: io.read_layer(config, k, bbox=bbox) if config.has(k) else None
              for k in ("streams", "waterbodies", "orw", "impaired_waters", "vernal_pools")}
    sources = [io.source_info(config.layer(k)) for k, v in frames.items() if v is not None]
    reasons = [f"{layer_words(k)} is not configured: {what} not checked"
               for k, what in (("orw", "Outstanding Resource Waters"),
                               ("impaired_waters", "impaired waters"),
                               ("vernal_pools", "certified vernal pools (ORWs)"))
               if frames[k] is None]
    use_codes = None if proposed_use else _use_codes(config, union, subject)

    def trace(dem):
        return trace_receiving_waters(
            site, dem=dem, streams=frames["streams"], waterbodies=frames["waterbodies"],
            orw=frames["orw"], impaired=frames["impaired_waters"],
            vernal_pools=frames["vernal_pools"], use_codes=use_codes,
            proposed_use=proposed_use, boundary=boundary, requirements=requirements)

    result = None
    if config.has("dem"):
        sources.append(io.source_info(config.layer("dem")))
        try:
            result = _trace_on_dem(config, union, per_m, trace)
        except NotCoveredError as exc:  # answer what can be answered: as without a DEM
            reasons.append(f"the elevation (DEM) layer does not cover the site ({exc}): "
                           "nearest stream used (approximate)")
    else:
        reasons.append("the elevation (DEM) layer is not configured: nearest stream used "
                       "(approximate)")
    if result is None:
        result = trace(None)
    flow_path = result.pop("flow_path")
    layers = {"flow_path": flow_path,
              "receiving_waters": _met_layer(frames["orw"], frames["impaired_waters"], result,
                                             site.crs)}
    check = {"name": name, "ran": True, "source": sources, "section": None,
             "method": result["method"], "approximate": result["approximate"],
             "warnings": [w["message"] for w in result["warnings"]]}
    if reasons:
        check["reason"] = "; ".join(reasons)
    if use_codes is not None:
        result["use_codes"] = sorted({str(c) for c in use_codes})
    if proposed_use:
        result["proposed_use"] = str(proposed_use)
    return result, layers, check


def _trace_on_dem(config: TownConfig, union: shapely.Geometry, per_m: float, trace):
    """The trace on the town's flow grid, or on windows around the site that grow while the
    flow leaves them before meeting mapped water (a DEM too big for one grid)."""
    result, last_shape = None, None
    sx0, sy0, sx1, sy1 = union.bounds
    try:  # a small read first, so a DEM beside the site gets a message about the site
        io.read_raster(config, "dem", bounds=(sx0, sy0, sx1, sy1), pad_cells=0)
    except InputFileError as exc:
        if str(exc).startswith("Cannot read"):  # unreadable, not beside the site
            raise
        if isinstance(exc, NotCoveredError) and not off_town(exc, config):
            raise NotCoveredError(f"The DEM does not cover the site. {exc}") from exc
        raise InputFileError(f"The DEM does not cover the site. {exc}") from exc
    town = flowgrid_cache.town_flow(config)  # the town's grid, computed once and kept
    for margin in (() if town is not None else _DEM_MARGINS_M):  # else windows (huge DEM)
        m = margin * per_m
        dem = io.read_raster(config, "dem", bounds=(sx0 - m, sy0 - m, sx1 + m, sy1 + m),
                             require_cover=False)
        if dem.array.shape == last_shape:
            break  # the window already holds the whole DEM
        last_shape = dem.array.shape
        result = trace(flow_directions(dem))
        if not any(w.get("problem") == "no_water_reached" for w in result["warnings"]):
            break
    if town is not None:
        result = trace(town)
    return result


def _use_codes(config: TownConfig, union: shapely.Geometry,
               subject: gpd.GeoDataFrame | None) -> list[str] | None:
    """DOR use codes of the site's parcels: subject parcels, else parcels under the site."""
    if subject is not None and "use_code" in subject and subject["use_code"].notna().any():
        return [str(c) for c in subject["use_code"].dropna()]
    try:
        parcels = io.read_layer(config, "parcels", mask=union)
    except Exception:  # noqa: BLE001 - use codes are a refinement; the check runs without them
        return None
    if not len(parcels):
        return None
    if "use_code" in parcels and parcels["use_code"].notna().any():
        return [str(c) for c in parcels["use_code"].dropna()]
    if not config.has("assess"):
        return None
    spec = config.layer("assess")
    field = spec.fields.get("parcel_id")
    ids = [str(i) for i in parcels["id"].dropna().unique()]
    if not ids or not field:
        return None
    table = io.read_table(config, "assess", where=io.sql_in(field, ids))
    codes = [str(c) for c in table["use_code"].dropna()] if "use_code" in table else []
    return codes or None


def _met_layer(orw, impaired, result, crs) -> gpd.GeoDataFrame:
    rows, geoms = [], []
    for kind, frame, items, idcol in (("orw", orw, result["orw"], "id"),
                                      ("impaired", impaired, result["impaired"], "au_id")):
        if frame is None or not items:
            continue
        by_id = {str(v): g for v, g in zip(frame["id"], frame.geometry.values, strict=True)}
        for it in items:
            if it.get("vernal_pool"):
                continue
            rows.append({"type": kind, "id": _text(it[idcol]), "name": it["name"],
                         "category": it.get("category"), "causes": "; ".join(it.get("causes", [])),
                         "tmdl": _text(it.get("tmdl")),
                         "flow_distance_ft": it["flow_distance_ft"]})
            geoms.append(by_id.get(str(it[idcol])))
    cols = ["type", "id", "name", "category", "causes", "tmdl", "flow_distance_ft"]
    return gpd.GeoDataFrame(rows or {c: [] for c in cols}, geometry=geoms, crs=crs)


def _text(value: Any) -> str | None:
    value = _py(value)
    return None if value is None else str(value)


def _py(value: Any) -> Any:
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and np.isnan(value):
        return None
    return value

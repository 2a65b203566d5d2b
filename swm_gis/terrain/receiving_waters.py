"""Receiving waters: where a site's runoff goes, and the Chapter 320 duties the waters bring.

:func:`trace_receiving_waters` follows the runoff from the site down the DEM (D8 with depression
filling, :mod:`swm_gis.terrain`) to the first mapped stream or water body, then down the stream
network (digitised direction, through ponds) to the town boundary or the network's end, and
reports every Outstanding Resource Water (including the certified vernal pools the flow reaches:
Chapter 320's definition of ORWs includes them) and every impaired assessment unit (Integrated
List category 4A with a TMDL, 4B or 5) the flow meets, with the flow distance in feet. A water
that is near but upslope is never met, because nothing flows to it. Without a DEM it falls back
to the nearest stream and marks the result approximate. Where the trace leaves the data (the town
line, the DEM's edge, the end of the mapped network) ``trace_end`` says where and why, so a
finding built on it is conditional, never "no".

:func:`requirements_for` turns what was met into the § 320-19 B(10) requirements through two
tables in ``swm_gis/tables``: ``impairment_causes.csv`` maps MassDEP cause wording to a pollutant
group, ``pollutant_requirements.csv`` maps each group to its clause and text. These are the one
mapping from causes to duties: the submittal checklist (:mod:`swm_gis.screening.checklist`) decides
its § 320-19 B(10) items from the requirements this module derives. § 320-19 B(10)(e) (commercial or
industrial land) follows the *proposed* land use (``proposed_use=``), with the site parcels'
existing use codes as the fallback, and says which it used.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from importlib import resources as ilr
from pathlib import Path
from typing import Any

import geopandas as gpd
import numpy as np
import pandas as pd
import shapely

from swm_gis import terrain as hy
from swm_gis.errors import SwmGisError
from swm_gis.messages import option
from swm_gis.raster import Raster
from swm_gis.terrain.grid import plain_value, text_or_none
from swm_gis.units import feet_per_unit, require_crs

#: Why the waters past the town line matter, as the trace's end note says it; a screening
#: words it with the regulation applied's impaired-waters citation
#: (:mod:`swm_gis.screening.resource_areas`).
TRIBUTARIES = "The regulation's impaired-waters standards cover tributaries"

IMPAIRED_CATEGORIES = ("4A", "4B", "5")
_NO_TMDL = {"", "N", "NO", "NONE", "0", "FALSE", "NA", "N/A"}
SPILL_GROUPS = ("solids", "metals", "oil_grease")


# --------------------------------------------------------------------------- tables
@lru_cache(maxsize=1)
def cause_table() -> tuple[tuple[re.Pattern[str], str], ...]:
    """``impairment_causes.csv`` as (compiled pattern, group) pairs, in file order."""
    text = ilr.files("swm_gis").joinpath("tables/impairment_causes.csv").read_text("utf-8")
    rows = csv.DictReader(line for line in text.splitlines() if not line.startswith("#"))
    return tuple((re.compile(r["pattern"], re.IGNORECASE), r["group"]) for r in rows)


@lru_cache(maxsize=4)
def requirement_table(path: str | None = None) -> dict[str, dict[str, str]]:
    """A pollutant requirements table (CSV: group, section, condition, text): group -> row.
    ``path``: the file a regulation profile names (``pollutant_requirements``); None: the
    default profile's."""
    if path is None:
        from swm_gis.config.town_regulation import read_profile

        default = read_profile(None).pollutant_requirements
        if default is None:
            return {}
        path = str(default)
    text = Path(path).read_text(encoding="utf-8")
    return {r["group"]: r for r in csv.DictReader(text.splitlines())}


def cause_group(cause: str) -> str:
    """The pollutant group of a MassDEP cause name ("other" when no table row matches).

    >>> [cause_group(c) for c in ["Phosphorus, Total", "Escherichia coli (E. coli)", "Chloride",
    ...                           "Nitrogen, Total", "Sedimentation/Siltation", "Lead",
    ...                           "Oil and Grease", "Dissolved Oxygen"]]
    ['phosphorus', 'pathogens', 'chloride', 'nitrogen', 'solids', 'metals', 'oil_grease', 'other']
    """
    for pattern, group in cause_table():
        if pattern.search(cause):
            return group
    return "other"


def impaired_category(category: Any) -> Any:
    """Integrated List categories normalised: "Category 4a" -> "4A"; missing -> ""."""
    cat = pd.Series(category).astype("string").str.upper().str.replace("CATEGORY", "")
    return cat.str.strip().fillna("")


def is_impaired(category: Any) -> np.ndarray:
    """True for categories 4A (approved TMDL), 4B and 5, with 5's variants (e.g. 5M): the waters
    whose receiving of a discharge brings § 320-19 B(10).

    >>> is_impaired(["4a", "2", "5", "4C", None, "5M", "Category 4B"]).tolist()
    [True, False, True, False, False, True, True]
    """
    cat = impaired_category(category)
    return (cat.isin(IMPAIRED_CATEGORIES[:2]) | cat.str.startswith("5")).to_numpy(dtype=bool)


def split_causes(value: Any) -> list[str]:
    """MassDEP causes are ";"-separated (a cause may itself contain a comma).

    >>> split_causes("Phosphorus, Total; Chloride;"), split_causes(pd.NA), split_causes(None)
    (['Phosphorus, Total', 'Chloride'], [], [])
    """
    if isinstance(value, (list, tuple, np.ndarray)):
        return [str(v).strip() for v in value if str(v).strip()]
    if value is None or pd.isna(value):
        return []
    return [p.strip() for p in str(value).split(";") if p.strip()]


def is_commercial_industrial(use_code: Any) -> bool:
    """Massachusetts DOR property class: 3xx commercial, 4xx industrial, 0xx mixed use with a
    commercial (3) or industrial (4) part.

    >>> [is_commercial_industrial(c) for c in ["325", "401", "101", "013", "0101", None]]
    [True, True, False, True, False, False]
    """
    digits = re.sub(r"\D", "", str(use_code or ""))
    if len(digits) < 3:
        return False
    if digits[0] in "34":
        return True
    return digits[0] == "0" and len(digits) == 3 and any(d in "34" for d in digits[1:])


#: ``--proposed-use`` words: whether the land use is commercial or industrial (§ 320-19 B(10)(e)).
LAND_USE_WORDS = {"commercial": True, "industrial": True, "residential": False,
                  "agricultural": False, "institutional": False, "open-space": False,
                  "recreational": False, "municipal": False}


def land_use(*, proposed_use: str | None = None, use_codes: Iterable[Any] | None = None
             ) -> tuple[bool | None, str]:
    """Whether the project's land is commercial or industrial, and what that was decided from.

    The proposed use decides (§ 320-19 B(10)(e) speaks of the systems designed for the land's
    use: a house lot redeveloped as a shop is commercial land); without it, the existing use
    codes of the site's parcels, said so; without either, unknown (None).

    >>> land_use(proposed_use="commercial")
    (True, 'proposed use: commercial (as given)')
    >>> land_use(use_codes=["101"])[0], land_use()[0]
    (False, None)
    """
    if proposed_use is not None and str(proposed_use).strip():
        text = str(proposed_use).strip().lower()
        if re.fullmatch(r"\d{3,4}[A-Za-z]?", text):
            return is_commercial_industrial(text), f"proposed use code {text} (as given)"
        if text not in LAND_USE_WORDS:
            raise SwmGisError(
                f'Unknown {option("proposed_use")} "{proposed_use}": give a Massachusetts DOR use '
                f"code (e.g. 101, 325, 401) or one of: {', '.join(LAND_USE_WORDS)}.")
        return LAND_USE_WORDS[text], f"proposed use: {text} (as given)"
    codes = [] if use_codes is None else [str(c) for c in use_codes if c not in (None, "")]
    if not codes:
        return None, "land use unknown: no proposed use given and no parcel use code found"
    return (any(is_commercial_industrial(c) for c in codes),
            f"existing use code(s) {', '.join(sorted(set(codes)))} of the site's parcels "
            "(no proposed use given; the proposed use decides when it differs)")


# --------------------------------------------------------------------------- requirements
def requirements_for(
    impaired: Sequence[dict[str, Any]],
    orw: Sequence[dict[str, Any]],
    *,
    use_codes: Iterable[Any] | None = None,
    proposed_use: str | None = None,
    table: Mapping[str, Mapping[str, str]] | None = None,
) -> list[dict[str, Any]]:
    """Chapter 320 requirements brought by the impaired waters and ORWs met downstream.

    ``impaired`` items need ``au_id``, ``name``, ``category``, ``causes`` (list) and ``tmdl``;
    ``orw`` items ``id`` and ``name``. The solids / metals / oil and grease clause
    (§ 320-19 B(10)(e)) applies only on commercial or industrial land: decided by
    ``proposed_use`` (a DOR use code or a word of :data:`LAND_USE_WORDS`); without it the clause
    is always listed as conditional ("applies if the proposed use is commercial or industrial"),
    naming the site parcels' existing DOR use codes (``use_codes``) when known (see
    :func:`land_use`): the existing use does not decide what the project's systems are designed
    for, and the clause is never dropped unchecked.

    ``table``: the regulation applied's requirement rows by group (:func:`requirement_table`
    of its file, or :func:`swm_gis.screening.wording.requirement_rows`); default: the default
    profile's file.

    Returns ``[{section, text, group, waters[], conditional}]`` in table order; the clause
    (e) entry also carries ``land_use_basis``.
    """
    table = requirement_table() if table is None else table
    commercial, basis = land_use(proposed_use=proposed_use, use_codes=use_codes)
    waters_by_group, causes_by_group, tmdls = _waters_by_group(impaired, orw)
    out: list[dict[str, Any]] = []
    spill_waters: list[str] = []
    spill_causes: list[str] = []
    for group, row in table.items():
        if group not in waters_by_group:
            continue
        if group in SPILL_GROUPS:
            spill_waters += [w for w in waters_by_group[group] if w not in spill_waters]
            spill_causes += [c for c in causes_by_group.get(group, []) if c not in spill_causes]
            continue
        out.append(_requirement(group, row, waters_by_group[group], [], tmdls, False))
    decided = proposed_use is not None and bool(str(proposed_use).strip())
    spill_rows = [table[g] for g in SPILL_GROUPS if g in waters_by_group and g in table]
    if spill_waters and spill_rows and (commercial is not False or not decided):
        row = spill_rows[0]
        req = _requirement("solids_metals_oil", row, spill_waters, spill_causes, tmdls,
                           not decided, basis=basis)
        req["land_use_basis"] = basis
        if decided:
            req["text"] += f" (Land use from the {basis}.)"
        out.insert(next((i for i, r in enumerate(out) if r["group"] == "orw"), len(out)), req)
    return out


def _waters_by_group(impaired: Sequence[dict[str, Any]], orw: Sequence[dict[str, Any]]
                     ) -> tuple[dict[str, list[str]], dict[str, list[str]], list[str]]:
    """The waters (and causes) behind each requirement group, and the TMDLs named, in order."""
    waters_by_group: dict[str, list[str]] = {}
    causes_by_group: dict[str, list[str]] = {}
    tmdls: list[str] = []

    def add(group: str, label: str, cause: str | None = None) -> None:
        waters = waters_by_group.setdefault(group, [])
        if label not in waters:
            waters.append(label)
        if cause:
            causes = causes_by_group.setdefault(group, [])
            if cause not in causes:
                causes.append(cause)

    for au in impaired:
        label = _label(au.get("name"), au.get("au_id"))
        add("listed", label)
        # category 4A means an approved TMDL even where the TMDL column is empty
        tmdl = _tmdl(au.get("tmdl"), str(impaired_category(au.get("category") or "")[0]))
        if tmdl:
            add("tmdl", label)
            if tmdl not in tmdls:
                tmdls.append(tmdl)
        for cause in au.get("causes") or []:
            add(cause_group(cause), label, cause)
    for water in orw:
        add("orw", _label(water.get("name"), water.get("id")))
    return waters_by_group, causes_by_group, tmdls


def _requirement(group, row, waters, causes, tmdls, conditional, *, basis: str = ""
                 ) -> dict[str, Any]:
    text = row["text"].format(waters=", ".join(waters), tmdls="; ".join(tmdls),
                              causes=", ".join(causes) or "Listed")
    if conditional:
        known = f" {basis[0].upper()}{basis[1:]}." if basis and "existing use" in basis else ""
        text += (" Applies if the proposed use is commercial or industrial (no proposed use "
                 f"given).{known}")
    return {"section": row["section"], "text": text, "group": group, "waters": list(waters),
            "conditional": bool(conditional)}


def _label(name: Any, ident: Any) -> str:
    name, ident = text_or_none(name), text_or_none(ident)
    if name and ident and name != ident:
        return f"{name} ({ident})"
    return name or ident or "unnamed"


# --------------------------------------------------------------------------- trace
def trace_receiving_waters(
    site: gpd.GeoDataFrame | gpd.GeoSeries,
    *,
    dem: Raster | hy.FlowGrid | None,
    streams: gpd.GeoDataFrame | None,
    waterbodies: gpd.GeoDataFrame | None,
    orw: gpd.GeoDataFrame | None,
    impaired: gpd.GeoDataFrame | None,
    vernal_pools: gpd.GeoDataFrame | None = None,
    use_codes: Iterable[Any] | None = None,
    proposed_use: str | None = None,
    boundary: shapely.Geometry | None = None,
    tolerance_ft: float = 10.0,
    requirements: Mapping[str, Mapping[str, str]] | None = None,
) -> dict[str, Any]:
    """Trace the site's runoff downstream and report the ORWs and impaired waters it reaches.

    Parameters
    ----------
    site
        Limit of disturbance polygon(s) in the working (projected) CRS.
    dem
        Elevation :class:`~swm_gis.raster.Raster` (or a ready :class:`~swm_gis.terrain.FlowGrid`)
        covering the site and the land downhill of it; ``None``: nearest-stream fallback.
    streams, waterbodies
        Stream lines digitised in flow direction (``id``, ``name`` optional) and pond/lake
        polygons (``name``), in the site's CRS.
    orw, impaired
        Outstanding Resource Waters (``id``, ``name``) and MassDEP assessment units (``id``,
        ``name``, ``category``, ``causes`` ";"-separated, ``tmdl``), lines or polygons.
    vernal_pools
        Certified vernal pools (``id``; points or polygons): ORWs by Chapter 320's definition,
        reported among ``orw`` with ``vernal_pool: True`` when the flow passes within
        ``tolerance_ft`` of one.
    use_codes, proposed_use
        DOR use codes of the site's parcels and the proposed use (for § 320-19 B(10)(e), see
        :func:`land_use`); ``None`` if unknown.
    boundary
        Town boundary polygon: the trace stops where the flow leaves it.
    tolerance_ft
        How close a line must run to count as the same water (digitising differences).
    requirements
        The regulation applied's requirement rows by group (see :func:`requirements_for`);
        default: the default profile's.

    Returns
    -------
    dict
        ``method`` ("dem" | "nearest-stream (approximate)"), ``approximate``, ``orw``
        [{id, name, flow_distance_ft}], ``impaired`` [{au_id, name, category, causes[], tmdl,
        flow_distance_ft}], ``requirements`` [{section, text, ...}], ``downstream`` (every water
        met, in flow order: {type, id, name, flow_distance_ft}), ``stopped_at_boundary``,
        ``trace_end`` [{reason, x, y, message}] (where the trace left the data: ``boundary``,
        ``dem_edge``, ``network_end``, ``no_water_reached``; empty when every branch ended in a
        water body without an outlet), ``warnings`` [{problem, message}] and ``flow_path``
        (GeoDataFrame of the legs).
    """
    require_crs(site, what="site")
    crs = site.crs
    ft = feet_per_unit(crs)
    geom = shapely.union_all(site.geometry.values if isinstance(site, gpd.GeoDataFrame)
                             else site.values)
    tol = tolerance_ft / ft
    flow = hy.flow_directions(dem) if isinstance(dem, Raster) else dem
    network = hy.stream_network(streams, waterbodies, tolerance_ft=min(tolerance_ft, 3.0),
                                flow=flow)
    hy.require_network(network)
    # digitisation problems outside the town (e.g. where a clipped layer ends) are not the town's
    warnings = [w for w in network.warnings if boundary is None or "x" not in w
                or shapely.intersects(boundary, shapely.Point(w["x"], w["y"]))]
    entries, method, approximate, water = _entries(flow, geom, network, warnings)
    legs: list[hy.Leg] = []
    stopped = False
    for entry in entries:
        got, stop = hy.downstream_legs(network, entry, boundary=boundary)
        legs += got
        stopped |= stop
    legs.sort(key=lambda leg: (leg.from_measure, leg.to_measure))

    # with a DEM, a water off the network is met overland by the cells of the D8 paths of the
    # site's cells (the applicability map's rule); along the network by the legs
    net_legs = [leg for leg in legs if flow is None or leg.kind != "overland"]
    imp_rows = _impaired_rows(impaired)
    starts = flow.cells_of(geom) if flow is not None else None
    orw_hits = _met(net_legs, orw, tol, flow, starts, water)
    imp_hits = _met(net_legs, imp_rows, tol, flow, starts, water)
    wb_hits = hy.waters_along(legs, network.waterbodies, tolerance=tol)

    orw_out = [
        {"id": plain_value(orw.iloc[k].get("id")), "name": text_or_none(orw.iloc[k].get("name")),
         "flow_distance_ft": round(m * ft, 1)}
        for k, m in sorted(orw_hits.items(), key=lambda kv: kv[1])
    ]
    # pools on the network within the tolerance of the flow; overland, on a cell's D8 path
    on_network = _pools_reached(net_legs, vernal_pools, tol, ft)
    overland_pools = _pools_overland(flow, starts, water, vernal_pools, ft) \
        if flow is not None else []
    seen = {o["id"] for o in on_network}
    orw_out = sorted(orw_out + on_network + [o for o in overland_pools if o["id"] not in seen],
                     key=lambda o: o["flow_distance_ft"])
    imp_out = _impaired_found(imp_hits, imp_rows, ft)
    downstream = _downstream_list(network, legs, wb_hits, orw_out, imp_out, ft)
    return {
        "method": method,
        "approximate": approximate,
        "orw": orw_out,
        "impaired": imp_out,
        "requirements": requirements_for(imp_out, orw_out, use_codes=use_codes,
                                         proposed_use=proposed_use, table=requirements),
        "downstream": downstream,
        "stopped_at_boundary": stopped,
        "trace_end": trace_ends(network, legs, warnings, entries=len(entries),
                                boundary=boundary if stopped else None, ft=ft),
        "warnings": warnings,
        "flow_path": hy.legs_frame(network, legs, crs),
    }


def _entries(flow, geom, network, warnings: list[dict[str, Any]]):
    """Where the site's runoff enters the network: by the DEM's overland flow, or (no DEM) at
    the nearest stream. Returns (entries, method, approximate, the DEM's water cells or None);
    the trace's warnings are added to ``warnings``."""
    if flow is not None:
        water = hy.water_cells(flow, network)
        entries, w = hy.trace_overland(flow, geom, network, water=water)
        warnings += w
        return entries, "dem", False, water
    entry = hy.nearest_entry(geom, network)
    warnings.append({"problem": "no_dem", "message": (
        "No DEM: the runoff was taken to the nearest mapped stream or water body in a "
        "straight line; the receiving waters are approximate. Configure the town's DEM layer "
        "for a flow trace.")})
    return [entry] if entry is not None else [], "nearest-stream (approximate)", True, None


def _met(legs: list[hy.Leg], features: gpd.GeoDataFrame | None, tol: float, flow, starts,
         water) -> dict[int, float]:
    """``{row: measure}`` of the features the flow meets: along the legs, and (with a DEM) the
    polygons off the mapped water whose cells lie on a site cell's D8 path
    (:func:`swm_gis.terrain.feature_cells`, :func:`swm_gis.terrain.features_met_overland`)."""
    if features is None or features.empty:
        return {}
    found = hy.waters_along(legs, features, tolerance=tol)
    if flow is not None:
        cells, rows = hy.feature_cells(flow, features.geometry.values.to_numpy())
        for k, d in hy.features_met_overland(flow, starts, water, cells, rows).items():
            found[k] = min(found.get(k, d), d)
    return found


def _impaired_found(imp_hits, imp_rows, ft: float) -> list[dict[str, Any]]:
    """The impaired assessment units met, in flow order."""
    imp_out = []
    for k, m in sorted(imp_hits.items(), key=lambda kv: kv[1]):
        row = imp_rows.iloc[k]
        imp_out.append({
            "au_id": text_or_none(row.get("id")), "name": text_or_none(row.get("name")),
            "category": row["category_norm"], "causes": split_causes(row.get("causes")),
            "tmdl": _tmdl(row.get("tmdl"), row["category_norm"]),
            "flow_distance_ft": round(m * ft, 1),
        })
    return imp_out


def _pools_overland(flow: hy.FlowGrid, starts: np.ndarray, water: np.ndarray,
                    pools: gpd.GeoDataFrame | None, ft: float) -> list[dict[str, Any]]:
    """Certified vernal pools on the overland flow of any cell of the site: the pool's cell
    (:func:`swm_gis.terrain.feature_cells`) lies on the cell's D8 path before it meets mapped
    water (:func:`swm_gis.terrain.features_met_overland`), the applicability map's rule."""
    if pools is None or pools.empty:
        return []
    cells, rows = hy.feature_cells(flow, pools.geometry.values.to_numpy(), areas=False)
    found = hy.features_met_overland(flow, starts, water, cells, rows)
    return [{"id": plain_value(pools.iloc[k].get("id")),
             "name": f"Certified Vernal Pool {text_or_none(pools.iloc[k].get('id')) or ''}".strip(),
             "flow_distance_ft": round(d * ft, 1), "vernal_pool": True}
            for k, d in sorted(found.items(), key=lambda kv: kv[1])]


def _pools_reached(legs: list[hy.Leg], pools: gpd.GeoDataFrame | None, tol: float,
                   ft: float) -> list[dict[str, Any]]:
    """Certified vernal pools the flow passes within ``tol`` of: ORWs by Chapter 320's definition.

    A pool mapped as a point (NHESP CVP_PT) is reached when a leg passes within the tolerance of
    the point; a polygon when a leg enters it or reaches its edge.
    """
    if pools is None or pools.empty or not legs:
        return []
    geoms = pools.geometry.values
    tree = shapely.STRtree(geoms)
    found: dict[int, float] = {}
    for leg in legs:
        for k in tree.query(leg.geometry, predicate="dwithin", distance=tol).tolist():
            near = shapely.get_point(shapely.shortest_line(leg.geometry, geoms[k]), 0)
            m = leg.from_measure + float(shapely.line_locate_point(leg.geometry, near))
            found[k] = min(found.get(k, m), m)
    return [{"id": plain_value(pools.iloc[k].get("id")),
             "name": f"Certified Vernal Pool {text_or_none(pools.iloc[k].get('id')) or ''}".strip(),
             "flow_distance_ft": round(m * ft, 1), "vernal_pool": True}
            for k, m in sorted(found.items(), key=lambda kv: kv[1])]


def trace_ends(network: hy.StreamNetwork, legs: list[hy.Leg], warnings: list[dict[str, Any]],
               *, entries: int, boundary: shapely.Geometry | None, ft: float
               ) -> list[dict[str, Any]]:
    """Where the trace left the data, each with its reason, place (CRS units) and message.

    ``boundary`` (given only when the trace was cut there): a stream leg that ends short of its
    reach's end was cut at the town line. A reach with nothing downstream is the end of the
    mapped network (the water flows on, unmapped). A DEM trace that reached no water left the
    DEM (or a closed low point). A pond without an outlet is a real end and is not listed.
    """
    out: list[dict[str, Any]] = []
    lines = network.reaches.geometry.values
    for leg in legs:
        if leg.kind != "stream" or leg.node is None or leg.geometry is None:
            continue
        line = lines[leg.node[1]]
        leg_end = shapely.get_point(leg.geometry, -1)
        line_end = shapely.get_point(line, -1)
        if boundary is not None and shapely.distance(leg_end, line_end) > network.tolerance:
            out.append(_end("boundary", leg_end, ft, leg, network))
        elif not network.downstream.get(leg.node):
            out.append(_end("network_end", line_end, ft, leg, network))
    for w in warnings:
        if w.get("problem") == "no_water_reached":
            m = re.search(r"at (-?\d+), (-?\d+)", w.get("message", ""))
            out.append({"reason": "dem_edge", "x": float(m.group(1)) if m else None,
                        "y": float(m.group(2)) if m else None, "message": w["message"] + (
                            " The flow leaves the DEM there; a DEM reaching further downhill "
                            "would carry the trace on.")})
    if not entries and not out:
        out.append({"reason": "no_water_reached", "x": None, "y": None, "message": (
            "The runoff reached no mapped stream or water body; configure a streams layer "
            "and a DEM covering the land downhill of the site.")})
    return out


def _end(reason: str, point: shapely.Point, ft: float, leg: hy.Leg,
         network: hy.StreamNetwork) -> dict[str, Any]:
    info = network.describe(leg.node)
    name = info.get("name") or info.get("id") or "a mapped stream"
    x, y = float(point.x), float(point.y)
    at = f"{leg.to_measure * ft:,.0f} ft downstream of the site, at ({x:.0f}, {y:.0f})"
    if reason == "boundary":
        text = (f"The trace stopped where {name} leaves the town, {at}: it stops at the town "
                "line (the town boundary layer), so waters downstream of it were not searched. "
                f"{TRIBUTARIES}: check the MassDEP Integrated List (and the ORWs) downstream of "
                "that point.")
    else:
        text = (f"The mapped stream network ends on {name}, {at}: the water downstream is not "
                "in the streams layer. A streams layer that continues downstream would carry the "
                "trace on.")
    return {"reason": reason, "x": round(x, 1), "y": round(y, 1), "message": text}


def _impaired_rows(impaired: gpd.GeoDataFrame | None) -> gpd.GeoDataFrame | None:
    if impaired is None or impaired.empty:
        return None
    keep = is_impaired(impaired["category"].to_numpy())
    out = impaired.loc[keep].copy()
    out["category_norm"] = impaired_category(impaired["category"].to_numpy())[keep].to_numpy()
    return out.reset_index(drop=True)


def _tmdl(value: Any, category: str) -> str | None:
    text = text_or_none(value)
    if text is not None and text.strip().upper() not in _NO_TMDL:
        return text.strip()
    return "approved TMDL (category 4A)" if category.startswith("4A") else None


def _downstream_list(network, legs, wb_hits, orw_out, imp_out, ft) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    seen: set[tuple] = set()
    for leg in legs:
        if leg.kind == "stream" and leg.node is not None:
            key = ("stream", leg.node)
            if key not in seen:
                seen.add(key)
                items.append({**network.describe(leg.node),
                              "flow_distance_ft": round(leg.from_measure * ft, 1)})
    for k, m in wb_hits.items():
        items.append({**network.describe(("w", k)), "flow_distance_ft": round(m * ft, 1)})
    items += [{"type": "orw", "id": o["id"], "name": o["name"],
               "flow_distance_ft": o["flow_distance_ft"]} for o in orw_out]
    items += [{"type": "impaired", "id": a["au_id"], "name": a["name"],
               "flow_distance_ft": a["flow_distance_ft"]} for a in imp_out]
    items.sort(key=lambda it: it["flow_distance_ft"])
    return items

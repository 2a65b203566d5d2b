"""Receiving waters: where a site's runoff goes, and the Chapter 320 duties the waters bring.

:func:`trace_receiving_waters` follows the runoff from the site down the DEM (D8 with depression
filling, :mod:`swm_gis.hydrology`) to the first mapped stream or water body, then down the stream
network (digitised direction, through ponds) to the town boundary or the network's end, and
reports every Outstanding Resource Water and every impaired assessment unit (Integrated List
category 4A with a TMDL, 4B or 5) the flow meets, with the flow distance in feet. A water that is
near but upslope is never met, because nothing flows to it. Without a DEM it falls back to the
nearest stream and marks the result approximate.

:func:`requirements_for` turns what was met into the § 320-19 B(10) requirements through two
tables in ``swm_gis/tables``: ``impairment_causes.csv`` maps MassDEP cause wording to a pollutant
group, ``pollutant_requirements.csv`` maps each group to its clause and text.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from importlib import resources as ilr
from typing import Any

import geopandas as gpd
import numpy as np
import pandas as pd
import shapely

from swm_gis import hydrology as hy
from swm_gis.errors import CrsError
from swm_gis.floodplain import feet_per_unit
from swm_gis.raster import Raster

IMPAIRED_CATEGORIES = ("4A", "4B", "5")
_NO_TMDL = {"", "N", "NO", "NONE", "0", "FALSE", "NA", "N/A"}
_SPILL_GROUPS = ("solids", "metals", "oil_grease")


# --------------------------------------------------------------------------- tables
@lru_cache(maxsize=1)
def cause_table() -> tuple[tuple[re.Pattern[str], str], ...]:
    """``impairment_causes.csv`` as (compiled pattern, group) pairs, in file order."""
    text = ilr.files("swm_gis").joinpath("tables/impairment_causes.csv").read_text("utf-8")
    rows = csv.DictReader(line for line in text.splitlines() if not line.startswith("#"))
    return tuple((re.compile(r["pattern"], re.IGNORECASE), r["group"]) for r in rows)


@lru_cache(maxsize=1)
def requirement_table() -> dict[str, dict[str, str]]:
    """``pollutant_requirements.csv``: group -> {section, condition, text}."""
    text = ilr.files("swm_gis").joinpath("tables/pollutant_requirements.csv").read_text("utf-8")
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


# --------------------------------------------------------------------------- requirements
def requirements_for(
    impaired: Sequence[dict[str, Any]],
    orw: Sequence[dict[str, Any]],
    *,
    use_codes: Iterable[Any] | None = None,
) -> list[dict[str, Any]]:
    """Chapter 320 requirements brought by the impaired waters and ORWs met downstream.

    ``impaired`` items need ``au_id``, ``name``, ``category``, ``causes`` (list) and ``tmdl``;
    ``orw`` items ``id`` and ``name``. ``use_codes`` are the site parcels' DOR use codes; the
    solids / metals / oil and grease clause applies only on commercial or industrial land, and
    is given as conditional when the use codes are unknown (``None``).

    Returns ``[{section, text, group, waters[], conditional}]`` in table order.
    """
    table = requirement_table()
    codes = None if use_codes is None else [c for c in use_codes if c not in (None, "")]
    commercial = None if not codes else any(is_commercial_industrial(c) for c in codes)
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
        if au.get("tmdl"):
            add("tmdl", label)
            if au["tmdl"] not in tmdls:
                tmdls.append(str(au["tmdl"]))
        for cause in au.get("causes") or []:
            add(cause_group(cause), label, cause)
    for water in orw:
        add("orw", _label(water.get("name"), water.get("id")))

    out: list[dict[str, Any]] = []
    spill_waters: list[str] = []
    spill_causes: list[str] = []
    for group, row in table.items():
        if group not in waters_by_group:
            continue
        if group in _SPILL_GROUPS:
            spill_waters += [w for w in waters_by_group[group] if w not in spill_waters]
            spill_causes += [c for c in causes_by_group.get(group, []) if c not in spill_causes]
            continue
        out.append(_requirement(group, row, waters_by_group[group], [], tmdls, False))
    if spill_waters and commercial is not False:
        row = table[next(g for g in _SPILL_GROUPS if g in waters_by_group)]
        req = _requirement("solids_metals_oil", row, spill_waters, spill_causes, tmdls,
                           commercial is None)
        out.insert(next((i for i, r in enumerate(out) if r["group"] == "orw"), len(out)), req)
    return out


def _requirement(group, row, waters, causes, tmdls, conditional) -> dict[str, Any]:
    text = row["text"].format(waters=", ".join(waters), tmdls="; ".join(tmdls),
                              causes=", ".join(causes) or "Listed")
    if conditional:
        text += (" Applies if the site is on commercial or industrial land (the parcels' use "
                 "codes were not available).")
    return {"section": row["section"], "text": text, "group": group, "waters": list(waters),
            "conditional": bool(conditional)}


def _label(name: Any, ident: Any) -> str:
    name, ident = hy._text(name), hy._text(ident)
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
    use_codes: Iterable[Any] | None = None,
    boundary: shapely.Geometry | None = None,
    tolerance_ft: float = 10.0,
) -> dict[str, Any]:
    """Trace the site's runoff downstream and report the ORWs and impaired waters it reaches.

    Parameters
    ----------
    site
        Limit of disturbance polygon(s) in the working (projected) CRS.
    dem
        Elevation :class:`~swm_gis.layers.Raster` (or a ready :class:`~swm_gis.hydrology.FlowGrid`)
        covering the site and the land downhill of it; ``None``: nearest-stream fallback.
    streams, waterbodies
        Stream lines digitised in flow direction (``id``, ``name`` optional) and pond/lake
        polygons (``name``), in the site's CRS.
    orw, impaired
        Outstanding Resource Waters (``id``, ``name``) and MassDEP assessment units (``id``,
        ``name``, ``category``, ``causes`` ";"-separated, ``tmdl``), lines or polygons.
    use_codes
        DOR use codes of the site's parcels (for § 320-19 B(10)(e)); ``None`` if unknown.
    boundary
        Town boundary polygon: the trace stops where the flow leaves it.
    tolerance_ft
        How close a line must run to count as the same water (digitising differences).

    Returns
    -------
    dict
        ``method`` ("dem" | "nearest-stream (approximate)"), ``approximate``, ``orw``
        [{id, name, flow_distance_ft}], ``impaired`` [{au_id, name, category, causes[], tmdl,
        flow_distance_ft}], ``requirements`` [{section, text, ...}], ``downstream`` (every water
        met, in flow order: {type, id, name, flow_distance_ft}), ``stopped_at_boundary``,
        ``warnings`` [{problem, message}] and ``flow_path`` (GeoDataFrame of the legs).
    """
    if site.crs is None:
        raise CrsError("The site has no coordinate reference system; set one (e.g. EPSG:26986).")
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
    if flow is not None:
        entries, w = hy.trace_overland(flow, geom, network)
        warnings += w
        method, approximate = "dem", False
    else:
        entry = hy.nearest_entry(geom, network)
        entries = [entry] if entry is not None else []
        method, approximate = "nearest-stream (approximate)", True
        warnings.append({"problem": "no_dem", "message": (
            "No DEM: the runoff was taken to the nearest mapped stream or water body in a "
            "straight line; the receiving waters are approximate. Configure [layers.dem] for a "
            "flow trace.")})
    legs: list[hy.Leg] = []
    stopped = False
    for entry in entries:
        got, stop = hy.downstream_legs(network, entry, boundary=boundary)
        legs += got
        stopped |= stop
    legs.sort(key=lambda leg: (leg.from_measure, leg.to_measure))

    orw_hits = hy.waters_along(legs, orw, tolerance=tol) if orw is not None else {}
    imp_rows = _impaired_rows(impaired)
    imp_hits = hy.waters_along(legs, imp_rows, tolerance=tol) if imp_rows is not None else {}
    wb_hits = hy.waters_along(legs, network.waterbodies, tolerance=tol)

    orw_out = [
        {"id": hy._plain(orw.iloc[k].get("id")), "name": hy._text(orw.iloc[k].get("name")),
         "flow_distance_ft": round(m * ft, 1)}
        for k, m in sorted(orw_hits.items(), key=lambda kv: kv[1])
    ]
    imp_out = []
    for k, m in sorted(imp_hits.items(), key=lambda kv: kv[1]):
        row = imp_rows.iloc[k]
        imp_out.append({
            "au_id": hy._text(row.get("id")), "name": hy._text(row.get("name")),
            "category": row["category_norm"], "causes": split_causes(row.get("causes")),
            "tmdl": _tmdl(row.get("tmdl"), row["category_norm"]),
            "flow_distance_ft": round(m * ft, 1),
        })
    downstream = _downstream_list(network, legs, wb_hits, orw_out, imp_out, ft)
    return {
        "method": method,
        "approximate": approximate,
        "orw": orw_out,
        "impaired": imp_out,
        "requirements": requirements_for(imp_out, orw_out, use_codes=use_codes),
        "downstream": downstream,
        "stopped_at_boundary": stopped,
        "warnings": warnings,
        "flow_path": hy.legs_frame(network, legs, crs),
    }


def _impaired_rows(impaired: gpd.GeoDataFrame | None) -> gpd.GeoDataFrame | None:
    if impaired is None or impaired.empty:
        return None
    keep = is_impaired(impaired["category"].to_numpy())
    out = impaired.loc[keep].copy()
    out["category_norm"] = impaired_category(impaired["category"].to_numpy())[keep].to_numpy()
    return out.reset_index(drop=True)


def _tmdl(value: Any, category: str) -> str | None:
    text = hy._text(value)
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

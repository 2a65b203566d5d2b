"""USGS watersheds of a site (HUC12 / HUC10, with area shares) and off-site mitigation eligibility.

§ 320-19 B(7)(d) allows off-site mitigation for new development only within the same USGS HUC12
as the site; B(8)(d) allows it for redevelopment within the same HUC10. A mitigation site is
eligible when it lies in a HUC of the required level that contains part of the project site.

Examples
--------
>>> import geopandas as gpd
>>> from shapely.geometry import box, Point
>>> hucs = gpd.GeoDataFrame({"huc": ["010700020101", "010700020102"], "name": ["West", "East"]},
...                         geometry=[box(0, 0, 1000, 1000), box(1000, 0, 2000, 1000)],
...                         crs="EPSG:26986")
>>> site = gpd.GeoDataFrame(geometry=[box(900, 100, 1000, 200)], crs="EPSG:26986")
>>> watershed_shares(site, huc12=hucs, huc10=None)["huc12"]
[{'huc': '010700020101', 'name': 'West', 'share': 1.0, 'area_sqft': 107639.1}]
>>> mit = gpd.GeoDataFrame({"id": ["M1"]}, geometry=[Point(1500, 500)], crs="EPSG:26986")
>>> [m["eligible"] for m in mitigation_eligibility(mit, hucs=hucs, site_hucs=["010700020101"],
...                                               level="HUC12")]
[False]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import geopandas as gpd
import numpy as np
import shapely

from swm_gis.rules.citations import RuleCitations, default_citations
from swm_gis.rules.disturbance import sqft_per_crs_unit2, union_polygons
from swm_gis.units import require_crs


def watershed_shares(
    site: gpd.GeoDataFrame,
    *,
    huc12: gpd.GeoDataFrame | None,
    huc10: gpd.GeoDataFrame | None,
    sources: Mapping[str, Mapping[str, Any] | None] | None = None,
    citations: RuleCitations | None = None,
) -> dict[str, Any]:
    """The HUC12 and HUC10 watersheds the site lies in, each with its share of the site's area.

    Parameters
    ----------
    site
        Limit-of-disturbance polygon(s) in a projected CRS.
    huc12, huc10
        Watershed polygons with logical fields ``huc`` and ``name`` in the site's CRS, or None
        when the layer is not configured (that level is then an empty list).
    sources
        The source record of each layer by level (``"huc12"``, ``"huc10"``;
        :func:`swm_gis.io.sources.source_info`), whose file a reason names. Default: none.
    citations
        What the sections and reasons cite (:func:`swm_gis.rules.citations.rule_citations` of
        the regulation applied: each type's off-site mitigation). Default: the default
        profile's.

    Returns
    -------
    dict
        ``huc12`` and ``huc10``: lists of ``{huc, name, share, area_sqft}`` (largest share first;
        polygons sharing a code count as one watershed), ``reasons`` and ``section``.

        A given HUC layer with no polygon overlapping the site (it does not cover the site)
        leaves that level's list empty and is named in ``not_covered`` (e.g. ``["huc12"]``),
        with a reason: that check is not checked, never a refusal of the site.
    """
    site_union = union_polygons(site, what="site")
    factor = sqft_per_crs_unit2(site.crs)
    total = float(site_union.area)
    out: dict[str, Any] = {"huc12": [], "huc10": []}
    reasons = []
    for level, frame in (("huc12", huc12), ("huc10", huc10)):
        if frame is None:
            reasons.append(f"No {level.upper()} layer is configured; the site's {level.upper()} "
                           "is unknown.")
            continue
        rows = _shares(site_union, frame, total, factor, width=int(level[3:]))
        if not rows:  # the layer does not cover the site: that level is not checked
            src = _source_text((sources or {}).get(level))
            out.setdefault("not_covered", []).append(level)
            reasons.append(f"The site lies outside every {level.upper()} watershed polygon of "
                           f"{src}: the layer does not cover it, so the site's "
                           f"{level.upper()} is not checked.")
            continue
        out[level] = rows
        covered = sum(r["share"] for r in rows)
        names = ", ".join(r["huc"] + (f" {r['name']}" if r["name"] else "")
                          + f" ({r['share']:.1%} of the site)" for r in rows)
        reasons.append(f"The site lies in {level.upper()} {names}.")
        if covered < 0.999:
            reasons.append(f"{1 - covered:.1%} of the site lies outside every {level.upper()} "
                           "polygon of the layer.")
    out["reasons"] = reasons
    cite = citations or default_citations()
    out["section"] = f"{cite.mitigation_both(' and ')} (USGS HUC12 / HUC10)"
    return out


def mitigation_eligibility(
    mitigation: gpd.GeoDataFrame,
    *,
    hucs: gpd.GeoDataFrame | None,
    site_hucs: Iterable[str],
    level: str,
    citations: RuleCitations | None = None,
) -> list[dict[str, Any]]:
    """For each proposed off-site mitigation feature: its HUC and whether it is eligible.

    Parameters
    ----------
    mitigation
        Mitigation sites (polygons, points or lines) in the CRS of ``hucs``. Their ``id`` column
        (else ``name``, else the row number from 1) identifies them.
    hucs
        Watershed polygons of the required ``level`` with logical fields ``huc`` and ``name``;
        None when that layer is not configured (nothing can be eligible then).
    site_hucs
        Codes of the ``level`` watersheds that contain part of the site.
    level
        ``"HUC12"`` (new development) or ``"HUC10"`` (redevelopment).
    citations
        What the sections and reasons cite (:func:`swm_gis.rules.citations.rule_citations` of
        the regulation applied: each type's off-site mitigation). Default: the default
        profile's.

    Returns
    -------
    list of dict
        ``{id, huc, huc_name, eligible, reason, section, huc_share}`` in input order; ``huc`` is
        the watershed holding the largest part of the feature (None when outside every one).
    """
    require_crs(mitigation, what="mitigation sites")
    if hucs is not None:
        require_crs(hucs, what=f"{level.upper()} layer")
    level = level.upper()
    section = (citations or default_citations()).mitigation_of(level)
    site_set = {str(h) for h in site_hucs}
    ids = _feature_ids(mitigation)
    geoms = mitigation.geometry.values
    results = []
    if hucs is None:
        for fid in ids:
            results.append({"id": fid, "huc": None, "huc_name": None, "eligible": False,
                            "huc_share": None, "section": section,
                            "reason": f"No {level} layer is configured, so eligibility cannot be "
                                      "decided."})
        return results
    if hucs.crs is not None and mitigation.crs is not None and not hucs.crs.equals(mitigation.crs):
        geoms = mitigation.to_crs(hucs.crs).geometry.values
    width = int(level[3:]) if level[3:].isdigit() else 0
    hucs = hucs.assign(huc=huc_codes(hucs["huc"], width=width))
    hucs = hucs[hucs["huc"].notna().to_numpy()]  # a polygon without a code: no watershed
    huc_geoms = hucs.geometry.values
    tree = shapely.STRtree(huc_geoms)
    site_text = ", ".join(sorted(site_set)) or "none"
    for fid, geom in zip(ids, geoms, strict=True):
        huc, name, share = _dominant_huc(geom, tree, hucs)
        if huc is None:
            results.append({"id": fid, "huc": None, "huc_name": None, "eligible": False,
                            "huc_share": None, "section": section,
                            "reason": f"The mitigation site lies outside every {level} polygon "
                                      f"of the layer; it must be within the site's {level} "
                                      f"({site_text})."})
            continue
        eligible = huc in site_set
        part = "" if share >= 0.9995 else f" ({share:.1%} of it; the rest lies in other {level}s)"
        if eligible:
            reason = (f"Eligible: the mitigation site lies in {level} {huc}{part}, which contains "
                      f"part of the project site; {section} allows off-site mitigation within "
                      f"the same {level}.")
        else:
            reason = (f"Not eligible: the mitigation site lies in {level} {huc}{part}, but the "
                      f"project site lies in {level} {site_text}; {section} allows off-site "
                      f"mitigation only within the same {level}.")
        results.append({"id": fid, "huc": huc, "huc_name": name, "eligible": bool(eligible),
                        "huc_share": round(share, 4), "section": section, "reason": reason})
    return results


def _shares(site_union: shapely.Geometry, frame: gpd.GeoDataFrame, total: float,
            factor: float, *, width: int) -> list[dict[str, Any]]:
    geoms = frame.geometry.values
    tree = shapely.STRtree(geoms)
    idx = tree.query(site_union, predicate="intersects")
    if len(idx) == 0:
        return []
    areas = shapely.area(shapely.intersection(geoms[idx], site_union))
    part = frame.iloc[idx]
    by_huc: dict[str, dict[str, Any]] = {}
    for key, name, area in zip(huc_codes(part["huc"], width=width), part["name"], areas,
                               strict=True):
        if key is None:  # a polygon without a code names no watershed (as in the map)
            continue
        row = by_huc.setdefault(key, {"huc": key, "name": _text(name), "area": 0.0})
        row["area"] += float(area)
    rows = [
        {"huc": r["huc"], "name": r["name"], "share": round(r["area"] / total, 4),
         "area_sqft": round(r["area"] * factor, 1)}
        for r in by_huc.values() if r["area"] > 0
    ]
    return sorted(rows, key=lambda r: (-r["share"], r["huc"]))


def _dominant_huc(geom: shapely.Geometry, tree: shapely.STRtree, hucs: gpd.GeoDataFrame
                  ) -> tuple[str | None, str | None, float]:
    """The HUC holding the largest part of a feature (area, else length, else the point)."""
    if geom is None or shapely.is_empty(geom):
        return None, None, 0.0
    idx = tree.query(geom, predicate="intersects")
    if len(idx) == 0:
        return None, None, 0.0
    parts = shapely.intersection(hucs.geometry.values[idx], geom)
    dim = shapely.get_dimensions(geom)
    if dim == 2:
        size, whole = shapely.area(parts), geom.area
    elif dim == 1:
        size, whole = shapely.length(parts), geom.length
    else:
        size, whole = np.ones(len(idx)), float(len(idx))
    sub = hucs.iloc[idx].assign(_size=size)
    grouped = sub.groupby(sub["huc"].astype(str), sort=True)["_size"].sum()
    best = grouped.idxmax()
    name = _text(sub.loc[sub["huc"].astype(str) == best, "name"].iloc[0])
    share = float(grouped[best] / whole) if whole else 0.0
    return best, name, min(share, 1.0)


def huc_codes(values: Iterable[Any], *, width: int) -> list[str | None]:
    """:func:`huc_code` of each value; None for a missing one (the map's and the screening's
    one reading of a HUC layer's codes).

    >>> huc_codes([10700020101, "010700020102 ", None, 10700020103.0], width=12)
    ['010700020101', '010700020102', None, '010700020103']
    """
    return [None if _text(v) is None else huc_code(v, width=width) for v in values]


def huc_names(frame: gpd.GeoDataFrame, *, width: int) -> dict[str, str | None]:
    """Each code's name (:func:`huc_codes`), from the first polygon carrying the code, as the
    screening's shares name a watershed; empty without a ``name`` column."""
    if "name" not in frame:
        return {}
    names: dict[str, str | None] = {}
    for code, name in zip(huc_codes(frame["huc"], width=width), frame["name"], strict=True):
        if code is not None:
            names.setdefault(code, _text(name))
    return names


def huc_code(value: Any, *, width: int) -> str:
    """A HUC code as text; numbers that lost their leading zero (stored as integers) get it back.

    >>> huc_code(10700020101, width=12), huc_code("0107000201", width=10)
    ('010700020101', '0107000201')
    """
    text = str(value).strip()
    if text.endswith(".0") and text[:-2].isdigit():
        text = text[:-2]
    return text.zfill(width) if text.isdigit() and len(text) < width else text


def _feature_ids(frame: gpd.GeoDataFrame) -> list[str]:
    """Ids from the first of: ``id``, a field ending in ``_id`` (e.g. MIT_ID), ``name``."""
    lower = {str(c).lower(): c for c in frame.columns if c != frame.geometry.name}
    col = lower.get("id") or next((c for k, c in lower.items() if k.endswith("_id")), None)
    col = col or lower.get("name")
    if col is None:
        return [str(i + 1) for i in range(len(frame))]
    return [str(v) if v is not None and v == v else str(i + 1)
            for i, v in enumerate(frame[col])]


def _text(value: Any) -> str | None:
    if value is None or (isinstance(value, float) and value != value):
        return None
    return str(value)


def _source_text(source: Mapping[str, Any] | None) -> str:
    src = source or {}
    if src.get("label"):  # how the config names it (a front end's copy: never its path)
        return str(src["label"])
    if src.get("file"):
        return src["file"] + (f":{src['layer']}" if src.get("layer") else "")
    return "the layer"


__all__ = ["huc_code", "huc_codes", "huc_names", "mitigation_eligibility", "watershed_shares"]

"""Floodplain rules: which FEMA flood zones make up the Special Flood Hazard Area and how much
of a site or parcel lies in it (docs/findings.md; Chapter 320 § 320-19 A(8): delineate the
100-year floodplain; § 320-20 A(3)(a): the 100-year flood elevation from the latest FIRM).

The site/parcel overlap checks build on :func:`sfha_mask`; it is the one place the SFHA rule lives.
Areas are exact polygon intersections in the working CRS, reported in square feet.
"""

from __future__ import annotations

from typing import Any

import geopandas as gpd
import numpy as np
import pandas as pd
import shapely
from pyproj import CRS

from swm_gis.config.town import Rules
from swm_gis.errors import CrsError, FieldMissingError
from swm_gis.messages import config_key
from swm_gis.units import M_PER_FT, feet_per_unit, require_crs  # noqa: F401

#: FEMA's "no value" for STATIC_BFE.
NO_BFE = -9999.0


def sfha_mask(zones: pd.DataFrame, *, rules: Rules | None = None) -> pd.Series:
    """True for flood-zone rows in the Special Flood Hazard Area (1%-annual-chance floodplain).

    ``SFHA_TF = 'T'`` decides where the field is present (non-null); otherwise the zone is in the
    A/V list (A, A1-A30, AE, AH, AO, A99, AR and AR/*, V, V1-V30, VE). Expects logical columns
    ``sfha`` and ``zone`` (see :data:`swm_gis.config.town.SCHEMAS`).

    >>> df = pd.DataFrame({"zone": ["AE", "X", "AR/AE", "A", "VE"],
    ...                    "sfha": [None, None, None, "F", "T"]})
    >>> sfha_mask(df).tolist()
    [True, False, True, False, True]
    """
    rules = rules or Rules()
    zone = zones["zone"].astype("string").str.strip().str.upper()
    by_zone = zone.isin(rules.sfha_zones) | zone.str.startswith("AR/")
    by_zone = by_zone.fillna(False).astype(bool)
    if "sfha" not in zones:
        return by_zone
    flag = zones["sfha"].astype("string").str.strip().str.upper()
    has_flag = flag.notna() & (flag != "")
    return pd.Series(by_zone.where(~has_flag, flag == "T"), index=zones.index).astype(bool)


# --------------------------------------------------------------------------- units


def _require_crs(frame: gpd.GeoDataFrame | gpd.GeoSeries, what: str) -> CRS:
    return require_crs(frame, what=what)


# --------------------------------------------------------------------------- overlap
def shaded_x_mask(zones: pd.DataFrame) -> pd.Series:
    """True for 0.2%-annual-chance ("shaded X", "500-year") rows.

    FEMA writes it as zone X with subtype "0.2 PCT ANNUAL CHANCE FLOOD HAZARD" (also "... IN
    COMBINATION WITH ..."), older maps as zone B or X500, and some city layers as the zone name
    itself.

    >>> df = pd.DataFrame({"zone": ["X", "X", "B", "0.2 PCT ANNUAL CHANCE FLOOD HAZARD", "AE"],
    ...                    "subtype": ["0.2 PCT ANNUAL CHANCE FLOOD HAZARD",
    ...                                "AREA OF MINIMAL FLOOD HAZARD", None, None, None]})
    >>> shaded_x_mask(df).tolist()
    [True, False, True, True, False]
    """
    zone = zones["zone"].astype("string").str.strip().str.upper().fillna("")
    sub = (zones["subtype"] if "subtype" in zones else pd.Series(None, index=zones.index))
    sub = sub.astype("string").str.strip().str.upper().fillna("")
    by_sub = (zone == "X") & sub.str.contains("0.2 PCT", regex=False)
    by_zone = zone.isin(["B", "X500", "X (SHADED)", "SHADED X"]) | zone.str.startswith("0.2 PCT")
    return pd.Series(by_sub | by_zone, index=zones.index).astype(bool)


def clean_bfe(value: object) -> float | None:
    """A static BFE in feet, or None for FEMA's -9999 / blanks / text that is not a number."""
    try:
        bfe = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    if not np.isfinite(bfe) or bfe <= NO_BFE + 0.5:
        return None
    return bfe


def floodplain_overlap(
    area: gpd.GeoDataFrame | gpd.GeoSeries,
    zones: gpd.GeoDataFrame,
    *,
    rules: Rules | None = None,
) -> dict[str, Any]:
    """How much of an area (a site, or parcels taken together) lies in the SFHA and shaded X.

    Parameters
    ----------
    area
        Polygon(s) in a projected CRS; their union is measured (no double counting).
    zones
        FEMA flood zones in the same CRS with logical columns ``zone`` (and optionally
        ``subtype``, ``sfha``, ``bfe``); see ``swm_gis.rules.floodplain.sfha_mask``.
    rules
        Rule values (the SFHA zone list); Chapter 320 defaults.

    Returns
    -------
    dict
        ``in_sfha``, ``sfha_area_sqft``, ``site_fraction`` (SFHA share of the area, 0-1),
        ``zones`` (one entry per SFHA zone/subtype/BFE met: ``zone``, ``subtype``, ``bfe`` in
        feet or None, ``area_sqft``), ``shaded_x_area_sqft`` (0.2%-annual-chance area outside the
        SFHA) and ``area_sqft`` (the whole area). Areas are exact polygon intersections.

    Examples
    --------
    >>> from shapely.geometry import box
    >>> site = gpd.GeoSeries([box(0, 0, 100, 100)], crs="EPSG:26986")
    >>> z = gpd.GeoDataFrame({"zone": ["AE"], "subtype": [None], "sfha": ["T"], "bfe": [12.0]},
    ...                      geometry=[box(0, 0, 100, 25)], crs="EPSG:26986")
    >>> r = floodplain_overlap(site, z)
    >>> r["site_fraction"], r["zones"][0]["bfe"]
    (0.25, 12.0)
    """
    crs = _require_crs(area, "area to check for floodplain")
    sqft = feet_per_unit(crs) ** 2
    geom = shapely.union_all(_geoms(area))
    total = float(shapely.area(geom))
    pieces = flood_zone_pieces(area, zones, rules=rules)
    sfha = pieces[pieces["sfha"]]
    shaded = pieces[pieces["shaded_x"] & ~pieces["sfha"]]
    sfha_union = shapely.union_all(sfha.geometry.values) if len(sfha) else shapely.Polygon()
    sfha_area = float(shapely.area(sfha_union))
    shaded_union = shapely.union_all(shaded.geometry.values) if len(shaded) else None
    shaded_area = (float(shapely.area(shapely.difference(shaded_union, sfha_union)))
                   if shaded_union is not None else 0.0)
    zone_rows = []
    if len(sfha):
        groups: dict[tuple, list[int]] = {}
        for pos, key in enumerate(zip(sfha["zone"], sfha["subtype"], sfha["bfe"], strict=True)):
            groups.setdefault(tuple(None if _is_na(v) else v for v in key), []).append(pos)
        for (zone, subtype, bfe), positions in groups.items():
            part = shapely.union_all(sfha.geometry.values[positions])
            zone_rows.append({"zone": zone, "subtype": subtype, "bfe": bfe,
                              "area_sqft": round(float(shapely.area(part)) * sqft, 1)})
        zone_rows.sort(key=lambda r: -r["area_sqft"])
    return {
        "in_sfha": bool(sfha_area > 0),
        "sfha_area_sqft": round(sfha_area * sqft, 1),
        "site_fraction": round(sfha_area / total, 4) if total > 0 else 0.0,
        "zones": zone_rows,
        "shaded_x_area_sqft": round(shaded_area * sqft, 1),
        "area_sqft": round(total * sqft, 1),
    }


def flood_zone_pieces(
    area: gpd.GeoDataFrame | gpd.GeoSeries,
    zones: gpd.GeoDataFrame,
    *,
    rules: Rules | None = None,
) -> gpd.GeoDataFrame:
    """The flood-zone polygons clipped to an area: one row per zone polygon that overlaps it.

    Columns ``zone``, ``subtype``, ``bfe`` (feet, None for -9999), ``sfha``, ``shaded_x``,
    ``area_sqft``; the index is the zones' index; geometry is the exact intersection.
    """
    crs = _require_crs(area, "area to check for floodplain")
    _require_crs(zones, "flood zone layer")
    if not CRS.from_user_input(zones.crs).equals(crs):
        raise CrsError(
            f"The flood zones ({zones.crs}) and the area ({crs.to_string()}) are in different "
            "CRSs; read both through swm_gis.io.layers so they share the working CRS."
        )
    if "zone" not in zones:
        raise FieldMissingError(
            "The flood zone layer has no logical field \"zone\" (FEMA FLD_ZONE); read it "
            "through swm_gis.io.layers, or set "
            f"{config_key('layers.flood_zones.fields', 'zone')} = \"<field>\"."
        )
    geom = shapely.union_all(_geoms(area))
    cols = ["zone", "subtype", "bfe", "sfha", "shaded_x", "area_sqft"]
    if zones.empty or shapely.is_empty(geom):
        return gpd.GeoDataFrame({c: [] for c in cols}, geometry=[], crs=zones.crs)
    tree = shapely.STRtree(zones.geometry.values)
    hits = np.sort(tree.query(geom, predicate="intersects"))
    sub = zones.iloc[hits]
    clipped = shapely.intersection(sub.geometry.values, geom)
    keep = ~shapely.is_empty(clipped) & (shapely.area(clipped) > 0)
    sub, clipped = sub[keep], clipped[keep]
    frame = pd.DataFrame({c: sub.get(c) for c in ("zone", "subtype", "sfha")},
                         index=sub.index)
    out = gpd.GeoDataFrame(
        {
            "zone": frame["zone"].astype(object),
            "subtype": frame["subtype"].astype(object).where(frame["subtype"].notna(), None),
            "bfe": [clean_bfe(v) for v in (sub["bfe"] if "bfe" in sub else [None] * len(sub))],
            "sfha": sfha_mask(frame, rules=rules).to_numpy(),
            "shaded_x": shaded_x_mask(frame).to_numpy(),
            "area_sqft": shapely.area(clipped) * feet_per_unit(crs) ** 2,
        },
        geometry=clipped, crs=zones.crs, index=sub.index,
    )
    return out


def floodplain_by_area(
    areas: gpd.GeoDataFrame,
    zones: gpd.GeoDataFrame,
    *,
    rules: Rules | None = None,
) -> pd.DataFrame:
    """Per-row floodplain overlap (e.g. each subject parcel), keeping the input's index.

    Columns ``area_sqft``, ``in_sfha``, ``sfha_area_sqft``, ``sfha_fraction``,
    ``shaded_x_area_sqft``, ``zones`` (SFHA zone names met, ";"-joined) and ``bfe_ft`` (the
    highest static BFE met, or None).
    """
    rows = []
    for geom in areas.geometry.values:
        res = floodplain_overlap(gpd.GeoSeries([geom], crs=areas.crs), zones, rules=rules)
        bfes = [z["bfe"] for z in res["zones"] if z["bfe"] is not None]
        rows.append({
            "area_sqft": res["area_sqft"], "in_sfha": res["in_sfha"],
            "sfha_area_sqft": res["sfha_area_sqft"], "sfha_fraction": res["site_fraction"],
            "shaded_x_area_sqft": res["shaded_x_area_sqft"],
            "zones": ";".join(sorted({str(z["zone"]) for z in res["zones"]})),
            "bfe_ft": max(bfes) if bfes else None,
        })
    return pd.DataFrame(rows, index=areas.index)


def _geoms(area: gpd.GeoDataFrame | gpd.GeoSeries) -> np.ndarray:
    return area.geometry.values if isinstance(area, gpd.GeoDataFrame) else area.values


def _is_na(value: object) -> bool:
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False

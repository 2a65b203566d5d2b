"""Applicability rules on frames: :func:`classify_parcels` and the screening classes.

One GeoDataFrame of parcels in, one of flags out (same index and CRS; vectorised, no per-row
Python loops), and the per-class / per-HUC12 summary tables. Pure: no file is read here.
"""

from __future__ import annotations

import math
from typing import Any

import geopandas as gpd
import numpy as np
import pandas as pd
import shapely

from swm_gis.applicability_overlays import (
    CONSTRAINTS,
    INCLUSIVE_TOL_FT,
    NHESP_SEARCH_FT,
    OUTPUT_COLUMNS,
    SQFT_PER_SQM,
    Overlays,
    _Pieces,
    _Zones,
)
from swm_gis.catchments import DrainageGrid
from swm_gis.config import FT_PER_M, SQFT_PER_ACRE
from swm_gis.config import metres_per_unit as config_metres_per_unit


# =========================================================================== screening class
def class_name(large: bool, constraints: list[str]) -> str:
    """The human-readable class for a parcel size and its constraint names.

    >>> class_name(True, ["habitat", "floodplain"])
    'large parcel; habitat and floodplain constraints'
    >>> class_name(False, [])
    'small parcel; no mapped constraints'
    >>> class_name(True, ["habitat", "floodplain", "ORW"])
    'large parcel; habitat, floodplain and ORW constraints'
    """
    size = "large parcel" if large else "small parcel"
    if not constraints:
        return f"{size}; no mapped constraints"
    if len(constraints) == 1:
        return f"{size}; {constraints[0]} constraint"
    return f"{size}; {', '.join(constraints[:-1])} and {constraints[-1]} constraints"


def all_classes() -> list[str]:
    """Every class :func:`screening_class` can give, most constrained large parcels first.

    Index ``code`` of the list is the class of bit code ``code`` (see :func:`screening_class`)
    read in reverse, so the legend lists large, heavily constrained parcels first.
    """
    return [_CLASS_BY_CODE[c] for c in _legend_codes()]


def _class_of_code(code: int) -> str:
    large = bool(code & 1)
    names = [name for i, (_, name) in enumerate(CONSTRAINTS) if code & (2 << i)]
    return class_name(large, names)


_N_CODES = 2 << len(CONSTRAINTS)
_CLASS_BY_CODE = np.array([_class_of_code(c) for c in range(_N_CODES)], dtype=object)


def _legend_codes() -> list[int]:
    def key(code: int) -> tuple[int, int, int]:
        n = bin(code >> 1).count("1")
        return (-(code & 1), -n, code)

    return sorted(range(_N_CODES), key=key)


def screening_class(flags: pd.DataFrame) -> pd.Series:
    """``screening_class`` for each row of a frame of flags (vectorised: a lookup by bit code).

    Uses ``can_reach_trigger`` and the constraint flags of :data:`CONSTRAINTS`; a missing flag or
    a null (check not run) counts as no constraint.
    """
    code = np.asarray(_as_bool(flags["can_reach_trigger"]), dtype=np.int64)
    for i, (col, _) in enumerate(CONSTRAINTS):
        if col in flags:
            code |= np.asarray(_as_bool(flags[col]), dtype=np.int64) << (i + 1)
    return pd.Series(_CLASS_BY_CODE[code], index=flags.index, name="screening_class",
                     dtype=object)


def _as_bool(s: pd.Series) -> np.ndarray:
    return s.astype("boolean").fillna(False).to_numpy(dtype=bool)


def classify_parcels(parcels: gpd.GeoDataFrame, overlays: Overlays, *,
                     rep_points: np.ndarray | None = None) -> gpd.GeoDataFrame:
    """Flag every parcel (vectorised); returns a new frame with the input's index and CRS.

    Thresholds are inclusive and measured exactly: the NHESP distance is the exact distance
    between the parcel and the nearest feature (no buffer stands in for it).

    Parameters
    ----------
    parcels
        Parcels with logical fields (``id``, optionally ``map_par_id``) in a projected CRS in
        metres (the working CRS).
    overlays
        The prepared reference layers (:meth:`Overlays.build`).
    rep_points
        One representative point per parcel, if already computed (else ``point_on_surface``).

    Returns
    -------
    GeoDataFrame
        One row per parcel (SPEC applicability columns); flags whose reference layer is absent
        are null.
    """
    rules = overlays.rules
    geoms = parcels.geometry.values.to_numpy()
    n = len(geoms)
    unit_m = metres_per_unit(parcels.crs)
    area_sqm = shapely.area(geoms) * unit_m**2
    out = pd.DataFrame(index=parcels.index)
    out["parcel_id"] = parcels["id"].astype(object).to_numpy() if "id" in parcels else None
    out["map_par_id"] = (parcels["map_par_id"].astype(object).to_numpy()
                         if "map_par_id" in parcels else None)
    out["area_sqft"] = area_sqm * SQFT_PER_SQM
    out["area_acres"] = out["area_sqft"] / SQFT_PER_ACRE
    out["can_reach_trigger"] = pd.array(out["area_sqft"].to_numpy() >= rules.trigger_sqft,
                                        dtype="boolean")
    if rep_points is None or len(rep_points) != n:
        rep_points = shapely.point_on_surface(geoms)
    huc12 = _largest_overlap(geoms, overlays.huc12, rep_points)
    out["huc12"] = huc12
    out["huc12_name"] = pd.Series(huc12, index=out.index, dtype=object).map(
        lambda c: overlays.huc12_names.get(c) if c is not None else None
    ) if overlays.huc12_names else None
    if overlays.huc10 is not None:
        out["huc10"] = _largest_overlap(geoms, overlays.huc10, rep_points)
    elif overlays.huc12 is not None:  # WBD codes nest: a HUC10 is the first 10 digits of a HUC12
        out["huc10"] = [c[:10] if c is not None else None for c in huc12]
    else:
        out["huc10"] = None
    dist_ft, nearest = _nearest_habitat_ft(geoms, overlays.habitats, unit_m=unit_m)
    out["nhesp_within_500ft"] = _nullable(
        dist_ft <= rules.habitat_distance_ft + INCLUSIVE_TOL_FT
        if overlays.habitats is not None else None, n)
    out["nhesp_distance_ft"] = dist_ft
    out["nhesp_nearest"] = nearest
    sfha_sqm = _overlap_area(geoms, overlays.sfha) * unit_m**2
    if overlays.sfha is not None:
        out["in_sfha"] = pd.array(sfha_sqm > 0, dtype="boolean")
        with np.errstate(invalid="ignore", divide="ignore"):
            out["sfha_fraction"] = np.where(area_sqm > 0, np.minimum(sfha_sqm / area_sqm, 1.0),
                                            0.0)
        out["sfha_area_sqft"] = sfha_sqm * SQFT_PER_SQM
    else:
        out["in_sfha"] = pd.array([pd.NA] * n, dtype="boolean")
        out["sfha_fraction"] = np.nan
        out["sfha_area_sqft"] = np.nan
    orw, impaired, causes = drainage_flags(geoms, overlays.drainage)
    out["drains_to_orw"] = orw
    out["drains_to_impaired"] = impaired
    out["impairment_causes"] = causes
    out["screening_class"] = screening_class(out)
    return gpd.GeoDataFrame(out[OUTPUT_COLUMNS], geometry=parcels.geometry.values,
                            crs=parcels.crs)


def metres_per_unit(crs: Any) -> float:
    """Metres per unit of a projected CRS (1 for EPSG:26986, 0.3048006 for US survey feet)."""
    return 1.0 if crs is None else config_metres_per_unit(crs)


def _nullable(values: np.ndarray | None, n: int) -> pd.arrays.BooleanArray:
    if values is None:
        return pd.array([pd.NA] * n, dtype="boolean")
    return pd.array(np.asarray(values, dtype=bool), dtype="boolean")


def _largest_overlap(geoms: np.ndarray, zones: _Zones | None, rep_points: np.ndarray
                     ) -> np.ndarray:
    """Value of the polygon with the largest overlap area (ties: smallest value).

    A parcel that meets no polygon boundary lies wholly in the polygon holding its representative
    point (found with prepared polygons against a tree of points); only parcels that meet a
    boundary have their shares measured by exact intersection areas.
    """
    out = np.full(len(geoms), None, dtype=object)
    if zones is None or len(zones) == 0 or len(geoms) == 0:
        return out
    zi, pi = shapely.STRtree(rep_points).query(zones.polys, predicate="contains")
    out[pi] = zones.values[zi]
    cross = np.unique(zones.tree("edges").query(geoms, predicate="intersects")[0])
    if len(cross):
        ci, ti = zones.tree("pieces").query(geoms[cross], predicate="intersects")
        inter = shapely.area(shapely.intersection(geoms[cross][ci], zones.pieces[ti]))
        owner = zones.piece_owner[ti]
        shares = (pd.DataFrame({"p": cross[ci], "v": zones.values[owner].astype(str), "a": inter})
                  .groupby(["p", "v"], as_index=False)["a"].sum())
        shares = shares[shares["a"] > 0].sort_values(["p", "a", "v"],
                                                     ascending=[True, False, True])
        best = shares.drop_duplicates("p")
        out[cross] = None
        out[best["p"].to_numpy()] = best["v"].to_numpy(dtype=object)
    return out


def _overlap_area(geoms: np.ndarray, pieces: _Pieces | None) -> np.ndarray:
    """Area (m²) of each parcel inside the (dissolved, disjoint) reference polygons.

    A parcel properly inside one piece (found with the pieces prepared, against a tree of the
    parcels) counts whole; only parcels that cross a piece's edge are intersected.
    """
    area = np.zeros(len(geoms))
    if pieces is None or len(pieces) == 0 or len(geoms) == 0:
        return area
    inside = np.zeros(len(geoms), dtype=bool)
    inside[shapely.STRtree(geoms).query(pieces.geoms, predicate="contains_properly")[1]] = True
    area[inside] = shapely.area(geoms[inside])
    pi, ti = pieces.tree.query(geoms, predicate="intersects")
    cut = ~inside[pi]
    if cut.any():
        inter = shapely.area(shapely.intersection(geoms[pi[cut]], pieces.geoms[ti[cut]]))
        area += np.bincount(pi[cut], weights=inter, minlength=len(geoms))
    return area


def _nearest_habitat_ft(geoms: np.ndarray, pieces: _Pieces | None, *, unit_m: float = 1.0
                        ) -> tuple[np.ndarray, np.ndarray]:
    """Exact distance (ft) to the nearest habitat feature within the search radius, and its label.

    One STRtree ``dwithin`` query gives every (parcel, feature piece) pair within
    :data:`NHESP_SEARCH_FT`; exact distances of the pairs are reduced to the minimum per parcel.
    Beyond the radius the distance is NaN (null).
    """
    dist = np.full(len(geoms), np.nan)
    label = np.full(len(geoms), None, dtype=object)
    if pieces is None or len(pieces) == 0 or len(geoms) == 0:
        return dist, label
    radius = NHESP_SEARCH_FT / FT_PER_M / unit_m
    # candidates by envelope (grown by the radius): one cheap tree pass; the exact distance of
    # each candidate then decides, so a GEOS distance is computed once per pair, not twice
    b = shapely.bounds(geoms)
    grown = shapely.box(b[:, 0] - radius, b[:, 1] - radius, b[:, 2] + radius, b[:, 3] + radius)
    pi, ti = pieces.tree.query(grown)
    if len(pi):
        d = shapely.distance(geoms[pi], pieces.geoms[ti])
        near = d <= radius
        pi, ti, d = pi[near], ti[near], d[near]
    if len(pi):
        order = np.lexsort((ti, d, pi))  # per parcel: nearest first, ties by feature order
        first = order[np.r_[True, pi[order][1:] != pi[order][:-1]]]
        dist[pi[first]] = d[first] * unit_m * FT_PER_M
        label[pi[first]] = pieces.values[ti[first]]
    return dist, label


def drainage_flags(geoms: np.ndarray, grid: DrainageGrid | None
                   ) -> tuple[pd.arrays.BooleanArray, pd.arrays.BooleanArray, np.ndarray]:
    """ORW / impaired flags and impairment causes per parcel from the per-cell drainage grid.

    A parcel drains to what any of its cells (cell centres inside the parcel, plus the cell under
    its representative point so a parcel smaller than a cell still has one) drains to.
    Vectorised: the parcels are rasterised once per call and the flags reduced by parcel. A
    parcel outside the DEM gets nulls (unknown), not False.
    """
    n = len(geoms)
    if grid is None or n == 0:
        return (pd.array([pd.NA] * n, dtype="boolean"), pd.array([pd.NA] * n, dtype="boolean"),
                np.full(n, None, dtype=object))
    pid, cell = _parcel_cells(geoms, grid.transform, grid.labels.shape)
    covered = np.bincount(pid, minlength=n) > 0
    node = grid.labels.ravel()[cell].astype(np.int64)
    keep = node >= 0
    pid, node = pid[keep], node[keep]
    n_nodes = grid.node_flags.shape[0]
    pairs = np.unique(pid * max(n_nodes, 1) + node)  # each (parcel, node) once
    pid, node = pairs // max(n_nodes, 1), pairs % max(n_nodes, 1)
    flags = np.zeros((n, grid.node_flags.shape[1]), dtype=bool)
    np.logical_or.at(flags, pid, grid.node_flags[node])
    orw = pd.array(flags[:, 0], dtype="boolean")
    imp = pd.array(flags[:, 1], dtype="boolean")
    orw[~covered] = pd.NA
    imp[~covered] = pd.NA
    if not grid.orw_ran:
        orw[:] = pd.NA
    if not grid.impaired_ran:
        imp[:] = pd.NA
    causes = _decode_causes(flags[:, 2:], grid.cause_names)
    causes[~covered] = None
    if not grid.impaired_ran:
        causes[:] = None
    return orw, imp, causes


def _parcel_cells(geoms: np.ndarray, transform: Any, shape: tuple[int, int]
                  ) -> tuple[np.ndarray, np.ndarray]:
    """(parcel position, linear cell index) pairs: cell centres in the parcel + its rep. point."""
    from rasterio import features, windows

    rows_all, cols_all = shape
    minx, miny, maxx, maxy = shapely.total_bounds(geoms)
    win = windows.from_bounds(minx, miny, maxx, maxy, transform=transform)
    r0, c0 = max(math.floor(win.row_off) - 1, 0), max(math.floor(win.col_off) - 1, 0)
    r1 = min(math.ceil(win.row_off + win.height) + 1, rows_all)
    c1 = min(math.ceil(win.col_off + win.width) + 1, cols_all)
    pid_parts, cell_parts = [], []
    if r1 > r0 and c1 > c0:
        tr = transform * transform.translation(c0, r0)
        burned = features.rasterize(zip(geoms, np.arange(1, len(geoms) + 1), strict=True),
                                    out_shape=(r1 - r0, c1 - c0), transform=tr, fill=0,
                                    dtype="int32")
        rr, cc = np.nonzero(burned)
        pid_parts.append(burned[rr, cc].astype(np.int64) - 1)
        cell_parts.append((rr + r0).astype(np.int64) * cols_all + (cc + c0))
    rp = shapely.point_on_surface(geoms)
    col, row = ~transform * (shapely.get_x(rp), shapely.get_y(rp))
    row, col = np.floor(row).astype(np.int64), np.floor(col).astype(np.int64)
    inside = (row >= 0) & (row < rows_all) & (col >= 0) & (col < cols_all)
    pid_parts.append(np.flatnonzero(inside))
    cell_parts.append(row[inside] * cols_all + col[inside])
    return np.concatenate(pid_parts), np.concatenate(cell_parts)


def _decode_causes(matrix: np.ndarray, names: tuple[str, ...]) -> np.ndarray:
    """Rows of cause flags -> "cause; cause" strings (one join per distinct row, not per parcel)."""
    n = matrix.shape[0]
    if n == 0 or matrix.shape[1] == 0:
        return np.full(n, "", dtype=object)
    uniq, inv = np.unique(matrix, axis=0, return_inverse=True)
    text = np.array(["; ".join(nm for nm, on in zip(names, row, strict=True) if on)
                     for row in uniq], dtype=object)
    return text[np.asarray(inv).ravel()]


# =========================================================================== summary
def summarise(result: pd.DataFrame, *, huc12_names: dict[str, str] | None = None
              ) -> pd.DataFrame:
    """Counts and acres per screening class, per HUC12 and for the whole town (``huc12 = "all"``).

    Partial summaries of tiles combine with :func:`combine_summaries`.
    """
    huc = result["huc12"].astype(object).where(result["huc12"].notna(), "none")
    df = pd.DataFrame({"huc12": huc.to_numpy(dtype=object),
                       "screening_class": result["screening_class"].to_numpy(dtype=object),
                       "area_acres": result["area_acres"].to_numpy()})
    part = (df.groupby(["huc12", "screening_class"], as_index=False)
            .agg(parcels=("area_acres", "size"), area_acres=("area_acres", "sum")))
    return part


def combine_summaries(parts: list[pd.DataFrame], *, huc12_names: dict[str, str] | None = None
                      ) -> pd.DataFrame:
    """Add up tile summaries and append the town-wide rows; classes in legend order."""
    cols = ["huc12", "screening_class", "parcels", "area_acres"]
    if parts:
        df = pd.concat(parts, ignore_index=True)
        df = df.groupby(["huc12", "screening_class"], as_index=False)[["parcels",
                                                                        "area_acres"]].sum()
    else:
        df = pd.DataFrame(columns=cols)
    town = df.groupby("screening_class", as_index=False)[["parcels", "area_acres"]].sum()
    town.insert(0, "huc12", "all")
    out = pd.concat([df, town], ignore_index=True)
    order = {c: i for i, c in enumerate(all_classes())}
    out["_o"] = out["screening_class"].map(order)
    out["_h"] = out["huc12"].eq("all")
    out = out.sort_values(["_h", "huc12", "_o"]).drop(columns=["_o", "_h"])
    names = huc12_names or {}
    out.insert(1, "huc12_name", out["huc12"].map(lambda h: names.get(h)).astype(object))
    out["parcels"] = out["parcels"].astype("int64")
    out["area_acres"] = out["area_acres"].astype(float).round(3)
    return out.reset_index(drop=True)


__all__ = ["all_classes", "class_name", "classify_parcels", "combine_summaries", "drainage_flags",
           "screening_class", "summarise"]

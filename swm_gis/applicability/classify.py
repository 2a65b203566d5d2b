"""Applicability rules on frames: :func:`classify_parcels` and the screening classes.

One GeoDataFrame of parcels in, one of flags out (same index and CRS; vectorised, no per-row
Python loops), and the per-class / per-HUC12 summary tables. Pure: no file is read here.
"""

from __future__ import annotations

from typing import Any

import geopandas as gpd
import numpy as np
import pandas as pd
import shapely

from swm_gis.applicability.drainage import drainage_flags
from swm_gis.applicability.overlays import (
    CHECKED,
    CONSTRAINTS,
    INCLUSIVE_TOL_FT,
    NHESP_FLAG,
    OUTPUT_COLUMNS,
    OUTSIDE_CLASS,
    RIGHT_OF_WAY_CLASS,
    SQFT_PER_SQM,
    WATER_CLASS,
    Overlays,
    Pieces,
    Zones,
    first_vertices,
    meeting,
    nhesp_search_ft,
    point_xy,
    unknown_flags,
)
from swm_gis.coverage_rule import covered_by_all, covers, in_town
from swm_gis.units import FT_PER_M, SQFT_PER_ACRE, metres_per_unit, require_crs

#: The coverage rule, :func:`swm_gis.coverage_rule.covers` (one rule for the screening and the map).
covered = covers


# =========================================================================== screening class
def class_name(large: bool, constraints: list[str], not_checked: list[str] | tuple = (),
               leaves: bool = False) -> str:
    """The human-readable class for a parcel size, its constraints and the checks not run on it.

    A class never says "no constraints" for a check that was not run: it then says "no
    constraint found" and names what was not checked. ``leaves``: a drainage flag is unknown
    because the flow leaves the town's data (the town line, the DEM's edge, the end of the
    mapped streams, beyond a receiving-water layer's coverage), which the class says.

    >>> class_name(True, ["habitat", "floodplain"])
    'large parcel; habitat and floodplain constraints'
    >>> class_name(False, [])
    'small parcel; no mapped constraints'
    >>> class_name(True, ["habitat", "floodplain", "ORW"])
    'large parcel; habitat, floodplain and ORW constraints'
    >>> class_name(False, [], ["NHESP", "ORW", "impaired waters", "HUC"])
    'small parcel; no constraint found; NHESP, ORW, impaired waters, HUC not checked'
    >>> class_name(True, ["floodplain"], ["NHESP"])
    'large parcel; floodplain constraint; NHESP not checked'
    >>> class_name(False, ["impaired-water"], leaves=True)
    "small parcel; impaired-water constraint; drainage leaves the town's data"
    """
    size = "large parcel" if large else "small parcel"
    if not constraints:
        found = ("no constraint found" if not_checked or leaves
                 else "no mapped constraints")
    elif len(constraints) == 1:
        found = f"{constraints[0]} constraint"
    else:
        found = f"{', '.join(constraints[:-1])} and {constraints[-1]} constraints"
    text = f"{size}; {found}" + (f"; {LEAVES_TEXT}" if leaves else "")
    return f"{text}; {', '.join(not_checked)} not checked" if not_checked else text


def all_classes() -> list[str]:
    """Every class :func:`screening_class` can give, in legend order.

    Large parcels first, more constraints first, fewer unchecked flags first; right-of-way and
    water last.
    """
    return [_CLASS_BY_CODE[c] for c in _legend_codes()]


def class_order(classes: list[str]) -> list[str]:
    """``classes`` (deduplicated) in legend order; names no code gives follow, sorted."""
    rank = _RANK
    return sorted(dict.fromkeys(classes), key=lambda c: (rank.get(c, len(rank)), c))


#: What a class says of a parcel whose drainage flag is unknown because the flow leaves the data
#: (:data:`DRAINAGE_FLAGS`, bits of the ``leaves`` masks of :func:`screening_class`).
LEAVES_TEXT = "drainage leaves the town's data"
DRAINAGE_FLAGS = ("drains_to_orw", "drains_to_impaired")
_NC = len(CONSTRAINTS)
_NK = len(CHECKED)
_LEAVES_BIT = 1 << (1 + _NC + _NK)
_N_CODES = 1 << (2 + _NC + _NK)
_ROW_CODE, _WATER_CODE, _OUTSIDE_CODE = _N_CODES, _N_CODES + 1, _N_CODES + 2


def _class_of_code(code: int) -> str:
    if code == _ROW_CODE:
        return RIGHT_OF_WAY_CLASS
    if code == _WATER_CODE:
        return WATER_CLASS
    if code == _OUTSIDE_CODE:
        return OUTSIDE_CLASS
    names = [name for i, (_, name) in enumerate(CONSTRAINTS) if code & (2 << i)]
    unchecked = (code >> (1 + _NC)) & ((1 << _NK) - 1)
    return class_name(bool(code & 1), names, _unchecked_names(unchecked),
                      leaves=bool(code & _LEAVES_BIT))


def _unchecked_names(mask: int) -> list[str]:
    return [name for i, (_, name) in enumerate(CHECKED) if mask & (1 << i)]


def _valid(code: int) -> bool:
    # a constraint found was checked: a code with both bits of one flag set never occurs
    if code >= _ROW_CODE:
        return True
    found = (code >> 1) & ((1 << _NC) - 1)
    unchecked = (code >> (1 + _NC)) & ((1 << _NK) - 1)
    if any(found & (1 << i) and unchecked & (1 << k)
           for i, (col, _) in enumerate(CONSTRAINTS)
           for k, (ccol, _) in enumerate(CHECKED) if col == ccol):
        return False
    if code & _LEAVES_BIT:  # some drainage flag is neither found nor "not checked"
        return any(not found & (1 << i) and not unchecked & (1 << k)
                   for i, (col, _) in enumerate(CONSTRAINTS) if col in DRAINAGE_FLAGS
                   for k, (ccol, _) in enumerate(CHECKED) if col == ccol)
    return True


_CLASS_BY_CODE = np.array([_class_of_code(c) for c in range(_N_CODES + 3)], dtype=object)
_NOT_CHECKED_BY_MASK = np.array([", ".join(_unchecked_names(m)) or None
                                 for m in range(1 << _NK)], dtype=object)


def _legend_codes() -> list[int]:
    def key(code: int) -> tuple[int, ...]:
        if code >= _ROW_CODE:
            return (1, 0, 0, 0, code)
        n = bin((code >> 1) & ((1 << _NC) - 1)).count("1")
        return (0, -(code & 1), -n, bin(code >> (1 + _NC)).count("1"), code)  # leaves: last

    return sorted((c for c in range(_N_CODES + 3) if _valid(c)), key=key)


_RANK = {c: i for i, c in enumerate(all_classes())}


def screening_class(flags: pd.DataFrame, *, no_owner: np.ndarray | None = None,
                    leaves: np.ndarray | None = None, outside: str | None = None
                    ) -> pd.Series:
    """``screening_class`` for each row of a frame of flags (vectorised: a lookup by bit code).

    Uses ``can_reach_trigger``, the constraint flags of :data:`CONSTRAINTS` and, for what was
    not checked, the flags of :data:`CHECKED`: a null flag (or a missing column) is named as not
    checked, never read as "no constraint". ``no_owner`` (0 a parcel, 1 right-of-way, 2 water,
    3 outside the town) gives those polygons their own class. ``leaves`` (per row, bits in
    :data:`CHECKED` order) marks the null drainage flags that are unknown because the flow
    leaves the town's data: the class says :data:`LEAVES_TEXT` for them instead of "not
    checked". ``outside``: the class of a parcel outside the town, naming the regulation
    applied (default: the default profile's, :data:`OUTSIDE_CLASS`).
    """
    code = np.asarray(_as_bool(flags["can_reach_trigger"]), dtype=np.int64)
    for i, (col, _) in enumerate(CONSTRAINTS):
        if col in flags:
            code |= np.asarray(_as_bool(flags[col]), dtype=np.int64) << (i + 1)
    code |= _unchecked_mask(flags, leaves) << (1 + _NC)
    if leaves is not None:
        code |= np.where(np.asarray(leaves) != 0, _LEAVES_BIT, 0).astype(np.int64)
    if no_owner is not None:
        special = np.array([0, _ROW_CODE, _WATER_CODE, _OUTSIDE_CODE], dtype=np.int64)
        code = np.where(no_owner > 0, special[np.clip(no_owner, 0, 3)], code)
    classes = _CLASS_BY_CODE[code]
    if outside is not None and outside != OUTSIDE_CLASS:
        classes = np.where(code == _OUTSIDE_CODE, outside, classes)
    return pd.Series(classes, index=flags.index, name="screening_class", dtype=object)


def not_checked(flags: pd.DataFrame, *, leaves: np.ndarray | None = None) -> pd.Series:
    """The checks not run on each row (``"NHESP, HUC"``), or None when every check ran.

    A drainage flag in ``leaves`` (:func:`screening_class`) ran: it is not listed here.

    >>> not_checked(pd.DataFrame({NHESP_FLAG: pd.array([None, True], dtype="boolean"),
    ...     "in_sfha": [False, False], "drains_to_orw": [True, True],
    ...     "drains_to_impaired": [True, None], "huc12": ["0107", None]})).tolist()
    ['NHESP', 'impaired waters, HUC']
    """
    return pd.Series(_NOT_CHECKED_BY_MASK[_unchecked_mask(flags, leaves)], index=flags.index,
                     name="not_checked", dtype=object)


def _unchecked_mask(flags: pd.DataFrame, leaves: np.ndarray | None = None) -> np.ndarray:
    mask = np.zeros(len(flags), dtype=np.int64)
    for k, (col, _) in enumerate(CHECKED):
        null = (flags[col].isna().to_numpy(dtype=bool) if col in flags
                else np.ones(len(flags), dtype=bool))
        mask |= null.astype(np.int64) << k
    if leaves is not None:
        mask &= ~np.asarray(leaves, dtype=np.int64)
    return mask


def leaves_mask(orw_leaves: np.ndarray, impaired_leaves: np.ndarray) -> np.ndarray:
    """:func:`screening_class`'s ``leaves`` from the two drainage flags' (bits of CHECKED)."""
    pos = {col: k for k, (col, _) in enumerate(CHECKED)}
    return ((np.asarray(orw_leaves, dtype=np.int64) << pos["drains_to_orw"])
            | (np.asarray(impaired_leaves, dtype=np.int64) << pos["drains_to_impaired"]))


def _as_bool(s: pd.Series) -> np.ndarray:
    return s.astype("boolean").fillna(False).to_numpy(dtype=bool)


def no_owner_class(parcels: pd.DataFrame, rules: Any) -> np.ndarray:
    """Per parcel: 0 a parcel, 1 right-of-way, 2 water (``POLY_TYPE`` WATER).

    Decided by the abutters rule's own predicate, :func:`swm_gis.rules.abutters.no_owner_type`, so a
    polygon left out of an abutter list as right-of-way or water is the same one classed so here.
    """
    from swm_gis.rules.abutters import no_owner_type

    if parcels.empty:
        return np.zeros(len(parcels), dtype=np.int64)
    frame = pd.DataFrame(parcels.drop(columns=parcels.geometry.name))
    out = no_owner_type(frame, rules).to_numpy(dtype=bool).astype(np.int64)
    rows = np.flatnonzero(out)
    if "poly_type" in frame and len(rows):  # water among those (few): their POLY_TYPE read
        water = (frame["poly_type"].iloc[rows].astype("string").str.strip().str.upper()
                 .eq("WATER").fillna(False).to_numpy(dtype=bool))
        out[rows[water]] = 2
    return out


def classify_parcels(parcels: gpd.GeoDataFrame, overlays: Overlays, *,
                     rep_points: np.ndarray | None = None) -> gpd.GeoDataFrame:
    """Flag every parcel (vectorised); returns a new frame with the input's index and CRS.

    Thresholds are inclusive and measured exactly: the NHESP distance is the exact distance
    between the parcel and the nearest feature (no buffer stands in for it). A flag whose
    reference layers are absent, or do not cover the area the check searches (the parcel, or for
    NHESP the parcel and the ``[rules] habitat_distance_ft`` around it), is null unless the
    layers found the feature anyway; ``not_checked`` names those checks and the class says so.
    Right-of-way and water polygons (``no_owner_class``) get their own class, and so does a
    parcel sharing no area with the town boundary (``Overlays.town``,
    :func:`swm_gis.coverage_rule.in_town`): "outside the town". A frame without a
    CRS is refused (:class:`~swm_gis.errors.CrsError`).

    Parameters
    ----------
    parcels
        Parcels with logical fields (``id``, optionally ``map_par_id``) in a projected CRS in
        metres (the working CRS).
    overlays
        The prepared reference layers (:meth:`Overlays.build`).
    rep_points
        One point of each parcel, if already known: point geometries, or their x, y as rows
        (default: each parcel's first vertex). Answers do not depend on which point: it places
        a parcel that meets no watershed boundary, and bounds its NHESP distances from above.

    Returns
    -------
    GeoDataFrame
        One row per parcel (the columns of layer ``applicability``); flags whose reference
        layer is absent are null.
    """
    require_crs(parcels, what="parcels")
    rules = overlays.rules
    geoms = parcels.geometry.values.to_numpy()
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
    xy = parcel_points(geoms, rep_points)
    if overlays.huc10 is None and overlays.huc12 is not None:
        # WBD codes nest: a HUC10 is the first 10 digits of its HUC12s, and its share of a
        # parcel the sum of theirs (the largest HUC10 is not always the largest HUC12's)
        huc12, huc10 = _largest_overlap(geoms, overlays.huc12, xy, widths=(None, 10))
    else:
        (huc12,) = _largest_overlap(geoms, overlays.huc12, xy)
        (huc10,) = _largest_overlap(geoms, overlays.huc10, xy)
    out["huc12"] = huc12
    out["huc12_name"] = _names(huc12, overlays.huc12_names)
    out["huc10"] = huc10
    _habitat_flags(out, geoms, overlays, unit_m=unit_m, xy=xy)
    _sfha_flags(out, geoms, area_sqm, overlays, unit_m=unit_m)
    orw, impaired, causes, left = drainage_flags(geoms, overlays.drainage, leaves=True)
    out["drains_to_orw"] = orw
    out["drains_to_impaired"] = impaired
    leaves = pd.array(left[0] | left[1], dtype="boolean")
    leaves[~left[2]] = pd.NA  # not traced (no DEM, or the parcel beyond it): unknown
    out["drainage_leaves_data"] = leaves
    out["impairment_causes"] = causes
    mask = leaves_mask(left[0], left[1])
    out["not_checked"] = not_checked(out, leaves=mask)
    # a parcel beyond the town line is not the town's: the screening refuses it as a site
    # (right-of-way and water keep their class: neither is a parcel the town screens)
    no_owner = no_owner_class(parcels, rules)
    no_owner = np.where((no_owner == 0) & ~in_town(geoms, overlays.town), 3, no_owner)
    out["screening_class"] = screening_class(out, no_owner=no_owner, leaves=mask,
                                             outside=overlays.outside)
    return gpd.GeoDataFrame(out[OUTPUT_COLUMNS], geometry=parcels.geometry.values,
                            crs=parcels.crs)


def parcel_points(geoms: np.ndarray, points: np.ndarray | None) -> np.ndarray:
    """x, y of one point of each parcel (rows): ``points`` as given (point geometries, or rows
    of x, y), else each parcel's first vertex."""
    if points is None or len(points) != len(geoms):
        return first_vertices(geoms)
    points = np.asarray(points)
    return points.astype(float) if points.ndim == 2 else point_xy(points)


def _names(codes: np.ndarray, names: dict[str, str | None]) -> np.ndarray | None:
    """Each code's name (None for no code, or a code without a name); None without names.
    One lookup per distinct code, not per parcel."""
    if not names:
        return None
    where, distinct = pd.factorize(codes)  # a missing code: -1
    found = np.array([names.get(c) for c in distinct] + [None], dtype=object)
    return found[where]


def _habitat_flags(out: pd.DataFrame, geoms: np.ndarray, overlays: Overlays, *,
                   unit_m: float, xy: np.ndarray | None = None) -> None:
    """NHESP flag, distance and nearest feature; "none within the habitat distance" only where
    all three NHESP layers are configured and cover the parcel and the ``[rules]
    habitat_distance_ft`` around it; elsewhere a parcel with no feature found within it is
    null, and so are its distance and nearest feature (an uncovered layer may hold one).
    """
    n = len(geoms)
    rules = overlays.rules
    dist_ft, nearest = _nearest_habitat_ft(geoms, overlays.habitats, unit_m=unit_m,
                                           search_ft=nhesp_search_ft(rules), xy=xy)
    if overlays.habitats is None:
        out[NHESP_FLAG] = unknown_flags(n)
    else:
        found = dist_ft <= rules.habitat_distance_ft + INCLUSIVE_TOL_FT
        decided = found | (overlays.nhesp_complete & covered_by_all(
            geoms, overlays.coverage.get("nhesp"),
            radius=rules.habitat_distance_ft / FT_PER_M / unit_m))
        flag = pd.array(found, dtype="boolean")
        flag[~decided] = pd.NA
        dist_ft = np.where(decided, dist_ft, np.nan)
        nearest = np.where(decided, nearest, None)
        out[NHESP_FLAG] = flag
    out["nhesp_distance_ft"] = dist_ft
    out["nhesp_nearest"] = nearest


def _sfha_flags(out: pd.DataFrame, geoms: np.ndarray, area_sqm: np.ndarray, overlays: Overlays,
                *, unit_m: float) -> None:
    """SFHA flag, share and area; null where no flood zones layer covers the parcel.

    A parcel partly beyond the layer's coverage with flood zone land inside it is in the SFHA
    (true), but its share and area are null (the uncovered part is unknown).
    """
    n = len(geoms)
    if overlays.sfha is None:
        out["in_sfha"] = unknown_flags(n)
        out["sfha_fraction"] = np.nan
        out["sfha_area_sqft"] = np.nan
        return
    sfha_sqm = _overlap_area(geoms, overlays.sfha) * unit_m**2
    inside = covered_by_all(geoms, overlays.coverage.get("sfha"))
    flag = pd.array(sfha_sqm > 0, dtype="boolean")
    flag[~(inside | (sfha_sqm > 0))] = pd.NA
    out["in_sfha"] = flag
    with np.errstate(invalid="ignore", divide="ignore"):
        frac = np.where(area_sqm > 0, np.minimum(sfha_sqm / area_sqm, 1.0), 0.0)
    out["sfha_fraction"] = np.where(inside, frac, np.nan)
    out["sfha_area_sqft"] = np.where(inside, sfha_sqm * SQFT_PER_SQM, np.nan)


def _largest_overlap(geoms: np.ndarray, zones: Zones | None, xy: np.ndarray, *,
                     widths: tuple[int | None, ...] = (None,)) -> list[np.ndarray]:
    """Value of the polygon with the largest overlap area (ties: smallest value), per parcel.

    The rule of the screening's watershed shares (:mod:`swm_gis.rules.watersheds`), vectorised.
    One array per entry of ``widths``: None, the zones' own values; a number, the values cut to
    their first ``width`` characters, each share the sum of its zones' (a HUC10 from HUC12s).
    A single-part parcel that meets no polygon boundary lies wholly in the polygon holding any
    of its points (``xy``, one per parcel: :meth:`Zones.holding`); only parcels that meet a
    boundary, and parcels of several parts (which may lie in several polygons without meeting a
    boundary), have their shares measured by exact intersection areas.
    """
    outs = [np.full(len(geoms), None, dtype=object) for _ in widths]
    if zones is None or len(zones) == 0 or len(geoms) == 0:
        return outs
    keys = [zones.values if w is None else
            np.array([str(v)[:w] for v in zones.values], dtype=object) for w in widths]
    zi = zones.holding(xy)
    pi = np.flatnonzero(zi >= 0)
    zi = zi[pi]
    for out, key in zip(outs, keys, strict=True):
        out[pi] = key[zi]
    cross = np.union1d(meeting(zones.tree("edges"), geoms)[0],
                       np.flatnonzero(shapely.get_num_geometries(geoms) > 1))
    if len(cross):
        ci, ti = meeting(zones.tree("pieces"), geoms[cross])
        inter = shapely.area(shapely.intersection(geoms[cross][ci], zones.pieces[ti]))
        owner = zones.piece_owner[ti]
        for out, key in zip(outs, keys, strict=True):
            parcel, value = _largest_share(cross[ci], key[owner].astype(str), inter)
            out[cross] = None
            out[parcel] = value
    return outs


def _largest_share(parcel: np.ndarray, value: np.ndarray, area: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Per parcel of the (parcel, value, area) rows: the value of the largest summed area (ties:
    the smallest value); a parcel whose every sum is 0 is left out.

    One integer key per (parcel, value), the values coded in sorted order: the sums are pandas'
    compensated group sums of the rows in order, as a group-by on the two columns gives, in a
    fifth of the time.
    """
    code, text = pd.factorize(value, sort=True)
    width = max(len(text), 1)
    sums = pd.Series(area).groupby(parcel.astype(np.int64) * width + code, sort=True).sum()
    key, total = sums.index.to_numpy(), sums.to_numpy()
    some = total > 0
    parcel, code, total = key[some] // width, key[some] % width, total[some]
    if not len(parcel):
        return parcel, np.array([], dtype=object)
    order = np.lexsort((code, -total, parcel))
    first = order[np.r_[True, parcel[order][1:] != parcel[order][:-1]]]
    return parcel[first], np.asarray(text, dtype=object)[code[first]]


def _overlap_area(geoms: np.ndarray, pieces: Pieces | None) -> np.ndarray:
    """Area (m²) of each parcel inside the (dissolved, disjoint) reference polygons.

    A parcel that meets the pieces but not the sources' own boundaries (:attr:`Pieces.edges`)
    lies wholly inside them, across cuts or not, and counts whole; only parcels that meet a
    source boundary, or have several parts, are intersected with their pieces. Pieces without
    known edges: every parcel that meets one is intersected.
    """
    area = np.zeros(len(geoms))
    if pieces is None or len(pieces) == 0 or len(geoms) == 0:
        return area
    pi, ti = meeting(pieces.tree, geoms)
    meets = np.unique(pi)
    cut = np.zeros(len(geoms), dtype=bool)
    if pieces.edge_tree is None:
        cut[meets] = True
    else:
        cut[meets[meeting(pieces.edge_tree, geoms[meets])[0]]] = True
        cut[meets[shapely.get_num_geometries(geoms[meets]) > 1]] = True
        whole = meets[~cut[meets]]
        area[whole] = shapely.area(geoms[whole])
    pair = cut[pi]
    if pair.any():
        inter = shapely.area(shapely.intersection(geoms[pi[pair]], pieces.geoms[ti[pair]]))
        area += np.bincount(pi[pair], weights=inter, minlength=len(geoms))
    return area


def _nearest_habitat_ft(geoms: np.ndarray, pieces: Pieces | None, *, unit_m: float = 1.0,
                        search_ft: float = 1_000.0, xy: np.ndarray | None = None
                        ) -> tuple[np.ndarray, np.ndarray]:
    """Exact distance (ft) to the nearest habitat feature within the search radius, and its label.

    One STRtree query gives every (parcel, feature piece) pair whose envelopes lie within
    ``search_ft`` (:func:`swm_gis.applicability.overlays.nhesp_search_ft`: the configured
    habitat distance, at least 1,000 ft); exact distances of the pairs are reduced to the
    minimum per parcel. Beyond the radius the distance is NaN (null).
    """
    dist = np.full(len(geoms), np.nan)
    label = np.full(len(geoms), None, dtype=object)
    if pieces is None or len(pieces) == 0 or len(geoms) == 0:
        return dist, label
    radius = search_ft / FT_PER_M / unit_m
    # candidates by envelope (grown by the radius): one cheap tree pass; the exact distance of
    # each candidate then decides, so a GEOS distance is computed once per pair, not twice
    pi, ti = pieces.grown_tree(radius).query(geoms)
    if len(pi):
        pi, ti, d = _candidate_distances(geoms, pieces, pi, ti, radius, xy)
        near = d <= radius
        pi, ti, d = pi[near], ti[near], d[near]
    if len(pi):
        # per parcel: nearest first, ties by the features' order (layer, then id: neither the
        # order a source returns its rows in nor the cut decides a tie)
        order = np.lexsort((pieces.order[ti], d, pi))
        first = order[np.r_[True, pi[order][1:] != pi[order][:-1]]]
        dist[pi[first]] = d[first] * unit_m * FT_PER_M
        label[pi[first]] = pieces.values[ti[first]]
    return dist, label


#: Slack on the bounds that prune candidate pairs (relative and absolute, CRS units): far above
#: the rounding of a distance computed from coordinates, far below any distance that matters.
_PRUNE_SLACK = 1e-9


def _candidate_distances(geoms: np.ndarray, pieces: Pieces, pi: np.ndarray, ti: np.ndarray,
                         radius: float, xy: np.ndarray | None
                         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The exact distance of every candidate pair that can hold a parcel's nearest piece (and
    every tie of it); the other pairs are dropped unmeasured.

    Two rounds of :func:`_may_be_nearest`'s pruning: with the points' bound, then with a
    tighter one, the exact distance of each parcel's pair whose envelopes lie closest (measured
    first, once): about a third fewer GEOS distances on a statewide tile.
    """
    pi, ti, lower, touching = _may_be_nearest(geoms, pieces, pi, ti, radius, xy)
    if not len(pi):
        return pi, ti, np.zeros(0)
    order = np.lexsort((lower, pi))
    first = order[np.r_[True, pi[order][1:] != pi[order][:-1]]]
    d_first = _pair_distances(geoms, pieces, pi[first], ti[first], touching[first])
    bound = np.full(len(geoms), np.inf)
    bound[pi[first]] = d_first
    measured = np.zeros(len(pi), dtype=bool)
    measured[first] = True
    rest = ~measured & ~(lower > np.minimum(bound[pi], radius) * (1 + _PRUNE_SLACK)
                         + _PRUNE_SLACK)
    d_rest = _pair_distances(geoms, pieces, pi[rest], ti[rest], touching[rest])
    return (np.concatenate([pi[first], pi[rest]]), np.concatenate([ti[first], ti[rest]]),
            np.concatenate([d_first, d_rest]))


def _pair_distances(geoms: np.ndarray, pieces: Pieces, pi: np.ndarray, ti: np.ndarray,
                    touching: np.ndarray) -> np.ndarray:
    """The exact distance of each pair: 0 where the parcel's point lies in or on the piece
    (``touching``), GEOS's distance for the others."""
    d = np.zeros(len(pi))
    far = ~touching
    d[far] = shapely.distance(geoms[pi[far]], pieces.geoms[ti[far]])
    return d


def _envelope_gap(geoms: np.ndarray, pieces: Pieces, pi: np.ndarray, ti: np.ndarray
                  ) -> np.ndarray:
    """Per pair, the distance between the two envelopes: a lower bound of the pair's."""
    a, b = shapely.bounds(geoms)[pi], pieces.bounds[ti]
    gap_x = np.maximum(0.0, np.maximum(a[:, 0] - b[:, 2], b[:, 0] - a[:, 2]))
    gap_y = np.maximum(0.0, np.maximum(a[:, 1] - b[:, 3], b[:, 1] - a[:, 3]))
    return np.hypot(gap_x, gap_y)


def _may_be_nearest(geoms: np.ndarray, pieces: Pieces, pi: np.ndarray, ti: np.ndarray,
                    radius: float, xy: np.ndarray | None
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The candidate pairs that can hold a parcel's nearest piece (and every tie of it), with
    their envelopes' distance and whether the parcel's point lies in or on the piece.

    Per pair, the distance between the two envelopes is a lower bound of the pair's distance,
    and the distance between a point of the parcel (``xy``: its first vertex) and a point of
    the piece is an upper bound: 0 when the parcel's point lies in or on the piece (found by
    ``intersects_xy`` on the prepared piece, for the points inside its envelope), so the pair's
    distance is 0, measured without GEOS's distance. The nearest distance of a parcel is at
    most the least upper bound of its pairs. A pair whose lower bound exceeds that (or the
    search radius) cannot be nearest nor tie it, so its exact GEOS distance, the costly part,
    is skipped: about half the pairs of a statewide tile. A parcel without a point (empty)
    keeps every pair.
    """
    xy = parcel_points(geoms, xy)
    lower = _envelope_gap(geoms, pieces, pi, ti)
    upper = np.hypot(*(xy[pi] - pieces.points[ti]).T)
    touching = pieces.hold_points(ti, xy[pi])
    upper[touching] = 0.0
    least = np.full(len(geoms), np.inf)
    np.minimum.at(least, pi, upper)
    least[np.isnan(least)] = np.inf  # no point to measure from: every pair stays
    keep = ~(lower > np.minimum(least[pi], radius) * (1 + _PRUNE_SLACK) + _PRUNE_SLACK)
    return pi[keep], ti[keep], lower[keep], touching[keep]


def summarise(result: pd.DataFrame, *, huc12_names: dict[str, str] | None = None
              ) -> pd.DataFrame:
    """Counts and acres per screening class, per HUC12 and for the whole town (``huc12 = "all"``).

    Partial summaries of tiles combine with :func:`combine_summaries`.
    """
    huc = (result["huc12"].astype(object).where(result["huc12"].notna(), "none")
           .to_numpy(dtype=object))
    classes = result["screening_class"].to_numpy(dtype=object)
    acres = result["area_acres"].to_numpy()
    # one integer key per (HUC12, class), both coded in sorted order: the groups, their order
    # and their sums (pandas' compensated sum, rows in the same order) are those of a groupby
    # on the two text columns, in under half the time
    h_code, h_value = pd.factorize(huc, sort=True)
    c_code, c_value = pd.factorize(classes, sort=True)
    if (c_code < 0).any():  # a row without a class (never from classify_parcels): by text
        df = pd.DataFrame({"huc12": huc, "screening_class": classes, "area_acres": acres})
        return (df.groupby(["huc12", "screening_class"], as_index=False)
                .agg(parcels=("area_acres", "size"), area_acres=("area_acres", "sum")))
    n_classes = max(len(c_value), 1)
    groups = pd.Series(acres).groupby(h_code.astype(np.int64) * n_classes + c_code, sort=True)
    sums, sizes = groups.sum(), groups.size()
    key = sums.index.to_numpy()
    return pd.DataFrame({"huc12": np.asarray(h_value, dtype=object)[key // n_classes],
                         "screening_class": np.asarray(c_value, dtype=object)[key % n_classes],
                         "parcels": sizes.to_numpy(), "area_acres": sums.to_numpy()})


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
    order = _RANK
    out["_o"] = out["screening_class"].map(order)
    out["_h"] = out["huc12"].eq("all")
    out = out.sort_values(["_h", "huc12", "_o"]).drop(columns=["_o", "_h"])
    names = huc12_names or {}
    out.insert(1, "huc12_name", out["huc12"].map(lambda h: names.get(h)).astype(object))
    out["parcels"] = out["parcels"].astype("int64")
    out["area_acres"] = out["area_acres"].astype(float).round(3)
    return out.reset_index(drop=True)


__all__ = ["LEAVES_TEXT", "all_classes", "class_name", "class_order", "classify_parcels",
           "covered", "leaves_mask", "no_owner_class", "not_checked",
           "combine_summaries", "drainage_flags", "screening_class", "summarise"]

"""Abutters: parcels within a distance of the subject property line (Chapter 320, permit
procedure, A(7)).

The permit procedure's A(7) requires notice to "the owners of any property within 100 feet of the
property line of the land where the activity is proposed, including across a public or private
street"; its A(2) requires the list to be certified by the Assessors' office (the procedure is
cited by its heading: the regulation copy numbers only §§ 320-19, 320-20 and 320-21). The
product also reaches across town lines and bodies of water, sends one notice per owner of record,
and leaves out right-of-way and water polygons without an owner, listing them with the reason.

The distance is measured exactly: ``shapely.distance`` from each candidate polygon to the union of
the subject parcel polygons (0 where they touch), found with an STRtree ``dwithin`` query; the
threshold is inclusive. The buffered "search area" polygon is drawn on the map only and never
decides who is in.

Examples
--------
>>> import geopandas as gpd
>>> from shapely.geometry import box
>>> parcels = gpd.GeoDataFrame({"id": ["S", "A", "B"]},
...     geometry=[box(0, 0, 10, 10), box(40.47, 0, 50, 10), box(40.49, 0, 50, 10)],
...     crs="EPSG:26986")
>>> out = find_abutters(parcels, parcels.iloc[[0]], distance_ft=100)
>>> out["id"].tolist(), out["distance_ft"].round(2).tolist()
(['A'], [99.97])
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import geopandas as gpd
import numpy as np
import pandas as pd
import shapely
from pyproj import CRS

from swm_gis.config.town import RIGHT_OF_WAY_COLUMN, Rules
from swm_gis.errors import ConfigError, GeometryError, SwmGisError
from swm_gis.ids import id_series, id_text
from swm_gis.messages import config_key, option
from swm_gis.rules.citations import RuleCitations, default_citations
from swm_gis.units import M_PER_FT, SQFT_PER_ACRE, metres_per_unit, require_crs

#: How A(7) has the notice sent (the mailing book and every text naming certified mail).
MAIL_METHOD = ("certified mail, return receipt requested, or by certificates of mailing")

#: Allowance for floating-point noise when comparing a distance to the threshold (1 micrometre).
TOLERANCE_M = 1e-6

#: Wetlands Protection Act pond extension (optional): ponds under 10 acres.
WPA_POND_MAX_ACRES = 10.0
POND_BORDER_FT = 10.0

NO_OWNER_NOTE = "no owner of record: ask the Assessors"

_DISTANCE_RE = re.compile(
    r"^\s*(?P<value>[0-9]*\.?[0-9]+)\s*(?P<unit>ft|feet|foot|'|m|meters?|metres?)?\s*$",
    re.IGNORECASE,
)


class DistanceError(SwmGisError):
    """A distance argument that cannot be read (e.g. ``distance="100yd"``)."""


def parse_distance_ft(text: str | float | int) -> float:
    """Read a distance given in feet or metres and return feet.

    A bare number is feet (the unit of Chapter 320).

    >>> [parse_distance_ft(t) for t in ("100ft", "100 ft", "30.48m", "100", 50)]
    [100.0, 100.0, 100.0, 100.0, 50.0]
    """
    if isinstance(text, int | float) and not isinstance(text, bool):
        value, unit = float(text), "ft"
    else:
        m = _DISTANCE_RE.match(str(text))
        if not m:
            flag = option("distance")
            raise DistanceError(
                f'Cannot read the distance "{text}". Give feet or metres, e.g. {flag} 100ft, '
                f'{flag} "100 ft", {flag} 30.48m or {flag} 100 (feet).'
            )
        value = float(m.group("value"))
        unit = (m.group("unit") or "ft").lower()
    feet = value / M_PER_FT if unit.startswith("m") else value
    if not np.isfinite(feet) or feet < 0:
        raise DistanceError(f"The distance must be zero or more feet, not {text}.")
    return round(feet, 9)


def subject_union(subject: gpd.GeoDataFrame | gpd.GeoSeries) -> shapely.Geometry:
    """The subject property: the union of its parcel polygons (several parcels act as one)."""
    geoms = subject.geometry.values if hasattr(subject, "geometry") else subject.values
    geoms = np.asarray(geoms)
    geoms = geoms[~(shapely.is_missing(geoms) | shapely.is_empty(geoms))]
    if len(geoms) == 0:
        raise GeometryError("The subject property has no geometry; check the subject parcel(s).")
    return shapely.union_all(geoms)


def search_area(subject: gpd.GeoDataFrame, *, distance_ft: float) -> gpd.GeoDataFrame:
    """The distance line around the subject, for the map and the GeoPackage only.

    It is a drawing: who is in is decided by the exact distance in :func:`find_abutters`.
    """
    factor = metres_per_unit(subject.crs)
    geom = subject_union(subject).buffer(distance_ft * M_PER_FT / factor, quad_segs=32)
    return gpd.GeoDataFrame({"distance_ft": [float(distance_ft)]}, geometry=[geom],
                            crs=subject.crs)


def find_abutters(
    parcels: gpd.GeoDataFrame,
    subject: gpd.GeoDataFrame,
    *,
    distance_ft: float | None = None,
    include_subject: bool = False,
    rules: Rules | None = None,
    id_col: str = "id",
) -> gpd.GeoDataFrame:
    """Parcels whose exact distance to the subject property line is <= ``distance_ft``.

    Parameters
    ----------
    parcels
        Candidate parcel polygons (projected CRS) with logical columns ``id`` and, where known,
        ``town_id`` and ``poly_type``. It may (and usually does) contain the subject parcels.
    subject
        The subject parcel polygon(s); their union is the subject property. Reprojected to the
        parcels' CRS if it differs. Rows of ``parcels`` whose id is one of the subject's ids (or,
        when the subject has no id column, whose polygon equals a subject polygon) are the subject.
    distance_ft
        Notification distance in feet; default ``rules.abutter_distance_ft`` (100 ft).
    include_subject
        Also list the subject parcels themselves (distance 0).
    rules
        Rule values; only ``abutter_distance_ft`` is read (the default distance).
    id_col
        The parcel id column of ``parcels`` and ``subject``.

    Returns
    -------
    GeoDataFrame
        The matching rows of ``parcels`` (index and columns kept), sorted by distance then id,
        with ``distance_ft`` (exact, feet), ``is_subject`` and ``other_town`` (True where the
        parcel's ``town_id`` differs from the subject's).
    """
    rules = rules or Rules()
    distance_ft = float(rules.abutter_distance_ft if distance_ft is None else distance_ft)
    require_crs(parcels, what="parcels")
    require_crs(subject, what="subject")
    factor = metres_per_unit(parcels.crs)
    if not CRS.from_user_input(subject.crs).equals(parcels.crs):
        subject = subject.to_crs(parcels.crs)
    subj = subject_union(subject)
    # inclusive, with one micrometre of allowance for floating-point noise in coordinates of
    # the order of 1e6 m (a point placed exactly at 100 ft must not fall out by 1e-11 m)
    limit_units = distance_ft * M_PER_FT / factor + TOLERANCE_M / factor

    geoms = parcels.geometry.values
    tree = shapely.STRtree(np.asarray(geoms))
    hits = np.sort(tree.query(subj, predicate="dwithin", distance=limit_units))
    out = parcels.iloc[hits].copy()
    dist_units = shapely.distance(np.asarray(geoms)[hits], subj)
    out["distance_ft"] = dist_units * factor / M_PER_FT

    is_subject = _subject_rows(out, subject, id_col)
    out["is_subject"] = is_subject
    if not include_subject:
        out = out.loc[~out["is_subject"]]
    out.loc[out["is_subject"], "distance_ft"] = 0.0
    out["other_town"] = _other_town(out, subject, parcels, id_col)
    return out.sort_values(["distance_ft", id_col], kind="stable",
                           key=lambda s: s if s.name == "distance_ft" else s.astype(str))


def bordered_ponds(
    subject: gpd.GeoDataFrame,
    ponds: gpd.GeoDataFrame,
    *,
    max_pond_acres: float = WPA_POND_MAX_ACRES,
    border_ft: float = POND_BORDER_FT,
) -> gpd.GeoDataFrame:
    """Ponds of less than ``max_pond_acres`` that the subject property borders (exact distance
    <= ``border_ft``), in the subject's CRS, with ``pond`` (name, else index) and
    ``pond_acres``."""
    factor = metres_per_unit(subject.crs)
    if not CRS.from_user_input(ponds.crs).equals(subject.crs):
        ponds = ponds.to_crs(subject.crs)
    geoms = np.asarray(ponds.geometry.values)
    acres = shapely.area(geoms) * factor**2 / (M_PER_FT**2 * SQFT_PER_ACRE)
    tol = (border_ft * M_PER_FT + TOLERANCE_M) / factor
    keep = shapely.dwithin(geoms, subject_union(subject), tol) & (acres < max_pond_acres)
    name_col = next((c for c in ("pond", "name", "NAME") if c in ponds), None)
    names = (ponds[name_col].astype(object) if name_col
             else pd.Series(ponds.index.astype(str), index=ponds.index))
    out = gpd.GeoDataFrame(
        {"pond": [str(n) if pd.notna(n) else str(i) for i, n in zip(ponds.index, names,
                                                                        strict=True)],
         "pond_acres": np.round(acres, 2)},
        geometry=geoms, crs=subject.crs, index=ponds.index)
    return out.loc[keep]


def pond_extension(
    parcels: gpd.GeoDataFrame,
    subject: gpd.GeoDataFrame,
    ponds: gpd.GeoDataFrame,
    *,
    max_pond_acres: float = WPA_POND_MAX_ACRES,
    border_ft: float = POND_BORDER_FT,
    exclude_ids: Iterable[str] = (),
    id_col: str = "id",
) -> gpd.GeoDataFrame:
    """Wetlands Protection Act pond extension (optional): owners of land abutting a pond of
    less than ``max_pond_acres`` (10 acres) that the subject property borders.

    "Borders" and "abutting the pond" both mean an exact distance <= ``border_ft`` (default
    10 ft, to absorb the gap between a hydrography polygon and parcel lines drawn from deeds).
    Returns the rows of ``parcels`` abutting such ponds (not the subject parcels, not ids in
    ``exclude_ids``, not the pond's own parcel polygon) with ``distance_ft`` (to the subject),
    ``pond`` and ``pond_acres``; input index kept.
    """
    factor = metres_per_unit(parcels.crs)
    if not CRS.from_user_input(subject.crs).equals(parcels.crs):
        subject = subject.to_crs(parcels.crs)
    found = bordered_ponds(subject, ponds, max_pond_acres=max_pond_acres, border_ft=border_ft)
    columns = [*parcels.columns, "distance_ft", "pond", "pond_acres"]
    empty = gpd.GeoDataFrame(columns=columns, geometry=parcels.geometry.name, crs=parcels.crs)
    if found.empty:
        return empty
    tol = (border_ft * M_PER_FT + TOLERANCE_M) / factor
    geoms = np.asarray(parcels.geometry.values)
    tree = shapely.STRtree(geoms)
    skip = set(subject_ids(subject, id_col)) | {id_text(v) for v in exclude_ids}
    rows: dict[int, tuple[str, float]] = {}
    for pond, acres, pond_geom in zip(found["pond"], found["pond_acres"],
                                      found.geometry.values, strict=True):
        hits = tree.query(pond_geom, predicate="dwithin", distance=tol)
        for hit in hits:
            pid = parcels[id_col].iloc[hit] if id_col in parcels else None
            if id_text(pid) is not None and id_text(pid) in skip:
                continue
            inside = shapely.area(shapely.intersection(geoms[hit], pond_geom))
            if inside > 0.5 * shapely.area(geoms[hit]):
                continue  # the pond's own parcel polygon (a WATER polygon)
            rows.setdefault(int(hit), (pond, float(acres)))
    if not rows:
        return empty
    hits = np.array(sorted(rows))
    out = parcels.iloc[hits].copy()
    out["distance_ft"] = shapely.distance(geoms[hits], subject_union(subject)) * factor / M_PER_FT
    out["pond"] = [rows[h][0] for h in hits]
    out["pond_acres"] = [rows[h][1] for h in hits]
    return out


def subject_ids(subject: gpd.GeoDataFrame, id_col: str = "id") -> list[str]:
    """The subject parcel ids as text (:func:`swm_gis.ids.id_text`), in order, without
    repeats."""
    if id_col not in subject:
        return []
    return list(dict.fromkeys(id_series(subject[id_col]).dropna()))


@dataclass(frozen=True)
class SiteParcels:
    """The parcels a site touches (:func:`parcels_touched_by_site`).

    Attributes
    ----------
    subject
        The subject parcels: rows of the parcels given, index and columns kept.
    grazed
        Parcels the site only grazes, each ``{id, overlap_sqft, parcel_share, site_share}``.
    skipped_no_owner
        Ids of the right-of-way and water polygons the site reaches into (never subjects).
    share
        The share that made a parcel a subject (``rules.site_subject_share`` unless given).
    covered
        The subject parcels as ``grazed`` lists the others (``id``, ``overlap_sqft``,
        ``parcel_share``, ``site_share``), so the owner test
        (:func:`swm_gis.rules.site_subjects.same_owner_subjects`) can find the main one.
    """

    subject: gpd.GeoDataFrame
    grazed: list[dict[str, Any]]
    skipped_no_owner: list[str]
    share: float
    covered: list[dict[str, Any]] = field(default_factory=list)


def parcels_touched_by_site(
    parcels: gpd.GeoDataFrame,
    site: gpd.GeoDataFrame,
    *,
    rules: Rules | None = None,
    min_overlap_sqft: float = 1.0,
    share: float | None = None,
) -> SiteParcels:
    """The subject parcels of a site: those the site really lies on.

    A parcel the site reaches into is a subject when the site covers at least ``share``
    (``rules.site_subject_share``, default 0.25) of the parcel's area, or the parcel holds at
    least ``share`` of the site's area; when no parcel does, the one holding most of the site.
    Any other parcel the site overlaps by ``min_overlap_sqft`` (1 sq ft) or more is only
    *grazed* (a site drawn a metre off its lot, the usual survey-to-GIS misalignment): it stays
    an abutter, and ``grazed`` lists it (``id``, ``overlap_sqft``, ``parcel_share``,
    ``site_share``) for the warning ``site_overlaps_neighbour``. A shared boundary line or a
    sliver under ``min_overlap_sqft`` is coordinate noise and is not mentioned.
    Right-of-way and water polygons (``rules.no_owner_poly_types``) are not the applicant's land
    and are skipped; their ids are in ``skipped_no_owner``. Returns a :class:`SiteParcels`.

    Examples
    --------
    A site drawn 1.3 m east of its 30 m x 40 m lot grazes the neighbour by 1.3 m x 40 m
    = 52 m2 (560 sq ft, 4 % of the neighbour): the neighbour is not a subject.

    >>> from shapely.geometry import box
    >>> lots = gpd.GeoDataFrame({"id": ["LOT", "NEXT"]}, crs="EPSG:26986",
    ...     geometry=[box(0, 0, 30, 40), box(30, 0, 60, 40)])
    >>> site = gpd.GeoDataFrame(geometry=[box(1.3, 0, 31.3, 40)], crs="EPSG:26986")
    >>> out = parcels_touched_by_site(lots, site)
    >>> list(out.subject["id"]), [(g["id"], round(g["overlap_sqft"])) for g in out.grazed]
    (['LOT'], [('NEXT', 560)])
    """
    rules = rules or Rules()
    share = float(rules.site_subject_share if share is None else share)
    if not CRS.from_user_input(site.crs).equals(parcels.crs):
        site = site.to_crs(parcels.crs)
    site_geom = subject_union(site)
    geoms = np.asarray(parcels.geometry.values)
    hits = np.sort(shapely.STRtree(geoms).query(site_geom, predicate="intersects"))
    hits = hits[~shapely.touches(geoms[hits], site_geom)]
    sqft_per_unit2 = (metres_per_unit(parcels.crs) / M_PER_FT) ** 2
    overlap = shapely.area(shapely.intersection(geoms[hits], site_geom))
    keep = overlap * sqft_per_unit2 >= min_overlap_sqft
    hits, overlap = hits[keep], overlap[keep]
    touched = parcels.iloc[hits]
    no_owner = no_owner_type(touched, rules).to_numpy(bool)
    skipped = [id_text(v) or "" for v in touched.loc[no_owner, "id"]] if "id" in touched else []
    hits, overlap = hits[~no_owner], overlap[~no_owner]
    parcel_share = overlap / np.maximum(shapely.area(geoms[hits]), 1e-12)
    site_share = overlap / max(shapely.area(site_geom), 1e-12)
    subject = (parcel_share >= share) | (site_share >= share)
    if len(hits) and not subject.any():
        subject[int(np.argmax(overlap))] = True  # the parcel holding most of the site
    ids = (parcels["id"].iloc[hits].tolist() if "id" in parcels else [None] * len(hits))
    centre = shapely.intersects(geoms[hits], shapely.point_on_surface(site_geom))
    every = [{"id": id_text(pid) or "",
              "overlap_sqft": float(a * sqft_per_unit2), "parcel_share": float(ps),
              "site_share": float(ss), "holds_site_centre": bool(c)}
             for pid, a, ps, ss, c in zip(ids, overlap, parcel_share, site_share, centre,
                                          strict=True)]
    return SiteParcels(subject=parcels.iloc[hits[subject]].copy(),
                       grazed=[g for g, s in zip(every, subject, strict=True) if not s],
                       skipped_no_owner=skipped, share=share,
                       covered=[g for g, s in zip(every, subject, strict=True) if s])


def classify(
    abutting: gpd.GeoDataFrame,
    owned_ids: Iterable[str],
    *,
    rules: Rules | None = None,
    id_col: str = "id",
    citations: RuleCitations | None = None,
) -> tuple[gpd.GeoDataFrame, gpd.GeoDataFrame]:
    """Split abutting parcels into those listed and those left out, each with a note or reason.

    ``owned_ids`` are the parcel ids that have an assessing record, compared with the parcels'
    ids by :func:`swm_gis.ids.id_text` (a float 12.0 is the id "12"). Left out: ROW, PRIV_ROW,
    RAIL_ROW and WATER polygons (``rules.no_owner_poly_types``) with no assessing record, reason
    given. Listed, flagged: parcels with no assessing record ("no owner of record: ask the
    Assessors") and parcels in another town (their town id). Both frames keep the input index.
    ``citations``: what a left-out reason cites (the regulation applied's notice clause;
    default: the default profile's).
    """
    rules = rules or Rules()
    owned = {id_text(v) for v in owned_ids}
    has_owner = id_series(abutting[id_col]).map(lambda v: v is not None and v in owned) \
        .astype(bool)
    leave = no_owner_type(abutting, rules) & ~has_owner

    left = abutting.loc[leave].copy()
    section = (citations or default_citations()).notice
    left["reason"] = [left_out_reason(kind, section=section)
                      for kind in no_owner_kind(left, rules)]
    listed = abutting.loc[~leave].copy()
    other = (listed["other_town"].astype(bool) if "other_town" in listed
             else pd.Series(False, index=listed.index))
    towns = listed["town_id"] if "town_id" in listed else pd.Series(None, index=listed.index)
    if "source_town" in listed:  # a neighbour's source names its town
        towns = listed["source_town"].where(listed["source_town"].notna(), towns)
    notes = []
    for pid, owner_known, is_other, town in zip(listed[id_col], has_owner[~leave], other, towns,
                                                strict=True):
        parts = ["polygon has no parcel id"] if pd.isna(pid) else []
        if not owner_known:
            parts.append(NO_OWNER_NOTE)
        if is_other:
            parts.append(f"other town: {town}" if isinstance(town, str) and not
                         town_key(town).isdigit() else f"other town: town id {town_key(town)}")
        notes.append("; ".join(parts))
    listed["note"] = pd.Series(notes, index=listed.index, dtype=object)
    listed["owner_of_record"] = has_owner[~leave].to_numpy(bool)
    return listed, left


def no_owner_type(frame: pd.DataFrame, rules: Rules) -> pd.Series:
    """True for right-of-way and water polygons: ``poly_type`` in ``rules.no_owner_poly_types``
    (MassGIS ROW, PRIV_ROW, RAIL_ROW, WATER) or marked by the config's right-of-way rule
    (``[layers.parcels] right_of_way``, e.g. Cambridge's ``ML = ROAD``).

    The one predicate of "no owner by its polygon type": the abutter list and the subject of a
    ``site=`` call it, and the applicability map's right-of-way class is meant to.
    """
    return no_owner_kind(frame, rules) != ""


def no_owner_kind(frame: pd.DataFrame, rules: Rules) -> pd.Series:
    """Per row, what makes it a polygon with no owner: ``"ROW"``, ``"WATER"``, ... (its
    ``poly_type``), ``"ML = ROAD"`` (the config rule that marked a polygon whose ``poly_type``
    is not stated) or ``""`` (an ordinary parcel)."""
    kind = pd.Series("", index=frame.index, dtype=object)
    if frame.empty:
        return kind
    stated = pd.Series(False, index=frame.index)
    if "poly_type" in frame:
        pt = frame["poly_type"].astype("string").str.strip().str.upper()
        hit = pt.isin([t.upper() for t in rules.no_owner_poly_types]).fillna(False).astype(bool)
        kind[hit] = pt[hit].astype(object)
        stated = pt.fillna("").ne("")
    for rule, rows in _right_of_way_rules(frame, rules):
        column = RIGHT_OF_WAY_COLUMN if RIGHT_OF_WAY_COLUMN in frame else (
            rule.field if rule.field in frame else None)
        if column is None:
            continue
        values = frame[column].astype("string").str.strip().str.upper()
        wanted = {v.upper() for v in rule.values}
        # the rule stands in for a missing POLY_TYPE; a stated one (FEE, TAX, ROW) wins
        hit = values.isin(wanted).fillna(False).astype(bool) & ~stated & rows
        kind[hit] = [f"{rule.field} = {v}" for v in frame.loc[hit, column].astype(str).str.strip()]
    return kind


def _right_of_way_rules(frame: pd.DataFrame, rules: Rules) -> list[tuple[Any, pd.Series]]:
    """Each right-of-way rule with the rows it marks: per source (``source``) where the parcels
    come from several towns' sources, each with its own rule (``[[layers.parcels.sources]]``),
    else the town's one rule for every row."""
    everywhere = pd.Series(True, index=frame.index)
    if not rules.right_of_way_sources or "source" not in frame:
        return [(rules.right_of_way, everywhere)] if rules.right_of_way is not None else []
    out, claimed = [], pd.Series(False, index=frame.index)
    for source, rule in rules.right_of_way_sources:
        rows = (frame["source"] == source).fillna(False).astype(bool)
        claimed |= rows
        if rule is not None:
            out.append((rule, rows))
    if rules.right_of_way is not None and not claimed.all():
        out.append((rules.right_of_way, ~claimed))
    return out


def left_out_reason(kind: str, *, section: str | None = None) -> str:
    """The ``left_out.csv`` reason for a polygon with no owner (see :func:`no_owner_kind`);
    ``section``: the notice clause it cites (default: the default profile's)."""
    section = section or default_citations().notice
    what = (f"marked right-of-way by the town config ({kind})" if "=" in kind
            else f"{kind} polygon (right-of-way or water)")
    return (f"{what} with no assessing record: no owner to notify ({section} "
            "requires notice to the owners of property)")


def check_right_of_way_field(field_map: Mapping[str, str | None], rules: Rules, *,
                             source: Mapping[str, Any] | None = None) -> None:
    """Refuse a right-of-way rule whose field the parcels source does not have.

    ``field_map`` is the parcels' logical field -> source field, as read
    (:attr:`swm_gis.io.sources.Layer.field_map`); ``source`` their source record, whose file the
    message names.
    """
    rule = rules.right_of_way
    if rule is not None and RIGHT_OF_WAY_COLUMN in field_map and not field_map[
            RIGHT_OF_WAY_COLUMN]:
        file = (source or {}).get("file", "the parcels layer")
        raise ConfigError(
            f"{config_key('layers.parcels', 'right_of_way')} names the field {rule.field!r}, "
            f"which {file} does not have. Name one of its fields, e.g. right_of_way = "
            '{field = "ML", values = ["ROAD"]}.')


def _subject_rows(out: gpd.GeoDataFrame, subject: gpd.GeoDataFrame, id_col: str) -> np.ndarray:
    ids = set(subject_ids(subject, id_col))
    if ids and id_col in out:
        return id_series(out[id_col]).isin(ids).to_numpy(bool)
    subj_geoms = np.asarray(subject.geometry.values)
    return np.array([bool(shapely.equals(g, subj_geoms).any()) for g in out.geometry.values],
                    dtype=bool)


def _other_town(out: gpd.GeoDataFrame, subject: gpd.GeoDataFrame, parcels: gpd.GeoDataFrame,
                id_col: str) -> np.ndarray:
    """True where a row's town differs from the subject's: its source's town
    (``source_town``, where the parcels come from several towns' sources), or its town id."""
    by_source = _other_column(out, subject, parcels, id_col, "source_town")
    return by_source | _other_column(out, subject, parcels, id_col, "town_id")


def _other_column(out: gpd.GeoDataFrame, subject: gpd.GeoDataFrame, parcels: gpd.GeoDataFrame,
                  id_col: str, column: str) -> np.ndarray:
    if column not in out or out.empty:
        return np.zeros(len(out), dtype=bool)
    towns = None
    if column in subject:
        towns = subject[column]
    elif id_col in subject and id_col in parcels:
        towns = parcels.loc[parcels[id_col].isin(subject[id_col]), column]
    subject_towns = {town_key(v) for v in (towns if towns is not None else []) if pd.notna(v)}
    if not subject_towns:
        return np.zeros(len(out), dtype=bool)
    return out[column].map(
        lambda v: pd.notna(v) and town_key(v) not in subject_towns).to_numpy(bool)


def town_key(value: object) -> str:
    """A town id as text, so 164, 164.0 and "164" compare equal."""
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return ""
    if isinstance(value, float | np.floating) and float(value).is_integer():
        return str(int(value))
    text = str(value).strip()
    return text[:-2] if text.endswith(".0") and text[:-2].isdigit() else text


__all__ = ["MAIL_METHOD", "NO_OWNER_NOTE", "DistanceError",
           "SiteParcels",
           "check_right_of_way_field", "classify", "find_abutters", "left_out_reason",
           "no_owner_kind", "no_owner_type", "parcels_touched_by_site", "parse_distance_ft",
           "pond_extension", "bordered_ponds", "search_area", "subject_ids", "subject_union",
           "town_key"]

"""Warnings of the abutter job and its ``abutters.json`` document (README "Commands": its warnings).

A warning is ``{"code", "text"}``: the code is stable for programs (the QGIS plugin, scripts),
the text says what happened and what to do. The codes:

``parcels_missing_beyond_edge``
    Part of the search area is covered by no parcel polygon (rights-of-way and water count as
    covering) and lies beyond ``[layers.town_boundary]`` when one is configured, else beyond the
    outline of the parcels provided (or off the extent of the parcel sources): a town line whose
    neighbour's parcels are not configured. The text gives the area and the direction; owners
    there cannot be listed.
``site_overlaps_neighbour``
    A site polygon overlaps parcels it does not really lie on (``[rules] site_subject_share``):
    they stay abutters and are mailed; the text gives each overlap in sq ft.
``subjects_have_different_owners``
    The subject parcels' owners of record differ: check that the applicant owns them all.
``owners_not_found``
    Abutting parcels that can have an owner have no assessing record (named on the
    certification as not mailed); the text lists their ids.
``right_of_way_not_subject``
    A site polygon reaches into a right-of-way or water polygon: it is not the applicant's land and
    is not made a subject (else a street network would pull in half the town).
``subject_is_right_of_way``
    A subject given by parcel id is itself a right-of-way or water polygon.
``many_abutters``
    More abutting parcels than ``[rules] abutter_warning_count`` (500): said before hundreds of
    pages are written (a most-abutters limit, ``max_abutters``, stops instead).
``no_assessing_data``
    No ``[layers.assess]``: no owner can be named.
``tax_list_not_current``
    The assessing data's fiscal year (``fiscal_year``, MassGIS ``FY``) is older than the current
    Massachusetts fiscal year (FY N runs 1 July N-1 to 30 June N), or is not recorded.
``condo_units_missing``
    A condominium parcel (use code 102, 1020, ...: ``tables/condominium_use_codes.toml``) has
    fewer owner records than units (the ``units`` field, MassGIS ``UNITS``; else one master
    record): its unit owners are not on the list.
``address_does_not_fit``
    A recipient's address (not the name: a long name gives way) cannot be printed whole on the
    label or in the mailing book even at the smallest size; that piece must be addressed by hand.
``map_context_unread``
    An optional map layer (streets) could not be read; the map is drawn without it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import geopandas as gpd
import numpy as np
import shapely

from swm_gis import formatting as fmt
from swm_gis.config.town import TownConfig
from swm_gis.ids import id_text
from swm_gis.io import layers
from swm_gis.units import M_PER_FT

#: Uncovered strips narrower than twice this (metres) are digitising noise between a town
#: boundary and parcel lines drawn from deeds, not missing parcels.
SLIVER_M = 3.0
#: Gaps between parcel polygons narrower than twice this (metres), e.g. a street or brook drawn
#: without a polygon, lie inside the outline of the parcel coverage: they are not missing
#: parcels (the outline is the coverage closed by this radius).
CLOSE_M = 20.0
#: A direction is named when it holds at least this share of the missing area.
DIRECTION_SHARE = 0.25


def warning(code: str, text: str) -> dict[str, str]:
    return {"code": code, "text": text}


# --------------------------------------------------------------------------- coverage
def source_extents(config: TownConfig, key: str = "parcels") -> list[shapely.Geometry] | None:
    """The extent (bounding box, working CRS) of each source of a layer, from
    :func:`swm_gis.io.layers.source_extents`; None when unknown (a source that cannot be read or
    states no extent: the town-boundary test still runs).

    A layer whose ``path`` is a list (several towns' parcels read as one) gives one box per
    source, so the coverage test sees the gap between two towns' boxes too. An empty source
    covers nothing and gives no box.
    """
    try:
        found = layers.source_extents(config, key)
    except Exception:  # noqa: BLE001 - an extent we cannot read is unknown
        return None
    boxes = []
    for source in found:
        if source["bounds"] is None:
            if source.get("features") == 0:
                continue
            return None
        boxes.append(shapely.box(*source["bounds"]))
    return boxes


def missing_parcels_area(
    area: shapely.Geometry,
    parcels: Sequence[shapely.Geometry] | np.ndarray,
    *,
    extents: Iterable[shapely.Geometry] | None,
    boundary: shapely.Geometry | None,
    metres_per_unit: float = 1.0,
) -> tuple[shapely.Geometry, list[str]]:
    """The part of the search ``area`` where parcels are missing, and why (phrases).

    Measured from the parcels themselves: the part of the area that no parcel polygon covers
    (rights-of-way and water polygons included), after closing the coverage by
    :data:`CLOSE_M` (streets drawn without polygons are inside it), and that lies beyond the
    town ``boundary`` when one is given, else beyond that outline. A part off every source's
    extent is missing whatever the boundary says. Pieces under ``2 * SLIVER_M`` wide are
    ignored.

    Examples
    --------
    Lots cover x <= 300 (a town line at x = 300 m); a 20 m x 30 m subject 20 m from the line
    has a 30.48 m (100 ft) search area reaching 10.48 m across it: 10.48 m x 30 m plus two
    circular segments, 314.4 + 334.4 = 648.8 m2 (648 for the 32-segment buffer).

    >>> from shapely.geometry import box
    >>> lots = [box(x, y, x + 20, y + 30) for x in range(0, 300, 20) for y in range(0, 300, 30)]
    >>> area = box(260, 150, 280, 180).buffer(30.48, quad_segs=32)
    >>> gap, why = missing_parcels_area(area, lots, extents=None, boundary=None)
    >>> round(gap.area), why
    (648, ['beyond the outline of the parcels provided (no town boundary layer is configured)'])
    """
    sliver = SLIVER_M / metres_per_unit
    geoms = np.asarray(parcels, dtype=object)
    if len(geoms):
        geoms = geoms[~(shapely.is_missing(geoms) | shapely.is_empty(geoms))]
    radius = CLOSE_M / metres_per_unit
    cover = shapely.union_all(shapely.intersection(
        geoms, shapely.buffer(area, 2 * radius))) if len(geoms) else shapely.Polygon()
    outline = shapely.buffer(shapely.buffer(cover, radius, quad_segs=8), -radius, quad_segs=8)
    uncovered = shapely.difference(area, shapely.union_all([outline, cover]))
    gaps, why = [], []
    extents = list(extents) if extents is not None else []
    if boundary is not None and not boundary.is_empty:
        beyond = _wide_parts(shapely.difference(uncovered, boundary), sliver)
        if not beyond.is_empty:
            gaps.append(beyond)
            why.append("beyond the town boundary layer, where no parcel polygon covers it")
    else:
        beyond = _wide_parts(uncovered, sliver)
        if not beyond.is_empty:
            gaps.append(beyond)
            why.append("beyond the outline of the parcels provided (no town boundary layer "
                       "is configured)")
    if extents:
        # off every source's extent no data can be: the bare coverage, not its outline
        bare = shapely.difference(area, cover)
        outside = _wide_parts(shapely.difference(bare, shapely.union_all(extents)), sliver)
        if not outside.is_empty:
            gaps.append(outside)
            why.append("off the extent of the parcel layer")
    if not gaps:
        return shapely.Polygon(), []
    return shapely.union_all(gaps), why


def _wide_parts(geom: shapely.Geometry, sliver: float) -> shapely.Geometry:
    """The polygon parts of ``geom`` wider than ``2 * sliver`` (whole, not eroded)."""
    if geom is None or geom.is_empty:
        return shapely.Polygon()
    parts = shapely.get_parts(geom)
    parts = parts[shapely.get_type_id(parts) == 3]
    wide = parts[~shapely.is_empty(shapely.buffer(parts, -sliver))] if len(parts) else parts
    return shapely.union_all(wide) if len(wide) else shapely.Polygon()


_POINTS = ["east", "north-east", "north", "north-west", "west", "south-west", "south",
           "south-east"]


def compass(origin: shapely.Geometry, target: shapely.Geometry) -> str:
    """The direction from ``origin`` to ``target`` (their centroids), in eight points."""
    a, b = shapely.centroid(origin), shapely.centroid(target)
    angle = math.degrees(math.atan2(b.y - a.y, b.x - a.x))
    return _POINTS[int(((angle + 22.5) % 360) // 45)]


def directions(origin: shapely.Geometry, target: shapely.Geometry, *,
               least_share: float = DIRECTION_SHARE) -> list[str]:
    """Where ``target`` lies from ``origin``, by where its area is: the plane is cut into nine
    zones by ``origin``'s bounding box; each corner zone's area is shared between its two sides
    (north-east: half north, half east), and the sides holding at least ``least_share`` of the
    area are named, largest first; two neighbouring sides named for a gap mostly in the corner
    between them are that corner ("north-east"). A gap wrapping round a corner is named by
    where its area is, not by its centroid, which may lie where there is no gap at all.

    >>> from shapely.geometry import box
    >>> west, south = box(-40, -5, -10, 95), box(0, -40, 20, -10)
    >>> directions(box(0, 0, 20, 90), shapely.union_all([west, south]))
    ['west']
    >>> directions(box(0, 0, 20, 90), shapely.union_all([box(-30, 0, -10, 90),
    ...                                                 box(30, 0, 50, 90)]))
    ['east', 'west']
    >>> directions(box(0, 0, 20, 20), box(25, 25, 40, 40))
    ['north-east']
    """
    x0, y0, x1, y1 = origin.bounds
    tx0, ty0, tx1, ty1 = target.bounds
    far = 2 * max(tx1 - tx0, ty1 - ty0, x1 - x0, y1 - y0, 1.0)
    xs = (min(x0, tx0) - far, x0, x1, max(x1, tx1) + far)
    ys = (min(y0, ty0) - far, y0, y1, max(y1, ty1) + far)
    # zone (column, row) -> its point (index of _POINTS: 0 east, 1 north-east, ...)
    zones = {(2, 1): 0, (2, 2): 1, (1, 2): 2, (0, 2): 3, (0, 1): 4, (0, 0): 5, (1, 0): 6,
             (2, 0): 7}
    areas = [0.0] * 8
    for (i, j), k in zones.items():
        cell = shapely.box(xs[i], ys[j], xs[i + 1], ys[j + 1])
        areas[k] = float(shapely.area(shapely.intersection(target, cell)))
    total = sum(areas)
    if total <= 0:
        return [compass(origin, target)]
    sides = {k: areas[k] + (areas[(k - 1) % 8] + areas[(k + 1) % 8]) / 2 for k in (0, 2, 4, 6)}
    named = sorted((k for k in sides if sides[k] / total >= least_share),
                   key=lambda k: -sides[k]) or [max(sides, key=sides.get)]
    if len(named) == 2 and (named[0] - named[1]) % 8 in (2, 6):
        corner = (named[0] + 1) % 8 if (named[1] - named[0]) % 8 == 2 else (named[0] - 1) % 8
        if areas[corner] >= 0.5 * total:
            return [_POINTS[corner]]
    return [_POINTS[k] for k in named]


def edge_warning(config: TownConfig, subject: gpd.GeoDataFrame, area: gpd.GeoDataFrame,
                 candidates: gpd.GeoDataFrame, *, distance_ft: float) -> dict[str, str] | None:
    """Warning ``parcels_missing_beyond_edge`` when part of the search area is covered by no
    parcel beyond the town line (see :func:`missing_parcels_area`), with its area in sq ft, the
    direction(s) it lies in and what to add."""
    from swm_gis.units import metres_per_unit

    area_geom = shapely.union_all(area.geometry.values)
    boundary = None
    if config.has("town_boundary"):
        x0, y0, x1, y1 = area_geom.bounds
        town = layers.read_layer(config, "town_boundary", bbox=(x0, y0, x1, y1))
        boundary = shapely.union_all(town.geometry.values) if len(town) else shapely.Polygon()
    factor = metres_per_unit(config.crs)
    gap, why = missing_parcels_area(area_geom, candidates.geometry.values,
                                    extents=source_extents(config), boundary=boundary,
                                    metres_per_unit=factor)
    if gap.is_empty:
        return None
    sqft = shapely.area(gap) * (factor / M_PER_FT) ** 2
    where = " and ".join(directions(shapely.union_all(subject.geometry.values), gap))
    return warning("parcels_missing_beyond_edge", (
        f"The {distance_ft:g} ft search area reaches {fmt.sqft(sqft)} to the {where} of the "
        f"subject that no parcel polygon covers ({'; '.join(why)}): owners there, e.g. "
        "across the town line, are not listed. Add the neighbouring town's parcels as a further "
        "source of the town's parcel layer (MassGIS publishes each town as "
        "L3_SHP_M<town id>_<NAME>.zip) and its assessing table as a further source of the "
        "assessing table, then run again."))


# --------------------------------------------------------------------------- other warnings
def right_of_way_warning(skipped: Sequence[str]) -> dict[str, str] | None:
    if not skipped:
        return None
    return warning("right_of_way_not_subject", (
        f"The site reaches into right-of-way or water polygon(s) {', '.join(skipped)}: they are "
        "not the applicant's land and are not subject parcels (their abutters are not "
        "notified for them). If part of the work lies in a street, the street's owner is "
        "notified through the town, not by this list."))


def subject_right_of_way_warning(ids: Sequence[str]) -> dict[str, str] | None:
    if not ids:
        return None
    return warning("subject_is_right_of_way", (
        f"The subject {', '.join(ids)} is a right-of-way or water polygon (no owner): its "
        "abutters are everyone along it. Give the applicant's own parcel(s) as the subject "
        "(by parcel id or by a site polygon)."))


def many_abutters_warning(n_abutting: int, limit: int, *, distance_ft: float
                          ) -> dict[str, str] | None:
    if n_abutting <= limit:
        return None
    return warning("many_abutters", (
        f"{n_abutting} parcels lie within {distance_ft:g} ft of the subject, more than the "
        f"usual {limit} (the town's abutter warning count): check the subject and the "
        "distance (a street, railway or water polygon given as the subject reaches half the "
        "town). The package is written anyway; set a most-abutters limit to stop instead."))


def site_overlap_warning(grazed: Sequence[Mapping[str, Any]], *, share: float
                         ) -> dict[str, str] | None:
    """Warning ``site_overlaps_neighbour``: parcels the site overlaps without lying on them
    (:func:`swm_gis.rules.abutters.parcels_touched_by_site`), each with its overlap."""
    if not grazed:
        return None
    parts = [_overlap_part(g) for g in grazed]
    return warning("site_overlaps_neighbour", (
        f"The site overlaps {len(grazed)} neighbouring parcel(s) it does not lie on: "
        f"{'; '.join(parts)}. A parcel is a subject only where the site covers at least "
        f"{100 * share:g} % of it or it holds {100 * share:g} % of the site (the town's "
        "site subject share) and its owner is the main subject's owner, so these are abutters "
        "and their owners are mailed. If the work really extends onto them, give the subject by "
        "parcel id; if the site was drawn off its lot (a survey-to-GIS shift) or as its lot "
        "plus a margin, nothing needs doing."))


def _overlap_part(g: Mapping[str, Any]) -> str:
    """One parcel of the ``site_overlaps_neighbour`` text: its overlap, and its owner where
    the owner is what keeps it from being a subject."""
    text = (f"{g['id'] or '(no id)'} ({fmt.sqft(g['overlap_sqft'])}, "
            f"{100 * g['parcel_share']:.1f} % of the parcel")
    if g.get("owner_differs"):
        owner = "; ".join(g.get("owners") or []) or "no owner of record"
        main = "; ".join(g.get("main_owners") or []) or "no owner of record"
        text += (f"; owner {owner}, not the owner of the main subject {g.get('main_subject')}"
                 f" ({main})")
    return text + ")"


def different_owners_warning(owners: Mapping[str, Sequence[str]], *,
                             owner_rule: str | None = None) -> dict[str, str] | None:
    """Warning ``subjects_have_different_owners`` when the subject parcels' owners of record
    are not the same (names compared as the mailing list compares them). ``owner_rule``: the
    regulation applied's words on who owns the site (the ``[notes] owner_of_site`` of its
    texts; swm-gis's own words without)."""
    from swm_gis.rules.owners import normalise_owner

    keys = {pid: frozenset(normalise_owner(n) for n in names) for pid, names in owners.items()}
    if len(keys) < 2 or len(set(keys.values())) == 1:
        return None
    shown = "; ".join(f"{pid}: {', '.join(names)}" for pid, names in owners.items())
    return warning("subjects_have_different_owners", (
        f"The subject parcels have different owners of record ({shown}). "
        f"{owner_rule or 'The permittee should own the site'}: check that the subject is right "
        "(a parcel may be a neighbour the site only reaches) and that every owner signs the "
        "application."))


def owners_not_found_warning(listed, *, has_assess: bool) -> dict[str, str] | None:
    """Warning ``owners_not_found`` naming abutting parcels with no assessing record."""
    if not has_assess or not len(listed):
        return None
    missing = listed.loc[~listed["owner_of_record"].astype(bool)]
    if missing.empty:
        return None
    ids = [id_text(v) or "(no id)" for v in missing["parcel_id"]]
    shown = ", ".join(ids[:20]) + (f" and {len(ids) - 20} more" if len(ids) > 20 else "")
    return warning("owners_not_found", (
        f"{len(ids)} of {len(listed)} abutting parcel(s) have no assessing record, so no owner "
        f"is named or mailed for them: {shown}. They are named on the certification as not "
        "mailed; ask the Assessors for their owners and addresses (or check that the "
        "assessing table holds the whole town and joins by the same id)."))


def tax_list_warning(status) -> dict[str, str] | None:
    """Warning ``tax_list_not_current``: the assessing data's fiscal year
    (:class:`swm_gis.rules.mailing.tax_list.TaxListStatus`) is older than the current Massachusetts
    fiscal year, or not recorded."""
    if status.is_current:
        return None
    if status.latest is None:
        found = "does not record its fiscal year (no fiscal_year field, MassGIS FY, or it is empty)"
    else:
        found = f"is of FY{status.latest}"
    return warning("tax_list_not_current", (
        f"The assessing data {found}; the current Massachusetts fiscal year is "
        f"FY{status.current} (1 July {status.current - 1} to 30 June {status.current}). Notice "
        "goes to the owners on the most recent tax list: ask the Assessors for the current "
        "one (MassGIS publishes each town's parcels with its fiscal year in the file name), or "
        "have them check the owners and addresses before they certify the list."))


def condo_units_warning(missing: Sequence[Mapping[str, Any]]) -> dict[str, str] | None:
    """Warning ``condo_units_missing``: condominium parcels with fewer owner records than
    units (:func:`swm_gis.rules.mailing.condominiums.missing_unit_owners`)."""
    if not missing:
        return None
    parts = [f"{m['parcel_id']} (use code {m['use_code']}: {m['records']} owner record(s)"
             + (f" for {m['units']} units)" if m["units"] is not None
                else ", no unit count in the data)") for m in missing]
    return warning("condo_units_missing", (
        f"{len(missing)} condominium parcel(s) have fewer owner records than units: "
        f"{'; '.join(parts)}. Their unit owners are not on the list, and each is owed a "
        "notice: ask the Assessors for the unit owners and their mailing addresses, or "
        "configure the town's unit-owner table (the condo_units layer of the town config) and "
        "run again."))


def no_assess_warning() -> dict[str, str]:
    return warning("no_assessing_data", "No assessing table is configured: no owners could be "
                   "named and the mailing list is empty.")


# --------------------------------------------------------------------------- abutters.json
#: Why an abutting parcel gets no notice (``reason_code`` of :func:`not_mailed_parcels`).
NOT_MAILED_REASONS = {
    "no_owner_of_record": "no owner of record in the assessing data: ask the Assessors",
    "no_usable_address": "no usable mailing address for its owner(s) (mailing_review.csv): "
                         "ask the Assessors",
    "right_of_way_or_water": "right-of-way or water polygon with no owner",
}
NOT_MAILED_COLUMNS = ["parcel_id", "map_par_id", "distance_ft", "reason_code", "reason"]


def not_mailed_parcels(listed, left, mailable, *, subject_ids: Iterable[str] = (),
                       include_subject: bool = False):
    """Every parcel within the distance (the subject's own rows aside, unless
    ``include_subject``) whose owners get no notice, nearest first, with ``reason_code``
    (:data:`NOT_MAILED_REASONS`) and ``reason``. A parcel is mailed when one of its owners is on
    the mailing list (a condominium unit owner without an address is named on the review list).
    """
    import pandas as pd

    mailed = {p for ids in mailable.get("parcel_ids", [])
              for p in str(ids).split("; ")}
    subjects = {str(s) for s in subject_ids}
    rows = []
    for rec in listed.to_dict("records"):
        pid = rec.get("parcel_id")
        has_id = pid is not None and not (isinstance(pid, float) and math.isnan(pid))
        if rec.get("is_subject") and not include_subject:
            continue
        if not rec.get("owner_of_record", False) or not has_id:
            code = "no_owner_of_record"
        elif id_text(pid) in mailed:
            continue
        else:
            code = "no_usable_address"
        rows.append({**_ids(rec), "distance_ft": rec.get("distance_ft"), "reason_code": code,
                     "reason": NOT_MAILED_REASONS[code]
                     + ("" if has_id else " (the polygon has no parcel id)")})
    for rec in left.to_dict("records"):
        if str(rec.get("parcel_id", rec.get("id"))) in subjects:
            continue
        rows.append({**_ids(rec), "distance_ft": rec.get("distance_ft"),
                     "reason_code": "right_of_way_or_water",
                     "reason": str(rec.get("reason") or NOT_MAILED_REASONS[
                         "right_of_way_or_water"])})
    out = pd.DataFrame(rows, columns=NOT_MAILED_COLUMNS)
    if len(out):
        out = out.sort_values("distance_ft", kind="stable").reset_index(drop=True)
    return out


def _ids(rec: Mapping[str, Any]) -> dict[str, str]:
    def text(v: Any) -> str:
        return "" if v is None or (isinstance(v, float) and math.isnan(v)) else str(v)

    return {"parcel_id": id_text(rec.get("parcel_id", rec.get("id"))) or "",
            "map_par_id": text(rec.get("map_par_id"))}


def not_mailed_records(not_mailed) -> list[dict[str, Any]]:
    """The not-mailed parcels as JSON records (``abutters.json`` ``not_mailed``)."""
    return [{"parcel_id": r["parcel_id"], "map_par_id": r["map_par_id"],
             "distance_ft": round(float(r["distance_ft"]), 2) if r["distance_ft"] is not None
             and not (isinstance(r["distance_ft"], float) and math.isnan(r["distance_ft"]))
             else None,
             "reason_code": r["reason_code"], "reason": r["reason"]}
            for r in not_mailed.to_dict("records")] if not_mailed is not None else []


def package_counts(listed, left, recipient_counts: Mapping[str, int], *,
                   not_mailed=None) -> dict[str, int]:
    """The counts of ``abutters.json``: abutting, left out, no owner of record, other town,
    then every count of :func:`swm_gis.rules.owners.build_recipients`; with ``not_mailed``
    (:func:`not_mailed_parcels`) also ``parcels_total`` = ``parcels_mailed`` +
    ``parcels_not_mailed`` + ``parcels_subject`` (every parcel within the distance,
    rights-of-way and water included; the subject parcels, the applicant's own, are not mailed
    unless asked and are counted apart: 0 with ``include_subject``, when they are listed)."""
    n = len(listed)
    no_owner = int((~listed["owner_of_record"].astype(bool)).sum()) if n else 0
    other = int(listed["other_town"].astype(bool).sum()) if n else 0
    counts = {"abutting": n, "left_out": len(left), "no_owner_of_record": no_owner,
              "other_town": other, **{k: int(v) for k, v in recipient_counts.items()}}
    if not_mailed is not None:
        # the listed rows hold the subject's own only with --include-subject; the left-out rows
        # hold them otherwise (not counted: the subject is not its own abutter)
        others_left = int((~left["reason"].astype(str).str.startswith("subject parcel")).sum()) \
            if len(left) and "reason" in left else len(left)
        subjects = len(left) - others_left if len(left) else 0
        total = n + others_left + subjects
        counts["parcels_not_mailed"] = len(not_mailed)
        counts["parcels_subject"] = subjects
        counts["parcels_total"] = total
        counts["parcels_mailed"] = total - subjects - len(not_mailed)
    return counts


def abutters_document(info, *, counts: Mapping[str, int], warnings: list[dict[str, str]],
                      site_source: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The ``abutters.json`` document (schema ``swm_gis/schemas/abutters.schema.json``)."""
    return {
        "town": info.town,
        "synthetic": bool(info.synthetic),
        "generated": info.generated,
        "section": info.section,
        "notice": {"list": info.notice, "citation": info.section, "board": info.board,
                   "definition": info.definition},
        "subject": {"parcel_ids": list(info.subject_ids), "site": site_source,
                    "parcels": [dict(s) for s in info.subjects]},
        "tax_list": {"fiscal_year": info.tax_list.latest,
                     "current_fiscal_year": info.tax_list.current,
                     "current": info.tax_list.is_current},
        "distance_ft": float(info.distance_ft),
        "include_subject": bool(info.include_subject),
        "fiscal_years": list(info.fiscal_years),
        "counts": dict(counts),
        "not_mailed": list(info.not_mailed),
        "warnings": list(warnings),
        "notes": list(info.notes),
        "sources": [dict(s) for s in info.sources],
        "towns": [{"town": t, "parcel_ids": list(ids)} for t, ids in info.towns],
        "regulation": dict(info.regulation) if info.regulation else None,
    }


__all__ = ["NOT_MAILED_REASONS", "abutters_document", "compass",
           "condo_units_warning", "different_owners_warning", "directions", "edge_warning",
           "many_abutters_warning",
           "missing_parcels_area", "no_assess_warning", "not_mailed_parcels",
           "not_mailed_records", "owners_not_found_warning", "package_counts",
           "site_overlap_warning", "tax_list_warning",
           "right_of_way_warning", "source_extents", "subject_right_of_way_warning",
           "warning"]

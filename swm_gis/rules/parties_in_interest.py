"""Parties in interest under M.G.L. c.40A, § 11: the zoning notice list (``docs/abutters.md``).

Section 11 has notice sent to "the petitioner, abutters, owners of land directly opposite on any
public or private street or way, and abutters to the abutters within three hundred feet of the
property line of the petitioner". Read on parcel polygons:

* an **abutter** is an owned parcel whose boundary lies within ``tolerance_ft`` (3 ft) of the
  subject's (GIS parcel lines drawn from deeds leave slivers);
* a parcel is **directly opposite** when it abuts (within the tolerance) a street or way polygon
  that the subject abuts, and the straight line between the subject and it (the shortest one)
  runs across that street or way: inside it (within the tolerance), its middle off the street's
  edge (a lot beside the subject is reached along the edge, not across), and it lies partly in
  the band straight across the street from the subject's frontage (not a lot diagonally down
  the street): the lots facing the subject, however wide the street, within ``distance_ft``;
* an **abutter to an abutter** is an owned parcel abutting an abutter, within ``distance_ft``
  (300 ft) of the subject's property line;
* every parcel within ``always_within_ft`` (100 ft) is listed too, so the zoning list is never
  narrower than the conservation list.

Right-of-way and water polygons carry no owner: they never make a parcel an abutter's abutter
(else a street would reach half the town), and the caller leaves them out with the reason as it
does for the conservation list. Distances are exact (``shapely.distance``), never buffers.

Examples
--------
40 m lots south of a 40 m (131 ft) wide street, the subject S among them: A abuts S; AA abuts A,
40 m (131 ft) from S; R abuts only AA, 80 m (262 ft) from S: no abutter's abutter, left out.
N1 faces S across the street (131 ft away): directly opposite. The street polygon ST lies
within 100 ft (the caller leaves it out: it has no owner).

>>> import geopandas as gpd
>>> from shapely.geometry import box
>>> parcels = gpd.GeoDataFrame({"id": ["S", "A", "AA", "R", "ST", "N1"],
...     "poly_type": ["FEE", "FEE", "FEE", "FEE", "ROW", "FEE"]}, crs="EPSG:26986",
...     geometry=[box(0, 0, 40, 40), box(40, 0, 80, 40), box(80, 0, 120, 40),
...               box(120, 0, 160, 40), box(-100, 40, 300, 80), box(0, 80, 40, 120)])
>>> out = parties_in_interest(parcels, parcels.iloc[[0]])
>>> dict(zip(out["id"], out["relation"]))  # doctest: +NORMALIZE_WHITESPACE
{'A': 'within 100 ft; abutter', 'ST': 'within 100 ft', 'AA': 'abutter to an abutter',
 'N1': 'directly opposite'}
"""

from __future__ import annotations

from collections.abc import Iterable

import geopandas as gpd
import numpy as np
import shapely
import shapely.ops

from swm_gis.config.town import Rules
from swm_gis.rules.abutters import find_abutters, no_owner_kind, subject_union
from swm_gis.units import M_PER_FT, metres_per_unit

RELATIONS = ("within {always:g} ft", "abutter", "directly opposite", "abutter to an abutter")


def street_kinds(kinds: Iterable[str], street_poly_types: Iterable[str]) -> np.ndarray:
    """True where a polygon's no-owner kind (:func:`~swm_gis.rules.abutters.no_owner_kind`) is
    a street or way: a ``poly_type`` in ``street_poly_types`` or the town config's
    right-of-way rule (``"ML = ROAD"``)."""
    types = {t.upper() for t in street_poly_types}
    return np.array([k.upper() in types or "=" in k for k in kinds], dtype=bool)


def parties_in_interest(
    parcels: gpd.GeoDataFrame,
    subject: gpd.GeoDataFrame,
    *,
    distance_ft: float = 300.0,
    always_within_ft: float = 100.0,
    tolerance_ft: float = 3.0,
    street_poly_types: Iterable[str] = ("ROW", "PRIV_ROW"),
    include_subject: bool = False,
    rules: Rules | None = None,
    id_col: str = "id",
) -> gpd.GeoDataFrame:
    """The c.40A § 11 parties in interest of the subject property.

    Parameters
    ----------
    parcels
        Candidate parcels (projected CRS), those within ``distance_ft`` of the subject at least,
        with ``id`` and, where known, ``poly_type`` and ``town_id``.
    subject
        The subject parcel(s); their union is the property.
    distance_ft
        How far abutters to abutters reach from the subject's property line (300 ft).
    always_within_ft
        Every parcel within this distance is listed (100 ft).
    tolerance_ft
        Boundaries within this distance abut (3 ft).
    street_poly_types
        ``poly_type`` values of streets and ways ("directly opposite" runs through them).
    include_subject
        Keep the subject's own rows (``relation`` "subject").
    rules
        Rule values: the no-owner polygon types and the town's right-of-way rule.
    id_col
        The parcel id column.

    Returns
    -------
    GeoDataFrame
        The rows of :func:`~swm_gis.rules.abutters.find_abutters` at ``distance_ft`` that are
        parties in interest, each with ``relation`` (every relation that makes it one,
        ``"; "`` between), nearest first.
    """
    rules = rules or Rules()
    found = find_abutters(parcels, subject, distance_ft=distance_ft, include_subject=True,
                          rules=rules, id_col=id_col)
    if found.empty:
        return found.assign(relation=np.array([], dtype=object))
    factor = metres_per_unit(found.crs)
    tol = (tolerance_ft * M_PER_FT + 1e-6) / factor
    subj = subject_union(subject.to_crs(found.crs))
    geoms = np.asarray(found.geometry.values)
    is_subject = found["is_subject"].to_numpy(bool)
    kinds = no_owner_kind(found, rules).to_numpy(object)
    owned = (kinds == "") & ~is_subject
    near = shapely.distance(geoms, subj) <= tol
    abutter = owned & near
    within = ~is_subject & (found["distance_ft"].to_numpy(float) <= always_within_ft + 1e-9)
    reach = distance_ft * M_PER_FT / factor
    opposite = owned & ~abutter & _opposite(geoms, subj, street_kinds(kinds, street_poly_types)
                                            & near, tol, reach)
    beyond = owned & ~abutter & _abut_any(geoms, geoms[abutter], tol)
    labels = [RELATIONS[0].format(always=always_within_ft), *RELATIONS[1:]]
    masks = [within, abutter, opposite, beyond]
    relation = ["; ".join(lab for lab, m in zip(labels, masks, strict=True) if m[i])
                for i in range(len(found))]
    out = found.assign(relation=np.array(relation, dtype=object))
    keep = is_subject if include_subject else np.zeros(len(out), dtype=bool)
    keep = keep | (out["relation"].to_numpy(object) != "")
    out.loc[out["is_subject"].to_numpy(bool), "relation"] = "subject"
    return out.loc[keep]


def _abut_any(geoms: np.ndarray, others: np.ndarray, tol: float) -> np.ndarray:
    """True for each of ``geoms`` within ``tol`` of one of ``others``."""
    hit = np.zeros(len(geoms), dtype=bool)
    if len(others) == 0:
        return hit
    pairs = shapely.STRtree(others).query(geoms, predicate="dwithin", distance=tol)
    hit[np.unique(pairs[0])] = True
    return hit


def frontage_strip(subj: shapely.Geometry, street: shapely.Geometry, *, tol: float,
                   reach: float) -> shapely.Geometry:
    """The band straight across ``street`` from the subject's frontage on it: the subject's
    boundary within ``tol`` of the street (its side lines' stubs, ``tol`` long, trimmed off),
    grown ``reach`` to either side, each straight piece with flat ends.

    >>> from shapely.geometry import box
    >>> strip = frontage_strip(box(0, 0, 40, 40), box(-100, 40, 300, 80), tol=0.9, reach=100)
    >>> [round(v, 1) for v in strip.bounds]
    [0.0, -60.0, 40.0, 140.0]
    """
    front = shapely.line_merge(shapely.intersection(shapely.boundary(subj),
                                                    shapely.buffer(street, tol)))
    parts = [p for p in shapely.get_parts(front) if shapely.get_type_id(p) == 1]
    cut = [shapely.ops.substring(p, tol, p.length - tol) for p in parts if p.length > 2 * tol]
    # each straight piece swept on its own: a corner lot's two frontages give two bands, not a
    # quarter circle round the corner
    coords = [shapely.get_coordinates(c) for c in cut]
    pieces = [shapely.linestrings(np.stack([xy[:-1], xy[1:]], axis=1)) for xy in coords
              if len(xy) > 1]
    if not pieces:
        return shapely.Polygon()
    return shapely.union_all(shapely.buffer(np.concatenate(pieces), reach, cap_style="flat"))


def _opposite(geoms: np.ndarray, subj: shapely.Geometry, streets: np.ndarray, tol: float,
              reach: float) -> np.ndarray:
    """True for each of ``geoms`` directly opposite the subject across one of the street
    polygons marked in ``streets``: it abuts the street, lies partly in the band straight
    across the street from the subject's frontage (:func:`frontage_strip`), and the shortest
    line from the subject to it runs across the street (inside it, grown by ``tol``, its
    middle off the street's edge)."""
    hit = np.zeros(len(geoms), dtype=bool)
    for street in geoms[streets]:
        grown = shapely.buffer(street, tol)
        edge = shapely.boundary(street)
        strip = frontage_strip(subj, street, tol=tol, reach=reach)
        along = (shapely.distance(geoms, street) <= tol) & (
            shapely.area(shapely.intersection(geoms, strip)) > tol * tol)
        for i in np.flatnonzero(along & ~hit):
            line = shapely.shortest_line(subj, geoms[i])
            # across, not along: the line's middle lies inside the street, off its edge (a lot
            # beside the subject on the same side is reached along the street's edge)
            middle = shapely.line_interpolate_point(line, 0.5, normalized=True)
            hit[i] = bool(shapely.covered_by(line, grown) and shapely.within(middle, street)
                          and shapely.distance(middle, edge) > tol)
    return hit


__all__ = ["RELATIONS", "frontage_strip", "parties_in_interest", "street_kinds"]

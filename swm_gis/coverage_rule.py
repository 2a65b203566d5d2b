"""The coverage rule: whether a search is covered by a layer's coverage area (pure geometry).

One rule for both jobs (docs/findings.md, "One coverage rule for the screening and the map"):
:mod:`swm_gis.io.coverage` reads what area each configured layer covers; the screening asks
:func:`covers` about its site, the applicability map about every parcel at once (vectorised),
with the same slack (:data:`_SLACK`) and the same test of a search grown by a distance. An area
whose coverage cannot be known is :data:`UNKNOWN`: it covers nothing, so the answer is
"unknown" (a conditional finding, a null flag), never "no".
"""

from __future__ import annotations

from typing import Any

import numpy as np
import shapely

__all__ = ["SLIVER_WIDTH", "UNKNOWN", "Areas", "covered_by_all", "covers", "grown_area",
           "in_town", "wider_than_a_sliver"]

#: Search areas may exceed a coverage by this much (CRS units) and still count as covered:
#: rounding of a bounding box written to metadata.
_SLACK = 0.01
#: The area of a layer whose coverage cannot be known: it covers nothing.
UNKNOWN = shapely.Polygon()


def in_town(geoms: np.ndarray, town: shapely.Geometry | None) -> np.ndarray:
    """Per geometry: does it share area with ``town`` (the union of the town boundary's
    polygons, :func:`swm_gis.io.coverage.town_area`)? A geometry that only touches the town line
    is outside, and so is one whose shared part is a sliver (:func:`wider_than_a_sliver`): the
    thread of area a parcel drawn along the line gets when its coordinates or the town's were
    reprojected or rounded (1e-11 to 1e-9 m wide on the sample town's parcels moved to UTM and
    back). The one rule of both jobs: the screening refuses a site outside the town, the
    applicability map classes such a parcel "outside the town". ``town`` None (no town
    boundary configured): every geometry is in.

    >>> town = shapely.box(0, 0, 10, 10)
    >>> in_town(np.array([shapely.box(5, 5, 15, 15), shapely.box(10, 0, 20, 10),
    ...                   shapely.box(10 - 1e-9, 0, 20, 10)]), town).tolist()
    [True, False, False]
    """
    geoms = np.asarray(geoms, dtype=object)
    if town is None:
        return np.ones(len(geoms), dtype=bool)
    # most parcels lie inside the town: a prepared test settles them, and only the few that
    # cross the town line are intersected (an intersection per parcel cost 1.1 s of a 200,000
    # parcel map). The answer is the same: a geometry the town covers shares itself, also one
    # drawn along the line (a test of "properly inside" sent those to the intersection: 276
    # parcels of a tile at the edge of the statewide benchmark, 10 ms of its 170; and the
    # tile's envelope drawn to the line now settles the tile at once)
    shapely.prepare(town)
    if len(geoms) and shapely.covers(town, shapely.box(*shapely.total_bounds(geoms))):
        return wider_than_a_sliver(geoms)  # the envelope of them all lies inside (most tiles)
    inside = shapely.covers(town, geoms)
    out = np.zeros(len(geoms), dtype=bool)
    out[inside] = wider_than_a_sliver(geoms[inside])
    edge = np.flatnonzero(~inside & shapely.intersects(town, geoms))
    out[edge] = wider_than_a_sliver(shapely.intersection(geoms[edge], town))
    return out


#: Below this mean width (CRS units: 1 mm, or 0.3 mm in feet) an area is a sliver, not land:
#: a million times the slivers reprojection leaves, far below what parcel maps are drawn to.
SLIVER_WIDTH = 1e-3


def wider_than_a_sliver(geoms: np.ndarray) -> np.ndarray:
    """Per geometry: is its mean width (twice its area over its perimeter: a strip's width, half
    a square's side) more than :data:`SLIVER_WIDTH`? False for lines, points, empty and missing
    geometries (no area).

    >>> wider_than_a_sliver(np.array([shapely.box(0, 0, 10, 10), shapely.box(0, 0, 10, 0.002),
    ...                               shapely.box(0, 0, 10, 0.0005), None])).tolist()
    [True, True, False, False]
    """
    area = shapely.area(geoms)
    with np.errstate(invalid="ignore"):  # a missing geometry: NaN, never wider
        return 2 * area > SLIVER_WIDTH * shapely.length(geoms)


def grown_area(area: shapely.Geometry | None) -> shapely.Geometry | None:
    """A coverage area grown by the slack, ready for :func:`covers` (None: everywhere)."""
    if area is None or area.is_empty:
        return area
    return shapely.buffer(area, _SLACK)


class Areas(list):
    """The coverage areas of several layers (a list), with their intersection computed once:
    what covers the intersection is covered by every area, so :func:`covered_by_all` asks each
    area only about the few geometries the intersection leaves."""

    @property
    def common(self) -> shapely.Geometry | None:
        if "_common" not in self.__dict__:
            self.__dict__["_common"] = (shapely.intersection_all(list(self)) if len(self) > 1
                                        else None)
        return self.__dict__["_common"]


def covered_by_all(geoms: np.ndarray, areas: Any, *, radius: float = 0.0) -> np.ndarray:
    """:func:`covers` for each layer's area (a list, as :func:`coverage_areas` gives; one area;
    or None: everywhere): a geometry is covered when every layer covers it, as a screening
    finding needs every layer that could make it "yes" to cover its search."""
    geoms = np.asarray(geoms, dtype=object)
    common = getattr(areas, "common", None)
    areas = [] if areas is None else areas if isinstance(areas, list) else [areas]
    # covered by the intersection (computed once): by every area, since the rule's envelope or
    # buffer then lies in each; only the rest is asked of each area in turn
    done = (covers(geoms, common, radius=radius)
            if common is not None and not common.is_empty and len(geoms)
            else np.zeros(len(geoms), dtype=bool))
    ok = np.ones(len(geoms), dtype=bool)
    for area in areas:
        rest = np.flatnonzero(ok & ~done)
        if not len(rest):
            break
        ok[rest] = covers(geoms[rest], area, radius=radius)
    return ok


def covers(geoms: np.ndarray, area: Any, *, radius: float = 0.0) -> np.ndarray:
    """Whether ``area`` (grown by the slack: :func:`grown_area`) covers each geometry and
    everything within ``radius`` of it (None covers everything; an empty area nothing).

    The rule: a geometry is covered when its envelope grown by ``radius`` is, or else when its
    buffer (16 segments a quarter, grown by the chord gap so that it holds the true buffer) is.
    Vectorised, and decided exactly by that rule: the distance from each geometry to the part of
    its neighbourhood the area leaves out settles all but a band as wide as the chord gap either
    side of ``radius`` (:func:`_uncovered_band`); only that band is buffered.
    """
    geoms = np.asarray(geoms, dtype=object)
    n = len(geoms)
    if area is None or n == 0:
        return np.ones(n, dtype=bool)
    if area.is_empty:
        return np.zeros(n, dtype=bool)
    shapely.prepare(area)
    x0, y0, x1, y1 = shapely.total_bounds(geoms)
    if shapely.covers(area, shapely.box(x0 - radius, y0 - radius, x1 + radius, y1 + radius)):
        return np.ones(n, dtype=bool)  # the envelope of them all, grown, is covered (most tiles)
    slack = radius * (1 - np.cos(np.pi / 64)) if radius > 0 else 0.0
    ok, band = _uncovered_band(geoms, area, (x0, y0, x1, y1), radius=radius, slack=slack)
    if len(band):
        ok[band] = _covered_by_rule(geoms[band], area, radius=radius, slack=slack)
    return ok


#: How far (in CRS units) a distance must clear a threshold to decide without buffering:
#: far above the rounding of coordinates (about 1e-10 of a Massachusetts coordinate).
_DECIDE_MARGIN = 1e-3


def _uncovered_band(geoms: np.ndarray, area: Any, bounds: tuple[float, float, float, float], *,
                    radius: float, slack: float) -> tuple[np.ndarray, np.ndarray]:
    """What the distance to the uncovered neighbourhood decides, and which rows it leaves.

    ``outside`` is the part of the geometries' envelope, grown past every buffer, that ``area``
    does not cover. A geometry farther than ``radius + slack`` from it has its grown buffer
    (which lies within ``radius + slack`` of it) inside the area: covered. One nearer than
    ``radius - slack`` has a point of ``outside`` inside its 16-segment buffer (which holds
    every point within ``radius - slack``), and so inside its grown envelope too: not covered.
    Returns the decided flags and the indices of the band between, to be decided by the rule.
    """
    x0, y0, x1, y1 = bounds
    grow = radius + slack + 1.0
    if not shapely.is_valid(area):  # no overlay on an invalid area: the rule decides them all
        return np.zeros(len(geoms), dtype=bool), np.arange(len(geoms))
    outside = shapely.difference(shapely.box(x0 - grow, y0 - grow, x1 + grow, y1 + grow), area)
    shapely.prepare(outside)
    ok = ~shapely.dwithin(outside, geoms, radius + slack + _DECIDE_MARGIN)
    ok &= ~(shapely.is_missing(geoms) | shapely.is_empty(geoms))  # no distance: by the rule
    band = np.flatnonzero(~ok)
    inner = radius - slack - _DECIDE_MARGIN
    if inner > 0 and len(band):
        band = band[~shapely.dwithin(outside, geoms[band], inner)]
    return ok, band


def _covered_by_rule(geoms: np.ndarray, area: Any, *, radius: float, slack: float
                     ) -> np.ndarray:
    """:func:`covers`'s rule itself: the grown envelope, else the grown 16-segment buffer."""
    b = shapely.bounds(geoms)
    envelopes = shapely.box(b[:, 0] - radius, b[:, 1] - radius, b[:, 2] + radius,
                            b[:, 3] + radius)
    ok = shapely.covers(area, envelopes)
    rest = np.flatnonzero(~ok)
    if len(rest):
        grown = shapely.buffer(geoms[rest], radius, quad_segs=16) if radius > 0 else geoms[rest]
        # a polygon buffered with chords lies inside the true buffer: grow it by the chord gap
        ok[rest] = shapely.covers(area, shapely.buffer(grown, slack) if slack else grown)
    return ok

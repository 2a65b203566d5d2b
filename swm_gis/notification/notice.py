"""Which notice list is made: the board's definition, its distance and citation
(``tables/notice.toml``; ``docs/abutters.md``).

``conservation`` (the default) is the town regulation's notice clause (Lynnfield Chapter 320,
permit procedure A(7): 100 ft); the same with a distance of its own is a plain ``radius``;
``zoning`` is M.G.L. c.40A, § 11 (parties in interest, 300 ft:
:mod:`swm_gis.rules.parties_in_interest`). The texts live in the table; this module only fills in
the distance and citation.

Examples
--------
>>> from swm_gis.config.town import Rules
>>> c = notice_choice("zoning", None, rules=Rules(), section="Chapter 320, permit procedure, A(7)")
>>> c.kind, c.distance_ft, c.citation
('zoning', 300.0, 'M.G.L. c.40A, § 11')
>>> notice_choice("conservation", "300ft", rules=Rules(), section="A(7)").kind
'radius'
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from swm_gis.config.town import Rules
from swm_gis.errors import SwmGisError
from swm_gis.messages import option
from swm_gis.rules.abutters import parse_distance_ft

TABLE = "tables/notice.toml"
#: The notice lists a caller may ask for.
NOTICES = ("conservation", "zoning")
#: Orders of the list, the labels and the mailing book (None: nearest first).
SORTS = ("owner", "street", "map-lot")
#: How a front end names each order ("": none asked, nearest first; the QGIS plugin's catalog).
SORT_LABELS = {"": "Nearest first", "owner": "Owner name", "street": "Street (site address)",
               "map-lot": "Map-lot"}


@cache
def notice_table() -> dict[str, Any]:
    """The bundled ``tables/notice.toml``."""
    return tomllib.loads(resources.files("swm_gis").joinpath(TABLE).read_text(encoding="utf-8"))


@dataclass(frozen=True)
class NoticeChoice:
    """The notice list asked for.

    Attributes
    ----------
    kind
        ``"conservation"``, ``"radius"`` or ``"zoning"``.
    distance_ft
        How far the list reaches from the subject's property line (feet).
    citation
        The clause or statute behind the list (every output cites it).
    definition
        The definition used, in words (the certification states it).
    board
        The board the list is for ("" for a plain radius).
    always_within_ft, tolerance_ft, street_poly_types
        The zoning list's parameters
        (:func:`~swm_gis.rules.parties_in_interest.parties_in_interest`).
    """

    kind: str
    distance_ft: float
    citation: str
    definition: str
    board: str = ""
    always_within_ft: float = 0.0
    tolerance_ft: float = 0.0
    street_poly_types: tuple[str, ...] = ()


def check_notice(notice: str | None, sort: str | None) -> tuple[str, str | None]:
    """The notice and sort asked for, checked (:class:`SwmGisError` naming the choices)."""
    notice = (notice or "conservation").strip().lower()
    if notice not in NOTICES:
        raise SwmGisError(f'Unknown notice list "{notice}" ({option("notice")}): give '
                          f"{' or '.join(NOTICES)}.")
    sort = (sort or "").strip().lower() or None
    if sort is not None and sort not in SORTS:
        raise SwmGisError(f'Unknown order "{sort}" ({option("sort")}): give '
                          f"{', '.join(SORTS)}.")
    return notice, sort


def notice_choice(notice: str | None, distance: str | float | None, *, rules: Rules,
                  section: str) -> NoticeChoice:
    """The list to make: ``notice`` with ``distance`` (None: the definition's own), the rule
    values ``rules`` (the regulation's distance) and the regulation's notice ``section``."""
    notice, _ = check_notice(notice, None)
    table = notice_table()
    if notice == "zoning":
        z = table["zoning"]
        if distance not in (None, ""):
            raise SwmGisError(
                f"The zoning list ({option('notice')} zoning) reaches {z['distance_ft']:g} ft "
                f"by {z['citation']}; a distance of its own ({option('distance')}) is a plain "
                f"radius: leave out one of the two.")
        tol, always = float(z["abutting_tolerance_ft"]), float(z["always_within_ft"])
        dist = float(z["distance_ft"])
        return NoticeChoice(
            kind="zoning", distance_ft=dist, citation=z["citation"], board=z["board"],
            definition=z["definition"].format(citation=z["citation"], distance=f"{dist:g} ft",
                                              tolerance=f"{tol:g} ft", always=f"{always:g} ft"),
            always_within_ft=always, tolerance_ft=tol,
            street_poly_types=tuple(z["street_poly_types"]))
    own = float(rules.abutter_distance_ft)
    dist = own if distance in (None, "") else parse_distance_ft(distance)
    kind = "conservation" if dist == own else "radius"
    entry = table[kind]
    statute = table["conservation"].get("statute") or ""
    citation = section + (f"; {statute}" if statute and kind == "conservation" else "")
    return NoticeChoice(kind=kind, distance_ft=dist, citation=citation, board=entry["board"],
                        definition=entry["definition"].format(distance=f"{dist:g} ft",
                                                              citation=citation))


__all__ = ["NOTICES", "SORTS", "SORT_LABELS", "NoticeChoice", "check_notice", "notice_choice",
           "notice_table"]

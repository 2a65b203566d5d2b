"""The permit trigger's MS4 condition: whether the disturbance is "draining to the Town's MS4".

Chapter 320 (applicability A) quotes the bylaw's trigger: a land disturbance of an acre or
more "... draining to the Town's MS4". How the screening reads it (docs/findings.md):

* **no MS4 layer**: the condition is not checked, so the permit finding is *conditional* on it,
  unless the town config states that all of its land drains to its MS4
  (``[town] all_land_drains_to_ms4 = true``); the finding then prints that as the Town's
  assumption, not as a finding of this tool;
* **an MS4 layer** (``[layers.ms4]``: catch basins, pipes, outfalls, drainage channels):
  "draining to" only where the runoff path traced down the DEM comes within
  :data:`MS4_REACH_FT` (10 ft) of a feature; a feature merely within :data:`MS4_NEAR_FT`
  (100 ft) of the site is "near", which shows no drainage. Without a DEM the runoff path is a
  straight line to the nearest stream, which shows no drainage either.

:func:`ms4_reach` reads the layer (I/O); :func:`ms4_condition` words the condition for the
permit finding (pure).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import geopandas as gpd
import shapely

from swm_gis.config.town import TownConfig
from swm_gis.io import layers as io
from swm_gis.rules.citations import RuleCitations, default_citations
from swm_gis.rules.disturbance import permit_required_reason
from swm_gis.units import M_PER_FT, metres_per_unit

__all__ = ["MS4_NEAR_FT", "MS4_REACH_FT", "MS4_WORDS", "ms4_condition", "ms4_reach",
           "permit_on_ms4"]

#: How near (ft) the traced runoff path must come to an MS4 feature to reach it: the
#: digitising tolerance of a catch basin or pipe drawn beside the flow line.
MS4_REACH_FT = 10.0
#: How near (ft) to the site an MS4 feature is listed as "near" (which shows no drainage).
MS4_NEAR_FT = 100.0
#: The bylaw's trigger, as Chapter 320 (applicability A) quotes it, ends with this condition.
MS4_WORDS = "draining to the Town's MS4"


def _trigger_quote(citation: str | None) -> str:
    """The trigger's words, for the caveats, citing the regulation's MS4 condition."""
    return ("The bylaw's trigger is a land disturbance \"... draining to the Town's MS4\""
            + (f" ({citation})" if citation else ""))


def ms4_reach(config: TownConfig, site_union: shapely.Geometry,
              flow_path: gpd.GeoDataFrame | None, *,
              checks: Sequence[Mapping[str, Any]] = ()) -> tuple[dict[str, Any], dict[str, Any]]:
    """Whether the traced runoff path reaches a feature of ``[layers.ms4]``, and which lie near.

    ``checks`` are the screening's checks: the receiving-waters check says whether the flow path
    was traced down the DEM (``method`` "dem") or drawn to the nearest stream. Returns the
    ``disturbance.ms4`` block and the check entry.
    """
    assumed = config.all_land_drains_to_ms4
    if not config.has("ms4"):
        return ({"checked": False, "reached": None, "features": [], "near": [],
                 "searched": None, "assumed_by_town": assumed},
                {"name": "ms4", "ran": False, "source": None,
                 "reason": "the MS4 layer is not configured: "
                           + ("the town's config states that all its land drains to its MS4"
                              if assumed else "whether the disturbance drains to the Town's "
                                              "MS4 is not checked")})
    traced = any(c.get("name") == "receiving_waters" and c.get("method") == "dem"
                 for c in checks)
    path = None
    if traced and flow_path is not None and len(flow_path):
        path = shapely.union_all(flow_path.geometry.values)
    per_ft = M_PER_FT / metres_per_unit(config.crs_obj)
    reach, near = MS4_REACH_FT * per_ft, MS4_NEAR_FT * per_ft
    area = site_union if path is None else shapely.union(site_union, path)
    x0, y0, x1, y1 = area.bounds
    grow = max(reach, near)
    frame, numbered = _read_ms4(config, (x0 - grow, y0 - grow, x1 + grow, y1 + grow))
    geoms = frame.geometry.values
    ids = _names(frame, numbered=numbered)
    on_path = (shapely.dwithin(geoms, path, reach) if path is not None and len(frame)
               else [False] * len(frame))
    by_site = shapely.dwithin(geoms, site_union, near) if len(frame) else []
    reached = [i for i, hit in zip(ids, on_path, strict=True) if hit]
    nearby = [i for i, hit, close in zip(ids, on_path, by_site, strict=True)
              if close and not hit]
    block = {"checked": True, "reached": bool(reached), "features": reached[:20],
             "near": nearby[:20], "reach_ft": MS4_REACH_FT, "near_ft": MS4_NEAR_FT,
             "searched": ("the runoff path traced down the DEM" if path is not None else None),
             "assumed_by_town": assumed}
    if numbered:
        block["named_by"] = "number"
    return block, {"name": "ms4", "ran": True, "source": io.source_info(config.layer("ms4"))}


#: Said once when the MS4 layer's features have no id to be named by (issue 35: the report
#: printed "None, None, None").
NUMBERED_NOTE = "the MS4 layer has no id field: its features are named by their number in it"


def _read_ms4(config: TownConfig, bbox: tuple[float, float, float, float]
              ) -> tuple[gpd.GeoDataFrame, bool]:
    """The MS4 features in ``bbox``, and whether they have no ids (then the whole layer is read:
    a feature's number is its place in the layer, not in the box read)."""
    frame = io.read_layer(config, "ms4", bbox=bbox)
    if _has_ids(frame):
        return frame, False
    return io.read_layer(config, "ms4"), True


def _has_ids(frame: gpd.GeoDataFrame) -> bool:
    """Whether the layer's id field is there and names at least one feature."""
    return "id" in frame and bool(frame["id"].notna().any())


def _names(frame: gpd.GeoDataFrame, *, numbered: bool) -> list[str]:
    """Each feature's name: its id; without ids, its number in the layer (1 for the first)
    after its kind (the layer's ``kind`` field, when mapped): ``"outfall #3"``, ``"#8"``.

    >>> import geopandas as gpd
    >>> f = gpd.GeoDataFrame({"id": [None, None], "kind": ["Outfall", None]},
    ...                      geometry=gpd.points_from_xy([0, 1], [0, 1]), index=[2, 7])
    >>> _names(f, numbered=True)
    ['outfall #3', '#8']
    """
    if not numbered:
        return [str(v) for v in frame["id"]]
    kinds = frame["kind"] if "kind" in frame else [None] * len(frame)
    return [f"{_kind(k)}#{int(i) + 1}" for i, k in zip(frame.index, kinds, strict=True)]


def _kind(value: object) -> str:
    """The feature's kind as a word before its number (``"outfall "``), '' when not known."""
    text = "" if value is None or value != value else str(value).strip().lower()  # NaN: none
    return f"{text} " if text else ""


def _required_if_ms4(citations: RuleCitations) -> str:
    """What the reason a permit the area requires
    (:func:`swm_gis.rules.disturbance.permit_required_reason`) becomes while the MS4 condition
    is open."""
    return ("If the disturbance drains to the Town's MS4, a Stormwater Management Permit is "
            f"required before any site-altering activity ({citations.permit_required}); whether "
            "it does is not shown (see the permit finding).")


def permit_on_ms4(disturbance: Mapping[str, Any], *,
                  citations: RuleCitations | None = None) -> dict[str, Any]:
    """``permit_required`` and ``reasons`` once the MS4 condition is read: a permit the area
    requires is ``None`` (conditional) while the condition is open (:func:`ms4_condition`),
    and its reason says so. A new dict; ``disturbance`` is not changed. ``citations``: those
    the disturbance was decided with (default: the default profile's)."""
    cite = citations or default_citations()
    required = disturbance.get("permit_required")
    reasons = list(disturbance.get("reasons") or [])
    if required is True and ms4_condition(disturbance)[4]:
        given = permit_required_reason(cite)
        return {"permit_required": None,
                "reasons": [_required_if_ms4(cite) if r == given else r for r in reasons]}
    return {"permit_required": required, "reasons": reasons}


def ms4_condition(d: Mapping[str, Any], citation: str | None = None
                  ) -> tuple[str, list[str], list[str], list[str], bool]:
    """The MS4 condition of the trigger, from the ``disturbance`` block: (text, caveats,
    layers used, layers missing, open). ``open`` is True when the permit rests on drainage the
    tool did not see (then the permit finding is conditional). ``citation``: the regulation's
    MS4 condition (the profile's ``applicability.ms4_citation``), cited in the caveats."""
    m = d.get("ms4") if isinstance(d.get("ms4"), Mapping) else {}
    assumed = bool(m.get("assumed_by_town"))
    town = ("the Town's configuration states that all of its land drains to its MS4 (the "
            "Town's assumption, not a finding of this tool)")
    if not m.get("checked"):
        if assumed:
            return (f"the disturbance is taken as {MS4_WORDS}: {town}",
                    [f"{_trigger_quote(citation)}; no MS4 layer is configured, and the "
                     "permit finding rests on the Town's statement that all of its land "
                     "drains to its MS4."],
                    [], ["ms4"], False)
        return (f"whether the disturbance is {MS4_WORDS} is not checked: no MS4 layer (catch "
                "basins, pipes, outfalls, drainage channels) is configured",
                [f"{_trigger_quote(citation)}; configure the town's MS4 layer to check it, or "
                 "state in the town's configuration that all of its land drains to its MS4."],
                [], ["ms4"], True)
    near = _near_text(m)
    named = [f"{NUMBERED_NOTE[0].upper()}{NUMBERED_NOTE[1:]}."] \
        if m.get("named_by") == "number" and (m.get("features") or m.get("near")) else []
    if m.get("reached"):
        ids = ", ".join(str(i) for i in (m.get("features") or [])[:5])
        return (f"the disturbance is {MS4_WORDS}: the runoff path traced down the DEM comes "
                f"within {_ft(m.get('reach_ft'))} of MS4 feature(s) {ids}{near}",
                named, ["ms4"], [], False)
    how = ("the runoff path traced down the DEM reaches no MS4 feature (within "
           f"{_ft(m.get('reach_ft'))})" if m.get("searched") else
           "no runoff path was traced down a DEM, so the MS4 layer cannot show where the "
           "runoff goes")
    if assumed:
        return (f"the disturbance is taken as {MS4_WORDS}: {town}; {how}{near}",
                [f"{_trigger_quote(citation)}; the permit finding rests on the Town's "
                 "statement that all of its land drains to its MS4.", *named],
                ["ms4"], [], False)
    return (f"whether the disturbance is {MS4_WORDS} is not shown: {how}{near}",
            [f"{_trigger_quote(citation)}: the Commission decides whether the site drains "
             "to the MS4.", *named],
            ["ms4"], [], True)


def _near_text(m: Mapping[str, Any]) -> str:
    near = [str(i) for i in (m.get("near") or [])[:5]]
    if not near:
        return ""
    return (f"; MS4 feature(s) {', '.join(near)} lie within {_ft(m.get('near_ft'))} of the "
            "site, near it (nearness shows no drainage)")


def _ft(value: Any) -> str:
    return f"{float(value or 0):g} ft"

"""The findings that read the site as the land it is: the development type (measurement before
statement), the total post-construction impervious area, and each constraint's split at the
limit of disturbance (every square foot once).

:func:`development_finding` is the ``development_type`` finding of
:func:`swm_gis.screening.findings.decide_findings`; :func:`retention_text`,
:func:`other_type_caveat` and :func:`split_sentence` are the standards' and the resource
findings' words. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from swm_gis import formatting as fmt
from swm_gis.config.town import Rules
from swm_gis.rules.citations import RuleCitations, default_citations
from swm_gis.screening.finding_parts import absent, finding, layer_state
from swm_gis.screening.wording import wording_of_document

__all__ = ["SLIVER_SHARE", "both_standards", "development_finding", "other_type_caveat",
           "retention_text", "split_sentence"]

#: A share of existing impervious cover below this makes the development type the Commission's
#: call (the definitions are silent on mixed sites); ``[rules] small_existing_impervious_share``.
SLIVER_SHARE = 0.05
_LABELS = {"new": "new development", "redevelopment": "redevelopment"}


def _label(value: Any) -> str:
    return _LABELS.get(str(value), str(value))


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


# --------------------------------------------------------------------------- split
def split_sentence(split: Mapping[str, Any] | None, what: str) -> str:
    """One constraint's split in words ("" when not measured or nowhere on the site).

    Where the limit of disturbance also lies off the parcel(s), the sentence ends with the
    limit's own total (the figure the screening's typed outputs hold: ``sfha_area_sqft``):

    >>> split_sentence({"parcel_sqft": 1000.0, "inside_sqft": 400.0, "outside_sqft": 600.0,
    ...                 "off_parcel_sqft": 250.0}, "SFHA")
    "SFHA on the site's parcel(s): 1,000 sq ft, 400 sq ft inside the limit of disturbance and \
600 sq ft outside it; inside the limit off the parcel(s): 250 sq ft (650 sq ft in the limit of \
disturbance in all)."
    """
    if not isinstance(split, Mapping):
        return ""
    parcel, off = float(split.get("parcel_sqft") or 0), float(split.get("off_parcel_sqft") or 0)
    if parcel <= 0 and off <= 0:
        return ""
    if parcel <= 0:
        return (f"{_cap(what)}: none on the site's parcel(s); inside the limit of disturbance "
                f"off the parcel(s): {fmt.sqft(off)}.")
    text = (f"{what} on the site's parcel(s): {fmt.sqft(parcel)}, "
            f"{fmt.sqft(split.get('inside_sqft') or 0)} inside the limit of disturbance and "
            f"{fmt.sqft(split.get('outside_sqft') or 0)} outside it")
    if off > 0:
        inside = float(split.get("inside_sqft") or 0) + off
        text += (f"; inside the limit off the parcel(s): {fmt.sqft(off)} ({fmt.sqft(inside)} "
                 "in the limit of disturbance in all)")
    return _cap(text) + "."


# --------------------------------------------------------------------------- development
def both_standards(doc: Mapping[str, Any], r: RuleCitations | None = None) -> str:
    """Both types' standards, from the rule values the screening used (``meta.rules``), citing
    ``r`` (default: the regulation the document applied)."""
    r = r or wording_of_document(doc).rules
    rules = {**vars(Rules()), **((doc.get("meta") or {}).get("rules") or {})}
    return (f"New development ({r.new_development}): remove "
            f"{fmt.pct(rules['tss_removal_new'])} TSS and {fmt.pct(rules['tp_removal_new'])} TP, "
            "or retain "
            f"{float(rules['retention_new_in']):.1f} in of runoff, off-site mitigation only in "
            f"the same {rules['mitigation_huc_new']}; redevelopment ({r.redevelopment}): "
            f"{fmt.pct(rules['tss_removal_redevelopment'])} TSS and "
            f"{fmt.pct(rules['tp_removal_redevelopment'])} TP, or "
            f"{float(rules['retention_redevelopment_in']):.1f} in, off-site mitigation in the "
            f"same {rules['mitigation_huc_redevelopment']}.")


def development_finding(doc: Mapping[str, Any], r: RuleCitations | None = None
                        ) -> dict[str, Any]:
    """New development or redevelopment: measured, stated, or both (the Commission decides
    where they disagree; a statement never decides, and "not measured" only when nothing
    was). ``r``: what it cites (default: the regulation the document applied)."""
    r = r or wording_of_document(doc).rules
    d = doc.get("development_type")
    if not isinstance(d, Mapping):
        return absent("development_type")
    label = _cap(_label(d.get("value")))
    cover, share = _cover_text(doc, d)
    threshold = float(d.get("small_share_threshold") or SLIVER_SHARE)
    small = d.get("value") == "redevelopment" and d.get("existing_impervious_sqft") is not None \
        and 0 < share < threshold
    caveats = [_small_caveat(share, threshold, r)] if small else []
    if d.get("conflict"):
        return _conflict(doc, d, cover, caveats, r)
    if str(d.get("method") or "").startswith("override"):
        return _stated(doc, d, label, cover, caveats, small, r)
    used, missing, cov_caveats = layer_state(doc, "development_type", ["impervious"])
    if missing:
        return finding(
            "development_type", "conditional",
            f"{label} assumed (the stricter standards): no existing-impervious layer is "
            "configured, so existing cover was not measured. If the site has existing "
            "impervious cover, the project is redevelopment.", missing=missing,
            caveats=["Configure an existing impervious layer for the town, or state the "
                     "development type."])
    method = str(d.get("method") or "")
    status = "info" if not cov_caveats and not small else "conditional"
    lead = (f"{label} as measured ({method}), for the Commission to confirm." if small
            else f"{label} ({method}).")
    return finding("development_type", status, f"{lead}{cover}", used=used,
                   caveats=caveats + cov_caveats)


def _cover_text(doc: Mapping[str, Any], d: Mapping[str, Any]) -> tuple[str, float]:
    """(the existing cover in words, its share of the limit of disturbance)."""
    existing = d.get("existing_impervious_sqft")
    if existing is None:
        return "", 0.0
    area = (doc.get("disturbance") or {}).get("area_sqft")
    share = float(existing) / float(area) if area else 0.0
    cover = (f" Existing impervious cover in the limit of disturbance: {fmt.sqft(existing)}, "
             f"{fmt.pct(share, 1)} of its {fmt.sqft(area or 0)}.")
    split = (doc.get("site_split") or {}).get("existing_impervious")
    parcels = d.get("site_parcels") if isinstance(d.get("site_parcels"), Mapping) else None
    if isinstance(split, Mapping):
        site = (doc.get("site_split") or {}).get("site") or {}
        text = split_sentence(split, "existing impervious cover")
        if text:
            cover += (f" On the site's parcel(s) ({fmt.sqft(site.get('parcel_sqft') or 0)}): "
                      + text[text.index(": ") + 2:])
    elif parcels and parcels.get("existing_impervious_sqft") is not None:  # an older document
        on = float(parcels["existing_impervious_sqft"])
        cover += (f" On the site's parcel(s) ({fmt.sqft(parcels.get('area_sqft') or 0)}): "
                  f"{fmt.sqft(on)}, of which {fmt.sqft(max(on - float(existing), 0))} lies "
                  "outside the limit of disturbance.")
    return cover, share


def _small_caveat(share: float, threshold: float, r: RuleCitations) -> str:
    return (f"Only {fmt.pct(share, 1)} of the limit of disturbance is existing impervious cover "
            "(under the town's threshold for a small existing impervious share, "
            f"{fmt.pct(threshold, 1)}). New development is disturbance \"on an area that has "
            "not previously been developed to include impervious cover\"; redevelopment is any "
            "that \"does not meet the definition of new development\". The text is silent on a "
            f"mostly undeveloped site: whether this is new development (the stricter "
            f"{r.short('new')}) or redevelopment ({r.short('redevelopment')}) is the "
            "Commission's judgement.")


def _conflict(doc: Mapping[str, Any], d: Mapping[str, Any], cover: str,
              caveats: list[str], r: RuleCitations) -> dict[str, Any]:
    """The applicant's statement disagrees with the measurement: conditional, both shown."""
    stated, measured = _label(d.get("stated_value") or d.get("value")), \
        _label(d.get("measured_value"))
    existing = float(d.get("existing_impervious_sqft") or 0)
    edge = ("" if d.get("measured_value") != "new" or existing <= 0 else
            f", all of it within half a raster cell ({fmt.number(d.get('edge_tolerance_ft'), 1)}"
            " ft) of the boundary, where the raster cannot place it inside the site")
    used, _, cov_caveats = layer_state(doc, "development_type", ["impervious"])
    return finding(
        "development_type", "conditional",
        f"Conditional: the applicant states {stated}; the measurement makes it {measured} "
        f"({fmt.sqft(existing)} of existing impervious cover measured in the limit of "
        f"disturbance{edge}). The Commission decides ({r.definitions_words}). "
        f"{both_standards(doc, r)}"
        f"{cover}", used=used or ["impervious"],
        caveats=["The development type is the applicant's statement; the measurement "
                 "disagrees, and a statement does not decide.", *caveats, *cov_caveats])


def _stated(doc: Mapping[str, Any], d: Mapping[str, Any], label: str, cover: str,
            caveats: list[str], small: bool, r: RuleCitations) -> dict[str, Any]:
    """The applicant states the type: as measured, or not measured at all."""
    if d.get("existing_impervious_sqft") is None:
        new = d.get("value") == "new"
        return finding(
            "development_type", "info" if new else "conditional",
            f"{label}, as stated by the applicant; not measured by this tool (no "
            "existing-impervious layer is configured)."
            + ("" if new else " If the site has no existing impervious cover, it is new "
               f"development (the stricter {r.short('new')}): the Commission decides "
               f"({r.definitions_words})."),
            missing=["impervious"],
            caveats=[] if new else ["Configure an existing impervious layer for the town to "
                                    "measure the existing cover."])
    used, _, cov_caveats = layer_state(doc, "development_type", ["impervious"])
    status = "info" if not cov_caveats and not small else "conditional"
    return finding("development_type", status,
                   f"{label}, as stated by the applicant and as measured.{cover}",
                   used=used or ["impervious"], caveats=caveats + cov_caveats)


# --------------------------------------------------------------------------- standards
def _cuft(vol: Any, depth_in: float, area_sqft: Any) -> str:
    """A retention volume in whole cu ft, from the depth and area when known (the stored
    volume is rounded to 0.1 cu ft: 2,025.46 is stored 2,025.5 and must print 2,025)."""
    exact = depth_in / 12 * float(area_sqft) if area_sqft is not None else float(vol)
    return f"{exact:,.0f}"


def retention_text(s: Mapping[str, Any]) -> str:
    """The retention the standards ask, on the total post-construction impervious area."""
    vol, total = s.get("required_retention_cuft"), s.get("post_impervious_sqft")
    depth = float(s.get("retention_depth_in") or 0)
    whole = _cuft(vol, depth, total) if vol is not None else ""
    if vol is None:
        return (f"retain {depth:.1f} in x the post-construction impervious area (not given, so "
                "the volume is not computed)")
    proposed = s.get("proposed_impervious_sqft")
    staying = s.get("existing_impervious_staying_sqft")
    if "post_impervious_missing" not in s or proposed is None:  # an older document
        return (f"retain {whole} cu ft ({depth:.1f} in x {fmt.sqft(total)} "
                "post-construction impervious area)")
    if s.get("post_impervious_missing"):
        return (f"retain at least {whole} cu ft ({depth:.1f} in x "
                f"{fmt.sqft(proposed)} of proposed impervious cover; "
                + "; ".join(s["post_impervious_missing"]) + " was not measured and adds to it)")
    return (f"retain {whole} cu ft ({depth:.1f} in x {fmt.sqft(total)}, the total "
            f"post-construction impervious area on the site: {fmt.sqft(proposed)} proposed + "
            f"{fmt.sqft(staying or 0)} existing on the site's parcel(s) outside the limit of "
            "disturbance that stays)")


def other_type_caveat(s: Mapping[str, Any], r: RuleCitations | None = None) -> str:
    """What the standards would be if the Commission finds the other type ("" when none is
    given); an older block without its section cites ``r``'s (default: the default
    profile's)."""
    for key, label, kind in (("if_new_development", "new development", "new"),
                             ("if_redevelopment", "redevelopment", "redevelopment")):
        alt = s.get(key)
        if not isinstance(alt, Mapping):
            continue
        vol, depth = alt.get("required_retention_cuft"), float(alt.get("retention_depth_in") or 0)
        retain = (f"retain {_cuft(vol, depth, s.get('post_impervious_sqft'))} cu ft "
                  f"({depth:.1f} in x the post-construction "
                  "impervious area)" if vol is not None else
                  f"retain {depth:.1f} in x the post-construction impervious area")
        section = alt.get("section") or (r or default_citations()).standard(kind)
        return (f"If the Commission finds {label} ({section}): "
                f"{retain}, or remove {fmt.pct(alt.get('tss_removal') or 0)} TSS and "
                f"{fmt.pct(alt.get('tp_removal') or 0)} TP; off-site mitigation in the same "
                f"{alt.get('mitigation_huc_level')}.")
    return ""

"""The resource-area findings of a screening: NHESP habitats and vernal pools, the floodplain and
the receiving waters (:func:`swm_gis.screening.findings.decide_findings` lists them last).

Each reads its block of the screening document (``screening.json``) and the coverage records of its
layers and returns one finding (:func:`swm_gis.screening.finding_parts.finding`). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from swm_gis import formatting as fmt
from swm_gis.screening.finding_parts import (
    STATUS_WORDS,
    absent,
    finding,
    layer_state,
    layer_words,
    missing_layers_text,
    part_status,
)
from swm_gis.screening.site_findings import split_sentence
from swm_gis.screening.wording import Wording, wording_of_document

__all__ = ["HABITAT_LAYERS", "floodplain_finding", "habitats_finding", "receiving_finding"]

HABITAT_LAYERS = ("nhesp_priority", "nhesp_estimated", "vernal_pools")
_HABITAT_NAMES = {"priority": "Priority Habitat", "estimated": "Estimated Habitat",
                  "vernal_pool": "Certified Vernal Pool"}


# --------------------------------------------------------------------------- habitats
def habitats_finding(doc: Mapping[str, Any]) -> dict[str, Any]:
    if not isinstance(doc.get("habitats"), list):
        return absent("habitats")
    found = sorted(doc.get("habitats") or [], key=lambda h: float(h.get("distance_ft") or 0))
    used, missing, caveats = layer_state(doc, "habitats", HABITAT_LAYERS)
    gap = missing_layers_text(missing)
    if found:
        parts = [f"{_HABITAT_NAMES.get(h.get('layer'), h.get('layer'))} {h.get('id')} at "
                 f"{fmt.ft(h.get('distance_ft') or 0)}"
                 + (" (overlaps the site)" if h.get("overlaps") else "") for h in found]
        return finding("habitats", "yes", f"{len(found)} feature(s): " + "; ".join(parts) +
                       ". Show them on the erosion and sediment control plan and prevent "
                       "significant alteration." + _habitat_split(doc), used=used,
                       missing=missing, caveats=[gap, *caveats])
    if not used:
        return finding("habitats", "not_checked", "Not checked: no NHESP priority or estimated "
                       "habitat and no certified vernal pool layer configured.", missing=missing)
    if missing or caveats:
        names = ", ".join(used)
        return finding("habitats", "conditional",
                       f"None found in {names} within 500 ft, but the search was incomplete.",
                       used=used, missing=missing, caveats=[gap, *caveats])
    return finding("habitats", "no", "None: no Priority or Estimated Habitat and no Certified "
                   "Vernal Pool within 500 ft of the limit of disturbance.", used=used)


def _habitat_split(doc: Mapping[str, Any]) -> str:
    """The habitat polygons' areas on the site, inside and outside the limit of disturbance
    and off the parcel(s) ("" when none lies there)."""
    split = doc.get("site_split") or {}
    texts = [split_sentence(split.get(key), name) for key, name in
             (("nhesp_priority", "Priority Habitat"), ("nhesp_estimated", "Estimated Habitat"))]
    return "".join(f" {t}" for t in texts if t)


# --------------------------------------------------------------------------- floodplain
def floodplain_finding(doc: Mapping[str, Any], w: Wording | None = None) -> dict[str, Any]:
    """The floodplain finding; ``w``: the notes of the regulation applied (default: those of
    the document's ``meta.regulation``)."""
    w = w or wording_of_document(doc)
    f = doc.get("floodplain")
    used, missing, caveats = layer_state(doc, "floodplain", ["flood_zones"])
    if not isinstance(f, Mapping) and not missing:
        return absent("floodplain")
    if not isinstance(f, Mapping) or missing:
        return finding("floodplain", "not_checked", "Not checked: no flood zone layer "
                       "is configured.", missing=missing or ["flood_zones"])
    parcels = f.get("subject_parcels") if isinstance(f.get("subject_parcels"), Mapping) else None
    site = parcels or f  # the site is the lot or parcel (Chapter 320 definitions)
    shaded_part, shaded_txt = _shaded_part(f, site)
    shaded_split = split_sentence((doc.get("site_split") or {}).get("shaded_x"),
                                "0.2%-annual-chance zone")
    if shaded_part == "yes" and shaded_split:  # its split says its total too
        shaded_txt = f" {shaded_split}"
    parts = {"shaded_x": shaded_part}
    if f.get("in_sfha") or (parcels and parcels.get("in_sfha")):
        return _in_sfha(f, parcels, site, shaded_txt, used, caveats, parts,
                        split_of=doc.get("site_split"), no_bfe=w.note("floodplain_no_bfe"))
    return _outside_sfha(parcels, shaded_txt, used, caveats, parts,
                         lod_only=w.note("site_lod_only"))


def _in_sfha(f: Mapping[str, Any], parcels: Mapping[str, Any] | None, site: Mapping[str, Any],
             shaded_txt: str, used: list[str], caveats: list[str], parts: dict[str, str],
             split_of: Mapping[str, Any] | None = None, no_bfe: str | None = None
             ) -> dict[str, Any]:
    """The floodplain finding of a site in the SFHA: its area, zones and base flood elevations."""
    zones = "; ".join(
        f"zone {z.get('zone')}{' ' + str(z['subtype']) if z.get('subtype') else ''}"
        + (f" {fmt.sqft(z['area_sqft'])}" if z.get("area_sqft") is not None else "")
        + f", BFE {fmt.bfe_text(z.get('bfe'))}" for z in site.get("zones") or []) or \
        "zones not listed"
    where, split = _sfha_where(f, parcels, doc_split=split_of)
    bfe_caveat = _bfe_caveat(site, no_bfe)
    parts["sfha"] = "yes"
    return finding("floodplain", "yes",
                   f"{fmt.sqft(site.get('sfha_area_sqft') or 0)} {where} "
                   f"({fmt.pct(site.get('site_fraction') or 0, 1)}) in the SFHA: {zones}."
                   f"{split} Delineate it on the plans with the 100-year flood elevation."
                   + shaded_txt, used=used, caveats=caveats + bfe_caveat, parts=parts)


def _sfha_where(f: Mapping[str, Any], parcels: Mapping[str, Any] | None, *,
                doc_split: Mapping[str, Any] | None = None) -> tuple[str, str]:
    """(what the SFHA area is of, the sentence splitting it on the parcel(s) inside and outside
    the limit of disturbance and off them): the site's parcels when known, else the limit."""
    if not parcels:  # the site measured on its limit of disturbance alone
        return "of the limit of disturbance", ""
    ids = ", ".join(str(p.get("id")) for p in parcels.get("parcels") or [] if p.get("id"))
    where = (f"of the site's parcel(s) {ids}".rstrip()
             + f" ({fmt.sqft(parcels.get('area_sqft') or 0)})")
    split = (doc_split or {}).get("sfha")
    if isinstance(split, Mapping):  # every square foot once (swm_gis.rules.site_split)
        return where, " " + split_sentence(split, "SFHA")
    inside = float(f.get("sfha_area_sqft") or 0)
    outside = max(float(parcels.get("sfha_area_sqft") or 0) - inside, 0.0)
    return where, (f" Inside the limit of disturbance: {fmt.sqft(inside)}; on the parcel(s) "
                   f"outside it: {fmt.sqft(outside)}.")


def _bfe_caveat(site: Mapping[str, Any], note: str | None) -> list[str]:
    """The caveat of zones without a base flood elevation on the FIRM, ending with what the
    regulation asks for (``[notes] floodplain_no_bfe``)."""
    no_bfe = [str(z.get("zone")) for z in site.get("zones") or []
              if fmt.bfe_text(z.get("bfe")) == "none on the FIRM"]
    return ([f"No base flood elevation on the FIRM for zone {', '.join(no_bfe)}: {note}"]
            if no_bfe and note else [])


def _outside_sfha(parcels: Mapping[str, Any] | None, shaded_txt: str, used: list[str],
                  caveats: list[str], parts: dict[str, str], *, lod_only: str | None
                  ) -> dict[str, Any]:
    """The floodplain finding when no SFHA was found: no, or conditional on a partial layer or
    a site measured on the limit of disturbance only (``lod_only``: the caveat saying so)."""
    target = "the site's parcel(s)" if parcels else "the limit of disturbance"
    if caveats:
        parts["sfha"] = "conditional"
        return finding("floodplain", "conditional", f"No SFHA found on the part of {target} "
                       f"{layer_words('flood_zones')} covers." + shaded_txt, used=used,
                       caveats=caveats, parts=parts)
    parts["sfha"] = "no"
    gap = [] if parcels else [lod_only or "Measured on the limit of disturbance only: no "
                                          "parcel under the site was found."]
    return finding("floodplain", "conditional" if gap else "no",
                   f"{target[0].upper()}{target[1:]} does not overlap the Special Flood Hazard "
                   "Area." + shaded_txt, used=used, caveats=gap, parts=parts)


def _shaded_part(f: Mapping[str, Any], site: Mapping[str, Any]) -> tuple[str, str]:
    """The 0.2%-annual-chance zone's status and sentence: not checked unless the flood layer
    holds such zones or its config says it covers them."""
    if f.get("shaded_x_checked") is False or site.get("shaded_x_area_sqft") is None:
        return "not_checked", (" 0.2%-annual-chance zone: not checked (the flood zone layer "
                               "holds no 0.2%-annual-chance zone around the site and its config "
                               "does not say it covers them).")
    shaded = float(site.get("shaded_x_area_sqft") or 0)
    if shaded > 0:
        return "yes", f" 0.2%-annual-chance zone: {fmt.sqft(shaded)}."
    return "no", " No 0.2%-annual-chance zone."


# --------------------------------------------------------------------------- receiving waters

def receiving_finding(doc: Mapping[str, Any], w: Wording | None = None) -> dict[str, Any]:
    """The receiving-waters finding; ``w``: the notes of the regulation applied (default:
    those of the document's ``meta.regulation``)."""
    rw = doc.get("receiving_waters")
    net_used, net_missing, _ = layer_state(doc, "receiving_waters", ["streams", "waterbodies"])
    if not isinstance(rw, Mapping):
        return _not_traced(net_missing)
    trace_caveats = _trace_caveats(rw)
    complete = not trace_caveats
    orw_used, orw_missing, orw_cov = layer_state(doc, "receiving_waters",
                                                  ["orw", "vernal_pools"])
    imp_used, imp_missing, imp_cov = layer_state(doc, "receiving_waters", ["impaired_waters"])
    orw, impaired = rw.get("orw") or [], rw.get("impaired") or []
    # complete: every layer that could add a water to this part was read over the whole path
    full = {"orw": complete and not orw_missing and not orw_cov,
            "impaired": complete and bool(imp_used) and not imp_cov}
    parts = {
        "orw": part_status(bool(orw), layers_configured=bool(orw_used), complete=full["orw"]),
        "impaired": part_status(bool(impaired), layers_configured=bool(imp_used),
                                complete=full["impaired"]),
    }
    answer = " ".join([_orw_text(orw, parts["orw"], orw_missing),
                       _impaired_text(impaired, parts["impaired"])])
    status = _receiving_status(parts)
    missing = [m for m in ["dem"] if rw.get("approximate")] + orw_missing + imp_missing
    caveats = trace_caveats + orw_cov + imp_cov + _parts_caveats(
        status, parts, orw_missing, (w or wording_of_document(doc)).note("vernal_pool_orw"))
    return finding("receiving_waters", status, answer,
                   used=net_used + orw_used + imp_used + (["dem"] if not rw.get("approximate")
                                                          else []),
                   missing=missing, caveats=caveats, parts=parts, complete=full)


def _not_traced(net_missing: list[str]) -> dict[str, Any]:
    """The finding when the document holds no trace: every part not checked."""
    why = ("no stream or water body layer configured, so the runoff was not traced" if
           len(net_missing) == 2 else "screening.json has no 'receiving_waters' result")
    return finding("receiving_waters", "not_checked", f"Not checked: {why}.",
                   missing=net_missing + ["orw", "impaired_waters"],
                   parts={"orw": "not_checked", "impaired": "not_checked"},
                   complete={"orw": False, "impaired": False})


def _trace_caveats(rw: Mapping[str, Any]) -> list[str]:
    """Where the trace fell short of the whole flow path (none: the trace is complete)."""
    trace_caveats = [str(e.get("message")) for e in rw.get("trace_end") or []]
    if rw.get("approximate"):
        trace_caveats.append("No DEM: the runoff was taken to the nearest mapped stream in a "
                             "straight line; configure an elevation (DEM) layer for a flow trace.")
    if rw.get("stopped_at_boundary") and not any("town line" in c for c in trace_caveats):
        trace_caveats.append("The trace stopped at the town line; waters downstream of it were "
                             "not searched.")
    return trace_caveats


def _receiving_status(parts: Mapping[str, str]) -> str:
    """The finding's status from its parts: yes if one is, no or not checked only if all are."""
    statuses = set(parts.values())
    return ("yes" if "yes" in statuses else "not_checked" if statuses == {"not_checked"}
            else "no" if statuses == {"no"} else "conditional")


def _parts_caveats(status: str, parts: Mapping[str, str], orw_missing: Sequence[str],
                   vernal_note: str | None) -> list[str]:
    """Caveats of the parts: vernal pools not searched; a part undecided under a yes."""
    caveats = []
    if orw_missing and "vernal_pools" in orw_missing and "orw" not in orw_missing:
        caveats.append(vernal_note or "Certified vernal pools were not searched: no certified "
                                      "vernal pools layer is configured.")
    if status == "yes" and set(parts.values()) - {"yes", "no"}:
        names = {"orw": "The ORW search", "impaired": "The impaired-water search"}
        caveats += [f"{names[k]} is {STATUS_WORDS[v].lower()}." for k, v in parts.items()
                    if v not in ("yes", "no")]
    return caveats


def _orw_text(orw: Sequence[Mapping[str, Any]], status: str, missing: Sequence[str]) -> str:
    if orw:
        return "Outstanding Resource Waters downstream: " + "; ".join(
            f"{w.get('name') or w.get('id')} at {fmt.ft(w.get('flow_distance_ft') or 0)}"
            for w in orw) + "."
    return {"not_checked": "ORWs not checked (no Outstanding Resource Waters layer "
                           "or certified vernal pools layer is configured).",
            "no": "No Outstanding Resource Water downstream.",
            "conditional": "No ORW found on the part of the flow path searched (incomplete: see "
                           "the caveats)."}[status]


def _impaired_text(impaired: Sequence[Mapping[str, Any]], status: str) -> str:
    if impaired:
        return "Impaired waters downstream: " + "; ".join(
            f"{w.get('name') or w.get('au_id')} ({w.get('au_id')}, category "
            f"{w.get('category')}: {', '.join(w.get('causes') or []) or 'causes not listed'}"
            f"{'; ' + fmt.tmdl_text(w['tmdl']) if w.get('tmdl') else ''}) at "
            f"{fmt.ft(w.get('flow_distance_ft') or 0)}" for w in impaired) + "."
    return {"not_checked": "Impaired waters not checked (no impaired waters layer "
                           "is configured).",
            "no": "No impaired water downstream.",
            "conditional": "No impaired water found on the part of the flow path searched "
                           "(incomplete: see the caveats)."}[status]


"""Summary lines for people: what a job found, in a few lines (the CLI prints them).

Pure text from a job's result; nothing here prints or reads files.
"""

from __future__ import annotations

from typing import Any


def screening_lines(document: dict[str, Any]) -> list[str]:
    """A few lines for people: the decision and the figures behind it."""
    d, dev, std = document["disturbance"], document["development_type"], document["standards"]
    lines = [f"{document['meta']['town']}: the site disturbs {d['area_sqft']:,.1f} sq ft "
             f"({d['area_acres']:.3f} acres)"
             + (f"; common plan {d['common_plan_area_sqft']:,.1f} sq ft"
                if d.get("common_plan_area_sqft") is not None else "")]
    lines.append("Stormwater Management Permit required: " + ("YES" if d["permit_required"]
                                                              else "no")
                 + (" (exemption claimed: " + ", ".join(e["name"] for e in d["exemption"]) + ")"
                    if d.get("exemption") else ""))
    imp, deciding = dev.get("existing_impervious_sqft"), dev.get("deciding_impervious_sqft")
    cover = ""
    if imp is not None:
        edge = " (all in boundary cells)" if imp > 0 and not deciding else ""
        cover = f"; {imp:,.1f} sq ft existing impervious{edge}"
    lines.append(f"Development type: {dev['value']} ({dev['method']}{cover})")
    vol = std.get("required_retention_cuft")
    lines.append(f"Standards: retain {std['retention_depth_in']:.1f} in"
                 + (f" = {vol:,.1f} cu ft" if vol is not None else "")
                 + f", or {std['tss_removal']:.0%} TSS / {std['tp_removal']:.0%} TP; off-site "
                   f"mitigation within the same {std['mitigation_huc_level']}")
    for m in document.get("mitigation") or []:
        lines.append(f"Mitigation {m['id']}: {'eligible' if m['eligible'] else 'NOT eligible'} "
                     f"({m['huc'] or 'no HUC'})")
    lines.extend(_resource_lines(document))
    skipped = [c["name"] for c in document.get("checks", []) if not c.get("ran")]
    if skipped:
        lines.append("Checks not run: " + ", ".join(skipped))
    return lines


def _resource_lines(document: dict[str, Any]) -> list[str]:
    """Habitats, floodplain and receiving waters in a line each (absent when not checked)."""
    lines = []
    habitats = document.get("habitats")
    if habitats is not None:
        found = ", ".join(f"{h['layer']} {h['id']} at {h['distance_ft']:,.1f} ft"
                          + (" (overlaps)" if h.get("overlaps") else "") for h in habitats)
        lines.append("NHESP features within 500 ft: " + (found or "none"))
    flood = document.get("floodplain")
    if flood:
        zones = ", ".join(f"{z['zone']}" + (f" BFE {z['bfe']:g} ft" if z.get("bfe") is not None
                                             else "") for z in flood.get("zones") or [])
        lines.append(
            f"Floodplain (SFHA): {flood['sfha_area_sqft']:,.1f} sq ft, "
            f"{flood['site_fraction']:.1%} of the site" + (f" ({zones})" if zones else "")
            + f"; 0.2% annual chance: {flood.get('shaded_x_area_sqft') or 0:,.1f} sq ft")
    waters = document.get("receiving_waters")
    if waters:
        met = [f"ORW {w['name'] or w['id']} at {w['flow_distance_ft']:,.0f} ft"
               for w in waters.get("orw") or []]
        met += [f"{w['name'] or w['au_id']} (category {w['category']}) at "
                f"{w['flow_distance_ft']:,.0f} ft" for w in waters.get("impaired") or []]
        approx = " (approximate: no DEM)" if waters.get("approximate") else ""
        lines.append(f"Receiving waters downstream{approx}: " + ("; ".join(met) or "none listed"))
        lines.extend(f"  requires (§ {r['section']}): {r['text']}"
                     for r in waters.get("requirements") or [])
    return lines


def applicability_lines(result: Any) -> list[str]:
    """Parcels and acres per class, town-wide, and the checks that did not run."""
    town = result.summary[result.summary["huc12"] == "all"]
    lines = [f"{result.parcels:,} parcels classified ({result.engine} engine, "
             f"{result.tiles} tile(s))"]
    for row in town.itertuples():
        lines.append(f"  {row.parcels:>8,}  {row.area_acres:>10,.1f} acres  {row.screening_class}")
    skipped = [c for c in result.checks if not c["ran"]]
    for c in skipped:
        lines.append(f"  not checked: {c['name']} ({c['note']})")
    return lines


__all__ = ["applicability_lines", "screening_lines"]

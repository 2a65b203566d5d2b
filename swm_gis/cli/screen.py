"""``swm-gis screen``: screen one site against Chapter 320 (permit trigger, standards, resources).

Thin: reads the FILE arguments into the working CRS, calls :func:`swm_gis.screening.build_screening`
and writes ``screening.json``, ``screening.gpkg`` and the report (``screening_report.html`` /
``.pdf``) into ``--out``.
"""

from __future__ import annotations

import datetime as dt
from enum import StrEnum
from pathlib import Path
from typing import Any

import pyogrio
import typer

from swm_gis.cli._common import (
    SAMPLE_DIR,
    app,
    config_option,
    no_cache_option,
    open_config,
    out_dir_option,
    overwrite_option,
    state,
)
from swm_gis.config import TownConfig
from swm_gis.disturbance import check_exemptions
from swm_gis.errors import SwmGisError
from swm_gis.layers import read_file, read_parcels_by_id
from swm_gis.screening import build_screening
from swm_gis.writers import check_outputs_free, write_geopackage, write_json

DEMO_ORDER = 20

OUTPUT_NAMES = {
    "screening_json": "screening.json",
    "screening_gpkg": "screening.gpkg",
    "screening_report_html": "screening_report.html",
    "screening_report_pdf": "screening_report.pdf",
}


class Development(StrEnum):
    auto = "auto"
    new = "new"
    redevelopment = "redevelopment"


@app.command()
def screen(
    config: Path = config_option(),
    site: str = typer.Option(..., "--site", "-s",
                             help="Limit-of-disturbance polygon(s): any GDAL vector file, or "
                                  "path.gpkg:layer."),
    common_plan: str | None = typer.Option(
        None, "--common-plan",
        help="Disturbance polygons of the larger common plan of development or sale the site "
             "belongs to (e.g. every lot of the subdivision)."),
    development: Development = typer.Option(
        Development.auto, "--development",
        help="auto measures existing impervious cover in the disturbance (any cover makes it "
             "redevelopment); new or redevelopment states it instead."),
    proposed_impervious: str | None = typer.Option(
        None, "--proposed-impervious",
        help="Post-construction impervious surfaces (polygons) for the retention volume."),
    proposed_impervious_sqft: float | None = typer.Option(
        None, "--proposed-impervious-sqft", min=0,
        help="Post-construction impervious area in square feet (instead of a file)."),
    mitigation: str | None = typer.Option(
        None, "--mitigation",
        help="Proposed off-site mitigation sites; each is checked for HUC12/HUC10 eligibility."),
    exemption: list[str] = typer.Option(
        [], "--exemption",
        help="A Bylaw 213-16B exemption the applicant claims (repeatable): npdes-waived, "
             "agriculture, landscaping, fencing, utilities, wetlands-order."),
    roadway_maintenance: bool = typer.Option(
        False, "--roadway-maintenance",
        help="Redevelopment limited to maintenance and improvement of existing roadways "
             "(exempt from § 320-19 B(8)(a)-(d) unless widening by a lane or more)."),
    parcel: list[str] = typer.Option(
        [], "--parcel",
        help="Subject parcel id(s) the work is on (repeatable): the floodplain check then also "
             "reports each parcel's SFHA and 0.2% overlap."),
    out: Path = out_dir_option(),
    overwrite: bool = overwrite_option(),
    received: str | None = typer.Option(
        None, "--received",
        help="Date the application was received (YYYY-MM-DD), for the report's hearing "
             "deadlines (§ 320-18 B)."),
    no_cache: bool = no_cache_option(),
) -> None:
    """Screen a proposed project: is a Stormwater Management Permit required, which standards
    apply, which resource areas and receiving waters bring extra requirements.

    Writes screening.json, screening.gpkg, screening_report.html and screening_report.pdf.

    Example: swm-gis screen -c data/sample/town.toml -s data/sample/sites.gpkg:site -o out
    """
    outputs, document = run_screen(
        config, site, out, common_plan=common_plan, development=development.value,
        proposed_impervious=proposed_impervious,
        proposed_impervious_sqft=proposed_impervious_sqft, mitigation=mitigation,
        exemptions=exemption, roadway_maintenance=roadway_maintenance, overwrite=overwrite,
        received=received, parcel_ids=parcel, no_cache=no_cache,
    )
    state.reporter.result("screen", outputs, summary=summary_lines(document),
                          permit_required=document["disturbance"]["permit_required"],
                          development_type=document["development_type"]["value"])


def run_screen(
    config: Path,
    site: str,
    out: Path,
    *,
    common_plan: str | None = None,
    development: str = "auto",
    proposed_impervious: str | None = None,
    proposed_impervious_sqft: float | None = None,
    mitigation: str | None = None,
    exemptions: list[str] | tuple[str, ...] = (),
    roadway_maintenance: bool = False,
    overwrite: bool = False,
    received: str | None = None,
    parcel_ids: list[str] | tuple[str, ...] = (),
    no_cache: bool = False,
) -> tuple[dict[str, Path], dict[str, Any]]:
    """Read the inputs, screen, write every output; returns (outputs, document)."""
    received_date = _parse_date(received)
    # "--exemption a,b" reads as "--exemption a --exemption b"
    claimed = check_exemptions(n for item in exemptions for n in str(item).split(",") if n.strip())
    if proposed_impervious is not None and proposed_impervious_sqft is not None:
        raise SwmGisError("Give the post-construction impervious area once: either "
                          "--proposed-impervious FILE or --proposed-impervious-sqft N, not both.")
    cfg = open_config(config, no_cache=no_cache)
    outputs = {key: Path(out) / name for key, name in OUTPUT_NAMES.items()}
    check_outputs_free(outputs.values(), overwrite=overwrite)
    rep = state.reporter
    rep.progress(0.0, "reading the site")
    frames = {
        "site": _read(site, cfg, "--site", "polygon"),
        "common_plan": _read(common_plan, cfg, "--common-plan", "polygon"),
        "proposed_impervious": _read(proposed_impervious, cfg, "--proposed-impervious",
                                     "polygon"),
        "mitigation": _read(mitigation, cfg, "--mitigation", None),
        "subject_parcels": read_parcels_by_id(cfg, list(parcel_ids)) if parcel_ids else None,
    }
    result = build_screening(
        cfg, frames["site"], common_plan=frames["common_plan"], development=development,
        proposed_impervious=frames["proposed_impervious"],
        proposed_impervious_sqft=proposed_impervious_sqft, mitigation=frames["mitigation"],
        exemptions=claimed, roadway_maintenance=roadway_maintenance,
        subject_parcels=frames["subject_parcels"],
        progress=lambda f, m: rep.progress(0.05 + 0.8 * f, m),
    )
    document = result.document
    document["meta"]["parameters"].update({
        "site": site, "common_plan": common_plan, "mitigation": mitigation,
        "proposed_impervious": proposed_impervious, "parcels": list(parcel_ids),
        "received": received_date.isoformat() if received_date else None,
    })
    rep.progress(0.87, "writing screening.json and screening.gpkg")
    write_json(document, outputs["screening_json"])
    write_geopackage(result.layers, outputs["screening_gpkg"])
    rep.progress(0.9, "writing the screening report")
    written = _write_report(document, result.layers, Path(out), received_date)
    for key, path in written.items():
        if Path(path) not in outputs.values():
            outputs[key] = Path(path)
    return {k: v for k, v in outputs.items() if Path(v).exists()}, document


def summary_lines(document: dict[str, Any]) -> list[str]:
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


def _read(source: str | None, cfg: TownConfig, what: str, geometry: str | None):
    if source is None:
        return None
    return read_file(source, working_crs=cfg.crs, what=what, geometry=geometry)


def _parse_date(text: str | None) -> dt.date | None:
    if text is None:
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError as exc:
        raise SwmGisError(f'--received "{text}" is not a date; write it as YYYY-MM-DD, e.g. '
                          "2026-03-14.") from exc


def _write_report(document: dict[str, Any], layers: dict, out: Path,
                  received: dt.date | None) -> dict[str, Path]:
    # imported here: the report stack (reportlab, matplotlib) loads only when a report is written
    from swm_gis.reports.screening_report import write_screening_report

    written = write_screening_report(document, layers, out, received=received)
    return {f"report_{key}": Path(path) for key, path in written.items()}


# --------------------------------------------------------------------------- demo
def run_demo(config_path: Path, out_dir: Path) -> list[str]:
    """Screen the sample town's sites: a large site, then a small lot in a common plan."""
    sites = Path(config_path).parent / "sites.gpkg"
    if not sites.is_file():
        sites = SAMPLE_DIR / "sites.gpkg"
    if not sites.is_file():
        return [f"skipped: {sites} not found (the sample sites are not generated yet)"]
    names = {row[0] for row in pyogrio.list_layers(sites)}
    lines: list[str] = []
    runs = [
        ("site", dict(site="site",
                      proposed_impervious="proposed_impervious"
                      if "proposed_impervious" in names else None,
                      mitigation="mitigation" if "mitigation" in names else None)),
        ("site_small", dict(site="site_small",
                            common_plan="common_plan" if "common_plan" in names else None,
                            proposed_impervious="proposed_impervious"
                            if "proposed_impervious" in names else None)),
    ]
    for folder, layers in runs:
        if layers["site"] not in names:
            lines.append(f"skipped {folder}: no layer {layers['site']} in {sites}")
            continue
        args = {k: (f"{sites}:{v}" if v else None) for k, v in layers.items()}
        outputs, document = run_screen(
            Path(config_path), args.pop("site"), Path(out_dir) / folder, overwrite=True, **args)
        lines.append(f"{folder}:")
        lines.extend("  " + line for line in summary_lines(document))
        lines.append(f"  outputs in {Path(out_dir) / folder}")
    return lines

"""``swm-gis abutters``: the abutter notification package (README "Commands", ``docs/abutters.md``).

Thin: parses the arguments into one :class:`~swm_gis.notification.request.AbutterRequest` and
prints; the job is :func:`swm_gis.jobs.abutter_package_request` and
:meth:`swm_gis.results.AbutterPackage.write`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from swm_gis.cli._common import (
    also_writes_option,
    app,
    config_option,
    input_label_option,
    input_labels,
    no_cache_option,
    open_config,
    out_dir_option,
    overwrite_option,
    protect_option,
    refuse_front_end_outputs,
    state,
)
from swm_gis.errors import SwmGisError
from swm_gis.io.outputs import config_inputs, final_paths, output_package

if TYPE_CHECKING:
    from swm_gis.config.town import TownConfig
    from swm_gis.notification.request import AbutterRequest
    from swm_gis.results import AbutterPackage

DEMO_ORDER = 30


@app.command()
def abutters(
    config: Path = config_option(),
    parcel: list[str] = typer.Option(
        None, "--parcel", "-p", metavar="ID",
        help="Subject parcel: its id (the parcels layer's id field, e.g. LOC_ID) or the "
             "assessor's map-lot (MAP_PAR_ID, e.g. 7-K-33); repeat for several parcels, which "
             "are treated as one property."),
    site: str = typer.Option(
        None, "--site", metavar="FILE", help="Vector file with the project's polygon(s) (path or "
                             "path.gpkg:layer); the subject is every parcel the site really lies "
                             "on ([rules] site_subject_share); a parcel it only grazes stays an "
                             "abutter, with a warning."),
    distance: str = typer.Option(
        None, "--distance", "-d", metavar="DISTANCE",
        help='Notification distance: "100ft", "100 ft", "30.48m" or a number of feet. '
             "Default: the config's abutter_distance_ft (the regulation profile's notice "
             "distance)."),
    include_subject: bool = typer.Option(
        False, "--include-subject", help="Also list (and notify) the subject parcels' owners."),
    notice: str = typer.Option(
        "conservation", "--notice", metavar="conservation|zoning",
        help="Which list: conservation (default: the regulation's notice clause and distance, "
             "as its profile states them; with --distance, a plain radius) or zoning "
             "(M.G.L. c.40A, section 11 parties in interest: abutters, owners directly "
             "opposite on any public or private street or way, and abutters to the abutters "
             "within 300 ft; every parcel within 100 ft too)."),
    sort: str = typer.Option(
        None, "--sort", metavar="owner|street|map-lot",
        help="Order of the list, the labels and the mailing book: owner (name), street (the "
             "parcel's site address: street, then number) or map-lot. Default: nearest first."),
    out: Path = out_dir_option(),
    overwrite: bool = overwrite_option(),
    protect: list[Path] = protect_option(),
    also_writes: list[Path] = also_writes_option(),
    input_label: list[str] = input_label_option(),
    label_template: str = typer.Option(
        "5160", "--label-template", metavar="5160|5161|5162|5163",
        help="Avery label sheet: 5160 (30 per sheet, default), 5161, 5162 or 5163."),
    label_offset: str = typer.Option(
        "0,0", "--label-offset", metavar="X,Y",
        help="Printer calibration for labels.pdf: X,Y in inches (X to the right, Y down), "
             "e.g. 0.03,-0.05."),
    sender: list[str] = typer.Option(
        None, "--sender", metavar="LINE",
        help="A line of the sender block of certified_mail.pdf (repeat for each line: name, "
             "street, city/state/ZIP)."),
    wpa_pond_extension: bool = typer.Option(
        False, "--wpa-pond-extension",
        help="Also notify owners of land abutting a pond of less than 10 acres that the "
             "subject borders (Wetlands Protection Act practice). Ponds come from "
             "[layers.waterbodies], else from parcels with POLY_TYPE WATER."),
    max_abutters: int = typer.Option(
        None, "--max-abutters", metavar="N", min=0,
        help="Stop, writing nothing, when more than N parcels abut. Without it a list longer "
             "than [rules] abutter_warning_count (500) is written with a warning."),
    no_cache: bool = no_cache_option(),
) -> None:
    """List the owners of all property within 100 ft of the subject's property line and write
    the mailing package.

    Abutters are found by exact distance from the subject property line (inclusive), across streets,
    town lines and water. Right-of-way and water polygons without an owner go to left_out.csv with
    the reason; parcels with no assessing record are listed and flagged; one notice per owner and
    mailing address after normalisation (the count removed is reported). Writes
    abutting_parcels.csv, mailing_list.csv and .xlsx, mailing_review.csv (owners who cannot be
    mailed, likely duplicates), certification.pdf (sources, vintage, counts and the Board of
    Assessors' certification block, naming every abutting parcel not mailed and why), labels.pdf,
    abutters_map.pdf, certified_mail.pdf (a mailing book in the PS Form 3877 layout, for certified
    mail, return receipt requested, or certificates of mailing), left_out.csv, abutters.gpkg and
    abutters.json (counts and warnings, e.g. parcels_missing_beyond_edge when the search area
    crosses into a town whose parcels the config does not provide).

    Example: swm-gis abutters --config data/cambridge.toml --parcel 9-29 --out abutters-9-29
    """
    from swm_gis.io.writers import check_outputs_free
    from swm_gis.notification.request import AbutterRequest
    from swm_gis.results import output_paths

    cfg = open_config(config, no_cache=no_cache)
    offset = parse_offset(label_offset)
    inputs = [*config_inputs(cfg), site, *protect]
    refuse_front_end_outputs(also_writes, inputs)
    check_outputs_free(output_paths(out).values(), overwrite=overwrite)
    # Inputs read-only, one run per folder, the package whole or not at all (swm_gis.io.outputs).
    with output_package(out, inputs=inputs, overwrite=overwrite,
                        command=f"swm-gis abutters --out {out}",
                        say=state.reporter.info) as stage:
        request = AbutterRequest(parcels=list(parcel or []), site=site, distance=distance,
                                 include_subject=include_subject, notice=notice, sort=sort,
                                 wpa_pond_extension=wpa_pond_extension,
                                 sender=list(sender or []), max_abutters=max_abutters,
                                 site_label=input_labels(input_label, ("site",)).get("site"))
        staged, summary, package = run_abutters(
            cfg, request, out_dir=stage, staged=True, overwrite=True,
            label_template=label_template, label_offset=offset,
            progress=state.reporter.progress, warn=state.reporter.info)
    outputs = final_paths(staged, stage, out)
    state.reporter.result("abutters", outputs, summary=summary,
                          manifest=package.manifest(outputs, out, summary=summary))


def parse_offset(text: str) -> tuple[float, float]:
    """``"0.05,-0.03"`` -> (0.05, -0.03) inches."""
    parts = [p.strip() for p in str(text).replace(";", ",").split(",")]
    try:
        if len(parts) != 2:
            raise ValueError
        x, y = float(parts[0]), float(parts[1])
        if not (math.isfinite(x) and math.isfinite(y)):  # "nan,0" parses as a float
            raise ValueError
    except ValueError:
        raise SwmGisError(
            f'Cannot read --label-offset "{text}": give X,Y in inches, e.g. --label-offset '
            "0.03,-0.05 (X to the right, Y down)."
        ) from None
    if abs(x) > 1 or abs(y) > 1:
        raise SwmGisError(f"--label-offset {text} is more than an inch; a printer offset is "
                          "a small correction (e.g. 0.03,-0.05).")
    return x, y


def run_abutters(
    cfg: TownConfig,
    request: AbutterRequest,
    *,
    out_dir: Path,
    staged: bool = False,
    overwrite: bool = False,
    label_template: str = "5160",
    label_offset: tuple[float, float] = (0.0, 0.0),
    progress: Callable[[float, str], None] = lambda f, m: None,
    warn: Callable[[str], None] = lambda m: None,
) -> tuple[dict[str, Path], list[str], AbutterPackage]:
    """Check the outputs are free, build the package
    (:func:`swm_gis.jobs.abutter_package_request`), write it; return paths, summary and the
    package.

    A ``many_abutters`` warning is said through ``warn`` before anything is written;
    ``staged``: ``out_dir`` is the command's own staging folder."""
    from swm_gis.io.writers import check_outputs_free
    from swm_gis.jobs import abutter_package_request
    from swm_gis.results import check_label_template, output_paths

    check_label_template(label_template)
    check_outputs_free(output_paths(out_dir).values(), overwrite=overwrite)
    package = abutter_package_request(cfg, request, progress=progress)
    for w in package.warnings:
        if w["code"] == "many_abutters":
            warn(f"Warning ({w['code']}): {w['text']}")
    paths = package.write(out_dir, overwrite=overwrite, label_template=label_template,
                          label_offset=label_offset, progress=progress, staged=staged)
    return paths, [*package.summary, *_label_warnings(package, label_template)], package


def _label_warnings(package, label_template: str) -> list[str]:
    """Names too long for a label or a mailing-book line even at the smallest type: said in the
    summary (their street and city/state/ZIP lines are always printed whole)."""
    from swm_gis.reports.certified_mail import shortened_labels

    names = shortened_labels(package.recipients, template=str(label_template))
    if not names:
        return []
    shown = "; ".join(n if len(n) <= 40 else n[:39] + "…" for n in names[:3])
    more = f" and {len(names) - 3} more" if len(names) > 3 else ""
    return [f"Warning: {len(names)} owner name(s) too long for a label or the mailing book were "
            f"shortened with an ellipsis ({shown}{more}); the full names are in "
            "mailing_list.csv: write them by hand."]


# --------------------------------------------------------------------------- demo
def demo_parcel_id(config_path: Path) -> str | None:
    """The subject parcel the sample town's README names for the abutters demo."""
    readme = Path(config_path).parent / "README.md"
    if not readme.is_file():
        return None
    text = readme.read_text(encoding="utf-8")
    for pattern in (r"Abutter subject[^`]*`([^`]+)`", r"subject parcel[^`]*`([^`]+)`"):
        m = re.search(pattern, text, re.IGNORECASE)
        if m:
            return m.group(1).strip()
    return None


def __getattr__(name: str) -> object:
    """``DEMO_OUTPUTS``: the files the demo step writes in its folder (the demo refuses to
    replace anyone else's), read from :mod:`swm_gis.results` when asked, not at start-up."""
    if name == "DEMO_OUTPUTS":
        from swm_gis.results import OUTPUT_FILES

        return tuple(OUTPUT_FILES.values())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def run_demo(config_path: Path, out_dir: Path) -> list[str]:
    from swm_gis.notification.package import first_owned_parcel
    from swm_gis.notification.request import AbutterRequest

    cfg = open_config(config_path)
    pid = demo_parcel_id(config_path) or first_owned_parcel(cfg)
    _paths, summary, _package = run_abutters(cfg, AbutterRequest(parcels=[pid]),
                                             out_dir=out_dir, overwrite=True)
    return [*summary, f"outputs in {out_dir}"]


__all__ = ["run_abutters", "run_demo"]

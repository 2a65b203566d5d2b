"""``swm-gis screen``: screen one site against Chapter 320 (permit trigger, standards, resources).

Thin: parses the arguments into one :class:`~swm_gis.screening.request.ScreeningRequest`, calls
:func:`swm_gis.jobs.screen_request` and
:meth:`swm_gis.results.Screening.write` (``screening.json``, ``screening.gpkg`` and the report,
``screening_report.html`` / ``.pdf``, into ``--out``) and prints the summary.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from swm_gis.cli._common import (
    SAMPLE_DIR,
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
from swm_gis.io.outputs import config_inputs, final_paths, output_package
from swm_gis.summaries import screening_lines

if TYPE_CHECKING:
    from swm_gis.results import Screening
    from swm_gis.screening.request import ScreeningRequest

DEMO_ORDER = 20


def __getattr__(name: str) -> object:
    """``DEMO_OUTPUTS``: the files the demo step writes (site/ and site_small/ sub-folders),
    read from :mod:`swm_gis.results` when asked, not at start-up."""
    if name == "DEMO_OUTPUTS":
        from swm_gis.results import SCREENING_FILES

        return tuple(f"{folder}/{name}" for folder in ("site", "site_small")
                     for name in SCREENING_FILES.values())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Development(StrEnum):
    auto = "auto"
    new = "new"
    redevelopment = "redevelopment"


@app.command()
def screen(
    config: Path = config_option(),
    site: str = typer.Option(..., "--site", "-s", metavar="FILE",
                             help="Limit-of-disturbance polygon(s): any GDAL vector file, or "
                                  "path.gpkg:layer."),
    common_plan: str | None = typer.Option(
        None, "--common-plan", metavar="FILE",
        help="Disturbance polygons of the larger common plan of development or sale the site "
             "belongs to (e.g. every lot of the subdivision)."),
    development: Development = typer.Option(
        Development.auto, "--development", metavar="auto|new|redevelopment",
        help="auto measures existing impervious cover in the disturbance (any cover makes it "
             "redevelopment); new or redevelopment states it instead."),
    proposed_impervious: str | None = typer.Option(
        None, "--proposed-impervious", metavar="FILE",
        help="Proposed (post-construction) impervious surfaces (polygons) for the retention "
             "volume; the existing cover on the site's parcel(s) outside the limit of "
             "disturbance that stays is added to them."),
    proposed_impervious_sqft: float | None = typer.Option(
        None, "--proposed-impervious-sqft", min=0, metavar="N",
        help="Proposed impervious area inside the limit of disturbance in square feet "
             "(instead of a file); the existing cover outside it that stays is added."),
    removed_impervious: str | None = typer.Option(
        None, "--removed-impervious", metavar="FILE",
        help="Existing impervious cover on the site's parcel(s) outside the limit of "
             "disturbance that the applicant removes (polygons): it is left out of the total "
             "post-construction impervious area (default: all of that cover stays)."),
    mitigation: str | None = typer.Option(
        None, "--mitigation", metavar="FILE",
        help="Proposed off-site mitigation sites; each is checked for HUC12/HUC10 eligibility."),
    exemption: list[str] = typer.Option(
        [], "--exemption", metavar="NAME",
        help="An exemption of the applied regulation the applicant claims (repeatable), by its "
             "id in the regulation profile (swm-gis regulation list --exemptions lists them, "
             "e.g. npdes-waived, agriculture, landscaping, fencing, utilities, wetlands-order). "
             "An id the profile does not list: exit 2."),
    roadway_maintenance: bool = typer.Option(
        False, "--roadway-maintenance",
        help="Redevelopment limited to maintenance and improvement of existing roadways "
             "(the regulation's roadway-maintenance exemption from the redevelopment standards, "
             "unless widening by a lane or more: the applicant's claim; refused, exit 2, when "
             "the applied regulation has no such exemption)."),
    parcel: list[str] = typer.Option(
        [], "--parcel", metavar="ID",
        help="The site's parcel id(s) (repeatable): the regulation's site is the lot or parcel, "
             "so the floodplain and impervious areas read them (default: the parcels the limit of "
             "disturbance lies on), with what lies inside and outside the disturbance. Each "
             "must touch the limit of disturbance: one it does not touch is refused (exit 2), "
             "naming the parcels the site lies on."),
    proposed_use: str | None = typer.Option(
        None, "--proposed-use", metavar="USE",
        help="Proposed land use: a Massachusetts DOR use code (e.g. 101, 325, 401) or "
             "commercial, industrial, residential, ...; decides the impaired-water duty for "
             "commercial or industrial land, or a land use the town's regulation profile "
             "lists (e.g. \"gas station\" under westwood-ch350), which may reach a review "
             "tier whatever the area. Without it, that duty is conditional wherever runoff reaches "
             "a water impaired by solids, metals or oil and grease ('applies if the proposed "
             "use is commercial or industrial'), naming the site parcels' existing use codes, "
             "and the checklist says 'Check'."),
    out: Path = out_dir_option(),
    overwrite: bool = overwrite_option(),
    protect: list[Path] = protect_option(),
    also_writes: list[Path] = also_writes_option(),
    input_label: list[str] = input_label_option(),
    received: str | None = typer.Option(
        None, "--received", metavar="DATE",
        help="Date the application was received (YYYY-MM-DD), for the report's hearing "
             "deadlines (Ch. 320, permit procedure, B)."),
    no_cache: bool = no_cache_option(),
    report: bool = typer.Option(
        True, "--report/--no-report",
        help="Write screening_report.html and .pdf (--no-report: only the JSON and GeoPackage, "
             "e.g. for a single check)."),
) -> None:
    """Screen a proposed project: is a Stormwater Management Permit required, which standards
    apply, which resource areas and receiving waters bring extra requirements.

    Writes screening.json, screening.gpkg, screening_report.html and screening_report.pdf.

    Example: swm-gis screen -c data/sample/town.toml -s data/sample/sites.gpkg:site -o out
    """
    from swm_gis.io.writers import check_outputs_free
    from swm_gis.results import screening_outputs
    from swm_gis.screening.request import ScreeningRequest

    inputs = [*config_inputs(open_config(config)), site, common_plan, proposed_impervious,
              removed_impervious, mitigation, *protect]
    refuse_front_end_outputs(also_writes, inputs)
    check_outputs_free(screening_outputs(out, report=report).values(), overwrite=overwrite)
    # Inputs read-only, one run per folder, the package whole or not at all (swm_gis.io.outputs).
    with output_package(out, inputs=inputs, overwrite=overwrite,
                        command=f"swm-gis screen --out {out}",
                        say=state.reporter.info) as stage:
        request = ScreeningRequest(
            site, common_plan=common_plan, development=development.value,
            proposed_impervious=proposed_impervious,
            proposed_impervious_sqft=proposed_impervious_sqft,
            removed_impervious=removed_impervious, mitigation=mitigation, exemptions=exemption,
            roadway_maintenance=roadway_maintenance, parcels=parcel,
            received=received, proposed_use=proposed_use,
            labels=input_labels(input_label, ("site", "common_plan", "proposed_impervious",
                                              "removed_impervious", "mitigation")))
        outputs, result = run_screen(config, request, stage, overwrite=True, report=report,
                                     no_cache=no_cache, staged=True)
    outputs = final_paths(outputs, stage, out)
    document = result.document
    state.reporter.result("screen", outputs, summary=screening_lines(document),
                          manifest=result.manifest(outputs, out),
                          permit_required=document["disturbance"]["permit_required"],
                          findings={f["key"]: f["status"] for f in document["findings"]},
                          development_type=document["development_type"]["value"])


def run_screen(
    config: Path,
    request: ScreeningRequest,
    out: Path,
    *,
    overwrite: bool = False,
    report: bool = True,
    no_cache: bool = False,
    staged: bool = False,
) -> tuple[dict[str, Path], Screening]:
    """Check the outputs are free, screen (:func:`swm_gis.jobs.screen_request`), write;
    (outputs, the screening). ``staged``: ``out`` is the command's own staging folder."""
    from swm_gis.io.writers import check_outputs_free
    from swm_gis.jobs import screen_request
    from swm_gis.results import screening_outputs

    cfg = open_config(config, no_cache=no_cache)
    check_outputs_free(screening_outputs(out, report=report).values(), overwrite=overwrite)
    rep = state.reporter
    result = screen_request(cfg, request, progress=rep.progress)
    return (result.write(out, overwrite=overwrite, progress=rep.progress, report=report,
                         staged=staged),
            result)


# --------------------------------------------------------------------------- demo
def run_demo(config_path: Path, out_dir: Path) -> list[str]:
    """Screen the sample town's sites: a large site, then a small lot in a common plan."""
    import pyogrio

    from swm_gis.screening.request import ScreeningRequest

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
        _outputs, result = run_screen(Path(config_path), ScreeningRequest(**args),
                                      Path(out_dir) / folder, overwrite=True)
        lines.append(f"{folder}:")
        lines.extend("  " + line for line in screening_lines(result.document))
        lines.append(f"  outputs in {Path(out_dir) / folder}")
    return lines

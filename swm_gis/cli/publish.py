"""``swm-gis publish``: the public "do I need a stormwater permit?" web map, as static files.

Thin: parses the arguments, calls :func:`swm_gis.webmap.job.publish` inside the command's output
safety (:func:`swm_gis.io.outputs.output_package`) and prints.
"""

from __future__ import annotations

from pathlib import Path

import typer

from swm_gis.cli._common import (
    also_writes_option,
    app,
    config_option,
    open_config,
    out_dir_option,
    overwrite_option,
    protect_option,
    refuse_front_end_outputs,
    state,
)
from swm_gis.io.outputs import config_inputs, final_paths, output_package, refuse_inputs

DEMO_ORDER = 50


@app.command()
def publish(
    config: Path = config_option(),
    out: Path = out_dir_option(),
    source: Path = typer.Option(
        None, "--from", metavar="FILE.gpkg", dir_okay=False,
        help="The applicability map to publish (written by swm-gis applicability --out). "
             "Default: it is computed from the config first."),
    simplify_ft: float = typer.Option(
        None, "--simplify-ft", metavar="FT", min=0.0, max=100.0,
        help="Display simplification of the shapes, in feet (default 1.5, or the config's "
             "[publish] simplify_ft; 0 keeps them exact). The cards' figures always come "
             "from the exact map."),
    overwrite: bool = overwrite_option(),
    protect: list[Path] = protect_option(),
    also_writes: list[Path] = also_writes_option(),
) -> None:
    """Write a static web map of the applicability classes for the public: search by address
    or map-lot, a card per parcel in plain words with the Chapter 320 sections, the whole map
    on a printable page (applicability_map.pdf), offline from a folder or on any web server
    (no server-side code, no internet).

    Example: swm-gis publish --config data/sample/town.toml --out site
    """
    from swm_gis.webmap.job import check_site_folder
    from swm_gis.webmap.job import publish as publish_site

    cfg = open_config(config)
    inputs = [*config_inputs(cfg), *([str(source)] if source is not None else []), *protect]
    refuse_inputs(out, inputs)  # first: an input is never written to, --overwrite or not
    refuse_front_end_outputs(also_writes, inputs)
    check_site_folder(out, overwrite=overwrite)
    with output_package(out, inputs=inputs, overwrite=overwrite,
                        command=f"swm-gis publish --out {out}",
                        say=state.reporter.info) as stage:
        result = publish_site(cfg, stage, source=source, overwrite=True, staged=True,
                              simplify_ft=simplify_ft, progress=state.reporter.progress)
    files = final_paths(result.files, stage, out)
    summary = [line.replace(str(stage), str(out)) for line in result.summary_lines]
    state.reporter.result("publish", {"index_html": files["index.html"]}, summary=summary,
                          parcels=result.parcels, size_bytes=result.size_bytes,
                          manifest=result.manifest(files, out, summary=summary))


#: Files the demo step writes in its folder.
DEMO_OUTPUTS = ("index.html", "publish.json", "data/data.js", "assets/app.js", "assets/app.css",
                "assets/leaflet/leaflet.js", "assets/leaflet/leaflet.css",
                "assets/leaflet/LICENSE", "assets/leaflet/VERSION")


def run_demo(config_path: Path, out_dir: Path) -> list[str]:
    from swm_gis.webmap.job import publish as publish_site

    # the demo's applicability step (DEMO_ORDER 40) wrote the map beside this folder
    computed = out_dir.parent / "applicability" / "applicability.gpkg"
    result = publish_site(open_config(config_path), out_dir, overwrite=True,
                          source=computed if computed.is_file() else None)
    return [f"web map: {result.path / 'index.html'}", *result.summary_lines[:1]]

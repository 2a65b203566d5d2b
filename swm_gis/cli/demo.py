"""``swm-gis demo``: every job on the bundled synthetic sample town.

Each command module in this package may define ``DEMO_ORDER: int``,
``DEMO_OUTPUTS: tuple[str, ...]`` (the files it writes, relative to its folder) and
``run_demo(config_path: Path, out_dir: Path) -> list[str]`` (lines for the summary); the demo runs
them in order, each into its own sub-folder of ``--out``, so a new job joins the demo by defining
them.

The demo never deletes anything. It writes only its own files: ``<out>/<step>/<file>`` for each
step, and ``<out>/.swm-gis-demo.json`` recording what it wrote. Before writing anything it refuses
(exit 2) when one of those files already exists and is not recorded there by an earlier demo
run, so a user's file is never replaced; files of an earlier demo run are replaced. Other files in
the folder (``--out .`` included) are left alone.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import time
from pathlib import Path

import typer

import swm_gis.cli as cli_pkg
from swm_gis.cli._common import SAMPLE_DIR, app, state
from swm_gis.errors import ConfigError, OutputExistsError
from swm_gis.io.outputs import (
    config_inputs,
    explain_os_errors,
    interrupt_guard,
    output_lock,
    refuse_inputs,
)

#: The record of what a demo run wrote, in the ``--out`` folder.
MARKER = ".swm-gis-demo.json"


def demo_steps() -> list[tuple[int, str, object]]:
    steps = []
    for mod in pkgutil.iter_modules(cli_pkg.__path__):
        if mod.name.startswith("_") or mod.name == "demo":
            continue
        module = importlib.import_module(f"swm_gis.cli.{mod.name}")
        if hasattr(module, "run_demo"):
            steps.append((getattr(module, "DEMO_ORDER", 50), mod.name, module.run_demo))
    return sorted(steps, key=lambda s: (s[0], s[1]))


def demo_outputs(names: list[str]) -> list[str]:
    """The files the demo steps write, relative to ``--out`` (``step/file``), sorted."""
    out = []
    for name in names:
        module = importlib.import_module(f"swm_gis.cli.{name}")
        out += [f"{name}/{rel}" for rel in getattr(module, "DEMO_OUTPUTS", ())]
    return sorted(out)


def previous_outputs(out: Path) -> set[str]:
    """The files an earlier demo run recorded in ``out`` (none without a record).

    A file named like the record that is not one is somebody else's: OutputExistsError.
    """
    path = out / MARKER
    if not path.exists():
        return set()
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        if record.get("written_by") != "swm-gis demo":
            raise ValueError
        return {str(f) for f in record["files"]}
    except (OSError, ValueError, AttributeError, KeyError, TypeError):
        raise OutputExistsError(f"{path} is not a record of an swm-gis demo run; the demo "
                                "would replace it. Choose another --out folder.") from None


def check_demo_folder(out: Path, names: list[str]) -> list[str]:
    """Refuse (OutputExistsError) to replace anything that is not the demo's own; the outputs."""
    if out.exists() and not out.is_dir():
        raise OutputExistsError(f"--out {out} is a file; give a folder for the demo outputs.")
    for name in names:
        if (out / name).exists() and not (out / name).is_dir():
            raise OutputExistsError(
                f"{out / name} is a file, where the demo writes its {name} folder. Choose "
                "another --out folder."
            )
    planned = demo_outputs(names)
    ours = previous_outputs(out)
    foreign = [rel for rel in planned if (out / rel).exists() and rel not in ours]
    if foreign:
        shown = ", ".join(str(out / rel) for rel in foreign[:5])
        more = f" and {len(foreign) - 5} more" if len(foreign) > 5 else ""
        raise OutputExistsError(
            f"The demo would replace {shown}{more}, which an earlier demo run did not write. "
            "Choose another --out folder (the demo never replaces files it did not write)."
        )
    return planned


@app.command()
def demo(
    out: Path = typer.Option(Path("swm-gis-demo"), "--out", "-o", metavar="DIR",
                             help="Folder for the demo outputs (created if missing). Only the "
                                  "demo's own files are written; it stops, changing nothing, "
                                  "if one of them exists and was not written by a demo.",
                             file_okay=False),
    config: Path = typer.Option(None, "--config", "-c", metavar="FILE", show_default=False,
                                help="Town config to run the demo on. Default: the bundled "
                                     "synthetic sample town (data/sample/town.toml)."),
    where: bool = typer.Option(False, "--where",
                               help="Run nothing: say where the bundled sample town is (its "
                                    "folder, town config, layers and demo sites); with "
                                    "--progress json, as one JSON line."),
) -> None:
    """Run every job on the bundled SYNTHETIC sample town and say where the outputs are.

    Example: swm-gis demo --out swm-gis-demo
    """
    if where:
        _say_where()
        return
    config = Path(config) if config else SAMPLE_DIR / "town.toml"
    if not config.is_file():
        raise ConfigError(
            f"The sample town config {config} is missing. Run the demo from a checkout of the "
            "repository (make demo), or pass --config with a town config."
        )
    from swm_gis.config.town import load_config

    # never write into (or around) the town's own data: --out must not hold the config's inputs
    refuse_inputs(out, config_inputs(load_config(config)))
    with interrupt_guard(out), explain_os_errors(out), \
            output_lock(out, command=f"swm-gis demo --out {out}"):
        _run_demo(out, config)


def sample_town() -> dict:
    """Where the bundled sample town is: its folder, town config, the config's layers (key,
    file, layer; in the config's order) and the demo sites (file, layers), all absolute."""
    import pyogrio

    from swm_gis.config.town import load_config

    config = (SAMPLE_DIR / "town.toml").resolve()
    if not config.is_file():
        raise ConfigError(f"The bundled sample town is missing: no {config}. Reinstall swm-gis "
                          "(the wheel carries it), or run from a checkout of the repository.")
    town = load_config(config)
    sites = config.parent / "sites.gpkg"
    return {"folder": str(config.parent), "config": str(config), "name": town.name,
            "synthetic": town.synthetic,
            "layers": [{"key": key, "path": str(Path(spec.path).resolve()),
                        "layer": spec.layer} for key, spec in town.layers.items()],
            "sites": {"path": str(sites),
                      "layers": [str(row[0]) for row in pyogrio.list_layers(sites)]}}


def _say_where() -> None:
    from swm_gis.cli._common import emit_lines

    info = sample_town()
    lines = [f"The bundled sample town ({info['name']}; made up, not real data) is in "
             f"{info['folder']}", f"Town config: {info['config']}",
             *(f"  {x['key']}: {x['path']}" + (f" (layer {x['layer']})" if x["layer"] else "")
               for x in info["layers"]),
             f"Demo sites: {info['sites']['path']} (layers "
             f"{', '.join(info['sites']['layers'])})"]
    emit_lines("demo --where", lines, sample=info)


def _run_demo(out: Path, config: Path) -> None:
    from swm_gis.io.writers import write_json

    rep = state.reporter
    steps = demo_steps()
    planned = check_demo_folder(out, [name for _, name, _ in steps])
    out.mkdir(parents=True, exist_ok=True)
    summary = [f"swm-gis demo on {config} (synthetic sample town: not real data)"]
    outputs = {}
    try:
        for i, (_, name, run) in enumerate(steps):
            rep.progress(i / max(len(steps), 1), f"demo: {name}")
            started = time.perf_counter()
            lines = run(config.resolve(), out / name)
            summary.append(f"[{name}] ({time.perf_counter() - started:.1f} s)")
            summary.extend(f"  {line}" for line in lines)
            outputs[name] = out / name
    finally:  # record what exists now, so a rerun may replace it (also after a failed step)
        written = sorted(previous_outputs(out) | {rel for rel in planned
                                                  if (out / rel).exists()})
        write_json({"written_by": "swm-gis demo", "files": written}, out / MARKER)
    summary.append(f"All outputs are in {out.resolve()}")
    from swm_gis.manifest import demo_manifest

    rep.result("demo", outputs, summary=summary,
               manifest=demo_manifest(outputs, out.resolve(), summary))

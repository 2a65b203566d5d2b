"""``swm-gis demo``: every job on the bundled synthetic sample town.

Each command module in this package may define ``DEMO_ORDER: int`` and
``run_demo(config_path: Path, out_dir: Path) -> list[str]`` (lines for the summary); the demo runs
them in order, each into its own sub-folder, so a new job joins the demo by defining them.
"""

from __future__ import annotations

import importlib
import pkgutil
import time
from pathlib import Path

import typer

import swm_gis.cli as cli_pkg
from swm_gis.cli._common import SAMPLE_DIR, app, state
from swm_gis.config import load_config
from swm_gis.errors import ConfigError
from swm_gis.outputs import config_inputs, output_package


def demo_steps() -> list[tuple[int, str, object]]:
    steps = []
    for mod in pkgutil.iter_modules(cli_pkg.__path__):
        if mod.name.startswith("_") or mod.name == "demo":
            continue
        module = importlib.import_module(f"swm_gis.cli.{mod.name}")
        if hasattr(module, "run_demo"):
            steps.append((getattr(module, "DEMO_ORDER", 50), mod.name, module.run_demo))
    return sorted(steps, key=lambda s: (s[0], s[1]))


@app.command()
def demo(
    out: Path = typer.Option(Path("swm-gis-demo"), "--out", "-o",
                             help="Folder for all demo outputs (same-named files are replaced).",
                             file_okay=False),
    config: Path = typer.Option(SAMPLE_DIR / "town.toml", "--config", "-c",
                                help="Town config to run the demo on (default: the sample town)."),
) -> None:
    """Run every job on the bundled SYNTHETIC sample town and say where the outputs are.

    Example: swm-gis demo --out swm-gis-demo
    """
    if not config.is_file():
        raise ConfigError(
            f"The sample town config {config} is missing. Run the demo from a checkout of the "
            "repository (make demo), or pass --config with a town config."
        )
    rep = state.reporter
    summary = [f"swm-gis demo on {config} (synthetic sample town: not real data)"]
    outputs = {}
    steps = demo_steps()
    # Never deletes --out (it may hold the inputs: refused); files are replaced all at once.
    with output_package(out, inputs=config_inputs(load_config(config)), overwrite=True,
                        command=f"swm-gis demo --out {out}") as stage:
        for i, (_, name, run) in enumerate(steps):
            rep.progress(i / max(len(steps), 1), f"demo: {name}")
            started = time.perf_counter()
            lines = run(config.resolve(), stage / name)
            summary.append(f"[{name}] ({time.perf_counter() - started:.1f} s)")
            summary.extend(f"  {line.replace(str(stage), str(out))}" for line in lines)
            outputs[name] = out / name
    summary.append(f"All outputs are in {out.resolve()}")
    rep.result("demo", outputs, summary=summary)

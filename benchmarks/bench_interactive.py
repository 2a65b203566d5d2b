"""A QGIS algorithm's round trip: the warm engine vs one process per run vs the engine's own time.

Runs ``swm_gis:abutters`` (the sample town's parcels and assessing table, one subject parcel,
every output of the package) in a headless QGIS with the plugin loaded as QGIS loads it, and
prints the median of N runs of: the round trip with the session's warm engine
(``swm-gis serve``, started before the timed runs), the round trip with one engine process per
run (``SWM_GIS_WARM_ENGINE=0``), and the engine's own time (the job's ``seconds`` as the warm
engine reports it: the command line's work, without start-up or the plugin's side). The target
(issue 37): warm round trip <= engine time + 0.5 s.

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/bench_interactive.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "data" / "sample"
SUBJECT = "M_236682_917765"
QGIS_PLUGINS = "/usr/share/qgis/python/plugins"


def _engine_of_this_tree(folder: Path) -> str:
    """An ``swm-gis`` that runs this checkout's engine (the plugin drops PYTHONPATH)."""
    exe = folder / "swm-gis"
    exe.write_text(f'#!/bin/sh\nPYTHONPATH={REPO} exec {sys.executable} -m swm_gis "$@"\n')
    exe.chmod(0o755)
    return str(exe)


def _qgis():
    """A headless QGIS with Processing and the plugin (as QGIS loads it)."""
    from qgis.core import QgsApplication

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    app = QgsApplication([], False)
    app.initQgis()
    sys.path[:0] = [str(REPO / "qgis_plugin")]
    sys.path.append(QGIS_PLUGINS)
    from processing.core.Processing import Processing

    Processing.initialize()
    import swm_gis_qgis

    plugin = swm_gis_qgis.classFactory(None)
    plugin.initProcessing()
    return app, plugin


def _round_trip(out: Path) -> float:
    import processing

    started = time.perf_counter()
    result = processing.run("swm_gis:abutters", {
        "TOWN_NAME": "Sampleton", "PARCELS": f"{SAMPLE / 'sample.gpkg'}|layername=parcels",
        "ASSESS": f"{SAMPLE / 'sample.gpkg'}|layername=assess",
        "SUBJECT": f"{SAMPLE / 'sample.gpkg'}|layername=parcels", "SUBJECT_IDS": SUBJECT,
        "OUTPUT": "memory:", "OUTPUT_FOLDER": str(out)})
    seconds = time.perf_counter() - started
    assert result["ABUTTER_COUNT"] > 0, result
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    app, plugin = _qgis()
    from swm_gis_qgis import warm

    with tempfile.TemporaryDirectory(prefix="bench_interactive_") as tmp:
        root = Path(tmp)
        os.environ["SWM_GIS_EXECUTABLE"] = _engine_of_this_tree(root)
        os.environ.pop(warm.ENV_WARM, None)
        first = _round_trip(root / "first")  # starts the warm engine (not counted)
        warm_s, engine_s = [], []
        for n in range(args.runs):
            warm_s.append(_round_trip(root / f"warm{n}"))
            engine_s.append(float(warm._current.last_seconds))  # noqa: SLF001 - the bench's probe
        os.environ[warm.ENV_WARM] = "0"
        cold_s = [_round_trip(root / f"cold{n}") for n in range(args.runs)]
        warm.shutdown()

    med = {name: statistics.median(v) for name, v in
           (("warm", warm_s), ("one-shot", cold_s), ("engine", engine_s))}
    print(f"swm_gis:abutters on the sample town, median of {args.runs}; "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"  first run (starts the warm engine)     {first:6.2f} s")
    print(f"  round trip, warm engine                {med['warm']:6.2f} s")
    print(f"  round trip, one process per run        {med['one-shot']:6.2f} s")
    print(f"  engine's own time (in the warm engine) {med['engine']:6.2f} s")
    over = med["warm"] - med["engine"]
    print(f"  warm round trip over the engine's time {over:6.2f} s  (target <= 0.50 s: "
          f"{'met' if over <= 0.5 else 'NOT met'})")
    print(f"  one-shot round trip over it            {med['one-shot'] - med['engine']:6.2f} s")
    app.exitQgis()


if __name__ == "__main__":
    main()

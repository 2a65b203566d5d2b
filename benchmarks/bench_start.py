"""Start-up time: median of cold ``import swm_gis`` and ``swm-gis --help`` beside ``import
geopandas`` (the reference: ratios compare across machines and loads, seconds do not).

    .venv/bin/python benchmarks/bench_start.py [--runs 5] [--smoke]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CASES = {
    "import geopandas (reference)": ["-c", "import geopandas"],
    "import swm_gis": ["-c", "import swm_gis"],
    "swm-gis --help": ["-m", "swm_gis", "--help"],
}


def cold_s(args: list[str]) -> float:
    """Wall time of one fresh interpreter running ``args`` (output discarded)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    started = time.perf_counter()
    subprocess.run([sys.executable, *args], check=True, env=env, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--smoke", action="store_true", help="one run of each (a quick check)")
    args = parser.parse_args()
    runs = 1 if args.smoke else args.runs
    medians = {name: statistics.median(cold_s(argv) for _ in range(runs))
               for name, argv in CASES.items()}
    reference = medians["import geopandas (reference)"]
    print(f"median of {runs} cold run(s); load average {os.getloadavg()[0]:.1f}")
    for name, seconds in medians.items():
        print(f"{name:32s} {seconds:6.3f} s  {seconds / reference:5.2f}x geopandas")


if __name__ == "__main__":
    main()

"""Read once (issue 37): the site jobs without the cache, with an empty cache and a warm one.

Times whole command-line runs (a fresh interpreter each, as staff run them), median of
``--runs``: ``abutters`` for one Cambridge parcel (TopoJSON parcels, CSV owners, GeoJSON layers),
``screen`` of the sample site on the sample town (GeoPackage layers: no source is copied, the
flow grid is what the cache keeps) and on a copy of the sample town in GeoJSON / shapefile / CSV
(every vector layer parsed whole without the cache); ``screen`` of Cambridge parcel 9-29.

    .venv/bin/python benchmarks/bench_source_cache.py [--runs 3] [--smoke]

``--smoke``: one run of each mode of the Cambridge abutter list, checked (the warm run's
abutting parcels and mailing list are the uncached run's, byte for byte; the cold run kept
Cambridge's four sources).

``off`` is ``--no-cache`` (the flow grid routed again too); ``cold`` clears the parsed sources
before each run (the run builds them; the flow grid stays cached, as it was before the source
cache); ``warm`` runs with the entries there.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(HERE))

import smoke  # noqa: E402


def run_s(args: list[str], cache: Path, out: Path) -> float:
    """Wall time of one ``swm-gis`` run in a fresh interpreter (outputs to a fresh folder)."""
    shutil.rmtree(out, ignore_errors=True)
    env = {**os.environ, "PYTHONPATH": str(REPO), "SWM_GIS_CACHE_DIR": str(cache)}
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "swm_gis", "--progress", "none", *args, "-o", str(out)],
                   check=True, env=env, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    smoke.add_option(parser)
    args = parser.parse_args()
    if args.smoke:
        args.runs = 1
    from support.json_town import json_town

    from swm_gis.io import source_cache

    work = smoke.workspace("source-cache") if args.smoke else \
        Path(tempfile.mkdtemp(prefix="swm-bench-cache-"))
    town = json_town(work / "json-town" / "town")
    sample = REPO / "data" / "sample"
    cambridge = REPO / "data" / "cambridge.toml"
    site = work / "cambridge-9-29.gpkg"  # one real parcel as the site
    import pyogrio

    from swm_gis.config.town import load_config
    from swm_gis.io.layers import read_parcels_by_id

    pyogrio.write_dataframe(read_parcels_by_id(load_config(cambridge), ["9-29"])[["geometry"]],
                            site)
    cases = {
        "abutters, Cambridge 9-29": ["abutters", "-c", str(cambridge), "-p", "9-29"],
        "screen, Cambridge 9-29 as the site": ["screen", "-c", str(cambridge), "-s", str(site)],
        "screen, sample site (GeoPackage town)": ["screen", "-c", str(sample / "town.toml"),
                                                  "-s", f"{sample / 'sites.gpkg'}:site"],
        "screen, sample site (GeoJSON town)": ["screen", "-c", str(town), "-s",
                                               f"{town.parent / 'sites.gpkg'}:site"],
    }
    if args.smoke:
        cases = dict(list(cases.items())[:1])
    print(f"median of {args.runs} run(s); load average {os.getloadavg()[0]:.1f}")
    print(f"{'job':40s} {'off':>7s} {'cold':>7s} {'warm':>7s}")
    try:
        for name, argv in cases.items():
            cache = work / "cache"
            if "GeoJSON" in name:  # its config names its own folder ([cache] dir)
                cache = town.parent.parent / "cache"
            times = {}
            times["off"] = statistics.median(
                run_s([*argv, "--no-cache"], cache, work / "off") for _ in range(args.runs))
            cold = []
            for _ in range(args.runs):
                source_cache.clear(cache)  # the parsed sources only: the flow grid stays
                cold.append(run_s(argv, cache, work / "out"))
            times["cold"] = statistics.median(cold)
            kept = len(source_cache.entries(cache))
            times["warm"] = statistics.median(run_s(argv, cache, work / "out")
                                              for _ in range(args.runs))
            print(f"{name:40s} {times['off']:6.2f}s {times['cold']:6.2f}s {times['warm']:6.2f}s",
                  flush=True)
            if args.smoke:
                smoke.check(kept == 4, f"the cold run kept Cambridge's 4 sources ({kept})")
                for out in ("abutting_parcels.csv", "mailing_list.csv"):
                    smoke.check((work / "off" / out).read_bytes()
                                == (work / "out" / out).read_bytes(), f"{out} the same warm")
    finally:
        if not args.smoke:  # a smoke workspace goes by itself
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

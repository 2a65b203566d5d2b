"""1 m terrain: drainage flags and site screening on a town-wide 1 m DEM of 40 million cells.

Builds (once) a SYNTHETIC town of 11,000 parcels with a 1 m LiDAR-like DEM over the town plus
300 m (about 40 million cells) and streams that follow its valleys (``generate_terrain.py``), then
runs, each as one child process measured with ``os.wait4`` (wall clock, CPU, peak RSS):

1. ``swm-gis applicability`` with an empty flow-grid cache (conditions and routes the DEM,
   labels every cell with the water it drains to, stores the grid), the drainage flags included;
2. ``swm-gis applicability`` again (the grid and labels memory-mapped from the cache);
3. ``swm-gis screen`` of a 2-acre site in the middle of the town (cache warm);
4. with ``--no-cache-runs``: ``screen --no-cache`` (what a screen costs without the cache);
5. with ``--breakdown``: the stages of the first run's flow grid (DEM read, depression filling,
   exact refill, steepest D8) timed in one more child process.

    python benchmarks/bench_terrain.py --work /tmp/bench/terrain --json results.jsonl
    python benchmarks/bench_terrain.py --smoke   # 500 parcels, steps 1-3 and 5, answers checked
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

import smoke  # noqa: E402
from measure import measure  # noqa: E402


def folder_mb(path: Path) -> float:
    return round(sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1e6, 1)


def _breakdown_stages(toml: Path) -> dict[str, float]:
    """The stages of :func:`swm_gis.terrain.flow_directions`, each timed (run in a child)."""
    import resource

    import numpy as np
    import pyflwdir

    from swm_gis.config.town import load_config
    from swm_gis.io import layers as io
    from swm_gis.terrain import grid as hy
    from swm_gis.terrain import kernels as flowkernels

    cfg = load_config(toml)
    t: dict[str, float] = {}
    s = time.perf_counter()
    dem = io.read_raster(cfg, "dem")
    t["read_dem_s"] = time.perf_counter() - s
    data = hy._elevations(dem.array)
    dx, dy = abs(dem.transform.a), abs(dem.transform.e)
    del dem
    nodata = data.dtype.type(hy._NODATA)
    raw = np.where(np.isfinite(data), data, nodata)
    s = time.perf_counter()
    filled, flood = pyflwdir.dem.fill_depressions(raw, nodata=hy._NODATA, outlets="edge")
    t["fill_depressions_s"] = time.perf_counter() - s
    del filled
    s = time.perf_counter()
    filled = flowkernels.refill_kernel()(raw, flood, nodata)
    t["exact_refill_s"] = time.perf_counter() - s
    del raw
    s = time.perf_counter()
    hy._steepest_d8(filled, flood, dx, dy)
    t["steepest_d8_s"] = time.perf_counter() - s
    t["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {k: round(v, 2) for k, v in t.items()}


def breakdown(toml: Path, env: dict[str, str]) -> dict[str, float]:
    """Stages of the first run timed in one fresh process: DEM read, depression filling, D8."""
    proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--stages-of",
                           str(toml)], env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"breakdown failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def drainage_answer(gpkg: Path) -> dict[str, int]:
    """How many parcels the map flags as draining to an ORW / impaired water, and leaves null."""
    import pyogrio

    res = pyogrio.read_dataframe(gpkg, layer="applicability", read_geometry=False,
                                 columns=list(FLAGS))
    return {"parcels": len(res), **{f"{c}_true": int((res[c] == 1).sum()) for c in FLAGS},
            **{f"{c}_null": int(res[c].isna().sum()) for c in FLAGS}}


FLAGS = ("drains_to_orw", "drains_to_impaired")


def smoke_checks(step: str, row: dict, work: Path) -> None:
    """The answers a smoke run must give: the grid cached, drainage flags decided, a DEM trace."""
    if step == "app1":
        smoke.check(row["cache_mb"] > 0,
                    f"the first run stored the flow grid ({row['cache_mb']} MB)")
    if step in ("app1", "app2"):
        got = drainage_answer(work / "applicability.gpkg")
        smoke.check(all(got[f"{c}_null"] < got["parcels"] for c in FLAGS)
                    and got["drains_to_orw_true"] + got["drains_to_impaired_true"] > 0,
                    f"{step}: drainage flags computed on the DEM ({got})")
    if step.startswith("screen"):
        screening = json.loads((work / "screen" / "screening.json").read_text(encoding="utf-8"))
        rw = screening["receiving_waters"]
        smoke.check(rw is not None and rw["method"] == "dem", f"{step}: the receiving "
                    f"waters traced on the DEM (method {rw and rw['method']!r})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", type=Path, default=Path("/tmp/bench/terrain"))
    ap.add_argument("--parcels", type=int, default=11_000)
    ap.add_argument("--json", type=Path, help="append each step as one JSON line")
    ap.add_argument("--no-cache-runs", action="store_true",
                    help="also time screen --no-cache")
    ap.add_argument("--steps", default="app1,app2,screen",
                    help="comma-separated steps to run (app1 clears the cache first)")
    ap.add_argument("--breakdown", action="store_true",
                    help="also time the first run's stages in one process")
    ap.add_argument("--stages-of", type=Path, help=argparse.SUPPRESS)
    smoke.add_option(ap)
    args = ap.parse_args()
    if args.stages_of:  # the child process of --breakdown
        print(json.dumps(_breakdown_stages(args.stages_of)))
        return
    margin = 300.0
    if args.smoke:  # 500 parcels, 1 m DEM over 1.6 km (2.5 M cells): 2 valleys, 4 reaches;
        # the three steps and the breakdown (screen --no-cache is left out: the screen's code
        # with app1's routing, 7 s of CPU more)
        args.work, args.parcels, margin = smoke.workspace("terrain"), 500, 150.0
        args.steps, args.no_cache_runs, args.breakdown = "app1,app2,screen", False, True
    toml, site = args.work / "town.toml", args.work / "site.gpkg"
    if not (toml.is_file() and site.is_file() and (args.work / "dem_1m.tif").is_file()):
        from generate_terrain import build  # not in the --stages-of child: its peak RSS counts

        build(args.work, parcels=args.parcels, margin_m=margin)
    cache = args.work / "cache"
    env = {**os.environ, "PYTHONPATH": str(REPO), "SWM_GIS_CACHE_DIR": str(cache)}
    base = [sys.executable, "-m", "swm_gis", "--progress", "none"]
    app = [*base, "applicability", "--config", str(toml), "--out",
           str(args.work / "applicability.gpkg"), "--overwrite"]
    scr = [*base, "screen", "--config", str(toml), "--site", str(site), "--out",
           str(args.work / "screen"), "--overwrite"]
    steps = [s for s in args.steps.split(",") if s]
    if args.no_cache_runs:
        steps.append("screen_no_cache")
    commands = {"app1": app, "app2": app, "screen": scr, "screen_no_cache": [*scr, "--no-cache"]}
    for step in steps:
        if step == "app1" and cache.exists():
            shutil.rmtree(cache)
        m = measure(commands[step], env=env)
        if m["returncode"] != 0:
            raise SystemExit(f"{step} failed:\n{m['stderr']}")
        row = {"bench": "terrain", "step": step,
               "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
               **{k: v for k, v in m.items() if k not in ("stdout", "stderr")},
               "cache_mb": folder_mb(cache) if cache.exists() else 0.0}
        print(json.dumps(row), flush=True)
        if args.json:
            with args.json.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(row) + "\n")
        if args.smoke:
            smoke_checks(step, row, args.work)
    if args.breakdown:
        row = {"bench": "terrain", "step": "breakdown", "load": os.getloadavg()[0],
               **breakdown(toml, env)}
        print(json.dumps(row), flush=True)
        if args.json:
            with args.json.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()

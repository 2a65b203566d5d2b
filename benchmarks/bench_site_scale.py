"""Site jobs against the town's size (issue 37): the sample town vs the 200,000-parcel town.

Issue 37's target: "the same site jobs on the 200k-parcel benchmark town within 1.5x of the
sample town". Times ``screen`` of one site and ``abutters`` of one parcel, warm (in this
process, ``swm_gis.cli.main`` called again after one untimed run, as the warm engine runs a job)
and cold (a fresh ``python -m swm_gis`` each run), median of ``--runs``, on:

* ``sample``: the sample town as shipped (``data/sample/town.toml``: its DEM, impervious raster,
  streams and waters too), site ``data/sample/sites.gpkg:site``, parcel ``M_236682_917765``;
* ``sample, big's layers``: the same town with only the kinds of layers the big town has
  (parcels, assessing table, NHESP, vernal pools, flood zones, HUC10/12, town line), so that
  the two towns run the same checks: the ratio that answers the target;
* ``big``: the benchmark town (``--big``, default ``/tmp/bench/t200k/town.toml``, made by
  ``generate_town.py --parcels 200000 --out /tmp/bench/t200k``; read, never written), with
  a synthetic assessing table (one owner per parcel) written to this run's work folder. The
  site is the sample site's polygon moved to the middle of the town; the parcel is the one
  nearest the middle with as many parcels within 100 ft as the sample's parcel has.

Then prints big / sample per job and where a warm run on the big town spends its time (cProfile:
own time by package, and the engine's functions by cumulative time).

    PYTHONPATH=. QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/bench_site_scale.py \
        [--runs 5] [--big /tmp/bench/t200k/town.toml] [--smoke]

Everything (configs, assessing table, site, outputs, the source and flow-grid cache) goes to a
temporary folder, removed at the end: nothing is written under the repository.

``--smoke``: a generated town of 2,000 parcels as the big town, the like-for-like sample only,
one run of each, checked: the abutters found are the parcels within 100 ft computed here, and
the warm and cold runs wrote the same abutter list and the same screening (but its time stamp).
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import os
import pstats
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pyogrio
import shapely
import tomli_w

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
import smoke  # noqa: E402

SAMPLE = REPO / "data" / "sample"
SAMPLE_PARCEL = "M_236682_917765"
BIG = Path("/tmp/bench/t200k/town.toml")
NOTICE_M = 100 * 0.3048  # the abutter distance, 100 ft


def _absolute(config: dict, folder: Path, keep: set[str] | None = None) -> dict:
    """The config with every layer path absolute (and only the ``keep`` layers, if given)."""
    layers = {}
    for key, spec in config["layers"].items():
        if keep is None or key in keep:
            layers[key] = {**spec, "path": str((folder / spec["path"]).resolve())}
    return {**config, "layers": layers}


def _write_toml(config: dict, path: Path) -> Path:
    path.write_bytes(tomli_w.dumps(config).encode("utf-8"))
    return path


def big_town(toml: Path, work: Path) -> Path:
    """The big town's config in ``work``: its layers where they are, the sample's regulation
    and MS4 statement, and a synthetic assessing table (one owner per parcel)."""
    config = _absolute(tomllib.loads(toml.read_text("utf-8")), toml.parent)
    config["town"].update(regulation="lynnfield-ch320", all_land_drains_to_ms4=True)
    parcels = config["layers"]["parcels"]
    ids = pyogrio.read_dataframe(parcels["path"], layer=parcels["layer"], columns=["LOC_ID"],
                                 read_geometry=False)["LOC_ID"].to_numpy()
    n = np.arange(len(ids))
    assess = pd.DataFrame({
        "LOC_ID": ids, "PROP_ID": [f"P{i}" for i in n],
        "SITE_ADDR": [f"{i % 400 + 1} SYNTHETIC ST" for i in n],
        "OWNER1": [f"OWNER {i:06d}" for i in n], "OWN_ADDR": [f"{i + 1} ELM ST" for i in n],
        "OWN_CITY": "SAMPLETON", "OWN_STATE": "MA", "OWN_ZIP": "01940", "FY": 2026})
    pyogrio.write_dataframe(assess, work / "assess.gpkg", layer="assess", driver="GPKG")
    config["layers"]["assess"] = {"path": str(work / "assess.gpkg"), "layer": "assess"}
    return _write_toml(config, work / "big.toml")


def sample_like(big: Path, work: Path) -> Path:
    """The sample town with only the kinds of layers the big town has."""
    keep = set(tomllib.loads(big.read_text("utf-8"))["layers"])
    config = _absolute(tomllib.loads((SAMPLE / "town.toml").read_text("utf-8")), SAMPLE, keep)
    return _write_toml(config, work / "sample-like.toml")


def _layer(config: Path, key: str) -> tuple[Path, str]:
    """A layer's file and layer name as ``config`` names them."""
    spec = tomllib.loads(config.read_text("utf-8"))["layers"][key]
    return config.parent / spec["path"], spec["layer"]


def _parcels(config: Path, bbox=None):
    path, layer = _layer(config, "parcels")
    return pyogrio.read_dataframe(path, layer=layer, columns=["LOC_ID"], bbox=bbox)


def within_notice(config: Path, parcel: str) -> list[str]:
    """The other parcels within 100 ft of ``parcel`` (exact distance), sorted."""
    me = _parcels(config).set_index("LOC_ID").geometry[parcel]
    near = _parcels(config, bbox=tuple(shapely.buffer(me, NOTICE_M + 1).bounds))
    d = shapely.distance(near.geometry.values, me)
    return sorted(near["LOC_ID"][(d <= NOTICE_M) & (near["LOC_ID"] != parcel)])


def middle(config: Path) -> tuple[float, float]:
    path, layer = _layer(config, "parcels")
    x0, y0, x1, y1 = pyogrio.read_info(path, layer=layer)["total_bounds"]
    return (x0 + x1) / 2, (y0 + y1) / 2


def big_parcel(config: Path, count: int) -> str:
    """The parcel nearest the town's middle with ``count`` parcels within 100 ft (else the
    nearest count)."""
    cx, cy = middle(config)
    near = _parcels(config, bbox=(cx - 400, cy - 400, cx + 400, cy + 400))
    geoms = near.geometry.values
    order = np.argsort(shapely.distance(geoms, shapely.Point(cx, cy)))[:40]
    counts = [int((shapely.distance(geoms, geoms[i]) <= NOTICE_M).sum()) - 1 for i in order]
    best = min(range(len(order)), key=lambda k: (abs(counts[k] - count), k))
    return str(near["LOC_ID"].iloc[order[best]])


def big_site(config: Path, work: Path) -> str:
    """The sample site's polygon moved to the big town's middle, as a GeoPackage."""
    site = pyogrio.read_dataframe(SAMPLE / "sites.gpkg", layer="site")
    c = site.geometry.iloc[0].centroid
    cx, cy = middle(config)
    site = site.set_geometry(shapely.transform(site.geometry.values,
                                               lambda xy: xy - [c.x, c.y] + [cx, cy]))
    pyogrio.write_dataframe(site, work / "site.gpkg", layer="site")
    return f"{work / 'site.gpkg'}:site"


def warm_runs(argv: list[str], out: Path, runs: int) -> list[float]:
    """One untimed run, then ``runs`` timed runs of the command line in this process."""
    from swm_gis.cli import main

    times = []
    for n in range(runs + 1):
        shutil.rmtree(out, ignore_errors=True)
        started = time.perf_counter()
        code = _quiet(main, argv, out)
        if n:
            times.append(time.perf_counter() - started)
        if code != 0:
            raise SystemExit(f"swm-gis {' '.join(argv)} exited {code}")
    return times


def _quiet(main, argv: list[str], out: Path) -> int:
    """The command line in this process, its report to the terminal dropped."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return main(["--progress", "none", *argv, "-o", str(out)])


def cold_runs(argv: list[str], out: Path, runs: int) -> list[float]:
    """``runs`` runs of the command line, each in a fresh interpreter."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    times = []
    for _ in range(runs):
        shutil.rmtree(out, ignore_errors=True)
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "swm_gis", "--progress", "none", *argv, "-o",
                        str(out)], check=True, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - started)
    return times


def profiled(argv: list[str], out: Path) -> dict:
    """cProfile's figures of one warm run."""
    from swm_gis.cli import main

    shutil.rmtree(out, ignore_errors=True)
    prof = cProfile.Profile()
    prof.enable()
    _quiet(main, argv, out)
    prof.disable()
    return pstats.Stats(prof).stats


def reading(stats: dict) -> tuple[float, int]:
    """Seconds and calls of GDAL reads (pyogrio's read, read_arrow and read_info): the part of
    a site job whose cost could follow the town's size."""
    wanted = {("raw.py", "read"), ("raw.py", "read_arrow"), ("core.py", "read_info")}
    hits = [s for (path, _line, name), s in stats.items()
            if "/pyogrio/" in path and (path.rsplit("/", 1)[1], name) in wanted]
    return sum(s[3] for s in hits), sum(s[1] for s in hits)


def print_profile(stats: dict, top: int) -> None:
    """Where one warm run's time goes: own time by package, then the engine's functions."""
    total = sum(s[2] for s in stats.values())
    by_package: dict[str, float] = {}
    for (path, _line, _name), s in stats.items():
        by_package[_package(path)] = by_package.get(_package(path), 0.0) + s[2]
    print(f"  own time by package ({total:.2f} s profiled): " + ", ".join(
        f"{name} {t:.2f}" for name, t in sorted(by_package.items(), key=lambda kv: -kv[1])[:8]))
    engine = [(s[3], f"{_short(path)}:{line}({name})") for (path, line, name), s in
              stats.items() if "/swm_gis/" in path and "/swm_gis/cli/" not in path]
    print(f"  the engine's functions by cumulative time (top {top}):")
    for cum, where in sorted(engine, reverse=True)[:top]:
        print(f"    {cum:6.3f} s  {where}")


def _package(path: str) -> str:
    if "/swm_gis/" in path:
        return "swm_gis." + path.split("/swm_gis/", 1)[1].split("/")[0].removesuffix(".py")
    if "site-packages/" in path:
        return path.split("site-packages/", 1)[1].split("/")[0].removesuffix(".py")
    if path == "~":
        return "built-in calls"
    return "python" if path.startswith(("/usr", "<")) else path


def _short(path: str) -> str:
    return "swm_gis/" + path.split("/swm_gis/", 1)[1]


def _screening(out: Path) -> str:
    """The screening's JSON without its time stamp(s)."""
    return re.sub(r'"generated": "[^"]*"', "", (out / "screening.json").read_text("utf-8"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--big", type=Path, default=BIG, help="the big town's config (read only)")
    ap.add_argument("--top", type=int, default=15, help="profile lines per job")
    smoke.add_option(ap)
    args = ap.parse_args()
    if args.smoke:
        work = smoke.workspace("site-scale")
        from generate_town import generate

        args.big, args.runs = generate(2_000, work / "generated"), 1
    else:
        if not args.big.is_file():
            raise SystemExit(f"{args.big} not found: make it with benchmarks/generate_town.py "
                             f"--parcels 200000 --out {args.big.parent}")
        work = Path(tempfile.mkdtemp(prefix="swm-bench-site-scale-"))
        os.environ["SWM_GIS_CACHE_DIR"] = str(work / "cache")
    try:
        run(args, work)
    finally:
        if not args.smoke:  # a smoke workspace goes by itself
            shutil.rmtree(work, ignore_errors=True)


def run(args: argparse.Namespace, work: Path) -> None:
    started = time.perf_counter()
    big = big_town(args.big, work)
    like = sample_like(big, work)
    sample = SAMPLE / "town.toml"
    count = len(within_notice(sample, SAMPLE_PARCEL))
    parcel = big_parcel(big, count)
    site = big_site(big, work)
    sample_site = f"{SAMPLE / 'sites.gpkg'}:site"
    towns = {"sample": (sample, sample_site, SAMPLE_PARCEL),
             "sample, big's layers": (like, sample_site, SAMPLE_PARCEL),
             "big": (big, site, parcel)}
    if args.smoke:
        del towns["sample"]
    path, layer = _layer(big, "parcels")
    n_big = pyogrio.read_info(path, layer=layer)["features"]
    print(f"big town {args.big} ({n_big:,} parcels), parcel {parcel} "
          f"({len(within_notice(big, parcel))} parcels within 100 ft; the sample's {count}), "
          f"site the sample's moved to the middle; set up in {time.perf_counter() - started:.1f}"
          f" s. Median of {args.runs}; load average {os.getloadavg()[0]:.2f}")
    figures: dict[tuple[str, str], tuple[float, float]] = {}
    print(f"{'job':10s} {'town':22s} {'warm':>7s} {'cold':>7s}")
    for job in ("screen", "abutters"):
        for town, (config, site_arg, subject) in towns.items():
            argv = _argv(job, config, site_arg, subject)
            out = work / f"{job}-{town.split(',')[0]}"
            warm = statistics.median(warm_runs(argv, out / "warm", args.runs))
            cold = statistics.median(cold_runs(argv, out / "cold", args.runs))
            figures[job, town] = (warm, cold)
            print(f"{job:10s} {town:22s} {warm:6.2f}s {cold:6.2f}s", flush=True)
            if args.smoke:
                smoke_checks(job, town, config, subject, out)
    for job in ("screen", "abutters"):
        for base in [t for t in towns if t != "big"]:
            (bw, bc), (sw, sc) = figures[job, "big"], figures[job, base]
            print(f"{job:10s} big / {base:22s} warm {bw / sw:4.2f}x  cold {bc / sc:4.2f}x "
                  f"(target <= 1.5x)")
    print(f"load average after {os.getloadavg()[0]:.2f}")
    for job in ("screen", "abutters"):
        stats = {town: profiled(_argv(job, *towns[town]), work / "profile")
                 for town in ("sample, big's layers", "big")}
        read = {town: reading(st) for town, st in stats.items()}
        print(f"profile of one warm {job}: GDAL reads " + "; ".join(
            f"{town} {s:.3f} s in {n} calls" for town, (s, n) in read.items())
              + "; on the big town:")
        print_profile(stats["big"], args.top)


def _argv(job: str, config: Path, site: str, parcel: str) -> list[str]:
    return [job, "-c", str(config), *(["-s", site] if job == "screen" else ["-p", parcel])]


def smoke_checks(job: str, town: str, config: Path, subject: str, out: Path) -> None:
    if job == "abutters":
        found = sorted(pd.read_csv(out / "cold" / "abutting_parcels.csv",
                                   encoding="utf-8-sig")["parcel_id"])
        if town == "big":  # every lot has an owner: every parcel within 100 ft is an abutter
            smoke.check(found == within_notice(config, subject),
                        f"{town}: the {len(found)} abutters are the parcels within 100 ft")
        same = (out / "warm" / "abutting_parcels.csv").read_bytes() == \
            (out / "cold" / "abutting_parcels.csv").read_bytes()
        smoke.check(same and len(found) > 0, f"{town}: warm and cold abutter lists the same")
    else:
        smoke.check(_screening(out / "warm") == _screening(out / "cold"),
                    f"{town}: warm and cold screenings the same (but the time stamp)")


if __name__ == "__main__":
    main()

"""Benchmark (not a test): one abutter list against a 1,000,000-parcel GeoPackage.

Generates a synthetic state-sized parcel layer (a 1000 x 1000 grid of 30 m x 40 m house lots in
blocks of 10 x 10 with 15 m streets between blocks, MassGIS field names, EPSG:26986) and a
1,000,000-row assessing table in the same GeoPackage, then times the whole
``swm-gis abutters`` command as a subprocess (wall clock and peak resident memory, from
``/usr/bin/time -v`` when present, else ``resource.getrusage``), several runs.

    .venv/bin/python benchmarks/bench_abutters.py            # generate (once) and time
    .venv/bin/python benchmarks/bench_abutters.py --n 1000   # 1000 x 1000 = 1,000,000 parcels
    .venv/bin/python benchmarks/bench_abutters.py --no-attribute-index
    .venv/bin/python benchmarks/bench_abutters.py --smoke     # 20 x 20 parcels, one run, checked

Everything is written under benchmarks/out/ (git-ignored; ``--out`` elsewhere). ``--smoke``
works in a temporary folder and checks the abutting parcels against their distances computed
here from the grid.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyogrio
import shapely

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
REPO = HERE.parent
sys.path.insert(0, str(HERE))

import smoke  # noqa: E402

#: the command line, run with this checkout first on the path (the tree these benches measure)
CLI = [sys.executable, "-m", "swm_gis"]


def child_env() -> dict[str, str]:
    """This process's environment as it is now, with this checkout first on PYTHONPATH."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}


LOT_W, LOT_H, STREET, BLOCK = 30.0, 40.0, 15.0, 10
X0, Y0 = 50_000.0, 800_000.0  # EPSG:26986, inside Massachusetts' plane


def lot_origins(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Column/row indices and lower-left corners of an n x n grid of lots with streets."""
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="xy")
    i, j = i.ravel(), j.ravel()
    x = X0 + i * LOT_W + (i // BLOCK) * STREET
    y = Y0 + j * LOT_H + (j // BLOCK) * STREET
    return i, j, x, y


def generate(path: Path, n: int, *, attribute_index: bool) -> dict:
    """Write ``parcels`` (n*n polygons) and ``assess`` (n*n rows) into ``path``."""
    started = time.perf_counter()
    i, j, x, y = lot_origins(n)
    geoms = shapely.box(x, y, x + LOT_W, y + LOT_H)
    loc_id = np.char.add(np.char.add("M_", x.astype(int).astype(str)),
                         np.char.add("_", y.astype(int).astype(str)))
    parcels = pd.DataFrame({
        "LOC_ID": loc_id,
        "MAP_PAR_ID": np.char.add(np.char.add((i // BLOCK).astype(str), "-"),
                                  (j // BLOCK * 100 + j % BLOCK * 10 + i % BLOCK).astype(str)),
        "TOWN_ID": (1 + (i // 100) + 10 * (j // 100)).astype(np.int32),  # 100 towns
        "POLY_TYPE": np.where((i + j) % 97 == 0, "TAX", "FEE"),
    })
    tmp = path.with_suffix(".tmp.gpkg")
    if tmp.exists():
        tmp.unlink()
    pyogrio.write_dataframe(
        __import__("geopandas").GeoDataFrame(parcels, geometry=geoms, crs="EPSG:26986"),
        tmp, layer="parcels", driver="GPKG", dataset_options={"VERSION": "1.2"})
    street_no = (i % BLOCK + 1) * 2 + 1
    assess = pd.DataFrame({
        "LOC_ID": loc_id,
        "PROP_ID": np.char.add("P", np.arange(n * n).astype(str)),
        "SITE_ADDR": np.char.add(street_no.astype(str), " ELM ST"),
        "OWNER1": np.char.add("OWNER ", np.arange(n * n).astype(str)),
        "OWN_CO": "",
        "OWN_ADDR": np.char.add(street_no.astype(str), " ELM ST"),
        "OWN_CITY": "SAMPLETON",
        "OWN_STATE": "MA",
        "OWN_ZIP": "01940",
        "OWN_COUNTRY": "",
        "USE_CODE": "101",
        "FY": "2025",
    })
    pyogrio.write_dataframe(assess, tmp, layer="assess", driver="GPKG", append=True)
    if attribute_index:
        with sqlite3.connect(tmp) as db:
            db.execute('CREATE INDEX parcels_loc_id ON parcels("LOC_ID")')
            db.execute('CREATE INDEX assess_loc_id ON assess("LOC_ID")')
    os.replace(tmp, path)
    return {"parcels": int(n * n), "seconds": round(time.perf_counter() - started, 1),
            "size_mb": round(path.stat().st_size / 1e6, 1)}


def write_config(gpkg: Path) -> Path:
    toml = gpkg.with_suffix(".toml")
    toml.write_text(
        '[town]\nname = "Benchmark state (1,000,000 synthetic parcels)"\ncrs = "EPSG:26986"\n'
        "synthetic = true\n\n"
        f'[layers.parcels]\npath = "{gpkg.name}"\nlayer = "parcels"\n\n'
        f'[layers.assess]\npath = "{gpkg.name}"\nlayer = "assess"\n', encoding="utf-8")
    return toml


def time_command(args: list[str]) -> dict:
    """Wall-clock seconds and peak RSS (MB) of one subprocess run."""
    use_time = Path("/usr/bin/time").exists()
    cmd = (["/usr/bin/time", "-v"] if use_time else []) + args
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, env=child_env())
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout + proc.stderr)
        raise SystemExit(f"command failed ({proc.returncode}): {' '.join(args)}")
    if use_time:
        m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
        rss_kb = int(m.group(1)) if m else 0
    else:  # peak of all children so far: only an upper bound after the first run
        rss_kb = max(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, before)
    return {"wall_s": wall, "peak_rss_mb": rss_kb / 1024, "stdout": proc.stdout}


def stages(toml: Path, subject: str, out: Path) -> dict[str, float]:
    """In-process time of each stage of one run (imports excluded), from the progress calls."""
    from swm_gis.cli.abutters import run_abutters
    from swm_gis.config.town import load_config
    from swm_gis.notification.request import AbutterRequest

    if out.exists():
        shutil.rmtree(out)
    marks: list[tuple[float, str]] = []
    started = time.perf_counter()
    run_abutters(load_config(toml), AbutterRequest(parcels=[subject]), out_dir=out,
                 progress=lambda f, m: marks.append((time.perf_counter(), m)))
    total = time.perf_counter() - started
    times, prev = {}, started
    for (t, _), (_, label) in zip(marks, [(0, "start"), *marks], strict=False):
        times[label] = round(t - prev, 3)
        prev = t
    times.pop("start", None)
    times["total"] = round(total, 3)
    return times


def smoke_check(n: int, mid: int, out: Path) -> None:
    """The abutting parcels are exactly the lots within the package's distance of the subject."""
    i, j, x, y = lot_origins(n)
    lots = shapely.box(x, y, x + LOT_W, y + LOT_H)
    distance_ft = json.loads((out / "abutters.json").read_text(encoding="utf-8"))["distance_ft"]
    near = (shapely.distance(lots, lots[mid]) <= distance_ft * 0.3048) & (np.arange(n * n) != mid)
    expected = {f"M_{int(a)}_{int(b)}" for a, b in zip(x[near], y[near], strict=True)}
    got = pd.read_csv(out / "abutting_parcels.csv", comment="#", encoding="utf-8-sig")
    found = set(got.loc[got["is_subject"] == "no", "parcel_id"])
    smoke.check(found == expected and len(expected) > 0,
                f"{len(found)} abutting parcels within {distance_ft:g} ft, the {len(expected)} "
                f"expected (missing {sorted(expected - found)}, extra {sorted(found - expected)})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000, help="grid side: n*n parcels (default 1000)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-attribute-index", action="store_true",
                    help="do not index LOC_ID (OGR where clauses then scan the table)")
    ap.add_argument("--regenerate", action="store_true")
    ap.add_argument("--out", type=Path, default=OUT, help="folder for everything (default "
                                                          "benchmarks/out)")
    smoke.add_option(ap)
    opts = ap.parse_args()
    if opts.smoke:
        opts.out, opts.n, opts.runs = smoke.workspace("abutters"), 20, 1
    out_dir = opts.out
    out_dir.mkdir(parents=True, exist_ok=True)
    tag = f"{opts.n}x{opts.n}" + ("_noindex" if opts.no_attribute_index else "")
    gpkg = out_dir / f"parcels_{tag}.gpkg"
    gen = None
    if opts.regenerate or not gpkg.exists():
        print(f"generating {opts.n * opts.n:,} parcels into {gpkg} ...", flush=True)
        gen = generate(gpkg, opts.n, attribute_index=not opts.no_attribute_index)
        print(f"  {gen}", flush=True)
    toml = write_config(gpkg)
    _, _, x, y = lot_origins(opts.n)
    mid = (opts.n // 2) * opts.n + opts.n // 2 + 3  # a lot near the middle, not on a street
    subject = f"M_{int(x[mid])}_{int(y[mid])}"
    load_before = [round(v, 2) for v in os.getloadavg()]
    results = []
    for run in range(opts.runs):
        out = out_dir / f"abutters_{tag}_{run}"
        if out.exists():
            shutil.rmtree(out)
        r = time_command([*CLI, "--progress", "none", "abutters", "--config", str(toml),
                          "--parcel", subject, "--out", str(out)])
        results.append(r)
        print(f"run {run + 1}: {r['wall_s']:.2f} s, peak RSS {r['peak_rss_mb']:.0f} MB",
              flush=True)
    baseline = time_command([*CLI, "--help"])
    # in-process stage times: warm one run first (imports, font registration), then measure
    stages(toml, subject, out_dir / f"abutters_{tag}_warm")
    stage_times = stages(toml, subject, out_dir / f"abutters_{tag}_stages")
    summary = {
        "parcels": opts.n * opts.n, "attribute_index": not opts.no_attribute_index,
        "subject": subject, "generate": gen,
        "wall_s_median": round(statistics.median(r["wall_s"] for r in results), 2),
        "wall_s_min": round(min(r["wall_s"] for r in results), 2),
        "peak_rss_mb_max": round(max(r["peak_rss_mb"] for r in results)),
        "cli_start_only_s": round(baseline["wall_s"], 2),
        "cli_start_only_rss_mb": round(baseline["peak_rss_mb"]),
        "in_process_stage_s": stage_times,
        "summary_lines": [line for line in results[-1]["stdout"].splitlines()
                          if "parcel" in line or "recipient" in line],
        "python": sys.version.split()[0], "cpus": os.cpu_count(),
        "load_average_before": load_before,
    }
    (out_dir / f"bench_abutters_{tag}.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary, indent=2))
    if opts.smoke:
        smoke_check(opts.n, mid, out_dir / f"abutters_{tag}_0")


if __name__ == "__main__":
    main()

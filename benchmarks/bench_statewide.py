"""The Commonwealth, measured: ``swm-gis applicability`` on a statewide-sized SYNTHETIC town.

2.4 million parcels over about 18,000 km2 at Massachusetts densities of NHESP habitats,
vernal pools, FEMA flood zones and HUC12s (``generate_town.py --profile ma``; the densities and
their sources are in its ``PROFILES``), run end to end as one child process: wall clock, CPU and
the child's peak resident memory (``os.wait4``), with the load average of the shared machine.

    python benchmarks/bench_statewide.py --work /tmp/bench/state            # generates once
    python benchmarks/bench_statewide.py --work /tmp/bench/state --runs 1 --json results.jsonl
    python benchmarks/bench_statewide.py --smoke     # 500 parcels at those densities, checked

Each run starts with the page cache's unwritten data written to disk, outside the timing
(``measure``'s ``settle``): the 1 GB map a run leaves for the kernel to write back would
otherwise be written during the next run, on the same cores; ``--no-settle`` runs back to back.

No DEM: the drainage flags need a statewide stream network and terrain, measured per town in
``bench_terrain.py``; here they are reported as not checked, as the spec requires.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

import smoke  # noqa: E402
from generate_town import generate_in_child  # noqa: E402
from measure import measure  # noqa: E402

PARCELS = 2_400_000


def summary(gpkg: Path) -> dict[str, object]:
    """Parcel count and class totals from the output's summary table (read, not recomputed)."""
    import pyogrio

    out: dict[str, object] = {"output_mb": round(gpkg.stat().st_size / 1e6, 1)}
    layers = [row[0] for row in pyogrio.list_layers(gpkg)]
    out["layers"] = layers
    info = pyogrio.read_info(gpkg, layer="applicability")
    out["parcels_written"] = int(info["features"])
    return out


def smoke_checks(gpkg: Path, parcels: int, row: dict) -> None:
    """Every parcel written, and drainage not checked (no DEM), as the spec requires."""
    import pyogrio

    smoke.check(row["parcels_written"] == parcels,
                f"{row['parcels_written']} of {parcels} parcels written")
    res = pyogrio.read_dataframe(gpkg, layer="applicability", read_geometry=False,
                                 columns=["drains_to_orw", "drains_to_impaired",
                                          "screening_class"])
    smoke.check(bool(res[["drains_to_orw", "drains_to_impaired"]].isna().all().all()),
                "drainage flags null (not checked) without a DEM")
    smoke.check(bool(res["screening_class"].notna().all()), "every parcel classed")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", type=Path, default=Path("/tmp/bench/state"))
    ap.add_argument("--parcels", type=int, default=PARCELS)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--json", type=Path, help="append each run as one JSON line")
    ap.add_argument("--extra", nargs="*", default=[], help="more applicability options")
    ap.add_argument("--no-settle", action="store_true",
                    help="run back to back: do not write the previous run's output to disk "
                         "before each run (it is then written back during the next one)")
    smoke.add_option(ap)
    args = ap.parse_args()
    if args.smoke:
        args.work, args.parcels, args.runs = smoke.workspace("statewide"), 500, 1
    toml = args.work / "town.toml"
    if not toml.is_file():
        t = time.perf_counter()
        generate_in_child(args.parcels, args.work, profile="ma")  # not in this process's RSS
        print(f"generated in {time.perf_counter() - t:.0f} s")
    out = args.work / "applicability.gpkg"
    cmd = [sys.executable, "-m", "swm_gis", "--progress", "none", "applicability",
           "--config", str(toml), "--out", str(out), "--overwrite", *args.extra]
    env = {**__import__("os").environ, "PYTHONPATH": str(REPO)}
    for i in range(args.runs):
        m = measure(cmd, env=env, settle=not args.no_settle)
        if m["returncode"] != 0:
            raise SystemExit(f"applicability failed:\n{m['stderr']}")
        row = {"bench": "statewide", "run": i + 1, "parcels": args.parcels,
               "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
               **{k: v for k, v in m.items() if k not in ("stdout", "stderr")}, **summary(out)}
        print(json.dumps(row))
        if args.json:
            with args.json.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(row) + "\n")
        if args.smoke:
            smoke_checks(out, args.parcels, row)


if __name__ == "__main__":
    main()

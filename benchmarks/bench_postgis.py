"""Benchmark (not a test): PostGIS vs GeoPackage for the abutter list and the applicability map.

Starts a throwaway PostgreSQL + PostGIS server (as the tests do: tests/support/postgis_server.py),
loads

- the 1,000,000-parcel state of ``bench_abutters.py`` (parcels + assessing table, ``LOC_ID``
  indexed in both, GiST index on the geometry), then times the whole ``swm-gis abutters``
  command against the GeoPackage and against the database, alternating, several runs;
- a 200,000-parcel town from ``generate_town.py`` (every vector layer), then times
  ``swm-gis applicability`` reading from the GeoPackage and from the database (output a
  GeoPackage both times), and once more writing the map into PostGIS (``--out postgresql://``).

    .venv/bin/python benchmarks/bench_postgis.py                  # both
    .venv/bin/python benchmarks/bench_postgis.py --skip-applicability --runs 5
    .venv/bin/python benchmarks/bench_postgis.py --smoke   # 400 parcels each, one run, checked

Loading 1,000,000 rows takes a few minutes; the server and its data are removed at the end.
Results: benchmarks/out/bench_postgis.json. ``--smoke`` (a 20 x 20 state, a 400-parcel town, a
temporary folder) fails unless both sources give the same abutters and the same classes; where
PostgreSQL or PostGIS is not installed it says so and stops after the imports.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
OUT = HERE / "out"
sys.path[:0] = [str(REPO / "tests" / "support"), str(HERE)]

import bench_abutters  # noqa: E402
import smoke  # noqa: E402
from postgis_server import find_binaries, throwaway_server  # noqa: E402

from swm_gis.applicability import postgis_write as postgis_out  # noqa: E402


def load(gpkg: Path, layers: list[str], url: str, schema: str) -> dict[str, float]:
    """Copy layers into ``schema`` (as ogr2ogr would), timing each."""
    times = {}
    for name in layers:
        started = time.perf_counter()
        rows = postgis_out.copy_layer(str(gpkg), name, url, f"{schema}.{name}", overwrite=True)
        times[name] = {"rows": rows, "seconds": round(time.perf_counter() - started, 1)}
        print(f"  loaded {schema}.{name}: {rows:,} rows in {times[name]['seconds']} s",
              flush=True)
    return times


def pg_config(toml: Path, url: str, schema: str, layers: list[str], out: Path) -> Path:
    """The GeoPackage config with each vector layer pointed at the database."""
    text = toml.read_text(encoding="utf-8")
    gpkg_name = None
    for line in text.splitlines():
        if line.startswith("path = ") and line.endswith('.gpkg"'):
            gpkg_name = line.split('"')[1]
    for name in layers:
        text = text.replace(f'path = "{gpkg_name}"\nlayer = "{name}"',
                            f'path = "{url}"\nlayer = "{schema}.{name}"')
    out.write_text(text, encoding="utf-8")
    return out


def abutters(url: str, runs: int, n: int, out_dir: Path) -> dict:
    tag = f"{n}x{n}"
    gpkg = out_dir / f"parcels_{tag}.gpkg"
    if not gpkg.exists():
        print(f"generating {gpkg} ...", flush=True)
        bench_abutters.generate(gpkg, n, attribute_index=True)
    toml = bench_abutters.write_config(gpkg)
    loaded = load(gpkg, ["parcels", "assess"], url, "state")
    import psycopg

    with psycopg.connect(url, autocommit=True) as con:
        con.execute('CREATE INDEX ON state.parcels ("LOC_ID")')
        con.execute('CREATE INDEX ON state.assess ("LOC_ID")')
        con.execute("ANALYZE state.parcels")
        con.execute("ANALYZE state.assess")
    pg_toml = pg_config(toml, url, "state", ["parcels", "assess"], out_dir / "state_pg.toml")
    _, _, x, y = bench_abutters.lot_origins(n)
    mid = (n // 2) * n + n // 2 + 3  # as bench_abutters: a lot near the middle
    subject = f"M_{int(x[mid])}_{int(y[mid])}"
    wall: dict[str, list[float]] = {"gpkg": [], "postgis": []}
    rss: dict[str, list[float]] = {"gpkg": [], "postgis": []}
    for run in range(runs):
        for kind, cfg in (("gpkg", toml), ("postgis", pg_toml)):
            out = out_dir / f"abutters_{kind}_{run}"
            r = bench_abutters.time_command([*bench_abutters.CLI, "--progress", "none",
                                             "abutters", "--config",
                                             str(cfg), "--parcel", subject, "--out", str(out),
                                             "--overwrite"])
            wall[kind].append(r["wall_s"])
            rss[kind].append(r["peak_rss_mb"])
            print(f"abutters {kind} run {run + 1}: {r['wall_s']:.2f} s, "
                  f"{r['peak_rss_mb']:.0f} MB", flush=True)
    same = [(out_dir / f"abutters_{k}_0" / "abutting_parcels.csv").read_text(encoding="utf-8")
            .split("\n# ")[0] for k in ("gpkg", "postgis")]
    return {"parcels": n * n, "subject": subject, "load": loaded,
            "abutting_rows": same[0].count("\n") - 1,
            "same_abutters": same[0] == same[1],
            **{f"{k}_wall_s_{s}": round(f(v), 2) for k, v in wall.items()
               for s, f in (("min", min), ("median", statistics.median))},
            **{f"{k}_peak_rss_mb": round(max(v)) for k, v in rss.items()}}


def applicability(url: str, parcels: int, out_dir: Path) -> dict:
    import generate_town
    import pyogrio

    folder = out_dir / (f"town{parcels // 1000}k" if parcels >= 1000 else f"town{parcels}")
    toml = folder / "town.toml"
    if not toml.exists():
        print(f"generating a {parcels:,}-parcel town in {folder} ...", flush=True)
        generate_town.generate(parcels, folder)
    gpkg = next(folder.glob("*.gpkg"))
    layers = [row[0] for row in pyogrio.list_layers(gpkg)]
    loaded = load(gpkg, layers, url, "town")
    pg_toml = pg_config(toml, url, "town", layers, folder / "town_pg.toml")
    figures = {"parcels": parcels, "load": loaded}
    for kind, cfg, out in (("gpkg", toml, str(folder / "app_gpkg.gpkg")),
                           ("postgis", pg_toml, str(folder / "app_pg.gpkg")),
                           ("postgis_to_postgis", pg_toml, f"{url}?table=maps.applicability")):
        r = bench_abutters.time_command([*bench_abutters.CLI, "--progress", "none",
                                         "applicability", "--config", str(cfg), "--out", out,
                                         "--overwrite"])
        figures[f"{kind}_wall_s"] = round(r["wall_s"], 1)
        figures[f"{kind}_peak_rss_mb"] = round(r["peak_rss_mb"])
        print(f"applicability {kind}: {r['wall_s']:.1f} s, {r['peak_rss_mb']:.0f} MB", flush=True)
    a = pyogrio.read_dataframe(folder / "app_gpkg.gpkg", layer="applicability",
                               read_geometry=False)
    b = pyogrio.read_dataframe(folder / "app_pg.gpkg", layer="applicability",
                               read_geometry=False)
    key = [c for c in a.columns if c.endswith("id")][0]
    a, b = a.sort_values(key).reset_index(drop=True), b.sort_values(key).reset_index(drop=True)
    figures["same_classes"] = bool(len(a) == len(b) == parcels
                                   and (a["screening_class"] == b["screening_class"]).all())
    import psycopg

    with psycopg.connect(url, autocommit=True) as con:
        figures["rows_written_to_postgis"] = con.execute(
            "SELECT count(*) FROM maps.applicability").fetchone()[0]
    return figures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--parcels", type=int, default=200_000, help="applicability town size")
    ap.add_argument("--skip-abutters", action="store_true")
    ap.add_argument("--skip-applicability", action="store_true")
    ap.add_argument("--n", type=int, default=1000, help="abutters state: n x n parcels")
    ap.add_argument("--out", type=Path, default=OUT, help="folder for everything (default "
                                                          "benchmarks/out)")
    smoke.add_option(ap)
    opts = ap.parse_args()
    if opts.smoke:
        opts.out, opts.runs, opts.n, opts.parcels = smoke.workspace("postgis"), 1, 20, 400
    bindir, why = find_binaries()
    if bindir is None:
        if opts.smoke:  # swm_gis.io.postgis and applicability.postgis_write imported above
            smoke.skip(f"PostGIS comparison: {why}")
            return
        raise SystemExit(why)
    opts.out.mkdir(parents=True, exist_ok=True)
    summary: dict = {"load_average_before": [round(v, 2) for v in os.getloadavg()],
                     "cpus": os.cpu_count()}
    with throwaway_server(bindir) as server:
        os.environ["PGPASSWORD"] = server.password
        if not opts.skip_abutters:
            summary["abutters"] = abutters(server.url, opts.runs, opts.n, opts.out)
        if not opts.skip_applicability:
            summary["applicability"] = applicability(server.url, opts.parcels, opts.out)
    summary["load_average_after"] = [round(v, 2) for v in os.getloadavg()]
    (opts.out / "bench_postgis.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary, indent=2))
    if opts.smoke:
        for key, same in (("abutters", "same_abutters"), ("applicability", "same_classes")):
            if key in summary:
                smoke.check(summary[key][same], f"{key}: {same} from the GeoPackage and PostGIS")
        if "abutters" in summary:
            smoke.check(summary["abutters"]["abutting_rows"] > 0, "abutters found")
        if "applicability" in summary:
            rows = summary["applicability"]["rows_written_to_postgis"]
            smoke.check(rows == opts.parcels, f"{rows} rows written into maps.applicability")


if __name__ == "__main__":
    main()

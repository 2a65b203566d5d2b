"""Benchmark (not a test): an abutter package of 10,000 abutters (issue 16).

Generates a SYNTHETIC town (``generate_town.py``) of ``--parcels`` lots, adds a MassGIS-style
assessing table (one owner per lot, every twentieth lot a two-unit condominium, one owner in
fifty holding two lots), then picks the central lot as the subject and the distance that
brings in ``--abutters`` parcels, and times the job in-process: building the package
(:func:`swm_gis.abutter_package`) and writing each file (:meth:`AbutterPackage.write`).

    .venv/bin/python benchmarks/bench_abutters_large.py --parcels 14000 --abutters 10000
    .venv/bin/python benchmarks/bench_abutters_large.py --smoke  # 400 lots, 200 abutters

Everything is written under benchmarks/out/ (git-ignored); ``--smoke`` writes into a temporary
folder and checks the package's abutters against the distances computed here.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyogrio
import shapely

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
OUT = HERE / "out"

import smoke  # noqa: E402


def add_assess(toml: Path) -> pd.DataFrame:
    gpkg = toml.parent / "town.gpkg"
    parcels = pyogrio.read_dataframe(gpkg, layer="parcels", columns=["LOC_ID"],
                                     read_geometry=False)
    ids = parcels["LOC_ID"].to_numpy()
    n = len(ids)
    rows = np.concatenate([np.arange(n), np.arange(0, n, 20)])  # condos: a second unit
    owner = np.where(rows % 50 == 1, rows - 1, rows)  # one owner in fifty holds two lots
    assess = pd.DataFrame({
        "LOC_ID": ids[rows], "PROP_ID": [f"P{i}" for i in range(len(rows))],
        "SITE_ADDR": [f"{r % 400 + 1} SYNTHETIC ST" for r in rows],
        "OWNER1": [f"OWNER {o:06d}" for o in owner],
        "OWN_ADDR": [f"{o + 1} ELM ST" for o in owner],
        "OWN_CITY": "SAMPLETON", "OWN_STATE": "MA", "OWN_ZIP": "01940", "FY": 2026})
    pyogrio.write_dataframe(assess, gpkg, layer="assess", driver="GPKG", append=True)
    text = toml.read_text(encoding="utf-8")
    if "[layers.assess]" not in text:
        toml.write_text(text + '\n[layers.assess]\npath = "town.gpkg"\nlayer = "assess"\n',
                        encoding="utf-8")
    return assess


def pick_subject(toml: Path, n_abutters: int) -> tuple[str, float]:
    """The central lot and the distance (ft) that brings in ``n_abutters`` parcels (more where
    several lie at that distance)."""
    gdf = pyogrio.read_dataframe(toml.parent / "town.gpkg", layer="parcels",
                                 columns=["LOC_ID"])
    geoms = gdf.geometry.values
    cx, cy = np.mean(gdf.total_bounds[[0, 2]]), np.mean(gdf.total_bounds[[1, 3]])
    i = int(np.argmin(shapely.distance(geoms, shapely.Point(cx, cy))))
    dist = np.sort(shapely.distance(geoms, geoms[i]))
    return str(gdf["LOC_ID"].iloc[i]), float(dist[min(n_abutters, len(dist) - 1)] / 0.3048)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parcels", type=int, default=14_000)
    ap.add_argument("--abutters", type=int, default=10_000)
    ap.add_argument("--work", type=Path, default=OUT / "abutters_large")
    smoke.add_option(ap)
    args = ap.parse_args()
    out_json = OUT / "bench_abutters_large.json"
    if args.smoke:
        args.work, args.parcels, args.abutters = smoke.workspace("abutters_large"), 400, 200
        out_json = args.work / "bench_abutters_large.json"
    toml = args.work / "town.toml"
    if not toml.exists():
        from generate_town import generate

        generate(args.parcels, args.work)
        add_assess(toml)
    subject, distance_ft = pick_subject(toml, args.abutters)

    import swm_gis

    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    pkg = swm_gis.abutter_package(swm_gis.load_config(toml), parcels=[subject],
                                  distance=distance_ft)
    timings["build the package"] = time.perf_counter() - t0

    out = args.work / "package"
    out.mkdir(exist_ok=True)
    t1 = time.perf_counter()
    marks = []
    pkg.write(out, overwrite=True, progress=lambda f, m: marks.append(
        (m, time.perf_counter() - t1)))
    timings["write every file"] = time.perf_counter() - t1
    previous = 0.0
    for message, at in marks:
        timings[f"  until '{message}'"] = at - previous
        previous = at
    result = {"parcels": args.parcels, "subject": subject, "distance_ft": round(distance_ft, 1),
              "abutting": pkg.counts["abutting"], "mailable": pkg.counts["mailable"],
              "seconds": {k: round(v, 2) for k, v in timings.items()},
              "total_s": round(time.perf_counter() - t0, 2),
              "map_pages": _pages(out / "abutters_map.pdf"),
              "sizes_kb": {p.name: round(p.stat().st_size / 1024) for p in sorted(out.iterdir())}}
    print(json.dumps(result, indent=2))
    out_json.parent.mkdir(parents=True, exist_ok=True)
    out_json.write_text(json.dumps(result, indent=2))
    if args.smoke:
        smoke_checks(toml, subject, distance_ft, result, out)


def smoke_checks(toml: Path, subject: str, distance_ft: float, result: dict, out: Path) -> None:
    """As many abutters as lots within the distance, every file written, the map paged."""
    gdf = pyogrio.read_dataframe(toml.parent / "town.gpkg", layer="parcels", columns=["LOC_ID"])
    geoms = gdf.geometry.values
    me = geoms[int(np.flatnonzero(gdf["LOC_ID"].to_numpy() == subject)[0])]
    d = shapely.distance(geoms, me) / 0.3048
    sure, maybe = int((d < distance_ft - 1e-6).sum()) - 1, int((d <= distance_ft + 1e-6).sum()) - 1
    smoke.check(sure <= result["abutting"] <= maybe,
                f"{result['abutting']} abutting parcels, {sure}-{maybe} lots within "
                f"{distance_ft:.1f} ft of the subject")
    smoke.check(0 < result["mailable"] <= result["abutting"] + result["abutting"] // 10,
                f"{result['mailable']} mailable recipients")
    smoke.check(result["map_pages"] >= 1, f"abutters_map.pdf has {result['map_pages']} page(s)")
    missing = [n for n in ("abutting_parcels.csv", "mailing_list.csv", "labels.pdf",
                           "certified_mail.pdf", "abutters_map.pdf", "abutters.gpkg")
               if not (out / n).is_file()]
    smoke.check(not missing, f"every file written (missing {missing})")


def _pages(pdf: Path) -> int:
    from pypdf import PdfReader

    return len(PdfReader(pdf).pages)


if __name__ == "__main__":
    main()

"""Time one site screened end to end on a town-sized DEM (10 m cells over about 50 km2).

Builds a SYNTHETIC town with benchmarks/generate_town.py (15,000 parcels, about 50 km2, NHESP,
FEMA and WBD layers), then adds what the receiving-waters trace needs:

* a 10 m DEM over the town grown by 500 m (smooth random relief of about 40 m on a regional
  tilt, GeoTIFF, EPSG:26986);
* streams derived from that DEM (pyflwdir, upstream area >= 0.25 km2), written as lines
  digitised in flow direction, as a networked hydrography layer would be (``--smoke``: from
  0.05 km2, on its smaller DEM);
* ponds on some reaches, an ORW on the reach that leaves the town, and MassDEP-like impaired
  assessment units (category 5 / 4A with causes) on a few reaches.

It then runs ``swm-gis screen`` on a 2-acre site in a fresh process (cold: imports, numba's
cached machine code, every layer read), several times, and times the resource checks in-process
(warm) with a breakdown. Nothing here is real data.

    python benchmarks/bench_screen_dem.py --work /tmp/bench_screen
    python benchmarks/bench_screen_dem.py --smoke   # 400 parcels, one run, the trace checked
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import geopandas as gpd
import numpy as np
import pyogrio
import rasterio
import shapely
from affine import Affine
from scipy.ndimage import gaussian_filter

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))

import smoke  # noqa: E402
from generate_town import CRS, generate  # noqa: E402

from swm_gis import terrain as hy  # noqa: E402
from swm_gis.raster import Raster  # noqa: E402

CELL = 10.0


def make_dem(extent, out: Path, rng: np.random.Generator) -> Path:
    x0, y0, x1, y1 = extent
    x0, y0, x1, y1 = x0 - 500, y0 - 500, x1 + 500, y1 + 500
    nx, ny = int((x1 - x0) / CELL), int((y1 - y0) / CELL)
    relief = gaussian_filter(rng.normal(size=(ny, nx)), sigma=40)
    relief = relief / np.ptp(relief) * 40.0
    cols, rows = np.meshgrid(np.arange(nx), np.arange(ny))
    z = (80.0 - 0.003 * cols * CELL + 0.002 * rows * CELL + relief).astype("float32")
    transform = Affine(CELL, 0, x0, 0, -CELL, y1)
    with rasterio.open(out, "w", driver="GTiff", width=nx, height=ny, count=1,
                       dtype="float32", crs=CRS, transform=transform, nodata=-9999,
                       tiled=True, compress="deflate") as dst:
        dst.write(z, 1)
    return out


def hydrography(dem_path: Path, boundary: shapely.Geometry, rng: np.random.Generator,
                stream_km2: float = 0.25):
    with rasterio.open(dem_path) as src:
        arr = src.read(1, masked=True)
        raster = Raster(arr, src.transform, src.crs, {"file": str(dem_path)})
    flow = hy.flow_directions(raster)
    upa = flow.flwdir.upstream_area(unit="km2")
    feats = flow.flwdir.streams(mask=upa >= stream_km2, direction="down")
    lines = [shapely.geometry.shape(f["geometry"]) for f in feats]
    lines = [g for g in lines if g.length > 0]
    streams = gpd.GeoDataFrame({"STREAM_ID": [f"S{i:04d}" for i in range(len(lines))]},
                               geometry=lines, crs=CRS)
    streams = streams[shapely.intersects(streams.geometry.values, boundary)]
    # ponds: 40-80 m across on every 15th reach, centred part-way down it
    pick = streams.iloc[::15]
    centres = shapely.line_interpolate_point(pick.geometry.values, 0.5, normalized=True)
    ponds = gpd.GeoDataFrame({"NAME": [f"Synthetic Pond {i}" for i in range(len(pick))]},
                             geometry=shapely.buffer(centres, rng.uniform(20, 40, len(pick))),
                             crs=CRS)
    # ORW: the reaches that cross the town boundary; impaired: every 7th reach
    leaving = streams[~shapely.within(streams.geometry.values, boundary)]
    orw = gpd.GeoDataFrame({"ORW_ID": [f"ORW-{i}" for i in range(len(leaving))],
                            "NAME": [f"Synthetic River {i}" for i in range(len(leaving))]},
                           geometry=leaving.geometry.values, crs=CRS)
    causes = ["Phosphorus, Total", "Escherichia coli (E. coli)", "Chloride",
              "Nitrogen, Total; Sedimentation/Siltation", "Lead; Oil and Grease"]
    imp = streams.iloc[3::7]
    impaired = gpd.GeoDataFrame(
        {"AU_ID": [f"MA99-{i:02d}" for i in range(len(imp))],
         "AU_NAME": [f"Synthetic Brook {i}" for i in range(len(imp))],
         "CATEGORY": ["5" if i % 3 else "4A" for i in range(len(imp))],
         "CAUSES": [causes[i % len(causes)] for i in range(len(imp))],
         "TMDL": [None if i % 3 else f"TMDL {i}" for i in range(len(imp))]},
        geometry=imp.geometry.values, crs=CRS)
    return streams, ponds, orw, impaired


def build(work: Path, parcels: int = 15_000, stream_km2: float = 0.25) -> tuple[Path, Path]:
    rng = np.random.default_rng(7)
    toml = generate(parcels, work)
    boundary = gpd.read_file(work / "town.gpkg", layer="town_boundary").geometry.iloc[0]
    t = time.perf_counter()
    dem = make_dem(boundary.bounds, work / "dem.tif", rng)
    streams, ponds, orw, impaired = hydrography(dem, boundary, rng, stream_km2)
    for name, frame in (("streams", streams), ("waterbodies", ponds), ("orw", orw),
                        ("impaired_waters", impaired)):
        pyogrio.write_dataframe(frame, work / "town.gpkg", layer=name, driver="GPKG",
                                append=True)
    with toml.open("a", encoding="utf-8") as fh:
        for name in ("streams", "waterbodies", "orw", "impaired_waters"):
            fh.write(f'\n[layers.{name}]\npath = "town.gpkg"\nlayer = "{name}"\n')
        fh.write('\n[layers.dem]\npath = "dem.tif"\n')
    # a 2-acre site (90 m x 90 m) in the middle of the town
    cx, cy = shapely.centroid(boundary).coords[0]
    site = gpd.GeoDataFrame({"name": ["benchmark site"]},
                            geometry=[shapely.box(cx - 45, cy - 45, cx + 45, cy + 45)], crs=CRS)
    site_path = work / "site.gpkg"
    site.to_file(site_path, driver="GPKG")
    with rasterio.open(dem) as src:
        cells = src.width * src.height
        km2 = cells * CELL * CELL / 1e6
    print(f"DEM {cells:,} cells of {CELL:g} m ({km2:.1f} km2), {len(streams)} stream reaches, "
          f"{len(ponds)} ponds, {len(orw)} ORW reaches, {len(impaired)} impaired units; built in "
          f"{time.perf_counter() - t:.1f} s")
    return toml, site_path


def child_env() -> dict[str, str]:
    """The environment as it is now, with this checkout first on PYTHONPATH: child processes
    import swm_gis from here, not from whatever checkout the venv's swm-gis points at."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}


def run_cli(toml: Path, site: Path, out: Path) -> float:
    cmd = [sys.executable, "-m", "swm_gis", "--progress", "none", "screen",
           "--config", str(toml), "--site", str(site), "--out", str(out), "--overwrite"]
    t = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=child_env())
    elapsed = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"screen failed ({proc.returncode}):\n{proc.stderr}")
    return elapsed


_COLD = """
import time
t0 = time.perf_counter()
from swm_gis.config.town import load_config
from swm_gis.io import layers as io
from swm_gis.screening.resource_areas import resource_checks
config = load_config({toml!r})
site = io.read_file({site!r}, working_crs=config.crs, what="--site")
t1 = time.perf_counter()
resource_checks(config, site)
print(time.perf_counter() - t1, t1 - t0)
"""


def run_resources_cold(toml: Path, site: Path) -> tuple[float, float]:
    """resource_checks alone in a fresh process: (first call incl. pyflwdir/numba load, imports)."""
    code = _COLD.format(toml=str(toml), site=str(site))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=REPO, env=child_env())
    if proc.returncode != 0:
        raise SystemExit(f"resource checks in a fresh process failed:\n{proc.stderr[-3000:]}")
    first, imports = map(float, proc.stdout.split()[-2:])
    return first, imports


def warm_breakdown(toml: Path, site_path: Path
                   ) -> tuple[dict[str, float], dict, dict[str, bool]]:
    from swm_gis.config.town import load_config
    from swm_gis.io import layers as io
    from swm_gis.screening.resource_areas import resource_checks

    config = load_config(toml)
    site = io.read_file(site_path, working_crs=config.crs, what="--site")
    resource_checks(config, site)  # warm up (imports, numba)
    out: dict[str, float] = {}
    t = time.perf_counter()
    keys, _, checks = resource_checks(config, site)
    out["resource_checks_s"] = time.perf_counter() - t
    x0, y0, x1, y1 = site.total_bounds
    t = time.perf_counter()
    dem = io.read_raster(config, "dem", bounds=(x0 - 1000, y0 - 1000, x1 + 1000, y1 + 1000),
                         require_cover=False)
    out["dem_window_read_s"] = time.perf_counter() - t
    t = time.perf_counter()
    hy.flow_directions(dem)
    out["flow_directions_window_s"] = time.perf_counter() - t
    full = io.read_raster(config, "dem")
    t = time.perf_counter()
    hy.flow_directions(full)
    out["flow_directions_whole_dem_s"] = time.perf_counter() - t
    rw = keys["receiving_waters"]
    print(json.dumps({"method": rw["method"], "downstream": rw["downstream"][:6],
                      "impaired": [a["au_id"] for a in rw["impaired"]],
                      "orw": [o["id"] for o in rw["orw"]],
                      "requirements": [r["section"] for r in rw["requirements"]],
                      "warnings": [w["problem"] for w in rw["warnings"]]}, indent=1))
    ran = {c["name"]: c["ran"] for c in checks}
    return out, rw, ran


def smoke_checks(out: Path, rw: dict, ran: dict[str, bool]) -> None:
    """The trace went down the DEM to the synthetic streams, in the CLI and in process."""
    smoke.check(all(ran.values()), f"every resource check ran ({ran})")
    smoke.check(rw["method"] == "dem" and len(rw["downstream"]) > 0,
                f"the receiving waters traced on the DEM (method {rw['method']!r}, "
                f"{len(rw['downstream'])} waters downstream)")
    doc = json.loads((out / "screening.json").read_text(encoding="utf-8"))
    cli = doc["receiving_waters"]
    smoke.check(cli is not None and cli["method"] == "dem"
                and [d.get("id") for d in cli["downstream"]]
                == [d.get("id") for d in rw["downstream"]],
                "swm-gis screen found the same waters downstream")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", type=Path, default=Path("/tmp/bench_screen"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--parcels", type=int, default=15_000)
    smoke.add_option(ap)
    args = ap.parse_args()
    stream_km2 = 0.25
    if args.smoke:  # 800 parcels, a DEM of 68,000 cells, streams from 0.05 km2; one run each
        args.work, args.runs, args.parcels = smoke.workspace("screen_dem"), 1, 800
        stream_km2 = 0.05
    toml, site = build(args.work, args.parcels, stream_km2)
    times = [run_cli(toml, site, args.work / "out") for _ in range(args.runs)]
    print(f"swm-gis screen, fresh process: {', '.join(f'{t:.2f}' for t in times)} s "
          f"(median {statistics.median(times):.2f} s)")
    cold = [run_resources_cold(toml, site) for _ in range(args.runs)]
    print("resource checks alone, fresh process: "
          + ", ".join(f"{a:.2f} s (+ {b:.2f} s imports)" for a, b in cold))
    figures, rw, ran = warm_breakdown(toml, site)
    for k, v in figures.items():
        print(f"{k}: {v:.3f}")
    if args.smoke:
        smoke_checks(args.work / "out", rw, ran)


if __name__ == "__main__":
    main()

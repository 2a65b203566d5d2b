"""Add a SYNTHETIC 1 m LiDAR-like DEM and a stream network consistent with it to a benchmark town.

MassGIS publishes 1 m LiDAR terrain; a town such as Lynnfield with a margin is about 40 million
cells at 1 m. This makes one of that size for a town from ``generate_town.py``:

* the DEM (1 m cells over the parcels' extent grown by ``--margin`` m, float32 GeoTIFF, tiled
  and deflate-compressed like a MassGIS tile mosaic) is a regional tilt down to the south
  (4 m/km), several valleys running down it (25 m deep, meandering, about 1 km apart), rolling
  ground of a few metres and 5 cm of survey noise, which leaves many small pits to fill, as a
  real 1 m DEM does;
* the streams are the valleys' thalwegs, digitised downhill (north to south) and cut into
  reaches of about 1.5 km, so they agree with the DEM; two ponds sit on valley floors; the
  reaches that leave the town are ORWs and every third reach is an impaired assessment unit.

    python benchmarks/generate_terrain.py --town /tmp/bench/terrain --parcels 11000

Nothing here is real data.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import geopandas as gpd
import numpy as np
import pyogrio
import rasterio
import shapely
import shapely.ops
from affine import Affine
from scipy.ndimage import gaussian_filter, zoom

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate_town import CRS, generate  # noqa: E402

CELL_M = 1.0
TILT_M_PER_M = 0.004
VALLEY_DEPTH_M = 25.0
VALLEY_HALF_WIDTH_M = 300.0
VALLEY_SPACING_M = 1_000.0
REACH_M = 1_500.0


def thalweg_x(k: int, x_centre: float, ys: np.ndarray) -> np.ndarray:
    """x of valley ``k``'s floor at northings ``ys``: a gentle meander about its centre line."""
    return x_centre + 120.0 * np.sin(ys / (700.0 + 90.0 * k) + k) + 40.0 * np.sin(ys / 230.0)


def make_dem(extent: tuple[float, float, float, float], out: Path, rng: np.random.Generator,
             ) -> tuple[Path, list[float]]:
    """Write the DEM; return its path and the valleys' centre lines (x)."""
    x0, y0, x1, y1 = extent
    nx, ny = int(round((x1 - x0) / CELL_M)), int(round((y1 - y0) / CELL_M))
    centres = list(np.arange(x0 + VALLEY_SPACING_M / 2, x1, VALLEY_SPACING_M))
    xs = (x0 + (np.arange(nx, dtype=np.float64) + 0.5) * CELL_M)
    transform = Affine(CELL_M, 0, x0, 0, -CELL_M, y1)
    # rolling ground: smooth noise on a 16 m grid, interpolated to 1 m
    coarse = gaussian_filter(rng.normal(size=(ny // 16 + 2, nx // 16 + 2)), sigma=12)
    coarse = (coarse / np.ptp(coarse) * 6.0).astype(np.float32)
    rolling = zoom(coarse, 16, order=1)[:ny, :nx]
    with rasterio.open(out, "w", driver="GTiff", width=nx, height=ny, count=1, dtype="float32",
                       crs=CRS, transform=transform, nodata=-9999, tiled=True, blockxsize=512,
                       blockysize=512, compress="deflate", predictor=3, BIGTIFF="IF_SAFER") as dst:
        step = 512
        for r0 in range(0, ny, step):
            r1 = min(r0 + step, ny)
            ys = y1 - (np.arange(r0, r1, dtype=np.float64) + 0.5) * CELL_M
            dist = np.full((r1 - r0, nx), np.inf)
            for k, c in enumerate(centres):
                dist = np.minimum(dist, np.abs(xs[None, :] - thalweg_x(k, c, ys)[:, None]))
            side = VALLEY_DEPTH_M * (1.0 - np.exp(-(dist / VALLEY_HALF_WIDTH_M) ** 2))
            floor_weight = 1.0 - np.exp(-(dist / 60.0) ** 2)  # no rolling ground on the floors
            z = (20.0 + TILT_M_PER_M * (ys[:, None] - y0) + side
                 + rolling[r0:r1] * floor_weight
                 + rng.normal(0.0, 0.05, (r1 - r0, nx)))
            dst.write(z.astype(np.float32), 1, window=((r0, r1), (0, nx)))
    return out, centres


def hydrography(extent, centres, boundary, rng):
    """Thalweg reaches (downhill), ponds, ORWs and impaired units as GeoDataFrames."""
    x0, y0, x1, y1 = extent
    reaches, ids = [], []
    for k, c in enumerate(centres):
        ys = np.arange(y1 - 1.0, y0, -10.0)  # north to south: downhill
        line = shapely.linestrings(np.column_stack([thalweg_x(k, c, ys), ys]))
        n = max(1, math.ceil(line.length / REACH_M))
        for i in range(n):
            part = shapely.ops.substring(line, i * line.length / n, (i + 1) * line.length / n)
            reaches.append(part)
            ids.append(f"V{k:02d}-{i:02d}")
    streams = gpd.GeoDataFrame({"STREAM_ID": ids}, geometry=reaches, crs=CRS)
    pick = streams.iloc[[len(streams) // 3, 2 * len(streams) // 3]]
    centres_pt = shapely.line_interpolate_point(pick.geometry.values, 0.5, normalized=True)
    ponds = gpd.GeoDataFrame({"NAME": [f"Synthetic Pond {i}" for i in range(len(pick))]},
                             geometry=shapely.buffer(centres_pt, 40.0), crs=CRS)
    leaving = streams[~shapely.within(streams.geometry.values, boundary)
                      & shapely.intersects(streams.geometry.values, boundary)]
    leaving = leaving[shapely.get_y(shapely.get_point(leaving.geometry.values, -1)) < y0 + 1e3]
    orw = gpd.GeoDataFrame({"ORW_ID": [f"ORW-{i}" for i in range(len(leaving))],
                            "NAME": [f"Synthetic River {i}" for i in range(len(leaving))]},
                           geometry=leaving.geometry.values, crs=CRS)
    imp = streams.iloc[1::3]
    causes = ["Phosphorus, Total", "Escherichia coli (E. coli)", "Chloride"]
    impaired = gpd.GeoDataFrame(
        {"AU_ID": [f"MA99-{i:02d}" for i in range(len(imp))],
         "AU_NAME": [f"Synthetic Brook {i}" for i in range(len(imp))],
         "CATEGORY": ["5" if i % 3 else "4A" for i in range(len(imp))],
         "CAUSES": [causes[i % len(causes)] for i in range(len(imp))],
         "TMDL": [None if i % 3 else f"TMDL {i}" for i in range(len(imp))]},
        geometry=imp.geometry.values, crs=CRS)
    return streams, ponds, orw, impaired


def build(work: Path, *, parcels: int = 11_000, margin_m: float = 300.0, seed: int = 16
          ) -> tuple[Path, Path]:
    """The town, its 1 m DEM and hydrography, and a 2-acre site; returns (toml, site gpkg)."""
    rng = np.random.default_rng(seed)
    toml = generate(parcels, work)
    boundary = gpd.read_file(work / "town.gpkg", layer="town_boundary").geometry.iloc[0]
    bx0, by0, bx1, by1 = boundary.bounds
    extent = (math.floor(bx0 - margin_m), math.floor(by0 - margin_m),
              math.ceil(bx1 + margin_m), math.ceil(by1 + margin_m))
    t = time.perf_counter()
    dem, centres = make_dem(extent, work / "dem_1m.tif", rng)
    streams, ponds, orw, impaired = hydrography(extent, centres, boundary, rng)
    for name, frame in (("streams", streams), ("waterbodies", ponds), ("orw", orw),
                        ("impaired_waters", impaired)):
        pyogrio.write_dataframe(frame, work / "town.gpkg", layer=name, driver="GPKG",
                                append=True)
    with toml.open("a", encoding="utf-8") as fh:
        for name in ("streams", "waterbodies", "orw", "impaired_waters"):
            fh.write(f'\n[layers.{name}]\npath = "town.gpkg"\nlayer = "{name}"\n')
        fh.write('\n[layers.dem]\npath = "dem_1m.tif"\n')
    # a 2-acre site (90 m x 90 m) on a valley side near the middle of the town
    cx, cy = shapely.centroid(boundary).coords[0]
    site = gpd.GeoDataFrame({"name": ["benchmark site"]},
                            geometry=[shapely.box(cx - 45, cy - 45, cx + 45, cy + 45)], crs=CRS)
    site_path = work / "site.gpkg"
    site.to_file(site_path, driver="GPKG")
    with rasterio.open(dem) as src:
        cells = src.width * src.height
    print(f"1 m DEM {cells:,} cells ({dem.stat().st_size / 1e6:.0f} MB), {len(streams)} reaches "
          f"in {len(centres)} valleys, {len(ponds)} ponds, {len(orw)} ORW reaches, "
          f"{len(impaired)} impaired units; built in {time.perf_counter() - t:.1f} s")
    return toml, site_path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--town", type=Path, required=True, help="folder to write the town into")
    ap.add_argument("--parcels", type=int, default=11_000,
                    help="parcels (11,000 give 32 km2: 39.5 M cells with the margin)")
    ap.add_argument("--margin", type=float, default=300.0, help="DEM beyond the town (m)")
    args = ap.parse_args()
    build(args.town, parcels=args.parcels, margin_m=args.margin)


if __name__ == "__main__":
    main()

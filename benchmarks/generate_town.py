"""Generate a scaled SYNTHETIC town for benchmarks: any parcel count, the sample town's schemas.

Parcels are rows of quadrilateral lots (neighbours share their side lines) between street
rights-of-way; lot frontages and depths vary so that about one lot in six reaches an acre. The
reference layers scale with the town's area: NHESP priority and estimated habitats (irregular
blobs), certified vernal pools (points), FEMA flood zones along meandering brooks (AE inside,
shaded X outside, with the NFHL fields), and WBD HUC12 watersheds (about 100 km2 each, Voronoi
cells) grouped into HUC10s. Everything is in EPSG:26986 with the published field names
(MassGIS, NHESP, FEMA NFHL, USGS WBD), written to one GeoPackage with a town TOML beside it.

    python benchmarks/generate_town.py --parcels 200000 --out /tmp/town200k

Nothing here is real data; the files say so (town name and ``synthetic = true``).
"""

from __future__ import annotations

import argparse
import math
import subprocess
import sys
import time
from pathlib import Path

import geopandas as gpd
import numpy as np
import pyogrio
import shapely

CRS = "EPSG:26986"
X0, Y0 = 220_000.0, 880_000.0
#: Average land per parcel including streets (m2), about 0.8 acre gross.
GROSS_SQM_PER_PARCEL = 3_300.0
STREET_M = 15.0

#: Densities of the reference layers. "town": a suburban town (the default, as before). "ma":
#: the Commonwealth's averages, for a statewide-sized run: 20,200 km2 of land (US Census) for
#: about 2.4 million parcels (8,400 m2 gross each, so lots are 1.6x wider and deeper); NHESP
#: priority habitat over about a fifth of the land in large polygons (0.09 per km2, about
#: 1,800 statewide) and estimated habitat over about a sixth (0.11 per km2); certified vernal
#: pools about 0.25 per km2 (about 5,000 statewide); a brook with its AE and shaded X zones
#: per 10 km2; HUC12s of about 100 km2. These are round figures for the load, not a survey:
#: the timing depends on how many features a parcel meets, which these densities set.
PROFILES = {
    "town": {"sqm_per_parcel": GROSS_SQM_PER_PARCEL, "priority_per_km2": 0.35,
             "priority_r": (120, 500), "estimated_per_km2": 0.2, "estimated_r": (100, 400),
             "pools_per_km2": 1.5, "km2_per_brook": 6.0},
    "ma": {"sqm_per_parcel": 8_400.0, "priority_per_km2": 0.09, "priority_r": (300, 1_500),
           "estimated_per_km2": 0.11, "estimated_r": (250, 1_200), "pools_per_km2": 0.25,
           "km2_per_brook": 10.0},
}


def parcels_layer(n: int, rng: np.random.Generator) -> gpd.GeoDataFrame:
    """About ``n`` lots in rows (exactly ``n`` are kept), MassGIS L3 fields."""
    side = math.sqrt(n * GROSS_SQM_PER_PARCEL)
    geoms: list[np.ndarray] = []
    y = Y0
    count = 0
    while count < n:
        depth = rng.uniform(30.0, 80.0)  # lot depth of this row
        y1 = y + depth
        # lot side lines: x at the street (bottom) and at the back (top) differ a little
        widths = rng.gamma(shape=4.0, scale=9.0, size=int(side / 20) + 50) + 12.0
        xb = X0 + np.concatenate([[0.0], np.cumsum(widths)])
        xb = xb[xb <= X0 + side]
        if len(xb) < 2:
            break
        skew = rng.uniform(-6.0, 6.0, len(xb))
        skew[0] = skew[-1] = 0.0
        xt = xb + skew
        k = len(xb) - 1
        coords = np.stack([
            np.column_stack([xb[:-1], np.full(k, y)]),
            np.column_stack([xb[1:], np.full(k, y)]),
            np.column_stack([xt[1:], np.full(k, y1)]),
            np.column_stack([xt[:-1], np.full(k, y1)]),
            np.column_stack([xb[:-1], np.full(k, y)]),
        ], axis=1)
        geoms.append(shapely.polygons(coords))
        count += k
        # two rows back to back, then a street
        y = y1 if rng.random() < 0.5 else y1 + STREET_M
    g = np.concatenate(geoms)[:n]
    c = shapely.centroid(g)
    cx, cy = np.round(shapely.get_x(c)).astype(np.int64), np.round(shapely.get_y(c)).astype(
        np.int64)
    loc = np.char.add(np.char.add(np.char.add("M_", cx.astype(str)), "_"), cy.astype(str))
    # a running number keeps the ids unique even where two centroids round alike
    ids = np.char.add(loc, np.char.add("_", np.arange(n).astype(str)))
    poly_type = np.where(rng.random(n) < 0.02, "TAX", "FEE")
    return gpd.GeoDataFrame(
        {"LOC_ID": ids, "MAP_PAR_ID": np.char.add("M", np.arange(n).astype(str)),
         "TOWN_ID": np.full(n, 999), "POLY_TYPE": poly_type},
        geometry=g, crs=CRS)


def blobs(n: int, extent: tuple[float, float, float, float], rng: np.random.Generator,
          r_min: float, r_max: float) -> np.ndarray:
    """Irregular habitat-like polygons: unions of three overlapping discs."""
    x0, y0, x1, y1 = extent
    cx, cy = rng.uniform(x0, x1, n), rng.uniform(y0, y1, n)
    r = rng.uniform(r_min, r_max, n)
    parts = []
    for _ in range(3):
        ang = rng.uniform(0, 2 * math.pi, n)
        off = rng.uniform(0.2, 0.7, n) * r
        parts.append(shapely.buffer(shapely.points(cx + off * np.cos(ang), cy + off * np.sin(ang)),
                                    r * rng.uniform(0.5, 0.9, n), quad_segs=12))
    return shapely.union(shapely.union(parts[0], parts[1]), parts[2])


def brooks(n: int, extent: tuple[float, float, float, float], rng: np.random.Generator
           ) -> np.ndarray:
    """Meandering brook lines about 3-8 km long."""
    x0, y0, x1, y1 = extent
    lines = []
    for _ in range(n):
        length = rng.uniform(3_000, 8_000)
        steps = int(length / 50)
        heading = rng.uniform(0, 2 * math.pi)
        turns = np.cumsum(rng.normal(0, 0.15, steps)) + heading
        xs = rng.uniform(x0, x1) + np.cumsum(50 * np.cos(turns))
        ys = rng.uniform(y0, y1) + np.cumsum(50 * np.sin(turns))
        lines.append(shapely.linestrings(np.column_stack([xs, ys])))
    return np.array(lines, dtype=object)


def flood_layer(lines: np.ndarray, rng: np.random.Generator) -> gpd.GeoDataFrame:
    """AE zones along the brooks and shaded X (0.2 %) beyond them, NFHL fields."""
    w = rng.uniform(30, 120, len(lines))
    ae = shapely.buffer(lines, w, quad_segs=8)
    x = shapely.difference(shapely.buffer(lines, 2 * w, quad_segs=8), ae)
    n = len(lines)
    return gpd.GeoDataFrame(
        {"FLD_ZONE": ["AE"] * n + ["X"] * n,
         "ZONE_SUBTY": [None] * n + ["0.2 PCT ANNUAL CHANCE FLOOD HAZARD"] * n,
         "SFHA_TF": ["T"] * n + ["F"] * n,
         "STATIC_BFE": list(np.round(rng.uniform(20, 90, n), 1)) + [-9999.0] * n},
        geometry=np.concatenate([ae, x]), crs=CRS)


def huc_layers(extent: tuple[float, float, float, float], rng: np.random.Generator
               ) -> tuple[gpd.GeoDataFrame, gpd.GeoDataFrame]:
    """HUC12 Voronoi cells of about 100 km2 over the extent (grown 2 km), grouped in HUC10s."""
    x0, y0, x1, y1 = extent
    x0, y0, x1, y1 = x0 - 2_000, y0 - 2_000, x1 + 2_000, y1 + 2_000
    frame = shapely.box(x0, y0, x1, y1)
    k = max(2, round(frame.area / 1e8))
    pts = shapely.multipoints(np.column_stack([rng.uniform(x0, x1, k), rng.uniform(y0, y1, k)]))
    cells = shapely.get_parts(shapely.voronoi_polygons(pts, extend_to=frame))
    cells = shapely.segmentize(shapely.intersection(cells, frame), 50.0)  # WBD-like vertex count
    cells = cells[shapely.area(cells) > 0]
    cx = shapely.get_x(shapely.centroid(cells))
    groups = np.minimum((cx - x0) / (x1 - x0) * max(1, len(cells) // 4), max(1, len(cells) // 4)
                        - 1).astype(int)
    h10 = np.array([f"01070002{g:02d}" for g in groups])
    order = np.lexsort((shapely.get_y(shapely.centroid(cells)), groups))
    h12 = np.empty(len(cells), dtype=object)
    for rank, i in enumerate(order):
        h12[i] = f"{h10[i]}{rank % 100:02d}"
    huc12 = gpd.GeoDataFrame({"huc12": h12, "name": [f"Synthetic Brook {c}" for c in h12]},
                             geometry=cells, crs=CRS)
    huc10 = huc12.assign(huc10=h10).dissolve("huc10", as_index=False)[["huc10", "geometry"]]
    huc10["name"] = [f"Synthetic River {c}" for c in huc10["huc10"]]
    return huc12, huc10


def generate(n: int, out: Path, *, seed: int = 20211708, profile: str = "town") -> Path:
    """Write ``out/town.gpkg`` and ``out/town.toml`` for ``n`` parcels; return the toml path."""
    dens = PROFILES[profile]
    rng = np.random.default_rng(seed)
    out.mkdir(parents=True, exist_ok=True)
    gpkg = out / "town.gpkg"
    if gpkg.exists():
        gpkg.unlink()
    t = time.perf_counter()
    parcels = parcels_layer(n, rng)
    scale = math.sqrt(dens["sqm_per_parcel"] / GROSS_SQM_PER_PARCEL)
    if scale != 1.0:  # bigger lots: the same layout stretched about the origin
        parcels = parcels.set_geometry(shapely.transform(
            parcels.geometry.values, lambda c: (c - [X0, Y0]) * scale + [X0, Y0]))
    extent = tuple(parcels.total_bounds)
    area_km2 = (extent[2] - extent[0]) * (extent[3] - extent[1]) / 1e6
    pri = blobs(max(1, round(area_km2 * dens["priority_per_km2"])), extent, rng,
                *dens["priority_r"])
    est = blobs(max(1, round(area_km2 * dens["estimated_per_km2"])), extent, rng,
                *dens["estimated_r"])
    pools = rng.uniform(0, 1, (max(1, round(area_km2 * dens["pools_per_km2"])), 2))
    pools = shapely.points(extent[0] + pools[:, 0] * (extent[2] - extent[0]),
                           extent[1] + pools[:, 1] * (extent[3] - extent[1]))
    flood = flood_layer(brooks(max(1, round(area_km2 / dens["km2_per_brook"])), extent, rng), rng)
    huc12, huc10 = huc_layers(extent, rng)
    layers = {
        "parcels": parcels,
        "nhesp_priority": gpd.GeoDataFrame({"PRIHAB_ID": [f"PH {i}" for i in range(len(pri))]},
                                           geometry=pri, crs=CRS),
        "nhesp_estimated": gpd.GeoDataFrame({"ESTHAB_ID": [f"EH {i}" for i in range(len(est))]},
                                            geometry=est, crs=CRS),
        "vernal_pools": gpd.GeoDataFrame({"CVP_NUM": np.arange(len(pools)) + 1},
                                         geometry=pools, crs=CRS),
        "flood_zones": flood,
        "huc12": huc12,
        "huc10": huc10,
        "town_boundary": gpd.GeoDataFrame({"TOWN": ["SYNTHETIC"]},
                                          geometry=[shapely.box(*extent)], crs=CRS),
    }
    for i, (name, frame) in enumerate(layers.items()):
        pyogrio.write_dataframe(frame, gpkg, layer=name, driver="GPKG", append=i > 0,
                                promote_to_multi=frame.geom_type.iloc[0] != "Point",
                                dataset_options={"VERSION": "1.2"} if i == 0 else None)
    toml = out / "town.toml"
    lines = [f'[town]\nname = "Synthetic benchmark town ({n:,} parcels; NOT real data)"\n'
             'crs = "EPSG:26986"\nsynthetic = true\n']
    for name in layers:
        lines.append(f'[layers.{name}]\npath = "town.gpkg"\nlayer = "{name}"\n')
    toml.write_text("\n".join(lines), encoding="utf-8")
    print(f"{n:,} parcels over {area_km2:,.0f} km2: {len(pri)} priority, {len(est)} estimated "
          f"habitats, {len(pools)} vernal pools, {len(flood)} flood zones, {len(huc12)} HUC12s "
          f"in {len(huc10)} HUC10s; written in {time.perf_counter() - t:.1f} s to {toml}")
    return toml


def generate_in_child(n: int, out: Path, *, profile: str = "town") -> Path:
    """:func:`generate` in a child process; the town's ``town.toml``.

    A bench that measures its runs' peak memory generates this way: Linux carries a process's
    peak RSS across ``exec`` (the forked copy of the parent counts), so a run started by a
    process still holding the generated town (3.2 GB statewide) reported that as its peak."""
    subprocess.run([sys.executable, str(Path(__file__).resolve()), "--parcels", str(n),
                    "--out", str(out), "--profile", profile], check=True)
    return out / "town.toml"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parcels", type=int, required=True, help="number of parcels")
    ap.add_argument("--out", type=Path, required=True, help="folder for town.gpkg and town.toml")
    ap.add_argument("--seed", type=int, default=20211708)
    ap.add_argument("--profile", choices=sorted(PROFILES), default="town",
                    help="reference-layer densities: a suburban town, or Massachusetts averages")
    args = ap.parse_args()
    generate(args.parcels, args.out, seed=args.seed, profile=args.profile)


if __name__ == "__main__":
    main()

"""Parallel writes of the town-wide map, measured: do per-worker part files pay on this machine?

Issue 37 asks the map to "write in parallel (per-worker part files merged by GDAL, or a writer
process)". The parent process already is the one writer (the workers classify and encode; it
streams their Arrow tables into the GeoPackage). This script measures, in one process, the CPU
of three ways to write the same rows, read from an existing map (so no tile is classified):

(a) the map's writer: one ``pyogrio.write_arrow`` stream with the R-tree
    (:func:`swm_gis.applicability.write.write_batches`);
(b) part files, one per tile of 20,000 rows, written by GDAL without an R-tree (what each worker
    would add to its own CPU), then merged by SQLite (``ATTACH`` + ``INSERT INTO ... SELECT``,
    no R-tree: GDAL must build that, and pyogrio cannot ask it to on an existing table);
(c) the same parts merged by GDAL (each read and appended through one stream, R-tree included).

On two cores every part of the job is CPU-bound, so a way that adds CPU adds time: parallel
writes pay only where a machine has cores the workers leave idle.

    python benchmarks/bench_parallel_write.py --map /tmp/bench/state/applicability.gpkg \
        --rows 400000
    python benchmarks/bench_parallel_write.py --smoke   # the sample town's map, parts of 500
"""

from __future__ import annotations

import argparse
import resource
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path

import pyarrow as pa
import pyogrio

from swm_gis.applicability.write import GEOMETRY, LAYER, batch_schema, write_batches
from swm_gis.io.writers import large_pages, sqlite_sync_off

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import smoke  # noqa: E402

REPO = HERE.parent
TILE = 20_000
CRS = "EPSG:26986"


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _timed(work) -> float:
    c = _cpu()
    work()
    return _cpu() - c


def _read_batch(path: Path, **kwargs) -> pa.Table:
    """A map layer's rows (``pyogrio.read_arrow`` options) as a table of the writer's schema."""
    schema = batch_schema()
    table = pyogrio.read_arrow(path, layer=LAYER, **kwargs)[1]
    return table.select([f.name for f in schema]).cast(schema)


def _rows(path: Path, n: int, tile: int = TILE) -> list[pa.Table]:
    table = _read_batch(path, max_features=n)
    return [table.slice(i, tile) for i in range(0, table.num_rows, tile)]


def _parts(batches: list[pa.Table], folder: Path) -> list[Path]:
    parts = []
    with sqlite_sync_off(), large_pages():
        for i, batch in enumerate(batches):
            part = folder / f"part{i}.gpkg"
            pyogrio.write_arrow(batch, part, layer=LAYER, driver="GPKG", geometry_name=GEOMETRY,
                                geometry_type="MultiPolygon", crs=CRS,
                                layer_options={"SPATIAL_INDEX": "NO"})
            parts.append(part)
    return parts


def _sqlite_merge(parts: list[Path], out: Path) -> None:
    shutil.copyfile(parts[0], out)
    with sqlite3.connect(out) as db:
        db.execute("PRAGMA synchronous = OFF")
        cols = ",".join(f'"{r[1]}"' for r in db.execute(f"PRAGMA table_info({LAYER})")
                        if r[1] != "fid")
        for part in parts[1:]:
            db.execute("ATTACH DATABASE ? AS part", (str(part),))
            db.execute(f"INSERT INTO {LAYER} ({cols}) SELECT {cols} FROM part.{LAYER}")
            db.commit()
            db.execute("DETACH DATABASE part")


def _gdal_merge(parts: list[Path], out: Path) -> None:
    def tables():
        for part in parts:
            yield _read_batch(part)

    with sqlite_sync_off():
        write_batches(out, tables(), crs=CRS)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--map", type=Path, help="an applicability GeoPackage (required but with "
                                              "--smoke)")
    ap.add_argument("--rows", type=int, default=400_000)
    ap.add_argument("--runs", type=int, default=2)
    smoke.add_option(ap)
    args = ap.parse_args()
    tile = TILE
    if args.smoke:  # the sample town's map (3,167 parcels) in parts of 500 rows, once
        import swm_gis

        args.map = smoke.workspace("parallel_write") / "sample.gpkg"
        swm_gis.applicability_map(swm_gis.load_config(REPO / "data" / "sample" / "town.toml"),
                                  args.map, workers=1)
        args.runs, tile = 1, 500
    if args.map is None:
        ap.error("--map is required (but with --smoke)")
    batches = _rows(args.map, args.rows, tile)
    rows = sum(b.num_rows for b in batches)
    for run in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="swm-parts-") as tmp:
            one, workers, merged, by_gdal = _one_run(batches, Path(tmp))
        print(f"run {run + 1}, {rows:,} rows: (a) one writer {one:.2f} s CPU; "
              f"(b) parts {workers:.2f} s + SQLite merge, no R-tree, {merged:.2f} s = "
              f"{workers + merged:.2f} s ({(workers + merged) / one:.2f}x); "
              f"(c) parts + GDAL merge {by_gdal:.2f} s = {workers + by_gdal:.2f} s "
              f"({(workers + by_gdal) / one:.2f}x)", flush=True)


def _one_run(batches: list[pa.Table], folder: Path) -> tuple[float, float, float, float]:
    """CPU seconds of (a) the one writer, the parts, (b) their SQLite merge, (c) their GDAL
    merge."""
    with sqlite_sync_off():
        one = _timed(lambda: write_batches(folder / "one.gpkg", batches, crs=CRS))
    parts: list[Path] = []
    workers = _timed(lambda: parts.extend(_parts(batches, folder)))
    merged = _timed(lambda: _sqlite_merge(parts, folder / "merged.gpkg"))
    by_gdal = _timed(lambda: _gdal_merge(parts, folder / "gdal.gpkg"))
    written = sum(b.num_rows for b in batches)
    for name in ("one", "merged", "gdal"):
        rows = pyogrio.read_info(folder / f"{name}.gpkg", layer=LAYER)["features"]
        smoke.check(rows == written, f"{name}.gpkg holds the {written:,} rows written")
    return one, workers, merged, by_gdal

if __name__ == "__main__":
    main()

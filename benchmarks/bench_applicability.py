"""Time the applicability map against a QGIS native-algorithm chain and a naive geopandas version.

In one run, on one synthetic town (benchmarks/generate_town.py), each method in a fresh process:

(a) ``swm`` : ``swm-gis applicability`` (local engine, spatial tiles, ``--workers`` processes,
    default every core); ``swm1``: the same with ``--workers 1`` (the single-core time);
(b) ``qgis``: the same flags by a chain of QGIS native Processing algorithms, built the way a
    QGIS user builds a model: native:buffer (500 ft, default 5 segments) + native:extractbylocation
    against each NHESP layer; native:extractbyattribute (SFHA_TF = 'T') + native:extractbylocation
    for the SFHA; native:joinattributesbylocation (largest overlap) for the HUC12. PyQGIS runs
    headless from the venv (QgsApplication + processing);
(c) ``naive``: geopandas on the whole town at once (sjoin_nearest for exact NHESP distances,
    overlay for SFHA and HUC12 shares); its exact distances are the reference;
(d) ``dask``: ``swm-gis applicability --engine dask`` on a LocalCluster of ``--workers``.

It checks each method's flags against the exact reference, counts the parcels the buffer chain
gets wrong near the 500 ft edge, and prints times, ratios and peak memory (RSS of the process;
for Dask, the largest of the client and its worker processes).

    python benchmarks/bench_applicability.py --parcels 200000 --work /tmp/bench/t200k \
        --methods swm1,swm,dask,naive
    python benchmarks/bench_applicability.py --smoke   # 400 parcels, every method, checked
    python benchmarks/bench_applicability.py --config /tmp/bench/t200k/town.toml \
        --work /tmp/bench/w --methods swm1,swm --workers 2 --warm 4   # warm engine too
    python benchmarks/bench_applicability.py --config /tmp/bench/t200k/town.toml \
        --work /tmp/bench/w --methods swm1,swm --workers 2 --command 5   # and the command,
        # a whole fresh process (interpreter, imports, fork server), 1 vs 2 workers, 5 pairs

``--smoke`` runs swm1, swm, dask, qgis and naive on a 400-parcel town in a temporary folder, in
tiles of 100 parcels on 2 workers (so the pool and the cluster do run; qgis is skipped with a
note where PyQGIS is not installed, dask where distributed is not) and fails unless swm1, swm
and dask agree with the exact reference on every flag they decide.

Flags swm-gis leaves null (not checked: a parcel whose 500 ft search, or whose land, reaches
beyond the layers' coverage) are counted apart and not compared. The load average before and
after each method is printed: on a shared machine the parallel speed-up means little without it.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

import smoke  # noqa: E402

FT = 0.3048
LIMIT_M = 500 * FT
QGIS_PLUGINS = "/usr/share/qgis/python/plugins"
_KEEP: list = []
_RSS: list[float] = []  # peak RSS sampled when the work ends


# =========================================================================== the methods
def run_swm(config: Path, work: Path, engine: str, workers: int | None, chunk_size: int | None
            ) -> tuple[pd.DataFrame, float, float]:
    """``swm-gis applicability`` in this process (``workers=None``: the engine's own default,
    for a checkout from before ``--workers`` existed)."""
    from swm_gis.applicability.run import read_result
    from swm_gis.cli import main

    out = work / f"swm_{engine}.gpkg"
    args = ["--progress", "none", "applicability", "-c", str(config), "--out", str(out),
            "--overwrite", "--engine", engine]
    if workers is not None:
        args += ["--workers", str(workers)]
    if chunk_size:
        args += ["--chunk-size", str(chunk_size)]
    t, c = time.perf_counter(), _cpu_s()
    code = main(args)
    seconds, cpu = time.perf_counter() - t, _cpu_s() - c
    _RSS.append(_peak_rss_mb())  # before the flags are read back (the whole output)
    if code:
        raise SystemExit(f"swm-gis failed with exit code {code}")
    res = read_result(out)
    flags = pd.DataFrame({
        # an engine from before the rename ("before") names the column by its 500 ft
        "parcel_id": res["parcel_id"],
        "nhesp": res["nhesp_within_distance" if "nhesp_within_distance" in res
                     else "nhesp_within_500ft"],
        "nhesp_distance_ft": res["nhesp_distance_ft"], "sfha": res["in_sfha"],
        "huc12": res["huc12"]})
    return flags, seconds, cpu


def run_qgis(config: Path, work: Path) -> tuple[pd.DataFrame, float, float]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    if QGIS_PLUGINS not in sys.path:
        sys.path.append(QGIS_PLUGINS)
    from qgis.core import QgsApplication, QgsVectorLayer

    app = QgsApplication([], False)
    app.initQgis()
    import processing
    from processing.core.Processing import Processing

    Processing.initialize()
    gpkg = str(config.parent / "town.gpkg")

    def layer(name: str) -> QgsVectorLayer:
        lyr = QgsVectorLayer(f"{gpkg}|layername={name}", name, "ogr")
        assert lyr.isValid(), name
        return lyr

    parcels = layer("parcels")
    t, c = time.perf_counter(), _cpu_s()
    # the model a QGIS user builds: buffer 500 ft, then select by location per NHESP layer
    buffered = processing.run("native:buffer", {
        "INPUT": parcels, "DISTANCE": LIMIT_M, "SEGMENTS": 5, "END_CAP_STYLE": 0,
        "JOIN_STYLE": 0, "MITER_LIMIT": 2, "DISSOLVE": False, "OUTPUT": "memory:"})["OUTPUT"]
    near = []
    for name in ("nhesp_priority", "nhesp_estimated", "vernal_pools"):
        near.append(processing.run("native:extractbylocation", {
            "INPUT": buffered, "PREDICATE": [0], "INTERSECT": layer(name),
            "OUTPUT": "memory:"})["OUTPUT"])
    sfha = processing.run("native:extractbyattribute", {
        "INPUT": layer("flood_zones"), "FIELD": "SFHA_TF", "OPERATOR": 0, "VALUE": "T",
        "OUTPUT": "memory:"})["OUTPUT"]
    in_sfha = processing.run("native:extractbylocation", {
        "INPUT": parcels, "PREDICATE": [0], "INTERSECT": sfha, "OUTPUT": "memory:"})["OUTPUT"]
    joined = processing.run("native:joinattributesbylocation", {
        "INPUT": parcels, "JOIN": layer("huc12"), "PREDICATE": [0], "JOIN_FIELDS": ["huc12"],
        "METHOD": 2, "DISCARD_NONMATCHING": False, "PREFIX": "", "OUTPUT": "memory:"})["OUTPUT"]
    seconds, cpu = time.perf_counter() - t, _cpu_s() - c
    _RSS.append(_peak_rss_mb())
    near_ids = {f["LOC_ID"] for lyr in near for f in lyr.getFeatures()}
    sfha_ids = {f["LOC_ID"] for f in in_sfha.getFeatures()}
    rows = [(f["LOC_ID"], f["huc12"]) for f in joined.getFeatures()]
    flags = pd.DataFrame(rows, columns=["parcel_id", "huc12"])
    flags["nhesp"] = flags["parcel_id"].isin(near_ids)
    flags["sfha"] = flags["parcel_id"].isin(sfha_ids)
    flags["huc12"] = flags["huc12"].map(lambda v: None if v is None or str(v) == "NULL" else v)
    _KEEP.append(app)  # exitQgis() with layers still alive crashes; the process ends with os._exit
    return flags, seconds, cpu


def run_naive(config: Path, work: Path) -> tuple[pd.DataFrame, float, float]:
    import geopandas as gpd

    gpkg = config.parent / "town.gpkg"
    t, c = time.perf_counter(), _cpu_s()
    parcels = gpd.read_file(gpkg, layer="parcels")[["LOC_ID", "geometry"]]
    habitats = pd.concat([gpd.read_file(gpkg, layer=n)[["geometry"]] for n in
                          ("nhesp_priority", "nhesp_estimated", "vernal_pools")],
                         ignore_index=True)
    nearest = gpd.sjoin_nearest(parcels, habitats, how="left", distance_col="d")
    d = nearest.groupby(level=0)["d"].min()
    flood = gpd.read_file(gpkg, layer="flood_zones")
    sfha = flood[flood["SFHA_TF"] == "T"][["geometry"]]
    inter = gpd.overlay(parcels, sfha, how="intersection", keep_geom_type=True)
    sfha_ids = set(inter.loc[inter.area > 0, "LOC_ID"])
    huc = gpd.overlay(parcels, gpd.read_file(gpkg, layer="huc12")[["huc12", "geometry"]],
                      how="intersection", keep_geom_type=True)
    huc["a"] = huc.area
    best = huc.sort_values(["LOC_ID", "a"], ascending=[True, False]).drop_duplicates("LOC_ID")
    seconds, cpu = time.perf_counter() - t, _cpu_s() - c
    _RSS.append(_peak_rss_mb())
    flags = pd.DataFrame({"parcel_id": parcels["LOC_ID"],
                          "exact_distance_ft": d.reindex(parcels.index).to_numpy() / FT})
    flags["nhesp"] = flags["exact_distance_ft"] <= 500.0 + 1e-6
    flags["sfha"] = flags["parcel_id"].isin(sfha_ids)
    flags["huc12"] = flags["parcel_id"].map(best.set_index("LOC_ID")["huc12"])
    return flags, seconds, cpu


def _cpu_s() -> float:
    """CPU seconds of this process, its finished children and the processes still running
    beneath it with their finished children (the local engine's fork server and the workers it
    forked) (user + system)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime
            + sum(cpu for _, cpu in _descendants()))


def _peak_rss_mb() -> float:
    """The largest peak RSS of this process, its finished children and the processes sampled
    beneath it (:func:`_watch`: a fork server's workers are not this process's children)."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own / 1024.0, kids / 1024.0, max(_SAMPLED.values(), default=0.0))


_SAMPLED: dict[int, float] = {}  # pid -> largest RSS (MB) sampled of a process beneath this one


def _descendants() -> list[tuple[float, float]]:
    """(RSS MB, CPU s with its finished children) of each process running beneath this one."""
    import psutil

    out = []
    for proc in psutil.Process().children(recursive=True):
        try:
            with proc.oneshot():
                t = proc.cpu_times()
                out.append((proc.memory_info().rss / 2**20,
                            t.user + t.system + t.children_user + t.children_system))
                _SAMPLED[proc.pid] = max(_SAMPLED.get(proc.pid, 0.0), out[-1][0])
        except psutil.Error:  # ended meanwhile
            continue
    return out


def _watch(stop: threading.Event) -> None:
    """Sample the processes beneath this one every 50 ms (their peak RSS) until ``stop``."""
    while not stop.wait(0.05):
        _descendants()


def one(method: str, config: Path, work: Path, workers: int, chunk_size: int | None,
        warm: int = 0) -> None:
    """Run one method in this process; write its flags and print a JSON line of figures.

    ``warm``: the local engine's methods (swm, swm1) run the map that many times more in the
    same process, as the QGIS plugin's warm engine runs a second job (libraries imported, the
    fork server running, the workers kept from the first run), and report the median of
    those runs too."""
    stop = threading.Event()
    threading.Thread(target=_watch, args=(stop,), daemon=True).start()
    if warm and method in ("swm", "swm1"):
        _as_the_warm_engine()
    try:
        flags, seconds, cpu = _run_one(method, config, work, workers, chunk_size)
        again = [_run_one(method, config, work, workers, chunk_size)[1]
                 for _ in range(warm if method in ("swm", "swm1") else 0)]
    finally:
        stop.set()
    flags.to_csv(work / f"flags_{method}.csv", index=False)
    extra = {"warm_seconds": round(float(np.median(again)), 2),
             "warm_runs": [round(s, 2) for s in again]} if again else {}
    print("RESULT " + json.dumps({"method": method, "seconds": round(seconds, 2),
                                  "cpu_s": round(cpu, 2),
                                  "peak_rss_mb": round(_RSS[0] if _RSS else _peak_rss_mb(), 1),
                                  "parcels": len(flags), **extra}), flush=True)
    if method == "qgis":
        os._exit(0)


def _as_the_warm_engine() -> None:
    """Keep the map's workers from one run to the next, as ``swm-gis serve`` (the QGIS
    plugin's warm engine) does (an engine from before kept workers has none to keep)."""
    try:
        from swm_gis.applicability.pool_start import keep_workers
    except ImportError:
        return
    keep_workers()


def _run_one(method: str, config: Path, work: Path, workers: int, chunk_size: int | None
             ) -> tuple[pd.DataFrame, float, float]:
    if method == "before":
        import swm_gis

        before = os.environ.get("SWM_GIS_BEFORE", "")
        if not before or not Path(swm_gis.__file__).resolve().is_relative_to(Path(before)):
            raise SystemExit(f"'before' must import swm_gis from {before!r}, not "
                             f"{swm_gis.__file__}")
        flags, seconds, cpu = run_swm(config, work, "local", None, chunk_size)
    elif method in ("swm", "swm1", "dask"):
        flags, seconds, cpu = run_swm(config, work, "dask" if method == "dask" else "local",
                                      1 if method == "swm1" else workers, chunk_size)
    elif method == "qgis":
        flags, seconds, cpu = run_qgis(config, work)
    else:
        flags, seconds, cpu = run_naive(config, work)
    return flags, seconds, cpu


# =========================================================================== smoke mode
def smoke_methods() -> list[str]:
    """Every method this machine can run cheaply ('before' needs an old checkout: left out)."""
    import importlib.util

    methods = ["swm1", "swm"]
    if importlib.util.find_spec("distributed") is None:
        smoke.skip("method dask: dask.distributed is not installed (pip install -e '.[dask]')")
    else:
        methods.append("dask")
    if QGIS_PLUGINS not in sys.path:
        sys.path.append(QGIS_PLUGINS)
    if importlib.util.find_spec("qgis") is None or importlib.util.find_spec("processing") is None:
        smoke.skip("method qgis: PyQGIS is not installed (apt-get install qgis python3-qgis)")
    else:
        methods.append("qgis")
    return [*methods, "naive"]


def smoke_checks(results: dict, agreement: dict, parcels: int) -> None:
    """Every method saw every parcel; the engine agrees with the exact reference everywhere it
    decides (the buffer chain of QGIS is only counted: it is wrong near the edge by design)."""
    for m, r in results.items():
        smoke.check(r["parcels"] == parcels, f"{m}: {r['parcels']} of {parcels} parcels")
    for m in ("swm1", "swm", "dask"):
        if m in agreement:
            res = agreement[m]
            wrong = {k: v for k, v in res.items() if k.endswith("_disagree") and v}
            smoke.check(not wrong and res["nhesp_not_checked"] < parcels
                        and res.get("max_distance_error_ft", 0.0) < 1e-6,
                        f"{m} agrees with the exact reference ({res})")


# =========================================================================== the run
def spawn(method: str, args: argparse.Namespace, config: Path) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--one", method, "--config",
           str(config), "--work", str(args.work), "--workers", str(args.workers)]
    if args.chunk_size:
        cmd += ["--chunk-size", str(args.chunk_size)]
    if args.warm:
        cmd += ["--warm", str(args.warm)]
    t = time.perf_counter()
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    if method == "before":
        if not args.before:
            raise SystemExit("method 'before' needs --before DIR (a checkout of the old engine)")
        before = str(Path(args.before).resolve())
        env.update(SWM_GIS_BEFORE=before,
                   PYTHONPATH=os.pathsep.join(filter(None, [before, env.get("PYTHONPATH")])))
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")), None)
    if proc.returncode or line is None:
        sys.stderr.write(proc.stdout[-3000:] + proc.stderr[-3000:])
        raise SystemExit(f"{method} failed (exit {proc.returncode})")
    res = json.loads(line[len("RESULT "):])
    res["process_wall_s"] = round(wall, 2)
    return res


def command_seconds(config: Path, out: Path, workers: int, chunk_size: int | None) -> float:
    """Wall time of ``python -m swm_gis applicability`` in a fresh process, start to exit."""
    cmd = [sys.executable, "-m", "swm_gis", "--progress", "none", "applicability", "-c",
           str(config), "--out", str(out), "--overwrite", "--workers", str(workers)]
    if chunk_size:
        cmd += ["--chunk-size", str(chunk_size)]
    t = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.perf_counter() - t
    if proc.returncode:
        sys.stderr.write(proc.stdout[-3000:] + proc.stderr[-3000:])
        raise SystemExit(f"the command failed (exit {proc.returncode})")
    return seconds


def command_pairs(config: Path, work: Path, workers: int, chunk_size: int | None, n: int
                  ) -> list[float]:
    """``n`` pairs of the command as a user runs it (:func:`command_seconds`), one worker then
    ``workers``, in the same minutes; prints each pair and the median speed-up."""
    ratios = []
    for i in range(n):
        one = command_seconds(config, work / "swm_command_1.gpkg", 1, chunk_size)
        many = command_seconds(config, work / "swm_command.gpkg", workers, chunk_size)
        ratios.append(one / many)
        print(f"command, fresh process, pair {i + 1}: 1 worker {one:.2f} s, {workers} workers "
              f"{many:.2f} s: {one / many:.2f}x", flush=True)
    print(f"command ({workers} workers) speed-up over 1 worker, fresh process (median of {n}): "
          f"{float(np.median(ratios)):.2f}x", flush=True)
    return ratios


def compare(work: Path, methods: list[str]) -> dict[str, dict[str, int]]:
    """Disagreements of each method with the exact reference (the naive run's exact distances)."""
    ref = pd.read_csv(work / "flags_naive.csv", dtype={"huc12": str}).set_index("parcel_id")
    out = {}
    for m in methods:
        if m == "naive":
            continue
        f = pd.read_csv(work / f"flags_{m}.csv", dtype={"huc12": str}).set_index("parcel_id")
        f = f.reindex(ref.index)
        decided = f["nhesp"].notna()
        exact_in = ref["nhesp"].astype(bool) & decided
        got = f["nhesp"].astype("boolean").fillna(False).astype(bool) & decided
        d = ref["exact_distance_ft"]
        sfha_ok = f["sfha"].notna()
        res = {
            "nhesp_not_checked": int((~decided).sum()),
            "nhesp_disagree": int((got != exact_in).sum()),
            "nhesp_missed_within_500ft": int((exact_in & ~got).sum()),
            "nhesp_missed_480_to_500ft": int((exact_in & ~got & (d >= 480)).sum()),
            "nhesp_extra_beyond_500ft": int((~exact_in & got).sum()),
            "sfha_not_checked": int((~sfha_ok).sum()),
            "sfha_disagree": int((f["sfha"].astype("boolean").fillna(False).astype(bool)
                                  != ref["sfha"].astype(bool))[sfha_ok].sum()),
            "huc12_disagree": int((f["huc12"].fillna("") != ref["huc12"].fillna("")).sum()),
        }
        if "nhesp_distance_ft" in f:
            both = f["nhesp_distance_ft"].notna() & d.notna() & (d <= 5_280)
            err = np.abs(f.loc[both, "nhesp_distance_ft"].to_numpy() - d[both].to_numpy())
            res["max_distance_error_ft"] = float(err.max(initial=0.0))
        out[m] = res
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parcels", type=int, help="generate (or reuse) a town of this size")
    ap.add_argument("--work", type=Path, help="folder for the town and outputs (required "
                                               "but with --smoke)")
    ap.add_argument("--config", type=Path, help="use this town config instead of generating")
    ap.add_argument("--methods", default="swm1,swm,qgis,naive",
                    help="comma list of before, swm1, swm, qgis, naive, dask (default "
                         "swm1,swm,qgis,naive)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                    help="worker processes of swm (local engine) and dask (default: every core)")
    ap.add_argument("--chunk-size", type=int, default=None, help="swm-gis --chunk-size")
    ap.add_argument("--before", type=Path,
                    help="a checkout of swm-gis from before the multi-core engine, for method "
                         "'before' (git worktree add /tmp/before 67d6199^): its single-process "
                         "engine timed in the same run")
    ap.add_argument("--warm", type=int, default=0, metavar="N",
                    help="swm and swm1 run the map N more times in their process (a warm "
                         "engine: imports done, fork server running, workers kept from run "
                         "to run as swm-gis serve keeps them) and report the median")
    ap.add_argument("--command", type=int, default=0, metavar="N",
                    help="also time `swm-gis applicability` as a user runs it, a whole fresh "
                         "process (interpreter, imports, fork server), with 1 worker and with "
                         "--workers, N alternating pairs, and report the median speed-up")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--compare-only", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--json", type=Path, help="append the run's figures to this JSON-lines file")
    smoke.add_option(ap)
    args = ap.parse_args()
    if args.smoke and not args.one:
        args.work, args.parcels, args.config = smoke.workspace("applicability"), 400, None
        args.workers, args.chunk_size = 2, 100  # four tiles: the worker pool and Dask do run
        args.command = 1
        args.methods = ",".join(smoke_methods())
    if args.work is None:
        ap.error("--work is required (but with --smoke)")
    args.work.mkdir(parents=True, exist_ok=True)
    if args.one:
        one(args.one, args.config, args.work, args.workers, args.chunk_size, args.warm)
        return
    config = args.config
    if config is None:
        config = args.work / "town.toml"
        if not config.exists():
            sys.path.insert(0, str(HERE))
            from generate_town import generate_in_child

            generate_in_child(args.parcels, args.work)  # not in the runs' peak RSS
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    results = {}
    if args.compare_only:
        for m in methods:
            print(m, compare(args.work, methods).get(m))
        return
    for m in methods:
        load_before = os.getloadavg()[0]
        results[m] = spawn(m, args, config)
        r = results[m]
        r["load_avg_1min"] = [round(load_before, 2), round(os.getloadavg()[0], 2)]
        print(f"{m:>6}: {r['seconds']:9.2f} s work (wall), {r['cpu_s']:9.2f} s CPU, "
              f"{r['process_wall_s']:9.2f} s process, peak RSS {r['peak_rss_mb']:8.1f} MB, "
              f"{r['parcels']:,} parcels, load {r['load_avg_1min'][0]:.1f} -> "
              f"{r['load_avg_1min'][1]:.1f}", flush=True)
    agreement = compare(args.work, methods) if "naive" in methods else {}
    for m, res in agreement.items():
        print(f"{m:>6} vs exact: " + ", ".join(f"{k} {v}" for k, v in res.items()))
    if args.smoke:
        smoke_checks(results, agreement, args.parcels)
    if "swm1" in results:
        one_core = results["swm1"]
        for m in ("swm", "dask"):
            if m in results:
                print(f"{m} ({args.workers} workers) speed-up over 1 worker: wall "
                      f"{one_core['seconds'] / results[m]['seconds']:.2f}x")
                if "warm_seconds" in one_core and "warm_seconds" in results[m]:
                    print(f"{m} ({args.workers} workers) speed-up over 1 worker, warm engine "
                          f"(median of {args.warm}): "
                          f"{one_core['warm_seconds'] / results[m]['warm_seconds']:.2f}x "
                          f"({one_core['warm_seconds']:.2f} s / "
                          f"{results[m]['warm_seconds']:.2f} s)")
    if args.command:
        command_pairs(config, args.work, args.workers, args.chunk_size, args.command)
    if "before" in results:
        old = results["before"]
        for m in ("swm1", "swm", "dask"):
            if m in results:
                print(f"{m} speed-up over the engine before multi-core (--before): wall "
                      f"{old['seconds'] / results[m]['seconds']:.2f}x")
    if "swm" in results:
        base = results["swm"]
        for m, r in results.items():
            if m != "swm":
                print(f"{m} / swm-gis: wall {r['seconds'] / base['seconds']:.1f}x, "
                      f"CPU {r['cpu_s'] / base['cpu_s']:.1f}x, "
                      f"process {r['process_wall_s'] / base['process_wall_s']:.1f}x")
    if args.json:
        with args.json.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps({"parcels": results[methods[0]]["parcels"],
                                 "cpus": os.cpu_count(), "load_avg": os.getloadavg(),
                                 "results": results,
                                 "agreement": agreement}) + "\n")


if __name__ == "__main__":
    main()

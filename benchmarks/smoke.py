"""Smoke mode of the benchmarks: every ``bench_*.py`` run once on a tiny input, so none can rot.

A benchmark that nothing runs breaks silently when the package moves under it (issue 36:
``bench_terrain.py`` and ``bench_screen_dem.py`` did). Each bench takes ``--smoke`` (or the
environment variable ``SWM_GIS_BENCH_SMOKE=1``): a few hundred parcels or a small grid, one
repetition, its own temporary folder (removed at the end, nothing under benchmarks/out/), the
same code paths and imports as a full run, and the answer checked where the bench checks one.
A reference tool that is not installed (QGIS, PostgreSQL + PostGIS, Chromium) is skipped with a
printed ``SMOKE SKIP`` note; under CI (``CI`` set) a missing tool fails instead.

Run every bench in smoke mode (``make bench-smoke``; ``make test`` runs it):

    .venv/bin/python benchmarks/smoke.py            # all of them
    .venv/bin/python benchmarks/smoke.py terrain    # only bench_terrain.py

Each bench runs in a child process with this checkout first on ``PYTHONPATH`` (the tree the
benches live in is the one measured), ``--jobs`` at a time (default 1); any failure, or a bench
that does not finish within ``--timeout`` seconds (its whole process group is then killed),
makes the exit status non-zero. Each bench's wall clock and CPU are printed at the end.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
ENV = "SWM_GIS_BENCH_SMOKE"


def requested() -> bool:
    """Whether the environment asks for smoke mode (``SWM_GIS_BENCH_SMOKE`` set, not 0)."""
    return os.environ.get(ENV, "").strip() not in ("", "0")


def add_option(ap: argparse.ArgumentParser) -> None:
    """``--smoke`` on a bench's parser (on by default when ``SWM_GIS_BENCH_SMOKE=1``)."""
    ap.add_argument("--smoke", action="store_true", default=requested(),
                    help=f"a tiny input, one run, checked answers, a temporary folder (also "
                         f"{ENV}=1); see benchmarks/smoke.py")


def workspace(name: str) -> Path:
    """A fresh temporary folder for one smoke run, removed when the process ends; the flow-grid
    cache of this process and its children goes there too (a smoke run leaves nothing behind)."""
    tmp = tempfile.TemporaryDirectory(prefix=f"swm-bench-smoke-{name}-")
    _KEEP.append(tmp)
    os.environ["SWM_GIS_CACHE_DIR"] = str(Path(tmp.name) / "flow-grid-cache")
    return Path(tmp.name)


_KEEP: list[tempfile.TemporaryDirectory] = []


def skip(note: str) -> None:
    """A reference tool is missing: say so (never silently), or fail under CI."""
    if os.environ.get("CI"):
        raise SystemExit(f"SMOKE FAIL: {note} (CI is set: a smoke run must not skip it)")
    print(f"SMOKE SKIP: {note}", flush=True)


def check(ok: bool, what: str) -> None:
    """Fail the smoke run (exit status 1) unless ``ok``."""
    if not ok:
        raise SystemExit(f"SMOKE FAIL: {what}")
    print(f"smoke check: {what}: ok", flush=True)


def run_bench(script: Path, env: dict[str, str], timeout: float, capture: bool
              ) -> tuple[str, float, float, str]:
    """``script --smoke`` in a child process of its own session: (status, wall s, CPU s of the
    child and the processes it waited for, its output when ``capture``, else "" as it went to
    this terminal). Past ``timeout`` the whole session is killed."""
    with contextlib.ExitStack() as stack:
        out = stack.enter_context(tempfile.TemporaryFile(
            "w+", encoding="utf-8", errors="replace")) if capture else None
        t = time.perf_counter()
        proc = subprocess.Popen([sys.executable, str(script), "--smoke"], env=env, cwd=REPO,
                                stdout=out, stderr=subprocess.STDOUT if capture else None,
                                text=True, start_new_session=True)
        late: list[bool] = []

        def kill() -> None:
            late.append(True)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)

        timer = threading.Timer(timeout, kill)
        timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        timer.cancel()
        wall = time.perf_counter() - t
        code = os.waitstatus_to_exitcode(status)
        verdict = (f"FAILED (no end within {timeout:.0f} s)" if late
                   else "ok" if code == 0 else f"FAILED (exit {code})")
        text = ""
        if out is not None:
            out.seek(0)
            text = out.read()
    return verdict, wall, usage.ru_utime + usage.ru_stime, text


def benches() -> list[Path]:
    return sorted(HERE.glob("bench_*.py"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("only", nargs="*", help="bench names (terrain or bench_terrain.py); "
                                            "default every bench_*.py")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per bench")
    ap.add_argument("--jobs", "-j", type=int, default=1,
                    help="benches run at once (default 1: output as it comes; more: each "
                         "bench's output when it ends)")
    args = ap.parse_args()
    scripts = benches()
    if args.only:
        wanted = {n.removeprefix("bench_").removesuffix(".py") for n in args.only}
        scripts = [s for s in scripts if s.stem.removeprefix("bench_") in wanted]
        unknown = wanted - {s.stem.removeprefix("bench_") for s in scripts}
        if unknown:
            print(f"no such bench: {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
    env = {**os.environ, ENV: "1",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
           "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen")}
    jobs = max(1, args.jobs)
    started, load = time.perf_counter(), os.getloadavg()[0]
    results: dict[str, tuple[str, float, float]] = {}

    def one(script: Path) -> None:
        if jobs == 1:
            print(f"\n=== {script.name} --smoke", flush=True)
        verdict, wall, cpu, text = run_bench(script, env, args.timeout, capture=jobs > 1)
        results[script.name] = (verdict, wall, cpu)
        if jobs > 1:
            print(f"\n=== {script.name} --smoke\n{text.rstrip()}", flush=True)
        print(f"=== {script.name}: {verdict} in {wall:.1f} s", flush=True)

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(one, scripts))
    print(f"\nbenchmark smoke runs, {jobs} at a time: {time.perf_counter() - started:.1f} s "
          f"wall, {sum(r[2] for r in results.values()):.1f} s CPU (load average {load:.1f} -> "
          f"{os.getloadavg()[0]:.1f}):")
    for script in scripts:
        verdict, wall, cpu = results[script.name]
        print(f"  {script.name:28s} {wall:6.1f} s wall {cpu:6.1f} s CPU  {verdict}")
    failed = [name for name, r in results.items() if r[0] != "ok"]
    if failed:
        print(f"FAILED: {', '.join(sorted(failed))}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Run a command as a child process and measure it: wall clock, CPU (user + system) and peak
resident memory, with the load average.

``cpu_s`` and ``own_peak_rss_mb`` are the child's own and those of the children it waited for
(``os.wait4``: exact, no sampling). A process the child starts but never waits for (the local
engine's fork server, whose workers it forks) is not in them, so the processes beneath the
child are also sampled every 50 ms (``psutil``): ``peak_rss_mb`` is the largest RSS of any one
process of the tree, and ``machine_cpu_s`` the CPU time the whole machine spent during the run
(``/proc/stat``: user, nice, system, irq, softirq; on an otherwise idle machine, the tree's CPU).

``settle``: before the clock starts, the data earlier runs left unwritten in the page cache is
written to disk (``os.sync``). A run that writes a large file (the statewide map: 1 GB) leaves
it for the kernel to write back about 30 s later, which in a loop of runs is during the next
run, on the same two cores: the statewide map back to back took 19.6-22.7 s, settled
19.3-19.5 s (benchmarks/README). ``dirty_mb_before`` says how much was waiting.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading
import time
from typing import Any


def machine_cpu_s() -> float:
    """CPU seconds the machine has spent busy since boot (0 where /proc/stat cannot be read)."""
    try:
        with open("/proc/stat", encoding="ascii") as fh:
            v = [int(x) for x in fh.readline().split()[1:8]]
    except OSError:
        return 0.0
    return (v[0] + v[1] + v[2] + v[5] + v[6]) / os.sysconf("SC_CLK_TCK")


def _sample_tree(pid: int, peaks: dict[int, float], stop: threading.Event) -> None:
    """Largest RSS (MB) of each process beneath ``pid`` (and ``pid``), every 50 ms."""
    try:
        import psutil
    except ImportError:  # pragma: no cover - psutil is a test dependency
        return
    while not stop.wait(0.05):
        try:
            root = psutil.Process(pid)
            procs = [root, *root.children(recursive=True)]
        except psutil.Error:
            continue
        for proc in procs:
            try:
                peaks[proc.pid] = max(peaks.get(proc.pid, 0.0), proc.memory_info().rss / 2**20)
            except psutil.Error:
                continue


def dirty_mb() -> float:
    """Data in the page cache waiting to be written to disk (MB; 0 where unknown)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Dirty:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except (OSError, ValueError, IndexError):
        pass
    return 0.0


def measure(cmd: list[str], *, env: dict[str, str] | None = None, cwd: str | None = None,
            settle: bool = False) -> dict[str, Any]:
    """Run ``cmd``; return wall_s, cpu_s, machine_cpu_s, peak_rss_mb, own_peak_rss_mb,
    returncode, output tails, load averages, dirty_mb_before and settled.

    The child's output goes to temporary files (a full pipe cannot stall it). ``settle``: the
    page cache's unwritten data written to disk first, outside the timing (module docstring).
    """
    dirty = dirty_mb()
    if settle:
        os.sync()
    load_before = os.getloadavg()
    peaks: dict[int, float] = {}
    stop = threading.Event()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        busy, t = machine_cpu_s(), time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=out, stderr=err, text=True)
        watcher = threading.Thread(target=_sample_tree, args=(proc.pid, peaks, stop),
                                   daemon=True)
        watcher.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall, busy = time.perf_counter() - t, machine_cpu_s() - busy
        stop.set()
        watcher.join()
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    own_rss = usage.ru_maxrss / 1024
    return {"wall_s": round(wall, 2), "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
            "machine_cpu_s": round(busy, 1),
            "peak_rss_mb": round(max(own_rss, *peaks.values(), 0.0), 1),
            "own_peak_rss_mb": round(own_rss, 1), "returncode": proc.returncode,
            "stdout": stdout[-2000:], "stderr": stderr[-2000:],
            "load_before": [round(v, 2) for v in load_before],
            "load_after": [round(v, 2) for v in os.getloadavg()],
            "dirty_mb_before": dirty, "settled": settle}

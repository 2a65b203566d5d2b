"""Run a command as a child process and measure it: wall clock, CPU (user + system) and the
child's own peak resident memory (``os.wait4``: exact, no sampling), with the load average."""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from typing import Any


def measure(cmd: list[str], *, env: dict[str, str] | None = None, cwd: str | None = None
            ) -> dict[str, Any]:
    """Run ``cmd``; return wall_s, cpu_s, peak_rss_mb, returncode, output tails, load averages.

    The child's output goes to temporary files (a full pipe cannot stall it).
    """
    load_before = os.getloadavg()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    return {"wall_s": round(wall, 2), "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
            "peak_rss_mb": round(usage.ru_maxrss / 1024, 1), "returncode": proc.returncode,
            "stdout": stdout[-2000:], "stderr": stderr[-2000:],
            "load_before": [round(v, 2) for v in load_before],
            "load_after": [round(v, 2) for v in os.getloadavg()]}

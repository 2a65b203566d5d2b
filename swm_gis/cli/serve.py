"""``swm-gis serve``: a warm engine process running jobs sent as JSON lines (the QGIS plugin).

The command is registered in :mod:`swm_gis.cli` (it hands this module the one-shot entry point).

Start-up (Python, geopandas, pyproj, the command line itself) costs more than a small job; a
program that runs many jobs (the QGIS plugin, one per algorithm run) keeps one ``serve``
process and sends it jobs. Protocol, one JSON object per line, UTF-8:

* stdin, a job: ``{"id": "7", "argv": ["--progress", "json", "screen", ...], "cwd": "/tmp/x"}``
  (``argv`` exactly the arguments of a one-shot ``swm-gis`` run; ``cwd`` optional);
  a cancel: ``{"cancel": "7"}``. End of input ends the server.
* stdout: ``{"ready": true, "protocol": 1, "pid": 123}`` once, then per job every line the
  one-shot run would print, as ``{"id": "7", "stream": "err", "line": "{\\"type\\": ...}"}``
  (``stream`` is where the one-shot run prints it), and last
  ``{"id": "7", "done": true, "exit": 0, "error": null, "seconds": 0.8}`` (``error``: the
  job's error message; ``seconds``: how long the job ran in the server).

A job runs in this process through :func:`swm_gis.cli.main`, the one-shot command line's own
entry point, so it writes the same files. The town-wide map's worker processes outlive a job
that ends well, for the next map of the same town (:func:`swm_gis.applicability.pool_start.
keep_workers`), until they have been idle for two minutes or the server ends. Jobs run one at
a time; a failing job (exit 2 and its message) or a malformed line is reported and the server
reads the next one. A cancel (or SIGINT while a job runs) interrupts the job as Ctrl-C does a
one-shot run (exit 130, outputs staged and never half-written); SIGTERM ends the job the same
way, then the server (exit 143). Anything written straight to file descriptor 1 (a C
library's message) goes to stderr, never into the protocol.
"""

from __future__ import annotations

import _thread
import contextlib
import io
import json
import os
import queue
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

#: Protocol version in the ready line; a client checks it before sending jobs.
PROTOCOL = 1

#: Imported once before the first job so that no job pays for them (best effort).
WARM_MODULES = ("pyproj", "shapely", "pyogrio", "pandas", "geopandas", "swm_gis.config.town")


class _Channel:
    """The protocol's output: one JSON object per line on a private copy of stdout."""

    def __init__(self) -> None:
        sys.stdout.flush()
        fd = os.dup(1)
        os.dup2(2, 1)  # whatever else writes to fd 1 lands on stderr, not in the protocol
        self.out = os.fdopen(fd, "w", encoding="utf-8", newline="\n", buffering=1)
        self.lock = threading.Lock()

    def send(self, obj: dict[str, Any]) -> None:
        with self.lock:
            self.out.write(json.dumps(obj, ensure_ascii=False, default=str) + "\n")
            self.out.flush()


class _JobStream(io.TextIOBase):
    """A job's stdout or stderr: each complete line goes out tagged with the job's id."""

    def __init__(self, channel: _Channel, job_id: Any, name: str, errors: list[str]) -> None:
        self.channel, self.job_id, self.stream, self.messages = channel, job_id, name, errors
        self.pending = ""

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8"

    def write(self, text: str) -> int:
        self.pending += text
        *lines, self.pending = self.pending.split("\n")
        for line in lines:
            self.emit(line)
        return len(text)

    def close_job(self) -> None:
        if self.pending:
            self.emit(self.pending)
            self.pending = ""

    def emit(self, line: str) -> None:
        line = line.rstrip("\r")
        if line.startswith('{"type": "error"'):
            with contextlib.suppress(ValueError):
                self.messages.append(str(json.loads(line).get("message", "")))
        elif self.stream == "err" and line.strip() and not line.startswith("{"):
            self.messages.append(line.strip())  # "Interrupted (SIGINT)." and the like
        self.channel.send({"id": self.job_id, "stream": self.stream, "line": line})


class _Inbox:
    """Reads stdin on a thread: jobs into a queue, cancels acted on at once."""

    def __init__(self) -> None:
        self.jobs: queue.Queue = queue.Queue()
        self.lock = threading.Lock()
        self.running: Any = None  # id of the job running now
        self.cancelled: set[str] = set()  # ids cancelled (json-encoded, so 7 and "7" differ)
        self.interrupt_sent_for: Any = None
        # the real stdin, taken now: a job's sys.stdin is an empty stand-in
        threading.Thread(target=self._read, args=(sys.stdin,), daemon=True).start()

    def _read(self, stdin: Any) -> None:
        for number, raw in enumerate(stdin, start=1):
            if raw.strip():
                self._take(number, raw)
        self.jobs.put(None)  # end of input

    def _take(self, number: int, raw: str) -> None:
        try:
            obj = json.loads(raw)
        except ValueError as exc:
            self.jobs.put({"bad": f"line {number} is not JSON ({exc}): {raw.strip()[:200]}"})
            return
        if isinstance(obj, dict) and "cancel" in obj and len(obj) == 1:
            self.cancel(obj["cancel"])
            return
        self.jobs.put(obj)

    def cancel(self, job_id: Any) -> None:
        with self.lock:
            self.cancelled.add(json.dumps(job_id))
            if self.running is not None and json.dumps(self.running) == json.dumps(job_id):
                self.interrupt_sent_for = job_id
                _thread.interrupt_main(signal.SIGINT)  # as Ctrl-C: the job's handler unwinds

    def start(self, job_id: Any) -> bool:
        """Mark ``job_id`` running; False when it was cancelled before it started."""
        with self.lock:
            if json.dumps(job_id) in self.cancelled:
                return False
            self.running = job_id
            return True

    def finish(self) -> None:
        with self.lock:
            self.running = None


def _job_problem(job: Any) -> str | None:
    """Why ``job`` is not a job (None when it is one)."""
    if not isinstance(job, dict):
        return f"a job is a JSON object, got {type(job).__name__}"
    if "id" not in job:
        return 'the job has no "id"'
    argv = job.get("argv")
    if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
        return '"argv" must be a list of strings (the arguments of a one-shot swm-gis run)'
    command = argv[2:3] if argv[:1] == ["--progress"] else argv[:1]
    if command == ["serve"]:
        return "a job cannot start another server"
    cwd = job.get("cwd")
    if cwd is not None and not (isinstance(cwd, str) and os.path.isdir(cwd)):
        return f'"cwd" is not a folder: {cwd!r}'
    return None


def _test_pause(between: _Between) -> None:
    """Tests only: while the file ``SWM_GIS_TEST_JOB_PAUSE_FILE`` names exists, a job waits
    before it starts, having written the server's pid to that name + ``.paused`` (so a test can
    stop the server in the middle of a job)."""
    path = os.environ.get("SWM_GIS_TEST_JOB_PAUSE_FILE")
    if not path or not os.path.exists(path):
        return
    with open(path + ".paused.tmp", "w", encoding="utf-8") as fh:
        fh.write(str(os.getpid()))
    os.replace(path + ".paused.tmp", path + ".paused")
    while os.path.exists(path):
        between.check()
        time.sleep(0.05)


def _run_job(channel: _Channel, inbox: _Inbox, between: _Between, job: dict[str, Any],
             main: Callable[[list[str]], int]) -> int:
    """Run one job with ``main``, the one-shot command line's entry point; its exit code."""
    from swm_gis.errors import Interrupted

    job_id, errors = job["id"], []
    out = _JobStream(channel, job_id, "out", errors)
    err = _JobStream(channel, job_id, "err", errors)
    saved = sys.stdout, sys.stderr, sys.stdin, os.getcwd()
    sys.stdout, sys.stderr, sys.stdin = out, err, io.StringIO("")
    code, started = 1, time.perf_counter()
    try:
        if not inbox.start(job_id):
            print("Cancelled before it started.", file=err)
            code = 130
        else:
            if job.get("cwd"):
                os.chdir(job["cwd"])
            _test_pause(between)
            between.check()  # a cancel before main() has its handlers
            code = main(list(job["argv"]))
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except KeyboardInterrupt as exc:  # a cancel landing outside main()'s own handlers
        print(str(exc) if isinstance(exc, Interrupted) else "Interrupted (SIGINT).", file=err)
        code = getattr(exc, "exit_code", 130)
    except Exception:  # noqa: BLE001 - an engine bug ends the job, never the server
        traceback.print_exc(file=err)
        code = 1
    finally:
        inbox.finish()
        between.cancel = False
        out.close_job()
        err.close_job()
        sys.stdout, sys.stderr, sys.stdin = saved[:3]
        os.chdir(saved[3])
    channel.send({"id": job_id, "done": True, "exit": code,
                  "error": (errors[-1] if errors else None) if code else None,
                  "seconds": round(time.perf_counter() - started, 3)})
    return code


def _warm_up() -> None:
    import importlib

    for name in WARM_MODULES:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)


class _Between:
    """SIGINT and SIGTERM between jobs (a job's own handlers are the one-shot run's): noted,
    never raised, so no interrupt lands in the server's own code. A SIGINT that is a cancel sent
    as its job was ending is dropped; any other ends the server once the current line is done."""

    def __init__(self, inbox: _Inbox) -> None:
        self.inbox, self.got, self.cancel = inbox, 0, False

    def __call__(self, signum: int, frame: object) -> None:
        if signum == signal.SIGINT and self.inbox.running is not None:
            self.cancel = True  # a job about to start: it ends at once (see _run_job)
            return
        if signum == signal.SIGINT and self.inbox.interrupt_sent_for is not None:
            self.inbox.interrupt_sent_for = None
            return
        self.got = self.got or signum

    def check(self) -> None:
        """Raise the cancel noted for the job that is starting."""
        if self.cancel:
            self.cancel = False
            raise KeyboardInterrupt

    def install(self) -> dict[int, Any]:
        if threading.current_thread() is not threading.main_thread():
            return {}
        return {s: signal.signal(s, self) for s in (signal.SIGINT, signal.SIGTERM)}


def _next(inbox: _Inbox, between: _Between) -> Any:
    """The next line's job; None at end of input or when a signal ends the server. The town-wide
    map's workers kept from the last job stop once idle for too long (pool_start.keep_workers)."""
    from swm_gis.applicability.pool_start import release_idle_workers

    while not between.got:
        try:
            return inbox.jobs.get(timeout=0.2)
        except queue.Empty:
            release_idle_workers()
            continue
    return None


def serve_loop(main: Callable[[list[str]], int]) -> int:
    """Read jobs until end of input and run each with ``main`` (:func:`swm_gis.cli.main`, the
    one-shot entry point, handed over by the ``serve`` command); the server's exit code."""
    from swm_gis.applicability.pool_start import keep_workers
    from swm_gis.errors import Interrupted

    channel, inbox = _Channel(), _Inbox()
    between = _Between(inbox)
    previous = between.install()
    keep_workers()  # a map's workers serve the next map of the town too
    try:
        channel.send({"ready": True, "protocol": PROTOCOL, "pid": os.getpid()})
        _warm_up()
        while (job := _next(inbox, between)) is not None:
            problem = job["bad"] if isinstance(job, dict) and "bad" in job else _job_problem(job)
            if problem:
                channel.send({"id": job.get("id") if isinstance(job, dict) else None,
                              "done": True, "exit": 2,
                              "error": f"swm-gis serve: not a job: {problem}."})
                continue
            _run_job(channel, inbox, between, job, main)
            inbox.interrupt_sent_for = None  # its interrupt, if any, has been handled
            last, Interrupted.last = Interrupted.last, None  # no job's interrupt outlives it
            if last is not None and last.signum == signal.SIGTERM:
                between.got = signal.SIGTERM
    finally:
        keep_workers(None)  # the kept workers, if any, end with the server
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if between.got:  # the command line says it in one line and exits 130 / 143
        raise Interrupted(f"Interrupted ({signal.Signals(between.got).name}).",
                          signum=between.got)
    return 0

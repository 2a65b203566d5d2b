"""One warm ``swm-gis serve`` engine per QGIS session, so a run does not pay the engine's start.

The engine's ``serve`` command reads jobs as JSON lines (``{"id", "argv", "cwd"}``: the very
arguments of a one-shot run, run by the one-shot command line's own code, so the outputs are the
same) and answers with the one-shot run's lines tagged with the job's id, then a ``done`` line.
This module starts it on the first run, keeps it for the next ones, restarts it when it died or
when the engine or its environment changed, and says "use the one-shot process" (returns None)
when it is turned off (:data:`ENV_WARM` = 0, or the provider's setting), busy with another run,
or cannot start (an engine without ``serve``). A cancel is sent as ``{"cancel": id}``; an engine
that does not stop within :data:`engine.TERMINATE_GRACE_S` is stopped with its children. An
engine that dies during a run is a clear :class:`engine.EngineError`; the next run starts a new
one. The process ends when QGIS exits or the plugin is unloaded (:func:`shutdown`).
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import json
import os
import queue
import signal
import subprocess
import threading
import time
from typing import Any

from . import engine as _engine

#: Environment variable that turns the warm engine off (``0``, ``false``, ``no``, ``off``).
ENV_WARM = "SWM_GIS_WARM_ENGINE"
#: Processing setting (Settings > Options > Processing > Providers > swm-gis) doing the same.
SETTING_WARM = "SWM_GIS_WARM_ENGINE"
#: The ``serve`` protocol this plugin speaks.
PROTOCOL = 1
#: How long a starting engine may take to say it is ready before the one-shot process is used.
READY_TIMEOUT_S = 60.0

_OFF = ("0", "false", "no", "off")
_ids = itertools.count(1)
_lock = threading.Lock()  # one run at a time on the warm engine; another run goes one-shot
_current: WarmEngine | None = None
_refused: dict[tuple, str] = {}  # engine + environment -> why its warm engine could not start


class WarmUnavailable(Exception):
    """The engine did not start as a server (an older engine, a stand-in, a crash at start)."""


def enabled() -> bool:
    """On unless :data:`ENV_WARM` or the provider's setting turns it off."""
    if os.environ.get(ENV_WARM, "").strip().lower() in _OFF:
        return False
    try:
        from processing.core.ProcessingConfig import ProcessingConfig
    except ImportError:
        return True
    try:
        value = ProcessingConfig.getSetting(SETTING_WARM)
    except Exception:  # noqa: BLE001 - an unregistered setting reads as unset
        return True
    return str(value).strip().lower() not in _OFF  # unset (None) or ticked: on


class WarmEngine:
    """A running ``swm-gis serve`` process and the lines it sends."""

    def __init__(self, exe: str, env: dict[str, str], key: tuple) -> None:
        self.key = key
        self.last_seconds: float | None = None  # how long the last job ran in the engine
        kw = _engine.own_group_kw()
        self.proc = subprocess.Popen(
            [exe, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, encoding="utf-8", errors="replace", bufsize=1,
            env=env, **kw)
        self.q: queue.Queue = queue.Queue()
        for name, stream in (("out", self.proc.stdout), ("err", self.proc.stderr)):
            threading.Thread(target=_read, args=(stream, name, self.q), daemon=True).start()
        self._wait_ready()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            try:
                name, line = self.q.get(timeout=0.1)
            except queue.Empty:
                continue
            obj = _engine._parse(line) if line is not None else None
            if name == "out" and obj and obj.get("ready") and obj.get("protocol") == PROTOCOL:
                return
            if line is None or name == "out" or (obj and obj.get("type")):
                self.stop()  # it ended, printed something else, or is running a job itself
                raise WarmUnavailable(f"{line or 'no output'} (exit code {self.proc.poll()})")
        self.stop()
        raise WarmUnavailable(f"not ready after {READY_TIMEOUT_S:.0f} s")

    def stop(self) -> None:
        """End the server: end of input, then (if it is still running) as cancel stops a run."""
        if self.proc.stdin is not None:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(1.0)
        _engine._stop(self.proc)

    def _send(self, obj: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(obj) + "\n")
        self.proc.stdin.flush()

    def run(self, argv: list[str], feedback: Any, cwd: str | None,
            progress_range: tuple[float, float]) -> tuple[Any, int]:
        """Run one job; returns the run (its result, error, lines) and the job's exit code."""
        job_id = str(next(_ids))
        run = _engine._Run(self.proc, feedback, progress_range)
        while not self.q.empty():  # what the engine said between jobs belongs to none
            self.q.get_nowait()
        try:
            self._send({"id": job_id, "argv": argv, "cwd": cwd})
        except OSError:
            raise self._died(run) from None
        cancelled_at: float | None = None
        while True:
            if cancelled_at is None and feedback is not None and feedback.isCanceled():
                cancelled_at = time.monotonic()
                with contextlib.suppress(OSError):
                    self._send({"cancel": job_id})
            if cancelled_at is not None and time.monotonic() - cancelled_at > \
                    _engine.TERMINATE_GRACE_S:
                self.stop()
                raise _engine.EngineCanceled("Cancelled: the swm-gis engine was stopped.")
            try:
                name, line = self.q.get(timeout=0.1)
            except queue.Empty:
                continue
            if line is None:
                if name == "out":
                    raise self._died(run)
                continue
            if name == "err":  # the server's own stderr (a C library's message): the log
                run.dispatch("err", line)
                continue
            obj = _engine._parse(line)
            if not obj or obj.get("id") != job_id:
                continue
            if obj.get("done"):
                self.last_seconds = obj.get("seconds")
                if cancelled_at is not None:
                    raise _engine.EngineCanceled("Cancelled: the swm-gis engine was stopped.")
                return run, int(obj.get("exit", 1))
            run.dispatch("out" if obj.get("stream") == "out" else "err", str(obj.get("line", "")))

    def _died(self, run: Any) -> _engine.EngineError:
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(_engine.TERMINATE_GRACE_S)
        _engine._stop(self.proc)
        code = self.proc.returncode
        how = (f"it was killed by {signal.Signals(-code).name}" if code is not None and code < 0
               and -code in signal.Signals._value2member_map_ else f"exit code {code}")
        tail = " ".join(line.strip() for line in run.other_err[-3:])
        return _engine.EngineError(
            f"The swm-gis engine stopped unexpectedly during this run ({how}), so it has no "
            "results. Run the algorithm again: the next run starts a new engine."
            + (f" Its last words: {tail}" if tail else ""))


def _read(stream: Any, name: str, q: queue.Queue) -> None:
    """The engine's lines into ``q``, then ``(name, None)``; the stream is closed at its end."""
    try:
        _engine._reader(stream, name, q)
    finally:
        with contextlib.suppress(OSError, ValueError):
            stream.close()


def _key(exe: str, env: dict[str, str]) -> tuple:
    """What a warm engine is good for: this executable, as it is on disk, with this environment."""
    try:
        st = os.stat(exe)
        stamp: tuple = (st.st_mtime_ns, st.st_size)
    except OSError:
        stamp = ()
    return (exe, stamp, tuple(sorted(env.items())))


def _engine_for(exe: str) -> WarmEngine | None:
    """The running warm engine for ``exe`` (started or restarted as needed); None if it can't."""
    global _current
    env = _engine.engine_environment()
    key = _key(exe, env)
    if key in _refused:
        return None
    if _current is not None and (_current.key != key or not _current.alive()):
        _current.stop()
        _current = None
    if _current is None:
        try:
            _current = WarmEngine(exe, env, key)
        except (WarmUnavailable, OSError) as exc:
            _refused[key] = str(exc)
            return None
    return _current


def run(exe: str, argv: list[str], feedback: Any, cwd: str | None,
        progress_range: tuple[float, float]) -> tuple[Any, int] | None:
    """Run ``argv`` on the warm engine: (the run, its exit code); None to run it one-shot."""
    if not enabled() or not _lock.acquire(blocking=False):
        return None
    try:
        warm = _engine_for(exe)
        if warm is None:
            return None
        _engine.run_engine.last_pid = warm.pid  # type: ignore[attr-defined]
        return warm.run(argv, feedback, cwd, progress_range)
    finally:
        _lock.release()


def current_pid() -> int | None:
    """The warm engine's process id (None when none runs): for tests and diagnostics."""
    return _current.pid if _current is not None and _current.alive() else None


def shutdown() -> None:
    """Stop the warm engine (QGIS exits, the plugin is unloaded)."""
    global _current
    held = _lock.acquire(timeout=2 * _engine.TERMINATE_GRACE_S)  # a run ending: let it end
    try:
        if _current is not None:
            _current.stop()
            _current = None
        _refused.clear()
    finally:
        if held:
            _lock.release()


atexit.register(shutdown)

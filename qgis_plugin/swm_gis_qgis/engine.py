"""Find and run the ``swm-gis`` engine in its own process.

The plugin never imports the swm_gis library (nor geopandas, shapely, pyproj): pip wheels that
vendor their own GEOS/PROJ/GDAL clash with QGIS's native libraries inside QGIS's interpreter
(seen: an abort at exit in ``qgis_process``, GEOSException on ``from_wkb``). Like QGIS's GRASS,
SAGA and Whitebox providers, the algorithms run the engine as an external program and talk to it
through files and the ``--progress json`` channel:

* stderr: one JSON object per line, ``{"type": "progress", "fraction": 0.4, "message": ".."}``,
  ``{"type": "info", "message": ".."}``, ``{"type": "error", "message": "..", "exit_code": 2}``;
* stdout: a final ``{"type": "result", "command": "..", "outputs": {..}}``.

This module has no QGIS import at module level beyond the feedback object it is handed, so it can
be read (and tested) on its own.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

#: Processing setting (Settings > Options > Processing > Providers > swm-gis) and environment
#: variable that name the engine executable.
SETTING_EXECUTABLE = "SWM_GIS_EXECUTABLE"
ENV_EXECUTABLE = "SWM_GIS_EXECUTABLE"
ENGINE_NAME = "swm-gis"

def options_path(platform: str | None = None) -> str:
    """The menu path of the provider's settings in the running QGIS (3.22 has no
    "Processing > Options" menu: the Processing options are a page of the Options dialog)."""
    platform = platform or sys.platform
    start = "QGIS > Preferences" if platform == "darwin" else "Settings > Options"
    return f"{start} > Processing > Providers > swm-gis"


#: The algorithm that installs the engine from the wheel the plugin carries, and where the
#: Processing Toolbox lists it.
SETUP_ALGORITHM = "Set up the swm-gis engine"
SETUP_GROUP = "Engine set-up"
SETUP_PATH = f"Processing Toolbox > swm-gis > {SETUP_GROUP}"
#: What the set-up installs, measured (docs/qgis.md "Engine set-up"): the engine's environment
#: holds 51 packages taking 1,133 MB (llvmlite 180 MB, pyarrow 176 MB, scipy 143 MB, rasterio
#: 111 MB and pyogrio 106 MB with the GDAL they carry, ...), and a set-up from a fresh profile
#: took 2 min 18 s.
SETUP_SIZE = "about 1.2 GB"
SETUP_TIME = "2 to 3 minutes with a fast connection"

#: How to install the engine, in one sentence (messages, help).
INSTALL_HOW = (
    f"Run '{SETUP_ALGORITHM}' ({SETUP_PATH}, or Plugins > swm-gis) "
    "once: it installs the engine the plugin carries into a Python environment of its own, "
    "downloading its dependencies."
)


def missing_message(platform: str | None = None) -> str:
    """What the dialog says when the engine is not there: two sentences."""
    return (f"The swm-gis engine is not set up yet: run '{SETUP_ALGORITHM}' ({SETUP_PATH}) "
            f"once to install it from this plugin ({SETUP_SIZE}). If it is "
            f"installed elsewhere, set its path in {options_path(platform)} > 'swm-gis "
            f"executable' (or {ENV_EXECUTABLE} for qgis_process and scripts).")


#: How long to wait for the engine to stop after a polite terminate before killing it.
TERMINATE_GRACE_S = 3.0


class EngineError(Exception):
    """The engine is missing, failed, or reported a user error; the message is for the user.

    ``parts`` is the engine's message as plain text and references (its ``--progress json``
    error event: strings, ``{"option": name, "metavar": m}``, ``{"key": section, "name": key}``,
    ``{"config": ""}``), so the plugin words each reference in the dialog's vocabulary; ``kind``
    is the engine's error class (``"OwnerJoinError"``), '' when the engine gave none;
    ``details`` its figures (``{"ownable": 5, "examples": [...]}``), read without parsing words.
    """

    def __init__(self, message: str, *, parts: list | None = None, kind: str = "",
                 details: dict | None = None) -> None:
        super().__init__(message)
        self.parts: list = list(parts) if parts else [str(message)]
        self.kind = kind
        self.details: dict = dict(details or {})


class EngineCanceled(EngineError):
    """The user cancelled the algorithm; the engine process (and its children) were stopped."""


# --------------------------------------------------------------------------- finding the engine
def configured_executable() -> str:
    """The path set in the provider's Processing settings ('' when unset or unavailable)."""
    try:
        from processing.core.ProcessingConfig import ProcessingConfig
    except ImportError:  # the Processing plugin is not loaded (plain PyQGIS scripts)
        return ""
    try:
        value = ProcessingConfig.getSetting(SETTING_EXECUTABLE)
    except Exception:  # noqa: BLE001 - an unregistered setting reads as unset
        return ""
    return str(value or "").strip()


def _candidates() -> list[tuple[str, str]]:
    """(where it came from, path) in the order they are tried."""
    out: list[tuple[str, str]] = []
    setting = configured_executable()
    if setting:
        out.append(("the Processing setting 'swm-gis executable'", setting))
    env = os.environ.get(ENV_EXECUTABLE, "").strip()
    if env:
        out.append((f"the {ENV_EXECUTABLE} environment variable", env))
    on_path = shutil.which(ENGINE_NAME)
    if on_path:
        out.append(("PATH", on_path))
    try:  # where 'Set up the swm-gis engine' installs it by default
        from .installer import default_home, venv_engine

        out.append(("the engine set up by the plugin", str(venv_engine(default_home()))))
    except Exception:  # noqa: BLE001 - no profile folder: not a candidate
        pass
    if sys.executable:  # a venv's bin/ (unresolved), then the real interpreter's folder
        folders = dict.fromkeys([Path(sys.executable).parent,
                                 Path(sys.executable).resolve().parent])
        for here in folders:
            for name in (ENGINE_NAME, f"{ENGINE_NAME}.exe", f"Scripts/{ENGINE_NAME}.exe"):
                out.append(("the folder of the Python interpreter", str(here / name)))
    return out


def find_engine() -> str:
    """Full path of the ``swm-gis`` executable; :class:`EngineError` with install help if none.

    Order: the Processing setting, the ``SWM_GIS_EXECUTABLE`` environment variable, ``PATH``,
    the folder of ``sys.executable``. An explicitly set path that does not exist is an error of
    its own (rather than silently falling back), so a typo in the setting is seen.
    """
    for origin, path in _candidates():
        p = Path(path).expanduser()
        if p.is_file() and os.access(p, os.X_OK):
            return str(p)
        if origin != "PATH" and not origin.startswith(("the folder", "the engine set up")):
            raise EngineError(
                f"The swm-gis executable set in {origin} does not exist or is not executable: "
                f"{path}. Correct it ({options_path()} > 'swm-gis executable'), or clear it "
                f"to use the engine '{SETUP_ALGORITHM}' installs."
            )
    raise EngineError(missing_message())


def engine_environment() -> dict[str, str]:
    """The environment for the engine: QGIS's own Python settings removed.

    QGIS sets PYTHONPATH/PYTHONHOME for its embedded interpreter (always on Windows and macOS);
    handed to the engine they would make its Python load QGIS's modules instead of its own.
    """
    env = dict(os.environ)
    for key in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONEXECUTABLE"):
        env.pop(key, None)
    env["PYTHONIOENCODING"] = "utf-8"
    env["PYTHONUNBUFFERED"] = "1"
    return env


# --------------------------------------------------------------------------- running it
def _reader(stream: Any, name: str, q: queue.Queue) -> None:
    try:
        for line in iter(stream.readline, ""):
            q.put((name, line.rstrip("\r\n")))
    finally:
        q.put((name, None))


def _stop(proc: subprocess.Popen) -> None:
    """Terminate the engine and everything it started (its own process group/session)."""
    if proc.poll() is not None:
        return
    try:
        if os.name == "posix":
            os.killpg(proc.pid, signal.SIGTERM)
        else:
            proc.terminate()
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(TERMINATE_GRACE_S)
    except subprocess.TimeoutExpired:
        try:
            if os.name == "posix":
                os.killpg(proc.pid, signal.SIGKILL)
            else:
                proc.kill()
        except (ProcessLookupError, PermissionError):
            pass
        proc.wait()
    if os.name == "posix":  # children that ignored SIGTERM
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)


def own_group_kw() -> dict[str, Any]:
    """``subprocess.Popen`` keywords that start the engine in a process group of its own (so a
    cancel stops its children), with no console window on Windows; the one-shot and the warm
    engine alike."""
    if os.name == "posix":
        return {"start_new_session": True}
    return {"creationflags": (getattr(subprocess, "CREATE_NO_WINDOW", 0)  # pragma: no cover
                              | getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0))}


def _start(cmd: list[str], cwd: str | None) -> subprocess.Popen:
    """The engine process, in a process group of its own (so cancel stops its children)."""
    popen_kw = own_group_kw()
    try:
        return subprocess.Popen(
            cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, encoding="utf-8", errors="replace", bufsize=1, cwd=cwd,
            env=engine_environment(), **popen_kw,
        )
    except OSError as exc:
        raise EngineError(f"Could not start the swm-gis engine {cmd[0]}: {exc}. "
                          f"{missing_message()}") from exc


class _Run:
    """One engine run: reads its two streams, hands each event to the feedback, keeps the
    result, the error event and the other lines (for a failure without an error event)."""

    def __init__(self, proc: subprocess.Popen, feedback: Any,
                 progress_range: tuple[float, float]) -> None:
        self.proc = proc
        self.feedback = feedback
        self.lo, self.hi = progress_range
        self.result: dict[str, Any] | None = None
        self.error: dict[str, Any] | None = None
        self.other_err: list[str] = []
        self.other_out: list[str] = []
        self.q: queue.Queue = queue.Queue()

    def read(self) -> None:
        """Until both streams close and the process ends; :class:`EngineCanceled` on cancel."""
        for name, stream in (("out", self.proc.stdout), ("err", self.proc.stderr)):
            threading.Thread(target=_reader, args=(stream, name, self.q), daemon=True).start()
        open_streams = 2
        while open_streams:
            self.check_cancel()
            try:
                name, line = self.q.get(timeout=0.1)
            except queue.Empty:
                continue
            if line is None:
                open_streams -= 1
            else:
                self.dispatch(name, line)
        while self.proc.poll() is None:
            self.check_cancel()
            time.sleep(0.05)

    def check_cancel(self) -> None:
        if self.feedback is not None and self.feedback.isCanceled():
            _stop(self.proc)
            raise EngineCanceled("Cancelled: the swm-gis engine was stopped.")

    def dispatch(self, name: str, line: str) -> None:
        obj = _parse(line)
        kind = obj.get("type") if obj else None
        if kind == "error":
            self.error = obj
        elif kind == "result":
            self.result = obj
        elif kind in ("progress", "info"):
            if self.feedback is not None:
                getattr(self, kind)(obj)
        elif line.strip():
            (self.other_out if name == "out" else self.other_err).append(line)
            if self.feedback is not None:
                self.feedback.pushConsoleInfo(line)

    def progress(self, obj: dict[str, Any]) -> None:
        frac = float(obj.get("fraction") or 0.0)
        self.feedback.setProgress(self.lo + (self.hi - self.lo) * max(0.0, min(1.0, frac)))
        if obj.get("message"):
            self.feedback.setProgressText(str(obj["message"]))

    def info(self, obj: dict[str, Any]) -> None:
        """An info line; with its parts to a feedback that words them (``pushEngineInfo``)."""
        message, parts = str(obj.get("message", "")), obj.get("parts")
        hook = getattr(self.feedback, "pushEngineInfo", None)
        if hook is not None and isinstance(parts, list):
            hook(message, parts)
        else:
            self.feedback.pushInfo(message)

    def failure(self, code: int) -> EngineError:
        """The error of exit ``code``: the engine's error event, else its last lines."""
        if self.error and self.error.get("message"):
            parts, details = self.error.get("parts"), self.error.get("details")
            return EngineError(str(self.error["message"]),
                               parts=parts if isinstance(parts, list) else None,
                               kind=str(self.error.get("error") or ""),
                               details=details if isinstance(details, dict) else None)
        # the last lines say what went wrong; the command line itself is for the engine log
        # (pushCommandInfo), not for the person reading the dialog
        tail = " ".join(line.strip() for line in (self.other_err or self.other_out)[-3:])
        return EngineError(f"The swm-gis engine stopped with an error (exit code "
                           f"{code}): {tail}".rstrip(": "))


def run_engine(args: list[str], feedback: Any = None, *, executable: str | None = None,
               cwd: str | None = None, progress_range: tuple[float, float] = (0.0, 100.0),
               ) -> dict[str, Any]:
    """Run ``swm-gis --progress json ARGS``; return its result object.

    The run goes to the session's warm engine (:mod:`.warm`, the same command line run by a
    ``swm-gis serve`` process kept between runs), else to a process of its own.
    Progress lines go to ``feedback.setProgress`` (scaled into ``progress_range`` percent) and
    ``feedback.setProgressText``, info lines to ``feedback.pushInfo``. When
    ``feedback.isCanceled()`` turns true the run is stopped (the one-shot engine's process group
    is terminated) and :class:`EngineCanceled` is raised. A non-zero exit raises
    :class:`EngineError` carrying the engine's own error message (the one-paragraph message the
    command line prints), its parts and its error class.
    """
    from . import warm

    exe = executable or find_engine()
    cmd = [exe, "--progress", "json", *[str(a) for a in args]]
    if feedback is not None:
        feedback.pushCommandInfo(" ".join(shlex.quote(c) for c in cmd))
    outcome = warm.run(exe, cmd[1:], feedback, cwd, progress_range)
    run, code = outcome if outcome is not None else _run_once(cmd, feedback, cwd, progress_range)
    if code != 0:
        raise run.failure(code)
    if run.result is None:
        raise EngineError(
            "The swm-gis engine finished without reporting its outputs (no JSON result line on "
            f"stdout). Is {exe} an swm-gis version with --progress json? Output was:\n"
            + "\n".join(run.other_out[-10:])
        )
    return run.result


def _run_once(cmd: list[str], feedback: Any, cwd: str | None,
              progress_range: tuple[float, float]) -> tuple[_Run, int]:
    """``cmd`` in a process of its own: the run and its exit code."""
    proc = _start(cmd, cwd)
    run_engine.last_pid = proc.pid  # type: ignore[attr-defined]  # for tests and diagnostics
    run = _Run(proc, feedback, progress_range)
    try:
        run.read()
    finally:
        if proc.poll() is None:
            _stop(proc)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    return run, proc.returncode


def _parse(line: str) -> dict[str, Any] | None:
    s = line.strip()
    if not (s.startswith("{") and s.endswith("}")):
        return None
    try:
        obj = json.loads(s)
    except ValueError:
        return None
    return obj if isinstance(obj, dict) else None

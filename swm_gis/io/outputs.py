"""Output safety: inputs stay read-only, packages are written whole or not at all, one run each.

* :func:`refuse_inputs` refuses an output that is, is inside, or contains an input (symlinks and
  hard links resolved), before anything is written; ``overwrite=True`` never overrides it.
* :func:`staged_dir` assembles a package in a hidden folder beside the target and moves it into
  place at the end, keeping the previous files until every new one is in (and putting them back if
  a move fails): a crash or interruption leaves the previous outputs intact and no temporaries.
* :func:`output_lock` lets one run at a time write an output; the second is refused naming the
  first (pid, host, command, start) or waits up to ``wait_s``. The lock is an OS file lock
  (``filelock``), so a killed process cannot leave it held.
* :func:`interrupt_guard` turns SIGINT and SIGTERM into :class:`~swm_gis.errors.Interrupted`
  (exit 130 / 143) so the clean-up above runs, with the one line "Interrupted (SIGTERM): nothing
  was written to DIR."
* :func:`explain_os_errors` turns a read-only folder or a full disk into an
  :class:`~swm_gis.errors.OutputError` that says so.

:func:`output_package` and :func:`output_file` combine them for a command::

    with output_package(out_dir, inputs=config_inputs(cfg), overwrite=overwrite,
                        command="swm-gis abutters") as stage:
        write_json(document, stage / "abutters.json")
        ...

This module imports nothing heavy (filelock is pure Python) so that it is cheap in every command and
in tests.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import json
import os
import shutil
import signal
import socket
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from types import MappingProxyType
from typing import Any

from filelock import FileLock, Timeout

from swm_gis.errors import Interrupted, OutputError, OutputExistsError, OutputLockedError
from swm_gis.messages import option

LOCK_SUFFIX = ".swm-gis.lock"
STAGE_MARK = ".swm-gis-stage-"
#: Files SQLite/GDAL may leave beside a GeoPackage; never part of a package.
_SIDE_FILES = ("-journal", "-wal", "-shm")
#: The output option, as messages name it (the command line: ``--out``).
OUT = option("out")
_CONNECTION_PREFIXES = ("PG:", "postgresql://", "postgres://", "MSSQL:", "OCI:", "/vsicurl/",
                        "http://", "https://")
#: Companion files of a shapefile: writing over any of them damages the input.
_SHAPEFILE_PARTS = (".shp", ".shx", ".dbf", ".prj", ".cpg", ".sbn", ".sbx", ".qix", ".shp.xml")
#: Below this much free space a failed write is reported as a full disk.
LOW_DISK_BYTES = 1 << 20


# --------------------------------------------------------------------------- inputs read-only
def refuse_inputs(out_path: str | os.PathLike, inputs: Iterable[str | os.PathLike | None], *,
                  what: str = OUT) -> None:
    """Raise :class:`OutputError` when ``out_path`` is, is inside, or contains any input.

    ``what`` names the output in the message (by default the ``out=`` option, by reference).
    ``inputs`` are files or folders (``path.gpkg:layer`` and ``/vsizip/`` forms are reduced to
    their file; database connections are skipped). Symbolic links are resolved, and an existing
    output that is a hard link to an input counts as that input.
    """
    out = _real(out_path)
    for given in inputs:
        for inp in _input_paths(given):
            relation = _relation(out, inp)
            if relation:
                err = OutputError(
                    f"The output {out_path} ({what}) {relation} the input {inp}; inputs are never "
                    "written to or deleted. Choose an output outside every input (for example a "
                    f"new folder beside the data); {option('overwrite')} does not change this."
                )
                # for front ends, which word it themselves (--progress json "details")
                err.details = MappingProxyType({"output": str(out_path), "relation": relation,
                                                "input": inp})
                raise err


def config_inputs(config: Any) -> list[str]:
    """Every input a town config names: the config file and each layer's source(s)."""
    found: list[str] = []
    if getattr(config, "path", None):
        found.append(str(config.path))
    for spec in getattr(config, "layers", {}).values():
        paths = spec.path if isinstance(spec.path, list | tuple) else [spec.path]
        found.extend(str(p) for p in paths)
    return found


def _input_paths(given: str | os.PathLike | None) -> list[str]:
    if given is None:
        return []
    text = os.fspath(given)
    if not text or text.startswith(_CONNECTION_PREFIXES):
        return []
    if text.startswith("/vsizip/"):
        text = text[len("/vsizip/"):].split(".zip", 1)[0] + ".zip"
    if not os.path.exists(text):
        head, sep, _ = text.rpartition(":")
        if sep and len(head) > 1 and os.path.exists(head):  # path.gpkg:layer
            text = head
    paths = [_real(text)]
    stem, suffix = os.path.splitext(paths[0])
    if suffix.lower() == ".shp":
        paths += [stem + part for part in _SHAPEFILE_PARTS[1:]]
    return paths


def _real(path: str | os.PathLike) -> str:
    return os.path.realpath(os.path.abspath(os.path.expanduser(os.fspath(path))))


def _relation(out: str, inp: str) -> str | None:
    if out == inp or _same_file(out, inp):
        return "is"
    if _inside(out, inp):
        return "is inside"
    if _inside(inp, out):
        return "contains"
    return None


def _inside(child: str, parent: str) -> bool:
    try:
        return os.path.commonpath([child, parent]) == parent and child != parent
    except ValueError:  # different drives on Windows
        return False


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


# --------------------------------------------------------------------------- one run per output
def beside(target: str | os.PathLike) -> Path:
    """Where an output's lock and staging folder go: its parent folder, or inside the output
    folder itself when that exists and the parent cannot be written (``out="."`` in a home
    folder whose parent is the system's). The rename into place stays on one file system."""
    target = Path(_real(target))
    parent = target.parent
    if target.is_dir() and parent.exists() and not os.access(parent, os.W_OK | os.X_OK):
        return target
    return parent


def lock_path_for(target: str | os.PathLike) -> Path:
    """The lock file of an output: hidden, beside it."""
    target = Path(_real(target))
    return beside(target) / f".{target.name}{LOCK_SUFFIX}"


@contextlib.contextmanager
def output_lock(target: str | os.PathLike, *, command: str, wait_s: float = 0.0,
                poll_s: float = 0.1) -> Iterator[Path]:
    """Hold the lock of ``target`` for the block; yields the lock file's path.

    A second run is refused at once (``wait_s=0``) or after waiting ``wait_s`` seconds, with
    :class:`OutputLockedError` naming the run that holds it. The lock is filelock's OS lock on
    the file (``flock``; ``LockFileEx`` on Windows), released by the kernel when its process ends
    however it ends, so a lock left by a killed run never blocks; the file itself is removed on
    release (filelock re-tries a file unlinked under a waiter, so removing it is safe).
    """
    path = lock_path_for(target)
    path.parent.mkdir(parents=True, exist_ok=True)
    # _write_holder looked up at each call, so a test can wrap it
    lock = FileLock(path, mode=0o644, on_acquired=lambda fd: _write_holder(fd, command))
    # SIGINT/SIGTERM wait while the lock is taken (else the file could be left behind)
    _signals["defer"] += 1
    try:
        _acquire(lock, target, wait_s=wait_s, poll_s=poll_s)
    except BaseException:
        _signals["defer"] -= 1
        raise
    try:
        _signals["defer"] -= 1
        _raise_pending(target)
        _remove_stale_stages(Path(_real(target)))
        yield path
    finally:
        _signals["defer"] += 1
        with contextlib.suppress(OSError):
            path.unlink()  # while still holding it, so no one locks a file that is gone
        lock.release()
        _signals["defer"] -= 1


def _acquire(lock: FileLock, target: str | os.PathLike, *, wait_s: float, poll_s: float) -> None:
    """Take ``lock`` (its holder written by ``on_acquired``), else OutputLockedError naming the
    holder; a SIGINT/SIGTERM deferred while waiting ends the wait.

    A holder whose line cannot be read is a run in the instant between taking the lock and
    writing its line, or between removing the file and releasing it: the waiter tries again for
    up to :data:`SETTLE_S` more, so it either takes the lock or can name the run it refuses.
    """
    try:
        _take(lock, target, wait_s=wait_s, poll_s=poll_s)
        return
    except Timeout:
        holder = _read_holder(Path(lock.lock_file))
    if holder is None:
        try:
            _take(lock, target, wait_s=SETTLE_S, poll_s=min(poll_s, 0.02))
            return
        except Timeout:
            holder = _read_holder(Path(lock.lock_file))
    waited = f" after waiting {wait_s:g} s" if wait_s > 0 else ""
    who = holder or f"another swm-gis run that is just starting (lock file {lock.lock_file})"
    raise OutputLockedError(
        f"Another run is writing {target}{waited}: {who}. "
        "Wait for it to finish, or choose another output."
    ) from None


#: How long a refused run waits more when it cannot yet read who holds the lock (seconds).
SETTLE_S = 1.0


def _take(lock: FileLock, target: str | os.PathLike, *, wait_s: float, poll_s: float) -> None:
    """``lock.acquire`` for ``wait_s`` seconds; Timeout when not taken, the pending signal raised
    when one came while waiting."""
    try:
        lock.acquire(timeout=max(wait_s, 0.0), poll_interval=poll_s,
                     cancel_check=lambda: _signals["pending"] is not None)
    except Timeout:
        if _signals["pending"] is not None:  # interrupted while waiting
            _signals["defer"] -= 1
            try:
                _raise_pending(target)
            finally:
                _signals["defer"] += 1
        raise


#: The holder's line starts after byte 0: Windows' LockFileEx locks byte 0 against other
#: processes' reads, and the holder must stay readable to the run it refuses.
_HOLDER_OFFSET = 1


def _write_holder(fd: int, command: str) -> None:
    info = {"pid": os.getpid(), "host": socket.gethostname(), "command": command,
            "started": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")}
    os.ftruncate(fd, 0)
    os.lseek(fd, 0, os.SEEK_SET)
    os.write(fd, b"\n" * _HOLDER_OFFSET + json.dumps(info).encode("utf-8"))


def _read_holder(path: Path) -> str | None:
    """Who holds the lock, in words; None while its line is not (or no longer) there."""
    try:
        with path.open("rb") as file:
            file.seek(_HOLDER_OFFSET)
            info = json.loads(file.read().decode("utf-8"))
        return (f"{info['command']} (process {info['pid']} on {info['host']}, started "
                f"{info['started']} UTC)")
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _remove_stale_stages(target: Path) -> None:
    """Staging folders of this output left by a killed run (none can be live: we hold the lock)."""
    with contextlib.suppress(OSError):
        for stale in beside(target).glob(f".{target.name}{STAGE_MARK}*"):
            shutil.rmtree(stale, ignore_errors=True)


# --------------------------------------------------------------------------- all or nothing
_signals: dict[str, Any] = {"defer": 0, "pending": None, "raised": False}


@contextlib.contextmanager
def staged_dir(dest_dir: str | os.PathLike, *, overwrite: bool, stage_name: str | None = None,
               say: Callable[[str], None] | None = None) -> Iterator[Path]:
    """Yield an empty hidden folder beside ``dest_dir``; on success move its files into it.

    With ``stage_name`` (one file, written into ``dest_dir``) the folder is made inside
    ``dest_dir`` and named after the file. ``say`` is told, in one line
    (:func:`replaces_line`), which files of ``dest_dir`` the move replaces, if any.

    Nothing is moved if the block raises (or is interrupted): the folder is removed and
    ``dest_dir`` keeps its previous files. Without ``overwrite`` an existing file of the same name
    refuses the whole set. The moves are atomic per file; files being replaced are set aside
    until every new file is in and put back if a move fails, and SIGINT/SIGTERM wait until the
    moves are done.
    """
    dest = Path(dest_dir)
    if dest.exists() and not dest.is_dir():
        raise OutputError(f"The output folder {dest} is a file; choose a folder for {OUT}.")
    # A folder output is staged beside it; a single file (stage_name) beside that file.
    name, parent = (stage_name, dest) if stage_name else (Path(_real(dest)).name, beside(dest))
    parent.mkdir(parents=True, exist_ok=True)
    _signals["defer"] += 1  # a signal between making the folder and the try would leave it
    try:
        stage = Path(tempfile.mkdtemp(prefix=f".{name}{STAGE_MARK}", dir=parent))
    except BaseException:
        _signals["defer"] -= 1
        raise
    try:
        _signals["defer"] -= 1
        _raise_pending(dest / stage_name if stage_name else dest)
        try:
            yield stage
        except Exception as exc:
            _raise_if_disk_full(stage, exc)
            raise
        _commit(stage, dest, overwrite=overwrite, say=say)
    finally:
        _signals["defer"] += 1
        shutil.rmtree(stage, ignore_errors=True)
        _signals["defer"] -= 1


def _commit(stage: Path, dest: Path, *, overwrite: bool,
            say: Callable[[str], None] | None = None) -> None:
    pairs = [(src, dest / src.relative_to(stage)) for src in sorted(stage.rglob("*"))
             if src.is_file() and not src.name.endswith(_SIDE_FILES)]
    replaced = _replaced(pairs, overwrite=overwrite)
    if replaced and say is not None:
        say(replaces_line(dest, replaced))
    backup = stage / ".swm-gis-previous"  # listed above already: never itself moved
    dest.mkdir(parents=True, exist_ok=True)
    moved: list[tuple[Path, Path | None]] = []
    _signals["defer"] += 1
    try:
        for src, target in pairs:
            target.parent.mkdir(parents=True, exist_ok=True)
            kept = None
            if target.exists():
                kept = backup / target.relative_to(dest)
                kept.parent.mkdir(parents=True, exist_ok=True)
                os.replace(target, kept)
            moved.append((target, kept))
            os.replace(src, target)
    except BaseException:
        for target, kept in reversed(moved):  # put the previous package back as it was
            with contextlib.suppress(OSError):
                if kept is not None:
                    os.replace(kept, target)
                elif target.exists():
                    target.unlink()
        raise
    finally:
        _signals["defer"] -= 1
    pending, _signals["pending"] = _signals["pending"], None
    if pending is not None:
        raise Interrupted(
            f"Interrupted ({signal.Signals(pending).name}) after the outputs were complete: "
            f"they are in {dest}.", signum=pending)


def _replaced(pairs: list[tuple[Path, Path]], *, overwrite: bool) -> list[Path]:
    """The targets of ``pairs`` that exist (the files a commit replaces); refused when one is a
    folder, or without ``overwrite``."""
    folders = [str(d) for _, d in pairs if d.is_dir()]
    if folders:
        raise OutputError(f"Cannot write {', '.join(folders)}: a folder of that name is in the "
                          f"way; move it or choose another {OUT}. Nothing was written.")
    existing = [d for _, d in pairs if d.exists()]
    if existing and not overwrite:
        raise OutputExistsError(
            f"Output already exists: {', '.join(map(str, existing))}. Choose another {OUT} or "
            f"pass {option('overwrite')} to replace it; nothing was written."
        )
    return existing


def replaces_line(dest: str | os.PathLike, replaced: Iterable[str | os.PathLike]) -> str:
    """The line a run says when an overwrite replaces files of an earlier one in ``dest``
    (every other file of the folder is left as it is).

    >>> replaces_line("out", ["out/b.csv", "out/a.json"])
    'Replaces 2 files of an earlier run in out: a.json, b.csv.'
    """
    names = sorted(Path(p).relative_to(dest).as_posix() for p in replaced)
    return (f"Replaces {len(names)} file{'' if len(names) == 1 else 's'} of an earlier run in "
            f"{dest}: {', '.join(names)}.")


def _raise_pending(target: str | os.PathLike) -> None:
    """Raise the Interrupted a deferred SIGINT/SIGTERM asked for, once nothing is deferred."""
    pending = _signals["pending"]
    if pending is None or _signals["defer"]:
        return
    _signals["pending"], _signals["raised"] = None, True
    raise Interrupted(
        f"Interrupted ({signal.Signals(pending).name}): nothing was written to {target}.",
        signum=pending)


def _raise_if_disk_full(where: Path, exc: BaseException) -> None:
    """Re-raise a failed write as 'out of disk space' when that is what it was."""
    full = isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", -1))
    with contextlib.suppress(OSError):
        full = full or shutil.disk_usage(where).free < LOW_DISK_BYTES
    if full:
        raise OutputError(
            f"Out of disk space while writing outputs beside {where.parent}; nothing was written "
            f"and the previous outputs are unchanged. Free some space or choose another {OUT}."
        ) from exc


# --------------------------------------------------------------------------- signals, OS errors
@contextlib.contextmanager
def interrupt_guard(target: str | os.PathLike) -> Iterator[None]:
    """Within the block SIGINT/SIGTERM raise :class:`Interrupted` saying nothing was written.

    Only the main thread can install signal handlers; elsewhere (the QGIS plugin's worker
    threads) the block runs unguarded and cancellation is the caller's.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        if _signals["defer"] or _signals["raised"]:  # moving into place, or cleaning up
            _signals["pending"] = _signals["pending"] or (None if _signals["raised"] else signum)
            return
        if signal_again_if_lost_here(signum, frame):
            return
        _signals["raised"] = True
        raise Interrupted(
            f"Interrupted ({signal.Signals(signum).name}): nothing was written to {target}.",
            signum=signum)

    _signals.update(pending=None, raised=False, defer=0)
    previous = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, old in previous.items():
            signal.signal(s, old)
    pending, _signals["pending"] = _signals["pending"], None
    if pending is not None:  # arrived while the finished run cleaned up: the outputs are in
        raise Interrupted(f"Interrupted ({signal.Signals(pending).name}) after the outputs were "
                          f"complete: they are in {target}.", signum=pending)


#: Modules whose code runs as callbacks of native code (GDAL's error handler, installed by
#: rasterio and pyogrio, logs through ``logging`` and warns through ``warnings``): an exception
#: raised there is printed as "Exception ignored" and lost, never passed on to the job.
CALLBACK_MODULES = ("logging", "warnings", "weakref")
#: How long a signal that landed in such a callback waits before it is sent again (seconds),
#: and how many times (then it is raised wherever it lands: a job is never left uninterruptible).
SIGNAL_AGAIN_S = 0.01
SIGNAL_AGAIN_MAX = 100


def cannot_pass_an_exception_on(frame: Any) -> bool:
    """Whether the signal landed where an exception would be lost: in a finalizer
    (``__del__``) or in :data:`CALLBACK_MODULES` (a log record GDAL's error handler writes from
    inside a read: the Interrupted was printed with a traceback and the run went on)."""
    while frame is not None:
        module = str(frame.f_globals.get("__name__", ""))
        if frame.f_code.co_name == "__del__" or module.split(".")[0] in CALLBACK_MODULES:
            return True
        frame = frame.f_back
    return False


def signal_again_if_lost_here(signum: int, frame: Any) -> bool:
    """For a signal handler that raises: True when an exception raised at ``frame`` would be
    lost (:func:`cannot_pass_an_exception_on`); ``signum`` is then sent to this process again
    in :data:`SIGNAL_AGAIN_S` and the handler returns, to raise it outside the callback. False
    (raise it now) otherwise, and after :data:`SIGNAL_AGAIN_MAX` sends in a row.

    The signal sent again goes to whichever handler is installed then (one that holds signals
    for a moment, as the pool's ``signals_held`` does, notes it and raises it after): a signal
    received is never dropped because the handler changed meanwhile (it once was, and a SIGTERM
    to a map on two workers let the map run to its end)."""
    if not cannot_pass_an_exception_on(frame) or _again[0] >= SIGNAL_AGAIN_MAX:
        _again[0] = 0
        return False
    _again[0] += 1

    def again() -> None:
        if signal.getsignal(signum) is not signal.SIG_IGN:
            os.kill(os.getpid(), signum)

    timer = threading.Timer(SIGNAL_AGAIN_S, again)
    timer.daemon = True
    timer.start()
    return True


_again = [0]  # sends in a row of :func:`signal_again_if_lost_here`


@contextlib.contextmanager
def explain_os_errors(target: str | os.PathLike) -> Iterator[None]:
    """Turn a read-only folder, a read-only file system or a full disk into an OutputError."""
    try:
        yield
    except PermissionError as exc:
        raise OutputError(
            f"Cannot write {target}: permission denied on {exc.filename or target}. The folder "
            f"is read-only or belongs to another user; choose another {OUT}. Nothing was "
            "written."
        ) from exc
    except OSError as exc:
        if exc.errno == errno.EROFS:
            raise OutputError(f"Cannot write {target}: the file system is read-only; choose "
                              f"another {OUT}. Nothing was written.") from exc
        if exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", -1)):
            raise OutputError(f"Out of disk space writing {target}; nothing was written and "
                              "the previous outputs are unchanged.") from exc
        raise


# --------------------------------------------------------------------------- for commands
@contextlib.contextmanager
def output_package(out_dir: str | os.PathLike, *, inputs: Iterable[Any] = (),
                   overwrite: bool = False, command: str = "swm-gis", wait_s: float = 0.0,
                   say: Callable[[str], None] | None = None) -> Iterator[Path]:
    """Everything a command writing a folder needs: yields the staging folder to write into.

    ``inputs`` are refused as outputs (the config's sources, FILE arguments, and the paths a
    front end asks to protect); ``say`` hears the line naming the files an overwrite replaces.
    """
    out_dir = Path(out_dir)
    refuse_inputs(out_dir, inputs)
    with interrupt_guard(out_dir), explain_os_errors(out_dir), \
            output_lock(out_dir, command=command, wait_s=wait_s), \
            staged_dir(out_dir, overwrite=overwrite, say=say) as stage:
        yield stage


@contextlib.contextmanager
def output_file(target: str | os.PathLike, *, inputs: Iterable[Any] = (),
                overwrite: bool = False, command: str = "swm-gis", wait_s: float = 0.0,
                say: Callable[[str], None] | None = None) -> Iterator[Path]:
    """:func:`output_package` for one file (an applicability GeoPackage): yields the
    temporary path to write; it is moved onto ``target`` when the block succeeds."""
    target = Path(target)
    refuse_inputs(target, inputs)
    if target.is_dir():
        raise OutputError(f"The output {target} is a folder; name a file, e.g. {target}/out.gpkg.")
    with interrupt_guard(target), explain_os_errors(target), \
            output_lock(target, command=command, wait_s=wait_s), \
            staged_dir(target.parent, overwrite=overwrite, stage_name=target.name,
                       say=say) as stage:
        yield stage / target.name


@contextlib.contextmanager
def api_output_dir(out_dir: str | os.PathLike, *, staged: bool, inputs: Iterable[Any] = (),
                   overwrite: bool = False, command: str = "swm_gis API") -> Iterator[Path]:
    """For the result objects' ``.write()``: the safety of :func:`output_package` without the
    signal handlers (a library must not install them).

    Yields the folder to write into: ``out_dir`` itself when ``staged`` (it is the stage of a
    command's :func:`output_package`, which already refused the inputs and holds the lock), else
    a new stage moved into place on success.
    """
    out_dir = Path(out_dir)
    if staged:
        yield out_dir
        return
    refuse_inputs(out_dir, inputs)
    with explain_os_errors(out_dir), output_lock(out_dir, command=command), \
            staged_dir(out_dir, overwrite=overwrite) as stage:
        yield stage


def source_files(sources: Iterable[Any]) -> list[str]:
    """The files of provenance records (``{"file": ...}`` dicts, or plain paths)."""
    found = []
    for src in sources or ():
        value = src.get("file") if isinstance(src, dict) else src
        values = value if isinstance(value, list | tuple) else [value]
        # "(GeoDataFrame)": an in-memory input, no file to protect
        found.extend(str(v) for v in values if v and not str(v).startswith("("))
    return found


def final_paths(paths: dict[str, Any], stage: str | os.PathLike, dest: str | os.PathLike
                ) -> dict[str, Path]:
    """Where files written into ``stage`` are after the move: ``dest`` / their relative path."""
    return {k: Path(dest) / Path(p).relative_to(stage) for k, p in paths.items()}


__all__ = [
    "final_paths", "refuse_inputs", "config_inputs", "output_lock", "lock_path_for", "staged_dir",
    "interrupt_guard", "explain_os_errors", "output_package", "output_file", "api_output_dir",
    "source_files", "replaces_line", "cannot_pass_an_exception_on", "signal_again_if_lost_here",
]

"""The ``swm-gis`` command line: thin; parses arguments, calls the core, writes outputs.

Each command lives in its own module in this package and registers itself on :data:`app`;
every module here is imported on start-up (so a new command is a new file, nothing else). They
import the engine inside their commands, so ``swm-gis --help`` loads typer and rich only.
User errors (:class:`swm_gis.errors.SwmGisError`) print one paragraph and exit with code 2.
A SIGINT or SIGTERM at any moment prints one line and exits 130 / 143.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import os
import pkgutil
import signal
import sys
import threading


def _end_at_once(signum: int, frame: object) -> None:
    """Start-up's handler: nothing is read or written yet, so end now with the one line (no
    traceback from inside an import)."""
    os.write(2, f"Interrupted ({signal.Signals(signum).name}).\n".encode())
    os._exit(128 + signum)


def _start_handlers() -> dict[int, object]:
    """Install :func:`_end_at_once` for SIGINT and SIGTERM before the imports below; returns the
    handlers to put back (none off the main thread, where handlers cannot be set).
    ``SWM_GIS_TEST_START_PAUSE_S`` (tests only) says so on stderr, and start-up then waits."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    previous = {s: signal.signal(s, _end_at_once) for s in (signal.SIGINT, signal.SIGTERM)}
    if os.environ.get("SWM_GIS_TEST_START_PAUSE_S"):
        os.write(2, b"swm-gis: starting\n")
    return previous


_previous_handlers = _start_handlers()

import typer  # noqa: E402 - after the start-up handlers, on purpose

from swm_gis.cli._common import app, state  # noqa: E402
from swm_gis.cli.words import cli_text  # noqa: E402
from swm_gis.errors import Interrupted, SwmGisError  # noqa: E402
from swm_gis.io.outputs import signal_again_if_lost_here  # noqa: E402


def _load_commands() -> None:
    for mod in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if not mod.name.startswith("_"):
            importlib.import_module(f"{__name__}.{mod.name}")


_load_commands()
if os.environ.get("SWM_GIS_TEST_START_PAUSE_S"):  # tests only: a signal lands in start-up
    import time

    time.sleep(float(os.environ["SWM_GIS_TEST_START_PAUSE_S"]))
# an importer of this package (a test, a notebook) keeps its own handlers; main() sets its own
for _signum, _handler in _previous_handlers.items():
    signal.signal(_signum, _handler)


def cli_flags() -> set[str]:
    """Every long flag of every ``swm-gis`` command (``--site``, ``--no-cache``, ...), read from
    the command line itself: what the core must never spell (tests/house/test_architecture.py)."""
    found: set[str] = set()
    stack = [typer.main.get_command(app)]
    while stack:
        cmd = stack.pop()
        stack.extend(getattr(cmd, "commands", {}).values())
        for param in cmd.params:
            found |= {o for o in (*param.opts, *param.secondary_opts) if o.startswith("--")}
    return found


def _click_classes(name: str) -> tuple[type[BaseException], ...]:
    """Click's exception class ``name`` from typer's vendored copy and/or click itself."""
    found = []
    for module in ("typer._click.exceptions", "click.exceptions"):
        try:
            found.append(getattr(importlib.import_module(module), name))
        except (ImportError, AttributeError):
            continue
    return tuple(found)


_USAGE_ERRORS = _click_classes("ClickException")
_EXITS = (typer.Exit, *_click_classes("Exit"))
_ABORTS = (typer.Abort, *_click_classes("Abort"))


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``swm-gis`` console script; returns the exit code.

    SIGINT and SIGTERM raise :class:`Interrupted` from here on (the output writers' clean-up
    runs); whatever it becomes on its way up (typer's exit 130, an ImportError from a module it
    cut short) is worded once, and a second signal while unwinding is not another traceback."""
    previous = _signals_as_interrupts()
    Interrupted.last = None
    try:
        return _run(argv)
    except BaseException:
        if Interrupted.last is None:
            raise
        return _interrupted(Interrupted.last)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def script() -> None:
    """The ``swm-gis`` console script and ``python -m swm_gis``: :func:`main`, then the process
    ends at once with its exit code.

    The end is the interpreter's own but for its last part: non-daemon threads finished (else
    the usual exit), the ``atexit`` handlers run (logging's flush, the temporary folders'
    finalizers, multiprocessing's), the standard streams flushed, and then no module teardown:
    tearing down GDAL, pandas, PyArrow and numba took 0.20-0.27 s of a 1.4 s abutter list on
    the sample town (measured). Every output is closed before :func:`main` returns (they are
    written atomically). :func:`main` itself (tests, the warm engine) returns as before.
    """
    code = main()
    if any(t.is_alive() and not t.daemon for t in threading.enumerate()
           if t is not threading.main_thread()):
        sys.exit(code)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        # a closed pipe or stream: nothing more can be said
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


def _run(argv: list[str] | None) -> int:
    command = typer.main.get_command(app)
    try:
        rv = command.main(args=argv, prog_name="swm-gis", standalone_mode=False)
        if Interrupted.last is not None or rv == 130:  # typer returns 130 for Ctrl-C
            return _interrupted(Interrupted.last or KeyboardInterrupt())
    except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM as Interrupted
        return _interrupted(exc)
    except SwmGisError as exc:
        state.reporter.error(cli_text(exc), exit_code=exc.exit_code, error=exc)
        return exc.exit_code
    except _USAGE_ERRORS as exc:
        exc.show()
        return exc.exit_code
    except (*_EXITS, *_ABORTS) as exc:
        cause = exc.__cause__ or exc.__context__
        if isinstance(cause, KeyboardInterrupt):  # typer/click wrap Ctrl-C as Exit(130)/Abort
            return _interrupted(cause)
        if isinstance(exc, _ABORTS):
            print("Aborted.", file=sys.stderr)
            return 1
        return exc.exit_code
    return rv if isinstance(rv, int) else 0


@app.command("serve", hidden=True)
def _serve() -> None:
    """Run jobs sent as JSON lines on stdin, one at a time: the QGIS plugin's warm engine
    (protocol: :mod:`swm_gis.cli.serve`). Each job runs through :func:`main`.

    Example: echo '{"id": "1", "argv": ["data", "validate", "--config", "town.toml"]}' |
    swm-gis serve
    """
    from swm_gis.cli.serve import serve_loop

    raise typer.Exit(serve_loop(main))


def _interrupted(exc: KeyboardInterrupt) -> int:
    """Say in one line that the run was interrupted (and, from the output writers, that nothing
    was written); the exit code is 128 + the signal number, as a shell reports it."""
    state.reporter.done()
    message = str(exc) if isinstance(exc, Interrupted) else "Interrupted (SIGINT)."
    print(message, file=sys.stderr, flush=True)
    return getattr(exc, "exit_code", 130)


def _raise_interrupted(signum: int, frame: object) -> None:
    if signal_again_if_lost_here(signum, frame):
        return  # landed in a callback of native code (a GDAL log record): raised just after
    if Interrupted.last is None:  # the first signal; while unwinding from it, one line is enough
        raise Interrupted(f"Interrupted ({signal.Signals(signum).name}).", signum=signum)


def _signals_as_interrupts() -> dict[int, object]:
    """Make SIGINT and SIGTERM unwind as :class:`Interrupted` (clean-up runs, one line says so);
    returns the old handlers, none off the main thread where handlers cannot be set."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    return {s: signal.signal(s, _raise_interrupted) for s in (signal.SIGINT, signal.SIGTERM)}


if __name__ == "__main__":  # pragma: no cover
    script()

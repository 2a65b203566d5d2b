"""The ``swm-gis`` command line: thin; parses arguments, calls the core, writes outputs.

Each command lives in its own module in this package and registers itself on :data:`app`;
every module here is imported on start-up (so a new command is a new file, nothing else).
User errors (:class:`swm_gis.errors.SwmGisError`) print one paragraph and exit with code 2.
"""

from __future__ import annotations

import importlib
import pkgutil
import signal
import sys
import threading

import typer

from swm_gis.cli._common import app, state
from swm_gis.cli.words import cli_text
from swm_gis.errors import Interrupted, SwmGisError


def _load_commands() -> None:
    for mod in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if not mod.name.startswith("_"):
            importlib.import_module(f"{__name__}.{mod.name}")


_load_commands()


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
    """Entry point of the ``swm-gis`` console script; returns the exit code."""
    command = typer.main.get_command(app)
    previous_term = _term_as_interrupt()
    Interrupted.last = None
    try:
        rv = command.main(args=argv, prog_name="swm-gis", standalone_mode=False)
        if Interrupted.last is not None or rv == 130:  # typer returns 130 for Ctrl-C
            return _interrupted(Interrupted.last or KeyboardInterrupt())
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM as Interrupted (swm_gis.io.outputs)
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
    finally:
        if previous_term is not None:
            signal.signal(signal.SIGTERM, previous_term)
    return rv if isinstance(rv, int) else 0


def _interrupted(exc: KeyboardInterrupt) -> int:
    """Say in one line that the run was interrupted (and, from the output writers, that nothing
    was written); the exit code is 128 + the signal number, as a shell reports it."""
    state.reporter.done()
    message = str(exc) if isinstance(exc, Interrupted) else "Interrupted (SIGINT)."
    print(message, file=sys.stderr, flush=True)
    return getattr(exc, "exit_code", 130)


def _term_as_interrupt() -> object | None:
    """Make SIGTERM unwind like Ctrl-C (clean-up runs, one line says so); returns the old
    handler, or None off the main thread where handlers cannot be set."""
    if threading.current_thread() is not threading.main_thread():
        return None

    def handler(signum: int, frame: object) -> None:
        raise Interrupted("Interrupted (SIGTERM).", signum=signum)

    return signal.signal(signal.SIGTERM, handler)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

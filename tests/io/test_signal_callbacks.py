"""A Ctrl-C that lands inside a callback of native code is acted on just after it, never lost.

GDAL reports through an error handler that rasterio and pyogrio install: it writes a log
record, Python code called from C that cannot pass an exception on. A SIGINT handled there
printed "Exception ignored in: 'rasterio._env.log_error'" with the Interrupted's traceback, and
the job went on (found by interrupting ``swm-gis screen`` 1.8 s in, once in 48 runs).
:func:`swm_gis.io.outputs.interrupt_guard` now sends such a signal again 10 ms later, when the
job is back in its own code. Each case raises the signal itself, at a known point, so each is
the same every run; before the change each printed the ignored exception and raised nothing.
"""

from __future__ import annotations

import gc
import logging
import signal
import sys
import time

import pytest

from swm_gis.errors import Interrupted
from swm_gis.io import outputs
from swm_gis.io.outputs import cannot_pass_an_exception_on, interrupt_guard


@pytest.fixture
def unraisable(monkeypatch):
    """The exceptions Python printed as "Exception ignored" (lost) during the test."""
    lost: list[BaseException | None] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda info: lost.append(info.exc_value))
    return lost


def _interrupted_after(target, step) -> Interrupted:
    """Run ``step`` inside the guard, then the job's own code (a wait of up to 2 s); the
    Interrupted raised within it (the test fails if none is: a signal lost in the callback
    would let the job run to its end)."""
    start = time.monotonic()
    with pytest.raises(Interrupted) as caught, interrupt_guard(target):  # noqa: PT012
        step()
        while time.monotonic() - start < 2.0:  # the job's own code
            time.sleep(0.002)
    return caught.value


def test_a_signal_in_a_finalizer_is_raised_after_it(tmp_path, unraisable):
    """A SIGINT handled inside ``__del__`` (whose exceptions Python ignores): the finalizer runs
    to its end, and the job is interrupted just after, with the one message."""
    done = []

    class Handle:
        def __del__(self):
            signal.raise_signal(signal.SIGINT)
            done.append("finalized")

    def step():
        handle = Handle()
        del handle  # the last reference: finalized here

    exc = _interrupted_after(tmp_path / "out", step)
    assert done == ["finalized"] and unraisable == []
    assert str(exc) == f"Interrupted (SIGINT): nothing was written to {tmp_path / 'out'}."
    assert exc.signum == signal.SIGINT


def test_a_signal_in_gdal_s_error_handler_is_raised_after_it(tmp_path, unraisable):
    """The case found: rasterio's GDAL error handler logs "GDAL signalled an error" while it
    opens a file that is no raster; a SIGTERM handled inside that record is raised once the
    open has failed as it does (RasterioIOError), not lost inside the callback."""
    import rasterio
    from rasterio.errors import RasterioIOError

    bad = tmp_path / "not_a_raster.tif"
    bad.write_text("hello", encoding="utf-8")
    seen = []

    class SignalInTheRecord(logging.Handler):
        def emit(self, record):
            if "GDAL signalled" in record.getMessage() and not seen:
                signal.raise_signal(signal.SIGTERM)
                seen.append(record.getMessage())

    log = logging.getLogger("rasterio._env")
    handler, level = SignalInTheRecord(), log.level
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    opened = []

    def step():
        try:
            rasterio.open(bad)
        except RasterioIOError:
            opened.append("refused")

    try:
        exc = _interrupted_after(tmp_path / "out", step)
    finally:
        log.removeHandler(handler)
        log.setLevel(level)
    assert seen and opened == ["refused"] and unraisable == []
    assert exc.signum == signal.SIGTERM


def test_where_an_exception_would_be_lost():
    """A log record, a warning's display and a finalizer are such places; the job's own code
    (this test) is not."""
    frames = {}

    class Grab(logging.Handler):
        def emit(self, record):
            frames["logging"] = sys._getframe()

    class Finalized:
        def __del__(self):
            frames["__del__"] = sys._getframe()

    log = logging.getLogger("swm_gis.test_signal_callbacks")
    handler = Grab()
    log.addHandler(handler)
    try:
        log.warning("a record")
    finally:
        log.removeHandler(handler)
    Finalized()
    gc.collect()
    assert cannot_pass_an_exception_on(frames["logging"])
    assert cannot_pass_an_exception_on(frames["__del__"])
    assert not cannot_pass_an_exception_on(sys._getframe())


def test_a_signal_that_keeps_landing_in_callbacks_is_raised_in_the_end(tmp_path, monkeypatch,
                                                                        unraisable):
    """The retries are counted: past ``SIGNAL_AGAIN_MAX`` the signal is raised where it lands
    (here the limit is 0: raised inside the finalizer, which loses it, as before), so no job is
    left that a Ctrl-C cannot stop for long."""
    monkeypatch.setattr(outputs, "SIGNAL_AGAIN_MAX", 0)

    class Handle:
        def __del__(self):
            signal.raise_signal(signal.SIGINT)

    with interrupt_guard(tmp_path / "out"):
        Handle()
        gc.collect()
    assert len(unraisable) == 1 and isinstance(unraisable[0], Interrupted)


def test_the_command_line_s_own_handler_waits_for_the_callback_too(monkeypatch, unraisable):
    """Outside the outputs' guard (reading the inputs) the command line's handler raises the
    Interrupted: a SIGTERM handled inside a finalizer is raised just after it there too."""
    from swm_gis import cli

    monkeypatch.setattr(Interrupted, "last", None)  # as in a fresh command
    done = []

    class Handle:
        def __del__(self):
            signal.raise_signal(signal.SIGTERM)
            done.append("finalized")

    previous = cli._signals_as_interrupts()
    try:
        start = time.monotonic()
        with pytest.raises(Interrupted) as caught:  # noqa: PT012 - the wait is the job's code
            Handle()  # finalized at once: nothing refers to it
            while time.monotonic() - start < 2.0:
                time.sleep(0.002)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    assert done == ["finalized"] and unraisable == []
    assert str(caught.value) == "Interrupted (SIGTERM)." and caught.value.exit_code == 143


def test_a_signal_sent_again_while_signals_are_held_is_not_lost(tmp_path, unraisable):
    """The signal sent again may come while another handler is installed for a moment (the
    pool's ``signals_held`` around each tile it submits): it is delivered to that one (held,
    then raised after), never dropped. Found by a clean-clone CI run: a SIGTERM to a map on two
    workers was lost and the map ran to its end, exit 0."""
    from swm_gis.applicability.parallel import signals_held

    class Handle:
        def __del__(self):
            signal.raise_signal(signal.SIGTERM)

    def step():
        Handle()  # finalized at once: the signal is sent again in 10 ms
        with signals_held():  # the pool submits a tile meanwhile
            time.sleep(0.1)

    exc = _interrupted_after(tmp_path / "out", step)
    assert exc.signum == signal.SIGTERM and unraisable == []

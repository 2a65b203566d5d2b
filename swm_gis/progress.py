"""The one progress type of the jobs: ``progress(fraction, message)``, its silent default and a
callback scaled onto part of a whole.

The core never prints; a job reports its progress through the callback it is given (the
command line draws a bar or writes JSON lines, the QGIS plugin moves its dialog's bar).

Examples
--------
>>> seen = []
>>> half = scaled(lambda f, m: seen.append((f, m)), 0.5, 1.0)
>>> half(0.5, "tracing"); half("done", 1.0)
>>> seen
[(0.75, 'tracing'), (1.0, 'done')]
>>> quiet(0.3, "says nothing") is None
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: ``progress(fraction, message)``: fraction in [0, 1] of the whole job, and what it is doing.
Progress = Callable[[float, str], None]


def quiet(fraction: float, message: str) -> None:
    """The default progress callback: says nothing."""


def scaled(report: Progress, start: float, end: float) -> Callable[..., None]:
    """A progress callback for a sub-job mapped onto [start, end] of the whole.

    Accepts ``(fraction, message)`` or ``(message, fraction)`` so sub-modules may use either;
    a fraction that is not a number counts as 0, and fractions are clipped to [0, 1].
    """
    def sub(a: Any, b: Any = "") -> None:
        fraction, message = (b, a) if isinstance(a, str) else (a, b)
        try:
            f = min(max(float(fraction), 0.0), 1.0)
        except (TypeError, ValueError):
            f = 0.0
        report(start + (end - start) * f, str(message))
    return sub


__all__ = ["Progress", "quiet", "scaled"]

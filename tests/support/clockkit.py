"""Every clock an output prints, held still, so that two runs' files compare byte for byte."""

from __future__ import annotations

import datetime as dt
import importlib
import types
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

#: The modules that print a time (each imports ``datetime as dt``).
CLOCKS = ("swm_gis.jobs", "swm_gis.results", "swm_gis.io.outputs", "swm_gis.screening.build",
          "swm_gis.screening.request", "swm_gis.notification.package",
          "swm_gis.notification.info", "swm_gis.reports.screening_report",
          "swm_gis.reports.screening_model", "swm_gis.reports.screening_findings",
          "swm_gis.rules.mailing.tax_list", "swm_gis.rules.timeline",
          "swm_gis.applicability.write")


@contextmanager
def frozen() -> Iterator[None]:
    """Hold still every clock an output prints (:data:`CLOCKS`, ReportLab's, GDAL's) at
    2026-03-02 09:30 UTC."""
    import reportlab.rl_config

    class Fixed(dt.datetime):
        @classmethod
        def now(cls, tz=None):
            return cls(2026, 3, 2, 9, 30, tzinfo=tz)

    shim = types.SimpleNamespace(**{n: getattr(dt, n) for n in dir(dt) if not n.startswith("_")})
    shim.datetime = Fixed
    with pytest.MonkeyPatch.context() as mp:
        for name in CLOCKS:
            module = importlib.import_module(name)
            if getattr(module, "dt", None) is dt:
                mp.setattr(module, "dt", shim)
        mp.setattr(reportlab.rl_config, "invariant", 1)
        mp.setenv("OGR_CURRENT_DATE", "2026-03-02T09:30:00Z")
        yield

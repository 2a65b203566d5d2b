"""The screening report for the Conservation Commission: ``screening_report.html`` and ``.pdf``.

One model, two renderings, in four modules under ``swm_gis/reports``:
:mod:`~swm_gis.reports.screening_findings` builds the model from a screening document (its
``findings`` decide every status, the headline and the checklist),
:mod:`~swm_gis.reports.screening_model` holds it, :mod:`~swm_gis.reports.screening_html` and
:mod:`~swm_gis.reports.screening_pdf` lay it out, so the two renderings always say the same.

Page 1 is the findings: the permit trigger, new or redevelopment, the standards, HUCs and
mitigation, NHESP features within 500 ft, floodplain, receiving waters and every extra
requirement; each with its status (yes, no, conditional, not checked, info), its Chapter 320
section, the data layers and vintage it used and those it lacked. Then the map, the detail
tables, the checklist of the permit procedure A and §§ 320-19, 320-20 and 320-21, the general
requirements of every permit, the timeline of the permit procedure, and the data sources, checks
and parameters.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import geopandas as gpd

from swm_gis.io.writers import write_bytes, write_text
from swm_gis.reports.screening_findings import build_report
from swm_gis.reports.screening_html import render_html
from swm_gis.reports.screening_pdf import render_pdf

__all__ = ["write_screening_report"]

HTML_NAME = "screening_report.html"
PDF_NAME = "screening_report.pdf"


def write_screening_report(
    document: Mapping[str, Any],
    layers: Mapping[str, gpd.GeoDataFrame] | None,
    out_dir: str | Path,
    *,
    received: dt.date | None = None,
) -> dict[str, Path]:
    """Write ``screening_report.html`` and ``screening_report.pdf`` into ``out_dir``.

    Both files are written atomically (a temporary name moved into place); the caller checks
    ``overwrite=True`` beforehand. Returns ``{"html": path, "pdf": path}``.

    Parameters
    ----------
    document
        The screening document (``screening.json`` content, with ``meta``).
    layers
        The ``screening.gpkg`` layers by name, for the map; missing ones are not drawn.
    received
        Date the completed application was received; the permit timeline gets dates from it.
    """
    out_dir = Path(out_dir)
    report = build_report(document, layers, received=received)
    html_path = write_text(render_html(report), out_dir / HTML_NAME)
    pdf_path = write_bytes(render_pdf(report), out_dir / PDF_NAME)
    return {"html": html_path, "pdf": pdf_path}

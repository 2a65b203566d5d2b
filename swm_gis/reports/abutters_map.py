"""The abutters map (``abutters_map.pdf``): subject, the distance line, numbered abutters keyed to
the list, north arrow, scale bar, legend and data vintage; then the key on the following pages.

Drawn with matplotlib's object API (no pyplot, so no global backend state). The numbers are the
``map_no`` of ``abutting_parcels.csv``. Fonts are embedded as TrueType (DejaVu Sans), so accented
text survives.
"""

from __future__ import annotations

import math
from pathlib import Path

import geopandas as gpd
import numpy as np
import pandas as pd
import shapely

from swm_gis.abutters import M_PER_FT, metres_per_unit
from swm_gis.reports import PackageInfo
from swm_gis.writers import atomic_path

KEY_ROWS_PER_PAGE = 44
COLOURS = {"subject": "#d62728", "abutter": "#ffd27f", "other_town": "#9ecae1",
           "no_owner": "#f4a6a6", "left_out": "#d9d9d9", "context": "#ffffff"}


def write_abutters_map(
    subject: gpd.GeoDataFrame,
    area: gpd.GeoDataFrame,
    listed: gpd.GeoDataFrame,
    left: gpd.GeoDataFrame,
    info: PackageInfo,
    target: str | Path,
    *,
    context: gpd.GeoDataFrame | None = None,
) -> Path:
    """Write the map page and the key pages to ``target`` (letter, landscape)."""
    import warnings

    with warnings.catch_warnings():
        # matplotlib's projections module warns about Axes3D when a system matplotlib (e.g.
        # Debian's, beside QGIS) is also installed; the 2-D map does not need it
        warnings.filterwarnings("ignore", message="Unable to import Axes3D")
        import matplotlib
        import matplotlib.pyplot  # noqa: F401 - GeoDataFrame.plot imports it
        from matplotlib.backends.backend_pdf import PdfPages
        from matplotlib.figure import Figure

    with matplotlib.rc_context({"pdf.fonttype": 42, "font.family": "DejaVu Sans"}), \
            atomic_path(target) as tmp, PdfPages(tmp, metadata={
                "Title": f"Abutters map: parcel(s) {info.subject_text}",
                "Subject": " ".join(info.header_lines()), "Creator": "swm-gis"}) as pdf:
        fig = Figure(figsize=(11, 8.5))
        _map_page(fig, subject, area, listed, left, info, context)
        pdf.savefig(fig)
        rows = _key_rows(listed)
        for start in range(0, max(len(rows), 1), KEY_ROWS_PER_PAGE):
            fig = Figure(figsize=(11, 8.5))
            _key_page(fig, rows[start:start + KEY_ROWS_PER_PAGE], info,
                      first=start == 0, n=len(rows))
            pdf.savefig(fig)
    return Path(target)


def _map_page(fig, subject, area, listed, left, info, context) -> None:
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    ax = fig.add_axes((0.04, 0.14, 0.70, 0.78))
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_xlabel("")
    ax.set_ylabel("")
    xmin, ymin, xmax, ymax = area.total_bounds
    pad = 0.08 * max(xmax - xmin, ymax - ymin)
    xlim, ylim = (xmin - pad, xmax + pad), (ymin - pad, ymax + pad)
    if context is not None and len(context):
        context.plot(ax=ax, facecolor=COLOURS["context"], edgecolor="#bbbbbb", linewidth=0.3)
    if "id" in left and len(left):  # the subject is drawn as the subject, not as left out
        left = left[~left["id"].astype(str).isin(info.subject_ids)]
    if len(left):
        left.plot(ax=ax, facecolor=COLOURS["left_out"], edgecolor="#888888", linewidth=0.4,
                  hatch="..")
    if len(listed):
        colour = np.where(listed.get("other_town", False), COLOURS["other_town"],
                          np.where(listed.get("owner_of_record", True), COLOURS["abutter"],
                                   COLOURS["no_owner"]))
        listed.plot(ax=ax, color=list(colour), edgecolor="#555555", linewidth=0.5)
    subject.plot(ax=ax, facecolor=COLOURS["subject"], edgecolor="#7f0000", linewidth=1.2,
                 alpha=0.55)
    area.boundary.plot(ax=ax, color="#1f3b73", linewidth=1.2, linestyle="--")
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    ax.set_xlabel("")
    ax.set_ylabel("")
    if len(listed):
        view = shapely.box(xlim[0], ylim[0], xlim[1], ylim[1])
        # label the part of each parcel that is on the map (large parcels reach beyond it)
        pts = shapely.point_on_surface(shapely.intersection(listed.geometry.values, view))
        for no, pt in zip(listed["map_no"], pts, strict=True):
            if not pt.is_empty:
                ax.annotate(str(no), (pt.x, pt.y), ha="center", va="center", fontsize=6.5,
                            fontweight="bold", clip_on=True,
                            bbox={"boxstyle": "circle,pad=0.15", "fc": "white", "ec": "#333333",
                                  "lw": 0.4})
    _north_arrow(ax)
    _scale_bar(ax, listed.crs or subject.crs, xlim, ylim)
    handles = [
        Patch(facecolor=COLOURS["subject"], alpha=0.55, edgecolor="#7f0000",
              label="Subject property"),
        Line2D([], [], color="#1f3b73", linestyle="--",
               label=f"{info.distance_text} from the property line"),
        Patch(facecolor=COLOURS["abutter"], edgecolor="#555555", label="Abutter (numbered)"),
        Patch(facecolor=COLOURS["no_owner"], edgecolor="#555555",
              label="Abutter, no owner of record"),
        Patch(facecolor=COLOURS["other_town"], edgecolor="#555555", label="Abutter, other town"),
        Patch(facecolor=COLOURS["left_out"], edgecolor="#888888", hatch="..",
              label="Left out (ROW / water)"),
        Patch(facecolor="white", edgecolor="#bbbbbb", label="Other parcels"),
    ]
    fig.legend(handles=handles, loc="upper left", bbox_to_anchor=(0.76, 0.92), fontsize=8,
               frameon=True, title="Legend", title_fontsize=9)
    fig.text(0.04, 0.955, f"Abutters map: {info.town}", fontsize=14, fontweight="bold")
    fig.text(0.04, 0.93, f"Subject parcel(s) {info.subject_text}; owners within "
             f"{info.distance_text} of the property line (Chapter 320 {info.section})",
             fontsize=9)
    notes = [
        f"{len(listed)} abutting parcel(s), {len(left)} left out. Numbers key to "
        "abutting_parcels.csv (map_no) and to the next page.",
        *info.header_lines()[1:],
        "Distances are exact, from the subject property line; the dashed line is drawn for "
        "reference only.",
    ]
    y = 0.11
    for line in notes[:7]:
        fig.text(0.04, y, line[:190], fontsize=6.5)
        y -= 0.015


def _north_arrow(ax) -> None:
    ax.annotate("", xy=(0.95, 0.96), xytext=(0.95, 0.86), xycoords="axes fraction",
                arrowprops={"arrowstyle": "-|>", "lw": 1.5, "color": "black"})
    ax.text(0.95, 0.965, "N", transform=ax.transAxes, ha="center", va="bottom", fontsize=11,
            fontweight="bold")


def _scale_bar(ax, crs, xlim, ylim) -> None:
    """A bar of a round number of feet, about a quarter of the map width."""
    unit_per_ft = M_PER_FT / metres_per_unit(crs)
    width_ft = (xlim[1] - xlim[0]) / unit_per_ft
    target = width_ft / 4
    exp = 10 ** math.floor(math.log10(max(target, 1)))
    nice = max(n * exp for n in (1, 2, 2.5, 5) if n * exp <= target) if target >= 1 else 1
    length = nice * unit_per_ft
    x0 = xlim[0] + 0.04 * (xlim[1] - xlim[0])
    y0 = ylim[0] + 0.04 * (ylim[1] - ylim[0])
    h = 0.012 * (ylim[1] - ylim[0])
    for i in range(4):
        ax.fill_between([x0 + i * length / 4, x0 + (i + 1) * length / 4], y0, y0 + h,
                        color="black" if i % 2 == 0 else "white", edgecolor="black", lw=0.6)
    ax.text(x0, y0 + 1.8 * h, "0", ha="center", fontsize=7)
    ax.text(x0 + length, y0 + 1.8 * h, f"{nice:g} ft", ha="center", fontsize=7)


def _key_rows(listed: pd.DataFrame) -> list[tuple[str, ...]]:
    rows = []
    for rec in listed.to_dict("records"):
        rows.append((str(rec.get("map_no", "")), _t(rec.get("id")), _t(rec.get("site_address")),
                     f"{rec.get('distance_ft', 0):.2f}", _t(rec.get("owners", "")),
                     _t(rec.get("note"))))
    return rows


def _key_page(fig, rows, info, *, first: bool, n: int) -> None:
    fig.text(0.04, 0.95, f"Key to the abutters map: parcel(s) {info.subject_text}, "
             f"{info.distance_text} ({n} abutting parcels)", fontsize=11, fontweight="bold")
    cols = [(0.04, "No."), (0.08, "Parcel id"), (0.20, "Site address"), (0.40, "Distance ft"),
            (0.47, "Owner(s) of record"), (0.74, "Note")]
    y = 0.91
    for x, head in cols:
        fig.text(x, y, head, fontsize=7.5, fontweight="bold")
    y -= 0.02
    if not rows:
        fig.text(0.04, y, "No abutting parcels within the distance.", fontsize=8)
    for row in rows:
        for (x, _), val, width in zip(cols, row, (4, 16, 28, 8, 42, 40), strict=True):
            fig.text(x, y, val if len(val) <= width else val[:width - 1] + "…", fontsize=7)
        y -= 0.019
    fig.text(0.04, 0.03, " ".join(info.header_lines()[1:2]), fontsize=6.5)


def _t(v: object) -> str:
    return "" if v is None or (not isinstance(v, str) and pd.isna(v)) else str(v)


__all__ = ["write_abutters_map"]

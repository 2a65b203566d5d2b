"""Helpers for the web map tests (`from publishkit import ...`): a headless Chromium driven by
Playwright, offline, and the card's expected words computed from the applicability layer.

The expected words are written here again from the applicability GeoPackage's values, not
taken from the page's code, so a card that rounds, drops a null or says "No" for "not
checked" fails.
"""

from __future__ import annotations

import math
import os
import shutil
from pathlib import Path
from typing import Any

import pandas as pd

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
AXE = Path(__file__).resolve().parents[1] / "data" / "web" / "axe.min.js"


def launch(pw):
    """Debian's Chromium (never a browser Playwright downloads), headless."""
    assert Path(CHROMIUM).is_file(), ("Debian's chromium package is needed for the web map "
                                      "tests (apt-get install -y chromium; make test does it)")
    return pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


class Offline:
    """Every request of a page, logged; any that is not ``file://`` is aborted (and kept)."""

    def __init__(self, page) -> None:
        self.urls: list[str] = []
        self.errors: list[str] = []
        page.route("**/*", self._route)
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)

    def _route(self, route) -> None:
        url = route.request.url
        self.urls.append(url)
        if url.startswith("file://"):
            route.continue_()
        else:
            route.abort()

    @property
    def off_machine(self) -> list[str]:
        return [u for u in self.urls if not u.startswith("file://")]


def open_site(page, site: Path, fragment: str = "") -> None:
    page.goto((site / "index.html").as_uri() + fragment)
    page.wait_for_selector("html[data-ready=true]", timeout=60_000)


def keep_screenshot(page, tmp_path: Path, name: str, **kwargs: Any) -> Path:
    """A screenshot kept as a test artefact: in tmp_path, and in $SWM_GIS_ARTEFACTS if set."""
    path = tmp_path / f"{name}.png"
    page.screenshot(path=str(path), **kwargs)
    assert path.stat().st_size > 1000
    folder = os.environ.get("SWM_GIS_ARTEFACTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, Path(folder) / path.name)
    return path


# --------------------------------------------------------------------------- expected words
def _int(v: float) -> str:
    return f"{int(round(v)):,}"


def _null(v: Any) -> bool:
    return v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v))


def expected_card(row: dict[str, Any], *, ran: dict[str, bool], distance_ft: float = 500.0
                  ) -> dict[str, str]:
    """The status word (and the figures) each card field must show for one applicability row.

    Returns field -> the text the field must start with.
    """
    d = f"{_int(distance_ft)} ft"
    nh = row.get("nhesp_within_distance", row.get("nhesp_within_500ft"))
    out = {"area": f"{_int(row['area_sqft'])} sq ft ({row['area_acres']:.2f} acres)",
           "trigger": "Yes: the lot alone is" if row["can_reach_trigger"] else
           "No: the lot alone is under"}
    if _null(nh):
        out["habitat"] = ("Not checked for this parcel" if ran["nhesp"]
                          else "Not checked: this map has no NHESP")
    elif nh:
        dist = row["nhesp_distance_ft"]
        out["habitat"] = ("Yes: the nearest mapped habitat or certified vernal pool is "
                          + ("on or touching" if round(dist) == 0 else f"{_int(dist)} ft away"))
    else:
        dist = row["nhesp_distance_ft"]
        out["habitat"] = (f"No: none within {d}" if _null(dist)
                          else f"No: the nearest is {_int(dist)} ft away")
    if _null(row["in_sfha"]):
        out["floodplain"] = "Not checked"
    elif row["in_sfha"]:
        share = row["sfha_fraction"]
        out["floodplain"] = ("Yes: part of the parcel" if _null(share) else
                             f"Yes: {share * 100:.1f}% of the parcel "
                             f"({_int(row['sfha_area_sqft'])} sq ft)")
    else:
        out["floodplain"] = "No: no part of the parcel"
    for field, col in (("huc12", "huc12"), ("huc10", "huc10")):
        value = row.get(col)
        out[field] = (str(value) if not _null(value) else
                      "Not determined" if ran[col] else "Not checked")
    for field, col in (("orw", "drains_to_orw"), ("impaired", "drains_to_impaired")):
        value = row[col]
        if _null(value):
            out[field] = ("Not determined: the trace leaves the town's data" if ran[col]
                          else "Not checked")
        else:
            out[field] = "Yes: runoff" if value else "No: runoff from every part"
    return out

"""The public web map's page: legend, parcel cards, the static files (the display geometry is
encoded by :mod:`swm_gis.webmap.encode`, the search index built by :mod:`swm_gis.webmap.search`).

Pure assembly for :mod:`swm_gis.webmap.job` (the job): frames and tables in, the content of
``data/data.js`` out, then the vendored page (``swm_gis/web``: ``index.html``, ``app.js``,
``app.css``, Leaflet) copied beside it. No file of the town is read here.

* The map key is the package's one key (``swm_gis/tables/legend.toml`` through
  :mod:`swm_gis.applicability.palette`), the QGIS style's and the printed map's too: a class
  looks the same in every town (colour: the strongest constraint; patterns: the others and the
  checks not run; heavy outline: a large parcel), whatever style an older file stores.
* A card's figures are the applicability layer's values, rounded for people (whole sq ft and
  feet, acres to 2 decimals, shares to 0.1 %); the geometry is simplified for display only.
* A null flag is never written as "no": each card carries the null, and the page says, from
  the checks table, whether the check did not run for the town ("not checked") or ran and could
  not decide for this parcel (for drainage: "the trace leaves the town's data").
"""

from __future__ import annotations

import html
import json
import math
import shutil
import tomllib
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import pandas as pd

from swm_gis.units import SQFT_PER_ACRE

#: Where the page's static files live in the package (vendored: no CDN).
WEB_FOLDER = "web"
#: Files of the page copied from the package, relative to the site's folder.
STATIC_FILES = ("assets/app.js", "assets/shapes.js", "assets/search.js", "assets/key.js",
                "assets/app.css",
                "assets/leaflet/leaflet.js", "assets/leaflet/leaflet.css",
                "assets/leaflet/LICENSE", "assets/leaflet/VERSION")
DATA_FILE = "data/data.js"
META_FILE = "publish.json"
INDEX_FILE = "index.html"
#: The flag of the NHESP check, as a map may name it: after the rule distance, or its 500 ft.
NHESP_COLUMNS = ("nhesp_within_distance", "nhesp_within_500ft")


# =========================================================================== the Chapter 320 words
@lru_cache(maxsize=8)
def quotes(path: str | None = None) -> dict[str, dict[str, str]]:
    """The regulation quoted per card finding: ``{key: {section, text}}``, from the quotes file
    its profile names (``quotes = ...``; default: the default profile's); a profile that names
    none is quoted nowhere (``path = ""``)."""
    if path is None:
        from swm_gis.config.town_regulation import read_profile

        default = read_profile(None).quotes
        path = "" if default is None else str(default)
    if path == "":
        return {}
    text = Path(path).read_text(encoding="utf-8")
    return {k: {"section": v["section"], "text": v["text"]}
            for k, v in tomllib.loads(text)["quotes"].items()}


def regulation_words(applied: Any) -> dict[str, str]:
    """How the page names the regulation applied: ``name`` ("Stormwater Management Rules and
    Regulations (Chapter 320)"), ``short`` ("Chapter 320", the cards' quotes' caption) and
    ``quotes`` (its quotes file, "" when it names none)."""
    profile = applied.profile
    short = profile.chapter or profile.short_name or profile.title
    name = f"{profile.title} ({profile.chapter})" if profile.chapter else profile.title
    return {"name": name, "short": short,
            "quotes": str(profile.quotes) if profile.quotes else ""}


# =========================================================================== legend
def legend_entries(classes: list[str], *, counts: dict[str, int] | None = None,
                   trigger_sqft: float = SQFT_PER_ACRE) -> list[dict[str, Any]]:
    """The classes on the map, each with its look from the package's one map key
    (:mod:`swm_gis.applicability.palette`, the QGIS style's and the printed map's too).

    One entry per class present, in legend order (:func:`~swm_gis.applicability.classify.
    class_order`): ``n`` (its number: the cards' ``c``), ``value`` and ``label`` (the class),
    ``fill`` (the fill's key), ``colour`` (its colour), ``key`` (the fill's number in the map
    key, :func:`map_key`), ``marks`` (the keys of the patterns drawn over it), ``large`` (the
    heavy outline of a parcel that can reach the trigger) and ``parcels``.
    """
    from swm_gis.applicability.classify import class_order
    from swm_gis.applicability.palette import class_look, fill_colours

    present = class_order([c for c in classes if c is not None])
    counts = counts or {}
    numbers = {(e["kind"], e["key"]): e["n"]
               for e in map_key(present, counts=counts, trigger_sqft=trigger_sqft)}
    colours = fill_colours()
    out = []
    for i, value in enumerate(present, start=1):
        look = class_look(value)
        out.append({"n": i, "value": value, "label": value, "fill": look.fill,
                    "colour": colours[look.fill], "key": numbers[("fill", look.fill)],
                    "marks": list(look.marks), "large": look.large,
                    "parcels": int(counts.get(value, 0))})
    return out


def map_key(classes: list[str], *, counts: dict[str, int] | None = None,
            trigger_sqft: float = SQFT_PER_ACRE) -> list[dict[str, Any]]:
    """The map key of these classes (:func:`swm_gis.applicability.palette.key_entries`): the
    web map lists it, numbered as the QGIS style's legend and the printed map's key."""
    from swm_gis.applicability.palette import key_entries

    return key_entries(classes, counts=counts, trigger_sqft=trigger_sqft)


# =========================================================================== cards
def nhesp_column(frame: pd.DataFrame) -> str | None:
    """The NHESP flag's column: ``nhesp_within_distance`` or ``nhesp_within_500ft``."""
    return next((c for c in NHESP_COLUMNS if c in frame.columns), None)


def _flag(values: pd.Series | None, n: int) -> list[int | None]:
    """A nullable flag as 1 / 0 / None (null stays null: never read as 0)."""
    if values is None:
        return [None] * n
    s = pd.Series(values).astype("boolean")
    return [None if pd.isna(v) else int(bool(v)) for v in s]


def _number(values: pd.Series | None, n: int, *, digits: int) -> list[float | int | None]:
    if values is None:
        return [None] * n
    a = pd.to_numeric(pd.Series(values), errors="coerce").to_numpy(dtype=float)
    if digits == 0:
        return [None if not math.isfinite(v) else int(round(v)) for v in a]
    return [None if not math.isfinite(v) else round(float(v), digits) for v in a]


def _text(values: pd.Series | None, n: int) -> list[str | None]:
    if values is None:
        return [None] * n
    return [None if v is None or (isinstance(v, float) and math.isnan(v)) or pd.isna(v)
            or str(v).strip() == "" else str(v) for v in pd.Series(values).astype(object)]


def card_records(frame: pd.DataFrame, legend: list[dict[str, Any]], *,
                 addresses: dict[str, list[str]] | None = None,
                 owners: dict[str, list[dict[str, str]]] | None = None) -> list[dict[str, Any]]:
    """One record per parcel with the figures its card shows (no geometry).

    Keys: ``id`` (parcel id), ``ml`` (map-lot), ``c`` (legend number), ``a`` (sq ft, whole),
    ``ac`` (acres, 2 decimals), ``t`` (lot alone >= the trigger: 1/0), ``h`` (NHESP within the
    rule distance: 1/0/null), ``hd`` (distance to the nearest feature, ft, whole; null beyond
    the search or unknown), ``f`` (in the SFHA: 1/0/null), ``fs`` (share in the SFHA, %, 1
    decimal), ``fa`` (SFHA area, sq ft), ``h12``/``h12n``/``h10`` (watersheds), ``o`` / ``im``
    (drains to an ORW / impaired water: 1/0/null), ``ca`` (impairment causes), ``ad``
    (site addresses) and, only when the town opts in, ``ow`` (owners and mailing addresses).
    """
    n = len(frame)
    col = frame.get
    number = {e["value"]: e["n"] for e in legend}
    nh = nhesp_column(frame)
    share = col("sfha_fraction")
    share = None if share is None else pd.to_numeric(share, errors="coerce") * 100
    fields = {
        "id": _text(col("parcel_id"), n), "ml": _text(col("map_par_id"), n),
        "c": [number.get(c) for c in frame["screening_class"].astype(object)],
        "a": _number(col("area_sqft"), n, digits=0),
        "ac": _number(col("area_acres"), n, digits=2),
        "t": _flag(col("can_reach_trigger"), n),
        "h": _flag(col(nh) if nh else None, n),
        "hd": _number(col("nhesp_distance_ft"), n, digits=0),
        "f": _flag(col("in_sfha"), n), "fs": _number(share, n, digits=1),
        "fa": _number(col("sfha_area_sqft"), n, digits=0),
        "h12": _text(col("huc12"), n), "h12n": _text(col("huc12_name"), n),
        "h10": _text(col("huc10"), n),
        "o": _flag(col("drains_to_orw"), n), "im": _flag(col("drains_to_impaired"), n),
        "ca": _text(col("impairment_causes"), n),
    }
    records = [{k: v[i] for k, v in fields.items() if v[i] is not None or k in _KEEP_NULL}
               for i in range(n)]
    for rec in records:
        pid = rec.get("id")
        if addresses and pid in addresses:
            rec["ad"] = addresses[pid]
        if owners is not None and pid in owners:
            rec["ow"] = owners[pid]
    return records


#: Keys written even when null: the card says "not checked" for them, so the null is data.
_KEEP_NULL = frozenset({"h", "f", "o", "im", "h12", "h10"})


def addresses_by_parcel(assess: pd.DataFrame | None) -> dict[str, list[str]]:
    """Parcel id -> its distinct site addresses (condominium units share a parcel), sorted."""
    if assess is None or assess.empty or "site_address" not in assess:
        return {}
    df = assess[["parcel_id", "site_address"]].dropna()
    df = df.assign(site_address=df["site_address"].astype(str).str.split().str.join(" "))
    df = df[df["site_address"] != ""]
    return {str(k): sorted(set(v)) for k, v in df.groupby("parcel_id")["site_address"]}


def owners_by_parcel(assess: pd.DataFrame | None) -> dict[str, list[dict[str, str]]]:
    """Parcel id -> owners with their mailing address (only published on the town's opt-in)."""
    if assess is None or assess.empty or "owner" not in assess:
        return {}
    cols = ["owner", "co_owner", "address", "address2", "city", "state", "zip"]
    out: dict[str, list[dict[str, str]]] = {}
    for row in assess.to_dict("records"):
        rec = {k: " ".join(str(row[k]).split()) for k in cols
               if k in row and row[k] is not None and not pd.isna(row[k]) and str(row[k]).strip()}
        if rec.get("owner") and rec not in out.setdefault(str(row["parcel_id"]), []):
            out[str(row["parcel_id"])].append(rec)
    return out


# =========================================================================== the files
def _web() -> Any:
    """The package's ``web`` folder (a data folder, not a Python package)."""
    return resources.files("swm_gis").joinpath(WEB_FOLDER)


def data_script(data: dict[str, Any]) -> str:
    """``data/data.js``: the site's data as one global (a script, not a fetch(): a page opened
    from ``file://`` may not fetch files beside it)."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    # inside a <script> "</" must not end it; JSON allows "<\/"
    return "window.SWM_DATA = " + text.replace("</", "<\\/") + ";\n"


def index_html(*, title: str, town: str, generated: str, synthetic: bool,
               regulation: str) -> str:
    """``index.html`` from the package's template, with the town's name, its regulation (the
    profile applied's name, ``meta.regulation.name``) and the date."""
    template = _web().joinpath("index.html").read_text(encoding="utf-8")
    values = {"TITLE": title, "TOWN": town, "GENERATED": generated, "REGULATION": regulation,
              "SYNTHETIC": ("<p class=\"synthetic\" role=\"note\"><strong>Synthetic sample "
                            "town:</strong> made-up data for demonstration, not a real place."
                            "</p>") if synthetic else ""}
    for key, value in values.items():
        template = template.replace("{{" + key + "}}",
                                    value if key == "SYNTHETIC" else html.escape(value))
    return template


def write_site(out: Path, data: dict[str, Any], meta: dict[str, Any]) -> dict[str, Path]:
    """Write the page into the folder ``out`` (a staging folder); returns key -> path."""
    web = _web()
    written = {}
    for rel in STATIC_FILES:
        target = out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        src = web.joinpath(rel.removeprefix("assets/"))
        with resources.as_file(src) as path:
            shutil.copyfile(path, target)
        written[rel] = target
    (out / "data").mkdir(parents=True, exist_ok=True)
    (out / DATA_FILE).write_text(data_script(data), encoding="utf-8")
    written[DATA_FILE] = out / DATA_FILE
    (out / INDEX_FILE).write_text(
        index_html(title=data["meta"]["title"], town=data["meta"]["town"],
                   generated=data["meta"]["generated"], synthetic=data["meta"]["synthetic"],
                   regulation=data["meta"]["regulation"]["name"]),
        encoding="utf-8")
    written[INDEX_FILE] = out / INDEX_FILE
    (out / META_FILE).write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n",
                                 encoding="utf-8")
    written[META_FILE] = out / META_FILE
    return written


__all__ = ["DATA_FILE", "INDEX_FILE", "META_FILE", "STATIC_FILES", "addresses_by_parcel",
           "card_records", "data_script", "index_html", "legend_entries",
           "map_key", "nhesp_column", "owners_by_parcel", "quotes", "regulation_words",
           "write_site"]

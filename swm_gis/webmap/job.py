"""The public "do I need a stormwater permit?" web map: :func:`publish` (``swm-gis publish``).

Reads the applicability map (a GeoPackage written by ``swm-gis applicability``, or computed
here), the assessing table's site addresses and the context layers (town boundary, streets,
water), and writes a static site that opens from a folder or any web server, offline:
``index.html``, ``data/data.js``, ``assets/`` (the page's script and style, Leaflet with its
licence), ``applicability_map.pdf`` (the whole map on a printable page, same key) and
``publish.json`` (what the site rests on). The page itself is assembled by
:mod:`swm_gis.webmap.site`; docs/publish.md describes what a visitor sees.

Nothing is published beyond the applicability map, the site addresses and the context layers:
owner names and mailing addresses only where the town's config opts in
(``[publish] include_owners = true``). Outputs follow the rules of every command
(:mod:`swm_gis.io.outputs`): an output holding an input is refused, the site is staged and moved
in whole, an existing file is replaced only with ``overwrite``.
"""

from __future__ import annotations

import datetime as dt
import html
import json
import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import geopandas as gpd
import numpy as np
import pandas as pd

from swm_gis.config.town import TownConfig, load_config
from swm_gis.config.town_regulation import not_named_warning
from swm_gis.errors import InputFileError, LayerDataError, OutputExistsError, SwmGisError
from swm_gis.io import layers as io
from swm_gis.io.outputs import api_output_dir, config_inputs, final_paths
from swm_gis.manifest import publish_manifest
from swm_gis.messages import option
from swm_gis.progress import Progress, quiet
from swm_gis.units import FT_PER_M, metres_per_unit
from swm_gis.webmap import encode, print_map, search, site

#: Default display simplification (feet): under a metre, invisible at the zoom a parcel is read
#: at, and it keeps Cambridge's 13,035 parcels well under 15 MB. Cards never use these shapes.
DEFAULT_SIMPLIFY_FT = 1.5
#: The context layers drawn under the parcels, in drawing order.
CONTEXT_LAYERS = ("waterbodies", "streams", "streets", "town_boundary")
#: The printable map of the site (:mod:`swm_gis.webmap.print_map`), linked from the page.
PRINT_FILE = "applicability_map.pdf"
#: The columns a GeoPackage must have to be published.
REQUIRED_COLUMNS = ("parcel_id", "screening_class", "area_sqft")



@dataclass
class WebMap:
    """A published web map (what :func:`publish` wrote).

    Attributes
    ----------
    path
        The site's folder (open ``path / "index.html"`` in a browser).
    files
        Output key (the file's path inside the site) -> file.
    parcels
        Parcels on the map.
    size_bytes
        Total size of the site's files.
    simplify_ft
        The display simplification tolerance, in feet.
    legend
        The classes on the map (number, class, look, parcels), in legend order.
    key
        The map key (:func:`swm_gis.applicability.palette.key_entries`): the colours, patterns
        and outline the classes use, numbered as in the QGIS style and the printed map.
    warnings
        Things the page could not show (a context layer that could not be read).
    addressed
        Parcels with a site address to search (the others are found by map-lot or a click).
    """

    path: Path
    files: dict[str, Path]
    parcels: int
    size_bytes: int
    simplify_ft: float
    legend: list[dict[str, Any]] = field(default_factory=list)
    key: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    addressed: int = 0

    @property
    def summary_lines(self) -> list[str]:
        """A few lines for people: what was published and how big it is."""
        lines = [f"{self.parcels:,} parcels published in {len(self.legend)} classes "
                 f"(a map key of {len(self.key)} entries); site "
                 f"{self.size_bytes / 1e6:.1f} MB (display geometry simplified by "
                 f"{self.simplify_ft:g} ft; card figures from the exact map)",
                 f"{self.addressed:,} of {self.parcels:,} parcels have a site address to search "
                 "(the others by map-lot or on the map)",
                 f"open {self.path / site.INDEX_FILE} in a browser, or copy the folder to any "
                 "web server"]
        return lines + [f"Warning: {w}" for w in self.warnings]

    def manifest(self, files: dict[str, Path] | None = None,
                 out_dir: str | os.PathLike | None = None, *,
                 summary: list[str] | None = None) -> dict[str, Any]:
        """The result manifest (:mod:`swm_gis.manifest`): the site's files (by default
        ``files``), the parcels published, the size, the warnings."""
        return publish_manifest(self, self.files if files is None else files,
                                self.path if out_dir is None else out_dir, summary=summary)

    def _repr_html_(self) -> str:
        # written here, not with swm_gis.results: a job does not import the layer above it
        items = "".join(f"<li>{html.escape(line)}</li>" for line in self.summary_lines)
        table = (pd.DataFrame(self.legend)[["n", "label", "parcels"]].to_html(index=False)
                 if self.legend else "")
        return f"<div><strong>Published web map</strong><ul>{items}</ul>{table}</div>"


def publish(config: TownConfig | str | os.PathLike, out: str | os.PathLike, *,
            source: str | os.PathLike | None = None, overwrite: bool = False,
            simplify_ft: float | None = None, progress: Progress | None = None,
            staged: bool = False) -> WebMap:
    """Write the public web map of the applicability classes (what ``swm-gis publish`` does).

    Parameters
    ----------
    config
        The town config (:func:`swm_gis.load_config`) or the path of its TOML file.
    out
        The site's folder (created if missing). Files of the same name are replaced only with
        ``overwrite``; other files in it are left alone.
    source
        An applicability GeoPackage (written by :func:`swm_gis.applicability_map`) to publish;
        default: the map is computed from the config first.
    overwrite
        Replace the site's files if they exist.
    simplify_ft
        Display simplification tolerance in feet (default :data:`DEFAULT_SIMPLIFY_FT`, or the
        config's ``[publish] simplify_ft``); 0 keeps the exact shapes.
    progress
        ``progress(fraction, message)`` callback.
    staged
        ``out`` is already the staging folder of ``swm_gis.io.outputs.output_package`` (a
        command's, which checked the site folder first): written into directly.

    Returns
    -------
    WebMap
        ``.path``, ``.files``, ``.parcels``, ``.size_bytes``, ``.legend``.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import swm_gis
    >>> town = Path(swm_gis.__file__).parents[1] / "data" / "sample" / "town.toml"
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     web = swm_gis.publish(town, Path(tmp) / "site")
    ...     (web.path / "index.html").is_file(), web.parcels
    (True, 3167)
    """
    progress = progress or quiet
    cfg = config if isinstance(config, TownConfig) else load_config(config)
    tolerance_ft = _tolerance(cfg, simplify_ft)
    inputs = config_inputs(cfg) + ([str(source)] if source is not None else [])
    final = Path(out)
    if not staged:  # a command checks its own output before staging
        check_site_folder(final, overwrite=overwrite)
    with api_output_dir(final, staged=staged, inputs=inputs, overwrite=overwrite,
                        command="swm_gis publish") as stage:
        progress(0.0, "reading the applicability map" if source else
                 "classifying every parcel (applicability map)")
        amap = read_applicability(source) if source is not None else _computed(cfg, progress)
        progress(0.6, "reading addresses and map context")
        data, meta, warnings = build_site_data(cfg, amap, tolerance_ft=tolerance_ft)
        progress(0.85, "writing the site")
        written = site.write_site(stage, data, meta)
        written[PRINT_FILE] = _print_map(stage / PRINT_FILE, amap.frame, data["meta"])
        size = sum(p.stat().st_size for p in written.values())
    files = final_paths(written, stage, final) if stage != final else written
    progress(1.0, "done")
    return WebMap(path=final, files=files, parcels=data["meta"]["parcels"], size_bytes=size,
                  simplify_ft=tolerance_ft, legend=data["meta"]["legend"], key=data["meta"]["key"],
                  warnings=warnings,
                  addressed=data["search"]["addressed"])


def _print_map(path: Path, frame: gpd.GeoDataFrame, meta: dict[str, Any]) -> Path:
    """``applicability_map.pdf``: the whole town on a page with the web map's key."""
    synthetic = meta["synthetic"] and "synthetic" not in meta["town"].lower()
    town = meta["town"] + (" (synthetic sample town)" if synthetic else "")
    return print_map.write_map_pdf(
        path, frame, meta["legend"], meta["key"], title=meta["title"],
        subtitle=f"{town}: every parcel under the {meta['regulation']['name']}, by what the "
                 f"town's data shows. Generated {meta['generated']}.")


def check_site_folder(out: str | os.PathLike, *, overwrite: bool) -> None:
    """Refuse, without ``overwrite``, a folder that holds files but no site of ours.

    A town's web folder often holds other pages: the site is written into it only when it is
    empty, holds an earlier ``swm-gis publish`` site (its ``publish.json``) or ``overwrite`` is
    given; even then only the site's own files are replaced (:mod:`swm_gis.io.outputs`).
    """
    folder = Path(out)
    if overwrite or not folder.is_dir() or not any(folder.iterdir()):
        return
    record = _json(_read_text(folder / site.META_FILE)) or {}
    if isinstance(record, dict) and record.get("written_by") == "swm-gis publish":
        return
    raise OutputExistsError(
        f"The folder {folder} already holds files that are not a site written by swm-gis "
        f"publish. Choose an empty or new folder for {option('out')}, or pass "
        f"{option('overwrite')} to write the "
        "site's files into it (other files are left alone)."
    )


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _tolerance(cfg: TownConfig, simplify_ft: float | None) -> float:
    from swm_gis.config.strict import finite_value

    value = simplify_ft if simplify_ft is not None else (
        cfg.publish.simplify_ft if cfg.publish.simplify_ft is not None else DEFAULT_SIMPLIFY_FT)
    return finite_value(value, what="simplify_ft", low=0, high=100, unit="ft")


# =========================================================================== the map to publish
@dataclass
class Applicability:
    """The applicability map as published: the layer, its checks, its QGIS style."""

    frame: gpd.GeoDataFrame
    checks: list[dict[str, Any]]
    qml: str | None = None
    run: dict[str, Any] = field(default_factory=dict)
    source: str | None = None


def _computed(cfg: TownConfig, progress: Progress) -> Applicability:
    """The applicability map of the town, classified in memory (the job's own function, not
    :func:`swm_gis.applicability_map`: a job does not import the job-level API above it)."""
    from swm_gis.applicability.run import classify_town

    run = classify_town(cfg, progress=lambda f, m: progress(0.55 * f, m))
    now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    return Applicability(frame=run.frame, checks=list(run.checks),
                         run={"written_utc": now, "parameters": dict(run.parameters or {})})


def read_applicability(path: str | os.PathLike) -> Applicability:
    """An applicability GeoPackage: layer, checks table and stored QGIS style, checked.

    Raises :class:`~swm_gis.errors.InputFileError` when the file is missing or is not an
    applicability map (no ``applicability`` layer, or a layer without its columns).
    """
    from swm_gis.applicability.overlays import CHECKS_TABLE, LAYER
    from swm_gis.applicability.write import read_result

    path = Path(path)
    if not path.is_file():
        raise InputFileError(f"The applicability map {path} does not exist. Write it with "
                             f"swm-gis applicability {option('out', 'FILE.gpkg')}, or leave out "
                             f"{option('source')} to compute it.")
    try:
        import pyogrio

        names = [str(n) for n in pyogrio.list_layers(path)[:, 0]]
    except Exception as exc:  # GDAL says "not recognized as a supported file format"
        raise InputFileError(f"{path} cannot be read as a GeoPackage ({exc}). Give the "
                             "GeoPackage written by swm-gis applicability.") from exc
    if LAYER not in names:
        raise InputFileError(f"{path} has no '{LAYER}' layer (it holds: {', '.join(names)}). "
                             "Give the GeoPackage written by swm-gis applicability "
                             f"{option('out')}.")
    frame = read_result(path)
    missing = [c for c in REQUIRED_COLUMNS if c not in frame.columns]
    if missing:
        raise LayerDataError(f"The '{LAYER}' layer of {path} has no {', '.join(missing)} "
                             "column(s); it was not written by swm-gis applicability. Write it "
                             f"again with swm-gis applicability {option('out', 'FILE.gpkg')}.")
    if frame.crs is None:
        raise LayerDataError(f"The '{LAYER}' layer of {path} declares no CRS; write it again "
                             "with swm-gis applicability.")
    checks, run = [], {}
    if CHECKS_TABLE in names:
        table = pyogrio.read_dataframe(path, layer=CHECKS_TABLE, read_geometry=False)
        for row in table.to_dict("records"):
            if row.get("check") == "run":
                run = _json(row.get("note")) or {}
                continue
            checks.append({"name": row.get("check"), "ran": bool(row.get("ran")),
                           "section": _clean(row.get("chapter_320")),
                           "sources": _json(row.get("sources")) or [],
                           "note": _clean(row.get("note"))})
    return Applicability(frame=frame, checks=checks, qml=_stored_style(path, LAYER), run=run,
                         source=str(path))


def _stored_style(path: Path, layer: str) -> str | None:
    """The default QGIS style stored in the GeoPackage for ``layer`` (None without one)."""
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            row = con.execute('SELECT styleQML FROM layer_styles WHERE f_table_name = ? '
                              'ORDER BY useAsDefault DESC, id DESC LIMIT 1', (layer,)).fetchone()
        finally:
            con.close()
    except sqlite3.Error:
        return None
    return row[0] if row else None


def _json(text: Any) -> Any:
    try:
        return json.loads(text) if isinstance(text, str) and text else None
    except ValueError:
        return None


def _clean(value: Any) -> str | None:
    return None if value is None or (isinstance(value, float) and np.isnan(value)) \
        else str(value)


# =========================================================================== the site's data
def build_site_data(cfg: TownConfig, amap: Applicability, *, tolerance_ft: float
                    ) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    """The content of ``data/data.js`` and ``publish.json``, and the warnings."""
    frame = amap.frame
    warnings: list[str] = []
    town = amap.run.get("town")
    if town and town != cfg.name:  # a map of another town published under this one's name
        warnings.append(f"the applicability map was computed for \"{town}\", the config is "
                        f"for \"{cfg.name}\": the page is titled for the config's town and "
                        "searches its assessing table")
    if (named := not_named_warning(cfg)) is not None:
        warnings.append(named["text"])
    classes = frame["screening_class"].astype(object).tolist()
    counts = pd.Series(classes, dtype=object).value_counts().to_dict()
    params = amap.run.get("parameters") or {}
    trigger_sqft = float(params.get("trigger_sqft", cfg.rules.trigger_sqft))
    legend = site.legend_entries(classes, counts=counts, trigger_sqft=trigger_sqft)
    key = site.map_key(classes, counts=counts, trigger_sqft=trigger_sqft)
    assess = _assess(cfg, warnings)
    owners = site.owners_by_parcel(assess) if cfg.publish.include_owners else None
    records = site.card_records(frame, legend, addresses=site.addresses_by_parcel(assess),
                                owners=owners)
    index = search.search_index(records)
    tol = tolerance_ft / FT_PER_M / metres_per_unit(frame.crs)
    shapes = encode.encode_shapes(frame.geometry.values.to_numpy(), crs=frame.crs,
                                  tolerance=tol)
    context = _context(cfg, tol, warnings)
    generated = dt.datetime.now(dt.UTC)
    rule_ft = params.get("habitat_distance_ft", cfg.rules.habitat_distance_ft)
    sources = _public_sources(cfg, amap.checks)
    checks = {c["name"]: {"ran": bool(c["ran"]), "note": c.get("note"),
                          "section": c.get("section")} for c in amap.checks}
    # one name on the page whatever the map calls the check (nhesp_within_500ft or
    # nhesp_within_distance)
    nh = next((c for c in site.NHESP_COLUMNS if c in checks), None)
    if nh:
        checks.setdefault("nhesp", checks[nh])
    title = cfg.publish.title or f"Do I need a stormwater permit? {cfg.name}"
    regulation = site.regulation_words(cfg.applied_regulation())
    meta = {
        "title": title, "town": cfg.name, "synthetic": bool(cfg.synthetic),
        "generated": generated.strftime("%-d %B %Y, %H:%M UTC"),
        "generated_utc": generated.isoformat(timespec="seconds"),
        "map_computed_utc": amap.run.get("written_utc"),
        "habitat_distance_ft": float(rule_ft),
        "trigger_sqft": trigger_sqft,
        "simplify_ft": tolerance_ft, "checks": checks, "sources": sources,
        "legend": legend, "key": key, "quotes": site.quotes(regulation.pop("quotes")),
        "regulation": regulation,
        "owners_published": owners is not None,
        "parcels": len(records),
    }
    meta["addressed"] = index["addressed"]
    data = {"meta": meta, "cards": encode.columns(records), "shapes": shapes,
            "quant": encode.QUANT, "search": index, "context": context}
    record = {"written_by": "swm-gis publish", **{k: v for k, v in meta.items()
                                                  if k not in ("quotes",)},
              "applicability_source": Path(amap.source).name if amap.source else None,
              "warnings": warnings}
    return data, record, warnings


def _assess(cfg: TownConfig, warnings: list[str]) -> pd.DataFrame | None:
    if not cfg.has("assess"):
        warnings.append("no assessing table in the town config: search by address is off "
                        "(search by map-lot still works)")
        return None
    table = io.read_table(cfg, "assess")
    return table


def _context(cfg: TownConfig, tolerance: float, warnings: list[str]) -> dict[str, Any]:
    """Town boundary, streets and water, simplified for display (each only if configured)."""
    out: dict[str, Any] = {}
    for key in CONTEXT_LAYERS:
        if not cfg.has(key):
            continue
        try:
            frame = io.read_layer(cfg, key)
        except SwmGisError as exc:
            warnings.append(f"the {key} layer could not be read, so the map does not show it: "
                            f"{exc}")
            continue
        geoms = frame.geometry.values.to_numpy()
        kind = "line" if key in ("streets", "streams") else "polygon"
        out[key] = {"kind": kind, "n": len(geoms),
                    "shapes": encode.encode_shapes(geoms, crs=frame.crs, tolerance=tolerance,
                                                   labels=False)}
    return out


def _public_sources(cfg: TownConfig, checks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The data each layer came from, as a visitor may read it: the file's name (never its
    folder), the layer, its modification date and the config's vintage."""
    seen: dict[str, dict[str, Any]] = {}
    infos = [s for c in checks for s in (c.get("sources") or [])]
    if cfg.has("parcels"):
        infos.insert(0, io.source_info(cfg.layer("parcels")))
    for key in ("assess", *CONTEXT_LAYERS):
        if cfg.has(key):
            infos.append(io.source_info(cfg.layer(key)))
    for info in infos:
        key = info.get("key")
        if not key or key in seen:
            continue
        spec = cfg.layers.get(key)
        name = info.get("label") or _file_name(info.get("file"))
        seen[key] = {"key": key, "name": name, "layer": info.get("layer"),
                     "modified": (info.get("modified") or "")[:10] or None,
                     "vintage": spec.vintage if spec is not None else None}
    return list(seen.values())


def _file_name(file: Any) -> str | None:
    if not file:
        return None
    text = str(file)
    if text.startswith(("PG:", "postgresql://", "postgres://")):
        return "database table"
    return Path(text.split(" + ")[0]).name + (" and others" if " + " in text else "")


__all__ = ["DEFAULT_SIMPLIFY_FT", "WebMap", "build_site_data", "check_site_folder", "publish",
           "read_applicability"]

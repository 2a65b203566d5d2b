"""The result manifest: what a job wrote and found, in one structure every front end reads.

The last line of a writing command's JSON progress carries it (``"manifest"``),
and the job's result object gives it (``Screening.manifest()``, ``AbutterPackage.manifest()``,
``ApplicabilityMap.manifest()``, ``WebMap.manifest()``). Schema:
``swm_gis/schemas/manifest.schema.json``; ``docs/integrators.md`` describes each key::

    {"version": 1, "command": "abutters", "out_dir": "...",
     "files": [{"key", "path", "role", "format", "title", "layers": [...]}],
     "counts": {...}, "warnings": [{"code", "text", "parts"}], "findings": [...],
     "details": {...}, "summary": [...], "headline": "..."}

A front end (the QGIS plugin) takes its figures, warnings and file paths from here and never
re-reads the output files to recover them. Each output key's role, format and title live in
:data:`FILE_ROLES`, once. The builders below read what the result objects hold (plain dicts,
frames, lists); nothing here reads or writes a file.

Examples
--------
>>> entry = file_entry("mailing_list_csv", "/out/mailing_list.csv")
>>> entry["role"], entry["format"], entry["title"]
('mailing_list', 'csv', 'Mailing list: one row per notice recipient')
>>> m = build("abutters", "/out", [entry], counts={"abutting": 9}, summary=["9 abutting"])
>>> m["version"], m["headline"], m["findings"], m["warnings"]
(1, '9 abutting', [], [])
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from swm_gis.messages import parts

#: The manifest's version: a key changes meaning only with a new version.
VERSION = 1

#: Output key -> (role, title). The role is what a front end maps its outputs from (stable,
#: one per kind of file); the title says what the file is, in words.
FILE_ROLES: dict[str, tuple[str, str]] = {
    # swm-gis screen
    "screening_json": ("record", "The screening: every finding, figure and source (JSON)"),
    "screening_gpkg": ("layers", "The site and the features found, as map layers"),
    "screening_report_html": ("report_html", "Screening report (HTML)"),
    "screening_report_pdf": ("report_pdf", "Screening report (PDF)"),
    # swm-gis abutters
    "abutting_parcels_csv": ("abutting_parcels", "Abutting parcels, nearest first"),
    "mailing_list_csv": ("mailing_list", "Mailing list: one row per notice recipient"),
    "mailing_list_xlsx": ("mailing_workbook", "Mailing list with its certification sheet "
                                              "(Excel)"),
    "labels_pdf": ("labels", "Mailing labels (Avery sheet)"),
    "abutters_map_pdf": ("map_pdf", "Abutters map"),
    "certified_mail_pdf": ("certified_mail", "Certified mail book (PS Form 3877 layout)"),
    "left_out_csv": ("left_out", "Parcels within the distance left out, with the reason"),
    "mailing_review_csv": ("mailing_review", "Owners to review before mailing (no or "
                                             "incomplete address, likely duplicates)"),
    "certification_pdf": ("certification", "Certification sheet for the Board of Assessors"),
    "abutters_gpkg": ("layers", "Subject, search area, abutting and left-out parcels, as map "
                                "layers"),
    "abutters_json": ("record", "Counts, warnings and sources of the package (JSON)"),
    # swm-gis applicability
    "geopackage": ("layers", "Every parcel classified, with the summary and checks tables "
                             "and the QGIS style"),
    "postgis": ("layers", "Every parcel classified, in a PostGIS table"),
    # swm-gis regulation export
    "profile": ("regulation_profile", "A regulation profile (TOML) to edit for another town"),
    # swm-gis publish (keys are the files' paths inside the site)
    "index.html": ("web_page", "The web map's page (open it in a browser)"),
    "publish.json": ("record", "What the web map rests on: sources, classes, parameters (JSON)"),
    "applicability_map.pdf": ("map_pdf", "The whole map on a printable page"),
    "data/data.js": ("web_data", "The web map's parcels and context layers"),
}

#: The screening document's sections behind the findings (``details`` of a screening).
SCREENING_SECTIONS = ("disturbance", "development_type", "standards", "watersheds",
                      "mitigation", "habitats", "floodplain", "receiving_waters")

_FORMATS = {".toml": "toml", ".gpkg": "gpkg", ".csv": "csv", ".xlsx": "xlsx", ".pdf": "pdf",
            ".json": "json", ".html": "html", ".js": "js", ".css": "css", ".txt": "text",
            ".md": "text"}


def file_format(path: str | os.PathLike) -> str:
    """The file's format from its name (``"gpkg"``, ``"csv"``, ...); ``"postgis"`` for a
    database URL, else ``"other"`` (e.g. a licence text).

    >>> file_format("a/b.GPKG"), file_format("postgresql://h/db?table=t"), file_format("LICENSE")
    ('gpkg', 'postgis', 'other')
    """
    text = str(path)
    if text.startswith(("postgresql://", "postgres://", "PG:")):
        return "postgis"
    return _FORMATS.get(os.path.splitext(text)[1].lower(), "other")


def file_entry(key: str, path: str | os.PathLike, *, layers: list[dict[str, Any]] | None = None,
               folder: bool = False) -> dict[str, Any]:
    """One ``files`` entry (``folder``: the path is a folder of outputs); a key not in
    :data:`FILE_ROLES` (a report's or a site's asset) gets the role ``"asset"`` (``"folder"``)
    and its key as title."""
    fmt = "folder" if folder else file_format(path)
    role, title = FILE_ROLES.get(key, ("folder" if folder else "asset", key))
    entry: dict[str, Any] = {"key": key, "path": str(path), "role": role, "format": fmt,
                             "title": title}
    if layers is not None:
        entry["layers"] = layers
    return entry


def file_entries(files: Mapping[str, Any], *,
                 layers: Mapping[str, list[dict[str, Any]]] | None = None
                 ) -> list[dict[str, Any]]:
    """``files`` (output key -> path) as entries, in their order; ``layers`` by output key."""
    layers = layers or {}
    return [file_entry(k, p, layers=layers.get(k)) for k, p in files.items()]


def layer_entry(name: str, frame: Any = None, *, geometry: str | None = None,
                features: int | None = None) -> dict[str, Any]:
    """A GeoPackage layer: its name, geometry family (``polygon``, ``line``, ``point``,
    ``mixed``, ``none`` for a table; ``unknown`` for an empty layer) and feature count, read
    from the frame written unless given.

    >>> layer_entry("applicability", geometry="polygon", features=3167)
    {'name': 'applicability', 'geometry': 'polygon', 'features': 3167}
    """
    if frame is not None:
        features = len(frame) if features is None else features
        geometry = geometry or _geometry_family(frame)
    return {"name": name, "geometry": geometry or "unknown",
            "features": int(features or 0)}


def _geometry_family(frame: Any) -> str:
    if not hasattr(frame, "geom_type"):
        return "none"
    kinds = {str(t).replace("Multi", "").replace("LineString", "Line").lower()
             for t in frame.geom_type.dropna()}
    if not kinds:
        return "unknown"
    return kinds.pop() if len(kinds) == 1 else "mixed"


def warning_entries(warnings: Iterable[Any], *, code: str = "warning"
                    ) -> list[dict[str, Any]]:
    """``[{code, text, parts}]`` from ``{code, text}`` dicts or plain strings (``code`` then).
    ``parts`` is the text as plain strings and references (:func:`swm_gis.messages.parts`)."""
    out = []
    for w in warnings:
        if isinstance(w, Mapping):
            text, this = str(w.get("text", "")), str(w.get("code") or code)
        else:
            text, this = str(w), code
        out.append({"code": this, "text": text, "parts": parts(text)})
    return out


def build(command: str, out_dir: str | os.PathLike | None, files: list[dict[str, Any]], *,
          counts: Mapping[str, Any] | None = None, warnings: Iterable[Any] = (),
          findings: Iterable[Mapping[str, Any]] = (), details: Mapping[str, Any] | None = None,
          summary: Iterable[str] = (), headline: str | None = None) -> dict[str, Any]:
    """The manifest of one run (module docstring); ``headline`` defaults to the first line of
    the summary."""
    lines = [str(line) for line in summary]
    return {
        "version": VERSION,
        "command": command,
        "out_dir": None if out_dir is None else str(out_dir),
        "files": list(files),
        "counts": {k: _number(v) for k, v in (counts or {}).items()},
        "warnings": warning_entries(warnings),
        "findings": [dict(f) for f in findings],
        "details": dict(details or {}),
        "summary": lines,
        "headline": one_line(headline if headline is not None else
                             (lines[0] if lines else "")),
    }


def _number(value: Any) -> int | float | None:
    if value is None or isinstance(value, bool):
        return None if value is None else int(value)
    number = float(value)
    return int(number) if number.is_integer() and not isinstance(value, float) else number


def one_line(text: Any) -> str:
    """``text`` on one line, whole (never cut).

    >>> one_line("a\\n  b ")
    'a b'
    """
    return " ".join(str(text or "").split())


# --------------------------------------------------------------------------- screening
def screening_counts(document: Mapping[str, Any]) -> dict[str, Any]:
    """The figures a screening states: the disturbance, the retention volume, the floodplain
    and what was found (habitats, receiving waters, mitigation sites)."""
    d = document.get("disturbance") or {}
    s = document.get("standards") or {}
    f = document.get("floodplain") or {}
    rw = document.get("receiving_waters") or {}
    mitigation = document.get("mitigation") or []
    return {
        "area_sqft": d.get("area_sqft"), "area_acres": d.get("area_acres"),
        "common_plan_area_sqft": d.get("common_plan_area_sqft"),
        "required_retention_cuft": s.get("required_retention_cuft"),
        "sfha_area_sqft": f.get("sfha_area_sqft"), "site_fraction": f.get("site_fraction"),
        "shaded_x_area_sqft": f.get("shaded_x_area_sqft"),
        "habitats_found": len(document.get("habitats") or []),
        "orw_found": len(rw.get("orw") or []), "impaired_found": len(rw.get("impaired") or []),
        "mitigation_sites": len(mitigation),
        "mitigation_eligible": sum(1 for m in mitigation if m.get("eligible")),
    }


def screening_headline(findings: list[Mapping[str, Any]]) -> str:
    """The answer of the permit question (the disturbance finding), else the first answer."""
    for f in findings:
        if f.get("key") == "disturbance" and f.get("answer"):
            return one_line(f["answer"])
    return one_line(findings[0].get("answer")) if findings else ""


def screening_manifest(document: Mapping[str, Any], files: Mapping[str, Any],
                       out_dir: str | os.PathLike | None, *, layers: Mapping[str, Any],
                       summary: list[str]) -> dict[str, Any]:
    """The manifest of a screening: ``document`` is ``screening.json``'s content, ``layers``
    the frames of ``screening.gpkg`` by layer name."""
    found = list(document.get("findings") or [])
    gpkg = [layer_entry(name, frame) for name, frame in layers.items()]
    return build("screen", out_dir,
                 file_entries(files, layers={"screening_gpkg": gpkg}),
                 counts=screening_counts(document), warnings=document.get("warnings") or [],
                 findings=found,
                 details={k: document.get(k) for k in SCREENING_SECTIONS},
                 summary=summary, headline=screening_headline(found))


# --------------------------------------------------------------------------- abutters
#: The counts of owners kept off the mailing list for their address.
UNMAILABLE_KEYS = ("no_mailing_address", "incomplete_address")


def abutter_counts(counts: Mapping[str, Any], recipients: Any) -> dict[str, Any]:
    """``abutters.json``'s counts, with ``unmailable`` (no or incomplete address; absent when
    no assessing data was read) and ``blank_addresses`` (recipients on the mailing list whose
    mailing address line is blank)."""
    out = dict(counts)
    if any(k in counts for k in UNMAILABLE_KEYS):
        out["unmailable"] = sum(int(counts.get(k) or 0) for k in UNMAILABLE_KEYS)
    blank = 0
    if recipients is not None and len(recipients) and "mail_address" in recipients:
        blank = int((recipients["mail_address"].fillna("").astype(str).str.strip() == "").sum())
    out["blank_addresses"] = blank
    return out


def abutters_headline(counts: Mapping[str, Any], *, notice: str, distance_ft: float) -> str:
    """One line: the parcels found, the recipients, and how many cannot be mailed.

    >>> abutters_headline({"abutting": 5, "mailable": 4, "unmailable": 1,
    ...                    "blank_addresses": 0}, notice="zoning", distance_ft=300.0)[:60]
    '5 abutting parcel(s) among the parties in interest (M.G.L. c'
    """
    scope = ("among the parties in interest (M.G.L. c.40A s.11)" if notice == "zoning"
             else f"within {float(distance_ft):g} ft")
    text = (f"{int(counts.get('abutting') or 0)} abutting parcel(s) {scope}; "
            f"{int(counts.get('mailable') or 0)} notice recipient(s)")
    unmailable, blank = counts.get("unmailable"), int(counts.get("blank_addresses") or 0)
    if unmailable:
        text += f"; {unmailable} cannot be mailed (no or incomplete address)"
    if blank:
        text += f"; {blank} with no street address line (check before mailing)"
    elif unmailable == 0:
        text += "; every recipient has a mailing address"
    return text + "."


def abutters_manifest(package: Any, files: Mapping[str, Any],
                      out_dir: str | os.PathLike | None, *,
                      summary: list[str] | None = None) -> dict[str, Any]:
    """The manifest of an abutter package (:class:`swm_gis.results.AbutterPackage`): its
    counts, warnings and files, the GeoPackage's layers as written."""
    counts = abutter_counts(package.counts, package.recipients)
    gpkg = [layer_entry("subject", package.subject),
            layer_entry("search_area", package.search_area),
            layer_entry("abutting_parcels", package.listed),
            layer_entry("left_out", package.left_out),
            layer_entry("about", geometry="none", features=len(package.info.header_lines()))]
    if package.site is not None:
        gpkg.append(layer_entry("site", package.site))
    info = package.info
    return build("abutters", out_dir, file_entries(files, layers={"abutters_gpkg": gpkg}),
                 counts=counts, warnings=package.warnings,
                 details={"notice": info.notice, "distance_ft": float(info.distance_ft),
                          "subject_ids": [str(i) for i in info.subject_ids],
                          "section": info.section},
                 summary=summary if summary is not None else package.summary,
                 headline=abutters_headline(counts, notice=info.notice,
                                            distance_ft=info.distance_ft))


# --------------------------------------------------------------------------- town-wide
def applicability_manifest(amap: Any, files: Mapping[str, Any],
                           out_dir: str | os.PathLike | None, *, layer_names: tuple[str, ...],
                           warnings: Iterable[Any] = ()) -> dict[str, Any]:
    """The manifest of an applicability map (:class:`swm_gis.results.ApplicabilityMap`);
    ``layer_names``: the map layer, the summary table and the checks table, as written."""
    layer, summary_table, checks_table = layer_names
    town = amap.summary[amap.summary["huc12"] == "all"] if len(amap.summary) else amap.summary
    gpkg = [layer_entry(layer, geometry="polygon", features=amap.parcels),
            layer_entry(summary_table, geometry="none", features=len(amap.summary)),
            layer_entry(checks_table, geometry="none", features=len(amap.checks) + 1)]
    not_run = [c for c in amap.checks if not c["ran"]]
    classes = [{"screening_class": str(r.screening_class), "parcels": int(r.parcels),
                "area_acres": float(r.area_acres)} for r in town.itertuples()]
    return build("applicability", out_dir,
                 file_entries(files, layers={"geopackage": gpkg}),
                 counts={"parcels": amap.parcels, "tiles": amap.tiles,
                         "checks_not_run": len(not_run)},
                 warnings=[*warnings, *({"code": "not_checked",
                                        "text": f"not checked: {c['name']} ({c['note']})"}
                                       for c in not_run)],
                 details={"engine": amap.engine, "classes": classes},
                 summary=amap.summary_lines)


def publish_manifest(webmap: Any, files: Mapping[str, Any],
                     out_dir: str | os.PathLike | None, *,
                     summary: list[str] | None = None) -> dict[str, Any]:
    """The manifest of a published web map (:class:`swm_gis.webmap.job.WebMap`)."""
    return build("publish", out_dir, file_entries(files),
                 counts={"parcels": webmap.parcels, "size_bytes": webmap.size_bytes,
                         "addressed": webmap.addressed, "classes": len(webmap.legend),
                         "key_entries": len(webmap.key)},
                 warnings=[{"code": "web_map", "text": w} for w in webmap.warnings],
                 details={"simplify_ft": webmap.simplify_ft,
                          "legend": [dict(e) for e in webmap.legend]},
                 summary=summary if summary is not None else webmap.summary_lines)


def demo_manifest(folders: Mapping[str, Any], out_dir: str | os.PathLike,
                  summary: list[str]) -> dict[str, Any]:
    """The manifest of ``swm-gis demo``: one folder per step (each step's own files are
    listed by running that command)."""
    return build("demo", out_dir,
                 [file_entry(k, p, folder=True) for k, p in folders.items()],
                 counts={"steps": len(folders)}, summary=summary)


__all__ = ["FILE_ROLES", "SCREENING_SECTIONS", "UNMAILABLE_KEYS", "VERSION", "abutter_counts",
           "abutters_headline", "abutters_manifest", "applicability_manifest", "build",
           "demo_manifest", "file_entries", "file_entry", "file_format", "layer_entry",
           "one_line", "publish_manifest", "screening_counts", "screening_headline",
           "screening_manifest", "warning_entries"]

"""The result objects of the jobs: :class:`Screening`, :class:`AbutterPackage` and
:class:`ApplicabilityMap`.

Each holds the frames and findings of one run, writes the files the command line writes with
``.write(...)`` and shows itself in a notebook (``_repr_html_``). The jobs below this layer
return plain data (a screening document, an :class:`~swm_gis.notification.package.AbutterNotice`,
a run of the applicability engine); :mod:`swm_gis.jobs` wraps it in these.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import html
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import geopandas as gpd
import pandas as pd

from swm_gis.applicability.write import read_result, write_map
from swm_gis.config.town import TownConfig
from swm_gis.errors import SwmGisError
from swm_gis.io.outputs import (
    api_output_dir,
    config_inputs,
    final_paths,
    output_file,
    source_files,
)
from swm_gis.io.writers import check_outputs_free, write_geopackage, write_json
from swm_gis.manifest import abutters_manifest, applicability_manifest, screening_manifest
from swm_gis.messages import option
from swm_gis.notification.info import PackageInfo  # noqa: F401  (AbutterPackage.info, in the docs)
from swm_gis.notification.package import AbutterNotice
from swm_gis.progress import Progress, quiet
from swm_gis.styles import output_styles
from swm_gis.summaries import applicability_lines, screening_lines

#: Output key -> file name, as ``swm-gis screen`` writes them (README "Commands").
SCREENING_FILES = {
    "screening_json": "screening.json",
    "screening_gpkg": "screening.gpkg",
    "screening_report_html": "screening_report.html",
    "screening_report_pdf": "screening_report.pdf",
}


def screening_outputs(out_dir: str | os.PathLike, *, report: bool = True) -> dict[str, Path]:
    """Output key -> path of the files a screening writes into ``out_dir`` (without the report's
    two files when ``report`` is False)."""
    return {key: Path(out_dir) / name for key, name in SCREENING_FILES.items()
            if report or not key.startswith("screening_report")}



def html_summary(title: str, lines: list[str], table: pd.DataFrame | None = None, *,
                 max_rows: int = 20) -> str:
    """A small HTML block for notebooks: a title, summary lines and the first rows of a table.

    Examples
    --------
    >>> html_summary("T", ["a < b"])
    '<div><strong>T</strong><ul><li>a &lt; b</li></ul></div>'
    """
    parts = [f"<div><strong>{html.escape(title)}</strong><ul>"]
    parts += [f"<li>{html.escape(str(line))}</li>" for line in lines]
    parts.append("</ul>")
    if table is not None and len(table.columns):
        parts.append(pd.DataFrame(table).head(max_rows).to_html(index=False, na_rep=""))
        if len(table) > max_rows:
            parts.append(f"<p>{len(table) - max_rows:,} more row(s)</p>")
    parts.append("</div>")
    return "".join(parts)


@dataclass
class Screening:
    """The screening of one site (``docs/findings.md``).

    Attributes
    ----------
    document
        The ``screening.json`` content (``disturbance``, ``standards``, ``checks``, ...).
    layers
        The ``screening.gpkg`` layers by name (site, resource areas found, ...).
    received
        Date the application was received, for the report's hearing deadlines.
    """

    document: dict[str, Any]
    layers: dict[str, gpd.GeoDataFrame] = field(default_factory=dict)
    received: dt.date | None = None

    @property
    def permit_required(self) -> bool | None:
        """Whether a Stormwater Management Permit is required; ``None`` when conditional.

        Conditional: under one acre without a common plan, or an exemption is claimed (the
        ``disturbance`` finding in :attr:`findings` says on what it depends).
        """
        value = self.document["disturbance"]["permit_required"]
        return None if value is None else bool(value)

    @property
    def findings(self) -> list[dict[str, Any]]:
        """The document's findings, in the report's order: each a dict with its ``key``,
        ``status`` (yes / no / conditional / not_checked / info), answer, section and layers
        (``docs/findings.md``). The checks that ran are ``document["checks"]``."""
        return list(self.document.get("findings") or [])

    @property
    def summary(self) -> list[str]:
        """A few lines for people: the decision and the figures behind it."""
        return screening_lines(self.document)

    def write(self, out_dir: str | os.PathLike, *, overwrite: bool = False,
              progress: Progress | None = None, report: bool = True,
              staged: bool = False) -> dict[str, Path]:
        """Write ``screening.json``, ``screening.gpkg`` and the report into ``out_dir``.

        ``report=False`` writes only the JSON and the GeoPackage (a quick single check).
        Like the command, the files are written into a hidden folder beside ``out_dir`` and
        moved in together at the end, and an ``out_dir`` that is or holds an input (the config,
        the site, a layer) is refused. ``staged=True``: ``out_dir`` is already such a folder
        (``swm_gis.io.outputs.output_package``'s), written into directly.

        Returns
        -------
        dict of str to Path
            Output key to file, for the files that exist after writing.
        """
        final = Path(out_dir)
        with api_output_dir(final, staged=staged, inputs=self._input_files(),
                            overwrite=overwrite, command="swm_gis Screening.write") as out:
            written = self._write_into(out, progress=progress or quiet, report=report)
        written = final_paths(written, out, final) if out != final else written
        self._written = (final, dict(written))
        return written

    def manifest(self, files: dict[str, Path] | None = None,
                 out_dir: str | os.PathLike | None = None) -> dict[str, Any]:
        """The result manifest (:mod:`swm_gis.manifest`): the files written (by default those
        of the last :meth:`write`), the findings, the figures behind them, the warnings."""
        last_dir, last_files = getattr(self, "_written", (None, {}))
        return screening_manifest(self.document, last_files if files is None else files,
                                  last_dir if out_dir is None else out_dir,
                                  layers=self.layers, summary=self.summary)

    def _input_files(self) -> list[str]:
        """The config, site, plan and layer files this screening read (never written over)."""
        meta = self.document.get("meta", {})
        return source_files([meta.get("config"), meta.get("site"), *(meta.get("inputs") or []),
                             *(meta.get("sources") or [])])

    def _write_into(self, out: Path, *, progress: Progress, report: bool) -> dict[str, Path]:
        from swm_gis.reports.screening_report import write_screening_report

        outputs = screening_outputs(out, report=report)
        check_outputs_free(outputs.values(), overwrite=True)  # the stage: checked on moving
        progress(0.87, "writing screening.json and screening.gpkg")
        write_json(self.document, outputs["screening_json"])
        write_geopackage(self.layers, outputs["screening_gpkg"],
                         styles=output_styles(self.layers))
        if not report:
            return {k: v for k, v in outputs.items() if Path(v).exists()}
        progress(0.9, "writing the screening report")
        written = write_screening_report(self.document, self.layers, out, received=self.received)
        for key, path in written.items():
            if Path(path) not in outputs.values():
                outputs[f"report_{key}"] = Path(path)
        return {k: v for k, v in outputs.items() if Path(v).exists()}

    def _repr_html_(self) -> str:
        return html_summary(f"Screening: {self.document['meta'].get('town', '')}", self.summary)


@dataclass
class ApplicabilityMap:
    """Every parcel of the town classified (README "Commands", ``applicability``).

    Attributes
    ----------
    config
        The town config it was computed for.
    summary
        Parcels and acres per ``screening_class``, town-wide (``huc12 == "all"``) and per HUC12.
    checks
        One row per flag: whether it ran, the Chapter 320 section, the sources, why not.
    parcels
        How many parcels were classified.
    tiles
        How many spatial tiles the town was read in.
    path
        The GeoPackage written, or None while the result is only in memory.
    engine
        ``"local"`` or ``"dask"``.
    parameters
        The run's parameters, recorded in the checks table.
    """

    config: TownConfig
    summary: pd.DataFrame
    checks: list[dict[str, Any]]
    parcels: int
    tiles: int
    path: Path | None = None
    engine: str = "local"
    parameters: dict[str, Any] = field(default_factory=dict)
    _frame: gpd.GeoDataFrame | None = field(default=None, repr=False)

    @property
    def frame(self) -> gpd.GeoDataFrame:
        """The classified parcels (layer ``applicability``), read back if only on disk."""
        if self._frame is None and self.path is not None:
            self._frame = read_result(self.path)
        return self._frame

    def write(self, out: str | os.PathLike, *, overwrite: bool = False) -> Path:
        """Write the styled GeoPackage (layer, summary and checks tables, QGIS style) to ``out``.

        Written whole or not at all (moved into place at the end); an ``out`` that is one of
        the config's inputs is refused, ``overwrite`` or not.
        """
        target = Path(out)
        frame = self.frame  # read it (if only on disk) before anything is replaced
        with output_file(target, inputs=config_inputs(self.config), overwrite=overwrite,
                         command="swm_gis ApplicabilityMap.write") as tmp:
            self._write_map(tmp, overwrite=True, frame=frame)
        self.path = target
        return self.path

    def manifest(self, files: dict[str, Any] | None = None,
                 out_dir: str | os.PathLike | None = None) -> dict[str, Any]:
        """The result manifest (:mod:`swm_gis.manifest`): the GeoPackage (by default
        ``path``) with its layers, the parcels, the classes and the checks not run."""
        from swm_gis.applicability.overlays import CHECKS_TABLE, LAYER, SUMMARY_TABLE

        if files is None:
            files = {"geopackage": self.path} if self.path is not None else {}
        if out_dir is None and self.path is not None and \
                str(self.path).lower().endswith(".gpkg"):  # not a PostGIS table
            out_dir = Path(self.path).parent
        return applicability_manifest(
            self, files, out_dir, layer_names=(LAYER, SUMMARY_TABLE, CHECKS_TABLE))

    def _write_map(self, out: Path, *, overwrite: bool, frame=None) -> Path:
        return write_map(self.frame if frame is None else frame, out, summary=self.summary,
                         checks=self.checks, config=self.config, parameters=self.parameters,
                         overwrite=overwrite)

    @property
    def summary_lines(self) -> list[str]:
        """A few lines for people: parcels and acres per class, and the checks not run."""
        return applicability_lines(self)

    def _repr_html_(self) -> str:
        town = self.summary[self.summary["huc12"] == "all"]
        return html_summary(f"Applicability: {self.config.name}", self.summary_lines,
                            town.drop(columns=["huc12"], errors="ignore"))


# --------------------------------------------------------------------------- abutters
#: Output key -> file name, as ``swm-gis abutters`` writes them (README "Commands").
OUTPUT_FILES = {
    "abutting_parcels_csv": "abutting_parcels.csv",
    "mailing_list_csv": "mailing_list.csv",
    "mailing_list_xlsx": "mailing_list.xlsx",
    "labels_pdf": "labels.pdf",
    "abutters_map_pdf": "abutters_map.pdf",
    "certified_mail_pdf": "certified_mail.pdf",
    "left_out_csv": "left_out.csv",
    "mailing_review_csv": "mailing_review.csv",
    "certification_pdf": "certification.pdf",
    "abutters_gpkg": "abutters.gpkg",
    "abutters_json": "abutters.json",
}


@dataclass
class AbutterPackage(AbutterNotice):
    """The abutter notification package (:func:`swm_gis.abutter_package`): the frames and
    notices of :class:`~swm_gis.notification.package.AbutterNotice` (same attributes), and the
    writing of every file ``swm-gis abutters`` writes."""

    @classmethod
    def of(cls, notice: AbutterNotice) -> AbutterPackage:
        """The package of what the job found."""
        return cls(**{f.name: getattr(notice, f.name) for f in dataclasses.fields(notice)})

    def write(self, out_dir: str | os.PathLike, *, overwrite: bool = False,
              label_template: str = "5160", label_offset: tuple[float, float] = (0.0, 0.0),
              progress: Progress | None = None, staged: bool = False) -> dict[str, Path]:
        """Write the package (the files ``swm-gis abutters`` writes) into ``out_dir``.

        Parameters
        ----------
        out_dir
            Folder for the outputs (created if missing).
        overwrite
            Replace outputs that already exist (else :class:`~swm_gis.errors.OutputExistsError`).
        label_template
            Avery sheet for ``labels.pdf``: ``"5160"``, ``"5161"``, ``"5162"`` or ``"5163"``.
        label_offset
            Printer calibration (x right, y down) in inches, each within one inch.
        progress
            ``progress(fraction, message)`` callback.
        staged
            ``out_dir`` is already the staging folder of
            ``swm_gis.io.outputs.output_package`` (a command's): written into directly.

        Returns
        -------
        dict of str to Path
            Output key (e.g. ``"mailing_list_csv"``) to the file written.
        """
        progress = progress or quiet
        check_label_template(label_template)
        final = Path(out_dir)
        # staged and refusing the inputs like the command (swm_gis.io.outputs.api_output_dir)
        with api_output_dir(final, staged=staged, inputs=source_files(self.info.sources),
                            overwrite=overwrite, command="swm_gis AbutterPackage.write") as out_dir:
            paths = output_paths(out_dir)
            check_outputs_free(paths.values(), overwrite=overwrite)
            progress(0.55, "writing the lists")
            write_all(paths, self, label_template=str(label_template),
                      label_offset=tuple(label_offset), progress=progress)
        progress(1.0, "done")
        paths = final_paths(paths, out_dir, final) if out_dir != final else paths
        self._written = (final, dict(paths))
        return paths

    def manifest(self, files: dict[str, Path] | None = None,
                 out_dir: str | os.PathLike | None = None, *,
                 summary: list[str] | None = None) -> dict[str, Any]:
        """The result manifest (:mod:`swm_gis.manifest`): the files written (by default those
        of the last :meth:`write`), the counts, the warnings and the headline."""
        last_dir, last_files = getattr(self, "_written", (None, {}))
        return abutters_manifest(self, last_files if files is None else files,
                                 last_dir if out_dir is None else out_dir, summary=summary)

    def listed_address(self, parcel_id: str) -> str:
        """The site address of a subject parcel, for its label on the map."""
        return self.subject_addresses.get(str(parcel_id), "")

    def _repr_html_(self) -> str:
        table = self.listed.drop(columns=[self.listed.geometry.name], errors="ignore")
        cols = [c for c in ("map_no", "parcel_id", "distance_ft", "owners", "site_address",
                            "note") if c in table]
        return html_summary(f"Abutters of {self.info.subject_text} ({self.info.town})",
                            self.summary, table[cols])


# the same attributes as the notice, documented once (there)
AbutterPackage.__doc__ = (AbutterPackage.__doc__ or "") + "\n\n" + \
    (AbutterNotice.__doc__ or "").split("\n\n", 1)[1]


def output_paths(out_dir: str | os.PathLike) -> dict[str, Path]:
    """Output key -> path in ``out_dir`` of every file of the package."""
    return {k: Path(out_dir) / name for k, name in OUTPUT_FILES.items()}


def check_label_template(label_template: str) -> None:
    """Raise :class:`~swm_gis.errors.SwmGisError` for an unknown Avery label sheet."""
    from swm_gis.reports.labels import SHEETS

    if str(label_template) not in SHEETS:
        raise SwmGisError(f"Unknown {option('label_template')} {label_template}; choose one of "
                          f"{', '.join(SHEETS)}.")


def write_all(paths: dict[str, Path], pkg: AbutterPackage, *, label_template: str,
              label_offset: tuple[float, float], progress: Progress) -> None:
    """Write every file of the package (:data:`OUTPUT_FILES`)."""
    from swm_gis.reports.abutters_map import write_abutters_map
    from swm_gis.reports.certification import write_certification_pdf
    from swm_gis.reports.certified_mail import write_certified_mail
    from swm_gis.reports.labels import write_labels
    from swm_gis.reports.mailing import (
        write_abutting_csv,
        write_left_out_csv,
        write_mailing_csv,
        write_mailing_xlsx,
        write_review_csv,
    )

    info, mailable = pkg.info, pkg.recipients
    write_abutting_csv(pkg.listed, info, paths["abutting_parcels_csv"])
    write_left_out_csv(pkg.left_out, info, paths["left_out_csv"])
    write_mailing_csv(mailable, info, paths["mailing_list_csv"])
    write_mailing_xlsx(mailable, info, paths["mailing_list_xlsx"], review=pkg.review)
    write_review_csv(pkg.review, paths["mailing_review_csv"])
    write_certification_pdf(paths["certification_pdf"], info, review=pkg.review)
    progress(0.7, "writing labels and the mailing book")
    write_labels(mailable, info, paths["labels_pdf"], template=label_template,
                 offset_in=label_offset)
    write_certified_mail(mailable, info, paths["certified_mail_pdf"])
    progress(0.8, "drawing the map")
    labels = {pid: pkg.listed_address(pid) for pid in info.subject_ids}
    write_abutters_map(pkg.subject, pkg.search_area, pkg.listed, pkg.left_out, info,
                       paths["abutters_map_pdf"], context=pkg.candidates, site=pkg.site,
                       streets=pkg.streets, subject_labels=labels,
                       left_out_count=pkg.counts.get("left_out", len(pkg.left_out)))
    progress(0.95, "writing the GeoPackage")
    meta = pd.DataFrame({"line": info.header_lines()})
    layers_out = {
        "subject": _for_gpkg(pkg.subject),
        "search_area": pkg.search_area,
        "abutting_parcels": _for_gpkg(pkg.listed),
        "left_out": _for_gpkg(pkg.left_out),
        "about": meta,
    }
    if pkg.site is not None:
        layers_out["site"] = _for_gpkg(pkg.site)
    write_geopackage(layers_out, paths["abutters_gpkg"], styles=output_styles(layers_out))
    write_json(pkg.document, paths["abutters_json"])


def _for_gpkg(gdf: gpd.GeoDataFrame) -> gpd.GeoDataFrame:
    out = gdf.copy()
    for col in out.columns:
        if col != out.geometry.name and out[col].dtype == object:
            out[col] = out[col].map(lambda v: None if v is None or (
                not isinstance(v, str) and pd.isna(v)) else str(v))
    return gpd.GeoDataFrame(out.reset_index(drop=True), geometry=gdf.geometry.name,
                            crs=gdf.crs)


__all__ = ["OUTPUT_FILES", "SCREENING_FILES", "AbutterPackage", "ApplicabilityMap", "Screening",
           "check_label_template", "html_summary", "output_paths"]

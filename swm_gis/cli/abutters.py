"""``swm-gis abutters``: the abutter notification package (SPEC sections 2, 3 and 5).

Reads only the neighbourhood of the subject: the subject parcels by an OGR where clause on the
parcel id field (or by the --site geometry), the candidates by a bounding box around the subject
expanded by the distance, and the assessing rows by a where clause on the candidate ids. The rules
live in :mod:`swm_gis.abutters` and :mod:`swm_gis.owners`; the files are written by
:mod:`swm_gis.reports`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path

import geopandas as gpd
import numpy as np
import pandas as pd
import typer

from swm_gis import abutters as core
from swm_gis import layers
from swm_gis.cli._common import (
    SAMPLE_DIR,
    app,
    config_option,
    open_config,
    out_dir_option,
    overwrite_option,
    state,
)
from swm_gis.config import TownConfig
from swm_gis.errors import GeometryError, SwmGisError
from swm_gis.outputs import config_inputs, final_paths, output_package
from swm_gis.owners import fiscal_years, join_owners, owned_parcel_ids, recipients
from swm_gis.reports import PackageInfo
from swm_gis.writers import check_outputs_free, write_geopackage

DEMO_ORDER = 30
OUTPUT_FILES = {
    "abutting_parcels_csv": "abutting_parcels.csv",
    "mailing_list_csv": "mailing_list.csv",
    "mailing_list_xlsx": "mailing_list.xlsx",
    "labels_pdf": "labels.pdf",
    "abutters_map_pdf": "abutters_map.pdf",
    "certified_mail_pdf": "certified_mail.pdf",
    "left_out_csv": "left_out.csv",
    "abutters_gpkg": "abutters.gpkg",
}
#: Ids per OGR where clause (SQL statements stay short; several reads are concatenated).


@app.command()
def abutters(
    config: Path = config_option(),
    parcel: list[str] = typer.Option(
        None, "--parcel", "-p", metavar="ID",
        help="Subject parcel id (the parcels layer's id field, e.g. LOC_ID); repeat for several "
             "parcels, which are treated as one property."),
    site: str = typer.Option(
        None, "--site", metavar="FILE", help="Vector file with the project's polygon(s) (path or "
                             "path.gpkg:layer); the subject is every parcel it reaches into."),
    distance: str = typer.Option(
        None, "--distance", "-d", metavar="DISTANCE",
        help='Notification distance: "100ft", "100 ft", "30.48m" or a number of feet. '
             "Default: the config's abutter_distance_ft (100 ft, Chapter 320 § 320-18 A(7))."),
    include_subject: bool = typer.Option(
        False, "--include-subject", help="Also list (and notify) the subject parcels' owners."),
    out: Path = out_dir_option(),
    overwrite: bool = overwrite_option(),
    label_template: str = typer.Option(
        "5160", "--label-template", metavar="5160|5161|5162|5163",
        help="Avery label sheet: 5160 (30 per sheet, default), 5161, 5162 or 5163."),
    label_offset: str = typer.Option(
        "0,0", "--label-offset", metavar="X,Y",
        help="Printer calibration for labels.pdf: X,Y in inches (X to the right, Y down), "
             "e.g. 0.03,-0.05."),
    sender: list[str] = typer.Option(
        None, "--sender", metavar="LINE",
        help="A line of the sender block of certified_mail.pdf (repeat for each line: name, "
             "street, city/state/ZIP)."),
    wpa_pond_extension: bool = typer.Option(
        False, "--wpa-pond-extension",
        help="Also notify owners of land abutting a pond of less than 10 acres that the "
             "subject borders (Wetlands Protection Act practice). Ponds come from "
             "[layers.waterbodies], else from parcels with POLY_TYPE WATER."),
) -> None:
    """List the owners of all property within 100 ft of the subject's property line and write
    the mailing package.

    Abutters are found by exact distance from the subject property line (inclusive), across
    streets, town lines and water. Right-of-way and water polygons without an owner go to
    left_out.csv with the reason; parcels with no assessing record are listed and flagged; one
    notice per owner and mailing address after normalisation (the count removed is reported).
    Writes abutting_parcels.csv, mailing_list.csv and .xlsx (ending with the Board of
    Assessors' certification block), labels.pdf, abutters_map.pdf, certified_mail.pdf (PS Form
    3877 layout), left_out.csv and abutters.gpkg. CSV tables end, after a blank row, with lines
    starting with "#" that record the subject, distance, data sources and fiscal year.

    Example: swm-gis abutters --config data/cambridge.toml --parcel 9-29 --out abutters-9-29
    """
    cfg = open_config(config)
    offset = parse_offset(label_offset)
    check_outputs_free([out / n for n in OUTPUT_FILES.values()], overwrite=overwrite)
    # Inputs read-only, one run per folder, the package whole or not at all (swm_gis.outputs).
    with output_package(out, inputs=[*config_inputs(cfg), site], overwrite=overwrite,
                        command=f"swm-gis abutters --out {out}") as stage:
        staged, summary = run_abutters(
            cfg, parcel_ids=list(parcel or []), site=site, distance=distance,
            include_subject=include_subject, out_dir=stage, overwrite=True,
            label_template=label_template, label_offset=offset,
            sender=list(sender or []), wpa_pond_extension=wpa_pond_extension,
            progress=state.reporter.progress,
        )
    state.reporter.result("abutters", final_paths(staged, stage, out), summary=summary)


def parse_offset(text: str) -> tuple[float, float]:
    """``"0.05,-0.03"`` -> (0.05, -0.03) inches."""
    parts = [p.strip() for p in str(text).replace(";", ",").split(",")]
    try:
        if len(parts) != 2:
            raise ValueError
        x, y = float(parts[0]), float(parts[1])
        if not (math.isfinite(x) and math.isfinite(y)):  # "nan,0" parses as a float
            raise ValueError
    except ValueError:
        raise SwmGisError(
            f'Cannot read --label-offset "{text}": give X,Y in inches, e.g. --label-offset '
            "0.03,-0.05 (X to the right, Y down)."
        ) from None
    if abs(x) > 1 or abs(y) > 1:
        raise SwmGisError(f"--label-offset {text} is more than an inch; a printer offset is "
                          "a small correction (e.g. 0.03,-0.05).")
    return x, y


def run_abutters(
    cfg: TownConfig,
    *,
    parcel_ids: list[str],
    site: str | None,
    out_dir: Path,
    distance: str | float | None = None,
    include_subject: bool = False,
    overwrite: bool = False,
    label_template: str = "5160",
    label_offset: tuple[float, float] = (0.0, 0.0),
    sender: list[str] | None = None,
    wpa_pond_extension: bool = False,
    progress: Callable[[float, str], None] = lambda f, m: None,
) -> tuple[dict[str, Path], list[str]]:
    """Find the abutters, their owners and recipients, and write every output; return the
    output paths and summary lines."""
    from swm_gis.reports.labels import SHEETS

    if bool(parcel_ids) == bool(site):
        raise SwmGisError("Give the subject either by --parcel ID (one or more) or by --site "
                          "FILE, not both and not neither.")
    if str(label_template) not in SHEETS:
        raise SwmGisError(f"Unknown --label-template {label_template}; choose one of "
                          f"{', '.join(SHEETS)}.")
    distance_ft = (cfg.rules.abutter_distance_ft if distance in (None, "")
                   else core.parse_distance_ft(distance))
    out_dir = Path(out_dir)
    paths = {k: out_dir / name for k, name in OUTPUT_FILES.items()}
    check_outputs_free(paths.values(), overwrite=overwrite)

    progress(0.05, "reading the subject parcel(s)")
    subject = read_subject(cfg, parcel_ids=parcel_ids, site=site)
    progress(0.2, "reading parcels around the subject")
    candidates = read_candidates(cfg, subject, distance_ft=distance_ft)
    progress(0.35, "measuring distances")
    abut = core.find_abutters(candidates, subject, distance_ft=distance_ft,
                              include_subject=include_subject, rules=cfg.rules)
    ponds_note = None
    if wpa_pond_extension:
        abut, ponds_note = add_pond_extension(cfg, abut, subject, candidates)
    progress(0.45, "reading the assessing records")
    assess = read_assess(cfg, ids=[*abut["id"].dropna().astype(str), *core.subject_ids(subject)])
    listed, left = core.classify(abut, owned_parcel_ids(assess), rules=cfg.rules)
    if not include_subject:
        left = pd.concat([left, subject_left_out(subject)])
    listed = listed.assign(parcel_id=listed["id"], map_no=np.arange(1, len(listed) + 1))
    if "pond" in listed:
        by_pond = listed["pond"].notna()
        listed.loc[by_pond, "note"] = [
            "; ".join(p for p in (note, f"WPA pond extension: abuts {pond} ({acres:g} acres), "
                                        "which the subject borders") if p)
            for note, pond, acres in zip(listed.loc[by_pond, "note"],
                                         listed.loc[by_pond, "pond"],
                                         listed.loc[by_pond, "pond_acres"], strict=True)]
    left = left.assign(parcel_id=left["id"])
    notices = join_owners(listed, assess)
    recips = recipients(notices)
    owners_by_parcel = notices.groupby("parcel_id")["owner_name"].agg(
        lambda s: "; ".join(dict.fromkeys(s)))
    listed["owners"] = listed["parcel_id"].astype(str).map(
        lambda pid: owners_by_parcel.get(pid, ""))
    listed["site_address"] = listed["parcel_id"].astype(str).map(site_addresses(assess))

    sources = [layers.source_info(cfg.layer("parcels"))]
    if cfg.has("assess"):
        sources.append(layers.source_info(cfg.layer("assess")))
    if site:
        sources.append({**layers.file_source_info(site), "key": "site (--site)"})
    info = PackageInfo(
        town=cfg.name, subject_ids=tuple(core.subject_ids(subject)), distance_ft=distance_ft,
        fiscal_years=tuple(fiscal_years(assess)), sources=tuple(sources),
        include_subject=include_subject, synthetic=cfg.synthetic, section=core.SECTION,
        sender=tuple(sender or ()), notes=(ponds_note,) if ponds_note else (),
    )
    progress(0.55, "writing the lists")
    write_all(paths, info=info, subject=subject, candidates=candidates, listed=listed,
              left=left, recips=recips, label_template=str(label_template),
              label_offset=label_offset, progress=progress)
    progress(1.0, "done")
    lines = summary_lines(info, listed, left, recips, assess_configured=cfg.has("assess"))
    return paths, lines + list(info.notes)


def add_pond_extension(cfg: TownConfig, abut: gpd.GeoDataFrame, subject: gpd.GeoDataFrame,
                       candidates: gpd.GeoDataFrame) -> tuple[gpd.GeoDataFrame, str]:
    """Add the owners around ponds under 10 acres that the subject borders (optional rule)."""
    reach = core.POND_BORDER_FT * core.M_PER_FT / core.metres_per_unit(cfg.crs) + 1.0
    x0, y0, x1, y1 = subject.total_bounds
    if cfg.has("waterbodies"):
        ponds = layers.read_layer(cfg, "waterbodies",
                                  bbox=(x0 - reach, y0 - reach, x1 + reach, y1 + reach))
        source = "[layers.waterbodies]"
    else:
        ponds = candidates.loc[candidates["poly_type"].astype("string").str.upper() == "WATER"]
        source = "parcels with POLY_TYPE WATER"
    found = core.bordered_ponds(subject, ponds)
    if found.empty:
        return abut, f"WPA pond extension: the subject borders no pond under 10 acres ({source})."
    px0, py0, px1, py1 = found.total_bounds
    around = layers.merge_duplicate_ids(layers.read_layer(
        cfg, "parcels", bbox=(px0 - reach, py0 - reach, px1 + reach, py1 + reach)))
    extra = core.pond_extension(around, subject, found,
                                exclude_ids=abut["id"].dropna().astype(str))
    extra = extra.assign(is_subject=False, other_town=False)
    if "town_id" in subject and len(extra):
        towns = {core.town_key(v) for v in subject["town_id"] if pd.notna(v)}
        extra["other_town"] = [bool(towns) and pd.notna(t) and core.town_key(t) not in towns
                               for t in extra["town_id"]]
    out = pd.concat([abut, extra]) if len(extra) else abut
    out = gpd.GeoDataFrame(out, geometry=abut.geometry.name, crs=abut.crs).sort_values(
        "distance_ft", kind="stable")
    out.attrs = abut.attrs
    names = ", ".join(f"{p} ({a:g} acres)" for p, a in zip(found["pond"], found["pond_acres"],
                                                            strict=True))
    return out, (f"WPA pond extension: {len(extra)} more parcel(s) abutting {names}, which the "
                 f"subject borders ({source}).")


# --------------------------------------------------------------------------- reading
def read_subject(cfg: TownConfig, *, parcel_ids: list[str], site: str | None
                 ) -> gpd.GeoDataFrame:
    """The subject parcels: by id (where clause) or the parcels the --site polygons reach."""
    if site:
        site_gdf = layers.read_file(site, working_crs=cfg.crs, what="--site")
        touched = layers.read_layer(cfg, "parcels", mask=core.subject_union(site_gdf))
        subject = core.parcels_touched_by_site(touched, site_gdf, rules=cfg.rules)
        if subject.empty:
            raise GeometryError(
                f"The site {site} (--site) reaches into no parcel of "
                f"{cfg.layer('parcels').describe()} ([layers.parcels]). Check that the site "
                "lies in the town and that both are in the CRS they declare."
            )
        parcel_ids = core.subject_ids(subject)
    return layers.read_parcels_by_id(cfg, parcel_ids)


def read_candidates(cfg: TownConfig, subject: gpd.GeoDataFrame, *, distance_ft: float
                    ) -> gpd.GeoDataFrame:
    """Parcels in the subject's bounding box grown by the distance (plus 5 %, and 1 m)."""
    reach = distance_ft * core.M_PER_FT / core.metres_per_unit(cfg.crs) * 1.05 + 1.0
    x0, y0, x1, y1 = subject.total_bounds
    bbox = (x0 - reach, y0 - reach, x1 + reach, y1 + reach)
    return layers.merge_duplicate_ids(layers.read_layer(cfg, "parcels", bbox=bbox))


def read_assess(cfg: TownConfig, *, ids: list[str]) -> pd.DataFrame:
    """Assessing rows of the given parcel ids only (never the whole table)."""
    if not cfg.has("assess"):
        return pd.DataFrame(columns=["parcel_id", "owner", "fiscal_year"])
    return layers.read_by_ids(cfg, "assess", "parcel_id", ids)


def site_addresses(assess: pd.DataFrame) -> pd.Series:
    """Parcel id -> its site address(es) from the assessing rows ("; " between distinct ones)."""
    if "site_address" not in assess or assess.empty:
        return pd.Series(dtype=object)
    rows = assess.dropna(subset=["site_address"])
    return rows.groupby(rows["parcel_id"].astype(str))["site_address"].agg(_join_addresses)


def _join_addresses(values: pd.Series, most: int = 3) -> str:
    """Distinct site addresses; a condominium's many unit addresses are shortened."""
    distinct = list(dict.fromkeys(str(v).strip() for v in values if str(v).strip()))
    if len(distinct) <= most:
        return "; ".join(distinct)
    return "; ".join(distinct[:most]) + f"; ... ({len(distinct)} addresses)"


def subject_left_out(subject: gpd.GeoDataFrame) -> gpd.GeoDataFrame:
    out = subject.copy()
    out["distance_ft"] = 0.0
    out["reason"] = ("subject parcel (the applicant's own land): no notice; pass "
                     "--include-subject to list its owners")
    return out


# --------------------------------------------------------------------------- writing
def write_all(paths, *, info, subject, candidates, listed, left, recips, label_template,
              label_offset, progress) -> None:
    from swm_gis.reports.abutters_map import write_abutters_map
    from swm_gis.reports.certified_mail import write_certified_mail
    from swm_gis.reports.labels import write_labels
    from swm_gis.reports.mailing import (
        write_abutting_csv,
        write_left_out_csv,
        write_mailing_csv,
        write_mailing_xlsx,
    )

    area = core.search_area(subject, distance_ft=info.distance_ft)
    write_abutting_csv(listed, info, paths["abutting_parcels_csv"])
    write_left_out_csv(left, info, paths["left_out_csv"])
    write_mailing_csv(recips, info, paths["mailing_list_csv"])
    write_mailing_xlsx(recips, info, paths["mailing_list_xlsx"])
    progress(0.7, "writing labels and the mailing book")
    write_labels(recips, info, paths["labels_pdf"], template=label_template,
                 offset_in=label_offset)
    write_certified_mail(recips, info, paths["certified_mail_pdf"])
    progress(0.8, "drawing the map")
    write_abutters_map(subject, area, listed, left, info, paths["abutters_map_pdf"],
                       context=candidates)
    progress(0.95, "writing the GeoPackage")
    meta = pd.DataFrame({"line": info.header_lines()})
    write_geopackage({
        "subject": _for_gpkg(subject),
        "search_area": area,
        "abutting_parcels": _for_gpkg(listed),
        "left_out": _for_gpkg(left),
        "about": meta,
    }, paths["abutters_gpkg"])


def _for_gpkg(gdf: gpd.GeoDataFrame) -> gpd.GeoDataFrame:
    out = gdf.copy()
    out.attrs = {}
    for col in out.columns:
        if col != out.geometry.name and out[col].dtype == object:
            out[col] = out[col].map(lambda v: None if v is None or (
                not isinstance(v, str) and pd.isna(v)) else str(v))
    return gpd.GeoDataFrame(out.reset_index(drop=True), geometry=gdf.geometry.name,
                            crs=gdf.crs)


def summary_lines(info: PackageInfo, listed, left, recips, *, assess_configured: bool
                  ) -> list[str]:
    no_owner = int((~listed["owner_of_record"].astype(bool)).sum()) if len(listed) else 0
    other = int(listed["other_town"].astype(bool).sum()) if len(listed) else 0
    lines = [
        f"Subject parcel(s) {info.subject_text}; distance {info.distance_text} "
        f"(Chapter 320 {info.section}); assessing data {info.fiscal_year_text}.",
        f"{len(listed)} abutting parcel(s): {no_owner} with no owner of record "
        f"(ask the Assessors), {other} in another town; {len(left)} left out.",
        f"{len(recips)} recipient(s) after removing "
        f"{recips.attrs.get('duplicates_removed', 0)} duplicate notice(s).",
    ]
    if not assess_configured:
        lines.append("No [layers.assess] in the config: no owners could be named.")
    return lines


# --------------------------------------------------------------------------- demo
def demo_parcel_id(config_path: Path) -> str | None:
    """The subject parcel the sample town's README names for the abutters demo."""
    readme = Path(config_path).parent / "README.md"
    if not readme.is_file():
        return None
    text = readme.read_text(encoding="utf-8")
    for pattern in (r"Abutter subject[^`]*`([^`]+)`", r"subject parcel[^`]*`([^`]+)`"):
        m = re.search(pattern, text, re.IGNORECASE)
        if m:
            return m.group(1).strip()
    return None


def run_demo(config_path: Path, out_dir: Path) -> list[str]:
    cfg = open_config(config_path)
    pid = demo_parcel_id(config_path)
    if pid is None:  # fall back to the first owned parcel of the (small) sample town
        parcels = layers.read_layer(cfg, "parcels")
        owned = parcels.loc[~core.no_owner_type(parcels, cfg.rules), "id"].dropna()
        pid = str(owned.iloc[0])
    paths, summary = run_abutters(cfg, parcel_ids=[pid], site=None, out_dir=out_dir,
                                  overwrite=True)
    return [*summary, f"outputs in {out_dir}"]


__all__ = ["SAMPLE_DIR", "run_abutters", "run_demo"]

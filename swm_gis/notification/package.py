"""The abutter notification package job (``docs/abutters.md``): :func:`abutter_package`.

Reads only the neighbourhood of the subject: the subject parcels by an OGR where clause on the
parcel id field (or by the site geometry), the candidates by a bounding box around the subject
expanded by the distance, and the assessing rows by a where clause on the candidate ids. The rules
live in :mod:`swm_gis.rules.abutters` and :mod:`swm_gis.rules.owners`; :meth:`AbutterPackage.write`
writes the files through :mod:`swm_gis.reports`. ``swm-gis abutters`` is a thin caller of this
module.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import geopandas as gpd
import numpy as np
import pandas as pd

from swm_gis.config.town import TownConfig, load_config
from swm_gis.config.town_regulation import describe_applied, not_named_warning
from swm_gis.errors import GeometryError, SwmGisError
from swm_gis.ids import id_series
from swm_gis.io import layers
from swm_gis.io.attributes import read_attributes
from swm_gis.io.inputs import as_frame, describe, source_of
from swm_gis.io.parcel_ids import resolve_parcel_ids
from swm_gis.messages import config_key, option
from swm_gis.notification import checks
from swm_gis.notification.info import (
    PackageInfo,
    parcel_count_text,
    parcel_towns,
    source_with_vintage,
    subject_lines,
)
from swm_gis.notification.notice import NoticeChoice, notice_choice
from swm_gis.notification.request import AbutterRequest
from swm_gis.progress import Progress, quiet
from swm_gis.rules import abutters as core
from swm_gis.rules.citations import RuleCitations, rule_citations
from swm_gis.rules.mailing.condominiums import missing_unit_owners
from swm_gis.rules.mailing.list_order import order_listed, order_recipients
from swm_gis.rules.mailing.tax_list import tax_list_status
from swm_gis.rules.owner_join import (
    OwnerJoinError,
    check_owner_join,
    owned_parcel_ids,
    subject_owners,
)
from swm_gis.rules.owners import (
    build_recipients,
    fiscal_years,
    owner_notices,
    owners_by_parcel,
)
from swm_gis.rules.parties_in_interest import parties_in_interest
from swm_gis.rules.site_subjects import same_owner_subjects
from swm_gis.screening.wording import wording_for


@dataclass
class AbutterNotice:
    """The abutters of a subject property, their owners and the notices to mail: what the job
    finds (:func:`build_abutter_package`); :class:`swm_gis.results.AbutterPackage` adds the
    writing.

    Attributes
    ----------
    info
        What every output records: town, subject ids, distance, sources, fiscal year, notes.
    subject
        The subject parcels (working CRS).
    candidates
        The parcels read around the subject (the map's context).
    listed
        The abutting parcels to notify (the ``abutting_parcels.csv`` columns), nearest first.
    left_out
        Parcels within the distance that get no notice, with the ``reason``.
    recipients
        One row per owner and mailing address that can be mailed, after normalisation
        (``counts["duplicates_removed"]`` counts the notices merged): the mailing list.
    search_area
        The subject grown by the distance (the map's dashed line).
    summary
        A few lines for people: the counts, the fiscal year and the warnings.
    review
        Owners kept off the mailing list (no or incomplete address) and likely duplicates.
    counts
        The counts of ``abutters.json`` (:func:`swm_gis.notification.checks.package_counts`).
    warnings
        ``[{code, text}]`` (:mod:`swm_gis.notification.checks`), also in ``abutters.json``.
    site
        The ``site=`` polygon(s), if the subject was given by a site.
    streets
        Street centerlines around the subject (``[layers.streets]``), for the map.
    subject_addresses
        Subject parcel id to its site address (the map labels the subject with it).
    not_mailed
        Every parcel within the distance (the subject aside) whose owners get no notice, with
        ``reason_code`` and ``reason`` (:func:`swm_gis.notification.checks.not_mailed_parcels`):
        named on the certification, its workbook sheet and in ``abutters.json``.
    document
        The ``abutters.json`` content (subject, distance, counts, warnings).
    """

    info: PackageInfo
    subject: gpd.GeoDataFrame
    candidates: gpd.GeoDataFrame
    listed: gpd.GeoDataFrame
    left_out: gpd.GeoDataFrame
    recipients: pd.DataFrame
    search_area: gpd.GeoDataFrame
    summary: list[str] = field(default_factory=list)
    review: pd.DataFrame = field(default_factory=pd.DataFrame)
    counts: dict[str, int] = field(default_factory=dict)
    warnings: list[dict[str, str]] = field(default_factory=list)
    site: gpd.GeoDataFrame | None = None
    streets: gpd.GeoDataFrame | None = None
    document: dict = field(default_factory=dict)
    subject_addresses: dict[str, str] = field(default_factory=dict)
    not_mailed: pd.DataFrame = field(default_factory=pd.DataFrame)


@layers.run_cache()  # each source described by GDAL once per package, not once per read
def build_abutter_package(
    config: TownConfig,
    request: AbutterRequest,
    *,
    progress: Progress | None = None,
    address_fit: Callable[[pd.DataFrame], dict[str, str] | None] | None = None,
) -> AbutterNotice:
    """The abutter job: :func:`swm_gis.jobs.abutter_package` (``request`` holds its options,
    :class:`~swm_gis.notification.request.AbutterRequest` lists them) without the writing.
    ``address_fit(recipients)`` returns the warning ``address_does_not_fit`` (or None) for
    recipients whose address cannot be printed whole; the job-level API passes the reports' own
    check, so this layer needs no report.
    """
    progress = progress or quiet
    if not isinstance(config, TownConfig):
        config = load_config(config)
    cites = rule_citations(config.applied_regulation())  # the notice clause, the certification
    choice = notice_choice(request.notice, request.distance, rules=config.rules,
                           section=cites.notice)
    distance_ft = choice.distance_ft
    progress(0.05, "reading the subject parcel(s)")
    read = read_subject(config, parcel_ids=list(request.parcels), site=request.site)
    subject, site_gdf, skipped, id_notes = read.parcels, read.site, read.skipped, read.notes
    progress(0.2, "reading parcels around the subject")
    candidates = read_candidates(config, subject, distance_ft=distance_ft)
    _check_right_of_way_field(config)
    progress(0.35, "measuring distances")
    abut, ponds_note = _abutters(config, request, subject, candidates, choice=choice)
    progress(0.45, "reading the assessing records")
    ids = core.subject_ids(subject)
    owners = _owners(config, abut, subject, ids, include_subject=request.include_subject)
    owners.listed = order_listed(owners.listed, request.sort)  # the clerk's order, if asked
    owners.mailable = order_recipients(owners.mailable, owners.listed, request.sort)
    area = core.search_area(subject, distance_ft=distance_ft)
    generated = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    warnings = _warnings(config, subject=subject, area=area, candidates=candidates,
                         distance_ft=distance_ft, skipped=skipped, grazed=read.grazed,
                         n_abutting=len(abut), owners=owners, ids=ids,
                         on=dt.date.fromisoformat(generated[:10]))
    not_mailed = checks.not_mailed_parcels(owners.listed, owners.left, owners.mailable,
                                           subject_ids=ids,
                                           include_subject=request.include_subject)
    counts = checks.package_counts(owners.listed, owners.left, owners.recipient_counts,
                                   not_mailed=not_mailed)
    streets = read_streets(config, candidates, warnings)
    # an address too long to print whole (labels on the default 5160 sheet, the mailing book)
    unfit = (address_fit(owners.mailable) if address_fit is not None and len(owners.mailable)
             else None)
    if unfit is not None:
        warnings.append(unfit)
    info = PackageInfo(
        town=config.name, subject_ids=tuple(ids), distance_ft=distance_ft,
        fiscal_years=tuple(fiscal_years(owners.assess)),
        sources=tuple(_sources(config, request.site, request.site_label)),
        include_subject=request.include_subject,
        synthetic=config.synthetic, section=choice.citation,
        certification_section=cites.certification, sender=request.sender,
        notice=choice.kind, definition=choice.definition, board=choice.board,
        notes=(*id_notes, *((ponds_note,) if ponds_note else ())), counts=counts,
        warnings=tuple(warnings), not_mailed=tuple(checks.not_mailed_records(not_mailed)),
        towns=parcel_towns(owners.listed, home_town=config.name),
        subjects=tuple(subject_records(subject, owners.assess, ids)), generated=generated,
        regulation=describe_applied(config.applied_regulation(generated[:10]),
                                    named=config.regulation is not None),
    )
    return _notice(info, request, owners, counts=counts, warnings=warnings, subject=subject,
                   candidates=candidates, area=area, site_gdf=site_gdf, streets=streets,
                   not_mailed=not_mailed)


@dataclass
class _Owners:
    """The listed and left-out parcels with their owners, and the mailing list."""

    assess: pd.DataFrame             # the assessing rows of the abutters and the subject
    listed: gpd.GeoDataFrame         # with ``owners`` and ``site_address``
    left: gpd.GeoDataFrame
    mailable: pd.DataFrame           # the recipients
    review: pd.DataFrame
    recipient_counts: dict[str, int]
    addresses: pd.Series             # parcel id -> site address(es)


def _abutters(config: TownConfig, request: AbutterRequest, subject: gpd.GeoDataFrame,
              candidates: gpd.GeoDataFrame, *, choice: NoticeChoice
              ) -> tuple[gpd.GeoDataFrame, str | None]:
    """The parcels within the distance, or the c.40A § 11 parties in interest (plus the WPA
    pond extension's, asked for, with its note); more than ``max_abutters`` stops the job."""
    distance_ft = choice.distance_ft
    if choice.kind == "zoning":
        abut = parties_in_interest(
            candidates, subject, distance_ft=distance_ft,
            always_within_ft=choice.always_within_ft, tolerance_ft=choice.tolerance_ft,
            street_poly_types=choice.street_poly_types,
            include_subject=request.include_subject, rules=config.rules)
    else:
        abut = core.find_abutters(candidates, subject, distance_ft=distance_ft,
                                  include_subject=request.include_subject, rules=config.rules)
    ponds_note = None
    if request.wpa_pond_extension:
        abut, ponds_note = add_pond_extension(config, abut, subject, candidates)
    most = request.max_abutters
    if most is not None and len(abut) > most:
        raise TooManyAbuttersError(
            f"{len(abut)} parcels lie within {distance_ft:g} ft of parcel(s) "
            f"{', '.join(core.subject_ids(subject))}, more than {option('max_abutters')} {most}: "
            "nothing was written. Check the subject and the distance, or raise the limit.")
    return abut, ponds_note


def _owners(config: TownConfig, abut: gpd.GeoDataFrame, subject: gpd.GeoDataFrame,
            ids: list[str], *, include_subject: bool) -> _Owners:
    """Read the assessing records of the abutters and the subject, list and leave out, join
    the owners (checking the join) and build the mailing list."""
    assess = read_assess(config, ids=[*id_series(abut["id"]).dropna(), *ids])
    listed, left = list_and_leave_out(abut, subject, assess, rules=config.rules,
                                      citations=rule_citations(config.applied_regulation()),
                                      include_subject=include_subject)
    if config.has("assess"):
        check_owner_join(config, listed, assess,
                         parcels_fields=layers.field_map(config, "parcels"),
                         assess_fields=layers.field_map(config, "assess"),
                         attributes=lambda key: read_attributes(config, key))
    notices = owner_notices(listed, assess)
    mailable, review, recipient_counts = build_recipients(notices, subject_ids=ids)
    owners = owners_by_parcel(notices.rows)
    listed["owners"] = [owners.get(pid, "") for pid in listed["parcel_id"]]
    addresses = site_addresses(assess)
    listed["site_address"] = id_series(listed["parcel_id"]).map(addresses)
    return _Owners(assess=assess, listed=listed, left=left, mailable=mailable, review=review,
                   recipient_counts=recipient_counts, addresses=addresses)


def _warnings(config: TownConfig, *, subject, area, candidates, distance_ft: float,
              skipped: list[str], grazed: list[dict], n_abutting: int, owners: _Owners,
              ids: list[str], on: dt.date) -> list[dict[str, str]]:
    """:func:`job_warnings`, then what the owners add: the site's grazed parcels, subject
    parcels of different owners, abutters whose owner was not found, the tax list's fiscal
    year (on the date ``on``), condominiums without their unit owners."""
    listed_ids = id_series(owners.listed["parcel_id"]).dropna().tolist()
    warnings = job_warnings(config, subject=subject, area=area, candidates=candidates,
                            distance_ft=distance_ft, skipped=skipped, n_abutting=n_abutting,
                            limit=config.rules.abutter_warning_count)
    return warnings + [w for w in (
        checks.site_overlap_warning(grazed, share=config.rules.site_subject_share),
        checks.different_owners_warning(
            subject_owners(owners.assess, ids),
            owner_rule=wording_for(config.applied_regulation()).note("owner_of_site")),
        checks.owners_not_found_warning(owners.listed, has_assess=config.has("assess")),
        checks.tax_list_warning(tax_list_status(fiscal_years(owners.assess), on=on))
        if config.has("assess") else None,
        checks.condo_units_warning(missing_unit_owners(listed_ids, owners.assess)),
    ) if w is not None]


def _notice(info: PackageInfo, request: AbutterRequest, owners: _Owners, *,
            counts: dict[str, int], warnings: list[dict[str, str]], subject, candidates, area,
            site_gdf, streets, not_mailed: pd.DataFrame) -> AbutterNotice:
    """The notice: the frames, ``abutters.json`` and the summary for people."""
    site = request.site
    site_source = source_of(site, what="site", label=request.site_label) \
        if site is not None else None
    document = checks.abutters_document(info, counts=counts, warnings=warnings,
                                        site_source=site_source)
    lines = summary_lines(info, counts, warnings)
    return AbutterNotice(info=info, subject=subject, candidates=candidates, listed=owners.listed,
                         left_out=owners.left, recipients=owners.mailable, search_area=area,
                         summary=lines + list(info.notes), review=owners.review, counts=counts,
                         warnings=warnings, site=site_gdf, streets=streets,
                         document=document, not_mailed=not_mailed,
                         subject_addresses={i: str(owners.addresses.get(i, ""))
                                            for i in info.subject_ids})


def list_and_leave_out(abut: gpd.GeoDataFrame, subject: gpd.GeoDataFrame, assess: pd.DataFrame,
                       *, rules, include_subject: bool,
                       citations: RuleCitations | None = None
                       ) -> tuple[gpd.GeoDataFrame, gpd.GeoDataFrame]:
    """The parcels to list (numbered ``map_no`` nearest first) and those left out, with the
    subject's own rows among the left out unless ``include_subject``."""
    listed, left = core.classify(abut, owned_parcel_ids(assess), rules=rules,
                                 citations=citations)
    if not include_subject:
        left = pd.concat([left, subject_left_out(subject)])
    listed = _with_pond_notes(listed.assign(parcel_id=id_series(listed["id"]),
                                            map_no=np.arange(1, len(listed) + 1)))
    return listed, left.assign(parcel_id=id_series(left["id"]))


class TooManyAbuttersError(SwmGisError):
    """More abutters than ``max_abutters=`` allows: nothing is written."""


def job_warnings(config: TownConfig, *, subject, area, candidates, distance_ft: float,
                 skipped: list[str], n_abutting: int, limit: int) -> list[dict[str, str]]:
    """The warnings of ``abutters.json`` (:mod:`swm_gis.notification.checks`), in a fixed order."""
    found = [
        checks.many_abutters_warning(n_abutting, limit, distance_ft=distance_ft),
        checks.edge_warning(config, subject, area, candidates, distance_ft=distance_ft),
        checks.right_of_way_warning(skipped),
        checks.subject_right_of_way_warning(
            id_series(subject.loc[core.no_owner_type(subject, config.rules), "id"]).tolist()),
        None if config.has("assess") else checks.no_assess_warning(),
        not_named_warning(config),
    ]
    return [w for w in found if w is not None]


def read_streets(config: TownConfig, candidates: gpd.GeoDataFrame,
                 warnings: list[dict[str, str]]) -> gpd.GeoDataFrame | None:
    """Street centerlines around the map's area ([layers.streets]); None when not configured.

    The streets only orient the map: one that cannot be read adds ``map_context_unread`` to
    ``warnings`` instead of stopping the abutter list.
    """
    if not config.has("streets") or candidates.empty:
        return None
    x0, y0, x1, y1 = candidates.total_bounds
    pad = 0.25 * max(x1 - x0, y1 - y0)
    try:
        return layers.read_layer(config, "streets",
                                 bbox=(x0 - pad, y0 - pad, x1 + pad, y1 + pad))
    except SwmGisError as exc:
        warnings.append(checks.warning("map_context_unread", f"The map is drawn without "
                                       f"street names: {exc}"))
        return None


def first_owned_parcel(config: TownConfig) -> str:
    """The id of the first parcel with an owner type (for demos on a small town)."""
    parcels = layers.read_layer(config, "parcels")
    owned = parcels.loc[~core.no_owner_type(parcels, config.rules), "id"].dropna()
    if owned.empty:
        raise SwmGisError(f"{config.layer('parcels').describe()} has no owned parcel.")
    return str(owned.iloc[0])


def _sources(config: TownConfig, site, site_label: str | None = None) -> list[dict]:
    """Every source with its best-known vintage (the config's, else the file date labelled)."""
    sources = [source_with_vintage(layers.source_info(config.layer(key)),
                                   config_vintage=config.layer(key).vintage)
               for key in ("parcels", "assess", "town_boundary", "streets") if config.has(key)]
    if site is not None:
        sources.append(source_of(site, what="site", label=site_label))
    return sources


def _with_pond_notes(listed: gpd.GeoDataFrame) -> gpd.GeoDataFrame:
    """Say in ``note`` which pond brought a parcel in (WPA pond extension)."""
    if "pond" not in listed:
        return listed
    by_pond = listed["pond"].notna()
    listed.loc[by_pond, "note"] = [
        "; ".join(p for p in (note, f"WPA pond extension: abuts {pond} ({acres:g} acres), "
                                    "which the subject borders") if p)
        for note, pond, acres in zip(listed.loc[by_pond, "note"], listed.loc[by_pond, "pond"],
                                     listed.loc[by_pond, "pond_acres"], strict=True)]
    return listed


def add_pond_extension(cfg: TownConfig, abut: gpd.GeoDataFrame, subject: gpd.GeoDataFrame,
                       candidates: gpd.GeoDataFrame) -> tuple[gpd.GeoDataFrame, str]:
    """Add the owners around ponds under 10 acres that the subject borders (optional rule)."""
    reach = core.POND_BORDER_FT * core.M_PER_FT / core.metres_per_unit(cfg.crs) + 1.0
    x0, y0, x1, y1 = subject.total_bounds
    if cfg.has("waterbodies"):
        ponds = layers.read_layer(cfg, "waterbodies",
                                  bbox=(x0 - reach, y0 - reach, x1 + reach, y1 + reach))
        source = "the water bodies layer"
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
                                exclude_ids=id_series(abut["id"]).dropna())
    extra = extra.assign(is_subject=False, other_town=False)
    if "town_id" in subject and len(extra):
        towns = {core.town_key(v) for v in subject["town_id"] if pd.notna(v)}
        extra["other_town"] = [bool(towns) and pd.notna(t) and core.town_key(t) not in towns
                               for t in extra["town_id"]]
    out = pd.concat([abut, extra]) if len(extra) else abut
    out = gpd.GeoDataFrame(out, geometry=abut.geometry.name, crs=abut.crs).sort_values(
        "distance_ft", kind="stable")
    names = ", ".join(f"{p} ({a:g} acres)" for p, a in zip(found["pond"], found["pond_acres"],
                                                            strict=True))
    return out, (f"WPA pond extension: {len(extra)} more parcel(s) abutting {names}, which the "
                 f"subject borders ({source}).")


# --------------------------------------------------------------------------- reading
def _check_right_of_way_field(cfg: TownConfig) -> None:
    """:func:`~swm_gis.rules.abutters.check_right_of_way_field` on the parcels layer's fields."""
    core.check_right_of_way_field(layers.field_map(cfg, "parcels"), cfg.rules,
                                  source=layers.source_info(cfg.layer("parcels")))


@dataclass(frozen=True)
class Subject:
    """The subject as :func:`read_subject` reads it.

    Attributes
    ----------
    parcels
        The subject parcels (working CRS).
    site
        The site polygon(s) (working CRS); None when the subject was given by ``parcel_ids``.
    skipped
        Ids of the right-of-way and water polygons the site reaches into (never subjects).
    grazed
        Parcels the site only grazes (:class:`~swm_gis.rules.abutters.SiteParcels`).
    notes
        How each given id was matched (an id given as a map-lot, ...).
    """

    parcels: gpd.GeoDataFrame
    site: gpd.GeoDataFrame | None = None
    skipped: list[str] = field(default_factory=list)
    grazed: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def read_subject(cfg: TownConfig, *, parcel_ids: list[str],
                 site: str | os.PathLike | gpd.GeoDataFrame | None) -> Subject:
    """The subject parcels: by id or map-lot, or the parcels the site polygons really lie on
    (:class:`Subject`, with the site and what it touched)."""
    site_gdf, skipped, notes = None, [], []
    grazed: list[dict] = []
    if site is not None:
        site_gdf = as_frame(site, working_crs=cfg.crs, what=option("site"))
        touched = layers.read_layer(cfg, "parcels", mask=core.subject_union(site_gdf))
        _check_right_of_way_field(cfg)
        found = core.parcels_touched_by_site(touched, site_gdf, rules=cfg.rules)
        if len(found.covered) > 1:  # a second "subject" must have the main subject's owner
            found = same_owner_subjects(found, subject_owners(
                read_assess(cfg, ids=[g["id"] for g in found.covered]),
                [g["id"] for g in found.covered]))
        skipped = list(dict.fromkeys(found.skipped_no_owner))
        grazed = found.grazed
        subject = found.subject
        subject = subject.loc[subject["id"].notna()] if "id" in subject else subject
        if subject.empty:
            raise GeometryError(
                f"The site {describe(site)} ({option('site')}) reaches into no parcel of "
                f"{cfg.layer('parcels').describe()} ({config_key('layers.parcels')}). Check that "
                "the site "
                "lies in the town and that both are in the CRS they declare."
            )
        parcel_ids = core.subject_ids(subject)
        subject = layers.read_parcels_by_id(cfg, parcel_ids)
    else:
        parcel_ids, notes, read = resolve_parcel_ids(cfg, parcel_ids)  # id or map-lot
        # every value an id as given: the parcels read to check them are the subject
        subject = (layers.merge_duplicate_ids(read) if read is not None
                   else layers.read_parcels_by_id(cfg, parcel_ids))
    return Subject(parcels=subject, site=site_gdf, skipped=skipped, grazed=grazed, notes=notes)


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
    rows = layers.read_by_ids(cfg, "assess", "parcel_id", ids)
    if cfg.has("condo_units"):  # the town's unit owners, where the extract has master records
        units = layers.read_by_ids(cfg, "condo_units", "parcel_id", ids)
        rows = pd.concat([rows, units], ignore_index=True) if len(units) else rows
    return rows


def subject_records(subject: gpd.GeoDataFrame, assess: pd.DataFrame, ids: list[str]
                    ) -> list[dict]:
    """Each subject parcel with its map-lot and owners of record (the certification and
    ``abutters.json`` name them)."""
    owners = subject_owners(assess, ids)
    lots = dict(zip(id_series(subject["id"]), subject["map_par_id"], strict=True)) \
        if "map_par_id" in subject and "id" in subject else {}
    return [{"parcel_id": pid, "map_par_id": "" if pd.isna(lots.get(pid)) else
             str(lots.get(pid) or ""), "owners": owners.get(pid, [])} for pid in ids]


def site_addresses(assess: pd.DataFrame) -> pd.Series:
    """Parcel id -> its site address(es) from the assessing rows ("; " between distinct ones)."""
    if "site_address" not in assess or assess.empty:
        return pd.Series(dtype=object)
    by_parcel: dict[str, list[str]] = {}
    for pid, address in zip(id_series(assess["parcel_id"]), assess["site_address"], strict=True):
        if address is None or (not isinstance(address, str) and pd.isna(address)):
            continue
        by_parcel.setdefault(str(pid), []).append(address)
    return pd.Series({pid: _join_addresses(values) for pid, values in by_parcel.items()},
                     dtype=object)


def _join_addresses(values: Iterable[object], most: int = 3) -> str:
    """Distinct site addresses; a condominium's many unit addresses are shortened."""
    distinct = list(dict.fromkeys(str(v).strip() for v in values if str(v).strip()))
    if len(distinct) <= most:
        return "; ".join(distinct)
    return "; ".join(distinct[:most]) + f"; ... ({len(distinct)} addresses)"


def subject_left_out(subject: gpd.GeoDataFrame) -> gpd.GeoDataFrame:
    out = subject.copy()
    out["distance_ft"] = 0.0
    out["reason"] = ("subject parcel (the applicant's own land): no notice; its owners are "
                     "listed only when the subject is asked to be included")
    return out


def summary_lines(info: PackageInfo, counts: dict[str, int],
                  warnings: list[dict[str, str]]) -> list[str]:
    """The job's summary for people: the same counts as ``abutters.json``, then warnings."""
    lines = [
        f"Subject parcel(s) {info.subject_text}; distance {info.distance_text} "
        f"({info.section}); assessing data {info.fiscal_year_text}.",
        f"{counts['abutting']} abutting parcel(s): {counts['no_owner_of_record']} with no owner "
        f"of record (ask the Assessors), {counts['other_town']} in another town; "
        f"{counts['left_out']} left out (left_out.csv).",
        f"{counts.get('mailable', 0)} recipient(s) after removing "
        f"{counts.get('duplicates_removed', 0)} duplicate notice(s) (mailing_list.csv); "
        f"{counts.get('no_mailing_address', 0)} with no mailing address and "
        f"{counts.get('incomplete_address', 0)} with an incomplete address are kept off it "
        "(mailing_review.csv).",
    ]
    if "parcels_total" in counts:
        lines.append(parcel_count_text(info, counts)
                     + " (certification.pdf names each one not mailed, with the reason).")
    if info.subjects:
        lines.append("Subject parcel(s) and owner(s) of record: "
                     + "; ".join(subject_lines(info)) + ".")
    return lines + [f"Warning ({w['code']}): {w['text']}" for w in warnings]


__all__ = ["AbutterNotice", "OwnerJoinError", "Subject", "TooManyAbuttersError",
           "build_abutter_package", "first_owned_parcel"]

"""The job level of the Python API: one call per job over a town config.

:func:`screen` screens a site, :func:`abutter_package` builds the
abutter notification package and :func:`applicability_map` classifies every parcel of the town. Each
returns a result object that holds the frames and findings and writes the files the command line
writes (``.write(...)``). The ``swm-gis`` commands are thin callers of these functions.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterable
from pathlib import Path

import geopandas as gpd

from swm_gis.config.town import TownConfig, load_config
from swm_gis.errors import ConfigError
from swm_gis.io import source_cache
from swm_gis.io.inputs import describe
from swm_gis.io.layers import run_cache
from swm_gis.messages import option
from swm_gis.notification.package import build_abutter_package
from swm_gis.notification.request import AbutterRequest
from swm_gis.progress import Progress, quiet
from swm_gis.reports.certified_mail import address_fit_warning
from swm_gis.results import AbutterPackage, ApplicabilityMap, Screening
from swm_gis.screening.build import build_screening
from swm_gis.screening.request import ScreeningRequest, Source

#: Engines of :func:`applicability_map`.
ENGINES = ("local", "dask")



def _config(config: TownConfig | str | os.PathLike) -> TownConfig:
    return config if isinstance(config, TownConfig) else load_config(config)


def screen(
    config: TownConfig,
    site: Source,
    *,
    common_plan: Source | None = None,
    development: str = "auto",
    proposed_impervious: Source | None = None,
    proposed_impervious_sqft: float | None = None,
    removed_impervious: Source | None = None,
    mitigation: Source | None = None,
    exemptions: Iterable[str] = (),
    roadway_maintenance: bool = False,
    parcels: str | Iterable[str] = (),
    received: str | dt.date | None = None,
    proposed_use: str | None = None,
    progress: Progress | None = None,
) -> Screening:
    """Screen a proposed project against Chapter 320 (what ``swm-gis screen`` does).

    Parameters
    ----------
    config
        The town config (:func:`swm_gis.load_config`) or the path of its TOML file.
    site
        Limit-of-disturbance polygon(s): a vector file (``path`` or ``path.gpkg:layer``) or a
        GeoDataFrame with a CRS.
    common_plan
        Disturbance of the larger common plan of development or sale the site belongs to.
    development
        ``"auto"`` (measure existing impervious cover), ``"new"`` or ``"redevelopment"``.
    proposed_impervious, proposed_impervious_sqft
        Proposed (post-construction) impervious surfaces (polygons) or their area in sq ft
        inside the limit of disturbance (not both). The total post-construction impervious
        area adds the existing cover on the site's parcel(s) outside the limit that stays.
    removed_impervious
        Existing impervious cover on the site's parcel(s) outside the limit of disturbance that
        the applicant removes (polygons): it does not stay, so it is not in the total.
    mitigation
        Proposed off-site mitigation sites (checked for HUC12 / HUC10 eligibility).
    exemptions
        Ids of the applied regulation's exemptions claimed (its profile's
        ``[[versions.exemptions]]``; :func:`swm_gis.config.regulation.exemption_ids`).
    roadway_maintenance
        Redevelopment limited to maintaining existing roadways.
    parcels
        The site's parcel ids (Chapter 320: the site is the lot or parcel; one id may be given
        as a string); default: the parcels the limit of disturbance lies on. The floodplain and
        impervious areas read them.
    received
        Date the application was received (``"YYYY-MM-DD"`` or a date), for the deadlines.
    proposed_use
        Proposed land use (a Massachusetts DOR use code or ``"commercial"``, ``"residential"``,
        ...); decides § 320-19 B(10)(e). Without it, B(10)(e) is conditional wherever runoff
        reaches a water impaired by solids, metals or oil and grease ("applies if the proposed
        use is commercial or industrial"), naming the site parcels' existing use codes.
    progress
        ``progress(fraction, message)`` callback.

    Returns
    -------
    Screening
        ``.document`` (the ``screening.json`` content), ``.layers``, ``.permit_required``,
        ``.summary``; ``.write(out_dir)`` writes the files.

    Examples
    --------
    A 0.4-acre lot of a 2-acre subdivision in the bundled synthetic sample town:

    >>> from pathlib import Path
    >>> import swm_gis
    >>> sample = Path(swm_gis.__file__).parents[1] / "data" / "sample"
    >>> town = swm_gis.load_config(sample / "town.toml")
    >>> sites = sample / "sites.gpkg"
    >>> s = swm_gis.screen(town, f"{sites}:site_small", common_plan=f"{sites}:common_plan")
    >>> s.permit_required, s.document["development_type"]["value"]
    (True, 'new')
    """
    request = ScreeningRequest(
        site, common_plan=common_plan, development=development,
        proposed_impervious=proposed_impervious,
        proposed_impervious_sqft=proposed_impervious_sqft,
        removed_impervious=removed_impervious, mitigation=mitigation, exemptions=exemptions,
        roadway_maintenance=roadway_maintenance, parcels=parcels,
        received=received, proposed_use=proposed_use)
    return screen_request(config, request, progress=progress)


def screen_request(config: TownConfig | str | os.PathLike, request: ScreeningRequest, *,
                   progress: Progress | None = None) -> Screening:
    """:func:`screen` for a request made already (the command line makes one from its options).

    Reads the request's files (its vector inputs in the working CRS), screens them
    (:func:`swm_gis.screening.build.build_screening`) and records in the document's parameters
    how each input was given, the parcel ids and the received date.
    """
    progress = progress or quiet
    cfg = _config(config)
    progress(0.0, "reading the site")
    with source_cache.using(cfg):  # each source parsed once, then read by the site's box
        result = build_screening(cfg, request.read(cfg.crs),
                                 progress=lambda f, m: progress(0.05 + 0.8 * f, m))
    document = result.document

    def given(key: str) -> str | None:  # a front end's copy by its label, never its path
        return request.labels.get(key) or describe(getattr(request, key))

    document["meta"]["parameters"].update({
        "site": given("site"), "common_plan": given("common_plan"),
        "mitigation": given("mitigation"), "proposed_impervious": given("proposed_impervious"),
        "removed_impervious": given("removed_impervious"),
        "parcels": list(request.parcels),
        "received": request.received.isoformat() if request.received else None,
    })
    return Screening(document=document, layers=result.layers, received=request.received)


def applicability_map(
    config: TownConfig,
    out: str | os.PathLike | None = None,
    *,
    engine: str = "local",
    chunk_size: int | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    overwrite: bool = False,
    progress: Progress | None = None,
) -> ApplicabilityMap:
    """Classify every parcel of the town (what ``swm-gis applicability`` does).

    Parameters
    ----------
    config
        The town config (:func:`swm_gis.load_config`) or the path of its TOML file.
    out
        GeoPackage to write (``.gpkg``), streaming tile by tile; None keeps the result in memory
        (``.frame``; write it later with ``.write(path)``).
    engine
        ``"local"`` (the town in spatial tiles, classified by ``workers`` processes of this
        machine) or ``"dask"`` (the tiles on a Dask cluster; needs ``out``).
    chunk_size
        About how many parcels per spatial tile (default 20,000).
    scheduler
        Dask scheduler address (``engine="dask"`` only; default: a LocalCluster).
    workers
        Worker processes: of the local engine, or of the Dask LocalCluster. Default: every core.
        The output is the same whatever the count. Without ``out`` the town is classified in
        this process.
    overwrite
        Replace ``out`` if it exists.
    progress
        ``progress(fraction, message)`` callback.

    Returns
    -------
    ApplicabilityMap
        ``.frame`` (one row per parcel, the columns README "Commands" lists), ``.summary``,
        ``.checks``, ``.path``.

    Examples
    --------
    >>> from pathlib import Path
    >>> import swm_gis
    >>> town = swm_gis.load_config(
    ...     Path(swm_gis.__file__).parents[1] / "data" / "sample" / "town.toml")
    >>> amap = swm_gis.applicability_map(town)
    >>> amap.parcels, len(amap.frame), amap.path is None
    (3167, 3167, True)
    """
    from swm_gis.applicability import run as ap

    progress = progress or quiet
    if engine not in ENGINES:
        raise ConfigError(f"Unknown engine {engine!r}; choose local or dask.")
    if scheduler and engine != "dask":
        raise ConfigError(f"{option('scheduler')} is for the Dask engine; add "
                          f"{option('engine')} dask.")
    if out is not None and Path(out).suffix.lower() != ".gpkg":
        raise ConfigError(f"{option('out')} {out} must be a GeoPackage file ending in .gpkg.")
    cfg = _config(config)
    chunk = chunk_size or ap.DEFAULT_CHUNK_SIZE
    if out is None and engine == "dask":
        raise ConfigError("The Dask engine writes a GeoPackage: give out=PATH.gpkg.")
    # each file source parsed once, then read tile by tile by box (the workers are given the
    # job's cache folder: applicability.parallel)
    with source_cache.using(cfg):
        return _applicability_map(cfg, out, engine=engine, scheduler=scheduler, workers=workers,
                                  chunk=chunk, overwrite=overwrite, progress=progress)


def _applicability_map(cfg: TownConfig, out: str | os.PathLike | None, *, engine: str,
                       scheduler: str | None, workers: int | None, chunk: int, overwrite: bool,
                       progress: Progress) -> ApplicabilityMap:
    from swm_gis.applicability import run as ap  # the town-wide engine, imported when used

    if out is None:
        town = ap.classify_town(cfg, chunk_size=chunk, progress=progress)
        return ApplicabilityMap(config=cfg, summary=town.summary, checks=town.checks,
                                parcels=town.parcels, tiles=town.tiles,
                                parameters=town.parameters, _frame=town.frame)
    if engine == "dask":
        from swm_gis.applicability.cluster import run_applicability_dask

        run = run_applicability_dask(cfg, out, scheduler=scheduler,
                                     workers=ap.check_workers(workers),
                                     chunk_size=chunk, overwrite=overwrite, progress=progress)
    else:
        run = ap.run_applicability(cfg, out, chunk_size=chunk, workers=workers,
                                   overwrite=overwrite, progress=progress)
    return ApplicabilityMap(config=cfg, summary=run.summary, checks=run.checks,
                            parcels=run.parcels, tiles=run.tiles, path=run.path,
                            engine=run.engine)


@run_cache()  # each source described by GDAL once per package, not once per read
def abutter_package(
    config: TownConfig,
    *,
    parcels: str | Iterable[str] | None = None,
    site: str | os.PathLike | gpd.GeoDataFrame | None = None,
    distance: str | float | None = None,
    include_subject: bool = False,
    wpa_pond_extension: bool = False,
    sender: Iterable[str] = (),
    max_abutters: int | None = None,
    notice: str = "conservation",
    sort: str | None = None,
    progress: Progress | None = None,
) -> AbutterPackage:
    """Find the abutters of a subject property, their owners and the notices (Chapter 320, permit
    procedure, A(7)).

    Give the subject either by ``parcels`` (ids of the parcels layer's id field, or the
    assessor's map-lot numbers of its ``map_par_id`` field, treated as one property; one id may
    be a string) or by ``site`` (a vector file or GeoDataFrame: the parcels it really lies on,
    ``[rules] site_subject_share``; those it only grazes stay abutters, with a warning).

    Parameters
    ----------
    config
        The town config (:func:`swm_gis.load_config`) or the path of its TOML file.
    parcels, site
        The subject: parcel ids or map-lots, or the project's polygon(s). Exactly one of the
        two.
    distance
        ``"100ft"``, ``"30.48m"`` or a number of feet; default the config's
        ``abutter_distance_ft`` (100 ft).
    include_subject
        Also list and notify the subject parcels' owners.
    wpa_pond_extension
        Also notify owners around ponds under 10 acres that the subject borders.
    sender
        Lines of the sender block of ``certified_mail.pdf``.
    max_abutters
        Stop with :class:`~swm_gis.notification.package.TooManyAbuttersError` (before reading owners
        or writing anything) when more parcels than this abut; without it, a list over ``[rules]
        abutter_warning_count`` (500) only adds the warning ``many_abutters``.
    notice
        ``"conservation"`` (the regulation's notice clause; with a ``distance`` of its own, a
        plain radius) or ``"zoning"`` (M.G.L. c.40A, § 11 parties in interest).
    sort
        ``"owner"``, ``"street"`` or ``"map-lot"``: the order of the list, the labels and the
        mailing book; default nearest first.
    progress
        ``progress(fraction, message)`` callback.

    Returns
    -------
    AbutterPackage
        The frames; :meth:`AbutterPackage.write` writes the files.

    Raises
    ------
    ~swm_gis.rules.owner_join.OwnerJoinError
        An assessing table is configured but not one abutter that can have an owner joins a
        record of it (a wrong id field: the list would name no owner).
    ~swm_gis.errors.UnknownParcelError
        A ``parcels`` value is neither a parcel id nor a map-lot (near matches are listed).

    Examples
    --------
    >>> from pathlib import Path
    >>> import swm_gis
    >>> town = swm_gis.load_config(
    ...     Path(swm_gis.__file__).parents[1] / "data" / "sample" / "town.toml")
    >>> pkg = swm_gis.abutter_package(town, parcels=["M_236682_917765"])
    >>> pkg.info.distance_ft, len(pkg.listed), len(pkg.recipients)
    (100.0, 9, 20)
    """
    cfg = _config(config)
    request = AbutterRequest(parcels=parcels, site=site, distance=distance,
                             include_subject=include_subject,
                             wpa_pond_extension=wpa_pond_extension, sender=sender,
                             max_abutters=max_abutters, notice=notice, sort=sort)
    return abutter_package_request(cfg, request, progress=progress)


@run_cache()
def abutter_package_request(config: TownConfig | str | os.PathLike, request: AbutterRequest, *,
                            progress: Progress | None = None) -> AbutterPackage:
    """:func:`abutter_package` for a request made already (the command line makes one from its
    options); the address-fit warning is the reports' own check."""
    cfg = _config(config)
    with source_cache.using(cfg):  # each source parsed once, then read by the search area
        notice = build_abutter_package(cfg, request, progress=progress,
                                       address_fit=address_fit_warning)
    return AbutterPackage.of(notice)

__all__ = ["abutter_package", "abutter_package_request", "applicability_map", "load_config",
           "screen", "screen_request"]

"""What one screening is asked: the options of ``swm-gis screen`` and :func:`swm_gis.screen`.

The command line, the Python API (and through the command line the QGIS plugin) build one
:class:`ScreeningRequest` from their options; the job (:func:`swm_gis.jobs.screen_request`) and
:func:`swm_gis.screening.build.build_screening` take it instead of a dozen parameters each. The
request checks its options when it is made, before any file is read.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import geopandas as gpd

from swm_gis.config.strict import finite_value
from swm_gis.errors import SwmGisError
from swm_gis.io.inputs import read_input
from swm_gis.io.sources import temporary_source
from swm_gis.messages import option
from swm_gis.rules.citations import RuleCitations
from swm_gis.rules.disturbance import check_exemptions, exemption_names

#: A vector input: a file (``path`` or ``path.gpkg:layer``) or a GeoDataFrame with a CRS.
Source = str | os.PathLike | gpd.GeoDataFrame

DEVELOPMENT_CHOICES = ("auto", "new", "redevelopment")

#: The request's vector inputs -> (their name in messages, the geometry kind kept).
INPUTS = {"site": (option("site"), "polygon"),
          "common_plan": (option("common_plan"), "polygon"),
          "proposed_impervious": (option("proposed_impervious"), "polygon"),
          "removed_impervious": (option("removed_impervious"), "polygon"),
          "mitigation": (option("mitigation"), None)}


@dataclass(frozen=True, eq=False)
class ScreeningRequest:
    """The options of one screening (what :func:`swm_gis.screen` and the screen command take).

    Made once by the caller; checked and normalised when made (an impervious area given twice,
    a bad date or development type raise :class:`SwmGisError` before any file is read; an
    exemption, land use or roadway claim the applied regulation does not know is refused by the
    screening before it reads a file). Frozen; requests compare by identity (they may hold
    GeoDataFrames).

    Attributes
    ----------
    site
        Limit-of-disturbance polygon(s): a vector file (``path`` or ``path.gpkg:layer``) or a
        GeoDataFrame with a CRS. Required.
    common_plan
        Disturbance polygons of the larger common plan of development or sale the site belongs
        to (file or GeoDataFrame). Default None: no common plan.
    development
        ``"auto"`` (measure the existing impervious cover), ``"new"`` or ``"redevelopment"``.
        Default ``"auto"``.
    proposed_impervious
        Post-construction impervious surfaces, polygons (file or GeoDataFrame). Default None.
    proposed_impervious_sqft
        Proposed impervious area inside the limit of disturbance in square feet (a finite
        number >= 0), instead of ``proposed_impervious`` (not both). Default None: retention is
        not computed. The existing cover on the site's parcel(s) outside the limit that stays
        is added to either (the total post-construction impervious area on the site).
    removed_impervious
        Existing impervious cover on the site's parcel(s) outside the limit of disturbance that
        the applicant removes, polygons (file or GeoDataFrame): it does not count in the total.
        Default None: all of that cover stays.
    mitigation
        Proposed off-site mitigation sites (file or GeoDataFrame, any geometry), each checked
        for HUC12 / HUC10 eligibility. Default None.
    exemptions
        Ids of the applied regulation's exemptions claimed (its profile's
        ``[[versions.exemptions]]``: ``"npdes-waived"``, ``"agriculture"``, ... for Lynnfield;
        an item ``"a,b"`` is two); lower case, de-duplicated in order. Default ().
    roadway_maintenance
        Redevelopment limited to maintaining existing roadways (§ 320-19 B(8)(e)). Default
        False.
    parcels
        The site's parcel ids (Chapter 320: the site is the lot or parcel; one id may be given
        as a string); normalised to a tuple of strings. Default (): the parcels the limit of
        disturbance lies on.
    received
        Date the application was received (a date or ``"YYYY-MM-DD"``; normalised to a date),
        for the report's hearing deadlines. Default None.
    proposed_use
        Proposed land use: a Massachusetts DOR use code (``"325"``) or ``"commercial"``,
        ``"residential"``, ...; decides § 320-19 B(10)(e). Default None: the parcels' existing
        use codes decide.
    sources
        The source record of each vector input read, by its name (``"site"``, ...): what
        ``screening.json`` records of it (file, layer, modification time). Filled by
        :meth:`read`; an input without one is recorded as given with no file. Default: none.
    labels
        Input name -> label for a FILE that is a front end's temporary copy: its source record
        and the document's parameters give the label alone (never the copy's path or date).
        Default: none.

    Examples
    --------
    >>> r = ScreeningRequest("site.gpkg", exemptions=["Fencing,utilities", "fencing"],
    ...                      parcels="7-K-33", received="2026-03-14")
    >>> r.exemptions, r.parcels, r.received
    (('fencing', 'utilities'), ('7-K-33',), datetime.date(2026, 3, 14))
    >>> ScreeningRequest("site.gpkg", development="old")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    swm_gis.errors.SwmGisError: Unknown development= value "old"; use one of: auto, new, ...
    """

    site: Source
    common_plan: Source | None = None
    development: str = "auto"
    proposed_impervious: Source | None = None
    proposed_impervious_sqft: float | None = None
    removed_impervious: Source | None = None
    mitigation: Source | None = None
    exemptions: Iterable[str] = ()
    roadway_maintenance: bool = False
    parcels: str | Iterable[str] = ()
    received: str | dt.date | None = None
    proposed_use: str | None = None
    sources: Mapping[str, dict[str, Any]] = field(default_factory=dict)
    #: input -> label, for a FILE that is a front end's temporary copy (the QGIS plugin's
    #: export of a selection): the outputs name it by the label alone, never the copy's path
    labels: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # the order in which a request with several bad options is refused
        self._set("received", _parse_date(self.received))
        # "--exemption a,b" reads as "--exemption a --exemption b"; the names are checked by
        # the screening, which knows the applied regulation's exemptions (check_exemptions)
        self._set("exemptions", tuple(exemption_names(self.exemptions)))
        if self.proposed_impervious is not None and self.proposed_impervious_sqft is not None:
            raise SwmGisError("Give the post-construction impervious area once: either "
                              f"{option('proposed_impervious', 'FILE')} or "
                              f"{option('proposed_impervious_sqft', 'N')}, not both.")
        if self.proposed_impervious_sqft is not None:  # "inf" and "nan" parse as numbers
            self._set("proposed_impervious_sqft", finite_value(
                self.proposed_impervious_sqft, what=option("proposed_impervious_sqft"), low=0,
                unit="sq ft"))
        # one id given as a string is one parcel, not a list of its characters
        self._set("parcels", (self.parcels,) if isinstance(self.parcels, str)
                  else tuple(str(p) for p in self.parcels or ()))
        # an unknown --proposed-use is refused by the screening, which knows the words of the
        # town's regulation profile too (swm_gis.screening.tiers.waters_use)
        if self.development not in DEVELOPMENT_CHOICES:
            raise SwmGisError(f'Unknown {option("development")} value "{self.development}"; '
                              "use one of: "
                              f"{', '.join(DEVELOPMENT_CHOICES)}.")

    def _set(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)  # normalising a frozen dataclass as it is made

    @property
    def is_read(self) -> bool:
        """Whether every vector input given is a GeoDataFrame (no file left to read)."""
        return all(getattr(self, key) is None or isinstance(getattr(self, key), gpd.GeoDataFrame)
                   for key in INPUTS)

    def read(self, crs: Any) -> ScreeningRequest:
        """This request with its vector inputs read (:func:`swm_gis.io.inputs.read_input`):
        files read, GeoDataFrames checked and repaired, all in the working CRS ``crs``, and
        their source records in ``sources``."""
        read = {key: read_input(getattr(self, key), working_crs=crs, what=what,
                                geometry=geometry)
                for key, (what, geometry) in INPUTS.items()}
        return dataclasses.replace(
            self, **{key: None if layer is None else layer.frame for key, layer in read.items()},
            sources={key: temporary_source(key, self.labels[key]) if key in self.labels
                     else layer.source for key, layer in read.items() if layer is not None})


def _parse_date(value: str | dt.date | None) -> dt.date | None:
    if value is None or isinstance(value, dt.date):
        return value
    try:
        return dt.date.fromisoformat(str(value))
    except ValueError as exc:
        raise SwmGisError(f'{option("received")} "{value}" is not a date; write it as '
                          "YYYY-MM-DD, e.g. "
                          "2026-03-14.") from exc


__all__ = ["DEVELOPMENT_CHOICES", "ScreeningRequest", "Source", "check_claims"]


def check_claims(request: ScreeningRequest, citations: RuleCitations) -> None:
    """Refuse a claim the applied regulation does not have (:class:`SwmGisError`, exit 2): an
    exemption that is not one of its ids (:func:`~swm_gis.rules.disturbance.check_exemptions`),
    or roadway maintenance where the profile gives no roadway-maintenance exemption
    (``standards.roadway_maintenance_citation``)."""
    check_exemptions(request.exemptions, citations)
    if request.roadway_maintenance and not citations.has_roadway_exemption:
        raise SwmGisError(
            f"The applied regulation ({citations.name}) has no roadway-maintenance exemption; "
            f"leave {option('roadway_maintenance')} out.")

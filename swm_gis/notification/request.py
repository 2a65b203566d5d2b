"""What one abutter package is asked: the options of ``swm-gis abutters`` and
:func:`swm_gis.abutter_package`.

The command line and the Python API (and through the command line the QGIS plugin) build one
:class:`AbutterRequest` from their options; the job (:func:`swm_gis.jobs.abutter_package_request`)
and :func:`swm_gis.notification.package.build_abutter_package` take it instead of a list of
parameters each. The request checks the subject when it is made, before any file is read.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import geopandas as gpd

from swm_gis.errors import SwmGisError
from swm_gis.messages import option
from swm_gis.notification.notice import check_notice


@dataclass(frozen=True, eq=False)
class AbutterRequest:
    """The options of one abutter package (what the command line and
    :func:`swm_gis.abutter_package` take; how the files are printed, the label sheet and its
    offset, are options of writing them).

    Made once by the caller; the subject is checked and normalised when it is made (exactly one
    of ``parcels`` and ``site``, else :class:`SwmGisError`). Frozen; requests compare by identity
    (they may hold a GeoDataFrame).

    Attributes
    ----------
    parcels
        The subject: ids of the parcels layer's id field or the assessor's map-lot numbers of
        its ``map_par_id`` field, treated as one property (one id may be a string); normalised
        to a tuple of strings. Default (): the subject is given by ``site``.
    site
        The subject given by the project's polygon(s): a vector file (``path`` or
        ``path.gpkg:layer``) or a GeoDataFrame; the parcels it really lies on (``[rules]
        site_subject_share``). An empty path is no site. Default None.
    distance
        The notification distance: ``"100ft"``, ``"30.48m"`` or a number of feet. Default
        None: the config's ``abutter_distance_ft`` (100 ft).
    include_subject
        Also list and notify the subject parcels' owners. Default False.
    wpa_pond_extension
        Also notify the owners around ponds under 10 acres that the subject borders. Default
        False.
    sender
        Lines of the sender block of ``certified_mail.pdf``; normalised to a tuple. Default ().
    notice
        Which list: ``"conservation"`` (default: the regulation's notice clause; with a
        ``distance`` of its own, a plain radius) or ``"zoning"`` (M.G.L. c.40A, § 11 parties in
        interest, 300 ft; no ``distance``). See :mod:`swm_gis.notification.notice`.
    sort
        The order of the list, the labels and the mailing book: ``"owner"``, ``"street"`` (the
        parcel's site address: street, then number) or ``"map-lot"``; default None, nearest
        first.
    max_abutters
        Stop (``TooManyAbuttersError``, before reading owners or writing anything) when more
        parcels than this abut. Default None: a list over ``[rules] abutter_warning_count``
        (500) only adds the warning ``many_abutters``.

    Examples
    --------
    >>> r = AbutterRequest(parcels="7-K-33", site="", sender=["Planning Board"])
    >>> r.parcels, r.site, r.sender
    (('7-K-33',), None, ('Planning Board',))
    >>> AbutterRequest(parcels=["7-K-33"], site="site.gpkg")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    swm_gis.errors.SwmGisError: Give the subject either by parcels= (one or more) or by site=, ...
    """

    parcels: str | Iterable[str] | None = ()
    site: str | os.PathLike | gpd.GeoDataFrame | None = None
    distance: str | float | None = None
    include_subject: bool = False
    wpa_pond_extension: bool = False
    sender: Iterable[str] | None = ()
    max_abutters: int | None = None
    notice: str | None = "conservation"
    sort: str | None = None
    #: the site's label when it is a front end's temporary copy: outputs name it by the label
    #: alone, never the copy's path (the QGIS plugin's export of a selection)
    site_label: str | None = None

    def __post_init__(self) -> None:
        # one id given as a string is one parcel, not a list of its characters
        self._set("parcels", (self.parcels,) if isinstance(self.parcels, str)
                  else tuple(str(p) for p in (self.parcels or [])))
        if isinstance(self.site, str | os.PathLike) and not str(self.site):
            self._set("site", None)
        if bool(self.parcels) == (self.site is not None):
            raise SwmGisError(f"Give the subject either by {option('parcels', 'ID')} (one or more) "
                              f"or by {option('site', 'FILE')}, not both and not neither.")
        self._set("sender", tuple(self.sender or ()))
        notice, sort = check_notice(self.notice, self.sort)
        self._set("notice", notice)
        self._set("sort", sort)

    def _set(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)  # normalising a frozen dataclass as it is made


__all__ = ["AbutterRequest"]

"""Subjects of a site: nobody made "the applicant" by accident (``docs/abutters.md``).

A parcel is the applicant's own (a subject: not mailed) only where it is named (a subject given
by parcel id),
or where the site covers it substantially (:func:`swm_gis.rules.abutters.parcels_touched_by_site`)
**and** its owner of record is the main subject's owner. The main subject is the parcel holding
the largest part of the site. Owners are compared as the mailing list compares them
(:func:`swm_gis.rules.owners.normalise_owner`): a parcel shares the main subject's owner when one
of its owner names equals one of the main subject's. Every other parcel the site overlaps stays an
abutter and is named in the warning ``site_overlaps_neighbour``.

Examples
--------
A site drawn as its 20 m lot buffered by 10 m covers half of each 20 m neighbour: both pass the
share test, but only the one owned by the same person stays a subject.

>>> import geopandas as gpd
>>> from shapely.geometry import box
>>> from swm_gis.rules.abutters import parcels_touched_by_site
>>> lots = gpd.GeoDataFrame({"id": ["W", "LOT", "E"]}, crs="EPSG:26986",
...     geometry=[box(-20, 0, 0, 40), box(0, 0, 20, 40), box(20, 0, 40, 40)])
>>> site = gpd.GeoDataFrame(geometry=[box(-10, 0, 30, 40)], crs="EPSG:26986")
>>> found = parcels_touched_by_site(lots, site)
>>> sorted(found.subject["id"])
['E', 'LOT', 'W']
>>> kept = same_owner_subjects(found, {"LOT": ["Smith, Ann"], "W": ["SMITH ANN"],
...                                    "E": ["Jones Bo"]})
>>> sorted(kept.subject["id"]), [(g["id"], g["owner_differs"]) for g in kept.grazed]
(['LOT', 'W'], [('E', True)])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from swm_gis.ids import id_series
from swm_gis.rules.abutters import SiteParcels
from swm_gis.rules.owners import normalise_owner


def owner_keys(names: Sequence[str]) -> frozenset[str]:
    """The owner names of a parcel as the mailing list compares them (blank names dropped).

    >>> sorted(owner_keys(["Smith, John & Mary.", "", "SMITH JOHN AND MARY"]))
    ['SMITH JOHN & MARY']
    """
    return frozenset(k for k in (normalise_owner(n) for n in names) if k)


def main_subject(found: SiteParcels) -> str | None:
    """The id of the subject parcel holding the largest part of the site (to 0.001 sq ft); on
    a tie, the one holding the site's centre (a point on its surface), then the one the site
    covers most of, then the first id (None: no subject)."""
    if not found.covered:
        return None
    return sorted(found.covered, key=lambda g: (
        -round(g["overlap_sqft"], 3), not g.get("holds_site_centre", False),
        -g["parcel_share"], g["id"]))[0]["id"]


def same_owner_subjects(found: SiteParcels, owners: Mapping[str, Sequence[str]]
                        ) -> SiteParcels:
    """Keep as subjects the main subject and the parcels the same owner holds.

    Parameters
    ----------
    found
        What :func:`~swm_gis.rules.abutters.parcels_touched_by_site` found.
    owners
        Parcel id -> its owner names of record (as printed); a parcel with no record has no
        owner and so never shares the main subject's.

    Returns
    -------
    SiteParcels
        ``subject`` without the parcels of other owners; those join ``grazed`` with
        ``owner_differs`` True and their ``owners`` (the grazed ones keep ``owner_differs``
        False), so the warning says why each is an abutter.
    """
    main = main_subject(found)
    grazed = [{**g, "owner_differs": False, "owners": list(owners.get(g["id"], []))}
              for g in found.grazed]
    if main is None:
        return replace(found, grazed=grazed)
    main_keys = owner_keys(owners.get(main, []))
    keep = {main} | {g["id"] for g in found.covered
                     if main_keys & owner_keys(owners.get(g["id"], []))}
    demoted = [{**g, "owner_differs": True, "owners": list(owners.get(g["id"], [])),
                "main_subject": main, "main_owners": list(owners.get(main, []))}
               for g in found.covered if g["id"] not in keep]
    ids = id_series(found.subject["id"]) if "id" in found.subject else None
    subject = found.subject if ids is None else found.subject.loc[ids.isin(keep).to_numpy()]
    return replace(found, subject=subject.copy(), grazed=[*demoted, *grazed],
                   covered=[g for g in found.covered if g["id"] in keep])


__all__ = ["main_subject", "owner_keys", "same_owner_subjects"]

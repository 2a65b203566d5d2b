"""swm-gis: Lynnfield Stormwater Management Rules and Regulations (Chapter 320) on real parcels.

The public API has two levels.

Job level, over a town config (what the ``swm-gis`` commands run):

* :func:`load_config` reads a town config (TOML); :func:`write_config` checks one given as data
  and writes it;
* :func:`screen` screens one site -> :class:`Screening`;
* :func:`abutter_package` finds the abutters and their owners -> :class:`AbutterPackage`;
* :func:`applicability_map` classifies every parcel of the town -> :class:`ApplicabilityMap`;
* :func:`publish` writes the public web map of the classes (a static site) -> :class:`WebMap`;
* :func:`load_regulation` reads a regulation profile and the version in force on a date
  -> :class:`AppliedRegulation` (docs/regulations.md).

Each result holds the frames and findings, writes the files the command line writes with
``.write(...)`` and shows a summary in a notebook.

Frame level, no config: the rules on GeoDataFrames the caller already has, e.g.
:func:`find_abutters`, :func:`floodplain_overlap`, :func:`habitats_within`,
:func:`classify_parcels`. Options are keyword-only; distances and areas carry their unit in the
name (``distance_ft``, ``area_sqft``).

The core never imports QGIS and never prints; the command line (``swm_gis.cli``) and the QGIS
plugin are thin callers of the job level. Bad input raises a :class:`SwmGisError` subclass.

Examples
--------
>>> import geopandas as gpd, shapely, swm_gis
>>> crs = "EPSG:26986"   # Massachusetts State Plane, metres
>>> subject = gpd.GeoDataFrame({"id": ["S"]}, geometry=[shapely.box(0, 0, 30, 30)], crs=crs)
>>> parcels = gpd.GeoDataFrame({"id": ["S", "N", "F"]}, geometry=[
...     shapely.box(0, 0, 30, 30), shapely.box(30, 0, 60, 30), shapely.box(100, 0, 130, 30)],
...     crs=crs)
>>> swm_gis.find_abutters(parcels, subject, distance_ft=100)["id"].tolist()
['N']
"""

import importlib
from typing import TYPE_CHECKING

from swm_gis._version import __version__
from swm_gis.errors import SwmGisError

if TYPE_CHECKING:  # the names' homes, for readers, type checkers and the import graph
    from swm_gis.applicability.run import Overlays, classify_parcels
    from swm_gis.config.regulation import AppliedRegulation, load_regulation
    from swm_gis.config.town import TownConfig, load_config
    from swm_gis.io.config_file import write_config
    from swm_gis.jobs import abutter_package, applicability_map, screen
    from swm_gis.results import AbutterPackage, ApplicabilityMap, Screening
    from swm_gis.rules.abutters import find_abutters
    from swm_gis.rules.development import development_type
    from swm_gis.rules.disturbance import disturbance_trigger
    from swm_gis.rules.floodplain import floodplain_overlap
    from swm_gis.rules.habitats import habitats_within
    from swm_gis.rules.owners import join_owners, recipients
    from swm_gis.rules.standards import performance_standards
    from swm_gis.rules.tiers import regulation_tier
    from swm_gis.rules.timeline import permit_timeline
    from swm_gis.rules.watersheds import mitigation_eligibility, watershed_shares
    from swm_gis.screening.checklist import submittal_checklist
    from swm_gis.terrain.receiving_waters import trace_receiving_waters
    from swm_gis.webmap.job import WebMap, publish

#: Where each public name lives. They are imported on first use (PEP 562 ``__getattr__``), so
#: ``import swm_gis`` and ``swm-gis --help`` load no geo stack (geopandas, dask, numba, ...):
#: a name costs its module's imports the first time it is read, then it is an attribute.
_HOMES = {
    "Overlays": "swm_gis.applicability.run",
    "classify_parcels": "swm_gis.applicability.run",
    "AppliedRegulation": "swm_gis.config.regulation",
    "load_regulation": "swm_gis.config.regulation",
    "TownConfig": "swm_gis.config.town",
    "load_config": "swm_gis.config.town",
    "write_config": "swm_gis.io.config_file",
    "abutter_package": "swm_gis.jobs",
    "applicability_map": "swm_gis.jobs",
    "screen": "swm_gis.jobs",
    "AbutterPackage": "swm_gis.results",
    "ApplicabilityMap": "swm_gis.results",
    "Screening": "swm_gis.results",
    "find_abutters": "swm_gis.rules.abutters",
    "development_type": "swm_gis.rules.development",
    "disturbance_trigger": "swm_gis.rules.disturbance",
    "floodplain_overlap": "swm_gis.rules.floodplain",
    "habitats_within": "swm_gis.rules.habitats",
    "join_owners": "swm_gis.rules.owners",
    "recipients": "swm_gis.rules.owners",
    "performance_standards": "swm_gis.rules.standards",
    "regulation_tier": "swm_gis.rules.tiers",
    "permit_timeline": "swm_gis.rules.timeline",
    "mitigation_eligibility": "swm_gis.rules.watersheds",
    "watershed_shares": "swm_gis.rules.watersheds",
    "submittal_checklist": "swm_gis.screening.checklist",
    "trace_receiving_waters": "swm_gis.terrain.receiving_waters",
    "WebMap": "swm_gis.webmap.job",
    "publish": "swm_gis.webmap.job",
}

__all__ = [
    # job level, over a town config
    "load_config", "write_config", "screen", "abutter_package", "applicability_map", "publish",
    "load_regulation",
    # what the jobs take and return
    "TownConfig", "Screening", "AbutterPackage", "ApplicabilityMap", "WebMap",
    "AppliedRegulation",
    # frame level: the rules on GeoDataFrames the caller has
    "find_abutters", "join_owners", "recipients", "disturbance_trigger", "development_type",
    "performance_standards", "watershed_shares", "mitigation_eligibility", "floodplain_overlap",
    "habitats_within", "trace_receiving_waters", "Overlays", "classify_parcels",
    "permit_timeline", "submittal_checklist", "regulation_tier",
    # errors and version
    "SwmGisError", "__version__",
]


def __getattr__(name: str) -> object:
    """Import a public name from its home on first use (PEP 562) and keep it."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

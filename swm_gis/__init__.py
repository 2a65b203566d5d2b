"""swm-gis: Lynnfield Stormwater Management Rules and Regulations (Chapter 320) on real parcels.

The public API has two levels.

Job level, over a town config (what the ``swm-gis`` commands run):

* :func:`load_config` reads a town config (TOML);
* :func:`screen` screens one site -> :class:`Screening`;
* :func:`abutter_package` finds the abutters and their owners -> :class:`AbutterPackage`;
* :func:`applicability_map` classifies every parcel of the town -> :class:`ApplicabilityMap`;
* :func:`publish` writes the public web map of the classes (a static site) -> :class:`WebMap`.

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

from swm_gis._version import __version__
from swm_gis.applicability.run import Overlays, classify_parcels
from swm_gis.config.town import TownConfig, load_config
from swm_gis.errors import SwmGisError
from swm_gis.jobs import abutter_package, applicability_map, screen
from swm_gis.results import AbutterPackage, ApplicabilityMap, Screening
from swm_gis.rules.abutters import find_abutters
from swm_gis.rules.development import development_type
from swm_gis.rules.disturbance import disturbance_trigger
from swm_gis.rules.floodplain import floodplain_overlap
from swm_gis.rules.habitats import habitats_within
from swm_gis.rules.owners import join_owners, recipients
from swm_gis.rules.standards import performance_standards
from swm_gis.rules.timeline import permit_timeline
from swm_gis.rules.watersheds import mitigation_eligibility, watershed_shares
from swm_gis.screening.checklist import submittal_checklist
from swm_gis.terrain.receiving_waters import trace_receiving_waters
from swm_gis.webmap.job import WebMap, publish

__all__ = [
    # job level, over a town config
    "load_config", "screen", "abutter_package", "applicability_map", "publish",
    # what the jobs take and return
    "TownConfig", "Screening", "AbutterPackage", "ApplicabilityMap", "WebMap",
    # frame level: the rules on GeoDataFrames the caller has
    "find_abutters", "join_owners", "recipients", "disturbance_trigger", "development_type",
    "performance_standards", "watershed_shares", "mitigation_eligibility", "floodplain_overlap",
    "habitats_within", "trace_receiving_waters", "Overlays", "classify_parcels",
    "permit_timeline", "submittal_checklist",
    # errors and version
    "SwmGisError", "__version__",
]

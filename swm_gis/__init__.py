"""swm-gis: Lynnfield Stormwater Management Rules and Regulations (Chapter 320) on real parcels.

The core is pure functions on GeoDataFrames and rasters. It never imports QGIS and never prints;
the command line (``swm_gis.cli``) and the QGIS plugin are thin adapters over it.
"""

from swm_gis.errors import SwmGisError

__version__ = "0.1.0"
__all__ = ["SwmGisError", "__version__"]

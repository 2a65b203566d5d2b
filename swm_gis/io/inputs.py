"""Job inputs: a user's FILE argument or a GeoDataFrame the caller already has, in the working CRS.

The jobs (:mod:`swm_gis.jobs`, :mod:`swm_gis.notification.package`) take either a path (``path`` or
``path.gpkg:layer``, read by :func:`swm_gis.io.layers.read_file`) or a GeoDataFrame; both come back
in the town's working CRS with repaired geometry, and bad input raises a
:class:`~swm_gis.errors.SwmGisError` subclass that names the argument.
"""

from __future__ import annotations

import os
from typing import Any

import geopandas as gpd

from swm_gis.errors import CrsError, EmptyLayerError, GeometryError, InputFileError
from swm_gis.io.hygiene import repair_geometries
from swm_gis.io.layers import read_file
from swm_gis.io.sources import file_source_info, input_key

_FAMILY = {"polygon": ("Polygon", "MultiPolygon"),
           "line": ("LineString", "MultiLineString"),
           "point": ("Point", "MultiPoint")}


def as_frame(source: str | os.PathLike | gpd.GeoDataFrame | None, *, working_crs: Any,
             what: str, geometry: str | None = "polygon") -> gpd.GeoDataFrame | None:
    """A FILE argument or a GeoDataFrame as a GeoDataFrame in ``working_crs`` (None stays None).

    Parameters
    ----------
    source
        A vector file (``path`` or ``path.gpkg:layer``), a GeoDataFrame with a CRS, or None.
    working_crs
        The town's working CRS (``TownConfig.crs``).
    what
        The argument's name in messages, by reference (``option("site", "FILE")``,
        :func:`swm_gis.messages.option`) or in words (``"site"``); the source record
        (``attrs["source"]["key"]``) names the option (``"site"``).
    geometry
        ``"polygon"``, ``"line"``, ``"point"`` or None (any): features of another kind are
        dropped, and none of the kind is an error.

    Examples
    --------
    >>> import geopandas as gpd, shapely
    >>> g = gpd.GeoDataFrame(geometry=[shapely.box(0, 0, 1, 1)], crs="EPSG:26986")
    >>> as_frame(g, working_crs="EPSG:26986", what="site").area.tolist()
    [1.0]
    >>> no_crs = g.set_crs(None, allow_override=True)
    >>> as_frame(no_crs, working_crs="EPSG:26986", what="site")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    swm_gis.errors.CrsError: The site GeoDataFrame has no CRS; set one ...
    """
    if source is None:
        return None
    if not isinstance(source, gpd.GeoDataFrame):
        if not isinstance(source, str | os.PathLike):
            raise InputFileError(f"{what} must be a file path or a GeoDataFrame, not "
                                 f"{type(source).__name__}.")
        return read_file(source, working_crs=working_crs, what=what, geometry=geometry)
    if source.crs is None:
        raise CrsError(f"The {what} GeoDataFrame has no CRS; set one (gdf.set_crs(...)) so its "
                       "coordinates can be placed.")
    gdf, _, _ = repair_geometries(source.to_crs(working_crs))
    if gdf.empty:
        raise EmptyLayerError(f"The {what} GeoDataFrame has no features with geometry.")
    if geometry:
        bad = ~gdf.geom_type.isin(_FAMILY[geometry])
        if bad.all():
            raise GeometryError(f"The {what} GeoDataFrame holds "
                                f"{', '.join(sorted(set(gdf.geom_type)))} geometry; {geometry} "
                                "features are needed.")
        gdf = gdf[~bad]
    gdf.attrs["source"] = {"key": input_key(what), "file": None, "layer": None, "modified": None}
    return gdf


def source_of(source: str | os.PathLike | gpd.GeoDataFrame, *, what: str) -> dict[str, Any]:
    """Provenance of an input: the file's (with its modification time) or "GeoDataFrame"."""
    if isinstance(source, gpd.GeoDataFrame):
        return {"key": input_key(what), "file": "(GeoDataFrame)", "layer": None,
                "modified": None}
    return {**file_source_info(str(source)), "key": input_key(what)}


def describe(source: str | os.PathLike | gpd.GeoDataFrame | None) -> str | None:
    """How an input is named in a document's parameters: the path, or "(GeoDataFrame)"."""
    if source is None:
        return None
    return "(GeoDataFrame)" if isinstance(source, gpd.GeoDataFrame) else str(source)


__all__ = ["as_frame", "describe", "source_of"]

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
import pyogrio

from swm_gis.config.town import LayerSpec
from swm_gis.errors import CrsError, EmptyLayerError, GeometryError, InputFileError
from swm_gis.io import archives, sanity
from swm_gis.io.hygiene import repair_geometries
from swm_gis.io.sources import (
    Layer,
    check_exists,
    file_source_info,
    first_line,
    input_key,
    source_info,
    split_source,
    temporary_source,
)

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
        :func:`swm_gis.messages.option`) or in words (``"site"``).
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
    layer = read_input(source, working_crs=working_crs, what=what, geometry=geometry)
    return None if layer is None else layer.frame


def read_input(source: str | os.PathLike | gpd.GeoDataFrame | None, *, working_crs: Any,
               what: str, geometry: str | None = "polygon") -> Layer | None:
    """:func:`as_frame` as a :class:`~swm_gis.io.sources.Layer`: the frame and its source
    record, keyed by the option's name (``"site"``); a GeoDataFrame's names no file.

    >>> import geopandas as gpd, shapely
    >>> g = gpd.GeoDataFrame(geometry=[shapely.box(0, 0, 1, 1)], crs="EPSG:26986")
    >>> read_input(g, working_crs="EPSG:26986", what="site").source
    {'key': 'site', 'file': None, 'layer': None, 'modified': None}
    """
    if source is None:
        return None
    if not isinstance(source, gpd.GeoDataFrame):
        if not isinstance(source, str | os.PathLike):
            raise InputFileError(f"{what} must be a file path or a GeoDataFrame, not "
                                 f"{type(source).__name__}.")
        return read_file_with_source(source, working_crs=working_crs, what=what,
                                     geometry=geometry)
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
    return Layer(frame=gdf, source={"key": input_key(what), "file": None, "layer": None,
                                    "modified": None})


def read_file_with_source(
    source: str | os.PathLike,
    *,
    working_crs: Any,
    what: str,
    crs: str | None = None,
    geometry: str | None = "polygon",
) -> Layer:
    """Read a user-supplied vector FILE (:func:`swm_gis.io.layers.read_file`) as a
    :class:`~swm_gis.io.sources.Layer`: the frame and its source record, keyed by the option's
    name (``"site"``), with ``repaired`` when geometries were."""
    path, layer = split_source(str(source))
    spec = LayerSpec(key=what, path=path, layer=layer, crs=crs)
    check_exists(spec, what=what)
    if archives.is_zip(path):
        path, layer = archives.resolve_zip(path, layer, what=what)
    try:
        info = pyogrio.read_info(path, layer=layer)
        gdf = pyogrio.read_dataframe(path, layer=layer)
    except Exception as exc:
        raise InputFileError(f"Cannot read {source} ({what}): {first_line(exc)}"
                             f"{_layers_hint(path, layer)}") from exc
    if not isinstance(gdf, gpd.GeoDataFrame):
        raise GeometryError(f"{source} ({what}) has no geometry.")
    declared = info.get("crs") or crs
    if not declared:
        raise CrsError(
            f"{source} ({what}) declares no coordinate reference system. Save it with a CRS "
            "(e.g. as a GeoPackage from QGIS) so its coordinates can be placed."
        )
    gdf = gdf.set_crs(declared, allow_override=True)
    sanity.check_source(spec, tuple(gdf.total_bounds) if len(gdf) else None, gdf.crs,
                        declared_by="source")
    gdf = gdf.to_crs(working_crs)
    gdf, repaired, _ = repair_geometries(gdf)
    if gdf.empty:
        raise EmptyLayerError(f"{source} ({what}) has no features with geometry.")
    if geometry:
        family = _FAMILY[geometry]
        bad = ~gdf.geom_type.isin(family)
        if bad.all():
            raise GeometryError(
                f"{source} ({what}) holds {', '.join(sorted(set(gdf.geom_type)))} geometry; "
                f"{geometry} features are needed."
            )
        gdf = gdf[~bad]
    # repairs are recorded (screening.json meta.site.repaired) and said in the summary
    record = {**source_info(spec), "key": input_key(what),
              **({"repaired": repaired} if repaired else {})}
    return Layer(frame=gdf, source=record, repaired=repaired)



def _layers_hint(path: str, layer: str | None) -> str:
    """'. Its layers: a, b' when ``layer`` is not one of the file's layers."""
    if layer is None:
        return ""
    try:
        names = [str(row[0]) for row in pyogrio.list_layers(path)]
    except Exception:  # noqa: BLE001 - the hint is optional; the read error says enough
        return ""
    if layer in names:
        return ""
    return f". Its layers: {', '.join(names)}; name one as FILE:LAYER."


def source_of(source: str | os.PathLike | gpd.GeoDataFrame, *, what: str,
              label: str | None = None) -> dict[str, Any]:
    """Provenance of an input: the file's (with its modification time) or "GeoDataFrame"; a
    front end's temporary copy given a ``label`` is named by the label alone."""
    if label:
        return temporary_source(input_key(what), label)
    if isinstance(source, gpd.GeoDataFrame):
        return {"key": input_key(what), "file": "(GeoDataFrame)", "layer": None,
                "modified": None}
    return {**file_source_info(str(source)), "key": input_key(what)}


def describe(source: str | os.PathLike | gpd.GeoDataFrame | None) -> str | None:
    """How an input is named in a document's parameters: the path, or "(GeoDataFrame)"."""
    if source is None:
        return None
    return "(GeoDataFrame)" if isinstance(source, gpd.GeoDataFrame) else str(source)


__all__ = ["as_frame", "describe", "read_file_with_source", "read_input", "source_of"]

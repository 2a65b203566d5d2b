"""One source's features as a frame (filters in the source's CRS): from the source cache, the id
index, PostGIS or GDAL (pyogrio), and for the town-wide map's tiles with the source's own WKB.

:func:`read_source` is what every reader of :mod:`swm_gis.io.layers` calls. The map's tiles call
:func:`read_source_and_wkb`: pyogrio's Arrow read gives the geometries as WKB, which
``pyogrio.read_dataframe`` decodes and drops; kept beside the frame, they let a tile whose
parcels come out of the job as they went in (the same CRS, none repaired) be written with the
bytes it was read with instead of encoding every geometry again (``shapely.to_wkb``: about 10 ms
of a 20,000-parcel tile's 250; :func:`swm_gis.applicability.write.to_batch`). The frame is built
by pyogrio's own steps in their order (:func:`_frame_like_pyogrio`; a test compares the two).
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import geopandas as gpd
import pandas as pd
import pyogrio
import shapely

from swm_gis.io import id_index, postgis, source_cache
from swm_gis.io.sources import gdal_source

BBox = tuple[float, float, float, float]

try:  # Arrow reads need pyarrow (a dependency); without it, the plain reader
    import pyarrow as pa

    HAS_PYARROW = True
except ImportError:  # pragma: no cover - pyarrow is installed with swm-gis
    HAS_PYARROW = False


def read_source(spec: Any, info: dict[str, Any], *, columns: list[str],
                where: str | None = None, bbox: BBox | None = None,
                mask: shapely.Geometry | None = None, use_arrow: bool = False,
                read_geometry: bool = True) -> pd.DataFrame:
    """Read one source (filters in the source CRS): PostGIS on the server, else pyogrio."""
    hit = _stored(spec, info, columns=columns, where=where, bbox=bbox, mask=mask,
                  use_arrow=use_arrow, read_geometry=read_geometry)
    if hit is not None:
        return hit
    path, layer = gdal_source(spec)
    return pyogrio.read_dataframe(path, layer=layer, columns=columns, where=where,
                                  use_arrow=use_arrow and HAS_PYARROW,
                                  read_geometry=read_geometry, **_area(bbox, mask))


def read_source_and_wkb(spec: Any, info: dict[str, Any], *, columns: list[str],
                        where: str | None = None, bbox: BBox | None = None,
                        mask: shapely.Geometry | None = None) -> tuple[pd.DataFrame, Any]:
    """:func:`read_source` with ``use_arrow`` and the geometries' WKB as GDAL gave them (an
    Arrow array, one per row, in the frame's order), or None where the rows came another way
    (the source cache, PostGIS) or without Arrow."""
    hit = _stored(spec, info, columns=columns, where=where, bbox=bbox, mask=mask,
                  use_arrow=True, read_geometry=True)
    steps = _pyogrio_steps() if hit is None and HAS_PYARROW else None
    if steps is None:
        return (hit if hit is not None else read_source(
            spec, info, columns=columns, where=where, bbox=bbox, mask=mask,
            use_arrow=True)), None
    path, layer = gdal_source(spec)
    meta, table = pyogrio.read_arrow(path, layer=layer, columns=columns, where=where,
                                     datetime_as_string=True, **_area(bbox, mask))
    name = meta["geometry_name"] or "wkb_geometry"
    if name not in table.column_names:
        return _frame_like_pyogrio(meta, table, steps), None
    wkb = table.column(name).combine_chunks()
    if not pa.types.is_binary(wkb.type):  # an extension type (geoarrow.wkb): its storage
        wkb = wkb.storage if isinstance(wkb, pa.ExtensionArray) else wkb.cast(pa.binary())
    return _frame_like_pyogrio(meta, table, steps), wkb


def _stored(spec: Any, info: dict[str, Any], *, columns: list[str], where: str | None,
            bbox: BBox | None, mask: shapely.Geometry | None, use_arrow: bool,
            read_geometry: bool) -> pd.DataFrame | None:
    """The rows from PostGIS, the source cache or the id index; None: GDAL reads them."""
    if spec.is_postgis:
        return postgis.read_frame(spec.path, spec.layer, info, columns=columns, where=where,
                                  bbox=bbox, mask=mask, read_geometry=read_geometry)
    path, layer = gdal_source(spec)
    kwargs = _area(bbox, mask)
    # a source parsed before (io.source_cache), also for GDAL's Arrow stream (the map's tiles)
    hit = source_cache.read(spec, path, layer, info, columns=columns, where=where,
                            read_geometry=read_geometry, **kwargs)
    if hit is None and where is not None and not kwargs and not use_arrow:  # rows by id
        hit = id_index.read(spec, path, layer, info, columns=columns, where=where,
                            read_geometry=read_geometry)
    return hit


def _area(bbox: BBox | None, mask: shapely.Geometry | None) -> dict[str, Any]:
    return {"bbox": bbox} if bbox is not None else ({"mask": mask} if mask is not None else {})


def _pyogrio_steps() -> tuple[Any, bool, bool] | None:
    """pyogrio's own pieces the frame is built with (its datetime parser, whether pandas is 3
    and pyarrow 19 or later); None for a pyogrio without them (its reader is used instead)."""
    try:
        from pyogrio._compat import PANDAS_GE_30, PYARROW_GE_19
        from pyogrio.geopandas import _try_parse_datetime
    except ImportError:
        return None
    return _try_parse_datetime, bool(PANDAS_GE_30), bool(PYARROW_GE_19)


def _frame_like_pyogrio(meta: dict[str, Any], table: Any, steps: tuple[Any, bool, bool]
                        ) -> pd.DataFrame:
    """The frame ``pyogrio.read_dataframe(use_arrow=True)`` makes of ``read_arrow``'s result
    (pyogrio 0.10-0.13, its steps in order, ``steps`` from :func:`_pyogrio_steps`): the table
    to pandas, datetime and JSON fields parsed, the WKB decoded into column ``geometry``
    (last), the layer's CRS."""
    _try_parse_datetime, PANDAS_GE_30, PYARROW_GE_19 = steps  # noqa: N806 - pyogrio's names
    kwargs: dict[str, Any] = {"self_destruct": True}
    if PANDAS_GE_30 and not PYARROW_GE_19:
        text = pd.StringDtype(na_value=float("nan"))
        kwargs["types_mapper"] = {pa.string(): text, pa.large_string(): text,
                                  pa.json_(): text}.get
    df = table.to_pandas(**kwargs)
    del table
    for dtype, column in zip(meta["dtypes"], meta["fields"], strict=True):
        if dtype is not None and dtype.startswith("datetime") and dtype != "datetime64[D]":
            df[column] = _try_parse_datetime(df[column], False, True)
    for subtype, column in zip(meta["ogr_subtypes"], meta["fields"], strict=True):
        if subtype == "OFSTJSON" and pd.api.types.infer_dtype(df[column]) == "string":
            try:
                df[column] = df[column].map(json.loads, na_action="ignore")
            except Exception:  # noqa: BLE001 - as pyogrio: the text is kept
                warnings.warn(f"Could not parse column '{column}' as JSON; leaving as string",
                              stacklevel=2)
    name = meta["geometry_name"] or "wkb_geometry"
    if name not in df.columns:
        return df if len(df.columns) else pd.DataFrame()
    values = df.pop(name)
    if values.dtype != object:
        values = values.to_numpy(na_value=None)
    df["geometry"] = shapely.from_wkb(values, on_invalid="raise")
    return gpd.GeoDataFrame(df, geometry="geometry", crs=meta["crs"])


__all__ = ["HAS_PYARROW", "read_source", "read_source_and_wkb"]

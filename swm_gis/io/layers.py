"""The reader of the town's layers: vector layers, tables and rasters, with CRS checks.

Every reader returns data in the town's working CRS (reprojected once, here, at the edge), its
fields renamed to logical names (README "Town configuration"): rules never see source schemas.
Readers take a spatial filter (``bbox`` or ``mask`` in the working CRS) so that a neighbourhood
query reads only the neighbourhood of a statewide layer.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import geopandas as gpd
import numpy as np
import pandas as pd
import pyogrio
import shapely
from pyproj import CRS, Transformer

from swm_gis.config.layer_sources import fields_key
from swm_gis.config.schema import check_field_kinds
from swm_gis.config.town import LayerSpec, TownConfig, layer_key
from swm_gis.errors import (
    CrsError,
    EmptyLayerError,
    FieldMissingError,
    GeometryError,
    InputFileError,
    SwmGisError,
    UnknownParcelError,
)
from swm_gis.ids import ID_FIELDS, id_series, id_text
from swm_gis.io import postgis, sanity, source_cache
from swm_gis.io.hygiene import check_geometry_family, merge_duplicate_ids, repair_geometries
from swm_gis.io.inputs import read_file_with_source
from swm_gis.io.rasters import is_raster, read_raster
from swm_gis.io.source_read import read_source as _read_source
from swm_gis.io.source_read import read_source_and_wkb
from swm_gis.io.sources import Layer, source_info
from swm_gis.io.sources import check_exists as _check_exists
from swm_gis.io.sources import first_line as _first_line
from swm_gis.io.sources import gdal_source as _gdal
from swm_gis.messages import option, town_config

BBox = tuple[float, float, float, float]

#: Said when an unknown parcel id holds commas: several ids were typed as one. The command
#: line words the reference with the short form of its flag too.
SEVERAL_PARCELS = (f" Several parcels? Give each with its own {option('parcels', '(-p A -p B)')}, "
                   "not separated by commas.")


# --------------------------------------------------------------------------- vector layers
def layer_info(spec: LayerSpec) -> dict[str, Any]:
    """A description of a layer (fields, dtypes, CRS, ``features``, ``total_bounds``), as
    ``pyogrio.read_info`` gives it, with clear errors; for files, zips and PostGIS tables.

    For a layer of several sources: the first source's fields and CRS, the total count and the
    extent of all sources (in the first source's CRS).
    """
    if not spec.parts:
        return _info(spec, full=True)
    infos = [_info(p, full=True) for p in spec.parts]
    crs0 = layer_crs(spec.parts[0], infos[0])
    boxes = []
    for part, info in zip(spec.parts, infos, strict=True):
        b = info.get("total_bounds")
        if b is not None and all(v is not None and np.isfinite(v) for v in b):
            boxes.append(_transform_bounds(tuple(b), layer_crs(part, info), crs0))
    counts = [info.get("features") for info in infos]
    return {**infos[0], "crs": crs0.to_wkt(),
            "features": sum(counts) if all(c is not None and c >= 0 for c in counts) else -1,
            "total_bounds": (min(b[0] for b in boxes), min(b[1] for b in boxes),
                             max(b[2] for b in boxes), max(b[3] for b in boxes))
            if boxes else None}


def source_extents(config: TownConfig, key: str) -> list[dict[str, Any]]:
    """Each source of a layer with its feature count and extent in the working CRS.

    What a check needs to tell whether a search area reaches beyond the data (e.g. abutters
    near the edge of a town whose neighbour's parcels are not configured): ``source`` (as in
    messages), ``features`` and ``bounds`` (x0, y0, x1, y1, or None when empty).
    """
    spec = config.layer(key)
    out = []
    for part in spec.sources:
        info = _info(part, full=True)
        b = info.get("total_bounds")
        ok = b is not None and all(v is not None and np.isfinite(v) for v in b)
        bounds = _transform_bounds(tuple(b), layer_crs(part, info), config.crs_obj) if ok \
            else None
        out.append({"source": part.describe(), "features": info.get("features"),
                    "bounds": tuple(float(v) for v in bounds) if bounds else None})
    return out


#: Descriptions read during one run (:func:`run_cache`), by GDAL source and layer; None: no run.
_RUN_INFO: dict[tuple[str, str | None], dict[str, Any]] | None = None


@contextmanager
def run_cache(seed: dict[tuple[str, str | None], dict[str, Any]] | None = None
              ) -> Iterator[None]:
    """Within the block, each file source is described by GDAL once: a run that reads a layer
    tile by tile (the town-wide map) opens it to read, not also to describe it each time.

    Only for a run that reads its inputs as they are at its start, as every command does; the
    descriptions are dropped at the end, so a later run sees a changed file. Worker processes
    forked inside the block start with the descriptions read so far; a worker started otherwise
    is handed them (``seed``: :func:`run_descriptions` of its parent's run). PostGIS tables are
    asked each time.
    """
    global _RUN_INFO
    outer = _RUN_INFO
    _RUN_INFO = ({} if outer is None else outer) if seed is None else dict(seed)
    try:
        yield
    finally:
        _RUN_INFO = outer


def run_descriptions() -> dict[tuple[str, str | None], dict[str, Any]] | None:
    """The descriptions the current run has read so far (a copy), or None outside a run."""
    return None if _RUN_INFO is None else dict(_RUN_INFO)


def _info(spec: LayerSpec, *, full: bool = False) -> dict[str, Any]:
    """One source's description: PostGIS through psycopg, anything else through GDAL; a text
    field mapped to a numeric column is refused (swm_gis.config.schema.check_field_kinds)."""
    if spec.is_postgis:
        return check_field_kinds(spec, postgis.read_info(spec.path, spec.layer, full=full))
    _check_exists(spec)
    path, layer = _gdal(spec)
    cache = _RUN_INFO
    if cache is None or (path, layer) not in cache:
        info = source_cache.info(spec, path, layer) or _read_info(spec, path, layer)
        if cache is None:
            return check_field_kinds(spec, info)
        cache[(path, layer)] = info
    return check_field_kinds(spec, dict(cache[(path, layer)]))


def _read_info(spec: LayerSpec, path: str, layer: str | None) -> dict[str, Any]:
    try:
        return pyogrio.read_info(path, layer=layer)
    except pyogrio.errors.DataLayerError as exc:
        try:
            names = [row[0] for row in pyogrio.list_layers(path)]
        except Exception:  # noqa: BLE001 - the layer error is the one to report
            names = []
        hint = f" Layers in the source: {', '.join(names)}." if names else ""
        raise InputFileError(
            f'Layer "{spec.layer}" not found in {spec.path} ({layer_key(spec.key, "layer")}).{hint}'
        ) from exc
    except (pyogrio.errors.DataSourceError, OSError) as exc:
        raise InputFileError(
            f"Cannot read {spec.describe()} ({layer_key(spec.key, 'path')}): {_first_line(exc)}. "
            "Check the path and that GDAL can read the format."
        ) from exc


def _combine(spec: LayerSpec, parts: list[Layer], *, dedupe: bool) -> Layer:
    """One layer from a multi-source layer's parts, each row's ``source`` named.

    With ``dedupe``, a row whose ``id`` already came from an EARLIER source is dropped (the
    config lists the town's own data first; a neighbour's extract overlapping it at the edge
    repeats the same parcels). Ids repeated within one source are kept (parts of one parcel).
    ``duplicates_across_sources`` lists the dropped ids; the field map, source CRS and warnings
    are the first source's, the repair counts the sum of all.
    """
    seen: set[str] = set()
    dropped: list[str] = []
    keep = []
    frames = [p.frame for p in parts]
    for part, frame in zip(spec.parts, frames, strict=True):
        # each row names its source, and its town where the layer has [[sources]] (config)
        frame = frame.assign(source=part.describe(), **{"source_town": part.town} if part.town
                             else {})
        if dedupe and "id" in frame and len(frame):
            ids = id_series(frame["id"])
            again = ids.isin(seen).to_numpy() & ids.notna().to_numpy()
            dropped += sorted(set(ids[again]))
            seen |= set(ids.dropna())
            frame = frame.loc[~again]
        keep.append(frame)
    out = pd.concat(keep, ignore_index=True)
    if isinstance(frames[0], gpd.GeoDataFrame):
        out = gpd.GeoDataFrame(out, geometry="geometry", crs=frames[0].crs)
    return dataclasses.replace(parts[0], frame=out, source=source_info(spec),
                               duplicates_across_sources=dropped,
                               repaired=sum(p.repaired for p in parts),
                               dropped_empty=sum(p.dropped_empty for p in parts))


def layer_crs(spec: LayerSpec, info: dict[str, Any]) -> CRS:
    """The source CRS: as declared by the source, else as declared in the config, else an error."""
    declared = info.get("crs")
    if declared:
        return CRS.from_user_input(declared)
    if spec.crs:
        return CRS.from_user_input(spec.crs)
    raise CrsError(
        f"{spec.describe()} ({layer_key(spec.key)}) declares no coordinate reference system. "
        f'State it in the town config: {layer_key(spec.key, "crs")} = "EPSG:...", e.g. '
        '"EPSG:4326" for longitude/latitude or "EPSG:26986" for MassGIS data.'
    )


def map_fields(spec: LayerSpec, source_fields: list[str]) -> dict[str, str | None]:
    """Logical field -> actual source field (matched case-insensitively); None where absent.

    Raises :class:`FieldMissingError` naming the config key to set when a required field, or a
    field the config named explicitly, is not in the source.
    """
    by_lower = {f.lower(): f for f in source_fields}
    mapping: dict[str, str | None] = {}
    for logical, default in spec.fields.items():
        actual = by_lower.get(default.lower()) if default else None
        needed = logical in spec.schema.required_fields or logical in spec.explicit_fields
        if actual is None and needed:
            wanted = f'"{default}"' if default else "no default field"
            raise FieldMissingError(
                f"{spec.describe()} ({layer_key(spec.key)}) has no field {wanted} for the "
                f'logical field "{logical}". Set {fields_key(spec, logical)} = '
                '"<field name>" in the town config. Fields in the source: '
                f"{', '.join(source_fields) or 'none'}."
            )
        mapping[logical] = actual
    return mapping


def read_layer(
    config: TownConfig,
    key: str,
    *,
    bbox: BBox | None = None,
    mask: shapely.Geometry | None = None,
    where: str | None = None,
    allow_empty: bool = True,
    use_arrow: bool = False,
) -> gpd.GeoDataFrame:
    """Read a configured vector layer into the working CRS with logical field names.

    Parameters
    ----------
    config, key
        The town config and the logical layer key (``"parcels"``, ``"flood_zones"``, ...).
    bbox, mask
        Spatial filter in the working CRS; only intersecting features are read.
    where
        An OGR SQL WHERE clause on *source* field names.
    allow_empty
        When False, a layer (or filter) with no features raises :class:`EmptyLayerError`.
    use_arrow
        Read through GDAL's Arrow stream: the same frame for about 40 % less CPU on large reads
        (the town-wide map's tiles of parcels).

    The result has the logical fields (absent optional ones as nulls), ``geometry`` repaired with
    ``make_valid`` and empty geometries dropped. :func:`read_layer_with_source` returns it with
    its provenance and the repair counts.
    """
    return read_layer_with_source(config, key, bbox=bbox, mask=mask, where=where,
                                  allow_empty=allow_empty, use_arrow=use_arrow).frame


def read_layer_with_source(
    config: TownConfig,
    key: str,
    *,
    bbox: BBox | None = None,
    mask: shapely.Geometry | None = None,
    where: str | None = None,
    allow_empty: bool = True,
    use_arrow: bool = False,
    known_valid: bool = False,
    keep_wkb: bool = False,
) -> Layer:
    """:func:`read_layer` as a :class:`~swm_gis.io.sources.Layer`: the frame with its source
    record, field map, source CRS, repair counts and id warnings. ``known_valid``: the layer's
    geometries were all found valid before (:func:`~swm_gis.io.hygiene.repair_geometries`).
    ``keep_wkb``: read through Arrow, with the source's WKB kept as :attr:`Layer.wkb` where
    every geometry is as read."""
    sanity.check_near_town(config, key, describe=_describe_for_sanity)  # far: the wrong CRS
    return read_spec_with_source(config.layer(key), working_crs=config.crs, bbox=bbox,
                                 mask=mask, where=where, allow_empty=allow_empty,
                                 use_arrow=use_arrow, known_valid=known_valid,
                                 keep_wkb=keep_wkb)


def _describe_for_sanity(spec: LayerSpec) -> tuple[dict[str, Any], CRS] | None:
    """(description, source CRS) of a vector layer for :mod:`swm_gis.io.sanity`; None: a raster."""
    if spec.schema.kind != "vector" and is_raster(spec):
        return None
    info = layer_info(spec)
    return info, layer_crs(spec, info)


def read_spec(
    spec: LayerSpec,
    *,
    working_crs: str | CRS,
    bbox: BBox | None = None,
    mask: shapely.Geometry | None = None,
    where: str | None = None,
    allow_empty: bool = True,
    use_arrow: bool = False,
) -> gpd.GeoDataFrame:
    """:func:`read_layer` for a bare :class:`LayerSpec` (used by the CLI for FILE arguments)."""
    return read_spec_with_source(spec, working_crs=working_crs, bbox=bbox, mask=mask,
                                 where=where, allow_empty=allow_empty, use_arrow=use_arrow).frame


def read_spec_with_source(
    spec: LayerSpec,
    *,
    working_crs: str | CRS,
    bbox: BBox | None = None,
    mask: shapely.Geometry | None = None,
    where: str | None = None,
    allow_empty: bool = True,
    use_arrow: bool = False,
    known_valid: bool = False,
    keep_wkb: bool = False,
) -> Layer:
    """:func:`read_spec` as a :class:`~swm_gis.io.sources.Layer` (see
    :func:`read_layer_with_source`)."""
    if spec.parts:
        return _read_parts(spec, working_crs=working_crs, bbox=bbox, mask=mask, where=where,
                           allow_empty=allow_empty, use_arrow=use_arrow)
    working = CRS.from_user_input(working_crs)
    info = _info(spec)
    src_crs = layer_crs(spec, info)
    sanity.check_layer(spec, info, src_crs)  # geometry type; coordinates that fit the CRS
    mapping = map_fields(spec, list(info["fields"]))
    gdf, wkb = _read_features(spec, info, [c for c in mapping.values() if c],
                              _area_filter(bbox, mask, working, src_crs), where=where,
                              use_arrow=use_arrow, keep_wkb=keep_wkb)
    out = _logical_frame(gdf.set_crs(src_crs, allow_override=True), mapping, src_crs)
    if spec.key == "parcels" and "id" in out:  # the one id rule, at the edge (swm_gis.ids)
        out["id"] = id_series(out["id"])
    if not src_crs.equals(working):
        out, wkb = out.to_crs(working), None
    out, repaired, dropped = repair_geometries(out, known_valid=known_valid)
    if repaired or dropped:  # a geometry changed or a row went: the bytes are not the rows'
        wkb = None
    check_geometry_family(out, spec)
    if not allow_empty and out.empty:
        place = " in the area asked for" if (bbox is not None or mask is not None) else ""
        raise EmptyLayerError(f"{spec.describe()} ({layer_key(spec.key)}) has no features{place}.")
    whole = bbox is None and mask is None and where is None
    warnings = sanity.check_ids(out, spec, field_map=mapping, whole_layer=whole)  # all-null ids
    return Layer(frame=out, source=source_info(spec), field_map=mapping,
                 source_crs=src_crs.to_string(), repaired=repaired, dropped_empty=dropped,
                 warnings=warnings, wkb=wkb)


def _read_parts(spec: LayerSpec, *, working_crs: str | CRS, bbox: BBox | None,
                mask: shapely.Geometry | None, where: str | None, allow_empty: bool,
                use_arrow: bool) -> Layer:
    """A layer of several sources (``path = [...]``): each part read, then combined."""
    parts = [read_spec_with_source(p, working_crs=working_crs, bbox=bbox, mask=mask,
                                   where=where, use_arrow=use_arrow) for p in spec.parts]
    out = _combine(spec, parts, dedupe=True)
    if not allow_empty and out.frame.empty:
        raise EmptyLayerError(f"{spec.describe()} ({layer_key(spec.key)}) has no features.")
    return out


def _area_filter(bbox: BBox | None, mask: shapely.Geometry | None, working: CRS,
                 src_crs: CRS) -> dict[str, Any]:
    """The reader's ``bbox`` or ``mask`` argument, in the source's CRS (none: the whole layer)."""
    kwargs: dict[str, Any] = {}
    if bbox is not None:
        kwargs["bbox"] = _transform_bounds(bbox, working, src_crs)
    elif mask is not None:
        kwargs["mask"] = _transform_geom(mask, working, src_crs)
    return kwargs


def _read_features(spec: LayerSpec, info: dict[str, Any], columns: list[str],
                   area: dict[str, Any], *, where: str | None, use_arrow: bool,
                   keep_wkb: bool = False) -> tuple[gpd.GeoDataFrame, Any]:
    """The source's features (``columns`` only) and, with ``keep_wkb``, their WKB as read (or
    None: :func:`~swm_gis.io.source_read.read_source_and_wkb`); a read failure or no geometry
    is an error."""
    wkb = None
    try:
        if keep_wkb:
            gdf, wkb = read_source_and_wkb(spec, info, columns=columns, where=where, **area)
        else:
            gdf = _read_source(spec, info, columns=columns, where=where, use_arrow=use_arrow,
                               **area)
    except SwmGisError:
        raise
    except Exception as exc:  # pyogrio raises several GDAL-derived types
        raise InputFileError(
            f"Cannot read features from {spec.describe()} ({layer_key(spec.key)}): "
            f"{_first_line(exc)}"
        ) from exc
    if not isinstance(gdf, gpd.GeoDataFrame) or gdf.geometry.name not in gdf:
        raise GeometryError(
            f"{spec.describe()} ({layer_key(spec.key)}) has no geometry; a "
            f"{spec.schema.geometry or 'spatial'} layer is needed."
        )
    return gdf, wkb


def _logical_frame(gdf: gpd.GeoDataFrame, mapping: dict[str, str | None],
                   src_crs: CRS) -> gpd.GeoDataFrame:
    """The source's columns under their logical names (an unmapped field: all nulls)."""
    return gpd.GeoDataFrame(
        {logical: gdf[actual] if actual else pd.Series([None] * len(gdf), index=gdf.index,
                                                       dtype=object)
         for logical, actual in mapping.items()},
        geometry=gdf.geometry.values,
        crs=src_crs,
        index=gdf.index,
    )


def read_file(
    source: str | os.PathLike,
    *,
    working_crs: str | CRS,
    what: str,
    crs: str | None = None,
    geometry: str | None = "polygon",
) -> gpd.GeoDataFrame:
    """Read a user-supplied vector FILE (``path`` or ``path.gpkg:layer``) into the working CRS.

    ``what`` names the argument in messages, by reference (``option("site", "FILE")``,
    :func:`swm_gis.messages.option`) or in words. Attribute columns are kept as they are;
    geometries are repaired; an empty result is an error. :func:`read_file_with_source` returns
    it with its source record.
    """
    return read_file_with_source(source, working_crs=working_crs, what=what, crs=crs,
                                 geometry=geometry).frame


def read_table(config: TownConfig, key: str, *, where: str | None = None) -> pd.DataFrame:
    """Read a configured attribute table (e.g. ``assess``) with logical field names, as text.

    All values are read as strings so ZIP codes keep their leading zeros. The tables of a
    several-source layer are stacked (every row kept, ``source`` naming where it came from).
    """
    return read_table_with_source(config, key, where=where).frame


def read_table_with_source(config: TownConfig, key: str, *, where: str | None = None) -> Layer:
    """:func:`read_table` as a :class:`~swm_gis.io.sources.Layer`: the table with its source
    record, field map and id warnings."""
    return _read_table_spec(config.layer(key), where=where)


def field_map(config: TownConfig, key: str) -> dict[str, str | None]:
    """Logical field -> the source field the readers read for it (None where absent), of the
    layer's first source: the field names a message about the layer's data should quote."""
    spec = config.layer(key).sources[0]
    return map_fields(spec, list(_info(spec)["fields"]))


def _read_table_spec(spec: LayerSpec, *, where: str | None = None) -> Layer:
    if spec.parts:
        return _combine(spec, [_read_table_spec(p, where=where) for p in spec.parts],
                        dedupe=False)
    info = _info(spec)
    mapping = map_fields(spec, list(info["fields"]))
    columns = [c for c in mapping.values() if c]
    try:
        df = _read_source(spec, info, columns=columns, where=where, read_geometry=False)
    except SwmGisError:
        raise
    except Exception as exc:
        raise InputFileError(
            f"Cannot read {spec.describe()} ({layer_key(spec.key)}): {_first_line(exc)}"
        ) from exc
    out = pd.DataFrame(index=df.index)
    for logical, actual in mapping.items():
        if actual:
            col = df[actual]
            # an id as the one rule writes it (12.0 read from a number field is "12")
            out[logical] = (id_series(col) if logical in ID_FIELDS
                            else col.where(col.isna(), col.astype(str)).astype(object))
        else:
            out[logical] = None
    warnings = sanity.check_ids(out, spec, field_map=mapping)
    return Layer(frame=out, source=source_info(spec), field_map=mapping, warnings=warnings)


def read_column(config: TownConfig, key: str, logical: str) -> pd.Series:
    """One logical field of a layer, without geometry (e.g. every parcel id of a large layer).

    Read through GDAL's Arrow stream where the source allows it (a fraction of the memory and
    time of a full read); an absent optional field gives an empty series. For a several-source
    layer, ``id`` values already seen in an earlier source are left out (as :func:`read_layer`
    drops those rows).
    """
    spec = config.layer(key)
    seen: set[str] = set()
    parts = []
    for part in spec.sources:
        values = _read_column_part(part, logical)
        if spec.parts and logical == "id":
            text = id_series(values)
            values = values[~(text.isin(seen) & text.notna()).to_numpy()]
            seen |= set(text.dropna())
        parts.append(values)
    return parts[0] if len(parts) == 1 else pd.concat(parts, ignore_index=True)


def _read_column_part(spec: LayerSpec, logical: str) -> pd.Series:
    info = _info(spec)
    actual = map_fields(spec, list(info["fields"]))[logical]
    if actual is None:
        return pd.Series([], dtype=object, name=logical)
    kwargs = {"columns": [actual], "read_geometry": False}
    try:
        values = _read_source(spec, info, use_arrow=True, **kwargs)[actual]
    except SwmGisError:
        raise
    except Exception:  # noqa: BLE001 - a source or build without Arrow: the plain reader
        try:
            values = _read_source(spec, info, **kwargs)[actual]
        except Exception as exc:
            raise InputFileError(
                f"Cannot read {spec.describe()} ({layer_key(spec.key)}): {_first_line(exc)}"
            ) from exc
    return values.rename(logical)


#: Ids per WHERE ... IN (...) query (SQLite's expression limits stay far away).
IDS_PER_QUERY = 500


def id_where(config: TownConfig, key: str, logical: str, ids: list[str]) -> str:
    """An OGR WHERE clause selecting ``ids`` on the source field behind a logical field (of the
    layer's first source). Numbers are written unquoted for numeric source fields, so integer
    ids match too."""
    return _id_where(config.layer(key).sources[0], logical, ids)


def _id_where(spec: LayerSpec, logical: str, ids: list[str]) -> str:
    info = _info(spec)
    field = map_fields(spec, list(info["fields"]))[logical]
    if field is None:
        raise FieldMissingError(
            f'{spec.describe()} ({layer_key(spec.key)}) has no field for "{logical}"; set '
            f'{layer_key(f"{spec.key}.fields", logical)} = "<field name>" in the town config.'
        )
    dtype = dict(zip(info["fields"], info["dtypes"], strict=True)).get(field, "object")
    if str(dtype).startswith(("int", "float")):
        numeric = [v for v in ids if re.fullmatch(r"-?\d+(\.\d+)?", str(v).strip())]
        return f'"{field}" IN ({",".join(numeric) or "NULL"})'
    return sql_in(field, ids)


def read_by_ids(config: TownConfig, key: str, logical: str, ids: list[str], *,
                as_text: bool = True) -> pd.DataFrame | gpd.GeoDataFrame:
    """Rows of a layer or table whose logical field is in ``ids`` (WHERE queries, never a full
    read); with ``as_text`` the field comes back as text ("12", not 12.0)."""
    spec = config.layer(key)
    ids = list(dict.fromkeys(id_text(v) or "" for v in ids))
    is_table = spec.schema.kind == "table"
    per_source = []
    for part in spec.sources:
        frames = []
        for start in range(0, max(len(ids), 1), IDS_PER_QUERY):
            where = _id_where(part, logical, ids[start:start + IDS_PER_QUERY]) if ids \
                else "1 = 0"
            frames.append(_read_table_spec(part, where=where) if is_table
                          else read_spec_with_source(part, working_crs=config.crs, where=where))
        one = frames[0].frame if len(frames) == 1 else pd.concat([f.frame for f in frames])
        if not is_table:
            one = gpd.GeoDataFrame(one, geometry="geometry", crs=frames[0].frame.crs)
        per_source.append(dataclasses.replace(frames[0], frame=one))
    out = (_combine(spec, per_source, dedupe=not is_table) if spec.parts
           else per_source[0]).frame
    if as_text and logical in out:
        out[logical] = id_series(out[logical])
    return out


def read_parcels_by_id(config: TownConfig, ids: list[str]) -> gpd.GeoDataFrame:
    """The parcels with these ids (polygons sharing an id merged), or
    :class:`UnknownParcelError` naming every id that is not in the layer."""
    ids = list(dict.fromkeys(id_text(v) or "" for v in ids))
    if "" in ids:
        raise UnknownParcelError(f"A parcel id is empty ({option('parcels')} \"\"); give the "
                                 "parcel's id, e.g. its MassGIS LOC_ID.")
    parcels = read_by_ids(config, "parcels", "id", ids)
    found = set(id_series(parcels["id"]).dropna())
    missing = [p for p in ids if p not in found]
    if missing:
        spec = config.layer("parcels")
        field = map_fields(spec.sources[0], list(_info(spec.sources[0])["fields"]))["id"]
        every_id = read_column(config, "parcels", "id").to_frame()  # all empty: say that instead
        sanity.check_ids(every_id, spec, field_map={"id": field}, whole_layer=True)
        raise UnknownParcelError(
            f"Parcel id(s) {', '.join(missing)} not found in field \"{field}\" of "
            f"{spec.describe()} ({layer_key('parcels')}). Check the id, or set "
            f'{layer_key("parcels.fields", "id")} = "<field>" in '
            f'{config.path or town_config()} if parcels are keyed by another field.'
            + (SEVERAL_PARCELS if any("," in p for p in missing) else "")
        )
    return merge_duplicate_ids(parcels)


def sql_in(field: str, values: list[str]) -> str:
    """An OGR SQL ``field IN (...)`` clause with values quoted safely."""
    quoted = ",".join("'" + str(v).replace("'", "''") + "'" for v in values)
    return f'"{field}" IN ({quoted})'


# --------------------------------------------------------------------------- helpers
def _transform_bounds(bbox: BBox, src: CRS, dst: CRS) -> BBox:
    if src.equals(dst):
        return tuple(bbox)  # type: ignore[return-value]
    t = Transformer.from_crs(src, dst, always_xy=True)
    return t.transform_bounds(*bbox, densify_pts=21)


def _transform_geom(geom: shapely.Geometry, src: CRS, dst: CRS) -> shapely.Geometry:
    if src.equals(dst):
        return geom
    t = Transformer.from_crs(src, dst, always_xy=True)
    return shapely.transform(geom, lambda xy: np.column_stack(t.transform(xy[:, 0], xy[:, 1])))


__all__ = ["Layer", "read_layer", "read_spec", "read_file", "read_table", "layer_info",
           "layer_crs", "read_layer_with_source", "read_spec_with_source",
           "read_file_with_source", "read_table_with_source", "field_map", "read_column",
           "map_fields", "sql_in", "id_where", "read_by_ids", "read_parcels_by_id",
           "IDS_PER_QUERY", "run_cache",
           # the reader of rasters too (swm_gis.io.rasters): every job reads through this module
           "read_raster"]

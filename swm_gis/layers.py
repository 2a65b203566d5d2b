"""The only place that reads geodata: vector layers, tables and rasters, with CRS checks.

Every reader returns data in the town's working CRS (reprojected once, here, at the edge), with
source fields renamed to their logical names (SPEC section 4), so rules never see source schemas.
Readers take a spatial filter (``bbox`` or ``mask`` in the working CRS) so that a neighbourhood
query reads only the neighbourhood of a statewide layer.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from typing import Any

import geopandas as gpd
import numpy as np
import pandas as pd
import pyogrio
import shapely
from pyproj import CRS, Transformer

from swm_gis import sanity
from swm_gis.config import LayerSpec, TownConfig
from swm_gis.errors import (
    CrsError,
    EmptyLayerError,
    FieldMissingError,
    GeometryError,
    InputFileError,
    UnknownParcelError,
)
from swm_gis.raster import Raster  # noqa: F401  (defined there, read here)

BBox = tuple[float, float, float, float]

_GEOM_FAMILY = {
    "polygon": ("Polygon", "MultiPolygon"),
    "line": ("LineString", "MultiLineString"),
    "point": ("Point", "MultiPoint"),
}


# --------------------------------------------------------------------------- provenance
def source_info(spec: LayerSpec) -> dict[str, Any]:
    """Where a layer came from: file (or connection), layer name and modification time (UTC)."""
    modified = None
    if spec.is_file and os.path.exists(spec.path):
        ts = os.path.getmtime(spec.path)
        modified = dt.datetime.fromtimestamp(ts, tz=dt.UTC).isoformat(timespec="seconds")
    return {"key": spec.key, "file": spec.path, "layer": spec.layer, "modified": modified}


def file_source_info(source: str) -> dict[str, Any]:
    """Provenance for a user-supplied FILE argument (``path`` or ``path.gpkg:layer``)."""
    path, layer = split_source(source)
    spec = LayerSpec(key="input", path=path, layer=layer)
    return source_info(spec)


def split_source(source: str) -> tuple[str, str | None]:
    """Split ``path.gpkg:layer`` into path and layer; a plain path (or ``C:\\...``) has no layer."""
    source = str(source)
    head, sep, tail = source.rpartition(":")
    if sep and head and len(head) > 1 and os.path.exists(head) and not os.path.exists(source):
        return head, tail
    return source, None


# --------------------------------------------------------------------------- vector layers
def layer_info(spec: LayerSpec) -> dict[str, Any]:
    """pyogrio's description of a source (fields, CRS, count), with clear errors."""
    _check_exists(spec)
    try:
        return pyogrio.read_info(spec.path, layer=spec.layer)
    except pyogrio.errors.DataLayerError as exc:
        try:
            names = [row[0] for row in pyogrio.list_layers(spec.path)]
        except Exception:  # noqa: BLE001 - the layer error is the one to report
            names = []
        hint = f" Layers in the source: {', '.join(names)}." if names else ""
        raise InputFileError(
            f'Layer "{spec.layer}" not found in {spec.path} ([layers.{spec.key}] layer).{hint}'
        ) from exc
    except (pyogrio.errors.DataSourceError, OSError) as exc:
        raise InputFileError(
            f"Cannot read {spec.path} ([layers.{spec.key}] path): {_first_line(exc)}. "
            "Check the path and that GDAL can read the format."
        ) from exc


def layer_crs(spec: LayerSpec, info: dict[str, Any]) -> CRS:
    """The source CRS: as declared by the source, else as declared in the config, else an error."""
    declared = info.get("crs")
    if declared:
        return CRS.from_user_input(declared)
    if spec.crs:
        return CRS.from_user_input(spec.crs)
    raise CrsError(
        f"{spec.describe()} ([layers.{spec.key}]) declares no coordinate reference system. "
        f'State it in the town config: [layers.{spec.key}] crs = "EPSG:...", e.g. "EPSG:4326" '
        'for longitude/latitude or "EPSG:26986" for MassGIS data.'
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
                f"{spec.describe()} ([layers.{spec.key}]) has no field {wanted} for the logical "
                f'field "{logical}". Set [layers.{spec.key}.fields] {logical} = "<field name>" in '
                f"the town config. Fields in the source: {', '.join(source_fields) or 'none'}."
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
    ``make_valid`` and empty geometries dropped; ``attrs`` holds ``source``, ``repaired`` and
    ``dropped_empty`` counts.
    """
    spec = config.layer(key)
    # a layer far from the parcels is in the wrong CRS
    sanity.check_near_town(config, key, describe=_describe_for_sanity)
    return read_spec(spec, working_crs=config.crs, bbox=bbox, mask=mask, where=where,
                     allow_empty=allow_empty, use_arrow=use_arrow)


def _describe_for_sanity(spec: LayerSpec) -> tuple[dict[str, Any], CRS] | None:
    """(description, source CRS) of a vector layer for :mod:`swm_gis.sanity`; None for rasters."""
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
    working = CRS.from_user_input(working_crs)
    info = layer_info(spec)
    src_crs = layer_crs(spec, info)
    sanity.check_layer(spec, info, src_crs)  # geometry type; coordinates that fit the CRS
    mapping = map_fields(spec, list(info["fields"]))
    kwargs: dict[str, Any] = {}
    if bbox is not None:
        kwargs["bbox"] = _transform_bounds(bbox, working, src_crs)
    elif mask is not None:
        kwargs["mask"] = _transform_geom(mask, working, src_crs)
    columns = [c for c in mapping.values() if c]
    try:
        gdf = pyogrio.read_dataframe(
            spec.path, layer=spec.layer, columns=columns, where=where, use_arrow=use_arrow,
            **kwargs
        )
    except Exception as exc:  # pyogrio raises several GDAL-derived types
        raise InputFileError(
            f"Cannot read features from {spec.describe()} ([layers.{spec.key}]): "
            f"{_first_line(exc)}"
        ) from exc
    if not isinstance(gdf, gpd.GeoDataFrame) or gdf.geometry.name not in gdf:
        raise GeometryError(
            f"{spec.describe()} ([layers.{spec.key}]) has no geometry; a "
            f"{spec.schema.geometry or 'spatial'} layer is needed."
        )
    gdf = gdf.set_crs(src_crs, allow_override=True)
    out = gpd.GeoDataFrame(
        {logical: gdf[actual] if actual else pd.Series([None] * len(gdf), index=gdf.index,
                                                       dtype=object)
         for logical, actual in mapping.items()},
        geometry=gdf.geometry.values,
        crs=src_crs,
        index=gdf.index,
    )
    if not src_crs.equals(working):
        out = out.to_crs(working)
    out, repaired, dropped = repair_geometries(out)
    _check_geometry_family(out, spec)
    if not allow_empty and out.empty:
        place = " in the area asked for" if (bbox is not None or mask is not None) else ""
        raise EmptyLayerError(f"{spec.describe()} ([layers.{spec.key}]) has no features{place}.")
    out.attrs.update(source=source_info(spec), repaired=repaired, dropped_empty=dropped,
                     source_crs=src_crs.to_string(), field_map=mapping)
    whole = bbox is None and mask is None and where is None
    out.attrs["warnings"] = sanity.check_ids(out, spec, whole_layer=whole)  # all-null ids, ...
    return out


def read_file(
    source: str | os.PathLike,
    *,
    working_crs: str | CRS,
    what: str,
    crs: str | None = None,
    geometry: str | None = "polygon",
) -> gpd.GeoDataFrame:
    """Read a user-supplied vector FILE (``path`` or ``path.gpkg:layer``) into the working CRS.

    ``what`` names the argument in messages (e.g. ``"--site"``). Attribute columns are kept as
    they are; geometries are repaired; an empty result is an error.
    """
    path, layer = split_source(str(source))
    spec = LayerSpec(key=what, path=path, layer=layer, crs=crs)
    _check_exists(spec, what=what)
    try:
        info = pyogrio.read_info(path, layer=layer)
        gdf = pyogrio.read_dataframe(path, layer=layer)
    except Exception as exc:
        raise InputFileError(f"Cannot read {source} ({what}): {_first_line(exc)}"
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
        family = _GEOM_FAMILY[geometry]
        bad = ~gdf.geom_type.isin(family)
        if bad.all():
            raise GeometryError(
                f"{source} ({what}) holds {', '.join(sorted(set(gdf.geom_type)))} geometry; "
                f"{geometry} features are needed."
            )
        gdf = gdf[~bad]
    # repairs are recorded (screening.json meta.site.repaired) and said in the summary
    gdf.attrs["source"] = {**source_info(spec), **({"repaired": repaired} if repaired else {})}
    return gdf


def read_table(config: TownConfig, key: str, *, where: str | None = None) -> pd.DataFrame:
    """Read a configured attribute table (e.g. ``assess``) with logical field names, as text.

    All values are read as strings so ZIP codes keep their leading zeros.
    """
    spec = config.layer(key)
    info = layer_info(spec)
    mapping = map_fields(spec, list(info["fields"]))
    columns = [c for c in mapping.values() if c]
    try:
        df = pyogrio.read_dataframe(
            spec.path, layer=spec.layer, columns=columns, where=where, read_geometry=False
        )
    except Exception as exc:
        raise InputFileError(
            f"Cannot read {spec.describe()} ([layers.{key}]): {_first_line(exc)}"
        ) from exc
    out = pd.DataFrame(index=df.index)
    for logical, actual in mapping.items():
        if actual:
            col = df[actual]
            out[logical] = col.where(col.isna(), col.astype(str)).astype(object)
        else:
            out[logical] = None
    out.attrs.update(source=source_info(spec), field_map=mapping)
    out.attrs["warnings"] = sanity.check_ids(out, spec)
    return out


def read_column(config: TownConfig, key: str, logical: str) -> pd.Series:
    """One logical field of a layer, without geometry (e.g. every parcel id of a large layer).

    Read through GDAL's Arrow stream where the source allows it (a fraction of the memory and
    time of a full read); an absent optional field gives an empty series.
    """
    spec = config.layer(key)
    actual = map_fields(spec, list(layer_info(spec)["fields"]))[logical]
    if actual is None:
        return pd.Series([], dtype=object, name=logical)
    kwargs = {"columns": [actual], "read_geometry": False, "layer": spec.layer}
    try:
        values = pyogrio.read_dataframe(spec.path, use_arrow=True, **kwargs)[actual]
    except Exception:  # noqa: BLE001 - a source or build without Arrow: the plain reader
        try:
            values = pyogrio.read_dataframe(spec.path, **kwargs)[actual]
        except Exception as exc:
            raise InputFileError(
                f"Cannot read {spec.describe()} ([layers.{key}]): {_first_line(exc)}"
            ) from exc
    return values.rename(logical)


#: Ids per WHERE ... IN (...) query (SQLite's expression limits stay far away).
IDS_PER_QUERY = 500


def id_where(config: TownConfig, key: str, logical: str, ids: list[str]) -> str:
    """An OGR WHERE clause selecting ``ids`` on the source field behind a logical field.

    Numbers are written unquoted for numeric source fields, so integer ids match too.
    """
    spec = config.layer(key)
    info = layer_info(spec)
    field = map_fields(spec, list(info["fields"]))[logical]
    if field is None:
        raise FieldMissingError(
            f'{spec.describe()} ([layers.{key}]) has no field for "{logical}"; set '
            f'[layers.{key}.fields] {logical} = "<field name>" in the town config.'
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
    ids = list(dict.fromkeys(str(v).strip() for v in ids))
    is_table = config.layer(key).schema.kind == "table"
    frames = []
    for start in range(0, max(len(ids), 1), IDS_PER_QUERY):
        where = id_where(config, key, logical, ids[start:start + IDS_PER_QUERY]) if ids \
            else "1 = 0"
        frames.append(read_table(config, key, where=where) if is_table
                      else read_layer(config, key, where=where))
    out = frames[0] if len(frames) == 1 else pd.concat(frames)
    if not is_table:
        out = gpd.GeoDataFrame(out, geometry="geometry", crs=frames[0].crs)
    out.attrs.update(frames[0].attrs)
    if as_text and logical in out:
        text = out[logical].astype(object)
        out[logical] = text.where(text.isna(), text.map(_id_text))
    return out


def read_parcels_by_id(config: TownConfig, ids: list[str]) -> gpd.GeoDataFrame:
    """The parcels with these ids (polygons sharing an id merged), or
    :class:`UnknownParcelError` naming every id that is not in the layer."""
    ids = list(dict.fromkeys(str(v).strip() for v in ids))
    if "" in ids:
        raise UnknownParcelError("A parcel id is empty (--parcel \"\"); give the parcel's id, "
                                 "e.g. its MassGIS LOC_ID.")
    parcels = read_by_ids(config, "parcels", "id", ids)
    found = set(parcels["id"].dropna().astype(str))
    missing = [p for p in ids if p not in found]
    if missing:
        spec = config.layer("parcels")
        field = map_fields(spec, list(layer_info(spec)["fields"]))["id"]
        every_id = read_column(config, "parcels", "id").to_frame()  # all empty: say that instead
        every_id.attrs["field_map"] = {"id": field}
        sanity.check_ids(every_id, spec, whole_layer=True)
        raise UnknownParcelError(
            f"Parcel id(s) {', '.join(missing)} not found in field \"{field}\" of "
            f"{spec.describe()} ([layers.parcels]). Check the id, or set "
            f'[layers.parcels.fields] id = "<field>" in {config.path or "the town config"} if '
            "parcels are keyed by another field."
            + (" Several parcels? Give each with its own --parcel (-p A -p B), not separated by "
               "commas." if any("," in p for p in missing) else "")
        )
    return merge_duplicate_ids(parcels)


def _id_text(v: object) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def sql_in(field: str, values: list[str]) -> str:
    """An OGR SQL ``field IN (...)`` clause with values quoted safely."""
    quoted = ",".join("'" + str(v).replace("'", "''") + "'" for v in values)
    return f'"{field}" IN ({quoted})'


# --------------------------------------------------------------------------- geometry hygiene
def repair_geometries(gdf: gpd.GeoDataFrame) -> tuple[gpd.GeoDataFrame, int, int]:
    """Repair invalid geometries with ``make_valid`` and drop empty or null ones.

    Returns the new frame and the counts (repaired, dropped). The input is not modified.
    """
    geoms = gdf.geometry.values
    missing = shapely.is_missing(geoms) | shapely.is_empty(geoms)
    invalid = ~missing & ~shapely.is_valid(geoms)
    out = gdf.loc[~missing].copy()
    n_invalid = int(invalid.sum())
    if n_invalid:
        fixed = shapely.make_valid(geoms[invalid])
        out.loc[invalid[~missing], out.geometry.name] = _keep_dominant_dimension(fixed)
    return out, n_invalid, int(missing.sum())


def _keep_dominant_dimension(geoms: np.ndarray) -> np.ndarray:
    """make_valid may return collections with stray lines/points; keep the highest dimension."""
    out = []
    for g in geoms:
        if g.geom_type == "GeometryCollection":
            dim = max(shapely.get_dimensions(p) for p in g.geoms)
            parts = [p for p in g.geoms if shapely.get_dimensions(p) == dim]
            g = shapely.union_all(parts)
        out.append(g)
    return np.array(out, dtype=object)


def merge_duplicate_ids(parcels: gpd.GeoDataFrame, *, id_col: str = "id") -> gpd.GeoDataFrame:
    """Treat polygons sharing a parcel id as one parcel (their union), keeping first attributes.

    ``attrs["duplicate_ids"]`` lists the ids that were merged.
    """
    dup_mask = parcels[id_col].duplicated(keep=False) & parcels[id_col].notna()
    dups = sorted(map(str, parcels.loc[dup_mask, id_col].unique()))
    if not dups:
        out = parcels.copy()
    else:
        single = parcels.loc[~dup_mask]
        multi = parcels.loc[dup_mask]
        merged = multi.dissolve(by=id_col, aggfunc="first", as_index=False)
        merged.index = multi.drop_duplicates(id_col).index
        out = pd.concat([single, merged[parcels.columns]]).sort_index()
        out = gpd.GeoDataFrame(out, geometry=parcels.geometry.name, crs=parcels.crs)
    out.attrs.update(parcels.attrs)
    out.attrs["duplicate_ids"] = dups
    return out


def _check_geometry_family(gdf: gpd.GeoDataFrame, spec: LayerSpec) -> None:
    expected = spec.schema.geometry
    if not expected or gdf.empty:
        return
    bad = ~gdf.geom_type.isin(_GEOM_FAMILY[expected])
    if bad.any():
        kinds = ", ".join(sorted(set(gdf.geom_type[bad])))
        raise GeometryError(
            f"{spec.describe()} ([layers.{spec.key}]) should hold {expected} features but "
            f"{int(bad.sum())} are {kinds}."
        )


# --------------------------------------------------------------------------- rasters
def is_raster(spec: LayerSpec) -> bool:
    """True when the source opens as a raster (GeoTIFF, ...), False for a vector source."""
    import rasterio

    if spec.is_file and not os.path.exists(spec.path):
        return False
    try:
        with rasterio.open(spec.path):
            return True
    except rasterio.errors.RasterioIOError:
        return False


def read_raster(
    config: TownConfig, key: str, *, bounds: BBox | None = None, pad_cells: int = 2,
    require_cover: bool = True,
) -> Raster:
    """Read a configured raster (band 1) in the working CRS, windowed to ``bounds`` if given.

    A raster in another CRS is warped on the fly (nearest neighbour for categorical layers is the
    caller's concern; elevation uses bilinear). ``require_cover`` refuses bounds that reach
    beyond the raster.
    """
    import rasterio
    from rasterio.vrt import WarpedVRT
    from rasterio.warp import Resampling
    from rasterio.windows import from_bounds

    spec = config.layer(key)
    _check_exists(spec)
    working = config.crs_obj
    try:
        src = rasterio.open(spec.path)
    except rasterio.errors.RasterioIOError as exc:
        raise InputFileError(
            f"Cannot read raster {spec.path} ([layers.{key}] path): {_first_line(exc)}"
        ) from exc
    with src:
        if src.crs is None and not spec.crs:
            raise CrsError(
                f"Raster {spec.path} ([layers.{key}]) declares no coordinate reference system. "
                f'State it in the town config: [layers.{key}] crs = "EPSG:26986".'
            )
        src_crs = CRS.from_user_input(src.crs.to_wkt() if src.crs else spec.crs)
        sanity.check_source(spec, tuple(src.bounds), src_crs,
                            declared_by="source" if src.crs else "config")
        resampling = Resampling.bilinear if key == "dem" else Resampling.nearest
        needs_warp = not src_crs.equals(working)
        ds = (WarpedVRT(src, crs=working.to_wkt(), src_crs=src_crs.to_wkt(),
                        resampling=resampling) if needs_warp else src)
        try:
            window = None
            if bounds is not None:
                rb = ds.bounds
                if require_cover and (bounds[0] < rb.left or bounds[1] < rb.bottom
                                      or bounds[2] > rb.right or bounds[3] > rb.top):
                    raise InputFileError(
                        f"Raster {spec.path} ([layers.{key}]) covers "
                        f"x {rb.left:.0f}..{rb.right:.0f}, "
                        f"y {rb.bottom:.0f}..{rb.top:.0f} but the area needed is x "
                        f"{bounds[0]:.0f}..{bounds[2]:.0f}, y {bounds[1]:.0f}..{bounds[3]:.0f} "
                        f"({config.crs}). Use a raster that covers the whole area."
                    )
                rx, ry = abs(ds.transform.a), abs(ds.transform.e)
                padded = (bounds[0] - pad_cells * rx, bounds[1] - pad_cells * ry,
                          bounds[2] + pad_cells * rx, bounds[3] + pad_cells * ry)
                window = from_bounds(*padded, transform=ds.transform)
                window = window.round_offsets().round_lengths()
                window = window.intersection(
                    rasterio.windows.Window(0, 0, ds.width, ds.height))
            arr = ds.read(1, window=window, masked=True)
            transform = ds.window_transform(window) if window is not None else ds.transform
        finally:
            if needs_warp:
                ds.close()
    return Raster(array=arr, transform=transform, crs=working, source=source_info(spec))


# --------------------------------------------------------------------------- helpers
def _check_exists(spec: LayerSpec, what: str | None = None) -> None:
    if spec.is_file and not os.path.exists(spec.path):
        label = what or f"[layers.{spec.key}] path"
        raise InputFileError(
            f"File not found: {spec.path} ({label}). Check the path; config paths are relative "
            "to the config file."
        )
    if spec.is_file and os.path.isfile(spec.path) and not os.access(spec.path, os.R_OK):
        raise InputFileError(f"File {spec.path} is not readable (permissions).")


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


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    text = text.splitlines()[0]
    if isinstance(exc, UnicodeDecodeError) or "codec can't decode" in text:
        return (f"the text is not UTF-8 ({text}); save it as UTF-8 (Excel: \"CSV UTF-8\") "
                "and run again")
    if "file is not a database" in text:  # GDAL quotes its SQL: say what it means instead
        return "it is not a GeoPackage (not an SQLite database; damaged or another format)"
    return text


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


__all__ = [
    "Raster", "read_layer", "read_spec", "read_file", "read_table", "read_raster", "is_raster",
    "layer_info", "layer_crs", "read_column", "map_fields", "merge_duplicate_ids",
    "repair_geometries", "source_info", "file_source_info", "split_source", "sql_in",
    "id_where", "read_by_ids", "read_parcels_by_id", "IDS_PER_QUERY",
]

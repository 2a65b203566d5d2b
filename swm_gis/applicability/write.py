"""Writing the applicability GeoPackage: tile appends, summary and checks tables, QGIS style."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import geopandas as gpd
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyogrio
import shapely

from swm_gis import formatting as fmt
from swm_gis.applicability.overlays import (
    CHECKS_TABLE,
    LAYER,
    NHESP_FLAG,
    OLD_COLUMNS,
    OUTPUT_COLUMNS,
    STYLE_NAME,
    SUMMARY_TABLE,
)
from swm_gis.applicability.style import applicability_qml
from swm_gis.config.town import TownConfig
from swm_gis.io import layers as io
from swm_gis.io.gpkg_styles import StoredStyle, store_styles
from swm_gis.io.writers import atomic_path, check_outputs_free, large_pages, sqlite_sync_off
from swm_gis.units import SQFT_PER_ACRE

#: Arrow type of each output column; any other column is text. The geometry is WKB MultiPolygon.
_TYPES = {"area_sqft": pa.float64(), "area_acres": pa.float64(),
          "nhesp_distance_ft": pa.float64(), "sfha_fraction": pa.float64(),
          "sfha_area_sqft": pa.float64(), "can_reach_trigger": pa.bool_(),
          NHESP_FLAG: pa.bool_(), "in_sfha": pa.bool_(), "drains_to_orw": pa.bool_(),
          "drains_to_impaired": pa.bool_(), "drainage_leaves_data": pa.bool_()}
GEOMETRY = "geom"
#: The stored style's description (QGIS shows it in the style manager): what "large" means.
STYLE_DESCRIPTION = ("The swm-gis map key of screening_class (swm-gis applicability, "
                     "{regulation}): colour = the strongest constraint found (ORW, impaired water, "
                     "habitat, floodplain), patterns = the others and the checks not run, heavy "
                     "outline = large parcel: {trigger} or more, so the parcel alone can reach "
                     "the permit trigger (the town's permit trigger rule).")


def batch_schema() -> pa.Schema:
    """The one Arrow schema of every tile's batch (so tiles stream into one layer)."""
    return pa.schema([pa.field(c, _TYPES.get(c, pa.string())) for c in OUTPUT_COLUMNS]
                     + [pa.field(GEOMETRY, pa.binary())])


def to_batch(result: gpd.GeoDataFrame, *, source_wkb: pa.Array | None = None) -> pa.Table:
    """A classified tile as an Arrow table of :func:`batch_schema` (MultiPolygon WKB geometry).

    Ids and other text columns are written as text whatever their source type (an id of 17 and
    one of "17" are the same parcel id in every tile). ``source_wkb``: the WKB the rows'
    geometries were read from, one per row (:attr:`swm_gis.io.sources.Layer.wkb`): written as
    it is where it is already what :func:`_multipolygon_wkb` would write (:func:`as_written`).
    """
    cols = []
    for field in batch_schema():
        if field.name == GEOMETRY:
            cols.append(as_written(result.geometry.values.to_numpy(), source_wkb))
        elif pa.types.is_string(field.type):
            cols.append(_text_array(result[field.name]))
        else:
            cols.append(pa.array(result[field.name], type=field.type, from_pandas=True))
    return pa.Table.from_arrays(cols, schema=batch_schema())


def _text_array(s: pd.Series) -> pa.Array:
    """A column as Arrow text, nulls kept: strings as they are (converted in C), anything else
    (an integer id, say) through ``str``."""
    if isinstance(s.dtype, pd.StringDtype):  # pandas text (Arrow-backed): cast in place
        return pa.array(s, type=pa.string(), from_pandas=True)
    values = s.astype(object).where(s.notna(), None).to_numpy(dtype=object)
    if pd.api.types.infer_dtype(values, skipna=True) in ("string", "empty"):
        return pa.array(values, type=pa.string())
    return pa.array([None if v is None else str(v) for v in values], type=pa.string())


#: Little-endian WKB header of a MultiPolygon of one part; the part's own WKB follows it.
_ONE_PART = b"\x01\x06\x00\x00\x00\x01\x00\x00\x00"


def _multipolygon_wkb(geoms: np.ndarray) -> pa.Array:
    """Polygons and MultiPolygons as MultiPolygon WKB (the layer's type).

    A polygon's WKB becomes a one-part MultiPolygon's by the nine-byte header in front (the
    bytes ``shapely.multipolygons`` would give, without building the geometries again).
    """
    kinds = shapely.get_type_id(geoms)
    if not np.isin(kinds, (3, 6)).all():  # anything else (never a repaired parcel): shapely's path
        return pa.array(shapely.to_wkb(_as_multi(geoms)), type=pa.binary())
    wkb = pa.array(shapely.to_wkb(geoms, byte_order=1), type=pa.binary())
    return _one_part_where(pa.array(kinds == 3), wkb)


def _one_part_where(polygon: pa.Array, wkb: pa.Array) -> pa.Array:
    """``wkb`` with the one-part MultiPolygon header in front of the rows ``polygon`` marks."""
    if not pc.any(polygon).as_py():
        return wkb
    header = pa.repeat(pa.scalar(_ONE_PART, type=pa.binary()), len(wkb))
    return pc.if_else(polygon, pc.binary_join_element_wise(header, wkb, b""), wkb)


#: Little-endian WKB header of a MultiPolygon of one part and of its part's (a Polygon's).
_ONE_PART_POLYGON = _ONE_PART + b"\x01\x03\x00\x00\x00"
#: Little-endian WKB header of a Polygon (x, y).
_POLYGON = b"\x01\x03\x00\x00\x00"


def as_written(geoms: np.ndarray, source_wkb: pa.Array | None) -> pa.Array:
    """:func:`_multipolygon_wkb` of ``geoms``, taking the bytes from ``source_wkb`` (the WKB
    the geometries were decoded from, unchanged since) where they are already those bytes: a
    little-endian x, y Polygon (given the one-part header) or one-part MultiPolygon, whose
    every number is then written as it was read. Any other (big-endian, with z or m, of several
    parts, a curve) is encoded from its geometry, as without ``source_wkb``.
    """
    if source_wkb is None or len(source_wkb) != len(geoms) or not len(geoms):
        return _multipolygon_wkb(geoms)
    wkb = source_wkb.cast(pa.binary()) if source_wkb.type != pa.binary() else source_wkb
    multi = pc.fill_null(pc.starts_with(wkb, pattern=_ONE_PART_POLYGON), False)
    polygon = pc.fill_null(pc.starts_with(wkb, pattern=_POLYGON), False)
    wkb = _one_part_where(polygon, wkb)
    kept = pc.or_(multi, polygon)
    if pc.all(kept).as_py():
        return wkb
    other = pc.invert(kept)
    encoded = _multipolygon_wkb(geoms[other.to_numpy(zero_copy_only=False)])
    return pc.replace_with_mask(wkb, other, encoded)


def _as_multi(geoms: np.ndarray) -> np.ndarray:
    """Polygons as one-part MultiPolygons (the layer's type), MultiPolygons unchanged."""
    if len(geoms) == 0:
        return geoms
    parts, owner = shapely.get_parts(geoms, return_index=True)
    return shapely.multipolygons(parts, indices=owner)


def write_batches(path: Path, batches: Iterable[pa.Table], *, crs: Any) -> None:
    """Stream tables of :func:`batch_schema` into layer ``applicability`` with one GDAL write.

    GDAL keeps the layer open throughout and builds the spatial index once at the end; the new
    file has SQLite pages of 64 KiB (:func:`~swm_gis.io.writers.large_pages`). An error raised
    while producing a batch is re-raised as is (not as a GDAL error).
    """
    failure: list[BaseException] = []

    def stream() -> Iterator[pa.RecordBatch]:
        try:
            for table in batches:
                yield from table.to_batches()
        except BaseException as exc:
            failure.append(exc)
            raise

    reader = pa.RecordBatchReader.from_batches(batch_schema(), stream())
    try:
        with large_pages():
            pyogrio.write_arrow(reader, path, layer=LAYER, driver="GPKG",
                                geometry_name=GEOMETRY, geometry_type="MultiPolygon",
                                crs=_wkt(crs), dataset_options={"VERSION": "1.2"})
    except Exception:
        if failure:
            raise failure[0] from None
        raise
    if failure:
        raise failure[0]


def _wkt(crs: Any) -> str | None:
    from pyproj import CRS

    return None if crs is None else CRS.from_user_input(crs).to_wkt()


def null_counts(table: pa.Table) -> dict[str, int]:
    """Rows whose value is null (not checked), per column of a batch (Arrow keeps the count)."""
    return {name: table.column(name).null_count for name in table.column_names}


def write_tables(path: Path, summary: pd.DataFrame, checks: list[dict[str, Any]],
                  config: TownConfig, params: dict[str, Any], *, nulls: dict[str, int]) -> None:
    """The summary and checks tables; ``nulls`` are the null counts per output column, summed
    over the batches written (:func:`null_counts`)."""
    pyogrio.write_dataframe(summary, path, layer=SUMMARY_TABLE, driver="GPKG", append=True)
    now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    rows = [{"check": c["name"], "ran": c["ran"], "chapter_320": c["section"],
             "sources": json.dumps(c["sources"]), "note": c["note"],
             "parcels_not_checked": nulls.get(c["name"])} for c in checks]
    rows.append({"check": "run", "ran": True, "chapter_320": None, "parcels_not_checked": None,
                 "sources": json.dumps([io.source_info(config.layer("parcels"))]),
                 "note": json.dumps({"town": config.name, "synthetic": config.synthetic,
                                     "config": str(config.path) if config.path else None,
                                     "written_utc": now, "parameters": params})})
    frame = pd.DataFrame(rows)
    frame["ran"] = frame["ran"].astype(bool)
    frame["parcels_not_checked"] = frame["parcels_not_checked"].astype("Int64")
    pyogrio.write_dataframe(frame, path, layer=CHECKS_TABLE, driver="GPKG", append=True)


# =========================================================================== QGIS style
def write_style(gpkg: str | Path, *, layer: str, classes: list[str],
                geometry_column: str = "geom", trigger_sqft: float = SQFT_PER_ACRE,
                regulation: str | None = None) -> None:
    """Store the QGIS style (the map key) in the GeoPackage's ``layer_styles`` table (as default).

    QGIS (3.22 and later) applies it when the layer is opened (:mod:`swm_gis.io.gpkg_styles`).
    Call on the temporary file of an atomic write.
    """
    store_styles(gpkg, [StoredStyle(
        layer=layer, name=STYLE_NAME, qml=applicability_qml(classes, trigger_sqft=trigger_sqft),
        description=style_description(trigger_sqft, regulation),
        geometry_column=geometry_column)])


def regulation_name(config: Any) -> str:
    """The regulation a town's map applies, as the style description names it: the profile's
    chapter (else its title)."""
    profile = config.applied_regulation().profile
    return str(profile.chapter or profile.title)


def style_description(trigger_sqft: float, regulation: str | None = None) -> str:
    """The stored style's description; ``regulation``: the profile's chapter (default: the
    default profile's)."""
    if regulation is None:
        from swm_gis.config.town_regulation import read_profile

        profile = read_profile(None)
        regulation = str(profile.chapter or profile.title)
    return STYLE_DESCRIPTION.format(trigger=fmt.sqft(trigger_sqft), regulation=regulation)


def write_map(frame: gpd.GeoDataFrame, out: str | Path, *, summary: pd.DataFrame,
              checks: list[dict[str, Any]], config: TownConfig, parameters: dict[str, Any],
              overwrite: bool = False) -> Path:
    """Write classified parcels as the styled applicability GeoPackage ``out`` (atomically)."""
    out = Path(out)
    check_outputs_free([out], overwrite=overwrite)
    with atomic_path(out, suffix=".gpkg") as tmp, sqlite_sync_off():
        batch = to_batch(frame)
        write_batches(tmp, [batch], crs=frame.crs)
        write_tables(tmp, summary, checks, config, parameters, nulls=null_counts(batch))
        write_style(tmp, layer=LAYER, classes=summary["screening_class"].unique().tolist(),
                    trigger_sqft=config.rules.trigger_sqft,
                    regulation=regulation_name(config))
    return out


def read_result(path: str | Path) -> gpd.GeoDataFrame:
    """Read an applicability GeoPackage's layer back (for tests, the plugin and the web map).

    Flags come back as pandas nullable booleans: a null (not checked) stays ``<NA>`` and is
    never read as true or false. A file whose NHESP column is ``nhesp_within_500ft``
    (:data:`~swm_gis.applicability.overlays.OLD_COLUMNS`) comes back with the column named
    ``nhesp_within_distance``; the distance it used is in its checks table.
    """
    frame = rename_old_columns(gpd.read_file(path, layer=LAYER))
    for col, typ in _TYPES.items():
        if col in frame and pa.types.is_boolean(typ):
            null = frame[col].isna().to_numpy()
            flag = pd.array(frame[col].astype(object).where(~null, False).astype(bool),
                            dtype="boolean")
            flag[null] = pd.NA
            frame[col] = flag
    return frame


def rename_old_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """An applicability table with the columns of
    :data:`~swm_gis.applicability.overlays.OLD_COLUMNS` renamed (``nhesp_within_500ft`` ->
    ``nhesp_within_distance``); a table that has both keeps ``nhesp_within_distance``.

    >>> rename_old_columns(pd.DataFrame({"nhesp_within_500ft": [True]})).columns.tolist()
    ['nhesp_within_distance']
    """
    old = {a: b for a, b in OLD_COLUMNS.items() if a in frame and b not in frame}
    return frame.rename(columns=old) if old else frame


__all__ = ["as_written", "batch_schema", "null_counts", "read_result", "rename_old_columns",
           "to_batch", "write_batches", "write_map", "write_style", "write_tables"]

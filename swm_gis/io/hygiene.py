"""Geometry hygiene for layers read by :mod:`swm_gis.io.layers`: repair, drop empties, merge parts
of one parcel, check the geometry family a layer should hold."""

from __future__ import annotations

import geopandas as gpd
import numpy as np
import pandas as pd
import shapely

from swm_gis.config.town import LayerSpec, layer_key
from swm_gis.errors import GeometryError

GEOM_FAMILY = {
    "polygon": ("Polygon", "MultiPolygon"),
    "line": ("LineString", "MultiLineString"),
    "point": ("Point", "MultiPoint"),
}


def repair_geometries(gdf: gpd.GeoDataFrame, *, known_valid: bool = False
                      ) -> tuple[gpd.GeoDataFrame, int, int]:
    """Repair invalid geometries with ``make_valid`` and drop empty or null ones.

    Returns the new frame and the counts (repaired, dropped). The input is not modified.
    ``known_valid``: the source's geometries were all found valid before (the same bytes, the
    same CRS: :func:`swm_gis.applicability.id_scan_cache.known_valid`), so the validity test,
    the costly part, is skipped; missing and empty ones are still dropped.
    """
    geoms = gdf.geometry.values
    missing = shapely.is_missing(geoms) | shapely.is_empty(geoms)
    invalid = (np.zeros(len(geoms), dtype=bool) if known_valid
               else ~missing & ~shapely.is_valid(geoms))
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

    :func:`duplicate_ids` lists the ids this merges.
    """
    dup_mask = _duplicated(parcels, id_col)
    if not dup_mask.any():
        return parcels.copy()
    single = parcels.loc[~dup_mask]
    multi = parcels.loc[dup_mask]
    merged = multi.dissolve(by=id_col, aggfunc="first", as_index=False)
    merged.index = multi.drop_duplicates(id_col).index
    out = pd.concat([single, merged[parcels.columns]]).sort_index()
    return gpd.GeoDataFrame(out, geometry=parcels.geometry.name, crs=parcels.crs)


def duplicate_ids(parcels: pd.DataFrame, *, id_col: str = "id") -> list[str]:
    """The parcel ids on more than one row (polygon), as text, sorted: those
    :func:`merge_duplicate_ids` merges into one parcel."""
    return sorted(map(str, parcels.loc[_duplicated(parcels, id_col), id_col].unique()))


def _duplicated(parcels: pd.DataFrame, id_col: str) -> pd.Series:
    return parcels[id_col].duplicated(keep=False) & parcels[id_col].notna()


def check_geometry_family(gdf: gpd.GeoDataFrame, spec: LayerSpec) -> None:
    expected = spec.schema.geometry
    if not expected or gdf.empty:
        return
    # by GEOS type id (no text per row); the message names the types found
    ok = np.isin(shapely.get_type_id(gdf.geometry.values.to_numpy()),
                 [shapely.GeometryType[name.upper()] for name in GEOM_FAMILY[expected]])
    if not ok.all():
        bad = ~ok
        found = ", ".join(sorted(set(gdf.geom_type[bad])))
        raise GeometryError(
            f"{spec.describe()} ({layer_key(spec.key)}) should hold {expected} features but "
            f"{int(bad.sum())} are {found}."
        )


__all__ = ["GEOM_FAMILY", "check_geometry_family", "duplicate_ids", "merge_duplicate_ids",
           "repair_geometries"]

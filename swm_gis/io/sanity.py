"""Sanity of data against what it claims to be: coordinates vs CRS, ids, geometry type.

A layer whose coordinates cannot be in its declared CRS gives a wrong answer without a word:
parcels in feet declared as metres find 4 abutters instead of 9, lon/lat declared as metres find
13,034. These checks refuse such a layer and name the CRS its coordinates most likely are in.

* :func:`coordinate_problem` - why a bounding box cannot be coordinates in a CRS (degrees under a
  projected CRS, a projected CRS's numbers under degrees, or far outside the CRS's area of use,
  which is how feet under metres and metres under feet show).
* :func:`likely_crs` - the first of the usual Massachusetts CRSs the coordinates fit.
* :func:`check_source` - the two above as an error for a layer (called by ``layers.read_spec``).
* :func:`check_declared_geometry` - a huc12 layer of lines is refused before it is read.
* :func:`id_problems` - all-null / mostly-null required fields and non-unique parcel ids.
* :func:`far_from_town` - a layer whose extent is nowhere near the town's parcels.

Examples
--------
>>> coordinate_problem((-71.2, 42.3, -71.0, 42.4), "EPSG:26986")[:52]
'the coordinates lie within -180..180 and -90..90, as'
>>> likely_crs((-71.2, 42.3, -71.0, 42.4))
'EPSG:4326'
>>> likely_crs((760_000, 2_950_000, 770_000, 2_960_000))  # Massachusetts in US survey feet
'EPSG:2249'
>>> coordinate_problem((236_000, 916_000, 240_000, 920_000), "EPSG:26986") is None
True
"""

from __future__ import annotations

import functools
import math
import re
from typing import Any

import pandas as pd
from pyproj import CRS, Transformer
from pyproj.exceptions import ProjError

from swm_gis.config.town import layer_key
from swm_gis.errors import CrsError, GeometryError, LayerDataError
from swm_gis.ids import id_series
from swm_gis.messages import references

BBox = tuple[float, float, float, float]

#: Tried in order when naming the CRS coordinates are probably in: lon/lat, the Massachusetts
#: State Plane zones in metres and in US feet, UTM 19N / 18N, then Web Mercator.
CANDIDATES = ("EPSG:4326", "EPSG:26986", "EPSG:2249", "EPSG:26987", "EPSG:2250", "EPSG:26919",
              "EPSG:26918", "EPSG:3857")

#: A CRS's area of use is widened by this share of its larger side before coordinates count as
#: "far outside": data beside a zone's edge is normal, data a zone-width away is not.
AREA_MARGIN = 0.5

#: Share of empty values in a required field above which validation warns.
MOSTLY_NULL = 0.5

#: Rows of a filtered read that must all be empty before a required field counts as unmapped.
MIN_ROWS_ALL_EMPTY = 20

#: Parcels whose distinct ids are fewer than this share of rows have a field that is not an id.
MIN_DISTINCT_IDS = 0.5

_FAMILIES = {"Polygon": "polygon", "MultiPolygon": "polygon", "LineString": "line",
             "MultiLineString": "line", "Point": "point", "MultiPoint": "point"}


# --------------------------------------------------------------------------- coordinates vs CRS
def coordinate_problem(bounds: BBox | None, crs: Any) -> str | None:
    """Why coordinates spanning ``bounds`` cannot be in ``crs``; None when they can (or when
    there is nothing to judge: no bounds, or a CRS without an area of use)."""
    if bounds is None:
        return None
    if not all(math.isfinite(float(v)) for v in bounds):
        return "some coordinates are not finite numbers (inf or NaN)"
    obj = CRS.from_user_input(crs)
    degrees = _looks_like_degrees(bounds)
    if obj.is_projected and degrees:
        unit = obj.axis_info[0].unit_name if obj.axis_info else "units"
        return ("the coordinates lie within -180..180 and -90..90, as longitude/latitude "
                f"degrees do, not {unit}s of a projected CRS")
    if obj.is_geographic and not degrees:
        return (f"coordinates reach {_num(bounds[2])}, {_num(bounds[3])}, which are not degrees "
                "of longitude/latitude")
    area = _area_in_crs(obj.to_wkt())
    if area is None or _inside(bounds, area):
        return None
    return (f"the coordinates (x {_num(bounds[0])}..{_num(bounds[2])}, y {_num(bounds[1])}.."
            f"{_num(bounds[3])}) lie far outside the area {_short(obj)} is used for "
            f"({_area_name(obj)})")


def likely_crs(bounds: BBox | None, *, near_lonlat: BBox | None = None) -> str | None:
    """The first of :data:`CANDIDATES` the coordinates fit (and, given ``near_lonlat``, that puts
    them near that lon/lat box), or None."""
    if bounds is None:
        return None
    for candidate in CANDIDATES:
        if coordinate_problem(bounds, candidate) is not None:
            continue
        if near_lonlat is None or _overlaps(_to_lonlat(bounds, candidate), near_lonlat,
                                            margin=0.5):
            return candidate
    return None


def check_source(spec: Any, bounds: BBox | None, src_crs: CRS, *, declared_by: str) -> None:
    """Raise :class:`CrsError` when a layer's coordinates cannot be in its CRS.

    ``declared_by`` is ``"source"`` (the file states its CRS) or ``"config"`` (the town config's
    ``crs`` key), which decides how the message says to fix it.
    """
    problem = coordinate_problem(bounds, src_crs)
    if problem is None:
        return
    raise CrsError(crs_message(spec, problem, src_crs, likely_crs(bounds), declared_by))


def crs_message(spec: Any, problem: str, src_crs: CRS, likely: str | None,
                declared_by: str) -> str:
    """One paragraph: the layer, what is wrong, the likely CRS and how to say so."""
    # a FILE given to a job: its key is a reference to the option (config layers: a plain key)
    is_argument = bool(references(str(spec.key)))
    where = f"{spec.describe()} ({spec.key})" if is_argument else (
        f"{spec.describe()} ({layer_key(spec.key)})")
    name = _short(src_crs)
    guess = (f" They look like {likely} ({CRS.from_user_input(likely).name})." if likely
             else " They fit none of the usual Massachusetts CRSs.")
    if is_argument:
        fix = (f"Save {spec.describe()} with its right CRS ({likely or 'check its source'}) and "
               "pass it again.")
    elif declared_by == "config":
        fix = (f'Set {layer_key(spec.key, "crs")} = "{likely}" in the town config.' if likely
               else f"Correct {layer_key(spec.key, 'crs')} in the town config.")
    else:
        fix = ("The file states the wrong CRS: assign the right one and save a copy (QGIS: "
               "Layer > Set CRS, then Export), or reproject it.")
    return (f"{where} says its coordinates are in {name}, but {problem}.{guess} {fix} Measuring "
            "in the wrong CRS would give wrong distances and areas without a warning.")


#: A layer whose extent stays this far (metres) from the parcels' is misplaced: a CRS mix-up
#: moves data by hundreds of kilometres (feet as metres: x 3.28), a clipped layer by a few.
FAR_M = 25_000.0


def far_from_town(layer_bounds: BBox, town_bounds: BBox, *, metres_per_unit: float = 1.0
                  ) -> bool:
    """True when a layer's extent (working CRS) comes no closer to the town's (the parcels'
    extent) than :data:`FAR_M` or one town-width, whichever is more."""
    width = max(town_bounds[2] - town_bounds[0], town_bounds[3] - town_bounds[1],
                FAR_M / metres_per_unit)
    return not _overlaps(layer_bounds, town_bounds, margin_abs=width)


def town_lonlat(town_bounds: BBox, working_crs: Any) -> BBox:
    """The town's extent (working CRS) as a lon/lat box, for :func:`likely_crs`."""
    return _to_lonlat(town_bounds, working_crs)


# --------------------------------------------------------------------------- hooks for layers.py
def check_layer(spec: Any, info: dict[str, Any], src_crs: CRS) -> None:
    """Every check that needs only the source's description: geometry type, coordinates vs CRS.

    Called by ``layers.read_spec`` before a layer is read, so every command refuses such a layer.
    """
    check_declared_geometry(spec, info)
    check_source(spec, source_bounds(spec, info), src_crs,
                 declared_by="source" if info.get("crs") else "config")


def source_bounds(spec: Any, info: dict[str, Any]) -> BBox | None:
    """The layer's extent in its own CRS: from its description, else computed once (cached)."""
    if info.get("features") == 0:
        return None
    bounds = info.get("total_bounds")
    if bounds is None and getattr(spec, "is_file", False):
        from swm_gis.io import source_cache  # a source parsed before: its data's extent

        bounds = source_cache.data_bounds(spec) or _forced_bounds(spec.path, spec.layer,
                                                                  _mtime(spec.path))
    if bounds is None or not all(math.isfinite(float(v)) for v in bounds):
        return None
    return tuple(float(v) for v in bounds)  # type: ignore[return-value]


def check_near_town(config: Any, key: str, *, describe: Any) -> None:
    """Raise :class:`CrsError` when layer ``key`` lies nowhere near the town's parcels.

    Every layer passing :func:`check_layer` can still be misplaced inside its CRS's area of use
    (a neighbouring zone's numbers, a shifted export); the parcels are the town.
    ``describe(spec) -> (info, source CRS)`` or None for a raster is the reader's (``layers``
    passes it, so this module never imports the reader).
    """
    if key == "parcels" or not config.has("parcels") or config.layer(key).schema.kind == "table":
        return
    town = _cached_extent(config.layer("parcels"), config.crs, describe)
    here = _cached_extent(config.layer(key), config.crs, describe)
    unit_m = CRS.from_user_input(config.crs).axis_info[0].unit_conversion_factor
    if town is None or here is None or not far_from_town(here[0], town[0],
                                                         metres_per_unit=unit_m):
        return
    spec = config.layer(key)
    likely = likely_crs(here[1], near_lonlat=town_lonlat(town[0], config.crs))
    problem = (f"its extent (x {_num(here[0][0])}..{_num(here[0][2])}, y {_num(here[0][1])}.."
               f"{_num(here[0][3])} in the working CRS) is nowhere near the parcels' (x "
               f"{_num(town[0][0])}..{_num(town[0][2])}, y {_num(town[0][1])}..{_num(town[0][3])})")
    raise CrsError(crs_message(spec, problem, CRS.from_user_input(here[2]), likely,
                               "config" if spec.crs and not here[3] else "source"))


def _cached_extent(spec: Any, working: Any, describe: Any
                   ) -> tuple[BBox, BBox, str, bool] | None:
    """:func:`_extent_in`, once per source version: every read of a layer would otherwise
    describe the parcels again (0.4 s for Cambridge's TopoJSON)."""
    mtime = _mtime(spec.path) if getattr(spec, "is_file", False) else None
    key = (spec.key, str(spec.path), spec.layer, spec.crs, str(working), mtime)
    if key not in _EXTENTS:
        if len(_EXTENTS) > 256:
            _EXTENTS.clear()
        _EXTENTS[key] = _extent_in(spec, working, describe)
    return _EXTENTS[key]


_EXTENTS: dict[tuple, tuple[BBox, BBox, str, bool] | None] = {}


def _extent_in(spec: Any, working: Any, describe: Any) -> tuple[BBox, BBox, str, bool] | None:
    """(extent in the working CRS, extent in the source CRS, source CRS, source states its CRS)."""
    try:
        described = describe(spec)
    except Exception:  # noqa: BLE001 - reading errors are reported by the read itself
        return None
    if described is None:
        return None
    info, src = described
    bounds = source_bounds(spec, info)
    if bounds is None:
        return None
    t = Transformer.from_crs(src, CRS.from_user_input(working), always_xy=True)
    try:
        working_bounds = t.transform_bounds(*bounds, densify_pts=5)
    except ProjError:
        return None
    if not all(math.isfinite(v) for v in working_bounds):
        return None
    return working_bounds, bounds, src.to_wkt(), bool(info.get("crs"))


@functools.lru_cache(maxsize=64)
def _forced_bounds(path: str, layer: str | None, mtime: float | None) -> BBox | None:
    import pyogrio

    try:
        return pyogrio.read_info(path, layer=layer, force_total_bounds=True).get("total_bounds")
    except Exception:  # noqa: BLE001 - an unreadable source is reported by the read itself
        return None


def _mtime(path: str) -> float | None:
    import os

    try:
        return os.path.getmtime(path)
    except (OSError, TypeError):  # a connection, or a list of sources
        return None


# --------------------------------------------------------------------------- geometry and ids
def check_declared_geometry(spec: Any, info: dict[str, Any]) -> None:
    """Refuse a layer whose source declares the wrong geometry type for its key, before reading
    (a filtered read of huc12 lines finds nothing and would say "outside every watershed")."""
    expected = spec.schema.geometry if hasattr(spec, "schema") else None
    declared = re.sub(r"\s*(Z|M|ZM|25D)$", "", str(info.get("geometry_type") or "")).strip()
    family = _FAMILIES.get(declared)
    if not expected or family is None or family == expected:
        return
    raise GeometryError(
        f"{spec.describe()} ({layer_key(spec.key)}) holds {declared} features; the {spec.key} "
        f"layer needs {expected} features. Point {layer_key(spec.key)} at the {expected} layer "
        f"(layer = \"...\"), or convert it (QGIS: Lines to Polygons) if it really is {expected}s "
        "drawn as outlines."
    )


def id_problems(frame: pd.DataFrame, spec: Any, *, field_map: dict[str, str | None] | None = None,
                whole_layer: bool = False) -> tuple[list[str], list[str]]:
    """(errors, warnings) about the required fields and parcel ids of a read frame.

    Errors: a required field empty in every row (of the whole layer, or of at least
    :data:`MIN_ROWS_ALL_EMPTY` rows read); parcels whose distinct ids are fewer than half
    the rows (the id field is not an id, e.g. TOWN_ID). Warnings: a required field mostly empty
    (parcels sharing ids are merged and listed by validation). ``whole_layer`` says the frame
    is the whole layer (wording only). ``field_map`` (logical -> source field, as the reader
    mapped them) names the source fields in messages. The errors name config keys by reference
    (:mod:`swm_gis.messages`); :func:`check_ids` raises them.
    """
    errors: list[str] = []
    warnings: list[str] = []
    n = len(frame)
    if n == 0:
        return errors, warnings
    mapping = field_map or {}
    rows = "rows" if whole_layer else "rows read"
    for logical in spec.schema.required_fields:
        if logical not in frame:
            continue
        values = frame[logical]
        empty = values.isna() | values.astype(str).str.strip().isin(["", "nan", "None"])
        source = mapping.get(logical) or logical
        hint = f'{layer_key(f"{spec.key}.fields", logical)} = "<field>"'
        # A few rows without a value in a neighbourhood are data gaps, flagged row by row;
        # a whole layer, or 20 rows read, with none is a field mapped to the wrong column.
        if empty.all() and (whole_layer or n >= MIN_ROWS_ALL_EMPTY):
            errors.append(
                f"{spec.describe()} ({layer_key(spec.key)}): field \"{source}\" (logical "
                f"\"{logical}\") is empty in all {n:,} {rows}. Map {hint} to the field that "
                "holds it."
            )
        elif empty.mean() > MOSTLY_NULL:
            warnings.append(f"field \"{source}\" ({logical}) is empty in {int(empty.sum()):,} of "
                            f"{n:,} {rows}")
    # Only the whole layer says whether ids identify parcels: a neighbourhood may be all road
    # placeholders ("---" on 58 of Cambridge's 13,116 rows, 80 of 93 rows in one bbox).
    if spec.key == "parcels" and "id" in frame and not errors and whole_layer:
        ids = id_series(frame["id"]).dropna()
        distinct = ids.nunique()
        if len(ids) >= 10 and distinct < MIN_DISTINCT_IDS * len(ids):
            source = mapping.get("id") or "id"
            errors.append(
                f"{spec.describe()} ({layer_key('parcels')}): the id field \"{source}\" has only "
                f"{distinct:,} distinct values in {len(ids):,} {rows}, so it does not identify "
                f"parcels (is it a town or map code?). Set {layer_key('parcels.fields', 'id')} "
                "= \"<field>\" to the parcel id (MassGIS: LOC_ID)."
            )
    return errors, warnings


def check_ids(frame: pd.DataFrame, spec: Any, *, field_map: dict[str, str | None] | None = None,
              whole_layer: bool = False) -> list[str]:
    """Raise :class:`LayerDataError` on :func:`id_problems` errors; return its warnings."""
    errors, warnings = id_problems(frame, spec, field_map=field_map, whole_layer=whole_layer)
    if errors:
        raise LayerDataError(" ".join(errors))
    return warnings


# --------------------------------------------------------------------------- helpers
def _looks_like_degrees(b: BBox) -> bool:
    return -180.0 <= b[0] <= b[2] <= 180.0 and -90.0 <= b[1] <= b[3] <= 90.0


@functools.lru_cache(maxsize=64)
def _area_in_crs(wkt: str) -> BBox | None:
    """The CRS's area of use in its own coordinates, widened by :data:`AREA_MARGIN`."""
    obj = CRS.from_wkt(wkt)
    aou = obj.area_of_use
    if aou is None:  # WKT1 (rasterio, .prj files) drops it: find it through the EPSG code
        epsg = obj.to_epsg(min_confidence=70)
        aou = CRS.from_epsg(epsg).area_of_use if epsg else None
    if aou is None:
        return None
    if obj.is_geographic:
        return (-180.0, -90.0, 180.0, 90.0)
    try:
        t = Transformer.from_crs("EPSG:4326", obj, always_xy=True)
        x0, y0, x1, y1 = t.transform_bounds(*aou.bounds, densify_pts=21)
    except ProjError:
        return None
    if not all(math.isfinite(v) for v in (x0, y0, x1, y1)):
        return None
    pad = AREA_MARGIN * max(x1 - x0, y1 - y0)
    return (x0 - pad, y0 - pad, x1 + pad, y1 + pad)


def _inside(b: BBox, area: BBox) -> bool:
    return area[0] <= b[0] and b[2] <= area[2] and area[1] <= b[1] and b[3] <= area[3]


def _overlaps(a: BBox, b: BBox, *, margin: float = 0.0, margin_abs: float = 0.0) -> bool:
    pad = margin_abs or margin * max(b[2] - b[0], b[3] - b[1])
    return not (a[2] < b[0] - pad or a[0] > b[2] + pad or a[3] < b[1] - pad or a[1] > b[3] + pad)


def _to_lonlat(bounds: BBox, crs: Any) -> BBox:
    t = Transformer.from_crs(CRS.from_user_input(crs), "EPSG:4326", always_xy=True)
    return t.transform_bounds(*bounds, densify_pts=5)


def _area_name(obj: CRS) -> str:
    aou = obj.area_of_use
    if aou is None and obj.to_epsg(min_confidence=70):
        aou = CRS.from_epsg(obj.to_epsg(min_confidence=70)).area_of_use
    name = " - ".join((aou.name if aou else "").split(" - ")[:2])  # "USA - Massachusetts ..."
    return name if len(name) <= 70 else name[:67] + "..."


def _short(obj: CRS) -> str:
    epsg = obj.to_epsg()
    return f"EPSG:{epsg} {obj.name}" if epsg else obj.name


def _num(v: float) -> str:
    return f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.4g}"


__all__ = [
    "check_layer", "check_near_town", "source_bounds", "coordinate_problem", "likely_crs",
    "check_source", "crs_message", "far_from_town",
    "town_lonlat", "check_declared_geometry", "id_problems", "check_ids", "CANDIDATES",
]

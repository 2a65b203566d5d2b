"""Checks on a town's configured layers, for ``swm-gis data validate``.

Each layer is read the way the rules read it (CRS, logical fields, geometry repair) and a
:class:`LayerReport` says what was found. Errors are collected, not raised, so one bad layer does
not hide the others.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from swm_gis.config.town import TownConfig
from swm_gis.errors import SwmGisError
from swm_gis.io import layers as io
from swm_gis.rules.abutters import check_right_of_way_field

ProgressFn = Callable[[float, str], None]


@dataclass
class LayerReport:
    key: str
    source: str
    rows: int | None = None
    crs: str | None = None
    fields_found: list[str] = field(default_factory=list)
    fields_missing: list[str] = field(default_factory=list)
    invalid: int | None = None
    empty_dropped: int | None = None
    extent: tuple[float, float, float, float] | None = None
    error: str | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def extent_text(self) -> str:
        if self.extent is None:
            return ""
        x0, y0, x1, y1 = self.extent
        return f"{x0:,.0f} {y0:,.0f} - {x1:,.0f} {y1:,.0f}"

    def as_dict(self) -> dict:
        return asdict(self)


def validate_config(config: TownConfig, *, progress: ProgressFn | None = None) -> list[LayerReport]:
    """Validate every configured layer; returns one report per layer, in config order."""
    reports = []
    keys = list(config.layers)
    for i, key in enumerate(keys):
        if progress:
            progress(i / len(keys), f"checking {key}")
        reports.append(validate_layer(config, key))
    _blame_parcels(reports)
    if progress:
        progress(1.0, "done")
    return reports


def _blame_parcels(reports: list[LayerReport]) -> None:
    """When the other layers agree with each other but all lie far from the parcels, the
    parcels are the misplaced layer: say so on the parcels' line too."""
    far = [r.key for r in reports if r.error and "nowhere near the parcels" in r.error]
    parcels = next((r for r in reports if r.key == "parcels"), None)
    others = [r for r in reports if r.key != "parcels" and r.extent is not None or r.key in far]
    if parcels is None or parcels.error or len(far) < 2 or len(far) < len(others) / 2:
        return
    parcels.error = (
        f"{len(far)} of {len(others)} other layers ({', '.join(far)}) lie nowhere near the "
        f"parcels ({parcels.source}, source CRS {parcels.crs}); the parcels' CRS is the likely "
        "fault (e.g. feet declared as metres). Check [layers.parcels] crs or the file's CRS."
    )


def validate_layer(config: TownConfig, key: str) -> LayerReport:
    """Read one layer fully and report on it (errors are captured in the report)."""
    spec = config.layer(key)
    report = LayerReport(key=key, source=spec.describe())
    try:
        kind = spec.schema.kind
        if kind == "raster" or (kind == "vector_or_raster" and io.is_raster(spec)):
            _validate_raster(config, key, report)
        elif kind == "table":
            _validate_table(config, key, report)
        else:
            _validate_vector(config, key, report)
    except SwmGisError as exc:
        report.error = str(exc)
    return report


def _validate_vector(config: TownConfig, key: str, report: LayerReport) -> None:
    gdf = io.read_layer(config, key)
    report.rows = len(gdf)
    report.crs = gdf.attrs.get("source_crs")
    _fields(gdf.attrs.get("field_map", {}), report)
    report.warnings.extend(gdf.attrs.get("warnings", []))
    report.invalid = int(gdf.attrs.get("repaired", 0))
    report.empty_dropped = int(gdf.attrs.get("dropped_empty", 0))
    if report.invalid:
        report.warnings.append(f"{report.invalid} invalid geometries repaired with make_valid")
    if report.empty_dropped:
        report.warnings.append(f"{report.empty_dropped} features with empty geometry skipped")
    if gdf.empty:
        report.error = f"{spec_text(config, key)} has no features."
        return
    report.extent = tuple(float(v) for v in gdf.total_bounds)  # type: ignore[assignment]
    if key == "parcels":
        _check_parcels(config, gdf, report)


def _check_parcels(config: TownConfig, gdf, report: LayerReport) -> None:
    """The parcels' own checks: the ``right_of_way`` rule's field exists (the abutter job refuses
    the config otherwise), and parcel ids on more than one polygon."""
    try:
        check_right_of_way_field(gdf, config.rules)
    except SwmGisError as exc:
        report.error = str(exc)
    dups = io.merge_duplicate_ids(gdf).attrs["duplicate_ids"]
    if dups:
        shown = ", ".join(dups[:10]) + (" ..." if len(dups) > 10 else "")
        report.warnings.append(
            f"{len(dups)} parcel ids on more than one polygon (treated as one parcel): {shown}"
        )


def _validate_table(config: TownConfig, key: str, report: LayerReport) -> None:
    df = io.read_table(config, key)
    report.rows = len(df)
    report.warnings.extend(df.attrs.get("warnings", []))
    _fields(df.attrs.get("field_map", {}), report)
    if df.empty:
        report.error = f"{spec_text(config, key)} has no rows."


def _validate_raster(config: TownConfig, key: str, report: LayerReport) -> None:
    r = io.read_raster(config, key)
    report.rows = int(r.array.size)
    report.crs = r.crs.to_string()
    report.extent = r.bounds
    cx, cy = r.cell_size
    report.fields_found = [f"{r.array.shape[1]} x {r.array.shape[0]} cells of {cx:g} x {cy:g}"]
    if r.array.mask.all():
        report.error = f"{spec_text(config, key)} holds only nodata."


def _fields(mapping: dict, report: LayerReport) -> None:
    report.fields_found = [f"{k}={v}" for k, v in mapping.items() if v]
    report.fields_missing = [k for k, v in mapping.items() if not v]


def spec_text(config: TownConfig, key: str) -> str:
    return f"{config.layer(key).describe()} ([layers.{key}])"

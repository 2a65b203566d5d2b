"""Checks on a town's configured layers (what the command line's ``data validate`` prints).

Each layer is read the way the rules read it (CRS, logical fields, geometry repair) and a
:class:`LayerReport` says what was found. Errors are collected, not raised, so one bad layer does
not hide the others. An error names config keys by reference, as raised errors do
(:class:`ReportText`), so each front end words them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import asdict, dataclass, field

import pandas as pd

from swm_gis import messages
from swm_gis.config.town import TownConfig, layer_key
from swm_gis.errors import SwmGisError
from swm_gis.ids import id_series
from swm_gis.io import layers as io
from swm_gis.io import source_cache
from swm_gis.io.hygiene import duplicate_ids
from swm_gis.messages import config_key
from swm_gis.progress import Progress
from swm_gis.rules.abutters import check_right_of_way_field
from swm_gis.rules.owner_join import owner_join_rate


class ReportText(messages.Templated, str):
    """A report's message: reads in Python's words (as ``str(error)`` does), and keeps its
    references (:mod:`swm_gis.messages`) in :attr:`template`; an f-string that embeds it keeps
    them, as it does an error's, so a front end words the message whole.

    >>> text = ReportText(f"Check {config_key('layers.parcels', 'crs')}.")
    >>> text, "[layers.parcels] crs" in text, f"{text}" == text.template
    ('Check [layers.parcels] crs.', True, True)
    """

    template: str

    def __new__(cls, message: object) -> ReportText:
        template = str(getattr(message, "template", message))  # an error, a text or a template
        self = super().__new__(cls, messages.api_text(template))
        self.template = template
        return self

    def __reduce__(self):  # copies (dataclasses.asdict) and pickles keep the references
        return (type(self), (self.template,))


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
    #: What is wrong, if anything (a :class:`ReportText`: Python's words, with its references)
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


def validate_config(config: TownConfig, *, progress: Progress | None = None) -> list[LayerReport]:
    """Validate every configured layer; returns one report per layer, in config order."""
    reports = []
    keys = list(config.layers)
    with source_cache.using(config):  # each source parsed once (io.source_cache)
        for i, key in enumerate(keys):
            if progress:
                progress(i / len(keys), f"checking {key}")
            reports.append(validate_layer(config, key))
        _blame_parcels(reports)
        _owner_join(config, reports)
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
    parcels.error = ReportText(
        f"{len(far)} of {len(others)} other layers ({', '.join(far)}) lie nowhere near the "
        f"parcels ({parcels.source}, source CRS {parcels.crs}); the parcels' CRS is the likely "
        f"fault (e.g. feet declared as metres). Check {layer_key('parcels', 'crs')} or the "
        "file's CRS."
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
        report.error = ReportText(exc)
    return report


def _validate_vector(config: TownConfig, key: str, report: LayerReport) -> None:
    layer = io.read_layer_with_source(config, key)
    gdf = layer.frame
    report.rows = len(gdf)
    report.crs = layer.source_crs
    _fields(layer.field_map, report)
    report.warnings.extend(layer.warnings)
    report.invalid = layer.repaired
    report.empty_dropped = layer.dropped_empty
    if report.invalid:
        report.warnings.append(f"{report.invalid} invalid geometries repaired with make_valid")
    if report.empty_dropped:
        report.warnings.append(f"{report.empty_dropped} features with empty geometry skipped")
    if gdf.empty:
        report.error = ReportText(f"{spec_text(config, key)} has no features.")
        return
    if key == "parcels":  # the owner join is checked once the assessing table is read
        frame = pd.DataFrame(gdf.drop(columns=gdf.geometry.name))
        report.__dict__["_layer"] = dataclasses.replace(layer, frame=frame)
    report.extent = tuple(float(v) for v in gdf.total_bounds)  # type: ignore[assignment]
    if key == "parcels":
        _check_parcels(config, layer, report)


def _check_parcels(config: TownConfig, layer: io.Layer, report: LayerReport) -> None:
    """The parcels' own checks: the ``right_of_way`` rule's field exists (the abutter job refuses
    the config otherwise), and parcel ids on more than one polygon."""
    try:
        check_right_of_way_field(layer.field_map, config.rules, source=layer.source)
    except SwmGisError as exc:
        report.error = ReportText(exc)
    dups = duplicate_ids(layer.frame)
    if dups:
        shown = ", ".join(dups[:10]) + (" ..." if len(dups) > 10 else "")
        report.warnings.append(
            f"{len(dups)} parcel ids on more than one polygon (treated as one parcel): {shown}"
        )


def _validate_table(config: TownConfig, key: str, report: LayerReport) -> None:
    layer = io.read_table_with_source(config, key)
    df = layer.frame
    report.__dict__["_layer"] = layer
    report.rows = len(df)
    report.warnings.extend(layer.warnings)
    _fields(layer.field_map, report)
    if df.empty:
        report.error = ReportText(f"{spec_text(config, key)} has no rows.")


def _owner_join(config: TownConfig, reports: list[LayerReport]) -> None:
    """The parcels-to-assessing join rate on the assessing table's line; an error below
    ``[rules] owner_join_min_share`` (a wrong id field joins nothing and every abutter list
    would name no owner)."""
    by_key = {r.key: r for r in reports}
    parcels, assess = by_key.get("parcels"), by_key.get("assess")
    if parcels is None or assess is None or parcels.error or assess.error:
        return
    parcel_layer, assess_layer = parcels.__dict__.get("_layer"), assess.__dict__.get("_layer")
    if parcel_layer is None or assess_layer is None:
        return
    pframe, aframe = parcel_layer.frame, assess_layer.frame
    joined, ownable, by_type = owner_join_rate(pframe, aframe, config.rules)
    if not ownable:
        return
    share = joined / ownable
    pfield = parcel_layer.field_map.get("id") or "id"
    afield = assess_layer.field_map.get("parcel_id") or "parcel_id"
    kinds = "; ".join(f"{k} {j:,} of {n:,}" for k, (j, n) in by_type.items())
    assess.warnings.append(
        f"owner join: {joined:,} of {ownable:,} parcels that can have an owner "
        f"({100 * share:.1f} %) have an owner of record in the assessing table (parcels {pfield} = "
        f"assessing {afield})" + (f"; by POLY_TYPE: {kinds}" if kinds else ""))
    least = config.rules.owner_join_min_share
    if share < least:
        pex = ", ".join(id_series(pframe["id"]).dropna().head(3))
        aex = ", ".join(id_series(aframe["parcel_id"]).dropna().head(3)) \
            if "parcel_id" in aframe else ""
        rule = config_key("rules", "owner_join_min_share")
        assess.error = ReportText(
            f"Only {joined:,} of {ownable:,} parcels that can have an owner "
            f"({100 * share:.1f} %) join an assessing record, under {rule} = {least:g}: the "
            f"parcels' id field ({pfield}, e.g. {pex}) and the assessing table's parcel_id "
            f"field ({afield}, e.g. {aex}) do not hold the same ids, so abutter lists would "
            f"name no owners. Check {layer_key('parcels.fields', 'id')} and "
            f"{layer_key('assess.fields', 'parcel_id')} (MassGIS: LOC_ID in both); if the "
            f"table is knowingly partial, lower {rule}.")


def _validate_raster(config: TownConfig, key: str, report: LayerReport) -> None:
    r = io.read_raster(config, key)
    report.rows = int(r.array.size)
    report.crs = r.crs.to_string()
    report.extent = r.bounds
    cx, cy = r.cell_size
    report.fields_found = [f"{r.array.shape[1]} x {r.array.shape[0]} cells of {cx:g} x {cy:g}"]
    if r.array.mask.all():
        report.error = ReportText(f"{spec_text(config, key)} holds only nodata.")


def _fields(mapping: dict, report: LayerReport) -> None:
    report.fields_found = [f"{k}={v}" for k, v in mapping.items() if v]
    report.fields_missing = [k for k, v in mapping.items() if not v]


def spec_text(config: TownConfig, key: str) -> str:
    """The layer's source and its config section (by reference), for a message."""
    return f"{config.layer(key).describe()} ({layer_key(key)})"

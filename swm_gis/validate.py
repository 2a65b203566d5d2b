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
from swm_gis.io import layers as io
from swm_gis.io import source_cache
from swm_gis.io.attributes import read_attributes
from swm_gis.io.hygiene import duplicate_ids
from swm_gis.messages import config_key
from swm_gis.progress import Progress
from swm_gis.rules.abutters import check_right_of_way_field
from swm_gis.rules.owner_join import OwnerJoin, owner_join, with_fields_that_join


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
    #: The assessing table's line only: the parcels' join to their owners of record
    #: (:meth:`swm_gis.rules.owner_join.OwnerJoin.as_dict`), None when not measured
    owner_join: dict | None = None

    @property
    def extent_text(self) -> str:
        if self.extent is None:
            return ""
        x0, y0, x1, y1 = self.extent
        return f"{x0:,.0f} {y0:,.0f} - {x1:,.0f} {y1:,.0f}"

    def as_dict(self) -> dict:
        return asdict(self)


class ValidationError(SwmGisError):
    """One or more layers failed validation. ``details``: ``failed`` (the layers' keys) and
    ``owner_join`` (the assessing table's join, :meth:`~swm_gis.rules.owner_join.OwnerJoin.
    as_dict`, None when not measured), for a program that words them itself."""

    def __init__(self, message: object = "", *args: object,
                 reports: list[LayerReport] | None = None) -> None:
        super().__init__(message, *args)
        reports = reports or []
        self.details = {"failed": [r.key for r in reports if r.error],
                        "owner_join": owner_join_of(reports)}


def owner_join_of(reports: list[LayerReport]) -> dict | None:
    """The owner join measured by :func:`validate_config` (None when it was not)."""
    return next((r.owner_join for r in reports if r.owner_join is not None), None)


def validate_config(config: TownConfig, *, keys: list[str] | None = None,
                    progress: Progress | None = None) -> list[LayerReport]:
    """Validate every configured layer (or those of ``keys``, in config order); returns one
    report per layer. The owner join is measured when both ``parcels`` and ``assess`` are."""
    reports = []
    keys = [k for k in config.layers if keys is None or k in keys]
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
    """The parcels-to-assessing join (:func:`swm_gis.rules.owner_join.owner_join`, the
    package's measure) on the assessing table's line; an error below ``[rules]
    owner_join_min_share`` (a wrong id field joins nothing and every abutter list would name no
    owner), naming the field that would join."""
    by_key = {r.key: r for r in reports}
    parcels, assess = by_key.get("parcels"), by_key.get("assess")
    if parcels is None or assess is None or parcels.error or assess.error:
        return
    parcel_layer, assess_layer = parcels.__dict__.get("_layer"), assess.__dict__.get("_layer")
    if parcel_layer is None or assess_layer is None:
        return
    pfield = parcel_layer.field_map.get("id") or "id"
    afield = assess_layer.field_map.get("parcel_id") or "parcel_id"
    join = owner_join(parcel_layer.frame, assess_layer.frame, config.rules,
                      parcels_field=pfield, assess_field=afield)
    if not join.ownable:
        return
    least = config.rules.owner_join_min_share
    if join.share < least:
        join = _with_hint(config, join)
    assess.owner_join = join.as_dict()
    kinds = "; ".join(f"{k} {j:,} of {n:,}" for k, (j, n) in join.by_type.items())
    assess.warnings.append(
        f"owner join: {join.joined:,} of {join.ownable:,} parcels that can have an owner "
        f"({100 * join.share:.1f} %) have an owner of record in the assessing table (parcels "
        f"{pfield} = assessing {afield})" + (f"; by POLY_TYPE: {kinds}" if kinds else ""))
    if join.share < least:
        assess.error = _join_error(join, least)


def _with_hint(config: TownConfig, join: OwnerJoin) -> OwnerJoin:
    """``join`` with the fields that would join, read from every attribute of both tables."""
    try:
        return with_fields_that_join(join, read_attributes(config, "parcels"),
                                     read_attributes(config, "assess"))
    except SwmGisError:  # the hint is a help: the join's own error is the one to report
        return join


def _join_error(join: OwnerJoin, least: float) -> ReportText:
    rule = config_key("rules", "owner_join_min_share")
    hint = join.hint()
    return ReportText(
        f"Only {join.joined:,} of {join.ownable:,} parcels that can have an owner "
        f"({100 * join.share:.1f} %) join an assessing record, under {rule} = {least:g}: the "
        f"parcels' id field ({join.parcels_field}, e.g. "
        f"{', '.join(join.parcel_examples) or 'none'}) and the assessing table's parcel_id "
        f"field ({join.assess_field}, e.g. {', '.join(join.assess_examples) or 'none'}) do not "
        "hold the same ids, so abutter lists would name no owners."
        + (f" {hint[0].upper()}{hint[1:]}." if hint else "")
        + f" Check {layer_key('parcels.fields', 'id')} and "
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

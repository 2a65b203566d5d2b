"""The keys of a regulation profile: one table that both checks a profile strictly and writes
its JSON Schema (``swm_gis/schemas/regulation.schema.json``), so the two never disagree.

A profile (``docs/regulations.md``) is a TOML file; every key of it is named here with the kind of
value it holds. :func:`check` refuses an unknown key (with a did-you-mean, as the town config
does: :func:`swm_gis.config.strict.refuse_unknown`), a missing required key and a value of the
wrong kind, naming the key by its dotted path (``versions[0].notice.distance_ft``).
:func:`json_schema` writes the same table as JSON Schema (draft 2020-12) for editors.

Examples
--------
>>> check({"format": 1}, where="x.toml")
Traceback (most recent call last):
...
swm_gis.errors.RegulationError: x.toml: id is missing: it must be a lowercase id of letters, \
digits and dashes, e.g. "westwood-ch350".
>>> json_schema()["properties"]["versions"]["minItems"]
1
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from swm_gis.config.strict import BOOL, TEXT, TEXT_LIST, Kind, refuse_unknown
from swm_gis.errors import ConfigError, RegulationError

#: The format version this reader knows (the ``format`` key); a later format is refused.
FORMAT = 1
TIERS = ("administrative_review", "permit")
COMPARISONS = ("at_least", "more_than")
HUC_LEVELS = ("HUC8", "HUC10", "HUC12")
DAY_KINDS = ("calendar", "business")
ID_PATTERN = r"^[a-z0-9][a-z0-9-]*$"
SCHEMA_ID = "https://swm-gis.invalid/schemas/regulation.schema.json"


@dataclass(frozen=True)
class Value:
    """A key holding one value: the strict :class:`~swm_gis.config.strict.Kind` and its JSON
    Schema twin."""

    kind: Kind
    schema: Mapping[str, Any]
    required: bool = False


@dataclass(frozen=True)
class Table:
    """A TOML table with known keys."""

    keys: Mapping[str, Any]
    required: bool = False
    #: Any keys: only that it is a table is checked (a version, checked apart afterwards).
    open: bool = False


@dataclass(frozen=True)
class Tables:
    """An array of tables (``[[section]]``), each of ``item``."""

    item: Table
    required: bool = False
    min_items: int = 0


@dataclass(frozen=True)
class NamedTables:
    """A table whose keys the profile chooses (ids), each holding a table of ``item``."""

    item: Table
    required: bool = False
    key_pattern: str = ID_PATTERN


# --------------------------------------------------------------------------- value kinds
def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def text(*, required: bool = False) -> Value:
    return Value(TEXT, {"type": "string", "minLength": 1}, required)


def texts(*, required: bool = False) -> Value:
    return Value(TEXT_LIST, {"type": "array", "items": {"type": "string", "minLength": 1}},
                 required)


def flag(*, required: bool = False) -> Value:
    return Value(BOOL, {"type": "boolean"}, required)


def number(low: float, high: float, unit: str = "", *, required: bool = False) -> Value:
    unit_text = f" {unit}" if unit else ""
    kind = Kind(f"a number from {low:g} to {high:g}{unit_text} (no quotes)",
                lambda v: _is_number(v) and low <= v <= high)
    return Value(kind, {"type": "number", "minimum": low, "maximum": high}, required)


def whole(low: int, high: int, unit: str = "", *, required: bool = False) -> Value:
    unit_text = f" {unit}" if unit else ""
    kind = Kind(f"a whole number from {low} to {high}{unit_text} (no quotes)",
                lambda v: isinstance(v, int) and not isinstance(v, bool) and low <= v <= high)
    return Value(kind, {"type": "integer", "minimum": low, "maximum": high}, required)


def choice(options: tuple[str, ...], *, required: bool = False) -> Value:
    kind = Kind("one of " + ", ".join(f'"{o}"' for o in options), lambda v: v in options)
    return Value(kind, {"enum": list(options)}, required)


def date(*, required: bool = False) -> Value:
    kind = Kind("a date written as TOML writes one, e.g. 2021-08-17 (no quotes)",
                lambda v: isinstance(v, dt.date) and not isinstance(v, dt.datetime))
    return Value(kind, {"type": "string", "format": "date"}, required)


def ident(*, required: bool = False) -> Value:
    kind = Kind('a lowercase id of letters, digits and dashes, e.g. "westwood-ch350"',
                lambda v: isinstance(v, str) and re.fullmatch(ID_PATTERN, v) is not None)
    return Value(kind, {"type": "string", "pattern": ID_PATTERN}, required)


def codes(*, required: bool = False) -> Value:
    """Massachusetts (DOR) property use codes: three digits, e.g. ["334", "335"]."""
    kind = Kind('a list of three-digit use codes in quotes, e.g. ["334"]',
                lambda v: isinstance(v, list) and all(
                    isinstance(c, str) and re.fullmatch(r"\d{3}", c) for c in v))
    return Value(kind, {"type": "array", "items": {"type": "string", "pattern": r"^\d{3}$"}},
                 required)


# --------------------------------------------------------------------------- the profile
_CITED = {"citation": text()}

TIER = Table({
    "tier": choice(TIERS, required=True),
    "name": text(required=True),
    "citation": text(required=True),
    "disturbed_area_sqft": number(0, 1e9, "sq ft"),
    "impervious_area_sqft": number(0, 1e9, "sq ft"),
    "site_or_drainage_area_sqft": number(0, 1e9, "sq ft"),
    "comparison": choice(COMPARISONS),
    "land_uses": texts(),
    "counts_common_plan": flag(),
    "note": text(),
})

EXEMPTION = Table({"key": ident(required=True), "citation": text(required=True),
                   "activity": text(required=True), "note": text()})

STANDARD = Table({
    "retention_depth_in": number(0, 12, "in"),
    "tss_removal": number(0, 1),
    "tp_removal": number(0, 1),
    "mitigation_huc": choice(HUC_LEVELS),
    "citation": text(),
    "retention_citation": text(),
    "mitigation_citation": text(),
    "note": text(),
})

DESIGN_STORM = Table({"element": text(required=True),
                      "return_period_years": whole(1, 1000, "years", required=True),
                      "duration_hours": number(0, 168, "hours"), "citation": text()})

IMPAIRMENT = Table({"cause": ident(required=True), "duty": text(required=True),
                    "citation": text(required=True), "land_use": text()})

LAND_USE = Table({"name": text(required=True), "citation": text(required=True),
                  "aliases": texts(), "use_codes": codes(), "note": text()})

VERSION = Table({
    "version": text(required=True),
    "effective": date(required=True),
    "adopted": date(),
    "note": text(),
    "applicability": Table({
        **_CITED,
        "tiers": Tables(TIER, min_items=1),
        "common_plan": flag(),
        "common_plan_citation": text(),
        "ms4_condition": flag(),
        "ms4_citation": text(),
        "site_is_lot": flag(),
        "note": text(),
    }),
    "exemptions": Tables(EXEMPTION),
    "exemptions_citation": text(),
    "definitions": Table({**_CITED, "new_development": text(), "redevelopment": text(),
                          "site": text()}),
    "standards": Table({
        "new_development": STANDARD,
        "redevelopment": STANDARD,
        "roadway_maintenance_citation": text(),
        "removal_method_citation": text(),
        "design_storms": Tables(DESIGN_STORM),
    }),
    "resources": Table({
        "nhesp_distance_ft": number(0, 10_000, "ft"),
        "nhesp_citation": text(),
        "nhesp_prevent_citation": text(),
        "orw_citation": text(),
        "floodplain_citation": text(),
        "impaired_citation": text(),
        "impaired": Tables(IMPAIRMENT),
    }),
    "notice": Table({
        **_CITED,
        "distance_ft": number(0, 10_000, "ft"),
        "across_streets": flag(),
        "method": text(),
        "days_before_hearing": whole(0, 365, "days"),
        "day_kind": choice(DAY_KINDS),
        "certified_by": text(),
        "certification_citation": text(),
        "newspaper_days_before_hearing": whole(0, 365, "days"),
        "newspaper_day_kind": choice(DAY_KINDS),
    }),
    "timeline": Table({
        **_CITED,
        "hearing_within_days": whole(0, 365, "days"),
        "decision_within_days": whole(0, 365, "days"),
        "administrative_decision_within_days": whole(0, 365, "days"),
        "deemed_approval": flag(),
        "permit_term_years": whole(0, 99, "years"),
        "renewals": whole(0, 99),
        "renewal_years": whole(0, 99, "years"),
        "renewal_request_days_before_expiry": whole(0, 365, "days"),
        "inspection_notice_business_days": whole(0, 365, "days"),
        "stabilization_days": whole(0, 365, "days"),
        # each step of the timeline (received, hearing, abutter_notice, ...) and its citation
        "steps": NamedTables(Table({"citation": text(required=True)}),
                             key_pattern=r"^[a-z][a-z0-9_]*$"),
    }),
    "submittals": Table({
        **_CITED,
        "application_copies": whole(0, 100),
        "checklist_file": text(),
        "general_requirements_file": text(),
        "sections": texts(),
    }),
    "land_uses": NamedTables(LAND_USE),
    "citations": Table({k: text() for k in (
        "disturbance", "exemptions", "development_type", "standards", "watersheds",
        "mitigation", "habitats", "floodplain", "receiving_waters", "abutters",
        "certification", "timeline", "checklist", "general_requirements",
        "permit_required", "development_definitions", "proposed_use")}),
})

PROFILE = Table({
    "format": whole(1, FORMAT, required=True),
    "id": ident(required=True),
    "town": text(required=True),
    "county": text(),
    "title": text(required=True),
    "chapter": text(),
    "short_name": text(),
    "adopted_under": text(),
    "source_url": text(),
    "source_note": text(),
    "retrieved": date(),
    "text": text(),
    "texts": text(),
    "quotes": text(),
    "pollutant_requirements": text(),
    "impairment_causes": text(),
    "not_covered": texts(),
    "offices": Table({
        "permit_authority": text(required=True),
        "authority_role": text(),
        "agent": text(),
        "public_works": text(),
        "registry_of_deeds": text(),
        "town_clerk": text(),
        "assessors": text(),
        "newspaper": text(),
    }, required=True),
    "versions": Tables(VERSION, required=True, min_items=1),
})

#: The profile's keys with each version only checked to be a table: the versions are checked
#: one by one afterwards, a later one read over the one before (it may name only what changes).
PROFILE_TOP = Table({**PROFILE.keys, "versions": Tables(Table({}, open=True), required=True,
                                                        min_items=1)})

#: The keys of a profile that name files, relative to the profile (export makes them absolute).
FILE_KEYS = ("text", "texts", "quotes", "pollutant_requirements", "impairment_causes")
#: The same inside each version's ``submittals`` table.
VERSION_FILE_KEYS = ("checklist_file", "general_requirements_file")


# --------------------------------------------------------------------------- strict check
def _want(spec: Any) -> str:
    if isinstance(spec, Value):
        return spec.kind.want
    if isinstance(spec, Tables):
        return "an array of tables ([[name]] sections)"
    return "a table (a [section] or { key = value, ... })"


def check(raw: Any, *, where: str, spec: Table = PROFILE, path: str = "",
          partial: bool = False) -> None:
    """Refuse what ``spec`` does not allow in ``raw``, naming the dotted key path.

    ``partial``: a later version names only what changes, so its required keys (but for
    ``version`` and ``effective``) may be left out; the merged version is checked whole.
    """
    if not isinstance(raw, dict):
        raise RegulationError(f"{where}: {path or 'the profile'} must be {_want(spec)}, "
                              f"not {_shown(raw)}.", key=path)
    if spec.open:
        return
    try:
        refuse_unknown(raw, spec.keys, where=where, section=path or "the top level")
    except ConfigError as exc:
        bad = next(k for k in raw if k not in spec.keys)
        raise RegulationError(exc.template, key=_join(path, bad)) from None
    for key, sub in spec.keys.items():
        here = _join(path, key)
        if key not in raw:
            if sub.required and not (partial and key not in ("version", "effective")):
                raise RegulationError(f"{where}: {here} is missing: it must be {_want(sub)}.",
                                      key=here)
            continue
        _check_value(raw[key], sub, where=where, path=here, partial=partial)


def _check_value(value: Any, sub: Any, *, where: str, path: str, partial: bool) -> None:
    if isinstance(sub, Value):
        want = sub.kind.check(value)
        if want:
            raise RegulationError(f"{where}: {path} = {_shown(value)} must be {want}.", key=path)
    elif isinstance(sub, Table):
        check(value, where=where, spec=sub, path=path, partial=partial)
    elif isinstance(sub, Tables):
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise RegulationError(f"{where}: {path} must be {_want(sub)}, not {_shown(value)}.",
                                  key=path)
        if len(value) < sub.min_items:
            raise RegulationError(f"{where}: {path} must hold at least {sub.min_items} "
                                  "table(s).", key=path)
        for i, item in enumerate(value):
            check(item, where=where, spec=sub.item, path=f"{path}[{i}]", partial=False)
    else:  # NamedTables
        if not isinstance(value, dict):
            raise RegulationError(f"{where}: {path} must be a table of named tables, not "
                                  f"{_shown(value)}.", key=path)
        for name, item in value.items():
            if not re.fullmatch(sub.key_pattern, name):
                raise RegulationError(f"{where}: {path}.{name}: the name must be lowercase "
                                      f"letters and digits (pattern {sub.key_pattern}), e.g. "
                                      '"auto-fueling".', key=f"{path}.{name}")
            check(item, where=where, spec=sub.item, path=f"{path}.{name}", partial=False)


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _shown(value: Any) -> str:
    text_ = repr(value)
    return text_ if len(text_) <= 60 else text_[:57] + "..."


# --------------------------------------------------------------------------- JSON Schema
def _schema(spec: Any, *, partial: bool = False) -> dict[str, Any]:
    if isinstance(spec, Value):
        return dict(spec.schema)
    if isinstance(spec, Tables):
        out: dict[str, Any] = {"type": "array", "items": _schema(spec.item)}
        if spec.min_items:
            out["minItems"] = spec.min_items
        return out
    if isinstance(spec, NamedTables):
        return {"type": "object", "propertyNames": {"pattern": spec.key_pattern},
                "additionalProperties": _schema(spec.item)}
    required = [k for k, s in spec.keys.items() if s.required
                and (not partial or k in ("version", "effective"))]
    out = {"type": "object", "additionalProperties": False,
           "properties": {k: _schema(s, partial=partial) for k, s in spec.keys.items()}}
    if required:
        out["required"] = required
    return out


def json_schema() -> dict[str, Any]:
    """The JSON Schema of a profile (draft 2020-12). The first version must be whole; a later
    one names only what changes (its dates are still required)."""
    root = _schema(PROFILE)
    whole_version = _schema(VERSION)
    whole_version["required"] = ["version", "effective", "applicability"]
    root["properties"]["versions"] = {
        "type": "array", "minItems": 1,
        "prefixItems": [whole_version],
        "items": _schema(VERSION, partial=True),
    }
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID,
            "title": "swm-gis regulation profile",
            "description": "A Massachusetts town's stormwater regulation as data "
                           "(docs/regulations.md).",
            **root}


__all__ = ["FORMAT", "TIERS", "COMPARISONS", "PROFILE", "PROFILE_TOP", "VERSION", "FILE_KEYS",
           "VERSION_FILE_KEYS", "Value", "Table", "Tables", "NamedTables", "check",
           "json_schema"]


if __name__ == "__main__":  # python -m swm_gis.config.regulation_keys > swm_gis/schemas/...
    import json
    import sys

    sys.stdout.write(json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n")

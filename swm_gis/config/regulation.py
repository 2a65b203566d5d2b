"""Regulation profiles: a town's stormwater regulation as data, read strictly into frozen objects.

A profile (``docs/regulations.md``) names the town, its regulation and offices, and holds one or
more *versions*, each with the date it takes effect: the tiers of review and their thresholds,
exemptions, definitions, standards, resource rules, the notice clause, the timeline's day counts,
the submittals and the citation each finding carries. A later version names only what changed;
it is read over the one before it. :func:`load_regulation` picks the version in force on a date
(today by default) and says which.

Bundled profiles live in ``swm_gis/regulations/`` (``lynnfield-ch320`` and others); a town may
bring its own file. The keys and their kinds are :mod:`swm_gis.config.regulation_keys`.

Examples
--------
>>> import datetime as dt
>>> applied = load_regulation("lynnfield-ch320", on=dt.date(2024, 5, 1))
>>> applied.profile.town, applied.version.version, applied.version.tiers[0].disturbed_area_sqft
('Lynnfield', '2021-08-17', 43560)
>>> load_regulation("westwod-ch350")
Traceback (most recent call last):
...
swm_gis.errors.RegulationError: No bundled regulation profile "westwod-ch350" and no such \
file. Did you mean "westwood-ch350"? Bundled: lynnfield-ch320, north-andover-ch250, \
westwood-ch350 (swm-gis regulation list).
"""

from __future__ import annotations

import copy
import datetime as dt
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from types import MappingProxyType
from typing import Any

from swm_gis.config.regulation_keys import (
    FILE_KEYS,
    ID_PATTERN,
    PROFILE_TOP,
    VERSION,
    VERSION_FILE_KEYS,
    check,
)
from swm_gis.config.strict import did_you_mean
from swm_gis.errors import RegulationError

#: Where the bundled profiles live (package data).
BUNDLED_DIR = Path(__file__).resolve().parent.parent / "regulations"
#: The profile a town config that names none gets (issue 33).
DEFAULT_ID = "lynnfield-ch320"


# --------------------------------------------------------------------------- frozen objects
@dataclass(frozen=True)
class Offices:
    """Who does what: the permit authority and the offices a regulation names."""

    permit_authority: str
    authority_role: str | None = None
    agent: str | None = None
    public_works: str | None = None
    registry_of_deeds: str | None = None
    town_clerk: str | None = None
    assessors: str | None = None
    newspaper: str | None = None


@dataclass(frozen=True)
class Tier:
    """One tier of review (administrative review or permit) and what reaches it: any of its
    tests (disturbed area, impervious area, site or drainage area, a listed land use)."""

    tier: str
    name: str
    citation: str
    disturbed_area_sqft: float | None = None
    impervious_area_sqft: float | None = None
    site_or_drainage_area_sqft: float | None = None
    comparison: str = "at_least"
    land_uses: tuple[str, ...] = ()
    counts_common_plan: bool = False
    note: str | None = None


@dataclass(frozen=True)
class LandUse:
    """A land use a tier lists (e.g. one with higher potential pollutant loads), its words and
    the Massachusetts use codes it maps to where the profile says so."""

    key: str
    name: str
    citation: str
    aliases: tuple[str, ...] = ()
    use_codes: tuple[str, ...] = ()
    note: str | None = None


@dataclass(frozen=True)
class Exemption:
    key: str
    citation: str
    activity: str
    note: str | None = None


@dataclass(frozen=True)
class Standard:
    """Retention and treatment for one development type."""

    retention_depth_in: float | None = None
    tss_removal: float | None = None
    tp_removal: float | None = None
    mitigation_huc: str | None = None
    citation: str | None = None
    retention_citation: str | None = None
    mitigation_citation: str | None = None
    note: str | None = None


@dataclass(frozen=True)
class DesignStorm:
    element: str
    return_period_years: int
    duration_hours: float | None = None
    citation: str | None = None


@dataclass(frozen=True)
class Impairment:
    """A duty an impaired receiving water brings, by cause."""

    cause: str
    duty: str
    citation: str
    land_use: str | None = None


@dataclass(frozen=True)
class RegulationVersion:
    """One version of a regulation, in force from ``effective``; ``tables`` holds every table
    of it as read (read-only), for what has no typed field yet."""

    version: str
    effective: dt.date
    tiers: tuple[Tier, ...]
    adopted: dt.date | None = None
    note: str | None = None
    land_uses: Mapping[str, LandUse] = field(default_factory=lambda: MappingProxyType({}))
    exemptions: tuple[Exemption, ...] = ()
    new_development: Standard = Standard()
    redevelopment: Standard = Standard()
    design_storms: tuple[DesignStorm, ...] = ()
    impairments: tuple[Impairment, ...] = ()
    tables: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def section(self, name: str) -> Mapping[str, Any]:
        """A table of the version (``"notice"``, ``"timeline"``, ...), empty when absent."""
        return self.tables.get(name, MappingProxyType({}))

    def citation(self, finding: str) -> str | None:
        """The citation a finding carries (``"disturbance"``, ``"habitats"``, ...)."""
        return self.section("citations").get(finding)


@dataclass(frozen=True)
class Regulation:
    """A regulation profile: the town, the regulation, its offices and its versions."""

    id: str
    town: str
    title: str
    offices: Offices
    versions: tuple[RegulationVersion, ...]
    path: Path
    county: str | None = None
    chapter: str | None = None
    short_name: str | None = None
    adopted_under: str | None = None
    source_url: str | None = None
    source_note: str | None = None
    retrieved: dt.date | None = None
    text: Path | None = None
    texts: Path | None = None
    quotes: Path | None = None
    pollutant_requirements: Path | None = None
    impairment_causes: Path | None = None
    not_covered: tuple[str, ...] = ()

    @property
    def bundled(self) -> bool:
        return self.path.parent == BUNDLED_DIR

    def version_on(self, on: dt.date) -> RegulationVersion:
        """The version in force on ``on``: the last one whose effective date is on or before it."""
        in_force = [v for v in self.versions if v.effective <= on]
        if not in_force:
            first = self.versions[0]
            raise RegulationError(
                f"{self.id}: no version of the {self.title} is in force on {on:%Y-%m-%d}; the "
                f"first ({first.version}) takes effect on {first.effective:%Y-%m-%d}.",
                key="versions[0].effective")
        return in_force[-1]

    def texts_table(self) -> Mapping[str, Any]:
        """The profile's ``texts`` file (the texts its outputs print, by where), read-only;
        empty when it has none."""
        if self.texts is None:
            return MappingProxyType({})
        return _frozen(read_raw(self.texts))

    def line(self) -> str:
        """One line: id, town, title, effective date of the latest version (``regulation list``)."""
        latest = self.versions[-1]
        chapter = f" ({self.chapter})" if self.chapter else ""
        return (f"{self.id}\t{self.town}\t{self.title}{chapter}\t"
                f"effective {latest.effective:%Y-%m-%d}")


@dataclass(frozen=True)
class AppliedRegulation:
    """A profile and the version of it in force on a date: what an output says it applied.

    Attributes
    ----------
    profile : Regulation
        The regulation profile as read (town, title, offices, every version).
    version : RegulationVersion
        The version in force on ``on``: its tiers, standards, notice clause, day counts and
        citations.
    on : datetime.date
        The date the version was chosen for (the date given, or the day it was loaded).
    """

    profile: Regulation
    version: RegulationVersion
    on: dt.date

    def describe(self) -> str:
        """Which profile and version were applied, in words.

        >>> load_regulation("lynnfield-ch320", on=dt.date(2025, 1, 2)).describe()
        'lynnfield-ch320: Town of Lynnfield Stormwater Management Rules and Regulations \
(Chapter 320), version 2021-08-17 (in force since 2021-08-17), applied on 2025-01-02'
        """
        p, v = self.profile, self.version
        chapter = f" ({p.chapter})" if p.chapter else ""
        return (f"{p.id}: Town of {p.town} {p.title}{chapter}, version {v.version} "
                f"(in force since {v.effective:%Y-%m-%d}), applied on {self.on:%Y-%m-%d}")


# --------------------------------------------------------------------------- reading
def bundled_ids() -> list[str]:
    """The ids of the bundled profiles, sorted."""
    return sorted(p.stem for p in BUNDLED_DIR.glob("*.toml")
                  if re.fullmatch(ID_PATTERN, p.stem))  # not lynnfield-ch320.texts.toml


def bundled_regulations() -> list[Regulation]:
    """Every bundled profile, read and checked, sorted by id."""
    return [read_regulation(i) for i in bundled_ids()]


def profile_path(id_or_path: str | Path) -> Path:
    """The file of a bundled id, or ``id_or_path`` itself when it names a file."""
    given = Path(id_or_path)
    if given.suffix == ".toml" or given.exists() or len(given.parts) > 1:
        if not given.is_file():
            raise RegulationError(f"The regulation profile {given} does not exist or is not a "
                                  "file.")
        return given
    bundled = BUNDLED_DIR / f"{id_or_path}.toml"
    if not bundled.is_file():
        ids = bundled_ids()
        raise RegulationError(
            f'No bundled regulation profile "{id_or_path}" and no such file.'
            f"{did_you_mean(str(id_or_path), ids)} Bundled: {', '.join(ids)} "
            "(swm-gis regulation list).")
    return bundled


def read_raw(path: Path) -> dict[str, Any]:
    """A profile file as TOML, or a :class:`RegulationError` saying why it cannot be read."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise RegulationError(f"{path}: not a valid TOML file ({exc}).") from None
    except OSError as exc:
        raise RegulationError(f"{path}: cannot be read ({exc.strerror or exc}).") from None


def read_regulation(id_or_path: str | Path) -> Regulation:
    """A bundled profile by id, or a profile file, read strictly (every version checked)."""
    path = profile_path(id_or_path)
    return parse_regulation(read_raw(path), path=path)


def load_regulation(id_or_path: str | Path, *, on: dt.date | str | None = None
                    ) -> AppliedRegulation:
    """A regulation profile (a bundled id or a file) and its version in force on ``on``.

    Parameters
    ----------
    id_or_path
        A bundled id (``"lynnfield-ch320"``, see ``swm-gis regulation list``) or a profile file.
    on
        The date (a date or ``"YYYY-MM-DD"``) whose version applies, e.g. the date an
        application was received; default today.

    Returns
    -------
    AppliedRegulation
        The profile, the version in force on the date and the date; ``.describe()`` says which.
    """
    profile = read_regulation(id_or_path)
    day = _as_date(on)
    return AppliedRegulation(profile, profile.version_on(day), day)


def exemption_ids(id_or_path: str | Path, *, on: dt.date | str | None = None
                  ) -> tuple[str, ...]:
    """The exemption ids a screening accepts (its ``exemptions``) under a profile (its version in
    force on ``on``, default today), in the profile's order: what a front end offers.

    >>> exemption_ids("westwood-ch350")
    ('landscaping', 'fencing', 'utilities', 'agriculture', 'wetlands-order')
    >>> exemption_ids("north-andover-ch250")
    ()
    """
    return tuple(e.key for e in load_regulation(id_or_path, on=on).version.exemptions)


def _as_date(on: dt.date | str | None) -> dt.date:
    if on is None:
        return dt.date.today()
    if isinstance(on, dt.datetime):
        return on.date()
    if isinstance(on, dt.date):
        return on
    try:
        return dt.date.fromisoformat(str(on))
    except ValueError:
        raise RegulationError(f'The date "{on}" is not a date: write it as YYYY-MM-DD, e.g. '
                              "2026-05-01.") from None


def merged_versions(raw_versions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each version read over the one before it: tables merge key by key, a list replaces.

    >>> merged_versions([{"a": {"x": 1, "y": [1]}}, {"a": {"y": [2]}}])[1]
    {'a': {'x': 1, 'y': [2]}}
    """
    out: list[dict[str, Any]] = []
    for raw in raw_versions:
        out.append(_merge(out[-1], raw) if out else copy.deepcopy(raw))
    return out


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    merged = copy.deepcopy(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def parse_regulation(raw: dict[str, Any], *, path: Path) -> Regulation:
    """A profile's TOML (already parsed) checked strictly and turned into frozen objects."""
    where = str(path)
    check(raw, where=where, spec=PROFILE_TOP)
    raw_versions = raw["versions"]
    for i, version in enumerate(raw_versions):
        check(version, where=where, spec=VERSION, path=f"versions[{i}]",
              partial=i > 0)
    _check_dates(raw_versions, where)
    merged = merged_versions(raw_versions)
    for i, version in enumerate(merged):
        check(version, where=where, spec=VERSION, path=f"versions[{i}]")
        _check_version(version, i, where, path.parent)
    base = path.parent
    files = {k: _file(raw, k, base, where) for k in FILE_KEYS}
    return Regulation(
        id=raw["id"], town=raw["town"], title=raw["title"],
        offices=Offices(**raw["offices"]),
        versions=tuple(_version(v) for v in merged), path=path,
        county=raw.get("county"), chapter=raw.get("chapter"), short_name=raw.get("short_name"),
        adopted_under=raw.get("adopted_under"), source_url=raw.get("source_url"),
        source_note=raw.get("source_note"), retrieved=raw.get("retrieved"),
        not_covered=tuple(raw.get("not_covered", ())), **files)


def _check_dates(raw_versions: list[dict[str, Any]], where: str) -> None:
    """Effective dates strictly in order; a version adopted no later than it takes effect."""
    seen: set[str] = set()
    for i, version in enumerate(raw_versions):
        if version["version"] in seen:
            raise RegulationError(f'{where}: versions[{i}].version "{version["version"]}" is '
                                  "given twice: each version needs its own name.",
                                  key=f"versions[{i}].version")
        seen.add(version["version"])
        adopted = version.get("adopted")
        if adopted and adopted > version["effective"]:
            raise RegulationError(
                f"{where}: versions[{i}].adopted = {adopted} is after its effective date "
                f"{version['effective']}: a version takes effect on or after its adoption.",
                key=f"versions[{i}].adopted")
        if i and version["effective"] <= raw_versions[i - 1]["effective"]:
            raise RegulationError(
                f"{where}: versions[{i}].effective = {version['effective']} must be after "
                f"versions[{i - 1}].effective = {raw_versions[i - 1]['effective']}: list the "
                "versions oldest first, each taking effect after the one before.",
                key=f"versions[{i}].effective")


def _check_version(version: dict[str, Any], i: int, where: str, base: Path) -> None:
    """What the key table cannot say: tiers present and testable, land uses defined, files."""
    here = f"versions[{i}]"
    tiers = version.get("applicability", {}).get("tiers")
    if not tiers:
        raise RegulationError(f"{where}: {here}.applicability.tiers is missing: a version needs "
                              "at least one [[versions.applicability.tiers]] table.",
                              key=f"{here}.applicability.tiers")
    known_uses = version.get("land_uses", {})
    for j, tier in enumerate(tiers):
        tests = ("disturbed_area_sqft", "impervious_area_sqft", "site_or_drainage_area_sqft",
                 "land_uses")
        if not any(tier.get(t) for t in tests):
            raise RegulationError(
                f"{where}: {here}.applicability.tiers[{j}] has no test: give at least one of "
                f"{', '.join(tests)}.", key=f"{here}.applicability.tiers[{j}]")
        for use in tier.get("land_uses", ()):
            if use not in known_uses:
                raise RegulationError(
                    f'{where}: {here}.applicability.tiers[{j}].land_uses names "{use}", which '
                    f"is not a [versions.land_uses.{use}] table.{did_you_mean(use, known_uses)}",
                    key=f"{here}.applicability.tiers[{j}].land_uses")
    for key in VERSION_FILE_KEYS:
        name = version.get("submittals", {}).get(key)
        if name and not (base / name).is_file():
            raise RegulationError(f"{where}: {here}.submittals.{key} = {name!r}: no such file "
                                  f"(paths are relative to the profile, {base}).",
                                  key=f"{here}.submittals.{key}")


def _file(raw: dict[str, Any], key: str, base: Path, where: str) -> Path | None:
    name = raw.get(key)
    if not name:
        return None
    found = (base / name).resolve()
    if not found.is_file():
        raise RegulationError(f"{where}: {key} = {name!r}: no such file (paths are relative "
                              f"to the profile, {base}).", key=key)
    return found


def _frozen(value: Any) -> Any:
    if isinstance(value, dict):
        return MappingProxyType({k: _frozen(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value


def _build(cls: type, table: Mapping[str, Any], **extra: Any) -> Any:
    names = {f.name for f in fields(cls)}
    values = {k: tuple(v) if isinstance(v, list) else v for k, v in table.items() if k in names}
    return cls(**values, **extra)


def _version(raw: dict[str, Any]) -> RegulationVersion:
    applicability = raw.get("applicability", {})
    standards = raw.get("standards", {})
    uses = {k: _build(LandUse, v, key=k) for k, v in raw.get("land_uses", {}).items()}
    return RegulationVersion(
        version=raw["version"], effective=raw["effective"], adopted=raw.get("adopted"),
        note=raw.get("note"),
        tiers=tuple(_build(Tier, t) for t in applicability.get("tiers", ())),
        land_uses=MappingProxyType(uses),
        exemptions=tuple(_build(Exemption, e) for e in raw.get("exemptions", ())),
        new_development=_build(Standard, standards.get("new_development", {})),
        redevelopment=_build(Standard, standards.get("redevelopment", {})),
        design_storms=tuple(_build(DesignStorm, d) for d in standards.get("design_storms", ())),
        impairments=tuple(_build(Impairment, d)
                          for d in raw.get("resources", {}).get("impaired", ())),
        tables=_frozen({k: v for k, v in raw.items() if isinstance(v, dict)}),
    )


__all__ = ["AppliedRegulation", "DesignStorm", "Exemption", "Impairment", "LandUse", "Offices",
           "Regulation", "RegulationVersion", "Standard", "Tier", "BUNDLED_DIR", "DEFAULT_ID",
           "bundled_ids", "bundled_regulations", "exemption_ids", "load_regulation",
           "merged_versions", "parse_regulation", "profile_path", "read_raw", "read_regulation"]

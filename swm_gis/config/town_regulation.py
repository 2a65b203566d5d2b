"""The town config's regulation: ``[town] regulation = "ID"`` (a bundled profile) or a path to a
profile file, the rule values it gives, and the warning when a config names none.

The town config names the regulation profile its outputs apply (``docs/regulations.md``). When it
names none, Lynnfield's Chapter 320 (:data:`~swm_gis.config.regulation.DEFAULT_ID`) applies, and
a town that is not Lynnfield gets the ``regulation_not_named`` warning in every output
(:func:`not_named_warning`). The ``[rules]`` defaults come from the profile's version
(:func:`profile_rule_values`); a value in the town's ``[rules]`` still overrides it.

Light: reads TOML only (no geo stack), so ``load_config`` stays quick.

Examples
--------
>>> from pathlib import Path
>>> parse_reference({"regulation": "westwood-ch350"}, base_dir=Path("."), where="t.toml")
'westwood-ch350'
>>> profile_rule_values(read_profile("westwood-ch350").versions[-1])["trigger_sqft"]
21780.0
"""

from __future__ import annotations

import datetime as dt
import functools
from pathlib import Path
from typing import Any

from swm_gis.config.regulation import (
    DEFAULT_ID,
    AppliedRegulation,
    Regulation,
    RegulationVersion,
    bundled_ids,
    read_regulation,
)
from swm_gis.config.strict import did_you_mean
from swm_gis.errors import ConfigError, RegulationError
from swm_gis.messages import config_key

__all__ = ["NOT_NAMED_CODE", "applied_regulation", "describe_applied", "not_named_warning",
           "parse_reference", "profile_rule_values", "read_profile"]

#: The warning's code (README "Town configuration", docs/regulations.md).
NOT_NAMED_CODE = "regulation_not_named"

#: The HUC levels the screening can tie off-site mitigation to (HUC10 / HUC12 layers).
_CHECKED_HUC_LEVELS = ("HUC10", "HUC12")


def _looks_like_path(value: str) -> bool:
    return value.endswith(".toml") or "/" in value or "\\" in value


def parse_reference(town: dict[str, Any], *, base_dir: Path, where: str) -> str | None:
    """``[town] regulation``: a bundled id, or a profile file's path (resolved against the
    config's folder); None when the config names none. A wrong value is a ConfigError naming
    the key, the bundled ids and the nearest one."""
    value = town.get("regulation")
    if value is None:
        return None
    key = config_key("town", "regulation")
    ids = bundled_ids()
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{where}: {key} = {value!r} must be a bundled regulation profile's "
                          f'id in quotes (one of {", ".join(ids)}) or the path of a profile '
                          'file, e.g. regulation = "lynnfield-ch320".')
    value = value.strip()
    if _looks_like_path(value):
        path = Path(value) if Path(value).is_absolute() else (base_dir / value)
        if not path.is_file():
            raise ConfigError(f"{where}: {key} = \"{value}\": no such profile file ({path}; a "
                              "path is relative to the config's folder). Bundled profiles: "
                              f"{', '.join(ids)} (swm-gis regulation list).")
        _read_checked(str(path.resolve()), where, key)
        return str(path.resolve())
    if value not in ids:
        raise ConfigError(f'{where}: {key} = "{value}" is not a bundled regulation profile.'
                          f"{did_you_mean(value, ids)} Bundled: {', '.join(ids)} (swm-gis "
                          "regulation list); or give the path of a profile file.")
    return value


def _read_checked(ref: str, where: str, key: str) -> Regulation:
    try:
        return read_profile(ref)
    except RegulationError as exc:
        raise ConfigError(f"{where}: {key} names a profile that is not valid: {exc}") from None


@functools.lru_cache(maxsize=16)
def _read_cached(ref: str, stamp: float) -> Regulation:
    return read_regulation(ref)


def read_profile(ref: str | None) -> Regulation:
    """The profile a config's reference names (the default, Lynnfield's, for None), read once
    per file version."""
    ref = ref or DEFAULT_ID
    path = Path(ref)
    stamp = path.stat().st_mtime if path.is_file() else 0.0
    return _read_cached(ref, stamp)


def applied_regulation(config: Any, on: dt.date | str | None = None
                       ) -> AppliedRegulation:
    """The config's profile and its version in force on ``on`` (today by default)."""
    profile = read_profile(config.regulation)
    day = dt.date.today() if on is None else dt.date.fromisoformat(str(on)[:10])
    return AppliedRegulation(profile, profile.version_on(day), day)


def profile_rule_values(version: RegulationVersion) -> dict[str, Any]:
    """The ``[rules]`` values a profile's version gives (what it leaves out keeps the built-in
    default): the permit tier's disturbed area as the trigger, the notice distance, the NHESP
    distance, and each development type's retention depth, TSS/TP removal and mitigation HUC.
    """
    values: dict[str, Any] = {}
    permit = [t for t in version.tiers if t.tier == "permit" and t.disturbed_area_sqft]
    if permit:
        values["trigger_sqft"] = float(permit[0].disturbed_area_sqft)
    notice, resources = version.section("notice"), version.section("resources")
    if notice.get("distance_ft") is not None:
        values["abutter_distance_ft"] = float(notice["distance_ft"])
    if resources.get("nhesp_distance_ft") is not None:
        values["habitat_distance_ft"] = float(resources["nhesp_distance_ft"])
    for kind, standard in (("new", version.new_development),
                           ("redevelopment", version.redevelopment)):
        for key, got in ((f"retention_{kind}_in", standard.retention_depth_in),
                         (f"tss_removal_{kind}", standard.tss_removal),
                         (f"tp_removal_{kind}", standard.tp_removal)):
            if got is not None:
                values[key] = float(got)
        if standard.mitigation_huc is not None:
            values[f"mitigation_huc_{kind}"] = standard.mitigation_huc
    return values


def rule_defaults(ref: str | None, *, given: set[str], where: str) -> dict[str, Any]:
    """The profile's rule values the town's ``[rules]`` (``given``) does not override; a HUC
    level the screening cannot check (HUC8) must be overridden."""
    version = read_profile(ref).version_on(dt.date.today())
    values = {k: v for k, v in profile_rule_values(version).items() if k not in given}
    for key in ("mitigation_huc_new", "mitigation_huc_redevelopment"):
        if key in values and values[key] not in _CHECKED_HUC_LEVELS:
            raise ConfigError(
                f"{where}: the regulation profile {ref or DEFAULT_ID} ties off-site mitigation "
                f"to {values[key]}, which the screening cannot check (it reads HUC10 and HUC12 "
                f"layers); set {config_key('rules', key)} = \"HUC10\" or \"HUC12\".")
    return values


def describe_applied(applied: AppliedRegulation, *, named: bool) -> dict[str, Any]:
    """The record an output keeps of the regulation it applied: profile id, title, town, the
    version and its effective date, the date it was chosen for, and whether the config named
    it, and the file of a profile that is not bundled."""
    p, v = applied.profile, applied.version
    return {"id": p.id, "title": p.title, "chapter": p.chapter, "town": p.town,
            "version": v.version, "effective": v.effective.isoformat(),
            "applied_on": applied.on.isoformat(), "named_in_config": named,
            "description": applied.describe(),
            # a profile file (not bundled): where it is, so a report re-reads its words
            **({} if p.bundled else {"file": str(p.path)})}


def not_named_warning(config: Any) -> dict[str, str] | None:
    """``regulation_not_named`` for a config that names no regulation and is not the default
    profile's town; None otherwise."""
    if config.regulation is not None:
        return None
    profile = read_profile(None)
    if _same_town(config.name, profile.town):
        return None
    chapter = f" ({profile.chapter})" if profile.chapter else ""
    return {"code": NOT_NAMED_CODE,
            "text": f"The town config for {config.name} names no regulation, so the Town of "
                    f"{profile.town} {profile.title}{chapter} (profile {profile.id}) was "
                    f"applied: its figures, citations and offices are {profile.town}'s. To "
                    "apply the town's own, name its regulation profile (a bundled id or a "
                    "profile file) as the town's regulation in the config."}


def _same_town(name: str, town: str) -> bool:
    """Whether the config's town name is the profile's town ("Lynnfield", "Town of
    Lynnfield, MA")."""
    words = name.lower().replace(",", " ").split()
    return town.lower() in words or name.strip().lower() == town.lower()

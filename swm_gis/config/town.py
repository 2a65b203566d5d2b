"""Town configuration (TOML) -> typed objects: working CRS, rule values, layer sources, field maps.

A config names only what differs from the defaults: rule values default to Chapter 320's, field
names default to the published MassGIS / FEMA / USGS WBD / MassDEP schemas (README "Town
configuration"), and paths are relative to the config file.

Examples
--------
>>> cfg = parse_config({"town": {"name": "Demo", "crs": "EPSG:26986"},
...                     "layers": {"parcels": {"path": "p.gpkg"}}}, base_dir=Path("/data"))
>>> cfg.rules.abutter_distance_ft, cfg.layers["parcels"].fields["id"]
(100.0, 'LOC_ID')
>>> str(cfg.layers["parcels"].path)
'/data/p.gpkg'
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pyproj import CRS
from pyproj.exceptions import CRSError as PyprojCRSError

from swm_gis.config import town_regulation
from swm_gis.config.layer_paths import (  # noqa: F401  (re-exported)
    is_connection_string,
    is_postgis_path,
    layer_key,
    resolve_path,
    with_sources,
)
from swm_gis.config.layer_sources import SOURCES, with_town_sources
from swm_gis.config.schema import (  # noqa: F401  (re-exported: the schema's old home)
    ASSESS_FIELDS,
    SCHEMAS,
    LayerKind,
    LayerSchema,
)
from swm_gis.config.strict import (
    BOOL,
    SOURCE,
    TABLE,
    TEXT,
    TEXT_LIST,
    TEXT_OR_EMPTY,
    TEXT_OR_LIST,
    Kind,
    check_table,
    check_values,
    did_you_mean,
    finite_range,
    key_in,
    one_of,
    refuse_unknown,
)
from swm_gis.errors import ConfigError, CrsError
from swm_gis.messages import config_key, option
from swm_gis.units import SQFT_PER_ACRE

#: FEMA zones that make up the Special Flood Hazard Area when a layer has no SFHA_TF field.
SFHA_ZONES = (
    "A", "AE", "AH", "AO", "A99", "AR", "V", "VE",
    *(f"A{i}" for i in range(1, 31)),
    *(f"V{i}" for i in range(1, 31)),
)


@dataclass(frozen=True)
class RightOfWayRule:
    """Marks right-of-way and water polygons in a parcels source without ``POLY_TYPE``.

    Written ``[layers.parcels] right_of_way = {field = "ML", values = ["ROAD"]}``: a polygon
    whose source ``field`` holds one of ``values`` (compared trimmed, case-insensitively) is a
    right-of-way with no owner, like MassGIS ``POLY_TYPE`` ROW. Read by the parcels layer as the
    logical column :data:`RIGHT_OF_WAY_COLUMN`.
    """

    field: str
    values: tuple[str, ...]

    def describe(self) -> str:
        return f"{self.field} = {' / '.join(self.values)}"


#: The logical column that carries the right-of-way rule's source field.
RIGHT_OF_WAY_COLUMN = "right_of_way"


@dataclass(frozen=True)
class Rules:
    """Rule values; the defaults are those of Lynnfield Chapter 320 (``docs/findings.md``)."""

    trigger_sqft: float = SQFT_PER_ACRE  # 213 Art. II / 320: land disturbance >= 1 acre
    abutter_distance_ft: float = 100.0  # permit procedure A(7): owners within 100 ft
    habitat_distance_ft: float = 500.0  # 320-20: NHESP features within 500 ft of construction
    retention_new_in: float = 1.0  # 320-19 B(7)(b)
    retention_redevelopment_in: float = 0.8  # 320-19 B(8)(b)
    tss_removal_new: float = 0.90  # 320-19 B(7)
    tp_removal_new: float = 0.60
    tss_removal_redevelopment: float = 0.80  # 320-19 B(8)
    tp_removal_redevelopment: float = 0.50
    mitigation_huc_new: str = "HUC12"  # 320-19 B(7)(d)
    mitigation_huc_redevelopment: str = "HUC10"  # 320-19 B(8)(d)
    no_owner_poly_types: tuple[str, ...] = ("ROW", "PRIV_ROW", "RAIL_ROW", "WATER")
    sfha_zones: tuple[str, ...] = SFHA_ZONES
    #: an abutter list longer than this is warned about before the package is written
    abutter_warning_count: int = 500
    #: existing impervious cover under this share of the limit of disturbance leaves new
    #: development vs redevelopment to the Commission (the definitions are silent on mixed sites)
    small_existing_impervious_share: float = 0.05
    #: a parcel a --site reaches is a subject only when the site covers at least this share of
    #: the parcel, or the parcel holds at least this share of the site (docs/abutters.md)
    site_subject_share: float = 0.25
    #: ``data validate`` fails when fewer ownable parcels than this share join an assessing
    #: record (a wrong id field joins none)
    owner_join_min_share: float = 0.5
    #: set from ``[layers.parcels] right_of_way`` (not a ``[rules]`` key)
    right_of_way: RightOfWayRule | None = None
    #: each parcels source's own rule, by the source as rows name it (``source``): the town's
    #: own source(s) ``right_of_way`` above, a neighbour's its ``[[layers.parcels.sources]]``
    #: rule (``swm_gis.config.layer_sources``)
    right_of_way_sources: tuple[tuple[str, RightOfWayRule | None], ...] = ()


# --------------------------------------------------------------------------- allowed keys
# One table per section: a new key is one line here (and the code that reads it).

#: Top-level sections of a town config.
SECTIONS = ("town", "rules", "layers", "cache", "publish")

#: Keys of [publish] (swm-gis publish, docs/publish.md). ``include_owners`` is the town's opt-in
#: to put owner names and mailing addresses on the public web map (off unless set true).
PUBLISH_KEYS: dict[str, Kind] = {
    "include_owners": BOOL,
    "simplify_ft": finite_range(0, 100, unit="ft"),
    "title": TEXT,
}


@dataclass(frozen=True)
class PublishOptions:
    """``[publish]``: what the public web map may show and how (docs/publish.md)."""

    #: owner names and mailing addresses on the cards: only when the town opts in
    include_owners: bool = False
    #: display simplification tolerance (ft); None: swm_gis.webmap.job.DEFAULT_SIMPLIFY_FT
    simplify_ft: float | None = None
    #: the page's title; None: "Do I need a stormwater permit? <town>"
    title: str | None = None

#: Keys of [town].
#: ``regulation``: a bundled profile's id or a profile file (swm_gis.config.town_regulation).
TOWN_KEYS: dict[str, Kind] = {"name": TEXT, "crs": TEXT, "synthetic": BOOL,
                              "all_land_drains_to_ms4": BOOL, "regulation": TEXT}

#: Keys of each [layers.KEY]; ``fields`` is checked against the layer's logical fields.
LAYER_KEYS: dict[str, Kind] = {"path": SOURCE, "layer": TEXT_OR_LIST, "crs": TEXT, "fields": TABLE,
                               "coverage": TEXT, "vintage": TEXT, "label": TEXT, "temporary": BOOL}
#: Keys only the parcels layer takes: the right-of-way rule for sources without POLY_TYPE, and
#: the neighbouring towns' sources (``[[layers.parcels.sources]]``, config/layer_sources.py).
PARCEL_KEYS: dict[str, Kind] = {**LAYER_KEYS, "right_of_way": TABLE, "sources": SOURCES}
ASSESS_KEYS: dict[str, Kind] = {**LAYER_KEYS, "sources": SOURCES}
#: Keys only the flood zones take: ``includes_0_2_pct = true`` says the layer maps the
#: 0.2%-annual-chance zone (else it is checked only where the layer holds such zones).
FLOOD_KEYS: dict[str, Kind] = {**LAYER_KEYS, "includes_0_2_pct": BOOL}

#: The HUC levels off-site mitigation can be tied to (watersheds.py reads huc10 / huc12).
HUC_LEVELS = ("HUC10", "HUC12")

#: Kind and range of every rule value; the ranges only keep out values no town could mean.
RULE_KINDS: dict[str, Kind] = {
    "trigger_sqft": finite_range(0, 100 * SQFT_PER_ACRE, unit="sq ft"),
    "abutter_distance_ft": finite_range(0, 5_280, unit="ft"),
    "habitat_distance_ft": finite_range(0, 5_280, unit="ft"),
    "retention_new_in": finite_range(0, 12, unit="inches"),
    "retention_redevelopment_in": finite_range(0, 12, unit="inches"),
    "tss_removal_new": finite_range(0, 1, unit="(a fraction: 0.9 = 90 %)"),
    "tp_removal_new": finite_range(0, 1, unit="(a fraction: 0.6 = 60 %)"),
    "tss_removal_redevelopment": finite_range(0, 1, unit="(a fraction: 0.8 = 80 %)"),
    "tp_removal_redevelopment": finite_range(0, 1, unit="(a fraction: 0.5 = 50 %)"),
    "mitigation_huc_new": one_of(HUC_LEVELS),
    "mitigation_huc_redevelopment": one_of(HUC_LEVELS),
    "no_owner_poly_types": TEXT_LIST,
    "sfha_zones": TEXT_LIST,
    # warn before writing a package for more abutters than this (a town-wide notice, a street)
    "abutter_warning_count": Kind("a whole number of one or more", lambda v: isinstance(v, int)
                                  and not isinstance(v, bool) and v >= 1),
    "small_existing_impervious_share": finite_range(0, 1, unit="(a fraction: 0.05 = 5 %)"),
    # subjects of a --site: share of the parcel covered, or of the site held (docs/abutters.md)
    "site_subject_share": finite_range(0.001, 1, unit="(a fraction: 0.25 = 25 %)"),
    # data validate: least share of ownable parcels with an assessing record
    "owner_join_min_share": finite_range(0, 1, unit="(a fraction: 0.5 = 50 %)"),
}


@dataclass(frozen=True)
class LayerSpec:
    """Where one logical layer lives and how its fields are named in the source."""

    key: str
    path: str  # resolved file path, or a GDAL connection string ("PG:...")
    layer: str | None = None
    crs: str | None = None  # declared CRS for sources that carry none
    fields: dict[str, str | None] = field(default_factory=dict)
    explicit_fields: frozenset[str] = frozenset()  # logical fields the config named itself
    vintage: str | None = None  # the data's date as the config states it (e.g. "FY2014")
    # the area the layer's data is taken to cover (docs/findings.md): "town" (the town
    # boundary and the layer's own extent), "extent" (its own extent only) or "statewide"
    coverage: str = "town"
    #: How outputs name the source beside its path (``label = "..."``), e.g. the QGIS layer a
    #: temporary export came from.
    label: str | None = None
    #: ``temporary = true``: the path is a temporary copy a front end made; outputs name the
    #: layer by its label alone and never print the path (swm_gis.io.sources.source_info)
    temporary: bool = False
    #: A layer read from several sources (``path = [...]``): one spec per source, in config
    #: order; ``path`` is then their paths joined by " + " (for messages and provenance).
    parts: tuple[LayerSpec, ...] = ()
    #: ``[layers.flood_zones] includes_0_2_pct = true``: the layer maps the 0.2% zone.
    includes_0_2_pct: bool = False
    #: The town whose data this source is (set where the layer has ``[[layers.KEY.sources]]``:
    #: the config's own town for its own source, the neighbour's name for each of theirs).
    town: str | None = None
    #: This parcels source's right-of-way rule (``right_of_way = {field, values}``).
    right_of_way: RightOfWayRule | None = None
    #: 1-based number of the ``[[layers.KEY.sources]]`` table this source came from (0: the
    #: layer's own section), for messages
    source_table: int = 0

    @property
    def schema(self) -> LayerSchema:
        return SCHEMAS[self.key]

    @property
    def is_file(self) -> bool:
        return not self.parts and not is_connection_string(self.path)

    @property
    def is_postgis(self) -> bool:
        """A PostgreSQL/PostGIS source (``postgresql://...`` URL or GDAL ``PG:`` string)."""
        return not self.parts and is_postgis_path(self.path)

    @property
    def sources(self) -> tuple[LayerSpec, ...]:
        """The single-source specs this layer is read from (itself, or its ``parts``)."""
        return self.parts or (self,)

    def describe(self) -> str:
        if self.parts:
            return " + ".join(p.describe() for p in self.parts)
        return f"{self.path}:{self.layer}" if self.layer else self.path


@dataclass(frozen=True)
class TownConfig:
    """A town: name, working CRS, rule values and its layers (:func:`load_config` makes one).

    Attributes
    ----------
    name
        The town's name, as the outputs print it.
    crs
        The working CRS (projected), e.g. ``"EPSG:26986"``; every layer is reprojected into it.
    rules
        Rule values (permit trigger, distances, retention depth, ...): Chapter 320's unless the
        config's ``[rules]`` changes them.
    layers
        Layer key (``"parcels"``, ``"assess"``, ``"flood_zones"``, ...) to where it is and how
        its fields map.
    path
        The TOML file the config was read from, if any.
    synthetic
        True for made-up data (the sample town): every output then says so.
    all_land_drains_to_ms4
        ``[town] all_land_drains_to_ms4``: the town states that all of its land drains to its
        MS4, so without an MS4 layer the permit trigger's MS4 condition is taken as met and
        printed as the town's assumption (else the permit finding is conditional on it).
    cache_enabled, cache_dir
        ``[cache]``: whether the town's flow grid and parsed sources are kept on disk
        (:mod:`swm_gis.terrain.cache`, :mod:`swm_gis.io.source_cache`), and where (default: the
        user's cache folder).
    publish
        ``[publish]``: the public web map's options (:class:`PublishOptions`; owner names and
        mailing addresses only with ``include_owners = true``).
    regulation
        ``[town] regulation``: a bundled regulation profile's id or a profile file's resolved
        path; None when the config names none (Lynnfield's profile then applies, with the
        ``regulation_not_named`` warning for any other town).
    rule_overrides
        The ``[rules]`` keys the config sets itself: they override the profile's values.
    """

    name: str
    crs: str
    rules: Rules
    layers: dict[str, LayerSpec]
    path: Path | None = None
    synthetic: bool = False
    all_land_drains_to_ms4: bool = False
    #: [cache]: keep the flow grid and parsed sources on disk (terrain.cache, io.source_cache)
    cache_enabled: bool = True
    cache_dir: str | None = None
    #: [publish]: the public web map's options (owners only on opt-in)
    publish: PublishOptions = field(default_factory=PublishOptions)
    #: [town] regulation: a bundled profile's id or a profile file's resolved path; None: the
    #: config names none (Lynnfield's applies; swm_gis.config.town_regulation)
    regulation: str | None = None
    #: the [rules] keys the config gives itself (they override the profile's values)
    rule_overrides: frozenset[str] = field(default_factory=frozenset)

    def applied_regulation(self, on: Any = None) -> Any:
        """The regulation profile and its version in force on ``on`` (a date or
        ``"YYYY-MM-DD"``; today by default): an :class:`~swm_gis.AppliedRegulation`."""
        from swm_gis.config.town_regulation import applied_regulation

        return applied_regulation(self, on)

    def has(self, key: str) -> bool:
        """Whether the config has a ``[layers.<key>]`` section."""
        return key in self.layers

    def layer(self, key: str) -> LayerSpec:
        """The layer ``key``; a :class:`~swm_gis.errors.ConfigError` if it is not configured."""
        if key not in self.layers:
            raise ConfigError(
                f"The town config {self.path or ''} has no {layer_key(key)} "
                f"section; add one with a path to the {key} layer."
            )
        return self.layers[key]

    @property
    def crs_obj(self) -> CRS:
        """The working CRS as a :class:`pyproj.CRS`."""
        return CRS.from_user_input(self.crs)


def load_config(path: str | Path) -> TownConfig:
    """Read a town config file: TOML, or JSON of the same model (``.json``, what a front end
    writes with ``json.dumps``).

    Parameters
    ----------
    path
        The TOML (or JSON) file; the layer paths inside it are relative to its folder.

    Returns
    -------
    TownConfig
        The town, its working CRS, rule values and layers, checked.

    Raises
    ------
    ConfigError
        The file is missing, is not TOML (JSON), or names an unknown layer, field or rule.
    CrsError
        The working CRS is unknown or geographic.
    """
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"Town config file not found: {path}. Pass "
                          f"{option('config', 'FILE')} with a TOML file.")
    as_json = path.suffix.lower() == ".json"
    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text) if as_json else tomllib.loads(text)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(f"The town config {path} is not valid {'JSON' if as_json else 'TOML'}"
                          f": {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"The town config {path} must be a JSON object of sections.")
    return parse_config(data, base_dir=path.resolve().parent, source=path)


def parse_config(data: dict, *, base_dir: Path, source: Path | None = None) -> TownConfig:
    """Build a :class:`TownConfig` from parsed TOML, resolving paths against ``base_dir``.

    Every section, key and value is checked (unknown ones are refused with a did-you-mean), so a
    typo never silently falls back to a default.
    """
    where = f"the town config {source}" if source else "the town config"
    refuse_unknown(data, SECTIONS, where=where, section="the top level", noun="section")
    town = check_table(data.get("town", {}), where=where, section=config_key("town"))
    if not town.get("name"):
        raise ConfigError(f"{where} has no {config_key('town', 'name')}; add "
                          f'name = "Your Town" under {config_key("town")}.')
    check_values(town, TOWN_KEYS, where=where, section=config_key("town"))
    crs = town.get("crs", "EPSG:26986")
    check_working_crs(crs, where=where)
    regulation = town_regulation.parse_reference(town, base_dir=base_dir, where=where)
    raw_rules = check_table(data.get("rules", {}), where=where, section=config_key("rules"))
    rules = _parse_rules(raw_rules, where, defaults=Rules(**town_regulation.rule_defaults(
        regulation, given=set(raw_rules), where=where)))
    raw_layers = check_table(data.get("layers", {}), where=where, section=config_key("layers"))
    unknown = [k for k in raw_layers if k not in SCHEMAS]
    if unknown:
        hints = "".join(did_you_mean(k, SCHEMAS) for k in unknown[:3])
        raise ConfigError(
            f"{where} names unknown layer(s) {', '.join(unknown)}.{hints} Known layers are "
            f"{', '.join(SCHEMAS)}."
        )
    if "parcels" not in raw_layers:
        raise ConfigError(f"{where} has no {config_key('layers.parcels')}; the parcels layer "
                          "is required.")
    layers = {key: _parse_layer(key, raw, base_dir, where, home_town=town["name"].strip())
              for key, raw in raw_layers.items()}
    parcels = layers["parcels"]
    rules = replace(rules, right_of_way=parcels.right_of_way, right_of_way_sources=tuple(
        (p.describe(), p.right_of_way) for p in parcels.parts))
    enabled, cache_dir = _parse_cache(data.get("cache") or {}, base_dir, where)
    publish = check_table(data.get("publish", {}), where=where, section=config_key("publish"))
    check_values(publish, PUBLISH_KEYS, where=where, section=config_key("publish"))
    return TownConfig(
        name=town["name"].strip(), crs=crs, rules=rules, layers=layers, path=source,
        synthetic=town.get("synthetic", False), cache_enabled=enabled, cache_dir=cache_dir,
        all_land_drains_to_ms4=town.get("all_land_drains_to_ms4", False),
        publish=PublishOptions(
            include_owners=publish.get("include_owners", False),
            simplify_ft=float(publish["simplify_ft"]) if "simplify_ft" in publish else None,
            title=publish["title"].strip() if "title" in publish else None),
        regulation=regulation, rule_overrides=frozenset(raw_rules),
    )


def _parse_cache(raw: dict, base_dir: Path, where: str) -> tuple[bool, str | None]:
    """``[cache] enabled = true|false`` and ``dir = "folder"`` (relative to the config)."""
    unknown = sorted(set(raw) - {"enabled", "dir"}) if isinstance(raw, dict) else ["?"]
    if unknown:
        raise ConfigError(f"{where}: {config_key('cache')} accepts enabled = true|false and "
                          f"dir = \"folder\"; unknown: {', '.join(unknown)}.")
    enabled = raw.get("enabled", True)
    if not isinstance(enabled, bool):
        raise ConfigError(f"{where}: {config_key('cache', 'enabled')} = {enabled!r} must be "
                          "true or false.")
    folder = raw.get("dir")
    if folder is not None and (not isinstance(folder, str) or not folder.strip()):
        raise ConfigError(f"{where}: {config_key('cache', 'dir')} = {folder!r} must be a "
                          'folder path, e.g. "../swm-gis-cache".')
    return enabled, resolve_path(folder, base_dir) if folder else None


def check_working_crs(crs: str, *, where: str = "the town config") -> CRS:
    """Return the CRS object, refusing unknown and geographic CRSs (distances need a plane)."""
    try:
        obj = CRS.from_user_input(crs)
    except PyprojCRSError as exc:
        raise CrsError(f'{where}: unknown CRS "{crs}" in {config_key("town", "crs")} '
                       f"({exc}).") from exc
    if not obj.is_projected:
        raise CrsError(
            f'{where}: the working CRS "{crs}" is geographic (degrees); distances and areas '
            f'need a projected CRS. Set {config_key("town", "crs")} = "EPSG:26986" (NAD83 '
            "Massachusetts Mainland)."
        )
    return obj


def parse_right_of_way(raw: Any, where: str, *, section: str | None = None
                       ) -> RightOfWayRule | None:
    """``[layers.parcels] right_of_way = {field = "ML", values = ["ROAD"]}`` (README "Town
    configuration"), or a neighbour source's (``section`` names its table)."""
    rule = raw.get("right_of_way") if isinstance(raw, dict) else None
    if rule is None:
        return None
    values = rule.get("values") if isinstance(rule, dict) else None
    if isinstance(values, str):
        values = [values]
    if (not isinstance(rule, dict) or set(rule) - {"field", "values"}
            or not isinstance(rule.get("field"), str) or not rule["field"].strip()
            or not isinstance(values, list) or not values
            or not all(isinstance(v, str) and v.strip() for v in values)):
        raise ConfigError(
            f"{where}: {key_in(section or config_key('layers.parcels'), 'right_of_way')} = "
            f"{rule!r} must name a "
            "source field and "
            'the values that mark right-of-way polygons, e.g. right_of_way = {field = "ML", '
            'values = ["ROAD"]}.')
    return RightOfWayRule(field=rule["field"].strip(), values=tuple(v.strip() for v in values))


def _parse_rules(raw: dict, where: str, *, defaults: Rules | None = None) -> Rules:
    """``[rules]`` read over ``defaults`` (the regulation profile's values, else Chapter 320's)."""
    known = list(RULE_KINDS)
    unknown = [k for k in raw if k not in known]
    if unknown:
        hints = "".join(did_you_mean(k, known) for k in unknown[:3])
        raise ConfigError(
            f"{where}: unknown rule(s) {', '.join(unknown)} in {config_key('rules')}.{hints} "
            f"Known: {', '.join(known)}."
        )
    defaults = defaults or Rules()
    values: dict[str, Any] = {}
    for key, value in raw.items():
        want = RULE_KINDS[key].check(value)
        default = getattr(defaults, key)
        if want:
            shown = str(value) if isinstance(value, float) else repr(value)
            raise ConfigError(f"{where}: {config_key('rules', key)} = {shown} must be {want} "
                              "(default, from the regulation profile or swm-gis's built-in "
                              f"rule values: {default!r}).")
        if isinstance(default, float):
            values[key] = float(value)
        elif isinstance(default, tuple):
            values[key] = tuple(v.strip() for v in value)
        elif isinstance(default, int):
            values[key] = int(value)
        else:
            values[key] = value.strip().upper()
    return replace(defaults, **values)


#: Values of ``[layers.KEY] coverage``: what area a layer's data is taken to cover.
COVERAGE_CHOICES = ("town", "extent", "statewide")


def _parse_layer(key: str, raw: Any, base_dir: Path, where: str, *, home_town: str = ""
                 ) -> LayerSpec:
    section = layer_key(key)
    if not isinstance(raw, dict) or not raw.get("path"):
        raise ConfigError(f'{where}: {section} needs path = "..." (a file, zip, database '
                          'connection or GDAL source; or a list of them).')
    check_values(raw, {"parcels": PARCEL_KEYS, "assess": ASSESS_KEYS,
                       "flood_zones": FLOOD_KEYS}.get(key, LAYER_KEYS),
                 where=where, section=section)
    schema = SCHEMAS[key]
    given = raw.get("fields", {})
    check_layer_fields(key, given, schema, where)
    crs, coverage = layer_crs_coverage(raw, section, where)
    rule = parse_right_of_way(raw, where) if key == "parcels" else None  # the town's own
    # An empty string switches an optional default off ("this source has no such field").
    spec = LayerSpec(
        key=key, path="", layer=None, crs=crs, coverage=coverage,
        fields={**schema.fields, **{k: (v.strip() or None) for k, v in given.items()},
                **({RIGHT_OF_WAY_COLUMN: rule.field} if rule is not None else {})},
        explicit_fields=frozenset(k for k, v in given.items() if v.strip()),
        vintage=str(raw["vintage"]) if raw.get("vintage") not in (None, "") else None,
        label=str(raw["label"]).strip() or None if raw.get("label") is not None else None,
        includes_0_2_pct=bool(raw.get("includes_0_2_pct", False)), right_of_way=rule,
        temporary=bool(raw.get("temporary", False)))
    return with_town_sources(with_sources(spec, raw, base_dir, where), raw, base_dir=base_dir,
                             where=where, home_town=home_town, source_fields=_source_fields)


def _source_fields(key: str, raw: dict, section: str, where: str
                   ) -> tuple[dict, frozenset, Any, RightOfWayRule | None]:
    """A neighbour source table's ``(fields, explicit fields, crs, right-of-way rule)``, checked
    as the town's own layer's (``swm_gis.config.layer_sources``)."""
    given = raw.get("fields", {})
    check_layer_fields(key, given, SCHEMAS[key], where)
    crs, _coverage = layer_crs_coverage(raw, section, where)
    rule = parse_right_of_way(raw, where, section=section) if key == "parcels" else None
    fields = {**SCHEMAS[key].fields, **{k: (v.strip() or None) for k, v in given.items()},
              **({RIGHT_OF_WAY_COLUMN: rule.field} if rule is not None else {})}
    explicit = {k for k, v in given.items() if v.strip()} | (
        {RIGHT_OF_WAY_COLUMN} if rule is not None else set())
    return fields, frozenset(explicit), crs, rule


def check_layer_fields(key: str, given: dict, schema: LayerSchema, where: str) -> None:
    """``[layers.KEY.fields]`` names known logical fields, as text, none required left empty."""
    unknown = [k for k in given if k not in schema.fields]
    if unknown:
        hints = "".join(did_you_mean(k, schema.fields) for k in unknown[:3])
        raise ConfigError(
            f"{where}: {layer_key(f'{key}.fields')} names unknown logical field(s) "
            f"{', '.join(unknown)}.{hints} Known for {key}: {', '.join(schema.fields) or 'none'}."
        )
    check_values(given, dict.fromkeys(schema.fields, TEXT_OR_EMPTY), where=where,
                 section=layer_key(f"{key}.fields"))
    required_off = sorted(k for k, v in given.items() if not v.strip()
                          and k in schema.required_fields)
    if required_off:
        raise ConfigError(
            f"{where}: {layer_key(f'{key}.fields')} {', '.join(required_off)} cannot be "
            "empty; the rules need it. Name the source field that holds it."
        )


def layer_crs_coverage(raw: dict, section: str, where: str) -> tuple[Any, str]:
    """A layer's ``crs`` (None, or one pyproj knows) and ``coverage`` (one of the choices)."""
    crs = raw.get("crs")
    if crs is not None:
        try:
            CRS.from_user_input(crs)
        except PyprojCRSError as exc:
            raise CrsError(f'{where}: unknown CRS "{crs}" in {key_in(section, "crs")}.'
                           ) from exc
    coverage = raw.get("coverage", "town")
    if coverage not in COVERAGE_CHOICES:
        raise ConfigError(f'{where}: {key_in(section, "coverage")} = "{coverage}" is not one of '
                          f"{', '.join(COVERAGE_CHOICES)} (docs/findings.md).")
    return crs, coverage

"""The town config is strict: unknown sections and keys are refused with a did-you-mean, and every
value is checked for kind and range, so a typo never silently falls back to a default."""

from dataclasses import fields
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from swm_gis.config.town import LAYER_KEYS, RULE_KINDS, SCHEMAS, TOWN_KEYS, Rules, parse_config
from swm_gis.errors import ConfigError, SwmGisError


def _parse(**sections):
    data = {"town": {"name": "T"}, "layers": {"parcels": {"path": "p.gpkg"}}}
    data.update(sections)
    return parse_config(data, base_dir=Path("/data"))


def test_every_rule_has_a_kind_and_every_kind_a_rule():
    # right_of_way is a Rules field set from [layers.parcels] right_of_way, not a [rules] key;
    # right_of_way_sources from each [[layers.parcels.sources]] right_of_way
    assert set(RULE_KINDS) == {f.name for f in fields(Rules)} - {"right_of_way",
                                                                  "right_of_way_sources"}


@pytest.mark.parametrize(("data", "fragment"), [
    ({"rule": {"abutter_distance_ft": 300}}, 'unknown section(s) rule in the top level. '
                                             'Did you mean "rules"?'),
    ({"layer": {}}, 'Did you mean "layers"?'),
    ({"town": {"name": "T", "nmae": "X"}}, 'unknown key(s) nmae in [town]. Did you mean "name"?'),
    ({"town": {"name": "T", "CRS": "EPSG:26986"}}, 'Did you mean "crs"?'),
    ({"rules": {"abuter_distance_ft": 1}},
     'unknown rule(s) abuter_distance_ft in [rules]. Did you mean "abutter_distance_ft"?'),
    ({"layers": {"parcels": {"path": "p"}, "town_boundary": {"path": "p", "layr": "tb"}}},
     'unknown key(s) layr in [layers.town_boundary]. Did you mean "layer"?'),
    ({"layers": {"parcels": {"path": "p", "field": {"id": "X"}}}}, 'Did you mean "fields"?'),
    ({"layers": {"parcel": {"path": "p"}}}, 'unknown layer(s) parcel. Did you mean "parcels"?'),
    ({"layers": {"parcels": {"path": "p", "fields": {"idd": "X"}}}},
     'unknown logical field(s) idd. Did you mean "id"?'),
], ids=["rule-section", "layer-section", "town-key", "town-key-case", "rule-key", "layr",
        "field-section", "layer-name", "logical-field"])
def test_unknown_names_are_refused_with_a_did_you_mean(data, fragment):
    with pytest.raises(ConfigError) as info:
        _parse(**data)
    assert fragment in str(info.value)


@pytest.mark.parametrize(("data", "fragment"), [
    ({"town": "Sampleton"}, "[town] must be a table"),
    ({"town": {"name": 12}}, "[town] name = 12 must be a text value"),
    ({"town": {"name": "T", "crs": 26986}}, "[town] crs = 26986 must be a text value"),
    ({"town": {"name": "T", "synthetic": "yes"}}, "[town] synthetic = 'yes' must be true or false"),
    ({"rules": [1, 2]}, "[rules] must be a table"),
    ({"layers": {"parcels": "p.gpkg"}}, '[layers.parcels] needs path = "..."'),
    ({"layers": {"parcels": {"path": 5}}}, "[layers.parcels] path = 5 must be a file or GDAL"),
    ({"layers": {"parcels": {"path": ["a.gpkg", 3]}}}, "path = ['a.gpkg', 3] must be"),
    ({"layers": {"parcels": {"path": "p", "layer": 1}}}, "[layers.parcels] layer = 1 must be a te"),
    ({"layers": {"parcels": {"path": "p", "fields": {"id": 7}}}},
     "[layers.parcels.fields] id = 7 must be a text value"),
    ({"layers": {"parcels": {"path": "p", "fields": "LOC_ID"}}},
     "[layers.parcels] fields = 'LOC_ID' must be a table"),
    ({"layers": {"parcels": {"path": "p", "fields": {"id": "  "}}}}, "id cannot be empty"),
], ids=["town-string", "name-int", "crs-int", "synthetic-text", "rules-list", "layer-string",
        "path-int", "path-list-int", "layer-int", "field-int", "fields-string", "id-blank"])
def test_values_of_the_wrong_kind_are_refused(data, fragment):
    with pytest.raises(ConfigError) as info:
        _parse(**data)
    assert fragment in str(info.value)


@pytest.mark.parametrize(("key", "value", "fragment"), [
    ("abutter_distance_ft", float("inf"), "abutter_distance_ft = inf must be a finite number "
                                          "from 0 to 5280 ft"),
    ("abutter_distance_ft", float("nan"), "= nan must be a finite number"),
    ("habitat_distance_ft", -1, "= -1 must be a finite number from 0 to 5280 ft"),
    ("trigger_sqft", 1e12, "must be a finite number from 0 to 4.356e+06 sq ft"),
    ("tss_removal_new", 90, "tss_removal_new = 90 must be a finite number from 0 to 1"),
    ("retention_new_in", True, "must be a finite number"),
    ("mitigation_huc_new", "HUC99", 'mitigation_huc_new = \'HUC99\' must be one of "HUC10", '
                                    '"HUC12"'),
    ("mitigation_huc_redevelopment", 10, 'must be one of "HUC10"'),
    ("sfha_zones", ["AE", ""], "must be a list of text values"),
])
def test_rule_values_are_type_and_range_checked(key, value, fragment):
    with pytest.raises(ConfigError) as info:
        _parse(rules={key: value})
    assert fragment in str(info.value)
    assert ("(default, from the regulation profile or swm-gis's built-in rule values: "
            in str(info.value))


def test_accepted_values_are_normalised():
    cfg = _parse(rules={"mitigation_huc_new": "huc10", "abutter_distance_ft": 300},
                 town={"name": "  Lynnfield ", "synthetic": True},
                 layers={"parcels": {"path": ["p.gpkg"], "fields": {"id": " MY_ID "}}})
    assert cfg.rules.mitigation_huc_new == "HUC10"
    assert cfg.rules.abutter_distance_ft == 300.0 and isinstance(cfg.rules.abutter_distance_ft,
                                                                 float)
    assert cfg.name == "Lynnfield" and cfg.synthetic is True
    assert cfg.layers["parcels"].path == "/data/p.gpkg"
    assert cfg.layers["parcels"].fields["id"] == "MY_ID"


def test_a_list_of_sources_is_one_layer_and_a_bad_list_is_refused():
    cfg = _parse(layers={"parcels": {"path": ["a.gpkg", "b.gpkg"]}})
    assert [p.path.rsplit("/", 1)[-1] for p in cfg.layer("parcels").parts] == ["a.gpkg", "b.gpkg"]
    with pytest.raises(ConfigError, match="must be a file or GDAL source"):
        _parse(layers={"parcels": {"path": ["a.gpkg", ""]}})
    with pytest.raises(ConfigError, match="one layer name per path"):
        _parse(layers={"parcels": {"path": ["a.gpkg", "b.gpkg"], "layer": ["x"]}})


def test_the_key_tables_name_what_the_config_reads():
    assert set(TOWN_KEYS) == {"name", "crs", "synthetic", "all_land_drains_to_ms4", "regulation"}
    assert {"path", "layer", "crs", "fields"} <= set(LAYER_KEYS)


# --------------------------------------------------------------------------- property
_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-10**12, 10**12),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12),
    st.lists(st.one_of(st.integers(), st.text(max_size=5)), max_size=3),
)
_keys = st.one_of(
    st.sampled_from(["name", "crs", "path", "layer", "fields", "id", "synthetic",
                     *RULE_KINDS, *SCHEMAS]),
    st.text(min_size=1, max_size=10),
)
_values = st.recursive(_scalars, lambda inner: st.dictionaries(_keys, inner, max_size=4),
                       max_leaves=12)
_base = {"town": {"name": "T"}, "layers": {"parcels": {"path": "p.gpkg"}}}
#: Where a draw puts its key: a path of tables from the top of the config.
_PLACES = {"top": (), "town": ("town",), "rules": ("rules",), "layers": ("layers",),
           "parcels": ("layers", "parcels"), "fields": ("layers", "parcels", "fields")}


def _table(data: dict, path: tuple[str, ...]) -> dict | None:
    """The table at ``path`` (an empty one made where it is missing), or None where an earlier
    draw put something else than a table on the way (``fields = None``, ``layers = 3``): that
    place is broken already, and this draw goes nowhere rather than raising inside the
    generator."""
    table = data
    for key in path:
        table = table.setdefault(key, {})
        if not isinstance(table, dict):
            return None
    return table


@st.composite
def _broken_configs(draw):
    """A valid config with one to three places replaced by random values."""
    import copy

    data = copy.deepcopy(_base)
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.sampled_from(sorted(_PLACES)))
        key, value = draw(_keys), draw(_values)
        table = _table(data, _PLACES[where])
        if table is not None:
            table[key] = value
    return data


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_broken_configs())
def test_random_broken_configs_never_raise_anything_but_a_clear_user_error(data):
    try:
        cfg = parse_config(data, base_dir=Path("/data"))
    except SwmGisError as exc:
        message = str(exc)
        assert message and "Traceback" not in message
        assert "the town config" in message
        return
    # Accepted: then every value it holds is of the promised kind.
    assert isinstance(cfg.name, str) and cfg.name
    for f in fields(Rules):
        if f.name not in RULE_KINDS:  # right_of_way comes from [layers.parcels], not [rules]
            continue
        assert RULE_KINDS[f.name].check(
            list(getattr(cfg.rules, f.name)) if isinstance(getattr(cfg.rules, f.name), tuple)
            else getattr(cfg.rules, f.name)) is None
    for spec in cfg.layers.values():
        assert isinstance(spec.path, str)
        assert all(v is None or isinstance(v, str) for v in spec.fields.values())

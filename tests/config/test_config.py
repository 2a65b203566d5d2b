from pathlib import Path

import pytest

from swm_gis.config.town import Rules, load_config, parse_config
from swm_gis.errors import ConfigError, CrsError, SwmGisError
from swm_gis.units import SQFT_PER_ACRE


def _cfg(**town):
    return {"town": {"name": "T", **town}, "layers": {"parcels": {"path": "p.gpkg"}}}


def test_rule_defaults_are_chapter_320_values():
    r = Rules()
    assert r.trigger_sqft == 43_560 == SQFT_PER_ACRE
    assert r.abutter_distance_ft == 100
    assert r.habitat_distance_ft == 500
    assert (r.retention_new_in, r.retention_redevelopment_in) == (1.0, 0.8)
    assert (r.tss_removal_new, r.tp_removal_new) == (0.90, 0.60)
    assert (r.tss_removal_redevelopment, r.tp_removal_redevelopment) == (0.80, 0.50)
    assert (r.mitigation_huc_new, r.mitigation_huc_redevelopment) == ("HUC12", "HUC10")
    assert r.no_owner_poly_types == ("ROW", "PRIV_ROW", "RAIL_ROW", "WATER")
    assert {"A", "AE", "A1", "A30", "AH", "AO", "A99", "AR", "V", "V30", "VE"} <= set(r.sfha_zones)
    assert "X" not in r.sfha_zones


def test_paths_resolve_relative_to_config_and_fields_default_to_massgis(tmp_path):
    cfg = parse_config(
        {"town": {"name": "T"},
         "layers": {"parcels": {"path": "sub/p.gpkg", "fields": {"id": "MY_ID"}},
                    "flood_zones": {"path": "PG:dbname=x", "layer": "s_fld_haz_ar"}}},
        base_dir=tmp_path,
    )
    assert cfg.crs == "EPSG:26986"
    p = cfg.layers["parcels"]
    assert p.path == str(tmp_path / "sub" / "p.gpkg")
    assert p.fields["id"] == "MY_ID" and p.fields["map_par_id"] == "MAP_PAR_ID"
    assert p.explicit_fields == frozenset({"id"})
    assert cfg.layers["flood_zones"].path == "PG:dbname=x"
    assert cfg.layers["flood_zones"].fields["bfe"] == "STATIC_BFE"


def test_empty_field_name_switches_an_optional_default_off():
    cfg = parse_config({"town": {"name": "T"}, "layers": {
        "parcels": {"path": "p"},
        "assess": {"path": "a.dbf", "fields": {"co_owner": "", "country": "OWN_CO"}}}},
        base_dir=Path("."))
    spec = cfg.layers["assess"]
    assert spec.fields["co_owner"] is None and spec.fields["country"] == "OWN_CO"
    assert spec.explicit_fields == frozenset({"country"})
    with pytest.raises(ConfigError, match=r"\[layers.assess.fields\] owner cannot be empty"):
        parse_config({"town": {"name": "T"}, "layers": {
            "parcels": {"path": "p"}, "assess": {"path": "a", "fields": {"owner": ""}}}},
            base_dir=Path("."))


def test_rules_override():
    cfg = parse_config({**_cfg(), "rules": {"abutter_distance_ft": 300,
                                            "no_owner_poly_types": ["ROW"]}}, base_dir=Path("."))
    assert cfg.rules.abutter_distance_ft == 300.0
    assert cfg.rules.no_owner_poly_types == ("ROW",)
    assert cfg.rules.habitat_distance_ft == 500


@pytest.mark.parametrize(("key", "value"), [
    ("abutter_distance_ft", "100 ft"), ("trigger_sqft", -1), ("retention_new_in", True),
    ("no_owner_poly_types", "ROW"), ("mitigation_huc_new", 12),
])
def test_rule_values_of_the_wrong_kind_are_refused(key, value):
    with pytest.raises(ConfigError, match=rf"\[rules\] {key} = .* must be"):
        parse_config({**_cfg(), "rules": {key: value}}, base_dir=Path("."))


@pytest.mark.parametrize(
    ("data", "error", "fragment"),
    [
        ({"town": {"name": "T", "crs": "EPSG:4326"}, "layers": {"parcels": {"path": "p"}}},
         CrsError, "geographic"),
        ({"town": {"name": "T", "crs": "EPSG:999999"}, "layers": {"parcels": {"path": "p"}}},
         CrsError, "unknown CRS"),
        ({"town": {"name": "T"}, "layers": {}}, ConfigError, "[layers.parcels]"),
        ({"town": {}, "layers": {"parcels": {"path": "p"}}}, ConfigError, "[town] name"),
        ({"town": {"name": "T"}, "layers": {"parcel": {"path": "p"}}}, ConfigError,
         "unknown layer(s) parcel"),
        ({"town": {"name": "T"}, "layers": {"parcels": {"path": "p", "fields": {"idd": "X"}}}},
         ConfigError, "unknown logical field(s) idd"),
        ({"town": {"name": "T"}, "rules": {"abuter_distance_ft": 1},
          "layers": {"parcels": {"path": "p"}}}, ConfigError, "unknown rule(s) abuter_distance_ft"),
        ({"town": {"name": "T"}, "layers": {"parcels": {}}}, ConfigError, "needs path"),
    ],
    ids=["geographic", "unknown-crs", "no-parcels", "no-name", "unknown-layer", "unknown-field",
         "unknown-rule", "no-path"],
)
def test_bad_configs_are_refused_with_specific_messages(data, error, fragment):
    with pytest.raises(error) as info:
        parse_config(data, base_dir=Path("."))
    assert fragment in str(info.value)
    assert isinstance(info.value, SwmGisError) and isinstance(info.value, ValueError)


def test_load_config_missing_and_not_toml(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "nope.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[town\nname=", encoding="utf-8")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(bad)


def test_lynnfield_and_cambridge_configs_parse():
    repo = Path(__file__).resolve().parents[2]
    cam = load_config(repo / "data" / "cambridge.toml")
    assert cam.layers["parcels"].crs == "EPSG:4326"
    assert cam.layers["assess"].fields["parcel_id"] == "GISID"
    lyn = load_config(repo / "data" / "lynnfield.toml")  # points at the MassGIS downloads
    assert lyn.name.startswith("Lynnfield")
    assert "M164TaxPar" in lyn.layers["parcels"].path
    assert lyn.layers["assess"].fields["co_owner"] is None  # OWN_CO is the country in L3
    assert lyn.layers["assess"].fields["country"] == "OWN_CO"

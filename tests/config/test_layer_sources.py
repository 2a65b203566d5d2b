"""``[[layers.parcels.sources]]`` / ``[[layers.assess.sources]]``: each neighbouring town's
source with its own path, layer, fields, CRS, right-of-way rule and town; bad tables refused
with the key to fix (swm_gis/config/layer_sources.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from swm_gis.config.town import parse_config
from swm_gis.errors import ConfigError, CrsError
from swm_gis.messages import api_text

BASE = Path("/data")


def config(parcels: dict, assess: dict | None = None):
    layers = {"parcels": {"path": "own.gpkg", **parcels}}
    if assess is not None:
        layers["assess"] = {"path": "own_assess.csv", **assess}
    return parse_config({"town": {"name": "Lynnfield"}, "layers": layers}, base_dir=BASE)


def test_sources_are_parts_after_the_towns_own_each_with_its_own_settings():
    cfg = config({
        "right_of_way": {"field": "ML", "values": ["ROAD"]},
        "sources": [
            {"path": "../peabody/M229TaxPar.shp", "town": "Peabody", "crs": "EPSG:2249",
             "fields": {"id": "PID"},
             "right_of_way": {"field": "ROADTYPE", "values": ["STREET", "RAIL"]}},
            {"path": "lynn.gpkg", "layer": "parcels", "town": "Lynn"},
        ]})
    own, peabody, lynn = cfg.layer("parcels").parts
    assert [p.town for p in (own, peabody, lynn)] == ["Lynnfield", "Peabody", "Lynn"]
    assert [p.path for p in (own, peabody, lynn)] == [
        "/data/own.gpkg", "/peabody/M229TaxPar.shp", "/data/lynn.gpkg"]
    assert (peabody.fields["id"], lynn.fields["id"]) == ("PID", "LOC_ID")
    assert (own.crs, peabody.crs, lynn.crs) == (None, "EPSG:2249", None)
    assert lynn.layer == "parcels"
    # each its own right-of-way rule: the town's own ML = ROAD, Peabody's ROADTYPE, Lynn none
    assert own.fields["right_of_way"] == "ML" and peabody.fields["right_of_way"] == "ROADTYPE"
    assert "right_of_way" not in lynn.fields
    assert [(src, rule and rule.field) for src, rule in cfg.rules.right_of_way_sources] == [
        (own.describe(), "ML"), (peabody.describe(), "ROADTYPE"), (lynn.describe(), None)]
    assert cfg.rules.right_of_way.field == "ML"


def test_assess_sources_have_their_own_field_names():
    cfg = config({}, {"sources": [{"path": "peabody.csv", "town": "Peabody",
                                   "fields": {"parcel_id": "PARCEL", "owner": "OWNER"}}]})
    own, peabody = cfg.layer("assess").parts
    assert (own.fields["owner"], peabody.fields["owner"]) == ("OWNER1", "OWNER")
    assert peabody.explicit_fields == {"parcel_id", "owner"}


def test_a_path_list_keeps_the_towns_right_of_way_rule_on_every_path():
    cfg = config({"path": ["a.gpkg", "b.gpkg"], "right_of_way": {"field": "ML",
                                                                 "values": ["ROAD"]}})
    assert [p.fields["right_of_way"] for p in cfg.layer("parcels").parts] == ["ML", "ML"]


@pytest.mark.parametrize(("parcels", "needle"), [
    ({"sources": [{"path": "p.shp"}]}, "(source 1) needs town = \"Peabody\""),
    ({"sources": [{"town": "Peabody"}]}, "(source 1) needs path = "),
    ({"sources": [{"path": "p.shp", "town": "P", "twon": "x"}]}, 'Did you mean "town"?'),
    ({"sources": [{"path": "p.shp", "town": "P", "fields": {"idd": "PID"}}]},
     'Did you mean "id"?'),
    ({"sources": [{"path": "p.shp", "town": "P", "right_of_way": {"field": "X"}}]},
     "right_of_way"),
    ({"sources": "p.shp"}, "an array of tables"),
    ({"sources": []}, "an array of tables"),
])
def test_bad_source_tables_are_refused_naming_the_key(parcels, needle):
    with pytest.raises(ConfigError) as err:
        config(parcels)
    assert needle in api_text(str(err.value))


def test_a_sources_crs_is_checked():
    with pytest.raises(CrsError, match="EPSG:99999"):
        config({"sources": [{"path": "p.shp", "town": "P", "crs": "EPSG:99999"}]})


def test_only_parcels_and_assess_take_sources():
    with pytest.raises(ConfigError, match="sources"):
        parse_config({"town": {"name": "T"}, "layers": {
            "parcels": {"path": "p.gpkg"},
            "streets": {"path": "s.gpkg", "sources": [{"path": "x", "town": "Y"}]}}},
            base_dir=BASE)

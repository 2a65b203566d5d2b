"""``[town] regulation``: which profile a town config applies, the rule values it brings, and the
``regulation_not_named`` warning of a config that names none (issue 33)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path
from types import SimpleNamespace

import pytest
from support.regulation_variant import variant_profile
from support.townkit import CAMBRIDGE_CONFIG, SAMPLE_CONFIG

from swm_gis.config.town import Rules, load_config, parse_config
from swm_gis.config.town_regulation import NOT_NAMED_CODE, not_named_warning
from swm_gis.errors import ConfigError


def _parse(town: dict, rules: dict | None = None, base_dir: Path = Path("/data")):
    data = {"town": {"name": "T", **town}, "layers": {"parcels": {"path": "p.gpkg"}}}
    if rules is not None:
        data["rules"] = rules
    return parse_config(data, base_dir=base_dir)


# --------------------------------------------------------------------------- the key
def test_a_bundled_id_is_named_and_its_profile_applied():
    cfg = _parse({"regulation": "westwood-ch350"})
    assert cfg.regulation == "westwood-ch350"
    applied = cfg.applied_regulation("2026-05-01")
    assert (applied.profile.id, applied.version.effective, applied.on) == (
        "westwood-ch350", dt.date(2015, 5, 4), dt.date(2026, 5, 1))


def test_an_unknown_id_is_refused_naming_the_key_the_bundled_ids_and_the_nearest():
    with pytest.raises(ConfigError) as info:
        _parse({"regulation": "westwod-ch350"})
    text = str(info.value)
    assert '[town] regulation = "westwod-ch350" is not a bundled regulation profile.' in text
    assert 'Did you mean "westwood-ch350"?' in text
    assert "Bundled: lynnfield-ch320, north-andover-ch250, westwood-ch350" in text


@pytest.mark.parametrize("value", [12, "", ["lynnfield-ch320"]])
def test_a_regulation_that_is_not_text_is_refused(value):
    with pytest.raises(ConfigError, match=r"\[town\] regulation"):
        _parse({"regulation": value})


def test_a_path_is_relative_to_the_config_and_must_be_a_valid_profile(tmp_path):
    variant_profile(tmp_path)
    cfg = _parse({"regulation": "othertown.toml"}, base_dir=tmp_path)
    assert cfg.regulation == str((tmp_path / "othertown.toml").resolve())
    assert cfg.applied_regulation().profile.town == "Othertown"
    with pytest.raises(ConfigError, match="no such profile file"):
        _parse({"regulation": "missing.toml"}, base_dir=tmp_path)
    (tmp_path / "broken.toml").write_text("format = 1\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"names a profile that is not valid: .*id is missing"):
        _parse({"regulation": "broken.toml"}, base_dir=tmp_path)


# --------------------------------------------------------------------------- rule values
def test_lynnfield_s_profile_gives_exactly_the_built_in_rules():
    # the profile holds Chapter 320's figures: 43,560 sq ft, 100 ft, 500 ft, 1.0 / 0.8 in, ...
    assert _parse({"regulation": "lynnfield-ch320"}).rules == Rules()
    assert _parse({}).rules == Rules()


def test_the_profile_s_figures_are_the_rule_defaults_and_rules_still_override(tmp_path):
    variant_profile(tmp_path)
    cfg = _parse({"regulation": "othertown.toml"}, base_dir=tmp_path)
    # trigger 20,000 sq ft, retention 1.5 in, notice 300 ft from the variant; the rest Lynnfield's
    assert (cfg.rules.trigger_sqft, cfg.rules.retention_new_in,
            cfg.rules.abutter_distance_ft) == (20_000.0, 1.5, 300.0)
    assert cfg.rules.retention_redevelopment_in == 0.8
    over = _parse({"regulation": "othertown.toml"},
                  {"trigger_sqft": 30_000, "abutter_distance_ft": 150}, base_dir=tmp_path)
    assert (over.rules.trigger_sqft, over.rules.abutter_distance_ft,
            over.rules.retention_new_in) == (30_000.0, 150.0, 1.5)
    assert over.rule_overrides == {"trigger_sqft", "abutter_distance_ft"}


def test_westwood_s_trigger_is_its_permit_tier_and_what_it_leaves_out_stays_built_in():
    rules = _parse({"regulation": "westwood-ch350"}).rules
    # the permit tier: one-half acre = 43,560 / 2 = 21,780 sq ft; no standards in the profile
    assert rules.trigger_sqft == 21_780.0
    assert dataclasses.replace(rules, trigger_sqft=Rules().trigger_sqft) == Rules()


# --------------------------------------------------------------------------- the warning
@pytest.mark.parametrize(("name", "warned"), [
    ("Lynnfield", False), ("Town of Lynnfield, MA", False), ("Cambridge", True), ("T", True)])
def test_a_config_naming_no_regulation_is_warned_unless_it_is_lynnfield(name, warned):
    cfg = _parse({"name": name})
    warning = not_named_warning(cfg)
    assert (warning is not None) is warned
    if warned:
        assert warning["code"] == NOT_NAMED_CODE == "regulation_not_named"
        assert warning["text"].startswith(f"The town config for {name} names no regulation, so "
                                          "the Town of Lynnfield Stormwater Management Rules "
                                          "and Regulations (Chapter 320) (profile "
                                          "lynnfield-ch320) was applied")
    assert not_named_warning(_parse({"name": name, "regulation": "lynnfield-ch320"})) is None


def test_the_sample_town_and_the_cambridge_config_name_their_regulation():
    for path in (SAMPLE_CONFIG, CAMBRIDGE_CONFIG):
        cfg = load_config(path)
        assert cfg.regulation == "lynnfield-ch320", path
        assert not_named_warning(cfg) is None


def test_the_applicability_summary_carries_the_warning_once():
    import pandas as pd

    from swm_gis.summaries import applicability_lines

    summary = pd.DataFrame({"huc12": ["all"], "parcels": [3], "area_acres": [1.5],
                            "screening_class": ["can reach the trigger"]})
    unnamed = SimpleNamespace(summary=summary, parcels=3, engine="local", tiles=1, checks=[],
                              config=_parse({"name": "Cambridge"}))
    lines = applicability_lines(unnamed)
    assert [x for x in lines if x.startswith("Warning (")] == [
        "Warning (regulation_not_named): " + not_named_warning(unnamed.config)["text"]]
    named = SimpleNamespace(**{**vars(unnamed), "config": _parse({
        "name": "Cambridge", "regulation": "lynnfield-ch320"})})
    assert not [x for x in applicability_lines(named) if x.startswith("Warning (")]

"""Regulation profiles (swm_gis.config.regulation): the bundled ones load and match the JSON
Schema, the strict reader names the key at fault, and the version in force follows the dates."""

from __future__ import annotations

import copy
import datetime as dt
import json
import tomllib
from pathlib import Path

import jsonschema
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from swm_gis.config.regulation import (
    BUNDLED_DIR,
    bundled_ids,
    load_regulation,
    parse_regulation,
    read_raw,
    read_regulation,
)
from swm_gis.config.regulation_keys import json_schema
from swm_gis.errors import RegulationError, SwmGisError

SCHEMA_FILE = Path(__file__).resolve().parents[2] / "swm_gis" / "schemas" / \
    "regulation.schema.json"


def _jsonable(value):
    """TOML dates as JSON Schema sees them (``format: date`` strings)."""
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    return value.isoformat() if isinstance(value, dt.date) else value


def _westwood() -> dict:
    return read_raw(BUNDLED_DIR / "westwood-ch350.toml")


def _parse(raw: dict):
    return parse_regulation(raw, path=BUNDLED_DIR / "edited.toml")


def test_three_real_towns_are_bundled():
    assert bundled_ids() == ["lynnfield-ch320", "north-andover-ch250", "westwood-ch350"]


@pytest.mark.parametrize("profile_id", bundled_ids())
def test_each_bundled_profile_reads_strictly_and_matches_the_json_schema(profile_id):
    raw = read_raw(BUNDLED_DIR / f"{profile_id}.toml")
    jsonschema.Draft202012Validator(json.loads(SCHEMA_FILE.read_text())).validate(_jsonable(raw))
    profile = read_regulation(profile_id)
    assert profile.id == profile_id and profile.versions and profile.versions[0].tiers
    assert profile.bundled and profile.source_url.startswith("https://")


def test_the_shipped_schema_is_the_one_the_key_table_writes():
    assert json.loads(SCHEMA_FILE.read_text(encoding="utf-8")) == json_schema()


@pytest.mark.parametrize("profile_id", ["westwood-ch350", "north-andover-ch250"])
def test_other_towns_ship_no_quoted_text_and_say_what_they_do_not_cover(profile_id):
    profile = read_regulation(profile_id)
    assert profile.text is None and profile.quotes is None
    assert len(profile.not_covered) >= 3 and profile.retrieved == dt.date(2026, 12, 3)


def test_the_json_schema_refuses_what_the_strict_reader_refuses():
    validator = jsonschema.Draft202012Validator(json_schema())
    raw = _jsonable(_westwood())
    raw["versions"][0]["applicability"]["tiers"][0]["disturbed_area_sqft"] = "5000"
    assert not validator.is_valid(raw)
    raw = _jsonable(_westwood())
    raw["offices"]["permit_autority"] = "x"
    assert not validator.is_valid(raw)


# --------------------------------------------------------------------------- Lynnfield
def test_lynnfield_holds_the_figures_and_citations_the_code_uses_today():
    """The profile must let a later session make every output read it with the same bytes: its
    figures and citations are the code's, compared here one by one."""
    from swm_gis.config.town import Rules
    from swm_gis.rules import abutters, habitats
    from swm_gis.rules.citations import default_citations, rule_citations
    from swm_gis.rules.timeline import permit_timeline
    from swm_gis.screening.wording import FINDING_KEYS, wording_for

    v = read_regulation("lynnfield-ch320").versions[0]
    rules = Rules()
    assert v.tiers[0].disturbed_area_sqft == 43_560 == rules.trigger_sqft
    assert v.section("resources")["nhesp_distance_ft"] == rules.habitat_distance_ft == 500
    assert (v.new_development.retention_depth_in, v.redevelopment.retention_depth_in) == (
        rules.retention_new_in, rules.retention_redevelopment_in) == (1.0, 0.8)
    assert (v.new_development.tss_removal, v.new_development.tp_removal,
            v.redevelopment.tss_removal, v.redevelopment.tp_removal) == (
        rules.tss_removal_new, rules.tp_removal_new, rules.tss_removal_redevelopment,
        rules.tp_removal_redevelopment) == (0.90, 0.60, 0.80, 0.50)
    assert (v.new_development.mitigation_huc, v.redevelopment.mitigation_huc) == (
        rules.mitigation_huc_new, rules.mitigation_huc_redevelopment) == ("HUC12", "HUC10")
    assert v.section("notice")["distance_ft"] == rules.abutter_distance_ft == 100
    # the exemptions the screening accepts are the profile's, ids and citations as before
    assert {e.key: e.citation for e in v.exemptions} == {
        "npdes-waived": "Bylaw 213-16B(1)", "agriculture": "Bylaw 213-16B(2)",
        "landscaping": "Bylaw 213-16B(3)", "fencing": "Bylaw 213-16B(4)",
        "utilities": "Bylaw 213-16B(5)", "wetlands-order": "Bylaw 213-16B(6)"}
    assert default_citations().exemption_list == {e.key: (e.citation, e.activity)
                                                  for e in v.exemptions}
    assert default_citations().exemptions_label() == "Bylaw 213-16B"  # the report's label
    # the rules' citations (swm_gis.rules.citations) are the profile's, as printed before
    cites = rule_citations(load_regulation("lynnfield-ch320"))
    assert (cites.trigger, cites.exemptions, cites.permit_required, cites.definitions) == (
        "General Bylaws Chapter 213, Article II (quoted in Chapter 320, applicability, "
        "Subsection A)", "Bylaw 213-16B (Chapter 320, applicability, Subsection B)",
        "Chapter 320, permit procedure, A",
        "Chapter 320 definitions of new development and redevelopment; § 320-19 B(7) and B(8)")
    assert (cites.retention(), cites.mitigation_both(" and "), cites.mitigation_of("HUC8"),
            cites.roadway_sub(), cites.part("new", "b")) == (
        "§ 320-19 B(7)(b), B(8)(b)", "§ 320-19 B(7)(d) and B(8)(d)", "§ 320-19 B(7)(d)/B(8)(d)",
        "B(8)(e)", " (B(7)(b))")
    # the findings now read these citations (swm_gis.screening.wording), every key given
    words = wording_for(load_regulation("lynnfield-ch320"))
    assert {k: words.citation(k) for k in FINDING_KEYS} == {k: v.citation(k)
                                                           for k in FINDING_KEYS}
    assert (cites.notice, cites.certification) == (
        "Chapter 320, permit procedure, A(7)", "Chapter 320, permit procedure, A(2)")
    assert v.section("notice")["method"] == abutters.MAIL_METHOD
    assert v.citation("timeline") == "Ch. 320, permit procedure"
    steps = {k: step["citation"] for k, step in v.section("timeline")["steps"].items()}
    assert steps == {s.key: s.section for s in permit_timeline(dt.date(2027, 4, 1))}
    # the citations the resource findings and the web map print today
    resources = v.section("resources")
    assert (resources["nhesp_citation"], resources["floodplain_citation"],
            resources["impaired_citation"]) == (
        "§ " + habitats.SECTION, "§ 320-19 A(8); § 320-20 A(3)(a)", "§ 320-19 B(10)")
    assert cites.mitigation == {"HUC12": "§ 320-19 B(7)(d)", "HUC10": "§ 320-19 B(8)(d)"}
    assert v.section("applicability")["ms4_citation"] == "Chapter 320, applicability A"


def test_lynnfield_texts_are_the_ones_the_code_prints_today():
    from swm_gis.applicability.overlays import OUTSIDE_CLASS
    from swm_gis.applicability.sections import flag_sections
    from swm_gis.rules.timeline import permit_timeline
    from swm_gis.screening.ms4 import MS4_WORDS
    from swm_gis.screening.wording import wording_for

    texts = read_regulation("lynnfield-ch320").texts_table()
    assert dict(texts["timeline"]) == {s.key: s.rule
                                       for s in permit_timeline(dt.date(2027, 4, 1))}
    # the findings print the profile's notes (swm_gis.screening.wording); those still in
    # code are the same bytes
    notes = dict(texts["notes"])
    assert (notes["exemption_7"], notes["habitat_plan"], notes["habitat_prevent"]) == (
        "Chapter 320 (applicability B) introduces a seventh Bylaw 213-16B exemption after (6), "
        "but its text is cut off in the copy of the regulation used by this tool; it cannot be "
        "claimed here. Read the adopted text.",
        "NHESP Priority Habitats, Estimated Habitats and Certified Vernal Pools within 500 ft "
        "of any construction activity must be shown on the erosion and sediment control plan "
        "(§ 320-20 A(3)(c)).",
        "Significant alteration of these habitats must be prevented (§ 320-20 B(12)).")
    assert notes["ms4_words"] == MS4_WORDS
    words = wording_for(load_regulation("lynnfield-ch320"))
    assert {k: words.note(k) for k in notes} == notes
    # the applicability map's flag sections read them (swm_gis.applicability.sections)
    assert dict(texts["applicability"]) == {
        **flag_sections(load_regulation("lynnfield-ch320")), "outside_class": OUTSIDE_CLASS}
    assert texts["applicability"]["huc12"] == (
        "§ 320-19 B(7)(d): off-site mitigation for new development within the same HUC12")
    assert read_regulation("westwood-ch350").texts_table() == {}


def test_lynnfield_names_its_offices_and_the_day_counts_of_its_procedure():
    p = read_regulation("lynnfield-ch320")
    assert (p.offices.public_works, p.offices.registry_of_deeds, p.offices.town_clerk) == (
        "Lynnfield Department of Public Works", "Essex County Registry of Deeds", "Town Clerk")
    t = p.versions[0].section("timeline")
    assert (t["hearing_within_days"], t["decision_within_days"], t["permit_term_years"],
            t["renewals"], t["renewal_years"], t["renewal_request_days_before_expiry"]) == (
        21, 21, 3, 1, 1, 30)
    n = p.versions[0].section("notice")
    assert (n["days_before_hearing"], n["day_kind"], n["newspaper_days_before_hearing"],
            n["newspaper_day_kind"]) == (7, "calendar", 5, "business")
    assert p.text.read_text(encoding="utf-8").count("within 21 days") == 2
    assert [i.cause for i in p.versions[0].impairments] == [
        "tmdl", "nitrogen", "phosphorus", "chloride", "solids", "metals", "oil-grease"]


# --------------------------------------------------------------------------- versions
def _two_versions() -> dict:
    raw = _westwood()
    raw["versions"].append({"version": "2026 amendment", "effective": dt.date(2026, 7, 1),
                            "timeline": {"hearing_within_days": 14}})
    return raw


def test_the_version_in_force_is_the_last_one_effective_on_or_before_the_date():
    profile = _parse(_two_versions())
    first, second = profile.versions
    assert profile.version_on(dt.date(2026, 6, 30)) is first
    assert profile.version_on(dt.date(2026, 7, 1)) is second
    # a later version names only what changed: the rest is read from the one before it
    assert second.tiers == first.tiers
    assert (first.section("timeline")["hearing_within_days"],
            second.section("timeline")["hearing_within_days"]) == (21, 14)
    assert second.section("timeline")["decision_within_days"] == 21


def test_a_date_before_the_first_version_is_refused_naming_it():
    with pytest.raises(RegulationError, match="takes effect on 2015-05-04") as info:
        _parse(_westwood()).version_on(dt.date(2015, 5, 3))
    assert info.value.key == "versions[0].effective"


def test_load_regulation_says_which_version_it_applied(tmp_path):
    applied = load_regulation("lynnfield-ch320", on="2022-03-04")
    assert applied.on == dt.date(2022, 3, 4) and applied.version.version == "2021-08-17"
    assert "version 2021-08-17" in applied.describe()
    assert load_regulation("lynnfield-ch320").on == dt.date.today()
    with pytest.raises(RegulationError, match="YYYY-MM-DD"):
        load_regulation("lynnfield-ch320", on="3 March")


# --------------------------------------------------------------------------- strict errors
def _error(raw: dict) -> RegulationError:
    with pytest.raises(RegulationError) as info:
        _parse(raw)
    assert isinstance(info.value, SwmGisError) and info.value.exit_code == 2
    return info.value


def test_a_missing_key_is_named_with_what_it_must_be():
    raw = _westwood()
    del raw["offices"]["permit_authority"]
    err = _error(raw)
    assert err.key == "offices.permit_authority" and "is missing: it must be a text" in str(err)


def test_a_value_of_the_wrong_kind_is_named_with_what_was_expected():
    raw = _westwood()
    raw["versions"][0]["applicability"]["tiers"][1]["disturbed_area_sqft"] = "21780"
    err = _error(raw)
    assert err.key == "versions[0].applicability.tiers[1].disturbed_area_sqft"
    assert "'21780' must be a number from 0 to 1e+09 sq ft (no quotes)" in str(err)


def test_an_unknown_key_is_refused_with_a_did_you_mean():
    raw = _westwood()
    raw["versions"][0]["notice"]["distanse_ft"] = 100
    err = _error(raw)
    assert err.key == "versions[0].notice.distanse_ft"
    assert 'Did you mean "distance_ft"?' in str(err)


def test_effective_dates_out_of_order_are_refused():
    raw = _two_versions()
    raw["versions"][1]["effective"] = dt.date(2015, 5, 4)
    err = _error(raw)
    assert err.key == "versions[1].effective" and "must be after" in str(err)


def test_a_tier_listing_an_undefined_land_use_is_refused():
    raw = _westwood()
    raw["versions"][0]["applicability"]["tiers"][1]["land_uses"] = ["auto-fuelling"]
    err = _error(raw)
    assert 'Did you mean "auto-fueling"?' in str(err)


def test_a_later_version_may_not_drop_its_dates_and_is_checked_whole_once_merged():
    raw = _two_versions()
    del raw["versions"][1]["effective"]
    assert _error(raw).key == "versions[1].effective"
    raw = _two_versions()
    raw["versions"][1]["applicability"] = {"tiers": [{"tier": "permit", "name": "x"}]}
    assert _error(raw).key == "versions[1].applicability.tiers[0].citation"


def test_unknown_ids_and_broken_files_are_worded(tmp_path):
    with pytest.raises(RegulationError, match='Did you mean "westwood-ch350"'):
        read_regulation("westwod-ch350")
    bad = tmp_path / "bad.toml"
    bad.write_text("id = [", encoding="utf-8")
    with pytest.raises(RegulationError, match="not a valid TOML file"):
        read_regulation(bad)
    with pytest.raises(RegulationError, match="does not exist"):
        read_regulation(tmp_path / "none.toml")


def test_objects_are_frozen():
    v = read_regulation("westwood-ch350").versions[0]
    with pytest.raises(AttributeError):
        v.tiers = ()
    with pytest.raises(TypeError):
        v.section("timeline")["hearing_within_days"] = 1
    assert copy.deepcopy(_westwood()) == tomllib.loads(
        (BUNDLED_DIR / "westwood-ch350.toml").read_text(encoding="utf-8"))


def test_a_file_the_profile_names_must_exist(tmp_path):
    raw = read_raw(BUNDLED_DIR / "lynnfield-ch320.toml")
    raw["text"] = "missing.txt"
    with pytest.raises(RegulationError, match="no such file") as info:
        _parse(raw)
    assert info.value.key == "text"
    raw = read_raw(BUNDLED_DIR / "lynnfield-ch320.toml")
    raw["versions"][0]["submittals"]["checklist_file"] = "none.toml"
    with pytest.raises(RegulationError) as info:
        _parse(raw)
    assert info.value.key == "versions[0].submittals.checklist_file"


def test_a_variant_of_lynnfield_with_other_numbers_and_names_changes_the_answer():
    """A town brings Lynnfield's profile edited: its numbers and citations are what apply."""
    from swm_gis.rules.tiers import regulation_tier

    raw = read_raw(BUNDLED_DIR / "lynnfield-ch320.toml")
    raw.update(id="othertown-ch9", town="Othertown")
    for key in ("text", "quotes", "pollutant_requirements", "impairment_causes"):
        raw.pop(key)
    raw["versions"][0].pop("submittals")
    tier = raw["versions"][0]["applicability"]["tiers"][0]
    tier.update(disturbed_area_sqft=20_000, citation="Othertown Rules § 9-3 A")
    profile = _parse(raw)
    decision = regulation_tier(profile.versions[0], disturbed_area_sqft=20_000)
    assert (decision.tier, decision.citation) == ("permit", "Othertown Rules § 9-3 A")
    assert regulation_tier(profile.versions[0], disturbed_area_sqft=19_999).tier == "none"
    assert "Lynnfield" not in _described(profile)


def _described(profile) -> str:
    from swm_gis.config.regulation import AppliedRegulation

    return AppliedRegulation(profile, profile.versions[0], dt.date(2026, 1, 1)).describe()


_KNOWN_TABLES = ["offices", "versions[0].notice", "versions[0].timeline",
                 "versions[0].applicability"]


@given(st.sampled_from(_KNOWN_TABLES),
       st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=12))
def test_any_unknown_key_in_any_table_is_refused_by_its_path(table, key):
    raw = read_raw(BUNDLED_DIR / "lynnfield-ch320.toml")
    if table.startswith("versions[0]."):
        target = raw["versions"][0][table.split(".", 1)[1]]
    else:
        target = raw[table]
    assume(key not in target and key not in _keys_of(table))
    target[key] = 1
    with pytest.raises(RegulationError) as info:
        _parse(raw)
    assert info.value.key == f"{table}.{key}" and "unknown key(s)" in str(info.value)


def _keys_of(table: str) -> set[str]:
    from swm_gis.config.regulation_keys import PROFILE, VERSION

    spec = VERSION.keys[table.split(".", 1)[1]] if "." in table else PROFILE.keys[table]
    return set(spec.keys)

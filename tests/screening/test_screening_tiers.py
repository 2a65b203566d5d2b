"""The screening under the town's regulation profile: the review tier the project reaches, the
profile and version it applied, and the warning of a config that names none (issue 33).

Every site is a 20 m wide rectangle in the sample town (EPSG:26986, metres) whose length makes
its area exactly the figure tested: 1 m = 1 / 0.3048 ft, so 1 m^2 = 10.7639104 sq ft and
``length = area_sqft / 10.7639104 / 20``.
"""

from __future__ import annotations

from pathlib import Path

import geopandas as gpd
import pytest
import shapely
from support.regulation_variant import variant_profile
from support.townkit import sample_town_naming

import swm_gis
from swm_gis.errors import SwmGisError
from swm_gis.reports.screening_findings import build_report

SQFT_PER_M2 = (1 / 0.3048) ** 2
#: A point inside the sample town (the sample site's centroid).
X0, Y0 = 237_953.5, 918_548.0


def _site(area_sqft: float) -> gpd.GeoDataFrame:
    length = area_sqft / SQFT_PER_M2 / 20
    return gpd.GeoDataFrame({"id": ["S"]}, geometry=[shapely.box(X0, Y0, X0 + length, Y0 + 20)],
                            crs="EPSG:26986")


def _town(tmp_path: Path, regulation: str | None) -> swm_gis.TownConfig:
    """The sample town's config copied to tmp_path with absolute paths, naming ``regulation``
    (None: no ``regulation`` key at all)."""
    return swm_gis.load_config(sample_town_naming(tmp_path, regulation))


@pytest.fixture(scope="module")
def westwood(tmp_path_factory) -> swm_gis.TownConfig:
    return _town(tmp_path_factory.mktemp("westwood"), "westwood-ch350")


# Westwood: administrative review from 5,000 sq ft, a permit from one-half acre
# (43,560 / 2 = 21,780 sq ft) or for a land use with higher potential pollutant loads.
@pytest.mark.parametrize(("area_sqft", "tier", "status"), [
    # below 21,780 sq ft no permit: Westwood counts the project alone (common_plan = false)
    (4_999, "none", "no"),
    (5_000, "administrative_review", "no"),
    (21_779, "administrative_review", "no"),
    (21_780, "permit", "yes"),           # reaches the 21,780 sq ft trigger
])
def test_westwood_tiers_at_and_around_each_threshold(westwood, area_sqft, tier, status):
    doc = swm_gis.screen(westwood, _site(area_sqft), received="2026-05-01").document
    block = doc["disturbance"]["tier"]
    assert doc["disturbance"]["area_sqft"] == area_sqft
    assert block["tier"] == tier and block["profile"] == "westwood-ch350"
    assert [(t["tier"], t["threshold"], t["citation"]) for t in block["tiers"]] == [
        ("administrative_review", "5,000 sq ft disturbed or more",
         "Ch. 350, Art. III, applicability A(1)"),
        ("permit", "21,780 sq ft disturbed or more or a land use it lists, whatever the area ("
         "Industrial activities under an individual NPDES permit or the NPDES Multi-Sector "
         "General Permit; Auto fueling facilities; Exterior vehicle service, maintenance and "
         "equipment cleaning areas; Road salt storage and loading areas exposed to rain; "
         "Commercial nurseries; Outdoor storage and loading or unloading of hazardous "
         "substances; Marinas and boatyards; Parking lots with high-intensity use)",
         "Ch. 350, Art. III, applicability A(2)")]
    finding = doc["findings"][0]
    assert finding["key"] == "disturbance" and finding["status"] == status
    words = {"none": "no review", "administrative_review": "administrative review",
             "permit": "permit"}[tier]
    assert f"Review tier reached: {words}" in finding["answer"]
    assert finding["section"] == "Ch. 350, Art. III, applicability A(1)-(2)"
    assert "Lynnfield" not in finding["answer"]
    assert doc["disturbance"]["permit_required"] is (status == "yes")
    if status == "no":
        assert finding["answer"].startswith(
            f"Not required. The site disturbs {area_sqft:,} sq ft (")
        assert ("below the 21,780 sq ft trigger, and the regulation applied counts the "
                "project's own disturbance, not a larger common plan's.") in finding["answer"]
    # no proposed use: the land-use test is undecided, so a permit is still open below 21,780
    assert block["undecided"] == ([] if tier == "permit" else ["permit"])


def test_westwood_trigger_sentence_names_its_own_threshold(westwood):
    doc = swm_gis.screen(westwood, _site(21_780), received="2026-05-01").document
    assert doc["findings"][0]["answer"].startswith(
        "Required. The site disturbs 21,780 sq ft (0.50 acres), which reaches the 21,780 sq ft "
        "trigger.")
    assert doc["meta"]["rules"]["trigger_sqft"] == 21_780.0


@pytest.mark.parametrize("use", ["334", "gas station"])
def test_a_3000_sqft_gas_station_needs_a_westwood_permit_whatever_its_size(westwood, use):
    # use code 334 (gasoline service station) and the words "gas station" are ones the profile
    # maps to auto fueling, a land use with higher potential pollutant loads
    doc = swm_gis.screen(westwood, _site(3_000), proposed_use=use,
                         received="2026-05-01").document
    block = doc["disturbance"]["tier"]
    assert (block["tier"], block["citation"]) == ("permit", "Ch. 350, Art. III, applicability A(2)")
    found = [t for t in block["tests"] if t["test"] == "land_use"][0]
    assert found["met"] is True and "Auto fueling facilities" in found["reason"]
    assert block["undecided"] == []
    assert f"Review tier reached: permit (proposed use '{use}' is listed: Auto fueling " \
           "facilities" in doc["findings"][0]["answer"]
    assert doc["meta"]["parameters"]["proposed_use"] == use
    # the receiving-waters duty reads the use code the profile maps (333: commercial)
    assert doc["receiving_waters"]["proposed_use"] == ("334" if use == "334" else "333")


def test_a_use_neither_the_rule_nor_the_profile_knows_is_refused_naming_both(westwood):
    with pytest.raises(SwmGisError) as info:
        swm_gis.screen(westwood, _site(3_000), proposed_use="bakery")
    assert str(info.value).startswith('Unknown proposed_use= "bakery"')
    assert "The regulation applied (westwood-ch350) also knows: boatyard, " in str(info.value)


def test_the_document_and_report_say_which_profile_and_version_on_which_date(westwood):
    doc = swm_gis.screen(westwood, _site(5_000), received="2026-05-01").document
    assert doc["meta"]["regulation"] == {
        "id": "westwood-ch350", "title": "Stormwater Management Bylaw and Regulations",
        "chapter": "Chapter 350", "town": "Westwood",
        "version": "as published (eCode360, read 2026-12-03)", "effective": "2015-05-04",
        "applied_on": "2026-05-01", "named_in_config": True,
        "description": "westwood-ch350: Town of Westwood Stormwater Management Bylaw and "
                       "Regulations (Chapter 350), version as published (eCode360, read "
                       "2026-12-03) (in force since 2015-05-04), applied on 2026-05-01"}
    assert not [w for w in doc["warnings"] if w["code"] == "regulation_not_named"]
    rows = dict(build_report(doc).parameters)
    assert rows["Regulation applied"] == doc["meta"]["regulation"]["description"]


def test_lynnfield_s_single_tier_adds_no_sentence_and_keeps_the_answer(tmp_path):
    doc = swm_gis.screen(_town(tmp_path, "lynnfield-ch320"), _site(43_560)).document
    answer = doc["findings"][0]["answer"]
    assert answer.startswith("Required. The site disturbs 43,560 sq ft (1.00 acres), which "
                             "reaches the one-acre (43,560 sq ft) trigger.")
    assert "Review tier" not in answer
    assert doc["disturbance"]["tier"]["tier"] == "permit"
    assert doc["findings"][0]["section"] == ("Bylaw ch. 213, Art. II (Ch. 320 applicability A); "
                                             "exemptions Bylaw 213-16B")


def test_a_town_naming_no_regulation_is_warned_in_the_document_and_the_finding(tmp_path):
    doc = swm_gis.screen(_town(tmp_path, None), _site(5_000)).document
    named = [w for w in doc["warnings"] if w["code"] == "regulation_not_named"]
    assert len(named) == 1
    assert named[0]["text"].startswith("The town config for Sampleton (SYNTHETIC) names no "
                                       "regulation, so the Town of Lynnfield")
    assert named[0]["text"] in doc["findings"][0]["caveats"]
    assert doc["meta"]["regulation"]["named_in_config"] is False


def test_a_variant_of_lynnfield_s_profile_changes_the_trigger_answer_and_the_cited_profile(
        tmp_path):
    """Othertown copies Lynnfield's profile: a 20,000 sq ft trigger, its own citation, a 1.5 in
    retention depth (tests/support/regulation_variant.py)."""
    variant_profile(tmp_path)
    town = _town(tmp_path, "othertown.toml")
    doc = swm_gis.screen(town, _site(20_000), development="new").document
    permit = doc["findings"][0]
    # 20,000 sq ft >= the variant's 20,000 sq ft trigger (Lynnfield's 43,560 would say "no")
    assert permit["status"] == "yes"
    assert permit["answer"].startswith("Required. The site disturbs 20,000 sq ft (")
    assert "which reaches the 20,000 sq ft trigger." in permit["answer"]
    assert "one-acre" not in permit["answer"] and "Lynnfield" not in permit["answer"]
    assert permit["section"] == "Othertown Rules § 9-3"
    assert (doc["disturbance"]["tier"]["tier"], doc["disturbance"]["tier"]["citation"]) == (
        "permit", "Othertown Rules § 9-3 A")
    assert (doc["meta"]["rules"]["trigger_sqft"], doc["meta"]["rules"]["retention_new_in"]) == (
        20_000.0, 1.5)
    assert doc["meta"]["regulation"]["id"] == "othertown-ch9"
    report = build_report(doc)
    assert report.findings[0].section == "Othertown Rules § 9-3"
    assert dict(report.parameters)["Regulation applied"].startswith(
        "othertown-ch9: Town of Othertown Runoff Rules (Chapter 9), version 2021-08-17")
    # 19,999 sq ft: below the variant's trigger, conditional on a common plan
    below = swm_gis.screen(town, _site(19_999), development="new").document["findings"][0]
    assert below["status"] == "conditional" and "below 20,000 sq ft" in below["answer"]

"""The rules' citations come from the regulation profile applied (swm_gis.rules.citations,
issue 33): Lynnfield's print Chapter 320's words as before; a variant with other sections prints
its own in every rule's section and reasons; a profile without a citation prints its short name,
never Lynnfield's."""

from __future__ import annotations

import dataclasses

import geopandas as gpd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from shapely.geometry import box
from support.regulation_variant import foreign_profile

from swm_gis.config.regulation import load_regulation
from swm_gis.config.town import Rules
from swm_gis.rules.citations import default_citations, joined, rule_citations
from swm_gis.rules.development import development_type
from swm_gis.rules.disturbance import disturbance_trigger
from swm_gis.rules.standards import performance_standards
from swm_gis.rules.watersheds import mitigation_eligibility, watershed_shares

FT = 0.3048  # metres per foot (EPSG:26986 is in metres)
#: A 200 ft x 218 ft site: 43,600 sq ft, over Lynnfield's 43,560 sq ft trigger.
SITE = gpd.GeoDataFrame(geometry=[box(0, 0, 200 * FT, 218 * FT)], crs="EPSG:26986")


@pytest.fixture(scope="module")
def othertown(tmp_path_factory) -> object:
    """Lynnfield's profile with every section renumbered (§ 320-19 -> § 9-19, ...)."""
    folder = tmp_path_factory.mktemp("othertown")
    return rule_citations(load_regulation(foreign_profile(folder), on="2026-05-01"))


def test_lynnfield_s_citations_are_the_ones_its_outputs_printed():
    c = rule_citations(load_regulation("lynnfield-ch320", on="2026-05-01"))
    assert c == default_citations()
    assert (c.new_development, c.redevelopment, c.roadway_maintenance) == (
        "§ 320-19 B(7)", "§ 320-19 B(8)", "§ 320-19 B(8)(e)")
    # both retention citations share "§ 320-19 ": printed once
    assert c.retention() == "§ 320-19 B(7)(b), B(8)(b)"
    assert c.parts("redevelopment", "(a)-(d)", whole=False) == "B(8)(a)-(d)"
    assert c.parts("redevelopment", "(a) through (d)") == "§ 320-19 B(8)(a) through (d)"


def test_every_rule_cites_the_variant_s_sections(othertown):
    c = othertown
    # 43,600 sq ft >= 43,560: a permit; its reason cites the variant's permit procedure
    d = disturbance_trigger(SITE, rules=Rules(), exemptions=["fencing"], citations=c)
    assert d["section"] == ("General Bylaws Chapter 77, Article II (quoted in Chapter 9, "
                            "applicability, Subsection A); Bylaw 77-4B (Chapter 9, "
                            "applicability, Subsection B)")
    new = performance_standards("new", post_impervious_sqft=12_000, rules=Rules(),
                                roadway_maintenance=True, citations=c)
    # 1.0 in / 12 x 12,000 sq ft = 1,000.0 cu ft, labelled with the variant's B(7)(b)
    assert new["reasons"][1] == "Retention: 1.0 in / 12 x 12,000 sq ft = 1,000.0 cu ft (B(7)(b))."
    assert new["section"] == "§ 9-19 B(7)"
    assert new["reasons"][-1] == ("The roadway-maintenance exemption of § 9-19 B(8)(e) is for "
                                  "redevelopment only; as new development the B(7) standards "
                                  "apply in full.")
    redev = performance_standards("redevelopment", post_impervious_sqft=12_000, rules=Rules(),
                                  roadway_maintenance=True, citations=c)
    assert redev["section"] == "§ 9-19 B(8); B(8)(e) claimed"
    assert "exempt from § 9-19 B(8)(a) through (d)" in redev["reasons"][-1]
    dev = development_type(SITE, impervious=None, override="new", citations=c)
    assert dev["section"].startswith("Chapter 9 definitions of new development")
    hucs = gpd.GeoDataFrame({"huc": ["010700020101"], "name": ["West"]},
                            geometry=[box(-1000, -1000, 1000, 1000)], crs="EPSG:26986")
    assert watershed_shares(SITE, huc12=hucs, huc10=None, citations=c)["section"] == (
        "§ 9-19 B(7)(d) and B(8)(d) (USGS HUC12 / HUC10)")
    rows = mitigation_eligibility(SITE, hucs=hucs, site_hucs=["010700020101"], level="HUC12",
                                  citations=c)
    assert rows[0]["section"] == "§ 9-19 B(7)(d)" and "§ 9-19 B(7)(d) allows" in rows[0]["reason"]
    text = " ".join([str(d), str(new), str(redev), str(dev), str(rows)])
    assert "320" not in text and "Lynnfield" not in text


def test_a_profile_without_the_citations_prints_its_short_name():
    """Westwood's profile gives no standards citations: its short name, no subsection labels."""
    c = rule_citations(load_regulation("westwood-ch350", on="2026-05-01"))
    assert (c.new_development, c.new_retention, c.sub("new"), c.part("new", "b")) == (
        "Ch. 350", "Ch. 350", None, "")
    assert c.mitigation_both(" and ") == "Ch. 350" and c.mitigation_of("HUC12") == "Ch. 350"
    r = performance_standards("new", post_impervious_sqft=12_000, rules=Rules(), citations=c)
    assert r["reasons"][0].startswith("For new development, Ch. 350 requires")
    assert r["reasons"][1] == "Retention: 1.0 in / 12 x 12,000 sq ft = 1,000.0 cu ft."  # no label
    assert "320" not in str(r)


words = st.text(alphabet="§0123456789-ABC()", min_size=1, max_size=12)  # one word each


@given(prefix=words, first=words, second=words)
def test_joined_drops_only_whole_shared_words(prefix, first, second):
    a, b = f"{prefix} {first}", f"{prefix} {second}"
    out = joined(a, b)
    # the first is whole; what follows the separator is the end of the second
    assert out.startswith(a + ", ") and b.endswith(out[len(a) + 2:])
    assert out[len(a) + 2:] != ""


@pytest.mark.parametrize(("cites", "label"), [
    # Lynnfield's six: "Bylaw 213-16B(1)" ... "(6)" share "Bylaw 213-16B("
    ([f"Bylaw 213-16B({i})" for i in range(1, 7)], "Bylaw 213-16B"),
    # (1) and (10) share "§ 9-4B(1": cut at the last bracket, not inside the number
    (["§ 9-4B(1)", "§ 9-4B(10)"], "§ 9-4B"),
    # one exemption, or none: the exemptions' citation
    (["Rules § 5(a)"], "Rules § 5 (exemptions)"),
    ([], "Rules § 5 (exemptions)"),
])
def test_the_exemptions_label_is_what_every_exemption_citation_starts_with(cites, label):
    base = default_citations()
    c = dataclasses.replace(base, exemptions="Rules § 5 (exemptions)",
                            exemption_list={f"e{i}": (cite, "x") for i, cite in enumerate(cites)})
    assert c.exemptions_label() == label


def test_who_decides_a_claim_is_the_profile_s_office():
    c = default_citations()  # Lynnfield's: the role, then the office
    assert (c.decider(), c.decider_short()) == (
        "the authorized enforcement authority (Conservation Commission)", "Commission")
    board = dataclasses.replace(c, authority="Planning Board", authority_role=None)
    assert (board.decider(), board.decider_short()) == ("the Planning Board", "Board")


@given(prefix=st.from_regex(r"[A-Za-z§][A-Za-z0-9§.\- ]{0,20}[A-Za-z0-9]", fullmatch=True),
       numbers=st.lists(st.integers(1, 30), min_size=2, max_size=8, unique=True))
def test_numbered_exemptions_are_labelled_by_their_shared_prefix(prefix, numbers):
    c = dataclasses.replace(default_citations(), exemption_list={
        f"e{n}": (f"{prefix}({n})", "x") for n in sorted(numbers)})
    assert c.exemptions_label() == prefix

"""The exemptions a screening accepts and quotes, and the permit finding's trigger words, are the
applied regulation profile's (issue 33): ``[[versions.exemptions]]`` (id, citation, activity),
``standards.roadway_maintenance_citation`` and the permit tier's area.

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
from swm_gis.cli import main
from swm_gis.config.regulation import exemption_ids
from swm_gis.errors import SwmGisError
from swm_gis.reports.screening_findings import build_report
from swm_gis.reports.screening_parameters import parameter_rows

SQFT_PER_M2 = (1 / 0.3048) ** 2
#: A point inside the sample town (the sample site's centroid).
X0, Y0 = 237_953.5, 918_548.0

LYNNFIELD_IDS = ("npdes-waived", "agriculture", "landscaping", "fencing", "utilities",
                 "wetlands-order")
#: Westwood's exemptions as its profile numbers them (Ch. 350, Art. III, exemptions B(1)-(5))
WESTWOOD = {"landscaping": "B(1)", "fencing": "B(2)", "utilities": "B(3)", "agriculture": "B(4)",
            "wetlands-order": "B(5)"}


def _site(area_sqft: float) -> gpd.GeoDataFrame:
    length = area_sqft / SQFT_PER_M2 / 20
    return gpd.GeoDataFrame({"id": ["S"]}, geometry=[shapely.box(X0, Y0, X0 + length, Y0 + 20)],
                            crs="EPSG:26986")


def _town(tmp_path: Path, regulation: str) -> Path:
    """The sample town's config copied to tmp_path with absolute paths, naming ``regulation``."""
    return sample_town_naming(tmp_path, regulation)


@pytest.fixture(scope="module")
def westwood(tmp_path_factory) -> swm_gis.TownConfig:
    return swm_gis.load_config(_town(tmp_path_factory.mktemp("westwood"), "westwood-ch350"))


def test_exemption_ids_are_each_profile_s_in_its_order():
    assert exemption_ids("lynnfield-ch320") == LYNNFIELD_IDS  # unchanged
    assert exemption_ids("westwood-ch350") == tuple(WESTWOOD)
    assert exemption_ids("north-andover-ch250") == ()  # its list is not confirmed (not_covered)


@pytest.mark.parametrize("name", list(WESTWOOD))
def test_each_westwood_exemption_is_accepted_with_its_own_citation(westwood, name):
    # 21,780 sq ft reaches Westwood's permit tier; the claim leaves it to the Commission
    doc = swm_gis.screen(westwood, _site(21_780), exemptions=[name.upper()],
                         received="2026-05-01").document
    d = doc["disturbance"]
    (claim,) = d["exemption"]
    assert (claim["name"], claim["section"]) == (name, f"Ch. 350, Art. III, exemptions "
                                                       f"{WESTWOOD[name]}")
    assert d["permit_required"] is None and d["disturbs_trigger_area"] is True
    assert d["section"] == ("Ch. 350, Art. III, applicability A; "
                            "Ch. 350, Art. III, exemptions B")
    finding = doc["findings"][0]
    assert finding["status"] == "conditional"
    assert finding["answer"].startswith(
        f"Conditional. The applicant claims an exemption: Ch. 350, Art. III, exemptions "
        f"{WESTWOOD[name]} ({name}): {claim['activity']}.")
    # the activity is Westwood's own (its profile), not Lynnfield's Bylaw 213-16B words
    assert "213-16B" not in str(doc["disturbance"]) + finding["answer"]
    rows = dict(parameter_rows(doc["meta"]))
    assert rows["Exemptions (Ch. 350, Art. III, exemptions B)"] == f"{name} (the applicant's claim)"


def test_a_lynnfield_only_exemption_is_refused_naming_westwood_s(westwood):
    with pytest.raises(SwmGisError) as info:
        swm_gis.screen(westwood, _site(21_780), exemptions=["npdes-waived"])
    text = str(info.value)
    assert 'Unknown exemption "npdes-waived".' in text
    assert ("names (Ch. 350, Art. III, exemptions B) are: landscaping, fencing, utilities, "
            "agriculture, wetlands-order.") in text


def test_a_misspelt_exemption_gets_the_closest_id(westwood):
    with pytest.raises(SwmGisError, match='Unknown exemption "fence". Did you mean "fencing"?'):
        swm_gis.screen(westwood, _site(21_780), exemptions=["fence"])


def test_a_roadway_claim_is_refused_where_the_regulation_has_no_such_exemption(westwood):
    # Westwood's profile gives no standards.roadway_maintenance_citation
    with pytest.raises(SwmGisError, match=r"The applied regulation \(Ch. 350\) has no "
                                          "roadway-maintenance exemption"):
        swm_gis.screen(westwood, _site(21_780), roadway_maintenance=True)


def test_north_andover_refuses_every_exemption_saying_its_profile_lists_none(tmp_path):
    config = swm_gis.load_config(_town(tmp_path, "north-andover-ch250"))
    with pytest.raises(SwmGisError) as info:
        swm_gis.screen(config, _site(50_000), exemptions=["fencing"])
    assert str(info.value) == (
        'Unknown exemption "fencing". The regulation applied (Ch. 250) lists no exemption that '
        "can be claimed here (its profile gives none for Bylaw § 165-4B).")


def test_cli_exemption_under_westwood_exit_2_names_its_ids(tmp_path, capsys):
    config = _town(tmp_path, "westwood-ch350")
    site = tmp_path / "site.gpkg"
    _site(21_780).to_file(site)
    code = main(["--progress", "none", "screen", "--config", str(config), "--site", str(site),
                 "--exemption", "npdes-waived", "--out", str(tmp_path / "out")])
    assert code == 2
    words = " ".join(capsys.readouterr().err.split())
    assert ('Unknown exemption "npdes-waived". Valid --exemption names (Ch. 350, Art. III, '
            "exemptions B) are: landscaping, fencing, utilities, agriculture, "
            "wetlands-order.") in words
    assert not (tmp_path / "out").exists()  # refused before anything is written


def test_a_renumbered_variant_cites_its_own_exemption_in_screening_json(tmp_path):
    """Lynnfield's profile renumbered for a made-up town: Bylaw 213-16B becomes 9-4B, and the
    Planning Board decides claims."""
    path = variant_profile(tmp_path, trigger_sqft=43_560)
    path.write_text(path.read_text(encoding="utf-8").replace("213-16B", "9-4B").replace(
        'permit_authority = "Conservation Commission"', 'permit_authority = "Planning Board"'),
        encoding="utf-8")
    config = swm_gis.load_config(_town(tmp_path, path.as_posix()))
    doc = swm_gis.screen(config, _site(50_000), exemptions=["fencing"]).document
    (claim,) = doc["disturbance"]["exemption"]
    assert claim["section"] == "Bylaw 9-4B(4)"
    assert claim["activity"] == ("construction of fencing that will not substantially alter "
                                 "existing terrain or drainage patterns")
    assert doc["disturbance"]["section"].endswith("; Bylaw 9-4B (Chapter 320, applicability, "
                                                  "Subsection B)")
    rows = dict(parameter_rows(doc["meta"]))
    assert rows["Exemptions (Bylaw 9-4B)"] == "fencing (the applicant's claim)"
    assert "213-16B" not in str(doc["disturbance"]) + doc["findings"][0]["answer"]
    # who decides the claim is the variant's office, in the reasons, finding and headline
    reasons = doc["disturbance"]["reasons"]
    assert reasons[-2].endswith("This is the applicant's claim, not a finding: the authorized "
                                "enforcement authority (Planning Board) decides whether the "
                                "activity qualifies.")
    assert reasons[-1].startswith("If the Board accepts the claimed exemption, no Stormwater "
                                  "Management Permit is required; otherwise one is required")
    assert ("the Planning Board decides whether the activity qualifies"
            in doc["findings"][0]["answer"])
    assert build_report(doc).headline.startswith(
        "Whether a stormwater management permit is required is conditional: the applicant "
        "claims an exemption (Bylaw 9-4B(4) (fencing)); this is the applicant's claim, and the "
        "Planning Board decides whether it applies.")
    assert "Commission" not in str(reasons) + doc["findings"][0]["answer"]


# The threshold in words: "one acre" only for 43,560 sq ft; a 20,000 sq ft trigger is
# "20,000 sq ft" (the variant profile's default trigger).
def test_a_20000_sqft_trigger_is_worded_in_square_feet_never_as_an_acre(tmp_path):
    config = swm_gis.load_config(_town(tmp_path, variant_profile(tmp_path).as_posix()))
    # 15,000 sq ft, no common plan: 15,000 / 43,560 = 0.344 -> "0.34 acres"
    doc = swm_gis.screen(config, _site(15_000)).document
    finding = doc["findings"][0]
    assert finding["status"] == "conditional"
    assert finding["answer"] == (
        "Conditional. The site disturbs 15,000 sq ft (0.34 acres), below 20,000 sq ft, and no "
        "common plan was given: a permit is required if the site is part of a larger common "
        "plan of development or sale that will ultimately disturb 20,000 sq ft or more (e.g. a "
        "lot of a subdivision), and not otherwise.")
    # with an 18,000 sq ft common plan around it (the site's box lengthened): both below
    doc = swm_gis.screen(config, _site(15_000), common_plan=_site(18_000)).document
    assert doc["findings"][0]["status"] == "no"
    headline = build_report(doc).headline
    assert headline.startswith("A stormwater management permit is not required: neither the "
                               "site nor its common plan of development or sale disturbs "
                               "20,000 sq ft.")
    # an exemption claimed on the same site: the otherwise-clause says the trigger the same way
    doc = swm_gis.screen(config, _site(15_000), common_plan=_site(18_000),
                         exemptions=["fencing"]).document
    assert ("If it does not, no permit is required either: neither the site nor its common "
            "plan disturbs 20,000 sq ft.") in doc["findings"][0]["answer"]
    assert "acre" not in doc["findings"][0]["answer"].replace("acres)", "")


def test_a_lynnfield_trigger_is_still_one_acre_in_the_headline(tmp_path):
    config = swm_gis.load_config(_town(tmp_path, "lynnfield-ch320"))
    doc = swm_gis.screen(config, _site(15_000), common_plan=_site(18_000)).document
    assert build_report(doc).headline.startswith(
        "A stormwater management permit is not required: neither the site nor its common plan "
        "of development or sale disturbs one acre.")


def test_a_claim_under_a_regulation_counting_the_project_alone_speaks_of_no_common_plan(
        westwood):
    # 10,000 sq ft: below Westwood's 21,780 sq ft permit; it counts no common plan
    doc = swm_gis.screen(westwood, _site(10_000), exemptions=["fencing"]).document
    result = doc["findings"][0]["answer"]
    assert ("If it does not, no permit is required either: the site disturbs less than "
            "21,780 sq ft.") in result
    assert "common plan" not in result
    assert doc["disturbance"]["reasons"][-1] == (
        "If the Commission accepts the claimed exemption, no Stormwater Management Permit is "
        "required; otherwise no permit is required: the site disturbs less than 21,780 sq ft.")


def test_the_regulation_list_gives_each_profile_s_exemptions(capsys):
    assert main(["--progress", "none", "regulation", "list", "--exemptions"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("\texemptions: npdes-waived (Bylaw 213-16B(1)), agriculture (Bylaw "
                             "213-16B(2)), landscaping (Bylaw 213-16B(3)), fencing (Bylaw "
                             "213-16B(4)), utilities (Bylaw 213-16B(5)), wetlands-order (Bylaw "
                             "213-16B(6))")
    assert lines[1].endswith("\tno exemptions listed")  # north-andover-ch250

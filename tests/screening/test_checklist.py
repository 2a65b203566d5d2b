"""The Chapter 320 submittal checklist: items from the regulation text, and what applies."""

from __future__ import annotations

import pytest
from support.screenkit import FULL_COVERAGE

from swm_gis.screening import findings as fd
from swm_gis.screening.checklist import checklist_groups, submittal_checklist


def _items(document=None):
    return {i.citation: i for i in submittal_checklist(document)}


def _refs(section: str) -> list[str]:
    return [i.ref for i in submittal_checklist() if i.section == section]


def test_groups_follow_the_application_package():
    assert [(g.key, g.section) for g in checklist_groups()] == [
        ("application", "Ch. 320, permit procedure"), ("swmp", "§ 320-19"), ("esc", "§ 320-20"),
        ("om", "§ 320-21")]


def test_every_paragraph_of_the_plans_is_listed():
    # permit procedure A, A(1)-(7): the filing and the application package (the copy of the
    # regulation gives the procedure no section number)
    assert _refs("Ch. 320, permit procedure") == ["A"] + [f"A({n})" for n in range(1, 8)]
    # § 320-19 A(1)-(15), with the proposed hydrology (10)(a)-(j)
    swmp_a = [r for r in _refs("§ 320-19") if r.startswith("A")]
    assert swmp_a == ([f"A({n})" for n in range(1, 10)]
                      + [f"A(10)({c})" for c in "abcdefghij"]
                      + [f"A({n})" for n in range(11, 16)])
    # § 320-20 A(1)-(16), with the natural features (3)(a)-(c)
    assert _refs("§ 320-20") == (["A(1)", "A(2)", "A(3)(a)", "A(3)(b)", "A(3)(c)"]
                                 + [f"A({n})" for n in range(4, 17)])
    # § 320-21 A, A(1), the maintenance agreement A(2)(a)-(g), easements B(3)
    assert _refs("§ 320-21") == (["A", "A(1)"] + [f"A(2)({c})" for c in "abcdefg"]
                                 + ["B(3)"])


def test_items_use_the_regulations_words():
    items = _items()
    assert "within 500 feet of any construction activity" in items["§ 320-20 A(3)(c)"].text
    assert "Certified Vernal Pools" in items["§ 320-20 A(3)(c)"].text
    assert ("including the 100-year flood elevation based upon the most recent Flood "
            "Insurance Rate Map") in items["§ 320-20 A(3)(a)"].text
    assert items["§ 320-19 A(8)"].text == "A delineation of 100-year floodplains, if applicable"
    assert "NRCS" in items["§ 320-19 A(10)(c)"].text
    assert items["§ 320-21 A(2)(f)"].text.endswith("estimated operation budget")
    assert "Lynnfield Department of Public Works" in items["§ 320-19 B(10)(d)"].text


def test_issue_24_quotes_and_duties_are_the_regulations_words():
    items = _items()
    assert ("or as calculated by a professional engineer for areas not assessed on these maps"
            in items["§ 320-20 A(3)(a)"].text)
    assert ("Infiltrate stormwater to provide the level of pollutant removal equal to or greater "
            "than the level of pollutant removal provided through the use of biofiltration of the "
            "same volume of runoff to be infiltrated, prior to infiltration"
            in items["§ 320-19 B(10)(e)"].text)
    notice = items["Ch. 320, permit procedure, A(7)"].text
    assert "by certified mail, return receipt requested, or by certificates of mailing" in notice
    assert "Conservation Commission Administrator's form" in notice
    filing = items["Ch. 320, permit procedure, A"].text
    assert "certified mail, return receipt requested" in filing
    assert "the permittee must be the owner of the site" in filing
    assert "BMP Accounting and Tracking Tool (2016)" in items["§ 320-19 B(9)"].text
    a9 = items["§ 320-19 A(9)"]
    assert a9.cut_off and "cut off" in a9.note and a9.text == "The existing site hydrology:"


def test_without_a_document_conditional_items_are_undecided():
    items = submittal_checklist()
    assert all(i.applies is True for i in items if i.when == "always")
    assert all(i.applies is None for i in items if i.when != "always")
    assert all(i.note == "" for i in items if not i.cut_off)
    assert [i.citation for i in items if i.cut_off] == ["§ 320-19 A(9)"]




DRY_PARCEL = {"in_sfha": False, "sfha_area_sqft": 0.0, "site_fraction": 0.0, "zones": [],
              "shaded_x_area_sqft": 0.0, "area_sqft": 87_120.0, "parcels": [{"id": "M_1"}]}


def _doc(**overrides):
    doc = {
        "disturbance": {"area_sqft": 52000.0, "area_acres": 1.1938, "permit_required": True},
        "standards": {"retention_depth_in": 1.0, "post_impervious_sqft": 20000.0,
                      "required_retention_cuft": 1666.67, "tss_removal": 0.9, "tp_removal": 0.6},
        "mitigation": [],
        "habitats": [],
        "floodplain": {"in_sfha": False, "sfha_area_sqft": 0.0, "site_fraction": 0.0,
                       "zones": [], "shaded_x_area_sqft": 0.0, "subject_parcels": DRY_PARCEL},
        "receiving_waters": {"orw": [], "impaired": [], "requirements": [], "trace_end": []},
        "checks": [{"name": n, "ran": True, "source": None}
                   for n in ("habitats", "floodplain", "receiving_waters")],
        "coverage": FULL_COVERAGE,
    }
    doc.update(overrides)
    return doc


def test_floodplain_decides_the_delineation_and_notes_the_bfe():
    flood = {"in_sfha": True, "sfha_area_sqft": 13000.0, "site_fraction": 0.25,
             "zones": [{"zone": "AE", "bfe": 52.0, "area_sqft": 13000.0},
                       {"zone": "A", "bfe": -9999.0, "area_sqft": 10.0}],
             "shaded_x_area_sqft": 0.0}
    items = _items(_doc(floodplain=flood))
    assert items["§ 320-19 A(8)"].applies is True
    assert items["§ 320-20 A(3)(a)"].note == (
        "Site in the SFHA: 13,000 sq ft (25.0% of the site); zone AE, BFE 52 ft; zone A, "
        "no BFE on the FIRM (or as calculated by a professional engineer).")
    dry = _items(_doc())
    assert dry["§ 320-19 A(8)"].applies is False
    assert dry["§ 320-20 A(3)(a)"].applies is True  # floodplain information is always shown
    assert dry["§ 320-20 A(3)(a)"].note == \
        "Screening found no 100-year floodplain (SFHA) on the site's parcel(s)."


def test_the_site_is_the_parcel_for_the_floodplain_items():
    """Issue 24 item 2: 9,442 sq ft of AE zone on the parcel, none in the limit of disturbance:
    the delineation is required and the note says where the zone lies."""
    parcel = {**DRY_PARCEL, "in_sfha": True, "sfha_area_sqft": 9_442.0, "site_fraction": 0.1084,
              "zones": [{"zone": "AE", "bfe": 48.0, "area_sqft": 9_442.0}]}
    flood = {"in_sfha": False, "sfha_area_sqft": 0.0, "site_fraction": 0.0, "zones": [],
             "shaded_x_area_sqft": 0.0, "subject_parcels": parcel}
    items = _items(_doc(floodplain=flood))
    assert items["§ 320-19 A(8)"].applies is True
    assert items["§ 320-20 A(3)(a)"].note == (
        "Site's parcel(s) in the SFHA: 9,442 sq ft (10.8%): 0 sq ft inside the limit of "
        "disturbance, 9,442 sq ft outside it; zone AE, BFE 48 ft.")
    finding = next(f for f in fd.decide_findings(_doc(floodplain=flood))
                   if f["key"] == "floodplain")
    assert finding["status"] == "yes"
    assert "Inside the limit of disturbance: 0 sq ft; on the parcel(s) outside it: 9,442 sq ft." \
        in finding["answer"]


def test_habitats_are_listed_nearest_first():
    habitats = [{"layer": "priority", "id": "PH 1", "distance_ft": 492.13, "overlaps": False},
                {"layer": "vernal_pool", "id": "CVP 2", "distance_ft": 0.0, "overlaps": True}]
    note = _items(_doc(habitats=habitats))["§ 320-20 A(3)(c)"].note
    assert note == "Show: Certified Vernal Pool CVP 2 at 0 ft (overlaps); Priority Habitat PH 1 " \
                   "at 492 ft."
    assert _items(_doc())["§ 320-20 A(3)(c)"].note == \
        "Screening found no NHESP habitat or certified vernal pool within 500 ft."


@pytest.mark.parametrize(("cause", "category", "tmdl", "applies"), [
    ("Phosphorus, Total", "5", None, {"§ 320-19 B(10)(c)"}),
    ("Nitrogen, Total", "5", None, {"§ 320-19 B(10)(b)"}),
    ("Chloride", "5", None, {"§ 320-19 B(10)(d)"}),
    ("Salinity", "5", None, {"§ 320-19 B(10)(d)"}),
    ("Sedimentation/Siltation", "4B", None, {"§ 320-19 B(10)(e)"}),
    ("Escherichia coli (E. coli)", "4A", "Bacteria TMDL", {"§ 320-19 B(10)(a)"}),
    ("Lead", "4A", None, {"§ 320-19 B(10)(a)", "§ 320-19 B(10)(e)"}),  # 4A: has a TMDL
], ids=["phosphorus", "nitrogen", "chloride", "salinity", "solids", "tmdl", "metals-4a"])
def test_impairment_causes_bring_their_b10_items(cause, category, tmdl, applies):
    rw = {"orw": [], "requirements": [], "trace_end": [], "proposed_use": "commercial",
          "impaired": [{"au_id": "MA1", "name": "Pond", "category": category,
                        "causes": [cause], "tmdl": tmdl, "flow_distance_ft": 100.0}]}
    items = _items(_doc(receiving_waters=rw))
    b10 = {c for c, i in items.items() if "B(10)" in c and i.applies}
    assert b10 == applies
    # the search was complete: every other B(10) duty is decided "no", never left open
    assert all(i.applies is False for c, i in items.items() if "B(10)" in c and c not in b10)
    assert items["§ 320-19 B(2)"].applies is False  # no ORW downstream


@pytest.mark.parametrize(("use", "expected"), [
    ({"proposed_use": "commercial"}, True), ({"proposed_use": "101"}, False),
    ({"use_codes": ["325"]}, None), ({"use_codes": ["101"]}, None),
    ({"use_codes": ["101"], "proposed_use": "325"}, True),  # a house lot becoming a shop
    ({}, None)], ids=["proposed-commercial", "proposed-house", "existing-shop",
                      "existing-house", "house-to-shop", "unknown"])
def test_b10e_follows_the_proposed_land_use_then_the_existing_one(use, expected):
    """Without --proposed-use, B(10)(e) is "Check" (conditional), never "Not applicable"."""
    rw = {"orw": [], "requirements": [], "trace_end": [], **use,
          "impaired": [{"au_id": "MA1", "name": "Pond", "category": "5",
                        "causes": ["Sedimentation", "Lead"], "tmdl": None,
                        "flow_distance_ft": 100.0}]}
    assert _items(_doc(receiving_waters=rw))["§ 320-19 B(10)(e)"].applies is expected


def test_orw_downstream_brings_b2_and_names_the_water():
    rw = {"orw": [{"id": "ORW-1", "name": "Reservoir", "flow_distance_ft": 900.0}],
          "impaired": [], "requirements": [], "trace_end": []}
    items = _items(_doc(receiving_waters=rw))
    assert items["§ 320-19 B(2)"].applies is True
    assert items["§ 320-19 B(2)"].note == "Drains to Reservoir (ORW)."
    assert all(items[c].applies is False for c in items if "B(10)" in c)


def test_trace_that_left_the_data_leaves_b10_and_b2_undecided():
    rw = {"orw": [], "impaired": [], "requirements": [],
          "trace_end": [{"reason": "boundary", "x": 1.0, "y": 2.0, "message": "town line"}]}
    items = _items(_doc(receiving_waters=rw))
    assert all(items[c].applies is None for c in items if "B(10)" in c)
    assert items["§ 320-19 B(2)"].applies is None
    assert items["§ 320-19 B(2)"].note.startswith("Receiving waters conditional")


def test_missing_layers_leave_items_undecided_and_say_not_checked():
    doc = _doc(coverage={})  # nothing shows any layer was read
    items = _items(doc)
    assert items["§ 320-19 A(8)"].applies is None
    assert items["§ 320-20 A(3)(a)"].note == \
        "Floodplain not checked: delineate from the current FIRM."
    assert items["§ 320-20 A(3)(c)"].note == \
        "NHESP habitats not checked: consult the current NHESP maps."
    assert all(items[c].applies is None for c in items if "B(10)" in c or c.endswith("B(2)"))


def test_checks_that_did_not_run_leave_items_undecided():
    doc = _doc(floodplain=None, receiving_waters=None)
    doc["checks"] = [{"name": "floodplain", "ran": False, "source": None},
                     {"name": "receiving_waters", "ran": False, "source": None}]
    items = _items(doc)
    assert items["§ 320-19 A(8)"].applies is None
    assert items["§ 320-20 A(3)(a)"].note == \
        "Floodplain not checked: delineate from the current FIRM."
    assert all(items[c].applies is None for c in items if "B(10)" in c)


def test_off_site_mitigation_brings_easements_and_the_huc_rule():
    mitigation = [{"id": "M-1", "huc": "010900010501", "eligible": True},
                  {"id": "M-2", "huc": "010900010502", "eligible": False}]
    items = _items(_doc(mitigation=mitigation))
    assert items["§ 320-21 B(3)"].applies is True
    assert items["§ 320-21 B(3)"].note == "M-1: eligible; M-2: not eligible."
    assert items["§ 320-19 B(7)(d) / B(8)(d)"].applies is True
    assert _items(_doc())["§ 320-21 B(3)"].applies is False


def test_notes_carry_the_retention_volume_and_targets():
    items = _items(_doc())
    assert items["§ 320-19 A(10)(f)"].note == \
        "Retention required: 1,667 cu ft (1 in x 20,000 sq ft impervious on the site)."
    assert items["§ 320-19 A(10)(g)"].note == "Removal targets: 90% TSS, 60% TP."
    assert items["§ 320-20 A(7)"].note == \
        "Screened limit of disturbance: 52,000 sq ft (1.19 acres)."


def test_document_is_not_modified():
    doc = _doc()
    before = repr(doc)
    submittal_checklist(doc)
    assert repr(doc) == before

"""The plugin's translation of engine messages into dialog words, and its reading of findings.

Both modules are plain Python (no QGIS), so these tests need no QGIS application.
"""

from __future__ import annotations

import pytest
import support.plugin_kit as plugin_kit  # puts the plugin folder on sys.path
from hypothesis import given
from hypothesis import strategies as st
from swm_gis_qgis import findings, wording

LABELS = {"SITE": "Site: proposed limit of disturbance (polygons)",
          "COMMON_PLAN": "Larger common plan of development or sale",
          "PROPOSED_IMPERVIOUS": "Proposed (post-construction) impervious cover",
          "PROPOSED_IMPERVIOUS_SQFT": "Or: proposed impervious area (sq ft)",
          "INCLUDE_SUBJECT": "Include the subject parcels in the list",
          "PARCELS": "Parcels (tax parcel polygons)", "PARCEL_ID_FIELD": "Parcel id field",
          "OWNER_FIELD": "Assessing: owner name field", "SUBJECT": "Subject property",
          "OUTPUT_FOLDER": "Output folder", "HUC12": "USGS WBD HUC12 subwatersheds",
          "ASSESS": "Assessing table (owners and mailing addresses)"}
TEMP = "/tmp/processing_AbCdEf/swm_gis_abutters_x1y2"


def _opt(name, metavar=""):
    return {"option": name, "metavar": metavar}


def _key(section, name=""):
    return {"key": section, "name": name}


@pytest.mark.parametrize(("parts", "dialog"), [
    (["Give ", _opt("site", "FILE"), " or ", _opt("parcels", "ID"), ", not both."],
     "Give 'Site: proposed limit of disturbance (polygons)' or 'Subject property', not both."),
    (["no ", _opt("common_plan", "FILE"), " given"],
     "no 'Larger common plan of development or sale' given"),
    (["pass ", _opt("proposed_impervious", "FILE"), " or ", _opt("proposed_impervious_sqft")],
     "pass 'Proposed (post-construction) impervious cover' or "
     "'Or: proposed impervious area (sq ft)'"),
    (["pass ", _opt("include_subject"), " to list its owners"],
     "pass 'Include the subject parcels in the list' to list its owners"),
    (["choose an empty ", _opt("out", "DIR"), " or ", _opt("overwrite")],
     "choose an empty 'Output folder' or 'Output folder'"),
    (["No ", _key("layers.assess"), " in ", {"config": ""}],
     "No 'Assessing table (owners and mailing addresses)' in the dialog"),
    (["Check ", _key("layers.parcels.fields", "id"), " and ", _key("layers.assess.fields")],
     "Check the parameter 'Parcel id field' and the field parameters of "
     "'Assessing table (owners and mailing addresses)'"),
    (["Set ", _key("rules", "habitat_distance_ft")], "Set [rules] habitat_distance_ft"),
    (["an option the plugin has not: ", _opt("workers", "N")],
     "an option the plugin has not: workers"),
    (["SUBJECT: choose the field in PARCEL_ID_FIELD"],
     "'Subject property': choose the field in 'Parcel id field'"),
])
def test_engine_parts_become_dialog_phrases(parts, dialog):
    assert wording.dialog_text("(the command line's words)", LABELS, parts=parts) == dialog


def test_with_the_users_town_config_a_key_is_named_in_it():
    parts = ["No ", _key("layers.assess"), " in ", {"config": ""}, "; set ",
             _key("layers.parcels.fields", "id"), "."]
    assert wording.dialog_text("", LABELS, parts=parts, user_config=True) == (
        "No [layers.assess] in the town config; set "
        "[layers.parcels.fields] id in the town config.")


def test_a_plain_message_is_shown_as_it_is():
    """A plain string is never pattern-matched: an engine text that still holds a flag shows
    it (the engine names options by reference)."""
    assert wording.dialog_text("no --common-plan given", LABELS) == "no --common-plan given"


def test_a_config_field_key_and_the_temporary_config_become_the_field_parameter():
    parts = [f"{TEMP}/parcels.gpkg (", _key("layers.parcels"), ") has no field LOC_ID for the "
             'logical field "id". Set ', _key("layers.parcels.fields", "id"),
             f' = "<field name>" in {TEMP}/town.toml.']
    said = wording.dialog_text("", LABELS, parts=parts,
                               exports={f"{TEMP}/parcels.gpkg": "the layer 'Town parcels'"},
                               temp_root=TEMP)
    assert said == ("the layer 'Town parcels' ('Parcels (tax parcel polygons)') has no field "
                    "LOC_ID for the logical field \"id\". Set the parameter 'Parcel id field'.")
    assert plugin_kit.cli_language(parts[0]) and plugin_kit.cli_language(said) == []


@pytest.mark.parametrize("suffix", [":site", "|layername=site", ""])
def test_an_export_path_with_its_layer_suffix_becomes_the_qgis_layer(suffix):
    said = wording.dialog_text(f"Cannot read {TEMP}/site.gpkg{suffix} now", LABELS,
                               exports={f"{TEMP}/site.gpkg": "the layer 'Sites'"})
    assert said == "Cannot read the layer 'Sites' now"


def test_another_path_in_the_temporary_folder_is_dropped():
    said = wording.dialog_text(f"Wrote {TEMP}/work/x.json. See {TEMP}/log.txt", LABELS,
                               temp_root=TEMP)
    assert said == "Wrote the temporary copy. See the temporary copy"


def test_data_words_that_look_like_ids_are_kept():
    assert wording.dialog_text("Mitigation within the same HUC12", LABELS) == \
        "Mitigation within the same HUC12"
    assert wording.dialog_text("HUC10", LABELS, ids=False) == "HUC10"
    assert wording.dialog_text("SUBJECTS and XSUBJECT", LABELS) == "SUBJECTS and XSUBJECT"


def test_a_long_list_is_cut_with_the_count_left_out():
    ids = ", ".join(f"M_{n:06d}" for n in range(3000))
    said = wording.dialog_text(f"Unknown parcel ids: {ids}", LABELS)
    assert len(said) <= wording.MAX_CHARS
    assert said.endswith(" more.")
    shown = said.count("M_")
    assert said.endswith(f"and {3000 - shown} more.")


def test_a_long_text_that_is_no_list_is_kept_whole():
    """Never cut mid-word, never an ellipsis (issue 26)."""
    text = "word " * 300 + "end."
    assert wording.dialog_text(text, LABELS) == text.strip()


@given(st.lists(st.sampled_from(sorted(wording.OPTION_PARAMS)), min_size=1, max_size=6),
       st.text(alphabet="abc XYZ.,", max_size=30))
def test_no_option_is_worded_as_a_flag(options, filler):
    """Whatever options a message names, no flag is left (labels or plain words instead)."""
    parts = [filler]
    for name in options:
        parts += [" pass ", _opt(name, "FILE"), " now"]
    assert plugin_kit.cli_language(wording.dialog_text("", LABELS, parts=parts)) == []


def test_help_names_the_labels_in_bold():
    assert wording.help_text("Choose SUBJECT or SITE.", LABELS) == (
        "Choose <b>Subject property</b> or <b>Site: proposed limit of disturbance "
        "(polygons)</b>.")


@given(st.text(max_size=400))
def test_dialog_text_is_one_paragraph(text):
    said = wording.dialog_text(text, LABELS)
    assert "\n" not in said


# ----------------------------------------------------------------------- findings
def _finding(key, status, answer, **kw):
    return {"key": key, "title": key.replace("_", " ").title(), "status": status,
            "answer": answer, "section": "320-x", "layers_used": [], "layers_missing": [],
            "caveats": [], **kw}


DOC = {"findings": [
    _finding("disturbance", "yes", "Permit is required: 58,125 sq ft disturbed."),
    _finding("habitats", "not_checked", "No NHESP layer given.",
             layers_missing=["nhesp_priority", "nhesp_estimated"]),
    _finding("floodplain", "no", "The site is outside the SFHA."),
]}


def test_findings_give_typed_statuses_and_a_headline():
    found = findings.findings_of(DOC)
    out = findings.typed_outputs(found, ("disturbance", "habitats", "floodplain", "mitigation"))
    assert out["DISTURBANCE_STATUS"] == "yes"
    assert out["HABITATS_STATUS"] == "not_checked"
    assert out["FLOODPLAIN_STATUS"] == "no"
    assert out["MITIGATION_STATUS"] == ""  # the engine reported no such finding
    assert out["HEADLINE"] == "Permit is required: 58,125 sq ft disturbed."
    assert out["FINDINGS"].splitlines() == [
        "Disturbance: yes - Permit is required: 58,125 sq ft disturbed.",
        "Habitats: not checked - No NHESP layer given.",
        "Floodplain: no - The site is outside the SFHA."]


def test_summary_lines_name_the_layers_not_given():
    lines = findings.summary_lines(findings.findings_of(DOC))
    assert lines[0] == "Permit is required: 58,125 sq ft disturbed."
    # issue 35: by the dialog's labels, never the config keys
    assert lines[-1] == ("Not given, so not checked: 'NHESP Estimated Habitats of Rare "
                         "Wildlife', 'NHESP Priority Habitats of Rare Species'")
    assert len(lines) == 5


def test_caveats_follow_their_finding_at_most_three():
    doc = {"findings": [_finding("floodplain", "conditional", "No SFHA on the part covered.",
                                 caveats=[f"gap {i}" for i in range(5)]),
                        _finding("habitats", "no", "None within 500 ft.", caveats=[""])]}
    lines = findings.summary_lines(findings.findings_of(doc), ("floodplain", "habitats"))
    assert lines == ["Floodplain: conditional - No SFHA on the part covered.",
                     "  caveat: gap 0", "  caveat: gap 1", "  caveat: gap 2",
                     "  ... and 2 more caveat(s) (see the result file)",
                     "Habitats: no - None within 500 ft."]


def test_a_single_check_without_disturbance_has_its_own_headline():
    out = findings.typed_outputs(findings.findings_of(DOC), ("floodplain",))
    assert out["HEADLINE"] == "Floodplain: no - The site is outside the SFHA."


@pytest.mark.parametrize("document", [
    {"disturbance": {"permit_required": True, "common_plan_area_sqft": None}},
    {"disturbance": {"permit_required": False}, "findings": []},
    {"findings": "yes"},
    {},
])
def test_a_document_without_findings_is_an_engine_too_old(document):
    """No status is ever guessed from the old blocks: the engine is too old, and it says how to
    reinstall it."""
    with pytest.raises(findings.EngineTooOld, match="too old for this plugin") as err:
        findings.findings_of(document, path="out/screening.json")
    assert "out/screening.json" in str(err.value) and "Reinstall the engine" in str(err.value)


@pytest.mark.parametrize(("status", "value"), [
    ("yes", True), ("no", False), ("conditional", None), ("not_checked", None), ("info", None),
    ("", None), ("maybe", None)])
def test_a_flag_is_false_only_for_no(status, value):
    assert findings.flag(status) is value


@pytest.mark.parametrize(("n", "status", "value"), [
    (0, "no", 0), (2, "yes", 2), (0, "not_checked", None), (0, "conditional", None),
    (1, "conditional", 1)])
def test_a_count_of_a_search_that_did_not_run_is_null(n, status, value):
    assert findings.counted(n, status) == value


def test_status_of_a_part_and_of_a_finding_the_engine_did_not_report():
    found = [_finding("receiving_waters", "yes", "ORW downstream.",
                      parts={"orw": "yes", "impaired": "not_checked"})]
    assert findings.status_of(found, "receiving_waters") == "yes"
    assert findings.status_of(found, "receiving_waters", "orw") == "yes"
    assert findings.status_of(found, "receiving_waters", "impaired") == "not_checked"
    assert findings.flag(findings.status_of(found, "receiving_waters", "impaired")) is None
    assert findings.status_of(found, "floodplain") == "not_checked"  # not reported: not "no"


@given(st.sampled_from(findings.STATUSES), st.sampled_from(findings.STATUSES))
def test_no_flag_says_false_unless_the_engine_said_no(whole, part):
    found = [_finding("receiving_waters", whole, "x", parts={"orw": part})]
    for value, said in ((findings.flag(findings.status_of(found, "receiving_waters")), whole),
                        (findings.flag(findings.status_of(found, "receiving_waters", "orw")),
                         part)):
        assert (value is False) == (said == "no")
        assert (value is True) == (said == "yes")


def test_a_long_answer_is_kept_whole():
    """Findings, the headline and statuses are never cut ("Phosphorus, Tot...")."""
    answer = "Impaired for Phosphorus, Total; " * 20 + "show them on the plan."
    doc = {"findings": [_finding(k, "yes", f"{k}: {answer}") for k in findings.KEYS]}
    out = findings.typed_outputs(findings.findings_of(doc), findings.KEYS)
    assert out["HEADLINE"] == f"disturbance: {answer}"
    assert out["FINDINGS"].count("show them on the plan.") == len(findings.KEYS)
    assert not any(line.endswith(("...", "…")) for line in out["FINDINGS"].splitlines())
    lines = findings.summary_lines(findings.findings_of(doc))
    # the headline, then each finding whole (the disturbance line leaves out what the
    # headline said)
    assert sum(line.endswith("show them on the plan.") for line in lines) == len(findings.KEYS)
    assert not any(line.endswith(("...", "…")) for line in lines)


@pytest.mark.parametrize(("value", "status", "expected"), [
    (0, "conditional", None), (0.0, "not_checked", None), (None, "yes", None),
    (0, "no", 0), (10278.2, "conditional", 10278.2), (10278.2, "yes", 10278.2)])
def test_a_figure_not_determined_is_null_not_zero(value, status, expected):
    assert findings.determined(value, status) == expected

"""General requirements of every permit: quoted from the regulation, cut-off text said so."""

from __future__ import annotations

import re

from support.townkit import REPO

from swm_gis.screening.general_requirements import CUT_OFF_NOTE, general_requirements

REGULATION = REPO.parent / "shared" / "regulations" / "lynnfield-chapter-320.txt"


def _regulation_text() -> str:
    """The regulation with its list markers ("(3)", "A.", "[1]") on their own lines dropped and
    every run of whitespace made one space, so quoted runs can be found verbatim."""
    lines = REGULATION.read_text(encoding="utf-8").splitlines()
    keep = [ln for ln in lines if not re.fullmatch(r"\s*(\(\w+\)|[A-Z]\.|\[\d+\])\s*", ln)]
    return " ".join(" ".join(keep).split())


def _pieces(text: str) -> list[str]:
    """A quote's runs between omissions ("...") and the list markers written inline."""
    out = []
    for part in text.split("..."):
        out += [p.strip(" ;") for p in re.split(r"\s*(?:\([a-z0-9]+\)|(?<=[:.]) [A-Z]\.)\s+",
                                                part) if p.strip(" ;")]
    return out


def test_every_quote_is_the_regulations_words():
    regulation = _regulation_text()
    for item in general_requirements():
        text = item["text"].replace(f"[{CUT_OFF_NOTE}]", "").strip()
        for piece in _pieces(text):
            assert piece in regulation, (item["section"], piece)


def test_the_required_topics_are_there_with_their_sections():
    by = {i["section"]: i for i in general_requirements()}
    for section in ("§ 320-19 B(1)", "§ 320-19 B(3)", "§ 320-19 B(4)", "§ 320-19 B(5)",
                    "§ 320-19 B(6)", "§ 320-20 B(10)", "§ 320-20 B(13)", "§ 320-21 B(4)",
                    "§ 320-21 D", "§ 320-21 I", "Ch. 320, inspections, B(1)-(6)",
                    "Ch. 320, inspections, C", "Ch. 320, waivers, B-D",
                    "Ch. 320, authority, B"):
        assert section in by, section
    assert "no more than 14 days after construction activity" in by["§ 320-20 B(13)"]["text"]
    assert "at least two working days before" in by["Ch. 320, inspections, B(1)-(6)"]["text"]
    assert "annual certification" in by["§ 320-21 I"]["text"]
    assert "Planning Board and Zoning Board of Appeals" in by["Ch. 320, authority, B"]["text"]


def test_the_duties_of_filing_notice_site_and_completion_are_quoted():
    """Issue 24 item 6: each duty with the regulation's words."""
    by = {i["section"]: i["text"] for i in general_requirements()}
    filing = by["Ch. 320, permit procedure, A"]
    assert "The site owner shall file with the Conservation Commission" in filing
    assert "the permittee must be the owner of the site" in filing
    assert "hand delivered or sent certified mail, return receipt requested" in filing
    notice = by["Ch. 320, permit procedure, A(7)"]
    for words in ("on a form supplied by the Conservation Commission Administrator",
                  "Notification shall be at the applicant's expense",
                  "at the mailing addresses as certified by the Assessors' office",
                  "where copies of the application or request, with plans, may be examined and "
                  "copied and where information on the date, time and location of the public "
                  "hearing may be obtained",
                  "by certified mail, return receipt requested, or by certificates of mailing"):
        assert words in notice, words
    assert "shall be maintained at the site during the progress of the work" in \
        by["Ch. 320, inspections, B"]
    assert "Upon certification by the Town Clerk that the allowed time has passed" in \
        by["Ch. 320, permit procedure, G"]
    assert "Any discrepancies from the approved permit should be noted in the cover letter." in \
        by["Ch. 320, final reports"]
    assert "letter certifying completion" in by["Ch. 320, certificate of completion"]
    for section, words in (("§ 320-21 B(2)", "The purpose of each easement shall be specified"),
                           ("§ 320-21 C", "shall not be assigned or transferred to the owner"),
                           ("§ 320-21 E", "Preventative and corrective maintenance shall be"),
                           ("§ 320-21 G", "shall retain and make available, upon request"),
                           ("§ 320-21 H", "must notify the authorized enforcement authority of "
                                          "changes in ownership")):
        assert words in by[section], section


def test_other_boards_actions_entry_and_plan_changes_are_quoted():
    """Issue 32 item 8: permit procedure D and F, inspections E and § 320-19 C."""
    by = {i["section"]: i["text"] for i in general_requirements()}
    other = by["Ch. 320, permit procedure, D"]
    assert "shall notify the Town Clerk of receipt of the application" in other
    assert "to Planning Board, Board of Health or others as appropriate" in other
    actions = by["Ch. 320, permit procedure, F"]
    # the three possible actions, each quoted: approval, approval with conditions, disapproval
    assert actions.count("Approval of the stormwater management permit application") == 2
    assert "subject to any conditions, modifications or restrictions" in actions
    assert "Disapproval of the stormwater management permit application" in actions
    assert "may enter upon privately owned property" in by["Ch. 320, inspections, E"]
    changes = by["§ 320-19 C"]
    assert "before any change or alteration occurs" in changes
    assert "an amended stormwater management permit application be filed" in changes
    # the regulation's order: D before E, F before G; § 320-19 C after B(6), before § 320-20
    order = list(by)
    for first, then in (("Ch. 320, permit procedure, C", "Ch. 320, permit procedure, D"),
                        ("Ch. 320, permit procedure, F", "Ch. 320, permit procedure, G"),
                        ("§ 320-19 B(6)", "§ 320-19 C"), ("§ 320-19 C", "§ 320-20 B(1)-(2)"),
                        ("Ch. 320, inspections, D", "Ch. 320, inspections, E")):
        assert order.index(first) + 1 == order.index(then), (first, then)


def test_no_section_number_the_regulation_does_not_give():
    numbers = set(re.findall(r"\b320-\d+", REGULATION.read_text(encoding="utf-8")))
    for item in general_requirements():
        for found in re.findall(r"\b320-\d+", item["section"] + " " + item["text"]):
            assert found in numbers, (item["section"], found)


def test_cut_off_text_is_said_not_invented():
    cut = {i["section"]: i for i in general_requirements() if i["cut_off"]}
    assert set(cut) == {"§ 320-21 B(1)", "Ch. 320, waivers, A"}
    assert cut["Ch. 320, waivers, A"]["text"] == f"[{CUT_OFF_NOTE}]"
    assert cut["§ 320-21 B(1)"]["text"] == (
        "Stormwater management easements shall be provided by the property owner(s) as "
        f"necessary for: [{CUT_OFF_NOTE}]")


def test_docstring_examples_run():
    import doctest

    import swm_gis.screening.general_requirements as module

    assert doctest.testmod(module).failed == 0

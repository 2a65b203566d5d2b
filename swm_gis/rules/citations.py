"""The citations the rule functions print, taken from the regulation profile applied (issue 33).

The rules (:mod:`~swm_gis.rules.disturbance`, :mod:`~swm_gis.rules.development`,
:mod:`~swm_gis.rules.standards`, :mod:`~swm_gis.rules.watersheds`) write sections and reasons
that cite the regulation; they take those citations as data, a :class:`RuleCitations` built by
:func:`rule_citations` from the profile's version, so a profile with other sections changes every
citation where it is written. A rule called without one cites the default profile
(:data:`~swm_gis.config.regulation.DEFAULT_ID`), as its rule values default to that profile's.
A citation the profile leaves out is the regulation's short name (``short_name``, else
``chapter``, else ``title``), never another town's section.

Examples
--------
>>> from swm_gis.config.regulation import load_regulation
>>> c = rule_citations(load_regulation("westwood-ch350", on="2026-01-01"))
>>> c.trigger, c.new_development
('Ch. 350, Art. III, applicability A', 'Ch. 350')
>>> c.sub("new"), c.part("new", "b")
(None, '')
"""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Mapping
from typing import Any

__all__ = ["RuleCitations", "default_citations", "joined", "rule_citations"]


def joined(first: str, second: str, sep: str = ", ") -> str:
    """Two citations in a row, the second without the words they share up to a space
    ("§ 9-19 B(7)(b), B(8)(b)"; "A and B" when they share none)."""
    shared = os.path.commonprefix([first, second])
    shared = shared[:shared.rfind(" ") + 1]
    return f"{first}{sep}{second[len(shared):]}"


@dataclasses.dataclass(frozen=True)
class RuleCitations:
    """What the rule functions cite, each from the profile's version (else ``name``)."""

    name: str                   # the regulation's short name: what a missing citation prints
    trigger: str                # applicability.citation
    exemptions: str             # citations.exemptions (else exemptions_citation)
    permit_required: str        # citations.permit_required (else submittals.citation)
    definitions: str            # definitions.citation
    definitions_words: str      # citations.development_definitions (else definitions.citation)
    new_development: str        # standards.new_development.citation
    redevelopment: str          # standards.redevelopment.citation
    new_retention: str          # standards.new_development.retention_citation
    redevelopment_retention: str
    roadway_maintenance: str    # standards.roadway_maintenance_citation
    notice: str = ""            # citations.abutters (else notice.citation): the abutter list
    certification: str = ""     # citations.certification (else notice.certification_citation)
    mitigation: Mapping[str, str] = dataclasses.field(default_factory=dict)  # HUC level -> cite
    subs: Mapping[str, str] = dataclasses.field(default_factory=dict)  # "new" -> "B(7)", ...
    #: the profile's [[versions.exemptions]]: id -> (citation, activity), in the profile's order
    exemption_list: Mapping[str, tuple[str, str]] = dataclasses.field(default_factory=dict)
    #: whether the profile has a roadway-maintenance exemption
    #: (``standards.roadway_maintenance_citation``)
    has_roadway_exemption: bool = True
    authority: str = "permit authority"   # offices.permit_authority: who decides a claim
    authority_role: str | None = None     # offices.authority_role

    def decider(self) -> str:
        """Who decides an applicant's claim: "the authorized enforcement authority
        (Conservation Commission)" (the role and the office), else "the *office*"."""
        if self.authority_role:
            return f"the {self.authority_role} ({self.authority})"
        return f"the {self.authority}"

    def decider_short(self) -> str:
        """The deciding office in short, as a sentence names it again: its last word
        ("Commission", "Board")."""
        return self.authority.rsplit(" ", 1)[-1]

    def exemptions_label(self) -> str:
        """The exemptions as one label ("Bylaw 213-16B"): what every exemption's citation
        starts with, up to its own subsection's opening bracket; else the exemptions'
        citation."""
        cites = [c for c, _ in self.exemption_list.values()]
        if len(cites) < 2:  # a shared start needs two citations
            return self.exemptions
        shared = os.path.commonprefix(cites)
        shared = shared[:shared.rfind("(")] if "(" in shared else shared
        return shared.strip(" ,;") or self.exemptions

    def standard(self, kind: str) -> str:
        """The standards' citation of ``kind`` (``"new"`` or ``"redevelopment"``)."""
        return self.new_development if kind == "new" else self.redevelopment

    def sub(self, kind: str) -> str | None:
        """The standard's subsection as its parts are labelled ("B(7)": "B(7)(a)", ...); None
        when the profile gives the standard no citation of its own."""
        return self.subs.get(kind)

    def short(self, kind: str) -> str:
        """The standard as the findings name it beside the other ("B(7)"): its subsection,
        else its citation."""
        return self.sub(kind) or self.standard(kind)

    def part(self, kind: str, letter: str) -> str:
        """`` (B(7)(b))``: the label of one lettered part of the standard, with its space and
        brackets; empty without a subsection."""
        sub = self.sub(kind)
        return f" ({sub}({letter}))" if sub else ""

    def parts(self, kind: str, span: str, *, whole: bool = True) -> str:
        """Lettered parts of a standard: ``span`` after its citation ("§ 320-19 B(8)(a)
        through (d)") or, not ``whole``, after its subsection ("B(8)(a)-(d)"); the standard's
        citation alone where it has no subsection."""
        sub = self.sub(kind)
        if sub is None:
            return self.standard(kind)
        return f"{self.standard(kind) if whole else sub}{span}"

    def roadway_on_new(self, *, note: bool = False) -> str:
        """Why a roadway-maintenance claim on new development does not hold: the standards'
        reason, or (``note``) the standards finding's note."""
        new = self.short("new")
        if note:
            return (f"The applicant's roadway-maintenance claim ({self.roadway_maintenance}) "
                    "does not apply: that exemption is for redevelopment only, and as new "
                    f"development the {new} standards apply in full.")
        return (f"The roadway-maintenance exemption of {self.roadway_maintenance} is for "
                f"redevelopment only; as new development the {new} standards apply in full.")

    def roadway_sub(self) -> str:
        """The roadway exemption as the redevelopment standard's part ("B(8)(e)"): its
        citation's last word where the standard has a subsection, else its citation."""
        if self.sub("redevelopment") is None:
            return self.roadway_maintenance
        return _last_word(self.roadway_maintenance) or self.roadway_maintenance

    def retention(self) -> str:
        """Both types' retention citations ("§ 320-19 B(7)(b), B(8)(b)")."""
        if self.new_retention == self.redevelopment_retention:
            return self.new_retention
        return joined(self.new_retention, self.redevelopment_retention)

    def mitigation_of(self, level: str) -> str:
        """The off-site mitigation citation of a HUC level; both types' for another level."""
        return self.mitigation.get(level.upper()) or self.mitigation_both("/")

    def mitigation_both(self, sep: str) -> str:
        """Both types' mitigation citations ("§ 320-19 B(7)(d) and B(8)(d)")."""
        cites = list(dict.fromkeys(self.mitigation.values())) or [self.name]
        return cites[0] if len(cites) == 1 else joined(cites[0], cites[1], sep)


def _last_word(citation: str | None) -> str | None:
    """The subsection a standard's parts are labelled with: the citation's last word
    ("§ 320-19 B(7)" -> "B(7)")."""
    return citation.rsplit(" ", 1)[-1] if citation else None


def _first(*given: Any) -> str:
    """The first citation given (the last argument is the fallback, always given)."""
    return str(next(g for g in given if g))


def rule_citations(applied: Any) -> RuleCitations:
    """The rules' citations under an applied regulation
    (:class:`~swm_gis.config.regulation.AppliedRegulation`; pure: the profile is read already)."""
    profile, version = applied.profile, applied.version
    name = profile.short_name or profile.chapter or profile.title
    new, redev = version.new_development, version.redevelopment
    definitions = version.section("definitions").get("citation")
    mitigation: dict[str, str] = {}
    for standard in (new, redev):
        if standard.mitigation_huc and standard.mitigation_citation:
            mitigation.setdefault(standard.mitigation_huc, standard.mitigation_citation)
    subs = {k: _last_word(c) for k, c in (("new", new.citation),
                                           ("redevelopment", redev.citation)) if c}
    return RuleCitations(
        name=name,
        trigger=_first(version.section("applicability").get("citation"), name),
        exemptions=_first(version.citation("exemptions"),
                          version.tables.get("exemptions_citation"), name),
        permit_required=_first(version.citation("permit_required"),
                               version.section("submittals").get("citation"), name),
        definitions=_first(definitions, name),
        definitions_words=_first(version.citation("development_definitions"), definitions,
                                 name),
        new_development=_first(new.citation, name),
        redevelopment=_first(redev.citation, name),
        new_retention=_first(new.retention_citation, new.citation, name),
        redevelopment_retention=_first(redev.retention_citation, redev.citation, name),
        roadway_maintenance=_first(
            version.section("standards").get("roadway_maintenance_citation"), redev.citation,
            name),
        notice=_first(version.citation("abutters"), version.section("notice").get("citation"),
                      name),
        certification=_first(version.citation("certification"),
                             version.section("notice").get("certification_citation"), name),
        mitigation=mitigation,
        subs=subs,
        exemption_list={e.key: (e.citation, e.activity) for e in version.exemptions},
        has_roadway_exemption=bool(
            version.section("standards").get("roadway_maintenance_citation")),
        authority=profile.offices.permit_authority,
        authority_role=profile.offices.authority_role,
    )


@functools.lru_cache(maxsize=1)
def default_citations() -> RuleCitations:
    """The citations of the default profile's first version: what a rule called without
    ``citations`` prints (its rule values default to the same profile's)."""
    from swm_gis.config.regulation import DEFAULT_ID, AppliedRegulation, read_regulation

    profile = read_regulation(DEFAULT_ID)
    first = profile.versions[0]
    return rule_citations(AppliedRegulation(profile, first, first.effective))

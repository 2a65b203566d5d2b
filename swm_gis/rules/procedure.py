"""The permit procedure a regulation profile gives the timeline (:mod:`swm_gis.rules.timeline`):
its day counts, each step's citation and each step's rule in words (issue 33).

The day counts and citations are the profile's ``[versions.timeline]`` and ``[versions.notice]``;
the rules are the ``[timeline]`` texts of the profile's ``texts`` file, byte for byte
(Lynnfield's quote its Chapter 320). A profile that supplies no text gets swm-gis's own neutral
sentence built from its figures and offices, never another town's words; a step whose day count
the profile does not give has no date.

Examples
--------
>>> from swm_gis.config.regulation import load_regulation
>>> p = procedure_of(load_regulation("westwood-ch350", on="2026-01-01"))
>>> p.hearing_days, p.rules["hearing"][:40]
(21, 'The Conservation Commission opens the pu')
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["STEPS", "Procedure", "default_procedure", "procedure_of"]

#: The timeline's steps, in order.
STEPS = ("received", "hearing", "abutter_notice", "newspaper_notice", "decision", "expiry",
         "renewal_request")


@dataclass(frozen=True)
class Procedure:
    """The figures, citations and words of one regulation's permit timeline."""

    hearing_days: int | None
    decision_days: int | None
    term_years: int | None
    renewals: int | None
    renewal_years: int | None
    renewal_days: int | None
    mail_days: int | None
    mail_business: bool
    paper_days: int | None
    paper_business: bool
    rules: Mapping[str, str]
    sections: Mapping[str, str]


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


def _days(n: int | None, business: bool) -> str:
    return f"{n} {'business ' if business else ''}days"


def _neutral_rules(p: dict[str, Any], applied: Any) -> dict[str, str]:
    """swm-gis's own sentence for each step, from the profile's figures and offices."""
    offices, notice = applied.profile.offices, applied.version.section("notice")
    authority = f"the {offices.permit_authority}"
    distance = notice.get("distance_ft")
    within = f" (owners within {distance:,.0f} feet)" if distance is not None else ""
    method = f" by {notice['method']}" if notice.get("method") else ""
    paper = offices.newspaper or "a newspaper"
    renewals = p["renewals"]

    def after(n: int | None, what: str) -> str:
        return f"within {n} days of {what}" if n is not None else \
            f"within the time the regulation sets after {what}"

    return {
        "received": f"The application is deemed filed on the date {offices.agent or authority} "
                    "receives it complete.",
        "hearing": f"{authority[0].upper()}{authority[1:]} opens the public hearing "
                   f"{after(p['hearing_days'], 'receipt of a completed application')}.",
        "abutter_notice": f"The applicant notifies abutters{within}{method}"
                          + (f", at least {_days(p['mail_days'], p['mail_business'])} before "
                             "the public hearing." if p["mail_days"] is not None else "."),
        "newspaper_notice": f"Notice of the hearing in {paper}"
                            + (f", at least {_days(p['paper_days'], p['paper_business'])} "
                               "before the hearing." if p["paper_days"] is not None else "."),
        "decision": f"{authority[0].upper()}{authority[1:]} issues its decision in writing "
                    f"{after(p['decision_days'], 'the close of the public hearing')}.",
        "expiry": (f"The permit expires {p['term_years']} years from the date of issuance."
                   if p["term_years"] is not None else
                   "The regulation applied gives the permit no term here."),
        "renewal_request": (
            f"A permit may be renewed {'once' if renewals == 1 else f'{renewals} times'}"
            + (f" for {p['renewal_years']} year(s)" if p["renewal_years"] else "")
            + (f" if a written request is received at least {p['renewal_days']} days before "
               "it expires." if p["renewal_days"] is not None else ".")
            if renewals else "The regulation applied gives no renewal here."),
    }


def procedure_of(applied: Any) -> Procedure:
    """The procedure of an applied regulation (:class:`~swm_gis.config.regulation.
    AppliedRegulation`)."""
    version = applied.version
    timeline, notice = version.section("timeline"), version.section("notice")
    p = {"hearing_days": _int(timeline.get("hearing_within_days")),
         "decision_days": _int(timeline.get("decision_within_days")),
         "term_years": _int(timeline.get("permit_term_years")),
         "renewals": _int(timeline.get("renewals")),
         "renewal_years": _int(timeline.get("renewal_years")),
         "renewal_days": _int(timeline.get("renewal_request_days_before_expiry")),
         "mail_days": _int(notice.get("days_before_hearing")),
         "mail_business": notice.get("day_kind") == "business",
         "paper_days": _int(notice.get("newspaper_days_before_hearing")),
         "paper_business": notice.get("newspaper_day_kind", "business") == "business"}
    given = dict(applied.profile.texts_table().get("timeline") or {})
    rules = {k: given.get(k, v) for k, v in _neutral_rules(p, applied).items()}
    steps = timeline.get("steps") or {}
    fallback = timeline.get("citation") or version.citation("timeline") or \
        applied.profile.short_name or applied.profile.chapter or applied.profile.title
    sections = {k: str((steps.get(k) or {}).get("citation") or fallback) for k in STEPS}
    return Procedure(**p, rules=rules, sections=sections)


def default_procedure(on: dt.date | None = None) -> Procedure:
    """The default profile's procedure (Lynnfield's), in force on ``on`` (today; a date
    before its first version: the first version's)."""
    from swm_gis.config.town_regulation import read_profile

    profile = read_profile(None)
    day = on or dt.date.today()
    first = profile.versions[0]
    version = first if day < first.effective else profile.version_on(day)
    from swm_gis.config.regulation import AppliedRegulation

    return procedure_of(AppliedRegulation(profile, version, day))

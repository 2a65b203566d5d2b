"""Permit timeline of Chapter 320's permit procedure, with Massachusetts legal holidays and
business days.

The copy of the regulation numbers only §§ 320-19, 320-20 and 320-21, so the permit procedure is
cited by its heading ("Ch. 320, permit procedure, B(2)"), never by a number the text does not
give. The deadlines (quoted from the permit procedure of the Lynnfield rules):

* A(7): abutter notice "by certified mail, return receipt requested, or by certificates of
  mailing"; "Mailing at least seven days prior to the public hearing shall constitute timely
  notice" (calendar days);
* B(1): newspaper notice "at least five business days prior to the hearing";
* B(2): the Commission "shall commence the public hearing within 21 days from receipt of a
  completed permit application", and "shall issue its permit in writing within 21 days of the
  close of the public hearing";
* J: a permit "shall expire three years from the date of issuance" and "may be renewed once for
  an additional one-year period, provided that a request for renewal is received in writing ...
  at least 30 days prior to expiration".

How days are counted (the usual rule for legal periods): the day of the event a period runs from
is not counted and the last day is; counting backwards from a hearing, the hearing day is not
counted. Business days skip Saturdays, Sundays and Massachusetts legal holidays. A latest day
(the hearing's, the decision's, a mailing's, a renewal request's) that falls on a weekend or a
legal holiday is moved to the business day before, and the step says so; the notice dates are
then counted from the moved hearing day.

Massachusetts legal holidays (M.G.L. c. 4, § 7, cl. 18): New Year's Day, Martin Luther King Jr.
Day (3rd Monday of January), Washington's Birthday (3rd Monday of February), Patriots' Day (3rd
Monday of April), Memorial Day (last Monday of May), Juneteenth (June 19), Independence Day
(July 4), Labor Day (1st Monday of September), Columbus Day / Indigenous Peoples' Day (2nd Monday
of October), Veterans Day (November 11), Thanksgiving (4th Thursday of November) and Christmas
(December 25). A fixed-date holiday that falls on a Sunday is observed on the following Monday.
The statute moves no Saturday holiday; ``saturday_on_friday=True`` observes one on the Friday
before (the federal rule), for offices that close then. Evacuation Day and Bunker Hill Day are
Suffolk County holidays only and do not apply in Lynnfield (Essex County).

Examples
--------
>>> ma_legal_holidays(2027)[dt.date(2027, 4, 19)]
"Patriots' Day"
>>> subtract_business_days(dt.date(2027, 4, 22), 5)   # skips Patriots' Day, April 19
datetime.date(2027, 4, 14)
"""

from __future__ import annotations

import calendar
import datetime as dt
from dataclasses import dataclass, replace
from functools import lru_cache

from swm_gis.rules.procedure import Procedure, default_procedure

__all__ = [
    "Deadline",
    "add_business_days",
    "add_years",
    "is_business_day",
    "ma_legal_holidays",
    "permit_timeline",
    "received_note",
    "subtract_business_days",
]


#: Fixed-date holidays (month, day, name); these move to Monday when they fall on a Sunday.
_FIXED = (
    (1, 1, "New Year's Day"),
    (6, 19, "Juneteenth Independence Day"),
    (7, 4, "Independence Day"),
    (11, 11, "Veterans Day"),
    (12, 25, "Christmas Day"),
)
#: Floating holidays (month, weekday, n-th occurrence, -1 = last, name).
_FLOATING = (
    (1, calendar.MONDAY, 3, "Martin Luther King Jr. Day"),
    (2, calendar.MONDAY, 3, "Washington's Birthday"),
    (4, calendar.MONDAY, 3, "Patriots' Day"),
    (5, calendar.MONDAY, -1, "Memorial Day"),
    (9, calendar.MONDAY, 1, "Labor Day"),
    (10, calendar.MONDAY, 2, "Columbus Day / Indigenous Peoples' Day"),
    (11, calendar.THURSDAY, 4, "Thanksgiving Day"),
)
#: Juneteenth became a Massachusetts legal holiday in 2021 (St. 2020, c. 253).
_JUNETEENTH_FROM = 2021


def _nth_weekday(year: int, month: int, weekday: int, n: int) -> dt.date:
    """The n-th ``weekday`` of a month (n = -1: the last one)."""
    days = [d for d in calendar.Calendar().itermonthdates(year, month)
            if d.month == month and d.weekday() == weekday]
    return days[n - 1] if n > 0 else days[n]


@lru_cache(maxsize=64)
def _holidays(year: int, saturday_on_friday: bool) -> tuple[tuple[dt.date, str], ...]:
    found: list[tuple[dt.date, str]] = []
    for month, day, name in _FIXED:
        if name.startswith("Juneteenth") and year < _JUNETEENTH_FROM:
            continue
        date = dt.date(year, month, day)
        if date.weekday() == calendar.SUNDAY:
            found.append((date + dt.timedelta(days=1), f"{name} (observed)"))
        elif date.weekday() == calendar.SATURDAY and saturday_on_friday:
            found.append((date - dt.timedelta(days=1), f"{name} (observed)"))
        else:
            found.append((date, name))
    for month, weekday, n, name in _FLOATING:
        found.append((_nth_weekday(year, month, weekday, n), name))
    return tuple(sorted(found))


def ma_legal_holidays(year: int, *, saturday_on_friday: bool = False) -> dict[dt.date, str]:
    """Massachusetts legal holidays of ``year`` as observed: ``{date: name}``.

    >>> ma_legal_holidays(2022)[dt.date(2022, 12, 26)]   # Christmas 2022 was a Sunday
    'Christmas Day (observed)'
    >>> dt.date(2027, 6, 18) in ma_legal_holidays(2027)  # Juneteenth 2027 is a Saturday
    False
    >>> ma_legal_holidays(2027, saturday_on_friday=True)[dt.date(2027, 6, 18)]
    'Juneteenth Independence Day (observed)'
    """
    return dict(_holidays(int(year), bool(saturday_on_friday)))


def holiday_name(date: dt.date, *, saturday_on_friday: bool = False) -> str | None:
    """The holiday observed on ``date``, or None."""
    return ma_legal_holidays(date.year, saturday_on_friday=saturday_on_friday).get(date)


def is_business_day(date: dt.date, *, saturday_on_friday: bool = False) -> bool:
    """Monday to Friday and not a Massachusetts legal holiday."""
    return date.weekday() < 5 and holiday_name(date, saturday_on_friday=saturday_on_friday) is None


def add_business_days(date: dt.date, days: int, *, saturday_on_friday: bool = False) -> dt.date:
    """The ``days``-th business day after ``date`` (before it when ``days`` is negative).

    ``date`` itself is not counted, so the result is always a business day (for days != 0).

    >>> add_business_days(dt.date(2026, 11, 25), 1)   # Thanksgiving 2026 is Thursday Nov 26
    datetime.date(2026, 11, 27)
    """
    step = 1 if days >= 0 else -1
    current, left = date, abs(int(days))
    while left:
        current += dt.timedelta(days=step)
        if is_business_day(current, saturday_on_friday=saturday_on_friday):
            left -= 1
    return current


def subtract_business_days(date: dt.date, days: int, *, saturday_on_friday: bool = False
                           ) -> dt.date:
    """The ``days``-th business day before ``date`` (``date`` itself not counted)."""
    return add_business_days(date, -int(days), saturday_on_friday=saturday_on_friday)


def add_years(date: dt.date, years: int) -> dt.date:
    """Same month and day ``years`` later; February 29 becomes February 28 in a common year."""
    try:
        return date.replace(year=date.year + years)
    except ValueError:
        return date.replace(year=date.year + years, day=28)


@dataclass(frozen=True)
class Deadline:
    """One step of the permit timeline.

    ``date`` is None when the date it runs from is not known. ``relation`` says how the date
    bounds the act: "on" (the event itself), "by" (latest day) or "not after" / "not before".
    ``note`` says when a latest day that fell on a weekend or legal holiday was moved to the
    business day before (and flags a scheduled hearing on such a day).
    """

    key: str
    label: str
    rule: str  # the rule in words, quoting the regulation
    section: str  # the regulation's citation (the profile's timeline step)
    date: dt.date | None = None
    relation: str = "by"
    basis: str = ""  # what the date was computed from
    note: str = ""


def business_day_on_or_before(date: dt.date, *, saturday_on_friday: bool = False) -> dt.date:
    """``date`` itself when it is a business day, else the last business day before it.

    >>> business_day_on_or_before(dt.date(2026, 11, 26))   # Thanksgiving 2026
    datetime.date(2026, 11, 25)
    """
    if is_business_day(date, saturday_on_friday=saturday_on_friday):
        return date
    return subtract_business_days(date, 1, saturday_on_friday=saturday_on_friday)


def _not_business(date: dt.date, *, saturday_on_friday: bool) -> str:
    """What makes ``date`` no business day ("Thanksgiving Day", "a Saturday"), or ""."""
    name = holiday_name(date, saturday_on_friday=saturday_on_friday)
    if name:
        return name
    return f"a {calendar.day_name[date.weekday()]}" if date.weekday() >= 5 else ""


def _moved(date: dt.date | None, *, saturday_on_friday: bool) -> tuple[dt.date | None, str]:
    """A latest day moved to the business day before when it is none, and the note saying so."""
    if date is None:
        return None, ""
    why = _not_business(date, saturday_on_friday=saturday_on_friday)
    if not why:
        return date, ""
    moved = business_day_on_or_before(date, saturday_on_friday=saturday_on_friday)
    return moved, (f"The computed latest day, {date:%a %b %-d, %Y}, falls on {why}: moved to "
                   f"the business day before, {moved:%a %b %-d, %Y}.")


def received_note(received: dt.date | None, *, saturday_on_friday: bool = False) -> str:
    """What the timeline says of a receipt date that is no business day ("" for one that is).

    The rule applied, from the text: permit procedure B(1) deems the application filed on "the
    date of receipt by the Conservation Commission Administrator", and B(2) counts the hearing's
    21 days "from receipt of a completed permit application". Neither moves a receipt day, so
    the periods count from the date as given (calendar days, the day of receipt not counted);
    only a latest day that falls on a weekend or legal holiday is moved (to the business day
    before, as everywhere in this timeline).

    >>> received_note(dt.date(2027, 4, 19))[:62]
    "Received on Mon Apr 19, 2027, which is Patriots' Day (a Massac"
    >>> received_note(dt.date(2027, 4, 20))
    ''
    """
    if received is None:
        return ""
    why = _not_business(received, saturday_on_friday=saturday_on_friday)
    if not why:
        return ""
    holiday = holiday_name(received, saturday_on_friday=saturday_on_friday)
    what = f"{why} (a Massachusetts legal holiday)" if holiday else why
    return (f"Received on {received:%a %b %-d, %Y}, which is {what}, not a business day. "
            "Permit procedure B(1) deems the application filed on \"the date of receipt\" and "
            "B(2) counts 21 days \"from receipt\"; neither moves a receipt day, so the periods "
            "count from this date as given (the day of receipt not counted). If the "
            "Administrator records receipt on the next business day, give that date.")


def permit_timeline(
    received: dt.date | None = None,
    *,
    hearing: dt.date | None = None,
    hearing_closed: dt.date | None = None,
    issued: dt.date | None = None,
    saturday_on_friday: bool = False,
    procedure: Procedure | None = None,
) -> list[Deadline]:
    """The permit-procedure timeline, with dates when the application's receipt date is known.

    Parameters
    ----------
    received
        Date the Conservation Commission Administrator received the completed application
        (permit procedure B(1): the date on which the application is deemed filed).
    hearing
        Date of the public hearing, if scheduled; otherwise the notice deadlines are computed
        from the latest day the hearing may open.
    hearing_closed
        Date the hearing closed; defaults to the hearing date (a hearing not continued).
    issued
        Date of permit issuance; defaults to the latest decision date, so the expiry shown is
        the latest it can be.
    saturday_on_friday
        Observe Saturday holidays on the Friday before (not the Massachusetts statute's rule).
    procedure
        The regulation's day counts, citations and words
        (:func:`swm_gis.rules.procedure.procedure_of`); default: the default profile's
        (Lynnfield's Chapter 320, whose figures this docstring quotes).

    Returns
    -------
    list of Deadline
        In order: application received, hearing opens, abutter notice mailed, newspaper notice
        published, decision issued, permit expires, renewal request received.

    Examples
    --------
    >>> steps = {s.key: s for s in permit_timeline(dt.date(2027, 4, 1))}
    >>> steps["hearing"].date, steps["newspaper_notice"].date, steps["abutter_notice"].date
    (datetime.date(2027, 4, 22), datetime.date(2027, 4, 14), datetime.date(2027, 4, 15))
    >>> steps["decision"].date, steps["expiry"].date, steps["renewal_request"].date
    (datetime.date(2027, 5, 13), datetime.date(2030, 5, 13), datetime.date(2030, 4, 12))
    """
    opt = {"saturday_on_friday": saturday_on_friday}
    p = procedure or default_procedure(received)
    d = _timeline_dates(received, hearing, hearing_closed, issued, opt, p)
    steps = [*_hearing_steps(received, hearing, d, p),
             *_permit_steps(hearing_closed, issued, d, p)]
    steps[1] = _scheduled_hearing_note(steps[1], hearing, d["latest_hearing"], opt,
                                       p.hearing_days)
    return steps


def _plus(day: dt.date | None, days: int | None) -> dt.date | None:
    return day + dt.timedelta(days=days) if day and days is not None else None


def _timeline_dates(received: dt.date | None, hearing: dt.date | None,
                    hearing_closed: dt.date | None, issued: dt.date | None,
                    opt: dict[str, bool], p: Procedure) -> dict:
    """Every date of :func:`permit_timeline` (None where unknown) and the moved-day notes."""
    d: dict = {"received_note": received_note(received, **opt)}
    d["latest_hearing"], d["hearing_moved"] = _moved(_plus(received, p.hearing_days), **opt)
    d["hearing_day"] = hearing_day = hearing or d["latest_hearing"]
    closed = hearing_closed or hearing_day
    d["decision"], d["decision_moved"] = _moved(_plus(closed, p.decision_days), **opt)
    issue_day = issued or d["decision"]
    d["expiry"] = expiry = add_years(issue_day, p.term_years) \
        if issue_day and p.term_years is not None else None
    d["renewal"], d["renewal_moved"] = _moved(
        _plus(expiry, -p.renewal_days if p.renewal_days is not None else None), **opt)
    d["mail_by"], d["mail_moved"] = _before(hearing_day, p.mail_days, p.mail_business, opt)
    d["paper_by"], _ = _before(hearing_day, p.paper_days, p.paper_business, opt)
    return d


def _before(hearing_day: dt.date | None, days: int | None, business: bool,
            opt: dict[str, bool]) -> tuple[dt.date | None, str]:
    """The latest day of a notice ``days`` (business) days before the hearing, and the note of
    a calendar day moved off a weekend or holiday."""
    if hearing_day is None or days is None:
        return None, ""
    if business:
        return subtract_business_days(hearing_day, days, **opt), ""
    return _moved(hearing_day - dt.timedelta(days=days), **opt)


def _counted(days: int | None, business: bool) -> str:
    return f"{days} business days (weekends and MA legal holidays skipped)" if business \
        else f"{days} days"


def _hearing_steps(received: dt.date | None, hearing: dt.date | None, d: dict,
                   p: Procedure) -> list[Deadline]:
    """Application received, hearing opens, abutter notice mailed, newspaper notice published."""
    hearing_day, hearing_moved = d["hearing_day"], d["hearing_moved"]
    mail_by, mail_moved, paper_by = d["mail_by"], d["mail_moved"], d["paper_by"]
    hearing_basis = ("scheduled hearing date" if hearing else
                     f"received + {p.hearing_days} days" if received and p.hearing_days
                     is not None else "")
    return [
        Deadline(
            "received", "Completed application received", section=p.sections["received"],
            rule=p.rules["received"],
            date=received, relation="on", basis="given" if received else "",
            note=d["received_note"]),
        Deadline(
            "hearing", "Public hearing opens" if hearing else "Public hearing opens (latest)",
            section=p.sections["hearing"], rule=p.rules["hearing"],
            date=hearing_day,
            relation="on" if hearing else "by", basis=hearing_basis,
            note="" if hearing else hearing_moved),
        Deadline(
            "abutter_notice", "Abutter notice mailed", section=p.sections["abutter_notice"],
            rule=p.rules["abutter_notice"], date=mail_by,
            basis=f"hearing - {_counted(p.mail_days, p.mail_business)}" if mail_by else "",
            note=mail_moved),
        Deadline(
            "newspaper_notice", "Newspaper notice published",
            section=p.sections["newspaper_notice"], rule=p.rules["newspaper_notice"],
            date=paper_by,
            basis=f"hearing - {_counted(p.paper_days, p.paper_business)}" if paper_by else ""),
    ]


def _permit_steps(hearing_closed: dt.date | None, issued: dt.date | None,
                  d: dict, p: Procedure) -> list[Deadline]:
    """Decision issued, permit expires, renewal request received."""
    decision, decision_moved = d["decision"], d["decision_moved"]
    expiry, renewal, renewal_moved = d["expiry"], d["renewal"], d["renewal_moved"]
    return [
        Deadline(
            "decision", "Permit decision issued in writing", section=p.sections["decision"],
            rule=p.rules["decision"], date=decision,
            basis=(f"hearing closed + {p.decision_days} days" if hearing_closed else
                   f"hearing + {p.decision_days} days, assuming it closes the day it opens")
            if decision else "",
            note=decision_moved),
        Deadline(
            "expiry", "Permit expires", section=p.sections["expiry"], rule=p.rules["expiry"],
            date=expiry, relation="on",
            basis=(f"issuance + {p.term_years} years" if issued else
                   f"latest decision date + {p.term_years} years") if expiry else ""),
        Deadline(
            "renewal_request", f"Renewal request received ({_renewals(p)})",
            section=p.sections["renewal_request"], rule=p.rules["renewal_request"],
            date=renewal, basis=f"expiry - {p.renewal_days} days" if renewal else "",
            note=renewal_moved),
    ]


def _renewals(p: Procedure) -> str:
    """"one 1-year renewal", "2 renewals of 1 year", "no renewal"."""
    if not p.renewals:
        return "no renewal"
    years = f"{p.renewal_years}-year " if p.renewal_years else ""
    return f"one {years}renewal" if p.renewals == 1 else f"{p.renewals} {years}renewals"


def _scheduled_hearing_note(step: Deadline, hearing: dt.date | None,
                            latest_hearing: dt.date | None, opt: dict[str, bool],
                            limit_days: int | None = 21) -> Deadline:
    """The hearing step with the notes a scheduled hearing date may need (not a business day;
    later than the 21-day limit)."""
    if hearing and not is_business_day(hearing, **opt):
        step = replace(step, note=f"The scheduled hearing falls on "
                       f"{_not_business(hearing, **opt)}.")
    if hearing and latest_hearing and hearing > latest_hearing:
        step = replace(step, note=(
            f"Later than the {limit_days}-day limit ({latest_hearing:%a %b %-d, %Y}): needs the "
            f"applicant's written extension. {step.note}").strip())
    return step

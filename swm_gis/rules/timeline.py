"""Permit timeline of Chapter 320 § 320-18 with Massachusetts legal holidays and business days.

The deadlines (quoted from § 320-18 of the Lynnfield rules):

* A(7): abutter notice "Mailing at least seven days prior to the public hearing shall constitute
  timely notice" (calendar days);
* B(1): newspaper notice "at least five business days prior to the hearing";
* B(2): the Commission "shall commence the public hearing within 21 days from receipt of a
  completed permit application", and "shall issue its permit in writing within 21 days of the
  close of the public hearing";
* J: a permit "shall expire three years from the date of issuance" and "may be renewed once for
  an additional one-year period, provided that a request for renewal is received in writing ...
  at least 30 days prior to expiration".

How days are counted (the usual rule for legal periods): the day of the event a period runs from
is not counted and the last day is; counting backwards from a hearing, the hearing day is not
counted. Business days skip Saturdays, Sundays and Massachusetts legal holidays.

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

__all__ = [
    "Deadline",
    "add_business_days",
    "add_years",
    "is_business_day",
    "ma_legal_holidays",
    "permit_timeline",
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
    ``note`` flags a computed date that is not a business day.
    """

    key: str
    label: str
    rule: str  # the rule in words, quoting the regulation
    section: str  # Chapter 320 citation
    date: dt.date | None = None
    relation: str = "by"
    basis: str = ""  # what the date was computed from
    note: str = ""


def _day_note(date: dt.date, *, counts_back: bool, saturday_on_friday: bool) -> str:
    """Flag a computed day that is not a business day, saying what that means for the act.

    A day counted back from an event ("at least N days prior") must not slip later, so the act
    is due on the last business day before it; a day counted forward ("within N days") may, when
    it is a Sunday or legal holiday, reach the next business day under M.G.L. c. 4, § 9.
    """
    name = holiday_name(date, saturday_on_friday=saturday_on_friday)
    if name:
        what = f"Falls on {name}"
    elif date.weekday() >= 5:
        what = f"Falls on a {calendar.day_name[date.weekday()]}"
    else:
        return ""
    prev = subtract_business_days(date, 1, saturday_on_friday=saturday_on_friday)
    if counts_back:
        return f"{what}: act by the business day before, {prev:%a %b %-d, %Y}."
    if name or date.weekday() == calendar.SUNDAY:
        nxt = add_business_days(date, 1, saturday_on_friday=saturday_on_friday)
        return (f"{what}: the last business day before it is {prev:%a %b %-d, %Y}; "
                f"M.G.L. c. 4, § 9 may extend a deadline ending on a Sunday or legal holiday "
                f"to {nxt:%a %b %-d, %Y}.")
    return f"{what}: the last business day before it is {prev:%a %b %-d, %Y}."


def permit_timeline(
    received: dt.date | None = None,
    *,
    hearing: dt.date | None = None,
    hearing_closed: dt.date | None = None,
    issued: dt.date | None = None,
    saturday_on_friday: bool = False,
) -> list[Deadline]:
    """The § 320-18 permit timeline, with dates when the application's receipt date is known.

    Parameters
    ----------
    received
        Date the Conservation Commission Administrator received the completed application
        (§ 320-18 B(1): the date on which the application is deemed filed).
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
    (datetime.date(2027, 5, 13), datetime.date(2030, 5, 13), datetime.date(2030, 4, 13))
    """
    opt = {"saturday_on_friday": saturday_on_friday}
    latest_hearing = received + dt.timedelta(days=21) if received else None
    hearing_day = hearing or latest_hearing
    closed = hearing_closed or hearing_day
    decision = closed + dt.timedelta(days=21) if closed else None
    issue_day = issued or decision
    expiry = add_years(issue_day, 3) if issue_day else None
    renewal = expiry - dt.timedelta(days=30) if expiry else None
    mail_by = hearing_day - dt.timedelta(days=7) if hearing_day else None
    paper_by = subtract_business_days(hearing_day, 5, **opt) if hearing_day else None

    hearing_basis = ("scheduled hearing date" if hearing else
                     "received + 21 days" if received else "")
    steps = [
        Deadline(
            "received", "Completed application received", section="§ 320-18 B(1)",
            rule="The date of receipt by the Conservation Commission Administrator is the date "
                 "on which the application is deemed filed.",
            date=received, relation="on", basis="given" if received else ""),
        Deadline(
            "hearing", "Public hearing opens" if hearing else "Public hearing opens (latest)",
            section="§ 320-18 B(2)",
            rule="The Commission shall commence the public hearing within 21 days from receipt "
                 "of a completed permit application unless an extension is authorized in "
                 "writing by the applicant.",
            date=hearing_day,
            relation="on" if hearing else "by", basis=hearing_basis),
        Deadline(
            "abutter_notice", "Abutter notice mailed", section="§ 320-18 A(7)",
            rule="Notice to owners within 100 feet by certified mail or certificate of mailing; "
                 "mailing at least seven days prior to the public hearing is timely notice.",
            date=mail_by, basis="hearing - 7 days" if mail_by else ""),
        Deadline(
            "newspaper_notice", "Newspaper notice published", section="§ 320-18 B(1)",
            rule="Written notice, at the applicant's expense, at least five business days prior "
                 "to the hearing in a newspaper of general circulation in the municipality.",
            date=paper_by,
            basis="hearing - 5 business days (weekends and MA legal holidays skipped)"
            if paper_by else ""),
        Deadline(
            "decision", "Permit decision issued in writing", section="§ 320-18 B(2), G",
            rule="The Commission shall issue its permit in writing within 21 days of the close of "
                 "the public hearing unless the applicant authorizes an extension in writing; "
                 "failure to act in time is deemed approval (G).",
            date=decision,
            basis=("hearing closed + 21 days" if hearing_closed else
                   "hearing + 21 days, assuming it closes the day it opens") if decision else ""),
        Deadline(
            "expiry", "Permit expires", section="§ 320-18 J",
            rule="A stormwater management permit shall expire three years from the date of "
                 "issuance.",
            date=expiry, relation="on",
            basis=("issuance + 3 years" if issued else
                   "latest decision date + 3 years") if expiry else ""),
        Deadline(
            "renewal_request", "Renewal request received (one 1-year renewal)",
            section="§ 320-18 J",
            rule="Any permit may be renewed once for an additional one-year period if a written "
                 "request is received at least 30 days prior to expiration.",
            date=renewal, basis="expiry - 30 days" if renewal else ""),
    ]
    # Which computed days need a word when they are not business days, and which way they run.
    counts_back = {"hearing": False, "decision": False, "abutter_notice": True,
                   "renewal_request": True}
    steps = [
        replace(s, note=_day_note(s.date, counts_back=counts_back[s.key], **opt))
        if s.date and s.key in counts_back else s
        for s in steps
    ]
    if hearing and latest_hearing and hearing > latest_hearing:
        steps[1] = replace(steps[1], note=(
            f"Later than the 21-day limit ({latest_hearing:%a %b %-d, %Y}): needs the "
            f"applicant's written extension. {steps[1].note}").strip())
    return steps

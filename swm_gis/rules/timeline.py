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

#: How the timeline cites the permit procedure: the copy of Chapter 320 gives it no number.
PROCEDURE = "Ch. 320, permit procedure"

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
    section: str  # Chapter 320 citation
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
    d = _timeline_dates(received, hearing, hearing_closed, issued, opt)
    steps = [*_hearing_steps(received, hearing, d), *_permit_steps(hearing_closed, issued, d)]
    steps[1] = _scheduled_hearing_note(steps[1], hearing, d["latest_hearing"], opt)
    return steps


def _timeline_dates(received: dt.date | None, hearing: dt.date | None,
                    hearing_closed: dt.date | None, issued: dt.date | None,
                    opt: dict[str, bool]) -> dict:
    """Every date of :func:`permit_timeline` (None where unknown) and the moved-day notes."""
    d: dict = {"received_note": received_note(received, **opt)}
    d["latest_hearing"], d["hearing_moved"] = _moved(
        received + dt.timedelta(days=21) if received else None, **opt)
    d["hearing_day"] = hearing_day = hearing or d["latest_hearing"]
    closed = hearing_closed or hearing_day
    d["decision"], d["decision_moved"] = _moved(
        closed + dt.timedelta(days=21) if closed else None, **opt)
    issue_day = issued or d["decision"]
    d["expiry"] = expiry = add_years(issue_day, 3) if issue_day else None
    d["renewal"], d["renewal_moved"] = _moved(
        expiry - dt.timedelta(days=30) if expiry else None, **opt)
    d["mail_by"], d["mail_moved"] = _moved(
        hearing_day - dt.timedelta(days=7) if hearing_day else None, **opt)
    d["paper_by"] = subtract_business_days(hearing_day, 5, **opt) if hearing_day else None
    return d


def _hearing_steps(received: dt.date | None, hearing: dt.date | None, d: dict) -> list[Deadline]:
    """Application received, hearing opens, abutter notice mailed, newspaper notice published."""
    hearing_day, hearing_moved = d["hearing_day"], d["hearing_moved"]
    mail_by, mail_moved, paper_by = d["mail_by"], d["mail_moved"], d["paper_by"]
    hearing_basis = ("scheduled hearing date" if hearing else
                     "received + 21 days" if received else "")
    return [
        Deadline(
            "received", "Completed application received", section=f"{PROCEDURE}, B(1)",
            rule="The date of receipt by the Conservation Commission Administrator is the date "
                 "on which the application is deemed filed.",
            date=received, relation="on", basis="given" if received else "",
            note=d["received_note"]),
        Deadline(
            "hearing", "Public hearing opens" if hearing else "Public hearing opens (latest)",
            section=f"{PROCEDURE}, B(2)",
            rule="The Commission shall commence the public hearing within 21 days from receipt "
                 "of a completed permit application unless an extension is authorized in "
                 "writing by the applicant.",
            date=hearing_day,
            relation="on" if hearing else "by", basis=hearing_basis,
            note="" if hearing else hearing_moved),
        Deadline(
            "abutter_notice", "Abutter notice mailed", section=f"{PROCEDURE}, A(7)",
            rule="The applicant shall notify abutters (owners within 100 feet) \"by certified "
                 "mail, return receipt requested, or by certificates of mailing\"; \"Mailing at "
                 "least seven days prior to the public hearing shall constitute timely notice.\"",
            date=mail_by, basis="hearing - 7 days" if mail_by else "", note=mail_moved),
        Deadline(
            "newspaper_notice", "Newspaper notice published", section=f"{PROCEDURE}, B(1)",
            rule="Written notice, at the applicant's expense, at least five business days prior "
                 "to the hearing in a newspaper of general circulation in the municipality.",
            date=paper_by,
            basis="hearing - 5 business days (weekends and MA legal holidays skipped)"
            if paper_by else ""),
    ]


def _permit_steps(hearing_closed: dt.date | None, issued: dt.date | None,
                  d: dict) -> list[Deadline]:
    """Decision issued, permit expires, renewal request received."""
    decision, decision_moved = d["decision"], d["decision_moved"]
    expiry, renewal, renewal_moved = d["expiry"], d["renewal"], d["renewal_moved"]
    return [
        Deadline(
            "decision", "Permit decision issued in writing", section=f"{PROCEDURE}, B(2), G",
            rule="The Commission shall issue its permit in writing within 21 days of the close of "
                 "the public hearing unless the applicant authorizes an extension in writing; "
                 "failure to act in time is deemed approval (G): \"Upon certification by the "
                 "Town Clerk that the allowed time has passed without authority action, the "
                 "authority must issue a stormwater management permit.\"",
            date=decision,
            basis=("hearing closed + 21 days" if hearing_closed else
                   "hearing + 21 days, assuming it closes the day it opens") if decision else "",
            note=decision_moved),
        Deadline(
            "expiry", "Permit expires", section=f"{PROCEDURE}, J",
            rule="A stormwater management permit shall expire three years from the date of "
                 "issuance.",
            date=expiry, relation="on",
            basis=("issuance + 3 years" if issued else
                   "latest decision date + 3 years") if expiry else ""),
        Deadline(
            "renewal_request", "Renewal request received (one 1-year renewal)",
            section=f"{PROCEDURE}, J",
            rule="Any permit may be renewed once for an additional one-year period if a written "
                 "request is received at least 30 days prior to expiration.",
            date=renewal, basis="expiry - 30 days" if renewal else "", note=renewal_moved),
    ]


def _scheduled_hearing_note(step: Deadline, hearing: dt.date | None,
                            latest_hearing: dt.date | None, opt: dict[str, bool]) -> Deadline:
    """The hearing step with the notes a scheduled hearing date may need (not a business day;
    later than the 21-day limit)."""
    if hearing and not is_business_day(hearing, **opt):
        step = replace(step, note=f"The scheduled hearing falls on "
                       f"{_not_business(hearing, **opt)}.")
    if hearing and latest_hearing and hearing > latest_hearing:
        step = replace(step, note=(
            f"Later than the 21-day limit ({latest_hearing:%a %b %-d, %Y}): needs the "
            f"applicant's written extension. {step.note}").strip())
    return step

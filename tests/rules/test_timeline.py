"""Massachusetts legal holidays, business days and the permit-procedure timeline."""

from __future__ import annotations

import calendar
import datetime as dt

import holidays
from hypothesis import given
from hypothesis import strategies as st

from swm_gis.rules.timeline import (
    add_business_days,
    add_years,
    is_business_day,
    ma_legal_holidays,
    permit_timeline,
    subtract_business_days,
)

D = dt.date


def _steps(*args, **kwargs):
    return {s.key: s for s in permit_timeline(*args, **kwargs)}


# --------------------------------------------------------------------------- holidays
def test_holidays_2026_by_hand():
    # 2026: Jan 1 is a Thursday; Mondays of January 5, 12, 19; of February 2, 9, 16; of April
    # 6, 13, 20; May 25 is the last Monday; September 7 the first; October 5, 12; November's
    # Thursdays 5, 12, 19, 26. July 4 is a Saturday: the statute moves only Sunday holidays.
    assert ma_legal_holidays(2026) == {
        D(2026, 1, 1): "New Year's Day",
        D(2026, 1, 19): "Martin Luther King Jr. Day",
        D(2026, 2, 16): "Washington's Birthday",
        D(2026, 4, 20): "Patriots' Day",
        D(2026, 5, 25): "Memorial Day",
        D(2026, 6, 19): "Juneteenth Independence Day",
        D(2026, 7, 4): "Independence Day",
        D(2026, 9, 7): "Labor Day",
        D(2026, 10, 12): "Columbus Day / Indigenous Peoples' Day",
        D(2026, 11, 11): "Veterans Day",
        D(2026, 11, 26): "Thanksgiving Day",
        D(2026, 12, 25): "Christmas Day",
    }


def test_patriots_day_is_the_third_monday_of_april():
    patriots = {y: d for y in (2024, 2025, 2027, 2028) for d, n in ma_legal_holidays(y).items()
                if n == "Patriots' Day"}
    assert patriots == {2024: D(2024, 4, 15), 2025: D(2025, 4, 21), 2027: D(2027, 4, 19),
                        2028: D(2028, 4, 17)}


def test_sunday_holidays_are_observed_on_monday():
    assert ma_legal_holidays(2022)[D(2022, 12, 26)] == "Christmas Day (observed)"
    assert D(2022, 12, 25) not in ma_legal_holidays(2022)
    assert ma_legal_holidays(2023)[D(2023, 1, 2)] == "New Year's Day (observed)"
    assert ma_legal_holidays(2027)[D(2027, 7, 5)] == "Independence Day (observed)"
    assert ma_legal_holidays(2029)[D(2029, 11, 12)] == "Veterans Day (observed)"
    assert not is_business_day(D(2027, 7, 5))


def test_saturday_holidays_stay_unless_asked():
    # Juneteenth 2027 is a Saturday; the federal rule would observe it on Friday June 18.
    assert D(2027, 6, 18) not in ma_legal_holidays(2027)
    assert is_business_day(D(2027, 6, 18))
    assert ma_legal_holidays(2027, saturday_on_friday=True)[D(2027, 6, 18)] == \
        "Juneteenth Independence Day (observed)"
    assert not is_business_day(D(2027, 6, 18), saturday_on_friday=True)


def test_juneteenth_only_from_2021():
    assert len(ma_legal_holidays(2020)) == 11
    assert len(ma_legal_holidays(2021)) == 12
    assert D(2020, 6, 19) not in ma_legal_holidays(2020)


#: The years compared with the ``holidays`` package: Juneteenth's first (2021) and the year
#: before, and every weekday on which a fixed-date holiday can fall, several times over.
ORACLE_YEARS = range(2020, 2036)


def test_holidays_and_business_days_agree_with_the_holidays_package():
    """``holidays.US(subdiv="MA")`` (maintained apart from this engine) as an oracle for
    M.G.L. c. 4, § 7, cl. 18, 2020-2035: the same days are holidays and business days.

    The one difference is in form, not in business days: a holiday on a Sunday is listed by the
    package on the Sunday and on the Monday it is observed on, by the engine on the Monday only.
    Both keep a Saturday holiday on the Saturday (the statute moves only Sunday holidays; the
    engine's ``saturday_on_friday`` is the federal rule and is not compared). Neither counts
    Evacuation Day (March 17) or Bunker Hill Day (June 17): public offices close on them in
    Suffolk County only (M.G.L. c. 136, § 12), and Lynnfield is in Essex County.
    """
    oracle = holidays.US(subdiv="MA", years=ORACLE_YEARS)
    for year in ORACLE_YEARS:
        package = {d for d in oracle if d.year == year and d.weekday() != calendar.SUNDAY}
        assert set(ma_legal_holidays(year)) == package, year
    day = D(ORACLE_YEARS.start, 1, 1)
    while day.year < ORACLE_YEARS.stop:
        assert is_business_day(day) == (day.weekday() < 5 and day not in oracle), day
        day += dt.timedelta(days=1)
    for suffolk_only in (D(2026, 3, 17), D(2026, 6, 17)):  # a Tuesday and a Wednesday
        assert suffolk_only not in oracle and is_business_day(suffolk_only)


# --------------------------------------------------------------------------- business days
def test_business_days_skip_weekends_and_holidays():
    # From Wed Nov 25, 2026: Thanksgiving Thu 26 skipped -> Fri 27 is the first business day.
    assert add_business_days(D(2026, 11, 25), 1) == D(2026, 11, 27)
    # Five business days before Tue Dec 1, 2026: Nov 30, 27, (26 Thanksgiving), 25, 24, 23.
    assert subtract_business_days(D(2026, 12, 1), 5) == D(2026, 11, 23)
    # Five business days before Thu Apr 22, 2027: Apr 21, 20, (19 Patriots' Day), 16, 15, 14.
    assert subtract_business_days(D(2027, 4, 22), 5) == D(2027, 4, 14)
    assert subtract_business_days(D(2027, 4, 29), 5) == D(2027, 4, 22)  # no holiday: 7 days
    assert add_business_days(D(2026, 5, 5), 0) == D(2026, 5, 5)


@given(st.dates(min_value=D(2020, 1, 1), max_value=D(2035, 12, 31)),
       st.integers(min_value=1, max_value=40))
def test_adding_n_business_days_crosses_exactly_n(start, n):
    end = add_business_days(start, n)
    assert is_business_day(end)
    days = [start + dt.timedelta(days=i) for i in range(1, (end - start).days + 1)]
    assert sum(is_business_day(d) for d in days) == n


@given(st.dates(min_value=D(2020, 1, 1), max_value=D(2035, 12, 31)),
       st.integers(min_value=1, max_value=40))
def test_subtracting_undoes_adding_on_business_days(start, n):
    if not is_business_day(start):
        start = add_business_days(start, 1)
    assert add_business_days(subtract_business_days(start, n), n) == start
    assert subtract_business_days(start, n) < subtract_business_days(start, n - 1)


def test_add_years_handles_leap_day():
    assert add_years(D(2028, 2, 29), 3) == D(2031, 2, 28)
    assert add_years(D(2027, 5, 13), 3) == D(2030, 5, 13)


# --------------------------------------------------------------------------- timeline
def test_timeline_around_patriots_day():
    # Received Thu Apr 1, 2027. Hearing within 21 days: by Thu Apr 22. Abutter notice mailed
    # at least 7 days before: by Thu Apr 15. Newspaper at least 5 business days before, not
    # counting Patriots' Day (Mon Apr 19): Apr 21, 20, 16, 15, 14 -> by Wed Apr 14 (one day
    # earlier than without the holiday). Decision within 21 days of the hearing's close (Apr 22):
    # Thu May 13. Expiry 3 years after issuance: Mon May 13, 2030. Renewal request at least 30
    # days before: Sat Apr 13, 2030 -> moved to Fri Apr 12.
    s = _steps(D(2027, 4, 1))
    assert [k for k in s] == ["received", "hearing", "abutter_notice", "newspaper_notice",
                              "decision", "expiry", "renewal_request"]
    assert s["received"].date == D(2027, 4, 1)
    assert s["hearing"].date == D(2027, 4, 22)
    assert s["abutter_notice"].date == D(2027, 4, 15)
    assert s["newspaper_notice"].date == D(2027, 4, 14)
    assert s["decision"].date == D(2027, 5, 13)
    assert s["expiry"].date == D(2030, 5, 13)
    assert s["renewal_request"].date == D(2030, 4, 12)
    assert s["renewal_request"].note == (
        "The computed latest day, Sat Apr 13, 2030, falls on a Saturday: moved to the business "
        "day before, Fri Apr 12, 2030.")
    assert s["hearing"].note == "" and s["decision"].note == ""


def test_timeline_around_thanksgiving():
    # Received Tue Nov 10, 2026 -> hearing by Tue Dec 1. Newspaper: Nov 30, 27, (26
    # Thanksgiving), 25, 24, 23 -> Mon Nov 23. Abutters: Dec 1 - 7 = Tue Nov 24. Decision:
    # Tue Dec 22, 2026; expiry Sat Dec 22, 2029; renewal request 30 days before: Thu Nov 22,
    # 2029, which is Thanksgiving 2029 -> moved to Wed Nov 21.
    s = _steps(D(2026, 11, 10))
    assert s["hearing"].date == D(2026, 12, 1)
    assert s["newspaper_notice"].date == D(2026, 11, 23)
    assert s["abutter_notice"].date == D(2026, 11, 24)
    assert s["decision"].date == D(2026, 12, 22)
    assert s["expiry"].date == D(2029, 12, 22)
    assert s["renewal_request"].date == D(2029, 11, 21)
    assert s["renewal_request"].note == (
        "The computed latest day, Thu Nov 22, 2029, falls on Thanksgiving Day: moved to the "
        "business day before, Wed Nov 21, 2029.")


def test_latest_hearing_on_a_holiday_is_moved_and_the_notices_follow():
    # Received Mon Mar 29, 2027 + 21 days = Mon Apr 19, 2027, Patriots' Day -> Fri Apr 16.
    # Abutters: Apr 16 - 7 = Fri Apr 9. Newspaper: Apr 15, 14, 13, 12, 9 -> Fri Apr 9.
    # Decision: Apr 16 + 21 = Fri May 7.
    s = _steps(D(2027, 3, 29))
    assert s["hearing"].date == D(2027, 4, 16)
    assert s["hearing"].note == (
        "The computed latest day, Mon Apr 19, 2027, falls on Patriots' Day: moved to the "
        "business day before, Fri Apr 16, 2027.")
    assert s["abutter_notice"].date == D(2027, 4, 9)
    assert s["newspaper_notice"].date == D(2027, 4, 9)
    assert s["decision"].date == D(2027, 5, 7)


def test_latest_hearing_on_thanksgiving_is_moved():
    # Received Thu Nov 5, 2026 + 21 days = Thu Nov 26, 2026, Thanksgiving -> Wed Nov 25.
    # Abutters: Nov 25 - 7 = Wed Nov 18; newspaper: Nov 24, 23, 20, 19, 18 -> Wed Nov 18.
    s = _steps(D(2026, 11, 5))
    assert s["hearing"].date == D(2026, 11, 25)
    assert "falls on Thanksgiving Day: moved to the business day before" in s["hearing"].note
    assert s["abutter_notice"].date == D(2026, 11, 18)
    assert s["newspaper_notice"].date == D(2026, 11, 18)


@given(received=st.dates(min_value=D(2024, 1, 1), max_value=D(2040, 12, 31)))
def test_every_latest_day_is_a_business_day(received):
    for step in permit_timeline(received):
        if step.key in ("hearing", "abutter_notice", "decision", "renewal_request",
                        "newspaper_notice"):
            assert is_business_day(step.date), (step.key, step.date)


def test_scheduled_hearing_and_continued_hearing():
    # Hearing on Tue Apr 20, 2027: newspaper by Apr 16, 15, 14, 13, 12 -> Mon Apr 12;
    # abutters by Tue Apr 13. Continued and closed Thu May 6 -> decision by Thu May 27.
    s = _steps(D(2027, 4, 1), hearing=D(2027, 4, 20), hearing_closed=D(2027, 5, 6))
    assert s["hearing"].date == D(2027, 4, 20) and s["hearing"].relation == "on"
    assert s["newspaper_notice"].date == D(2027, 4, 12)
    assert s["abutter_notice"].date == D(2027, 4, 13)
    assert s["decision"].date == D(2027, 5, 27)
    assert s["decision"].basis == "hearing closed + 21 days"
    late = _steps(D(2027, 4, 1), hearing=D(2027, 4, 27))
    assert late["hearing"].note.startswith(
        "Later than the 21-day limit (Thu Apr 22, 2027): needs the applicant's written "
        "extension.")


def test_issued_date_sets_expiry():
    s = _steps(D(2027, 4, 1), issued=D(2027, 5, 3))
    assert s["expiry"].date == D(2030, 5, 3) and s["expiry"].basis == "issuance + 3 years"
    assert s["renewal_request"].date == D(2030, 4, 3)


def test_without_a_receipt_date_only_rules_are_given():
    steps = permit_timeline()
    assert all(s.date is None and s.note == "" for s in steps)
    p = "Ch. 320, permit procedure, "
    assert [s.section for s in steps] == [p + "B(1)", p + "B(2)", p + "A(7)", p + "B(1)",
                                          p + "B(2), G", p + "J", p + "J"]
    rules = " ".join(s.rule for s in steps)
    for quoted in ("within 21 days from receipt of a completed permit application",
                   "at least seven days prior to the public hearing",
                   "at least five business days prior to the hearing",
                   "within 21 days of the close of the public hearing",
                   "three years from the date of issuance",
                   "at least 30 days prior to expiration",
                   "by certified mail, return receipt requested, or by certificates of mailing",
                   "Upon certification by the Town Clerk that the allowed time has passed "
                   "without authority action"):
        assert quoted in rules, quoted


def test_a_receipt_day_that_is_no_business_day_is_said_and_the_periods_count_from_it():
    """Issue 32 item 9. Patriots' Day, Mon Apr 19, 2027: the received step says so and states
    the rule (B(1) "the date of receipt", B(2) "from receipt": no receipt day is moved); the
    hearing's latest day is Apr 19 + 21 days = Mon May 10, 2027, a business day. Received on
    Sat Apr 17, 2027: + 21 days = Sat May 8, moved to the business day before, Fri May 7."""
    steps = {s.key: s for s in permit_timeline(dt.date(2027, 4, 19))}
    note = steps["received"].note
    assert note.startswith("Received on Mon Apr 19, 2027, which is Patriots' Day (a "
                           "Massachusetts legal holiday), not a business day.")
    assert "B(1) deems the application filed on \"the date of receipt\"" in note
    assert "B(2) counts 21 days \"from receipt\"" in note
    assert steps["received"].date == dt.date(2027, 4, 19)
    assert steps["hearing"].date == dt.date(2027, 5, 10) and steps["hearing"].note == ""
    saturday = {s.key: s for s in permit_timeline(dt.date(2027, 4, 17))}
    assert saturday["received"].note.startswith(
        "Received on Sat Apr 17, 2027, which is a Saturday, not a business day.")
    assert saturday["hearing"].date == dt.date(2027, 5, 7)
    assert "Sat May 8, 2027" in saturday["hearing"].note
    # a business day says nothing
    assert {s.key: s for s in permit_timeline(dt.date(2027, 4, 20))}["received"].note == ""

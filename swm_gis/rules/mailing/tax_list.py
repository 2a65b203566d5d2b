"""The tax list's date: which Massachusetts fiscal year the assessing data rests on, and whether
it is the current one (warning ``tax_list_not_current``; ``docs/abutters.md``).

A notice goes to the owners "as they appear on the most recent tax list". The Commonwealth's
fiscal year N runs from 1 July of year N-1 to 30 June of year N (M.G.L. c.59 assesses as of
1 January before it), so in December 2026 the current fiscal year is FY2027. The assessing data
states its fiscal year in its ``fiscal_year`` field (MassGIS L3 ``FY``, e.g. ``2025``,
``"FY25"``).

Examples
--------
>>> import datetime as dt
>>> current_fiscal_year(dt.date(2026, 12, 6)), current_fiscal_year(dt.date(2026, 6, 30))
(2027, 2026)
>>> fiscal_year_number("FY25"), fiscal_year_number("2019.0"), fiscal_year_number("n/a")
(2025, 2019, None)
>>> status = tax_list_status(["2025"], on=dt.date(2026, 12, 6))
>>> status.latest, status.current, status.is_current
(2025, 2027, False)
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass

_YEAR = re.compile(r"^\s*(?:FY\s*)?(\d{2}|\d{4})(?:\.0+)?\s*$", re.IGNORECASE)


def current_fiscal_year(on: dt.date) -> int:
    """The Massachusetts fiscal year in force on ``on`` (FY N: 1 July N-1 to 30 June N)."""
    return on.year + 1 if on.month >= 7 else on.year


def fiscal_year_number(value: object) -> int | None:
    """A fiscal year as written in assessing data (``2025``, ``"FY2025"``, ``"FY25"``,
    ``2025.0``) as a four-digit year; None when it is not one."""
    m = _YEAR.match(str(value))
    if not m:
        return None
    year = int(m.group(1))
    year = 2000 + year if year < 100 else year
    return year if 1900 <= year <= 2200 else None


@dataclass(frozen=True)
class TaxListStatus:
    """The fiscal year(s) an abutter list rests on and the current one.

    Attributes
    ----------
    latest
        The latest fiscal year the assessing data states (None: not recorded).
    current
        The current Massachusetts fiscal year on the day the list is made.
    """

    latest: int | None
    current: int

    @property
    def is_current(self) -> bool:
        return self.latest is not None and self.latest >= self.current

    def basis_text(self) -> str:
        """The sentence the certification states either way."""
        now = f"the current Massachusetts fiscal year is FY{self.current}"
        if self.latest is None:
            return ("The assessing data does not record its fiscal year: the tax list it rests "
                    f"on is not known ({now}).")
        period = f"1 July {self.latest - 1} to 30 June {self.latest}"
        when = "the current one" if self.is_current else f"not the current one: {now}"
        return (f"The list rests on the assessing data of fiscal year FY{self.latest} "
                f"({period}), {when}.")


def tax_list_status(fiscal_years: Iterable[object], *, on: dt.date) -> TaxListStatus:
    """:class:`TaxListStatus` of the assessing data's fiscal years, on the date ``on``."""
    years = [y for y in (fiscal_year_number(v) for v in fiscal_years) if y is not None]
    return TaxListStatus(latest=max(years) if years else None, current=current_fiscal_year(on))


__all__ = ["TaxListStatus", "current_fiscal_year", "fiscal_year_number", "tax_list_status"]

"""How figures become words: square feet, feet, acres, shares, base flood elevations.

Every area the engine prints in square feet or acres is worded here (:func:`sqft`,
:func:`acres`), so the findings, the checklist, the warnings and the reports print the same
figure the same way; a figure that is missing prints as the caller's ``missing`` word (``"?"``
unless told), never as a crash.

Examples
--------
>>> sqft(43560), ft(49.2126), acres(1.2125), pct(0.926), pct(0.125, digits=None)
('43,560 sq ft', '49 ft', '1.21 acres', '93%', '12.5%')
>>> sqft(43560.44, 1), acres(1210, grouping=False), acres(1210)
('43,560.4 sq ft', '1210.00 acres', '1,210.00 acres')
>>> sqft(None), sqft(None, missing="not given")
('?', 'not given')
>>> bfe_text(12.0), bfe_text(-9999), bfe_text(None)
('12 ft', 'none on the FIRM', 'none on the FIRM')
>>> municipality("Sampleton"), municipality("Town of Sampleton"), municipality("city of Salem")
('Town of Sampleton', 'Town of Sampleton', 'city of Salem')
"""

from __future__ import annotations

import re
from typing import Any

from swm_gis.units import SQFT_PER_ACRE

#: A town name that already says what kind of municipality it is ("Town of", "City of").
_MUNICIPALITY = re.compile(r"\s*(?:town|city)\s+of\s", re.IGNORECASE)


def number(x: Any, digits: int = 0, *, missing: str = "?", grouping: bool = True) -> str:
    """``x`` with thousands separators (unless not ``grouping``) and ``digits`` decimals;
    ``missing`` if not a number."""
    try:
        return f"{float(x):{',' if grouping else ''}.{digits}f}"
    except (TypeError, ValueError):
        return missing


def sqft(x: Any, digits: int = 0, *, missing: str = "?") -> str:
    """Square feet, whole unless ``digits``: ``"43,560 sq ft"``, ``"43,560.4 sq ft"``."""
    text = number(x, digits, missing=missing)
    return text if text == missing else f"{text} sq ft"


def ft(x: Any, *, missing: str = "?") -> str:
    """Feet, whole: ``"49 ft"``."""
    text = number(x, missing=missing)
    return text if text == missing else f"{text} ft"


def trigger_area(x: float) -> str:
    """A trigger area in words: "one acre" where it is 43,560 sq ft, else its square feet
    ("20,000 sq ft"), so no other trigger is ever called an acre.

    >>> trigger_area(43560), trigger_area(20000)
    ('one acre', '20,000 sq ft')
    """
    return "one acre" if float(x) == SQFT_PER_ACRE else sqft(x)


def acres(x: Any, digits: int = 2, *, missing: str = "?", grouping: bool = True) -> str:
    """Acres, to ``digits`` decimals: ``"1.21 acres"`` (``"1,210.00 acres"``; without
    ``grouping``, ``"1210.00 acres"``)."""
    text = number(x, digits, missing=missing, grouping=grouping)
    return text if text == missing else f"{text} acres"


def below(x: Any, limit: float, digits: int = 0) -> Any:
    """``x`` as it may print when it lies below ``limit``: rounded down at ``digits`` decimals
    where rounding would reach the limit, so a figure under a threshold never prints as the
    threshold (43,559.6 sq ft is not "43,560 sq ft", 0.999 acres is not "1.00 acres"); any
    other ``x`` (at or above the limit, or not a number) as it is.

    >>> below(43_559.6, 43_560), below(0.99999, 1.0, 2), below(0.5, 1.0, 2), below(None, 1.0)
    (43559.0, 0.99, 0.5, None)
    >>> acres(below(43_559.6 / 43_560, 1.0, 2)), sqft(below(43_560.0, 43_560))
    ('0.99 acres', '43,560 sq ft')
    """
    import math

    try:
        value = float(x)
    except (TypeError, ValueError):
        return x
    if value >= limit or round(value, digits) < limit:
        return x
    scale = 10 ** digits
    return math.floor(value * scale) / scale


def pct(x: Any, digits: int | None = 0, *, missing: str = "?") -> str:
    """A fraction as a percentage: ``0.926`` -> ``"93%"``; ``digits=None``: as short as exact
    (``0.125`` -> ``"12.5%"``)."""
    try:
        value = float(x) * 100
    except (TypeError, ValueError):
        return missing
    return f"{value:g}%" if digits is None else f"{value:.{digits}f}%"


def bfe_text(value: Any) -> str:
    """A FIRM base flood elevation in words: ``12.0`` -> "12 ft"; missing or -9999 -> "none on
    the FIRM" (NFHL's no-value code)."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        return "none on the FIRM"
    return "none on the FIRM" if v <= -9999 else f"{v:g} ft"


def tmdl_text(tmdl: Any) -> str:
    """ "TMDL 12345" as it is; a bare number or name gets the word.

    >>> tmdl_text("TMDL 12345"), tmdl_text("12345")
    ('TMDL 12345', 'TMDL 12345')
    """
    text = str(tmdl).strip()
    return text if text.upper().startswith("TMDL") or "TMDL" in text else f"TMDL {text}"


__all__ = ["acres", "bfe_text", "ft", "number", "pct", "sqft", "tmdl_text", "trigger_area"]


def municipality(name: Any) -> str:
    """The town's name as the outputs print it: ``"Town of Sampleton"``; a name that already
    says "Town of" or "City of" (in any case) is printed as typed, never "Town of Town of ..."."""
    text = " ".join(str(name or "").split())
    return text if _MUNICIPALITY.match(text + " ") else f"Town of {text}"

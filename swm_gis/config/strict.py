"""Strict checks for the town config: the value kinds a key may hold and did-you-mean for typos.

A config that silently ignores ``layr = "town_boundary"`` or ``[rule]`` reads the wrong data and
gives a wrong answer without a word, so every section, key and value is checked against one schema
(the key tables in :mod:`swm_gis.config.town`); a new key is one line there.

Examples
--------
>>> did_you_mean("layr", ["path", "layer", "crs", "fields"])
' Did you mean "layer"?'
>>> TEXT.check("parcels"), TEXT.check(12) is not None
(None, True)
>>> finite_range(0, 1).check(float("nan"))
'a finite number from 0 to 1'
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from swm_gis.errors import ArgumentError, ConfigError
from swm_gis.messages import config_key, parts, references


@dataclass(frozen=True)
class Kind:
    """What a config value must be: a test and the words that say so in a message."""

    want: str
    test: Callable[[Any], bool]

    def check(self, value: Any) -> str | None:
        """None when ``value`` is acceptable, else what is wanted (for the message)."""
        try:
            return None if self.test(value) else self.want
        except (TypeError, ValueError):
            return self.want


def _is_text(v: Any) -> bool:
    return isinstance(v, str) and v.strip() != ""


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


TEXT = Kind("a text value in quotes, e.g. \"...\"", _is_text)
TEXT_OR_EMPTY = Kind('a text value in quotes (or "" for none)', lambda v: isinstance(v, str))
BOOL = Kind("true or false", lambda v: isinstance(v, bool))
TABLE = Kind("a table (a [section] or { key = value, ... })", lambda v: isinstance(v, dict))
TEXT_LIST = Kind('a list of text values, e.g. ["ROW", "WATER"]',
                 lambda v: isinstance(v, list) and all(_is_text(x) for x in v))
#: ``path`` is one source or a list of sources read as one layer.
TEXT_OR_LIST = Kind('a text value in quotes, or a list of them (one per path)',
                    lambda v: _is_text(v) or (isinstance(v, list) and len(v) > 0
                                              and all(_is_text(x) for x in v)))
SOURCE = Kind('a file or GDAL source in quotes, or a list of them, e.g. path = "parcels.gpkg"',
              lambda v: _is_text(v) or (isinstance(v, list) and len(v) > 0
                                        and all(_is_text(x) for x in v)))


def finite_range(low: float, high: float, *, unit: str = "") -> Kind:
    """A finite number (not a boolean) from ``low`` to ``high`` inclusive."""
    unit_text = f" {unit}" if unit else ""
    return Kind(f"a finite number from {low:g} to {high:g}{unit_text}",
                lambda v: _is_number(v) and low <= v <= high)


def one_of(choices: Iterable[str]) -> Kind:
    """One of a few text values, compared without regard to case."""
    options = tuple(choices)
    return Kind("one of " + ", ".join(f'"{c}"' for c in options),
                lambda v: isinstance(v, str) and v.strip().upper() in options)


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """' Did you mean "x"?' for the closest known name, or '' when none is close."""
    close = difflib.get_close_matches(str(name), list(known), n=1, cutoff=0.6)
    if not close:
        close = [k for k in known if str(name).lower() == k.lower()]
    return f' Did you mean "{close[0]}"?' if close else ""


def refuse_unknown(given: Mapping[str, Any], known: Iterable[str], *, where: str, section: str,
                   noun: str = "key") -> None:
    """Raise :class:`ConfigError` naming each unknown key of ``section`` with a did-you-mean."""
    known = list(known)
    unknown = [k for k in given if k not in known]
    if not unknown:
        return
    hints = "".join(did_you_mean(k, known) for k in unknown[:3])
    raise ConfigError(
        f"{where}: unknown {noun}(s) {', '.join(unknown)} in {section}.{hints} "
        f"Known: {', '.join(known) or 'none'}. A misspelt key would otherwise be ignored and the "
        "default used without a word."
    )


def check_table(raw: Any, *, where: str, section: str) -> dict[str, Any]:
    """``raw`` itself, refusing anything that is not a TOML table."""
    if not isinstance(raw, dict):
        raise ConfigError(
            f"{where}: {section} must be a table (a {section} section of key = value lines), "
            f"not {_shown(raw)}."
        )
    return raw


def key_in(section: str, key: str) -> str:
    """``key`` of ``section``: one reference (:func:`~swm_gis.messages.config_key`) when
    ``section`` is a reference to a whole section, else ``section`` and ``key`` as text.

    >>> from swm_gis.messages import api_text
    >>> api_text(key_in(config_key("town"), "crs")), key_in("the top level", "x")
    ('[town] crs', 'the top level x')
    """
    refs = references(section)
    if len(refs) == 1 and parts(section) == refs and "name" not in refs[0]:
        return config_key(refs[0]["key"], key)
    return f"{section} {key}"


def check_values(raw: Mapping[str, Any], kinds: Mapping[str, Kind], *, where: str,
                 section: str) -> None:
    """Refuse unknown keys and any value that is not of its key's kind."""
    refuse_unknown(raw, kinds, where=where, section=section)
    for key, value in raw.items():
        want = kinds[key].check(value)
        if want:
            raise ConfigError(f"{where}: {key_in(section, key)} = {_shown(value)} must be "
                              f"{want}.")


def finite_value(value: Any, *, what: str, low: float | None = None,
                 high: float | None = None, unit: str = "") -> float:
    """``value`` as a float, refusing NaN, infinities, text and values outside ``[low, high]``.

    For every number a user gives (``proposed_impervious_sqft=``, ``label_offset=``, ...):
    ``float("inf")`` parses, and would write ``Infinity`` into JSON or a crash mid-package.
    ``what`` names the value, usually by reference (:func:`~swm_gis.messages.option`).

    >>> from swm_gis.messages import option
    >>> finite_value("12.5", what=option("proposed_impervious_sqft", "N"), low=0)
    12.5
    >>> finite_value("nan", what=option("distance", "FT"), low=0, unit="ft")
    Traceback (most recent call last):
    ...
    swm_gis.errors.ArgumentError: distance= nan must be a finite number of 0 ft or more.
    """
    try:
        number = float(value) if not isinstance(value, bool) else math.nan
    except (TypeError, ValueError):
        number = math.nan
    inside = math.isfinite(number) and (low is None or number >= low) and (
        high is None or number <= high)
    if inside:
        return number
    unit_text = f" {unit}" if unit else ""
    if low is not None and high is not None:
        want = f"a finite number from {low:g} to {high:g}{unit_text}"
    elif low is not None:
        want = f"a finite number of {low:g}{unit_text} or more"
    elif high is not None:
        want = f"a finite number of {high:g}{unit_text} or less"
    else:
        want = f"a finite number{unit_text}"
    raise ArgumentError(f"{what} {value} must be {want}.")


def _shown(value: Any) -> str:
    """A value as the user wrote it, shortened; TOML spells infinity and NaN ``inf``/``nan``."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


__all__ = [
    "Kind", "TEXT", "TEXT_OR_EMPTY", "BOOL", "TABLE", "TEXT_LIST", "SOURCE", "finite_range",
    "one_of", "did_you_mean", "finite_value", "refuse_unknown", "check_table", "check_values",
    "key_in",
]

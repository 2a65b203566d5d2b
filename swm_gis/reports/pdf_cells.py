"""Table cells that wrap between words, never inside one (issue 35: "redevelop ment",
"INFRA_Drai nage.geojson" in the screening report's PDF).

reportlab breaks a paragraph at spaces and, when a word is wider than its cell, cuts the word
wherever the cell ends. :func:`fit_widths` first widens each column to its widest word, taking
the width from columns with room to spare; a word wider than any column can be (a long file
path) is then broken only after a ``/``, ``_``, ``.``, ``:`` or ``-`` (:func:`breakable`),
with a line break, so no letters of a name are parted.

>>> breakable("see /data/lynnfield/INFRA_Drainage.geojson now", 60.0, "Helvetica", 7.6)
'see /data/lynnfield/<br/>INFRA_Drainage.<br/>geojson now'
>>> breakable("a & b", 60.0, "Helvetica", 7.6)
'a &amp; b'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from swm_gis.reports.screening_model import escape_html

#: Where a word too wide for its cell may be broken: after these characters.
_BREAK_AFTER = re.compile(r"(?<=[/_.:\-\\])")
#: A cell's left plus right padding (points), as the tables set it.
PADDING_PT = 6.0


def _width(text: str, font: str, size: float) -> float:
    from reportlab.pdfbase.pdfmetrics import stringWidth

    return stringWidth(text, font, size)


def widest_word(text: str, font: str, size: float) -> float:
    """The width (points) of ``text``'s widest word, where a line cannot break."""
    return max((_width(w, font, size) for w in str(text).split()), default=0.0)


def fit_widths(columns_text: Sequence[Sequence[str]], widths_pt: Sequence[float], font: str,
               size: float) -> list[float]:
    """Column widths (points, same total) in which each column's widest word fits, where the
    total allows: a column too narrow grows, the others give up their room beyond their own
    widest word in proportion to it. ``columns_text``: each column's cell texts."""
    need = [max((widest_word(t, font, size) for t in col), default=0.0) + PADDING_PT
            for col in columns_text]
    widths = list(widths_pt)
    short = sum(max(n - w, 0.0) for n, w in zip(need, widths, strict=True))
    spare = [max(w - n, 0.0) for n, w in zip(need, widths, strict=True)]
    if short <= 0 or sum(spare) <= 0:
        return widths
    take = min(short, sum(spare)) / short  # the share of each shortfall that can be met
    give = min(short, sum(spare)) / sum(spare)
    return [w + max(n - w, 0.0) * take - s * give
            for n, w, s in zip(need, widths, spare, strict=True)]


def breakable(text: Any, width_pt: float, font: str, size: float) -> str:
    """``text`` as escaped paragraph markup whose words wider than ``width_pt`` are broken
    after ``/ _ . : -`` (a line break), each piece as long as fits."""
    out = []
    for token in re.split(r"(\s+)", str(text)):
        if token.isspace() or not token or _width(token, font, size) <= width_pt:
            out.append(escape_html(token))
            continue
        lines, line = [], ""
        for part in (p for p in _BREAK_AFTER.split(token) if p):
            if line and _width(line + part, font, size) > width_pt:
                lines.append(line)
                line = ""
            line += part
        out.append("<br/>".join(escape_html(x) for x in [*lines, line]))
    return "".join(out)


def plain_text(cell: Any) -> str:
    """The text of a cell (a string or a reportlab Paragraph)."""
    get = getattr(cell, "getPlainText", None)
    return get() if callable(get) else str(cell if cell is not None else "")


__all__ = ["PADDING_PT", "breakable", "fit_widths", "plain_text", "widest_word"]

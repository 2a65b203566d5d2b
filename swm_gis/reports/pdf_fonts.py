"""A Unicode TrueType font for reportlab, so accented owner names print right in every PDF.

reportlab's built-in Helvetica covers only Latin-1 in a way that depends on the viewer; an
embedded TrueType font keeps "Desirée Côté" or "Łukasz" exactly as the Assessors wrote them.
DejaVu Sans is taken from the system (Debian package ``fonts-dejavu-core``) or, failing that, from
the copy bundled with matplotlib.
"""

from __future__ import annotations

import functools
from pathlib import Path

SYSTEM_FONT_DIRS = (
    Path("/usr/share/fonts/truetype/dejavu"),
    Path("/usr/share/fonts/TTF"),
    Path("/usr/local/share/fonts"),
)
REGULAR, BOLD = "SwmSans", "SwmSans-Bold"
FALLBACK_REGULAR, FALLBACK_BOLD = "Helvetica", "Helvetica-Bold"


def find_font_file(name: str = "DejaVuSans.ttf") -> Path | None:
    """The path of a DejaVu font file: the system copy first, then matplotlib's bundled one."""
    for folder in SYSTEM_FONT_DIRS:
        if (folder / name).is_file():
            return folder / name
    try:
        import matplotlib

        bundled = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / name
    except ImportError:  # pragma: no cover - matplotlib is a reports dependency
        return None
    return bundled if bundled.is_file() else None


@functools.cache
def register_fonts() -> tuple[str, str]:
    """Register the Unicode font with reportlab once; return (regular, bold) font names.

    Falls back to Helvetica (Latin-1 only) when no DejaVu file is found anywhere.
    """
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    regular = find_font_file("DejaVuSans.ttf")
    if regular is None:
        return FALLBACK_REGULAR, FALLBACK_BOLD
    bold = find_font_file("DejaVuSans-Bold.ttf") or regular
    pdfmetrics.registerFont(TTFont(REGULAR, str(regular)))
    pdfmetrics.registerFont(TTFont(BOLD, str(bold)))
    return REGULAR, BOLD


__all__ = ["find_font_file", "register_fonts"]

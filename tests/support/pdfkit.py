"""Reading PDFs back in the tests: where each text run is drawn."""

from __future__ import annotations

from pathlib import Path

from pypdf import PdfReader


def positions(path: Path, page: int = 0) -> list[tuple[str, float, float]]:
    """Every text run on a page with its drawing position (points from the lower left)."""
    out = []

    def visit(text, cm, tm, _font, _size):
        if text.strip():
            x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
            y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
            out.append((text.strip(), x, y))

    PdfReader(path).pages[page].extract_text(visitor_text=visit)
    return out

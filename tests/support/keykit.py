"""Reading the map key back from pixels (the printed map, QGIS's own symbol images): which
pattern a swatch shows."""

from __future__ import annotations

import numpy as np

from swm_gis.applicability.palette import mark_styles


def pattern_name(mark: str) -> str:
    """``"lines:ANGLE"`` or ``"dots"``: the pattern of a mark of the key table."""
    m = mark_styles()[mark]
    return "dots" if m["kind"] == "dots" else f"lines:{m['angle']:g}"


def pattern_seen(crop: np.ndarray, shift_px: int) -> str:
    """What a swatch (RGB, 0-255, image rows top down) shows: lines at 0, 45 or 135 degrees
    (the dark pixels stay dark when shifted ``shift_px`` along the lines) or dots (they do not,
    in any direction; a shift shorter than the spacing and longer than a dot)."""
    dark = crop.mean(axis=2) < 128
    d = shift_px
    shifts = {"lines:0": (0, d), "lines:45": (-d, d), "lines:135": (d, d)}
    scores = {}
    for name, (dy, dx) in shifts.items():
        a = dark[max(dy, 0):dark.shape[0] + min(dy, 0), max(dx, 0):dark.shape[1] + min(dx, 0)]
        b = dark[max(-dy, 0):dark.shape[0] + min(-dy, 0),
                 max(-dx, 0):dark.shape[1] + min(-dx, 0)]
        scores[name] = (a & b).sum() / max((a | b).sum(), 1)
    best = max(scores, key=scores.get)
    if scores[best] > 0.6:
        return best
    # dots: 0.55 mm across on a 1.6 mm staggered grid cover about 9 % of the swatch
    return "dots" if 0.03 < dark.mean() < 0.3 else f"nothing ({dark.mean():.0%} dark)"

"""The raster window the rules work on: :class:`Raster` (a data type; reading is in layers).

Rules (:mod:`swm_gis.rules.development`, :mod:`swm_gis.terrain`,
:mod:`swm_gis.terrain.receiving_waters`) take a :class:`Raster`;
:func:`swm_gis.io.layers.read_raster` makes one from a configured layer. Kept apart from
:mod:`swm_gis.io.layers` so that the rules never import the reader.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from pyproj import CRS

BBox = tuple[float, float, float, float]


@dataclass(frozen=True)
class Raster:
    """A raster window in the working CRS: masked array, affine transform, CRS and source.

    Examples
    --------
    >>> import numpy as np
    >>> from affine import Affine
    >>> r = Raster(np.ma.zeros((2, 3)), Affine(10, 0, 100, 0, -10, 50), None, {})
    >>> r.cell_size, r.bounds
    ((10.0, 10.0), (100.0, 30.0, 130.0, 50.0))
    """

    array: np.ma.MaskedArray
    transform: Any
    crs: CRS
    source: dict[str, Any]

    @property
    def cell_size(self) -> tuple[float, float]:
        return abs(self.transform.a), abs(self.transform.e)

    @property
    def bounds(self) -> BBox:
        rows, cols = self.array.shape
        x0, y0 = self.transform * (0, 0)
        x1, y1 = self.transform * (cols, rows)
        return min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)


__all__ = ["Raster"]

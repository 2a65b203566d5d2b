"""Catchments computed once per town: which receiving waters each DEM cell drains to.

Placeholder until the drainage integration lands: reports why the drainage flags did not run.
"""

from __future__ import annotations

from typing import Any

from swm_gis.config import TownConfig


def drainage_grid(config: TownConfig, extent: Any, *, progress: Any = None
                  ) -> tuple[Any, dict[str, str | None]]:
    reason = "drainage flags not computed yet"
    return None, {"orw": reason, "impaired": reason}

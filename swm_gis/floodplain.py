"""Floodplain rules: which FEMA flood zones make up the Special Flood Hazard Area (SPEC section 2).

The site/parcel overlap checks build on :func:`sfha_mask`; it is the one place the SFHA rule lives.
"""

from __future__ import annotations

import pandas as pd

from swm_gis.config import Rules

#: FEMA's "no value" for STATIC_BFE.
NO_BFE = -9999.0


def sfha_mask(zones: pd.DataFrame, *, rules: Rules | None = None) -> pd.Series:
    """True for flood-zone rows in the Special Flood Hazard Area (1%-annual-chance floodplain).

    ``SFHA_TF = 'T'`` decides where the field is present (non-null); otherwise the zone is in the
    A/V list (A, A1-A30, AE, AH, AO, A99, AR and AR/*, V, V1-V30, VE). Expects logical columns
    ``sfha`` and ``zone`` (see :data:`swm_gis.config.SCHEMAS`).

    >>> df = pd.DataFrame({"zone": ["AE", "X", "AR/AE", "A", "VE"],
    ...                    "sfha": [None, None, None, "F", "T"]})
    >>> sfha_mask(df).tolist()
    [True, False, True, False, True]
    """
    rules = rules or Rules()
    zone = zones["zone"].astype("string").str.strip().str.upper()
    by_zone = zone.isin(rules.sfha_zones) | zone.str.startswith("AR/")
    by_zone = by_zone.fillna(False).astype(bool)
    if "sfha" not in zones:
        return by_zone
    flag = zones["sfha"].astype("string").str.strip().str.upper()
    has_flag = flag.notna() & (flag != "")
    return pd.Series(by_zone.where(~has_flag, flag == "T"), index=zones.index).astype(bool)

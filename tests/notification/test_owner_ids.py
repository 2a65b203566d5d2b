"""Parcel ids stored as numbers in one table and text in the other join all the same (issue 35):
``data validate``'s owner-join rate and the abutter package's join are one measure.

A hand-built town of 25 lots of 40 m x 40 m in a 5 x 5 grid, ids 100 + 5 i + j (100-124), the
subject the middle lot 112; 100 ft reaches its 8 neighbours. The assessing table lacks lots 106
and 118 (two of the neighbours), so: 23 of 25 parcels join town-wide, 6 of the 8 abutters, and
the mailing list names the 6 owners "OWNER 106" ... in every combination of id storage.
"""

from __future__ import annotations

import re

import geopandas as gpd
import pandas as pd
import pytest
from shapely.geometry import box
from support.townkit import CRS, write_town

import swm_gis
from swm_gis.cli import main
from swm_gis.rules.owner_join import owner_join_rate

X0, Y0 = 230_000.0, 910_000.0
STORED = {"float": float, "int": int, "text": str}
MISSING = {106, 118}
ABUTTERS = {106, 107, 108, 111, 113, 116, 117, 118}


def _town(tmp_path, parcel_kind: str, assess_kind: str):
    rows, records = [], []
    for i in range(5):
        for j in range(5):
            n = 100 + 5 * i + j
            x, y = X0 + 40 * i, Y0 + 40 * j
            rows.append({"LOC_ID": STORED[parcel_kind](n), "POLY_TYPE": "FEE",
                         "geometry": box(x, y, x + 40, y + 40)})
            if n not in MISSING:
                records.append({"LOC_ID": STORED[assess_kind](n), "OWNER1": f"OWNER {n}",
                                "OWN_ADDR": f"{n} ELM ST", "OWN_CITY": "LYNNFIELD",
                                "OWN_STATE": "MA", "OWN_ZIP": "01940", "FY": 2026})
    parcels = gpd.GeoDataFrame(rows, crs=CRS)
    assess = gpd.GeoDataFrame(pd.DataFrame(records))
    return write_town(tmp_path, {"parcels": parcels, "assess": assess})


@pytest.mark.parametrize("assess_kind", sorted(STORED))
@pytest.mark.parametrize("parcel_kind", sorted(STORED))
def test_validate_and_the_package_join_the_same_owners(tmp_path, capsys, parcel_kind,
                                                       assess_kind):
    toml = _town(tmp_path, parcel_kind, assess_kind)
    code = main(["--progress", "none", "data", "validate", "-c", str(toml)])
    said = " ".join(capsys.readouterr().out.split())
    assert code == 0, said
    assert "owner join: 23 of 25 parcels that can have an owner (92.0 %)" in said

    pkg = swm_gis.abutter_package(swm_gis.load_config(toml), parcels="112")
    listed = pkg.listed.loc[~pkg.listed["is_subject"].astype(bool)]
    assert sorted(listed["parcel_id"]) == sorted(str(n) for n in ABUTTERS)
    joined = listed.loc[listed["owner_of_record"].astype(bool), "parcel_id"]
    assert sorted(joined) == sorted(str(n) for n in ABUTTERS - MISSING)
    # the measure data validate reports, on the package's own abutters, is the package's join
    assert owner_join_rate(listed, _assess(toml), swm_gis.load_config(toml).rules)[:2] \
        == (len(joined), len(ABUTTERS))
    owners = set(pkg.recipients["owner_name"]) - {"OWNER 112"}
    assert owners == {f"OWNER {n}" for n in ABUTTERS - MISSING}
    assert not [w for w in pkg.warnings if re.search("different owners", w["text"])]


def _assess(toml) -> pd.DataFrame:
    from swm_gis.io import layers
    return layers.read_table(swm_gis.load_config(toml), "assess")

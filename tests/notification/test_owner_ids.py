"""Parcel ids stored as numbers in one table and text in the other join all the same (issue 35):
``data validate``'s owner-join rate and the abutter package's join are one measure
(:func:`swm_gis.rules.owner_join.owner_join`), and when nothing joins both name the field that
would (the sample town, Cambridge).

A hand-built town of 25 lots of 40 m x 40 m in a 5 x 5 grid, ids 100 + 5 i + j (100-124), the
subject the middle lot 112; 100 ft reaches its 8 neighbours. The assessing table lacks lots 106
and 118 (two of the neighbours), so: 23 of 25 parcels join town-wide, 6 of the 8 abutters, and
the mailing list names the 6 owners "OWNER 106" ... in every combination of id storage.
"""

from __future__ import annotations

import json
import re
import shutil

import geopandas as gpd
import pandas as pd
import pytest
from shapely.geometry import box
from support.sample_demo import DEMO_ABUTTERS_SUBJECT
from support.townkit import CAMBRIDGE_CONFIG, CRS, SAMPLE_CONFIG, write_town

import swm_gis
from swm_gis.cli import main
from swm_gis.rules.owner_join import OwnerJoinError, owner_join

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
    join = owner_join(listed, _assess(toml), swm_gis.load_config(toml).rules)
    assert (join.joined, join.ownable) == (len(joined), len(ABUTTERS))
    owners = set(pkg.recipients["owner_name"]) - {"OWNER 112"}
    assert owners == {f"OWNER {n}" for n in ABUTTERS - MISSING}
    assert not [w for w in pkg.warnings if re.search("different owners", w["text"])]


def _assess(toml) -> pd.DataFrame:
    from swm_gis.io import layers
    return layers.read_table(swm_gis.load_config(toml), "assess")


# --------------------------------------------------------------------------- four parcels
#: Four lots of 40 m x 40 m in a 2 x 2 block, ids 12, 13 (west column), 14, 15 (east column).
#: The assessing table names owners of 13, 14 and 15; parcel 12 has none. Stored as text, it
#: also holds "012": the text is kept as typed, so "012" is another id and never joins 12.
FOUR = {12: (0, 0), 13: (0, 40), 14: (40, 0), 15: (40, 40)}


def _four(tmp_path, parcel_kind: str, assess_kind: str):
    parcels = gpd.GeoDataFrame(
        [{"LOC_ID": STORED[parcel_kind](n), "POLY_TYPE": "FEE",
          "geometry": box(X0 + dx, Y0 + dy, X0 + dx + 40, Y0 + dy + 40)}
         for n, (dx, dy) in FOUR.items()], crs=CRS)
    owned: dict[str, object] = {str(n): STORED[assess_kind](n) for n in (13, 14, 15)}
    if assess_kind == "text":
        owned["012"] = "012"
    records = [{"LOC_ID": pid, "OWNER1": f"OWNER {name}", "OWN_ADDR": "1 ELM ST",
                "OWN_CITY": "LYNNFIELD", "OWN_STATE": "MA", "OWN_ZIP": "01940", "FY": 2026}
               for name, pid in owned.items()]
    return write_town(tmp_path, {"parcels": parcels,
                                 "assess": gpd.GeoDataFrame(pd.DataFrame(records))})


@pytest.mark.parametrize("assess_kind", sorted(STORED))
@pytest.mark.parametrize("parcel_kind", sorted(STORED))
def test_four_parcels_join_alike_in_validate_and_the_package(tmp_path, capsys, parcel_kind,
                                                             assess_kind):
    """3 of the 4 parcels join (13, 14, 15; 12 has no record, "012" is not 12): 75.0 %
    town-wide in ``data validate``, and the package over all four (subject 15, listed with
    the others: every lot of the 2 x 2 block touches 15, 0 ft) counts 3 owners of record."""
    toml = _four(tmp_path, parcel_kind, assess_kind)
    code = main(["--progress", "json", "data", "validate", "-c", str(toml)])
    said = capsys.readouterr()
    [result] = [json.loads(line) for line in said.out.splitlines() if '"result"' in line]
    assert code == 0, said.err
    validated = result["owner_join"]
    assert (validated["joined"], validated["ownable"], validated["share"]) == (3, 4, 0.75)
    assert validated["by_type"] == {"FEE": {"joined": 3, "ownable": 4}}
    assert validated["parcel_examples"] == ["12"]  # the one parcel without an owner
    # "012" is an assessing id of no parcel (text only: a number cannot hold it)
    assert validated["assess_examples"] == (["012"] if assess_kind == "text" else [])

    cfg = swm_gis.load_config(toml)
    pkg = swm_gis.abutter_package(cfg, parcels="15", include_subject=True)
    assert sorted(pkg.listed["parcel_id"]) == ["12", "13", "14", "15"]
    owned = pkg.listed.loc[pkg.listed["owner_of_record"].astype(bool), "parcel_id"]
    assert sorted(owned) == ["13", "14", "15"]
    assert len(owned) == validated["joined"]  # the package's join is validate's
    assert owner_join(pkg.listed, _assess(toml), cfg.rules).as_dict()["joined"] == 3
    assert set(pkg.recipients["owner_name"]) == {"OWNER 13", "OWNER 14", "OWNER 15"}


# --------------------------------------------------------------------------- the hint
def _sample_with_assess_id(tmp_path, field: str):
    """The sample town, its assessing table keyed by ``field`` instead of LOC_ID."""
    folder = tmp_path / "sample"
    shutil.copytree(SAMPLE_CONFIG.parent, folder)
    toml = folder / "town.toml"
    text = toml.read_text(encoding="utf-8")
    assert 'co_owner = "OWNER2"' in text  # the sample's one mapped assessing field
    toml.write_text(text.replace('co_owner = "OWNER2"',
                                 f'parcel_id = "{field}"\nco_owner = "OWNER2"'),
                    encoding="utf-8")
    return toml


def _validate_refusal(toml, capsys) -> dict:
    """``data validate`` of the parcels and the assessing table, which must fail: its error
    event (``--progress json``)."""
    code = main(["--progress", "json", "data", "validate", "-c", str(toml), "-l", "parcels",
                 "-l", "assess"])
    said = capsys.readouterr()
    assert code == 2
    [error] = [json.loads(line) for line in said.err.splitlines() if '"type": "error"' in line]
    return error


def test_the_sample_town_keyed_by_the_wrong_field_names_loc_id(tmp_path, capsys):
    """Assessing PROP_ID ("1-001") joins no LOC_ID: validate fails and the package refuses,
    both naming the assessing field LOC_ID. Keyed by LOC_ID, 2,888 of the 2,893 parcel
    polygons that can have an owner join (data/sample: validate's line); the hint counts
    distinct ids, and one joined id (M_237761_916557) is on two polygons: 2,887."""
    toml = _sample_with_assess_id(tmp_path, "PROP_ID")
    error = _validate_refusal(toml, capsys)
    join = error["details"]["owner_join"]
    assert (join["joined"], join["ownable"]) == (0, 2893)
    assert join["fields_that_join"][0] == {"table": "assess", "field": "LOC_ID",
                                           "holds": 2887, "key": "layers.assess.fields",
                                           "name": "parcel_id"}
    assert error["details"]["failed"] == ["assess"]
    text = " ".join(error["message"].split())
    assert ("The assessing table's field LOC_ID holds 2,887 of the parcel ids: set "
            '[layers.assess.fields] parcel_id = "LOC_ID".') in text

    # the demo's subject: its 9 abutters are FEE parcels, each with an owner under LOC_ID
    with pytest.raises(OwnerJoinError) as refused:
        swm_gis.abutter_package(swm_gis.load_config(toml), parcels=DEMO_ABUTTERS_SUBJECT)
    details = refused.value.details
    assert (details["joined"], details["ownable"]) == (0, 9)
    assert details["examples"] == details["parcel_examples"] == [
        "M_236635_917757", "M_236670_917712", "M_236704_917718"]  # nearest first
    assert details["fields_that_join"][0] == join["fields_that_join"][0]  # the same hint
    assert 'set [layers.assess.fields] parcel_id = "LOC_ID"' in str(refused.value)
    assert {"key": "layers.assess.fields", "name": "parcel_id"} in refused.value.parts


def test_cambridge_keyed_by_loc_id_names_ml(tmp_path, capsys):
    """Cambridge's parcels carry a LOC_ID (the default parcel id), while the assessing GISID
    ("9-29") holds map-lots: keyed by LOC_ID nothing joins, and the refusal names ML, which
    holds 535 of the 1,000-row sample's distinct GISIDs."""
    text = CAMBRIDGE_CONFIG.read_text(encoding="utf-8")
    shared = (CAMBRIDGE_CONFIG.parent / "../../shared").resolve().as_posix()
    toml = tmp_path / "cambridge.toml"
    toml.write_text(text.replace('id = "ML"', 'id = "LOC_ID"')
                    .replace("../../shared", shared), encoding="utf-8")
    error = _validate_refusal(toml, capsys)
    join = error["details"]["owner_join"]
    # 13,116 polygons - 1 with an empty geometry (skipped) - 6 without a LOC_ID - the 5 other
    # right-of-way polygons (ML = ROAD; the sixth has no LOC_ID) = 13,104 that can have an owner
    assert (join["joined"], join["ownable"]) == (0, 13104)
    assert join["parcels_field"] == "LOC_ID" and join["assess_field"] == "GISID"
    assert join["fields_that_join"][0] == {"table": "parcels", "field": "ML", "holds": 535,
                                           "key": "layers.parcels.fields", "name": "id"}
    assert "The parcels' field ML holds 535 of the assessing ids: set " \
        '[layers.parcels.fields] id = "ML".' in " ".join(error["message"].split())
    # with ML, as data/cambridge.toml has it, the same measure passes
    code = main(["--progress", "json", "data", "validate", "-c", str(CAMBRIDGE_CONFIG), "-l",
                 "parcels", "-l", "assess"])
    said = capsys.readouterr()
    [result] = [json.loads(line) for line in said.out.splitlines() if '"result"' in line]
    assert code == 0
    assert result["owner_join"]["fields_that_join"] == []  # asked only when little joins

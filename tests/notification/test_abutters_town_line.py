"""Across town lines (issue 11): ``parcels_missing_beyond_edge`` when the search area reaches past
the parcels the config provides, gone once the neighbour's parcels are added.

Two hand-built towns of 20 m x 30 m lots side by side: Atown (TOWN_ID 1, x 0-300 m) and Btown
(TOWN_ID 2, x 300-600 m), the town line at x = 300 m. The subject lot spans x 260-280 m, so the
100 ft (30.48 m) search area reaches 10.48 m into Btown.

The neighbour is added as a further source, as a user would: ``[layers.parcels] path =
["town.gpkg", "neighbour.gpkg"]`` and the same for ``[layers.assess]`` (one combined file works
too). The coverage test takes one extent per source, so a gap between two sources still warns.
"""

from __future__ import annotations

import json
from pathlib import Path

import geopandas as gpd
import pandas as pd
import pytest
import shapely
from shapely.geometry import box
from support.townkit import CRS, write_town

import swm_gis
from swm_gis.cli import main
from swm_gis.notification.checks import compass, missing_parcels_area

X0, Y0 = 200_000.0, 900_000.0
LOT_W, LOT_H = 20.0, 30.0


def _lots(i_range, town_id: int) -> gpd.GeoDataFrame:
    rows = []
    for i in i_range:
        for j in range(10):
            x, y = X0 + i * LOT_W, Y0 + j * LOT_H
            rows.append({"LOC_ID": f"T{town_id}_{i}_{j}", "MAP_PAR_ID": f"{i}-{j}",
                         "TOWN_ID": town_id, "POLY_TYPE": "FEE",
                         "geometry": box(x, y, x + LOT_W, y + LOT_H)})
    return gpd.GeoDataFrame(rows, crs=CRS)


def _assess(parcels: gpd.GeoDataFrame) -> gpd.GeoDataFrame:
    n = len(parcels)
    town = parcels["TOWN_ID"].map({1: "ATOWN", 2: "BTOWN"})
    return gpd.GeoDataFrame(pd.DataFrame({
        "LOC_ID": parcels["LOC_ID"].to_numpy(),
        "SITE_ADDR": [f"{k} MAIN ST" for k in range(n)],
        "OWNER1": [f"OWNER OF {pid}" for pid in parcels["LOC_ID"]],
        "OWN_ADDR": [f"{k} MAIN ST" for k in range(n)],
        "OWN_CITY": town.to_numpy(), "OWN_STATE": "MA", "OWN_ZIP": "01940", "FY": 2026}))


ATOWN = _lots(range(15), 1)
BTOWN = _lots(range(15, 30), 2)
BOUNDARY = gpd.GeoDataFrame(geometry=[box(X0, Y0, X0 + 300, Y0 + 300)], crs=CRS)
SUBJECT = "T1_13_5"  # x 260-280 m: 20 m from the town line


def _town(tmp: Path, parcels: gpd.GeoDataFrame, *, boundary: bool = True) -> Path:
    tmp.mkdir(parents=True, exist_ok=True)
    layers = {"parcels": parcels, "assess": _assess(parcels)}
    if boundary:
        layers["town_boundary"] = BOUNDARY
    return write_town(tmp, layers, name="Atown (test)")


def _codes(warnings) -> list[str]:
    """The warning codes but the tax list's: the FY2026 rows are not the current fiscal year
    after 30 June 2026 (tax_list_not_current, tested in tests/notification/test_notice_lists.py)."""
    return [w["code"] for w in warnings if w["code"] != "tax_list_not_current"]


def _edge(warnings) -> list[dict]:
    return [w for w in warnings if w["code"] != "tax_list_not_current"]


def _package(toml: Path, subject: str = SUBJECT):
    return swm_gis.abutter_package(swm_gis.load_config(toml), parcels=[subject])


def test_parcels_cut_at_the_town_line_give_the_warning(tmp_path):
    pkg = _package(_town(tmp_path / "a", ATOWN))
    [w] = [w for w in pkg.warnings if w["code"] == "parcels_missing_beyond_edge"]
    assert "to the east of the subject" in w["text"]
    assert "beyond the town boundary layer" in w["text"]
    assert "a further source of the town's parcel layer" in w["text"]
    assert "L3_SHP_M<town id>_<NAME>.zip" in w["text"]
    assert pkg.counts["other_town"] == 0
    assert not pkg.listed["parcel_id"].str.startswith("T2_").any()
    assert any(line.startswith("Warning (parcels_missing_beyond_edge)") for line in pkg.summary)


def test_with_the_neighbours_parcels_the_warning_goes_and_their_owners_are_listed(tmp_path):
    both = pd.concat([ATOWN, BTOWN], ignore_index=True)
    pkg = _package(_town(tmp_path / "ab", gpd.GeoDataFrame(both, crs=CRS)))
    assert _codes(pkg.warnings) == []
    across = pkg.listed.loc[pkg.listed["parcel_id"].str.startswith("T2_")]
    # Btown's first column (x 300-320 m) lies 20 m from the subject: rows 4, 5, 6 within 100 ft
    # (row 4 and 6 corners at hypot(20, 0) = 20 m), rows 3 and 7 at hypot(20, 30) = 36 m: out
    assert sorted(across["parcel_id"]) == ["T2_15_4", "T2_15_5", "T2_15_6"]
    assert pkg.counts["other_town"] == 3
    owners = set(pkg.recipients["owner_name"])
    assert {"OWNER OF T2_15_4", "OWNER OF T2_15_5", "OWNER OF T2_15_6"} <= owners


def test_cli_prints_the_warning_and_writes_it_to_abutters_json(tmp_path, capsys):
    toml = _town(tmp_path / "a", ATOWN)
    out = tmp_path / "out"
    assert main(["--progress", "none", "abutters", "--config", str(toml), "--parcel", SUBJECT,
                 "--out", str(out)]) == 0
    said = " ".join(capsys.readouterr().out.split())
    assert "Warning (parcels_missing_beyond_edge)" in said
    doc = json.loads((out / "abutters.json").read_text(encoding="utf-8"))
    assert _codes(doc["warnings"]) == ["parcels_missing_beyond_edge"]


def test_without_a_town_boundary_the_layer_extent_still_tells(tmp_path):
    toml = _town(tmp_path / "a", ATOWN, boundary=False)
    edge = _package(toml, "T1_14_5")  # the last column: its search area leaves the layer
    [w] = _edge(edge.warnings)
    assert w["code"] == "parcels_missing_beyond_edge" and "off the extent" in w["text"]
    assert _codes(_package(toml, "T1_7_5").warnings) == []  # in the middle


def test_a_search_area_grazing_the_line_is_not_a_warning():
    """Strips under 3 m (a town boundary and deed lines drawn apart) are noise, not a town."""
    subject = box(X0 + 258, Y0 + 150, X0 + 271, Y0 + 180)  # 29 m from the line
    area = subject.buffer(30.48)
    gap, why = missing_parcels_area(area, ATOWN.geometry.values, extents=None,
                                    boundary=BOUNDARY.geometry.iloc[0])
    assert gap.is_empty and why == []
    # the same area 20 m from the line reaches 10.48 m across: a gap, east of the subject
    near = box(X0 + 260, Y0 + 150, X0 + 280, Y0 + 180)
    gap, why = missing_parcels_area(near.buffer(30.48), ATOWN.geometry.values, extents=None,
                                    boundary=BOUNDARY.geometry.iloc[0])
    assert not gap.is_empty and compass(near, gap) == "east"
    assert shapely.get_coordinates(gap)[:, 0].min() == pytest.approx(X0 + 300)


def test_a_neighbour_with_unparcelled_streets_still_counts_as_provided():
    """Beyond the line the neighbour's parcels cover more than half: no warning for its
    streets (no right-of-way polygons in its data)."""
    near = box(X0 + 260, Y0 + 150, X0 + 280, Y0 + 180)
    street = box(X0 + 300, Y0 + 157.5, X0 + 600, Y0 + 172.5)  # 15 m wide, facing the subject
    b = shapely.difference(BTOWN.geometry.values, street)
    area = near.buffer(30.48)
    beyond = shapely.difference(area, BOUNDARY.geometry.iloc[0])
    uncovered = shapely.difference(beyond, shapely.union_all(b))
    assert 0.2 < uncovered.area / beyond.area < 0.35
    gap, _why = missing_parcels_area(area, [*ATOWN.geometry.values, *b], extents=None,
                                     boundary=BOUNDARY.geometry.iloc[0])
    assert gap.is_empty


def test_compass_points():
    o = box(0, 0, 1, 1)
    assert [compass(o, box(x, y, x + 1, y + 1)) for x, y in
            ((5, 0), (5, 5), (0, 5), (-5, 5), (-5, 0), (-5, -5), (0, -5), (5, -5))] == [
        "east", "north-east", "north", "north-west", "west", "south-west", "south",
        "south-east"]


def test_a_town_boundary_in_another_crs_is_brought_into_the_working_crs(tmp_path):
    tmp = tmp_path / "wgs"
    tmp.mkdir()
    toml = write_town(tmp, {"parcels": ATOWN, "assess": _assess(ATOWN),
                            "town_boundary": BOUNDARY.to_crs("EPSG:4326")})
    codes = [w["code"] for w in _package(toml).warnings]
    assert _codes([{"code": c} for c in codes]) == ["parcels_missing_beyond_edge"]
    assert _codes(_package(toml, "T1_7_5").warnings) == []


def _two_sources(tmp: Path, neighbour: gpd.GeoDataFrame, *, boundary: bool = True) -> Path:
    """Atown in town.gpkg, ``neighbour`` in neighbour.gpkg (parcels and assessing table each),
    read as one layer through ``path = [...]``."""
    tmp.mkdir(parents=True, exist_ok=True)
    ATOWN.to_file(tmp / "town.gpkg", layer="parcels", driver="GPKG")
    _assess(ATOWN).to_file(tmp / "town.gpkg", layer="assess", driver="GPKG")
    neighbour.to_file(tmp / "neighbour.gpkg", layer="parcels", driver="GPKG")
    _assess(neighbour).to_file(tmp / "neighbour.gpkg", layer="assess", driver="GPKG")
    text = (f'[town]\nname = "Atown (test)"\ncrs = "{CRS}"\nregulation = "lynnfield-ch320"\n\n'
            '[layers.parcels]\npath = ["town.gpkg", "neighbour.gpkg"]\nlayer = "parcels"\n\n'
            '[layers.assess]\npath = ["town.gpkg", "neighbour.gpkg"]\nlayer = "assess"\n')
    if boundary:
        BOUNDARY.to_file(tmp / "town.gpkg", layer="town_boundary", driver="GPKG")
        text += '\n[layers.town_boundary]\npath = "town.gpkg"\nlayer = "town_boundary"\n'
    (tmp / "town.toml").write_text(text, encoding="utf-8")
    return tmp / "town.toml"


def test_the_neighbour_as_second_sources_clears_the_warning_and_lists_its_owners(tmp_path):
    """Issue 11 as a user fixes it: Btown's parcels and assessing table added as the second
    source of [layers.parcels] and [layers.assess]. The owners across the line (same three
    parcels as with one combined file) are listed and mailed."""
    before = _package(_town(tmp_path / "a", ATOWN))
    assert _codes(before.warnings) == ["parcels_missing_beyond_edge"]
    pkg = _package(_two_sources(tmp_path / "ab", BTOWN))
    assert _codes(pkg.warnings) == []
    across = pkg.listed.loc[pkg.listed["parcel_id"].str.startswith("T2_")]
    assert sorted(across["parcel_id"]) == ["T2_15_4", "T2_15_5", "T2_15_6"]
    assert pkg.counts["other_town"] == 3
    mailed = pkg.recipients.set_index("owner_name")
    for pid in ("T2_15_4", "T2_15_5", "T2_15_6"):
        assert mailed.loc[f"OWNER OF {pid}", "mail_city"] == "BTOWN"
    # the Atown side is unchanged by the second source
    ours = sorted(before.listed["parcel_id"])
    assert sorted(pkg.listed["parcel_id"].loc[~pkg.listed["parcel_id"].str.startswith("T2_")]) \
        == ours


def test_a_gap_between_two_sources_still_warns(tmp_path):
    """The neighbour's file starts 20 m past the line (its first column of lots missing): the
    search area of the lot at the line (x 280-300 m, reaching 30.48 m east) crosses that gap,
    off every source's extent though inside the two sources' combined box."""
    from swm_gis.notification.checks import source_extents

    toml = _two_sources(tmp_path / "gap", _lots(range(16, 30), 2), boundary=False)
    boxes = source_extents(swm_gis.load_config(toml))
    assert [tuple(round(v) for v in b.bounds) for b in boxes] == [
        (200_000, 900_000, 200_300, 900_300), (200_320, 900_000, 200_600, 900_300)]
    [w] = _edge(_package(toml, "T1_14_5").warnings)
    assert w["code"] == "parcels_missing_beyond_edge" and "off the extent" in w["text"]
    assert "to the east of the subject" in w["text"]
    # the whole neighbour: no gap, no warning
    assert _codes(_package(_two_sources(tmp_path / "nogap", BTOWN, boundary=False),
                    "T1_14_5").warnings) == []


def test_an_empty_source_covers_nothing(tmp_path):
    from swm_gis.notification.checks import source_extents

    toml = _two_sources(tmp_path / "empty", BTOWN.iloc[:0], boundary=False)
    boxes = source_extents(swm_gis.load_config(toml))
    assert [tuple(round(v) for v in b.bounds) for b in boxes] == [
        (200_000, 900_000, 200_300, 900_300)]


def test_an_unreadable_extent_is_unknown_not_an_error(tmp_path):
    from dataclasses import replace

    from swm_gis.notification.checks import source_extents

    cfg = swm_gis.load_config(_town(tmp_path / "t", ATOWN))
    spec = replace(cfg.layers["parcels"], path=str(tmp_path / "missing.gpkg"))
    assert source_extents(replace(cfg, layers={**cfg.layers, "parcels": spec})) is None

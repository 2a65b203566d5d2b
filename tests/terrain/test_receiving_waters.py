"""Receiving waters: flow trace from a site to ORWs and impaired waters, and their requirements.

The synthetic valley (EPSG:26986, 10 m cells, 3 km x 2 km; local coordinates below are metres
from the south-west corner): elevation z = 100 + 0.08 |y - 1005| - 0.01 x, a V-shaped valley
whose floor (y = 1005) falls to the east. Its hydrography:

* Brook        (105, 1005) -> (705, 1005), not impaired;
* Mill Pond    x 705..1005, y 955..1055, category 5, "Phosphorus, Total";
* River        (1005, 1005) -> (2005, 1005), category 4A, E. coli, TMDL "TMDL 12345";
* River lower  (2005, 1005) -> (2995, 1005), an Outstanding Resource Water;
* Salt Brook   (255, 1405) -> (455, 1425), category 5, "Chloride": 100 m from the site but upslope.

The site is x 300..400, y 1200..1300 on the north slope. Its runoff runs due south (the cross
slope 0.08 beats the down-valley 0.01) and meets the brook 200 m below the site's lowest cell
centres (y 1205 -> 1005). The trace starts from the south-east cell (x 395), so the flow
distances are: Brook 200 m = 656.2 ft; Mill Pond 200 + (705 - 395) = 510 m = 1673.2 ft;
River 510 + 300 (across the pond) = 810 m = 2657.5 ft; ORW 810 + 1000 = 1810 m = 5938.3 ft.
"""

from __future__ import annotations

import json

import geopandas as gpd
import numpy as np
import pytest
import shapely
from affine import Affine
from hypothesis import given, settings
from hypothesis import strategies as st
from pyproj import CRS
from shapely.geometry import box
from support.valleykit import EPSG, X0, Y0, valley_dem, valley_layers, xy

from swm_gis.errors import CrsError, InputFileError
from swm_gis.raster import Raster
from swm_gis.terrain import receiving_waters as rw


def trace(dem=None, **kw):
    v = valley_layers(**{k: kw.pop(k) for k in ("reverse_river", "salt_brook") if k in kw})
    site = v.pop("site")
    return rw.trace_receiving_waters(site, dem=dem, **v, **kw)


# --------------------------------------------------------------------------- the valley
def test_valley_names_pond_river_and_orw_with_flow_distances():
    result = trace(valley_dem())
    assert result["method"] == "dem" and result["approximate"] is False
    assert [(a["au_id"], a["name"], a["category"], a["flow_distance_ft"])
            for a in result["impaired"]] == [("MA93-01", "Mill Pond", "5", 1673.2),
                                             ("MA93-02", "Ipswich River", "4A", 2657.5)]
    assert result["impaired"][0]["causes"] == ["Phosphorus, Total"]
    assert result["impaired"][1]["tmdl"] == "TMDL 12345"
    assert result["orw"] == [{"id": "ORW-1", "name": "Ipswich River ORW",
                              "flow_distance_ft": 5938.3}]
    first = result["downstream"][0]
    assert (first["type"], first["id"], first["flow_distance_ft"]) == ("stream", "BROOK", 656.2)


def test_valley_requires_phosphorus_and_tmdl_and_says_nothing_about_chloride():
    result = trace(valley_dem())
    sections = {r["section"]: r["text"] for r in result["requirements"]}
    assert "320-19 B(10)(c)" in sections and "phosphorus removal" in sections["320-19 B(10)(c)"]
    assert "320-19 B(10)(a)" in sections and "TMDL 12345" in sections["320-19 B(10)(a)"]
    assert "320-19 B(2); 314 CMR 4.00" in sections  # ORW flagged
    assert "320-19 B(10)(d)" not in sections
    text = json.dumps({k: v for k, v in result.items() if k != "flow_path"})
    assert "hloride" not in text and "Salt Brook" not in text and "MA93-03" not in text


def test_flow_path_layer_runs_overland_then_down_the_network():
    fp = trace(valley_dem())["flow_path"]
    assert fp["kind"].tolist() == ["overland", "stream", "waterbody", "stream", "stream"]
    assert fp["name"].tolist()[1:] == ["Brook", "Mill Pond", "River", "River lower"]
    assert fp["from_ft"].tolist() == [0.0, 656.2, 1673.2, 2657.5, 5938.3]
    assert fp.crs == EPSG and fp.geometry.is_valid.all()


def test_depression_on_the_path_is_filled_and_crossed():
    result = trace(valley_dem(pit=True))
    assert [a["au_id"] for a in result["impaired"]] == ["MA93-01", "MA93-02"]
    assert result["orw"][0]["id"] == "ORW-1"


def test_trace_stops_at_the_town_boundary():
    town = box(*xy(0, 0), *xy(1500, 2000))
    result = trace(valley_dem(), boundary=town)
    assert result["stopped_at_boundary"] is True
    assert result["orw"] == []
    assert [a["au_id"] for a in result["impaired"]] == ["MA93-01", "MA93-02"]
    assert result["flow_path"]["to_ft"].max() == pytest.approx((1500 - 395 + 200) / 0.3048,
                                                               abs=0.1)


def test_without_dem_nearest_stream_is_used_and_marked_approximate():
    result = trace(None, salt_brook=False)
    assert result["method"] == "nearest-stream (approximate)"
    assert result["approximate"] is True
    # straight line from the site's south edge (y 1200) to the brook (y 1005): 195 m
    assert result["downstream"][0]["flow_distance_ft"] == round(195 / 0.3048, 1)
    assert [a["au_id"] for a in result["impaired"]] == ["MA93-01", "MA93-02"]
    assert any(w["problem"] == "no_dem" for w in result["warnings"])


def test_reversed_river_is_reported():
    result = trace(valley_dem(), reverse_river=True)
    problems = {w["problem"]: w for w in result["warnings"]}
    assert "R1" in problems["rises"]["reaches"]
    assert set(problems["starts_meet"]["reaches"]) == {"R1", "R2"}
    assert "digitised against the flow" in problems["rises"]["message"]


# --------------------------------------------------------------------------- bad inputs
def test_dem_not_covering_the_site_is_a_clear_error():
    v = valley_layers()
    far = gpd.GeoDataFrame(geometry=[box(*xy(5000, 5000), *xy(5100, 5100))], crs=EPSG)
    with pytest.raises(InputFileError, match="does not cover the site"):
        rw.trace_receiving_waters(far, dem=valley_dem(), streams=v["streams"],
                                  waterbodies=v["waterbodies"], orw=v["orw"],
                                  impaired=v["impaired"])


def test_dem_without_crs_is_refused():
    with pytest.raises(CrsError, match="no coordinate reference system"):
        trace(valley_dem(crs=None))


# --------------------------------------------------------------------------- requirements
@pytest.mark.parametrize(("cause", "group"), [
    ("Phosphorus, Total", "phosphorus"), ("PHOSPHORUS (TOTAL)", "phosphorus"),
    ("Nitrogen, Total", "nitrogen"), ("Nitrate/Nitrite (Nitrite + Nitrate as N)", "nitrogen"),
    ("Chloride", "chloride"), ("Escherichia coli (E. coli)", "pathogens"),
    ("Fecal Coliform", "pathogens"), ("Sedimentation/Siltation", "solids"),
    ("Total Suspended Solids (TSS)", "solids"), ("Lead", "metals"), ("Copper", "metals"),
    ("Mercury in Fish Tissue", "metals"), ("Oil and Grease", "oil_grease"),
    ("Petroleum Hydrocarbons", "oil_grease"), ("Dissolved Oxygen", "other"),
    ("Environmental toxicity", "other"),
], ids=lambda v: str(v)[:20])
def test_cause_wording_maps_to_a_group(cause, group):
    assert rw.cause_group(cause) == group


def _au(causes, category="5", tmdl=None):
    return {"au_id": "MA00-01", "name": "Test Brook", "category": category,
            "causes": causes, "tmdl": tmdl}


def test_nitrogen_and_chloride_requirements():
    reqs = rw.requirements_for([_au(["Nitrogen, Total", "Chloride"])], [])
    by = {r["section"]: r["text"] for r in reqs}
    assert "nitrogen removal" in by["320-19 B(10)(b)"]
    assert "Lynnfield Department of Public Works" in by["320-19 B(10)(d)"]
    assert "320-19 B(10)(a)" not in by  # no TMDL


def test_metals_clause_follows_the_proposed_use_and_is_conditional_without_one():
    """B(10)(e) binds "commercial or industrial land use areas": the proposed use decides; the
    existing use codes never drop it (a house lot may become a shop)."""
    au = [_au(["Lead", "Sedimentation/Siltation"])]
    e = "320-19 B(10)(e)"
    shop = [r for r in rw.requirements_for(au, [], proposed_use="325") if r["section"] == e]
    house = [r for r in rw.requirements_for(au, [], proposed_use="101") if r["section"] == e]
    assert len(shop) == 1 and shop[0]["conditional"] is False
    assert "[1] Allow shutdown and containment in the event of an emergency spill or other " \
        "unexpected event" in shop[0]["text"]
    assert "[2] Infiltrate stormwater to provide the level of pollutant removal equal to or " \
        "greater than the level of pollutant removal provided through the use of biofiltration " \
        "of the same volume of runoff to be infiltrated, prior to infiltration." in shop[0]["text"]
    assert "Lead" in shop[0]["text"] and "Sedimentation/Siltation" in shop[0]["text"]
    assert not house
    for codes in (["325"], ["101"], None):
        cond = [r for r in rw.requirements_for(au, [], use_codes=codes) if r["section"] == e]
        assert cond[0]["conditional"] is True, codes
        assert "Applies if the proposed use is commercial or industrial" in cond[0]["text"]
    existing = [r for r in rw.requirements_for(au, [], use_codes=["101"]) if r["section"] == e]
    assert "Existing use code(s) 101 of the site's parcels" in existing[0]["text"]


def test_orw_requirement_and_tmdl_per_unit():
    reqs = rw.requirements_for([_au(["Escherichia coli (E. coli)"], "4A", "TMDL 7")],
                               [{"id": "O1", "name": "Clear Lake"}])
    texts = " ".join(r["text"] for r in reqs)
    assert "TMDL 7" in texts and "Clear Lake (O1)" in texts
    assert [r["section"] for r in reqs] == ["320-19 B(10)", "320-19 B(10)(a)",
                                            "320-19 B(2); 314 CMR 4.00"]


def test_split_causes_keeps_commas_inside_a_cause():
    assert rw.split_causes("Phosphorus, Total; Escherichia coli (E. coli);") == [
        "Phosphorus, Total", "Escherichia coli (E. coli)"]
    assert rw.split_causes(None) == []


# --------------------------------------------------------------------------- properties
@settings(max_examples=15, deadline=None)
@given(dx=st.integers(-15, 15).map(lambda k: 10 * k))  # whole cells
def test_any_site_on_the_north_slope_above_the_brook_reaches_the_same_waters(dx):
    v = valley_layers()
    site = gpd.GeoDataFrame(geometry=[box(*xy(300 + dx, 1200), *xy(400 + dx, 1300))], crs=EPSG)
    result = rw.trace_receiving_waters(site, dem=valley_dem(), streams=v["streams"],
                                       waterbodies=v["waterbodies"], orw=v["orw"],
                                       impaired=v["impaired"])
    assert [a["au_id"] for a in result["impaired"]] == ["MA93-01", "MA93-02"]
    # the pond is (705 - (395 + dx)) m down the brook from where the site's runoff joins it
    assert result["impaired"][0]["flow_distance_ft"] == pytest.approx(
        (200 + 705 - (395 + dx)) / 0.3048, abs=0.1)
    distances = [d["flow_distance_ft"] for d in result["downstream"]]
    assert distances == sorted(distances)


def test_flow_distances_do_not_depend_on_the_working_crs_unit():
    """The same valley in Massachusetts State Plane feet (EPSG:2249) gives the same feet."""
    metres = trace(valley_dem())
    v = valley_layers()
    ft = {k: f.to_crs("EPSG:2249") for k, f in v.items()}
    dem = valley_dem()
    # EPSG:2249 is EPSG:26986 in US survey feet: scale the grid, keep the cells
    k = 1 / 0.3048006096012192
    e0, n0 = shapely.get_coordinates(
        gpd.GeoSeries([shapely.Point(X0, Y0 + 2000)], crs=EPSG).to_crs("EPSG:2249").iloc[0])[0]
    dem_ft = Raster(dem.array, Affine(10 * k, 0, e0, 0, -10 * k, n0),
                    CRS.from_user_input("EPSG:2249"), dem.source)
    site = ft.pop("site")
    feet = rw.trace_receiving_waters(site, dem=dem_ft, **ft)
    assert [a["au_id"] for a in feet["impaired"]] == [a["au_id"] for a in metres["impaired"]]
    for a, b in zip(feet["impaired"] + feet["orw"], metres["impaired"] + metres["orw"],
                    strict=True):
        assert a["flow_distance_ft"] == pytest.approx(b["flow_distance_ft"], abs=0.2)


def test_digitisation_problems_outside_the_town_are_not_reported():
    town = box(*xy(0, 0), *xy(1500, 2000))  # the R1/R2 junction at x 2005 is outside
    result = trace(valley_dem(), reverse_river=True, boundary=town)
    assert "starts_meet" not in {w["problem"] for w in result["warnings"]}
    assert "rises" in {w["problem"] for w in result["warnings"]}  # R1 runs through the town


def test_without_dem_or_streams_the_nearest_pond_is_met_at_its_shore():
    v = valley_layers()
    result = rw.trace_receiving_waters(v["site"], dem=None, streams=None,
                                       waterbodies=v["waterbodies"], orw=v["orw"],
                                       impaired=v["impaired"])
    # from the site's corner (400, 1200) to the pond's corner (705, 1055): hypot(305, 145) m
    expected = round(float(np.hypot(305, 145)) / 0.3048, 1)
    assert [(d["type"], d["name"], d["flow_distance_ft"]) for d in result["downstream"]] == [
        ("waterbody", "Mill Pond", expected), ("impaired", "Mill Pond", expected)]
    assert result["approximate"] is True

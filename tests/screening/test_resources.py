"""resource_checks: the habitats / floodplain / receiving-waters half of `swm-gis screen`,
reading a hand-made town (the valley of test_receiving_waters) through its config."""

from __future__ import annotations

import json
from pathlib import Path

import geopandas as gpd
import jsonschema
import numpy as np
import pytest
import rasterio
from shapely.geometry import Point, box
from support.townkit import write_town
from support.valleykit import EPSG, X0, Y0, valley_dem, valley_layers, xy

from swm_gis.config.town import load_config
from swm_gis.errors import CrsError
from swm_gis.screening.resource_areas import resource_checks

SCHEMA = Path(__file__).resolve().parents[2] / "swm_gis" / "schemas" / "screening.schema.json"


def write_dem(path: Path, *, crs: str | None = EPSG, shift_x: float = 0.0) -> Path:
    dem = valley_dem()
    arr = np.asarray(dem.array, dtype="float32")
    transform = dem.transform * dem.transform.__class__.translation(shift_x / 10, 0)
    with rasterio.open(path, "w", driver="GTiff", width=arr.shape[1], height=arr.shape[0],
                       count=1, dtype="float32", crs=crs, transform=transform,
                       nodata=-9999) as dst:
        dst.write(arr, 1)
    return path


def town_layers(*, empty_habitats: bool = False) -> dict[str, gpd.GeoDataFrame]:
    v = valley_layers()

    def gdf(data, geoms):
        return gpd.GeoDataFrame(data, geometry=geoms, crs=EPSG)

    priority = gdf({"PRIHAB_ID": ["PH 1"]}, [box(*xy(550, 1200), *xy(600, 1300))])
    estimated = gdf({"ESTHAB_ID": ["EH 2"]}, [box(*xy(553 + 300, 1200), *xy(900, 1300))])
    pools = gdf({"CVP_NUM": [4417]}, [Point(xy(430, 1250))])
    if empty_habitats:
        priority, estimated, pools = priority.iloc[:0], estimated.iloc[:0], pools.iloc[:0]
    return {
        "parcels": gdf({"LOC_ID": ["M_1", "M_2"]},
                       [box(*xy(280, 1180), *xy(420, 1320)), box(*xy(420, 1180), *xy(600, 1320))]),
        "nhesp_priority": priority,
        "nhesp_estimated": estimated,
        "vernal_pools": pools,
        "flood_zones": gdf({"FLD_ZONE": ["AE", "X"], "ZONE_SUBTY": [None, "0.2 PCT ANNUAL "
                                                                      "CHANCE FLOOD HAZARD"],
                            "SFHA_TF": ["T", "F"], "STATIC_BFE": [12.0, -9999.0]},
                           [box(*xy(250, 1150), *xy(450, 1225)),
                            box(*xy(250, 1225), *xy(450, 1250))]),
        "streams": v["streams"].rename(columns={"id": "STREAM_ID"}).drop(columns="name"),
        "waterbodies": v["waterbodies"].rename(columns={"name": "NAME"}),
        "orw": v["orw"].rename(columns={"id": "ORW_ID", "name": "NAME"}),
        "impaired_waters": v["impaired"].rename(columns={
            "id": "AU_ID", "name": "AU_NAME", "category": "CATEGORY", "causes": "CAUSES",
            "tmdl": "TMDL"}),
        "town_boundary": gdf({"TOWN": ["Valley"]}, [box(*xy(0, 0), *xy(3000, 2000))]),
    }


def make_town(tmp_path: Path, *, dem_crs: str | None = EPSG, dem_shift: float = 0.0,
              with_dem: bool = True, **kw) -> Path:
    extra = ""
    if with_dem:
        write_dem(tmp_path / "dem.tif", crs=dem_crs, shift_x=dem_shift)
        extra = '\n[layers.dem]\npath = "dem.tif"\n'
    return write_town(tmp_path, town_layers(**kw), extra=extra)


SITE = gpd.GeoDataFrame(geometry=[box(*xy(300, 1200), *xy(400, 1300))], crs=EPSG)


def validate(keys: dict, checks: list) -> None:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    for key in ("habitats", "floodplain", "receiving_waters", "checks"):
        sub = {"$defs": schema.get("$defs", {}), **schema["properties"][key]}
        jsonschema.validate(checks if key == "checks" else keys[key], sub)


def test_all_three_checks_on_a_configured_town(tmp_path):
    config = load_config(make_town(tmp_path))
    seen = []
    keys, layers, checks = resource_checks(config, SITE,
                                           progress=lambda f, m: seen.append((f, m)))
    assert [(h["layer"], h["id"], h["distance_ft"]) for h in keys["habitats"]] == [
        ("vernal_pool", 4417, 98.4), ("priority", "PH 1", 492.1)]
    fp = keys["floodplain"]
    assert (fp["site_fraction"], fp["zones"][0]["bfe"], fp["zones"][0]["zone"]) == (0.25, 12.0,
                                                                                    "AE")
    assert fp["shaded_x_area_sqft"] == round(100 * 25 / 0.3048**2, 1)
    rw = keys["receiving_waters"]
    assert rw["method"] == "dem"
    assert [a["au_id"] for a in rw["impaired"]] == ["MA93-01", "MA93-02"]
    assert [o["id"] for o in rw["orw"]] == ["ORW-1"]
    assert {r["section"] for r in rw["requirements"]} >= {"320-19 B(10)(a)", "320-19 B(10)(c)"}
    assert "hloride" not in json.dumps(keys)
    assert {c["name"]: c["ran"] for c in checks} == {"habitats": True, "floodplain": True,
                                                     "receiving_waters": True}
    assert all(c["source"] for c in checks)
    assert any("1:25,000" in n for n in checks[0]["notes"])
    assert set(layers) == {"habitats", "buffer_500ft", "flood_zones", "flood_overlap",
                           "flow_path", "receiving_waters"}
    assert layers["receiving_waters"]["id"].tolist() == ["ORW-1", "MA93-01", "MA93-02"]
    assert seen[0][0] == 0.0 and seen[-1][0] == 1.0
    json.dumps(keys)  # plain JSON types only
    validate(keys, checks)


def test_missing_optional_layers_turn_off_only_their_checks(tmp_path):
    parcels = town_layers()["parcels"]
    config = load_config(write_town(tmp_path, {"parcels": parcels}))
    keys, layers, checks = resource_checks(config, SITE)
    assert keys == {"habitats": [], "floodplain": None, "receiving_waters": None}
    assert layers == {}
    reasons = {c["name"]: (c["ran"], c["reason"]) for c in checks}
    assert reasons["floodplain"] == (False, "the flood zone layer is not configured")
    assert reasons["receiving_waters"][0] is False
    assert "the streams layer" in reasons["receiving_waters"][1]
    assert "the certified vernal pools layer" in reasons["habitats"][1]
    validate(keys, checks)


def test_empty_habitat_layers(tmp_path):
    config = load_config(make_town(tmp_path, empty_habitats=True, with_dem=False))
    keys, layers, checks = resource_checks(config, SITE)
    assert keys["habitats"] == []
    assert checks[0]["ran"] is True and "reason" not in checks[0]
    assert layers["habitats"].empty


def test_without_dem_the_result_is_approximate(tmp_path):
    config = load_config(make_town(tmp_path, with_dem=False))
    keys, _, checks = resource_checks(config, SITE)
    rw = keys["receiving_waters"]
    assert rw["approximate"] is True and rw["method"] == "nearest-stream (approximate)"
    assert "the elevation (DEM) layer" in checks[2]["reason"]


def test_dem_without_crs_is_refused(tmp_path):
    config = load_config(make_town(tmp_path, dem_crs=None))
    with pytest.raises(CrsError, match=r"dem\.tif.*\[layers\.dem\].*no coordinate reference"):
        resource_checks(config, SITE)


def test_dem_not_covering_the_site_falls_back_to_the_nearest_stream(tmp_path):
    """Issue 32 item 6: a DEM beside the site (it starts at x = 2000) is no refusal: the
    trace goes to the nearest stream, approximate, and the check says why."""
    config = load_config(make_town(tmp_path, dem_shift=2_000.0))
    keys, _, checks = resource_checks(config, SITE)
    rw = keys["receiving_waters"]
    assert rw["approximate"] is True and rw["method"] == "nearest-stream (approximate)"
    reason = {c["name"]: c.get("reason") or "" for c in checks}["receiving_waters"]
    assert "the elevation (DEM) layer does not cover the site (The DEM does not cover the " \
        "site." in reason


def test_subject_parcels_floodplain_and_use_codes(tmp_path):
    config = load_config(make_town(tmp_path))
    subject = gpd.GeoDataFrame({"id": ["M_1"], "use_code": ["401"]},
                               geometry=[box(*xy(280, 1180), *xy(420, 1320))], crs=EPSG)
    keys, _, _ = resource_checks(config, SITE, subject_parcels=subject)
    sp = keys["floodplain"]["subject_parcels"]
    # AE over x 280..420 (140 m) and y 1180..1225 (45 m) of the 140 m x 140 m parcel
    assert sp["parcels"][0]["id"] == "M_1"
    assert sp["sfha_area_sqft"] == round(140 * 45 / 0.3048**2, 1)
    assert sp["site_fraction"] == round(45 / 140, 4)
    assert keys["receiving_waters"]["use_codes"] == ["401"]


def test_site_in_feet_is_brought_to_the_working_crs(tmp_path):
    config = load_config(make_town(tmp_path, with_dem=False))
    keys, _, _ = resource_checks(config, SITE.to_crs("EPSG:2249"))
    assert keys["floodplain"]["site_fraction"] == 0.25
    assert [h["distance_ft"] for h in keys["habitats"]] == [98.4, 492.1]
    assert X0 and Y0  # the valley's origin is shared with test_receiving_waters

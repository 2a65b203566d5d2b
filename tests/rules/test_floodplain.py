"""Floodplain: the SFHA rule, and the overlap of a site or parcels with FEMA flood zones.

The hand-made site is a 100 m x 100 m square (10,000 m2 = 107,639.1 sq ft, EPSG:26986); an AE
zone over its southern quarter covers 2,500 m2 = 26,909.8 sq ft.
"""

from __future__ import annotations

from pathlib import Path

import geopandas as gpd
import pandas as pd
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import box

from swm_gis.config.town import LayerSpec, Rules, load_config
from swm_gis.errors import CrsError, FieldMissingError
from swm_gis.io import layers as io
from swm_gis.rules.floodplain import (
    clean_bfe,
    flood_zone_pieces,
    floodplain_by_area,
    floodplain_overlap,
    sfha_mask,
    shaded_x_mask,
)
from swm_gis.units import feet_per_unit

X0, Y0 = 230_000.0, 905_000.0
EPSG = "EPSG:26986"
SQFT_PER_M2 = 1 / 0.3048**2
CAMBRIDGE = Path(__file__).resolve().parents[2] / "data" / "cambridge.toml"


def sq(x0, y0, x1, y1):
    return box(X0 + x0, Y0 + y0, X0 + x1, Y0 + y1)


SITE = gpd.GeoDataFrame({"name": ["site"]}, geometry=[sq(0, 0, 100, 100)], crs=EPSG)


def zones(rows):
    return gpd.GeoDataFrame(
        [{k: v for k, v in r.items() if k != "geometry"} for r in rows],
        geometry=[r["geometry"] for r in rows], crs=EPSG)


# --------------------------------------------------------------------------- SFHA rule (kept)
def test_sfha_mask_flag_decides_then_zone_list():
    df = pd.DataFrame({"zone": ["AE", "X", "AR/AE", "A", "VE", "A12", "AO", "X"],
                       "sfha": [None, None, None, "F", "T", None, "", "T"]})
    assert sfha_mask(df).tolist() == [True, False, True, False, True, True, True, True]
    assert sfha_mask(df.drop(columns="sfha")).tolist() == [True, False, True, True, True, True,
                                                            True, False]


def test_sfha_mask_follows_the_rules_zone_list():
    df = pd.DataFrame({"zone": ["AE", "A"]})
    assert sfha_mask(df, rules=Rules(sfha_zones=("A",))).tolist() == [False, True]


# --------------------------------------------------------------------------- overlap
def test_ae_over_the_southern_quarter():
    z = zones([{"zone": "AE", "subtype": None, "sfha": "T", "bfe": 12.0,
                "geometry": sq(-50, -50, 150, 25)}])
    r = floodplain_overlap(SITE, z)
    assert r["in_sfha"] is True
    assert r["site_fraction"] == 0.25
    assert r["sfha_area_sqft"] == round(2500 * SQFT_PER_M2, 1) == 26909.8
    assert r["zones"] == [{"zone": "AE", "subtype": None, "bfe": 12.0, "area_sqft": 26909.8}]
    assert r["shaded_x_area_sqft"] == 0.0
    assert r["area_sqft"] == round(10_000 * SQFT_PER_M2, 1)


def test_zones_subtypes_bfe_and_shaded_x_separately():
    z = zones([
        {"zone": "AE", "subtype": "FLOODWAY", "sfha": "T", "bfe": -9999.0,
         "geometry": sq(0, 0, 100, 10)},
        {"zone": "AE", "subtype": None, "sfha": "T", "bfe": 12.0, "geometry": sq(0, 10, 100, 25)},
        {"zone": "X", "subtype": "0.2 PCT ANNUAL CHANCE FLOOD HAZARD", "sfha": "F",
         "bfe": -9999.0, "geometry": sq(0, 20, 100, 40)},  # overlaps the AE by 5 m: not counted
        {"zone": "X", "subtype": "AREA OF MINIMAL FLOOD HAZARD", "sfha": "F", "bfe": -9999.0,
         "geometry": sq(0, 40, 100, 100)},
    ])
    r = floodplain_overlap(SITE, z)
    assert r["site_fraction"] == 0.25
    assert r["zones"] == [
        {"zone": "AE", "subtype": None, "bfe": 12.0, "area_sqft": round(1500 * SQFT_PER_M2, 1)},
        {"zone": "AE", "subtype": "FLOODWAY", "bfe": None,
         "area_sqft": round(1000 * SQFT_PER_M2, 1)},
    ]
    assert r["shaded_x_area_sqft"] == round(1500 * SQFT_PER_M2, 1)


def test_overlapping_zone_polygons_are_not_counted_twice():
    z = zones([{"zone": "AE", "sfha": "T", "bfe": 9.0, "geometry": sq(0, 0, 100, 60)},
               {"zone": "AE", "sfha": "T", "bfe": 9.0, "geometry": sq(0, 40, 100, 80)}])
    assert floodplain_overlap(SITE, z)["site_fraction"] == 0.8


def test_flag_f_overrides_an_a_zone():
    z = zones([{"zone": "AE", "sfha": "F", "bfe": 9.0, "geometry": sq(0, 0, 100, 100)}])
    r = floodplain_overlap(SITE, z)
    assert (r["in_sfha"], r["sfha_area_sqft"], r["zones"]) == (False, 0.0, [])


def test_no_zones_near_the_site():
    empty = gpd.GeoDataFrame({"zone": [], "sfha": [], "bfe": []}, geometry=[], crs=EPSG)
    r = floodplain_overlap(SITE, empty)
    assert (r["in_sfha"], r["sfha_area_sqft"], r["site_fraction"], r["zones"]) == (
        False, 0.0, 0.0, [])


def test_each_parcel_keeps_its_index():
    parcels = gpd.GeoDataFrame({"id": ["P1", "P2"]},
                               geometry=[sq(0, 0, 100, 100), sq(100, 0, 200, 100)],
                               index=[7, 3], crs=EPSG)
    z = zones([{"zone": "AE", "sfha": "T", "bfe": 12.0, "geometry": sq(-50, -50, 150, 25)},
               {"zone": "VE", "sfha": "T", "bfe": 14.0, "geometry": sq(150, 0, 200, 100)}])
    per = floodplain_by_area(parcels, z)
    assert per.index.tolist() == [7, 3]
    assert per["sfha_fraction"].tolist() == [0.25, 0.625]  # (50*25 + 50*100) / 10,000
    assert per["zones"].tolist() == ["AE", "AE;VE"]
    assert per["bfe_ft"].tolist() == [12.0, 14.0]


def test_pieces_are_clipped_to_the_site():
    z = zones([{"zone": "AE", "sfha": "T", "bfe": 12.0, "geometry": sq(-50, -50, 150, 25)}])
    pieces = flood_zone_pieces(SITE, z)
    assert pieces["area_sqft"].round(1).tolist() == [26909.8]
    assert shapely.equals(pieces.geometry.iloc[0], sq(0, 0, 100, 25))


def test_mixed_crs_and_no_crs_are_refused():
    z = zones([{"zone": "AE", "sfha": "T", "bfe": 1.0, "geometry": sq(0, 0, 1, 1)}])
    with pytest.raises(CrsError, match="different CRSs"):
        floodplain_overlap(SITE, z.to_crs("EPSG:4326"))
    with pytest.raises(CrsError, match="no coordinate reference system"):
        floodplain_overlap(gpd.GeoSeries([sq(0, 0, 1, 1)]), z)


def test_zones_without_a_zone_column_are_refused():
    with pytest.raises(FieldMissingError, match="zone"):
        floodplain_overlap(SITE, gpd.GeoDataFrame(geometry=[sq(0, 0, 1, 1)], crs=EPSG))


def test_helpers():
    assert clean_bfe(-9999) is None and clean_bfe("12.5") == 12.5 and clean_bfe(None) is None
    assert shaded_x_mask(pd.DataFrame({"zone": ["X500", "X"], "subtype": [None, None]})
                         ).tolist() == [True, False]
    assert feet_per_unit("EPSG:2249") == pytest.approx(1.000002, abs=1e-6)
    with pytest.raises(CrsError, match="geographic"):
        feet_per_unit("EPSG:4326")


@settings(max_examples=40, deadline=None)
@given(y=st.floats(-50, 150, allow_nan=False), dx=st.floats(-1e4, 1e4, allow_nan=False))
def test_share_is_the_covered_strip_and_moves_with_the_map(y, dx):
    z = zones([{"zone": "AE", "sfha": "T", "bfe": 1.0, "geometry": sq(-10, -10, 110, y)}])
    r = floodplain_overlap(SITE, z)
    expected = min(max(y, 0), 100) / 100
    assert r["site_fraction"] == pytest.approx(expected, abs=1e-4)
    assert 0 <= r["sfha_area_sqft"] <= r["area_sqft"]
    moved = floodplain_overlap(SITE.translate(dx, 0), z.set_geometry(z.translate(dx, 0)))
    assert moved["sfha_area_sqft"] == pytest.approx(r["sfha_area_sqft"], abs=0.2)


# --------------------------------------------------------------------------- real data
@pytest.fixture(scope="module")
def cambridge():
    config = load_config(CAMBRIDGE)
    flood = io.read_layer(config, "flood_zones")
    parcels = io.read_layer(config, "parcels", bbox=tuple(flood.total_bounds))
    sfha = shapely.union_all(flood.geometry.values)
    hit = parcels[shapely.intersects(parcels.geometry.values, sfha)]
    share = shapely.area(shapely.intersection(hit.geometry.values, sfha)) / hit.area
    partial = hit[(share > 0.05) & (share < 0.95)].sort_values("id").head(4)
    inside = hit[share >= 0.999].sort_values("id").head(2)
    return config, flood, pd.concat([partial, inside])


def test_cambridge_parcels_agree_with_an_exact_overlay(cambridge):
    config, flood, chosen = cambridge
    assert len(chosen) == 6
    assert flood["sfha"].eq("T").all()  # every 100-year zone is flagged SFHA
    sfha = shapely.union_all(flood.geometry.values)
    per = floodplain_by_area(chosen, flood, rules=config.rules)
    direct = shapely.area(shapely.intersection(chosen.geometry.values, sfha)) * SQFT_PER_M2
    assert per["sfha_area_sqft"].to_numpy() == pytest.approx(direct, abs=0.1)
    assert per["in_sfha"].all()
    assert (per["sfha_fraction"].iloc[:4] < 0.95).all() and (per["sfha_fraction"].iloc[4:]
                                                              > 0.999).all()


def test_cambridge_bfe_and_shaded_x_from_the_500_year_layer(cambridge):
    config, flood, chosen = cambridge
    spec = config.layer("flood_zones")
    path = Path(spec.path).with_name("FEMA_FloodPlains500Year.geojson")
    z500 = io.read_spec(LayerSpec(key="flood_zones", path=str(path), fields=spec.fields),
                        working_crs=config.crs)
    shaded = shapely.union_all(z500.geometry.values[(z500["zone"] == "X").to_numpy()])
    sfha = shapely.union_all(z500.geometry.values[(z500["sfha"] == "T").to_numpy()])
    near = z500.iloc[shapely.STRtree(z500.geometry.values).query(
        shapely.union_all(chosen.geometry.values))]
    area = gpd.GeoDataFrame(geometry=[shapely.union_all(chosen.geometry.values)], crs=EPSG)
    r = floodplain_overlap(area, near)
    geom = area.geometry.iloc[0]
    expect_x = shapely.area(shapely.difference(shapely.intersection(geom, shaded), sfha))
    assert r["shaded_x_area_sqft"] == pytest.approx(expect_x * SQFT_PER_M2, abs=0.2)
    assert r["sfha_area_sqft"] == pytest.approx(
        shapely.area(shapely.intersection(geom, sfha)) * SQFT_PER_M2, abs=0.2)
    assert {z["zone"] for z in r["zones"]} == {"AE"}
    assert all(z["bfe"] in (None, 3.5) for z in r["zones"])

"""Applicability map: flags on hand-built parcels, tiles, the GeoPackage, the CLI, Cambridge.

Coordinates are EPSG:26986 metres; distances are set in feet (1 ft = 0.3048 m exactly) so the
expected values can be checked by hand.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import geopandas as gpd
import numpy as np
import pandas as pd
import pyogrio
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import Point, box
from support.applicabilitykit import FT, X0, Y0, drainage_town, frame, sq, town_layers
from support.townkit import CRS, write_town

from swm_gis.applicability import run as ap
from swm_gis.cli import main
from swm_gis.config.town import load_config
from swm_gis.terrain.catchments import downstream_closure


@pytest.fixture
def flag_town(tmp_path: Path) -> Path:
    """applicabilitykit's town (its town.toml): a parcel for each flag of the map."""
    return write_town(tmp_path, town_layers())


@pytest.fixture
def flags(flag_town: Path) -> pd.DataFrame:
    cfg = load_config(flag_town)
    overlays = ap.load_overlays(cfg, ap.parcel_extent(cfg)[0])
    parcels = gpd.read_file(flag_town.parent / "town.gpkg", layer="parcels").rename(
        columns={"LOC_ID": "id", "MAP_PAR_ID": "map_par_id"})
    return ap.classify_parcels(parcels, overlays).set_index("parcel_id")


# --------------------------------------------------------------------------- flags
def test_parcel_overlapping_an_ae_zone_is_in_the_sfha(flags):
    row = flags.loc["FLOOD"]
    assert bool(row.in_sfha) is True
    assert row.sfha_fraction == pytest.approx(0.25)
    assert row.sfha_area_sqft == pytest.approx(2_500.0)
    assert "floodplain" in row.screening_class


def test_parcel_only_touching_an_ae_zone_has_no_land_in_it(flags):
    row = flags.loc["TOUCH"]  # a shared edge has no area; the shaded X zone is not SFHA
    assert bool(row.in_sfha) is False
    assert row.sfha_fraction == 0.0


def test_habitat_459_ft_away_is_within_500_ft(flags):
    row = flags.loc["H459"]
    assert row.nhesp_distance_ft == pytest.approx(459.0, abs=1e-6)
    assert bool(row.nhesp_within_distance) is True
    assert row.nhesp_nearest == "priority:PH 1"


def test_habitat_exactly_500_ft_away_is_within_threshold_inclusive(flags):
    assert flags.loc["H500"].nhesp_distance_ft == pytest.approx(500.0, abs=1e-6)
    assert bool(flags.loc["H500"].nhesp_within_distance) is True


def test_habitat_just_over_500_ft_away_is_not_within(flags):
    row = flags.loc["H501"]
    assert row.nhesp_distance_ft == pytest.approx(500.5, abs=1e-6)
    assert bool(row.nhesp_within_distance) is False
    assert "habitat" not in row.screening_class


def test_parcel_straddling_two_huc12s_takes_the_70_percent_one(flags):
    row = flags.loc["SPLIT"]
    assert row.huc12 == "010700020101"
    assert row.huc12_name == "West Brook"
    assert row.huc10 == "0107000201"


def test_area_and_one_acre_trigger(flags):
    assert flags.loc["SPLIT"].area_sqft == pytest.approx(43_600.0)  # 200 ft x 218 ft
    assert bool(flags.loc["SPLIT"].can_reach_trigger) is True
    assert flags.loc["FLOOD"].area_sqft == pytest.approx(10_000.0)
    assert bool(flags.loc["FLOOD"].can_reach_trigger) is False
    # no DEM: the drainage checks did not run, and the class says so
    assert flags.loc["SPLIT"].screening_class == (
        "large parcel; no constraint found; ORW, impaired waters not checked")
    assert flags.loc["SPLIT"].not_checked == "ORW, impaired waters"


def test_drainage_flags_are_null_without_dem(flags):
    assert flags["drains_to_orw"].isna().all()
    assert flags["drains_to_impaired"].isna().all()


def test_huc10_from_huc12_prefix_when_no_huc10_layer(tmp_path):
    cfg = load_config(write_town(tmp_path, town_layers(with_huc10=False)))
    overlays = ap.load_overlays(cfg, ap.parcel_extent(cfg)[0])
    parcels = gpd.GeoDataFrame({"id": ["A"]}, geometry=[sq(100, 2_000, 50, 50)], crs=CRS)
    out = ap.classify_parcels(parcels, overlays)
    assert out["huc12"].tolist() == ["010700020101"]
    assert out["huc10"].tolist() == ["0107000201"]


def test_classify_keeps_index_and_crs_and_does_not_mutate():
    parcels = gpd.GeoDataFrame({"id": ["A", "B"]}, index=[7, 3],
                               geometry=[box(0, 0, 10, 10), box(20, 0, 30, 10)], crs=CRS)
    before = parcels.copy()
    out = ap.classify_parcels(parcels, ap.Overlays())
    assert list(out.index) == [7, 3]
    assert out.crs == parcels.crs
    pd.testing.assert_frame_equal(parcels, before)
    assert out["huc12"].isna().all() and out["in_sfha"].isna().all()


def test_overlapping_flood_zones_are_not_counted_twice():
    parcel = gpd.GeoDataFrame({"id": ["A"]}, geometry=[box(0, 0, 10, 10)], crs=CRS)
    zones = gpd.GeoDataFrame({"zone": ["AE", "A"], "sfha": [None, None]},
                             geometry=[box(-5, -5, 5, 15), box(0, -5, 5, 15)], crs=CRS)
    out = ap.classify_parcels(parcel, ap.Overlays.build(flood_zones=zones))
    assert out["sfha_fraction"].tolist() == [pytest.approx(0.5)]


def test_vernal_pool_point_distance():
    parcel = gpd.GeoDataFrame({"id": ["A"]}, geometry=[box(0, 0, 100 * FT, 100 * FT)], crs=CRS)
    pools = gpd.GeoDataFrame({"id": ["CVP 9"]}, geometry=[Point(100 * FT, 400 * FT)], crs=CRS)
    out = ap.classify_parcels(parcel, ap.Overlays.build(vernal_pools=pools))
    assert out["nhesp_distance_ft"].tolist() == [pytest.approx(300.0)]
    assert out["nhesp_nearest"].tolist() == ["vernal_pool:CVP 9"]


def test_habitat_beyond_search_radius_has_null_distance():
    parcel = gpd.GeoDataFrame({"id": ["A"]}, geometry=[box(0, 0, 10, 10)], crs=CRS)
    far = gpd.GeoDataFrame({"id": ["P"]}, geometry=[box(5_000, 0, 5_010, 10)], crs=CRS)
    none = far.iloc[:0]
    out = ap.classify_parcels(parcel, ap.Overlays.build(nhesp_priority=far, nhesp_estimated=none,
                                                        vernal_pools=none))
    assert np.isnan(out["nhesp_distance_ft"].iloc[0])
    assert bool(out["nhesp_within_distance"].iloc[0]) is False
    # with the priority layer alone, "none within 500 ft" cannot be said
    out = ap.classify_parcels(parcel, ap.Overlays.build(nhesp_priority=far))
    assert out["nhesp_within_distance"].isna().all()
    assert out["not_checked"].iloc[0] == "NHESP, floodplain, ORW, impaired waters, HUC"


@settings(max_examples=40, deadline=None)
@given(gap_ft=st.floats(min_value=0.0, max_value=990.0, allow_nan=False),
       max_vertices=st.sampled_from([8, 16, 64, 10_000]))
def test_distance_and_flag_agree_with_shapely_for_any_gap(gap_ft, max_vertices):
    parcel = box(0, 0, 30, 30)
    # a round habitat of 256 vertices, 700 m across: cut into pieces by vertices and by extent
    hab = Point(30 + gap_ft * FT + 350, 15).buffer(350, quad_segs=64)
    none = gpd.GeoDataFrame({"id": []}, geometry=gpd.GeoSeries([], crs=CRS), crs=CRS)
    out = ap.classify_parcels(
        gpd.GeoDataFrame({"id": ["A"]}, geometry=[parcel], crs=CRS),
        ap.Overlays.build(nhesp_priority=gpd.GeoDataFrame({"id": ["P"]}, geometry=[hab],
                                                          crs=CRS),
                          nhesp_estimated=none, vernal_pools=none,
                          max_piece_vertices=max_vertices))
    exact_ft = shapely.distance(parcel, hab) / FT
    assert out["nhesp_distance_ft"].iloc[0] == pytest.approx(exact_ft, abs=1e-6)
    assert bool(out["nhesp_within_distance"].iloc[0]) is bool(exact_ft <= 500.0 + 1e-6)


@settings(max_examples=30, deadline=None)
@given(share=st.floats(min_value=0.0, max_value=1.0),
       max_vertices=st.sampled_from([8, 64]))
def test_sfha_fraction_is_the_exact_share_whatever_the_subdivision(share, max_vertices):
    parcel = box(0, 0, 40, 40)
    # a zone with a wavy far edge (many vertices) and a straight edge across the parcel
    wave = [(40 * share, -10), (40 * share, 50)] + [(-10 - 5 * (i % 2), 50 - i)
                                                     for i in range(61)]
    zone = shapely.Polygon(wave)
    expected = shapely.intersection(parcel, zone).area / parcel.area
    out = ap.classify_parcels(
        gpd.GeoDataFrame({"id": ["A"]}, geometry=[parcel], crs=CRS),
        ap.Overlays.build(flood_zones=gpd.GeoDataFrame({"zone": ["AE"]}, geometry=[zone],
                                                       crs=CRS),
                          max_piece_vertices=max_vertices))
    assert out["sfha_fraction"].iloc[0] == pytest.approx(expected, abs=1e-9)
    assert bool(out["in_sfha"].iloc[0]) is bool(share > 0)


def test_screening_class_names():
    df = pd.DataFrame({"can_reach_trigger": [True, False, True, False],
                       "nhesp_within_distance": pd.array([True, None, False, None],
                                                      dtype="boolean"),
                       "in_sfha": [True, True, False, False],
                       "drains_to_orw": [False, False, True, False],
                       "drains_to_impaired": [False, True, True, False],
                       "huc12": ["010700020101", "010700020101", None, "010700020101"]})
    assert ap.screening_class(df).tolist() == [
        "large parcel; habitat and floodplain constraints",
        "small parcel; floodplain and impaired-water constraints; NHESP not checked",
        "large parcel; ORW and impaired-water constraints; HUC not checked",
        "small parcel; no constraint found; NHESP not checked",
    ]
    assert ap.not_checked(df).tolist() == [None, "NHESP", "HUC", "NHESP"]
    assert ap.screening_class(df, no_owner=np.array([1, 2, 3, 0])).tolist()[:3] == [
        "right-of-way", "water", "outside the town; not subject to its Chapter 320"]
    classes = ap.all_classes()
    assert len(classes) == len(set(classes))
    # 2 sizes x each flag found / not found / not checked (4 constraints) x HUC checked or not;
    # with the drainage flags, also "drainage leaves the town's data" where one of them is
    # neither found nor "not checked" (5 of their 9 combinations); then right-of-way, water and
    # a parcel outside the town
    assert len(classes) == 2 * 3**2 * (3**2 + 5) * 2 + 3
    assert classes[0] == "large parcel; habitat, floodplain, ORW and impaired-water constraints"
    assert classes[-3:] == ["right-of-way", "water",
                            "outside the town; not subject to its Chapter 320"]
    assert "small parcel; no mapped constraints" in classes




def test_drainage_flags_from_catchments_closed_downstream(tmp_path):
    out = tmp_path / "a.gpkg"
    ap.run_applicability(load_config(drainage_town(tmp_path)), out)
    res = ap.read_result(out).set_index("parcel_id")
    # SOUTH drains to S1 (through the ORW fen) and on to S2 (impaired): both flags
    assert bool(res.loc["SOUTH", "drains_to_orw"]) is True
    assert bool(res.loc["SOUTH", "drains_to_impaired"]) is True
    assert res.loc["SOUTH", "impairment_causes"] == "Escherichia coli; Phosphorus (Total)"
    # NORTH drains to S2 only: impaired; the ORW fen is upstream, but S2 ends at the DEM's
    # north edge (the end of the mapped streams), so "no ORW" cannot be said: null, and named
    assert pd.isna(res.loc["NORTH", "drains_to_orw"])
    assert bool(res.loc["NORTH", "drains_to_impaired"]) is True
    assert bool(res.loc["NORTH", "drainage_leaves_data"]) is True
    assert res.loc["NORTH", "screening_class"] == (
        "large parcel; impaired-water constraint; drainage leaves the town's data; NHESP, "
        "floodplain, HUC not checked")
    # EAST drains off the DEM without meeting the brook: where it goes is not in the data, so
    # neither flag can be false (``docs/findings.md``: a trace that left the data is not "no")
    assert pd.isna(res.loc["EAST", "drains_to_orw"])
    assert pd.isna(res.loc["EAST", "drains_to_impaired"])
    assert pd.isna(res.loc["EAST", "impairment_causes"])
    assert bool(res.loc["EAST", "drainage_leaves_data"]) is True
    assert res.loc["EAST", "screening_class"] == (
        "small parcel; no constraint found; drainage leaves the town's data; NHESP, "
        "floodplain, HUC not checked")


def test_drainage_no_only_where_the_trace_ends_inside_the_data(tmp_path):
    """The brook ends in a pond without an outlet and every ORW layer (the ORWs and the
    certified vernal pools) is configured: NORTH's flow ends inside the data having passed no
    ORW, so 0; SOUTH's passes the fen, so 1; EAST's leaves the DEM, so null."""
    out = tmp_path / "a.gpkg"
    ap.run_applicability(load_config(drainage_town(tmp_path, pond=True)), out)
    res = ap.read_result(out).set_index("parcel_id")
    assert bool(res.loc["NORTH", "drains_to_orw"]) is False
    assert bool(res.loc["NORTH", "drains_to_impaired"]) is True
    assert bool(res.loc["NORTH", "drainage_leaves_data"]) is False
    assert res.loc["NORTH", "screening_class"] == (
        "large parcel; impaired-water constraint; NHESP, floodplain, HUC not checked")
    assert bool(res.loc["SOUTH", "drains_to_orw"]) is True
    assert pd.isna(res.loc["EAST", "drains_to_orw"])
    assert bool(res.loc["EAST", "drainage_leaves_data"]) is True


def test_downstream_closure_follows_a_chain_and_a_braid():
    own = np.zeros((4, 2), dtype=bool)
    own[3, 1] = True
    own[1, 0] = True
    # 0 -> 1 -> 3 and 0 -> 2 -> 3 (a braid), 2 -> 0 would be a loop: also allowed
    src, dst = np.array([0, 1, 0, 2]), np.array([1, 3, 2, 3])
    closed = downstream_closure(own, src, dst)
    assert closed.tolist() == [[True, True], [True, True], [False, True], [False, True]]


# --------------------------------------------------------------------------- tiles, output
def test_tiles_assign_each_parcel_once_and_match_one_tile(tmp_path):
    rng = np.random.default_rng(5)
    xs, ys = rng.uniform(0, 3_000, 400), rng.uniform(0, 2_000, 400)
    geoms = [box(X0 + x, Y0 + y, X0 + x + 25, Y0 + y + 25) for x, y in zip(xs, ys, strict=True)]
    layers = town_layers()
    layers["parcels"] = frame({"LOC_ID": [f"P{i}" for i in range(400)]}, geoms)
    cfg = load_config(write_town(tmp_path, layers))
    one = ap.run_applicability(cfg, tmp_path / "one.gpkg", chunk_size=1_000)
    many = ap.run_applicability(cfg, tmp_path / "many.gpkg", chunk_size=100)
    assert one.tiles == 1 and many.tiles >= 4
    a = ap.read_result(one.path).sort_values("parcel_id").reset_index(drop=True)
    b = ap.read_result(many.path).sort_values("parcel_id").reset_index(drop=True)
    assert len(b) == 400 and b["parcel_id"].is_unique
    pd.testing.assert_frame_equal(a.drop(columns="geometry"), b.drop(columns="geometry"))


def test_an_id_on_two_polygons_in_different_tiles_is_one_parcel(tmp_path):
    """Like a house lot cut in two by a rail line: one row, area of both parts, one tile."""
    geoms = [box(X0 + 30 * i, Y0, X0 + 30 * i + 20, Y0 + 20) for i in range(300)]
    ids = [f"P{i}" for i in range(300)]
    ids[299] = "P0"  # the first and the last polygons, 9 km apart, share an id
    layers = town_layers()
    layers["parcels"] = frame({"LOC_ID": ids}, geoms)
    res = ap.run_applicability(load_config(write_town(tmp_path, layers)), tmp_path / "a.gpkg",
                               chunk_size=100)
    out = ap.read_result(res.path)
    assert res.tiles >= 4 and res.parcels == 299 and out["parcel_id"].is_unique
    row = out.set_index("parcel_id").loc["P0"]
    assert row.area_sqft == pytest.approx(2 * 400 / FT**2)
    assert row.geometry.geom_type == "MultiPolygon"


def test_output_geopackage_has_layer_summary_checks_and_default_style(flag_town, tmp_path):
    out = tmp_path / "out" / "applicability.gpkg"
    res = ap.run_applicability(load_config(flag_town), out)
    assert res.parcels == 6
    names = {row[0] for row in pyogrio.list_layers(out)}
    assert {"applicability", "applicability_summary", "applicability_checks",
            "layer_styles"} <= names
    with sqlite3.connect(out) as con:
        assert con.execute("PRAGMA user_version").fetchone()[0] == 10200  # GeoPackage 1.2
        name, col, default, qml = con.execute(
            "SELECT f_table_name, f_geometry_column, useAsDefault, styleQML FROM layer_styles"
        ).fetchone()
    assert (name, col, default) == ("applicability", "geom", 1)
    assert 'type="RuleRenderer"' in qml and "&quot;screening_class&quot; IN ('" in qml
    assert "Large parcel: 1 acre (43,560 sq ft) or more" in qml  # "large parcel" defined
    summary = pyogrio.read_dataframe(out, layer="applicability_summary")
    town_rows = summary[summary["huc12"] == "all"]
    assert town_rows["parcels"].sum() == 6
    west = summary[(summary["huc12"] == "010700020101")]
    assert set(west["huc12_name"]) == {"West Brook"}
    checks = pyogrio.read_dataframe(out, layer="applicability_checks").set_index("check")
    assert bool(checks.loc["in_sfha", "ran"]) is True
    assert "320-20" in checks.loc["nhesp_within_distance", "chapter_320"]
    assert bool(checks.loc["drains_to_orw", "ran"]) is False
    # issue 35: the notes name the layers in words, never config keys ("no layers.dem")
    assert checks.loc["drains_to_orw", "note"] == (
        "no elevation (DEM) layer and no streams layer or waterbodies layer in the town config "
        "(needed to trace drainage)")
    assert checks.loc["in_sfha", "note"].startswith("coverage: the flood zone layer: ")
    notes = checks.drop(index="run")["note"].fillna("")
    assert not notes.str.contains(r"layers\.|flood_zones|nhesp_|vernal_pools").any()


def test_summary_counts_and_acres_add_up():
    result = pd.DataFrame({"huc12": ["A", "A", "B", None],
                           "screening_class": ["x", "x", "x", "y"],
                           "area_acres": [1.0, 2.0, 0.5, 0.25]})
    s = ap.combine_summaries([ap.summarise(result.iloc[:2]), ap.summarise(result.iloc[2:])])
    rows = {(r.huc12, r.screening_class): (r.parcels, r.area_acres) for r in s.itertuples()}
    assert rows[("A", "x")] == (2, 3.0)
    assert rows[("none", "y")] == (1, 0.25)
    assert rows[("all", "x")] == (3, 3.5)


# --------------------------------------------------------------------------- CLI
def test_cli_writes_the_map_and_refuses_to_overwrite(flag_town, tmp_path, capsys):
    out = tmp_path / "map.gpkg"
    args = ["--progress", "none", "applicability", "--config", str(flag_town), "--out", str(out)]
    assert main(args) == 0
    text = capsys.readouterr().out
    # the console folds a path longer than its width (as under xdist's popen-gwN folders)
    assert "6 parcels classified" in text and str(out) in "".join(text.split())
    assert main(args) == 2
    assert "--overwrite" in capsys.readouterr().err
    assert main([*args, "--overwrite"]) == 0


def test_cli_refuses_a_non_gpkg_output_and_a_stray_scheduler(flag_town, tmp_path, capsys):
    assert main(["--progress", "none", "applicability", "-c", str(flag_town), "--out",
                 str(tmp_path / "map.shp")]) == 2
    assert ".gpkg" in capsys.readouterr().err
    assert main(["--progress", "none", "applicability", "-c", str(flag_town), "--out",
                 str(tmp_path / "m.gpkg"), "--scheduler", "tcp://127.0.0.1:1"]) == 2
    assert "--engine dask" in capsys.readouterr().err


def test_cli_help_ends_with_an_example(capsys):
    assert main(["applicability", "--help"]) == 0
    assert "Example: swm-gis applicability --config" in capsys.readouterr().out


def test_run_demo_writes_the_map(flag_town, tmp_path):
    from swm_gis.cli import applicability as cli_mod

    lines = cli_mod.run_demo(flag_town, tmp_path / "demo")
    assert (tmp_path / "demo" / "applicability.gpkg").is_file()
    assert any("parcels classified" in line for line in lines)
    assert cli_mod.DEMO_ORDER == 40


# --------------------------------------------------------------------------- real data
def test_cambridge_in_sfha_equals_exact_overlay(cambridge_config, tmp_path):
    cfg = load_config(cambridge_config)
    res = ap.run_applicability(cfg, tmp_path / "cam.gpkg")
    got = ap.read_result(res.path)
    parcels = pyogrio.read_dataframe(cfg.layer("parcels").path)
    parcels = parcels.set_crs("EPSG:4326", allow_override=True).to_crs(CRS)
    geoms = parcels.geometry.values.to_numpy()
    parcels = parcels[~(shapely.is_missing(geoms) | shapely.is_empty(geoms))]
    parcels["geometry"] = parcels.geometry.make_valid()
    flood = gpd.read_file(cfg.layer("flood_zones").path).to_crs(CRS)
    flood = flood[flood["sfha_tf"].str.upper() == "T"] if "sfha_tf" in flood else flood
    inter = gpd.overlay(parcels[["ML", "geometry"]], flood[["geometry"]], how="intersection",
                        keep_geom_type=True)
    overlay_ids = set(inter.loc[inter.area > 0, "ML"])
    ours = set(got.loc[got["in_sfha"].eq(True), "parcel_id"])
    assert len(ours) > 100
    assert ours == overlay_ids


def test_the_map_and_a_map_kept_in_memory_are_written_with_64_kib_pages(flag_town, tmp_path):
    """The town-wide map's GeoPackage, streamed (run_applicability) or written from memory
    (write_map), has SQLite pages of 64 KiB (swm_gis.io.writers.large_pages: a sixteenth of the
    pages to write), and the two hold the same rows."""
    cfg = load_config(flag_town)
    streamed = ap.run_applicability(cfg, tmp_path / "streamed.gpkg", workers=1)
    town = ap.classify_town(cfg)
    kept = ap.write_map(town.frame, tmp_path / "kept.gpkg", summary=town.summary,
                        checks=town.checks, config=cfg, parameters=town.parameters)
    for path in (streamed.path, kept):
        with sqlite3.connect(path) as db:
            assert db.execute("PRAGMA page_size").fetchone()[0] == 65_536
    a, b = ap.read_result(streamed.path), ap.read_result(kept)
    assert len(a) == len(town.frame) > 0
    assert a.drop(columns="geometry").equals(b.drop(columns="geometry"))

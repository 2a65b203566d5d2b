"""Applicability classes tell the truth (``docs/findings.md``), one colour per class, every core.

* a flag whose layers are absent is null, never false; so is a flag whose layers do not cover
  the area the check searches (the parcel, or the parcel and 500 ft around it for NHESP), and
  ``not_checked`` and the class name what was not checked;
* right-of-way and water polygons get their own classes, by the abutters rule's predicate;
* the stored QGIS style has one distinct colour, and one distinct grey, per class;
* the local engine gives the same file whatever its number of worker processes.

Coordinates are EPSG:26986 metres; lengths in feet are converted with 1 ft = 0.3048 m exactly.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import geopandas as gpd
import numpy as np
import pandas as pd
import pytest
import shapely
from shapely.geometry import box
from support import workerkit
from support.applicabilitykit import FT, X0, Y0, drainage_town, frame, sq, town_layers
from support.townkit import CAMBRIDGE_CONFIG, CRS, SAMPLE_CONFIG, write_town

from swm_gis.applicability import run as ap
from swm_gis.applicability.palette import class_look, fill_colours
from swm_gis.cli import main
from swm_gis.config.town import load_config
from swm_gis.errors import ConfigError, CrsError

ALL_UNCHECKED = "NHESP, floodplain, ORW, impaired waters, HUC"
REPO = Path(__file__).resolve().parents[2]


def _flags(tmp_path: Path, layers: dict, *, extra: str = "") -> pd.DataFrame:
    res = ap.run_applicability(load_config(write_town(tmp_path, layers, extra=extra)),
                               tmp_path / "out.gpkg", workers=1)
    return ap.read_result(res.path).set_index("parcel_id")


# --------------------------------------------------------------------------- absent layers
def test_every_flag_is_null_when_only_parcels_are_configured(tmp_path):
    got = _flags(tmp_path, {"parcels": town_layers()["parcels"]})
    for col in ("nhesp_within_distance", "in_sfha", "drains_to_orw", "drains_to_impaired"):
        assert got[col].isna().all(), col
    for col in ("nhesp_distance_ft", "sfha_fraction", "sfha_area_sqft", "huc12", "huc10",
                "impairment_causes"):
        assert got[col].isna().all(), col
    assert (got["not_checked"] == ALL_UNCHECKED).all()
    assert got.loc["SPLIT", "screening_class"] == (
        f"large parcel; no constraint found; {ALL_UNCHECKED} not checked")
    assert got.loc["FLOOD", "screening_class"] == (
        f"small parcel; no constraint found; {ALL_UNCHECKED} not checked")
    assert not got["screening_class"].str.contains("no mapped constraints").any()


def test_each_flag_with_its_layer_present_has_exact_values(tmp_path):
    got = _flags(tmp_path, town_layers())
    assert bool(got.loc["FLOOD", "in_sfha"]) is True
    assert got.loc["FLOOD", "sfha_fraction"] == pytest.approx(0.25)
    assert bool(got.loc["TOUCH", "in_sfha"]) is False  # covered, shares an edge only
    assert got.loc["TOUCH", "sfha_fraction"] == 0.0
    assert bool(got.loc["H459", "nhesp_within_distance"]) is True
    assert got.loc["H459", "nhesp_distance_ft"] == pytest.approx(459.0, abs=1e-6)
    assert bool(got.loc["H501", "nhesp_within_distance"]) is False  # all three layers, covered
    assert got.loc["H501", "nhesp_distance_ft"] == pytest.approx(500.5, abs=1e-6)
    assert got.loc["SPLIT", "huc12"] == "010700020101"
    assert got.loc["SPLIT", "not_checked"] == "ORW, impaired waters"  # no DEM


def test_nhesp_with_one_of_its_three_layers_says_found_but_never_none(tmp_path):
    layers = town_layers()
    del layers["nhesp_estimated"], layers["vernal_pools"]
    got = _flags(tmp_path, layers)
    assert bool(got.loc["H459", "nhesp_within_distance"]) is True  # found: true whatever is missing
    assert got.loc["H459", "nhesp_distance_ft"] == pytest.approx(459.0, abs=1e-6)
    for pid in ("H501", "FLOOD", "SPLIT"):  # nothing found: a missing layer may hold one
        assert pd.isna(got.loc[pid, "nhesp_within_distance"]), pid
        assert np.isnan(got.loc[pid, "nhesp_distance_ft"]), pid
        assert got.loc[pid, "not_checked"].startswith("NHESP"), pid
    assert "habitat" not in got.loc["H501", "screening_class"]
    assert "NHESP" in got.loc["H501", "screening_class"]


# --------------------------------------------------------------------------- partial coverage
def test_flood_zones_covering_part_of_the_town_leave_the_rest_null(tmp_path):
    """No town boundary: the flood layer covers its own extent, x -50..350 ft, y -50..150 ft."""
    layers = town_layers()
    del layers["town_boundary"]
    layers["parcels"] = frame({"LOC_ID": ["IN", "ACROSS", "BEYOND", "WET_ACROSS"]},
                              [sq(100, 0, 50, 50),          # inside the extent, dry
                               sq(330, 110, 100, 30),       # crosses the extent's east edge
                               sq(1_000, 0, 50, 50),        # wholly beyond it
                               sq(-100, 0, 100, 50)])       # crosses it, half in the AE zone
    got = _flags(tmp_path, layers)
    assert bool(got.loc["IN", "in_sfha"]) is False and got.loc["IN", "sfha_fraction"] == 0.0
    for pid in ("ACROSS", "BEYOND"):
        assert pd.isna(got.loc[pid, "in_sfha"]), pid
        assert np.isnan(got.loc[pid, "sfha_fraction"]), pid
        assert "floodplain" in got.loc[pid, "not_checked"], pid
    # flood zone land was found: in the SFHA, but its share is unknown past the coverage
    assert bool(got.loc["WET_ACROSS", "in_sfha"]) is True
    assert np.isnan(got.loc["WET_ACROSS", "sfha_fraction"])


def test_nhesp_search_reaching_past_the_coverage_is_null(tmp_path):
    """Town boundary x -2,000..15,000 ft: a parcel within 500 ft of it (and of the layers'
    extents) cannot be said to have no NHESP feature within 500 ft; one 600 ft inside can."""
    layers = town_layers()
    layers["parcels"] = frame({"LOC_ID": ["EDGE", "INSIDE"]},
                              [sq(-1_700, 3_000, 50, 50),    # 300 ft from the town line
                               sq(-1_400, 3_000, 50, 50)])   # 600 ft from it
    # the NHESP layers' own extents stay east of x = 10,000 ft or far north / south
    got = _flags(tmp_path, layers)
    assert pd.isna(got.loc["EDGE", "nhesp_within_distance"])
    assert bool(got.loc["INSIDE", "nhesp_within_distance"]) is False
    # (both lie west of the HUC12 polygons too: HUC not checked either)
    assert got.loc["EDGE", "not_checked"] == "NHESP, ORW, impaired waters, HUC"
    assert got.loc["INSIDE", "not_checked"] == "ORW, impaired waters, HUC"


def test_drainage_flags_beyond_the_dem_are_null(tmp_path):
    """The DEM covers x 0..1,000 m; a parcel at x 1,100 m is beyond it."""
    toml = drainage_town(tmp_path)
    parcels = gpd.read_file(tmp_path / "town.gpkg", layer="parcels")
    extra = frame({"LOC_ID": ["OUTSIDE", "HALF"]}, [box(X0 + 1_100, Y0 + 300, X0 + 1_150, Y0 + 350),
                                                    box(X0 - 50, Y0 + 800, X0 + 50, Y0 + 850)])
    pd.concat([parcels, extra]).to_file(tmp_path / "town.gpkg", layer="parcels", driver="GPKG")
    res = ap.run_applicability(load_config(toml), tmp_path / "d.gpkg", workers=1)
    got = ap.read_result(res.path).set_index("parcel_id")
    assert pd.isna(got.loc["OUTSIDE", "drains_to_orw"])
    assert pd.isna(got.loc["OUTSIDE", "drains_to_impaired"])
    assert "ORW, impaired waters" in got.loc["OUTSIDE", "not_checked"]  # not traced at all
    assert pd.isna(got.loc["OUTSIDE", "drainage_leaves_data"])
    # HALF lies partly west of the DEM: its land inside drains to the impaired north reach
    assert bool(got.loc["HALF", "drains_to_impaired"]) is True
    assert pd.isna(got.loc["HALF", "drains_to_orw"])  # the part beyond the DEM is unknown
    # NORTH is wholly inside and traced, but its brook ends at the DEM's edge: unknown
    assert pd.isna(got.loc["NORTH", "drains_to_orw"])


# --------------------------------------------------------------------------- hostile input
def test_hostile_rows_wrong_crs_and_bad_worker_counts(tmp_path):
    layers = town_layers()
    # the flood zones in another CRS (feet): the overlays are reprojected, values unchanged
    layers["flood_zones"] = layers["flood_zones"].to_crs("EPSG:2249")
    got = _flags(tmp_path, layers)
    assert got.loc["FLOOD", "sfha_fraction"] == pytest.approx(0.25, abs=1e-6)
    cfg = load_config(tmp_path / "town.toml")
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ConfigError, match="workers"):
            ap.run_applicability(cfg, tmp_path / "x.gpkg", workers=bad)
    assert not (tmp_path / "x.gpkg").exists()


def test_cli_refuses_zero_workers(tmp_path, capsys):
    toml = write_town(tmp_path, town_layers())
    code = main(["--progress", "none", "applicability", "-c", str(toml), "--out",
                 str(tmp_path / "a.gpkg"), "--workers", "0"])
    assert code == 2
    assert "Traceback" not in capsys.readouterr().err


# --------------------------------------------------------------------------- real towns
@pytest.fixture(scope="module")
def sample_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("sample") / "a.gpkg"
    res = ap.run_applicability(load_config(SAMPLE_CONFIG), out, workers=1)
    return res, ap.read_result(out)


def test_sample_row_and_water_polygons_have_their_own_classes(sample_run):
    import pyogrio

    res, got = sample_run
    src = pyogrio.read_dataframe(SAMPLE_CONFIG.parent / "sample.gpkg", layer="parcels",
                                 read_geometry=False)
    kinds = src.drop_duplicates("LOC_ID").set_index("LOC_ID")["POLY_TYPE"]
    cls = got.set_index("parcel_id")["screening_class"]
    row_ids = set(kinds[kinds.isin(["ROW", "RAIL_ROW", "PRIV_ROW"])].index)
    water_ids = set(kinds[kinds == "WATER"].index)
    assert len(row_ids) == 271 and len(water_ids) == 4  # 268 ROW, 2 RAIL_ROW, 1 PRIV_ROW
    assert set(cls[cls == "right-of-way"].index) == row_ids
    assert set(cls[cls == "water"].index) == water_ids
    town = res.summary[res.summary["huc12"] == "all"].set_index("screening_class")["parcels"]
    assert town["right-of-way"] == 271 and town["water"] == 4


def test_row_class_uses_the_abutters_predicate(monkeypatch):
    """The class follows rules.abutters.no_owner_type: change the rule, the class follows."""
    import swm_gis.rules.abutters as abutters

    parcels = gpd.GeoDataFrame({"id": ["A", "B", "C"], "poly_type": ["FEE", "ROW", "WATER"]},
                               geometry=[box(0, 0, 10, 10), box(20, 0, 30, 10),
                                         box(40, 0, 50, 10)], crs=CRS)
    out = ap.classify_parcels(parcels, ap.Overlays.build())
    assert out["screening_class"].tolist()[1:] == ["right-of-way", "water"]
    monkeypatch.setattr(abutters, "no_owner_type",
                        lambda frame, rules: pd.Series(frame["id"].eq("A"), index=frame.index))
    out = ap.classify_parcels(parcels, ap.Overlays.build())
    assert out["screening_class"].tolist()[0] == "right-of-way"
    assert not out["screening_class"].iloc[1:].isin(["right-of-way", "water"]).any()


def test_sample_checks_table_says_what_ran_on_which_data(sample_run):
    res, got = sample_run
    con = sqlite3.connect(str(res.path))
    rows = {r[0]: r[1:] for r in con.execute(
        "SELECT \"check\", ran, sources, note, parcels_not_checked FROM applicability_checks")}
    con.close()
    assert rows["in_sfha"][0] == 1 and "flood_zones" in rows["in_sfha"][1]
    assert "coverage" in rows["nhesp_within_distance"][2]
    assert rows["nhesp_within_distance"][3] == int(got["nhesp_within_distance"].isna().sum())
    assert rows["in_sfha"][3] == int(got["in_sfha"].isna().sum())
    assert json.loads(rows["run"][2])["parameters"]["workers"] == 1


def test_cambridge_says_nhesp_huc_orw_and_impaired_waters_not_checked(tmp_path):
    res = ap.run_applicability(load_config(CAMBRIDGE_CONFIG), tmp_path / "c.gpkg")
    got = ap.read_result(res.path)
    for col in ("nhesp_within_distance", "drains_to_orw", "drains_to_impaired", "huc12"):
        assert got[col].isna().all(), col
    assert got["not_checked"].str.contains("NHESP, .*ORW, impaired waters, HUC").all()
    classes = set(res.summary["screening_class"])
    # Cambridge's street polygon (ML = ROAD) is right-of-way by data/cambridge.toml's rule
    assert set(got.loc[got["parcel_id"] == "ROAD", "screening_class"]) == {"right-of-way"}
    assert all("NHESP" in c and "HUC not checked" in c
               for c in classes - {"right-of-way", "water", "all"})
    assert not any("no mapped constraints" in c for c in classes)
    assert "small parcel; no constraint found; NHESP, ORW, impaired waters, HUC not checked" \
        in classes
    checks = {c["name"]: c for c in res.checks}
    assert not checks["nhesp_within_distance"]["ran"] and not checks["huc12"]["ran"]
    assert not checks["drains_to_orw"]["ran"] and checks["in_sfha"]["ran"]


# --------------------------------------------------------------------------- legend colours
def _style_looks(gpkg: Path) -> dict[str, dict]:
    from swm_gis.applicability.style import style_classes

    con = sqlite3.connect(str(gpkg))
    qml = con.execute("SELECT styleQML FROM layer_styles WHERE useAsDefault").fetchone()[0]
    con.close()
    return style_classes(qml)


def test_sample_style_is_the_map_key_not_a_colour_per_class(sample_run):
    """Issue 38: the stored style draws each class by the package's key (colour = strongest
    constraint, patterns = the others), so 20-odd classes share a handful of colours."""
    res, _ = sample_run
    looks = _style_looks(res.path)
    classes = set(res.summary["screening_class"])
    assert set(looks) == classes and len(classes) >= 20
    colours = fill_colours()
    for cls, look in looks.items():
        assert look["colour"] == colours[class_look(cls).fill], cls
        assert tuple(look["marks"]) == class_look(cls).marks, cls
        assert look["large"] == cls.startswith("large parcel"), cls
    assert len({look["colour"] for look in looks.values()}) <= len(colours)
    assert looks["right-of-way"]["colour"] == colours["right-of-way"]
    # the strongest constraint wins: ORW over impaired water whatever else was found
    both = [c for c in classes if "ORW" in c and "impaired-water" in c]
    assert both and all(looks[c]["colour"] == colours["orw"] for c in both)
    assert all("impaired-water" in looks[c]["marks"] for c in both)


# --------------------------------------------------------------------------- every core
def _same_file(a: Path, b: Path) -> None:
    x, y = ap.read_result(a), ap.read_result(b)
    pd.testing.assert_frame_equal(x.drop(columns="geometry"), y.drop(columns="geometry"))
    assert x.geometry.geom_equals_exact(y.geometry, 0).all()
    for table in (ap.SUMMARY_TABLE,):
        import pyogrio

        pd.testing.assert_frame_equal(pyogrio.read_dataframe(a, layer=table),
                                      pyogrio.read_dataframe(b, layer=table))


def test_sample_town_identical_with_one_and_two_workers(tmp_path):
    cfg = load_config(SAMPLE_CONFIG)
    one = ap.run_applicability(cfg, tmp_path / "one.gpkg", workers=1, chunk_size=500)
    two = ap.run_applicability(cfg, tmp_path / "two.gpkg", workers=2, chunk_size=500)
    assert one.tiles == two.tiles >= 6 and one.parcels == two.parcels == 3_167
    _same_file(one.path, two.path)
    pd.testing.assert_frame_equal(one.summary, two.summary)


@pytest.mark.slow
def test_generated_20000_parcel_town_identical_with_one_and_two_workers(tmp_path):
    sys.path.insert(0, str(REPO / "benchmarks"))
    from generate_town import generate

    generate(20_000, tmp_path / "town")
    cfg = load_config(tmp_path / "town" / "town.toml")
    one = ap.run_applicability(cfg, tmp_path / "one.gpkg", workers=1, chunk_size=3_000)
    two = ap.run_applicability(cfg, tmp_path / "two.gpkg", workers=2, chunk_size=3_000)
    assert one.tiles >= 6 and one.parcels == two.parcels == 20_000
    _same_file(one.path, two.path)
    # ordering is defined: tile by tile, within a tile in the source's order
    got = ap.read_result(one.path)
    assert got["parcel_id"].is_unique


def test_workers_default_to_every_core_and_the_run_records_them(tmp_path):
    from swm_gis.applicability.parallel import default_workers

    cfg = load_config(write_town(tmp_path, town_layers()))
    res = ap.run_applicability(cfg, tmp_path / "a.gpkg")
    con = sqlite3.connect(str(res.path))
    note = con.execute("SELECT note FROM applicability_checks WHERE \"check\" = 'run'"
                       ).fetchone()[0]
    con.close()
    assert json.loads(note)["parameters"]["workers"] == default_workers() >= 1


def test_a_failing_tile_in_a_worker_is_reported_and_no_file_is_left(tmp_path, monkeypatch):
    """An error in a worker reaches the caller as itself; the output is never half-written."""
    cfg = load_config(SAMPLE_CONFIG)  # tiles of 1,000 parcels: a pool (one tile runs in process)
    import swm_gis.applicability.parallel as par

    # the workers' task, by reference: the workers import it (a patch of tile_batch in this
    # process would not reach them)
    monkeypatch.setattr(par, "_worker_batch", workerkit.exploding_batch)
    with pytest.raises(ValueError, match="exploded"):
        ap.run_applicability(cfg, tmp_path / "a.gpkg", workers=2, chunk_size=1_000)
    assert not (tmp_path / "a.gpkg").exists()


def test_workers_hand_tiles_over_through_a_spool_that_is_gone_after_the_run(tmp_path,
                                                                           monkeypatch):
    """Workers leave each finished table as an Arrow file in a private temporary folder;
    the parent maps it and deletes it at once, and the folder goes with the pool, after a
    failure too. The file is the one a single worker writes."""
    import tempfile

    import swm_gis.applicability.parallel as par
    from swm_gis.applicability.pool_start import start_workers

    # the fork server first: multiprocessing's own folder for its socket (pymp-*, made once per
    # process when the server starts) is not the run's, and must not land in the folder watched
    start_workers()
    spool_root = tmp_path / "tmp"
    spool_root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spool_root))
    seen: list[str] = []
    real = par._Spooled.batch

    def batch(self):
        seen.append(self.path)
        assert Path(self.path).is_file() and Path(self.path).parent.parent == spool_root
        return real(self)

    monkeypatch.setattr(par._Spooled, "batch", batch)
    cfg = load_config(SAMPLE_CONFIG)
    one = ap.run_applicability(cfg, tmp_path / "one.gpkg", workers=1, chunk_size=1_000)
    two = ap.run_applicability(cfg, tmp_path / "two.gpkg", workers=2, chunk_size=1_000)
    assert len(seen) == two.tiles == one.tiles >= 3  # every tile came through the spool
    assert not any(Path(p).exists() for p in seen) and list(spool_root.iterdir()) == []
    _same_file(one.path, two.path)

    monkeypatch.setattr(par, "_worker_batch", workerkit.exploding_batch)
    with pytest.raises(ValueError, match="exploded"):
        ap.run_applicability(cfg, tmp_path / "three.gpkg", workers=2, chunk_size=1_000)
    assert list(spool_root.iterdir()) == [] and not (tmp_path / "three.gpkg").exists()


def test_a_spool_that_cannot_be_written_falls_back_to_the_pipe(tmp_path, monkeypatch):
    """A full or read-only temporary folder costs speed, not the run."""
    import swm_gis.applicability.parallel as par

    monkeypatch.setattr(par, "_worker_batch", workerkit.batch_through_a_full_spool)
    spooled: list[str] = []
    monkeypatch.setattr(par._Spooled, "batch", lambda self: spooled.append(self.path))
    cfg = load_config(SAMPLE_CONFIG)
    one = ap.run_applicability(cfg, tmp_path / "one.gpkg", workers=1, chunk_size=1_000)
    two = ap.run_applicability(cfg, tmp_path / "two.gpkg", workers=2, chunk_size=1_000)
    assert spooled == [] and two.tiles >= 3  # every table came through the pipe
    _same_file(one.path, two.path)
    # a temporary folder that cannot be made at all: no spool, the same file
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "no" / "such" / "folder"))
    three = ap.run_applicability(cfg, tmp_path / "three.gpkg", workers=2, chunk_size=1_000)
    _same_file(one.path, three.path)


def test_vernal_pool_far_away_does_not_change_flags():
    """Guard for the fixture: the far NHESP layers are > 1,000 ft from every parcel."""
    layers = town_layers()
    parcels = shapely.union_all(layers["parcels"].geometry.values)
    for key in ("nhesp_estimated", "vernal_pools"):
        far = shapely.union_all(layers[key].geometry.values)
        assert shapely.distance(parcels, far) > 1_000 * FT


def test_spawned_workers_give_the_same_file(tmp_path, monkeypatch):
    """Where workers cannot fork (macOS, Windows) they are spawned: same rows, same order."""
    from swm_gis.applicability import pool_start

    cfg = load_config(SAMPLE_CONFIG)
    one = ap.run_applicability(cfg, tmp_path / "one.gpkg", workers=1, chunk_size=1_000)
    # no fork server, as on macOS or Windows (not by faking sys.platform, which every import
    # sees)
    monkeypatch.setattr(pool_start, "get_all_start_methods", lambda: ["spawn", "fork"])
    assert pool_start.start_method() == "spawn"
    two = ap.run_applicability(cfg, tmp_path / "two.gpkg", workers=2, chunk_size=1_000)
    assert one.tiles >= 3
    _same_file(one.path, two.path)


def test_a_wrong_parcels_crs_is_named_as_the_parcels_not_the_flood_layer(tmp_path):
    """Cambridge's parcels are lon/lat; a config that declares them in metres is refused by
    the parcels' own check (the flood layer, placed against the parcels, is not blamed), with
    exit code 2 and nothing written beside the user's file."""
    text = CAMBRIDGE_CONFIG.read_text().replace('crs = "EPSG:4326"', 'crs = "EPSG:26986"', 1)
    text = text.replace('path = "../', f'path = "{CAMBRIDGE_CONFIG.parent}/../')
    cfg = tmp_path / "cambridge.toml"
    cfg.write_text(text)
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(CrsError, match=r"\[layers\.parcels\]\) says its coordinates are in "
                                        r"EPSG:26986.*crs = \"EPSG:4326\""):
        ap.run_applicability(load_config(cfg), tmp_path / "map.gpkg")
    code = main(["--progress", "none", "applicability", "-c", str(cfg),
                 "--out", str(tmp_path / "map.gpkg")])
    assert code == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cambridge.toml", "notes.txt"]
    assert (tmp_path / "notes.txt").read_text() == "mine"

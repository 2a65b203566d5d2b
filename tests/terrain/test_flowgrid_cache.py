"""The town's flow grid kept on disk (swm_gis.terrain.cache): keyed by the DEM's content, never
served for another DEM, and giving exactly what a run without the cache computes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import warnings
from dataclasses import replace
from pathlib import Path

import geopandas as gpd
import numpy as np
import pytest
import rasterio
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from pyproj import CRS
from support.townkit import REPO

from swm_gis import terrain as hydrology
from swm_gis.applicability import tiles as applicability_tiles
from swm_gis.config.town import load_config, parse_config
from swm_gis.errors import ConfigError, CrsError, InputFileError
from swm_gis.io import layers as io
from swm_gis.screening.resource_areas import resource_checks
from swm_gis.terrain import cache as flowgrid_cache
from swm_gis.terrain import grid as hydrology_grid
from swm_gis.terrain import kernels as flowkernels

SAMPLE = REPO / "data" / "sample"
CRS_OBJ = CRS.from_epsg(26986)


@pytest.fixture
def dem_copy(tmp_path: Path) -> Path:
    """A private copy of the sample town (its DEM may be changed) with its own cache folder."""
    folder = tmp_path / "town"
    folder.mkdir()
    for name in ("town.toml", "sample.gpkg", "dem.tif", "impervious.tif", "sites.gpkg"):
        shutil.copy2(SAMPLE / name, folder / name)
    text = (folder / "town.toml").read_text(encoding="utf-8")
    (folder / "town.toml").write_text(text + '\n[cache]\ndir = "../cache"\n', encoding="utf-8")
    return folder / "town.toml"


def entries(config_path: Path) -> list[Path]:
    root = config_path.parent.parent / "cache" / f"flowgrid-v{flowgrid_cache.CACHE_VERSION}"
    return sorted(p for p in root.glob("*") if not p.name.startswith(".")) if root.is_dir() else []


def uncached(config) -> hydrology.FlowGrid:
    return hydrology.flow_directions(io.read_raster(config, "dem"))


def poke_dem(path: Path, row: int, col: int, value: float) -> None:
    """Change one elevation in place, keeping the file's size and modification time."""
    stat = path.stat()
    with rasterio.open(path, "r+") as dst:
        arr = dst.read(1)
        arr[row, col] = value
        dst.write(arr, 1)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


# --------------------------------------------------------------------------- the flow grid
def test_first_run_stores_the_grid_and_later_runs_memory_map_it(dem_copy):
    config = load_config(dem_copy)
    first = flowgrid_cache.town_flow(config)
    assert len(entries(dem_copy)) == 1
    folder = entries(dem_copy)[0]
    assert sorted(p.name for p in folder.iterdir()) == ["d8.npy", "elevation.npy", "meta.json"]
    assert first.store is not None
    second = flowgrid_cache.town_flow(config)
    assert isinstance(second.d8, np.memmap) and isinstance(second.elevation, np.memmap)
    ref = uncached(config)
    assert second.shape == ref.shape == (400, 400)
    assert second.transform == ref.transform and second.crs.equals(ref.crs)
    np.testing.assert_array_equal(np.asarray(second.d8), ref.d8)
    np.testing.assert_array_equal(np.asarray(second.elevation), ref.elevation)
    np.testing.assert_array_equal(second.flwdir.idxs_ds, ref.flwdir.idxs_ds)
    assert second.source == io.source_info(config.layer("dem"))


def test_a_changed_dem_is_never_served_the_old_grid(dem_copy):
    config = load_config(dem_copy)
    old = flowgrid_cache.town_flow(config)
    old_d8 = np.array(old.d8)
    dem = dem_copy.parent / "dem.tif"
    poke_dem(dem, 200, 200, 500.0)  # a 500 m spike: its neighbours no longer drain into it
    new = flowgrid_cache.town_flow(config)
    assert len(entries(dem_copy)) == 2  # a second entry; the first is not reused
    ref = uncached(config)
    np.testing.assert_array_equal(np.asarray(new.d8), ref.d8)
    assert not np.array_equal(old_d8, ref.d8)
    assert float(new.elevation[200, 200]) == 500.0


def test_the_same_content_at_another_path_shares_the_entry(dem_copy, tmp_path):
    config = load_config(dem_copy)
    flowgrid_cache.town_flow(config)
    other = tmp_path / "elsewhere"
    other.mkdir()
    shutil.copy(dem_copy.parent / "dem.tif", other / "renamed.tif")
    moved = replace(config, layers={**config.layers, "dem": replace(
        config.layer("dem"), path=str(other / "renamed.tif"))})
    grid = flowgrid_cache.town_flow(moved)
    assert len(entries(dem_copy)) == 1 and isinstance(grid.d8, np.memmap)
    assert grid.source["file"].endswith("renamed.tif")  # messages name the DEM actually used


def test_keys_change_with_what_changes_the_grid(dem_copy):
    config = load_config(dem_copy)
    base = flowgrid_cache.grid_key(config, None)
    assert base == flowgrid_cache.grid_key(config, None)
    assert base != flowgrid_cache.grid_key(config, (236000.0, 916000.0, 240000.0, 920000.0))
    assert base != flowgrid_cache.grid_key(replace(config, crs="EPSG:26919"), None)
    # a CRS declared for a DEM that has its own changes nothing (read_raster uses the file's)
    declared = replace(config, layers={**config.layers, "dem": replace(config.layer("dem"),
                                                                       crs="EPSG:26986")})
    assert base == flowgrid_cache.grid_key(declared, None)


def test_a_crsless_dem_is_keyed_by_the_crs_the_config_declares(dem_copy, tmp_path):
    bare = tmp_path / "bare.tif"
    with rasterio.open(dem_copy.parent / "dem.tif") as src:
        profile, band = {**src.profile, "crs": None}, src.read(1)
    with rasterio.open(bare, "w", **profile) as dst:
        dst.write(band, 1)
    config = load_config(dem_copy)

    def declaring(crs):
        return replace(config, layers={**config.layers, "dem": replace(
            config.layer("dem"), path=str(bare), crs=crs)})

    a, b = declaring("EPSG:26986"), declaring("EPSG:26919")
    assert flowgrid_cache.grid_key(a, None) != flowgrid_cache.grid_key(b, None)
    np.testing.assert_array_equal(np.asarray(flowgrid_cache.town_flow(a).d8), uncached(a).d8)


def test_network_arrays_follow_the_network(dem_copy):
    config = load_config(dem_copy)
    flow = flowgrid_cache.town_flow(config)
    streams = io.read_layer(config, "streams")
    ponds = io.read_layer(config, "waterbodies")
    net = hydrology.stream_network(streams, ponds)
    labels = hydrology.drainage_labels(flow, net)
    stored = sorted(p.name for p in entries(dem_copy)[0].glob("net-*/*.npy"))
    assert stored == ["labels.npy", "water.npy"]
    again = hydrology.drainage_labels(flowgrid_cache.town_flow(config), net)
    assert isinstance(again, np.memmap)
    np.testing.assert_array_equal(np.asarray(again), labels)
    plain = replace(flow, store=None)
    np.testing.assert_array_equal(labels, hydrology.drainage_labels(plain, net))
    # one reach fewer: other labels, not the stored ones
    fewer = hydrology.stream_network(streams.iloc[1:], ponds)
    other = hydrology.drainage_labels(flowgrid_cache.town_flow(config), fewer)
    np.testing.assert_array_equal(np.asarray(other), hydrology.drainage_labels(plain, fewer))
    assert len(list(entries(dem_copy)[0].glob("net-*"))) == 2


def test_network_key_is_the_geometry_in_order():
    from shapely.geometry import LineString, box

    def net(lines, ponds=()):
        return hydrology.stream_network(
            gpd.GeoDataFrame(geometry=list(lines), crs="EPSG:26986"),
            gpd.GeoDataFrame(geometry=list(ponds), crs="EPSG:26986"))

    a, b = LineString([(0, 0), (10, 0)]), LineString([(10, 0), (20, 5)])
    key = flowgrid_cache.network_key(net([a, b]))
    assert key == flowgrid_cache.network_key(net([a, b]))
    assert key != flowgrid_cache.network_key(net([b, a]))
    assert key != flowgrid_cache.network_key(net([a, b], [box(20, 0, 30, 10)]))
    assert key != flowgrid_cache.network_key(net([a, LineString([(10, 0), (20, 5.001)])]))


# --------------------------------------------------------------------------- same results
def test_drainage_grid_is_identical_with_and_without_the_cache(dem_copy):
    config = load_config(dem_copy)
    off, _ = applicability_tiles.drainage_grid(replace(config, cache_enabled=False), None)
    assert entries(dem_copy) == []
    first, _ = applicability_tiles.drainage_grid(config, None)
    second, _ = applicability_tiles.drainage_grid(config, None)
    for grid in (first, second):
        np.testing.assert_array_equal(np.asarray(grid.labels), off.labels)
        np.testing.assert_array_equal(grid.node_flags, off.node_flags)
        assert grid.cause_names == off.cause_names and grid.transform == off.transform
    assert (off.labels >= 0).any() and off.node_flags.any()  # the sample town drains somewhere


def test_screening_is_identical_with_and_without_the_cache(dem_copy):
    config = load_config(dem_copy)
    site = io.read_file(f"{dem_copy.parent / 'sites.gpkg'}:site", working_crs=config.crs,
                        what="site")
    off = resource_checks(replace(config, cache_enabled=False), site)[0]
    assert entries(dem_copy) == []
    first = resource_checks(config, site)[0]
    second = resource_checks(config, site)[0]
    assert len(entries(dem_copy)) == 1
    assert first == off and second == off
    assert off["receiving_waters"]["method"] == "dem"


def test_cli_no_cache_writes_nothing_and_gives_the_same_document(dem_copy, tmp_path):
    site = f"{dem_copy.parent / 'sites.gpkg'}:site_small"
    docs = []
    for flag, out in (("--no-cache", "a"), (None, "b")):
        cmd = [sys.executable, "-m", "swm_gis", "--progress", "none", "screen", "-c", str(dem_copy),
               "-s", site, "-o", str(tmp_path / out)] + ([flag] if flag else [])
        proc = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ,
                              "PYTHONPATH": str(REPO)})
        assert proc.returncode == 0, proc.stderr
        if flag:
            assert entries(dem_copy) == []
        docs.append(json.loads((tmp_path / out / "screening.json").read_text("utf-8")))
    assert len(entries(dem_copy)) == 1
    assert not any((tmp_path / o / ".swm-gis-cache").exists() for o in "ab")
    assert docs[0]["receiving_waters"] == docs[1]["receiving_waters"]


# --------------------------------------------------------------------------- hostile cache
def test_an_unwritable_cache_warns_and_the_run_goes_on(dem_copy):
    blocker = dem_copy.parent.parent / "cache"
    blocker.write_text("a file where the cache folder should be", encoding="utf-8")
    config = load_config(dem_copy)
    with pytest.warns(flowgrid_cache.CacheWarning, match="Cannot write the flow-grid cache"):
        flow = flowgrid_cache.town_flow(config)
    assert flow.store is None
    np.testing.assert_array_equal(flow.d8, uncached(config).d8)


def test_a_corrupt_entry_is_recomputed(dem_copy):
    config = load_config(dem_copy)
    flowgrid_cache.town_flow(config)
    folder = entries(dem_copy)[0]
    (folder / "d8.npy").write_bytes(b"not an array")
    with pytest.warns(flowgrid_cache.CacheWarning, match="unreadable"):
        flow = flowgrid_cache.town_flow(config)
    np.testing.assert_array_equal(np.asarray(flow.d8), uncached(config).d8)
    (folder / "meta.json").write_text("{broken", encoding="utf-8")
    with pytest.warns(flowgrid_cache.CacheWarning, match="unreadable"):
        flowgrid_cache.town_flow(config)
    with warnings.catch_warnings():  # the entry was replaced by a good one
        warnings.simplefilter("error", flowgrid_cache.CacheWarning)
        flow = flowgrid_cache.town_flow(config)
    assert isinstance(flow.d8, np.memmap) and entries(dem_copy) == [folder]


def test_an_entry_for_another_key_is_not_used(dem_copy):
    config = load_config(dem_copy)
    flowgrid_cache.town_flow(config)
    folder = entries(dem_copy)[0]
    meta = json.loads((folder / "meta.json").read_text("utf-8"))
    meta["key"] = "0" * 32
    (folder / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    net = hydrology.stream_network(io.read_layer(config, "streams"),
                                   io.read_layer(config, "waterbodies"))
    labels_dir = folder / f"net-{flowgrid_cache.network_key(net)}"
    labels_dir.mkdir()
    np.save(labels_dir / "labels.npy", np.full((400, 400), 7, dtype=np.int32))
    flow = flowgrid_cache.town_flow(config)
    assert not isinstance(flow.d8, np.memmap)  # recomputed, not loaded
    # nothing of the foreign entry is served, not even its labels
    np.testing.assert_array_equal(np.asarray(hydrology.drainage_labels(flow, net)),
                                  hydrology.drainage_labels(uncached(config), net))


def test_missing_and_crsless_dems_raise_the_usual_errors(dem_copy, tmp_path):
    config = load_config(dem_copy)
    gone = replace(config, layers={**config.layers, "dem": replace(
        config.layer("dem"), path=str(tmp_path / "nope.tif"))})
    with pytest.raises(InputFileError, match="File not found"):
        flowgrid_cache.town_flow(gone)
    bare = tmp_path / "bare.tif"
    with rasterio.open(dem_copy.parent / "dem.tif") as src:
        profile = {**src.profile, "crs": None}
        with rasterio.open(bare, "w", **profile) as dst:
            dst.write(src.read(1), 1)
    nocrs = replace(config, layers={**config.layers, "dem": replace(config.layer("dem"),
                                                                    path=str(bare))})
    with pytest.raises(CrsError, match="declares no coordinate reference system"):
        flowgrid_cache.town_flow(nocrs)


def test_a_dem_in_another_crs_is_warped_and_cached(dem_copy, tmp_path):
    from rasterio.warp import Resampling, calculate_default_transform, reproject

    src_path, dst_path = dem_copy.parent / "dem.tif", tmp_path / "utm.tif"
    with rasterio.open(src_path) as src:
        tr, w, h = calculate_default_transform(src.crs, "EPSG:26919", src.width, src.height,
                                               *src.bounds)
        profile = {**src.profile, "crs": "EPSG:26919", "transform": tr, "width": w, "height": h}
        with rasterio.open(dst_path, "w", **profile) as dst:
            reproject(rasterio.band(src, 1), rasterio.band(dst, 1), resampling=Resampling.nearest)
    config = load_config(dem_copy)
    utm = replace(config, layers={**config.layers, "dem": replace(config.layer("dem"),
                                                                  path=str(dst_path))})
    flowgrid_cache.town_flow(utm)
    flow = flowgrid_cache.town_flow(utm)
    assert isinstance(flow.d8, np.memmap) and flow.crs.equals(config.crs_obj)
    np.testing.assert_array_equal(np.asarray(flow.d8), uncached(utm).d8)


def test_a_dem_too_big_for_one_grid_uses_the_window_or_nothing(dem_copy, monkeypatch):
    config = load_config(dem_copy)
    monkeypatch.setattr(flowgrid_cache, "TOWN_MAX_CELLS", 1_000)
    assert flowgrid_cache.town_flow(config) is None  # screen reads its own windows
    bounds = (237000.0, 917000.0, 239000.0, 919000.0)
    flow = flowgrid_cache.town_flow(config, fallback_bounds=bounds)
    assert flow.shape == (204, 204)  # the window plus 2 cells of padding each side
    again = flowgrid_cache.town_flow(config, fallback_bounds=bounds)
    assert isinstance(again.d8, np.memmap)


# --------------------------------------------------------------------------- configuration
def test_cache_settings_in_the_config_and_environment(monkeypatch):
    base = {"town": {"name": "T"}, "layers": {"parcels": {"path": "p.gpkg"}}}
    cfg = parse_config(base, base_dir=Path("/data"))
    monkeypatch.setenv("SWM_GIS_CACHE_DIR", "/tmp/somewhere")
    assert flowgrid_cache.cache_root(cfg) == Path("/tmp/somewhere")
    for off in ("off", "OFF", "0", "none", ""):
        monkeypatch.setenv("SWM_GIS_CACHE_DIR", off)
        assert flowgrid_cache.cache_root(cfg) is None
    monkeypatch.delenv("SWM_GIS_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", "/tmp/xdg")
    if sys.platform.startswith("linux"):
        assert flowgrid_cache.cache_root(cfg) == Path("/tmp/xdg/swm-gis")
    relative = parse_config({**base, "cache": {"dir": "cache"}}, base_dir=Path("/data/town"))
    assert flowgrid_cache.cache_root(relative) == Path("/data/town/cache")
    disabled = parse_config({**base, "cache": {"enabled": False, "dir": "x"}}, base_dir=Path("/"))
    assert flowgrid_cache.cache_root(disabled) is None


@pytest.mark.parametrize(("section", "match"), [
    ({"enabled": "yes"}, "must be true or false"),
    ({"dir": ""}, "must be a folder path"),
    ({"dir": 3}, "must be a folder path"),
    ({"folder": "x"}, "unknown: folder"),
])
def test_bad_cache_settings_are_refused(section, match):
    data = {"town": {"name": "T"}, "layers": {"parcels": {"path": "p.gpkg"}}, "cache": section}
    with pytest.raises(ConfigError, match=match):
        parse_config(data, base_dir=Path("/data"))


# --------------------------------------------------------------------------- compiled D8
@settings(max_examples=80, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 12), st.integers(1, 9)),
              elements=st.sampled_from([-9999.0, 0.0, 1.0, 1.5, 2.0, 7.25, 30.0, 1e-9])),
       st.sampled_from([(10.0, 10.0), (10.0, 7.0), (1.0, 1.0), (0.5, 2.0)]),
       st.booleans())
def test_compiled_steepest_d8_equals_the_numpy_rule(filled, cell, as_float32):
    """The numba loop gives exactly the codes of the whole-array numpy rule (ties: first in
    _D8 order; flats: the flood direction; no data: 247), in float32 and float64."""
    filled = filled.astype(np.float32) if as_float32 else filled
    flood = np.random.default_rng(0).choice(np.array([1, 2, 4, 8, 16, 32, 64, 128], np.uint8),
                                            size=filled.shape)
    np.testing.assert_array_equal(hydrology_grid._steepest_d8(filled, flood, *cell),
                                  flowkernels.steepest_reference(filled, flood, *cell))


def test_float32_dems_are_kept_in_float32_and_float64_in_float64():
    assert hydrology_grid._elevations(np.ma.masked_array(np.ones((2, 2), "float32"))).dtype == \
        np.float32
    assert hydrology_grid._elevations(np.ones((2, 2), "int16")).dtype == np.float32
    assert hydrology_grid._elevations(np.ones((2, 2), "float64")).dtype == np.float64
    masked = np.ma.masked_array(np.ones((1, 2), "float32"), mask=[[True, False]])
    assert np.isnan(hydrology_grid._elevations(masked)[0, 0])


def test_no_warning_when_the_cache_works(dem_copy):
    config = load_config(dem_copy)
    with warnings.catch_warnings():
        warnings.simplefilter("error", flowgrid_cache.CacheWarning)
        flowgrid_cache.town_flow(config)
        flowgrid_cache.town_flow(config)


@settings(max_examples=40, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(2, 14), st.integers(2, 14)),
              elements=st.floats(0, 20, allow_nan=False).map(lambda v: round(v, 1))),
       arrays(np.int32, st.tuples(st.just(14), st.just(14)),
              elements=st.sampled_from([0, 0, 0, 0, 0, 1, 2, 3, -1, -2])),
       arrays(np.bool_, st.tuples(st.just(14), st.just(14)), elements=st.booleans()))
def test_compiled_drainage_labels_equal_pyflwdir_basins(z, water_all, holes_all):
    """Each cell gets the label of the first water cell downstream (0: none reached), exactly as
    pyflwdir ``basins`` with every water cell as an outlet, holes in the DEM included."""
    from affine import Affine

    from swm_gis.raster import Raster

    rows, cols = z.shape
    holes = holes_all[:rows, :cols] & (np.arange(rows * cols).reshape(rows, cols) % 5 == 0)
    z = np.where(holes, np.nan, z)
    if not np.isfinite(z).any():
        return
    dem = Raster(np.ma.masked_invalid(z), Affine(10, 0, 0, 0, -10, 1000), CRS_OBJ, {})
    flow = hydrology.flow_directions(dem)
    water = np.where(np.isfinite(z), water_all[:rows, :cols], 0).astype(np.int32)
    got = hydrology_grid._drainage_labels(flow, None, water)
    np.testing.assert_array_equal(got, hydrology_grid._labels_by_basins(flow, water))


@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(2, 12), st.integers(2, 12)),
              elements=st.floats(0, 20, allow_nan=False).map(lambda v: round(v, 1))),
       st.booleans(), st.integers(0, 6))
def test_flow_directions_have_no_loops(z, as_float32, hole_every):
    """Every cell with data drains to a pit: the filled levels are exact (no rounding step that
    a flat could drain up)."""
    from affine import Affine

    from swm_gis.raster import Raster

    if hole_every:
        z = np.where(np.arange(z.size).reshape(z.shape) % (hole_every + 2) == 0, np.nan, z)
    z = z.astype(np.float32) if as_float32 else z
    if not np.isfinite(z).any():
        return
    flow = hydrology.flow_directions(Raster(np.ma.masked_invalid(z),
                                            Affine(10, 0, 0, 0, -10, 1000), CRS_OBJ, {}))
    rank = flow.flwdir.rank.reshape(z.shape)
    assert (rank[np.isfinite(z)] >= 0).all()


def test_a_depression_spilling_over_the_edge_drains_out_of_it():
    """The case that made a two-cell loop: a basin filled to a 0.7 m spill cell on the DEM's
    edge (pyflwdir's float32 queue left it at 0.69999999, below the spill cell)."""
    from affine import Affine

    from swm_gis.raster import Raster

    z = np.zeros((14, 7))
    z[9, :4] = 1
    z[10:13, 0] = z[10:13, 3] = 1
    z[13, :4] = [1, 1, 0.7, 1]
    flow = hydrology.flow_directions(Raster(np.ma.masked_invalid(z),
                                            Affine(10, 0, 0, 0, -10, 1000), CRS_OBJ, {}))
    assert flow.d8[13, 2] == 0  # the spill cell on the edge is the basin's outlet
    assert (flow.flwdir.rank >= 0).all()
    water = np.zeros(z.shape, dtype=np.int32)
    water[13, 2] = 5
    labels = hydrology_grid._drainage_labels(flow, None, water)
    assert (labels[10:13, 1:3] == 5).all()  # the basin drains out through its spill cell


def test_a_temporary_copy_of_the_config_reuses_the_entry(dem_copy, tmp_path, monkeypatch):
    """The QGIS plugin runs the engine on a temporary config naming the same files: same DEM
    bytes, same key, so its runs reuse the grid the command line stored (and vice versa)."""
    monkeypatch.setenv("SWM_GIS_CACHE_DIR", str(tmp_path / "user-cache"))
    text = (dem_copy.parent / "town.toml").read_text(encoding="utf-8").replace(
        '[cache]\ndir = "../cache"\n', "")
    text = text.replace('path = "', f'path = "{dem_copy.parent.as_posix()}/')
    copy = tmp_path / "plugin-run" / "town.toml"
    copy.parent.mkdir()
    copy.write_text(text, encoding="utf-8")
    original = dem_copy.parent / "original.toml"
    original.write_text((dem_copy.parent / "town.toml").read_text(encoding="utf-8").replace(
        '[cache]\ndir = "../cache"\n', ""), encoding="utf-8")
    flowgrid_cache.town_flow(load_config(original))
    grid = flowgrid_cache.town_flow(load_config(copy))
    assert isinstance(grid.d8, np.memmap)
    assert len(list((tmp_path / "user-cache" / f"flowgrid-v{flowgrid_cache.CACHE_VERSION}")
                    .glob("[0-9a-f]*"))) == 1


def test_screening_on_a_dem_too_big_for_one_grid_uses_windows_and_no_cache(dem_copy, monkeypatch):
    config = load_config(dem_copy)
    site = io.read_file(f"{dem_copy.parent / 'sites.gpkg'}:site", working_crs=config.crs,
                        what="site")
    monkeypatch.setattr(flowgrid_cache, "TOWN_MAX_CELLS", 1_000)
    keys, _, checks = resource_checks(config, site)
    assert keys["receiving_waters"]["method"] == "dem"
    assert keys["receiving_waters"]["downstream"]  # the windowed trace still finds water
    assert entries(dem_copy) == []  # site windows are never cached


def test_a_vrt_is_keyed_by_its_sources_too(dem_copy):
    """A VRT names its tiles: changing a tile (the VRT file itself unchanged) changes the key."""
    folder = dem_copy.parent
    (folder / "dem.vrt").write_text(
        '<VRTDataset rasterXSize="400" rasterYSize="400"><SRS>EPSG:26986</SRS>'
        "<GeoTransform>236000, 10, 0, 920000, 0, -10</GeoTransform>"
        '<VRTRasterBand dataType="Float32" band="1"><NoDataValue>-9999</NoDataValue>'
        '<SimpleSource><SourceFilename relativeToVRT="1">dem.tif</SourceFilename>'
        "<SourceBand>1</SourceBand></SimpleSource></VRTRasterBand></VRTDataset>",
        encoding="utf-8")
    config = load_config(dem_copy)
    vrt = replace(config, layers={**config.layers, "dem": replace(
        config.layer("dem"), path=str(folder / "dem.vrt"))})
    assert str(folder / "dem.tif") in flowgrid_cache.dem_files(str(folder / "dem.vrt"))
    before = flowgrid_cache.grid_key(vrt, None)
    flowgrid_cache.town_flow(vrt)
    poke_dem(folder / "dem.tif", 100, 100, 400.0)
    assert flowgrid_cache.grid_key(vrt, None) != before
    flow = flowgrid_cache.town_flow(vrt)
    assert float(flow.elevation[100, 100]) == 400.0
    np.testing.assert_array_equal(np.asarray(flow.d8), uncached(vrt).d8)

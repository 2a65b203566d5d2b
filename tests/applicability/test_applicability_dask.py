"""The Dask engine gives the local engine's results, row for row (a LocalCluster of 2 processes)."""

from __future__ import annotations

from pathlib import Path

import geopandas as gpd
import numpy as np
import pandas as pd
import pytest
from shapely.geometry import box
from support.applicabilitykit import PARCELS, X0, Y0, town_layers
from support.townkit import CRS, SAMPLE_CONFIG, write_town

from swm_gis.applicability import run as ap
from swm_gis.applicability.cluster import run_applicability_dask
from swm_gis.cli import main
from swm_gis.config.town import load_config
from swm_gis.errors import ConfigError


def _town(tmp_path):
    """The hand-built town with 294 random parcels added (300 in all: tiles of about 80)."""
    rng = np.random.default_rng(11)
    xs, ys = rng.uniform(-200, 3_500, 294), rng.uniform(-200, 2_500, 294)
    layers = town_layers()
    layers["parcels"] = gpd.GeoDataFrame(
        {"LOC_ID": [f"P{i:03d}" for i in range(294)] + list(PARCELS)},
        geometry=[box(X0 + x, Y0 + y, X0 + x + rng.uniform(10, 90), Y0 + y + 40)
                  for x, y in zip(xs, ys, strict=True)] + list(PARCELS.values()), crs=CRS)
    return load_config(write_town(tmp_path, layers))


def test_dask_and_local_engines_give_identical_results(tmp_path):
    cfg = _town(tmp_path)
    local = ap.run_applicability(cfg, tmp_path / "local.gpkg", chunk_size=80)
    dask = run_applicability_dask(cfg, tmp_path / "dask.gpkg", chunk_size=80, workers=2)
    assert local.tiles == dask.tiles and local.tiles >= 4
    assert dask.engine == "dask" and dask.parcels == local.parcels == 300
    a, b = ap.read_result(local.path), ap.read_result(dask.path)
    pd.testing.assert_frame_equal(a.drop(columns="geometry"), b.drop(columns="geometry"))
    assert a.geometry.geom_equals_exact(b.geometry, 0).all()
    pd.testing.assert_frame_equal(local.summary, dask.summary)
    assert a["nhesp_within_distance"].any() and a["in_sfha"].any()


def test_sample_town_same_with_both_engines_from_the_cli(tmp_path, capsys, sample_demo):
    """The sample town (drainage flags, a parcel id on two polygons) through the command line.

    The local engine's map is the session demo's applicability step (its default options;
    tests/support/sample_demo.py)."""
    out_l, out_d = sample_demo.applicability, tmp_path / "d.gpkg"
    base = ["--progress", "none", "applicability", "-c", str(SAMPLE_CONFIG)]
    assert main([*base, "--out", str(out_d), "--engine", "dask", "--workers", "2",
                 "--chunk-size", "1000"]) == 0
    assert "dask engine" in capsys.readouterr().out
    a, b = ap.read_result(out_l), ap.read_result(out_d)
    a = a.sort_values("parcel_id", ignore_index=True)
    b = b.sort_values("parcel_id", ignore_index=True)
    pd.testing.assert_frame_equal(a.drop(columns="geometry"), b.drop(columns="geometry"))
    assert a.geometry.geom_equals_exact(b.geometry, 0).all()
    assert a["parcel_id"].is_unique and len(a) == 3_167  # 3,168 polygons, one id on two
    assert a["drains_to_impaired"].any() and a["drains_to_orw"].any()


def test_unreachable_scheduler_is_a_clear_error(tmp_path):
    cfg = load_config(write_town(tmp_path, town_layers()))
    with pytest.raises(ConfigError, match="Cannot reach the Dask scheduler at tcp://127.0.0.1:9"):
        run_applicability_dask(cfg, tmp_path / "x.gpkg", scheduler="tcp://127.0.0.1:9",
                               connect_timeout_s=1.0)
    assert not (tmp_path / "x.gpkg").exists()


def _same(a_path, b_path):
    a, b = ap.read_result(a_path), ap.read_result(b_path)
    pd.testing.assert_frame_equal(a.drop(columns="geometry"), b.drop(columns="geometry"))
    assert a.geometry.geom_equals_exact(b.geometry, 0).all()


def test_local_cluster_forks_workers_that_hand_tiles_over_through_a_spool(tmp_path,
                                                                        monkeypatch):
    """On Linux the LocalCluster's workers are forked once the layers are prepared: every tile
    comes back through a spool folder, which is gone after the run, and after a failure, with
    the workers' scratch space (nothing is left in the temporary folder)."""
    import tempfile

    import swm_gis.applicability.cluster as dk
    import swm_gis.applicability.parallel as par

    root = tmp_path / "tmp"
    root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    seen = []
    real = par._Spooled.batch

    def batch(self):
        seen.append(self.path)
        assert Path(self.path).parent.parent.parent == root and Path(self.path).is_file()
        return real(self)

    monkeypatch.setattr(par._Spooled, "batch", batch)
    cfg = _town(tmp_path)
    local = ap.run_applicability(cfg, tmp_path / "local.gpkg", chunk_size=80, workers=1)
    dask = run_applicability_dask(cfg, tmp_path / "dask.gpkg", chunk_size=80, workers=2)
    assert len(seen) == dask.tiles == local.tiles >= 4
    assert list(root.iterdir()) == [] and dk._SHARED is None
    _same(local.path, dask.path)

    def boom(config, tile, overlays):
        raise ValueError(f"tile {tile.index} exploded")

    monkeypatch.setattr(dk, "tile_batch", boom)
    with pytest.raises(ValueError, match="exploded"):
        run_applicability_dask(cfg, tmp_path / "x.gpkg", chunk_size=80, workers=2)
    assert list(root.iterdir()) == [] and not (tmp_path / "x.gpkg").exists()


def test_where_workers_cannot_fork_the_layers_are_scattered_same_file(tmp_path, monkeypatch):
    import swm_gis.applicability.cluster as dk

    cfg = _town(tmp_path)
    local = ap.run_applicability(cfg, tmp_path / "local.gpkg", chunk_size=80, workers=1)
    # no fork, as on macOS or Windows; not by faking sys.platform, which is every module's: an
    # import made meanwhile (psutil, through Dask, when no Dask test ran before) would load its
    # macOS code and break every later Dask test of the run
    monkeypatch.setattr(dk, "get_all_start_methods", lambda: ["spawn", "forkserver"])
    dask = run_applicability_dask(cfg, tmp_path / "dask.gpkg", chunk_size=80, workers=2)
    assert dask.tiles == local.tiles >= 4
    _same(local.path, dask.path)


def test_a_running_scheduler_gets_the_layers_scattered_and_gives_the_same_file(tmp_path):
    """--scheduler: a cluster started elsewhere (here a LocalCluster of spawned workers on
    127.0.0.1) receives the prepared layers over TCP and sends every table back."""
    import logging

    from distributed import LocalCluster

    cfg = _town(tmp_path)
    local = ap.run_applicability(cfg, tmp_path / "local.gpkg", chunk_size=80, workers=1)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      scheduler_port=0, dashboard_address=None,
                      silence_logs=logging.ERROR) as cluster:
        dask = run_applicability_dask(cfg, tmp_path / "dask.gpkg", chunk_size=80,
                                      scheduler=cluster.scheduler_address)
    assert dask.tiles == local.tiles >= 4
    _same(local.path, dask.path)


def test_a_worker_without_the_prepared_layers_says_so():
    """A worker the nanny restarted (not forked from the client) cannot classify: it says
    why instead of failing on a missing attribute."""
    import swm_gis.applicability.cluster as dk

    assert dk._SHARED is None
    with pytest.raises(RuntimeError, match="holds no prepared layers"):
        dk._forked_tile_batch(None, None, "/nowhere")

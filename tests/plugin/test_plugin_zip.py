"""scripts/build_plugin.py builds an installable zip with the right contents."""

from __future__ import annotations

import configparser
import importlib.util
import zipfile

import pytest
from support.plugin_kit import PLUGIN_PARENT, ROOT

SPEC = importlib.util.spec_from_file_location("build_plugin", ROOT / "scripts" / "build_plugin.py")
build_plugin = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(build_plugin)


def test_the_zip_holds_the_plugin_folder_and_nothing_else(tmp_path):
    (PLUGIN_PARENT / "swm_gis_qgis" / "__pycache__").mkdir(exist_ok=True)
    path = build_plugin.build(tmp_path)
    assert path.name == "swm_gis_qgis-0.1.0.zip"
    with zipfile.ZipFile(path) as zf:
        names = zf.namelist()
        meta_text = zf.read("swm_gis_qgis/metadata.txt").decode("utf-8")
    assert all(n.startswith("swm_gis_qgis/") for n in names)
    for required in ("__init__.py", "metadata.txt", "icon.svg", "LICENSE", "provider.py",
                     "engine.py", "plugin.py", "algorithms/base.py", "algorithms/abutters.py"):
        assert f"swm_gis_qgis/{required}" in names, required
    # the outputs' QGIS styles are the engine's, stored in its GeoPackages (issue 35)
    assert not any(n.endswith(".qml") for n in names)
    algorithm_files = sorted(n.rsplit("/", 1)[1] for n in names
                             if n.startswith("swm_gis_qgis/algorithms/") and n.endswith(".py"))
    assert algorithm_files == [  # one file per algorithm on a small shared base
        "__init__.py", "abutters.py", "applicability_map.py", "base.py",
        "disturbance_trigger.py", "engine_setup.py", "floodplain_overlap.py",
        "habitat_screening.py", "load_sample_town.py",
        "mitigation_eligibility.py", "publish_web_map.py", "receiving_waters.py",
        "screen_base.py", "site_screening.py", "town_setup.py"]
    assert not any("__pycache__" in n or n.endswith(".pyc") for n in names)
    cp = configparser.ConfigParser(interpolation=None)
    cp.optionxform = str
    cp.read_string(meta_text)
    meta = cp["general"]
    assert meta["hasProcessingProvider"] == "yes"
    assert meta["qgisMinimumVersion"] == "3.22"
    assert meta["icon"] == "icon.svg"
    assert "0.1.0" in meta["changelog"]
    assert "Set up the swm-gis engine" in meta["about"]
    assert "make dist" not in meta["about"] and "pip install" not in meta["about"]
    assert meta["supportsQt6"] == "True"
    assert not any(n.startswith("swm_gis_qgis/engine/") for n in names)  # none was given


def test_the_zip_carries_the_engine_wheel_it_is_given(tmp_path):
    wheel = tmp_path / "swm_gis-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("swm_gis/__init__.py", "")
    path = build_plugin.build(tmp_path / "dist", wheel=wheel)
    with zipfile.ZipFile(path) as zf:
        assert zf.read("swm_gis_qgis/engine/swm_gis-0.1.0-py3-none-any.whl") == \
            wheel.read_bytes()
    bad = tmp_path / "other-1.0.tar.gz"
    bad.write_bytes(b"x")
    with pytest.raises(build_plugin.BuildError, match="not a pure-Python swm-gis wheel"):
        build_plugin.build(tmp_path / "dist2", wheel=bad)


def test_the_zip_is_reproducible(tmp_path):
    a = build_plugin.build(tmp_path / "a").read_bytes()
    b = build_plugin.build(tmp_path / "b").read_bytes()
    assert a == b


def test_bad_metadata_is_refused(tmp_path, capsys):
    bad = tmp_path / "swm_gis_qgis"
    bad.mkdir()
    (bad / "metadata.txt").write_text("[general]\nname=x\nqgisMinimumVersion=3.22\n",
                                      encoding="utf-8")
    with pytest.raises(build_plugin.BuildError, match="lacks description"):
        build_plugin.build(tmp_path / "out", plugin=bad)


def test_the_command_line_prints_the_zip_path(tmp_path, capsys):
    assert build_plugin.main(["--out", str(tmp_path), "--no-engine"]) == 0
    assert capsys.readouterr().out.strip().endswith("swm_gis_qgis-0.1.0.zip")


def test_the_unzipped_plugin_loads_in_qgis_process(tmp_path):
    """What "Install from ZIP" does: unpack into a plugins folder; QGIS then loads it."""
    import os
    import subprocess

    from support.plugin_kit import engine_env

    path = build_plugin.build(tmp_path / "dist")
    plugins = tmp_path / "plugins"
    with zipfile.ZipFile(path) as zf:
        zf.extractall(plugins)
    env = engine_env()
    env.update({"QGIS_PLUGINPATH": str(plugins), "QGIS_CUSTOM_CONFIG_PATH": str(tmp_path),
                "XDG_RUNTIME_DIR": str(tmp_path)})
    qp = "/usr/bin/qgis_process.bin"
    assert os.access(qp, os.X_OK)
    enabled = subprocess.run([qp, "plugins", "enable", "swm_gis_qgis"], capture_output=True,
                             text=True, env=env, timeout=120)
    assert enabled.returncode == 0, enabled.stderr
    listed = subprocess.run([qp, "list"], capture_output=True, text=True, env=env, timeout=120)
    ids = [line.split()[0] for line in listed.stdout.splitlines()
           if line.strip().startswith("swm_gis:")]
    assert len(ids) == 12 and "swm_gis:publishwebmap" in ids  # the web map (issue 27)
    assert "swm_gis:loadsampletown" in ids  # the sample town offered (issue 35)

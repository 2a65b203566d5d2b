"""swm_gis:abutters through /usr/bin/qgis_process.bin, the way a script or cron job runs it.

This is the test that catches library clashes: the plugin is loaded by QGIS's own interpreter
(from QGIS_PLUGINPATH, enabled in a throw-away profile) and must not import pip wheels there.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from support.plugin_kit import PLUGIN_PARENT, SAMPLE, engine_env

pytestmark = pytest.mark.qgis
QGIS_PROCESS = "/usr/bin/qgis_process.bin"


def _env(tmp_path: Path) -> dict[str, str]:
    env = engine_env()
    profile = tmp_path / "profile"
    profile.mkdir(exist_ok=True)
    env.update({"QGIS_PLUGINPATH": str(PLUGIN_PARENT), "QGIS_CUSTOM_CONFIG_PATH": str(profile),
                "XDG_RUNTIME_DIR": str(tmp_path)})
    return env


def _qgis_process(env, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([QGIS_PROCESS, *args], capture_output=True, text=True, env=env,
                          timeout=timeout)


def test_abutters_runs_in_qgis_process(block, tmp_path):
    assert os.access(QGIS_PROCESS, os.X_OK)
    env = _env(tmp_path)
    enabled = _qgis_process(env, "plugins", "enable", "swm_gis_qgis")
    assert enabled.returncode == 0, enabled.stdout + enabled.stderr
    listed = _qgis_process(env, "list")
    assert "swm_gis:abutters" in listed.stdout
    assert "swm_gis:applicabilitymap" in listed.stdout
    out = tmp_path / "abutters.gpkg"
    run = _qgis_process(
        env, "--json", "run", "swm_gis:abutters", "--",
        f"PARCELS={block['parcels']}", f"ASSESS={block['assess']}",
        f"SUBJECT={block['parcels']}", "SUBJECT_IDS=P2", "TOWN_NAME=Sampleton",
        "DISTANCE=100", f"OUTPUT={out}", f"OUTPUT_FOLDER={tmp_path / 'package'}")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    result = json.loads(run.stdout)["results"]
    assert result["ABUTTER_COUNT"] == 5
    assert Path(result["MAILING_LIST_CSV"]).is_file()
    from qgis.core import QgsVectorLayer

    layer = QgsVectorLayer(str(out), "abutters", "ogr")
    assert sorted(f["parcel_id"] for f in layer.getFeatures()) == ["P1", "P3", "P4", "P5", "P6"]


def test_engine_error_is_reported_by_qgis_process(block, tmp_path):
    env = _env(tmp_path)
    assert _qgis_process(env, "plugins", "enable", "swm_gis_qgis").returncode == 0
    run = _qgis_process(
        env, "run", "swm_gis:abutters", "--", f"PARCELS={block['parcels']}",
        f"SUBJECT={block['parcels']}", "SUBJECT_IDS=NOPE", "TOWN_NAME=Sampleton",
        f"OUTPUT={tmp_path / 'x.gpkg'}")
    assert run.returncode != 0
    assert "NOPE" in run.stdout + run.stderr


@pytest.mark.slow
def test_site_screening_with_a_town_config_in_qgis_process(tmp_path):
    """A town config file and a site: what a nightly script would run."""
    env = _env(tmp_path)
    assert _qgis_process(env, "plugins", "enable", "swm_gis_qgis").returncode == 0
    folder = tmp_path / "screening"
    run = _qgis_process(
        env, "--json", "run", "swm_gis:sitescreening", "--",
        f"TOWN_CONFIG={SAMPLE / 'town.toml'}", f"SITE={SAMPLE / 'sites.gpkg'}|layername=site",
        "PROPOSED_IMPERVIOUS_SQFT=28309", f"OUTPUT={tmp_path / 'site.gpkg'}",
        f"OUTPUT_FOLDER={folder}")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    result = json.loads(run.stdout)["results"]
    assert result["PERMIT_REQUIRED"] is True
    # 0.8 in / 12 x (28,309 proposed + 52,382 existing on the lot that stays) = 5,379.4 cu ft
    assert result["REQUIRED_RETENTION_CUFT"] == pytest.approx(5379.4, abs=0.1)
    for name in ("screening.json", "screening.gpkg", "screening_report.html",
                 "screening_report.pdf"):
        assert (folder / name).is_file(), name
    assert not (folder / "qgis_inputs.json").exists()  # the plugin writes nothing of its own


def test_help_and_the_missing_engine_message_in_qgis_process(block, tmp_path):
    env = _env(tmp_path)
    assert _qgis_process(env, "plugins", "enable", "swm_gis_qgis").returncode == 0
    shown = _qgis_process(env, "help", "swm_gis:abutters")
    assert shown.returncode == 0
    for text in ("PARCELS", "SUBJECT", "DISTANCE", "INCLUDE_SUBJECT", "PARCEL_ID_FIELD",
                 "OUTPUT_FOLDER", "Selected features only"):
        assert text in shown.stdout, text
    env.pop("SWM_GIS_EXECUTABLE")
    env["PATH"] = str(tmp_path)  # no swm-gis anywhere
    listed = _qgis_process(env, "list")
    assert "swm_gis:sitescreening" in listed.stdout  # the provider still loads
    run = _qgis_process(env, "run", "swm_gis:abutters", "--", f"PARCELS={block['parcels']}",
                        f"SUBJECT={block['parcels']}", "SUBJECT_IDS=P2", "TOWN_NAME=Sampleton",
                        f"OUTPUT={tmp_path / 'x.gpkg'}")
    assert run.returncode != 0
    out = run.stdout + run.stderr
    assert "The swm-gis engine is not set up yet: run 'Set up the swm-gis engine'" in out
    assert "Settings > Options > Processing > Providers > swm-gis" in out


@pytest.mark.slow
def test_relative_paths_resolve_against_the_callers_working_folder(block, tmp_path):
    """The README's own example: relative TOWN_CONFIG, OUTPUT_FOLDER and OUTPUT_GPKG, run from
    the folder that holds them (not the temporary folder the engine runs in)."""
    import shutil

    env = _env(tmp_path)
    assert _qgis_process(env, "plugins", "enable", "swm_gis_qgis").returncode == 0
    work = tmp_path / "work"
    work.mkdir()
    shutil.copy(block["gpkg"], work / "town.gpkg")
    (work / "town.toml").write_text(
        '[town]\nname = "Blockton"\ncrs = "EPSG:26986"\n[layers.parcels]\n'
        'path = "town.gpkg"\nlayer = "parcels"\n', encoding="utf-8")

    def run(*args):
        return subprocess.run([QGIS_PROCESS, "--json", "run", *args], capture_output=True,
                              text=True, env=env, cwd=work, timeout=300)

    notice = run("swm_gis:abutters", "--", "PARCELS=town.gpkg|layername=parcels",
                 "ASSESS=town.gpkg|layername=assess", "SUBJECT=town.gpkg|layername=parcels",
                 "SUBJECT_IDS=P2", "TOWN_NAME=Sampleton", "OUTPUT=abutters.gpkg",
                 "OUTPUT_FOLDER=notice")
    assert notice.returncode == 0, notice.stdout[-3000:] + notice.stderr[-3000:]
    result = json.loads(notice.stdout)["results"]
    assert result["OUTPUT_FOLDER"] == str(work / "notice")
    assert result["MAILING_LIST_CSV"] == str(work / "notice" / "mailing_list.csv")
    assert (work / "notice" / "mailing_list.csv").is_file()
    assert (work / "abutters.gpkg").is_file()
    mapped = run("swm_gis:applicabilitymap", "--", "TOWN_CONFIG=town.toml",
                 "OUTPUT=map_layer.gpkg", "OUTPUT_GPKG=map.gpkg")
    assert mapped.returncode == 0, mapped.stdout[-3000:] + mapped.stderr[-3000:]
    assert json.loads(mapped.stdout)["results"]["GPKG"] == str(work / "map.gpkg")
    assert (work / "map.gpkg").is_file() and (work / "map_layer.gpkg").is_file()
    # and a relative output on an input is refused as an absolute one is
    refused = run("swm_gis:applicabilitymap", "--", "TOWN_CONFIG=town.toml",
                  "OUTPUT=memory:", "OUTPUT_GPKG=town.gpkg")
    assert refused.returncode != 0
    assert "would destroy the input" in refused.stdout + refused.stderr

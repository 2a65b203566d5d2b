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
from plugin_kit import PLUGIN_PARENT, SAMPLE, engine_env

pytestmark = pytest.mark.qgis
#: the README's install line (swm-gis is not on PyPI)
WHEEL = "~/swm-gis-env/bin/pip install dist/swm_gis-0.1.0-py3-none-any.whl"
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


def test_abutters_runs_in_qgis_process(town, tmp_path):
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
        f"PARCELS={town['parcels']}", f"ASSESS={town['assess']}",
        f"SUBJECT={town['parcels']}", "SUBJECT_IDS=P2",
        "DISTANCE=100", f"OUTPUT={out}", f"OUTPUT_FOLDER={tmp_path / 'package'}")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    result = json.loads(run.stdout)["results"]
    assert result["ABUTTER_COUNT"] == 5
    assert Path(result["MAILING_LIST_CSV"]).is_file()
    from qgis.core import QgsVectorLayer

    layer = QgsVectorLayer(str(out), "abutters", "ogr")
    assert sorted(f["parcel_id"] for f in layer.getFeatures()) == ["P1", "P3", "P4", "P5", "P6"]


def test_engine_error_is_reported_by_qgis_process(town, tmp_path):
    env = _env(tmp_path)
    assert _qgis_process(env, "plugins", "enable", "swm_gis_qgis").returncode == 0
    run = _qgis_process(
        env, "run", "swm_gis:abutters", "--", f"PARCELS={town['parcels']}",
        f"SUBJECT={town['parcels']}", "SUBJECT_IDS=NOPE", f"OUTPUT={tmp_path / 'x.gpkg'}")
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
    assert result["REQUIRED_RETENTION_CUFT"] == pytest.approx(1887.3, abs=0.1)  # README figures
    for name in ("screening.json", "screening.gpkg", "screening_report.html",
                 "screening_report.pdf", "qgis_inputs.json"):
        assert (folder / name).is_file(), name


def test_help_and_the_missing_engine_message_in_qgis_process(town, tmp_path):
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
    run = _qgis_process(env, "run", "swm_gis:abutters", "--", f"PARCELS={town['parcels']}",
                        f"SUBJECT={town['parcels']}", "SUBJECT_IDS=P2",
                        f"OUTPUT={tmp_path / 'x.gpkg'}")
    assert run.returncode != 0
    out = run.stdout + run.stderr
    assert WHEEL in out and "pip install swm-gis" not in out
    assert "Processing > Options > Providers > swm-gis" in out

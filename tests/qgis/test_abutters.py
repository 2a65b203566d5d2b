"""swm_gis:abutters in QGIS: the same abutters and distances as ``swm-gis abutters``."""

from __future__ import annotations

import csv
import subprocess
from pathlib import Path

import pytest
from conftest import ENGINE, M, engine_env

pytestmark = pytest.mark.qgis


def _cli_abutters(town, out: Path, *args: str) -> dict[str, float]:
    cfg = town["folder"] / "cli_town.toml"
    cfg.write_text(
        '[town]\nname = "Test"\ncrs = "EPSG:26986"\n'
        f'[layers.parcels]\npath = "{town["gpkg"]}"\nlayer = "parcels"\n'
        f'[layers.assess]\npath = "{town["gpkg"]}"\nlayer = "assess"\n', encoding="utf-8")
    proc = subprocess.run([ENGINE, "--progress", "none", "abutters", "--config", str(cfg),
                           *args, "--out", str(out), "--overwrite"],
                          capture_output=True, text=True, env=engine_env())
    assert proc.returncode == 0, proc.stderr
    return _csv_distances(out / "abutting_parcels.csv")


def _csv_distances(path: Path) -> dict[str, float]:
    with path.open(encoding="utf-8-sig", newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if r.get("parcel_id") and
                not r["parcel_id"].startswith("#")]
    return {r["parcel_id"]: float(r["distance_ft"]) for r in rows}


def _layer_distances(layer) -> dict[str, float]:
    return {f["parcel_id"]: float(f["distance_ft"]) for f in layer.getFeatures()}


def test_selected_subject_parcel_gives_the_cli_abutters(plugin, town, tmp_path):
    import processing
    from qgis.core import QgsProcessingFeatureSourceDefinition, QgsProject, QgsVectorLayer

    parcels = QgsVectorLayer(town["parcels"], "parcels", "ogr")
    QgsProject.instance().addMapLayer(parcels)
    try:
        parcels.selectByExpression("\"LOC_ID\" = 'P2'")
        result = processing.run("swm_gis:abutters", {
            "PARCELS": parcels,
            "ASSESS": town["assess"],
            "SUBJECT": QgsProcessingFeatureSourceDefinition(parcels.id(), True),
            "OUTPUT": "memory:",
            "OUTPUT_FOLDER": str(tmp_path / "package"),
        })
    finally:
        QgsProject.instance().removeMapLayer(parcels.id())
    got = _layer_distances(result["OUTPUT"])
    # by hand: P1, P3 touch the subject; P4-P6 are across the 15 m street (49.2126 ft)
    assert sorted(got) == ["P1", "P3", "P4", "P5", "P6"]
    assert got["P1"] == pytest.approx(0.0, abs=1e-6)
    assert got["P5"] == pytest.approx(15 * M, abs=0.01)
    cli = _cli_abutters(town, tmp_path / "cli", "--parcel", "P2")
    assert got == pytest.approx(cli, abs=0.005)  # the CSV rounds to 0.01 ft
    package = tmp_path / "package"
    for name in ("abutting_parcels.csv", "mailing_list.csv", "mailing_list.xlsx", "labels.pdf",
                 "abutters_map.pdf", "certified_mail.pdf", "left_out.csv", "abutters.gpkg"):
        assert (package / name).is_file(), name
    assert result["MAILING_LIST_CSV"] == str(package / "mailing_list.csv")
    assert result["ABUTTER_COUNT"] == 5

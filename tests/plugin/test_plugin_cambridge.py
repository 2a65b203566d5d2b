"""swm_gis:abutters on real Cambridge data loaded in QGIS equals ``swm-gis abutters`` on
data/cambridge.toml: a TopoJSON without a CRS (set in QGIS, as staff would), a CSV assessing
table and non-MassGIS field names chosen in the field parameters."""

from __future__ import annotations

import subprocess

import pytest
from support.plugin_kit import ENGINE, ROOT, engine_env

pytestmark = [pytest.mark.qgis, pytest.mark.slow]

# where data/cambridge.toml points (../../shared/data/cambridge from data/)
CAMBRIDGE = (ROOT / "data" / ".." / ".." / "shared" / "data" / "cambridge").resolve()
ASSESS_FIELDS = {
    "ASSESS_PARCEL_ID_FIELD": "GISID", "PROP_ID_FIELD": "PID", "SITE_ADDRESS_FIELD": "Address",
    "OWNER_FIELD": "Owner_Name", "CO_OWNER_FIELD": "Owner_CoOwnerName",
    "OWNER_ADDRESS_FIELD": "Owner_Address", "OWNER_ADDRESS2_FIELD": "Owner_Address2",
    "OWNER_CITY_FIELD": "Owner_City", "OWNER_STATE_FIELD": "Owner_State",
    "OWNER_ZIP_FIELD": "Owner_Zip", "USE_CODE_FIELD": "StateClassCode",
    "FISCAL_YEAR_FIELD": "YearOfAssessment",
}


def _rows(path):
    import csv

    with path.open(encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.reader(fh))
    end = rows.index([]) if [] in rows else len(rows)
    return rows[:end]


def _output_texts(folder):
    """The text of every output a user reads: PDFs (pypdf), CSV, JSON, HTML and Excel XML."""
    import zipfile

    from pypdf import PdfReader

    texts = {}
    for path in sorted(folder.iterdir()):
        suffix = path.suffix.lower()
        if suffix == ".pdf":
            texts[path.name] = "\n".join(p.extract_text() or "" for p in PdfReader(path).pages)
        elif suffix in (".csv", ".json", ".html", ".txt"):
            texts[path.name] = path.read_text(encoding="utf-8-sig")
        elif suffix == ".xlsx":
            with zipfile.ZipFile(path) as z:
                texts[path.name] = "\n".join(z.read(n).decode("utf-8") for n in z.namelist()
                                             if n.endswith(".xml"))
    return texts


def test_cambridge_parcel_9_29(plugin, tmp_path):
    import processing
    from qgis.core import (
        QgsCoordinateReferenceSystem,
        QgsProcessingException,
        QgsProcessingFeatureSourceDefinition,
        QgsProcessingUtils,
        QgsProject,
        QgsVectorLayer,
    )

    parcels = QgsVectorLayer(str(CAMBRIDGE / "ASSESSING_ParcelsFY2014.topojson"), "parcels",
                             "ogr")
    assess = QgsVectorLayer(str(CAMBRIDGE / "ASSESSING_PropertyDatabase_FY2025.csv"), "assess",
                            "ogr")
    assert parcels.isValid() and assess.isValid()
    QgsProject.instance().addMapLayers([parcels, assess])
    try:
        parcels.selectByExpression("\"ML\" = '9-29'")
        params = {"PARCELS": parcels, "ASSESS": assess, "PARCEL_ID_FIELD": "ML",
                  "MAP_PAR_ID_FIELD": "ML", "TOWN_ID_FIELD": None,
                  "SUBJECT": QgsProcessingFeatureSourceDefinition(parcels.id(), True),
                  "TOWN_NAME": "Cambridge (real data, FY2014 parcels)",
                  "RIGHT_OF_WAY_FIELD": "ML", "RIGHT_OF_WAY_VALUES": "ROAD",
                  "OUTPUT": "memory:", "OUTPUT_FOLDER": str(tmp_path / "plugin"),
                  **ASSESS_FIELDS}
        with pytest.raises(QgsProcessingException, match="no coordinate reference system"):
            processing.run("swm_gis:abutters", params)  # the TopoJSON declares none
        parcels.setCrs(QgsCoordinateReferenceSystem("EPSG:4326"))  # as the config states
        result = processing.run("swm_gis:abutters", params)
        temp_root = QgsProcessingUtils.tempFolder()
    finally:
        QgsProject.instance().removeMapLayers([parcels.id(), assess.id()])
    cli = subprocess.run([ENGINE, "--progress", "none", "abutters", "--config",
                          str(ROOT / "data" / "cambridge.toml"), "--parcel", "9-29", "--out",
                          str(tmp_path / "cli")], capture_output=True, text=True,
                         env=engine_env())
    assert cli.returncode == 0, cli.stderr[-2000:]
    listed = _rows(tmp_path / "cli" / "abutting_parcels.csv")
    assert _rows(tmp_path / "plugin" / "abutting_parcels.csv") == listed
    assert _rows(tmp_path / "plugin" / "mailing_list.csv") == \
        _rows(tmp_path / "cli" / "mailing_list.csv")
    left_out = _rows(tmp_path / "plugin" / "left_out.csv")
    assert left_out == _rows(tmp_path / "cli" / "left_out.csv")
    assert any("ROAD" in cell for row in left_out[1:] for cell in row)  # the streets, as the CLI
    assert "ROAD" not in {row[0] for row in listed[1:]}
    texts = _output_texts(tmp_path / "plugin")
    assert {"certification.pdf", "abutters_map.pdf", "abutters.json", "left_out.csv",
            "mailing_list.xlsx"} <= set(texts)
    for name, text in texts.items():
        assert "/tmp/processing_" not in text, name
        assert temp_root not in text, name
    assert "QGIS layer 'parcels'" in texts["certification.pdf"]
    assert "QGIS layer 'parcels'" in texts["abutters_map.pdf"]
    assert result["ABUTTER_COUNT"] == len(listed) - 1 > 0
    got = {f["parcel_id"]: f["distance_ft"] for f in result["OUTPUT"].getFeatures()}
    assert max(got.values()) <= 100.0

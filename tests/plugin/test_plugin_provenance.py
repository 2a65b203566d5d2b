"""The outputs of a plugin run name the QGIS layers the user chose (the ``label`` the plugin
writes into its town config; a copy is ``temporary`` and named by the label alone), never the
run's temporary exports: no PDF (text read back with pypdf), CSV, JSON, HTML or Excel workbook
holds a path in QGIS's processing temp folder, and the plugin edits none of them. And the
right-of-way parameters: both or neither, a field the parcels layer has."""

from __future__ import annotations

import re
import zipfile

import pytest
from support.plugin_kit import SAMPLE

pytestmark = [pytest.mark.qgis, pytest.mark.slow]

GPKG = SAMPLE / "sample.gpkg"
SITES = SAMPLE / "sites.gpkg"


def output_texts(folder) -> dict[str, str]:
    """The text of every output a user reads: PDFs (pypdf), CSV, JSON, HTML and Excel XML."""
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


def assert_no_temp_paths(texts: dict[str, str]) -> None:
    from qgis.core import QgsProcessingUtils

    temp_root = QgsProcessingUtils.tempFolder()
    leaks = sorted(name for name, text in texts.items()
                   if "/tmp/processing_" in text or temp_root in text or "swm_gis_" in text
                   and "town.json" in text)
    assert leaks == []


@pytest.fixture
def sample_layers():
    from qgis.core import QgsProject, QgsVectorLayer

    parcels = QgsVectorLayer(f"{GPKG}|layername=parcels", "Parcels", "ogr")
    assess = QgsVectorLayer(f"{GPKG}|layername=assess", "Assessing FY2025", "ogr")
    assert parcels.isValid() and assess.isValid()
    QgsProject.instance().addMapLayers([parcels, assess])
    yield parcels, assess
    QgsProject.instance().removeMapLayers([parcels.id(), assess.id()])


def test_abutter_package_names_the_qgis_layers_not_the_exports(plugin, sample_layers, tmp_path):
    import processing
    from qgis.core import QgsProcessingFeatureSourceDefinition

    parcels, assess = sample_layers
    parcels.selectByExpression("\"LOC_ID\" = 'M_236682_917765'")
    out = tmp_path / "package"
    processing.run("swm_gis:abutters", {
        "PARCELS": parcels, "ASSESS": assess,
        "SUBJECT": QgsProcessingFeatureSourceDefinition(parcels.id(), True),
        "TOWN_NAME": "Sampleton (SYNTHETIC)", "OUTPUT": "memory:", "OUTPUT_FOLDER": str(out)})
    texts = output_texts(out)
    assert {"certification.pdf", "abutters_map.pdf", "labels.pdf", "certified_mail.pdf",
            "abutters.json", "mailing_list.csv", "mailing_list.xlsx", "left_out.csv"} <= set(texts)
    assert_no_temp_paths(texts)
    for name in ("certification.pdf", "abutters_map.pdf", "abutters.json"):
        text = re.sub(r"\s+", "", texts[name])  # PDF lines wrap anywhere
        # a human name for each data source: the file and its layer, no provider syntax
        assert "QGISlayer'Parcels'(sample.gpkg,layerparcels)" in text, name
        assert "QGISlayer'AssessingFY2025'(sample.gpkg,layerassess)" in text, name


def test_screening_report_names_the_qgis_layers_not_the_exports(plugin, sample_layers,
                                                                 tmp_path):
    import processing
    from qgis.core import QgsProject, QgsVectorLayer

    parcels, _assess = sample_layers
    flood = QgsVectorLayer(f"{GPKG}|layername=flood_zones", "FEMA NFHL", "ogr")
    QgsProject.instance().addMapLayer(flood)
    out = tmp_path / "screen"
    try:
        processing.run("swm_gis:sitescreening", {
            "SITE": f"{SITES}|layername=site", "PARCELS": parcels, "FLOOD_ZONES": flood,
            "TOWN_NAME": "Sampleton", "OUTPUT": "memory:", "OUTPUT_FOLDER": str(out)})
    finally:
        QgsProject.instance().removeMapLayer(flood.id())
    texts = output_texts(out)
    assert {"screening_report.pdf", "screening.json", "screening_report.html"} <= set(texts)
    assert_no_temp_paths(texts)
    pdf = re.sub(r"\s+", "", texts["screening_report.pdf"])
    assert "QGISlayer'FEMANFHL'(sample.gpkg,layerflood_zones)" in pdf
    # the site's layer has no selection: the engine reads the user's own file, and says so
    assert "sites.gpkg:site" in texts["screening_report.pdf"]


@pytest.mark.parametrize(("params", "fragment"), [
    ({"RIGHT_OF_WAY_FIELD": "POLY_TYPE"}, "or neither"),
    ({"RIGHT_OF_WAY_VALUES": "ROW"}, "or neither"),
    ({"RIGHT_OF_WAY_FIELD": "POLY_TYPE", "RIGHT_OF_WAY_VALUES": " , "}, "or neither"),
    ({"RIGHT_OF_WAY_FIELD": "NO_SUCH", "RIGHT_OF_WAY_VALUES": "ROW"}, "NO_SUCH"),
], ids=["field-only", "values-only", "blank-values", "missing-field"])
def test_right_of_way_needs_both_field_and_values(plugin, sample_layers, params, fragment):
    import processing
    from qgis.core import QgsProcessingException

    parcels, _assess = sample_layers
    with pytest.raises(QgsProcessingException, match=fragment):
        processing.run("swm_gis:abutters", {"TOWN_NAME": "Sampleton",
            "PARCELS": parcels, "SUBJECT": parcels, "SUBJECT_IDS": "M_236682_917765",
            "OUTPUT": "memory:", **params})


def test_right_of_way_rule_reaches_the_engine(plugin, sample_layers, tmp_path):
    """A rule on POLY_TYPE = ROW leaves the same streets out as MassGIS's own POLY_TYPE."""
    import csv

    import processing

    parcels, _assess = sample_layers
    runs = {}
    for name, extra in (("plain", {}), ("rule", {"RIGHT_OF_WAY_FIELD": "POLY_TYPE",
                                                 "RIGHT_OF_WAY_VALUES": "ROW, WATER"})):
        processing.run("swm_gis:abutters", {"TOWN_NAME": "Sampleton",
            "PARCELS": parcels, "SUBJECT": parcels, "SUBJECT_IDS": "M_236682_917765",
            "OUTPUT": "memory:", "OUTPUT_FOLDER": str(tmp_path / name), **extra})
        with (tmp_path / name / "left_out.csv").open(encoding="utf-8-sig") as fh:
            runs[name] = [r for r in csv.reader(fh) if r and not r[0].startswith("#")]
    assert len(runs["rule"]) > 1  # a header and the street next to this house lot
    assert runs["rule"] == runs["plain"]

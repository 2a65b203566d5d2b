"""swm_gis:loadsampletown: the bundled sample town offered in QGIS (issue 35), and read with
the dialogs' default (MassGIS L3) fields."""

from __future__ import annotations

import csv

import pytest
from support.plugin_kit import SAMPLE

pytestmark = pytest.mark.qgis


def test_load_the_sample_town_adds_its_layers_and_names_its_config(plugin):
    """The engine says where its sample is (swm-gis demo --where): its 15 layers and the 5 demo
    sites are queued for the project, each a valid layer of the sample's own files, and the
    town config is the sample's."""
    import processing
    from qgis.core import (
        QgsProcessingContext,
        QgsProcessingFeedback,
        QgsProcessingUtils,
        QgsProject,
    )

    context = QgsProcessingContext()
    context.setProject(QgsProject.instance())
    result = processing.run("swm_gis:loadsampletown", {}, context=context,
                            feedback=QgsProcessingFeedback())
    sample = SAMPLE.resolve()
    assert result["TOWN_CONFIG"] == str(sample / "town.toml")
    assert result["FOLDER"] == str(sample)
    assert result["LAYER_COUNT"] == 15 + 5
    queued = context.layersToLoadOnCompletion()
    names = sorted(d.name for d in queued.values())
    assert "Sample town: Parcels" in names and "Sample town: demo site" in names
    assert len(names) == 20
    for uri in queued:
        assert uri.startswith(str(sample)), uri
        layer = QgsProcessingUtils.mapLayerFromString(uri, context)
        assert layer is not None and layer.isValid(), uri
    without = processing.run("swm_gis:loadsampletown", {"SITES": False},
                             context=QgsProcessingContext())
    assert without["LAYER_COUNT"] == 15


def test_the_dialogs_default_fields_read_the_sample_as_l3(plugin, tmp_path):
    """Issue 35: with the abutters dialog's defaults (OWN_CO the country, no co-owner field),
    the Callahans' lot (M_236704_917718, OWNER2 = CALLAHAN KEVIN) next to the subject
    M_236670_917712 is mailed to CALLAHAN KAREN with no country line: the label is never
    "SAMPLETON MA 01940 / CALLAHAN KEVIN", and no country is flagged as naming none."""
    import processing

    gpkg = SAMPLE / "sample.gpkg"
    out = tmp_path / "out"
    processing.run("swm_gis:abutters", {
        "PARCELS": f"{gpkg}|layername=parcels", "ASSESS": f"{gpkg}|layername=assess",
        "TOWN_BOUNDARY": f"{gpkg}|layername=town_boundary", "SUBJECT": f"{gpkg}|layername=parcels",
        "SUBJECT_IDS": "M_236670_917712", "TOWN_NAME": "Sampleton (SYNTHETIC)",
        "OUTPUT": "memory:", "OUTPUT_FOLDER": str(out)})
    with open(out / "mailing_list.csv", encoding="utf-8-sig", newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if r.get("owner_name")]
    callahan = next(r for r in rows if r["owner_name"] == "CALLAHAN KAREN")
    assert (callahan["co_owner"], callahan["mail_country"]) == ("", "")
    for name in ("mailing_list.csv", "mailing_review.csv"):
        text = (out / name).read_text(encoding="utf-8-sig")
        assert "CALLAHAN KEVIN" not in text and "not_a_country" not in text, name

"""swm_gis:townsetup: the town set up once from the project's layers; every field and the join
checked at once; the saved config is what every other algorithm takes first (issue 26, items 3,
4 and 7)."""

from __future__ import annotations

import csv
import subprocess
import tomllib

import pytest
from support.plugin_kit import ENGINE, ROOT, engine_env

pytestmark = pytest.mark.qgis

CAMBRIDGE = (ROOT / "data" / ".." / ".." / "shared" / "data" / "cambridge").resolve()
#: data/cambridge.toml's assessing fields, chosen in the dialog
CAMBRIDGE_ASSESS = {
    "ASSESS_PARCEL_ID_FIELD": "GISID", "PROP_ID_FIELD": "PID", "SITE_ADDRESS_FIELD": "Address",
    "OWNER_FIELD": "Owner_Name", "CO_OWNER_FIELD": "Owner_CoOwnerName",
    "OWNER_ADDRESS_FIELD": "Owner_Address", "OWNER_ADDRESS2_FIELD": "Owner_Address2",
    "OWNER_CITY_FIELD": "Owner_City", "OWNER_STATE_FIELD": "Owner_State",
    "OWNER_ZIP_FIELD": "Owner_Zip", "USE_CODE_FIELD": "StateClassCode",
    "FISCAL_YEAR_FIELD": "YearOfAssessment", "OWNER_COUNTRY_FIELD": None,
}


def _rows(path):
    with path.open(encoding="utf-8-sig", newline="") as fh:
        return list(csv.reader(fh))


def _cli_abutters(config, parcel, out):
    proc = subprocess.run([ENGINE, "--progress", "none", "abutters", "--config", str(config),
                           "--parcel", parcel, "--out", str(out)], capture_output=True,
                          text=True, env=engine_env())
    assert proc.returncode == 0, proc.stderr[-2000:]
    return out


def test_every_problem_is_said_at_once_with_the_join_rate(plugin, block, tmp_path):
    import processing
    from qgis.core import QgsProcessingException

    target = tmp_path / "blockton.toml"
    with pytest.raises(QgsProcessingException) as exc:
        processing.run("swm_gis:townsetup", {
            "TOWN_NAME": "Blockton", "PARCELS": block["parcels"], "ASSESS": block["assess"],
            "ASSESS_PARCEL_ID_FIELD": "SITE_ADDR", "OWNER_FIELD": "NAME",
            "OWNER_ZIP_FIELD": "ZIPCODE", "RIGHT_OF_WAY_FIELD": "KIND",
            "RIGHT_OF_WAY_VALUES": "ROAD", "OUTPUT_CONFIG": str(target)})
    message = str(exc.value)
    lines = message.splitlines()
    # the engine's join: 9 polygons, the street R1 (POLY_TYPE ROW) aside, 8 can have an owner
    assert lines[0] == ("The town is not set up yet (0 of 8 parcels that can have an owner "
                        "(0.0 %) have an owner record in the assessing table): 4 thing(s) to "
                        "fix, then run again:")
    assert lines[1].startswith("1. 'Assessing table (owners and mailing addresses)' ('town') "
                               "has no field 'NAME' for the owner: choose it in 'Assessing: "
                               "owner name field'. Fields in the layer: fid, LOC_ID, OWNER1,")
    assert lines[2].startswith("2. 'Assessing table (owners and mailing addresses)' ('town') "
                               "has no field 'ZIPCODE' for the zip")
    assert lines[3].startswith("3. 'Right-of-way field of the parcels layer': KIND is not a "
                               "field of")
    assert lines[4].startswith("4. 0 of 8 parcels that can have an owner (0.0 %) have an owner "
                               "record in the assessing table: 'Parcel id field' (LOC_ID, e.g. "
                               "P1, P2, P3) of ")
    assert "'Assessing: parcel id field (joins the parcels)' (SITE_ADDR, e.g. 1 ELM ST" in lines[4]
    assert "The assessing table's field LOC_ID holds 8 of the parcel ids: choose it in " \
        "'Assessing: parcel id field (joins the parcels)'." in lines[4]
    assert len(lines) == 5
    assert not target.exists()


def test_a_memory_layer_is_saved_beside_the_config(plugin, tmp_path):
    import processing
    from qgis.core import QgsFeature, QgsGeometry, QgsVectorLayer
    from support.plugin_kit import square

    layer = QgsVectorLayer("MultiPolygon?crs=EPSG:26986&field=LOC_ID:string", "drawn lots",
                           "memory")
    for pid, x in (("A", 0), ("B", 60)):
        f = QgsFeature(layer.fields())
        f.setGeometry(QgsGeometry.fromWkt(square(x, 0, 60, 60)))
        f.setAttributes([pid])
        layer.dataProvider().addFeature(f)
    target = tmp_path / "cfg" / "drawn.toml"
    target.parent.mkdir()
    r = processing.run("swm_gis:townsetup", {"TOWN_NAME": "Drawn", "PARCELS": layer,
                                            "OUTPUT_CONFIG": str(target)})
    assert r["CONFIG"] == str(target)
    assert r["JOIN_RATE"] is None
    assert r["HEADLINE"] == ("Town config for Drawn saved: 1 layer(s); no assessing table, so "
                             "no mailing lists.")
    doc = tomllib.loads(target.read_text(encoding="utf-8"))
    assert doc["town"] == {"name": "Drawn", "crs": "EPSG:26986"}
    assert doc["layers"]["parcels"]["path"] == "drawn_layers/parcels.gpkg"
    assert doc["layers"]["parcels"]["label"] == "drawn lots (saved from QGIS)"
    saved = QgsVectorLayer(str(target.parent / "drawn_layers" / "parcels.gpkg"), "s", "ogr")
    assert sorted(f["LOC_ID"] for f in saved.getFeatures()) == ["A", "B"]
    check = subprocess.run([ENGINE, "--progress", "none", "data", "validate", "--config",
                            str(target)], capture_output=True, text=True, env=engine_env())
    assert check.returncode == 0, check.stdout[-2000:] + check.stderr[-2000:]


def test_the_join_of_layers_saved_from_qgis_is_measured_by_the_engine(plugin, tmp_path):
    """Drawn parcels A, B, C and a drawn assessing table naming owners of A and B (and of a "0A"
    that is no parcel's id): the engine reads the staged copies before anything is saved, and
    its join, 2 of 3 parcels (66.7 %), is the headline's and JOIN_RATE."""
    import processing
    from qgis.core import QgsFeature, QgsGeometry, QgsVectorLayer
    from support.plugin_kit import square

    parcels = QgsVectorLayer("MultiPolygon?crs=EPSG:26986&field=LOC_ID:string", "drawn lots",
                             "memory")
    for pid, x in (("A", 0), ("B", 60), ("C", 120)):
        f = QgsFeature(parcels.fields())
        f.setGeometry(QgsGeometry.fromWkt(square(x, 0, 60, 60)))
        f.setAttributes([pid])
        parcels.dataProvider().addFeature(f)
    names = ("LOC_ID", "OWNER1", "OWN_ADDR", "OWN_CITY", "OWN_STATE", "OWN_ZIP")
    assess = QgsVectorLayer("None?" + "&".join(f"field={n}:string" for n in names),
                            "drawn owners", "memory")
    for pid in ("A", "B", "0A"):
        f = QgsFeature(assess.fields())
        f.setAttributes([pid, f"OWNER {pid}", "1 ELM ST", "LYNNFIELD", "MA", "01940"])
        assess.dataProvider().addFeature(f)
    target = tmp_path / "cfg" / "drawn.toml"
    target.parent.mkdir()
    r = processing.run("swm_gis:townsetup", {"TOWN_NAME": "Drawn", "PARCELS": parcels,
                                            "ASSESS": assess, "OUTPUT_CONFIG": str(target)})
    assert r["JOIN_RATE"] == pytest.approx(2 / 3)
    assert r["HEADLINE"] == ("Town config for Drawn saved: 2 layer(s); 2 of 3 parcels that can "
                             "have an owner (66.7 %) have an owner record in the assessing "
                             "table.")
    doc = tomllib.loads(target.read_text(encoding="utf-8"))
    assert doc["layers"]["assess"]["path"] == "drawn_layers/assess.gpkg"
    # the engine's own check of the saved config gives the same join
    check = subprocess.run([ENGINE, "--progress", "json", "data", "validate", "--config",
                            str(target)], capture_output=True, text=True, env=engine_env())
    result = [line for line in check.stdout.splitlines() if '"type": "result"' in line]
    assert check.returncode == 0 and len(result) == 1, check.stderr[-2000:]
    assert '"joined": 2, "ownable": 3' in result[0]


@pytest.mark.slow
def test_cambridge_set_up_from_project_layers_gives_the_command_lines_mailing_list(plugin,
                                                                                  tmp_path):
    """The issue's case: every assessing field (co-owner, second address line) and the
    right-of-way rule mapped once; the abutters of 9-29 from the saved config equal
    ``swm-gis abutters --config data/cambridge.toml``, on the command line and in QGIS."""
    import processing
    from qgis.core import (
        QgsCoordinateReferenceSystem,
        QgsProcessingFeatureSourceDefinition,
        QgsProject,
        QgsVectorLayer,
    )

    def layer(name, title):
        lyr = QgsVectorLayer(str(CAMBRIDGE / name), title, "ogr")
        assert lyr.isValid(), name
        return lyr

    parcels = layer("ASSESSING_ParcelsFY2014.topojson", "Cambridge parcels FY2014")
    parcels.setCrs(QgsCoordinateReferenceSystem("EPSG:4326"))  # the TopoJSON declares none
    assess = layer("ASSESSING_PropertyDatabase_FY2025.csv", "Cambridge assessing FY2025")
    flood = layer("FEMA_FloodPlains100Year.geojson", "FEMA 100-year")
    water = layer("HYDRO_WaterBodies.geojson", "Water bodies")
    boundary = layer("BOUNDARY_CityBoundary.geojson", "City boundary")
    streets = layer("TRANS_Centerlines.geojson", "Street centrelines")
    QgsProject.instance().addMapLayers([parcels, assess, flood, water, boundary, streets])
    target = tmp_path / "setup" / "cambridge.toml"
    target.parent.mkdir()
    try:
        r = processing.run("swm_gis:townsetup", {
            "TOWN_NAME": "Cambridge (real data, FY2014 parcels)", "PARCELS": parcels,
            "PARCEL_ID_FIELD": "ML", "MAP_PAR_ID_FIELD": "ML", "TOWN_ID_FIELD": None,
            "POLY_TYPE_FIELD": None, "ASSESS": assess, **CAMBRIDGE_ASSESS,
            "RIGHT_OF_WAY_FIELD": "ML", "RIGHT_OF_WAY_VALUES": "ROAD",
            "FLOOD_ZONES": flood, "WATERBODIES": water, "TOWN_BOUNDARY": boundary,
            "STREETS": streets, "STREET_NAME_FIELD": "Street",
            "OUTPUT_CONFIG": str(target)})
        # the engine's join (data validate's): 13,116 polygons, 13,115 with an ML, less the 6
        # ML = ROAD right-of-way polygons and one with an empty geometry = 13,108 that can have
        # an owner; 535 of them have owner rows in the 1,000-row sample
        assert r["JOIN_RATE"] == pytest.approx(535 / 13108)
        assert "535 of 13,108 parcels that can have an owner (4.1 %) have an owner record in " \
            "the assessing table" in r["HEADLINE"]
        doc = tomllib.loads(target.read_text(encoding="utf-8"))
        assert doc["layers"]["parcels"]["right_of_way"] == {"field": "ML", "values": ["ROAD"]}
        assert doc["layers"]["parcels"]["crs"] == "EPSG:4326"
        assert doc["layers"]["assess"]["fields"]["co_owner"] == "Owner_CoOwnerName"
        assert doc["layers"]["assess"]["fields"]["address2"] == "Owner_Address2"
        assert doc["layers"]["parcels"]["path"].endswith(
            "shared/data/cambridge/ASSESSING_ParcelsFY2014.topojson")
        assert not doc["layers"]["parcels"]["path"].startswith("/")  # relative to the config

        cli = _cli_abutters(ROOT / "data" / "cambridge.toml", "9-29", tmp_path / "cli")
        mine = _cli_abutters(target, "9-29", tmp_path / "mine")
        for name in ("mailing_list.csv", "abutting_parcels.csv", "left_out.csv"):
            assert _rows(mine / name) == _rows(cli / name), name
        assert len(_rows(cli / "mailing_list.csv")) > 20
        # and in QGIS: only the subject, chosen on the map, besides the saved config
        parcels.selectByExpression("\"ML\" = '9-29'")
        plugin_run = processing.run("swm_gis:abutters", {
            "TOWN_CONFIG": str(target),
            "SUBJECT": QgsProcessingFeatureSourceDefinition(parcels.id(), True),
            "OUTPUT": "memory:", "OUTPUT_FOLDER": str(tmp_path / "plugin")})
    finally:
        QgsProject.instance().removeMapLayers(
            [x.id() for x in (parcels, assess, flood, water, boundary, streets)])
    assert _rows(tmp_path / "plugin" / "mailing_list.csv") == _rows(cli / "mailing_list.csv")
    assert plugin_run["RECIPIENT_COUNT"] == len(_rows(cli / "mailing_list.csv")) - 1


def test_the_town_is_named_before_its_config_is_saved(plugin, block, tmp_path):
    """Every report and list the config serves prints the town's name: a blank name is one of
    the problems said, and no config is saved."""
    import processing
    from qgis.core import QgsProcessingException

    target = tmp_path / "blank.toml"
    with pytest.raises(QgsProcessingException) as exc:
        processing.run("swm_gis:townsetup", {
            "TOWN_NAME": "   ", "PARCELS": block["parcels"], "ASSESS": block["assess"],
            "OUTPUT_CONFIG": str(target)})
    assert "'Town name': name the town (every report and list the config is used for prints " \
        "it)." in str(exc.value)
    assert not target.exists()


def test_the_regulation_chosen_is_named_in_the_saved_config(plugin, block, tmp_path):
    """A bundled id is saved as given; a profile file relative to the config (as the layers'
    paths are); the engine reads both, and refuses an unknown id naming the parameter before
    anything is saved (issue 33; issue 35: the engine checks and writes the config)."""
    import processing
    from qgis.core import QgsProcessingException

    from swm_gis.io.regulations import exported_text

    profile = tmp_path / "profiles" / "mytown.toml"
    profile.parent.mkdir()
    profile.write_text(exported_text("westwood-ch350"), encoding="utf-8")
    saved = {}
    for name, regulation in (("id", "westwood-ch350"), ("file", str(profile))):
        target = tmp_path / name / "town.toml"
        target.parent.mkdir()
        processing.run("swm_gis:townsetup", {"TOWN_NAME": "Blockton", "PARCELS": block["parcels"],
                                             "REGULATION": regulation,
                                             "OUTPUT_CONFIG": str(target)})
        saved[name] = tomllib.loads(target.read_text(encoding="utf-8"))["town"]["regulation"]
        check = subprocess.run([ENGINE, "--progress", "none", "data", "validate", "--config",
                                str(target)], capture_output=True, text=True, env=engine_env())
        assert check.returncode == 0, check.stdout[-2000:] + check.stderr[-2000:]
    assert saved == {"id": "westwood-ch350", "file": "../profiles/mytown.toml"}
    target = tmp_path / "typo" / "town.toml"
    target.parent.mkdir()
    with pytest.raises(QgsProcessingException) as exc:
        processing.run("swm_gis:townsetup", {"TOWN_NAME": "Blockton", "PARCELS": block["parcels"],
                                             "REGULATION": "westwod-ch350",
                                             "OUTPUT_CONFIG": str(target)})
    assert str(exc.value).startswith(
        "The town is not set up yet: 1 thing(s) to fix, then run again:\n1. 'Regulation profile "
        "(a bundled id or a profile file)' = \"westwod-ch350\" is not a bundled regulation "
        "profile. Did you mean \"westwood-ch350\"?")
    assert list(target.parent.iterdir()) == []


@pytest.mark.parametrize(("param", "logical", "what"), [
    ("OWNER_FIELD", "owner", "The owner's name must be text"),
    ("OWNER_ZIP_FIELD", "zip", "The owner's ZIP code must be text (a number loses its leading "
                               'zeros: "01940" becomes 1940)')])
def test_a_numeric_owner_or_zip_field_is_refused_in_the_dialogs_words(plugin, block, tmp_path,
                                                                      param, logical, what):
    """The engine's schema says the owner's name and ZIP code are text: the block's FY (an
    integer field) chosen for them is refused before the config is saved, naming the dialog's
    parameter and the QGIS layer, never a config key or a temporary path (issue 35)."""
    import processing
    from qgis.core import QgsProcessingException, QgsProject, QgsVectorLayer

    assess = QgsVectorLayer(block["assess"], "Town assessing", "ogr")
    QgsProject.instance().addMapLayer(assess)
    target = tmp_path / "numeric" / "town.toml"
    target.parent.mkdir()
    try:
        with pytest.raises(QgsProcessingException) as exc:
            processing.run("swm_gis:townsetup", {
                "TOWN_NAME": "Blockton", "PARCELS": block["parcels"], "ASSESS": assess,
                param: "FY", "OUTPUT_CONFIG": str(target)})
    finally:
        QgsProject.instance().removeMapLayer(assess.id())
    label = {"owner": "Assessing: owner name field", "zip": "Assessing: owner ZIP code field"}
    assert str(exc.value) == (
        "The town is not set up yet: 1 thing(s) to fix, then run again:\n"
        f"1. {what}, but the parameter '{label[logical]}' names a numeric field (int32) of the "
        "layer 'Town assessing'. Name a text field there, or store FY as text in the source.")
    assert list(target.parent.iterdir()) == []

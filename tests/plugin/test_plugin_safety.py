"""Inputs are safe in QGIS too: an output that is, contains or lies inside a real input source is
refused before anything is written; a cancel at any stage leaves the chosen outputs as they were;
nothing stray is left beside them (issue 26, item 1)."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from support.plugin_kit import PLUGIN_PARENT  # noqa: F401 - puts the plugin on sys.path

pytestmark = pytest.mark.qgis


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _tree(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): _digest(p) for p in sorted(folder.rglob("*"))
            if p.is_file()}


@pytest.fixture
def data(block, tmp_path):
    """A private copy of the town GeoPackage (a failing test must not damage the shared one)."""
    folder = tmp_path / "data"
    folder.mkdir()
    gpkg = folder / "town.gpkg"
    shutil.copy(block["gpkg"], gpkg)
    return {"folder": folder, "gpkg": gpkg, "parcels": f"{gpkg}|layername=parcels",
            "assess": f"{gpkg}|layername=assess", "digest": _digest(gpkg)}


# --------------------------------------------------------------------------- the pure part
@pytest.mark.parametrize(("source", "expected"), [
    ("/d/town.gpkg|layername=parcels", ["/d/town.gpkg"]),
    ("/d/town.gpkg|layerid=0|subset=\"x\" = 1", ["/d/town.gpkg"]),
    ("ogr:dbname='/d/town.gpkg' table=\"new\" (geom)", ["/d/town.gpkg"]),
    ("/vsizip//d/M164.zip/M164TaxPar.shp", ["/d/M164.zip"]),
    ("GPKG:/d/dem.gpkg:dem", ["/d/dem.gpkg"]),
    ("file:///d/assess.csv?delimiter=,", ["/d/assess.csv"]),
    ("memory:", []), ("Polygon?crs=EPSG:26986", ["Polygon"]),
    ("dbname='gis' host=db port=5432 table=\"public\".\"parcels\"", []),
    ("PG:dbname=gis", []), ("", []),
])
def test_the_files_behind_a_layer_source(source, expected):
    from swm_gis_qgis import safety

    got = safety.source_files(source)
    if expected == ["Polygon"]:  # a memory layer's uri is no file anyone has: harmless
        assert len(got) == 1
        return
    assert got == [safety.real_path(p) for p in expected]


def test_a_shapefile_brings_its_companions():
    from swm_gis_qgis import safety

    got = safety.source_files("/d/parcels.shp")
    assert got[:3] == [safety.real_path(p) for p in ("/d/parcels.shp", "/d/parcels.shx",
                                                     "/d/parcels.dbf")]
    assert safety.clash("/d/parcels.dbf", {"'Parcels'": got}) == \
        ("'Parcels'", "is", safety.real_path("/d/parcels.dbf"))


@pytest.mark.parametrize(("output", "relation"), [
    ("/d/town.gpkg", "is"), ("/d", "contains"), ("/d/town.gpkg/x", "is inside"),
    ("/d2/town.gpkg", None), ("/d/other.gpkg", None),
])
def test_relations(output, relation):
    from swm_gis_qgis import safety

    assert safety.relation(safety.real_path(output), safety.real_path("/d/town.gpkg")) == \
        relation


def test_a_town_config_names_every_file(tmp_path):
    from swm_gis_qgis import safety

    cfg = tmp_path / "cfg" / "town.toml"
    cfg.parent.mkdir()
    cfg.write_text('[town]\nname = "T"\n[layers.parcels]\npath = "../data/town.gpkg"\n'
                   'layer = "parcels"\n[layers.dem]\npath = "/abs/dem.tif"\n'
                   '[layers.huc12]\npath = ["a.shp", "PG:dbname=x"]\n', encoding="utf-8")
    got = safety.config_files(str(cfg))
    assert got[0] == safety.real_path(str(cfg))
    assert safety.real_path(str(tmp_path / "data" / "town.gpkg")) in got
    assert safety.real_path("/abs/dem.tif") in got
    assert safety.real_path(str(cfg.parent / "a.dbf")) in got


# --------------------------------------------------------------------------- in QGIS
def test_the_engine_geopackage_on_the_parcels_geopackage_is_refused(plugin, data):
    """The issue's case: 'Engine GeoPackage' set to the file holding the parcels layer."""
    import processing
    from qgis.core import QgsProcessingException

    with pytest.raises(QgsProcessingException) as exc:
        processing.run("swm_gis:applicabilitymap", {
            "PARCELS": data["parcels"], "OUTPUT": "memory:", "OUTPUT_GPKG": str(data["gpkg"])})
    message = str(exc.value)
    assert "'Engine GeoPackage (with its style, summary and checks)'" in message
    assert f"is {data['gpkg']}, the very file 'Parcels (tax parcel polygons)' (layer " in message
    assert "nothing was written" in message
    assert _digest(data["gpkg"]) == data["digest"]
    assert sorted(p.name for p in data["folder"].iterdir()) == ["town.gpkg"]


@pytest.mark.parametrize("param", ["OUTPUT", "OUTPUT_FOLDER"])
def test_abutters_outputs_on_an_input_are_refused(plugin, data, param):
    import processing
    from qgis.core import QgsProcessingException

    params = {"PARCELS": data["parcels"], "ASSESS": data["assess"], "SUBJECT": data["parcels"],
              "SUBJECT_IDS": "P2", "TOWN_NAME": "Sampleton", "OUTPUT": "memory:"}
    params[param] = str(data["gpkg"] if param == "OUTPUT" else data["folder"])
    with pytest.raises(QgsProcessingException) as exc:
        processing.run("swm_gis:abutters", params)
    message = str(exc.value)
    if param == "OUTPUT":
        assert "'Abutting parcels'" in message and "is read from" in message
    else:
        assert f"'Output folder' ({data['folder']}) is a folder holding {data['gpkg']}" in message
    assert _digest(data["gpkg"]) == data["digest"]


def test_an_output_in_a_file_the_town_config_names_is_refused(plugin, data, tmp_path):
    import processing
    from qgis.core import QgsProcessingException

    cfg = tmp_path / "town.toml"
    cfg.write_text(f'[town]\nname = "T"\ncrs = "EPSG:26986"\n[layers.parcels]\n'
                   f'path = "{data["gpkg"]}"\nlayer = "parcels"\n', encoding="utf-8")
    with pytest.raises(QgsProcessingException) as exc:
        processing.run("swm_gis:applicabilitymap", {
            "TOWN_CONFIG": str(cfg), "OUTPUT": "memory:", "OUTPUT_GPKG": str(data["gpkg"])})
    assert "'Town config file" in str(exc.value)
    assert _digest(data["gpkg"]) == data["digest"]


def test_nothing_stray_beside_the_kept_geopackage(plugin, data, tmp_path):
    import processing

    out = tmp_path / "results"
    out.mkdir()
    r = processing.run("swm_gis:applicabilitymap", {
        "PARCELS": data["parcels"], "OUTPUT": "memory:", "OUTPUT_GPKG": str(out / "map.gpkg")})
    assert r["GPKG"] == str(out / "map.gpkg")
    assert sorted(p.name for p in out.iterdir()) == ["map.gpkg"]  # no *_stored_style.qml
    assert r["OUTPUT"].featureCount() == 9


class CancelAt:
    """A feedback that presses Cancel when a progress text starting with ``stage`` appears."""

    def __new__(cls, stage: str):
        from qgis.core import QgsProcessingFeedback

        class _Feedback(QgsProcessingFeedback):
            def setProgressText(self, text):  # noqa: N802
                super().setProgressText(text)
                if str(text).startswith(stage):
                    self.cancel()

        return _Feedback()


@pytest.mark.parametrize("stage", ["Exporting", "Running the swm-gis engine",
                                   "Loading the results", "Moving the outputs into place"])
def test_a_cancel_at_any_stage_leaves_the_output_folder_as_it_was(plugin, data, tmp_path,
                                                                    stage):
    import processing
    from qgis.core import QgsProcessingContext, QgsProcessingException

    folder = tmp_path / "notice"
    folder.mkdir()
    (folder / "mailing_list.csv").write_text("last week's list\n", encoding="utf-8")
    (folder / "abutters.json").write_text("{}\n", encoding="utf-8")
    before = _tree(folder)
    with pytest.raises(QgsProcessingException) as exc:
        processing.run("swm_gis:abutters", {"TOWN_NAME": "Sampleton",
            "PARCELS": data["parcels"], "ASSESS": data["assess"], "SUBJECT": data["parcels"],
            "SUBJECT_IDS": "P2", "OUTPUT": "memory:", "OUTPUT_FOLDER": str(folder)},
            context=QgsProcessingContext(), feedback=CancelAt(stage))
    message = str(exc.value)
    assert message.startswith("Cancelled: the run was stopped before any output was replaced")
    assert str(folder) in message
    assert _tree(folder) == before
    assert _digest(data["gpkg"]) == data["digest"]


def test_a_cancel_while_the_map_loads_leaves_the_kept_geopackage(plugin, data, tmp_path):
    """The issue's case: Cancel after the engine finished, while the features load."""
    import processing
    from qgis.core import QgsProcessingContext, QgsProcessingException

    kept = tmp_path / "map.gpkg"
    kept.write_bytes(b"last week's map")
    with pytest.raises(QgsProcessingException, match="^Cancelled: .*map.gpkg"):
        processing.run("swm_gis:applicabilitymap", {
            "PARCELS": data["parcels"], "OUTPUT": "memory:", "OUTPUT_GPKG": str(kept)},
            context=QgsProcessingContext(), feedback=CancelAt("Loading the results"))
    assert kept.read_bytes() == b"last week's map"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "map.gpkg"]


def test_a_finished_run_replaces_the_files_of_the_same_name_only(plugin, data, tmp_path):
    import processing

    folder = tmp_path / "notice"
    folder.mkdir()
    (folder / "mailing_list.csv").write_text("last week's list\n", encoding="utf-8")
    (folder / "my_notes.txt").write_text("keep me\n", encoding="utf-8")
    r = processing.run("swm_gis:abutters", {"TOWN_NAME": "Sampleton",
        "PARCELS": data["parcels"], "ASSESS": data["assess"], "SUBJECT": data["parcels"],
        "SUBJECT_IDS": "P2", "OUTPUT": "memory:", "OUTPUT_FOLDER": str(folder)})
    assert r["OUTPUT_FOLDER"] == str(folder)
    assert r["MAILING_LIST_CSV"] == str(folder / "mailing_list.csv")
    assert "last week" not in (folder / "mailing_list.csv").read_text(encoding="utf-8")
    assert (folder / "my_notes.txt").read_text(encoding="utf-8") == "keep me\n"
    assert not [p for p in folder.iterdir() if p.name.startswith(".")]  # no staging left
    text = (folder / "abutters.json").read_text(encoding="utf-8")
    assert "swm_gis_abutters_" not in text  # no staging path in what the user reads

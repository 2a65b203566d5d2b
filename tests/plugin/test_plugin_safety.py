"""Inputs are safe in QGIS too: an output that is, contains or lies inside a real input source, or
the source of another layer of the project, is refused by the engine (the plugin passes the real
sources and ``--protect``s the project's) before anything is written, in the dialog's words; a
cancel before the engine finished leaves the chosen outputs as they were; nothing stray is left
beside them (issue 26 item 1, issue 35)."""

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


def test_abutters_output_folder_on_an_input_is_refused(plugin, data):
    import processing
    from qgis.core import QgsProcessingException

    with pytest.raises(QgsProcessingException) as exc:
        processing.run("swm_gis:abutters", {
            "PARCELS": data["parcels"], "ASSESS": data["assess"], "SUBJECT": data["parcels"],
            "SUBJECT_IDS": "P2", "TOWN_NAME": "Sampleton", "OUTPUT": "memory:",
            "OUTPUT_FOLDER": str(data["folder"])})
    message = str(exc.value)
    assert f"'Output folder' ({data['folder']}) is a folder holding {data['gpkg']}" in message
    assert "nothing was written" in message
    assert _digest(data["gpkg"]) == data["digest"]
    assert sorted(p.name for p in data["folder"].iterdir()) == ["town.gpkg"]


def test_a_typed_output_on_an_input_is_refused_by_the_engine_before_the_run(plugin, data):
    """A sink is written by QGIS after the run; the engine refuses it first
    (``--also-writes``), so the parcels' GeoPackage is never replaced by the abutters layer."""
    import processing
    from qgis.core import QgsProcessingException

    with pytest.raises(QgsProcessingException) as exc:
        processing.run("swm_gis:abutters", {
            "PARCELS": data["parcels"], "ASSESS": data["assess"], "SUBJECT": data["parcels"],
            "SUBJECT_IDS": "P2", "TOWN_NAME": "Sampleton", "OUTPUT": str(data["gpkg"])})
    message = str(exc.value)
    assert message.startswith(f"'Abutting parcels' is {data['gpkg']}, the very file 'Parcels "
                              "(tax parcel polygons)' (layer ")
    assert message.endswith("nothing was written.")
    assert _digest(data["gpkg"]) == data["digest"]


def test_an_output_geopackage_that_is_another_project_layers_source_is_refused(
        plugin, data, tmp_path):
    """The issue's case: the output is no input of the run, but another layer of the project
    reads it; the engine refuses it like an input (``--protect``) and writes nothing."""
    import processing
    from qgis.core import QgsProcessingException, QgsProject, QgsVectorLayer

    other = tmp_path / "roads.gpkg"
    shutil.copy(data["gpkg"], other)
    before = _digest(other)
    roads = QgsVectorLayer(f"{other}|layername=parcels", "Roads", "ogr")
    assert roads.isValid()
    QgsProject.instance().addMapLayer(roads)
    try:
        with pytest.raises(QgsProcessingException) as exc:
            processing.run("swm_gis:applicabilitymap", {
                "PARCELS": data["parcels"], "OUTPUT": "memory:", "OUTPUT_GPKG": str(other)})
    finally:
        QgsProject.instance().removeMapLayer(roads.id())
    message = str(exc.value)
    assert message.startswith("'Engine GeoPackage (with its style, summary and checks)' is "
                              f"{other}, the very file the project's layer 'Roads' is read from")
    assert message.endswith("nothing was written.")
    assert _digest(other) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "roads.gpkg"]


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


@pytest.mark.parametrize("stage", ["Exporting", "Running the swm-gis engine"])
def test_a_cancel_before_the_engine_finished_leaves_the_output_folder_as_it_was(
        plugin, data, tmp_path, stage):
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
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no staging left
    assert message.startswith("Cancelled: the run was stopped before any output was replaced")
    assert str(folder) in message
    assert _tree(folder) == before
    assert _digest(data["gpkg"]) == data["digest"]


def test_a_cancel_while_the_map_loads_says_the_engine_output_is_complete(plugin, data, tmp_path):
    """Cancel after the engine finished, while the features load: the engine moved the
    GeoPackage into place whole, and the message says so (never that it was left as it was)."""
    import processing
    from qgis.core import QgsProcessingContext, QgsProcessingException

    kept = tmp_path / "map.gpkg"
    kept.write_bytes(b"last week's map")
    with pytest.raises(QgsProcessingException) as exc:
        processing.run("swm_gis:applicabilitymap", {
            "PARCELS": data["parcels"], "OUTPUT": "memory:", "OUTPUT_GPKG": str(kept)},
            context=QgsProcessingContext(), feedback=CancelAt("Loading the results"))
    assert str(exc.value) == (f"Cancelled after the engine finished: its outputs are complete "
                              f"in {kept}; only loading them into the project was stopped.")
    assert kept.read_bytes()[:16] == b"SQLite format 3\x00"  # the new map, whole
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "map.gpkg"]


class LogFeedback:
    """A feedback that keeps the log's info lines."""

    def __new__(cls):
        from qgis.core import QgsProcessingFeedback

        class _Feedback(QgsProcessingFeedback):
            lines: list[str]

            def pushInfo(self, text):  # noqa: N802
                self.lines.append(text)
                super().pushInfo(text)

        fb = _Feedback()
        fb.lines = []
        return fb


def test_a_finished_run_replaces_the_files_of_the_same_name_only(plugin, data, tmp_path):
    """A run into a folder that already holds the user's files: the engine's one line naming
    what it replaces is in the log; the user's unrelated file is kept."""
    import processing
    from qgis.core import QgsProcessingContext

    folder = tmp_path / "notice"
    folder.mkdir()
    (folder / "mailing_list.csv").write_text("last week's list\n", encoding="utf-8")
    (folder / "abutters.json").write_text("{}\n", encoding="utf-8")
    (folder / "my_notes.txt").write_text("keep me\n", encoding="utf-8")
    feedback = LogFeedback()
    r = processing.run("swm_gis:abutters", {"TOWN_NAME": "Sampleton",
        "PARCELS": data["parcels"], "ASSESS": data["assess"], "SUBJECT": data["parcels"],
        "SUBJECT_IDS": "P2", "OUTPUT": "memory:", "OUTPUT_FOLDER": str(folder)},
        context=QgsProcessingContext(), feedback=feedback)
    assert [line for line in feedback.lines if line.startswith("Replaces")] == [
        f"Replaces 2 files of an earlier run in {folder}: abutters.json, mailing_list.csv."]
    assert r["OUTPUT_FOLDER"] == str(folder)
    assert r["MAILING_LIST_CSV"] == str(folder / "mailing_list.csv")
    assert "last week" not in (folder / "mailing_list.csv").read_text(encoding="utf-8")
    assert (folder / "my_notes.txt").read_text(encoding="utf-8") == "keep me\n"
    assert not [p for p in folder.iterdir() if p.name.startswith(".")]  # no staging left
    text = (folder / "abutters.json").read_text(encoding="utf-8")
    assert "swm_gis_abutters_" not in text  # no staging path in what the user reads

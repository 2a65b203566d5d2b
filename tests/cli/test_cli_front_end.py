"""What a front end (the QGIS plugin) asks of the engine's writing commands (issue 35):

* ``--protect PATH`` refuses an output that is, lies in or holds PATH, exactly like an input;
* ``--overwrite`` into a folder of an earlier run says, in one line, which files it replaces,
  and leaves every other file of the folder alone;
* ``[layers.KEY] temporary = true``: the outputs name the layer by its label, never the path.
"""

from __future__ import annotations

import json
from pathlib import Path

import geopandas as gpd
from pypdf import PdfReader
from shapely.geometry import box
from support.townkit import CRS

from swm_gis.cli import main
from swm_gis.config.town import LAYER_KEYS, parse_config
from swm_gis.io.sources import source_info
from swm_gis.notification.info import PackageInfo
from swm_gis.reports.screening_model import describe_source
from swm_gis.results import OUTPUT_FILES

X0, Y0 = 230_000.0, 900_000.0
LABEL = "QGIS layer 'Parcels' (2 selected features)"
ASSESS = ("LOC_ID,SITE_ADDR,OWNER1,OWN_ADDR,OWN_CITY,OWN_STATE,OWN_ZIP,FY\n"
          "M_S,1 Elm St,ANN APPLICANT,1 ELM ST,LYNNFIELD,MA,01940,2025\n"
          "M_A,3 Elm St,JOHN SMITH,3 ELM ST,LYNNFIELD,MA,01940,2025\n")


def _town(folder: Path, *, parcels_extra: str = "") -> Path:
    """Two 50 m x 50 m parcels 30 m apart (98.4 ft: M_A abuts M_S within 100 ft); the
    parcels in ``copy/parcels.gpkg`` (a front end's temporary folder, say)."""
    (folder / "copy").mkdir(parents=True)
    gpd.GeoDataFrame({"LOC_ID": ["M_S", "M_A"], "POLY_TYPE": ["FEE", "FEE"]},
                     geometry=[box(X0, Y0, X0 + 50, Y0 + 50),
                               box(X0 + 80, Y0, X0 + 130, Y0 + 50)], crs=CRS
                     ).to_file(folder / "copy" / "parcels.gpkg", layer="parcels")
    (folder / "assess.csv").write_text(ASSESS, encoding="utf-8")
    toml = folder / "town.toml"
    toml.write_text(f'[town]\nname = "Testtown"\ncrs = "{CRS}"\nregulation = "lynnfield-ch320"\n'
                    '[layers.parcels]\npath = "copy/parcels.gpkg"\nlayer = "parcels"\n'
                    f'{parcels_extra}\n[layers.assess]\npath = "assess.csv"\n', encoding="utf-8")
    return toml


def _abutters(toml: Path, out: Path, *extra: str) -> list[str]:
    return ["--progress", "json", "abutters", "-c", str(toml), "-p", "M_S", "-o", str(out),
            *extra]


def _infos(err: str) -> list[str]:
    lines = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    return [o["message"] for o in lines if o.get("type") == "info"]


def _error(err: str) -> dict:
    return next(json.loads(line) for line in err.splitlines()
                if line.startswith("{") and json.loads(line).get("type") == "error")


# --------------------------------------------------------------------------- --protect
def test_protect_refuses_a_folder_holding_another_layers_source_and_writes_nothing(
        tmp_path, capsys):
    toml = _town(tmp_path / "town")
    project = tmp_path / "project"
    project.mkdir()
    other = project / "roads.gpkg"  # another layer of the user's QGIS project
    other.write_bytes(b"not ours")
    code = main(_abutters(toml, project, "--protect", str(other)))
    err = _error(capsys.readouterr().err)
    assert code == 2 and err["exit_code"] == 2 and err["error"] == "OutputError"
    assert f"contains the input {other}" in err["message"]
    # for a front end to word it: which output, how it stands to which input
    assert err["details"] == {"output": str(project), "relation": "contains",
                              "input": str(other)}
    assert sorted(p.name for p in project.iterdir()) == ["roads.gpkg"]
    assert other.read_bytes() == b"not ours"


def test_protect_refuses_the_very_file_and_a_folder_inside_it(tmp_path, capsys):
    toml = _town(tmp_path / "town")
    target = tmp_path / "map.gpkg"
    target.write_bytes(b"a layer's source")
    assert main(["--progress", "json", "applicability", "-c", str(toml), "-o", str(target),
                 "--overwrite", "--protect", str(target)]) == 2
    assert f"is the input {target}" in _error(capsys.readouterr().err)["message"]
    assert target.read_bytes() == b"a layer's source"
    data = tmp_path / "data"
    data.mkdir()
    assert main(_abutters(toml, data / "out", "--protect", str(data))) == 2
    assert f"is inside the input {data}" in _error(capsys.readouterr().err)["message"]
    assert list(data.iterdir()) == []


def test_also_writes_refuses_a_front_ends_own_output_on_an_input(tmp_path, capsys):
    """``--also-writes PATH``: a file the front end writes after the run (a QGIS typed output)
    is refused before anything is written when it is an input (here the parcels' GeoPackage)."""
    toml = _town(tmp_path / "town")
    parcels = tmp_path / "town" / "copy" / "parcels.gpkg"
    before = parcels.read_bytes()
    out = tmp_path / "out"
    assert main(_abutters(toml, out, "--also-writes", str(parcels))) == 2
    err = _error(capsys.readouterr().err)
    assert err["details"] == {"output": str(parcels), "relation": "is", "input": str(parcels)}
    assert "(a file the front end writes) is the input" in err["message"]
    assert parcels.read_bytes() == before and not out.exists()


def test_protect_is_hidden_from_help(capsys):
    assert main(["abutters", "--help"]) == 0
    text = capsys.readouterr().out
    assert "--overwrite" in text
    assert not [o for o in ("--protect", "--also-writes", "--input-label") if o in text]


# --------------------------------------------------------------------------- the replace line
def test_overwrite_names_the_files_it_replaces_and_keeps_the_users_own(tmp_path, capsys):
    toml = _town(tmp_path / "town")
    out = tmp_path / "out"
    assert main(_abutters(toml, out)) == 0
    assert not [m for m in _infos(capsys.readouterr().err) if m.startswith("Replaces")]
    (out / "notes.txt").write_text("the agent's own notes", encoding="utf-8")
    assert main(_abutters(toml, out, "--overwrite")) == 0
    names = sorted(OUTPUT_FILES.values())  # the 11 files of the package
    assert [m for m in _infos(capsys.readouterr().err) if m.startswith("Replaces")] == [
        f"Replaces 11 files of an earlier run in {out}: {', '.join(names)}."]
    assert (out / "notes.txt").read_text(encoding="utf-8") == "the agent's own notes"
    assert sorted(p.name for p in out.iterdir()) == sorted([*names, "notes.txt"])


# --------------------------------------------------------------------------- temporary labels
def test_temporary_is_a_layer_key_and_source_info_gives_the_label_alone():
    assert LAYER_KEYS["temporary"]
    data = {"town": {"name": "T"}, "layers": {"parcels": {
        "path": "/tmp/q/parcels.gpkg", "layer": "parcels", "label": LABEL, "temporary": True}}}
    info = source_info(parse_config(data, base_dir=Path("/data")).layer("parcels"))
    assert info == {"key": "parcels", "file": None, "layer": None, "modified": None,
                    "label": LABEL, "temporary": True}
    assert describe_source(info) == f"parcels = {LABEL}"
    lines = PackageInfo(town="T", subject_ids=("1",), distance_ft=100.0,
                        sources=(info,)).source_lines()
    assert lines == [f"parcels: {LABEL}; data date unknown"]


def test_a_temporary_layer_is_named_by_its_label_in_every_output(tmp_path, capsys):
    toml = _town(tmp_path / "town",
                 parcels_extra=f'label = "{LABEL}"\ntemporary = true')
    out = tmp_path / "out"
    assert main(_abutters(toml, out)) == 0, capsys.readouterr().err
    copy = str(tmp_path / "town" / "copy")
    doc = (out / "abutters.json").read_text(encoding="utf-8")
    parcels = next(s for s in json.loads(doc)["sources"] if s["key"] == "parcels")
    assert parcels == {"key": "parcels", "file": None, "layer": None, "modified": None,
                       "label": LABEL, "temporary": True}
    assert copy not in doc and "parcels.gpkg" not in doc
    for name in ("certification.pdf", "abutters_map.pdf"):
        text = " ".join("".join(p.extract_text() for p in PdfReader(out / name).pages).split())
        assert "parcels.gpkg" not in text and copy not in text, name
    cert = " ".join("".join(p.extract_text() for p in
                            PdfReader(out / "certification.pdf").pages).split())
    assert "QGIS layer 'Parcels'" in cert


def test_an_input_label_names_a_file_argument_by_its_label_alone(tmp_path, capsys):
    """``--input-label site=TEXT``: the --site FILE is a front end's copy; abutters.json and the
    certification name it by TEXT, never by the copy's path."""
    toml = _town(tmp_path / "town")
    copy = tmp_path / "run" / "subject.gpkg"
    copy.parent.mkdir()
    gpd.GeoDataFrame(geometry=[box(X0 + 10, Y0 + 10, X0 + 40, Y0 + 40)], crs=CRS).to_file(
        copy, layer="subject")
    label = "QGIS layer 'Sites' (sites.gpkg, layer site; 1 selected feature)"
    out = tmp_path / "out"
    assert main(["--progress", "json", "abutters", "-c", str(toml), "--site", f"{copy}:subject",
                 "-o", str(out), f"--input-label=site={label}"]) == 0, capsys.readouterr().err
    doc = (out / "abutters.json").read_text(encoding="utf-8")
    site = next(s for s in json.loads(doc)["sources"] if s["key"] == "site")
    assert site == {"key": "site", "file": None, "layer": None, "modified": None,
                    "label": label, "temporary": True}
    assert "subject.gpkg" not in doc
    cert = " ".join("".join(p.extract_text() for p in
                            PdfReader(out / "certification.pdf").pages).split())
    assert "subject.gpkg" not in cert and "QGIS layer 'Sites'" in cert


def test_an_input_label_for_an_input_the_command_does_not_take_is_refused(tmp_path, capsys):
    toml = _town(tmp_path / "town")
    assert main(["--progress", "json", "abutters", "-c", str(toml), "-p", "M_S", "-o",
                 str(tmp_path / "out"), "--input-label=common_plan=x"]) == 2
    assert "NAME one of site" in _error(capsys.readouterr().err)["message"]
    assert not (tmp_path / "out").exists()

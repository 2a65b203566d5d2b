"""``swm-gis demo`` never deletes or replaces anything it did not write; ``--help`` is clean."""

from __future__ import annotations

import json
import re
import shutil
import sys
import types

import pytest
from support.townkit import REPO

from swm_gis.cli import main
from swm_gis.cli.demo import MARKER, demo_outputs, demo_steps

STEPS = [name for _, name, _ in demo_steps()]


@pytest.fixture
def fake_report(monkeypatch):
    """Stand-in for the screening report writer (tested in
    tests/reports/test_screening_report.py)."""
    def write_screening_report(document, layers, out_dir, *, received=None):
        paths = {"html": out_dir / "screening_report.html", "pdf": out_dir / "screening_report.pdf"}
        for path in paths.values():
            path.write_text("report", encoding="utf-8")
        return paths

    module = types.ModuleType("swm_gis.reports.screening_report")
    module.write_screening_report = write_screening_report
    monkeypatch.setitem(sys.modules, "swm_gis.reports.screening_report", module)


@pytest.fixture
def steps_copy_the_session_demo(sample_demo, monkeypatch):
    """Each step "writes" what the session's demo wrote (tests/support/sample_demo.py runs the
    real steps once): these tests are about the demo's folder (what it keeps, replaces, records),
    not about the jobs, so they need not recompute the sample town three more times."""
    for _, name, run in demo_steps():
        def copied(config_path, out_dir, name=name):
            shutil.copytree(sample_demo.out / name, out_dir, dirs_exist_ok=True)
            return [f"copied from the session's demo: {name}"]

        monkeypatch.setattr(sys.modules[run.__module__], "run_demo", copied)


def demo(out) -> int:
    return main(["--progress", "none", "demo", "--out", str(out)])


def test_demo_keeps_the_users_files_and_reruns_over_its_own(tmp_path,
                                                            steps_copy_the_session_demo):
    out = tmp_path / "demo"
    out.mkdir()
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    (out / "abutters").mkdir()
    (out / "abutters" / "letter.docx").write_bytes(b"mine too")
    assert demo(out) == 0
    assert (out / "notes.txt").read_text(encoding="utf-8") == "mine"
    assert (out / "abutters" / "letter.docx").read_bytes() == b"mine too"
    record = json.loads((out / MARKER).read_text(encoding="utf-8"))
    assert record["files"] == demo_outputs(STEPS)
    assert all((out / rel).is_file() for rel in record["files"])
    assert demo(out) == 0  # its own files from the first run are replaced
    assert (out / "notes.txt").read_text(encoding="utf-8") == "mine"


def test_demo_refuses_to_replace_a_file_it_did_not_write(tmp_path, capsys, fake_report):
    out = tmp_path / "demo"
    (out / "abutters").mkdir(parents=True)
    (out / "abutters" / "labels.pdf").write_bytes(b"the user's labels")
    assert demo(out) == 2
    assert "labels.pdf" in capsys.readouterr().err
    assert (out / "abutters" / "labels.pdf").read_bytes() == b"the user's labels"
    assert sorted(p.name for p in out.rglob("*")) == ["abutters", "labels.pdf"]


@pytest.mark.parametrize("record", ["not json", '{"files": ["abutters/labels.pdf"]}', "[]"])
def test_demo_refuses_a_record_it_did_not_write(tmp_path, record, fake_report):
    out = tmp_path / "demo"
    out.mkdir()
    (out / MARKER).write_text(record, encoding="utf-8")
    assert demo(out) == 2
    assert (out / MARKER).read_text(encoding="utf-8") == record
    assert [p.name for p in out.iterdir()] == [MARKER]


def test_demo_refuses_a_file_as_folder(tmp_path, fake_report):
    (tmp_path / "demo").write_text("a file", encoding="utf-8")
    assert demo(tmp_path / "demo") == 2
    (tmp_path / "d2").mkdir()
    (tmp_path / "d2" / "screen").write_text("a file where a folder goes", encoding="utf-8")
    assert demo(tmp_path / "d2") == 2
    assert (tmp_path / "d2" / "screen").read_text(encoding="utf-8") == "a file where a folder goes"


def test_demo_into_the_current_folder(tmp_path, monkeypatch, steps_copy_the_session_demo):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "README.txt").write_text("mine", encoding="utf-8")
    assert demo(".") == 0
    assert (tmp_path / "README.txt").read_text(encoding="utf-8") == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [MARKER, "README.txt", *STEPS])


@pytest.mark.parametrize("command", [[], ["screen"], ["abutters"], ["applicability"], ["publish"],
                                     ["demo"], ["data"], ["data", "validate"]])
def test_help_uses_plain_metavars_and_no_machine_paths(command, capsys):
    assert main([*command, "--help"]) == 0
    text = capsys.readouterr().out
    assert not re.search(r"<[a-z][a-z _\[\]|]*>", text), text
    assert "range>" not in text and "list[" not in text
    assert str(REPO) not in text and "/work/" not in text


def test_demo_where_says_where_the_sample_town_is_and_writes_nothing(tmp_path, capsys,
                                                                     monkeypatch):
    """Issue 35: ``demo --where`` (what the plugin's 'Load the sample town' asks) names the
    bundled sample's folder, config, its 15 layers (13 in sample.gpkg, 2 rasters) and the demo
    sites; with --progress json as one result line."""
    monkeypatch.chdir(tmp_path)
    assert main(["--progress", "json", "demo", "--where"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert (result["type"], result["command"]) == ("result", "demo --where")
    info = result["sample"]
    sample = (REPO / "data" / "sample").resolve()
    assert (info["folder"], info["config"]) == (str(sample), str(sample / "town.toml"))
    assert info["name"] == "Sampleton (SYNTHETIC)" and info["synthetic"] is True
    layers = {x["key"]: (x["path"], x["layer"]) for x in info["layers"]}
    assert len(layers) == 15
    assert layers["parcels"] == (str(sample / "sample.gpkg"), "parcels")
    assert layers["dem"] == (str(sample / "dem.tif"), None)
    assert sum(path.endswith("sample.gpkg") for path, _ in layers.values()) == 13
    assert info["sites"] == {"path": str(sample / "sites.gpkg"), "layers": [
        "site", "site_small", "common_plan", "proposed_impervious", "mitigation"]}
    assert list(tmp_path.iterdir()) == []  # nothing written, no demo run
    assert main(["--progress", "none", "demo", "--where"]) == 0
    text = capsys.readouterr().out
    assert f"Town config: {sample / 'town.toml'}" in text

import ast
from pathlib import Path

import pytest

from swm_gis.cli import main

PKG = Path(__file__).resolve().parents[2] / "swm_gis"


def test_no_module_in_the_core_imports_qgis():
    offenders = []
    for path in PKG.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [f"{path.relative_to(PKG)}: {n}" for n in names
                          if n == "qgis" or n.startswith("qgis.")]
    assert offenders == []


def test_help_lists_commands_and_every_command_has_an_example(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for command in ("demo", "data"):
        assert command in out
    import typer

    from swm_gis.cli import app
    group = typer.main.get_command(app)
    missing = []
    for name, cmd in group.commands.items():
        subs = getattr(cmd, "commands", {name: cmd})
        for sub_name, sub in subs.items():
            if "Example:" not in (sub.help or ""):
                missing.append(f"{name} {sub_name}")
    assert missing == []


def test_missing_config_is_exit_2_without_traceback(tmp_path, capsys):
    code = main(["--progress", "none", "data", "validate", "--config", str(tmp_path / "x.toml")])
    assert code == 2
    err = capsys.readouterr().err
    assert "Town config file not found" in err and "Traceback" not in err


def test_json_progress_reports_errors_as_json(tmp_path, capsys):
    import json

    code = main(["--progress", "json", "data", "validate", "--config", str(tmp_path / "x.toml")])
    assert code == 2
    line = capsys.readouterr().err.strip().splitlines()[-1]
    msg = json.loads(line)
    assert msg["type"] == "error" and msg["exit_code"] == 2
    assert "not found" in msg["message"]


@pytest.mark.parametrize("args", [["data", "validate"], ["nonsense"]])
def test_usage_errors_exit_2(args, capsys):
    assert main(args) == 2


def test_a_written_path_is_printed_whole_on_one_line(capsys):
    """A path longer than the terminal is one line (copied whole), never folded mid-name."""
    from swm_gis.cli._common import Reporter

    path = "/tmp/" + "a_rather_long_folder_name/" * 6 + "applicability.gpkg"
    Reporter().result("applicability", {"map": path})
    assert f"  {path}\n" in capsys.readouterr().out

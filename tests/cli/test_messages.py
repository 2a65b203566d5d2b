"""References in messages (swm_gis.messages): each front end words an error its own way.

The core names options and config keys by reference; ``str(error)`` reads in Python's words, the
command line in its flags, ``--progress json`` carries the parts. Worked by hand below.
"""

from __future__ import annotations

import ast
import json
import pickle
from pathlib import Path

import pytest

from swm_gis.cli import cli_flags, main
from swm_gis.cli.words import FLAGS, cli_words
from swm_gis.errors import ConfigError, SwmGisError
from swm_gis.messages import OPTIONS, SWITCHES, config_key, option, parts, references, town_config

PKG = Path(__file__).resolve().parents[2] / "swm_gis"


def test_one_message_three_vocabularies():
    err = ConfigError(f"Give {option('parcels', 'ID')} or {option('site', 'FILE')}; set "
                      f"{config_key('layers.parcels.fields', 'id')} in {town_config()}, or "
                      f"pass {option('overwrite')}.")
    assert str(err) == ("Give parcels= or site=; set [layers.parcels.fields] id in the town "
                        "config, or pass overwrite=True.")
    assert err.worded(cli_words) == ("Give --parcel ID or --site FILE; set "
                                     "[layers.parcels.fields] id in the town config, or pass "
                                     "--overwrite.")
    assert err.parts == ["Give ", {"option": "parcels", "metavar": "ID"}, " or ",
                         {"option": "site", "metavar": "FILE"}, "; set ",
                         {"key": "layers.parcels.fields", "name": "id"}, " in ", {"config": ""},
                         ", or pass ", {"option": "overwrite", "metavar": ""}, "."]
    assert json.loads(json.dumps(err.parts)) == err.parts


def test_plain_text_and_stray_brackets_stay_text():
    assert parts("no references here") == ["no references here"]
    assert parts("a \u27e8 lone bracket") == ["a \u27e8 lone bracket"]
    assert parts("\u27e8junk\u27e9 then " + option("out")) == [
        "\u27e8junk\u27e9 then ", {"option": "out", "metavar": ""}]
    assert references(config_key("rules")) == [{"key": "rules"}]
    assert SwmGisError("").parts == []


def test_wrapping_and_pickling_keep_the_references():
    inner = ConfigError(f"choose another {option('out', 'DIR')}")
    outer = ConfigError(f"Cannot write: {inner}")
    assert outer.worded(cli_words) == "Cannot write: choose another --out DIR"
    assert str(outer) == "Cannot write: choose another out="
    again = pickle.loads(pickle.dumps(outer))
    assert type(again) is ConfigError and again.template == outer.template
    assert str(again) == str(outer)
    assert ConfigError(inner).template == inner.template


def test_unknown_option_is_a_programming_error():
    with pytest.raises(KeyError, match="no option 'sitee'"):
        option("sitee")
    with pytest.raises(ValueError):
        config_key("")


def test_every_option_has_a_real_flag():
    flags = cli_flags()
    assert set(FLAGS) == set(OPTIONS)
    assert set(SWITCHES) <= set(OPTIONS)
    missing = {name: flag for name, flag in FLAGS.items() if flag not in flags}
    assert missing == {}


def test_every_option_reference_in_the_core_names_a_known_option():
    """A typo in ``option("...")`` would only fail when that error is raised: check them all."""
    bad = []
    for path in PKG.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "option" \
                    and node.args and isinstance(node.args[0], ast.Constant) \
                    and node.args[0].value not in OPTIONS:
                bad.append(f"{path.relative_to(PKG)}:{node.lineno} {node.args[0].value}")
    assert bad == []


def test_json_progress_carries_the_error_class_and_parts(tmp_path, capsys):
    code = main(["--progress", "json", "screen", "--config", str(tmp_path / "nope.toml"),
                 "--site", "x.gpkg", "--out", str(tmp_path / "out")])
    assert code == 2
    err = capsys.readouterr().err
    events = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    error = [e for e in events if e["type"] == "error"][-1]
    assert error["error"] == "ConfigError"
    assert "".join(p if isinstance(p, str) else cli_words(p) for p in error["parts"]) \
        == error["message"]
    assert {"option": "config", "metavar": "FILE"} in error["parts"]
    assert error["message"].endswith("nope.toml. Pass --config FILE with a TOML file.")

"""Adversarial town configs, through the command line: each is exit 2 with one message naming the
section, key or value and the fix (a did-you-mean for typos), never a traceback; the inputs are
unchanged and nothing is left behind."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.hostile import SUBJECT, assert_refused, edit, hashes, leftovers, run, sample_copy
from support.townkit import SAMPLE_CONFIG

from swm_gis.config.town import load_config
from swm_gis.errors import SwmGisError

TOWN = ('[town]\nname = "Sampleton (SYNTHETIC)"\ncrs = "EPSG:26986"\nsynthetic = true\n'
        "# The sample town has no MS4 layer; it states that all of its land drains to its MS4 "
        "(the\n# screening prints this as the town's assumption; without it the permit would be "
        "conditional).\nall_land_drains_to_ms4 = true\n"
        "# The regulation the outputs apply (swm-gis regulation list); a sample town borrows "
        "Lynnfield's.\nregulation = \"lynnfield-ch320\"")
PARCELS = '[layers.parcels]\npath = "sample.gpkg"\nlayer = "parcels"'
BOUNDARY = '[layers.town_boundary]\npath = "sample.gpkg"\nlayer = "town_boundary"'


def _append(text):
    return lambda toml: toml.write_text(toml.read_text(encoding="utf-8") + text,
                                        encoding="utf-8")


def _replace(old, new):
    return lambda toml: edit(toml, old, new)


def _write_bytes(data):
    return lambda toml: toml.write_bytes(data)


CASES = {
    "rule-for-rules": (_append("\n[rule]\nabutter_distance_ft = 300\n"),
                       ['unknown section(s) rule', 'Did you mean "rules"?']),
    "layr-typo": (_replace(BOUNDARY, BOUNDARY.replace("layer =", "layr =")),
                  ["unknown key(s) layr in [layers.town_boundary]", 'Did you mean "layer"?']),
    "town-is-a-string": (_replace(TOWN, 'town = "Sampleton"'),
                         ["[town] must be a table", "'Sampleton'"]),
    "field-mapped-to-integer": (_replace(PARCELS, PARCELS + "\n[layers.parcels.fields]\nid = 12"),
                                ["[layers.parcels.fields] id = 12 must be a text value"]),
    "distance-inf": (_append("\n[rules]\nabutter_distance_ft = inf\n"),
                     ["[rules] abutter_distance_ft = inf must be a finite number from 0 to "
                      "5280 ft"]),
    "distance-nan": (_append("\n[rules]\nhabitat_distance_ft = nan\n"),
                     ["habitat_distance_ft = nan must be a finite number"]),
    "huc99": (_append('\n[rules]\nmitigation_huc_new = "HUC99"\n'),
              ["mitigation_huc_new = 'HUC99' must be one of \"HUC10\", \"HUC12\""]),
    "percent-for-fraction": (_append("\n[rules]\ntss_removal_new = 90\n"),
                             ["tss_removal_new = 90 must be a finite number from 0 to 1"]),
    "rule-typo": (_append("\n[rules]\nabutter_distance = 300\n"),
                  ['Did you mean "abutter_distance_ft"?']),
    "crs-integer": (_replace('crs = "EPSG:26986"', "crs = 26986"),
                    ["[town] crs = 26986 must be a text value"]),
    "crs-geographic": (_replace('crs = "EPSG:26986"', 'crs = "EPSG:4326"'),
                       ["is geographic (degrees)"]),
    "crs-unknown": (_replace('crs = "EPSG:26986"', 'crs = "EPSG:0"'), ['unknown CRS "EPSG:0"']),
    "synthetic-text": (_replace("synthetic = true", 'synthetic = "yes"'),
                       ["[town] synthetic = 'yes' must be true or false"]),
    "unknown-top-key": (_replace(TOWN, "version = 2\n" + TOWN),
                        ["unknown section(s) version in the top level"]),
    "unknown-layer": (_append('\n[layers.parcel_lines]\npath = "sample.gpkg"\n'),
                      ["unknown layer(s) parcel_lines"]),
    "path-integer": (_replace('path = "sample.gpkg"\nlayer = "parcels"',
                              'path = 5\nlayer = "parcels"'),
                     ["[layers.parcels] path = 5 must be a file or GDAL source"]),
    "path-empty-list": (_replace('path = "sample.gpkg"\nlayer = "parcels"',
                                 'path = []\nlayer = "parcels"'),
                        ['[layers.parcels] needs path = "..."']),
    "logical-field-typo": (_replace(PARCELS, PARCELS + '\n[layers.parcels.fields]\nidd = "X"'),
                           ['unknown logical field(s) idd', 'Did you mean "id"?']),
    "no-name": (_replace('name = "Sampleton (SYNTHETIC)"\n', ""), ["has no [town] name"]),
    "duplicate-key": (_replace(TOWN, TOWN + '\nname = "Again"'), ["is not valid TOML"]),
    "not-utf8": (_write_bytes(b'[town]\nname = "\xff\xfe"\n'), ["is not valid TOML"]),
    "empty-file": (_write_bytes(b""), ["has no [town] name"]),
    "missing-layer-file": (_replace('path = "dem.tif"', 'path = "nowhere/dem.tif"'),
                           ["File not found", "dem.tif"]),
    "layer-crs-unknown": (_replace(PARCELS, PARCELS + '\ncrs = "EPSG:999999"'),
                          ['unknown CRS "EPSG:999999" in [layers.parcels] crs']),
}


@pytest.mark.parametrize("case", list(CASES))
def test_data_validate_refuses_the_config(tmp_path, capsys, case):
    toml = sample_copy(tmp_path)
    breaker, fragments = CASES[case]
    breaker(toml)
    before = hashes(toml.parent)
    code, text = run(["data", "validate", "--config", str(toml)], capsys)
    assert_refused(code, " ".join(text.split()), *fragments)
    assert hashes(toml.parent) == before
    assert leftovers(toml.parent) == []


@pytest.mark.parametrize("case", ["distance-inf", "huc99", "town-is-a-string",
                                  "field-mapped-to-integer", "layr-typo"])
def test_every_command_refuses_the_config_before_writing(tmp_path, capsys, case):
    toml = sample_copy(tmp_path)
    breaker, fragments = CASES[case]
    breaker(toml)
    before = hashes(toml.parent)
    site = str(toml.parent / "sites.gpkg")
    for args in (["abutters", "-c", str(toml), "-p", SUBJECT, "-o", str(tmp_path / "a")],
                 ["screen", "-c", str(toml), "--site", site, "-o", str(tmp_path / "s")],
                 ["applicability", "-c", str(toml), "-o", str(tmp_path / "m.gpkg")]):
        code, text = run(args, capsys)
        assert_refused(code, " ".join(text.split()), *fragments)
    assert hashes(toml.parent) == before
    assert not any((tmp_path / name).exists() for name in ("a", "s", "m.gpkg"))
    assert leftovers(toml.parent, tmp_path) == []


# --------------------------------------------------------------------------- property
_TEXT = SAMPLE_CONFIG.read_text(encoding="utf-8")


@st.composite
def _mangled(draw):
    """The sample config with a few characters deleted, inserted or replaced."""
    text = _TEXT
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(text)))
        op = draw(st.sampled_from(["delete", "insert", "replace"]))
        piece = draw(st.sampled_from(['"', "=", "[", "]", "\n", "inf", "nan", "1e999", "-1",
                                      "x", "true", "[]", "{}", "'", "0", ".", "_"]))
        if op == "delete":
            text = text[:i] + text[i + draw(st.integers(1, 12)):]
        elif op == "insert":
            text = text[:i] + piece + text[i:]
        else:
            text = text[:i] + piece + text[i + len(piece):]
    return text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(text=_mangled())
def test_mangled_config_text_is_read_or_refused_never_a_crash(tmp_path, text):
    toml = tmp_path / "town.toml"
    toml.write_text(text, encoding="utf-8")
    try:
        cfg = load_config(toml)
    except SwmGisError as exc:
        assert str(exc) and "Traceback" not in str(exc)
        return
    assert cfg.name and cfg.layers["parcels"].path

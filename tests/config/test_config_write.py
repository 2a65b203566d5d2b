"""``swm-gis config write`` / :func:`swm_gis.write_config`: a town config given as data (JSON, the
TOML's model) checked by the engine's own loader and written as TOML; ``load_config`` reads the
JSON too; the schema's text fields refuse numeric columns (issue 35)."""

from __future__ import annotations

import dataclasses
import io
import json
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.hostile import hashes, sample_copy

import swm_gis
from swm_gis.cli import main
from swm_gis.config.schema import SCHEMAS, field_kind_problem, is_numeric_dtype
from swm_gis.config.town import load_config, parse_config
from swm_gis.errors import ConfigError
from swm_gis.io.config_file import config_summary, config_text
from swm_gis.messages import config_key


def _same(a, b) -> None:
    """Two loaded configs are the same town, rules and layers (their files differ)."""
    assert dataclasses.replace(a, path=None) == dataclasses.replace(b, path=None)


def _sample_data(toml: Path) -> dict:
    return tomllib.loads(toml.read_text(encoding="utf-8"))


def _run(args: list[str], capsys, *, stdin: str | None = None, monkeypatch=None) -> tuple:
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(["--progress", "json", *args])
    captured = capsys.readouterr()
    events = [json.loads(line) for line in (captured.out + captured.err).splitlines()
              if line.startswith("{")]
    return code, events


def test_json_to_toml_round_trip_loads_the_same_town(tmp_path, capsys):
    toml = sample_copy(tmp_path)
    given_json = toml.parent / "given.json"
    given_json.write_text(json.dumps(_sample_data(toml)), encoding="utf-8")
    out = toml.parent / "written.toml"
    code, events = _run(["config", "write", str(given_json), "--out", str(out)], capsys)
    assert code == 0, events
    assert events[-1]["command"] == "config write"
    assert events[-1]["outputs"] == {"config": str(out)}
    # the sample town has 15 layers: parcels, assess, 3 habitat layers, flood zones, 2 HUCs, ORW,
    # impaired waters, streams, water bodies, boundary, DEM, impervious
    assert events[-1]["summary"] == ["15 layer(s) checked."]
    _same(load_config(out), load_config(toml))
    _same(load_config(given_json), load_config(toml))  # the JSON is a town config too
    assert _sample_data(out) == _sample_data(toml)


def test_standard_input_and_the_comment_lines(tmp_path, capsys, monkeypatch):
    toml = sample_copy(tmp_path)
    data = {"town": {"name": "Sampleton", "crs": "EPSG:26986"},
            "rules": {"abutter_distance_ft": 150.0},
            "layers": {"parcels": {"path": "sample.gpkg", "layer": "parcels",
                                   "right_of_way": {"field": "POLY_TYPE", "values": ["ROW"]}}}}
    out = toml.parent / "small.toml"
    code, events = _run(["config", "write", "--out", str(out), "--comment", "one\ntwo"], capsys,
                        stdin=json.dumps(data), monkeypatch=monkeypatch)
    assert code == 0, events
    text = out.read_text(encoding="utf-8")
    assert text.startswith("# one\n# two\n\n[town]\n")
    cfg = load_config(out)
    assert cfg.rules.abutter_distance_ft == 150.0
    assert cfg.rules.right_of_way.describe() == "POLY_TYPE = ROW"
    assert tomllib.loads(text) == data


def test_an_existing_file_is_kept_unless_overwrite(tmp_path, capsys):
    toml = sample_copy(tmp_path)
    data = json.dumps({"town": {"name": "A"}, "layers": {"parcels": {
        "path": "sample.gpkg", "layer": "parcels"}}})
    src = toml.parent / "a.json"
    src.write_text(data, encoding="utf-8")
    before = toml.read_bytes()
    code, events = _run(["config", "write", str(src), "--out", str(toml)], capsys)
    assert code == 2
    assert events[-1]["message"] == (f"Output already exists: {toml}. Choose another --out or "
                                     "pass --overwrite to replace it; nothing was written.")
    assert toml.read_bytes() == before
    assert _run(["config", "write", str(src), "--out", str(toml), "--overwrite"],
                capsys)[0] == 0
    assert load_config(toml).name == "A"


@pytest.mark.parametrize(("edit", "message"), [
    ({"layers": {"parcels": {"path": "sample.gpkg", "layer": "parcels"},
                 "assess": {"path": "sample.gpkg", "layer": "assess",
                            "fields": {"ownr": "OWNER1"}}}},
     "{where}: [layers.assess.fields] names unknown logical field(s) ownr. Did you mean "
     "\"owner\"? Known for assess: parcel_id, prop_id, site_address, owner, co_owner, address, "
     "address2, city, state, zip, country, use_code, fiscal_year, units."),
    ({"rules": {"abutter_distance_ft": -5}},
     "{where}: [rules] abutter_distance_ft = -5 must be a finite number from 0 to 5280 ft "
     "(default, from the regulation profile or swm-gis's built-in rule values: 100.0)."),
    ({"layers": {"parcels": {"path": "sample.gpkg", "layer": None}}},
     "{where}: [layers.parcels] layer = None must be a text value in quotes, or a list of "
     "them (one per path)."),
    ({"layers": {"parcels": {"path": "missing.gpkg"}}},
     "File not found: {folder}/missing.gpkg ([layers.parcels] path). Check the path; config "
     "paths are relative to the config file."),
])
def test_a_bad_config_exits_2_naming_the_key_and_writes_nothing(tmp_path, capsys, edit,
                                                                  message):
    toml = sample_copy(tmp_path)
    data = {"town": {"name": "A"}, "layers": {"parcels": {"path": "sample.gpkg",
                                                          "layer": "parcels"}}, **edit}
    src = tmp_path / "bad.json"
    src.write_text(json.dumps(data), encoding="utf-8")
    out = toml.parent / "bad.toml"
    before = hashes(toml.parent)
    code, events = _run(["config", "write", str(src), "--out", str(out)], capsys)
    assert code == 2
    want = message.format(where=f"the town config {out}", folder=toml.parent)
    assert events[-1]["message"] == want
    assert hashes(toml.parent) == before  # nothing written, nothing left


def _numeric(tmp_path, logical: str, column: str) -> Path:
    """The sample town with the assessing table's ``logical`` field mapped to ``column``."""
    toml = sample_copy(tmp_path)
    text = toml.read_text(encoding="utf-8")
    assert 'co_owner = "OWNER2"\n' in text  # the sample's one mapped assessing field
    toml.write_text(text.replace('co_owner = "OWNER2"\n',
                                 f'co_owner = "OWNER2"\n{logical} = "{column}"\n'
                                 if logical != "co_owner" else f'co_owner = "{column}"\n'),
                    encoding="utf-8")
    return toml


#: The refusals, exactly: TOTAL_VAL (int64) as the owner, FY (int64) as the ZIP code.
OWNER_NUMERIC = ("The owner's name must be text, but [layers.assess.fields] owner = "
                 '"TOTAL_VAL" names a numeric field (int64) of {folder}/sample.gpkg:assess. Name '
                 "a text field there, or store TOTAL_VAL as text in the source.")
ZIP_NUMERIC = ("The owner's ZIP code must be text (a number loses its leading zeros: \"01940\" "
               'becomes 1940), but [layers.assess.fields] zip = "FY" names a numeric field '
               "(int64) of {folder}/sample.gpkg:assess. Name a text field there, or store FY as "
               "text in the source.")


@pytest.mark.parametrize(("logical", "column", "message"), [
    ("owner", "TOTAL_VAL", OWNER_NUMERIC), ("zip", "FY", ZIP_NUMERIC)])
def test_a_numeric_column_as_a_text_field_is_refused_everywhere(tmp_path, capsys, logical,
                                                                column, message):
    toml = _numeric(tmp_path, logical, column)
    want = message.format(folder=toml.parent)
    # config write: refused before anything is written
    src = toml.parent / "numeric.json"
    src.write_text(json.dumps(_sample_data(toml)), encoding="utf-8")
    code, events = _run(["config", "write", str(src), "--out", str(toml.parent / "n.toml")],
                        capsys)
    assert (code, events[-1]["message"], events[-1]["parts"][1]) == (
        2, want, {"key": "layers.assess.fields", "name": logical})
    assert not (toml.parent / "n.toml").exists()
    # data validate: the assessing table's line says it; the other 14 layers pass
    code, events = _run(["data", "validate", "--config", str(toml)], capsys)
    assert code == 2
    assert events[-1]["message"] == f"Data validation failed:\n- assess: {want}"
    # a job that reads the owners: the same refusal
    code, events = _run(["abutters", "--config", str(toml), "--parcel", "M_236682_917765",
                         "--out", str(tmp_path / "out")], capsys)
    assert (code, events[-1]["message"]) == (2, want)
    assert not (tmp_path / "out").exists()


def test_text_columns_and_unmapped_fields_pass(tmp_path):
    """The sample's own mapping (every text field a text column; address2 unmapped) passes, and
    a numeric column is fine where the schema asks no text (FY as the fiscal year)."""
    from swm_gis.io.config_file import check_sources

    check_sources(load_config(sample_copy(tmp_path)))


def test_config_show_gives_the_loaders_reading(capsys):
    from support.townkit import SAMPLE_CONFIG

    code, events = _run(["config", "show", "--config", str(SAMPLE_CONFIG)], capsys)
    assert code == 0
    shown = events[-1]["config"]
    assert shown == json.loads(json.dumps(config_summary(SAMPLE_CONFIG)))
    assert shown["name"] == "Sampleton (SYNTHETIC)"
    parcels = shown["layers"]["parcels"]
    assert parcels["sources"] == [{"path": str(SAMPLE_CONFIG.parent / "sample.gpkg"),
                                   "layer": "parcels"}]
    assert parcels["fields"]["id"] == "LOC_ID"
    assert shown["layers"]["assess"]["fields"]["country"] == "OWN_CO"  # MassGIS L3: the country


def test_the_api_writes_what_the_command_writes(tmp_path):
    toml = sample_copy(tmp_path)
    data = _sample_data(toml)
    out = swm_gis.write_config(data, toml.parent / "api.toml")
    assert out.read_text(encoding="utf-8") == config_text(data)
    _same(load_config(out), load_config(toml))


def test_a_broken_json_config_is_refused_naming_the_file(tmp_path):
    path = tmp_path / "town.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"town.json is not valid JSON: Expecting"):
        load_config(path)


_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1,
                max_size=20).filter(lambda s: s.strip() == s and s)


@settings(max_examples=40, deadline=None)
@given(name=_text, label=_text, distance=st.floats(0, 5280, allow_nan=False),
       share=st.floats(0, 1), count=st.integers(1, 10_000),
       zones=st.lists(st.sampled_from(["A", "AE", "VE", "X"]), min_size=1, unique=True))
def test_any_valid_config_reads_back_as_given(name, label, distance, share, count, zones):
    """Property: whatever a valid config holds (names with quotes, backslashes, any script;
    rule values anywhere in their range), the TOML written reads back to the same config."""
    data = {"town": {"name": name, "crs": "EPSG:26986"},
            "rules": {"abutter_distance_ft": distance, "owner_join_min_share": share,
                      "abutter_warning_count": count, "sfha_zones": sorted(zones)},
            "layers": {"parcels": {"path": "p.gpkg", "label": label,
                                   "fields": {"id": name}}}}
    base = Path("/data")
    text = config_text(data)
    assert tomllib.loads(text) == data
    _same(parse_config(tomllib.loads(text), base_dir=base), parse_config(data, base_dir=base))


_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint32", "float32", "float64", "object",
           "bool", "datetime64[ms]"]


@settings(max_examples=60, deadline=None)
@given(kinds=st.dictionaries(st.sampled_from(sorted(SCHEMAS["assess"].fields)),
                             st.sampled_from(_DTYPES), min_size=1))
def test_a_mapping_is_refused_exactly_when_a_text_field_is_a_number(kinds):
    """Property: the assessing table's mapping is refused iff some field the schema says is
    text maps to an int/uint/float column, and the refusal names the first such field's key
    (in the schema's order); ids, use codes, the fiscal year and units may be numbers."""
    spec = parse_config({"town": {"name": "A"}, "layers": {
        "parcels": {"path": "p.gpkg"}, "assess": {"path": "a.csv", "fields": {
            logical: f"COL_{logical.upper()}" for logical in sorted(kinds)}}}},
        base_dir=Path("/data")).layers["assess"]
    fields = [f"col_{logical}" for logical in kinds]  # matched case-insensitively
    problem = field_kind_problem(spec, fields, list(kinds.values()))
    numeric_text = [k for k in SCHEMAS["assess"].fields if k in kinds
                    and k in SCHEMAS["assess"].text_fields and is_numeric_dtype(kinds[k])]
    if not numeric_text:
        assert problem is None
    else:
        first = numeric_text[0]
        what = SCHEMAS["assess"].text_fields[first]
        assert problem.startswith(f"{what[0].upper()}{what[1:]} must be text")
        assert problem.endswith(
            f'{config_key("layers.assess.fields", first)} = "col_{first}" names a numeric '
            f"field ({kinds[first]}) of /data/a.csv. Name a text field there, or store "
            f"col_{first} as text in the source.")

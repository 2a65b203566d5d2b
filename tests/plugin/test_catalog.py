"""The QGIS plugin cannot import swm_gis (it runs the engine out of process), so its parameter
catalog is a data file generated from the engine's config schema at build time
(scripts/gen_plugin_catalog.py): the file in the checkout is what the script writes now, and the
Processing parameter names (the plugin's contract with models and scripts) never change."""

import ast
import importlib.util
import json
import sys

from support.plugin_kit import ROOT

from swm_gis.config.schema import SCHEMAS

CATALOG_FILE = ROOT / "qgis_plugin" / "swm_gis_qgis" / "catalog.py"
GEN = ROOT / "scripts" / "gen_plugin_catalog.py"


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while being built
    spec.loader.exec_module(module)
    return module


def test_the_generated_file_is_what_the_script_writes_now():
    gen = _load(GEN, "gen_plugin_catalog")
    assert gen.TARGET.read_text(encoding="utf-8") == gen.catalog_text()
    assert gen.main(["--check"]) == 0


def test_a_stale_file_is_found_and_rewritten(tmp_path, monkeypatch, capsys):
    gen = _load(GEN, "gen_plugin_catalog_stale")
    stale = tmp_path / "catalog_data.json"
    stale.write_text("{}", encoding="utf-8")
    monkeypatch.setattr(gen, "TARGET", stale)
    assert gen.main(["--check"]) == 1
    assert "is out of date: run scripts/gen_plugin_catalog.py" in capsys.readouterr().err
    assert gen.main([]) == 0
    assert stale.read_text(encoding="utf-8") == gen.catalog_text()
    assert gen.write(stale) is False  # the same text is not written again


#: The plugin's contract: every layer and field parameter name, as QGIS models, qgis_process
#: scripts and saved dialogs use them (the names of the hand-kept catalog this file replaced).
PARAMS = {
    "parcels": ("PARCELS", ["PARCEL_ID_FIELD", "MAP_PAR_ID_FIELD", "TOWN_ID_FIELD",
                            "POLY_TYPE_FIELD", "PARCEL_USE_CODE_FIELD"]),
    "assess": ("ASSESS", ["ASSESS_PARCEL_ID_FIELD", "OWNER_FIELD", "CO_OWNER_FIELD",
                          "OWNER_ADDRESS_FIELD", "OWNER_ADDRESS2_FIELD", "OWNER_CITY_FIELD",
                          "OWNER_STATE_FIELD", "OWNER_ZIP_FIELD", "OWNER_COUNTRY_FIELD",
                          "SITE_ADDRESS_FIELD", "PROP_ID_FIELD", "USE_CODE_FIELD",
                          "FISCAL_YEAR_FIELD"]),
    "nhesp_priority": ("PRIORITY_HABITATS", ["PRIORITY_ID_FIELD"]),
    "nhesp_estimated": ("ESTIMATED_HABITATS", ["ESTIMATED_ID_FIELD"]),
    "vernal_pools": ("VERNAL_POOLS", ["VERNAL_POOL_ID_FIELD"]),
    "flood_zones": ("FLOOD_ZONES", ["FLOOD_ZONE_FIELD", "FLOOD_SUBTYPE_FIELD", "SFHA_FIELD",
                                    "BFE_FIELD"]),
    "huc10": ("HUC10", ["HUC10_FIELD", "HUC10_NAME_FIELD"]),
    "huc12": ("HUC12", ["HUC12_FIELD", "HUC12_NAME_FIELD"]),
    "orw": ("ORW", ["ORW_ID_FIELD", "ORW_NAME_FIELD"]),
    "impaired_waters": ("IMPAIRED_WATERS", ["IMPAIRED_ID_FIELD", "IMPAIRED_NAME_FIELD",
                                            "IMPAIRED_CATEGORY_FIELD", "IMPAIRED_CAUSES_FIELD",
                                            "IMPAIRED_TMDL_FIELD"]),
    "streams": ("STREAMS", ["STREAM_ID_FIELD"]),
    "waterbodies": ("WATERBODIES", ["WATERBODY_NAME_FIELD"]),
    "town_boundary": ("TOWN_BOUNDARY", []),
    "streets": ("STREETS", ["STREET_NAME_FIELD"]),
    "dem": ("DEM", []),
    "impervious": ("IMPERVIOUS", []),
    "ms4": ("MS4", ["MS4_ID_FIELD"]),
}


def test_the_parameter_names_are_the_plugins_contract():
    catalog = _load(CATALOG_FILE, "swm_gis_qgis_catalog").CATALOG
    assert {k: (li.param, [f.param for f in li.fields]) for k, li in catalog.items()} == PARAMS


def test_the_catalog_reads_the_engine_schema():
    """Defaults, required and text fields are the engine's; the assessing fields keep the
    dialog's order (owner right after the parcel id), which differs from the schema's."""
    catalog = _load(CATALOG_FILE, "swm_gis_qgis_catalog2").CATALOG
    for key, layer in catalog.items():
        schema = SCHEMAS[key]
        assert layer.description == schema.label and layer.help == schema.help
        for f in layer.fields:
            assert (f.default or None) == schema.fields[f.logical], (key, f.logical)
            assert f.required == (f.logical in schema.required_fields), (key, f.logical)
            assert f.text == (f.logical in schema.text_fields), (key, f.logical)
    assert [f.logical for f in catalog["assess"].fields][:3] == ["parcel_id", "owner", "co_owner"]
    assert [f.logical for f in catalog["assess"].fields if f.text] == [
        "owner", "co_owner", "address", "address2", "city", "state", "zip", "country",
        "site_address"]
    assert "condo_units" not in catalog  # a layer the dialogs do not offer (no param)
    assert [f.logical for f in catalog["parcels"].fields if not f.advanced] == ["id"]


# --------------------------------------------------------------------------- engine choices
PLUGIN_PKG = ROOT / "qgis_plugin" / "swm_gis_qgis"
DATA_FILE = PLUGIN_PKG / "catalog_data.json"


def catalog_lists(node) -> list[frozenset[str]]:
    """Every list of strings in the catalog data as a set: plain lists of strings, and, for a
    list of objects, the strings of each key across its objects (the choices' values, their
    labels, ...). Sets of one member say nothing and are left out."""
    found: list[frozenset[str]] = []
    if isinstance(node, dict):
        for value in node.values():
            found += catalog_lists(value)
    elif isinstance(node, list):
        if node and all(isinstance(v, str) for v in node):
            found.append(frozenset(node))
        if node and all(isinstance(v, dict) for v in node):
            for key in {k for v in node for k in v}:
                found.append(frozenset(v[key] for v in node if isinstance(v.get(key), str)))
        for value in node:
            found += catalog_lists(value)
    return [s for s in found if len(s) >= 2]


def _strings(node) -> list[str] | None:
    """The constant strings of a literal element (a string, or a tuple/list of them)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List)) and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
        return [e.value for e in node.elts]
    return None


def literal_sets(source: str) -> list[tuple[int, frozenset[str]]]:
    """(line, set) for each literal list, tuple, set or dict of a module holding 3 or more
    strings: the set of its strings, or for rows (tuples of strings) each column's set; for a
    dict its keys' and its string values' sets."""
    out: list[tuple[int, frozenset[str]]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            rows = [_strings(e) for e in node.elts]
            if not rows or any(r is None for r in rows) or sum(map(len, rows)) < 3:
                continue
            for col in range(max(map(len, rows))):
                out.append((node.lineno, frozenset(r[col] for r in rows if len(r) > col)))
        elif isinstance(node, ast.Dict):
            keys = [k.value for k in node.keys
                    if isinstance(k, ast.Constant) and isinstance(k.value, str)]
            vals = [v.value for v in node.values
                    if isinstance(v, ast.Constant) and isinstance(v.value, str)]
            if len(keys) + len(vals) >= 3:
                out += [(node.lineno, frozenset(keys)), (node.lineno, frozenset(vals))]
    return out


def engine_table_copies() -> dict[str, list[int]]:
    """Plugin modules (relative path -> lines) holding a literal that equals, as a set, a list
    of the generated catalog data."""
    tables = set(catalog_lists(json.loads(DATA_FILE.read_text(encoding="utf-8"))))
    copies: dict[str, list[int]] = {}
    for path in sorted(PLUGIN_PKG.rglob("*.py")):
        lines = [line for line, s in literal_sets(path.read_text(encoding="utf-8"))
                 if s in tables]
        if lines:
            copies[path.relative_to(PLUGIN_PKG).as_posix()] = sorted(set(lines))
    return copies


def test_the_scanner_finds_a_copied_table_in_any_literal_form():
    tables = set(catalog_lists({"choices": {"sorts": [{"value": "owner", "label": "Owner"},
                                                      {"value": "street", "label": "Street"}]},
                                "ids": ["a", "b", "c"], "one": ["x"]}))
    # the values, the labels and the plain list; a list of one says nothing
    assert tables == {frozenset({"owner", "street"}), frozenset({"Owner", "Street"}),
                      frozenset({"a", "b", "c"})}
    source = ('X = ["c", "b", "a"]\n'                         # 1: a reordered copy
              'Y = [("owner", "Owner"), ("street", "S")]\n'  # 2: column 0 is the values
              'Z = {"a": 1, "b": 2, "c": 3}\n'                # 3: the keys
              'W = ("a", "b")\n'                              # 4: two strings: not a table
              'V = ["a", "b", "c", "d"]\n')                   # 5: another set
    found = [line for line, s in literal_sets(source) if s in tables]
    assert found == [1, 2, 3]


def test_the_catalog_holds_the_engine_s_choices():
    from swm_gis.config.regulation import DEFAULT_ID, bundled_ids, read_regulation
    from swm_gis.notification.notice import NOTICES, SORTS
    from swm_gis.reports.labels import SHEETS
    from swm_gis.screening.finding_parts import STATUSES
    from swm_gis.screening.request import DEVELOPMENT_CHOICES
    from swm_gis.screening.wording import FINDING_KEYS

    cat = _load(CATALOG_FILE, "swm_gis_qgis_catalog3")
    assert cat.values("label_templates") == list(SHEETS) == ["5160", "5161", "5162", "5163"]
    assert cat.labels("label_templates")[0] == "Avery 5160: 30 per sheet, 2.625 x 1 in"
    assert cat.values("notices") == list(NOTICES)
    assert cat.values("sorts") == ["", *SORTS]  # "": none asked, nearest first (the default)
    assert cat.values("development") == list(DEVELOPMENT_CHOICES)
    newest = read_regulation(DEFAULT_ID).versions[-1]
    assert cat.values("exemptions") == [e.key for e in newest.exemptions]
    assert [c.citation for c in cat.CHOICES["exemptions"]] == \
        [e.citation for e in newest.exemptions]
    assert {"default": DEFAULT_ID, "bundled": bundled_ids()} == cat.REGULATIONS
    assert cat.FINDING_KEYS == FINDING_KEYS and cat.FINDING_STATUSES == STATUSES


def test_no_plugin_module_holds_a_copy_of_an_engine_table():
    """The dialogs read the engine's lists from the generated catalog (catalog.CHOICES): a
    literal equal to one of them is a copy to keep in step, and fails here."""
    assert engine_table_copies() == {}


def test_the_fields_a_mailing_list_needs_come_from_the_engine_schema():
    """The abutters and the town set-up ask for the owner and the address lines whenever the
    assessing table is given: the engine schema's ``mailing`` flag, not a list in the plugin."""
    cat = _load(CATALOG_FILE, "swm_gis_qgis_catalog4")
    flagged = tuple(name for name, f in SCHEMAS["assess"].info.items() if f.mailing)
    assert flagged == ("owner", "address", "city", "state", "zip")
    mailing = cat.MAILING_FIELDS
    assert mailing == {"assess": flagged}

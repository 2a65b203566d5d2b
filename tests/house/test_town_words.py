"""No town's regulation in the engine's code (issue 33): "Lynnfield", "Chapter 320", "§ 320-",
"Essex County" and "Department of Public Works" appear in no string literal of ``swm_gis/``
(docstrings and comments are prose about the default profile, and may name it) and in no line
of a file of ``swm_gis/tables/``, ``swm_gis/web/``, ``swm_gis/schemas/`` or another town's
profile in ``swm_gis/regulations/``: every citation, note and office an output prints is
read from the regulation profile applied, and Lynnfield's are its profile's
(``swm_gis/regulations/lynnfield-ch320.*``).

Nor in the QGIS plugin (``qgis_plugin/swm_gis_qgis/``): no string literal of its modules (its
help texts, parameter descriptions, provider name) and no line of its other files (metadata.txt,
help/index.html, the generated catalog data) names a town's law; they say "the town's stormwater
regulation", whose profile the town config names and whose sections the engine prints.

What still holds such a literal is listed in :data:`ALLOWED` with its count, which may only
shrink: a new literal fails, and so does a count that went down without the list following it
(so the list always says what is left).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "swm_gis"
PLUGIN = Path(__file__).resolve().parents[2] / "qgis_plugin" / "swm_gis_qgis"

#: The words only Lynnfield's regulation says (the issue's list); "§320-" spelt without the
#: space counts too.
TOWN_WORDS = re.compile(r"Lynnfield|Chapter 320|§ ?320-|Essex County|Department of Public Works")

#: Files (relative to swm_gis/) that still hold such literals, and how many: each may only
#: shrink. Python files count string literals (not docstrings); data files count lines.
ALLOWED: dict[str, int] = {}


def literal_hits(source: str) -> list[tuple[int, str]]:
    """(line, text) of each string literal of a module that names the town's words; docstrings
    (of the module, classes and functions) are left out, comments are not literals."""
    tree = ast.parse(source)
    docs = {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef,
                                 ast.ClassDef))
            and node.body and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)}
    return sorted((node.lineno, node.value) for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str)
                  and id(node) not in docs and TOWN_WORDS.search(node.value))


def town_words_by_file() -> dict[str, int]:
    """Every file of the package outside Lynnfield's profile that names the town's words, with
    the count (literals of a .py file, lines of any other file)."""
    found: dict[str, int] = {}
    for path in sorted(PKG.rglob("*.py")):
        if hits := literal_hits(path.read_text(encoding="utf-8")):
            found[path.relative_to(PKG).as_posix()] = len(hits)
    for folder in ("tables", "web", "schemas", "regulations"):
        for path in sorted((PKG / folder).rglob("*")):
            if (not path.is_file() or path.suffix == ".py"
                    or path.name.startswith("lynnfield-ch320.")):
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            if n := sum(1 for line in text.splitlines() if TOWN_WORDS.search(line)):
                found[path.relative_to(PKG).as_posix()] = n
    return found


def plugin_town_words(root: Path = PLUGIN) -> dict[str, int]:
    """Every file of the plugin (under ``root``) that names the town's words, with the count
    (literals of a .py file, lines of any other text file; images and the licence left out)."""
    found: dict[str, int] = {}
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path.suffix in (".svg", ".png", ".pyc") or path.name == "LICENSE":
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if path.suffix == ".py":
            n = len(literal_hits(text))
        else:
            n = sum(1 for line in text.splitlines() if TOWN_WORDS.search(line))
        if n:
            found[path.relative_to(root).as_posix()] = n
    return found


def test_no_town_words_in_the_plugin():
    """The plugin names no town's law (issue 33): help texts, descriptions, the provider's
    name, metadata.txt and help/index.html say "the town's stormwater regulation"."""
    assert plugin_town_words() == {}


def test_the_plugin_scan_sees_its_help_and_metadata(tmp_path):
    (tmp_path / "help").mkdir()
    (tmp_path / "help" / "index.html").write_text("<p>ok</p>\n<p>Chapter 320</p>\n",
                                                   encoding="utf-8")
    (tmp_path / "metadata.txt").write_text("name=x (Lynnfield)\n", encoding="utf-8")
    (tmp_path / "alg.py").write_text('"""Lynnfield in a docstring."""\nX = "§ 320-19"\n',
                                     encoding="utf-8")
    (tmp_path / "icon.svg").write_text("<svg>Lynnfield</svg>", encoding="utf-8")
    # one line of the page, one of the metadata, the module's literal (not its docstring); no
    # image
    assert plugin_town_words(tmp_path) == {"alg.py": 1, "help/index.html": 1, "metadata.txt": 1}


def test_the_scanner_sees_literals_but_not_docstrings_or_comments():
    source = ('"""Lynnfield\'s Chapter 320, in prose."""\n'
              "# Essex County, in a comment\n"
              "def f():\n"
              '    """§ 320-19 in a docstring."""\n'
              '    return "see § 320-19 B(7)", f"{1} Lynnfield", "§320-20", "Chapter 32"\n')
    # line 5: the plain literal, the f-string's constant part and "§320-20"; not "Chapter 32"
    assert literal_hits(source) == [(5, " Lynnfield"), (5, "see § 320-19 B(7)"), (5, "§320-20")]


def test_no_town_words_in_the_engine_outside_lynnfield_s_profile():
    found = town_words_by_file()
    new = {f: n for f, n in found.items() if n > ALLOWED.get(f, 0)}
    assert new == {}, ("these files name Lynnfield's regulation in code or a shared table: read "
                       "the words from the regulation profile instead (docs/regulations.md)")
    shrunk = {f: (n, found.get(f, 0)) for f, n in ALLOWED.items() if found.get(f, 0) < n}
    assert shrunk == {}, "fewer left than ALLOWED says: lower (or drop) these entries"


def test_lynnfield_s_profile_is_where_its_words_are():
    """Lynnfield's profile files are left out of the scan (they are where the words belong),
    and other towns' profiles are scanned."""
    profile = (PKG / "regulations" / "lynnfield-ch320.toml").read_text(encoding="utf-8")
    assert TOWN_WORDS.search(profile) is not None
    assert not [f for f in town_words_by_file() if f.startswith("regulations/lynnfield-ch320.")]

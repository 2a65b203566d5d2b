"""The house: no import cycles, short modules, rules that read no file (README "Architecture")."""

from __future__ import annotations

import ast
import importlib.util
import io
import re
import tokenize
from pathlib import Path

import pytest

import swm_gis
from swm_gis.cli import cli_flags

PKG = Path(swm_gis.__file__).parent

#: Pure rule modules: functions on frames and rasters; they never read a file.
RULES = sorted(
    [f"rules/{p.name}" for p in (PKG / "rules").glob("*.py") if p.name != "__init__.py"]
    + [f"terrain/{n}.py" for n in ("__init__", "grid", "trace", "receiving_waters", "catchments")]
    + ["applicability/overlays.py", "applicability/classify.py"])
#: "No module over about 600 lines": a few lines over 600 is a module to watch.
MAX_LINES = 650
#: "No folder of swm_gis/ holds more than 20 modules" (House style, "The shape of the house").
MAX_MODULES_PER_FOLDER = 20

#: The layers, lowest first (README "Architecture"): a module may import its own layer and the
#: layers below it, never one above. Keys are the first name under ``swm_gis``.
LAYERS = [
    {"errors", "messages", "raster", "units", "progress", "formatting", "coverage_rule",
     "_version", "ids", "manifest"},
    {"config"},
    {"io"},
    {"rules"},
    {"terrain"},
    {"screening", "notification", "applicability", "styles", "webmap"},  # the jobs
    {"reports"},
    {"results", "summaries"},
    {"jobs", "validate"},                                                  # the job-level API
    {"cli", "__main__", ""},                                               # adapters, the root
]
RANK = {name: i for i, layer in enumerate(LAYERS) for name in layer}

def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(dotted: str) -> bool:
    path = PKG.parent.joinpath(*dotted.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def _imports(path: Path) -> set[str]:
    """Every swm_gis module ``path`` imports, at the top or inside a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("swm_gis")}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0 \
                and node.module.startswith("swm_gis"):
            # `from swm_gis.x import y`: y is a module of x or a name x defines (then x is used)
            subs = {f"{node.module}.{a.name}" for a in node.names}
            found |= subs
            if any(not _is_module(s) for s in subs):
                found.add(node.module)
    return found


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in PKG.rglob("*.py")}
    return {name: {m for m in _imports(path) if m in modules and m != name}
            for name, path in modules.items()}


def test_no_import_cycles(graph):
    state: dict[str, int] = {}

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycle = stack[stack.index(nxt):] + [nxt] if nxt in stack else [node, nxt]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt, [*stack, nxt])
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])


@pytest.mark.parametrize("rule", RULES)
def test_rules_never_read_files(rule, graph):
    text = (PKG / rule).read_text(encoding="utf-8")
    assert not any(m.startswith("swm_gis.io") for m in graph[_module_name(PKG / rule)])
    assert "import pyogrio" not in text and "read_dataframe(" not in text


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_every_module_has_a_layer(graph):
    assert {_layer(m) for m in graph} <= set(RANK), {_layer(m) for m in graph} - set(RANK)


def test_dependencies_run_one_way(graph):
    """config < io < rules < terrain < jobs < reports < results < job-level API < CLI."""
    upward = sorted(f"{a} -> {b}" for a, deps in graph.items() for b in deps
                    if RANK[_layer(b)] > RANK[_layer(a)])
    assert upward == [], upward


def test_the_package_root_is_in_the_graph(graph):
    """``import swm_gis`` inside the package is a cycle the graph must see."""
    assert "swm_gis" in graph and graph["swm_gis"]
    assert not [m for m, deps in graph.items() if "swm_gis" in deps], "a module imports the root"


def test_no_folder_holds_more_than_twenty_modules():
    folders = {p.parent for p in PKG.rglob("*.py")}
    crowded = {str(f.relative_to(PKG.parent)): n for f in folders
               if (n := len(list(f.glob("*.py")))) > MAX_MODULES_PER_FOLDER}
    assert crowded == {}


def test_every_subpackage_says_its_purpose():
    for init in PKG.glob("*/__init__.py"):
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        assert doc and len(doc.splitlines()[0]) > 20, init


def test_no_module_is_long():
    long = {str(p.relative_to(PKG)): n for p in PKG.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def test_the_catchments_do_not_import_applicability(graph):
    graph_of = graph["swm_gis.terrain.catchments"]
    assert not any(_layer(m) == "applicability" for m in graph_of)


def test_the_readme_draws_the_architecture_from_the_subpackages():
    """README "Architecture" names every subpackage with the first line of its docstring."""
    readme = (PKG.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Architecture", 1)[1].split("\n## ", 1)[0]
    for init in sorted(PKG.glob("*/__init__.py")):
        name = init.parent.name
        line = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))).splitlines()[0]
        assert f"{name}/" in section and line in section, (name, line)


def _complexity_script():
    spec = importlib.util.spec_from_file_location("complexity",
                                                  PKG.parent / "scripts" / "complexity.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_no_function_is_over_complexity_twenty():
    """Radon's cyclomatic complexity of every function in swm_gis/ and in the QGIS
    plugin is 20 or less (scripts/complexity.py, which ``make lint`` runs on both)."""
    complexity = _complexity_script()
    assert complexity.LIMIT == 20
    assert [str(m) for m in complexity.too_complex([PKG, PKG.parent / "qgis_plugin"])] == []


def test_no_test_module_imports_another():
    """Shared test helpers live in support modules (townkit, screenkit, applicabilitykit, ...)."""
    tests = PKG.parent / "tests"
    found = []
    for path in tests.rglob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and \
                    node.module.split(".")[0].startswith("test_"):
                found.append(f"{path.name}: from {node.module}")
            elif isinstance(node, ast.Import):
                found += [f"{path.name}: import {a.name}" for a in node.names
                          if a.name.split(".")[0].startswith("test_")]
    assert found == []


#: Config-key brackets as the TOML spells them: a message builds them with
#: ``swm_gis.messages.config_key``, a document says the layer or rule in words.
#: The developers' own documents, which a message or a report never cites.
INTERNAL_DOC = re.compile(r"\bSPEC(?:\.md| section)")

CONFIG_BRACKET = re.compile(r"\[(?:layers[.\]]|rules\]|town\]|cache\]|publish\])")


def _strings(path: Path):
    """Every string constant of a module, with whether it is a docstring."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docs.add(id(first.value))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.lineno, node.value, id(node) in docs


def test_the_core_speaks_no_command_line():
    """No string outside ``swm_gis/cli/`` names a command-line flag (docstrings
    included), and none but :mod:`swm_gis.messages` spells a config-key bracket: errors hold
    references (``option``, ``config_key``) that each front end words; documents use words.
    No message or document points to the developers' spec either: no front end has to drop
    such a pointer (docstrings and comments: :func:`test_code_cites_the_repository_docs`)."""
    flags = cli_flags()
    assert {"--site", "--out", "--overwrite", "--parcel", "--no-cache"} <= flags
    flag = re.compile(r"(?<![\w-])(?:" + "|".join(
        sorted(map(re.escape, flags), key=len, reverse=True)) + r")(?![\w-])")
    found = []
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG)
        if rel.parts[0] == "cli":
            continue
        for line, text, is_doc in _strings(path):
            hit = flag.search(text)
            if hit is None and not is_doc and rel.name != "messages.py":
                hit = CONFIG_BRACKET.search(text) or INTERNAL_DOC.search(text)
            if hit is not None:
                found.append(f"{rel}:{line}: {hit.group(0)} in {text[:60]!r}")
    assert found == []


# --------------------------------------------------------------------------- no back doors
PLUGIN = PKG.parent / "qgis_plugin"
#: Where the code cites the developers' spec (outside the repository) instead of its own docs.
SPEC_CITATION = re.compile(r"\bSPEC\b")


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _dotted(path: Path) -> str:
    """``swm_gis/reports/mailing.py`` -> ``swm_gis.reports.mailing`` (a package: its folder)."""
    parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _absolute(node: ast.ImportFrom, path: Path) -> str:
    """The module an ``import from`` names, relative imports resolved against ``path``."""
    if not node.level:
        return node.module or ""
    package = _dotted(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    package = package[:len(package) - (node.level - 1)]
    return ".".join(package + ([node.module] if node.module else []))


def _reaches_private(importer: str, dotted: str) -> bool:
    """Whether ``dotted`` passes a ``_private`` module that is not inside ``importer``'s own
    package (``swm_gis.cli._common`` is the cli package's: its modules may import it)."""
    parts = dotted.split(".")
    for i, part in enumerate(parts):
        if _private(part) and not f"{importer}.".startswith(".".join(parts[:i]) + "."):
            return True
    return False


def _ours(module: str) -> bool:
    """Whether ``module`` is the engine's or the plugin's (a library's own private names, such
    as ``os._exit``, are the library's business)."""
    return module.split(".")[0] in {"swm_gis", "swm_gis_qgis"}


def private_reach(path: Path) -> list[str]:
    """Every place ``path`` imports, or reads through an imported name, another module's
    ``_private`` name."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    me, found, imported = _dotted(path), [], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module != "__future__":
            module = _absolute(node, path)
            if not _ours(module):
                continue
            for alias in node.names:
                imported.add(alias.asname or alias.name)
                if _private(alias.name) or _reaches_private(me, f"{module}.{alias.name}"):
                    found.append(f"{node.lineno}: from {module} import {alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if not _ours(alias.name):
                    continue
                imported.add((alias.asname or alias.name).split(".")[0])
                if _reaches_private(me, alias.name):
                    found.append(f"{node.lineno}: import {alias.name}")
    for node in ast.walk(tree):
        base = node
        while isinstance(base, ast.Attribute):
            base = base.value
        if isinstance(node, ast.Attribute) and _private(node.attr) and \
                isinstance(base, ast.Name) and base.id in imported:
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def _code_files() -> list[Path]:
    return sorted([*PKG.rglob("*.py"), *PLUGIN.rglob("*.py")])


def test_no_module_reaches_another_modules_private_names():
    """A ``_private`` name stays in its module (a ``_private`` module in its package): what
    another module needs is public where it belongs (House style, habit 10)."""
    found = {str(p.relative_to(PKG.parent)): hits for p in _code_files()
             if (hits := private_reach(p))}
    assert found == {}


def _subpackage(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "swm_gis"


def test_no_import_cycle_between_subpackages(graph):
    """Subpackages depend one way, imports inside functions counted: a lazy import is no way
    round a cycle."""
    deps: dict[str, set[str]] = {}
    for module, targets in graph.items():
        deps.setdefault(_subpackage(module), set()).update(
            _subpackage(t) for t in targets if _subpackage(t) != _subpackage(module))
    both = sorted(f"{a} <-> {b}" for a in deps for b in deps[a] if a < b and a in deps.get(b, ()))
    assert both == []

    state: dict[str, int] = {}

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(deps.get(node, ())):
            assert state.get(nxt) != 1, "subpackage cycle: " + " -> ".join([*stack, nxt])
            if nxt not in state:
                visit(nxt, [*stack, nxt])
        state[node] = 2

    for name in sorted(deps):
        if name not in state:
            visit(name, [name])


def init_imports_by_submodules(init: Path) -> list[str]:
    """Names a package's submodules import from its ``__init__`` (not a submodule): logic or a
    re-export that only the package's facade should hold."""
    package, folder, found = _dotted(init), init.parent, []
    for path in sorted(folder.rglob("*.py")):
        if path == init:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and _absolute(node, path) == package:
                found += [f"{path.relative_to(folder)}: {a.name}" for a in node.names
                          if not (folder / f"{a.name}.py").exists()
                          and not (folder / a.name / "__init__.py").exists()]
    return found


def test_no_package_init_holds_what_its_submodules_import():
    found = {str(init.relative_to(PKG.parent)): hits
             for init in sorted([*PKG.rglob("__init__.py"), *PLUGIN.rglob("__init__.py")])
             if (hits := init_imports_by_submodules(init))}
    assert found == {}


def spec_citations(path: Path) -> list[str]:
    """Comments and docstrings of ``path`` that cite the developers' spec."""
    text = path.read_text(encoding="utf-8")
    found = [f"{tok.start[0]}: {tok.string.strip()[:60]}"
             for tok in tokenize.generate_tokens(io.StringIO(text).readline)
             if tok.type == tokenize.COMMENT and SPEC_CITATION.search(tok.string)]
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc and SPEC_CITATION.search(doc):
                found.append(f"{getattr(node, 'lineno', 1)}: docstring")
    return found


def test_code_cites_the_repository_docs():
    """The spec lives outside the repository: code, scripts and tests point to README sections
    and docs/*.md, which a reader of the repository can open."""
    root = PKG.parent
    files = [*_code_files(), *(root / "scripts").rglob("*.py"), *(root / "tests").rglob("*.py"),
             *(root / "benchmarks").rglob("*.py")]
    found = {str(p.relative_to(root)): hits for p in sorted(files) if (hits := spec_citations(p))}
    assert found == {}

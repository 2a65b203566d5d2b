"""The house: no import cycles, short modules, rules that read no file (README "Architecture")."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import swm_gis

PKG = Path(swm_gis.__file__).parent

#: Pure rule modules: functions on frames and rasters; they never read a file.
RULES = ["disturbance", "development", "standards", "watersheds", "floodplain", "habitats",
         "hydrology", "hydrology_grid", "hydrology_trace", "receiving_waters", "catchments",
         "abutters", "owners", "timeline", "applicability_overlays", "applicability_classify"]
#: Modules other helpers are splitting at the time of writing (issue 14 scope split).
LONG_ELSEWHERE = {"reports/screening_report.py"}
#: "No module over about 600 lines" (issue 14): a few lines over 600 is a module to watch.
MAX_LINES = 650


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """Every swm_gis module ``path`` imports, at the top or inside a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("swm_gis")}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0 \
                and node.module.startswith("swm_gis"):
            found.add(node.module)
            found |= {f"{node.module}.{a.name}" for a in node.names}
    return found


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in PKG.rglob("*.py")}
    return {name: {m for m in _imports(path) if m in modules and m not in (name, "swm_gis")}
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
    text = (PKG / f"{rule}.py").read_text(encoding="utf-8")
    assert "swm_gis.layers" not in graph[f"swm_gis.{rule}"]
    assert "import pyogrio" not in text and "read_dataframe(" not in text


def test_no_module_is_long():
    long = {str(p.relative_to(PKG)): n for p in PKG.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert set(long) <= LONG_ELSEWHERE, long


def test_the_catchments_do_not_import_applicability(graph):
    assert not any(m.startswith("swm_gis.applicability") for m in graph["swm_gis.catchments"])

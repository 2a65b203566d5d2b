"""Fail when a function is too complex to read: radon's cyclomatic complexity over 20 (issue 25).

    python scripts/complexity.py swm_gis qgis_plugin        (what ``make lint`` and the tests run)

Every function and method of every ``.py`` file under the paths given (files or folders; by
default ``swm_gis`` and ``qgis_plugin`` of this repository) is measured with
``radon.complexity.cc_visit``, as ``radon cc`` lists them (a nested function, such as a compiled
kernel inside its builder, is radon's closure: neither listed nor added to its builder). Exit 1
listing each one over the limit, worst first; exit 0 printing the worst figure (exit 2: a path
that is no folder or ``.py`` file). ``tests/house/test_architecture.py`` runs :func:`too_complex` on
swm_gis/.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NamedTuple

from radon.complexity import cc_visit
from radon.visitors import Function

#: Highest cyclomatic complexity a function may have (radon's grade D starts at 21).
LIMIT = 20
REPO = Path(__file__).resolve().parent.parent
DEFAULT_PATHS = (REPO / "swm_gis", REPO / "qgis_plugin")


class Measure(NamedTuple):
    """One function's complexity and where it is (``name`` is ``Class.method`` for a method)."""

    complexity: int
    path: str
    line: int
    name: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line} {self.name} ({self.complexity})"


def python_files(paths: list[str | Path]) -> list[Path]:
    """The ``.py`` files given, and those under the folders given, sorted."""
    files: set[Path] = set()
    for path in map(Path, paths):
        if path.is_dir():
            files.update(path.rglob("*.py"))
        elif path.suffix == ".py":
            files.add(path)
        else:
            raise FileNotFoundError(f"{path}: not a folder or a .py file")
    return sorted(files)


def measure(paths: list[str | Path]) -> list[Measure]:
    """Every function's and method's complexity (classes are not functions), worst first."""
    out = []
    for file in python_files(paths):
        out.extend(Measure(b.complexity, str(file), b.lineno, b.fullname)
                   for b in cc_visit(file.read_text(encoding="utf-8")) if isinstance(b, Function))
    return sorted(out, key=lambda m: (-m.complexity, m.path, m.line))


def too_complex(paths: list[str | Path], limit: int = LIMIT) -> list[Measure]:
    """The functions over ``limit``, worst first."""
    return [m for m in measure(paths) if m.complexity > limit]


def main(argv: list[str]) -> int:
    paths = argv or list(DEFAULT_PATHS)
    try:
        measures = measure(paths)
    except FileNotFoundError as exc:
        print(f"complexity: {exc}", file=sys.stderr)
        return 2
    over = [m for m in measures if m.complexity > LIMIT]
    if over:
        print(f"{len(over)} function(s) over cyclomatic complexity {LIMIT} (radon): split them "
              "by concept, a named helper per decision", file=sys.stderr)
        for m in over:
            print(f"  {m}", file=sys.stderr)
        return 1
    worst = f"; the worst: {measures[0]}" if measures else ""
    print(f"complexity: {len(measures)} functions, none over {LIMIT}{worst}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

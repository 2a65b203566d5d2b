"""Clear a notebook's outputs and execution records before it is committed.

    python scripts/clear_notebook.py docs/tutorial.ipynb      (what ``make tutorial-clear`` runs)

The tutorial is stored without outputs: CI executes it, so stored outputs could only go stale.
``tests/e2e/test_docs.py`` checks that clearing the stored notebook changes nothing.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def cleared(notebook: dict) -> dict:
    """The notebook without outputs, execution counts, execution times or kernel version."""
    out = json.loads(json.dumps(notebook))
    for cell in out.get("cells", []):
        cell.get("metadata", {}).pop("execution", None)
        if cell.get("cell_type") == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
    language = out.get("metadata", {}).get("language_info")
    if isinstance(language, dict):
        out["metadata"]["language_info"] = {"name": language.get("name", "python")}
    return out


def dumps(notebook: dict) -> str:
    """As Jupyter writes it: one-space indent, keys sorted, a final newline."""
    return json.dumps(notebook, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def main(paths: list[str]) -> int:
    for path in map(Path, paths):
        text = path.read_text(encoding="utf-8")
        new = dumps(cleared(json.loads(text)))
        if new != text:
            path.write_text(new, encoding="utf-8")
            print(f"cleared {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

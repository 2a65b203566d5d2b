"""Sphinx helpers for the swm-gis docs (a local extension, loaded by ``docs/conf.py``).

* The tutorial page is made from ``tutorial.ipynb`` at build time: markdown cells as they are,
  code cells as code blocks followed by their outputs (the notebook is executed first, with the
  interpreter running Sphinx, so a cell that fails fails the build). One file, no stale copy.
* A dataclass field's ``default_factory`` shows as a call (``dict()``) instead of ``<factory>``,
  which Sphinx cannot parse.
* A reference to a public object by its defining module
  (``swm_gis.rules.development.development_type``) resolves to its entry in the reference
  (``swm_gis.development_type``); one to an internal helper that exists (``land_use`` in a docstring
  of ``swm_gis.terrain.receiving_waters``) shows as code; one to a name that exists nowhere fails
  the build.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import os
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

#: Where the executed tutorial's images go, beside the generated page (both git-ignored).
FILES_DIR = "_tutorial_files"


# --------------------------------------------------------------------------- the tutorial page
def execute(notebook: dict, *, cwd: Path, timeout_s: int = 300) -> dict:
    """Run every cell of the notebook (a dict) with this interpreter's kernel; return it run.

    The kernel imports the swm_gis of this checkout (its folder goes first on PYTHONPATH).
    """
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.reads(json.dumps(notebook), as_version=4)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)}
    client = NotebookClient(nb, timeout=timeout_s, kernel_name="python3",
                            resources={"metadata": {"path": str(cwd)}})
    client.execute(env=env)
    return json.loads(nbformat.writes(nb))


def output_blocks(outputs: list[dict], *, image_stem: str, files: Path) -> list[str]:
    """MyST blocks for a code cell's outputs: an image, else HTML, else plain text.

    stderr (library warnings) is left out; images are written to ``files``.
    """
    blocks = []
    for i, out in enumerate(outputs):
        if out.get("output_type") == "stream":
            if out.get("name") == "stdout":
                blocks.append(f"```none\n{_text(out.get('text')).rstrip()}\n```")
            continue
        data = out.get("data") or {}
        if "image/png" in data:
            files.mkdir(parents=True, exist_ok=True)
            name = f"{image_stem}-{i}.png"
            (files / name).write_bytes(base64.b64decode(_text(data["image/png"])))
            blocks.append(f"![output]({files.name}/{name})")
        elif "text/html" in data:
            blocks.append(f"```{{raw}} html\n<div class=\"nb-output\">"
                          f"{_text(data['text/html']).strip()}</div>\n```")
        elif "text/plain" in data:
            blocks.append(f"```none\n{_text(data['text/plain']).rstrip()}\n```")
    return blocks


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else str(value or "")


def notebook_to_myst(notebook: Path, out: Path, *, run: bool = False) -> None:
    """Write the notebook as a MyST page (run first, outputs shown, when ``run``)."""
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    if run:
        nb = execute(nb, cwd=notebook.parent)
    files = out.parent / FILES_DIR
    parts = [f"<!-- Generated from {notebook.name} by docs/_ext/swm_docs.py; edit the "
             "notebook. -->"]
    for n, cell in enumerate(nb["cells"]):
        source = _text(cell["source"]).strip()
        if cell["cell_type"] == "markdown":
            parts.append(source)
        elif cell["cell_type"] == "code" and source:
            parts.append(f"```python\n{source}\n```")
            parts += output_blocks(cell.get("outputs") or [], image_stem=f"cell{n:02d}",
                                   files=files)
    text = "\n\n".join(parts) + "\n"
    out.parent.mkdir(parents=True, exist_ok=True)
    if not out.exists() or out.read_text(encoding="utf-8") != text:
        out.write_text(text, encoding="utf-8")


# --------------------------------------------------------------------------- signatures
def split_params(text: str) -> list[str]:
    """Split a parameter list on its top-level commas (not those inside brackets)."""
    parts, depth, current = [], 0, ""
    for char in text:
        depth += char in "([{"
        depth -= char in ")]}"
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    return [*parts, current] if current.strip() else parts


def factory_defaults(obj, signature: str | None) -> str | None:
    """Show a dataclass field's ``default_factory`` as a call (``dict()``), not ``<factory>``."""
    if not signature or not dataclasses.is_dataclass(obj) or "<factory>" not in signature:
        return signature
    calls = {f.name: f"{getattr(f.default_factory, '__name__', 'factory')}()"
             for f in dataclasses.fields(obj) if f.default_factory is not dataclasses.MISSING}
    params = []
    for param in split_params(signature.strip()[1:-1]):
        name = re.match(r"\s*\**(\w+)", param)
        if name and name.group(1) in calls and param.rstrip().endswith("<factory>"):
            param = param.rstrip()[: -len("<factory>")].rstrip() + " " + calls[name.group(1)]
        params.append(param.strip())
    return "(" + ", ".join(params) + ")"


# --------------------------------------------------------------------------- references
def public_alias(target: str) -> str | None:
    """``swm_gis.<module>.<name>`` -> ``swm_gis.<name>`` when that is the same public object."""
    import swm_gis

    module, _, name = target.rpartition(".")
    if not module.startswith("swm_gis.") or name not in swm_gis.__all__:
        return None
    obj = getattr(sys.modules.get(module), name, None)
    return f"swm_gis.{name}" if obj is not None and obj is getattr(swm_gis, name) else None


def internal_object(target: str, refdoc: str) -> bool:
    """Whether ``target`` names an existing (undocumented) swm_gis object.

    A dotted ``swm_gis.module.name`` is looked up as it is; a short name in the module that
    defines the object the page ``refdoc`` documents (``generated/swm_gis.<name>``). Such a
    reference is shown as code without a link; a name that exists nowhere is still an error.
    """
    import importlib

    import swm_gis

    parts = target.split(".")
    if parts[0] == "swm_gis":
        for cut in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            return _walk(obj, parts[cut:])
        return False
    page = refdoc.rsplit("/", 1)[-1]
    if not page.startswith("swm_gis."):
        return False
    documented = getattr(swm_gis, page.split(".")[1], None)
    module_name = getattr(documented, "__module__", None) or ""
    if documented is None or not module_name.startswith("swm_gis"):
        return False
    return _walk(sys.modules[module_name], parts)


def _walk(obj, names: list[str]) -> bool:
    for name in names:
        if not name.isidentifier() or not hasattr(obj, name):
            return False
        obj = getattr(obj, name)
    return True


# --------------------------------------------------------------------------- Sphinx hooks
def _signature(app, what, name, obj, options, signature, return_annotation):
    return factory_defaults(obj, signature), return_annotation


def _missing_reference(app, env, node, contnode):
    if node.get("refdomain") != "py":
        return None
    alias = public_alias(node.get("reftarget", ""))
    if alias is None:
        # an internal helper: code without a link (a typo still fails the build)
        return contnode if internal_object(node.get("reftarget", ""), node["refdoc"]) else None
    found = env.get_domain("py").resolve_any_xref(env, node["refdoc"], app.builder, alias, node,
                                                   contnode)
    return found[0][1] if found else None


def _tutorial(app) -> None:
    src = Path(app.srcdir)
    notebook_to_myst(src / "tutorial.ipynb", src / "tutorial.md",
                     run=bool(app.config.tutorial_execute))


def setup(app):
    app.add_config_value("tutorial_execute", True, "env", types=(bool, int))
    app.connect("builder-inited", _tutorial)
    app.connect("autodoc-process-signature", _signature)
    app.connect("missing-reference", _missing_reference)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

"""Sphinx configuration: the swm-gis API reference and tutorial.

Build with ``make docs`` (warnings are errors). The reference is autosummary over the numpydoc
docstrings of the names in ``swm_gis.__all__`` (listed in ``api.rst``; ``tests/test_docs.py``
checks the two agree). The tutorial page is made from ``tutorial.ipynb`` at build time, so the
notebook that CI executes and the page people read are one file.
"""

from __future__ import annotations

import dataclasses
import json
import re
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS.parent))

import swm_gis  # noqa: E402

project = "swm-gis"
author = "swm-gis contributors"
copyright = "2026, swm-gis contributors"
release = version = swm_gis.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "numpydoc",
    "myst_parser",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "**.ipynb_checkpoints", "tutorial.ipynb"]
templates_path = ["_templates"]

autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "signature"
autodoc_member_order = "bysource"
# one parameter a line once a signature is long: the keyword-only options stay readable
python_maximum_signature_line_length = 88
# numpydoc lists a class's members itself; the class template documents them instead.
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# Every cross-reference must resolve (with -W a broken one fails the build), except the types
# that annotations mention but the reference does not document: other libraries' (no
# inventories are fetched: builds run offline) and swm-gis's own internal ones. A new internal
# type in a public signature fails the build until it is documented or listed here.
nitpicky = True
nitpick_ignore_regex = [
    ("py:class", r"(os|pathlib|datetime|collections\.abc|typing|numpy|pandas|geopandas|shapely"
                 r"|pyproj)(\..+)?"),
    ("py:class", r"swm_gis\.(config\.(Rules|LayerSpec)|reports\.PackageInfo"
                 r"|catchments\.DrainageGrid|applicability_overlays\._(Zones|Pieces)"
                 r"|(raster|layers)\.Raster|(hydrology|hydrology_grid)\.FlowGrid"
                 r"|timeline\.Deadline|checklist\.ChecklistItem)"),
]
myst_heading_anchors = 3
intersphinx_mapping = {}  # offline builds: no inventories fetched

html_theme = "alabaster"
html_title = f"swm-gis {release}"
html_static_path: list[str] = []


def notebook_to_myst(notebook: Path, out: Path) -> None:
    """Write the notebook as a MyST page: markdown cells as they are, code cells as blocks."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    parts = [f"<!-- Generated from {notebook.name} by docs/conf.py; edit the notebook. -->"]
    for cell in cells:
        source = "".join(cell["source"]).strip()
        if cell["cell_type"] == "markdown":
            parts.append(source)
        elif cell["cell_type"] == "code" and source:
            parts.append(f"```python\n{source}\n```")
    text = "\n\n".join(parts) + "\n"
    out.parent.mkdir(parents=True, exist_ok=True)
    if not out.exists() or out.read_text(encoding="utf-8") != text:
        out.write_text(text, encoding="utf-8")


def factory_defaults(obj, signature: str | None) -> str | None:
    """Show a dataclass field's ``default_factory`` as a call (``dict()``), not ``<factory>``.

    ``<factory>`` is not Python, so Sphinx cannot parse such a signature and prints it raw.
    """
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


def public_alias(target: str) -> str | None:
    """``swm_gis.<module>.<name>`` -> ``swm_gis.<name>`` when that is the same public object."""
    module, _, name = target.rpartition(".")
    if not module.startswith("swm_gis.") or name not in swm_gis.__all__:
        return None
    obj = getattr(sys.modules.get(module), name, None)
    return f"swm_gis.{name}" if obj is not None and obj is getattr(swm_gis, name) else None


def _missing_reference(app, env, node, contnode):
    """Resolve references to public objects by their defining module's path."""
    if node.get("refdomain") != "py":
        return None
    alias = public_alias(node.get("reftarget", ""))
    if alias is None:
        return None
    found = env.get_domain("py").resolve_any_xref(env, node["refdoc"], app.builder, alias, node,
                                                   contnode)
    return found[0][1] if found else None


def _signature(app, what, name, obj, options, signature, return_annotation):
    return factory_defaults(obj, signature), return_annotation


def _generate(app) -> None:
    notebook_to_myst(DOCS / "tutorial.ipynb", DOCS / "tutorial.md")


def setup(app):
    app.connect("builder-inited", _generate)
    app.connect("autodoc-process-signature", _signature)
    app.connect("missing-reference", _missing_reference)

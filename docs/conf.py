"""Sphinx configuration: the swm-gis API reference and tutorial.

Build with ``make docs`` (warnings are errors). The reference is autosummary over the numpydoc
docstrings of the names in ``swm_gis.__all__`` (listed in ``api.rst``; ``tests/e2e/test_docs.py``
checks the two agree). The tutorial page is made from ``tutorial.ipynb`` at build time, run, with
its outputs (``_ext/swm_docs.py``; ``-D tutorial_execute=0`` skips the run), so the notebook CI
executes and the page people read are one file.
"""

from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS.parent))
sys.path.insert(0, str(DOCS / "_ext"))

import swm_gis  # noqa: E402

project = "swm-gis"
author = "swm-gis contributors"
copyright = "2026, swm-gis contributors"
release = version = swm_gis.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "myst_parser",
    "swm_docs",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "_ext", "**.ipynb_checkpoints", "tutorial.ipynb"]
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

html_theme = "alabaster"
# wide enough for the code's 100-character lines and the tutorial's tables
html_theme_options = {"page_width": "1240px", "sidebar_width": "240px"}
html_title = f"swm-gis {release}"
html_static_path = ["_static"]
html_css_files = ["notebook.css"]


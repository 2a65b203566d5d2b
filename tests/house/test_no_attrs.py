"""Provenance travels as explicit data, never in ``DataFrame.attrs`` (STYLE.md, Habits 5 and 10).

pandas documents ``attrs`` as experimental: some operations keep it, others drop it, so a source
record kept there reaches a writer or not by accident. The readers return a
:class:`swm_gis.io.sources.Layer` (the frame and its provenance) instead, and the rules return
what they found next to the frame. This test fails on any ``.attrs`` read or written in the
engine or the plugin.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import swm_gis

ROOT = Path(swm_gis.__file__).parent.parent
PACKAGES = ("swm_gis", "qgis_plugin")


def _modules() -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))


def attrs_uses(source: str) -> list[int]:
    """The lines of ``source`` that read or write an attribute named ``attrs``.

    >>> attrs_uses("df.attrs['source'] = {}\\nattrs = feature.attributes()\\nx = f.attrs.get('a')")
    [1, 3]
    """
    return sorted(node.lineno for node in ast.walk(ast.parse(source))
                  if isinstance(node, ast.Attribute) and node.attr == "attrs")


def test_the_walk_sees_every_module():
    found = {p.relative_to(ROOT).parts[0] for p in _modules()}
    assert found == set(PACKAGES)
    assert len(_modules()) > 100


@pytest.mark.parametrize("text, lines", [
    ("frame.attrs['source'] = record", [1]),
    ("out.attrs.update(parcels.attrs)", [1, 1]),
    ("src = getattr(frame, 'source', None)\nattrs = feature.attributes()", []),
], ids=["write", "copy", "a-local-named-attrs"])
def test_attrs_uses_finds_reads_and_writes(text, lines):
    assert attrs_uses(text) == lines


def test_no_module_keeps_anything_in_dataframe_attrs():
    found = {str(p.relative_to(ROOT)): lines for p in _modules()
             if (lines := attrs_uses(p.read_text(encoding="utf-8")))}
    assert found == {}, ("DataFrame.attrs is experimental in pandas; return the provenance "
                         "next to the frame (swm_gis.io.sources.Layer) instead")

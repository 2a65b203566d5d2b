"""The QGIS plugin zip against the official plugin repository's upload rules
(plugins.qgis.org, qgis-app/plugins/validator.py), written as tests; no QGIS needed."""

from __future__ import annotations

import importlib.util
import shutil
import zipfile
from pathlib import Path

import pytest
from support.townkit import REPO

SPEC = importlib.util.spec_from_file_location("build_plugin", REPO / "scripts" / "build_plugin.py")
build_plugin = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(build_plugin)

REAL = {"SWM_GIS_PLUGIN_EMAIL": "conservation@town.example-real.net",
        "SWM_GIS_PLUGIN_TRACKER": "https://git.lynnfield.test/swm-gis/issues"}


def test_the_built_zip_passes_the_repository_rules(tmp_path):
    path = build_plugin.build(tmp_path)
    assert build_plugin.repository_problems(path) == []
    assert path.stat().st_size < build_plugin.MAX_ZIP_BYTES
    with zipfile.ZipFile(path) as zf:
        names = zf.namelist()
    assert {n.split("/")[0] for n in names} == {"swm_gis_qgis"}
    assert "swm_gis_qgis/LICENSE" in names and "swm_gis_qgis/__init__.py" in names
    assert not [n for n in names if n.endswith((".pyc", ".pyo", ".so", ".pyd", ".dll"))]
    licence = (REPO / "qgis_plugin" / "swm_gis_qgis" / "LICENSE").read_text(encoding="utf-8")
    assert licence.startswith("MIT License")
    assert licence == (REPO / "LICENSE").read_text(encoding="utf-8")  # one licence, both packages


def _zip(tmp_path: Path, files: dict[str, str | bytes], name: str = "p.zip") -> Path:
    out = tmp_path / name
    with zipfile.ZipFile(out, "w") as zf:
        for member, data in files.items():
            zf.writestr(member, data)
    return out


GOOD_META = """[general]
name=x
description=d
version=1.0
qgisMinimumVersion=3.22
author=A B
email=a@b.net
about=t
tracker=https://host.net/t
repository=https://host.net/r
homepage=https://host.net
"""


@pytest.mark.parametrize(("files", "needle"), [
    ({"pk/__init__.py": "", "pk/metadata.txt": GOOD_META}, "no pk/LICENSE"),
    ({"pk/__init__.py": "", "pk/LICENSE": "MIT", "pk/metadata.txt": GOOD_META,
      "pk/__pycache__/a.cpython-311.pyc": b"\0"}, "compiled file"),
    ({"pk/__init__.py": "", "pk/LICENSE": "MIT", "pk/metadata.txt": GOOD_META,
      "pk/.git/HEAD": "ref"}, "forbidden folder"),
    ({"pk/__init__.py": "", "pk/LICENSE": "MIT", "pk/metadata.txt": GOOD_META,
      "pk/../../evil.py": "x"}, "path information"),
    ({"pk/__init__.py": "", "pk/LICENSE": "MIT", "pk/metadata.txt": GOOD_META, "q/x.py": ""},
     "one top folder"),
    ({"1p/__init__.py": "", "1p/LICENSE": "MIT", "1p/metadata.txt": GOOD_META},
     "not a valid package name"),
    ({"pk/__init__.py": "", "pk/LICENSE": "MIT",
      "pk/metadata.txt": GOOD_META.replace("tracker=https://host.net/t\n", "")},
     "metadata lacks tracker"),
    ({"pk/__init__.py": "", "pk/LICENSE": "MIT",
      "pk/metadata.txt": GOOD_META.replace("https://host.net/r", "github.com/r")},
     "repository is not a web address"),
    ({"pk/__init__.py": "", "pk/LICENSE": "MIT",
      "pk/metadata.txt": GOOD_META.replace("author=A B", "author=A/B")}, "author contains"),
    ({"pk/__init__.py": "", "pk/LICENSE": "MIT",
      "pk/metadata.txt": GOOD_META.replace("a@b.net", "nobody")}, "email is not"),
])
def test_the_rules_refuse_what_the_repository_refuses(tmp_path, files, needle):
    problems = build_plugin.repository_problems(_zip(tmp_path, files))
    assert any(needle in p for p in problems), problems


def test_a_good_hand_made_zip_passes(tmp_path):
    path = _zip(tmp_path, {"pk/__init__.py": "", "pk/LICENSE": "MIT", "pk/metadata.txt": GOOD_META})
    assert build_plugin.repository_problems(path) == []


def test_too_big_or_broken_zips_are_refused(tmp_path, monkeypatch):
    path = _zip(tmp_path, {"pk/__init__.py": "", "pk/LICENSE": "MIT", "pk/metadata.txt": GOOD_META})
    monkeypatch.setattr(build_plugin, "MAX_ZIP_BYTES", 10)
    assert any("more than 10" in p for p in build_plugin.repository_problems(path))
    broken = tmp_path / "broken.zip"
    broken.write_bytes(b"PK\x03\x04garbage")
    assert "not a zip file" in build_plugin.repository_problems(broken)


@pytest.mark.parametrize(("field", "value"), [
    ("email", "swm-gis@example.org"), ("tracker", "http://bugs"), ("repository", "http://repo"),
    ("homepage", "https://www.example.com/swm"), ("email", "TODO"),
])
def test_placeholders_are_found(field, value):
    assert build_plugin.placeholders({field: value}) == [field]


def test_release_build_refuses_placeholders_and_takes_real_contacts(tmp_path):
    plugin = tmp_path / "swm_gis_qgis"
    shutil.copytree(REPO / "qgis_plugin" / "swm_gis_qgis", plugin,
                    ignore=shutil.ignore_patterns("__pycache__"))
    meta = plugin / "metadata.txt"
    meta.write_text(meta.read_text(encoding="utf-8").replace(
        "\nemail=", "\nemail=swm-gis@example.org\n#email="), encoding="utf-8")
    with pytest.raises(build_plugin.BuildError, match="placeholder value.*email"):
        build_plugin.build(tmp_path / "out", plugin, release=True, environ={})
    path = build_plugin.build(tmp_path / "out", plugin, release=True, environ=REAL)
    with zipfile.ZipFile(path) as zf:
        text = zf.read("swm_gis_qgis/metadata.txt").decode("utf-8")
    assert "\nemail=conservation@town.example-real.net\n" in text
    assert "\ntracker=https://git.lynnfield.test/swm-gis/issues\n" in text
    assert build_plugin.repository_problems(path) == []
    assert "example.org" in meta.read_text(encoding="utf-8")  # the source is not modified


def test_the_version_is_the_engines_in_the_zip_and_the_checkout(tmp_path):
    """One version (swm_gis/_version.py): the zip's metadata.txt is stamped from it whatever
    the checkout's says, and the checkout's is kept equal (``--sync-version``)."""
    from swm_gis._version import __version__

    assert build_plugin.engine_version() == __version__
    assert build_plugin.read_metadata()["version"] == __version__  # the checkout is in sync
    plugin = tmp_path / "swm_gis_qgis"
    shutil.copytree(REPO / "qgis_plugin" / "swm_gis_qgis", plugin,
                    ignore=shutil.ignore_patterns("__pycache__"))
    meta = plugin / "metadata.txt"
    meta.write_text(meta.read_text(encoding="utf-8").replace(f"version={__version__}",
                                                             "version=9.9.9"), encoding="utf-8")
    zip_path = build_plugin.build(tmp_path / "dist", plugin)
    assert zip_path.name == f"swm_gis_qgis-{__version__}.zip"
    with zipfile.ZipFile(zip_path) as zf:
        lines = zf.read("swm_gis_qgis/metadata.txt").decode("utf-8").splitlines()
    assert f"version={__version__}" in lines and "version=9.9.9" not in lines
    assert build_plugin.sync_version(plugin) is True
    assert f"version={__version__}" in meta.read_text(encoding="utf-8").splitlines()
    assert build_plugin.sync_version(plugin) is False  # nothing left to write

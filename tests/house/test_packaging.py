"""The package as users get it: wheel and sdist build and pass ``twine check``; the README's
install lines, run as written in a clean virtual environment outside the checkout, install the
wheel with its dependencies and ``swm-gis demo`` runs on the sample town shipped inside it."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tomllib
import zipfile

import pytest
from support.townkit import REPO

import swm_gis

MARKER = "<!-- install: tests/house/test_packaging.py runs these lines as written -->"


def readme_install_lines() -> list[str]:
    """The command lines of the README's tested install block (comments stripped)."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert MARKER in text, "the README's install block lost its marker"
    block = text.split(MARKER, 1)[1].split("```", 2)[1]
    lines = [re.sub(r"\s+#.*$", "", line).strip() for line in block.splitlines()]
    return [line for line in lines if line]


def version() -> str:
    """The one version (swm_gis/_version.py), which pyproject.toml reads (dynamic)."""
    meta = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert meta["project"]["dynamic"] == ["version"]
    assert meta["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "swm_gis._version.__version__"}
    return swm_gis.__version__


def test_readme_install_block_is_the_one_tested():
    wheel = f"dist/swm_gis-{version()}-py3-none-any.whl"
    assert readme_install_lines() == [
        "make dist",
        "python3 -m venv ~/swm-gis-env",
        f"~/swm-gis-env/bin/pip install {wheel}",
        "~/swm-gis-env/bin/swm-gis demo --out swm-gis-demo",
    ]
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    assert "-m build" in makefile and "twine check" in makefile


@pytest.mark.slow
def test_wheel_installs_and_runs_the_demo_outside_the_checkout(tmp_path):
    dist = tmp_path / "dist"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["HOME"] = str(tmp_path / "home")
    (tmp_path / "home").mkdir()
    # `make dist`: python -m build, then twine check
    subprocess.run([sys.executable, "-m", "build", "--outdir", str(dist), str(REPO)],
                   check=True, capture_output=True, env=env, cwd=tmp_path, timeout=300)
    built = sorted(p.name for p in dist.iterdir())
    assert built == [f"swm_gis-{version()}-py3-none-any.whl", f"swm_gis-{version()}.tar.gz"]
    check = subprocess.run([sys.executable, "-m", "twine", "check", "--strict",
                            *map(str, dist.iterdir())], capture_output=True, text=True, env=env)
    assert check.returncode == 0 and check.stdout.count("PASSED") == 2, check.stdout
    with zipfile.ZipFile(dist / built[0]) as zf:
        names = set(zf.namelist())
    assert {"swm_gis/sample/town.toml", "swm_gis/sample/sample.gpkg",
            "swm_gis/sample/sites.gpkg", "swm_gis/sample/dem.tif"} <= names
    # the public web map's page and its vendored Leaflet, with its licence (swm-gis publish)
    assert {"swm_gis/web/index.html", "swm_gis/web/app.js", "swm_gis/web/app.css",
            "swm_gis/web/key.js", "swm_gis/tables/legend.toml",
            "swm_gis/web/leaflet/leaflet.js", "swm_gis/web/leaflet/LICENSE",
            "swm_gis/regulations/lynnfield-ch320.quotes.toml",
            "swm_gis/reports/templates/screening_report.html.j2"} <= names
    # the bundled regulation profiles, Lynnfield's text and the profile's JSON Schema
    assert {"swm_gis/regulations/lynnfield-ch320.toml", "swm_gis/regulations/lynnfield-ch320.txt",
            "swm_gis/regulations/lynnfield-ch320.texts.toml",
            "swm_gis/regulations/westwood-ch350.toml",
            "swm_gis/regulations/north-andover-ch250.toml",
            "swm_gis/schemas/regulation.schema.json"} <= names
    assert not [n for n in names if n.endswith((".pyc", ".pyo")) or "/tests/" in n]
    for line in readme_install_lines()[1:]:  # as written, in a folder outside the checkout
        argv = [env["HOME"] + a[1:] if a.startswith("~/") else a for a in shlex.split(line)]
        if argv[0] == "python3":
            argv[0] = "/usr/bin/python3"
        if "demo" in argv:
            argv[1:1] = ["--progress", "none"]
        run = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=tmp_path,
                             timeout=600)
        assert run.returncode == 0, f"{line}\n{run.stdout[-2000:]}\n{run.stderr[-3000:]}"
    demo = tmp_path / "swm-gis-demo"
    assert (demo / "applicability" / "applicability.gpkg").is_file()
    assert (demo / "abutters" / "mailing_list.csv").is_file()
    assert (demo / "screen" / "site" / "screening.json").is_file()
    assert (demo / "publish" / "index.html").is_file()
    site = tmp_path / "home" / "swm-gis-env" / "lib"
    assert list(site.glob("python3*/site-packages/swm_gis/sample/town.toml"))
    assert not list(site.glob("python3*/site-packages/data"))  # no stray top-level folder

"""Start-up stays light: ``import swm_gis`` and ``swm-gis --help`` load no geo stack (the
public names and the commands import the engine when used; timings: benchmarks/bench_start.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import swm_gis
from swm_gis.cli import applicability as cli_applicability

REPO = Path(__file__).resolve().parents[2]
HEAVY = ("dask", "distributed", "pyflwdir", "numba", "reportlab", "matplotlib", "geopandas",
         "rasterio", "openpyxl")
SHOW_HEAVY = ("import json, sys; print(json.dumps(sorted(m for m in sys.modules "
              f"if m.split('.')[0] in {HEAVY!r})))")


def _heavy_after(code: str) -> list[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", f"{code}\n{SHOW_HEAVY}"], capture_output=True,
                          text=True, env=env, timeout=120, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("code", [
    "import swm_gis",
    "import contextlib, io\nfrom swm_gis.cli import main\n"
    "with contextlib.redirect_stdout(io.StringIO()):\n    assert main(['--help']) == 0",
    "import contextlib, io\nfrom swm_gis.cli import main\n"
    "with contextlib.redirect_stdout(io.StringIO()):\n    assert main(['abutters', '--help']) == 0",
], ids=["import", "help", "abutters-help"])
def test_start_up_imports_no_heavy_library(code):
    assert _heavy_after(code) == []


def test_a_public_name_imports_its_home_on_first_use():
    assert swm_gis.find_abutters.__module__ == "swm_gis.rules.abutters"
    assert set(swm_gis.__all__) <= set(dir(swm_gis))
    with pytest.raises(AttributeError, match="no_such_name"):
        swm_gis.no_such_name  # noqa: B018


def test_the_chunk_size_default_is_the_overlays():
    from swm_gis.applicability.overlays import DEFAULT_CHUNK_SIZE

    assert cli_applicability.DEFAULT_CHUNK_SIZE == DEFAULT_CHUNK_SIZE


def test_demo_outputs_are_read_when_asked():
    from swm_gis.cli import abutters, screen
    from swm_gis.results import OUTPUT_FILES

    assert tuple(OUTPUT_FILES.values()) == abutters.DEMO_OUTPUTS
    assert len(screen.DEMO_OUTPUTS) > 0
    with pytest.raises(AttributeError):
        abutters.NOT_THERE  # noqa: B018

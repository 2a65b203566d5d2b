"""Shared fixtures: small towns built by hand in tmp_path, and the real Cambridge config."""

from __future__ import annotations

import importlib.util
import os
import sys
import warnings
from pathlib import Path

import geopandas as gpd
import pytest
from hypothesis import HealthCheck, settings
from shapely.geometry import box
from support.townkit import CAMBRIDGE_CONFIG, CRS, REPO

# the throwaway PostGIS server and the session's sample-town demo (tests/support/)
pytest_plugins = ("support.postgis_server", "support.sample_demo")

#: pytest-qgis runs the plugin tests in real QGIS (make test installs both). Without it (a quick
#: local run in a plain venv, or ``-p no:pytest_qgis`` as make test-fast passes) the QGIS tests
#: are deselected with a note, not failed by a missing fixture; CI always has it.
HAVE_QGIS = importlib.util.find_spec("qgis") is not None
HAVE_PYTEST_QGIS = HAVE_QGIS and importlib.util.find_spec("pytest_qgis") is not None
if not HAVE_PYTEST_QGIS:
    collect_ignore_glob = ["plugin/test_plugin_*.py", "applicability/test_applicability_qgis.py"]


def _qgis_active(config) -> bool:
    return HAVE_QGIS and config.pluginmanager.hasplugin("pytest_qgis")


def pytest_addoption(parser, pluginmanager):
    # pyproject's qgis_gui_enabled is pytest-qgis's: known either way (also with -p no:pytest_qgis,
    # as make test-fast runs, where pytest would warn of an unknown option)
    if not HAVE_PYTEST_QGIS or pluginmanager.is_blocked("pytest_qgis"):
        parser.addini("qgis_gui_enabled", "pytest-qgis: run QGIS with a GUI", type="bool")
        parser.addini("qgis_disable_exit", "pytest-qgis: skip exitQgis", type="bool")


@pytest.hookimpl(wrapper=True)  # around xdist's own hook, which reads the xdist_group marks
def pytest_collection_modifyitems(config, items):
    if not _qgis_active(config):
        qgis = [item for item in items if item.get_closest_marker("qgis")]
        if qgis:
            config.hook.pytest_deselected(items=qgis)
            items[:] = [item for item in items if not item.get_closest_marker("qgis")]
    _xdist_groups(items)
    result = yield
    _xdist_group_suffix(config, items)
    return result


def _xdist_groups(items) -> None:
    """Which tests one pytest-xdist worker runs together (``make test``: ``--dist loadgroup``).

    * ``qgis``: every QGIS test, so one worker holds the plugin's session fixtures (the loaded
      plugin, the hand-made block) and the others never wait on QGIS;
    * ``postgis``: every test of the throwaway PostGIS server, so the session starts one server;
    * a module whose tests share a module-scoped fixture (a sphinx build, a Cambridge package, a
      generated town): the whole module, so the fixture is computed once, not once per worker.

    Everything else is spread test by test. Without xdist the marks do nothing.
    """
    shared_modules = {_module(item) for item in items if _uses_module_fixture(item)}
    for item in items:
        if item.get_closest_marker("qgis"):
            group = "qgis"
        elif "postgis_server" in getattr(item, "fixturenames", ()):
            group = "postgis"
        elif _module(item) in shared_modules:
            group = _module(item)
        else:
            continue
        item.add_marker(pytest.mark.xdist_group(group))


def _xdist_group_suffix(config, items) -> None:
    """Make ``--dist loadgroup`` group on pytest 9.2: xdist <= 3.8 tells the controller an item's
    group by appending ``@group`` to its ``_nodeid``, which pytest 9.2's structured node ids no
    longer read, so every test was spread alone (pytest-xdist issue 1386, fix in PR 1388). Here,
    after xdist's own hook, a grouped item whose id lacks the suffix gets it in the structured id
    (what that PR does). Delete this once xdist does it; if pytest's internals move again, the
    run warns that it is ungrouped (slower, never wrong: the groups save time, they do not
    isolate anything)."""
    if not (os.environ.get("PYTEST_XDIST_WORKER") and config.getvalue("loadgroup")):
        return
    lost = 0
    for item in items:
        marks = [m.args[0] if m.args else m.kwargs.get("name", "default")
                 for m in item.iter_markers("xdist_group")]
        if not marks or "@" in item.nodeid.rpartition("]")[2]:
            continue
        node_id = getattr(item, "_id", None)
        try:
            item._id = type(node_id).parse(f"{item.nodeid}@{'_'.join(sorted(set(marks)))}")
        except (AttributeError, TypeError):
            lost += 1
    if lost:
        warnings.warn(f"{lost} tests lost their xdist_group (pytest-xdist cannot read it from "
                      "this pytest's node ids): they run ungrouped", stacklevel=1)


def _module(item) -> str:
    return item.nodeid.split("::", 1)[0]


def _uses_module_fixture(item) -> bool:
    info = getattr(item, "_fixtureinfo", None)  # doctest items have none
    return info is not None and any(
        defs and defs[-1].scope in ("module", "class", "package")
        for defs in info.name2fixturedefs.values())


def pytest_report_header(config):
    if not _qgis_active(config):
        return ("pytest-qgis or PyQGIS not active: the QGIS tests are deselected "
                "(make test runs them)")


_SESSION: dict[str, pytest.Session] = {}


def pytest_sessionfinish(session, exitstatus):
    _SESSION["session"] = session


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    """End a run that loaded QGIS without finalising the interpreter.

    With the whole plugin suite loaded, the process can crash (SIGSEGV, exit 139) while Python
    shuts down, after every test has passed and the summary has been printed: native QGIS/Qt
    objects destroyed after QGIS itself. pytest-qgis is told not to call
    ``exitQgis`` (pyproject ``qgis_disable_exit``), and here the process ends with pytest's own
    exit status once the results are written, so the exit code is the tests' verdict.
    ``SWM_GIS_PYTEST_FINALIZE=1`` keeps the normal shutdown (to chase the crash).

    Under pytest-xdist this runs in each worker and in the controller. A worker has sent its
    last report (``workerfinished``, in ``pytest_sessionfinish``) before it gets here, and the
    controller ignores how a finished worker's process ends; the controller's own status counts
    every worker's failures, so ``make test`` exits 1 when any test failed anywhere. The status
    is read here, after every ``pytest_sessionfinish`` hook, not where it was first reported.
    """
    session = _SESSION.get("session")
    if "qgis.core" in sys.modules and session is not None \
            and not os.environ.get("SWM_GIS_PYTEST_FINALIZE"):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(int(session.exitstatus))


# CI (``CI`` set: .ci/run sets it) replays the same examples every run, so a failure there is
# reproducible: examples seeded from each test's source (derandomize), no example database (a
# clean clone has none, a reused work tree would replay old failures), and no check that depends
# on the machine's speed (deadline, too_slow: a loaded CI machine must not fail a passing test).
# Locally hypothesis explores new examples each run and keeps its database.
settings.register_profile("ci", derandomize=True, database=None, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow], print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture
def simple_parcels() -> gpd.GeoDataFrame:
    """Three 20 m x 20 m parcels in a row, MassGIS field names, EPSG:26986."""
    return gpd.GeoDataFrame(
        {"LOC_ID": ["M_1", "M_2", "M_3"], "MAP_PAR_ID": ["1-1", "1-2", "1-3"],
         "TOWN_ID": [164, 164, 164], "POLY_TYPE": ["FEE", "FEE", "ROW"]},
        geometry=[box(238000 + 20 * i, 918000, 238020 + 20 * i, 918020) for i in range(3)],
        crs=CRS,
    )


@pytest.fixture
def cambridge_config() -> Path:
    assert CAMBRIDGE_CONFIG.is_file(), f"missing {CAMBRIDGE_CONFIG}"
    assert (REPO.parent / "shared" / "data" / "cambridge").is_dir(), (
        "the real Cambridge layers must sit in ../shared/data/cambridge beside the repository"
    )
    return CAMBRIDGE_CONFIG


@pytest.fixture(autouse=True, scope="session")
def _flowgrid_cache_in_tmp(tmp_path_factory):
    """Flow grids the suite computes are cached in a session folder, not the user's cache
    (subprocess CLI runs inherit the variable)."""
    old = os.environ.get("SWM_GIS_CACHE_DIR")
    os.environ["SWM_GIS_CACHE_DIR"] = str(tmp_path_factory.mktemp("swm-gis-cache"))
    yield
    if old is None:
        os.environ.pop("SWM_GIS_CACHE_DIR", None)
    else:
        os.environ["SWM_GIS_CACHE_DIR"] = old

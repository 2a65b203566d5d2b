# swm-gis: `make demo` and `make test` do all the set-up on a fresh Debian 12 machine (as root).
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
SYS_PY ?= /usr/bin/python3
APT := DEBIAN_FRONTEND=noninteractive apt-get
export QT_QPA_PLATFORM ?= offscreen

.PHONY: demo test test-fast dev-setup lint docs tutorial tutorial-clear setup system-deps test-deps qgis plugin sample bench clean dist vendor-web

demo: setup
	$(VENV)/bin/swm-gis demo --out swm-gis-demo

test: dev-setup test-deps
	$(VENV)/bin/ruff check .
	$(PY) scripts/complexity.py $(COMPLEXITY_PATHS)
	$(MAKE) --no-print-directory bench-smoke
	$(PY) -m pytest $(PYTEST_PARALLEL) --durations=25

# A quick local run: lint, then every test not marked slow or qgis (no QGIS, browser or server
# needed beyond what the venv has). `make test` runs everything.
test-fast: dev-setup
	$(VENV)/bin/ruff check .
	$(PY) scripts/complexity.py $(COMPLEXITY_PATHS)
	$(PY) -m pytest $(PYTEST_PARALLEL) -m "not slow and not qgis" -p no:pytest_qgis

# make test and test-fast run pytest on every core (at most 4: each worker holds its own QGIS and
# geo stack): the QGIS tests on one worker, the PostGIS ones on one, each module sharing a
# module fixture on one (xdist_group marks, tests/conftest.py). PYTEST_PARALLEL= runs serially.
# make test also lists the 25 slowest tests.
PYTEST_PARALLEL ?= -n auto --maxprocesses=4 --dist loadgroup

# ruff, then no function over cyclomatic complexity 20 (scripts/complexity.py, radon) in the
# engine (swm_gis/) or the QGIS plugin (qgis_plugin/).
COMPLEXITY_PATHS ?= swm_gis qgis_plugin
lint: dev-setup
	$(VENV)/bin/ruff check .
	$(PY) scripts/complexity.py $(COMPLEXITY_PATHS)

# API reference + tutorial page (the notebook run, with its outputs) into docs/_build/html;
# any Sphinx warning, broken cross-reference or failing notebook cell fails the build.
# (make test builds them too, and executes the notebook: tests/e2e/test_docs.py)
DOCS_OUT ?= docs/_build/html
docs: dev-setup
	$(PY) -m sphinx -W --keep-going -b html docs $(DOCS_OUT)
	@echo "open $(DOCS_OUT)/index.html"

# Execute the tutorial notebook alone (make test runs it once, in the docs build, with nbclient
# as nbmake does; pytest-qgis is left out: it cannot tear down a notebook item).
tutorial: dev-setup
	$(PY) -m pytest -p no:pytest_qgis -p no:cacheprovider -o addopts="" --nbmake docs/tutorial.ipynb

# Clear the notebook's outputs before committing it (tests/e2e/test_docs.py checks they are cleared).
tutorial-clear: dev-setup
	$(PY) scripts/clear_notebook.py docs/tutorial.ipynb

# `make demo` needs the core only; the tests, docs, packaging, Dask and PostGIS extras are for
# `make test` (dev-setup).
setup: $(VENV)/.installed-core
dev-setup: $(VENV)/.installed-all

# The venv sees the system's site-packages so PyQGIS (Debian's python3-qgis) and the pip wheels
# live in one interpreter; pip installs take precedence over Debian's copies.
$(VENV)/.installed-core: pyproject.toml | system-deps
	$(SYS_PY) -m venv --system-site-packages $(VENV)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install -e .
	touch $@

$(VENV)/.installed-all: $(VENV)/.installed-core
	$(PY) -m pip install -e ".[all]"
	touch $@

# Debian packages the venv itself needs (venv/pip for /usr/bin/python3, fonts for the PDFs).
system-deps:
	@missing=""; \
	$(SYS_PY) -c "import venv, ensurepip" 2>/dev/null || missing="$$missing python3-venv python3-pip"; \
	[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || missing="$$missing fonts-dejavu-core"; \
	if [ -n "$$missing" ]; then $(APT) update && $(APT) install -y $$missing; fi

# What the whole suite needs beyond the venv: QGIS 3 with PyQGIS (plugin tests), Chromium
# (rendering the HTML report; the web map tests drive it through Playwright), poppler-utils (PDF checks by eye, pdftoppm), PostgreSQL 15 with
# PostGIS 3 (tests/support/postgis_server.py starts a throwaway server; no service is enabled).
test-deps: system-deps
	@missing=""; \
	$(SYS_PY) -c "import qgis.core" 2>/dev/null || missing="$$missing qgis python3-qgis"; \
	[ -x /usr/bin/qgis_process.bin ] || missing="$$missing qgis"; \
	command -v chromium >/dev/null || missing="$$missing chromium"; \
	command -v pdftoppm >/dev/null || missing="$$missing poppler-utils"; \
	[ -x /usr/lib/postgresql/15/bin/initdb ] || missing="$$missing postgresql"; \
	[ -f /usr/share/postgresql/15/extension/postgis.control ] || \
		missing="$$missing postgresql-15-postgis-3"; \
	if [ -n "$$missing" ]; then $(APT) update && $(APT) install -y $$missing; fi

qgis: test-deps

plugin: dev-setup
	$(PY) scripts/build_plugin.py --sync-version
	$(PY) scripts/gen_plugin_catalog.py
	$(PY) scripts/build_plugin.py

# The wheel and sdist users install (README "Install elsewhere"), checked as PyPI would.
dist: dev-setup
	$(PY) -m build --outdir dist .
	$(VENV)/bin/twine check --strict dist/*

sample: setup
	$(PY) data/generate_sample_town.py

bench: dev-setup test-deps
	$(PY) benchmarks/bench_applicability.py
	$(PY) benchmarks/bench_abutters.py
	$(PY) benchmarks/bench_publish.py

# Every benchmarks/bench_*.py once in smoke mode (--smoke: a few hundred parcels or a small
# grid, one run, answers checked, a temporary folder), so no benchmark rots unseen; a missing
# QGIS, PostGIS or Chromium is skipped with a note (fails under CI). Any failure fails the build.
# Two benches at a time (one per core of the 2-core machine; BENCH_SMOKE_JOBS=1 streams output).
BENCH_SMOKE_JOBS ?= 2
.PHONY: bench-smoke
bench-smoke: dev-setup
	$(PY) benchmarks/smoke.py --jobs $(BENCH_SMOKE_JOBS)

# Leaflet (the web map) and axe-core (its accessibility test) again from the npm registry
vendor-web:
	bash scripts/vendor_web.sh

clean:
	rm -rf $(VENV) build dist *.egg-info swm-gis-demo .pytest_cache docs/_build docs/generated docs/tutorial.md docs/_tutorial_files

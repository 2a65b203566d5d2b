# swm-gis: `make demo` and `make test` do all the set-up on a fresh Debian 12 machine (as root).
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
SYS_PY ?= /usr/bin/python3
APT := DEBIAN_FRONTEND=noninteractive apt-get
export QT_QPA_PLATFORM ?= offscreen

.PHONY: demo test lint setup system-deps test-deps qgis plugin sample bench clean dist

demo: setup
	$(VENV)/bin/swm-gis demo --out swm-gis-demo

test: setup test-deps
	$(VENV)/bin/ruff check .
	$(PY) -m pytest

lint: setup
	$(VENV)/bin/ruff check .

setup: $(VENV)/.installed

# The venv sees the system's site-packages so PyQGIS (Debian's python3-qgis) and the pip wheels
# live in one interpreter; pip installs take precedence over Debian's copies.
$(VENV)/.installed: pyproject.toml | system-deps
	$(SYS_PY) -m venv --system-site-packages $(VENV)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install -e ".[all]"
	touch $@

# Debian packages the venv itself needs (venv/pip for /usr/bin/python3, fonts for the PDFs).
system-deps:
	@missing=""; \
	$(SYS_PY) -c "import venv, ensurepip" 2>/dev/null || missing="$$missing python3-venv python3-pip"; \
	[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || missing="$$missing fonts-dejavu-core"; \
	if [ -n "$$missing" ]; then $(APT) update && $(APT) install -y $$missing; fi

# What the whole suite needs beyond the venv: QGIS 3 with PyQGIS (plugin tests), Chromium
# (rendering the HTML report), poppler-utils (PDF checks by eye, pdftoppm), PostgreSQL 15 with
# PostGIS 3 (tests/postgis_server.py starts a throwaway server; no service is enabled).
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

plugin: setup
	$(PY) scripts/build_plugin.py

# The wheel and sdist users install (README "Install elsewhere"), checked as PyPI would.
dist: setup
	$(PY) -m build --outdir dist .
	$(VENV)/bin/twine check --strict dist/*

sample: setup
	$(PY) data/generate_sample_town.py

bench: setup test-deps
	$(PY) benchmarks/bench_applicability.py
	$(PY) benchmarks/bench_abutters.py

clean:
	rm -rf $(VENV) build dist *.egg-info swm-gis-demo .pytest_cache

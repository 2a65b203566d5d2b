"""Build the installable QGIS plugin zip: dist/swm_gis_qgis-<version>.zip.

The zip holds one top folder, ``swm_gis_qgis/``, as QGIS's "Install from ZIP" expects, with the
plugin's Python modules, metadata.txt, icon, help page and the licence; no caches, no tests (the
QGIS styles of the outputs are the engine's, stored in its GeoPackages).
The metadata is checked first (the fields the QGIS plugin repository requires, a Processing
provider, QGIS 3.22 minimum), so a broken zip is never written.

Usage (``make plugin`` runs this)::

    .venv/bin/python scripts/build_plugin.py [--out dist] [--release] [--wheel FILE | --no-engine]

The zip carries the engine: the swm-gis wheel goes into ``swm_gis_qgis/engine/``, where the
plugin's "Set up the swm-gis engine" installs it from (a town's staff never need a checkout or a
command line). Without ``--wheel`` it is built from this checkout (``python -m build``, through
an sdist; it fetches the build backend from the package index); ``--no-engine`` leaves it out.

Every zip is checked against the rules of the official plugin repository's upload validator
(plugins.qgis.org, ``qgis-app/plugins/validator.py``): size at most 25 MB, one top folder named
like a Python package, ``__init__.py``, ``metadata.txt`` with the required fields, ``LICENSE``, no
``.pyc`` / ``__pycache__`` / ``.git`` / ``__MACOSX``, no ``..`` or absolute member names, author
without ``/``, well-formed ``homepage`` / ``tracker`` / ``repository`` URLs. ``--release`` also
refuses placeholder contacts (``example.org`` addresses, the validator's ``http://bugs``-style
defaults): set the real ones in metadata.txt, or for one build in ``SWM_GIS_PLUGIN_EMAIL``,
``SWM_GIS_PLUGIN_HOMEPAGE``, ``SWM_GIS_PLUGIN_TRACKER`` and ``SWM_GIS_PLUGIN_REPOSITORY``. (The
repository also checks that the URLs answer; that needs the network and is left to the upload.)

The zip's ``version=`` is the engine's, read from ``swm_gis/_version.py`` (the one place the
version is written): the plugin and the engine it installs always carry the same number. The
checkout's own metadata.txt (read when QGIS runs the plugin from the checkout) is kept equal by
``--sync-version`` (``make plugin`` runs it; a test fails if they differ).

Standard library only; prints the zip's path. Before building, the plugin's parameter catalog is
generated from the engine's config schema (``scripts/gen_plugin_catalog.py``).
"""

from __future__ import annotations

import argparse
import ast
import configparser
import os
import re
import sys
import zipfile
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "qgis_plugin" / "swm_gis_qgis"
NAME = PLUGIN.name
REQUIRED = ("name", "qgisMinimumVersion", "description", "about", "version", "author", "email",
            "repository")
SKIP_DIRS = {"__pycache__", ".pytest_cache", ".ruff_cache", "tests", "engine"}
SKIP_SUFFIXES = {".pyc", ".pyo", ".orig", ".rej", ".swp"}
#: The official repository's limits and required fields (plugins.qgis.org validator).
MAX_ZIP_BYTES = 25_000_000
REPOSITORY_REQUIRED = ("name", "description", "version", "qgisMinimumVersion", "author", "email",
                       "about", "tracker", "repository")
URL_FIELDS = ("homepage", "tracker", "repository")
FORBIDDEN_DIRS = ("__MACOSX", ".git", "__pycache__")
#: Metadata fields a release build may take from the environment (SWM_GIS_PLUGIN_<FIELD>).
OVERRIDABLE = ("email", "homepage", "tracker", "repository")
_PLACEHOLDER = re.compile(r"(@|//|\.)example\.(org|com|net)\b|^https?://(bugs|repo|homepage)/?$|"
                          r"localhost|\bTODO\b|\bFIXME\b|changeme", re.IGNORECASE)


class BuildError(Exception):
    pass


def engine_version(root: Path = ROOT) -> str:
    """``__version__`` of ``swm_gis/_version.py``, read without importing the engine."""
    tree = ast.parse((root / "swm_gis" / "_version.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__version__"
                                                for t in node.targets):
            return str(ast.literal_eval(node.value))
    raise BuildError(f"{root / 'swm_gis' / '_version.py'} sets no __version__.")


def sync_version(plugin: Path = PLUGIN, version: str | None = None) -> bool:
    """Write the engine's version into ``plugin``'s metadata.txt; True when it changed."""
    path = plugin / "metadata.txt"
    text = path.read_text(encoding="utf-8")
    new = _with_overrides(text, {"version": version or engine_version()})
    if new != text:
        path.write_text(new, encoding="utf-8")
    return new != text


def read_metadata(plugin: Path = PLUGIN) -> dict[str, str]:
    """metadata.txt's [general] section, checked."""
    path = plugin / "metadata.txt"
    if not path.is_file():
        raise BuildError(f"{path} is missing; the plugin needs a metadata.txt.")
    cp = configparser.ConfigParser(interpolation=None)
    cp.optionxform = str  # keep qgisMinimumVersion's case
    cp.read(path, encoding="utf-8")
    if "general" not in cp:
        raise BuildError(f"{path} has no [general] section.")
    meta = dict(cp["general"])
    missing = [k for k in REQUIRED if not meta.get(k, "").strip()]
    if missing:
        raise BuildError(f"{path} lacks {', '.join(missing)}; the QGIS plugin repository "
                         "requires them.")
    if meta.get("hasProcessingProvider", "").strip().lower() != "yes":
        raise BuildError(f"{path}: hasProcessingProvider must be yes.")
    if meta["qgisMinimumVersion"].strip() != "3.22":
        raise BuildError(f"{path}: qgisMinimumVersion must be 3.22 (the oldest QGIS tested).")
    icon = meta.get("icon", "").strip()
    if not icon or not (plugin / icon).is_file():
        raise BuildError(f"{path}: icon={icon or '(none)'} does not name a file of the plugin.")
    if not (plugin / "LICENSE").is_file():
        raise BuildError(f"{plugin / 'LICENSE'} is missing; the plugin repository requires it.")
    if not (plugin / "__init__.py").read_text(encoding="utf-8").count("def classFactory"):
        raise BuildError(f"{plugin / '__init__.py'} has no classFactory(iface).")
    return meta


def plugin_files(plugin: Path = PLUGIN) -> list[Path]:
    """Files that go into the zip, sorted (so the archive is reproducible)."""
    out = []
    for path in sorted(plugin.rglob("*")):
        rel = path.relative_to(plugin)
        if any(part in SKIP_DIRS or part.startswith(".") for part in rel.parts):
            continue
        if path.is_file() and path.suffix not in SKIP_SUFFIXES:
            out.append(path)
    return out


def overrides(environ: dict[str, str] | None = None) -> dict[str, str]:
    """Metadata values given in the environment for this build (SWM_GIS_PLUGIN_EMAIL, ...)."""
    environ = os.environ if environ is None else environ
    return {k: environ[f"SWM_GIS_PLUGIN_{k.upper()}"].strip() for k in OVERRIDABLE
            if environ.get(f"SWM_GIS_PLUGIN_{k.upper()}", "").strip()}


def placeholders(meta: dict[str, str]) -> list[str]:
    """Contact fields that are placeholders rather than real addresses."""
    return [k for k in ("email", *URL_FIELDS) if _PLACEHOLDER.search(meta.get(k, "").strip())]


def _with_overrides(text: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        text, n = re.subn(rf"(?m)^{key}=.*$", f"{key}={value}", text)
        if not n:
            text = text.replace("[general]\n", f"[general]\n{key}={value}\n", 1)
    return text


def build_wheel(out_dir: Path) -> Path:
    """The engine's wheel built from this checkout into ``out_dir``: through an sdist (what
    ``python -m build`` does without ``--wheel``), so a stale ``build/lib`` of the checkout
    never slips old modules into it."""
    import subprocess

    out_dir.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out_dir), str(ROOT)],
                          capture_output=True, text=True)
    wheels = sorted(out_dir.glob("swm_gis-*.whl"))
    if proc.returncode != 0 or not wheels:
        raise BuildError("could not build the engine wheel (python -m build): "
                         + (proc.stderr or proc.stdout).strip()[-800:])
    return wheels[-1]


def generate_catalog() -> None:
    """The plugin's parameter catalog written from the engine's config schema
    (scripts/gen_plugin_catalog.py, run by this checkout's Python: it imports the engine)."""
    import subprocess

    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_plugin_catalog.py")],
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise BuildError("could not generate the plugin's catalog (gen_plugin_catalog.py): "
                         + (proc.stderr or proc.stdout).strip()[-800:])


def build(out_dir: Path = ROOT / "dist", plugin: Path = PLUGIN, *, release: bool = False,
          environ: dict[str, str] | None = None, wheel: Path | None = None) -> Path:
    """The plugin zip in ``out_dir``; with ``wheel``, the engine wheel in ``engine/``."""
    meta = read_metadata(plugin)
    values = {"version": engine_version(), **overrides(environ)}
    meta.update(values)
    if release and placeholders(meta):
        raise BuildError(
            f"{plugin / 'metadata.txt'}: placeholder value(s) in {', '.join(placeholders(meta))}; "
            "the plugin repository needs real contacts. Set them in metadata.txt or in "
            "SWM_GIS_PLUGIN_EMAIL / _HOMEPAGE / _TRACKER / _REPOSITORY for this build."
        )
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"{NAME}-{meta['version'].strip()}.zip"
    tmp = target.with_suffix(".zip.part")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for path in plugin_files(plugin):
            info = zipfile.ZipInfo(f"{NAME}/{path.relative_to(plugin).as_posix()}",
                                   date_time=(2026, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            data = path.read_bytes()
            if path.relative_to(plugin).as_posix() == "metadata.txt":
                data = _with_overrides(data.decode("utf-8"), values).encode("utf-8")
            zf.writestr(info, data)
        if wheel is not None:
            if not re.fullmatch(r"swm_gis-[^-]+-py3-none-any\.whl", wheel.name):
                raise BuildError(f"{wheel} is not a pure-Python swm-gis wheel "
                                 "(swm_gis-<version>-py3-none-any.whl).")
            info = zipfile.ZipInfo(f"{NAME}/engine/{wheel.name}", date_time=(2026, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_STORED  # a wheel is a zip already
            zf.writestr(info, wheel.read_bytes())
    problems = repository_problems(tmp)
    if problems:
        tmp.unlink()
        raise BuildError("the zip would be refused by the QGIS plugin repository: "
                         + "; ".join(problems))
    tmp.replace(target)
    return target


def repository_problems(zip_path: Path) -> list[str]:
    """What the official plugin repository's upload validator would refuse in a zip (its
    offline rules; the reachability of the URLs needs the network and is not checked)."""
    problems: list[str] = []
    if zip_path.stat().st_size > MAX_ZIP_BYTES:
        problems.append(f"{zip_path.stat().st_size:,} bytes, more than {MAX_ZIP_BYTES:,}")
    try:
        zf = zipfile.ZipFile(zip_path)
    except zipfile.BadZipFile:
        return [*problems, "not a zip file"]
    with zf:
        names = zf.namelist()
        for name in names:
            parts = name.split("/")
            if ".." in name or name.startswith("/"):
                problems.append(f"path information in {name}")
            if ".pyc" in name:
                problems.append(f"compiled file {name}")
            if any(d in parts for d in FORBIDDEN_DIRS):
                problems.append(f"forbidden folder in {name}")
        if zf.testzip() is not None:
            problems.append(f"bad member {zf.testzip()}")
        tops = sorted({n.split("/")[0] for n in names})
        if len(tops) != 1 or not names or "/" not in names[0]:
            return [*problems, f"one top folder needed, found {', '.join(tops) or 'none'}"]
        package = tops[0]
        if not re.match(r"^[A-Za-z][A-Za-z0-9-_]+$", package):
            problems.append(f"top folder {package} is not a valid package name")
        for needed in ("__init__.py", "metadata.txt", "LICENSE"):
            if f"{package}/{needed}" not in names:
                problems.append(f"no {package}/{needed}")
        if f"{package}/metadata.txt" not in names:
            return problems
        cp = configparser.ConfigParser(interpolation=None)
        cp.optionxform = str
        cp.read_string(zf.read(f"{package}/metadata.txt").decode("utf-8"))
    meta = dict(cp["general"]) if cp.has_section("general") else {}
    missing = [k for k in REPOSITORY_REQUIRED if not meta.get(k, "").strip()]
    if missing:
        problems.append(f"metadata lacks {', '.join(missing)}")
    if "/" in meta.get("author", ""):
        problems.append("author contains a slash")
    for key in URL_FIELDS:
        url = meta.get(key, "").strip()
        parsed = urlparse(url)
        if key in meta and not (parsed.scheme in ("http", "https") and parsed.netloc):
            problems.append(f"{key} is not a web address: {url!r}")
    if not re.fullmatch(r"[^@\s]+@[^@\s]+\.[^@\s]+", meta.get("email", "").strip()):
        problems.append(f"email is not an e-mail address: {meta.get('email')!r}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build the swm-gis QGIS plugin zip.")
    parser.add_argument("--out", type=Path, default=ROOT / "dist",
                        help="folder for the zip (default: dist/)")
    parser.add_argument("--release", action="store_true",
                        help="refuse placeholder contacts (for uploading to plugins.qgis.org)")
    parser.add_argument("--wheel", type=Path, help="the engine wheel to carry (default: build "
                        "it from this checkout)")
    parser.add_argument("--no-engine", action="store_true",
                        help="leave the engine wheel out (the plugin then needs an engine "
                        "installed by other means)")
    parser.add_argument("--sync-version", action="store_true",
                        help="only write the engine's version into the checkout's metadata.txt")
    args = parser.parse_args(argv)
    if args.sync_version:
        changed = sync_version()
        print(f"metadata.txt version={engine_version()}" + (" (written)" if changed else ""))
        return 0
    try:
        generate_catalog()
        wheel = None if args.no_engine else args.wheel or build_wheel(args.out / "engine-wheel")
        path = build(args.out, release=args.release, wheel=wheel)
    except BuildError as exc:
        print(f"build_plugin: {exc}", file=sys.stderr)
        return 2
    left = placeholders({**read_metadata(), **overrides()})
    if left:
        print(f"build_plugin: note: placeholder value(s) in {', '.join(left)}: fine for Install "
              "from ZIP, refused by --release (see the module docstring).", file=sys.stderr)
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())

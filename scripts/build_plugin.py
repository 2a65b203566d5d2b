"""Build the installable QGIS plugin zip: dist/swm_gis_qgis-<version>.zip.

The zip holds one top folder, ``swm_gis_qgis/``, as QGIS's "Install from ZIP" expects, with the
plugin's Python modules, metadata.txt, icon, QML styles and the licence; no caches, no tests.
The metadata is checked first (the fields the QGIS plugin repository requires, a Processing
provider, QGIS 3.22 minimum), so a broken zip is never written.

Usage (``make plugin`` runs this)::

    .venv/bin/python scripts/build_plugin.py [--out dist]

Standard library only; prints the zip's path.
"""

from __future__ import annotations

import argparse
import configparser
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "qgis_plugin" / "swm_gis_qgis"
NAME = PLUGIN.name
REQUIRED = ("name", "qgisMinimumVersion", "description", "about", "version", "author", "email",
            "repository")
SKIP_DIRS = {"__pycache__", ".pytest_cache", ".ruff_cache", "tests"}
SKIP_SUFFIXES = {".pyc", ".pyo", ".orig", ".rej", ".swp"}


class BuildError(Exception):
    pass


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


def build(out_dir: Path = ROOT / "dist", plugin: Path = PLUGIN) -> Path:
    meta = read_metadata(plugin)
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"{NAME}-{meta['version'].strip()}.zip"
    tmp = target.with_suffix(".zip.part")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for path in plugin_files(plugin):
            info = zipfile.ZipInfo(f"{NAME}/{path.relative_to(plugin).as_posix()}",
                                   date_time=(2026, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, path.read_bytes())
    tmp.replace(target)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build the swm-gis QGIS plugin zip.")
    parser.add_argument("--out", type=Path, default=ROOT / "dist",
                        help="folder for the zip (default: dist/)")
    args = parser.parse_args(argv)
    try:
        path = build(args.out)
    except BuildError as exc:
        print(f"build_plugin: {exc}", file=sys.stderr)
        return 2
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Write the QGIS plugin's parameter catalog from the engine's config schema.

The plugin runs the engine out of process and cannot import it, so its layer and field
parameters (names, labels, help, default fields, required and text fields) come from a data file
generated here from ``swm_gis/tables/layer_schema.toml`` (:func:`swm_gis.config.schema.
plugin_catalog`): ``qgis_plugin/swm_gis_qgis/catalog_data.json``. ``make plugin`` and
``scripts/build_plugin.py`` run it before building the zip; ``tests/plugin/test_catalog.py``
checks that the file in the checkout is what this script writes now.

Usage::

    .venv/bin/python scripts/gen_plugin_catalog.py [--check]

``--check`` writes nothing and exits 1 when the file differs. Prints the file's path.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "qgis_plugin" / "swm_gis_qgis" / "catalog_data.json"


def catalog_text() -> str:
    """The catalog data file's text, from this checkout's engine schema."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from swm_gis.config.schema import plugin_catalog

    return json.dumps(plugin_catalog(), indent=1, ensure_ascii=False) + "\n"


def write(target: Path | None = None) -> bool:
    """Write the catalog to ``target`` (default :data:`TARGET`, atomically) when it differs;
    whether it did."""
    target = target or TARGET
    text = catalog_text()
    if target.is_file() and target.read_text(encoding="utf-8") == text:
        return False
    tmp = target.with_name(target.name + ".part")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, target)
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 when the file is not what would be written")
    args = parser.parse_args(argv)
    if args.check:
        same = TARGET.is_file() and TARGET.read_text(encoding="utf-8") == catalog_text()
        if not same:
            print(f"{TARGET} is out of date: run scripts/gen_plugin_catalog.py", file=sys.stderr)
            return 1
        print(TARGET)
        return 0
    changed = write()
    print(f"{TARGET}" + (" (written)" if changed else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())

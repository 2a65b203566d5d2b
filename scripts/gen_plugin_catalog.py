"""Write the QGIS plugin's parameter catalog from the engine's config schema and tables.

The plugin runs the engine out of process and cannot import it, so its layer and field
parameters (names, labels, help, default fields, required and text fields) come from a data file
generated here from ``swm_gis/tables/layer_schema.toml`` (:func:`swm_gis.config.schema.
plugin_catalog`): ``qgis_plugin/swm_gis_qgis/catalog_data.json``. So do the choices its dialogs
offer (``choices``): the Avery sheets (``swm_gis.reports.labels.SHEETS``), the notice lists and
the orders of a mailing list (``swm_gis.notification.notice``: ``NOTICES``, ``SORT_LABELS`` and
``tables/notice.toml``), the development types (``swm_gis.screening.request``) and the
exemptions of the default regulation profile's newest version (the engine checks a claim
against the applied profile's at run time, so another town's profile refuses a name it lacks in
the engine's words); the ids of the bundled regulation profiles (``regulation``); and the
screening's finding keys and statuses (``findings``).
``make plugin`` and ``scripts/build_plugin.py`` run it before building the zip;
``tests/plugin/test_catalog.py`` checks that the file in the checkout is what this script
writes now.

Usage::

    .venv/bin/python scripts/gen_plugin_catalog.py [--check]

``--check`` writes nothing and exits 1 when the file differs. Prints the file's path.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "qgis_plugin" / "swm_gis_qgis" / "catalog_data.json"


def catalog_text() -> str:
    """The catalog data file's text, from this checkout's engine schema."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from swm_gis.config.schema import plugin_catalog

    data = plugin_catalog()
    data["choices"] = choices()
    data["regulation"] = regulations()
    data["findings"] = findings()
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def _choice(value: str, label: str, **extra: str) -> dict[str, str]:
    return {"value": value, "label": label, **extra}


def choices() -> dict[str, list[dict[str, str]]]:
    """The engine's choices a dialog offers before the engine runs, each ``{value, label}`` in
    the engine's order (the first is the dialog's default)."""
    from swm_gis.config.regulation import DEFAULT_ID, read_regulation
    from swm_gis.notification.notice import NOTICES, SORT_LABELS, notice_table
    from swm_gis.reports.labels import SHEETS
    from swm_gis.screening.request import DEVELOPMENT_CHOICES

    table = notice_table()
    notice_labels = {
        "conservation": f"{table['conservation']['board']}: the regulation's notice clause "
                        "(its distance)",
        "zoning": f"{table['zoning']['board']}: {table['zoning']['citation']} parties in "
                  f"interest ({table['zoning']['distance_ft']:g} ft)"}
    newest = read_regulation(DEFAULT_ID).versions[-1]
    return {
        "label_templates": [_choice(k, f"{s.name}: {s.per_page} per sheet, "
                                       f"{s.label_w:g} x {s.label_h:.3g} in")
                            for k, s in SHEETS.items()],
        "notices": [_choice(k, notice_labels[k]) for k in NOTICES],
        "sorts": [_choice(k, label) for k, label in SORT_LABELS.items()],
        "development": [_choice(k, k) for k in DEVELOPMENT_CHOICES],
        "exemptions": [_choice(e.key, f"{e.key} ({e.citation}): "
                                      + textwrap.shorten(e.activity, 80, placeholder=" ..."),
                               citation=e.citation)
                       for e in newest.exemptions]}


def findings() -> dict[str, list[str]]:
    """The screening's findings in the report's order and the statuses a finding takes."""
    from swm_gis.screening.finding_parts import STATUSES
    from swm_gis.screening.wording import FINDING_KEYS

    return {"keys": list(FINDING_KEYS), "statuses": list(STATUSES)}


def regulations() -> dict[str, object]:
    """The default regulation profile's id and every bundled profile's."""
    from swm_gis.config.regulation import DEFAULT_ID, bundled_ids

    return {"default": DEFAULT_ID, "bundled": bundled_ids()}


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

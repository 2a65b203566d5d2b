"""Writing a regulation profile: ``swm-gis regulation export`` copies a bundled profile to a file
a town can edit (docs/regulations.md).

The copy is the bundled file word for word, except that the files it names (the town's text,
checklist, ...) and its ``#:schema`` line point at the installed package by absolute path, so the
copy checks and loads wherever it is saved. It is checked before it is moved into place, and
written atomically: an existing file is replaced only when asked.
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path

from swm_gis.config.regulation import parse_regulation, profile_path
from swm_gis.config.regulation_keys import FILE_KEYS, VERSION_FILE_KEYS
from swm_gis.io.outputs import output_file

__all__ = ["export_regulation", "exported_text"]

SCHEMA = Path(__file__).resolve().parent.parent / "schemas" / "regulation.schema.json"
_KEYS = "|".join(FILE_KEYS + VERSION_FILE_KEYS)
_FILE_LINE = re.compile(rf'^(?P<key>(?:{_KEYS})) = "(?P<name>[^"]+)"\s*$', re.MULTILINE)


def exported_text(id_or_path: str | os.PathLike) -> str:
    """The text of a profile with the files it names and its schema made absolute.

    >>> text = exported_text("lynnfield-ch320")
    >>> next(l for l in text.splitlines() if l.startswith("text = ")).endswith(
    ...     'regulations/lynnfield-ch320.txt"')
    True
    """
    path = profile_path(id_or_path)
    base = path.resolve().parent

    def absolute(match: re.Match[str]) -> str:
        name = Path(match["name"])
        full = name if name.is_absolute() else (base / name).resolve()
        return f'{match["key"]} = "{full.as_posix()}"'

    text = _FILE_LINE.sub(absolute, path.read_text(encoding="utf-8"))
    return re.sub(r"^#:schema .*$", f"#:schema {SCHEMA.as_uri()}", text, count=1,
                  flags=re.MULTILINE)


def export_regulation(id_or_path: str | os.PathLike, out: str | os.PathLike, *,
                      overwrite: bool = False) -> Path:
    """Write the profile ``id_or_path`` (a bundled id) to ``out``, checked, atomically."""
    text = exported_text(id_or_path)
    with output_file(out, overwrite=overwrite, command="swm-gis regulation export") as tmp:
        parse_regulation(tomllib.loads(text), path=Path(out).resolve())
        tmp.write_text(text, encoding="utf-8")
    return Path(out)

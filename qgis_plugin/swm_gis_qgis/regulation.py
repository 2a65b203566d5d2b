"""The REGULATION parameter: the stormwater regulation a run applies, as a bundled profile id or
a profile file (``[town] regulation`` of the config the engine writes; ``docs/qgis.md``).

*Set up the town* saves it in the town config; every algorithm that writes its own config from
the dialog's layers hands it to the engine the same way, so a single run without a town config
applies the town's regulation (and the engine's ``regulation_not_named`` warning is not given).
The engine checks it: an unknown id or a broken profile is its refusal, in the dialog's words.
"""

from __future__ import annotations

import os
from pathlib import Path

from .catalog import REGULATIONS

LABEL = "Regulation profile (a bundled id or a profile file)"


def help_text(*, saved: bool) -> str:
    """The parameter's help; ``saved``: the town set-up, which saves it in the config."""
    bundled = ", ".join(REGULATIONS["bundled"])
    return ("The town's stormwater regulation the outputs apply and cite: the id of a bundled "
            f"profile ({bundled}; the command 'swm-gis regulation list' describes them) or "
            "the path of a profile file (.toml) of the town's own. Empty: the default "
            f"regulation ({REGULATIONS['default']}) applies, and for another town every output "
            "warns that the config names no regulation. The engine checks it"
            + (" before the config is saved." if saved else
               ". Not used with a town config file (its [town] regulation says it)."))


def is_file_ref(value: str) -> bool:
    """Whether ``value`` names a profile file (else a bundled id, or nothing)."""
    return bool(value) and (value.lower().endswith(".toml") or os.sep in value or "/" in value)


def run_ref(value: str | None) -> str | None:
    """``[town] regulation`` of a run's own config (in a temporary folder): a bundled id as
    given, a profile file as an absolute path; None when empty."""
    value = (value or "").strip()
    if not value:
        return None
    return os.path.abspath(value) if is_file_ref(value) else value


def saved_ref(value: str, target: Path) -> str | None:
    """``[town] regulation`` as a saved config names it: a bundled id as given, a profile file
    relative to the config when it can be (as the layers' paths are); None when empty."""
    if not value:
        return None
    if not is_file_ref(value):
        return value
    try:
        return Path(os.path.relpath(value, target.parent)).as_posix()
    except ValueError:  # another drive (Windows)
        return Path(value).as_posix()

"""What every permitted project must do, whatever the site (``general_requirements``).

The entries are data (the file the profile names: Lynnfield's
``swm_gis/regulations/lynnfield-ch320.general_requirements.toml``), quoted from the Lynnfield
Stormwater Management Rules and Regulations (Chapter 320): the permit procedure's duties (the
site owner files, hand delivery or certified mail with return receipt, the abutter notice's form
and content, entry, the Town Clerk and the other Boards notified, review fees, the authority's
possible actions, deemed approval upon the Town Clerk's certification, plan changes), § 320-19
B(1)-(6) design and C (changes to the approved plan), the § 320-20 B construction requirements
(14-day stabilisation, stockpiles), the inspection notices and reports, the permit and signed
plans kept on site, the right of entry, the completion report (discrepancies in the cover
letter), as-builts and the certificate of completion, § 320-21 easements, recording,
maintenance, records and annual certification, waivers (how to ask) and the Town Boards
(Planning Board, ZBA) provision. The permit procedure and the sections after § 320-21 carry no
number in the copy and are cited by their heading. Where the copy of the regulation is cut off
(§ 320-21 B(1), waivers A) the entry says so and quotes only what is there.

>>> items = general_requirements()
>>> [i["section"] for i in items][:2]
['Ch. 320, permit procedure, A', 'Ch. 320, permit procedure, A(7)']
>>> next(i for i in items if i["section"] == "§ 320-20 B(13)")["text"].count("14 days")
1
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = ["CUT_OFF_NOTE", "general_requirements", "requirements_file"]

CUT_OFF_NOTE = ("The copy of the regulation used by this tool is cut off here; read the "
                "adopted text before relying on this item.")


@lru_cache(maxsize=4)
def _table(path: str | None) -> tuple[dict[str, Any], ...]:
    if path is None:  # the default profile's
        from swm_gis.screening.wording import applied_of_document

        default = requirements_file(applied_of_document({}))
        if default is None:
            return ()
        path = str(default)
    return tuple(tomllib.loads(Path(path).read_text(encoding="utf-8"))["items"])


def requirements_file(applied: Any) -> Path | None:
    """The general requirements file a regulation profile's version names
    (``submittals.general_requirements_file``, relative to the profile); None: it names none,
    and a screening under it lists none (only a town's own text is quoted)."""
    name = applied.version.section("submittals").get("general_requirements_file")
    return (applied.profile.path.parent / name).resolve() if name else None


def general_requirements(path: Path | None = None) -> list[dict[str, Any]]:
    """``[{section, topic, text, cut_off}]`` in the regulation's order; ``text`` is quoted,
    and a cut-off entry says so after the words the copy holds. ``path``: the profile's file
    (:func:`requirements_file`); default: the one the default profile names."""
    out = []
    for raw in _table(None if path is None else str(path)):
        cut = bool(raw.get("cut_off"))
        quoted = str(raw.get("text") or "").strip()
        text = (f"{quoted} [{CUT_OFF_NOTE}]" if quoted else f"[{CUT_OFF_NOTE}]") if cut \
            else quoted
        out.append({"section": raw["section"], "topic": raw["topic"], "text": text,
                    "cut_off": cut})
    return out

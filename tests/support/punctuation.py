"""Doubled punctuation in the texts an output prints (issue 32 item 9): "..", ",,", ". .",
".," and the like, which appear where two sentences or a sentence and a quote are joined
without care ("... MS4.." or "(approximate).,").

:func:`doubled` lists each offending run with its surroundings; :func:`texts` walks a JSON
document and yields the strings a person reads (paths and ids left out).

>>> doubled("Required. The site..  Fine... e.g., i.e., etc., U.S.C. 1.5 ft, a ,b")
['site..  Fi', 't, a ,b']
>>> doubled("One. . Two,, three;; four.,five ,six")
['One. . Two', ' Two,, thr', 'hree;; fou', 'four.,five', 'five ,six']
>>> doubled('He said "stop." (see A). It ended "here.". Fine.')
['here.". Fin']
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

#: Two marks in a row, or with only spaces between: never in a sentence of this tool. "..."
#: (an omission in a quote) is allowed; so are abbreviations before a comma ("e.g.,").
_PATTERN = re.compile(
    r"(?<![.])\.\.(?![.])"          # two full stops, not an ellipsis
    r"|[,;:]{2}"                    # ,, ;; :: ,; ...
    r"|[.,;:] +[.,;:](?!\.\.)"      # ". ." ", ," "; ." (not ". ..." before a quote)
    r"|(?<!\be\.g)(?<!\bi\.e)(?<!\betc)(?<!\.\.)\.[,;:]"  # ".," ".;" after a word
    r"|[,;:]\."                     # ",." ";." ":."
    r"| [,;](?=\w)"                 # a space before a comma inside a phrase (" ,b")
    r"|[.,;:][\"\u201d')\]]+[.,;:]"  # a mark on each side of a closing quote or bracket
)

#: Keys whose values are paths, ids or codes, not words.
_SKIP_KEYS = {"file", "config", "path", "layer", "source", "id", "ids", "au_id", "huc",
              "key", "generated", "modified", "crs", "tool_version", "url"}


def doubled(text: str) -> list[str]:
    """Each run of doubled punctuation in ``text``, with four characters either side."""
    return [text[max(m.start() - 4, 0):m.end() + 4] for m in _PATTERN.finditer(text)]


def texts(obj: Any, key: str = "") -> Iterator[str]:
    """The strings of a JSON document a person reads: every string, except under keys that
    hold paths, ids or codes (:data:`_SKIP_KEYS`)."""
    if key in _SKIP_KEYS:
        return
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from texts(v, str(k))
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from texts(v, key)


def doubled_in(strings: Any) -> list[str]:
    """Every doubled run in the strings of ``strings`` (a JSON document or a list of texts)."""
    return [run for text in texts(strings) for run in doubled(text)]

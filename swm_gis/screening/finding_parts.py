"""The parts every finding is made of (:mod:`swm_gis.screening.findings`): the statuses, one
finding entry, the coverage records of its layers, and the status of one part of a search.

Shared by :mod:`swm_gis.screening.findings` and :mod:`swm_gis.screening.resource_findings`.
Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["STATUSES", "STATUS_WORDS", "TITLES", "absent",
           "finding", "layer_names", "layer_state", "missing_layers_text", "part_status"]

STATUSES = ("yes", "no", "conditional", "not_checked", "info")
STATUS_WORDS = {"yes": "Yes", "no": "No", "conditional": "Conditional",
                "not_checked": "Not checked", "info": "Info"}

TITLES = {
    "disturbance": "Stormwater management permit",
    "development_type": "New development or redevelopment",
    "standards": "Performance standards and retention volume",
    "watersheds": "Watersheds (HUC12 / HUC10)",
    "mitigation": "Off-site mitigation",
    "habitats": "NHESP habitats and certified vernal pools within {distance} ft",
    "floodplain": "100-year floodplain (FEMA SFHA)",
    "receiving_waters": "Receiving waters (ORW, impaired waters)",
}


def absent(key: str) -> dict[str, Any]:
    """The finding of a block the document does not hold: not checked, and says so."""
    return finding(key, "not_checked", f"Not checked: screening.json has no '{key}' result.")


def finding(key: str, status: str, answer: str, *, title: str | None = None,
            section: str | None = None, used: Sequence[str] = (), missing: Sequence[str] = (),
            caveats: Sequence[str] = (), **extra: Any) -> dict[str, Any]:
    """One finding entry (``docs/findings.md``); ``status`` must be one of :data:`STATUSES`.
    A ``section`` left out is the regulation's citation for ``key``, which
    :func:`swm_gis.screening.findings.decide_findings` fills in from the profile applied."""
    if status not in STATUSES:
        raise ValueError(f"unknown finding status {status!r}")
    return {"key": key, "title": title or TITLES[key], "status": status, "answer": answer,
            "section": section,
            "layers_used": list(dict.fromkeys(used)),
            "layers_missing": list(dict.fromkeys(missing)),
            "caveats": [c for c in dict.fromkeys(caveats) if c], **extra}


# --------------------------------------------------------------------------- layers
#: Each town-config layer in the words a document uses (findings are read by the Commission,
#: whichever front end ran the job: they name a layer, never its config key).
LAYER_WORDS: dict[str, str] = {
    "parcels": "the parcels layer", "assess": "the assessing table",
    "nhesp_priority": "the NHESP priority habitat layer",
    "nhesp_estimated": "the NHESP estimated habitat layer",
    "vernal_pools": "the certified vernal pools layer", "flood_zones": "the flood zone layer",
    "huc10": "the HUC10 watershed layer", "huc12": "the HUC12 watershed layer",
    "orw": "the Outstanding Resource Waters layer",
    "impaired_waters": "the impaired waters layer", "streams": "the streams layer",
    "waterbodies": "the waterbodies layer", "town_boundary": "the town boundary layer",
    "streets": "the streets layer", "dem": "the elevation (DEM) layer",
    "impervious": "the existing impervious layer",
    "ms4": "the MS4 layer (catch basins, pipes, outfalls, drainage channels)",
}


#: The basis of the site's parcels when the user named them (else the parcels it lies on).
PARCELS_GIVEN = "the parcels given"
#: The basis of the site's parcels when none are given.
PARCELS_UNDER_SITE = "the parcels the limit of disturbance lies on"


def layer_words(key: str) -> str:
    """A config layer in a document's words.

    >>> layer_words("town_boundary"), layer_words("other")
    ('the town boundary layer', 'the other layer')
    """
    return LAYER_WORDS.get(key, f"the {key.replace('_', ' ')} layer")


def layer_names(keys: Sequence[str], *, joiner: str = ", ") -> str:
    """Config layers named in a document's short words (no article, no gloss), never by their
    config keys (issue 35: "lacking: ms4", "no layers.huc12" reached the reports and dialogs).

    >>> layer_names(["ms4", "huc12"]), layer_names(["orw", "vernal_pools"], joiner=" or ")
    ('MS4 layer, HUC12 watershed layer', 'Outstanding Resource Waters layer or certified \
vernal pools layer')
    """
    return joiner.join(re.sub(r"^the | \(.*\)$", "", layer_words(k)) for k in keys)


def _cov(doc: Mapping[str, Any], key: str, layer: str) -> Mapping[str, Any]:
    """The coverage record of ``layer`` for finding ``key`` ({} when none was recorded)."""
    cov = (doc.get("coverage") or {}).get(key) or {}
    return cov.get(layer) or {}


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def layer_state(doc: Mapping[str, Any], key: str, layers: Sequence[str]
                 ) -> tuple[list[str], list[str], list[str]]:
    """(configured, missing, caveats about partial or unknown coverage) for a finding's layers.

    A layer with no coverage record counts as missing: nothing shows it was read.
    """
    used, missing, caveats = [], [], []
    for layer in layers:
        rec = _cov(doc, key, layer)
        if not rec.get("configured"):
            missing.append(layer)
            continue
        used.append(layer)
        if rec.get("covers") is False:
            caveats.append(f"{_cap(layer_words(layer))} does not cover the whole area searched "
                           f"(its coverage: {rec.get('basis')}).")
        elif rec.get("covers") is None:
            caveats.append(f"{_cap(layer_words(layer))}: whether it covers the area searched is "
                           f"unknown ({rec.get('basis')}).")
    return used, missing, caveats


def missing_layers_text(missing: Sequence[str]) -> str:
    """"Not checked: ... not configured." for the layers missing; "" when none is."""
    names = " and ".join(layer_words(m) for m in missing)
    verb = "are" if len(missing) > 1 else "is"
    return f"Not checked: {names} {verb} not configured." if missing else ""


# --------------------------------------------------------------------------- parts
def part_status(found: bool, *, layers_configured: bool, complete: bool) -> str:
    """Status of one part of a search: found -> yes; no data -> not_checked; a complete search
    -> no; else conditional.

    >>> [part_status(True, layers_configured=False, complete=False),
    ...  part_status(False, layers_configured=False, complete=True),
    ...  part_status(False, layers_configured=True, complete=True),
    ...  part_status(False, layers_configured=True, complete=False)]
    ['yes', 'not_checked', 'no', 'conditional']
    """
    if found:
        return "yes"
    if not layers_configured:
        return "not_checked"
    return "no" if complete else "conditional"

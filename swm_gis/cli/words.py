"""The command line's words for the references in the core's messages (:mod:`swm_gis.messages`).

Each job option is named by the flag that sets it, with the kind of value it takes
(``--site FILE``); config keys as the TOML reads (``[layers.parcels.fields] id``); the config
file as "the town config". A test checks that every option of :data:`swm_gis.messages.OPTIONS`
has a flag here and that each flag is one the command line has.
"""

from __future__ import annotations

from swm_gis.errors import SwmGisError
from swm_gis.messages import key_text

#: Job option (Python keyword) -> the flag that sets it.
FLAGS: dict[str, str] = {
    "config": "--config", "site": "--site", "parcels": "--parcel",
    "common_plan": "--common-plan", "development": "--development",
    "proposed_impervious": "--proposed-impervious",
    "proposed_impervious_sqft": "--proposed-impervious-sqft", "mitigation": "--mitigation",
    "removed_impervious": "--removed-impervious",
    "exemptions": "--exemption", "roadway_maintenance": "--roadway-maintenance",
    "received": "--received", "proposed_use": "--proposed-use", "distance": "--distance",
    "notice": "--notice", "sort": "--sort",
    "include_subject": "--include-subject", "wpa_pond_extension": "--wpa-pond-extension",
    "sender": "--sender", "max_abutters": "--max-abutters",
    "label_template": "--label-template", "label_offset": "--label-offset", "out": "--out",
    "overwrite": "--overwrite", "engine": "--engine", "chunk_size": "--chunk-size",
    "scheduler": "--scheduler", "workers": "--workers", "source": "--from",
    "simplify_ft": "--simplify-ft", "cache": "--no-cache",
}


def cli_words(ref: dict[str, str]) -> str:
    """The command line's word for one reference (:func:`swm_gis.messages.parts`).

    >>> cli_words({"option": "parcels", "metavar": "ID"})
    '--parcel ID'
    >>> cli_words({"key": "layers.parcels", "name": "crs"})
    '[layers.parcels] crs'
    """
    if "option" in ref:
        flag = FLAGS[ref["option"]]
        return f"{flag} {ref['metavar']}" if ref.get("metavar") else flag
    if "key" in ref:
        return key_text(ref)
    return "the town config"


def cli_text(exc: SwmGisError) -> str:
    """An error's message in the command line's words."""
    return exc.worded(cli_words)

"""QGIS styles stored with outputs (QML templates in this package).

The templates are the layer-level settings; the job that writes a layer fills in its classes
(the applicability map's: :mod:`swm_gis.applicability.style`).
"""

from __future__ import annotations

from importlib import resources


def template(name: str) -> str:
    """Text of a QML template shipped in this package."""
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


__all__ = ["template"]

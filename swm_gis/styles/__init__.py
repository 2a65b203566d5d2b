"""QGIS styles stored with outputs (QML templates in this package).

The templates are the layer-level settings; the job that writes a layer fills in its classes
(the applicability map's: :mod:`swm_gis.applicability.style`). The layers of screening.gpkg
and abutters.gpkg carry the styles :data:`OUTPUT_STYLES` names, stored in the GeoPackage
(:func:`output_styles`), so opening the file in QGIS, or loading it from the plugin, shows them.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib import resources

from swm_gis.io.gpkg_styles import StoredStyle

#: The QML templates (file stems) of each output layer, its default first. A layer holding two
#: geometry types (habitat polygons with vernal pool points, receiving water lines with ponds)
#: carries one style per type: QGIS applies the default to the polygons or lines and refuses a
#: style saved for another geometry type, and the other is one click away (Layer Properties >
#: Style > Load Style > From database).
OUTPUT_STYLES: dict[str, tuple[str, ...]] = {
    "site": ("site",),
    "common_plan": ("site",),
    "mitigation": ("mitigation",),
    "watersheds": ("watersheds",),
    "habitats": ("habitats", "vernal_pools"),
    "flood_zones": ("flood_zones",),
    "flood_overlap": ("flood_zones",),
    "flow_path": ("flow_path",),
    "receiving_waters": ("receiving_waters", "receiving_water_areas"),
    "abutting_parcels": ("abutting_parcels",),
    "search_area": ("search_area",),
}

#: The search area around the site ("buffer_500ft", after its distance) takes this style.
BUFFER_PREFIX, BUFFER_STYLE = "buffer_", "search_area"


def template(name: str) -> str:
    """Text of a QML template shipped in this package."""
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def styles_of(layer: str) -> tuple[str, ...]:
    """The QML stems of output ``layer`` (default first); () for a layer without a style."""
    if layer.startswith(BUFFER_PREFIX):
        return (BUFFER_STYLE,)
    return OUTPUT_STYLES.get(layer, ())


def output_styles(layers: Iterable[str]) -> list[StoredStyle]:
    """The styles to store with the output ``layers`` of a GeoPackage (each layer's first is
    its default); each style is named after its template ("vernal_pools")."""
    return [StoredStyle(layer=layer, name=stem, qml=template(f"{stem}.qml"),
                        description=f"swm-gis style '{stem}' of the {layer} layer",
                        default=i == 0)
            for layer in layers for i, stem in enumerate(styles_of(layer))]


__all__ = ["OUTPUT_STYLES", "output_styles", "styles_of", "template"]

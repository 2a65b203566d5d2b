"""Which QGIS layers the engine reads as they are, and the copy written of the others.

QGIS's GDAL provider is the model (``GdalAlgorithm.getOgrCompatibleSource``): a layer is handed
to the engine as the user's own file (``path`` and ``layer``) unless it must be copied: a
selection, a filter (subset string), a memory layer, a provider other than OGR (PostGIS, WFS,
delimited text, ...), a CRS assigned in QGIS over the file's own, or a source GDAL reads through
an option the engine does not take. A copy is written with QGIS's own writer, keeping only the
fields the run maps, and the town config marks it ``temporary = true`` under the layer's label.
"""

from __future__ import annotations

import os
import re

from qgis.core import (
    QgsCoordinateReferenceSystem,
    QgsFeature,
    QgsFeatureRequest,
    QgsField,
    QgsFields,
    QgsProcessingException,
    QgsProcessingFeatureSource,
    QgsProviderRegistry,
    QgsVectorFileWriter,
    QgsWkbTypes,
)

from . import safety


def crs_missing(crs: QgsCoordinateReferenceSystem) -> bool:
    """True for no CRS, and for the GeoPackage "Undefined geographic/Cartesian SRS" (srs_id 0/-1)
    that GDAL reports for layers written without one."""
    if not crs.isValid():
        return True
    if crs.authid():
        return False
    text = f"{crs.description()} {crs.toWkt()[:200]}".lower()
    return "undefined geographic srs" in text or "undefined cartesian srs" in text


def real_source(layer, *, selected: bool) -> tuple[str, str | None] | None:
    """(file, layer name or None) of a layer the engine can read as the user's own file, or
    None when it must be exported (see the module's docstring)."""
    if layer is None or selected or layer.providerType() != "ogr":
        return None
    if getattr(layer, "subsetString", lambda: "")():
        return None
    parts = QgsProviderRegistry.instance().decodeUri("ogr", layer.source())
    path = str(parts.get("path") or "")
    name = parts.get("layerName") or None
    if parts.get("subset") or parts.get("geometryType") or parts.get("vsiPrefix") or \
            (parts.get("layerId") not in (None, 0) and not name) or not os.path.isfile(path):
        return None
    own = layer.dataProvider().crs() if layer.dataProvider() is not None else None
    if own is not None and own.isValid() and own != layer.crs():
        return None  # a CRS assigned in QGIS over the file's: the engine would read the file's
    # absolute: QGIS opened it from the caller's folder (qgis_process run PARCELS=town.gpkg),
    # the engine runs in the run's own
    return os.path.abspath(path), name


def label(name: str, source: str, *, subset: str = "", selected: int | None = None) -> str:
    """How the outputs name a QGIS layer (the town config's ``label``): its name, the file it
    reads (no provider syntax), and what narrowed it.

    >>> label("Parcels", "/d/town.gpkg|layername=parcels", selected=12)
    "QGIS layer 'Parcels' (town.gpkg, layer parcels; 12 selected features)"
    >>> label("Sites", "memory?geometry=Polygon")
    "QGIS layer 'Sites' (a layer of the QGIS project)"
    """
    files = safety.source_files(source)
    m = re.search(r"\|layername=([^|]+)", source)
    where = (os.path.basename(files[0]) + (f", layer {m.group(1)}" if m else "")
             if files and os.path.exists(files[0]) else "a layer of the QGIS project")
    if subset:
        where += f"; filter {subset}"
    if selected is not None:
        where += f"; {selected:,} selected feature{'' if selected == 1 else 's'}"
    return f"QGIS layer '{name}' ({where})"


def write_copy(source, path: str, layer_name: str, *, transform_context, feedback,
               keep_fields: list[str], rename: dict[str, str], mixed_geometry: bool) -> None:
    """Write ``source``'s features (a Processing feature source, selection honoured) to layer
    ``layer_name`` of the GeoPackage ``path``, with the fields ``keep_fields`` (renamed per
    ``rename``). Invalid geometry goes through as it is: the engine repairs it (make_valid)
    and reports it, exactly as on the command line."""
    has_geom = has_geometry(source)
    fields, idx = _export_fields(source.fields(), keep_fields, rename)
    if not has_geom:
        wkb = QgsWkbTypes.Type.NoGeometry
    elif mixed_geometry:  # e.g. impaired waters: streams (lines) and ponds (polygons)
        wkb = QgsWkbTypes.Type.Unknown
    else:
        wkb = QgsWkbTypes.multiType(source.wkbType())
    opts = QgsVectorFileWriter.SaveVectorOptions()
    opts.driverName, opts.layerName, opts.fileEncoding = "GPKG", layer_name, "UTF-8"
    writer = QgsVectorFileWriter.create(
        path, fields, wkb, source.sourceCrs() if has_geom else QgsCoordinateReferenceSystem(),
        transform_context, opts)
    if writer.hasError() != QgsVectorFileWriter.WriterError.NoError:
        raise QgsProcessingException(f"Cannot write {path}: {writer.errorMessage()}")
    failed = _write_features(source, writer, fields, idx, wkb, has_geom, feedback)
    del writer  # flush and close, before any refusal (the file is not left open)
    if failed:
        raise QgsProcessingException(failed if failed == "Cancelled." else
                                     f"Cannot export to {path}: {failed}")


def has_geometry(source) -> bool:
    return source.wkbType() not in (QgsWkbTypes.Type.NoGeometry, QgsWkbTypes.Type.Unknown)


def _write_features(source, writer, fields: QgsFields, idx: list[int], wkb, has_geom: bool,
                    feedback) -> str | None:
    """Copy ``source``'s features (attributes at ``idx``) into ``writer``; None, or why it
    stopped ("Cancelled.", or the writer's error)."""
    request = QgsFeatureRequest()
    if not has_geom:
        request.setFlags(QgsFeatureRequest.Flag.NoGeometry)
    for feat in source.getFeatures(request,
                                   QgsProcessingFeatureSource.Flag.FlagSkipGeometryValidityChecks):
        if feedback.isCanceled():
            return "Cancelled."
        out = QgsFeature(fields)
        attrs = feat.attributes()
        out.setAttributes([attrs[i] for i in idx])
        if has_geom:
            geom = feat.geometry()
            if not geom.isNull() and QgsWkbTypes.isMultiType(wkb):
                geom.convertToMultiType()
            out.setGeometry(geom)
        if not writer.addFeature(out):
            return writer.errorMessage()
    return None


def _export_fields(src_fields: QgsFields, keep_fields: list[str],
                   rename: dict[str, str]) -> tuple[QgsFields, list[int]]:
    """The exported layer's fields (``keep_fields`` of ``src_fields``, renamed per ``rename``)
    and their indexes in the source. ``fid`` goes (GeoPackage keeps it for itself) unless it is
    renamed."""
    idx = [src_fields.indexOf(f) for f in keep_fields if f.lower() != "fid" or f in rename]
    fields = QgsFields()
    for i in idx:
        fld = QgsField(src_fields.at(i))
        if fld.name() in rename:
            fld.setName(rename[fld.name()])
        fields.append(fld)
    return fields, idx

"""swm_gis:applicabilitymap - every parcel classified (``swm-gis applicability``)."""

from __future__ import annotations

from qgis.core import (
    QgsProcessing,
    QgsProcessingOutputFile,
    QgsProcessingParameterEnum,
    QgsProcessingParameterFeatureSink,
    QgsProcessingParameterFileDestination,
    QgsProcessingParameterString,
)

from .. import manifest
from .base import SwmGisAlgorithm
from .site_screening import TOWN

ENGINES = ["local", "dask"]


class ApplicabilityMapAlgorithm(SwmGisAlgorithm):
    ALG_ID = "applicabilitymap"
    DISPLAY_NAME = "Applicability map: every parcel classified"
    GROUP = "Town-wide"
    GROUP_ID = "townwide"
    TOWN_LAYERS = tuple(t for t in TOWN if t[0] not in ("assess", "impervious"))
    ACCEPTS_TOWN_CONFIG = True
    HELP = """
Classifies every parcel of the town against the town's stormwater regulation (the profile the \
town config names): area (sq ft), HUC12 and HUC10, NHESP habitat within the regulation's distance \
(the default regulation's: 500 ft) and its distance, share in the FEMA SFHA, whether it drains to \
an Outstanding Resource Water or an impaired water (with the causes), whether the parcel is large \
enough to reach the regulation's trigger (the default regulation's: 1 acre), and a \
screening_class, styled for the map.

<b>Town layers</b>: TOWN_CONFIG (a town TOML file) or the individual layers. ENGINE 'dask' \
partitions the work (dask-geopandas) for very large areas; SCHEDULER names a Dask cluster.

<b>Outputs</b>: OUTPUT (the classified parcels, styled by screening_class), SUMMARY (the \
summary table) and, in OUTPUT_GPKG, the engine's GeoPackage (with its style stored). \
Same as <i>swm-gis applicability</i>.
"""

    def initAlgorithm(self, config=None):  # noqa: N802
        self.add_town_config_param()
        self.add_town_layers(only=("parcels",))
        self.add_right_of_way_params()
        self.add_town_layers(skip=("parcels",), fold=True)
        self.add(QgsProcessingParameterEnum("ENGINE", self.tr("Engine"), ENGINES,
                                            defaultValue=0),
                 "local: one process; dask: partitioned with dask-geopandas (large areas).",
                 advanced=True)
        self.add(QgsProcessingParameterString("SCHEDULER", self.tr("Dask scheduler address"),
                                              optional=True),
                 "Address of a Dask scheduler (tcp://host:8786) for ENGINE dask; empty: a "
                 "local cluster.", advanced=True)
        self.add_common_advanced()
        self.add(QgsProcessingParameterFeatureSink(
            "OUTPUT", self.tr("Applicability (parcels classified)"),
            QgsProcessing.SourceType.TypeVectorPolygon),
            "One row per parcel with the applicability fields and screening_class.")
        self.add(QgsProcessingParameterFeatureSink(
            "SUMMARY", self.tr("Summary table"), QgsProcessing.SourceType.TypeVector, optional=True,
            createByDefault=False),
            "Parcel counts and areas per screening class.")
        self.add(QgsProcessingParameterFileDestination(
            "OUTPUT_GPKG", self.tr("Engine GeoPackage (with its style, summary and checks)"),
            fileFilter="GeoPackage (*.gpkg)", optional=True, createByDefault=False),
            "Optional: keep the engine's own GeoPackage (layer applicability with the QGIS "
            "style stored as default, applicability_summary and applicability_checks); an "
            "existing file is replaced.")
        self.addOutput(QgsProcessingOutputFile("GPKG", self.tr("Engine GeoPackage (when kept)")))

    def names_town(self, parameters, context) -> bool:
        """The map prints no town name (its GeoPackage's metadata note keeps the one given)."""
        return False

    def engine_args(self, parameters, context, feedback, ws):
        ws.right_of_way = self.right_of_way(parameters, context, ws)
        ws.out_param = "OUTPUT_GPKG"
        config = ws.config_path()
        # the engine writes the chosen file itself (staged beside it, moved in whole at the
        # end: a failure or a cancel leaves it as it was), else one in the run's folder
        chosen = self.parameterAsFileOutput(parameters, "OUTPUT_GPKG", context)
        self._gpkg = chosen or str(ws.folder / "applicability.gpkg")
        args = ["applicability", "--config", config, "--out", self._gpkg, "--overwrite",
                "--engine", ENGINES[self.parameterAsEnum(parameters, "ENGINE", context)]]
        scheduler = self.parameterAsString(parameters, "SCHEDULER", context)
        if scheduler:
            args += ["--scheduler", scheduler]
        return args

    def collect(self, result, parameters, context, feedback, ws):
        m = self.manifest_of(result)
        gpkg = manifest.path_of(m, "layers")
        # the engine's own GeoPackage is an output only when the user chose to keep it
        kept = self.parameterAsFileOutput(parameters, "OUTPUT_GPKG", context)
        res = {"GPKG": gpkg if kept else None}
        res["OUTPUT"] = self.copy_to_sink(parameters, "OUTPUT", context, gpkg,
                                          "applicability", stored_style=True,
                                          display="Stormwater applicability")
        written = manifest.layer_names(m)
        summary_layer = next((n for n in ("summary", "applicability_summary")
                              if n in written), None)
        if summary_layer:
            res["SUMMARY"] = self.copy_to_sink(parameters, "SUMMARY", context, gpkg,
                                               summary_layer)
        for line in m.get("summary") or []:
            feedback.pushInfo(ws.say(str(line), ids=False))
        return res

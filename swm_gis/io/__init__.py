"""Reading the town's data (files, zips, databases) with CRS checks, and safe output writing.

Every layer, table and raster of the town config is read here (:mod:`swm_gis.io.layers`),
reprojected once into the working CRS; a file source GDAL parses whole is parsed once and kept
in the user's cache folder (:mod:`swm_gis.io.source_cache`), later reads answered from it. The
outputs' safety lives here too (:mod:`swm_gis.io.outputs`: inputs refused as outputs, staged
all-or-nothing packages, locks; :mod:`swm_gis.io.writers`: atomic files). The writers of each
output use it but sit with their job: the reports' PDFs and tables (:mod:`swm_gis.reports`), the
applicability GeoPackage and its PostGIS table (:mod:`swm_gis.applicability.write`,
``postgis_write``), the web map's files (:mod:`swm_gis.webmap`); the flow-grid cache
(:mod:`swm_gis.terrain.cache`) keeps its own files, and the package's own tables and templates
(``swm_gis/tables``, ``swm_gis/styles``) are read by the modules that use them.
"""

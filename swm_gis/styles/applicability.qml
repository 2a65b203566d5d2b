<!DOCTYPE qgis PUBLIC 'http://mrcc.com/qgis.dtd' 'SYSTEM'>
<!-- swm-gis applicability map style (QGIS 3.22+). Categories and symbols are filled in by
     swm_gis.applicability.style.applicability_qml() with the screening classes present in the output; the
     template is the layer-level settings. Stored in the GeoPackage's layer_styles table. -->
<qgis version="3.22.0" styleCategories="AllStyleCategories" hasScaleBasedVisibilityFlag="0" minScale="100000000" maxScale="0" readOnly="0" simplifyDrawingHints="1" simplifyDrawingTol="1" simplifyLocal="1" simplifyAlgorithm="0" simplifyMaxScale="1" labelsEnabled="0" symbologyReferenceScale="-1">
 <flags>
  <Identifiable>1</Identifiable>
  <Removable>1</Removable>
  <Searchable>1</Searchable>
  <Private>0</Private>
 </flags>
 <renderer-v2 type="categorizedSymbol" attr="screening_class" forceraster="0" symbollevels="0" enableorderby="0" referencescale="-1">
  <categories/>
  <symbols/>
  <rotation/>
  <sizescale/>
 </renderer-v2>
 <blendMode>0</blendMode>
 <featureBlendMode>0</featureBlendMode>
 <layerOpacity>1</layerOpacity>
 <legend type="default-vector" showLabelLegend="0"/>
 <previewExpression>"parcel_id" || ': ' || "screening_class"</previewExpression>
 <mapTip>[% "parcel_id" %]: [% "screening_class" %]&lt;br&gt;[% format_number("area_acres", 2) %] acres, HUC12 [% "huc12" %]&lt;br&gt;NHESP [% format_number("nhesp_distance_ft", 0) %] ft; SFHA [% format_number(100 * "sfha_fraction", 0) %]%&lt;br&gt;[% "impairment_causes" %]</mapTip>
 <layerGeometryType>2</layerGeometryType>
</qgis>

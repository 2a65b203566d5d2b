"""The logical layers of the town config (README "Town configuration") as Processing parameters.

Each logical layer has one UPPERCASE layer parameter and one field parameter per logical field,
defaulting to the published MassGIS / FEMA / USGS WBD / MassDEP field names. The engine owns the
rules; this table only says how a QGIS layer and its fields map onto a ``[layers.KEY]`` section
of the temporary town config the plugin writes for the engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class FieldInput:
    logical: str  # logical field name in the town config ([layers.KEY.fields] LOGICAL = "...")
    param: str  # Processing parameter name
    default: str  # published source field name
    description: str
    required: bool = False  # the engine cannot work without it
    advanced: bool = True


@dataclass(frozen=True)
class LayerInput:
    key: str  # logical layer key ([layers.KEY])
    param: str
    description: str
    geometry: str  # polygon | line | point | any | table | raster | raster_or_polygon
    help: str
    fields: tuple[FieldInput, ...] = field(default_factory=tuple)


def _f(logical: str, param: str, default: str, description: str, *, required: bool = False,
       advanced: bool = True) -> FieldInput:
    return FieldInput(logical, param, default, description, required, advanced)


CATALOG: dict[str, LayerInput] = {
    li.key: li
    for li in (
        LayerInput(
            "parcels", "PARCELS", "Parcels (tax parcel polygons)", "polygon",
            "Tax parcel polygons, e.g. MassGIS Level 3 parcels (M164TaxPar). Any CRS; the layer "
            "must have one.",
            (
                _f("id", "PARCEL_ID_FIELD", "LOC_ID", "Parcel id field", required=True,
                   advanced=False),
                _f("map_par_id", "MAP_PAR_ID_FIELD", "MAP_PAR_ID", "Map-parcel id field"),
                _f("town_id", "TOWN_ID_FIELD", "TOWN_ID", "Town id field"),
                _f("poly_type", "POLY_TYPE_FIELD", "POLY_TYPE",
                   "Polygon type field (ROW, PRIV_ROW, RAIL_ROW, WATER are left out)"),
                _f("use_code", "PARCEL_USE_CODE_FIELD", "",
                   "Parcel use code field (where the parcels carry one)"),
            ),
        ),
        LayerInput(
            "assess", "ASSESS", "Assessing table (owners and mailing addresses)", "table",
            "The assessing table with owners and mailing addresses (MassGIS L3 Assess table; "
            "one row per parcel, several for condominiums), joined to the parcels on the parcel "
            "id. Any table or layer QGIS reads (DBF, CSV, GeoPackage table, ...).",
            (
                _f("parcel_id", "ASSESS_PARCEL_ID_FIELD", "LOC_ID",
                   "Assessing: parcel id field (joins the parcels)", required=True,
                   advanced=False),
                _f("owner", "OWNER_FIELD", "OWNER1", "Assessing: owner name field",
                   required=True, advanced=False),
                _f("co_owner", "CO_OWNER_FIELD", "",
                   "Assessing: co-owner field (no MassGIS field: in the L3 standard OWN_CO is "
                   "the owner's country)"),
                _f("address", "OWNER_ADDRESS_FIELD", "OWN_ADDR",
                   "Assessing: owner mailing address field"),
                _f("address2", "OWNER_ADDRESS2_FIELD", "",
                   "Assessing: owner mailing address, second line (no MassGIS field)"),
                _f("city", "OWNER_CITY_FIELD", "OWN_CITY", "Assessing: owner city field"),
                _f("state", "OWNER_STATE_FIELD", "OWN_STATE", "Assessing: owner state field"),
                _f("zip", "OWNER_ZIP_FIELD", "OWN_ZIP", "Assessing: owner ZIP code field"),
                _f("country", "OWNER_COUNTRY_FIELD", "OWN_CO",
                   "Assessing: owner country field (MassGIS L3: OWN_CO)"),
                _f("site_address", "SITE_ADDRESS_FIELD", "SITE_ADDR",
                   "Assessing: site (property) address field"),
                _f("prop_id", "PROP_ID_FIELD", "PROP_ID", "Assessing: property id field"),
                _f("use_code", "USE_CODE_FIELD", "USE_CODE", "Assessing: use code field"),
                _f("fiscal_year", "FISCAL_YEAR_FIELD", "FY", "Assessing: fiscal year field"),
            ),
        ),
        LayerInput(
            "nhesp_priority", "PRIORITY_HABITATS", "NHESP Priority Habitats of Rare Species",
            "polygon", "MassGIS NHESP Priority Habitats of Rare Species polygons.",
            (_f("id", "PRIORITY_ID_FIELD", "PRIHAB_ID", "Priority habitat id field",
                required=True),),
        ),
        LayerInput(
            "nhesp_estimated", "ESTIMATED_HABITATS", "NHESP Estimated Habitats of Rare Wildlife",
            "polygon", "MassGIS NHESP Estimated Habitats of Rare Wildlife polygons.",
            (_f("id", "ESTIMATED_ID_FIELD", "ESTHAB_ID", "Estimated habitat id field",
                required=True),),
        ),
        LayerInput(
            "vernal_pools", "VERNAL_POOLS", "NHESP Certified Vernal Pools", "point",
            "MassGIS NHESP Certified Vernal Pools (points).",
            (_f("id", "VERNAL_POOL_ID_FIELD", "CVP_NUM", "Certified vernal pool number field",
                required=True),),
        ),
        LayerInput(
            "flood_zones", "FLOOD_ZONES", "FEMA flood hazard zones (NFHL S_FLD_HAZ_AR)",
            "polygon",
            "FEMA National Flood Hazard Layer flood hazard areas (S_FLD_HAZ_AR). The Special "
            "Flood Hazard Area is SFHA_TF = 'T' where that field exists, else zones A*, V*.",
            (
                _f("zone", "FLOOD_ZONE_FIELD", "FLD_ZONE", "Flood zone field", required=True),
                _f("subtype", "FLOOD_SUBTYPE_FIELD", "ZONE_SUBTY", "Zone subtype field"),
                _f("sfha", "SFHA_FIELD", "SFHA_TF", "SFHA true/false field"),
                _f("bfe", "BFE_FIELD", "STATIC_BFE", "Base flood elevation field"),
            ),
        ),
        LayerInput(
            "huc12", "HUC12", "USGS WBD HUC12 subwatersheds", "polygon",
            "USGS Watershed Boundary Dataset 12-digit hydrologic units (WBDHU12).",
            (_f("huc", "HUC12_FIELD", "huc12", "HUC12 code field", required=True),
             _f("name", "HUC12_NAME_FIELD", "name", "HUC12 name field")),
        ),
        LayerInput(
            "huc10", "HUC10", "USGS WBD HUC10 watersheds", "polygon",
            "USGS Watershed Boundary Dataset 10-digit hydrologic units (WBDHU10).",
            (_f("huc", "HUC10_FIELD", "huc10", "HUC10 code field", required=True),
             _f("name", "HUC10_NAME_FIELD", "name", "HUC10 name field")),
        ),
        LayerInput(
            "orw", "ORW", "Outstanding Resource Waters", "any",
            "Outstanding Resource Waters (lines or polygons), incl. Class A public water "
            "supplies and certified vernal pools where mapped as ORW.",
            (_f("id", "ORW_ID_FIELD", "ORW_ID", "ORW id field", required=True),
             _f("name", "ORW_NAME_FIELD", "NAME", "ORW name field")),
        ),
        LayerInput(
            "impaired_waters", "IMPAIRED_WATERS", "Impaired waters (MassDEP Integrated List)",
            "any",
            "MassDEP Integrated List assessment units (lines or polygons) with their category "
            "(4a, 4b, 5, ...) and impairment causes.",
            (
                _f("id", "IMPAIRED_ID_FIELD", "AU_ID", "Assessment unit id field",
                   required=True),
                _f("name", "IMPAIRED_NAME_FIELD", "AU_NAME", "Assessment unit name field"),
                _f("category", "IMPAIRED_CATEGORY_FIELD", "CATEGORY",
                   "Integrated List category field", required=True),
                _f("causes", "IMPAIRED_CAUSES_FIELD", "CAUSES",
                   "Impairment causes field (semicolon-separated)"),
                _f("tmdl", "IMPAIRED_TMDL_FIELD", "TMDL", "TMDL field"),
            ),
        ),
        LayerInput(
            "streams", "STREAMS", "Streams (digitised in flow direction)", "line",
            "Networked stream lines, digitised in flow direction (e.g. MassDEP hydrography).",
            (_f("id", "STREAM_ID_FIELD", "STREAM_ID", "Stream id field"),),
        ),
        LayerInput(
            "ms4", "MS4", "Town MS4 (storm drains, outfalls)", "any",
            "The Town's municipal separate storm sewer system: catch basins, pipes, outfalls, "
            "drainage channels (points, lines or polygons). A disturbance drains to the MS4 "
            "when the site or its flow path comes within 10 ft of a feature; without this "
            "layer the permit finding states that it assumes so.",
            (_f("id", "MS4_ID_FIELD", "FACILITYID", "MS4 facility id field"),),
        ),
        LayerInput(
            "waterbodies", "WATERBODIES", "Water bodies", "polygon",
            "Lakes, ponds and other water body polygons.",
            (_f("name", "WATERBODY_NAME_FIELD", "NAME", "Water body name field"),),
        ),
        LayerInput(
            "streets", "STREETS", "Street centrelines", "line",
            "Street centrelines, for map context and labels on the abutters map.",
            (_f("name", "STREET_NAME_FIELD", "STREET_NAME", "Street name field"),),
        ),
        LayerInput(
            "town_boundary", "TOWN_BOUNDARY", "Town boundary", "polygon",
            "The town boundary polygon (used to tell parcels in another municipality).",
        ),
        LayerInput(
            "dem", "DEM", "Digital elevation model", "raster",
            "Elevation raster (a GDAL file) for tracing flow from the site to the streams.",
        ),
        LayerInput(
            "impervious", "IMPERVIOUS", "Existing impervious cover", "raster_or_polygon",
            "Existing impervious cover: a raster (non-zero = impervious) or a polygon layer; "
            "decides new development vs redevelopment when DEVELOPMENT is 'auto'.",
        ),
    )
}

"""A town and its neighbour as sources of their own (issue 34), for the abutter tests and the
plugin's: Lynnfield's parcels and assessing table in the MassGIS L3 layout, Peabody's with other
field names, no CRS declared and its own right-of-way rule. The layout and the distances worked
out by hand: tests/notification/test_abutters_neighbour_sources.py."""

from __future__ import annotations

from pathlib import Path

import geopandas as gpd
import pandas as pd
from shapely.geometry import box

CRS = "EPSG:26986"
X0, Y0 = 240_000.0, 910_000.0


def _box(x0, y0, x1, y1):
    return box(X0 + x0, Y0 + y0, X0 + x1, Y0 + y1)


LYNNFIELD = gpd.GeoDataFrame({
    "LOC_ID": ["S", "L1", "L2", "L3", "L4", "L5", "L_ROW"],
    "MAP_PAR_ID": ["1-1", "1-2", "1-3", "1-4", "1-5", "2-1", ""],
    "TOWN_ID": [164] * 7,
    "POLY_TYPE": ["FEE"] * 6 + ["ROW"],
}, geometry=[_box(0, 0, 30, 30), _box(30, 0, 60, 30), _box(-30, 0, 0, 30), _box(60, 0, 90, 30),
             _box(90, 0, 120, 30), _box(0, -42, 30, -12), _box(-60, -12, 120, 0)], crs=CRS)

L3_ASSESS = pd.DataFrame([
    # LOC_ID, OWNER1, OWN_ADDR, OWN_CITY, OWN_STATE, OWN_ZIP, OWN_CO
    ("S", "APPLICANT, ANN", "1 ELM ST", "LYNNFIELD", "MA", "01940", "USA"),
    # the same owner, the street misspelt on one record, a county in OWN_CO on the other
    ("L1", "SMITH, JOHN", "965 MASSACHUSETTS AVE", "CAMBRIDGE", "MA", "02139", "MIDDLESEX"),
    ("L2", "SMITH, JOHN", "965 MASSAUCHETTS AVE", "CAMBRIDGE", "MA", "02139", ""),
    # a foreign owner with a US state and a placeholder ZIP on the record
    ("L3", "WONG, MEI", "1 QUEENS RD", "HONG KONG", "MA", "99999", "HONG KONG"),
    ("L4", "FAR, AWAY", "9 OAK RD", "LYNNFIELD", "MA", "01940", ""),
    # a PO box spelled "BOX 12" here and "P.O. Box 12" in Peabody's table
    ("L5", "DOE, RAY", "BOX 12", "PEABODY", "MA", "01960", "UDA"),
], columns=["LOC_ID", "OWNER1", "OWN_ADDR", "OWN_CITY", "OWN_STATE", "OWN_ZIP", "OWN_CO"]
).assign(FY="2026")

PEABODY = gpd.GeoDataFrame({
    "PID": ["P1", "P2", "P3", "P_ST"],
    "ROADTYPE": ["", "", "", "STREET"],
}, geometry=[_box(0, 40, 30, 70), _box(30, 40, 60, 70), _box(60, 40, 90, 70),
             _box(-60, 30, 120, 40)], crs=CRS)

PEABODY_ASSESS = pd.DataFrame([
    ("P1", "JONES, PAT", "10 PINE ST", "PEABODY", "MA", "01960"),
    ("P2", "DOE, RAY", "P.O. Box 12", "PEABODY", "MA", "01960"),
    ("P3", "NEAR, NOT", "3 PINE ST", "PEABODY", "MA", "01960"),
], columns=["PARCEL", "OWNER", "MAILADDR", "MAILCITY", "MAILSTATE", "MAILZIP"])

TOML = '''[town]
name = "Lynnfield"
crs = "EPSG:26986"
[layers.parcels]
path = "lynnfield.gpkg"
layer = "parcels"
[[layers.parcels.sources]]
path = "peabody/M229TaxPar.shp"
town = "Peabody"
crs = "EPSG:2249"
right_of_way = { field = "ROADTYPE", values = ["STREET"] }
[layers.parcels.sources.fields]
id = "PID"
map_par_id = ""
town_id = ""
poly_type = ""
[layers.assess]
path = "lynnfield.gpkg"
layer = "assess"
[[layers.assess.sources]]
path = "peabody/assess.csv"
town = "Peabody"
[layers.assess.sources.fields]
parcel_id = "PARCEL"
owner = "OWNER"
address = "MAILADDR"
city = "MAILCITY"
state = "MAILSTATE"
zip = "MAILZIP"
prop_id = ""
site_address = ""
country = ""
use_code = ""
fiscal_year = ""
'''


def write_neighbour_town(tmp: Path) -> Path:
    """Write both towns' files into ``tmp`` and the town config naming them; its path."""
    LYNNFIELD.to_file(tmp / "lynnfield.gpkg", layer="parcels")
    gpd.GeoDataFrame(L3_ASSESS.assign(SITE_ADDR="x", geometry=None)).to_file(
        tmp / "lynnfield.gpkg", layer="assess")
    (tmp / "peabody").mkdir()
    PEABODY.to_crs("EPSG:2249").to_file(tmp / "peabody" / "M229TaxPar.shp")
    (tmp / "peabody" / "M229TaxPar.prj").unlink()  # no CRS declared: the config states it
    PEABODY_ASSESS.to_csv(tmp / "peabody" / "assess.csv", index=False)
    toml = tmp / "town.toml"
    toml.write_text(TOML, encoding="utf-8")
    return toml

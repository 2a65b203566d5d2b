"""Issue 32 item 6: answer what can be answered. A site inside the town is never refused because
an optional layer (impervious raster, DEM, HUC polygons) does not cover it: that check is "not
checked" (or, for the DEM, the trace falls back to the nearest stream) with the reason, and the
permit trigger is always answered.

The town: 2,000 m x 1,000 m (one parcel, the town boundary); the HUC12 / HUC10 polygons, the
impervious raster and the DEM cover only its west half (x < 1,000 m). The site is 200 ft x 218 ft
= 43,600 sq ft in the east half (x 1,500 m..1,560.96 m), so it reaches the one-acre trigger
(43,560 sq ft); a stream runs along y = 100 m in the east half.
"""

from __future__ import annotations

import numpy as np
import rasterio
from affine import Affine
from shapely.geometry import LineString, box
from support.screenkit import CRS, FT, X0, Y0, gdf
from support.townkit import ALL_MS4, write_town

from swm_gis.config.town import load_config
from swm_gis.screening.build import build_screening
from swm_gis.screening.inputs import IMPERVIOUS_NOT_COVERED
from swm_gis.screening.request import ScreeningRequest

WEST = box(X0, Y0, X0 + 1000, Y0 + 1000)
#: 200 ft x 218 ft = 43,600 sq ft, in the east half
SITE = gdf(geoms=[box(X0 + 1500, Y0 + 400, X0 + 1500 + 200 * FT, Y0 + 400 + 218 * FT)])
MITIGATION = gdf({"id": ["M-WEST"]}, [box(X0 + 100, Y0 + 100, X0 + 150, Y0 + 150)])


def _rasters(tmp_path) -> str:
    """An impervious raster and a DEM (10 m cells) over the west half only."""
    for name, dtype, array in (
            ("impervious.tif", "uint8", np.zeros((100, 100), dtype="uint8")),
            ("dem.tif", "float32",
             (100 + 0.05 * np.arange(100)[::-1, None] + np.zeros((100, 100))).astype("float32"))):
        with rasterio.open(tmp_path / name, "w", driver="GTiff", width=100, height=100,
                           count=1, dtype=dtype, crs=CRS,
                           transform=Affine(10, 0, X0, 0, -10, Y0 + 1000)) as dst:
            dst.write(array, 1)
    return ('\n[layers.impervious]\npath = "impervious.tif"\n'
            '\n[layers.dem]\npath = "dem.tif"\n')


def _screen(tmp_path):
    layers = {
        "parcels": gdf({"LOC_ID": ["M_1"]}, [box(X0, Y0, X0 + 2000, Y0 + 1000)]),
        "town_boundary": gdf({}, [box(X0, Y0, X0 + 2000, Y0 + 1000)]),
        "huc12": gdf({"huc12": ["010700020101"], "name": ["West Brook"]}, [WEST]),
        "huc10": gdf({"huc10": ["0107000201"], "name": ["Upper River"]}, [WEST]),
        # NHESP and flood zones mapped in the west half only
        "nhesp_priority": gdf({"PRIHAB_ID": ["PH 1"]}, [box(X0 + 100, Y0 + 100, X0 + 200,
                                                            Y0 + 200)]),
        "flood_zones": gdf({"FLD_ZONE": ["AE"], "SFHA_TF": ["T"], "STATIC_BFE": [50.0]},
                           [box(X0 + 100, Y0 + 600, X0 + 300, Y0 + 700)]),
        "streams": gdf({"STREAM_ID": ["S-1"]},
                       [LineString([(X0 + 1100, Y0 + 100), (X0 + 1900, Y0 + 100)])]),
    }
    toml = write_town(tmp_path, layers, extra=_rasters(tmp_path), town_extra=ALL_MS4)
    request = ScreeningRequest(SITE, mitigation=MITIGATION)
    return build_screening(load_config(toml), request).document


def test_layers_that_do_not_cover_the_site_are_not_checked_and_the_trigger_answers(tmp_path):
    doc = _screen(tmp_path)
    found = {f["key"]: f for f in doc["findings"]}
    # the trigger is answered: 43,600 sq ft >= 43,560 sq ft, and the town states its MS4
    assert doc["disturbance"]["area_sqft"] == 43_600.0
    assert found["disturbance"]["status"] == "yes"
    # HUC polygons: both levels not checked, with the reason; mitigation cannot be decided
    assert doc["watersheds"]["not_covered"] == ["huc12", "huc10"]
    assert found["watersheds"]["status"] == "not_checked"
    assert found["watersheds"]["answer"] == (
        "HUC12 not checked (the HUC12 watershed layer does not cover the site); HUC10 not "
        "checked (the HUC10 watershed layer does not cover the site).")
    assert found["mitigation"]["status"] == "not_checked"
    assert "watershed layer does not cover the site" in found["mitigation"]["answer"]
    # impervious raster: existing cover not measured, the finding conditional, reason given
    assert doc["development_type"]["existing_impervious_sqft"] is None
    checks = {c["name"]: c for c in doc["checks"]}
    assert checks["development_type"]["reason"].startswith(IMPERVIOUS_NOT_COVERED)
    assert found["development_type"]["status"] == "conditional"
    assert any("does not cover the whole area searched" in c
               for c in found["development_type"]["caveats"])
    # DEM: the trace falls back to the nearest stream (approximate), and says why
    rw = doc["receiving_waters"]
    assert rw["method"] == "nearest-stream (approximate)" and rw["approximate"] is True
    assert "the elevation (DEM) layer does not cover the site" in \
        checks["receiving_waters"]["reason"]
    # NHESP and flood zones are read where they are, never a refusal: no habitat within
    # 500 ft (conditional only for the habitat layers not configured); the AE zone, 200 m x
    # 100 m = 20,000 m2 = 215,278 sq ft, lies on the site's parcel (the town's one parcel) but
    # outside the limit of disturbance
    assert doc["habitats"] == []
    assert found["habitats"]["layers_missing"] == ["nhesp_estimated", "vernal_pools"]
    assert found["floodplain"]["status"] == "yes"
    assert found["floodplain"]["answer"].startswith("215,278 sq ft of the site's parcel(s) M_1")
    # every square foot once (issue 32 item 3): all of it on the parcel, outside the limit
    assert ("SFHA on the site's parcel(s): 215,278 sq ft, 0 sq ft inside the limit of "
            "disturbance and 215,278 sq ft outside it.") in found["floodplain"]["answer"]


def test_the_same_site_with_covering_layers_is_checked(tmp_path):
    """The control: the site moved into the west half, where every layer covers it."""
    west_site = gdf(geoms=[box(X0 + 500, Y0 + 400, X0 + 500 + 200 * FT,
                               Y0 + 400 + 218 * FT)])
    layers = {
        "parcels": gdf({"LOC_ID": ["M_1"]}, [box(X0, Y0, X0 + 2000, Y0 + 1000)]),
        "huc12": gdf({"huc12": ["010700020101"], "name": ["West Brook"]}, [WEST]),
    }
    toml = write_town(tmp_path, layers, town_extra=ALL_MS4)
    doc = build_screening(load_config(toml), ScreeningRequest(west_site)).document
    assert "not_covered" not in doc["watersheds"]
    assert [h["huc"] for h in doc["watersheds"]["huc12"]] == ["010700020101"]

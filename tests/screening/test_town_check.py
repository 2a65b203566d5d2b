"""Issue 35 item 5: the town is decided from the town's real layers, never from a stand-in.

A front end's run without parcels (the QGIS plugin's single checks) has an empty parcels layer
and no town boundary: the engine says it could not check the site lies in the town, and counts
nothing outside it. Standing the site in for the town boundary (what the plugin did) made the
part of the common plan beyond the site "outside the town".
"""

from __future__ import annotations

from shapely.geometry import box
from support.screenkit import FT, X0, Y0, gdf
from support.townkit import write_town

from swm_gis.config.town import load_config
from swm_gis.screening.build import build_screening
from swm_gis.screening.request import ScreeningRequest
from swm_gis.screening.site import town_check

# the site: 200 ft x 218 ft = 43,600 sq ft; the common plan: the site and as much again east
# of it, 400 ft x 218 ft = 87,200 sq ft, of which 200 ft x 218 ft = 43,600 sq ft beyond the site
SITE_GEOM = box(X0 + 100, Y0 + 100, X0 + 100 + 200 * FT, Y0 + 100 + 218 * FT)
PLAN_GEOM = box(X0 + 100, Y0 + 100, X0 + 100 + 400 * FT, Y0 + 100 + 218 * FT)
NOT_CHECKED = {
    "code": "town_not_checked",
    "text": "Not checked that the site and common plan lie in Testtown: the run has no town "
            "boundary layer and no parcels, so no area is counted outside the town."}


def _empty_parcels():
    return gdf({"LOC_ID": ["x"]}, [SITE_GEOM]).iloc[0:0]


def test_no_boundary_and_no_parcels_says_not_checked_and_counts_nothing_outside(tmp_path):
    cfg = load_config(write_town(tmp_path, {"parcels": _empty_parcels()}))
    plan = gdf(geoms=[PLAN_GEOM])
    assert town_check(cfg, SITE_GEOM, common_plan=plan) == [NOT_CHECKED]
    assert town_check(cfg, SITE_GEOM) == [{
        "code": "town_not_checked",
        "text": "Not checked that the site lies in Testtown: the run has no town boundary "
                "layer and no parcels, so no area is counted outside the town."}]


def test_the_site_standing_in_for_the_town_made_the_plan_beyond_it_outside(tmp_path):
    """What the plugin's stand-in did: the site as the town boundary puts the 43,600 sq ft of
    the plan beyond the site outside the town (the figure the report wrongly printed)."""
    cfg = load_config(write_town(tmp_path, {"parcels": _empty_parcels(),
                                            "town_boundary": gdf(geoms=[SITE_GEOM])}))
    warnings = town_check(cfg, SITE_GEOM, common_plan=gdf(geoms=[PLAN_GEOM]))
    assert [w["code"] for w in warnings] == ["common_plan_partly_outside_town"]
    assert warnings[0]["text"].startswith("43,600 sq ft of the common plan lies outside Testtown")


def test_a_screening_without_town_layers_carries_the_warning_not_an_outside_area(tmp_path):
    cfg = load_config(write_town(tmp_path, {"parcels": _empty_parcels()}))
    doc = build_screening(cfg, ScreeningRequest(gdf(geoms=[SITE_GEOM]),
                                                common_plan=gdf(geoms=[PLAN_GEOM]))).document
    assert doc["warnings"] == [NOT_CHECKED]
    assert not any("outside Testtown" in w["text"] for w in doc["warnings"])
    permit = next(f for f in doc["findings"] if f["key"] == "disturbance")
    assert NOT_CHECKED["text"] in permit["caveats"]

"""Truth of a finding (README "Truth of a finding"): yes / no only on data that covers the area
searched.

Two towns built by hand (EPSG:26986, metres from the south-west corner X0, Y0; 3 km x 2 km; the
town boundary is the whole rectangle). Elevation z = 100 + 0.08 |y - 1005| - 0.01 x: a valley
whose floor (y = 1005) falls to the east. The site is x 300..400, y 1200..1300 (100 m x 100 m =
107,639 sq ft); its runoff runs south to the Brook at y = 1005, 200 m below.

Hydrography (both towns): Brook (105, 1005) -> (705, 1005) into Mill Pond (x 705..1005,
y 955..1055), out by the River (1005, 1005) -> (1805, 1005) into Long Lake (x 1805..2105,
y 955..1055), which has no outlet: the trace ends there, inside the data.

* FOUND town: Mill Pond is impaired (category 5, phosphorus), Long Lake is an ORW, a Priority
  Habitat lies 100 m east of the site (328 ft), an AE zone covers the site's south half.
* CLEAN town: the impaired water, the ORW and the habitats lie elsewhere (north-east corner), the
  AE zone lies away from the site: every resource finding is an exact "no".
"""

from __future__ import annotations

import copy
from pathlib import Path

import geopandas as gpd
import numpy as np
import pandas as pd
import pytest
import rasterio
from affine import Affine
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString, Point, box
from support.townkit import ALL_MS4, write_town

from swm_gis.config.town import load_config
from swm_gis.screening import findings as fd
from swm_gis.screening.build import build_screening
from swm_gis.screening.checklist import submittal_checklist
from swm_gis.screening.request import ScreeningRequest
from swm_gis.terrain.receiving_waters import cause_group, requirements_for

CRS = "EPSG:26986"
X0, Y0 = 200_000.0, 900_000.0
OPTIONAL = ("nhesp_priority", "nhesp_estimated", "vernal_pools", "flood_zones", "huc12",
            "huc10", "orw", "impaired_waters", "streams", "waterbodies", "town_boundary",
            "impervious", "dem")


def xy(x, y):
    return (X0 + x, Y0 + y)


def rect(x0, y0, x1, y1):
    return box(*xy(x0, y0), *xy(x1, y1))


def gdf(data, geoms):
    return gpd.GeoDataFrame(data, geometry=list(geoms), crs=CRS)


SITE = gdf({}, [rect(300, 1200, 400, 1300)])


def write_dem(path: Path, *, y_min: float = 0.0) -> None:
    nx, ny = 300, int((2000 - y_min) // 10)
    cols, rows = np.meshgrid(np.arange(nx) + 0.5, np.arange(ny) + 0.5)
    x, y = cols * 10, 2000 - rows * 10
    z = (100 + 0.08 * np.abs(y - 1005) - 0.01 * x).astype("float32")
    with rasterio.open(path, "w", driver="GTiff", width=nx, height=ny, count=1, dtype="float32",
                       crs=CRS, transform=Affine(10, 0, X0, 0, -10, Y0 + 2000)) as dst:
        dst.write(z, 1)


def town_layers(kind: str) -> dict[str, gpd.GeoDataFrame]:
    found = kind == "found"
    pond, lake = rect(705, 955, 1005, 1055), rect(1805, 955, 2105, 1055)
    corner = rect(2700, 1800, 2900, 1950)
    return {
        # the site's lot (300 m x 300 m = 968,752 sq ft): "the site" of Chapter 320
        "parcels": gdf({"LOC_ID": ["M_1"], "USE_CODE": ["101"]}, [rect(200, 1100, 500, 1400)]),
        "town_boundary": gdf({}, [rect(0, 0, 3000, 2000)]),
        "huc12": gdf({"huc12": ["010900010601"], "name": ["Valley Brook"]},
                     [rect(0, 0, 3000, 2000)]),
        "huc10": gdf({"huc10": ["0109000106"], "name": ["Valley River"]},
                     [rect(0, 0, 3000, 2000)]),
        "impervious": gdf({"kind": ["roof"]}, [rect(2500, 1500, 2520, 1520)]),
        "streams": gdf({"STREAM_ID": ["BROOK", "RIVER"], "name": ["Brook", "River"]},
                       [LineString([xy(105, 1005), xy(705, 1005)]),
                        LineString([xy(1005, 1005), xy(1805, 1005)])]),
        "waterbodies": gdf({"NAME": ["Mill Pond", "Long Lake"]}, [pond, lake]),
        "impaired_waters": gdf(
            {"AU_ID": ["MA93-01"], "AU_NAME": ["Mill Pond"], "CATEGORY": ["5"],
             "CAUSES": ["Phosphorus, Total"], "TMDL": [None]}, [pond if found else corner]),
        "orw": gdf({"ORW_ID": ["ORW-1"], "NAME": ["Long Lake"]}, [lake if found else corner]),
        "nhesp_priority": gdf({"PRIHAB_ID": ["PH 1"]},
                              [rect(500, 1200, 600, 1300) if found else corner]),
        "nhesp_estimated": gdf({"ESTHAB_ID": ["EH 1"]}, [corner]),
        "vernal_pools": gdf({"CVP_NUM": ["CVP 9"]}, [Point(xy(2800, 1900))]),
        "flood_zones": gdf({"FLD_ZONE": ["AE"], "ZONE_SUBTY": [None], "SFHA_TF": ["T"],
                            "STATIC_BFE": [52.0]},
                           [rect(250, 1150, 450, 1250) if found else corner]),
    }


def make_town(tmp_path: Path, kind: str, *, drop=(), replace=None, extra="",
              dem_y_min: float = 0.0, coverage=None, all_ms4: bool = True) -> Path:
    """The test town of ``kind``; ``all_ms4``: it states all its land drains to its MS4."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    layers = {k: v for k, v in town_layers(kind).items() if k not in drop}
    layers.update(replace or {})
    if "dem" not in drop:
        write_dem(tmp_path / "dem.tif", y_min=dem_y_min)
        extra = '\n[layers.dem]\npath = "dem.tif"\n' + extra
    toml = write_town(tmp_path, layers, extra=extra, town_extra=ALL_MS4 if all_ms4 else "")
    text = toml.read_text(encoding="utf-8")
    for key, value in (coverage or {}).items():
        text = text.replace(f'layer = "{key}"\n', f'layer = "{key}"\ncoverage = "{value}"\n')
    toml.write_text(text, encoding="utf-8")
    return toml


def screen(tmp_path, kind="clean", **kw):
    options = {k: kw.pop(k) for k in ("common_plan", "exemptions", "proposed_use") if k in kw}
    tmp_path.mkdir(parents=True, exist_ok=True)
    site = kw.pop("site", SITE)
    cfg = load_config(make_town(tmp_path, kind, **kw))
    return build_screening(cfg, ScreeningRequest(site, **options)).document


def statuses(doc):
    return {f["key"]: f["status"] for f in doc["findings"]}


def by_key(doc, key):
    return next(f for f in doc["findings"] if f["key"] == key)


# --------------------------------------------------------------------------- exact yes / no
def test_found_town_says_yes_with_exact_figures(tmp_path):
    doc = screen(tmp_path, "found")
    assert statuses(doc) == {
        "disturbance": "yes", "development_type": "info", "standards": "yes",
        "watersheds": "info", "mitigation": "info", "habitats": "yes", "floodplain": "yes",
        "receiving_waters": "yes"}
    assert by_key(doc, "habitats")["answer"].startswith(
        "1 feature(s): Priority Habitat PH 1 at 328 ft.")  # 100 m = 328.08 ft
    flood = by_key(doc, "floodplain")["answer"]
    # The site is the lot (Chapter 320 definitions): the AE zone, 200 m x 100 m = 215,278 sq ft,
    # lies wholly on the 300 m x 300 m lot (22.2 %); 100 m x 50 m = 53,820 sq ft of it inside
    # the limit of disturbance, 161,459 sq ft outside it; the limit lies wholly on the lot, so
    # nothing is off it (the split of swm_gis.rules.site_split)
    assert flood.startswith(
        "215,278 sq ft of the site's parcel(s) M_1 (968,752 sq ft) (22.2%) in the SFHA: zone AE "
        "215,278 sq ft, BFE 52 ft. SFHA on the site's parcel(s): 215,278 sq ft, 53,820 sq ft "
        "inside the limit of disturbance and 161,459 sq ft outside it.")
    assert doc["floodplain"]["sfha_area_sqft"] == pytest.approx(53_819.5, abs=0.1)
    assert doc["floodplain"]["subject_parcels"]["basis"] == \
        "the parcels the limit of disturbance lies on"
    rw = by_key(doc, "receiving_waters")
    assert rw["parts"] == {"orw": "yes", "impaired": "yes"}
    assert rw["complete"] == {"orw": True, "impaired": True}
    assert "Mill Pond (MA93-01, category 5: Phosphorus, Total)" in rw["answer"]
    assert "Long Lake at" in rw["answer"]
    assert doc["receiving_waters"]["trace_end"] == []
    assert by_key(doc, "disturbance")["answer"].startswith(
        "Required. The site disturbs 107,639 sq ft (2.47 acres)")


def test_clean_town_says_an_exact_no_where_every_layer_covers_the_search(tmp_path):
    doc = screen(tmp_path, "clean")
    assert statuses(doc) == {
        "disturbance": "yes", "development_type": "info", "standards": "yes",
        "watersheds": "info", "mitigation": "info", "habitats": "no", "floodplain": "no",
        "receiving_waters": "no"}
    for key in ("habitats", "floodplain", "receiving_waters"):
        f = by_key(doc, key)
        assert f["layers_missing"] == [] and f["caveats"] == [], key
    assert by_key(doc, "receiving_waters")["answer"] == (
        "No Outstanding Resource Water downstream. No impaired water downstream.")
    items = {i.citation: i for i in submittal_checklist(doc)}
    assert items["§ 320-19 B(2)"].applies is False
    assert all(items[c].applies is False for c in items if "B(10)" in c)


# --------------------------------------------------------------------------- absent layers
@pytest.mark.parametrize(("drop", "key", "missing"), [
    (HABITATS := ("nhesp_priority", "nhesp_estimated", "vernal_pools"), "habitats",
     list(HABITATS)),
    (("flood_zones",), "floodplain", ["flood_zones"]),
    (("huc12", "huc10"), "watersheds", ["huc12", "huc10"]),
    (("orw", "vernal_pools", "impaired_waters"), "receiving_waters",
     ["orw", "vernal_pools", "impaired_waters"]),
    (("streams", "waterbodies"), "receiving_waters", ["streams", "waterbodies", "orw",
                                                      "impaired_waters"]),
], ids=["habitats", "floodplain", "watersheds", "orw-and-impaired", "no-network"])
def test_absent_layers_make_the_finding_not_checked(tmp_path, drop, key, missing):
    doc = screen(tmp_path, "found", drop=drop)
    f = by_key(doc, key)
    assert f["status"] == "not_checked"
    assert f["layers_missing"] == missing
    assert "not checked" in f["answer"].lower()


def test_one_absent_layer_of_several_makes_a_none_found_conditional(tmp_path):
    doc = screen(tmp_path, "clean", drop=("vernal_pools",))
    f = by_key(doc, "habitats")
    assert f["status"] == "conditional" and f["layers_missing"] == ["vernal_pools"]
    assert "Not checked: the certified vernal pools layer is not configured." in f["caveats"]
    rw = by_key(doc, "receiving_waters")
    assert rw["parts"] == {"orw": "conditional", "impaired": "no"}
    assert ("Certified vernal pools are ORWs (Chapter 320 definitions) and were not searched: no "
            "certified vernal pools layer is configured.") in rw["caveats"]


def test_impervious_layer_absent_assumes_new_development_conditionally(tmp_path):
    doc = screen(tmp_path, "clean", drop=("impervious",))
    f = by_key(doc, "development_type")
    assert f["status"] == "conditional" and f["layers_missing"] == ["impervious"]
    assert f["answer"].startswith("New development assumed (the stricter standards)")
    assert by_key(doc, "standards")["status"] == "conditional"


# --------------------------------------------------------------------------- partial coverage
def test_habitat_layer_covering_part_of_the_500ft_search_is_conditional(tmp_path):
    # the habitat layers are declared to cover only their own extent (the NE corner), so the
    # 500 ft search around the site is not covered: none found is not a "no"
    doc = screen(tmp_path, "clean", coverage=dict.fromkeys(HABITATS, "extent"))
    f = by_key(doc, "habitats")
    assert f["status"] == "conditional"
    assert any("does not cover the whole area searched" in c for c in f["caveats"])
    assert doc["coverage"]["habitats"]["nhesp_priority"]["covers"] is False


def test_flood_layer_covering_part_of_the_site_is_conditional(tmp_path):
    zones = gdf({"FLD_ZONE": ["X"], "ZONE_SUBTY": [None], "SFHA_TF": ["F"], "STATIC_BFE": [None]},
                [rect(350, 1100, 600, 1400)])  # covers the site's east half only
    doc = screen(tmp_path, "clean", replace={"flood_zones": zones},
                 coverage={"flood_zones": "extent"})
    assert by_key(doc, "floodplain")["status"] == "conditional"


def test_statewide_coverage_covers_any_search(tmp_path):
    doc = screen(tmp_path, "clean", drop=("town_boundary",),
                 coverage=dict.fromkeys(HABITATS, "statewide"))
    assert by_key(doc, "habitats")["status"] == "no"


def test_unknown_coverage_value_is_refused(tmp_path):
    from swm_gis.errors import ConfigError

    with pytest.raises(ConfigError, match='coverage = "everywhere" is not one of town, extent'):
        load_config(make_town(tmp_path, "clean", coverage={"orw": "everywhere"}))


def test_trace_that_leaves_the_dem_is_conditional_and_says_where(tmp_path):
    # the DEM stops at y = 1100 m, 100 m below the site and 95 m above the Brook
    doc = screen(tmp_path, "clean", dem_y_min=1100.0)
    rw = doc["receiving_waters"]
    assert [e["reason"] for e in rw["trace_end"]] == ["dem_edge"]
    f = by_key(doc, "receiving_waters")
    assert f["status"] == "conditional"
    assert any("a DEM reaching further downhill would carry the trace on" in c
               for c in f["caveats"])


def test_trace_cut_at_the_town_line_is_conditional(tmp_path):
    town = gdf({}, [rect(0, 0, 1500, 2000)])  # the River leaves the town at x = 1500
    doc = screen(tmp_path, "clean", drop=("town_boundary",), replace={"town_boundary": town})
    (end,) = doc["receiving_waters"]["trace_end"]
    assert end["reason"] == "boundary" and (end["x"], end["y"]) == xy(1500, 1005)
    assert "waters downstream of it were not searched" in end["message"]
    assert doc["receiving_waters"]["stopped_at_boundary"] is True
    assert by_key(doc, "receiving_waters")["status"] == "conditional"


def test_network_end_is_conditional(tmp_path):
    streams = gdf({"STREAM_ID": ["BROOK"], "name": ["Brook"]},
                  [LineString([xy(105, 1005), xy(695, 1005)])])  # ends short of the pond
    doc = screen(tmp_path, "clean", drop=("streams", "waterbodies"),
                 replace={"streams": streams})
    assert [e["reason"] for e in doc["receiving_waters"]["trace_end"]] == ["network_end"]
    assert by_key(doc, "receiving_waters")["status"] == "conditional"


def test_vernal_pool_downstream_is_an_outstanding_resource_water(tmp_path):
    pools = gdf({"CVP_NUM": ["CVP 77"]}, [Point(xy(600, 1005))])  # on the Brook, 195 m away
    doc = screen(tmp_path, "clean", drop=("vernal_pools",), replace={"vernal_pools": pools})
    (pool,) = doc["receiving_waters"]["orw"]
    assert pool["vernal_pool"] is True and pool["id"] == "CVP 77"
    assert doc["habitats"] == []  # 195 m = 640 ft from the site: beyond 500 ft
    rw = by_key(doc, "receiving_waters")
    assert rw["status"] == "yes" and rw["parts"]["orw"] == "yes"
    assert "Certified Vernal Pool CVP 77 at" in rw["answer"]
    items = {i.citation: i for i in submittal_checklist(doc)}
    assert items["§ 320-19 B(2)"].applies is True


# --------------------------------------------------------------------------- permit trigger
SMALL = gdf({}, [rect(300, 1200, 340, 1240)])  # 40 m x 40 m = 17,222 sq ft


def test_sub_acre_site_without_a_common_plan_is_conditional(tmp_path):
    doc = screen(tmp_path, site=SMALL)
    f = by_key(doc, "disturbance")
    assert f["status"] == "conditional" and f["layers_missing"] == ["common_plan"]
    assert f["answer"] == (
        "Conditional. The site disturbs 17,222 sq ft (0.40 acres), below one acre, and no "
        "common plan was given: a permit is required if the site is part of a larger common "
        "plan of development or sale that will ultimately disturb one acre or more (e.g. a lot "
        "of a subdivision), and not otherwise.")
    assert doc["disturbance"]["permit_required"] is None
    assert by_key(doc, "standards")["status"] == "conditional"


def test_sub_acre_site_with_its_two_acre_common_plan_is_required(tmp_path):
    plan = gdf({}, [rect(300, 1200, 400, 1290)])  # 100 m x 90 m = 96,875 sq ft = 2.22 acres
    doc = screen(tmp_path, site=SMALL, common_plan=plan)
    f = by_key(doc, "disturbance")
    assert f["status"] == "yes" and doc["disturbance"]["permit_required"] is True
    assert "with its common plan of development or sale 96,875 sq ft (2.22 acres)" in f["answer"]


def test_sub_acre_site_with_a_sub_acre_plan_is_an_exact_no(tmp_path):
    plan = gdf({}, [rect(300, 1200, 360, 1260)])  # 60 m x 60 m = 38,750 sq ft
    doc = screen(tmp_path, site=SMALL, common_plan=plan)
    assert by_key(doc, "disturbance")["status"] == "no"
    assert by_key(doc, "standards")["status"] == "info"


def test_claimed_exemption_is_the_applicants_claim(tmp_path):
    doc = screen(tmp_path, exemptions=["wetlands-order"])
    f = by_key(doc, "disturbance")
    assert f["status"] == "conditional"
    assert doc["disturbance"]["permit_required"] is None
    assert ("The applicant claims an exemption: Bylaw 213-16B(6) (wetlands-order): stormwater "
            "discharges resulting from the activities identified in Chapter 213, Article II, "
            "that are wholly subject to jurisdiction under the Wetlands Protection Act and "
            "demonstrate compliance with the Massachusetts Stormwater Management Handbook and "
            "comply with these rules and regulations as reflected in an order of conditions "
            "issued by the Conservation Commission. This is the applicant's claim; the "
            "Conservation Commission decides whether the activity qualifies. If it does not, a "
            "permit is required (the disturbance reaches one acre).") in f["answer"]
    assert any("seventh Bylaw 213-16B exemption" in c for c in f["caveats"])


# --------------------------------------------------------------------------- redevelopment
def test_redevelopment_states_existing_impervious_area_and_share(tmp_path):
    sliver = gdf({"kind": ["old pavement"]}, [rect(300, 1200, 302, 1210)])  # 20 m2 = 215 sq ft
    doc = screen(tmp_path, drop=("impervious",), replace={"impervious": sliver})
    f = by_key(doc, "development_type")
    # 215 sq ft of 107,639 = 0.2 %, under the town's 5 % small existing impervious share rule:
    # the Commission's judgement, so conditional (and the standards with it)
    assert f["status"] == "conditional"
    assert f["answer"].startswith("Redevelopment as measured (measured: impervious polygons), "
                                  "for the Commission to confirm.")
    assert ("Existing impervious cover in the limit of disturbance: 215 sq ft, 0.2% of its "
            "107,639 sq ft.") in f["answer"]
    assert "On the site's parcel(s) (968,752 sq ft): 215 sq ft" in f["answer"]
    assert any("Only 0.2% of the limit of disturbance is existing impervious cover (under the "
               "town's threshold for a small existing impervious share, 5.0%)" in c
               for c in f["caveats"])
    assert any("\"on an area that has not previously been developed to include impervious "
               "cover\"" in c for c in f["caveats"])
    assert by_key(doc, "standards")["status"] == "conditional"
    assert ("If the Commission finds new development (§ 320-19 B(7)): retain 1.0 in x the "
            "post-construction impervious area, or remove 90% TSS and 60% TP; off-site "
            "mitigation in the same HUC12.") in by_key(doc, "standards")["caveats"]


def test_small_share_threshold_is_a_rule(tmp_path):
    sliver = gdf({"kind": ["old pavement"]}, [rect(300, 1200, 302, 1210)])  # 0.2 % of the site
    doc = screen(tmp_path, drop=("impervious",), replace={"impervious": sliver},
                 extra="\n[rules]\nsmall_existing_impervious_share = 0.001\n")
    assert by_key(doc, "development_type")["status"] == "info"
    assert doc["development_type"]["small_share_threshold"] == 0.001
    assert "if_new_development" not in doc["standards"]


# --------------------------------------------------------------------------- causes table
CAUSES = ["Phosphorus, Total", "Nitrogen, Total", "Ammonia (Un-ionized)", "Chloride",
          "Salinity", "Sedimentation/Siltation", "Lead", "Oil and Grease",
          "Total Suspended Solids (TSS)", "Escherichia coli (E. coli)", "Dissolved Oxygen"]
B10 = {"tmdl": "§ 320-19 B(10)(a)", "nitrogen": "§ 320-19 B(10)(b)",
       "phosphorus": "§ 320-19 B(10)(c)", "chloride": "§ 320-19 B(10)(d)",
       "solids_metals_oil": "§ 320-19 B(10)(e)"}


@settings(max_examples=60, deadline=None)
@given(causes=st.lists(st.sampled_from(CAUSES), max_size=4),
       category=st.sampled_from(["4A", "4B", "5"]),
       use=st.sampled_from([None, "325", "101", "commercial", "residential"]))
def test_checklist_and_requirements_map_causes_to_the_same_duties(causes, category, use):
    """Every B(10) duty the checklist marks is in the requirements list, and back."""
    au = {"au_id": "MA1", "name": "Pond", "category": category, "causes": causes, "tmdl": None,
          "flow_distance_ft": 10.0}
    reqs = requirements_for([au], [], proposed_use=use)
    doc = {"receiving_waters": {"orw": [], "impaired": [au], "requirements": reqs,
                                "trace_end": [], "proposed_use": use},
           "coverage": copy.deepcopy(_full())}
    items = {i.citation: i for i in submittal_checklist(doc)}
    required = {c for c in B10.values() if items[c].applies}
    listed = {"§ " + r["section"] for r in reqs if not r.get("conditional")} & set(B10.values())
    assert required == listed
    undecided = {c for c in B10.values() if items[c].applies is None}
    assert undecided == {"§ " + r["section"] for r in reqs if r.get("conditional")}
    groups = {cause_group(c) for c in causes}
    assert (items[B10["chloride"]].applies is True) == ("chloride" in groups)


def _full():
    from support.screenkit import FULL_COVERAGE

    return FULL_COVERAGE


def test_b10e_follows_the_proposed_use(tmp_path):
    """Sedimentation and lead downstream: (e) holds on commercial land only. The town's parcels
    carry no use code, so without --proposed-use it is conditional, never dropped."""
    layers = town_layers("found")
    impaired = layers["impaired_waters"].assign(CAUSES=["Sedimentation; Lead"])
    docs = {use: screen(tmp_path / str(use), "found", replace={"impaired_waters": impaired},
                        **({"proposed_use": use} if use else {}))
            for use in (None, "325", "residential")}
    applies = {use: {i.citation: i for i in submittal_checklist(d)}["§ 320-19 B(10)(e)"].applies
               for use, d in docs.items()}
    assert applies == {None: None, "325": True, "residential": False}
    req = next(r for r in docs["325"]["receiving_waters"]["requirements"]
               if r["section"] == "320-19 B(10)(e)")
    assert req["land_use_basis"] == "proposed use code 325 (as given)"
    assert "(Land use from the proposed use code 325 (as given).)" in req["text"]
    unknown = next(r for r in docs[None]["receiving_waters"]["requirements"]
                   if r["section"] == "320-19 B(10)(e)")
    assert unknown["conditional"] is True
    assert not [r for r in docs["residential"]["receiving_waters"]["requirements"]
                if r["section"] == "320-19 B(10)(e)"]


def test_unknown_proposed_use_is_refused(tmp_path):
    from swm_gis.errors import SwmGisError

    with pytest.raises(SwmGisError, match='Unknown proposed_use= "bakery"'):
        screen(tmp_path, proposed_use="bakery")


# --------------------------------------------------------------------------- property
@pytest.fixture(scope="module")
def baselines(tmp_path_factory):
    return {kind: statuses(screen(tmp_path_factory.mktemp(kind), kind))
            for kind in ("found", "clean")}


@settings(max_examples=8, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(["found", "clean"]),
       drop=st.sets(st.sampled_from(OPTIONAL), min_size=1, max_size=4))
def test_deleting_optional_layers_never_turns_an_answer_into_no(tmp_path_factory, baselines,
                                                               kind, drop):
    # sorted: a set's order follows the hash seed; the same example drops in the same order
    doc = screen(tmp_path_factory.mktemp("drop"), kind, drop=tuple(sorted(drop)))
    before, after = baselines[kind], statuses(doc)
    for key, status in after.items():
        if before[key] == "yes":
            assert status != "no", (key, drop)
        if status == "no":
            assert before[key] == "no", (key, drop)  # a "no" needs all the data
    assert all(f["status"] in fd.STATUSES for f in doc["findings"])


# --------------------------------------------------------------------------- pure module
def test_a_document_without_coverage_records_claims_nothing(tmp_path):
    doc = screen(tmp_path, "clean")
    bare = {k: v for k, v in doc.items() if k not in ("coverage", "findings")}
    got = {f["key"]: f["status"] for f in fd.decide_findings(bare)}
    assert "no" not in {got[k] for k in ("habitats", "floodplain", "receiving_waters")}


def test_unknown_status_is_refused():
    with pytest.raises(ValueError, match="unknown finding status"):
        fd.finding("habitats", "none", "x")


def test_docstring_examples_run():
    import doctest

    import swm_gis.screening.findings as module

    assert doctest.testmod(module).failed == 0


# --------------------------------------------------------------------------- real data
def test_cambridge_screen_says_not_checked_where_the_city_has_no_layer(cambridge_config,
                                                                      tmp_path):
    """Cambridge's config has no NHESP, HUC, ORW, impaired-water, stream or DEM layer: the
    screening, the summary and the report say "not checked", never "no" or "none"."""
    from swm_gis.io import layers as io
    from swm_gis.reports.screening_report import write_screening_report
    from swm_gis.screening.findings import summary_lines

    cfg = load_config(cambridge_config)
    parcels = io.read_layer(cfg, "parcels", where="ML LIKE '90-%'")
    result = build_screening(cfg, ScreeningRequest(parcels[parcels["id"].str.startswith("90-")]))
    doc = result.document
    got = statuses(doc)
    assert got["habitats"] == "not_checked" and got["watersheds"] == "not_checked"
    rw = by_key(doc, "receiving_waters")
    assert rw["parts"] == {"orw": "not_checked", "impaired": "not_checked"}
    assert rw["status"] == "not_checked"
    assert {"orw", "impaired_waters", "vernal_pools", "dem"} <= set(rw["layers_missing"])
    assert by_key(doc, "habitats")["layers_missing"] == list(HABITATS)
    text = "\n".join(summary_lines(doc))
    for title in ("NHESP habitats and certified vernal pools within 500 ft: NOT CHECKED",
                  "Watersheds (HUC12 / HUC10): NOT CHECKED",
                  "Receiving waters (ORW, impaired waters): NOT CHECKED"):
        assert title in text
    assert "ORWs not checked" in text and "Impaired waters not checked" in text
    out = write_screening_report(doc, result.layers, tmp_path)
    html = " ".join(out["html"].read_text(encoding="utf-8").split())
    for untruth in ("No Outstanding Resource Water and no impaired water",
                    "The site is in no HUC", "No feature within 500 ft",
                    "No ORW or impaired water downstream"):
        assert untruth not in html
    items = {i.citation: i for i in submittal_checklist(doc)}
    assert items["§ 320-19 B(2)"].applies is None
    assert all(items[c].applies is None for c in items if "B(10)" in c)


def test_huc_layer_covering_part_of_the_site_is_conditional(tmp_path):
    half = gdf({"huc12": ["010900010601"], "name": ["Valley Brook"]},
               [rect(0, 0, 350, 2000)])  # the site's west half only
    doc = screen(tmp_path, "clean", replace={"huc12": half}, coverage={"huc12": "extent"})
    f = by_key(doc, "watersheds")
    assert f["status"] == "conditional"
    assert "Only 50.0% of the site lies in the HUC12 units of the layer given." in f["caveats"]


def test_impervious_layer_covering_part_of_the_site_is_conditional(tmp_path):
    part = gdf({"kind": ["roof"]}, [rect(380, 1250, 420, 1290)])  # extent: x 380..420 only
    doc = screen(tmp_path, "clean", replace={"impervious": part},
                 coverage={"impervious": "extent"})
    f = by_key(doc, "development_type")
    assert f["status"] == "conditional"
    assert any("The existing impervious layer does not cover the whole area searched" in c
               for c in f["caveats"])


def test_summary_for_some_keys_is_their_lines_only(tmp_path):
    doc = screen(tmp_path, "clean", drop=HABITATS)
    lines = fd.summary_lines(doc, keys=["habitats"])
    assert lines == ["NHESP habitats and certified vernal pools within 500 ft: NOT CHECKED - Not "
                     "checked: no NHESP priority or estimated habitat and no certified vernal "
                     "pool layer configured."]


# --------------------------------------------------------------------------- Chapter 320 as written
def _trigger(area=60_000.0, plan=None, claims=(), ms4=None):
    from swm_gis.rules.citations import default_citations

    EXEMPTIONS = default_citations().exemption_list  # noqa: N806 - the default profile's
    reaches = area >= 43_560 or (plan is not None and plan >= 43_560)
    return {"area_sqft": area, "area_acres": area / 43_560, "common_plan_area_sqft": plan,
            "trigger_sqft": 43_560.0, "disturbs_trigger_area": reaches,
            "permit_required": None if claims else (True if reaches else
                                                      (False if plan is not None else None)),
            "exemption": [{"name": n, "section": EXEMPTIONS[n][0], "activity": EXEMPTIONS[n][1]}
                          for n in claims] or None,
            "ms4": ms4 or {"checked": False, "reached": None, "features": [], "searched": None,
                           "assumed_by_town": True},
            "reasons": []}


def _pure_doc(*, area=60_000.0, plan=None, claims=(), roadway=False, dev="redevelopment",
              existing=20_000.0, ms4=None, mitigation=(), huc10=(("0109000106", 1.0),)):
    from swm_gis.config.town import Rules
    from swm_gis.rules.standards import performance_standards

    return {
        "disturbance": _trigger(area, plan, claims, ms4),
        "development_type": {"value": dev, "existing_impervious_sqft": existing,
                             "method": "measured: impervious polygons"},
        "standards": performance_standards(dev, post_impervious_sqft=20_000, rules=Rules(),
                                           roadway_maintenance=roadway),
        "watersheds": {"huc12": [{"huc": "010900010601", "name": "Valley Brook", "share": 1.0}],
                       "huc10": [{"huc": h, "name": "", "share": s} for h, s in huc10]},
        "mitigation": list(mitigation), "habitats": [],
        "floodplain": {"in_sfha": False, "sfha_area_sqft": 0.0, "site_fraction": 0.0,
                       "zones": [], "shaded_x_area_sqft": 0.0, "shaded_x_checked": True,
                       "subject_parcels": {"in_sfha": False, "sfha_area_sqft": 0.0,
                                           "site_fraction": 0.0, "zones": [],
                                           "shaded_x_area_sqft": 0.0, "parcels": []}},
        "receiving_waters": {"orw": [], "impaired": [], "requirements": [], "trace_end": []},
        "coverage": _full(),
    }


def test_the_trigger_names_the_ms4_condition_and_the_town_boards():
    """Bylaw quoted in applicability A: "... draining to the Town's MS4". Issue 32 item 5: without
    an MS4 layer the permit is conditional on it, unless the town states all its land drains to
    its MS4 (then "yes", printed as the Town's assumption)."""
    town = fd.decide_findings(_pure_doc())[0]  # the town states it
    assert town["status"] == "yes" and town["layers_missing"] == ["ms4"]
    assert ("The disturbance is taken as draining to the Town's MS4: the Town's configuration "
            "states that all of its land drains to its MS4 (the Town's assumption, not a "
            "finding of this tool).") in town["answer"]
    assert any("\"Projects or activities approved by these Boards shall be deemed in compliance "
               "with the intent and provisions of these regulations.\"" in c
               for c in town["caveats"])
    unchecked = fd.decide_findings(_pure_doc(ms4={"checked": False, "reached": None,
                                                  "features": [], "searched": None}))
    assert unchecked[0]["status"] == "conditional" and unchecked[0]["layers_missing"] == ["ms4"]
    assert ("a permit is required if the disturbance drains to the Town's MS4. Whether the "
            "disturbance is draining to the Town's MS4 is not checked: no MS4 layer (catch "
            "basins, pipes, outfalls, drainage channels) is configured.") in unchecked[0]["answer"]
    assert unchecked[2]["status"] == "conditional"  # the standards follow
    met = fd.decide_findings(_pure_doc(ms4={
        "checked": True, "reached": True, "features": ["CB-7"], "near": ["CB-8"],
        "searched": "the runoff path traced down the DEM", "reach_ft": 10.0, "near_ft": 100.0}))[0]
    assert met["status"] == "yes" and met["layers_used"][-1] == "ms4"
    assert ("The disturbance is draining to the Town's MS4: the runoff path traced down the DEM "
            "comes within 10 ft of MS4 feature(s) CB-7; MS4 feature(s) CB-8 lie within 100 ft "
            "of the site, near it (nearness shows no drainage).") in met["answer"]
    dry = fd.decide_findings(_pure_doc(ms4={"checked": True, "reached": False, "features": [],
                                            "near": ["CB-8"], "near_ft": 100.0, "reach_ft": 10.0,
                                            "searched": "the runoff path traced down the DEM"}))
    assert dry[0]["status"] == "conditional"
    assert ("Whether the disturbance is draining to the Town's MS4 is not shown: the runoff "
            "path traced down the DEM reaches no MS4 feature (within 10 ft); MS4 feature(s) "
            "CB-8 lie within 100 ft of the site") in dry[0]["answer"]
    assert dry[2]["status"] == "conditional"  # the standards follow


def test_roadway_maintenance_is_a_claim_everywhere():
    doc = _pure_doc(roadway=True)
    found = {f["key"]: f for f in fd.decide_findings(doc)}
    st = found["standards"]
    assert st["status"] == "conditional"
    assert st["answer"].startswith("Unless the Commission accepts the applicant's "
                                   "roadway-maintenance claim (§ 320-19 B(8)(e)")
    assert "Retain 1,333 cu ft" in st["answer"]  # 0.8 in / 12 x 20,000 sq ft
    assert any("\"Roadway widening or improvements that increase the amount of impervious area "
               "on the redevelopment site by greater than or equal to a single lane width shall "
               "meet the requirements of Subsection B(8)(a) through (d) fully.\"" in c
               for c in st["caveats"])
    mit = found["mitigation"]
    assert "(unless the roadway-maintenance claim is accepted)" in mit["answer"]
    note = {i.citation: i for i in submittal_checklist({**doc, "findings": list(found.values())})}
    assert note["§ 320-19 A(10)(f)"].note.startswith(
        "Retention, unless the Commission accepts the roadway-maintenance claim (§ 320-19 "
        "B(8)(e)): 1,333 cu ft")


def test_a_roadway_claim_on_new_development_is_named_in_the_standards_finding():
    """Issue 32 item 9: the claim on new development does not stand (B(8)(e) is for
    redevelopment), and the finding says so, not only the reasons; B(7) applies in full:
    1.0 in / 12 x 20,000 sq ft = 1,666.7 cu ft, printed 1,667 cu ft."""
    found = {f["key"]: f for f in fd.decide_findings(_pure_doc(dev="new", existing=0.0,
                                                               roadway=True))}
    st = found["standards"]
    assert st["status"] == "yes"
    assert st["answer"].startswith("Retain 1,667 cu ft (1.0 in x 20,000 sq ft")
    assert st["answer"].endswith(
        "The applicant's roadway-maintenance claim (§ 320-19 B(8)(e)) does not apply: that "
        "exemption is for redevelopment only, and as new development the B(7) standards apply "
        "in full.")
    plain = {f["key"]: f for f in fd.decide_findings(_pure_doc(dev="new", existing=0.0))}
    assert "roadway" not in plain["standards"]["answer"]


def test_a_figure_below_the_trigger_never_prints_as_the_trigger():
    """Issue 32 item 9: 43,559.6 sq ft is below one acre (43,560 sq ft); rounded it would
    print "43,560 sq ft (1.00 acres)". It prints rounded down: 43,559 sq ft (0.99 acres), and
    in the summary 43,559.6 sq ft (0.999 acres)."""
    doc = _pure_doc(area=43_559.6)
    f = fd.decide_findings(doc)[0]
    assert f["status"] == "conditional"
    assert f["answer"].startswith("Conditional. The site disturbs 43,559 sq ft (0.99 acres), "
                                  "below one acre")
    doc["meta"] = {"town": "T"}
    assert fd.summary_lines({**doc, "findings": [f]})[0] == (
        "T: the site disturbs 43,559.6 sq ft (0.999 acres)")


@settings(max_examples=200, deadline=None)
@given(area=st.floats(min_value=40_000.0, max_value=43_559.999, allow_nan=False))
def test_no_area_below_the_trigger_prints_one_acre_or_more(area):
    import re

    doc = _pure_doc(area=area)
    f = fd.decide_findings(doc)[0]
    sqft, acres = re.search(r"disturbs ([\d,]+) sq ft \(([\d.]+) acres\)", f["answer"]).groups()
    assert int(sqft.replace(",", "")) < 43_560 and float(acres) < 1.0
    line = fd.summary_lines({**doc, "meta": {"town": "T"}, "findings": [f]})[0]
    sqft1, acres1 = re.search(r"disturbs ([\d,.]+) sq ft \(([\d.]+) acres\)", line).groups()
    assert float(sqft1.replace(",", "")) < 43_560 and float(acres1) < 1.0


def test_the_wetlands_order_claim_leaves_the_standards_applying():
    found = {f["key"]: f for f in fd.decide_findings(_pure_doc(claims=["wetlands-order"]))}
    assert found["disturbance"]["status"] == "conditional"
    assert found["standards"]["status"] == "yes"
    assert any("\"comply with these rules and regulations as reflected in an order of conditions "
               "issued by the Conservation Commission\": the performance standards apply either "
               "way." in c for c in found["standards"]["caveats"])
    other = {f["key"]: f for f in fd.decide_findings(_pure_doc(claims=["fencing"]))}
    assert other["standards"]["status"] == "conditional"


def test_mitigation_in_a_straddled_watershed_is_the_commissions_call():
    """A site 92.6 % in one HUC10 and 7.4 % in another: mitigation in the minority one."""
    rows = [{"id": "M1", "huc": "0109000107", "eligible": True, "reason": "Eligible"}]
    doc = _pure_doc(mitigation=rows, huc10=(("0109000106", 0.926), ("0109000107", 0.074)))
    f = fd.decide_findings(doc)[4]
    assert f["key"] == "mitigation" and f["status"] == "conditional"
    assert any("The site straddles HUC10s: 0109000106 (92.6%), 0109000107 (7.4%). Only the "
               "mitigation site's location was tested (M1 lies in 0109000107, which holds 7.4% "
               "of the site)" in c for c in f["caveats"])
    whole = fd.decide_findings(_pure_doc(mitigation=[{**rows[0], "huc": "0109000106"}]))[4]
    assert whole["status"] == "yes"


def test_the_02_pct_zone_is_not_checked_without_such_zones():
    doc = _pure_doc()
    doc["floodplain"].update(shaded_x_checked=False, shaded_x_area_sqft=None)
    doc["floodplain"]["subject_parcels"]["shaded_x_area_sqft"] = None
    f = fd.decide_findings(doc)[6]
    assert f["status"] == "no" and f["parts"] == {"shaded_x": "not_checked", "sfha": "no"}
    assert "0.2%-annual-chance zone: not checked" in f["answer"]


_CLAIMS = st.sets(st.sampled_from(["npdes-waived", "agriculture", "landscaping", "fencing",
                                   "utilities", "wetlands-order"]), max_size=3)


@settings(max_examples=120, deadline=None)
@given(area=st.sampled_from([20_000.0, 43_560.0, 90_000.0]),
       plan=st.sampled_from([None, 30_000.0, 60_000.0]),
       dev=st.sampled_from(["new", "redevelopment"]),
       existing=st.sampled_from([0.0, 500.0, 30_000.0]),
       ms4=st.sampled_from([None, True, False]),
       claims=_CLAIMS, roadway=st.booleans())
def test_a_claim_never_turns_yes_into_no_or_no_into_yes(area, plan, dev, existing, ms4, claims,
                                                        roadway):
    """Adding a claim or exemption moves a decided answer only to "conditional" (the claim is
    the applicant's; the Commission decides), in the findings and in the checklist."""
    from hypothesis import assume

    assume(claims or roadway)
    m = None if ms4 is None else {"checked": True, "reached": ms4, "features": ["CB"],
                                  "searched": "the site"}
    kw = dict(area=area, plan=plan, dev=dev, existing=existing, ms4=m)
    # sorted: a set's order follows the hash seed, and the same example must give the same doc
    before_doc = _pure_doc(**kw)
    after_doc = _pure_doc(claims=tuple(sorted(claims)), roadway=roadway, **kw)
    before, after = fd.decide_findings(before_doc), fd.decide_findings(after_doc)
    for b, a in zip(before, after, strict=True):
        if b["status"] in ("yes", "no"):
            assert a["status"] in (b["status"], "conditional"), (b["key"], b["status"], a)
    items_b = submittal_checklist({**before_doc, "findings": before})
    items_a = submittal_checklist({**after_doc, "findings": after})
    for b, a in zip(items_b, items_a, strict=True):
        if b.applies is not None:
            assert a.applies in (b.applies, None), b.citation


def _ms4_town(tmp_path, geom, *, all_ms4=False):
    ms4 = gdf({"FACILITYID": ["P-1"]}, [geom])
    return screen(tmp_path, "clean", replace={"ms4": ms4}, all_ms4=all_ms4)


def test_an_ms4_layer_decides_the_condition_on_the_flow_path(tmp_path):
    """A storm drain across the valley at y = 1100 m: the runoff from the site (y 1200..1300)
    runs south down the DEM to the Brook (y 1005) over it: reached. A catch basin 30 m
    (98.4 ft) north of the site, upslope, is "near" (within 100 ft) but not reached; one in the
    far corner is neither. Not reached: conditional, unless the town states all its land
    drains to its MS4."""
    pipe = _ms4_town(tmp_path / "pipe", LineString([xy(0, 1100), xy(3000, 1100)]))
    f = by_key(pipe, "disturbance")
    assert f["status"] == "yes" and "ms4" in f["layers_used"]
    assert pipe["disturbance"]["ms4"] == {
        "checked": True, "reached": True, "features": ["P-1"], "near": [], "reach_ft": 10.0,
        "near_ft": 100.0, "searched": "the runoff path traced down the DEM",
        "assumed_by_town": False}
    assert pipe["disturbance"]["permit_required"] is True
    assert ("The disturbance is draining to the Town's MS4: the runoff path traced down the DEM "
            "comes within 10 ft of MS4 feature(s) P-1.") in f["answer"]
    near = _ms4_town(tmp_path / "near", Point(xy(350, 1330)))
    n = by_key(near, "disturbance")
    assert near["disturbance"]["ms4"]["near"] == ["P-1"]
    assert near["disturbance"]["ms4"]["reached"] is False
    assert n["status"] == "conditional" and near["disturbance"]["permit_required"] is None
    assert "MS4 feature(s) P-1 lie within 100 ft of the site, near it" in n["answer"]
    basin = _ms4_town(tmp_path / "basin", Point(xy(2800, 1900)))
    g = by_key(basin, "disturbance")
    assert basin["disturbance"]["ms4"]["near"] == [] and g["status"] == "conditional"
    assert basin["disturbance"]["permit_required"] is None
    assert "a permit is required if the disturbance drains to the Town's MS4" in g["answer"]
    assert {c["name"]: c["ran"] for c in basin["checks"]}["ms4"] is True
    stated = _ms4_town(tmp_path / "stated", Point(xy(2800, 1900)), all_ms4=True)
    h = by_key(stated, "disturbance")
    assert h["status"] == "yes" and stated["disturbance"]["permit_required"] is True
    assert "the Town's configuration states that all of its land drains to its MS4" in h["answer"]


def test_without_an_ms4_layer_the_permit_is_conditional_unless_the_town_states_it(tmp_path):
    """Issue 32 item 5, on a town: no MS4 layer and no statement -> conditional, permit_required
    null; the statement -> yes, and the check's reason says the town states it."""
    plain = screen(tmp_path / "plain", "clean", all_ms4=False)
    assert by_key(plain, "disturbance")["status"] == "conditional"
    assert plain["disturbance"]["permit_required"] is None
    # the reasons say it too: never "is required" while the MS4 condition is open
    assert ("If the disturbance drains to the Town's MS4, a Stormwater Management Permit is "
            "required before any site-altering activity (Chapter 320, permit procedure, A); "
            "whether it does is not shown (see the permit finding).") in \
        plain["disturbance"]["reasons"]
    assert not any(r.startswith("A Stormwater Management Permit is required")
                   for r in plain["disturbance"]["reasons"])
    assert by_key(plain, "standards")["answer"].startswith("If a permit is required: ")
    stated = screen(tmp_path / "stated", "clean")
    assert by_key(stated, "disturbance")["status"] == "yes"
    assert ("A Stormwater Management Permit is required before any site-altering activity "
            "(Chapter 320, permit procedure, A).") in stated["disturbance"]["reasons"]
    assert stated["disturbance"]["ms4"]["assumed_by_town"] is True
    assert {c["name"]: c.get("reason") for c in stated["checks"]}["ms4"] == (
        "the MS4 layer is not configured: the town's config states that all its land drains "
        "to its MS4")


def test_the_02_pct_zone_is_checked_where_the_layer_holds_or_says_it(tmp_path):
    # the clean town's flood layer is one AE polygon far away: no 0.2% zone anywhere
    doc = screen(tmp_path / "a", "clean")
    f = by_key(doc, "floodplain")
    assert f["status"] == "no" and f["parts"]["shaded_x"] == "not_checked"
    assert doc["floodplain"]["shaded_x_area_sqft"] is None
    toml = make_town(tmp_path / "c", "clean")
    text = toml.read_text(encoding="utf-8").replace(
        'layer = "flood_zones"\n', 'layer = "flood_zones"\nincludes_0_2_pct = true\n')
    toml.write_text(text, encoding="utf-8")
    declared = build_screening(load_config(toml), ScreeningRequest(SITE)).document
    assert declared["floodplain"]["shaded_x_checked"] is True
    assert declared["floodplain"]["shaded_x_area_sqft"] == 0.0
    assert by_key(declared, "floodplain")["parts"]["shaded_x"] == "no"
    zones = town_layers("clean")["flood_zones"]
    shaded = gpd.GeoDataFrame(
        {"FLD_ZONE": ["X"], "ZONE_SUBTY": ["0.2 PCT ANNUAL CHANCE FLOOD HAZARD"],
         "SFHA_TF": ["F"], "STATIC_BFE": [-9999.0]},
        geometry=[rect(350, 1150, 450, 1250)], crs=CRS)  # 50 m x 50 m on the site: 26,910 sq ft
    held = screen(tmp_path / "d", "clean",
                  replace={"flood_zones": gpd.GeoDataFrame(
                      pd.concat([zones, shaded], ignore_index=True), crs=CRS)})
    assert held["floodplain"]["shaded_x_checked"] is True
    assert held["floodplain"]["shaded_x_area_sqft"] == pytest.approx(26_909.8, abs=0.1)
    assert by_key(held, "floodplain")["parts"]["shaded_x"] == "yes"


def test_ms4_features_without_ids_are_named_by_their_number(tmp_path):
    """Issue 35: an MS4 layer with no id field printed "MS4 feature(s) None". The storm drain
    of the test above (the runoff crosses it at y = 1100 m) in a layer with no FACILITYID:
    named by its number in the layer (#2: the second feature; the first, far away, is not
    reached), and the finding says once that the layer's features are numbered."""
    far = Point(xy(2800, 1900))
    pipe = LineString([xy(0, 1100), xy(3000, 1100)])
    doc = screen(tmp_path, "clean", replace={"ms4": gdf({"OTHER": ["a", "b"]}, [far, pipe])},
                 all_ms4=False)
    m = doc["disturbance"]["ms4"]
    assert (m["features"], m["near"], m["named_by"]) == (["#2"], [], "number")
    f = by_key(doc, "disturbance")
    assert "comes within 10 ft of MS4 feature(s) #2." in f["answer"]
    assert "None" not in f["answer"]
    note = "The MS4 layer has no id field: its features are named by their number in it."
    assert f["caveats"].count(note) == 1
    # with its ids, nothing is numbered and nothing is said
    named = _ms4_town(tmp_path / "named", pipe)
    assert "named_by" not in named["disturbance"]["ms4"]
    assert note not in by_key(named, "disturbance")["caveats"]

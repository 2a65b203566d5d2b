"""The screening orchestrator: one document for a site, checks recorded, JSON Schema valid."""

from __future__ import annotations

import json

import geopandas as gpd
import jsonschema
import pytest
from shapely.geometry import Point, box
from support.screenkit import (
    BARE_SITE,
    CRS,
    EAST,
    FT,
    HUC10,
    SCHEMA,
    SITE,
    WEST,
    X0,
    Y0,
    build_town,
    ft_box,
    gdf,
)
from support.townkit import REPO, write_town

import swm_gis.screening.resource_areas
from swm_gis.config.town import load_config
from swm_gis.errors import GeometryError, SwmGisError
from swm_gis.screening.build import DOCUMENT_KEYS, build_screening
from swm_gis.screening.request import ScreeningRequest


@pytest.fixture
def fake_resources(monkeypatch):
    """Stand-in resource checks (their own tests live in tests/screening/test_resources.py)."""
    calls = []

    def fake(config, site, *, subject_parcels=None, proposed_use=None, progress=None,
             regulation=None):
        calls.append(site)
        if progress:
            progress(0.5, "fake resources")
        keys = {"habitats": [{"layer": "priority", "id": "PH 1", "distance_ft": 120.0,
                              "overlaps": False}],
                "floodplain": {"in_sfha": False, "sfha_area_sqft": 0.0, "site_fraction": 0.0,
                               "zones": [], "shaded_x_area_sqft": 0.0},
                "receiving_waters": {"orw": [], "impaired": [], "requirements": []}}
        layers = {"habitats": gdf({"id": ["PH 1"]}, [Point(X0, Y0).buffer(10)])}
        checks = [{"name": "habitats", "ran": True, "source": {"file": "x.gpkg"}},
                  {"name": "floodplain", "ran": False, "source": None,
                   "reason": "the flood zone layer is not configured"}]
        return keys, layers, checks

    monkeypatch.setattr(swm_gis.screening.resource_areas, "resource_checks", fake)
    return calls


def test_schema_is_valid_draft_2020_12_and_requires_every_spec_key():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert set(SCHEMA["required"]) == set(DOCUMENT_KEYS) - {"meta"}
    with pytest.raises(jsonschema.ValidationError, match="'checks' is a required property"):
        jsonschema.validate({k: None for k in SCHEMA["required"] if k != "checks"}, SCHEMA)


def validate(document: dict) -> None:
    jsonschema.Draft202012Validator(SCHEMA).validate(json.loads(json.dumps(document)))


def test_screening_document_has_every_key_and_validates(tmp_path, fake_resources):
    cfg = load_config(build_town(tmp_path))
    proposed = gdf(geoms=[ft_box(480 / FT, 480 / FT, 100, 200)])  # 20,000 sq ft on the site
    mitigation = gdf({"id": ["M-east", "M-west"]},
                     [box(X0 + 1400, Y0 + 400, X0 + 1500, Y0 + 500), Point(X0 + 50, Y0 + 50)])
    progress = []
    result = build_screening(
        cfg, ScreeningRequest(SITE, proposed_impervious=proposed, mitigation=mitigation),
        progress=lambda f, m: progress.append((f, m)))
    doc = result.document
    assert tuple(doc)[: len(DOCUMENT_KEYS)] == DOCUMENT_KEYS
    validate(doc)
    assert doc["disturbance"]["area_sqft"] == pytest.approx(43_600.0, abs=0.01)
    assert doc["disturbance"]["permit_required"] is True
    assert doc["development_type"]["value"] == "redevelopment"
    assert doc["development_type"]["existing_impervious_sqft"] == pytest.approx(4_305.56,
                                                                                abs=0.01)
    assert doc["standards"]["post_impervious_sqft"] == pytest.approx(20_000.0, abs=0.01)
    assert doc["standards"]["required_retention_cuft"] == 1_333.3
    assert doc["standards"]["mitigation_huc_level"] == "HUC10"
    assert doc["watersheds"]["huc12"] == [{"huc": WEST, "name": "West Brook", "share": 1.0,
                                           "area_sqft": pytest.approx(43_600.0, abs=0.1)}]
    # redevelopment: the neighbouring HUC12 of the same HUC10 is eligible
    assert [(m["id"], m["eligible"], m["huc"]) for m in doc["mitigation"]] == [
        ("M-east", True, HUC10), ("M-west", True, HUC10)]
    assert doc["habitats"][0]["id"] == "PH 1"  # merged from the resource checks
    names = [c["name"] for c in doc["checks"]]
    assert names[:3] == ["disturbance", "common_plan", "development_type"]
    assert {"watersheds_huc12", "watersheds_huc10", "mitigation", "habitats",
            "floodplain"} <= set(names)
    assert set(result.layers) >= {"site", "mitigation", "watersheds", "proposed_impervious",
                                  "habitats"}
    assert progress[-1] == (1.0, "screening done")
    assert all(0 <= f <= 1 for f, _ in progress)
    assert any(m == "fake resources" for _, m in progress)


def test_new_development_makes_the_neighbouring_huc12_ineligible(tmp_path, fake_resources):
    cfg = load_config(build_town(tmp_path))
    mitigation = gdf({"id": ["M-east"]}, [box(X0 + 1400, Y0 + 400, X0 + 1500, Y0 + 500)])
    doc = build_screening(cfg, ScreeningRequest(BARE_SITE, mitigation=mitigation,
                                                proposed_impervious_sqft=20_000)).document
    assert doc["development_type"]["value"] == "new"
    assert doc["development_type"]["existing_impervious_sqft"] == 0.0
    # the total post-construction impervious area on the site: the 20,000 sq ft proposed + the
    # existing 20 m x 20 m patch on the lot M_1 outside the limit of disturbance, which stays
    # (400 m2 = 4,305.56 sq ft): 1.0 in / 12 x 24,305.56 = 2,025.5 cu ft
    assert doc["standards"]["existing_impervious_staying_sqft"] == pytest.approx(4_305.56, abs=0.01)
    assert doc["standards"]["required_retention_cuft"] == 2_025.5
    assert doc["mitigation"][0]["eligible"] is False and doc["mitigation"][0]["huc"] == EAST
    validate(doc)


def test_meta_records_town_parameters_rules_and_sources(tmp_path, fake_resources):
    cfg = load_config(build_town(tmp_path))
    source = {"key": "--site", "file": "/x/site.gpkg", "layer": None, "modified": None}
    doc = build_screening(cfg, ScreeningRequest(SITE.copy(), development="new",
                                                exemptions=["fencing"], roadway_maintenance=True,
                                                sources={"site": source})).document
    meta = doc["meta"]
    assert meta["town"] == "Testtown" and meta["crs"] == CRS and meta["tool"] == "swm-gis"
    assert meta["parameters"]["exemptions"] == ["fencing"]
    assert meta["parameters"]["development"] == "new"
    assert meta["rules"]["trigger_sqft"] == 43_560.0
    assert meta["inputs"][0]["file"] == "/x/site.gpkg"
    used = {s["key"] for s in meta["sources"]}
    assert {"impervious", "huc12", "huc10"} <= used
    assert doc["development_type"]["method"] == "override: stated as new development"
    assert doc["disturbance"]["permit_required"] is None  # exemption claimed: conditional
    assert any("apply if a Stormwater Management Permit is required" in x
               for x in doc["standards"]["reasons"])


def test_polygon_impervious_layer_and_common_plan(tmp_path, fake_resources):
    cfg = load_config(build_town(tmp_path, impervious="polygons"))
    lot = gdf(geoms=[ft_box(1000, 1000, 100, 200)])  # 20,000 sq ft, clear of the roof
    plan = gdf(geoms=[ft_box(1000, 1000, 225, 200)])  # 45,000 sq ft
    result = build_screening(cfg, ScreeningRequest(lot, common_plan=plan))
    doc = result.document
    assert doc["disturbance"]["common_plan_area_sqft"] == pytest.approx(45_000.0, abs=0.01)
    assert doc["disturbance"]["permit_required"] is True
    assert doc["development_type"]["method"] == "measured: impervious polygons"
    assert result.layers["common_plan"]["area_sqft"].iloc[0] == pytest.approx(45_000, abs=0.01)
    assert next(c for c in doc["checks"] if c["name"] == "common_plan")["ran"] is True
    validate(doc)


def test_proposed_impervious_on_the_site_counts_that_of_other_sites_is_left_out(
        tmp_path, fake_resources):
    """§ 320-19 B(8): "the total post-construction impervious area on the site", and the site
    is the lot: a surface on the site's parcel outside the limit of disturbance counts."""
    toml = write_town(tmp_path, {
        "parcels": gdf({"LOC_ID": ["M_1", "M_2"]}, [box(X0, Y0, X0 + 1000, Y0 + 1000),
                                                    box(X0 + 1000, Y0, X0 + 2000, Y0 + 1000)]),
        "huc12": gdf({"huc12": [WEST], "name": ["West Brook"]},
                     [box(X0, Y0, X0 + 2000, Y0 + 1000)]),
        "huc10": gdf({"huc10": [HUC10], "name": ["Upper River"]},
                     [box(X0, Y0, X0 + 2000, Y0 + 1000)])})
    cfg = load_config(toml)
    # 20,000 sq ft on the limit of disturbance (the whole polygon, though it reaches past it);
    # 50 m x 50 m = 26,909.8 sq ft on the same lot M_1, outside it; another lot's, left out
    on_site = box(X0 + 480, Y0 + 480, X0 + 480 + 100 * FT, Y0 + 480 + 200 * FT)
    same_lot = box(X0 + 100, Y0 + 100, X0 + 150, Y0 + 150)
    elsewhere = box(X0 + 1500, Y0 + 500, X0 + 1600, Y0 + 600)
    doc = build_screening(cfg, ScreeningRequest(SITE, proposed_impervious=gdf(
        geoms=[on_site, same_lot, elsewhere]))).document
    st = doc["standards"]
    assert st["post_impervious_sqft"] == pytest.approx(46_909.8, abs=0.1)
    assert st["post_impervious_inside_disturbance_sqft"] == pytest.approx(20_000.0, abs=0.01)
    assert st["post_impervious_outside_disturbance_sqft"] == pytest.approx(26_909.8, abs=0.1)
    assert st["required_retention_cuft"] == 3_909.1  # new development assumed: 1.0 in / 12
    assert any("1 proposed impervious polygon(s) lie wholly off the site" in x
               for x in st["reasons"])
    assert any("46,910 sq ft of proposed cover (20,000 sq ft inside the limit of disturbance, "
               "26,910 sq ft outside it)" in x for x in st["reasons"])
    with pytest.raises(GeometryError, match="No proposed_impervious= polygon touches"):
        build_screening(cfg, ScreeningRequest(SITE, proposed_impervious=gdf(geoms=[elsewhere])))


def test_missing_layers_are_recorded_as_checks_that_did_not_run(tmp_path, fake_resources):
    cfg = load_config(build_town(tmp_path, impervious="none", hucs=False))
    doc = build_screening(cfg, ScreeningRequest(SITE)).document
    checks = {c["name"]: c for c in doc["checks"]}
    assert checks["development_type"]["ran"] is False
    assert checks["development_type"]["reason"] == "the existing impervious layer is not configured"
    assert checks["watersheds_huc12"]["ran"] is False
    assert checks["mitigation"]["reason"] == "no candidate mitigation site was given"
    assert doc["development_type"]["method"] == "assumed: no impervious layer"
    assert doc["watersheds"]["huc12"] == [] and doc["watersheds"]["huc10"] == []
    validate(doc)


def test_site_in_another_crs_is_reprojected_to_the_working_crs(tmp_path, fake_resources):
    cfg = load_config(build_town(tmp_path))
    doc = build_screening(cfg, ScreeningRequest(SITE.to_crs("EPSG:4326"))).document
    assert doc["disturbance"]["area_sqft"] == pytest.approx(43_600.0, abs=0.05)
    assert fake_resources[0].crs.equals(cfg.crs_obj)


def test_site_outside_every_huc_is_not_checked_not_refused(tmp_path, fake_resources):
    toml = write_town(tmp_path, {
        "parcels": gdf({"LOC_ID": ["M_1"]}, [box(X0 - 9000, Y0, X0 + 2000, Y0 + 1000)]),
        "huc12": gdf({"huc12": [WEST], "name": ["West Brook"]},
                     [box(X0, Y0, X0 + 2000, Y0 + 1000)])})
    far = gdf(geoms=[box(X0 - 9000, Y0, X0 - 8000, Y0 + 100)])
    # issue 32 item 6: a site in the town that the HUC layer does not cover is screened; its
    # watersheds are not checked, with the reason naming the layer
    doc = build_screening(load_config(toml), ScreeningRequest(far)).document
    assert doc["watersheds"]["not_covered"] == ["huc12"]
    assert any("outside every HUC12 watershed polygon of" in r and "town.gpkg" in r
               for r in doc["watersheds"]["reasons"])
    watersheds = next(f for f in doc["findings"] if f["key"] == "watersheds")
    assert watersheds["status"] == "not_checked"


def test_a_site_or_plan_away_from_the_town_is_refused_partly_outside_is_a_warning(
        tmp_path, fake_resources):
    """Issue 24 item 8: a site 120 km away is refused (the town's parcels are not there); with a
    town boundary, a site half across the line is screened with a warning."""
    cfg = load_config(build_town(tmp_path, impervious="none"))
    far = gdf(geoms=[box(X0 + 120_000, Y0, X0 + 120_100, Y0 + 100)])
    with pytest.raises(GeometryError, match=r"^The site does not touch Testtown \(none of its "
                                            r"\[layers\.parcels\]"):
        build_screening(cfg, ScreeningRequest(far))
    with pytest.raises(GeometryError, match="^The common plan does not touch Testtown"):
        build_screening(cfg, ScreeningRequest(SITE, common_plan=far))
    bounded = tmp_path / "bounded"
    bounded.mkdir()
    toml = write_town(bounded, {
        "parcels": gdf({"LOC_ID": ["M_1"]}, [box(X0, Y0, X0 + 2000, Y0 + 1000)]),
        "town_boundary": gdf({}, [box(X0, Y0, X0 + 2000, Y0 + 1000)])})
    half = gdf(geoms=[box(X0 - 50, Y0 + 100, X0 + 50, Y0 + 200)])  # 50 m x 100 m outside
    doc = build_screening(load_config(toml), ScreeningRequest(half)).document
    assert doc["warnings"] == [{
        "code": "site_partly_outside_town",
        "text": "53,820 sq ft of the site lies outside Testtown (the town boundary layer); "
                "Chapter 320 is the Town's, and the rest is another municipality's."}]
    permit = next(f for f in doc["findings"] if f["key"] == "disturbance")
    assert doc["warnings"][0]["text"] in permit["caveats"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"exemptions": ["golf"]}, "Valid exemptions= names"),
     ({"development": "old"}, "auto, new, redevelopment"),
     ({"proposed_impervious_sqft": 5.0, "proposed_impervious": SITE}, "not both")],
    ids=["exemption", "development", "impervious-twice"],
)
def test_bad_options_are_refused_before_reading_anything(tmp_path, kwargs, message):
    cfg = load_config(build_town(tmp_path, impervious="none", hucs=False))
    with pytest.raises(SwmGisError, match=message):
        build_screening(cfg, ScreeningRequest(SITE, **kwargs))


def test_real_resource_checks_merge_into_a_valid_document(tmp_path):
    cfg = load_config(build_town(tmp_path))
    doc = build_screening(cfg, ScreeningRequest(SITE)).document
    for key in ("habitats", "floodplain", "receiving_waters"):
        assert key in doc
    validate(doc)


# --------------------------------------------------------------------------- real data
def _cambridge_block(cambridge_config) -> gpd.GeoDataFrame:
    from swm_gis.io import layers as io

    cfg = load_config(cambridge_config)
    parcels = io.read_layer(cfg, "parcels", where="ML LIKE '90-%'")
    return parcels[parcels["id"].str.startswith("90-")]


@pytest.mark.qgis
def test_cambridge_block_area_agrees_with_qgis(cambridge_config, qgis_app, fake_resources):
    """A real Cambridge block (map 90, 93 parcels) as the site: same union area as QGIS's."""
    from qgis.core import (
        QgsCoordinateReferenceSystem,
        QgsCoordinateTransform,
        QgsFeatureRequest,
        QgsGeometry,
        QgsProject,
        QgsVectorLayer,
    )

    block = _cambridge_block(cambridge_config)
    doc = build_screening(load_config(cambridge_config), ScreeningRequest(block)).document

    path = str(load_config(cambridge_config).layer("parcels").path)
    layer = QgsVectorLayer(path, "parcels", "ogr")
    layer.setCrs(QgsCoordinateReferenceSystem("EPSG:4326"))
    xform = QgsCoordinateTransform(layer.crs(), QgsCoordinateReferenceSystem("EPSG:26986"),
                                   QgsProject.instance())
    geoms = []
    for feature in layer.getFeatures(QgsFeatureRequest().setFilterExpression("ML LIKE '90-%'")):
        g = QgsGeometry(feature.geometry())
        if g.isEmpty():
            continue
        g.transform(xform)
        geoms.append(g.makeValid())
    qgis_sqft = QgsGeometry.unaryUnion(geoms).area() / 0.3048**2
    assert len(geoms) == len(block) == 93
    assert doc["disturbance"]["area_sqft"] == pytest.approx(qgis_sqft, rel=1e-6)
    assert doc["disturbance"]["area_sqft"] == pytest.approx(603_112.3, abs=0.5)
    # Cambridge's config has no MS4 layer and does not state that all its land drains to its
    # MS4 (parts of the city are combined sewers): the trigger is met by area, and the permit is
    # conditional on the MS4 (issue 32 item 5)
    assert doc["disturbance"]["disturbs_trigger_area"] is True
    assert doc["disturbance"]["permit_required"] is None


def test_cambridge_block_screens_through_its_config_with_real_resource_checks(
        cambridge_config):
    doc = build_screening(load_config(cambridge_config),
                          ScreeningRequest(_cambridge_block(cambridge_config))).document
    validate(doc)
    checks = {c["name"]: c for c in doc["checks"]}
    # Cambridge's config has no impervious or WBD layers: those checks say so
    assert checks["development_type"]["ran"] is False
    assert checks["watersheds_huc12"]["reason"] == "the HUC12 watershed layer is not configured"
    assert doc["meta"]["town"].startswith("Cambridge")


def test_screening_map_gets_parcels_and_water_around_the_site_for_orientation():
    """The job hands the map its context frames (read around the site, orientation only) and
    the report's caption lists what the map drew."""
    import swm_gis
    from swm_gis.reports.screening_map import render_screening_map
    from swm_gis.reports.screening_model import map_caption

    town = swm_gis.load_config(REPO / "data" / "sample" / "town.toml")
    result = swm_gis.screen(town, f"{REPO / 'data' / 'sample' / 'sites.gpkg'}:site")
    parcels = result.layers["context_parcels"]
    assert list(parcels.columns) == ["id", "geometry"] and len(parcels) > 10
    assert "waterbodies" in result.layers
    image = render_screening_map(result.layers)
    assert "Parcels" in image.legend
    assert map_caption(image).startswith("Shown: ") and "Parcels" in map_caption(image)


@pytest.mark.slow
def test_cambridge_site_lies_on_its_real_parcel_and_a_site_far_off_is_refused(cambridge_config):
    """Real data: a 3 m circle inside Cambridge parcel 90-101 (336 m2) makes it the site's lot;
    the same circle 120 km east touches no part of the city and is refused."""
    from swm_gis.screening.site import parcels_under_site, town_check

    cfg = load_config(cambridge_config)
    site = Point(232_890.9, 901_851.5).buffer(3.0)
    assert list(parcels_under_site(cfg, site)["id"]) == ["90-101"]
    assert town_check(cfg, site) == []
    far = Point(352_890.9, 901_851.5).buffer(3.0)
    with pytest.raises(GeometryError, match=r"^The site does not touch Cambridge .*"
                                            r"\[layers\.town_boundary\]"):
        town_check(cfg, far)

"""Coordinates against their declared CRS, and ids, with values checkable by hand: the sample
town spans x 236,450..239,850 m, y 916,480..919,560 m in EPSG:26986 (NAD83 Massachusetts
Mainland); in US survey feet (x 3.2808333) that is x 775,752..786,906, y 3,006,818..3,016,923."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from swm_gis.config.town import parse_config
from swm_gis.io.sanity import (
    coordinate_problem,
    far_from_town,
    id_problems,
    likely_crs,
)
from swm_gis.messages import api_text

METRES = (236_450.0, 916_480.0, 239_850.0, 919_560.0)
FEET = tuple(v * 3937 / 1200 for v in METRES)  # US survey feet
LONLAT = (-71.04, 42.50, -71.00, 42.53)
MERCATOR = (-7_908_000.0, 5_236_000.0, -7_903_000.0, 5_241_000.0)


@pytest.mark.parametrize(("bounds", "declared", "fragment", "likely"), [
    (FEET, "EPSG:26986", "lie far outside the area EPSG:26986", "EPSG:2249"),
    (METRES, "EPSG:2249", "lie far outside the area EPSG:2249", "EPSG:26986"),
    (LONLAT, "EPSG:26986", "longitude/latitude degrees do, not metres", "EPSG:4326"),
    (LONLAT, "EPSG:2249", "longitude/latitude degrees do", "EPSG:4326"),
    (METRES, "EPSG:4326", "coordinates reach 239,850, 919,560, which are not degrees",
     "EPSG:26986"),
    (MERCATOR, "EPSG:26986", "lie far outside", "EPSG:3857"),
], ids=["feet-as-metres", "metres-as-feet", "lonlat-as-metres", "lonlat-as-feet",
        "metres-as-lonlat", "mercator-as-metres"])
def test_coordinates_that_cannot_be_in_the_declared_crs(bounds, declared, fragment, likely):
    problem = coordinate_problem(bounds, declared)
    assert problem is not None and fragment in problem
    assert likely_crs(bounds) == likely


@pytest.mark.parametrize(("bounds", "declared"), [
    (METRES, "EPSG:26986"), (FEET, "EPSG:2249"), (LONLAT, "EPSG:4326"),
    (METRES, "EPSG:6491"),  # NAD83(2011) Massachusetts Mainland: same numbers
    (MERCATOR, "EPSG:3857"), (None, "EPSG:26986"),
])
def test_coordinates_that_fit_pass(bounds, declared):
    assert coordinate_problem(bounds, declared) is None


def test_non_finite_coordinates_are_a_problem():
    assert "not finite" in coordinate_problem((float("nan"), 0, 1, 1), "EPSG:26986")


def test_a_layer_near_the_town_is_not_far_and_one_200_km_away_is():
    town = METRES
    assert not far_from_town((200_000, 880_000, 300_000, 960_000), town)  # statewide, contains
    assert not far_from_town((239_900 + 20_000, 916_480, 239_900 + 21_000, 917_000), town)
    assert far_from_town((436_450, 916_480, 439_850, 919_560), town)  # 200 km east
    assert far_from_town((775_752, 3_006_818, 786_906, 3_016_923), town)  # feet as metres


def _spec(key="parcels"):
    cfg = parse_config({"town": {"name": "T"}, "layers": {
        "parcels": {"path": "p.gpkg"}, "assess": {"path": "a.csv"}}}, base_dir=Path("/d"))
    return cfg.layers[key]


def test_all_null_ids_are_an_error_naming_the_source_field():
    frame = pd.DataFrame({"id": [None, None, float("nan"), "  "]})
    errors, warnings = id_problems(frame, _spec(), field_map={"id": "LOC_ID"}, whole_layer=True)
    # messages name config keys by reference (swm_gis.messages): here in Python's words
    assert [api_text(e) for e in errors] == [
        '/d/p.gpkg ([layers.parcels]): field "LOC_ID" (logical "id") is empty in all 4 rows. '
        'Map [layers.parcels.fields] id = "<field>" to the field that holds it.']


def test_a_few_rows_read_without_ids_are_gaps_twenty_are_a_mapping_error():
    few = pd.DataFrame({"id": [None] * 19})
    assert id_problems(few, _spec()) == ([], ['field "id" (id) is empty in 19 of 19 rows read'])
    many = pd.DataFrame({"id": [None] * 20})
    errors, _ = id_problems(many, _spec())
    assert 'field "id" (logical "id") is empty in all 20 rows read' in errors[0]


def test_mostly_null_required_fields_are_a_warning():
    frame = pd.DataFrame({"parcel_id": ["A", None, None], "owner": ["X", "Y", "Z"]})
    errors, warnings = id_problems(frame, _spec("assess"),
                                   field_map={"parcel_id": "LOC_ID", "owner": "OWNER1"})
    assert errors == []
    assert warnings == ['field "LOC_ID" (parcel_id) is empty in 2 of 3 rows read']


def test_parcel_ids_that_are_a_town_code_are_an_error_on_the_whole_layer_only():
    frame = pd.DataFrame({"id": [164] * 8 + [291] * 4})
    fields = {"id": "TOWN_ID"}
    assert id_problems(frame, _spec(), field_map=fields, whole_layer=False) == ([], [])
    errors, _ = id_problems(frame, _spec(), field_map=fields, whole_layer=True)
    assert 'the id field "TOWN_ID" has only 2 distinct values in 12 rows' in errors[0]


def test_a_few_shared_parcel_ids_are_not_an_error():
    frame = pd.DataFrame({"id": [f"M_{i}" for i in range(10)] + ["M_1"]})
    assert id_problems(frame, _spec(), whole_layer=True) == ([], [])

"""A large abutters map is split into sheets with an index (issue 16): every number on exactly
one sheet, inside its frame; the index shows the grid; the key names each number's sheet.

The town: a 40 x 40 grid of 20 m x 25 m lots, the subject in the middle and a distance that
brings in several hundred lots (more than one page holds legibly).
"""

from __future__ import annotations

import re

import geopandas as gpd
import numpy as np
import pytest
import shapely
from pypdf import PdfReader
from shapely.geometry import box
from support.pdfkit import positions

from swm_gis.notification.info import PackageInfo
from swm_gis.reports.abutters_map import write_abutters_map
from swm_gis.reports.abutters_sheets import SINGLE_PAGE_MAX, sheet_plan
from swm_gis.reports.map_furniture import FRAME
from swm_gis.rules import abutters as core

CRS = "EPSG:26986"


def grid_town(distance_ft: float):
    lots = [box(200_000 + i * 20, 900_000 + j * 25, 200_020 + i * 20, 900_025 + j * 25)
            for j in range(40) for i in range(40)]
    parcels = gpd.GeoDataFrame({"id": [f"L{k}" for k in range(len(lots))]}, geometry=lots,
                               crs=CRS)
    subject = parcels.loc[parcels["id"] == "L820"]  # row 20, column 20
    abut = core.find_abutters(parcels, subject, distance_ft=distance_ft)
    listed = abut.assign(map_no=np.arange(1, len(abut) + 1), owner_of_record=True,
                         other_town=False, owners="OWNER", site_address="1 MAIN ST", note="")
    area = core.search_area(subject, distance_ft=distance_ft)
    return parcels, subject, area, listed


@pytest.fixture(scope="module")
def big_map(tmp_path_factory):
    parcels, subject, area, listed = grid_town(700.0)
    assert len(listed) > SINGLE_PAGE_MAX
    info = PackageInfo(town="Gridtown (test)", subject_ids=("L820",), distance_ft=700.0)
    path = tmp_path_factory.mktemp("sheets") / "abutters_map.pdf"
    left = listed.iloc[:0]
    write_abutters_map(subject, area, listed, left, info, path, context=parcels,
                       left_out_count=0)
    return path, listed


def _sheet_pages(path) -> list[int]:
    reader = PdfReader(path)
    return [i for i, p in enumerate(reader.pages)
            if re.search(r"sheet \d+ of \d+", " ".join(p.extract_text().split()))]


def test_small_lists_stay_on_one_page():
    _parcels, _subject, _area, listed = grid_town(60.0)
    assert len(listed) <= SINGLE_PAGE_MAX
    assert sheet_plan(listed, np.array(shapely.point_on_surface(listed.geometry.values))) is None


def test_first_page_is_the_index_with_the_counts_and_the_grid(big_map):
    path, listed = big_map
    text = " ".join(PdfReader(path).pages[0].extract_text().split())
    n = int(re.search(r"index of (\d+) sheets", text).group(1))
    assert n >= 2 and len(_sheet_pages(path)) == n
    assert f"{len(listed)} abutting parcel(s), 0 polygon(s) left out" in text
    runs = {t for t, _x, _y in positions(path, 0)}
    assert {str(k) for k in range(1, n + 1)} <= runs  # each sheet's number on the grid


def test_every_number_is_on_exactly_one_sheet_inside_the_frame(big_map):
    path, listed = big_map
    seen: dict[str, int] = {}
    for page in _sheet_pages(path):
        for text, x, y in positions(path, page):
            if (text.isdigit() and text != "0"  # "0": the scale bar's start
                    and FRAME[0] < x < FRAME[2] and FRAME[1] < y < FRAME[3]):
                assert text not in seen, f"{text} on pages {seen[text]} and {page}"
                seen[text] = page
    assert set(seen) == {str(k) for k in listed["map_no"]}


def test_the_key_names_each_numbers_sheet(big_map):
    path, listed = big_map
    reader = PdfReader(path)
    key_text = " ".join(" ".join(p.extract_text().split()) for p in
                        reader.pages[max(_sheet_pages(path)) + 1:])
    assert "Sheet" in key_text and "Key to the abutters map" in key_text
    assert f"({len(listed)} abutting parcel(s)" in key_text

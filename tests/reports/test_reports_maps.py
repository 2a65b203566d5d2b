"""The abutters map and the screening map read back: numbers inside the frame (from the PDF's
drawing coordinates), the subject label, a legend of only what is drawn, greyscale-safe fills,
wrapped names; and the rendered pages compared with reference images at a coarse tolerance so a
layout regression shows (regenerate with SWM_GIS_UPDATE_REFERENCE=1 after a deliberate change).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import geopandas as gpd
import numpy as np
import pytest
from pypdf import PdfReader
from shapely.geometry import LineString, box
from support.pdfkit import positions

from swm_gis.notification.info import PackageInfo
from swm_gis.reports.abutters_map import write_abutters_map
from swm_gis.reports.map_furniture import COLOURS, FRAME, HATCH
from swm_gis.reports.screening_map import render_screening_map

REFERENCE = Path(__file__).resolve().parents[1] / "data" / "reference"
CRS = "EPSG:26986"
LONG_OWNER = ("THE EXTRAORDINARILY LONG NAMED NOMINEE REALTY TRUST OF NINETEEN HUNDRED AND "
              "NINETY-NINE & PENELOPE A. WORTHINGTON-SMYTHE, TRUSTEES")
INFO = PackageInfo(town="Testtown", subject_ids=("S-1",), distance_ft=150.0,
                   fiscal_years=("2025",), generated="2026-01-01T00:00:00+00:00",
                   sources=({"key": "parcels", "file": "/a/very/long/folder/name/parcels_of_"
                             "the_town_fy2025_release.gpkg", "vintage": "FY2025",
                             "vintage_basis": "stated in the town config"},))


def town():
    """A 3 x 3 block of 40 m lots around the subject S-1, a street polygon ROAD 2 km long to
    the east (its centre far off the map, 42 m from the subject) and a lot in another town;
    the search area is 150 ft (45.72 m)."""
    lots = []
    for i, (dx, dy) in enumerate([(dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1)]):
        pid = "S-1" if (dx, dy) == (0, 0) else f"L-{i}"
        lots.append((pid, box(1000 + 40 * dx, 1000 + 40 * dy, 1040 + 40 * dx, 1040 + 40 * dy)))
    lots.append(("ROAD", box(1000, 940, 3100, 958)))
    gdf = gpd.GeoDataFrame({"id": [p for p, _ in lots]}, geometry=[g for _, g in lots], crs=CRS)
    subject = gdf[gdf["id"] == "S-1"].copy()
    listed = gdf[gdf["id"] != "S-1"].copy().reset_index(drop=True)
    listed["map_no"] = np.arange(1, len(listed) + 1)
    listed["distance_ft"] = 0.0
    listed["owner_of_record"] = listed["id"] != "ROAD"
    listed["other_town"] = listed["id"] == "L-8"
    listed["owners"] = [LONG_OWNER if p == "L-0" else f"OWNER {p}" for p in listed["id"]]
    listed["site_address"] = "1 Elm St"
    area = gpd.GeoDataFrame(geometry=[subject.geometry.iloc[0].buffer(45.72)], crs=CRS)
    left = gpd.GeoDataFrame({"id": ["S-1"], "reason": ["subject"]},
                            geometry=[subject.geometry.iloc[0]], crs=CRS)
    streets = gpd.GeoDataFrame({"name": ["Elm St", "Oak Ave"]},
                               geometry=[LineString([(900, 995), (1200, 995)]),
                                         LineString([(1085, 900), (1085, 1150)])], crs=CRS)
    site = gpd.GeoDataFrame(geometry=[box(1005, 1005, 1030, 1030)], crs=CRS)
    return subject, area, listed, left, streets, site


@pytest.fixture(scope="module")
def map_pdf(tmp_path_factory):
    subject, area, listed, left, streets, site = town()
    path = tmp_path_factory.mktemp("map") / "abutters_map.pdf"
    write_abutters_map(subject, area, listed, left, INFO, path, context=None, site=site,
                       streets=streets, subject_labels={"S-1": "12 Elm St"}, left_out_count=1)
    return path


def test_every_key_number_lies_inside_the_map_frame(map_pdf):
    runs = positions(map_pdf)
    numbers = {t: (x, y) for t, x, y in runs if t.isdigit() and FRAME[0] < x < FRAME[2] + 1}
    assert set(numbers) >= {str(n) for n in range(1, 10)}  # 8 lots and ROAD
    for x, y in numbers.values():
        assert FRAME[0] + 5 <= x <= FRAME[2] - 5 and FRAME[1] + 2 <= y <= FRAME[3] - 5


def test_subject_street_names_and_legend_of_what_is_drawn(map_pdf):
    text = " ".join(t for t, _x, _y in positions(map_pdf))
    assert "SUBJECT S-1" in text and "12 Elm St" in text
    assert "Elm St" in text and "Oak Ave" in text
    for entry in ("Project site (limit of disturbance)", "Street centerline",
                  "Abutter, no owner of record", "Abutter in another town",
                  "150 ft from the property line"):
        assert entry in text
    assert "Other parcels" not in text and "Left out" not in text  # neither drawn
    assert "1 polygon(s) left out" in text


def test_key_wraps_long_owner_names_and_data_lines_never_break_mid_word(map_pdf):
    key = PdfReader(map_pdf).pages[1].extract_text()
    assert "…" not in key
    for word in LONG_OWNER.split():
        assert word in key
    first = PdfReader(map_pdf).pages[0].extract_text()
    assert "parcels_of_the_town_fy2025_release.gpkg" in first.replace("\n", "")
    assert "data of FY2025" in first


def test_fills_stay_apart_in_greyscale():
    def lum(hexcolour):
        r, g, b = (int(hexcolour[i:i + 2], 16) for i in (1, 3, 5))
        return 0.299 * r + 0.587 * g + 0.114 * b

    solid = [k for k in ("subject", "abutter", "other_town", "left_out") if k not in HATCH]
    values = sorted(lum(COLOURS[k]) for k in solid)
    assert min(np.diff(values)) >= 25
    assert COLOURS["no_owner"] == COLOURS["abutter"] and "no_owner" in HATCH  # told by texture


def test_map_without_streets_labels_parcel_ids_and_handles_empty_lists(tmp_path):
    subject, area, listed, left, _streets, _site = town()
    context = gpd.GeoDataFrame({"id": ["FAR-1"]}, geometry=[box(1045, 1000, 1085, 1040)],
                               crs=CRS)
    path = write_abutters_map(subject, area, listed.iloc[:0], left, INFO, tmp_path / "m.pdf",
                              context=context)
    text = " ".join(t for t, _x, _y in positions(path))
    assert "FAR-1" in text and "Street centerline" not in text and "Other parcels" in text
    assert "No abutting parcels" in PdfReader(path).pages[1].extract_text()


def _render(pdf: Path, out_prefix: Path) -> np.ndarray:
    from matplotlib.image import imread

    subprocess.run(["pdftoppm", "-png", "-r", "30", "-f", "1", "-l", "1", "-singlefile",
                    str(pdf), str(out_prefix)], check=True)
    return imread(str(out_prefix) + ".png")[..., :3]


def _compare(image: np.ndarray, name: str) -> None:
    from matplotlib.image import imread, imsave

    ref = REFERENCE / name
    if os.environ.get("SWM_GIS_UPDATE_REFERENCE"):
        imsave(ref, image)
    expected = imread(str(ref))[..., :3]
    assert expected.shape == image.shape
    # coarse: fonts and anti-aliasing may differ; a moved frame, legend or layer does not pass
    assert float(np.abs(expected - image).mean()) < 0.02
    assert float((np.abs(expected - image).max(axis=2) > 0.5).mean()) < 0.01


@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="pdftoppm (poppler-utils) needed")
def test_abutters_map_page_matches_the_reference_image(map_pdf, tmp_path):
    _compare(_render(map_pdf, tmp_path / "page"), "abutters_map_p1.png")


def screening_layers(flow: bool):
    site = gpd.GeoDataFrame(geometry=[box(1000, 1000, 1060, 1050)], crs=CRS)
    parcels = gpd.GeoDataFrame(geometry=[box(x, y, x + 40, y + 40) for x in range(800, 1300, 40)
                                         for y in range(800, 1300, 40)], crs=CRS)
    streets = gpd.GeoDataFrame({"name": ["Main St"]},
                               geometry=[LineString([(700, 990), (1400, 990)])], crs=CRS)
    water = gpd.GeoDataFrame({"name": ["Pond"]}, geometry=[box(1150, 1100, 1250, 1180)],
                             crs=CRS)
    layers = {"site": site, "context_parcels": parcels, "streets": streets,
              "waterbodies": water}
    if flow:
        layers["flow_path"] = gpd.GeoDataFrame(
            geometry=[LineString([(1030, 1000), (1030, 600), (3000, 600)])], crs=CRS)
    return layers


def test_screening_map_shows_context_and_a_legend_of_only_what_is_drawn():
    image = render_screening_map(screening_layers(flow=False), dpi=60)
    assert image.legend[:2] == ["Parcels", "Street"]
    assert "Water body" in image.legend
    assert "Traced flow path" not in image.legend


@pytest.mark.parametrize("allow_overview", [True, False], ids=["overview", "grown-frame"])
def test_screening_map_keeps_a_long_flow_path_in_view(allow_overview):
    image = render_screening_map(screening_layers(flow=True), dpi=60,
                                 allow_overview=allow_overview)
    assert "Traced flow path" in image.legend


def test_screening_map_matches_the_reference_image(tmp_path):
    from matplotlib.image import imread

    image = render_screening_map(screening_layers(flow=False), dpi=40)
    (tmp_path / "s.png").write_bytes(image.png)
    _compare(imread(str(tmp_path / "s.png"))[..., :3], "screening_map.png")


def test_numbers_of_overlapping_parcels_do_not_cover_each_other(tmp_path):
    """Two condominium rows on one lot get the same inside point; the second number moves."""
    subject, area, listed, left, _streets, _site = town()
    lot = listed.iloc[[0]]
    twins = gpd.GeoDataFrame(
        {**{c: list(lot[c]) * 2 for c in lot.columns if c != "geometry"},
         "map_no": [1, 2]}, geometry=list(lot.geometry) * 2, crs=CRS)
    path = write_abutters_map(subject, area, twins, left, INFO, tmp_path / "twins.pdf")
    at = {t: (x, y) for t, x, y in positions(path) if t in {"1", "2"}
          and FRAME[0] < x < FRAME[2]}
    (x1, y1), (x2, y2) = at["1"], at["2"]
    assert np.hypot(x1 - x2, y1 - y2) >= 2 * 5.5


def dense_town():
    """A 60 m subject lot with 36 condominium lots of 3 m x 3 m packed against its east side
    (far too small for their numbers), big lots north, west and south (one under the scale
    bar) and two streets."""
    from shapely.geometry import LineString as Line

    lots = [("S", box(1000, 1000, 1060, 1060))]
    for i in range(12):
        for j in range(3):
            lots.append((f"C{i}_{j}", box(1060 + 3 * i, 1000 + 3 * j, 1063 + 3 * i,
                                          1003 + 3 * j)))
    for i in range(6):
        lots.append((f"N{i}", box(940 + 30 * i, 1060, 970 + 30 * i, 1100)))
        lots.append((f"W{i}", box(930, 940 + 25 * i, 1000, 965 + 25 * i)))
    lots.append(("SW", box(930, 900, 1130, 940)))
    gdf = gpd.GeoDataFrame({"id": [p for p, _ in lots]}, geometry=[g for _, g in lots], crs=CRS)
    subject = gdf[gdf["id"] == "S"].copy()
    listed = gdf[gdf["id"] != "S"].copy()
    dist = listed.distance(subject.geometry.iloc[0]) / 0.3048
    listed = listed.assign(distance_ft=dist)[dist <= 100].sort_values("distance_ft")
    listed = listed.reset_index(drop=True).assign(owner_of_record=True, other_town=False,
                                                  owners="X")
    listed["map_no"] = np.arange(1, len(listed) + 1)
    area = gpd.GeoDataFrame(geometry=[subject.geometry.iloc[0].buffer(30.48)], crs=CRS)
    streets = gpd.GeoDataFrame({"name": ["Long Street Name Avenue", "Short St"]},
                               geometry=[Line([(900, 1061), (1200, 1061)]),
                                         Line([(1050, 880), (1050, 1200)])], crs=CRS)
    return subject, area, listed, streets


def test_dense_numbers_never_hide_each_other_nor_the_furniture():
    """44 numbers, 36 of them for lots smaller than a circle: every circle lies wholly in the
    frame, clear of every other circle, the scale bar, the north arrow and the subject's label;
    those with no room on their lot are led to it by a line."""
    from swm_gis.reports.abutters_map import _subject_label_boxes, label_points, map_view
    from swm_gis.reports.map_furniture import north_arrow_box, scale_bar_box
    from swm_gis.reports.map_placement import Taken, place_numbers
    from swm_gis.reports.pdf_fonts import register_fonts

    font, bold = register_fonts()
    subject, area, listed, _streets = dense_town()
    assert len(listed) == 44
    points = label_points(listed, area)
    view = map_view(area, points)
    boxes = [north_arrow_box(), scale_bar_box(view, CRS),
             *(b[:4] for b in _subject_label_boxes(view, subject, {"S": "12 Elm St"}, font,
                                                   bold))]
    marks = place_numbers(view, listed, points, bold, area, Taken(boxes))
    assert sorted(int(m[0]) for m in marks) == list(range(1, 45))
    xy = np.array([(m[1], m[2]) for m in marks])
    r = np.array([m[3] for m in marks])
    gap = np.hypot(xy[:, None, 0] - xy[None, :, 0], xy[:, None, 1] - xy[None, :, 1]) \
        - r[:, None] - r[None, :]
    np.fill_diagonal(gap, np.inf)
    assert gap.min() >= 1.0 - 1e-9  # no two circles touch
    assert ((xy[:, 0] - r >= FRAME[0]) & (xy[:, 0] + r <= FRAME[2])
            & (xy[:, 1] - r >= FRAME[1]) & (xy[:, 1] + r <= FRAME[3])).all()
    for x0, y0, x1, y1 in boxes:
        dx = np.maximum(np.maximum(x0 - xy[:, 0], xy[:, 0] - x1), 0)
        dy = np.maximum(np.maximum(y0 - xy[:, 1], xy[:, 1] - y1), 0)
        assert (np.hypot(dx, dy) >= r).all()
    led = [m for m in marks if m[4] is not None]
    assert led and all(np.hypot(m[1] - m[4][0], m[2] - m[4][1]) > m[3] for m in led)


def test_dense_map_page_keeps_names_clear_and_inside_the_frame(tmp_path):
    """On the page: every number and street name is drawn inside the frame, and no street name
    starts inside a number's circle."""
    subject, area, listed, streets = dense_town()
    path = write_abutters_map(subject, area, listed, listed.iloc[:0], INFO, tmp_path / "d.pdf",
                              streets=streets, subject_labels={"S": "12 Elm St"},
                              left_out_count=0)
    runs = positions(path)
    numbers = [(x, y) for t, x, y in runs if t.isdigit() and t != "0" and FRAME[0] <= x <= FRAME[2]
               and FRAME[1] <= y <= FRAME[3]]
    assert len(numbers) == 44
    names = [(t, x, y) for t, x, y in runs if t in ("Long Street Name Avenue", "Short St")]
    assert {t for t, _x, _y in names} == {"Long Street Name Avenue", "Short St"}
    for _t, x, y in names:
        assert FRAME[0] < x < FRAME[2] and FRAME[1] < y < FRAME[3]
        assert min(np.hypot(x - nx, y - ny) for nx, ny in numbers) > 4

"""New development vs redevelopment from existing impervious cover (raster or polygons)."""

from __future__ import annotations

import geopandas as gpd
import numpy as np
import pytest
from affine import Affine
from pyproj import CRS
from shapely.geometry import box

from swm_gis.errors import CrsError, SwmGisError
from swm_gis.raster import Raster
from swm_gis.rules.development import development_type

X0, Y0 = 238_000.0, 918_000.0
SQFT_PER_M2 = (1 / 0.3048) ** 2
PATCH_SQFT = 400 * SQFT_PER_M2  # 20 m x 20 m = 4,305.56 sq ft


def frame(*geoms) -> gpd.GeoDataFrame:
    return gpd.GeoDataFrame(geometry=list(geoms), crs="EPSG:26986")


def raster_with_patch(*, masked_patch: bool = False, value: int = 1) -> Raster:
    """A 20 x 20 grid of 10 m cells from (X0, Y0) with one 20 m x 20 m impervious patch.

    The patch is cells (row 13-14, col 5-6): x X0+50..X0+70, y Y0+50..Y0+70.
    """
    arr = np.zeros((20, 20), dtype="uint8")
    arr[13:15, 5:7] = value
    mask = np.zeros_like(arr, dtype=bool)
    if masked_patch:
        mask[13:15, 5:7] = True
    transform = Affine(10, 0, X0, 0, -10, Y0 + 200)
    return Raster(array=np.ma.MaskedArray(arr, mask=mask), transform=transform,
                  crs=CRS.from_epsg(26986), source={"key": "impervious", "file": "mem"})


PATCH = box(X0 + 50, Y0 + 50, X0 + 70, Y0 + 70)


def test_patch_check_geometry():
    r = raster_with_patch()
    assert r.bounds == (X0, Y0, X0 + 200, Y0 + 200)


def test_site_with_20m_impervious_patch_is_redevelopment_exact_area():
    site = frame(box(X0 + 20, Y0 + 20, X0 + 150, Y0 + 150))
    r = development_type(site, impervious=raster_with_patch())
    assert r["value"] == "redevelopment"
    assert r["existing_impervious_sqft"] == pytest.approx(4_305.56, abs=0.01)
    assert round(r["existing_impervious_sqft"], 1) == 4_305.6
    assert r["method"] == "measured: impervious raster"
    assert "Chapter 320" in r["section"]


def test_raster_cells_count_by_their_exact_fraction_inside_the_site():
    # the site's edge at x = X0 + 60 cuts the patch in half (through the middle of two cells)
    site = frame(box(X0 + 60, Y0, X0 + 200, Y0 + 200))
    r = development_type(site, impervious=raster_with_patch())
    assert r["existing_impervious_sqft"] == pytest.approx(PATCH_SQFT / 2, abs=0.01)
    # and a site covering a quarter of one cell (5 m x 5 m)
    site = frame(box(X0 + 50, Y0 + 50, X0 + 55, Y0 + 55))
    r = development_type(site, impervious=raster_with_patch())
    assert r["existing_impervious_sqft"] == pytest.approx(25 * SQFT_PER_M2, abs=0.01)


def test_cover_only_in_boundary_cells_within_half_a_cell_does_not_decide():
    # the site's edge runs 3 m into the patch (less than half of a 10 m cell): the cover is
    # measured exactly but, at the raster's resolution, may be the neighbour's (the street)
    site = frame(box(X0 + 67, Y0, X0 + 200, Y0 + 200))
    r = development_type(site, impervious=raster_with_patch())
    assert r["existing_impervious_sqft"] == pytest.approx(3 * 20 * SQFT_PER_M2, abs=0.01)
    assert r["deciding_impervious_sqft"] == 0.0
    assert r["edge_tolerance_ft"] == pytest.approx(5 / 0.3048, abs=0.01)
    assert r["value"] == "new"
    assert any("half a raster cell (16.4 ft)" in x for x in r["reasons"])
    # 6 m in (more than half a cell): 1 m x 20 m of it lies farther in, and decides
    r = development_type(frame(box(X0 + 64, Y0, X0 + 200, Y0 + 200)),
                         impervious=raster_with_patch())
    assert r["deciding_impervious_sqft"] == pytest.approx(20 * SQFT_PER_M2, abs=0.01)
    assert r["value"] == "redevelopment"


def test_site_narrower_than_a_cell_decides_on_all_its_cover():
    site = frame(box(X0 + 55, Y0 + 50, X0 + 59, Y0 + 100))  # 4 m wide, 10 m cells
    r = development_type(site, impervious=raster_with_patch())
    assert r["existing_impervious_sqft"] == pytest.approx(80 * SQFT_PER_M2, abs=0.01)
    assert r["value"] == "redevelopment"


def test_any_non_zero_value_is_impervious():
    site = frame(box(X0, Y0, X0 + 200, Y0 + 200))
    r = development_type(site, impervious=raster_with_patch(value=255))
    assert r["existing_impervious_sqft"] == pytest.approx(PATCH_SQFT, abs=0.01)


def test_site_without_impervious_cover_is_new_development():
    site = frame(box(X0 + 100, Y0 + 100, X0 + 190, Y0 + 190))
    r = development_type(site, impervious=raster_with_patch())
    assert r["value"] == "new" and r["existing_impervious_sqft"] == 0.0
    assert any("No existing impervious cover" in x for x in r["reasons"])


def test_nodata_cells_are_not_impervious():
    site = frame(box(X0, Y0, X0 + 200, Y0 + 200))
    r = development_type(site, impervious=raster_with_patch(masked_patch=True))
    assert r["value"] == "new"


def test_impervious_polygons_are_clipped_and_overlaps_count_once():
    site = frame(box(X0, Y0, X0 + 60, Y0 + 100))
    roofs = frame(PATCH, PATCH, box(X0 + 500, Y0, X0 + 520, Y0 + 20))  # duplicate + far away
    r = development_type(site, impervious=roofs)
    assert r["value"] == "redevelopment"
    assert r["existing_impervious_sqft"] == pytest.approx(PATCH_SQFT / 2, abs=0.01)
    assert r["method"] == "measured: impervious polygons"


def test_a_statement_against_the_measurement_is_a_conflict_never_a_decision():
    site = frame(box(X0 + 20, Y0 + 20, X0 + 150, Y0 + 150))
    r = development_type(site, impervious=raster_with_patch(), override="new")
    # the whole 20 m x 20 m patch (4,305.56 sq ft) is inside: measured redevelopment
    assert r["value"] == "new" and r["stated_value"] == "new"
    assert r["method"] == "override: stated as new development"
    assert r["measured_value"] == "redevelopment" and r["conflict"] is True
    assert r["existing_impervious_sqft"] == pytest.approx(PATCH_SQFT, abs=0.01)
    assert any("the statement and the measurement disagree, so the Commission decides" in x
               for x in r["reasons"])
    assert not any("statement decides" in x for x in r["reasons"])


def test_raw_land_stated_as_redevelopment_is_a_conflict():
    # 0 sq ft of cover measured (the site misses the patch), "redevelopment" stated
    site = frame(box(X0 + 100, Y0 + 100, X0 + 150, Y0 + 150))
    r = development_type(site, impervious=raster_with_patch(), override="redevelopment")
    assert r["existing_impervious_sqft"] == 0.0 and r["measured_value"] == "new"
    assert r["value"] == "redevelopment" and r["conflict"] is True


def test_a_statement_the_measurement_agrees_with_or_nothing_measured_is_no_conflict():
    site = frame(box(X0 + 20, Y0 + 20, X0 + 150, Y0 + 150))
    agree = development_type(site, impervious=raster_with_patch(), override="redevelopment")
    assert agree["conflict"] is False
    assert agree["reasons"][-1] == "The applicant states the project is redevelopment, as measured."
    unmeasured = development_type(site, impervious=None, override="redevelopment")
    assert unmeasured["conflict"] is False and unmeasured["measured_value"] is None
    assert "not measured by this tool" in unmeasured["reasons"][-1]
    auto = development_type(site, impervious=raster_with_patch())
    assert auto["stated_value"] is None and auto["conflict"] is False


def test_no_layer_and_no_override_assumes_the_stricter_new_development():
    r = development_type(frame(box(X0, Y0, X0 + 10, Y0 + 10)), impervious=None)
    assert r["value"] == "new" and r["existing_impervious_sqft"] is None
    assert r["method"] == "assumed: no impervious layer"


def test_bad_override_and_raster_in_another_crs_are_refused():
    site = frame(box(X0, Y0, X0 + 10, Y0 + 10))
    with pytest.raises(SwmGisError, match="new, redevelopment"):
        development_type(site, impervious=None, override="old")
    other = raster_with_patch()
    other = Raster(other.array, other.transform, CRS.from_epsg(2249), other.source)
    with pytest.raises(CrsError, match="different CRSs"):
        development_type(site, impervious=other)


def test_docstring_examples_run():
    import doctest

    import swm_gis.rules.development as module

    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0

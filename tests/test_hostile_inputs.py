"""Adversarial inputs through the command line: rasters, site files, arguments and owner data.

Each case breaks a copy of the sample town (or passes a hostile argument), runs a command
in-process and checks: the exit code, the message (one paragraph naming the input and the fix,
no traceback), the inputs byte for byte unchanged, and no partial output or temporary left.
Cases a command accepts (a site in degrees is reprojected, a self-intersecting site repaired)
exit 0 and say what was done."""

from __future__ import annotations

import os

import geopandas as gpd
import numpy as np
import pytest
import shapely
from hostile import assert_refused, edit, hashes, leftovers, run, sample_copy

OK = 0


def _rewrite_raster(toml, name, *, data=None, **profile):
    """Copy ``T/name`` with ``profile`` changes (and new ``data``) into ``T/bad_<name>``."""
    import rasterio

    src_path, dst_path = toml.parent / name, toml.parent / f"bad_{name}"
    with rasterio.open(src_path) as src:
        new_profile = {**src.profile, **profile}
        array = src.read() if data is None else data(src.read())
    if new_profile.get("crs") is None:
        new_profile.pop("crs", None)
    with rasterio.open(dst_path, "w", **new_profile) as dst:
        dst.write(array.astype(new_profile["dtype"]))
    edit(toml, f'path = "{name}"', f'path = "bad_{name}"')


# --------------------------------------------------------------------------- rasters
def _dem_without_crs(toml):
    _rewrite_raster(toml, "dem.tif", crs=None)


def _dem_in_degrees(toml):
    import rasterio.transform

    _rewrite_raster(toml, "dem.tif", crs="EPSG:4326",
                    transform=rasterio.transform.from_origin(-71.0, 42.5, 0.0001, 0.0001))


def _dem_all_nodata(toml):
    _rewrite_raster(toml, "dem.tif", nodata=-9999.0, dtype="float32",
                    data=lambda a: np.full(a.shape, -9999.0))


def _dem_corrupt(toml):
    blob = (toml.parent / "dem.tif").read_bytes()
    (toml.parent / "bad_dem.tif").write_bytes(blob[:200] + b"\0" * 300)
    edit(toml, 'path = "dem.tif"', 'path = "bad_dem.tif"')


def _impervious_float(toml):
    _rewrite_raster(toml, "impervious.tif", dtype="float64",
                    data=lambda a: a.astype("float64") * 1.5 - 7.25)


def _dem_is_text(toml):
    (toml.parent / "bad_dem.tif").write_text("not a raster\n")
    edit(toml, 'path = "dem.tif"', 'path = "bad_dem.tif"')


RASTERS = {
    "dem-without-crs": (_dem_without_crs, ["bad_dem.tif ([layers.dem]) declares no coordinate",
                                           '[layers.dem] crs = "EPSG:26986"']),
    # cells of 0.0001 degrees near Boston, reprojected: nowhere near the site
    "dem-in-degrees": (_dem_in_degrees, ["The DEM does not cover the site", "bad_dem.tif"]),
    "dem-all-nodata": (_dem_all_nodata, ["bad_dem.tif holds no elevation values"]),
    "dem-corrupted": (_dem_corrupt, ["Cannot read raster", "bad_dem.tif ([layers.dem] path)"]),
    "dem-is-text": (_dem_is_text, ["Cannot read raster", "not recognized as being in a"]),
    "impervious-wrong-dtype": (_impervious_float, [
        "bad_impervious.tif ([layers.impervious]) holds values from -7.25 to -5.75 (float64)",
        "must be a class raster"]),
}


@pytest.mark.parametrize("case", list(RASTERS))
def test_a_hostile_raster_is_refused_before_screening_writes(tmp_path, capsys, case):
    toml = sample_copy(tmp_path)
    breaker, fragments = RASTERS[case]
    breaker(toml)
    before = hashes(toml.parent)
    out = tmp_path / "out"
    got, text = run(["screen", "-c", str(toml), "--site", f"{toml.parent / 'sites.gpkg'}:site",
                     "-o", str(out), "--no-report"], capsys)
    assert_refused(got, " ".join(text.split()), *fragments)
    assert hashes(toml.parent) == before
    assert not out.exists() and leftovers(tmp_path) == []


# --------------------------------------------------------------------------- site files
def _sites(toml):
    return gpd.read_file(toml.parent / "sites.gpkg", layer="site")


def _site_file(tmp_path, frame, name="site.gpkg", **kwargs):
    path = tmp_path / name
    frame.to_file(path, **kwargs)
    return str(path)


def _site_empty(toml, tmp_path):
    return _site_file(tmp_path, _sites(toml).iloc[:0])


def _site_points(toml, tmp_path):
    site = _sites(toml)
    return _site_file(tmp_path, site.set_geometry(site.centroid))


def _site_lines(toml, tmp_path):
    site = _sites(toml)
    return _site_file(tmp_path, site.set_geometry(site.boundary))


def _site_bowtie(toml, tmp_path):
    site = _sites(toml)
    x0, y0, x1, y1 = site.total_bounds
    bowtie = shapely.Polygon([(x0, y0), (x1, y1), (x1, y0), (x0, y1), (x0, y0)])
    return _site_file(tmp_path, site.set_geometry([bowtie], crs=site.crs))


def _site_degrees(toml, tmp_path):
    return _site_file(tmp_path, _sites(toml).to_crs("EPSG:4326"))


def _site_no_crs(toml, tmp_path):
    site = _sites(toml).set_crs(None, allow_override=True)
    return _site_file(tmp_path, site, name="site.shp")


def _site_in_texas(toml, tmp_path):
    site = _sites(toml).to_crs("EPSG:4326")
    return _site_file(tmp_path, site.set_geometry(site.translate(-26.0, -11.0)))


def _site_missing_layer(toml, tmp_path):
    return f"{toml.parent / 'sites.gpkg'}:nope"


def _site_directory(toml, tmp_path):
    (tmp_path / "sitedir").mkdir()
    return str(tmp_path / "sitedir")


def _site_dangling_link(toml, tmp_path):
    link = tmp_path / "site.gpkg"
    link.symlink_to(tmp_path / "gone.gpkg")
    return str(link)


def _site_unreadable(toml, tmp_path):
    path = _site_file(tmp_path, _sites(toml))
    os.chmod(path, 0)
    return path


def _site_garbage(toml, tmp_path):
    path = tmp_path / "site.gpkg"
    path.write_bytes(b"SQLite format 3\0" + b"\xff" * 500)
    return str(path)


SITES = {
    "empty": (_site_empty, 2, ["site.gpkg (--site) has no features with geometry"]),
    "points": (_site_points, 2, ["site.gpkg (--site) holds Point geometry; polygon features"]),
    "lines": (_site_lines, 2, ["holds LineString geometry; polygon features are needed"]),
    # the bowtie over the demo site's box is two triangles: half the 58,125.1 sq ft box
    "self-intersecting": (_site_bowtie, OK, ["the site disturbs 29,062.6 sq ft",
                                             "1 invalid polygon(s) of", "were repaired"]),
    "geographic-crs": (_site_degrees, OK, ["the site disturbs 58,125.1 sq ft (1.334 acres)"]),
    "no-crs": (_site_no_crs, 2, ["site.shp (--site) declares no coordinate reference system"]),
    "in-another-state": (_site_in_texas, 2, ["The site lies outside every HUC12 watershed",
                                             "Check that the site is in this town"]),
    "missing-layer-name": (_site_missing_layer, 2, [
        "sites.gpkg:nope (--site): Layer 'nope' could not be opened",
        "Its layers: site, site_small, common_plan", "name one as FILE:LAYER"]),
    "directory": (_site_directory, 2, ["sitedir (--site)"]),
    "dangling-symlink": (_site_dangling_link, 2, ["File not found", "site.gpkg (--site)"]),
    "unreadable": (_site_unreadable, 2, ["site.gpkg (--site)"]),
    "garbage-gpkg": (_site_garbage, 2, ["site.gpkg (--site): it is not a GeoPackage"]),
}


@pytest.mark.parametrize("case", list(SITES))
def test_a_hostile_site_file(tmp_path, capsys, case):
    if case == "unreadable" and os.geteuid() == 0:
        pytest.skip("root reads a file whatever its permissions")
    toml = sample_copy(tmp_path)
    maker, code, fragments = SITES[case]
    site = maker(toml, tmp_path)
    before = hashes(toml.parent)
    out = tmp_path / "out"
    got, text = run(["screen", "-c", str(toml), "--site", site, "-o", str(out), "--no-report"],
                    capsys)
    flat = " ".join(text.split())
    assert got == code, flat
    assert "Traceback" not in flat and "SELECT" not in flat
    for fragment in fragments:
        assert fragment in flat, (fragment, flat)
    assert hashes(toml.parent) == before
    if code == OK:
        assert sorted(p.name for p in out.iterdir()) == ["screening.gpkg", "screening.json"]
    else:
        assert not out.exists()
    assert leftovers(tmp_path) == []

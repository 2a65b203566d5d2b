"""Adversarial layers: data whose coordinates cannot be in its declared CRS, wrong geometry types,
ids that are empty or not ids. Each is exit 2 with a message naming the layer and the likely fix,
in `data validate` and in a command, and the inputs are never touched."""

from __future__ import annotations

import geopandas as gpd
import pytest
from support.hostile import SUBJECT, assert_refused, edit, hashes, leftovers, run, sample_copy

LAYER_BLOCK = '[layers.{key}]\npath = "sample.gpkg"\nlayer = "{key}"'


def _replace_layer(toml, key, frame, *, extra="", driver="GPKG", name="bad.gpkg"):
    """Write ``frame`` to ``T/name`` and point [layers.key] at it (with ``extra`` lines)."""
    path = toml.parent / name
    kwargs = {"layer": key} if driver == "GPKG" else {}
    frame.to_file(path, driver=driver, **kwargs)
    layer_line = f'\nlayer = "{key}"' if driver == "GPKG" else ""
    edit(toml, LAYER_BLOCK.format(key=key), f'[layers.{key}]\npath = "{name}"{layer_line}{extra}')


def _read(toml, key):
    return gpd.read_file(toml.parent / "sample.gpkg", layer=key)


def _feet_as_metres(toml):
    parcels = _read(toml, "parcels").to_crs("EPSG:2249")
    _replace_layer(toml, "parcels", parcels.set_crs("EPSG:26986", allow_override=True))


def _lonlat_without_crs(toml):
    parcels = _read(toml, "parcels").to_crs("EPSG:4326").set_crs(None, allow_override=True)
    _replace_layer(toml, "parcels", parcels, driver="ESRI Shapefile", name="parcels.shp",
                   extra='\ncrs = "EPSG:26986"')


def _huc12_lines(toml):
    huc = _read(toml, "huc12")
    _replace_layer(toml, "huc12", huc.set_geometry(huc.boundary))


def _null_ids(toml):
    _replace_layer(toml, "parcels", _read(toml, "parcels").assign(LOC_ID=None))


def _town_id_as_id(toml):
    edit(toml, LAYER_BLOCK.format(key="parcels"),
         LAYER_BLOCK.format(key="parcels") + '\n[layers.parcels.fields]\nid = "TOWN_ID"')


def _flood_zones_200km_east(toml):
    zones = _read(toml, "flood_zones")
    _replace_layer(toml, "flood_zones", zones.set_geometry(zones.translate(200_000, 0)))


def _parcels_200km_east(toml):
    parcels = _read(toml, "parcels")
    _replace_layer(toml, "parcels", parcels.set_geometry(parcels.translate(200_000, 0)))


def _metres_as_lonlat(toml):
    zones = _read(toml, "flood_zones")
    _replace_layer(toml, "flood_zones", zones.set_crs("EPSG:4326", allow_override=True))


def _dem_metres_as_feet(toml):
    import rasterio

    src_path, dst_path = toml.parent / "dem.tif", toml.parent / "dem_ft.tif"
    with rasterio.open(src_path) as src:
        profile = {**src.profile, "crs": "EPSG:2249"}
        data = src.read()
    with rasterio.open(dst_path, "w", **profile) as dst:
        dst.write(data)
    edit(toml, 'path = "dem.tif"', 'path = "dem_ft.tif"')


def _parcels_as_points(toml):
    parcels = _read(toml, "parcels")
    _replace_layer(toml, "parcels", parcels.set_geometry(parcels.representative_point()))


def _vernal_pools_as_polygons(toml):
    pools = _read(toml, "vernal_pools")
    _replace_layer(toml, "vernal_pools", pools.set_geometry(pools.buffer(10)))


def _empty_parcels(toml):
    _replace_layer(toml, "parcels", _read(toml, "parcels").iloc[:0])


CASES = {
    # case: (break the copy, fragments of the validate message)
    "feet-declared-as-metres": (_feet_as_metres, [
        "[layers.parcels]", "EPSG:26986", "lie far outside", "They look like EPSG:2249"]),
    "lonlat-declared-as-metres": (_lonlat_without_crs, [
        "[layers.parcels]", "as longitude/latitude degrees do", "They look like EPSG:4326",
        'Set [layers.parcels] crs = "EPSG:4326"']),
    "huc12-of-lines": (_huc12_lines, [
        "huc12: ", "holds LineString features; the huc12 layer needs polygon features"]),
    "all-null-ids": (_null_ids, ['field "LOC_ID" (logical "id") is empty in all 3,168 rows']),
    "id-is-a-town-code": (_town_id_as_id, [
        'the id field "TOWN_ID" has only 2 distinct values in 3,168 rows']),
    "layer-far-from-parcels": (_flood_zones_200km_east, [
        "flood_zones: ", "is nowhere near the parcels"]),
    "metres-declared-as-lonlat": (_metres_as_lonlat, [
        "flood_zones: ", "which are not degrees", "They look like EPSG:26986"]),
    "dem-metres-declared-as-feet": (_dem_metres_as_feet, [
        "dem: ", "dem_ft.tif", "EPSG:2249", "They look like EPSG:26986"]),
    "parcels-as-points": (_parcels_as_points, [
        "parcels: ", "holds Point features; the parcels layer needs polygon features"]),
    "vernal-pools-as-polygons": (_vernal_pools_as_polygons, [
        "vernal_pools: ", "holds Polygon features; the vernal_pools layer needs point"]),
    "empty-parcels": (_empty_parcels, ["parcels: ", "has no features"]),
    "parcels-far-from-everything": (_parcels_200km_east, [
        "parcels: ", "lie nowhere near the parcels", "the parcels' CRS is the likely fault"]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_data_validate_refuses_the_layer_and_names_the_fix(tmp_path, capsys, case):
    toml = sample_copy(tmp_path)
    breaker, fragments = CASES[case]
    breaker(toml)
    before = hashes(toml.parent)
    code, text = run(["data", "validate", "--config", str(toml)], capsys)
    assert_refused(code, " ".join(text.split()), *fragments)
    assert hashes(toml.parent) == before
    assert leftovers(toml.parent) == []


@pytest.mark.parametrize("case", ["feet-declared-as-metres", "lonlat-declared-as-metres",
                                  "all-null-ids"])
def test_abutters_refuses_the_layer_before_writing(tmp_path, capsys, case):
    toml = sample_copy(tmp_path)
    breaker, fragments = CASES[case]
    breaker(toml)
    before = hashes(toml.parent)
    out = tmp_path / "out"
    code, text = run(["abutters", "-c", str(toml), "-p", SUBJECT, "-o", str(out)], capsys)
    flat = " ".join(text.split())
    assert_refused(code, flat, fragments[0])
    assert "WHERE" not in flat  # never raw OGR SQL
    assert hashes(toml.parent) == before
    assert not out.exists() or not any(out.iterdir())
    assert leftovers(toml.parent, tmp_path) == []


def test_screen_refuses_a_huc12_of_lines(tmp_path, capsys):
    toml = sample_copy(tmp_path)
    _huc12_lines(toml)
    code, text = run(["screen", "-c", str(toml), "--site", str(toml.parent / "sites.gpkg"),
                      "-o", str(tmp_path / "out")], capsys)
    assert_refused(code, " ".join(text.split()), "the huc12 layer needs polygon features")


def test_a_site_file_in_feet_declared_as_metres_is_refused(tmp_path, capsys):
    toml = sample_copy(tmp_path)
    sites = gpd.read_file(toml.parent / "sites.gpkg")
    bad = sites.to_crs("EPSG:2249").set_crs("EPSG:26986", allow_override=True)
    bad.to_file(tmp_path / "site.gpkg", driver="GPKG")
    code, text = run(["screen", "-c", str(toml), "--site", str(tmp_path / "site.gpkg"),
                      "-o", str(tmp_path / "out")], capsys)
    assert_refused(code, " ".join(text.split()), "(--site)", "They look like EPSG:2249")


def _one_id_on_40_polygons(toml):
    parcels = _read(toml, "parcels")
    parcels.loc[parcels.index[1:40], "LOC_ID"] = parcels.loc[parcels.index[0], "LOC_ID"]
    _replace_layer(toml, "parcels", parcels)
    return str(parcels.loc[parcels.index[0], "LOC_ID"])


def _every_id_twice(toml):
    parcels = _read(toml, "parcels")
    half = parcels["LOC_ID"].iloc[: len(parcels) // 2].tolist()
    _replace_layer(toml, "parcels", parcels.assign(LOC_ID=half * 2))
    return "1584 parcel ids on more than one polygon"


def _ids_70_percent_empty(toml):
    parcels = _read(toml, "parcels")
    parcels.loc[parcels.index[: int(len(parcels) * 0.7)], "LOC_ID"] = None
    _replace_layer(toml, "parcels", parcels)
    return 'field "LOC_ID" (id) is empty in 2,217 of 3,168 rows'


@pytest.mark.parametrize("breaker", [_one_id_on_40_polygons, _every_id_twice,
                                     _ids_70_percent_empty],
                         ids=["one-id-on-40-polygons", "every-id-twice", "ids-70%-empty"])
def test_ids_not_unique_or_mostly_empty_are_reported_as_such(tmp_path, capsys, monkeypatch,
                                                             breaker):
    """Not an error (multipart parcels share an id; a few parcels lack one), but said, with
    the layer flagged "warn" rather than "ok"."""
    monkeypatch.setenv("COLUMNS", "4000")
    toml = sample_copy(tmp_path)
    fragment = breaker(toml)
    before = hashes(toml.parent)
    code, text = run(["data", "validate", "--config", str(toml)], capsys)
    assert code == 0, text
    assert fragment in text
    assert "│ parcels         │ warn" in text
    if breaker is not _ids_70_percent_empty:
        assert "on more than one polygon (treated as one parcel)" in text
    assert hashes(toml.parent) == before and leftovers(toml.parent) == []

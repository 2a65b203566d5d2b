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
import pandas as pd
import pytest
import shapely
from support.hostile import SUBJECT, assert_refused, edit, hashes, leftovers, run, sample_copy

from swm_gis.results import OUTPUT_FILES

OK = 0


@pytest.fixture(autouse=True)
def _wide_console(monkeypatch):
    """One line per message: rich would otherwise break long words at 80 columns."""
    monkeypatch.setenv("COLUMNS", "4000")


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
    # refused before any rule speaks of it: the site does not touch the town (issue 24)
    "in-another-state": (_site_in_texas, 2, ["The site does not touch Sampleton (SYNTHETIC)",
                                             "this town and in the right CRS"]),
    "missing-layer-name": (_site_missing_layer, 2, [
        "sites.gpkg:nope (--site): Layer 'nope' could not be opened",
        "Its layers: site, site_small, common_plan", "name one as FILE:LAYER"]),
    "directory": (_site_directory, 2, ["sitedir (--site)"]),
    "dangling-symlink": (_site_dangling_link, 2, ["File not found", "site.gpkg (--site)"]),
    "unreadable": (_site_unreadable, 2, ["site.gpkg (--site)", "Permission denied"]),
    "garbage-gpkg": (_site_garbage, 2, ["site.gpkg (--site): it is not a GeoPackage"]),
}


@pytest.mark.parametrize("case", list(SITES))
def test_a_hostile_site_file(tmp_path, capsys, monkeypatch, case):
    if case == "unreadable" and os.geteuid() == 0:  # root reads anything: the OS error instead
        import pyogrio

        def denied(path, *args, **kwargs):
            raise PermissionError(13, "Permission denied", str(path))
        monkeypatch.setattr(pyogrio, "read_info", denied)
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


# --------------------------------------------------------------------------- arguments
def _site(toml):
    return ["--site", f"{toml.parent / 'sites.gpkg'}:site"]


ARGUMENTS = {
    # case: (command, extra arguments (T = the town folder, O = the output), fragments)
    "distance-negative": ("abutters", ["-p", SUBJECT, "-d", "-100ft"],
                          ['Cannot read the distance "-100ft"', "Give feet or metres"]),
    "distance-words": ("abutters", ["-p", SUBJECT, "-d", "three hundred feet"],
                       ['Cannot read the distance "three hundred feet"']),
    "distance-furlongs": ("abutters", ["-p", SUBJECT, "-d", "2 furlongs"],
                          ['Cannot read the distance "2 furlongs"']),
    "distance-too-far": ("abutters", ["-p", SUBJECT, "-d", "1e9 ft"],
                         ['Cannot read the distance "1e9 ft"']),
    "parcel-unknown": ("abutters", ["-p", "M_000000_000000"],
                       ['Parcel id(s) M_000000_000000 not found in field "LOC_ID"']),
    "parcel-empty": ("abutters", ["-p", ""], ['A parcel id is empty (--parcel "")']),
    "parcel-with-commas": ("abutters", ["-p", f"{SUBJECT},M_1,M_2"],
                           ["not found", "Give each with its own --parcel (-p A -p B)"]),
    "parcel-and-site": ("abutters", ["-p", SUBJECT, "--site", "T/sites.gpkg:site"],
                        ["either by --parcel ID (one or more) or by --site FILE, not both"]),
    "neither-parcel-nor-site": ("abutters", [],
                                ["either by --parcel ID (one or more) or by --site FILE"]),
    "label-template-unknown": ("abutters", ["-p", SUBJECT, "--label-template", "5999"],
                               ["Unknown --label-template 5999; choose one of 5160"]),
    "label-offset-too-far": ("abutters", ["-p", SUBJECT, "--label-offset", "3,0"],
                             ["--label-offset 3,0 is more than an inch"]),
    "out-is-a-file": ("abutters", ["-p", SUBJECT, "-o", "T/README.md"],
                      ["Invalid value for '--out'", "README.md' is a file"]),
    "out-is-the-config-folder": ("abutters", ["-p", SUBJECT, "-o", "T"], [
        "(--out) contains the input", "town.toml", "--overwrite does not change this"]),
    "out-inside-the-geopackage": ("abutters", ["-p", SUBJECT, "-o", "T/sample.gpkg/x"],
                                  ["sample.gpkg/x (--out) is inside the input"]),
    "out-is-the-config": ("applicability", ["-o", "T/town.toml"],
                          ["town.toml must be a GeoPackage file ending in .gpkg"]),
    "out-is-the-dem": ("applicability", ["-o", "T/dem.tif"],
                       ["dem.tif must be a GeoPackage file ending in .gpkg"]),
    "out-not-gpkg": ("applicability", ["-o", "O.txt"],
                     ["out.txt must be a GeoPackage file ending in .gpkg"]),
    "out-is-the-site": ("screen", ["--site", "T/sites.gpkg:site", "-o", "T/sites.gpkg"],
                        ["Invalid value for '--out'", "sites.gpkg' is a file"]),
    "exemption-unknown": ("screen", ["--exemption", "farming"],
                          ['Unknown exemption "farming"', "npdes-waived, agriculture"]),
    "received-feb-30": ("screen", ["--received", "2026-02-30"],
                        ['--received "2026-02-30" is not a date; write it as YYYY-MM-DD']),
    "received-words": ("screen", ["--received", "yesterday"],
                       ['--received "yesterday" is not a date']),
    "development-unknown": ("screen", ["--development", "maybe"],
                            ["'maybe' is not one of 'auto', 'new', 'redevelopment'"]),
    "impervious-negative": ("screen", ["--proposed-impervious-sqft", "-5"], [
        "'--proposed-impervious-sqft': Input should be greater than or equal to 0"]),
    "proposed-use-unknown": ("screen", ["--proposed-use", "spaceport"], ["spaceport"]),
    "screen-parcel-unknown": ("screen", ["--parcel", "NOPE"], ["Parcel id(s) NOPE not found"]),
    "common-plan-missing": ("screen", ["--common-plan", "T/nowhere.gpkg"],
                            ["File not found", "nowhere.gpkg (--common-plan)"]),
    "workers-zero": ("applicability", ["--workers", "0"],
                     ["'--workers': Input should be greater than or equal to 1"]),
    "chunk-size-negative": ("applicability", ["--chunk-size", "-10"],
                            ["'--chunk-size': Input should be greater than or equal to 100"]),
    "scheduler-without-dask": ("applicability", ["--scheduler", "tcp://127.0.0.1:1"],
                               ["--scheduler is for the Dask engine; add --engine dask"]),
    "scheduler-bad-form": ("applicability", ["--engine", "dask", "--scheduler", "not a url"],
                           ['--scheduler "not a url" is not a scheduler address']),
    "config-missing": ("abutters", ["-p", SUBJECT, "-c", "T/nowhere.toml"],
                       ["Town config file not found", "nowhere.toml"]),
    "config-is-a-folder": ("abutters", ["-p", SUBJECT, "-c", "T"],
                           ["Invalid value for '--config'", "is a directory"]),
}


@pytest.mark.parametrize("case", list(ARGUMENTS))
def test_a_hostile_argument_is_exit_2_before_anything_is_written(tmp_path, capsys, case):
    toml = sample_copy(tmp_path)
    command, extra, fragments = ARGUMENTS[case]
    out = tmp_path / ("out.gpkg" if command == "applicability" else "out")
    extra = [a.replace("T/", f"{toml.parent}/").replace("O.txt", f"{tmp_path}/out.txt")
             if a not in ("T",) else str(toml.parent) for a in extra]
    args = [command, *(["-c", str(toml)] if "-c" not in extra else []), *extra]
    if "-o" not in extra:
        args += ["-o", str(out)]
    if command == "screen" and "--site" not in extra:
        args += _site(toml)
    before = hashes(toml.parent)
    got, text = run(args, capsys)
    flat = " ".join(text.split())
    assert_refused(got, flat, *fragments)
    assert hashes(toml.parent) == before
    assert not out.exists() and not (tmp_path / "out.txt").exists()
    assert leftovers(tmp_path) == []


# --------------------------------------------------------------------------- owner data
ASSESS = '[layers.assess]\npath = "sample.gpkg"\nlayer = "assess"'
PARCELS = '[layers.parcels]\npath = "sample.gpkg"\nlayer = "parcels"'
LONG_NAME = ("WINTHROP-SALTONSTALL FAMILY IRREVOCABLE REALTY TRUST OF NINETEEN HUNDRED "
             "NINETY-NINE CHARLES FRANCIS ADAMS BARTHOLOMEW HEPPLEWHITE-MONTGOMERY AND "
             "ELIZABETH CABOT LODGE WIGGLESWORTH-PEABODY TRUSTEES UNDER DECLARATION DATED "
             "JANUARY FIRST")[:260]


def _assess(toml):
    return gpd.read_file(toml.parent / "sample.gpkg", layer="assess")


def _new_assess(toml, frame):
    import pyogrio

    pyogrio.write_dataframe(pd.DataFrame(frame.drop(columns="geometry", errors="ignore")),
                            toml.parent / "owners.gpkg", layer="assess", driver="GPKG")
    edit(toml, ASSESS, ASSESS.replace("sample.gpkg", "owners.gpkg"))


def _owners_formulas(toml):
    _new_assess(toml, _assess(toml).assign(OWNER1='=HYPERLINK("http://evil.example","x")',
                                           OWN_CO="@SUM(A1)"))


def _owners_long_names(toml):
    _new_assess(toml, _assess(toml).assign(OWNER1=LONG_NAME))


def _owners_no_addresses(toml):
    _new_assess(toml, _assess(toml).assign(OWN_ADDR="", OWN_CITY="", OWN_STATE="", OWN_ZIP=""))


def _owners_csv_latin1(toml):
    frame = _assess(toml).drop(columns="geometry", errors="ignore")
    frame["OWNER1"] = frame["OWNER1"] + " CAFÉ"
    (toml.parent / "assess.csv").write_bytes(frame.to_csv(index=False).encode("latin-1"))
    edit(toml, ASSESS, '[layers.assess]\npath = "assess.csv"')


def _owners_duplicate_ids(toml):
    frame = _assess(toml)
    _new_assess(toml, pd.concat([frame, frame.assign(OWNER1="SECOND OWNER")]))


def _owners_control_characters(toml):
    _new_assess(toml, _assess(toml).assign(OWNER1="SMITH\nJOHN\tQ\x07\x00"))


def _csv(out):
    return (out / "mailing_list.csv").read_text(encoding="utf-8-sig")


def _no_formula_cells(out):
    import openpyxl

    book = openpyxl.load_workbook(out / "mailing_list.xlsx")
    cells = [c for ws in book.worksheets for row in ws.iter_rows() for c in row]
    assert cells and all(c.data_type != "f" for c in cells)
    assert all(not str(c.value or "").startswith(("=", "@", "+")) for c in cells)
    assert "'=HYPERLINK" in _csv(out) and "\n=HYPERLINK" not in _csv(out)


def _full_names_listed(out):
    assert _csv(out).count(LONG_NAME) == 20  # every recipient, the name whole


def _all_kept_off_for_review(out):
    review = (out / "mailing_review.csv").read_text(encoding="utf-8-sig")
    assert review.count("no_mailing_address,") == 20
    assert _csv(out).strip().count("\n") == 0  # the header only: nobody can be mailed


def _both_owners_listed(out):
    csv = _csv(out)
    assert "RUSSO KAREN" in csv and "SECOND OWNER,,236 POND ST" in csv


def _control_characters_dropped(out):
    csv = _csv(out)
    assert "SMITH JOHN Q," in csv and "\x07" not in csv and "\x00" not in csv


OWNERS = {
    # case: (break the assessing table, exit, summary fragments, check of the package)
    "formula-cells": (_owners_formulas, OK, ["20 recipient(s)"], _no_formula_cells),
    "260-character-names": (_owners_long_names, OK, [
        "owner name(s) too long for a label or the mailing book were shortened with an",
        "the full names are in mailing_list.csv"], _full_names_listed),
    "all-empty-addresses": (_owners_no_addresses, OK, [
        "0 recipient(s) after removing 0 duplicate notice(s) (mailing_list.csv); 20 with no "
        "mailing address and 0 with an incomplete address are kept off it (mailing_review.csv)"],
        _all_kept_off_for_review),
    "non-utf8-csv": (_owners_csv_latin1, 2, [
        "assess.csv ([layers.assess]): the text is not UTF-8", 'Excel: "CSV UTF-8"'], None),
    "duplicate-loc-ids": (_owners_duplicate_ids, OK, ["recipient(s)"], _both_owners_listed),
    "control-characters": (_owners_control_characters, OK, ["recipient(s)"],
                           _control_characters_dropped),
}


@pytest.mark.parametrize("case", list(OWNERS))
def test_hostile_owner_data(tmp_path, capsys, case):
    toml = sample_copy(tmp_path)
    breaker, code, fragments, check = OWNERS[case]
    breaker(toml)
    before = hashes(toml.parent)
    out = tmp_path / "out"
    got, text = run(["abutters", "-c", str(toml), "-p", SUBJECT, "-o", str(out)], capsys)
    flat = " ".join(text.split())
    assert got == code, flat
    assert "Traceback" not in flat
    for fragment in fragments:
        assert fragment in flat, (fragment, flat)
    assert hashes(toml.parent) == before
    assert leftovers(tmp_path) == []
    if code == OK:
        assert sorted(p.name for p in out.iterdir()) == sorted(OUTPUT_FILES.values())
        check(out)
    else:
        assert not out.exists()


@pytest.mark.parametrize("box", ["label-5160", "label-5161", "mailing-book-line"])
@pytest.mark.parametrize("co_owner", ["", "TRUSTEE " + "W" * 100])
def test_a_260_character_name_never_costs_the_street_and_zip(box, co_owner):
    """On main, a 260-character name filled the label and dropped the street and the
    city/state/ZIP lines silently; now the name gives way (with an ellipsis) and is reported."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    from swm_gis.reports.certified_mail import shortened_labels
    from swm_gis.reports.labels import SHEETS, fit_address, label_parts
    from swm_gis.reports.pdf_fonts import register_fonts

    font, _ = register_fonts()
    rec = {"owner_name": LONG_NAME, "co_owner": co_owner, "mail_address": "12 MAIN ST",
           "mail_city": "LYNNFIELD", "mail_state": "MA", "mail_zip": "01940"}
    if box == "mailing-book-line":
        width, height, big, small = 244.0, 40.0, 8.0, 5.0
    else:
        sheet = SHEETS[box.split("-")[1]]
        width, height = (sheet.label_w - 0.24) * 72, (sheet.label_h - 0.12) * 72
        big, small = 10.0, 5.0
    fitted = fit_address(*label_parts(rec), width_pt=width, height_pt=height, font=font,
                         max_size=big, min_size=small)
    size, lines = fitted.size, fitted.lines
    assert lines[-2:] == ["12 MAIN ST", "LYNNFIELD, MA 01940"]
    assert lines[0].startswith("WINTHROP-SALTONSTALL")
    assert all(stringWidth(line, font, size) <= width for line in lines)
    assert len(lines) * size * 1.18 <= height
    shortened = any(line.endswith("…") for line in lines)
    listed = shortened_labels(pd.DataFrame([rec]), template=box.split("-")[1]
                              if box != "mailing-book-line" else "5160")
    assert not shortened or listed == [LONG_NAME]

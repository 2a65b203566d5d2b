"""A layer's ``label = "..."`` (e.g. the QGIS layer a temporary export came from) travels with its
provenance, and the outputs print it instead of the file path."""

from pathlib import Path

import pytest

from swm_gis.config.town import LAYER_KEYS, parse_config
from swm_gis.errors import ConfigError
from swm_gis.io.sources import source_info
from swm_gis.notification.info import PackageInfo
from swm_gis.reports.screening_model import describe_source

LABEL = "QGIS layer 'Parcels' (parcels.shp; 2 selected features)"


def _spec(**parcels):
    data = {"town": {"name": "T"}, "layers": {"parcels": {"path": "p.gpkg", **parcels}}}
    return parse_config(data, base_dir=Path("/data")).layer("parcels")


def test_label_is_a_layer_key_and_source_info_carries_it():
    assert LAYER_KEYS["label"]
    info = source_info(_spec(label=LABEL))
    assert info == {"key": "parcels", "file": "/data/p.gpkg", "layer": None, "modified": None,
                    "label": LABEL}


def test_without_a_label_nothing_is_added():
    assert "label" not in source_info(_spec())


def test_a_layer_read_from_several_files_keeps_one_label():
    info = source_info(_spec(path=["a.gpkg", "b.gpkg"], label=LABEL))
    assert info["label"] == LABEL
    assert [s["file"] for s in info["sources"]] == ["/data/a.gpkg", "/data/b.gpkg"]


@pytest.mark.parametrize("bad", [3, ["x"], {"a": "b"}, True, "", "  "])
def test_a_label_that_is_not_text_is_refused(bad):
    with pytest.raises(ConfigError, match=r"\[layers.parcels\]"):
        _spec(label=bad)


def test_reports_print_the_label_not_the_temporary_path():
    src = {"key": "parcels", "file": "/tmp/processing_x/parcels.gpkg", "layer": "parcels",
           "modified": "2026-12-01T08:00:00+00:00", "label": LABEL}
    info = PackageInfo(town="T", subject_ids=("1",), distance_ft=100.0, sources=(src,))
    assert info.source_lines() == [
        f"parcels: {LABEL}; data date not stated; file modified 2026-12-01 (not the data date)"]
    assert info.source_rows()[0][1] == LABEL
    assert describe_source(src) == f"parcels = {LABEL} (2026-12-01)"
    plain = {k: v for k, v in src.items() if k != "label"}
    assert describe_source(plain) == "parcels = parcels.gpkg:parcels (2026-12-01)"

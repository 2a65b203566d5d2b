"""Rows by id from a GeoPackage through the id index (issue 37): GDAL's answer, without a scan.

Every test compares with what pyogrio returns for the same ``IN`` clause without the index
(rows, order, dtypes, geometry bytes), or checks that the index stood aside.
"""

from __future__ import annotations

import os
import sqlite3
import types
from pathlib import Path

import geopandas as gpd
import numpy as np
import pandas as pd
import pyogrio
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from swm_gis.config.town import LayerSpec
from swm_gis.io import id_index, source_cache
from swm_gis.io import layers as io

#: The ids of the features, in file order (fid 1..10): a repeat (A1 at fids 1 and 6), a case
#: variant (a1), a quote, non-ASCII text, a trailing space, an empty string and two nulls.
IDS = ["A1", "B2", "a1", "O'Brien", "Ω-7", "A1", None, "C3 ", "", None]
#: Ids asked for that no feature has, beside those that some have.
ABSENT = ["a1 ", "A", "C3", "ω-7", "missing", "A1A"]
#: Rows after the ten: the index answers a read of up to one id per ROWS_PER_FID rows (50).
FILLER = [f"F{i:04d}" for i in range(500)]


def frame_of(ids: list[str | None]) -> gpd.GeoDataFrame:
    """Unit squares in a row (x = 0, 1, ...), LOC_ID as ``ids``, an integer and a date field."""
    n = len(ids)
    return gpd.GeoDataFrame(
        {"LOC_ID": ids, "n": list(range(n)),
         "day": pd.to_datetime("2020-01-01") + pd.to_timedelta(range(n), unit="D")},
        geometry=[shapely.box(i, 0, i + 1, 1) for i in range(n)], crs="EPSG:26986")


def cache_of(root: Path) -> types.SimpleNamespace:
    return types.SimpleNamespace(cache_enabled=True, cache_dir=str(root))


@pytest.fixture
def gpkg(tmp_path) -> Path:
    """IDS then FILLER (510 rows)."""
    path = tmp_path / "parcels.gpkg"
    pyogrio.write_dataframe(frame_of(IDS + FILLER), path, layer="parcels")
    return path


def _read(path: Path, ids: list[str], cache: Path | None, **kw):
    spec = LayerSpec(key="parcels", path=str(path), layer="parcels")
    info = pyogrio.read_info(path, layer="parcels")
    where = io.sql_in("LOC_ID", ids)
    columns = kw.pop("columns", list(info["fields"]))
    direct = pyogrio.read_dataframe(path, layer="parcels", columns=columns, where=where, **kw)
    if cache is None:
        return direct, None, None
    with source_cache.using(cache_of(cache)):
        fids = id_index.lookup(spec, str(path), "parcels", info, where)
        hit = id_index.read(spec, str(path), "parcels", info, columns=columns, where=where, **kw)
    return direct, fids, hit


def same_frame(a: pd.DataFrame, b: pd.DataFrame) -> None:
    assert list(a.columns) == list(b.columns)
    pd.testing.assert_index_equal(a.index, b.index)
    if isinstance(b, gpd.GeoDataFrame):
        assert a.crs == b.crs
        assert list(shapely.to_wkb(a.geometry.values)) == list(shapely.to_wkb(b.geometry.values))
        a, b = a.drop(columns="geometry"), b.drop(columns="geometry")
    pd.testing.assert_frame_equal(pd.DataFrame(a), pd.DataFrame(b), check_exact=True)


def test_by_hand_the_fids_and_rows_are_sqlite_s(gpkg, tmp_path):
    """'A1' is at fids 1 and 6, 'Ω-7' at 5, 'O''Brien' at 4 (1-based, file order); 'a1 ' and
    'C3' match nothing (SQLite compares bytes: no case folding, no trimming)."""
    direct, fids, hit = _read(gpkg, ["Ω-7", "A1", "a1 ", "O'Brien", "C3"], tmp_path / "cache")
    assert fids.tolist() == [1, 4, 5, 6]
    assert direct["LOC_ID"].tolist() == ["A1", "O'Brien", "Ω-7", "A1"]  # file order
    same_frame(hit, direct)
    assert str(hit["n"].dtype) == "int64" and hit["n"].tolist() == [0, 3, 4, 5]


@settings(max_examples=25, deadline=None, derandomize=True)
@given(ids=st.sets(st.sampled_from(sorted({i for i in IDS if i is not None} | set(ABSENT))),
                   min_size=1, max_size=6),
       geometry=st.booleans())
def test_any_ids_read_through_the_index_are_the_where_query_s(tmp_path_factory, ids, geometry):
    folder = tmp_path_factory.mktemp("ids")
    path = folder / "parcels.gpkg"
    pyogrio.write_dataframe(frame_of(IDS + FILLER), path, layer="parcels")
    wanted = sorted(ids)
    direct, fids, hit = _read(path, wanted, folder / "cache", read_geometry=geometry)
    expected = [i + 1 for i, v in enumerate(IDS) if v in wanted]  # fids are 1-based
    assert fids.tolist() == expected
    if expected:
        same_frame(hit, direct)
    else:
        assert hit is None  # none found: the plain read types the empty frame


def test_the_second_read_uses_the_index_without_reading_the_column(gpkg, tmp_path,
                                                                    monkeypatch):
    _read(gpkg, ["B2"], tmp_path / "cache")
    built = sorted((tmp_path / "cache" / "sources-v1" / "ids").glob("*.npz"))
    assert len(built) == 1
    id_index._LOADED.clear()  # a new process: the index is loaded from disk, not rebuilt
    monkeypatch.setattr(id_index, "_build", lambda *a: pytest.fail("rebuilt"))
    direct, fids, hit = _read(gpkg, ["B2"], tmp_path / "cache")
    assert fids.tolist() == [2]
    same_frame(hit, direct)


def test_a_changed_geopackage_gets_a_new_index(gpkg, tmp_path):
    _, fids, _ = _read(gpkg, ["B2"], tmp_path / "cache")
    assert fids.tolist() == [2]
    frame = pyogrio.read_dataframe(gpkg, layer="parcels")
    frame.loc[7, "LOC_ID"] = "B2"  # fid 8 now holds B2 too
    stamp = gpkg.stat().st_mtime_ns
    pyogrio.write_dataframe(frame, gpkg, layer="parcels")
    os.utime(gpkg, ns=(stamp + 10**9, stamp + 10**9))
    direct, fids, hit = _read(gpkg, ["B2"], tmp_path / "cache")
    assert fids.tolist() == [2, 8]
    same_frame(hit, direct)


@pytest.mark.parametrize("damage", ["truncate", "sidecar", "counts"])
def test_a_damaged_index_is_rebuilt_never_trusted(gpkg, tmp_path, damage):
    _read(gpkg, ["A1"], tmp_path / "cache")
    (npz,) = (tmp_path / "cache" / "sources-v1" / "ids").glob("*.npz")
    side = npz.with_suffix(".json")
    if damage == "truncate":
        npz.write_bytes(npz.read_bytes()[:40])
    elif damage == "sidecar":
        side.write_text("{not json", encoding="utf-8")
    else:  # the data of another table under this name: its ids do not add up
        np.savez(npz, keys=np.array([b"A1"]), fids=np.array([9]))
    id_index._LOADED.clear()
    direct, fids, hit = _read(gpkg, ["A1"], tmp_path / "cache")
    assert fids.tolist() == [1, 6]
    same_frame(hit, direct)


def test_many_ids_are_left_to_the_scan(gpkg, tmp_path):
    """508 non-null values: up to 10 fids (10 x 50 = 500 <= 508) through the index, 11 not."""
    direct, fids, hit = _read(gpkg, FILLER[:10], tmp_path / "cache")
    assert fids.tolist() == list(range(11, 21))
    same_frame(hit, direct)
    direct, fids, hit = _read(gpkg, FILLER[:11], tmp_path / "cache")
    assert fids is None and hit is None and len(direct) == 11


def test_a_field_with_its_own_index_is_left_to_sqlite(gpkg, tmp_path):
    """With an index on LOC_ID SQLite answers in the index's order: the id index stands aside
    (and the file is only read: its index was made here, by the test)."""
    with sqlite3.connect(gpkg) as con:
        con.execute('CREATE INDEX parcels_loc ON parcels ("LOC_ID")')
    _, fids, hit = _read(gpkg, ["A1", "B2"], tmp_path / "cache")
    assert fids is None and hit is None


@pytest.mark.parametrize("where", ['"n" IN (1,2)', "1 = 0", "\"LOC_ID\" LIKE 'A%'",
                                   "\"n\" IN ('1')"])
def test_other_clauses_are_left_to_gdal(gpkg, tmp_path, where):
    spec = LayerSpec(key="parcels", path=str(gpkg), layer="parcels")
    info = pyogrio.read_info(gpkg, layer="parcels")
    with source_cache.using(cache_of(tmp_path / "cache")):
        assert id_index.lookup(spec, str(gpkg), "parcels", info, where) is None


def test_nothing_is_kept_with_the_cache_off(gpkg, tmp_path):
    spec = LayerSpec(key="parcels", path=str(gpkg), layer="parcels")
    info = pyogrio.read_info(gpkg, layer="parcels")
    assert id_index.lookup(spec, str(gpkg), "parcels", info, io.sql_in("LOC_ID", ["A1"])) \
        is None
    direct, _, _ = _read(gpkg, ["A1"], None)
    assert len(direct) == 2


def test_cache_clear_removes_the_indexes(gpkg, tmp_path):
    _read(gpkg, ["A1"], tmp_path / "cache")
    assert list((tmp_path / "cache" / "sources-v1" / "ids").glob("*.npz"))
    source_cache.clear(tmp_path / "cache")
    assert not (tmp_path / "cache" / "sources-v1").exists()

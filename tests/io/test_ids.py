"""The one id rule (swm_gis.ids): a float 12.0, an int 12 and the text "12" are one id; text is
kept as typed but for surrounding whitespace; no value is no id. The readers apply it at the
edge."""

from __future__ import annotations

import geopandas as gpd
import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from shapely.geometry import box
from support.townkit import CRS, write_town

from swm_gis.config.town import load_config
from swm_gis.ids import id_series, id_text
from swm_gis.io import layers


@pytest.mark.parametrize(("value", "text"), [
    (12.0, "12"), (12, "12"), ("12", "12"), (" 12\t", "12"), (np.int64(12), "12"),
    (np.float64(12.0), "12"), (12.5, "12.5"), ("012", "012"), ("12.0", "12.0"),
    ("M_236584_917849", "M_236584_917849"), (None, None), (float("nan"), None), ("", None),
    ("   ", None), (pd.NA, None), (-0.0, "0"),
], ids=repr)
def test_id_text(value, text):
    assert id_text(value) == text


@given(st.integers(min_value=-(2**52), max_value=2**52))
def test_a_number_and_its_text_are_one_id(n):
    assert id_text(float(n)) == id_text(int(n)) == id_text(str(n)) == str(n)


@given(st.one_of(st.none(), st.integers(), st.floats(allow_nan=True), st.text()))
def test_id_text_is_idempotent(value):
    once = id_text(value)
    assert id_text(once) == once


@given(st.lists(st.one_of(st.integers(-10**15, 10**15).map(float),
                          st.floats(allow_nan=True, allow_infinity=False, width=64),
                          st.none()), max_size=20))
def test_id_series_fast_paths_give_what_id_text_gives(values):
    """Whole-number float and integer columns take a vectorised path; its answer is the rule's,
    value for value (12.0 -> "12", NaN -> None, 12.5 -> "12.5")."""
    floats = pd.Series(values, dtype=float)
    assert id_series(floats).tolist() == [id_text(v) for v in floats]
    whole = [v for v in values
             if v is not None and v == v and float(v).is_integer() and abs(v) < 2 ** 62]
    ints = pd.Series([int(v) for v in whole], dtype="int64")
    assert id_series(ints).tolist() == [id_text(v) for v in ints]


@given(st.lists(st.one_of(st.text(alphabet=" \t\xa0\u2003\x1c\x850123456789.M_x", max_size=6),
                          st.none()),
                max_size=20),
       st.sampled_from([object, "string", "string[pyarrow]"]))
def test_id_series_text_path_gives_what_id_text_gives(values, dtype):
    """A text column (object or a string dtype) is stripped at once; its answer is the rule's,
    value for value (" 012 " -> "012", blank or missing -> None, "12.0" kept)."""
    texts = pd.Series(values, dtype=dtype)
    got = id_series(texts).tolist()
    assert got == [id_text(None if pd.isna(v) else v) for v in texts]
    assert all(v is None or type(v) is str for v in got)


def test_id_series_of_mixed_values_keeps_the_rule():
    """Text and numbers in one object column take the per-value rule (12.0 -> "12")."""
    mixed = pd.Series([" 7 ", 12.0, None, "", pd.NA, 3], dtype=object)
    assert id_series(mixed).tolist() == ["7", "12", None, None, None, "3"]
    # text and every kind of missing value: the text path
    assert id_series(pd.Series([pd.NA, " b\xa0", None, np.nan], dtype=object)).tolist() == \
        [None, "b", None, None]


def test_id_series_keeps_index_and_name():
    s = pd.Series([12.0, None, " 7 "], index=[5, 9, 2], name="id")
    out = id_series(s)
    assert out.tolist() == ["12", None, "7"] and list(out.index) == [5, 9, 2]
    assert out.name == "id" and out.dtype == object


@pytest.mark.parametrize("kind", ["float", "int", "text"])
def test_the_table_reader_writes_ids_by_the_rule(tmp_path, kind):
    """An assessing table's number field 12.0 reads "12" (astype(str) gave "12.0")."""
    value = {"float": 12.0, "int": 12, "text": "12"}[kind]
    parcels = gpd.GeoDataFrame({"LOC_ID": ["12"], "geometry": [box(0, 0, 1, 1)]}, crs=CRS)
    assess = gpd.GeoDataFrame(pd.DataFrame({"LOC_ID": [value], "OWNER1": ["A"]}))
    cfg = load_config(write_town(tmp_path, {"parcels": parcels, "assess": assess}))
    assert layers.read_table(cfg, "assess")["parcel_id"].tolist() == ["12"]
    assert layers.read_by_ids(cfg, "assess", "parcel_id", ["12"])["parcel_id"].tolist() == ["12"]

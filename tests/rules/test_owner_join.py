"""The one owner-join measure (issue 35): :func:`owner_join`, the fields that would join, and
the package's refusal built on them. Frames built by hand; ids stored as float, int or text."""

from __future__ import annotations

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from swm_gis.config.town import Rules
from swm_gis.rules.owner_join import (
    FieldThatJoins,
    OwnerJoin,
    fields_that_join,
    owner_join,
    with_fields_that_join,
)

STORED = (float, int, str)


def _assess(ids, owner="OWNER") -> pd.DataFrame:
    return pd.DataFrame({"parcel_id": list(ids), "owner": [owner] * len(ids)}, dtype=object)


@settings(max_examples=60, deadline=None)
@given(parcels=st.sets(st.integers(0, 60), max_size=25),
       owned=st.sets(st.integers(0, 60), max_size=25),
       kinds=st.tuples(st.sampled_from(STORED), st.sampled_from(STORED)))
def test_the_join_is_the_id_sets_overlap_however_the_ids_are_stored(parcels, owned, kinds):
    """Whatever each table stores (a float 12.0, an int 12, the text "12"), the parcels that
    join are those whose id is among the owned ids: |P & A| of |P|."""
    pkind, akind = kinds
    frame = pd.DataFrame({"id": pd.Series([pkind(n) for n in sorted(parcels)], dtype=object)})
    join = owner_join(frame, _assess([akind(n) for n in sorted(owned)]), Rules())
    assert (join.joined, join.ownable) == (len(parcels & owned), len(parcels))
    assert set(join.parcel_examples) <= {str(n) for n in parcels - owned}
    assert set(join.assess_examples) <= {str(n) for n in owned - parcels}


def test_a_hand_checked_join_by_type_with_examples():
    # ids 12 (FEE, owned), 13 (FEE, not), 14 (ROW: no owner by its type), None (no id),
    # 15 (TAX, owned, but in another town: its owner is in its own town's table)
    parcels = pd.DataFrame({"id": [12.0, 13.0, 14.0, None, 15.0],
                            "poly_type": ["FEE", "FEE", "ROW", "FEE", "TAX"],
                            "other_town": [False, False, False, False, True]})
    # "012" is text as typed: never the parcel 12; a row with a blank owner joins nothing
    assess = pd.DataFrame({"parcel_id": ["12", "012", "13", "15"],
                           "owner": ["A", "B", "  ", "C"]})
    join = owner_join(parcels, assess, Rules(), parcels_field="LOC_ID", assess_field="LOC_ID")
    assert (join.joined, join.ownable, join.share) == (1, 2, 0.5)  # 12 of {12, 13}
    assert join.by_type == {"FEE": (1, 2)}
    assert join.parcel_examples == ("13",) and join.assess_examples == ("012",)
    assert join.as_dict()["by_type"] == {"FEE": {"joined": 1, "ownable": 2}}


def test_fields_that_join_count_distinct_ids_by_the_id_rule():
    cols = pd.DataFrame({"REAL_ID": [12.0, 12.0, 13.0], "TEXT_ID": ["012", "13", "14"],
                         "NAME": ["A", "B", "C"]})
    # REAL_ID: 12.0 is "12" (twice: one id), 13.0 is "13"; TEXT_ID: "012" is not "12"
    assert fields_that_join(cols, ["12", "13", "14"]) == [("REAL_ID", 2), ("TEXT_ID", 2)]
    assert fields_that_join(cols, ["12"], skip=["REAL_ID"]) == []


def test_only_a_field_holding_more_ids_than_join_now_is_advised():
    join = OwnerJoin(joined=2, ownable=4, parcels_field="ID", assess_field="PID")
    parcels = pd.DataFrame({"ID": ["1", "2", "3", "4"], "ML": ["a", "b", "c", "d"],
                            "OLD": ["1", "2", "x", "y"]})
    assess = pd.DataFrame({"PID": ["1", "2", "a", "b", "c"], "GIS": ["1", "2", "3", "x", "y"]})
    found = with_fields_that_join(join, parcels, assess).fields_that_join
    # ML holds a, b, c (3 > 2); assessing GIS holds 1, 2, 3 (3 > 2); OLD holds 1, 2 (not > 2)
    assert found == (FieldThatJoins("parcels", "ML", 3), FieldThatJoins("assess", "GIS", 3))
    assert found[0].as_dict() == {"table": "parcels", "field": "ML", "holds": 3,
                                  "key": "layers.parcels.fields", "name": "id"}

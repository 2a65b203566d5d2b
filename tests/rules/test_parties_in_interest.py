"""M.G.L. c.40A, § 11 parties in interest (swm_gis.rules.parties_in_interest; docs/abutters.md).

A hand-built block in metres (EPSG:26986, 100 ft = 30.48 m, 300 ft = 91.44 m), MassGIS L3 fields:

    y 80..120   NW [-40,0]   N0 [0,40]   N1 [40,80]            north of the street
    y 40..80    ST: a 40 m (131 ft) wide street polygon, POLY_TYPE ROW, x -300..300
    y  0..40    W2 [-200,-100]  W1 [-100,0]  S [0,40]  E1 [40,80]  E2 [80,120]
    y -10..0                               R0 [0,40]  R1 [40,80]  R2 [80,120]
    y -20..-10                             Q0 [0,40]
    y -80..-20                             T0 [0,40]
    y -120..-80                            U0 [0,40]

From the subject S: abutters E1, W1, R0 and R1 (R1 at its corner) at 0 ft; N0 faces S across the
wide street, 40 m = 131.2 ft away: directly opposite, beyond 100 ft; NW and N1 lie diagonally
across (their only common point with S's frontage band is its edge line): not opposite.
Abutters to abutters: Q0 (abuts R0, 10 m = 32.8 ft), E2 (abuts E1, 40 m = 131.2 ft), R2 (abuts
R1 and E1, 40 m); W2 abuts W1 but lies 100 m = 328.1 ft away: beyond 300 ft, left out.
T0 (20 m = 65.6 ft) abuts only Q0, no abutter: listed only because it lies within 100 ft. U0
(80 m = 262.5 ft) abuts only T0: the third row inside 300 ft that is no abutter's abutter: left
out under the statute, listed under a plain 300 ft radius.
"""

from __future__ import annotations

import geopandas as gpd
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import box

from swm_gis.rules.abutters import find_abutters
from swm_gis.rules.parties_in_interest import frontage_strip, parties_in_interest

CRS = "EPSG:26986"
LOTS = {
    "S": (0, 0, 40, 40), "E1": (40, 0, 80, 40), "E2": (80, 0, 120, 40),
    "W1": (-100, 0, 0, 40), "W2": (-200, 0, -100, 40),
    "R0": (0, -10, 40, 0), "R1": (40, -10, 80, 0), "R2": (80, -10, 120, 0),
    "Q0": (0, -20, 40, -10), "T0": (0, -80, 40, -20), "U0": (0, -120, 40, -80),
    "N0": (0, 80, 40, 120), "N1": (40, 80, 80, 120), "NW": (-40, 80, 0, 120),
    "ST": (-300, 40, 300, 80),
}


def _block() -> gpd.GeoDataFrame:
    return gpd.GeoDataFrame(
        {"id": list(LOTS), "poly_type": ["ROW" if k == "ST" else "FEE" for k in LOTS]},
        geometry=[box(*b) for b in LOTS.values()], crs=CRS)


def _relations(out: gpd.GeoDataFrame) -> dict[str, str]:
    return dict(zip(out["id"], out["relation"], strict=True))


def test_the_statutes_list_on_the_block():
    block = _block()
    got = _relations(parties_in_interest(block, block.loc[block["id"] == "S"]))
    assert got == {
        "E1": "within 100 ft; abutter", "W1": "within 100 ft; abutter",
        "R0": "within 100 ft; abutter", "R1": "within 100 ft; abutter",
        "ST": "within 100 ft",
        "Q0": "within 100 ft; abutter to an abutter", "T0": "within 100 ft",
        "E2": "abutter to an abutter", "R2": "abutter to an abutter",
        "N0": "directly opposite",
    }
    # left out under the statute: W2 (an abutter's abutter 328 ft away), U0 (third row, no
    # abutter's abutter), N1 and NW (diagonally across, not directly opposite)
    assert not {"W2", "U0", "N1", "NW"} & set(got)


def test_a_plain_300_ft_radius_lists_the_third_row_and_the_diagonals():
    """An independent geopandas computation: every polygon whose distance to S is <= 91.44 m."""
    block = _block()
    subject = block.loc[block["id"] == "S"]
    dist = block.geometry.distance(subject.geometry.iloc[0])
    expected = set(block.loc[(dist <= 300 * 0.3048) & (block["id"] != "S"), "id"])
    assert expected == {"E1", "E2", "W1", "R0", "R1", "R2", "Q0", "T0", "U0", "N0", "N1", "NW",
                        "ST"}
    assert set(find_abutters(block, subject, distance_ft=300)["id"]) == expected
    zoning = set(parties_in_interest(block, subject)["id"])
    assert expected - zoning == {"U0", "N1", "NW"}  # W2 lies beyond both


def test_the_zoning_list_holds_the_conservation_list():
    block = _block()
    subject = block.loc[block["id"] == "S"]
    within_100 = set(find_abutters(block, subject, distance_ft=100)["id"])
    assert within_100 == {"E1", "W1", "R0", "R1", "ST", "Q0", "T0"}  # T0 at 65.6 ft
    assert within_100 <= set(parties_in_interest(block, subject)["id"])


def test_abutting_reads_a_sliver_within_the_tolerance():
    """E1 drawn 0.5 m (1.6 ft) off S: still an abutter at 3 ft; at 1 ft it is not, and is
    listed as within 100 ft and as an abutter to an abutter (it shares its south side with the
    abutter R1)."""
    block = _block()
    block.loc[block["id"] == "E1", "geometry"] = box(40.5, 0, 80, 40)
    subject = block.loc[block["id"] == "S"]
    assert _relations(parties_in_interest(block, subject))["E1"] == "within 100 ft; abutter"
    tight = _relations(parties_in_interest(block, subject, tolerance_ft=1))
    assert tight["E1"] == "within 100 ft; abutter to an abutter"
    assert tight["R1"] == "within 100 ft; abutter"


def test_the_subject_is_kept_only_when_asked():
    block = _block()
    subject = block.loc[block["id"] == "S"]
    assert "S" not in set(parties_in_interest(block, subject)["id"])
    kept = _relations(parties_in_interest(block, subject, include_subject=True))
    assert kept["S"] == "subject"


def test_the_frontage_band_runs_straight_across_each_frontage():
    """A corner lot (x 0-40, y 0-40) with streets north and east: two bands, 40 m wide, no
    quarter circle round the corner (a lot north-east across both streets is in neither)."""
    streets = shapely.union_all([box(-100, 40, 200, 60), box(40, -100, 60, 60)])
    band = frontage_strip(box(0, 0, 40, 40), streets, tol=0.9144, reach=50)
    assert band.contains(shapely.Point(20, 80)) and band.contains(shapely.Point(80, 20))
    assert not band.contains(shapely.Point(80, 80))


@settings(max_examples=25, deadline=None, derandomize=True)
@given(street_m=st.floats(min_value=8, max_value=80))
def test_directly_opposite_however_wide_the_street(street_m):
    """N0 faces S across a street of any width up to 80 m (262 ft): always directly opposite;
    within 100 ft only while the street is at most 30.48 m wide."""
    lots = {"S": box(0, 0, 40, 40), "ST": box(-300, 40, 300, 40 + street_m),
            "N0": box(0, 40 + street_m, 40, 80 + street_m)}
    block = gpd.GeoDataFrame({"id": list(lots), "poly_type": ["FEE", "ROW", "FEE"]},
                             geometry=list(lots.values()), crs=CRS)
    got = _relations(parties_in_interest(block, block.iloc[[0]]))
    near = street_m <= 30.48
    assert got["N0"] == ("within 100 ft; directly opposite" if near else "directly opposite")


@pytest.mark.parametrize("right_of_way", ["PRIV_ROW", "ROW"])
def test_a_private_way_counts_as_a_street(right_of_way):
    block = _block()
    block.loc[block["id"] == "ST", "poly_type"] = right_of_way
    assert _relations(parties_in_interest(block, block.loc[block["id"] == "S"]))["N0"] == \
        "directly opposite"

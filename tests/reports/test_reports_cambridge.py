"""The notification package's lists and map on real data: Cambridge, MA (data/cambridge.toml).

Cases named in issue 12: condominium 8-61 (168 assessing rows -> 166 recipients, 2 merges, one
pair of likely duplicates at 7 DEBSTON LANE / LN, two foreign owners whose country the record
does not state), 84-86 (an owner with no mailing address), and the map of 84-20 (numbers that
were cut off by the frame; street names from TRANS_Centerlines).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from pypdf import PdfReader
from support.townkit import CAMBRIDGE_CONFIG

from swm_gis.config.town import load_config
from swm_gis.io import layers
from swm_gis.notification.info import PackageInfo
from swm_gis.reports.abutters_map import write_abutters_map
from swm_gis.reports.map_furniture import FRAME
from swm_gis.rules import abutters as core
from swm_gis.rules.owner_join import owned_parcel_ids
from swm_gis.rules.owners import build_recipients, owner_notices


@pytest.fixture(scope="module")
def cfg():
    return load_config(CAMBRIDGE_CONFIG)


def _recipients(cfg, ids):
    assess = layers.read_by_ids(cfg, "assess", "parcel_id", ids)
    return build_recipients(owner_notices(pd.DataFrame({"id": ids}), assess))


def test_condominium_8_61_counts_every_merge_and_flags_the_near_duplicate(cfg):
    mailable, review, counts = _recipients(cfg, ["8-61"])
    assert counts["assessing_rows"] == 168
    # one unit owner's record says "CAMBRIDGE, MS 02141": state and ZIP disagree, so it is
    # reviewed, not mailed (issue 22)
    assert counts["recipients"] == 166 == counts["mailable"] + 1
    assert counts["incomplete_address"] == 1
    [why] = review.loc[review["issue"] == "incomplete_address", "reason"]
    assert why.startswith("state MS and ZIP 02141 disagree (ZIPs 021.. are MA)")
    assert counts["duplicates_removed"] == 2  # one identical row, one same owner and address
    dup = review[review["issue"] == "likely_duplicate"]
    assert sorted(dup["mail_address"]) == ["7 DEBSTON LANE", "7 DEBSTON LN"]
    countries = mailable.set_index("owner_name")["mail_country"]
    assert countries["ALKHALIFA, MAYSA MOHAMED"] == "BAHRAIN"
    assert countries["SASTRAWIDJAJA, DJUNAEDI & FELIANA MULIAN"] == "AUSTRALIA"
    lines = mailable.set_index("owner_name")["address_lines"]
    assert lines["SASTRAWIDJAJA, DJUNAEDI & FELIANA MULIAN"].endswith("\nAUSTRALIA")


def test_84_86_owner_without_address_is_reviewed_not_mailed(cfg):
    mailable, review, counts = _recipients(cfg, ["84-86"])
    assert counts["no_mailing_address"] == 1 and counts["mailable"] == 3
    assert "SCHWAGERL, JOHN C. & TEDI P. HUGHES" not in set(mailable["owner_name"])
    assert review["owner_name"].tolist() == ["SCHWAGERL, JOHN C. & TEDI P. HUGHES"]


def test_streets_layer_reads_the_centerline_names(cfg):
    streets = layers.read_layer(cfg, "streets", bbox=(231_000, 901_000, 232_000, 902_000))
    assert "name" in streets and len(streets) > 10
    assert streets["name"].str.endswith((" St", " Ave", " Rd", " Pl", " Ter", " Way", " Sq",
                                         " Dr", " Ct", " Park", " Ln", " Row", " Hwy", " Pkwy",
                                         " Blvd", " Cir")).mean() > 0.8


def test_map_of_84_20_keeps_every_number_in_the_frame_with_street_names(cfg, tmp_path):
    subject = layers.read_parcels_by_id(cfg, ["84-20"])
    x0, y0, x1, y1 = subject.total_bounds
    reach = 40.0
    candidates = layers.merge_duplicate_ids(layers.read_layer(
        cfg, "parcels", bbox=(x0 - reach, y0 - reach, x1 + reach, y1 + reach)))
    abut = core.find_abutters(candidates, subject, distance_ft=100.0, rules=cfg.rules)
    assess = layers.read_by_ids(cfg, "assess", "parcel_id", list(abut["id"].astype(str)))
    listed, left = core.classify(abut, owned_parcel_ids(assess), rules=cfg.rules)
    listed = listed.assign(map_no=np.arange(1, len(listed) + 1))
    area = core.search_area(subject, distance_ft=100.0)
    streets = layers.read_layer(cfg, "streets", bbox=(x0 - 200, y0 - 200, x1 + 200, y1 + 200))
    info = PackageInfo(town=cfg.name, subject_ids=("84-20",), distance_ft=100.0)
    path = write_abutters_map(subject, area, listed, left, info, tmp_path / "map.pdf",
                              context=candidates, streets=streets,
                              subject_labels={"84-20": "1238 Cambridge St"})
    runs = []

    def visit(text, cm, tm, _font, _size):
        if text.strip():
            runs.append((text.strip(), tm[4] * cm[0] + tm[5] * cm[2] + cm[4],
                         tm[4] * cm[1] + tm[5] * cm[3] + cm[5]))

    PdfReader(path).pages[0].extract_text(visitor_text=visit)
    inside = {t for t, x, y in runs
              if FRAME[0] < x < FRAME[2] and FRAME[1] < y < FRAME[3] and t.isdigit()}
    assert inside >= {str(n) for n in listed["map_no"]}
    text = " ".join(t for t, _x, _y in runs)
    assert "Cambridge St" in text and "SUBJECT 84-20" in text and "1238 Cambridge St" in text

"""swm_gis:publishwebmap on the sample town: the site ``swm-gis publish`` writes, from QGIS."""

from __future__ import annotations

import json

import pytest
from support.plugin_kit import SAMPLE

pytestmark = [pytest.mark.qgis, pytest.mark.slow]


@pytest.fixture
def applicability(sample_demo):
    """The sample town's ``swm-gis applicability`` map, as the session's demo wrote it."""
    return sample_demo.applicability


def _data(site):
    text = (site / "data" / "data.js").read_text(encoding="utf-8")
    return json.loads(text[len("window.SWM_DATA = "):-2])


def test_publishes_the_applicability_map(plugin, applicability, tmp_path):
    import processing
    from support.plugin_kit import recording_feedback

    site = tmp_path / "site"
    fb = recording_feedback()
    r = processing.run("swm_gis:publishwebmap", {
        "TOWN_CONFIG": str(SAMPLE / "town.toml"), "APPLICABILITY": str(applicability),
        "SIMPLIFY_FT": 3.0, "SITE_FOLDER": str(site)}, feedback=fb)
    # issue 35: the log says where the site was written, never "the temporary copy"
    log = " ".join(" ".join(fb.lines).split())
    assert f"open {site / 'index.html'} in a browser" in log
    assert "temporary copy" not in log
    assert r["SITE_FOLDER"] == str(site) and r["INDEX_HTML"] == str(site / "index.html")
    assert r["PARCEL_COUNT"] == 3167
    assert r["SITE_BYTES"] == sum(p.stat().st_size for p in site.rglob("*") if p.is_file())
    record = json.loads((site / "publish.json").read_text(encoding="utf-8"))
    assert record["simplify_ft"] == 3.0 and record["applicability_source"] == "applicability.gpkg"
    data = _data(site)
    assert len(data["cards"]["id"]) == 3167 and data["meta"]["owners_published"] is False
    # the plugin's provenance file is not posted with a public site
    assert not (site / "qgis_inputs.json").exists()


def test_an_input_folder_is_refused_in_dialog_terms(plugin, applicability):
    import processing
    from qgis.core import QgsProcessingException

    with pytest.raises(QgsProcessingException) as err:
        processing.run("swm_gis:publishwebmap", {
            "TOWN_CONFIG": str(SAMPLE / "town.toml"), "APPLICABILITY": str(applicability),
            "SITE_FOLDER": str(applicability.parent)})
    # the plugin's one refusal of an output on an input (issue 26), before the engine runs
    message = str(err.value)
    assert message.startswith("'Web site folder' (")
    assert "writing there would destroy the input" in message
    assert "nothing was written" in message
    assert "--overwrite" not in message

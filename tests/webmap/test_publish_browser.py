"""The published web map in a real browser: Debian's Chromium, headless, driven by Playwright.

Offline (every request logged; anything not ``file://`` aborted and failed), search by address
and by map-lot, the cards' figures against the applicability layer (not-checked cases
included), the legend against the QGIS style stored in the GeoPackage, axe-core's
accessibility check, phone and print layouts, keyboard focus. Screenshots are kept in the
test's tmp folder and, with ``SWM_GIS_ARTEFACTS=DIR``, copied there. Sample town (fast) and
Cambridge (real data, slow).
"""

from __future__ import annotations

import json
import sqlite3

import pyogrio
import pytest
from playwright.sync_api import sync_playwright
from support.publishkit import AXE, Offline, expected_card, keep_screenshot, launch, open_site
from support.townkit import CAMBRIDGE_CONFIG, SAMPLE_CONFIG

import swm_gis
from swm_gis.applicability.write import read_result


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as pw:
        b = launch(pw)
        yield b
        b.close()


def _published(tmp_path_factory, config, name):
    """An applicability GeoPackage of the town and the site published from it."""
    folder = tmp_path_factory.mktemp(name)
    gpkg = folder / "applicability.gpkg"
    swm_gis.applicability_map(swm_gis.load_config(config)).write(gpkg)
    web = swm_gis.publish(config, folder / "site", source=gpkg)
    return gpkg, web


@pytest.fixture(scope="module")
def sample_site(sample_demo, tmp_path_factory):
    """The session demo's applicability map of the sample town and the site published from it."""
    web = swm_gis.publish(SAMPLE_CONFIG, tmp_path_factory.mktemp("publish-sample") / "site",
                          source=sample_demo.applicability)
    return sample_demo.applicability, web


def _ran(gpkg) -> dict[str, bool]:
    checks = pyogrio.read_dataframe(gpkg, layer="applicability_checks", read_geometry=False)
    ran = {r["check"]: bool(r["ran"]) for r in checks.to_dict("records")}
    ran["nhesp"] = ran.get("nhesp_within_distance", ran.get("nhesp_within_500ft", False))
    return ran


def _style_categories(gpkg) -> list[tuple[str, str]]:
    """(class, #rrggbb) of the QGIS style stored in the GeoPackage, in its order."""
    with sqlite3.connect(gpkg) as con:
        qml = con.execute("SELECT styleQML FROM layer_styles WHERE useAsDefault").fetchone()[0]
    from swm_gis.applicability.style import style_classes

    return [(value, c["colour"]) for value, c in style_classes(qml).items()]


def _card_fields(page) -> dict[str, str]:
    return page.eval_on_selector_all(
        "#card [data-field]", "els => Object.fromEntries(els.map(e => [e.dataset.field, "
        "e.textContent]))")


def _sample_rows(frame, n_each=3):
    """Rows covering each kind of value: yes / no / null for the flags, both sizes."""
    picks = {}
    for col in ("nhesp_within_500ft", "nhesp_within_distance", "in_sfha", "drains_to_orw",
                "drains_to_impaired", "can_reach_trigger"):
        if col not in frame:
            continue
        flag = frame[col].astype("boolean")  # a column GDAL read as 0/1 floats too
        for value in (True, False, None):
            mask = flag.isna() if value is None else flag.fillna(not value) == value
            for idx in frame.index[mask.to_numpy(dtype=bool)][:n_each]:
                picks[idx] = True
    return frame.loc[list(picks)]


def _check_cards(page, gpkg, frame, *, distance_ft=500.0) -> int:
    ran = _ran(gpkg)
    checked = 0
    for row in _sample_rows(frame).to_dict("records"):
        page.evaluate("id => { window.location.hash = 'parcel=' + encodeURIComponent(id); }",
                      row["parcel_id"])
        page.wait_for_selector(f"#card[data-parcel=\"{row['parcel_id']}\"]", timeout=10_000)
        shown = _card_fields(page)
        for field, start in expected_card(row, ran=ran, distance_ft=distance_ft).items():
            assert shown[field].startswith(start), (row["parcel_id"], field, shown[field], start)
        checked += 1
    return checked


# --------------------------------------------------------------------------- sample town
def test_sample_site_offline_search_cards_legend(browser, sample_site, tmp_path):
    gpkg, web = sample_site
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    net = Offline(page)
    open_site(page, web.path)
    keep_screenshot(page, tmp_path, "publish-sample-town")
    assert page.locator("h1").inner_text().startswith("Do I need a stormwater permit?")

    frame = read_result(gpkg)
    assess = pyogrio.read_dataframe(swm_gis.load_config(SAMPLE_CONFIG).layer("assess").path,
                                    layer="assess", read_geometry=False)
    # search an address: the card opens on the parcel the assessing table puts it on
    row = assess[assess["SITE_ADDR"].str.strip() != ""].iloc[10]
    page.fill("#search-input", row["SITE_ADDR"].title())  # "301 Quail Ave" finds "301 QUAIL AVE"
    page.press("#search-input", "Enter")
    page.wait_for_selector("#card:not([hidden])")
    assert page.get_attribute("#card", "data-parcel") == row["LOC_ID"]
    assert page.evaluate("document.activeElement.id") == "card"
    assert page.evaluate("window.location.hash") == f"#parcel={row['LOC_ID']}"
    keep_screenshot(page, tmp_path, "publish-sample-card")
    # search a map-lot: "2-017" lists that parcel first
    target = frame[frame["map_par_id"].notna()].iloc[40]
    page.fill("#search-input", target["map_par_id"])
    page.wait_for_selector("#search-results .result")
    page.click("#search-results .result >> nth=0")
    assert page.get_attribute("#card", "data-parcel") == target["parcel_id"]
    assert page.inner_text("[data-field=map_lot]") == target["map_par_id"]

    # a click on the map opens the card of the parcel under it
    page.click("#card-close")
    assert page.is_hidden("#card")
    point = page.evaluate("""id => {
        const p = window.SWM_DATA.parcels.find(q => q.id === id);
        const map = window.SWM_APP.map;
        map.setView(p.p, 19, {animate: false});
        const c = map.latLngToContainerPoint(p.p);
        const box = document.getElementById('map').getBoundingClientRect();
        return [box.left + c.x, box.top + c.y];
    }""", target["parcel_id"])
    page.mouse.click(*point)
    page.wait_for_selector(f"#card[data-parcel=\"{target['parcel_id']}\"]")
    keep_screenshot(page, tmp_path, "publish-sample-click")
    # the cards' figures are the applicability layer's, null cases included
    assert _check_cards(page, gpkg, frame) >= 10
    # the legend: the QGIS style's classes, in its order and colours
    shown = page.eval_on_selector_all(
        "#legend-list .legend-item", "els => els.map(e => [e.dataset.class, "
        "e.querySelector('.swatch').dataset.colour])")
    assert [tuple(s) for s in shown] == _style_categories(gpkg)
    assert net.off_machine == [] and net.errors == []
    assert all(u.startswith("file://") for u in net.urls) and len(net.urls) >= 6


@pytest.mark.slow  # axe-core's run and three pages: about 8 s
def test_sample_site_accessibility_phone_print_keyboard(browser, sample_site, tmp_path):
    gpkg, web = sample_site
    # axe-core is injected by the test (the page's policy allows only its own scripts)
    context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    page = context.new_page()
    net = Offline(page)
    frame = read_result(gpkg)
    nh = next(c for c in ("nhesp_within_distance", "nhesp_within_500ft") if c in frame)
    pid = frame[frame[nh].isna()].iloc[0]["parcel_id"]
    open_site(page, web.path, f"#parcel={pid}")
    assert page.get_attribute("#card", "data-parcel") == pid
    page.evaluate(AXE.read_text(encoding="utf-8"))
    result = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    bad = [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3])
           for v in result["violations"] if v["impact"] in ("serious", "critical")]
    assert bad == [], json.dumps(bad)
    # print: the card and its notes, not the map or the search
    page.emulate_media(media="print")
    assert page.is_visible("#card") and not page.is_visible("#map")
    assert not page.is_visible("#search-input")
    page.emulate_media(media="screen")
    # keyboard, on a fresh page: the skip link first, then the search box; Enter on a
    # map-lot opens its card and moves the focus to it
    page = context.new_page()
    net3 = Offline(page)
    open_site(page, web.path)
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "skip-link"
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "search-input"
    target = frame[frame["map_par_id"].notna()].iloc[0]
    page.keyboard.type(target["map_par_id"])
    page.keyboard.press("Enter")
    page.wait_for_selector(f"#card[data-parcel=\"{target['parcel_id']}\"]")
    assert page.evaluate("document.activeElement.id") == "card"
    context.close()

    phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                                has_touch=True, device_scale_factor=2)
    page = phone.new_page()
    net2 = Offline(page)
    open_site(page, web.path, f"#parcel={pid}")
    # nothing wider than the phone's screen; the map and the card both on the page
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.is_visible("#map") and page.is_visible("#card")
    box = page.locator("#map").bounding_box()
    assert box["width"] >= 380 and box["height"] >= 300
    keep_screenshot(page, tmp_path, "publish-sample-phone", full_page=True)
    phone.close()
    assert net.off_machine == net2.off_machine == net3.off_machine == []


# --------------------------------------------------------------------------- Cambridge
@pytest.mark.slow
def test_cambridge_site(browser, tmp_path_factory, tmp_path):
    gpkg, web = _published(tmp_path_factory, CAMBRIDGE_CONFIG, "publish-cambridge")
    assert web.parcels == 13_035
    assert web.size_bytes < 15_000_000
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    net = Offline(page)
    open_site(page, web.path)
    keep_screenshot(page, tmp_path, "publish-cambridge")
    frame = read_result(gpkg)
    # map-lot search (Cambridge's ML) and an address of the FY2025 assessing sample
    page.fill("#search-input", "145-29")
    page.press("#search-input", "Enter")
    page.wait_for_selector("#card[data-parcel='145-29']")
    assert page.inner_text("[data-field=address]") == "4-6 Kirkland Pl"
    page.fill("#search-input", "4-6 kirkland place")
    page.wait_for_selector("#search-results .result")
    assert page.get_attribute("#search-results .result >> nth=0", "data-parcel") == "145-29"
    keep_screenshot(page, tmp_path, "publish-cambridge-card")
    # every check but the floodplain is "not checked" in Cambridge's data: said so on cards
    assert _check_cards(page, gpkg, frame) >= 6
    assert page.inner_text("[data-field=orw]").startswith("Not checked")
    shown = page.eval_on_selector_all("#legend-list .legend-item", "els => els.map(e => "
                                      "e.dataset.class)")
    assert shown == [c for c, _ in _style_categories(gpkg)]
    assert net.off_machine == [] and net.errors == []


def test_an_old_map_file_and_untraced_drainage(browser, sample_site, tmp_path):
    """A map written before issue 23 (column ``nhesp_within_500ft``) still publishes, and drainage
    flags that are null where the trace leaves the town's data read so on the cards, never
    "No"."""
    import shutil

    gpkg, _web = sample_site
    assert "nhesp_within_distance" in read_result(gpkg)  # what the map writes now
    renamed = tmp_path / "applicability_before_issue23.gpkg"
    shutil.copy2(gpkg, renamed)
    with sqlite3.connect(renamed) as con:
        # the GeoPackage's R-tree triggers call SpatiaLite functions plain sqlite3 lacks; the
        # geometries are not changed, so the index stays right without them
        for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'"
                                   ).fetchall():
            con.execute(f'DROP TRIGGER "{name}"')
        con.execute('ALTER TABLE applicability RENAME COLUMN nhesp_within_distance '
                    'TO nhesp_within_500ft')
        con.execute("UPDATE applicability_checks SET \"check\" = 'nhesp_within_500ft' "
                    "WHERE \"check\" = 'nhesp_within_distance'")
        con.execute("UPDATE applicability SET drains_to_orw = NULL, drains_to_impaired = NULL "
                    "WHERE fid % 7 = 0")
    web = swm_gis.publish(SAMPLE_CONFIG, tmp_path / "site", source=renamed)
    frame = read_result(renamed)
    assert "nhesp_within_distance" in frame and frame["drains_to_orw"].isna().sum() > 100
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    net = Offline(page)
    open_site(page, web.path)
    assert _check_cards(page, renamed, frame) >= 10
    # a parcel whose trace left the data before it met either kind of water (the map can also
    # say 1 for impaired waters met before the trace left, with the ORW flag null)
    both = frame["drains_to_orw"].isna() & frame["drains_to_impaired"].isna()
    untraced = frame[both].iloc[0]["parcel_id"]
    page.evaluate("id => { window.location.hash = 'parcel=' + encodeURIComponent(id); }",
                  untraced)
    page.wait_for_selector(f"#card[data-parcel=\"{untraced}\"]")
    for field in ("orw", "impaired"):
        assert page.inner_text(f"[data-field={field}]").startswith(
            "Not determined: the trace leaves the town's data")
        assert page.get_attribute(f"[data-field={field}]", "data-status") == "not_determined"
    keep_screenshot(page, tmp_path, "publish-sample-untraced")
    assert net.off_machine == [] and net.errors == []


@pytest.mark.slow  # a second site and page: about 6 s
def test_owners_on_the_card_only_with_the_towns_opt_in(browser, sample_site, tmp_path):
    import shutil

    gpkg, web = sample_site
    town = tmp_path / "town"
    shutil.copytree(SAMPLE_CONFIG.parent, town)
    toml = town / "town.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + "\n[publish]\ninclude_owners = true\n",
                    encoding="utf-8")
    opted = swm_gis.publish(toml, tmp_path / "site", source=gpkg)
    assess = pyogrio.read_dataframe(town / "sample.gpkg", layer="assess", read_geometry=False)
    row = assess.iloc[0]
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    net = Offline(page)
    for site, shown in ((opted.path, True), (web.path, False)):
        open_site(page, site, f"#parcel={row['LOC_ID']}")
        assert page.get_attribute("#card", "data-parcel") == row["LOC_ID"]
        owners = page.locator("[data-field=owners]")
        if shown:
            assert row["OWNER1"] in owners.inner_text()
            assert row["OWN_ADDR"] in owners.inner_text()
        else:
            assert owners.count() == 0
            assert row["OWNER1"] not in page.inner_text("body")
            assert "Owner names and mailing addresses are not published" in page.inner_text(
                "#about-body")
    assert net.off_machine == []

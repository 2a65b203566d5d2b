"""The published web map in a real browser: Debian's Chromium, headless, driven by Playwright.

Offline (every request logged; anything not ``file://`` aborted and failed), search by address
and by map-lot, the cards' figures against the applicability layer (not-checked cases
included), the map key against the QGIS style stored in the GeoPackage, axe-core's
accessibility check, phone and print layouts, keyboard focus. Screenshots are kept in the
test's tmp folder and, with ``SWM_GIS_ARTEFACTS=DIR``, copied there. Sample town (fast) and
Cambridge (real data, slow).
"""

from __future__ import annotations

import csv
import json
import random
import sqlite3

import pyogrio
import pytest
from playwright.sync_api import sync_playwright
from support.publishkit import AXE, Offline, expected_card, keep_screenshot, launch, open_site
from support.townkit import CAMBRIDGE_CONFIG, REPO, SAMPLE_CONFIG

import swm_gis
from swm_gis.applicability.write import read_result
from swm_gis.webmap.search import address_key, map_lot_keys, split_number


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


def _style_key(gpkg) -> list[tuple[str, str, str]]:
    """(kind, key, colour) of the map key the QGIS style stored in the GeoPackage draws: its
    rules' entries, in its order (a colour per fill; a mark's and the outline's ink)."""
    with sqlite3.connect(gpkg) as con:
        qml = con.execute("SELECT styleQML FROM layer_styles WHERE useAsDefault").fetchone()[0]
    from swm_gis.applicability.palette import key_entries
    from swm_gis.applicability.style import style_classes

    return [(e["kind"], e["key"], e["colour"]) for e in key_entries(list(style_classes(qml)))]


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


def _listed(page, query, *, selector="#search-results .result"):
    """(parcel, text) of each button listed for the query (typed as a visitor types it)."""
    if query is not None:
        page.fill("#search-input", query)
    return [(p, t.split(" (")[0]) for p, t in page.eval_on_selector_all(
        selector, "els => els.map(e => [e.dataset.parcel, e.textContent])")]


def _first(page, query):
    found = _listed(page, query)
    assert found, (query, page.inner_text("#search-status"))
    return found[0]


# --------------------------------------------------------------------------- sample town
@pytest.fixture(scope="module")
def ranged_sample(sample_demo, tmp_path_factory):
    """The sample town with two of its site addresses written as number ranges (the sample
    has none; towns write "301-305 Quail Ave" for a building on several numbers), published
    from the session demo's map, and the assessing table as published."""
    import shutil

    town = tmp_path_factory.mktemp("ranged-town")
    shutil.copytree(SAMPLE_CONFIG.parent, town, dirs_exist_ok=True)
    assess = pyogrio.read_dataframe(town / "sample.gpkg", layer="assess", read_geometry=False)
    one = assess[~assess["SITE_ADDR"].duplicated(keep=False)]
    picks = one.iloc[[10, 200]]
    with sqlite3.connect(town / "sample.gpkg") as con:
        for (_, row), gap in zip(picks.iterrows(), (4, 10), strict=True):
            number, rest = row["SITE_ADDR"].split(" ", 1)
            con.execute("UPDATE assess SET SITE_ADDR = ? WHERE SITE_ADDR = ?",
                        (f"{number}-{int(number) + gap} {rest}", row["SITE_ADDR"]))
    web = swm_gis.publish(town / "town.toml", town / "site", source=sample_demo.applicability)
    assess = pyogrio.read_dataframe(town / "sample.gpkg", layer="assess", read_geometry=False)
    return web, assess, picks


def test_sample_search_finds_what_people_type(browser, ranged_sample, sample_demo, tmp_path):
    web, assess, picks = ranged_sample
    frame = read_result(sample_demo.applicability)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    net = Offline(page)
    open_site(page, web.path)
    on_map = set(frame["parcel_id"])
    addressed = len(set(assess.loc[assess["SITE_ADDR"].str.strip() != "", "LOC_ID"]) & on_map)
    assert 0 < addressed < len(frame)
    assert page.inner_text("#search-count") == (
        f"{addressed:,} of {len(frame):,} parcels have a site address in the town's data; "
        "click the map for the others.")
    # a number inside a range, typed with the suffix spelt out, in lower case, with a full stop
    row = picks.iloc[0]
    number, rest = row["SITE_ADDR"].split(" ", 1)  # e.g. "301", "QUAIL AVE"
    ranged = f"{number}-{int(number) + 4} {rest}"
    long_suffix = {"AVE": "Avenue", "ST": "Street", "RD": "Road", "DR": "Drive", "LN": "Lane",
                   "WAY": "Way"}
    words = rest.split()
    spelt = " ".join([*words[:-1], long_suffix.get(words[-1], words[-1])]).lower()
    # a number inside the range that no other address of the street has
    on_street = assess["SITE_ADDR"].str.split(" ", n=1).str[1] == rest
    numbers = set(assess.loc[on_street, "SITE_ADDR"].str.extract(r"^(\d+)")[0].astype(int))
    inside = [n for n in range(int(number) + 1, int(number) + 5) if n not in numbers]
    assert inside, ranged
    for typed in (f"{inside[0]} {spelt}", f"{number} {rest.title()}."):
        assert _first(page, typed) == (row["LOC_ID"], ranged), typed
    page.press("#search-input", "Enter")
    page.wait_for_selector(f"#card[data-parcel='{row['LOC_ID']}']")
    # and the other way: the table's short suffix found by the long one, and by itself
    words = assess["SITE_ADDR"].str.split()
    other = assess[(words.str[-1] == "AVE") & (words.str.len() == 3)
                   & words.str[0].str.isdigit()
                   & ~assess["SITE_ADDR"].duplicated(keep=False)].iloc[3]
    assert _first(page, other["SITE_ADDR"].replace(" AVE", " Avenue")) == (
        other["LOC_ID"], other["SITE_ADDR"])
    # a map-lot with a dash, a space, padded or not, or nothing between its parts
    lot = frame[frame["map_par_id"].notna()
                & ~frame["map_par_id"].duplicated(keep=False)].iloc[40]
    ml = lot["map_par_id"]  # e.g. "2-017"
    head, tail = ml.split("-")
    for typed in (ml, f"{head} {tail}", f"{head} {int(tail)}", f"{head}-{int(tail)}"):
        assert _first(page, typed) == (lot["parcel_id"], ml), typed
    assert (lot["parcel_id"], ml) in _listed(page, f"{head}{tail}")
    # a near match: one letter of the street dropped
    misspelt = f"{other['SITE_ADDR'].split()[0]} {other['SITE_ADDR'].split()[1][:-1]} Ave"
    page.fill("#search-input", misspelt)
    assert "Did you mean" in page.inner_text("#search-status")
    assert _listed(page, None, selector="#search-results .suggestion")[0] == (
        other["LOC_ID"], other["SITE_ADDR"])
    keep_screenshot(page, tmp_path, "publish-sample-did-you-mean")
    assert net.off_machine == [] and net.errors == []


def test_the_page_writes_a_query_as_the_index_writes_an_address(browser, ranged_sample):
    """assets/search.js repeats swm_gis.webmap.search for the query: every address and
    map-lot of the sample town, and random strings of what people type, get the same keys."""
    web, assess, _ = ranged_sample
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    open_site(page, web.path)
    rng = random.Random(38)
    alphabet = "0123456789 -./#',&ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
    texts = [*assess["SITE_ADDR"].dropna(), *assess["LOC_ID"].dropna(),
             "1218-28 Cambridge St", "22-22 1/2 Sherman St", "O'Brien Hwy", "4 Canal Pk.",
             "84 - 020", "Smith-Jones Road", "  12   Main  ", "",
             *("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 24)))
               for _ in range(400))]
    shown = page.evaluate("""texts => texts.map(t => {
        const s = window.SWM_APP.search, k = s.addressKey(t);
        return [k, s.splitNumber(k), s.lotKeys(t)];
    })""", texts)
    for text, (key, number, lot) in zip(texts, shown, strict=True):
        assert key == address_key(text), text
        assert tuple(number) == split_number(key), text
        assert tuple(lot) == map_lot_keys(text), text


def test_phone_search_first_and_the_map_fits_the_screen(browser, sample_site, tmp_path):
    _gpkg, web = sample_site
    phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                                has_touch=True, device_scale_factor=2)
    page = phone.new_page()
    net = Offline(page)
    open_site(page, web.path)
    search = page.locator("#search-input").bounding_box()
    box = page.locator("#map").bounding_box()
    # the search on the first screen, above the map; the map no wider or taller than the screen
    assert search["y"] + search["height"] <= 844 and search["y"] < box["y"]
    assert 300 <= box["height"] <= 844 and box["width"] <= 390
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    # a search opens the card between the search and the map
    page.fill("#search-input", page.evaluate("window.SWM_DATA.cards.ml.find(Boolean)"))
    page.press("#search-input", "Enter")
    page.wait_for_selector("#card:not([hidden])")
    # top of each on the page (not on the screen: opening the card scrolled to it)
    tops = page.evaluate("""() => ['#search-input', '#card', '#map'].map(
        s => document.querySelector(s).getBoundingClientRect().top + window.scrollY)""")
    assert tops[0] < tops[1] < tops[2]
    keep_screenshot(page, tmp_path, "publish-sample-phone-search", full_page=True)
    phone.close()
    assert net.off_machine == [] and net.errors == []


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
        const p = window.SWM_APP.labelPoint(id);
        const map = window.SWM_APP.map;
        map.setView(p, 19, {animate: false});
        const c = map.latLngToContainerPoint(p);
        const box = document.getElementById('map').getBoundingClientRect();
        return [box.left + c.x, box.top + c.y];
    }""", target["parcel_id"])
    page.mouse.click(*point)
    page.wait_for_selector(f"#card[data-parcel=\"{target['parcel_id']}\"]")
    keep_screenshot(page, tmp_path, "publish-sample-click")
    # the cards' figures are the applicability layer's, null cases included
    assert _check_cards(page, gpkg, frame) >= 10
    # the key: the entries the stored QGIS style's classes use, in the package's colours
    shown = page.eval_on_selector_all(
        "#legend-list .legend-item", "els => els.map(e => [e.dataset.kind, e.dataset.key, "
        "e.dataset.colour])")
    assert [tuple(s) for s in shown] == _style_key(gpkg)
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
CAMBRIDGE_CSV = REPO.parent / "shared" / "data" / "cambridge" / \
    "ASSESSING_PropertyDatabase_FY2025.csv"


def _check_cambridge_search(page, frame, tmp_path):
    """Each form of issue 38 on Cambridge's real data; the parcels expected are read from the
    FY2025 assessing sample (the address's GISID) and the map (its map-lots)."""
    with CAMBRIDGE_CSV.open(encoding="utf-8-sig") as f:
        rows = list(csv.DictReader(f))
    gisid = {r["Address"]: r["GISID"] for r in rows}
    on_map = set(frame["parcel_id"])
    # "535 of 13,035": the parcels of the map that the sample gives an address
    addressed = len({r["GISID"] for r in rows if r["Address"].strip()} & on_map)
    assert page.inner_text("#search-count") == (
        f"{addressed:,} of {len(frame):,} parcels have a site address in the town's data; "
        "click the map for the others.")
    # a number inside a range: "1218 Cambridge St" is "1218-1228 Cambridge St"
    range_parcel = gisid["1218-1228 Cambridge St"]
    assert _first(page, "1218 Cambridge St") == (range_parcel, "1218-1228 Cambridge St")
    assert _first(page, "1218") == (range_parcel, "1218-1228 Cambridge St")
    assert _first(page, "1222 cambridge street") == (range_parcel, "1218-1228 Cambridge St")
    # Publication 28 both ways: "Park" finds "Pk", "Place" finds "Pl"
    assert _first(page, "4 Canal Park") == (gisid["4 Canal Pk"], "4 Canal Pk")
    assert _first(page, "4-6 KIRKLAND PLACE.") == (gisid["4-6 Kirkland Pl"], "4-6 Kirkland Pl")
    # a map-lot with a space, a dash or nothing between its parts
    assert "84-20" in on_map
    for typed in ("84 20", "84-20", "84 - 020"):
        assert _first(page, typed) == ("84-20", "84-20"), typed
    assert ("84-20", "84-20") in _listed(page, "8420")
    # near matches: a misspelt street offers its addresses, the nearest number first
    page.fill("#search-input", "1219 Cambrige St")
    assert page.inner_text("#search-status").startswith('No parcel matches "1219 Cambrige St". '
                                                        "Did you mean")
    near = _listed(page, None, selector="#search-results .suggestion")
    assert near[0] == (range_parcel, "1218-1228 Cambridge St")
    assert all(text.endswith("Cambridge St") for _, text in near)
    keep_screenshot(page, tmp_path, "publish-cambridge-did-you-mean")
    page.click("#search-results .suggestion >> nth=0")
    page.wait_for_selector(f"#card[data-parcel='{range_parcel}']")


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
    _check_cambridge_search(page, frame, tmp_path)
    # every check but the floodplain is "not checked" in Cambridge's data: said so on cards
    assert _check_cards(page, gpkg, frame) >= 6
    assert page.inner_text("[data-field=orw]").startswith("Not checked")
    shown = page.eval_on_selector_all("#legend-list .legend-item", "els => els.map(e => "
                                      "[e.dataset.kind, e.dataset.key, e.dataset.colour])")
    assert [tuple(s) for s in shown] == _style_key(gpkg)
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


def test_the_page_decodes_the_shapes_python_encoded(browser, sample_site):
    """assets/shapes.js reads data.js's varint stream as swm_gis.webmap.encode.decode_shapes
    does: every parcel's rings (every vertex) and label point, and each context layer."""
    import numpy as np

    from swm_gis.webmap import encode

    _gpkg, web = sample_site
    data = json.loads((web.path / "data" / "data.js").read_text(encoding="utf-8")
                      [len("window.SWM_DATA = "):-2])
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    open_site(page, web.path)
    shown = page.evaluate("""() => {
        const D = window.SWM_DATA, S = window.SWM_SHAPES;
        const flat = l => l.shapes.map((rings, i) => [l.labels[i],
            rings ? rings.map(r => Array.from(r)) : []]);
        const out = {parcels: flat(S.decode(D.shapes, D.cards.id.length, D.quant, true))};
        for (const k of Object.keys(D.context)) {
            out[k] = flat(S.decode(D.context[k].shapes, D.context[k].n, D.quant, false));
        }
        return out;
    }""")
    layers = {"parcels": (data["shapes"], len(data["cards"]["id"]), True),
              **{k: (v["shapes"], v["n"], False) for k, v in data["context"].items()}}
    assert set(shown) == set(layers) and len(layers) >= 3
    for key, (text, count, labels) in layers.items():
        expected = encode.decode_shapes(text, count, labels=labels)
        assert len(shown[key]) == count
        for (label, rings), (js_label, js_rings) in zip(expected, shown[key], strict=True):
            assert (label is None) == (js_label is None) if labels else js_label is None
            if label is not None:
                assert js_label == pytest.approx(list(label), abs=1e-12)
            assert len(js_rings) == len(rings)
            for ring, js_ring in zip(rings, js_rings, strict=True):
                assert np.allclose(np.asarray(js_ring).reshape(-1, 2), ring, rtol=0,
                                   atol=1e-12), key

"""Issue 38: one map key in every town and every output.

The sample town and Cambridge (real data) are published; for every class the two towns share,
the colour and patterns are the same in the QGIS style stored with each applicability map, the
web map's key (read from the page, and its swatches' pixels in Chromium) and the printed map
(``applicability_map.pdf``, rendered by pdftoppm and its key's swatches read). axe-core finds no
serious violation on either page; screenshots are kept (``SWM_GIS_ARTEFACTS=DIR`` to copy them).
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import sync_playwright
from support.keykit import pattern_name, pattern_seen
from support.publishkit import AXE, Offline, keep_screenshot, launch, open_site
from support.townkit import CAMBRIDGE_CONFIG, SAMPLE_CONFIG

import swm_gis
from swm_gis.applicability.palette import class_look, fill_colours
from swm_gis.applicability.style import style_classes
from swm_gis.applicability.write import read_result
from swm_gis.webmap.print_map import PAGE_H, key_layout

DPI = 300


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as pw:
        b = launch(pw)
        yield b
        b.close()


@pytest.fixture(scope="module")
def towns(sample_demo, tmp_path_factory):
    """name -> (applicability GeoPackage, published site) for the sample town and Cambridge."""
    folder = tmp_path_factory.mktemp("legend-cambridge")
    gpkg = folder / "applicability.gpkg"
    swm_gis.applicability_map(swm_gis.load_config(CAMBRIDGE_CONFIG)).write(gpkg)
    sample = tmp_path_factory.mktemp("legend-sample") / "site"
    return {"sample": (sample_demo.applicability,
                       swm_gis.publish(SAMPLE_CONFIG, sample, source=sample_demo.applicability)),
            "cambridge": (gpkg, swm_gis.publish(CAMBRIDGE_CONFIG, folder / "site",
                                                source=gpkg))}


def _qgis_looks(gpkg: Path) -> dict[str, tuple]:
    with sqlite3.connect(gpkg) as con:
        qml = con.execute("SELECT styleQML FROM layer_styles WHERE useAsDefault").fetchone()[0]
    return {c: (v["colour"], tuple(v["patterns"]), v["large"])
            for c, v in style_classes(qml).items()}


def _web_looks(page) -> tuple[dict[str, tuple], list[dict]]:
    """Each class's look as the page holds it, and the key as the page lists it (with the
    colour of a pixel in the middle of each colour swatch, as Chromium drew it)."""
    meta = page.evaluate("window.SWM_DATA.meta")
    patterns = {e["key"]: ("dots" if e["pattern"]["kind"] == "dots"
                           else f"lines:{e['pattern']['angle']:g}")
                for e in meta["key"] if e["kind"] == "mark"}
    looks = {e["value"]: (e["colour"], tuple(patterns[m] for m in e["marks"]), e["large"])
             for e in meta["legend"]}
    shown = page.eval_on_selector_all("#legend-list .legend-item", """els => els.map(e => {
        const c = e.querySelector('canvas'), g = c.getContext('2d');
        const px = g.getImageData(c.width / 2, c.height / 2, 1, 1).data;
        return {kind: e.dataset.kind, key: e.dataset.key, colour: e.dataset.colour,
                pattern: e.dataset.pattern,
                pixel: '#' + [px[0], px[1], px[2]].map(v => v.toString(16).padStart(2, '0')
                                                               .toUpperCase()).join('')};
    })""")
    return looks, shown


def _render_pdf(pdf: Path, prefix: Path) -> np.ndarray:
    from matplotlib.image import imread

    subprocess.run(["pdftoppm", "-png", "-r", str(DPI), "-singlefile", str(pdf), str(prefix)],
                   check=True)
    return (imread(str(prefix) + ".png")[..., :3] * 255).round().astype(int)


def _swatch(image: np.ndarray, box: tuple[float, ...]) -> np.ndarray:
    """The pixels inside a key swatch (points from the bottom left), 3 px in from its edge."""
    x, y, w, h = (v * DPI / 72 for v in box)
    top = PAGE_H * DPI / 72 - (y + h)
    return image[int(top) + 3:int(top + h) - 3, int(x) + 3:int(x + w) - 3]


def _pdf_key(site: Path, key: list[dict], tmp_path: Path, name: str) -> dict[tuple, str]:
    """(kind, key) -> what the printed key shows: a fill's colour, a mark's pattern."""
    image = _render_pdf(site / "applicability_map.pdf", tmp_path / name)
    folder = os.environ.get("SWM_GIS_ARTEFACTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        shutil.copy2(str(tmp_path / name) + ".png", Path(folder) / f"{name}.png")
    out = {}
    for e, box in key_layout(key):
        crop = _swatch(image, box)
        if e["kind"] == "fill":
            colour = np.median(crop.reshape(-1, 3), axis=0).astype(int)
            out[("fill", e["key"])] = "#" + "".join(f"{v:02X}" for v in colour)
        elif e["kind"] == "mark":
            out[("mark", e["key"])] = pattern_seen(crop, int(round(0.7 / 25.4 * DPI)))
    return out


@pytest.mark.slow  # Cambridge's applicability map, two sites and two PDF renders: about 40 s
def test_two_towns_draw_every_common_class_alike_everywhere(browser, towns, tmp_path):
    qgis, web, pdf = {}, {}, {}
    for name, (gpkg, site) in towns.items():
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        net = Offline(page)
        open_site(page, site.path)
        keep_screenshot(page, tmp_path, f"legend-{name}")
        page.locator("#legend-title").scroll_into_view_if_needed()
        keep_screenshot(page, tmp_path, f"legend-{name}-key", full_page=True)
        looks, shown = _web_looks(page)
        assert net.off_machine == [] and net.errors == []
        page.close()
        classes = set(read_result(gpkg)["screening_class"])
        qgis[name], web[name] = _qgis_looks(gpkg), looks
        assert set(qgis[name]) == set(web[name]) == classes
        # the page lists the key it was given, each colour swatch drawn in its colour
        assert [(s["kind"], s["key"]) for s in shown] == [(e["kind"], e["key"])
                                                          for e in site.key]
        for s in shown:
            if s["kind"] == "fill":
                assert s["pixel"] == s["colour"] == fill_colours()[s["key"]], s
            if s["kind"] == "mark":
                assert s["pattern"] == pattern_name(s["key"]), s
        # the printed key: the same entries, the same colours and patterns on paper
        printed = _pdf_key(site.path, site.key, tmp_path, f"legend-{name}-pdf")
        for (kind, key), seen in printed.items():
            want = fill_colours()[key] if kind == "fill" else pattern_name(key)
            if kind == "fill":
                assert max(abs(int(seen[i:i + 2], 16) - int(want[i:i + 2], 16))
                           for i in (1, 3, 5)) <= 2, (name, key, seen, want)
            else:
                assert seen == want, (name, key, seen, want)
        pdf[name] = {e["key"] for e in site.key if e["kind"] == "fill"}
        assert len(site.key) <= 12 < len(classes) + 6
        for cls, look in looks.items():  # every output draws a class by the same look
            assert qgis[name][cls] == look, cls
    common = set(web["sample"]) & set(web["cambridge"])
    # by name the towns share only the right-of-way class: Cambridge's parcels all say "NHESP,
    # ORW, impaired waters, HUC not checked" (it has none of those layers), the sample's never
    # leave out all four
    assert common == {"right-of-way"}
    for cls in common:
        assert web["sample"][cls] == web["cambridge"][cls] == qgis["sample"][cls] == \
            qgis["cambridge"][cls] == (fill_colours()["right-of-way"], (), False)
    # what the classes are drawn with is shared: the colour of "not every check ran", the
    # not-checked hatch, the right-of-way grey and the large-parcel outline are the same
    # entries, in the same colour, pattern and words, in both towns
    sample_key = {(e["kind"], e["key"]): e for e in towns["sample"][1].key}
    shared = [e for e in towns["cambridge"][1].key if (e["kind"], e["key"]) in sample_key]
    assert {(e["kind"], e["key"]) for e in shared} == {
        ("fill", "not-checked"), ("fill", "right-of-way"), ("mark", "not-checked"),
        ("outline", "large")}
    for e in shared:
        other = sample_key[(e["kind"], e["key"])]
        assert (e["colour"], e["pattern"]) == (other["colour"], other["pattern"])
        assert e["label"] == other["label"]
    # and a class of one town drawn in the other would look the same: every look is the
    # package's, never the order a town's classes came in
    for cls, look in web["cambridge"].items():
        assert look == (fill_colours()[class_look(cls).fill],
                        tuple(pattern_name(m) for m in class_look(cls).marks),
                        class_look(cls).large)
    assert pdf["cambridge"] <= set(fill_colours())


@pytest.mark.slow  # axe-core on two pages: about 10 s
def test_both_pages_have_no_serious_accessibility_violation(browser, towns, tmp_path):
    for name, (gpkg, site) in towns.items():
        context = browser.new_context(viewport={"width": 1280, "height": 900},
                                      bypass_csp=True)  # axe is injected by the test
        page = context.new_page()
        net = Offline(page)
        pid = read_result(gpkg)["parcel_id"].iloc[5]
        open_site(page, site.path, f"#parcel={pid}")
        assert page.inner_text("[data-field=class]").startswith("Map key ")
        page.evaluate(AXE.read_text(encoding="utf-8"))
        result = page.evaluate("async () => await axe.run(document, "
                               "{resultTypes: ['violations']})")
        bad = [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3])
               for v in result["violations"] if v["impact"] in ("serious", "critical")]
        assert bad == [], json.dumps(bad)
        keep_screenshot(page, tmp_path, f"legend-{name}-card")
        assert net.off_machine == []
        context.close()

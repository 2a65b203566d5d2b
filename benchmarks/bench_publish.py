"""Benchmark (not a test): the public web map of Cambridge (13,035 parcels) in headless Chromium.

Writes Cambridge's applicability map (once, under benchmarks/out/), publishes it with
``swm_gis.publish`` (timed) and reports the site's size, then opens the page from ``file://`` in
Debian's Chromium through Playwright several times and measures

* render: from navigation to the page's ready mark (every parcel drawn, legend and search
  built; ``window.SWM_TIMING.ready_ms``, the page's own clock) and the wall time to the first
  frame painted after it;
* search: typing an address, then a map-lot, and submitting: the time from submit to the
  card rendered and the next two animation frames painted (the search itself, the map moved to
  the parcel and redrawn, the card written).

    .venv/bin/python benchmarks/bench_publish.py [--runs 5] [--simplify-ft 1.5]

Every request is checked to be file:// (offline). Figures go to stdout and
benchmarks/out/bench_publish.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
OUT = HERE / "out" / "publish"
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO))

SEARCH_JS = """async (q) => {
  const input = document.getElementById('search-input');
  input.value = q;
  input.dispatchEvent(new Event('input'));
  const t0 = performance.now();
  document.getElementById('search-form').requestSubmit();
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  return {ms: performance.now() - t0, parcel: document.getElementById('card').dataset.parcel};
}"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--simplify-ft", type=float, default=None)
    args = ap.parse_args()

    from playwright.sync_api import sync_playwright
    from publishkit import Offline, launch

    import swm_gis

    config = REPO / "data" / "cambridge.toml"
    OUT.mkdir(parents=True, exist_ok=True)
    gpkg = OUT / "cambridge_applicability.gpkg"
    if not gpkg.exists():
        swm_gis.applicability_map(config, gpkg)
    t = time.perf_counter()
    web = swm_gis.publish(config, OUT / "site", source=gpkg, overwrite=True,
                          simplify_ft=args.simplify_ft)
    publish_s = time.perf_counter() - t
    sizes = {k: p.stat().st_size for k, p in web.files.items()}
    print(f"published {web.parcels:,} parcels in {publish_s:.2f} s; site "
          f"{web.size_bytes / 1e6:.2f} MB (data.js {sizes['data/data.js'] / 1e6:.2f} MB), "
          f"simplified by {web.simplify_ft:g} ft")

    ready, first_paint, search_addr, search_ml = [], [], [], []
    with sync_playwright() as pw:
        browser = launch(pw)
        for _ in range(args.runs):
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            net = Offline(page)
            t = time.perf_counter()
            page.goto((web.path / "index.html").as_uri())
            page.wait_for_selector("html[data-ready=true]", timeout=120_000)
            page.evaluate("() => new Promise(r => requestAnimationFrame(r))")
            first_paint.append(time.perf_counter() - t)
            ready.append(page.evaluate("window.SWM_TIMING.ready_ms") / 1000)
            a = page.evaluate(SEARCH_JS, "4-6 Kirkland Pl")
            m = page.evaluate(SEARCH_JS, "118-86")
            assert a["parcel"] == "145-29", a
            assert m["parcel"] == "118-86", m
            search_addr.append(a["ms"] / 1000)
            search_ml.append(m["ms"] / 1000)
            assert net.off_machine == [], net.off_machine
            page.close()
        browser.close()

    def fig(values):
        return {"median_s": round(statistics.median(values), 3), "best_s": round(min(values), 3),
                "runs": len(values)}

    result = {"parcels": web.parcels, "site_bytes": web.size_bytes, "files": sizes,
              "simplify_ft": web.simplify_ft, "publish_s": round(publish_s, 2),
              "render_ready": fig(ready), "render_first_paint_wall": fig(first_paint),
              "search_address": fig(search_addr), "search_map_lot": fig(search_ml)}
    for key in ("render_ready", "render_first_paint_wall", "search_address", "search_map_lot"):
        print(f"{key:24s} median {result[key]['median_s']:.3f} s, best {result[key]['best_s']:.3f}"
              f" s ({args.runs} runs)")
    (OUT.parent / "bench_publish.json").write_text(json.dumps(result, indent=2) + "\n",
                                                   encoding="utf-8")


if __name__ == "__main__":
    main()

"""Benchmark (not a test): the public web map of Cambridge (13,035 parcels) in headless Chromium.

Writes Cambridge's applicability map (once, under benchmarks/out/), publishes it with
``swm_gis.publish`` (timed) and reports the site's size, then opens the page from ``file://`` in
Debian's Chromium through Playwright several times and measures

* render: from navigation to the page's ready mark (every parcel drawn, legend and search
  built; ``window.SWM_TIMING.ready_ms``, the page's own clock), the browser's first
  contentful paint (Paint Timing API) and the wall time to the first frame painted after the
  ready mark;
* search: typing each query of issue 38 (a number inside a range, "Park" for "Pk", a map-lot
  with a space) and submitting: the time from submit to the card rendered and the next two
  animation frames painted (the search itself, the map moved to the parcel and redrawn, the
  card written).

Each run is a cold load: a new browser context (no cache, no compiled code kept from the run
before). Figures are the median and best of the runs, beside the site's size.

    .venv/bin/python benchmarks/bench_publish.py [--runs 5] [--simplify-ft 1.5]
    .venv/bin/python benchmarks/bench_publish.py --smoke   # the sample town, one run

Every request is checked to be file:// (offline). Figures go to stdout and
benchmarks/out/bench_publish.json. ``--smoke`` does the same for the repository's SYNTHETIC
sample town (data/sample, 3,167 parcels; Cambridge's layers live outside the repository) in a
temporary folder, once, searching an address and a map-lot picked from the sample's own tables;
without Chromium or Playwright it publishes and checks the site, and skips the browser with a
note.
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
sys.path.insert(0, str(REPO / "tests" / "support"))
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

import smoke  # noqa: E402

CAMBRIDGE = REPO / "data" / "cambridge.toml"
#: (query, the parcel its card must show): issue 38's searches on Cambridge ("1218" is in
#: "1218-1228 Cambridge St", "Park" is "Pk", "84 20" is map-lot 84-20)
CAMBRIDGE_QUERIES = (("1218 Cambridge St", "84-20"), ("4 Canal Park", "8-61"),
                     ("84 20", "84-20"))
SAMPLE = REPO / "data" / "sample" / "town.toml"

FCP_JS = """() => {
  const e = performance.getEntriesByName('first-contentful-paint')[0];
  return e ? e.startTime : NaN;
}"""
SEARCH_JS = """async (q) => {
  const input = document.getElementById('search-input');
  input.value = q;
  input.dispatchEvent(new Event('input'));
  const t0 = performance.now();
  document.getElementById('search-form').requestSubmit();
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  return {ms: performance.now() - t0, parcel: document.getElementById('card').dataset.parcel};
}"""


def sample_queries(gpkg: Path) -> tuple[tuple[str, str], tuple[str, str]]:
    """An address and a map-lot of the sample town that each name one parcel, with its id,
    read from the sample's own tables (not from the site)."""
    import pyogrio

    from swm_gis.webmap.search import address_key as _norm  # the index's key of an address

    parcels = pyogrio.read_dataframe(gpkg, layer="parcels", columns=["LOC_ID", "MAP_PAR_ID"],
                                     read_geometry=False)
    assess = pyogrio.read_dataframe(gpkg, layer="assess", columns=["LOC_ID", "SITE_ADDR"],
                                    read_geometry=False).dropna().drop_duplicates()
    assess = assess[assess["LOC_ID"].isin(parcels["LOC_ID"])]
    keys = assess["SITE_ADDR"].map(_norm)
    one = assess[~keys.duplicated(keep=False) & (keys != "")]
    address = one.iloc[len(one) // 2]
    taken = set(keys) | {_norm(v) for v in parcels["LOC_ID"]}
    ml = parcels[~parcels["MAP_PAR_ID"].duplicated(keep=False)
                 & ~parcels["MAP_PAR_ID"].map(_norm).isin(taken)
                 & (parcels["LOC_ID"] != address["LOC_ID"])]
    lot = ml.iloc[len(ml) // 3]
    return (str(address["SITE_ADDR"]), str(address["LOC_ID"])), (str(lot["MAP_PAR_ID"]),
                                                                  str(lot["LOC_ID"]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--simplify-ft", type=float, default=None)
    smoke.add_option(ap)
    args = ap.parse_args()

    import swm_gis

    config, queries, name = CAMBRIDGE, CAMBRIDGE_QUERIES, "cambridge"
    out_dir, out_json = OUT, OUT.parent / "bench_publish.json"
    if args.smoke:
        out_dir, args.runs, config, name = smoke.workspace("publish"), 1, SAMPLE, "sample"
        out_json = out_dir / "bench_publish.json"
        queries = sample_queries(SAMPLE.parent / "sample.gpkg")
        print(f"smoke: the sample town; searching {queries}", flush=True)
    out_dir.mkdir(parents=True, exist_ok=True)
    gpkg = out_dir / f"{name}_applicability.gpkg"
    if not gpkg.exists():
        swm_gis.applicability_map(config, gpkg)
    t = time.perf_counter()
    web = swm_gis.publish(config, out_dir / "site", source=gpkg, overwrite=True,
                          simplify_ft=args.simplify_ft)
    publish_s = time.perf_counter() - t
    sizes = {k: p.stat().st_size for k, p in web.files.items()}
    print(f"published {web.parcels:,} parcels in {publish_s:.2f} s; site "
          f"{web.size_bytes / 1e6:.2f} MB (data.js {sizes['data/data.js'] / 1e6:.2f} MB), "
          f"simplified by {web.simplify_ft:g} ft")
    if args.smoke:
        import pyogrio

        rows = int(pyogrio.read_info(gpkg, layer="applicability")["features"])
        smoke.check(web.parcels == rows and sizes["data/data.js"] > 0
                    and (web.path / "index.html").is_file(),
                    f"the site holds the map's {rows} parcels")
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            smoke.skip("the browser runs: Playwright is not installed (pip install -e '.[all]')")
            return
        if not Path("/usr/bin/chromium").is_file():
            smoke.skip("the browser runs: Debian's chromium is not installed "
                       "(apt-get install chromium)")
            return

    from playwright.sync_api import sync_playwright
    from publishkit import Offline, launch

    ready, fcp, first_paint = [], [], []
    searches: dict[str, list[float]] = {q: [] for q, _ in queries}
    with sync_playwright() as pw:
        browser = launch(pw)
        for _ in range(args.runs):
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            page = context.new_page()
            net = Offline(page)
            t = time.perf_counter()
            page.goto((web.path / "index.html").as_uri())
            page.wait_for_selector("html[data-ready=true]", timeout=120_000)
            page.evaluate("() => new Promise(r => requestAnimationFrame(r))")
            first_paint.append(time.perf_counter() - t)
            ready.append(page.evaluate("window.SWM_TIMING.ready_ms") / 1000)
            fcp.append(page.evaluate(FCP_JS) / 1000)
            for q, want in queries:
                got = page.evaluate(SEARCH_JS, q)
                if got["parcel"] != want:
                    raise SystemExit(f"search {q!r} showed {got['parcel']} (not {want})")
                searches[q].append(got["ms"] / 1000)
            if net.off_machine or (args.smoke and net.errors):
                raise SystemExit(f"requests off the machine {net.off_machine}, page errors "
                                 f"{net.errors}")
            context.close()
        browser.close()

    def fig(values):
        return {"median_s": round(statistics.median(values), 3), "best_s": round(min(values), 3),
                "runs": len(values)}

    result = {"parcels": web.parcels, "site_bytes": web.size_bytes, "files": sizes,
              "simplify_ft": web.simplify_ft, "publish_s": round(publish_s, 2),
              "render_ready": fig(ready), "first_contentful_paint": fig(fcp),
              "render_first_paint_wall": fig(first_paint),
              "search_to_card": {q: fig(v) for q, v in searches.items()}}
    for key in ("render_ready", "first_contentful_paint", "render_first_paint_wall"):
        print(f"{key:24s} median {result[key]['median_s']:.3f} s, best {result[key]['best_s']:.3f}"
              f" s ({args.runs} runs; site {web.size_bytes / 1e6:.2f} MB)")
    for q, f in result["search_to_card"].items():
        print(f"search {q!r:22s} median {f['median_s']:.3f} s, best {f['best_s']:.3f} s")
    if args.smoke:
        smoke.check(True, f"searches {', '.join(repr(q) for q, _ in queries)} open their cards, "
                          "offline, no page errors")
    out_json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

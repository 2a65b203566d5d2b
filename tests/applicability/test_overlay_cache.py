"""The town-wide map's prepared overlays kept between runs (swm_gis.applicability.overlay_cache).

The map is the same GeoPackage byte for byte with the cache off, cold and warm, in process and
on two workers (which then map the entry's files); a reference layer changed on disk, a changed
rule or a damaged entry is prepared again; ``--no-cache`` keeps nothing; ``cache info`` counts
the entries and ``cache clear`` removes them. Correctness only: timings live in
benchmarks/README.md.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import shapely
from support.clockkit import frozen
from support.hostile import edit, run, sample_copy

from swm_gis.applicability import overlay_cache
from swm_gis.applicability import parallel as par
from swm_gis.applicability.overlays import Overlays, Pieces
from swm_gis.applicability.tiles import parcel_extent
from swm_gis.cli import main
from swm_gis.config.town import load_config
from swm_gis.io import source_cache

REPO = Path(__file__).resolve().parents[2]


# --------------------------------------------------------------------------- helpers
class Builds:
    """Counts :meth:`Overlays.build` (the preparation the cache saves) in this process, and
    what the workers were given to load (:func:`overlay_cache.shareable`'s answers)."""

    def __init__(self, mp: pytest.MonkeyPatch):
        self.count, self.shared = 0, []
        real = Overlays.build.__func__
        real_share = overlay_cache.shareable

        def build(cls, **kwargs):
            self.count += 1
            return real(cls, **kwargs)

        def shareable(overlays, folder):
            answer = real_share(overlays, folder)
            self.shared.append(type(answer).__name__)
            return answer

        mp.setattr(Overlays, "build", classmethod(build))
        mp.setattr(overlay_cache, "shareable", shareable)


def entry_files(cache: Path) -> list[str]:
    folder = source_cache.sources_folder(cache) / overlay_cache.FOLDER
    return sorted(p.suffix for p in folder.iterdir()) if folder.is_dir() else []


@pytest.fixture
def town(tmp_path, monkeypatch) -> Path:
    """A copy of the sample town with a cache folder of its own."""
    monkeypatch.setenv("SWM_GIS_CACHE_DIR", str(tmp_path / "cache"))
    return sample_copy(tmp_path)


def map_of(town: Path, out: Path, *extra: str, capsys=None) -> bytes:
    with frozen():
        code = main(["--progress", "none", "applicability", "-c", str(town), "-o", str(out),
                     "--overwrite", *extra])
    assert code == 0
    return out.read_bytes()


# --------------------------------------------------------------------------- the same file
@pytest.mark.parametrize("args", [["--workers", "1"], ["--workers", "2", "--chunk-size", "500"]],
                         ids=["in-process", "two-workers"])
def test_the_map_is_the_same_file_off_cold_and_warm(town, tmp_path, monkeypatch, args):
    """Off (prepared, nothing kept), cold (prepared and kept), warm (loaded: no preparation):
    one GeoPackage byte for byte (its checks table and summaries included). The sample town's
    3,167 parcels in tiles of 500 make 9 tiles (8 spatial and the duplicated id's), so the
    second case runs a pool of two workers; warm, they load the entry's linked files."""
    builds = Builds(monkeypatch)
    cache = tmp_path / "cache"
    off = map_of(town, tmp_path / "off.gpkg", *args, "--no-cache")
    assert builds.count == 1 and entry_files(cache) == []  # --no-cache: nothing kept
    cold = map_of(town, tmp_path / "cold.gpkg", *args)
    assert builds.count == 2
    assert entry_files(cache) == [".arrays", ".json", ".lock", ".pickle"]
    warm = map_of(town, tmp_path / "warm.gpkg", *args)
    assert builds.count == 2  # warm: loaded, not prepared
    assert cold == off and warm == off
    if "2" in args:
        # off: the overlays pickled; cold: made and kept, and linked; warm: linked
        assert builds.shared == ["Overlays", "FromEntry", "FromEntry"]


def test_the_api_s_checks_and_summary_are_the_same_warm(town, tmp_path):
    """What the parent keeps beside the tiles (the checks, the summary with the HUC12 names,
    the outside class) is the same warm as cold."""
    from swm_gis.applicability import run as ap

    cfg = load_config(town)
    with source_cache.using(cfg):
        cold = ap.classify_town(cfg)
        warm = ap.classify_town(cfg)
    assert warm.checks == cold.checks and len(cold.checks) == 7
    assert warm.summary.equals(cold.summary)
    assert warm.frame.drop(columns="geometry").equals(cold.frame.drop(columns="geometry"))
    assert list(shapely.to_wkb(warm.frame.geometry.values)) == \
        list(shapely.to_wkb(cold.frame.geometry.values))


# --------------------------------------------------------------------------- what rebuilds
def test_a_reference_layer_touched_on_disk_is_prepared_again(town, tmp_path, monkeypatch):
    """The sample's layers share one GeoPackage: a new modification time (same size, same
    content) is a changed source, so the overlays are prepared again; the map is the
    --no-cache run's (the checks table prints the sources' new time)."""
    builds = Builds(monkeypatch)
    map_of(town, tmp_path / "a.gpkg")
    gpkg = town.parent / "sample.gpkg"
    st = gpkg.stat()
    os.utime(gpkg, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    again = map_of(town, tmp_path / "b.gpkg")
    assert builds.count == 2
    assert again == map_of(town, tmp_path / "off.gpkg", "--no-cache")
    assert map_of(town, tmp_path / "c.gpkg") == again and builds.count == 3  # kept again


def test_a_reference_layer_with_new_content_is_read_again(town, tmp_path, monkeypatch):
    """Every flood zone deleted from the GeoPackage (new content and size): the warm run reads
    the layer again and writes the --no-cache run's file, which differs from the first map (no
    parcel is in the SFHA any more)."""
    builds = Builds(monkeypatch)
    first = map_of(town, tmp_path / "a.gpkg")
    with sqlite3.connect(town.parent / "sample.gpkg") as db:
        zones = db.execute("SELECT count(*) FROM flood_zones").fetchone()[0]
        db.execute("DELETE FROM flood_zones")
    db.close()
    assert zones > 0
    again = map_of(town, tmp_path / "b.gpkg")
    assert builds.count == 2
    assert again == map_of(town, tmp_path / "off.gpkg", "--no-cache")
    assert again != first


def test_a_changed_rule_prepares_again(town, tmp_path, monkeypatch):
    """``[rules] habitat_distance_ft`` widens the habitat layers' read (the search grows to
    1,500 ft): the entry is prepared again and the map is the --no-cache run's."""
    builds = Builds(monkeypatch)
    map_of(town, tmp_path / "a.gpkg")
    text = town.read_text(encoding="utf-8")
    assert "[rules]" not in text
    town.write_text(text + "\n[rules]\nhabitat_distance_ft = 1500\n", encoding="utf-8")
    wider = map_of(town, tmp_path / "b.gpkg")
    assert builds.count == 2
    assert wider == map_of(town, tmp_path / "off.gpkg", "--no-cache")


@pytest.mark.parametrize("damage", ["truncate", "flip", "sidecar", "missing"])
def test_a_damaged_entry_is_prepared_again_never_trusted(town, tmp_path, monkeypatch, damage,
                                                         caplog):
    """A truncated pickle, one byte changed (same size), a sidecar that does not parse, or a
    pickle gone: prepared again, the same map, and the entry whole again."""
    builds = Builds(monkeypatch)
    first = map_of(town, tmp_path / "a.gpkg")
    folder = source_cache.sources_folder(tmp_path / "cache") / overlay_cache.FOLDER
    (pickled,) = folder.glob("*.pickle")
    good = pickled.read_bytes()
    if damage == "truncate":
        pickled.write_bytes(good[: len(good) // 2])
    elif damage == "flip":
        pickled.write_bytes(good[:-1] + bytes([good[-1] ^ 0xFF]))
    elif damage == "sidecar":
        pickled.with_suffix(".json").write_text("{not json", encoding="utf-8")
    else:
        pickled.unlink()
    caplog.set_level("DEBUG", logger="swm_gis.applicability.overlay_cache")
    assert map_of(town, tmp_path / "b.gpkg") == first
    assert builds.count == 2
    assert pickled.read_bytes() == good  # rebuilt: the same bytes again
    if damage != "missing":
        assert any("rebuild" in r.message for r in caplog.records)


def test_damaged_arrays_are_prepared_again(town, tmp_path):
    """An entry whose arrays file (the out-of-band arrays of 64 KiB or more) has one byte
    changed is prepared again. Pieces of 10,000 points with an order of 10,000 int64 put three
    arrays in the arrays file: the points' WKB lengths (80,000 bytes), their WKB (21 bytes
    each: 210,000) and the order (80,000, at 290,048: each array starts 64-byte aligned)."""
    cfg = load_config(town)
    extent = parcel_extent(cfg)[0]
    n = 10_000
    made = []

    def build():
        made.append(1)
        pieces = Pieces(shapely.points(np.arange(n), np.zeros(n)), np.zeros(n, dtype=object),
                        order=np.arange(n)[::-1].copy())
        return overlay_cache.Prepared(Overlays(habitats=pieces), {"nhesp": "x"})

    with source_cache.using(cfg):
        first = overlay_cache.prepared(cfg, extent, build)
        loaded = overlay_cache.prepared(cfg, extent, build)
        assert len(made) == 1 and loaded.entry is not None
        arrays = Path(f"{loaded.entry.base}.arrays")
        assert arrays.stat().st_size == 80_000 + 210_000 + 48 + 80_000
        assert np.array_equal(loaded.overlays.habitats.order, first.overlays.habitats.order)
        data = bytearray(arrays.read_bytes())
        assert int.from_bytes(data[290_048 + 8:290_048 + 16], "little") == n - 2
        data[290_048 + 8] ^= 0xFF  # the order's second value, 9,998, now other
        arrays.write_bytes(bytes(data))
        again = overlay_cache.prepared(cfg, extent, build)
    assert len(made) == 2
    assert again.overlays.habitats.order[1] == n - 2
    assert again.bases == {"nhesp": "x"}


def test_the_workers_get_the_overlays_pickled_when_the_entry_changed(town, tmp_path):
    """Overlays loaded from an entry that is rebuilt before the workers start (another run
    with other layers) are pickled for the workers as before, never read from the new entry."""
    cfg = load_config(town)
    extent = parcel_extent(cfg)[0]

    def build(value):
        return lambda: overlay_cache.Prepared(Overlays(huc12_names={"1": value}), {})

    with source_cache.using(cfg):
        overlay_cache.prepared(cfg, extent, build("a"))
        done = overlay_cache.prepared(cfg, extent, build("b"))  # loaded: "a"
        ours = done.for_run(drainage=None, checks=[{"name": "x"}], outside="out")
        spool = tmp_path / "spool"
        spool.mkdir()
        linked = overlay_cache.shareable(ours, str(spool))
        assert isinstance(linked, overlay_cache.FromEntry)
        worker = par._loaded(par.share_overlays(ours, str(tmp_path / "spool")))
        assert worker.huc12_names == {"1": "a"} and worker.checks == [{"name": "x"}]
        assert worker.outside == "out"
        # the entry rewritten in place (a new file under its name)
        base = done.entry.base
        shutil.copyfile(f"{base}.pickle", f"{base}.new")
        os.replace(f"{base}.new", f"{base}.pickle")
        later = tmp_path / "later"
        later.mkdir()
        assert overlay_cache.shareable(ours, str(later)) is ours
        assert sorted(p.name for p in later.iterdir()) == []


# --------------------------------------------------------------------------- the commands
def test_cache_info_counts_and_clear_removes_the_overlays(town, tmp_path, capsys):
    cache = tmp_path / "cache"
    map_of(town, tmp_path / "a.gpkg")
    capsys.readouterr()
    code, shown = run(["cache", "info"], capsys)
    assert code == 0 and "prepared overlays\t1" in shown, shown
    side = json.loads(next((source_cache.sources_folder(cache) / "overlays").glob("*.json"))
                      .read_text(encoding="utf-8"))
    assert set(side["counts"]) == {"habitats", "sfha", "huc12", "huc10"}
    code, shown = run(["cache", "clear"], capsys)
    assert code == 0 and "1 set(s) of prepared overlays" in shown, shown
    assert entry_files(cache) == []
    code, shown = run(["cache", "info"], capsys)
    assert "prepared overlays\t0" in shown


def test_a_rule_in_the_config_is_in_the_key(town):
    """The key names the rules, the extent and each reference layer's files; a town with a
    layer that is a front end's temporary copy or not a local file has none (nothing kept)."""
    cfg = load_config(town)
    key = overlay_cache.cache_key(cfg, (0.0, 0.0, 1.0, 1.0))
    assert key["extent"] == [0.0, 0.0, 1.0, 1.0] and key["rules"]["habitat_distance_ft"] == 500
    assert set(key["layers"]) == {"nhesp_priority", "nhesp_estimated", "vernal_pools",
                                  "flood_zones", "huc12", "huc10", "town_boundary"}
    text = town.read_text(encoding="utf-8")
    edit(town, 'path = "sample.gpkg"\nlayer = "huc12"',
         'path = "sample.gpkg"\nlayer = "huc12"\ntemporary = true\nlabel = "QGIS layer"')
    assert overlay_cache.cache_key(load_config(town), None) is None  # a new copy each run
    town.write_text(text, encoding="utf-8")
    edit(town, 'path = "sample.gpkg"\nlayer = "flood_zones"',
         'path = "PG:dbname=nowhere"\nlayer = "flood_zones"')
    assert overlay_cache.cache_key(load_config(town), None) is None


def test_the_key_is_the_same_in_every_process(town):
    """A field mapping is a set of names in the config (its order changes with each process's
    string hashing): two processes with other hash seeds give one key, equal to this one after
    a JSON round trip (as the sidecar holds it)."""
    edit(town, 'path = "sample.gpkg"\nlayer = "flood_zones"',
         'path = "sample.gpkg"\nlayer = "flood_zones"\nfields = {zone = "FLD_ZONE", '
         'subtype = "ZONE_SUBTY", sfha = "SFHA_TF", bfe = "STATIC_BFE"}')
    cfg = load_config(town)
    assert len(cfg.layer("flood_zones").explicit_fields) == 4
    code = ("import json, sys; from swm_gis.config.town import load_config; "
            "from swm_gis.applicability.overlay_cache import cache_key; "
            "print(json.dumps(cache_key(load_config(sys.argv[1]), (0, 0, 1, 1))))")
    keys = []
    for seed in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(REPO)}
        out = subprocess.run([sys.executable, "-c", code, str(town)], env=env, check=True,
                             capture_output=True, text=True).stdout
        keys.append(json.loads(out))
    here = json.loads(json.dumps(overlay_cache.cache_key(cfg, (0, 0, 1, 1))))
    assert keys[0] == keys[1] == keys[2] == here
    assert keys[0]["layers"]["flood_zones"]["spec"]["explicit_fields"] == \
        ["bfe", "sfha", "subtype", "zone"]

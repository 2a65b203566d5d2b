"""``swm-gis cache ...``: what the local cache holds (parsed sources, flow grids); emptying it."""

from __future__ import annotations

from pathlib import Path

import typer

from swm_gis.cli._common import app, emit_lines

cache_app = typer.Typer(
    help="The local cache: the town's sources as parsed, the town-wide map's prepared "
         "overlays, and its flow grids (same answers without it, only slower).",
    no_args_is_help=True)
app.add_typer(cache_app, name="cache")


def _config_option() -> Path | None:
    return typer.Option(None, "--config", "-c", exists=True, dir_okay=False, metavar="TOML",
                        help="Town config whose [cache] dir to use; default: SWM_GIS_CACHE_DIR, "
                             "else the user's cache folder.")


def _root(config: Path | None) -> Path | None:
    from swm_gis.io import source_cache

    if config is None:
        return source_cache.env_root()
    from swm_gis.cli._common import open_config

    return source_cache.cache_root(open_config(config))


@cache_app.command("info")
def info(config: Path = _config_option()) -> None:
    """Print the cache folder, its entries (parsed sources, prepared overlays, duplicate-id
    scans, flow grids) and their size.

    Example: swm-gis cache info
    """
    from swm_gis.applicability import id_scan_cache, overlay_cache
    from swm_gis.io import source_cache

    root = _root(config)
    if root is None:
        emit_lines("cache info", ["The cache is off ([cache] enabled = false or "
                                  "SWM_GIS_CACHE_DIR=off)."], folder=None, sources=0,
                   overlays=0, duplicate_scans=0, flow_grids=0, bytes=0)
        return
    sources = source_cache.entries(root)
    overlays = overlay_cache.entries(root)
    scans = id_scan_cache.entries(root)
    grids = [p for p in root.glob("flowgrid-v*/*") if p.is_dir()]
    size = sum(f.stat().st_size for f in root.rglob("*") if f.is_file()) if root.is_dir() else 0
    lines = [f"folder\t{root}", f"sources\t{len(sources)}",
             f"prepared overlays\t{len(overlays)}", f"duplicate-id scans\t{scans}",
             f"flow grids\t{len(grids)}",
             f"size\t{size / 1e6:.1f} MB"]
    lines += [f"source\t{e['source']}" + (f"|layername={e['layer']}" if e["layer"] else "")
              + f"\t{e['rows'] if e['rows'] is not None else '-'} rows\t{e['bytes']:,} bytes"
              for e in sources]
    emit_lines("cache info", lines, folder=str(root), sources=len(sources),
               overlays=len(overlays), duplicate_scans=scans, flow_grids=len(grids),
               bytes=size)


@cache_app.command("clear")
def clear(config: Path = _config_option()) -> None:
    """Delete every entry of the cache (parsed sources, prepared overlays, duplicate-id scans
    and flow grids); the next run of each job reads and computes them again.

    Example: swm-gis cache clear
    """
    from swm_gis.applicability import id_scan_cache, overlay_cache
    from swm_gis.io import source_cache
    from swm_gis.terrain import cache as flowgrid_cache

    root = _root(config)
    if root is None or not root.is_dir():
        emit_lines("cache clear", ["Nothing to clear" + (f" in {root}." if root else
                                                          " (the cache is off).")],
                   sources=0, overlays=0, duplicate_scans=0, flow_grids=0)
        return
    overlays = len(overlay_cache.entries(root))  # in the sources folder: cleared with it
    scans = id_scan_cache.entries(root)  # so are these
    sources = source_cache.clear(root)
    grids = flowgrid_cache.clear(root)
    emit_lines("cache clear",
               [f"Cleared {root}: {sources} parsed source(s), {overlays} set(s) of prepared "
                f"overlays, {scans} duplicate-id scan(s), {grids} flow grid(s)."],
               sources=sources, overlays=overlays, duplicate_scans=scans, flow_grids=grids)

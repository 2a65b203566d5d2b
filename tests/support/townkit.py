"""Test helpers: small towns built by hand in tmp_path (`from townkit import write_town`)."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import geopandas as gpd

REPO = Path(__file__).resolve().parents[2]
CAMBRIDGE_CONFIG = REPO / "data" / "cambridge.toml"
SAMPLE_CONFIG = REPO / "data" / "sample" / "town.toml"
CRS = "EPSG:26986"


#: The [town] line of a town that states all of its land drains to its MS4.
ALL_MS4 = "all_land_drains_to_ms4 = true\n"


def write_town(tmp_path: Path, layers: dict[str, gpd.GeoDataFrame], *, name: str = "Testtown",
               extra: str = "", crs: str = CRS, town_extra: str = "",
               regulation: str | None = "lynnfield-ch320") -> Path:
    """Write each layer to tmp_path/town.gpkg and a town.toml pointing at them; return the toml.

    ``town_extra`` is added to ``[town]`` (e.g. ``all_land_drains_to_ms4 = true``). The town names
    ``regulation`` (``[town] regulation``; None: names none, so its outputs carry the
    ``regulation_not_named`` warning)."""
    gpkg = tmp_path / "town.gpkg"
    named = f'regulation = "{regulation}"\n' if regulation else ""
    lines = [f'[town]\nname = "{name}"\ncrs = "{crs}"\n{named}{town_extra}']
    for key, frame in layers.items():
        frame.to_file(gpkg, layer=key, driver="GPKG")
        lines.append(f'[layers.{key}]\npath = "town.gpkg"\nlayer = "{key}"\n')
    toml = tmp_path / "town.toml"
    toml.write_text("\n".join(lines) + extra, encoding="utf-8")
    return toml


def sample_town_naming(folder: Path, regulation: str | None) -> Path:
    """The sample town's config copied into ``folder`` with absolute paths, naming
    ``regulation`` (a bundled id or a profile file; None: no ``regulation`` key at all)."""
    text = SAMPLE_CONFIG.read_text(encoding="utf-8")
    text = re.sub(r'path = "([^"]+)"',
                  lambda m: f'path = "{(SAMPLE_CONFIG.parent / m[1]).as_posix()}"', text)
    text = re.sub(r'regulation = "[^"]+"\n', "" if regulation is None
                  else f'regulation = "{regulation}"\n', text)
    out = folder / "town.toml"
    out.write_text(text, encoding="utf-8")
    return out


def with_layer(config: Any, key: str, **changes: Any) -> Any:
    """The town config with layer ``key``'s spec changed (``temporary=True``, ``path=...``),
    the config itself untouched."""
    layers = dict(config.layers)
    layers[key] = replace(config.layer(key), **changes)
    return replace(config, layers=layers)

"""The screening map: site, 100 ft and 500 ft rings, habitats, flood zones, flow path, HUC lines.

Rendered offline with matplotlib's Agg canvas (no pyplot state, no web tiles), north arrow, scale
bar in feet and a legend listing only what is drawn. Layers are the ``screening.gpkg`` layers
(README "Commands"); whichever are present are drawn and missing ones are simply absent. Layer names
are recognised with a few aliases, since the screening checks name their own layers.

The rings are drawn for the reader's orientation only; every distance in the report comes from
exact geometry in the screening checks, never from these rings.
"""

from __future__ import annotations

import io
import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import geopandas as gpd
import shapely

from swm_gis.config.town import SFHA_ZONES
from swm_gis.errors import CrsError
from swm_gis.units import M_PER_FT, metres_per_unit

# The Agg canvas is used directly (not pyplot), so rendering is headless and offline and never
# touches the process-wide matplotlib backend. A second, system-wide matplotlib (Debian's QGIS
# brings one) makes matplotlib warn that its 3-D axes cannot load; the map has none.
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Unable to import Axes3D")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.colors import to_rgba
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch, Polygon

__all__ = ["MapImage", "find_layer", "render_screening_map"]


class _DrawOnceCanvas(FigureCanvasAgg):
    """An Agg canvas that renders only when the map is saved.

    GeoPandas' ``plot`` asks the canvas to redraw after every layer (``draw_idle``), which on Agg
    renders the whole figure each time: 18 full renders, about 1 s, for one map.
    """

    def draw_idle(self, *args, **kwargs) -> None:
        pass


#: Logical map layer -> accepted ``screening.gpkg`` layer names, first match wins.
ALIASES: dict[str, tuple[str, ...]] = {
    "site": ("site", "disturbance", "limit_of_disturbance"),
    "parcels": ("subject_parcels", "parcels", "subject"),
    "common_plan": ("common_plan",),
    "buffers": ("buffers", "rings"),
    "habitats": ("habitats",),
    "nhesp_priority": ("nhesp_priority", "priority_habitats"),
    "nhesp_estimated": ("nhesp_estimated", "estimated_habitats"),
    "vernal_pools": ("vernal_pools", "certified_vernal_pools"),
    "flood_zones": ("flood_zones", "floodplain", "flood"),
    "waterbodies": ("waterbodies",),
    "streams": ("streams",),
    "flow_path": ("flow_path", "flowpath", "flow_paths"),
    "orw": ("orw", "receiving_orw"),
    "impaired_waters": ("impaired_waters", "impaired", "receiving_impaired"),
    "receiving_waters": ("receiving_waters",),
    "huc12": ("huc12",),
    "huc10": ("huc10",),
    "watersheds": ("watersheds", "hucs", "huc_boundaries"),
    "mitigation": ("mitigation", "mitigation_sites"),
    # context for orientation (the config's layers read around the site)
    "context_parcels": ("context_parcels", "parcels_around", "town_parcels"),
    "streets": ("streets", "street_centerlines"),
}

_STYLE = {
    "site": dict(facecolor="#d62728", alpha=0.18, edgecolor="#b00000", linewidth=2.0),
    "parcels": dict(facecolor="none", edgecolor="#555555", linewidth=0.8, linestyle=":"),
    "common_plan": dict(facecolor="none", edgecolor="#b00000", linewidth=1.0,
                        linestyle=(0, (1, 1.5))),
    "ring100": dict(color="#333333", linewidth=1.2, linestyle=(0, (4, 2))),
    "ring500": dict(color="#e67e00", linewidth=1.4, linestyle=(0, (7, 3))),
    "sfha": dict(facecolor="#3a7bd5", alpha=0.35, edgecolor="#1f4e9c", linewidth=0.6),
    "shaded_x": dict(facecolor="#a9cdf5", alpha=0.35, edgecolor="#6b9bd1", linewidth=0.4,
                     hatch="...."),
    "priority": dict(facecolor="#2ca02c", alpha=0.25, edgecolor="#1b6e1b", linewidth=1.0,
                     hatch="///"),
    "estimated": dict(facecolor="#9467bd", alpha=0.22, edgecolor="#5e3c8a", linewidth=1.0,
                      hatch="\\\\\\"),
    "vernal_pool": dict(color="#008080", markersize=60, marker="o", edgecolor="white"),
    "waterbodies": dict(facecolor="#bfe3ff", edgecolor="#4a90d9", linewidth=0.6),
    "streams": dict(color="#1f77b4", linewidth=1.3),
    "flow_path": dict(color="#e0007a", linewidth=2.0, linestyle=(0, (5, 2))),
    "orw": dict(color="#006d6f", linewidth=3.2),
    "impaired": dict(color="#d35400", linewidth=3.0, alpha=0.85),
    "impaired_poly": dict(facecolor="#d35400", alpha=0.12, edgecolor="#d35400", linewidth=1.8),
    "orw_poly": dict(facecolor="#006d6f", alpha=0.22, edgecolor="#006d6f", linewidth=1.8),
    "huc12": dict(color="#7f4f24", linewidth=1.4, linestyle="-."),
    "huc10": dict(color="#4a2c0f", linewidth=2.6, linestyle="-"),
    "mitigation": dict(facecolor="#ffd92f", alpha=0.5, edgecolor="#8a6d00", linewidth=1.0),
    "context_parcels": dict(facecolor="none", edgecolor="#b5b5b5", linewidth=0.35),
    "streets": dict(color="#7a7a7a", linewidth=1.1),
}


#: Legend entries in reading order: context, resources, water, then the site and its rings.
LEGEND_ORDER = (
    "Parcels", "Street", "Limit of disturbance (site)", "100 ft from the site",
    "500 ft from the site",
    "Common plan of development", "Subject parcel(s)", "NHESP Priority Habitat",
    "NHESP Estimated Habitat", "Certified Vernal Pool", "100-year floodplain (SFHA)",
    "0.2% annual chance flood", "Water body", "Stream", "Traced flow path",
    "Impaired water (4A/4B/5)", "Outstanding Resource Water", "Off-site mitigation",
    "HUC12 boundary", "HUC10 boundary",
)


@dataclass(frozen=True)
class MapImage:
    """A rendered map: PNG bytes, the legend entries drawn and the scale bar length."""

    png: bytes
    legend: list[str] = field(default_factory=list)
    scale_bar_ft: float = 0.0
    width_px: int = 0
    height_px: int = 0


def find_layer(layers: Mapping[str, gpd.GeoDataFrame], key: str) -> gpd.GeoDataFrame | None:
    """The first present, non-empty layer among the aliases of ``key``."""
    for name in ALIASES.get(key, (key,)):
        gdf = layers.get(name)
        if isinstance(gdf, gpd.GeoDataFrame) and len(gdf) and gdf.geometry.notna().any():
            gdf = gdf[gdf.geometry.notna() & ~gdf.geometry.is_empty]
            if len(gdf):
                return gdf
    return None


def _units_per_ft(crs) -> float:
    """Map units per foot in the working CRS (metres or feet)."""
    if crs is None:
        return M_PER_FT  # no CRS: assume metres (the default working CRS, EPSG:26986, is in metres)
    if not crs.is_projected:
        raise CrsError(
            f"The screening map needs projected layers (feet or metres), but they are in "
            f"{crs.to_string()}; pass the screening.gpkg layers in the town's working CRS."
        )
    return M_PER_FT / metres_per_unit(crs)


def _nice_length_ft(target_ft: float) -> float:
    """A round scale-bar length (1, 2, 2.5, 5 x 10^n ft) not above ``target_ft``."""
    exp = 10 ** math.floor(math.log10(max(target_ft, 1.0)))
    return max(m * exp for m in (1, 2, 2.5, 5) if m * exp <= target_ft)


def _to_crs(gdf: gpd.GeoDataFrame | None, crs) -> gpd.GeoDataFrame | None:
    if gdf is None or crs is None or gdf.crs is None or gdf.crs == crs:
        return gdf
    return gdf.to_crs(crs)


def _habitat_parts(layers: Mapping[str, gpd.GeoDataFrame]) -> dict[str, gpd.GeoDataFrame]:
    """Priority, estimated and vernal-pool features, from one ``habitats`` layer or three."""
    parts: dict[str, gpd.GeoDataFrame] = {}
    combined = find_layer(layers, "habitats")
    if combined is not None and "layer" in combined.columns:
        kinds = combined["layer"].astype(str).str.lower()
        for kind in ("priority", "estimated", "vernal_pool"):
            sub = combined[kinds.str.startswith(kind.split("_")[0])]
            if len(sub):
                parts[kind] = sub
    elif combined is not None:
        polys = combined[combined.geom_type.isin(["Polygon", "MultiPolygon"])]
        points = combined[combined.geom_type.isin(["Point", "MultiPoint"])]
        if len(polys):
            parts["priority"] = polys
        if len(points):
            parts["vernal_pool"] = points
    for kind, key in (("priority", "nhesp_priority"), ("estimated", "nhesp_estimated"),
                      ("vernal_pool", "vernal_pools")):
        gdf = find_layer(layers, key)
        if gdf is not None and kind not in parts:
            parts[kind] = gdf
    return parts


def _huc_layers(get: Mapping[str, gpd.GeoDataFrame | None]) -> dict[str, gpd.GeoDataFrame]:
    """HUC12 and HUC10 polygons: their own layers, or a ``watersheds`` layer with a level."""
    out = {key: get[key] for key in ("huc12", "huc10") if get.get(key) is not None}
    combined = get.get("watersheds")
    if combined is not None and "level" in combined.columns:
        level = combined["level"].astype(str).str.lower()
        for key in ("huc12", "huc10"):
            if key not in out and (level == key).any():
                out[key] = combined[(level == key).to_numpy()]
    return out


def _split_flood(gdf: gpd.GeoDataFrame) -> tuple[gpd.GeoDataFrame, gpd.GeoDataFrame]:
    """SFHA (1%-annual-chance) pieces and the 0.2%-annual-chance (shaded X) pieces.

    Zone X of minimal flood hazard (unshaded X, C, D) is neither and is not drawn.
    """
    zone = (gdf["zone"].astype(str).str.upper().str.strip() if "zone" in gdf.columns
            else None)
    if "sfha" in gdf.columns and gdf["sfha"].notna().any():
        is_sfha = gdf["sfha"].astype(str).str.upper().isin(["T", "TRUE", "1", "YES"])
    elif zone is not None:
        is_sfha = zone.isin(SFHA_ZONES) | zone.str.startswith("AR")
    else:  # nothing says which zone it is: a flood layer handed to the map is the SFHA
        is_sfha = gdf.index.to_series().map(lambda _: True)
    if "shaded_x" in gdf.columns:
        is_shaded = gdf["shaded_x"].astype(str).str.upper().isin(["T", "TRUE", "1", "YES"])
    else:
        subtype = (gdf["subtype"].astype(str).str.upper() if "subtype" in gdf.columns
                   else gdf.index.to_series().map(lambda _: ""))
        is_shaded = subtype.str.contains("0.2 PCT", regex=False) | (
            zone.isin(["B", "X500"]) if zone is not None else False)
    is_sfha = is_sfha.to_numpy(dtype=bool)
    return gdf[is_sfha], gdf[~is_sfha & is_shaded.to_numpy(dtype=bool)]


def _rings(layers, site, units_per_ft, distances_ft):
    """Ring outlines (for display) from a ``buffers`` layer, else drawn around the site."""
    buffers = find_layer(layers, "buffers")
    rings = {}
    for d in distances_ft:  # one layer per ring, as screening.gpkg writes them
        gdf = find_layer(layers, f"buffer_{d:g}ft")
        if gdf is not None:
            rings[d] = gdf.geometry.union_all()
    if buffers is not None:
        col = next((c for c in ("distance_ft", "ring_ft", "buffer_ft") if c in buffers.columns),
                   None)
        for d in distances_ft:
            if col is not None:
                sub = buffers[buffers[col].astype(float).round() == round(d)]
            else:
                names = buffers.get("name", buffers.get("ring"))
                sub = buffers[names.astype(str).str.contains(f"{d:g}")] if names is not None \
                    else buffers.iloc[0:0]
            if len(sub) and d not in rings:
                rings[d] = sub.geometry.union_all()
    if site is not None:
        site_union = site.geometry.union_all()
        for d in distances_ft:
            rings.setdefault(d, site_union.buffer(d * units_per_ft, quad_segs=32))
    return rings


def _extent(geoms, pad_frac: float = 0.08):
    xs0, ys0, xs1, ys1 = zip(*(g.bounds for g in geoms if g is not None and not g.is_empty),
                             strict=True)
    x0, y0, x1, y1 = min(xs0), min(ys0), max(xs1), max(ys1)
    w, h = max(x1 - x0, 1.0), max(y1 - y0, 1.0)
    return x0 - w * pad_frac, y0 - h * pad_frac, x1 + w * pad_frac, y1 + h * pad_frac


def _fit_aspect(extent, aspect):
    """Grow the extent so width / height equals ``aspect`` (keeps the map undistorted)."""
    x0, y0, x1, y1 = extent
    w, h = x1 - x0, y1 - y0
    if w / h < aspect:
        grow = (h * aspect - w) / 2
        return x0 - grow, y0, x1 + grow, y1
    grow = (w / aspect - h) / 2
    return x0, y0 - grow, x1, y1 + grow


class _Drawer:
    """Draws layers on one axes, clipped to its view, collecting one legend entry per label."""

    def __init__(self, ax, extent, handles: dict[str, Any]) -> None:
        self.ax = ax
        self.view = shapely.box(*extent)
        self.handles = handles

    def visible(self, gdf):
        """Only features inside the view are drawn, so the legend lists only what is seen."""
        if gdf is None or not len(gdf):
            return None
        gdf = gdf[gdf.intersects(self.view)]
        return gdf if len(gdf) else None

    def poly(self, gdf, style, label, zorder, *, legend: bool = True) -> bool:
        gdf = self.visible(gdf)
        if gdf is None:
            return False
        gdf = gdf[gdf.geom_type.isin(["Polygon", "MultiPolygon"])]
        if not len(gdf):
            return False
        style = _crisp(style)
        gdf.plot(ax=self.ax, zorder=zorder, **style)
        if legend:
            self.handles.setdefault(label, Patch(label=label, **{
                k: v for k, v in style.items() if k != "linestyle"}))
        return True

    def line(self, gdf, style, label, zorder) -> bool:
        gdf = self.visible(gdf)
        if gdf is None:
            return False
        gdf = gdf[gdf.geom_type.isin(["LineString", "MultiLineString", "LinearRing"])]
        if not len(gdf):
            return False
        gdf.plot(ax=self.ax, zorder=zorder, **style)
        self.handles.setdefault(label, Line2D([], [], label=label, **style))
        return True

    def mixed(self, gdf, line_style, poly_style, label, zorder) -> None:
        """Lines and polygons of one layer (receiving waters are both); the legend shows the
        line symbol when there are lines, else the polygon's."""
        has_poly = self.poly(gdf, poly_style, label, zorder, legend=False)
        if not self.line(gdf, line_style, label, zorder) and has_poly:
            style = _crisp(poly_style)
            self.handles.setdefault(label, Patch(label=label, **style))

    def hucs(self, hucs):
        for key, label in (("huc12", "HUC12 boundary"), ("huc10", "HUC10 boundary")):
            gdf = hucs.get(key)
            if gdf is not None:  # shared edges drawn once, so dashes stay readable
                edges = shapely.line_merge(shapely.union_all(gdf.boundary.to_numpy()))
                self.line(gpd.GeoDataFrame(geometry=[edges], crs=gdf.crs), _STYLE[key], label,
                          10)

    def receiving(self, parts):
        self.mixed(parts.get("impaired"), _STYLE["impaired"], _STYLE["impaired_poly"],
                   "Impaired water (4A/4B/5)", 8)
        self.mixed(parts.get("orw"), _STYLE["orw"], _STYLE["orw_poly"],
                   "Outstanding Resource Water", 8)


def render_screening_map(
    layers: Mapping[str, gpd.GeoDataFrame],
    *,
    title: str | None = None,
    ring_distances_ft: tuple[float, ...] = (100.0, 500.0),
    width_in: float = 7.5,
    height_in: float = 5.6,
    dpi: int = 150,
    allow_overview: bool = True,
) -> MapImage | None:
    """Draw the screening map; None when there is nothing to draw.

    The main map frames the site and its rings; when the traced flow path and the receiving
    waters reach beyond it, an overview beside the legend shows the whole drainage path with
    the main map's frame.

    Parameters
    ----------
    layers
        ``screening.gpkg`` layers by name (site, buffers, habitats, flood_zones, streams,
        flow_path, receiving_waters, watersheds or huc12/huc10, ...), in one projected CRS
        (that of the site wins). For orientation pass ``context_parcels`` (the parcels
        around the site), ``streets`` (centerlines, with an optional ``name`` column printed
        along them) and ``waterbodies``.
    allow_overview
        When the flow path or the receiving waters reach beyond the site's frame, show them in
        an overview beside the legend; if there is no room for it (or this is False) the main
        map is framed to hold the whole path instead, so the path always stays in view.
    ring_distances_ft
        The rings drawn around the site: 100 ft (abutters, Ch. 320, permit procedure, A(7))
        and 500 ft (NHESP features, § 320-20 A(3)(c)).
    """
    site = find_layer(layers, "site")
    crs = site.crs if site is not None else next(
        (g.crs for g in layers.values() if isinstance(g, gpd.GeoDataFrame) and g.crs), None)
    units_per_ft = _units_per_ft(crs)
    get = {key: _to_crs(find_layer(layers, key), crs) for key in ALIASES}
    habitats = {k: _to_crs(v, crs) for k, v in _habitat_parts(layers).items()}
    rings = _rings(layers, get["site"], units_per_ft, ring_distances_ft)
    receiving = _receiving_parts(get)
    hucs = _huc_layers(get)
    near, far = _near_far(get, habitats, rings, receiving)
    if not near:
        return None

    fig = Figure(figsize=(width_in, height_in), dpi=dpi)
    _DrawOnceCanvas(fig)
    ax = fig.add_axes((0.01, 0.02, 0.70, 0.90 if title else 0.96))
    box = ax.get_position()
    aspect = (box.width * width_in) / (box.height * height_in)
    near_extent = _extent(near)
    whole_extent = _extent(near + far) if far else near_extent
    overview = allow_overview and _much_larger(whole_extent, near_extent)
    extent = _fit_aspect(near_extent if overview else whole_extent, aspect)
    handles: dict[str, Any] = {}
    _draw_main(_Drawer(ax, extent, handles), extent, get, habitats, receiving, hucs)
    _draw_rings(ax, rings, crs, handles)
    _label_habitats(ax, habitats, extent)
    _frame(ax, extent)
    scale_ft = _scale_bar(ax, extent, units_per_ft)
    _north_arrow(ax)

    ov = _draw_overview(fig, extent, whole_extent, handles, get, receiving, hucs) \
        if overview else None
    if title:
        fig.text(0.01, 0.975, title, fontsize=11, fontweight="bold", va="top")
    ordered, legend = _legend(fig, handles, title)
    if ov is not None and not _place_overview(fig, ov, legend, whole_extent, units_per_ft,
                                              0.9 if title else 0.96, width_in, height_in):
        # no room beside the legend: frame the whole path on the main map instead
        return render_screening_map(
            layers, title=title, ring_distances_ft=ring_distances_ft, width_in=width_in,
            height_in=height_in, dpi=dpi, allow_overview=False)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, facecolor="white")
    w, h = fig.canvas.get_width_height()
    return MapImage(png=buf.getvalue(), legend=[h.get_label() for h in ordered],
                    scale_bar_ft=scale_ft,
                    width_px=w, height_px=h)


def _near_far(get, habitats, rings, receiving) -> tuple[list, list]:
    """What the main map must frame (site and rings) and what lies downstream of it."""
    near = [*rings.values()]
    if get["site"] is not None:
        near.append(get["site"].geometry.union_all())
    far = [g.geometry.union_all() for g in (get["flow_path"], *receiving.values())
           if g is not None]
    if not near:  # no site: frame whatever was given
        near = [g.geometry.union_all() for g in [*get.values(), *habitats.values()]
                if g is not None]
    return near, far


def _draw_main(draw: _Drawer, extent, get, habitats, receiving, hucs) -> None:
    """The main map's layers, bottom to top, each adding its legend entry."""
    flood = get["flood_zones"]
    if flood is not None:
        sfha, shaded = _split_flood(flood)
        draw.poly(shaded, _STYLE["shaded_x"], "0.2% annual chance flood", 1)
        draw.poly(sfha, _STYLE["sfha"], "100-year floodplain (SFHA)", 2)
    draw.poly(get["context_parcels"], _STYLE["context_parcels"], "Parcels", 0.5)
    draw.poly(get["waterbodies"], _STYLE["waterbodies"], "Water body", 3)
    if draw.line(get["streets"], _STYLE["streets"], "Street", 3.5):
        _label_streets(draw.ax, draw.visible(get["streets"]), extent)
    draw.poly(habitats.get("priority"), _STYLE["priority"], "NHESP Priority Habitat", 4)
    draw.poly(habitats.get("estimated"), _STYLE["estimated"], "NHESP Estimated Habitat", 4)
    draw.poly(get["mitigation"], _STYLE["mitigation"], "Off-site mitigation", 5)
    draw.poly(get["parcels"], _STYLE["parcels"], "Subject parcel(s)", 6)
    draw.poly(get["common_plan"], _STYLE["common_plan"], "Common plan of development", 6)
    draw.line(get["streams"], _STYLE["streams"], "Stream", 7)
    draw.receiving(receiving)
    draw.line(get["flow_path"], _STYLE["flow_path"], "Traced flow path", 9)
    draw.hucs(hucs)
    vp = draw.visible(habitats.get("vernal_pool"))
    if vp is not None:
        style = _STYLE["vernal_pool"]
        vp.plot(ax=draw.ax, zorder=11, color=style["color"], markersize=style["markersize"],
                marker=style["marker"], edgecolor=style["edgecolor"])
        draw.handles.setdefault("Certified Vernal Pool", Line2D(
            [], [], linestyle="none", marker="o", markersize=7, markerfacecolor=style["color"],
            markeredgecolor="white", label="Certified Vernal Pool"))
    draw.poly(get["site"], _STYLE["site"], "Limit of disturbance (site)", 12)


def _draw_rings(ax, rings, crs, handles: dict[str, Any]) -> None:
    for d, geom in sorted(rings.items()):
        style = _STYLE["ring100" if d <= 100 else "ring500"]
        gpd.GeoSeries([geom.boundary], crs=crs).plot(ax=ax, zorder=13, **style)
        label = f"{d:,.0f} ft from the site"
        handles.setdefault(label, Line2D([], [], label=label, **style))


def _draw_overview(fig, extent, whole_extent, handles, get, receiving, hucs):
    """The overview axes: the whole drainage path, the site, and the main map's frame."""
    ov = fig.add_axes((0.725, 0.16, 0.265, 0.0))  # height set once the legend is placed
    ov_draw = _Drawer(ov, whole_extent, handles)
    ov_draw.hucs(hucs)
    ov_draw.receiving(receiving)
    ov_draw.poly(get["mitigation"], _STYLE["mitigation"], "Off-site mitigation", 5)
    ov_draw.line(get["flow_path"], _STYLE["flow_path"], "Traced flow path", 9)
    if get["site"] is not None:
        get["site"].plot(ax=ov, zorder=12, facecolor="#d62728", edgecolor="#b00000",
                         linewidth=1.0)
    x0, y0, x1, y1 = extent
    ov.add_patch(Polygon([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], closed=True,
                         fill=False, edgecolor="black", linewidth=0.9, zorder=20))
    return ov


def _legend(fig, handles: dict[str, Any], title: str | None):
    """The legend in LEGEND_ORDER and the note under it; returns (handles drawn, legend)."""
    order = {label: i for i, label in enumerate(LEGEND_ORDER)}
    ordered = sorted(handles.values(), key=lambda h: order.get(h.get_label(), len(order)))
    legend = fig.legend(handles=ordered, loc="upper left",
                        bbox_to_anchor=(0.72, 0.92 if title else 0.98),
                        fontsize=7.2, frameon=False, title="Legend", title_fontsize=8.5,
                        alignment="left", handlelength=2.6, labelspacing=0.35)
    fig.text(0.72, 0.02, "North arrow: grid north. Rings for\norientation only; distances in "
             "the\nreport are measured exactly.", fontsize=6.2, color="#444444")
    return ordered, legend


def _place_overview(fig, ov, legend, whole_extent, units_per_ft, top, width_in,
                    height_in) -> bool:
    """Size the overview into the room under the legend; False when there is too little."""
    bottom_of_legend = legend.get_window_extent(fig.canvas.get_renderer()).transformed(
        fig.transFigure.inverted()).y0
    height = min(bottom_of_legend - 0.05 - 0.16, top - 0.16)
    if height < 0.16:
        return False
    ov.set_position((0.725, 0.16, 0.265, height))
    ox = _fit_aspect(_extent([shapely.box(*whole_extent)], 0.02),
                     (0.265 * width_in) / (height * height_in))
    _frame(ov, ox)
    ov.set_title("Overview (black frame: main map)", fontsize=6.5, loc="left", pad=2)
    _scale_bar(ov, ox, units_per_ft, fontsize=5.5, middle=False)
    return True


def _label_streets(ax, streets, extent, *, most: int = 12) -> None:
    """Street names along the longest piece of each street in view (at most ``most``)."""
    if streets is None or "name" not in streets:
        return
    view = shapely.box(*extent)
    best: dict[str, Any] = {}
    for name, geom in zip(streets["name"], streets.geometry.intersection(view), strict=True):
        if not isinstance(name, str) or not name.strip() or geom is None or geom.is_empty:
            continue
        for part in shapely.get_parts(geom):
            if part.geom_type == "LineString" and part.length > getattr(best.get(name),
                                                                        "length", 0):
                best[name] = part
    width = extent[2] - extent[0]
    for name, part in sorted(best.items(), key=lambda kv: -kv[1].length)[:most]:
        if part.length < 0.12 * width:
            continue
        a = part.interpolate(0.45, normalized=True)
        b = part.interpolate(0.55, normalized=True)
        angle = math.degrees(math.atan2(b.y - a.y, b.x - a.x))
        angle = angle - 180 if angle > 90 else angle + 180 if angle < -90 else angle
        mid = part.interpolate(0.5, normalized=True)
        ax.text(mid.x, mid.y, name, fontsize=5.5, color="#333333", rotation=angle,
                rotation_mode="anchor", ha="center", va="center", zorder=14, clip_on=True,
                bbox=dict(boxstyle="square,pad=0.1", facecolor="white", edgecolor="none",
                          alpha=0.8))


def _much_larger(outer, inner, factor: float = 1.6) -> bool:
    """Whether ``outer`` is more than ``factor`` times ``inner`` in width or height."""
    return ((outer[2] - outer[0]) > factor * (inner[2] - inner[0])
            or (outer[3] - outer[1]) > factor * (inner[3] - inner[1]))


def _frame(ax, extent) -> None:
    ax.set_xlim(extent[0], extent[2])
    ax.set_ylim(extent[1], extent[3])
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_xlabel("")  # geopandas labels axes with the CRS; the map has no axes to label
    ax.set_ylabel("")
    for spine in ax.spines.values():
        spine.set_color("#444444")


def _receiving_parts(get: Mapping[str, gpd.GeoDataFrame | None]
                     ) -> dict[str, gpd.GeoDataFrame]:
    """Impaired waters and ORWs: their own layers, or one ``receiving_waters`` layer by type."""
    out = {key: get[name] for key, name in (("impaired", "impaired_waters"), ("orw", "orw"))
           if get.get(name) is not None}
    combined = get.get("receiving_waters")
    col = next((c for c in ("type", "kind", "layer") if combined is not None
                and c in combined.columns), None)
    if combined is not None and col:
        kinds = combined[col].astype(str).str.lower()
        for key in ("impaired", "orw"):
            if key not in out and kinds.str.startswith(key).any():
                out[key] = combined[kinds.str.startswith(key).to_numpy()]
    return out


def _crisp(style: dict) -> dict:
    """Apply a style's alpha to the fill only, so outlines stay crisp."""
    if "alpha" not in style or style.get("facecolor") in (None, "none"):
        return style
    out = {k: v for k, v in style.items() if k != "alpha"}
    out["facecolor"] = to_rgba(style["facecolor"], style["alpha"])
    return out


def _label_habitats(ax, habitats, extent) -> None:
    """Small id labels on the habitat features inside the view."""
    view = shapely.box(*extent)
    for gdf in habitats.values():
        if gdf is None or "id" not in gdf.columns:
            continue
        for ident, geom in zip(gdf["id"], gdf.geometry, strict=True):
            inside = geom.intersection(view)  # label the part in view, not the whole feature
            if not inside.is_empty:
                pt = inside.representative_point()
                east = pt.x > extent[0] + 0.75 * (extent[2] - extent[0])  # label inwards
                ax.annotate(str(ident), (pt.x, pt.y), xytext=(-4 if east else 4, 4),
                            textcoords="offset points", ha="right" if east else "left",
                            fontsize=6.5, color="#222222", zorder=14, annotation_clip=True,
                            clip_on=True, bbox=dict(boxstyle="round,pad=0.15", fc="white",
                                                    ec="none", alpha=0.7))


def _scale_bar(ax, extent, units_per_ft, *, fontsize: float = 7, middle: bool = True) -> float:
    """A two-segment scale bar in feet at the lower left; returns its length in feet."""
    x0, y0, x1, y1 = extent
    width_ft = (x1 - x0) / units_per_ft
    length_ft = _nice_length_ft(width_ft / 4)
    length = length_ft * units_per_ft
    bx, by = x0 + (x1 - x0) * 0.04, y0 + (y1 - y0) * 0.05
    bar_h = (y1 - y0) * 0.012
    left, right = bx - length * 0.08, bx + length * 1.3  # room for the "N ft" label
    ax.add_patch(Polygon([(left, by - bar_h * 2.2), (right, by - bar_h * 2.2),
                          (right, by + bar_h * 4.2), (left, by + bar_h * 4.2)],
                         closed=True, facecolor="white", edgecolor="none", alpha=0.8,
                         zorder=20))
    for i, color in enumerate(("black", "white")):
        ax.add_patch(Polygon([(bx + i * length / 2, by), (bx + (i + 1) * length / 2, by),
                              (bx + (i + 1) * length / 2, by + bar_h),
                              (bx + i * length / 2, by + bar_h)], closed=True,
                             facecolor=color, edgecolor="black", linewidth=0.8, zorder=21))
    labels = [(0, "0"), (0.5, f"{length_ft / 2:,.0f}"), (1, f"{length_ft:,.0f} ft")]
    for frac, text in labels if middle else labels[::2]:
        ax.text(bx + frac * length, by + bar_h * 1.6, text, ha="center", va="bottom",
                fontsize=fontsize, zorder=22)
    return length_ft


def _north_arrow(ax) -> None:
    """A north arrow in the upper right corner (grid north, in axes coordinates)."""
    ax.add_patch(Polygon([(0.93, 0.86), (0.955, 0.80), (0.93, 0.815)], closed=True,
                         transform=ax.transAxes, facecolor="black", edgecolor="black",
                         zorder=30))
    ax.add_patch(Polygon([(0.93, 0.86), (0.905, 0.80), (0.93, 0.815)], closed=True,
                         transform=ax.transAxes, facecolor="white", edgecolor="black",
                         zorder=30))
    ax.text(0.93, 0.875, "N", transform=ax.transAxes, ha="center", va="bottom",
            fontsize=11, fontweight="bold", zorder=30)

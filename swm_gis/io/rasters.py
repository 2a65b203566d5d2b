"""Reading the rasters of a town config (DEM, impervious cover) into a :class:`Raster` window in
the working CRS. Part of the reader (:mod:`swm_gis.io.layers` re-exports these); a zip as published
is read in place.
"""

from __future__ import annotations

import os

from pyproj import CRS

from swm_gis.config.town import LayerSpec, TownConfig, layer_key
from swm_gis.errors import CrsError, InputFileError, NotCoveredError
from swm_gis.io import sanity
from swm_gis.io.sources import check_exists, first_line, gdal_source, source_info
from swm_gis.raster import Raster

BBox = tuple[float, float, float, float]


def is_raster(spec: LayerSpec) -> bool:
    """True when the source opens as a raster (GeoTIFF, ...), False for a vector source."""
    import rasterio

    if spec.parts or spec.is_postgis or (spec.is_file and not os.path.exists(spec.path)):
        return False
    try:
        with rasterio.open(gdal_source(spec)[0]):
            return True
    except (rasterio.errors.RasterioIOError, InputFileError):
        return False


def read_raster(
    config: TownConfig, key: str, *, bounds: BBox | None = None, pad_cells: int = 2,
    require_cover: bool = True,
) -> Raster:
    """Read a configured raster (band 1) in the working CRS, windowed to ``bounds`` if given.

    A raster in another CRS is warped on the fly (nearest neighbour for categorical layers is the
    caller's concern; elevation uses bilinear). ``require_cover`` refuses bounds that reach
    beyond the raster.
    """
    import rasterio
    from rasterio.vrt import WarpedVRT
    from rasterio.warp import Resampling
    from rasterio.windows import from_bounds

    spec = config.layer(key)
    check_exists(spec)
    working = config.crs_obj
    try:
        src = rasterio.open(gdal_source(spec)[0])
    except rasterio.errors.RasterioIOError as exc:
        raise InputFileError(
            f"Cannot read raster {spec.path} ({layer_key(key, 'path')}): {first_line(exc)}"
        ) from exc
    with src:
        if src.crs is None and not spec.crs:
            raise CrsError(
                f"Raster {spec.path} ({layer_key(key)}) declares no coordinate reference "
                f'system. State it in the town config: {layer_key(key, "crs")} = "EPSG:26986".'
            )
        src_crs = CRS.from_user_input(src.crs.to_wkt() if src.crs else spec.crs)
        sanity.check_source(spec, tuple(src.bounds), src_crs,
                            declared_by="source" if src.crs else "config")
        resampling = Resampling.bilinear if key == "dem" else Resampling.nearest
        needs_warp = not src_crs.equals(working)
        ds = (WarpedVRT(src, crs=working.to_wkt(), src_crs=src_crs.to_wkt(),
                        resampling=resampling) if needs_warp else src)
        try:
            window = None
            if bounds is not None:
                rb = ds.bounds
                if require_cover and (bounds[0] < rb.left or bounds[1] < rb.bottom
                                      or bounds[2] > rb.right or bounds[3] > rb.top):
                    raise NotCoveredError(
                        f"Raster {spec.path} ({layer_key(key)}) covers "
                        f"x {rb.left:.0f}..{rb.right:.0f}, "
                        f"y {rb.bottom:.0f}..{rb.top:.0f} but the area needed is x "
                        f"{bounds[0]:.0f}..{bounds[2]:.0f}, y {bounds[1]:.0f}..{bounds[3]:.0f} "
                        f"({config.crs}). Use a raster that covers the whole area.",
                        layer_bounds=(rb.left, rb.bottom, rb.right, rb.top))
                rx, ry = abs(ds.transform.a), abs(ds.transform.e)
                padded = (bounds[0] - pad_cells * rx, bounds[1] - pad_cells * ry,
                          bounds[2] + pad_cells * rx, bounds[3] + pad_cells * ry)
                window = from_bounds(*padded, transform=ds.transform)
                window = window.round_offsets().round_lengths()
                window = window.intersection(
                    rasterio.windows.Window(0, 0, ds.width, ds.height))
            arr = ds.read(1, window=window, masked=True)
            transform = ds.window_transform(window) if window is not None else ds.transform
        finally:
            if needs_warp:
                ds.close()
    return Raster(array=arr, transform=transform, crs=working, source=source_info(spec))


__all__ = ["is_raster", "read_raster"]

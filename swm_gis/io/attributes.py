"""Every attribute of a configured layer as stored: the fields the config did not name too.

The readers of :mod:`swm_gis.io.layers` read only the fields the config maps, under their
logical names. A question about the *other* fields (which field would join the assessing table,
:func:`swm_gis.rules.owner_join.with_fields_that_join`) needs them all: :func:`read_attributes`
reads every attribute field of a layer's first source, no geometry, values as the source stores
them (a number stays a number: the id rule of :mod:`swm_gis.ids` writes it).
"""

from __future__ import annotations

import pandas as pd
import pyogrio

from swm_gis.config.town import TownConfig, layer_key
from swm_gis.errors import InputFileError, SwmGisError
from swm_gis.io import postgis
from swm_gis.io.layers import layer_info
from swm_gis.io.sources import first_line, gdal_source


def read_attributes(config: TownConfig, key: str) -> pd.DataFrame:
    """Every attribute field of layer ``key``'s first source, by its source name, without
    geometry (a whole-table read: for a check that has already failed, never on a run's path).
    """
    spec = config.layer(key).sources[0]
    info = layer_info(spec)
    fields = [str(f) for f in info.get("fields", [])]
    try:
        if spec.is_postgis:
            frame = postgis.read_frame(spec.path, spec.layer, info, columns=fields,
                                       read_geometry=False)
        else:
            path, layer = gdal_source(spec)
            frame = pyogrio.read_dataframe(path, layer=layer, read_geometry=False)
    except SwmGisError:
        raise
    except Exception as exc:  # pyogrio raises several GDAL-derived types
        raise InputFileError(
            f"Cannot read {spec.describe()} ({layer_key(spec.key)}): {first_line(exc)}") from exc
    return pd.DataFrame(frame).drop(columns=["geometry"], errors="ignore")


__all__ = ["read_attributes"]

"""Where water goes: D8 flow on a DEM, the stream network, and traces downstream.

Two kinds of drainage meet here. Over land, runoff follows the terrain: :func:`flow_directions`
derives D8 flow directions from the DEM after filling depressions. In channels, it follows the
mapped hydrography: :func:`stream_network` builds a directed graph from stream lines digitised in
flow direction (README "Town configuration"), connected through the ponds and lakes they run into
and out of.
:func:`trace_overland` walks from a site down the DEM to the first stream or water body;
:func:`downstream_legs` follows the network from there.

Why pyflwdir (Deltares) for the DEM part
-----------------------------------------
* It is maintained (regular releases, used in Deltares' hydromt) and has a small dependency
  footprint (numpy + numba), unlike pysheds, whose releases have lagged numpy and which keeps a
  grid object with its own CRS/view state that would duplicate :class:`swm_gis.raster.Raster`.
* Its core loops are compiled with numba, so a town-sized DEM (10 m cells over 50 km2, 500,000
  cells) is conditioned and routed in well under a second after the first compilation.
* ``from_dem`` fills depressions on the way (Wang & Liu 2006 priority-flood), so a pit in the
  survey does not stop a trace, and flat areas get directions.
* Upstream and downstream operations are vectorised over whole arrays: ``snap`` traces many
  start cells at once. :func:`drainage_labels` gives each cell the stream reach it drains to
  (the applicability map computes catchments once, from that) with a compiled walk in
  :mod:`swm_gis.terrain.kernels` that gives what ``basins`` gives with every water cell as an
  outlet, without ordering all cells first (a 1 m town DEM has 40 million).

Distances are measured along the path (cell centre to cell centre, diagonals sqrt(2) cells) in
the working CRS and converted to feet by callers.

The code is in two parts, re-exported here: :mod:`swm_gis.terrain.grid` (flow directions, the
network, catchment labels) and :mod:`swm_gis.terrain.trace` (traces and the waters met).
"""

from swm_gis.terrain.grid import (
    FlowGrid,
    Node,
    StreamNetwork,
    drainage_labels,
    flow_directions,
    flow_grid,
    stream_network,
    water_cells,
)
from swm_gis.terrain.trace import (
    Entry,
    Leg,
    downstream_legs,
    feature_cells,
    features_met_overland,
    legs_frame,
    marks_on_paths,
    nearest_entry,
    point_cells,
    require_network,
    trace_overland,
    waters_along,
)

__all__ = [
    "Entry", "FlowGrid", "Leg", "Node", "StreamNetwork", "downstream_legs",
    "drainage_labels", "feature_cells", "features_met_overland", "flow_directions",
    "flow_grid", "legs_frame", "marks_on_paths",
    "nearest_entry", "point_cells",
    "require_network", "stream_network", "trace_overland", "water_cells", "waters_along",
]

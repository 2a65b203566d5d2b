"""Tasks for the town-wide map's worker processes, importable by them (a worker imports the code
it runs; a function patched into the parent never reaches it): a tile that fails, a spool that
cannot be written, and probes of what a worker inherited from its parent."""

from __future__ import annotations

import os
import threading

import swm_gis.applicability.parallel as par
from swm_gis.io import layers

#: Held by a thread of the parent during a test: a worker forked from the parent would find it
#: held for ever; a worker from a clean process imports this module afresh and finds it free.
PARENT_LOCK = threading.Lock()


def exploding_batch(config, tile):
    """A worker's task that fails on every tile."""
    raise ValueError(f"tile {tile.index} exploded")


def exploding_kept_batch(job, config, tile):
    """A kept worker's task that fails on every tile."""
    raise ValueError(f"tile {tile.index} exploded")


def batch_through_a_full_spool(config, tile):
    """The worker's own task, in a worker whose spool folder is full."""
    def full(batch, folder):
        raise OSError(28, "No space left on device")

    par.spool_batch = full  # this worker's module only: it runs nothing else
    return par._worker_batch(config, tile)


def probe(_config=None, _tile=None) -> dict:
    """What a worker process holds: its parent, whether it could take :data:`PARENT_LOCK`
    (within 5 s: a regression fails rather than hangs) and whether it holds the overlays."""
    free = PARENT_LOCK.acquire(timeout=5)
    if free:
        PARENT_LOCK.release()
    return {"pid": os.getpid(), "ppid": os.getppid(), "lock_free": free,
            "overlays": par._OVERLAYS is not None,
            "described": sorted(layers._RUN_INFO or {})}


def kept_probe(job) -> dict:
    """What a kept worker holds once it has taken ``job`` (:func:`par._take_job`)."""
    par._take_job(job)
    return {"pid": os.getpid(), "env": os.environ.get("SWM_GIS_PROBE"),
            "described": sorted(layers._RUN_INFO or {}), "outside": par._OVERLAYS.outside}

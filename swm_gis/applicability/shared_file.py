"""The file the town-wide map's workers load the prepared overlays from, and its loading.

One pickle (protocol 5) and, beside it, one file of the large arrays, each 64-byte aligned, that
every reader maps read-only (pages shared by every worker, read from the page cache as touched).
The run's private folder holds one for its workers (:func:`swm_gis.applicability.parallel.
share_overlays`); the overlay cache keeps its entries in the same form
(:mod:`swm_gis.applicability.overlay_cache`), so a warm run's workers map the entry itself.
"""

from __future__ import annotations

import mmap
import os
import pickle
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

#: Arrays of at least this many bytes travel to the workers beside the overlays' pickle, mapped
#: read-only by every worker; smaller ones stay inside it.
SHARED_ARRAY_MIN_BYTES = 1 << 16


def write_shared(value: Any, base: Path) -> bool:
    """``value`` pickled (protocol 5) to ``{base}.pickle`` with its arrays of
    :data:`SHARED_ARRAY_MIN_BYTES` or more written to ``{base}.arrays``, each 64-byte aligned
    (:func:`load_overlays` maps them); False where they cannot be written."""
    arrays: list[pickle.PickleBuffer] = []

    def beside(buf: pickle.PickleBuffer) -> bool:  # False: out of band, into the arrays file
        if buf.raw().nbytes < SHARED_ARRAY_MIN_BYTES:
            return True
        arrays.append(buf)
        return False

    try:
        data = pickle.dumps(value, protocol=5, buffer_callback=beside)
        spans = []
        with open(f"{base}.arrays", "wb") as out:
            for buf in arrays:
                out.write(b"\0" * (-out.tell() % 64))  # each array 64-byte aligned
                spans.append((out.tell(), buf.raw().nbytes))
                out.write(buf.raw())
        Path(f"{base}.pickle").write_bytes(pickle.dumps((spans, data), protocol=5))
    except OSError:
        return False
    return True


def load_overlays(shared: Any) -> Any:
    """The overlays :func:`~swm_gis.applicability.parallel.share_overlays` gave (a path, or the
    overlays themselves): the large arrays are read-only views of the
    mapped arrays file (pages shared by every worker, read from the page cache as touched)."""
    if not isinstance(shared, str):
        return shared
    data = Path(f"{shared}.pickle").read_bytes()
    with open(f"{shared}.arrays", "rb") as f:
        size = os.fstat(f.fileno()).st_size
        mapped = memoryview(mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)) if size else None
    return load_shared(data, mapped)


def load_shared(data: bytes, arrays: memoryview | None) -> Any:
    """What :func:`write_shared` wrote: its pickle's bytes and its arrays file's (mapped)."""
    spans, inner = pickle.loads(data)
    if not spans:
        return pickle.loads(inner)
    assert arrays is not None, "an arrays file was expected"
    return pickle.loads(inner, buffers=[arrays[a:a + n] for a, n in spans])


def off_the_main_arena(load: Callable[..., Any], *args: Any) -> Any:
    """``load(*args)`` run on a thread of its own, its result returned (its error raised).

    glibc's malloc gives each thread an arena of its own: the overlays' hundreds of thousands
    of small, long-lived GEOS and Python objects, made on the main thread, sat between the
    tiles' short-lived ones in the main arena, and every tile ran slower (measured on the
    statewide benchmark: 4.3-4.5 s of CPU for eight tiles with the overlays unpickled on the
    main thread, 3.4 s unpickled on a thread, 3.1-3.2 s in a forked worker, whose overlays the
    parent had built on its threads).
    """
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="swm-gis-overlays") as thread:
        return thread.submit(load, *args).result()


__all__ = ["SHARED_ARRAY_MIN_BYTES", "load_overlays", "load_shared", "off_the_main_arena",
           "write_shared"]

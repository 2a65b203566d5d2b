"""Check a Dask scheduler address (``scheduler=``) before any work: its form, that it answers,
that it is Dask.

Handing ``distributed.Client`` an address that is not a Dask scheduler can hang, or read the
first bytes of, say, an HTTP reply as a message length and try to allocate exabytes. A Dask
scheduler speaks first: on connection it sends a small handshake frame (an 8-byte little-endian
length, then a msgpack map naming ``compression`` and ``python``). :func:`check_scheduler` opens a
plain socket, reads that frame with a timeout and refuses anything else with a clear message.

Examples
--------
>>> parse_address("tcp://10.0.0.5:8786"), parse_address("localhost:8786")
(('10.0.0.5', 8786), ('localhost', 8786))
"""

from __future__ import annotations

import re
import socket
import struct

from swm_gis.errors import ConfigError
from swm_gis.messages import option

#: A scheduler's handshake is a few hundred bytes; anything far larger is not one.
MAX_HANDSHAKE_BYTES = 64 * 1024

_ADDRESS = re.compile(r"^(?:tcp://)?(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(?P<port>\d{1,5})$")


def parse_address(address: str) -> tuple[str, int]:
    """``tcp://HOST:PORT`` (or ``HOST:PORT``) -> (host, port); anything else is refused."""
    m = _ADDRESS.match(str(address).strip())
    port = int(m.group("port")) if m else 0
    if not m or not 0 < port < 65536:
        raise ConfigError(
            f'{option("scheduler")} "{address}" is not a scheduler address; give '
            "tcp://HOST:PORT, e.g. tcp://10.0.0.5:8786."
        )
    return m.group("host").strip("[]"), port


def check_scheduler(address: str, *, timeout_s: float = 5.0) -> str:
    """Return ``tcp://HOST:PORT`` once a Dask scheduler there has sent its handshake.

    Raises :class:`ConfigError` for a malformed address, nothing listening, no answer within
    ``timeout_s`` or an answer that is not a Dask handshake.
    """
    host, port = parse_address(address)
    normalised = f"tcp://{host}:{port}" if ":" not in host else f"tcp://[{host}]:{port}"
    hint = ("Start one (dask scheduler) with its workers, check the address, or leave out "
            f"{option('scheduler')} to use a local cluster.")
    try:
        with socket.create_connection((host, port), timeout=timeout_s) as sock:
            sock.settimeout(timeout_s)
            head = _read_exactly(sock, 8)
            (length,) = struct.unpack("<Q", head)
            body = _read_exactly(sock, length) if 0 < length <= MAX_HANDSHAKE_BYTES else b""
    except TimeoutError as exc:
        raise ConfigError(f"The {option('scheduler')} {address} did not answer within "
                          f"{timeout_s:g} s as a Dask scheduler does. {hint}") from exc
    except OSError as exc:
        raise ConfigError(f"Cannot reach the Dask scheduler at {address}: "
                          f"{exc.strerror or exc}. {hint}") from exc
    if not (b"compression" in body and b"python" in body):
        raise ConfigError(f"{address} ({option('scheduler')}) answers, but not as a Dask "
                          f"scheduler (it sent {head[:8]!r}...). {hint}")
    return normalised


def _read_exactly(sock: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionResetError("the connection closed before a full handshake")
        data += chunk
    return data


__all__ = ["parse_address", "check_scheduler"]

"""--scheduler is checked before any work: its form, that something answers, that it is Dask."""

from __future__ import annotations

import logging
import socket
import threading

import pytest

from swm_gis.applicability.scheduler import check_scheduler, parse_address
from swm_gis.cli import main
from swm_gis.errors import ConfigError


@pytest.mark.parametrize(("text", "expected"), [
    ("tcp://10.0.0.5:8786", ("10.0.0.5", 8786)), ("localhost:8786", ("localhost", 8786)),
    ("tcp://[::1]:8786", ("::1", 8786)), (" tcp://h.example.org:1 ", ("h.example.org", 1)),
])
def test_addresses_are_parsed(text, expected):
    assert parse_address(text) == expected


@pytest.mark.parametrize("text", ["bogus:::", "tcp://host", "host:0", "host:70000",
                                  "inproc://x/1", "", "tcp://a b:1"])
def test_malformed_addresses_are_refused(text):
    with pytest.raises(ConfigError, match="is not a scheduler address; give tcp://HOST:PORT"):
        parse_address(text)


def _server(reply: bytes | None):
    """A one-connection TCP server that sends ``reply`` (or nothing) and keeps the line open."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    done = threading.Event()

    def serve():
        conn, _ = srv.accept()
        if reply:
            conn.sendall(reply)
        done.wait(5)
        conn.close()
        srv.close()

    threading.Thread(target=serve, daemon=True).start()
    return f"tcp://127.0.0.1:{srv.getsockname()[1]}", done


def test_a_web_server_is_not_a_scheduler():
    address, done = _server(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
    with pytest.raises(ConfigError, match="answers, but not as a Dask scheduler"):
        check_scheduler(address, timeout_s=2)
    done.set()


def test_a_silent_server_times_out_instead_of_hanging():
    address, done = _server(None)
    with pytest.raises(ConfigError, match=r"did not answer within 0.3 s"):
        check_scheduler(address, timeout_s=0.3)
    done.set()


def test_nothing_listening_is_explained():
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    with pytest.raises(ConfigError, match="Cannot reach the Dask scheduler"):
        check_scheduler(f"tcp://127.0.0.1:{port}", timeout_s=1)


def test_a_real_dask_scheduler_passes():
    from distributed import LocalCluster

    with LocalCluster(n_workers=0, processes=True, scheduler_port=0, dashboard_address=None,
                      silence_logs=logging.ERROR) as cluster:
        assert check_scheduler(cluster.scheduler_address, timeout_s=5) == \
            cluster.scheduler_address


def test_the_cli_checks_the_scheduler_before_reading_anything(tmp_path, capsys):
    code = main(["--progress", "none", "applicability", "-c", str(tmp_path / "none.toml"),
                 "-o", str(tmp_path / "m.gpkg"), "--engine", "dask", "--scheduler", "bogus:::"])
    assert code == 2
    assert 'is not a scheduler address' in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []

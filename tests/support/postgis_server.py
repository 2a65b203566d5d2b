"""pytest plugin: a throwaway PostgreSQL + PostGIS server for the session.

``make test`` installs the Debian packages ``postgresql`` and ``postgresql-15-postgis-3``; this
plugin makes a cluster in a fresh folder under the system temp folder (owned by the
``postgres`` user when the tests run as root: PostgreSQL refuses to run as root), starts it on a
free loopback port (127.0.0.1 only, password authentication over TCP), creates a database with
the PostGIS extension and stops the server and removes the folder at the end of the session.

Where the machine cannot run a database (no PostgreSQL binaries or no PostGIS) the PostGIS tests
are skipped, except under CI (``CI`` set), where they fail: CI must run them.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

PG_ROOT = Path("/usr/lib/postgresql")
PG_SHARE = Path("/usr/share/postgresql")


@dataclass(frozen=True)
class PgServer:
    """Where the test server listens. The password is never part of a URL: tests pass it in
    the environment (PGPASSWORD), as users do."""

    host: str
    port: int
    user: str
    password: str
    dbname: str

    @property
    def url(self) -> str:
        return f"postgresql://{self.user}@{self.host}:{self.port}/{self.dbname}"

    @property
    def pg_string(self) -> str:
        return f"PG:host={self.host} port={self.port} dbname={self.dbname} user={self.user}"


def find_binaries() -> tuple[Path | None, str]:
    """The newest installed PostgreSQL bin folder that has PostGIS, or (None, why not)."""
    versions = sorted((p for p in PG_ROOT.glob("*") if (p / "bin" / "initdb").is_file()),
                      key=lambda p: int(p.name) if p.name.isdigit() else 0, reverse=True)
    if not versions:
        return None, ("PostgreSQL is not installed (apt-get install postgresql "
                      "postgresql-15-postgis-3; make test does it)")
    for v in versions:
        if (PG_SHARE / v.name / "extension" / "postgis.control").is_file():
            return v / "bin", ""
    return None, f"PostGIS is not installed for PostgreSQL {versions[0].name} " \
                 "(apt-get install postgresql-15-postgis-3; make test does it)"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_postgres(cmd: list[str], **kwargs) -> subprocess.CompletedProcess:
    """Run a server command, as the postgres user when we are root."""
    if os.geteuid() == 0:
        cmd = ["runuser", "-u", "postgres", "--", *cmd]
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kwargs)


def _chown_postgres(path: Path) -> None:
    if os.geteuid() == 0:
        shutil.chown(path, user="postgres", group="postgres")


@contextlib.contextmanager
def throwaway_server(bindir: Path) -> Iterator[PgServer]:
    """Start a PostGIS server in a fresh temporary folder; stop it and remove the folder after.

    Also used by benchmarks/bench_postgis.py.
    """
    import psycopg  # the [postgis] / [dev] extras install it

    root = Path(tempfile.mkdtemp(prefix="swm-gis-pg-"))
    _chown_postgres(root)
    password = secrets.token_urlsafe(16)
    pwfile = root / "pw"
    pwfile.write_text(password + "\n", encoding="utf-8")
    _chown_postgres(pwfile)
    data, log, port = root / "data", root / "server.log", _free_port()
    started = False
    try:
        _as_postgres([str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "-E", "UTF8",
                      "--locale=C", "--auth-local=trust", "--auth-host=scram-sha-256",
                      f"--pwfile={pwfile}"])
        opts = (f"-p {port} -c listen_addresses=127.0.0.1 -k {root} -c fsync=off "
                "-c full_page_writes=off -c synchronous_commit=off")
        try:
            _as_postgres([str(bindir / "pg_ctl"), "-D", str(data), "-o", opts, "-l", str(log),
                          "-w", "-t", "60", "start"])
        except subprocess.CalledProcessError as exc:
            detail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(f"Could not start PostgreSQL: {exc.stderr}\n{detail}") from exc
        started = True
        admin = f"host=127.0.0.1 port={port} user=postgres dbname=postgres password={password}"
        with psycopg.connect(admin, autocommit=True) as con:
            con.execute("CREATE DATABASE swm_test")
        with psycopg.connect(admin.replace("dbname=postgres", "dbname=swm_test"),
                             autocommit=True) as con:
            con.execute("CREATE EXTENSION postgis")
        yield PgServer("127.0.0.1", port, "postgres", password, "swm_test")
    finally:
        if started:
            _as_postgres([str(bindir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"])
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def postgis_server() -> Iterator[PgServer]:
    """A running PostGIS server for the session (skipped where impossible, failed under CI)."""
    bindir, why = find_binaries()
    if bindir is None:
        if os.environ.get("CI"):
            pytest.fail(f"PostGIS tests must run in CI: {why}")
        pytest.skip(why)
    try:
        with throwaway_server(bindir) as server:
            yield server
    except (RuntimeError, subprocess.CalledProcessError) as exc:
        pytest.fail(f"Could not start the test PostgreSQL: {getattr(exc, 'stderr', '') or exc}")


@pytest.fixture
def pg(postgis_server: PgServer, monkeypatch: pytest.MonkeyPatch) -> PgServer:
    """The session's server, with its password in PGPASSWORD (as a user would set it)."""
    monkeypatch.setenv("PGPASSWORD", postgis_server.password)
    return postgis_server

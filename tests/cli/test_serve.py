"""``swm-gis serve``, the warm engine: its JSON-lines protocol, run as the QGIS plugin runs it.

One server runs several jobs; a bad line or a failing job is reported and the next job runs; a
cancel (or SIGINT) stops a job as Ctrl-C stops a one-shot run and the server goes on; SIGTERM
ends the job, then the server. The sample town's screening and abutter package written by the
warm engine are the one-shot engine's, file for file (servekit.differences: only timestamps
are masked, and they are pinned where the libraries allow).
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.hostile import SUBJECT, edit, sample_copy
from support.servekit import Server, differences, engine_env, one_shot
from support.townkit import SAMPLE_CONFIG

from swm_gis.applicability import pool_start
from swm_gis.cli import serve

SITES = f"{SAMPLE_CONFIG.parent / 'sites.gpkg'}:site"


def _screen(out) -> list[str]:
    return ["--progress", "json", "screen", "-c", str(SAMPLE_CONFIG), "-s", SITES, "-o",
            str(out)]


def _abutters(out) -> list[str]:
    return ["--progress", "json", "abutters", "-c", str(SAMPLE_CONFIG), "-p", SUBJECT, "-o",
            str(out)]


def _interrupted(signame: str, out) -> set[str]:
    """The one-shot run's line: before its writer started, or once it had staged outputs."""
    return {f"Interrupted ({signame}).", f"Interrupted ({signame}): nothing was written to {out}."}


def _validate() -> list[str]:
    return ["--progress", "json", "data", "validate", "-c", str(SAMPLE_CONFIG)]


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    """One server: a malformed line, a failing job, the screening, the abutter package, then
    end of input; and the same two jobs run one-shot."""
    root = tmp_path_factory.mktemp("serve")
    server = Server()
    seen: dict = {"ready": server.ready}
    server.send("this is not json")
    seen["malformed"] = server.next_line()
    server.send({"argv": ["data", "validate"]})
    seen["no_id"] = server.next_line()
    seen["failing"] = server.run("bad", ["--progress", "json", "data", "validate", "-c",
                                         str(root / "missing.toml")])
    seen["screen"] = server.run(1, _screen(root / "warm_screen"))
    seen["abutters"] = server.run("2", _abutters(root / "warm_abutters"), cwd=root)
    seen["exit"] = server.close()
    seen["stderr"] = list(server.stderr)
    seen["one_shot"] = {"screen": one_shot(_screen(root / "cold_screen")),
                        "abutters": one_shot(_abutters(root / "cold_abutters"))}
    return root, seen


def test_the_server_says_it_is_ready_then_ends_at_end_of_input(session):
    _, seen = session
    assert seen["ready"]["ready"] is True and seen["ready"]["protocol"] == serve.PROTOCOL
    assert seen["exit"] == 0
    assert not any("Traceback" in line for line in seen["stderr"]), seen["stderr"]


def test_a_malformed_line_is_refused_and_the_server_goes_on(session):
    _, seen = session
    bad = seen["malformed"]
    assert bad["id"] is None and bad["done"] is True and bad["exit"] == 2
    assert bad["error"].startswith("swm-gis serve: not a job: line 1 is not JSON")
    assert "this is not json" in bad["error"]
    assert seen["no_id"] == {"id": None, "done": True, "exit": 2,
                             "error": 'swm-gis serve: not a job: the job has no "id".'}


def test_a_failing_job_reports_its_message_and_the_next_job_runs(session):
    root, seen = session
    done, lines = seen["failing"]
    assert done["exit"] == 2
    assert done["error"] == (f"Town config file not found: {root / 'missing.toml'}. Pass "
                             "--config FILE with a TOML file.")
    assert [line["stream"] for line in lines] == ["err"]  # the one-shot run's one error line
    assert '"type": "error"' in lines[0]["line"] and '"exit_code": 2' in lines[0]["line"]
    for key, job_id in (("screen", 1), ("abutters", "2")):
        done = dict(seen[key][0])
        assert done.pop("seconds") > 0  # how long the job ran in the server
        assert done == {"id": job_id, "done": True, "exit": 0, "error": None}


def test_two_jobs_stream_the_one_shot_lines_tagged_with_their_id(session):
    root, seen = session
    for name, (_, lines) in (("screen", seen["screen"]), ("abutters", seen["abutters"])):
        warm_out = [obj["line"] for obj in lines if obj["stream"] == "out"]
        cold = seen["one_shot"][name]
        assert cold.returncode == 0, cold.stderr
        # the result line is the one-shot run's, but for the output folder's name
        assert warm_out == [cold.stdout.strip().replace("cold_", "warm_")]
        progress = [obj for obj in lines if '"type": "progress"' in obj["line"]]
        assert progress and all(obj["stream"] == "err" for obj in progress)
        cold_progress = [ln for ln in cold.stderr.splitlines() if '"type": "progress"' in ln]
        assert [obj["line"] for obj in progress] == cold_progress


@pytest.mark.parametrize("job", ["screen", "abutters"])
def test_warm_outputs_are_the_one_shot_outputs(session, job):
    root, _ = session
    warm, cold = root / f"warm_{job}", root / f"cold_{job}"
    assert sorted(p.name for p in warm.iterdir())  # something was written
    assert differences(warm, cold) == []


def test_cancel_and_sigint_stop_the_job_and_the_server_runs_the_next(tmp_path):
    server = Server()
    try:
        started = threading.Event()
        cancel_out = tmp_path / "cancelled"

        def cancel_once_working(obj):
            if '"type": "progress"' in obj["line"] and not started.is_set():
                started.set()
                server.send({"cancel": "c1"})

        server.job("c1", _screen(cancel_out))
        done, _ = server.until_done("c1", on_line=cancel_once_working)
        assert started.is_set()
        assert done["exit"] == 130 and done["error"] in _interrupted("SIGINT", cancel_out)
        assert not cancel_out.exists() or not any(cancel_out.iterdir())  # nothing half-written

        sent = threading.Event()

        def sigint_once_working(obj):
            if '"type": "progress"' in obj["line"] and not sent.is_set():
                sent.set()
                server.proc.send_signal(signal.SIGINT)

        server.job("c2", _screen(tmp_path / "sigint"))
        done, _ = server.until_done("c2", on_line=sigint_once_working)
        assert done["exit"] == 130 and done["error"] in _interrupted("SIGINT", tmp_path / "sigint")

        server.send({"cancel": "c1"})  # a late cancel of a finished job changes nothing
        server.send({"cancel": "never-sent"})
        done, lines = server.run(3, _validate())
        assert (done["id"], done["exit"], done["error"]) == (3, 0, None)
        assert any('"type": "result"' in obj["line"] for obj in lines)
        assert server.close() == 0
    finally:
        server.close(5)


def test_sigterm_ends_the_job_then_the_server(tmp_path):
    server = Server()
    try:
        sent = threading.Event()

        def sigterm_once_working(obj):
            if '"type": "progress"' in obj["line"] and not sent.is_set():
                sent.set()
                server.proc.send_signal(signal.SIGTERM)

        server.job(1, _screen(tmp_path / "out"))
        done, _ = server.until_done(1, on_line=sigterm_once_working)
        assert done["exit"] == 143 and done["error"] in _interrupted("SIGTERM", tmp_path / "out")
        assert server.wait_gone() == 143
        assert server.next_line(5) is None
    finally:
        server.close(5)


def test_a_town_edited_between_jobs_is_read_again(tmp_path):
    """Nothing of a job is kept for the next: the town config changed on disk between two
    jobs of one server is the one the second job reads (as a new one-shot run would)."""
    import json

    town = sample_copy(tmp_path)
    server = Server()
    try:
        args = ["--progress", "json", "abutters", "-c", str(town), "-p", SUBJECT, "-o"]
        assert server.run(1, [*args, str(tmp_path / "before")])[0]["exit"] == 0
        edit(town, 'name = "Sampleton (SYNTHETIC)"', 'name = "Otherton (SYNTHETIC)"')
        assert server.run(2, [*args, str(tmp_path / "after")])[0]["exit"] == 0
        names = [json.loads((tmp_path / run / "abutters.json").read_text("utf-8"))["town"]
                 for run in ("before", "after")]
        assert names == ["Sampleton (SYNTHETIC)", "Otherton (SYNTHETIC)"]
        assert server.close() == 0
    finally:
        server.close(5)


def _workers_of(pid: int) -> set[int]:
    """The processes two generations beneath ``pid``: a map's workers (the fork server's
    children)."""
    def children(parent: int) -> set[int]:
        found = set()
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == parent and fields[0] != "Z":
                found.add(int(stat.parent.name))
        return found

    return {w for child in children(pid) for w in children(child)}


def test_the_server_keeps_a_map_s_workers_for_the_next_map(tmp_path):
    """Two maps of the sample town on two workers (9 tiles of 500 parcels) in one server: the
    second runs on the first one's worker processes, both are the one-shot map, and the
    workers end with the server."""
    cache = tmp_path / "cache"
    args = ["--progress", "json", "applicability", "-c", str(SAMPLE_CONFIG), "--workers", "2",
            "--chunk-size", "500", "-o"]
    server = Server(SWM_GIS_CACHE_DIR=str(cache))
    try:
        for n in (1, 2):
            (tmp_path / f"warm{n}").mkdir()
            done, _ = server.run(n, [*args, str(tmp_path / f"warm{n}" / "map.gpkg")])
            assert done["exit"] == 0, server.stderr[-5:]
            if n == 1:
                workers = _workers_of(server.proc.pid)
        assert len(workers) == 2 and _workers_of(server.proc.pid) == workers
        assert server.close() == 0
    finally:
        server.close(5)
    (tmp_path / "cold").mkdir()
    cold = one_shot([*args, str(tmp_path / "cold" / "map.gpkg")])
    assert cold.returncode == 0, cold.stderr
    for n in (1, 2):
        assert differences(tmp_path / f"warm{n}", tmp_path / "cold") == []
    assert not any(pool_start._started(w) for w in workers)


def test_a_server_killed_outright_leaves_no_worker(tmp_path):
    """SIGKILL (no handler runs) to a server holding a map's workers: the workers and their
    fork server end with it, not waiting for ever for tiles; the workers' folder, which
    nothing could remove then, is removed by the next map's run."""
    # a temporary folder of the test's own, short (the fork server's socket lives there too,
    # and a socket's path is 107 bytes at most)
    tmp = Path(tempfile.mkdtemp(prefix="swm-test-"))
    args = ["--progress", "none", "applicability", "-c", str(SAMPLE_CONFIG), "--workers", "2",
            "--chunk-size", "500", "-o"]
    server = Server(SWM_GIS_CACHE_DIR=str(tmp_path / "cache"), TMPDIR=str(tmp))
    try:
        done, _ = server.run(1, [*args, str(tmp_path / "map.gpkg")])
        assert done["exit"] == 0, server.stderr[-5:]
        workers = _workers_of(server.proc.pid)
        assert len(workers) == 2
        server.proc.kill()
        server.proc.wait(30)
        deadline = time.monotonic() + 60
        while any(pool_start._started(w) for w in workers):
            assert time.monotonic() < deadline, "the workers outlived their server"
            time.sleep(0.05)
        left = [p.name for p in tmp.iterdir() if p.name.startswith("swm-tiles-")]
        assert len(left) == 1
        again = subprocess.run([sys.executable, "-m", "swm_gis", *args,
                                str(tmp_path / "again.gpkg")], capture_output=True, text=True,
                               env=engine_env(SWM_GIS_CACHE_DIR=str(tmp_path / "cache"),
                                              TMPDIR=str(tmp)), timeout=600)
        assert again.returncode == 0, again.stderr
        assert not any(p.name.startswith("swm-tiles-") for p in tmp.iterdir())
    finally:
        server.close(5)
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_between_jobs_ends_the_server_with_one_line(sig):
    server = Server()
    try:
        done, _ = server.run(1, _validate())
        assert done["exit"] == 0
        server.proc.send_signal(sig)
        assert server.wait_gone() == 128 + sig  # 130 / 143, as a shell reports it
        assert server.next_line(5) is None
        server.close(5)
        name = signal.Signals(sig).name
        assert [ln.strip() for ln in server.stderr if ln.strip()] == [f"Interrupted ({name})."]
    finally:
        server.close(5)


@pytest.mark.parametrize(("job", "problem"), [
    ([], "a job is a JSON object, got list"),
    ({"argv": []}, 'the job has no "id"'),
    ({"id": 1, "argv": "screen"},
     '"argv" must be a list of strings (the arguments of a one-shot swm-gis run)'),
    ({"id": 1, "argv": ["--progress", 3]},
     '"argv" must be a list of strings (the arguments of a one-shot swm-gis run)'),
    ({"id": 1, "argv": ["--progress", "json", "serve"]}, "a job cannot start another server"),
    ({"id": 1, "argv": ["serve"]}, "a job cannot start another server"),
    ({"id": 1, "argv": ["demo"], "cwd": "/no/such/folder"},
     "\"cwd\" is not a folder: '/no/such/folder'"),
    ({"id": 1, "argv": ["screen", "-o", "serve"]}, None),  # "serve" as a value is fine
    ({"id": 1, "argv": ["demo"], "cwd": "/"}, None),
])
def test_what_is_not_a_job(job, problem):
    assert serve._job_problem(job) == problem


class _Recorder:
    """Stands in for the protocol channel: keeps what would be sent."""

    def __init__(self):
        self.sent = []

    def send(self, obj):
        self.sent.append(obj)


@settings(max_examples=200)
@given(st.lists(st.text(alphabet="ab\n{}\r é", max_size=12), max_size=8))
def test_a_job_stream_sends_the_lines_written_whatever_the_pieces(pieces):
    """However a job's text is cut into write() calls, the lines sent are the text's lines
    (a last line without its newline is sent when the job ends), each tagged with the job."""
    channel, messages = _Recorder(), []
    stream = serve._JobStream(channel, "j", "err", messages)
    for piece in pieces:
        assert stream.write(piece) == len(piece)
    stream.close_job()
    text = "".join(pieces)
    lines = text.split("\n")
    if lines[-1] == "":  # "a\nb\n" is two lines, not three
        lines.pop()
    assert [obj["line"] for obj in channel.sent] == [ln.rstrip("\r") for ln in lines]
    assert {(obj["id"], obj["stream"]) for obj in channel.sent} <= {("j", "err")}
    # the plain lines are the job's possible error message (the last one is reported)
    assert messages == [ln.rstrip("\r").strip() for ln in lines
                        if ln.strip() and not ln.rstrip("\r").startswith("{")]

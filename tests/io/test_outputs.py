"""Output safety: inputs never written, packages all-or-nothing, one run per output, interruptions
and OS errors explained. Signals and races use real subprocesses."""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swm_gis.errors import Interrupted, OutputError, OutputExistsError, OutputLockedError
from swm_gis.io.outputs import (
    config_inputs,
    explain_os_errors,
    interrupt_guard,
    lock_path_for,
    output_file,
    output_lock,
    output_package,
    refuse_inputs,
    staged_dir,
)

REPO = Path(__file__).resolve().parents[2]


def _hidden(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def _tree(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): p.read_text() for p in sorted(folder.rglob("*"))
            if p.is_file()}


# --------------------------------------------------------------------------- refuse_inputs
@pytest.fixture
def input_dir(tmp_path):
    """A folder of stand-in input files (a config, a GeoPackage, a shapefile's parts)."""
    t = tmp_path / "T"
    t.mkdir()
    (t / "town.toml").write_text("[town]\n")
    (t / "sample.gpkg").write_bytes(b"gpkg")
    (t / "parcels.shp").write_bytes(b"shp")
    (t / "parcels.dbf").write_bytes(b"dbf")
    return t


@pytest.mark.parametrize(("out", "relation"), [
    ("T/sample.gpkg", "is the input"),
    ("T/town.toml", "is the input"),
    ("T", "contains the input"),
    (".", "contains the input"),
    ("T/sub/out", "is inside the input"),  # only when an input is a folder: see below
    ("T/parcels.dbf", "is the input"),  # a shapefile's companion is part of the input
], ids=["gpkg", "config", "folder-holding-inputs", "parent", "inside-input-folder", "sidecar"])
def test_an_output_that_is_inside_or_holds_an_input_is_refused(input_dir, out, relation):
    inputs = [input_dir / "town.toml", f"{input_dir / 'sample.gpkg'}:parcels",
              input_dir / "parcels.shp", input_dir / "sub"]
    (input_dir / "sub").mkdir()
    with pytest.raises(OutputError, match=relation) as info:
        refuse_inputs(input_dir.parent / out, inputs)
    assert "overwrite=True does not change this" in str(info.value)


def test_symlinks_and_hard_links_to_an_input_are_the_input(input_dir, tmp_path):
    (tmp_path / "link").symlink_to(input_dir)
    with pytest.raises(OutputError, match="is the input"):
        refuse_inputs(tmp_path / "link" / "sample.gpkg", [input_dir / "sample.gpkg"])
    os.link(input_dir / "sample.gpkg", tmp_path / "hard.gpkg")
    with pytest.raises(OutputError, match="is the input"):
        refuse_inputs(tmp_path / "hard.gpkg", [input_dir / "sample.gpkg"])


def test_outputs_beside_the_inputs_and_database_sources_pass(input_dir, tmp_path):
    refuse_inputs(tmp_path / "out", [input_dir / "town.toml", "PG:dbname=x", None,
                                     "postgresql://u@h/db", f"/vsizip/{input_dir}/p.zip/p.shp"])
    refuse_inputs(input_dir / "new.gpkg", [input_dir / "sample.gpkg", input_dir / "town.toml"])


def test_config_inputs_lists_the_config_and_every_layer_source(tmp_path):
    from swm_gis.config.town import parse_config

    cfg = parse_config({"town": {"name": "T"}, "layers": {
        "parcels": {"path": "p.gpkg"}, "dem": {"path": "d.tif"}}},
        base_dir=tmp_path, source=tmp_path / "town.toml")
    assert config_inputs(cfg) == [str(tmp_path / "town.toml"), str(tmp_path / "p.gpkg"),
                                  str(tmp_path / "d.tif")]


# --------------------------------------------------------------------------- staged_dir
def test_a_complete_package_replaces_files_and_keeps_the_others(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "a.csv").write_text("old a")
    (out / "notes.txt").write_text("the user's")
    with staged_dir(out, overwrite=True) as stage:
        (stage / "a.csv").write_text("new a")
        (stage / "maps").mkdir()
        (stage / "maps" / "m.pdf").write_text("new m")
        (stage / "x.gpkg-journal").write_text("sqlite leftover")
        assert stage.parent == tmp_path and stage.name.startswith(".out.swm-gis-stage-")
    assert _tree(out) == {"a.csv": "new a", "maps/m.pdf": "new m", "notes.txt": "the user's"}
    assert _hidden(tmp_path) == []


def test_a_crash_leaves_the_previous_package_and_no_temporaries(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "a.csv").write_text("old a")
    with pytest.raises(RuntimeError), staged_dir(out, overwrite=True) as stage:
        (stage / "a.csv").write_text("new a")
        raise RuntimeError("boom after 1 of 2 files")
    assert _tree(out) == {"a.csv": "old a"}
    assert _hidden(tmp_path) == []


def test_without_overwrite_an_existing_file_refuses_the_whole_set(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "b.csv").write_text("old b")
    with pytest.raises(OutputExistsError, match="b.csv"), \
            staged_dir(out, overwrite=False) as stage:
        (stage / "a.csv").write_text("new a")
        (stage / "b.csv").write_text("new b")
    assert _tree(out) == {"b.csv": "old b"}
    assert _hidden(tmp_path) == []


def test_a_folder_in_the_way_refuses_the_package_and_is_kept(tmp_path):
    out = tmp_path / "out"
    (out / "c.txt").mkdir(parents=True)
    (out / "c.txt" / "mine").write_text("keep")
    with pytest.raises(OutputError, match="a folder of that name is in the way"), \
            staged_dir(out, overwrite=True) as stage:
        (stage / "c.txt").write_text("new c")
    assert _tree(out) == {"c.txt/mine": "keep"} and _hidden(tmp_path) == []


def test_a_move_that_fails_midway_puts_the_previous_files_back(tmp_path, monkeypatch):
    out = tmp_path / "out"
    out.mkdir()
    (out / "a.txt").write_text("old a")
    (out / "b.txt").write_text("old b")
    real_replace = os.replace

    def failing(src, dst):
        if Path(src).name == "c.txt" and ".swm-gis-stage-" in str(src):
            raise OSError(errno.EIO, "I/O error")
        return real_replace(src, dst)

    monkeypatch.setattr("swm_gis.io.outputs.os.replace", failing)
    with pytest.raises(OSError, match="I/O error"), staged_dir(out, overwrite=True) as stage:
        for name in ("a.txt", "b.txt", "c.txt"):
            (stage / name).write_text(f"new {name}")
    assert _tree(out) == {"a.txt": "old a", "b.txt": "old b"}
    assert _hidden(tmp_path) == []


def test_output_file_moves_one_file_into_place(tmp_path):
    target = tmp_path / "maps" / "applicability.gpkg"
    with output_file(target, inputs=[tmp_path / "in.gpkg"]) as tmp:
        assert tmp.name == "applicability.gpkg" and tmp.parent.parent == target.parent
        tmp.write_text("map")
    assert target.read_text() == "map"
    assert _hidden(target.parent) == []
    with pytest.raises(OutputExistsError), output_file(target) as tmp:
        tmp.write_text("again")
    with pytest.raises(OutputError, match="is a folder"), output_file(tmp_path) as tmp:
        pass


def test_an_output_folder_that_is_a_file_is_refused(tmp_path):
    (tmp_path / "out").write_text("x")
    with pytest.raises(OutputError, match="is a file"), staged_dir(tmp_path / "out",
                                                                   overwrite=True):
        pass


# --------------------------------------------------------------------------- OS errors
@pytest.mark.parametrize(("exc", "fragment"), [
    (PermissionError(errno.EACCES, "Permission denied", "/ro/out"), "permission denied on /ro"),
    (OSError(errno.EROFS, "Read-only file system"), "file system is read-only"),
    (OSError(errno.ENOSPC, "No space left on device"), "Out of disk space"),
], ids=["read-only-folder", "read-only-fs", "disk-full"])
def test_os_errors_are_explained(exc, fragment):
    with pytest.raises(OutputError, match=fragment) as info, explain_os_errors("/ro/out"):
        raise exc
    assert "nothing was written" in str(info.value).lower()


def test_other_os_errors_pass_through():
    with pytest.raises(FileNotFoundError), explain_os_errors("x"):
        raise FileNotFoundError("x")


def test_a_disk_full_while_staging_says_so_and_leaves_nothing(tmp_path):
    out = tmp_path / "out"
    with pytest.raises(OutputError, match="Out of disk space"), \
            output_package(out, overwrite=True) as stage:
        (stage / "a").write_text("x")
        raise OSError(errno.ENOSPC, "No space left on device")
    assert not out.exists() or _tree(out) == {}
    assert _hidden(tmp_path) == []


def test_a_read_only_folder_is_explained(tmp_path, monkeypatch):
    def denied(*a, **k):
        raise PermissionError(errno.EACCES, "Permission denied", str(tmp_path / "ro"))

    monkeypatch.setattr("swm_gis.io.outputs.tempfile.mkdtemp", denied)
    with pytest.raises(OutputError, match="read-only or belongs to another user"), \
            output_package(tmp_path / "ro" / "out"):
        pass


# --------------------------------------------------------------------------- lock (in process)
def test_a_held_lock_refuses_a_second_writer_naming_the_first(tmp_path):
    out = tmp_path / "out"
    with output_lock(out, command="swm-gis abutters --parcel X"):
        info = lock_path_for(out).read_text()
        assert f'"pid": {os.getpid()}' in info
        # A separate open file description: flock treats it as another holder.
        with pytest.raises(OutputLockedError) as err, output_lock(out, command="second"):
            pass
        assert "swm-gis abutters --parcel X" in str(err.value)
        assert f"process {os.getpid()}" in str(err.value)
        with pytest.raises(OutputLockedError, match="after waiting 0.3 s"), \
                output_lock(out, command="second", wait_s=0.3, poll_s=0.05):
            pass
    assert not lock_path_for(out).exists()
    with output_lock(out, command="third"):
        pass


def _hold_without_a_line(path: Path, hold_s: float) -> subprocess.Popen:
    """Another process holding the OS lock on ``path`` with no holder's line in it (a run in the
    instant between taking the lock and writing its line, or between removing the file and
    releasing it), for ``hold_s`` seconds; it prints "held" once it holds it."""
    code = textwrap.dedent(f"""
        import fcntl, os, sys, time
        fd = os.open({str(path)!r}, os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(fd, fcntl.LOCK_EX)
        print("held", flush=True)
        time.sleep({hold_s})
        os.unlink({str(path)!r})
        fcntl.flock(fd, fcntl.LOCK_UN)
    """)
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "held"
    return proc


def test_a_lock_whose_holder_cannot_be_read_yet_is_waited_for_briefly(tmp_path):
    """A run that cannot read who holds the lock tries again for up to SETTLE_S: a holder that
    lets go within it leaves the lock to this run (no refusal naming nobody)."""
    out = tmp_path / "out"
    lock_path_for(out).parent.mkdir(parents=True, exist_ok=True)
    holder = _hold_without_a_line(lock_path_for(out), hold_s=0.3)
    with output_lock(out, command="second"):
        assert '"command": "second"' in lock_path_for(out).read_text()
    holder.wait(timeout=10)


def test_a_holder_that_never_writes_its_line_is_refused_as_just_starting(tmp_path):
    out = tmp_path / "out"
    lock_path_for(out).parent.mkdir(parents=True, exist_ok=True)
    holder = _hold_without_a_line(lock_path_for(out), hold_s=3)
    try:
        with pytest.raises(OutputLockedError, match="just starting"), \
                output_lock(out, command="second"):
            pass
    finally:
        holder.wait(timeout=10)


def test_the_holder_is_written_after_the_byte_windows_locks(tmp_path):
    """LockFileEx (filelock on Windows) locks byte 0 against other processes' reads: the holder
    starts after it, so the run refused can still name it."""
    out = tmp_path / "out"
    with output_lock(out, command="first"):
        raw = lock_path_for(out).read_bytes()
    assert raw[:1] == b"\n" and json.loads(raw[1:])["command"] == "first"


def test_a_waiting_run_takes_the_lock_when_the_first_ends_and_holds_it_alone(tmp_path):
    """The first run removes the lock file as it releases; the run waiting on it must then hold a
    lock that a third run sees (not a lock on the removed file)."""
    out = tmp_path / "out"
    seen: dict[str, str] = {}

    def second():
        with output_lock(out, command="second", wait_s=20, poll_s=0.02) as path:
            seen["holder"] = path.read_text()
            try:
                with output_lock(out, command="third"):
                    seen["third"] = "took the lock"
            except OutputLockedError as exc:
                seen["third"] = str(exc)

    with output_lock(out, command="first"):
        waiter = threading.Thread(target=second)
        waiter.start()
        time.sleep(0.3)
        assert waiter.is_alive()  # still waiting
    waiter.join(20)
    assert json.loads(seen["holder"])["command"] == "second"
    assert seen["third"].startswith(f"Another run is writing {out}: second (process ")
    assert _hidden(tmp_path) == []


def test_a_signal_while_waiting_for_the_lock_ends_the_wait(tmp_path):
    out = tmp_path / "out"
    held, done = threading.Event(), threading.Event()

    def first():
        with output_lock(out, command="first"):
            held.set()
            done.wait(30)

    holder = threading.Thread(target=first)
    holder.start()
    assert held.wait(10)
    threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGTERM)).start()
    started = time.monotonic()
    try:
        with pytest.raises(Interrupted, match=f"SIGTERM\\): nothing was written to {out}"), \
                interrupt_guard(out), output_lock(out, command="second", wait_s=20, poll_s=0.05):
            pass
    finally:
        done.set()
        holder.join(10)
    assert time.monotonic() - started < 10  # the wait ended early, not at wait_s
    assert _hidden(tmp_path) == []


# --------------------------------------------------------------------------- real processes
WRITER = textwrap.dedent("""
    import os, sys, time, types
    # only outputs.py and errors.py are needed: skip the package's heavy __init__ (geopandas),
    # so that 40 writers start in a fraction of a second each
    pkg = types.ModuleType("swm_gis")
    pkg.__path__ = [os.path.join(os.environ["PYTHONPATH"], "swm_gis")]
    sys.modules["swm_gis"] = pkg
    from swm_gis.errors import Interrupted, SwmGisError
    from swm_gis.io.outputs import output_package
    out, tag, pause_s, wait_s = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
    try:
        with output_package(out, overwrite=True, command=f"writer {tag}", wait_s=wait_s) as st:
            for i in range(4):
                (st / f"f{i}.txt").write_text(tag)
                if i == 1:
                    print("READY", flush=True)
                    time.sleep(pause_s)
    except Interrupted as exc:
        print(exc, file=sys.stderr)
        sys.exit(exc.exit_code)
    except SwmGisError as exc:
        print(exc, file=sys.stderr)
        sys.exit(2)
""")


@pytest.fixture
def writer(tmp_path):
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    env = {**os.environ, "PYTHONPATH": str(REPO)}

    def start(out, tag, pause_s=0.0, wait_s=0.0):
        return subprocess.Popen([sys.executable, str(script), str(out), tag, str(pause_s),
                                 str(wait_s)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, env=env)
    return start


def _previous_package(tmp_path):
    out = tmp_path / "work" / "out"
    out.mkdir(parents=True)
    for i in range(4):
        (out / f"f{i}.txt").write_text("old")
    return out


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)],
                         ids=["SIGTERM", "SIGINT"])
def test_a_signal_mid_package_keeps_the_previous_outputs_and_says_so(tmp_path, writer, sig,
                                                                      code):
    out = _previous_package(tmp_path)
    proc = writer(out, "new", pause_s=30)
    assert proc.stdout.readline().strip() == "READY"
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == code
    assert err.strip() == f"Interrupted ({sig.name}): nothing was written to {out}."
    assert _tree(out) == {f"f{i}.txt": "old" for i in range(4)}
    assert _hidden(out.parent) == []


def test_a_killed_run_leaves_a_lock_that_does_not_block_and_its_temporaries_are_cleared(
        tmp_path, writer):
    out = _previous_package(tmp_path)
    proc = writer(out, "killed", pause_s=30)
    assert proc.stdout.readline().strip() == "READY"
    proc.kill()
    proc.wait(timeout=10)
    left = _hidden(out.parent)
    assert ".out.swm-gis.lock" in left and any(".out.swm-gis-stage-" in n for n in left)
    assert _tree(out) == {f"f{i}.txt": "old" for i in range(4)}
    nxt = writer(out, "next")
    nxt.communicate(timeout=20)
    assert nxt.returncode == 0
    assert _tree(out) == {f"f{i}.txt": "next" for i in range(4)}
    assert _hidden(out.parent) == []


def test_a_second_run_that_waits_writes_after_the_first(tmp_path, writer):
    out = tmp_path / "out"
    first = writer(out, "A", pause_s=0.5)
    assert first.stdout.readline().strip() == "READY"
    second = writer(out, "B", wait_s=20)
    first.communicate(timeout=20)
    second.communicate(timeout=20)
    assert (first.returncode, second.returncode) == (0, 0)
    assert _tree(out) == {f"f{i}.txt": "B" for i in range(4)}


def test_two_runs_racing_on_one_folder_never_mix(tmp_path, writer):
    """20 staggered pairs, all started at once on 20 folders (the pairs run side by side, so
    the test takes one pair's time): each pair ends with one run's complete package, the
    other run refused with exit 2 naming the first (or run after it)."""
    pairs = []
    for k in range(20):
        out = tmp_path / f"race{k}"
        a = writer(out, "A", pause_s=0.5)
        time.sleep((k % 5) * 0.02)
        pairs.append((out, a, writer(out, "B", pause_s=0.5)))
    refused = 0
    for out, a, b in pairs:
        (_, err_a), (_, err_b) = a.communicate(timeout=60), b.communicate(timeout=60)
        codes = {a.returncode, b.returncode}
        assert codes <= {0, 2}, (err_a, err_b)
        tags = set(_tree(out).values())
        assert len(tags) == 1 and len(_tree(out)) == 4, _tree(out)
        for proc, err, other in ((a, err_a, "writer B"), (b, err_b, "writer A")):
            if proc.returncode == 2:
                refused += 1
                # the other run is named; in the instant before it has written its name into
                # the lock, the message says a run is just starting (and names the lock file)
                assert "Another run is writing" in err
                assert other in err or "just starting" in err, err
    assert _hidden(tmp_path) == []
    assert refused >= 1  # the pauses make overlaps certain in practice, so the lock was used


def test_interrupted_carries_the_shell_exit_code():
    exc = Interrupted("x", signum=signal.SIGTERM)
    assert exc.exit_code == 143 and isinstance(exc, KeyboardInterrupt)


def test_when_the_parent_cannot_be_written_the_work_happens_inside_the_output(tmp_path,
                                                                               monkeypatch):
    """``--out .`` in a folder whose parent is not writable: lock and staging go inside it."""
    out = tmp_path / "home"
    out.mkdir()
    (out / "a.txt").write_text("old")
    real_access = os.access
    monkeypatch.setattr("swm_gis.io.outputs.os.access",
                        lambda p, mode: False if Path(p) == tmp_path else real_access(p, mode))
    with output_package(out, overwrite=True) as stage:
        assert stage.parent == out and lock_path_for(out).parent == out
        (stage / "a.txt").write_text("new")
    assert _tree(out) == {"a.txt": "new"} and _hidden(out) == [] and _hidden(tmp_path) == []


# --------------------------------------------------------------------------- property
_parts = st.lists(st.sampled_from(["a", "b", "c", ".", "..", "a.gpkg"]), min_size=1, max_size=4)


@settings(max_examples=150, deadline=None)
@given(out=_parts, inp=_parts)
def test_refused_exactly_when_one_path_is_the_other_or_inside_it(tmp_path_factory, out, inp):
    root = tmp_path_factory.getbasetemp() / "prop"
    out_path, in_path = root.joinpath(*out), root.joinpath(*inp)
    a, b = Path(os.path.normpath(out_path)), Path(os.path.normpath(in_path))
    related = a == b or b in a.parents or a in b.parents
    try:
        refuse_inputs(out_path, [in_path])
    except OutputError:
        assert related
    else:
        assert not related


# --------------------------------------------------------------------------- signal windows
def _signal_inside(monkeypatch, module, name, sig=signal.SIGTERM):
    """Make ``module.name`` deliver ``sig`` to this process while it runs (a signal landing in
    exactly that window, deterministically)."""
    real = getattr(module, name)

    def wrapped(*args, **kwargs):
        os.kill(os.getpid(), sig)
        return real(*args, **kwargs)
    monkeypatch.setattr(module, name, wrapped)


@pytest.mark.parametrize(("module", "name"), [
    ("swm_gis.io.outputs", "_acquire"),       # taking the lock
    ("swm_gis.io.outputs", "_write_holder"),  # just after: the lock is held
    ("tempfile", "mkdtemp"),               # making the staging folder
], ids=["taking-the-lock", "lock-held", "making-the-stage"])
def test_a_signal_in_each_window_of_setting_up_leaves_nothing(tmp_path, monkeypatch, module,
                                                               name):
    import importlib

    out = _previous_package(tmp_path)
    _signal_inside(monkeypatch, importlib.import_module(module), name)
    with pytest.raises(Interrupted, match=f"nothing was written to {out}"), \
            output_package(out, overwrite=True, command="t") as stage:
        (stage / "f0.txt").write_text("new")
    assert _tree(out) == {f"f{i}.txt": "old" for i in range(4)}
    assert _hidden(out.parent) == []


def test_a_signal_while_cleaning_up_after_the_move_says_the_outputs_are_complete(
        tmp_path, monkeypatch):
    out = _previous_package(tmp_path)
    _signal_inside(monkeypatch, shutil, "rmtree", signal.SIGINT)
    with pytest.raises(Interrupted, match=f"after the outputs were complete: they are in {out}"), \
            output_package(out, overwrite=True, command="t") as stage:
        (stage / "f0.txt").write_text("new")
    assert _tree(out) == {"f0.txt": "new", **{f"f{i}.txt": "old" for i in (1, 2, 3)}}
    assert _hidden(out.parent) == []

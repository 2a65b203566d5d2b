"""The engine installs itself: a private Python environment with the swm-gis wheel the plugin
carries.

The engine cannot live in QGIS's own interpreter (pip wheels that vendor GEOS/PROJ/GDAL clash
with QGIS's libraries there), so it gets a virtual environment of its own, made with the Python
QGIS runs on (or one the user picks): ``python -m venv FOLDER``, then ``pip install`` of the
bundled wheel and its dependencies from the package index (or, offline, from a folder of
downloaded wheels), then a check that ``swm-gis --help`` runs. Paths are worked out for Linux,
Windows (OSGeo4W and the standalone installer) and macOS (the QGIS.app bundle).

Standard library only; QGIS is imported lazily where the profile folder is needed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path, PurePosixPath, PureWindowsPath

PLUGIN_DIR = Path(__file__).resolve().parent
#: Where the plugin zip carries the engine's wheel (scripts/build_plugin.py puts it there).
WHEEL_DIR = PLUGIN_DIR / "engine"
MIN_PYTHON = (3, 11)
ENV_PYTHON = "SWM_GIS_PYTHON"
#: pip's words for "the package index cannot be reached"
_OFFLINE = re.compile(r"NewConnectionError|Temporary failure in name resolution|"
                      r"Failed to establish a new connection|Network is unreachable|"
                      r"No matching distribution found|Could not find a version that satisfies|"
                      r"ProxyError|SSLError|timed out", re.IGNORECASE)


class InstallError(Exception):
    """The engine could not be set up; the message says why and what to do."""


# --------------------------------------------------------------------------- where things are
def bundled_wheel(folder: Path = WHEEL_DIR) -> Path | None:
    """The engine wheel the plugin carries (the newest by name), or None."""
    wheels = sorted(folder.glob("swm_gis-*.whl")) if folder.is_dir() else []
    return wheels[-1] if wheels else None


def default_home() -> Path:
    """The engine's default folder: ``swm-gis/engine`` in the QGIS profile (a fresh profile
    gets its own), else in the user's home."""
    try:
        from qgis.core import QgsApplication

        base = QgsApplication.qgisSettingsDirPath()
    except Exception:  # noqa: BLE001 - outside QGIS
        base = ""
    root = Path(base) if base else Path.home() / ".swm-gis"
    return root / "swm-gis" / "engine"


def venv_python(folder: Path, *, windows: bool | None = None) -> Path:
    windows = os.name == "nt" if windows is None else windows
    return folder / ("Scripts/python.exe" if windows else "bin/python")


def venv_engine(folder: Path, *, windows: bool | None = None) -> Path:
    windows = os.name == "nt" if windows is None else windows
    return folder / ("Scripts/swm-gis.exe" if windows else "bin/swm-gis")


def python_candidates(*, platform: str | None = None, executable: str | None = None,
                      prefix: str | None = None, environ: dict | None = None) -> list[str]:
    """The Pythons to make the engine's environment with, best first: ``SWM_GIS_PYTHON``,
    then the one QGIS runs on. Inside QGIS ``sys.executable`` is often QGIS itself, so the
    interpreter is found beside it: OSGeo4W and the standalone installer keep ``python3.exe``
    in ``bin`` and ``python.exe`` in ``apps\\Python3x`` (``sys.prefix``); the macOS bundle has
    ``QGIS.app/Contents/MacOS/bin/python3``; Linux uses the system's ``python3``."""
    platform = platform or sys.platform
    executable = executable if executable is not None else (sys.executable or "")
    prefix = prefix if prefix is not None else sys.prefix
    environ = os.environ if environ is None else environ
    out: list[str] = []
    if environ.get(ENV_PYTHON):
        out.append(environ[ENV_PYTHON])
    path = PureWindowsPath if platform.startswith("win") else PurePosixPath
    exe = path(executable) if executable else None
    if exe is not None and re.match(r"python(3(\.\d+)?)?(\.exe)?$", exe.name, re.IGNORECASE):
        out.append(str(exe))
    if platform.startswith("win"):
        if exe is not None:
            out.append(str(exe.parent / "python3.exe"))  # OSGeo4W / standalone: bin\
        out.append(str(path(prefix) / "python.exe"))  # apps\Python3x
        root = environ.get("OSGEO4W_ROOT")
        if root:
            out.append(str(path(root) / "bin" / "python3.exe"))
    elif platform == "darwin":
        out.append(str(path(prefix) / "bin" / "python3"))
        if exe is not None:  # .../QGIS.app/Contents/MacOS/QGIS -> .../MacOS/bin/python3
            out.append(str(exe.parent / "bin" / "python3"))
        out.append("/Applications/QGIS.app/Contents/MacOS/bin/python3")
    else:
        out.append(str(path(prefix) / "bin" / "python3"))
        out.append("/usr/bin/python3")
    found = shutil.which("python3")
    if found:
        out.append(found)
    return list(dict.fromkeys(out))


def python_version(python: str) -> tuple[int, int, int] | None:
    """The version of ``python`` if it runs and can make a venv with pip, else None."""
    try:
        proc = subprocess.run(
            [python, "-c", "import sys, venv, ensurepip; print('%d.%d.%d' % sys.version_info[:3])"],
            capture_output=True, text=True, timeout=60, env=_clean_env(),
            **_no_window())
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.match(r"(\d+)\.(\d+)\.(\d+)", proc.stdout.strip())
    return (int(m.group(1)), int(m.group(2)), int(m.group(3))) if proc.returncode == 0 and m \
        else None


def choose_python(given: str | None = None) -> tuple[str, tuple[int, int, int]]:
    """``given`` (checked) or the first candidate that is Python 3.11+ with venv and pip."""
    tried = []
    for python in ([given] if given else python_candidates()):
        if not python or not Path(python).exists():
            tried.append(f"{python} (not found)")
            continue
        version = python_version(python)
        if version is None:
            tried.append(f"{python} (cannot make a virtual environment: on Debian/Ubuntu "
                         "install python3-venv)")
        elif version[:2] < MIN_PYTHON:
            tried.append(f"{python} (Python {'.'.join(map(str, version))}, older than 3.11)")
        else:
            return python, version
    raise InstallError(
        "No Python 3.11 or newer that can make a virtual environment was found: tried "
        + "; ".join(tried) + ". Install Python 3.11+ (python.org, or your system's package "
        "manager) and choose its python executable in 'Python to use'.")


# --------------------------------------------------------------------------- installing
def requirements(wheel: Path) -> list[str]:
    """The wheel's dependencies (Requires-Dist without extras), for the offline message."""
    try:
        with zipfile.ZipFile(wheel) as zf:
            meta = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
            text = zf.read(meta).decode("utf-8")
    except (OSError, StopIteration, zipfile.BadZipFile):
        return []
    return [line.split(":", 1)[1].strip() for line in text.splitlines()
            if line.startswith("Requires-Dist:") and "extra ==" not in line]


def offline_message(wheel: Path, version: tuple[int, int, int]) -> str:
    py = f"{version[0]}.{version[1]}"
    deps = ", ".join(re.split(r"[<>=!~;\[ ]", r)[0] for r in requirements(wheel))
    return (
        "The package index (pypi.org) could not be reached, so the engine's dependencies could "
        f"not be downloaded ({deps}). On a computer with internet access, with Python {py} "
        f"on the same operating system, run: python -m pip download {wheel.name} -d "
        "swm-gis-wheels (the wheel is in the plugin's engine folder), copy the swm-gis-wheels "
        "folder here, and run 'Set up the swm-gis engine' again with it as 'Folder of "
        "downloaded packages (offline)'.")


def install(folder: Path, *, python: str | None = None, wheel: Path | None = None,
            wheels_dir: Path | None = None, log: Callable[[str], None] = print,
            progress: Callable[[float], None] = lambda _f: None,
            canceled: Callable[[], bool] = lambda: False) -> Path:
    """Make the engine's environment in ``folder``; the path of its ``swm-gis``.

    An existing environment in ``folder`` is replaced only once the new one works: it is
    built in ``FOLDER.new`` and renamed over it at the end.
    """
    wheel = wheel or bundled_wheel()
    if wheel is None or not wheel.is_file():
        raise InstallError(
            "This copy of the plugin carries no swm-gis engine wheel (engine/swm_gis-*.whl): "
            "install the plugin from the release zip, or build the zip with "
            "'make plugin' in a checkout of swm-gis.")
    python, version = choose_python(python)
    log(f"Python {'.'.join(map(str, version))}: {python}")
    progress(0.05)
    folder = Path(folder)
    new = folder.with_name(folder.name + ".new")
    shutil.rmtree(new, ignore_errors=True)
    new.parent.mkdir(parents=True, exist_ok=True)
    log(f"Creating the engine's own Python environment in {folder}")
    _run([python, "-m", "venv", str(new)], log, canceled)
    progress(0.15)
    py = str(venv_python(new))
    args = [py, "-m", "pip", "install", "--disable-pip-version-check", "--no-input",
            "--progress-bar", "off"]
    if wheels_dir:
        args += ["--no-index", "--find-links", str(wheels_dir)]
    log(f"Installing {wheel.name} and its dependencies"
        + (f" from {wheels_dir}" if wheels_dir else " from the package index (pypi.org)"))
    steps = [0]

    def pip_line(line: str) -> None:
        log(line)
        if line.startswith(("Collecting", "Downloading", "Installing", "Using cached")):
            steps[0] += 1
            progress(min(0.9, 0.15 + 0.75 * (1 - 1 / (1 + steps[0] / 25))))

    rc, lines = _run([*args, str(wheel)], pip_line, canceled, check=False)
    if rc != 0:
        shutil.rmtree(new, ignore_errors=True)
        text = "\n".join(lines[-40:])
        if not wheels_dir and _OFFLINE.search(text):
            raise InstallError(offline_message(wheel, version))
        tail = " ".join(lines[-3:])
        raise InstallError(f"pip could not install the engine (exit code {rc}): {tail}")
    progress(0.92)
    engine = venv_engine(new)
    check = subprocess.run([str(engine), "--help"], capture_output=True, text=True,
                           timeout=300, env=_clean_env(), **_no_window())
    if check.returncode != 0 or "Usage" not in check.stdout:
        shutil.rmtree(new, ignore_errors=True)
        raise InstallError(f"The installed engine does not run ({engine} --help exit code "
                           f"{check.returncode}): {check.stderr.strip()[-500:]}")
    if folder.exists():
        shutil.rmtree(folder)
    # a venv's scripts name their interpreter by absolute path: move, then fix the shebangs
    new.rename(folder)
    _repoint(new, folder)
    progress(1.0)
    return venv_engine(folder)


def folder_size(folder: Path) -> int:
    """Bytes the files under ``folder`` take (what the set-up installed), links not followed."""
    total = 0
    for root, _dirs, files in os.walk(folder):
        for name in files:
            path = os.path.join(root, name)
            if not os.path.islink(path):
                total += os.path.getsize(path)
    return total


def _repoint(old: Path, new: Path) -> None:
    """Scripts and pyvenv.cfg of a venv moved from ``old`` to ``new`` point at ``new``."""
    bindir = venv_python(new).parent
    for path in [*bindir.iterdir(), new / "pyvenv.cfg"]:
        if not path.is_file() or path.is_symlink():
            continue
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if str(old).encode() in data[:4096] or path.name == "pyvenv.cfg":
            path.write_bytes(data.replace(str(old).encode(), str(new).encode()))


def _run(cmd: list[str], log: Callable[[str], None], canceled: Callable[[], bool], *,
         check: bool = True) -> tuple[int, list[str]]:
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            encoding="utf-8", errors="replace", env=_clean_env(),
                            stdin=subprocess.DEVNULL, **_no_window())
    lines: list[str] = []
    assert proc.stdout is not None
    for raw in proc.stdout:
        line = raw.rstrip()
        if line:
            lines.append(line)
            log(line)
        if canceled():
            proc.kill()
            proc.wait()
            raise InstallError("Cancelled: the engine was not set up (the previous one, if "
                               "any, is left as it was).")
    rc = proc.wait()
    if check and rc != 0:
        raise InstallError(f"{' '.join(cmd[:3])} failed (exit code {rc}): "
                           + " ".join(lines[-3:]))
    return rc, lines


def _clean_env() -> dict[str, str]:
    """QGIS's own Python settings would make another interpreter load QGIS's modules."""
    env = dict(os.environ)
    for key in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONEXECUTABLE",
                "VIRTUAL_ENV", "PIP_REQUIRE_VIRTUALENV"):
        env.pop(key, None)
    env["PYTHONIOENCODING"] = "utf-8"
    return env


def _no_window() -> dict:
    return {"creationflags": getattr(subprocess, "CREATE_NO_WINDOW", 0)} if os.name == "nt" \
        else {}

"""The documentation: the API reference lists exactly ``swm_gis.__all__`` with the signatures
Python sees, the Sphinx build has no warning, and the tutorial notebook runs.

The build and the notebook run in subprocesses, the way ``make docs`` and ``make tutorial`` run
them, so ``make test`` checks what CI and a reader get.
"""

from __future__ import annotations

import base64
import dataclasses
import html.parser
import importlib.util
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import types
import typing
import zlib
from pathlib import Path

import pytest

import swm_gis

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
NOTEBOOK = DOCS / "tutorial.ipynb"
PUBLIC = [name for name in swm_gis.__all__ if name != "__version__"]
API_RST = DOCS / "api.rst"


def _env() -> dict[str, str]:
    """The subprocesses import this checkout's swm_gis (and the notebook's kernel does too)."""
    path = os.environ.get("PYTHONPATH", "")
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(REPO), path) if p),
            "QT_QPA_PLATFORM": "offscreen"}


def sphinx_build(src: Path, out: Path, *options: str) -> subprocess.CompletedProcess:
    """What ``make docs`` runs: warnings are errors."""
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-E", "-q", "-b", "html",
         *options, str(src), str(out)],
        capture_output=True, text=True, env=_env(), cwd=REPO, timeout=300)


# --------------------------------------------------------------------------- the reference's names
def listed_names(rst: str) -> list[str]:
    """Names in the ``autosummary`` blocks and ``py:data`` directives of an rst page, in order."""
    names, in_block = [], False
    for line in rst.splitlines():
        if line.startswith(".. autosummary::"):
            in_block = True
            continue
        data = re.match(r"\.\. py:data:: (\S+)", line)
        if data:
            names.append(data.group(1))
        if in_block:
            if line and not line.startswith(" "):
                in_block = False
            elif line.strip() and not line.strip().startswith(":"):
                names.append(line.strip())
    return names


def test_listed_names_reads_autosummary_and_data():
    rst = ("Title\n=====\n\n.. autosummary::\n   :toctree: generated/\n   :nosignatures:\n\n"
           "   screen\n   load_config\n\nText after.\n\n.. py:data:: __version__\n   :type: str\n")
    assert listed_names(rst) == ["screen", "load_config", "__version__"]


def test_listed_names_of_empty_or_hostile_text():
    assert listed_names("") == []
    # an indented line outside any autosummary block is not a name
    assert listed_names("Para\n\n   quoted screen\n.. note:: x\n   screen\n") == []


def reference_names() -> list[str]:
    """The names ``docs/api.rst`` lists, parsed at collection time."""
    return listed_names(API_RST.read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", reference_names())
def test_every_name_in_the_reference_imports(name):
    namespace: dict = {}
    exec(f"from swm_gis import {name}", namespace)  # what a reader of the reference types
    assert namespace[name] is getattr(swm_gis, name)


def test_reference_lists_exactly_the_public_api():
    listed = listed_names(API_RST.read_text(encoding="utf-8"))
    assert len(listed) == len(set(listed)), "a name is listed twice"
    assert sorted(listed) == sorted(swm_gis.__all__)


def all_groups(source: str) -> list[list[str]]:
    """The names of ``__all__`` in the groups its comments make in ``swm_gis/__init__.py``."""
    body = re.search(r"^__all__ = \[\n(.*?)^\]", source, flags=re.MULTILINE | re.DOTALL)
    groups: list[list[str]] = []
    for line in body.group(1).splitlines():
        if line.strip().startswith("#"):
            groups.append([])
        elif groups:
            groups[-1] += re.findall(r'"([^"]+)"', line)
    return [g for g in groups if g]


def test_all_groups_of_a_small_source():
    source = '__all__ = [\n    # jobs\n    "a", "b",\n    "c",\n    # errors\n    "E",\n]\n'
    assert all_groups(source) == [["a", "b", "c"], ["E"]]


def test_reference_groups_follow_all():
    """The sections list the groups of ``__all__`` (job level, what the jobs take and return,
    frame level, errors and version), in order."""
    sections = re.split(r"\n(.+)\n-+\n", API_RST.read_text(encoding="utf-8"))
    titles = sections[1::2]
    assert titles == ["Job level", "Results", "Frame level", "Errors and version"]
    listed = [listed_names(s) for s in sections[2::2]]
    init = (Path(swm_gis.__file__).read_text(encoding="utf-8"))
    assert listed == all_groups(init)


def documented_errors(rst: str) -> list[str]:
    return re.findall(r"^\.\. autoexception:: (\w+)$", rst, flags=re.MULTILINE)


def test_reference_documents_every_error_subclass():
    from swm_gis import errors

    subclasses = {name for name, obj in vars(errors).items()
                  if isinstance(obj, type) and issubclass(obj, errors.SwmGisError)
                  and obj is not errors.SwmGisError}
    documented = documented_errors(API_RST.read_text(encoding="utf-8"))
    assert sorted(documented) == sorted(subclasses)
    assert "CrsError" in documented  # the one a frame-level caller meets first


# --------------------------------------------------------------------------- docstrings
@pytest.mark.parametrize("name", [n for n in PUBLIC if inspect.isfunction(getattr(swm_gis, n))])
def test_function_documents_every_parameter_and_its_return(name):
    from numpydoc.validate import validate

    errors = [e for e in validate(f"swm_gis.{name}")["errors"]
              if e[0] in ("GL08", "PR01", "PR02", "RT01", "SS01")]
    assert errors == []


@pytest.mark.parametrize("name", [n for n in PUBLIC
                                  if dataclasses.is_dataclass(getattr(swm_gis, n))])
def test_result_class_documents_every_public_field(name):
    from numpydoc.docscrape import ClassDoc

    cls = getattr(swm_gis, name)
    doc = ClassDoc(cls, config={"show_class_members": False})
    documented = {n.strip() for item in doc["Attributes"] + doc["Parameters"]
                  for n in item.name.split(",")}
    fields = {f.name for f in dataclasses.fields(cls) if not f.name.startswith("_")}
    assert fields <= documented, f"undocumented: {sorted(fields - documented)}"


# --------------------------------------------------------------------------- signatures in HTML
class _Signatures(html.parser.HTMLParser):
    """The ``<em class="sig-param">`` texts of each ``<dt id="swm_gis.NAME">`` in a page."""

    def __init__(self) -> None:
        super().__init__()
        self.params: dict[str, list[str]] = {}
        self._dt: str | None = None
        self._em: list[str] | None = None
        self._depth = 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "dt" and (attrs.get("id") or "").startswith("swm_gis."):
            self._dt = attrs["id"].removeprefix("swm_gis.")
            self.params[self._dt] = []
        elif self._dt and tag == "em" and "sig-param" in (attrs.get("class") or ""):
            self._em, self._depth = [], 0
        elif self._em is not None and tag == "em":
            self._depth += 1

    def handle_endtag(self, tag):
        if tag == "dt":
            self._dt = None
        elif tag == "em" and self._em is not None:
            if self._depth:
                self._depth -= 1
            else:
                self.params[self._dt].append(" ".join("".join(self._em).split()))
                self._em = None

    def handle_data(self, data):
        if self._em is not None:
            self._em.append(data)


def rendered_params(page: str, name: str) -> list[str] | None:
    """The parameters Sphinx rendered for ``swm_gis.NAME`` (None: no such entry)."""
    parser = _Signatures()
    parser.feed(page)
    return parser.params.get(name)


def type_text(hint) -> str:
    """An annotation as Sphinx shows it with short names: ``str | PathLike | None``."""
    if hint is type(None) or hint is None:
        return "None"
    if hint is typing.Any:
        return "Any"
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        return " | ".join(type_text(a) for a in typing.get_args(hint))
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is not None and args:
        if len(args) == 2 and isinstance(args[0], list):  # Callable[[a, b], r]
            inner = ", ".join(type_text(a) for a in args[0])
            return f"{origin.__name__}[[{inner}], {type_text(args[1])}]"
        return f"{origin.__name__}[{', '.join(type_text(a) for a in args)}]"
    if isinstance(hint, type):
        return hint.__name__
    return str(hint).rsplit(".", 1)[-1]


def expected_params(obj) -> list[str]:
    """``inspect.signature`` in Sphinx's notation: ``name: type = default``, ``*`` before the
    keyword-only ones; a dataclass field's default factory shows as a call (``dict()``)."""
    signature = inspect.signature(obj)
    hints = typing.get_type_hints(obj)
    factories = {f.name: f"{f.default_factory.__name__}()"
                 for f in (dataclasses.fields(obj) if dataclasses.is_dataclass(obj) else ())
                 if f.default_factory is not dataclasses.MISSING}
    out, star = [], False
    for p in signature.parameters.values():
        if p.kind is p.KEYWORD_ONLY and not star:
            out.append("*")
            star = True
        text = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "") + p.name
        if p.name in hints:
            text += f": {type_text(hints[p.name])}"
        if p.name in factories:
            text += f" = {factories[p.name]}"
        elif p.default is not p.empty:
            text += f" = {p.default!r}"
        out.append(text)
    return out


def test_type_text_examples():
    assert type_text(str | os.PathLike | None) == "str | PathLike | None"
    assert type_text(typing.Callable[[float, str], None] | None) == \
        "Callable[[float, str], None] | None"
    assert type_text(dict[str, typing.Any]) == "dict[str, Any]"
    assert type_text(typing.Optional[int]) == "int | None"  # noqa: UP045 (the old spelling)


def test_expected_params_marks_keyword_only_and_factories():
    @dataclasses.dataclass
    class Result:
        rows: int
        notes: list[str] = dataclasses.field(default_factory=list)

    def job(config: str, out: Path | None = None, *, workers: int = 2, **extra) -> None:
        """A job."""

    assert expected_params(job) == ["config: str", "out: Path | None = None", "*",
                                    "workers: int = 2", "**extra"]
    assert expected_params(Result) == ["rows: int", "notes: list[str] = list()"]


def test_rendered_params_of_a_page():
    page = ('<dl><dt class="sig sig-object py" id="swm_gis.f"><span>swm_gis.f</span>('
            '<em class="sig-param"><span class="n">a</span>: <span>int</span></em>, '
            '<em class="sig-param"><span class="o"><abbr>*</abbr></span></em>, '
            '<em class="sig-param">b = <span class="default_value">1</span></em>)</dt>'
            '<dd><em>not a parameter</em></dd></dl>')
    assert rendered_params(page, "f") == ["a: int", "*", "b = 1"]
    assert rendered_params(page, "g") is None
    assert rendered_params("<p>not a page", "f") is None


@pytest.fixture(scope="module")
def built_html(tmp_path_factory) -> Path:
    if importlib.util.find_spec("sphinx") is None:
        pytest.fail('Sphinx is missing: pip install -e ".[docs]" (make setup does).')
    out = tmp_path_factory.mktemp("docs") / "html"
    run = sphinx_build(DOCS, out)
    assert run.returncode == 0, f"the docs build failed or warned:\n{run.stderr[-4000:]}"
    return out


@pytest.mark.slow
def test_docs_build_without_warnings(built_html):
    assert (built_html / "index.html").is_file()
    assert (built_html / "api.html").is_file()
    tutorial = (built_html / "tutorial.html").read_text(encoding="utf-8")
    assert "abutter_package" in tutorial and "Screen a site" in tutorial
    # the page shows the run: the screening's summary, the mailing list and the map
    assert re.search(r"Stormwater management permit[^<]{0,40}YES", tutorial, re.IGNORECASE)
    assert "RUSSO KAREN" in tutorial
    assert re.search(r'<img alt="output" src="_images/cell\d+-\d+\.png"', tutorial)


def inventory(path: Path) -> dict[str, str]:
    """``objects.inv``: object name -> role (``py:function``, ``py:class``, ...)."""
    raw = path.read_bytes()
    lines = raw.split(b"\n", 4)
    assert lines[2].startswith(b"# Version"), "not a Sphinx inventory"
    body = zlib.decompress(lines[4]).decode("utf-8")
    entries = (re.match(r"(\S+)\s+(\S+)\s+-?\d+", line) for line in body.splitlines())
    return {m.group(1): m.group(2) for m in entries if m}


@pytest.mark.slow
def test_inventory_holds_every_public_name_with_its_kind(built_html):
    inv = inventory(built_html / "objects.inv")
    for name in swm_gis.__all__:
        obj = getattr(swm_gis, name)
        role = ("py:exception" if isinstance(obj, type) and issubclass(obj, BaseException)
                else "py:class" if isinstance(obj, type)
                else "py:function" if callable(obj) else "py:data")
        assert inv.get(f"swm_gis.{name}") == role, name


@pytest.mark.slow
def test_inventory_holds_the_error_subclasses(built_html):
    inv = inventory(built_html / "objects.inv")
    for name in documented_errors(API_RST.read_text(encoding="utf-8")):
        assert inv.get(f"swm_gis.errors.{name}") == "py:exception", name


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in reference_names() if n != "__version__"])
def test_documented_signature_is_pythons(built_html, name):
    obj = getattr(swm_gis, name)
    page = (built_html / "generated" / f"swm_gis.{name}.html").read_text(encoding="utf-8")
    shown = rendered_params(page, name)
    assert shown is not None, f"no entry for swm_gis.{name}"
    if isinstance(obj, type) and issubclass(obj, BaseException):
        # an exception's page shows no constructor signature, but the root's: it takes the
        # message (with references, swm_gis.messages) that every subclass is raised with
        assert shown == (["message: object = ''", "*args: object"] if obj is swm_gis.SwmGisError
                         else [])
        return
    assert shown == expected_params(obj)


@pytest.mark.slow
def test_a_warning_fails_the_build(tmp_path):
    """-W is in force: a reference to a name that does not exist stops the build."""
    src = tmp_path / "src"
    shutil.copytree(DOCS, src, ignore=shutil.ignore_patterns("_build", "generated"))
    api = src / "api.rst"
    api.write_text(api.read_text(encoding="utf-8").replace(
        "   load_config\n", "   load_config\n   no_such_function\n", 1), encoding="utf-8")
    run = sphinx_build(src, tmp_path / "html", "-D", "tutorial_execute=0")
    assert run.returncode != 0
    assert "no_such_function" in run.stderr


# --------------------------------------------------------------------------- the tutorial
def test_notebook_is_stored_without_outputs():
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert code, "the tutorial has no code"
    for cell in code:
        assert cell["outputs"] == [] and cell["execution_count"] is None, cell["id"]
    assert nb["metadata"]["kernelspec"]["name"] == "python3"


def _clear_notebook():
    spec = importlib.util.spec_from_file_location("clear_notebook",
                                                  REPO / "scripts" / "clear_notebook.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_stored_notebook_is_already_cleared():
    """``make tutorial-clear`` would change nothing: no outputs, no execution records."""
    clear = _clear_notebook()
    text = NOTEBOOK.read_text(encoding="utf-8")
    assert clear.dumps(clear.cleared(json.loads(text))) == text


def test_clearing_an_executed_notebook(tmp_path):
    executed = {
        "cells": [
            {"cell_type": "code", "execution_count": 3, "id": "a", "source": ["1 + 1"],
             "metadata": {"execution": {"iopub.status.idle": "2026-01-01T00:00:00Z"},
                          "tags": ["keep"]},
             "outputs": [{"output_type": "execute_result", "data": {"text/plain": "2"},
                          "execution_count": 3, "metadata": {}}]},
            {"cell_type": "markdown", "id": "b", "metadata": {}, "source": ["Text é"]},
        ],
        "metadata": {"language_info": {"name": "python", "version": "3.11.2"}},
        "nbformat": 4, "nbformat_minor": 5,
    }
    path = tmp_path / "t.ipynb"
    path.write_text(json.dumps(executed), encoding="utf-8")
    clear = _clear_notebook()
    assert clear.main([str(path)]) == 0
    got = json.loads(path.read_text(encoding="utf-8"))
    assert got["cells"][0]["outputs"] == [] and got["cells"][0]["execution_count"] is None
    assert got["cells"][0]["metadata"] == {"tags": ["keep"]}
    assert got["cells"][1] == executed["cells"][1]
    assert got["metadata"]["language_info"] == {"name": "python"}
    assert executed["cells"][0]["outputs"]  # the input dict is not modified
    before = path.read_text(encoding="utf-8")
    clear.main([str(path)])
    assert path.read_text(encoding="utf-8") == before  # clearing twice changes nothing


def test_notebook_calls_the_documented_jobs():
    source = "".join("".join(c["source"]) for c in json.loads(
        NOTEBOOK.read_text(encoding="utf-8"))["cells"])
    for call in ("swm_gis.load_config(", "swm_gis.screen(", "swm_gis.abutter_package(",
                 ".write(", "swm_gis.find_abutters("):
        assert call in source


def _ext():
    spec = importlib.util.spec_from_file_location("swm_docs", DOCS / "_ext" / "swm_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_notebook_page_keeps_markdown_and_code(tmp_path):
    nb = {"cells": [
        {"cell_type": "markdown", "source": ["# Title\n", "Text."]},
        {"cell_type": "code", "source": ["x = 1\n", "x"], "outputs": []},
        {"cell_type": "code", "source": [], "outputs": []},
        {"cell_type": "raw", "source": ["ignored"]},
    ]}
    (tmp_path / "t.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    _ext().notebook_to_myst(tmp_path / "t.ipynb", tmp_path / "t.md")
    assert (tmp_path / "t.md").read_text(encoding="utf-8") == (
        "<!-- Generated from t.ipynb by docs/_ext/swm_docs.py; edit the notebook. -->\n\n"
        "# Title\nText.\n\n```python\nx = 1\nx\n```\n")


def test_output_blocks_image_html_text_and_no_stderr(tmp_path):
    png = base64.b64encode(b"\x89PNG fake").decode()
    outputs = [
        {"output_type": "stream", "name": "stdout", "text": ["a\n", "b\n"]},
        {"output_type": "stream", "name": "stderr", "text": "UserWarning: noise"},
        {"output_type": "display_data", "data": {"image/png": png, "text/plain": "<Figure>"}},
        {"output_type": "execute_result", "data": {"text/html": "<b>x</b>", "text/plain": "x"}},
        {"output_type": "execute_result", "data": {"text/plain": ["(1, ", "2)"]}},
        {"output_type": "execute_result", "data": {}},
    ]
    blocks = _ext().output_blocks(outputs, image_stem="cell03", files=tmp_path / "_files")
    assert blocks == [
        "```none\na\nb\n```",
        "![output](_files/cell03-2.png)",
        '```{raw} html\n<div class="nb-output"><b>x</b></div>\n```',
        "```none\n(1, 2)\n```",
    ]
    assert (tmp_path / "_files" / "cell03-2.png").read_bytes() == b"\x89PNG fake"
    assert _ext().output_blocks([], image_stem="c", files=tmp_path / "none") == []
    assert not (tmp_path / "none").exists()


def test_notebook_page_of_a_missing_notebook(tmp_path):
    with pytest.raises(FileNotFoundError):
        _ext().notebook_to_myst(tmp_path / "missing.ipynb", tmp_path / "t.md")
    assert not (tmp_path / "t.md").exists()


def test_public_alias_resolves_only_the_same_public_object():
    ext = _ext()
    assert ext.public_alias("swm_gis.rules.development.development_type") == \
        "swm_gis.development_type"
    assert ext.public_alias("swm_gis.jobs.load_config") == "swm_gis.load_config"
    assert ext.public_alias("swm_gis.rules.floodplain.sfha_mask") is None      # not public
    assert ext.public_alias("swm_gis.no_such_module.screen") is None
    assert ext.public_alias("pandas.DataFrame") is None
    assert ext.public_alias("") is None


def test_internal_object_finds_helpers_and_refuses_typos():
    ext = _ext()
    page = "generated/swm_gis.trace_receiving_waters"
    assert ext.internal_object("swm_gis.rules.floodplain.sfha_mask", page)
    assert ext.internal_object("swm_gis.rules.floodplain", page)
    assert not ext.internal_object("swm_gis.rules.floodplain.sfha_mask_typo", page)
    assert not ext.internal_object("swm_gis.no_such_module.x", page)
    # a short name: looked up in the module defining the documented object
    documented_in = sys.modules[swm_gis.trace_receiving_waters.__module__]
    helper = next(n for n, o in vars(documented_in).items()
                  if inspect.isfunction(o) and not n.startswith("_")
                  and n not in swm_gis.__all__)
    assert ext.internal_object(helper, page)
    assert not ext.internal_object("no_such_helper", page)
    assert not ext.internal_object(helper, "api")  # not an object's page
    assert not ext.internal_object("__class__.__init__", "generated/swm_gis.nothing")


def test_factory_defaults_leave_other_signatures_alone():
    ext = _ext()
    assert ext.factory_defaults(swm_gis.screen, "(config, site)") == "(config, site)"
    assert ext.factory_defaults(swm_gis.Screening, None) is None
    assert ext.split_params("a: dict[str, int] = <factory>, b=(1, 2)") == [
        "a: dict[str, int] = <factory>", " b=(1, 2)"]


@pytest.mark.slow
def test_tutorial_notebook_runs(built_html):
    """Every cell executes with this checkout's swm_gis, once per test run: the docs build runs
    the notebook (``docs/_ext/swm_docs.py``, nbclient, the kernel ``make tutorial``'s nbmake
    drives too) and a failing cell fails that build, so ``built_html`` is there only if every
    cell ran. The page then shows each step's result: every code cell, in order, followed by
    its output (text, a table or the map)."""
    page = (built_html / "_sources" / "tutorial.md.txt").read_text(encoding="utf-8")
    cells = [_text_of(c["source"]).strip() for c in json.loads(
        NOTEBOOK.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "code"]
    cells = [c for c in cells if c]
    shown = page.split("```python\n")[1:]
    assert len(shown) == len(cells), "the page shows a different number of code cells"
    for source, chunk in zip(cells, shown, strict=True):
        code, _, after = chunk.partition("\n```\n")
        assert code.strip() == source
        assert after.lstrip().startswith(("```none", "```{raw}", "![output]")), (
            f"no output after the cell:\n{source}")


def _text_of(source) -> str:
    return "".join(source) if isinstance(source, list) else str(source)

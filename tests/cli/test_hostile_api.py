"""The Python API's ``.write()`` is as safe as the commands: an output that is or holds one of
the result's inputs (config, site, layers) is refused, ``overwrite`` or not, and a write that
fails midway leaves the previous outputs and no temporaries."""

from __future__ import annotations

import pytest
from support.hostile import SUBJECT, hashes, leftovers, sample_copy

import swm_gis
from swm_gis.errors import OutputError


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    """A private copy of the sample town's folder (its town.toml), for this module."""
    return sample_copy(tmp_path_factory.mktemp("api"))


@pytest.fixture(scope="module")
def results(clone):
    cfg = swm_gis.load_config(clone)
    site = f"{clone.parent / 'sites.gpkg'}:site"
    return {"screening": swm_gis.screen(cfg, site),
            "abutters": swm_gis.abutter_package(cfg, parcels=[SUBJECT]),
            "applicability": swm_gis.applicability_map(cfg)}


def _write(result, out, **kwargs):
    if isinstance(result, swm_gis.Screening):
        return result.write(out, report=False, **kwargs)
    return result.write(out, **kwargs)


@pytest.mark.parametrize(("kind", "target", "relation"), [
    ("screening", ".", "contains the input"),
    ("screening", "sites.gpkg", "is the input"),
    ("screening", "sample.gpkg/out", "is inside the input"),
    ("abutters", ".", "contains the input"),
    ("abutters", "sample.gpkg", "is the input"),
    ("applicability", "sample.gpkg", "is the input"),
    ("applicability", "town.toml", "is the input"),
])
def test_write_over_an_input_is_refused(clone, results, kind, target, relation):
    before = hashes(clone.parent)
    out = clone.parent / target
    with pytest.raises(OutputError, match=relation):
        _write(results[kind], out, overwrite=True)
    assert hashes(clone.parent) == before and leftovers(clone.parent) == []


def _break(monkeypatch, kind):
    def boom(*args, **kwargs):
        raise OSError("simulated crash while writing")
    if kind == "screening":
        monkeypatch.setattr("swm_gis.results.write_geopackage", boom)
    elif kind == "abutters":
        monkeypatch.setattr("swm_gis.reports.certified_mail.write_certified_mail", boom)
    else:
        monkeypatch.setattr("swm_gis.applicability.write.write_style", boom)


@pytest.mark.parametrize("kind", ["screening", "abutters", "applicability"])
def test_a_write_that_fails_midway_keeps_the_previous_outputs(tmp_path, results, monkeypatch,
                                                              kind):
    out = tmp_path / ("map.gpkg" if kind == "applicability" else "out")
    written = _write(results[kind], out)
    before = hashes(tmp_path)
    assert before and all(str(p).startswith(str(tmp_path)) for p in (
        written.values() if isinstance(written, dict) else [written]))
    _break(monkeypatch, kind)
    with pytest.raises(OSError, match="simulated crash"):
        _write(results[kind], out, overwrite=True)
    assert hashes(tmp_path) == before and leftovers(tmp_path) == []


@pytest.mark.parametrize("kind", ["screening", "abutters"])
def test_write_returns_the_final_paths_and_refuses_existing_without_overwrite(
        tmp_path, results, kind):
    out = tmp_path / "out"
    written = _write(results[kind], out)
    assert all(p.parent == out and p.is_file() for p in written.values())
    with pytest.raises(swm_gis.errors.OutputExistsError):
        _write(results[kind], out)
    assert leftovers(tmp_path) == []

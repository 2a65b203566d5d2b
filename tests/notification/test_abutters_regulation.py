"""The abutter package says which regulation profile it applied, and a town that names none gets
the ``regulation_not_named`` warning in abutters.json, the summary and the certification
(issue 33)."""

from __future__ import annotations

import json
import re

from pypdf import PdfReader
from support.townkit import SAMPLE_CONFIG

from swm_gis.cli import main

SAMPLE_SUBJECT = "M_236682_917765"


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_the_package_names_the_profile_and_an_unnamed_one_is_warned_everywhere(tmp_path, capsys):
    text = re.sub(r'path = "([^"]+)"',
                  lambda m: f'path = "{(SAMPLE_CONFIG.parent / m[1]).as_posix()}"',
                  SAMPLE_CONFIG.read_text(encoding="utf-8"))
    unnamed = tmp_path / "town.toml"
    unnamed.write_text(re.sub(r'regulation = "[^"]+"\n', "", text), encoding="utf-8")
    out = tmp_path / "o"
    code = main(["--progress", "none", "abutters", "--config", str(unnamed), "--parcel",
                 SAMPLE_SUBJECT, "--out", str(out)])
    said = _flat(capsys.readouterr().out)
    assert code == 0
    doc = json.loads((out / "abutters.json").read_text(encoding="utf-8"))
    named = [w for w in doc["warnings"] if w["code"] == "regulation_not_named"]
    assert len(named) == 1 and named[0]["text"].startswith(
        "The town config for Sampleton (SYNTHETIC) names no regulation, so the Town of "
        "Lynnfield Stormwater Management Rules and Regulations (Chapter 320) (profile "
        "lynnfield-ch320) was applied")
    assert (doc["regulation"]["id"], doc["regulation"]["version"],
            doc["regulation"]["named_in_config"]) == ("lynnfield-ch320", "2021-08-17", False)
    assert "Warning (regulation_not_named): The town config for Sampleton" in said
    certification = _flat(" ".join(p.extract_text() for p in PdfReader(
        out / "certification.pdf").pages))
    assert "regulation_not_named" in certification


def test_a_town_naming_its_regulation_records_it_without_a_warning(sample_demo):
    doc = json.loads((sample_demo.abutters / "abutters.json").read_text(encoding="utf-8"))
    assert not [w for w in doc["warnings"] if w["code"] == "regulation_not_named"]
    assert (doc["regulation"]["id"], doc["regulation"]["named_in_config"]) == (
        "lynnfield-ch320", True)

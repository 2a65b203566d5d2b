"""``swm-gis regulation list | export | check`` (docs/regulations.md)."""

from __future__ import annotations

import pytest

from swm_gis.cli import main
from swm_gis.config.regulation import BUNDLED_DIR


def test_list_prints_one_profile_a_line_id_first(capsys):
    assert main(["regulation", "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("\t") for line in lines] == [
        ["lynnfield-ch320", "Lynnfield",
         "Stormwater Management Rules and Regulations (Chapter 320)", "effective 2021-08-17"],
        ["north-andover-ch250", "North Andover",
         "Stormwater Management and Erosion Control Regulations (Chapter 250)",
         "effective 2009-05-12"],
        ["westwood-ch350", "Westwood", "Stormwater Management Bylaw and Regulations (Chapter 350)",
         "effective 2015-05-04"]]


@pytest.mark.parametrize("profile_id", ["lynnfield-ch320", "westwood-ch350",
                                        "north-andover-ch250"])
def test_export_then_check_round_trips(tmp_path, capsys, profile_id):
    out = tmp_path / "elsewhere" / "mytown.toml"
    assert main(["--progress", "none", "regulation", "export", profile_id, "--out",
                 str(out)]) == 0
    assert out.is_file() and not [p for p in out.parent.iterdir() if p != out]
    capsys.readouterr()
    assert main(["regulation", "check", str(out)]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith(f"{out}: valid: {profile_id}, ") and "\n" not in line


def test_export_refuses_to_overwrite_unless_asked(tmp_path, capsys):
    out = tmp_path / "copy.toml"
    out.write_text("keep", encoding="utf-8")
    assert main(["regulation", "export", "westwood-ch350", "--out", str(out)]) == 2
    assert "--overwrite" in capsys.readouterr().err and out.read_text() == "keep"
    assert main(["--progress", "none", "regulation", "export", "westwood-ch350", "--out",
                 str(out), "--overwrite"]) == 0
    assert out.read_text(encoding="utf-8").count('id = "westwood-ch350"') == 1


def test_export_of_an_unknown_id_suggests_the_closest(tmp_path, capsys):
    assert main(["regulation", "export", "lynfield-ch320", "--out",
                 str(tmp_path / "x.toml")]) == 2
    assert 'Did you mean "lynnfield-ch320"?' in capsys.readouterr().err
    assert not (tmp_path / "x.toml").exists()


def _broken(tmp_path, old: str, new: str):
    text = (BUNDLED_DIR / "westwood-ch350.toml").read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "broken.toml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


@pytest.mark.parametrize(("old", "new", "words"), [
    ('town = "Westwood"\n', "", "town is missing: it must be a text value"),
    ("disturbed_area_sqft = 5000", 'disturbed_area_sqft = "5000"',
     "versions[0].applicability.tiers[0].disturbed_area_sqft = '5000' must be a number"),
    ("comparison = \"at_least\"", "comparisn = \"at_least\"",
     'unknown key(s) comparisn in versions[0].applicability.tiers[0]. Did you mean '
     '"comparison"?'),
    ("effective = 2015-05-04\n", "effective = 2015-05-04\n" + "adopted = 2016-01-01\n",
     "versions[0].adopted = 2016-01-01 is after its effective date 2015-05-04"),
])
def test_check_exits_2_naming_the_key_and_what_it_expected(tmp_path, capsys, old, new, words):
    path = _broken(tmp_path, old, new)
    assert main(["regulation", "check", str(path)]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert words in err and str(path) in err


def test_check_refuses_effective_dates_out_of_order(tmp_path, capsys):
    path = _broken(tmp_path, "[versions.applicability]\n",
                   '[[versions]]\nversion = "older"\neffective = 2010-01-01\n\n'
                   "[versions.applicability]\n")
    # the appended version now holds the applicability tables of the file that follow it: its
    # date is before the first version's, which is refused first
    assert main(["regulation", "check", str(path)]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "versions[1].effective = 2010-01-01 must be after versions[0].effective = " \
        "2015-05-04" in err

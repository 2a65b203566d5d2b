"""A variant of Lynnfield's regulation profile for a made-up town, written to a folder: what a
town brings when it copies a bundled profile and edits its numbers and names (issue 33)."""

from __future__ import annotations

from pathlib import Path

from swm_gis.io.regulations import exported_text


def variant_profile(folder: Path, *, trigger_sqft: int = 20_000) -> Path:
    """Lynnfield's profile edited for a made-up town: other id, town, title, trigger, citation,
    retention depth and notice distance (the files it names made absolute by the export)."""
    text = exported_text("lynnfield-ch320")
    for old, new in [
        ('id = "lynnfield-ch320"', 'id = "othertown-ch9"'),
        ('town = "Lynnfield"', 'town = "Othertown"'),
        ('title = "Stormwater Management Rules and Regulations"', 'title = "Runoff Rules"'),
        ('chapter = "Chapter 320"', 'chapter = "Chapter 9"'),
        ("disturbed_area_sqft = 43560", f"disturbed_area_sqft = {trigger_sqft}"),
        ('citation = "Bylaw ch. 213, Art. II (Ch. 320 applicability A)"\ndisturbed',
         'citation = "Othertown Rules § 9-3 A"\ndisturbed'),
        ('disturbance = "Bylaw ch. 213, Art. II (Ch. 320 applicability A); exemptions Bylaw '
         '213-16B"', 'disturbance = "Othertown Rules § 9-3"'),
        ("retention_depth_in = 1.0", "retention_depth_in = 1.5"),
        ("distance_ft = 100", "distance_ft = 300"),
    ]:
        assert old in text, old
        text = text.replace(old, new, 1)
    out = folder / "othertown.toml"
    out.write_text(text, encoding="utf-8")
    return out


def foreign_profile(folder: Path) -> Path:
    """Lynnfield's profile made another town's throughout: every name, chapter, section and
    office replaced, and no town-supplied text (``text``, ``texts``, ``quotes``, the general
    requirements, checklist and pollutant requirements files), so an output that still prints
    a Lynnfield word took it from code, not from the profile."""
    text = exported_text("lynnfield-ch320")
    text = "\n".join(line for line in text.splitlines()
                     if not line.startswith(("text = ", "texts = ", "quotes = ",
                                             "general_requirements_file = ",
                                             "checklist_file = ",
                                             "pollutant_requirements = ")))
    for old, new in [("lynnfield-ch320", "othertown-ch9"), ("lynnfield-chapter-320", "x"),
                     ("Lynnfield", "Othertown"), (" 320-21", " 9-21"),
                     ("Chapter 320", "Chapter 9"), ("Ch. 320", "Ch. 9"), ("§§ 320-", "§§ 9-"),
                     ("§ 320-", "§ 9-"), ('"320-', '"9-'), (", 320-", ", 9-"),
                     ("Essex", "Middlesex"), ("Department of Public Works", "Highway Office"),
                     ("Bylaw ch. 213", "Bylaw ch. 77"), ("Chapter 213", "Chapter 77"),
                     ("213-16B", "77-4B")]:
        text = text.replace(old, new)
    out = folder / "othertown-ch9.toml"
    out.write_text(text + "\n", encoding="utf-8")
    return out

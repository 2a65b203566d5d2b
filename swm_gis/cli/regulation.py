"""``swm-gis regulation ...``: list, export and check regulation profiles (docs/regulations.md)."""

from __future__ import annotations

from pathlib import Path

import typer

from swm_gis.cli._common import app, emit_lines, overwrite_option, state

regulation_app = typer.Typer(
    help="Regulation profiles: a town's stormwater regulation as data (list, export, check).",
    no_args_is_help=True)
app.add_typer(regulation_app, name="regulation")


@regulation_app.command("list")
def list_profiles(
    exemptions: bool = typer.Option(
        False, "--exemptions",
        help="Add to each line the exemption ids swm-gis screen --exemption accepts under the "
             "profile's latest version (each id with its citation)."),
) -> None:
    """List the bundled regulation profiles, one a line: id, town, title, effective date.

    The fields are separated by tabs; the effective date is that of the latest version. With
    --progress json the result also gives each profile's exemption ids (``exemptions``).

    Example: swm-gis regulation list --exemptions
    """
    from swm_gis.config.regulation import bundled_regulations

    profiles = bundled_regulations()
    lines = [p.line() for p in profiles]
    if exemptions:
        lines = [line + "\t" + ("exemptions: " + ", ".join(
                     f"{e.key} ({e.citation})" for e in p.versions[-1].exemptions)
                     if p.versions[-1].exemptions else "no exemptions listed")
                 for line, p in zip(lines, profiles, strict=True)]
    emit_lines("regulation list", lines, profiles=[p.id for p in profiles],
               exemptions={p.id: [e.key for e in p.versions[-1].exemptions]
                           for p in profiles})


@regulation_app.command("export")
def export(
    profile_id: str = typer.Argument(..., metavar="ID",
                                     help="A bundled profile's id (swm-gis regulation list)."),
    out: Path = typer.Option(..., "--out", help="The TOML file to write, e.g. mytown.toml."),
    overwrite: bool = overwrite_option(),
) -> None:
    """Write a bundled profile to a TOML file, to copy and edit for another town.

    The files it names (the town's text, checklists) point at the installed package, so the copy
    checks as it is; change the id, town, figures and citations, then run regulation check.

    Example: swm-gis regulation export westwood-ch350 --out mytown.toml
    """
    from swm_gis.io.regulations import export_regulation
    from swm_gis.manifest import build, file_entry

    written = export_regulation(profile_id, out, overwrite=overwrite)
    summary = [f"Exported {profile_id}."]
    state.reporter.result("regulation export", {"profile": written}, summary=summary,
                          manifest=build("regulation export", Path(written).parent,
                                         [file_entry("profile", written)], summary=summary))


@regulation_app.command("check")
def check(file: Path = typer.Argument(..., metavar="FILE.toml",
                                      help="The profile to check.")) -> None:
    """Check a regulation profile strictly: exit 0 and one line saying what it holds, or exit 2
    naming the key that is unknown, missing or of the wrong kind and what it expected.

    Example: swm-gis regulation check mytown.toml
    """
    from swm_gis.config.regulation import read_regulation

    profile = read_regulation(file)
    latest = profile.versions[-1]
    tiers = ", ".join(dict.fromkeys(f"{t.name} ({t.tier})" for t in latest.tiers))
    line = (f"{file}: valid: {profile.id}, {profile.town}, {profile.title}; "
            f"{len(profile.versions)} version(s), latest {latest.version} effective "
            f"{latest.effective:%Y-%m-%d}; tiers: {tiers}; "
            f"{len(profile.not_covered)} item(s) not covered")
    emit_lines("regulation check", [line], profile=profile.id)

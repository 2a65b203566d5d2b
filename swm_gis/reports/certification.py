"""The certified abutters list's cover sheet (``certification.pdf``; ``docs/abutters.md``).

Chapter 320's permit procedure, A(2), asks for a list of abutters certified by the Board of
Assessors. The mailing list itself stays a plain table (a mail merge reads it as is); what the
Assessors certify, and what the list was made from, goes here: the subject parcels, the distance,
the assessing fiscal year and every source with its data vintage, the counts (recipients, merges,
records that cannot be mailed), the owners the Assessors must supply an address for, and the
signature block.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from swm_gis.io.writers import atomic_path
from swm_gis.notification.info import PackageInfo, parcel_count_text
from swm_gis.reports.labels import fit_lines
from swm_gis.reports.package_lines import (
    basis_lines,
    certification_lines,
    not_mailed_lines,
    town_signature_lines,
    warning_lines,
)
from swm_gis.reports.pdf_fonts import register_fonts

MARGIN_PT = 54.0
#: counts of ``build_recipients`` shown on the sheet, with their wording
COUNT_LINES = (
    ("assessing_rows", "assessing record(s) of the listed parcels"),
    ("duplicates_removed", "duplicate notice(s) merged (identical rows and the same owner at the "
                           "same mailing address)"),
    ("near_match_merged", "of them the same owner at one address spelled two ways (see the "
                          "review list)"),
    ("mailable", "recipient(s) on the mailing list, the labels and the mailing book"),
    ("no_mailing_address", "owner(s) with no mailing address: not mailed (see the review list)"),
    ("incomplete_address", "owner(s) with an incomplete address: not mailed (see the review list)"),
    ("foreign_address", "foreign address(es), printed with the country line"),
    ("likely_duplicate_groups", "group(s) of likely duplicates not merged (see the review file)"),
    ("address_fixed", "recipient(s) mailed without what their record holds that is no address "
                      "(a county in the country field, a placeholder ZIP; see the review file)"),
)


def count_lines(counts: Mapping[str, int]) -> list[str]:
    """The counts as sentences, in a fixed order; keys not given are left out."""
    return [f"{int(counts[k])} {text}" for k, text in COUNT_LINES if k in counts]


def write_certification_pdf(
    target: str | Path,
    info: PackageInfo,
    *,
    counts: Mapping[str, int] | None = None,
    review: pd.DataFrame | None = None,
) -> Path:
    """Write ``certification.pdf`` (letter, portrait): how the list was made, the counts, the
    records that could not be mailed, and the Board of Assessors' certification block.

    Parameters
    ----------
    target
        Output path; written atomically.
    info
        The package's provenance.
    counts
        ``build_recipients`` counts (default: ``info.counts``).
    review
        ``build_recipients`` review frame; its ``no_mailing_address`` and ``incomplete_address``
        rows are listed by name so the Assessors can supply the address.
    """
    from reportlab.lib.pagesizes import letter
    from reportlab.pdfgen.canvas import Canvas

    font, bold = register_fonts()
    counts = dict(counts if counts is not None else info.counts)
    page_w, page_h = letter
    width = page_w - 2 * MARGIN_PT
    blocks: list[tuple[str, float, list[str]]] = [
        (bold, 13, ["Certified list of abutters"]),
        (font, 9.5, info.header_lines()[:3 if info.include_subject else 2]),
        (bold, 10, ["Data used"]),
        (font, 8.5, [f"{k}: {name}; {vintage}" for k, name, vintage in info.source_rows()]
         or ["no sources recorded"]),
    ]
    if counts:
        blocks += [(bold, 10, ["Counts"]), (font, 8.5, count_lines(counts))]
    blocks += certification_blocks(info, counts, font=font, bold=bold)
    unmailed = _unmailed(review)
    if unmailed:
        blocks += [(bold, 10, ["Owners who cannot be mailed (ask the Assessors for an address)"]),
                   (font, 8.5, unmailed)]
    if info.synthetic:
        blocks.insert(1, (bold, 10, ["SYNTHETIC SAMPLE DATA: not real parcels or owners."]))
    blocks += [(font, 9.5, [""]), (bold, 10, certification_lines(info)[:1]),
               (font, 9.5, certification_lines(info)[1:2])]
    for town, ids in info.towns:  # one signature block per town's Assessors
        lines = town_signature_lines(town, ids)
        blocks += [(font, 9.5, [""]), (bold, 10, lines[:1]), (font, 9.5, lines[1:])]
    with atomic_path(target) as tmp:
        c = Canvas(str(tmp), pagesize=letter, pageCompression=1)
        c.setTitle(f"Certified list of abutters: parcel(s) {info.subject_text}")
        c.setAuthor("swm-gis")
        c.setSubject(" ".join(info.header_lines()))
        y = page_h - MARGIN_PT
        for fnt, size, lines in blocks:
            if lines[:1] and lines[0].startswith("Board of Assessors of ") and \
                    y < MARGIN_PT + 180:  # a town's signature block kept on one page
                c.showPage()
                y = page_h - MARGIN_PT
            _size, wrapped = fit_lines(lines, width_pt=width, height_pt=10_000, font=fnt,
                                       max_size=size, min_size=size)
            for line in wrapped:
                if y < MARGIN_PT + 110:  # keep room for the signature block
                    c.showPage()
                    y = page_h - MARGIN_PT
                c.setFont(fnt, size)
                c.drawString(MARGIN_PT, y - size, line)
                y -= size * 1.3
            y -= 5
        if not info.towns:
            _signature(c, y, font)
        c.showPage()
        c.save()
    return Path(target)


def certification_blocks(info: PackageInfo, counts: Mapping[str, int], *, font: str,
                         bold: str) -> list[tuple[str, float, list[str]]]:
    """What the certification rests on: the parcel sum, every abutting parcel not mailed with
    its reason, and every warning of the package."""
    blocks: list[tuple[str, float, list[str]]] = [
        (bold, 10, ["Tax list and subject"]), (font, 8.5, basis_lines(info))]
    if "parcels_total" in counts:
        blocks += [(bold, 10, ["Parcels within the distance"]),
                   (font, 8.5, [parcel_count_text(info, counts) + "."])]
        blocks += [(bold, 10, [f"Abutting parcels not mailed ({len(info.not_mailed)})"]),
                   (font, 8.5, not_mailed_lines(info) or ["none"])]
    if info.warnings:
        blocks += [(bold, 10, ["Warnings"]), (font, 8.5, warning_lines(info))]
    return blocks


def _unmailed(review: pd.DataFrame | None) -> list[str]:
    if review is None or review.empty:
        return []
    rows = review[review["issue"].isin(["no_mailing_address", "incomplete_address"])]
    return [f"{r['owner_name'] or '(no owner name)'} (parcel {r['parcel_ids']}): "
            f"{'no mailing address' if r['issue'] == 'no_mailing_address' else 'incomplete'}"
            for r in rows.to_dict("records")]


def _signature(c, y: float, font: str) -> None:
    y = min(y - 24, 150)
    c.setFont(font, 10)
    for label in ("Signature", "Name (print)", "Title", "Date"):
        c.drawString(MARGIN_PT, y, f"{label}:")
        c.line(MARGIN_PT + 80, y - 2, MARGIN_PT + 330, y - 2)
        y -= 26
    c.drawString(MARGIN_PT + 360, y + 78, "Board of Assessors")


__all__ = ["COUNT_LINES", "certification_blocks", "count_lines", "write_certification_pdf"]

"""The abutter tables: ``abutting_parcels.csv``, ``left_out.csv``, ``mailing_list.csv``,
``mailing_review.csv`` and ``mailing_list.xlsx`` (``docs/abutters.md``).

Every CSV is a plain table: row 1 holds the column names and each further row is one record,
nothing else, so a Word mail merge, Excel or ``pandas.read_csv`` reads exactly the records. The
provenance (subject, distance, sources and their vintage, fiscal year) and the Board of Assessors'
certification go in ``certification.pdf`` (:mod:`swm_gis.reports.certification`) and in the
second sheet of the workbook. CSV is UTF-8 with a BOM (Excel reads accents right); every text
cell a spreadsheet would run as a formula (leading ``= + - @``) is neutralised, in CSV and XLSX.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pandas as pd

from swm_gis.io.writers import atomic_path, safe_frame
from swm_gis.notification.info import PackageInfo, parcel_count_text
from swm_gis.reports.package_lines import (
    basis_lines,
    certification_lines,
    not_mailed_lines,
    warning_lines,
)
from swm_gis.rules.owners import MAILING_COLUMNS, REVIEW_COLUMNS

ABUTTING_COLUMNS = ["parcel_id", "map_par_id", "town_id", "site_address", "distance_ft",
                    "map_no", "poly_type", "owner_of_record", "other_town", "is_subject", "note",
                    "relation"]
LEFT_OUT_COLUMNS = ["parcel_id", "map_par_id", "town_id", "poly_type", "distance_ft", "reason"]
MAILING_EXTRA = ["is_subject", "note"]
#: The review file of records kept off the mailing list and of likely duplicates.
REVIEW_FILE = "mailing_review.csv"


def write_table_csv(df: pd.DataFrame, target: str | Path, *, footer: list[str] = ()) -> Path:
    """CSV (UTF-8 with BOM, CRLF, formulas neutralised): the header and the rows, nothing else.

    ``footer`` is accepted for callers of the old signature and ignored: lines after the table
    are read as junk records by every mail merge.
    """
    del footer
    buf = io.StringIO()
    safe_frame(df).to_csv(buf, index=False, quoting=csv.QUOTE_MINIMAL, lineterminator="\r\n")
    with atomic_path(target) as tmp:
        tmp.write_text(buf.getvalue(), encoding="utf-8-sig", newline="")
    return Path(target)


def provenance_footer(info: PackageInfo, *, extra: list[str] = ()) -> list[str]:
    """The provenance lines (for the workbook's second sheet and the job's summary)."""
    return [*info.header_lines(), *extra]


def write_abutting_csv(listed: pd.DataFrame, info: PackageInfo, target: str | Path) -> Path:
    """``abutting_parcels.csv``: one row per abutting parcel (``is_subject`` marks the subject's
    own row with ``include_subject=True``)."""
    del info
    return write_table_csv(_columns(listed, ABUTTING_COLUMNS), target)


def write_left_out_csv(left: pd.DataFrame, info: PackageInfo, target: str | Path) -> Path:
    del info
    return write_table_csv(_columns(left, LEFT_OUT_COLUMNS), target)


def write_review_csv(review: pd.DataFrame, target: str | Path) -> Path:
    """``mailing_review.csv``: the records the clerk must look at (:data:`REVIEW_COLUMNS`)."""
    return write_table_csv(_columns(review, REVIEW_COLUMNS), target)


def mailing_footer(info: PackageInfo, *, duplicates_removed: int, n_recipients: int
                   ) -> list[str]:
    """Provenance, the count and the certification block (the workbook's second sheet)."""
    sums = []
    if "parcels_total" in info.counts:
        sums = [*basis_lines(info), parcel_count_text(info, info.counts) + ".",
                f"Abutting parcels not mailed ({len(info.not_mailed)}):",
                *(f"  {line}" for line in not_mailed_lines(info) or ["none"])]
    return provenance_footer(info, extra=[
        f"{n_recipients} recipient(s) on the mailing list; {duplicates_removed} duplicate "
        "notice(s) merged (identical rows, or the same owner at the same mailing address, "
        "typos in the street name included: mailing_review.csv lists those).",
        *sums, *warning_lines(info),
    ]) + [""] + certification_lines(info)


def write_mailing_csv(recips: pd.DataFrame, info: PackageInfo, target: str | Path) -> Path:
    """``mailing_list.csv``: the header and one row per recipient."""
    del info
    return write_table_csv(_columns(recips, MAILING_COLUMNS + MAILING_EXTRA), target)


def write_mailing_xlsx(recips: pd.DataFrame, info: PackageInfo, target: str | Path, *,
                       review: pd.DataFrame | None = None) -> Path:
    """The mailing list as an Excel workbook: sheet "Mailing list" (the table alone), sheet
    "Certification" (provenance, data vintage, counts and the certification block) and, when
    there is anything to review, sheet "Review". Every cell is text and formula-like text is
    neutralised, as in the CSV."""
    from openpyxl import Workbook
    from openpyxl.styles import Font

    table = _columns(recips, MAILING_COLUMNS + MAILING_EXTRA)
    dups = int(info.counts.get("duplicates_removed", 0))
    wb = Workbook()
    ws = wb.active
    ws.title = "Mailing list"
    _sheet_table(ws, table, Font)
    widths = {"owner_name": 34, "co_owner": 28, "mail_address": 34, "mail_city": 18,
              "mail_state": 8, "mail_zip": 11, "mail_country": 12, "parcel_ids": 24,
              "is_subject": 9, "note": 30}
    for i, col in enumerate(table.columns, start=1):
        ws.column_dimensions[ws.cell(1, i).column_letter].width = widths.get(col, 14)
    cert = wb.create_sheet("Certification")
    from swm_gis.reports.certification import count_lines

    lines = [*mailing_footer(info, duplicates_removed=dups, n_recipients=len(table))]
    if info.counts:
        lines[len(info.header_lines()) + 1:len(info.header_lines()) + 1] = count_lines(
            info.counts)
    for line in lines:
        cert.append([_cell(line)])
        if line.startswith("CERTIFICATION"):
            cert.cell(cert.max_row, 1).font = Font(bold=True)
    cert.column_dimensions["A"].width = 120
    if review is not None and len(review):
        _sheet_table(wb.create_sheet("Review"), _columns(review, REVIEW_COLUMNS), Font)
    for sheet in wb.worksheets:
        for row in sheet.iter_rows():
            for cell in row:
                if isinstance(cell.value, str):
                    cell.data_type = "s"  # text, never a formula
    with atomic_path(target) as tmp:
        wb.save(tmp)
    return Path(target)


def _sheet_table(ws, table: pd.DataFrame, font_cls) -> None:
    ws.append([_cell(c) for c in table.columns])
    for cell in ws[1]:
        cell.font = font_cls(bold=True)
    for row in table.itertuples(index=False):
        ws.append([_cell(v) for v in row])
    ws.freeze_panes = "A2"


def _cell(value: object) -> object:
    from swm_gis.io.writers import neutralise_formula

    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return None
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        return value
    return neutralise_formula(str(value))


def _columns(df: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    out = pd.DataFrame(index=df.index)
    for col in columns:
        out[col] = df.get(col, None)
    for col in ("owner_of_record", "other_town", "is_subject"):
        if col in out and len(out):
            out[col] = out[col].map(lambda v: "" if v is None or (
                not isinstance(v, str) and pd.isna(v)) else ("yes" if bool(v) else "no"))
    if "distance_ft" in out and len(out):
        out["distance_ft"] = pd.to_numeric(out["distance_ft"]).round(2)
    return out.reset_index(drop=True)


__all__ = [
    "ABUTTING_COLUMNS", "LEFT_OUT_COLUMNS", "REVIEW_FILE", "mailing_footer", "provenance_footer",
    "write_abutting_csv", "write_left_out_csv", "write_mailing_csv", "write_mailing_xlsx",
    "write_review_csv", "write_table_csv",
]

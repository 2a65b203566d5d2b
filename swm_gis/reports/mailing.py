"""The abutter tables: ``abutting_parcels.csv``, ``left_out.csv``, ``mailing_list.csv`` and
``mailing_list.xlsx`` (SPEC section 5).

Tables come first (row 1 holds the column names, so a mail merge reads them directly); after one
blank row follow the provenance lines (subject, distance, sources, assessing fiscal year), each
starting with ``#``, and on the mailing list the Board of Assessors' certification block
(§ 320-18 A(2)). CSV is UTF-8 with a BOM (Excel reads accents right); every text cell a spreadsheet
would run as a formula (leading ``= + - @``) is neutralised, in CSV and XLSX alike.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pandas as pd

from swm_gis.owners import MAILING_COLUMNS
from swm_gis.reports import PackageInfo, certification_lines
from swm_gis.writers import atomic_path, neutralise_formula, safe_frame

ABUTTING_COLUMNS = ["parcel_id", "map_par_id", "town_id", "site_address", "distance_ft",
                    "map_no", "poly_type", "owner_of_record", "other_town", "note"]
LEFT_OUT_COLUMNS = ["parcel_id", "map_par_id", "town_id", "poly_type", "distance_ft", "reason"]
MAILING_EXTRA = ["note"]


def write_table_csv(df: pd.DataFrame, target: str | Path, *, footer: list[str] = ()) -> Path:
    """CSV (UTF-8 with BOM, formulas neutralised) with footer lines after one blank row."""
    buf = io.StringIO()
    safe_frame(df).to_csv(buf, index=False, quoting=csv.QUOTE_MINIMAL, lineterminator="\r\n")
    if footer:
        writer = csv.writer(buf, lineterminator="\r\n")
        writer.writerow([])
        for line in footer:
            writer.writerow([neutralise_formula(line)] if line else [])
    with atomic_path(target) as tmp:
        tmp.write_text(buf.getvalue(), encoding="utf-8-sig", newline="")
    return Path(target)


def provenance_footer(info: PackageInfo, *, extra: list[str] = ()) -> list[str]:
    return [f"# {line}" for line in [*info.header_lines(), *extra]]


def write_abutting_csv(listed: pd.DataFrame, info: PackageInfo, target: str | Path) -> Path:
    return write_table_csv(_columns(listed, ABUTTING_COLUMNS), target,
                           footer=provenance_footer(info, extra=[
                               f"{len(listed)} abutting parcel(s); distances are exact, in feet, "
                               "from the subject property line."]))


def write_left_out_csv(left: pd.DataFrame, info: PackageInfo, target: str | Path) -> Path:
    return write_table_csv(_columns(left, LEFT_OUT_COLUMNS), target,
                           footer=provenance_footer(info, extra=[
                               f"{len(left)} polygon(s) inside the search area get no notice; "
                               "each row says why."]))


def mailing_footer(info: PackageInfo, *, duplicates_removed: int, n_recipients: int
                   ) -> list[str]:
    return provenance_footer(info, extra=[
        f"{n_recipients} recipient(s); {duplicates_removed} duplicate notice(s) removed "
        "(same owner at the same mailing address)."
    ]) + [""] + certification_lines(info)


def write_mailing_csv(recips: pd.DataFrame, info: PackageInfo, target: str | Path) -> Path:
    dups = int(recips.attrs.get("duplicates_removed", 0))
    return write_table_csv(
        _columns(recips, MAILING_COLUMNS + MAILING_EXTRA), target,
        footer=mailing_footer(info, duplicates_removed=dups, n_recipients=len(recips)))


def write_mailing_xlsx(recips: pd.DataFrame, info: PackageInfo, target: str | Path) -> Path:
    """The mailing list as an Excel workbook: sheet "Mailing list" (table, then provenance and
    the certification block) and sheet "About" (the provenance alone). Every cell is text and
    formula-like text is neutralised, as in the CSV."""
    from openpyxl import Workbook
    from openpyxl.styles import Alignment, Font

    table = _columns(recips, MAILING_COLUMNS + MAILING_EXTRA)
    dups = int(recips.attrs.get("duplicates_removed", 0))
    wb = Workbook()
    ws = wb.active
    ws.title = "Mailing list"
    ws.append([_cell(c) for c in table.columns])
    for cell in ws[1]:
        cell.font = Font(bold=True)
    for row in table.itertuples(index=False):
        ws.append([_cell(v) for v in row])
    ws.append([])
    for line in mailing_footer(info, duplicates_removed=dups, n_recipients=len(table)):
        ws.append([_cell(line)])
        if line.startswith("CERTIFICATION"):
            ws.cell(ws.max_row, 1).font = Font(bold=True)
    for row in ws.iter_rows():
        for cell in row:
            if isinstance(cell.value, str):
                cell.data_type = "s"  # text, never a formula
    widths = {"owner_name": 34, "co_owner": 28, "mail_address": 34, "mail_city": 18,
              "mail_state": 8, "mail_zip": 11, "mail_country": 12, "parcel_ids": 24, "note": 30}
    for i, col in enumerate(table.columns, start=1):
        ws.column_dimensions[ws.cell(1, i).column_letter].width = widths.get(col, 14)
    ws.freeze_panes = "A2"
    about = wb.create_sheet("About")
    for line in [*info.header_lines(), "", *certification_lines(info)]:
        about.append([_cell(line)])
        about.cell(about.max_row, 1).alignment = Alignment(wrap_text=False)
    about.column_dimensions["A"].width = 120
    with atomic_path(target) as tmp:
        wb.save(tmp)
    return Path(target)


def _cell(value: object) -> object:
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
    for col in ("owner_of_record", "other_town"):
        if col in out and len(out):
            out[col] = out[col].map(lambda v: "" if v is None or pd.isna(v)
                                    else ("yes" if bool(v) else "no"))
    if "distance_ft" in out and len(out):
        out["distance_ft"] = pd.to_numeric(out["distance_ft"]).round(2)
    return out.reset_index(drop=True)


__all__ = [
    "ABUTTING_COLUMNS", "LEFT_OUT_COLUMNS", "mailing_footer", "provenance_footer",
    "write_abutting_csv", "write_left_out_csv", "write_mailing_csv", "write_mailing_xlsx",
    "write_table_csv",
]

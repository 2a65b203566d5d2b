"""Owners of record: join abutting parcels to the assessing table and make the recipient list.

Chapter 320's permit procedure, A(7), asks for notice "at the mailing addresses as certified by
the Assessors' office"; the package adds one notice per owner of record, and one per condominium
unit owner (a condominium is several assessing rows on one parcel id). The same owner at the same
mailing address gets one letter however many parcels or units it owns: rows are grouped on a
normalised key (case, spacing, punctuation, USPS street-suffix and PO Box spellings; a misspelt
street name at the same numbers, :mod:`swm_gis.rules.mailing.duplicates`) and the recipient
lists every parcel id it owns. ZIP codes stay text (ZIP+4 kept); a leading zero a spreadsheet
dropped is restored only where the ZIP then belongs to the owner's state (:func:`us_zip`, from
the USPS ZIP-prefix table ``swm_gis/tables/zip_prefixes.csv``); state and ZIP that disagree go
to review. Each recipient's address is formatted once
(:func:`swm_gis.rules.mailing.addresses.format_address`) and every output prints that.

Examples
--------
>>> normalise_address("12 Elm Street.") == normalise_address("12 ELM ST")
True
>>> normalise_address("P.O. Box 29"), us_zip("2138", "MA"), normalise_zip("021381234")
('PO BOX 29', ('02138', ''), '02138-1234')
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import pandas as pd

from swm_gis.ids import id_series, id_text

# the one formatted address (addresses), the duplicates' comparison (duplicates) and the
# text normalising (postal); re-exported here, where callers met them first
from swm_gis.rules.mailing.addresses import (
    COUNTRY_HINTS,
    MAILABLE_KINDS,
    AddressCheck,
    address_problem,
    classify_address,
    delivery_lines,
    format_address,
    infer_country,
    normalise_address,
)
from swm_gis.rules.mailing.duplicates import (
    NEAR_SCORE,
    likely_duplicates,
    merge_keys,
    normalise_owner,
    owner_words,
    recipient_key,
)
from swm_gis.rules.postal import (
    US_COUNTRY,
    clean_text,
    comparison_form,
    country_at_end,
    country_name,
    normalise_country,
    normalise_zip,
    us_zip,
    zip_prefix_states,
    zip_states,
)

_owner_words = owner_words  # the name tests of the likely duplicates know

#: Columns of the mailing list (``docs/abutters.md``), in order.
MAILING_COLUMNS = ["owner_name", "co_owner", "mail_address", "mail_city", "mail_state",
                   "mail_zip", "mail_country", "parcel_ids"]


@dataclass(frozen=True)
class Notices:
    """The notice ``rows`` of :func:`join_owners` and what became of the listed parcels'
    ``assessing_rows`` (the counts add up: ``docs/abutters.md``): ``blank_rows`` (no owner, no
    address) and ``identical_rows_merged`` (the same owner and address on two units of one
    parcel)."""

    rows: pd.DataFrame
    assessing_rows: int
    blank_rows: int
    identical_rows_merged: int


def join_owners(
    abutting: pd.DataFrame,
    assess: pd.DataFrame,
    *,
    id_col: str = "id",
) -> pd.DataFrame:
    """One notice row per owner of record of each listed parcel (one per condominium unit).

    Identical rows for one parcel (the same owner and address on two units) are one notice.
    Parcels without an assessing row get no notice here (the abutter list flags them).

    Parameters
    ----------
    abutting
        The listed parcels, with the parcel id in ``id_col``.
    assess
        Assessing rows with the logical fields (``parcel_id``, ``owner``, ``co_owner``,
        ``address``, ``address2``, ``city``, ``state``, ``zip``, ``country``).
    id_col
        The parcel id column of ``abutting``.

    Returns
    -------
    DataFrame
        The mailing columns plus ``parcel_id``, ``address1``, ``address2``, in the order of
        ``abutting``. :func:`owner_notices` also counts the rows merged.
    """
    return owner_notices(abutting, assess, id_col=id_col).rows


def owner_notices(abutting: pd.DataFrame, assess: pd.DataFrame, *, id_col: str = "id") -> Notices:
    """:func:`join_owners` and the counts of :class:`Notices`, for :func:`build_recipients`."""
    ids = id_series(abutting[id_col]).dropna()
    assessed = id_series(assess["parcel_id"])
    a = assess.loc[assessed.isin(set(ids))]
    order = {pid: i for i, pid in enumerate(dict.fromkeys(ids))}
    rows = pd.DataFrame({
        "parcel_id": assessed.loc[a.index],
        "owner_name": a["owner"].map(clean_text),
        # a "co-owner" that only says "USA" is a country field mapped as a co-owner: not printed
        "co_owner": _col(a, "co_owner").map(
            lambda v: "" if comparison_form(v) in US_COUNTRY else clean_text(v)),
        "address1": _col(a, "address").map(clean_text),
        "address2": _col(a, "address2").map(clean_text),
        "mail_city": _col(a, "city").map(clean_text),
        "mail_state": _col(a, "state").map(clean_text),
        "mail_zip": _col(a, "zip").map(normalise_zip),
        "mail_country": _col(a, "country").map(clean_text),
    })
    rows["mail_address"] = [", ".join(p for p in (a1, a2) if p)
                            for a1, a2 in zip(rows["address1"], rows["address2"], strict=True)]
    n_rows = len(rows)
    rows = rows.loc[(rows["owner_name"] != "") | (rows["mail_address"] != "")]
    n_blank = n_rows - len(rows)
    rows = rows.drop_duplicates(subset=[c for c in rows.columns if c != "mail_address"])
    n_identical = n_rows - n_blank - len(rows)
    rows["_order"] = rows["parcel_id"].map(order)
    rows = rows.sort_values(["_order"], kind="stable").drop(columns="_order")
    rows = rows.reset_index(drop=True)
    # every row that does not become a notice is counted (the counts add up: docs/abutters.md)
    return Notices(rows=rows, assessing_rows=n_rows, blank_rows=n_blank,
                   identical_rows_merged=n_identical)


def recipients(notices: pd.DataFrame) -> pd.DataFrame:
    """De-duplicate notices into recipients: one per owner and mailing address.

    The same owner (normalised name) at the same or a near address (a misspelt street:
    :func:`swm_gis.rules.mailing.duplicates.merge_keys`) is one recipient. The first spelling met is
    printed (a ZIP+4 preferred over a 5-digit ZIP; a co-owner line kept if any row has one).

    Parameters
    ----------
    notices
        Notice rows, as :func:`join_owners` returns them.

    Returns
    -------
    DataFrame
        One row per recipient: the mailing columns, ``parcel_ids`` (every parcel the recipient
        owns, "; "-separated), ``address1``, ``address2``, a ``note`` flagging mailing
        addresses that look incomplete and ``near_match`` (the other spellings merged into
        it, "; "-separated; '' when none). Notices of the same owner at the same address are
        merged: ``len(notices) - len(result)`` of them (:func:`build_recipients` counts every
        merge).
    """
    cols = MAILING_COLUMNS + ["address1", "address2", "note", "near_match"]
    if notices.empty:
        return pd.DataFrame(columns=cols)
    records = notices.to_dict("records")
    grouped: dict[tuple[str, int], dict] = {}
    for key, rec in zip(merge_keys(records), records, strict=True):
        if key not in grouped:
            grouped[key] = {**rec, "_parcels": [rec["parcel_id"]], "_spellings": {
                _spelling(rec): None}}
            continue
        g = grouped[key]
        if rec["parcel_id"] not in g["_parcels"]:
            g["_parcels"].append(rec["parcel_id"])
        g["_spellings"].setdefault(_spelling(rec), None)
        if len(rec.get("mail_zip", "")) > len(g.get("mail_zip", "")):
            g["mail_zip"] = rec["mail_zip"]
        if not g.get("co_owner") and rec.get("co_owner"):
            g["co_owner"] = rec["co_owner"]
    rows = []
    for g in grouped.values():
        g["parcel_ids"] = "; ".join(g.pop("_parcels"))
        g["near_match"] = "; ".join(list(g.pop("_spellings"))[1:])
        g["note"] = address_problem(g)
        rows.append(g)
    return pd.DataFrame(rows)[cols].reset_index(drop=True)


def _spelling(rec: dict) -> str:
    """A notice's address as spelled on its record, in the form compared (normalised), for the
    review list of near matches merged."""
    street = " ".join(p for p in (normalise_address(rec.get("address1", "")),
                                  normalise_address(rec.get("address2", ""))) if p)
    return ", ".join(p for p in (street, comparison_form(rec.get("mail_city", ""))) if p)


REVIEW_COLUMNS = ["issue", "group", "owner_name", "co_owner", "mail_address", "mail_city",
                  "mail_state", "mail_zip", "mail_country", "parcel_ids", "reason"]


def build_recipients(
    notices: Notices | pd.DataFrame,
    *,
    subject_ids: Iterable[object] = (),
) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, int]]:
    """Recipients who can be mailed, the records to review, and every count (``docs/abutters.md``).

    Parameters
    ----------
    notices
        The output of :func:`owner_notices` (the rows and the counts of the rows it merged); the
        rows alone (:func:`join_owners`) count as every assessing row with none merged.
    subject_ids
        Subject parcel ids: a recipient owning one gets ``is_subject`` true (with
        ``include_subject=True``).

    Returns
    -------
    mailable
        One row per recipient with a usable address: the mailing columns, ``is_subject``,
        ``address_kind`` (street, po_box, foreign), ``address_lines`` (the label's address lines,
        newline-separated) and ``note``. The address columns and the lines are the one
        formatted address (:func:`swm_gis.rules.mailing.addresses.format_address`) that
        ``mailing_list.csv``, the workbook, the labels and the certified-mail book print.
    review
        :data:`REVIEW_COLUMNS`: ``issue`` ``no_mailing_address`` or ``incomplete_address`` (kept
        off every mailing output); ``likely_duplicate`` (mailed, but probably the same owner as
        the other rows of its ``group``); ``merged_near_match`` (one notice for notices whose
        addresses were spelled two ways; both spellings in ``reason``); ``not_a_country`` and
        ``placeholder_dropped`` (mailed without what the record held that is no address:
        a county in the country field, a placeholder ZIP, a US state on a foreign address).
    counts
        ``assessing_rows``, ``blank_rows``, ``identical_rows_merged``,
        ``same_owner_address_merged`` (of which ``near_match_merged`` at a near address),
        ``duplicates_removed`` (the two merges together), ``recipients`` (before the
        mailability split), ``mailable``, ``no_mailing_address``, ``incomplete_address``,
        ``foreign_address``, ``po_box``, ``likely_duplicate_groups``,
        ``likely_duplicate_recipients`` and ``address_fixed`` (recipients printed without part
        of their record). ``recipients == mailable + no_mailing_address + incomplete_address``.
    """
    if not isinstance(notices, Notices):
        notices = Notices(rows=notices, assessing_rows=len(notices), blank_rows=0,
                          identical_rows_merged=0)
    merged = recipients(notices.rows)
    same_owner_address = len(notices.rows) - len(merged)
    subjects = {str(s) for s in subject_ids}
    checks = [format_address(r) for r in merged.to_dict("records")]
    merged = merged.assign(**_address_columns(merged, checks, subjects))
    mailable_mask = merged["address_kind"].isin(MAILABLE_KINDS).to_numpy()
    review = [merged.loc[~mailable_mask].assign(
        issue=["no_mailing_address" if k == "none" else "incomplete_address"
               for k in merged.loc[~mailable_mask, "address_kind"]],
        group=0, reason=merged.loc[~mailable_mask, "note"])]
    review += _mailed_review(merged, checks, mailable_mask)
    mailable = merged.loc[mailable_mask].reset_index(drop=True)
    groups = likely_duplicates(mailable)
    for g, members in enumerate(groups, start=1):
        review.append(mailable.iloc[members].assign(
            issue="likely_duplicate", group=g,
            reason=_likely_reason(mailable.iloc[members])))
    review_df = pd.concat(review, ignore_index=True)[REVIEW_COLUMNS] if review else \
        pd.DataFrame(columns=REVIEW_COLUMNS)
    kinds = merged["address_kind"].value_counts()
    counts = {
        "assessing_rows": notices.assessing_rows,
        "blank_rows": notices.blank_rows,
        "identical_rows_merged": notices.identical_rows_merged,
        "same_owner_address_merged": same_owner_address,
        "near_match_merged": int(sum(len(v.split("; ")) for v in merged["near_match"] if v)),
        "duplicates_removed": same_owner_address + notices.identical_rows_merged,
        "recipients": len(merged),
        "mailable": int(mailable_mask.sum()),
        "no_mailing_address": int(kinds.get("none", 0)),
        "incomplete_address": int(kinds.get("incomplete", 0)),
        "foreign_address": int(kinds.get("foreign", 0)),
        "po_box": int(kinds.get("po_box", 0)),
        "likely_duplicate_groups": len(groups),
        "likely_duplicate_recipients": sum(len(g) for g in groups),
        "address_fixed": sum(bool(c.fixes) and m for c, m in zip(checks, mailable_mask,
                                                                  strict=True)),
    }
    return mailable, review_df, counts


def _mailed_review(merged: pd.DataFrame, checks: list, mailable_mask) -> list[pd.DataFrame]:
    """Review rows of mailed recipients: near spellings merged, and what of a record was not
    printed (``not_a_country``, ``placeholder_dropped``)."""
    out = []
    near = merged["near_match"].astype(str) != ""
    if near.any():
        rows = merged.loc[near]
        out.append(rows.assign(issue="merged_near_match", group=0, reason=[
            f"one notice: the same owner at \"{_spelling(r)}\" and \"{r['near_match']}\" "
            f"(spellings scoring >= {NEAR_SCORE:g} of 100 with the same numbers); check the "
            "address printed with the Assessors" for r in rows.to_dict("records")]))
    fixed = [(i, issue, reason) for i, (c, m) in enumerate(zip(checks, mailable_mask,
                                                              strict=True))
             if m for issue, reason in c.fixes]
    if fixed:
        rows = merged.iloc[[i for i, _, _ in fixed]]
        out.append(rows.assign(issue=[f[1] for f in fixed], group=0,
                               reason=[f[2] for f in fixed]))
    return out


def _likely_reason(rows: pd.DataFrame) -> str:
    names = " / ".join(dict.fromkeys(rows["owner_name"].astype(str)))
    addresses = " / ".join(dict.fromkeys(rows["mail_address"].astype(str)))
    return (f"near or the same mailing address ({addresses}) and nearly the same owner name "
            f"({names}): check whether one notice is enough (not merged)")


def _address_columns(merged: pd.DataFrame, checks: list, subjects: set[str]
                     ) -> dict[str, list]:
    """The columns of each recipient's one formatted address (and ``is_subject``)."""
    return dict(
        is_subject=[bool(subjects & set(str(p).split("; "))) for p in merged["parcel_ids"]],
        address_kind=[c.kind for c in checks],
        address_lines=["\n".join(c.lines) for c in checks],
        mail_address=[c.mail_address for c in checks],
        mail_city=[c.city or "" for c in checks],
        mail_state=[c.state for c in checks],
        mail_zip=[c.zip_code or "" for c in checks],
        # a US spelling of the country ("USA") and what names no country are never printed
        mail_country=[c.country for c in checks],
        note=[c.problem or (f"country {c.country} read from the address" if c.kind == "foreign"
                            and not country_name(v) else "")
              for c, v in zip(checks, merged["mail_country"], strict=True)],
    )

_DANGLING = re.compile(r"\s*(?:&|\bAND\b|,)\s*$", re.IGNORECASE)


def owner_display(owner: object, co_owner: object = "") -> str:
    """An owner as a reader should see it in one cell: a name cut off by the assessing field
    ("GOMES, FERNANDO J. &") is completed with the co-owner line, or loses its dangling "&".

    >>> owner_display("GOMES, FERNANDO J. &", "MARIA GOMES"), owner_display("KIEU, ALIX &")
    ('GOMES, FERNANDO J. & MARIA GOMES', 'KIEU, ALIX')
    >>> owner_display("SMITH, ANN", "THE SMITH TRUST")
    'SMITH, ANN'
    """
    name, co = clean_text(owner), clean_text(co_owner)
    if _DANGLING.search(name):
        return f"{name} {co}" if co else _DANGLING.sub("", name)
    return name


def owners_by_parcel(notices: pd.DataFrame) -> dict[str, str]:
    """Parcel id -> its owners of record for the map key ("; " between distinct owners)."""
    out: dict[str, list[str]] = {}
    for rec in notices.to_dict("records"):
        name = owner_display(rec.get("owner_name"), rec.get("co_owner"))
        names = out.setdefault(id_text(rec["parcel_id"]) or "", [])
        if name and name not in names:
            names.append(name)
    return {pid: "; ".join(names) for pid, names in out.items()}


def fiscal_years(assess: pd.DataFrame) -> list[str]:
    """The assessing data's fiscal year(s), as found in its ``fiscal_year`` field."""
    if "fiscal_year" not in assess:
        return []
    values = {clean_text(v) for v in assess["fiscal_year"]}
    values.discard("")
    return sorted(v[:-2] if v.endswith(".0") else v for v in values)


def _col(df: pd.DataFrame, name: str) -> pd.Series:
    return df[name] if name in df else pd.Series("", index=df.index, dtype=object)


def unique_ids(values: Iterable[object]) -> list[str]:
    return list(dict.fromkeys(str(v) for v in values if clean_text(v)))


__all__ = [
    "COUNTRY_HINTS", "MAILABLE_KINDS", "MAILING_COLUMNS", "NEAR_SCORE", "REVIEW_COLUMNS",
    "AddressCheck", "format_address", "Notices", "address_problem",
    "build_recipients", "owner_notices",
    "classify_address", "clean_text", "delivery_lines", "fiscal_years", "infer_country",
    "country_at_end", "join_owners", "likely_duplicates", "us_zip", "zip_prefix_states",
    "zip_states", "owner_display", "owners_by_parcel",
    "normalise_address", "normalise_country", "normalise_owner", "normalise_zip",
    "recipient_key", "recipients", "unique_ids",
]

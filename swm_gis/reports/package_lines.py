"""The lines every abutter output states alike: the parcels not mailed, the warnings and the
Board of Assessors' certification block (``mailing_list.xlsx``'s second sheet and
``certification.pdf`` print the same words)."""

from __future__ import annotations

from swm_gis.notification.info import PackageInfo, parcel_count_text, subject_lines


def not_mailed_lines(info: PackageInfo) -> list[str]:
    """One line per abutting parcel that gets no notice: its id, map-lot and the reason."""
    out = []
    for r in info.not_mailed:
        ml = r.get("map_par_id") or ""
        name = (r.get("parcel_id") or "(polygon with no parcel id)") + (
            f" (map-lot {ml})" if ml and ml != r.get("parcel_id") else "")
        dist = r.get("distance_ft")
        at = f", {float(dist):.2f} ft" if dist is not None else ""
        out.append(f"{name}{at}: {r.get('reason', '')}")
    return out


def basis_lines(info: PackageInfo) -> list[str]:
    """What the list rests on: the tax list's fiscal year (stated either way) and the subject
    parcels with their owners of record (the applicant's own, not mailed)."""
    lines = [info.tax_list.basis_text()]
    if info.definition:
        board = f" for the {info.board}" if info.board else ""
        lines.append(f"Definition used{board}: {info.definition}.")
    if info.subjects:
        lines.append("Subject parcel(s), the applicant's own"
                      + (" (listed and mailed, as asked):" if info.include_subject
                         else " (not mailed):"))
        lines += [f"  {line}" for line in subject_lines(info)]
    return lines


def warning_lines(info: PackageInfo) -> list[str]:
    """One ``Warning (code): text`` line per warning of the package."""
    return [f"Warning ({w['code']}): {w['text']}" for w in info.warnings]


def _scope(info: PackageInfo) -> str:
    if info.notice == "zoning":
        return (f"that are parties in interest ({info.section}) of parcel(s) "
                f"{info.subject_text}")
    return f"within {info.distance_text} of parcel(s) {info.subject_text}"


def _other(info: PackageInfo) -> str:
    return "among them" if info.notice == "zoning" else "within that distance"


def certification_lines(info: PackageInfo) -> list[str]:
    """The certification block (the permit procedure's A(2): an abutters list certified by the
    Assessors' office). It claims completeness only for what the package lists."""
    counts = info.counts
    sums = (f" ({parcel_count_text(info, counts)})" if "parcels_total" in counts else "")
    warned = (" subject to the warnings printed above" if info.warnings else "")
    return [
        f"CERTIFICATION BY THE BOARD OF ASSESSORS ({info.certification_section})",
        "I certify that the names and mailing addresses in the accompanying mailing list "
        "(mailing_list.csv / mailing_list.xlsx) are those of the owners of record, as they "
        f"appear on {info.tax_list_text}, of the parcels {_scope(info)} that the list names; "
        f"every other parcel {_other(info)} is named above as not mailed, with the reason"
        f"{sums}, and the owners named above as lacking an address are not mailed{warned}.",
        *signature_lines(info),
    ]


def signature_lines(info: PackageInfo) -> list[str]:
    """The signature block: one for the Board of Assessors, or, where the parcels come from
    several towns' sources, one per town naming the parcels its Assessors certify."""
    if not info.towns:
        return ["Signature: ______________________________________   Board of Assessors",
                "Name (print): ___________________________________",
                "Date: ____________________"]
    return [line for town, ids in info.towns for line in town_signature_lines(town, ids)]


def town_signature_lines(town: str, ids: tuple[str, ...]) -> list[str]:
    """One town's signature block: the parcels its Assessors certify, then the lines to sign."""
    return [f"Board of Assessors of {town}: the owners of record of the {len(ids)} listed "
            f"parcel(s) in {town}: {', '.join(ids)}.",
            f"Signature: ______________________________________   Board of Assessors of {town}",
            "Name (print): ___________________________________",
            "Date: ____________________"]


__all__ = ["basis_lines", "certification_lines", "not_mailed_lines", "signature_lines",
           "town_signature_lines", "warning_lines"]

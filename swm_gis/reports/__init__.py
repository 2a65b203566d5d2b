"""Reports: the abutter mailing package (list, labels, certified-mail book, map).

Writers only: they format results computed by the core (``swm_gis.abutters``,
``swm_gis.owners``) and write them atomically through :mod:`swm_gis.writers`; they compute no
rule. :class:`PackageInfo` carries what every output must state: the subject parcels, the
distance, the data sources and the assessing fiscal year (SPEC section 5).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class PackageInfo:
    """What every abutter output records about how it was made."""

    town: str
    subject_ids: tuple[str, ...]
    distance_ft: float
    fiscal_years: tuple[str, ...] = ()
    sources: tuple[dict[str, Any], ...] = ()
    include_subject: bool = False
    synthetic: bool = False
    section: str = "§ 320-18 A(7)"
    generated: str = field(
        default_factory=lambda: dt.datetime.now(dt.UTC).isoformat(timespec="seconds"))
    sender: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()  # further parameters and findings (e.g. the pond extension)

    @property
    def subject_text(self) -> str:
        return ", ".join(self.subject_ids) or "(site)"

    @property
    def fiscal_year_text(self) -> str:
        if not self.fiscal_years:
            return "fiscal year not recorded in the assessing data"
        return ", ".join(fy if fy.upper().startswith("FY") else f"FY{fy}"
                         for fy in self.fiscal_years)

    @property
    def distance_text(self) -> str:
        return f"{self.distance_ft:g} ft"

    def source_lines(self) -> list[str]:
        lines = []
        for s in self.sources:
            where = s.get("file") or ""
            if s.get("layer"):
                where += f" (layer {s['layer']})"
            modified = s.get("modified") or "unknown"
            lines.append(f"{s.get('key', 'data')}: {where}, modified {modified}")
        return lines

    def header_lines(self) -> list[str]:
        """The provenance every output prints."""
        lines = [
            f"Abutters within {self.distance_text} of the property line of parcel(s) "
            f"{self.subject_text}, {self.town} (Chapter 320 {self.section}).",
            f"Assessing data: {self.fiscal_year_text}. Generated {self.generated} by swm-gis.",
        ]
        if self.include_subject:
            lines.append("The subject parcel(s) are included (--include-subject).")
        if self.synthetic:
            lines.append("SYNTHETIC SAMPLE DATA: not real parcels or owners.")
        lines.extend(self.notes)
        return lines + [f"Source {line}" for line in self.source_lines()]


#: The certification block that ends the mailing list (§ 320-18 A(2): a certified abutters list).
def certification_lines(info: PackageInfo) -> list[str]:
    return [
        "CERTIFICATION BY THE BOARD OF ASSESSORS (Chapter 320 § 320-18 A(2))",
        f"I certify that the names and mailing addresses above are those of the owners of record "
        f"of all property within {info.distance_text} of parcel(s) {info.subject_text} as they "
        f"appear on the most recent tax list ({info.fiscal_year_text}).",
        "Signature: ______________________________________   Board of Assessors",
        "Name (print): ___________________________________",
        "Date: ____________________",
    ]


__all__ = ["PackageInfo", "certification_lines"]

"""What every abutter output records about how the package was made: :class:`PackageInfo`
(subject, distance, sources and their vintage, fiscal year, counts, warnings, parcels not
mailed), and the one sentence of parcel counts the summary and the certification share."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from swm_gis.rules.citations import default_citations
from swm_gis.rules.mailing.tax_list import TaxListStatus, tax_list_status


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
    #: the notice clause the list is made under, and the Assessors' certification's section
    #: (the regulation applied's: :func:`swm_gis.rules.citations.rule_citations`)
    section: str = field(default_factory=lambda: default_citations().notice)
    certification_section: str = field(
        default_factory=lambda: default_citations().certification)
    generated: str = field(
        default_factory=lambda: dt.datetime.now(dt.UTC).isoformat(timespec="seconds"))
    sender: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()  # further parameters and findings (e.g. the pond extension)
    #: the counts of abutters.json ("counts"): shown in the certification and the summary
    counts: Mapping[str, int] = field(default_factory=dict)
    #: the package's warnings ({code, text}): printed on the certification
    warnings: tuple[Mapping[str, str], ...] = ()
    #: every abutting parcel that gets no notice ({parcel_id, map_par_id, distance_ft,
    #: reason_code, reason}): named on the certification, its sheet and abutters.json
    not_mailed: tuple[Mapping[str, Any], ...] = ()
    #: where the parcels come from several towns' sources ([[layers.parcels.sources]]): each
    #: town with the listed parcel ids its Assessors certify (:func:`parcel_towns`)
    towns: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: the subject parcels, the applicant's own ({parcel_id, map_par_id, owners}): named with
    #: their owners on the certification and in abutters.json
    subjects: tuple[Mapping[str, Any], ...] = ()
    #: the notice list made (swm_gis.notification.notice): "conservation", "radius" or
    #: "zoning", its definition in words and the board it is for
    notice: str = "conservation"
    definition: str = ""
    board: str = ""
    #: the regulation profile and version applied (swm_gis.config.town_regulation)
    regulation: Mapping[str, Any] | None = None

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
    def list_title(self) -> str:
        """What the list is: "Abutters within 100 ft of the property line" or "Parties in
        interest (... 300 ft)"."""
        if self.notice == "zoning":
            return (f"Parties in interest (abutters, owners directly opposite, abutters to "
                    f"abutters within {self.distance_text})")
        return f"Abutters within {self.distance_text} of the property line"

    @property
    def list_scope(self) -> str:
        """Whose owners the list names, for a map's heading."""
        if self.notice == "zoning":
            return ("parties in interest: abutters, owners directly opposite, abutters to "
                    f"abutters within {self.distance_text}")
        return f"owners of property within {self.distance_text} of the property line"

    @property
    def tax_list(self) -> TaxListStatus:
        """The fiscal year the list rests on against the current one, on the day it was made."""
        return tax_list_status(self.fiscal_years, on=dt.date.fromisoformat(self.generated[:10]))

    @property
    def tax_list_text(self) -> str:
        """How the certification names the tax list: "the most recent tax list (FY2027)" only
        when the data is of the current fiscal year."""
        if self.tax_list.is_current:
            return f"the most recent tax list ({self.fiscal_year_text})"
        return (f"the tax list of the assessing data ({self.fiscal_year_text}; not the current "
                f"FY{self.tax_list.current}: see the warning tax_list_not_current)")

    @property
    def distance_text(self) -> str:
        return f"{self.distance_ft:g} ft"

    def _with_vintage(self, source: Mapping[str, Any]) -> Mapping[str, Any]:
        """The assessing table's vintage is its fiscal year, when the data states one."""
        if source.get("key") == "assess" and not source.get("vintage") and self.fiscal_years:
            return {**source, "vintage": self.fiscal_year_text,
                    "vintage_basis": "assessing fiscal year in the data"}
        return source

    def source_lines(self) -> list[str]:
        """One line per source: key, file (layer) and its vintage (see :func:`vintage_text`)."""
        lines = []
        for s in self.sources:
            where = s.get("label") or s.get("file") or ""
            if s.get("layer") and not s.get("label"):
                where += f" (layer {s['layer']})"
            lines.append(f"{s.get('key', 'data')}: {where}; {vintage_text(self._with_vintage(s))}")
        return lines

    def source_rows(self) -> list[tuple[str, str, str]]:
        """(key, file name, vintage) per source, for tables that wrap each cell on its own."""
        return [(str(s.get("key", "data")),
                 s.get("label") or Path(str(s.get("file") or "")).name
                 + (f" ({s['layer']})" if s.get("layer") else ""),
                 vintage_text(self._with_vintage(s))) for s in self.sources]

    def header_lines(self) -> list[str]:
        """The provenance every output prints."""
        lines = [
            f"{self.list_title} of parcel(s) {self.subject_text}, {self.town} ({self.section}).",
            f"Assessing data: {self.fiscal_year_text}. Generated {self.generated} by swm-gis.",
        ]
        if self.include_subject:
            lines.append("The subject parcel(s) are included, as asked.")
        if self.synthetic:
            lines.append("SYNTHETIC SAMPLE DATA: not real parcels or owners.")
        lines.extend(self.notes)
        return lines + [f"Source {line}" for line in self.source_lines()]


#: Date fields a layer may carry, most telling first: FEMA NFHL effective date, an assessing
#: fiscal year, then edit dates kept by ArcGIS / MassGIS layers.
VINTAGE_FIELDS = ("EFF_DATE", "EFFECTIVE_DATE", "FY", "FISCAL_YEAR", "YearOfAssessment",
                  "last_edited_date", "EditDate", "EDIT_DATE", "LAST_EDIT", "UPDATED")


def vintage_from_data(frame: pd.DataFrame, *, fields: tuple[str, ...] = VINTAGE_FIELDS
                      ) -> dict[str, str] | None:
    """The vintage a layer states in its own attributes: the latest value of its first date
    field (``{"vintage": "2013-08-12", "vintage_basis": "latest EditDate in the data"}``), or
    None when it has none. Years before 1900 (typing errors such as 0407) are ignored.

    >>> vintage_from_data(pd.DataFrame({"EditDate": ["2007-07-25", "2013-08-12", None]}))
    {'vintage': '2013-08-12', 'vintage_basis': 'latest EditDate in the data'}
    >>> vintage_from_data(pd.DataFrame({"x": [1]})) is None
    True
    """
    lower = {str(c).lower(): c for c in frame.columns}
    for name in fields:
        col = lower.get(name.lower())
        if col is None:
            continue
        values = frame[col].dropna()
        if values.empty:
            continue
        if pd.api.types.is_numeric_dtype(values):  # a fiscal year such as 2025 or 2025.0
            years = values[(values >= 1900) & (values <= 2200)]
            if len(years):
                return {"vintage": f"{int(years.max())}",
                        "vintage_basis": f"latest {col} in the data"}
            continue
        dates = pd.to_datetime(values.astype(str), errors="coerce", utc=True, format="mixed")
        dates = dates[dates.dt.year >= 1900]
        if len(dates):
            return {"vintage": dates.max().date().isoformat(),
                    "vintage_basis": f"latest {col} in the data"}
    return None


def vintage_text(source: Mapping[str, Any]) -> str:
    """How old a source's data is, saying where that comes from: a ``vintage`` the config or the
    data states, else the file's modification date labelled as such (the last resort: a copied
    file has today's date).

    >>> vintage_text({"vintage": "FY2025", "vintage_basis": "assessing fiscal year"})
    'data of FY2025 (assessing fiscal year)'
    >>> vintage_text({"modified": "2026-12-01T08:00:00+00:00"})
    'data date not stated; file modified 2026-12-01 (not the data date)'
    """
    if source.get("vintage"):
        basis = source.get("vintage_basis") or "stated in the town config"
        return f"data of {source['vintage']} ({basis})"
    modified = str(source.get("modified") or "")[:10]
    if modified:
        return f"data date not stated; file modified {modified} (not the data date)"
    return "data date unknown"


def source_with_vintage(
    source: Mapping[str, Any],
    *,
    config_vintage: str | None = None,
    frame: pd.DataFrame | None = None,
) -> dict[str, Any]:
    """A source record (``layers.source_info``) with the best vintage known: the one the town
    config states (``[layers.KEY] vintage``), else the one the data states
    (:func:`vintage_from_data` on ``frame``, read with its own date fields); otherwise the file
    date stays, and :func:`vintage_text` labels it as such.

    >>> source_with_vintage({"key": "parcels", "modified": "2026-12-01"}, config_vintage="FY2014")
    {'key': 'parcels', 'modified': '2026-12-01', 'vintage': 'FY2014', 'vintage_basis': 'stated in the town config'}
    """  # noqa: E501
    out = dict(source)
    if config_vintage:
        out.update(vintage=str(config_vintage), vintage_basis="stated in the town config")
    elif frame is not None and (found := vintage_from_data(frame)):
        out.update(found)
    return out


def parcel_towns(listed: pd.DataFrame, *, home_town: str
                 ) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Each town with the ids of the listed parcels from its source(s) (``source_town``), the
    config's own town first; ``()`` when the parcels come from one town's data only.

    >>> parcel_towns(pd.DataFrame({"parcel_id": ["A", "N1", "B"],
    ...     "source_town": ["Lynnfield", "Peabody", "Lynnfield"]}), home_town="Lynnfield")
    (('Lynnfield', ('A', 'B')), ('Peabody', ('N1',)))
    """
    if "source_town" not in listed or listed.empty:
        return ()
    by_town: dict[str, list[str]] = {home_town: []}
    for pid, town in zip(listed["parcel_id"], listed["source_town"], strict=True):
        name = town if isinstance(town, str) and town else home_town
        by_town.setdefault(name, []).append(str(pid))
    found = tuple((t, tuple(ids)) for t, ids in by_town.items() if ids)
    return found if len(found) > 1 or (found and found[0][0] != home_town) else ()


def parcel_count_text(info: PackageInfo, counts: Mapping[str, int]) -> str:
    """The sum the certification rests on: every parcel within the distance = those whose
    owners are mailed + those named as not mailed."""
    where = (f"within {info.distance_text} of the subject" if info.notice != "zoning" else
             f"among the parties in interest ({info.section})")
    return (f"{counts.get('parcels_total', 0)} parcel(s) {where} (rights-of-way and water "
            "included) = "
            f"{counts.get('parcels_subject', 0)} subject parcel(s) (the applicant's own, not "
            f"mailed) + {counts.get('parcels_mailed', 0)} whose owners are mailed + "
            f"{counts.get('parcels_not_mailed', 0)} not mailed")


def subject_lines(info: PackageInfo) -> list[str]:
    """One line per subject parcel with its owners of record (the certification)."""
    lines = []
    for s in info.subjects:
        lot = f" (map-lot {s['map_par_id']})" if s.get("map_par_id") else ""
        owners = "; ".join(s.get("owners") or []) or "no owner of record"
        lines.append(f"{s['parcel_id']}{lot}: {owners}")
    return lines


__all__ = ["VINTAGE_FIELDS", "PackageInfo", "parcel_count_text", "parcel_towns",
           "source_with_vintage", "subject_lines", "vintage_from_data", "vintage_text"]

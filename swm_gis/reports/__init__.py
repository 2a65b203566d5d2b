"""Reports: the abutter mailing package (list, labels, certified-mail book, map).

Writers only: they format results computed by the core (``swm_gis.rules.abutters``,
``swm_gis.rules.owners``) and write them atomically through :mod:`swm_gis.io.writers`; they compute
no rule. :class:`swm_gis.notification.info.PackageInfo` (the job's) carries what every output must
state: the subject parcels, the distance, the data sources and the assessing fiscal year
(``docs/abutters.md``); :mod:`swm_gis.reports.package_lines` words what several outputs print alike.
"""

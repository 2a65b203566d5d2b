"""Reports: abutter mailing package, screening report, maps."""

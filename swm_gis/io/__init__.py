"""The only place that reads and writes files and databases, with CRS checks and safe outputs."""

"""The one place the version of swm-gis is written (pyproject.toml and the plugin read it)."""

__version__ = "0.1.0"

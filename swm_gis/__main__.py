"""``python -m swm_gis ...`` runs the command line (the same as the ``swm-gis`` script)."""

from swm_gis.cli import script

script()

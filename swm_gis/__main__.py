"""``python -m swm_gis ...`` runs the command line (the same as the ``swm-gis`` script)."""

import sys

from swm_gis.cli import main

sys.exit(main())

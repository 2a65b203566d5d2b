"""swm-gis QGIS plugin: Massachusetts town stormwater regulation tools in the Processing Toolbox.

Every algorithm runs the ``swm-gis`` engine as a separate program (see :mod:`.engine`); the
plugin itself imports only PyQGIS and the standard library.
"""


def classFactory(iface):  # noqa: N802 - QGIS plugin API
    from .plugin import SwmGisPlugin

    return SwmGisPlugin(iface)

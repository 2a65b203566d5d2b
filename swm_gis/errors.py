"""One error root for every user error, so callers can ``except SwmGisError``.

Each subclass says what was wrong and how to fix it. A message names the options and config keys
it is about by reference (:mod:`swm_gis.messages`), so each front end words it: ``str(error)``
reads in Python's words (``site=``), the command line prints :meth:`SwmGisError.worded` with its
flags and exits with code 2, and its JSON progress carries :attr:`SwmGisError.parts`, which the
QGIS plugin words with its dialog labels.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from swm_gis import messages


class SwmGisError(messages.Templated, ValueError):
    """Root of all swm-gis user errors (bad input, bad configuration).

    ``message`` may hold references (:func:`swm_gis.messages.option`,
    :func:`~swm_gis.messages.config_key`); it is kept as ``template``. An f-string that
    embeds the error (``f"... {exc}"``) keeps the references, so a wrapping error is worded
    whole by each front end.

    >>> from swm_gis.messages import option
    >>> err = SwmGisError(f"Choose another {option('out', 'DIR')}.")
    >>> str(err), f"{err}" == err.template
    ('Choose another out=.', True)
    >>> err.worded(lambda ref: "'Output folder'")
    "Choose another 'Output folder'."
    """

    exit_code = 2
    #: Figures of the error a program may read without parsing its words (``--progress json``
    #: carries them as ``"details"``); a subclass that has some sets them per instance.
    details: Mapping[str, object] = MappingProxyType({})

    def __init__(self, message: object = "", *args: object) -> None:
        self.template = str(message.template if isinstance(message, SwmGisError) else message)
        super().__init__(messages.api_text(self.template), *args)

    def __reduce__(self):  # across processes (workers, Dask) with its references
        return (type(self), (self.template, *self.args[1:]), self.__dict__)


class ConfigError(SwmGisError):
    """The town configuration file is missing, unreadable or inconsistent."""


class InputFileError(SwmGisError):
    """A file or data source is missing or cannot be read, or a layer inside it is missing."""


class CrsError(SwmGisError):
    """A layer has no CRS, or a CRS that cannot be measured in (geographic)."""


class FieldMissingError(SwmGisError):
    """A field the rules need is not in the source; the message names the config key to set."""


class GeometryError(SwmGisError):
    """Geometry is empty, of the wrong type, or cannot be repaired."""


class LayerDataError(SwmGisError):
    """A layer's values cannot be right: a required field empty everywhere, ids that are not ids."""


class EmptyLayerError(SwmGisError):
    """A layer has no features (or none in the area asked for)."""


class UnknownParcelError(SwmGisError):
    """A parcel id given by the user is not in the parcels layer."""


class ParcelOffSiteError(UnknownParcelError):
    """A parcel given as the site's lot is one the limit of disturbance does not touch; the
    message names it and the parcels the site lies on."""


class NotCoveredError(InputFileError):
    """An optional layer (a raster, watershed polygons) does not cover the area a check needs.

    Never a refusal of the screening: each check that reads such a layer catches it and is
    "not checked" (or falls back, as the trace to the nearest stream) with the reason.
    ``layer_bounds`` is the layer's extent in the working CRS (x0, y0, x1, y1) where known: a
    layer nowhere near the town is a wrong file or CRS, which the checks still refuse.
    """

    def __init__(self, message: object = "", *args: object,
                 layer_bounds: tuple[float, float, float, float] | None = None) -> None:
        super().__init__(message, *args)
        self.layer_bounds = layer_bounds


class OutputExistsError(SwmGisError):
    """An output would overwrite an existing file and replacing was not asked for."""


class ArgumentError(SwmGisError):
    """A value given on the command line (or to a job) is not a finite number in its range."""


class OutputError(SwmGisError):
    """An output cannot be written: it is or holds an input, or its folder is read-only or full."""


class OutputLockedError(OutputError):
    """Another run is writing the same output; the message names it (pid, host, command, start)."""


class Interrupted(KeyboardInterrupt):  # noqa: N818 - reads as "the run was interrupted"
    """The run was stopped by SIGINT or SIGTERM; ``exit_code`` is 128 + the signal number.

    A ``KeyboardInterrupt`` so that code which cleans up on Ctrl-C cleans up on SIGTERM too.
    """

    #: The latest one raised: typer turns Ctrl-C into a bare exit code 130, dropping the
    #: exception, so the command line reads the message from here.
    last: Interrupted | None = None

    def __init__(self, message: str, *, signum: int) -> None:
        super().__init__(message)
        self.signum = signum
        self.exit_code = 128 + signum
        Interrupted.last = self


class RegulationError(ConfigError):
    """A regulation profile is missing, unreadable, or has a key that is unknown, missing or of
    the wrong kind; ``key`` names it by its dotted path (``versions[0].notice.distance_ft``).
    """

    def __init__(self, message: object = "", *args: object, key: str = "") -> None:
        super().__init__(message, *args)
        self.key = key
        self.details = MappingProxyType({"key": key} if key else {})

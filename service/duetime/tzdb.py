"""The one time zone database duetime reads: the ``tzdata`` package.

:func:`pin` makes every ``ZoneInfo`` lookup of the process come from the
``tzdata`` package and never from the host's ``/usr/share/zoneinfo``; answers
then depend only on installed Python packages, and the version reported with
each answer (:func:`tzdata_version`) is the one actually used. Importing this
module changes nothing: the composition root (:func:`duetime.compose.build_app`),
the command line's ``main`` and the server's start call :func:`pin`.
"""

from __future__ import annotations

import zoneinfo
from functools import cache
from importlib import resources


def pin() -> None:
    """Read zones from the ``tzdata`` package only, from now on: empty
    ``zoneinfo.TZPATH`` (``zoneinfo.reset_tzpath(to=[])``) and, when it held
    a host directory, clear zoneinfo's cache, so no zone read from the host
    before the call is handed out again. Calling it again changes nothing."""
    if zoneinfo.TZPATH:
        zoneinfo.reset_tzpath(to=[])
        zoneinfo.ZoneInfo.clear_cache()


@cache
def tzdata_version() -> str:
    """Return the IANA release of the ``tzdata`` package's database, e.g. ``"2026a"``.

    Read from the first line of ``tzdata/zoneinfo/tzdata.zi`` (``# version 2026a``).
    Raises RuntimeError if that line is missing or malformed.
    """
    with resources.files("tzdata").joinpath("zoneinfo", "tzdata.zi").open(encoding="ascii") as f:
        first = f.readline().split()
    if len(first) != 3 or first[:2] != ["#", "version"]:
        raise RuntimeError(f"unexpected first line in tzdata.zi: {' '.join(first)!r}")
    return first[2]

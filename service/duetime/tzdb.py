"""The one time zone database duetime reads: the ``tzdata`` package.

Importing this module calls ``zoneinfo.reset_tzpath(to=[])``, so every
``ZoneInfo`` lookup made afterwards in this process comes from the ``tzdata``
package and never from the host's ``/usr/share/zoneinfo``; answers then depend
only on installed Python packages, and the version reported with each answer is
the one actually used (SPEC §1, §8). ``duetime.app``, ``duetime.cli`` and
``duetime.api.server`` import it before anything that touches zones.
"""

from __future__ import annotations

import zoneinfo
from functools import cache
from importlib import resources

zoneinfo.reset_tzpath(to=[])


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

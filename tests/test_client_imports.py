"""Importing the typed client changes nothing in the caller's process: it
loads neither the command line, the app, the ledger, the bundles nor the tz
database pin, and leaves ``zoneinfo.TZPATH`` as it was. Each check runs in a
fresh interpreter, so no other test's imports hide a side effect."""

from __future__ import annotations

import json
import subprocess
import sys

FORBIDDEN = ("duetime.cli", "duetime.app", "duetime.ledger", "duetime.bundles", "duetime.tzdb",
             "duetime.api", "duetime.catalog", "duetime.config", "holidays", "sqlite3",
             "_sqlite3", "psycopg")
"""Modules (and their submodules) that importing the client must not load."""

PROBE = """
import json, sys, zoneinfo
tzpath, before = zoneinfo.TZPATH, set(sys.modules)
import {module}
{then}
print(json.dumps({{"tzpath_before": list(tzpath), "tzpath_after": list(zoneinfo.TZPATH),
                  "loaded": sorted(set(sys.modules) - before)}}))
"""


def _import_in_fresh_process(module: str, then: str = "") -> dict:
    """What importing ``module`` (and running the statement ``then``) in a
    new interpreter loaded, and zoneinfo's search path before and after."""
    done = subprocess.run([sys.executable, "-c", PROBE.format(module=module, then=then)],
                          capture_output=True, text=True, timeout=60, check=True)
    return json.loads(done.stdout)


def _forbidden(loaded: list[str]) -> list[str]:
    return [name for name in loaded
            if any(name == f or name.startswith(f + ".") for f in FORBIDDEN)]


def test_importing_the_client_has_no_side_effects():
    probe = _import_in_fresh_process("duetime.client")
    assert "duetime.client" in probe["loaded"]
    assert _forbidden(probe["loaded"]) == []
    assert probe["tzpath_after"] == probe["tzpath_before"]


def test_building_requests_loads_nothing_more():
    """An inline calendar's hour specs are read by duetime.parsing, not by
    the command line."""
    probe = _import_in_fresh_process("duetime.client", """
from duetime.client import CalendarSpec
CalendarSpec(time_zone="Europe/Zagreb", hours=("mon-fri 09:00-17:00",)).to_proto()""")
    assert _forbidden(probe["loaded"]) == []
    assert probe["tzpath_after"] == probe["tzpath_before"]


def test_the_parsers_need_only_the_standard_library():
    probe = _import_in_fresh_process("duetime.parsing")
    outside = [name for name in probe["loaded"]
               if name.split(".")[0] not in sys.stdlib_module_names
               and name not in ("duetime", "duetime.parsing")]
    assert outside == []
    assert probe["tzpath_after"] == probe["tzpath_before"]

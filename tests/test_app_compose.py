"""The composition root: apps built with other limits and cache sizes live side by side."""

from __future__ import annotations

import subprocess
import sys
import zoneinfo
from datetime import datetime, timezone

import pytest
from duetime.api.convert import DUE_TIME
from duetime.app import DEFAULT_LIMITS, Limits
from duetime.compose import build_app, calendar_cache_size_from_env
from duetime.core import InvalidArgument
from duetime.ledger import MemoryLedger
from duetime.v1 import duetime_pb2 as pb
from local_app import resolve_calendar
from server_process import zagreb_request

RECEIVED = datetime(2026, 11, 27, 15, tzinfo=timezone.utc)


def calendar(i: int) -> pb.Calendar:
    return pb.Calendar(time_zone="Europe/Zagreb",
                       holidays=[pb.Holiday(date=f"2027-01-{i + 1:02d}")])


def test_two_apps_with_different_limits_and_caches_in_one_process():
    strict = build_app(MemoryLedger(), limits=Limits(max_duration_text=2, max_batch_items=1),
                       calendar_cache=1)
    usual = build_app(MemoryLedger(), calendar_cache=5)
    with pytest.raises(InvalidArgument) as caught:
        strict.compute_due_time(zagreb_request(), RECEIVED)
    assert [(v.field, v.description) for v in caught.value.violations] == [
        ("duration", "is 3 characters long; at most 2 are allowed")]
    answer = usual.compute_due_time(zagreb_request(), RECEIVED)
    assert answer.due.ToJsonString() == "2026-12-02T15:00:00Z" and answer.record_id
    # a batch item is refused by the strict app alone
    (refused,) = strict.call_many(DUE_TIME, [zagreb_request()], RECEIVED)
    assert isinstance(refused, InvalidArgument)
    assert (strict.limits.max_batch_items, usual.limits) == (1, DEFAULT_LIMITS)
    for i in range(3):
        resolve_calendar(calendar(i), strict)
        resolve_calendar(calendar(i), usual)
    assert (len(strict.calendar_cache), len(usual.calendar_cache)) == (1, 4)
    assert len(usual.ledger.list_records()[0]) == 1 and not strict.ledger.list_records()[0]


def test_cache_size_from_the_environment():
    assert calendar_cache_size_from_env({}) == 1024
    assert calendar_cache_size_from_env({"DUETIME_CALENDAR_CACHE": "7"}) == 7
    assert calendar_cache_size_from_env({"DUETIME_CALENDAR_CACHE": "-3"}) == 0
    assert calendar_cache_size_from_env({"DUETIME_CALENDAR_CACHE": "x"}) == 1024
    assert len(build_app(calendar_cache=0).calendar_cache) == 0


def test_importing_duetime_leaves_the_zone_path_alone():
    """Only tzdb.pin() (called by build_app, the CLI's main and the server)
    changes zoneinfo's search path; importing the modules does not."""
    code = ("import zoneinfo; before = zoneinfo.TZPATH; "
            "import duetime.app, duetime.api.server, duetime.cli, duetime.compose; "
            "assert zoneinfo.TZPATH == before, (before, zoneinfo.TZPATH); "
            "from duetime.compose import build_app; build_app(); "
            "assert zoneinfo.TZPATH == (), zoneinfo.TZPATH")
    subprocess.run([sys.executable, "-c", code], check=True,
                   env={"PYTHONTZPATH": "/usr/share/zoneinfo"})
    assert zoneinfo.TZPATH == ()  # this process: pinned by the tests' conftest

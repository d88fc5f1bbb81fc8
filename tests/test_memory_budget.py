"""Memory bounded in bytes: the inline-calendar cache and each calendar's
per-date segment cache are sized by what they hold, under one memory budget
(``duetime serve --memory-budget``); request messages are refused at one
limit on both faces, HTTP bodies while they are read (413), gRPC messages
from their length prefix (RESOURCE_EXHAUSTED); and a real server fed many
fat calendars stays within its idle RSS plus the budget.
"""

from __future__ import annotations

import socket
import time
from datetime import date

import grpc
import pytest
from duetime.api import http
from duetime.api.convert import calendar_from_proto
from duetime.api.server import MAX_REQUEST_BYTES
from duetime.app.calendars import (
    CACHE_SHARE,
    DEFAULT_MEMORY_BUDGET,
    SEGMENT_SHARE,
    CalendarCache,
    cache_bytes,
)
from duetime.app.limits import MAX_DATES, MAX_INTERVALS, MAX_INTERVALS_PER_DAY, MAX_NAME
from duetime.compose import build_app
from duetime.config import DEFAULT_MAX_MESSAGE_BYTES, ConfigError, format_bytes, parse_bytes
from duetime.core.compiled import DATE_BYTES, SEGMENT_BYTES
from duetime.v1 import duetime_pb2 as pb
from server_process import start_with_http, ts

MiB = 1 << 20
MONDAY = date(2000, 1, 3).toordinal()

FIX = (" (the server's --max-message-bytes): send a smaller request (a batch split in parts, "
       "or a stream)")
"""What the refusal of a body over the size limit says to do."""


def hms(seconds: int) -> str:
    return f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def fat_calendar(i: int, intervals: int, zone: str = "UTC") -> pb.Calendar:
    """A calendar open ``intervals`` times each weekday (each half of its
    share of the day), made distinct from the others by one holiday on a
    weekday (``i`` < 10,000)."""
    step = 86_400 // intervals
    day = [pb.TimeInterval(start=hms(step * k), end=hms(step * k + step // 2))
           for k in range(intervals)]
    return pb.Calendar(
        time_zone=zone,
        working_hours=pb.WorkingHours(days=[pb.DayHours(weekday=d, intervals=day)
                                            for d in range(1, 6)]),
        holidays=[pb.Holiday(date=date.fromordinal(MONDAY + i // 5 * 7 + i % 5).isoformat())])


def fattest_calendar(i: int, zone: str = "UTC") -> pb.Calendar:
    """The largest calendar the input limits accept: MAX_INTERVALS_PER_DAY
    intervals on each weekday, and MAX_DATES dates, one a week on a weekday
    from 2000 on (about a century), each named with MAX_NAME characters: as
    many date overrides of MAX_INTERVALS_PER_DAY intervals (shifted from the
    week's) as MAX_INTERVALS leaves room for, spread among them, the others
    holidays. ``i`` is in every name, so each ``i`` gives a distinct calendar."""
    per_day = MAX_INTERVALS_PER_DAY
    week = fat_calendar(i, per_day, zone)
    step = 86_400 // per_day
    shifted = [pb.TimeInterval(start=hms(step * k + step // 4), end=hms(step * k + step // 4 + step // 2))
               for k in range(per_day)]
    overrides = (MAX_INTERVALS - 5 * per_day) // per_day
    every = MAX_DATES // overrides
    del week.holidays[:]
    for k in range(MAX_DATES):
        day = date.fromordinal(MONDAY + k * 7 + k % 5).isoformat()
        name = f"{i} {k} ".ljust(MAX_NAME, "x")
        if k % every == 0 and k // every < overrides:
            week.date_overrides.append(pb.DateOverride(date=day, intervals=shifted, name=name))
        else:
            week.holidays.append(pb.Holiday(date=day, name=name))
    return week


def key_of(message: pb.Calendar) -> bytes:
    return message.SerializeToString(deterministic=True)


def charge_of(message: pb.Calendar, max_bytes: int) -> int:
    """What a cache of ``max_bytes`` charges for ``message`` when it is put."""
    compiled = calendar_from_proto(message).compile()
    compiled.limit_segment_cache(max_bytes // SEGMENT_SHARE)
    return len(key_of(message)) + compiled.estimated_bytes()


# ---------------------------------------------------------------------------
# the caches, in process


def test_the_cache_drops_the_least_recently_used_by_bytes():
    messages = [fat_calendar(i, 10) for i in range(4)]
    charges = [charge_of(m, 10 * MiB) for m in messages]
    assert len(set(charges)) == 1 and charges[0] > 20_000  # the same shape, charged alike
    cache = CalendarCache(maxsize=1024, max_bytes=10 * MiB)
    cache.max_bytes = 3 * charges[0]
    for m in messages[:3]:
        cache.put(key_of(m), calendar_from_proto(m))
    assert (len(cache), cache.bytes) == (3, 3 * charges[0])
    assert cache.get(key_of(messages[0])) is not None  # now the most recently used
    cache.put(key_of(messages[3]), calendar_from_proto(messages[3]))
    kept = [m for m in messages if cache.get(key_of(m)) is not None]
    assert kept == [messages[0], messages[2], messages[3]]  # messages[1] was the least recent
    assert cache.bytes == 3 * charges[0]


def test_the_fattest_calendar_is_at_the_input_limits():
    message = fattest_calendar(0)
    per_day = [len(d.intervals) for d in message.working_hours.days] + \
        [len(o.intervals) for o in message.date_overrides]
    assert set(per_day) == {MAX_INTERVALS_PER_DAY}
    assert MAX_INTERVALS - MAX_INTERVALS_PER_DAY < sum(per_day) <= MAX_INTERVALS
    assert len(message.holidays) + len(message.date_overrides) == MAX_DATES
    assert {len(h.name) for h in message.holidays} == {MAX_NAME}
    assert len(calendar_from_proto(message).compile().exception_dates) == MAX_DATES


def test_a_calendar_over_the_budget_on_its_own_is_used_but_not_kept():
    message = fattest_calendar(0)
    cache = CalendarCache(maxsize=1024, max_bytes=charge_of(message, 1024) // 2)
    calendar = cache.put(key_of(message), calendar_from_proto(message))
    assert calendar.compiled.exception_dates  # built and compiled for this call
    assert (len(cache), cache.bytes) == (0, 0)


def test_the_count_bound_of_calendar_cache_still_holds():
    cache = CalendarCache(maxsize=2, max_bytes=1 << 30)
    for i in range(3):
        message = fat_calendar(i, 4)
        cache.put(key_of(message), calendar_from_proto(message))
    assert len(cache) == 2
    assert cache.get(key_of(fat_calendar(0, 4))) is None


def test_a_calendars_segment_cache_is_bounded_in_bytes():
    compiled = calendar_from_proto(fat_calendar(0, MAX_INTERVALS_PER_DAY, "Europe/Zagreb")).compile()
    tables = compiled.estimated_bytes()
    per_date = DATE_BYTES + SEGMENT_BYTES * MAX_INTERVALS_PER_DAY  # the most segments a date owns
    compiled.limit_segment_cache(10 * per_date)
    first = date(2030, 1, 7).toordinal()  # a Monday
    for o in range(first, first + 5):
        compiled.segments(o)
    assert compiled._segment_bytes == 5 * per_date
    assert compiled.estimated_bytes() == tables + 5 * per_date
    for o in range(first, first + 400):
        compiled.segments(o)
        assert compiled._segment_bytes <= 10 * per_date
    compiled.limit_segment_cache(per_date - 1)  # a weekday alone is more: none is kept
    for o in range(first, first + 7):
        compiled.segments(o)
    assert compiled._segment_bytes == len(compiled._segments_by_date) * DATE_BYTES


def test_answers_are_charged_when_they_end_and_the_cache_shrinks_to_fit():
    """A calendar's segments grow while an answer computes with it; when the
    answer ends (``ResolvedCalendar.answering``) the cache charges what it
    holds now and drops the least recently used calendars beyond its bytes.
    The calendars are the largest the input limits accept (about 13 MB
    charged each), so the budget is the default's, whose cache holds a few."""
    from duetime.api.convert import BUSINESS_TIME

    app = build_app(None, memory_budget=256 * MiB)
    cache = app.calendar_cache
    assert cache.max_bytes == 256 * MiB // 3 == cache_bytes(256 * MiB)
    request = pb.ComputeBusinessTimeRequest(start_time=ts("2030-03-01T00:00:00Z"),
                                            end_time=ts("2030-11-01T00:00:00Z"))
    zagreb = [fattest_calendar(i, "Europe/Zagreb") for i in range(12)]
    assert 3 * charge_of(zagreb[0], cache.max_bytes) < cache.max_bytes < \
        12 * charge_of(zagreb[0], cache.max_bytes)
    for message in zagreb[:3]:
        request.calendar.CopyFrom(message)
        app.answer(BUSINESS_TIME, request)
    kept = [cache.get(key_of(m)).compiled for m in zagreb[:3]]
    assert all(c._segment_bytes > 0 for c in kept)  # the DST dates' segments, kept
    assert cache.bytes == sum(len(key_of(m)) + c.estimated_bytes()
                              for m, c in zip(zagreb, kept))
    for message in zagreb[3:]:
        request.calendar.CopyFrom(message)
        app.answer(BUSINESS_TIME, request)
        assert cache.bytes <= cache.max_bytes
    assert 3 < len(cache) < 12
    app.close()


# ---------------------------------------------------------------------------
# the setting


@pytest.mark.parametrize("text, value", [
    ("64MiB", 64 * MiB), ("1GiB", 1 << 30), ("500MB", 500_000_000), ("2g", 2 << 30),
    ("1048576", MiB), ("300 M", 300 * MiB),
])
def test_memory_budget_sizes(text, value):
    assert parse_bytes(text) == value


@pytest.mark.parametrize("text, message", [
    ("lots", "'lots' is not a size (a whole number of bytes, or with a unit: 256MiB, 1GiB, "
             "500MB)"),
    ("12", "'12' is less than 1MiB; give at least 1MiB"),
    ("-5MiB", "'-5MiB' is not a size (a whole number of bytes, or with a unit: 256MiB, 1GiB, "
              "500MB)"),
    ("5 parsecs", "'5 parsecs' is not a size (a whole number of bytes, or with a unit: 256MiB, "
                  "1GiB, 500MB)"),
])
def test_a_bad_memory_budget_is_named(text, message):
    from duetime.config import resolve

    with pytest.raises(ValueError) as caught:
        parse_bytes(text)
    assert str(caught.value) == message
    with pytest.raises(ConfigError) as caught:
        resolve({}, {"DUETIME_MEMORY_BUDGET": text})
    assert (caught.value.setting, caught.value.message) == ("DUETIME_MEMORY_BUDGET", message)


def test_the_memory_budget_flag_its_variable_and_default():
    from duetime.cli import parser
    from duetime.config import resolve

    assert DEFAULT_MEMORY_BUDGET == 256 * MiB and format_bytes(DEFAULT_MEMORY_BUDGET) == "256MiB"
    assert resolve({}, {}).memory_budget == 256 * MiB
    assert resolve({}, {"DUETIME_MEMORY_BUDGET": "96MiB"}).memory_budget == 96 * MiB
    args = parser().parse_args(["serve", "--memory-budget", "1GiB"])
    assert resolve(args, {"DUETIME_MEMORY_BUDGET": "96MiB"}).memory_budget == 1 << 30
    assert CACHE_SHARE == 3 and build_app(None, memory_budget=96 * MiB).calendar_cache.max_bytes \
        == 32 * MiB
    assert build_app(None).calendar_cache.max_bytes == DEFAULT_MEMORY_BUDGET // 3


def test_one_message_limit_for_both_faces():
    import inspect

    assert DEFAULT_MAX_MESSAGE_BYTES == MAX_REQUEST_BYTES == 16 * MiB
    assert inspect.signature(http.create_app).parameters["max_body_bytes"].default == \
        DEFAULT_MAX_MESSAGE_BYTES
    assert inspect.signature(http.start_http_server).parameters["max_body_bytes"].default == \
        DEFAULT_MAX_MESSAGE_BYTES


# ---------------------------------------------------------------------------
# a real server: bodies refused while read, at the gRPC limit


def raw_http(port: int, head: str, body_parts=(), timeout: float = 10.0) -> tuple[int, bytes]:
    """Send ``head`` and ``body_parts`` on a fresh connection and read the
    answer's status and body (up to the connection's close or 64 KiB)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(head.encode("latin-1"))
        for part in body_parts:
            sock.sendall(part)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
        header, _, body = data.partition(b"\r\n\r\n")
        length = next((int(line.split(b":")[1]) for line in header.split(b"\r\n")
                       if line.lower().startswith(b"content-length:")), 0)
        while len(body) < length:
            chunk = sock.recv(65536)
            if not chunk:
                break
            body += chunk
    return int(header.split(b" ")[1]), body


def too_large(message: str) -> dict:
    return {"error": {
        "code": 413, "message": message, "status": "RESOURCE_EXHAUSTED",
        "details": [
            {"@type": "type.googleapis.com/google.rpc.BadRequest",
             "fieldViolations": [{"field": "body", "description": message}]},
            {"@type": "type.googleapis.com/google.rpc.ErrorInfo",
             "reason": "REQUEST_TOO_LARGE", "domain": "duetime.dev"}]}}


@pytest.fixture(scope="module")
def limited(tmp_path_factory):
    """A server whose messages are at most 1 MiB, on both faces."""
    server = start_with_http(tmp_path_factory.mktemp("limited") / "ledger.db",
                             "--max-message-bytes", str(MiB))
    try:
        yield server
        assert server.terminate() == 0, "".join(server.stderr)
    finally:
        server.kill()


def test_a_body_announced_over_the_limit_is_413_before_it_is_sent(limited):
    import json

    port = int(limited.http_url.rsplit(":", 1)[1])
    began = time.monotonic()
    status, body = raw_http(port, "POST /v1/dueTimes:compute HTTP/1.1\r\n"
                                  f"Host: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                                  "Content-Length: 60000000\r\n\r\n")  # and not one byte of it
    assert status == 413
    assert json.loads(body) == too_large(
        f"the request body is 60000000 bytes; at most {MiB} bytes are accepted{FIX}")
    assert time.monotonic() - began < 5


def test_a_chunked_body_is_refused_once_it_passes_the_limit(limited):
    """The body's end is never sent: an answer proves the server stopped
    reading at the limit instead of waiting for the whole body."""
    import json

    port = int(limited.http_url.rsplit(":", 1)[1])
    chunk = b"%x\r\n%s\r\n" % (64 * 1024, b" " * (64 * 1024))
    status, body = raw_http(port, "POST /v1/dueTimes:compute HTTP/1.1\r\n"
                                  f"Host: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                                  "Transfer-Encoding: chunked\r\n\r\n", [chunk] * 18)
    assert status == 413
    assert json.loads(body) == too_large(
        f"the request body is more than {MiB} bytes; at most {MiB} bytes are accepted{FIX}")


def test_grpc_refuses_a_message_over_the_same_limit(limited):
    request = pb.ComputeDueTimeRequest(start=ts("2026-11-27T16:00:00+01:00"), duration="3bd",
                                       calendar=pb.Calendar(time_zone="UTC", holidays=[
                                           pb.Holiday(date="2026-12-25", name="x" * 150)] * 7000))
    size = request.ByteSize()
    assert size > MiB
    with pytest.raises(grpc.RpcError) as caught:
        limited.stub.ComputeDueTime(request, timeout=10)
    assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert f"({size} vs. {MiB})" in caught.value.details()


# ---------------------------------------------------------------------------
# the fat-calendar probe


def rss(pid: int) -> int:
    """VmRSS of process ``pid``, bytes."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError(f"no VmRSS for {pid}")


def test_fat_calendars_keep_the_server_within_its_idle_rss_plus_the_budget(tmp_path):
    """The largest calendars the input limits accept (``fattest_calendar``:
    MAX_INTERVALS_PER_DAY intervals each weekday, MAX_DATES dates over a
    century, MAX_INTERVALS intervals in all, names of MAX_NAME characters;
    about 13 MB charged each), fresh ones again and again: business time over
    100 years with each of 30 in UTC, then over 10 years with each of 20 in
    Europe/Zagreb, whose DST dates fill their segment caches. With
    ``--memory-budget 64MiB`` the server's RSS stays under its RSS after one
    ordinary call plus 64 MiB. A 60 MB gRPC message is refused from its
    length prefix, not read (RSS grows < 16 MiB)."""
    budget = 64 * MiB
    server = start_with_http(tmp_path / "ledger.db", "--memory-budget", "64MiB")
    try:
        pid = server.proc.pid
        server.stub.ComputeDueTime(pb.ComputeDueTimeRequest(
            start=ts("2026-11-27T16:00:00+01:00"), duration="3bd",
            calendar=pb.Calendar(time_zone="Europe/Zagreb")), timeout=30)
        baseline = peak = rss(pid)

        def ask(message: pb.Calendar, years: int) -> None:
            nonlocal peak
            server.stub.ComputeBusinessTime(pb.ComputeBusinessTimeRequest(
                start_time=ts("2000-01-01T00:00:00Z"), end_time=ts(f"{2000 + years}-01-01T00:00:00Z"),
                calendar=message), timeout=60)
            server.stub.ComputeDueTime(pb.ComputeDueTimeRequest(
                start=ts("2026-11-27T16:00:00+01:00"), duration="2000bh", calendar=message),
                timeout=60)
            peak = max(peak, rss(pid))

        for i in range(30):
            ask(fattest_calendar(i), 100)
        after_utc = rss(pid)
        for i in range(20):
            ask(fattest_calendar(1000 + i, "Europe/Zagreb"), 10)
        print(f"RSS: idle {baseline / MiB:.0f} MiB, after the UTC calendars "
              f"{after_utc / MiB:.0f} MiB, peak {peak / MiB:.0f} MiB "
              f"(+{(peak - baseline) / MiB:.0f} MiB, budget {budget / MiB:.0f} MiB)")
        assert peak < baseline + budget

        near = pb.ComputeDueTimeRequest(start=ts("2026-11-27T16:00:00+01:00"), duration="3bd",
                                        calendar=pb.Calendar(time_zone="UTC", holidays=[
                                            pb.Holiday(date="2026-12-25", name="x" * 6000)]
                                            * 10_000))
        assert near.ByteSize() > 60_000_000
        before = rss(pid)
        with pytest.raises(grpc.RpcError) as caught:
            server.stub.ComputeDueTime(near, timeout=60)
        assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert f"({near.ByteSize()} vs. {DEFAULT_MAX_MESSAGE_BYTES})" in caught.value.details()
        assert rss(pid) - before < 16 * MiB
        assert server.terminate() == 0, "".join(server.stderr)
    finally:
        server.kill()

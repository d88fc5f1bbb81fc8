"""What a first-time user found, each fixed with a regression test: long
inputs echoed into errors, unbounded lists, a second server sharing a busy
port, negative durations and lenient instants on the command line, a closed
pipe, empty bundle versions, whitespace keys, ALREADY_EXISTS without a field,
and a shutdown that closed the ledger under a running call."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import grpc
import pytest
from duetime.api.status import MAX_MESSAGE, status_of
from duetime.app import AlreadyExists
from duetime.core import FieldViolation, InvalidArgument
from duetime.v1 import duetime_pb2 as pb
from google.rpc import code_pb2
from google.rpc.error_details_pb2 import BadRequest, ErrorInfo
from server_process import (  # noqa: F401 - fixtures
    CALENDARS,
    ServerProcess,
    server_fixture,
    start_server_fixture,
    zagreb_request,
)
from test_cli import duetime
from test_cli_queries import run
from test_e2e import assert_answers_zagreb, failure

INVALID = grpc.StatusCode.INVALID_ARGUMENT


def due(server, request, **kwargs):
    return server.stub.ComputeDueTime(request, timeout=10, **kwargs)


def with_calendar(**parts) -> pb.ComputeDueTimeRequest:
    request = zagreb_request()
    request.calendar.CopyFrom(pb.Calendar(**parts))
    return request


def schedule(deadlines) -> pb.ComputeScheduleRequest:
    request = pb.ComputeScheduleRequest(deadlines=deadlines)
    request.entered_time.FromJsonString("2026-11-27T15:00:00Z")
    return request


# ---- 1. long inputs are INVALID_ARGUMENT naming the field, never RESOURCE_EXHAUSTED ----

LONG_INPUTS = {
    "time_zone": (with_calendar(time_zone="x" * 10_000), "calendar.time_zone",
                  "is 10000 characters long; at most 64 are allowed"),
    "bundle": (with_calendar(bundle="b" * 20_000), "calendar.bundle",
               "is 20000 characters long; at most 128 are allowed"),
    "duration": (zagreb_request(), "duration", "is 5001 characters long; at most 256 are allowed"),
    "holiday_name": (with_calendar(holidays=[pb.Holiday(date="2026-12-25", name="n" * 201)]),
                     "calendar.holidays[0].name", "is 201 characters long; at most 200 are allowed"),
    "override_control": (with_calendar(date_overrides=[pb.DateOverride(
        date="2026-12-24", closed=True, name="Inven\x00tory")]), "calendar.date_overrides[0].name",
        "contains the control character U+0000 at position 6; names are plain text"),
    "extra_day_control": (with_calendar(extra_working_days=[pb.ExtraWorkingDay(
        date="2026-12-27", name="shift\x7f")]), "calendar.extra_working_days[0].name",
        "contains the control character U+007F at position 6; names are plain text"),
    "holiday_tab": (with_calendar(holidays=[pb.Holiday(date="2026-12-25", name="a\tb")]),
                    "calendar.holidays[0].name",
                    "contains the control character U+0009 at position 2; names are plain text"),
    "overrides_cap": (with_calendar(date_overrides=[pb.DateOverride(date="2026-12-24", closed=True)]
                                    * 10_001), "calendar.date_overrides",
                      "10001 dates given; at most 10000 are allowed (split the years into several "
                      "calendars)"),
    "whitespace_key": (zagreb_request(" \t "), "idempotency_key",
                       "is only whitespace; give a key, or none"),
}
LONG_INPUTS["duration"][0].duration = "1" * 5000 + "h"


@pytest.mark.parametrize("case", sorted(LONG_INPUTS))
def test_long_or_bad_text_is_invalid_argument_naming_the_field(server, case):
    request, field, description = LONG_INPUTS[case]
    code, bad, info = failure(lambda: due(server, request))
    assert code == INVALID
    assert [(v.field, v.description) for v in bad.field_violations] == [(field, description)]
    assert info.domain == "duetime.dev"


def test_long_record_id_is_invalid_argument(server):
    code, bad, _ = failure(lambda: server.stub.GetRecord(
        pb.GetRecordRequest(record_id="x" * 100_000), timeout=10))
    assert code == INVALID
    assert [(v.field, v.description) for v in bad.field_violations] == [
        ("record_id", "100000 characters is not a record id (32 lower-case hex digits, as "
                      "returned in record_id)")]
    code, _, _ = failure(lambda: server.stub.GetRecord(
        pb.GetRecordRequest(record_id="0123456789abcdef" * 2), timeout=10))
    assert code == grpc.StatusCode.NOT_FOUND


def test_thousands_of_bad_dates_are_listed_bounded(server):
    request = with_calendar(holidays=[pb.Holiday(date="x" * 60 + str(i)) for i in range(3000)])
    code, bad, _ = failure(lambda: due(server, request))
    assert code == INVALID
    violations = bad.field_violations
    assert 2 <= len(violations) <= 21
    assert violations[0].field == "calendar.holidays[0].date"
    assert violations[-1].description.startswith(f"… and {3000 - len(violations) + 1} more")
    assert_answers_zagreb(server)


def test_status_texts_are_clipped():
    long = InvalidArgument([FieldViolation("f" * 500, "d" * 100_000)])
    status = status_of(long)
    bad = BadRequest()
    assert status.details[0].Unpack(bad)
    (violation,) = bad.field_violations
    assert len(violation.field) == 200 and violation.field.endswith("…")
    assert len(violation.description) == 300 and violation.description.endswith("…")
    assert len(status.message) <= MAX_MESSAGE and status.message.endswith("…")
    # non-ASCII text is cut by its size on the wire (percent-encoded), not only its length
    wide = status_of(InvalidArgument([FieldViolation("f", "東京" * 5000)]))
    assert len(wide.message.encode()) * 3 <= 2000 + 9 and wide.message.endswith("…")
    many = status_of(InvalidArgument([FieldViolation(f"f{i}", "x" * 290) for i in range(100)]))
    assert many.ByteSize() < 4000


def test_already_exists_names_the_key_field():
    status = status_of(AlreadyExists("ticket-1", "team-a"))
    bad, info = BadRequest(), ErrorInfo()
    assert status.code == code_pb2.ALREADY_EXISTS
    assert status.details[0].Unpack(bad) and status.details[1].Unpack(info)
    assert [(v.field, v.description) for v in bad.field_violations] == [
        ("idempotency_key", "was already used in namespace 'team-a' with a different request; "
                            "a new request needs a new key")]
    assert dict(info.metadata) == {"idempotency_key": "ticket-1", "namespace": "team-a"}


def test_already_exists_over_grpc_carries_the_field(server):
    due(server, zagreb_request("fix-key"))
    other = zagreb_request("fix-key")
    other.duration = "4bd"
    code, bad, info = failure(lambda: due(server, other))
    assert code == grpc.StatusCode.ALREADY_EXISTS
    assert [v.field for v in bad.field_violations] == ["idempotency_key"]
    assert info.metadata["idempotency_key"] == "fix-key"


def test_empty_version_after_at_is_invalid(server):
    code, bad, _ = failure(lambda: due(server, with_calendar(bundle="hr-zagreb@")))
    assert code == INVALID
    assert [(v.field, v.description) for v in bad.field_violations] == [
        ("calendar.bundle", "'hr-zagreb@': empty version after '@'; write 'hr-zagreb' for its "
                            "newest version, or hr-zagreb@VERSION")]


# ---- 2. ComputeSchedule: at most 100 deadlines ----------------------------------------


def test_schedule_deadlines_are_capped(server):
    deadlines = [pb.DeadlineSpec(name=f"d{i}", duration="1bd") for i in range(101)]
    code, bad, _ = failure(lambda: server.stub.ComputeSchedule(schedule(deadlines), timeout=10))
    assert code == INVALID
    assert [(v.field, v.description) for v in bad.field_violations] == [
        ("deadlines", "has 101 deadlines; at most 100 are allowed")]
    answer = server.stub.ComputeSchedule(schedule(deadlines[:100]), timeout=10)
    assert len(answer.deadlines) == 100
    bad_name = [pb.DeadlineSpec(name="a\nb", duration="1bd")]
    code, bad, _ = failure(lambda: server.stub.ComputeSchedule(schedule(bad_name), timeout=10))
    assert [v.field for v in bad.field_violations] == ["deadlines[0].name"]


# ---- 3. a busy port is an error, not a shared port ------------------------------------


def test_second_server_on_a_busy_port_exits_non_zero(server, tmp_path):
    port = server.address.rsplit(":", 1)[1]
    result = subprocess.run(
        [sys.executable, "-m", "duetime", "serve", "--port", port, "--db",
         str(tmp_path / "other.db")], capture_output=True, text=True, timeout=30)
    assert result.returncode == 1
    assert result.stderr == (
        f"error: --port: cannot listen on 127.0.0.1:{port} for the gRPC API: the port is in use "
        "(another process listens there, perhaps another duetime serve); choose another with "
        "--port PORT (or DUETIME_PORT); --port 0 picks a free one\n")
    assert_answers_zagreb(server)


@pytest.mark.parametrize("port", ["65536", "-1", "http"])
def test_port_out_of_range_is_a_usage_error(port):
    result = duetime("serve", "--port", port)
    assert result.returncode == 2
    assert "argument --port: " in result.stderr and "is not a TCP port (0..65535" in result.stderr


# ---- 4. the command line: negative durations, closed pipes, empty bundle names --------


def test_negative_durations_are_positional(capsys):
    code, lines, err = run(capsys, "due", "2026-11-27T16:00Z", "-1bd")
    assert (code, err) == (0, "")
    assert lines[0] == "due:       2026-11-26T16:00:00+00:00 (UTC)"
    code, lines, _ = run(capsys, "due", "2026-11-27T16:00Z", "-1.5h", "--json")
    assert code == 0 and '"due": "2026-11-27T14:30:00Z"' in "\n".join(lines)
    code, lines, _ = run(capsys, "due", "2026-03-31T16:00Z", "-P1M")
    assert code == 0 and lines[0] == "due:       2026-02-28T16:00:00+00:00 (UTC)"
    code, _, err = run(capsys, "clock", "start", "-8bh", "--at", "2026-11-27T16:00Z")
    assert code == 2 and err.startswith("error: target: ")


def test_negative_durations_are_mentioned_in_help():
    assert "-1bd" in duetime("due", "--help").stdout


def test_closed_pipe_ends_quietly():
    deadlines = [arg for i in range(1, 101) for arg in ("--deadline", f"d{i}={i}00bd")]
    proc = subprocess.Popen([sys.executable, "-m", "duetime", "schedule", "2026-11-27T16:00Z",
                             *deadlines, "--explain"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)  # about 450 kB: more than a pipe holds
    assert proc.stdout.readline().startswith(b"d1:")
    proc.stdout.close()  # the reader goes away, as `| head -1` does
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=30) == 141
    assert err == ""


@pytest.mark.parametrize("ref, expected", [
    ("", "error: --calendar: '' names no bundle"),
    ("hr-zagreb@", "error: --calendar: 'hr-zagreb@': empty version after '@'"),
    ("@f45226394a32", "error: --calendar: '@f45226394a32' names no bundle"),
])
def test_empty_calendar_names_are_refused(capsys, ref, expected):
    code, lines, err = run(capsys, "due", "2026-11-27T16:00Z", "1bd", "--calendar", ref)
    assert (code, lines) == (2, [])
    assert err.startswith(expected), err


# ---- 5. instants on the command line are RFC 3339, strictly --------------------------


@pytest.mark.parametrize("text, expected", [
    ("2026-11-27", "'2026-11-27' is a date, not an instant; write a full RFC 3339 instant such "
                   "as 2026-11-27T00:00:00Z or 2026-11-27T00:00:00+01:00"),
    ("2026-11-27T16:00", "'2026-11-27T16:00' has no UTC offset; write e.g. 2026-11-27T16:00Z or "
                         "2026-11-27T16:00+01:00"),
    ("20261127T1600Z", "'20261127T1600Z' is not an RFC 3339 instant such as "
                       "2026-11-27T16:00:00+01:00"),
    ("2026-W48-5T16:00Z", "'2026-W48-5T16:00Z' is not an RFC 3339 instant"),
    ("2026-11-27T16:00:00,5Z", "'2026-11-27T16:00:00,5Z' is not an RFC 3339 instant"),
    ("2026-11-27T16:00:00.1234567Z", "'2026-11-27T16:00:00.1234567Z' has more than 6 "
                                     "fractional digits"),
    ("2026-11-27T16:00+0100", "'2026-11-27T16:00+0100' is not an RFC 3339 instant"),
])
def test_instants_must_be_rfc3339(capsys, text, expected):
    code, lines, err = run(capsys, "due", text, "3bd")
    assert (code, lines) == (2, [])
    assert err.startswith(f"error: start: {expected}"), err


@pytest.mark.parametrize("text, utc", [
    ("2026-11-27T16:00Z", "2026-11-30T16:00:00Z"),
    ("2026-11-27t16:00:00.5z", "2026-11-30T16:00:00.500Z"),
    ("2026-11-27T17:00:00.123456+01:00", "2026-11-30T16:00:00.123456Z"),
    ("2026-11-27 16:00:00-00:00", "2026-11-30T16:00:00Z"),
])
def test_rfc3339_instants_are_accepted(capsys, text, utc):
    code, lines, err = run(capsys, "due", text, "1bd")
    assert code == 0, err
    assert lines[1] == f"due (UTC): {utc}"


# ---- 7. SIGTERM with CPU-bound calls in flight -----------------------------------------


def heavy_request() -> pb.BatchComputeDueTimesRequest:
    """Seconds of computation within the request limits: a batch of 120 items,
    each with its own calendar of 5,000 holidays and 48 intervals a weekday,
    each asking for business time across two centuries (two explained)."""
    def day(i: int, first: int) -> str:
        return f"{first + i // 300:04d}-{1 + (i % 300) // 28:02d}-{1 + i % 28:02d}"
    week = pb.WorkingHours(days=[pb.DayHours(weekday=wd, intervals=[
        pb.TimeInterval(start=f"{q // 4:02d}:{q % 4 * 15:02d}", end=f"{q // 4:02d}:{q % 4 * 15 + 10:02d}")
        for q in range(0, 96, 2)]) for wd in range(1, 6)])
    items = []
    for k in range(120):
        calendar = pb.Calendar(time_zone="America/New_York", working_hours=week,
                               holidays=[pb.Holiday(date=day(i, 1950), name=f"{k}") for i in range(5_000)])
        item = pb.ComputeDueTimeRequest(duration="500000bh", calendar=calendar, explain=k < 2)
        item.start.FromJsonString("1950-01-02T00:00:00Z")
        items.append(item)
    return pb.BatchComputeDueTimesRequest(items=items)


def test_sigterm_with_busy_calls_drops_them_cleanly_and_exits_promptly(start_server):
    # 120 distinct calendars of 5,000 holidays: a server that takes that much in one
    # message, and eight such messages at once (the default memory budget lets about
    # one in: the others would be refused at once, and one call alone can finish
    # within the grace period on a fast machine)
    running = start_server(CALENDARS, "--max-batch-calendar-weight", "1000000",
                           "--memory-budget", "2GiB")
    request, codes = heavy_request(), []

    def call():
        try:
            running.stub.BatchComputeDueTimes(request, timeout=60)
            codes.append(grpc.StatusCode.OK)
        except grpc.RpcError as exc:
            codes.append(exc.code())

    callers = [threading.Thread(target=call) for _ in range(8)]  # one per server thread
    for caller in callers:
        caller.start()
    time.sleep(1.0)  # the calls are computing (8 × ~3 s of CPU under one GIL)
    began = time.monotonic()
    running.proc.terminate()
    running.await_log("duetime shutting down", timeout=5)
    running.proc.send_signal(signal.SIGINT)  # a second signal while shutting down: ignored
    assert running.wait_exit(20) == 0
    took = time.monotonic() - began
    for caller in callers:
        caller.join(timeout=20)
    log = "".join(running.stderr)
    assert took < 9, (took, log)  # the 5 s grace period, not the calls' remaining CPU time
    assert "ledger unavailable" not in log and "Cannot operate" not in log
    assert "RESOURCE_EXHAUSTED" not in log, log  # all eight were computing
    # at the end of the grace period each call is cancelled: it stops at its next
    # cooperative check (logged CANCELLED) or, if it does not reach one in time,
    # the server exits without it and says so
    assert "call(s) still running after the 5 s grace period were cut off, unanswered" in log or \
        "BatchComputeDueTimes CANCELLED" in log, log
    assert grpc.StatusCode.OK not in codes
    restarted = ServerProcess(running.db_path)  # the same ledger: nothing was recorded
    try:
        assert list(restarted.stub.ListRecords(pb.ListRecordsRequest(), timeout=10).records) == []
    finally:
        restarted.kill()


def test_clock_state_counters_and_interval_lists_are_bounded():
    import local_app as appmod
    from duetime import app as limits
    from duetime.v1 import duetime_pb2 as pb2

    state = pb2.ClockState(target="8bh", measure=pb2.CLOCK_MEASURE_BUSINESS_TIME,
                           status=pb2.CLOCK_STATUS_RUNNING, recomputations=2**63 - 1)
    state.start_time.FromJsonString("2026-11-27T11:00:00Z")
    state.last_event_time.FromJsonString("2026-11-27T11:00:00Z")
    state.running_since_time.FromJsonString("2026-11-27T11:00:00Z")
    state.deadline_time.FromJsonString("2026-11-30T11:00:00Z")
    for _ in range(limits.MAX_RUNNING_INTERVALS + 1):
        iv = state.running_intervals.add()
        iv.start_time.FromJsonString("2026-11-27T09:00:00Z")
        iv.end_time.FromJsonString("2026-11-27T10:00:00Z")
    import pytest
    from duetime.core import InvalidArgument

    with pytest.raises(InvalidArgument) as e:
        appmod.clock_state_from_proto(state)
    fields = {v.field for v in e.value.violations}
    assert {"state.recomputations", "state.running_intervals"} <= fields


def test_a_token_that_is_not_visible_ascii_is_refused_before_any_call():
    """gRPC metadata values are visible ASCII: a token such as "héllo" (or one
    with a space inside) is a clear usage error (exit 2) instead of an
    INTERNAL "Invalid metadata" after a C-core trace."""
    from duetime.channels import ChannelError, ConnectionOptions, open_channel

    for token in ("héllo", "two words", "tab\there"):
        with pytest.raises(ChannelError) as caught:
            open_channel("127.0.0.1:1", ConnectionOptions(token=token))
        assert str(caught.value).startswith("token: is empty or holds a character other "
                                            "than visible ASCII"), str(caught.value)
    result = subprocess.run(
        [sys.executable, "-m", "duetime", "open", "2026-11-27T16:00+01:00",
         "--server", "127.0.0.1:1"],
        env={**os.environ, "DUETIME_TOKEN": "héllo"}, capture_output=True, text=True,
        timeout=60)
    assert result.returncode == 2
    assert result.stderr == ("error: --token: is empty or holds a character other than "
                             "visible ASCII (letters, digits, punctuation)\n")
    empty = subprocess.run(  # as DUETIME_TOKEN=$(cat missing-file) leaves it: not "no token"
        [sys.executable, "-m", "duetime", "open", "2026-11-27T16:00+01:00",
         "--server", "127.0.0.1:1"],
        env={**os.environ, "DUETIME_TOKEN": ""}, capture_output=True, text=True, timeout=60)
    assert (empty.returncode, empty.stderr) == (
        2, "error: $DUETIME_TOKEN: is set but empty: set it to the bearer token, or unset it "
           "to call without one\n")


def test_clock_state_running_intervals_must_be_ordered_and_not_inverted():
    """A forged state whose running interval ends before it starts, or
    overlaps the one before it, is INVALID_ARGUMENT on that interval."""
    import local_app as appmod
    from duetime.core import InvalidArgument
    from duetime.v1 import duetime_pb2 as pb2

    def state_with(*intervals):
        state = pb2.ClockState(target="8bh", measure=pb2.CLOCK_MEASURE_BUSINESS_TIME,
                               status=pb2.CLOCK_STATUS_RUNNING)
        state.start_time.FromJsonString("2026-11-27T08:00:00Z")
        state.last_event_time.FromJsonString("2026-11-27T12:00:00Z")
        state.running_since_time.FromJsonString("2026-11-27T12:00:00Z")
        state.deadline_time.FromJsonString("2026-11-30T11:00:00Z")
        state.calendar_version = appmod.resolve_calendar(state.calendar).version
        for start, end in intervals:
            iv = state.running_intervals.add()
            iv.start_time.FromJsonString(start)
            iv.end_time.FromJsonString(end)
        return state

    with pytest.raises(InvalidArgument) as inverted:
        appmod.clock_state_from_proto(state_with(("2026-11-27T10:00:00Z", "2026-11-27T09:00:00Z")))
    assert [(v.field, v.description) for v in inverted.value.violations] == [
        ("state.running_intervals[0].end_time", "is before its start_time")]
    with pytest.raises(InvalidArgument) as overlapping:
        appmod.clock_state_from_proto(state_with(("2026-11-27T08:00:00Z", "2026-11-27T10:00:00Z"),
                                                 ("2026-11-27T09:00:00Z", "2026-11-27T11:00:00Z")))
    assert [(v.field, v.description) for v in overlapping.value.violations] == [
        ("state.running_intervals[1].start_time", "is before the end of the interval before it "
                                                  "(intervals are in order and do not overlap)")]
    core, _ = appmod.clock_state_from_proto(
        state_with(("2026-11-27T08:00:00Z", "2026-11-27T09:00:00Z"),
                   ("2026-11-27T09:00:00Z", "2026-11-27T10:00:00Z")))
    assert len(core.intervals) == 2

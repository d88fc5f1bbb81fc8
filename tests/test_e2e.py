"""End to end: a real ``python -m duetime serve`` subprocess, called over gRPC."""

from __future__ import annotations

import os
import resource
import signal
import sqlite3
import subprocess
import sys
import time

import grpc
import pytest
from duetime.tzdb import tzdata_version
from duetime.v1 import duetime_pb2 as pb
from google.rpc.error_details_pb2 import BadRequest, ErrorInfo
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)
from grpc_status import rpc_status
from server_process import (  # noqa: F401
    CALENDARS,
    free_port,
    server_fixture,
    start_server_fixture,
    zagreb_request,
)


def failure(call) -> tuple[grpc.StatusCode, BadRequest, ErrorInfo]:
    """Run ``call()``, which must fail; return its code and rich-status details."""
    with pytest.raises(grpc.RpcError) as caught:
        call()
    bad_request, info = BadRequest(), ErrorInfo()
    for detail in rpc_status.from_call(caught.value).details:
        detail.Unpack(bad_request) or detail.Unpack(info)
    return caught.value.code(), bad_request, info


def assert_answers_zagreb(server):
    response = server.stub.ComputeDueTime(zagreb_request(), timeout=10)
    assert response.due.ToJsonString() == "2026-12-02T15:00:00Z"
    assert response.due_local == "2026-12-02T16:00:00+01:00"
    return response


def test_reflection_lists_services(server):
    services = ProtoReflectionDescriptorDatabase(server.channel).get_services()
    assert {"duetime.v1.DueTimeService", "grpc.health.v1.Health"} <= set(services)


def test_compute_and_read_back(server):
    response = assert_answers_zagreb(server)
    assert response.time_zone == "Europe/Zagreb"
    assert response.tzdata_version == tzdata_version()
    assert len(response.record_id) == 32
    reply = server.stub.GetRecord(pb.GetRecordRequest(record_id=response.record_id), timeout=10)
    record = reply.record
    request, stored = pb.ComputeDueTimeRequest(), pb.ComputeDueTimeResponse()
    assert record.request.Unpack(request) and request == zagreb_request()
    assert record.response.Unpack(stored) and stored == response
    assert record.record_id == response.record_id
    assert record.method == "/duetime.v1.DueTimeService/ComputeDueTime"
    assert record.calendar_version == response.calendar_version
    assert abs(time.time() - record.receive_time.ToSeconds()) < 60


def test_idempotency(server):
    first = server.stub.ComputeDueTime(zagreb_request("e2e-key"), timeout=10)
    again = server.stub.ComputeDueTime(zagreb_request("e2e-key"), timeout=10)
    assert again == first
    different = zagreb_request("e2e-key")
    different.duration = "4bd"
    code, _, info = failure(lambda: server.stub.ComputeDueTime(different, timeout=10))
    assert code == grpc.StatusCode.ALREADY_EXISTS
    assert (info.reason, info.domain, info.metadata["idempotency_key"]) == (
        "IDEMPOTENCY_KEY_REUSED", "duetime.dev", "e2e-key")


@pytest.mark.parametrize("mutate, field", [
    (lambda r: setattr(r.calendar, "time_zone", "Europe/Atlantis"), "calendar.time_zone"),
    (lambda r: setattr(r.calendar.holidays[0], "date", "2026-13-01"), "calendar.holidays[0].date"),
    (lambda r: setattr(r, "duration", "1.5bd"), "duration"),
    (lambda r: setattr(r, "duration", "3xy"), "duration"),
    (lambda r: setattr(r, "duration", ""), "duration"),
], ids=["unknown-zone", "bad-holiday-date", "decimal-bd", "bad-unit", "empty-duration"])
def test_bad_input_is_invalid_argument_naming_the_field(server, mutate, field):
    request = zagreb_request()
    mutate(request)
    code, bad_request, info = failure(lambda: server.stub.ComputeDueTime(request, timeout=10))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert [v.field for v in bad_request.field_violations] == [field]
    assert bad_request.field_violations[0].description
    assert info.domain == "duetime.dev" and info.reason.isupper()
    assert_answers_zagreb(server)


def test_unknown_record_is_not_found(server):
    code, _, info = failure(
        lambda: server.stub.GetRecord(pb.GetRecordRequest(record_id="0" * 32), timeout=10))
    assert code == grpc.StatusCode.NOT_FOUND
    assert info.reason == "RECORD_NOT_FOUND"


def _records(db_path) -> int:
    with sqlite3.connect(db_path) as conn:
        return conn.execute("SELECT count(*) FROM records").fetchone()[0]


def test_ledger_write_failure_is_unavailable_and_unrecorded(start_server):
    """RLIMIT_FSIZE = 0 on the server process makes every file write fail with
    EFBIG (as root too, unlike a read-only file); the server must answer
    UNAVAILABLE, store nothing, and recover once writes work again."""
    running = start_server()
    assert_answers_zagreb(running)
    assert _records(running.db_path) == 1
    limits = resource.prlimit(running.proc.pid, resource.RLIMIT_FSIZE)
    resource.prlimit(running.proc.pid, resource.RLIMIT_FSIZE, (0, limits[1]))
    try:
        code, _, info = failure(
            lambda: running.stub.ComputeDueTime(zagreb_request("k-failed"), timeout=10))
    finally:
        resource.prlimit(running.proc.pid, resource.RLIMIT_FSIZE, limits)
    assert code == grpc.StatusCode.UNAVAILABLE
    assert info.reason == "LEDGER_UNAVAILABLE"
    assert _records(running.db_path) == 1
    retried = running.stub.ComputeDueTime(zagreb_request("k-failed"), timeout=10)
    assert _records(running.db_path) == 2
    assert running.stub.GetRecord(pb.GetRecordRequest(record_id=retried.record_id), timeout=10)


def test_sigterm_exits_zero_promptly(start_server):
    running = start_server()
    assert_answers_zagreb(running)
    began = time.monotonic()
    assert running.terminate(timeout=10) == 0, "".join(running.stderr)
    assert time.monotonic() - began < 5
    assert "shutting down" in "".join(running.stderr)


def test_signals_taken_by_another_thread_still_act(start_server):
    """The kernel hands a process-directed signal to any thread that does not
    block it, often a busy gRPC thread rather than the sleeping main thread.
    Addressed to each non-main thread in turn (the kernel then prefers that
    thread), SIGHUP must still reload and SIGTERM still stop at once."""
    running = start_server()
    assert_answers_zagreb(running)
    threads = running.thread_ids()
    assert len(threads) >= 3, threads
    for tid in threads:
        os.kill(tid, signal.SIGHUP)
        running.await_log(r"calendars reloaded from ", timeout=5)
    assert_answers_zagreb(running)
    target = next(iter(threads))
    began = time.monotonic()
    assert running.terminate(timeout=10, pid=target) == 0, "".join(running.stderr)
    assert time.monotonic() - began < 5, threads[target]
    assert "shutting down" in "".join(running.stderr)


def test_signals_during_shutdown_do_not_cut_the_exit_short(start_server):
    """After the first SIGTERM every later SIGTERM, SIGINT or SIGHUP (a second
    Ctrl-C, a reload racing the stop) is ignored, to the very end: exit 0."""
    running = start_server()
    assert_answers_zagreb(running)
    running.channel.close()
    running.proc.send_signal(signal.SIGTERM)
    sent = 0
    while running.proc.poll() is None and sent < 20_000:
        running.proc.send_signal((signal.SIGTERM, signal.SIGINT, signal.SIGHUP)[sent % 3])
        sent += 1
        time.sleep(0.0005)
    assert running.wait_exit(10) == 0, "".join(running.stderr)
    assert sent > 10, sent
    log = "".join(running.stderr)
    assert "shutting down" in log and "Traceback" not in log and "KeyboardInterrupt" not in log


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_signal_while_starting_is_acted_on_once_started(tmp_path, signum):
    """Sent as soon as the server logs its configuration (the first thing it
    does), long before it listens: SIGTERM/SIGINT stop it cleanly once it has
    started, SIGHUP reloads; none kills it half-started."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "duetime", "serve", "--port", "0", "--http-port", str(free_port()),
         "--db", str(tmp_path / "ledger.db"), "--calendars", str(CALENDARS)],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        lines = []
        for line in proc.stderr:
            lines.append(line)
            if "configuration: " in line:
                proc.send_signal(signum)
                break
        if signum == signal.SIGHUP:
            for line in proc.stderr:
                lines.append(line)
                if "calendars reloaded from" in line:
                    break
            proc.send_signal(signal.SIGTERM)
        _, rest = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    log = "".join(lines) + rest
    assert proc.returncode == 0, log
    assert "duetime listening on" in log and "duetime shutting down" in log, log
    assert "Traceback" not in log, log

"""Graceful shutdown under load: SIGTERM while clients are calling.

A real ``duetime serve`` (SQLite ledger in tmp_path) is called by
:data:`CLIENTS` threads, each on its own channel, issuing ComputeDueTime
continuously with distinct idempotency keys. Once every client has been
answered at least a few times, the server gets SIGTERM while calls are in
flight (after at least :data:`LOAD_SECONDS` of load). The clients keep calling
until the server is gone. Then:

* the process exits 0 within its grace period (5 s: the calls in flight take
  milliseconds);
* every call that was answered was answered exactly (the Zagreb example) and
  its record id is in the ledger file, under the call's idempotency key: no
  answered call lacks its record (README "Records", docs/semantics.md §12);
* every call that was not answered failed with a status a client retries
  (UNAVAILABLE, CANCELLED), never INTERNAL or UNKNOWN.

The counts are printed (``pytest -s``): calls answered, refused by code.
"""

from __future__ import annotations

import signal
import socket
import sqlite3
import threading
import time
from collections import Counter

import grpc
from duetime.api.server import GRACE_SECONDS
from duetime.v1 import duetime_pb2_grpc as pb_grpc
from server_process import ServerProcess, zagreb_request

CLIENTS = 4
"""Client threads calling at once (the server answers with 8 worker threads)."""
WARM_ANSWERS = 5
"""Answers each client must have had before the SIGTERM."""
LOAD_SECONDS = 1.5
"""Seconds of load before the SIGTERM (at least)."""
EXIT_SLACK = 10.0
"""Seconds beyond the grace period the test waits for the process before it
fails (the process must exit within the grace period itself)."""
RETRYABLE = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED}


def test_sigterm_under_load_loses_no_answered_record(tmp_path):
    server = ServerProcess(tmp_path / "ledger.db")
    answered: dict[str, str] = {}  # record id -> idempotency key
    wrong: list[str] = []
    refused: Counter = Counter()
    lock = threading.Lock()
    per_client = [0] * CLIENTS
    gone = threading.Event()

    def client(n: int) -> None:
        channel = grpc.insecure_channel(server.address)
        stub = pb_grpc.DueTimeServiceStub(channel)
        failures_in_a_row = 0
        for seq in range(1_000_000):
            key = f"shutdown/{n}/{seq}"
            try:
                response = stub.ComputeDueTime(zagreb_request(key), timeout=10)
            except grpc.RpcError as error:
                with lock:
                    refused[error.code()] += 1
                failures_in_a_row += 1
                if gone.is_set() or failures_in_a_row >= 50:
                    break
                time.sleep(0.01)
                continue
            failures_in_a_row = 0
            with lock:
                per_client[n] += 1
                answered[response.record_id] = key
                if response.due.ToJsonString() != "2026-12-02T15:00:00Z":
                    wrong.append(f"{key}: {response.due.ToJsonString()}")
        channel.close()

    threads = [threading.Thread(target=client, args=(n,), daemon=True) for n in range(CLIENTS)]
    try:
        for thread in threads:
            thread.start()
        began = time.monotonic()
        while (min(per_client) < WARM_ANSWERS or time.monotonic() - began < LOAD_SECONDS) \
                and time.monotonic() - began < 30:
            time.sleep(0.02)
        assert min(per_client) >= WARM_ANSWERS, f"answers per client before SIGTERM: {per_client}"
        with lock:
            before = len(answered)
        signalled = time.monotonic()
        server.proc.send_signal(signal.SIGTERM)
        code = server.wait_exit(GRACE_SECONDS + EXIT_SLACK)
        exited_after = time.monotonic() - signalled
        gone.set()
        for thread in threads:
            thread.join(timeout=30)
        assert not any(thread.is_alive() for thread in threads)
    finally:
        gone.set()
        server.kill()

    stderr = "".join(server.stderr)
    assert code == 0, stderr
    assert exited_after < GRACE_SECONDS, stderr[-3000:]
    assert "duetime shutting down" in stderr
    assert not wrong
    unexpected = {c.name: k for c, k in refused.items() if c not in RETRYABLE}
    assert not unexpected, f"calls failed with {unexpected}; stderr: {stderr[-2000:]}"
    with sqlite3.connect(tmp_path / "ledger.db") as db:
        stored = dict(db.execute("SELECT record_id, idempotency_key FROM records"))
    missing = sorted(set(answered) - set(stored))
    assert not missing, f"{len(missing)} answered call(s) without a record, e.g. {missing[:3]}"
    assert all(stored[record_id] == key for record_id, key in answered.items())
    assert len(answered) == sum(per_client)  # distinct keys, distinct records
    assert len(answered) >= before >= CLIENTS * WARM_ANSWERS
    print(f"\nshutdown under load: {len(answered)} calls answered ({before} before SIGTERM, "
          f"{len(answered) - before} after), {sum(refused.values())} refused "
          f"({', '.join(f'{c.name} {k}' for c, k in sorted(refused.items(), key=str))}); "
          f"{len(stored)} records in the ledger; exit 0 after {exited_after:.2f} s")


def test_a_connection_without_a_call_does_not_hold_the_shutdown(tmp_path):
    """Two connections that never make a call (one silent, one that sent only
    the HTTP/2 preface, as a client connecting at the moment of the SIGTERM
    may be) and an idle gRPC channel: the server exits within a second or
    so of SIGTERM, not at the end of its 5 s grace period (gRPC's graceful
    stop waits for such connections until then; the server ends them once no
    call has been running for 0.1 s)."""
    server = ServerProcess(tmp_path / "ledger.db")
    host, port = server.address.rsplit(":", 1)
    silent = socket.create_connection((host, int(port)))
    preface = socket.create_connection((host, int(port)))
    preface.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
    try:
        assert server.stub.ComputeDueTime(zagreb_request("idle/1"), timeout=10).record_id
        time.sleep(0.5)
        signalled = time.monotonic()
        server.proc.send_signal(signal.SIGTERM)
        code = server.wait_exit(GRACE_SECONDS + EXIT_SLACK)
        exited_after = time.monotonic() - signalled
    finally:
        silent.close()
        preface.close()
        server.kill()
    stderr = "".join(server.stderr)
    assert code == 0, stderr
    assert exited_after < 2.5, (exited_after, stderr[-2000:])
    assert "duetime shutting down" in stderr


def test_an_http_call_cut_off_by_the_grace_period_is_answered_503_not_500(tmp_path):
    """An HTTP request whose body is still arriving when the 1 s grace period
    ends is answered 503 UNAVAILABLE (SHUTTING_DOWN, retryable), logged at
    INFO, without uvicorn's 500 and its traceback; nothing is recorded."""
    import json

    from server_process import start_with_http
    from test_admission import ZAGREB_JSON, open_body, read_answer

    server = start_with_http(tmp_path / "ledger.db", "--grace", "1", "--body-timeout", "30")
    try:
        port = int(server.http_url.rsplit(":", 1)[1])
        slow = open_body(port, len(ZAGREB_JSON), ZAGREB_JSON[:10])
        time.sleep(0.5)  # the call is reading its body
        server.proc.send_signal(signal.SIGTERM)
        status, headers, body = read_answer(slow)
        slow.close()
        code = server.wait_exit(GRACE_SECONDS + EXIT_SLACK)
    finally:
        server.kill()
    stderr = "".join(server.stderr)
    assert code == 0, stderr
    assert status == 503, body
    error = json.loads(body)["error"]
    assert (error["status"], error["message"]) == (
        "UNAVAILABLE", "the server is shutting down; nothing was recorded or answered, retry")
    assert error["details"][-1]["reason"] == "SHUTTING_DOWN"
    assert headers["connection"] == "close"
    assert "still running when the grace period ended was cut off: answered 503 SHUTTING_DOWN" \
        in stderr
    assert "Exception in ASGI application" not in stderr and "Traceback" not in stderr
    with sqlite3.connect(tmp_path / "ledger.db") as db:
        assert db.execute("SELECT count(*) FROM records").fetchone()[0] == 0

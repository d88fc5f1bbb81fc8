"""The app over its ledger, in process: namespaces, closing under running
calls, page size limits, and the health that follows the ledger."""

from __future__ import annotations

import time
from datetime import datetime, timezone

import pytest
from duetime.api.server import LedgerHealth
from duetime.api.convert import DUE_TIME
from duetime.app import AlreadyExists, Limits, ShuttingDown
from duetime.compose import build_app
from duetime.core import InvalidArgument
from duetime.ledger import LedgerUnavailable, MemoryLedger
from duetime.v1 import duetime_pb2 as pb
from grpc_health.v1 import health, health_pb2
from local_app import list_records
from server_process import zagreb_request

RECEIVED = datetime(2026, 11, 27, 15, tzinfo=timezone.utc)
SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


@pytest.fixture
def app():
    return build_app(MemoryLedger())


def test_namespaces_scope_keys(app):
    a = app.call(DUE_TIME, zagreb_request("k"), RECEIVED, namespace="team-a")
    b = app.call(DUE_TIME, zagreb_request("k"), RECEIVED, namespace="team-b")
    assert a.record_id != b.record_id
    assert app.call(DUE_TIME, zagreb_request("k"), RECEIVED, "team-a") == a
    assert app.get_record(a.record_id).namespace == "team-a"
    other = zagreb_request("k")
    other.duration = "4bd"
    with pytest.raises(AlreadyExists) as caught:
        app.call(DUE_TIME, other, RECEIVED, namespace="team-b")
    assert (caught.value.key, caught.value.namespace) == ("k", "team-b")
    assert "in namespace 'team-b'" in str(caught.value)
    with pytest.raises(InvalidArgument) as caught:
        app.call(DUE_TIME, zagreb_request("k"), RECEIVED, namespace="a/b")
    assert caught.value.violations[0].field == "metadata x-duetime-namespace"


def test_keys_with_nul_are_refused_before_the_batch(app):
    with pytest.raises(InvalidArgument) as caught:
        app.compute_due_time(zagreb_request("a\x00b"), RECEIVED)
    assert caught.value.violations[0].field == "idempotency_key"


def test_closed_app_refuses_ledger_use_and_closes_the_ledger(app):
    app.compute_due_time(zagreb_request("before"), RECEIVED)
    assert app.close(timeout=1) == 0
    with pytest.raises(ShuttingDown):
        app.compute_due_time(zagreb_request("after"), RECEIVED)
    with pytest.raises(ShuttingDown):
        list_records(app, pb.ListRecordsRequest())
    with pytest.raises(LedgerUnavailable):  # closed underneath too
        app.ledger.get_by_key("before")


def test_page_is_cut_by_size_and_resumes(app, monkeypatch):
    ids = [app.compute_due_time(zagreb_request(f"p/{i}"), RECEIVED).record_id for i in range(7)]
    row = app.ledger.get(ids[0])
    app = build_app(app.ledger, limits=Limits(max_list_bytes=3 * (len(row.request) + len(row.response))))
    seen, request = [], pb.ListRecordsRequest(page_size=100)
    while True:
        page = list_records(app, request)
        assert len(page.records) <= 3
        seen += [r.record_id for r in page.records]
        if not page.next_page_token:
            break
        request.page_token = page.next_page_token
    assert sorted(seen) == sorted(ids) and len(seen) == 7


def test_health_follows_the_ledger(app, monkeypatch):
    monkeypatch.setattr(LedgerHealth, "SERVING_INTERVAL", 0.05)
    monkeypatch.setattr(LedgerHealth, "DOWN_INTERVAL", 0.05)
    servicer = health.HealthServicer()
    monitor = LedgerHealth(app, servicer)
    app.on_ledger_unavailable = monitor.failed
    status = lambda: servicer.Check(health_pb2.HealthCheckRequest(service=""), None).status  # noqa: E731
    monitor.start()
    try:
        assert status() == SERVING
        app.ledger.set_unavailable("disk full")
        with pytest.raises(LedgerUnavailable):
            app.compute_due_time(zagreb_request(), RECEIVED)
        assert status() == NOT_SERVING  # at once, from the call
        time.sleep(0.3)
        assert status() == NOT_SERVING  # the probes fail as well
        app.ledger.set_unavailable(None)
        deadline = time.monotonic() + 5
        while status() != SERVING and time.monotonic() < deadline:
            time.sleep(0.02)
        assert status() == SERVING
        assert servicer.Check(health_pb2.HealthCheckRequest(
            service="duetime.v1.DueTimeService"), None).status == SERVING
    finally:
        monitor.stop()

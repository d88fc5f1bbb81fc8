"""A batch computed, then recorded (prepare_many, PreparedBatch.commit), the
calendar cache measured once per distinct calendar of a batch, and a stream
that computes its next chunk while the chunk before is committed."""

from __future__ import annotations

import threading
from datetime import datetime, timezone

import grpc
import pytest
from duetime.api.convert import DUE_TIME
from duetime.api.server import start_server
from duetime.app import answers
from duetime.compose import build_app
from duetime.ledger import MemoryLedger, RecordFilter
from duetime.v1 import duetime_pb2 as pb
from duetime.v1 import duetime_pb2_grpc as pb_grpc
from server_process import zagreb_request

RECEIVED = datetime(2026, 11, 27, 15, 0, tzinfo=timezone.utc)
DUE = "2026-12-02T16:00:00+01:00"
"""The due time of :func:`zagreb_request`: Friday 16:00 + 3bd over Christmas."""


def stored(app) -> list[str]:
    return [row.idempotency_key for row in app.records(RecordFilter())]


def test_a_prepared_batch_records_nothing_until_it_is_committed():
    app = build_app(MemoryLedger())
    prepared = app.prepare_many(DUE_TIME, [zagreb_request("a"), zagreb_request("b")], RECEIVED)
    assert stored(app) == []
    results = prepared.commit()
    assert [r.due_local for r in results] == [DUE, DUE]
    assert sorted(stored(app)) == ["a", "b"]
    assert [r.record_id for r in results] == [
        app.get_record(r.record_id).record_id for r in results]
    with pytest.raises(RuntimeError, match="committed once"):
        prepared.commit()
    assert app.close() == 0  # no recorded call left running


def test_a_discarded_batch_records_nothing_and_ends_its_call():
    app = build_app(MemoryLedger())
    prepared = app.prepare_many(DUE_TIME, [zagreb_request("a")], RECEIVED)
    prepared.discard()
    prepared.discard()  # once is enough; a second does nothing
    assert stored(app) == []
    assert app.close() == 0


def test_a_key_of_an_earlier_prepared_batch_is_answered_from_it_once_committed():
    app = build_app(MemoryLedger())
    first = app.prepare_many(DUE_TIME, [zagreb_request("k")], RECEIVED)
    second = app.prepare_many(DUE_TIME, [zagreb_request("k")], RECEIVED)  # before the first commits
    [answered] = first.commit()
    [replayed] = second.commit()
    assert replayed == answered  # the first record's answer, record id included
    assert stored(app) == ["k"]


def test_a_batch_measures_each_distinct_calendar_once(monkeypatch):
    app = build_app(MemoryLedger())
    measured: list[bytes] = []
    measure = app.calendar_cache.measure

    def counted(key, calendar):
        measured.append(key)
        measure(key, calendar)

    monkeypatch.setattr(app.calendar_cache, "measure", counted)
    other = zagreb_request()
    other.calendar.time_zone = "Europe/Vienna"
    items = [zagreb_request()] * 10 + [other] * 5 + [zagreb_request()] * 3
    results = app.call_many(DUE_TIME, items, RECEIVED)
    assert [r.due_local for r in results[:10]] == [DUE] * 10
    assert len(measured) == 2 and len(set(measured)) == 2
    measured.clear()
    app.call(DUE_TIME, zagreb_request(), RECEIVED)  # a single call: measured after its answer
    assert len(measured) == 1


class _WaitingLedger(MemoryLedger):
    """Holds its first commit until ``computing`` is set (at most 10 s)."""

    def __init__(self):
        super().__init__()
        self.computing = threading.Event()
        self.waited: list[bool] = []

    def put_many(self, rows):
        if not self.waited:
            self.waited.append(self.computing.wait(10))
        return super().put_many(rows)


def test_a_stream_computes_its_next_chunk_while_the_one_before_is_committed(monkeypatch):
    ledger = _WaitingLedger()
    due_time = answers.due_time

    def noting(start, *args, **kwargs):
        if start != 1795791600 * 1_000_000:  # an item of the second message
            ledger.computing.set()
        return due_time(start, *args, **kwargs)

    monkeypatch.setattr(answers, "due_time", noting)
    running = start_server(ledger, port=0, log_calls=False)
    try:
        second = zagreb_request("k-2")
        second.start.FromJsonString("2026-11-27T15:01:00Z")
        messages = [pb.StreamComputeDueTimesRequest(items=[zagreb_request("k-1")]),
                    pb.StreamComputeDueTimesRequest(items=[second])]
        with grpc.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            replies = list(pb_grpc.DueTimeServiceStub(channel).StreamComputeDueTimes(
                iter(messages), timeout=30))
        assert ledger.waited == [True]  # the first commit saw the second chunk computed
        assert [[r.response.due_local for r in reply.results] for reply in replies] == [
            [DUE], ["2026-12-02T16:01:00+01:00"]]
        assert sorted(stored(running.app)) == ["k-1", "k-2"]
    finally:
        running.stop(grace=0)

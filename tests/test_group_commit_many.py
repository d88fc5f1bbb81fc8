"""GroupCommit.put_many: batches share a commit with single rows and other
batches; a row refused by the store fails only its own caller."""

from __future__ import annotations

import threading
import time

from duetime.ledger import GroupCommit, LedgerRow, MemoryLedger

T0 = 1_796_223_600_123_456


def make_row(record_id: str, key: str = "", request: bytes = b"req") -> LedgerRow:
    return LedgerRow.create(
        record_id=record_id, method="/duetime.v1.DueTimeService/ComputeDueTime",
        receive_time_us=T0, idempotency_key=key, request=request, response=b"resp",
        calendar_version="cal-0123456789abcdef", rules_version="2026.1",
        tzdata_version="2026a")


def _slow_first_commit(store: MemoryLedger):
    calls, real = [], store.put_many
    release = threading.Event()

    def put_many(rows):
        calls.append([row.record_id for row in rows])
        if len(calls) == 1:
            release.wait(10)  # the first commit is slow: the others queue behind it
        return real(rows)

    store.put_many = put_many
    return calls, release


def _wait_queued(group: GroupCommit, callers: int) -> None:
    deadline = time.monotonic() + 10
    while len(group._queue) < callers and time.monotonic() < deadline:
        time.sleep(0.001)


def test_batches_and_single_rows_queued_together_share_one_commit_in_order():
    store = MemoryLedger()
    group = GroupCommit(store)
    calls, release = _slow_first_commit(store)
    results: dict[str, list[LedgerRow]] = {}
    first = threading.Thread(target=lambda: results.update(lead=[group.put(make_row("lead"))]))
    first.start()
    while not calls:
        time.sleep(0.001)
    batch_a = [make_row("a1", key="k"), make_row("a2")]
    single = make_row("s1")
    batch_b = [make_row("b1", key="k"), make_row("b2")]  # key k: already held by a1
    threads = []
    for name, work in (("a", lambda: group.put_many(batch_a)), ("s", lambda: [group.put(single)]),
                       ("b", lambda: group.put_many(batch_b))):
        t = threading.Thread(target=lambda n=name, w=work: results.update({n: w()}))
        t.start()
        _wait_queued(group, len(threads) + 1)
        threads.append(t)
    assert set(results) == set()  # nobody is answered before its commit
    release.set()
    for t in [first, *threads]:
        t.join(10)
    assert calls == [["lead"], ["a1", "a2", "s1", "b1", "b2"]]
    assert results["a"] == batch_a and results["s"] == [single]
    assert results["b"][0] is batch_a[0] or results["b"][0].record_id == "a1"
    assert results["b"][1].record_id == "b2"
    assert store.get("b1") is None and store.get("a1").record_id == "a1"


def test_a_refused_row_fails_only_its_own_caller():
    store = MemoryLedger()
    group = GroupCommit(store)
    calls, release = _slow_first_commit(store)
    first = threading.Thread(target=lambda: group.put(make_row("lead")))
    first.start()
    while not calls:
        time.sleep(0.001)
    outcome: dict[str, object] = {}

    def run(name, rows):
        try:
            outcome[name] = [row.record_id for row in group.put_many(rows)]
        except ValueError as exc:
            outcome[name] = str(exc)

    good = threading.Thread(target=run, args=("good", [make_row("g1"), make_row("g2")]))
    bad = threading.Thread(target=run, args=("bad", [make_row("x1", key="nul\x00key")]))
    good.start()
    _wait_queued(group, 1)
    bad.start()
    _wait_queued(group, 2)
    release.set()
    for t in (first, good, bad):
        t.join(10)
    assert outcome["good"] == ["g1", "g2"]
    assert outcome["bad"] == "record 'x1': idempotency_key contains a NUL character"
    assert store.get("g1") is not None and store.get("x1") is None

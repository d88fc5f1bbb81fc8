"""Group commit: many threads' rows stored by one :meth:`Ledger.put_many
<duetime.ledger.port.Ledger.put_many>` (one transaction, one fsync), so the
cost of making a row durable is shared by every request that waits for it."""

from __future__ import annotations

import threading

from duetime.ledger.port import Ledger
from duetime.ledger.rows import LedgerRow


class _Slot:
    """One row waiting in a :class:`GroupCommit`. ``wake`` is held (locked)
    from creation; releasing it wakes the row's caller, either with its
    result (``done``) or to lead the next commit."""

    __slots__ = ("row", "result", "error", "done", "wake")

    def __init__(self, row: LedgerRow):
        self.row = row
        self.result: LedgerRow | None = None
        self.error: BaseException | None = None
        self.done = False
        self.wake = threading.Lock()
        self.wake.acquire()


class GroupCommit:
    """Share one :meth:`Ledger.put_many` (one transaction, one fsync) among
    concurrent callers of :meth:`put`.

    No thread of its own: a caller finding no commit in progress becomes the
    leader and commits every row queued so far (up to ``max_batch``); callers
    arriving meanwhile queue up for the next commit. :meth:`put` returns only
    after the commit holding its row — so no request is answered before its
    row is durable — and returns, like put_many, the row stored for it (its
    own, or the row already holding its key). A failed commit raises its
    error in every caller of that batch.

    Hand-over: when a commit ends, its leader wakes each caller of that batch
    (one lock release each, no broadcast: a woken thread is one that can go
    on) and, if rows queued up meanwhile, the first of them, which leads the
    next commit; the leader itself returns at once.
    """

    def __init__(self, ledger: Ledger, max_batch: int = 256):
        self.ledger = ledger
        self.max_batch = max_batch
        self._mutex = threading.Lock()
        self._queue: list[_Slot] = []
        self._committing = False

    def put(self, row: LedgerRow) -> LedgerRow:
        """Store ``row`` in the next commit and return, once it is durable, the
        row stored for it (see :meth:`Ledger.put_many`: ``row`` itself, or the
        row already holding its (namespace, idempotency key)). Raises what
        that commit raised (LedgerUnavailable, ValueError)."""
        slot = _Slot(row)
        with self._mutex:
            self._queue.append(slot)
            lead = not self._committing
            self._committing = True
        if not lead:
            slot.wake.acquire()  # until its commit is done, or it is to lead the next one
        if not slot.done:
            self._lead()
        if slot.error is not None:
            raise slot.error
        return slot.result

    def _lead(self) -> None:
        """Commit the queued rows (the leader's own first), hand each caller
        its result and the next commit to the first row still queued."""
        with self._mutex:
            batch = self._queue[:self.max_batch]
            del self._queue[:len(batch)]
        try:
            results = self.ledger.put_many([s.row for s in batch])
        except BaseException as exc:  # noqa: BLE001 — handed to every caller
            results, error = [None] * len(batch), exc
        else:
            error = None
        for s, result in zip(batch, results, strict=True):
            s.result, s.error, s.done = result, error, True
        with self._mutex:
            following = self._queue[0] if self._queue else None
            self._committing = following is not None
        for s in batch[1:]:  # batch[0] is the leader's own row
            s.wake.release()
        if following is not None:
            following.wake.release()

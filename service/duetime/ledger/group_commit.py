"""Group commit: many threads' rows stored by one :meth:`Ledger.put_many
<duetime.ledger.port.Ledger.put_many>` (one transaction, one fsync), so the
cost of making a row durable is shared by every request that waits for it:
single calls (:meth:`GroupCommit.put`) and batches or stream chunks
(:meth:`GroupCommit.put_many`) alike."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from duetime.ledger.port import Ledger
from duetime.ledger.rows import LedgerRow


class _Slot:
    """One caller's rows waiting in a :class:`GroupCommit`. ``wake`` is held
    (locked) from creation; releasing it wakes the caller, either with its
    results (``done``) or to lead the next commit."""

    __slots__ = ("rows", "results", "error", "done", "wake")

    def __init__(self, rows: Sequence[LedgerRow]):
        self.rows = rows
        self.results: list[LedgerRow] | None = None
        self.error: BaseException | None = None
        self.done = False
        self.wake = threading.Lock()
        self.wake.acquire()


class GroupCommit:
    """Share one :meth:`Ledger.put_many` (one transaction, one fsync) among
    concurrent callers of :meth:`put` and :meth:`put_many`.

    No thread of its own: a caller finding no commit in progress becomes the
    leader and commits the rows of every caller queued so far, in the order
    they came (whole callers, up to ``max_rows`` rows, at least one caller);
    callers arriving meanwhile queue up for the next commit. A caller returns
    only after the commit holding its rows — so no request is answered before
    its rows are durable — with, like put_many, the row stored for each of
    its rows (its own, or the row already holding its key, also one of an
    earlier caller of the same commit). A failed commit raises its error in
    every caller of it; but one that raised ValueError (a row refused by the
    store's checks) is committed again caller by caller, so that only the
    caller of the refused row gets the error.

    Hand-over: when a commit ends, its leader wakes, if callers queued up
    meanwhile, the first of them, which leads the next commit, then each
    caller of the commit just done (one lock release each, no broadcast: a
    woken thread is one that can go on); the leader itself returns at once.
    """

    def __init__(self, ledger: Ledger, max_rows: int = 4096):
        self.ledger = ledger
        self.max_rows = max_rows
        self._mutex = threading.Lock()
        self._queue: list[_Slot] = []
        self._committing = False

    def put(self, row: LedgerRow) -> LedgerRow:
        """Store ``row`` in the next commit and return, once it is durable, the
        row stored for it (see :meth:`Ledger.put_many`: ``row`` itself, or the
        row already holding its (namespace, idempotency key)). Raises what
        that commit raised (LedgerUnavailable, ValueError)."""
        return self._put(_Slot((row,)))[0]

    def put_many(self, rows: Sequence[LedgerRow]) -> list[LedgerRow]:
        """Store ``rows`` (at least one) in the next commit, together, and
        return, once they are durable, the row stored for each, in order (as
        :meth:`Ledger.put_many` returns them). Raises what that commit raised
        (LedgerUnavailable, ValueError)."""
        return self._put(_Slot(rows))

    def _put(self, slot: _Slot) -> list[LedgerRow]:
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
        return slot.results  # type: ignore[return-value]

    def _take(self) -> list[_Slot]:
        """The callers of the next commit, taken off the queue (the first
        always; more while their rows fit in :attr:`max_rows`)."""
        with self._mutex:
            queue = self._queue
            rows, taken = len(queue[0].rows), 1
            while taken < len(queue) and rows + len(queue[taken].rows) <= self.max_rows:
                rows += len(queue[taken].rows)
                taken += 1
            batch = queue[:taken]
            del queue[:taken]
        return batch

    def _commit(self, batch: list[_Slot]) -> None:
        """Store the rows of ``batch`` in one put_many; give each slot its
        results or the error."""
        if len(batch) == 1:
            rows = batch[0].rows
        else:
            rows = [row for s in batch for row in s.rows]
        try:
            results = self.ledger.put_many(rows)
        except ValueError as exc:
            if len(batch) == 1:
                batch[0].error = exc
                return
            for s in batch:  # find the caller whose row was refused
                self._commit([s])
            return
        except BaseException as exc:  # noqa: BLE001 — handed to every caller
            for s in batch:
                s.error = exc
            return
        if len(batch) == 1:
            batch[0].results = results
            return
        first = 0
        for s in batch:
            s.results = results[first:first + len(s.rows)]
            first += len(s.rows)

    def _lead(self) -> None:
        """Commit the queued rows (the leader's own first), hand each caller
        its results and the next commit to the first caller still queued."""
        batch = self._take()
        self._commit(batch)
        for s in batch:
            s.done = True
        with self._mutex:
            following = self._queue[0] if self._queue else None
            self._committing = following is not None
        if following is not None:  # first: the next commit's wait on the disk starts sooner
            following.wake.release()
        for s in batch[1:]:  # batch[0] is the leader's own slot
            s.wake.release()


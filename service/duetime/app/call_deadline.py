"""A call's deadline: how long its work may take (the server's call budget,
``--call-budget``), checked cooperatively in the call's own thread.

A face makes one :class:`CallDeadline` per call (per chunk of a stream) and
hands it down to :meth:`DueTimeApp.call` / :meth:`DueTimeApp.call_many`. The
recorded path checks it after computing and before recording, and between a
batch's items: a call past its deadline stops there with
:class:`BudgetExceeded` and records nothing. A record already committed is
answered, however late (the commit is not cut short). The core takes the
check as a plain callable (``deadline.check``), so it never reads a clock
itself.
"""

from __future__ import annotations

import time

from duetime.core import ErrorKind, Refusal


class BudgetExceeded(Refusal):
    """A call's work did not finish within the call budget of ``seconds``
    (DEADLINE_EXCEEDED, reason CALL_BUDGET_EXCEEDED, metadata
    ``call_budget_seconds``): it was stopped and nothing was recorded."""

    kind = ErrorKind.OVER_BUDGET
    reason = "CALL_BUDGET_EXCEEDED"
    retryable = True

    def __init__(self, seconds: float):
        self.seconds = seconds
        super().__init__(f"the call needed more than the server's budget of {seconds:g} s "
                         "(--call-budget): it was stopped and nothing was recorded",
                         metadata={"call_budget_seconds": f"{seconds:g}"})


class CallDeadline:
    """The moment (``time.monotonic()`` seconds) a call's budget of
    ``seconds`` runs out, counted from when it is made.

    :meth:`check` raises :class:`BudgetExceeded` once that moment has passed.
    One per call; never shared between calls."""

    __slots__ = ("seconds", "at")

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.at = time.monotonic() + seconds

    def check(self) -> None:
        """Raise BudgetExceeded if the budget has run out; else nothing."""
        if time.monotonic() > self.at:
            raise BudgetExceeded(self.seconds)

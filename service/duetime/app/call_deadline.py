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


class CallerGone(Refusal):
    """The caller cancelled the call or disconnected before it was answered
    (CANCELLED, HTTP 499, reason CALLER_GONE): its work was stopped and
    nothing was recorded."""

    kind = ErrorKind.CALLER_GONE
    reason = "CALLER_GONE"

    def __init__(self):
        super().__init__("the caller cancelled the call or disconnected: its work was stopped "
                         "and nothing was recorded")


class CallDeadline:
    """The moment (``time.monotonic()`` seconds) a call's budget of
    ``seconds`` runs out, counted from when it is made (``math.inf``: never;
    the caller's going still stops the call).

    :meth:`check` raises :class:`BudgetExceeded` once that moment has passed,
    and :class:`CallerGone` once the face has said (:meth:`caller_gone`) that
    the caller cancelled or disconnected. One per call; never shared between
    calls."""

    __slots__ = ("seconds", "at", "gone")

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.at = time.monotonic() + seconds
        self.gone = False

    def caller_gone(self, *_ignored) -> None:
        """Mark the caller as gone (any arguments are ignored, so that it can
        be a transport's callback): the next :meth:`check` raises CallerGone."""
        self.gone = True

    def check(self) -> None:
        """Raise CallerGone if the caller has gone, BudgetExceeded if the
        budget has run out; else nothing."""
        if self.gone:
            raise CallerGone()
        if time.monotonic() > self.at:
            raise BudgetExceeded(self.seconds)

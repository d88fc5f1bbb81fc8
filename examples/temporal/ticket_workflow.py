"""A ticket's SLA under a policy of metrics, with one timer at duetime's next action.

One workflow per ticket. The workflow keeps the ticket's business events (the
``event`` signal, stamped with the workflow's time when it arrived) and what
duetime last answered for them (``evaluate_sla``, EvaluateSla under the
policy, docs/semantics.md §17): every metric, the WARNING and BREACH entries
that fell, and the **next action**, the earliest instant at which something
falls. It does no calendar arithmetic and arms exactly one timer, at the next
action:

- a signal cancels the outstanding timer, adds the event to the history,
  evaluates it again and arms the timer at the new next action (none while no
  metric runs);
- when the timer fires, the workflow evaluates as of the timer's instant (a
  "tick": what fell is stamped with the instant it fell at, not with the
  moment the workflow ran) and arms the following next action.

After each evaluation the workflow acts on every WARNING (``notify_warning``)
and BREACH (``escalate_breach``) that fell and that it has not acted on, in
the order they fell: each once, even when a signal arrives after a warning's
instant but before its timer ran. An event of ``closing_events`` (default
``solved``) ends the workflow.

An event duetime refuses as INVALID_ARGUMENT (a mistyped ``agent_replied``, an
unknown tier) is dropped: the history stays as it was, the timer at the
previous next action stays armed, and the event is listed in the ``progress``
query's ``rejected`` with duetime's reason. Any other error no retry can fix
still fails the workflow.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from sla_activities import (
        EvaluateInput,
        Evaluation,
        Fell,
        MetricView,
        SlaNotice,
        TicketActivities,
        TicketEvent,
    )
    from sla_workflow import ACTIVITY_OPTIONS


@dataclass
class TicketInput:
    policy: str = "support-sla"
    """A policy of the duetime server, ``name`` or ``name@version``."""
    tier: str = ""
    """The ticket's tier (priority) at the start; empty: the policy's initial tier."""
    start_time: datetime | None = None
    """When the ticket was opened; default: when the workflow starts."""
    closing_events: list[str] = field(default_factory=lambda: ["solved"])
    """Events that end the workflow (after they are evaluated)."""


@dataclass
class Notice:
    """A WARNING or BREACH the workflow acted on: ``at`` when it fell
    (duetime's instant), ``handled_at`` the workflow's time when it acted."""

    metric: str
    kind: str
    threshold: str
    at: datetime
    handled_at: datetime


@dataclass
class Rejected:
    """An event signal duetime refused as INVALID_ARGUMENT and the workflow
    dropped: the event as signalled, and duetime's reason (``field:
    description``, ``; `` between several)."""

    type: str
    time: datetime
    attributes: dict[str, str]
    reason: str


@dataclass
class TicketProgress:
    """The workflow's view of the ticket (the ``progress`` query)."""

    events: list[TicketEvent]
    evaluations: int
    metrics: list[MetricView]
    next_at: datetime | None
    """When the one outstanding timer fires (None: no timer)."""
    next_due: list[Fell]
    notices: list[Notice]
    rejected: list[Rejected] = field(default_factory=list)
    """Event signals duetime refused, dropped from the history, in order."""


@dataclass
class TicketResult:
    metrics: list[MetricView]
    notices: list[Notice]
    """Every warning and breach acted on, in the order they fell."""
    record_ids: list[str]
    """The duetime record of every evaluation, in order."""
    rejected: list[Rejected] = field(default_factory=list)
    """Event signals duetime refused, dropped from the history, in order."""


@workflow.defn
class TicketSlaWorkflow:
    def __init__(self) -> None:
        self._inbox: list[TicketEvent] = []
        self._events: list[TicketEvent] = []
        self._answer: Evaluation | None = None
        self._timer: asyncio.Task | None = None
        self._fired = False
        self._notices: list[Notice] = []
        self._acted: set[tuple[str, str, str, datetime]] = set()
        self._records: list[str] = []
        self._rejected: list[Rejected] = []
        self._policy = ""

    @workflow.signal
    def event(self, type: str, attributes: dict[str, str] | None = None) -> None:
        """A business event of the policy (``agent_reply``, ``awaiting_customer``,
        ``priority_change`` with ``{"tier": "urgent"}``, …), happening now."""
        self._inbox.append(TicketEvent(type, workflow.now(), dict(attributes or {})))

    @workflow.query
    def progress(self) -> TicketProgress:
        answer = self._answer
        return TicketProgress(
            events=list(self._events), evaluations=len(self._records),
            metrics=list(answer.metrics) if answer else [],
            next_at=answer.next_at if answer else None,
            next_due=list(answer.next_due) if answer else [],
            notices=list(self._notices), rejected=list(self._rejected))

    @workflow.run
    async def run(self, ticket: TicketInput) -> TicketResult:
        self._policy = ticket.policy
        self._events.append(TicketEvent("start", ticket.start_time or workflow.now(),
                                        {"tier": ticket.tier} if ticket.tier else {}))
        self._answer = await self._ask(None)
        await self._act()
        while True:
            if self._timer is None or self._timer.done():  # after a rejected event it is still armed
                self._arm()
            await workflow.wait_condition(lambda: bool(self._inbox) or self._fired)
            due = self._answer.next_at
            if self._inbox and not (self._fired and due is not None and due < self._inbox[0].time):
                # a signal: events at the next action's instant come before what falls at it
                signal = self._inbox.pop(0)
                self._events.append(signal)
                try:
                    answer = await self._ask(None)
                except ActivityError as err:
                    reason = _refusal(err)
                    if reason is None:
                        raise
                    self._events.pop()  # dropped: the previous answer and its timer stand
                    self._rejected.append(Rejected(signal.type, signal.time, dict(signal.attributes), reason))
                    workflow.logger.warning("event %s dropped: %s", signal.type, reason)
                    continue
                self._cancel_timer()
                self._answer = answer
                await self._act()
                if signal.type in ticket.closing_events:
                    break
            else:  # the timer fired: a tick as of its instant
                self._timer, self._fired = None, False
                self._answer = await self._ask(due)
                await self._act()
        self._cancel_timer()
        return TicketResult(list(self._answer.metrics), list(self._notices), list(self._records),
                            list(self._rejected))

    # ---- duetime

    async def _ask(self, as_of: datetime | None) -> Evaluation:
        """Evaluate the history (as of ``as_of``: a tick); the answer's record is kept."""
        info = workflow.info()
        request = EvaluateInput(f"{info.workflow_id}/{info.run_id}/{len(self._records)}", self._policy,
                                list(self._events), as_of)
        answer = await workflow.execute_activity_method(TicketActivities.evaluate_sla, request, **ACTIVITY_OPTIONS)
        self._records.append(answer.record_id)
        return answer

    async def _act(self) -> None:
        """Act on every WARNING and BREACH of the answer not acted on yet."""
        info = workflow.info()
        for fell in self._answer.fell:  # in the order they fell
            key = (fell.metric, fell.kind, fell.threshold, fell.at)
            if key in self._acted:
                continue
            self._acted.add(key)
            notice = SlaNotice(info.workflow_id, fell.metric, fell.kind, fell.threshold, fell.at)
            action = TicketActivities.notify_warning if fell.kind == "WARNING" else TicketActivities.escalate_breach
            await workflow.execute_activity_method(action, notice, **ACTIVITY_OPTIONS)
            self._notices.append(Notice(fell.metric, fell.kind, fell.threshold, fell.at, workflow.now()))

    # ---- the one timer

    def _arm(self) -> None:
        """Arm the one timer at the next action (none is outstanding: it fired
        or was cancelled); a next action already past ticks at once."""
        assert self._timer is None or self._timer.done(), "a timer is still outstanding"
        at = self._answer.next_at
        if at is None:
            return
        delay = at - workflow.now()
        if delay <= timedelta(0):
            self._fired = True
            return
        self._timer = asyncio.create_task(self._sleep(delay))

    async def _sleep(self, delay: timedelta) -> None:
        await workflow.sleep(delay, summary="SLA next action")
        self._fired = True

    def _cancel_timer(self) -> None:
        if self._timer is not None and not self._timer.done():
            self._timer.cancel()
        self._timer, self._fired = None, False


def _refusal(err: ActivityError) -> str | None:
    """duetime's reason when the activity failed because duetime refused the
    request as INVALID_ARGUMENT (the activity's non-retryable
    ``ApplicationError`` of type ``InvalidArgument``); None for any other
    failure."""
    cause = err.cause
    if not isinstance(cause, ApplicationError) or cause.type != "InvalidArgument":
        return None
    named = [f"{d['field']}: {d['description']}" for d in cause.details
             if isinstance(d, dict) and {"field", "description"} <= d.keys()]
    return "; ".join(named) or cause.message

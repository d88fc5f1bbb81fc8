"""An SLA workflow whose clock lives in duetime.

One workflow per ticket. The workflow keeps only what duetime answered: the
clock's state (opaque bytes), and the absolute deadline while the clock runs
or the remaining time while it is paused. Every change to the clock is a
duetime activity call (:mod:`sla_activities`) with the idempotency key
``f"{workflow_id}/{run_id}/{seq}"``; the workflow never does calendar arithmetic.

A single timer races the signals:

==========================  =============================================
signal                      what it does to the clock (running / paused)
==========================  =============================================
``customer_reply``          reset / resume
``awaiting_third_party``    pause / nothing
``tier_changed(target)``    retarget to ``target``, counted from the signal
``resolved``                stop; the workflow returns the verdict
==========================  =============================================

(the support-contract policy of ``calendars/policies`` says the same). Before
the clock is recomputed the outstanding timer is cancelled, and a new one is
armed for the new deadline only while the clock runs, so at most one timer is
ever outstanding and a superseded timer never fires. When the timer fires the
deadline has passed: the workflow escalates (the ``escalate`` activity) once,
and keeps listening: a customer reply restarts the clock, ``resolved`` stops
it with ``met = False``.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime, timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from sla_activities import (
        ApplyEventInput,
        ClockResult,
        DuetimeActivities,
        EscalationInput,
        StartClockInput,
        readable_state,
    )

# What each signal does to the clock, by the clock's status.
ACTIONS = {
    "customer_reply": {"RUNNING": "reset", "PAUSED": "resume"},
    "awaiting_third_party": {"RUNNING": "pause"},
    "tier_changed": {"RUNNING": "retarget", "PAUSED": "retarget"},
    "resolved": {"RUNNING": "stop", "PAUSED": "stop"},
}

ACTIVITY_OPTIONS = dict(
    start_to_close_timeout=timedelta(seconds=10),
    retry_policy=RetryPolicy(initial_interval=timedelta(milliseconds=500),
                             maximum_interval=timedelta(seconds=10)),
)


@dataclass
class SlaInput:
    target: str
    """The SLA, e.g. ``"8bh"``, ``"14d"``, ``"3bd"``."""
    calendar: str = "always-open"
    """A calendar bundle (``name`` or ``name@version``); duetime pins its version."""
    start_time: datetime | None = None
    """When the clock starts; default: when the workflow starts."""


@dataclass
class SlaResult:
    met: bool
    breached_at: datetime | None
    """The first deadline that was missed, if any."""
    escalations: list[datetime]
    """When the workflow escalated (a deadline had passed)."""
    recomputations: int
    record_ids: list[str]
    """The duetime record of every clock answer, in order."""


@dataclass
class SlaProgress:
    """The workflow's view of the clock (the ``progress`` query)."""

    seq: int
    """How many events have recomputed the clock."""
    status: str
    deadline: datetime | None
    remaining_us: int | None
    breached_at: datetime | None
    escalations: list[datetime]
    state: dict
    """The clock's whole state, readable: the ``duetime.v1.ClockState`` the
    workflow keeps as bytes, in the protobuf JSON mapping (``status``,
    ``target``, ``deadlineTime``, ``remaining``, ``runningIntervals``,
    ``calendar``, ``calendarVersion``, …); ``{}`` before the clock started."""


@dataclass
class _Signal:
    name: str
    at: datetime
    target: str = ""


@workflow.defn
class SlaWorkflow:
    def __init__(self) -> None:
        self._inbox: list[_Signal] = []
        self._clock: ClockResult | None = None
        self._seq = 0
        self._timer: asyncio.Task | None = None
        self._fired = False
        self._escalated = False
        self._escalations: list[datetime] = []
        self._records: list[str] = []

    # ---- signals: queued with the time they arrived, handled in order by run()

    @workflow.signal
    def customer_reply(self) -> None:
        self._inbox.append(_Signal("customer_reply", workflow.now()))

    @workflow.signal
    def awaiting_third_party(self) -> None:
        self._inbox.append(_Signal("awaiting_third_party", workflow.now()))

    @workflow.signal
    def tier_changed(self, target: str = "") -> None:
        self._inbox.append(_Signal("tier_changed", workflow.now(), target))

    @workflow.signal
    def resolved(self) -> None:
        self._inbox.append(_Signal("resolved", workflow.now()))

    @workflow.query
    def progress(self) -> SlaProgress:
        clock = self._clock
        return SlaProgress(
            seq=self._seq,
            status=clock.status if clock else "",
            deadline=clock.deadline if clock else None,
            remaining_us=clock.remaining_us if clock else None,
            breached_at=clock.breached_at if clock else None,
            escalations=list(self._escalations),
            state=readable_state(clock.state) if clock else {},
        )

    # ---- the run

    @workflow.run
    async def run(self, sla: SlaInput) -> SlaResult:
        start = StartClockInput(self._key(0), sla.target, sla.calendar,
                                sla.start_time or workflow.now())
        self._keep(await workflow.execute_activity_method(
            DuetimeActivities.start_clock, start, **ACTIVITY_OPTIONS))
        self._arm()
        while self._clock.status != "STOPPED":
            await workflow.wait_condition(lambda: bool(self._inbox) or self._fired)
            first = self._inbox[0] if self._inbox else None
            if self._fired and (first is None or first.at >= self._clock.deadline):
                self._fired, self._timer = False, None
                await self._escalate()
                continue
            self._inbox.pop(0)
            await self._handle(first)
        clock = self._clock
        return SlaResult(bool(clock.met), clock.breached_at, self._escalations,
                         clock.recomputations, self._records)

    async def _handle(self, signal: _Signal) -> None:
        event = ACTIONS[signal.name].get(self._clock.status)
        if event is None:  # e.g. awaiting a third party while already paused
            return
        if event == "retarget" and not signal.target:
            workflow.logger.warning("tier_changed without a target (send --input '\"48bh\"'): ignored")
            return
        self._cancel_timer()
        seq = self._seq + 1
        request = ApplyEventInput(self._key(seq), self._clock.state, event, signal.at,
                                  signal.target)
        self._keep(await workflow.execute_activity_method(
            DuetimeActivities.apply_event, request, **ACTIVITY_OPTIONS))
        self._seq = seq
        if event in ("reset", "retarget"):
            self._escalated = False  # a new deadline: its breach is a new one
        self._arm()

    @staticmethod
    def _key(seq: int) -> str:
        """The idempotency key of event ``seq`` (0: the start): workflow id,
        run id and sequence. The same on every attempt of the activity; a new
        run under the same workflow id (a ticket's SLA started again after its
        first run completed) has a new run id, so its keys are new too."""
        info = workflow.info()
        return f"{info.workflow_id}/{info.run_id}/{seq}"

    def _keep(self, clock: ClockResult) -> None:
        self._clock = clock
        self._records.append(clock.record_id)

    # ---- the one timer

    def _arm(self) -> None:
        """Arm a timer for the deadline while the clock runs (the old one is
        already cancelled); a deadline already past escalates at once."""
        clock = self._clock
        if clock.status != "RUNNING" or clock.deadline is None:
            return
        delay = clock.deadline - workflow.now()
        if delay <= timedelta(0):
            self._fired = not self._escalated
            return
        self._timer = asyncio.create_task(self._sleep(delay))

    async def _sleep(self, delay: timedelta) -> None:
        await workflow.sleep(delay, summary="SLA deadline")
        self._fired = True

    def _cancel_timer(self) -> None:
        if self._timer is not None and not self._timer.done():
            self._timer.cancel()
        self._timer, self._fired = None, False

    async def _escalate(self) -> None:
        if self._escalated:
            return
        self._escalated = True
        self._escalations.append(workflow.now())
        clock = self._clock
        await workflow.execute_activity_method(
            DuetimeActivities.escalate,
            EscalationInput(workflow.info().workflow_id, clock.deadline, clock.target),
            **ACTIVITY_OPTIONS)

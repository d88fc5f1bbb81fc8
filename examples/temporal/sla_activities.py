"""Temporal activities that keep an SLA clock with duetime.

Every recomputation of the clock is one activity call, and every call sends
duetime an idempotency key made by the workflow from its id, its run id and
the event's sequence number (``f"{workflow_id}/{run_id}/{seq}"``), never from
the attempt: a retried activity sends the same request with the same key and
gets the first answer back, record id included, even if a calendar changed in
between; a new run under a completed workflow id sends new keys.

Errors come from :mod:`duetime.client` by gRPC status code alone. Those that
will not go away on a retry (InvalidArgument, OutOfRange, FailedPrecondition,
AlreadyExists, NotFound) become ``ApplicationError(non_retryable=True)`` whose
type is the error's class name; the others (Unavailable, DeadlineExceeded) are
raised as they are, so Temporal retries them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import TypeVar

from temporalio import activity
from temporalio.exceptions import ApplicationError

from google.protobuf import json_format

from duetime.client import Clock, DuetimeClient, DuetimeError, SlaEvaluation, SlaEvent
from duetime.v1 import duetime_pb2 as pb

MAX_KEY = 200
"""Longest idempotency key duetime accepts; longer ones are hashed."""

T = TypeVar("T")


@dataclass
class StartClockInput:
    key: str
    """Idempotency key: ``f"{workflow_id}/{run_id}/0"``."""
    target: str
    """Target duration text, e.g. ``"8bh"``, ``"14d"``."""
    calendar: str
    """A calendar bundle, ``name`` or ``name@version``; pinned in the state."""
    at: datetime
    """When the clock starts."""


@dataclass
class ApplyEventInput:
    key: str
    """Idempotency key: ``f"{workflow_id}/{run_id}/{seq}"``."""
    state: bytes
    """The clock's state as the last activity returned it."""
    event: str
    """pause, resume, reset, retarget or stop."""
    at: datetime
    """When the event happened (the workflow's time when the signal came)."""
    target: str = ""
    """The new target, for retarget."""


@dataclass
class ClockResult:
    """What the workflow keeps of a duetime answer."""

    state: bytes
    status: str
    target: str
    deadline: datetime | None
    remaining_us: int | None
    breached_at: datetime | None
    met: bool | None
    recomputations: int
    record_id: str


@dataclass
class EscalationInput:
    workflow_id: str
    deadline: datetime
    """The deadline that passed."""
    target: str


def readable_state(state: bytes) -> dict:
    """A clock's state bytes (a serialized ``duetime.v1.ClockState``) as
    the protobuf JSON mapping: field names in lowerCamelCase, instants as
    RFC 3339 text (``"deadlineTime": "2026-11-30T11:00:00Z"``), durations as
    seconds (``"remaining": "10800s"``), enums by name; ``{}`` for no state."""
    return json_format.MessageToDict(pb.ClockState.FromString(state)) if state else {}


def idempotency_key(key: str) -> str:
    """``key`` as duetime takes it: unchanged, or hashed when too long."""
    return key if len(key) <= MAX_KEY else "sha256:" + hashlib.sha256(key.encode()).hexdigest()


def _result(clock: Clock) -> ClockResult:
    remaining = clock.remaining
    return ClockResult(
        state=clock.state,
        status=clock.status,
        target=clock.target,
        deadline=clock.deadline,
        remaining_us=None if remaining is None else remaining // timedelta(microseconds=1),
        breached_at=clock.breached_at,
        met=clock.met,
        recomputations=clock.recomputations,
        record_id=clock.recorded.record_id,
    )


def _duetime(call: Callable[[], T]) -> T:
    """Run a duetime call; an error no retry can fix becomes non-retryable."""
    try:
        return call()
    except DuetimeError as exc:
        if exc.retryable:
            raise
        details = [{"field": v.field, "description": v.description} for v in exc.violations]
        raise ApplicationError(str(exc), *details, type=type(exc).__name__,
                               non_retryable=True) from exc


class DuetimeActivities:
    """The activities, over one :class:`DuetimeClient` (register the bound methods)."""

    def __init__(self, client: DuetimeClient):
        self.client = client

    @activity.defn(name="start_clock")
    def start_clock(self, request: StartClockInput) -> ClockResult:
        clock = _duetime(lambda: self.client.start_clock(
            request.target, request.at, request.calendar,
            idempotency_key=idempotency_key(request.key)))
        return _result(clock)

    @activity.defn(name="apply_event")
    def apply_event(self, request: ApplyEventInput) -> ClockResult:
        clock = _duetime(lambda: self.client.apply_clock_event(
            request.state, request.event, request.at, target=request.target,
            idempotency_key=idempotency_key(request.key)))
        return _result(clock)

    @activity.defn(name="escalate")
    def escalate(self, request: EscalationInput) -> str:
        """Escalate a missed deadline. Here it only logs; page someone, open an
        incident or notify the customer instead."""
        message = (f"SLA breached: {request.workflow_id} missed its {request.target} deadline "
                   f"{request.deadline.isoformat()}")
        activity.logger.warning(message)
        return message


# ---- a ticket under a policy: metrics, warnings and the next action (docs/semantics.md §17)


@dataclass
class TicketEvent:
    """One business event of a ticket: ``type`` an event of the policy
    (``start`` first), ``time`` when it happened, ``attributes`` such as
    ``{"tier": "urgent"}``."""

    type: str
    time: datetime
    attributes: dict[str, str] = field(default_factory=dict)


@dataclass
class EvaluateInput:
    key: str
    """Idempotency key: ``f"{workflow_id}/{run_id}/{n}"``, n the evaluation's number."""
    policy: str
    """A policy, ``name`` or ``name@version``."""
    events: list[TicketEvent]
    """The ticket's whole history, ``start`` first."""
    as_of: datetime | None = None
    """Evaluate as of this instant (a tick); None: the last event's instant."""


@dataclass
class Fell:
    """A WARNING or BREACH of ``metric`` that fell at ``at``; ``threshold``
    the warning as written (empty for a breach)."""

    metric: str
    kind: str
    threshold: str
    at: datetime


@dataclass
class MetricView:
    name: str
    status: str
    """NOT_STARTED, RUNNING, PAUSED or STOPPED."""
    deadline: datetime | None
    """While it runs."""


@dataclass
class Evaluation:
    """What the workflow keeps of an EvaluateSla answer."""

    policy_version: str
    metrics: list[MetricView]
    fell: list[Fell]
    """Every WARNING and BREACH that fell by the as-of instant, in time order."""
    next_at: datetime | None
    """The next action: the one timer to arm (None: no metric runs)."""
    next_due: list[Fell]
    """What falls at ``next_at``."""
    record_id: str


@dataclass
class SlaNotice:
    workflow_id: str
    metric: str
    kind: str
    """WARNING or BREACH."""
    threshold: str
    at: datetime
    """When it fell (duetime's instant, not the moment the workflow noticed)."""


def _evaluation(answer: SlaEvaluation) -> Evaluation:
    metrics, fell = [], []
    for m in answer.metrics:
        state = pb.ClockState.FromString(m.state) if m.state else None
        deadline = state.deadline_time.ToDatetime(tzinfo=timezone.utc) \
            if state is not None and state.HasField("deadline_time") else None
        metrics.append(MetricView(m.name, m.status, deadline))
        fell += [Fell(m.name, e.action, e.threshold, e.time) for e in m.timeline
                 if e.action in ("WARNING", "BREACH")]
    order = {m.name: i for i, m in enumerate(answer.metrics)}
    fell.sort(key=lambda f: (f.at, order[f.metric]))
    action = answer.next_action
    return Evaluation(
        answer.policy_version, metrics, fell,
        action.time if action else None,
        [Fell(d.metric, d.kind, d.threshold, action.time) for d in action.due] if action else [],
        answer.clock.recorded.record_id)


class TicketActivities:
    """The activities of :class:`ticket_workflow.TicketSlaWorkflow`, over one
    :class:`DuetimeClient` (register the bound methods)."""

    def __init__(self, client: DuetimeClient):
        self.client = client

    @activity.defn(name="evaluate_sla")
    def evaluate_sla(self, request: EvaluateInput) -> Evaluation:
        events = [SlaEvent(e.type, e.time, dict(e.attributes)) for e in request.events]
        return _evaluation(_duetime(lambda: self.client.evaluate_sla(
            request.policy, events, as_of=request.as_of, idempotency_key=idempotency_key(request.key))))

    @activity.defn(name="notify_warning")
    def notify_warning(self, notice: SlaNotice) -> str:
        """Tell the team a metric is at risk. Here it only logs; post to the
        ticket's channel or mail its assignee instead."""
        message = (f"SLA at risk: {notice.workflow_id} {notice.metric} passed its {notice.threshold} "
                   f"warning at {notice.at.isoformat()}")
        activity.logger.warning(message)
        return message

    @activity.defn(name="escalate_breach")
    def escalate_breach(self, notice: SlaNotice) -> str:
        """Escalate a breached metric. Here it only logs; page someone or open
        an incident instead."""
        message = f"SLA breached: {notice.workflow_id} {notice.metric} at {notice.at.isoformat()}"
        activity.logger.warning(message)
        return message

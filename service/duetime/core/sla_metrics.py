"""SLA policies with metrics, warnings and the next action (docs/semantics.md §17).

A :class:`MetricPolicy` holds one or more :class:`Metric` s; each is a clock
(docs/semantics.md §11) with a target per tier, rules per (business event,
status) and optional warnings. :func:`evaluate_metrics` replays a ticket's
history as of an instant and returns, per metric, its status, cycles, state
and a timeline in which WARNING and BREACH entries stand at their own
instants, and the next action: the earliest instant after the as-of instant
at which something falls, with everything that falls then.

Instants and amounts are integer µs. Pure: no I/O, no wall clock.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Callable, Mapping, Sequence

from .calendar import Calendar
from .clock import (Anchor, ClockEvent, ClockState, EventType, FailedPrecondition, Measure, Status,
                    _add_amount, _compiled, _target_amount, apply_event, measure_of, start_clock)
from .durations import DurationKind, parse_duration
from .engine import first_open_at_or_after
from .errors import FieldViolation, InvalidArgument, OutOfRange
from .explain import fmt_amount
from .sla import START_EVENT, BusinessEvent, Policy, Tier, check_history_names, retarget_from_start
from .zones import format_local

#: The statuses a metric's rules may name; NOT_STARTED is a metric's status
#: before its first START.
NOT_STARTED = "NOT_STARTED"
STATUSES = (NOT_STARTED, "RUNNING", "PAUSED", "STOPPED")
START = "START"

#: Which actions each status allows (docs/semantics.md §17).
ALLOWED = {
    NOT_STARTED: ("START",),
    "STOPPED": ("START",),
    "RUNNING": ("PAUSE", "RESET", "RETARGET", "STOP"),
    "PAUSED": ("RESUME", "RESET", "RETARGET", "STOP"),
}

_SHARE = re.compile(r"(\d{1,2}(?:\.\d{1,6})?)%")
_UNITS = {
    Measure.ELAPSED: (DurationKind.ELAPSED, "elapsed units (h, m, s, d, w)"),
    Measure.BUSINESS_TIME: (DurationKind.BUSINESS_TIME, "business time (bh, bm)"),
    Measure.BUSINESS_DAY: (DurationKind.ELAPSED, "hours of business-day open time (h, m, s)"),
}


@dataclass(frozen=True)
class Warning:
    """A threshold of a running clock: ``share`` consumed (a Fraction in
    (0, 1)) or ``left_us`` left in the clock's measure; ``text`` as written
    (``"75%"``, ``"30bm"``)."""

    text: str
    share: Fraction | None = None
    left_us: int | None = None


#: How a message names a clock of each measure.
_CLOCK_OF = {Measure.ELAPSED: "an elapsed clock", Measure.BUSINESS_TIME: "a business-time clock",
             Measure.BUSINESS_DAY: "a business-day clock"}
_BARE = re.compile(r"[+-]?\d+(?:\.\d*)?")


def parse_warning(text: str, measure: Measure, field: str, bare_ms: bool = False) -> Warning:
    """``"NN%"`` (0 < NN < 100, at most 6 decimals) or an amount left in the
    units of ``measure`` (docs/semantics.md §17). InvalidArgument naming
    ``field`` otherwise, a number without a unit (``"75"``) included: it is
    neither a share nor an amount. ``bare_ms``: take a whole number without
    a unit as milliseconds left, as a policy version compiled before that
    was refused means it."""
    t = text.strip()
    if _BARE.fullmatch(t) and not (bare_ms and t.isdigit()):
        raise InvalidArgument.at(field, f"{text!r} has no unit: write a share of the target consumed with '%' "
                                        f"(e.g. '{t}%') or an amount left with its unit (e.g. '30bm', '2h')")
    m = _SHARE.fullmatch(t)
    if m:
        share = Fraction(m.group(1)) / 100
        if not 0 < share < 1:
            raise InvalidArgument.at(field, f"{text!r}: a share is more than 0% and less than 100%")
        return Warning(t, share=share)
    if t.endswith("%"):
        raise InvalidArgument.at(field, f"{text!r}: write a share as NN% with 0 < NN < 100 and at most 6 "
                                        f"decimals, e.g. '75%' or '33.3333%'")
    kind, words = _UNITS[measure]
    d = parse_duration(t, field)
    if d.is_relative or d.kind is not kind or d.days:
        raise InvalidArgument.at(field, f"{text!r}: {_CLOCK_OF[measure]}'s warning is a share "
                                        f"('75%') or an amount left in {words}")
    if d.micros <= 0:
        raise InvalidArgument.at(field, f"{text!r}: the amount left must be more than zero")
    return Warning(d.text, left_us=d.micros)


@dataclass(frozen=True)
class Metric:
    """One clock of a policy. ``targets``: tier name → Tier (target and
    calendar); ``rules``: business event → {status → action} (actions as in
    :data:`ALLOWED`); ``anchors``: business event → RETARGET anchor;
    ``warnings`` in the policy's order."""

    name: str
    targets: Mapping[str, Tier]
    rules: Mapping[str, Mapping[str, str]]
    anchors: Mapping[str, Anchor]
    warnings: tuple[Warning, ...] = ()


@dataclass(frozen=True)
class MetricPolicy:
    """A policy of metrics. ``tier_on_any_event``: an event's ``tier``
    attribute changes the tier in force whatever it does (False: only a
    RETARGET does, as a one-clock policy always did)."""

    name: str
    version: str
    initial_tier: str
    tiers: tuple[str, ...]
    metrics: tuple[Metric, ...]
    tier_on_any_event: bool = True


def one_metric(policy: Policy, name: str = "") -> MetricPolicy:
    """A one-clock :class:`Policy` as a policy with one metric (named
    ``name``, empty: unnamed) that starts on ``start``."""
    rules = {e: {s: a.value for s, a in r.actions.items()} for e, r in policy.rules.items()}
    rules[START_EVENT] = {NOT_STARTED: START}
    return MetricPolicy(policy.name, policy.version, policy.initial_tier, tuple(policy.tiers),
                        (Metric(name, dict(policy.tiers), rules, {e: r.anchor for e, r in policy.rules.items()}),),
                        tier_on_any_event=False)


def check_rules(metric: Metric, where: str) -> list[str]:
    """Problems with ``metric``'s rules: an action its status does not allow
    (docs/semantics.md §17), an unknown status or action. Empty: none."""
    problems = []
    for event, by_status in metric.rules.items():
        for status, action in by_status.items():
            if status not in ALLOWED:
                problems.append(f"{where}.{event}: {status!r} is not a status (one of {', '.join(STATUSES)})")
            elif action not in ALLOWED[status]:
                problems.append(f"{where}.{event}: {status} allows {' or '.join(ALLOWED[status])}, not {action!r}")
    return problems


@dataclass(frozen=True)
class MetricEntry:
    """One timeline entry of a metric. ``action``: START, PAUSE, RESUME,
    RESET, RETARGET, STOP, NONE (an event), or WARNING / BREACH (something
    that fell; ``event`` empty, ``threshold`` the warning's text)."""

    event: str
    at_us: int
    action: str
    tier: str
    status: str
    old_deadline_us: int | None
    new_deadline_us: int | None
    remaining_us: int | None
    reason: str
    threshold: str = ""
    index: int = -1  # the event's index in the history (-1: a WARNING or BREACH)


@dataclass(frozen=True)
class Due:
    """Something that falls: ``kind`` WARNING or BREACH of ``metric``;
    ``threshold`` the warning's text (empty for a breach)."""

    metric: str
    kind: str
    threshold: str
    at_us: int


@dataclass(frozen=True)
class MetricResult:
    """One metric evaluated. ``breach_us``: the instant its BREACH fell, when
    it fell since its target was last set (start, reset, retarget) and by
    the as-of instant, whatever its status (None: not breached)."""

    name: str
    status: str
    cycles: int
    tier: str
    state: ClockState | None
    timeline: tuple[MetricEntry, ...]
    breach_us: int | None = None


@dataclass(frozen=True)
class MetricsEvaluation:
    """Per metric, in the policy's order; ``next_at_us`` None: nothing is
    due (no metric runs); ``next_due`` everything falling at it."""

    metrics: tuple[MetricResult, ...]
    tier: str
    as_of_us: int
    next_at_us: int | None
    next_due: tuple[Due, ...]


def _when(us: int | None, cal: Calendar) -> str:
    return format_local(us, cal.zone) if us is not None else "none"


def _falls_at(state: ClockState, left: int, cal: Calendar, floor: int) -> int:
    """When a warning with ``left`` left falls on the RUNNING ``state``: the
    latest instant W with open time in [W, deadline) equal to ``left``, or
    ``floor`` (when the clock last started running or its target was set)
    if W lies before it (W is then the first open instant at or after
    ``floor`` when the open time from ``floor`` to the deadline is exactly
    ``left``). One walk back from the deadline; a walk that would leave
    the dates a computation may reach lies before ``floor``."""
    d = state.deadline_us
    if left <= 0:
        w = d
    elif state.measure is Measure.ELAPSED:
        w = d - left
    elif left > d - floor:  # more than the elapsed time from floor, so more than its open time
        return floor
    else:
        try:
            w = _add_amount(state.measure, d, -left, cal, "warnings")
        except OutOfRange:
            return floor
        w = min(first_open_at_or_after(_compiled(state.measure, cal), w), d)
    return max(w, floor)


_UNSET = object()


class _Run:
    """One metric's clock while the history is replayed.

    What falls next is computed lazily: only the first armed warning (or
    the breach) is placed on the calendar, and only again when the clock's
    state changes, so an event the metric ignores costs nothing and a
    metric with eight warnings costs what one costs."""

    def __init__(self, metric: Metric):
        self.metric = metric
        self.state: ClockState | None = None
        self.status = NOT_STARTED
        self.cycles = 0
        self.tier = ""
        self.timeline: list[MetricEntry] = []
        self.lefts: list[tuple[int, Warning]] = []  # armed warnings not yet fallen, in falling order
        self.breach_armed = False
        self.armed_at = 0  # when the target was last set
        self.breach_us: int | None = None  # when the breach of the target in force fell
        self._head: object = _UNSET  # what falls next (a Due, or None), while the state stays as it is
        #: (measure, calendar) -> (running intervals measured, their open time in µs), since the
        #: intervals were last cleared: a RETARGET anchored at the start measures only the new ones.
        self.spent: dict[tuple[Measure, int], tuple[int, int]] = {}

    def cal(self) -> Calendar:
        return self.metric.targets[self.tier].calendar

    def changed(self) -> None:
        """The state, tier or armed thresholds changed: what falls next is computed again."""
        self._head = _UNSET

    def arm(self, at_us: int) -> None:
        """A target was set at ``at_us``: arm every warning and the breach."""
        s = self.state
        amount = _target_amount(parse_duration(s.target, "target"), s.measure, at_us, self.cal(), "target")
        lefts = []
        for w in self.metric.warnings:
            left = w.left_us if w.share is None else (amount * (1 - w.share)).__floor__()
            lefts.append((left, w))
        self.lefts = sorted(lefts, key=lambda x: -x[0])  # they fall in this order
        self.breach_armed = True
        self.armed_at = at_us
        self.breach_us = None
        self.changed()

    def _due(self, k: int) -> Due:
        """The k-th armed threshold (the breach after the warnings) on the RUNNING clock."""
        s = self.state
        r = max(s.running_since_us, self.armed_at)  # nothing falls before the target was set
        if k < len(self.lefts):
            left, w = self.lefts[k]
            return Due(self.metric.name, "WARNING", w.text, _falls_at(s, left, self.cal(), r))
        return Due(self.metric.name, "BREACH", "", max(s.deadline_us, r))

    def head(self) -> Due | None:
        """What falls first from the current running stretch on if no event
        comes first (None unless RUNNING with something armed)."""
        if self._head is _UNSET:
            armed = len(self.lefts) + self.breach_armed
            self._head = self._due(0) if self.status == "RUNNING" and self.state is not None and armed else None
        return self._head  # type: ignore[return-value]

    def pending(self) -> list[Due]:
        """Everything that falls at the first instant something falls (the
        warnings in falling order, then the breach); empty unless RUNNING.
        The thresholds fall in the order they are armed in: a warning with
        more left falls no later than one with less, and the breach last."""
        first = self.head()
        if first is None:
            return []
        out = [first]
        for k in range(1, len(self.lefts) + self.breach_armed):
            due = self._due(k)
            if due.at_us != first.at_us:
                break
            out.append(due)
        return out

    def fall_before(self, end_us: int, inclusive: bool) -> None:
        """Record what falls before ``end_us`` (at it too when ``inclusive``)."""
        while True:
            due = self.head()
            if due is None or not (due.at_us < end_us or (inclusive and due.at_us == end_us)):
                return
            cal = self.cal()
            if due.kind == "WARNING":
                del self.lefts[0]
                why = f"warning {due.threshold}: due {_when(self.state.deadline_us, cal)}"
            else:
                self.breach_armed = False
                self.breach_us = due.at_us
                why = f"breach: the deadline {_when(self.state.deadline_us, cal)} passed"
            self.changed()
            self.timeline.append(MetricEntry("", due.at_us, due.kind, self.tier, self.status,
                                             self.state.deadline_us, self.state.deadline_us, None, why,
                                             due.threshold))

    def retarget_from_start(self, event: ClockEvent, check: Callable[[], None] | None) -> ClockState:
        """The state after a RETARGET anchored at the clock's start, with
        :attr:`spent` as the running total (see :func:`retarget_from_start`)."""
        return retarget_from_start(self.state, event, self.cal(), self.spent, check)


def evaluate_metrics(policy: MetricPolicy, events: Sequence[BusinessEvent], as_of_us: int | None = None,
                     check: Callable[[], None] | None = None,
                     max_intervals: int | None = None) -> MetricsEvaluation:
    """Replay ``events`` (the first ``start``) under ``policy`` as of
    ``as_of_us`` (None: the last event's instant). InvalidArgument: an
    unknown event (``events[i].type``) or tier (``events[i].attributes``), a
    RETARGET without a tier, ``as_of`` earlier than the last event, a
    metric's clock keeping more than ``max_intervals`` running intervals
    (None: no bound; on ``events[i]``, the event that would add one more).
    FailedPrecondition: events out of time order, a second ``start``.
    OutOfRange: an instant the clock reaches outside the dates a computation
    may reach, on ``events[i].time``. ``check``: a cooperative check called
    before each event (and while a RETARGET anchored at the start measures)."""
    check_history_names(policy.name, events, {e for m in policy.metrics for e in m.rules} - {START_EVENT},
                        policy.tiers)
    order = []
    for i, e in enumerate(events):
        if i and e.type == START_EVENT:
            order.append(FieldViolation(f"events[{i}].type", f"a history has one {START_EVENT!r} event, its first"))
        elif i and e.at_us < events[i - 1].at_us:
            order.append(FieldViolation(f"events[{i}].time", "the event is earlier than "
                                        + ("the start" if e.at_us < events[0].at_us else "the one before it")
                                        + "; events must come in time order"))
    if order:
        raise FailedPrecondition(order[:1])
    last = events[-1].at_us
    as_of = last if as_of_us is None else as_of_us
    if as_of < last:
        raise InvalidArgument.at("as_of_time", "is earlier than the last event; give an instant at or after it "
                                               "(or leave it unset: the last event's instant)")
    tier = events[0].attributes.get("tier", policy.initial_tier)
    runs = [_Run(m) for m in policy.metrics]
    for i, e in enumerate(events):
        if check is not None:
            check()
        new_tier = e.attributes.get("tier")
        if new_tier is not None and (policy.tier_on_any_event or i == 0):
            tier = new_tier
        for run in runs:
            try:
                run.fall_before(e.at_us, inclusive=False)
                _apply(run, e, i, tier, policy, check)
            except OutOfRange as err:
                raise OutOfRange([v if v.field.startswith("calendar.") else v._replace(field=f"events[{i}].time")
                                  for v in err.violations], err.reason) from None
            if max_intervals is not None and run.state is not None and len(run.state.intervals) > max_intervals:
                raise InvalidArgument.at(
                    f"events[{i}]", f"{e.type} would give metric {run.metric.name or 'of the policy'!r} "
                                    f"{len(run.state.intervals)} running intervals in one cycle; a clock keeps at "
                                    f"most {max_intervals} (one per pause and resume since its start or last reset, "
                                    f"so that its state continues with ApplyClockEvent): start a new cycle (an "
                                    f"event the policy maps to RESET, or STOP and START) before this many pauses")
            if new_tier is not None and not policy.tier_on_any_event and run.timeline[-1].action == "RETARGET":
                tier = new_tier
    for run in runs:
        run.fall_before(as_of, inclusive=True)
    upcoming = [d for run in runs for d in run.pending()]
    next_at = min((d.at_us for d in upcoming), default=None)
    due = tuple(d for d in upcoming if d.at_us == next_at)  # runs in policy order, each in falling order
    return MetricsEvaluation(
        tuple(MetricResult(r.metric.name, r.status, r.cycles, r.tier, r.state, tuple(r.timeline), r.breach_us)
              for r in runs),
        tier, as_of, next_at, due)


def _apply(run: _Run, e: BusinessEvent, i: int, tier: str, policy: MetricPolicy,
           check: Callable[[], None] | None = None) -> None:
    action = run.metric.rules.get(e.type, {}).get(run.status)
    old = run.state.deadline_us if run.state is not None else None
    if action is None:
        if run.state is not None or e.type != START_EVENT or i:
            run.timeline.append(MetricEntry(e.type, e.at_us, "NONE", run.tier or tier, run.status, old, old,
                                            run.state.remaining_us if run.state else None,
                                            f"{e.type} while {run.status}: the policy does nothing", index=i))
        return
    run.changed()
    if action == START:
        run.tier = tier
        t = run.metric.targets[tier]
        run.state = start_clock(t.target, e.at_us, t.calendar, f"events[{i}].time")
        run.status = "RUNNING"
        run.cycles += 1
        run.spent = {}
        run.arm(e.at_us)
        run.timeline.append(MetricEntry(e.type, e.at_us, START, tier, "RUNNING", old, run.state.deadline_us, None,
                                        f"{e.type}: clock started (cycle {run.cycles}): {tier} target {t.target}, "
                                        f"due {_when(run.state.deadline_us, t.calendar)}", index=i))
        return
    kind = EventType(action)
    target = ""
    if kind is EventType.RETARGET:
        new_tier = e.attributes.get("tier")
        if new_tier is None:
            raise InvalidArgument.at(f"events[{i}].attributes", f"{e.type} retargets the clock: give the new 'tier'")
        run.tier = new_tier
        target = run.metric.targets[new_tier].target
    elif kind is EventType.RESET and run.tier != tier:  # a reset uses the target of the tier in force
        run.tier = tier
        d = parse_duration(run.metric.targets[tier].target, "target")
        run.state = replace(run.state, target=d.text, measure=measure_of(d, "target"))
    event = ClockEvent(kind, e.at_us, target, run.metric.anchors.get(e.type, Anchor.EVENT))
    try:
        if kind is EventType.RETARGET and event.anchor is Anchor.START:
            run.state = run.retarget_from_start(event, check)
        else:
            run.state = apply_event(run.state, event, run.cal(), check)
    except FailedPrecondition as err:
        raise FailedPrecondition([FieldViolation(f"events[{i}]{v.field.removeprefix('event')}",
                                                 f"{e.type} ({action}): {v.description}")
                                  for v in err.violations]) from None
    s = run.state
    run.status = s.status.value
    if kind is EventType.RESET or (kind is EventType.RETARGET and event.anchor is Anchor.EVENT):
        run.spent = {}  # the running intervals were cleared
    if kind in (EventType.RESET, EventType.RETARGET):
        run.arm(e.at_us)
    cal = run.cal()
    if kind is EventType.PAUSE:
        why = f"{e.type}: clock paused with {fmt_amount(s.remaining_us)} left in its measure"
    elif kind is EventType.RESUME:
        why = f"{e.type}: clock resumed; due {_when(s.deadline_us, cal)}"
    elif kind is EventType.STOP:
        why = f"{e.type}: clock stopped, SLA {'met' if s.met else 'breached'}"
    elif s.status is Status.RUNNING:
        why = f"{e.type}: {action.lower()} to {s.target}; due {_when(s.deadline_us, cal)}"
    else:
        why = f"{e.type}: {action.lower()} to {s.target}; {fmt_amount(s.remaining_us)} left"
    run.timeline.append(MetricEntry(e.type, e.at_us, action, run.tier, run.status, old, s.deadline_us,
                                    s.remaining_us, why, index=i))


@dataclass(frozen=True)
class ClockFalls:
    """What a single clock's warnings and deadline do around one instant t
    (a start or an event): ``at_event`` falls at t itself, ``next_at_us``
    (None: nothing) is the earliest instant after t at which something
    falls and ``next_due`` everything falling then."""

    at_event: tuple[Due, ...]
    next_at_us: int | None
    next_due: tuple[Due, ...]


def clock_falls(before: ClockState | None, kind: EventType | None, state: ClockState,
                warnings: Sequence[Warning], cal: Calendar, at_us: int) -> ClockFalls:
    """What falls at and after ``at_us`` on a single clock (docs/semantics.md
    §17), ``state`` being the clock after its start (``before`` and ``kind``
    None) or after an event of type ``kind`` at ``at_us`` applied to
    ``before``. A start, a RESET and a RETARGET set the target at ``at_us``
    and arm every warning and the breach: whatever would fall at or before
    ``at_us`` falls at it (a RETARGET anchored at the start that leaves the
    deadline behind ``at_us`` has its BREACH at ``at_us``). A RESUME arms
    what had not fallen when the clock was paused: a warning whose amount
    left is at most the time that was left (all of them when the target was
    set while paused and the clock has not run since) and the breach when
    the time left was not negative. Warnings in the order they fall (most
    left first), the breach last; the metric name is empty. Nothing falls
    unless ``state`` is RUNNING."""
    if state.status is not Status.RUNNING or state.deadline_us is None:
        return ClockFalls((), None, ())
    amount = _target_amount(parse_duration(state.target, "target"), state.measure, state.started_us, cal, "target")
    lefts = sorted(((w.left_us if w.share is None else (amount * (1 - w.share)).__floor__(), w) for w in warnings),
                   key=lambda x: -x[0])
    floor = at_us  # a running clock after a start or an event: its target was set or it resumed then
    left_then = None  # a RESUME: the time that was left at the pause, unless the target was set since
    if kind is EventType.RESUME and before is not None and before.intervals:
        left_then = before.remaining_us
    due = [Due("", "WARNING", w.text, _falls_at(state, left, cal, floor)) for left, w in lefts
           if left_then is None or left <= left_then]
    if left_then is None or left_then >= 0:
        due.append(Due("", "BREACH", "", max(state.deadline_us, floor)))
    at_event = tuple(d for d in due if d.at_us <= at_us)
    later = [d for d in due if d.at_us > at_us]
    at = min((d.at_us for d in later), default=None)
    return ClockFalls(at_event, at, tuple(d for d in later if d.at_us == at))

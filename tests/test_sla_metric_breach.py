"""A metric's breach and time left in EvaluateSla (docs/semantics.md §17):
`breach_time` on a metric whose BREACH fell, also while it runs, and the
command line's summary saying it, and a paused metric's time left."""

from __future__ import annotations

import json
import re
import shutil
from datetime import datetime, timezone
from pathlib import Path

import pytest

from duetime.api.convert import EVALUATE_SLA
from duetime.catalog import Catalog
from duetime.compose import build_app
from duetime.ledger import MemoryLedger
from duetime.v1 import duetime_pb2 as pb
from test_cli_queries import run

CALENDARS = Path(__file__).resolve().parents[1] / "calendars"
TICKET = [("start", "2026-12-01T09:00:00+01:00", {"tier": "high"}),
          ("agent_reply", "2026-12-01T10:00:00+01:00", {}),
          ("awaiting_customer", "2026-12-01T10:00:00+01:00", {}),
          ("customer_reply", "2026-12-01T14:00:00+01:00", {})]


@pytest.fixture(scope="module")
def app():
    return build_app(MemoryLedger(), Catalog.load(CALENDARS))


def evaluate(app, events, as_of):
    r = pb.EvaluateSlaRequest(policy="support-sla")
    for kind, when, attributes in events:
        e = r.events.add(type=kind, attributes=attributes)
        e.time.FromJsonString(when)
    r.as_of_time.FromJsonString(as_of)
    return app.answer(EVALUATE_SLA, r)


def breaches(answer):
    return [(m.name, m.breach_time.ToJsonString() if m.HasField("breach_time") else None) for m in answer.metrics]


def test_a_running_metric_past_its_deadline_has_its_breach_time(app):
    answer = evaluate(app, TICKET, "2026-12-02T09:30:00+01:00")
    assert [m.status for m in answer.metrics] == [pb.SLA_METRIC_STATUS_STOPPED, pb.SLA_METRIC_STATUS_RUNNING,
                                                 pb.SLA_METRIC_STATUS_RUNNING]
    # next_reply was due Wednesday 09:00+01:00; its clock state has no breach yet (no event showed it)
    assert breaches(answer) == [("first_response", None), ("next_reply", "2026-12-02T08:00:00Z"),
                                ("resolution", None)]
    assert not answer.metrics[1].state.HasField("breach_time")
    before = evaluate(app, TICKET, "2026-12-02T08:59:59+01:00")
    assert breaches(before) == [("first_response", None), ("next_reply", None), ("resolution", None)]


def test_a_breach_stays_after_a_stop_and_a_new_cycle_clears_it(app):
    late = TICKET + [("agent_reply", "2026-12-02T10:00:00+01:00", {}),
                     ("customer_reply", "2026-12-02T11:00:00+01:00", {})]
    answer = evaluate(app, late, "2026-12-02T11:00:00+01:00")
    next_reply = answer.metrics[1]
    assert (next_reply.status, next_reply.cycles) == (pb.SLA_METRIC_STATUS_RUNNING, 2)
    assert not next_reply.HasField("breach_time")  # the second cycle has not breached
    stopped = evaluate(app, late[:-1], "2026-12-02T10:30:00+01:00")
    assert stopped.metrics[1].status == pb.SLA_METRIC_STATUS_STOPPED and stopped.metrics[1].state.met is False
    assert stopped.metrics[1].breach_time.ToJsonString() == "2026-12-02T08:00:00Z"


def test_the_cli_summary_says_breached_and_time_left(capsys, tmp_path):
    path = tmp_path / "events.json"
    path.write_text(json.dumps([{"type": k, "time": t, "attributes": a} for k, t, a in TICKET]))
    code, lines, err = run(capsys, "sla", "evaluate", "support-sla", str(path), "--calendars", str(CALENDARS),
                           "--as-of", "2026-12-02T09:30:00+01:00")
    assert (code, err) == (0, "")
    assert [line for line in lines if re.match(r"metric \w+:", line)] == [
        "metric first_response: STOPPED, met, cycles 1",
        "metric next_reply:     RUNNING, breached at 2026-12-02T09:00:00+01:00, cycles 1",
        "metric resolution:     RUNNING, cycles 1"]
    path.write_text(json.dumps([{"type": k, "time": t, "attributes": a} for k, t, a in TICKET[:3]]))
    code, lines, err = run(capsys, "sla", "evaluate", "support-sla", str(path), "--calendars", str(CALENDARS),
                           "--as-of", "2026-12-01T12:00:00+01:00")
    assert (code, err) == (0, "")
    assert [line for line in lines if re.match(r"metric \w+:", line)] == [
        "metric first_response: STOPPED, met, cycles 1",
        "metric next_reply:     NOT_STARTED, cycles 0",
        "metric resolution:     PAUSED, 15h left, cycles 1"]


def test_the_typed_client_reads_the_breach(app, tmp_path):
    from duetime.client import DuetimeClient
    from server_process import ServerProcess
    server = ServerProcess(tmp_path / "ledger.db", CALENDARS)
    try:
        with DuetimeClient(server.address, timeout=10) as duetime:
            evaluation = duetime.evaluate_sla(
                "support-sla", [{"type": k, "time": t, "attributes": a} for k, t, a in TICKET],
                as_of=datetime(2026, 12, 2, 8, 30, tzinfo=timezone.utc))
        assert [m.breached_at for m in evaluation.metrics] == [
            None, datetime(2026, 12, 2, 8, tzinfo=timezone.utc), None]
        assert server.terminate() == 0
    finally:
        server.kill()

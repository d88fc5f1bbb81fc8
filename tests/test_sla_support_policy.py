"""The bundled support contract, ``support-sla`` (calendars/policies/support-sla.toml),
served by a plain ``duetime serve``: the worked example of docs/sla.md with
exact instants, over gRPC and JSON/HTTP (docs/semantics.md §17)."""

from __future__ import annotations

import httpx
import pytest
from duetime.v1 import duetime_pb2 as pb
from server_process import start_with_http, ts

VERSION = "support-sla@fc8edd68c67b"
#: docs/sla.md "Worked example: the support contract": a high ticket (split shifts 08-12, 13-17).
TICKET = [("start", "2026-12-01T09:00:00+01:00", {"tier": "high"}),
          ("agent_reply", "2026-12-01T10:00:00+01:00", {}),
          ("awaiting_customer", "2026-12-01T10:00:00+01:00", {}),
          ("customer_reply", "2026-12-01T14:00:00+01:00", {})]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    running = start_with_http(tmp_path_factory.mktemp("support-sla") / "ledger.db")
    try:
        yield running
        assert running.terminate() == 0, "".join(running.stderr)
    finally:
        running.kill()


def evaluate(server, as_of: str = "") -> pb.EvaluateSlaResponse:
    request = pb.EvaluateSlaRequest(policy="support-sla", events=[
        pb.BusinessEvent(type=kind, time=ts(time), attributes=attributes) for kind, time, attributes in TICKET])
    if as_of:
        request.as_of_time.CopyFrom(ts(as_of))
    return server.stub.EvaluateSla(request, timeout=10)


def fell(metric: pb.SlaMetric) -> list[tuple[str, str, str]]:
    return [(e.action, e.time.ToJsonString(), e.threshold) for e in metric.timeline
            if e.action in ("WARNING", "BREACH")]


def test_the_worked_example_after_the_last_event(server):
    r = evaluate(server)
    assert r.policy_version == VERSION and r.tier == "high"
    assert r.as_of_time.ToJsonString() == "2026-12-01T13:00:00Z"  # Tuesday 14:00+01:00
    assert [(m.name, m.status, m.cycles) for m in r.metrics] == [
        ("first_response", pb.SLA_METRIC_STATUS_STOPPED, 1),
        ("next_reply", pb.SLA_METRIC_STATUS_RUNNING, 1),
        ("resolution", pb.SLA_METRIC_STATUS_RUNNING, 1)]
    first, reply, resolution = r.metrics
    assert first.state.met and [e.action for e in first.timeline] == ["START", "STOP", "NONE", "NONE"]
    # 4bh from Tuesday 14:00: 14-17 and Wednesday 08-09
    assert reply.state.deadline_time.ToJsonString() == "2026-12-02T08:00:00Z"
    # 16bh from Tuesday 09:00, 1 h used before the pause; 15 h from 14:00: Thursday 12:00
    assert [e.action for e in resolution.timeline] == ["START", "NONE", "PAUSE", "RESUME"]
    assert resolution.timeline[2].remaining.ToJsonString() == "54000s"
    assert resolution.state.deadline_time.ToJsonString() == "2026-12-03T11:00:00Z"
    assert [fell(m) for m in r.metrics] == [[], [], []]
    assert r.next_action.time.ToJsonString() == "2026-12-02T07:00:00Z"  # Wednesday 08:00+01:00
    assert [(d.metric, d.kind, d.threshold) for d in r.next_action.due] == [
        ("next_reply", pb.SLA_DUE_KIND_WARNING, "75%")]


def test_the_worked_example_as_of_wednesday_0930(server):
    r = evaluate(server, "2026-12-02T09:30:00+01:00")
    assert fell(r.metrics[1]) == [("WARNING", "2026-12-02T07:00:00Z", "75%"),
                                  ("WARNING", "2026-12-02T07:30:00Z", "30bm"),
                                  ("BREACH", "2026-12-02T08:00:00Z", "")]
    assert fell(r.metrics[0]) == fell(r.metrics[2]) == []
    # the resolution's 4 h left of 16 h: Thursday 08:00, the opening before its deadline
    assert r.next_action.time.ToJsonString() == "2026-12-03T07:00:00Z"
    assert [(d.metric, d.kind, d.threshold) for d in r.next_action.due] == [
        ("resolution", pb.SLA_DUE_KIND_WARNING, "75%")]


def test_the_worked_example_as_of_thursday_1230_over_http(server):
    body = {"policy": "support-sla", "asOfTime": "2026-12-03T12:30:00+01:00",
            "events": [{"type": k, "time": t, "attributes": a} for k, t, a in TICKET]}
    with httpx.Client(base_url=server.http_url, timeout=10) as http:
        answer = http.post("/v1/sla:evaluate", json=body)
    assert answer.status_code == 200, answer.text
    got = answer.json()
    assert got["policyVersion"] == VERSION and "nextAction" not in got
    resolution = got["metrics"][2]
    assert [(e["action"], e["time"], e.get("threshold", "")) for e in resolution["timeline"]
            if e["action"] in ("WARNING", "BREACH")] == [
        ("WARNING", "2026-12-03T07:00:00Z", "75%"), ("WARNING", "2026-12-03T10:30:00Z", "30bm"),
        ("BREACH", "2026-12-03T11:00:00Z", "")]

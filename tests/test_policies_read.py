"""Reading the SLA policies a server has loaded (docs/semantics.md §14):
CalendarService.ListPolicies and GetPolicy over gRPC and JSON/HTTP, the typed
client and ``duetime calendars policies``."""

from __future__ import annotations

import json

import grpc
import httpx
import pytest
from duetime.client import DuetimeClient, NotFound, PolicyEvent, PolicyInfo, PolicyTier
from duetime.v1 import duetime_pb2 as pb
from google.protobuf import json_format
from google.rpc.error_details_pb2 import BadRequest, ErrorInfo
from grpc_status import rpc_status
from server_process import CALENDARS, start_with_http
from test_cli_queries import run

VERSION = "8b65ed13fadb"
CALENDAR = "support-desk-example@259c33f17398"
DESCRIPTION = ("Support contract: a first response within 14 days; priority tickets within 48 "
               "business hours of becoming priority. A customer reply restarts a running clock "
               "and resumes a paused one; waiting on a third party pauses it.")
INFO = pb.PolicyInfo(name="support-contract", description=DESCRIPTION, newest_version=VERSION,
                     versions=[VERSION])
SLA_VERSION = "fc8edd68c67b"
SLA_DESCRIPTION = ("Support SLA: first response, next reply and resolution per priority, in the "
                   "support desk's business hours. Each metric warns at 75% of its target and at "
                   "30 business minutes left.")
SLA_INFO = pb.PolicyInfo(name="support-sla", description=SLA_DESCRIPTION,
                         newest_version=SLA_VERSION, versions=[SLA_VERSION])
RETARGET = "retargets the clock to the tier the event names, counting from the event"
POLICY = pb.GetPolicyResponse(
    info=INFO, version=VERSION, initial_tier="standard",
    tiers=[
        pb.PolicyTier(name="priority", target="48bh", measure=pb.CLOCK_MEASURE_BUSINESS_TIME,
                      calendar_version=CALENDAR, time_zone="Europe/Zagreb"),
        pb.PolicyTier(name="standard", target="14d", measure=pb.CLOCK_MEASURE_ELAPSED,
                      calendar_version=CALENDAR, time_zone="Europe/Zagreb"),
    ],
    events=[
        pb.PolicyEvent(name="awaiting_third_party", when_running="PAUSE", when_paused="NONE",
                       anchor="EVENT",
                       description="while running: pauses the clock; while paused: changes nothing"),
        pb.PolicyEvent(name="customer_reply", when_running="RESET", when_paused="RESUME",
                       anchor="EVENT",
                       description="while running: restarts the clock at the event with the "
                                   "tier's target; while paused: resumes the clock"),
        pb.PolicyEvent(name="resolved", when_running="STOP", when_paused="STOP", anchor="EVENT",
                       description="while running: stops the clock; while paused: stops the clock"),
        pb.PolicyEvent(name="tier_change", when_running="RETARGET", when_paused="RETARGET",
                       anchor="EVENT",
                       description=f"while running: {RETARGET}; while paused: {RETARGET}"),
    ])
UNKNOWN = "no policy named 'no-such-policy' (known: support-contract, support-sla)"
NO_VERSION = f"policy 'support-contract' has no version '000000000000' (versions: {VERSION})"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    running = start_with_http(tmp_path_factory.mktemp("policies") / "ledger.db")
    try:
        yield running
        assert running.terminate() == 0, "".join(running.stderr)
    finally:
        running.kill()


def refusal(call) -> tuple[grpc.StatusCode, list[tuple[str, str]], str]:
    """The code, (field, description) violations and ErrorInfo reason of a failing call."""
    with pytest.raises(grpc.RpcError) as caught:
        call()
    bad, info = BadRequest(), ErrorInfo()
    for detail in rpc_status.from_call(caught.value).details:
        detail.Unpack(bad) or detail.Unpack(info)
    return (caught.value.code(), [(v.field, v.description) for v in bad.field_violations],
            info.reason)


def test_list_policies_over_grpc(server):
    reply = server.calendars.ListPolicies(pb.ListPoliciesRequest(), timeout=10)
    assert reply == pb.ListPoliciesResponse(policies=[INFO, SLA_INFO])


@pytest.mark.parametrize("name", ["support-contract", f"support-contract@{VERSION}"])
def test_get_policy_over_grpc(server, name):
    assert server.calendars.GetPolicy(pb.GetPolicyRequest(name=name), timeout=10) == POLICY


def test_unknown_policy_or_version_is_not_found_on_name(server):
    assert refusal(lambda: server.calendars.GetPolicy(
        pb.GetPolicyRequest(name="no-such-policy"), timeout=10)) == (
        grpc.StatusCode.NOT_FOUND, [("name", UNKNOWN)], "POLICY_NOT_FOUND")
    assert refusal(lambda: server.calendars.GetPolicy(
        pb.GetPolicyRequest(name="support-contract@000000000000"), timeout=10)) == (
        grpc.StatusCode.NOT_FOUND, [("name", NO_VERSION)], "POLICY_NOT_FOUND")


def test_empty_name_or_version_is_invalid_on_name(server):
    code, violations, _ = refusal(lambda: server.calendars.GetPolicy(
        pb.GetPolicyRequest(), timeout=10))
    assert (code, violations) == (grpc.StatusCode.INVALID_ARGUMENT,
                                  [("name", "is required: a policy name, or name@version")])
    code, violations, _ = refusal(lambda: server.calendars.GetPolicy(
        pb.GetPolicyRequest(name="support-contract@"), timeout=10))
    assert (code, violations) == (grpc.StatusCode.INVALID_ARGUMENT, [(
        "name", "'support-contract@': empty version after '@'; write 'support-contract' for "
                "its newest version, or support-contract@VERSION")])


def test_policies_over_http(server):
    with httpx.Client(base_url=server.http_url, timeout=10) as http:
        listed = http.get("/v1/policies")
        assert listed.status_code == 200, listed.text
        assert listed.json() == {"policies": [
            {"name": "support-contract", "description": DESCRIPTION,
             "newestVersion": VERSION, "versions": [VERSION]},
            {"name": "support-sla", "description": SLA_DESCRIPTION,
             "newestVersion": SLA_VERSION, "versions": [SLA_VERSION]}]}
        shown = http.get(f"/v1/policies/support-contract%40{VERSION}")
        assert shown.status_code == 200, shown.text
        body = shown.json()
        assert json_format.ParseDict(body, pb.GetPolicyResponse()) == POLICY
        assert body["tiers"][0] == {
            "name": "priority", "target": "48bh", "measure": "CLOCK_MEASURE_BUSINESS_TIME",
            "calendarVersion": CALENDAR, "timeZone": "Europe/Zagreb"}
        assert body["events"][1] == {
            "name": "customer_reply", "whenRunning": "RESET", "whenPaused": "RESUME",
            "anchor": "EVENT", "description": "while running: restarts the clock at the event "
                                              "with the tier's target; while paused: resumes "
                                              "the clock"}

        missing = http.get("/v1/policies/no-such-policy")
        assert missing.status_code == 404
        error = missing.json()["error"]
        assert (error["code"], error["status"], error["message"]) == (
            404, "NOT_FOUND", f"name: {UNKNOWN}")
        violations = [v for d in error["details"] if d["@type"].endswith("BadRequest")
                      for v in d["fieldViolations"]]
        assert violations == [{"field": "name", "description": UNKNOWN}]


def test_typed_client(server):
    with DuetimeClient(server.address, timeout=10) as duetime:
        listed = duetime.list_policies()
        assert listed.policies == (
            PolicyInfo("support-contract", DESCRIPTION, VERSION, (VERSION,)),
            PolicyInfo("support-sla", SLA_DESCRIPTION, SLA_VERSION, (SLA_VERSION,)))
        policy = duetime.get_policy("support-contract")
        assert (policy.version, policy.initial_tier) == (VERSION, "standard")
        assert policy.tiers == (
            PolicyTier("priority", "48bh", "BUSINESS_TIME", CALENDAR, "Europe/Zagreb"),
            PolicyTier("standard", "14d", "ELAPSED", CALENDAR, "Europe/Zagreb"))
        assert policy.events[0] == PolicyEvent(
            "awaiting_third_party", "PAUSE", "NONE", "EVENT",
            "while running: pauses the clock; while paused: changes nothing")
        assert [e.name for e in policy.events] == [
            "awaiting_third_party", "customer_reply", "resolved", "tier_change"]
        with pytest.raises(NotFound) as caught:
            duetime.get_policy("no-such-policy")
        assert [(v.field, v.description) for v in caught.value.violations] == [("name", UNKNOWN)]


def test_cli_lists_and_shows_locally(capsys):
    code, lines, err = run(capsys, "calendars", "policies", "--dir", str(CALENDARS))
    assert (code, err) == (0, "")
    assert lines == [
        "NAME              NEWEST        VERSIONS  DESCRIPTION",
        f"support-contract  {VERSION}  1         {DESCRIPTION}",
        f"support-sla       {SLA_VERSION}  1         {SLA_DESCRIPTION}"]
    code, lines, err = run(capsys, "calendars", "policies", "support-contract",
                           "--dir", str(CALENDARS))
    assert (code, err) == (0, "")
    assert lines[:3] == [f"support-contract@{VERSION}  (versions: {VERSION})", DESCRIPTION,
                         "initial tier: standard"]
    assert lines[3:6] == [
        "TIER      TARGET  MEASURE        TIME ZONE      CALENDAR",
        f"priority  48bh    BUSINESS_TIME  Europe/Zagreb  {CALENDAR}",
        f"standard  14d     ELAPSED        Europe/Zagreb  {CALENDAR}"]
    assert lines[6] == "EVENT                 RUNNING   PAUSED    ANCHOR  WHAT IT DOES"
    assert lines[7] == ("awaiting_third_party  PAUSE     NONE      EVENT   while running: pauses "
                        "the clock; while paused: changes nothing")
    assert lines[-1] == "every history begins with the event start"
    code, lines, err = run(capsys, "calendars", "policies", "no-such-policy",
                           "--dir", str(CALENDARS))
    assert (code, lines, err) == (1, [], f"error: NAME: {UNKNOWN}\n")


def test_cli_asks_a_server(server, capsys):
    code, lines, err = run(capsys, "calendars", "policies", "support-contract", "--json",
                           "--server", server.address)
    assert (code, err) == (0, "")
    assert json_format.ParseDict(json.loads("\n".join(lines)), pb.GetPolicyResponse()) == POLICY
    code, lines, err = run(capsys, "calendars", "policies", "no-such-policy",
                           "--server", server.address)
    assert (code, lines, err) == (1, [], f"error: NAME: {UNKNOWN}\n")


SLA_CALENDAR = "support-desk-example@259c33f17398"
FIRST_RESPONSE_TARGETS = [("high", "2bh"), ("low", "16bh"), ("normal", "8bh"), ("urgent", "1bh")]
FIRST_RESPONSE_RULES = [
    ("agent_reply", "RUNNING", "STOP", "EVENT"), ("agent_reply", "PAUSED", "STOP", "EVENT"),
    ("priority_change", "RUNNING", "RETARGET", "START"), ("priority_change", "PAUSED", "RETARGET", "START"),
    ("solved", "RUNNING", "STOP", "EVENT"), ("solved", "PAUSED", "STOP", "EVENT"),
    ("start", "NOT_STARTED", "START", "EVENT")]


def test_a_policy_of_metrics_is_written_out_by_metric(server):
    with httpx.Client(base_url=server.http_url, timeout=10) as http:
        shown = http.get("/v1/policies/support-sla")
        assert shown.status_code == 200, shown.text
        body = shown.json()
    # no one-clock tiers or events: each metric holds its own (docs/semantics.md §17)
    assert (body["tiers"], body["events"]) == ([], [])
    assert [m["name"] for m in body["metrics"]] == ["first_response", "next_reply", "resolution"]
    first = body["metrics"][0]
    assert [(t["name"], t["target"]) for t in first["targets"]] == FIRST_RESPONSE_TARGETS
    assert first["targets"][0] == {"name": "high", "target": "2bh", "measure": "CLOCK_MEASURE_BUSINESS_TIME",
                                   "calendarVersion": SLA_CALENDAR, "timeZone": "Europe/Zagreb"}
    assert [(r["event"], r["status"], r["action"], r["anchor"]) for r in first["rules"]] == FIRST_RESPONSE_RULES
    assert first["warnings"] == ["75%", "30bm"]
    assert [(t["name"], t["target"]) for t in body["metrics"][2]["targets"]] == [
        ("high", "16bh"), ("low", "80bh"), ("normal", "40bh"), ("urgent", "8bh")]


def test_typed_client_reads_a_policy_of_metrics(server):
    from duetime.client import PolicyMetricRule
    with DuetimeClient(server.address, timeout=10) as duetime:
        policy = duetime.get_policy("support-sla")
        assert duetime.get_policy("support-contract").metrics == ()
    assert (policy.version, policy.initial_tier, policy.tiers, policy.events) == (SLA_VERSION, "normal", (), ())
    assert [m.name for m in policy.metrics] == ["first_response", "next_reply", "resolution"]
    first = policy.metrics[0]
    assert first.targets[0] == PolicyTier("high", "2bh", "BUSINESS_TIME", SLA_CALENDAR, "Europe/Zagreb")
    assert first.rules == tuple(PolicyMetricRule(*r) for r in FIRST_RESPONSE_RULES)
    assert first.warnings == ("75%", "30bm")


def test_cli_shows_each_metric_with_its_targets_rules_and_warnings(capsys):
    code, lines, err = run(capsys, "calendars", "policies", "support-sla", "--dir", str(CALENDARS))
    assert (code, err) == (0, "")
    assert lines[2:19] == [
        "initial tier: normal",
        "metric first_response: warnings 75%, 30bm",
        "TIER    TARGET  MEASURE        TIME ZONE      CALENDAR",
        f"high    2bh     BUSINESS_TIME  Europe/Zagreb  {SLA_CALENDAR}",
        f"low     16bh    BUSINESS_TIME  Europe/Zagreb  {SLA_CALENDAR}",
        f"normal  8bh     BUSINESS_TIME  Europe/Zagreb  {SLA_CALENDAR}",
        f"urgent  1bh     BUSINESS_TIME  Europe/Zagreb  {SLA_CALENDAR}",
        "EVENT            STATUS       ACTION    ANCHOR",
        "agent_reply      RUNNING      STOP",
        "agent_reply      PAUSED       STOP",
        "priority_change  RUNNING      RETARGET  START",
        "priority_change  PAUSED       RETARGET  START",
        "solved           RUNNING      STOP",
        "solved           PAUSED       STOP",
        "start            NOT_STARTED  START",
        "metric next_reply: warnings 75%, 30bm",
        "TIER    TARGET  MEASURE        TIME ZONE      CALENDAR"]
    assert "customer_reply   NOT_STARTED  START" in lines
    assert "metric resolution: warnings 75%, 30bm" in lines
    assert "reopened              STOPPED      START" in lines
    assert not any("changes nothing" in line for line in lines)
    assert lines[-1] == "every history begins with the event start"

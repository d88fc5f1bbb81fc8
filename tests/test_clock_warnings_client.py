"""A single clock's warnings from the command line and the typed client
against a real server (docs/semantics.md §17): ``duetime clock start|apply
--warn``, ``start_clock`` / ``apply_clock_event(warning_thresholds=…)`` with
the Clock's ``next_action`` and ``fell_at_event``, and ``evaluate_sla`` with
events given as JSON-form mappings."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime, timedelta, timezone

import pytest

from duetime.client import DuetimeClient, InvalidArgument, SlaDue, SlaNextAction
from server_process import server_fixture  # noqa: F401 - the "server" fixture

CET = timezone(timedelta(hours=1))
WARN = ["--warn", "75%", "--warn", "30bm"]


def duetime(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "duetime", *args], input=stdin,
                          capture_output=True, text=True, timeout=60)


def test_cli_clock_warns_and_prints_the_next_action(server):
    started = duetime("clock", "start", "8bh", "--at", "2026-12-03T15:00:00+01:00",
                      "--calendar", "support-desk-example", *WARN, "--server", server.address)
    assert started.returncode == 0, started.stderr
    assert json.loads(started.stdout)["deadlineTime"] == "2026-12-04T14:00:00Z"
    assert started.stderr.splitlines()[:2] == [
        "fell at event: nothing",
        "next action:   2026-12-04T13:00:00+01:00: WARNING 75%"]
    paused = duetime("clock", "apply", "-", "pause", "--at", "2026-12-04T12:30:00+01:00", *WARN,
                     "--server", server.address, stdin=started.stdout)
    assert paused.returncode == 0, paused.stderr
    assert paused.stderr.splitlines()[:2] == ["fell at event: nothing", "next action:   none"]
    resumed = duetime("clock", "apply", "-", "resume", "--at", "2026-12-07T09:00:00+01:00", *WARN,
                      "--server", server.address, stdin=paused.stdout)
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stderr.splitlines()[:2] == [
        "fell at event: WARNING 75%",
        "next action:   2026-12-07T10:30:00+01:00: WARNING 30bm"]
    retargeted = duetime("clock", "apply", "-", "retarget", "--target", "2bh", "--anchor", "start",
                         "--at", "2026-12-04T12:00:00+01:00", *WARN, "--server", server.address,
                         stdin=started.stdout)
    assert retargeted.returncode == 0, retargeted.stderr
    assert retargeted.stderr.splitlines()[:2] == [
        "fell at event: WARNING 75%, WARNING 30bm, BREACH", "next action:   none"]
    bad = duetime("clock", "start", "8bh", "--at", "2026-12-03T15:00:00+01:00",
                  "--calendar", "support-desk-example", "--warn", "30m", "--server", server.address)
    assert bad.returncode == 2
    assert bad.stderr.startswith("error: warning_thresholds[0]: '30m': a business-time clock's warning")


def test_cli_clock_without_warn_prints_no_next_action(server):
    started = duetime("clock", "start", "8bh", "--at", "2026-12-03T15:00:00+01:00",
                      "--calendar", "support-desk-example", "--server", server.address)
    assert started.returncode == 0, started.stderr
    assert [line.split(":")[0] for line in started.stderr.splitlines()] == ["record", "versions"]


def test_typed_client_clock_with_warning_thresholds(server):
    with DuetimeClient(server.address, timeout=10) as client:
        clock = client.start_clock("8bh", datetime(2026, 12, 3, 15, tzinfo=CET), "support-desk-example",
                                   warning_thresholds=["75%", "30bm"])
        assert (clock.fell_at_event, clock.next_action) == (
            (), SlaNextAction(datetime(2026, 12, 4, 12, tzinfo=timezone.utc), (SlaDue("", "WARNING", "75%"),)))
        paused = client.apply_clock_event(clock.state, "pause", datetime(2026, 12, 4, 12, 30, tzinfo=CET),
                                          warning_thresholds=["75%", "30bm"])
        assert (paused.fell_at_event, paused.next_action) == ((), None)
        resumed = client.apply_clock_event(paused.state, "resume", datetime(2026, 12, 7, 9, tzinfo=CET),
                                           warning_thresholds=["75%", "30bm"])
        assert resumed.fell_at_event == (SlaDue("", "WARNING", "75%"),)
        assert resumed.next_action == SlaNextAction(datetime(2026, 12, 7, 9, 30, tzinfo=timezone.utc),
                                                    (SlaDue("", "WARNING", "30bm"),))
        late = client.apply_clock_event(clock.state, "retarget", datetime(2026, 12, 4, 12, tzinfo=CET),
                                        target="2bh", anchor="start", warning_thresholds=["75%", "30bm"])
        assert late.fell_at_event == (SlaDue("", "WARNING", "75%"), SlaDue("", "WARNING", "30bm"),
                                      SlaDue("", "BREACH", ""))
        assert late.next_action is None
        plain = client.start_clock("8bh", datetime(2026, 12, 3, 15, tzinfo=CET), "support-desk-example")
        assert (plain.fell_at_event, plain.next_action) == ((), None)
        with pytest.raises(InvalidArgument) as caught:
            client.start_clock("8bh", datetime(2026, 12, 3, 15, tzinfo=CET), warning_thresholds="75%")
        assert [(v.field, v.description) for v in caught.value.violations] == [
            ("warning_thresholds", "is a sequence of thresholds, e.g. ['75%', '30bm'], not one text")]


TICKET = [{"type": "start", "time": "2026-12-01T09:00:00+01:00", "attributes": {"tier": "high"}},
          {"type": "agent_reply", "time": "2026-12-01T10:00+01:00"},
          {"type": "awaiting_customer", "time": datetime(2026, 12, 1, 10, tzinfo=CET)},
          {"type": "customer_reply", "time": "2026-12-01T14:00:00+01:00", "attributes": {}}]


def test_typed_client_evaluates_events_given_as_mappings(server):
    with DuetimeClient(server.address, timeout=10) as client:
        evaluation = client.evaluate_sla("support-sla", TICKET,
                                         as_of=datetime(2026, 12, 2, 9, 30, tzinfo=CET))
        assert [(m.name, m.status) for m in evaluation.metrics] == [
            ("first_response", "STOPPED"), ("next_reply", "RUNNING"), ("resolution", "RUNNING")]
        assert evaluation.next_action == SlaNextAction(datetime(2026, 12, 3, 7, tzinfo=timezone.utc),
                                                       (SlaDue("resolution", "WARNING", "75%"),))
        for events, field, description in [
            ([TICKET[0], {"type": "agent_reply"}], "events[1].time", "is required"),
            ([TICKET[0], {"type": "agent_reply", "time": "2026-12-01T10:00", "who": "x"}], "events[1].who",
             "is not a field of an event; give type, time and optionally attributes"),
            ([TICKET[0], ("agent_reply", "2026-12-01T10:00+01:00")], "events[1]",
             "is a tuple; give an SlaEvent, a BusinessEvent or a mapping such as "
             "{'type': 'agent_reply', 'time': '2026-12-01T10:00+01:00'}"),
            ([TICKET[0], {"type": "agent_reply", "time": "2026-12-01T10:00+01:00", "attributes": {"tier": 2}}],
             "events[1].attributes", "is a mapping of text to text, e.g. {'tier': 'high'}"),
        ]:
            with pytest.raises(InvalidArgument) as caught:
                client.evaluate_sla("support-sla", events)
            assert [(v.field, v.description) for v in caught.value.violations] == [(field, description)]
        with pytest.raises(InvalidArgument) as caught:  # text that is no instant, named as the server would
            client.evaluate_sla("support-sla", [TICKET[0], {"type": "agent_reply", "time": "2026-12-01T10:00"}])
        assert [v.field for v in caught.value.violations] == ["events[1].time"]

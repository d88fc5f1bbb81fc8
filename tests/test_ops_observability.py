"""Prometheus metrics (``--metrics-port``) and JSON logs (``--log-format json``)
of real ``duetime serve`` processes: exact counts after known calls."""

from __future__ import annotations

import json
import signal
import urllib.request
from importlib import metadata

import grpc
import pytest
from duetime.catalog import Catalog
from duetime.channels import ConnectionOptions, open_channel
from duetime.core import RULES_VERSION
from duetime.tzdb import tzdata_version
from duetime.v1 import duetime_pb2 as pb
from duetime.v1 import duetime_pb2_grpc as pb_grpc
from prometheus_client.parser import text_string_to_metric_families
from server_process import CALENDARS, free_port, zagreb_request
from test_e2e_bundles import V1, add_company_day, copy_calendars
from test_ops_security import (  # noqa: F401 - the ops_server fixture
    TOKEN,
    call_code,
    ops_server_fixture,
)

DUE = "/duetime.v1.DueTimeService/ComputeDueTime"
GET_RECORD = "/duetime.v1.DueTimeService/GetRecord"
CHECK = "/grpc.health.v1.Health/Check"


def scrape(port: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample on http://127.0.0.1:PORT/metrics: (name, sorted labels) → value."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as reply:
        assert reply.status == 200
        text = reply.read().decode()
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def series(samples, name: str) -> dict[tuple[tuple[str, str], ...], float]:
    return {labels: value for (n, labels), value in samples.items() if n == name}


def test_metrics_count_every_call_by_code(ops_server, tmp_path):
    tokens = tmp_path / "tokens"
    tokens.write_text(TOKEN + "\n")
    port = free_port()
    server = ops_server("--metrics-port", str(port), "--auth-tokens", str(tokens),
                        connection=ConnectionOptions(token=TOKEN))
    assert f"metrics on http://127.0.0.1:{port}/metrics" in "".join(server.stderr)
    for key in ("m-1", "m-2", "m-3"):  # three answers, each its own ledger commit
        assert server.stub.ComputeDueTime(zagreb_request(key), timeout=10).record_id
    bad = zagreb_request()
    bad.duration = "1.5bd"
    with pytest.raises(grpc.RpcError):
        server.stub.ComputeDueTime(bad, timeout=10)
    with pytest.raises(grpc.RpcError):
        server.stub.GetRecord(pb.GetRecordRequest(record_id="0" * 32), timeout=10)
    with open_channel(server.address) as anonymous:
        assert call_code(anonymous) == grpc.StatusCode.UNAUTHENTICATED
        assert call_code(anonymous) == grpc.StatusCode.UNAUTHENTICATED

    samples = scrape(port)
    assert series(samples, "duetime_rpc_requests_total") == {
        (("code", "OK"), ("method", DUE)): 3.0,
        (("code", "INVALID_ARGUMENT"), ("method", DUE)): 1.0,
        (("code", "UNAUTHENTICATED"), ("method", DUE)): 2.0,
        (("code", "NOT_FOUND"), ("method", GET_RECORD)): 1.0,
        (("code", "OK"), ("method", CHECK)): 1.0,  # the readiness check, without a token
    }
    assert series(samples, "duetime_rpc_refusals_total") == {  # by ErrorInfo reason
        (("method", DUE), ("reason", "INVALID_ARGUMENT")): 1.0,
        (("method", DUE), ("reason", "TOKEN_MISSING")): 2.0,
        (("method", GET_RECORD), ("reason", "RECORD_NOT_FOUND")): 1.0,
    }
    counts = series(samples, "duetime_rpc_duration_seconds_count")
    assert counts == {(("method", DUE),): 6.0, (("method", GET_RECORD),): 1.0,
                      (("method", CHECK),): 1.0}
    assert samples[("duetime_ledger_commit_seconds_count", ())] == 3.0
    assert samples[("duetime_ledger_commit_seconds_sum", ())] > 0
    newest = Catalog.load(CALENDARS).bundles.summary()
    assert series(samples, "duetime_bundle_info") == {
        (("bundle", name), ("rules_version", RULES_VERSION), ("version", version)): 1.0
        for name, version in newest.items()}
    assert series(samples, "duetime_build_info") == {
        (("rules_version", RULES_VERSION), ("tzdata_version", tzdata_version()),
         ("version", metadata.version("duetime"))): 1.0}


def test_bundle_info_follows_a_reload(ops_server, tmp_path):
    root = copy_calendars(tmp_path / "calendars")
    port = free_port()
    server = ops_server("--metrics-port", str(port), calendars=root)
    before = series(scrape(port), "duetime_bundle_info")
    assert before[(("bundle", "hr-zagreb"), ("rules_version", RULES_VERSION),
                   ("version", V1))] == 1.0
    v2 = add_company_day(root)
    server.proc.send_signal(signal.SIGHUP)
    server.await_log(rf"calendars reloaded from .*hr-zagreb@{v2}")
    after = series(scrape(port), "duetime_bundle_info")
    zagreb = {labels for labels in after if ("bundle", "hr-zagreb") in labels}
    assert zagreb == {(("bundle", "hr-zagreb"), ("rules_version", RULES_VERSION),
                       ("version", v2))}
    assert len(after) == len(before)


def test_json_logs_one_object_a_line_with_the_request_fields(ops_server, tmp_path):
    tokens = tmp_path / "tokens"
    tokens.write_text(TOKEN + "\n")
    server = ops_server("--log-format", "json", "--auth-tokens", str(tokens),
                        connection=ConnectionOptions(token=TOKEN))
    answer = server.stub.ComputeDueTime(zagreb_request("json-1"), timeout=10,
                                        metadata=(("x-duetime-namespace", "team-a"),))
    with open_channel(server.address) as anonymous:
        assert call_code(anonymous) == grpc.StatusCode.UNAUTHENTICATED
    assert server.terminate() == 0
    lines = [json.loads(line) for line in server.stderr]  # every line is one JSON object
    assert all({"time", "level", "logger", "message"} <= set(line) for line in lines)
    requests = [line for line in lines if line["logger"] == "duetime.access"]
    assert [(r["rpc"], r["code"]) for r in requests] == [
        (CHECK, "OK"), (DUE, "OK"), (DUE, "UNAUTHENTICATED")]
    answered = requests[1]
    assert answered["record_id"] == answer.record_id
    assert answered["namespace"] == "team-a"
    assert "peer" not in answered  # answered OK: the peer is not read
    assert requests[2]["peer"].startswith("ipv4:127.0.0.1:")  # refused: it is
    assert isinstance(answered["latency_ms"], float) and answered["latency_ms"] > 0
    assert "record_id" not in requests[2] and requests[2]["namespace"] == ""
    assert requests[2]["reason"] == "TOKEN_MISSING" and "reason" not in answered
    assert requests[2]["message"].endswith(" reason=TOKEN_MISSING")
    (config,) = [line["config"] for line in lines if "config" in line]
    assert (config["log_format"], config["auth_tokens"], config["port"]) == (
        "json", str(tokens), 0)
    everything = "\n".join(server.stderr)
    assert TOKEN not in everything and "authorization" not in everything.lower()


def test_text_request_lines_and_no_metrics_by_default(ops_server):
    """Without --metrics-port nothing listens for metrics; calls are logged as text."""
    server = ops_server()
    answer = pb_grpc.DueTimeServiceStub(server.channel).ComputeDueTime(zagreb_request(),
                                                                      timeout=10)
    line = server.await_log(r"rpc /duetime\.v1\.DueTimeService/ComputeDueTime OK ")
    assert line.rstrip().endswith(f"record_id={answer.record_id} namespace=\"\"")  # OK: no peer
    assert "metrics on" not in "".join(server.stderr)


def test_a_namespace_that_is_none_is_logged_escaped(ops_server):
    """A caller's ``x-duetime-namespace`` that is no namespace (refused by
    the call) cannot write fields or control characters into its line: it
    is logged in JSON quotes, its spaces escaped too."""
    server = ops_server()
    with pytest.raises(grpc.RpcError):
        server.stub.ComputeDueTime(zagreb_request(), timeout=10, metadata=(
            ("x-duetime-namespace", 'a" reason=FAKE record_id=x'),))
    assert server.terminate() == 0
    (line,) = [line for line in server.stderr if "ComputeDueTime INVALID_ARGUMENT" in line]
    assert 'namespace="a\\"\\u0020reason=FAKE\\u0020record_id=x" peer=' in line
    assert line.rstrip().endswith("reason=INVALID_ARGUMENT")

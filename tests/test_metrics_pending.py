"""Finished calls are buffered without a lock and counted at the scrape."""

from __future__ import annotations

from prometheus_client import generate_latest

from duetime.metrics import Metrics

DUE = "/duetime.v1.DueTimeService/ComputeDueTime"


def _samples(metrics: Metrics) -> dict[str, float]:
    text = generate_latest(metrics.registry).decode()
    return {line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1])
            for line in text.splitlines() if line.startswith("duetime_rpc_")}


def test_calls_are_counted_when_the_metrics_are_scraped():
    metrics = Metrics()
    metrics.observe_call(DUE, "OK", 0.0007)
    metrics.observe_call(DUE, "OK", 0.003)
    metrics.observe_call(DUE, "INVALID_ARGUMENT", 0.0002)
    assert len(metrics._pending) == 3  # nothing counted yet, no lock taken
    samples = _samples(metrics)
    assert samples[f'duetime_rpc_requests_total{{code="OK",method="{DUE}"}}'] == 2
    assert samples[f'duetime_rpc_requests_total{{code="INVALID_ARGUMENT",method="{DUE}"}}'] == 1
    assert samples[f'duetime_rpc_duration_seconds_count{{method="{DUE}"}}'] == 3
    assert samples[f'duetime_rpc_duration_seconds_bucket{{le="0.0005",method="{DUE}"}}'] == 1
    assert samples[f'duetime_rpc_duration_seconds_bucket{{le="0.001",method="{DUE}"}}'] == 2
    assert abs(samples[f'duetime_rpc_duration_seconds_sum{{method="{DUE}"}}'] - 0.0039) < 1e-12
    assert not metrics._pending
    metrics.observe_call(DUE, "OK", 0.001)  # counted at the next scrape, once
    assert _samples(metrics)[f'duetime_rpc_requests_total{{code="OK",method="{DUE}"}}'] == 3


def test_the_buffer_is_bounded_the_call_over_it_counts_the_rest():
    metrics = Metrics()
    metrics.MAX_PENDING = 3
    for _ in range(3):
        metrics.observe_call(DUE, "OK", 0.001)
    assert len(metrics._pending) == 3
    metrics.observe_call(DUE, "OK", 0.001)  # the fourth counts the three first
    assert len(metrics._pending) == 1
    assert metrics.requests.labels(DUE, "OK")._value.get() == 3
    assert _samples(metrics)[f'duetime_rpc_requests_total{{code="OK",method="{DUE}"}}'] == 4

"""Cost of evaluating SLA policies with metrics (docs/semantics.md §17).

Run from the repository root: ``python bench/sla_metrics.py``. It prints

- EvaluateSla's core (``evaluate_metrics``) over the example support
  contract (three metrics, two warnings each) for histories of 100, 1,000
  and 10,000 events;
- the cost of one next-action computation (an evaluation of a history of
  four events as of an instant) as the instant moves from a day to ten
  years after the last event: flat, since what falls is computed from each
  clock's deadline, never by walking the time in between.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "service"))

from duetime.bundles import BundleStore  # noqa: E402
from duetime.bundles.policy import PolicyStore  # noqa: E402
from duetime.core import parse_instant, to_us  # noqa: E402
from duetime.core.sla import BusinessEvent  # noqa: E402
from duetime.core.sla_metrics import evaluate_metrics  # noqa: E402

HOUR = 3_600_000_000
CYCLE = ("awaiting_customer", "customer_reply", "agent_reply", "customer_reply")


def history(n: int) -> list[BusinessEvent]:
    t0 = to_us(parse_instant("2026-01-05T08:00:00Z", "t0"))
    return [BusinessEvent("start", t0, {"tier": "normal"})] + [
        BusinessEvent(CYCLE[i % len(CYCLE)], t0 + i * 5 * HOUR) for i in range(1, n)]


def best(fn, repeats: int = 5) -> float:
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        fn()
        times.append(time.perf_counter() - began)
    return min(times)


def main() -> None:
    bundles = BundleStore.load(ROOT / "calendars")
    policy = PolicyStore.load(ROOT / "calendars" / "policies", bundles).resolve_metrics("support-sla")
    print("evaluate_metrics over the support-sla example (3 metrics, 2 warnings each)")
    for n in (100, 1_000, 10_000):
        events = history(n)
        evaluate_metrics(policy, events)  # warm the calendar caches
        s = best(lambda: evaluate_metrics(policy, events), 3)
        print(f"  {n:>6} events: {s * 1000:9.1f} ms  ({s / n * 1e6:6.1f} µs an event)")
    print("one next action (4 events), as of an instant after the last event")
    events = history(4)
    for label, later in (("1 day", 24), ("1 year", 24 * 365), ("10 years", 24 * 3650)):
        as_of = events[-1].at_us + later * HOUR
        evaluate_metrics(policy, events, as_of)
        s = best(lambda: [evaluate_metrics(policy, events, as_of) for _ in range(100)]) / 100
        print(f"  as of {label:>8} later: {s * 1e6:8.1f} µs")


if __name__ == "__main__":
    main()

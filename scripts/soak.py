#!/usr/bin/env python3
"""Soak duetime: a real server under a steady mix of calls for a while.

Starts ``python -m duetime serve`` on 127.0.0.1 (a free port, a SQLite ledger
in a temporary directory, the repository's ``calendars/``; with ``--metrics``
also its Prometheus listener), warms it up, then runs ``--clients`` client
processes, each calling in a closed loop for ``--duration`` seconds a
weighted mix of RPCs (:data:`MIX`):

- ComputeDueTime with inline calendars (64 of them, all used in the warm-up, so
  the server's calendar cache does not grow during the measurement) and with
  bundles (hr-zagreb, us-new-york, de-berlin, gb-england), 30 % with a new
  idempotency key and 10 % replaying a key already used (the same answer
  must come back); every 16th inline call is the Zagreb example, whose answer
  is checked exactly (due 2026-12-02T15:00:00Z);
- ComputeBusinessTime, GetOpenStatus, ComputeSchedule;
- StartClock, then ApplyClockEvent on the state it returned (pause, resume,
  pause, …);
- GetRecord of a record the client was answered, ListCalendars;
- intentional bad requests, each expecting its own status: a bad duration
  (INVALID_ARGUMENT), a start past 2199 (OUT_OF_RANGE), an unknown record
  (NOT_FOUND), a key reused with another request (ALREADY_EXISTS), resuming a
  running clock (FAILED_PRECONDITION).

Network only to 127.0.0.1. It prints throughput, p50/p99/max latency per
RPC, the errors other than the intentional ones (with the first messages),
the server's RSS after the warm-up and at the end, the growth and the peak,
the server's exit code on SIGTERM and the ledger's size. Exit status 0 when
there was no unexpected error, no wrong answer, the server exited 0 and
(with ``--max-rss-growth-mb``) the RSS grew less than that; else 1.

    python scripts/soak.py                                  # 60 s, 4 clients
    python scripts/soak.py --duration 8 --clients 2 --json soak.json
    python scripts/soak.py --metrics --serve-arg=--call-budget=10

RSS is read from ``/proc/PID/status`` (Linux).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import queue
import random
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import grpc
from duetime.v1 import duetime_pb2 as pb
from duetime.v1 import duetime_pb2_grpc as pb_grpc
from google.protobuf import timestamp_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc

ROOT = Path(__file__).resolve().parents[1]
LISTENING = re.compile(r"duetime listening on 127\.0\.0\.1:(\d+)")
CALL_TIMEOUT = 30.0
"""Client deadline of every call, in seconds."""
ZAGREB_DUE = "2026-12-02T15:00:00Z"

MIX = {
    "ComputeDueTime (inline)": 6,
    "ComputeDueTime (bundle)": 3,
    "ComputeBusinessTime": 2,
    "GetOpenStatus": 2,
    "ComputeSchedule": 1,
    "StartClock": 1,
    "ApplyClockEvent": 1,
    "GetRecord": 1,
    "ListCalendars": 1,
    "bad request": 1,
}
"""Relative weights of the operations each client picks from."""

BUNDLES = ["hr-zagreb", "us-new-york", "de-berlin", "gb-england"]
DURATIONS = ["3bd", "8bh", "-1bd", "48h", "P1M", "30m", "7bh30bm", "10bd", "1bd@16:00"]
ZONES = ["Europe/Zagreb", "America/New_York", "Asia/Kathmandu", "UTC"]
HOLIDAY_SETS = 16
BASE = 1767225600  # 2026-01-01T00:00:00Z
SPAN = 2 * 365 * 86400  # starts in 2026–2027


def _ts(seconds: int) -> timestamp_pb2.Timestamp:
    return timestamp_pb2.Timestamp(seconds=seconds)


def inline_calendars() -> list[pb.Calendar]:
    """64 distinct inline calendars: 4 zones × 16 holiday sets."""
    calendars = []
    for zone in ZONES:
        for k in range(HOLIDAY_SETS):
            holidays = [pb.Holiday(date="2026-12-25", name="Christmas Day"),
                        pb.Holiday(date="2026-12-26")]
            holidays += [pb.Holiday(date=f"2027-{1 + k % 12:02d}-{1 + k:02d}", name=f"Day {k}")]
            calendars.append(pb.Calendar(time_zone=zone, holidays=holidays))
    return calendars


def zagreb_request(key: str = "") -> pb.ComputeDueTimeRequest:
    """Friday 2026-11-27 16:00 Zagreb + 3bd, Christmas holidays: due 2026-12-02T15:00:00Z."""
    return pb.ComputeDueTimeRequest(
        start=_ts(1795791600), duration="3bd", idempotency_key=key,
        calendar=pb.Calendar(time_zone="Europe/Zagreb", holidays=[
            pb.Holiday(date="2026-12-25"), pb.Holiday(date="2026-12-26")]))


class Unexpected(Exception):
    """An answer that is wrong (not an RPC error)."""


class Client:
    """One client's loop: its channel, random source, recent records and clock."""

    def __init__(self, address: str, index: int, seed: int):
        self.channel = grpc.insecure_channel(address)
        self.stub = pb_grpc.DueTimeServiceStub(self.channel)
        self.calendars_stub = pb_grpc.CalendarServiceStub(self.channel)
        self.rng = random.Random(seed * 1000 + index)
        self.index = index
        self.seq = 0
        self.inline = inline_calendars()
        self.records: list[str] = []
        self.keys: list[tuple[str, pb.ComputeDueTimeRequest, str]] = []  # key, request, record
        self.clock: pb.ClockState | None = None
        self.bad = 0
        self.inline_calls = 0

    def key(self) -> str:
        self.seq += 1
        return f"soak/{os.getpid()}/{self.index}/{self.seq}"

    def _remember(self, record_id: str) -> None:
        self.records.append(record_id)
        del self.records[:-200]

    # -- operations: each returns the name it is timed under ----------------

    def due_inline(self) -> str:
        rng = self.rng
        self.inline_calls += 1
        if self.inline_calls % 16 == 1:
            request = zagreb_request(self.key())
            response = self.stub.ComputeDueTime(request, timeout=CALL_TIMEOUT)
            if response.due.ToJsonString() != ZAGREB_DUE:
                raise Unexpected(f"Zagreb example answered {response.due.ToJsonString()}")
            self._remember(response.record_id)
            return "ComputeDueTime (inline)"
        if self.keys and rng.random() < 0.1:  # a retry: the first answer comes back
            key, request, record_id = rng.choice(self.keys)
            response = self.stub.ComputeDueTime(request, timeout=CALL_TIMEOUT)
            if response.record_id != record_id:
                raise Unexpected(f"replay of {key} answered record {response.record_id}, "
                                 f"first {record_id}")
            return "ComputeDueTime (inline)"
        key = self.key() if rng.random() < 0.3 else ""
        request = pb.ComputeDueTimeRequest(
            start=_ts(BASE + rng.randrange(SPAN)), duration=rng.choice(DURATIONS),
            calendar=rng.choice(self.inline), idempotency_key=key)
        response = self.stub.ComputeDueTime(request, timeout=CALL_TIMEOUT)
        self._remember(response.record_id)
        if key:
            self.keys.append((key, request, response.record_id))
            del self.keys[:-100]
        return "ComputeDueTime (inline)"

    def due_bundle(self) -> str:
        rng = self.rng
        request = pb.ComputeDueTimeRequest(
            start=_ts(BASE + rng.randrange(SPAN)), duration=rng.choice(DURATIONS),
            calendar=pb.Calendar(bundle=rng.choice(BUNDLES)),
            idempotency_key=self.key() if rng.random() < 0.3 else "")
        self._remember(self.stub.ComputeDueTime(request, timeout=CALL_TIMEOUT).record_id)
        return "ComputeDueTime (bundle)"

    def business_time(self) -> str:
        start = BASE + self.rng.randrange(SPAN)
        request = pb.ComputeBusinessTimeRequest(
            start_time=_ts(start), end_time=_ts(start + self.rng.randrange(30 * 86400)),
            calendar=self.rng.choice(self.inline))
        self._remember(self.stub.ComputeBusinessTime(request, timeout=CALL_TIMEOUT).record_id)
        return "ComputeBusinessTime"

    def open_status(self) -> str:
        calendar = (pb.Calendar(bundle=self.rng.choice(BUNDLES)) if self.rng.random() < 0.5
                    else self.rng.choice(self.inline))
        request = pb.GetOpenStatusRequest(time=_ts(BASE + self.rng.randrange(SPAN)),
                                          calendar=calendar)
        self._remember(self.stub.GetOpenStatus(request, timeout=CALL_TIMEOUT).record_id)
        return "GetOpenStatus"

    def schedule(self) -> str:
        request = pb.ComputeScheduleRequest(
            entered_time=_ts(BASE + self.rng.randrange(SPAN)), calendar=self.rng.choice(self.inline),
            deadlines=[pb.DeadlineSpec(name="remind", duration="2bd"),
                       pb.DeadlineSpec(name="escalate", duration="5bd"),
                       pb.DeadlineSpec(name="final", duration="4bh", after="escalate")])
        response = self.stub.ComputeSchedule(request, timeout=CALL_TIMEOUT)
        if [d.name for d in response.deadlines] != ["remind", "escalate", "final"]:
            raise Unexpected(f"schedule answered {[d.name for d in response.deadlines]}")
        self._remember(response.record_id)
        return "ComputeSchedule"

    def start_clock(self) -> str:
        request = pb.StartClockRequest(target=self.rng.choice(["8bh", "3bd", "48h"]),
                                       calendar=self.rng.choice(self.inline),
                                       start_time=_ts(BASE + self.rng.randrange(SPAN)),
                                       idempotency_key=self.key())
        response = self.stub.StartClock(request, timeout=CALL_TIMEOUT)
        self.clock = response.state
        self._remember(response.record_id)
        return "StartClock"

    def clock_event(self) -> str:
        if self.clock is None or self.clock.status == pb.CLOCK_STATUS_STOPPED:
            return self.start_clock()
        kind = (pb.CLOCK_EVENT_TYPE_PAUSE if self.clock.status == pb.CLOCK_STATUS_RUNNING
                else pb.CLOCK_EVENT_TYPE_RESUME)
        when = self.clock.last_event_time.seconds + 3600 * self.rng.randrange(1, 48)
        request = pb.ApplyClockEventRequest(state=self.clock, event=pb.ClockEvent(
            type=kind, time=_ts(when)), idempotency_key=self.key())
        response = self.stub.ApplyClockEvent(request, timeout=CALL_TIMEOUT)
        self.clock = response.state
        self._remember(response.record_id)
        return "ApplyClockEvent"

    def get_record(self) -> str:
        if not self.records:
            return self.due_inline()
        record_id = self.rng.choice(self.records)
        response = self.stub.GetRecord(pb.GetRecordRequest(record_id=record_id),
                                       timeout=CALL_TIMEOUT)
        if response.record.record_id != record_id:
            raise Unexpected(f"GetRecord {record_id} answered {response.record.record_id}")
        return "GetRecord"

    def list_calendars(self) -> str:
        names = [c.name for c in self.calendars_stub.ListCalendars(
            pb.ListCalendarsRequest(), timeout=CALL_TIMEOUT).calendars]
        if not set(BUNDLES) <= set(names):
            raise Unexpected(f"ListCalendars answered {names}")
        return "ListCalendars"

    def bad_request(self) -> tuple[str, grpc.StatusCode, Callable[[], object]]:
        """The next intentional bad request: its name, the status it must
        get, and the call that sends it."""
        self.bad += 1
        stub = self.stub
        kind = self.bad % 5
        if kind == 0:
            request = zagreb_request()
            request.duration = "3xy"
            return ("bad duration", grpc.StatusCode.INVALID_ARGUMENT,
                    lambda: stub.ComputeDueTime(request, timeout=CALL_TIMEOUT))
        if kind == 1:
            request = zagreb_request()
            request.start.seconds = 7258118400 + 86400  # 2200-01-02
            return ("start past 2199", grpc.StatusCode.OUT_OF_RANGE,
                    lambda: stub.ComputeDueTime(request, timeout=CALL_TIMEOUT))
        if kind == 2:
            return ("unknown record", grpc.StatusCode.NOT_FOUND,
                    lambda: stub.GetRecord(pb.GetRecordRequest(record_id="0" * 32),
                                           timeout=CALL_TIMEOUT))
        if kind == 3:
            first, other = zagreb_request(self.key()), zagreb_request(self.key())
            other.idempotency_key, other.duration = first.idempotency_key, "4bd"

            def reuse():
                stub.ComputeDueTime(first, timeout=CALL_TIMEOUT)
                stub.ComputeDueTime(other, timeout=CALL_TIMEOUT)

            return "key reused", grpc.StatusCode.ALREADY_EXISTS, reuse

        def resume_running():
            started = stub.StartClock(pb.StartClockRequest(target="8bh", start_time=_ts(BASE)),
                                      timeout=CALL_TIMEOUT)
            stub.ApplyClockEvent(pb.ApplyClockEventRequest(state=started.state, event=pb.ClockEvent(
                type=pb.CLOCK_EVENT_TYPE_RESUME, time=_ts(BASE + 60))), timeout=CALL_TIMEOUT)

        return "resume a running clock", grpc.StatusCode.FAILED_PRECONDITION, resume_running


OPERATIONS = {
    "ComputeDueTime (inline)": Client.due_inline,
    "ComputeDueTime (bundle)": Client.due_bundle,
    "ComputeBusinessTime": Client.business_time,
    "GetOpenStatus": Client.open_status,
    "ComputeSchedule": Client.schedule,
    "StartClock": Client.start_clock,
    "ApplyClockEvent": Client.clock_event,
    "GetRecord": Client.get_record,
    "ListCalendars": Client.list_calendars,
}


def run_client(address: str, index: int, seed: int, start_at: float, stop_at: float,
               results: multiprocessing.Queue) -> None:
    """One client process: the closed loop from ``start_at`` to ``stop_at``
    (``time.time()``); puts its latencies (µs) by RPC and its counts on
    ``results``."""
    client = Client(address, index, seed)
    names, weights = list(MIX), list(MIX.values())
    latencies: dict[str, list[int]] = defaultdict(list)
    unexpected: list[str] = []
    unexpected_count = 0
    intentional: dict[str, int] = defaultdict(int)
    wrong = 0
    time.sleep(max(0.0, start_at - time.time()))
    while time.time() < stop_at:
        name = client.rng.choices(names, weights)[0]
        began = time.perf_counter()
        try:
            if name == "bad request":
                what, expected, send = client.bad_request()
                try:
                    send()
                except grpc.RpcError as error:
                    if error.code() != expected:
                        raise
                    intentional[what] += 1
                    latencies[name].append(int((time.perf_counter() - began) * 1e6))
                    continue
                raise Unexpected(f"bad request {what!r} was answered; expected {expected.name}")
            timed = OPERATIONS[name](client)
            latencies[timed].append(int((time.perf_counter() - began) * 1e6))
        except grpc.RpcError as error:
            unexpected_count += 1
            if len(unexpected) < 10:
                unexpected.append(f"{name}: {error.code().name}: {error.details()}")
        except Unexpected as exc:
            wrong += 1
            if len(unexpected) < 10:
                unexpected.append(f"{name}: wrong answer: {exc}")
    client.channel.close()
    results.put({"latencies": dict(latencies), "unexpected": unexpected,
                 "unexpected_count": unexpected_count, "wrong": wrong,
                 "intentional": dict(intentional)})


# ---------------------------------------------------------------------------
# the server


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_kib(pid: int) -> int:
    """Resident set size of process ``pid`` in KiB (``/proc/PID/status`` VmRSS)."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for pid {pid}")


class Server:
    """``python -m duetime serve`` on 127.0.0.1:0 with its stderr drained."""

    def __init__(self, db: Path, calendars: Path, extra: list[str]):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "duetime", "serve", "--port", "0", "--db", str(db),
             "--calendars", str(calendars), *extra],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.stderr: list[str] = []
        threading.Thread(target=self._drain, daemon=True).start()
        deadline = time.monotonic() + 60
        port = None
        while port is None:
            try:
                line = self.lines.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                line = None
            if line is None:
                self.proc.kill()
                raise RuntimeError("the server did not start:\n" + "".join(self.stderr))
            if match := LISTENING.search(line):
                port = int(match.group(1))
        self.address = f"127.0.0.1:{port}"
        with grpc.insecure_channel(self.address) as channel:
            health = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service="duetime.v1.DueTimeService"),
                timeout=60, wait_for_ready=True)
        if health.status != health_pb2.HealthCheckResponse.SERVING:
            raise RuntimeError(f"health: {health}")

    def _drain(self) -> None:
        for line in self.proc.stderr:
            self.stderr.append(line)
            self.lines.put(line)
        self.lines.put(None)

    def stop(self, timeout: float = 30.0) -> tuple[int | None, float]:
        """SIGTERM; the exit code (None if it had to be killed) and seconds taken."""
        began = time.monotonic()
        self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            code = None
        return code, time.monotonic() - began


def warm_up(address: str, seconds: float, seed: int) -> int:
    """Every inline calendar and every operation at least once, then the mix
    for ``seconds`` in this process; returns the number of calls."""
    client = Client(address, 999, seed)
    calls = 0
    for calendar in client.inline:
        client.stub.ComputeDueTime(pb.ComputeDueTimeRequest(
            start=_ts(BASE), duration="3bd", calendar=calendar), timeout=CALL_TIMEOUT)
        client.stub.GetOpenStatus(pb.GetOpenStatusRequest(time=_ts(BASE), calendar=calendar),
                                  timeout=CALL_TIMEOUT)
        calls += 2
    stop_at = time.monotonic() + seconds
    first = True
    while first or time.monotonic() < stop_at:
        for operation in OPERATIONS.values():
            operation(client)
            calls += 1
        first = False
    client.channel.close()
    return calls


def percentile(sorted_values: list[int], q: float) -> float:
    """The ``q`` quantile (0..1) by the nearest-rank method, in ms."""
    if not sorted_values:
        return float("nan")
    rank = min(max(1, math.ceil(q * len(sorted_values))), len(sorted_values))
    return sorted_values[rank - 1] / 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of load (default 60)")
    parser.add_argument("--clients", type=int, default=4, help="client processes (default 4)")
    parser.add_argument("--warmup", type=float, default=3.0,
                        help="seconds of warm-up before the RSS baseline (default 3)")
    parser.add_argument("--seed", type=int, default=1, help="random seed of the mix (default 1)")
    parser.add_argument("--metrics", action="store_true",
                        help="start the server with --metrics-port (a free port) and scrape it at the end")
    parser.add_argument("--serve-arg", action="append", default=[], metavar="ARG",
                        help="one more argument for 'duetime serve' (repeatable), e.g. --serve-arg=--call-budget=10")
    parser.add_argument("--calendars", type=Path, default=ROOT / "calendars",
                        help="bundles directory (default: the repository's calendars/)")
    parser.add_argument("--max-rss-growth-mb", type=float, default=None,
                        help="fail (exit 1) when the server's RSS grows by this much or more")
    parser.add_argument("--json", type=Path, default=None, help="also write the results as JSON here")
    args = parser.parse_args(argv)
    if args.duration <= 0 or args.clients < 1:
        parser.error("--duration must be > 0 and --clients >= 1")

    with tempfile.TemporaryDirectory(prefix="duetime-soak-") as tmp:
        db = Path(tmp) / "ledger.db"
        extra = list(args.serve_arg)
        metrics_port = None
        if args.metrics:
            metrics_port = free_port()
            extra += ["--metrics-port", str(metrics_port)]
        load_before = os.getloadavg()
        server = Server(db, args.calendars, extra)
        try:
            warm_calls = warm_up(server.address, args.warmup, args.seed)
            rss_start = rss_kib(server.proc.pid)
            rss_peak = rss_start
            ctx = multiprocessing.get_context("spawn")
            results = ctx.Queue()
            start_at = time.time() + 2.0  # the client processes start (and import) meanwhile
            stop_at = start_at + args.duration
            workers = [ctx.Process(target=run_client, args=(server.address, i, args.seed,
                                                            start_at, stop_at, results))
                       for i in range(args.clients)]
            for worker in workers:
                worker.start()
            collected = []
            timeline = [(0.0, rss_start)]  # (seconds into the load, KiB), every 10 s
            while len(collected) < len(workers):
                try:
                    collected.append(results.get(timeout=1.0))
                except queue.Empty:
                    if time.time() > stop_at + CALL_TIMEOUT + 30:
                        raise RuntimeError("client processes did not report") from None
                if server.proc.poll() is None:
                    rss = rss_kib(server.proc.pid)
                    rss_peak = max(rss_peak, rss)
                    into = time.time() - start_at
                    if into >= timeline[-1][0] + 10 and time.time() < stop_at:
                        timeline.append((into, rss))
            for worker in workers:
                worker.join(timeout=30)
            rss_end = rss_kib(server.proc.pid)
            rss_peak = max(rss_peak, rss_end)
            metrics_note = "off"
            if metrics_port is not None:
                with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10) as r:
                    text = r.read().decode()
                samples = [line for line in text.splitlines() if line and not line.startswith("#")]
                metrics_note = f"scraped http://127.0.0.1:{metrics_port}/metrics: {len(samples)} samples"
        finally:
            exit_code, stop_seconds = server.stop()
        ledger_mb = sum(f.stat().st_size for f in Path(tmp).glob("ledger.db*")) / 1e6
        log_errors = [line.strip() for line in server.stderr if " ERROR " in line or "Traceback" in line]
    load_after = os.getloadavg()

    latencies: dict[str, list[int]] = defaultdict(list)
    unexpected: list[str] = []
    intentional: dict[str, int] = defaultdict(int)
    unexpected_count = wrong = 0
    for result in collected:
        for name, values in result["latencies"].items():
            latencies[name].extend(values)
        unexpected += result["unexpected"]
        unexpected_count += result["unexpected_count"]
        wrong += result["wrong"]
        for name, count in result["intentional"].items():
            intentional[name] += count
    total = sum(len(v) for v in latencies.values())
    rows = []
    for name in [*MIX]:
        values = sorted(latencies.get(name, []))
        rows.append({"rpc": name, "calls": len(values), "per_second": len(values) / args.duration,
                     "p50_ms": percentile(values, 0.50), "p99_ms": percentile(values, 0.99),
                     "max_ms": values[-1] / 1000 if values else float("nan")})
    growth_mb = (rss_end - rss_start) / 1024
    failed_reasons = []
    if unexpected_count:
        failed_reasons.append(f"{unexpected_count} unexpected error(s)")
    if wrong:
        failed_reasons.append(f"{wrong} wrong answer(s)")
    if exit_code != 0:
        failed_reasons.append(f"server exit code {exit_code}")
    if log_errors:
        failed_reasons.append(f"{len(log_errors)} ERROR line(s) in the server log")
    if args.max_rss_growth_mb is not None and growth_mb >= args.max_rss_growth_mb:
        failed_reasons.append(f"RSS grew {growth_mb:.1f} MB (bound {args.max_rss_growth_mb} MB)")

    out = [
        f"duetime soak: {args.duration:g} s of load, {args.clients} client process(es), seed {args.seed}; "
        f"server {server.address} (SQLite ledger in a temporary directory"
        f"{', ' + ' '.join(extra) if extra else ''}); {os.cpu_count()} CPUs, "
        f"load average {load_before[0]:.2f} before, {load_after[0]:.2f} after",
        f"warm-up: {warm_calls} calls ({args.warmup:g} s + every inline calendar once)",
        f"calls: {total} ({total / args.duration:.1f}/s); unexpected errors: {unexpected_count}; "
        f"wrong answers: {wrong}; intentional bad requests: {sum(intentional.values())}, each "
        f"refused with its expected status ({', '.join(f'{k} {v}' for k, v in sorted(intentional.items()))})",
        "",
        f"{'RPC':<26}{'calls':>8}{'calls/s':>10}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}",
    ]
    for row in rows:
        out.append(f"{row['rpc']:<26}{row['calls']:>8}{row['per_second']:>10.1f}"
                   f"{row['p50_ms']:>9.2f}{row['p99_ms']:>9.2f}{row['max_ms']:>9.1f}")
    out += [
        "",
        f"server RSS: {rss_start / 1024:.1f} MB after warm-up, {rss_end / 1024:.1f} MB at the end "
        f"({growth_mb:+.1f} MB, {100 * (rss_end - rss_start) / rss_start:+.1f} %), "
        f"peak {rss_peak / 1024:.1f} MB; during the load: "
        + ", ".join(f"{t:.0f} s {kib / 1024:.1f}" for t, kib in timeline) + " MB",
        f"server exit: {exit_code} on SIGTERM after {stop_seconds:.2f} s; ledger {ledger_mb:.1f} MB; "
        f"ERROR lines in its log: {len(log_errors)}",
        f"metrics: {metrics_note}",
    ]
    out += [f"  unexpected: {line}" for line in unexpected[:10]]
    out += [f"  log: {line}" for line in log_errors[:10]]
    out.append("result: " + ("FAILED: " + "; ".join(failed_reasons) if failed_reasons else "ok"))
    print("\n".join(out))
    if args.json:
        args.json.write_text(json.dumps({
            "duration_s": args.duration, "clients": args.clients, "seed": args.seed,
            "calls": total, "calls_per_second": total / args.duration, "rpcs": rows,
            "unexpected_errors": unexpected_count, "unexpected": unexpected, "wrong_answers": wrong,
            "intentional_bad_requests": dict(intentional),
            "rss_start_kib": rss_start, "rss_end_kib": rss_end, "rss_peak_kib": rss_peak,
            "rss_timeline_kib": timeline,
            "rss_growth_mb": growth_mb, "server_exit_code": exit_code, "log_errors": log_errors,
            "ok": not failed_reasons, "failed": failed_reasons,
        }, indent=2))
    return 1 if failed_reasons else 0


if __name__ == "__main__":
    sys.exit(main())

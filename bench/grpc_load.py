#!/usr/bin/env python3
"""Load client for the gRPC section of ``compare.py``: one measurement, as JSON on stdout.

Run as its own process (``compare.py`` starts it), so the client's GIL and
the server's are separate, and every measurement — the bare grpcio server's
floor included — is taken by the same client the same way::

    python grpc_load.py ADDRESS MODE --seconds S --concurrency N [--batch-size B] [--channels C]
    python grpc_load.py ADDRESS stream --items N --message-items M

MODE:
- ``health``: ``grpc.health.v1.Health/Check`` (of ``bare_server.py``: the transport's floor;
  of ``duetime serve``: the same call through duetime's interceptors);
- ``due``: ``ComputeDueTime``, the Zagreb 3bd example, no idempotency key (each answer recorded);
- ``batch``: ``BatchComputeDueTimes`` with B items per call;
- ``stream``: one ``StreamComputeDueTimes`` of N items in messages of M items.

Closed loop: N threads, each sending its next call when the previous one
returned, over C channels (default 1; thread k uses channel k mod C), each
on a TCP connection of its own — ``duetime serve --workers N`` hands each
connection to one worker, so C ≥ N is what lets every worker take calls; for ``--warmup`` s (not counted) then ``--seconds`` s. Prints calls,
seconds, calls/s, p50 and p99 latency (ms), errors, and ``calls_with_warmup``
(every call made, to divide the server's CPU time by).
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time

import grpc
from duetime.v1 import duetime_pb2 as pb
from duetime.v1 import duetime_pb2_grpc as pb_grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

OPTIONS = [("grpc.max_receive_message_length", 64 << 20), ("grpc.max_send_message_length", 64 << 20)]


def zagreb(offset_s: int = 0) -> pb.ComputeDueTimeRequest:
    """Friday 2026-11-27 16:00 Zagreb (+ ``offset_s``) + 3bd, Christmas and St. Stephen's Day off."""
    request = pb.ComputeDueTimeRequest(
        duration="3bd",
        calendar=pb.Calendar(time_zone="Europe/Zagreb",
                             holidays=[pb.Holiday(date="2026-12-25"), pb.Holiday(date="2026-12-26")]),
    )
    request.start.FromSeconds(1795791600 + offset_s)  # 2026-11-27T15:00:00Z
    return request


def closed_loop(calls, seconds: float, warmup: float, concurrency: int) -> dict:
    """``calls``: one callable, or a list of them (thread k calls ``calls[k % len]``)."""
    calls = calls if isinstance(calls, list) else [calls]
    start_at = time.perf_counter() + warmup
    stop_at = start_at + seconds
    lat: list[list[float]] = [[] for _ in range(concurrency)]
    errors = [0] * concurrency
    sent = [0] * concurrency
    first_error: list[str] = []

    def worker(k: int) -> None:
        mine = lat[k]
        call = calls[k % len(calls)]
        while True:
            t0 = time.perf_counter()
            if t0 >= stop_at:
                return
            try:
                call()
            except grpc.RpcError as exc:
                errors[k] += 1
                if not first_error:
                    first_error.append(f"{exc.code()}: {exc.details()}")
            t1 = time.perf_counter()
            sent[k] += 1
            if t0 >= start_at:
                mine.append(t1 - t0)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(concurrency)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = max(time.perf_counter(), stop_at) - start_at
    all_lat = sorted(x for xs in lat for x in xs)
    n = len(all_lat)

    def pct(p: float) -> float:
        return all_lat[min(n - 1, int(p * n))] * 1000 if n else float("nan")

    return {"calls": n, "seconds": elapsed, "calls_per_s": n / elapsed, "p50_ms": pct(0.50),
            "p99_ms": pct(0.99), "errors": sum(errors), "first_error": first_error[:1],
            "calls_with_warmup": sum(sent)}


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("address")
    p.add_argument("mode", choices=["health", "due", "batch", "stream"])
    p.add_argument("--seconds", type=float, default=8.0)
    p.add_argument("--warmup", type=float, default=1.0)
    p.add_argument("--concurrency", type=int, default=16)
    p.add_argument("--batch-size", type=int, default=1000)
    p.add_argument("--items", type=int, default=100_000)
    p.add_argument("--message-items", type=int, default=1000)
    p.add_argument("--channels", type=int, default=1,
                   help="channels (TCP connections) the threads share out, default 1")
    args = p.parse_args()
    # each its own connection: a local subchannel pool, not grpc's process-wide one
    channels = [grpc.insecure_channel(args.address, options=OPTIONS + [
        ("grpc.use_local_subchannel_pool", 1)]) for _ in range(args.channels)]
    for each in channels:
        grpc.channel_ready_future(each).result(timeout=30)
    channel = channels[0]
    stub = pb_grpc.DueTimeServiceStub(channel)
    if args.mode == "health":
        health = health_pb2_grpc.HealthStub(channel)
        request = health_pb2.HealthCheckRequest(service="")
        result = closed_loop(lambda: health.Check(request, timeout=30), args.seconds, args.warmup,
                             args.concurrency)
    elif args.mode == "due":
        request = zagreb()
        calls = [lambda s=pb_grpc.DueTimeServiceStub(c): s.ComputeDueTime(request, timeout=30)
                 for c in channels]
        result = closed_loop(calls, args.seconds, args.warmup, args.concurrency)
    elif args.mode == "batch":
        request = pb.BatchComputeDueTimesRequest(items=[zagreb(60 * i) for i in range(args.batch_size)])

        def call():
            reply = stub.BatchComputeDueTimes(request, timeout=60)
            bad = sum(1 for r in reply.results if r.WhichOneof("result") != "response")
            if bad:
                raise RuntimeError(f"{bad} items failed")

        result = closed_loop(call, args.seconds, args.warmup, args.concurrency)
        result["items_per_s"] = result["calls_per_s"] * args.batch_size
    else:
        messages = [pb.StreamComputeDueTimesRequest(
            items=[zagreb(60 * (m * args.message_items + i)) for i in range(args.message_items)])
            for m in range(4)]
        count = args.items // args.message_items

        def requests():
            for m in range(count):
                yield messages[m % len(messages)]

        received = errors = 0
        t0 = time.perf_counter()
        for chunk in stub.StreamComputeDueTimes(requests(), timeout=600):
            received += len(chunk.results)
            errors += sum(1 for r in chunk.results if r.WhichOneof("result") != "response")
        elapsed = time.perf_counter() - t0
        result = {"items": received, "seconds": elapsed, "items_per_s": received / elapsed,
                  "errors": errors}
    for each in channels:
        each.close()
    json.dump(result, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The transport's floor for the gRPC section of ``compare.py``: a bare grpcio server.

It imports no duetime code: ``grpc.server(ThreadPoolExecutor(16))`` with
nothing registered but ``grpc.health.v1.Health`` (grpcio-health-checking's
own ``HealthServicer``, the overall status "" SERVING), no interceptors, on
127.0.0.1. ``compare.py`` starts it as its own process and measures its
``Health/Check`` with the same load client (``grpc_load.py … health``), the
same concurrency and the same durations as duetime's calls, so that every
ratio in the section is against what grpcio alone gives on this machine::

    python bare_server.py [--port 0] [--workers 16] [--aio | --core [--record FILE]]

``--aio``: grpcio's asynchronous server instead (``grpc.aio.server()``, an
``async def`` Check answering SERVING, one thread): not what ``compare.py``
measures, but the way to see, with the same client, whether the
asynchronous server would lower the floor's cost on a machine.

``--core``: the same threaded server, also serving
``duetime.v1.DueTimeService/ComputeDueTime`` answered by duetime's core
alone — the request's calendar (time zone and holidays; the default week)
built once per distinct calendar, ``parse_duration``, ``add_us``, the due
instant and its local time (no record id or versions) — with none of
duetime's service around it: no interceptors, no limits, no record.
``compare.py`` measures it as (f2): what grpcio and duetime's core alone
give for this answer in that run. ``--record FILE`` (with ``--core``): each
of those answers is also stored, before it is returned, in a SQLite ledger
at FILE (duetime's own ledger and group commit: WAL, synchronous=FULL, one
row a call with its request and response bytes): (f3), what grpcio, the
core and duetime's ledger alone give; ``compare.py`` prints (b) ÷ (f3).
Only with these flags does the process import duetime code.

Prints ``bare grpcio listening on 127.0.0.1:PORT`` on stdout once it serves
(``--port 0``: a free port chosen by the system), then serves until SIGTERM
or SIGINT, and stops with a 1 s grace.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--port", type=int, default=0, help="TCP port on 127.0.0.1 (0: any free port)")
    p.add_argument("--workers", type=int, default=16, help="threads of the server's ThreadPoolExecutor")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--aio", action="store_true", help="grpc.aio's asynchronous server instead")
    mode.add_argument("--core", action="store_true",
                      help="also ComputeDueTime, answered by duetime's core alone")
    p.add_argument("--record", metavar="FILE",
                   help="with --core: store each answer in a SQLite ledger at FILE before returning it")
    args = p.parse_args()
    if args.record is not None and not args.core:
        p.error("--record needs --core")
    if args.aio:
        return asyncio.run(_serve_aio(args.port))

    server = grpc.server(ThreadPoolExecutor(max_workers=args.workers))
    servicer = health.HealthServicer()
    servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    if args.core:
        _add_core_due_time(server, args.record)  # None: nothing recorded
    port = server.add_insecure_port(f"127.0.0.1:{args.port}")
    if not port:
        print(f"bare grpcio: cannot bind 127.0.0.1:{args.port}", file=sys.stderr)
        return 1
    server.start()

    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    print(f"bare grpcio listening on 127.0.0.1:{port}", flush=True)
    stop.wait()
    server.stop(1).wait()
    return 0


def _add_core_due_time(server: grpc.Server, record: str | None = None) -> None:
    """``--core``: ComputeDueTime answered by duetime's core alone (see the
    module docstring); any other field of the request is ignored. ``record``:
    the SQLite file each answer is stored in before it is returned (None:
    none)."""
    from functools import lru_cache

    from duetime.core import Calendar, parse_duration
    from duetime.core.engine import add_us
    from duetime.core.zones import format_local
    from duetime.v1 import duetime_pb2 as pb
    from duetime.v1 import duetime_pb2_grpc as pb_grpc

    @lru_cache(maxsize=64)
    def calendar(message: bytes) -> Calendar:
        given = pb.Calendar.FromString(message)
        return Calendar.from_text(given.time_zone,
                                  holidays=[(h.date, h.name) for h in given.holidays])

    duration = lru_cache(maxsize=64)(parse_duration)
    commit = None
    if record is not None:
        from duetime.ledger import GroupCommit, LedgerRow, new_record_id
        from duetime.ledger.sqlite import SqliteLedger

        commit = GroupCommit(SqliteLedger(record))

    class CoreDueTime(pb_grpc.DueTimeServiceServicer):
        def ComputeDueTime(self, request, context):  # noqa: N802 (gRPC's method name)
            cal = calendar(request.calendar.SerializeToString(deterministic=True))
            start = request.start.seconds * 1_000_000 + request.start.nanos // 1000
            due_us = add_us(start, duration(request.duration), cal.compiled)
            response = pb.ComputeDueTimeResponse(time_zone=cal.time_zone,
                                                 due_local=format_local(due_us, cal.zone))
            response.due.seconds, micros = divmod(due_us, 1_000_000)
            response.due.nanos = micros * 1000
            if commit is not None:
                commit.put(LedgerRow.create(
                    record_id=new_record_id(), method="ComputeDueTime",
                    receive_time_us=time.time_ns() // 1000, idempotency_key="", request=request.SerializeToString(deterministic=True),
                    response=response.SerializeToString(deterministic=True),
                    calendar_version="", rules_version="", tzdata_version=""))
            return response

    pb_grpc.add_DueTimeServiceServicer_to_server(CoreDueTime(), server)


class _AsyncHealth(health_pb2_grpc.HealthServicer):
    async def Check(self, request, context):  # noqa: N802 (gRPC's method name)
        return health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.SERVING)


async def _serve_aio(port: int) -> int:
    server = grpc.aio.server()
    health_pb2_grpc.add_HealthServicer_to_server(_AsyncHealth(), server)
    port = server.add_insecure_port(f"127.0.0.1:{port}")
    if not port:
        print("bare grpcio: cannot bind", file=sys.stderr)
        return 1
    await server.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    print(f"bare grpcio listening on 127.0.0.1:{port}", flush=True)
    await stop.wait()
    await server.stop(1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

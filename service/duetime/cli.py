"""The ``duetime`` command line: a second thin face on :mod:`duetime.app`.

Commands::

    duetime serve [--host 127.0.0.1] [--port 50051] [--db PATH]
    duetime due START DURATION [--tz ZONE] [--holiday DATE[=NAME] ...]
                [--weekend sat,sun] [--hours "mon-fri 09:00-17:00" ...]
                [--server HOST:PORT] [--key KEY] [--json]
    duetime record ID --server HOST:PORT

``due`` without ``--server`` computes locally and records nothing; with it,
the server computes and records, and the record id is printed. START is
RFC 3339 with an offset (seconds optional): ``2026-11-27T16:00+01:00``.

Day specs (``--weekend``, ``--hours``) are comma lists of days or day ranges:
``mon-fri``, ``sat,sun``, ``mon,wed-fri``; ``--weekend none`` means no weekend.
``--hours`` is ``DAYS HH:MM-HH:MM[,HH:MM-HH:MM...]`` and may repeat.

Exit codes: 0 success; 2 bad input or usage (each problem printed as
``error: FIELD: DESCRIPTION``); 1 any other failure (server unreachable,
ledger unavailable, unknown record, idempotency key reused).
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Iterable

import grpc
from google.protobuf import json_format
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from duetime import tzdb  # noqa: F401 - first: pins zoneinfo to the tzdata package
from duetime.app import compute
from duetime.core import DuetimeError, InvalidArgument, parse_instant
from duetime.ledger import LedgerUnavailable
from duetime.v1 import duetime_pb2 as pb
from duetime.v1 import duetime_pb2_grpc as pb_grpc

DAYS = {"mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6, "sun": 7}
RPC_TIMEOUT = 30.0
"""Seconds a CLI call to the server may take."""
NOT_RECORDED = "computed locally, not recorded"
_BAD_INPUT = (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.OUT_OF_RANGE)


def parse_days(text: str, field: str) -> list[int]:
    """ISO weekdays of a day spec: ``"mon-fri"`` → [1..5], ``"sat,sun"`` → [6, 7].

    A range may wrap (``fri-mon`` → [5, 6, 7, 1]). Raises InvalidArgument on ``field``.
    """
    days: list[int] = []
    for part in text.lower().split(","):
        first, dash, last = part.strip().partition("-")
        if first not in DAYS or (dash and last not in DAYS):
            raise InvalidArgument.at(
                field, f"{part.strip()!r} is not a day or a day range (mon..sun, e.g. mon-fri)"
            )
        a, b = DAYS[first], DAYS[last] if dash else DAYS[first]
        days += [(a - 1 + i) % 7 + 1 for i in range((b - a) % 7 + 1)]
    return days


def parse_hours(specs: Iterable[str]) -> pb.WorkingHours:
    """Weekly hours from ``--hours`` specs such as ``"mon-fri 09:00-12:00,13:00-17:00"``.

    Intervals given for one day by several specs are joined; times are checked
    by the core. Raises InvalidArgument on field ``--hours``.
    """
    by_day: dict[int, list[pb.TimeInterval]] = {}
    for spec in specs:
        days_text, _, intervals_text = spec.strip().partition(" ")
        intervals = [item.strip().partition("-") for item in intervals_text.split(",")]
        if not all(start and dash and end for start, dash, end in intervals):
            raise InvalidArgument.at(
                "--hours", f"{spec!r} is not DAYS HH:MM-HH:MM[,HH:MM-HH:MM...]"
            )
        for day in parse_days(days_text, "--hours"):
            by_day.setdefault(day, []).extend(
                pb.TimeInterval(start=start, end=end) for start, _, end in intervals
            )
    return pb.WorkingHours(
        days=[pb.DayHours(weekday=day, intervals=iv) for day, iv in sorted(by_day.items())]
    )


def build_request(args: argparse.Namespace) -> pb.ComputeDueTimeRequest:
    """The ComputeDueTimeRequest that ``duetime due`` arguments describe."""
    calendar = pb.Calendar(
        time_zone=args.tz or "",
        holidays=[
            pb.Holiday(date=date, name=name)
            for date, _, name in (h.partition("=") for h in args.holiday)
        ],
    )
    if args.weekend is not None:
        spec = args.weekend.strip().lower()
        days = [] if spec in ("", "none") else parse_days(spec, "--weekend")
        calendar.weekend.SetInParent()
        calendar.weekend.days.extend(days)
    if args.hours:
        calendar.working_hours.CopyFrom(parse_hours(args.hours))
    request = pb.ComputeDueTimeRequest(
        duration=args.duration, calendar=calendar, idempotency_key=args.key or ""
    )
    request.start.FromDatetime(parse_instant(args.start, "start"))
    return request


def _stub(server: str) -> tuple[grpc.Channel, pb_grpc.DueTimeServiceStub]:
    channel = grpc.insecure_channel(server)
    return channel, pb_grpc.DueTimeServiceStub(channel)


def cmd_due(args: argparse.Namespace) -> int:
    request = build_request(args)
    if args.server:
        channel, stub = _stub(args.server)
        with channel:
            response = stub.ComputeDueTime(request, timeout=RPC_TIMEOUT)
    else:
        response = compute(request)
    if args.json:
        print(json_format.MessageToJson(response))
        if not response.record_id:
            print(NOT_RECORDED, file=sys.stderr)
        return 0
    print(f"due:       {response.due_local} ({response.time_zone})")
    print(f"due (UTC): {response.due.ToJsonString()}")
    print(f"record:    {response.record_id or 'none, ' + NOT_RECORDED}")
    print(f"versions:  calendar {response.calendar_version}, rules {response.rules_version}, "
          f"tzdata {response.tzdata_version}")
    return 0


def cmd_record(args: argparse.Namespace) -> int:
    channel, stub = _stub(args.server)
    with channel:
        reply = stub.GetRecord(pb.GetRecordRequest(record_id=args.id), timeout=RPC_TIMEOUT)
    print(json_format.MessageToJson(reply.record))
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from duetime.api.server import serve

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    try:
        serve(args.host, args.port, args.db)
    except (LedgerUnavailable, RuntimeError) as exc:  # cannot open the ledger or bind
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


def _violations(error: grpc.RpcError) -> list[error_details_pb2.BadRequest.FieldViolation]:
    """The BadRequest field violations in a failed call's rich status, if any."""
    status = rpc_status.from_call(error)
    found = []
    for detail in status.details if status else ():
        bad_request = error_details_pb2.BadRequest()
        if detail.Unpack(bad_request):
            found += bad_request.field_violations
    return found


def _report(violations) -> int:
    for v in violations:
        print(f"error: {v.field}: {v.description}", file=sys.stderr)
    return 2


def parser() -> argparse.ArgumentParser:
    """The argument parser of the ``duetime`` command."""
    top = argparse.ArgumentParser(prog="duetime", description="Business-calendar due times.")
    sub = top.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the gRPC service")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=50051, help="0 picks a free port")
    serve.add_argument("--db", help="SQLite ledger path (default: user data dir)")
    serve.set_defaults(run=cmd_serve)

    due = sub.add_parser("due", help="compute START + DURATION")
    due.add_argument("start", help="RFC 3339 instant with offset, e.g. 2026-11-27T16:00+01:00")
    due.add_argument("duration", help="e.g. 3bd, 8bh, 90m, P1M")
    due.add_argument("--tz", help="IANA time zone (default UTC)")
    due.add_argument("--holiday", action="append", default=[], metavar="DATE[=NAME]")
    due.add_argument("--weekend", metavar="DAYS", help="e.g. sat,sun or fri-sat; none: no weekend")
    due.add_argument("--hours", action="append", metavar='"DAYS HH:MM-HH:MM[,...]"')
    due.add_argument("--server", metavar="HOST:PORT", help="compute and record on this server")
    due.add_argument("--key", help="idempotency key (with --server)")
    due.add_argument("--json", action="store_true", help="print the response as JSON")
    due.set_defaults(run=cmd_due)

    record = sub.add_parser("record", help="print a stored record as JSON")
    record.add_argument("id")
    record.add_argument("--server", metavar="HOST:PORT", required=True)
    record.set_defaults(run=cmd_record)
    return top


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit code (see module docstring)."""
    args = parser().parse_args(argv)
    try:
        return args.run(args)
    except DuetimeError as exc:
        return _report(exc.violations)
    except grpc.RpcError as exc:
        if exc.code() in _BAD_INPUT and (violations := _violations(exc)):
            return _report(violations)
        print(f"error: {exc.code().name}: {exc.details()}", file=sys.stderr)
        return 1

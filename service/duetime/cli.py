"""The ``duetime`` command line: a second thin face on :mod:`duetime.app`.

Commands::

    duetime serve [--host 127.0.0.1] [--port 50051] [--db PATH_OR_URL] [--calendar-cache N]
                  [--calendars DIR] [--watch SECONDS] [--http-port PORT]
                  [--tls-cert FILE --tls-key FILE [--tls-client-ca FILE]] [--auth-tokens FILE]
                  [--metrics-port PORT [--metrics-host HOST]] [--log-format text|json]
                  [--grace S] [--max-message-bytes N] [--max-batch-items N] [--call-budget S]
                  [--workers N]
                  (each also a DUETIME_* variable: duetime.config)
    duetime health --server HOST:PORT [--service NAME] [--timeout S] [CONNECTION]
    duetime due START DURATION [--at-close WHEN] [--roll ROLL] [--landing-time TIME] [--explain]
                [CALENDAR] [CALL]
    duetime between START END [--explain] [CALENDAR] [CALL]
    duetime open TIME [--last-run] [CALENDAR] [CALL]
    duetime periods START END [--page-size N] [--page-token TOKEN] [CALENDAR] [CALL]
    duetime count FROM TO [CALENDAR] [CALL]
    duetime schedule ENTERED --deadline NAME=DURATION[@after:NAME] ...
                [--at-close WHEN] [--explain] [CALENDAR] [CALL]
    duetime clock start TARGET --at TIME [--warn THRESHOLD ...] [CALENDAR] [CALL]
    duetime clock apply STATE_JSON_FILE EVENT --at TIME [--target T] [--anchor start] [--warn THRESHOLD ...] [CALL]
    duetime sla evaluate POLICY EVENTS_JSON_FILE [CALL]
    duetime batch FILE.jsonl [--server HOST:PORT [CONNECTION]] [--namespace NS] [--out FILE]
                [--chunk N] [--calendars DIR]
    duetime --version
    duetime record ID [--server HOST:PORT | --db PATH_OR_URL]
    duetime records export [--since TIME] [--until TIME] [--key-prefix P]
                [--namespace NS] [--server HOST:PORT | --db PATH_OR_URL] [--output FILE]
    duetime records verify [--server HOST:PORT | --db PATH_OR_URL]
    duetime records replay [--since TIME] [--until TIME] [--key-prefix P] [--namespace NS]
                [--server HOST:PORT | --db PATH_OR_URL] [--calendars DIR]
    duetime records impact [--calendar NAME@NEW] [--tzdata] [--since TIME] [--until TIME]
                [--namespace NS] [--limit N] [--server HOST:PORT | --db PATH_OR_URL
                [--calendars DIR]] [--json]
    duetime calendars compile|check|list [--dir DIR]   (--calendars DIR: the same flag)
    duetime calendars holidays NAME[@VERSION] [--from DATE] [--to DATE]
                [--server HOST:PORT | --dir DIR] [--json]
    duetime calendars list --server HOST:PORT
    duetime calendars diff NAME@VERSION NAME@VERSION [--dir DIR]
    duetime calendars policies [NAME[@VERSION]] [--server HOST:PORT | --dir DIR] [--json]
    duetime calendars periods NAME[@VERSION] --from DATE --to DATE [--format csv|jsonl]
                [--server HOST:PORT | --dir DIR]

    CALENDAR: --calendar NAME[@VERSION] [--holiday DATE[=NAME] ...]
              (a bundle, plus extra holidays), or inline: [--tz ZONE] [--holiday DATE[=NAME] ...] [--weekend sat,sun]
              [--hours "mon-fri 09:00-17:00" ...]
              [--override DATE=HH:MM-HH:MM[,HH:MM-HH:MM][=NAME] ...]
              [--override DATE=closed[=NAME] ...] [--extra-day DATE[=NAME] ...]
              [--holidays-valid-until DATE] [--week-period "FROM[: PART; ...]" ...]
    CALL:     [--server HOST:PORT [CONNECTION]] [--key KEY] [--namespace NS] [--json]
              [--calendars DIR]
    CONNECTION: [--timeout S] [--tls] [--tls-ca FILE] [--tls-cert FILE --tls-key FILE]
              [--token TOKEN]
              (every command with --server; the token defaults to $DUETIME_TOKEN)

Without ``--server`` a command computes locally (the same use-case code as the
service, without the ledger) and says that nothing was recorded; with it, the
server computes and records, and the record id is printed. Every call to a
server goes through :class:`duetime.client.DuetimeClient`, and its refusals
are printed from the client's errors; the flags' text forms are read by
:mod:`duetime.parsing`, which the client shares. Instants are
RFC 3339 with an offset (seconds optional, at most 6 fractional digits):
``2026-11-27T16:00+01:00``, checked by :func:`check_instant_text`. A negative
duration is a positional argument like any other (``duetime due TIME -1bd``).
A duration typed here always has a unit (``2`` is refused, listing them: over
the API a bare integer is milliseconds, docs/semantics.md §2). An empty flag
value (``--tz ""``, ``--server ""``, …: :data:`EMPTY_REFUSED`) is refused
naming the flag, so an unset shell variable never changes the answer;
``--server`` is ``HOST:PORT`` (or a gRPC target such as ``dns:///host:port``),
never a URL nor a host without ``:PORT``. A client command first asks the
server's health within :data:`CONNECT_TIMEOUT` seconds and, when that
fails, says why in words (:func:`unreachable_advice`) and exits 1 at once.
``--namespace ""`` is refused. Bundles named by ``--calendar`` come from the server, or locally
from ``--calendars DIR`` (default ``$DUETIME_CALENDARS``, else
``./calendars``); when there is none the error says where it looked.

``serve`` refuses, before it opens anything, a calendars directory without
any compiled bundle or policy, a SQLite ``--db`` in a directory that does not
exist (exit 2) and a port another process listens on (exit 1), each naming
the flag (or ``DUETIME_*`` variable) to change.

Day specs (``--weekend``, ``--hours``) are comma lists of days or day ranges:
``mon-fri``, ``sat,sun``, ``mon,wed-fri``; ``--weekend none`` means no weekend.
``--hours`` is ``DAYS HH:MM-HH:MM[,HH:MM-HH:MM...]`` and may repeat; a
one-digit hour (``9:00``) is read as ``09:00``.

``clock start`` and ``clock apply`` print the clock's state as protobuf JSON
(the record and versions go to stderr), so the output of one is the
STATE_JSON_FILE of the next (``-`` reads it from stdin). ``sla evaluate``
reads a JSON list of ``{"type", "time", "attributes"}`` and prints the
timeline as a table.

The ledger commands read the server's records (``--server``, through
GetRecord, ListRecords and AnalyzeImpact) or the store itself (``--db``: a
SQLite path or a ``postgresql://`` URL, default ``$DUETIME_DB``, else the
default SQLite path). ``--since``/``--until`` select records by the time the
server received the call. ``records export`` writes JSON Lines, one Record a
line in the protobuf JSON mapping; ``records verify`` checks every row (it
parses, its hashes match) and exits 1 naming each bad record; ``records replay``
recomputes every selected record under the versions it names and prints one
line per record whose response differs or that cannot be replayed here, then
``replayed N records: N same, N differ, N not replayable`` (exit 1 unless all
are the same); ``records impact`` lists
the due times a newer bundle version (or the tz database) would move,
changing nothing.

Warnings are printed to stderr as ``warning: ...``. Exit codes: 0 success;
2 bad input, usage (a ``serve`` setting or connection flag that cannot be
used included) or a clock event the state does not allow (each problem
printed as ``error: FIELD: DESCRIPTION``);
1 any other failure (server unreachable, ledger unavailable, unknown record,
idempotency key reused, calendars that do not load, a failed
``calendars check``, ``records verify`` or ``records replay``, an address already in use, a
``health`` status other than SERVING).
Output cut short by a closed pipe (``| head``) ends quietly with 141.
"""

from __future__ import annotations

import argparse
import errno
import json
import logging
import os
import re
import socket
import sys
import time
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from datetime import date, datetime, timedelta, timezone
from datetime import time as dt_time
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as package_version
from pathlib import Path

import grpc
from google.protobuf import json_format
from google.protobuf.message import DecodeError, Message

from duetime import bundles, parsing, tzdb
from duetime.api.status import code_name
from duetime.api.convert import (
    BUSINESS_TIME,
    CLOCK_EVENT,
    COUNT_BUSINESS_DAYS,
    LIST_OPEN_PERIODS,
    DUE_TIME,
    EVALUATE_SLA,
    OPEN_STATUS,
    SCHEDULE,
    START_CLOCK,
    WireMethod,
    calendars_listing,
    holidays_query,
    holidays_to_proto,
    landed_duration,
    local_date,
    message_dict,
    message_json,
    record_filter,
    record_of,
    request_from_json,
)
from duetime.app import RecordNotFound, check_namespace
from duetime.app.limits import (
    MAX_BATCH_CALENDAR_WEIGHT,
    MAX_EXPLANATION_WEIGHT,
    calendar_weight,
    explanation_weight,
)
from duetime.app.catalog_reads import PolicyNotFound
from duetime.api.convert import policies_listing, policy_to_proto
from duetime.bundles.policy import check_policies, compile_policies
from duetime.catalog import ENV_DIR, Catalog, CatalogError, default_dir, fingerprint, policies_dir
from duetime.channels import TOKEN_ENV, ChannelError, ConnectionOptions
from duetime.client import Deadline, DuetimeClient
from duetime.client import DuetimeError as CallError
from duetime.compose import build_app
from duetime.impact import analyze as analyze_impact
from duetime.config import (
    SETTINGS,
    ConfigError,
    ServerConfig,
    argument_type,
    parse_positive_seconds,
)
from duetime.config import resolve as resolve_config
from duetime.core import (
    RULES_VERSION,
    DuetimeError,
    FieldViolation,
    InvalidArgument,
    fmt_amount,
    get_zone,
    parse_instant,
    resolve_local,
)
from duetime.ledger import (
    MAX_PAGE_SIZE,
    Ledger,
    LedgerRow,
    LedgerUnavailable,
    default_db_path,
    open_ledger,
    postgres_url,
)
from duetime.ledger.rows import row_problems, sha256_hex
from duetime.replay import Summary, replay, row_of
from duetime.v1 import duetime_pb2 as pb

DAYS = parsing.DAYS
RPC_TIMEOUT = 30.0
"""Seconds a CLI call to the server may take."""
NOT_RECORDED = "computed locally, not recorded"
AT_CLOSE = {"end-of-window": pb.AT_CLOSE_END_OF_WINDOW, "next-open": pb.AT_CLOSE_NEXT_OPEN}
ROLLS = {"following": pb.ROLL_FOLLOWING, "preceding": pb.ROLL_PRECEDING,
         "modified-following": pb.ROLL_MODIFIED_FOLLOWING, "modified-preceding": pb.ROLL_MODIFIED_PRECEDING}
AFTER = parsing.AFTER
"""Separator of a ``--deadline`` that is chained after another one."""
_BAD_INPUT = (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.OUT_OF_RANGE,
              grpc.StatusCode.FAILED_PRECONDITION)
ADMIN_TIMEOUT = 300.0
"""Seconds a ``records`` call to the server may take (an analysis reads the ledger)."""
_PIPE_CLOSED = 141
"""Exit code when the reader of stdout went away (128 + SIGPIPE, as the shell shows)."""

# ---------------------------------------------------------------------------
# instants, strictly RFC 3339 (the core's parser is more lenient)


def _parsed(parse, *args):
    """``parse(*args)`` (a :mod:`duetime.parsing` parser); its SpecError as an
    InvalidArgument on the same field."""
    try:
        return parse(*args)
    except parsing.SpecError as exc:
        raise InvalidArgument.at(exc.field, exc.description) from None


def check_instant_text(text: str, field: str) -> None:
    """Refuse what is not an RFC 3339 instant (``YYYY-MM-DDTHH:MM[:SS[.f]]``
    with 1–6 fractional digits, then ``Z`` or ``±HH:MM``; seconds optional for
    convenience) with an InvalidArgument on ``field`` saying what is wrong —
    before :func:`duetime.core.parse_instant`, which also reads other ISO 8601
    forms (basic format, week dates, comma fractions, 7+ digits truncated)."""
    _parsed(parsing.check_instant_text, text, field)


def instant(text: str, field: str):
    """The aware UTC datetime of RFC 3339 ``text`` (see :func:`check_instant_text`)."""
    check_instant_text(text, field)
    return parse_instant(text, field)



# ---------------------------------------------------------------------------
# calendar flags (shared by every computing command)


def parse_days(text: str, field: str) -> list[int]:
    """ISO weekdays of a day spec: ``"mon-fri"`` → [1..5], ``"sat,sun"`` → [6, 7].

    A range may wrap (``fri-mon`` → [5, 6, 7, 1]). Raises InvalidArgument on ``field``.
    """
    return _parsed(parsing.parse_days, text, field)


def _intervals(intervals: Iterable[parsing.Interval]) -> list[pb.TimeInterval]:
    return [pb.TimeInterval(start=start, end=end) for start, end in intervals]


def parse_intervals(text: str, field: str, spec: str) -> list[pb.TimeInterval]:
    """``"09:00-12:00,13:00-17:00"`` → TimeIntervals; the times themselves are
    checked by the core. Raises InvalidArgument on ``field`` quoting ``spec``."""
    return _intervals(_parsed(parsing.parse_intervals, text, field, spec))


def parse_hours(specs: Iterable[str]) -> pb.WorkingHours:
    """Weekly hours from ``--hours`` specs such as ``"mon-fri 09:00-12:00,13:00-17:00"``.

    Intervals given for one day by several specs are joined; times are checked
    by the core. Raises InvalidArgument on field ``--hours``.
    """
    return pb.WorkingHours(days=[
        pb.DayHours(weekday=day, intervals=_intervals(intervals))
        for day, intervals in _parsed(parsing.parse_hours, specs, "--hours")])


def parse_override(spec: str) -> pb.DateOverride:
    """``DATE=closed[=NAME]`` or ``DATE=HH:MM-HH:MM[,HH:MM-HH:MM][=NAME]``.

    The date is checked by the core. Raises InvalidArgument on ``--override``.
    """
    override = _parsed(parsing.parse_override, spec, "--override")
    if override.closed:
        return pb.DateOverride(date=override.date, closed=True, name=override.name)
    return pb.DateOverride(date=override.date, intervals=_intervals(override.intervals),
                           name=override.name)


def _named(specs: Iterable[str]) -> list[tuple[str, str]]:
    """``DATE[=NAME]`` specs → (date, name) pairs."""
    return [parsing.parse_named_date(spec) for spec in specs]


def parse_week_period(spec: str) -> pb.WeekPeriod:
    """``FROM[: PART; PART ...]``, a week from date FROM on (docs/semantics.md §16):
    each PART is ``weekend DAYS`` (or ``weekend none``) or weekly hours as for
    ``--hours`` (``mon-fri 08:00-18:00``); a period without a weekend part has
    Saturday + Sunday, one without hours 09:00–17:00 on its other days (the
    defaults, not the previous week's). Raises InvalidArgument on ``--week-period``."""
    week = _parsed(parsing.parse_week_period, spec, "--week-period")
    period = pb.WeekPeriod(from_date=week.from_date)
    if week.weekend is not None:
        period.weekend.SetInParent()
        period.weekend.days.extend(week.weekend)
    if week.hours is not None:
        period.working_hours.CopyFrom(pb.WorkingHours(days=[
            pb.DayHours(weekday=day, intervals=_intervals(intervals))
            for day, intervals in week.hours]))
    return period


# Calendar flags that describe an inline calendar, so cannot go with --calendar.
INLINE_FLAGS = ("tz", "weekend", "hours", "override", "extra_day", "holidays_valid_until", "week_period")


def calendar_from_args(args: argparse.Namespace) -> pb.Calendar | None:
    """The Calendar that a command's calendar flags describe (see :func:`_calendar_flags`),
    or None when no calendar flag is given: the request then carries no
    calendar at all, as the same call over HTTP or the typed client does, so
    one call is one request whatever face sends it.

    ``--calendar`` names a bundle, to which ``--holiday`` adds holidays; any
    other calendar flag beside it is an InvalidArgument naming the flag, and
    so is an empty name or version (``--calendar ""``, ``name@``).
    """
    if args.calendar is not None:
        check_bundle_ref(args.calendar, "--calendar")
        beside = [f"--{name.replace('_', '-')}" for name in INLINE_FLAGS
                  if getattr(args, name) not in (None, [])]
        if beside:
            raise InvalidArgument([
                FieldViolation(flag, f"the calendar comes from bundle {args.calendar!r}; "
                                     f"leave {flag} out (only --holiday adds to a bundle)")
                for flag in beside
            ])
    calendar = pb.Calendar(
        bundle=args.calendar or "",
        time_zone=args.tz or "",
        holidays=[pb.Holiday(date=d, name=n) for d, n in _named(args.holiday)],
        date_overrides=[parse_override(spec) for spec in args.override],
        extra_working_days=[pb.ExtraWorkingDay(date=d, name=n) for d, n in _named(args.extra_day)],
        holidays_valid_until=args.holidays_valid_until or "",
        week_periods=[parse_week_period(spec) for spec in getattr(args, "week_period", None) or ()],
    )
    if args.weekend is not None:
        days = _parsed(parsing.parse_weekend, args.weekend, "--weekend")
        calendar.weekend.SetInParent()
        calendar.weekend.days.extend(days)
    if args.hours:
        calendar.working_hours.CopyFrom(parse_hours(args.hours))
    return calendar if calendar.ByteSize() else None


def check_bundle_ref(ref: str, flag: str) -> None:
    """``NAME`` or ``NAME@VERSION``, neither part empty; else InvalidArgument on ``flag``."""
    _parsed(parsing.check_bundle_ref, ref, flag)


def parse_deadline(spec: str) -> pb.DeadlineSpec:
    """``NAME=DURATION`` or ``NAME=DURATION@after:OTHER`` → DeadlineSpec.

    The duration itself may hold ``@`` (``1bd@16:00``); only a trailing
    ``@after:OTHER`` chains. Raises InvalidArgument on ``--deadline``.
    """
    name, duration, after = _parsed(parsing.parse_deadline, spec, "--deadline")[:3]
    check_duration_text(duration, "--deadline")
    return pb.DeadlineSpec(name=name, duration=duration, after=after)


def check_duration_text(text: str, field: str) -> None:
    """Refuse a duration typed without a unit (``2``): over the API a bare
    integer is milliseconds (docs/semantics.md §2), which a person typing
    ``2`` hardly means. InvalidArgument on ``field`` listing the units."""
    _parsed(parsing.check_duration_text, text, field)


# ---------------------------------------------------------------------------
# running a call (locally or on a server) and showing its answer


def connection_from_args(args: argparse.Namespace) -> ConnectionOptions:
    """The connection flags of a command (``--tls``, ``--tls-ca``,
    ``--tls-cert``, ``--tls-key``, ``--token``, else ``$DUETIME_TOKEN``).
    ChannelError when ``$DUETIME_TOKEN`` is set but empty."""
    token = getattr(args, "token", None)
    if token is None:
        token = os.environ.get(TOKEN_ENV)
        if token is not None and not token.strip():  # as $(cat missing-file) leaves it
            raise ChannelError(f"${TOKEN_ENV}", "is set but empty: set it to the bearer token, "
                                                "or unset it to call without one")
    return ConnectionOptions(
        tls=bool(getattr(args, "tls", False)), tls_ca=getattr(args, "tls_ca", None),
        tls_cert=getattr(args, "tls_cert", None), tls_key=getattr(args, "tls_key", None),
        token=token)


def _client(args: argparse.Namespace, timeout: float,
            namespace: str | None = None, probe: bool = True) -> DuetimeClient:
    """A client of ``--server`` connected as the command's connection flags
    say (:func:`connection_from_args`), each call taking at most ``--timeout``
    seconds when given, else ``timeout``, in idempotency ``namespace`` (None:
    the default one). With ``probe``, the server is first asked for its
    health within :data:`CONNECT_TIMEOUT` seconds, so a server that cannot be
    reached fails the command at once (ServerUnreachable, saying why in
    words: :func:`unreachable_advice`) rather than after the retries of the
    whole timeout. Raises ChannelError for a connection flag that cannot be
    used, InvalidArgument on ``--server`` for an address that is not
    ``HOST:PORT`` (a URL, no port)."""
    _parsed(parsing.check_server_address, args.server, "--server")
    options = connection_from_args(args)
    timeout = getattr(args, "timeout", None) or timeout
    duetime = DuetimeClient(args.server, timeout, namespace=namespace, tls=options.tls,
                            tls_ca=options.tls_ca, tls_cert=options.tls_cert,
                            tls_key=options.tls_key, token=options.token)
    if probe:
        connect = min(CONNECT_TIMEOUT, timeout)
        try:
            duetime.health(timeout=connect)
        except CallError as exc:
            if exc.code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
                duetime.close()
                raise ServerUnreachable(unreachable_advice(exc, args.server, options,
                                                           connect)) from None
    return duetime


CONNECT_TIMEOUT = 3.0
"""Seconds a client command waits for the server to answer its first call
(a health check, never retried) before it gives up."""


class ServerUnreachable(Exception):
    """``--server`` cannot be reached; the message says why and what to do."""


def unreachable_advice(exc: CallError, server: str, options: ConnectionOptions,
                       waited: float) -> str:
    """Why a call to ``server`` failed before reaching duetime, in words,
    from the failed call's ``exc`` (UNAVAILABLE or DEADLINE_EXCEEDED): the
    usual causes (nothing listening, an HTTP/1.x server such as the
    HTTP/JSON port, TLS on one side only, a client certificate the server
    requires) each with what to change; else gRPC's own details."""
    details = " ".join((exc.details or "").split())
    lowered = details.lower()
    tls = options.uses_tls
    if exc.code == grpc.StatusCode.DEADLINE_EXCEEDED:
        why = (f"no answer within {waited:g} s: the address may be wrong or a firewall drops "
               "the connection; check HOST:PORT (or raise --timeout)")
    elif "connection refused" in lowered:
        why = ("nothing is listening there: is duetime serve running, and on which port? "
               "(its gRPC port, --port, default 50051)")
    elif "http/2" in lowered or "http1" in lowered:
        why = ("an HTTP/1.x server answered: that is probably duetime's HTTP/JSON port "
               "(serve --http-port), for browsers and curl; give the gRPC port (serve --port, "
               "default 50051)")
    elif tls and "wrong_version_number" in lowered:
        why = "the server does not use TLS: leave out --tls and --tls-ca (and --tls-cert)"
    elif tls and "certificate_verify_failed" in lowered:
        why = ("the server's certificate is not trusted: give --tls-ca the CA that issued it "
               "(a certificate issued for another host name fails the same way)")
    elif tls and not options.tls_cert and ("socket closed" in lowered
                                           or "certificate_required" in lowered
                                           or "handshake" in lowered):
        why = ("the server closed the TLS connection: it may require a client certificate; "
               "add --tls-cert FILE and --tls-key FILE")
    elif "socket closed" in lowered or "connection reset" in lowered:
        why = ("the server closed the connection: it may use TLS; add --tls-ca CA.pem (or "
               "--tls for a publicly issued certificate), and for a server requiring client "
               "certificates also --tls-cert FILE and --tls-key FILE")
    else:
        why = details or exc.code.name
    return f"--server: cannot reach duetime's gRPC service at {server}: {why}"


def _utc(timestamp) -> datetime:
    """A Timestamp as an aware UTC datetime."""
    return timestamp.ToDatetime(tzinfo=timezone.utc)


def _given(message: Message, field: str):
    """``message``'s ``field`` when it is set, else None."""
    return getattr(message, field) if message.HasField(field) else None


_AT_CLOSE_NAMES = {value: name for name, value in AT_CLOSE.items()}


def _ask(duetime: DuetimeClient, request: Message) -> Message:
    """The server's response to a request the computing commands build, asked
    through the typed call of its method with every field of ``request``."""
    key = request.idempotency_key
    if isinstance(request, pb.ComputeDueTimeRequest):
        # a landing rule given as --roll / --landing-time travels in the text (docs/semantics.md §15)
        answer = duetime.compute_due_time(
            _utc(request.start), landed_duration(request.duration, request.roll, request.landing_time),
            _given(request, "calendar"),
            at_close=_AT_CLOSE_NAMES.get(request.at_close, ""), explain=request.explain,
            idempotency_key=key)
    elif isinstance(request, pb.ComputeBusinessTimeRequest):
        answer = duetime.business_time(
            _utc(request.start_time), _utc(request.end_time), _given(request, "calendar"),
            explain=request.explain, idempotency_key=key)
    elif isinstance(request, pb.GetOpenStatusRequest):
        answer = duetime.open_status(_utc(request.time), _given(request, "calendar"),
                                     idempotency_key=key,
                                     include_last_run=request.include_last_run)
    elif isinstance(request, pb.ComputeScheduleRequest):
        answer = duetime.compute_schedule(
            _utc(request.entered_time),
            [Deadline(d.name, d.duration, d.after, pb.Roll.Name(d.roll) if d.roll else "",
                      d.landing_time) for d in request.deadlines],
            _given(request, "calendar"), at_close=_AT_CLOSE_NAMES.get(request.at_close, ""),
            explain=request.explain, idempotency_key=key)
    elif isinstance(request, pb.StartClockRequest):
        answer = duetime.start_clock(request.target, _utc(request.start_time),
                                     _given(request, "calendar"), idempotency_key=key,
                                     warning_thresholds=request.warning_thresholds)
    elif isinstance(request, pb.ApplyClockEventRequest):
        event = request.event
        answer = duetime.apply_clock_event(
            request.state, EVENT_NAMES[event.type], _utc(event.time), target=event.target,
            anchor=ANCHOR_NAMES.get(event.anchor, ""), idempotency_key=key,
            warning_thresholds=request.warning_thresholds)
    elif isinstance(request, pb.EvaluateSlaRequest):
        evaluation = duetime.evaluate_sla(request.policy, request.events, idempotency_key=key,
                                          as_of=_utc(request.as_of_time) if request.HasField("as_of_time") else None)
        return evaluation.clock.recorded.message
    elif isinstance(request, pb.ListOpenPeriodsRequest):
        answer = duetime.list_open_periods(
            _utc(request.start_time), _utc(request.end_time), _given(request, "calendar"),
            page_size=request.page_size, page_token=request.page_token, idempotency_key=key)
    elif isinstance(request, pb.CountBusinessDaysRequest):
        answer = duetime.count_business_days(request.from_date, request.to_date,
                                             _given(request, "calendar"), idempotency_key=key)
    else:
        raise TypeError(f"no call of the client asks {type(request).__name__}")
    return answer.recorded.message


def _catalog(directory: str | None) -> Catalog:
    """The calendars under ``directory`` (default: :func:`default_dir`; none: empty).
    Raises CatalogError."""
    root = Path(directory) if directory else default_dir()
    return Catalog.load(root) if root else Catalog.empty()


def _root(directory: str | None) -> Path | None:
    """The calendars directory a local command reads: ``directory``, else
    :func:`default_dir` (None: there is none)."""
    return Path(directory) if directory else default_dir()


def warn_no_bundles(catalog: Catalog, directory: str | None) -> None:
    """When ``catalog`` holds no bundle at all, say so on stderr (``warning:``)
    with where duetime looked and how to point it: why every record that names
    a bundle was "not replayable"."""
    if not catalog.bundles.names():
        print("warning: records that name a calendar bundle cannot be replayed: "
              + no_bundles_message(_root(directory), server=False), file=sys.stderr)


def no_bundles_message(root: Path | None, flag: str = "--calendars", server: bool = True) -> str:
    """Why no bundle can be found locally, saying where duetime looked and how
    to point it at a calendars directory (``flag`` or ``$DUETIME_CALENDARS``)."""
    if root is None or (str(root) == "calendars" and not root.is_dir()):
        where = (f"${ENV_DIR} is not set and there is no calendars directory in "
                 f"{Path.cwd()}")
    elif not root.is_dir():
        where = f"{root} is not a directory" + (
            "" if root.is_absolute() else f" (in {Path.cwd()})")
    else:
        where = f"{root} holds no compiled bundle ({root}/compiled/NAME/versions.txt)"
    return (f"no calendar bundles found: {where}; give {flag} DIR or set {ENV_DIR}=DIR, DIR "
            "a calendars directory such as the duetime repository's calendars/ (sources "
            "NAME.toml compiled into compiled/NAME/ by duetime calendars compile)"
            + (", or ask a server with --server HOST:PORT" if server else ""))


def _bundles_catalog(directory: str | None, flag: str = "--calendars") -> Catalog:
    """As :func:`_catalog`, for a command that needs bundles or policies:
    CatalogError saying where it looked (:func:`no_bundles_message`) when
    there is no calendars directory, or one without any compiled version."""
    root = Path(directory) if directory else default_dir()
    if root is None or not root.is_dir() or not fingerprint(root):
        raise CatalogError(no_bundles_message(root, flag))
    return Catalog.load(root)


def _needs_catalog(request: Message) -> bool:
    """Whether computing ``request`` locally needs the calendars directory:
    it names a bundle, or a policy."""
    if isinstance(request, pb.EvaluateSlaRequest):
        return True
    state = getattr(request, "state", None)
    return bool((state or request).calendar.bundle)


def _run(method: WireMethod, request: Message, args: argparse.Namespace) -> Message:
    """The answer to ``request``: from the server with ``--server``, else locally
    (with the bundles and policies of ``--calendars`` when the request names one)."""
    request.idempotency_key = args.key or ""
    namespace = _namespace(args)  # checked without --server too
    if not args.server:
        catalog = (_bundles_catalog(args.calendars) if _needs_catalog(request)
                   else Catalog.empty())
        return build_app(None, catalog).answer(method, request)
    with _client(args, RPC_TIMEOUT, namespace) as duetime:
        return _ask(duetime, request)


def _namespace(args: argparse.Namespace) -> str | None:
    """The idempotency namespace of ``--namespace``, None when not given
    (checked here, so the error names the flag)."""
    namespace = getattr(args, "namespace", None)
    if namespace is None:
        return None
    if not namespace.strip():  # an unset shell variable must not mean the default namespace
        raise InvalidArgument.at("--namespace", "is empty; give a namespace (1-64 characters "
                                                "of A-Z a-z 0-9 . _ -), or leave --namespace "
                                                "out for the default one")
    try:
        check_namespace(namespace)
    except InvalidArgument as exc:
        raise InvalidArgument.at("--namespace", exc.violations[0].description) from None
    return namespace


def _local(ts, zone_name: str) -> str:
    """RFC 3339 text of a Timestamp in the answer's zone."""
    return ts.ToDatetime(tzinfo=timezone.utc).astimezone(get_zone(zone_name)).isoformat()


def steps_table(steps: Sequence[pb.ExplanationStep]) -> list[str]:
    """Explanation steps as a plain-text table: number, kind, amount, step."""
    rows = [("#", "kind", "amount", "step")] + [
        (str(i), s.kind, fmt_amount(s.amount.ToMicroseconds()) if s.HasField("amount") else "",
         s.text)
        for i, s in enumerate(steps, start=1)
    ]
    widths = [max(len(row[c]) for row in rows) for c in range(3)]
    return [
        f"  {n:>{widths[0]}}  {kind:<{widths[1]}}  {amount:>{widths[2]}}  {text}".rstrip()
        for n, kind, amount, text in rows
    ]


def table(rows: Sequence[Sequence[str]]) -> list[str]:
    """Rows as left-aligned columns two spaces apart; the last column is not
    padded (it may be long text)."""
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]) - 1)]
    return ["  ".join([f"{cell:<{w}}" for cell, w in zip(row, widths)] + [row[-1]]).rstrip()
            for row in rows]


def _labelled(fields: list[tuple[str, str]], file=None) -> None:
    """``fields`` as aligned ``label: value`` lines."""
    width = max(len(label) for label, _ in fields) + 2
    for label, value in fields:
        print(f"{label + ':':<{width}}{value}", file=file)


def _record_fields(response: Message) -> list[tuple[str, str]]:
    return [
        ("record", response.record_id or f"none, {NOT_RECORDED}"),
        ("versions", f"calendar {response.calendar_version}, rules {response.rules_version}, "
                     f"tzdata {response.tzdata_version}"),
    ]


def _show(
    args: argparse.Namespace,
    response: Message,
    fields: list[tuple[str, str]],
    explanations: Sequence[tuple[str, Sequence[pb.ExplanationStep]]] = (),
) -> int:
    """Print an answer: ``fields`` as aligned ``label: value`` lines, then the
    record and versions, then each non-empty explanation; warnings to stderr.
    With ``--json`` the whole response as JSON instead."""
    for warning in response.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if args.json:
        print(message_json(response))
        if not response.record_id:
            print(NOT_RECORDED, file=sys.stderr)
        return 0
    _labelled(fields + _record_fields(response))
    for title, steps in explanations:
        if steps:
            print(f"{title}:")
            print("\n".join(steps_table(steps)))
    return 0


def _set_instant(request: Message, field: str, text: str, name: str | None = None) -> None:
    """Set Timestamp ``field`` from RFC 3339 ``text`` (:func:`instant`); errors
    name ``name`` (default ``field``)."""
    getattr(request, field).FromDatetime(instant(text, name or field))


def cmd_due(args: argparse.Namespace) -> int:
    check_duration_text(args.duration, "duration")
    if args.roll or args.landing_time:  # refused here, naming the flags (docs/semantics.md §15)
        landed_duration(args.duration, ROLLS.get(args.roll, pb.ROLL_UNSPECIFIED), args.landing_time or "",
                        "duration", "--roll", "--landing-time")
    request = pb.ComputeDueTimeRequest(
        duration=args.duration, calendar=calendar_from_args(args),
        at_close=AT_CLOSE.get(args.at_close, pb.AT_CLOSE_UNSPECIFIED), explain=args.explain,
        roll=ROLLS.get(args.roll, pb.ROLL_UNSPECIFIED), landing_time=args.landing_time or "",
    )
    _set_instant(request, "start", args.start)
    response = _run(DUE_TIME, request, args)
    return _show(args, response, [
        ("due", f"{response.due_local} ({response.time_zone})"),
        ("due (UTC)", response.due.ToJsonString()),
    ], [("explanation", response.explanation)])


def cmd_between(args: argparse.Namespace) -> int:
    request = pb.ComputeBusinessTimeRequest(calendar=calendar_from_args(args), explain=args.explain)
    _set_instant(request, "start_time", args.start)
    _set_instant(request, "end_time", args.end)
    response = _run(BUSINESS_TIME, request, args)
    return _show(args, response, [
        ("business time", fmt_amount(response.business_time.ToMicroseconds())),
        ("business days", str(response.business_days)),
        ("time zone", response.time_zone),
    ], [("explanation", response.explanation)])


def cmd_open(args: argparse.Namespace) -> int:
    request = pb.GetOpenStatusRequest(calendar=calendar_from_args(args),
                                      include_last_run=args.last_run)
    _set_instant(request, "time", args.time)
    response = _run(OPEN_STATUS, request, args)
    tz = response.time_zone
    interval = response.current_interval
    fields = [
        ("open", f"yes, {_local(interval.start_time, tz)} – {_local(interval.end_time, tz)}"
                 if response.open else "no"),
        ("local date", f"{response.local_date} ({tz}), " + (
            "a business day" if response.business_day
            else f"not a business day: {response.closed_reason}")),
    ]
    edges = [("next close", "next_close_time"), ("next open", "next_open_time")]
    for label, field in edges if response.open else edges[::-1]:  # in time order
        when = _local(getattr(response, field), tz) if response.HasField(field) else "none"
        fields.append((label, when))
    if args.last_run:  # the last opening and closing (docs/semantics.md §9.1)
        for label, field in (("last open", "last_open_time"), ("last close", "last_close_time")):
            fields.append((label, _local(getattr(response, field), tz)
                           if response.HasField(field) else "none"))
    return _show(args, response, fields)


def cmd_schedule(args: argparse.Namespace) -> int:
    request = pb.ComputeScheduleRequest(
        calendar=calendar_from_args(args),
        deadlines=[parse_deadline(spec) for spec in args.deadline],
        at_close=AT_CLOSE.get(args.at_close, pb.AT_CLOSE_UNSPECIFIED), explain=args.explain,
    )
    _set_instant(request, "entered_time", args.entered)
    response = _run(SCHEDULE, request, args)
    fields = [
        (d.name, f"{d.due_local} = {d.due_time.ToJsonString()}"
                 + f" ({d.after or 'entered'} + {spec.duration})")
        for d, spec in zip(response.deadlines, request.deadlines)
    ]
    next_due = next(d for d in response.deadlines if d.name == response.next_due)
    fields.append(("next due", f"{response.next_due} at {next_due.due_local}"))
    return _show(args, response, fields,
                 [(f"explanation of {d.name}", d.explanation) for d in response.deadlines])


# ---------------------------------------------------------------------------
# calendar queries (docs/semantics.md §9.1): duetime periods, duetime count,
# duetime calendars periods


def cmd_periods(args: argparse.Namespace) -> int:
    """``duetime periods START END``: one page of open periods, one line each."""
    request = pb.ListOpenPeriodsRequest(calendar=calendar_from_args(args),
                                        page_size=args.page_size, page_token=args.page_token or "")
    _set_instant(request, "start_time", args.start)
    _set_instant(request, "end_time", args.end)
    response = _run(LIST_OPEN_PERIODS, request, args)
    tz = response.time_zone
    total = sum(p.end_time.ToMicroseconds() - p.start_time.ToMicroseconds() for p in response.periods)
    rows = [("local date", "open", "close", "length")] + [
        (p.local_date, p.start_local, p.end_local,
         fmt_amount(p.end_time.ToMicroseconds() - p.start_time.ToMicroseconds()))
        for p in response.periods]
    fields = [("periods", f"{len(response.periods)} ({tz}), {fmt_amount(total)} of open time")]
    if response.next_page_token:
        fields.append(("next page", f"--page-token {response.next_page_token}"))
    if not args.json and response.periods:
        print("\n".join(table(rows)))
    return _show(args, response, fields)


def cmd_count(args: argparse.Namespace) -> int:
    """``duetime count FROM TO``: the business days of a local date range."""
    request = pb.CountBusinessDaysRequest(calendar=calendar_from_args(args),
                                          from_date=args.first, to_date=args.last)
    response = _run(COUNT_BUSINESS_DAYS, request, args)
    return _show(args, response, [
        ("business days", str(response.business_days)),
        ("dates", f"{args.first} to {args.last}, both included ({response.time_zone})"),
    ])


PERIOD_COLUMNS = ("start", "end", "local_date", "calendar_version")
"""The columns ``duetime calendars periods`` writes (docs/sql.md)."""


def _bundle_zone(args: argparse.Namespace) -> str:
    """The time zone of bundle ``args.name``: from the server's listing, or
    the calendars directory. InvalidArgument on NAME when it is unknown."""
    name = args.name.partition("@")[0]
    if args.server:
        with _client(args, RPC_TIMEOUT) as duetime:
            for info in duetime.list_calendars().calendars:
                if info.name == name:
                    return info.time_zone
        raise InvalidArgument.at("NAME", f"the server has no calendar bundle {name!r}")
    return _bundles_catalog(args.dir, "--dir").bundles.resolve(args.name, field="NAME").calendar.time_zone


def _period_pages(args: argparse.Namespace, request: pb.ListOpenPeriodsRequest) -> Iterator[pb.ListOpenPeriodsResponse]:
    """Every page of ``request``'s open periods, from the server or locally."""
    app = None if args.server else build_app(None, _bundles_catalog(args.dir, "--dir"))
    while True:
        if app is None:
            with _client(args, RPC_TIMEOUT) as duetime:
                page = _ask(duetime, request)
        else:
            page = app.answer(LIST_OPEN_PERIODS, request)
        yield page
        if not page.next_page_token:
            return
        request.page_token = page.next_page_token


def cmd_calendars_periods(args: argparse.Namespace) -> int:
    """``duetime calendars periods NAME --from DATE --to DATE``: the open
    periods of the local dates FROM … TO as UTC rows (csv or jsonl) for a
    warehouse table (docs/sql.md)."""
    check_bundle_ref(args.name, "NAME")
    first, last = local_date(args.first, "--from"), local_date(args.last, "--to")
    if last < first:
        raise InvalidArgument.at("--to", f"{last} is before --from {first}; give a date on or after it")
    if last >= date(2199, 12, 31):  # its end, 2200-01-01 00:00, is past the supported range
        raise InvalidArgument.at("--to", f"{last} is the last supported date; give --to 2199-12-30 or earlier")
    zone = get_zone(_bundle_zone(args))
    request = pb.ListOpenPeriodsRequest(calendar=pb.Calendar(bundle=args.name), page_size=1000)
    request.start_time.FromDatetime(resolve_local(first, dt_time(0), zone))
    request.end_time.FromDatetime(resolve_local(last + timedelta(days=1), dt_time(0), zone))
    flags = {"start_time": "--from", "end_time": "--to", "calendar.bundle": "NAME"}
    out = sys.stdout
    try:
        header = args.format == "csv"
        for page in _period_pages(args, request):
            if header:  # written once the first page is answered: a refusal leaves no half-written table
                print(",".join(PERIOD_COLUMNS), file=out)
                header = False
            for warning in page.warnings:
                print(f"warning: {warning}", file=sys.stderr)
            for p in page.periods:
                row = (p.start_time.ToJsonString(), p.end_time.ToJsonString(), p.local_date,
                       page.calendar_version)
                if args.format == "csv":
                    print(",".join(row), file=out)
                else:
                    print(json.dumps(dict(zip(PERIOD_COLUMNS, row))), file=out)
    except (DuetimeError, CallError) as exc:  # name the flags the dates came from
        if isinstance(exc, CallError) and (exc.code not in _BAD_INPUT or not exc.violations):
            raise
        return _report([FieldViolation(flags.get(v.field, v.field), v.description)
                        for v in exc.violations])
    return 0


def _calendar_query_commands(sub, flags) -> None:
    """``duetime periods`` and ``duetime count``."""
    periods = sub.add_parser("periods", parents=flags,
                             help="the open periods from START to END (one page)")
    periods.add_argument("start", help="RFC 3339 instant with offset")
    periods.add_argument("end", help="RFC 3339 instant with offset, excluded; not before START")
    periods.add_argument("--page-size", type=_page_size, default=0, metavar="N",
                         help="most periods to print (default 100, at most 1000)")
    periods.add_argument("--page-token", metavar="TOKEN",
                         help="the next page, as the previous page printed it")
    periods.set_defaults(run=cmd_periods)
    count = sub.add_parser("count", parents=flags,
                           help="the business days from FROM to TO, both included")
    count.add_argument("first", metavar="FROM", help="first local date, YYYY-MM-DD")
    count.add_argument("last", metavar="TO", help="last local date, YYYY-MM-DD; not before FROM")
    count.set_defaults(run=cmd_count)


def _calendars_periods_command(commands, where) -> None:
    """``duetime calendars periods``."""
    periods = commands.add_parser(
        "periods", parents=[where], help="a bundle's open periods as UTC rows (csv, jsonl)",
        description="Write the open periods of bundle NAME (its newest version) or "
                    "NAME@VERSION on the local dates --from to --to, both included, as UTC "
                    "rows: start, end, local_date, calendar_version (docs/sql.md loads them "
                    "into PostgreSQL). From --server, or else from the calendars directory.")
    periods.add_argument("name", metavar="NAME[@VERSION]")
    periods.add_argument("--from", dest="first", required=True, metavar="DATE",
                         help="first local date, YYYY-MM-DD")
    periods.add_argument("--to", dest="last", required=True, metavar="DATE",
                         help="last local date, YYYY-MM-DD, included")
    periods.add_argument("--format", choices=("csv", "jsonl"), default="csv",
                         help="csv with a header line (default), or one JSON object a line")
    periods.add_argument("--server", metavar="HOST:PORT", help="ask this server")
    _add_connection_flags(periods)
    periods.set_defaults(run=cmd_calendars_periods)


# ---------------------------------------------------------------------------
# SLA clocks: duetime clock start|apply, duetime sla evaluate

EVENTS = {e.removeprefix("CLOCK_EVENT_TYPE_").lower(): pb.ClockEventType.Value(e)
          for e in pb.ClockEventType.keys() if not e.endswith("_UNSPECIFIED")}
ANCHORS = {"event": pb.RETARGET_ANCHOR_EVENT, "start": pb.RETARGET_ANCHOR_START}
EVENT_NAMES = {value: name for name, value in EVENTS.items()}
ANCHOR_NAMES = {value: name for name, value in ANCHORS.items()}


def _read_json(path: str, field: str):
    """The JSON value in file ``path`` (``-``: stdin); InvalidArgument on ``field``."""
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
        return json.loads(text)
    except (OSError, ValueError) as exc:
        raise InvalidArgument.at(field, f"{path}: cannot read JSON: {exc}") from None


def _show_clock(args: argparse.Namespace, response: Message) -> int:
    """Print a clock answer: the state as JSON on stdout (with ``--json`` the
    whole response), the record and versions on stderr."""
    for warning in response.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    # the state alone stays compact: it is piped into the next clock command
    print(message_json(response) if args.json else json_format.MessageToJson(response.state))
    fields = []
    if args.warn:  # what fell at the event and the next action (docs/semantics.md §17)
        fields.append(("fell at event", _dues_text(response.fell_at_event) or "nothing"))
        nxt = response.next_action
        fields.append(("next action", f"{_local(nxt.time, response.time_zone)}: {_dues_text(nxt.due)}"
                       if response.HasField("next_action") else "none"))
    _labelled(fields + _record_fields(response), file=sys.stderr)
    return 0


def _dues_text(dues) -> str:
    """SlaDue items as "resolution WARNING 75%, BREACH" (a single clock's have no metric)."""
    return ", ".join(" ".join(part for part in (d.metric, pb.SlaDueKind.Name(d.kind).removeprefix("SLA_DUE_KIND_"),
                                                d.threshold) if part) for d in dues)


def cmd_clock_start(args: argparse.Namespace) -> int:
    check_duration_text(args.target, "target")
    request = pb.StartClockRequest(target=args.target, calendar=calendar_from_args(args),
                                   warning_thresholds=args.warn or [])
    _set_instant(request, "start_time", args.at)
    return _show_clock(args, _run(START_CLOCK, request, args))


def cmd_clock_apply(args: argparse.Namespace) -> int:
    data = _read_json(args.state, "STATE_JSON_FILE")
    if isinstance(data, dict) and "state" in data and "status" not in data:
        data = data["state"]  # a whole response, as --json prints it
    try:
        state = json_format.ParseDict(data, pb.ClockState())
    except (json_format.ParseError, AttributeError, TypeError) as exc:
        raise InvalidArgument.at("STATE_JSON_FILE", f"{args.state}: not a ClockState: {exc}") \
            from None
    if args.event == "retarget":
        if args.target is None:
            raise InvalidArgument.at("--target", "is required for retarget: give the new "
                                                 "target, e.g. --target 48bh")
        check_duration_text(args.target, "--target")
    elif args.target is not None or args.anchor is not None:
        flag = "--target" if args.target is not None else "--anchor"
        raise InvalidArgument.at(flag, f"only retarget takes {flag}; leave it out for "
                                       f"{args.event}")
    event = pb.ClockEvent(type=EVENTS[args.event], target=args.target or "",
                          anchor=ANCHORS.get(args.anchor, pb.RETARGET_ANCHOR_UNSPECIFIED))
    _set_instant(event, "time", args.at)
    request = pb.ApplyClockEventRequest(state=state, event=event, warning_thresholds=args.warn or [])
    return _show_clock(args, _run(CLOCK_EVENT, request, args))


def _business_events(data) -> list[pb.BusinessEvent]:
    """BusinessEvents of a JSON list of ``{"type", "time", "attributes"}``."""
    if not isinstance(data, list) or not all(isinstance(e, dict) for e in data):
        raise InvalidArgument.at("EVENTS_JSON_FILE", 'is not a JSON list of {"type", "time", '
                                                     '"attributes"} objects')
    events = []
    for i, item in enumerate(data):
        event = pb.BusinessEvent(type=str(item.get("type", "")), attributes={
            str(k): str(v) for k, v in (item.get("attributes") or {}).items()})
        _set_instant(event, "time", str(item.get("time", "")), f"events[{i}].time")
        events.append(event)
    return events


def cmd_sla_evaluate(args: argparse.Namespace) -> int:
    request = pb.EvaluateSlaRequest(
        policy=args.policy, events=_business_events(_read_json(args.events, "EVENTS_JSON_FILE")))
    if args.as_of:
        _set_instant(request, "as_of_time", args.as_of, "--as-of")
    response = _run(EVALUATE_SLA, request, args)
    if response.metrics:
        return _show_sla_metrics(args, response)
    tz, state = response.time_zone, response.state
    if not args.json:
        rows = [("#", "event", f"time ({tz})", "action", "tier", "status", "deadline",
                 "remaining", "reason")] + [
            (str(i), e.event, _local(e.time, tz), e.action, e.tier, _status(e.status),
             _local(e.new_deadline_time, tz) if e.HasField("new_deadline_time") else "",
             fmt_amount(e.remaining.ToMicroseconds()) if e.HasField("remaining") else "",
             e.reason)
            for i, e in enumerate(response.timeline, start=1)
        ]
        print("\n".join(table(rows)))
    clock = _status(state.status) + (
        f", {'met' if state.met else 'breached'}" if state.HasField("met") else "")
    if state.HasField("breach_time"):
        clock += f" (missed {_local(state.breach_time, tz)})"
    return _show(args, response, [("clock", clock), ("tier", response.tier),
                                  ("policy", response.policy_version)])


def _status(value: int) -> str:
    return pb.ClockStatus.Name(value).removeprefix("CLOCK_STATUS_")


def _show_sla_metrics(args: argparse.Namespace, response: pb.EvaluateSlaResponse) -> int:
    """Print each metric's timeline (WARNING and BREACH entries among the
    events) and the next action (docs/semantics.md §17)."""
    tz = response.time_zone
    if not args.json:
        rows = [("metric", "event", f"time ({tz})", "action", "tier", "deadline", "reason")] + [
            (m.name or "(clock)", e.event, _local(e.time, tz), e.action + (f" {e.threshold}" if e.threshold else ""),
             e.tier, _local(e.new_deadline_time, tz) if e.HasField("new_deadline_time") else "", e.reason)
            for m in response.metrics for e in m.timeline
        ]
        print("\n".join(table(rows)))
    fields = [(f"metric {m.name or '(clock)'}", _metric_summary(m, tz)) for m in response.metrics]
    nxt = response.next_action
    fields.append(("next action", _local(nxt.time, tz) + ": " + ", ".join(
        f"{d.metric or '(clock)'} {pb.SlaDueKind.Name(d.kind).removeprefix('SLA_DUE_KIND_')}"
        + (f" {d.threshold}" if d.threshold else "") for d in nxt.due) if response.HasField("next_action") else "none"))
    fields += [("as of", _local(response.as_of_time, tz)), ("tier", response.tier),
               ("policy", response.policy_version)]
    return _show(args, response, fields)


def _metric_summary(m: pb.SlaMetric, tz: str) -> str:
    """"RUNNING, breached at T, cycles 1", "PAUSED, 15h left, cycles 1",
    "STOPPED, met, cycles 1": a metric's status, whether it is breached
    (when its BREACH fell) or met, the time left while paused (in the
    clock's measure) and its cycles."""
    parts = [pb.SlaMetricStatus.Name(m.status).removeprefix("SLA_METRIC_STATUS_")]
    if m.HasField("breach_time"):
        parts.append(f"breached at {_local(m.breach_time, tz)}")
    elif m.state.HasField("met"):
        parts.append("met" if m.state.met else "breached")
    if m.status == pb.SLA_METRIC_STATUS_PAUSED and m.state.HasField("remaining"):
        parts.append(f"{fmt_amount(m.state.remaining.ToMicroseconds())} left")
    return ", ".join(parts + [f"cycles {m.cycles}"])


def _record_json(record: pb.Record, indent: int | None = 2) -> str | None:
    """``record`` as JSON, or None (after an ``error:`` line on stderr naming
    it) when its stored request or response does not parse: a corrupt row,
    which ``duetime records verify`` reports."""
    try:
        return json_format.MessageToJson(record, indent=indent)
    except (DecodeError, json_format.Error) as exc:
        print(f"error: record {record.record_id}: its stored request or response does not "
              f"parse ({exc}); duetime records verify checks the ledger", file=sys.stderr)
        return None


def cmd_record(args: argparse.Namespace) -> int:
    """Print one record as JSON, asked of ``--server`` or read from the store
    (``--db``, default ``$DUETIME_DB``, else the default SQLite file)."""
    _one_source(args)
    if args.server:
        with _client(args, RPC_TIMEOUT) as duetime:
            record = duetime.get_record(args.id)
    else:
        ledger = _existing_ledger(args.db)
        app = build_app(ledger)
        try:
            record = record_of(app.get_record(args.id))
        except RecordNotFound:
            print(f"error: no record with id {args.id!r} in {_ledger_name(ledger, args.db)}",
                  file=sys.stderr)
            return 1
        finally:
            app.close()
    text = _record_json(record)
    if text is None:
        return 1
    print(text)
    return 0


# ---------------------------------------------------------------------------
# duetime batch: many ComputeDueTime requests from a JSON Lines file

BATCH_CHUNK = 1000
"""Requests per BatchComputeDueTimes call ``duetime batch`` sends by default."""
MAX_BATCH_CHUNK = 100_000
"""The most ``--chunk`` may be (a server's ``--max-batch-items`` may be
raised past the default 1,000; one that takes fewer says so, and ``duetime
batch`` follows it)."""
BATCH_TIMEOUT = 120.0
"""Seconds one BatchComputeDueTimes call of ``duetime batch`` may take."""
BATCH_PROGRESS = 10_000
"""``duetime batch`` prints a progress line to stderr every this many items."""


def _page_size(text: str) -> int:
    """``--page-size``: 0 (the default page) or a positive count; the server
    takes at most 1,000 (docs/semantics.md §9.1)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 2**31 - 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a page size: give 0 (the default, 100) up to 1000")
    return value


def _batch_chunk(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= MAX_BATCH_CHUNK:
        raise argparse.ArgumentTypeError(f"{text!r} is not 1 to {MAX_BATCH_CHUNK} requests")
    return value


def _batch_request(line: bytes, number: int = 0) -> pb.ComputeDueTimeRequest:
    """One input line as a request (the protobuf JSON mapping, read as the
    HTTP face reads it: :func:`duetime.api.convert.request_from_json`);
    InvalidArgument on ``request`` when it is not one, on ``line N``
    (``number``) when the line is JSON but no object (e.g. an array of requests)."""
    try:
        return request_from_json(line, pb.ComputeDueTimeRequest())
    except DuetimeError as exc:
        if number and "not a JSON object" in exc.violations[0].description:
            raise InvalidArgument.at(f"line {number}", "is not a JSON object (one request "
                                                       "per line)") from None
        raise


def _batch_error(code: str, message: str, reason: str,
                 violations: Iterable[tuple[str, str]]) -> dict:
    """The ``error`` object of a failed item: its gRPC code name, message,
    reason and field violations."""
    error = {"code": code, "message": message}
    if reason:
        error["reason"] = reason
    error["violations"] = [{"field": field, "description": text} for field, text in violations]
    return error


def _local_error(exc: DuetimeError) -> dict:
    return _batch_error(code_name(exc), "; ".join(f"{v.field}: {v.description}" for v in exc.violations),
                        exc.reason, ((v.field, v.description) for v in exc.violations))


def _call_error(exc: CallError, lines: Sequence[int] = ()) -> dict:
    """The ``error`` object of a batch item the server refused. ``lines``:
    the input line of each item of a message the server refused whole; a
    field ``items[i]…`` of its refusal is then named ``line N…``."""
    def field(name: str) -> str:
        found = _ITEM_FIELD.match(name)
        if found is None or not int(found[1]) < len(lines):
            return name
        return f"line {lines[int(found[1])]}{found[2]}"

    return _batch_error(exc.code.name, exc.details, exc.reason,
                        ((field(v.field), v.description) for v in exc.violations))


_ITEM_FIELD = re.compile(r"items\[(\d+)\](.*)\Z")


def _batch_lines(source) -> Iterator[tuple[int, bytes]]:
    """(line number from 1, bytes) of every line of ``source`` holding more than blanks."""
    for number, line in enumerate(source, start=1):
        if line.strip():
            yield number, line


def _chunks(lines: Iterator[tuple[int, bytes]], size: int) -> Iterator[list[tuple[int, bytes]]]:
    chunk: list[tuple[int, bytes]] = []
    for item in lines:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _message_parts(requests: list[pb.ComputeDueTimeRequest],
                   most_items: int | None = None) -> Iterator[range]:
    """``requests`` (one chunk) cut, in order, into the parts one
    BatchComputeDueTimes message may hold at the server's default limits:
    explanations weighing at most :data:`~duetime.app.limits.MAX_EXPLANATION_WEIGHT`
    and distinct inline calendars weighing at most
    :data:`~duetime.app.limits.MAX_BATCH_CALENDAR_WEIGHT` (docs/operations.md,
    "What one request may hold"), and at most ``most_items`` items (None: no
    bound beyond the chunk's). An item heavier than that alone is a part of
    its own, which the server refuses naming its field."""
    first = explained = weight = 0
    calendars: set[bytes] = set()
    for i, request in enumerate(requests):
        adds = explanation_weight(request.calendar) if request.explain else 0
        calendar, weighs = b"", 0
        if request.HasField("calendar") and not (request.calendar.bundle
                                                 and len(request.calendar.ListFields()) == 1):
            calendar = request.calendar.SerializeToString(deterministic=True)
            weighs = 0 if calendar in calendars else calendar_weight(request.calendar)
        if i > first and (explained + adds > MAX_EXPLANATION_WEIGHT
                          or weight + weighs > MAX_BATCH_CALENDAR_WEIGHT
                          or most_items is not None and i - first >= most_items):
            yield range(first, i)
            first, explained, weight = i, 0, 0
            calendars.clear()
            weighs = calendar_weight(request.calendar) if calendar else 0
        explained += adds
        weight += weighs
        if calendar:
            calendars.add(calendar)
    if first < len(requests):
        yield range(first, len(requests))


def _server_batch_items(exc: CallError) -> int | None:
    """The most items a message may hold, as the server said when it refused
    one for holding more (ErrorInfo metadata ``max_batch_items``), else None."""
    most = exc.metadata.get("max_batch_items", "")
    return int(most) if most.isdigit() and int(most) > 0 else None


def cmd_batch(args: argparse.Namespace) -> int:
    """``duetime batch FILE.jsonl``: answer every request line, in order, one
    JSON result a line; 0 when every item was answered, 1 when some failed."""
    namespace = _namespace(args)  # checked without --server too
    namespace = namespace if args.server else None
    try:
        source = sys.stdin.buffer if args.file == "-" else open(args.file, "rb")  # noqa: SIM115
    except OSError as exc:
        raise InvalidArgument.at("FILE.jsonl", f"cannot read {args.file}: "
                                               f"{exc.strerror or exc}") from None
    try:
        out = open(args.out, "w", encoding="utf-8") if args.out else sys.stdout  # noqa: SIM115
    except OSError as exc:
        if source is not sys.stdin.buffer:
            source.close()
        raise InvalidArgument.at("--out", f"cannot write {args.out}: {exc.strerror or exc}") \
            from None
    duetime = None
    catalog: Catalog | None = None
    if args.server:
        duetime = _client(args, BATCH_TIMEOUT, namespace)
    done = failed = 0
    server_items: int | None = None  # the server's --max-batch-items, once it named it
    try:
        for chunk in _chunks(_batch_lines(source), args.chunk):
            results: list[dict | None] = [None] * len(chunk)
            requests, positions = [], []
            for k, (number, line) in enumerate(chunk):
                try:
                    requests.append(_batch_request(line, number))
                    positions.append(k)
                except DuetimeError as exc:
                    results[k] = {"error": _local_error(exc)}
            if duetime is not None and requests:
                parts = deque(_message_parts(requests, server_items))
                while parts:
                    part = parts.popleft()
                    try:
                        answers = duetime.compute_due_times(requests[part.start:part.stop])
                    except CallError as exc:
                        most = _server_batch_items(exc)
                        if most is not None and most < len(part):  # the server takes fewer
                            server_items = most
                            parts.extendleft(reversed([range(first, min(first + most, part.stop))
                                                       for first in range(part.start, part.stop,
                                                                          most)]))
                            continue
                        if exc.code not in _BAD_INPUT:
                            raise  # the server failed: the lines written so far stand
                        lines = [chunk[k][0] for k in positions[part.start:part.stop]]
                        for k in positions[part.start:part.stop]:  # the message was refused
                            results[k] = {"error": _call_error(exc, lines)}
                        continue
                    for k, answer in zip(positions[part.start:part.stop], answers, strict=True):
                        results[k] = ({"response": message_dict(
                                          answer.due_time.recorded.message)}
                                      if answer.ok else {"error": _call_error(answer.error)})
            elif requests:
                if catalog is None and any(r.calendar.bundle for r in requests):
                    catalog = _bundles_catalog(args.calendars)
                app = build_app(None, catalog)
                answering = app.answering(batch=True)
                for k, request in zip(positions, requests):
                    try:
                        results[k] = {"response": message_dict(
                            app.answer(DUE_TIME, request, answering))}
                    except DuetimeError as exc:
                        results[k] = {"error": _local_error(exc)}
            for (number, _), result in zip(chunk, results):
                failed += "error" in result
                out.write(json.dumps({"line": number, **result}, ensure_ascii=False,
                                     separators=(",", ":")) + "\n")
            out.flush()
            before, done = done, done + len(chunk)
            if done // BATCH_PROGRESS > before // BATCH_PROGRESS:
                print(f"progress: {done:,} items, {failed:,} failed", file=sys.stderr, flush=True)
    finally:
        if duetime is not None:
            duetime.close()
        if source is not sys.stdin.buffer:
            source.close()
        if out is not sys.stdout:
            out.close()
    print(f"{done:,} items: {done - failed:,} ok, {failed:,} failed"
          + ("" if args.server else f" ({NOT_RECORDED})"), file=sys.stderr)
    return 0 if failed == 0 else 1


def cmd_serve(args: argparse.Namespace) -> int:
    """Resolve the configuration (flags over ``DUETIME_*`` variables, exit
    code 2 when it is unusable), set up the logs, serve."""
    from duetime import logs
    from duetime.api.server import serve

    try:
        config = resolve_config(args)
        check_serve_paths(config, args)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    busy = busy_listener(config, args)
    if busy:
        print(f"error: {busy}", file=sys.stderr)
        return 1
    logs.configure(config.log_format)
    calendars = config.calendars

    def failed(message: str, code: int) -> int:  # in the log's own format
        if config.log_format == "json":
            logging.getLogger("duetime.server").error("error: %s", message)
        else:
            print(f"error: {message}", file=sys.stderr)
        return code

    try:
        if config.workers > 1:
            from duetime.api.workers import serve_workers
            return serve_workers(config)
        dropped = serve(config)
    except ConfigError as exc:  # a TLS or token file changed since it was checked
        return failed(str(exc), 2)
    except CatalogError as exc:
        return failed(f"cannot load the calendars in {calendars}: {exc}", 1)
    except (LedgerUnavailable, RuntimeError) as exc:  # cannot open the ledger or bind
        return failed(str(exc), 1)
    if dropped:  # their threads still compute; do not wait for them to exit
        logging.shutdown()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)
    return 0


def _source(args: argparse.Namespace, name: str) -> str:
    """Where serve's setting ``name`` came from: its flag when given, else its variable."""
    setting = next(s for s in SETTINGS if s.name == name)
    return setting.flag if getattr(args, name, None) is not None else setting.env


def check_serve_paths(config: ServerConfig, args: argparse.Namespace) -> None:
    """Refuse, before anything is opened, a calendars directory that holds no
    compiled bundle or policy (a wrong or empty directory would serve none)
    and a SQLite ledger whose directory does not exist (it is never created
    for a path given: a typo would start a second, empty ledger). The
    default ledger's directory is created as before. Raises ConfigError
    naming the flag, or the variable the value came from."""
    root = config.calendars
    if root is not None:
        given = args.calendars is not None or os.environ.get(ENV_DIR)
        flag = _source(args, "calendars") if given else "./calendars (the default)"
        if not Path(root).is_dir():
            raise ConfigError(flag, f"{root} is not a directory; give a calendars directory "
                                    "such as the duetime repository's calendars/")
        if not fingerprint(Path(root)):
            sources = sorted(p.name for p in Path(root).glob("*.toml"))
            named = ", ".join(sources[:3]) + (", …" if len(sources) > 3 else "")
            hint = (f"it holds sources ({named}) but nothing compiled: run duetime calendars "
                    f"compile --dir {root}"
                    if sources else "a bundle is a source NAME.toml compiled by duetime "
                    "calendars compile into compiled/NAME/versions.txt and "
                    "compiled/NAME/VERSION.json")
            raise ConfigError(flag, f"{root} holds no compiled calendar bundle or policy "
                                    f"({root}/compiled/NAME/versions.txt); {hint}; or leave it "
                                    "out to serve inline calendars only")
    db = config.db
    if db and postgres_url(db) is None:
        parent = Path(db).parent
        if not parent.is_dir():
            raise ConfigError(_source(args, "db"), f"the directory {parent} does not exist; "
                                                   f"create it first (mkdir -p {parent}) or give "
                                                   "a path in an existing directory")


def busy_listener(config: ServerConfig, args: argparse.Namespace) -> str | None:
    """The first of serve's listeners (gRPC ``--port``, ``--http-port``,
    ``--metrics-port``) whose address another process already holds, in
    words naming the flag that changes it; None when all are free (or
    cannot be tried here: the server then reports its own error). Probed
    with a socket bound and closed at once, before gRPC tries (and logs its
    own lower-level error line)."""
    listeners = [("port", config.host, config.port, "the gRPC")]
    if config.http_port:
        listeners.append(("http_port", config.host, config.http_port, "the HTTP/JSON"))
    if config.metrics_port:
        listeners.append(("metrics_port", config.metrics_address, config.metrics_port,
                          "the metrics"))
    for name, host, port, what in listeners:
        if not port:
            continue
        try:
            addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                           flags=socket.AI_PASSIVE)
        except OSError:
            continue
        for family, kind, proto, _, address in addresses:
            try:
                with socket.socket(family, kind, proto) as probe:
                    probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                    probe.bind(address)
            except OSError as exc:
                if exc.errno != errno.EADDRINUSE:
                    continue
                setting = next(s for s in SETTINGS if s.name == name)
                return (f"{listener_source(args, name, port)}: cannot listen on {host}:{port} "
                        f"for {what} API: the port is in use (another process listens there, "
                        "perhaps another duetime serve); choose another with "
                        f"{setting.flag} PORT (or {setting.env})"
                        + ("; --port 0 picks a free one" if name == "port" else ""))
    return None


def listener_source(args: argparse.Namespace, name: str, port: int) -> str:
    """Where serve's port setting ``name`` came from, in words: its flag when
    given, its ``DUETIME_*`` variable only when that is set, else
    ``the default port N``."""
    setting = next(s for s in SETTINGS if s.name == name)
    if getattr(args, name, None) is not None:
        return setting.flag
    if os.environ.get(setting.env, "").strip():
        return setting.env
    return f"the default port {port}"


def cmd_health(args: argparse.Namespace) -> int:
    """Print the health status of ``--server`` on one line; 0 when SERVING."""
    with _client(args, args.timeout, probe=False) as duetime:
        try:
            status = duetime.health(args.service)
        except CallError as exc:
            details = " ".join((exc.details or "").split())
            print(f"{exc.code.name}: {details}" if details else exc.code.name)
            return 1
    print(status)
    return 0 if status == "SERVING" else 1


# ---------------------------------------------------------------------------
# duetime records ...: the ledger


def _existing_ledger(db: str | None) -> Ledger:
    """The ledger ``--db`` names (default ``$DUETIME_DB``, else the default
    SQLite file) for reading: a SQLite file that does not exist is an error
    here, not a new empty ledger. Raises LedgerUnavailable."""
    target = db or os.environ.get("DUETIME_DB") or str(default_db_path())
    try:
        url = postgres_url(target)
    except ValueError as exc:  # never repeat it: it may hold a password
        raise LedgerUnavailable(f"{'--db' if db else 'DUETIME_DB'} {exc}") from None
    if url is None and not Path(target).is_file():
        raise LedgerUnavailable(f"no ledger at {target} (give --db PATH or a postgresql:// "
                                "URL, or set DUETIME_DB; duetime serve writes "
                                f"{default_db_path()} unless given --db)")
    if url is None and Path(target).stat().st_size == 0:
        # SQLite would take an empty file for an empty database and write a
        # schema into it: a reading command changes nothing
        raise LedgerUnavailable(f"{target} is an empty file, not a ledger")
    return open_ledger(target)


def _one_source(args: argparse.Namespace) -> None:
    if args.server and args.db:
        raise InvalidArgument.at("--db", "give --server (ask a server) or --db (read the store), "
                                         "not both")


def _selected(request: Message, args: argparse.Namespace) -> Message:
    """``request`` with the record selection of ``--since``, ``--until`` and
    ``--namespace`` set."""
    if args.since:
        request.start_time.FromDatetime(instant(args.since, "--since"))
    if args.until:
        request.end_time.FromDatetime(instant(args.until, "--until"))
    if args.namespace is not None:
        request.namespace = args.namespace
    return request


def _record_lines(args: argparse.Namespace) -> Iterator[pb.Record]:
    """The records ``records export`` selects: from the server (ListRecords,
    page by page) or from the store."""
    for item in _selected_records(args):
        yield item if isinstance(item, pb.Record) else record_of(item)


def _selected_rows(args: argparse.Namespace) -> Iterator[LedgerRow]:
    """The records ``records replay`` selects, as ledger rows: read from the
    store as they are (a row of a method this duetime does not know is then
    reported, not fatal), or from the server's Record messages."""
    for item in _selected_records(args):
        yield row_of(item) if isinstance(item, pb.Record) else item


def _selected_records(args: argparse.Namespace) -> Iterator[pb.Record | LedgerRow]:
    """The records the ``records`` selection flags name: Record messages from
    the server (``--server``, page by page), else the store's rows."""
    _one_source(args)
    request = _selected(pb.ListRecordsRequest(key_prefix=args.key_prefix or "",
                                              page_size=MAX_PAGE_SIZE), args)
    if args.server:
        with _client(args, ADMIN_TIMEOUT) as duetime:
            yield from duetime.list_records(
                start=_utc(request.start_time) if request.HasField("start_time") else None,
                end=_utc(request.end_time) if request.HasField("end_time") else None,
                key_prefix=request.key_prefix,
                namespace=request.namespace if request.HasField("namespace") else None,
                page_size=request.page_size)
        return
    app = build_app(_existing_ledger(args.db))
    try:
        yield from app.records(record_filter(request, app.limits))
    finally:
        app.close()


def cmd_records_export(args: argparse.Namespace) -> int:
    out = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout
    count = unreadable = 0
    try:
        for record in _record_lines(args):
            text = _record_json(record, indent=None)
            if text is None:
                unreadable += 1
                continue
            out.write(text + "\n")
            count += 1
    finally:
        if args.output:
            out.close()
    print(f"exported {count} record(s)" + (f" to {args.output}" if args.output else "")
          + (f"; {unreadable} could not be read (see above)" if unreadable else ""),
          file=sys.stderr)
    return 1 if unreadable else 0


def _ledger_name(ledger: Ledger, db: str | None) -> str:
    """The store in words: a PostgreSQL label (no password) or the SQLite path."""
    return getattr(ledger, "label", None) or str(getattr(ledger, "path", db))


def cmd_records_verify(args: argparse.Namespace) -> int:
    """Check every record of the store (``--db``) or of ``--server``."""
    _one_source(args)
    if args.server:
        return _verify_on_server(args)
    ledger = _existing_ledger(args.db)
    try:
        problems = ledger.verify()
        count = sum(1 for _ in ledger.iter_records(batch_size=MAX_PAGE_SIZE))
        where = _ledger_name(ledger, args.db)
    finally:
        ledger.close()
    return _problems_report(problems, f"records verify failed: {{}} problem(s) in {where}",
                            f"ok: {count} record(s) in {where}; every row parses and its "
                            "hashes match")


def _verify_on_server(args: argparse.Namespace) -> int:
    """``records verify --server``: every record the server lists (ListRecords,
    page by page) must parse and its ``content_sha256`` match its content."""
    problems: list[str] = []
    count = 0
    with _client(args, ADMIN_TIMEOUT) as duetime:
        for record in duetime.list_records(page_size=MAX_PAGE_SIZE):
            count += 1
            row = row_of(record)
            row = LedgerRow(*row.values()[:4], sha256_hex(row.request), *row.values()[5:])
            problems += row_problems(row)
            try:
                json_format.MessageToJson(record)
            except (DecodeError, json_format.Error) as exc:
                problems.append(f"record {record.record_id!r}: its request or response does "
                                f"not parse ({exc})")
    where = f"the ledger of {args.server}"
    return _problems_report(problems, f"records verify failed: {{}} problem(s) in {where}",
                            f"ok: {count} record(s) in {where}; every record parses and its "
                            "content hash matches (the store's own checks need --db)")


REPLAY_PROGRESS = 2.0
"""Seconds between two progress lines of ``records replay`` on stderr."""


def cmd_records_replay(args: argparse.Namespace) -> int:
    """Recompute the selected records (:mod:`duetime.replay`) with the local
    catalog: one line per record that differs or is not replayable, the
    summary last; exit 1 unless every record gave its recorded bytes."""
    catalog = _catalog(args.calendars)
    summary = Summary()
    shown = time.monotonic()
    for result in replay(_selected_rows(args), catalog):
        summary.add(result)
        if result.outcome != "same":
            print(result.line(), flush=True)
        if time.monotonic() - shown >= REPLAY_PROGRESS:
            shown = time.monotonic()
            print(f"replay: {summary.replayed} records so far", file=sys.stderr, flush=True)
    if summary.other_rules:
        print(f"note: {summary.other_rules} record(s) were made under another rules version "
              "than this duetime's; they were compared all the same")
    if summary.not_replayable:
        warn_no_bundles(catalog, args.calendars)
    print(summary.line())
    return 0 if summary.ok else 1


def _problems_report(problems: Sequence[str], failed: str, ok: str) -> int:
    """Print each problem (``problem: …``) and ``error: `` + ``failed``
    (``{}``: how many) on stderr, exit code 1; or print ``ok``, exit code 0."""
    for problem in problems:
        print(f"problem: {problem}")
    if problems:
        print("error: " + failed.format(len(problems)), file=sys.stderr)
        return 1
    print(ok)
    return 0


def cmd_records_impact(args: argparse.Namespace) -> int:
    _one_source(args)
    if args.calendar is not None:
        check_bundle_ref(args.calendar, "--calendar")
    request = _selected(pb.AnalyzeImpactRequest(calendar=args.calendar or "",
                                                tzdata=args.tzdata, limit=args.limit or 0), args)
    catalog = None  # the local one, without --server
    if args.server:
        with _client(args, ADMIN_TIMEOUT) as duetime:
            reply = duetime.analyze_impact(
                request.calendar, tzdata=request.tzdata, limit=request.limit,
                start=_utc(request.start_time) if request.HasField("start_time") else None,
                end=_utc(request.end_time) if request.HasField("end_time") else None,
                namespace=request.namespace if request.HasField("namespace") else None).message
    else:
        catalog = _catalog(args.calendars)
        if args.calendar is not None and not catalog.bundles.names():
            raise CatalogError(no_bundles_message(_root(args.calendars)))
        app = build_app(_existing_ledger(args.db), catalog)
        try:
            reply = analyze_impact(request, app)
        finally:
            app.close()
    if args.json:
        print(message_json(reply))
        return 0
    rows = [("RECORD", "METHOD", "DUE", "OLD", "NEW", "WHY")]
    for change in reply.changes:
        method = change.method.rsplit("/", 1)[-1]
        if change.error:
            rows.append((change.record_id, method, "", "", "fails", change.error))
        for due in change.due_times:
            rows.append((change.record_id, method, due.name, due.old_due_local,
                         due.new_due_local, "; ".join(due.reasons)))
        for part in change.answer_changes:  # answers without a due time (docs/semantics.md §12)
            rows.append((change.record_id, method, part.name, part.old_value, part.new_value,
                         "; ".join(part.reasons)))
    if len(rows) > 1:
        print("\n".join(table(rows)))
    for skipped in reply.not_replayed:
        print(f"{skipped.record_id}  {skipped.reason}")
    if reply.not_replayed and catalog is not None:
        warn_no_bundles(catalog, args.calendars)
    what = " and ".join(filter(None, [reply.calendar_version and f"under {reply.calendar_version}",
                                      args.tzdata and f"with tzdata {reply.tzdata_version}"]))
    print(f"{reply.records_examined} record(s) examined, {reply.records_replayed} replayed "
          f"{what}: {len(reply.changes)} would change, {len(reply.not_replayed)} not replayed; "
          "no record was changed")
    if reply.truncated:
        print(f"warning: stopped at --limit {request.limit or 1000}; more records are concerned "
              "(narrow --since/--until or raise --limit)", file=sys.stderr)
    return 0


# ---------------------------------------------------------------------------
# duetime calendars ...: bundles and policies on disk


def sources_root(directory: str | None) -> Path:
    """The calendars directory ``calendars compile`` and ``check`` work on:
    ``directory`` (``--dir`` / ``--calendars``), else :func:`default_dir`.
    Raises InvalidArgument on ``--dir`` saying where duetime looked and how to
    point it when there is no such directory, or when it holds no bundle
    source (``*.toml``): an empty or wrong directory must not pass as "ok"."""
    root = Path(directory) if directory else default_dir()
    point = f"give --dir DIR (or --calendars DIR) or set {ENV_DIR}=DIR"
    if root is None:
        raise InvalidArgument.at("--dir", f"${ENV_DIR} is not set and there is no calendars "
                                          f"directory in {Path.cwd()}; {point}")
    if not root.is_dir():
        where = "" if root.is_absolute() else f" (in {Path.cwd()})"
        came = "" if directory else f" (from ${ENV_DIR})"
        raise InvalidArgument.at("--dir", f"{root}{came} is not a directory{where}; {point}")
    if not any(root.glob("*.toml")):
        raise InvalidArgument.at("--dir", f"no bundle sources (*.toml) in {root}; {point}, a "
                                          "directory holding sources NAME.toml such as the "
                                          "duetime repository's calendars/")
    return root


def cmd_calendars_compile(args: argparse.Namespace) -> int:
    """Compile bundles, then policies (pinned to the bundles just compiled)."""
    root = sources_root(args.dir)
    compiled = [("", c) for c in bundles.compile_all(root)]
    if policies_dir(root).is_dir():
        store = bundles.BundleStore.load(root)
        compiled += [("policy ", c) for c in compile_policies(policies_dir(root), store)]
    for kind, c in compiled:
        print(f"{kind}{c.name}@{c.version}  {'new' if c.new else 'unchanged'}")
    return 0


def check_problems(root: Path) -> list[str]:
    """Everything ``duetime calendars check`` reports for ``root`` (empty: all good)."""
    problems = [str(p) for p in bundles.check(root)]
    if policies_dir(root).is_dir():
        try:
            store = bundles.BundleStore.load(root)
        except ValueError as exc:  # reported above, unless check() missed it
            why = "see above" if problems else str(exc)
            return problems + [f"policies: not checked, the bundles do not load ({why})"]
        problems += [str(p) for p in check_policies(policies_dir(root), store)]
    return problems


def cmd_calendars_check(args: argparse.Namespace) -> int:
    root = sources_root(args.dir)
    return _problems_report(check_problems(root),
                            f"calendars check failed: {{}} problem(s) in {root}",
                            f"ok: every source in {root} matches its newest compiled version")


def cmd_calendars_diff(args: argparse.Namespace) -> int:
    if args.server is not None:
        raise InvalidArgument.at("--server", "calendars diff works on a calendars directory, not a server: "
                                             "give --dir DIR (the directory the server was started with, "
                                             "its --calendars) and leave --server out")
    store = _bundles_catalog(args.dir, "--dir").bundles
    old, new = store.resolve(args.old, field="old"), store.resolve(args.new, field="new")
    print(f"{old.ref} → {new.ref}")
    for line in bundles.diff_versions(old.content, new.content):
        print(f"  {line}")
    return 0


def cmd_calendars_list(args: argparse.Namespace) -> int:
    if args.server:
        with _client(args, RPC_TIMEOUT) as duetime:
            reply = duetime.list_calendars().message
    else:
        reply = calendars_listing(build_app(None, _bundles_catalog(args.dir, "--dir"))
                                  .list_calendars())
    if args.json:
        print(message_json(reply))
        return 0
    rows = [("NAME", "YEARS", "TIME ZONE", "NEWEST", "VERSIONS", "DESCRIPTION")] + [
        (c.name, f"{c.first_year}–{c.last_year}", c.time_zone, c.newest_version,
         str(len(c.versions)), c.description)
        for c in reply.calendars
    ]
    print("\n".join(table(rows)))
    return 0


def cmd_calendars_holidays(args: argparse.Namespace) -> int:
    """``duetime calendars holidays NAME``: the bundle's holidays in a range,
    one ``DATE  NAME`` line each, then the calendar version read."""
    check_bundle_ref(args.name, "NAME")
    first = args.first or f"{datetime.now(timezone.utc).year}-01-01"
    last = args.last or f"{first[:4]}-12-31"
    request = pb.ListHolidaysRequest(calendar=pb.Calendar(bundle=args.name),
                                     start_date=first, end_date=last)
    flags = {"start_date": "--from", "end_date": "--to", "calendar.bundle": "NAME"}
    try:
        if args.server:
            with _client(args, RPC_TIMEOUT) as duetime:
                reply = duetime.list_holidays(args.name, first, last).message
        else:
            app = build_app(None, _bundles_catalog(args.dir, "--dir"))
            reply = holidays_to_proto(app.list_holidays(*holidays_query(request)))
    except (DuetimeError, CallError) as exc:  # name the flags the dates came from
        if isinstance(exc, CallError) and (exc.code not in _BAD_INPUT or not exc.violations):
            raise
        return _report([FieldViolation(flags.get(v.field, v.field), _flag_words(v.description))
                        for v in exc.violations])
    for warning in reply.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if args.json:
        print(message_json(reply))
        return 0
    for holiday in reply.holidays:
        day = date.fromisoformat(holiday.date)
        print(f"{holiday.date}  {day.strftime('%a')}  {holiday.name}".rstrip())
    print(f"{len(reply.holidays)} holiday(s) from {first} to {last} in "
          f"{reply.calendar_version}")
    return 0


def cmd_calendars_policies(args: argparse.Namespace) -> int:
    """``duetime calendars policies [NAME]``: without NAME every SLA policy
    with its versions; with NAME (``NAME@VERSION``) that policy version's
    tiers and events, each with what it does. From --server, or else from
    the calendars directory."""
    try:
        if args.server:
            with _client(args, RPC_TIMEOUT) as duetime:
                reply = (duetime.get_policy(args.name) if args.name is not None
                         else duetime.list_policies()).message
        else:
            app = build_app(None, _bundles_catalog(args.dir, "--dir"))
            reply = (policy_to_proto(app.get_policy(args.name)) if args.name is not None
                     else policies_listing(app.list_policies()))
    except PolicyNotFound as exc:
        print(f"error: NAME: {exc.violations[0].description}", file=sys.stderr)
        return 1
    except (DuetimeError, CallError) as exc:  # name the argument the name came from
        absent = isinstance(exc, CallError) and exc.code == grpc.StatusCode.NOT_FOUND
        if not exc.violations or (isinstance(exc, CallError) and exc.code not in _BAD_INPUT
                                  and not absent):
            raise
        print("\n".join(f"error: NAME: {v.description}" for v in exc.violations), file=sys.stderr)
        return 1 if absent else 2
    if args.json:
        print(message_json(reply))
        return 0
    if args.name is None:
        rows = [("NAME", "NEWEST", "VERSIONS", "DESCRIPTION")] + [
            (p.name, p.newest_version, str(len(p.versions)), p.description)
            for p in reply.policies]
        print("\n".join(table(rows)))
        return 0
    print(f"{reply.info.name}@{reply.version}  (versions: {', '.join(reply.info.versions)})")
    if reply.info.description:
        print(reply.info.description)
    print(f"initial tier: {reply.initial_tier}")
    for m in reply.metrics:  # a policy of metrics (docs/semantics.md §17): each with its own
        print(f"metric {m.name}: warnings {', '.join(m.warnings) or 'none'}")
        _print_policy_tiers(m.targets)
        print("\n".join(table([("EVENT", "STATUS", "ACTION", "ANCHOR")] + [
            (r.event, r.status, r.action, r.anchor if r.action == "RETARGET" else "") for r in m.rules])))
    if not reply.metrics:
        _print_policy_tiers(reply.tiers)
        print("\n".join(table([("EVENT", "RUNNING", "PAUSED", "ANCHOR", "WHAT IT DOES")] + [
            (e.name, e.when_running, e.when_paused, e.anchor, e.description) for e in reply.events])))
    print("every history begins with the event start")
    return 0


def _print_policy_tiers(tiers) -> None:
    print("\n".join(table([("TIER", "TARGET", "MEASURE", "TIME ZONE", "CALENDAR")] + [
        (t.name, t.target, pb.ClockMeasure.Name(t.measure).removeprefix("CLOCK_MEASURE_"),
         t.time_zone, t.calendar_version) for t in tiers])))


_HOLIDAY_FIELDS = re.compile(r"\b(start_date|end_date)\b")


def _flag_words(description: str) -> str:
    """A ListHolidays refusal's words as the command line says them: the
    request fields ``start_date`` and ``end_date`` become ``--from`` and ``--to``."""
    return _HOLIDAY_FIELDS.sub(lambda m: {"start_date": "--from", "end_date": "--to"}[m[1]],
                               description)


EMPTY_REFUSED = {
    "server": ("--server", "give the server's gRPC address HOST:PORT, e.g. 127.0.0.1:50051, or "
                           "leave --server out to compute locally"),
    "tz": ("--tz", "give an IANA time zone such as Europe/Zagreb, or leave --tz out for UTC"),
    "holidays_valid_until": ("--holidays-valid-until", "give a local date YYYY-MM-DD, or leave "
                                                       "the flag out"),
    "key": ("--key", "give an idempotency key, or leave --key out to send none"),
    "token": ("--token", f"give the bearer token, or leave --token out to use ${TOKEN_ENV}"),
    "db": ("--db", "give a SQLite file path or a postgresql:// URL, or leave --db out for "
                   "$DUETIME_DB, else ~/.local/share/duetime/ledger.db"),
    "calendars": ("--calendars", f"give a calendars directory, or leave the flag out for "
                                 f"${ENV_DIR}, else ./calendars"),
    "dir": ("--dir", f"give a calendars directory, or leave the flag out for ${ENV_DIR}, else "
                     "./calendars"),
    "since": ("--since", "give an RFC 3339 instant such as 2026-12-01T00:00:00Z, or leave the "
                         "flag out"),
    "until": ("--until", "give an RFC 3339 instant such as 2026-12-01T00:00:00Z, or leave the "
                         "flag out"),
    "target": ("--target", "give the new target, e.g. --target 48bh"),
    "landing_time": ("--landing-time", "give HH:MM, open, close or end, or leave the flag out"),
    "page_token": ("--page-token", "give the token the previous page printed, or leave the flag "
                                   "out for the first page"),
    "first": ("--from", "give a local date YYYY-MM-DD, or leave the flag out"),
    "last": ("--to", "give a local date YYYY-MM-DD, or leave the flag out"),
}
"""Flags (by argparse dest) whose empty value is refused, and what to write
instead: ``--tz "$ZONE"`` with ``ZONE`` unset must not silently mean UTC."""


def check_given(args: argparse.Namespace) -> None:
    """Refuse an empty (or blank) value of any flag of :data:`EMPTY_REFUSED`
    the command was given, and a ``--server`` that is not ``HOST:PORT``:
    InvalidArgument naming each flag. (``--weekend ""`` and ``--hours ""``
    are refused by their parsers, ``--calendar ""`` by its check.)"""
    violations = [FieldViolation(flag, f"is empty; {hint}")
                  for dest, (flag, hint) in EMPTY_REFUSED.items()
                  if isinstance(getattr(args, dest, None), str) and not getattr(args, dest).strip()]
    if violations:
        raise InvalidArgument(violations)
    if getattr(args, "server", None):
        _parsed(parsing.check_server_address, args.server, "--server")


_WEEKDAY_PATH = re.compile(r"^calendar\.working_hours\.days\[(\d+)\]")
_WEEK_PERIOD_PATH = re.compile(r"^calendar\.week_periods\[(\d+)\]")


def _ordinal(n: int) -> str:
    """1 → "1st", 2 → "2nd", 11 → "11th"."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _report(violations) -> int:
    """Print each violation as ``error: FIELD: DESCRIPTION``; exit code 2.
    The same problem on several days of the weekly hours (one ``--hours``
    spec names them all) is printed once, naming the other days."""
    lines: dict[tuple[str, str], tuple[str, list[str]]] = {}
    for v in violations:
        period = _WEEK_PERIOD_PATH.match(v.field)
        if period:  # a calendar built from flags: name the flag the period came from
            v = FieldViolation(f"--week-period (the {_ordinal(int(period[1]) + 1)})", v.description)
        match = _WEEKDAY_PATH.match(v.field)
        key = (_WEEKDAY_PATH.sub("days[]", v.field) if match else v.field, v.description)
        if key in lines and match:
            lines[key][1].append(f"days[{match[1]}]")
        else:
            lines.setdefault(key, (v.field, []))
    for (_, description), (field, others) in lines.items():
        also = f" (the same on {', '.join(others)})" if others else ""
        print(f"error: {field}: {description}{also}", file=sys.stderr)
    return 2


# ---------------------------------------------------------------------------
# the parser


class Parser(argparse.ArgumentParser):
    """An ArgumentParser that reads ``-1bd``, ``-1.5h``, ``-P1M`` as values,
    not options: no duetime option starts with a dash and a digit or ``P``,
    so a negative duration can stand where any positional (or option value)
    does. (argparse only does so for plain negative numbers by itself.)
    Options must be spelled in full (no ``--tls`` for ``--tls-ca``): an
    abbreviation would silently change meaning when a longer option is added."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)  # subcommands' parsers are Parsers too
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = re.compile(r"^-(?:\d|\.\d|P)")

    def parse_args(self, args=None, namespace=None):
        """As argparse's, but an unrecognized argument is reported by the
        (sub)command that was given it, with that command's usage."""
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            self._chosen(parsed).error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed

    def _chosen(self, parsed: argparse.Namespace) -> argparse.ArgumentParser:
        """The innermost subcommand's parser that ``parsed`` went through."""
        chosen: argparse.ArgumentParser = self
        while True:
            subcommands = [a for a in chosen._actions if isinstance(a, argparse._SubParsersAction)]
            name = getattr(parsed, subcommands[0].dest, None) if subcommands else None
            if name not in (subcommands[0].choices if subcommands else {}):
                return chosen
            chosen = subcommands[0].choices[name]


def _calendar_flags() -> argparse.ArgumentParser:
    """The calendar and call flags every computing command takes."""
    flags = argparse.ArgumentParser(add_help=False)
    cal = flags.add_argument_group(
        "calendar (defaults: UTC, Sat+Sun weekend, Mon–Fri 09:00–17:00)")
    cal.add_argument("--calendar", metavar="NAME[@VERSION]",
                     help="a calendar bundle (newest version, or exactly VERSION); --holiday "
                          "adds holidays to it, other calendar flags are refused beside it")
    cal.add_argument("--tz", help="IANA time zone (default UTC)")
    cal.add_argument("--holiday", action="append", default=[], metavar="DATE[=NAME]",
                     help='a closed date, e.g. 2026-12-25="Christmas Day"; repeatable')
    cal.add_argument("--weekend", metavar="DAYS", help="e.g. sat,sun or fri-sat; none: no weekend")
    cal.add_argument("--hours", action="append", metavar='"DAYS HH:MM-HH:MM[,...]"',
                     help='weekly hours, e.g. "mon-fri 09:00-12:00,13:00-17:00"; repeatable; '
                          "when given they are the whole week")
    cal.add_argument("--override", action="append", default=[],
                     metavar="DATE=HOURS[=NAME]",
                     help="a date's own hours or closed: HOURS is HH:MM-HH:MM[,HH:MM-HH:MM...] "
                          "or the word closed, e.g. 2026-12-24=09:00-13:00 or "
                          "2026-12-28=closed=Inventory; repeatable")
    cal.add_argument("--extra-day", action="append", default=[], metavar="DATE[=NAME]",
                     help="a date opened although a weekend day or holiday; repeatable")
    cal.add_argument("--holidays-valid-until", metavar="DATE",
                     help="last date the holiday list is complete for; later is OUT_OF_RANGE")
    cal.add_argument("--week-period", action="append", default=[], metavar='"FROM[: PART; ...]"',
                     help="a week from date FROM on: PART is weekend DAYS or hours as for --hours, e.g. "
                          '"2027-03-01: mon-fri 08:00-18:00" or "2027-07-01: weekend mon-sun"; '
                          "omitted parts are the defaults; repeatable, in increasing FROM order")
    _add_call_flags(flags)
    return flags


def _add_call_flags(flags: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The call flags every computing command takes."""
    call = flags.add_argument_group("call")
    call.add_argument("--server", metavar="HOST:PORT", help="compute and record on this server")
    _add_connection_flags(call)
    call.add_argument("--key", help="idempotency key (with --server; at most 200 characters)")
    call.add_argument("--namespace", metavar="NS",
                      help="idempotency namespace sent as x-duetime-namespace metadata (with "
                           "--server; 1-64 characters of A-Z a-z 0-9 . _ -)")
    call.add_argument("--json", action="store_true", help="print the response as JSON")
    call.add_argument("--calendars", metavar="DIR",
                      help="bundles and policies to compute with without --server (default "
                           "$DUETIME_CALENDARS, else ./calendars)")
    return flags


def _add_connection_flags(group, timeout: bool = True) -> None:
    """How ``--server`` is reached: TLS, a client certificate, a bearer token
    (see :mod:`duetime.channels`); with ``timeout``, ``--timeout SECONDS``."""
    if timeout:
        group.add_argument("--timeout", type=argument_type(parse_positive_seconds),
                           metavar="SECONDS",
                           help="with --server: seconds each call may take (default 30; "
                                f"the server must answer a first health check within "
                                f"{CONNECT_TIMEOUT:g} s)")
    group.add_argument("--tls", action="store_true",
                       help="connect with TLS, checking the server's certificate against the "
                            "system's root certificates (implied by --tls-ca and --tls-cert)")
    group.add_argument("--tls-ca", metavar="FILE",
                       help="connect with TLS; the server's certificate must be issued by this "
                            "PEM CA")
    group.add_argument("--tls-cert", metavar="FILE",
                       help="client certificate (PEM) for a server that requires mutual TLS")
    group.add_argument("--tls-key", metavar="FILE", help="the private key of --tls-cert (PEM)")
    group.add_argument("--token", metavar="TOKEN",
                       help=f"bearer token for a server that requires one (default "
                            f"${TOKEN_ENV}; prefer the variable: a flag shows in the process "
                            "list)")


def _answer_flags(command: argparse.ArgumentParser) -> None:
    command.add_argument("--at-close", choices=sorted(AT_CLOSE),
                         help="business time ending exactly at a closing: due at the closing "
                              "(end-of-window, the default) or at the next opening (next-open)")
    command.add_argument("--explain", action="store_true",
                         help="print the steps that lead to the answer")


SCHEDULE_HELP = f"""\
Each --deadline is NAME=DURATION, counted from ENTERED, or
NAME=DURATION{AFTER}OTHER, counted from the due time of the deadline OTHER
(its logical due time, never the moment of the call). Example:

  duetime schedule 2026-11-27T16:00+01:00 --tz Europe/Zagreb \\
      --deadline remind=2bd --deadline escalate=5bd --deadline expire=30d \\
      --deadline final=4bh{AFTER}escalate
"""


def version_text() -> str:
    """``duetime VERSION (rules RULES, tzdata TZDATA)``: what ``--version`` prints."""
    try:
        installed = package_version("duetime")
    except PackageNotFoundError:  # run from a source tree that was not installed
        installed = "(not installed)"
    try:
        tzdata = tzdb.tzdata_version()
    except RuntimeError:
        tzdata = "unknown"
    return f"duetime {installed} (rules {RULES_VERSION}, tzdata {tzdata})"


def parser() -> argparse.ArgumentParser:
    """The argument parser of the ``duetime`` command."""
    top = Parser(prog="duetime", description="Business-calendar due times.")
    top.add_argument("--version", action="version", version=version_text(),
                     help="print duetime's version, rules version and tz database version")
    sub = top.add_subparsers(dest="command", required=True)
    flags = [_calendar_flags()]

    serve = sub.add_parser("serve", help="run the gRPC service", description=SERVE_HELP,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    _serve_flags(serve)
    serve.set_defaults(run=cmd_serve)
    _health_command(sub)

    due = sub.add_parser("due", parents=flags, help="compute START + DURATION")
    due.add_argument("start", help="RFC 3339 instant with offset, e.g. 2026-11-27T16:00+01:00")
    due.add_argument("duration", help="e.g. 3bd, 8bh, 90m, P1M, 1bd@16:00, P1M@following, "
                                      "14d@modified-following@close, always with a unit (a "
                                      "bare 2 is refused); a negative one (-1bd, -2h) counts "
                                      "backwards and may be written as is")
    _answer_flags(due)
    due.add_argument("--roll", choices=list(ROLLS), type=str.lower,
                     help="move a due date that is not a business day (elapsed and ISO 8601 "
                          "durations): the same as DURATION@ROLL")
    due.add_argument("--landing-time", metavar="TIME",
                     help="HH:MM, open, close or end on the final date: the same as "
                          "DURATION@ROLL@TIME (or Nbd@TIME)")
    due.set_defaults(run=cmd_due)

    between = sub.add_parser("between", parents=flags,
                             help="business time and business days from START to END")
    between.add_argument("start", help="RFC 3339 instant with offset")
    between.add_argument("end", help="RFC 3339 instant with offset; may be before START")
    between.add_argument("--explain", action="store_true", help="print the open intervals counted")
    between.set_defaults(run=cmd_between)

    is_open = sub.add_parser("open", parents=flags, help="is the calendar open at TIME?")
    is_open.add_argument("time", help="RFC 3339 instant with offset")
    is_open.add_argument("--last-run", action="store_true",
                         help="also print the last opening and closing at or before TIME")
    is_open.set_defaults(run=cmd_open)

    sched = sub.add_parser("schedule", parents=flags, help="a stage's named deadlines",
                           epilog=SCHEDULE_HELP,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    sched.add_argument("entered", help="RFC 3339 instant the stage was entered")
    sched.add_argument("--deadline", action="append", default=[], required=True,
                       metavar=f"NAME=DURATION[{AFTER}NAME]",
                       help="a deadline; repeatable (see below)")
    _answer_flags(sched)
    sched.set_defaults(run=cmd_schedule)

    _clock_commands(sub, flags)
    _batch_command(sub)

    record = sub.add_parser(
        "record", help="print a stored record as JSON",
        description="Print the record ID as JSON: asked of --server, or read from the store "
                    "(--db; default $DUETIME_DB, else ~/.local/share/duetime/ledger.db).")
    record.add_argument("id")
    record.add_argument("--server", metavar="HOST:PORT", help="ask this server")
    record.add_argument("--db", metavar="PATH_OR_URL",
                        help="read the store directly: a SQLite path or a postgresql:// URL "
                             "(default $DUETIME_DB, else ~/.local/share/duetime/ledger.db)")
    _add_connection_flags(record)
    record.set_defaults(run=cmd_record)
    _records_commands(sub)
    _calendars_commands(sub)
    _calendar_query_commands(sub, flags)
    return top


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a TCP port (0..65535; 0 picks a free one)")
    return value


def _records_commands(sub) -> None:
    """``duetime records export|verify|replay|impact``."""
    group = sub.add_parser("records",
                           help="export, verify, replay and analyze the ledger's records")
    commands = group.add_subparsers(dest="records_command", required=True)
    store = argparse.ArgumentParser(add_help=False)
    store.add_argument("--db", metavar="PATH_OR_URL",
                       help="read the store directly: a SQLite path or a postgresql:// URL "
                            "(default $DUETIME_DB, else ~/.local/share/duetime/ledger.db)")
    server = argparse.ArgumentParser(add_help=False)
    server.add_argument("--server", metavar="HOST:PORT",
                        help="ask this server instead of reading the store (--db)")
    _add_connection_flags(server)
    select = argparse.ArgumentParser(add_help=False, parents=[server])
    select.add_argument("--since", metavar="TIME",
                        help="records the server received at or after TIME (RFC 3339; the "
                             "time of the call, not a start or due time)")
    select.add_argument("--until", metavar="TIME",
                        help="records the server received before TIME (RFC 3339)")
    select.add_argument("--namespace", metavar="NS",
                        help="only this namespace (\"\" is the default one; default: all)")

    export = commands.add_parser(
        "export", parents=[store, select], help="write records as JSON Lines",
        description="Write the selected records as JSON Lines: one Record a line, in the "
                    "protobuf JSON mapping, in the order they were received. --since and "
                    "--until select by the time the server received the call (receiveTime), "
                    "not by a start or due time.")
    export.add_argument("--key-prefix", metavar="P", help="only keys starting with P")
    export.add_argument("--output", "-o", metavar="FILE", help="write to FILE (default stdout)")
    export.set_defaults(run=cmd_records_export)

    verify = commands.add_parser(
        "verify", parents=[store, server], help="check every stored row",
        description="Check the store (--db) or the records of --server: every record parses, "
                    "its request hash and content hash match; exit 1 naming each bad record. "
                    "The store's own checks (SQLite's quick_check) need --db.")
    verify.set_defaults(run=cmd_records_verify)

    replaying = commands.add_parser(
        "replay", parents=[store, select], help="recompute records and compare, byte for byte",
        description="Recompute the selected records under the versions they name (bundle "
                    "versions from --calendars, this duetime's rules and tz database) and "
                    "compare each response byte for byte: one line per record that differs "
                    "(naming the fields, old → new) or cannot be replayed here (why), then a "
                    "summary. Exit 1 when any record differs or was not replayed. Nothing is "
                    "recorded or changed.")
    replaying.add_argument("--key-prefix", metavar="P", help="only keys starting with P")
    replaying.add_argument("--calendars", metavar="DIR",
                           help="bundles and policies to recompute with (default "
                                "$DUETIME_CALENDARS, else ./calendars)")
    replaying.set_defaults(run=cmd_records_replay)

    impact = commands.add_parser(
        "impact", parents=[store, select], help="which due times a calendar change would move",
        description="Replay the recorded answers that used an older version of a calendar "
                    "bundle under NAME@NEW (and with --tzdata those computed with another tz "
                    "database) and list every due time that would move, old, new and why. "
                    "Nothing is recorded or changed.")
    impact.add_argument("--calendar", metavar="NAME@NEW",
                        help="the new bundle version (NAME alone: its newest)")
    impact.add_argument("--tzdata", action="store_true",
                        help="also replay records computed with another tz database version")
    impact.add_argument("--limit", type=int, metavar="N",
                        help="consider at most N records (default 1000, at most 1000)")
    impact.add_argument("--calendars", metavar="DIR",
                        help="bundles to replay with, without --server (default "
                             "$DUETIME_CALENDARS, else ./calendars)")
    impact.add_argument("--json", action="store_true", help="print the response as JSON")
    impact.set_defaults(run=cmd_records_impact)


SERVE_HELP = """\
Run the gRPC service. Every flag can also be set by the DUETIME_* environment
variable shown after its help (a flag given wins over the variable). A bad
value, a missing TLS file or an unreadable token file is a usage error (exit
code 2); the effective configuration is logged at start (never a token or a
database password).
"""


def _serve_flags(serve: argparse.ArgumentParser) -> None:
    """The ``serve`` flags of :data:`duetime.config.SETTINGS` not already
    added, each with its variable named in its help; default None (not
    given), so :func:`duetime.config.resolve` can tell a flag from a variable."""
    for setting in SETTINGS:
        if setting.flag in serve._option_string_actions:
            continue
        serve.add_argument(setting.flag, dest=setting.name, metavar=setting.metavar,
                           type=argument_type(setting.parse), default=None,
                           action="append" if setting.repeated else "store",
                           help=f"{setting.help} [{setting.env}]")


def _health_command(sub) -> None:
    """``duetime health``: a container health probe."""
    probe = sub.add_parser(
        "health", help="ask a server's gRPC health service; exit 0 when SERVING",
        description="Ask the gRPC health service of --server for the status of SERVICE "
                    "(default \"\": the whole server, SERVING while its ledger accepts "
                    "writes) and print it on one line: SERVING (exit 0), or NOT_SERVING or "
                    "the call's error, e.g. NOT_FOUND (no such service) or 'UNAVAILABLE: …' "
                    "(exit 1). No token is needed.")
    probe.add_argument("--server", metavar="HOST:PORT", required=True)
    probe.add_argument("--service", default="", metavar="NAME",
                       help='e.g. duetime.v1.DueTimeService (default "": the whole server)')
    probe.add_argument("--timeout", type=argument_type(parse_positive_seconds), default=5.0,
                       metavar="SECONDS", help="give up after SECONDS (default 5)")
    _add_connection_flags(probe, timeout=False)
    probe.set_defaults(run=cmd_health)


def _clock_commands(sub, flags: list[argparse.ArgumentParser]) -> None:
    """``duetime clock start|apply`` and ``duetime sla evaluate``."""
    call = [_add_call_flags(argparse.ArgumentParser(add_help=False))]
    clock = sub.add_parser("clock", help="SLA clocks that pause and resume (state as JSON)")
    commands = clock.add_subparsers(dest="clock_command", required=True)
    start = commands.add_parser("start", parents=flags, help="start a clock: print its state")
    start.add_argument("target", help="e.g. 8bh, 14d, 3bd, with a unit (not P…)")
    start.add_argument("--at", required=True, help="RFC 3339 instant the clock starts")
    start.add_argument("--warn", action="append", metavar="THRESHOLD",
                       help="a warning threshold, repeatable: a share consumed (75%%) or an amount "
                            "left (30bm); prints what fell at the start and the next action")
    start.set_defaults(run=cmd_clock_start)
    apply = commands.add_parser("apply", parents=call, help="apply an event to a state")
    apply.add_argument("state", metavar="STATE_JSON_FILE",
                       help="the state as clock start/apply printed it; - reads stdin")
    apply.add_argument("event", choices=list(EVENTS))
    apply.add_argument("--at", required=True, help="RFC 3339 instant of the event")
    apply.add_argument("--target", help="the new target, with a unit, e.g. 48bh (required "
                                        "for retarget, and only there)")
    apply.add_argument("--anchor", choices=sorted(ANCHORS),
                       help="retarget counted from the event (default) or the clock's start")
    apply.add_argument("--warn", action="append", metavar="THRESHOLD",
                       help="the clock's warning thresholds, as in clock start (give them with "
                            "every event); prints what fell at the event and the next action")
    apply.set_defaults(run=cmd_clock_apply)

    sla = sub.add_parser("sla", help="contract policies over a ticket's history")
    sla_commands = sla.add_subparsers(dest="sla_command", required=True)
    evaluate = sla_commands.add_parser(
        "evaluate", parents=call, help="replay events under a policy; print the timeline")
    evaluate.add_argument("policy", metavar="POLICY", help="NAME or NAME@VERSION")
    evaluate.add_argument("events", metavar="EVENTS_JSON_FILE",
                          help='a JSON list of {"type", "time", "attributes"}, beginning '
                               'with a "start" event; - reads stdin')
    evaluate.add_argument("--as-of", metavar="INSTANT", default="",
                          help="evaluate as of this instant (RFC 3339; default: the last event's): "
                               "show what fell by then and the next action")
    evaluate.set_defaults(run=cmd_sla_evaluate)


BATCH_HELP = """\
FILE.jsonl holds one ComputeDueTimeRequest a line, in the protobuf JSON
mapping (blank lines are skipped), e.g.

  {"start": "2026-11-27T15:00:00Z", "duration": "3bd", "calendar": {"bundle": "hr-zagreb"}}
  {"start": "2026-11-27T15:00:00Z", "duration": "8bh", "idempotencyKey": "t-42/1"}

Each result is one JSON line, in input order, naming the input line: {"line": 1, "response": {...}} (a ComputeDueTimeResponse) or
{"line": 2, "error": {"code", "message", "reason", "violations": [{"field",
"description"}]}}. With --server the requests go in BatchComputeDueTimes
calls of --chunk requests (fewer when their explanations or distinct inline
calendars would weigh more than one message may hold) and every answer is
recorded; without, they are
computed locally and nothing is recorded. A progress line goes to stderr every
10,000 items, a summary at the end. Exit code: 0 every item answered, 1 some
failed (or the server failed: the lines written so far stand), 2 usage.
"""


def _batch_command(sub) -> None:
    """``duetime batch FILE.jsonl``."""
    batch = sub.add_parser(
        "batch", help="many due times from a JSON Lines file (one request a line)",
        description="Compute START + DURATION for every request of a JSON Lines file.",
        epilog=BATCH_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    batch.add_argument("file", metavar="FILE.jsonl", help="the requests; - reads stdin")
    call = batch.add_argument_group("call")
    call.add_argument("--server", metavar="HOST:PORT", help="compute and record on this server")
    _add_connection_flags(call)
    call.add_argument("--namespace", metavar="NS",
                      help="idempotency namespace sent as x-duetime-namespace metadata (with "
                           "--server; 1-64 characters of A-Z a-z 0-9 . _ -)")
    call.add_argument("--calendars", metavar="DIR",
                      help="bundles to compute with without --server (default "
                           "$DUETIME_CALENDARS, else ./calendars)")
    batch.add_argument("--out", "-o", metavar="FILE", help="write the results to FILE "
                                                           "(default stdout)")
    batch.add_argument("--chunk", type=_batch_chunk, default=BATCH_CHUNK, metavar="N",
                       help=f"requests per BatchComputeDueTimes call (default {BATCH_CHUNK}; "
                            f"at most {MAX_BATCH_CHUNK}; a server whose --max-batch-items is "
                            "lower is followed)")
    batch.set_defaults(run=cmd_batch)


def _calendars_commands(sub) -> None:
    """``duetime calendars compile|check|diff|list``."""
    group = sub.add_parser("calendars", help="compile, check, diff and list calendar bundles")
    commands = group.add_subparsers(dest="calendars_command", required=True)
    where = argparse.ArgumentParser(add_help=False)
    where.add_argument("--dir", "--calendars", dest="dir", metavar="DIR",
                       help="the calendars directory (default $DUETIME_CALENDARS, else "
                            "./calendars); --calendars is the same flag")
    for name, run, text in (
        ("compile", cmd_calendars_compile,
         "compile every source into a new version when it changed (bundles, then policies)"),
        ("check", cmd_calendars_check,
         "fail when a source and its newest compiled version disagree or a compiled file "
         "was edited by hand"),
        ("diff", cmd_calendars_diff, "what changed between two versions of a bundle, in words"),
        ("list", cmd_calendars_list, "bundles with their years and versions"),
    ):
        command = commands.add_parser(name, parents=[where], help=text, description=text)
        command.set_defaults(run=run)
    diff = commands.choices["diff"]
    diff.add_argument("old", metavar="NAME@VERSION", help="the older version")
    diff.add_argument("new", metavar="NAME@VERSION", help="the newer version (NAME: the newest)")
    diff.add_argument("--server", metavar="HOST:PORT",
                      help="not taken: diff compares compiled versions in a calendars directory (--dir)")
    listing = commands.choices["list"]
    listing.add_argument("--server", metavar="HOST:PORT", help="list what this server has loaded")
    _add_connection_flags(listing)
    listing.add_argument("--json", action="store_true", help="print the response as JSON")

    holidays = commands.add_parser(
        "holidays", parents=[where], help="a bundle's holidays between two dates",
        description="List the holidays of bundle NAME (its newest version) or NAME@VERSION "
                    "from --from to --to, both local dates, inclusive (default: this year, "
                    "the whole of it; at most 20 × 366 days): one line a date, then the "
                    "version read. From --server, or else from the calendars directory.")
    holidays.add_argument("name", metavar="NAME[@VERSION]")
    holidays.add_argument("--from", dest="first", metavar="DATE",
                          help="first local date, YYYY-MM-DD (default: January 1 of this year)")
    holidays.add_argument("--to", dest="last", metavar="DATE",
                          help="last local date, YYYY-MM-DD (default: December 31 of --from's "
                               "year)")
    holidays.add_argument("--server", metavar="HOST:PORT", help="ask this server")
    _add_connection_flags(holidays)
    holidays.add_argument("--json", action="store_true", help="print the response as JSON")
    holidays.set_defaults(run=cmd_calendars_holidays)
    _calendars_periods_command(commands, where)

    policies = commands.add_parser(
        "policies", parents=[where], help="SLA policies, or one policy's tiers and events",
        description="Without NAME, list the SLA policies with their versions; with NAME (its "
                    "newest version) or NAME@VERSION, write that policy out: its tiers "
                    "(target, measure, pinned calendar) and its events, each with what it "
                    "does to the clock. From --server, or else from the calendars directory.")
    policies.add_argument("name", metavar="NAME[@VERSION]", nargs="?")
    policies.add_argument("--server", metavar="HOST:PORT", help="ask this server")
    _add_connection_flags(policies)
    policies.add_argument("--json", action="store_true", help="print the response as JSON")
    policies.set_defaults(run=cmd_calendars_policies)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit code (see module docstring)."""
    tzdb.pin()
    args = parser().parse_args(argv)
    try:
        check_given(args)
        code = args.run(args)
        sys.stdout.flush()  # a closed pipe shows here, not at exit
        return code
    except DuetimeError as exc:
        return _report(exc.violations)
    except (CatalogError, bundles.SourceError, LedgerUnavailable) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except CallError as exc:  # the server's refusal, or a call that failed
        if (exc.code is None or exc.code in _BAD_INPUT) and exc.violations:
            return _report(exc.violations)
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except ServerUnreachable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except ChannelError as exc:  # a connection flag (or variable) that cannot be used
        where = exc.option if exc.option.startswith("$") else f"--{exc.option.replace('_', '-')}"
        print(f"error: {where}: {exc.message}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. | head: the reader has gone; end quietly
        _silence_stdout()
        return _PIPE_CLOSED


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so flushing it at exit raises nothing more."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no real file descriptor (tests)
        pass

#!/usr/bin/env python3
"""Crash test of the ledger: SIGKILL a duetime server under load, restart it
on the same store, and check that nothing answered was lost.

    python scripts/crash_test.py --repeat 10                  # both stores, 2000 calls a round
    python scripts/crash_test.py --store sqlite --repeat 3 --calls 300

Each round starts ``python -m duetime serve`` on the store, sends ``--calls``
calls (ComputeDueTime and ComputeSchedule, inline and bundle calendars, each
with its own idempotency key) from ``--threads`` threads, and SIGKILLs the
server at a random moment: when a random number of answers (10–90 % of the
calls) has come back, calls still in flight. It then restarts the server on
the same store and checks:

- every call that got an answer has its record, whose request and response
  are byte-identical to what was sent and received;
- the same call sent again (same key) returns exactly the bytes first
  received (same record id);
- every call that got no answer succeeds when retried with its key (it was
  either recorded before the kill and is replayed, or is computed now);
- ``duetime records verify`` passes on the store.

Stores: SQLite (a file in a temporary directory) and PostgreSQL (a new
database on ``$DUETIME_TEST_PG_DSN``, else on a throwaway server started with
scripts/pg_test_server.py). Rounds on one store share it, so later rounds
verify earlier rounds' records too. Prints a line per round and exits 1 if
any round failed.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import random
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from duetime.cli import main as duetime_main  # noqa: E402
from duetime.v1 import duetime_pb2 as pb  # noqa: E402
from server_process import ServerProcess  # noqa: E402

SERVICE = "/duetime.v1.DueTimeService/"
CALL_TIMEOUT = 10.0


def make_call(i: int, prefix: str) -> tuple[str, bytes]:
    """Call number ``i``: (RPC name, request bytes), keyed ``prefix/i``."""
    key = f"{prefix}/{i}"
    if i % 3 == 2:
        request = pb.ComputeScheduleRequest(
            calendar=pb.Calendar(bundle="hr-zagreb"), idempotency_key=key, deadlines=[
                pb.DeadlineSpec(name="remind", duration=f"{1 + i % 5}bd"),
                pb.DeadlineSpec(name="escalate", duration=f"{2 + i % 7}bh", after="remind")])
        request.entered_time.FromSeconds(1_796_000_000 + 3607 * i)
        return "ComputeSchedule", request.SerializeToString(deterministic=True)
    calendar = (pb.Calendar(bundle="us-new-york") if i % 3 else pb.Calendar(
        time_zone="Europe/Zagreb", holidays=[pb.Holiday(date="2026-12-25", name="Christmas")]))
    request = pb.ComputeDueTimeRequest(duration=f"{1 + i % 40}bh", calendar=calendar,
                                       idempotency_key=key)
    request.start.FromSeconds(1_796_000_000 + 3607 * i)
    return "ComputeDueTime", request.SerializeToString(deterministic=True)


def raw_call(channel: grpc.Channel, rpc: str, request: bytes) -> bytes:
    """Call ``rpc`` with serialized ``request``; the response bytes exactly as received."""
    return channel.unary_unary(SERVICE + rpc)(request, timeout=CALL_TIMEOUT)


@dataclass
class Round:
    """One kill and what was found after the restart."""

    store: str
    calls: int
    kill_at: int  # answers received when the kill was sent
    answered: int = 0  # calls that got an answer before the kill
    unanswered: int = 0  # calls in flight at the kill (or failing before it)
    found: int = 0  # answered calls whose record is in the store
    identical: int = 0  # …byte-identical (request and response)
    replays_identical: int = 0  # answered calls whose retry returned the same bytes
    recorded_unanswered: int = 0  # unanswered calls whose retry replayed a stored record
    retried_ok: int = 0  # unanswered calls that succeeded when retried
    verify: str = ""
    restarted_at: float = 0.0  # records received earlier were written before the kill
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return (not self.problems and self.answered == self.found == self.identical
                == self.replays_identical and self.retried_ok == self.unanswered
                and self.verify.startswith("ok"))

    def line(self) -> str:
        return (f"{self.store:<10} kill after {self.kill_at:>4} answers: answered {self.answered:>4}, "
                f"records found {self.found:>4}, byte-identical {self.identical:>4}, replays "
                f"identical {self.replays_identical:>4}; unanswered {self.unanswered:>4} (recorded "
                f"before the kill {self.recorded_unanswered}, retried ok {self.retried_ok}); "
                f"verify: {self.verify}" + ("" if self.ok else f"  FAILED {self.problems[:3]}"))


def load_until_killed(server: ServerProcess, calls: list[tuple[str, bytes]], threads: int,
                      kill_at: int) -> dict[int, bytes | None]:
    """Send ``calls`` from ``threads`` threads; SIGKILL ``server`` once
    ``kill_at`` answers have arrived. Returns each sent call's answer bytes
    (None: no answer). No call is sent after the kill."""
    outcomes: dict[int, bytes | None] = {}
    lock = threading.Lock()
    next_call = iter(range(len(calls)))
    killed = threading.Event()

    def worker() -> None:
        channel = grpc.insecure_channel(server.address)
        try:
            while not killed.is_set():  # after the kill, only the calls in flight remain
                with lock:
                    i = next(next_call, None)
                if i is None:
                    return
                try:
                    answer = raw_call(channel, *calls[i])
                except grpc.RpcError:
                    answer = None
                with lock:
                    outcomes[i] = answer
                    answers = sum(1 for a in outcomes.values() if a is not None)
                if answers >= kill_at and not killed.is_set():
                    killed.set()
                    server.proc.kill()  # SIGKILL, in the middle of the other threads' calls
        finally:
            channel.close()

    workers = [threading.Thread(target=worker) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=300)
    server.kill()
    return outcomes


def check_after_restart(server: ServerProcess, result: Round, calls: list[tuple[str, bytes]],
                        outcomes: dict[int, bytes | None]) -> None:
    channel = server.channel
    for i, answer in sorted(outcomes.items()):
        rpc, request = calls[i]
        if answer is None:
            result.unanswered += 1
            try:
                again = raw_call(channel, rpc, request)
            except grpc.RpcError as exc:
                result.problems.append(f"call {i}: retry failed: {exc.code().name}")
                continue
            result.retried_ok += 1
            response = getattr(pb, f"{rpc}Response").FromString(again)
            record = server.stub.GetRecord(pb.GetRecordRequest(record_id=response.record_id),
                                           timeout=CALL_TIMEOUT).record
            if record.receive_time.ToSeconds() < result.restarted_at:
                result.recorded_unanswered += 1
            continue
        result.answered += 1
        response = getattr(pb, f"{rpc}Response").FromString(answer)
        try:
            record = server.stub.GetRecord(pb.GetRecordRequest(record_id=response.record_id),
                                           timeout=CALL_TIMEOUT).record
        except grpc.RpcError as exc:
            result.problems.append(f"call {i}: answered with record {response.record_id}, "
                                   f"GetRecord: {exc.code().name}")
            continue
        result.found += 1
        if record.request.value == request and record.response.value == answer:
            result.identical += 1
        else:
            result.problems.append(f"call {i}: record {record.record_id} differs from the call")
        if raw_call(channel, rpc, request) == answer:
            result.replays_identical += 1
        else:
            result.problems.append(f"call {i}: the replay differs from the first answer")


def verify(db: str) -> str:
    """``duetime records verify --db db``, in process: its output line."""
    out = []
    with contextlib.redirect_stdout(_Lines(out)), contextlib.redirect_stderr(_Lines(out)):
        code = duetime_main(["records", "verify", "--db", db])
    text = "".join(out).strip().replace("\n", " | ")
    return text if code == 0 else f"FAILED ({code}): {text}"


class _Lines:
    def __init__(self, out: list[str]):
        self.out = out

    def write(self, text: str) -> int:
        self.out.append(text)
        return len(text)

    def flush(self) -> None:
        pass


def crash_round(store: str, db: str, calls: int, threads: int, rng: random.Random) -> Round:
    """One round on ``db``: load, SIGKILL at a random moment, restart, check."""
    prefix = f"crash-{uuid.uuid4().hex[:8]}"
    work = [make_call(i, prefix) for i in range(calls)]
    result = Round(store, calls, kill_at=rng.randint(calls // 10, calls * 9 // 10))
    server = ServerProcess(db)
    try:
        outcomes = load_until_killed(server, work, threads, result.kill_at)
    finally:
        server.kill()
    result.restarted_at = time.time()
    restarted = ServerProcess(db)
    try:
        check_after_restart(restarted, result, work, outcomes)
        code = restarted.terminate()
        if code != 0:
            result.problems.append(f"the restarted server exited {code}")
    finally:
        restarted.kill()
    result.verify = verify(db)
    return result


def _pg_server():
    spec = importlib.util.spec_from_file_location("pg_test_server",
                                                  ROOT / "scripts" / "pg_test_server.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@contextlib.contextmanager
def stores(names: list[str]) -> Iterator[list[tuple[str, str]]]:
    """(store, db) pairs: a fresh SQLite file, a fresh PostgreSQL database."""
    import os
    import urllib.parse

    found, cleanup = [], []
    with tempfile.TemporaryDirectory(prefix="duetime-crash-") as tmp:
        if "sqlite" in names:
            found.append(("sqlite", str(Path(tmp) / "ledger.db")))
        if "postgres" in names:
            import psycopg

            admin = os.environ.get("DUETIME_TEST_PG_DSN")
            if not admin:
                server = _pg_server().PgServer.create()
                cleanup.append(server.destroy)
                admin = server.dsn
            name = f"duetime_crash_{uuid.uuid4().hex[:10]}"
            with psycopg.connect(admin, autocommit=True) as conn:
                conn.execute(f'CREATE DATABASE "{name}" TEMPLATE template0')

            def drop(admin=admin, name=name):
                with psycopg.connect(admin, autocommit=True) as conn:
                    conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            cleanup.append(drop)
            parts = urllib.parse.urlsplit(admin)
            found.append(("postgres", urllib.parse.urlunsplit(parts._replace(path="/" + name))))
        try:
            yield found
        finally:
            for step in reversed(cleanup):
                with contextlib.suppress(Exception):
                    step()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--repeat", type=int, default=10, help="kills per store (default 10)")
    parser.add_argument("--calls", type=int, default=2000, help="calls per round (default 2000)")
    parser.add_argument("--threads", type=int, default=8, help="client threads (default 8)")
    parser.add_argument("--seed", type=int, help="random seed of the kill moments")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    names = ["sqlite", "postgres"] if args.store == "both" else [args.store]
    failed = 0
    began = time.monotonic()
    with stores(names) as chosen:
        for store, db in chosen:
            for _ in range(args.repeat):
                result = crash_round(store, db, args.calls, args.threads, rng)
                print(result.line(), flush=True)
                failed += not result.ok
    rounds = args.repeat * len(names)
    print(f"{rounds - failed}/{rounds} rounds passed in {time.monotonic() - began:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

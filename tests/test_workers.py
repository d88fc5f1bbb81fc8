"""``duetime serve --workers N``: pre-forked worker processes sharing the
port, one ledger, signals to the parent reaching every worker.

Each real server here is ``python -m duetime serve --workers 2`` on
127.0.0.1 (:class:`server_process.ServerProcess`). The kernel hands each TCP
connection to one worker, so the tests open one channel per connection
(``grpc.use_local_subchannel_pool``) and learn which worker answered a call
from its request line (``worker I pid P: rpc … namespace=NS``), the call
carrying a namespace of its own.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import grpc
import pytest
from duetime.cli import main
from duetime.config import ConfigError, ServerConfig, check
from duetime.v1 import duetime_pb2_grpc as pb_grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from pg import admin_sql, pg_database, pg_dsn  # noqa: F401  (fixtures)
from server_process import CALENDARS, ServerProcess, free_port, zagreb_request

WORKER_STARTED = re.compile(r"INFO worker (\d+) started \(pid (\d+)\)")
SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


# ---------------------------------------------------------------------------
# the setting


def _usage_error(capsys, *flags: str) -> str:
    assert main(["serve", "--port", "0", *flags]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    return err.strip()


@pytest.mark.parametrize("value", ["0", "65", "-1", "two", "1.5"])
def test_workers_must_be_1_to_64(capsys, value):
    with pytest.raises(SystemExit) as exited:
        main(["serve", "--workers", value])
    assert exited.value.code == 2
    assert (f"argument --workers: {value!r} is not a number of worker processes (1..64; about "
            "one per CPU core, 1 serves from this process alone)") in capsys.readouterr().err


def test_workers_variable(capsys, monkeypatch):
    from duetime.config import resolve

    monkeypatch.setenv("DUETIME_WORKERS", "3")
    assert resolve({}).workers == 3
    assert resolve({"workers": 2}).workers == 2  # the flag wins
    monkeypatch.setenv("DUETIME_WORKERS", "0")
    assert _usage_error(capsys) == (
        "error: DUETIME_WORKERS: '0' is not a number of worker processes (1..64; about one per "
        "CPU core, 1 serves from this process alone)")
    monkeypatch.delenv("DUETIME_WORKERS")
    assert resolve({}).workers == 1


def test_each_worker_needs_its_own_metrics_port():
    def refusal(**settings) -> str:
        with pytest.raises(ConfigError) as refused:
            check(ServerConfig(**settings))
        return str(refused.value)

    check(ServerConfig(port=9000, metrics_port=9100, http_port=9102, workers=2))
    assert refusal(port=9000, metrics_port=9100, http_port=9101, workers=2) == (
        "--http-port: port 9101 is already the metrics port of worker 2 (--metrics-port "
        "(DUETIME_METRICS_PORT) + 1); give each listener its own port")
    assert refusal(port=9000, metrics_port=65535, workers=2) == (
        "--workers: 2 workers serve metrics on ports 65535..65536, past 65535: give a lower "
        "--metrics-port or fewer --workers")


# ---------------------------------------------------------------------------
# real servers


def _channel(server: ServerProcess) -> grpc.Channel:
    """A channel on a connection of its own (not shared with other channels)."""
    return grpc.insecure_channel(server.address, options=[("grpc.use_local_subchannel_pool", 1)])


def _worker_pids(server: ServerProcess) -> dict[int, int]:
    """{worker number: pid} from the parent's ``worker I started (pid P)`` lines."""
    return {int(m.group(1)): int(m.group(2))
            for line in server.stderr if (m := WORKER_STARTED.search(line))}


def _who_answered(server: ServerProcess, namespace: str) -> int:
    """The pid of the worker whose request line shows ``namespace``."""
    line = server.await_log(rf"worker \d+ pid \d+: rpc \S+ OK .* namespace={namespace}(?: |$)")
    return int(re.search(r"worker \d+ pid (\d+):", line).group(1))


def _one_channel_per_worker(server: ServerProcess, workers: int) -> dict[int, grpc.Channel]:
    """{pid: a channel whose connection that worker serves} for every worker,
    opening connections until each worker has one (bounded)."""
    found: dict[int, grpc.Channel] = {}
    for k in range(64):
        channel = _channel(server)
        namespace = f"probe-{k}"
        pb_grpc.DueTimeServiceStub(channel).ComputeDueTime(
            zagreb_request(), metadata=[("x-duetime-namespace", namespace)], timeout=10)
        pid = _who_answered(server, namespace)
        if pid in found:
            channel.close()
        else:
            found[pid] = channel
        if len(found) == workers:
            return found
    raise AssertionError(f"64 connections reached only the workers {sorted(found)}")


def _gone(pid: int) -> bool:
    """The process ``pid`` has exited and been reaped (no zombie left)."""
    return not Path(f"/proc/{pid}").exists()


@pytest.fixture(name="two_workers")
def two_workers_fixture(tmp_path):
    started: list[ServerProcess] = []

    def start(*extra: str, db: str | None = None) -> ServerProcess:
        server = ServerProcess(db or tmp_path / "ledger.db", CALENDARS, "--workers", "2", *extra)
        started.append(server)
        return server

    yield start
    for server in started:
        for pid in _worker_pids(server).values():
            if not _gone(pid):
                os.kill(pid, signal.SIGKILL)
        server.kill()


def _two_free_ports() -> int:
    """A port P such that P and P + 1 are free on 127.0.0.1 right now."""
    for _ in range(50):
        port = free_port()
        with socket.socket() as next_one:
            try:
                next_one.bind(("127.0.0.1", port + 1))
            except OSError:
                continue
        return port
    raise AssertionError("no two consecutive free ports")


def _ok_due_times(metrics_port: int) -> int:
    """ComputeDueTime calls answered OK, from the metrics on ``metrics_port``."""
    with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10) as reply:
        text = reply.read().decode()
    for line in text.splitlines():
        if (line.startswith("duetime_rpc_requests_total{") and 'code="OK"' in line
                and 'method="/duetime.v1.DueTimeService/ComputeDueTime"' in line):
            return int(float(line.rsplit(" ", 1)[1]))
    return 0


def test_two_workers_answer_into_one_ledger_and_stop_on_sigterm(two_workers):
    metrics_port = _two_free_ports()
    server = two_workers("--metrics-port", str(metrics_port))
    pids = _worker_pids(server)
    assert sorted(pids) == [1, 2] and len(set(pids.values())) == 2
    assert server.await_log(r"INFO duetime listening on 127\.0\.0\.1:\d+ \(2 workers, pids ")
    channels = _one_channel_per_worker(server, 2)
    assert set(channels) == set(pids.values())  # each worker answered a call
    record_ids = set()
    for pid, channel in channels.items():
        stub = pb_grpc.DueTimeServiceStub(channel)
        for i in range(10):
            record_ids.add(stub.ComputeDueTime(zagreb_request(f"k-{pid}-{i}"), timeout=10).record_id)
        channel.close()
    assert len(record_ids) == 20
    # each worker counts its own calls on its own port; together, every call
    counts = [_ok_due_times(metrics_port), _ok_due_times(metrics_port + 1)]
    assert all(counts)

    assert server.terminate() == 0, "".join(server.stderr)
    log = "".join(server.stderr)
    assert "INFO duetime shutting down: stopping 2 workers" in log
    for number, pid in pids.items():
        assert f"INFO worker {number} pid {pid}: duetime shutting down" in log
        assert _gone(pid), f"worker {number} (pid {pid}) outlived the server"
    assert log.rstrip().endswith("INFO all workers stopped")
    with sqlite3.connect(server.db_path) as db:
        stored = dict(db.execute("SELECT record_id, namespace FROM records"))
    assert {r for r, namespace in stored.items() if namespace == ""} == record_ids
    assert all(namespace.startswith("probe-") for namespace in stored.values() if namespace)
    assert sum(counts) == len(stored)


def test_sighup_to_the_parent_reaches_every_worker(two_workers, tmp_path):
    tokens = tmp_path / "tokens"
    tokens.write_text("first-token\n")
    server = two_workers("--auth-tokens", str(tokens))
    pids = _worker_pids(server)
    tokens.write_text("first-token\nsecond-token\n")
    os.kill(server.proc.pid, signal.SIGHUP)
    server.await_log(r"INFO SIGHUP: sent on to 2 workers")
    reloaded = {int(re.search(r"worker \d+ pid (\d+):", server.await_log(
        r"worker \d+ pid \d+: bearer tokens reloaded: 2 token\(s\)")).group(1)) for _ in pids}
    assert reloaded == set(pids.values())
    channel = _channel(server)
    reply = pb_grpc.DueTimeServiceStub(channel).ComputeDueTime(
        zagreb_request(), metadata=[("authorization", "Bearer second-token")], timeout=10)
    assert reply.record_id
    assert server.terminate() == 0


def test_a_worker_that_dies_is_logged_and_started_again(two_workers):
    server = two_workers()
    pids = _worker_pids(server)
    server.await_log(r"INFO duetime listening on .* \(2 workers")
    os.kill(pids[1], signal.SIGKILL)
    server.await_log(rf"ERROR worker 1 \(pid {pids[1]}\) was killed by SIGKILL unexpectedly; "
                     r"starting a new worker 1")
    new = int(re.search(r"\(pid (\d+)\)", server.await_log(r"INFO worker 1 started")).group(1))
    server.await_log(rf"INFO worker 1 \(pid {new}\) serving")
    assert new not in pids.values() and _gone(pids[1])
    channels = _one_channel_per_worker(server, 2)
    assert set(channels) == {new, pids[2]}
    for channel in channels.values():
        channel.close()
    assert server.terminate() == 0
    assert _gone(new) and _gone(pids[2])


def test_a_draining_worker_reports_not_serving_and_is_replaced(two_workers):
    """A worker sent SIGTERM on its own drains as a single server does (its
    health watchers see NOT_SERVING); it was not asked by the parent, so the
    parent starts another in its place."""
    server = two_workers("--grace", "2")
    channels = _one_channel_per_worker(server, 2)
    pid, channel = next(iter(channels.items()))
    number = {p: n for n, p in _worker_pids(server).items()}[pid]
    watch = health_pb2_grpc.HealthStub(channel).Watch(
        health_pb2.HealthCheckRequest(service="duetime.v1.DueTimeService"), timeout=30)
    assert next(watch).status == SERVING
    os.kill(pid, signal.SIGTERM)
    assert next(watch).status == NOT_SERVING
    watch.cancel()
    server.await_log(rf"ERROR worker {number} \(pid {pid}\) exited with code 0 unexpectedly; "
                     rf"starting a new worker {number}")
    server.await_log(rf"INFO worker {number} \(pid \d+\) serving")
    for c in channels.values():
        c.close()
    assert server.terminate() == 0


@pytest.fixture(params=["sqlite", "postgres"])
def store(request, tmp_path):
    """(--db value, run one SQL statement in the store)."""
    if request.param == "sqlite":
        path = str(tmp_path / "ledger.db")

        def sql(statement):
            with sqlite3.connect(path) as conn:
                return conn.execute(statement).fetchall()
        return path, sql
    dsn = request.getfixturevalue("pg_dsn")
    return dsn, lambda statement: admin_sql(statement, dsn=dsn)


def test_an_idempotency_race_across_two_workers_has_one_winner(two_workers, store):
    """Two workers receive the same key at the same moment (a barrier lets
    both calls go together), 25 times with the same request (both get the
    one record) and 25 times with different requests (one gets it, the other
    ALREADY_EXISTS), as two threads of one process would; on both stores."""
    db, sql = store
    server = two_workers(db=db)
    channels = list(_one_channel_per_worker(server, 2).values())
    stubs = [pb_grpc.DueTimeServiceStub(c) for c in channels]
    metadata = [("x-duetime-namespace", "race")]

    def race(requests) -> list:
        barrier = threading.Barrier(2)
        results: list = [None, None]

        def call(i: int) -> None:
            barrier.wait()
            try:
                results[i] = stubs[i].ComputeDueTime(requests[i], metadata=metadata, timeout=10)
            except grpc.RpcError as exc:
                results[i] = exc

        threads = [threading.Thread(target=call, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return results

    winners = {}
    for i in range(25):
        first, second = race([zagreb_request(f"same-{i}"), zagreb_request(f"same-{i}")])
        assert not isinstance(first, grpc.RpcError) and not isinstance(second, grpc.RpcError)
        assert first.record_id == second.record_id
        winners[f"same-{i}"] = first.record_id
        assert first.SerializeToString() == second.SerializeToString()
    for i in range(25):
        other = zagreb_request(f"other-{i}")
        other.duration = "4bd"
        results = race([zagreb_request(f"other-{i}"), other])
        refused = [r for r in results if isinstance(r, grpc.RpcError)]
        assert len(refused) == 1, results
        winners[f"other-{i}"] = next(r.record_id for r in results if r not in refused)
        assert refused[0].code() == grpc.StatusCode.ALREADY_EXISTS
        assert f"idempotency key 'other-{i}' was already used in namespace 'race'" in \
            refused[0].details()
    for c in channels:
        c.close()
    assert server.terminate() == 0
    stored = sql("SELECT idempotency_key, record_id FROM records WHERE namespace = 'race'")
    assert dict(stored) == winners and len(stored) == 50


# ---------------------------------------------------------------------------
# the SQLite store shared by processes, without a server

_WRITER = r"""
import json, os, sys, threading, time
from duetime.ledger import GroupCommit, LedgerRow, SqliteLedger

path, me, keys, unkeyed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
ledger = SqliteLedger(path)
commit = GroupCommit(ledger)
open(f"{path}.ready-{me}", "w").close()
while not all(os.path.exists(f"{path}.ready-{p}") for p in ("a", "b")):
    time.sleep(0.001)
won, unkeyed_ids = {}, []

def row(record_id, key, request):
    return LedgerRow.create(record_id=record_id, method="/m", receive_time_us=1, idempotency_key=key,
                            request=request, response=b"r", calendar_version="c",
                            rules_version="r", tzdata_version="t")

def work(t):
    for k in range(t, keys, 8):
        won[k] = commit.put(row(f"{me}-{k}", f"key-{k}", b"same")).record_id
    for k in range(t, unkeyed, 8):
        stored = commit.put(row(f"{me}-u{k}", "", me.encode()))
        unkeyed_ids.append(stored.record_id)

threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
for t in threads: t.start()
for t in threads: t.join()
ledger.close()
print(json.dumps({"won": won, "unkeyed": unkeyed_ids}))
"""


def test_two_processes_writing_one_sqlite_file_lose_nothing_and_share_keys(tmp_path):
    """Two processes, eight threads each through a group commit, race on the
    same 300 idempotency keys and add 300 rows without a key each: every
    key has one row, both processes were told the same winner, and every row
    a process was told is stored is in the file."""
    path = tmp_path / "shared.db"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    writers = [subprocess.Popen([sys.executable, "-c", _WRITER, str(path), me, "300", "300"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
               for me in ("a", "b")]
    outputs = []
    for writer in writers:
        out, err = writer.communicate(timeout=120)
        assert writer.returncode == 0, err
        outputs.append(json.loads(out))
    a, b = outputs
    assert a["won"] == b["won"] and len(a["won"]) == 300
    assert {record_id.split("-")[0] for record_id in a["won"].values()} <= {"a", "b"}
    with sqlite3.connect(path) as db:
        stored = {row[0]: row[1] for row in db.execute(
            "SELECT record_id, idempotency_key FROM records")}
    assert sorted(stored[r] for r in a["won"].values()) == sorted(f"key-{k}" for k in range(300))
    assert len(stored) == 300 + 600
    assert set(a["unkeyed"]) | set(b["unkeyed"]) == {r for r, key in stored.items() if not key}
    assert len(a["unkeyed"]) == len(b["unkeyed"]) == 300


def test_a_port_another_program_shares_is_refused(tmp_path):
    """Only the workers of one server share its port: a port another program
    listens on, even with SO_REUSEPORT, is refused before any worker starts."""
    with socket.socket() as other:
        other.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "duetime", "serve", "--workers", "2", "--port", str(port),
             "--db", str(tmp_path / "ledger.db"), "--calendars", str(CALENDARS)],
            capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 1, done.stderr
    assert done.stderr.endswith(
        f"error: --port: cannot listen on 127.0.0.1:{port} for the gRPC API: the port is in use "
        "(another process listens there, perhaps another duetime serve); choose another with "
        "--port PORT (or DUETIME_PORT); --port 0 picks a free one\n")
    assert "worker 1 started" not in done.stderr


def test_a_worker_that_cannot_start_stops_the_server(tmp_path):
    """Worker 2's metrics port is taken: it logs why and exits before it
    serves; the parent stops worker 1 and exits 1, naming worker 2."""
    metrics_port = _two_free_ports()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", metrics_port + 1))
        taken.listen()
        done = subprocess.run(
            [sys.executable, "-m", "duetime", "serve", "--workers", "2", "--port", "0",
             "--metrics-port", str(metrics_port), "--db", str(tmp_path / "ledger.db"),
             "--calendars", str(CALENDARS)],
            capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 1, done.stderr
    pids = {int(m.group(1)): int(m.group(2)) for m in WORKER_STARTED.finditer(done.stderr)}
    assert re.search(rf"ERROR worker 2 pid {pids[2]}: error: cannot bind the metrics listener "
                     rf"127\.0\.0\.1:{metrics_port + 1}: ", done.stderr), done.stderr
    assert done.stderr.endswith(
        f"error: worker 2 (pid {pids[2]}) exited with code 1 before it served (its error is "
        "logged above); the other workers were stopped\n"), done.stderr
    assert "INFO all workers stopped" in done.stderr
    assert _gone(pids[1]) and _gone(pids[2])


def test_one_worker_is_this_process_as_before(tmp_path):
    """--workers 1 (the default) forks nothing: the process started serves,
    its lines carry no worker mark, and it stops on SIGTERM as before."""
    server = ServerProcess(tmp_path / "ledger.db", CALENDARS, "--workers", "1")
    try:
        reply = server.stub.ComputeDueTime(zagreb_request("one"), timeout=10)
        line = server.await_log(r"rpc /duetime\.v1\.DueTimeService/ComputeDueTime OK")
        assert f"record_id={reply.record_id}" in line and " worker " not in line
        children = Path(f"/proc/{server.proc.pid}/task/{server.proc.pid}/children").read_text()
        assert children.split() == []
        assert server.terminate() == 0
    finally:
        server.kill()
    log = "".join(server.stderr)
    assert "worker 1" not in log and "workers)" not in log
    assert re.search(r"INFO configuration: .* workers=1[ \n]", log)
    assert log.rstrip().endswith("INFO duetime shutting down")

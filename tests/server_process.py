"""Test helper: a real ``python -m duetime serve`` subprocess on 127.0.0.1.

Test modules import :class:`ServerProcess`, :func:`start_with_http`,
:func:`zagreb_request`, :func:`free_port`, :func:`ts`,
:data:`SUPPORT_CONTRACT_EVENTS` and the
fixtures ``server`` (one per module; import ``server_fixture``) and
``start_server`` (a fresh server per call; import ``start_server_fixture``).

The server binds port 0; its port is read from its ``duetime listening on``
stderr line and readiness is awaited on the gRPC health service, each with a
bounded timeout (no sleeps). It serves the repository's ``calendars/`` unless
given another directory; :meth:`ServerProcess.await_log` waits (bounded) for
a later log line, such as a reload's.
"""

from __future__ import annotations

import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import grpc
import pytest
from duetime.v1 import duetime_pb2 as pb
from duetime.v1 import duetime_pb2_grpc as pb_grpc
from google.protobuf.timestamp_pb2 import Timestamp
from grpc_health.v1 import health_pb2, health_pb2_grpc

STARTUP_TIMEOUT = 30.0
LISTENING = re.compile(r"duetime listening on 127\.0\.0\.1:(\d+)")
HTTP_LISTENING = r"duetime HTTP/JSON listening on http://127\.0\.0\.1:(\d+)"
CALENDARS = Path(__file__).resolve().parents[1] / "calendars"


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def ts(text: str) -> Timestamp:
    """The Timestamp of RFC 3339 ``text``."""
    stamp = Timestamp()
    stamp.FromJsonString(text)
    return stamp


SUPPORT_CONTRACT_EVENTS = [
    ("start", "2026-12-11T10:00:00+01:00", {}),
    ("customer_reply", "2026-12-14T10:00:00+01:00", {}),
    ("tier_change", "2026-12-17T10:00:00+01:00", {"tier": "priority"}),
    ("awaiting_third_party", "2026-12-18T10:00:00+01:00", {}),
    ("customer_reply", "2026-12-20T10:00:00+01:00", {}),
    ("resolved", "2026-12-29T11:00:00+01:00", {}),
]
"""The support-contract scenario (README "SLA clocks"): (type, time, attributes)."""


def zagreb_request(key: str = "") -> pb.ComputeDueTimeRequest:
    """docs/semantics.md §3's example: Friday 2026-11-27 16:00 Zagreb + 3bd, Christmas holidays."""
    request = pb.ComputeDueTimeRequest(
        duration="3bd",
        calendar=pb.Calendar(
            time_zone="Europe/Zagreb",
            holidays=[pb.Holiday(date="2026-12-25"), pb.Holiday(date="2026-12-26")],
        ),
        idempotency_key=key,
    )
    request.start.FromJsonString("2026-11-27T15:00:00Z")
    return request


class ServerProcess:
    """A running ``duetime serve --port 0`` subprocess with a channel to it."""

    def __init__(self, db_path: Path, calendars: Path = CALENDARS, *extra_args: str):
        self._spawn(db_path, calendars, extra_args)
        self.channel = grpc.insecure_channel(self.address)
        self.stub = pb_grpc.DueTimeServiceStub(self.channel)
        self.calendars = pb_grpc.CalendarServiceStub(self.channel)
        health = health_pb2_grpc.HealthStub(self.channel).Check(
            health_pb2.HealthCheckRequest(service="duetime.v1.DueTimeService"),
            timeout=STARTUP_TIMEOUT,
            wait_for_ready=True,
        )
        assert health.status == health_pb2.HealthCheckResponse.SERVING

    def _spawn(self, db_path: Path, calendars: Path, args, env: dict[str, str] | None = None):
        """Start ``duetime serve --port 0 …ARGS`` with ``env`` added to this
        environment; set ``address`` once it logs its port."""
        self.db_path = db_path
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "duetime", "serve", "--port", "0", "--db", str(db_path),
             "--calendars", str(calendars), *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            # a server that does not exit is sent SIGABRT: its threads' stacks
            # then show in the failure (see wait_exit)
            env={**os.environ, "PYTHONFAULTHANDLER": "1", **(env or {})},
        )
        self.stderr: list[str] = []
        self.drained = threading.Event()
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._drain, args=(self.lines,), daemon=True).start()
        self.address = f"127.0.0.1:{self._await_port(self.lines)}"

    def _drain(self, lines: queue.Queue) -> None:
        for line in self.proc.stderr:
            self.stderr.append(line)
            lines.put(line)
        lines.put(None)
        self.drained.set()

    def _await_port(self, lines: queue.Queue) -> int:
        while True:
            try:
                line = lines.get(timeout=STARTUP_TIMEOUT)
            except queue.Empty as exc:
                raise AssertionError(f"no listening line; stderr: {''.join(self.stderr)}") from exc
            if line is None:
                raise AssertionError(f"server exited; stderr: {''.join(self.stderr)}")
            if match := LISTENING.search(line):
                return int(match.group(1))

    def await_log(self, pattern: str, timeout: float = 10.0) -> str:
        """The next stderr line (after those already awaited) matching the
        regular expression ``pattern``; AssertionError after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                raise AssertionError(f"server exited; stderr: {''.join(self.stderr)}")
            if re.search(pattern, line):
                return line
        raise AssertionError(f"no line matching {pattern!r}; stderr: {''.join(self.stderr)}")

    def terminate(self, timeout: float = 15.0, *, pid: int | None = None) -> int:
        """SIGTERM the server and return its exit code (bounded wait).

        ``pid``: a thread id of the server to address the signal to (the
        kernel hands a process-directed signal to that thread first).
        AssertionError with the server's stderr, thread stacks included, if
        it is still running after ``timeout`` s."""
        self.channel.close()
        os.kill(self.proc.pid if pid is None else pid, signal.SIGTERM)
        return self.wait_exit(timeout)

    def wait_exit(self, timeout: float) -> int:
        """The exit code, waiting up to ``timeout`` s; else the server is sent
        SIGABRT (Python's faulthandler prints every thread's stack) and
        AssertionError carries its stderr."""
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.send_signal(signal.SIGABRT)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.drained.wait(timeout=10)
            raise AssertionError(f"the server had not exited {timeout:g} s after the signal; "
                                 f"stderr:\n{''.join(self.stderr)}") from None

    def thread_ids(self) -> dict[int, str]:
        """The server's threads other than the main one: {thread id: name}."""
        tasks = Path(f"/proc/{self.proc.pid}/task")
        return {int(t.name): (t / "comm").read_text().strip()
                for t in tasks.iterdir() if int(t.name) != self.proc.pid}

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def start_with_http(db_path: Path, *extra_args: str, timeout: float = 10.0) -> ServerProcess:
    """A :class:`ServerProcess` that also serves HTTP/JSON (``--http-port`` on
    a free port, then ``extra_args``), returned once that listener has logged
    its port (within ``timeout`` s); ``http_url`` is its base URL, without a
    trailing slash."""
    port = free_port()
    server = ServerProcess(db_path, CALENDARS, "--http-port", str(port), *extra_args)
    try:
        line = server.await_log(HTTP_LISTENING, timeout=timeout)
        assert int(re.search(HTTP_LISTENING, line).group(1)) == port
    except BaseException:
        server.kill()
        raise
    server.http_url = f"http://127.0.0.1:{port}"
    return server


@pytest.fixture(name="start_server")
def start_server_fixture(tmp_path):
    """Factory: ``start_server(calendars=CALENDARS, *extra_args)`` starts a fresh
    server on its own ledger file."""
    started: list[ServerProcess] = []

    def start(calendars: Path = CALENDARS, *extra_args: str) -> ServerProcess:
        server = ServerProcess(tmp_path / f"ledger{len(started)}.db", calendars, *extra_args)
        started.append(server)
        return server

    yield start
    for server in started:
        server.kill()


@pytest.fixture(scope="module", name="server")
def server_fixture(tmp_path_factory):
    """One server shared by a test module; must still exit 0 on SIGTERM at the end."""
    running = ServerProcess(tmp_path_factory.mktemp("server") / "ledger.db")
    try:
        yield running
        assert running.terminate() == 0, "".join(running.stderr)
    finally:
        running.kill()

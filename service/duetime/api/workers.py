"""``duetime serve --workers N``: N pre-forked worker processes sharing the port.

The parent process (:func:`serve_workers`) checks what a single server
checks before it serves (the TLS and token files, the calendars, the ledger:
it opens it, creating and migrating it, and closes it again) and reserves the
gRPC port (and the HTTP port, with ``--http-port``): a socket bound with
``SO_REUSEPORT`` but not listening, held until the end, so ``--port 0``
picks one free port for all and another program cannot take it meanwhile.
Then it forks the workers. It creates no gRPC object, opens no ledger
connection and starts no thread of its own before forking: each worker builds
its own app, ledger connection, gRPC server (``grpc.so_reuseport`` 1) and HTTP
server (:func:`duetime.api.server.serve`), as grpcio's multiprocessing example
does. The kernel hands each new TCP connection to one of the listening
workers; every call on that connection is answered by that worker.

Every worker records into the one ledger ``--db`` names: a SQLite file (WAL;
writers of several processes take turns on SQLite's write lock, waiting up to
its busy timeout) or PostgreSQL. An idempotency key is held by one row of
that ledger, so two workers racing on one key have one winner, exactly as
two threads of one process do (``docs/semantics.md``, "Records").

Logs: every worker's lines go to the same stderr, marked ``worker I pid P:``
(JSON: ``worker`` and ``pid``; see :mod:`duetime.logs`). The parent logs the
configuration, ``worker I started (pid P)`` for each, ``duetime listening on
HOST:PORT (N workers)`` once all serve, and what it does on a signal.

Metrics (``--metrics-port P``): worker I serves its own counters on port
``P + I - 1``; scrape all N (the totals are their sums).

Signals, to the parent:

- SIGTERM or SIGINT: ``duetime shutting down``; each worker is sent SIGTERM
  and drains as a single server does (health NOT_SERVING, calls in flight
  finish within ``--grace``, the ledger closed last). The parent waits for
  every worker, kills one still running :data:`STOP_SLACK` s past its own
  deadline, and exits 0 once all have exited (1 if one had to be killed).
- SIGHUP: sent on to every worker (each reloads its calendars and token file).

A worker that exits while the parent is not stopping is logged (``worker I
(pid P) exited unexpectedly …``) and started again in its place. A worker
that exits before it serves (at start-up, or a replacement) stops the whole
server: the parent stops the others and exits 1, since such a failure
(a port taken, a file that went missing) would only repeat. Each worker is
sent SIGTERM by the kernel if the parent dies (``PR_SET_PDEATHSIG``), so no
worker outlives it.
"""

from __future__ import annotations

import ctypes
import logging
import os
import select
import signal
import socket
import sys
import threading
import time
from dataclasses import dataclass, replace

from duetime import logs, tzdb
from duetime.api.server import (
    STOP_SLACK,
    SignalWaiter,
    describe_ledger,
    log_configuration,
    serve,
)
from duetime.auth import TokenSet
from duetime.catalog import Catalog, CatalogError
from duetime.config import ConfigError, ServerConfig
from duetime.ledger import LedgerUnavailable, open_ledger

log = logging.getLogger("duetime.server")

STARTUP_TIMEOUT = 60.0
"""Seconds a worker may take from its fork until it serves."""
READY = b"serving\n"
"""What a worker writes to its pipe once every listener is up."""
_PR_SET_PDEATHSIG = 1


@dataclass
class Worker:
    """One worker process: its number (1..N), pid, the read end of the pipe
    it reports on while it starts (None once read to the end), and whether it
    serves."""

    number: int
    pid: int
    pipe: int | None
    started_at: float
    serving: bool = False


class _SupervisorSignals(SignalWaiter):
    """:class:`SignalWaiter` that also wakes on SIGCHLD (a worker exited)."""

    SIGNALS = SignalWaiter.SIGNALS + (signal.SIGCHLD,)


def serve_workers(config: ServerConfig) -> int:
    """Serve with ``config.workers`` worker processes (see the module
    docstring) until SIGTERM or SIGINT; return the exit code, 0 when every
    worker stopped by itself, 1 when one had to be killed.

    Must run in the main thread of a process with no other thread doing work
    (it forks). Raises CatalogError, LedgerUnavailable or ConfigError as
    :func:`duetime.api.server.serve` does when the parent's checks fail, and
    RuntimeError when a port cannot be reserved or a worker exits before it
    serves (the other workers are stopped first).
    """
    with _SupervisorSignals() as signals:
        return _Supervisor(config, signals).run()


class _Supervisor:
    def __init__(self, config: ServerConfig, signals: SignalWaiter):
        self.config = config
        self.signals = signals
        self.workers: dict[int, Worker] = {}  # by number
        self.reserved: list[socket.socket] = []
        self.worker_config = config

    def run(self) -> int:
        try:
            self._check()
            self._reserve_ports()
            _single_threaded()
            for number in range(1, self.config.workers + 1):
                self._fork(number)
            return self._supervise()
        finally:
            for sock in self.reserved:
                sock.close()

    # -- before forking: what a single server checks, in the same words

    def _check(self) -> None:
        config = self.config
        tzdb.pin()
        log_configuration(config)
        config.load_tls()
        if config.auth_tokens is not None:
            TokenSet(config.auth_tokens)
        if config.calendars:
            Catalog.load(config.calendars)  # each worker loads its own; this one checks
        ledger = open_ledger(config.db)  # created and migrated once, before the workers
        try:
            log.info("ledger: %s (shared by %d workers)", describe_ledger(ledger),
                     config.workers)
        finally:
            ledger.close()

    def _reserve_ports(self) -> None:
        port = self._reserve(self.config.host, self.config.port, "--port")
        http_port = (self._reserve(self.config.host, self.config.http_port, "--http-port")
                     if self.config.http_port else 0)
        self.worker_config = replace(self.config, port=port, http_port=http_port)

    def _reserve(self, host: str, port: int, flag: str) -> int:
        """Bind (not listen on) ``host:port`` with SO_REUSEPORT and keep the
        socket; return the port (a free one for 0). RuntimeError when another
        program holds it, whether it shares it or not."""
        shown = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        try:
            family, kind, proto, _, address = socket.getaddrinfo(
                host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
        except OSError as exc:
            raise RuntimeError(f"cannot bind {shown} ({flag}): {exc}") from None
        # Alone first (port 0: a free port): another server sharing its port
        # (SO_REUSEPORT) would otherwise let these workers join it.
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(address)
            except OSError:
                raise RuntimeError(f"cannot bind {shown} ({flag}): address in use, or not "
                                   "an address of this machine?") from None
            address = (address[0], probe.getsockname()[1], *address[2:])
        sock = socket.socket(family, kind, proto)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            sock.bind(address)
        except OSError:
            sock.close()
            raise RuntimeError(f"cannot bind {shown} ({flag}): address in use, or not an "
                               "address of this machine?") from None
        self.reserved.append(sock)
        return sock.getsockname()[1]

    # -- forking

    def _fork(self, number: int) -> None:
        """Start worker ``number``: fork with the signals blocked (the worker
        takes them once it is ready for them), then record it."""
        config = self.worker_config
        if config.metrics_port:
            config = replace(config, metrics_port=config.metrics_port + number - 1)
        reader, writer = os.pipe()
        for handler in logging.getLogger().handlers:
            handler.flush()  # nothing buffered is written twice, by parent and child
        sys.stderr.flush()
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, SignalWaiter.SIGNALS)
        try:
            pid = os.fork()
            if pid == 0:  # the worker: never returns
                os.close(reader)
                _run_worker(number, config, writer, os.getppid())
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        os.close(writer)
        os.set_blocking(reader, False)
        self.workers[number] = Worker(number, pid, reader, time.monotonic())
        log.info("worker %d started (pid %d)", number, pid)

    # -- serving

    def _supervise(self) -> int:
        """Until SIGTERM/SIGINT: note workers that serve, forward SIGHUP,
        restart a worker that exits; then stop them all."""
        announced = False
        while True:
            starting = [w.pipe for w in self.workers.values() if w.pipe is not None]
            readable, _, _ = select.select([self.signals, *starting], [], [], 1.0)
            received = self.signals.wait(0) if self.signals in readable else set()
            for worker in list(self.workers.values()):
                if worker.pipe is not None and worker.pipe in readable:
                    self._read_ready(worker)
            if received & {signal.SIGINT, signal.SIGTERM}:
                break
            if signal.SIGHUP in received:
                self._forward(signal.SIGHUP)
            failed = self._reap_unexpected()
            if failed is not None:
                self._stop_all()
                raise RuntimeError(failed)
            if not announced and all(w.serving for w in self.workers.values()):
                announced = True
                log.info("duetime listening on %s (%d workers, pids %s)",
                         _address(self.config.host, self.worker_config.port),
                         len(self.workers),
                         " ".join(str(w.pid) for w in self.workers.values()))
        log.info("duetime shutting down: stopping %d workers", len(self.workers))
        return self._stop_all()

    def _read_ready(self, worker: Worker) -> None:
        try:
            data = os.read(worker.pipe, 64)
        except BlockingIOError:
            return
        if data.startswith(READY):
            worker.serving = True
            log.info("worker %d (pid %d) serving", worker.number, worker.pid)
        elif data:
            return
        # served, or exited without serving (reaped below): nothing more to read
        self._close_pipe(worker)

    def _forward(self, signum: int) -> None:
        log.info("%s: sent on to %d workers", signal.Signals(signum).name, len(self.workers))
        for worker in self.workers.values():
            _kill(worker.pid, signum)

    def _reap_unexpected(self) -> str | None:
        """Reap workers that exited: restart one that was serving; return
        what went wrong when one exited (or hung) before it served."""
        now = time.monotonic()
        for worker in list(self.workers.values()):
            pid, status = os.waitpid(worker.pid, os.WNOHANG)
            if pid == 0:
                if not worker.serving and now - worker.started_at > STARTUP_TIMEOUT:
                    _kill(worker.pid, signal.SIGKILL)
                    os.waitpid(worker.pid, 0)
                    self._close_pipe(worker)
                    del self.workers[worker.number]
                    return (f"worker {worker.number} (pid {worker.pid}) did not start serving "
                            f"within {STARTUP_TIMEOUT:g} s")
                continue
            del self.workers[worker.number]
            how = _exit_status(status)
            if worker.pipe is not None:
                self._read_ready(worker)  # it may have served before it exited
            self._close_pipe(worker)
            if not worker.serving:
                return (f"worker {worker.number} (pid {worker.pid}) {how} before it served "
                        "(its error is logged above); the other workers were stopped")
            log.error("worker %d (pid %d) %s unexpectedly; starting a new worker %d",
                      worker.number, worker.pid, how, worker.number)
            self._fork(worker.number)
        return None

    @staticmethod
    def _close_pipe(worker: Worker) -> None:
        if worker.pipe is not None:
            os.close(worker.pipe)
            worker.pipe = None

    def _stop_all(self) -> int:
        """SIGTERM every worker and wait for each; SIGKILL one still running
        past the deadline. 0, or 1 when one had to be killed."""
        for worker in self.workers.values():
            _kill(worker.pid, signal.SIGTERM)
        grace = self.config.grace
        # a worker stops HTTP, then gRPC, then closes the ledger: each up to
        # the grace period and its slack
        wait = 3 * (grace + STOP_SLACK) + STOP_SLACK
        deadline = time.monotonic() + wait
        code = 0
        while self.workers:
            for worker in list(self.workers.values()):
                pid, status = os.waitpid(worker.pid, os.WNOHANG)
                if pid == 0:
                    continue
                del self.workers[worker.number]
                self._close_pipe(worker)
                if status != 0:
                    log.warning("worker %d (pid %d) %s", worker.number, worker.pid,
                                _exit_status(status))
            if not self.workers:
                break
            if time.monotonic() > deadline:
                for worker in self.workers.values():
                    log.error("worker %d (pid %d) still running %g s after SIGTERM; killed",
                              worker.number, worker.pid, wait)
                    _kill(worker.pid, signal.SIGKILL)
                    os.waitpid(worker.pid, 0)
                    self._close_pipe(worker)
                self.workers.clear()
                code = 1
                break
            select.select([self.signals], [], [], 0.05)  # SIGCHLD wakes it
            self.signals.wait(0)  # signals are ignored while stopping
        log.info("all workers stopped")
        return code


def _single_threaded(timeout: float = 2.0) -> None:
    """Make this process's log lines be written by the thread that logs them
    (a :class:`~duetime.logs.BatchingHandler` closed, its writer thread let
    go), and wait up to ``timeout`` s for no other thread to run: a fork
    copies only the calling thread, and a lock another thread held at that
    moment would stay locked in the child forever."""
    for handler in logging.getLogger().handlers:
        if isinstance(handler, logs.BatchingHandler):
            handler.close()  # it goes on writing, each line at once
    deadline = time.monotonic() + timeout
    while threading.active_count() > 1 and time.monotonic() < deadline:
        time.sleep(0.005)


def _run_worker(number: int, config: ServerConfig, ready: int, parent: int) -> None:
    """The body of worker ``number`` after the fork: serve ``config`` (its
    own ports' share), write :data:`READY` to the fd ``ready`` once serving,
    and exit the process (never return into the parent's stack)."""
    code = 1
    try:
        signal.set_wakeup_fd(-1)  # the parent's
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        _die_with(parent)
        logs.configure(config.log_format, worker=number)

        def started() -> None:
            os.write(ready, READY)

        serve(config, started)
        code = 0
    except ConfigError as exc:
        log.error("error: %s", exc)
        code = 2
    except CatalogError as exc:
        log.error("error: cannot load the calendars in %s: %s", config.calendars, exc)
    except (LedgerUnavailable, RuntimeError) as exc:
        log.error("error: %s", exc)
    except BaseException:  # noqa: BLE001 - logged; the parent restarts or stops
        log.exception("worker %d failed", number)
    finally:
        try:
            logging.shutdown()
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _die_with(parent: int) -> None:
    """Have the kernel send this process SIGTERM when its parent dies; exit
    now if it already has."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: the parent's SIGTERM still stops it
        pass
    if os.getppid() != parent:
        os._exit(1)


def _kill(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except ProcessLookupError:
        pass


def _exit_status(status: int) -> str:
    code = os.waitstatus_to_exitcode(status)
    if code < 0:
        return f"was killed by {signal.Signals(-code).name}"
    return f"exited with code {code}"


def _address(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host and not host.startswith("[") else f"{host}:{port}"

"""Prometheus metrics of a server (``duetime serve --metrics-port PORT``).

Served over plain HTTP at ``http://METRICS_HOST:PORT/metrics`` by
``prometheus_client`` from the server's own registry (nothing else in the
process registers there). That port answers ``GET`` and ``HEAD`` of
``/metrics`` only; any other path or verb is 404. The metrics:

``duetime_rpc_requests_total{method, code}`` (counter)
    Calls finished, by full gRPC method (``/duetime.v1.DueTimeService/ComputeDueTime``)
    and status code name (``OK``, ``INVALID_ARGUMENT``, ``UNAUTHENTICATED`` …).
    A finished call is buffered without a lock and counted (here and in the
    duration histogram) when the metrics are scraped.
    Counted by the server's call interceptor, so refused calls (a missing
    token, a call over budget) count too; a message refused by gRPC itself
    for its size never reaches a handler and is not counted.
``duetime_rpc_refusals_total{method, reason}`` (counter)
    Calls refused or failed, by method and the reason of their ErrorInfo
    (``REQUEST_TOO_LARGE``, ``IN_FLIGHT_BYTES_EXHAUSTED``,
    ``TENANT_CALLS_EXHAUSTED``, ``MESSAGE_TIMEOUT``, ``INVALID_ARGUMENT`` …;
    docs/semantics.md lists them): which bound a server's callers meet. Counted as
    ``duetime_rpc_requests_total`` is.
``duetime_rpc_duration_seconds{method}`` (histogram)
    Seconds from the handler's start to its answer (a stream: to its end).
``duetime_ledger_commit_seconds`` (histogram)
    Seconds of each ledger write transaction (one ``put_many``: a group
    commit of single calls, a batch, or a stream chunk), failed ones included.
``duetime_bundle_info{bundle, version, rules_version}`` (gauge, value 1)
    One series per loaded calendar bundle: the version a bare ``NAME``
    resolves to (its newest), and the rules version answers carry. Replaced
    whole when the calendars are reloaded.
``duetime_build_info{version, tzdata_version, rules_version}`` (gauge, value 1)
    The duetime package version and the tz database answers are computed with.
``duetime_token_reload_failed`` (gauge)
    1 when the last reload of the token file (SIGHUP) was refused (the file
    could not be read or holds a malformed line; the previous tokens stay in
    use and the log names the line), 0 otherwise.

plus ``prometheus_client``'s ``process_*`` (CPU, memory, file descriptors)
and ``python_info``.
"""

from __future__ import annotations

import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from importlib import metadata
from wsgiref.simple_server import WSGIRequestHandler, make_server

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    make_wsgi_app,
)
from prometheus_client.exposition import ThreadingWSGIServer
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from duetime.catalog import Catalog
from duetime.core import RULES_VERSION
from duetime.ledger import Ledger, LedgerRow
from duetime.tzdb import tzdata_version

RPC_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
               10.0, 30.0)
"""Latency buckets, seconds: from a cached answer (~0.5 ms) to a long batch."""
COMMIT_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
                  5.0)
"""Ledger commit buckets, seconds (an fsync on a local disk is ~1–10 ms)."""


def duetime_version() -> str:
    """The installed duetime package version ("unknown" outside an install)."""
    try:
        return metadata.version("duetime")
    except metadata.PackageNotFoundError:
        return "unknown"


class Metrics:
    """The metrics of one server, in their own registry."""

    MAX_PENDING = 10_000
    """The most finished calls held uncounted: the call that would add one
    more counts them all itself."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        # Finished calls, appended without a lock (deque.append is atomic) and
        # counted into the series below at each scrape: registered first, so
        # a scrape counts them before it reads the series.
        self._pending: deque[tuple[str, str, float, str]] = deque()
        self._counting = threading.Lock()
        self.registry.register(_PendingCalls(self))
        self.requests = Counter(
            "duetime_rpc_requests", "Calls (gRPC and HTTP/JSON) finished, by method and status code",
            ("method", "code"), registry=self.registry)
        self.refusals = Counter(
            "duetime_rpc_refusals", "Calls (gRPC and HTTP/JSON) refused or failed, by method and reason",
            ("method", "reason"), registry=self.registry)
        self.duration = Histogram(
            "duetime_rpc_duration_seconds", "Seconds a gRPC call took in the server",
            ("method",), buckets=RPC_BUCKETS, registry=self.registry)
        self.ledger_commit = Histogram(
            "duetime_ledger_commit_seconds", "Seconds of each ledger write transaction",
            buckets=COMMIT_BUCKETS, registry=self.registry)
        self._bundle_rows: tuple[tuple[str, str], ...] = ()
        self.registry.register(_BundleInfo(self))
        self.build = Gauge(
            "duetime_build_info", "duetime version and the tz database it computes with",
            ("version", "tzdata_version", "rules_version"), registry=self.registry)
        self.build.labels(duetime_version(), tzdata_version(), RULES_VERSION).set(1)
        self.token_reload_failed = Gauge(
            "duetime_token_reload_failed",
            "1 when the last token file reload was refused (the previous tokens stay in use)",
            registry=self.registry)
        ProcessCollector(registry=self.registry)
        PlatformCollector(registry=self.registry)
        self._http = None
        self._calls: dict[tuple[str, str], tuple] = {}

    def observe_call(self, method: str, code: str, seconds: float, reason: str = "") -> None:
        """Count one finished call (``seconds``: its duration; ``reason``: a
        refusal's ErrorInfo reason, ``""`` for none): held in a buffer (no
        lock taken) and counted into ``duetime_rpc_requests_total``,
        ``duetime_rpc_refusals_total`` and ``duetime_rpc_duration_seconds``
        at the next scrape, or by this call when :data:`MAX_PENDING` are held."""
        if len(self._pending) >= self.MAX_PENDING:
            self.count_pending()
        self._pending.append((method, code, seconds, reason))

    def count_pending(self) -> None:
        """Count the buffered calls into their series now (a scrape does this
        first). The labelled series of each (method, code) are looked up once
        and kept."""
        pending = self._pending
        with self._counting:
            while pending:
                method, code, seconds, reason = pending.popleft()
                children = self._calls.get((method, code))
                if children is None:
                    children = self._calls[method, code] = (self.requests.labels(method, code),
                                                            self.duration.labels(method))
                children[0].inc()
                children[1].observe(seconds)
                if reason:
                    self.refusals.labels(method, reason).inc()

    def set_catalog(self, catalog: Catalog) -> None:
        """Make ``duetime_bundle_info`` list ``catalog``'s bundles (and only
        them), in one assignment: a scrape sees the old list or the new one."""
        self._bundle_rows = tuple(sorted(catalog.bundles.summary().items()))

    def set_token_reload_failed(self, failed: bool) -> None:
        """Set ``duetime_token_reload_failed``: whether the last token file
        reload was refused."""
        self.token_reload_failed.set(1 if failed else 0)

    def timed(self, ledger: Ledger) -> Ledger:
        """``ledger`` with each write transaction timed into
        ``duetime_ledger_commit_seconds``."""
        return TimedLedger(ledger, self.ledger_commit)

    def serve(self, host: str, port: int) -> int:
        """Serve ``/metrics`` over HTTP on ``host:port`` in a daemon thread;
        return the bound port. Raises RuntimeError if it cannot bind."""
        try:
            self._http = _serve_metrics(host, port, metrics_only(make_wsgi_app(self.registry)))
        except OSError as exc:
            raise RuntimeError(f"cannot bind the metrics listener {host}:{port}: "
                               f"{exc.strerror or exc}") from None
        return self._http.server_port

    def close(self) -> None:
        """Stop serving ``/metrics``."""
        if self._http is not None:
            self._http.shutdown()
            self._http.server_close()
            self._http = None


METRICS_PATH = "/metrics"
_NOT_FOUND = (b"404 not found: this port serves only GET /metrics (Prometheus metrics); "
              b"the API is on the gRPC and HTTP ports\n")


def metrics_only(app: Callable) -> Callable:
    """The WSGI app ``app`` for ``GET`` or ``HEAD`` of :data:`METRICS_PATH`
    exactly (any query string; as sent, when the server puts the request
    line's path in ``duetime.raw_path``: ``//metrics`` is not it); anything
    else is ``404 Not Found``, plain text."""

    def serve(environ: dict, start_response: Callable) -> Iterable[bytes]:
        method = environ.get("REQUEST_METHOD")
        if environ.get("PATH_INFO") == METRICS_PATH and method in ("GET", "HEAD") and \
                environ.get("duetime.raw_path", METRICS_PATH) == METRICS_PATH:
            body = app({**environ, "REQUEST_METHOD": "GET"}, start_response)
            return [] if method == "HEAD" else body
        start_response("404 Not Found", [("Content-Type", "text/plain; charset=utf-8"),
                                         ("Content-Length", str(len(_NOT_FOUND)))])
        return [] if method == "HEAD" else [_NOT_FOUND]

    return serve


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format, *args) -> None:  # noqa: A002 - the base class's name
        """Scrapes are not logged."""

    def get_environ(self) -> dict:
        """The WSGI environ, with ``duetime.raw_path``: the path as the
        request line sent it (the base class folds a leading ``//`` into
        ``/``), without its query string."""
        environ = super().get_environ()
        parts = self.requestline.split()
        environ["duetime.raw_path"] = parts[1].split("?", 1)[0] if len(parts) == 3 else ""
        return environ


def _serve_metrics(host: str, port: int, app: Callable) -> ThreadingWSGIServer:
    """``app`` served on ``host:port`` by a daemon thread; OSError if it cannot bind."""
    family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]

    class Server(ThreadingWSGIServer):
        address_family = family

    server = make_server(host, port, app, Server, handler_class=_QuietHandler)
    threading.Thread(target=server.serve_forever, name="duetime-metrics", daemon=True).start()
    return server
class _PendingCalls(Collector):
    """Counts the calls :meth:`Metrics.observe_call` buffered into their
    series when the registry is collected; yields no metric of its own."""

    def __init__(self, metrics: Metrics):
        self._metrics = metrics

    def collect(self):
        self._metrics.count_pending()
        return iter(())


class _BundleInfo(Collector):
    """``duetime_bundle_info``, from the rows :meth:`Metrics.set_catalog` set last."""

    def __init__(self, metrics: Metrics):
        self._metrics = metrics

    def collect(self):
        family = GaugeMetricFamily(
            "duetime_bundle_info", "Loaded calendar bundles: the newest version of each",
            labels=("bundle", "version", "rules_version"))
        for name, version in self._metrics._bundle_rows:
            family.add_metric((name, version, RULES_VERSION), 1)
        yield family


class TimedLedger:
    """A ledger whose :meth:`put_many` (every write transaction: group
    commits, batches, stream chunks) is timed into a histogram; every other
    attribute is the wrapped ledger's."""

    def __init__(self, ledger: Ledger, histogram: Histogram):
        self._ledger = ledger
        self._histogram = histogram

    def put_many(self, rows: Sequence[LedgerRow]) -> list[LedgerRow]:
        began = time.perf_counter()
        try:
            return self._ledger.put_many(rows)
        finally:
            self._histogram.observe(time.perf_counter() - began)

    def put(self, row: LedgerRow) -> None:
        began = time.perf_counter()
        try:
            self._ledger.put(row)
        finally:
            self._histogram.observe(time.perf_counter() - began)

    def __getattr__(self, name: str):
        return getattr(self._ledger, name)

"""Server logs on stderr: plain text or one JSON object a line (``--log-format``).

Text: ``2026-11-27 16:00:00,123 INFO duetime listening on 127.0.0.1:50051``.

JSON: one object a line, with ``time`` (RFC 3339, UTC, milliseconds),
``level``, ``logger`` and ``message``, plus the record's own fields: a
request line (logger ``duetime.access``, one per finished call) has ``rpc``
(the full gRPC method), ``code`` (the status code name), ``latency_ms``,
``record_id`` (when the answer has one), ``namespace`` (the
``x-duetime-namespace`` metadata, ``""`` for none) and ``peer`` (when
known: every HTTP call's, a gRPC call's when it did not end OK); the start-up
line ``configuration`` has ``config``; an error with a traceback has
``exception``; with ``duetime serve --workers N`` (N > 1) each worker
process's lines have ``worker`` (its number, 1..N) and ``pid``, and a text
line reads ``… INFO worker 2 pid 4711: message``. No line holds call metadata other than the namespace, so never
an ``authorization`` token.

Request lines are written in batches: :class:`BatchingHandler` appends each
one to an in-memory buffer (no lock, no write per call) and one writer thread
writes what has gathered every :data:`FLUSH_SECONDS` in one write. Every other
record is written at once, after the request lines buffered before it, so
the order of lines is kept. At exit (``logging.shutdown``) the buffer is
written out.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import threading
import time
from collections import deque
from datetime import datetime, timezone

ACCESS = "duetime.access"
"""The logger of the one line per finished call."""
TEXT_FORMAT = "%(asctime)s %(levelname)s %(message)s"
FIELDS = ("rpc", "code", "latency_ms", "record_id", "namespace", "peer", "reason", "config",
          "worker", "pid")
"""Record attributes (``extra=``) a JSON line carries when present."""
FLUSH_SECONDS = 0.05
"""The longest a request line waits in the buffer before it is written."""
MAX_BUFFERED = 10_000
"""The most request lines held unwritten: the call that would add one more
writes the buffer itself (a stderr that stops taking lines slows the calls,
as an unbuffered log did, instead of growing the buffer without bound)."""
access_log = logging.getLogger(ACCESS)


class JsonFormatter(logging.Formatter):
    """Formats a log record as one line of JSON (see the module docstring)."""

    def format(self, record: logging.LogRecord) -> str:
        line = {
            "time": datetime.fromtimestamp(record.created, timezone.utc)
                            .isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name in FIELDS:
            if name in record.__dict__:
                line[name] = record.__dict__[name]
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


class BatchingHandler(logging.StreamHandler):
    """A stream handler that writes request lines (logger ``duetime.access``)
    in batches and every other record at once (see the module docstring).

    A request line is appended to a deque (atomic, no lock taken by the
    calling thread) and formatted and written by the writer thread, started
    here, at most ``flush_seconds`` later; a batch is one ``write`` and one
    ``flush`` of the stream, under the handler's lock. Any other record takes
    the lock, writes the buffered lines, then itself. :meth:`flush` writes
    the buffer out now; :meth:`close` does, stops the writer and makes
    later request lines be written at once."""

    def __init__(self, stream=None, flush_seconds: float = FLUSH_SECONDS,
                 max_buffered: int = MAX_BUFFERED):
        super().__init__(stream)
        self._buffer: deque[logging.LogRecord] = deque()
        self._flush_seconds = flush_seconds
        self._max_buffered = max_buffered
        self._stopped = threading.Event()
        self._writer = threading.Thread(target=self._write_batches, name="duetime-log-writer",
                                        daemon=True)
        self._writer.start()

    def handle(self, record: logging.LogRecord) -> bool:
        if record.name != ACCESS or self._stopped.is_set():
            return super().handle(record)
        if not self.filter(record):
            return False
        if len(self._buffer) >= self._max_buffered:
            self.flush()  # bounded: write the backlog in this thread
        self._buffer.append(record)
        return True

    def emit(self, record: logging.LogRecord) -> None:  # called under the lock
        self._write_buffered()
        super().emit(record)

    def _write_buffered(self) -> None:
        """Format and write the buffered records in one write (the caller
        holds the lock)."""
        lines = []
        buffer = self._buffer
        while buffer:
            record = buffer.popleft()
            try:
                lines.append(self.format(record))
            except Exception:
                self.handleError(record)
        if lines:
            try:
                self.stream.write(self.terminator.join(lines) + self.terminator)
                self.stream.flush()
            except Exception:
                self.handleError(record)

    def _write_batches(self) -> None:
        while not self._stopped.wait(self._flush_seconds):
            if self._buffer:
                self.flush()

    def flush(self) -> None:
        with self.lock:
            if self._buffer:
                self._write_buffered()
            super().flush()

    def close(self) -> None:
        # not joining the writer: logging.shutdown calls this holding the lock
        # the writer may be waiting for; once stopped it writes nothing more,
        # and later request lines are written at once.
        self._stopped.set()
        self.flush()
        super().close()


class _WorkerStamp(logging.Filter):
    """Gives every record the ``worker`` number and ``pid`` of the worker
    process writing it (``duetime serve --workers N``)."""

    def __init__(self, worker: int):
        super().__init__()
        self.worker = worker

    def filter(self, record: logging.LogRecord) -> bool:
        record.worker = self.worker
        record.pid = record.process
        return True


def configure(log_format: str = "text", level: int = logging.INFO,
              worker: int | None = None) -> None:
    """Send the root logger's records to stderr as ``log_format`` (``text``
    or ``json``), replacing handlers set before (a :class:`BatchingHandler`
    among them is closed: its buffered lines are written). ``worker``: the
    number of the worker process (``--workers``) whose lines these are:
    a text line then reads ``… INFO worker 2 pid 4711: message``, a JSON
    line has ``worker`` and ``pid``."""
    handler = BatchingHandler(sys.stderr)
    text_format = TEXT_FORMAT
    if worker is not None:
        handler.addFilter(_WorkerStamp(worker))
        text_format = TEXT_FORMAT.replace("%(message)s", "worker %(worker)d pid %(pid)d: "
                                                         "%(message)s")
    handler.setFormatter(JsonFormatter() if log_format == "json" else
                         logging.Formatter(text_format))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
        if isinstance(old, BatchingHandler):
            old.close()
    root.addHandler(handler)
    root.setLevel(level)


_CALL_MESSAGE = "rpc %s %s %.3f ms%s namespace=%s%s%s"
_CALL_TEMPLATE = vars(logging.LogRecord(ACCESS, logging.INFO, __file__, 0, _CALL_MESSAGE, (), None))
"""The attributes every request line's record shares (made once: a
LogRecord's own constructor looks up the file name, thread, process and
mapping arguments again for each record); the time, thread and process are
set per record."""
_new_record = object.__new__


def log_call(rpc: str, code: str, seconds: float, record_id: str, namespace: str,
             peer: str, reason: str = "") -> None:
    """The request line of one finished call (logger ``duetime.access``, INFO):
    ``record_id``, ``peer`` and ``reason`` (a refusal's ErrorInfo reason,
    such as ``IN_FLIGHT_BYTES_EXHAUSTED``) only when not ``""``.

    The record is made from :data:`_CALL_TEMPLATE` (no caller lookup: no
    format shows the source line) and handed to the handlers directly."""
    if not access_log.isEnabledFor(logging.INFO):
        return
    latency_ms = round(seconds * 1000, 3)
    record = _new_record(logging.LogRecord)
    attributes = record.__dict__
    attributes.update(_CALL_TEMPLATE)
    created = time.time()
    attributes.update(
        args=(rpc, code, latency_ms, f" record_id={record_id}" if record_id else "",
              namespace or '""', f" peer={peer}" if peer else "",
              f" reason={reason}" if reason else ""),
        created=created, msecs=int((created - int(created)) * 1000) + 0.0,
        relativeCreated=_CALL_TEMPLATE["relativeCreated"]
        + (created - _CALL_TEMPLATE["created"]) * 1000,
        thread=threading.get_ident(), threadName=threading.current_thread().name,
        process=os.getpid(),
        rpc=rpc, code=code, latency_ms=latency_ms, namespace=namespace)
    if record_id:
        attributes["record_id"] = record_id
    if peer:
        attributes["peer"] = peer
    if reason:
        attributes["reason"] = reason
    access_log.handle(record)

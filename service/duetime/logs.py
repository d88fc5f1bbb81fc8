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

A stderr that stops taking lines (a pipe nobody reads) never stops the
server: a write waits at most :data:`WRITE_WAIT` s for it, then the lines
are dropped; a request line past :data:`MAX_BUFFERED` unwritten ones is
dropped at once. The lines dropped are counted, and the count is written
(a WARNING) as soon as stderr takes lines again. Lines go to a pipe (a
socket, a terminal) in pieces of whole lines of at most 4 KiB
(``PIPE_BUF``), so that the lines of several worker processes on one pipe
never interleave within a line; to a regular file, which never stops taking
lines, in one write.

A request line costs a busy server little: when the handler :func:`configure`
installed is the only one its records reach (no other handler or filter on
the way, as in ``duetime serve``), :func:`log_call` hands it the line's fields
as a tuple (about 1 µs) and its writer thread formats them with its own
formatter's rules, the time's text made once a second (about 2 µs a line);
otherwise a :class:`logging.LogRecord` goes through the logging machinery,
as for any other record (about 9 µs, and 7 µs to format).
"""

from __future__ import annotations

import json
import logging
import os
import select
import stat
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
"""The most request lines held unwritten: one more is dropped (and counted),
so that a stderr that stops taking lines neither grows the buffer without
bound nor slows the calls."""
WRITE_WAIT = 1.0
"""The longest, in seconds, one write waits for stderr to take lines; the
lines it has not taken then are dropped (and counted)."""
PIECE = getattr(select, "PIPE_BUF", 4096)
"""The most bytes of whole lines written to a pipe or file at once (a write
of at most ``PIPE_BUF`` bytes to a pipe is never interleaved with another
process's)."""
access_log = logging.getLogger(ACCESS)
_json_line = json.JSONEncoder(ensure_ascii=False, default=str).encode
"""A JSON line's encoder, made once (``json.dumps`` with options makes one a call)."""


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
        return _json_line(line)


class BatchingHandler(logging.StreamHandler):
    """A stream handler that writes request lines (logger ``duetime.access``)
    in batches and every other record at once (see the module docstring).

    A request line is appended to a deque (atomic, no lock taken by the
    calling thread) and formatted and written by the writer thread, started
    here, at most ``flush_seconds`` later; a batch is written at once (see
    below), under the handler's lock. Any other record takes
    the lock, writes the buffered lines, then itself. :meth:`flush` writes
    the buffer out now; :meth:`close` does, stops the writer and makes
    later request lines be written at once. A pipe, socket or terminal is
    written by :meth:`_write_text` (bounded waits, whole lines; see the
    module docstring), any other stream with its own ``write``."""

    def __init__(self, stream=None, flush_seconds: float = FLUSH_SECONDS,
                 max_buffered: int = MAX_BUFFERED):
        super().__init__(stream)
        self._buffer: deque[logging.LogRecord | tuple] = deque()
        self._lines: _CallLines | None = None
        self._flush_seconds = flush_seconds
        self._max_buffered = max_buffered
        self._dropped = 0  # lines dropped since the last line written
        self._piped: tuple[object, int | None] | None = None  # (stream, its pipe's fd), see _pipe
        self._dropping = threading.Lock()  # counts the lines dropped by calling threads
        self._stopped = threading.Event()
        self._writer = threading.Thread(target=self._write_batches, name="duetime-log-writer",
                                        daemon=True)
        self._writer.start()

    def handle(self, record: logging.LogRecord) -> bool:
        if record.name != ACCESS or self._stopped.is_set():
            return super().handle(record)
        if not self.filter(record):
            return False
        return self._hold(record)

    def take_call(self, fields: tuple) -> bool:
        """Buffer a request line given by its fields (:func:`log_call`'s fast
        path: no record, no filter), if this handler formats them itself
        (:meth:`format_calls_as`) and is running; False otherwise."""
        if self._lines is None or self.formatter is not self._lines.formatter \
                or self._stopped.is_set():
            return False
        return self._hold(fields)

    def _hold(self, entry: logging.LogRecord | tuple) -> bool:
        """Buffer ``entry``, or drop it (counted) past ``max_buffered``."""
        if len(self._buffer) >= self._max_buffered:
            self._drop(1)
        else:
            self._buffer.append(entry)
        return True

    def _drop(self, lines: int) -> None:
        with self._dropping:
            self._dropped += lines

    def format_calls_as(self, log_format: str, worker: int | None = None) -> None:
        """Format records with ``log_format``'s formatter (``text`` or
        ``json``; ``worker``: the worker process's stamp, see
        :func:`configure`), and request lines given as fields
        (:meth:`take_call`) by the same rules without making a record."""
        self._lines = _CallLines(log_format, worker)
        self.setFormatter(self._lines.formatter)
        if worker is not None:
            self.addFilter(_WorkerStamp(worker))

    def emit(self, record: logging.LogRecord) -> None:  # called under the lock
        try:
            line = self.format(record)
        except Exception:
            self.handleError(record)
            return
        self._write_buffered(line, record)

    def _write_buffered(self, last: str | None = None,
                        last_record: logging.LogRecord | None = None) -> None:
        """Format and write the buffered records, then ``last`` (the line of
        ``last_record``, if any), in one write; first the count of lines
        dropped before, if any (the caller holds the lock)."""
        lines = []
        buffer = self._buffer
        call_line = self._lines.line if self._lines is not None else None
        record = None  # the last entry, for a failed write's report
        dropped = 0
        if self._dropped:
            with self._dropping:
                dropped, self._dropped = self._dropped, 0
            lines.append(self._dropped_line(dropped))
        while buffer:
            record = buffer.popleft()
            try:
                lines.append(call_line(record) if type(record) is tuple else self.format(record))
            except Exception:
                self.handleError(_as_record(record))
        if last is not None:
            lines.append(last)
            record = last_record
        if lines:
            try:
                not_written = self._write_text(self.terminator.join(lines) + self.terminator)
                if not_written:
                    if dropped and not_written == len(lines):  # the count's own line too
                        not_written += dropped - 1
                    self._drop(not_written)
            except Exception:
                self.handleError(_as_record(record) if record is not None else
                                 logging.makeLogRecord({"msg": "(the dropped lines' count)"}))

    def _dropped_line(self, dropped: int) -> str:
        return self.format(logging.LogRecord(
            "duetime", logging.WARNING, __file__, 0,
            "%d log lines were dropped: stderr did not take them (a pipe nobody read for %g s, "
            "or more than %d request lines waiting)", (dropped, WRITE_WAIT, self._max_buffered),
            None))

    def _pipe(self) -> int | None:
        """The stream's file descriptor if it is one that can stop taking
        lines (a pipe, a socket, a terminal), else None (a regular file, no
        descriptor); looked up once per stream."""
        stream = self.stream
        if self._piped is not None and self._piped[0] is stream:
            return self._piped[1]
        try:
            fd = stream.fileno()
            mode = os.fstat(fd).st_mode
            fd = None if stat.S_ISREG(mode) else fd
        except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is both
            fd = None
        self._piped = (stream, fd)
        return fd

    def _write_text(self, text: str) -> int:
        """Write ``text`` (whole lines): to a pipe, socket or terminal in
        pieces of whole lines of at most :data:`PIECE` bytes, each once the
        descriptor takes it, waiting :data:`WRITE_WAIT` s at most. Any other
        stream (a regular file: it never stops taking lines) in one
        ``write`` and ``flush``. Returns how many lines were not written (0:
        all)."""
        fd = self._pipe()
        if fd is None:
            self.stream.write(text)
            self.stream.flush()
            return 0
        self.stream.flush()  # what was written through the stream itself goes first
        data = text.encode(getattr(self.stream, "encoding", None) or "utf-8", "backslashreplace")
        poller = select.poll()
        poller.register(fd, select.POLLOUT)
        start, end = 0, len(data)
        while start < end:
            if not poller.poll(WRITE_WAIT * 1000):
                return data.count(b"\n", start)
            stop = min(start + PIECE, end)
            if stop < end:  # whole lines, unless one line alone is longer
                cut = data.rfind(b"\n", start, stop)
                stop = cut + 1 if cut >= start else stop
            try:
                start += os.write(fd, data[start:stop])
            except BlockingIOError:  # a descriptor made non-blocking: wait for it again
                pass
        return 0

    def _write_batches(self) -> None:
        while not self._stopped.wait(self._flush_seconds):
            if self._buffer or self._dropped:  # the count of dropped lines, once it can go
                self.flush()

    def flush(self) -> None:
        with self.lock:
            if self._buffer or self._dropped:
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
    handler.format_calls_as(log_format, worker)
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
        if isinstance(old, BatchingHandler):
            old.close()
    root.addHandler(handler)
    root.setLevel(level)


class _CallLines:
    """The formatter of a :class:`BatchingHandler` set up by
    :meth:`~BatchingHandler.format_calls_as`, and the same rules applied to
    a request line's fields (:meth:`line`): the text or JSON line that
    formatter gives the record :func:`log_call` would make. The time's text
    is made once for each second (text: local time, as
    :meth:`logging.Formatter.formatTime`; JSON: UTC, RFC 3339)."""

    def __init__(self, log_format: str, worker: int | None):
        self.json = log_format == "json"
        self.worker = worker
        if self.json:
            self.formatter: logging.Formatter = JsonFormatter()
        elif worker is None:
            self.formatter = logging.Formatter(TEXT_FORMAT)
        else:
            self.formatter = logging.Formatter(TEXT_FORMAT.replace(
                "%(message)s", "worker %(worker)d pid %(pid)d: %(message)s"))
        self._stamp = f"worker {worker} pid {os.getpid()}: " if worker is not None else ""
        self._second = -1
        self._second_text = ""

    def _time(self, created: float) -> str:
        second = int(created)
        if self.json:  # microseconds rounded half to even, as datetime.fromtimestamp
            microsecond = round((created - second) * 1e6)
            second += microsecond // 1_000_000
        if second != self._second:  # only the writer formats (under the handler's lock)
            if self.json:
                text = datetime.fromtimestamp(second, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
            else:
                text = time.strftime(self.formatter.default_time_format, time.localtime(second))
            self._second, self._second_text = second, text
        if self.json:  # as datetime.isoformat(timespec="milliseconds")
            return f"{self._second_text}.{microsecond % 1_000_000 // 1000:03d}Z"
        return f"{self._second_text},{int((created - second) * 1000):03d}"

    def line(self, fields: tuple) -> str:
        """The line of :func:`log_call`'s fields ``(created, rpc, code,
        latency_ms, record_id, namespace, peer, reason)``."""
        created, rpc, code, latency_ms, record_id, namespace, peer, reason = fields
        message = _CALL_MESSAGE % _message_args(*fields[1:])
        if not self.json:
            return f"{self._time(created)} INFO {self._stamp}{message}"
        line = {"time": self._time(created), "level": "INFO", "logger": ACCESS,
                "message": message, "rpc": rpc, "code": code, "latency_ms": latency_ms}
        if record_id:
            line["record_id"] = record_id
        line["namespace"] = namespace
        if peer:
            line["peer"] = peer
        if reason:
            line["reason"] = reason
        if self.worker is not None:
            line["worker"] = self.worker
            line["pid"] = os.getpid()
        return _json_line(line)


_CALL_MESSAGE = "rpc %s %s %.3f ms%s namespace=%s%s%s"
_CALL_TEMPLATE = vars(logging.LogRecord(ACCESS, logging.INFO, __file__, 0, _CALL_MESSAGE, (), None))
"""The attributes every request line's record shares (made once: a
LogRecord's own constructor looks up the file name, thread, process and
mapping arguments again for each record); the time, thread and process are
set per record."""
_new_record = object.__new__


def _message_args(rpc: str, code: str, latency_ms: float, record_id: str, namespace: str,
                  peer: str, reason: str) -> tuple:
    """The arguments of :data:`_CALL_MESSAGE` for one request line."""
    return (rpc, code, latency_ms, f" record_id={record_id}" if record_id else "",
            namespace or '""', f" peer={peer}" if peer else "",
            f" reason={reason}" if reason else "")


def _sole_batching_handler() -> BatchingHandler | None:
    """The :class:`BatchingHandler` that alone handles request lines: the
    only handler on the way from ``duetime.access`` up, with no filter but
    its own worker stamp and no logger filter or level on the way that could
    drop a line; else None."""
    found = None
    logger: logging.Logger | None = access_log
    while logger is not None:
        if logger.filters or logger.disabled:
            return None
        for handler in logger.handlers:
            if found is not None or type(handler) is not BatchingHandler:
                return None
            found = handler
        if not logger.propagate:
            break
        logger = logger.parent
    if found is None or found.level > logging.INFO or \
            len(found.filters) > (found._lines is not None and found._lines.worker is not None):
        return None
    return found


def _call_record(created: float, rpc: str, code: str, latency_ms: float, record_id: str,
                 namespace: str, peer: str, reason: str) -> logging.LogRecord:
    """The record of one request line (see :func:`log_call`), made from
    :data:`_CALL_TEMPLATE` (no caller lookup: no format shows the source
    line)."""
    record = _new_record(logging.LogRecord)
    attributes = record.__dict__
    attributes.update(_CALL_TEMPLATE)
    attributes.update(
        args=_message_args(rpc, code, latency_ms, record_id, namespace, peer, reason),
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
    return record


def _as_record(entry: logging.LogRecord | tuple) -> logging.LogRecord:
    """A buffered entry as a record (a request line's fields made into its
    record), for :meth:`logging.Handler.handleError`, which reads one."""
    return _call_record(*entry) if type(entry) is tuple else entry


def log_call(rpc: str, code: str, seconds: float, record_id: str, namespace: str,
             peer: str, reason: str = "") -> None:
    """The request line of one finished call (logger ``duetime.access``, INFO):
    ``record_id``, ``peer`` and ``reason`` (a refusal's ErrorInfo reason,
    such as ``IN_FLIGHT_BYTES_EXHAUSTED``) only when not ``""``.

    Its fields go to the :class:`BatchingHandler` that alone handles request
    lines, when there is one (:meth:`BatchingHandler.take_call`, see the
    module docstring); otherwise its record (:func:`_call_record`) is handed
    to the logger's handlers directly."""
    if not access_log.isEnabledFor(logging.INFO):
        return
    fields = (time.time(), rpc, code, round(seconds * 1000, 3), record_id, namespace, peer,
              reason)
    handler = _sole_batching_handler()
    if handler is not None and handler.take_call(fields):
        return
    access_log.handle(_call_record(*fields))

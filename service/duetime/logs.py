"""Server logs on stderr: plain text or one JSON object a line (``--log-format``).

Text: ``2026-11-27 16:00:00,123 INFO duetime listening on 127.0.0.1:50051``.

JSON: one object a line, with ``time`` (RFC 3339, UTC, milliseconds),
``level``, ``logger`` and ``message``, plus the record's own fields: a
request line (logger ``duetime.access``, one per finished call) has ``rpc``
(the full gRPC method), ``code`` (the status code name), ``latency_ms``,
``record_id`` (when the answer has one), ``namespace`` (the
``x-duetime-namespace`` metadata, ``""`` for none) and ``peer``; the start-up
line ``configuration`` has ``config``; an error with a traceback has
``exception``. No line holds call metadata other than the namespace, so never
an ``authorization`` token.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import datetime, timezone

ACCESS = "duetime.access"
"""The logger of the one line per finished call."""
TEXT_FORMAT = "%(asctime)s %(levelname)s %(message)s"
FIELDS = ("rpc", "code", "latency_ms", "record_id", "namespace", "peer", "config")
"""Record attributes (``extra=``) a JSON line carries when present."""
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


def configure(log_format: str = "text", level: int = logging.INFO) -> None:
    """Send the root logger's records to stderr as ``log_format`` (``text``
    or ``json``), replacing handlers set before."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if log_format == "json" else
                         logging.Formatter(TEXT_FORMAT))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)


def log_call(rpc: str, code: str, seconds: float, record_id: str, namespace: str,
             peer: str) -> None:
    """The request line of one finished call (logger ``duetime.access``, INFO)."""
    latency_ms = round(seconds * 1000, 3)
    if not access_log.isEnabledFor(logging.INFO):
        return
    access_log.info(
        "rpc %s %s %.3f ms%s namespace=%s peer=%s", rpc, code, latency_ms,
        f" record_id={record_id}" if record_id else "", namespace or '""', peer,
        extra={"rpc": rpc, "code": code, "latency_ms": latency_ms,
               **({"record_id": record_id} if record_id else {}),
               "namespace": namespace, "peer": peer})

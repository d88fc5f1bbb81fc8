"""Request lines are written in batches; other records at once, in order."""

from __future__ import annotations

import io
import json
import logging
import os
import time
from contextlib import contextmanager

import pytest

from duetime.logs import ACCESS, TEXT_FORMAT, BatchingHandler, _call_record, _CallLines, log_call


def _handler(stream: io.StringIO, flush_seconds: float) -> tuple[BatchingHandler, logging.Logger]:
    handler = BatchingHandler(stream, flush_seconds=flush_seconds)
    handler.setFormatter(logging.Formatter(TEXT_FORMAT))
    logger = logging.getLogger(ACCESS)
    logger.addHandler(handler)
    return handler, logger


def test_a_request_line_is_buffered_then_written_by_the_writer():
    stream = io.StringIO()
    handler, logger = _handler(stream, flush_seconds=0.02)
    logger.setLevel(logging.INFO)
    try:
        log_call("/duetime.v1.DueTimeService/ComputeDueTime", "OK", 0.0012345, "r-1", "",
                 "ipv4:127.0.0.1:1")
        deadline = time.monotonic() + 5
        while not stream.getvalue() and time.monotonic() < deadline:
            time.sleep(0.01)
        (line,) = stream.getvalue().splitlines()
        assert line.endswith(" INFO rpc /duetime.v1.DueTimeService/ComputeDueTime OK 1.234 ms "
                             "record_id=r-1 namespace=\"\" peer=ipv4:127.0.0.1:1")
    finally:
        logger.removeHandler(handler)
        logger.setLevel(logging.NOTSET)
        handler.close()


def test_other_records_follow_the_buffered_lines_and_close_writes_the_rest():
    stream = io.StringIO()
    handler, logger = _handler(stream, flush_seconds=3600)
    logger.setLevel(logging.INFO)
    other = logging.getLogger("duetime.test-batching")
    other.addHandler(handler)
    other.propagate = False
    try:
        log_call("/a", "OK", 0.001, "", "", "p")
        assert stream.getvalue() == ""
        other.warning("after /a")
        log_call("/b", "OK", 0.001, "", "", "p")
        handler.close()
        log_call("/c", "OK", 0.001, "", "", "p")  # after close: written at once
        lines = stream.getvalue().splitlines()
        assert [line.split(" ", 3)[3] for line in lines] == [
            "rpc /a OK 1.000 ms namespace=\"\" peer=p", "after /a",
            "rpc /b OK 1.000 ms namespace=\"\" peer=p", "rpc /c OK 1.000 ms namespace=\"\" peer=p"]
    finally:
        logger.removeHandler(handler)
        other.removeHandler(handler)
        other.propagate = True
        logger.setLevel(logging.NOTSET)
        handler.close()


def test_the_buffer_is_bounded_the_call_that_fills_it_writes_it():
    stream = io.StringIO()
    handler = BatchingHandler(stream, flush_seconds=3600, max_buffered=3)
    handler.setFormatter(logging.Formatter("%(message)s"))
    logger = logging.getLogger(ACCESS)
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        for i in range(3):
            log_call(f"/{i}", "OK", 0.001, "", "", "p")
        assert stream.getvalue() == ""  # three held, none written yet
        log_call("/3", "OK", 0.001, "", "", "p")  # the fourth writes the three first
        assert [line.split(" ")[1] for line in stream.getvalue().splitlines()] == [
            "/0", "/1", "/2"]
    finally:
        logger.removeHandler(handler)
        logger.setLevel(logging.NOTSET)
        handler.close()
    assert [line.split(" ")[1] for line in stream.getvalue().splitlines()] == [
        "/0", "/1", "/2", "/3"]


def test_a_request_line_without_peer_or_record_id_leaves_them_out():
    stream = io.StringIO()
    handler, logger = _handler(stream, flush_seconds=3600)
    logger.setLevel(logging.INFO)
    try:
        log_call("/duetime.v1.DueTimeService/ComputeDueTime", "OK", 0.0005, "", "team-a", "")
        handler.flush()
        (line,) = stream.getvalue().splitlines()
        assert line.endswith(" INFO rpc /duetime.v1.DueTimeService/ComputeDueTime OK 0.500 ms "
                             "namespace=team-a")
    finally:
        logger.removeHandler(handler)
        logger.setLevel(logging.NOTSET)
        handler.close()


@contextmanager
def _sole_handler(stream: io.StringIO, log_format: str, worker: int | None):
    """A handler set up as ``configure`` sets one up, the only one request
    lines reach while the block runs (the access logger does not propagate
    to pytest's), closed after it."""
    handler = BatchingHandler(stream, flush_seconds=3600)
    handler.format_calls_as(log_format, worker)
    logger = logging.getLogger(ACCESS)
    logger.addHandler(handler)
    logger.propagate = False
    logger.setLevel(logging.INFO)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logger.propagate = True
        logger.setLevel(logging.NOTSET)
        handler.close()


CALLS = [  # log_call's arguments: every optional field present and absent
    ("/duetime.v1.DueTimeService/ComputeDueTime", "OK", 0.0123456, "01a236125d7e7bebbbce393be31fff10",
     "team-a", "", ""),
    ("/duetime.v1.DueTimeService/GetRecord", "NOT_FOUND", 0.0005, "", "", "ipv4:127.0.0.1:5",
     "RECORD_NOT_FOUND"),
    ("/grpc.health.v1.Health/Check", "OK", 2.5, "", "\"a b\"", "", ""),
]


@pytest.mark.parametrize("log_format", ["text", "json"])
@pytest.mark.parametrize("worker", [None, 3])
def test_a_request_line_from_its_fields_is_the_line_its_record_gives(log_format, worker):
    """The fast path (fields handed to the sole handler, no record made)
    writes exactly what the handler's formatter writes for the record the
    logging path makes, time included."""
    stream = io.StringIO()
    with _sole_handler(stream, log_format, worker) as handler:
        for arguments in CALLS:
            log_call(*arguments)
        fields = list(handler._buffer)
        assert [type(f) for f in fields] == [tuple] * 3  # no record was made
        handler.flush()
    expected = []
    for f in fields:
        record = _call_record(*f)
        handler.filter(record)  # the worker stamp, as the logging path applies it
        expected.append(handler.format(record))
    assert stream.getvalue().splitlines() == expected
    first = expected[0]
    if log_format == "text":
        stamp = "" if worker is None else f"worker 3 pid {os.getpid()}: "
        assert first.split(" ", 3)[2:] == ["INFO", stamp + "rpc /duetime.v1.DueTimeService/"
                                           "ComputeDueTime OK 12.346 ms record_id="
                                           "01a236125d7e7bebbbce393be31fff10 namespace=team-a"]
        assert first.endswith(" ms record_id=01a236125d7e7bebbbce393be31fff10 namespace=team-a")
    else:
        line = json.loads(expected[1])
        assert line["code"] == "NOT_FOUND" and line["reason"] == "RECORD_NOT_FOUND"
        assert line["peer"] == "ipv4:127.0.0.1:5" and line["namespace"] == ""
        assert ("worker" in line) == (worker is not None)


def test_the_time_of_a_line_from_its_fields_matches_its_record_at_every_millisecond():
    """The time's text, made once a second, against the formatters' own at
    instants just before, on and after millisecond and second edges."""
    for log_format in ("text", "json"):
        lines = _CallLines(log_format, None)
        for base in (1795791600.0, 1795791600.9995, 1795791601.0004999, 1795791659.9999996):
            for step in range(-3, 4):
                created = base + step * 1e-4
                fields = (created, "/a", "OK", 1.0, "", "", "", "")
                assert lines.line(fields) == lines.formatter.format(_call_record(*fields))


def test_with_another_handler_on_the_way_a_record_is_made(caplog):
    """pytest's capture handler sits on the root logger: request lines then
    go through the logging machinery and reach both handlers."""
    stream = io.StringIO()
    handler = BatchingHandler(stream, flush_seconds=3600)
    handler.format_calls_as("text")
    logging.getLogger().addHandler(handler)
    try:
        with caplog.at_level(logging.INFO, logger=ACCESS):
            log_call("/a", "OK", 0.001, "", "ns", "")
            handler.flush()
        assert [r.getMessage() for r in caplog.records] == ["rpc /a OK 1.000 ms namespace=ns"]
        assert stream.getvalue().endswith(" INFO rpc /a OK 1.000 ms namespace=ns\n")
    finally:
        logging.getLogger().removeHandler(handler)
        handler.close()


def test_a_stream_that_fails_is_reported_for_a_line_given_by_its_fields(capsys):
    """A write that fails is reported as logging reports it (handleError,
    which reads a record) also when the last line came as fields."""

    class Broken(io.StringIO):
        def write(self, text):
            raise OSError("disk full")

    with _sole_handler(Broken(), "text", None) as handler:
        log_call("/a", "OK", 0.001, "", "ns", "")
        handler.flush()
    err = capsys.readouterr().err
    assert "OSError: disk full" in err and "Message: 'rpc %s %s %.3f ms%s namespace=%s%s%s'" in err

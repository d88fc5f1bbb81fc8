"""Request lines are written in batches; other records at once, in order."""

from __future__ import annotations

import io
import json
import logging
import os
import time
from contextlib import contextmanager

import pytest

from duetime import logs
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


def test_the_buffer_is_bounded_a_line_past_it_is_dropped_and_counted():
    """Past ``max_buffered`` unwritten lines, a request line is dropped at once
    (the calling thread never writes); the count is written with the next
    lines."""
    stream = io.StringIO()
    handler = BatchingHandler(stream, flush_seconds=3600, max_buffered=3)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    logger = logging.getLogger(ACCESS)
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        for i in range(5):
            log_call(f"/{i}", "OK", 0.001, "", "", "p")
        assert stream.getvalue() == ""  # three held, two dropped, none written by a call
        handler.flush()
        log_call("/5", "OK", 0.001, "", "", "p")
    finally:
        logger.removeHandler(handler)
        logger.setLevel(logging.NOTSET)
        handler.close()
    assert stream.getvalue().splitlines() == [
        "WARNING 2 log lines were dropped: stderr did not take them (a pipe nobody read for 1 s, "
        "or more than 3 request lines waiting)",
        'INFO rpc /0 OK 1.000 ms namespace="" peer=p', 'INFO rpc /1 OK 1.000 ms namespace="" peer=p',
        'INFO rpc /2 OK 1.000 ms namespace="" peer=p', 'INFO rpc /5 OK 1.000 ms namespace="" peer=p']


def test_a_pipe_nobody_reads_never_holds_a_call_or_the_writer_for_long(monkeypatch):
    """stderr a pipe nobody reads: calls go on at once (lines past the
    buffer dropped), a write gives up after WRITE_WAIT s, and once the pipe
    is read again the lines that fitted come whole, then the count of the
    dropped ones, then new lines."""
    monkeypatch.setattr(logs, "WRITE_WAIT", 0.2)
    read_end, write_end = os.pipe()
    stream = os.fdopen(write_end, "w")
    handler = BatchingHandler(stream, flush_seconds=0.01, max_buffered=1000)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    logger = logging.getLogger(ACCESS)
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    other = logging.getLogger("duetime.test-pipe")
    other.addHandler(handler)
    other.propagate = False
    try:
        began = time.monotonic()
        for i in range(20_000):  # 1.2 MB of lines: the pipe takes 64 KiB
            log_call(f"/{i:05}", "OK", 0.001, "", "team-a", "ipv4:127.0.0.1:1")
        assert time.monotonic() - began < 5  # no call waited for the pipe
        time.sleep(0.5)  # the writer gave up at least once
        began = time.monotonic()
        other.warning("a record written at once")  # waits WRITE_WAIT s at most, then dropped
        assert time.monotonic() - began < 0.2 + 0.2 + 1
        with os.fdopen(read_end, "rb") as reading:
            os.set_blocking(read_end, False)
            taken = b""
            while chunk := reading.read(1 << 16) or b"":
                taken += chunk
            log_call("/after", "OK", 0.001, "", "team-a", "ipv4:127.0.0.1:1")
            handler.flush()
            while chunk := reading.read(1 << 16) or b"":
                taken += chunk
    finally:
        logger.removeHandler(handler)
        logger.setLevel(logging.NOTSET)
        other.removeHandler(handler)
        other.propagate = True
        handler.close()
    lines = taken.decode().splitlines()
    written = [line for line in lines if line.startswith("INFO rpc /") and line != lines[-1]]
    assert 0 < len(written) < 20_000
    assert all(line.endswith("OK 1.000 ms namespace=team-a peer=ipv4:127.0.0.1:1") for line in written)
    numbers = [int(line.split()[2][1:]) for line in written]
    assert numbers == sorted(set(numbers))  # whole lines, in order, none twice
    counts = [line for line in lines if line.startswith("WARNING")]
    assert all(line.endswith(" log lines were dropped: stderr did not take them (a pipe nobody read "
                             "for 0.2 s, or more than 1000 request lines waiting)") for line in counts)
    # every line not written is counted once: past the buffer, or not taken by the pipe
    # (the warning record among them)
    assert sum(int(line.split()[1]) for line in counts) == 20_000 + 1 - len(written)
    assert lines[-1] == "INFO rpc /after OK 1.000 ms namespace=team-a peer=ipv4:127.0.0.1:1"
    assert len(lines) == len(written) + len(counts) + 1


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

"""Request lines are written in batches; other records at once, in order."""

from __future__ import annotations

import io
import logging
import time

from duetime.logs import ACCESS, TEXT_FORMAT, BatchingHandler, log_call


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

"""The JSON faces' printer (duetime.api.json_print) against json_format:
for random messages of every ``duetime.v1`` type, and for every request and
answer of the golden ledger, ``to_json_object`` gives exactly what
``json_format.MessageToDict(..., always_print_fields_with_no_presence=True)``
gives, keys in the same order (so the printed text is the same too).

The random messages are filled from their descriptors: each field set or
not, biased toward the values whose printing has rules of its own — int64
extremes (printed as strings), floats that are infinite, NaN or need the
shortest form of a float32, bytes (base64), enum numbers no value names,
Timestamps with 0, 3, 6 and 9 digits of fraction and at the ends of their
range, Durations, maps with bool and integer keys, repeated and nested
messages, and oneofs."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

import pytest
from duetime.api.convert import METHODS, message_dict, message_json
from duetime.api.json_print import PRINTERS, to_json_object
from duetime.v1 import duetime_pb2 as pb
from google.protobuf import duration_pb2, json_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from hypothesis import given, settings
from hypothesis import strategies as st

GOLDEN = Path(__file__).resolve().parent / "golden" / "ledger.sqlite"
FD = FieldDescriptor
TYPES = sorted(name for name in PRINTERS if name.startswith(pb.DESCRIPTOR.package + "."))

INT32 = [0, 1, -1, 2**31 - 1, -(2**31)]
INT64 = [0, 1, -1, 2**63 - 1, -(2**63), 2**53 + 1]
UINT32 = [0, 1, 2**32 - 1]
UINT64 = [0, 1, 2**64 - 1]
DOUBLES = [0.0, -0.0, 1.5, 1e300, -1e-300, float("inf"), float("-inf"), float("nan"), 0.1]
FLOATS = [0.0, 1.5, 0.1, 3.4e38, float("inf"), float("nan"), 1e-45]
STRINGS = ["", "a", "Zagreb", "é", "😀 ok", "line\nbreak", '"quoted"', "\u2028"]
SECONDS = [0, 1, -1, 1_764_547_200, -62_135_596_800, 253_402_300_799]
NANOS = [0, 1, 500_000_000, 123_000_000, 123_456_000, 123_456_789, 999_999_999]


def fill(message: Message, rng: random.Random, depth: int = 0) -> Message:
    """Set a random selection of ``message``'s fields (nested up to depth 3)."""
    name = message.DESCRIPTOR.full_name
    if name == "google.protobuf.Timestamp":
        message.seconds, message.nanos = rng.choice(SECONDS), rng.choice(NANOS)
        return message
    if name == "google.protobuf.Any":  # what the service packs: a detail of google.rpc,
        from google.rpc import error_details_pb2  # or a record's request or response

        held = rng.choice([
            error_details_pb2.ErrorInfo(reason="REASON", domain="duetime.dev",
                                        metadata={"k": rng.choice(STRINGS)}),
            error_details_pb2.BadRequest(field_violations=[
                error_details_pb2.BadRequest.FieldViolation(field="f", description="d")]),
            None])
        if held is None:
            held = message_type(rng.choice(TYPES))()
            if depth < 3:
                fill(held, rng, depth + 1)
        message.Pack(held)
        return message
    if name == "google.protobuf.Duration":
        seconds = rng.choice([0, 1, 59, 3600, 315_576_000_000])
        nanos = rng.choice([0, 1, 500_000_000, 123_456_789])
        sign = rng.choice([1, -1])
        message.seconds, message.nanos = sign * seconds, sign * nanos
        return message
    for field in message.DESCRIPTOR.fields:
        if rng.random() < 0.35:
            continue
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            entries = getattr(message, field.name)
            key_field = field.message_type.fields_by_name["key"]
            value_field = field.message_type.fields_by_name["value"]
            for _ in range(rng.randint(0, 3)):
                key = scalar(key_field, rng)
                if value_field.cpp_type == FD.CPPTYPE_MESSAGE:
                    if depth < 3:
                        fill(entries[key], rng, depth + 1)
                else:
                    entries[key] = scalar(value_field, rng)
            continue
        if field.is_repeated:
            values = getattr(message, field.name)
            for _ in range(rng.randint(0, 3)):
                if field.cpp_type == FD.CPPTYPE_MESSAGE:
                    if depth < 3:
                        fill(values.add(), rng, depth + 1)
                else:
                    values.append(scalar(field, rng))
            continue
        if field.cpp_type == FD.CPPTYPE_MESSAGE:
            if depth < 3:
                child = getattr(message, field.name)
                child.SetInParent()
                fill(child, rng, depth + 1)
            continue
        setattr(message, field.name, scalar(field, rng))
    return message


def scalar(field: FieldDescriptor, rng: random.Random):
    kind = field.cpp_type
    if kind == FD.CPPTYPE_ENUM:
        numbers = [v.number for v in field.enum_type.values]
        return rng.choice(numbers + [max(numbers) + 7])  # one no value names (an open enum's)
    if kind == FD.CPPTYPE_STRING:
        if field.type == FD.TYPE_BYTES:
            return rng.choice([b"", b"\x00\xff", "é".encode(), bytes(range(40))])
        return rng.choice(STRINGS)
    if kind == FD.CPPTYPE_BOOL:
        return rng.random() < 0.5
    return rng.choice({FD.CPPTYPE_INT32: INT32, FD.CPPTYPE_INT64: INT64,
                       FD.CPPTYPE_UINT32: UINT32, FD.CPPTYPE_UINT64: UINT64,
                       FD.CPPTYPE_DOUBLE: DOUBLES, FD.CPPTYPE_FLOAT: FLOATS}[kind])


def expected(message: Message):
    return json_format.MessageToDict(message, always_print_fields_with_no_presence=True)


def same(a, b) -> bool:
    """Equal as printed: the same text, NaN included (NaN != NaN as a float)."""
    return json.dumps(a, ensure_ascii=False) == json.dumps(b, ensure_ascii=False)


def message_type(name: str) -> type[Message]:
    from google.protobuf import message_factory

    return message_factory.GetMessageClass(pb.DESCRIPTOR.pool.FindMessageTypeByName(name))


def test_every_type_of_the_api_has_its_printer():
    assert "duetime.v1.EvaluateSlaResponse" in PRINTERS
    assert "duetime.v1.ComputeDueTimeResponse" in PRINTERS
    assert len(TYPES) >= 60


@pytest.mark.parametrize("name", TYPES)
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_messages_print_as_json_format_prints_them(name, seed):
    message = fill(message_type(name)(), random.Random(seed))
    printed = to_json_object(message)
    assert same(printed, expected(message)), (name, seed)
    assert list(printed) == list(expected(message))  # the keys in the same order


def test_unset_and_default_fields_print_as_json_format_prints_them():
    for name in TYPES:
        message = message_type(name)()
        assert same(to_json_object(message), expected(message)), name


def test_the_golden_ledger_prints_the_same():
    with sqlite3.connect(GOLDEN) as db:
        rows = db.execute("SELECT method, request, response FROM records").fetchall()
    assert len(rows) == 793
    for method, request, response in rows:
        recorded = METHODS[method]
        for message in (recorded.request_type.FromString(request),
                        recorded.response_type.FromString(response)):
            assert same(to_json_object(message), expected(message)), method
            assert message_json(message) == json_format.MessageToJson(
                message, indent=2, ensure_ascii=False, always_print_fields_with_no_presence=True)
            assert message_dict(message) == to_json_object(message)


def test_a_record_page_prints_its_requests_and_responses_as_json_format_does():
    with sqlite3.connect(GOLDEN) as db:
        rows = db.execute("SELECT record_id, method, request, response FROM records "
                          "ORDER BY record_id LIMIT 200").fetchall()
    page = pb.ListRecordsResponse()
    for record_id, method, request, response in rows:
        record = page.records.add(record_id=record_id, method=method)
        record.request.Pack(METHODS[method].request_type.FromString(request))
        record.response.Pack(METHODS[method].response_type.FromString(response))
    printed = to_json_object(page)
    assert printed["records"][0]["request"]["@type"].startswith("type.googleapis.com/duetime.v1.")
    assert same(printed, expected(page))
    assert list(printed["records"][0]["request"]) == list(expected(page)["records"][0]["request"])


def test_other_packages_and_well_known_types_go_to_json_format():
    from google.protobuf import duration_pb2, struct_pb2, timestamp_pb2
    from google.rpc import status_pb2

    assert to_json_object(timestamp_pb2.Timestamp(seconds=1, nanos=1000)) == "1970-01-01T00:00:01.000001Z"
    assert to_json_object(duration_pb2.Duration(seconds=90)) == "90s"
    assert to_json_object(struct_pb2.Struct()) == {}
    status = status_pb2.Status(code=3, message="bad")
    assert to_json_object(status) == {"code": 3, "message": "bad", "details": []}
    with pytest.raises(ValueError):
        to_json_object(timestamp_pb2.Timestamp(seconds=253_402_300_800))


@pytest.mark.parametrize("seconds,nanos", [
    (0, 0), (90, 0), (-90, 0), (1, 500_000_000), (-1, -500_000_000), (0, 1), (0, -1),
    (3600, 123_456_000), (59, 123_456_789), (315_576_000_000, 999_999_999),
    (-315_576_000_000, -999_999_999)])
def test_a_duration_prints_as_its_own_json_string(seconds, nanos):
    duration = duration_pb2.Duration(seconds=seconds, nanos=nanos)
    assert to_json_object(duration) == duration.ToJsonString()
    step = pb.ExplanationStep(kind="open", amount=duration)
    assert to_json_object(step) == json_format.MessageToDict(
        step, always_print_fields_with_no_presence=True)


@pytest.mark.parametrize("seconds,nanos", [(1, -1), (-1, 1), (315_576_000_001, 0), (0, 1_000_000_000)])
def test_a_duration_out_of_range_is_refused_as_protobuf_refuses_it(seconds, nanos):
    duration = duration_pb2.Duration(seconds=seconds, nanos=nanos)
    with pytest.raises(ValueError) as ours:
        to_json_object(duration)
    with pytest.raises(ValueError) as theirs:
        duration.ToJsonString()
    assert str(ours.value) == str(theirs.value)

"""Messages of ``duetime.v1`` in the protobuf JSON mapping, printed about
twice as fast as ``json_format.MessageToDict`` prints them, to the same
object: :func:`to_json_object`.

The JSON faces print every answer, and a large one (EvaluateSla over a long
history, a page of records) spent most of its time in ``json_format``'s
generic walk: for each field of each message it asks again what kind of
field it is. Here each message type's printing is worked out once, when
this module is imported, from its descriptor: a table from field number to
(JSON name, converter), and the list of the fields without presence to
print when unset. The output is ``json_format.MessageToDict(message,
always_print_fields_with_no_presence=True)`` exactly, keys in the same
order (the fields set, by number, then the others in declaration order);
``tests/test_json_print.py`` holds the two equal over random messages of
every type and over the golden ledger's answers.

What the table does not cover is handed to ``json_format``: messages of
other packages, and the well-known types other than Timestamp, Duration
and Any (Struct, Value, wrappers, FieldMask; an Any holding anything but
a ``duetime.v1`` message), which it prints by their own rules. A Timestamp
is printed here as ``Timestamp.ToJsonString`` prints it (RFC 3339 in UTC,
0, 3, 6 or 9 digits of fraction), a Duration as ``Duration.ToJsonString``
does (seconds, 0, 3, 6 or 9 digits of fraction, ``s``).
"""

from __future__ import annotations

import base64
import math
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from types import MappingProxyType
from typing import Any

from google.protobuf import json_format, message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.internal import type_checkers
from google.protobuf.message import Message

from duetime.v1 import duetime_pb2 as pb

_EPOCH = datetime(1970, 1, 1)
_MIN_SECONDS, _MAX_SECONDS = -62_135_596_800, 253_402_300_799  # 0001-01-01 to 9999-12-31
_INT64 = frozenset({FieldDescriptor.CPPTYPE_INT64, FieldDescriptor.CPPTYPE_UINT64})
_FLOATS = frozenset({FieldDescriptor.CPPTYPE_FLOAT, FieldDescriptor.CPPTYPE_DOUBLE})
_LIST, _MAP, _VALUE = 0, 1, 2  # what an unset field without presence prints


def _timestamp(message: Message) -> str:
    """``message.ToJsonString()`` of a google.protobuf.Timestamp (which
    raises for one out of its range: it is asked to then)."""
    seconds, nanos = message.seconds, message.nanos
    if not (_MIN_SECONDS <= seconds <= _MAX_SECONDS and 0 <= nanos < 1_000_000_000):
        return message.ToJsonString()
    text = (_EPOCH + timedelta(seconds=seconds)).isoformat()
    if nanos == 0:
        return text + "Z"
    if nanos % 1_000_000 == 0:
        return "%s.%03dZ" % (text, nanos // 1_000_000)
    if nanos % 1000 == 0:
        return "%s.%06dZ" % (text, nanos // 1000)
    return "%s.%09dZ" % (text, nanos)


def _generic(message: Message) -> Any:
    """What ``json_format`` prints for ``message`` (a well-known type by its
    own rules, a message of another package by the generic walk)."""
    return json_format.MessageToDict(message, always_print_fields_with_no_presence=True)


def _any(message: Message) -> Any:
    """A google.protobuf.Any as ``json_format`` prints it: ``{"@type": …}``
    and then the fields of the message it holds; one holding a message of
    ``duetime.v1`` (a record's request and response) printed from its table."""
    if not message.ListFields():
        return {}
    type_url = message.type_url
    name = type_url.rsplit("/", 1)[-1]
    kind = MESSAGE_CLASSES.get(name)
    if kind is None:
        return _generic(message)
    held = kind.FromString(message.value)
    js = {"@type": type_url}
    js.update(PRINTERS[name](held))
    return js


_MAX_DURATION_SECONDS = 315_576_000_000  # 10,000 years, protobuf's bound


def _duration(message: Message) -> str:
    """``message.ToJsonString()`` of a google.protobuf.Duration (which raises
    for one out of its range or with signs that disagree: it is asked to
    then): seconds with 0, 3, 6 or 9 digits of fraction and an ``s``."""
    seconds, nanos = message.seconds, message.nanos
    if (not -_MAX_DURATION_SECONDS <= seconds <= _MAX_DURATION_SECONDS
            or not -1_000_000_000 < nanos < 1_000_000_000
            or (seconds < 0 < nanos) or (nanos < 0 < seconds)):
        return message.ToJsonString()
    sign = "-" if seconds < 0 or nanos < 0 else ""
    seconds, nanos = abs(seconds), abs(nanos)
    if nanos == 0:
        return "%s%ds" % (sign, seconds)
    if nanos % 1_000_000 == 0:
        return "%s%d.%03ds" % (sign, seconds, nanos // 1_000_000)
    if nanos % 1000 == 0:
        return "%s%d.%06ds" % (sign, seconds, nanos // 1000)
    return "%s%d.%09ds" % (sign, seconds, nanos)


_SPECIAL: dict[str, Callable[[Message], Any]] = {"google.protobuf.Timestamp": _timestamp,
                                                 "google.protobuf.Duration": _duration,
                                                 "google.protobuf.Any": _any}

Printer = Callable[[Message], Any]


def is_map(field: FieldDescriptor) -> bool:
    """Whether ``field`` is a map (a repeated field of map entries)."""
    return field.message_type is not None and field.message_type.GetOptions().map_entry


def _float(single: bool) -> Callable[[float], Any]:
    def convert(value: float) -> Any:
        if math.isinf(value):
            return "-Infinity" if value < 0 else "Infinity"
        if math.isnan(value):
            return "NaN"
        return type_checkers.ToShortestFloat(value) if single else value

    return convert


def _enum(field: FieldDescriptor) -> Callable[[int], Any]:
    if field.enum_type.full_name == "google.protobuf.NullValue":
        return lambda _value: None
    names = {v.number: v.name for v in field.enum_type.values}
    get = names.get
    return lambda value: get(value, value)  # an unknown number (an open enum's) as itself


def _bytes(value: bytes) -> str:
    return base64.b64encode(value).decode("utf-8")


def _identity(value: Any) -> Any:
    return value


class _Tables:
    """The printers of every message type reachable from ``duetime.v1``,
    built once (:func:`_build`); :attr:`printers` is read-only afterwards."""

    def __init__(self) -> None:
        self._printers: dict[str, Printer] = {}

    def printer(self, descriptor: Descriptor) -> Printer:
        """The printer of messages of ``descriptor``'s type (built on first ask)."""
        printer = self._printers.get(descriptor.full_name)
        if printer is None:
            printer = self._build(descriptor)
        return printer

    def _build(self, descriptor: Descriptor) -> Printer:
        full_name = descriptor.full_name
        if full_name in _SPECIAL:
            printer = _SPECIAL[full_name]
        elif descriptor.file.package != pb.DESCRIPTOR.package:
            printer = _generic
        else:
            fields: dict[int, tuple[str, Callable]] = {}
            unset: list[tuple[str, int, Any]] = []

            def printer(message: Message) -> dict:
                js = {}
                for field, value in message.ListFields():
                    name, convert = fields[field.number]
                    js[name] = convert(value)
                for name, kind, value in unset:
                    if name not in js:
                        js[name] = [] if kind == _LIST else {} if kind == _MAP else value
                return js

            self._printers[full_name] = printer  # before its fields: a type may hold itself
            for field in descriptor.fields:
                fields[field.number] = (field.json_name, self._field(field))
                if field.has_presence:
                    continue
                if is_map(field):
                    unset.append((field.json_name, _MAP, None))
                elif field.is_repeated:
                    unset.append((field.json_name, _LIST, None))
                else:
                    unset.append((field.json_name, _VALUE, self._value(field)(field.default_value)))
        self._printers[full_name] = printer
        return printer

    def _value(self, field: FieldDescriptor) -> Callable:
        """The converter of one value of ``field`` (not of its repetition)."""
        kind = field.cpp_type
        if kind == FieldDescriptor.CPPTYPE_MESSAGE:
            return self.printer(field.message_type)
        if kind == FieldDescriptor.CPPTYPE_ENUM:
            return _enum(field)
        if kind == FieldDescriptor.CPPTYPE_STRING:
            return _bytes if field.type == FieldDescriptor.TYPE_BYTES else str
        if kind == FieldDescriptor.CPPTYPE_BOOL:
            return bool
        if kind in _INT64:
            return str
        if kind in _FLOATS:
            return _float(kind == FieldDescriptor.CPPTYPE_FLOAT)
        return _identity

    def _field(self, field: FieldDescriptor) -> Callable:
        """The converter of ``field``'s value as ``ListFields`` gives it."""
        if is_map(field):
            key = field.message_type.fields_by_name["key"]
            convert = self._value(field.message_type.fields_by_name["value"])
            if key.cpp_type == FieldDescriptor.CPPTYPE_BOOL:
                return lambda entries: {("true" if k else "false"): convert(entries[k])
                                        for k in entries}
            return lambda entries: {str(k): convert(entries[k]) for k in entries}
        convert = self._value(field)
        if field.is_repeated:
            return lambda values: [convert(v) for v in values]
        return convert

    def build_all(self) -> MappingProxyType:
        for descriptor in api_descriptors():
            self.printer(descriptor)
        return MappingProxyType(dict(self._printers))


def api_descriptors() -> Iterator[Descriptor]:
    """Every message type of ``duetime.v1``, nested ones included (not the
    entries of its maps)."""
    stack = list(pb.DESCRIPTOR.message_types_by_name.values())
    while stack:
        descriptor = stack.pop()
        yield descriptor
        stack.extend(n for n in descriptor.nested_types if not n.GetOptions().map_entry)


PRINTERS: MappingProxyType = _Tables().build_all()
"""Message full name → its printer, for every message type of ``duetime.v1``
and every type they hold (built at import, read-only)."""

MESSAGE_CLASSES: MappingProxyType = MappingProxyType({
    name: message_factory.GetMessageClass(pb.DESCRIPTOR.pool.FindMessageTypeByName(name))
    for name in PRINTERS if name.startswith(pb.DESCRIPTOR.package + ".")})
"""Full name → message class, for the ``duetime.v1`` messages an Any may
hold (a record's request and response)."""


def to_json_object(message: Message) -> Any:
    """``message`` as ``json_format.MessageToDict(message,
    always_print_fields_with_no_presence=True)`` gives it: a dict for a
    message, a string for a Timestamp or Duration, and so on."""
    printer = PRINTERS.get(message.DESCRIPTOR.full_name)
    return printer(message) if printer is not None else _generic(message)

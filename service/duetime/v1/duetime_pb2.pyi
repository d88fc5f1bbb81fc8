import datetime

from google.protobuf import any_pb2 as _any_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Weekday(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    WEEKDAY_UNSPECIFIED: _ClassVar[Weekday]
    WEEKDAY_MONDAY: _ClassVar[Weekday]
    WEEKDAY_TUESDAY: _ClassVar[Weekday]
    WEEKDAY_WEDNESDAY: _ClassVar[Weekday]
    WEEKDAY_THURSDAY: _ClassVar[Weekday]
    WEEKDAY_FRIDAY: _ClassVar[Weekday]
    WEEKDAY_SATURDAY: _ClassVar[Weekday]
    WEEKDAY_SUNDAY: _ClassVar[Weekday]
WEEKDAY_UNSPECIFIED: Weekday
WEEKDAY_MONDAY: Weekday
WEEKDAY_TUESDAY: Weekday
WEEKDAY_WEDNESDAY: Weekday
WEEKDAY_THURSDAY: Weekday
WEEKDAY_FRIDAY: Weekday
WEEKDAY_SATURDAY: Weekday
WEEKDAY_SUNDAY: Weekday

class Calendar(_message.Message):
    __slots__ = ("time_zone", "holidays", "weekend", "working_hours")
    TIME_ZONE_FIELD_NUMBER: _ClassVar[int]
    HOLIDAYS_FIELD_NUMBER: _ClassVar[int]
    WEEKEND_FIELD_NUMBER: _ClassVar[int]
    WORKING_HOURS_FIELD_NUMBER: _ClassVar[int]
    time_zone: str
    holidays: _containers.RepeatedCompositeFieldContainer[Holiday]
    weekend: WeekendDays
    working_hours: WorkingHours
    def __init__(self, time_zone: _Optional[str] = ..., holidays: _Optional[_Iterable[_Union[Holiday, _Mapping]]] = ..., weekend: _Optional[_Union[WeekendDays, _Mapping]] = ..., working_hours: _Optional[_Union[WorkingHours, _Mapping]] = ...) -> None: ...

class Holiday(_message.Message):
    __slots__ = ("date", "name")
    DATE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    date: str
    name: str
    def __init__(self, date: _Optional[str] = ..., name: _Optional[str] = ...) -> None: ...

class WeekendDays(_message.Message):
    __slots__ = ("days",)
    DAYS_FIELD_NUMBER: _ClassVar[int]
    days: _containers.RepeatedScalarFieldContainer[Weekday]
    def __init__(self, days: _Optional[_Iterable[_Union[Weekday, str]]] = ...) -> None: ...

class WorkingHours(_message.Message):
    __slots__ = ("days",)
    DAYS_FIELD_NUMBER: _ClassVar[int]
    days: _containers.RepeatedCompositeFieldContainer[DayHours]
    def __init__(self, days: _Optional[_Iterable[_Union[DayHours, _Mapping]]] = ...) -> None: ...

class DayHours(_message.Message):
    __slots__ = ("weekday", "intervals")
    WEEKDAY_FIELD_NUMBER: _ClassVar[int]
    INTERVALS_FIELD_NUMBER: _ClassVar[int]
    weekday: Weekday
    intervals: _containers.RepeatedCompositeFieldContainer[TimeInterval]
    def __init__(self, weekday: _Optional[_Union[Weekday, str]] = ..., intervals: _Optional[_Iterable[_Union[TimeInterval, _Mapping]]] = ...) -> None: ...

class TimeInterval(_message.Message):
    __slots__ = ("start", "end")
    START_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    start: str
    end: str
    def __init__(self, start: _Optional[str] = ..., end: _Optional[str] = ...) -> None: ...

class ComputeDueTimeRequest(_message.Message):
    __slots__ = ("start", "duration", "calendar", "idempotency_key")
    START_FIELD_NUMBER: _ClassVar[int]
    DURATION_FIELD_NUMBER: _ClassVar[int]
    CALENDAR_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    start: _timestamp_pb2.Timestamp
    duration: str
    calendar: Calendar
    idempotency_key: str
    def __init__(self, start: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., duration: _Optional[str] = ..., calendar: _Optional[_Union[Calendar, _Mapping]] = ..., idempotency_key: _Optional[str] = ...) -> None: ...

class ComputeDueTimeResponse(_message.Message):
    __slots__ = ("due", "due_local", "time_zone", "record_id", "calendar_version", "rules_version", "tzdata_version")
    DUE_FIELD_NUMBER: _ClassVar[int]
    DUE_LOCAL_FIELD_NUMBER: _ClassVar[int]
    TIME_ZONE_FIELD_NUMBER: _ClassVar[int]
    RECORD_ID_FIELD_NUMBER: _ClassVar[int]
    CALENDAR_VERSION_FIELD_NUMBER: _ClassVar[int]
    RULES_VERSION_FIELD_NUMBER: _ClassVar[int]
    TZDATA_VERSION_FIELD_NUMBER: _ClassVar[int]
    due: _timestamp_pb2.Timestamp
    due_local: str
    time_zone: str
    record_id: str
    calendar_version: str
    rules_version: str
    tzdata_version: str
    def __init__(self, due: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., due_local: _Optional[str] = ..., time_zone: _Optional[str] = ..., record_id: _Optional[str] = ..., calendar_version: _Optional[str] = ..., rules_version: _Optional[str] = ..., tzdata_version: _Optional[str] = ...) -> None: ...

class GetRecordRequest(_message.Message):
    __slots__ = ("record_id",)
    RECORD_ID_FIELD_NUMBER: _ClassVar[int]
    record_id: str
    def __init__(self, record_id: _Optional[str] = ...) -> None: ...

class GetRecordResponse(_message.Message):
    __slots__ = ("record",)
    RECORD_FIELD_NUMBER: _ClassVar[int]
    record: Record
    def __init__(self, record: _Optional[_Union[Record, _Mapping]] = ...) -> None: ...

class Record(_message.Message):
    __slots__ = ("record_id", "method", "receive_time", "idempotency_key", "calendar_version", "rules_version", "tzdata_version", "request", "response", "content_sha256")
    RECORD_ID_FIELD_NUMBER: _ClassVar[int]
    METHOD_FIELD_NUMBER: _ClassVar[int]
    RECEIVE_TIME_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    CALENDAR_VERSION_FIELD_NUMBER: _ClassVar[int]
    RULES_VERSION_FIELD_NUMBER: _ClassVar[int]
    TZDATA_VERSION_FIELD_NUMBER: _ClassVar[int]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_SHA256_FIELD_NUMBER: _ClassVar[int]
    record_id: str
    method: str
    receive_time: _timestamp_pb2.Timestamp
    idempotency_key: str
    calendar_version: str
    rules_version: str
    tzdata_version: str
    request: _any_pb2.Any
    response: _any_pb2.Any
    content_sha256: str
    def __init__(self, record_id: _Optional[str] = ..., method: _Optional[str] = ..., receive_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., idempotency_key: _Optional[str] = ..., calendar_version: _Optional[str] = ..., rules_version: _Optional[str] = ..., tzdata_version: _Optional[str] = ..., request: _Optional[_Union[_any_pb2.Any, _Mapping]] = ..., response: _Optional[_Union[_any_pb2.Any, _Mapping]] = ..., content_sha256: _Optional[str] = ...) -> None: ...

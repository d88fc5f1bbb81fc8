import datetime

from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf import any_pb2 as _any_pb2
from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.rpc import status_pb2 as _status_pb2
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

class AtClose(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    AT_CLOSE_UNSPECIFIED: _ClassVar[AtClose]
    AT_CLOSE_END_OF_WINDOW: _ClassVar[AtClose]
    AT_CLOSE_NEXT_OPEN: _ClassVar[AtClose]

class Roll(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ROLL_UNSPECIFIED: _ClassVar[Roll]
    ROLL_FOLLOWING: _ClassVar[Roll]
    ROLL_PRECEDING: _ClassVar[Roll]
    ROLL_MODIFIED_FOLLOWING: _ClassVar[Roll]
    ROLL_MODIFIED_PRECEDING: _ClassVar[Roll]

class ClockMeasure(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CLOCK_MEASURE_UNSPECIFIED: _ClassVar[ClockMeasure]
    CLOCK_MEASURE_ELAPSED: _ClassVar[ClockMeasure]
    CLOCK_MEASURE_BUSINESS_DAY: _ClassVar[ClockMeasure]
    CLOCK_MEASURE_BUSINESS_TIME: _ClassVar[ClockMeasure]

class ClockStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CLOCK_STATUS_UNSPECIFIED: _ClassVar[ClockStatus]
    CLOCK_STATUS_RUNNING: _ClassVar[ClockStatus]
    CLOCK_STATUS_PAUSED: _ClassVar[ClockStatus]
    CLOCK_STATUS_STOPPED: _ClassVar[ClockStatus]

class ClockEventType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CLOCK_EVENT_TYPE_UNSPECIFIED: _ClassVar[ClockEventType]
    CLOCK_EVENT_TYPE_PAUSE: _ClassVar[ClockEventType]
    CLOCK_EVENT_TYPE_RESUME: _ClassVar[ClockEventType]
    CLOCK_EVENT_TYPE_RESET: _ClassVar[ClockEventType]
    CLOCK_EVENT_TYPE_RETARGET: _ClassVar[ClockEventType]
    CLOCK_EVENT_TYPE_STOP: _ClassVar[ClockEventType]

class RetargetAnchor(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RETARGET_ANCHOR_UNSPECIFIED: _ClassVar[RetargetAnchor]
    RETARGET_ANCHOR_EVENT: _ClassVar[RetargetAnchor]
    RETARGET_ANCHOR_START: _ClassVar[RetargetAnchor]

class SlaMetricStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SLA_METRIC_STATUS_UNSPECIFIED: _ClassVar[SlaMetricStatus]
    SLA_METRIC_STATUS_NOT_STARTED: _ClassVar[SlaMetricStatus]
    SLA_METRIC_STATUS_RUNNING: _ClassVar[SlaMetricStatus]
    SLA_METRIC_STATUS_PAUSED: _ClassVar[SlaMetricStatus]
    SLA_METRIC_STATUS_STOPPED: _ClassVar[SlaMetricStatus]

class SlaDueKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SLA_DUE_KIND_UNSPECIFIED: _ClassVar[SlaDueKind]
    SLA_DUE_KIND_WARNING: _ClassVar[SlaDueKind]
    SLA_DUE_KIND_BREACH: _ClassVar[SlaDueKind]
WEEKDAY_UNSPECIFIED: Weekday
WEEKDAY_MONDAY: Weekday
WEEKDAY_TUESDAY: Weekday
WEEKDAY_WEDNESDAY: Weekday
WEEKDAY_THURSDAY: Weekday
WEEKDAY_FRIDAY: Weekday
WEEKDAY_SATURDAY: Weekday
WEEKDAY_SUNDAY: Weekday
AT_CLOSE_UNSPECIFIED: AtClose
AT_CLOSE_END_OF_WINDOW: AtClose
AT_CLOSE_NEXT_OPEN: AtClose
ROLL_UNSPECIFIED: Roll
ROLL_FOLLOWING: Roll
ROLL_PRECEDING: Roll
ROLL_MODIFIED_FOLLOWING: Roll
ROLL_MODIFIED_PRECEDING: Roll
CLOCK_MEASURE_UNSPECIFIED: ClockMeasure
CLOCK_MEASURE_ELAPSED: ClockMeasure
CLOCK_MEASURE_BUSINESS_DAY: ClockMeasure
CLOCK_MEASURE_BUSINESS_TIME: ClockMeasure
CLOCK_STATUS_UNSPECIFIED: ClockStatus
CLOCK_STATUS_RUNNING: ClockStatus
CLOCK_STATUS_PAUSED: ClockStatus
CLOCK_STATUS_STOPPED: ClockStatus
CLOCK_EVENT_TYPE_UNSPECIFIED: ClockEventType
CLOCK_EVENT_TYPE_PAUSE: ClockEventType
CLOCK_EVENT_TYPE_RESUME: ClockEventType
CLOCK_EVENT_TYPE_RESET: ClockEventType
CLOCK_EVENT_TYPE_RETARGET: ClockEventType
CLOCK_EVENT_TYPE_STOP: ClockEventType
RETARGET_ANCHOR_UNSPECIFIED: RetargetAnchor
RETARGET_ANCHOR_EVENT: RetargetAnchor
RETARGET_ANCHOR_START: RetargetAnchor
SLA_METRIC_STATUS_UNSPECIFIED: SlaMetricStatus
SLA_METRIC_STATUS_NOT_STARTED: SlaMetricStatus
SLA_METRIC_STATUS_RUNNING: SlaMetricStatus
SLA_METRIC_STATUS_PAUSED: SlaMetricStatus
SLA_METRIC_STATUS_STOPPED: SlaMetricStatus
SLA_DUE_KIND_UNSPECIFIED: SlaDueKind
SLA_DUE_KIND_WARNING: SlaDueKind
SLA_DUE_KIND_BREACH: SlaDueKind

class Calendar(_message.Message):
    __slots__ = ("time_zone", "holidays", "weekend", "working_hours", "date_overrides", "extra_working_days", "holidays_valid_until", "bundle", "week_periods")
    TIME_ZONE_FIELD_NUMBER: _ClassVar[int]
    HOLIDAYS_FIELD_NUMBER: _ClassVar[int]
    WEEKEND_FIELD_NUMBER: _ClassVar[int]
    WORKING_HOURS_FIELD_NUMBER: _ClassVar[int]
    DATE_OVERRIDES_FIELD_NUMBER: _ClassVar[int]
    EXTRA_WORKING_DAYS_FIELD_NUMBER: _ClassVar[int]
    HOLIDAYS_VALID_UNTIL_FIELD_NUMBER: _ClassVar[int]
    BUNDLE_FIELD_NUMBER: _ClassVar[int]
    WEEK_PERIODS_FIELD_NUMBER: _ClassVar[int]
    time_zone: str
    holidays: _containers.RepeatedCompositeFieldContainer[Holiday]
    weekend: WeekendDays
    working_hours: WorkingHours
    date_overrides: _containers.RepeatedCompositeFieldContainer[DateOverride]
    extra_working_days: _containers.RepeatedCompositeFieldContainer[ExtraWorkingDay]
    holidays_valid_until: str
    bundle: str
    week_periods: _containers.RepeatedCompositeFieldContainer[WeekPeriod]
    def __init__(self, time_zone: _Optional[str] = ..., holidays: _Optional[_Iterable[_Union[Holiday, _Mapping]]] = ..., weekend: _Optional[_Union[WeekendDays, _Mapping]] = ..., working_hours: _Optional[_Union[WorkingHours, _Mapping]] = ..., date_overrides: _Optional[_Iterable[_Union[DateOverride, _Mapping]]] = ..., extra_working_days: _Optional[_Iterable[_Union[ExtraWorkingDay, _Mapping]]] = ..., holidays_valid_until: _Optional[str] = ..., bundle: _Optional[str] = ..., week_periods: _Optional[_Iterable[_Union[WeekPeriod, _Mapping]]] = ...) -> None: ...

class WeekPeriod(_message.Message):
    __slots__ = ("from_date", "weekend", "working_hours")
    FROM_DATE_FIELD_NUMBER: _ClassVar[int]
    WEEKEND_FIELD_NUMBER: _ClassVar[int]
    WORKING_HOURS_FIELD_NUMBER: _ClassVar[int]
    from_date: str
    weekend: WeekendDays
    working_hours: WorkingHours
    def __init__(self, from_date: _Optional[str] = ..., weekend: _Optional[_Union[WeekendDays, _Mapping]] = ..., working_hours: _Optional[_Union[WorkingHours, _Mapping]] = ...) -> None: ...

class DateOverride(_message.Message):
    __slots__ = ("date", "intervals", "closed", "name")
    DATE_FIELD_NUMBER: _ClassVar[int]
    INTERVALS_FIELD_NUMBER: _ClassVar[int]
    CLOSED_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    date: str
    intervals: _containers.RepeatedCompositeFieldContainer[TimeInterval]
    closed: bool
    name: str
    def __init__(self, date: _Optional[str] = ..., intervals: _Optional[_Iterable[_Union[TimeInterval, _Mapping]]] = ..., closed: _Optional[bool] = ..., name: _Optional[str] = ...) -> None: ...

class ExtraWorkingDay(_message.Message):
    __slots__ = ("date", "name")
    DATE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    date: str
    name: str
    def __init__(self, date: _Optional[str] = ..., name: _Optional[str] = ...) -> None: ...

class ExplanationStep(_message.Message):
    __slots__ = ("kind", "text", "local_date", "start_time", "end_time", "amount")
    KIND_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    LOCAL_DATE_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    kind: str
    text: str
    local_date: str
    start_time: _timestamp_pb2.Timestamp
    end_time: _timestamp_pb2.Timestamp
    amount: _duration_pb2.Duration
    def __init__(self, kind: _Optional[str] = ..., text: _Optional[str] = ..., local_date: _Optional[str] = ..., start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., amount: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

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
    __slots__ = ("start", "duration", "calendar", "idempotency_key", "at_close", "explain", "roll", "landing_time")
    START_FIELD_NUMBER: _ClassVar[int]
    DURATION_FIELD_NUMBER: _ClassVar[int]
    CALENDAR_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    AT_CLOSE_FIELD_NUMBER: _ClassVar[int]
    EXPLAIN_FIELD_NUMBER: _ClassVar[int]
    ROLL_FIELD_NUMBER: _ClassVar[int]
    LANDING_TIME_FIELD_NUMBER: _ClassVar[int]
    start: _timestamp_pb2.Timestamp
    duration: str
    calendar: Calendar
    idempotency_key: str
    at_close: AtClose
    explain: bool
    roll: Roll
    landing_time: str
    def __init__(self, start: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., duration: _Optional[str] = ..., calendar: _Optional[_Union[Calendar, _Mapping]] = ..., idempotency_key: _Optional[str] = ..., at_close: _Optional[_Union[AtClose, str]] = ..., explain: _Optional[bool] = ..., roll: _Optional[_Union[Roll, str]] = ..., landing_time: _Optional[str] = ...) -> None: ...

class ComputeDueTimeResponse(_message.Message):
    __slots__ = ("due", "due_local", "time_zone", "record_id", "calendar_version", "rules_version", "tzdata_version", "warnings", "explanation")
    DUE_FIELD_NUMBER: _ClassVar[int]
    DUE_LOCAL_FIELD_NUMBER: _ClassVar[int]
    TIME_ZONE_FIELD_NUMBER: _ClassVar[int]
    RECORD_ID_FIELD_NUMBER: _ClassVar[int]
    CALENDAR_VERSION_FIELD_NUMBER: _ClassVar[int]
    RULES_VERSION_FIELD_NUMBER: _ClassVar[int]
    TZDATA_VERSION_FIELD_NUMBER: _ClassVar[int]
    WARNINGS_FIELD_NUMBER: _ClassVar[int]
    EXPLANATION_FIELD_NUMBER: _ClassVar[int]
    due: _timestamp_pb2.Timestamp
    due_local: str
    time_zone: str
    record_id: str
    calendar_version: str
    rules_version: str
    tzdata_version: str
    warnings: _containers.RepeatedScalarFieldContainer[str]
    explanation: _containers.RepeatedCompositeFieldContainer[ExplanationStep]
    def __init__(self, due: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., due_local: _Optional[str] = ..., time_zone: _Optional[str] = ..., record_id: _Optional[str] = ..., calendar_version: _Optional[str] = ..., rules_version: _Optional[str] = ..., tzdata_version: _Optional[str] = ..., warnings: _Optional[_Iterable[str]] = ..., explanation: _Optional[_Iterable[_Union[ExplanationStep, _Mapping]]] = ...) -> None: ...

class BatchComputeDueTimesRequest(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[ComputeDueTimeRequest]
    def __init__(self, items: _Optional[_Iterable[_Union[ComputeDueTimeRequest, _Mapping]]] = ...) -> None: ...

class BatchComputeDueTimesResponse(_message.Message):
    __slots__ = ("results",)
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    results: _containers.RepeatedCompositeFieldContainer[BatchItemResult]
    def __init__(self, results: _Optional[_Iterable[_Union[BatchItemResult, _Mapping]]] = ...) -> None: ...

class BatchItemResult(_message.Message):
    __slots__ = ("response", "error")
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    response: ComputeDueTimeResponse
    error: _status_pb2.Status
    def __init__(self, response: _Optional[_Union[ComputeDueTimeResponse, _Mapping]] = ..., error: _Optional[_Union[_status_pb2.Status, _Mapping]] = ...) -> None: ...

class StreamComputeDueTimesRequest(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[ComputeDueTimeRequest]
    def __init__(self, items: _Optional[_Iterable[_Union[ComputeDueTimeRequest, _Mapping]]] = ...) -> None: ...

class StreamComputeDueTimesResponse(_message.Message):
    __slots__ = ("results",)
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    results: _containers.RepeatedCompositeFieldContainer[BatchItemResult]
    def __init__(self, results: _Optional[_Iterable[_Union[BatchItemResult, _Mapping]]] = ...) -> None: ...

class ComputeBusinessTimeRequest(_message.Message):
    __slots__ = ("start_time", "end_time", "calendar", "explain", "idempotency_key")
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    CALENDAR_FIELD_NUMBER: _ClassVar[int]
    EXPLAIN_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    start_time: _timestamp_pb2.Timestamp
    end_time: _timestamp_pb2.Timestamp
    calendar: Calendar
    explain: bool
    idempotency_key: str
    def __init__(self, start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., calendar: _Optional[_Union[Calendar, _Mapping]] = ..., explain: _Optional[bool] = ..., idempotency_key: _Optional[str] = ...) -> None: ...

class ComputeBusinessTimeResponse(_message.Message):
    __slots__ = ("business_time", "business_days", "time_zone", "record_id", "calendar_version", "rules_version", "tzdata_version", "warnings", "explanation")
    BUSINESS_TIME_FIELD_NUMBER: _ClassVar[int]
    BUSINESS_DAYS_FIELD_NUMBER: _ClassVar[int]
    TIME_ZONE_FIELD_NUMBER: _ClassVar[int]
    RECORD_ID_FIELD_NUMBER: _ClassVar[int]
    CALENDAR_VERSION_FIELD_NUMBER: _ClassVar[int]
    RULES_VERSION_FIELD_NUMBER: _ClassVar[int]
    TZDATA_VERSION_FIELD_NUMBER: _ClassVar[int]
    WARNINGS_FIELD_NUMBER: _ClassVar[int]
    EXPLANATION_FIELD_NUMBER: _ClassVar[int]
    business_time: _duration_pb2.Duration
    business_days: int
    time_zone: str
    record_id: str
    calendar_version: str
    rules_version: str
    tzdata_version: str
    warnings: _containers.RepeatedScalarFieldContainer[str]
    explanation: _containers.RepeatedCompositeFieldContainer[ExplanationStep]
    def __init__(self, business_time: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., business_days: _Optional[int] = ..., time_zone: _Optional[str] = ..., record_id: _Optional[str] = ..., calendar_version: _Optional[str] = ..., rules_version: _Optional[str] = ..., tzdata_version: _Optional[str] = ..., warnings: _Optional[_Iterable[str]] = ..., explanation: _Optional[_Iterable[_Union[ExplanationStep, _Mapping]]] = ...) -> None: ...

class GetOpenStatusRequest(_message.Message):
    __slots__ = ("time", "calendar", "idempotency_key", "include_last_run")
    TIME_FIELD_NUMBER: _ClassVar[int]
    CALENDAR_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_LAST_RUN_FIELD_NUMBER: _ClassVar[int]
    time: _timestamp_pb2.Timestamp
    calendar: Calendar
    idempotency_key: str
    include_last_run: bool
    def __init__(self, time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., calendar: _Optional[_Union[Calendar, _Mapping]] = ..., idempotency_key: _Optional[str] = ..., include_last_run: _Optional[bool] = ...) -> None: ...

class OpenInterval(_message.Message):
    __slots__ = ("start_time", "end_time")
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    start_time: _timestamp_pb2.Timestamp
    end_time: _timestamp_pb2.Timestamp
    def __init__(self, start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class GetOpenStatusResponse(_message.Message):
    __slots__ = ("open", "current_interval", "next_open_time", "next_close_time", "business_day", "local_date", "closed_reason", "holiday_name", "time_zone", "record_id", "calendar_version", "rules_version", "tzdata_version", "warnings", "last_open_time", "last_close_time")
    OPEN_FIELD_NUMBER: _ClassVar[int]
    CURRENT_INTERVAL_FIELD_NUMBER: _ClassVar[int]
    NEXT_OPEN_TIME_FIELD_NUMBER: _ClassVar[int]
    NEXT_CLOSE_TIME_FIELD_NUMBER: _ClassVar[int]
    BUSINESS_DAY_FIELD_NUMBER: _ClassVar[int]
    LOCAL_DATE_FIELD_NUMBER: _ClassVar[int]
    CLOSED_REASON_FIELD_NUMBER: _ClassVar[int]
    HOLIDAY_NAME_FIELD_NUMBER: _ClassVar[int]
    TIME_ZONE_FIELD_NUMBER: _ClassVar[int]
    RECORD_ID_FIELD_NUMBER: _ClassVar[int]
    CALENDAR_VERSION_FIELD_NUMBER: _ClassVar[int]
    RULES_VERSION_FIELD_NUMBER: _ClassVar[int]
    TZDATA_VERSION_FIELD_NUMBER: _ClassVar[int]
    WARNINGS_FIELD_NUMBER: _ClassVar[int]
    LAST_OPEN_TIME_FIELD_NUMBER: _ClassVar[int]
    LAST_CLOSE_TIME_FIELD_NUMBER: _ClassVar[int]
    open: bool
    current_interval: OpenInterval
    next_open_time: _timestamp_pb2.Timestamp
    next_close_time: _timestamp_pb2.Timestamp
    business_day: bool
    local_date: str
    closed_reason: str
    holiday_name: str
    time_zone: str
    record_id: str
    calendar_version: str
    rules_version: str
    tzdata_version: str
    warnings: _containers.RepeatedScalarFieldContainer[str]
    last_open_time: _timestamp_pb2.Timestamp
    last_close_time: _timestamp_pb2.Timestamp
    def __init__(self, open: _Optional[bool] = ..., current_interval: _Optional[_Union[OpenInterval, _Mapping]] = ..., next_open_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., next_close_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., business_day: _Optional[bool] = ..., local_date: _Optional[str] = ..., closed_reason: _Optional[str] = ..., holiday_name: _Optional[str] = ..., time_zone: _Optional[str] = ..., record_id: _Optional[str] = ..., calendar_version: _Optional[str] = ..., rules_version: _Optional[str] = ..., tzdata_version: _Optional[str] = ..., warnings: _Optional[_Iterable[str]] = ..., last_open_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., last_close_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class DeadlineSpec(_message.Message):
    __slots__ = ("name", "duration", "after", "roll", "landing_time")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DURATION_FIELD_NUMBER: _ClassVar[int]
    AFTER_FIELD_NUMBER: _ClassVar[int]
    ROLL_FIELD_NUMBER: _ClassVar[int]
    LANDING_TIME_FIELD_NUMBER: _ClassVar[int]
    name: str
    duration: str
    after: str
    roll: Roll
    landing_time: str
    def __init__(self, name: _Optional[str] = ..., duration: _Optional[str] = ..., after: _Optional[str] = ..., roll: _Optional[_Union[Roll, str]] = ..., landing_time: _Optional[str] = ...) -> None: ...

class ComputeScheduleRequest(_message.Message):
    __slots__ = ("entered_time", "calendar", "deadlines", "at_close", "explain", "idempotency_key")
    ENTERED_TIME_FIELD_NUMBER: _ClassVar[int]
    CALENDAR_FIELD_NUMBER: _ClassVar[int]
    DEADLINES_FIELD_NUMBER: _ClassVar[int]
    AT_CLOSE_FIELD_NUMBER: _ClassVar[int]
    EXPLAIN_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    entered_time: _timestamp_pb2.Timestamp
    calendar: Calendar
    deadlines: _containers.RepeatedCompositeFieldContainer[DeadlineSpec]
    at_close: AtClose
    explain: bool
    idempotency_key: str
    def __init__(self, entered_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., calendar: _Optional[_Union[Calendar, _Mapping]] = ..., deadlines: _Optional[_Iterable[_Union[DeadlineSpec, _Mapping]]] = ..., at_close: _Optional[_Union[AtClose, str]] = ..., explain: _Optional[bool] = ..., idempotency_key: _Optional[str] = ...) -> None: ...

class ScheduledDeadline(_message.Message):
    __slots__ = ("name", "due_time", "due_local", "from_time", "after", "explanation")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DUE_TIME_FIELD_NUMBER: _ClassVar[int]
    DUE_LOCAL_FIELD_NUMBER: _ClassVar[int]
    FROM_TIME_FIELD_NUMBER: _ClassVar[int]
    AFTER_FIELD_NUMBER: _ClassVar[int]
    EXPLANATION_FIELD_NUMBER: _ClassVar[int]
    name: str
    due_time: _timestamp_pb2.Timestamp
    due_local: str
    from_time: _timestamp_pb2.Timestamp
    after: str
    explanation: _containers.RepeatedCompositeFieldContainer[ExplanationStep]
    def __init__(self, name: _Optional[str] = ..., due_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., due_local: _Optional[str] = ..., from_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., after: _Optional[str] = ..., explanation: _Optional[_Iterable[_Union[ExplanationStep, _Mapping]]] = ...) -> None: ...

class ComputeScheduleResponse(_message.Message):
    __slots__ = ("deadlines", "next_due", "next_due_time", "time_zone", "record_id", "calendar_version", "rules_version", "tzdata_version", "warnings")
    DEADLINES_FIELD_NUMBER: _ClassVar[int]
    NEXT_DUE_FIELD_NUMBER: _ClassVar[int]
    NEXT_DUE_TIME_FIELD_NUMBER: _ClassVar[int]
    TIME_ZONE_FIELD_NUMBER: _ClassVar[int]
    RECORD_ID_FIELD_NUMBER: _ClassVar[int]
    CALENDAR_VERSION_FIELD_NUMBER: _ClassVar[int]
    RULES_VERSION_FIELD_NUMBER: _ClassVar[int]
    TZDATA_VERSION_FIELD_NUMBER: _ClassVar[int]
    WARNINGS_FIELD_NUMBER: _ClassVar[int]
    deadlines: _containers.RepeatedCompositeFieldContainer[ScheduledDeadline]
    next_due: str
    next_due_time: _timestamp_pb2.Timestamp
    time_zone: str
    record_id: str
    calendar_version: str
    rules_version: str
    tzdata_version: str
    warnings: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, deadlines: _Optional[_Iterable[_Union[ScheduledDeadline, _Mapping]]] = ..., next_due: _Optional[str] = ..., next_due_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., time_zone: _Optional[str] = ..., record_id: _Optional[str] = ..., calendar_version: _Optional[str] = ..., rules_version: _Optional[str] = ..., tzdata_version: _Optional[str] = ..., warnings: _Optional[_Iterable[str]] = ...) -> None: ...

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
    __slots__ = ("record_id", "method", "receive_time", "idempotency_key", "calendar_version", "rules_version", "tzdata_version", "request", "response", "content_sha256", "namespace")
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
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
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
    namespace: str
    def __init__(self, record_id: _Optional[str] = ..., method: _Optional[str] = ..., receive_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., idempotency_key: _Optional[str] = ..., calendar_version: _Optional[str] = ..., rules_version: _Optional[str] = ..., tzdata_version: _Optional[str] = ..., request: _Optional[_Union[_any_pb2.Any, _Mapping]] = ..., response: _Optional[_Union[_any_pb2.Any, _Mapping]] = ..., content_sha256: _Optional[str] = ..., namespace: _Optional[str] = ...) -> None: ...

class ListRecordsRequest(_message.Message):
    __slots__ = ("start_time", "end_time", "key_prefix", "namespace", "page_size", "page_token")
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    KEY_PREFIX_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    start_time: _timestamp_pb2.Timestamp
    end_time: _timestamp_pb2.Timestamp
    key_prefix: str
    namespace: str
    page_size: int
    page_token: str
    def __init__(self, start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., key_prefix: _Optional[str] = ..., namespace: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListRecordsResponse(_message.Message):
    __slots__ = ("records", "next_page_token")
    RECORDS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    records: _containers.RepeatedCompositeFieldContainer[Record]
    next_page_token: str
    def __init__(self, records: _Optional[_Iterable[_Union[Record, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class AnalyzeImpactRequest(_message.Message):
    __slots__ = ("calendar", "tzdata", "limit", "start_time", "end_time", "namespace")
    CALENDAR_FIELD_NUMBER: _ClassVar[int]
    TZDATA_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    calendar: str
    tzdata: bool
    limit: int
    start_time: _timestamp_pb2.Timestamp
    end_time: _timestamp_pb2.Timestamp
    namespace: str
    def __init__(self, calendar: _Optional[str] = ..., tzdata: _Optional[bool] = ..., limit: _Optional[int] = ..., start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., namespace: _Optional[str] = ...) -> None: ...

class AnalyzeImpactResponse(_message.Message):
    __slots__ = ("calendar_version", "tzdata_version", "records_examined", "records_replayed", "changes", "not_replayed", "truncated")
    CALENDAR_VERSION_FIELD_NUMBER: _ClassVar[int]
    TZDATA_VERSION_FIELD_NUMBER: _ClassVar[int]
    RECORDS_EXAMINED_FIELD_NUMBER: _ClassVar[int]
    RECORDS_REPLAYED_FIELD_NUMBER: _ClassVar[int]
    CHANGES_FIELD_NUMBER: _ClassVar[int]
    NOT_REPLAYED_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    calendar_version: str
    tzdata_version: str
    records_examined: int
    records_replayed: int
    changes: _containers.RepeatedCompositeFieldContainer[ImpactedRecord]
    not_replayed: _containers.RepeatedCompositeFieldContainer[SkippedRecord]
    truncated: bool
    def __init__(self, calendar_version: _Optional[str] = ..., tzdata_version: _Optional[str] = ..., records_examined: _Optional[int] = ..., records_replayed: _Optional[int] = ..., changes: _Optional[_Iterable[_Union[ImpactedRecord, _Mapping]]] = ..., not_replayed: _Optional[_Iterable[_Union[SkippedRecord, _Mapping]]] = ..., truncated: _Optional[bool] = ...) -> None: ...

class ImpactedRecord(_message.Message):
    __slots__ = ("record_id", "method", "idempotency_key", "namespace", "old_calendar_version", "new_calendar_version", "old_tzdata_version", "due_times", "error", "answer_changes")
    RECORD_ID_FIELD_NUMBER: _ClassVar[int]
    METHOD_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    OLD_CALENDAR_VERSION_FIELD_NUMBER: _ClassVar[int]
    NEW_CALENDAR_VERSION_FIELD_NUMBER: _ClassVar[int]
    OLD_TZDATA_VERSION_FIELD_NUMBER: _ClassVar[int]
    DUE_TIMES_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    ANSWER_CHANGES_FIELD_NUMBER: _ClassVar[int]
    record_id: str
    method: str
    idempotency_key: str
    namespace: str
    old_calendar_version: str
    new_calendar_version: str
    old_tzdata_version: str
    due_times: _containers.RepeatedCompositeFieldContainer[DueTimeChange]
    error: str
    answer_changes: _containers.RepeatedCompositeFieldContainer[AnswerChange]
    def __init__(self, record_id: _Optional[str] = ..., method: _Optional[str] = ..., idempotency_key: _Optional[str] = ..., namespace: _Optional[str] = ..., old_calendar_version: _Optional[str] = ..., new_calendar_version: _Optional[str] = ..., old_tzdata_version: _Optional[str] = ..., due_times: _Optional[_Iterable[_Union[DueTimeChange, _Mapping]]] = ..., error: _Optional[str] = ..., answer_changes: _Optional[_Iterable[_Union[AnswerChange, _Mapping]]] = ...) -> None: ...

class AnswerChange(_message.Message):
    __slots__ = ("name", "old_value", "new_value", "reasons")
    NAME_FIELD_NUMBER: _ClassVar[int]
    OLD_VALUE_FIELD_NUMBER: _ClassVar[int]
    NEW_VALUE_FIELD_NUMBER: _ClassVar[int]
    REASONS_FIELD_NUMBER: _ClassVar[int]
    name: str
    old_value: str
    new_value: str
    reasons: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., old_value: _Optional[str] = ..., new_value: _Optional[str] = ..., reasons: _Optional[_Iterable[str]] = ...) -> None: ...

class DueTimeChange(_message.Message):
    __slots__ = ("name", "old_due_time", "new_due_time", "old_due_local", "new_due_local", "reasons")
    NAME_FIELD_NUMBER: _ClassVar[int]
    OLD_DUE_TIME_FIELD_NUMBER: _ClassVar[int]
    NEW_DUE_TIME_FIELD_NUMBER: _ClassVar[int]
    OLD_DUE_LOCAL_FIELD_NUMBER: _ClassVar[int]
    NEW_DUE_LOCAL_FIELD_NUMBER: _ClassVar[int]
    REASONS_FIELD_NUMBER: _ClassVar[int]
    name: str
    old_due_time: _timestamp_pb2.Timestamp
    new_due_time: _timestamp_pb2.Timestamp
    old_due_local: str
    new_due_local: str
    reasons: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., old_due_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., new_due_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., old_due_local: _Optional[str] = ..., new_due_local: _Optional[str] = ..., reasons: _Optional[_Iterable[str]] = ...) -> None: ...

class SkippedRecord(_message.Message):
    __slots__ = ("record_id", "method", "reason")
    RECORD_ID_FIELD_NUMBER: _ClassVar[int]
    METHOD_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    record_id: str
    method: str
    reason: str
    def __init__(self, record_id: _Optional[str] = ..., method: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class ListCalendarsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListCalendarsResponse(_message.Message):
    __slots__ = ("calendars",)
    CALENDARS_FIELD_NUMBER: _ClassVar[int]
    calendars: _containers.RepeatedCompositeFieldContainer[CalendarInfo]
    def __init__(self, calendars: _Optional[_Iterable[_Union[CalendarInfo, _Mapping]]] = ...) -> None: ...

class CalendarInfo(_message.Message):
    __slots__ = ("name", "description", "time_zone", "newest_version", "versions", "first_year", "last_year")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    TIME_ZONE_FIELD_NUMBER: _ClassVar[int]
    NEWEST_VERSION_FIELD_NUMBER: _ClassVar[int]
    VERSIONS_FIELD_NUMBER: _ClassVar[int]
    FIRST_YEAR_FIELD_NUMBER: _ClassVar[int]
    LAST_YEAR_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    time_zone: str
    newest_version: str
    versions: _containers.RepeatedScalarFieldContainer[str]
    first_year: int
    last_year: int
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., time_zone: _Optional[str] = ..., newest_version: _Optional[str] = ..., versions: _Optional[_Iterable[str]] = ..., first_year: _Optional[int] = ..., last_year: _Optional[int] = ...) -> None: ...

class GetCalendarRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class GetCalendarResponse(_message.Message):
    __slots__ = ("info", "calendar", "version", "holidays_package", "source_country", "source_subdiv")
    INFO_FIELD_NUMBER: _ClassVar[int]
    CALENDAR_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    HOLIDAYS_PACKAGE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_COUNTRY_FIELD_NUMBER: _ClassVar[int]
    SOURCE_SUBDIV_FIELD_NUMBER: _ClassVar[int]
    info: CalendarInfo
    calendar: Calendar
    version: str
    holidays_package: str
    source_country: str
    source_subdiv: str
    def __init__(self, info: _Optional[_Union[CalendarInfo, _Mapping]] = ..., calendar: _Optional[_Union[Calendar, _Mapping]] = ..., version: _Optional[str] = ..., holidays_package: _Optional[str] = ..., source_country: _Optional[str] = ..., source_subdiv: _Optional[str] = ...) -> None: ...

class ListHolidaysRequest(_message.Message):
    __slots__ = ("calendar", "start_date", "end_date")
    CALENDAR_FIELD_NUMBER: _ClassVar[int]
    START_DATE_FIELD_NUMBER: _ClassVar[int]
    END_DATE_FIELD_NUMBER: _ClassVar[int]
    calendar: Calendar
    start_date: str
    end_date: str
    def __init__(self, calendar: _Optional[_Union[Calendar, _Mapping]] = ..., start_date: _Optional[str] = ..., end_date: _Optional[str] = ...) -> None: ...

class ListHolidaysResponse(_message.Message):
    __slots__ = ("holidays", "calendar_version", "warnings")
    HOLIDAYS_FIELD_NUMBER: _ClassVar[int]
    CALENDAR_VERSION_FIELD_NUMBER: _ClassVar[int]
    WARNINGS_FIELD_NUMBER: _ClassVar[int]
    holidays: _containers.RepeatedCompositeFieldContainer[Holiday]
    calendar_version: str
    warnings: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, holidays: _Optional[_Iterable[_Union[Holiday, _Mapping]]] = ..., calendar_version: _Optional[str] = ..., warnings: _Optional[_Iterable[str]] = ...) -> None: ...

class RunningInterval(_message.Message):
    __slots__ = ("start_time", "end_time")
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    start_time: _timestamp_pb2.Timestamp
    end_time: _timestamp_pb2.Timestamp
    def __init__(self, start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ClockState(_message.Message):
    __slots__ = ("target", "measure", "status", "deadline_time", "remaining", "start_time", "last_event_time", "running_since_time", "running_intervals", "breach_time", "met", "recomputations", "calendar", "calendar_version")
    TARGET_FIELD_NUMBER: _ClassVar[int]
    MEASURE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_TIME_FIELD_NUMBER: _ClassVar[int]
    REMAINING_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    LAST_EVENT_TIME_FIELD_NUMBER: _ClassVar[int]
    RUNNING_SINCE_TIME_FIELD_NUMBER: _ClassVar[int]
    RUNNING_INTERVALS_FIELD_NUMBER: _ClassVar[int]
    BREACH_TIME_FIELD_NUMBER: _ClassVar[int]
    MET_FIELD_NUMBER: _ClassVar[int]
    RECOMPUTATIONS_FIELD_NUMBER: _ClassVar[int]
    CALENDAR_FIELD_NUMBER: _ClassVar[int]
    CALENDAR_VERSION_FIELD_NUMBER: _ClassVar[int]
    target: str
    measure: ClockMeasure
    status: ClockStatus
    deadline_time: _timestamp_pb2.Timestamp
    remaining: _duration_pb2.Duration
    start_time: _timestamp_pb2.Timestamp
    last_event_time: _timestamp_pb2.Timestamp
    running_since_time: _timestamp_pb2.Timestamp
    running_intervals: _containers.RepeatedCompositeFieldContainer[RunningInterval]
    breach_time: _timestamp_pb2.Timestamp
    met: bool
    recomputations: int
    calendar: Calendar
    calendar_version: str
    def __init__(self, target: _Optional[str] = ..., measure: _Optional[_Union[ClockMeasure, str]] = ..., status: _Optional[_Union[ClockStatus, str]] = ..., deadline_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., remaining: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., last_event_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., running_since_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., running_intervals: _Optional[_Iterable[_Union[RunningInterval, _Mapping]]] = ..., breach_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., met: _Optional[bool] = ..., recomputations: _Optional[int] = ..., calendar: _Optional[_Union[Calendar, _Mapping]] = ..., calendar_version: _Optional[str] = ...) -> None: ...

class ClockEvent(_message.Message):
    __slots__ = ("type", "time", "target", "anchor")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    ANCHOR_FIELD_NUMBER: _ClassVar[int]
    type: ClockEventType
    time: _timestamp_pb2.Timestamp
    target: str
    anchor: RetargetAnchor
    def __init__(self, type: _Optional[_Union[ClockEventType, str]] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., target: _Optional[str] = ..., anchor: _Optional[_Union[RetargetAnchor, str]] = ...) -> None: ...

class StartClockRequest(_message.Message):
    __slots__ = ("target", "calendar", "start_time", "idempotency_key", "warning_thresholds")
    TARGET_FIELD_NUMBER: _ClassVar[int]
    CALENDAR_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    WARNING_THRESHOLDS_FIELD_NUMBER: _ClassVar[int]
    target: str
    calendar: Calendar
    start_time: _timestamp_pb2.Timestamp
    idempotency_key: str
    warning_thresholds: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, target: _Optional[str] = ..., calendar: _Optional[_Union[Calendar, _Mapping]] = ..., start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., idempotency_key: _Optional[str] = ..., warning_thresholds: _Optional[_Iterable[str]] = ...) -> None: ...

class StartClockResponse(_message.Message):
    __slots__ = ("state", "time_zone", "record_id", "calendar_version", "rules_version", "tzdata_version", "warnings", "next_action", "fell_at_event")
    STATE_FIELD_NUMBER: _ClassVar[int]
    TIME_ZONE_FIELD_NUMBER: _ClassVar[int]
    RECORD_ID_FIELD_NUMBER: _ClassVar[int]
    CALENDAR_VERSION_FIELD_NUMBER: _ClassVar[int]
    RULES_VERSION_FIELD_NUMBER: _ClassVar[int]
    TZDATA_VERSION_FIELD_NUMBER: _ClassVar[int]
    WARNINGS_FIELD_NUMBER: _ClassVar[int]
    NEXT_ACTION_FIELD_NUMBER: _ClassVar[int]
    FELL_AT_EVENT_FIELD_NUMBER: _ClassVar[int]
    state: ClockState
    time_zone: str
    record_id: str
    calendar_version: str
    rules_version: str
    tzdata_version: str
    warnings: _containers.RepeatedScalarFieldContainer[str]
    next_action: SlaNextAction
    fell_at_event: _containers.RepeatedCompositeFieldContainer[SlaDue]
    def __init__(self, state: _Optional[_Union[ClockState, _Mapping]] = ..., time_zone: _Optional[str] = ..., record_id: _Optional[str] = ..., calendar_version: _Optional[str] = ..., rules_version: _Optional[str] = ..., tzdata_version: _Optional[str] = ..., warnings: _Optional[_Iterable[str]] = ..., next_action: _Optional[_Union[SlaNextAction, _Mapping]] = ..., fell_at_event: _Optional[_Iterable[_Union[SlaDue, _Mapping]]] = ...) -> None: ...

class ApplyClockEventRequest(_message.Message):
    __slots__ = ("state", "event", "idempotency_key", "warning_thresholds")
    STATE_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    WARNING_THRESHOLDS_FIELD_NUMBER: _ClassVar[int]
    state: ClockState
    event: ClockEvent
    idempotency_key: str
    warning_thresholds: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, state: _Optional[_Union[ClockState, _Mapping]] = ..., event: _Optional[_Union[ClockEvent, _Mapping]] = ..., idempotency_key: _Optional[str] = ..., warning_thresholds: _Optional[_Iterable[str]] = ...) -> None: ...

class ApplyClockEventResponse(_message.Message):
    __slots__ = ("state", "time_zone", "record_id", "calendar_version", "rules_version", "tzdata_version", "warnings", "next_action", "fell_at_event")
    STATE_FIELD_NUMBER: _ClassVar[int]
    TIME_ZONE_FIELD_NUMBER: _ClassVar[int]
    RECORD_ID_FIELD_NUMBER: _ClassVar[int]
    CALENDAR_VERSION_FIELD_NUMBER: _ClassVar[int]
    RULES_VERSION_FIELD_NUMBER: _ClassVar[int]
    TZDATA_VERSION_FIELD_NUMBER: _ClassVar[int]
    WARNINGS_FIELD_NUMBER: _ClassVar[int]
    NEXT_ACTION_FIELD_NUMBER: _ClassVar[int]
    FELL_AT_EVENT_FIELD_NUMBER: _ClassVar[int]
    state: ClockState
    time_zone: str
    record_id: str
    calendar_version: str
    rules_version: str
    tzdata_version: str
    warnings: _containers.RepeatedScalarFieldContainer[str]
    next_action: SlaNextAction
    fell_at_event: _containers.RepeatedCompositeFieldContainer[SlaDue]
    def __init__(self, state: _Optional[_Union[ClockState, _Mapping]] = ..., time_zone: _Optional[str] = ..., record_id: _Optional[str] = ..., calendar_version: _Optional[str] = ..., rules_version: _Optional[str] = ..., tzdata_version: _Optional[str] = ..., warnings: _Optional[_Iterable[str]] = ..., next_action: _Optional[_Union[SlaNextAction, _Mapping]] = ..., fell_at_event: _Optional[_Iterable[_Union[SlaDue, _Mapping]]] = ...) -> None: ...

class BusinessEvent(_message.Message):
    __slots__ = ("type", "time", "attributes")
    class AttributesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    TYPE_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    ATTRIBUTES_FIELD_NUMBER: _ClassVar[int]
    type: str
    time: _timestamp_pb2.Timestamp
    attributes: _containers.ScalarMap[str, str]
    def __init__(self, type: _Optional[str] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., attributes: _Optional[_Mapping[str, str]] = ...) -> None: ...

class EvaluateSlaRequest(_message.Message):
    __slots__ = ("policy", "events", "idempotency_key", "as_of_time")
    POLICY_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    AS_OF_TIME_FIELD_NUMBER: _ClassVar[int]
    policy: str
    events: _containers.RepeatedCompositeFieldContainer[BusinessEvent]
    idempotency_key: str
    as_of_time: _timestamp_pb2.Timestamp
    def __init__(self, policy: _Optional[str] = ..., events: _Optional[_Iterable[_Union[BusinessEvent, _Mapping]]] = ..., idempotency_key: _Optional[str] = ..., as_of_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class TimelineEntry(_message.Message):
    __slots__ = ("event", "time", "action", "tier", "status", "old_deadline_time", "new_deadline_time", "remaining", "reason", "threshold")
    EVENT_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    TIER_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    OLD_DEADLINE_TIME_FIELD_NUMBER: _ClassVar[int]
    NEW_DEADLINE_TIME_FIELD_NUMBER: _ClassVar[int]
    REMAINING_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    THRESHOLD_FIELD_NUMBER: _ClassVar[int]
    event: str
    time: _timestamp_pb2.Timestamp
    action: str
    tier: str
    status: ClockStatus
    old_deadline_time: _timestamp_pb2.Timestamp
    new_deadline_time: _timestamp_pb2.Timestamp
    remaining: _duration_pb2.Duration
    reason: str
    threshold: str
    def __init__(self, event: _Optional[str] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., action: _Optional[str] = ..., tier: _Optional[str] = ..., status: _Optional[_Union[ClockStatus, str]] = ..., old_deadline_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., new_deadline_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., remaining: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., reason: _Optional[str] = ..., threshold: _Optional[str] = ...) -> None: ...

class EvaluateSlaResponse(_message.Message):
    __slots__ = ("state", "tier", "policy_version", "timeline", "time_zone", "record_id", "calendar_version", "rules_version", "tzdata_version", "warnings", "metrics", "next_action", "as_of_time")
    STATE_FIELD_NUMBER: _ClassVar[int]
    TIER_FIELD_NUMBER: _ClassVar[int]
    POLICY_VERSION_FIELD_NUMBER: _ClassVar[int]
    TIMELINE_FIELD_NUMBER: _ClassVar[int]
    TIME_ZONE_FIELD_NUMBER: _ClassVar[int]
    RECORD_ID_FIELD_NUMBER: _ClassVar[int]
    CALENDAR_VERSION_FIELD_NUMBER: _ClassVar[int]
    RULES_VERSION_FIELD_NUMBER: _ClassVar[int]
    TZDATA_VERSION_FIELD_NUMBER: _ClassVar[int]
    WARNINGS_FIELD_NUMBER: _ClassVar[int]
    METRICS_FIELD_NUMBER: _ClassVar[int]
    NEXT_ACTION_FIELD_NUMBER: _ClassVar[int]
    AS_OF_TIME_FIELD_NUMBER: _ClassVar[int]
    state: ClockState
    tier: str
    policy_version: str
    timeline: _containers.RepeatedCompositeFieldContainer[TimelineEntry]
    time_zone: str
    record_id: str
    calendar_version: str
    rules_version: str
    tzdata_version: str
    warnings: _containers.RepeatedScalarFieldContainer[str]
    metrics: _containers.RepeatedCompositeFieldContainer[SlaMetric]
    next_action: SlaNextAction
    as_of_time: _timestamp_pb2.Timestamp
    def __init__(self, state: _Optional[_Union[ClockState, _Mapping]] = ..., tier: _Optional[str] = ..., policy_version: _Optional[str] = ..., timeline: _Optional[_Iterable[_Union[TimelineEntry, _Mapping]]] = ..., time_zone: _Optional[str] = ..., record_id: _Optional[str] = ..., calendar_version: _Optional[str] = ..., rules_version: _Optional[str] = ..., tzdata_version: _Optional[str] = ..., warnings: _Optional[_Iterable[str]] = ..., metrics: _Optional[_Iterable[_Union[SlaMetric, _Mapping]]] = ..., next_action: _Optional[_Union[SlaNextAction, _Mapping]] = ..., as_of_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class SlaMetric(_message.Message):
    __slots__ = ("name", "status", "cycles", "tier", "state", "timeline", "breach_time")
    NAME_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    CYCLES_FIELD_NUMBER: _ClassVar[int]
    TIER_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    TIMELINE_FIELD_NUMBER: _ClassVar[int]
    BREACH_TIME_FIELD_NUMBER: _ClassVar[int]
    name: str
    status: SlaMetricStatus
    cycles: int
    tier: str
    state: ClockState
    timeline: _containers.RepeatedCompositeFieldContainer[TimelineEntry]
    breach_time: _timestamp_pb2.Timestamp
    def __init__(self, name: _Optional[str] = ..., status: _Optional[_Union[SlaMetricStatus, str]] = ..., cycles: _Optional[int] = ..., tier: _Optional[str] = ..., state: _Optional[_Union[ClockState, _Mapping]] = ..., timeline: _Optional[_Iterable[_Union[TimelineEntry, _Mapping]]] = ..., breach_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class SlaDue(_message.Message):
    __slots__ = ("metric", "kind", "threshold")
    METRIC_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    THRESHOLD_FIELD_NUMBER: _ClassVar[int]
    metric: str
    kind: SlaDueKind
    threshold: str
    def __init__(self, metric: _Optional[str] = ..., kind: _Optional[_Union[SlaDueKind, str]] = ..., threshold: _Optional[str] = ...) -> None: ...

class SlaNextAction(_message.Message):
    __slots__ = ("time", "due")
    TIME_FIELD_NUMBER: _ClassVar[int]
    DUE_FIELD_NUMBER: _ClassVar[int]
    time: _timestamp_pb2.Timestamp
    due: _containers.RepeatedCompositeFieldContainer[SlaDue]
    def __init__(self, time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., due: _Optional[_Iterable[_Union[SlaDue, _Mapping]]] = ...) -> None: ...

class ListPoliciesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListPoliciesResponse(_message.Message):
    __slots__ = ("policies",)
    POLICIES_FIELD_NUMBER: _ClassVar[int]
    policies: _containers.RepeatedCompositeFieldContainer[PolicyInfo]
    def __init__(self, policies: _Optional[_Iterable[_Union[PolicyInfo, _Mapping]]] = ...) -> None: ...

class PolicyInfo(_message.Message):
    __slots__ = ("name", "description", "newest_version", "versions")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    NEWEST_VERSION_FIELD_NUMBER: _ClassVar[int]
    VERSIONS_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    newest_version: str
    versions: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., newest_version: _Optional[str] = ..., versions: _Optional[_Iterable[str]] = ...) -> None: ...

class GetPolicyRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class PolicyTier(_message.Message):
    __slots__ = ("name", "target", "measure", "calendar_version", "time_zone")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    MEASURE_FIELD_NUMBER: _ClassVar[int]
    CALENDAR_VERSION_FIELD_NUMBER: _ClassVar[int]
    TIME_ZONE_FIELD_NUMBER: _ClassVar[int]
    name: str
    target: str
    measure: ClockMeasure
    calendar_version: str
    time_zone: str
    def __init__(self, name: _Optional[str] = ..., target: _Optional[str] = ..., measure: _Optional[_Union[ClockMeasure, str]] = ..., calendar_version: _Optional[str] = ..., time_zone: _Optional[str] = ...) -> None: ...

class PolicyEvent(_message.Message):
    __slots__ = ("name", "when_running", "when_paused", "anchor", "description")
    NAME_FIELD_NUMBER: _ClassVar[int]
    WHEN_RUNNING_FIELD_NUMBER: _ClassVar[int]
    WHEN_PAUSED_FIELD_NUMBER: _ClassVar[int]
    ANCHOR_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    name: str
    when_running: str
    when_paused: str
    anchor: str
    description: str
    def __init__(self, name: _Optional[str] = ..., when_running: _Optional[str] = ..., when_paused: _Optional[str] = ..., anchor: _Optional[str] = ..., description: _Optional[str] = ...) -> None: ...

class GetPolicyResponse(_message.Message):
    __slots__ = ("info", "version", "initial_tier", "tiers", "events", "metrics")
    INFO_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    INITIAL_TIER_FIELD_NUMBER: _ClassVar[int]
    TIERS_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    METRICS_FIELD_NUMBER: _ClassVar[int]
    info: PolicyInfo
    version: str
    initial_tier: str
    tiers: _containers.RepeatedCompositeFieldContainer[PolicyTier]
    events: _containers.RepeatedCompositeFieldContainer[PolicyEvent]
    metrics: _containers.RepeatedCompositeFieldContainer[PolicyMetric]
    def __init__(self, info: _Optional[_Union[PolicyInfo, _Mapping]] = ..., version: _Optional[str] = ..., initial_tier: _Optional[str] = ..., tiers: _Optional[_Iterable[_Union[PolicyTier, _Mapping]]] = ..., events: _Optional[_Iterable[_Union[PolicyEvent, _Mapping]]] = ..., metrics: _Optional[_Iterable[_Union[PolicyMetric, _Mapping]]] = ...) -> None: ...

class PolicyMetric(_message.Message):
    __slots__ = ("name", "targets", "rules", "warnings")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TARGETS_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    WARNINGS_FIELD_NUMBER: _ClassVar[int]
    name: str
    targets: _containers.RepeatedCompositeFieldContainer[PolicyTier]
    rules: _containers.RepeatedCompositeFieldContainer[PolicyMetricRule]
    warnings: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., targets: _Optional[_Iterable[_Union[PolicyTier, _Mapping]]] = ..., rules: _Optional[_Iterable[_Union[PolicyMetricRule, _Mapping]]] = ..., warnings: _Optional[_Iterable[str]] = ...) -> None: ...

class PolicyMetricRule(_message.Message):
    __slots__ = ("event", "status", "action", "anchor")
    EVENT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    ANCHOR_FIELD_NUMBER: _ClassVar[int]
    event: str
    status: str
    action: str
    anchor: str
    def __init__(self, event: _Optional[str] = ..., status: _Optional[str] = ..., action: _Optional[str] = ..., anchor: _Optional[str] = ...) -> None: ...

class ListOpenPeriodsRequest(_message.Message):
    __slots__ = ("start_time", "end_time", "calendar", "page_size", "page_token", "idempotency_key")
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    CALENDAR_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    start_time: _timestamp_pb2.Timestamp
    end_time: _timestamp_pb2.Timestamp
    calendar: Calendar
    page_size: int
    page_token: str
    idempotency_key: str
    def __init__(self, start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., calendar: _Optional[_Union[Calendar, _Mapping]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., idempotency_key: _Optional[str] = ...) -> None: ...

class OpenPeriod(_message.Message):
    __slots__ = ("start_time", "end_time", "local_date", "start_local", "end_local")
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    LOCAL_DATE_FIELD_NUMBER: _ClassVar[int]
    START_LOCAL_FIELD_NUMBER: _ClassVar[int]
    END_LOCAL_FIELD_NUMBER: _ClassVar[int]
    start_time: _timestamp_pb2.Timestamp
    end_time: _timestamp_pb2.Timestamp
    local_date: str
    start_local: str
    end_local: str
    def __init__(self, start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., local_date: _Optional[str] = ..., start_local: _Optional[str] = ..., end_local: _Optional[str] = ...) -> None: ...

class ListOpenPeriodsResponse(_message.Message):
    __slots__ = ("periods", "next_page_token", "time_zone", "record_id", "calendar_version", "rules_version", "tzdata_version", "warnings")
    PERIODS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    TIME_ZONE_FIELD_NUMBER: _ClassVar[int]
    RECORD_ID_FIELD_NUMBER: _ClassVar[int]
    CALENDAR_VERSION_FIELD_NUMBER: _ClassVar[int]
    RULES_VERSION_FIELD_NUMBER: _ClassVar[int]
    TZDATA_VERSION_FIELD_NUMBER: _ClassVar[int]
    WARNINGS_FIELD_NUMBER: _ClassVar[int]
    periods: _containers.RepeatedCompositeFieldContainer[OpenPeriod]
    next_page_token: str
    time_zone: str
    record_id: str
    calendar_version: str
    rules_version: str
    tzdata_version: str
    warnings: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, periods: _Optional[_Iterable[_Union[OpenPeriod, _Mapping]]] = ..., next_page_token: _Optional[str] = ..., time_zone: _Optional[str] = ..., record_id: _Optional[str] = ..., calendar_version: _Optional[str] = ..., rules_version: _Optional[str] = ..., tzdata_version: _Optional[str] = ..., warnings: _Optional[_Iterable[str]] = ...) -> None: ...

class CountBusinessDaysRequest(_message.Message):
    __slots__ = ("from_date", "to_date", "calendar", "idempotency_key")
    FROM_DATE_FIELD_NUMBER: _ClassVar[int]
    TO_DATE_FIELD_NUMBER: _ClassVar[int]
    CALENDAR_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    from_date: str
    to_date: str
    calendar: Calendar
    idempotency_key: str
    def __init__(self, from_date: _Optional[str] = ..., to_date: _Optional[str] = ..., calendar: _Optional[_Union[Calendar, _Mapping]] = ..., idempotency_key: _Optional[str] = ...) -> None: ...

class CountBusinessDaysResponse(_message.Message):
    __slots__ = ("business_days", "time_zone", "record_id", "calendar_version", "rules_version", "tzdata_version", "warnings")
    BUSINESS_DAYS_FIELD_NUMBER: _ClassVar[int]
    TIME_ZONE_FIELD_NUMBER: _ClassVar[int]
    RECORD_ID_FIELD_NUMBER: _ClassVar[int]
    CALENDAR_VERSION_FIELD_NUMBER: _ClassVar[int]
    RULES_VERSION_FIELD_NUMBER: _ClassVar[int]
    TZDATA_VERSION_FIELD_NUMBER: _ClassVar[int]
    WARNINGS_FIELD_NUMBER: _ClassVar[int]
    business_days: int
    time_zone: str
    record_id: str
    calendar_version: str
    rules_version: str
    tzdata_version: str
    warnings: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, business_days: _Optional[int] = ..., time_zone: _Optional[str] = ..., record_id: _Optional[str] = ..., calendar_version: _Optional[str] = ..., rules_version: _Optional[str] = ..., tzdata_version: _Optional[str] = ..., warnings: _Optional[_Iterable[str]] = ...) -> None: ...

import type { GenEnum, GenFile, GenMessage, GenService } from "@bufbuild/protobuf/codegenv2";
import type { Any, Duration, Timestamp } from "@bufbuild/protobuf/wkt";
import type { Status } from "../../google/rpc/status_pb.js";
import type { Message } from "@bufbuild/protobuf";
/**
 * Describes the file duetime/v1/duetime.proto.
 */
export declare const file_duetime_v1_duetime: GenFile;
/**
 * Calendar is a business calendar (docs/semantics.md §7): given inline, or a bundle named
 * in `bundle` (plus, optionally, extra inline holidays). Every part is
 * optional; an unset part takes its default (docs/semantics.md §4, §7).
 *
 * The calendar_version of an answer identifies exactly the calendar used:
 * "cal-<16 hex>" (a hash of the canonical form) for an inline calendar;
 * "hr-zagreb@f45226394a32" for a bundle alone; "hr-zagreb@f45226394a32+cal-<16
 * hex>" for a bundle with extra holidays (the hash of the combined calendar).
 *
 * @generated from message duetime.v1.Calendar
 */
export type Calendar = Message<"duetime.v1.Calendar"> & {
    /**
     * IANA time zone name, e.g. "Europe/Zagreb". Default (empty): "UTC".
     * Local dates, holidays and working hours are all in this zone.
     *
     * @generated from field: string time_zone = 1;
     */
    timeZone: string;
    /**
     * Holidays: local dates that are closed (not business days). Default: none.
     *
     * @generated from field: repeated duetime.v1.Holiday holidays = 2;
     */
    holidays: Holiday[];
    /**
     * Weekend days. Unset: Saturday and Sunday. Set with no days: no weekend,
     * a seven-day week. All seven days is INVALID_ARGUMENT.
     *
     * @generated from field: duetime.v1.WeekendDays weekend = 3;
     */
    weekend?: WeekendDays | undefined;
    /**
     * Weekly working hours. Unset: 09:00–17:00 on every day that is not a
     * weekend day. Set: it is the whole week; a weekday it does not list has no
     * working hours. Hours on a weekend day are INVALID_ARGUMENT.
     *
     * @generated from field: duetime.v1.WorkingHours working_hours = 4;
     */
    workingHours?: WorkingHours | undefined;
    /**
     * Dates with their own hours (a shortened day) or closed; an override wins
     * over every other rule for its date (docs/semantics.md §4). A date may have one
     * override; at most 10000. Default: none.
     *
     * @generated from field: repeated duetime.v1.DateOverride date_overrides = 5;
     */
    dateOverrides: DateOverride[];
    /**
     * Dates opened although they are weekend days or holidays, with their own
     * weekday's hours, else those of the first weekday that has hours (docs/semantics.md §5).
     * Default: none.
     *
     * @generated from field: repeated duetime.v1.ExtraWorkingDay extra_working_days = 6;
     */
    extraWorkingDays: ExtraWorkingDay[];
    /**
     * Last local date ("YYYY-MM-DD") the holiday list is known to be complete
     * for: an answer that depends on a later date is OUT_OF_RANGE (field
     * "calendar.holidays_valid_until"). Empty (default): unknown; an answer past
     * the year of the last listed holiday then carries a warning.
     *
     * @generated from field: string holidays_valid_until = 7;
     */
    holidaysValidUntil: string;
    /**
     * A calendar bundle: "name" (its newest version, e.g. "hr-zagreb") or
     * "name@version" (exactly that version, e.g. "hr-zagreb@f45226394a32"), as
     * listed by CalendarService.ListCalendars. When set, the bundle gives the
     * time zone, weekend, working hours, holidays, overrides and extra working
     * days, and `holidays` (if any) are added to the bundle's (a date the bundle
     * already lists keeps the bundle's name); every other part must be unset
     * (INVALID_ARGUMENT naming it). An answer that depends on a date outside the
     * bundle's year range is OUT_OF_RANGE on "calendar.bundle". An unknown name
     * or version is INVALID_ARGUMENT on "calendar.bundle". Default (empty): the
     * calendar is all inline.
     *
     * @generated from field: string bundle = 8;
     */
    bundle: string;
    /**
     * Weeks that change by date (docs/semantics.md §16): each period's weekend
     * and working hours hold from its from_date until the next period's; before
     * the first, `weekend` and `working_hours` above hold. from_date strictly
     * increasing (INVALID_ARGUMENT naming the period otherwise); at most 100.
     * The last period must leave a day open; one between two others may close
     * every day. Default: none (the same week on every date).
     *
     * @generated from field: repeated duetime.v1.WeekPeriod week_periods = 9;
     */
    weekPeriods: WeekPeriod[];
};
/**
 * Describes the message duetime.v1.Calendar.
 * Use `create(CalendarSchema)` to create a new message.
 */
export declare const CalendarSchema: GenMessage<Calendar>;
/**
 * WeekPeriod is a week that holds from a local date on (docs/semantics.md §16).
 *
 * @generated from message duetime.v1.WeekPeriod
 */
export type WeekPeriod = Message<"duetime.v1.WeekPeriod"> & {
    /**
     * First local date the period holds, "YYYY-MM-DD". Required.
     *
     * @generated from field: string from_date = 1;
     */
    fromDate: string;
    /**
     * Its weekend days. Unset: Saturday and Sunday (the default, not the
     * previous week's). Set with no days: no weekend.
     *
     * @generated from field: duetime.v1.WeekendDays weekend = 2;
     */
    weekend?: WeekendDays | undefined;
    /**
     * Its working hours, the whole week as for Calendar.working_hours. Unset:
     * 09:00–17:00 on every day that is not one of its weekend days.
     *
     * @generated from field: duetime.v1.WorkingHours working_hours = 3;
     */
    workingHours?: WorkingHours | undefined;
};
/**
 * Describes the message duetime.v1.WeekPeriod.
 * Use `create(WeekPeriodSchema)` to create a new message.
 */
export declare const WeekPeriodSchema: GenMessage<WeekPeriod>;
/**
 * DateOverride gives one local date its own working intervals, or closes it.
 *
 * @generated from message duetime.v1.DateOverride
 */
export type DateOverride = Message<"duetime.v1.DateOverride"> & {
    /**
     * Local date in the calendar's time zone, "YYYY-MM-DD". Required.
     *
     * @generated from field: string date = 1;
     */
    date: string;
    /**
     * The date's working intervals, which replace its weekday's hours and make
     * it a business day even on a weekend or holiday. Exactly one of a
     * non-empty list or closed = true must be given.
     *
     * @generated from field: repeated duetime.v1.TimeInterval intervals = 2;
     */
    intervals: TimeInterval[];
    /**
     * True: the date is closed (not a business day). Default false. Giving
     * intervals too is INVALID_ARGUMENT.
     *
     * @generated from field: bool closed = 3;
     */
    closed: boolean;
    /**
     * Optional human name, e.g. "Inventory"; it appears in closed reasons and
     * explanations. Default: empty.
     *
     * @generated from field: string name = 4;
     */
    name: string;
};
/**
 * Describes the message duetime.v1.DateOverride.
 * Use `create(DateOverrideSchema)` to create a new message.
 */
export declare const DateOverrideSchema: GenMessage<DateOverride>;
/**
 * ExtraWorkingDay opens one local date that would otherwise be closed.
 *
 * @generated from message duetime.v1.ExtraWorkingDay
 */
export type ExtraWorkingDay = Message<"duetime.v1.ExtraWorkingDay"> & {
    /**
     * Local date in the calendar's time zone, "YYYY-MM-DD". Required.
     *
     * @generated from field: string date = 1;
     */
    date: string;
    /**
     * Optional human name, e.g. "Sunday shift". Default: empty.
     *
     * @generated from field: string name = 2;
     */
    name: string;
};
/**
 * Describes the message duetime.v1.ExtraWorkingDay.
 * Use `create(ExtraWorkingDaySchema)` to create a new message.
 */
export declare const ExtraWorkingDaySchema: GenMessage<ExtraWorkingDay>;
/**
 * ExplanationStep is one step of an explanation (asked for with explain =
 * true): a date skipped and why, a business day counted, an open interval
 * consumed, a DST change crossed, a gap or fold resolved, the due time.
 *
 * @generated from message duetime.v1.ExplanationStep
 */
export type ExplanationStep = Message<"duetime.v1.ExplanationStep"> & {
    /**
     * What the step is: "start", "skip" (a date that is not a business day),
     * "count" (a business day counted), "open" (an open interval consumed),
     * "summary" (many dates summed up), "dst" (a DST change crossed), "resolve"
     * (a DST gap or fold on the due date), "roll" (a landing rule moved the due
     * date off a date that is not a business day, or kept it: docs/semantics.md
     * §15), "note" or "due".
     *
     * @generated from field: string kind = 1;
     */
    kind: string;
    /**
     * The step in words, e.g. "Friday 2026-12-25: skipped, holiday (Christmas
     * Day)".
     *
     * @generated from field: string text = 2;
     */
    text: string;
    /**
     * The local date ("YYYY-MM-DD") the step is about; empty when none.
     *
     * @generated from field: string local_date = 3;
     */
    localDate: string;
    /**
     * The instant the step is about, or the start of the interval it consumes;
     * unset when none.
     *
     * @generated from field: google.protobuf.Timestamp start_time = 4;
     */
    startTime?: Timestamp | undefined;
    /**
     * The end of the interval the step consumes; unset when none.
     *
     * @generated from field: google.protobuf.Timestamp end_time = 5;
     */
    endTime?: Timestamp | undefined;
    /**
     * A length of time: open time consumed, elapsed time added, a DST offset
     * change (signed); unset when none.
     *
     * @generated from field: google.protobuf.Duration amount = 6;
     */
    amount?: Duration | undefined;
};
/**
 * Describes the message duetime.v1.ExplanationStep.
 * Use `create(ExplanationStepSchema)` to create a new message.
 */
export declare const ExplanationStepSchema: GenMessage<ExplanationStep>;
/**
 * Holiday is one closed local date.
 *
 * @generated from message duetime.v1.Holiday
 */
export type Holiday = Message<"duetime.v1.Holiday"> & {
    /**
     * Local date in the calendar's time zone, "YYYY-MM-DD" (e.g. "2026-12-25").
     *
     * @generated from field: string date = 1;
     */
    date: string;
    /**
     * Optional human name, e.g. "Christmas Day". Default: empty.
     *
     * @generated from field: string name = 2;
     */
    name: string;
};
/**
 * Describes the message duetime.v1.Holiday.
 * Use `create(HolidaySchema)` to create a new message.
 */
export declare const HolidaySchema: GenMessage<Holiday>;
/**
 * WeekendDays is the set of weekly closed days.
 *
 * @generated from message duetime.v1.WeekendDays
 */
export type WeekendDays = Message<"duetime.v1.WeekendDays"> & {
    /**
     * The weekend days; order and repeats do not matter. Empty: no weekend.
     *
     * @generated from field: repeated duetime.v1.Weekday days = 1;
     */
    days: Weekday[];
};
/**
 * Describes the message duetime.v1.WeekendDays.
 * Use `create(WeekendDaysSchema)` to create a new message.
 */
export declare const WeekendDaysSchema: GenMessage<WeekendDays>;
/**
 * WorkingHours is the weekly template of open intervals.
 *
 * @generated from message duetime.v1.WorkingHours
 */
export type WorkingHours = Message<"duetime.v1.WorkingHours"> & {
    /**
     * One entry per weekday that has working hours; a weekday may appear once.
     *
     * @generated from field: repeated duetime.v1.DayHours days = 1;
     */
    days: DayHours[];
};
/**
 * Describes the message duetime.v1.WorkingHours.
 * Use `create(WorkingHoursSchema)` to create a new message.
 */
export declare const WorkingHoursSchema: GenMessage<WorkingHours>;
/**
 * DayHours lists the open intervals of one weekday.
 *
 * @generated from message duetime.v1.DayHours
 */
export type DayHours = Message<"duetime.v1.DayHours"> & {
    /**
     * The weekday these intervals belong to.
     *
     * @generated from field: duetime.v1.Weekday weekday = 1;
     */
    weekday: Weekday;
    /**
     * Open intervals of that day, half-open [start, end) in local wall time.
     * Intervals of one day must not overlap. An empty list: no hours that day.
     *
     * @generated from field: repeated duetime.v1.TimeInterval intervals = 2;
     */
    intervals: TimeInterval[];
};
/**
 * Describes the message duetime.v1.DayHours.
 * Use `create(DayHoursSchema)` to create a new message.
 */
export declare const DayHoursSchema: GenMessage<DayHours>;
/**
 * TimeInterval is a half-open interval of local wall time [start, end).
 *
 * @generated from message duetime.v1.TimeInterval
 */
export type TimeInterval = Message<"duetime.v1.TimeInterval"> & {
    /**
     * Start, "HH:MM" or "HH:MM:SS" (00:00 … 23:59:59).
     *
     * @generated from field: string start = 1;
     */
    start: string;
    /**
     * End, "HH:MM" or "HH:MM:SS"; "24:00" is the next date's midnight. An end
     * earlier than the start crosses midnight (the interval belongs to the date
     * it starts on). An end equal to the start is INVALID_ARGUMENT.
     *
     * @generated from field: string end = 2;
     */
    end: string;
};
/**
 * Describes the message duetime.v1.TimeInterval.
 * Use `create(TimeIntervalSchema)` to create a new message.
 */
export declare const TimeIntervalSchema: GenMessage<TimeInterval>;
/**
 * ComputeDueTimeRequest asks for start + duration.
 *
 * @generated from message duetime.v1.ComputeDueTimeRequest
 */
export type ComputeDueTimeRequest = Message<"duetime.v1.ComputeDueTimeRequest"> & {
    /**
     * The instant the duration is counted from (required). Resolution: 1 µs.
     *
     * @generated from field: google.protobuf.Timestamp start = 1;
     */
    start?: Timestamp | undefined;
    /**
     * Duration text (docs/semantics.md §2): "30m", "48h", "2d", "3bd", "8bh", "7bh30bm",
     * "-1.5h", a bare integer of milliseconds ("5000"), a relative deadline
     * ("1bd@16:00", "1bd@end"), or one with a landing rule ("P1M@following",
     * "14d@modified-following@close", docs/semantics.md §15). Required.
     *
     * @generated from field: string duration = 2;
     */
    duration: string;
    /**
     * The calendar to count in. Unset: all defaults (UTC, Sat+Sun weekend,
     * 09:00–17:00, no holidays).
     *
     * @generated from field: duetime.v1.Calendar calendar = 3;
     */
    calendar?: Calendar | undefined;
    /**
     * Optional client key (at most 200 characters, not only whitespace), scoped
     * by the caller's namespace (see DueTimeService). A retry with the same key
     * and the same request returns the first answer and record id, even after a
     * bundle got a new version or the server restarted; the same key with a
     * different request is ALREADY_EXISTS (with a BadRequest violation on
     * "idempotency_key"). Empty: no idempotency.
     *
     * @generated from field: string idempotency_key = 4;
     */
    idempotencyKey: string;
    /**
     * Where positive business time (bh, bm) ending exactly at a closing is due.
     * Default (unset): AT_CLOSE_END_OF_WINDOW, at the closing.
     *
     * @generated from field: duetime.v1.AtClose at_close = 5;
     */
    atClose: AtClose;
    /**
     * True: the response carries the explanation steps. Default false.
     *
     * @generated from field: bool explain = 6;
     */
    explain: boolean;
    /**
     * The landing rule's roll (docs/semantics.md §15): where an elapsed or ISO
     * 8601 duration's due time moves when its local date is not a business
     * day, e.g. ROLL_FOLLOWING with duration "P1M" is "P1M@following". Unset:
     * no roll. INVALID_ARGUMENT beside a duration text that has its own
     * landing rule ("@…"), or beside business days or business time.
     *
     * @generated from field: duetime.v1.Roll roll = 7;
     */
    roll: Roll;
    /**
     * The landing time on the final date (docs/semantics.md §15): "HH:MM" or
     * "HH:MM:SS" local time, "open" (the date's first opening), "close" (its
     * last closing) or "end" (24:00, the next date's 00:00); e.g. roll
     * ROLL_FOLLOWING with landing_time "end" and duration "P2W" is
     * "P2W@following@end", and "end" beside "1bd" is "1bd@end". After an
     * elapsed or ISO 8601 duration it needs a roll. Empty (default): the due
     * time keeps its wall time.
     *
     * @generated from field: string landing_time = 8;
     */
    landingTime: string;
};
/**
 * Describes the message duetime.v1.ComputeDueTimeRequest.
 * Use `create(ComputeDueTimeRequestSchema)` to create a new message.
 */
export declare const ComputeDueTimeRequestSchema: GenMessage<ComputeDueTimeRequest>;
/**
 * ComputeDueTimeResponse is the recorded answer.
 *
 * @generated from message duetime.v1.ComputeDueTimeResponse
 */
export type ComputeDueTimeResponse = Message<"duetime.v1.ComputeDueTimeResponse"> & {
    /**
     * The due instant (UTC).
     *
     * @generated from field: google.protobuf.Timestamp due = 1;
     */
    due?: Timestamp | undefined;
    /**
     * The due instant as RFC 3339 text with the calendar zone's offset, e.g.
     * "2026-12-02T16:00:00+01:00".
     *
     * @generated from field: string due_local = 2;
     */
    dueLocal: string;
    /**
     * The IANA time zone the answer was computed in.
     *
     * @generated from field: string time_zone = 3;
     */
    timeZone: string;
    /**
     * Id of the ledger record holding this answer.
     *
     * @generated from field: string record_id = 4;
     */
    recordId: string;
    /**
     * Version of the calendar used: "cal-<hash>", "name@version" of a bundle,
     * or "name@version+cal-<hash>" with extra holidays (see Calendar).
     *
     * @generated from field: string calendar_version = 5;
     */
    calendarVersion: string;
    /**
     * Version of duetime's arithmetic rules that produced the answer.
     *
     * @generated from field: string rules_version = 6;
     */
    rulesVersion: string;
    /**
     * Version of the IANA time zone database used (e.g. "2025b").
     *
     * @generated from field: string tzdata_version = 7;
     */
    tzdataVersion: string;
    /**
     * Warnings in words, e.g. "no holidays known for 2028: …". Empty: none.
     *
     * @generated from field: repeated string warnings = 8;
     */
    warnings: string[];
    /**
     * The steps that lead to the due time; empty unless explain was true.
     *
     * @generated from field: repeated duetime.v1.ExplanationStep explanation = 9;
     */
    explanation: ExplanationStep[];
};
/**
 * Describes the message duetime.v1.ComputeDueTimeResponse.
 * Use `create(ComputeDueTimeResponseSchema)` to create a new message.
 */
export declare const ComputeDueTimeResponseSchema: GenMessage<ComputeDueTimeResponse>;
/**
 * BatchComputeDueTimesRequest holds the ComputeDueTime requests of one batch.
 *
 * @generated from message duetime.v1.BatchComputeDueTimesRequest
 */
export type BatchComputeDueTimesRequest = Message<"duetime.v1.BatchComputeDueTimesRequest"> & {
    /**
     * The requests, at most 1000. Each may carry its own idempotency_key.
     *
     * @generated from field: repeated duetime.v1.ComputeDueTimeRequest items = 1;
     */
    items: ComputeDueTimeRequest[];
};
/**
 * Describes the message duetime.v1.BatchComputeDueTimesRequest.
 * Use `create(BatchComputeDueTimesRequestSchema)` to create a new message.
 */
export declare const BatchComputeDueTimesRequestSchema: GenMessage<BatchComputeDueTimesRequest>;
/**
 * BatchComputeDueTimesResponse answers a batch, item by item.
 *
 * @generated from message duetime.v1.BatchComputeDueTimesResponse
 */
export type BatchComputeDueTimesResponse = Message<"duetime.v1.BatchComputeDueTimesResponse"> & {
    /**
     * One result per request item, in the same order.
     *
     * @generated from field: repeated duetime.v1.BatchItemResult results = 1;
     */
    results: BatchItemResult[];
};
/**
 * Describes the message duetime.v1.BatchComputeDueTimesResponse.
 * Use `create(BatchComputeDueTimesResponseSchema)` to create a new message.
 */
export declare const BatchComputeDueTimesResponseSchema: GenMessage<BatchComputeDueTimesResponse>;
/**
 * BatchItemResult is the answer to one item of a batch or stream.
 *
 * @generated from message duetime.v1.BatchItemResult
 */
export type BatchItemResult = Message<"duetime.v1.BatchItemResult"> & {
    /**
     * The item's answer or its error.
     *
     * @generated from oneof duetime.v1.BatchItemResult.result
     */
    result: {
        /**
         * The recorded answer, as ComputeDueTime returns it.
         *
         * @generated from field: duetime.v1.ComputeDueTimeResponse response = 1;
         */
        value: ComputeDueTimeResponse;
        case: "response";
    } | {
        /**
         * The error ComputeDueTime would have returned for this item alone
         * (code, message and details such as google.rpc.BadRequest); nothing
         * was recorded for the item.
         *
         * @generated from field: google.rpc.Status error = 2;
         */
        value: Status;
        case: "error";
    } | {
        case: undefined;
        value?: undefined;
    };
};
/**
 * Describes the message duetime.v1.BatchItemResult.
 * Use `create(BatchItemResultSchema)` to create a new message.
 */
export declare const BatchItemResultSchema: GenMessage<BatchItemResult>;
/**
 * StreamComputeDueTimesRequest is one message of a StreamComputeDueTimes
 * stream.
 *
 * @generated from message duetime.v1.StreamComputeDueTimesRequest
 */
export type StreamComputeDueTimesRequest = Message<"duetime.v1.StreamComputeDueTimesRequest"> & {
    /**
     * The next requests of the sweep, at most 1000 in one message.
     *
     * @generated from field: repeated duetime.v1.ComputeDueTimeRequest items = 1;
     */
    items: ComputeDueTimeRequest[];
};
/**
 * Describes the message duetime.v1.StreamComputeDueTimesRequest.
 * Use `create(StreamComputeDueTimesRequestSchema)` to create a new message.
 */
export declare const StreamComputeDueTimesRequestSchema: GenMessage<StreamComputeDueTimesRequest>;
/**
 * StreamComputeDueTimesResponse is one chunk of a stream's answers.
 *
 * @generated from message duetime.v1.StreamComputeDueTimesResponse
 */
export type StreamComputeDueTimesResponse = Message<"duetime.v1.StreamComputeDueTimesResponse"> & {
    /**
     * The answers to the next items of the stream, in order (at most 1000).
     *
     * @generated from field: repeated duetime.v1.BatchItemResult results = 1;
     */
    results: BatchItemResult[];
};
/**
 * Describes the message duetime.v1.StreamComputeDueTimesResponse.
 * Use `create(StreamComputeDueTimesResponseSchema)` to create a new message.
 */
export declare const StreamComputeDueTimesResponseSchema: GenMessage<StreamComputeDueTimesResponse>;
/**
 * ComputeBusinessTimeRequest asks how much business time lies between two
 * instants.
 *
 * @generated from message duetime.v1.ComputeBusinessTimeRequest
 */
export type ComputeBusinessTimeRequest = Message<"duetime.v1.ComputeBusinessTimeRequest"> & {
    /**
     * The first instant (required). Resolution: 1 µs.
     *
     * @generated from field: google.protobuf.Timestamp start_time = 1;
     */
    startTime?: Timestamp | undefined;
    /**
     * The second instant (required); may be earlier than start_time.
     *
     * @generated from field: google.protobuf.Timestamp end_time = 2;
     */
    endTime?: Timestamp | undefined;
    /**
     * The calendar to count in. Unset: all defaults (docs/semantics.md §7).
     *
     * @generated from field: duetime.v1.Calendar calendar = 3;
     */
    calendar?: Calendar | undefined;
    /**
     * True: the response carries the explanation steps. Default false.
     *
     * @generated from field: bool explain = 4;
     */
    explain: boolean;
    /**
     * Optional client key (at most 200 characters), as in ComputeDueTimeRequest.
     *
     * @generated from field: string idempotency_key = 5;
     */
    idempotencyKey: string;
};
/**
 * Describes the message duetime.v1.ComputeBusinessTimeRequest.
 * Use `create(ComputeBusinessTimeRequestSchema)` to create a new message.
 */
export declare const ComputeBusinessTimeRequestSchema: GenMessage<ComputeBusinessTimeRequest>;
/**
 * ComputeBusinessTimeResponse is the recorded answer.
 *
 * @generated from message duetime.v1.ComputeBusinessTimeResponse
 */
export type ComputeBusinessTimeResponse = Message<"duetime.v1.ComputeBusinessTimeResponse"> & {
    /**
     * Open time in [start_time, end_time) (docs/semantics.md §4); negative (the open time in
     * [end_time, start_time), negated) when end_time is earlier. Zero when the
     * calendar has no working hours.
     *
     * @generated from field: google.protobuf.Duration business_time = 1;
     */
    businessTime?: Duration | undefined;
    /**
     * Whole business days from start_time to end_time (docs/semantics.md §3 bd_between): the
     * largest N with start_time + N bd <= end_time, or -M for the largest M with
     * start_time - M bd >= end_time when end_time is earlier.
     *
     * @generated from field: int64 business_days = 2;
     */
    businessDays: bigint;
    /**
     * The IANA time zone the answer was computed in.
     *
     * @generated from field: string time_zone = 3;
     */
    timeZone: string;
    /**
     * Id of the ledger record holding this answer.
     *
     * @generated from field: string record_id = 4;
     */
    recordId: string;
    /**
     * Version of the calendar used: "cal-<hash>", "name@version" of a bundle,
     * or "name@version+cal-<hash>" with extra holidays (see Calendar).
     *
     * @generated from field: string calendar_version = 5;
     */
    calendarVersion: string;
    /**
     * Version of duetime's arithmetic rules that produced the answer.
     *
     * @generated from field: string rules_version = 6;
     */
    rulesVersion: string;
    /**
     * Version of the IANA time zone database used.
     *
     * @generated from field: string tzdata_version = 7;
     */
    tzdataVersion: string;
    /**
     * Warnings in words. Empty: none.
     *
     * @generated from field: repeated string warnings = 8;
     */
    warnings: string[];
    /**
     * The open intervals that make up business_time; empty unless explain.
     *
     * @generated from field: repeated duetime.v1.ExplanationStep explanation = 9;
     */
    explanation: ExplanationStep[];
};
/**
 * Describes the message duetime.v1.ComputeBusinessTimeResponse.
 * Use `create(ComputeBusinessTimeResponseSchema)` to create a new message.
 */
export declare const ComputeBusinessTimeResponseSchema: GenMessage<ComputeBusinessTimeResponse>;
/**
 * GetOpenStatusRequest asks whether the calendar is open at an instant.
 *
 * @generated from message duetime.v1.GetOpenStatusRequest
 */
export type GetOpenStatusRequest = Message<"duetime.v1.GetOpenStatusRequest"> & {
    /**
     * The instant asked about (required). Resolution: 1 µs.
     *
     * @generated from field: google.protobuf.Timestamp time = 1;
     */
    time?: Timestamp | undefined;
    /**
     * The calendar. Unset: all defaults (docs/semantics.md §7).
     *
     * @generated from field: duetime.v1.Calendar calendar = 2;
     */
    calendar?: Calendar | undefined;
    /**
     * Optional client key (at most 200 characters), as in ComputeDueTimeRequest.
     *
     * @generated from field: string idempotency_key = 3;
     */
    idempotencyKey: string;
    /**
     * True: the response also carries last_open_time and last_close_time
     * (docs/semantics.md §9.1). Default false: the answer is as it always was.
     *
     * @generated from field: bool include_last_run = 4;
     */
    includeLastRun: boolean;
};
/**
 * Describes the message duetime.v1.GetOpenStatusRequest.
 * Use `create(GetOpenStatusRequestSchema)` to create a new message.
 */
export declare const GetOpenStatusRequestSchema: GenMessage<GetOpenStatusRequest>;
/**
 * OpenInterval is a half-open run of open time [start_time, end_time).
 * Intervals that touch count as one run.
 *
 * @generated from message duetime.v1.OpenInterval
 */
export type OpenInterval = Message<"duetime.v1.OpenInterval"> & {
    /**
     * The opening that began the run.
     *
     * @generated from field: google.protobuf.Timestamp start_time = 1;
     */
    startTime?: Timestamp | undefined;
    /**
     * The closing that ends the run.
     *
     * @generated from field: google.protobuf.Timestamp end_time = 2;
     */
    endTime?: Timestamp | undefined;
};
/**
 * Describes the message duetime.v1.OpenInterval.
 * Use `create(OpenIntervalSchema)` to create a new message.
 */
export declare const OpenIntervalSchema: GenMessage<OpenInterval>;
/**
 * GetOpenStatusResponse is the recorded answer.
 *
 * @generated from message duetime.v1.GetOpenStatusResponse
 */
export type GetOpenStatusResponse = Message<"duetime.v1.GetOpenStatusResponse"> & {
    /**
     * True when the instant lies in open time.
     *
     * @generated from field: bool open = 1;
     */
    open: boolean;
    /**
     * The open run holding the instant; unset when closed.
     *
     * @generated from field: duetime.v1.OpenInterval current_interval = 2;
     */
    currentInterval?: OpenInterval | undefined;
    /**
     * The next opening after the instant (when open: after the current run
     * closes); unset when there is none (the calendar never closes, or has no
     * working hours).
     *
     * @generated from field: google.protobuf.Timestamp next_open_time = 3;
     */
    nextOpenTime?: Timestamp | undefined;
    /**
     * The closing of the current run, or of the next one when closed; unset
     * when there is none (open around the clock for 400 days, or no hours).
     *
     * @generated from field: google.protobuf.Timestamp next_close_time = 4;
     */
    nextCloseTime?: Timestamp | undefined;
    /**
     * True when the instant's local date is a business day (docs/semantics.md §3).
     *
     * @generated from field: bool business_day = 5;
     */
    businessDay: boolean;
    /**
     * The instant's local date in the calendar's zone, "YYYY-MM-DD".
     *
     * @generated from field: string local_date = 6;
     */
    localDate: string;
    /**
     * Why the local date is not a business day, in words: "weekend", "holiday
     * (Christmas Day)", "closed by override (Inventory)". Empty on a business
     * day.
     *
     * @generated from field: string closed_reason = 7;
     */
    closedReason: string;
    /**
     * The holiday's name when the local date is a closed holiday; else empty.
     *
     * @generated from field: string holiday_name = 8;
     */
    holidayName: string;
    /**
     * The IANA time zone the answer was computed in.
     *
     * @generated from field: string time_zone = 9;
     */
    timeZone: string;
    /**
     * Id of the ledger record holding this answer.
     *
     * @generated from field: string record_id = 10;
     */
    recordId: string;
    /**
     * Version of the calendar used: "cal-<hash>", "name@version" of a bundle,
     * or "name@version+cal-<hash>" with extra holidays (see Calendar).
     *
     * @generated from field: string calendar_version = 11;
     */
    calendarVersion: string;
    /**
     * Version of duetime's arithmetic rules that produced the answer.
     *
     * @generated from field: string rules_version = 12;
     */
    rulesVersion: string;
    /**
     * Version of the IANA time zone database used.
     *
     * @generated from field: string tzdata_version = 13;
     */
    tzdataVersion: string;
    /**
     * Warnings in words. Empty: none.
     *
     * @generated from field: repeated string warnings = 14;
     */
    warnings: string[];
    /**
     * Only with include_last_run: the opening of the open run holding the
     * instant (the start of current_interval), or when closed of the last run
     * before it (docs/semantics.md §9.1). Unset when none since 1900-01-01.
     *
     * @generated from field: google.protobuf.Timestamp last_open_time = 15;
     */
    lastOpenTime?: Timestamp | undefined;
    /**
     * Only with include_last_run: the last closing at or before the instant.
     * Unset when none since 1900-01-01, or when the open run holding the
     * instant reaches back further than 400 days.
     *
     * @generated from field: google.protobuf.Timestamp last_close_time = 16;
     */
    lastCloseTime?: Timestamp | undefined;
};
/**
 * Describes the message duetime.v1.GetOpenStatusResponse.
 * Use `create(GetOpenStatusResponseSchema)` to create a new message.
 */
export declare const GetOpenStatusResponseSchema: GenMessage<GetOpenStatusResponse>;
/**
 * DeadlineSpec is one named deadline of a stage.
 *
 * @generated from message duetime.v1.DeadlineSpec
 */
export type DeadlineSpec = Message<"duetime.v1.DeadlineSpec"> & {
    /**
     * Name of the deadline, unique within the request (required), e.g. "remind".
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * Duration text (docs/semantics.md §2), e.g. "2bd", "30d", "4bh",
     * "P1M@following" (docs/semantics.md §15) (required).
     *
     * @generated from field: string duration = 2;
     */
    duration: string;
    /**
     * Name of another deadline of the request: this one is counted from that
     * one's due time. Empty (default): from entered_time. Unknown names and
     * loops are INVALID_ARGUMENT.
     *
     * @generated from field: string after = 3;
     */
    after: string;
    /**
     * The landing rule's roll for this deadline, as in ComputeDueTimeRequest
     * (docs/semantics.md §15). Unset: none.
     *
     * @generated from field: duetime.v1.Roll roll = 4;
     */
    roll: Roll;
    /**
     * The landing time for this deadline, as in ComputeDueTimeRequest
     * (docs/semantics.md §15). Empty: none.
     *
     * @generated from field: string landing_time = 5;
     */
    landingTime: string;
};
/**
 * Describes the message duetime.v1.DeadlineSpec.
 * Use `create(DeadlineSpecSchema)` to create a new message.
 */
export declare const DeadlineSpecSchema: GenMessage<DeadlineSpec>;
/**
 * ComputeScheduleRequest asks for the due times of a stage's deadlines.
 *
 * @generated from message duetime.v1.ComputeScheduleRequest
 */
export type ComputeScheduleRequest = Message<"duetime.v1.ComputeScheduleRequest"> & {
    /**
     * When the stage was entered (required). Resolution: 1 µs.
     *
     * @generated from field: google.protobuf.Timestamp entered_time = 1;
     */
    enteredTime?: Timestamp | undefined;
    /**
     * The calendar to count in. Unset: all defaults (docs/semantics.md §7).
     *
     * @generated from field: duetime.v1.Calendar calendar = 2;
     */
    calendar?: Calendar | undefined;
    /**
     * The deadlines (at least one, at most 100), answered in the same order.
     *
     * @generated from field: repeated duetime.v1.DeadlineSpec deadlines = 3;
     */
    deadlines: DeadlineSpec[];
    /**
     * Where positive business time ending exactly at a closing is due.
     * Default (unset): AT_CLOSE_END_OF_WINDOW.
     *
     * @generated from field: duetime.v1.AtClose at_close = 4;
     */
    atClose: AtClose;
    /**
     * True: each deadline carries its explanation steps. Default false.
     *
     * @generated from field: bool explain = 5;
     */
    explain: boolean;
    /**
     * Optional client key (at most 200 characters), as in ComputeDueTimeRequest.
     *
     * @generated from field: string idempotency_key = 6;
     */
    idempotencyKey: string;
};
/**
 * Describes the message duetime.v1.ComputeScheduleRequest.
 * Use `create(ComputeScheduleRequestSchema)` to create a new message.
 */
export declare const ComputeScheduleRequestSchema: GenMessage<ComputeScheduleRequest>;
/**
 * ScheduledDeadline is one deadline of a schedule with its due time.
 *
 * @generated from message duetime.v1.ScheduledDeadline
 */
export type ScheduledDeadline = Message<"duetime.v1.ScheduledDeadline"> & {
    /**
     * The deadline's name, as requested.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * The due instant (UTC).
     *
     * @generated from field: google.protobuf.Timestamp due_time = 2;
     */
    dueTime?: Timestamp | undefined;
    /**
     * The due instant as RFC 3339 text with the calendar zone's offset.
     *
     * @generated from field: string due_local = 3;
     */
    dueLocal: string;
    /**
     * The instant the duration was counted from: entered_time, or the due time
     * of the deadline named in after.
     *
     * @generated from field: google.protobuf.Timestamp from_time = 4;
     */
    fromTime?: Timestamp | undefined;
    /**
     * The deadline it is chained after; empty when counted from entered_time.
     *
     * @generated from field: string after = 5;
     */
    after: string;
    /**
     * The steps that lead to the due time; empty unless explain was true.
     *
     * @generated from field: repeated duetime.v1.ExplanationStep explanation = 6;
     */
    explanation: ExplanationStep[];
};
/**
 * Describes the message duetime.v1.ScheduledDeadline.
 * Use `create(ScheduledDeadlineSchema)` to create a new message.
 */
export declare const ScheduledDeadlineSchema: GenMessage<ScheduledDeadline>;
/**
 * ComputeScheduleResponse is the recorded answer.
 *
 * @generated from message duetime.v1.ComputeScheduleResponse
 */
export type ComputeScheduleResponse = Message<"duetime.v1.ComputeScheduleResponse"> & {
    /**
     * Every deadline, in the order requested.
     *
     * @generated from field: repeated duetime.v1.ScheduledDeadline deadlines = 1;
     */
    deadlines: ScheduledDeadline[];
    /**
     * Name of the earliest deadline (the first listed among equals).
     *
     * @generated from field: string next_due = 2;
     */
    nextDue: string;
    /**
     * Due instant of the deadline named by next_due.
     *
     * @generated from field: google.protobuf.Timestamp next_due_time = 3;
     */
    nextDueTime?: Timestamp | undefined;
    /**
     * The IANA time zone the answer was computed in.
     *
     * @generated from field: string time_zone = 4;
     */
    timeZone: string;
    /**
     * Id of the ledger record holding this answer.
     *
     * @generated from field: string record_id = 5;
     */
    recordId: string;
    /**
     * Version of the calendar used: "cal-<hash>", "name@version" of a bundle,
     * or "name@version+cal-<hash>" with extra holidays (see Calendar).
     *
     * @generated from field: string calendar_version = 6;
     */
    calendarVersion: string;
    /**
     * Version of duetime's arithmetic rules that produced the answer.
     *
     * @generated from field: string rules_version = 7;
     */
    rulesVersion: string;
    /**
     * Version of the IANA time zone database used.
     *
     * @generated from field: string tzdata_version = 8;
     */
    tzdataVersion: string;
    /**
     * Warnings in words, each once. Empty: none.
     *
     * @generated from field: repeated string warnings = 9;
     */
    warnings: string[];
};
/**
 * Describes the message duetime.v1.ComputeScheduleResponse.
 * Use `create(ComputeScheduleResponseSchema)` to create a new message.
 */
export declare const ComputeScheduleResponseSchema: GenMessage<ComputeScheduleResponse>;
/**
 * GetRecordRequest names one record.
 *
 * @generated from message duetime.v1.GetRecordRequest
 */
export type GetRecordRequest = Message<"duetime.v1.GetRecordRequest"> & {
    /**
     * The record id returned by a computing call.
     *
     * @generated from field: string record_id = 1;
     */
    recordId: string;
};
/**
 * Describes the message duetime.v1.GetRecordRequest.
 * Use `create(GetRecordRequestSchema)` to create a new message.
 */
export declare const GetRecordRequestSchema: GenMessage<GetRecordRequest>;
/**
 * GetRecordResponse carries the record.
 *
 * @generated from message duetime.v1.GetRecordResponse
 */
export type GetRecordResponse = Message<"duetime.v1.GetRecordResponse"> & {
    /**
     * The stored record.
     *
     * @generated from field: duetime.v1.Record record = 1;
     */
    record?: Record | undefined;
};
/**
 * Describes the message duetime.v1.GetRecordResponse.
 * Use `create(GetRecordResponseSchema)` to create a new message.
 */
export declare const GetRecordResponseSchema: GenMessage<GetRecordResponse>;
/**
 * Record is one ledger row: a computing call and its answer.
 *
 * @generated from message duetime.v1.Record
 */
export type Record = Message<"duetime.v1.Record"> & {
    /**
     * Unique id of the record.
     *
     * @generated from field: string record_id = 1;
     */
    recordId: string;
    /**
     * Full RPC method that produced it, e.g.
     * "/duetime.v1.DueTimeService/ComputeDueTime".
     *
     * @generated from field: string method = 2;
     */
    method: string;
    /**
     * When the server received the call (server clock, UTC).
     *
     * @generated from field: google.protobuf.Timestamp receive_time = 3;
     */
    receiveTime?: Timestamp | undefined;
    /**
     * The idempotency key of the call; empty when none was given.
     *
     * @generated from field: string idempotency_key = 4;
     */
    idempotencyKey: string;
    /**
     * Calendar version used by the answer (see Calendar), e.g.
     * "hr-zagreb@f45226394a32": the bundle version names exactly which holidays
     * were in force.
     *
     * @generated from field: string calendar_version = 5;
     */
    calendarVersion: string;
    /**
     * Rules version used by the answer.
     *
     * @generated from field: string rules_version = 6;
     */
    rulesVersion: string;
    /**
     * IANA time zone database version used by the answer.
     *
     * @generated from field: string tzdata_version = 7;
     */
    tzdataVersion: string;
    /**
     * The request as received (e.g. a ComputeDueTimeRequest).
     *
     * @generated from field: google.protobuf.Any request = 8;
     */
    request?: Any | undefined;
    /**
     * The answer as returned (e.g. a ComputeDueTimeResponse).
     *
     * @generated from field: google.protobuf.Any response = 9;
     */
    response?: Any | undefined;
    /**
     * Hex SHA-256 of the record's canonical content, for integrity checks.
     *
     * @generated from field: string content_sha256 = 10;
     */
    contentSha256: string;
    /**
     * The caller's namespace (the x-duetime-namespace metadata of the call)
     * scoping idempotency_key; empty for the default namespace.
     *
     * @generated from field: string namespace = 11;
     */
    namespace: string;
};
/**
 * Describes the message duetime.v1.Record.
 * Use `create(RecordSchema)` to create a new message.
 */
export declare const RecordSchema: GenMessage<Record>;
/**
 * ListRecordsRequest asks for one page of recorded answers.
 *
 * @generated from message duetime.v1.ListRecordsRequest
 */
export type ListRecordsRequest = Message<"duetime.v1.ListRecordsRequest"> & {
    /**
     * Only records received at or after this instant. Unset: no lower bound.
     *
     * @generated from field: google.protobuf.Timestamp start_time = 1;
     */
    startTime?: Timestamp | undefined;
    /**
     * Only records received before this instant; not earlier than start_time.
     * Unset: no upper bound.
     *
     * @generated from field: google.protobuf.Timestamp end_time = 2;
     */
    endTime?: Timestamp | undefined;
    /**
     * Only records whose idempotency_key starts with this text. Empty: every
     * record, those without a key included.
     *
     * @generated from field: string key_prefix = 3;
     */
    keyPrefix: string;
    /**
     * Only records of this namespace ("" is the default namespace). Unset:
     * records of every namespace (a token bound to namespaces: the call's
     * namespace; one it is not bound to is PERMISSION_DENIED).
     *
     * @generated from field: optional string namespace = 4;
     */
    namespace?: string | undefined;
    /**
     * Most records in the page: 0 means 100, more than 1000 means 1000;
     * negative is INVALID_ARGUMENT. A page may hold fewer (it is also kept
     * under about 3 MB); only the last page has an empty next_page_token.
     *
     * @generated from field: int32 page_size = 5;
     */
    pageSize: number;
    /**
     * The next_page_token of the previous page, sent with the same filters
     * (page_size may change); empty for the first page. Any other value is
     * INVALID_ARGUMENT on "page_token".
     *
     * @generated from field: string page_token = 6;
     */
    pageToken: string;
};
/**
 * Describes the message duetime.v1.ListRecordsRequest.
 * Use `create(ListRecordsRequestSchema)` to create a new message.
 */
export declare const ListRecordsRequestSchema: GenMessage<ListRecordsRequest>;
/**
 * ListRecordsResponse is one page of records.
 *
 * @generated from message duetime.v1.ListRecordsResponse
 */
export type ListRecordsResponse = Message<"duetime.v1.ListRecordsResponse"> & {
    /**
     * The records of this page, in listing order.
     *
     * @generated from field: repeated duetime.v1.Record records = 1;
     */
    records: Record[];
    /**
     * Token of the next page; empty after the last page.
     *
     * @generated from field: string next_page_token = 2;
     */
    nextPageToken: string;
};
/**
 * Describes the message duetime.v1.ListRecordsResponse.
 * Use `create(ListRecordsResponseSchema)` to create a new message.
 */
export declare const ListRecordsResponseSchema: GenMessage<ListRecordsResponse>;
/**
 * AnalyzeImpactRequest says which change to analyze: a new calendar bundle
 * version, the server's tz database, or both.
 *
 * @generated from message duetime.v1.AnalyzeImpactRequest
 */
export type AnalyzeImpactRequest = Message<"duetime.v1.AnalyzeImpactRequest"> & {
    /**
     * The new bundle version, "name@version" (or "name": its newest version).
     * Records whose calendar_version names an older version of that bundle
     * ("name@old" or "name@old+cal-…") are replayed with the bundle pinned to
     * this version (their extra inline holidays kept). Empty: no calendar
     * change (tzdata must then be true). Unknown: INVALID_ARGUMENT on
     * "calendar".
     *
     * @generated from field: string calendar = 1;
     */
    calendar: string;
    /**
     * True: also replay the records computed with another tz database version
     * than the server's, each in its own calendar version.
     *
     * @generated from field: bool tzdata = 2;
     */
    tzdata: boolean;
    /**
     * Most records to consider (replayed or listed as not replayed): 0 means
     * 1000; at most 1000. `truncated` says whether more were left.
     *
     * @generated from field: int32 limit = 3;
     */
    limit: number;
    /**
     * Only records received at or after this instant. Unset: no lower bound.
     *
     * @generated from field: google.protobuf.Timestamp start_time = 4;
     */
    startTime?: Timestamp | undefined;
    /**
     * Only records received before this instant. Unset: no upper bound.
     *
     * @generated from field: google.protobuf.Timestamp end_time = 5;
     */
    endTime?: Timestamp | undefined;
    /**
     * Only records of this namespace. Unset: every namespace (a token bound to
     * namespaces: the call's namespace; one it is not bound to is
     * PERMISSION_DENIED).
     *
     * @generated from field: optional string namespace = 6;
     */
    namespace?: string | undefined;
};
/**
 * Describes the message duetime.v1.AnalyzeImpactRequest.
 * Use `create(AnalyzeImpactRequestSchema)` to create a new message.
 */
export declare const AnalyzeImpactRequestSchema: GenMessage<AnalyzeImpactRequest>;
/**
 * AnalyzeImpactResponse lists what would move; nothing was changed.
 *
 * @generated from message duetime.v1.AnalyzeImpactResponse
 */
export type AnalyzeImpactResponse = Message<"duetime.v1.AnalyzeImpactResponse"> & {
    /**
     * The bundle version replayed under, "name@version"; empty without one.
     *
     * @generated from field: string calendar_version = 1;
     */
    calendarVersion: string;
    /**
     * The server's tz database version, the one replays use.
     *
     * @generated from field: string tzdata_version = 2;
     */
    tzdataVersion: string;
    /**
     * Records read from the ledger (in the time range and namespace).
     *
     * @generated from field: int64 records_examined = 3;
     */
    recordsExamined: bigint;
    /**
     * Records replayed (each at most once).
     *
     * @generated from field: int64 records_replayed = 4;
     */
    recordsReplayed: bigint;
    /**
     * Every replayed record whose answer would change, in listing order.
     *
     * @generated from field: repeated duetime.v1.ImpactedRecord changes = 5;
     */
    changes: ImpactedRecord[];
    /**
     * Records the change concerns that were not replayed, with the reason.
     *
     * @generated from field: repeated duetime.v1.SkippedRecord not_replayed = 6;
     */
    notReplayed: SkippedRecord[];
    /**
     * True when more records concerned by the change were left unconsidered
     * because of `limit`; narrow the time range or raise the limit.
     *
     * @generated from field: bool truncated = 7;
     */
    truncated: boolean;
};
/**
 * Describes the message duetime.v1.AnalyzeImpactResponse.
 * Use `create(AnalyzeImpactResponseSchema)` to create a new message.
 */
export declare const AnalyzeImpactResponseSchema: GenMessage<AnalyzeImpactResponse>;
/**
 * ImpactedRecord is one recorded answer that would change.
 *
 * @generated from message duetime.v1.ImpactedRecord
 */
export type ImpactedRecord = Message<"duetime.v1.ImpactedRecord"> & {
    /**
     * The record, unchanged in the ledger.
     *
     * @generated from field: string record_id = 1;
     */
    recordId: string;
    /**
     * Its full RPC method, e.g. "/duetime.v1.DueTimeService/ComputeDueTime".
     *
     * @generated from field: string method = 2;
     */
    method: string;
    /**
     * Its idempotency key; empty when none.
     *
     * @generated from field: string idempotency_key = 3;
     */
    idempotencyKey: string;
    /**
     * Its namespace; empty for the default one.
     *
     * @generated from field: string namespace = 4;
     */
    namespace: string;
    /**
     * The calendar version the record was computed in.
     *
     * @generated from field: string old_calendar_version = 5;
     */
    oldCalendarVersion: string;
    /**
     * The calendar version of the replay.
     *
     * @generated from field: string new_calendar_version = 6;
     */
    newCalendarVersion: string;
    /**
     * The tz database version the record was computed with.
     *
     * @generated from field: string old_tzdata_version = 7;
     */
    oldTzdataVersion: string;
    /**
     * Every due time that would move (unchanged ones are left out).
     *
     * @generated from field: repeated duetime.v1.DueTimeChange due_times = 8;
     */
    dueTimes: DueTimeChange[];
    /**
     * Set when the replay fails (e.g. "OUT_OF_RANGE: calendar.bundle: …"):
     * the answer could not be given any more; due_times is then empty.
     *
     * @generated from field: string error = 9;
     */
    error: string;
    /**
     * For an answer without a due time (CountBusinessDays, ListOpenPeriods,
     * GetOpenStatus, ComputeBusinessTime): every part of it that would change,
     * e.g. "businessDays" 22 → 21 (docs/semantics.md §12).
     *
     * @generated from field: repeated duetime.v1.AnswerChange answer_changes = 10;
     */
    answerChanges: AnswerChange[];
};
/**
 * Describes the message duetime.v1.ImpactedRecord.
 * Use `create(ImpactedRecordSchema)` to create a new message.
 */
export declare const ImpactedRecordSchema: GenMessage<ImpactedRecord>;
/**
 * AnswerChange is one part of a recorded answer, other than a due time, that
 * would change.
 *
 * @generated from message duetime.v1.AnswerChange
 */
export type AnswerChange = Message<"duetime.v1.AnswerChange"> & {
    /**
     * The part, by its JSON field name: "businessDays", "businessTime",
     * "open", "nextOpenTime", "periods", "periods[2]" ….
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * The recorded value in words ("22", "8h", "2026-12-28T09:00:00+01:00",
     * "[2026-12-28T09:00:00+01:00, 2026-12-28T17:00:00+01:00)"; "none" when
     * it had none).
     *
     * @generated from field: string old_value = 2;
     */
    oldValue: string;
    /**
     * The replay's value, written the same way.
     *
     * @generated from field: string new_value = 3;
     */
    newValue: string;
    /**
     * Why, in words, as DueTimeChange.reasons says it, for the dates the
     * answer covers.
     *
     * @generated from field: repeated string reasons = 4;
     */
    reasons: string[];
};
/**
 * Describes the message duetime.v1.AnswerChange.
 * Use `create(AnswerChangeSchema)` to create a new message.
 */
export declare const AnswerChangeSchema: GenMessage<AnswerChange>;
/**
 * DueTimeChange is one due time that would move.
 *
 * @generated from message duetime.v1.DueTimeChange
 */
export type DueTimeChange = Message<"duetime.v1.DueTimeChange"> & {
    /**
     * What moves: "due" for ComputeDueTime, the deadline's name for
     * ComputeSchedule.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * The recorded due instant.
     *
     * @generated from field: google.protobuf.Timestamp old_due_time = 2;
     */
    oldDueTime?: Timestamp | undefined;
    /**
     * The due instant of the replay.
     *
     * @generated from field: google.protobuf.Timestamp new_due_time = 3;
     */
    newDueTime?: Timestamp | undefined;
    /**
     * The recorded due instant in the calendar's zone (RFC 3339).
     *
     * @generated from field: string old_due_local = 4;
     */
    oldDueLocal: string;
    /**
     * The replay's due instant in the calendar's zone (RFC 3339).
     *
     * @generated from field: string new_due_local = 5;
     */
    newDueLocal: string;
    /**
     * Why, in words: the differences between the two calendar versions on the
     * dates from the start to the later due time (e.g. "holiday 2027-05-31
     * Company day added in acme@1234abcd5678"), the tz database change, or
     * "calendar changed" when no listed difference falls in that range.
     *
     * @generated from field: repeated string reasons = 6;
     */
    reasons: string[];
};
/**
 * Describes the message duetime.v1.DueTimeChange.
 * Use `create(DueTimeChangeSchema)` to create a new message.
 */
export declare const DueTimeChangeSchema: GenMessage<DueTimeChange>;
/**
 * SkippedRecord is a record the change concerns that was not replayed.
 *
 * @generated from message duetime.v1.SkippedRecord
 */
export type SkippedRecord = Message<"duetime.v1.SkippedRecord"> & {
    /**
     * The record.
     *
     * @generated from field: string record_id = 1;
     */
    recordId: string;
    /**
     * Its full RPC method.
     *
     * @generated from field: string method = 2;
     */
    method: string;
    /**
     * Why it was not replayed, e.g. "not replayed (StartClock): a clock keeps
     * the calendar version pinned in its state".
     *
     * @generated from field: string reason = 3;
     */
    reason: string;
};
/**
 * Describes the message duetime.v1.SkippedRecord.
 * Use `create(SkippedRecordSchema)` to create a new message.
 */
export declare const SkippedRecordSchema: GenMessage<SkippedRecord>;
/**
 * ListCalendarsRequest asks for every loaded bundle. It has no fields.
 *
 * @generated from message duetime.v1.ListCalendarsRequest
 */
export type ListCalendarsRequest = Message<"duetime.v1.ListCalendarsRequest"> & {};
/**
 * Describes the message duetime.v1.ListCalendarsRequest.
 * Use `create(ListCalendarsRequestSchema)` to create a new message.
 */
export declare const ListCalendarsRequestSchema: GenMessage<ListCalendarsRequest>;
/**
 * ListCalendarsResponse lists the loaded bundles.
 *
 * @generated from message duetime.v1.ListCalendarsResponse
 */
export type ListCalendarsResponse = Message<"duetime.v1.ListCalendarsResponse"> & {
    /**
     * Every bundle, by name.
     *
     * @generated from field: repeated duetime.v1.CalendarInfo calendars = 1;
     */
    calendars: CalendarInfo[];
};
/**
 * Describes the message duetime.v1.ListCalendarsResponse.
 * Use `create(ListCalendarsResponseSchema)` to create a new message.
 */
export declare const ListCalendarsResponseSchema: GenMessage<ListCalendarsResponse>;
/**
 * CalendarInfo describes one bundle. Description, time zone and years are
 * those of the newest version (in GetCalendarResponse: of the version asked
 * for).
 *
 * @generated from message duetime.v1.CalendarInfo
 */
export type CalendarInfo = Message<"duetime.v1.CalendarInfo"> & {
    /**
     * The bundle's name, e.g. "hr-zagreb".
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * What the bundle is, in words.
     *
     * @generated from field: string description = 2;
     */
    description: string;
    /**
     * The bundle's IANA time zone, e.g. "Europe/Zagreb".
     *
     * @generated from field: string time_zone = 3;
     */
    timeZone: string;
    /**
     * The newest version: the one a bare name resolves to.
     *
     * @generated from field: string newest_version = 4;
     */
    newestVersion: string;
    /**
     * Every loaded version, oldest first; each stays answerable as
     * "name@version".
     *
     * @generated from field: repeated string versions = 5;
     */
    versions: string[];
    /**
     * First year of the holiday range (inclusive); answers that depend on an
     * earlier date are OUT_OF_RANGE.
     *
     * @generated from field: int32 first_year = 6;
     */
    firstYear: number;
    /**
     * Last year of the holiday range (inclusive); answers that depend on a later
     * date are OUT_OF_RANGE.
     *
     * @generated from field: int32 last_year = 7;
     */
    lastYear: number;
};
/**
 * Describes the message duetime.v1.CalendarInfo.
 * Use `create(CalendarInfoSchema)` to create a new message.
 */
export declare const CalendarInfoSchema: GenMessage<CalendarInfo>;
/**
 * GetCalendarRequest names one bundle version.
 *
 * @generated from message duetime.v1.GetCalendarRequest
 */
export type GetCalendarRequest = Message<"duetime.v1.GetCalendarRequest"> & {
    /**
     * "name" (the newest version) or "name@version". Required.
     *
     * @generated from field: string name = 1;
     */
    name: string;
};
/**
 * Describes the message duetime.v1.GetCalendarRequest.
 * Use `create(GetCalendarRequestSchema)` to create a new message.
 */
export declare const GetCalendarRequestSchema: GenMessage<GetCalendarRequest>;
/**
 * GetCalendarResponse is one bundle version, resolved.
 *
 * @generated from message duetime.v1.GetCalendarResponse
 */
export type GetCalendarResponse = Message<"duetime.v1.GetCalendarResponse"> & {
    /**
     * The bundle; description, time zone and years of the version returned.
     *
     * @generated from field: duetime.v1.CalendarInfo info = 1;
     */
    info?: CalendarInfo | undefined;
    /**
     * The version's calendar written out in full: zone, weekend, working hours,
     * every holiday with its name, overrides, extra working days and
     * holidays_valid_until (the last day of the year range); `bundle` is empty.
     *
     * @generated from field: duetime.v1.Calendar calendar = 2;
     */
    calendar?: Calendar | undefined;
    /**
     * The version returned (the newest when `name` gave none).
     *
     * @generated from field: string version = 3;
     */
    version: string;
    /**
     * Version of the `holidays` package the holidays were resolved with when
     * the version was compiled; empty when the bundle takes none from it.
     *
     * @generated from field: string holidays_package = 4;
     */
    holidaysPackage: string;
    /**
     * ISO 3166 country code the holidays come from, e.g. "HR"; empty when none.
     *
     * @generated from field: string source_country = 5;
     */
    sourceCountry: string;
    /**
     * Subdivision code the holidays come from, e.g. "NY"; empty when none.
     *
     * @generated from field: string source_subdiv = 6;
     */
    sourceSubdiv: string;
};
/**
 * Describes the message duetime.v1.GetCalendarResponse.
 * Use `create(GetCalendarResponseSchema)` to create a new message.
 */
export declare const GetCalendarResponseSchema: GenMessage<GetCalendarResponse>;
/**
 * ListHolidaysRequest asks for a calendar's holidays between two local dates.
 *
 * @generated from message duetime.v1.ListHolidaysRequest
 */
export type ListHolidaysRequest = Message<"duetime.v1.ListHolidaysRequest"> & {
    /**
     * The calendar: a bundle (with any extra holidays) or inline. Unset: the
     * defaults (docs/semantics.md §7), which have no holidays.
     *
     * @generated from field: duetime.v1.Calendar calendar = 1;
     */
    calendar?: Calendar | undefined;
    /**
     * First local date, "YYYY-MM-DD", inclusive. Required.
     *
     * @generated from field: string start_date = 2;
     */
    startDate: string;
    /**
     * Last local date, "YYYY-MM-DD", inclusive; not before start_date and at
     * most 7320 days (20 × 366) after it. Required.
     *
     * @generated from field: string end_date = 3;
     */
    endDate: string;
};
/**
 * Describes the message duetime.v1.ListHolidaysRequest.
 * Use `create(ListHolidaysRequestSchema)` to create a new message.
 */
export declare const ListHolidaysRequestSchema: GenMessage<ListHolidaysRequest>;
/**
 * ListHolidaysResponse lists the holidays found.
 *
 * @generated from message duetime.v1.ListHolidaysResponse
 */
export type ListHolidaysResponse = Message<"duetime.v1.ListHolidaysResponse"> & {
    /**
     * The holidays from start_date to end_date, by date.
     *
     * @generated from field: repeated duetime.v1.Holiday holidays = 1;
     */
    holidays: Holiday[];
    /**
     * Version of the calendar used, as in every answer (see Calendar).
     *
     * @generated from field: string calendar_version = 2;
     */
    calendarVersion: string;
    /**
     * Warnings in words, e.g. "no holidays known for 2028: …" for an inline
     * calendar whose holidays end earlier. Empty: none.
     *
     * @generated from field: repeated string warnings = 3;
     */
    warnings: string[];
};
/**
 * Describes the message duetime.v1.ListHolidaysResponse.
 * Use `create(ListHolidaysResponseSchema)` to create a new message.
 */
export declare const ListHolidaysResponseSchema: GenMessage<ListHolidaysResponse>;
/**
 * RunningInterval is a closed span [start_time, end_time) the clock ran.
 *
 * @generated from message duetime.v1.RunningInterval
 */
export type RunningInterval = Message<"duetime.v1.RunningInterval"> & {
    /**
     * When the clock started or resumed.
     *
     * @generated from field: google.protobuf.Timestamp start_time = 1;
     */
    startTime?: Timestamp | undefined;
    /**
     * When it paused (or stopped).
     *
     * @generated from field: google.protobuf.Timestamp end_time = 2;
     */
    endTime?: Timestamp | undefined;
};
/**
 * Describes the message duetime.v1.RunningInterval.
 * Use `create(RunningIntervalSchema)` to create a new message.
 */
export declare const RunningIntervalSchema: GenMessage<RunningInterval>;
/**
 * ClockState is the whole state of an SLA clock (docs/semantics.md §11): plain data that
 * the caller stores and hands back with each event. duetime keeps nothing
 * between calls; every field is needed to compute the next state.
 *
 * @generated from message duetime.v1.ClockState
 */
export type ClockState = Message<"duetime.v1.ClockState"> & {
    /**
     * The target duration text, normalized, e.g. "8bh", "14d", "3bd".
     *
     * @generated from field: string target = 1;
     */
    target: string;
    /**
     * What the clock counts; follows the target's kind.
     *
     * @generated from field: duetime.v1.ClockMeasure measure = 2;
     */
    measure: ClockMeasure;
    /**
     * RUNNING, PAUSED or STOPPED.
     *
     * @generated from field: duetime.v1.ClockStatus status = 3;
     */
    status: ClockStatus;
    /**
     * The absolute deadline; set only while RUNNING.
     *
     * @generated from field: google.protobuf.Timestamp deadline_time = 4;
     */
    deadlineTime?: Timestamp | undefined;
    /**
     * Time left in the clock's measure; set only while PAUSED. Negative when
     * the clock was paused after its deadline (the breach stays visible).
     *
     * @generated from field: google.protobuf.Duration remaining = 5;
     */
    remaining?: Duration | undefined;
    /**
     * The clock's start: the instant it started, or of its last reset or
     * event-anchored retarget.
     *
     * @generated from field: google.protobuf.Timestamp start_time = 6;
     */
    startTime?: Timestamp | undefined;
    /**
     * The instant of the last event applied (start_time for a new clock); an
     * earlier event is FAILED_PRECONDITION.
     *
     * @generated from field: google.protobuf.Timestamp last_event_time = 7;
     */
    lastEventTime?: Timestamp | undefined;
    /**
     * When the current running interval began; set only while RUNNING.
     *
     * @generated from field: google.protobuf.Timestamp running_since_time = 8;
     */
    runningSinceTime?: Timestamp | undefined;
    /**
     * The closed running intervals since start_time, oldest first (used by a
     * retarget anchored at the start).
     *
     * @generated from field: repeated duetime.v1.RunningInterval running_intervals = 9;
     */
    runningIntervals: RunningInterval[];
    /**
     * The deadline that was missed, once an event arrived after it (or a pause
     * found it passed); never cleared. Unset: no breach seen.
     *
     * @generated from field: google.protobuf.Timestamp breach_time = 10;
     */
    breachTime?: Timestamp | undefined;
    /**
     * Set when STOPPED: true if the work was done in time.
     *
     * @generated from field: optional bool met = 11;
     */
    met?: boolean | undefined;
    /**
     * How many events have recomputed the clock since it started.
     *
     * @generated from field: int64 recomputations = 12;
     */
    recomputations: bigint;
    /**
     * The calendar the clock counts in, as given at the start, except that a
     * bundle reference is pinned to "name@version" so every later event uses
     * the same version.
     *
     * @generated from field: duetime.v1.Calendar calendar = 13;
     */
    calendar?: Calendar | undefined;
    /**
     * The version of that calendar (see Calendar); an event whose state's
     * calendar resolves to another version is INVALID_ARGUMENT on
     * "state.calendar".
     *
     * @generated from field: string calendar_version = 14;
     */
    calendarVersion: string;
};
/**
 * Describes the message duetime.v1.ClockState.
 * Use `create(ClockStateSchema)` to create a new message.
 */
export declare const ClockStateSchema: GenMessage<ClockState>;
/**
 * ClockEvent is one event applied to a clock.
 *
 * @generated from message duetime.v1.ClockEvent
 */
export type ClockEvent = Message<"duetime.v1.ClockEvent"> & {
    /**
     * What happens. Required.
     *
     * @generated from field: duetime.v1.ClockEventType type = 1;
     */
    type: ClockEventType;
    /**
     * When it happened (required); not earlier than the state's
     * last_event_time. Resolution: 1 µs.
     *
     * @generated from field: google.protobuf.Timestamp time = 2;
     */
    time?: Timestamp | undefined;
    /**
     * The new target, for RETARGET only (required there, e.g. "48bh"); must be
     * empty for every other event.
     *
     * @generated from field: string target = 3;
     */
    target: string;
    /**
     * Where a RETARGET counts from. Default (unset): from the event. Must be
     * unset for every other event.
     *
     * @generated from field: duetime.v1.RetargetAnchor anchor = 4;
     */
    anchor: RetargetAnchor;
};
/**
 * Describes the message duetime.v1.ClockEvent.
 * Use `create(ClockEventSchema)` to create a new message.
 */
export declare const ClockEventSchema: GenMessage<ClockEvent>;
/**
 * StartClockRequest starts an SLA clock.
 *
 * @generated from message duetime.v1.StartClockRequest
 */
export type StartClockRequest = Message<"duetime.v1.StartClockRequest"> & {
    /**
     * The target duration text (docs/semantics.md §2): elapsed ("14d", "48h", "3s"),
     * business days ("3bd") or business time ("8bh", "0.05bm"). Required.
     *
     * @generated from field: string target = 1;
     */
    target: string;
    /**
     * The calendar to count in. Unset: all defaults (docs/semantics.md §7). A bundle named
     * without a version is pinned to its newest version in the state.
     *
     * @generated from field: duetime.v1.Calendar calendar = 2;
     */
    calendar?: Calendar | undefined;
    /**
     * When the clock starts (required). Resolution: 1 µs.
     *
     * @generated from field: google.protobuf.Timestamp start_time = 3;
     */
    startTime?: Timestamp | undefined;
    /**
     * Optional client key (at most 200 characters), as in ComputeDueTimeRequest.
     *
     * @generated from field: string idempotency_key = 4;
     */
    idempotencyKey: string;
    /**
     * Warning thresholds of the clock (docs/semantics.md §17), at most 8:
     * a share of the target consumed ("75%") or an amount left in the
     * clock's measure ("30bm"). Given, the answer has `next_action`.
     *
     * @generated from field: repeated string warning_thresholds = 5;
     */
    warningThresholds: string[];
};
/**
 * Describes the message duetime.v1.StartClockRequest.
 * Use `create(StartClockRequestSchema)` to create a new message.
 */
export declare const StartClockRequestSchema: GenMessage<StartClockRequest>;
/**
 * StartClockResponse is the recorded answer.
 *
 * @generated from message duetime.v1.StartClockResponse
 */
export type StartClockResponse = Message<"duetime.v1.StartClockResponse"> & {
    /**
     * The new clock: RUNNING, with its deadline.
     *
     * @generated from field: duetime.v1.ClockState state = 1;
     */
    state?: ClockState | undefined;
    /**
     * The IANA time zone of the clock's calendar.
     *
     * @generated from field: string time_zone = 2;
     */
    timeZone: string;
    /**
     * Id of the ledger record holding this answer.
     *
     * @generated from field: string record_id = 3;
     */
    recordId: string;
    /**
     * Version of the calendar used (see Calendar); also state.calendar_version.
     *
     * @generated from field: string calendar_version = 4;
     */
    calendarVersion: string;
    /**
     * Version of duetime's arithmetic rules that produced the answer.
     *
     * @generated from field: string rules_version = 5;
     */
    rulesVersion: string;
    /**
     * Version of the IANA time zone database used.
     *
     * @generated from field: string tzdata_version = 6;
     */
    tzdataVersion: string;
    /**
     * Warnings in words, e.g. "no holidays known for 2028: …". Empty: none.
     *
     * @generated from field: repeated string warnings = 7;
     */
    warnings: string[];
    /**
     * Set when the request gives warning_thresholds: the earliest instant
     * after the start at which a threshold or the deadline falls, with what
     * falls then (metric empty).
     *
     * @generated from field: duetime.v1.SlaNextAction next_action = 8;
     */
    nextAction?: SlaNextAction | undefined;
    /**
     * When the request gives warning_thresholds: what falls at start_time
     * itself (docs/semantics.md §17), e.g. a warning whose amount left is not
     * less than the target; a workflow handles it at once, as it handles a
     * fired next action. Empty: nothing.
     *
     * @generated from field: repeated duetime.v1.SlaDue fell_at_event = 9;
     */
    fellAtEvent: SlaDue[];
};
/**
 * Describes the message duetime.v1.StartClockResponse.
 * Use `create(StartClockResponseSchema)` to create a new message.
 */
export declare const StartClockResponseSchema: GenMessage<StartClockResponse>;
/**
 * ApplyClockEventRequest applies one event to a clock's state.
 *
 * @generated from message duetime.v1.ApplyClockEventRequest
 */
export type ApplyClockEventRequest = Message<"duetime.v1.ApplyClockEventRequest"> & {
    /**
     * The state as duetime last returned it (StartClock, ApplyClockEvent or
     * EvaluateSla). Required.
     *
     * @generated from field: duetime.v1.ClockState state = 1;
     */
    state?: ClockState | undefined;
    /**
     * The event. Required.
     *
     * @generated from field: duetime.v1.ClockEvent event = 2;
     */
    event?: ClockEvent | undefined;
    /**
     * Optional client key (at most 200 characters), as in ComputeDueTimeRequest;
     * a workflow uses its id and the event's sequence number.
     *
     * @generated from field: string idempotency_key = 3;
     */
    idempotencyKey: string;
    /**
     * Warning thresholds of the clock, as in StartClockRequest. Given, the
     * answer has `next_action`: what falls strictly after the event's instant,
     * and `fell_at_event`: what falls at it (docs/semantics.md §17; a share
     * counts from the target at the state's start_time).
     *
     * @generated from field: repeated string warning_thresholds = 4;
     */
    warningThresholds: string[];
};
/**
 * Describes the message duetime.v1.ApplyClockEventRequest.
 * Use `create(ApplyClockEventRequestSchema)` to create a new message.
 */
export declare const ApplyClockEventRequestSchema: GenMessage<ApplyClockEventRequest>;
/**
 * ApplyClockEventResponse is the recorded answer.
 *
 * @generated from message duetime.v1.ApplyClockEventResponse
 */
export type ApplyClockEventResponse = Message<"duetime.v1.ApplyClockEventResponse"> & {
    /**
     * The state after the event.
     *
     * @generated from field: duetime.v1.ClockState state = 1;
     */
    state?: ClockState | undefined;
    /**
     * The IANA time zone of the clock's calendar.
     *
     * @generated from field: string time_zone = 2;
     */
    timeZone: string;
    /**
     * Id of the ledger record holding this answer.
     *
     * @generated from field: string record_id = 3;
     */
    recordId: string;
    /**
     * Version of the calendar used (see Calendar); also state.calendar_version.
     *
     * @generated from field: string calendar_version = 4;
     */
    calendarVersion: string;
    /**
     * Version of duetime's arithmetic rules that produced the answer.
     *
     * @generated from field: string rules_version = 5;
     */
    rulesVersion: string;
    /**
     * Version of the IANA time zone database used.
     *
     * @generated from field: string tzdata_version = 6;
     */
    tzdataVersion: string;
    /**
     * Warnings in words. Empty: none.
     *
     * @generated from field: repeated string warnings = 7;
     */
    warnings: string[];
    /**
     * Set when the request gives warning_thresholds and the clock runs.
     *
     * @generated from field: duetime.v1.SlaNextAction next_action = 8;
     */
    nextAction?: SlaNextAction | undefined;
    /**
     * When the request gives warning_thresholds: what falls at the event's
     * instant itself (docs/semantics.md §17): a warning whose instant is not
     * after a start, reset, retarget or resume falls then, unless it fell
     * before a pause; a BREACH when a retarget anchored at the start leaves
     * the deadline at or before the event. In the order they fall, the
     * breach last (metric empty). A workflow handles these at once, as it
     * handles a fired next action: next_action never repeats them. Empty:
     * nothing.
     *
     * @generated from field: repeated duetime.v1.SlaDue fell_at_event = 9;
     */
    fellAtEvent: SlaDue[];
};
/**
 * Describes the message duetime.v1.ApplyClockEventResponse.
 * Use `create(ApplyClockEventResponseSchema)` to create a new message.
 */
export declare const ApplyClockEventResponseSchema: GenMessage<ApplyClockEventResponse>;
/**
 * BusinessEvent is one event of a ticket's history, named as in the policy.
 *
 * @generated from message duetime.v1.BusinessEvent
 */
export type BusinessEvent = Message<"duetime.v1.BusinessEvent"> & {
    /**
     * The event: "start" (always first) or one of the policy's events, e.g.
     * "customer_reply", "tier_change". Required.
     *
     * @generated from field: string type = 1;
     */
    type: string;
    /**
     * When it happened (required); events come in time order. Resolution: 1 µs.
     *
     * @generated from field: google.protobuf.Timestamp time = 2;
     */
    time?: Timestamp | undefined;
    /**
     * Details, e.g. {"tier": "priority"} for a tier change (or on "start", to
     * start in another tier than the policy's initial one).
     *
     * @generated from field: map<string, string> attributes = 3;
     */
    attributes: {
        [key: string]: string;
    };
};
/**
 * Describes the message duetime.v1.BusinessEvent.
 * Use `create(BusinessEventSchema)` to create a new message.
 */
export declare const BusinessEventSchema: GenMessage<BusinessEvent>;
/**
 * EvaluateSlaRequest replays a ticket's history under a policy.
 *
 * @generated from message duetime.v1.EvaluateSlaRequest
 */
export type EvaluateSlaRequest = Message<"duetime.v1.EvaluateSlaRequest"> & {
    /**
     * The policy: "name" (its newest version, e.g. "support-contract") or
     * "name@version". Unknown: INVALID_ARGUMENT on "policy". Required.
     *
     * @generated from field: string policy = 1;
     */
    policy: string;
    /**
     * The history, oldest first, beginning with a "start" event; at most
     * 1000 events (INVALID_ARGUMENT on "events"), and under a policy with
     * metrics at most what its weight allows (docs/semantics.md §17).
     *
     * @generated from field: repeated duetime.v1.BusinessEvent events = 2;
     */
    events: BusinessEvent[];
    /**
     * Optional client key (at most 200 characters), as in ComputeDueTimeRequest.
     *
     * @generated from field: string idempotency_key = 3;
     */
    idempotencyKey: string;
    /**
     * Evaluate as of this instant (docs/semantics.md §17): warnings and
     * breaches that fell up to it appear in each metric's timeline, and the
     * next action is the first thing due after it. Unset: the last event's
     * instant. Earlier than the last event: INVALID_ARGUMENT on "as_of_time".
     * Set, it fills `metrics`, `next_action` and `as_of_time` in the answer
     * even for a one-clock policy; a "tick" is an evaluation as of now.
     *
     * @generated from field: google.protobuf.Timestamp as_of_time = 4;
     */
    asOfTime?: Timestamp | undefined;
};
/**
 * Describes the message duetime.v1.EvaluateSlaRequest.
 * Use `create(EvaluateSlaRequestSchema)` to create a new message.
 */
export declare const EvaluateSlaRequestSchema: GenMessage<EvaluateSlaRequest>;
/**
 * TimelineEntry is one step of an evaluation: an event and what it did.
 *
 * @generated from message duetime.v1.TimelineEntry
 */
export type TimelineEntry = Message<"duetime.v1.TimelineEntry"> & {
    /**
     * The business event, e.g. "customer_reply".
     *
     * @generated from field: string event = 1;
     */
    event: string;
    /**
     * When it happened.
     *
     * @generated from field: google.protobuf.Timestamp time = 2;
     */
    time?: Timestamp | undefined;
    /**
     * What it did to the clock: "START", "PAUSE", "RESUME", "RESET",
     * "RETARGET", "STOP", or "NONE" (the policy maps the event to nothing in
     * the clock's status).
     *
     * @generated from field: string action = 3;
     */
    action: string;
    /**
     * The tier in force after the event.
     *
     * @generated from field: string tier = 4;
     */
    tier: string;
    /**
     * The clock's status after the event.
     *
     * @generated from field: duetime.v1.ClockStatus status = 5;
     */
    status: ClockStatus;
    /**
     * The deadline before the event; unset when the clock was not running.
     *
     * @generated from field: google.protobuf.Timestamp old_deadline_time = 6;
     */
    oldDeadlineTime?: Timestamp | undefined;
    /**
     * The deadline after the event; unset when the clock is not running.
     *
     * @generated from field: google.protobuf.Timestamp new_deadline_time = 7;
     */
    newDeadlineTime?: Timestamp | undefined;
    /**
     * Time left in the clock's measure after the event; set only while paused.
     *
     * @generated from field: google.protobuf.Duration remaining = 8;
     */
    remaining?: Duration | undefined;
    /**
     * The recomputation in words, e.g. "customer_reply: clock reset to 14d; due
     * 2026-12-28T10:00:00+01:00 (was 2026-12-25T10:00:00+01:00)".
     *
     * @generated from field: string reason = 9;
     */
    reason: string;
    /**
     * In a metric's timeline (SlaMetric), an entry whose action is "WARNING"
     * has the warning's threshold as written in the policy, e.g. "75%" or
     * "30bm"; its event is empty, as a "BREACH" entry's. Empty otherwise.
     *
     * @generated from field: string threshold = 10;
     */
    threshold: string;
};
/**
 * Describes the message duetime.v1.TimelineEntry.
 * Use `create(TimelineEntrySchema)` to create a new message.
 */
export declare const TimelineEntrySchema: GenMessage<TimelineEntry>;
/**
 * EvaluateSlaResponse is the recorded answer.
 *
 * @generated from message duetime.v1.EvaluateSlaResponse
 */
export type EvaluateSlaResponse = Message<"duetime.v1.EvaluateSlaResponse"> & {
    /**
     * The clock after the last event; its calendar is the pinned calendar of
     * the tier in force, so ApplyClockEvent can continue it.
     *
     * @generated from field: duetime.v1.ClockState state = 1;
     */
    state?: ClockState | undefined;
    /**
     * The tier in force after the last event.
     *
     * @generated from field: string tier = 2;
     */
    tier: string;
    /**
     * The policy version evaluated: "name@version".
     *
     * @generated from field: string policy_version = 3;
     */
    policyVersion: string;
    /**
     * Every event with what it did, in order; the first is "start".
     *
     * @generated from field: repeated duetime.v1.TimelineEntry timeline = 4;
     */
    timeline: TimelineEntry[];
    /**
     * The IANA time zone of the final tier's calendar.
     *
     * @generated from field: string time_zone = 5;
     */
    timeZone: string;
    /**
     * Id of the ledger record holding this answer.
     *
     * @generated from field: string record_id = 6;
     */
    recordId: string;
    /**
     * Every calendar version the policy's tiers pin, distinct, sorted, joined
     * by "," (usually one, e.g. "support-desk-example@259c33f17398").
     *
     * @generated from field: string calendar_version = 7;
     */
    calendarVersion: string;
    /**
     * Version of duetime's arithmetic rules that produced the answer.
     *
     * @generated from field: string rules_version = 8;
     */
    rulesVersion: string;
    /**
     * Version of the IANA time zone database used.
     *
     * @generated from field: string tzdata_version = 9;
     */
    tzdataVersion: string;
    /**
     * Warnings in words. Empty: none.
     *
     * @generated from field: repeated string warnings = 10;
     */
    warnings: string[];
    /**
     * Every metric of the policy, in the policy's order (docs/semantics.md
     * §17). Filled when the policy has metrics or as_of_time is given (a
     * one-clock policy is then one metric with an empty name); otherwise
     * empty. For a policy with metrics, `state` is unset and `timeline` empty:
     * each metric carries its own.
     *
     * @generated from field: repeated duetime.v1.SlaMetric metrics = 11;
     */
    metrics: SlaMetric[];
    /**
     * The one timer a workflow arms: the earliest instant after as_of_time at
     * which a running metric reaches a warning or its deadline, with what
     * falls then. Unset when nothing is due (no metric runs), or when
     * `metrics` is empty.
     *
     * @generated from field: duetime.v1.SlaNextAction next_action = 12;
     */
    nextAction?: SlaNextAction | undefined;
    /**
     * The instant evaluated as of: as_of_time of the request, or the last
     * event's. Set when `metrics` is.
     *
     * @generated from field: google.protobuf.Timestamp as_of_time = 13;
     */
    asOfTime?: Timestamp | undefined;
};
/**
 * Describes the message duetime.v1.EvaluateSlaResponse.
 * Use `create(EvaluateSlaResponseSchema)` to create a new message.
 */
export declare const EvaluateSlaResponseSchema: GenMessage<EvaluateSlaResponse>;
/**
 * SlaMetric is one metric of a policy, evaluated.
 *
 * @generated from message duetime.v1.SlaMetric
 */
export type SlaMetric = Message<"duetime.v1.SlaMetric"> & {
    /**
     * The metric's name, e.g. "first_response" (empty: a one-clock policy).
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * Its status as of the evaluation.
     *
     * @generated from field: duetime.v1.SlaMetricStatus status = 2;
     */
    status: SlaMetricStatus;
    /**
     * How many times it started (a START from STOPPED is a new cycle).
     *
     * @generated from field: int32 cycles = 3;
     */
    cycles: number;
    /**
     * The tier whose target it counts (empty before its first start).
     *
     * @generated from field: string tier = 4;
     */
    tier: string;
    /**
     * Its clock (unset before its first start); the calendar is the pinned
     * calendar of its tier, so ApplyClockEvent can continue it.
     *
     * @generated from field: duetime.v1.ClockState state = 5;
     */
    state?: ClockState | undefined;
    /**
     * Its events with what each did, and WARNING and BREACH entries at the
     * instants they fell (at or before as_of_time), in time order; at one
     * instant, events come before what falls. An entry's status is
     * CLOCK_STATUS_UNSPECIFIED while the metric has not started.
     *
     * @generated from field: repeated duetime.v1.TimelineEntry timeline = 6;
     */
    timeline: TimelineEntry[];
    /**
     * Set when the metric is breached (docs/semantics.md §17): the instant
     * its BREACH fell, at or before as_of_time and since its target was last
     * set (start, reset, retarget), whatever its status; a RUNNING metric
     * past its deadline has it. Unset: not breached.
     *
     * @generated from field: google.protobuf.Timestamp breach_time = 7;
     */
    breachTime?: Timestamp | undefined;
};
/**
 * Describes the message duetime.v1.SlaMetric.
 * Use `create(SlaMetricSchema)` to create a new message.
 */
export declare const SlaMetricSchema: GenMessage<SlaMetric>;
/**
 * SlaDue is one thing falling at the next action.
 *
 * @generated from message duetime.v1.SlaDue
 */
export type SlaDue = Message<"duetime.v1.SlaDue"> & {
    /**
     * The metric's name.
     *
     * @generated from field: string metric = 1;
     */
    metric: string;
    /**
     * WARNING or BREACH.
     *
     * @generated from field: duetime.v1.SlaDueKind kind = 2;
     */
    kind: SlaDueKind;
    /**
     * The warning's threshold as written ("75%", "30bm"); empty for a breach.
     *
     * @generated from field: string threshold = 3;
     */
    threshold: string;
};
/**
 * Describes the message duetime.v1.SlaDue.
 * Use `create(SlaDueSchema)` to create a new message.
 */
export declare const SlaDueSchema: GenMessage<SlaDue>;
/**
 * SlaNextAction is the next instant something falls, and everything that
 * falls then: in the policy's order of metrics, within a metric its warnings
 * in the order they fall, then its breach.
 *
 * @generated from message duetime.v1.SlaNextAction
 */
export type SlaNextAction = Message<"duetime.v1.SlaNextAction"> & {
    /**
     * When.
     *
     * @generated from field: google.protobuf.Timestamp time = 1;
     */
    time?: Timestamp | undefined;
    /**
     * What falls then.
     *
     * @generated from field: repeated duetime.v1.SlaDue due = 2;
     */
    due: SlaDue[];
};
/**
 * Describes the message duetime.v1.SlaNextAction.
 * Use `create(SlaNextActionSchema)` to create a new message.
 */
export declare const SlaNextActionSchema: GenMessage<SlaNextAction>;
/**
 * ListPoliciesRequest asks for every loaded SLA policy. It has no fields.
 *
 * @generated from message duetime.v1.ListPoliciesRequest
 */
export type ListPoliciesRequest = Message<"duetime.v1.ListPoliciesRequest"> & {};
/**
 * Describes the message duetime.v1.ListPoliciesRequest.
 * Use `create(ListPoliciesRequestSchema)` to create a new message.
 */
export declare const ListPoliciesRequestSchema: GenMessage<ListPoliciesRequest>;
/**
 * ListPoliciesResponse lists the loaded SLA policies.
 *
 * @generated from message duetime.v1.ListPoliciesResponse
 */
export type ListPoliciesResponse = Message<"duetime.v1.ListPoliciesResponse"> & {
    /**
     * Every policy, by name.
     *
     * @generated from field: repeated duetime.v1.PolicyInfo policies = 1;
     */
    policies: PolicyInfo[];
};
/**
 * Describes the message duetime.v1.ListPoliciesResponse.
 * Use `create(ListPoliciesResponseSchema)` to create a new message.
 */
export declare const ListPoliciesResponseSchema: GenMessage<ListPoliciesResponse>;
/**
 * PolicyInfo describes one SLA policy. The description is that of the newest
 * version (in GetPolicyResponse: of the version asked for).
 *
 * @generated from message duetime.v1.PolicyInfo
 */
export type PolicyInfo = Message<"duetime.v1.PolicyInfo"> & {
    /**
     * The policy's name, e.g. "support-contract".
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * What the policy promises, in words.
     *
     * @generated from field: string description = 2;
     */
    description: string;
    /**
     * The newest version: the one a bare name resolves to (in EvaluateSla too).
     *
     * @generated from field: string newest_version = 3;
     */
    newestVersion: string;
    /**
     * Every loaded version, oldest first; each stays answerable as
     * "name@version".
     *
     * @generated from field: repeated string versions = 4;
     */
    versions: string[];
};
/**
 * Describes the message duetime.v1.PolicyInfo.
 * Use `create(PolicyInfoSchema)` to create a new message.
 */
export declare const PolicyInfoSchema: GenMessage<PolicyInfo>;
/**
 * GetPolicyRequest names one SLA policy version.
 *
 * @generated from message duetime.v1.GetPolicyRequest
 */
export type GetPolicyRequest = Message<"duetime.v1.GetPolicyRequest"> & {
    /**
     * "name" (the newest version) or "name@version". Required.
     *
     * @generated from field: string name = 1;
     */
    name: string;
};
/**
 * Describes the message duetime.v1.GetPolicyRequest.
 * Use `create(GetPolicyRequestSchema)` to create a new message.
 */
export declare const GetPolicyRequestSchema: GenMessage<GetPolicyRequest>;
/**
 * PolicyTier is one tier of a policy: a target on a pinned calendar.
 *
 * @generated from message duetime.v1.PolicyTier
 */
export type PolicyTier = Message<"duetime.v1.PolicyTier"> & {
    /**
     * The tier's name, e.g. "standard".
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * The clock's target as duration text, e.g. "14d" or "48bh".
     *
     * @generated from field: string target = 2;
     */
    target: string;
    /**
     * How the clock measures it: elapsed, business-day or business time.
     *
     * @generated from field: duetime.v1.ClockMeasure measure = 3;
     */
    measure: ClockMeasure;
    /**
     * The calendar the tier counts on, pinned: "name@version".
     *
     * @generated from field: string calendar_version = 4;
     */
    calendarVersion: string;
    /**
     * The IANA time zone of that calendar.
     *
     * @generated from field: string time_zone = 5;
     */
    timeZone: string;
};
/**
 * Describes the message duetime.v1.PolicyTier.
 * Use `create(PolicyTierSchema)` to create a new message.
 */
export declare const PolicyTierSchema: GenMessage<PolicyTier>;
/**
 * PolicyEvent is one business event a policy knows and what it does to the
 * clock in each status. "start" is not listed: every history begins with it.
 *
 * @generated from message duetime.v1.PolicyEvent
 */
export type PolicyEvent = Message<"duetime.v1.PolicyEvent"> & {
    /**
     * The event's name, as sent in BusinessEvent.type, e.g. "customer_reply".
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * The action while the clock runs: "PAUSE", "RESUME", "RESET", "RETARGET",
     * "STOP", or "NONE" (the event changes nothing).
     *
     * @generated from field: string when_running = 2;
     */
    whenRunning: string;
    /**
     * The action while the clock is paused, as when_running.
     *
     * @generated from field: string when_paused = 3;
     */
    whenPaused: string;
    /**
     * Where a "RETARGET" counts from: "EVENT" (the event's instant) or
     * "START" (the clock's start).
     *
     * @generated from field: string anchor = 4;
     */
    anchor: string;
    /**
     * What the event does, in words, e.g. "while running: resets the clock;
     * while paused: resumes the clock".
     *
     * @generated from field: string description = 5;
     */
    description: string;
};
/**
 * Describes the message duetime.v1.PolicyEvent.
 * Use `create(PolicyEventSchema)` to create a new message.
 */
export declare const PolicyEventSchema: GenMessage<PolicyEvent>;
/**
 * GetPolicyResponse is one SLA policy version, written out.
 *
 * @generated from message duetime.v1.GetPolicyResponse
 */
export type GetPolicyResponse = Message<"duetime.v1.GetPolicyResponse"> & {
    /**
     * The policy; its description is that of the version returned.
     *
     * @generated from field: duetime.v1.PolicyInfo info = 1;
     */
    info?: PolicyInfo | undefined;
    /**
     * The version returned (the newest when `name` gave none).
     *
     * @generated from field: string version = 2;
     */
    version: string;
    /**
     * The tier a history starts in unless its "start" event names another.
     *
     * @generated from field: string initial_tier = 3;
     */
    initialTier: string;
    /**
     * Every tier, by name; empty for a policy with metrics (each metric's
     * `targets` hold its tiers).
     *
     * @generated from field: repeated duetime.v1.PolicyTier tiers = 4;
     */
    tiers: PolicyTier[];
    /**
     * Every event of the policy, by name; empty for a policy with metrics
     * (each metric's `rules` say what each event does in each status).
     *
     * @generated from field: repeated duetime.v1.PolicyEvent events = 5;
     */
    events: PolicyEvent[];
    /**
     * Every metric, in the policy's order (docs/semantics.md §17), with its
     * targets per tier, its rules and its warnings; empty for a one-clock
     * policy.
     *
     * @generated from field: repeated duetime.v1.PolicyMetric metrics = 6;
     */
    metrics: PolicyMetric[];
};
/**
 * Describes the message duetime.v1.GetPolicyResponse.
 * Use `create(GetPolicyResponseSchema)` to create a new message.
 */
export declare const GetPolicyResponseSchema: GenMessage<GetPolicyResponse>;
/**
 * PolicyMetric is one metric of a policy (docs/semantics.md §17).
 *
 * @generated from message duetime.v1.PolicyMetric
 */
export type PolicyMetric = Message<"duetime.v1.PolicyMetric"> & {
    /**
     * The metric's name, e.g. "first_response".
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * Its target per tier, by tier name.
     *
     * @generated from field: repeated duetime.v1.PolicyTier targets = 2;
     */
    targets: PolicyTier[];
    /**
     * What each event does in each status, by event then status.
     *
     * @generated from field: repeated duetime.v1.PolicyMetricRule rules = 3;
     */
    rules: PolicyMetricRule[];
    /**
     * Its warnings as written, e.g. "75%", "30bm".
     *
     * @generated from field: repeated string warnings = 4;
     */
    warnings: string[];
};
/**
 * Describes the message duetime.v1.PolicyMetric.
 * Use `create(PolicyMetricSchema)` to create a new message.
 */
export declare const PolicyMetricSchema: GenMessage<PolicyMetric>;
/**
 * PolicyMetricRule is what one business event does to a metric in one status.
 *
 * @generated from message duetime.v1.PolicyMetricRule
 */
export type PolicyMetricRule = Message<"duetime.v1.PolicyMetricRule"> & {
    /**
     * The business event, e.g. "agent_reply" ("start": the history's start).
     *
     * @generated from field: string event = 1;
     */
    event: string;
    /**
     * The metric's status: "NOT_STARTED", "RUNNING", "PAUSED" or "STOPPED".
     *
     * @generated from field: string status = 2;
     */
    status: string;
    /**
     * The action: "START", "PAUSE", "RESUME", "RESET", "RETARGET" or "STOP".
     *
     * @generated from field: string action = 3;
     */
    action: string;
    /**
     * Where a "RETARGET" counts from: "EVENT" or "START".
     *
     * @generated from field: string anchor = 4;
     */
    anchor: string;
};
/**
 * Describes the message duetime.v1.PolicyMetricRule.
 * Use `create(PolicyMetricRuleSchema)` to create a new message.
 */
export declare const PolicyMetricRuleSchema: GenMessage<PolicyMetricRule>;
/**
 * ListOpenPeriodsRequest asks for the open periods inside [start_time, end_time).
 *
 * @generated from message duetime.v1.ListOpenPeriodsRequest
 */
export type ListOpenPeriodsRequest = Message<"duetime.v1.ListOpenPeriodsRequest"> & {
    /**
     * The first instant (required). Resolution: 1 µs.
     *
     * @generated from field: google.protobuf.Timestamp start_time = 1;
     */
    startTime?: Timestamp | undefined;
    /**
     * The end of the span, excluded (required); not before start_time.
     *
     * @generated from field: google.protobuf.Timestamp end_time = 2;
     */
    endTime?: Timestamp | undefined;
    /**
     * The calendar. Unset: all defaults (docs/semantics.md §7).
     *
     * @generated from field: duetime.v1.Calendar calendar = 3;
     */
    calendar?: Calendar | undefined;
    /**
     * Most periods in the page: 0 means 100; more than 1000 means 1000;
     * negative is INVALID_ARGUMENT.
     *
     * @generated from field: int32 page_size = 4;
     */
    pageSize: number;
    /**
     * The next_page_token of the previous page, unchanged, with the same
     * start_time, end_time and calendar; empty for the first page.
     *
     * @generated from field: string page_token = 5;
     */
    pageToken: string;
    /**
     * Optional client key (at most 200 characters), as in ComputeDueTimeRequest.
     *
     * @generated from field: string idempotency_key = 6;
     */
    idempotencyKey: string;
};
/**
 * Describes the message duetime.v1.ListOpenPeriodsRequest.
 * Use `create(ListOpenPeriodsRequestSchema)` to create a new message.
 */
export declare const ListOpenPeriodsRequestSchema: GenMessage<ListOpenPeriodsRequest>;
/**
 * OpenPeriod is one maximal half-open period of open time [start_time, end_time).
 *
 * @generated from message duetime.v1.OpenPeriod
 */
export type OpenPeriod = Message<"duetime.v1.OpenPeriod"> & {
    /**
     * Its first instant (start_time of the request when the period began before it).
     *
     * @generated from field: google.protobuf.Timestamp start_time = 1;
     */
    startTime?: Timestamp | undefined;
    /**
     * The instant it ends, excluded (end_time of the request when it ends later).
     *
     * @generated from field: google.protobuf.Timestamp end_time = 2;
     */
    endTime?: Timestamp | undefined;
    /**
     * The local date, "YYYY-MM-DD", whose working interval holds its first instant.
     *
     * @generated from field: string local_date = 3;
     */
    localDate: string;
    /**
     * start_time as RFC 3339 text in the calendar's zone.
     *
     * @generated from field: string start_local = 4;
     */
    startLocal: string;
    /**
     * end_time as RFC 3339 text in the calendar's zone.
     *
     * @generated from field: string end_local = 5;
     */
    endLocal: string;
};
/**
 * Describes the message duetime.v1.OpenPeriod.
 * Use `create(OpenPeriodSchema)` to create a new message.
 */
export declare const OpenPeriodSchema: GenMessage<OpenPeriod>;
/**
 * ListOpenPeriodsResponse is the recorded answer.
 *
 * @generated from message duetime.v1.ListOpenPeriodsResponse
 */
export type ListOpenPeriodsResponse = Message<"duetime.v1.ListOpenPeriodsResponse"> & {
    /**
     * The periods of this page, in time order.
     *
     * @generated from field: repeated duetime.v1.OpenPeriod periods = 1;
     */
    periods: OpenPeriod[];
    /**
     * Pass it as page_token for the next page; empty on the last page.
     *
     * @generated from field: string next_page_token = 2;
     */
    nextPageToken: string;
    /**
     * The IANA time zone the answer was computed in.
     *
     * @generated from field: string time_zone = 3;
     */
    timeZone: string;
    /**
     * Id of the ledger record holding this answer.
     *
     * @generated from field: string record_id = 4;
     */
    recordId: string;
    /**
     * Version of the calendar used: "cal-<hash>", "name@version" of a bundle,
     * or "name@version+cal-<hash>" with extra holidays (see Calendar).
     *
     * @generated from field: string calendar_version = 5;
     */
    calendarVersion: string;
    /**
     * Version of duetime's arithmetic rules that produced the answer.
     *
     * @generated from field: string rules_version = 6;
     */
    rulesVersion: string;
    /**
     * Version of the IANA time zone database used.
     *
     * @generated from field: string tzdata_version = 7;
     */
    tzdataVersion: string;
    /**
     * Warnings in words. Empty: none.
     *
     * @generated from field: repeated string warnings = 8;
     */
    warnings: string[];
};
/**
 * Describes the message duetime.v1.ListOpenPeriodsResponse.
 * Use `create(ListOpenPeriodsResponseSchema)` to create a new message.
 */
export declare const ListOpenPeriodsResponseSchema: GenMessage<ListOpenPeriodsResponse>;
/**
 * CountBusinessDaysRequest asks how many business days lie in a range of local dates.
 *
 * @generated from message duetime.v1.CountBusinessDaysRequest
 */
export type CountBusinessDaysRequest = Message<"duetime.v1.CountBusinessDaysRequest"> & {
    /**
     * The first local date, "YYYY-MM-DD", included. Required.
     *
     * @generated from field: string from_date = 1;
     */
    fromDate: string;
    /**
     * The last local date, "YYYY-MM-DD", included; not before from_date. Required.
     *
     * @generated from field: string to_date = 2;
     */
    toDate: string;
    /**
     * The calendar. Unset: all defaults (docs/semantics.md §7).
     *
     * @generated from field: duetime.v1.Calendar calendar = 3;
     */
    calendar?: Calendar | undefined;
    /**
     * Optional client key (at most 200 characters), as in ComputeDueTimeRequest.
     *
     * @generated from field: string idempotency_key = 4;
     */
    idempotencyKey: string;
};
/**
 * Describes the message duetime.v1.CountBusinessDaysRequest.
 * Use `create(CountBusinessDaysRequestSchema)` to create a new message.
 */
export declare const CountBusinessDaysRequestSchema: GenMessage<CountBusinessDaysRequest>;
/**
 * CountBusinessDaysResponse is the recorded answer.
 *
 * @generated from message duetime.v1.CountBusinessDaysResponse
 */
export type CountBusinessDaysResponse = Message<"duetime.v1.CountBusinessDaysResponse"> & {
    /**
     * The business days d with from_date <= d <= to_date (docs/semantics.md §3).
     *
     * @generated from field: int64 business_days = 1;
     */
    businessDays: bigint;
    /**
     * The IANA time zone the answer was computed in.
     *
     * @generated from field: string time_zone = 2;
     */
    timeZone: string;
    /**
     * Id of the ledger record holding this answer.
     *
     * @generated from field: string record_id = 3;
     */
    recordId: string;
    /**
     * Version of the calendar used: "cal-<hash>", "name@version" of a bundle,
     * or "name@version+cal-<hash>" with extra holidays (see Calendar).
     *
     * @generated from field: string calendar_version = 4;
     */
    calendarVersion: string;
    /**
     * Version of duetime's arithmetic rules that produced the answer.
     *
     * @generated from field: string rules_version = 5;
     */
    rulesVersion: string;
    /**
     * Version of the IANA time zone database used.
     *
     * @generated from field: string tzdata_version = 6;
     */
    tzdataVersion: string;
    /**
     * Warnings in words. Empty: none.
     *
     * @generated from field: repeated string warnings = 7;
     */
    warnings: string[];
};
/**
 * Describes the message duetime.v1.CountBusinessDaysResponse.
 * Use `create(CountBusinessDaysResponseSchema)` to create a new message.
 */
export declare const CountBusinessDaysResponseSchema: GenMessage<CountBusinessDaysResponse>;
/**
 * Weekday is an ISO 8601 weekday (Monday = 1 … Sunday = 7).
 *
 * @generated from enum duetime.v1.Weekday
 */
export declare enum Weekday {
    /**
     * Not a weekday; rejected wherever a weekday is required.
     *
     * @generated from enum value: WEEKDAY_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * Monday (ISO 1).
     *
     * @generated from enum value: WEEKDAY_MONDAY = 1;
     */
    MONDAY = 1,
    /**
     * Tuesday (ISO 2).
     *
     * @generated from enum value: WEEKDAY_TUESDAY = 2;
     */
    TUESDAY = 2,
    /**
     * Wednesday (ISO 3).
     *
     * @generated from enum value: WEEKDAY_WEDNESDAY = 3;
     */
    WEDNESDAY = 3,
    /**
     * Thursday (ISO 4).
     *
     * @generated from enum value: WEEKDAY_THURSDAY = 4;
     */
    THURSDAY = 4,
    /**
     * Friday (ISO 5).
     *
     * @generated from enum value: WEEKDAY_FRIDAY = 5;
     */
    FRIDAY = 5,
    /**
     * Saturday (ISO 6).
     *
     * @generated from enum value: WEEKDAY_SATURDAY = 6;
     */
    SATURDAY = 6,
    /**
     * Sunday (ISO 7).
     *
     * @generated from enum value: WEEKDAY_SUNDAY = 7;
     */
    SUNDAY = 7
}
/**
 * Describes the enum duetime.v1.Weekday.
 */
export declare const WeekdaySchema: GenEnum<Weekday>;
/**
 * AtClose says where positive business time that ends exactly at a closing is
 * due (docs/semantics.md §4). Negative amounts and other kinds of duration are unaffected.
 *
 * @generated from enum duetime.v1.AtClose
 */
export declare enum AtClose {
    /**
     * Unset: the same as AT_CLOSE_END_OF_WINDOW.
     *
     * @generated from enum value: AT_CLOSE_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * Due at the closing instant (Friday 16:00 + 1bh → Friday 17:00).
     *
     * @generated from enum value: AT_CLOSE_END_OF_WINDOW = 1;
     */
    END_OF_WINDOW = 1,
    /**
     * Due at the next opening (Friday 16:00 + 1bh → Monday 09:00), as pandas'
     * CustomBusinessHour and jBPM answer.
     *
     * @generated from enum value: AT_CLOSE_NEXT_OPEN = 2;
     */
    NEXT_OPEN = 2
}
/**
 * Describes the enum duetime.v1.AtClose.
 */
export declare const AtCloseSchema: GenEnum<AtClose>;
/**
 * Roll says where a due time moves when its local date is not a business day
 * (docs/semantics.md §15, ISDA 2006 §4.12's business day conventions). It
 * applies to elapsed and ISO 8601 durations only; business days (bd) and
 * business time (bh, bm) already count business time, and a roll beside them
 * is INVALID_ARGUMENT on "roll". The same rule can be written in the duration
 * text instead ("P1M@following"); giving it in both places is
 * INVALID_ARGUMENT naming both fields.
 *
 * @generated from enum duetime.v1.Roll
 */
export declare enum Roll {
    /**
     * Unset: no roll, unless the duration text gives one.
     *
     * @generated from enum value: ROLL_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * The first business day after the date ("following").
     *
     * @generated from enum value: ROLL_FOLLOWING = 1;
     */
    FOLLOWING = 1,
    /**
     * The last business day before the date ("preceding").
     *
     * @generated from enum value: ROLL_PRECEDING = 2;
     */
    PRECEDING = 2,
    /**
     * ROLL_FOLLOWING, unless that is in another calendar month than the date:
     * then ROLL_PRECEDING ("modified-following").
     *
     * @generated from enum value: ROLL_MODIFIED_FOLLOWING = 3;
     */
    MODIFIED_FOLLOWING = 3,
    /**
     * ROLL_PRECEDING, unless that is in another calendar month than the date:
     * then ROLL_FOLLOWING ("modified-preceding").
     *
     * @generated from enum value: ROLL_MODIFIED_PRECEDING = 4;
     */
    MODIFIED_PRECEDING = 4
}
/**
 * Describes the enum duetime.v1.Roll.
 */
export declare const RollSchema: GenEnum<Roll>;
/**
 * ClockMeasure is what a clock counts, following its target's kind (docs/semantics.md §11).
 *
 * @generated from enum duetime.v1.ClockMeasure
 */
export declare enum ClockMeasure {
    /**
     * Not a measure; an SLA clock state with it is INVALID_ARGUMENT.
     *
     * @generated from enum value: CLOCK_MEASURE_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * Real elapsed time (targets in ms, s, m, h, d, w).
     *
     * @generated from enum value: CLOCK_MEASURE_ELAPSED = 1;
     */
    ELAPSED = 1,
    /**
     * Business-day time: every instant of a business day's local date counts
     * (targets in bd).
     *
     * @generated from enum value: CLOCK_MEASURE_BUSINESS_DAY = 2;
     */
    BUSINESS_DAY = 2,
    /**
     * Business time: the calendar's open time (targets in bh, bm).
     *
     * @generated from enum value: CLOCK_MEASURE_BUSINESS_TIME = 3;
     */
    BUSINESS_TIME = 3
}
/**
 * Describes the enum duetime.v1.ClockMeasure.
 */
export declare const ClockMeasureSchema: GenEnum<ClockMeasure>;
/**
 * ClockStatus is the state an SLA clock is in.
 *
 * @generated from enum duetime.v1.ClockStatus
 */
export declare enum ClockStatus {
    /**
     * Not a status; an SLA clock state with it is INVALID_ARGUMENT.
     *
     * @generated from enum value: CLOCK_STATUS_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * Counting down to deadline_time.
     *
     * @generated from enum value: CLOCK_STATUS_RUNNING = 1;
     */
    RUNNING = 1,
    /**
     * Stopped for now with `remaining` left, in the clock's measure.
     *
     * @generated from enum value: CLOCK_STATUS_PAUSED = 2;
     */
    PAUSED = 2,
    /**
     * Done: the work was finished (see `met`); no later event is accepted.
     *
     * @generated from enum value: CLOCK_STATUS_STOPPED = 3;
     */
    STOPPED = 3
}
/**
 * Describes the enum duetime.v1.ClockStatus.
 */
export declare const ClockStatusSchema: GenEnum<ClockStatus>;
/**
 * ClockEventType is what happens to an SLA clock (docs/semantics.md §11).
 *
 * @generated from enum duetime.v1.ClockEventType
 */
export declare enum ClockEventType {
    /**
     * Not an event; INVALID_ARGUMENT.
     *
     * @generated from enum value: CLOCK_EVENT_TYPE_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * Pause a running clock: remaining = the time left to its deadline in its
     * measure (negative when already past it).
     *
     * @generated from enum value: CLOCK_EVENT_TYPE_PAUSE = 1;
     */
    PAUSE = 1,
    /**
     * Resume a paused clock: deadline = time + remaining in its measure.
     *
     * @generated from enum value: CLOCK_EVENT_TYPE_RESUME = 2;
     */
    RESUME = 2,
    /**
     * Start over: RUNNING with deadline = time + target, whatever the status.
     *
     * @generated from enum value: CLOCK_EVENT_TYPE_RESET = 3;
     */
    RESET = 3,
    /**
     * Change the target (e.g. a tier change), keeping the status; see
     * RetargetAnchor.
     *
     * @generated from enum value: CLOCK_EVENT_TYPE_RETARGET = 4;
     */
    RETARGET = 4,
    /**
     * The work was done: STOPPED, `met` unless the clock was already breached.
     *
     * @generated from enum value: CLOCK_EVENT_TYPE_STOP = 5;
     */
    STOP = 5
}
/**
 * Describes the enum duetime.v1.ClockEventType.
 */
export declare const ClockEventTypeSchema: GenEnum<ClockEventType>;
/**
 * RetargetAnchor is where a RETARGET's new target counts from.
 *
 * @generated from enum duetime.v1.RetargetAnchor
 */
export declare enum RetargetAnchor {
    /**
     * Unset: the same as RETARGET_ANCHOR_EVENT.
     *
     * @generated from enum value: RETARGET_ANCHOR_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * From the event: the clock starts over with the new target.
     *
     * @generated from enum value: RETARGET_ANCHOR_EVENT = 1;
     */
    EVENT = 1,
    /**
     * From the clock's start (or last reset): the new target less the time
     * already consumed while running, in the new target's measure.
     *
     * @generated from enum value: RETARGET_ANCHOR_START = 2;
     */
    START = 2
}
/**
 * Describes the enum duetime.v1.RetargetAnchor.
 */
export declare const RetargetAnchorSchema: GenEnum<RetargetAnchor>;
/**
 * SlaMetricStatus is a policy metric's status (docs/semantics.md §17).
 *
 * @generated from enum duetime.v1.SlaMetricStatus
 */
export declare enum SlaMetricStatus {
    /**
     * Not a status.
     *
     * @generated from enum value: SLA_METRIC_STATUS_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * No START yet.
     *
     * @generated from enum value: SLA_METRIC_STATUS_NOT_STARTED = 1;
     */
    NOT_STARTED = 1,
    /**
     * Counting down to its deadline.
     *
     * @generated from enum value: SLA_METRIC_STATUS_RUNNING = 2;
     */
    RUNNING = 2,
    /**
     * Paused with time remaining.
     *
     * @generated from enum value: SLA_METRIC_STATUS_PAUSED = 3;
     */
    PAUSED = 3,
    /**
     * Stopped; a START begins a new cycle.
     *
     * @generated from enum value: SLA_METRIC_STATUS_STOPPED = 4;
     */
    STOPPED = 4
}
/**
 * Describes the enum duetime.v1.SlaMetricStatus.
 */
export declare const SlaMetricStatusSchema: GenEnum<SlaMetricStatus>;
/**
 * SlaDueKind says what falls at the next action.
 *
 * @generated from enum duetime.v1.SlaDueKind
 */
export declare enum SlaDueKind {
    /**
     * Not a kind.
     *
     * @generated from enum value: SLA_DUE_KIND_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * A warning threshold is reached.
     *
     * @generated from enum value: SLA_DUE_KIND_WARNING = 1;
     */
    WARNING = 1,
    /**
     * The deadline is reached.
     *
     * @generated from enum value: SLA_DUE_KIND_BREACH = 2;
     */
    BREACH = 2
}
/**
 * Describes the enum duetime.v1.SlaDueKind.
 */
export declare const SlaDueKindSchema: GenEnum<SlaDueKind>;
/**
 * DueTimeService computes absolute due times and keeps a ledger of every answer.
 *
 * Errors: bad input is INVALID_ARGUMENT and a range limit is OUT_OF_RANGE, both
 * with a google.rpc.BadRequest detail naming the field (e.g.
 * "calendar.holidays[1].date"); an idempotency key reused with a different
 * request is ALREADY_EXISTS; a ledger that cannot be written is UNAVAILABLE
 * (no answer is ever returned without its record); an SLA clock event the
 * clock's state does not allow is FAILED_PRECONDITION with a
 * google.rpc.PreconditionFailure detail.
 *
 * Every computing call (all but GetRecord, ListRecords and AnalyzeImpact,
 * which only read the ledger) records its answer in the ledger before
 * returning it, takes an idempotency_key, and answers with record_id,
 * time_zone, calendar_version, rules_version, tzdata_version and warnings.
 *
 * Idempotency namespaces: a caller may send the gRPC request metadata
 * "x-duetime-namespace" (1 to 64 characters of A-Z a-z 0-9 . _ -) with a
 * computing call; its idempotency_key is then scoped to that namespace, so two
 * teams using the same key never collide. Without it the namespace is ""
 * (the default one). A bad value is INVALID_ARGUMENT on the field "metadata
 * x-duetime-namespace". The record shows the namespace.
 *
 * HTTP/JSON: every RPC but StreamComputeDueTimes is also served as JSON over
 * HTTP (`duetime serve --http-port`) at the path its google.api.http option
 * names (AIP-127), with the request and response in the protobuf JSON
 * mapping. The same application layer answers and records it; the namespace
 * is the HTTP header "x-duetime-namespace"; errors are AIP-193 JSON
 * ({"error": {code, message, status, details}}) with the same status and
 * details as over gRPC.
 *
 * Input size limits (INVALID_ARGUMENT naming the field): idempotency_key at
 * most 200 characters and not only whitespace; calendar.time_zone at most 64;
 * calendar.bundle at most 128; durations and targets at most 256; names of
 * holidays, date overrides, extra working days and deadlines at most 200, with
 * no control characters; at most 10000 holidays, 10000 date_overrides and
 * 10000 extra_working_days; at most 100 deadlines; record_id is 32 hex digits.
 *
 * @generated from service duetime.v1.DueTimeService
 */
export declare const DueTimeService: GenService<{
    /**
     * ComputeDueTime returns start + duration under the calendar (docs/semantics.md §2–§4) and
     * records the answer in the ledger before returning it (docs/semantics.md §12).
     *
     * @generated from rpc duetime.v1.DueTimeService.ComputeDueTime
     */
    computeDueTime: {
        methodKind: "unary";
        input: typeof ComputeDueTimeRequestSchema;
        output: typeof ComputeDueTimeResponseSchema;
    };
    /**
     * BatchComputeDueTimes answers up to 1000 ComputeDueTime requests in one
     * call, in order: each item gets its own response or its own error, exactly
     * as ComputeDueTime would have answered it alone (an item's idempotency_key
     * works as for a single call; an item's error names fields of that item,
     * e.g. "duration"). Every answered item is recorded, all of a call's items
     * in one ledger transaction, before the call returns. More than 1000 items
     * (the server's --max-batch-items) is INVALID_ARGUMENT on "items"; a ledger that cannot be written is
     * UNAVAILABLE for the whole call (nothing answered).
     *
     * @generated from rpc duetime.v1.DueTimeService.BatchComputeDueTimes
     */
    batchComputeDueTimes: {
        methodKind: "unary";
        input: typeof BatchComputeDueTimesRequestSchema;
        output: typeof BatchComputeDueTimesResponseSchema;
    };
    /**
     * StreamComputeDueTimes is BatchComputeDueTimes for sweeps of any length.
     *
     * Bidirectional streaming: the client streams its requests (so a sweep
     * never has to fit in one message, nor in the client's memory: it can
     * produce items lazily), and the server streams the answers back in the
     * same order while it reads on. A server-streaming call would need the
     * whole sweep in its one request message. Each request message carries up
     * to 1000 items; the server answers them in chunks of at most 1000 items,
     * each chunk recorded in one ledger transaction and sent only after its
     * commit. It holds at most one request message and one chunk of answers
     * at a time, and gRPC flow control holds back a client that sends faster
     * than the server answers: the server's memory does not grow with the
     * stream's length. Answers arrive as StreamComputeDueTimesResponse
     * messages whose results, concatenated, correspond one to one, in order,
     * to the items sent. A request message with more than 1000 items, or a
     * ledger that cannot be written, ends the stream with that error; the
     * answers already received stay recorded.
     *
     * Not exposed over HTTP/JSON (it has no google.api.http rule): a
     * bidirectional stream has no plain request/response form; over HTTP use
     * BatchComputeDueTimes, one batch per request.
     *
     * @generated from rpc duetime.v1.DueTimeService.StreamComputeDueTimes
     */
    streamComputeDueTimes: {
        methodKind: "bidi_streaming";
        input: typeof StreamComputeDueTimesRequestSchema;
        output: typeof StreamComputeDueTimesResponseSchema;
    };
    /**
     * ComputeBusinessTime returns the open time in [start_time, end_time)
     * (docs/semantics.md §4) and the whole business days between the two
     * instants (docs/semantics.md §3).
     *
     * @generated from rpc duetime.v1.DueTimeService.ComputeBusinessTime
     */
    computeBusinessTime: {
        methodKind: "unary";
        input: typeof ComputeBusinessTimeRequestSchema;
        output: typeof ComputeBusinessTimeResponseSchema;
    };
    /**
     * GetOpenStatus tells whether the calendar is open at an instant, the open
     * interval holding it, the next opening and closing, and why its local date
     * is not a business day. Recorded like every computing call.
     *
     * @generated from rpc duetime.v1.DueTimeService.GetOpenStatus
     */
    getOpenStatus: {
        methodKind: "unary";
        input: typeof GetOpenStatusRequestSchema;
        output: typeof GetOpenStatusResponseSchema;
    };
    /**
     * ComputeSchedule returns the due times of a stage's named deadlines, each
     * from the stage's entry or chained after another deadline's due time.
     *
     * @generated from rpc duetime.v1.DueTimeService.ComputeSchedule
     */
    computeSchedule: {
        methodKind: "unary";
        input: typeof ComputeScheduleRequestSchema;
        output: typeof ComputeScheduleResponseSchema;
    };
    /**
     * GetRecord reads back one recorded answer by its record id.
     * NOT_FOUND when no record has that id; INVALID_ARGUMENT when record_id is
     * not 32 hex digits.
     *
     * @generated from rpc duetime.v1.DueTimeService.GetRecord
     */
    getRecord: {
        methodKind: "unary";
        input: typeof GetRecordRequestSchema;
        output: typeof GetRecordResponseSchema;
    };
    /**
     * ListRecords lists recorded answers in the order they were received
     * (receive_time, then record_id), filtered by receive time, idempotency key
     * prefix and namespace, one page at a time (AIP-158). Read-only, not
     * recorded; the x-duetime-namespace metadata does not filter (the
     * `namespace` field does).
     *
     * @generated from rpc duetime.v1.DueTimeService.ListRecords
     */
    listRecords: {
        methodKind: "unary";
        input: typeof ListRecordsRequestSchema;
        output: typeof ListRecordsResponseSchema;
    };
    /**
     * AnalyzeImpact answers "what would move?" before a change: it replays
     * recorded answers that used an older version of a calendar bundle under a
     * newer one (and, with tzdata, answers computed with another tz database
     * under the server's), and lists every due time that would change, old,
     * new and why. It changes no record and records nothing. ComputeDueTime and
     * ComputeSchedule answers are replayed and compared due time by due time;
     * CountBusinessDays, ListOpenPeriods (a first page), GetOpenStatus and
     * ComputeBusinessTime answers are replayed and compared part by part
     * (ImpactedRecord.answer_changes); the others are listed as not replayed,
     * with the reason.
     *
     * @generated from rpc duetime.v1.DueTimeService.AnalyzeImpact
     */
    analyzeImpact: {
        methodKind: "unary";
        input: typeof AnalyzeImpactRequestSchema;
        output: typeof AnalyzeImpactResponseSchema;
    };
    /**
     * StartClock starts an SLA clock (docs/semantics.md §11): RUNNING, with deadline_time =
     * start_time + target in the calendar. The answer is the clock's whole
     * state, plain data the caller keeps and hands back to ApplyClockEvent.
     * A target without a clock measure (ISO 8601 "P…", "1bd@16:00") or a
     * negative one is INVALID_ARGUMENT on "target". Recorded.
     *
     * @generated from rpc duetime.v1.DueTimeService.StartClock
     */
    startClock: {
        methodKind: "unary";
        input: typeof StartClockRequestSchema;
        output: typeof StartClockResponseSchema;
    };
    /**
     * ApplyClockEvent returns the state after one event (docs/semantics.md §11): pause,
     * resume, reset, retarget or stop. The same state, event and versions give
     * the same state, byte for byte (deterministic serialization). An event the
     * state does not allow (resume a running clock, pause a paused one, any
     * event on a stopped clock, an event earlier than the clock's last one) is
     * FAILED_PRECONDITION with a google.rpc.PreconditionFailure detail (type
     * "CLOCK_STATE", subject "event", or "event.time" for an event earlier than
     * the clock's last one) saying why in words. A state that is not
     * one duetime could have returned (an unspecified enum, a missing field, a
     * calendar that no longer resolves to its calendar_version) is
     * INVALID_ARGUMENT naming the field under "state.". Recorded.
     *
     * @generated from rpc duetime.v1.DueTimeService.ApplyClockEvent
     */
    applyClockEvent: {
        methodKind: "unary";
        input: typeof ApplyClockEventRequestSchema;
        output: typeof ApplyClockEventResponseSchema;
    };
    /**
     * EvaluateSla replays a ticket's business events under a contract policy
     * (calendars/policies) from the start and returns the final clock and the
     * timeline of every recomputation with its reason in words. Pure: the same
     * events and policy version give the same answer. Unknown events or tiers
     * are INVALID_ARGUMENT naming "events[i]"; transitions the clock refuses
     * are FAILED_PRECONDITION as in ApplyClockEvent, the subject naming the
     * event ("events[i]", or "events[i].time" for one out of time order).
     * Recorded.
     *
     * @generated from rpc duetime.v1.DueTimeService.EvaluateSla
     */
    evaluateSla: {
        methodKind: "unary";
        input: typeof EvaluateSlaRequestSchema;
        output: typeof EvaluateSlaResponseSchema;
    };
    /**
     * ListOpenPeriods lists the calendar's open time inside [start_time,
     * end_time) as maximal half-open periods in time order, touching ones
     * merged as GetOpenStatus merges them, each with the local date it belongs
     * to, one page at a time (docs/semantics.md §9.1). An end_time before
     * start_time is INVALID_ARGUMENT; so is a page_token that is not the
     * next_page_token of the same query. Recorded like every computing call.
     *
     * @generated from rpc duetime.v1.DueTimeService.ListOpenPeriods
     */
    listOpenPeriods: {
        methodKind: "unary";
        input: typeof ListOpenPeriodsRequestSchema;
        output: typeof ListOpenPeriodsResponseSchema;
    };
    /**
     * CountBusinessDays counts the business days from from_date to to_date,
     * both local dates included (docs/semantics.md §9.1). A to_date before
     * from_date is INVALID_ARGUMENT. Recorded like every computing call.
     *
     * @generated from rpc duetime.v1.DueTimeService.CountBusinessDays
     */
    countBusinessDays: {
        methodKind: "unary";
        input: typeof CountBusinessDaysRequestSchema;
        output: typeof CountBusinessDaysResponseSchema;
    };
}>;
/**
 * CalendarService describes the calendar bundles the server answers from
 * (docs/semantics.md §7): compiled, hashed versions of the TOML sources in calendars/.
 * Its calls are read-only and not recorded. Errors as in DueTimeService.
 *
 * @generated from service duetime.v1.CalendarService
 */
export declare const CalendarService: GenService<{
    /**
     * ListCalendars lists every loaded bundle with its versions and year range.
     *
     * @generated from rpc duetime.v1.CalendarService.ListCalendars
     */
    listCalendars: {
        methodKind: "unary";
        input: typeof ListCalendarsRequestSchema;
        output: typeof ListCalendarsResponseSchema;
    };
    /**
     * GetCalendar returns one version of a bundle, written out in full.
     * Unknown bundle or version: INVALID_ARGUMENT on "name".
     *
     * @generated from rpc duetime.v1.CalendarService.GetCalendar
     */
    getCalendar: {
        methodKind: "unary";
        input: typeof GetCalendarRequestSchema;
        output: typeof GetCalendarResponseSchema;
    };
    /**
     * ListHolidays lists a calendar's holidays between two local dates. A date
     * outside a bundle's year range is OUT_OF_RANGE on "calendar.bundle".
     *
     * @generated from rpc duetime.v1.CalendarService.ListHolidays
     */
    listHolidays: {
        methodKind: "unary";
        input: typeof ListHolidaysRequestSchema;
        output: typeof ListHolidaysResponseSchema;
    };
    /**
     * ListPolicies lists every loaded SLA policy (docs/semantics.md §14) with
     * its versions.
     *
     * @generated from rpc duetime.v1.CalendarService.ListPolicies
     */
    listPolicies: {
        methodKind: "unary";
        input: typeof ListPoliciesRequestSchema;
        output: typeof ListPoliciesResponseSchema;
    };
    /**
     * GetPolicy returns one version of an SLA policy written out: its tiers
     * (target and pinned calendar), its events and what each does to the
     * clock. Unknown policy or version: NOT_FOUND on "name".
     *
     * @generated from rpc duetime.v1.CalendarService.GetPolicy
     */
    getPolicy: {
        methodKind: "unary";
        input: typeof GetPolicyRequestSchema;
        output: typeof GetPolicyResponseSchema;
    };
}>;

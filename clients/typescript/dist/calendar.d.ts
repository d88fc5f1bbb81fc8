/**
 * Calendars as the client takes them: a bundle reference, a plain object
 * (`CalendarInit`), or a generated `duetime.v1.Calendar` message, read into
 * the message the service takes. Also the CLI's text forms the client reads:
 * day specs (`"mon-fri"`), weekends (`"fri,sat"`, `"none"`) and weekly hours
 * (`"mon-fri 09:00-12:00,13:00-17:00"`).
 */
import type { JsonValue } from "@bufbuild/protobuf";
import type { Calendar } from "./gen/duetime/v1/duetime_pb.js";
/** A holiday: a local date, a `[date, name]` pair (any list of two texts,
 * checked when the calendar is read), or `{ date, name }`. */
export type HolidayInit = string | readonly [string, string] | readonly string[] | {
    date: string;
    name?: string | undefined;
};
/** A date override in the calendar's JSON form: the date's own working
 * `intervals` (`{ start: "09:00", end: "12:00" }`, replacing its weekday's
 * hours, a business day even on a weekend or holiday), or `closed: true`. */
export interface DateOverrideInit {
    date: string;
    intervals?: readonly {
        start: string;
        end: string;
    }[] | undefined;
    closed?: boolean | undefined;
    name?: string | undefined;
}
/**
 * An inline calendar (or a bundle with extra holidays) as a plain object.
 * Keys of the calendar's JSON form (`workingHours`, `dateOverrides`,
 * `extraWorkingDays`, `holidaysValidUntil`, `weekPeriods` …, as protobuf's
 * JSON mapping writes them; the proto's own snake_case names too) may be
 * mixed with the convenient ones.
 */
export interface CalendarInit {
    /** IANA time zone, e.g. `"Europe/Zagreb"` (default UTC). */
    timeZone?: string | undefined;
    time_zone?: string | undefined;
    holidays?: readonly HolidayInit[] | undefined;
    /** ISO weekdays (1 Monday … 7 Sunday; `[]`: no weekend), the CLI's text
     * (`"fri,sat"`, `"none"`) or the JSON form `{ days: [...] }`. */
    weekend?: readonly number[] | string | {
        days: readonly (number | string)[];
    } | undefined;
    /** Weekly hours as the CLI's specs: `"mon-fri 09:00-12:00,13:00-17:00"`, one or a list. */
    hours?: string | readonly string[] | undefined;
    /** A bundle reference (`"hr-zagreb"`, `"hr-zagreb@f45226394a32"`); `holidays` are added to its own. */
    bundle?: string | undefined;
    workingHours?: JsonValue | undefined;
    working_hours?: JsonValue | undefined;
    dateOverrides?: readonly DateOverrideInit[] | JsonValue | undefined;
    date_overrides?: readonly DateOverrideInit[] | JsonValue | undefined;
    extraWorkingDays?: JsonValue | undefined;
    extra_working_days?: JsonValue | undefined;
    holidaysValidUntil?: string | undefined;
    holidays_valid_until?: string | undefined;
    weekPeriods?: JsonValue | undefined;
    week_periods?: JsonValue | undefined;
}
/** A calendar argument: a bundle reference, a plain object, a Calendar
 * message, or undefined (the service's default calendar: UTC, Monday–Friday
 * 09:00–17:00, no holidays). */
export type CalendarLike = string | CalendarInit | Calendar | undefined;
/** The day names a day spec may use, with their ISO weekdays. */
export declare const DAYS: Readonly<Record<string, number>>;
/** ISO weekdays of a day spec: `"mon-fri"` → [1..5], `"sat,sun"` → [6, 7];
 * a range may wrap (`"fri-mon"`). InvalidArgument on `field`. */
export declare function parseDays(text: string, field: string): number[];
/** ISO weekdays of a weekend text: a day spec, or `"none"` for no weekend. */
export declare function parseWeekend(text: string, field: string): number[];
/** Weekly hours from the CLI's specs (`"mon-fri 09:00-12:00,13:00-17:00"`):
 * `[isoWeekday, [[start, end], ...]]` by weekday; intervals given for one day
 * by several specs are joined in order. InvalidArgument on `field`. */
export declare function parseHours(specs: readonly string[], field: string): [number, [string, string][]][];
/** The Calendar message of `calendar` (undefined stays undefined: the
 * service's default). InvalidArgument on `calendar.KEY` for an unknown key or
 * a value of the wrong shape, saying what to write. */
export declare function calendarOf(calendar: CalendarLike, field?: string): Calendar | undefined;

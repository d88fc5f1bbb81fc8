/**
 * Calendars as the client takes them: a bundle reference, a plain object
 * (`CalendarInit`), or a generated `duetime.v1.Calendar` message, read into
 * the message the service takes. Also the CLI's text forms the client reads:
 * day specs (`"mon-fri"`), weekends (`"fri,sat"`, `"none"`) and weekly hours
 * (`"mon-fri 09:00-12:00,13:00-17:00"`).
 */
import { create, fromJson } from "@bufbuild/protobuf";
import { CalendarSchema, DayHoursSchema, TimeIntervalSchema, WorkingHoursSchema } from "./gen/duetime/v1/duetime_pb.js";
import { invalidArgument } from "./errors.js";
/** The day names a day spec may use, with their ISO weekdays. */
export const DAYS = { mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6, sun: 7 };
/** ISO weekdays of a day spec: `"mon-fri"` → [1..5], `"sat,sun"` → [6, 7];
 * a range may wrap (`"fri-mon"`). InvalidArgument on `field`. */
export function parseDays(text, field) {
    const days = [];
    for (const raw of text.toLowerCase().split(",")) {
        const part = raw.trim();
        const [first = "", last, ...rest] = part.split("-");
        const a = DAYS[first];
        const b = last === undefined ? a : DAYS[last];
        if (a === undefined || b === undefined || rest.length > 0) {
            throw invalidArgument(field, `'${part}' is not a day or a day range (mon..sun, e.g. mon-fri)`);
        }
        const span = (((b - a) % 7) + 7) % 7;
        for (let i = 0; i <= span; i++) {
            days.push(((a - 1 + i) % 7) + 1);
        }
    }
    return days;
}
/** ISO weekdays of a weekend text: a day spec, or `"none"` for no weekend. */
export function parseWeekend(text, field) {
    const spec = text.trim().toLowerCase();
    if (!spec) {
        throw invalidArgument(field, "is empty; give the weekend days, e.g. sat,sun or fri-sat, or none for no weekend");
    }
    return spec === "none" ? [] : parseDays(spec, field);
}
const CLOCK_TIME = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/;
function clockTime(text, field, spec, isEnd) {
    const t = text.trim();
    const m = CLOCK_TIME.exec(t);
    if (m) {
        const [h, mi, s] = [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
        if ((h < 24 && mi < 60 && s < 60) || (isEnd && h === 24 && mi === 0 && s === 0)) {
            return t.length === 4 || (t.length === 7 && t[1] === ":") ? `0${t}` : t;
        }
    }
    const allowed = isEnd ? "00:00..24:00" : "00:00..23:59:59";
    throw invalidArgument(field, `'${spec}': '${t}' is not a clock time HH:MM or HH:MM:SS in ${allowed}`);
}
/** Weekly hours from the CLI's specs (`"mon-fri 09:00-12:00,13:00-17:00"`):
 * `[isoWeekday, [[start, end], ...]]` by weekday; intervals given for one day
 * by several specs are joined in order. InvalidArgument on `field`. */
export function parseHours(specs, field) {
    const byDay = new Map();
    for (const spec of specs) {
        const text = spec.trim();
        if (!text) {
            throw invalidArgument(field, 'is empty; give DAYS HH:MM-HH:MM[,HH:MM-HH:MM...], e.g. "mon-fri 09:00-17:00"');
        }
        const space = text.indexOf(" ");
        const daysText = space < 0 ? text : text.slice(0, space);
        const intervalsText = space < 0 ? "" : text.slice(space + 1);
        if (/^\d/.test(daysText)) {
            throw invalidArgument(field, `'${spec}' names no days; write the days first: 'mon-fri 09:00-17:00'`);
        }
        const intervals = intervalsText.split(",").map((item) => {
            const [start, end, ...rest] = item.trim().split("-");
            if (!start || !end || rest.length > 0) {
                throw invalidArgument(field, `'${spec}': '${intervalsText}' is not HH:MM-HH:MM[,HH:MM-HH:MM...]`);
            }
            return [clockTime(start, field, spec, false), clockTime(end, field, spec, true)];
        });
        for (const day of parseDays(daysText, field)) {
            byDay.set(day, [...(byDay.get(day) ?? []), ...intervals]);
        }
    }
    return [...byDay.entries()].sort((x, y) => x[0] - y[0]);
}
const JSON_KEYS = {
    timeZone: "timeZone",
    time_zone: "timeZone",
    holidays: "holidays",
    weekend: "weekend",
    workingHours: "workingHours",
    working_hours: "workingHours",
    dateOverrides: "dateOverrides",
    date_overrides: "dateOverrides",
    extraWorkingDays: "extraWorkingDays",
    extra_working_days: "extraWorkingDays",
    holidaysValidUntil: "holidaysValidUntil",
    holidays_valid_until: "holidaysValidUntil",
    weekPeriods: "weekPeriods",
    week_periods: "weekPeriods",
    bundle: "bundle",
};
/** The proto (snake_case) name of each JSON name, as refusals name fields. */
const PROTO_NAMES = {
    timeZone: "time_zone",
    workingHours: "working_hours",
    dateOverrides: "date_overrides",
    extraWorkingDays: "extra_working_days",
    holidaysValidUntil: "holidays_valid_until",
    weekPeriods: "week_periods",
};
/** `key` (either spelling) in the proto's spelling. */
function protoName(key) {
    return Object.prototype.hasOwnProperty.call(PROTO_NAMES, key) ? (PROTO_NAMES[key] ?? key) : key;
}
const ALL_KEYS = [...Object.keys(JSON_KEYS), "hours"].sort().join(", ");
/** `value` as JSON text for a message, or its type when it has none (a bigint, a cycle). */
function shown(value) {
    try {
        return JSON.stringify(value) ?? typeof value;
    }
    catch {
        return `a ${typeof value}`;
    }
}
function holidayJson(holiday, i, field) {
    if (typeof holiday === "string") {
        return { date: holiday };
    }
    if (Array.isArray(holiday)) {
        if (holiday.length === 2 && typeof holiday[0] === "string" && typeof holiday[1] === "string") {
            return { date: holiday[0], name: holiday[1] };
        }
        throw invalidArgument(`${field}.holidays[${i}]`, `${shown(holiday)} is not a [date, name] pair of two texts; write ["2026-12-26", "St. Stephen's Day"]`);
    }
    if (holiday !== null && typeof holiday === "object" && !Array.isArray(holiday)) {
        return holiday;
    }
    throw invalidArgument(`${field}.holidays[${i}]`, `${shown(holiday)} is not a holiday; write "2026-12-25", ["2026-12-26", "St. Stephen's Day"] or { date, name }`);
}
function isCalendarMessage(value) {
    return "$typeName" in value && value.$typeName === "duetime.v1.Calendar";
}
/** The Calendar message of `calendar` (undefined stays undefined: the
 * service's default). InvalidArgument on `calendar.KEY` for an unknown key or
 * a value of the wrong shape, saying what to write. */
export function calendarOf(calendar, field = "calendar") {
    if (calendar === undefined || calendar === null) {
        return undefined;
    }
    if (typeof calendar === "string") {
        if (!calendar.trim()) {
            throw invalidArgument(`${field}.bundle`, "is empty; give a bundle name such as 'hr-zagreb', or leave the calendar out");
        }
        return create(CalendarSchema, { bundle: calendar });
    }
    if (typeof calendar !== "object" || Array.isArray(calendar)) {
        throw invalidArgument(field, `a ${Array.isArray(calendar) ? "list" : typeof calendar} is not a calendar; give a bundle name, a plain object or a duetime.v1.Calendar`);
    }
    if (isCalendarMessage(calendar)) {
        return calendar;
    }
    const form = {};
    const given = {};
    let hours;
    for (const [key, value] of Object.entries(calendar)) {
        if (value === undefined) {
            continue;
        }
        if (key === "hours") {
            const specs = typeof value === "string" ? [value] : value;
            if (!Array.isArray(specs) || !specs.every((s) => typeof s === "string")) {
                throw invalidArgument(`${field}.hours`, `${shown(value)} is not hour specs; write ["mon-fri 09:00-17:00"]`);
            }
            hours = specs;
            continue;
        }
        const name = Object.prototype.hasOwnProperty.call(JSON_KEYS, key) ? JSON_KEYS[key] : undefined;
        if (name === undefined) {
            throw invalidArgument(`${field}.${protoName(key)}`, `'${key}' is not a calendar key; the keys are ${ALL_KEYS}`);
        }
        if (name in form) {
            throw invalidArgument(`${field}.${protoName(name)}`, `the calendar's ${name} is given twice (as ${given[name]} and ${key}); give it once`);
        }
        given[name] = key;
        let json = value;
        if (name === "holidays" && Array.isArray(value)) {
            json = value.map((holiday, i) => holidayJson(holiday, i, field));
        }
        else if (name === "weekend" && typeof value === "string") {
            json = { days: parseWeekend(value, `${field}.weekend`) };
        }
        else if (name === "weekend" && Array.isArray(value)) {
            json = { days: value };
        }
        form[name] = json;
    }
    if (hours !== undefined && "workingHours" in form) {
        throw invalidArgument(`${field}.working_hours`, "give hours (the CLI's specs) or workingHours (the JSON form), not both");
    }
    const message = create(CalendarSchema);
    for (const [name, json] of Object.entries(form)) {
        let part;
        try {
            part = fromJson(CalendarSchema, { [name]: json });
        }
        catch (error) {
            const why = error instanceof Error ? error.message : String(error);
            throw invalidArgument(`${field}.${protoName(name)}`, `cannot read it: ${why} (the JSON form of duetime.v1.Calendar)`);
        }
        Object.assign(message, { [name]: part[name] });
    }
    if (hours !== undefined) {
        message.workingHours = create(WorkingHoursSchema, {
            days: parseHours(hours, `${field}.hours`).map(([weekday, intervals]) => create(DayHoursSchema, {
                weekday,
                intervals: intervals.map(([start, end]) => create(TimeIntervalSchema, { start, end })),
            })),
        });
    }
    return message;
}

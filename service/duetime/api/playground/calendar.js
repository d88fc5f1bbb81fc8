// Calendars as the playground draws them: the weekly working hours, weekend,
// date overrides and extra working days of a duetime.v1.Calendar (protobuf
// JSON mapping), and which rule decides each local date's open hours.
//
// The rule order is the service's (docs/semantics.md, "Which rule wins for a
// date"): a date override, then an extra working day, then a holiday, then a
// weekend day, then the weekday's working hours. Holidays themselves are
// never decided here: they are the service's ListHolidays answer.

import { DAY_S, parseWall } from "./time.js";

/** ISO weekdays with their duetime.v1.Weekday enum names. */
export const WEEKDAYS = [
  { iso: 1, name: "Monday", short: "mon", value: "WEEKDAY_MONDAY" },
  { iso: 2, name: "Tuesday", short: "tue", value: "WEEKDAY_TUESDAY" },
  { iso: 3, name: "Wednesday", short: "wed", value: "WEEKDAY_WEDNESDAY" },
  { iso: 4, name: "Thursday", short: "thu", value: "WEEKDAY_THURSDAY" },
  { iso: 5, name: "Friday", short: "fri", value: "WEEKDAY_FRIDAY" },
  { iso: 6, name: "Saturday", short: "sat", value: "WEEKDAY_SATURDAY" },
  { iso: 7, name: "Sunday", short: "sun", value: "WEEKDAY_SUNDAY" },
];

/** ISO number of a Weekday as protobuf JSON gives it (enum name or number). */
function weekdayIso(value) {
  if (typeof value === "number") return value;
  const found = WEEKDAYS.find((day) => day.value === value);
  return found ? found.iso : 0;
}

/** An interval's wall times in seconds: { start, end }, where an end at or
 * before the start (a night shift, "22:00"–"06:00", or "16:00"–"00:00") runs
 * into the next date, so end > 86400 there. Null when a time does not parse. */
function wallInterval(interval) {
  const start = parseWall(interval.start ?? "");
  let end = parseWall(interval.end ?? "");
  if (start === null || end === null) return null;
  if (end <= start) end += DAY_S;
  return { start, end, text: `${interval.start}–${interval.end}` };
}

function wallIntervals(intervals) {
  return (intervals ?? []).map(wallInterval).filter(Boolean);
}

/**
 * The drawable form of a calendar given as protobuf JSON (a GetCalendar
 * answer's `calendar`, or the inline calendar the page sends):
 * { timeZone, weekend: Set<iso>, hours: Map<iso, intervals>,
 *   overrides: Map<date, {closed, name, intervals}>, extraDays: Map<date, name> }.
 * Unset parts take the service's defaults: UTC, Saturday + Sunday,
 * 09:00–17:00 on every day that is not a weekend day.
 */
export function drawableCalendar(calendar) {
  const weekend = calendar.weekend
    ? new Set((calendar.weekend.days ?? []).map(weekdayIso))
    : new Set([6, 7]);
  const hours = new Map();
  if (calendar.workingHours) {
    for (const day of calendar.workingHours.days ?? []) {
      hours.set(weekdayIso(day.weekday), wallIntervals(day.intervals));
    }
  } else {
    for (const day of WEEKDAYS) {
      if (!weekend.has(day.iso)) hours.set(day.iso, wallIntervals([{ start: "09:00", end: "17:00" }]));
    }
  }
  const overrides = new Map(
    (calendar.dateOverrides ?? []).map((o) => [
      o.date,
      { closed: Boolean(o.closed), name: o.name ?? "", intervals: wallIntervals(o.intervals) },
    ]),
  );
  const extraDays = new Map((calendar.extraWorkingDays ?? []).map((e) => [e.date, e.name ?? ""]));
  return { timeZone: calendar.timeZone || "UTC", weekend, hours, overrides, extraDays };
}

/**
 * What decides the local date `date` (ISO weekday `weekday`) and its own
 * open intervals: { rule, business, label, intervals }, with rule one of
 * "override", "extra", "holiday", "weekend", "hours". `holidayName` is the
 * service's holiday name for the date, or undefined when it is none.
 */
export function dayRule(calendar, date, weekday, holidayName) {
  const override = calendar.overrides.get(date);
  if (override) {
    if (override.closed) {
      return { rule: "override", business: false, label: `Closed: ${override.name || "date override"}`, intervals: [] };
    }
    return {
      rule: "override",
      business: true,
      label: `${override.name || "Own hours"} (${override.intervals.map((i) => i.text).join(", ")})`,
      intervals: override.intervals,
    };
  }
  if (calendar.extraDays.has(date)) {
    let intervals = calendar.hours.get(weekday) ?? [];
    if (!intervals.length) {
      const first = WEEKDAYS.find((day) => (calendar.hours.get(day.iso) ?? []).length);
      intervals = first ? calendar.hours.get(first.iso) : [];
    }
    const name = calendar.extraDays.get(date);
    return { rule: "extra", business: true, label: `Extra working day${name ? `: ${name}` : ""}`, intervals };
  }
  if (holidayName !== undefined) {
    return { rule: "holiday", business: false, label: `Holiday: ${holidayName || "(no name)"}`, intervals: [] };
  }
  if (calendar.weekend.has(weekday)) {
    return { rule: "weekend", business: false, label: "Weekend", intervals: [] };
  }
  return { rule: "hours", business: true, label: "", intervals: calendar.hours.get(weekday) ?? [] };
}

/** The open spans to shade on one day's row, in wall seconds [start, end)
 * within 0…86400: the date's own intervals cut at midnight, plus the part of
 * the previous date's night shifts that runs past its midnight. */
export function openSpans(ownIntervals, previousIntervals) {
  const spans = [];
  for (const interval of previousIntervals) {
    if (interval.end > DAY_S) spans.push({ start: 0, end: interval.end - DAY_S, text: interval.text, carried: true });
  }
  for (const interval of ownIntervals) {
    spans.push({ start: interval.start, end: Math.min(interval.end, DAY_S), text: interval.text, carried: false });
  }
  return spans;
}

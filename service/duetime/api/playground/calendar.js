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
 * One week's weekend and hours as protobuf JSON gives them (a Calendar's own
 * `weekend` / `workingHours`, or a week period's): { weekend: Set<iso>,
 * hours: Map<iso, intervals> }. Unset parts take the service's defaults,
 * Saturday + Sunday and 09:00–17:00 on every day that is not a weekend day
 * (for a week period too: the defaults, not the previous week's).
 */
function drawableWeek(weekendJson, workingHoursJson) {
  const weekend = weekendJson
    ? new Set((weekendJson.days ?? []).map(weekdayIso))
    : new Set([6, 7]);
  const hours = new Map();
  if (workingHoursJson) {
    for (const day of workingHoursJson.days ?? []) {
      hours.set(weekdayIso(day.weekday), wallIntervals(day.intervals));
    }
  } else {
    for (const day of WEEKDAYS) {
      if (!weekend.has(day.iso)) hours.set(day.iso, wallIntervals([{ start: "09:00", end: "17:00" }]));
    }
  }
  return { weekend, hours };
}

/**
 * The drawable form of a calendar given as protobuf JSON (a GetCalendar
 * answer's `calendar`, or the inline calendar the page sends):
 * { timeZone, weekend: Set<iso>, hours: Map<iso, intervals>,
 *   weeks: [{ from: "YYYY-MM-DD", weekend, hours }],
 *   overrides: Map<date, {closed, name, intervals}>, extraDays: Map<date, name> }.
 * `weekend` and `hours` are the calendar's own week; `weeks` its week
 * periods (docs/semantics.md §16, "Weeks that change by date") in `from`
 * order, each holding from its `from` date until the next one's.
 * Unset parts take the service's defaults: UTC, Saturday + Sunday,
 * 09:00–17:00 on every day that is not a weekend day.
 */
export function drawableCalendar(calendar) {
  const own = drawableWeek(calendar.weekend, calendar.workingHours);
  const weeks = (calendar.weekPeriods ?? [])
    .map((period) => ({ from: period.fromDate ?? "", ...drawableWeek(period.weekend, period.workingHours) }))
    .sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
  const overrides = new Map(
    (calendar.dateOverrides ?? []).map((o) => [
      o.date,
      { closed: Boolean(o.closed), name: o.name ?? "", intervals: wallIntervals(o.intervals) },
    ]),
  );
  const extraDays = new Map((calendar.extraWorkingDays ?? []).map((e) => [e.date, e.name ?? ""]));
  return { timeZone: calendar.timeZone || "UTC", weekend: own.weekend, hours: own.hours, weeks, overrides, extraDays };
}

/** The week in force on local date `date` ("YYYY-MM-DD"): the last week
 * period whose `from` is on or before it, else the calendar's own week. */
export function weekOn(calendar, date) {
  let week = calendar;
  for (const period of calendar.weeks ?? []) {
    if (period.from <= date) week = period;
    else break;
  }
  return week;
}

/**
 * What decides the local date `date` (ISO weekday `weekday`) and its own
 * open intervals: { rule, business, label, intervals }, with rule one of
 * "override", "extra", "holiday", "weekend", "hours". `holidayName` is the
 * service's holiday name for the date, or undefined when it is none.
 * "Weekend" and the weekday's hours are those of the week in force on the
 * date (`weekOn`); an extra working day takes its hours from that week.
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
  const week = weekOn(calendar, date);
  if (calendar.extraDays.has(date)) {
    let intervals = week.hours.get(weekday) ?? [];
    if (!intervals.length) {
      const first = WEEKDAYS.find((day) => (week.hours.get(day.iso) ?? []).length);
      intervals = first ? week.hours.get(first.iso) : [];
    }
    const name = calendar.extraDays.get(date);
    return { rule: "extra", business: true, label: `Extra working day${name ? `: ${name}` : ""}`, intervals };
  }
  if (holidayName !== undefined) {
    return { rule: "holiday", business: false, label: `Holiday: ${holidayName || "(no name)"}`, intervals: [] };
  }
  if (week.weekend.has(weekday)) {
    return { rule: "weekend", business: false, label: "Weekend", intervals: [] };
  }
  return { rule: "hours", business: true, label: "", intervals: week.hours.get(weekday) ?? [] };
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

/** The week period (`drawableCalendar`'s `weeks`) that starts on local date
 * `date`, or undefined when none does. */
export function weekStartingOn(calendar, date) {
  return (calendar.weeks ?? []).find((week) => week.from === date);
}

/** A week in words, as the service's explanations say it: "weekend Monday,
 * Saturday, Sunday; Tuesday–Friday 08:00–17:00" (days in a row with the
 * same hours joined; "no weekend", "closed all week" when so). */
export function describeWeek(week) {
  const weekend = WEEKDAYS.filter((day) => week.weekend.has(day.iso)).map((day) => day.name);
  const parts = [weekend.length ? `weekend ${weekend.join(", ")}` : "no weekend"];
  const runs = [];
  for (const day of WEEKDAYS) {
    const text = (week.hours.get(day.iso) ?? []).map((i) => i.text).join(", ");
    if (!text || week.weekend.has(day.iso)) continue;
    const last = runs[runs.length - 1];
    if (last && last.text === text && last.to.iso === day.iso - 1) last.to = day;
    else runs.push({ from: day, to: day, text });
  }
  for (const run of runs) {
    const days = run.from === run.to ? run.from.name : `${run.from.name}–${run.to.name}`;
    parts.push(`${days} ${run.text}`);
  }
  if (!runs.length) parts.push("closed all week");
  return parts.join("; ");
}

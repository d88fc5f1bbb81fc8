// The timeline: the weeks from the entry to the last deadline, one row per
// local date, drawn on a 24-hour wall-clock axis of the calendar's zone.
//
// Each row shades the date's open hours (from the working hours of the week
// in force on the date, overrides and extra working days, docs/semantics.md
// "Which rule wins for a date" and "Weeks that change by date"), says where a
// week period starts, names its holiday (the service's ListHolidays answer) or weekend,
// marks a change of the zone's UTC offset with the new offset, and pins every
// deadline due on it with its local and UTC time (the service's answer). A
// pin is a button: hovering, focusing or clicking it shows the deadline's
// explanation.

import { dayRule, describeWeek, openSpans, weekStartingOn } from "./calendar.js";
import {
  DAY_S,
  addDays,
  daysBetween,
  formatDateShort,
  formatOffset,
  formatWall,
  isoWeekName,
  isoWeekday,
  mondayOf,
  offsetChangeOn,
  wallOf,
} from "./time.js";

/** Spans up to this many weeks are drawn whole. */
export const WHOLE_SPAN_WEEKS = 8;
/** At most this many weeks are drawn; the rest are said to be left out. */
export const MAX_WEEKS = 26;

/**
 * The weeks to draw for the local dates of the entry and of the deadlines:
 * every week from the first to the last when that is at most
 * WHOLE_SPAN_WEEKS weeks, else only the weeks that hold one of the dates
 * (with the number of weeks between them left out), at most MAX_WEEKS.
 * Returns { mondays: [date], leftOut: weeks of dates not drawn }.
 */
export function weeksToDraw(dates) {
  const mondays = [...new Set(dates.map(mondayOf))].sort();
  const span = daysBetween(mondays[0], mondays.at(-1)) / 7 + 1;
  if (span <= WHOLE_SPAN_WEEKS) {
    return { mondays: Array.from({ length: span }, (_, i) => addDays(mondays[0], 7 * i)), leftOut: 0 };
  }
  return { mondays: mondays.slice(0, MAX_WEEKS), leftOut: Math.max(0, mondays.length - MAX_WEEKS) };
}

/** The drawn weeks as runs of consecutive weeks, each { first, last } local
 * date (Monday … Sunday): the date ranges to ask the service's holidays for. */
export function dateRanges(mondays) {
  const ranges = [];
  for (const monday of mondays) {
    const last = ranges.at(-1);
    if (last && addDays(last.last, 1) === monday) last.last = addDays(monday, 6);
    else ranges.push({ first: monday, last: addDays(monday, 6) });
  }
  return ranges;
}

function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "testid") node.dataset.testid = value;
    else if (key === "style") node.style.cssText = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  node.append(...children.filter((child) => child !== null && child !== undefined));
  return node;
}

const percent = (seconds) => `${((seconds / DAY_S) * 100).toFixed(4)}%`;

function hourAxis() {
  const axis = element("div", { class: "axis", "aria-hidden": "true" });
  for (let hour = 0; hour <= 24; hour += 3) {
    axis.append(element("span", { style: `left: ${percent(hour * 3600)}` }, String(hour).padStart(2, "0")));
  }
  return axis;
}

function marker(kind, seconds, label, extra = {}) {
  return element("span", { class: `marker marker-${kind}`, style: `left: ${percent(seconds)}`, title: label, ...extra });
}

/**
 * Draws the timeline into `container` (emptied first).
 *
 * model: { zone, calendar (calendar.js drawableCalendar), holidays:
 * Map<date, name>, entry: { us, local }, deadlines: [{ name, dueUs, dueLocal
 * (the service's text), dueUtc, local: { date, seconds, offset } }], mondays,
 * leftOut, now: { us, local } | null, fired: Set<name>, missing: [text] }.
 * onPin(deadline, pinned): called when a pin is hovered/focused (pinned
 * false) or clicked (pinned true).
 */
export function drawTimeline(container, model, onPin) {
  container.replaceChildren();
  const entryWall = wallOf(model.entry.us, model.zone);
  const nowWall = model.now ? wallOf(model.now.us, model.zone) : null;
  const table = element("table", { class: "timeline", testid: "timeline-table" });
  table.append(
    element(
      "caption",
      {},
      `Local time in ${model.zone}; shaded: open hours. `,
      model.leftOut ? `${model.leftOut} more week(s) with deadlines are not drawn.` : "",
    ),
    element(
      "thead",
      {},
      element(
        "tr",
        {},
        element("th", { scope: "col" }, "Date"),
        element("th", { scope: "col" }, element("span", { class: "visually-hidden" }, "Hours, 00–24"), hourAxis()),
        element("th", { scope: "col" }, "Notes and deadlines"),
      ),
    ),
  );
  let previousMonday = null;
  for (const monday of model.mondays) {
    const body = element("tbody", { testid: "week", "data-week": isoWeekName(monday) });
    if (previousMonday && daysBetween(previousMonday, monday) > 7) {
      const skipped = daysBetween(previousMonday, monday) / 7 - 1;
      body.append(
        element(
          "tr",
          { class: "gap", testid: "week-gap" },
          element("td", { colspan: "3" }, `⋯ ${skipped} week(s) without a deadline are not drawn ⋯`),
        ),
      );
    }
    body.append(
      element(
        "tr",
        { class: "week-head" },
        element("th", { colspan: "3", scope: "rowgroup" }, `Week ${isoWeekName(monday)}, from ${formatDateShort(monday)}`),
      ),
    );
    for (let i = 0; i < 7; i += 1) {
      body.append(dayRow(model, addDays(monday, i), entryWall, nowWall, onPin));
    }
    table.append(body);
    previousMonday = monday;
  }
  keepTableRoles(table);
  container.append(table);
}

/** Names each part of `table` by its table role: a narrow timeline lays its
 * rows out as grids (playground.css), which would otherwise hide from
 * assistive technology that it is a table. */
function keepTableRoles(table) {
  table.setAttribute("role", "table");
  const roles = { THEAD: "rowgroup", TBODY: "rowgroup", TR: "row", TD: "cell" };
  for (const part of table.querySelectorAll("thead, tbody, tr, th, td")) {
    const role = part.tagName === "TH" ? (part.scope === "col" ? "columnheader" : "rowheader") : roles[part.tagName];
    part.setAttribute("role", role);
  }
}

function dayRow(model, date, entryWall, nowWall, onPin) {
  const weekday = isoWeekday(date);
  const rule = dayRule(model.calendar, date, weekday, model.holidays.get(date));
  const previous = addDays(date, -1);
  const previousRule = dayRule(model.calendar, previous, isoWeekday(previous), model.holidays.get(previous));
  const spans = openSpans(rule.intervals, previousRule.intervals);
  const openText = spans.map((s) => `${formatWall(s.start)}–${formatWall(s.end)}`).join(", ");

  const bar = element("div", { class: "bar", role: "img", "aria-label": openText ? `open ${openText}` : "closed all day" });
  for (const span of spans) {
    bar.append(
      element("span", {
        class: span.carried ? "open carried" : "open",
        style: `left: ${percent(span.start)}; width: ${percent(span.end - span.start)}`,
        title: span.carried ? `open ${span.text} (from the day before)` : `open ${span.text}`,
      }),
    );
  }
  const notes = element("div", { class: "notes" });
  if (rule.label) notes.append(element("span", { class: `label label-${rule.rule}`, testid: "day-label" }, rule.label));
  const week = weekStartingOn(model.calendar, date);
  if (week) {
    notes.append(element("span", { class: "label label-week", testid: "week-period" }, `From ${date}: ${describeWeek(week)}`));
  }

  const change = offsetChangeOn(model.zone, date);
  if (change) {
    const text = `Clocks ${formatWall(change.wallBefore)} → ${formatWall(change.wallAfter)}: UTC offset now ${formatOffset(change.to)}`;
    notes.append(element("span", { class: "label label-dst", testid: "dst", "data-offset": formatOffset(change.to) }, text));
    bar.append(marker("dst", change.wallBefore % DAY_S, text, { "aria-hidden": "true" }));
  }
  if (entryWall.date === date) {
    const text = `Entry ${model.entry.local}`;
    bar.append(marker("entry", entryWall.seconds, text, { "aria-hidden": "true" }));
    notes.append(element("span", { class: "label label-entry", testid: "entry-mark" }, text));
  }
  if (nowWall && nowWall.date === date) {
    bar.append(marker("now", nowWall.seconds, `Now ${model.now.local}`, { testid: "now-mark", "aria-hidden": "true" }));
  }
  const due = model.deadlines.filter((d) => d.local.date === date).sort((a, b) => a.dueUs - b.dueUs);
  for (const deadline of due) {
    const fired = model.fired.has(deadline.name);
    bar.append(marker("deadline", deadline.local.seconds, `${deadline.name} ${deadline.dueLocal}`, { "aria-hidden": "true", class: `marker marker-deadline${fired ? " fired" : ""}` }));
    const pin = element(
      "button",
      {
        type: "button",
        class: fired ? "pin fired" : "pin",
        testid: "pin",
        "data-deadline": deadline.name,
        "aria-describedby": "explanation",
      },
      element("strong", {}, deadline.name),
      " ",
      element("time", { datetime: deadline.dueUtc, testid: "pin-local" }, deadline.dueLocal),
      " = ",
      element("span", { testid: "pin-utc" }, deadline.dueUtc),
      fired ? element("span", { class: "fired-badge" }, " fired") : null,
    );
    pin.addEventListener("mouseenter", () => onPin(deadline, false));
    pin.addEventListener("focus", () => onPin(deadline, false));
    pin.addEventListener("click", () => onPin(deadline, true));
    notes.append(pin);
  }
  const classes = ["day", `rule-${rule.rule}`];
  if (!rule.business) classes.push("closed");
  if (nowWall && nowWall.date === date) classes.push("today");
  return element(
    "tr",
    { class: classes.join(" "), testid: "day", "data-date": date, "data-open": openText, "data-rule": rule.rule },
    element("th", { scope: "row", class: "date" }, formatDateShort(date)),
    element("td", { class: "hours" }, bar),
    element("td", {}, notes),
  );
}

/** Marks the rows of the dates an explanation's steps are about. */
export function highlightSteps(container, steps) {
  const kinds = new Map(steps.filter((s) => s.localDate).map((s) => [s.localDate, s.kind]));
  for (const row of container.querySelectorAll("tr.day")) {
    const kind = kinds.get(row.dataset.date);
    if (kind) row.dataset.step = kind;
    else delete row.dataset.step;
  }
}

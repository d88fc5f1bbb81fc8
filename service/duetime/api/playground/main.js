// The playground page: a calendar, a stage's entry time and its deadlines in;
// ComputeSchedule (explain = true) and ListHolidays answers out, drawn on a
// timeline, with a simulated clock that skips from deadline to deadline.
// The SLA panel lives in sla.js.

import {
  ServiceError,
  apiToken,
  computeSchedule,
  getCalendar,
  listCalendars,
  listHolidays,
  setApiToken,
  watchToken,
} from "./api.js";
import { WEEKDAYS, drawableCalendar } from "./calendar.js";
import { FieldErrors, attachErrorSlot } from "./errors.js";
import { setUpSlaPanel } from "./sla.js";
import {
  InputError,
  UnknownZoneError,
  formatLocal,
  formatUtc,
  knowsZone,
  parseDateTime,
  parseTimestamp,
  splitLocal,
} from "./time.js";
import { dateRanges, drawTimeline, highlightSteps, weeksToDraw } from "./timeline.js";

const byTestId = (testid, root = document) => root.querySelector(`[data-testid="${testid}"]`);

/** A stage's deadlines as a workflow usually has them (docs/semantics.md,
 * "Schedules"). */
const DEFAULT_DEADLINES = [
  { name: "remind", duration: "2bd", after: "" },
  { name: "escalate", duration: "5bd", after: "" },
  { name: "expire", duration: "30d", after: "" },
];

/** The README's example: Friday 2026-11-27 16:00 in Zagreb, Christmas holidays. */
const EXAMPLE = {
  timeZone: "Europe/Zagreb",
  holidays: [
    { date: "2026-12-25", name: "Christmas Day" },
    { date: "2026-12-26", name: "St. Stephen's Day" },
  ],
  entry: "2026-11-27T16:00+01:00",
};

const form = byTestId("schedule-form");
const errors = new FieldErrors(byTestId("form-error"));
const fields = {
  timeZone: byTestId("time-zone"),
  bundle: byTestId("bundle"),
  weekend: byTestId("weekend"),
  holidays: byTestId("holidays"),
  entry: byTestId("entry"),
  deadlines: byTestId("deadlines"),
  atClose: byTestId("at-close"),
};
const hours = new Map(); // ISO weekday → its working-hours input
const bundles = new Map(); // bundle name → GetCalendarResponse (loaded on demand)

/** The bundle list being fetched, if it is. */
let listing = null;
/** The calendar source the form shows ("inline" or "bundle"), and the
 * holiday rows of the other one, put aside until it is chosen again: an
 * inline calendar's holidays are not a bundle's extra holidays. */
let shownSource = "inline";
const asideHolidays = { inline: [], bundle: [] };
/** The last schedule drawn and the simulated clock over it. */
let shown = null;
let runs = 0;

// ---- the form ---------------------------------------------------------------------

function textInput(testid, value, label, attributes = {}) {
  const input = document.createElement("input");
  Object.assign(input, { type: "text", value, spellcheck: false, ...attributes });
  input.dataset.testid = testid;
  if (label) input.setAttribute("aria-label", label);
  return input;
}

function removeButton(row, label) {
  const button = document.createElement("button");
  Object.assign(button, { type: "button", textContent: "Remove", className: "small" });
  button.setAttribute("aria-label", label);
  button.addEventListener("click", () => row.remove());
  return button;
}

function buildWeekdayInputs() {
  for (const day of WEEKDAYS) {
    const label = document.createElement("label");
    const box = Object.assign(document.createElement("input"), { type: "checkbox", value: day.value });
    box.dataset.testid = `weekend-${day.short}`;
    box.checked = day.iso >= 6;
    label.append(box, ` ${day.name}`);
    fields.weekend.append(label);

    const row = document.createElement("p");
    const input = textInput(`hours-${day.short}`, day.iso <= 5 ? "09:00-17:00" : "", "", { size: 26, id: `hours-${day.short}` });
    const name = Object.assign(document.createElement("label"), { htmlFor: input.id, textContent: day.name });
    row.append(name, input);
    form.querySelector("fieldset.hours").append(row);
    attachErrorSlot(input);
    hours.set(day.iso, input);
  }
  attachErrorSlot(fields.weekend);
}

function addHoliday(holiday = { date: "", name: "" }) {
  const row = document.createElement("li");
  row.dataset.testid = "holiday-row";
  const number = fields.holidays.children.length + 1;
  const date = textInput("holiday-date", holiday.date, `holiday ${number}: local date`, { size: 11, placeholder: "YYYY-MM-DD" });
  const name = textInput("holiday-name", holiday.name, `holiday ${number}: name`, { size: 22, placeholder: "name (optional)" });
  row.append(date, name, removeButton(row, `remove holiday ${number}`));
  attachErrorSlot(date);
  attachErrorSlot(name);
  fields.holidays.append(row);
}

function addDeadline(deadline = { name: "", duration: "", after: "" }) {
  const row = document.createElement("li");
  row.dataset.testid = "deadline-row";
  const number = fields.deadlines.children.length + 1;
  const name = textInput("deadline-name", deadline.name, `deadline ${number}: name`, { size: 12, placeholder: "name" });
  const duration = textInput("deadline-duration", deadline.duration, `deadline ${number}: duration`, { size: 8, placeholder: "2bd" });
  const after = textInput("deadline-after", deadline.after, `deadline ${number}: after (another deadline's name)`, {
    size: 12,
    placeholder: "after (optional)",
  });
  row.append(name, duration, after, removeButton(row, `remove deadline ${number}`));
  for (const input of [name, duration, after]) attachErrorSlot(input);
  fields.deadlines.append(row);
}

function source() {
  return form.querySelector("input[name=source]:checked").value;
}

/** Shows the inputs of the chosen calendar source. On a change of source the
 * holiday rows swap: the ones typed for the other source are put aside (not
 * sent) and those of the chosen one come back (none the first time), so a
 * bundle starts without extra holidays and inline gets its holidays back.
 * Inline's zone, weekend and hours stay in their hidden inputs and are sent
 * only with an inline calendar (scheduleRequest). */
function showSource() {
  const chosen = source();
  if (chosen !== shownSource) {
    asideHolidays[shownSource] = [...fields.holidays.children];
    fields.holidays.replaceChildren(...asideHolidays[chosen]);
    asideHolidays[chosen] = [];
    shownSource = chosen;
  }
  const bundle = chosen === "bundle";
  form.querySelector("[data-part=bundle]").hidden = !bundle;
  form.querySelector("[data-part=inline]").hidden = bundle;
  form.querySelector("[data-part-label=holidays]").textContent = bundle
    ? "Extra holidays (added to the bundle's)"
    : "Holidays";
  if (bundle) loadBundle().catch(() => {});
}

/** Splits "09:00-12:00, 13:00-17:00" into TimeIntervals (the times are left
 * for the service to check); throws InputError on a part without a dash. */
function parseHours(text) {
  return text
    .split(/[,;]/)
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const m = /^(\S+?)\s*[-–]\s*(\S+)$/.exec(part);
      if (!m) throw new InputError(`'${part}' is not an interval: write 09:00-12:00, 13:00-17:00`);
      return { start: m[1], end: m[2] };
    });
}

/** The GetCalendar answer for the selected bundle (fetched once). An answer
 * that arrives after another bundle was selected is kept but not shown: the
 * info line always speaks of the bundle selected now. */
async function loadBundle() {
  const name = fields.bundle.value;
  const info = byTestId("bundle-info");
  if (!name) return null;
  if (!bundles.has(name)) bundles.set(name, await getCalendar(name));
  const answer = bundles.get(name);
  if (fields.bundle.value !== name) return answer;
  info.textContent = bundleInfo(answer);
  showEntryResolution();
  return answer;
}

/** The info line of a GetCalendar answer: its description, its time zone
 * (once: not again when the description names it), its years and version. */
function bundleInfo(answer) {
  const { description = "", timeZone = "UTC", firstYear, lastYear } = answer.info;
  const zone = description.includes(timeZone) ? "" : `; time zone ${timeZone}`;
  return `${description}${zone}; holidays ${firstYear}–${lastYear}; version ${answer.version}`;
}

/** The calendar's time zone as far as the form knows it. */
function formZone() {
  if (source() === "bundle") return bundles.get(fields.bundle.value)?.info.timeZone ?? "UTC";
  return fields.timeZone.value.trim() || "UTC";
}

/** Says under the entry input which instant it names. */
function showEntryResolution() {
  const output = byTestId("entry-resolved");
  const zone = formZone();
  try {
    const parsed = parseDateTime(fields.entry.value, zone);
    const how = { gap: " (a DST gap: moved forward by its length)", fold: " (happens twice: the earlier)" }[parsed.how] ?? "";
    output.textContent = knowsZone(zone)
      ? `= ${formatLocal(parsed.us, zone)} in ${zone} = ${formatUtc(parsed.us)}${how}`
      : `= ${formatUtc(parsed.us)}`;
  } catch {
    output.textContent = "";
  }
}

/**
 * The ComputeScheduleRequest the form describes, each input registered under
 * the request path the service names in its errors. Returns null (after
 * showing why next to the inputs) when an input cannot be read.
 */
async function scheduleRequest() {
  errors.reset();
  let bad = false;
  const fail = (input, message) => {
    errors.showOn(input, message);
    bad = true;
  };
  const calendar = {};
  let bundle = null;
  if (source() === "bundle") {
    errors.register("calendar.bundle", fields.bundle);
    errors.register("name", fields.bundle);
    calendar.bundle = fields.bundle.value;
    if (!calendar.bundle) {
      errors.showOn(fields.bundle, "choose a bundle (the service lists none: use an inline calendar)");
      return null;
    }
    try {
      bundle = await loadBundle();
    } catch (exc) {
      errors.showError(exc);
      return null;
    }
  } else {
    errors.register("calendar.time_zone", fields.timeZone);
    errors.register("calendar.weekend", fields.weekend);
    calendar.timeZone = fields.timeZone.value.trim();
    calendar.weekend = { days: [...fields.weekend.querySelectorAll("input:checked")].map((box) => box.value) };
    calendar.workingHours = { days: [] };
    for (const day of WEEKDAYS) {
      const input = hours.get(day.iso);
      try {
        const intervals = parseHours(input.value);
        if (!intervals.length) continue;
        errors.register(`calendar.working_hours.days[${calendar.workingHours.days.length}]`, input);
        calendar.workingHours.days.push({ weekday: day.value, intervals });
      } catch (exc) {
        fail(input, exc.message);
      }
    }
  }
  const holidays = [];
  for (const row of fields.holidays.children) {
    const [date, name] = row.querySelectorAll("input");
    if (!date.value.trim() && !name.value.trim()) continue;
    errors.register(`calendar.holidays[${holidays.length}]`, date);
    errors.register(`calendar.holidays[${holidays.length}].date`, date);
    errors.register(`calendar.holidays[${holidays.length}].name`, name);
    holidays.push({ date: date.value.trim(), ...(name.value.trim() ? { name: name.value.trim() } : {}) });
  }
  if (holidays.length) calendar.holidays = holidays;

  const zone = bundle ? bundle.info.timeZone : calendar.timeZone || "UTC";
  errors.register("entered_time", fields.entry);
  let entryUs = null;
  try {
    entryUs = parseDateTime(fields.entry.value, zone).us;
  } catch (exc) {
    fail(exc instanceof UnknownZoneError && !bundle ? fields.timeZone : fields.entry, exc.message);
  }
  errors.register("deadlines", fields.deadlines);
  const deadlines = [];
  [...fields.deadlines.children].forEach((row, i) => {
    const [name, duration, after] = row.querySelectorAll("input");
    errors.register(`deadlines[${i}]`, name);
    errors.register(`deadlines[${i}].name`, name);
    errors.register(`deadlines[${i}].duration`, duration);
    errors.register(`deadlines[${i}].after`, after);
    const deadline = { name: name.value.trim(), duration: duration.value.trim() };
    if (after.value.trim()) deadline.after = after.value.trim();
    deadlines.push(deadline);
  });
  errors.register("at_close", fields.atClose);
  if (bad) return null;
  return {
    request: {
      enteredTime: formatUtc(entryUs),
      calendar,
      deadlines,
      atClose: fields.atClose.value,
      explain: true,
    },
    bundle,
    entryUs,
  };
}

// ---- answers ----------------------------------------------------------------------

function setStatus(text) {
  byTestId("results-status").textContent = text;
}

/** Says how many due times were computed and which deadline is due next
 * after the clock's now (the entry until the clock is moved on): the first
 * listed among those due earliest, as the service's next_due. */
function showNextDue() {
  const ahead = shown.deadlines.filter((d) => d.dueUs > shown.now.us);
  const count = `${shown.deadlines.length} due time(s) in ${shown.zone}`;
  if (!ahead.length) {
    setStatus(`${count}; no deadline left after ${shown.now.local}.`);
    return;
  }
  const next = ahead.reduce((first, d) => (d.dueUs < first.dueUs ? d : first));
  setStatus(`${count}; next due: ${next.name} at ${next.dueLocal}.`);
}

async function compute() {
  const run = ++runs;
  const built = await scheduleRequest();
  if (!built) {
    clearResults();
    setStatus("Not computed: see the errors next to the fields.");
    errors.focusFirst();
    return;
  }
  setStatus("Computing…");
  let answer;
  try {
    answer = await computeSchedule(built.request);
  } catch (exc) {
    if (run !== runs) return;
    errors.showError(exc);
    setStatus("The service refused the request: see the errors next to the fields.");
    clearResults();
    errors.focusFirst();
    return;
  }
  if (run !== runs) return;
  const zone = answer.timeZone || "UTC";
  const durations = built.request.deadlines;
  const deadlines = (answer.deadlines ?? []).map((d, i) => {
    const dueUs = parseTimestamp(d.dueTime);
    return {
      name: d.name,
      duration: durations[i]?.duration ?? "",
      after: d.after ?? "",
      dueUs,
      dueUtc: d.dueTime,
      dueLocal: d.dueLocal,
      local: splitLocal(d.dueLocal),
      explanation: d.explanation ?? [],
    };
  });
  showDueTable(deadlines, answer);
  const entry = { us: built.entryUs, local: knowsZone(zone) ? formatLocal(built.entryUs, zone) : formatUtc(built.entryUs) };
  shown = { zone, entry, deadlines, calendar: null, holidays: new Map(), mondays: [], leftOut: 0, now: null, fired: new Set() };
  resetClock();
  await drawAnswer(built, answer, run);
}

function clearResults() {
  shown = null;
  byTestId("due-table").hidden = true;
  byTestId("versions").textContent = "";
  byTestId("warnings").replaceChildren();
  byTestId("timeline").replaceChildren();
  byTestId("timeline-status").textContent = "";
  resetClock();
}

function showDueTable(deadlines, answer) {
  const table = byTestId("due-table");
  const body = table.tBodies[0];
  body.replaceChildren();
  for (const deadline of deadlines) {
    const row = body.insertRow();
    row.dataset.testid = "due-row";
    row.dataset.deadline = deadline.name;
    const cells = [
      [deadline.name, "due-name"],
      [`${deadline.duration} ${deadline.after ? `after ${deadline.after}` : "from the entry"}`, "due-counted"],
      [deadline.dueLocal, "due-local"],
      [deadline.dueUtc, "due-utc"],
    ];
    const labels = ["Deadline", "Counted", "Due (local)", "Due (UTC)"];
    row.setAttribute("role", "row");
    cells.forEach(([text, testid], i) => {
      const cell = row.insertCell();
      cell.dataset.testid = testid;
      cell.dataset.label = labels[i];
      cell.setAttribute("role", "cell");
      // one span (one grid item in the narrow layout); a timestamp may
      // break between its date and its time there
      const span = document.createElement("span");
      const at = testid.startsWith("due-l") || testid.startsWith("due-u") ? text.indexOf("T") : -1;
      if (at > 0) span.append(text.slice(0, at), document.createElement("wbr"), text.slice(at));
      else span.textContent = text;
      cell.append(span);
    });
    const explain = Object.assign(document.createElement("button"), { type: "button", textContent: "Explain", className: "small" });
    explain.dataset.testid = "explain";
    explain.setAttribute("aria-label", `explain ${deadline.name}`);
    explain.addEventListener("click", () => showExplanation(deadline, true));
    const why = row.insertCell();
    why.setAttribute("role", "cell");
    why.dataset.label = "Why";
    why.append(explain);
  }
  table.hidden = false;
  byTestId("versions").textContent =
    `calendar ${answer.calendarVersion}, rules ${answer.rulesVersion}, tzdata ${answer.tzdataVersion}; record ${answer.recordId}`;
  byTestId("versions").title = `record ${answer.recordId}`;
  byTestId("warnings").replaceChildren(
    ...(answer.warnings ?? []).map((w) => Object.assign(document.createElement("li"), { textContent: `warning: ${w}` })),
  );
}

/** Fetches the holidays of the drawn weeks (the service's ListHolidays, same
 * calendar) and draws the timeline. */
async function drawAnswer(built, answer, run) {
  const status = byTestId("timeline-status");
  status.textContent = "";
  if (!knowsZone(shown.zone)) {
    status.textContent = `This browser does not know the time zone ${shown.zone}: no timeline (the due times above are the service's).`;
    byTestId("timeline").replaceChildren();
    return;
  }
  const { mondays, leftOut } = weeksToDraw([splitLocal(shown.entry.local).date, ...shown.deadlines.map((d) => d.local.date)]);
  let ranges = dateRanges(mondays);
  if (built.bundle) {
    // A bundle answers only inside its years (OUT_OF_RANGE outside them).
    const [first, last] = [`${built.bundle.info.firstYear}-01-01`, `${built.bundle.info.lastYear}-12-31`];
    ranges = ranges
      .map((r) => ({ first: r.first < first ? first : r.first, last: r.last > last ? last : r.last }))
      .filter((r) => r.first <= r.last);
  }
  const holidays = new Map();
  const problems = [];
  await Promise.all(
    ranges.map(async (range) => {
      try {
        const listed = await listHolidays({ calendar: built.request.calendar, startDate: range.first, endDate: range.last });
        for (const h of listed.holidays ?? []) holidays.set(h.date, h.name ?? "");
      } catch (exc) {
        problems.push(`holidays from ${range.first} to ${range.last} could not be listed (${exc.message}); those dates are drawn without holidays`);
      }
    }),
  );
  if (run !== runs) return;
  status.textContent = problems.join(" ");
  Object.assign(shown, {
    calendar: drawableCalendar(built.bundle ? built.bundle.calendar : built.request.calendar),
    holidays,
    mondays,
    leftOut,
  });
  redraw();
}

function redraw() {
  if (!shown?.calendar) return;
  drawTimeline(byTestId("timeline"), shown, showExplanation);
}

/** Shows a deadline's explanation steps (the service's, explain = true). */
function showExplanation(deadline, clicked) {
  byTestId("explanation-title").textContent = `${deadline.name}: ${deadline.duration} ${
    deadline.after ? `after ${deadline.after}` : "from the entry"
  }, due ${deadline.dueLocal}`;
  byTestId("explanation-steps").replaceChildren(
    ...deadline.explanation.map((step) => {
      const item = document.createElement("li");
      item.dataset.kind = step.kind;
      item.textContent = step.text;
      return item;
    }),
  );
  highlightSteps(byTestId("timeline"), deadline.explanation);
  for (const pin of document.querySelectorAll("[data-testid=pin]")) {
    pin.classList.toggle("selected", clicked && pin.dataset.deadline === deadline.name);
  }
  if (clicked) showInView(byTestId("explanation"));
}

/** Scrolls the page the least that brings `element` into the viewport (its
 * top when it is taller than the viewport); nothing when it is in view. */
function showInView(element) {
  const box = element.getBoundingClientRect();
  if (box.top >= 0 && box.bottom <= window.innerHeight) return;
  const block = box.height > window.innerHeight ? "start" : "nearest";
  element.scrollIntoView({ block, inline: "nearest", behavior: "instant" });
}

// ---- the clock --------------------------------------------------------------------

function resetClock() {
  const now = byTestId("clock-now");
  byTestId("clock-fired").textContent = "";
  byTestId("clock-log").replaceChildren();
  if (!shown) {
    now.textContent = "–";
    byTestId("skip").disabled = byTestId("reset").disabled = true;
    return;
  }
  shown.now = { us: shown.entry.us, local: shown.entry.local };
  shown.fired = new Set();
  showNextDue();
  now.textContent = `${shown.entry.local} (entry)`;
  byTestId("skip").disabled = !shown.deadlines.some((d) => d.dueUs > shown.entry.us);
  byTestId("reset").disabled = false;
  redraw();
}

/** Moves the simulated now to the next due time after it and fires every
 * deadline due then. */
function skipToNextDeadline() {
  const ahead = shown.deadlines.filter((d) => d.dueUs > shown.now.us);
  if (!ahead.length) return;
  const next = Math.min(...ahead.map((d) => d.dueUs));
  const firing = ahead.filter((d) => d.dueUs === next);
  shown.now = { us: next, local: firing[0].dueLocal };
  for (const d of firing) shown.fired.add(d.name);
  const text = `${firing.map((d) => d.name).join(", ")} fired at ${firing[0].dueLocal} (${firing[0].dueUtc})`;
  const fired = byTestId("clock-fired");
  fired.textContent = text;
  fired.dataset.fired = firing.map((d) => d.name).join(",");
  byTestId("clock-now").textContent = firing[0].dueLocal;
  byTestId("clock-log").append(Object.assign(document.createElement("li"), { textContent: text }));
  byTestId("skip").disabled = !shown.deadlines.some((d) => d.dueUs > next);
  if (byTestId("skip").disabled) byTestId("clock-log").append(Object.assign(document.createElement("li"), { textContent: "no deadline left" }));
  showNextDue();
  redraw();
}

// ---- start ------------------------------------------------------------------------

function loadExample() {
  form.querySelector("input[name=source][value=inline]").checked = true;
  showSource();
  fields.timeZone.value = EXAMPLE.timeZone;
  for (const day of WEEKDAYS) {
    fields.weekend.querySelector(`[data-testid=weekend-${day.short}]`).checked = day.iso >= 6;
    hours.get(day.iso).value = day.iso <= 5 ? "09:00-17:00" : "";
  }
  fields.holidays.replaceChildren();
  EXAMPLE.holidays.forEach(addHoliday);
  fields.deadlines.replaceChildren();
  DEFAULT_DEADLINES.forEach(addDeadline);
  fields.entry.value = EXAMPLE.entry;
  showEntryResolution();
  form.requestSubmit();
}

async function loadBundleList() {
  const info = byTestId("bundle-info");
  info.textContent = "";
  try {
    const answer = await listCalendars();
    for (const c of answer.calendars ?? []) {
      const option = document.createElement("option");
      option.value = c.name;
      option.textContent = `${c.name} (${c.timeZone}, ${c.firstYear}–${c.lastYear})`;
      fields.bundle.append(option);
    }
    if (!fields.bundle.options.length) info.textContent = "The service has no calendar bundles.";
  } catch (exc) {
    info.textContent = `The bundles could not be listed: ${exc instanceof ServiceError ? exc.message : exc}`;
  }
}

/** The API token input: its value is the token api.js sends; a 401 answer
 * says next to it what is wrong. A new token lists the bundles again if they
 * could not be listed without it. */
function setUpToken() {
  const input = byTestId("api-token");
  const slot = attachErrorSlot(input);
  input.value = apiToken();
  watchToken((problem) => {
    slot.textContent = problem;
    slot.hidden = !problem;
    if (problem) input.setAttribute("aria-invalid", "true");
    else input.removeAttribute("aria-invalid");
  });
  input.addEventListener("input", () => setApiToken(input.value.trim()));
  input.addEventListener("change", () => {
    if (!fields.bundle.options.length && !listing) listing = loadBundleList().finally(() => (listing = null));
  });
}

setUpToken();
buildWeekdayInputs();
for (const input of [fields.timeZone, fields.bundle, fields.entry, fields.atClose]) attachErrorSlot(input);
attachErrorSlot(fields.deadlines);
DEFAULT_DEADLINES.forEach(addDeadline);
byTestId("add-holiday").addEventListener("click", () => addHoliday());
byTestId("add-deadline").addEventListener("click", () => addDeadline());
for (const radio of form.querySelectorAll("input[name=source]")) radio.addEventListener("change", showSource);
fields.bundle.addEventListener("change", () => loadBundle().catch((exc) => (byTestId("bundle-info").textContent = exc.message)));
fields.entry.addEventListener("input", showEntryResolution);
fields.timeZone.addEventListener("input", showEntryResolution);
form.addEventListener("submit", (event) => {
  event.preventDefault();
  compute();
});
byTestId("load-example").addEventListener("click", loadExample);
byTestId("skip").addEventListener("click", skipToNextDeadline);
byTestId("reset").addEventListener("click", resetClock);
setUpSlaPanel(byTestId("sla"));
listing = loadBundleList().finally(() => (listing = null));
listing.then(() => {
  document.body.dataset.ready = "true";
});

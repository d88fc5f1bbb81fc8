// The SLA panel: a ticket's business events replayed under a contract policy
// (calendars/policies) with EvaluateSla, showing at each event what the
// policy did to the clock and where its deadline moved; while the clock is
// paused, the time left in its measure (README "SLA clocks",
// docs/semantics.md "SLA clocks"). A policy of metrics (docs/semantics.md
// §17) is drawn as one lane per metric with the warnings and breaches that
// fell and the next action.

import { evaluateSla, getPolicy } from "./api.js";
import { FieldErrors, attachErrorSlot } from "./errors.js";
import {
  InputError,
  UnknownZoneError,
  addDays,
  daysBetween,
  formatDuration,
  formatLocal,
  formatUtc,
  formatWall,
  mondayOf,
  parseDateTime,
  parseDuration,
  parseTimestamp,
  resolveWall,
  wallOf,
} from "./time.js";

/** The support-contract scenario of the README: a reply, a tier change, a
 * wait on a third party and the customer's answer, then resolution. */
export const SCENARIO = [
  { type: "start", time: "2026-12-11T10:00", attributes: "" },
  { type: "customer_reply", time: "2026-12-14T10:00", attributes: "" },
  { type: "tier_change", time: "2026-12-17T10:00", attributes: "tier=priority" },
  { type: "awaiting_third_party", time: "2026-12-18T10:00", attributes: "" },
  { type: "customer_reply", time: "2026-12-20T10:00", attributes: "" },
  { type: "resolved", time: "2026-12-29T11:00", attributes: "" },
];

/** The event that starts every history (docs/semantics.md, "SLA clocks"). */
const START = "start";

/**
 * The event types `policy` knows, as the service says them: ["start", ...its
 * events, by name], from GetPolicy (GET /v1/policies/{name}): a one-clock
 * policy's `events`, or every event its metrics' rules name
 * (docs/semantics.md §17). Throws the ServiceError of a refusal (an unknown
 * policy or version is NOT_FOUND naming "name").
 */
export async function policyEvents(policy) {
  return (await policyTerms(policy)).events;
}

/**
 * What a policy's events and tiers are called, from GetPolicy: `events` as
 * policyEvents says them, `tiers` the names of its tiers (a one-clock
 * policy's `tiers`, or its metrics' targets), sorted. Throws as
 * policyEvents.
 */
export async function policyTerms(policy) {
  const answer = await getPolicy(policy);
  const named = (answer.events ?? []).map((event) => event.name);
  const tiers = (answer.tiers ?? []).map((tier) => tier.name);
  for (const metric of answer.metrics ?? []) {
    for (const rule of metric.rules ?? []) named.push(rule.event);
    for (const target of metric.targets ?? []) tiers.push(target.name);
  }
  return {
    events: [START, ...[...new Set(named)].filter((name) => name !== START).sort()],
    tiers: [...new Set(tiers)].sort(),
  };
}

/** The policy whose scenario the panel starts with (SCENARIO). */
const PRESET_POLICY = "support-contract";

const MEASURES = {
  CLOCK_MEASURE_ELAPSED: "elapsed time",
  CLOCK_MEASURE_BUSINESS_DAY: "business-day time",
  CLOCK_MEASURE_BUSINESS_TIME: "business time",
};

/** Fills the event type `select` with `types` and selects `value`; a value
 * that is not among them stays selectable, marked as such, so a row never
 * changes its type silently (the service refuses it by name). */
function setTypes(select, types, value) {
  const options = types.map((type) => new Option(type, type));
  if (value && !types.includes(value)) options.push(new Option(`${value} (not an event of this policy)`, value));
  select.replaceChildren(...options);
  select.value = value;
}

function input(testid, value, label, attributes = {}) {
  const node = document.createElement("input");
  Object.assign(node, { type: "text", value, spellcheck: false, ...attributes });
  node.dataset.testid = testid;
  node.setAttribute("aria-label", label);
  return node;
}

/** "tier=priority, note=x" → { tier: "priority", note: "x" }; throws
 * InputError on a part without "=". */
function parseAttributes(text) {
  const attributes = {};
  for (const part of text.split(",").map((p) => p.trim()).filter(Boolean)) {
    const at = part.indexOf("=");
    if (at < 1) throw new InputError(`'${part}' is not key=value (e.g. tier=priority)`);
    attributes[part.slice(0, at).trim()] = part.slice(at + 1).trim();
  }
  return attributes;
}

/** Wires the SLA panel inside `root` (the section holding its form). */
export function setUpSlaPanel(root) {
  const form = root.querySelector("form");
  const rows = root.querySelector("[data-testid=sla-events]");
  const policy = root.querySelector("[data-testid=sla-policy]");
  const zone = root.querySelector("[data-testid=sla-time-zone]");
  const result = root.querySelector("[data-testid=sla-result]");
  const errors = new FieldErrors(root.querySelector("[data-testid=sla-error]"));
  const asOf = root.querySelector("[data-testid=sla-as-of]");
  attachErrorSlot(policy);
  attachErrorSlot(zone);
  attachErrorSlot(asOf);
  /** The event types of the policy named in the form ("start" and the
   * preset's until the service has said them). */
  let types = [...new Set(SCENARIO.map((event) => event.type))];
  /** The attributes placeholder: a tier of the policy named in the form. */
  let tierExample = "tier=priority";
  const preset = root.querySelector("[data-testid=sla-preset]");

  function addRow(event) {
    const number = rows.children.length + 1;
    const row = document.createElement("li");
    row.dataset.testid = "sla-event";
    const type = document.createElement("select");
    type.dataset.testid = "sla-event-type";
    type.setAttribute("aria-label", `event ${number}: type`);
    setTypes(type, types, event.type || types[rows.children.length ? 1 : 0] || "");
    const time = input("sla-event-time", event.time, `event ${number}: time, local in the time zone above or with an offset`, {
      size: 26,
      placeholder: "e.g. 2026-12-11T10:00",
    });
    const attributes = input("sla-event-attributes", event.attributes, `event ${number}: attributes, key=value`, {
      size: 14,
      placeholder: tierExample,
    });
    const remove = document.createElement("button");
    Object.assign(remove, { type: "button", textContent: "Remove", className: "small" });
    remove.setAttribute("aria-label", `remove event ${number}`);
    remove.addEventListener("click", () => row.remove());
    row.append(type, time, attributes, remove);
    for (const field of [type, time, attributes]) attachErrorSlot(field);
    rows.append(row);
  }

  for (const event of SCENARIO) addRow(event);
  root.querySelector("[data-testid=sla-add-event]").addEventListener("click", () =>
    addRow({ type: "", time: "", attributes: "" }),
  );

  /** Asks the service for the events of the policy named now and offers
   * them in every row's type; an unknown policy is said next to its input. */
  let asking = 0;
  async function loadTypes() {
    const ask = ++asking;
    const name = policy.value.trim();
    errors.clear();
    if (!name) return;
    let found;
    try {
      found = await policyTerms(name);
    } catch (exc) {
      // An unknown policy is said at its input; any other failure (no
      // answer, a token needed) leaves the types offered as they are.
      const said = (exc.violations ?? []).filter((v) => v.field === "name");
      if (ask !== asking || !said.length) return;
      errors.reset();
      errors.register("policy", policy);
      for (const v of said) errors.showField("policy", v.description);
      return;
    }
    if (ask !== asking) return;
    types = found.events;
    tierExample = found.tiers.length ? `tier=${found.tiers[0]}` : "key=value";
    for (const select of rows.querySelectorAll("select[data-testid=sla-event-type]")) setTypes(select, types, select.value);
    for (const field of rows.querySelectorAll("input[data-testid=sla-event-attributes]")) field.placeholder = tierExample;
    if (preset) {
      preset.textContent = name.split("@")[0] === PRESET_POLICY
        ? "Preset: the support-contract scenario."
        : `Policy ${name}: its events are ${types.join(", ")}; tiers ${found.tiers.join(", ") || "none"}.`;
    }
    root.dataset.policyEvents = name;
  }
  policy.addEventListener("change", () => loadTypes());
  loadTypes();

  form.addEventListener("submit", async (submitted) => {
    submitted.preventDefault();
    errors.reset();
    errors.register("policy", policy);
    const request = { policy: policy.value.trim(), events: [] };
    let bad = false;
    errors.register("time_zone", zone);
    const timeZone = zone.value.trim() || "UTC";
    let zoneBad = false;
    [...rows.children].forEach((row, i) => {
      const type = row.querySelector("select");
      const [time, attributes] = row.querySelectorAll("input");
      errors.register(`events[${i}]`, type);
      errors.register(`events[${i}].type`, type);
      errors.register(`events[${i}].time`, time);
      errors.register(`events[${i}].attributes`, attributes);
      const event = { type: type.value.trim() };
      try {
        event.time = formatUtc(parseDateTime(time.value, timeZone, { where: "the time zone above" }).us);
      } catch (exc) {
        if (!(exc instanceof UnknownZoneError)) errors.showOn(time, exc.message);
        else if (!zoneBad) errors.showOn(zone, exc.message);
        zoneBad ||= exc instanceof UnknownZoneError;
        bad = true;
      }
      try {
        const parsed = parseAttributes(attributes.value);
        if (Object.keys(parsed).length) event.attributes = parsed;
      } catch (exc) {
        errors.showField(`events[${i}].attributes`, exc.message);
        bad = true;
      }
      request.events.push(event);
    });
    errors.register("as_of_time", asOf);
    if (asOf.value.trim()) {
      try {
        request.asOfTime = formatUtc(parseDateTime(asOf.value, timeZone, { where: "the time zone above" }).us);
      } catch (exc) {
        if (!(exc instanceof UnknownZoneError)) errors.showOn(asOf, exc.message);
        bad = true;
      }
    }
    if (bad) {
      errors.focusFirst();
      return;
    }
    result.setAttribute("aria-busy", "true");
    try {
      showAnswer(result, await evaluateSla(request));
    } catch (exc) {
      result.replaceChildren();
      errors.showError(exc);
      errors.focusFirst();
    } finally {
      result.removeAttribute("aria-busy");
    }
  });
}

function cell(text, testid) {
  const td = document.createElement("td");
  td.textContent = text;
  if (testid) td.dataset.testid = testid;
  return td;
}

/** A cell holding an RFC 3339 text that may wrap only between its date and
 * its time (never inside either). */
function timeCell(text, testid) {
  const td = cell("", testid);
  const at = text.indexOf("T");
  if (at < 0) return td;
  const date = Object.assign(document.createElement("span"), { className: "nowrap", textContent: text.slice(0, at) });
  const time = Object.assign(document.createElement("span"), { className: "nowrap", textContent: text.slice(at) });
  td.append(date, document.createElement("wbr"), time);
  return td;
}

/** Draws an EvaluateSlaResponse: a table of every event (what it did, the
 * deadline before and after, the time left while paused, the reason) and a
 * track where each event's deadline is placed on one time axis. */
function showAnswer(result, answer) {
  const zone = answer.timeZone || "UTC";
  const local = (text) => (text ? formatLocal(parseTimestamp(text), zone) : "");
  const measure = MEASURES[answer.state?.measure] ?? "the clock's measure";
  const timeline = answer.timeline ?? [];

  const table = document.createElement("table");
  table.className = "sla-table";
  table.dataset.testid = "sla-table";
  table.createCaption().textContent = `Times in ${zone}. Policy ${answer.policyVersion}, calendar ${answer.calendarVersion}.`;
  const head = table.createTHead().insertRow();
  for (const name of ["#", "event", "time", "action", "tier", "status", "deadline before", "deadline after", "remaining", "reason"]) {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = name;
    head.append(th);
  }
  const body = table.createTBody();
  timeline.forEach((entry, i) => {
    const row = body.insertRow();
    row.dataset.testid = "sla-row";
    row.dataset.action = entry.action;
    const status = (entry.status ?? "").replace("CLOCK_STATUS_", "");
    let remaining = "";
    if (entry.remaining !== undefined) {
      // The measure is the final state's when the row's tier is the final one.
      const unit = entry.tier === answer.tier ? measure : "the clock's measure";
      remaining = `${formatDuration(parseDuration(entry.remaining))} of ${unit} left`;
    }
    const moved = entry.oldDeadlineTime && entry.newDeadlineTime && entry.oldDeadlineTime !== entry.newDeadlineTime;
    row.append(
      cell(String(i + 1)),
      cell(entry.event, "sla-event-name"),
      timeCell(local(entry.time), "sla-time"),
      cell(entry.action, "sla-action"),
      cell(entry.tier, "sla-tier"),
      cell(status, "sla-status"),
      timeCell(local(entry.oldDeadlineTime), "sla-old-deadline"),
      timeCell(local(entry.newDeadlineTime), "sla-new-deadline"),
      cell(remaining, "sla-remaining"),
      cell(entry.reason, "sla-reason"),
    );
    if (moved) {
      row.classList.add("moved");
      row.querySelector("[data-testid=sla-new-deadline]").title = `deadline moved: was ${local(entry.oldDeadlineTime)}`;
    }
    if (status === "PAUSED") {
      row.classList.add("paused");
      row.querySelector("[data-testid=sla-remaining]").title = "clock paused: the time left waits for a resume";
    }
  });

  const state = answer.state ?? {};
  const verdict = document.createElement("p");
  verdict.dataset.testid = "sla-verdict";
  const status = (state.status ?? "").replace("CLOCK_STATUS_", "");
  const record = Object.assign(document.createElement("span"), { className: "record-id", textContent: answer.recordId });
  record.dataset.testid = "sla-record-id";
  record.title = `record ${answer.recordId}`;
  verdict.append(
    status === "STOPPED"
      ? `Clock STOPPED, ${state.met ? "SLA met" : "SLA breached"}${state.breachTime ? `; breach at ${local(state.breachTime)}` : ""}. Tier ${answer.tier}, record `
      : !answer.state && answer.metrics?.length
      ? `${answer.metrics.length} metrics (below). Tier ${answer.tier}, record `
      : `Clock ${status}${state.deadlineTime ? `, due ${local(state.deadlineTime)}` : ""}${state.remaining ? `, ${formatDuration(parseDuration(state.remaining))} left` : ""}. Tier ${answer.tier}, record `,
    record,
    ".",
  );

  const wrap = document.createElement("div");
  wrap.className = "sla-result-table";
  wrap.append(table);
  const legend = document.createElement("p");
  legend.className = "sla-table-legend";
  legend.dataset.testid = "sla-table-legend";
  legend.innerHTML =
    '<span class="moved">Red bold</span>: the event moved the deadline (its title says where it was). ' +
    '<span class="paused">Purple bold</span>: the clock is paused; the time left waits for a resume.';
  forgetTracks();
  if (!answer.state && answer.metrics?.length) {
    // a policy of metrics: each metric's events, warnings and breaches stand in its own lane
    result.replaceChildren(verdict, metricsTrack(answer, zone), ...metricsView(answer, local));
  } else {
    result.replaceChildren(verdict, slaTrack(timeline, zone), wrap, legend);
    if (answer.metrics?.length) result.append(metricsTrack(answer, zone), ...metricsView(answer, local));
  }
  for (const warning of answer.warnings ?? []) {
    const p = document.createElement("p");
    p.className = "warning";
    p.textContent = `warning: ${warning}`;
    result.append(p);
  }
}

/** A policy's metrics (docs/semantics.md §17): each one's status and the
 * warnings and breaches that fell by the as-of instant, then the next action. */
function metricsView(answer, local) {
  const list = document.createElement("ul");
  list.dataset.testid = "sla-metrics";
  for (const metric of answer.metrics) {
    const item = document.createElement("li");
    item.dataset.testid = "sla-metric";
    const status = (metric.status ?? "").replace("SLA_METRIC_STATUS_", "");
    const met = metric.state?.met === undefined ? "" : metric.state.met ? ", met" : ", breached";
    const due = metric.state?.deadlineTime ? `, due ${local(metric.state.deadlineTime)}` : "";
    // paused: the time left in the clock's measure (Jira's "remaining time", docs/sla.md)
    const left = metric.state?.remaining !== undefined && status === "PAUSED"
      ? `, ${formatDuration(parseDuration(metric.state.remaining))} left`
      : "";
    item.append(`${metric.name || "(clock)"}: ${status}${met}${due}${left}, cycles ${metric.cycles ?? 0}`);
    const fell = (metric.timeline ?? []).filter((e) => e.action === "WARNING" || e.action === "BREACH");
    if (fell.length) {
      const inner = document.createElement("ul");
      for (const entry of fell) {
        const li = document.createElement("li");
        li.dataset.testid = "sla-metric-fell";
        li.dataset.action = entry.action;
        li.textContent = `${entry.action}${entry.threshold ? ` ${entry.threshold}` : ""} at ${local(entry.time)}`;
        inner.append(li);
      }
      item.append(inner);
    }
    list.append(item);
  }
  const next = document.createElement("p");
  next.dataset.testid = "sla-next-action";
  const action = answer.nextAction;
  next.textContent = action
    ? `Next action at ${local(action.time)}: ` +
      action.due
        .map((d) => `${d.metric || "(clock)"} ${(d.kind ?? "").replace("SLA_DUE_KIND_", "")}${d.threshold ? ` ${d.threshold}` : ""}`)
        .join(", ") + "."
    : answer.metrics.some((m) => m.status === "SLA_METRIC_STATUS_RUNNING")
      ? `No next action as of ${local(answer.asOfTime)}: nothing more falls, every running metric has breached.`
      : `No next action as of ${local(answer.asOfTime)}: no metric runs.`;
  return [list, next];
}

const HOUR_US = 3_600_000_000;
const DAY_US = 24 * HOUR_US;
/** At most this many ticks between the two ends of the SLA track's axis. */
export const MAX_TICKS = 6;

/** Tick steps, finest first: wall-clock minutes and hours, days, Mondays,
 * first days of months. `every` is the step's length for counting ticks. */
const TICK_STEPS = [
  ...[1, 5, 15, 30].map((n) => ({ unit: "minute", n, every: (n * HOUR_US) / 60 })),
  ...[1, 2, 3, 6, 12].map((n) => ({ unit: "hour", n, every: n * HOUR_US })),
  ...[1, 2].map((n) => ({ unit: "day", n, every: n * DAY_US })),
  ...[1, 2].map((n) => ({ unit: "week", n, every: 7 * n * DAY_US })),
  ...[1, 2, 3, 6, 12, 24, 60, 120, 240].map((n) => ({ unit: "month", n, every: 30.44 * n * DAY_US })),
];

const EPOCH_MONDAY = "1970-01-05";

/** The local date `months` months after the first day of `date`'s month. */
function addMonths(date, months) {
  const [y, m] = date.split("-").map(Number);
  const index = y * 12 + (m - 1) + months;
  return `${String(Math.floor(index / 12)).padStart(4, "0")}-${String((index % 12) + 1).padStart(2, "0")}-01`;
}

/**
 * The ticks of one step strictly between instants lo and hi, in `zone`'s
 * local time: [{ us, text }]. Minutes and hours fall on wall times that are
 * multiples of the step (midnight says its date), days on every n-th local
 * midnight, weeks on Mondays, months on the first of every n-th month; a
 * date's tick is its first instant. Null when the step would give more than
 * MAX_TICKS ticks.
 */
export function ticksOf(step, lo, hi, zone) {
  if ((hi - lo) / step.every > MAX_TICKS + 1) return null;
  const first = wallOf(lo, zone).date;
  const last = wallOf(hi, zone).date;
  const found = [];
  const add = (date, seconds = 0) => {
    const { us, how } = resolveWall(zone, date, seconds);
    // A wall time a DST gap skips is no tick, but a date whose midnight it
    // skips still starts (later); a wall time a fold repeats is the earlier.
    if ((how === "gap" && seconds) || us <= lo || us >= hi || found.some((t) => t.us === us)) return;
    found.push({ us, text: seconds ? formatWall(seconds) : date });
  };
  if (step.unit === "minute" || step.unit === "hour") {
    const every = step.unit === "hour" ? step.n * 3600 : step.n * 60;
    const [from, to] = [wallOf(lo, zone).seconds, wallOf(hi, zone).seconds];
    for (let date = first; date <= last; date = addDays(date, 1)) {
      const start = date === first ? Math.floor(from / every) * every : 0;
      const end = date === last ? to : 86_399;
      for (let seconds = start; seconds <= end; seconds += every) add(date, seconds);
    }
  } else if (step.unit === "day") {
    for (let date = first; date <= last; date = addDays(date, 1)) {
      if (daysBetween(EPOCH_MONDAY, date) % step.n === 0) add(date);
    }
  } else if (step.unit === "week") {
    for (let date = mondayOf(first); date <= last; date = addDays(date, 7)) {
      if ((daysBetween(EPOCH_MONDAY, date) / 7) % step.n === 0) add(date);
    }
  } else {
    for (let date = addMonths(first, 0); date <= last; date = addMonths(date, 1)) {
      const [y, m] = date.split("-").map(Number);
      if ((y * 12 + m - 1) % step.n === 0) add(date);
    }
  }
  return found.length > MAX_TICKS ? null : found.sort((a, b) => a.us - b.us);
}

/** Draws into `axis` the ticks of the finest step whose labels fit its
 * width: at most MAX_TICKS, none overlapping another (0.5em apart) or
 * sticking out of the axis (a tick whose label would is left out). */
function placeTicks(axis, lo, hi, zone, at, testid = "sla-tick") {
  const width = axis.clientWidth;
  if (!width) return;
  const box = axis.getBoundingClientRect();
  const gap = parseFloat(getComputedStyle(axis).fontSize) / 2 || 6;
  for (const step of TICK_STEPS) {
    const ticks = ticksOf(step, lo, hi, zone);
    if (!ticks) continue;
    axis.replaceChildren(
      ...ticks.map((tick) => {
        const mark = document.createElement("span");
        mark.className = "tick";
        mark.dataset.testid = testid;
        mark.style.left = at(tick.us);
        mark.textContent = tick.text;
        return mark;
      }),
    );
    let right = -Infinity; // of the last label kept
    let overlaps = false;
    for (const mark of [...axis.children]) {
      const r = mark.getBoundingClientRect();
      if (r.left < box.left || r.right > box.right) {
        mark.remove();
        continue;
      }
      if (r.left < right + gap) overlaps = true;
      right = r.right;
    }
    if (!overlaps) return;
  }
  axis.replaceChildren();
}

/** "2026-12-11 10:00": the local date and wall time of `us` in `zone`
 * without its seconds (when zero), fraction or offset. */
function shortLocal(us, zone) {
  const wall = wallOf(us, zone);
  return `${wall.date} ${formatWall(wall.seconds)}`;
}

/** Writes the two end labels of `axis` (its first and last instants) in the
 * first form that fits its width: the full local timestamps on one line (at
 * least 1em apart), else on two lines (the start's above, the end's below),
 * else the same with shortLocal texts. Each label's title keeps the full
 * timestamp; when not even a short label fits, it is cut with an ellipsis. */
function placeEnds(axis, lo, hi, zone) {
  const width = axis.clientWidth;
  if (!width) return;
  const gap = parseFloat(getComputedStyle(axis).fontSize) || 12;
  const [first, last] = axis.children;
  const full = [formatLocal(lo, zone), formatLocal(hi, zone)];
  const short = [shortLocal(lo, zone), shortLocal(hi, zone)];
  for (const [texts, stacked] of [[full, false], [full, true], [short, false], [short, true]]) {
    [first.textContent, last.textContent] = texts;
    axis.classList.toggle("stacked", stacked);
    // scrollWidth: the text's own width, even when max-width cuts the label
    // (whole pixels, hence 1px to spare)
    const [a, b] = [first.scrollWidth + 1, last.scrollWidth + 1];
    if (stacked ? Math.max(a, b) <= width : a + gap + b <= width) return;
  }
}

/** Watches the widths of the shown tracks' tick lanes. */
let trackObservers = [];

/**
 * A track on one time axis from the earliest to the latest of `instants`
 * (µs): its two end-label and tick lanes (test ids `${prefix}-ends`,
 * `${prefix}-end`, `${prefix}-ticks`, `${prefix}-tick`), `at(us)` the
 * left offset of an instant, `lane(label)` a new lane's axis and `span`
 * a mark on one. Null when there is no instant.
 */
function trackFrame(instants, zone, prefix) {
  const track = document.createElement("div");
  track.className = "sla-track";
  track.setAttribute("aria-hidden", "true");
  if (!instants.length) return { track, at: null };
  const [lo, hi] = [Math.min(...instants), Math.max(...instants)];
  const at = (us) => `${(((us - lo) / Math.max(1, hi - lo)) * 100).toFixed(3)}%`;
  const span = (className, us, title, width) => {
    const mark = document.createElement("span");
    mark.className = className;
    mark.style.left = at(us);
    if (width !== undefined) mark.style.width = width;
    mark.title = title;
    return mark;
  };
  const lane = (label, className = "lane") => {
    const row = document.createElement("div");
    row.className = className;
    const name = document.createElement("span");
    name.className = "lane-label";
    name.textContent = label;
    const axis = document.createElement("div");
    axis.className = "lane-axis";
    row.append(name, axis);
    track.append(row);
    return axis;
  };
  const ends = lane("", "lane axis-labels");
  ends.dataset.testid = `${prefix}-ends`;
  for (const us of [lo, hi]) {
    const end = span("end", us, formatLocal(us, zone));
    end.dataset.testid = `${prefix}-end`;
    end.textContent = formatLocal(us, zone);
    ends.append(end);
  }
  const ticks = lane("", "lane axis-ticks");
  ticks.dataset.testid = `${prefix}-ticks`;
  // The end labels' form and the ticks are chosen once the axis has a width,
  // and again when it changes (both lanes' axes are equally wide).
  const observer = new ResizeObserver(() => {
    placeEnds(ends, lo, hi, zone);
    placeTicks(ticks, lo, hi, zone, at, `${prefix}-tick`);
  });
  observer.observe(ticks);
  trackObservers.push(observer);
  return { track, at, span, lane };
}

/** Stops watching the tracks of the answer shown before. */
function forgetTracks() {
  for (const observer of trackObservers) observer.disconnect();
  trackObservers = [];
}

/** One lane per event on a shared time axis: the event (a dot), the
 * deadline it left (a flag; dashed where the deadline was before), and a
 * hatched bar while the clock stays paused. The table says the same in words. */
function slaTrack(timeline, zone) {
  const instants = timeline
    .flatMap((e) => [e.time, e.oldDeadlineTime, e.newDeadlineTime])
    .filter(Boolean)
    .map(parseTimestamp);
  const { track, at, span, lane } = trackFrame(instants, zone, "sla");
  if (!at) return track;
  timeline.forEach((entry, i) => {
    const time = parseTimestamp(entry.time);
    const paused = entry.remaining !== undefined;
    const axis = lane(
      `${i + 1}. ${entry.event}: ${entry.action}${paused ? `, ${formatDuration(parseDuration(entry.remaining))} left` : ""}`,
    );
    if (paused && timeline[i + 1]) {
      const until = parseTimestamp(timeline[i + 1].time);
      axis.append(span("paused", time, "paused", `calc(${at(until)} - ${at(time)})`));
    }
    if (entry.oldDeadlineTime && entry.oldDeadlineTime !== entry.newDeadlineTime) {
      const was = parseTimestamp(entry.oldDeadlineTime);
      axis.append(span("was", was, `deadline was ${formatLocal(was, zone)}`));
    }
    axis.append(span("event", time, `${entry.event} at ${formatLocal(time, zone)}`));
    if (entry.newDeadlineTime) {
      const due = parseTimestamp(entry.newDeadlineTime);
      axis.append(span("due", due, `due ${formatLocal(due, zone)}`));
    }
  });
  const legend = document.createElement("p");
  legend.className = "sla-legend";
  legend.innerHTML =
    '<span class="key event"></span>event <span class="key due"></span>deadline after it ' +
    '<span class="key was"></span>deadline before it <span class="key paused"></span>paused';
  track.append(legend);
  return track;
}

const DUE_WORDS = { SLA_DUE_KIND_WARNING: "WARNING", SLA_DUE_KIND_BREACH: "BREACH" };

/**
 * A policy's metrics on one time axis (docs/semantics.md §17), one lane
 * each: its events (dots), its deadline while it runs (a flag), the
 * warnings (`sla-warning-marker`) and breaches (`sla-breach-marker`) that
 * fell by the as-of instant, and the next action (`sla-next-action-marker`,
 * on the lane of every metric due then), with the as-of instant on every
 * lane (`sla-as-of-marker`).
 */
function metricsTrack(answer, zone) {
  const metrics = answer.metrics ?? [];
  const next = answer.nextAction;
  const instants = [
    ...metrics.flatMap((m) => [
      ...(m.timeline ?? []).flatMap((e) => [e.time, e.oldDeadlineTime, e.newDeadlineTime]),
      m.state?.deadlineTime,
    ]),
    next?.time,
    answer.asOfTime,
  ]
    .filter(Boolean)
    .map(parseTimestamp);
  const { track, at, span, lane } = trackFrame(instants, zone, "sla-metrics");
  track.dataset.testid = "sla-metrics-track";
  if (!at) return track;
  const local = (us) => formatLocal(us, zone);
  const asOf = answer.asOfTime ? parseTimestamp(answer.asOfTime) : null;
  for (const metric of metrics) {
    const name = metric.name || "(clock)";
    const status = (metric.status ?? "").replace("SLA_METRIC_STATUS_", "");
    const axis = lane(`${name}: ${status}`);
    axis.parentElement.dataset.testid = "sla-metric-lane";
    axis.parentElement.dataset.metric = name;
    if (asOf !== null) {
      const mark = span("as-of", asOf, `as of ${local(asOf)}`);
      mark.dataset.testid = "sla-as-of-marker";
      axis.append(mark);
    }
    for (const entry of metric.timeline ?? []) {
      const time = parseTimestamp(entry.time);
      if (entry.action === "WARNING" || entry.action === "BREACH") {
        const warning = entry.action === "WARNING";
        const mark = span(warning ? "warn" : "breach", time,
          `${name} ${entry.action}${entry.threshold ? ` ${entry.threshold}` : ""} at ${local(time)}`);
        mark.dataset.testid = warning ? "sla-warning-marker" : "sla-breach-marker";
        if (warning) mark.dataset.threshold = entry.threshold;
        axis.append(mark);
      } else if (entry.action !== "NONE") {
        axis.append(span("event", time, `${entry.event}: ${entry.action} at ${local(time)}`));
      }
    }
    if (metric.state?.deadlineTime) {
      const due = parseTimestamp(metric.state.deadlineTime);
      const mark = span("due", due, `${name} due ${local(due)}`);
      mark.dataset.testid = "sla-metric-deadline";
      axis.append(mark);
    }
    const falling = (next?.due ?? []).filter((d) => (d.metric || "(clock)") === name);
    if (falling.length) {
      const time = parseTimestamp(next.time);
      const what = falling.map((d) => `${DUE_WORDS[d.kind] ?? d.kind}${d.threshold ? ` ${d.threshold}` : ""}`);
      const mark = span("next", time, `next action at ${local(time)}: ${name} ${what.join(", ")}`);
      mark.dataset.testid = "sla-next-action-marker";
      axis.append(mark);
    }
  }
  const legend = document.createElement("p");
  legend.className = "sla-legend";
  legend.innerHTML =
    '<span class="key event"></span>event <span class="key due"></span>deadline ' +
    '<span class="key warn"></span>warning <span class="key breach"></span>breach ' +
    '<span class="key next"></span>next action <span class="key as-of"></span>as of';
  track.append(legend);
  return track;
}

/**
 * @duetime/client against a real `duetime serve`: every RPC of duetime.v1,
 * the README's Zagreb example, errors with their fields, idempotent retries.
 */

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  AlreadyExists,
  DuetimeClient,
  FailedPrecondition,
  GENERATED_KEY_PREFIX,
  InvalidArgument,
  NotFound,
  OutOfRange,
  Unavailable,
  pb,
} from "@duetime/client";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_DIR, failure, freePort, startServer } from "./server.js";
import type { Server } from "./server.js";

const ZAGREB = { timeZone: "Europe/Zagreb", holidays: ["2026-12-25", "2026-12-26"] };
const SUPPORT_EVENTS = [
  { type: "start", time: "2026-12-11T10:00:00+01:00" },
  { type: "customer_reply", time: "2026-12-14T10:00:00+01:00" },
  { type: "tier_change", time: "2026-12-17T10:00:00+01:00", attributes: { tier: "priority" } },
  { type: "awaiting_third_party", time: "2026-12-18T10:00:00+01:00" },
  { type: "customer_reply", time: "2026-12-20T10:00:00+01:00" },
];

let server: Server;
let duetime: DuetimeClient;

before(async () => {
  server = await startServer();
  duetime = new DuetimeClient({ address: server.address, timeoutMs: 10_000 });
});

after(async () => {
  duetime?.close();
  await server?.stop();
});

describe("due times", () => {
  test("the README's Zagreb example: Friday 16:00 + 3bd is Wednesday 16:00", async () => {
    const answer = await duetime.computeDueTime("2026-11-27T16:00+01:00", "3bd", ZAGREB);
    assert.equal(answer.dueLocal, "2026-12-02T16:00:00+01:00");
    assert.equal(answer.due.toISOString(), "2026-12-02T15:00:00.000Z");
    assert.equal(answer.recorded.timeZone, "Europe/Zagreb");
    assert.equal(answer.recorded.calendarVersion, "cal-adbe0f65ebf4e927");
    assert.match(answer.recorded.recordId, /^[0-9a-f]{32}$/);
    assert.equal(answer.recorded.rulesVersion, "2026.1");
  });

  test("a Date in, a bundle by name, an explanation", async () => {
    const answer = await duetime.computeDueTime(new Date("2026-11-27T15:00:00Z"), "3bd", "hr-zagreb", { explain: true });
    assert.equal(answer.dueLocal, "2026-12-02T16:00:00+01:00");
    assert.equal(answer.recorded.calendarVersion, "hr-zagreb@f45226394a32");
    assert.ok(answer.explanation.length > 0);
    assert.ok(answer.explanation.every((step) => step.kind && step.text));
  });

  test("inline calendars as plain objects: hours, weekend text, named holidays", async () => {
    const answer = await duetime.computeDueTime("2026-11-27T16:00Z", "1bh", {
      hours: "mon-fri 09:00-12:00,13:00-17:00",
    }, { atClose: "next-open" });
    assert.equal(answer.due.toISOString(), "2026-11-30T09:00:00.000Z");
    const jerusalem = await duetime.computeDueTime("2026-10-22T01:30+03:00", "1bd", {
      time_zone: "Asia/Jerusalem",
      weekend: "fri,sat",
      holidays: [["2026-12-25", "Christmas Day"], { date: "2026-12-26", name: "Boxing Day" }],
    });
    assert.equal(jerusalem.dueLocal, "2026-10-25T01:30:00+03:00");
  });

  test("no weekend: an empty list, or the text none", async () => {
    for (const weekend of [[], "none"] as const) {
      const answer = await duetime.computeDueTime("2026-11-27T16:00Z", "1bd", { weekend });
      assert.equal(answer.dueLocal, "2026-11-28T16:00:00+00:00");
    }
  });

  test("a landing rule: P1M@modified-following from Jan 30 is Fri Feb 27", async () => {
    const answer = await duetime.computeDueTime("2026-01-30T10:00+01:00", "P1M@modified-following", { timeZone: "Europe/Zagreb" });
    assert.equal(answer.dueLocal, "2026-02-27T10:00:00+01:00");
  });

  test("BatchComputeDueTimes: each item its answer or its own error", async () => {
    const results = await duetime.computeDueTimes([
      { start: "2026-11-27T15:00:00Z", duration: "3bd", calendar: "hr-zagreb", idempotencyKey: "ts-batch/1" },
      { start: "2026-11-27T15:00:00Z", duration: "1.5bd" },
    ]);
    assert.equal(results.length, 2);
    const [first, second] = results;
    assert.ok(first?.ok);
    assert.equal(first.dueTime.dueLocal, "2026-12-02T16:00:00+01:00");
    assert.ok(second && !second.ok);
    assert.ok(second.error instanceof InvalidArgument);
    assert.equal(second.error.field, "duration");
    assert.equal(second.error.code, "INVALID_ARGUMENT");
    assert.equal(second.error.details, "duration: '1.5bd': business days must be whole; use bh for parts of a business day");
    const record = await duetime.getRecord(first.dueTime.recorded.recordId);
    assert.equal(record.idempotencyKey, "ts-batch/1");
  });

  test("StreamComputeDueTimes: answers in order across messages, generated keys per item", async () => {
    const items = Array.from({ length: 5 }, (_, i) => ({ start: `2026-11-2${3 + i}T15:00:00Z`, duration: "1bd" }));
    const got: string[] = [];
    for await (const result of duetime.streamDueTimes(items, { messageItems: 2 })) {
      assert.ok(result.ok);
      got.push(result.dueTime.dueLocal);
    }
    assert.deepEqual(got, [
      "2026-11-24T15:00:00+00:00",
      "2026-11-25T15:00:00+00:00",
      "2026-11-26T15:00:00+00:00",
      "2026-11-27T15:00:00+00:00",
      "2026-11-30T15:00:00+00:00",
    ]);
  });
});

test("a stream item the client can see is wrong rejects with InvalidArgument naming it", async () => {
  const items = [
    { start: "2026-11-27T15:00:00Z", duration: "1bd" },
    { start: "2026-11-27 15:00", duration: "1bd" },
  ];
  const error = await failure(async () => {
    for await (const result of duetime.streamDueTimes(items)) {
      assert.ok(result.ok);
    }
  });
  assert.ok(error instanceof InvalidArgument);
  assert.equal(error.field, "items[1].start");
});

describe("calendar queries", () => {
  test("ComputeBusinessTime over Christmas in Zagreb: 17 hours, 2 business days", async () => {
    const answer = await duetime.computeBusinessTime("2026-12-24T10:00+01:00", "2026-12-29T11:00+01:00", "hr-zagreb");
    assert.equal(answer.businessTimeMs, 17 * 3600 * 1000);
    assert.equal(answer.businessDays, 2);
  });

  test("GetOpenStatus on Christmas Day, with the last run", async () => {
    const status = await duetime.getOpenStatus("2026-12-25T12:00+01:00", "hr-zagreb", { includeLastRun: true });
    assert.equal(status.open, false);
    assert.equal(status.interval, null);
    assert.equal(status.businessDay, false);
    assert.equal(status.localDate, "2026-12-25");
    assert.equal(status.holidayName, "Christmas Day");
    assert.equal(status.closedReason, "holiday (Christmas Day)");
    assert.equal(status.nextOpen?.toISOString(), "2026-12-28T08:00:00.000Z");
    assert.equal(status.nextClose?.toISOString(), "2026-12-28T16:00:00.000Z");
    assert.equal(status.lastOpen?.toISOString(), "2026-12-24T08:00:00.000Z");
    assert.equal(status.lastClose?.toISOString(), "2026-12-24T16:00:00.000Z");
  });

  test("ComputeSchedule: chained deadlines, the first to fall due", async () => {
    const schedule = await duetime.computeSchedule(
      "2026-11-27T16:00+01:00",
      ["remind=2bd", { name: "escalate", duration: "5bd" }, "final=4bh@after:escalate"],
      "hr-zagreb",
    );
    assert.deepEqual(schedule.deadlines.map((d) => [d.name, d.dueLocal, d.after]), [
      ["remind", "2026-12-01T16:00:00+01:00", ""],
      ["escalate", "2026-12-04T16:00:00+01:00", ""],
      ["final", "2026-12-07T12:00:00+01:00", "escalate"],
    ]);
    assert.equal(schedule.deadlines[2]?.countedFrom?.toISOString(), "2026-12-04T15:00:00.000Z");
    assert.equal(schedule.nextDue, "remind");
    assert.equal(schedule.nextDueTime?.toISOString(), "2026-12-01T15:00:00.000Z");
  });

  test("ListOpenPeriods page by page, and all of them", async () => {
    const page = await duetime.listOpenPeriods("2026-12-24T15:00+01:00", "2026-12-29T10:00+01:00", "hr-zagreb", { pageSize: 2 });
    assert.deepEqual(page.periods.map((p) => [p.start.toISOString(), p.end.toISOString(), p.localDate]), [
      ["2026-12-24T14:00:00.000Z", "2026-12-24T16:00:00.000Z", "2026-12-24"],
      ["2026-12-28T08:00:00.000Z", "2026-12-28T16:00:00.000Z", "2026-12-28"],
    ]);
    assert.notEqual(page.nextPageToken, "");
    const all = [];
    for await (const period of duetime.openPeriods("2026-12-24T15:00+01:00", "2026-12-29T10:00+01:00", "hr-zagreb", { pageSize: 2 })) {
      all.push(period.localDate);
    }
    assert.deepEqual(all, ["2026-12-24", "2026-12-28", "2026-12-29"]);
  });

  test("CountBusinessDays: December 2026 in Zagreb has 22", async () => {
    const count = await duetime.countBusinessDays("2026-12-01", "2026-12-31", "hr-zagreb");
    assert.equal(count.businessDays, 22);
    assert.equal(count.recorded.calendarVersion, "hr-zagreb@f45226394a32");
  });
});

describe("SLA clocks", () => {
  test("StartClock, ApplyClockEvent: run, pause, resume, stop with the state as text", async () => {
    const started = await duetime.startClock("3bd", "2026-11-27T16:00+01:00", "hr-zagreb");
    assert.equal(started.status, "RUNNING");
    assert.equal(started.target, "3bd");
    assert.equal(started.deadline?.toISOString(), "2026-12-02T15:00:00.000Z");
    assert.equal(typeof started.state, "string");
    const paused = await duetime.applyClockEvent(started.state, "pause", "2026-11-30T10:00+01:00");
    assert.equal(paused.status, "PAUSED");
    assert.equal(paused.deadline, null);
    assert.equal(paused.remainingMs, 54 * 3600 * 1000);
    const resumed = await duetime.applyClockEvent(paused.state, "resume", "2026-12-01T10:00+01:00");
    assert.equal(resumed.status, "RUNNING");
    assert.equal(resumed.deadline?.toISOString(), "2026-12-03T15:00:00.000Z");
    const stopped = await duetime.applyClockEvent(resumed.stateMessage, "stop", "2026-12-02T10:00+01:00");
    assert.equal(stopped.status, "STOPPED");
    assert.equal(stopped.met, true);
  });

  test("a warning threshold gives the next action: the warning, then the breach", async () => {
    const started = await duetime.startClock("8bh", "2026-11-30T09:00+01:00", "hr-zagreb", { warningThresholds: ["75%"] });
    assert.equal(started.deadline?.toISOString(), "2026-11-30T16:00:00.000Z");
    assert.deepEqual(started.nextAction, {
      time: new Date("2026-11-30T14:00:00Z"),
      due: [{ metric: "", kind: "WARNING", threshold: "75%" }],
    });
  });

  test("what falls at an event's own instant is in fellAtEvent, not in nextAction", async () => {
    const started = await duetime.startClock("8bh", "2026-11-30T09:00+01:00", "hr-zagreb", { warningThresholds: ["75%"] });
    assert.deepEqual(started.fellAtEvent, []);
    // 5 h used by 14:00: a 2bh target anchored at the start is overdue at the event
    const overdue = await duetime.applyClockEvent(started.state, "retarget", "2026-11-30T14:00+01:00", {
      target: "2bh", anchor: "start", warningThresholds: ["75%"],
    });
    assert.deepEqual(overdue.fellAtEvent, [
      { metric: "", kind: "WARNING", threshold: "75%" },
      { metric: "", kind: "BREACH", threshold: "" },
    ]);
    assert.equal(overdue.nextAction, null);
  });

  test("EvaluateSla replays a ticket and names the one timer to arm", async () => {
    const sla = await duetime.evaluateSla("support-contract", SUPPORT_EVENTS, { asOf: "2026-12-21T10:00:00+01:00" });
    assert.equal(sla.clock.status, "RUNNING");
    assert.equal(sla.clock.deadline?.toISOString(), "2026-12-29T11:00:00.000Z");
    assert.equal(sla.tier, "priority");
    assert.equal(sla.policyVersion, "support-contract@8b65ed13fadb");
    assert.equal(sla.timeline.length, 5);
    assert.deepEqual(sla.nextAction, { time: new Date("2026-12-29T11:00:00Z"), due: [{ metric: "", kind: "BREACH", threshold: "" }] });
    assert.equal(sla.asOf?.toISOString(), "2026-12-21T09:00:00.000Z");
  });

  test("a metric whose breach has fallen says when, while it runs", async () => {
    const sla = await duetime.evaluateSla("support-sla", [{ type: "start", time: "2026-12-01T09:00:00+01:00" }],
      { asOf: "2026-12-09T09:00:00+01:00" });
    assert.deepEqual(sla.metrics.map((m) => [m.name, m.status, m.breachedAt?.toISOString() ?? null]), [
      ["first_response", "RUNNING", "2026-12-02T08:00:00.000Z"],
      ["next_reply", "NOT_STARTED", null],
      ["resolution", "RUNNING", "2026-12-08T08:00:00.000Z"],
    ]);
    assert.equal(sla.nextAction, null);
  });
});

describe("records and catalog", () => {
  test("GetRecord and ListRecords read back a recorded answer", async () => {
    const answer = await duetime.computeDueTime("2026-11-27T16:00+01:00", "2bd", ZAGREB, { idempotencyKey: "ts-records/1" });
    const record = await duetime.getRecord(answer.recorded.recordId);
    assert.equal(record.recordId, answer.recorded.recordId);
    assert.equal(record.method, "/duetime.v1.DueTimeService/ComputeDueTime");
    assert.equal(record.idempotencyKey, "ts-records/1");
    const ids = [];
    for await (const r of duetime.listRecords({ keyPrefix: "ts-records/", pageSize: 1 })) {
      ids.push(r.recordId);
    }
    assert.deepEqual(ids, [answer.recorded.recordId]);
  });

  test("AnalyzeImpact: the tz database moves nothing recorded here", async () => {
    const impact = await duetime.analyzeImpact("", { tzdata: true });
    assert.equal(impact.changes.length, 0);
    assert.ok(impact.recordsExamined > 0n);
  });

  test("CalendarService: calendars, one calendar, holidays, policies, one policy", async () => {
    const calendars = await duetime.listCalendars();
    const zagreb = calendars.calendars.find((c) => c.name === "hr-zagreb");
    assert.equal(zagreb?.newestVersion, "f45226394a32");
    assert.equal(zagreb?.timeZone, "Europe/Zagreb");
    const one = await duetime.getCalendar("hr-zagreb");
    assert.equal(one.version, "f45226394a32");
    const holidays = await duetime.listHolidays("hr-zagreb", "2026-12-01", "2027-01-06");
    assert.deepEqual(holidays.holidays.map((h) => [h.date, h.name]), [
      ["2026-12-25", "Christmas Day"],
      ["2026-12-26", "Saint Stephen's Day"],
      ["2027-01-01", "New Year's Day"],
      ["2027-01-06", "Epiphany"],
    ]);
    const policies = await duetime.listPolicies();
    assert.deepEqual(policies.policies.map((p) => p.name), ["support-contract", "support-sla"]);
    const policy = await duetime.getPolicy("support-contract");
    assert.equal(policy.initialTier, "standard");
    assert.deepEqual(policy.tiers.map((t) => [t.name, t.target]), [["priority", "48bh"], ["standard", "14d"]]);
  });

  test("health: the server and its services SERVING, an unknown service SERVICE_UNKNOWN", async () => {
    assert.equal(await duetime.health(), "SERVING");
    assert.equal(await duetime.health("duetime.v1.DueTimeService"), "SERVING");
    assert.equal(await duetime.health("no.such.Service"), "SERVICE_UNKNOWN");
  });

  test("the raw generated clients reach every RPC with the generated types", async () => {
    const response = await duetime.raw.dueTime.computeDueTime({
      start: { seconds: 1795791600n },
      duration: "3bd",
      calendar: { bundle: "hr-zagreb" },
    });
    assert.equal(response.dueLocal, "2026-12-02T16:00:00+01:00");
    const methods = [...pb.DueTimeService.methods, ...pb.CalendarService.methods].map((m) => m.localName);
    for (const name of methods) {
      const raw = name in duetime.raw.dueTime ? duetime.raw.dueTime : duetime.raw.calendars;
      assert.equal(typeof (raw as unknown as Record<string, unknown>)[name], "function", name);
    }
    const proto = readFileSync(join(REPO_DIR, "proto", "duetime", "v1", "duetime.proto"), "utf8");
    assert.equal(methods.length, [...proto.matchAll(/^\s*rpc /gm)].length);
  });
});

describe("errors", () => {
  test("InvalidArgument from the server: field, reason, not retryable", async () => {
    const error = await failure(() => duetime.computeDueTime("2026-11-27T16:00+01:00", "3bd", { timeZone: "Mars/Olympus" }));
    assert.ok(error instanceof InvalidArgument);
    assert.equal(error.code, "INVALID_ARGUMENT");
    assert.equal(error.field, "calendar.time_zone");
    assert.equal(error.reason, "INVALID_ARGUMENT");
    assert.equal(error.retryable, false);
    assert.match(error.message, /^INVALID_ARGUMENT: calendar\.time_zone: /);
  });

  test("InvalidArgument before calling: an instant without an offset, an unknown calendar key", async () => {
    const noOffset = await failure(() => duetime.computeDueTime("2026-11-27T16:00", "3bd"));
    assert.ok(noOffset instanceof InvalidArgument);
    assert.equal(noOffset.field, "start");
    assert.match(noOffset.violations[0]?.description ?? "", /no UTC offset/);
    const badKey = await failure(() => duetime.computeDueTime("2026-11-27T16:00Z", "3bd", { tz: "Europe/Zagreb" } as never));
    assert.equal(badKey.field, "calendar.tz");
    const badHours = await failure(() => duetime.computeDueTime("2026-11-27T16:00Z", "3bd", { hours: "09:00-17:00" }));
    assert.equal(badHours.field, "calendar.hours");
  });

  test("OutOfRange: a date outside a bundle's years", async () => {
    const error = await failure(() => duetime.computeDueTime("2040-01-02T10:00+01:00", "1bd", "hr-zagreb"));
    assert.ok(error instanceof OutOfRange);
    assert.equal(error.field, "calendar.bundle");
    assert.equal(error.retryable, false);
  });

  test("FailedPrecondition: resuming a running clock, with its subject", async () => {
    const started = await duetime.startClock("3bd", "2026-11-27T16:00+01:00", "hr-zagreb");
    const error = await failure(() => duetime.applyClockEvent(started.state, "resume", "2026-11-30T10:00+01:00"));
    assert.ok(error instanceof FailedPrecondition);
    assert.equal(error.field, "event");
    assert.equal(error.reason, "CLOCK_EVENT_NOT_ALLOWED");
  });

  test("NotFound: an unknown record id", async () => {
    const error = await failure(() => duetime.getRecord("0123456789abcdef0123456789abcdef"));
    assert.ok(error instanceof NotFound);
    assert.equal(error.reason, "RECORD_NOT_FOUND");
  });

  test("AlreadyExists: a key used before for another request", async () => {
    await duetime.computeDueTime("2026-11-27T16:00+01:00", "3bd", ZAGREB, { idempotencyKey: "ts-reused/1" });
    const error = await failure(() => duetime.computeDueTime("2026-11-27T16:00+01:00", "4bd", ZAGREB, { idempotencyKey: "ts-reused/1" }));
    assert.ok(error instanceof AlreadyExists);
    assert.equal(error.reason, "IDEMPOTENCY_KEY_REUSED");
    assert.equal(error.retryable, false);
  });

  test("Unavailable: nothing listening, retried, then retryable", async () => {
    const port = await freePort();
    const nobody = new DuetimeClient({ address: `127.0.0.1:${port}`, timeoutMs: 2000, retries: 2, backoffMs: 50 });
    try {
      const error = await failure(() => nobody.computeDueTime("2026-11-27T16:00Z", "1bd"));
      assert.ok(error instanceof Unavailable);
      assert.equal(error.code, "UNAVAILABLE");
      assert.equal(error.retryable, true);
    } finally {
      nobody.close();
    }
  });
});

describe("idempotency and retries", () => {
  test("the same key twice is the same record, answered from it", async () => {
    const first = await duetime.computeDueTime("2026-11-27T16:00+01:00", "3bd", ZAGREB, { idempotencyKey: "ts-same/1" });
    const again = await duetime.computeDueTime("2026-11-27T16:00+01:00", "3bd", ZAGREB, { idempotencyKey: "ts-same/1" });
    assert.equal(again.recorded.recordId, first.recorded.recordId);
    assert.equal(again.dueLocal, first.dueLocal);
  });

  test("a call without a key gets one made up: client/<uuid>", async () => {
    const answer = await duetime.computeDueTime("2026-11-27T16:00+01:00", "3bd", ZAGREB);
    const record = await duetime.getRecord(answer.recorded.recordId);
    assert.match(record.idempotencyKey, new RegExp(`^${GENERATED_KEY_PREFIX}[0-9a-f]{32}$`));
    const batch = await duetime.computeDueTimes([{ start: "2026-11-27T15:00Z", duration: "1bd" }, { start: "2026-11-27T15:00Z", duration: "2bd" }]);
    const keys = [];
    for (const result of batch) {
      assert.ok(result.ok);
      keys.push((await duetime.getRecord(result.dueTime.recorded.recordId)).idempotencyKey);
    }
    assert.match(keys[0] ?? "", /^client\/[0-9a-f]{32}\/0$/);
    assert.equal(keys[1], `${keys[0]?.slice(0, -2)}/1`);
  });

  test("UNAVAILABLE is retried with backoff until a server starting late answers", async () => {
    const port = await freePort();
    const late = new DuetimeClient({ address: `127.0.0.1:${port}`, timeoutMs: 30_000, retries: 10, backoffMs: 200 });
    let lateServer: Server | undefined;
    try {
      const answer = late.computeDueTime("2026-11-27T16:00+01:00", "3bd", ZAGREB, { idempotencyKey: "ts-late/1" });
      lateServer = await startServer([], port);
      const due = await answer;
      assert.equal(due.dueLocal, "2026-12-02T16:00:00+01:00");
    } finally {
      late.close();
      await lateServer?.stop();
    }
  });
});

/**
 * The client under hostile use: wrong peers, oversized requests, streams
 * left early, invalid instants, close() with calls in flight, out-of-range
 * timeouts, wrong types from plain JavaScript, errors no retry can fix,
 * AbortSignal and per-call timeouts.
 */

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createServer } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import {
  Cancelled,
  DeadlineExceeded,
  DuetimeClient,
  DuetimeError,
  InvalidArgument,
  ResourceExhausted,
  Unavailable,
  timestampOf,
} from "@duetime/client";
import type { DueTimeRequest } from "@duetime/client";
import { PACKAGE_DIR, failure, freePort, startServer } from "./server.js";
import type { Server } from "./server.js";

function refused(run: () => unknown): DuetimeError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof DuetimeError, `not a DuetimeError: ${String(error)}`);
    return error;
  }
  assert.fail("it was not refused");
}

/** Runs `code` (an ES module importing @duetime/client) in its own Node process. */
function runNode(code: string, env: Record<string, string>, timeoutMs: number): { status: number | null; out: string; ms: number } {
  const started = Date.now();
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", code], {
    cwd: PACKAGE_DIR,
    env: { ...process.env, ...env },
    timeout: timeoutMs,
    encoding: "utf8",
  });
  return { status: child.status, out: `${child.stdout}${child.stderr}`, ms: Date.now() - started };
}

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

describe("a peer that is not a gRPC server", () => {
  test("an HTTP/1 server: the call rejects Unavailable, close() does not throw, the process lives on", async () => {
    const http1 = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("hello");
    });
    await new Promise<void>((done) => http1.listen(0, "127.0.0.1", done));
    const port = (http1.address() as AddressInfo).port;
    try {
      const code = `
        import { DuetimeClient, DuetimeError } from "@duetime/client";
        const c = new DuetimeClient({ address: "127.0.0.1:" + process.env.PEER_PORT, timeoutMs: 2000 });
        try { await c.computeDueTime("2026-11-27T16:00Z", "1bd"); } catch (e) { console.log("caught a DuetimeError: " + (e instanceof DuetimeError)); }
        c.close();
        c.close();
        await new Promise((r) => setTimeout(r, 500));
        console.log("alive");
      `;
      const run = runNode(code, { PEER_PORT: String(port) }, 20_000);
      assert.equal(run.status, 0, run.out);
      assert.equal(run.out.trim(), "caught a DuetimeError: true\nalive");
    } finally {
      http1.close();
    }
  });
});

describe("duetime's HTTP/JSON port given as the gRPC address", () => {
  test("Unavailable NOT_A_GRPC_SERVER, not retryable, at once; close() does not throw; the process lives on", async () => {
    const httpPort = await freePort();
    const both = await startServer(["--http-port", String(httpPort)]);
    try {
      const code = `
        import { DuetimeClient } from "@duetime/client";
        const c = new DuetimeClient({ address: "127.0.0.1:" + process.env.PEER_PORT, timeoutMs: 10000 });
        try { await c.computeDueTime("2026-11-27T16:00Z", "1bd"); } catch (e) { console.log("caught", e.name, e.code, e.retryable, e.reason); }
        c.close();
        await new Promise((r) => setTimeout(r, 500));
        console.log("alive");
      `;
      const run = runNode(code, { PEER_PORT: String(httpPort) }, 20_000);
      assert.equal(run.status, 0, run.out);
      assert.equal(run.out.trim(), "caught Unavailable UNAVAILABLE false NOT_A_GRPC_SERVER\nalive");
      assert.ok(run.ms < 8_000, `ran ${run.ms} ms (retried?)`);
    } finally {
      await both.stop();
    }
  });
});

describe("requests over the message limit", () => {
  test("refused ResourceExhausted before sending, not retryable, and the client keeps working", async () => {
    const client = new DuetimeClient({ address: server.address, timeoutMs: 10_000 });
    try {
      const started = Date.now();
      const error = await failure(() => client.computeDueTime("2026-11-27T16:00Z", "x".repeat(17 * 1024 * 1024)));
      assert.ok(error instanceof ResourceExhausted, `${error.name}: ${error.message}`);
      assert.equal(error.code, "RESOURCE_EXHAUSTED");
      assert.equal(error.reason, "MESSAGE_TOO_LARGE");
      assert.equal(error.retryable, false);
      assert.equal(error.metadata["max_message_bytes"], String(16 * 1024 * 1024));
      assert.ok(Date.now() - started < 2_000, `took ${Date.now() - started} ms`);
      const answer = await client.computeDueTime("2026-11-27T16:00Z", "1bd");
      assert.equal(answer.dueLocal, "2026-11-30T16:00:00+00:00");
    } finally {
      client.close();
    }
  });

  test("maxMessageBytes: a batch over it is refused with its size; a stream splits its messages to fit", async () => {
    const client = new DuetimeClient({ address: server.address, timeoutMs: 10_000, maxMessageBytes: 2_000 });
    try {
      const items = Array.from({ length: 100 }, () => ({ start: "2026-11-27T16:00Z", duration: "1bd" }));
      const error = await failure(() => client.computeDueTimes(items));
      assert.ok(error instanceof ResourceExhausted);
      assert.equal(error.metadata["max_message_bytes"], "2000");
      assert.ok(Number(error.metadata["size"]) > 2_000);
      const results = [];
      for await (const result of client.streamDueTimes(items)) {
        results.push(result.ok ? result.dueTime.dueLocal : result.error.code);
      }
      assert.deepEqual(results, Array.from({ length: 100 }, () => "2026-11-30T16:00:00+00:00"));
    } finally {
      client.close();
    }
  });

  test("a large request the server's own lower limit stalls: the connection is replaced, later calls are answered", async () => {
    const small = await startServer(["--max-message-bytes", "1048576"]);
    const client = new DuetimeClient({ address: small.address, timeoutMs: 3_000, maxMessageBytes: 64 * 1024 * 1024 });
    try {
      const error = await failure(() => client.computeDueTime("2026-11-27T16:00Z", "x".repeat(20 * 1024 * 1024)));
      assert.ok(error instanceof DuetimeError);
      assert.equal((await client.computeDueTime("2026-11-27T16:00Z", "1bd")).dueLocal, "2026-11-30T16:00:00+00:00");
      assert.equal((await client.computeDueTime("2026-11-27T16:00Z", "2bd")).dueLocal, "2026-12-01T16:00:00+00:00");
    } finally {
      client.close();
      await small.stop();
    }
  });

  test("maxMessageBytes is checked in the constructor", () => {
    const error = refused(() => new DuetimeClient({ maxMessageBytes: 0 }));
    assert.equal(error.field, "maxMessageBytes");
  });
});

describe("streams", () => {
  test("leaving the loop early cancels the call: the process exits at once", () => {
    const code = `
      import { DuetimeClient } from "@duetime/client";
      const c = new DuetimeClient({ address: process.env.DT_ADDR });
      function* items() { for (let i = 0; i < 10000; i++) yield { start: "2026-11-27T16:00Z", duration: "1bd" }; }
      let n = 0;
      for await (const r of c.streamDueTimes(items())) { if (++n === 10) break; }
      console.log("broke out after " + n);
    `;
    const run = runNode(code, { DT_ADDR: server.address }, 30_000);
    assert.equal(run.status, 0, run.out);
    assert.equal(run.out.trim(), "broke out after 10");
    assert.ok(run.ms < 15_000, `the process ran ${run.ms} ms`);
  });

  test("an invalid item deep in the stream: the results of the messages sent are yielded, then InvalidArgument", async () => {
    function* items(): Generator<DueTimeRequest> {
      for (let i = 0; i < 3000; i++) {
        yield { start: i === 2500 ? "2026-13-01T00:00Z" : "2026-11-27T16:00Z", duration: "1bd" };
      }
    }
    let yielded = 0;
    const error = await failure(async () => {
      for await (const result of duetime.streamDueTimes(items())) {
        assert.ok(result.ok);
        yielded++;
      }
    });
    assert.equal(yielded, 2000);
    assert.ok(error instanceof InvalidArgument);
    assert.equal(error.field, "items[2500].start");
  });

  test("the caller's own source failing rejects with its own exception", async () => {
    const boom = new Error("the source broke");
    async function* items(): AsyncGenerator<DueTimeRequest> {
      for (let i = 0; i < 1500; i++) {
        yield { start: "2026-11-27T16:00Z", duration: "1bd" };
      }
      throw boom;
    }
    let yielded = 0;
    let caught: unknown;
    try {
      for await (const result of duetime.streamDueTimes(items())) {
        assert.ok(result.ok);
        yielded++;
      }
    } catch (error) {
      caught = error;
    }
    assert.equal(caught, boom);
    assert.equal(yielded, 1000);
  });

  test("a stream over its timeoutMs: DeadlineExceeded", async () => {
    async function* slow(): AsyncGenerator<DueTimeRequest> {
      for (let i = 0; ; i++) {
        yield { start: "2026-11-27T16:00Z", duration: "1bd" };
        await new Promise((done) => setTimeout(done, 20));
      }
    }
    const error = await failure(async () => {
      for await (const result of duetime.streamDueTimes(slow(), { timeoutMs: 300, messageItems: 1 })) {
        void result;
      }
    });
    assert.ok(error instanceof DeadlineExceeded, `${error.name}: ${error.message}`);
  });

  test("a server killed before its first answer to a new client: Unavailable, retryable", async () => {
    const doomed = await startServer();
    const client = new DuetimeClient({ address: doomed.address, timeoutMs: 30_000 });
    try {
      async function* items(): AsyncGenerator<DueTimeRequest> {
        yield { start: "2026-11-27T16:00Z", duration: "1bd" };
        // time for the connection and the server's HTTP/2 SETTINGS, its only
        // bytes so far: killed before sending them, a peer is one the client
        // cannot tell from a port that is not gRPC (NOT_A_GRPC_SERVER)
        await sleep(300);
        await doomed.kill();
        yield { start: "2026-11-27T16:00Z", duration: "1bd" };
      }
      const error = await failure(async () => {
        for await (const result of client.streamDueTimes(items(), { messageItems: 1000 })) {
          void result;
        }
      });
      assert.ok(error instanceof Unavailable, `${error.name}: ${error.message}`);
      assert.equal(error.reason, "");
      assert.equal(error.retryable, true);
    } finally {
      client.close();
      await doomed.stop();
    }
  });

  test("a server killed mid-stream: Unavailable", async () => {
    const doomed = await startServer();
    const client = new DuetimeClient({ address: doomed.address, timeoutMs: 30_000 });
    try {
      async function* items(): AsyncGenerator<DueTimeRequest> {
        for (let i = 0; i < 1000; i++) {
          yield { start: "2026-11-27T16:00Z", duration: "1bd" };
        }
        await new Promise((done) => setTimeout(done, 200));
        await doomed.kill();
        for (let i = 0; i < 1000; i++) {
          yield { start: "2026-11-27T16:00Z", duration: "1bd" };
        }
      }
      const error = await failure(async () => {
        for await (const result of client.streamDueTimes(items(), { messageItems: 1000 })) {
          void result;
        }
      });
      assert.ok(error instanceof Unavailable, `${error.name}: ${error.message}`);
      assert.equal(error.code, "UNAVAILABLE");
      assert.equal(error.retryable, true);
    } finally {
      client.close();
      await doomed.stop();
    }
  });
});

describe("RFC 3339 instants, strictly", () => {
  for (const text of ["2026-11-27T16:00+99:99", "2026-11-27T16:00+24:00", "2026-11-27T16:00-23:75", "0000-01-01T00:00Z"]) {
    test(`'${text}' is refused InvalidArgument on its field`, () => {
      const error = refused(() => timestampOf(text, "start"));
      assert.ok(error instanceof InvalidArgument);
      assert.equal(error.field, "start");
    });
  }

  test("four-digit years are read as written; offsets up to ±23:59", () => {
    assert.equal(timestampOf("0026-01-01T00:00Z", "start").seconds, -61346678400n);
    assert.equal(timestampOf("0001-01-01T00:00:00Z", "start").seconds, -62135596800n);
    assert.equal(timestampOf("2026-11-27T16:00+23:59", "start").seconds, 1795708860n);
  });
});

describe("close()", () => {
  test("calls in flight reject Cancelled CLIENT_CLOSED, not retryable; calls after close() are refused the same way", async () => {
    const client = new DuetimeClient({ address: server.address, timeoutMs: 10_000 });
    await client.computeDueTime("2026-11-27T16:00Z", "1bd");
    const calls = Array.from({ length: 20 }, (_, i) => client.computeDueTime("2026-11-27T16:00Z", `${i + 1}bd`, "hr-zagreb"));
    client.close();
    const settled = await Promise.allSettled(calls);
    for (const s of settled) {
      assert.equal(s.status, "rejected");
      const error = (s as PromiseRejectedResult).reason as DuetimeError;
      assert.ok(error instanceof Cancelled, String(error));
      assert.equal(error.code, "CANCELLED");
      assert.equal(error.reason, "CLIENT_CLOSED");
      assert.equal(error.retryable, false);
    }
    const later = await failure(() => client.computeDueTime("2026-11-27T16:00Z", "1bd"));
    assert.ok(later instanceof Cancelled);
    assert.equal(later.reason, "CLIENT_CLOSED");
    assert.equal(later.retryable, false);
    assert.equal(client.closed, true);
  });
});

describe("timeouts", () => {
  for (const timeoutMs of [2 ** 31, 1e10, Infinity, 0, -1, Number.NaN]) {
    test(`timeoutMs ${timeoutMs} is refused in the constructor`, () => {
      const error = refused(() => new DuetimeClient({ timeoutMs }));
      assert.ok(error instanceof InvalidArgument);
      assert.equal(error.field, "timeoutMs");
    });
  }

  test("timeoutMs 2^31-1 is taken", async () => {
    const client = new DuetimeClient({ address: server.address, timeoutMs: 2 ** 31 - 1 });
    try {
      assert.equal((await client.computeDueTime("2026-11-27T16:00Z", "1bd")).dueLocal, "2026-11-30T16:00:00+00:00");
    } finally {
      client.close();
    }
  });
});

describe("wrong types from plain JavaScript", () => {
  const loose = (): Record<string, (...args: unknown[]) => Promise<unknown>> =>
    duetime as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const cases: [string, () => Promise<unknown>, string][] = [
    ["a number as start", () => loose()["computeDueTime"]!.call(duetime, 123, "1bd"), "start"],
    ["a number as duration", () => loose()["computeDueTime"]!.call(duetime, "2026-11-27T16:00Z", 3), "duration"],
    ["a number as from", () => loose()["countBusinessDays"]!.call(duetime, 20261201, "2026-12-31"), "from_date"],
    ["a fraction as pageSize", () => duetime.listOpenPeriods("2026-12-01T00:00Z", "2026-12-02T00:00Z", undefined, { pageSize: 1.5 }), "page_size"],
    ["2^31 as pageSize", () => duetime.listOpenPeriods("2026-12-01T00:00Z", "2026-12-02T00:00Z", undefined, { pageSize: 2 ** 31 }), "page_size"],
    ["a text as limit", () => loose()["analyzeImpact"]!.call(duetime, "hr-zagreb", { limit: "10" }), "limit"],
    ["a number as roll", () => loose()["computeDueTime"]!.call(duetime, "2026-11-27T16:00Z", "1bd", undefined, { roll: 1 }), "roll"],
    ["a number as record id", () => loose()["getRecord"]!.call(duetime, 42), "record_id"],
    ["events not a list", () => loose()["evaluateSla"]!.call(duetime, "support-sla", "start"), "events"],
    ["a number as idempotency key", () => loose()["computeDueTime"]!.call(duetime, "2026-11-27T16:00Z", "1bd", undefined, { idempotencyKey: 7 }), "idempotency_key"],
    ["a per-call timeout of 2^31", () => duetime.computeDueTime("2026-11-27T16:00Z", "1bd", undefined, { timeoutMs: 2 ** 31 }), "timeoutMs"],
    ["a signal that is not an AbortSignal", () => loose()["computeDueTime"]!.call(duetime, "2026-11-27T16:00Z", "1bd", undefined, { signal: {} }), "signal"],
    ["a calendar key of the wrong shape", () => loose()["computeDueTime"]!.call(duetime, "2026-11-27T16:00Z", "1bd", { timeZone: 5 }), "calendar.time_zone"],
    ["null as opts", () => loose()["computeDueTime"]!.call(duetime, "2026-11-27T16:00Z", "1bd", undefined, null), "opts"],
    ["a bigint as holiday", () => loose()["computeDueTime"]!.call(duetime, "2026-11-27T16:00Z", "1bd", { holidays: [20261225n] }), "calendar.holidays[0]"],
    ["a holiday pair of a number", () => loose()["computeDueTime"]!.call(duetime, "2026-11-27T16:00Z", "1bd", { holidays: [["2026-12-25", 1]] }), "calendar.holidays[0]"],
  ];
  for (const [name, call, field] of cases) {
    test(`${name}: InvalidArgument on ${field}`, async () => {
      const error = await failure(call);
      assert.ok(error instanceof InvalidArgument, `${error.name}: ${error.message}`);
      assert.equal(error.field, field);
    });
  }

  test("a refusal names what the value is, with its article", async () => {
    const asObject = await failure(() => loose()["computeDueTime"]!.call(duetime, {}, "1bd"));
    assert.match(asObject.message, /^INVALID_ARGUMENT: start: is an object; give a Date or RFC 3339 text/);
    const asNull = await failure(() => loose()["computeDueTime"]!.call(duetime, "2026-11-27T16:00Z", "1bd", undefined, null));
    assert.match(asNull.message, /^INVALID_ARGUMENT: opts: is null; give an object of options/);
  });

  test("a token with a line break is refused in the constructor and never echoed", () => {
    const token = "s3cret\r\nx-evil: 1";
    const error = refused(() => new DuetimeClient({ token }));
    assert.equal(error.field, "token");
    assert.ok(!error.message.includes("s3cret"), error.message);
    assert.ok(!JSON.stringify(error.violations).includes("s3cret"));
  });

  test("a namespace the server would refuse is refused in the constructor", () => {
    for (const namespace of ["a b", "tenant\n", "žuto", "team!x", "ns/with/slash", "n".repeat(65)]) {
      const error = refused(() => new DuetimeClient({ namespace }));
      assert.equal(error.field, "namespace");
      assert.equal(error.message, "INVALID_ARGUMENT: namespace: is not 1-64 characters of A-Z a-z 0-9 . _ -");
    }
    new DuetimeClient({ namespace: "team-a.prod_1" }).close();
  });

  test("a server-side field is spelt as the proto spells it", async () => {
    const error = await failure(() => duetime.computeDueTime("2026-11-27T16:00Z", "1bd", { timeZone: "Mars/Olympus" }));
    assert.ok(error instanceof InvalidArgument);
    assert.equal(error.field, "calendar.time_zone");
  });
});

describe("errors no retry can fix", () => {
  test("DEADLINE_EXCEEDED with reason CALL_BUDGET_EXCEEDED is not retried and not retryable", async () => {
    const tight = await startServer(["--call-budget", "0.001"]);
    const client = new DuetimeClient({ address: tight.address, timeoutMs: 20_000, retries: 4 });
    try {
      const items = Array.from({ length: 1000 }, (_, i) => ({ start: "2026-11-27T16:00Z", duration: `${(i % 40) + 1}bh`, calendar: "hr-zagreb" }));
      const started = Date.now();
      const error = await failure(() => client.computeDueTimes(items));
      assert.ok(error instanceof DeadlineExceeded, `${error.name}: ${error.message}`);
      assert.equal(error.reason, "CALL_BUDGET_EXCEEDED");
      assert.equal(error.retryable, false);
      assert.ok(Date.now() - started < 3_000, `took ${Date.now() - started} ms (retried?)`);
    } finally {
      client.close();
      await tight.stop();
    }
  });
});

describe("call options", () => {
  test("an aborted signal: Cancelled CALL_ABORTED, not retryable; the client keeps working", async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await failure(() => duetime.computeDueTime("2026-11-27T16:00Z", "1bd", undefined, { signal: controller.signal }));
    assert.ok(error instanceof Cancelled, `${error.name}: ${error.message}`);
    assert.equal(error.reason, "CALL_ABORTED");
    assert.equal(error.retryable, false);
    assert.equal((await duetime.countBusinessDays("2026-12-01", "2026-12-31", "hr-zagreb", { signal: new AbortController().signal })).businessDays, 22);
  });

  test("a per-call timeout replaces the client's", async () => {
    const error = await failure(() => duetime.listCalendars({ timeoutMs: 1 }));
    assert.ok(error instanceof DeadlineExceeded, `${error.name}: ${error.message}`);
    assert.ok((await duetime.listCalendars({ timeoutMs: 5_000 })).calendars.length > 0);
  });
});

describe("the README's calendars", () => {
  test("an inline calendar with a date override's own hours", async () => {
    const inline = {
      timeZone: "Europe/Zagreb",
      holidays: ["2026-12-25", ["2026-12-26", "St. Stephen's Day"], { date: "2027-01-01", name: "New Year" }],
      weekend: [6, 7],
      hours: ["mon-fri 09:00-12:00,13:00-17:00"],
      dateOverrides: [
        { date: "2026-12-24", intervals: [{ start: "09:00", end: "12:00" }], name: "Christmas Eve" },
        { date: "2026-12-31", closed: true, name: "Inventory" },
      ],
    };
    const answer = await duetime.computeDueTime("2026-12-24T11:00+01:00", "2bh", inline);
    assert.equal(answer.dueLocal, "2026-12-28T10:00:00+01:00");
    const closed = await duetime.getOpenStatus("2026-12-31T10:00+01:00", inline);
    assert.equal(closed.open, false);
  });

  test("a bundle with extra holidays is taken; a bundle with a time zone is refused by the server", async () => {
    const zagreb = { bundle: "hr-zagreb", holidays: [["2026-12-31", "Office closed"]] };
    const status = await duetime.getOpenStatus("2026-12-31T10:00+01:00", zagreb);
    assert.equal(status.open, false);
    assert.equal(status.holidayName, "Office closed");
    const error = await failure(() => duetime.computeDueTime("2026-12-24T11:00+01:00", "2bh", { bundle: "hr-zagreb", timeZone: "Europe/Zagreb" }));
    assert.ok(error instanceof InvalidArgument, `${error.name}: ${error.message}`);
  });
});
